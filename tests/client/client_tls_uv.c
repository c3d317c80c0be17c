/* TLS (adapters/rg_tls.h) through the libuv adapter against a real redis-server serving TLS on
 * certificates the test makes (tests/support/test_tls.h):
 * - 100,000 mixed pipelined commands (SET, GET, INCR, DEL over a model), 20,000 queued at once
 *   and each completion queueing the next, in RESP3 and RESP2, to 127.0.0.1 and to localhost;
 * - pushes between replies: Pub/Sub messages published by a second TLS connection, whose
 *   MULTI/EXEC runs between them;
 * - a GET of 64 MiB through a 64 KiB input buffer grown by rg_conn_std_alloc;
 * - failures by their named cause: a host name mismatch (RG_UV_FAILED, RG_REFUSED), a handshake
 *   timeout against a listener that never answers (connect_timeout_ms), bad files (at once);
 * - a server's QUIT (a clean close, RG_TLS_CLOSED), then rg_uv_reconnect resuming the session;
 * - mutual TLS: refused without a client certificate (RG_TLS_CERT_REQUIRED, though the alert
 *   comes after the client's side of the handshake), served with one;
 * - reconnecting by policy to a server back with a certificate for another host: not retried
 *   (RG_UV_GAVE_UP after the first attempt, RG_TLS_HOSTNAME), where a refused TCP connect is. */
#include "big_value.h"
#include "redis_client.h"
#include "rg_tls.h"
#include "rg_uv.h"
#include "test_redis.h"
#include "test_tls.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#define V(s) ((rg_view){(s), sizeof(s) - 1})

enum { NCALLS = 1 << 15, TOTAL = 100000, FIRST = 20000, KEYS = 500, COUNTERS = 50 };

typedef struct uvc {
    rg_uv u;
    char in[1 << 16], out[1 << 20], storage[1 << 12];
    rg_call calls[NCALLS];
    int events[8], nevents;
    int pushes;
    char last[64];
    int cause; /* rg_uv_tls_cause at RG_UV_FAILED */
    char why[256];
    void *run; /* the pushes test's state */
} uvc;

#define FAILED_(st) (100 + (int)(st))

static void on_event(rg_uv *u, rg_uv_event ev, void *ud) {
    uvc *c = ud;
    const int seen = ev == RG_UV_FAILED ? FAILED_(rg_uv_error(u).status) : (int)ev;
    if (ev == RG_UV_FAILED) {
        c->cause = rg_uv_tls_cause(u);
        snprintf(c->why, sizeof c->why, "%s", rg_uv_error(u).msg.ptr);
    }
    if (c->nevents < 8) c->events[c->nevents++] = seen;
}

static void on_push(void *ud, const rg_push *p) {
    uvc *c = ud;
    c->pushes++;
    snprintf(c->last, sizeof c->last, "%.*s", (int)p->payload.len,
             p->payload.ptr ? p->payload.ptr : "");
}

static rg_conn_config config(uvc *c, int protocol) {
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
                            .protocol = protocol,
                            .connect_timeout_ms = 2000};
}

typedef struct fixture {
    test_certs certs;
    test_redis server;
    int tls_port;
    char ca[256];
} fixture;

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

static rg_status connect_tls(uvc *c, uv_loop_t *loop, const fixture *f, const char *host,
                             const rg_conn_config *cfg, const rg_tls_config *tls, int port) {
    const rg_uv_options opt = {.tls = tls};
    return rg_uv_connect(&c->u, loop, host, port ? port : f->tls_port, cfg, &opt, on_event, c);
}

/* ---- 100k mixed ----------------------------------------------------------------------------- */

typedef struct expect {
    uint8_t op; /* 0 SET, 1 GET, 2 INCR, 3 DEL; 100 checked, 200 wrong */
    int64_t want;
    char key[16], value[24];
    union {
        redis_set_result set;
        redis_get_result get;
        redis_incr_result incr;
        redis_del_result del;
    } r;
} expect;

