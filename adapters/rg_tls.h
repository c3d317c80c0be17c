/* respgen adapters: TLS (OpenSSL) under the sans-I/O engine (runtime/rg_conn.h).
 *
 * rg_tls is a filter, itself free of I/O: ciphertext goes in (rg_tls_read_buf / rg_tls_feed) and
 * out (rg_tls_output / rg_tls_written) through a BIO pair inside it, and rg_tls_pump moves the
 * plaintext between OpenSSL and the engine (SSL_read into rg_conn_read_buf's room, the engine's
 * rg_conn_output through SSL_write). Every adapter moves the ciphertext as it moved the plaintext;
 * rg_bconn_connect and rg_uv_connect do it when given a config (docs/client.md, "TLS").
 *
 * Defaults are the safe ones: TLS 1.2 or later, the server's certificate verified against the CA
 * file or directory (else the system's roots), and its name against the host connected to (or
 * server_name): DNS names per SSL_set1_host, IP addresses per the certificate's IP SANs. SNI is
 * sent for a DNS name. No renegotiation. Turning verification off takes `insecure`.
 *
 * Failures are reported in the house vocabulary (an rg_status with a message naming the cause,
 * "tls: ...") and as an rg_tls_cause for programs (rg_tls_cause_of).
 *
 * Memory: a context and a filter are allocated once (OpenSSL's objects and a BIO pair of
 * RG_TLS_BIO_SIZE bytes each way), at connect; pumping allocates nothing of respgen's.
 * Link: respgen::tls (CMake) or respgen-tls (pkg-config), built when OpenSSL was found; the
 * blocking and libuv adapters link it then.
 */
#ifndef RG_TLS_H
#define RG_TLS_H

#include "rg_conn.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* A context shared by connections (an SSL_CTX with its CAs and client certificate). */
typedef struct rg_tls_ctx rg_tls_ctx;
/* One connection's filter. */
typedef struct rg_tls rg_tls;

/* How to connect over TLS. Strings are read while the context is built (rg_tls_ctx_new), and
 * server_name when a filter is made; none is kept. */
typedef struct rg_tls_config {
    const char *ca_file;   /* PEM file of trusted CAs; with ca_dir NULL too: the system's */
    const char *ca_dir;    /* directory of hashed CA files (openssl rehash) */
    const char *cert_file; /* client certificate (PEM, chain allowed) for mutual TLS; NULL: none */
    const char *key_file;  /* its private key (PEM); needed with cert_file */
    const char *server_name; /* the name to verify and send as SNI; NULL: the host connected to */
    bool insecure;           /* no verification at all (certificate nor name): tests only */
    /* Keep the session of each connection and offer it on reconnect (TLS 1.3 tickets, TLS 1.2
     * session ids); rg_tls_reused tells whether the server took it. */
    bool resume;
    /* A context to share (rg_tls_ctx_new, e.g. across a cluster's nodes); NULL: the adapter
     * builds one from the fields above at connect and frees it at close. When given, the fields
     * above but server_name are ignored. */
    rg_tls_ctx *ctx;
} rg_tls_config;

/* Why TLS failed: X(name, status, meaning). */
#define RG_TLS_CAUSES(X)                                                                       \
    X(RG_TLS_NONE, RG_OK, "no failure")                                                        \
    X(RG_TLS_CONFIG, RG_INVALID, "a bad config (key without certificate, ...)")                \
    X(RG_TLS_CA_LOAD, RG_INVALID, "the CA file or directory cannot be loaded")                 \
    X(RG_TLS_CERT_LOAD, RG_INVALID, "the client certificate cannot be loaded")                 \
    X(RG_TLS_KEY_LOAD, RG_INVALID, "the client key cannot be loaded")                          \
    X(RG_TLS_KEY_MISMATCH, RG_INVALID, "the client key does not match its certificate")        \
    X(RG_TLS_UNKNOWN_CA, RG_REFUSED, "the server's certificate is not signed by a trusted CA") \
    X(RG_TLS_EXPIRED, RG_REFUSED, "the server's certificate expired (or is not yet valid)")    \
    X(RG_TLS_VERIFY, RG_REFUSED, "the server's certificate failed verification otherwise")     \
    X(RG_TLS_HOSTNAME, RG_REFUSED, "the server's certificate does not name the host")          \
    X(RG_TLS_CERT_REQUIRED, RG_REFUSED, "the server wants a client certificate (mutual TLS)")  \
    X(RG_TLS_HANDSHAKE, RG_REFUSED, "the handshake failed otherwise (an alert, no cipher)")    \
    X(RG_TLS_NOT_TLS, RG_IO, "the server is not speaking TLS (a plain port?)")                 \
    X(RG_TLS_TIMEOUT, RG_TIMEOUT, "the handshake did not finish in time")                      \
    X(RG_TLS_TRUNCATED, RG_CLOSED, "the connection ended without close_notify mid-stream")     \
    X(RG_TLS_CLOSED, RG_CLOSED, "the server closed the connection")                            \
    X(RG_TLS_PROTOCOL, RG_IO, "a TLS error after the handshake (a bad record, ...)")           \
    X(RG_TLS_SYSTEM, RG_IO, "out of memory or another library failure")

#define RG_TLS_CAUSE_ENUM_(name, status, meaning) name,
typedef enum rg_tls_cause { RG_TLS_CAUSES(RG_TLS_CAUSE_ENUM_) RG_TLS_CAUSE_COUNT } rg_tls_cause;
#undef RG_TLS_CAUSE_ENUM_

