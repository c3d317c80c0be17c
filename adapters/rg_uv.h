/* respgen adapters: an asynchronous client on libuv, on the sans-I/O engine (runtime/rg_conn.h).
 *
 * Calls are queued on &u->conn at any time (with the generated C_call functions or
 * rg_conn_call_argv), from anywhere on the loop's thread, callbacks included. Once per loop
 * iteration (a uv_prepare handle) everything queued since is written in one go, so calls made in
 * one callback are pipelined without the caller doing anything. Replies are read straight into
 * the engine's input buffer (uv_read_start's alloc callback hands it out, grown through
 * cfg.alloc when a reply does not fit) and complete their calls from the read callback; pushes
 * go to the config's push handler.
 *
 * Deadlines: with the config's timeout_ms (or rg_conn_call_timeout for one call) a uv_timer
 * enforces the engine's deadlines (rg_conn_expire): when one passes, the calls whose deadline
 * passed complete with RG_TIMEOUT, the others with RG_CLOSED, RG_UV_FAILED is reported
 * and the connection closes (a late reply would be paired with the wrong call); reconnect after
 * RG_UV_CLOSED. connect_timeout_ms bounds the TCP (or unix socket) connect and the connect
 * sequence together. Timeouts start at the loop iteration's uv_now.
 *
 * Lifetime: the rg_uv is caller-owned and must stay put until the close callback has run
 * (libuv holds pointers to its handles). rg_uv_close completes every pending call with
 * RG_CLOSED at once and reports RG_UV_CLOSED when libuv has released the handles; only then
 * may the memory go. A connection error, EOF or protocol error does the same by itself, reporting
 * RG_UV_FAILED first (rg_uv_error says why). A grown input buffer goes back to cfg.alloc just
 * before RG_UV_CLOSED (rg_conn_free): views into the input die there.
 *
 * The short form: u = rg_uv_open(loop, host, port, NULL, on_event, ud) allocates the rg_uv and
 * its memory (the engine's defaults, growing as needed: rg_conn.h); rg_uv_free(u) closes it and
 * frees everything once libuv has let go of the handles, from anywhere (callbacks included).
 *
 * Reconnects (rg_uv_connect with options.reconnect.attempts > 0): once a connection has
 * connected, a loss (EOF, a socket error, a timeout or an expired deadline; not a refused
 * connect sequence, WRONGPASS or NOAUTH, nor rg_uv_close) completes the pending calls with
 * RG_CLOSED (rg_call_done.written says whether each may have run), reports RG_UV_DISCONNECTED
 * instead of RG_UV_FAILED, and the adapter connects again by itself after a jittered delay (a
 * uv_timer; rg_backoff.h): RG_UV_RECONNECTING before each attempt (rg_uv_reconnect_info: the
 * attempt and its delay), RG_UV_READY once the connect sequence and the subscriptions the engine
 * replays (rg_conn_config.subs) are answered, RG_UV_GAVE_UP then RG_UV_CLOSED when the attempts
 * ran out or the server refused the connect sequence. Calls made while down are refused or
 * queued (rg_conn_config.queue_calls); their deadlines run.
 *
 * TLS: rg_uv_connect with options.tls (rg_tls.h) runs the connection through the filter of
 * rg_tls.h: the handshake first (bounded by connect_timeout_ms with the TCP connect), then the
 * connect sequence; RG_UV_READY once both are done. A TLS failure is reported as the others
 * (RG_UV_FAILED, rg_uv_error: "tls: ..."), its cause by rg_uv_tls_cause. The TLS state (filter,
 * session, context) is kept across RG_UV_CLOSED for rg_uv_reconnect and freed by rg_uv_close
 * (once the handles are released, or at once when they are): call it when done with u.
 */
#ifndef RG_UV_H
#define RG_UV_H

#include "rg_backoff.h"
#include "rg_conn.h"

#include <uv.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

typedef struct rg_uv rg_uv;

