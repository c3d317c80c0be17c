/* runtime/rg_backoff.h: the cap doubles from first_ms to max_ms and never overflows (any attempt
 * number, any field values); delays stay within [0, cap] and spread over it (1,000 clients at
 * one attempt: the mean near cap / 2, both ends reached); zero fields mean the defaults. */
#include "rg_backoff.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

static void caps(void **state) {
    (void)state;
    const rg_backoff b = {10, 1000, 5};
    const uint32_t want[] = {10, 20, 40, 80, 160, 320, 640, 1000, 1000};
    for (uint32_t n = 0; n < sizeof want / sizeof want[0]; n++)
        assert_int_equal(rg_backoff_cap(&b, n), want[n]);
    const rg_backoff dflt = {0, 0, 3};
    assert_int_equal(rg_backoff_cap(&dflt, 0), RG_BACKOFF_FIRST_MS);
    assert_int_equal(rg_backoff_cap(&dflt, 1), 2 * RG_BACKOFF_FIRST_MS);
    assert_int_equal(rg_backoff_cap(&dflt, 100), RG_BACKOFF_MAX_MS);
    /* max below first: every delay is bounded by max */
    const rg_backoff low = {500, 100, 1};
    assert_int_equal(rg_backoff_cap(&low, 0), 100);
}

static void no_overflow(void **state) {
    (void)state;
    const rg_backoff big = {UINT32_MAX, UINT32_MAX, UINT32_MAX};
    const rg_backoff one = {1, UINT32_MAX, 1};
    for (uint32_t n = 0; n < 70; n++) {
        assert_int_equal(rg_backoff_cap(&big, n), UINT32_MAX);
        assert_int_equal(rg_backoff_cap(&one, n), n < 32 ? (UINT32_C(1) << n) : UINT32_MAX);
    }
    assert_int_equal(rg_backoff_cap(&one, UINT32_MAX), UINT32_MAX);
    const rg_backoff odd = {3, UINT32_MAX - 1, 1};
    assert_int_equal(rg_backoff_cap(&odd, 30), UINT32_C(3) << 30);
    assert_int_equal(rg_backoff_cap(&odd, 31), UINT32_MAX - 1); /* 3 << 31 would wrap */
    assert_true(rg_backoff_delay(&big, UINT32_MAX, UINT64_MAX) <= UINT32_MAX);
    assert_int_equal(rg_backoff_delay(&big, 40, UINT32_MAX), UINT32_MAX);
    assert_int_equal(rg_backoff_delay(&big, 40, (uint64_t)UINT32_MAX + 1), 0);
}

static void spread(void **state) {
    (void)state;
    const rg_backoff b = {10, 1000, 10};
    uint64_t rng = 42;
    for (uint32_t n = 0; n < 12; n++) {
        const uint32_t cap = rg_backoff_cap(&b, n);
        uint64_t sum = 0;
        uint32_t lo = UINT32_MAX, hi = 0;
        for (int i = 0; i < 1000; i++) { /* 1,000 clients at attempt n */
            const uint32_t d = rg_backoff_delay(&b, n, rg_backoff_random(&rng));
            assert_true(d <= cap);
            sum += d;
            lo = d < lo ? d : lo;
            hi = d > hi ? d : hi;
        }
        const double mean = (double)sum / 1000.0;
        assert_true(mean > 0.4 * cap && mean < 0.6 * cap);
        assert_true(lo <= cap / 10 && hi >= cap - cap / 10);
    }
    /* the stream depends on the seed, and a zero seed works */
    uint64_t a = 0, z = 0;
    assert_int_not_equal(rg_backoff_random(&a), 0);
    z = 1;
    assert_int_not_equal(rg_backoff_random(&a), rg_backoff_random(&z));
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(caps), cmocka_unit_test(no_overflow),
                                       cmocka_unit_test(spread)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
