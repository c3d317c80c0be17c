/* respgen adapters: the TLS filter (see rg_tls.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "rg_tls.h"

#include <arpa/inet.h>
#include <limits.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rg_tls_ctx {
    SSL_CTX *ssl;
    bool verify;
    bool resume;
};

struct rg_tls {
    rg_tls_ctx *ctx; /* borrowed */
    SSL *ssl;
    BIO *net;             /* our end of the pair: ciphertext in and out */
    SSL_SESSION *session; /* the last one the server gave (resume) */
    uint64_t received;    /* ciphertext bytes fed since the restart */
    bool eof;             /* the socket ended */
    bool reused;          /* the handshake resumed session */
    bool established;     /* the handshake completed (SSL_in_init is true again while a
                             post-handshake message, a ticket, is read) */
    rg_tls_cause cause;   /* RG_TLS_NONE while fine */
    bool named;           /* name is the config's server_name: a new host does not change it */
    char name[256];       /* verified, and sent as SNI when not an address */
    char msg[224];
};

/* ---- causes --------------------------------------------------------------------------------- */

#define RG_TLS_CAUSE_NAME_(name, status, meaning) #name,
static const char *const cause_names[] = {RG_TLS_CAUSES(RG_TLS_CAUSE_NAME_)};
#undef RG_TLS_CAUSE_NAME_
#define RG_TLS_CAUSE_STATUS_(name, status, meaning) status,
static const rg_status cause_statuses[] = {RG_TLS_CAUSES(RG_TLS_CAUSE_STATUS_)};
#undef RG_TLS_CAUSE_STATUS_

const char *rg_tls_cause_name(rg_tls_cause c) {
    return (unsigned)c < RG_TLS_CAUSE_COUNT ? cause_names[c] : "RG_TLS_?";
}

rg_status rg_tls_cause_status(rg_tls_cause c) {
    return (unsigned)c < RG_TLS_CAUSE_COUNT ? cause_statuses[c] : RG_IO;
}

/* OpenSSL's last reason as text ("" when its queue is empty: it may be). */
static const char *ssl_reason(void) {
    const char *r = ERR_reason_error_string(ERR_peek_last_error());
    return r ? r : "no detail from OpenSSL";
}

/* ---- context -------------------------------------------------------------------------------- */

static rg_tls_ctx *ctx_failed(rg_tls_ctx *ctx, rg_tls_report *why, rg_tls_cause cause,
                              const char *fmt, ...) {
    if (why) {
        why->cause = cause;
        why->status = rg_tls_cause_status(cause);
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why->msg, sizeof why->msg, fmt, ap);
        va_end(ap);
    }
    rg_tls_ctx_free(ctx);
    ERR_clear_error();
    return NULL;
}

/* A session the server handed out: a copy kept by the filter it belongs to, offered on its
 * reconnect. A copy, as SSL_free marks the connection's own unresumable when it was not shut
 * down (a connection lost is just when resumption is wanted). */
static int new_session(SSL *ssl, SSL_SESSION *s) {
    rg_tls *t = SSL_get_app_data(ssl);
    SSL_SESSION *copy = t ? SSL_SESSION_dup(s) : NULL;
    if (!copy) return 0;
    if (t->session) SSL_SESSION_free(t->session);
    t->session = copy;
    return 0; /* s stays OpenSSL's */
}

/* The client certificate and its key, checked as a pair before the context takes them. */
static rg_tls_ctx *load_client_cert(rg_tls_ctx *ctx, const rg_tls_config *cfg, rg_tls_report *why) {
    if (!cfg->key_file)
        return ctx_failed(ctx, why, RG_TLS_CONFIG, "tls: cert_file %s needs a key_file",
                          cfg->cert_file);
    if (SSL_CTX_use_certificate_chain_file(ctx->ssl, cfg->cert_file) != 1)
        return ctx_failed(ctx, why, RG_TLS_CERT_LOAD, "tls: cannot load cert_file %s: %s",
                          cfg->cert_file, ssl_reason());
    BIO *f = BIO_new_file(cfg->key_file, "r");
    EVP_PKEY *key = f ? PEM_read_bio_PrivateKey(f, NULL, NULL, NULL) : NULL;
    BIO_free(f);
    if (!key)
        return ctx_failed(ctx, why, RG_TLS_KEY_LOAD, "tls: cannot load key_file %s: %s",
                          cfg->key_file, ssl_reason());
    const bool pair = X509_check_private_key(SSL_CTX_get0_certificate(ctx->ssl), key) == 1;
    const bool used = pair && SSL_CTX_use_PrivateKey(ctx->ssl, key) == 1;
    EVP_PKEY_free(key);
    if (!pair)
        return ctx_failed(ctx, why, RG_TLS_KEY_MISMATCH,
                          "tls: key_file %s does not match cert_file %s", cfg->key_file,
                          cfg->cert_file);
    if (!used)
        return ctx_failed(ctx, why, RG_TLS_KEY_LOAD, "tls: cannot use key_file %s: %s",
                          cfg->key_file, ssl_reason());
    return ctx;
}

