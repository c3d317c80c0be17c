/* The reply writers (rg_out.h): every size function equals what its writer writes, RESP2 and
 * RESP3 forms, doubles byte for byte as a real redis-server (7.0) replies ZSCORE, and long doubles
 * as it replies INCRBYFLOAT and HINCRBYFLOAT. */
#include "rg_out.h"
#include "test_redis.h"

#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static void expect(const char *got, const char *end, const char *want) {
    assert_int_equal((size_t)(end - got), strlen(want));
    assert_memory_equal(got, want, strlen(want));
}

static void test_forms(void **state) {
    (void)state;
    char b[128];
    expect(b, rg_out_int(b, -42), ":-42\r\n");
    assert_int_equal(rg_out_int_size(-42), 6);
    expect(b, rg_out_simple(b, "OK", 2), "+OK\r\n");
    expect(b, rg_out_error(b, "ERR x", 5), "-ERR x\r\n");
    expect(b, rg_out_map(b, 3, 2), "%2\r\n");
    expect(b, rg_out_map(b, 2, 2), "*4\r\n");
    assert_int_equal(rg_out_map_size(2, 5), 5); /* "*10\r\n" */
    expect(b, rg_out_set(b, 3, 1), "~1\r\n");
    expect(b, rg_out_set(b, 2, 1), "*1\r\n");
    expect(b, rg_out_bool(b, 3, true), "#t\r\n");
    expect(b, rg_out_bool(b, 2, false), ":0\r\n");
    assert_string_equal(rg_out_null(2).ptr, "$-1\r\n");
    assert_string_equal(rg_out_null(3).ptr, "_\r\n");
    assert_string_equal(rg_out_null_array(2).ptr, "*-1\r\n");
    const rg_view items[] = {RG_LIT("a"), {NULL, 0}, RG_LIT("bc")};
    for (int proto = 2; proto <= 3; proto++) {
        char *end = rg_out_bulks(b, proto, 3, items);
        assert_int_equal((size_t)(end - b), rg_out_bulks_size(proto, 3, items));
    }
    expect(b, rg_out_bulks(b, 2, 3, items), "*3\r\n$1\r\na\r\n$-1\r\n$2\r\nbc\r\n");
    expect(b, rg_out_bulks(b, 3, 3, items), "*3\r\n$1\r\na\r\n_\r\n$2\r\nbc\r\n");
    static const int64_t ints[] = {0, 9, 10, -1, INT64_MAX, INT64_MIN, 123456789};
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        assert_int_equal((size_t)(rg_out_int(b, ints[i]) - b), rg_out_int_size(ints[i]));
    }
    expect(b, rg_out_ints(b, 3, ints), "*3\r\n:0\r\n:9\r\n:10\r\n");
    assert_int_equal((size_t)(rg_out_ints(b, 7, ints) - b), rg_out_ints_size(7, ints));
    expect(b, rg_out_bulk_items(b, 2, items + 1), "$0\r\n\r\n$2\r\nbc\r\n");
    assert_int_equal(rg_out_bulk_items_size(3, items), 7 + 6 + 8);
    const double scores[] = {2.5, NAN, -INFINITY};
    expect(b, rg_out_doubles(b, 2, 3, scores), "*3\r\n$3\r\n2.5\r\n$-1\r\n$4\r\n-inf\r\n");
    expect(b, rg_out_doubles(b, 3, 3, scores), "*3\r\n,2.5\r\n_\r\n,-inf\r\n");
    for (int proto = 2; proto <= 3; proto++) {
        assert_int_equal((size_t)(rg_out_doubles(b, proto, 3, scores) - b),
                         rg_out_doubles_size(proto, 3, scores));
        for (size_t i = 0; i < 3; i++) {
            assert_int_equal((size_t)(rg_out_double_or_null(b, proto, scores[i]) - b),
                             rg_out_double_or_null_size(proto, scores[i]));
        }
    }
}

/* Verbatim strings: the format counts in RESP3's length (6 bytes of text are "=10"), RESP2 gets a
 * bulk of the text alone. */
static void test_verbatim(void **state) {
    (void)state;
    char b[128];
    expect(b, rg_out_verbatim(b, 3, "txt", "abcdef", 6), "=10\r\ntxt:abcdef\r\n");
    expect(b, rg_out_verbatim(b, 2, "txt", "abcdef", 6), "$6\r\nabcdef\r\n");
    expect(b, rg_out_verbatim(b, 3, "mkd", "# a\r\nb", 6), "=10\r\nmkd:# a\r\nb\r\n");
    expect(b, rg_out_verbatim(b, 3, "txt", "", 0), "=4\r\ntxt:\r\n");
    expect(b, rg_out_verbatim(b, 2, "txt", "", 0), "$0\r\n\r\n");
    static const char text[] = "0123456789012345678901234567890123456789";
    for (int proto = 2; proto <= 3; proto++) {
        for (size_t len = 0; len < sizeof text; len++) {
            assert_int_equal((size_t)(rg_out_verbatim(b, proto, "txt", text, len) - b),
                             rg_out_verbatim_size(proto, len));
        }
    }
}

