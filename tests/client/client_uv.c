/* The libuv adapter (adapters/rg_uv.h) against a real redis-server:
 * - 10,000 INCRs queued at once, then 2,000 more queued from inside completion callbacks, all
 *   pipelined by the adapter and checked in order, in RESP3 and RESP2, over TCP and a unix socket;
 * - SUBSCRIBE on one connection; its completion makes another PUBLISH three messages, which
 *   arrive as pushes;
 * - a refused connect reports the error, then RG_UV_CLOSED; closing with calls pending completes
 *   them with RG_CLOSED;
 * - the server killed and restarted: EOF, RG_UV_CLOSED, rg_uv_reconnect replays HELLO and SETNAME;
 * - deadlines: a BLPOP (1 s on the server) with a 100 ms deadline times out (RG_UV_FAILED,
 * RG_TIMEOUT), the call behind it closes, a reconnect works; a listener that never answers HELLO
 * trips connect_timeout_ms;
 * - SIGPIPE: a write to a peer that closed the connection (a loopback listener) ends the
 *   connection with EPIPE and its calls with RG_CLOSED; the process, started with SIGPIPE's
 *   default action (termination), lives on; a handler the application installed stays its own;
 * - automatic reconnects (rg_uv_connect with a reconnect policy), RESP3 and RESP2: the server
 *   killed in the middle of 20,000 pipelined INCRs, each completes once (OK or CLOSED); the
 *   server back during the second attempt's delay; READY, DISCONNECTED, RECONNECTING x2, READY;
 *   two calls queued while down (queue_calls 2) run after the reconnect, the third is refused, as
 *   is one on a connection without a queue; SUBSCRIBE, PSUBSCRIBE and SSUBSCRIBE replayed by the
 *   engine and one publish of each received once; the server gone for good: three attempts,
 *   GAVE_UP, the queued call CLOSED unwritten; a refused AUTH after a restart: GAVE_UP at once;
 * - the client-side cache (rg_cache.h) through an automatic reconnect: hits, invalidations read
 *   before a round trip's reply, the cache flushed at the loss and tracking on again after it;
 * - a GET of 64 MiB through the 64 KiB input buffer grown by rg_conn_std_alloc (the alloc callback
 *   hands out the grown room), RESP2 and RESP3, every byte compared; with max_reply 1 MiB the
 *   connection fails with RG_ERR_LIMIT.
 */
#include "big_value.h"
#include "redis_client.h"
#include "rg_uv.h"
#include "test_redis.h"

#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <netinet/in.h>
#include <sys/socket.h>

#include <cmocka.h>

#define V(s) ((rg_view){(s), sizeof(s) - 1})

enum { FIRST = 10000, MORE = 2000, NCALLS = 1 << 15 };

typedef struct uvc {
    rg_uv u;
    char in[1 << 16], out[1 << 20], storage[1 << 12];
    rg_call calls[NCALLS];
    int events[8], nevents;
    int pushes;
    char last[64];
    struct uvc *peer;
} uvc;

/* A failure is recorded as FAILED_(its status): the event and rg_uv_error's status at once. */
#define FAILED_(st) (100 + (int)(st))

static void on_event(rg_uv *u, rg_uv_event ev, void *ud) {
    uvc *c = ud;
    const int seen = ev == RG_UV_FAILED ? FAILED_(rg_uv_error(u).status) : (int)ev;
    if (c->nevents < 8) c->events[c->nevents++] = seen;
}

static void on_push(void *ud, const rg_push *p) {
    uvc *c = ud;
    c->pushes++;
    snprintf(c->last, sizeof c->last, "%s:%.*s", rg_push_kind_name(p->kind), (int)p->payload.len,
             p->payload.ptr ? p->payload.ptr : "");
    if (c->pushes == 3) {
        rg_uv_close(&c->u);
        rg_uv_close(&c->peer->u);
    }
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
                            .protocol = protocol};
}

typedef struct fixture {
    test_redis server;
    char sock[64];
} fixture;

static int setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    if (!f) return -1;
    snprintf(f->sock, sizeof f->sock, "/tmp/respgen-uv-%d.sock", (int)getpid());
    const char *extra[] = {"--unixsocket", f->sock, NULL};
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

/* ---- pipelining ----------------------------------------------------------------------------- */

typedef struct counter {
    uvc *c;
    int64_t next; /* the value the next INCR must return */
    size_t done, bad;
    redis_incr_result r[FIRST + MORE];
    redis_get_result g;
} counter;

static void incr_done(void *ud, const rg_call_done *d) {
    counter *k = ud;
    const redis_incr_result *r = d->result;
    if (d->status != RG_OK || r->value != ++k->next) k->bad++;
    k->done++;
    /* Halfway through the first batch, queue more from inside a callback. */
    if (k->done == FIRST / 2) {
        for (size_t i = 0; i < MORE; i++)
            if (!redis_incr_call(&k->c->u.conn, V("uvn"), &k->r[FIRST + i], incr_done, k)) k->bad++;
    }
    if (k->done == FIRST + MORE) rg_uv_close(&k->c->u);
}