/* Where the trusted CAs come from: the config's, else the system's. */
static rg_tls_ctx *load_cas(rg_tls_ctx *ctx, const rg_tls_config *cfg, rg_tls_report *why) {
    if (cfg->ca_file || cfg->ca_dir) {
        if (SSL_CTX_load_verify_locations(ctx->ssl, cfg->ca_file, cfg->ca_dir) != 1)
            return ctx_failed(ctx, why, RG_TLS_CA_LOAD, "tls: cannot load CAs from %s: %s",
                              cfg->ca_file ? cfg->ca_file : cfg->ca_dir, ssl_reason());
    } else if (ctx->verify && SSL_CTX_set_default_verify_paths(ctx->ssl) != 1) {
        return ctx_failed(ctx, why, RG_TLS_CA_LOAD, "tls: cannot load the system's CAs: %s",
                          ssl_reason());
    }
    return ctx;
}

rg_tls_ctx *rg_tls_ctx_new(const rg_tls_config *cfg, rg_tls_report *why) {
    ERR_clear_error();
    if (why) *why = (rg_tls_report){RG_TLS_NONE, RG_OK, ""};
    rg_tls_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx || !(ctx->ssl = SSL_CTX_new(TLS_client_method())))
        return ctx_failed(ctx, why, RG_TLS_SYSTEM, "tls: cannot make a context (out of memory)");
    ctx->verify = !cfg->insecure;
    ctx->resume = cfg->resume;
    SSL_CTX_set_min_proto_version(ctx->ssl, TLS1_2_VERSION);
    SSL_CTX_set_options(ctx->ssl, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION);
    /* A write may take part of the output, and a retry may pass it from where the engine has
     * moved it (its output compacts). */
    SSL_CTX_set_mode(ctx->ssl, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_CTX_set_verify(ctx->ssl, ctx->verify ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, NULL);
    if (cfg->resume) {
        SSL_CTX_set_session_cache_mode(ctx->ssl,
                                       SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
        SSL_CTX_sess_set_new_cb(ctx->ssl, new_session);
    }
    if (!load_cas(ctx, cfg, why)) return NULL;
    if (cfg->cert_file) return load_client_cert(ctx, cfg, why);
    if (cfg->key_file)
        return ctx_failed(ctx, why, RG_TLS_CONFIG, "tls: key_file %s without a cert_file",
                          cfg->key_file);
    return ctx;
}

void rg_tls_ctx_free(rg_tls_ctx *ctx) {
    if (!ctx) return;
    SSL_CTX_free(ctx->ssl);
    free(ctx);
}

/* ---- filter --------------------------------------------------------------------------------- */

static rg_status fail(rg_tls *t, rg_tls_cause cause, const char *fmt, ...) {
    if (t->cause != RG_TLS_NONE) return rg_tls_cause_status(t->cause); /* the first one stays */
    t->cause = cause;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->msg, sizeof t->msg, fmt, ap);
    va_end(ap);
    ERR_clear_error();
    return rg_tls_cause_status(cause);
}

static bool is_address(const char *name) {
    unsigned char a[16];
    return inet_pton(AF_INET, name, a) == 1 || inet_pton(AF_INET6, name, a) == 1;
}

/* The name checks of one SSL: a DNS name (and SNI) or an IP address. */
static bool set_name(rg_tls *t) {
    if (!t->name[0]) return true;
    const bool ip = is_address(t->name);
    if (!ip && SSL_set_tlsext_host_name(t->ssl, t->name) != 1) return false;
    if (!t->ctx->verify) return true;
    if (ip) return X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(t->ssl), t->name) == 1;
    SSL_set_hostflags(t->ssl, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    return SSL_set1_host(t->ssl, t->name) == 1;
}

