/* TLS and the blocking adapter's own reconnects together, against a real redis-server serving
 * TLS on certificates the test makes (tests/support/test_tls.h), killed (SIGKILL) and started
 * again on the same ports with the same certificates:
 * - killed in the middle of a pipeline of 20,000 INCRs (RESP3, on a connection subscribed to a
 *   channel, a pattern and a shard channel): every call completes exactly once (OK, or CLOSED
 *   with `written` telling), the adapter reconnects over a new TLS session (the server comes back
 *   during the second attempt's delay), the subscriptions are replayed and a publish of each
 *   after the restart arrives once; events DISCONNECTED, ATTEMPT 1, ATTEMPT 2, READY. The
 *   restarted server cannot resume the session (its ticket keys died with it): not reused;
 * - resumption on an automatic reconnect, with a server that stays up (CLIENT KILL ends the
 *   connection): the new session resumed the old one, the subscription replayed;
 * - a reconnect whose TLS handshake fails (a plain redis-server on the TLS port): the calls
 *   queued while down stay queued, the cause is "tls: ...", and the next attempt (TLS back) runs
 *   them; the attempts running out against it: GAVE_UP with the "tls: ..." cause, the queued
 *   call CLOSED and unwritten;
 * - a certificate that fails verification on reconnect (the server back with a certificate for
 *   another host) is not retried: GAVE_UP after the first attempt, RG_TLS_HOSTNAME.
 */
#include "redis_client.h"
#include "rg_blocking.h"
#include "rg_tls.h"
#include "test_redis.h"
#include "test_tls.h"

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

/* The server's arguments, kept to restart it on the same ports with the same (or other)
 * certificates. */
typedef struct fixture {
    test_certs certs;
    test_redis server;
    int tls_port;
    char port[16], cert[256], key[256], wrong[256], wrong_key[256], ca[256];
    const char *args[12], *wrong_args[12];
} fixture;

typedef struct client {
    rg_bconn b;
    char in[1 << 16], out[1 << 18], storage[1 << 12], subs[256];
    rg_call calls[NCALLS];
    fixture *f;
    uint32_t restart_at; /* ATTEMPT whose event restarts the TLS server (0: none) */
    test_redis *plain;   /* killed then (a plain server on the TLS port), when set */
    int pushes[RG_PUSH_KIND_COUNT];
    int nevents;
    rg_reconnect_event events[EVENTS];
    char causes[EVENTS][96];
} client;

static void on_push(void *ud, const rg_push *p) {
    client *c = ud;
    c->pushes[p->kind]++;
}

static void restart_tls(fixture *f) {
    assert_int_equal(test_redis_restart(&f->server, f->args), 0);
}

static void on_event(rg_bconn *b, const rg_reconnect_event *ev, void *ud) {
    client *c = ud;
    (void)b;
    if (c->nevents < EVENTS) {
        snprintf(c->causes[c->nevents], sizeof c->causes[0], "%.*s", (int)ev->cause.msg.len,
                 ev->cause.msg.ptr ? ev->cause.msg.ptr : "");
        c->events[c->nevents++] = *ev;
    }
    if (ev->what == RG_RECONNECT_ATTEMPT && ev->attempt == c->restart_at) {
        if (c->plain) test_redis_kill(c->plain);
        restart_tls(c->f);
        c->restart_at = 0;
    }
}

/* A TLS client of f, RESP3, with a registry, reconnecting up to attempts times after 5..40 ms. */
static client *open_client(fixture *f, uint32_t attempts, uint32_t queue, bool resume) {
    client *c = calloc(1, sizeof *c);
    assert_non_null(c);
    c->f = f;
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
                                .protocol = 3,
                                .subs = c->subs,
                                .subs_cap = sizeof c->subs,
                                .queue_calls = queue};
    const rg_tls_config tls = {.ca_file = f->ca, .resume = resume};
    const rg_bconn_options opt = {.connect_ms = 1000,
                                  .io_ms = 5000,
                                  .tls = &tls,
                                  .reconnect = {5, 40, attempts},
                                  .on_event = on_event,
                                  .event_ud = c};
    assert_int_equal(rg_bconn_connect(&c->b, "127.0.0.1", f->tls_port, &cfg, &opt), RG_OK);
    return c;
}

static void close_client(client *c) {
    rg_bconn_close(&c->b);
    free(c);
}

static uint64_t call_words(client *c, const char *words, rg_call_record *r) {
    rg_view argv[8];
    size_t n = 0;
    char copy[128];
    snprintf(copy, sizeof copy, "%s", words);
    for (char *save = NULL, *w = strtok_r(copy, " ", &save); w && n < 8;
         w = strtok_r(NULL, " ", &save))
        argv[n++] = (rg_view){w, strlen(w)};
    return rg_conn_call_argv(&c->b.conn, n, argv, NULL, NULL, rg_call_record_fn, r);
}

