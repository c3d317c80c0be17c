/* respgen adapters: a blocking client over TCP or a unix socket, on the sans-I/O engine
 * (runtime/rg_conn.h).
 *
 * Every wait is bounded, so a dead server never hangs the caller: connect waits at most
 * connect_ms (a non-blocking connect and poll(2)), then the socket is blocking with SO_RCVTIMEO
 * and SO_SNDTIMEO of io_ms (0: forever), so each read or write is one system call. A timeout or an
 * I/O error closes the socket and completes every pending call with RG_CLOSED
 * (rg_conn_closed); rg_bconn_reconnect connects again to the same address and replays the connect
 * sequence.
 *
 * Deadlines: with the config's timeout_ms or connect_timeout_ms, or rg_conn_call_timeout, the
 * engine's deadlines are kept too (CLOCK_MONOTONIC; a poll in front of each read, only then): when
 * one passes, those calls complete with RG_TIMEOUT, the others with RG_CLOSED, and the
 * socket is closed (a late reply would be paired with the wrong call): rg_bconn_reconnect.
 *
 * Typical use: b = rg_bconn_open(host, port, NULL) (memory from the allocator, sized by the
 * engine's defaults and growing as needed: rg_conn.h), queue calls with the generated C_call
 * functions (or rg_conn_call_argv) on &b->conn, then rg_bconn_wait(b, id) for the last one;
 * callbacks and pushes run inside the wait; rg_bconn_free(b) at the end. For caller-owned fixed
 * memory (no allocation at all): rg_bconn_connect with a config giving every buffer.
 *
 * Reconnects (options.reconnect.attempts > 0): after a loss (EOF, an I/O error, a timeout or an
 * expired deadline; not a refused connect sequence, WRONGPASS or NOAUTH, nor rg_bconn_close)
 * the pending calls complete with RG_CLOSED (rg_call_done.written says whether each may have
 * run) and the adapter reconnects by itself inside rg_bconn_wait and rg_bconn_poll, sleeping a
 * jittered backoff (rg_backoff.h) before each attempt: the engine queues the connect sequence
 * and replays the subscriptions it registered (rg_conn_config.subs), and calls made while down
 * are refused or queued (rg_conn_config.queue_calls). options.on_event tells what happened
 * (rg_reconnect_event). A reconnect starts only after a connection that succeeded (the first
 * connect's failure is returned, not retried).
 *
 * Ownership: the rg_bconn is caller-owned; the buffers in its config stay the caller's and must
 * outlive it. With cfg.alloc set, a reply larger than the input buffer is read into a grown one
 * (rg_conn_config.alloc, up to max_reply). rg_bconn_close releases the socket and that memory:
 * call it when done with b, also after a failure.
 *
 * TLS: rg_bconn_connect with options.tls (rg_tls.h) connects over TLS through the filter of
 * rg_tls.h, the handshake (bounded by connect_ms) done before the engine's connect sequence is
 * written; reads and writes then carry ciphertext and the rest is unchanged. A TLS failure is
 * reported as the others (rg_bconn_error: "tls: ..."), its cause by rg_bconn_tls_cause. A call is
 * counted as written (rg_call_done.written) once encrypted into the filter.
 */
#ifndef RG_BLOCKING_H
#define RG_BLOCKING_H

#include "rg_conn.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

#include "rg_backoff.h"

typedef struct rg_bconn rg_bconn;
/* rg_tls.h's; a plain connection needs none of them. */
typedef struct rg_tls_config rg_tls_config;
typedef struct rg_tls rg_tls;
typedef struct rg_tls_ctx rg_tls_ctx;

/* Called with what the reconnect logic did (ev valid during the call). It runs inside
 * rg_bconn_wait or rg_bconn_poll: it may queue calls, not wait, poll, reconnect or close b. */
typedef void (*rg_bconn_event_fn)(rg_bconn *b, const rg_reconnect_event *ev, void *ud);

/* Where to connect, asked before every connect (rg_bconn_options.where): writes host
 * (NUL-terminated, at most cap bytes) and *port and returns RG_OK, or an error (status and
 * message, the message valid until the next call on ud) that fails this connect as a refused one
 * would (the first connect returns it; a reconnect attempt schedules the next). It runs inside
 * rg_bconn_connect, rg_bconn_wait and rg_bconn_poll, and may do blocking I/O of its own (not on
 * b). */
typedef rg_error (*rg_bconn_where_fn)(void *ud, char *host, size_t cap, int *port);

/* The connect timeout when rg_bconn_options.connect_ms is 0. */
#define RG_BCONN_CONNECT_MS 10000

