/* rg_enc integer writers and RESP pieces: exact lengths, exact bytes, nothing written past the
 * promised size. The oracle is snprintf. */
#include "rg_enc.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

enum { GUARD = 0x5a, BUF = 128 };

static uint64_t xorshift(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Runs a writer on a guarded buffer: the result must be want, and the bytes after it untouched. */
#define EXPECT_WRITE(call_on_buf, want)                    \
    do {                                                   \
        char buf[BUF];                                     \
        memset(buf, GUARD, sizeof buf);                    \
        char *const end = (call_on_buf);                   \
        const size_t wlen = strlen(want);                  \
        assert_int_equal((size_t)(end - buf), wlen);       \
        assert_memory_equal(buf, (want), wlen);            \
        assert_int_equal((unsigned char)buf[wlen], GUARD); \
    } while (0)

static void check_u64(uint64_t v) {
    char want[32];
    snprintf(want, sizeof want, "%" PRIu64, v);
    assert_int_equal(rg_u64_len(v), strlen(want));
    EXPECT_WRITE(rg_put_u64(buf, v), want);
}

static void check_i64(int64_t v) {
    char want[32];
    snprintf(want, sizeof want, "%" PRId64, v);
    assert_int_equal(rg_i64_len(v), strlen(want));
    assert_true(rg_i64_len(v) <= RG_I64_MAX_LEN);
    EXPECT_WRITE(rg_put_i64(buf, v), want);
}

static void test_u64_boundaries(void **state) {
    (void)state;
    uint64_t p = 1;
    for (int digits = 1; digits <= 20; digits++) {
        check_u64(p);     /* 10^(digits-1) */
        check_u64(p - 1); /* the largest with one digit fewer */
        check_u64(p + 1);
        if (digits < 20) p *= 10;
    }
    check_u64(0);
    check_u64(UINT64_MAX);
    check_u64(UINT64_MAX - 1);
    assert_int_equal(rg_u64_len(UINT64_MAX), 20);
}

static void test_i64_boundaries(void **state) {
    (void)state;
    const int64_t cases[] = {0,
                             1,
                             -1,
                             9,
                             -9,
                             10,
                             -10,
                             99,
                             -100,
                             INT64_MAX,
                             INT64_MIN,
                             INT64_MIN + 1,
                             INT64_MAX - 1,
                             -1000000000000000000};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) check_i64(cases[i]);
    assert_int_equal(rg_i64_len(INT64_MIN), RG_I64_MAX_LEN);
}

static void test_random_integers(void **state) {
    (void)state;
    uint64_t seed = 88172645463325252u;
    for (size_t i = 0; i < 1000000; i++) {
        /* A random magnitude, so short and long numbers are equally common. */
        const uint64_t v = xorshift(&seed) >> (i % 64);
        check_u64(v);
        check_i64((int64_t)v);
        check_i64(-(int64_t)(v >> 1));
    }
}

static void test_bulk(void **state) {
    (void)state;
    EXPECT_WRITE(rg_put_bulk(buf, "abc", 3), "$3\r\nabc\r\n");
    EXPECT_WRITE(rg_put_bulk(buf, NULL, 0), "$0\r\n\r\n");
    EXPECT_WRITE(rg_put_bulk(buf, "a\r\nb", 4), "$4\r\na\r\nb\r\n");
    assert_int_equal(rg_bulk_size(3), strlen("$3\r\nabc\r\n"));
    assert_int_equal(rg_bulk_size(0), strlen("$0\r\n\r\n"));
    assert_int_equal(rg_bulk_size(100), 1 + 3 + 2 + 100 + 2);

    EXPECT_WRITE(rg_put_bulk_header(buf, 0), "$0\r\n");
    EXPECT_WRITE(rg_put_bulk_header(buf, 4096), "$4096\r\n");
    EXPECT_WRITE(rg_put_bulk_header(buf, SIZE_MAX),
                 SIZE_MAX == UINT64_MAX ? "$18446744073709551615\r\n" : "$4294967295\r\n");
    assert_int_equal(rg_bulk_header_size(4096), 7);
    assert_true(rg_bulk_header_size(SIZE_MAX) <= RG_BULK_HEADER_MAX_LEN);
}

/* Every length up to 600 and the lengths around the copy and header boundaries (the inline
 * writers branch at 4, 8, 16, 32 bytes and at 10, 100 for the header), against snprintf, with
 * the bytes after the bulk untouched and a source that ends exactly where the payload does. */
