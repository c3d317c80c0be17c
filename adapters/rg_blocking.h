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
 * Ownership: the rg_bconn is caller-owned; the buffers in its config stay the caller's and must
 * outlive it. With cfg.alloc set, a reply larger than the input buffer is read into a grown one
 * (rg_conn_config.alloc, up to max_reply). rg_bconn_close releases the socket and that memory:
 * call it when done with b, also after a failure.
 */
#ifndef RG_BLOCKING_H
#define RG_BLOCKING_H

#include "rg_conn.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* A connection: queue calls on its conn; the rest is private. */
typedef struct rg_bconn {
    rg_conn conn;
    /* private */
    int fd;         /* -1 when not connected */
    int connect_ms; /* connect timeout (0: none) */
    int io_ms;      /* per write/read timeout (0: none) */
    char host[256]; /* TCP host, or "" for a unix socket */
    char path[108]; /* unix socket path */
    int port;
    rg_status err_status; /* the socket's last failure (RG_OK: none, or the engine's) */
    char why[128];
} rg_bconn;

/* The connect timeout rg_bconn_options.connect_ms 0 stands for. */
#define RG_BCONN_CONNECT_MS 5000

/* How to connect; NULL (or every field 0) means the defaults. */
typedef struct rg_bconn_options {
    int connect_ms; /* the connect's bound: 0 RG_BCONN_CONNECT_MS, < 0 none */
    int io_ms;      /* each read's and write's bound: 0 none */
    /* rg_bconn_open's engine config (connect sequence, push handler, deadlines, limits, and any
     * buffers to use instead of the defaults; copied); NULL: HELLO 3 (RESP2 when the server
     * refuses it) and nothing else. Its alloc NULL means rg_conn_std_alloc. Unused by
     * rg_bconn_connect, which takes cfg. */
    const rg_conn_config *config;
} rg_bconn_options;

/* Connects to host:port as rg_bconn_connect_tcp, with opt (NULL: defaults). */
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

/* Connects to host:port (a name or an address; IPv4 or IPv6), sets up the engine with cfg and
 * queues its connect sequence. Returns RG_OK; else (the engine is then FAILED, rg_bconn_error says
 * why) RG_REFUSED (nothing listens there), RG_TIMEOUT (connect_ms passed), RG_IO (another socket
 * error, or the host does not resolve), or rg_conn_init's status for a bad cfg. */
rg_status rg_bconn_connect_tcp(rg_bconn *b, const char *host, int port, const rg_conn_config *cfg,
                               int connect_ms, int io_ms);
/* connect_ms 0 there means no bound (rg_bconn_connect's 0 is RG_BCONN_CONNECT_MS). */
/* The same over a unix socket at path (RG_INVALID: the path is too long). */
rg_status rg_bconn_connect_unix(rg_bconn *b, const char *path, const rg_conn_config *cfg,
                                int connect_ms, int io_ms);

/* Closes the socket if open, resets the engine (pending calls complete with RG_CLOSED) and
 * connects again to the same address; the connect sequence is queued again. Returns as the
 * connects. */
rg_status rg_bconn_reconnect(rg_bconn *b);

/* Writes the output and reads replies until call id has completed (id 0: until no call is
 * pending). Returns RG_OK; else the connection is gone and pending calls have completed (with
 * RG_CLOSED, RG_TIMEOUT or a protocol error): RG_CLOSED (EOF, or closed before), RG_TIMEOUT (io_ms
 * or a deadline passed), RG_IO (a socket error), RG_FULL (a reply larger than the input buffer
 * without cfg.alloc, or the allocator refused), RG_ERR_LIMIT (a reply larger than cfg.max_reply),
 * RG_REFUSED (the connect sequence was refused) or the decoder's sticky error. rg_bconn_error says
 * what happened. */
rg_status rg_bconn_wait(rg_bconn *b, uint64_t id);

/* Reads for at most ms milliseconds (pushes, late replies), writing output as it goes. Returns
 * RG_OK (also when nothing came), or as rg_bconn_wait. */
rg_status rg_bconn_poll(rg_bconn *b, int ms);

/* Why the connection failed last: the socket's failure (status, msg in b, offset 0), else the
 * engine's (rg_conn_error); status RG_OK while nothing failed. msg valid until the next call on
 * b; when status is not RG_OK, msg.ptr is also a NUL-terminated string (printf's %s). */
rg_error rg_bconn_error(const rg_bconn *b);

/* Closes the socket; pending calls complete with RG_CLOSED. */
void rg_bconn_close(rg_bconn *b);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
