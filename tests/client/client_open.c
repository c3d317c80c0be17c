/* Connections opened with a host and port alone (rg_bconn_open, rg_uv_open) against a real
 * redis-server: the engine's memory comes from the allocator with the default sizes and grows
 * under a pipeline deeper than the default ring, requests larger than the default output, a reply
 * larger than the default input and an LRANGE whose arrays outgrow the default storage, every
 * result checked; a host name resolves (blocking: "localhost"); a refused connect returns the
 * connection with its error; rg_uv_free works from a completion callback, from RG_UV_CLOSED's
 * event, before the loop ran and on a connection that opened nothing (the sanitizer build checks
 * nothing leaks). */
#include "redis_client.h"
#include "rg_blocking.h"
#include "rg_uv.h"
#include "test_redis.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

enum { KEYS = 1000, ELEMENTS = 3000, VALUE = 100, BIG = 1 << 20 };

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

/* The value of key i: VALUE bytes naming i. */
static void value_of(size_t i, char *v) {
    memset(v, 'a' + (int)(i % 26), VALUE);
    snprintf(v, VALUE, "%zu:", i);
    v[strlen(v)] = '-';
}

static void key_of(size_t i, char *k, size_t cap) {
    snprintf(k, cap, "open:%zu", i);
}

typedef struct checks {
    size_t ok, bad;
    size_t i; /* the key a GET's callback checks */
} checks;

static void get_checked(void *ud, const rg_call_done *d) {
    checks *k = ud;
    const redis_get_result *r = d->result;
    char v[VALUE];
    value_of(k->i++, v);
    const bool same =
        d->status == RG_OK && r->value.len == VALUE && !memcmp(r->value.ptr, v, VALUE);
    *(same ? &k->ok : &k->bad) += 1;
}

static void set_checked(void *ud, const rg_call_done *d) {
    checks *k = ud;
    *(d->status == RG_OK ? &k->ok : &k->bad) += 1;
}

/* KEYS SETs and as many GETs, queued at once on conn (the ring and output grow). */
static uint64_t queue_sets_gets(rg_conn *conn, checks *sets, checks *gets) {
    static redis_set_result sr[KEYS];
    static redis_get_result gr[KEYS];
    uint64_t last = 0;
    for (size_t i = 0; i < KEYS; i++) {
        char k[32], v[VALUE];
        key_of(i, k, sizeof k);
        value_of(i, v);
        assert_true(redis_set_call(conn, rg_cstr(k), (rg_view){v, VALUE}, NULL, &sr[i], set_checked,
                                   sets) != 0);
    }
    for (size_t i = 0; i < KEYS; i++) {
        char k[32];
        key_of(i, k, sizeof k);
        last = redis_get_call(conn, rg_cstr(k), &gr[i], get_checked, gets);
        assert_true(last != 0);
    }
    return last;
}

static void list_checked(void *ud, const rg_call_done *d) {
    checks *k = ud;
    const redis_lrange_result *r = d->result;
    if (d->status != RG_OK || r->value.count != ELEMENTS) {
        k->bad++;
        return;
    }
    for (size_t i = 0; i < ELEMENTS; i++) {
        char e[16];
        const int n = snprintf(e, sizeof e, "e%zu", i);
        *(r->value.items[i].len == (size_t)n && !memcmp(r->value.items[i].ptr, e, (size_t)n)
              ? &k->ok
              : &k->bad) += 1;
    }
}

static void blocking_open(void **state) {
    const test_redis *s = *state;
    rg_bconn *b = rg_bconn_open("localhost", s->port, NULL);
    assert_non_null(b);
    assert_int_equal(rg_bconn_error(b).status, RG_OK);
    checks sets = {0}, gets = {0}, list = {0};
    const uint64_t last = queue_sets_gets(&b->conn, &sets, &gets);
    assert_true(rg_conn_config_of(&b->conn)->ncalls >= 2 * KEYS);
    assert_int_equal(rg_bconn_wait(b, last), RG_OK);
    assert_int_equal(sets.ok, KEYS);
    assert_int_equal(gets.ok, KEYS);
    assert_int_equal(sets.bad + gets.bad, 0);
    /* an LRANGE of ELEMENTS: input and storage grow */
    static rg_view elems[ELEMENTS];
    static char text[ELEMENTS][16];
    for (size_t i = 0; i < ELEMENTS; i++) {
        snprintf(text[i], sizeof text[i], "e%zu", i);
        elems[i] = rg_cstr(text[i]);
    }
    redis_rpush_result pushed;
    redis_lrange_result range;
    rg_call_record rec = {0};
    redis_rpush_call(&b->conn, RG_LIT("open:list"), elems, ELEMENTS, &pushed, rg_call_record_fn,
                     &rec);
    const uint64_t id =
        redis_lrange_call(&b->conn, RG_LIT("open:list"), 0, -1, &range, list_checked, &list);
    assert_int_equal(rg_bconn_wait(b, id), RG_OK);
    assert_int_equal(rec.status, RG_OK);
    assert_int_equal(pushed.value, ELEMENTS);
    assert_int_equal(list.ok, ELEMENTS);
    assert_int_equal(list.bad, 0);
    assert_true(rg_conn_config_of(&b->conn)->storage_cap >= ELEMENTS * sizeof(rg_view));
    /* a 1 MiB value, up and down */
    char *big = malloc(BIG);
    for (size_t i = 0; i < BIG; i++) big[i] = (char)('A' + i % 23);
    redis_set_result sr;
    redis_get_result gr;
    redis_set_call(&b->conn, RG_LIT("open:big"), (rg_view){big, BIG}, NULL, &sr, NULL, NULL);
    const uint64_t g = redis_get_call(&b->conn, RG_LIT("open:big"), &gr, rg_call_record_fn, &rec);
    assert_true(g != 0);
    assert_int_equal(rg_bconn_wait(b, g), RG_OK);
    assert_int_equal(rec.status, RG_OK);
    assert_int_equal(gr.value.len, BIG);
    assert_memory_equal(gr.value.ptr, big, BIG);
    free(big);
    rg_bconn_free(b);
}