static const double doubles[] = {1.1, 0.1, 3, -2.5, 1e300, 1.5e-7, 123456789.125, 1.0 / 3};

static void test_double_sizes(void **state) {
    (void)state;
    char b[64];
    for (size_t i = 0; i < sizeof doubles / sizeof doubles[0]; i++) {
        for (int proto = 2; proto <= 3; proto++) {
            for (int shortest = 0; shortest <= 1; shortest++) {
                const char *end = rg_out_double(b, proto, doubles[i], shortest);
                assert_int_equal((size_t)(end - b),
                                 rg_out_double_size(proto, doubles[i], shortest));
            }
        }
    }
    expect(b, rg_out_double(b, 3, INFINITY, false), ",inf\r\n");
    expect(b, rg_out_double(b, 2, -INFINITY, false), "$4\r\n-inf\r\n");
    expect(b, rg_out_double(b, 3, 1.1, true), ",1.1\r\n");
}

/* ZSCORE replies in both protocol versions against ours. */
static void test_doubles_vs_redis(void **state) {
    (void)state;
    test_redis srv;
    if (test_redis_start(&srv, NULL) != 0) skip();
    test_conn c;
    assert_int_equal(test_conn_open(&c, srv.port), 0);
    char got[64], want[128], mine[64];
    for (int proto = 2; proto <= 3; proto++) {
        const char *hello[] = {"HELLO", proto == 2 ? "2" : "3"};
        assert_int_equal(test_conn_command(&c, got, sizeof got, 2, hello), 0);
        for (size_t i = 0; i < sizeof doubles / sizeof doubles[0]; i++) {
            char score[64];
            snprintf(score, sizeof score, "%.17g", doubles[i]);
            const char *zadd[] = {"ZADD", "z", score, "m"};
            assert_int_equal(test_conn_command(&c, got, sizeof got, 4, zadd), 0);
            const char *zscore[] = {"ZSCORE", "z", "m"};
            assert_int_equal(test_conn_command(&c, got, sizeof got, 3, zscore), 0);
            /* rendered: ",<text>" for RESP3, "<text>" for a RESP2 bulk */
            const char *text = proto == 3 ? got + 1 : got;
            if (proto == 3) {
                snprintf(want, sizeof want, ",%s\r\n", text);
            } else {
                snprintf(want, sizeof want, "$%zu\r\n%s\r\n", strlen(text), text);
            }
            expect(mine, rg_out_double(mine, proto, doubles[i], false), want);
        }
    }
    test_conn_close(&c);
    test_redis_stop(&srv);
}

/* INCRBYFLOAT's form by Redis' rules: "%.17Lf", trailing zeros and then '.' dropped, no "-0". */
static void test_ldouble_forms(void **state) {
    (void)state;
    static const struct {
        long double v;
        const char *text;
    } cases[] = {
        {10.5L, "10.5"},
        {3e3L, "3000"},
        {0, "0"},
        {-0.0L, "0"},
        {1e-20L, "0"},
        {-1e-20L, "0"},
        {-2.25L, "-2.25"},
        {0.1L, "0.1"},
        {1e17L, "100000000000000000"},
        {INFINITY, "inf"},
        {-INFINITY, "-inf"},
        {123456789.125L, "123456789.125"},
        {5e-17L, "0.00000000000000005"},
        {-5e-17L, "-0.00000000000000005"},
        {-4e-18L, "0"},
    };
    char b[RG_OUT_LDOUBLE_TEXT_MAX + 32];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(rg_out_ldouble_text(b, cases[i].v), strlen(cases[i].text));
        assert_memory_equal(b, cases[i].text, strlen(cases[i].text));
        char want[64];
        snprintf(want, sizeof want, "$%zu\r\n%s\r\n", strlen(cases[i].text), cases[i].text);
        expect(b, rg_out_ldouble(b, cases[i].v), want);
        assert_int_equal(rg_out_ldouble_size(cases[i].v), strlen(want));
    }
    /* the longest texts: every integer digit of the largest long doubles, no exponent */
    const size_t digits = (size_t)LDBL_MAX_10_EXP + 1;
    assert_int_equal(rg_out_ldouble_text(b, LDBL_MAX), digits);
    assert_int_equal(rg_out_ldouble_text(b, -LDBL_MAX), digits + 1);
    assert_int_equal((size_t)(rg_out_ldouble(b, -LDBL_MAX) - b), rg_out_ldouble_size(-LDBL_MAX));
    assert_int_equal(rg_out_ldouble_text(b, 1e300L), 301);
}

