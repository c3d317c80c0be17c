/* The client core against a real redis-server, through the blocking adapter
 * (adapters/rg_blocking.h) and the generated calls of specs/redis.lua (respgen --client):
 * - typed calls in RESP3 and RESP2, over TCP and a unix socket, errors and a generic call;
 * - 100,000 mixed pipelined commands whose replies are read in random chunk sizes, every
 *   result checked against a model;
 * - CLIENT TRACKING: invalidation pushes between replies (RESP3), a null one after FLUSHALL, and
 *   REDIRECT to a RESP2 connection subscribed to __redis__:invalidate;
 * - SUBSCRIBE / PSUBSCRIBE / SSUBSCRIBE with PUBLISH and SPUBLISH from another connection, in RESP3
 *   and RESP2, then an UNSUBSCRIBE without names;
 * - MULTI/EXEC with a command failing inside, EXECABORT, and a WATCH that failed;
 * - BLPOP with a server-side timeout, one abandoned (its late reply dropped, the connection kept),
 *   and a client read timeout that fails the call;
 * - engine deadlines: a BLPOP (1 s on the server) with a 100 ms deadline times out, the call behind
 *   it closes, the socket goes and a reconnect works; a longer per-call deadline lets one finish;
 * - the server killed in the middle of a pipeline: every call completes exactly once (OK or
 *   CLOSED), then the server restarts and the reconnect replays HELLO, SETNAME and SELECT, and
 *   the on_connect hook its subscription;
 * - SIGPIPE: a call written to a peer that closed the connection (a loopback listener) fails
 *   with RG_CLOSED while SIGPIPE has its default action (termination): the adapter's
 *   writes never raise it. */
#include "redis_client.h"
#include "rg_blocking.h"
#include "test_redis.h"

#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
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

enum { NCALLS = 1024, IN_CAP = 1 << 16, OUT_CAP = 1 << 20, PUSHES = 64 };

/* A client with its buffers and a log of the pushes it saw. */
typedef struct client {
    rg_bconn b;
    char in[IN_CAP];
    char out[OUT_CAP];
    char storage[1 << 14];
    rg_call calls[NCALLS];
    int npush;
    rg_push_kind kinds[PUSHES];
    char what[PUSHES][64]; /* channel/payload or the keys, joined */
} client;

static bool same(rg_view v, const char *s) {
    return v.len == strlen(s) && (v.len == 0 || memcmp(v.ptr, s, v.len) == 0);
}

static void on_push(void *ud, const rg_push *p) {
    client *c = ud;
    if (c->npush >= PUSHES) return;
    char *w = c->what[c->npush];
    c->kinds[c->npush] = p->kind;
    if (p->kind == RG_PUSH_INVALIDATE) {
        size_t at = 0, n = 0;
        rg_view k;
        w[0] = '\0';
        if (p->flush_all) snprintf(w, 64, "(all)");
        while (rg_push_keys_next(p, &at, &k) && n < 60) {
            n += (size_t)snprintf(w + n, 64 - n, "%s%.*s", n ? "," : "", (int)k.len, k.ptr);
        }
    } else {
        snprintf(w, 64, "%.*s:%.*s", (int)p->channel.len, p->channel.ptr ? p->channel.ptr : "",
                 (int)p->payload.len, p->payload.ptr ? p->payload.ptr : "");
    }
    c->npush++;
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

static client *open_client(const test_redis *s, int protocol) {
    client *c = calloc(1, sizeof *c);
    assert_non_null(c);
    const rg_conn_config cfg = config(c, protocol);
    assert_int_equal(rg_bconn_connect_tcp(&c->b, "127.0.0.1", s->port, &cfg, 2000, 5000), 0);
    return c;
}

static void close_client(client *c) {
    rg_bconn_close(&c->b);
    free(c);
}

/* Runs a generic command and waits; returns its record. */
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
    assert_int_equal(rg_bconn_wait(&c->b, id), 0);
    assert_true(r.done);
    return r;
}

/* Polls until c has seen n pushes (at most 3 s). */
static void await_pushes(client *c, int n) {
    for (int i = 0; i < 300 && c->npush < n; i++) assert_int_equal(rg_bconn_poll(&c->b, 10), 0);
    assert_int_equal(c->npush, n);
}

/* ---- fixture -------------------------------------------------------------------------------- */

typedef struct fixture {
    test_redis server;
    char sock[64];
} fixture;