static void run_pipeline(const fixture *f, int protocol, bool unix_socket) {
    uv_loop_t loop;
    uv_loop_init(&loop);
    uvc *c = calloc(1, sizeof *c);
    counter *k = calloc(1, sizeof *k);
    assert_true(c && k);
    k->c = c;
    const rg_conn_config cfg = config(c, protocol);
    if (unix_socket) {
        assert_int_equal(rg_uv_connect_unix(&c->u, &loop, f->sock, &cfg, on_event, c), 0);
    } else {
        assert_int_equal(
            rg_uv_connect_tcp(&c->u, &loop, "127.0.0.1", f->server.port, &cfg, on_event, c), 0);
    }
    const rg_view del[] = {V("DEL"), V("uvn")};
    assert_int_not_equal(rg_conn_call_argv(&c->u.conn, 2, del, NULL, NULL, NULL, NULL), 0);
    for (size_t i = 0; i < FIRST; i++)
        assert_int_not_equal(redis_incr_call(&c->u.conn, V("uvn"), &k->r[i], incr_done, k), 0);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(k->done, FIRST + MORE);
    assert_int_equal(k->bad, 0);
    assert_int_equal(c->nevents, 2);
    assert_int_equal(c->events[0], RG_UV_READY);
    assert_int_equal(c->events[1], RG_UV_CLOSED);
    assert_int_equal(rg_conn_protocol(&c->u.conn), protocol == 3 ? 3 : 2);
    assert_int_equal(uv_loop_close(&loop), 0);
    free(c);
    free(k);
}

static void pipelined(void **state) {
    const fixture *f = *state;
    run_pipeline(f, 3, false);
    run_pipeline(f, 2, false);
    run_pipeline(f, 3, true);
}

/* ---- Pub/Sub -------------------------------------------------------------------------------- */

static void subscribed(void *ud, const rg_call_done *d) {
    uvc *s = ud;
    assert_int_equal(d->status, RG_OK);
    for (int i = 0; i < 3; i++) {
        const rg_view msg[] = {{"m0", 2}, {"m1", 2}, {"m2", 2}};
        redis_publish_call(&s->peer->u.conn, V("uvch"), msg[i], NULL, NULL, NULL);
    }
}

static void pubsub(void **state) {
    const fixture *f = *state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    uvc *s = calloc(1, sizeof *s), *p = calloc(1, sizeof *p);
    assert_true(s && p);
    s->peer = p;
    p->peer = s;
    for (int proto = 2; proto <= 3; proto++) {
        const rg_conn_config cs = config(s, proto), cp = config(p, 3);
        s->nevents = p->nevents = s->pushes = 0;
        assert_int_equal(
            rg_uv_connect_tcp(&s->u, &loop, "127.0.0.1", f->server.port, &cs, on_event, s), 0);
        assert_int_equal(
            rg_uv_connect_tcp(&p->u, &loop, "127.0.0.1", f->server.port, &cp, on_event, p), 0);
        const rg_view ch[] = {V("uvch")};
        assert_int_not_equal(redis_subscribe_call(&s->u.conn, ch, 1, NULL, subscribed, s), 0);
        uv_run(&loop, UV_RUN_DEFAULT);
        assert_int_equal(s->pushes, 3);
        assert_string_equal(s->last, "message:m2");
        assert_int_equal(s->events[s->nevents - 1], RG_UV_CLOSED);
    }
    assert_int_equal(uv_loop_close(&loop), 0);
    free(s);
    free(p);
}

/* ---- failures ------------------------------------------------------------------------------- */

static void failures(void **state) {
    const fixture *f = *state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    uvc *c = calloc(1, sizeof *c);
    assert_non_null(c);
    /* Nobody listens on port 1. */
    rg_conn_config cfg = config(c, 3);
    rg_call_record rec = {0};
    assert_int_equal(rg_uv_connect_tcp(&c->u, &loop, "127.0.0.1", 1, &cfg, on_event, c), 0);
    const rg_view ping[] = {V("PING")};
    rg_conn_call_argv(&c->u.conn, 1, ping, NULL, NULL, rg_call_record_fn, &rec);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(c->nevents, 2);
    assert_int_equal(c->events[0], FAILED_(RG_REFUSED));
    assert_int_equal(c->events[1], RG_UV_CLOSED);
    assert_true(rec.done && rec.status == RG_CLOSED);
    /* Closed right after queueing: the calls complete, closed, once. */
    c->nevents = 0;
    rec = (rg_call_record){0};
    cfg = config(c, 3);
    assert_int_equal(
        rg_uv_connect_tcp(&c->u, &loop, "127.0.0.1", f->server.port, &cfg, on_event, c), 0);
    rg_conn_call_argv(&c->u.conn, 1, ping, NULL, NULL, rg_call_record_fn, &rec);
    rg_uv_close(&c->u);
    assert_true(rec.done && rec.status == RG_CLOSED);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(c->events[c->nevents - 1], RG_UV_CLOSED);
    assert_int_equal(uv_loop_close(&loop), 0);
    free(c);
}

/* ---- reconnect ------------------------------------------------------------------------------ */

typedef struct again {
    uvc *c;
    fixture *f;
    int closed;
    rg_call_record first;
    redis_client_getname_result name;
    bool named;
} again;

static void kill_server(void *ud, const rg_call_done *d) {
    again *a = ud;
    rg_call_record_fn(&a->first, d);
    test_redis_kill(&a->f->server); /* the read that follows sees EOF */
}

