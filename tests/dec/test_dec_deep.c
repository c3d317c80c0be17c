/* Values nested deeper than the reader's inline RG_MAX_DEPTH frames, read with frames the caller
 * lends (rg_reader_set_stack): every entry point (rg_next, rg_next_batch, rg_feed, rg_feed_inline,
 * pausing or not), whole and byte by byte, against the event checker of declog.c; the depth limit
 * exactly and one past it; the arguments it refuses; no allocation. */
#include "declog.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* Ways to open one level around an inner value, and what follows the inner value in it: siblings
 * before and after the deep child, so that the frames past the inline ones keep their counts
 * while the reader goes down and comes back (and the fast path takes over again). */
static const struct {
    const char *open, *close;
} levels[] = {
    {"*2\r\n", "$1\r\nx\r\n"},  {"%1\r\n+k\r\n", ""},      {"~2\r\n:7\r\n", ""},
    {"*?\r\n", ":2\r\n.\r\n"},  {">2\r\n", "+s\r\n"},      {"%?\r\n+k\r\n", ".\r\n"},
    {"|1\r\n+a\r\n", ":0\r\n"}, {"*3\r\n:1\r\n", "_\r\n"}, {"~?\r\n", ".\r\n"},
};
#define NLEVELS (sizeof levels / sizeof *levels)

/* d levels around ":1\r\n", starting at pattern rot (levels of one pattern only when one is set);
 * *bad is where level limit + 1 opens. */
static char *nest(size_t d, size_t rot, bool one, size_t limit, size_t *n, uint64_t *bad) {
    dl_str s = {0};
    for (size_t i = 0; i < d; i++) {
        if (i == limit) *bad = s.len;
        const char *o = levels[one ? rot : (i + rot) % NLEVELS].open;
        dl_str_add(&s, o, strlen(o));
    }
    dl_str_add(&s, ":1\r\n", 4);
    for (size_t i = d; i-- > 0;) {
        const char *c = levels[one ? rot : (i + rot) % NLEVELS].close;
        dl_str_add(&s, c, strlen(c));
    }
    *n = s.len;
    return s.p;
}

static dl_guard_arena guard;

/* Decodes in with o and stack, whole or a byte at a time; appends the log to *log. */
static dl_result run(const char *in, size_t n, const dl_opts *o, const dl_stack *stack, bool bytes,
                     dl_str *log) {
    size_t *cuts = NULL, ncuts = 0;
    if (bytes && n > 1) {
        cuts = malloc((n - 1) * sizeof *cuts);
        assert_non_null(cuts);
        for (size_t i = 1; i < n; i++) cuts[ncuts++] = i;
    }
    const dl_arena arena = dl_guard_arena_make(&guard);
    const unsigned long allocs = dl_decoder_allocs;
    const dl_result res = dl_decode_deep(in, n, cuts, ncuts, o, stack, &arena, log);
    assert_int_equal(dl_decoder_allocs, allocs);
    free(cuts);
    return res;
}

/* Every entry point, whole and byte by byte, gives the log rg_next gives on the whole input, with
 * no problem; want is the final status (RG_NEED_MORE: the value read to its end). */
static void all_ways(const char *in, size_t n, rg_frame *frames, size_t nframes, uint32_t depth,
                     rg_status want, uint64_t err_at) {
    dl_opts o = {NULL, DL_NEXT, DL_COMPACT, false};
    const dl_stack stack = {frames, nframes, depth};
    dl_str first = {0};
    const dl_result r0 = run(in, n, &o, &stack, false, &first);
    if (r0.problems) fail_msg("rg_next, whole: %u problems:\n%.2000s", r0.problems, first.p);
    if (r0.status != want)
        fail_msg("%.60s... (%zu bytes, %zu frames, depth %u): %s at %llu, want %s", in, n, nframes,
                 depth, dl_status_name(r0.status), (unsigned long long)r0.err_offset,
                 dl_status_name(want));
    if (want == RG_NEED_MORE) assert_int_equal(r0.consumed, n);
    if (want != RG_NEED_MORE) assert_int_equal(r0.err_offset, err_at);
    for (int api = 0; api < DL_API_COUNT; api++) {
        for (int bytes = 0; bytes < 2; bytes++) {
            o.api = (enum dl_api)api;
            o.layout = bytes ? DL_COMPACT : DL_RETAIN;
            dl_str log = {0};
            const dl_result r = run(in, n, &o, &stack, bytes, &log);
            if (r.problems || r.status != r0.status || r.err_offset != r0.err_offset ||
                log.len != first.len || memcmp(log.p, first.p, log.len) != 0)
                fail_msg("api %d, %s: %s, %u problems", api, bytes ? "bytes" : "whole",
                         dl_status_name(r.status), r.problems);
            dl_str_free(&log);
        }
    }
    dl_str_free(&first);
}

/* Deep values of every kind of level, mixed and one kind at a time, read to their end at the
 * limit exactly and refused one level past it, where that level opens. */
