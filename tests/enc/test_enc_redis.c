/* The encoder against a real redis-server: every double layout rg_fmt_double produces is accepted
 * as a score and stored as exactly that double, NaN is refused, and binary values (full of \r\n)
 * sent through rg_argv_encode and through rg_argv_encode_iov + writev() come back intact. */
#include "rg_enc.h"
#include "test_redis.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

typedef test_fixture fixture;

static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* ZADD with our text, then ZSCORE: the stored score must be v (Redis replies "%.17g"). */
static void check_score(fixture *f, double v) {
    char text[RG_DOUBLE_MAX_LEN + 1], out[128];
    text[rg_fmt_double(text, v)] = '\0';
    const char *const zadd[] = {"ZADD", "z", text, "m"};
    assert_int_equal(test_conn_command(&f->conn, out, sizeof out, 4, zadd), 0);
    if (out[0] != ':') fail_msg("ZADD z %s m -> %s", text, out);
    const char *const zscore[] = {"ZSCORE", "z", "m"};
    assert_int_equal(test_conn_command(&f->conn, out, sizeof out, 3, zscore), 0);
    const double back = strtod(out, NULL);
    /* Redis keeps -0 as a score but replies "0"; every other value must come back bit for bit. */
    if (memcmp(&back, &v, sizeof v) != 0 && !(v == 0 && back == 0)) {
        fail_msg("score %s stored as %s", text, out);
    }
}

static void test_scores(void **state) {
    fixture *f = *state;
    static const double fixed[] = {0.0,
                                   -0.0,
                                   0.1,
                                   0.3,
                                   1e23,
                                   5e-324,
                                   1e-5,
                                   1.5e-7,
                                   1e16,
                                   1e17,
                                   9007199254740992.0,
                                   -2.2250738585072014e-308,
                                   1.7976931348623157e308,
                                   INFINITY,
                                   -INFINITY};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) check_score(f, fixed[i]);
    for (int e = -1074; e <= 1023; e += 3) check_score(f, ldexp(-1.0, e));
    for (uint64_t c = 1; c < 300; c++) { /* subnormals: strtod sets ERANGE, Redis must not mind */
        double v;
        memcpy(&v, &c, sizeof v);
        check_score(f, v);
    }
    uint64_t seed = 3;
    for (size_t i = 0; i < 3000;) {
        const uint64_t bits = splitmix(&seed);
        double v;
        memcpy(&v, &bits, sizeof v);
        if (isnan(v)) continue;
        check_score(f, v);
        i++;
    }
}

static void test_nan_refused(void **state) {
    fixture *f = *state;
    char text[RG_DOUBLE_MAX_LEN + 1], out[128];
    text[rg_fmt_double(text, NAN)] = '\0';
    const char *const zadd[] = {"ZADD", "z", text, "m"};
    assert_int_equal(test_conn_command(&f->conn, out, sizeof out, 4, zadd), 0);
    assert_string_equal(out, "-ERR value is not a valid float");
}

/* ---- binary values, flat and scattered ------------------------------------------------------ */

/* Bytes 1..255 (no NUL: the reply renderer makes C strings), half of them \r or \n. */
static char *random_payload(uint64_t *seed, size_t len) {
    char *p = malloc(len + 1);
    assert_non_null(p);
    for (size_t i = 0; i < len; i++) {
        const uint64_t r = splitmix(seed);
        p[i] = r % 4 == 0 ? '\r' : r % 4 == 1 ? '\n' : (char)(1 + (r >> 8) % 255);
    }
    return p;
}

static void send_flat(fixture *f, size_t argc, const rg_view *argv) {
    const size_t size = rg_argv_size(argc, argv);
    char *buf = malloc(size);
    assert_non_null(buf);
    assert_int_equal(rg_argv_encode(buf, size, argc, argv), size);
    assert_int_equal(test_conn_send(&f->conn, buf, size), 0);
    free(buf);
}

/* writev() until every entry is out, resuming after partial writes. */
static void writev_all(int fd, rg_iov *iov, size_t n) {
    while (n > 0) {
        ssize_t w = writev(fd, (const struct iovec *)(const void *)iov, (int)(n < 1024 ? n : 1024));
        if (w < 0 && errno == EINTR) continue;
        assert_true(w > 0);
        while (n > 0 && (size_t)w >= iov->len) {
            w -= (ssize_t)iov->len;
            iov++;
            n--;
        }
        if (n > 0) {
            iov->base = (const char *)iov->base + w;
            iov->len -= (size_t)w;
        }
    }
}

static void send_iov(fixture *f, size_t argc, const rg_view *argv) {
    const size_t cap = rg_argv_iov_count(argc), scratch_size = rg_argv_iov_scratch_size(argc, argv);
    rg_iov *iov = malloc(cap * sizeof *iov);
    char *scratch = malloc(scratch_size);
    assert_true(iov != NULL && scratch != NULL);
    const size_t n = rg_argv_encode_iov(iov, cap, scratch, scratch_size, argc, argv);
    assert_true(n >= 1);
    writev_all(f->conn.fd, iov, n);
    free(iov);
    free(scratch);
}

static void expect_reply(fixture *f, const char *want, size_t want_len) {
    char *out = malloc(want_len + 2);
    assert_non_null(out);
    assert_int_equal(test_conn_reply(&f->conn, out, want_len + 2), 0);
    assert_int_equal(strlen(out), want_len);
    assert_memory_equal(out, want, want_len);
    free(out);
}

static void test_binary_values(void **state) {
    fixture *f = *state;
    static const size_t sizes[] = {0, 1, 2, RG_IOV_COPY_MIN - 1, RG_IOV_COPY_MIN, 70000, 1 << 20};
    uint64_t seed = 11;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        for (int scattered = 0; scattered < 2; scattered++) {
            char *value = random_payload(&seed, sizes[i]);
            const rg_view set[] = {RG_LIT("SET"), RG_LIT("k\r\n"), {value, sizes[i]}};
            (scattered ? send_iov : send_flat)(f, 3, set);
            expect_reply(f, "+OK", 3);
            const rg_view get[] = {RG_LIT("GET"), RG_LIT("k\r\n")};
            send_flat(f, 2, get);
            expect_reply(f, value, sizes[i]);
            free(value);
        }
    }
}

/* One command with many arguments of mixed sizes, some referenced by the iovec form. */
static void test_many_arguments(void **state) {
    fixture *f = *state;
    enum { N = 300 };
    uint64_t seed = 12;
    rg_view argv[N + 2] = {RG_LIT("RPUSH"), RG_LIT("list")};
    char *values[N];
    for (size_t i = 0; i < N; i++) {
        const size_t len = (size_t)(splitmix(&seed) % 3000);
        values[i] = random_payload(&seed, len);
        argv[i + 2] = (rg_view){values[i], len};
    }
    send_iov(f, N + 2, argv);
    expect_reply(f, ":300", 4);
    for (size_t i = 0; i < N; i += 37) {
        char index[16];
        snprintf(index, sizeof index, "%zu", i);
        const rg_view lindex[] = {RG_LIT("LINDEX"), RG_LIT("list"), {index, strlen(index)}};
        send_flat(f, 3, lindex);
        expect_reply(f, values[i], argv[i + 2].len);
    }
    for (size_t i = 0; i < N; i++) free(values[i]);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scores),
        cmocka_unit_test(test_nan_refused),
        cmocka_unit_test(test_binary_values),
        cmocka_unit_test(test_many_arguments),
    };
    return cmocka_run_group_tests(tests, test_fixture_setup, test_fixture_teardown);
}