static int setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    if (!f) return -1;
    snprintf(f->sock, sizeof f->sock, "/tmp/respgen-client-%d.sock", (int)getpid());
    /* DEBUG SLEEP (written_or_not) stops the server reading. */
    const char *extra[] = {"--unixsocket", f->sock, "--enable-debug-command", "yes", NULL};
    if (test_redis_start(&f->server, extra) != 0) return -1;
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fixture *f = *state;
    test_redis_stop(&f->server);
    unlink(f->sock);
    free(f);
    return 0;
}

/* ---- typed calls ---------------------------------------------------------------------------- */

typedef struct typed_results {
    redis_set_result set;
    redis_get_result get, missing;
    redis_incr_result incr[3];
    redis_mget_result mget;
    redis_hgetall_result hgetall;
    redis_incr_result wrong;
    rg_call_record rec[4];
} typed_results;

static void typed_round(client *c) {
    typed_results r;
    memset(&r, 0, sizeof r);
    rg_conn *conn = &c->b.conn;
    command(c, "DEL tk tn th");
    redis_set_call(conn, V("tk"), V("hello"), NULL, &r.set, rg_call_record_fn, &r.rec[0]);
    redis_get_call(conn, V("tk"), &r.get, NULL, NULL);
    redis_get_call(conn, V("nope"), &r.missing, NULL, NULL);
    for (int i = 0; i < 3; i++) redis_incr_call(conn, V("tn"), &r.incr[i], NULL, NULL);
    const rg_view keys[] = {V("tk"), V("nope")};
    const uint64_t mget = redis_mget_call(conn, keys, 2, &r.mget, NULL, NULL);
    static char mget_store[256];
    assert_int_equal(rg_conn_call_storage(conn, mget, mget_store, sizeof mget_store), 0);
    redis_incr_call(conn, V("tk"), &r.wrong, rg_call_record_fn, &r.rec[1]);
    assert_int_equal(rg_bconn_wait(&c->b, 0), 0);
    assert_true(r.rec[0].done && r.rec[0].status == RG_OK);
    assert_true(same(r.set.value, "OK"));
    assert_true(same(r.get.value, "hello"));
    assert_null(r.missing.value.ptr);
    assert_int_equal(r.incr[2].value, 3);
    assert_int_equal(r.mget.value.count, 2);
    assert_true(same(r.mget.value.items[0], "hello") && r.mget.value.items[1].ptr == NULL);
    assert_int_equal(r.rec[1].status, RG_SERVER_ERROR);
    assert_non_null(strstr(r.rec[1].error, "not an integer"));
    /* HGETALL: a map in RESP3, a flat array in RESP2, the same pairs. */
    command(c, "HSET th f1 v1 f2 v2");
    redis_hgetall_call(conn, V("th"), &r.hgetall, NULL, NULL);
    assert_int_equal(rg_bconn_wait(&c->b, 0), 0);
    assert_int_equal(r.hgetall.value.count, 2);
    assert_true(same(r.hgetall.value.items[1].value, "v2"));
    /* A generic call keeps the raw bytes. */
    rg_raw_result raw;
    const rg_view echo[] = {V("ECHO"), V("hi")};
    const uint64_t id = rg_conn_call_argv(conn, 2, echo, NULL, &raw, NULL, NULL);
    assert_int_equal(rg_bconn_wait(&c->b, id), 0);
    assert_true(same(raw.value, "$2\r\nhi\r\n"));
}

static void typed_calls(void **state) {
    fixture *f = *state;
    for (int proto = 2; proto <= 3; proto++) {
        client *c = open_client(&f->server, proto);
        typed_round(c);
        assert_int_equal(rg_conn_protocol(&c->b.conn), proto);
        close_client(c);
    }
    /* The same over the unix socket. */
    client *c = calloc(1, sizeof *c);
    const rg_conn_config cfg = config(c, 3);
    assert_int_equal(rg_bconn_connect_unix(&c->b, f->sock, &cfg, 2000, 5000), 0);
    typed_round(c);
    close_client(c);
}

/* ---- 100k pipelined ------------------------------------------------------------------------- */

enum { TOTAL = 100000, KEYS = 500, COUNTERS = 50, WINDOW = 1000 };