static void got_name(void *ud, const rg_call_done *d) {
    again *a = ud;
    a->named = d->status == RG_OK && a->name.value.len == 9 &&
               memcmp(a->name.value.ptr, "uv-client", 9) == 0;
    rg_uv_close(&a->c->u);
}

static void on_event_again(rg_uv *u, rg_uv_event ev, void *ud) {
    again *a = ud;
    on_event(u, ev, a->c);
    if (ev != RG_UV_CLOSED || a->closed++) return;
    /* The server is back on the same port: connect again; HELLO and SETNAME are replayed. */
    const char *extra[] = {"--unixsocket", a->f->sock, NULL};
    assert_int_equal(test_redis_restart(&a->f->server, extra), 0);
    assert_int_equal(rg_uv_reconnect(u), 0);
    assert_int_not_equal(redis_client_getname_call(&u->conn, &a->name, got_name, a), 0);
}

static void reconnect(void **state) {
    fixture *f = *state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    again *a = calloc(1, sizeof *a);
    uvc *c = calloc(1, sizeof *c);
    assert_true(a && c);
    a->c = c;
    a->f = f;
    rg_conn_config cfg = config(c, 3);
    cfg.name = V("uv-client");
    assert_int_equal(
        rg_uv_connect_tcp(&c->u, &loop, "127.0.0.1", f->server.port, &cfg, on_event_again, a), 0);
    const rg_view ping[] = {V("PING")};
    rg_conn_call_argv(&c->u.conn, 1, ping, NULL, NULL, kill_server, a);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_true(a->first.done && a->first.status == RG_OK);
    assert_int_equal(c->events[0], RG_UV_READY);
    assert_int_equal(c->events[1], FAILED_(RG_CLOSED));
    assert_int_equal(c->events[2], RG_UV_CLOSED);
    assert_int_equal(c->events[3], RG_UV_READY);
    assert_int_equal(c->events[4], RG_UV_CLOSED);
    assert_true(a->named);
    assert_int_equal(uv_loop_close(&loop), 0);
    free(a);
    free(c);
}

/* ---- automatic reconnects ------------------------------------------------------------------ */

enum { LOSS = 20000, AFTER = 100 }; /* AFTER: made once the server is dead, before EOF */

/* Two reconnecting connections to a server killed mid-pipeline: w pipelines INCRs (and may
 * queue 2 calls while down), s holds subscriptions (queues nothing). */
typedef struct auto_rc {
    fixture *f;
    uvc *w, *s;
    char subs[256];
    uint8_t seen[LOSS + AFTER];
    size_t ok, closed, twice, other;
    redis_incr_result r[LOSS + AFTER];
    int wev[16], nw, sev[64], ns; /* the events of each */
    int down_refused, down_queued, down_done;
    rg_call_record queued[3];
    int messages[RG_PUSH_KIND_COUNT];
    uv_timer_t grace;
    int w_ready, s_ready; /* READY told: once at the start, once after the reconnect */
    bool restarted, published;
} auto_rc;

typedef struct loss_ud {
    auto_rc *a;
    size_t i;
} loss_ud;
static loss_ud loss_uds[LOSS + AFTER];

static void loss_done(void *ud, const rg_call_done *d) {
    loss_ud *l = ud;
    auto_rc *a = l->a;
    if (a->seen[l->i]++) a->twice++;
    if (d->status == RG_OK) {
        a->ok++;
    } else if (d->status == RG_CLOSED) {
        a->closed++;
    } else {
        a->other++;
    }
    if (l->i != 1000 || d->status != RG_OK) return;
    /* mid-pipeline: the server dies with replies owed, and calls follow that it never sees */
    test_redis_kill(&a->f->server);
    for (size_t i = LOSS; i < LOSS + AFTER; i++) {
        loss_uds[i] = (loss_ud){a, i};
        assert_int_not_equal(
            redis_incr_call(&a->w->u.conn, V("uvloss"), &a->r[i], loss_done, &loss_uds[i]), 0);
    }
}

static void rc_push(void *ud, const rg_push *p) {
    auto_rc *a = ud;
    a->messages[p->kind]++;
}

static void close_both(uv_timer_t *t) {
    auto_rc *a = t->data;
    rg_uv_close(&a->w->u);
    rg_uv_close(&a->s->u);
    uv_close((uv_handle_t *)t, NULL);
}

/* Once both are back: one publish of each kind from a plain connection; 30 ms for duplicates. */
static void publish_once(auto_rc *a) {
    if (a->published || a->w_ready < 2 || a->s_ready < 2) return;
    a->published = true;
    test_conn p;
    char reply[64];
    assert_int_equal(test_conn_open(&p, a->f->server.port), 0);
    const char *const pub[] = {"PUBLISH", "uv.a", "1"}, *const ppub[] = {"PUBLISH", "uvp.x", "2"},
                      *const spub[] = {"SPUBLISH", "uvs.a", "3"};
    assert_int_equal(test_conn_command(&p, reply, sizeof reply, 3, pub), 0);
    assert_string_equal(reply, ":1");
    assert_int_equal(test_conn_command(&p, reply, sizeof reply, 3, ppub), 0);
    assert_string_equal(reply, ":1");
    assert_int_equal(test_conn_command(&p, reply, sizeof reply, 3, spub), 0);
    assert_string_equal(reply, ":1");
    test_conn_close(&p);
    uv_timer_start(&a->grace, close_both, 30, 0);
}