/* rg_tls.h's; a plain connection needs none of them. */
typedef struct rg_tls_config rg_tls_config;
typedef struct rg_tls rg_tls;
typedef struct rg_tls_ctx rg_tls_ctx;

/* What happened. Calls may be made at any time: before READY they wait behind the connect
 * sequence. */
typedef enum rg_uv_event {
    /* Connected, and the config's connect sequence (HELLO, AUTH, SELECT, SETNAME) succeeded: the
     * server takes calls. Once per connection, never before the handshake was answered. */
    RG_UV_READY = 1,
    /* The connection failed; rg_uv_error says why (libuv's codes translated: RG_CLOSED for EOF,
     * RG_REFUSED for a refused connect or connect sequence, RG_TIMEOUT, RG_FULL for a reply larger
     * than the input buffer without cfg.alloc, RG_ERR_LIMIT above cfg.max_reply, RG_IO for other
     * socket errors, or the decoder's sticky error). Pending calls have completed; RG_UV_CLOSED
     * follows. */
    RG_UV_FAILED,
    /* Handles released: the rg_uv may be freed or connected again. */
    RG_UV_CLOSED,
    /* Reconnecting (see above): the connection was lost, rg_uv_error says why; pending calls
     * have completed. */
    RG_UV_DISCONNECTED,
    /* An attempt starts after a delay: rg_uv_reconnect_info(u)->attempt and delay_ms. */
    RG_UV_RECONNECTING,
    /* No more attempts (or the connect sequence was refused): queued calls have completed,
     * rg_uv_error says why; RG_UV_CLOSED follows. */
    RG_UV_GAVE_UP
} rg_uv_event;
typedef void (*rg_uv_event_fn)(rg_uv *u, rg_uv_event event, void *ud);

/* Where to connect, asked before every connect (rg_uv_options.where), the first one included:
 * the hook finds out (now or later, on the loop: the Sentinel client asks its sentinels) and
 * answers once with rg_uv_dial_at (connect there) or rg_uv_dial_failed (this attempt failed).
 * Until it answers the engine waits (calls wait or are queued as for any connect). */
typedef void (*rg_uv_where_fn)(void *ud, rg_uv *u);

/* How rg_uv_connect and rg_uv_open connect and reconnect; NULL or zeroed: the defaults. */
typedef struct rg_uv_options {
    /* NULL: plain TCP; else TLS with this config (rg_tls.h), read at connect only (kept for the
     * reconnects) */
    const rg_tls_config *tls;
    rg_backoff reconnect; /* attempts 0: no reconnects (as rg_uv_connect_tcp) */
    /* rg_uv_open's engine config (connect sequence, push handler, deadlines, limits, and any
     * buffers to use instead of the defaults; copied); NULL: HELLO 3 (RESP2 when the server
     * refuses it) and connect_timeout_ms RG_UV_CONNECT_MS. Its alloc NULL means
     * rg_conn_std_alloc. Unused by rg_uv_connect, which takes cfg. */
    const rg_conn_config *config;
    /* NULL: connect to the host given, always. Else asked before every connect (see
     * rg_uv_where_fn); rg_uv_connect's host is then unused. Over TLS the name verified is the
     * address rg_uv_dial_at names (unless the TLS config gives a server_name). */
    rg_uv_where_fn where;
    void *where_ud;
} rg_uv_options;