typedef struct expect {
    uint8_t op; /* 0 SET, 1 GET, 2 INCR, 3 DEL */
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
    size_t checked, failed;
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

/* Writes everything pending, then reads one chunk of a random size (1 .. 64 KiB). */
static void pump(client *c, unsigned *seed) {
    size_t n;
    const char *out;
    while ((out = rg_conn_output(&c->b.conn, &n)) != NULL) {
        const ssize_t w = send(c->b.fd, out, n, MSG_NOSIGNAL);
        if (w <= 0) break; /* the socket buffer is full: read first */
        rg_conn_written(&c->b.conn, (size_t)w);
    }
    if (rg_conn_pending(&c->b.conn) == 0) return;
    size_t room;
    char *in = rg_conn_read_buf(&c->b.conn, &room);
    assert_non_null(in);
    const size_t sizes[] = {1, 7, 100, 1500, 16384, 65536};
    size_t want = sizes[rand_r(seed) % 6];
    want = want < room ? want : room;
    /* The adapter's socket is non-blocking: wait for data. */
    struct pollfd p = {c->b.fd, POLLIN, 0};
    assert_int_equal(poll(&p, 1, 5000), 1);
    const ssize_t r = recv(c->b.fd, in, want, 0);
    if (r > 0) assert_int_not_equal(rg_conn_feed(&c->b.conn, (size_t)r), RG_CONN_FAILED);
}

static void pipeline_100k(void **state) {
    fixture *f = *state;
    for (int proto = 2; proto <= 3; proto++) {
        client *c = open_client(&f->server, proto);
        command(c, "FLUSHALL");
        static model m;
        memset(&m, 0, sizeof m);
        for (int i = 0; i < KEYS; i++) m.value[i] = -1;
        expect *e = calloc(TOTAL, sizeof *e);
        assert_non_null(e);
        unsigned seed = 1234u + (unsigned)proto;
        size_t queued = 0;
        while (queued < TOTAL || rg_conn_pending(&c->b.conn)) {
            while (queued < TOTAL && rg_conn_pending(&c->b.conn) < WINDOW) {
                assert_int_not_equal(queue_one(&c->b.conn, &m, &e[queued], &seed), 0);
                queued++;
            }
            pump(c, &seed);
        }
        size_t good = 0;
        for (size_t i = 0; i < TOTAL; i++) good += e[i].op == 100;
        assert_int_equal(good, TOTAL);
        free(e);
        close_client(c);
    }
}

/* ---- tracking ------------------------------------------------------------------------------- */

static void tracking_resp3(void **state) {
    fixture *f = *state;
    client *a = open_client(&f->server, 3), *b = open_client(&f->server, 3);
    command(a, "CLIENT TRACKING on");
    command(b, "SET tr1 x");
    redis_get_result g[3];
    redis_get_call(&a->b.conn, V("tr1"), &g[0], NULL, NULL);
    assert_int_equal(rg_bconn_wait(&a->b, 0), 0);
    /* B's write invalidates tr1 while A has a pipeline in flight. */
    command(b, "SET tr1 y");
    redis_get_call(&a->b.conn, V("tr1"), &g[1], NULL, NULL);
    redis_get_call(&a->b.conn, V("other"), &g[2], NULL, NULL);
    assert_int_equal(rg_bconn_wait(&a->b, 0), 0);
    assert_int_equal(a->npush, 1);
    assert_int_equal(a->kinds[0], RG_PUSH_INVALIDATE);
    assert_string_equal(a->what[0], "tr1");
    assert_true(same(g[1].value, "y") && g[2].value.ptr == NULL);
    command(b, "FLUSHALL");
    await_pushes(a, 2);
    assert_string_equal(a->what[1], "(all)");
    close_client(a);
    close_client(b);
}

static void tracking_redirect_resp2(void **state) {
    fixture *f = *state;
    client *sink = open_client(&f->server, 2), *t = open_client(&f->server, 2);
    client *w = open_client(&f->server, 3);
    redis_client_id_result id;
    const uint64_t call = redis_client_id_call(&sink->b.conn, &id, NULL, NULL);
    assert_int_equal(rg_bconn_wait(&sink->b, call), 0);
    assert_int_equal(command(sink, "SUBSCRIBE __redis__:invalidate").status, RG_OK);
    char words[64];
    snprintf(words, sizeof words, "CLIENT TRACKING on REDIRECT %lld", (long long)id.value);
    assert_int_equal(command(t, words).status, RG_OK);
    command(t, "GET rk");
    command(w, "SET rk 1");
    await_pushes(sink, 1);
    assert_int_equal(sink->kinds[0], RG_PUSH_INVALIDATE);
    assert_string_equal(sink->what[0], "rk");
    /* The sink stays usable in subscribe mode: a PING answers as RESP2's ["pong", ""]. */
    assert_int_equal(command(sink, "PING").status, RG_OK);
    close_client(sink);
    close_client(t);
    close_client(w);
}

/* ---- Pub/Sub -------------------------------------------------------------------------------- */

static void pubsub(void **state) {
    fixture *f = *state;
    for (int proto = 2; proto <= 3; proto++) {
        client *s = open_client(&f->server, proto), *p = open_client(&f->server, 3);
        const rg_view ch[] = {V("ch1"), V("ch2")}, pat[] = {V("pa*")}, sh[] = {V("sh1")};
        rg_call_record r[3] = {{0}};
        redis_subscribe_call(&s->b.conn, ch, 2, NULL, rg_call_record_fn, &r[0]);
        redis_psubscribe_call(&s->b.conn, pat, 1, NULL, rg_call_record_fn, &r[1]);
        redis_ssubscribe_call(&s->b.conn, sh, 1, NULL, rg_call_record_fn, &r[2]);
        assert_int_equal(rg_bconn_wait(&s->b, 0), 0);
        for (int i = 0; i < 3; i++) assert_true(r[i].done && r[i].status == RG_OK);
        assert_int_equal(s->npush, 0); /* confirmations went to their calls */
        command(p, "PUBLISH ch2 m1");
        command(p, "PUBLISH pax m2");
        command(p, "SPUBLISH sh1 m3");
        await_pushes(s, 3);
        assert_int_equal(s->kinds[0], RG_PUSH_MESSAGE);
        assert_string_equal(s->what[0], "ch2:m1");
        assert_int_equal(s->kinds[1], RG_PUSH_PMESSAGE);
        assert_string_equal(s->what[1], "pax:m2");
        assert_int_equal(s->kinds[2], RG_PUSH_SMESSAGE);
        assert_string_equal(s->what[2], "sh1:m3");
        if (proto == 3) {
            /* RESP3 allows any command while subscribed. */
            assert_int_equal(command(s, "SET psk 1").status, RG_OK);
        }
        /* Without names: as many confirmations as channels, closed by an internal PING. */
        assert_int_equal(command(s, "UNSUBSCRIBE").status, RG_OK);
        assert_int_equal(command(s, "PUNSUBSCRIBE").status, RG_OK);
        assert_int_equal(command(s, "SUNSUBSCRIBE").status, RG_OK);
        assert_int_equal(s->npush, 3);
        assert_int_equal(command(s, "PING").status, RG_OK);
        assert_int_equal(rg_conn_pending(&s->b.conn), 0);
        close_client(s);
        close_client(p);
    }
}

/* ---- what a call's descriptor tells the engine ---------------------------------------------- */

/* SUBSCRIBE's typed result is its last confirmation, an UNSUBSCRIBE's without names too; in RESP2
 * subscribe mode a typed PING reads PONG, or its message, from the ["pong", message] pair. */
static void typed_pubsub(void **state) {
    fixture *f = *state;
    for (int proto = 2; proto <= 3; proto++) {
        client *s = open_client(&f->server, proto);
        rg_conn *conn = &s->b.conn;
        const rg_view ch[] = {V("tc1"), V("tc2")};
        redis_subscribe_result sub;
        redis_unsubscribe_result unsub;
        redis_ping_result pong, msg;
        memset(&sub, 0, sizeof sub);
        memset(&unsub, 0, sizeof unsub);
        rg_call_record r[4] = {{0}};
        const redis_ping_opts hi = {.message = V("hi")};
        redis_subscribe_call(conn, ch, 2, &sub, rg_call_record_fn, &r[0]);
        redis_ping_call(conn, NULL, &pong, rg_call_record_fn, &r[1]);
        redis_ping_call(conn, &hi, &msg, rg_call_record_fn, &r[2]);
        assert_int_equal(rg_bconn_wait(&s->b, 0), 0);
        for (int i = 0; i < 3; i++) assert_int_equal(r[i].status, RG_OK);
        assert_true(same(sub.value.type, "subscribe"));
        assert_true(same(sub.value.channel, "tc2"));
        assert_int_equal(sub.value.count, 2);
        assert_true(same(pong.value, "PONG"));
        assert_true(same(msg.value, "hi"));
        redis_unsubscribe_call(conn, NULL, &unsub, rg_call_record_fn, &r[3]);
        assert_int_equal(rg_bconn_wait(&s->b, 0), 0);
        assert_int_equal(r[3].status, RG_OK);
        assert_true(same(unsub.value.type, "unsubscribe"));
        assert_int_equal(unsub.value.count, 0);
        close_client(s);
    }
}

/* A HELLO sent by the caller switches the protocol the engine reads with: on a RESP2 connection
 * after HELLO 3, an array reply that looks like a message is a reply (RESP3 subscribe mode takes
 * any command), and RESET brings RESP2 back. */
static void hello_switches(void **state) {
    fixture *f = *state;
    client *c = open_client(&f->server, 2);
    rg_conn *conn = &c->b.conn;
    command(c, "DEL hl");
    command(c, "RPUSH hl message x y");
    redis_hello_result hello;
    const redis_hello_opts three = {.has_arguments = true, .arguments = {.protover = 3}};
    rg_call_record r[3] = {{0}};
    redis_hello_call(conn, &three, &hello, rg_call_record_fn, &r[0]);
    assert_int_equal(rg_bconn_wait(&c->b, 0), 0);
    assert_int_equal(r[0].status, RG_OK);
    assert_int_equal(hello.value.proto, 3);
    assert_int_equal(rg_conn_protocol(conn), 3);
    const rg_view ch[] = {V("hc")};
    redis_subscribe_call(conn, ch, 1, NULL, rg_call_record_fn, &r[1]);
    redis_lrange_result lr;
    redis_lrange_call(conn, V("hl"), 0, -1, &lr, rg_call_record_fn, &r[2]);
    assert_int_equal(rg_bconn_wait(&c->b, 0), 0);
    assert_int_equal(r[2].status, RG_OK);
    assert_int_equal(lr.value.count, 3);
    assert_int_equal(c->npush, 0);
    redis_reset_result reset;
    rg_call_record rr = {0};
    redis_reset_call(conn, &reset, rg_call_record_fn, &rr);
    assert_int_equal(rg_bconn_wait(&c->b, 0), 0);
    assert_int_equal(rr.status, RG_OK);
    assert_int_equal(rg_conn_protocol(conn), 2);
    assert_int_equal(command(c, "LRANGE hl 0 -1").status, RG_OK);
    close_client(c);
}

/* A write that times out while the server reads nothing (DEBUG SLEEP): the calls whose requests
 * left say `written` (they may have run), the ones behind them do not, and indeed did not run. */
static void written_or_not(void **state) {
    fixture *f = *state;
    enum { BIG = 32 << 20 };
    client *c = open_client(&f->server, 2), *o = open_client(&f->server, 3);
    command(o, "DEL wn wbig");
    char *out = malloc(BIG + 4096), *value = malloc(BIG - 4096);
    assert_non_null(out);
    assert_non_null(value);
    memset(value, 'v', BIG - 4096);
    rg_conn_config cfg = config(c, 2);
    cfg.out = out;
    cfg.out_cap = BIG + 4096;
    rg_bconn_close(&c->b);
    assert_int_equal(rg_bconn_connect_tcp(&c->b, "127.0.0.1", f->server.port, &cfg, 2000, 300), 0);
    rg_call_record r[3] = {{0}};
    const rg_view sleep[] = {V("DEBUG"), V("SLEEP"), V("1")};
    rg_conn_call_argv(&c->b.conn, 3, sleep, NULL, NULL, rg_call_record_fn, &r[0]);
    redis_set_result set;
    redis_incr_result incr;
    redis_set_call(&c->b.conn, V("wbig"), (rg_view){value, BIG - 4096}, NULL, &set,
                   rg_call_record_fn, &r[1]);
    redis_incr_call(&c->b.conn, V("wn"), &incr, rg_call_record_fn, &r[2]);
    assert_int_equal(rg_bconn_wait(&c->b, 0), RG_TIMEOUT); /* the send times out */
    assert_int_equal(rg_bconn_error(&c->b).status, RG_TIMEOUT);
    for (int i = 0; i < 3; i++) assert_true(r[i].done && r[i].status == RG_CLOSED);
    assert_true(r[0].written);
    assert_false(r[1].written);
    assert_false(r[2].written);
    /* What was not written did not run. */
    redis_exists_result ex;
    const rg_view keys[] = {V("wn"), V("wbig")};
    rg_call_record re = {0};
    redis_exists_call(&o->b.conn, keys, 2, &ex, rg_call_record_fn, &re);
    assert_int_equal(rg_bconn_wait(&o->b, 0), 0);
    assert_int_equal(ex.value, 0);
    free(value);
    rg_bconn_close(&c->b);
    free(out);
    free(c);
    close_client(o);
}

/* ---- transactions --------------------------------------------------------------------------- */

static void transactions(void **state) {
    fixture *f = *state;
    client *c = open_client(&f->server, 3), *o = open_client(&f->server, 3);
    rg_conn *conn = &c->b.conn;
    command(c, "DEL ta tl tw");
    rg_call_record rec[8] = {{0}};
    redis_incr_result i1, i2;
    redis_lpush_result lp;
    const rg_view x[] = {V("x")};
    command(c, "MULTI");
    redis_incr_call(conn, V("ta"), &i1, rg_call_record_fn, &rec[0]);
    redis_lpush_call(conn, V("ta"), x, 1, &lp, rg_call_record_fn, &rec[1]);
    redis_incr_call(conn, V("ta"), &i2, rg_call_record_fn, &rec[2]);
    assert_int_equal(command(c, "EXEC").status, RG_OK);
    assert_true(rec[0].status == RG_OK && i1.value == 1);
    assert_int_equal(rec[1].status, RG_SERVER_ERROR);
    assert_non_null(strstr(rec[1].error, "WRONGTYPE"));
    assert_true(rec[2].status == RG_OK && i2.value == 2);
    /* EXECABORT: an unknown command at queue time. */
    command(c, "MULTI");
    redis_incr_call(conn, V("ta"), &i1, rg_call_record_fn, &rec[3]);
    const rg_view bad[] = {V("NOSUCHCOMMAND")};
    rg_conn_call_argv(conn, 1, bad, NULL, NULL, rg_call_record_fn, &rec[4]);
    const rg_call_record ex = command(c, "EXEC");
    assert_int_equal(ex.status, RG_SERVER_ERROR);
    assert_non_null(strstr(ex.error, "EXECABORT"));
    assert_int_equal(rec[3].status, RG_ABORTED);
    assert_int_equal(rec[4].status, RG_SERVER_ERROR);
    /* A WATCHed key changed: a null EXEC. */
    command(c, "WATCH tw");
    command(o, "SET tw changed");
    command(c, "MULTI");
    redis_incr_call(conn, V("ta"), &i1, rg_call_record_fn, &rec[5]);
    assert_int_equal(command(c, "EXEC").status, RG_OK);
    assert_int_equal(rec[5].status, RG_ABORTED);
    assert_int_equal(command(c, "GET ta").status, RG_OK);
    close_client(c);
    close_client(o);
}

/* ---- timeouts ------------------------------------------------------------------------------- */

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void blpop_timeout(void **state) {
    fixture *f = *state;
    client *c = open_client(&f->server, 3);
    const rg_view key[] = {V("empty-list")};
    redis_blpop_result r;
    rg_call_record rec = {0};
    const double t0 = now_ms();
    const uint64_t id = redis_blpop_call(&c->b.conn, key, 1, 0.2, &r, rg_call_record_fn, &rec);
    assert_int_equal(rg_bconn_wait(&c->b, id), 0);
    assert_true(now_ms() - t0 >= 150);
    assert_int_equal(rec.status, RG_OK);
    assert_int_equal(r.value.which, 1); /* null */
    /* Abandoned: it completes at once, the connection stays, its late reply is dropped. */
    rg_call_record gave_up = {0};
    const uint64_t slow =
        redis_blpop_call(&c->b.conn, key, 1, 0.3, &r, rg_call_record_fn, &gave_up);
    assert_int_equal(rg_conn_abandon(&c->b.conn, slow), 0);
    assert_int_equal(gave_up.status, RG_ABANDONED);
    assert_int_equal(command(c, "PING").status, RG_OK);
    close_client(c);
    /* A client read timeout shorter than the server's: the call fails, closed, once. */
    c = calloc(1, sizeof *c);
    const rg_conn_config cfg = config(c, 3);
    assert_int_equal(rg_bconn_connect_tcp(&c->b, "127.0.0.1", f->server.port, &cfg, 2000, 200), 0);
    rg_call_record late = {0};
    const uint64_t id2 = redis_blpop_call(&c->b.conn, key, 1, 5, &r, rg_call_record_fn, &late);
    assert_int_equal(rg_bconn_wait(&c->b, id2), RG_TIMEOUT);
    assert_int_equal(late.status, RG_CLOSED);
    assert_non_null(strstr(late.error, "timeout"));
    assert_int_equal(rg_bconn_reconnect(&c->b), 0);
    assert_int_equal(command(c, "PING").status, RG_OK);
    close_client(c);
}

static uint64_t ping(client *c, rg_call_record *rec) {
    const rg_view argv[] = {V("PING")};
    return rg_conn_call_argv(&c->b.conn, 1, argv, NULL, NULL, rg_call_record_fn, rec);
}

static void deadlines(void **state) {
    fixture *f = *state;
    client *c = calloc(1, sizeof *c);
    rg_conn_config cfg = config(c, 3);
    cfg.timeout_ms = 100;
    assert_int_equal(rg_bconn_connect_tcp(&c->b, "127.0.0.1", f->server.port, &cfg, 2000, 5000), 0);
    assert_int_equal(command(c, "PING").status, RG_OK);
    const rg_view key[] = {V("empty-deadline")};
    redis_blpop_result r;
    rg_call_record slow = {0}, behind = {0};
    const double t0 = now_ms();
    assert_int_not_equal(redis_blpop_call(&c->b.conn, key, 1, 1, &r, rg_call_record_fn, &slow), 0);
    const uint64_t last = ping(c, &behind);
    assert_int_equal(rg_conn_call_timeout(&c->b.conn, last, 0), 0); /* no deadline of its own */
    assert_int_equal(rg_bconn_wait(&c->b, last), RG_TIMEOUT);
    assert_int_equal(rg_bconn_error(&c->b).status, RG_TIMEOUT);
    const double took = now_ms() - t0;
    assert_true(took >= 90 && took < 900);
    assert_int_equal(slow.status, RG_TIMEOUT);
    assert_non_null(strstr(slow.error, "timeout"));
    assert_int_equal(behind.status, RG_CLOSED);
    assert_int_equal(rg_conn_state_of(&c->b.conn), RG_CONN_FAILED);
    rg_call_record refused = {0};
    assert_int_equal(ping(c, &refused), 0); /* fails at once until the reconnect */
    assert_false(refused.done);
    assert_int_equal(rg_bconn_reconnect(&c->b), 0);
    assert_int_equal(command(c, "PING").status, RG_OK);
    /* A per-call deadline longer than the server's timeout: the null reply comes in time. */
    rg_call_record ok = {0};
    const uint64_t id = redis_blpop_call(&c->b.conn, key, 1, 0.3, &r, rg_call_record_fn, &ok);
    assert_int_equal(rg_conn_call_timeout(&c->b.conn, id, 3000), 0);
    assert_int_equal(rg_bconn_wait(&c->b, id), 0);
    assert_int_equal(ok.status, RG_OK);
    assert_int_equal(r.value.which, 1); /* null */
    close_client(c);
}

/* ---- loss and reconnect --------------------------------------------------------------------- */

enum { LOSS_CALLS = 20000 };

typedef struct tally {
    uint8_t seen[LOSS_CALLS];
    size_t ok, closed, twice;
} tally;

typedef struct loss_call {
    tally *t;
    size_t i;
    redis_set_result r;
} loss_call;

static void count_one(void *ud, const rg_call_done *d) {
    loss_call *l = ud;
    if (l->t->seen[l->i]++) l->t->twice++;
    if (d->status == RG_OK) l->t->ok++;
    if (d->status == RG_CLOSED) l->t->closed++;
}

/* Queued at every (re)connect, right behind the connect sequence. */
static void resubscribe(void *ud, rg_conn *conn) {
    const rg_view argv[] = {V("SUBSCRIBE"), V("replayed")};
    (void)ud;
    assert_int_not_equal(rg_conn_call_argv(conn, 2, argv, NULL, NULL, NULL, NULL), 0);
}

static void killed_and_restarted(void **state) {
    fixture *f = *state;
    client *c = calloc(1, sizeof *c);
    rg_conn_config cfg = config(c, 3);
    cfg.name = V("rg-client");
    cfg.db = 3;
    cfg.on_connect = resubscribe;
    assert_int_equal(rg_bconn_connect_tcp(&c->b, "127.0.0.1", f->server.port, &cfg, 2000, 5000), 0);
    static tally t;
    static loss_call calls[LOSS_CALLS];
    memset(&t, 0, sizeof t);
    size_t queued = 0;
    unsigned seed = 7;
    /* Keep a window in flight; kill the server once a third has been answered. */
    while (queued < LOSS_CALLS && rg_conn_state_of(&c->b.conn) != RG_CONN_FAILED) {
        while (queued < LOSS_CALLS && rg_conn_pending(&c->b.conn) < WINDOW) {
            calls[queued] = (loss_call){&t, queued, {{NULL, 0}}};
            if (!redis_set_call(&c->b.conn, V("lk"), V("v"), NULL, &calls[queued].r, count_one,
                                &calls[queued]))
                break;
            queued++;
        }
        if (t.ok >= LOSS_CALLS / 3 && f->server.pid > 0) test_redis_kill(&f->server);
        if (f->server.pid > 0) {
            pump(c, &seed);
        } else if (rg_bconn_wait(&c->b, 0) != 0) {
            break;
        }
    }
    assert_int_equal(rg_conn_state_of(&c->b.conn), RG_CONN_FAILED);
    assert_int_equal(t.twice, 0);
    assert_true(t.ok >= LOSS_CALLS / 3);
    assert_true(t.closed > 0);
    assert_int_equal(t.ok + t.closed, queued);
    assert_int_equal(rg_conn_pending(&c->b.conn), 0);
    /* Started again on the same port: the reconnect replays the connect sequence. */
    assert_int_equal(
        test_redis_restart(&f->server, (const char *[]){"--unixsocket", f->sock, NULL}), 0);
    assert_int_equal(rg_bconn_reconnect(&c->b), 0);
    redis_client_getname_result name;
    const uint64_t id = redis_client_getname_call(&c->b.conn, &name, NULL, NULL);
    assert_int_equal(rg_bconn_wait(&c->b, id), 0);
    assert_true(same(name.value, "rg-client"));
    assert_int_equal(rg_conn_protocol(&c->b.conn), 3);
    command(c, "SET in-db-3 yes");
    client *o = open_client(&f->server, 3);
    assert_int_equal(command(o, "GET in-db-3").status, RG_OK);
    redis_get_result g;
    command(o, "SELECT 3");
    const uint64_t gid = redis_get_call(&o->b.conn, V("in-db-3"), &g, NULL, NULL);
    assert_int_equal(rg_bconn_wait(&o->b, gid), 0);
    assert_true(same(g.value, "yes"));
    /* The subscription was replayed by on_connect. */
    const int before = c->npush;
    command(o, "PUBLISH replayed hi");
    await_pushes(c, before + 1);
    assert_string_equal(c->what[before], "replayed:hi");
    close_client(o);
    close_client(c);
}

/* ---- SIGPIPE -------------------------------------------------------------------------------- */

static void sigpipe(void **state) {
    (void)state;
    int lport = 0;
    const int lfd = test_listen_loopback(&lport);
    assert_true(lfd >= 0);
    client *c = calloc(1, sizeof *c);
    assert_non_null(c);
    const rg_conn_config cfg = config(c, 2); /* RESP2, nothing to set: no handshake to answer */
    assert_int_equal(rg_bconn_connect_tcp(&c->b, "127.0.0.1", lport, &cfg, 2000, 2000), 0);
    const int peer = accept(lfd, NULL, NULL);
    assert_true(peer >= 0);
    close(peer);
    close(lfd);
    /* Until the peer's reset has arrived: from then on every write fails with EPIPE. */
    int i = 0;
    while (!(send(c->b.fd, "x", 1, MSG_NOSIGNAL) < 0 && errno == EPIPE) && i++ < 200)
        poll(NULL, 0, 5);
    assert_true(i < 200);
    signal(SIGPIPE, SIG_DFL); /* a SIGPIPE would end this process */
    const rg_view ping[] = {{"PING", 4}};
    rg_call_record r = {0};
    const uint64_t id = rg_conn_call_argv(&c->b.conn, 1, ping, NULL, NULL, rg_call_record_fn, &r);
    assert_int_not_equal(id, 0);
    assert_int_not_equal(rg_bconn_wait(&c->b, id), 0);
    assert_true(r.done && r.status == RG_CLOSED);
    close_client(c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sigpipe),
        cmocka_unit_test(typed_calls),
        cmocka_unit_test(pipeline_100k),
        cmocka_unit_test(tracking_resp3),
        cmocka_unit_test(tracking_redirect_resp2),
        cmocka_unit_test(pubsub),
        cmocka_unit_test(typed_pubsub),
        cmocka_unit_test(hello_switches),
        cmocka_unit_test(written_or_not),
        cmocka_unit_test(transactions),
        cmocka_unit_test(blpop_timeout),
        cmocka_unit_test(deadlines),
        cmocka_unit_test(killed_and_restarted),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
