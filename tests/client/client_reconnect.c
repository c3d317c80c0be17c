/* Reconnects done by the blocking adapter (rg_bconn_connect with a reconnect policy) against a
 * real redis-server that the test kills (SIGKILL) and starts again on the same port:
 * - killed in the middle of a pipeline, RESP2 and RESP3: every call completes exactly once (OK,
 *   or CLOSED with `written` telling whether it left), the adapter reconnects by itself (the
 *   server comes back during the second attempt's delay), the engine replays SUBSCRIBE,
 *   PSUBSCRIBE and SSUBSCRIBE after the connect sequence, and one publish of each after the
 *   restart arrives exactly once; events DISCONNECTED, ATTEMPT 1, ATTEMPT 2, READY;
 * - calls made while down: refused by default; with queue_calls 3 three are queued and the fourth
 *   refused, and the three run after the reconnect, in order;
 * - the server gone for good: ATTEMPT 1..3 then GAVE_UP, a call queued while down completes
 *   RG_CLOSED, unwritten, once;
 * - the server back with another password: the refused AUTH ends the reconnect after one
 *   attempt (GAVE_UP, RG_REFUSED), no loop;
 * - CLIENT TRACKING (BCAST) replayed: a write after the reconnect is invalidated. */
#include "redis_client.h"
#include "rg_blocking.h"
#include "test_redis.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "loss_pipeline.h"

#define V(s) ((rg_view){(s), sizeof(s) - 1})

enum { NCALLS = 1024, EVENTS = 16 };

typedef struct client {
    rg_bconn b;
    char in[1 << 16], out[1 << 18], storage[1 << 12], subs[256];
    rg_call calls[NCALLS];
    test_redis *server;
    const char *const *restart_args; /* restarted at ATTEMPT 2 when set */
    int pushes[RG_PUSH_KIND_COUNT];
    int nevents;
    rg_reconnect_event events[EVENTS];
    rg_status causes[EVENTS];
} client;

static void on_push(void *ud, const rg_push *p) {
    client *c = ud;
    c->pushes[p->kind]++;
}

static void on_event(rg_bconn *b, const rg_reconnect_event *ev, void *ud) {
    client *c = ud;
    (void)b;
    if (c->nevents < EVENTS) {
        c->causes[c->nevents] = ev->cause.status;
        c->events[c->nevents++] = *ev;
    }
    if (ev->what == RG_RECONNECT_ATTEMPT && ev->attempt == 2 && c->restart_args) {
        assert_int_equal(test_redis_restart(c->server, c->restart_args), 0);
        c->restart_args = NULL;
    }
}

static const char *const NO_ARGS[] = {NULL};

/* A client of s with a registry, reconnecting up to attempts times after 5..40 ms. */
static client *open_client(test_redis *s, int protocol, uint32_t attempts, uint32_t queue) {
    client *c = calloc(1, sizeof *c);
    assert_non_null(c);
    c->server = s;
    const rg_conn_config cfg = {.in = c->in,
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
                                .subs = c->subs,
                                .subs_cap = sizeof c->subs,
                                .queue_calls = queue};
    const rg_bconn_options opt = {.connect_ms = 1000,
                                  .io_ms = 5000,
                                  .reconnect = {5, 40, attempts},
                                  .on_event = on_event,
                                  .event_ud = c};
    assert_int_equal(rg_bconn_connect(&c->b, "127.0.0.1", s->port, &cfg, &opt), RG_OK);
    return c;
}

static void close_client(client *c) {
    rg_bconn_close(&c->b);
    free(c);
}

/* A command given as words, waited for; its record. */
static rg_call_record command(client *c, const char *words) {
    rg_view argv[8];
    size_t n = 0;
    char copy[128];
    snprintf(copy, sizeof copy, "%s", words);
    for (char *save = NULL, *w = strtok_r(copy, " ", &save); w && n < 8;
         w = strtok_r(NULL, " ", &save))
        argv[n++] = (rg_view){w, strlen(w)};
    rg_call_record r = {0};
    const uint64_t id = rg_conn_call_argv(&c->b.conn, n, argv, NULL, NULL, rg_call_record_fn, &r);
    assert_int_not_equal(id, 0);
    assert_int_equal(rg_bconn_wait(&c->b, id), RG_OK);
    assert_true(r.done);
    return r;
}