/* A command given as words, waited for; its status. */
static rg_status command(client *c, const char *words) {
    rg_call_record r = {0};
    const uint64_t id = call_words(c, words, &r);
    assert_int_not_equal(id, 0);
    assert_int_equal(rg_bconn_wait(&c->b, id), RG_OK);
    assert_true(r.done);
    return r.status;
}

/* A command on the server's plain port (the publisher, the admin): its rendered reply. */
static void admin(fixture *f, const char *words, char *reply, size_t cap) {
    test_conn a;
    const char *argv[8];
    size_t n = 0;
    char copy[128];
    snprintf(copy, sizeof copy, "%s", words);
    for (char *save = NULL, *w = strtok_r(copy, " ", &save); w && n < 8;
         w = strtok_r(NULL, " ", &save))
        argv[n++] = w;
    assert_int_equal(test_conn_open(&a, f->server.port), 0);
    assert_int_equal(test_conn_command(&a, reply, cap, n, argv), 0);
    test_conn_close(&a);
}

static void expect_events(const client *c, const rg_reconnect_what *want, size_t n) {
    for (int i = 0; i < c->nevents; i++)
        printf("event %d: what %d attempt %u cause %s\n", i, (int)c->events[i].what,
               (unsigned)c->events[i].attempt, c->causes[i]);
    assert_int_equal(c->nevents, (int)n);
    for (size_t i = 0; i < n; i++) assert_int_equal(c->events[i].what, want[i]);
}