static void deep_values(void **state) {
    (void)state;
    static const uint32_t depths[] = {RG_MAX_DEPTH + 1, 41, 100, 1000};
    rg_frame *frames = malloc(5000 * sizeof *frames);
    assert_non_null(frames);
    for (size_t k = 0; k < sizeof depths / sizeof *depths; k++) {
        const uint32_t d = depths[k];
        for (size_t rot = 0; rot < 2 * NLEVELS; rot++) {
            const bool one = rot >= NLEVELS;
            size_t n;
            uint64_t bad = 0;
            char *s = nest(d, rot % NLEVELS, one, d, &n, &bad);
            /* exactly the frames it needs (max_depth 0: all of them), and more with a limit */
            all_ways(s, n, frames, RG_READER_FRAMES(d), 0, RG_NEED_MORE, 0);
            all_ways(s, n, frames, 5000, d, RG_NEED_MORE, 0);
            free(s);
            s = nest(d + 1, rot % NLEVELS, one, d, &n, &bad);
            all_ways(s, n, frames, RG_READER_FRAMES(d), 0, RG_ERR_DEPTH, bad);
            all_ways(s, n, frames, 5000, d, RG_ERR_DEPTH, bad);
            free(s);
        }
    }
    free(frames);
}

/* 5,000 levels, as a Lua script on redis-server 7.0 returns them, whole and byte by byte. */
static void five_thousand(void **state) {
    (void)state;
    rg_frame *frames = malloc(RG_READER_FRAMES(5000) * sizeof *frames);
    assert_non_null(frames);
    size_t n;
    uint64_t bad = 0;
    char *s = nest(5000, 0, true, 5000, &n, &bad);
    all_ways(s, n, frames, RG_READER_FRAMES(5000), 0, RG_NEED_MORE, 0);
    free(s);
    s = nest(5001, 0, false, 5000, &n, &bad);
    all_ways(s, n, frames, RG_READER_FRAMES(5000), 0, RG_ERR_DEPTH, bad);
    free(s);
    free(frames);
}

/* Values after a deep one, and many deep values in a row: the reader comes back to its inline
 * frames and the fast path each time. */
static void deep_then_flat(void **state) {
    (void)state;
    rg_frame frames[100];
    dl_str s = {0};
    for (int v = 0; v < 20; v++) {
        size_t n;
        uint64_t bad = 0;
        char *one =
            nest((size_t)(RG_MAX_DEPTH - 3 + v * 5), (size_t)v % NLEVELS, v % 2, 1000, &n, &bad);
        dl_str_add(&s, one, n);
        free(one);
        const char *flat = "*2\r\n$3\r\nabc\r\n:12\r\n+OK\r\n";
        dl_str_add(&s, flat, strlen(flat));
    }
    all_ways(s.p, s.len, frames, 100, 0, RG_NEED_MORE, 0);
    dl_str_free(&s);
}

/* What rg_reader_set_stack refuses, and its limits. */
static void set_stack_arguments(void **state) {
    (void)state;
    rg_frame frames[8];
    rg_reader r;
    rg_reader_init(&r, NULL);
    assert_int_equal(rg_reader_set_stack(&r, frames, 8, RG_MAX_DEPTH + 9), RG_INVALID);
    assert_int_equal(r.limits.max_depth, RG_MAX_DEPTH);
    assert_int_equal(rg_reader_set_stack(&r, NULL, 8, RG_MAX_DEPTH + 1), RG_INVALID);
    assert_int_equal(rg_reader_set_stack(&r, frames, 8, 0), RG_OK);
    assert_int_equal(r.limits.max_depth, RG_MAX_DEPTH + 8);
    assert_int_equal(rg_reader_set_stack(&r, frames, 8, 5), RG_OK);
    assert_int_equal(r.limits.max_depth, 5);
    /* a lower limit holds for the fast path too */
    size_t pos = 0;
    rg_event ev;
    const char deep6[] = "*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n";
    for (int i = 0; i < 5; i++)
        assert_int_equal(rg_next(&r, deep6, sizeof deep6 - 1, &pos, &ev), RG_OK);
    assert_int_equal(rg_next(&r, deep6, sizeof deep6 - 1, &pos, &ev), RG_ERR_DEPTH);
    assert_int_equal(rg_reader_error(&r).offset, 20);
    /* only at depth 0 */
    rg_reader_init(&r, NULL);
    pos = 0;
    assert_int_equal(rg_next(&r, deep6, sizeof deep6 - 1, &pos, &ev), RG_OK);
    assert_int_equal(rg_reader_set_stack(&r, frames, 8, 0), RG_INVALID);
    /* back to the inline frames alone */
    rg_reader_init(&r, NULL);
    assert_int_equal(rg_reader_set_stack(&r, frames, 8, 0), RG_OK);
    assert_int_equal(rg_reader_set_stack(&r, NULL, 0, 0), RG_OK);
    assert_int_equal(r.limits.max_depth, RG_MAX_DEPTH);
    assert_int_equal(RG_READER_FRAMES(RG_MAX_DEPTH), 0);
    assert_int_equal(RG_READER_FRAMES(1024), 1024 - RG_MAX_DEPTH);
}

int main(void) {
    if (!dl_guard_arena_init(&guard, 1 << 20)) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(deep_values),
        cmocka_unit_test(five_thousand),
        cmocka_unit_test(deep_then_flat),
        cmocka_unit_test(set_stack_arguments),
    };
    const int failed = cmocka_run_group_tests(tests, NULL, NULL);
    dl_guard_arena_free(&guard);
    return failed;
}
