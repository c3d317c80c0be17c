/* TLS (adapters/rg_tls.h) through the blocking adapter against a real redis-server serving TLS on
 * certificates the test makes with the openssl command (tests/support/test_tls.h):
 * - typed calls over TLS to 127.0.0.1 (an IP SAN) and to localhost (a DNS SAN and SNI), in RESP3
 *   and RESP2;
 * - 100,000 mixed pipelined commands, the ciphertext read from the socket in random sizes
 *   (1 B .. 64 KiB) and fed to the filter piece by piece, every result checked against a model;
 *   once more with a 64-byte engine input, so that records decrypt into a room smaller than
 *   they are; allocations of OpenSSL per command counted in steady state;
 * - pushes between replies (CLIENT TRACKING invalidations, Pub/Sub messages) and MULTI/EXEC;
 * - a GET of 64 MiB through a 64 KiB input buffer grown by rg_conn_std_alloc;
 * - mutual TLS: accepted with a client certificate, refused without one (RG_TLS_CERT_REQUIRED);
 * - each failure named: unknown CA, expired certificate, wrong host (a certificate for another
 *   name, and another server_name), TLS against a plain port (a plain listener that answers, and
 *   redis-server's plain port), a plain client against the TLS port, a handshake timeout against
 *   a listener that never answers, bad files (missing CA, a key as CA, a bad certificate, a key
 *   not matching its certificate, a key without certificate); `insecure` connecting anyway;
 * - session resumption on reconnect, and none without `resume`;
 * - the server killed with a BLPOP pending (after 1,000 pipelined SETs): EOF without
 *   close_notify with a call pending is RG_TLS_TRUNCATED (RG_CLOSED), every call completing once.
 */
#include "big_value.h"
#include "redis_client.h"
#include "rg_blocking.h"
#include "rg_tls.h"
#include "test_redis.h"
#include "test_tls.h"

#include <errno.h>
#include <openssl/crypto.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#define V(s) ((rg_view){(s), sizeof(s) - 1})

enum { NCALLS = 1024, IN_CAP = 1 << 16, OUT_CAP = 1 << 20, PUSHES = 16 };

/* OpenSSL's allocations, counted through CRYPTO_set_mem_functions (set before any); with
 * RG_TRACE set, those of the second half of the 100k run are printed with their file:line. */
static uint64_t ssl_allocs;
static bool ssl_trace;
static void *count_malloc(size_t n, const char *file, int line) {
    if (ssl_trace) fprintf(stderr, "alloc %s:%d %zu\n", file, line, n);
    ssl_allocs++;
    return malloc(n);
}
static void *count_realloc(void *p, size_t n, const char *file, int line) {
    (void)file;
    (void)line;
    ssl_allocs++;
    return realloc(p, n);
}
static void count_free(void *p, const char *file, int line) {
    (void)file;
    (void)line;
    free(p);
}

typedef struct client {
    rg_bconn b;
    char in[IN_CAP];
    char out[OUT_CAP];
    char storage[1 << 14];
    rg_call calls[NCALLS];
    int npush;
    char what[PUSHES][64];
} client;

typedef struct fixture {
    test_certs certs;
    test_redis server; /* TLS on server.crt, no client certificates */
    int tls_port;
    char ca[256];
} fixture;

static bool same(rg_view v, const char *s) {
    return v.len == strlen(s) && (v.len == 0 || memcmp(v.ptr, s, v.len) == 0);
}

static void on_push(void *ud, const rg_push *p) {
    client *c = ud;
    if (c->npush >= PUSHES) return;
    char *w = c->what[c->npush++];
    if (p->kind == RG_PUSH_INVALIDATE) {
        rg_view k;
        size_t at = 0;
        snprintf(w, 64, "%s", p->flush_all ? "(all)" : "");
        if (rg_push_keys_next(p, &at, &k)) snprintf(w, 64, "inv:%.*s", (int)k.len, k.ptr);
    } else {
        snprintf(w, 64, "%.*s:%.*s", (int)p->channel.len, p->channel.ptr ? p->channel.ptr : "",
                 (int)p->payload.len, p->payload.ptr ? p->payload.ptr : "");
    }
}