/* A fresh SSL on a fresh BIO pair (the old ones freed). */
static rg_status start(rg_tls *t) {
    SSL_free(t->ssl);
    BIO_free(t->net);
    t->ssl = NULL;
    t->net = NULL;
    t->received = 0;
    t->eof = t->reused = t->established = false;
    t->cause = RG_TLS_NONE;
    t->msg[0] = '\0';
    ERR_clear_error();
    BIO *inner = NULL;
    t->ssl = SSL_new(t->ctx->ssl);
    if (!t->ssl || BIO_new_bio_pair(&inner, RG_TLS_BIO_SIZE, &t->net, RG_TLS_BIO_SIZE) != 1)
        return fail(t, RG_TLS_SYSTEM, "tls: cannot make a connection (out of memory)");
    SSL_set_bio(t->ssl, inner, inner);
    SSL_set_app_data(t->ssl, t);
    SSL_set_connect_state(t->ssl);
    if (!set_name(t)) return fail(t, RG_TLS_CONFIG, "tls: bad server name %s", t->name);
    if (t->session && t->ctx->resume) SSL_set_session(t->ssl, t->session);
    return RG_OK;
}

rg_tls *rg_tls_new(rg_tls_ctx *ctx, const char *host, const char *server_name) {
    rg_tls *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->ctx = ctx;
    const char *name = server_name ? server_name : host;
    t->named = server_name != NULL;
    snprintf(t->name, sizeof t->name, "%s", name ? name : "");
    if (start(t) != RG_OK && t->cause == RG_TLS_SYSTEM) {
        rg_tls_free(t);
        return NULL;
    }
    return t;
}

rg_status rg_tls_restart(rg_tls *t) {
    const rg_status st = start(t);
    return st == RG_OK ? RG_OK : rg_tls_cause_status(t->cause);
}

rg_status rg_tls_retarget(rg_tls *t, const char *host) {
    if (t->named || strcmp(t->name, host) == 0) return RG_OK;
    snprintf(t->name, sizeof t->name, "%s", host);
    if (t->session) SSL_SESSION_free(t->session); /* another server's: never offered to this one */
    t->session = NULL;
    return rg_tls_restart(t);
}

void rg_tls_free(rg_tls *t) {
    if (!t) return;
    SSL_free(t->ssl);
    BIO_free(t->net);
    if (t->session) SSL_SESSION_free(t->session);
    free(t);
}

bool rg_tls_ready(const rg_tls *t) {
    return t->established;
}

bool rg_tls_reused(const rg_tls *t) {
    return t->reused;
}

rg_error rg_tls_error(const rg_tls *t) {
    if (t->cause == RG_TLS_NONE) return (rg_error){RG_OK, {"", 0}, 0};
    return (rg_error){rg_tls_cause_status(t->cause), rg_cstr(t->msg), 0};
}

rg_tls_cause rg_tls_cause_of(const rg_tls *t) {
    return t->cause;
}

/* ---- ciphertext ----------------------------------------------------------------------------- */

const char *rg_tls_output(rg_tls *t, size_t *n) {
    char *p = NULL;
    const int k = t->net ? BIO_nread0(t->net, &p) : 0;
    *n = k > 0 ? (size_t)k : 0;
    return k > 0 ? p : NULL;
}

bool rg_tls_want_send(const rg_tls *t) {
    return t->net && BIO_ctrl_pending(t->net) > 0;
}

void rg_tls_written(rg_tls *t, size_t n) {
    char *p;
    BIO_nread(t->net, &p, (int)n);
}

char *rg_tls_read_buf(rg_tls *t, size_t *n) {
    char *p = NULL;
    const int k = t->net && !t->eof && t->cause == RG_TLS_NONE ? BIO_nwrite0(t->net, &p) : 0;
    *n = k > 0 ? (size_t)k : 0;
    return k > 0 ? p : NULL;
}

void rg_tls_feed(rg_tls *t, size_t n) {
    char *p;
    BIO_nwrite(t->net, &p, (int)n);
    t->received += n;
}

void rg_tls_eof(rg_tls *t) {
    t->eof = true;
    if (t->net) BIO_shutdown_wr(t->net);
}

rg_status rg_tls_timeout(rg_tls *t) {
    if (t->received == 0)
        return fail(t, RG_TLS_TIMEOUT,
                    "tls: handshake timeout: the server sent nothing (a plain port, or a server "
                    "that does not answer?)");
    return fail(t, RG_TLS_TIMEOUT, "tls: handshake timeout: the handshake did not finish");
}