typedef struct run {
    uvc *c;
    int64_t value[KEYS];
    int64_t counter[COUNTERS];
    expect *e;
    size_t queued, done;
    unsigned seed;
} run;

static void check_one(void *ud, const rg_call_done *d);

static void queue_one(run *m) {
    expect *e = &m->e[m->queued++];
    rg_conn *conn = &m->c->u.conn;
    const int k = rand_r(&m->seed) % KEYS, kind = rand_r(&m->seed) % 4;
    e->op = (uint8_t)kind;
    uint64_t id;
    if (kind == 2) {
        const int n = rand_r(&m->seed) % COUNTERS;
        snprintf(e->key, sizeof e->key, "c:%d", n);
        e->want = ++m->counter[n];
        id = redis_incr_call(conn, rg_cstr(e->key), &e->r.incr, check_one, m);
    } else {
        snprintf(e->key, sizeof e->key, "k:%d", k);
        if (kind == 0) {
            m->value[k] = rand_r(&m->seed) % 1000000;
            snprintf(e->value, sizeof e->value, "v%lld", (long long)m->value[k]);
            id = redis_set_call(conn, rg_cstr(e->key), rg_cstr(e->value), NULL, &e->r.set,
                                check_one, m);
        } else if (kind == 1) {
            e->want = m->value[k];
            snprintf(e->value, sizeof e->value, "v%lld", (long long)m->value[k]);
            id = redis_get_call(conn, rg_cstr(e->key), &e->r.get, check_one, m);
        } else {
            e->want = m->value[k] >= 0;
            m->value[k] = -1;
            const rg_view key = rg_cstr(e->key);
            id = redis_del_call(conn, &key, 1, &e->r.del, check_one, m);
        }
    }
    if (!id) e->op = 200;
}

static bool same(rg_view v, const char *s) {
    return v.len == strlen(s) && (v.len == 0 || memcmp(v.ptr, s, v.len) == 0);
}

/* Calls complete in order: the done-th expectation is this one's. */
static void check_one(void *ud, const rg_call_done *d) {
    run *m = ud;
    expect *e = &m->e[m->done++];
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
    if (m->queued < TOTAL) queue_one(m);
    if (m->done == TOTAL) rg_uv_close(&m->c->u);
}

static void mixed_100k(void **state) {
    const fixture *f = *state;
    const rg_tls_config tls = {.ca_file = f->ca};
    for (int round = 0; round < 2; round++) {
        uv_loop_t loop;
        uv_loop_init(&loop);
        uvc *c = calloc(1, sizeof *c);
        run *m = calloc(1, sizeof *m);
        assert_true(c && m);
        m->e = calloc(TOTAL, sizeof *m->e);
        assert_non_null(m->e);
        m->c = c;
        m->seed = 77u + (unsigned)round;
        for (int i = 0; i < KEYS; i++) m->value[i] = -1;
        const rg_conn_config cfg = config(c, 3 - round);
        assert_int_equal(connect_tls(c, &loop, f, round ? "localhost" : "127.0.0.1", &cfg, &tls, 0),
                         RG_OK);
        const rg_view flush[] = {V("FLUSHALL")};
        assert_int_not_equal(rg_conn_call_argv(&c->u.conn, 1, flush, NULL, NULL, NULL, NULL), 0);
        while (m->queued < FIRST) queue_one(m);
        uv_run(&loop, UV_RUN_DEFAULT);
        size_t good = 0;
        for (size_t i = 0; i < TOTAL; i++) good += m->e[i].op == 100;
        assert_int_equal(m->done, TOTAL);
        assert_int_equal(good, TOTAL);
        assert_int_equal(c->nevents, 2);
        assert_int_equal(c->events[0], RG_UV_READY);
        assert_int_equal(c->events[1], RG_UV_CLOSED);
        assert_int_equal(uv_loop_close(&loop), 0);
        free(m->e);
        free(m);
        free(c);
    }
}