/* How rg_bconn_connect and rg_bconn_open connect and reconnect; NULL or zeroed: the defaults. */
typedef struct rg_bconn_options {
    int connect_ms; /* the connect (and TLS handshake) bound: 0 RG_BCONN_CONNECT_MS, < 0 none */
    int io_ms;      /* each read's and write's bound: 0 none */
    /* NULL: plain TCP; else TLS with this config (rg_tls.h), read at connect only (and kept for
     * the reconnects) */
    const rg_tls_config *tls;
    rg_backoff reconnect;       /* attempts 0: no reconnects */
    rg_bconn_event_fn on_event; /* NULL: none */
    void *event_ud;
    /* rg_bconn_open's engine config (connect sequence, push handler, deadlines, limits, and any
     * buffers to use instead of the defaults; copied); NULL: HELLO 3 (RESP2 when the server
     * refuses it) and nothing else. Its alloc NULL means rg_conn_std_alloc. Unused by
     * rg_bconn_connect, which takes cfg. */
    const rg_conn_config *config;
    /* NULL: connect to the host and port given, always. Else asked where before every connect,
     * the first one included: the Sentinel client points the reconnects at the master it finds
     * (rg_sentinel_client.h). Over TLS the name verified is the host where answered (unless
     * the TLS config gives a server_name): each connect checks the server it reached. */
    rg_bconn_where_fn where;
    void *where_ud;
} rg_bconn_options;

/* A connection: queue calls on its conn; the rest is private. */
struct rg_bconn {
    rg_conn conn;
    /* private */
    int fd;         /* -1 when not connected */
    int connect_ms; /* connect timeout (0: none) */
    int io_ms;      /* per write/read timeout (0: none) */
    char host[256]; /* TCP host, or "" for a unix socket */
    char path[108]; /* unix socket path */
    int port;
    rg_status err_status; /* the socket's last failure (RG_OK: none, or the engine's) */
    char why[224];
    rg_tls *tls;         /* the TLS filter (NULL: plain) */
    rg_tls_ctx *tls_ctx; /* its context */
    bool tls_own_ctx;    /* made at connect from the config: freed at close */
    bool tls_wanted;     /* connected with TLS (also once rg_bconn_close freed the filter) */
    bool heard;          /* a byte came on this connection */
    bool dialing;        /* in dial: a failure leaves the engine alone */
    rg_backoff reconnect;
    rg_bconn_event_fn on_event;
    void *event_ud;
    uint64_t rng;      /* the backoff's jitter */
    uint64_t retry_at; /* CLOCK_MONOTONIC ms of the next attempt, while reconnecting */
    uint32_t attempt;  /* attempts since the loss (0: none running) */
    bool reconnecting; /* down, attempts to come */
    bool ready_told;   /* RG_RECONNECT_READY was told for this connection */
    bool closed;       /* rg_bconn_close: no reconnects */
    rg_bconn_where_fn where;
    void *where_ud;
};

/* Connects to host:port as rg_bconn_connect_tcp does, with opt's timeouts and reconnect policy
 * (NULL: the defaults, no reconnects). Returns as rg_bconn_connect_tcp. */
rg_status rg_bconn_connect(rg_bconn *b, const char *host, int port, const rg_conn_config *cfg,
                           const rg_bconn_options *opt);

/* A heap-allocated connection to host:port with its memory from the allocator (the engine's
 * RG_CONN_DEFAULT_* sizes, growing within its bounds: rg_conn.h) and opt (NULL: defaults).
 * Always returns the connection, failed or not (NULL only when the rg_bconn itself could not be
 * allocated): rg_bconn_error(b).status is RG_OK when it connected, else says why, as
 * rg_bconn_connect_tcp. rg_bconn_reconnect works on it; release it with rg_bconn_free. */
rg_bconn *rg_bconn_open(const char *host, int port, const rg_bconn_options *opt);
/* Closes b (pending calls complete with RG_CLOSED), gives its memory back and frees it; NULL is
 * ignored. Only for rg_bconn_open's connections. */
void rg_bconn_free(rg_bconn *b);

/* Connects to host:port (a name or an address; IPv4 or IPv6) as opt says (NULL: defaults),
 * over TLS with opt->tls (the TLS handshake bounded by connect_ms too; the host name verified as
 * rg_tls.h says), sets up the engine with cfg and queues its connect sequence. Returns RG_OK;
 * else (the engine is then FAILED, rg_bconn_error says why) RG_REFUSED (nothing listens there, or
 * a TLS verification or handshake failure), RG_TIMEOUT (connect_ms passed), RG_IO (another socket
 * error, the host does not resolve, or the server does not speak TLS), RG_INVALID (bad TLS files,
 * or TLS asked of a build without OpenSSL), or rg_conn_init's status for a bad cfg. */
rg_status rg_bconn_connect(rg_bconn *b, const char *host, int port, const rg_conn_config *cfg,
                           const rg_bconn_options *opt);

/* rg_bconn_connect over plain TCP with these timeouts (connect_ms 0: none). */
rg_status rg_bconn_connect_tcp(rg_bconn *b, const char *host, int port, const rg_conn_config *cfg,
                               int connect_ms, int io_ms);
