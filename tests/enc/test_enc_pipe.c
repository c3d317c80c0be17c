/* Pipelines (rg_pipe, rg_enc.h) and the generated C_pipe_write, C_try_encode and C_append
 * (specs/example.lua): appended requests are byte for byte what the separate C_encode calls write,
 * back to back; a borrowed buffer that is too small and invalid arguments are refused without a
 * byte appended; an owned buffer grows, on every path of the encoders (shared shapes, fixed words,
 * options); C_pipe_write writes at the pipe's end without adding the request; C_try_encode returns
 * the size it needs when cap is short, writing nothing. */
#include "example.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

enum { GUARD = 0x5a, CAP = 8192 };

/* A view of a string literal usable in static initializers (RG_LIT is a compound literal). */
#define V(s) \
    { s, sizeof(s) - 1 }

/* One request of each shape: fixed words (GET, SET without options), options, a repeated block,
 * a double. */
static const example_hset_data g_pairs[] = {{V("f1"), V("v1")}, {V("field-2"), V("value-2")}};
static const example_zadd_data g_scores[] = {{1.5, V("a")}, {-INFINITY, V("b")}};
static const example_set_opts g_set_opts = {
    .condition = EXAMPLE_SET_CONDITION_NX,
    .expiration = {.kind = EXAMPLE_SET_EXPIRATION_SECONDS, .seconds = 60}};

static size_t encode_all(char *dst, size_t cap) {
    size_t n = 0;
    n += example_get_encode(dst + n, cap - n, RG_LIT("key"));
    n += example_set_encode(dst + n, cap - n, RG_LIT("k"), RG_LIT("v"), NULL);
    n += example_set_encode(dst + n, cap - n, RG_LIT("lock"), RG_LIT("me"), &g_set_opts);
    n += example_hset_encode(dst + n, cap - n, RG_LIT("h"), g_pairs, 2);
    n += example_zadd_encode(dst + n, cap - n, RG_LIT("z"), g_scores, 2, NULL);
    return n;
}

/* The same requests appended; returns how many appends succeeded. */
static size_t append_all(rg_pipe *p) {
    size_t ok = 0;
    ok += example_get_append(p, RG_LIT("key")) > 0;
    ok += example_set_append(p, RG_LIT("k"), RG_LIT("v"), NULL) > 0;
    ok += example_set_append(p, RG_LIT("lock"), RG_LIT("me"), &g_set_opts) > 0;
    ok += example_hset_append(p, RG_LIT("h"), g_pairs, 2) > 0;
    ok += example_zadd_append(p, RG_LIT("z"), g_scores, 2, NULL) > 0;
    return ok;
}

static void appends_are_the_encoders_bytes(void **state) {
    (void)state;
    static char want[CAP], buf[CAP];
    const size_t n = encode_all(want, CAP);
    assert_true(n > 0);
    rg_pipe p;
    rg_pipe_init(&p, buf, CAP);
    assert_int_equal(append_all(&p), 5);
    assert_int_equal(p.count, 5);
    assert_int_equal(p.len, n);
    assert_memory_equal(buf, want, n);
    /* reset keeps the buffer: the same requests again from its start. */
    rg_pipe_reset(&p);
    assert_int_equal(p.len + p.count, 0);
    assert_int_equal(append_all(&p), 5);
    assert_ptr_equal(p.buf, buf);
    assert_memory_equal(buf, want, n);
}