static void test_bulk_every_length(void **state) {
    (void)state;
    enum { MAX = 600 };
    static char src[MAX], out[MAX + 32], want[MAX + 32];
    for (size_t i = 0; i < MAX; i++) src[i] = (char)('A' + i % 26);
    for (size_t len = 0; len <= MAX; len++) {
        const char *bytes = src + MAX - len; /* a read past the payload would leave src */
        const int h = snprintf(want, sizeof want, "$%zu\r\n", len);
        memcpy(want + h, bytes, len);
        memcpy(want + h + len, "\r\n", 2);
        const size_t wlen = (size_t)h + len + 2;
        memset(out, GUARD, sizeof out);
        char *const end = rg_put_bulk(out, len ? bytes : NULL, len);
        assert_int_equal((size_t)(end - out), wlen);
        assert_int_equal(rg_bulk_size(len), wlen);
        assert_memory_equal(out, want, wlen);
        assert_int_equal((unsigned char)out[wlen], GUARD);

        memset(out, GUARD, sizeof out);
        assert_ptr_equal(rg_put_bytes(out, len ? bytes : NULL, len), out + len);
        assert_memory_equal(out, bytes, len);
        assert_int_equal((unsigned char)out[len], GUARD);
    }
}

static void test_bulk_i64(void **state) {
    (void)state;
    EXPECT_WRITE(rg_put_bulk_i64(buf, 0), "$1\r\n0\r\n");
    EXPECT_WRITE(rg_put_bulk_i64(buf, -42), "$3\r\n-42\r\n");
    EXPECT_WRITE(rg_put_bulk_i64(buf, INT64_MIN), "$20\r\n-9223372036854775808\r\n");
    EXPECT_WRITE(rg_put_bulk_i64(buf, INT64_MAX), "$19\r\n9223372036854775807\r\n");
    assert_int_equal(rg_bulk_i64_size(INT64_MIN), strlen("$20\r\n-9223372036854775808\r\n"));
    assert_int_equal(rg_bulk_i64_size(7), strlen("$1\r\n7\r\n"));
}

static void test_bulk_double(void **state) {
    (void)state;
    static const struct {
        double v;
        const char *bulk;
    } cases[] = {
        {1.5, "$3\r\n1.5\r\n"},
        {1234567.5, "$9\r\n1234567.5\r\n"},    /* the longest text with a one-digit length */
        {12345678.5, "$10\r\n12345678.5\r\n"}, /* the shortest with two */
        {0.1 + 0.2, "$19\r\n0.30000000000000004\r\n"},
        {-0.0, "$2\r\n-0\r\n"},
        {1e100, "$6\r\n1e+100\r\n"},
        {-2.2250738585072014e-308, "$24\r\n-2.2250738585072014e-308\r\n"},
        {1.0 / 0.0, "$3\r\ninf\r\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        EXPECT_WRITE(rg_put_bulk_double(buf, cases[i].v), cases[i].bulk);
        assert_int_equal(rg_bulk_double_size(cases[i].v), strlen(cases[i].bulk));
    }
}

static void test_array_header(void **state) {
    (void)state;
    EXPECT_WRITE(rg_put_array_header(buf, 0), "*0\r\n");
    EXPECT_WRITE(rg_put_array_header(buf, 3), "*3\r\n");
    EXPECT_WRITE(rg_put_array_header(buf, 9), "*9\r\n");
    EXPECT_WRITE(rg_put_array_header(buf, 10), "*10\r\n");
    EXPECT_WRITE(rg_put_array_header(buf, 201), "*201\r\n");
    assert_int_equal(rg_array_header_size(201), 6);
    assert_int_equal(rg_array_header_size(0), 4);
}

static void test_raw(void **state) {
    (void)state;
    EXPECT_WRITE(rg_put_raw(buf, "*1\r\n$4\r\nPING\r\n", 14), "*1\r\n$4\r\nPING\r\n");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_u64_boundaries),
        cmocka_unit_test(test_i64_boundaries),
        cmocka_unit_test(test_random_integers),
        cmocka_unit_test(test_bulk),
        cmocka_unit_test(test_bulk_every_length),
        cmocka_unit_test(test_bulk_i64),
        cmocka_unit_test(test_bulk_double),
        cmocka_unit_test(test_array_header),
        cmocka_unit_test(test_raw),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