/* SET k <from> (or HSET k f <from>) unless from is already stored, then INCRBYFLOAT k <by> (or
 * HINCRBYFLOAT k f <by>): the reply must be our bulk of strtold(from) + strtold(by), as Redis
 * parses both with strtold. The new value's text goes to text. */
static void incr_vs_redis(test_conn *c, bool hash, bool stored, const char *from, const char *by,
                          char *text) {
    char got[RG_OUT_LDOUBLE_TEXT_MAX + 32], mine[RG_OUT_LDOUBLE_TEXT_MAX + 32];
    const char *set[] = {"SET", "k", from}, *hset[] = {"HSET", "k", "f", from};
    const char *incr[] = {"INCRBYFLOAT", "k", by}, *hincr[] = {"HINCRBYFLOAT", "k", "f", by};
    size_t len;
    if (!stored)
        assert_int_equal(test_conn_command(c, got, sizeof got, 3 + hash, hash ? hset : set), 0);
    assert_int_equal(test_conn_command_raw(c, got, sizeof got, &len, 3 + hash, hash ? hincr : incr),
                     0);
    const long double v = strtold(from, NULL) + strtold(by, NULL);
    const char *end = rg_out_ldouble(mine, v);
    if ((size_t)(end - mine) != len || memcmp(mine, got, len) != 0) {
        print_error("%s + %s: redis replied %.*s\n", from, by, (int)len, got);
    }
    assert_int_equal((size_t)(end - mine), len);
    assert_memory_equal(mine, got, len);
    assert_int_equal(rg_out_ldouble_size(v), len);
    text[rg_out_ldouble_text(text, v)] = '\0';
}

/* A server for one test, or none (the test skips) when redis-server cannot start. */
static int server_setup(void **state) {
    if (test_fixture_setup(state) != 0) *state = NULL;
    return 0;
}

static int server_teardown(void **state) {
    return *state ? test_fixture_teardown(state) : 0;
}

static void test_incrbyfloat_vs_redis(void **state) {
    if (!*state) skip();
    test_conn *c = &((test_fixture *)*state)->conn;
    static const char *const pairs[][2] = {
        {"0", "1"},
        {"10", "0.5"},
        {"5.0e3", "-2e2"},
        {"3.0e3", "0"},
        {"1e17", "1"},
        {"1e17", "0.5"},
        {"1e18", "0.25"},
        {"1e300", "1"},
        {"-1e300", "-1"},
        {"-5", "0.25"},
        {"0", "1e-20"},
        {"0", "-1e-20"},
        {"-0", "-0"},
        {"1.1", "2.2"},
        {"0.1", "0.2"},
        {"0", "123456789.123456789"},
        {"1", "1e-17"},
        {"1", "5e-18"},
        {"0", "1e4000"},
        {"-1.18e4932", "0"},
        {"3", "-3"},
        {"9007199254740993", "0"},
        {"-123.456", "0.000001"},
        {"18446744073709551615", "1"},
        {"0", "0.3333333333333333333333"},
    };
    char text[RG_OUT_LDOUBLE_TEXT_MAX];
    for (int hash = 0; hash <= 1; hash++) {
        for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
            incr_vs_redis(c, hash, false, pairs[i][0], pairs[i][1], text);
        }
        /* 0.1 added 30 times: each step parses the text Redis stored, as Redis does */
        const char *del[] = {"DEL", "k"};
        assert_int_equal(test_conn_command(c, text, sizeof text, 2, del), 0);
        char prev[RG_OUT_LDOUBLE_TEXT_MAX] = "0";
        for (int i = 0; i < 30; i++) {
            incr_vs_redis(c, hash, true, prev, "0.1", text);
            memcpy(prev, text, strlen(text) + 1);
        }
        assert_int_equal(test_conn_command(c, text, sizeof text, 2, del), 0);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forms),
        cmocka_unit_test(test_verbatim),
        cmocka_unit_test(test_double_sizes),
        cmocka_unit_test(test_doubles_vs_redis),
        cmocka_unit_test(test_ldouble_forms),
        cmocka_unit_test_setup_teardown(test_incrbyfloat_vs_redis, server_setup, server_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