/* ---- failures ------------------------------------------------------------------------------- */

/* The socket ended (no close_notify: that is SSL_ERROR_ZERO_RETURN). */
static rg_status ended(rg_tls *t, const rg_conn *c) {
    if (!t->established)
        return fail(t, RG_TLS_HANDSHAKE,
                    t->received ? "tls: the server closed the connection during the handshake"
                                : "tls: the server closed the connection before answering the "
                                  "handshake (not a TLS port?)");
    if (rg_conn_pending(c) > 0)
        return fail(t, RG_TLS_TRUNCATED,
                    "tls: connection closed without close_notify with %zu calls pending "
                    "(truncated)",
                    rg_conn_pending(c));
    return fail(t, RG_TLS_CLOSED, "tls: connection closed by the server");
}

/* A failed certificate check, by what the check said. */
static rg_status verify_failed(rg_tls *t, long v) {
    const char *why = X509_verify_cert_error_string(v);
    switch (v) {
    case X509_V_ERR_HOSTNAME_MISMATCH:
    case X509_V_ERR_IP_ADDRESS_MISMATCH:
        return fail(t, RG_TLS_HOSTNAME,
                    "tls: host name mismatch: the server's certificate does not name %s (%s)",
                    t->name, why);
    case X509_V_ERR_CERT_HAS_EXPIRED:
    case X509_V_ERR_CERT_NOT_YET_VALID:
        return fail(t, RG_TLS_EXPIRED, "tls: certificate verify failed: %s", why);
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
    case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
    case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
    case X509_V_ERR_CERT_UNTRUSTED:
        return fail(t, RG_TLS_UNKNOWN_CA,
                    "tls: certificate verify failed: %s (unknown CA: is ca_file the server's?)",
                    why);
    default: return fail(t, RG_TLS_VERIFY, "tls: certificate verify failed: %s", why);
    }
}

/* Reasons meaning that what came back is not TLS. */
static bool not_tls_reason(int reason) {
    static const int reasons[] = {SSL_R_WRONG_VERSION_NUMBER,   SSL_R_UNKNOWN_PROTOCOL,
                                  SSL_R_HTTP_REQUEST,           SSL_R_HTTPS_PROXY_REQUEST,
                                  SSL_R_PACKET_LENGTH_TOO_LONG, SSL_R_RECORD_LENGTH_MISMATCH};
    for (size_t i = 0; i < sizeof reasons / sizeof reasons[0]; i++)
        if (reason == reasons[i]) return true;
    return false;
}

/* An alert the server sent about the client's certificate. */
static bool cert_alert(int reason) {
    static const int alerts[] = {SSL_AD_BAD_CERTIFICATE,     SSL_AD_UNSUPPORTED_CERTIFICATE,
                                 SSL_AD_CERTIFICATE_REVOKED, SSL_AD_CERTIFICATE_EXPIRED,
                                 SSL_AD_CERTIFICATE_UNKNOWN, SSL_AD_UNKNOWN_CA,
                                 SSL_AD_ACCESS_DENIED,       SSL_AD_HANDSHAKE_FAILURE};
    for (size_t i = 0; i < sizeof alerts / sizeof alerts[0]; i++)
        if (reason == SSL_AD_REASON_OFFSET + alerts[i]) return true;
    return false;
}

/* An SSL call failed with e (not WANT_*): the cause from the verify result and OpenSSL's reason. */
static rg_status ssl_failed(rg_tls *t, int e, const rg_conn *c) {
    const unsigned long err = ERR_peek_last_error();
    const int reason = ERR_GET_REASON(err);
    const bool handshake = !t->established;
    if (e == SSL_ERROR_ZERO_RETURN)
        return fail(t, RG_TLS_CLOSED, "tls: connection closed by the server (close_notify)");
    if (t->eof && (e == SSL_ERROR_SYSCALL || reason == SSL_R_UNEXPECTED_EOF_WHILE_READING))
        return ended(t, c);
    const long v = SSL_get_verify_result(t->ssl);
    if (reason == SSL_R_CERTIFICATE_VERIFY_FAILED && v != X509_V_OK) return verify_failed(t, v);
    if (handshake && not_tls_reason(reason))
        return fail(t, RG_TLS_NOT_TLS, "tls: the server is not speaking TLS (%s): a plain port?",
                    ssl_reason());
    if (reason == SSL_R_TLSV13_ALERT_CERTIFICATE_REQUIRED)
        return fail(t, RG_TLS_CERT_REQUIRED,
                    "tls: the server requires a client certificate (set cert_file and key_file)");
    if (e == SSL_ERROR_SYSCALL && !err)
        return fail(t, RG_TLS_SYSTEM, "tls: OpenSSL failed without a reason");
    /* An alert about our certificate comes after our side of a TLS 1.3 handshake finished. */
    if (handshake || cert_alert(reason))
        return fail(t, RG_TLS_HANDSHAKE, "tls: the server refused the handshake: %s", ssl_reason());
    if (handshake) return fail(t, RG_TLS_HANDSHAKE, "tls: handshake failed: %s", ssl_reason());
    return fail(t, RG_TLS_PROTOCOL, "tls: %s", ssl_reason());
}