/* ---- pushes and MULTI/EXEC ------------------------------------------------------------------ */

typedef struct pubsub_run {
    uvc *s, *p;
    rg_call_record rec[6];
    redis_incr_result i1, i2;
    bool published; /* the publisher's last call completed */
} pubsub_run;

/* Both sides done (the three pushes seen, the publisher's calls answered): close both. */
static void maybe_close(pubsub_run *r) {
    if (r->s->pushes < 3 || !r->published) return;
    rg_uv_close(&r->s->u);
    rg_uv_close(&r->p->u);
}

static void last_published(void *ud, const rg_call_done *d) {
    pubsub_run *r = ud;
    (void)d;
    r->published = true;
    maybe_close(r);
}

static void subscribed(void *ud, const rg_call_done *d) {
    pubsub_run *r = ud;
    assert_int_equal(d->status, RG_OK);
    rg_conn *pc = &r->p->u.conn;
    const rg_view multi[] = {V("MULTI")}, exec[] = {V("EXEC")}, del[] = {V("DEL"), V("uvx")};
    redis_publish_call(pc, V("uvch"), V("m0"), NULL, NULL, NULL);
    rg_conn_call_argv(pc, 2, del, NULL, NULL, NULL, NULL);
    rg_conn_call_argv(pc, 1, multi, NULL, NULL, rg_call_record_fn, &r->rec[0]);
    redis_incr_call(pc, V("uvx"), &r->i1, rg_call_record_fn, &r->rec[1]);
    redis_incr_call(pc, V("uvx"), &r->i2, rg_call_record_fn, &r->rec[2]);
    rg_conn_call_argv(pc, 1, exec, NULL, NULL, rg_call_record_fn, &r->rec[3]);
    redis_publish_call(pc, V("uvch"), V("m1"), NULL, NULL, NULL);
    redis_publish_call(pc, V("uvch"), V("m2"), NULL, last_published, r);
}

static void pushed(void *ud, const rg_push *p) {
    uvc *c = ud;
    on_push(ud, p);
    maybe_close(c->run);
}

static void pushes_and_multi(void **state) {
    const fixture *f = *state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    uvc *s = calloc(1, sizeof *s), *p = calloc(1, sizeof *p);
    pubsub_run r = {s, p, {{0}}, {0}, {0}, false};
    assert_true(s && p);
    const rg_tls_config tls = {.ca_file = f->ca};
    rg_conn_config cs = config(s, 3);
    cs.on_push = pushed;
    const rg_conn_config cp = config(p, 3);
    s->run = &r;
    assert_int_equal(connect_tls(s, &loop, f, "127.0.0.1", &cs, &tls, 0), RG_OK);
    assert_int_equal(connect_tls(p, &loop, f, "localhost", &cp, &tls, 0), RG_OK);
    const rg_view ch[] = {V("uvch")};
    assert_int_not_equal(redis_subscribe_call(&s->u.conn, ch, 1, NULL, subscribed, &r), 0);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(s->pushes, 3);
    assert_string_equal(s->last, "m2");
    assert_true(r.rec[3].done && r.rec[3].status == RG_OK);
    assert_true(r.rec[1].status == RG_OK && r.i1.value == 1);
    assert_true(r.rec[2].status == RG_OK && r.i2.value == 2);
    assert_int_equal(uv_loop_close(&loop), 0);
    free(s);
    free(p);
}

/* ---- a 64 MiB reply ------------------------------------------------------------------------- */

typedef struct big_get {
    uvc *c;
    redis_get_result r;
    rg_status status;
    bool equal;
    const char *want;
} big_get;

static void big_done(void *ud, const rg_call_done *d) {
    big_get *g = ud;
    g->status = d->status;
    g->equal =
        g->r.value.len == BIG_VALUE_LEN && memcmp(g->r.value.ptr, g->want, BIG_VALUE_LEN) == 0;
    rg_uv_close(&g->c->u);
}