static void expect_events(const client *c, const rg_reconnect_what *want, size_t n) {
    assert_int_equal(c->nevents, (int)n);
    for (size_t i = 0; i < n; i++) assert_int_equal(c->events[i].what, want[i]);
}

/* ---- killed mid-pipeline ------------------------------------------------------------------- */

static void subscribe(client *c) {
    assert_int_equal(command(c, "SUBSCRIBE ch.a ch.b").status, RG_OK);
    assert_int_equal(command(c, "PSUBSCRIBE pat.*").status, RG_OK);
    assert_int_equal(command(c, "SSUBSCRIBE sh.a").status, RG_OK);
    assert_int_equal(command(c, "UNSUBSCRIBE ch.b").status, RG_OK);
    assert_int_equal(rg_conn_subscriptions(&c->b.conn), 3);
}

/* Publishes one message of each kind from another connection; c gets each once. */
static void publish_each_once(client *c, test_redis *s) {
    client *p = open_client(s, 3, 0, 0);
    memset(c->pushes, 0, sizeof c->pushes);
    assert_int_equal(command(p, "PUBLISH ch.a one").status, RG_OK);
    assert_int_equal(command(p, "PUBLISH pat.x two").status, RG_OK);
    assert_int_equal(command(p, "SPUBLISH sh.a three").status, RG_OK);
    assert_int_equal(command(p, "PUBLISH ch.b not-subscribed").status, RG_OK);
    for (int i = 0; i < 200 && c->pushes[RG_PUSH_SMESSAGE] == 0; i++)
        assert_int_equal(rg_bconn_poll(&c->b, 10), RG_OK);
    assert_int_equal(rg_bconn_poll(&c->b, 20), RG_OK); /* a duplicate would be here by now */
    assert_int_equal(c->pushes[RG_PUSH_MESSAGE], 1);
    assert_int_equal(c->pushes[RG_PUSH_PMESSAGE], 1);
    assert_int_equal(c->pushes[RG_PUSH_SMESSAGE], 1);
    close_client(p);
}

static void killed_mid_pipeline(void **state) {
    test_redis *s = *state;
    static tally t;
    static loss_call calls[LOSS_CALLS];
    for (int proto = 2; proto <= 3; proto++) {
        /* In RESP2 a subscribed connection takes no INCR: the subscriber is another one. */
        client *c = open_client(s, proto, 10, 0), *sub = open_client(s, proto, 10, 0);
        subscribe(sub);
        assert_int_equal(command(c, "PING").status, RG_OK); /* READY told */
        memset(&t, 0, sizeof t);
        c->nevents = sub->nevents = 0;
        const size_t queued = loss_pipeline(&c->b, s, &t, calls);
        assert_true(rg_bconn_reconnecting(&c->b));
        /* Down: refused at once (no queue configured). */
        rg_call_record refused = {0};
        assert_int_equal(redis_incr_call(&c->b.conn, V("n"), NULL, rg_call_record_fn, &refused), 0);
        /* Every call completed exactly once: answered, or closed. */
        assert_int_equal(t.twice, 0);
        assert_int_equal(t.other, 0);
        assert_int_equal(t.ok + t.closed, queued);
        assert_true(t.ok >= LOSS_CALLS / 3 && t.closed > 0);
        printf("RESP%d: %zu answered, %zu closed (%zu of them written) at the kill\n", proto, t.ok,
               t.closed, t.closed_written);
        /* The server comes back during the second attempt's delay; wait(0) rides the reconnect
         * until the socket is back (and the replayed subscribes answered: see sub below). */
        c->restart_args = NO_ARGS;
        assert_int_equal(rg_bconn_wait(&c->b, 0), RG_OK);
        assert_false(rg_bconn_reconnecting(&c->b));
        assert_int_equal(command(c, "INCR n").status, RG_OK); /* READY: HELLO was answered */
        const rg_reconnect_what want[] = {RG_RECONNECT_DISCONNECTED, RG_RECONNECT_ATTEMPT,
                                          RG_RECONNECT_ATTEMPT, RG_RECONNECT_READY};
        expect_events(c, want, 4);
        assert_true(c->causes[0] == RG_CLOSED || c->causes[0] == RG_IO);
        assert_int_equal(c->events[2].attempt, 2);
        assert_true(c->events[1].delay_ms <= 5 && c->events[2].delay_ms <= 10);
        assert_int_equal(t.ok + t.closed, queued); /* nothing completed twice since */
        assert_int_equal(t.twice, 0);
        /* The subscriber sees the loss, reconnects at its first attempt and replays. */
        rg_status st = RG_OK;
        for (int i = 0; i < 100 && st == RG_OK; i++) st = rg_bconn_poll(&sub->b, 10);
        assert_int_not_equal(st, RG_OK);
        assert_int_equal(rg_bconn_wait(&sub->b, 0), RG_OK);
        const rg_reconnect_what once[] = {RG_RECONNECT_DISCONNECTED, RG_RECONNECT_ATTEMPT,
                                          RG_RECONNECT_READY};
        expect_events(sub, once, 3);
        publish_each_once(sub, s);
        close_client(sub);
        close_client(c);
    }
}