static rg_conn_config config(client *c, int protocol) {
    return (rg_conn_config){.in = c->in,
                            .in_cap = sizeof c->in,
                            .out = c->out,
                            .out_cap = sizeof c->out,
                            .calls = c->calls,
                            .ncalls = NCALLS,
                            .storage = c->storage,
                            .storage_cap = sizeof c->storage,
                            .on_push = on_push,
                            .push_ud = c,
                            .protocol = protocol};
}

/* The config most tests use: the test CA, the name checked against the host. */
static rg_tls_config tls_config(const fixture *f) {
    return (rg_tls_config){.ca_file = f->ca};
}

static rg_status connect_tls(client *c, const char *host, int port, const rg_conn_config *cfg,
                             const rg_tls_config *tls, int connect_ms) {
    const rg_bconn_options opt = {.connect_ms = connect_ms, .io_ms = 5000, .tls = tls};
    return rg_bconn_connect(&c->b, host, port, cfg, &opt);
}

static client *open_client(const fixture *f, const char *host, int protocol) {
    client *c = calloc(1, sizeof *c);
    assert_non_null(c);
    const rg_conn_config cfg = config(c, protocol);
    const rg_tls_config tls = tls_config(f);
    const rg_status st = connect_tls(c, host, f->tls_port, &cfg, &tls, 2000);
    if (st != RG_OK) fprintf(stderr, "connect: %s\n", rg_bconn_error(&c->b).msg.ptr);
    assert_int_equal(st, RG_OK);
    return c;
}

static void close_client(client *c) {
    rg_bconn_close(&c->b);
    free(c);
}

static rg_call_record command(client *c, const char *words) {
    rg_view argv[16];
    size_t n = 0;
    char copy[256];
    snprintf(copy, sizeof copy, "%s", words);
    for (char *save = NULL, *w = strtok_r(copy, " ", &save); w && n < 16;
         w = strtok_r(NULL, " ", &save))
        argv[n++] = (rg_view){w, strlen(w)};
    rg_call_record r = {0};
    const uint64_t id = rg_conn_call_argv(&c->b.conn, n, argv, NULL, NULL, rg_call_record_fn, &r);
    assert_int_not_equal(id, 0);
    const rg_status st = rg_bconn_wait(&c->b, id);
    if (st != RG_OK) fprintf(stderr, "%s: %s\n", words, rg_bconn_error(&c->b).msg.ptr);
    assert_int_equal(st, RG_OK);
    assert_true(r.done);
    return r;
}

static int setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    if (!f || test_certs_make(&f->certs) != 0) return -1;
    if (test_redis_start_tls(&f->server, &f->tls_port, &f->certs, "server.crt", "server.key", false,
                             NULL) != 0)
        return -1;
    snprintf(f->ca, sizeof f->ca, "%s", test_certs_file(&f->certs, "ca.crt"));
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fixture *f = *state;
    test_redis_stop(&f->server);
    test_certs_remove(&f->certs);
    free(f);
    return 0;
}

/* ---- typed calls ---------------------------------------------------------------------------- */

static void typed_calls(void **state) {
    const fixture *f = *state;
    const char *hosts[] = {"127.0.0.1", "localhost"};
    for (int i = 0; i < 4; i++) {
        client *c = open_client(f, hosts[i % 2], 2 + i / 2);
        assert_true(rg_bconn_tls_reused(&c->b) == false);
        redis_set_result s;
        redis_get_result g;
        redis_set_call(&c->b.conn, V("tk"), V("over tls"), NULL, &s, NULL, NULL);
        const uint64_t id = redis_get_call(&c->b.conn, V("tk"), &g, NULL, NULL);
        assert_int_equal(rg_bconn_wait(&c->b, id), RG_OK);
        assert_true(same(g.value, "over tls"));
        assert_int_equal(rg_conn_protocol(&c->b.conn), 2 + i / 2);
        close_client(c);
    }
}

/* ---- 100k pipelined, the filter fed in random pieces ---------------------------------------- */

enum { TOTAL = 100000, KEYS = 500, COUNTERS = 50, WINDOW = 1000 };

typedef struct expect {
    uint8_t op; /* 0 SET, 1 GET, 2 INCR, 3 DEL; 100 checked, 200 wrong */
    int64_t want;
    char value[24];
    union {
        redis_set_result set;
        redis_get_result get;
        redis_incr_result incr;
        redis_del_result del;
    } r;
} expect;