static void w_event(rg_uv *u, rg_uv_event ev, void *ud) {
    auto_rc *a = ud;
    if (a->nw < 16) a->wev[a->nw++] = (int)ev;
    if (ev == RG_UV_DISCONNECTED) {
        /* Down: two calls queued (queue_calls 2), the third refused. */
        for (int i = 0; i < 3; i++) {
            const rg_view incr[] = {V("INCR"), V("after")};
            const uint64_t id =
                rg_conn_call_argv(&u->conn, 2, incr, NULL, NULL, rg_call_record_fn, &a->queued[i]);
            *(id ? &a->down_queued : &a->down_refused) += 1;
        }
    }
    if (ev == RG_UV_RECONNECTING && rg_uv_reconnect_info(u)->attempt == 2 && !a->restarted) {
        const char *extra[] = {"--unixsocket", a->f->sock, NULL};
        assert_int_equal(test_redis_restart(&a->f->server, extra), 0);
        a->restarted = true;
    }
    a->w_ready += ev == RG_UV_READY;
    if (ev == RG_UV_READY) publish_once(a);
}

static void s_event(rg_uv *u, rg_uv_event ev, void *ud) {
    auto_rc *a = ud;
    if (a->ns < 64) a->sev[a->ns++] = (int)ev;
    if (ev == RG_UV_DISCONNECTED) {
        const rg_view ping[] = {V("PING")};
        if (rg_conn_call_argv(&u->conn, 1, ping, NULL, NULL, NULL, NULL) == 0) a->down_refused++;
    }
    a->s_ready += ev == RG_UV_READY;
    if (ev == RG_UV_READY) publish_once(a);
}

/* Once s holds its subscriptions: the pipeline on w. */
static void start_pipeline(void *ud, const rg_call_done *d) {
    auto_rc *a = ud;
    assert_int_equal(d->status, RG_OK);
    assert_int_equal(rg_conn_subscriptions(&a->s->u.conn), 3);
    for (size_t i = 0; i < LOSS; i++) {
        loss_uds[i] = (loss_ud){a, i};
        assert_int_not_equal(
            redis_incr_call(&a->w->u.conn, V("uvloss"), &a->r[i], loss_done, &loss_uds[i]), 0);
    }
}

static void auto_reconnect_proto(fixture *f, int proto) {
    uv_loop_t loop;
    uv_loop_init(&loop);
    auto_rc *a = calloc(1, sizeof *a);
    uvc *w = calloc(1, sizeof *w), *s = calloc(1, sizeof *s);
    assert_true(a && w && s);
    *a = (auto_rc){.f = f, .w = w, .s = s};
    uv_timer_init(&loop, &a->grace);
    a->grace.data = a;
    rg_conn_config cw = config(w, proto), cs = config(s, proto);
    cw.queue_calls = 2;
    cs.subs = a->subs;
    cs.subs_cap = sizeof a->subs;
    cs.on_push = rc_push;
    cs.push_ud = a;
    const rg_uv_options opt = {.reconnect = {5, 40, 50}};
    assert_int_equal(
        rg_uv_connect(&w->u, &loop, "127.0.0.1", f->server.port, &cw, &opt, w_event, a), 0);
    assert_int_equal(
        rg_uv_connect(&s->u, &loop, "127.0.0.1", f->server.port, &cs, &opt, s_event, a), 0);
    const rg_view ch[] = {V("uv.a")}, pat[] = {V("uvp.*")}, sh[] = {V("uvs.a")};
    assert_int_not_equal(redis_subscribe_call(&s->u.conn, ch, 1, NULL, NULL, NULL), 0);
    assert_int_not_equal(redis_psubscribe_call(&s->u.conn, pat, 1, NULL, NULL, NULL), 0);
    assert_int_not_equal(redis_ssubscribe_call(&s->u.conn, sh, 1, NULL, start_pipeline, a), 0);
    uv_run(&loop, UV_RUN_DEFAULT);
    /* every call once: answered, or closed at the loss */
    assert_int_equal(a->twice, 0);
    assert_int_equal(a->other, 0);
    assert_int_equal(a->ok + a->closed, LOSS + AFTER);
    assert_true(a->ok > 1000 && a->closed >= AFTER);
    printf("libuv RESP%d: %zu answered, %zu closed at the kill\n", proto, a->ok, a->closed);
    /* w: ready, lost, two attempts (the server is back during the second's delay), ready */
    const int want[] = {RG_UV_READY,        RG_UV_DISCONNECTED, RG_UV_RECONNECTING,
                        RG_UV_RECONNECTING, RG_UV_READY,        RG_UV_CLOSED};
    assert_int_equal(a->nw, 6);
    for (int i = 0; i < 6; i++) assert_int_equal(a->wev[i], want[i]);
    /* calls made while down: refused (s, w's third) or queued and run after the reconnect */
    assert_int_equal(a->down_queued, 2);
    assert_int_equal(a->down_refused, 2);
    assert_true(a->queued[0].done && a->queued[0].status == RG_OK);
    assert_true(a->queued[1].done && a->queued[1].status == RG_OK);
    /* s: replayed its three subscriptions; each publish arrived once */
    assert_int_equal(a->sev[0], RG_UV_READY);
    assert_int_equal(a->sev[1], RG_UV_DISCONNECTED);
    assert_int_equal(a->sev[a->ns - 2], RG_UV_READY);
    assert_int_equal(a->sev[a->ns - 1], RG_UV_CLOSED);
    assert_int_equal(a->messages[RG_PUSH_MESSAGE], 1);
    assert_int_equal(a->messages[RG_PUSH_PMESSAGE], 1);
    assert_int_equal(a->messages[RG_PUSH_SMESSAGE], 1);
    assert_int_equal(uv_loop_close(&loop), 0);
    free(a);
    free(w);
    free(s);
}