/* ---- calls made while down ----------------------------------------------------------------- */

/* Kills the server and polls until c saw the loss. */
static void lose(client *c, test_redis *s) {
    test_redis_kill(s);
    rg_status st = RG_OK;
    for (int i = 0; i < 100 && st == RG_OK; i++) st = rg_bconn_poll(&c->b, 10);
    assert_int_not_equal(st, RG_OK);
    assert_true(rg_bconn_reconnecting(&c->b));
}

static void queued_while_down(void **state) {
    test_redis *s = *state;
    client *c = open_client(s, 3, 20, 3);
    assert_int_equal(command(c, "SET q 10").status, RG_OK);
    lose(c, s);
    redis_incr_result r[4];
    rg_call_record rec[4];
    memset(rec, 0, sizeof rec);
    uint64_t id[4];
    for (int i = 0; i < 4; i++)
        id[i] = redis_incr_call(&c->b.conn, V("q"), &r[i], rg_call_record_fn, &rec[i]);
    assert_true(id[0] && id[1] && id[2]);
    assert_int_equal(id[3], 0); /* past the bound */
    assert_int_equal(test_redis_restart(s, NO_ARGS), 0);
    assert_int_equal(rg_bconn_wait(&c->b, id[2]), RG_OK);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(rec[i].status, RG_OK);
        assert_int_equal(r[i].value, i + 1); /* a fresh server: q starts at 0 */
    }
    assert_false(rec[3].done);
    close_client(c);
}

/* ---- giving up ------------------------------------------------------------------------------ */

static void gives_up(void **state) {
    test_redis *s = *state;
    client *c = open_client(s, 3, 3, 2);
    assert_int_equal(command(c, "PING").status, RG_OK);
    c->nevents = 0;
    lose(c, s);
    rg_call_record rec = {0};
    const uint64_t id = redis_incr_call(&c->b.conn, V("q"), NULL, rg_call_record_fn, &rec);
    assert_int_not_equal(id, 0);
    assert_int_equal(rg_bconn_wait(&c->b, id), RG_REFUSED); /* the last attempt's error */
    assert_true(rec.done && rec.status == RG_CLOSED && !rec.written);
    assert_non_null(strstr(rec.error, "gave up"));
    const rg_reconnect_what want[] = {RG_RECONNECT_DISCONNECTED, RG_RECONNECT_ATTEMPT,
                                      RG_RECONNECT_ATTEMPT, RG_RECONNECT_ATTEMPT,
                                      RG_RECONNECT_GAVE_UP};
    expect_events(c, want, 5);
    assert_int_equal(c->events[4].attempt, 3);
    assert_int_equal(c->causes[4], RG_REFUSED);
    assert_false(rg_bconn_reconnecting(&c->b));
    assert_int_equal(rg_bconn_poll(&c->b, 1), RG_REFUSED); /* stays down */
    assert_int_equal(rg_bconn_wait(&c->b, 0), RG_REFUSED);
    assert_false(rg_bconn_reconnecting(&c->b));
    assert_int_equal(c->nevents, 5);
    close_client(c);
    assert_int_equal(test_redis_restart(s, NO_ARGS), 0);
}