typedef struct model {
    int64_t value[KEYS]; /* -1: no key */
    int64_t counter[COUNTERS];
} model;

static void check_one(void *ud, const rg_call_done *d) {
    expect *e = ud;
    bool ok = d->status == RG_OK;
    switch (e->op) {
    case 0: ok = ok && same(e->r.set.value, "OK"); break;
    case 1:
        ok = ok && (e->want < 0 ? e->r.get.value.ptr == NULL : same(e->r.get.value, e->value));
        break;
    case 2: ok = ok && e->r.incr.value == e->want; break;
    default: ok = ok && e->r.del.value == e->want; break;
    }
    e->op = ok ? 100 : 200;
}

static uint64_t queue_one(rg_conn *conn, model *m, expect *e, unsigned *seed) {
    char key[16];
    const int k = rand_r(seed) % KEYS;
    const int kind = rand_r(seed) % 4;
    e->op = (uint8_t)kind;
    if (kind == 2) {
        const int n = rand_r(seed) % COUNTERS;
        snprintf(key, sizeof key, "c:%d", n);
        e->want = ++m->counter[n];
        return redis_incr_call(conn, (rg_view){key, strlen(key)}, &e->r.incr, check_one, e);
    }
    snprintf(key, sizeof key, "k:%d", k);
    const rg_view kv = {key, strlen(key)};
    if (kind == 0) {
        m->value[k] = rand_r(seed) % 1000000;
        snprintf(e->value, sizeof e->value, "v%lld", (long long)m->value[k]);
        return redis_set_call(conn, kv, (rg_view){e->value, strlen(e->value)}, NULL, &e->r.set,
                              check_one, e);
    }
    if (kind == 1) {
        e->want = m->value[k];
        snprintf(e->value, sizeof e->value, "v%lld", (long long)m->value[k]);
        return redis_get_call(conn, kv, &e->r.get, check_one, e);
    }
    e->want = m->value[k] >= 0;
    m->value[k] = -1;
    return redis_del_call(conn, &kv, 1, &e->r.del, check_one, e);
}

/* Encrypts and sends everything pending, then reads one piece of ciphertext of a random size
 * (1 B .. 64 KiB) into the filter and pumps: the adapter's loop, by hand. */
static void pump(client *c, unsigned *seed) {
    rg_tls *t = c->b.tls;
    size_t n;
    const char *out;
    do {
        assert_int_equal(rg_tls_pump(t, &c->b.conn), RG_OK);
        while ((out = rg_tls_output(t, &n)) != NULL) {
            const ssize_t w = send(c->b.fd, out, n, MSG_NOSIGNAL);
            assert_true(w > 0);
            rg_tls_written(t, (size_t)w);
        }
    } while (rg_conn_want_write(&c->b.conn));
    if (rg_conn_pending(&c->b.conn) == 0) return;
    if (rg_tls_want_pump(t)) { /* decrypted, or fed, and not yet in the engine */
        assert_int_equal(rg_tls_pump(t, &c->b.conn), RG_OK);
        return;
    }
    size_t room;
    char *in = rg_tls_read_buf(t, &room);
    assert_non_null(in);
    const size_t sizes[] = {1, 7, 100, 1500, 16384, 65536};
    size_t want = sizes[rand_r(seed) % 6];
    want = want < room ? want : room;
    struct pollfd p = {c->b.fd, POLLIN, 0};
    assert_int_equal(poll(&p, 1, 5000), 1);
    const ssize_t r = recv(c->b.fd, in, want, 0);
    assert_true(r > 0);
    rg_tls_feed(t, (size_t)r);
    assert_int_equal(rg_tls_pump(t, &c->b.conn), RG_OK);
    assert_int_not_equal(rg_conn_state_of(&c->b.conn), RG_CONN_FAILED);
}