/* connect_ms 0 there means no bound (rg_bconn_connect's 0 is RG_BCONN_CONNECT_MS). */
/* The same over a unix socket at path (RG_INVALID: the path is too long). */
rg_status rg_bconn_connect_unix(rg_bconn *b, const char *path, const rg_conn_config *cfg,
                                int connect_ms, int io_ms);

/* Closes the socket if open, resets the engine (pending calls complete with RG_CLOSED) and
 * connects again to the same address, at once (a reconnect that was running stops); the connect
 * sequence and the registered subscriptions are queued again. Returns as the connects. */
rg_status rg_bconn_reconnect(rg_bconn *b);

/* Writes the output and reads replies until call id has completed (id 0: until no call is
 * pending, internal ones included, and no reconnect is running). Returns RG_OK; else the
 * connection is gone and pending calls have completed (with RG_CLOSED, RG_TIMEOUT or a protocol
 * error): RG_CLOSED (EOF, or closed before), RG_TIMEOUT (io_ms or a deadline passed), RG_IO (a
 * socket error), RG_FULL (a reply larger than the input buffer without cfg.alloc, or the
 * allocator refused), RG_ERR_LIMIT (a reply larger than cfg.max_reply), RG_REFUSED (the connect
 * sequence was refused) or the decoder's sticky error. rg_bconn_error says what happened.
 * Reconnecting, a loss is not the end: the wait goes on (attempts, with their delays) as long as
 * id is not complete, and returns RG_OK when it completed on a connection that is up; the loss's
 * status when the connection is down at the end (a reconnect then goes on in the next wait or
 * poll); the last attempt's error once the attempts ran out. */
rg_status rg_bconn_wait(rg_bconn *b, uint64_t id);

/* Reads for at most ms milliseconds (pushes, late replies), writing output as it goes. Returns
 * RG_OK (also when nothing came), or as rg_bconn_wait. Reconnecting: a poll that saw the loss
 * returns its status; the next ones make the attempts (sleeping at most ms of a delay each) and
 * return RG_OK while one is to come, the last attempt's error once they ran out. */
rg_status rg_bconn_poll(rg_bconn *b, int ms);

/* For a program that polls b's socket itself among others (the cluster client): neither call
 * blocks, and neither reconnects (a failure is the end: rg_bconn_close, then connect again).
 * rg_bconn_send_now sends what the socket takes now of the output (over TLS: encrypted first);
 * rg_bconn_read_now reads once what the socket holds (over TLS: decrypted) into the engine,
 * whose callbacks run. RG_OK, also when the socket would block; else the connection failed, its
 * pending calls completed, and rg_bconn_error says why (statuses as rg_bconn_wait's). */
rg_status rg_bconn_send_now(rg_bconn *b);
rg_status rg_bconn_read_now(rg_bconn *b);
/* Has b bytes to send (the engine's output or TLS records): poll for POLLOUT? */
bool rg_bconn_want_write(const rg_bconn *b);
/* Has b read bytes the engine has not taken yet (TLS records kept for room)? Call
 * rg_bconn_read_now then without waiting for the poll, which cannot tell of them. */
bool rg_bconn_buffered(const rg_bconn *b);
/* The socket to poll (-1 when not connected). */
static inline int rg_bconn_fd(const rg_bconn *b) {
    return b->fd;
}

/* Is b down with a reconnect to come? */
static inline bool rg_bconn_reconnecting(const rg_bconn *b) {
    return b->reconnecting;
}

/* Why the connection failed last: the socket's failure (status, msg in b, offset 0), else the
 * engine's (rg_conn_error); status RG_OK while nothing failed. msg valid until the next call on
 * b; when status is not RG_OK, msg.ptr is also a NUL-terminated string (printf's %s). */
rg_error rg_bconn_error(const rg_bconn *b);

/* The cause of the last TLS failure (an rg_tls_cause of rg_tls.h: 0, RG_TLS_NONE, when there was
 * none or the connection is plain). */
int rg_bconn_tls_cause(const rg_bconn *b);
/* Did this connection's TLS handshake resume the previous session (rg_tls_config.resume)? */
bool rg_bconn_tls_reused(const rg_bconn *b);

/* Drops a connection that is up as a loss would (why: the cause told, copied): pending calls
 * complete with RG_CLOSED (rg_call_done.written says whether each may have run) and, with a
 * reconnect policy, the reconnect starts (options.where is asked again), inside the next
 * rg_bconn_wait or rg_bconn_poll. For a layer that learns by other means that the server is no
 * longer the one to talk to (Sentinel's +switch-master). RG_OK; RG_INVALID when b is not up. */
rg_status rg_bconn_drop(rg_bconn *b, const char *why);

/* Closes the socket; pending calls complete with RG_CLOSED; no reconnect follows. Frees the TLS
 * state: connect again (not rg_bconn_reconnect) after it. */
void rg_bconn_close(rg_bconn *b);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