static void auto_reconnect(void **state) {
    auto_reconnect_proto(*state, 3);
    auto_reconnect_proto(*state, 2);
}

/* The server gone for good: attempts, then GAVE_UP; the call queued while down ends CLOSED. */
typedef struct gone {
    fixture *f;
    int ev[16], n;
    rg_call_record queued;
    uint32_t last_attempt;
} gone;

static void gone_event(rg_uv *u, rg_uv_event ev, void *ud) {
    gone *g = ud;
    if (g->n < 16) g->ev[g->n++] = (int)ev;
    if (ev == RG_UV_READY) test_redis_kill(&g->f->server);
    if (ev == RG_UV_DISCONNECTED) {
        const rg_view ping[] = {V("PING")};
        assert_int_not_equal(
            rg_conn_call_argv(&u->conn, 1, ping, NULL, NULL, rg_call_record_fn, &g->queued), 0);
    }
    if (ev == RG_UV_GAVE_UP) g->last_attempt = rg_uv_reconnect_info(u)->attempt;
}

static void gives_up(void **state) {
    fixture *f = *state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    uvc *c = calloc(1, sizeof *c);
    gone *g = calloc(1, sizeof *g);
    assert_true(c && g);
    g->f = f;
    rg_conn_config cfg = config(c, 3);
    cfg.queue_calls = 1;
    const rg_uv_options opt = {.reconnect = {1, 5, 3}};
    assert_int_equal(
        rg_uv_connect(&c->u, &loop, "127.0.0.1", f->server.port, &cfg, &opt, gone_event, g), 0);
    uv_run(&loop, UV_RUN_DEFAULT);
    const int want[] = {RG_UV_READY,        RG_UV_DISCONNECTED, RG_UV_RECONNECTING,
                        RG_UV_RECONNECTING, RG_UV_RECONNECTING, RG_UV_GAVE_UP,
                        RG_UV_CLOSED};
    assert_int_equal(g->n, 7);
    for (int i = 0; i < 7; i++) assert_int_equal(g->ev[i], want[i]);
    assert_int_equal(g->last_attempt, 3);
    assert_int_equal(rg_uv_error(&c->u).status, RG_REFUSED);
    assert_true(g->queued.done && g->queued.status == RG_CLOSED && !g->queued.written);
    assert_non_null(strstr(g->queued.error, "gave up"));
    assert_int_equal(uv_loop_close(&loop), 0);
    const char *extra[] = {"--unixsocket", f->sock, NULL};
    assert_int_equal(test_redis_restart(&f->server, extra), 0);
    free(c);
    free(g);
}

/* Back with a password the client does not know: the refused AUTH ends the reconnect. */
static void repassword_event(rg_uv *u, rg_uv_event ev, void *ud) {
    gone *g = ud;
    (void)u;
    if (g->n < 16) g->ev[g->n++] = (int)ev;
    if (ev == RG_UV_READY) test_redis_kill(&g->f->server);
    if (ev == RG_UV_GAVE_UP) g->last_attempt = rg_uv_reconnect_info(u)->attempt;
    if (ev != RG_UV_DISCONNECTED) return;
    const char *extra[] = {"--unixsocket", g->f->sock, NULL};
    assert_int_equal(test_redis_restart(&g->f->server, extra), 0);
    test_conn admin;
    char reply[64];
    const char *const set[] = {"CONFIG", "SET", "requirepass", "another"};
    assert_int_equal(test_conn_open(&admin, g->f->server.port), 0);
    assert_int_equal(test_conn_command(&admin, reply, sizeof reply, 4, set), 0);
    test_conn_close(&admin);
}

static void refused_auth(void **state) {
    fixture *f = *state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    uvc *c = calloc(1, sizeof *c);
    gone *g = calloc(1, sizeof *g);
    assert_true(c && g);
    g->f = f;
    const rg_conn_config cfg = config(c, 3);
    const rg_uv_options opt = {.reconnect = {1, 5, 10}};
    assert_int_equal(
        rg_uv_connect(&c->u, &loop, "127.0.0.1", f->server.port, &cfg, &opt, repassword_event, g),
        0);
    uv_run(&loop, UV_RUN_DEFAULT);
    const int want[] = {RG_UV_READY, RG_UV_DISCONNECTED, RG_UV_RECONNECTING, RG_UV_GAVE_UP,
                        RG_UV_CLOSED};
    assert_int_equal(g->n, 5);
    for (int i = 0; i < 5; i++) assert_int_equal(g->ev[i], want[i]);
    assert_int_equal(g->last_attempt, 1);
    assert_int_equal(rg_uv_error(&c->u).status, RG_REFUSED);
    assert_int_equal(uv_loop_close(&loop), 0);
    const char *extra[] = {"--unixsocket", f->sock, NULL};
    assert_int_equal(test_redis_restart(&f->server, extra), 0);
    free(c);
    free(g);
}