/* Runs TOTAL mixed calls through c; returns OpenSSL's allocations during the second half. */
static uint64_t run_pipeline(client *c, unsigned seed) {
    static model m;
    memset(&m, 0, sizeof m);
    for (int i = 0; i < KEYS; i++) m.value[i] = -1;
    expect *e = calloc(TOTAL, sizeof *e);
    assert_non_null(e);
    size_t queued = 0;
    uint64_t from = 0;
    while (queued < TOTAL || rg_conn_pending(&c->b.conn)) {
        while (queued < TOTAL && rg_conn_pending(&c->b.conn) < WINDOW) {
            assert_int_not_equal(queue_one(&c->b.conn, &m, &e[queued], &seed), 0);
            if (++queued == TOTAL / 2) from = ssl_allocs, ssl_trace = getenv("RG_TRACE") != NULL;
        }
        pump(c, &seed);
    }
    const uint64_t allocs = ssl_allocs - from;
    ssl_trace = false;
    size_t good = 0;
    for (size_t i = 0; i < TOTAL; i++) good += e[i].op == 100;
    assert_int_equal(good, TOTAL);
    free(e);
    return allocs;
}

static void pipeline_100k(void **state) {
    const fixture *f = *state;
    client *c = open_client(f, "127.0.0.1", 3);
    command(c, "FLUSHALL");
    const uint64_t allocs = run_pipeline(c, 1234u);
    printf("100k over TLS, random pieces: OpenSSL allocations in the second 50k calls: %llu\n",
           (unsigned long long)allocs);
    /* OpenSSL 3.0 allocates a 40-byte WPACKET per record it writes (crypto/packet.c): with a
     * window of 1,000 calls a record carries many; nothing else allocates per call. */
    assert_true(allocs < TOTAL / 2 / 50);
    close_client(c);
    /* A 64-byte engine input (RESP2, replies fit): every record decrypts into a small room, and
     * OpenSSL must be drained before the socket is polled again. */
    c = calloc(1, sizeof *c);
    assert_non_null(c);
    rg_conn_config cfg = config(c, 2);
    cfg.in_cap = 64;
    const rg_tls_config tls = tls_config(f);
    assert_int_equal(connect_tls(c, "127.0.0.1", f->tls_port, &cfg, &tls, 2000), RG_OK);
    command(c, "FLUSHALL");
    run_pipeline(c, 99u);
    close_client(c);
}

/* ---- pushes, MULTI/EXEC -----------------------------------------------------------------------
 */

static void pushes_and_multi(void **state) {
    const fixture *f = *state;
    client *a = open_client(f, "127.0.0.1", 3), *b = open_client(f, "localhost", 3);
    command(a, "CLIENT TRACKING on");
    command(b, "SET tr1 x");
    redis_get_result g[3];
    redis_get_call(&a->b.conn, V("tr1"), &g[0], NULL, NULL);
    assert_int_equal(rg_bconn_wait(&a->b, 0), RG_OK);
    command(b, "SET tr1 y"); /* invalidates tr1 for a, ahead of a's next replies */
    redis_get_call(&a->b.conn, V("tr1"), &g[1], NULL, NULL);
    redis_get_call(&a->b.conn, V("other"), &g[2], NULL, NULL);
    assert_int_equal(rg_bconn_wait(&a->b, 0), RG_OK);
    assert_int_equal(a->npush, 1);
    assert_string_equal(a->what[0], "inv:tr1");
    assert_true(same(g[1].value, "y") && g[2].value.ptr == NULL);
    /* Pub/Sub messages between replies. */
    command(a, "SUBSCRIBE ch");
    command(b, "PUBLISH ch m1");
    command(b, "PUBLISH ch m2");
    command(a, "PING");
    for (int i = 0; i < 100 && a->npush < 3; i++) assert_int_equal(rg_bconn_poll(&a->b, 10), 0);
    assert_int_equal(a->npush, 3);
    assert_string_equal(a->what[1], "ch:m1");
    assert_string_equal(a->what[2], "ch:m2");
    /* MULTI/EXEC with a command failing inside. */
    rg_call_record rec[3] = {{0}};
    redis_incr_result i1, i2;
    redis_lpush_result lp;
    const rg_view x[] = {V("x")};
    command(b, "DEL ta");
    command(b, "MULTI");
    redis_incr_call(&b->b.conn, V("ta"), &i1, rg_call_record_fn, &rec[0]);
    redis_lpush_call(&b->b.conn, V("ta"), x, 1, &lp, rg_call_record_fn, &rec[1]);
    redis_incr_call(&b->b.conn, V("ta"), &i2, rg_call_record_fn, &rec[2]);
    assert_int_equal(command(b, "EXEC").status, RG_OK);
    assert_true(rec[0].status == RG_OK && i1.value == 1);
    assert_int_equal(rec[1].status, RG_SERVER_ERROR);
    assert_true(rec[2].status == RG_OK && i2.value == 2);
    close_client(a);
    close_client(b);
}

