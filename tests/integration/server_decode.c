/* The decoder against a real redis-server: every RESP3 type the server can send (through
 * DEBUG PROTOCOL), the same commands in RESP2, and a long pipeline read in whatever pieces the
 * socket delivers. */
#include "test_redis.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

typedef test_fixture fixture;

static int setup(void **state) {
    static const char *const extra[] = {"--enable-debug-command", "yes", NULL};
    return test_fixture_start(state, extra);
}

/* Sends a command given as words and checks the rendered reply. */
static void expect(fixture *f, const char *want, size_t argc, const char *const *argv) {
    char out[1024];
    assert_int_equal(test_conn_command(&f->conn, out, sizeof out, argc, argv), 0);
    assert_string_equal(out, want);
}

#define EXPECT(f, want, ...)                                    \
    do {                                                        \
        const char *const argv_[] = {__VA_ARGS__};              \
        expect(f, want, sizeof argv_ / sizeof argv_[0], argv_); \
    } while (0)

static void next_reply(fixture *f, const char *want) {
    char out[1024];
    assert_int_equal(test_conn_reply(&f->conn, out, sizeof out), 0);
    assert_string_equal(out, want);
}

/* Each row: the DEBUG PROTOCOL type and what RESP3 and RESP2 render to. */
static const struct {
    const char *type, *resp3, *resp2;
} protocol_rows[] = {
    {"string", "Hello World", "Hello World"},
    {"integer", ":12345", ":12345"},
    {"double", ",3.141", "3.141"},
    {"bignum", "(1234567999999999999999999999999999999", "1234567999999999999999999999999999999"},
    {"null", "(nil)", "(nil)"},
    {"array", "*[:0,:1,:2]", "*[:0,:1,:2]"},
    {"set", "~[:0,:1,:2]", "*[:0,:1,:2]"},
    {"map", "%{:0:#f,:1:#t,:2:#f}", "*[:0,:0,:1,:1,:2,:0]"},
    {"verbatim", "=txt:This is a verbatim\nstring", "This is a verbatim\nstring"},
    {"true", "#t", ":1"},
    {"false", "#f", ":0"},
};

static void every_type_in_resp3(void **state) {
    fixture *f = *state;
    char out[1024];
    const char *hello[] = {"HELLO", "3"};
    assert_int_equal(test_conn_command(&f->conn, out, sizeof out, 2, hello), 0);
    assert_non_null(strstr(out, "%{server:redis,version:"));
    for (size_t i = 0; i < sizeof protocol_rows / sizeof protocol_rows[0]; i++)
        EXPECT(f, protocol_rows[i].resp3, "DEBUG", "PROTOCOL", protocol_rows[i].type);
    /* The attribute is attached to the reply it annotates: one top-level value. */
    EXPECT(f, "|{key-popularity:*[key:123,:90]}Some real reply following the attribute", "DEBUG",
           "PROTOCOL", "attrib");
    /* A push is a top-level value of its own, before the in-band reply. */
    EXPECT(f, ">[server-cpu-usage,:42]", "DEBUG", "PROTOCOL", "push");
    next_reply(f, "Some real reply following the push reply");
}

static void every_type_in_resp2(void **state) {
    fixture *f = *state;
    char out[1024];
    const char *hello[] = {"HELLO", "2"};
    assert_int_equal(test_conn_command(&f->conn, out, sizeof out, 2, hello), 0);
    assert_non_null(strstr(out, "*[server,redis,version,"));
    for (size_t i = 0; i < sizeof protocol_rows / sizeof protocol_rows[0]; i++)
        EXPECT(f, protocol_rows[i].resp2, "DEBUG", "PROTOCOL", protocol_rows[i].type);
}

static void commands_both_protocols(void **state) {
    fixture *f = *state;
    EXPECT(f, "+OK", "SET", "k", "v");
    EXPECT(f, "v", "GET", "k");
    EXPECT(f, "(nil)", "GET", "missing");
    EXPECT(f, ":1", "ZADD", "z", "1.5", "a");
    EXPECT(f, "1.5", "ZSCORE", "z", "a");
    EXPECT(f, "-WRONGTYPE Operation against a key holding the wrong kind of value", "LPUSH", "k",
           "x");
    char out[1024];
    const char *hello[] = {"HELLO", "3"};
    assert_int_equal(test_conn_command(&f->conn, out, sizeof out, 2, hello), 0);
    assert_non_null(strstr(out, ",proto::3,"));
    EXPECT(f, ",1.5", "ZSCORE", "z", "a");
    EXPECT(f, "(nil)", "GET", "missing");
    EXPECT(f, ":2", "DEL", "k", "z", "missing");
}

/* 10,000 pipelined INCRs in one write: the replies arrive in arbitrary socket-sized pieces and
 * must decode in order. */
static void long_pipeline(void **state) {
    fixture *f = *state;
    enum { N = 10000 };
    static const char incr[] = "*2\r\n$4\r\nINCR\r\n$3\r\nctr\r\n";
    static char batch[N * (sizeof incr - 1)];
    for (size_t i = 0; i < N; i++) memcpy(batch + i * (sizeof incr - 1), incr, sizeof incr - 1);
    assert_int_equal(test_conn_send(&f->conn, batch, sizeof batch), 0);
    for (int i = 1; i <= N; i++) {
        char out[32], want[32];
        snprintf(want, sizeof want, ":%d", i);
        assert_int_equal(test_conn_reply(&f->conn, out, sizeof out), 0);
        assert_string_equal(out, want);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_type_in_resp3),
        cmocka_unit_test(every_type_in_resp2),
        cmocka_unit_test(commands_both_protocols),
        cmocka_unit_test(long_pipeline),
    };
    return cmocka_run_group_tests(tests, setup, test_fixture_teardown);
}
