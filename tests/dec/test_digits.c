/* The runtime's one decimal reader (runtime/rg_digits.h, internal): bounds at INT64_MAX,
 * INT64_MIN and UINT64_MAX, leading zeros, empty text, signs and other bytes, and where the
 * prefix reader stops. */
#include "rg_digits.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

static bool u64(const char *s, uint64_t max, bool canonical, uint64_t *v) {
    return rg_digits_u64(s, strlen(s), max, canonical, v);
}

static bool i64(const char *s, bool canonical, int64_t *v) {
    return rg_digits_i64(s, strlen(s), canonical, v);
}

static void read_stops(void **state) {
    (void)state;
    const char *s = "12345x";
    uint64_t v;
    assert_ptr_equal(rg_digits_read(s, s + 6, UINT64_MAX, &v), s + 5);
    assert_int_equal(v, 12345);
    /* the digit that would go past max is where it stops */
    assert_ptr_equal(rg_digits_read(s, s + 6, 1234, &v), s + 4);
    assert_int_equal(v, 1234);
    assert_ptr_equal(rg_digits_read(s, s + 6, 1239, &v), s + 4);
    assert_ptr_equal(rg_digits_read(s, s + 6, 12345, &v), s + 5);
    /* the end bounds it, and no digit is no value */
    assert_ptr_equal(rg_digits_read(s, s + 2, UINT64_MAX, &v), s + 2);
    assert_int_equal(v, 12);
    assert_ptr_equal(rg_digits_read(s + 5, s + 6, UINT64_MAX, &v), s + 5);
    assert_int_equal(v, 0);
    assert_ptr_equal(rg_digits_read(s, s, UINT64_MAX, &v), s);
    /* bytes just outside '0'..'9' */
    const char *odd = "1/:";
    assert_ptr_equal(rg_digits_read(odd, odd + 3, UINT64_MAX, &v), odd + 1);
}

static void unsigned_bounds(void **state) {
    (void)state;
    uint64_t v;
    assert_true(u64("18446744073709551615", UINT64_MAX, true, &v));
    assert_true(v == UINT64_MAX);
    assert_false(u64("18446744073709551616", UINT64_MAX, true, &v));
    assert_false(u64("99999999999999999999", UINT64_MAX, true, &v));
    assert_false(u64("184467440737095516150", UINT64_MAX, false, &v));
    assert_true(u64("9223372036854775807", INT64_MAX, true, &v) && v == INT64_MAX);
    assert_false(u64("9223372036854775808", INT64_MAX, true, &v));
    assert_true(u64("16383", 16383, true, &v) && v == 16383);
    assert_false(u64("16384", 16383, true, &v));
    assert_true(u64("0", 0, true, &v) && v == 0);
    assert_false(u64("1", 0, true, &v));
}

static void unsigned_forms(void **state) {
    (void)state;
    uint64_t v = 7;
    assert_false(u64("", UINT64_MAX, false, &v));
    assert_int_equal(v, 7); /* untouched on failure */
    assert_true(u64("007", UINT64_MAX, false, &v) && v == 7);
    assert_false(u64("007", UINT64_MAX, true, &v));
    assert_false(u64("00", UINT64_MAX, true, &v));
    assert_true(u64("0", UINT64_MAX, true, &v) && v == 0);
    assert_true(u64("00000000000000000000000000042", 42, false, &v) && v == 42);
    assert_false(u64("-1", UINT64_MAX, false, &v));
    assert_false(u64("+1", UINT64_MAX, false, &v));
    assert_false(u64(" 1", UINT64_MAX, false, &v));
    assert_false(u64("1 ", UINT64_MAX, false, &v));
    assert_false(u64("12a", UINT64_MAX, false, &v));
    assert_false(rg_digits_u64("1\0"
                               "2",
                               3, UINT64_MAX, false, &v));
}

static void signed_bounds(void **state) {
    (void)state;
    int64_t v;
    assert_true(i64("9223372036854775807", true, &v) && v == INT64_MAX);
    assert_false(i64("9223372036854775808", true, &v));
    assert_true(i64("-9223372036854775808", true, &v) && v == INT64_MIN);
    assert_false(i64("-9223372036854775809", true, &v));
    assert_false(i64("-18446744073709551616", false, &v));
    assert_true(i64("-1", true, &v) && v == -1);
    assert_true(i64("0", true, &v) && v == 0);
}

static void signed_forms(void **state) {
    (void)state;
    int64_t v = 5;
    assert_false(i64("", true, &v));
    assert_false(i64("-", true, &v));
    assert_false(i64("-", false, &v));
    assert_int_equal(v, 5);
    assert_false(i64("-0", true, &v)); /* string2ll refuses it */
    assert_true(i64("-0", false, &v) && v == 0);
    assert_false(i64("012", true, &v));
    assert_false(i64("-012", true, &v));
    assert_true(i64("-012", false, &v) && v == -12);
    assert_false(i64("+12", true, &v));
    assert_false(i64("+12", false, &v));
    assert_false(i64("--1", false, &v));
    assert_false(i64("1-", false, &v));
    assert_false(i64("1.5", false, &v));
}

static void skip_stops(void **state) {
    (void)state;
    const char *s = "0129/:a";
    assert_ptr_equal(rg_digits_skip(s, s + 7), s + 4);
    assert_ptr_equal(rg_digits_skip(s, s + 2), s + 2);
    assert_ptr_equal(rg_digits_skip(s + 4, s + 7), s + 4);
}

static void wrap_goes_on(void **state) {
    (void)state;
    const char *s = "12.345";
    uint64_t m = 0;
    const char *point = rg_digits_wrap(s, s + 6, &m);
    assert_ptr_equal(point, s + 2);
    assert_ptr_equal(rg_digits_wrap(point + 1, s + 6, &m), s + 6);
    assert_int_equal(m, 12345);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(read_stops),     cmocka_unit_test(unsigned_bounds),
        cmocka_unit_test(unsigned_forms), cmocka_unit_test(signed_bounds),
        cmocka_unit_test(signed_forms),   cmocka_unit_test(wrap_goes_on),
        cmocka_unit_test(skip_stops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