/* ---- plaintext ------------------------------------------------------------------------------ */

static rg_status handshake(rg_tls *t, const rg_conn *c) {
    ERR_clear_error();
    const int r = SSL_do_handshake(t->ssl);
    if (r == 1) {
        t->established = true;
        t->reused = SSL_session_reused(t->ssl) == 1;
        return RG_OK;
    }
    const int e = SSL_get_error(t->ssl, r);
    if (e == SSL_ERROR_WANT_READ && t->eof) return ended(t, c);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) return RG_OK;
    return ssl_failed(t, e, c);
}

bool rg_tls_want_pump(const rg_tls *t) {
    return t->ssl && t->cause == RG_TLS_NONE && t->established &&
           (SSL_pending(t->ssl) > 0 || BIO_ctrl_pending(SSL_get_rbio(t->ssl)) > 0);
}

/* Decrypts what was fed into the engine's room, as many records as fit (a record left inside
 * OpenSSL would never wake a poll on the socket: rg_tls_want_pump tells of it), then feeds the
 * engine once: one rg_conn_read_buf and one rg_conn_feed per pump, as a plain read does, so
 * that results stay valid until the next pump. */
static rg_status pump_in(rg_tls *t, rg_conn *c) {
    if (!rg_tls_want_pump(t) && !t->eof) return RG_OK;
    size_t room, got = 0;
    char *in = rg_conn_read_buf(c, &room);
    if (!in) return rg_conn_state_of(c) == RG_CONN_FAILED ? RG_OK : RG_FULL;
    rg_status st = RG_OK;
    while (got < room) {
        ERR_clear_error();
        const size_t want = room - got;
        const int r = SSL_read(t->ssl, in + got, want > INT_MAX ? INT_MAX : (int)want);
        if (r > 0) {
            got += (size_t)r;
            continue;
        }
        const int e = SSL_get_error(t->ssl, r);
        if (e == SSL_ERROR_WANT_READ && t->eof) {
            st = RG_CLOSED; /* told below, once the bytes before the end are in */
        } else if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) {
            st = ssl_failed(t, e, c);
        }
        break;
    }
    if (got > 0) rg_conn_feed(c, got);
    if (st == RG_CLOSED && t->cause == RG_TLS_NONE) st = ended(t, c);
    return st;
}

/* The engine's output encrypted until it is all taken or the ciphertext buffer is full. */
static rg_status pump_out(rg_tls *t, rg_conn *c) {
    size_t n;
    const char *out;
    while ((out = rg_conn_output(c, &n)) != NULL) {
        ERR_clear_error();
        const int w = SSL_write(t->ssl, out, n > INT_MAX ? INT_MAX : (int)n);
        if (w > 0) {
            rg_conn_written(c, (size_t)w);
            continue;
        }
        const int e = SSL_get_error(t->ssl, w);
        if (e == SSL_ERROR_WANT_WRITE || e == SSL_ERROR_WANT_READ) return RG_OK;
        return ssl_failed(t, e, c);
    }
    return RG_OK;
}

rg_status rg_tls_pump(rg_tls *t, rg_conn *c) {
    if (t->cause != RG_TLS_NONE) return rg_tls_cause_status(t->cause);
    if (!t->established) {
        const rg_status st = handshake(t, c);
        if (st != RG_OK || !t->established) return st;
    }
    rg_status st = pump_in(t, c);
    if (st == RG_OK && rg_conn_state_of(c) != RG_CONN_FAILED) st = pump_out(t, c);
    return st;
}
