/* The reply writers (rg_out.h): every size function equals what its writer writes, RESP2 and
 * RESP3 forms, and doubles byte for byte as a real redis-server (7.0) replies ZSCORE. */
#include "rg_out.h"
#include "test_redis.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forms),
        cmocka_unit_test(test_double_sizes),
        cmocka_unit_test(test_doubles_vs_redis),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