/* ---- deadlines ------------------------------------------------------------------------------ */

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void close_on_done(void *ud, const rg_call_done *d) {
    uvc *c = ud;
    snprintf(c->last, sizeof c->last, "%s", rg_status_name(d->status));
    rg_uv_close(&c->u);
}

static void timeouts(void **state) {
    const fixture *f = *state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    uvc *c = calloc(1, sizeof *c);
    assert_non_null(c);
    rg_conn_config cfg = config(c, 3);
    cfg.timeout_ms = 100;
    assert_int_equal(
        rg_uv_connect_tcp(&c->u, &loop, "127.0.0.1", f->server.port, &cfg, on_event, c), 0);
    const rg_view key[] = {V("uv-empty")}, ping[] = {V("PING")};
    redis_blpop_result r;
    rg_call_record slow = {0}, behind = {0};
    const double t0 = now_ms();
    assert_int_not_equal(redis_blpop_call(&c->u.conn, key, 1, 1, &r, rg_call_record_fn, &slow), 0);
    const uint64_t last =
        rg_conn_call_argv(&c->u.conn, 1, ping, NULL, NULL, rg_call_record_fn, &behind);
    assert_int_equal(rg_conn_call_timeout(&c->u.conn, last, 0), 0);
    uv_run(&loop, UV_RUN_DEFAULT);
    const double took = now_ms() - t0;
    assert_true(took >= 90 && took < 900);
    assert_int_equal(slow.status, RG_TIMEOUT);
    assert_int_equal(behind.status, RG_CLOSED);
    assert_int_equal(c->nevents, 3);
    assert_int_equal(c->events[0], RG_UV_READY);
    assert_int_equal(c->events[1], FAILED_(RG_TIMEOUT));
    assert_int_equal(c->events[2], RG_UV_CLOSED);
    /* Connected again: a call well within its deadline. */
    c->nevents = 0;
    assert_int_equal(rg_uv_reconnect(&c->u), 0);
    assert_int_not_equal(rg_conn_call_argv(&c->u.conn, 1, ping, NULL, NULL, close_on_done, c), 0);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_string_equal(c->last, "RG_OK");
    assert_int_equal(c->events[c->nevents - 1], RG_UV_CLOSED);

    /* A listener that never answers: the TCP connect succeeds, HELLO does not. */
    int lport = 0;
    const int lfd = test_listen_loopback(&lport);
    assert_true(lfd >= 0);
    cfg = config(c, 3);
    cfg.connect_timeout_ms = 100;
    c->nevents = 0;
    rg_call_record held = {0};
    assert_int_equal(rg_uv_connect_tcp(&c->u, &loop, "127.0.0.1", lport, &cfg, on_event, c), 0);
    rg_conn_call_argv(&c->u.conn, 1, ping, NULL, NULL, rg_call_record_fn, &held);
    const double t1 = now_ms();
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_true(now_ms() - t1 < 900);
    /* No RG_UV_READY: the handshake never succeeded. */
    assert_int_equal(c->nevents, 2);
    assert_int_equal(c->events[0], FAILED_(RG_TIMEOUT));
    assert_int_equal(c->events[1], RG_UV_CLOSED);
    assert_true(held.done && held.status == RG_CLOSED);
    assert_non_null(strstr(held.error, "connect"));
    close(lfd);
    assert_int_equal(uv_loop_close(&loop), 0);
    free(c);
}

/* ---- SIGPIPE -------------------------------------------------------------------------------- */

static volatile sig_atomic_t sigpipes;

static void count_sigpipe(int sig) {
    (void)sig;
    sigpipes++;
}

/* Connects c to a loopback listener, then closes the listener's side and waits until the
 * client's socket is one every write fails with EPIPE (after the peer's reset), without running
 * the loop: the adapter's next write then meets a dead peer. */
static void connect_to_closed_peer(uvc *c, uv_loop_t *loop) {
    int lport = 0;
    const int lfd = test_listen_loopback(&lport);
    assert_true(lfd >= 0);
    rg_conn_config cfg = config(c, 2);
    c->nevents = 0;
    assert_int_equal(rg_uv_connect_tcp(&c->u, loop, "127.0.0.1", lport, &cfg, on_event, c), 0);
    while (c->nevents == 0) uv_run(loop, UV_RUN_ONCE);
    assert_int_equal(c->events[0], RG_UV_READY);
    const int peer = accept(lfd, NULL, NULL);
    assert_true(peer >= 0);
    close(peer);
    close(lfd);
    uv_os_fd_t fd;
    assert_int_equal(uv_fileno((uv_handle_t *)&c->u.h.stream, &fd), 0);
    int i = 0;
    while (!(send(fd, "x", 1, MSG_NOSIGNAL) < 0 && errno == EPIPE) && i++ < 200) usleep(5000);
    assert_true(i < 200);
}

