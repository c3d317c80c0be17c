/* Linear time: the reader never rescans a partial token, so feeding a long line one byte at a
 * time costs O(n), not O(n^2). A rescanning reader would need ~8e12 byte visits for the 4 MiB line
 * below; the time budget turns that into a failure instead of a hung test. */
#define _DEFAULT_SOURCE /* clock_gettime */
#include "declog.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

/* Generous enough for ASan on a slow machine, far below what quadratic work would take. */
#define BUDGET_SECONDS 20.0

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Feeds buf[0..n) growing by `step` bytes per call, the caller keeping every unread byte in place
 * (a growing buffer), and returns the single event the whole input makes. */
static rg_event feed_growing(const char *buf, size_t n, size_t step, size_t *need_more) {
    rg_reader r;
    rg_reader_init(&r, NULL);
    size_t pos = 0, events = 0;
    rg_event ev, got = {0};
    double t0 = now();
    *need_more = 0;
    for (size_t len = 0; len < n;) {
        len = len + step < n ? len + step : n;
        rg_status st;
        while ((st = rg_next(&r, buf, len, &pos, &ev)) == RG_OK) got = ev, events++;
        if (st != RG_NEED_MORE) fail_msg("%s at %zu bytes", dl_status_name(st), len);
        if (!events) ++*need_more;
        if ((len & 0xffff) < step && now() - t0 > BUDGET_SECONDS)
            fail_msg("over %.0f s after %zu of %zu bytes: the reader rescans partial tokens",
                     BUDGET_SECONDS, len, n);
    }
    assert_int_equal(events, 1);
    assert_int_equal(pos, n);
    assert_true(got.complete);
    return got;
}

static void test_long_line_byte_by_byte(void **state) {
    (void)state;
    const size_t N = 4u << 20;
    char *buf = malloc(N + 3);
    assert_non_null(buf);
    for (const char *t = "+-("; *t; t++) {
        size_t n = *t == '+' ? N : N / 4; /* the full size once is enough to show linearity */
        buf[0] = *t;
        memset(buf + 1, *t == '(' ? '9' : 'a', n);
        memcpy(buf + 1 + n, "\r\n", 2);
        size_t need_more;
        double t0 = now();
        rg_event ev = feed_growing(buf, n + 3, 1, &need_more);
        assert_ptr_equal(ev.str.ptr, buf + 1);
        assert_int_equal(ev.str.len, n);
        assert_int_equal(need_more, n + 2);
        printf("'%c' line of %zu bytes fed byte by byte: %.2f s\n", *t, n, now() - t0);
    }
    free(buf);
}

static void test_big_bulk_by_kib(void **state) {
    (void)state;
    const size_t N = 16u << 20;
    char head[32];
    int h = snprintf(head, sizeof head, "$%zu\r\n", N);
    size_t n = (size_t)h + N + 2;
    char *buf = malloc(n);
    assert_non_null(buf);
    memcpy(buf, head, (size_t)h);
    memset(buf + h, 'x', N);
    memcpy(buf + h + N, "\r\n", 2);
    size_t need_more;
    double t0 = now();
    rg_event ev = feed_growing(buf, n, 1024, &need_more);
    assert_int_equal(ev.kind, RG_EV_BULK);
    assert_ptr_equal(ev.str.ptr, buf + h);
    assert_int_equal(ev.str.len, N);
    /* every call but the last ends inside the payload */
    assert_int_equal(need_more, (n + 1023) / 1024 - 1);
    assert_int_equal(need_more, 16384);
    printf("16 MiB bulk fed 1 KiB at a time: %.2f s\n", now() - t0);
    free(buf);
}

/* A million small values through a 4 KiB window that is compacted after every call. */
static void test_many_values(void **state) {
    (void)state;
    const size_t count = 1000000;
    dl_str msg = {0};
    dl_str_addf(&msg, "*%zu\r\n", count);
    for (size_t i = 0; i < count; i++)
        dl_str_addf(&msg, i % 2 ? ":%zu\r\n" : "$3\r\n%03zu\r\n", i % 1000);
    char window[4096];
    rg_reader r;
    rg_reader_init(&r, NULL);
    size_t held = 0, sent = 0, events = 0;
    double t0 = now();
    while (sent < msg.len) {
        size_t add = sizeof window - held;
        if (add > msg.len - sent) add = msg.len - sent;
        memcpy(window + held, msg.p + sent, add);
        held += add;
        sent += add;
        size_t pos = 0;
        rg_event ev;
        rg_status st;
        while ((st = rg_next(&r, window, held, &pos, &ev)) == RG_OK) events++;
        assert_int_equal(st, RG_NEED_MORE);
        memmove(window, window + pos, held - pos);
        held -= pos;
    }
    assert_int_equal(held, 0);
    assert_int_equal(events, count + 2);
    assert_int_equal(rg_reader_values(&r), 1);
    double t = now() - t0;
    printf("%zu values in a 4 KiB window: %.2f s\n", count, t);
    assert_true(t < BUDGET_SECONDS);
    dl_str_free(&msg);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_long_line_byte_by_byte),
        cmocka_unit_test(test_big_bulk_by_kib),
        cmocka_unit_test(test_many_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