/* ---- a refused AUTH ------------------------------------------------------------------------- */

static void refused_auth_does_not_loop(void **state) {
    test_redis *s = *state;
    client *c = open_client(s, 3, 10, 0);
    assert_int_equal(command(c, "PING").status, RG_OK);
    c->nevents = 0;
    lose(c, s);
    /* Back, with a password the client does not know. */
    assert_int_equal(test_redis_restart(s, NO_ARGS), 0);
    test_conn admin;
    char reply[64];
    assert_int_equal(test_conn_open(&admin, s->port), 0);
    const char *const set[] = {"CONFIG", "SET", "requirepass", "another"};
    assert_int_equal(test_conn_command(&admin, reply, sizeof reply, 4, set), 0);
    assert_string_equal(reply, "+OK");
    test_conn_close(&admin);
    rg_status st = RG_OK;
    for (int i = 0; i < 100 && st == RG_OK; i++) st = rg_bconn_poll(&c->b, 10);
    assert_int_equal(st, RG_REFUSED);
    const rg_reconnect_what want[] = {RG_RECONNECT_DISCONNECTED, RG_RECONNECT_ATTEMPT,
                                      RG_RECONNECT_GAVE_UP};
    expect_events(c, want, 3);
    assert_int_equal(c->events[2].attempt, 1);
    assert_int_equal(c->causes[2], RG_REFUSED);
    assert_false(rg_bconn_reconnecting(&c->b));
    close_client(c);
    assert_int_equal(test_redis_restart(s, NO_ARGS), 0);
}

/* ---- client-side caching -------------------------------------------------------------------- */

static void tracking_replayed(void **state) {
    test_redis *s = *state;
    client *c = open_client(s, 3, 20, 0), *o = open_client(s, 3, 0, 0);
    assert_int_equal(command(c, "CLIENT TRACKING on BCAST PREFIX tk:").status, RG_OK);
    lose(c, s);
    assert_int_equal(c->pushes[RG_PUSH_INVALIDATE], 1); /* the loss's flush-all */
    assert_int_equal(test_redis_restart(s, NO_ARGS), 0);
    assert_int_equal(rg_bconn_wait(&c->b, 0), RG_OK);
    assert_int_equal(command(c, "PING").status, RG_OK); /* after the replayed CLIENT TRACKING */
    rg_bconn_close(&o->b);
    free(o);
    o = open_client(s, 3, 0, 0);
    assert_int_equal(command(o, "SET tk:1 v").status, RG_OK);
    for (int i = 0; i < 200 && c->pushes[RG_PUSH_INVALIDATE] < 2; i++)
        assert_int_equal(rg_bconn_poll(&c->b, 10), RG_OK);
    assert_int_equal(c->pushes[RG_PUSH_INVALIDATE], 2); /* BCAST: tracked again */
    close_client(o);
    close_client(c);
}

static int setup(void **state) {
    test_redis *s = calloc(1, sizeof *s);
    if (!s || test_redis_start(s, NULL) != 0) return -1;
    *state = s;
    return 0;
}

static int teardown(void **state) {
    test_redis_stop(*state);
    free(*state);
    return 0;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(killed_mid_pipeline),
        cmocka_unit_test(queued_while_down),
        cmocka_unit_test(gives_up),
        cmocka_unit_test(refused_auth_does_not_loop),
        cmocka_unit_test(tracking_replayed),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
