/* examples/kvserver against a real redis-server: the same commands sent to both give the same
 * replies (values, nulls, integers and every error text), including the idiosyncrasies of SET
 * and EXPIRE; then the server alone under abuse: garbage, disconnects mid-request, 10k pipelined
 * commands encoded with the generated client (kv.h), and redis-cli. */
#include "kv.h"
#include "test_redis.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

typedef struct fixture {
    test_redis redis;
    pid_t kv_pid;
    int kv_port;
} fixture;

static int free_port(void) {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
        close(fd);
        return -1;
    }
    close(fd);
    return ntohs(a.sin_port);
}

static int start_kvserver(fixture *f) {
    f->kv_port = free_port();
    char port[16];
    snprintf(port, sizeof port, "%d", f->kv_port);
    f->kv_pid = fork();
    if (f->kv_pid == 0) {
        execl(KVSERVER_PATH, "kvserver", "--port", port, (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 1000; i++) { /* up to 10 s on a loaded machine */
        test_conn c;
        if (test_conn_open(&c, f->kv_port) == 0) {
            test_conn_close(&c);
            return 0;
        }
        const struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    return -1;
}

static int setup(void **state) {
    static fixture f;
    if (test_redis_start(&f.redis, NULL) != 0) return -1;
    if (start_kvserver(&f) != 0) return -1;
    *state = &f;
    return 0;
}

static int teardown(void **state) {
    fixture *f = *state;
    kill(f->kv_pid, SIGTERM);
    waitpid(f->kv_pid, NULL, 0);
    test_redis_stop(&f->redis);
    return 0;
}

/* Commands as space-separated words ('_' stands for an empty word). */
static const char *const script[] = {
    "PING",
    "PING hello",
    "PING a b", /* Redis' arity error, not a syntax error (the overlay's syntax_error) */
    "PING a b c",
    "ECHO hi",
    "ECHO",
    "ECHO a b",
    "GET k",
    "SET k v",
    "GET k",
    "set K v2 nx",
    "SET k v2 NX",
    "SET k v3 XX GET",
    "GET k",
    "SET nx v XX",
    "SET k v NX XX",
    "SET k v XX NX",
    "SET k v NX NX",
    "SET k v GET GET",
    "SET k v EX",
    "SET k v EX 0",
    "SET k v EX -5",
    "SET k v EX abc",
    "SET k v EX 10 PX 10",
    "SET k v EX 10 EX 20",
    "SET k v KEEPTTL EX 10",
    "SET k v EX 10 KEEPTTL",
    "SET k v PX 9223372036854775807",
    "SET k v EX 9223372036854775",
    "SET k v EX abc FOO",
    "SET k v EX abc EX 100",
    "SET k v FOO",
    "SET k v EXAT 0",
    "SET k v PXAT 1",
    "GET k",
    "SET k v EX 100",
    "TTL k",
    "SET k v KEEPTTL",
    "TTL k",
    "SET k v",
    "TTL k",
    "TTL nokey",
    "SET",
    "SET k",
    "GET",
    "GET a b",
    "INCR n",
    "INCR n",
    "INCRBY n 10",
    "INCRBY n -3",
    "INCRBY n abc",
    "INCRBY n 1.5",
    "INCR k",
    "SET big 9223372036854775807",
    "INCR big",
    "INCRBY n",
    "MSET a 1 b 2",
    "MSET a 1 b",
    "MSET a",
    "MGET a b nokey",
    "MGET",
    "DEL a b c",
    "DEL",
    "EXISTS k k nokey",
    "EXISTS",
    "EXPIRE k 100",
    "TTL k",
    "EXPIRE k 100 NX",
    "EXPIRE k 50 XX",
    "TTL k",
    "EXPIRE k 10 GT",
    "EXPIRE k 1000 GT",
    "EXPIRE k 10 LT",
    "TTL k",
    "EXPIRE k 10 NX XX",
    "EXPIRE k 10 GT LT",
    "EXPIRE k 20 XX GT", /* clearly later: equal-ms timing must not decide */
    "EXPIRE k 10 FOO",
    "EXPIRE k abc",
    "EXPIRE k abc FOO",
    "EXPIRE nokey 10",
    "EXPIRE k 9223372036854775807",
    "EXPIRE k -1",
    "GET k",
    "EXPIRE k",
    "HELLO abc",
    "HELLO 1 FOO",
    "HELLO 4",
    "HELLO 3 FOO",
    "HELLO 3 AUTH u",
    "HELLO 3 SETNAME",
    "FOO",
    "FOO bar baz",
    "foo _",
    "COMMAND FOO",
    "COMMAND COUNT x",
    "GETX k",
    "_",
    "SET _ _",
    "GET _",
};

static size_t split(char *line, const char **argv, size_t cap) {
    size_t n = 0;
    for (char *w = strtok(line, " "); w && n < cap; w = strtok(NULL, " ")) {
        argv[n++] = strcmp(w, "_") == 0 ? "" : w;
    }
    return n;
}

static void test_same_replies(void **state) {
    fixture *f = *state;
    test_conn r, k;
    assert_int_equal(test_conn_open(&r, f->redis.port), 0);
    assert_int_equal(test_conn_open(&k, f->kv_port), 0);
    for (size_t i = 0; i < sizeof script / sizeof script[0]; i++) {
        char line[256];
        const char *argv[16];
        snprintf(line, sizeof line, "%s", script[i]);
        const size_t argc = split(line, argv, 16);
        char want[1024], got[1024];
        assert_int_equal(test_conn_command(&r, want, sizeof want, argc, argv), 0);
        assert_int_equal(test_conn_command(&k, got, sizeof got, argc, argv), 0);
        if (strcmp(want, got) != 0) print_error("command: %s\n", script[i]);
        assert_string_equal(got, want);
    }
    test_conn_close(&r);
    test_conn_close(&k);
}

/* A reply's bytes on one line for failure messages: CR, LF and NUL shown as '.'. */
static void show(const char *what, const char *p, size_t n) {
    char line[1100];
    size_t i = 0;
    for (; i < n && i + 1 < sizeof line; i++)
        line[i] = p[i] == '\r' || p[i] == '\n' || !p[i] ? '.' : p[i];
    line[i] = '\0';
    print_error("%s: %s\n", what, line);
}

/* Raw bytes, inline commands included: the same reply bytes from both (NULs too), up to the
 * connection's end. */
static void same_raw(const fixture *f, const char *bytes, size_t n, size_t replies) {
    test_conn r, k;
    assert_int_equal(test_conn_open(&r, f->redis.port), 0);
    assert_int_equal(test_conn_open(&k, f->kv_port), 0);
    assert_int_equal(test_conn_send(&r, bytes, n), 0);
    assert_int_equal(test_conn_send(&k, bytes, n), 0);
    for (size_t i = 0; i < replies; i++) {
        char want[1024], got[1024];
        size_t want_len, got_len;
        assert_int_equal(test_conn_reply_raw(&r, want, sizeof want, &want_len), 0);
        assert_int_equal(test_conn_reply_raw(&k, got, sizeof got, &got_len), 0);
        if (got_len != want_len || memcmp(got, want, got_len) != 0) {
            show("redis   ", want, want_len);
            show("kvserver", got, got_len);
            fail_msg("reply %zu differs", i);
        }
    }
    test_conn_close(&r);
    test_conn_close(&k);
}

static void test_raw_requests(void **state) {
    const fixture *f = *state;
    static const char inl[] = "PING\r\nECHO \"a\\x41\\n b\"\r\nSET 'x y' \"1\"\nGET 'x y'\n\n"
                              "EXISTS x\r\n*2\r\n$4\r\nECHO\r\n$3\r\nabc\r\n";
    same_raw(f, inl, sizeof inl - 1, 6);
    static const char bad[] = "PING\r\n*1\r\n$4\r\nPING\r\n*x\r\n";
    same_raw(f, bad, sizeof bad - 1, 3);
    static const char quotes[] = "ECHO \"abc\r\n";
    same_raw(f, quotes, sizeof quotes - 1, 1);
}

/* A NUL before an inline line's end: Redis never finds the end (strchr), runs nothing after it
 * and refuses the request past 64 KiB; so does kvserver. And a line over 64 KiB in one write. */
static void test_inline_nul_and_limit(void **state) {
    const fixture *f = *state;
    static const char head[] = "PING\r\nPING\0\r\nPING\r\n";
    const size_t pad = 70000;
    char *nul = malloc(sizeof head - 1 + pad);
    memcpy(nul, head, sizeof head - 1);
    memset(nul + sizeof head - 1, 'A', pad);
    same_raw(f, nul, sizeof head - 1 + pad, 2);
    free(nul);
    const size_t n = 300000; /* past what Redis' reads can hold before a limit check */
    char *line = malloc(n + 2);
    memcpy(line, "ECHO ", 5);
    memset(line + 5, 'a', n - 5);
    memcpy(line + n, "\r\n", 2);
    same_raw(f, line, n + 2, 1);
    free(line);
}

/* Words quoted in error texts stop at their first NUL, as Redis formats them with %s: the
 * unknown command, its arguments, HELLO's and EXPIRE's option words. */
static void test_nul_in_error_texts(void **state) {
    const fixture *f = *state;
    static const char unknown[] = "*1\r\n$2\r\nP\0\r\n*3\r\n$2\r\nN\0\r\n$3\r\na\0b\r\n$1\r\nc\r\n";
    same_raw(f, unknown, sizeof unknown - 1, 2);
    static const char quoted[] = "\"P\\x00Q\" 'a' \"\\x00b\"\r\n";
    same_raw(f, quoted, sizeof quoted - 1, 1);
    static const char hello[] = "*3\r\n$5\r\nHELLO\r\n$1\r\n3\r\n$3\r\nx\0y\r\n";
    same_raw(f, hello, sizeof hello - 1, 1);
    static const char expire[] = "*4\r\n$6\r\nEXPIRE\r\n$1\r\nk\r\n$2\r\n10\r\n$3\r\nN\0X\r\n";
    same_raw(f, expire, sizeof expire - 1, 1);
}

static void expect_alive(const fixture *f) {
    test_conn c;
    assert_int_equal(test_conn_open(&c, f->kv_port), 0);
    const char *const argv[] = {"PING"};
    char out[64];
    assert_int_equal(test_conn_command(&c, out, sizeof out, 1, argv), 0);
    assert_string_equal(out, "+PONG");
    test_conn_close(&c);
}

static void test_garbage_and_disconnects(void **state) {
    const fixture *f = *state;
    srand(42);
    for (int round = 0; round < 50; round++) {
        test_conn c;
        assert_int_equal(test_conn_open(&c, f->kv_port), 0);
        char junk[4096];
        const size_t n = 1 + (size_t)rand() % sizeof junk;
        for (size_t i = 0; i < n; i++) junk[i] = (char)rand();
        if (round % 3 == 0) junk[0] = '*';
        (void)test_conn_send(&c, junk, n);
        test_conn_close(&c);
    }
    /* mid-request disconnects: half a header, half a payload, a huge announced bulk */
    static const char *const halves[] = {"*3\r\n$3\r\nSET\r\n$1", "*2\r\n$4\r\nECHO\r\n$10\r\nabc",
                                         "*2\r\n$4\r\nECHO\r\n$536870912\r\nab", "SET a"};
    for (size_t i = 0; i < 4; i++) {
        test_conn c;
        assert_int_equal(test_conn_open(&c, f->kv_port), 0);
        assert_int_equal(test_conn_send(&c, halves[i], strlen(halves[i])), 0);
        test_conn_close(&c);
    }
    expect_alive(f);
}

/* 10k commands encoded with the generated client, sent in one write, read back in order. */
static void test_pipeline(void **state) {
    const fixture *f = *state;
    enum { N = 10000 };
    char *buf = malloc(N * 64);
    size_t len = 0;
    for (int i = 0; i < N; i++) {
        char key[32];
        const int kn = snprintf(key, sizeof key, "p:%d", i / 2);
        const rg_view k = {key, (size_t)kn};
        if (i % 2 == 0) {
            const kv_set_opts opts = {0};
            len += kv_set_encode(buf + len, 64, k, k, &opts);
        } else {
            len += kv_get_encode(buf + len, 64, k);
        }
    }
    test_conn c;
    assert_int_equal(test_conn_open(&c, f->kv_port), 0);
    assert_int_equal(test_conn_send(&c, buf, len), 0);
    for (int i = 0; i < N; i++) {
        char out[64], want[64];
        assert_int_equal(test_conn_reply(&c, out, sizeof out), 0);
        if (i % 2 == 0) {
            snprintf(want, sizeof want, "+OK");
        } else {
            snprintf(want, sizeof want, "p:%d", i / 2);
        }
        assert_string_equal(out, want);
    }
    test_conn_close(&c);
    free(buf);
}

/* Runs redis-cli against the server; its output must start with want. */
static void run_cli(const fixture *f, const char *args, const char *want) {
    char cmd[256], out[256] = "";
    snprintf(cmd, sizeof cmd, "redis-cli -p %d %s 2>&1", f->kv_port, args);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    const size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    pclose(p);
    out[n < strlen(want) ? n : strlen(want)] = '\0';
    assert_string_equal(out, want);
}

static void test_redis_cli(void **state) {
    const fixture *f = *state;
    run_cli(f, "SET cli 'hello world'", "OK\n");
    run_cli(f, "GET cli", "hello world\n");
    run_cli(f, "-3 HELLO 3", "server kvserver\nversion 0.1.0\nproto 3\n");
    run_cli(f, "-3 SET k3 v", "OK\n");
    run_cli(f, "-3 GET nokey3", "\n");
    run_cli(f, "NOSUCH x", "ERR unknown command 'NOSUCH', with args beginning with: 'x' \n");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_replies),
        cmocka_unit_test(test_raw_requests),
        cmocka_unit_test(test_nul_in_error_texts),
        cmocka_unit_test(test_inline_nul_and_limit),
        cmocka_unit_test(test_garbage_and_disconnects),
        cmocka_unit_test(test_pipeline),
        cmocka_unit_test(test_redis_cli),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