/* A static name for a cause, e.g. "RG_TLS_HOSTNAME". Never NULL. */
const char *rg_tls_cause_name(rg_tls_cause c);
/* The rg_status a cause is reported with (RG_TLS_CAUSES). */
rg_status rg_tls_cause_status(rg_tls_cause c);

/* What a failed rg_tls_ctx_new says: the cause, its status and a message. */
typedef struct rg_tls_report {
    rg_tls_cause cause;
    rg_status status;
    char msg[224];
} rg_tls_report;

/* The bytes each direction of a filter's BIO pair holds: room for several full records. */
#define RG_TLS_BIO_SIZE ((size_t)1 << 16)

/* Builds a context from cfg (cfg->ctx ignored). Returns it (free it with rg_tls_ctx_free once no
 * filter uses it), or NULL with *why filled (RG_TLS_CA_LOAD, RG_TLS_CERT_LOAD, RG_TLS_KEY_LOAD,
 * RG_TLS_KEY_MISMATCH, RG_TLS_CONFIG, RG_TLS_SYSTEM). */
rg_tls_ctx *rg_tls_ctx_new(const rg_tls_config *cfg, rg_tls_report *why);
/* NULL is fine. */
void rg_tls_ctx_free(rg_tls_ctx *ctx);

/* A filter on ctx (borrowed: it must outlive the filter) for a connection to host (a DNS name or
 * an IP address; server_name, when not NULL, replaces it), client side, its handshake not yet
 * started. NULL when out of memory. */
rg_tls *rg_tls_new(rg_tls_ctx *ctx, const char *host, const char *server_name);
/* Starts over for a new connection to the same host (a reconnect): a fresh SSL, offered the last
 * connection's session when the context resumes. Returns RG_OK, or RG_IO (out of memory: the
 * error tells it). */
rg_status rg_tls_restart(rg_tls *t);
/* Starts over for a connection to another host (a reconnect a where hook sent elsewhere: a
 * Sentinel's new master): the name verified (and sent as SNI) becomes host, unless the filter
 * was made with a server_name, which stays; the session kept, another server's, is dropped; then
 * as rg_tls_restart. host the same as before: nothing changes (the session stays offered).
 * Returns RG_OK, or as rg_tls_restart. */
rg_status rg_tls_retarget(rg_tls *t, const char *host);
/* NULL is fine. */
void rg_tls_free(rg_tls *t);

/* Advances the connection: the handshake until it is done; then the records fed so far are
 * decrypted into the engine's room (rg_conn_read_buf) until OpenSSL wants more or the room is
 * full, and the engine is fed once (rg_conn_feed: calls complete; their results stay valid until
 * the next pump, as after a plain read); then the engine's output is encrypted (SSL_write until
 * it is all taken or the ciphertext buffer is full: send rg_tls_output, then pump again).
 * Returns RG_OK (also when the engine failed by itself: rg_conn_state_of tells), RG_FULL when
 * the engine's input is full and cannot grow (nothing else is wrong), or the failure's status
 * (rg_tls_error, rg_tls_cause_of). */
rg_status rg_tls_pump(rg_tls *t, rg_conn *c);
/* Is there more to decrypt without reading the socket (a record fed, or plaintext decrypted,
 * that the engine's room did not take)? Then pump before waiting for the socket: no poll will
 * tell of it. */
bool rg_tls_want_pump(const rg_tls *t);

/* Has the handshake completed? */
bool rg_tls_ready(const rg_tls *t);

/* Ciphertext to send next (*n bytes), or NULL with *n 0. Valid, and never moved, until
 * rg_tls_written took it or the filter restarts, pumps included. */
const char *rg_tls_output(rg_tls *t, size_t *n);
/* Has the filter ciphertext to send (rg_tls_output not NULL)? */
bool rg_tls_want_send(const rg_tls *t);
/* n bytes of rg_tls_output were sent. */
void rg_tls_written(rg_tls *t, size_t n);

/* Where to put ciphertext read from the socket: *n bytes of room (0 only after a failure, or
 * when pumping has not consumed what was fed). */
char *rg_tls_read_buf(rg_tls *t, size_t *n);
/* n bytes were read into rg_tls_read_buf's room (pump next). */
void rg_tls_feed(rg_tls *t, size_t n);
/* The socket reached EOF: the next pump finishes what was fed and then fails with RG_CLOSED:
 * RG_TLS_CLOSED after a close_notify or between replies, RG_TLS_TRUNCATED inside a reply or
 * with calls pending, or RG_TLS_NOT_TLS / RG_TLS_HANDSHAKE during the handshake. */
void rg_tls_eof(rg_tls *t);
/* The handshake did not finish in time (the adapter's clock): the filter fails with
 * RG_TLS_TIMEOUT. Returns its status (RG_TIMEOUT). */
rg_status rg_tls_timeout(rg_tls *t);

/* Why the filter failed: status RG_OK (msg empty) while it did not; msg lives in the filter until
 * rg_tls_restart. */
rg_error rg_tls_error(const rg_tls *t);
/* The cause of that failure (RG_TLS_NONE while none). */
rg_tls_cause rg_tls_cause_of(const rg_tls *t);
/* Did this connection's handshake resume the previous connection's session? */
bool rg_tls_reused(const rg_tls *t);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