static void sigpipe(void **state) {
    (void)state;
    uvc *c = calloc(1, sizeof *c);
    assert_non_null(c);
    uv_loop_t loop;
    uv_loop_init(&loop);
    const rg_view ping[] = {V("PING")};
    /* The default action: a SIGPIPE would end this test's process. */
    signal(SIGPIPE, SIG_DFL);
    connect_to_closed_peer(c, &loop);
    rg_call_record rec = {0};
    assert_int_not_equal(
        rg_conn_call_argv(&c->u.conn, 1, ping, NULL, NULL, rg_call_record_fn, &rec), 0);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_true(rec.done && rec.status == RG_CLOSED);
    assert_int_equal(c->events[1], FAILED_(RG_IO));
    assert_int_equal(c->events[c->nevents - 1], RG_UV_CLOSED);

    /* An application's own handler is left in place (and sees the signal). */
    signal(SIGPIPE, count_sigpipe);
    sigpipes = 0;
    connect_to_closed_peer(c, &loop);
    rg_call_record rec2 = {0};
    rg_conn_call_argv(&c->u.conn, 1, ping, NULL, NULL, rg_call_record_fn, &rec2);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_true(rec2.done && rec2.status == RG_CLOSED);
    struct sigaction now;
    sigaction(SIGPIPE, NULL, &now);
    assert_ptr_equal(now.sa_handler, count_sigpipe);
    assert_true(sigpipes > 0);
    signal(SIGPIPE, SIG_DFL);
    assert_int_equal(uv_loop_close(&loop), 0);
    free(c);
}

/* ---- the client-side cache ------------------------------------------------------------------ */

/* A typed client-side cache (rg_cache.h) on an rg_uv with automatic reconnects, RESP3 tracking:
 * a miss, a hit, a miss after another client's write (its invalidation read before a PING's
 * reply), then the connection killed by the server: after the reconnect the cache was flushed
 * (a miss with the value written meanwhile) and tracking is on again (another write, another
 * miss, not the stale hit a cache without tracking would give). */
enum { CACHE_STEPS = 8 };

typedef struct cache_run {
    fixture *f;
    uvc *c;
    test_conn other; /* the writer, blocking, on its own connection */
    rg_cache cache;
    redis_get_result g;
    redis_ping_result pong;
    char mem[1 << 16];
    char seen[CACHE_STEPS][16]; /* what each cached GET gave, in order */
    bool hit[CACHE_STEPS];
    int n, ready;
    rg_cache_track tracking; /* before the close */
} cache_run;

static void cache_write(cache_run *r, const char *value) {
    char reply[64];
    const char *const set[] = {"SET", "uvck", value};
    assert_int_equal(test_conn_command(&r->other, reply, sizeof reply, 3, set), 0);
    assert_string_equal(reply, "+OK");
}

static void cache_got(void *ud, const rg_call_done *d);
static void cache_pinged(void *ud, const rg_call_done *d);

/* A cached GET; its value is recorded by cache_got (inside the call for a hit). */
static void cache_read(cache_run *r) {
    const int at = r->n;
    const uint64_t id = redis_get_cached(&r->cache, V("uvck"), &r->g, cache_got, r);
    assert_int_not_equal(id, 0);
    r->hit[at] = id == RG_CACHE_HIT;
}

/* A round trip: what the server sent before its reply (an invalidation) is read by then. */
static void cache_ping(cache_run *r) {
    assert_int_not_equal(redis_ping_call(&r->c->u.conn, NULL, &r->pong, cache_pinged, r), 0);
}

static void cache_pinged(void *ud, const rg_call_done *d) {
    assert_int_equal(d->status, RG_OK);
    cache_read(ud);
}

static void cache_got(void *ud, const rg_call_done *d) {
    cache_run *r = ud;
    assert_int_equal(d->status, RG_OK);
    assert_true(r->n < CACHE_STEPS);
    snprintf(r->seen[r->n++], sizeof r->seen[0], "%.*s", (int)r->g.value.len,
             r->g.value.ptr ? r->g.value.ptr : "");
    switch (r->n) {
    case 1: cache_read(r); break; /* the same again: a hit */
    case 2:
        cache_write(r, "v2");
        cache_ping(r);
        break;
    case 3: {
        /* the server drops the connection; v3 is written while it is down */
        char reply[64];
        const char *const kill[] = {"CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes"};
        assert_int_equal(test_conn_command(&r->other, reply, sizeof reply, 6, kill), 0);
        assert_string_equal(reply, ":1");
        cache_write(r, "v3");
        break;
    }
    case 4:
        cache_write(r, "v4");
        cache_ping(r);
        break;
    default:
        r->tracking = rg_cache_tracking(&r->cache); /* (a close is a loss: off after it) */
        rg_uv_close(&r->c->u);
        break;
    }
}

static void cache_event(rg_uv *u, rg_uv_event ev, void *ud) {
    cache_run *r = ud;
    on_event(u, ev, r->c);
    if (ev != RG_UV_READY) return;
    if (++r->ready == 1) {
        cache_write(r, "v1");
        cache_read(r);
    } else {
        cache_read(r); /* after the reconnect */
    }
}