/* ---- a 64 MiB reply -----------------------------------------------------------------------------
 */

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void big_reply(void **state) {
    const fixture *f = *state;
    char *v = big_value();
    assert_non_null(v);
    assert_int_equal(big_value_set(f->server.port, "big", v), 0); /* through the plain port */
    client *c = calloc(1, sizeof *c);
    assert_non_null(c);
    rg_conn_config cfg = config(c, 3);
    cfg.alloc = rg_conn_std_alloc;
    const rg_tls_config tls = tls_config(f);
    assert_int_equal(connect_tls(c, "127.0.0.1", f->tls_port, &cfg, &tls, 2000), RG_OK);
    redis_get_result r;
    const uint64_t id = redis_get_call(&c->b.conn, V("big"), &r, NULL, NULL);
    const double t0 = now_ms();
    assert_int_equal(rg_bconn_wait(&c->b, id), RG_OK);
    printf("GET of 64 MiB over TLS through a 64 KiB input buffer: %.1f ms\n", now_ms() - t0);
    assert_int_equal(r.value.len, BIG_VALUE_LEN);
    assert_memory_equal(r.value.ptr, v, BIG_VALUE_LEN);
    assert_int_equal(command(c, "PING").status, RG_OK);
    assert_ptr_equal(rg_conn_config_of(&c->b.conn)->in, c->in);
    command(c, "DEL big");
    close_client(c);
    free(v);
}

/* ---- failures ------------------------------------------------------------------------------- */

/* Connects (and, when the connect succeeds, runs a PING: a TLS 1.3 server tells of some failures
 * only after the client's handshake finished); returns the status, cause and message seen. */
typedef struct outcome {
    rg_status status;
    int cause;
    char msg[256];
} outcome;

static outcome attempt(const char *host, int port, const rg_tls_config *tls, int connect_ms) {
    client *c = calloc(1, sizeof *c);
    assert_non_null(c);
    const rg_conn_config cfg = config(c, 3);
    outcome o = {connect_tls(c, host, port, &cfg, tls, connect_ms), 0, ""};
    if (o.status == RG_OK) {
        const rg_view ping[] = {V("PING")};
        const uint64_t id = rg_conn_call_argv(&c->b.conn, 1, ping, NULL, NULL, NULL, NULL);
        o.status = rg_bconn_wait(&c->b, id);
    }
    o.cause = rg_bconn_tls_cause(&c->b);
    snprintf(o.msg, sizeof o.msg, "%s", rg_bconn_error(&c->b).msg.ptr);
    close_client(c);
    printf("  %-22s %-12s %s\n", rg_tls_cause_name((rg_tls_cause)o.cause), rg_status_name(o.status),
           o.msg);
    return o;
}

static void expect_failure(outcome o, rg_tls_cause cause, const char *words) {
    assert_int_equal(o.cause, cause);
    assert_int_equal(o.status, rg_tls_cause_status(cause));
    assert_non_null(strstr(o.msg, words));
}

/* A server on cert (file names of the certificates) for one check. */
static int other_server(fixture *f, test_redis *s, const char *cert, const char *key, bool auth) {
    int port;
    assert_int_equal(test_redis_start_tls(s, &port, &f->certs, cert, key, auth, NULL), 0);
    return port;
}