static void blocking_refused(void **state) {
    (void)state;
    const int port = test_free_port();
    assert_true(port > 0);
    rg_bconn *b = rg_bconn_open("127.0.0.1", port, NULL);
    assert_non_null(b);
    const rg_error e = rg_bconn_error(b);
    assert_int_equal(e.status, RG_REFUSED);
    assert_true(e.msg.len > 0);
    assert_int_equal(rg_conn_call_argv(&b->conn, 1, &RG_LIT("PING"), NULL, NULL, NULL, NULL), 0);
    rg_bconn_free(b);
    rg_bconn_free(NULL);
}

/* ---- libuv ---------------------------------------------------------------------------------- */

typedef struct uv_bed {
    checks sets, gets;
    int ready, failed, closed;
    rg_status why;
} uv_bed;

static void uv_event(rg_uv *u, rg_uv_event ev, void *ud) {
    uv_bed *t = ud;
    if (ev == RG_UV_READY) t->ready++;
    if (ev == RG_UV_FAILED) t->failed++, t->why = rg_uv_error(u).status;
    if (ev == RG_UV_CLOSED) t->closed++;
}

/* The last GET frees its connection from its own callback. */
static void last_get(void *ud, const rg_call_done *d) {
    rg_uv **u = ud;
    rg_uv_free(*u);
    (void)d;
}

/* Frees the connection from RG_UV_CLOSED's event. */
static void free_on_closed(rg_uv *u, rg_uv_event ev, void *ud) {
    uv_event(u, ev, ud);
    if (ev == RG_UV_CLOSED) rg_uv_free(u);
}

/* Frees the connection from RG_UV_FAILED's event (RG_UV_CLOSED still follows). */
static void free_on_failed(rg_uv *u, rg_uv_event ev, void *ud) {
    uv_event(u, ev, ud);
    if (ev == RG_UV_FAILED) rg_uv_free(u);
}

static void uv_open(void **state) {
    const test_redis *s = *state;
    uv_loop_t loop;
    assert_int_equal(uv_loop_init(&loop), 0);
    uv_bed t = {0};
    rg_uv *u = rg_uv_open(&loop, "127.0.0.1", s->port, NULL, uv_event, &t);
    assert_non_null(u);
    assert_int_equal(rg_uv_error(u).status, RG_OK);
    queue_sets_gets(&u->conn, &t.sets, &t.gets); /* before READY: they wait for the handshake */
    redis_get_result last;
    assert_true(redis_get_call(&u->conn, RG_LIT("open:0"), &last, last_get, &u) != 0);
    assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(t.ready, 1);
    assert_int_equal(t.sets.ok, KEYS);
    assert_int_equal(t.gets.ok, KEYS);
    assert_int_equal(t.sets.bad + t.gets.bad, 0);
    assert_int_equal(t.closed, 1);
    assert_int_equal(t.failed, 0);
    /* refused: the error is reported, then RG_UV_CLOSED, where the connection is freed */
    uv_bed r = {0};
    const int port = test_free_port();
    u = rg_uv_open(&loop, "127.0.0.1", port, NULL, free_on_closed, &r);
    assert_non_null(u);
    assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(r.failed, 1);
    assert_int_equal(r.why, RG_REFUSED);
    assert_int_equal(r.closed, 1);
    /* the same, freed from RG_UV_FAILED's event */
    uv_bed f = {0};
    u = rg_uv_open(&loop, "127.0.0.1", port, NULL, free_on_failed, &f);
    assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(f.failed, 1);
    assert_int_equal(f.closed, 1);
    /* freed before the loop ran: the handles close, RG_UV_CLOSED is still told, then it goes */
    uv_bed q = {0};
    u = rg_uv_open(&loop, "127.0.0.1", s->port, NULL, uv_event, &q);
    assert_true(redis_get_call(&u->conn, RG_LIT("open:0"), &last, NULL, NULL) != 0);
    rg_uv_free(u);
    assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(q.closed, 1);
    assert_int_equal(q.ready, 0);
    /* a config the engine refuses: told at once, nothing opened, its defaults freed at once */
    static const rg_limits too_deep = {.max_depth = 100000};
    const rg_conn_config bad = {.protocol = 3, .limits = &too_deep};
    const rg_uv_options opt = {.config = &bad};
    u = rg_uv_open(&loop, "127.0.0.1", s->port, &opt, uv_event, &q);
    assert_non_null(u);
    assert_int_equal(rg_uv_error(u).status, RG_INVALID);
    rg_uv_free(u);
    assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(q.closed, 1);
    assert_int_equal(uv_loop_close(&loop), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(blocking_open),
        cmocka_unit_test(blocking_refused),
        cmocka_unit_test(uv_open),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