/* A connection: queue calls on its conn; the rest is private. */
struct rg_uv {
    rg_conn conn;
    /* private */
    uv_loop_t *loop;
    union {
        uv_stream_t stream;
        uv_tcp_t tcp;
        uv_pipe_t pipe;
    } h;
    uv_prepare_t prepare; /* flushes the output once per loop iteration */
    uv_timer_t timer;     /* the next deadline (rg_conn_next_deadline) */
    uv_timer_t retry;     /* the next reconnect attempt */
    uint64_t armed;       /* when the timer fires (RG_DEADLINE_NONE: stopped) */
    uint64_t dial_at;     /* uv_now at the connect (for connect_timeout_ms) */
    uv_connect_t connect_req;
    uv_write_t write_req;
    size_t writing; /* bytes of the write in flight (0: none) */
    int open;       /* handles not yet closed */
    bool connected; /* the TCP (or unix socket) connect completed */
    bool ready;     /* RG_UV_READY was told for this connection */
    rg_uv_event_fn on_event;
    void *ud;
    struct sockaddr_storage addr; /* TCP: where to connect again */
    char path[108];               /* unix socket: where to connect again ("" for TCP) */
    rg_status err_status;         /* the socket's failure (RG_OK: none, or the engine's) */
    char why[224];
    bool heap;      /* rg_uv_open's: rg_uv_free may free it */
    bool doomed;    /* rg_uv_free was called: freed once the handles are closed */
    bool in_closed; /* reporting RG_UV_CLOSED: a free waits until that callback returns */
    rg_backoff reconnect;
    uint64_t rng;            /* the backoff's jitter */
    uint32_t attempt;        /* attempts since the loss (0: none running) */
    bool stream_open;        /* h.stream is initialized and its close callback has not run */
    bool handles_open;       /* prepare, timer and retry are */
    bool shutting;           /* closing for good */
    bool ever_connected;     /* reconnects follow only a connection that connected */
    rg_reconnect_event info; /* the last reconnect event's details */
    rg_tls *tls;             /* the TLS filter (NULL: plain) */
    rg_tls_ctx *tls_ctx;     /* its context */
    bool tls_own_ctx;        /* made at connect from the config: freed with the filter */
    bool tls_wanted;         /* connected with TLS (also once rg_uv_close freed the filter) */
    bool tls_release;        /* rg_uv_close asked: free the TLS state once the handles are closed */
    size_t tls_writing;      /* ciphertext bytes of the write in flight */
    rg_uv_where_fn where;    /* rg_uv_options.where */
    void *where_ud;
    bool asking; /* where was asked and has not answered */
};

/* rg_uv_open's connect timeout (TCP connect and connect sequence) without a config. */
#define RG_UV_CONNECT_MS 5000

/* Connects to host_or_ip:port on loop as opt says (NULL: defaults; TLS with opt->tls, the name
 * verified as rg_tls.h says), with the engine set up from cfg (buffers stay the caller's). A
 * name is resolved with getaddrinfo at connect, blocking the loop that long: give an address
 * where that matters. Calls may be queued right away; they go out after the handshakes. Returns
 * as rg_uv_connect_tcp; RG_INVALID also for a name that does not resolve, bad TLS files (the
 * message names the cause: rg_uv_tls_cause) or TLS asked of a build without OpenSSL. With
 * opt->reconnect.attempts > 0 it reconnects by itself (see above). */
rg_status rg_uv_connect(rg_uv *u, uv_loop_t *loop, const char *host_or_ip, int port,
                        const rg_conn_config *cfg, const rg_uv_options *opt,
                        rg_uv_event_fn on_event, void *ud);

/* A heap-allocated connection to host:port (as rg_uv_connect) with its memory from the
 * allocator (the engine's RG_CONN_DEFAULT_* sizes, growing within its bounds) and opt (NULL:
 * defaults). Always returns the connection (NULL only when the rg_uv itself could not be
 * allocated): when the connect fails at once, rg_uv_error(u).status says why (and RG_UV_CLOSED
 * follows when a handle was opened); later failures come as events. Release it with rg_uv_free,
 * never with free(). */
rg_uv *rg_uv_open(uv_loop_t *loop, const char *host, int port, const rg_uv_options *opt,
                  rg_uv_event_fn on_event, void *ud);
/* Closes u (pending calls complete with RG_CLOSED now) and frees it and its memory as soon as
 * libuv has released its handles: at once when none is open, else right after RG_UV_CLOSED has
 * been reported (which still comes). u is not to be used after this call. Safe from any callback,
 * RG_UV_CLOSED's included; NULL is ignored. Only for rg_uv_open's connections. */
void rg_uv_free(rg_uv *u);