static void verification_failures(void **state) {
    fixture *f = *state;
    rg_tls_config tls = tls_config(f);
    /* Unknown CA: the client trusts another CA. */
    char other[256];
    snprintf(other, sizeof other, "%s", test_certs_file(&f->certs, "other-ca.crt"));
    tls.ca_file = other;
    expect_failure(attempt("127.0.0.1", f->tls_port, &tls, 2000), RG_TLS_UNKNOWN_CA,
                   "certificate verify failed");
    /* The system's roots do not know the test CA either. */
    tls.ca_file = NULL;
    expect_failure(attempt("127.0.0.1", f->tls_port, &tls, 2000), RG_TLS_UNKNOWN_CA,
                   "certificate verify failed");
    /* A name the certificate does not have. */
    tls = tls_config(f);
    tls.server_name = "other.example";
    expect_failure(attempt("127.0.0.1", f->tls_port, &tls, 2000), RG_TLS_HOSTNAME,
                   "host name mismatch");
    /* A certificate for another host, to its IP and to a DNS name. */
    test_redis s;
    const int wrong = other_server(f, &s, "wrong.crt", "wrong.key", false);
    tls = tls_config(f);
    expect_failure(attempt("127.0.0.1", wrong, &tls, 2000), RG_TLS_HOSTNAME, "127.0.0.1");
    expect_failure(attempt("localhost", wrong, &tls, 2000), RG_TLS_HOSTNAME, "localhost");
    /* insecure connects anyway. */
    tls.insecure = true;
    assert_int_equal(attempt("127.0.0.1", wrong, &tls, 2000).status, RG_OK);
    test_redis_stop(&s);
    /* An expired certificate. */
    const int expired = other_server(f, &s, "expired.crt", "server.key", false);
    tls = tls_config(f);
    expect_failure(attempt("127.0.0.1", expired, &tls, 2000), RG_TLS_EXPIRED,
                   "certificate has expired");
    test_redis_stop(&s);
}

static void mutual_tls(void **state) {
    fixture *f = *state;
    test_redis s;
    const int port = other_server(f, &s, "server.crt", "server.key", true);
    char cert[256], key[256];
    snprintf(cert, sizeof cert, "%s", test_certs_file(&f->certs, "client.crt"));
    snprintf(key, sizeof key, "%s", test_certs_file(&f->certs, "client.key"));
    rg_tls_config tls = tls_config(f);
    expect_failure(attempt("127.0.0.1", port, &tls, 2000), RG_TLS_CERT_REQUIRED,
                   "client certificate");
    tls.cert_file = cert;
    tls.key_file = key;
    assert_int_equal(attempt("127.0.0.1", port, &tls, 2000).status, RG_OK);
    /* A certificate the server's CA did not sign: the server refuses it. */
    char wrong[256], wrong_key[256];
    snprintf(wrong, sizeof wrong, "%s", test_certs_file(&f->certs, "other-ca.crt"));
    snprintf(wrong_key, sizeof wrong_key, "%s", test_certs_file(&f->certs, "other-ca.key"));
    tls.cert_file = wrong;
    tls.key_file = wrong_key;
    expect_failure(attempt("127.0.0.1", port, &tls, 2000), RG_TLS_HANDSHAKE,
                   "refused the handshake: tlsv1 alert unknown ca");
    test_redis_stop(&s);
}

/* A plain listener that answers every connection with a Redis error, as a plain server does to
 * bytes it cannot parse. */
static void *answer_plain(void *arg) {
    const int fd = *(int *)arg;
    const int conn = accept(fd, NULL, NULL);
    if (conn >= 0) {
        char buf[512];
        (void)!recv(conn, buf, sizeof buf, 0);
        (void)!send(conn, "-ERR unknown command\r\n", 22, MSG_NOSIGNAL);
        test_sleep_ms(200);
        close(conn);
    }
    return NULL;
}

#include <pthread.h>

static void wrong_ports(void **state) {
    fixture *f = *state;
    const rg_tls_config tls = tls_config(f);
    /* TLS against a plain server that answers. */
    int port;
    int fd = test_listen_loopback(&port);
    assert_true(fd >= 0);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, answer_plain, &fd), 0);
    expect_failure(attempt("127.0.0.1", port, &tls, 2000), RG_TLS_NOT_TLS,
                   "not speaking TLS (wrong version number)");
    pthread_join(th, NULL);
    close(fd);
    /* TLS against redis-server's plain port: it answers only when the ClientHello holds a line
     * end, else it waits for the rest of an inline command: either way the error says so. */
    const outcome o = attempt("127.0.0.1", f->server.port, &tls, 300);
    assert_true(o.cause == RG_TLS_NOT_TLS || o.cause == RG_TLS_TIMEOUT);
    assert_non_null(strstr(o.msg, "plain port"));
    /* A handshake that never gets an answer. */
    fd = test_listen_loopback(&port);
    assert_true(fd >= 0);
    const double t0 = now_ms();
    expect_failure(attempt("127.0.0.1", port, &tls, 200), RG_TLS_TIMEOUT, "handshake timeout");
    assert_true(now_ms() - t0 < 1000);
    close(fd);
    /* A plain client against the TLS port: the server resets the connection. */
    client *c = calloc(1, sizeof *c);
    assert_non_null(c);
    const rg_conn_config cfg = config(c, 3);
    rg_status st = rg_bconn_connect_tcp(&c->b, "127.0.0.1", f->tls_port, &cfg, 2000, 2000);
    const rg_view ping[] = {V("PING")};
    if (st == RG_OK)
        st = rg_bconn_wait(&c->b, rg_conn_call_argv(&c->b.conn, 1, ping, NULL, NULL, NULL, NULL));
    printf("  plain client on the TLS port: %s %s\n", rg_status_name(st),
           rg_bconn_error(&c->b).msg.ptr);
    assert_true(st == RG_IO || st == RG_CLOSED);
    assert_non_null(strstr(rg_bconn_error(&c->b).msg.ptr, "a TLS port?"));
    close_client(c);
}