static void big_reply(void **state) {
    const fixture *f = *state;
    char *v = big_value();
    assert_non_null(v);
    assert_int_equal(big_value_set(f->server.port, "uvbig", v), 0);
    uv_loop_t loop;
    uv_loop_init(&loop);
    uvc *c = calloc(1, sizeof *c);
    assert_non_null(c);
    rg_conn_config cfg = config(c, 3);
    cfg.alloc = rg_conn_std_alloc;
    const rg_tls_config tls = {.ca_file = f->ca};
    assert_int_equal(connect_tls(c, &loop, f, "127.0.0.1", &cfg, &tls, 0), RG_OK);
    big_get g = {c, {{NULL, 0}}, RG_CLOSED, false, v};
    assert_int_not_equal(redis_get_call(&c->u.conn, V("uvbig"), &g.r, big_done, &g), 0);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(g.status, RG_OK);
    assert_true(g.equal);
    assert_int_equal(uv_loop_close(&loop), 0);
    free(c);
    free(v);
}

/* ---- failures ------------------------------------------------------------------------------- */

static void failures(void **state) {
    const fixture *f = *state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    uvc *c = calloc(1, sizeof *c);
    assert_non_null(c);
    /* A name the certificate does not have. */
    rg_tls_config tls = {.ca_file = f->ca, .server_name = "other.example"};
    rg_conn_config cfg = config(c, 3);
    assert_int_equal(connect_tls(c, &loop, f, "127.0.0.1", &cfg, &tls, 0), RG_OK);
    uv_run(&loop, UV_RUN_DEFAULT);
    printf("  %s\n", c->why);
    assert_int_equal(c->nevents, 2);
    assert_int_equal(c->events[0], FAILED_(RG_REFUSED));
    assert_int_equal(c->events[1], RG_UV_CLOSED);
    assert_int_equal(c->cause, RG_TLS_HOSTNAME);
    assert_non_null(strstr(c->why, "host name mismatch"));
    rg_uv_close(&c->u);
    /* A listener that never answers: the handshake times out. */
    int port;
    const int fd = test_listen_loopback(&port);
    assert_true(fd >= 0);
    memset(c, 0, sizeof *c);
    tls.server_name = NULL;
    cfg = config(c, 3);
    cfg.connect_timeout_ms = 200;
    assert_int_equal(connect_tls(c, &loop, f, "127.0.0.1", &cfg, &tls, port), RG_OK);
    uv_run(&loop, UV_RUN_DEFAULT);
    printf("  %s\n", c->why);
    assert_int_equal(c->events[0], FAILED_(RG_TIMEOUT));
    assert_int_equal(c->cause, RG_TLS_TIMEOUT);
    assert_non_null(strstr(c->why, "handshake timeout"));
    rg_uv_close(&c->u);
    close(fd);
    /* Bad files: refused at once, nothing follows. */
    memset(c, 0, sizeof *c);
    tls.ca_file = "/nonexistent/ca.crt";
    cfg = config(c, 3);
    assert_int_equal(connect_tls(c, &loop, f, "127.0.0.1", &cfg, &tls, 0), RG_INVALID);
    assert_non_null(strstr(rg_uv_error(&c->u).msg.ptr, "/nonexistent/ca.crt"));
    rg_uv_close(&c->u);
    assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(c->nevents, 0);
    assert_int_equal(uv_loop_close(&loop), 0);
    free(c);
}

/* ---- a clean close, then a resumed session -------------------------------------------------- */

typedef struct resumed {
    uvc c;
    int connects;
    bool reused[2];
    int cause; /* of the QUIT's close */
} resumed;