/* Connects to ip:port (a numeric IPv4 or IPv6 address) over plain TCP on loop, with the engine set
 * up from cfg (buffers stay the caller's). Calls may be queued right away; they go out after the
 * connect sequence. Returns RG_OK; else rg_uv_error says why: before any handle was opened
 * (RG_INVALID: a bad address, path or config; RG_FULL: rg_conn_init's) nothing follows; when the
 * connect itself fails at once (RG_IO ...), RG_UV_CLOSED follows. */
rg_status rg_uv_connect_tcp(rg_uv *u, uv_loop_t *loop, const char *ip, int port,
                            const rg_conn_config *cfg, rg_uv_event_fn on_event, void *ud);
/* The details of the last RG_UV_DISCONNECTED, RG_UV_RECONNECTING or RG_UV_GAVE_UP: attempt,
 * delay_ms, cause (valid until the next event). */
const rg_reconnect_event *rg_uv_reconnect_info(const rg_uv *u);
/* The same over a unix socket. */
rg_status rg_uv_connect_unix(rg_uv *u, uv_loop_t *loop, const char *path, const rg_conn_config *cfg,
                             rg_uv_event_fn on_event, void *ud);

/* The answer of a where hook: connect to ip (numeric; a name is resolved with getaddrinfo,
 * blocking the loop) and port; over TLS the certificate must name ip (an IP SAN for an address)
 * unless the TLS config gives a server_name. RG_OK; RG_INVALID when no answer was asked for (or
 * u is closing: nothing happens). A failure to start the connect counts as the attempt's. */
rg_status rg_uv_dial_at(rg_uv *u, const char *ip, int port);
/* The answer of a where hook: this connect fails with st and why (copied). The first connect's
 * failure ends u (RG_UV_FAILED, then RG_UV_CLOSED, both from this call); a reconnect's schedules
 * the next attempt. RG_OK, or RG_INVALID as rg_uv_dial_at. */
rg_status rg_uv_dial_failed(rg_uv *u, rg_status st, const char *why);
/* Drops a connection that is up as a loss would (why: the cause, copied): pending calls complete
 * with RG_CLOSED (`written` says whether each may have run) and, with a reconnect policy, a
 * reconnect follows (where is asked again). For a layer that learns by other means that the
 * server is no longer the one to talk to (Sentinel's +switch-master). Safe from callbacks. RG_OK;
 * RG_INVALID when u is not connected (down, connecting, closing). */
rg_status rg_uv_drop(rg_uv *u, const char *why);

/* After RG_UV_CLOSED (from its event callback too): connects again to the same address with the
 * same config; the engine starts over (rg_conn_reset: the connect sequence is queued again).
 * Returns as the connects; RG_INVALID before RG_UV_CLOSED. */
rg_status rg_uv_reconnect(rg_uv *u);

/* Why the connection failed last: the socket's failure (status, msg in u, offset 0), else the
 * engine's (rg_conn_error); status RG_OK while nothing failed. msg valid until the next call on
 * u. */
rg_error rg_uv_error(const rg_uv *u);

/* Writes what is queued on u->conn now, instead of at the next loop iteration: for a caller that
 * queues calls from a prepare handle of its own (run after u's in that iteration). */
void rg_uv_flush(rg_uv *u);

/* Closes the connection: pending calls (and calls queued while down) complete with RG_CLOSED
 * now, no reconnect follows, RG_UV_CLOSED follows from the loop (unless the handles were already
 * released). Safe to call from any callback, and more than once. Frees the TLS state: connect
 * again (not rg_uv_reconnect) after it. */
void rg_uv_close(rg_uv *u);

/* The cause of the last TLS failure (an rg_tls_cause of rg_tls.h: 0, RG_TLS_NONE, when there was
 * none or the connection is plain). */
int rg_uv_tls_cause(const rg_uv *u);
/* Did this connection's TLS handshake resume the previous session (rg_tls_config.resume)? */
bool rg_uv_tls_reused(const rg_uv *u);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