static bool starts_with(const char *s, const char *prefix) {
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static void subscribe(client *c) {
    assert_int_equal(command(c, "SUBSCRIBE ch.a ch.b"), RG_OK);
    assert_int_equal(command(c, "PSUBSCRIBE pat.*"), RG_OK);
    assert_int_equal(command(c, "SSUBSCRIBE sh.a"), RG_OK);
    assert_int_equal(command(c, "UNSUBSCRIBE ch.b"), RG_OK);
    assert_int_equal(rg_conn_subscriptions(&c->b.conn), 3);
}

/* One message of each kind published on the plain port; c gets each once. */
static void publish_each_once(client *c) {
    char reply[64];
    memset(c->pushes, 0, sizeof c->pushes);
    admin(c->f, "PUBLISH ch.a one", reply, sizeof reply);
    assert_string_equal(reply, ":1");
    admin(c->f, "PUBLISH pat.x two", reply, sizeof reply);
    admin(c->f, "SPUBLISH sh.a three", reply, sizeof reply);
    admin(c->f, "PUBLISH ch.b not-subscribed", reply, sizeof reply);
    assert_string_equal(reply, ":0");
    for (int i = 0; i < 200 && c->pushes[RG_PUSH_SMESSAGE] == 0; i++)
        assert_int_equal(rg_bconn_poll(&c->b, 10), RG_OK);
    assert_int_equal(rg_bconn_poll(&c->b, 20), RG_OK); /* a duplicate would be here by now */
    assert_int_equal(c->pushes[RG_PUSH_MESSAGE], 1);
    assert_int_equal(c->pushes[RG_PUSH_PMESSAGE], 1);
    assert_int_equal(c->pushes[RG_PUSH_SMESSAGE], 1);
}

/* Polls until c saw the loss. */
static void see_loss(client *c) {
    rg_status st = RG_OK;
    for (int i = 0; i < 200 && st == RG_OK; i++) st = rg_bconn_poll(&c->b, 10);
    assert_int_not_equal(st, RG_OK);
    assert_true(rg_bconn_reconnecting(&c->b));
}

/* ---- killed mid-pipeline ------------------------------------------------------------------- */

static void killed_mid_pipeline(void **state) {
    fixture *f = *state;
    static tally t;
    static loss_call calls[LOSS_CALLS];
    client *c = open_client(f, 10, 0, true);
    subscribe(c);
    c->nevents = 0;
    const size_t queued = loss_pipeline(&c->b, &c->f->server, &t, calls);
    assert_int_equal(t.twice, 0);
    assert_int_equal(t.other, 0);
    assert_int_equal(t.ok + t.closed, queued);
    assert_true(t.ok >= LOSS_CALLS / 3 && t.closed > 0);
    printf("%zu answered, %zu closed (%zu of them written) at the kill\n", t.ok, t.closed,
           t.closed_written);
    c->restart_at = 2; /* back during the second attempt's delay */
    assert_int_equal(rg_bconn_wait(&c->b, 0), RG_OK);
    assert_false(rg_bconn_reconnecting(&c->b));
    assert_int_equal(command(c, "PING"), RG_OK);
    const rg_reconnect_what want[] = {RG_RECONNECT_DISCONNECTED, RG_RECONNECT_ATTEMPT,
                                      RG_RECONNECT_ATTEMPT, RG_RECONNECT_READY};
    expect_events(c, want, 4);
    assert_int_equal(c->events[0].cause.status, RG_CLOSED); /* EOF: truncated, or closed */
    assert_int_equal(c->events[2].attempt, 2);
    assert_int_equal(t.ok + t.closed, queued); /* nothing completed twice since */
    assert_int_equal(t.twice, 0);
    /* A new server: new ticket keys, nothing to resume. */
    assert_false(rg_bconn_tls_reused(&c->b));
    assert_int_equal(rg_conn_subscriptions(&c->b.conn), 3);
    publish_each_once(c);
    close_client(c);
}

/* ---- resumption, the server up -------------------------------------------------------------- */

static void resumed_on_reconnect(void **state) {
    fixture *f = *state;
    client *c = open_client(f, 10, 0, true);
    rg_call_record r = {0};
    redis_client_id_result id;
    const uint64_t call = redis_client_id_call(&c->b.conn, &id, rg_call_record_fn, &r);
    assert_int_not_equal(call, 0);
    assert_int_equal(rg_bconn_wait(&c->b, call), RG_OK);
    assert_false(rg_bconn_tls_reused(&c->b));
    subscribe(c);
    c->nevents = 0;
    char kill[64], reply[64];
    snprintf(kill, sizeof kill, "CLIENT KILL ID %lld", (long long)id.value);
    admin(f, kill, reply, sizeof reply);
    assert_string_equal(reply, ":1");
    see_loss(c);
    assert_int_equal(rg_bconn_wait(&c->b, 0), RG_OK);
    const rg_reconnect_what want[] = {RG_RECONNECT_DISCONNECTED, RG_RECONNECT_ATTEMPT,
                                      RG_RECONNECT_READY};
    expect_events(c, want, 3);
    assert_true(rg_bconn_tls_reused(&c->b));
    publish_each_once(c);
    close_client(c);
}

/* ---- a failed TLS handshake on reconnect ---------------------------------------------------- */

/* What TLS against redis-server's plain port fails with: RG_IO when the ClientHello holds a line
 * end (the server answers an inline command), else a handshake timeout (it waits for the rest). */
static bool not_tls(rg_status st) {
    return st == RG_IO || st == RG_TIMEOUT;
}

/* Kills the TLS server and starts a plain one on its TLS port (same directory). */
static void plain_on_tls_port(fixture *f, test_redis *plain) {
    test_redis_kill(&f->server);
    *plain = (test_redis){.port = f->tls_port};
    memcpy(plain->dir, f->server.dir, sizeof plain->dir);
    const char *const none[] = {NULL};
    assert_int_equal(test_redis_restart(plain, none), 0);
}

static void handshake_fails_then_works(void **state) {
    fixture *f = *state;
    client *c = open_client(f, 10, 3, false);
    assert_int_equal(command(c, "SET q 10"), RG_OK);
    c->nevents = 0;
    test_redis plain;
    plain_on_tls_port(f, &plain);
    see_loss(c);
    redis_incr_result r[2];
    rg_call_record rec[2];
    memset(rec, 0, sizeof rec);
    uint64_t id[2];
    for (int i = 0; i < 2; i++) {
        id[i] = redis_incr_call(&c->b.conn, V("q"), &r[i], rg_call_record_fn, &rec[i]);
        assert_int_not_equal(id[i], 0);
    }
    c->plain = &plain;
    c->restart_at = 3; /* attempts 1 and 2 meet the plain server */
    assert_int_equal(rg_bconn_wait(&c->b, id[1]), RG_OK);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(rec[i].status, RG_OK);
        assert_int_equal(r[i].value, i + 1); /* a fresh server: q starts at 0 */
    }
    const rg_reconnect_what want[] = {RG_RECONNECT_DISCONNECTED, RG_RECONNECT_ATTEMPT,
                                      RG_RECONNECT_ATTEMPT, RG_RECONNECT_ATTEMPT,
                                      RG_RECONNECT_READY};
    expect_events(c, want, 5);
    /* ATTEMPT n tells the failure of attempt n - 1 */
    assert_true(starts_with(c->causes[2], "tls: "));
    assert_true(starts_with(c->causes[3], "tls: "));
    assert_true(not_tls(c->events[2].cause.status));
    close_client(c);
}