static void quit_or_close(rg_uv *u, rg_uv_event ev, void *ud) {
    resumed *r = ud;
    if (ev == RG_UV_READY) {
        r->reused[r->connects++ > 0] = rg_uv_tls_reused(u);
        const rg_view quit[] = {V("QUIT")}, ping[] = {V("PING")};
        if (r->connects == 1) {
            rg_conn_call_argv(&u->conn, 1, ping, NULL, NULL, NULL, NULL);
            rg_conn_call_argv(&u->conn, 1, quit, NULL, NULL, NULL, NULL);
        } else {
            rg_uv_close(u);
        }
    } else if (ev == RG_UV_FAILED) {
        r->cause = rg_uv_tls_cause(u);
    } else if (ev == RG_UV_CLOSED && r->connects == 1) {
        assert_int_equal(rg_uv_reconnect(u), RG_OK);
    }
}

static void resumption(void **state) {
    const fixture *f = *state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    resumed *r = calloc(1, sizeof *r);
    assert_non_null(r);
    const rg_tls_config tls = {.ca_file = f->ca, .resume = true};
    const rg_conn_config cfg = config(&r->c, 3);
    const rg_uv_options opt = {.tls = &tls};
    assert_int_equal(
        rg_uv_connect(&r->c.u, &loop, "127.0.0.1", f->tls_port, &cfg, &opt, quit_or_close, r),
        RG_OK);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(r->connects, 2);
    assert_false(r->reused[0]);
    assert_true(r->reused[1]);
    assert_int_equal(r->cause, RG_TLS_CLOSED);
    assert_int_equal(uv_loop_close(&loop), 0);
    free(r);
}

/* ---- mutual TLS ------------------------------------------------------------------------------ */

/* A server that requires client certificates: without one the TLS 1.3 server's alert comes after
 * the client's side of the handshake (and a reset after the client's first write): the cause is
 * still RG_TLS_CERT_REQUIRED; with one, the calls run. */
static void mutual_tls(void **state) {
    fixture *f = *state;
    test_redis s;
    int port;
    assert_int_equal(
        test_redis_start_tls(&s, &port, &f->certs, "server.crt", "server.key", true, NULL), 0);
    uv_loop_t loop;
    uv_loop_init(&loop);
    uvc *c = calloc(1, sizeof *c);
    assert_non_null(c);
    rg_tls_config tls = {.ca_file = f->ca};
    rg_conn_config cfg = config(c, 3);
    assert_int_equal(connect_tls(c, &loop, f, "127.0.0.1", &cfg, &tls, port), RG_OK);
    uv_run(&loop, UV_RUN_DEFAULT);
    printf("  %s\n", c->why);
    assert_int_equal(c->events[0], FAILED_(RG_REFUSED));
    assert_int_equal(c->cause, RG_TLS_CERT_REQUIRED);
    rg_uv_close(&c->u);
    /* with a client certificate */
    char cert[256], key[256];
    snprintf(cert, sizeof cert, "%s", test_certs_file(&f->certs, "client.crt"));
    snprintf(key, sizeof key, "%s", test_certs_file(&f->certs, "client.key"));
    memset(c, 0, sizeof *c);
    tls.cert_file = cert;
    tls.key_file = key;
    cfg = config(c, 3);
    assert_int_equal(connect_tls(c, &loop, f, "127.0.0.1", &cfg, &tls, port), RG_OK);
    rg_call_record r = {0};
    const rg_view ping[] = {V("PING")};
    assert_int_not_equal(rg_conn_call_argv(&c->u.conn, 1, ping, NULL, NULL, rg_call_record_fn, &r),
                         0);
    while (!r.done) uv_run(&loop, UV_RUN_ONCE);
    assert_int_equal(r.status, RG_OK);
    rg_uv_close(&c->u);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&loop), 0);
    free(c);
    test_redis_stop(&s);
}

/* ---- a verification failure on reconnect ---------------------------------------------------- */