static void bad_files(void **state) {
    fixture *f = *state;
    char path[6][256];
    const char *names[] = {"ca.key",     "client.crt", "client.key",
                           "server.key", "nosuch.crt", "client.csr"};
    for (int i = 0; i < 6; i++)
        snprintf(path[i], sizeof path[i], "%s", test_certs_file(&f->certs, names[i]));
    const struct {
        rg_tls_config tls;
        rg_tls_cause cause;
        const char *words;
    } cases[] = {
        {{.ca_file = path[4]}, RG_TLS_CA_LOAD, "nosuch.crt"},
        {{.ca_file = path[0]}, RG_TLS_CA_LOAD, "ca.key"},
        {{.ca_file = f->ca, .cert_file = path[5], .key_file = path[2]},
         RG_TLS_CERT_LOAD,
         "client.csr"},
        {{.ca_file = f->ca, .cert_file = path[1], .key_file = path[4]},
         RG_TLS_KEY_LOAD,
         "nosuch.crt"},
        {{.ca_file = f->ca, .cert_file = path[1], .key_file = path[3]},
         RG_TLS_KEY_MISMATCH,
         "does not match"},
        {{.ca_file = f->ca, .key_file = path[2]}, RG_TLS_CONFIG, "without a cert_file"},
        {{.ca_file = f->ca, .cert_file = path[1]}, RG_TLS_CONFIG, "needs a key_file"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rg_tls_report why;
        assert_null(rg_tls_ctx_new(&cases[i].tls, &why));
        printf("  %-22s %s\n", rg_tls_cause_name(why.cause), why.msg);
        assert_int_equal(why.cause, cases[i].cause);
        assert_int_equal(why.status, RG_INVALID);
        assert_non_null(strstr(why.msg, cases[i].words));
        /* The adapter says the same. */
        client *c = calloc(1, sizeof *c);
        assert_non_null(c);
        const rg_conn_config cfg = config(c, 3);
        assert_int_equal(connect_tls(c, "127.0.0.1", f->tls_port, &cfg, &cases[i].tls, 2000),
                         RG_INVALID);
        assert_string_equal(rg_bconn_error(&c->b).msg.ptr, why.msg);
        close_client(c);
    }
}

/* ---- resumption ----------------------------------------------------------------------------- */

static void resumption(void **state) {
    fixture *f = *state;
    for (int resume = 0; resume <= 1; resume++) {
        client *c = calloc(1, sizeof *c);
        assert_non_null(c);
        const rg_conn_config cfg = config(c, 3);
        rg_tls_config tls = tls_config(f);
        tls.resume = resume;
        assert_int_equal(connect_tls(c, "127.0.0.1", f->tls_port, &cfg, &tls, 2000), RG_OK);
        assert_false(rg_bconn_tls_reused(&c->b));
        command(c, "PING"); /* TLS 1.3 tickets come after the handshake, with the first reply */
        for (int i = 0; i < 2; i++) {
            assert_int_equal(rg_bconn_reconnect(&c->b), RG_OK);
            command(c, "PING");
            assert_int_equal(rg_bconn_tls_reused(&c->b), resume);
        }
        close_client(c);
    }
    /* A shared context: two connections, one SSL_CTX. */
    rg_tls_config tls = tls_config(f);
    rg_tls_report why;
    tls.ctx = rg_tls_ctx_new(&tls, &why);
    assert_non_null(tls.ctx);
    client *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
    assert_true(a && b);
    rg_conn_config cfg = config(a, 3);
    assert_int_equal(connect_tls(a, "127.0.0.1", f->tls_port, &cfg, &tls, 2000), RG_OK);
    cfg = config(b, 3);
    assert_int_equal(connect_tls(b, "localhost", f->tls_port, &cfg, &tls, 2000), RG_OK);
    command(a, "PING");
    command(b, "PING");
    close_client(a);
    close_client(b);
    rg_tls_ctx_free(tls.ctx);
}

/* ---- the server killed with a call pending: truncated
 * ----------------------------------------------------------- */

typedef struct tally {
    size_t ok, closed, twice;
} tally;

typedef struct loss_call {
    tally *t;
    bool seen;
    redis_set_result r;
} loss_call;

static void count_one(void *ud, const rg_call_done *d) {
    loss_call *k = ud;
    if (k->seen) k->t->twice++;
    k->seen = true;
    if (d->status == RG_OK) k->t->ok++;
    if (d->status == RG_CLOSED) k->t->closed++;
}

static void killed_mid_pipeline(void **state) {
    fixture *f = *state;
    test_redis s;
    const int port = other_server(f, &s, "server.crt", "server.key", false);
    client *c = calloc(1, sizeof *c);
    assert_non_null(c);
    const rg_conn_config cfg = config(c, 3);
    const rg_tls_config tls = tls_config(f);
    assert_int_equal(connect_tls(c, "127.0.0.1", port, &cfg, &tls, 2000), RG_OK);
    command(c, "PING");
    enum { N = 1000 };
    static loss_call calls[N];
    tally t = {0};
    size_t queued = 0;
    while (queued < N) {
        calls[queued] = (loss_call){&t, false, {{NULL, 0}}};
        if (!redis_set_call(&c->b.conn, V("lk"), V("v"), NULL, &calls[queued].r, count_one,
                            &calls[queued]))
            break;
        queued++;
    }
    /* A call certain to be pending when the server dies. */
    const rg_view blpop[] = {V("BLPOP"), V("empty-list"), V("0")};
    rg_call_record last = {0};
    assert_int_not_equal(
        rg_conn_call_argv(&c->b.conn, 3, blpop, NULL, NULL, rg_call_record_fn, &last), 0);
    /* Every SET answered: the server has read all it was sent (else its kernel resets the
     * connection, a socket error, not an end without close_notify) and BLPOP blocks. */
    for (int i = 0; i < 500 && t.ok < queued; i++)
        assert_int_equal(rg_bconn_poll(&c->b, 10), RG_OK);
    assert_int_equal(t.ok, queued);
    test_redis_kill(&s);
    const rg_status st = rg_bconn_wait(&c->b, 0);
    printf("  killed: %s %s (%zu ok, %zu closed)\n", rg_status_name(st),
           rg_bconn_error(&c->b).msg.ptr, t.ok, t.closed);
    assert_int_equal(st, RG_CLOSED);
    assert_int_equal(rg_bconn_tls_cause(&c->b), RG_TLS_TRUNCATED);
    assert_non_null(strstr(rg_bconn_error(&c->b).msg.ptr, "close_notify"));
    assert_int_equal(t.twice, 0);
    assert_int_equal(t.ok + t.closed, queued);
    assert_true(last.done && last.status == RG_CLOSED);
    close_client(c);
    test_redis_stop(&s);
}

int main(void) {
    CRYPTO_set_mem_functions(count_malloc, count_realloc, count_free);
    if (getenv("RG_ONLY")) cmocka_set_test_filter(getenv("RG_ONLY"));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(typed_calls),
        cmocka_unit_test(pipeline_100k),
        cmocka_unit_test(pushes_and_multi),
        cmocka_unit_test(big_reply),
        cmocka_unit_test(verification_failures),
        cmocka_unit_test(mutual_tls),
        cmocka_unit_test(wrong_ports),
        cmocka_unit_test(bad_files),
        cmocka_unit_test(resumption),
        cmocka_unit_test(killed_mid_pipeline),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