static void gives_up_on_handshakes(void **state) {
    fixture *f = *state;
    client *c = open_client(f, 3, 3, false);
    assert_int_equal(command(c, "PING"), RG_OK);
    c->nevents = 0;
    test_redis plain;
    plain_on_tls_port(f, &plain);
    see_loss(c);
    rg_call_record rec = {0};
    const uint64_t id = redis_incr_call(&c->b.conn, V("q"), NULL, rg_call_record_fn, &rec);
    assert_int_not_equal(id, 0);
    assert_true(not_tls(rg_bconn_wait(&c->b, id))); /* the last attempt's */
    assert_true(rec.done && rec.status == RG_CLOSED && !rec.written);
    assert_non_null(strstr(rec.error, "gave up"));
    const rg_reconnect_what want[] = {RG_RECONNECT_DISCONNECTED, RG_RECONNECT_ATTEMPT,
                                      RG_RECONNECT_ATTEMPT, RG_RECONNECT_ATTEMPT,
                                      RG_RECONNECT_GAVE_UP};
    expect_events(c, want, 5);
    assert_true(starts_with(c->causes[4], "tls: "));
    const int cause = rg_bconn_tls_cause(&c->b);
    assert_true(cause == RG_TLS_NOT_TLS || cause == RG_TLS_TIMEOUT);
    assert_non_null(strstr(rg_bconn_error(&c->b).msg.ptr, "plain port"));
    assert_true(starts_with(rg_bconn_error(&c->b).msg.ptr, "tls: "));
    close_client(c);
    test_redis_kill(&plain);
    restart_tls(f);
}

/* ---- a verification failure on reconnect ---------------------------------------------------- */

static void verification_not_retried(void **state) {
    fixture *f = *state;
    client *c = open_client(f, 10, 3, false);
    assert_int_equal(command(c, "PING"), RG_OK);
    c->nevents = 0;
    test_redis_kill(&f->server);
    see_loss(c);
    assert_int_equal(test_redis_restart(&f->server, f->wrong_args), 0);
    rg_call_record rec = {0};
    const uint64_t id = redis_incr_call(&c->b.conn, V("q"), NULL, rg_call_record_fn, &rec);
    assert_int_not_equal(id, 0);
    assert_int_equal(rg_bconn_wait(&c->b, id), RG_REFUSED);
    assert_true(rec.done && rec.status == RG_CLOSED && !rec.written);
    const rg_reconnect_what want[] = {RG_RECONNECT_DISCONNECTED, RG_RECONNECT_ATTEMPT,
                                      RG_RECONNECT_GAVE_UP};
    expect_events(c, want, 3);
    assert_int_equal(c->events[2].attempt, 1);
    assert_int_equal(c->events[2].cause.status, RG_REFUSED);
    assert_true(starts_with(c->causes[2], "tls: "));
    assert_int_equal(rg_bconn_tls_cause(&c->b), RG_TLS_HOSTNAME);
    assert_false(rg_bconn_reconnecting(&c->b));
    assert_int_equal(rg_bconn_poll(&c->b, 1), RG_REFUSED); /* stays down */
    close_client(c);
    restart_tls(f);
}

static int setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    if (!f || test_certs_make(&f->certs) != 0) return -1;
    f->tls_port = test_free_port();
    snprintf(f->port, sizeof f->port, "%d", f->tls_port);
    snprintf(f->cert, sizeof f->cert, "%s/server.crt", f->certs.dir);
    snprintf(f->key, sizeof f->key, "%s/server.key", f->certs.dir);
    snprintf(f->wrong, sizeof f->wrong, "%s/wrong.crt", f->certs.dir);
    snprintf(f->wrong_key, sizeof f->wrong_key, "%s/wrong.key", f->certs.dir);
    snprintf(f->ca, sizeof f->ca, "%s/ca.crt", f->certs.dir);
    const char *const args[] = {"--tls-port",
                                f->port,
                                "--tls-cert-file",
                                f->cert,
                                "--tls-key-file",
                                f->key,
                                "--tls-ca-cert-file",
                                f->ca,
                                "--tls-auth-clients",
                                "no",
                                NULL};
    memcpy(f->args, args, sizeof args);
    memcpy(f->wrong_args, args, sizeof args);
    f->wrong_args[3] = f->wrong;
    f->wrong_args[5] = f->wrong_key;
    if (test_redis_start(&f->server, f->args) != 0) return -1;
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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(killed_mid_pipeline),        cmocka_unit_test(resumed_on_reconnect),
        cmocka_unit_test(handshake_fails_then_works), cmocka_unit_test(gives_up_on_handshakes),
        cmocka_unit_test(verification_not_retried),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