typedef struct wrong_back {
    uvc c;
    fixture *f;
    test_redis s;
    int tls_port;
    int gave_up_cause;
    uint32_t gave_up_attempt;
} wrong_back;

/* The server restarted on the same ports with a certificate for wrong.example. */
static void restart_wrong(wrong_back *w) {
    char port[16], cert[256], key[256], ca[256];
    snprintf(port, sizeof port, "%d", w->tls_port);
    snprintf(cert, sizeof cert, "%s", test_certs_file(&w->f->certs, "wrong.crt"));
    snprintf(key, sizeof key, "%s", test_certs_file(&w->f->certs, "wrong.key"));
    snprintf(ca, sizeof ca, "%s", test_certs_file(&w->f->certs, "ca.crt"));
    const char *const args[] = {"--tls-port",
                                port,
                                "--tls-cert-file",
                                cert,
                                "--tls-key-file",
                                key,
                                "--tls-ca-cert-file",
                                ca,
                                "--tls-auth-clients",
                                "no",
                                NULL};
    assert_int_equal(test_redis_restart(&w->s, args), 0);
}

static void wrong_back_event(rg_uv *u, rg_uv_event ev, void *ud) {
    wrong_back *w = ud;
    on_event(u, ev, &w->c);
    if (ev == RG_UV_READY) {
        test_redis_kill(&w->s); /* the connection ends: DISCONNECTED, then attempts */
    } else if (ev == RG_UV_RECONNECTING && rg_uv_reconnect_info(u)->attempt == 1) {
        restart_wrong(w); /* up again before the first attempt, on the wrong certificate */
    } else if (ev == RG_UV_GAVE_UP) {
        w->gave_up_cause = rg_uv_tls_cause(u);
        w->gave_up_attempt = rg_uv_reconnect_info(u)->attempt;
    }
}

static void verification_not_retried(void **state) {
    fixture *f = *state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    wrong_back *w = calloc(1, sizeof *w);
    assert_non_null(w);
    w->f = f;
    assert_int_equal(test_redis_start_tls(&w->s, &w->tls_port, &f->certs, "server.crt",
                                          "server.key", false, NULL),
                     0);
    const rg_tls_config tls = {.ca_file = f->ca};
    const rg_conn_config cfg = config(&w->c, 3);
    const rg_uv_options opt = {.tls = &tls, .reconnect = {20, 100, 10}};
    assert_int_equal(
        rg_uv_connect(&w->c.u, &loop, "127.0.0.1", w->tls_port, &cfg, &opt, wrong_back_event, w),
        RG_OK);
    uv_run(&loop, UV_RUN_DEFAULT);
    for (int i = 0; i < w->c.nevents; i++) printf("  event %d\n", w->c.events[i]);
    const int want[] = {RG_UV_READY, RG_UV_DISCONNECTED, RG_UV_RECONNECTING, RG_UV_GAVE_UP,
                        RG_UV_CLOSED};
    assert_int_equal(w->c.nevents, 5);
    for (int i = 0; i < 5; i++) assert_int_equal(w->c.events[i], want[i]);
    assert_int_equal(w->gave_up_cause, RG_TLS_HOSTNAME);
    assert_int_equal(w->gave_up_attempt, 1);
    printf("  %s\n", rg_uv_error(&w->c.u).msg.ptr);
    assert_non_null(strstr(rg_uv_error(&w->c.u).msg.ptr, "tls: "));
    rg_uv_close(&w->c.u);
    assert_int_equal(uv_loop_close(&loop), 0);
    test_redis_stop(&w->s);
    free(w);
}

int main(void) {
    if (getenv("RG_ONLY")) cmocka_set_test_filter(getenv("RG_ONLY"));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(mixed_100k), cmocka_unit_test(pushes_and_multi),
        cmocka_unit_test(big_reply),  cmocka_unit_test(failures),
        cmocka_unit_test(resumption), cmocka_unit_test(verification_not_retried),
        cmocka_unit_test(mutual_tls),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