static void try_encode_returns_the_size_it_needs(void **state) {
    (void)state;
    char buf[64];
    memset(buf, GUARD, sizeof buf);
    const size_t n = example_set_size(RG_LIT("lock"), RG_LIT("me"), &g_set_opts);
    assert_true(n > 0 && n < sizeof buf);
    /* Short by one byte: the size, nothing written; a size above cap is how it says so. */
    assert_int_equal(example_set_try_encode(buf, n - 1, RG_LIT("lock"), RG_LIT("me"), &g_set_opts),
                     n);
    for (size_t i = 0; i < sizeof buf; i++) assert_int_equal((unsigned char)buf[i], GUARD);
    assert_int_equal(example_set_encode(buf, n - 1, RG_LIT("lock"), RG_LIT("me"), &g_set_opts), 0);
    /* The fixed-words path (no options) says the same. */
    const size_t m = example_set_size(RG_LIT("k"), RG_LIT("v"), NULL);
    assert_int_equal(example_set_try_encode(buf, 0, RG_LIT("k"), RG_LIT("v"), NULL), m);
    assert_int_equal(example_set_try_encode(buf, m, RG_LIT("k"), RG_LIT("v"), NULL), m);
    assert_memory_equal(buf, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n", m);
}

static void borrowed_buffer_refuses_what_does_not_fit(void **state) {
    (void)state;
    static char want[CAP], buf[CAP];
    const size_t n = encode_all(want, CAP);
    const size_t last = example_zadd_size(RG_LIT("z"), g_scores, 2, NULL);
    /* Room for all but the last request, less one byte. */
    memset(buf, GUARD, sizeof buf);
    rg_pipe p;
    rg_pipe_init(&p, buf, n - 1);
    assert_int_equal(append_all(&p), 4);
    assert_int_equal(p.count, 4);
    assert_int_equal(p.len, n - last);
    assert_memory_equal(buf, want, n - last);
    for (size_t i = n - last; i < sizeof buf; i++) assert_int_equal((unsigned char)buf[i], GUARD);
    assert_false(rg_pipe_reserve(&p, last));
    /* Exactly enough: all five. */
    rg_pipe_init(&p, buf, n);
    assert_int_equal(append_all(&p), 5);
    assert_int_equal(p.len, n);
}

static void invalid_arguments_append_nothing(void **state) {
    (void)state;
    static char buf[CAP];
    memset(buf, GUARD, sizeof buf);
    rg_pipe p;
    rg_pipe_init(&p, buf, CAP);
    const example_zadd_data nan_score[] = {{NAN, RG_LIT("m")}};
    assert_int_equal(example_get_append(&p, ((rg_view){NULL, 3})), 0);
    assert_int_equal(example_set_append(&p, RG_LIT("k"), ((rg_view){NULL, 1}), NULL), 0);
    assert_int_equal(example_set_append(&p, RG_LIT("k"), ((rg_view){NULL, 1}), &g_set_opts), 0);
    assert_int_equal(example_hset_append(&p, RG_LIT("h"), NULL, 2), 0);
    assert_int_equal(example_hset_append(&p, RG_LIT("h"), g_pairs, 0), 0);
    assert_int_equal(example_zadd_append(&p, RG_LIT("z"), nan_score, 1, NULL), 0);
    assert_int_equal(rg_pipe_append_argv(&p, 1, &(rg_view){NULL, 2}), 0);
    assert_int_equal(p.len + p.count, 0);
    for (size_t i = 0; i < sizeof buf; i++) assert_int_equal((unsigned char)buf[i], GUARD);
    /* An owned pipe neither: no growth for a request that is not one. */
    rg_pipe q;
    assert_true(rg_pipe_init_owned(&q, 0));
    const size_t cap = q.cap;
    assert_int_equal(example_zadd_append(&q, RG_LIT("z"), nan_score, 1, NULL), 0);
    assert_int_equal(q.len + q.count, 0);
    assert_int_equal(q.cap, cap);
    rg_pipe_free(&q);
}

static void owned_buffer_grows(void **state) {
    (void)state;
    enum { BIG = 5000, ROUNDS = 300 };
    char *value = malloc(BIG);
    char *want = malloc(BIG + 64);
    assert_true(value && want);
    memset(value, 'x', BIG);
    const rg_view v = {value, BIG};
    const size_t n = example_set_encode(want, BIG + 64, RG_LIT("big"), v, NULL);
    assert_true(n > BIG);
    rg_pipe p;
    assert_true(rg_pipe_init_owned(&p, 1));
    assert_true(p.owned && p.cap >= 1);
    for (size_t i = 0; i < ROUNDS; i++) {
        assert_int_equal(example_set_append(&p, RG_LIT("big"), v, NULL), n);
    }
    assert_int_equal(p.count, ROUNDS);
    assert_int_equal(p.len, ROUNDS * n);
    assert_true(p.cap >= p.len);
    for (size_t i = 0; i < ROUNDS; i++) assert_memory_equal(p.buf + i * n, want, n);
    /* A size that would wrap is refused, the pipe unchanged. */
    const size_t len = p.len;
    assert_false(rg_pipe_reserve(&p, SIZE_MAX));
    assert_int_equal(p.len, len);
    rg_pipe_free(&p);
    assert_null(p.buf);
    assert_int_equal(p.cap + p.len + p.count, 0);
    free(value);
    free(want);
}

/* Every path (GET's shared shape, SET's fixed words and options, HSET's pairs, ZADD's doubles)
 * grows an owned pipe from its smallest buffer: the bytes are the encoders', request after request.
 */
static void every_path_grows_an_owned_pipe(void **state) {
    (void)state;
    enum { ROUNDS = 200 };
    static char want[CAP];
    const size_t n = encode_all(want, CAP);
    rg_pipe p;
    assert_true(rg_pipe_init_owned(&p, 1));
    const size_t cap = p.cap;
    assert_true(cap < n);
    for (size_t i = 0; i < ROUNDS; i++) assert_int_equal(append_all(&p), 5);
    assert_true(p.cap > cap);
    assert_int_equal(p.count, 5 * ROUNDS);
    assert_int_equal(p.len, n * ROUNDS);
    for (size_t i = 0; i < ROUNDS; i++) assert_memory_equal(p.buf + i * n, want, n);
    rg_pipe_free(&p);
}

/* C_pipe_write, what the others wrap: writes at the end, grows an owned pipe, adds nothing (the
 * caller commits); short on a borrowed pipe, it returns the size and writes nothing. */
static void pipe_write_writes_without_adding(void **state) {
    (void)state;
    static char buf[CAP];
    char want[64];
    const size_t n =
        example_set_encode(want, sizeof want, RG_LIT("lock"), RG_LIT("me"), &g_set_opts);
    assert_true(n > 0);
    memset(buf, GUARD, sizeof buf);
    rg_pipe p;
    rg_pipe_init(&p, buf, CAP);
    const size_t at = example_get_append(&p, RG_LIT("key"));
    assert_true(at > 0);
    assert_int_equal(example_set_pipe_write(&p, RG_LIT("lock"), RG_LIT("me"), &g_set_opts), n);
    assert_int_equal(p.len, at);
    assert_int_equal(p.count, 1);
    assert_memory_equal(buf + at, want, n);
    assert_int_equal(rg_pipe_commit(&p, n), n);
    assert_int_equal(p.count, 2);
    /* Short by one byte: nothing written past the end. */
    memset(buf, GUARD, sizeof buf);
    rg_pipe_init(&p, buf, n - 1);
    assert_int_equal(example_set_pipe_write(&p, RG_LIT("lock"), RG_LIT("me"), &g_set_opts), n);
    assert_int_equal(p.len + p.count, 0);
    for (size_t i = 0; i < sizeof buf; i++) assert_int_equal((unsigned char)buf[i], GUARD);
    /* An owned pipe with no room left grows first. */
    rg_pipe q;
    assert_true(rg_pipe_init_owned(&q, 1));
    q.len = q.cap; /* as if full of requests */
    const size_t full = q.cap;
    assert_int_equal(example_set_pipe_write(&q, RG_LIT("lock"), RG_LIT("me"), &g_set_opts), n);
    assert_true(q.cap >= full + n);
    assert_int_equal(q.len, full);
    assert_memory_equal(q.buf + full, want, n);
    rg_pipe_free(&q);
}

static void append_argv_is_rg_argv_encode(void **state) {
    (void)state;
    static char want[CAP], buf[CAP];
    const rg_view argv[] = {RG_LIT("HSET"), RG_LIT("h"), RG_LIT("f1"), RG_LIT("v1")};
    const size_t n = rg_argv_encode(want, CAP, 4, argv);
    rg_pipe p;
    rg_pipe_init(&p, buf, CAP);
    assert_int_equal(rg_pipe_append_argv(&p, 4, argv), n);
    assert_int_equal(example_hset_append(&p, RG_LIT("h"), g_pairs, 1), n);
    assert_int_equal(p.count, 2);
    assert_memory_equal(buf, want, n);
    assert_memory_equal(buf + n, want, n);
    rg_pipe_init(&p, buf, n - 1);
    assert_int_equal(rg_pipe_append_argv(&p, 4, argv), 0);
    assert_int_equal(p.len + p.count, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(appends_are_the_encoders_bytes),
        cmocka_unit_test(try_encode_returns_the_size_it_needs),
        cmocka_unit_test(borrowed_buffer_refuses_what_does_not_fit),
        cmocka_unit_test(invalid_arguments_append_nothing),
        cmocka_unit_test(owned_buffer_grows),
        cmocka_unit_test(every_path_grows_an_owned_pipe),
        cmocka_unit_test(pipe_write_writes_without_adding),
        cmocka_unit_test(append_argv_is_rg_argv_encode),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