static void cached(void **state) {
    fixture *f = *state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    cache_run *r = calloc(1, sizeof *r);
    uvc *c = calloc(1, sizeof *c);
    assert_true(r && c);
    r->f = f;
    r->c = c;
    assert_int_equal(test_conn_open(&r->other, f->server.port), 0);
    const rg_cache_config kc = {.mem = r->mem, .mem_size = sizeof r->mem};
    assert_int_equal(rg_cache_init(&r->cache, &kc), RG_OK);
    rg_conn_config cfg = config(c, 3);
    cfg.on_push = NULL; /* (pubsub's, which counts pushes; the cache's hook comes first) */
    const rg_uv_options opt = {.reconnect = {5, 20, 50}};
    assert_int_equal(
        rg_uv_connect(&c->u, &loop, "127.0.0.1", f->server.port, &cfg, &opt, cache_event, r),
        RG_OK);
    assert_int_equal(rg_cache_attach(&r->cache, &c->u.conn), RG_OK);
    uv_run(&loop, UV_RUN_DEFAULT);
    const char *const want[] = {"v1", "v1", "v2", "v3", "v4"};
    const bool hit[] = {false, true, false, false, false};
    assert_int_equal(r->n, 5);
    for (int i = 0; i < 5; i++) {
        assert_string_equal(r->seen[i], want[i]);
        assert_int_equal(r->hit[i], hit[i]);
    }
    const rg_cache_stats st = rg_cache_stats_of(&r->cache);
    assert_int_equal(st.hits, 1);
    assert_true(st.flushes >= 1);       /* the loss */
    assert_true(st.invalidations >= 2); /* v2's and v4's writes */
    assert_int_equal(r->tracking, RG_CACHE_TRACK_ON);
    const int events[] = {RG_UV_READY, RG_UV_DISCONNECTED, RG_UV_RECONNECTING, RG_UV_READY,
                          RG_UV_CLOSED};
    assert_int_equal(c->nevents, 5);
    for (int i = 0; i < 5; i++) assert_int_equal(c->events[i], events[i]);
    rg_cache_free(&r->cache);
    test_conn_close(&r->other);
    assert_int_equal(uv_loop_close(&loop), 0);
    free(r);
    free(c);
}

/* ---- a 64 MiB reply through a 64 KiB input buffer ----------------------------------------- */

typedef struct big_get {
    uvc *c;
    const char *want;
    redis_get_result r;
    rg_status status;
    bool whole; /* the view held every byte, checked in the callback */
} big_get;

static void big_done(void *ud, const rg_call_done *d) {
    big_get *g = ud;
    g->status = d->status;
    g->whole = d->status == RG_OK && g->r.value.len == BIG_VALUE_LEN &&
               memcmp(g->r.value.ptr, g->want, BIG_VALUE_LEN) == 0;
    if (d->status == RG_OK) rg_uv_close(&g->c->u);
}

/* GET big on a new connection (max_reply 0: the default); returns the call's outcome. */
static big_get get_big(const fixture *f, const char *want, int protocol, size_t max_reply, uvc *c) {
    uv_loop_t loop;
    uv_loop_init(&loop);
    memset(c, 0, sizeof *c);
    rg_conn_config cfg = config(c, protocol);
    cfg.alloc = rg_conn_std_alloc;
    cfg.max_reply = max_reply;
    assert_int_equal(
        rg_uv_connect_tcp(&c->u, &loop, "127.0.0.1", f->server.port, &cfg, on_event, c), 0);
    big_get g = {c, want, {{NULL, 0}}, RG_OK, false};
    assert_int_not_equal(redis_get_call(&c->u.conn, V("big"), &g.r, big_done, &g), 0);
    const double t0 = now_ms();
    uv_run(&loop, UV_RUN_DEFAULT);
    if (max_reply == 0)
        printf("GET of 64 MiB through a 64 KiB input buffer (libuv), RESP%d: %.1f ms\n", protocol,
               now_ms() - t0);
    assert_int_equal(uv_loop_close(&loop), 0);
    assert_int_equal(c->events[c->nevents - 1], RG_UV_CLOSED);
    /* The grown buffer went back before RG_UV_CLOSED. */
    assert_ptr_equal(rg_conn_config_of(&c->u.conn)->in, c->in);
    return g;
}

static void big_reply(void **state) {
    const fixture *f = *state;
    char *v = big_value();
    uvc *c = calloc(1, sizeof *c);
    assert_true(v && c);
    assert_int_equal(big_value_set(f->server.port, "big", v), 0);
    for (int proto = 2; proto <= 3; proto++) {
        const big_get g = get_big(f, v, proto, 0, c);
        assert_int_equal(g.status, RG_OK);
        assert_true(g.whole);
    }
    const big_get g = get_big(f, v, 3, (size_t)1 << 20, c);
    assert_int_equal(g.status, RG_ERR_LIMIT);
    assert_int_equal(c->events[c->nevents - 2], FAILED_(RG_ERR_LIMIT));
    free(c);
    free(v);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(big_reply), cmocka_unit_test(pipelined),
        cmocka_unit_test(pubsub),    cmocka_unit_test(failures),
        cmocka_unit_test(reconnect), cmocka_unit_test(timeouts),
        cmocka_unit_test(sigpipe),   cmocka_unit_test(auto_reconnect),
        cmocka_unit_test(gives_up),  cmocka_unit_test(refused_auth),
        cmocka_unit_test(cached),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
