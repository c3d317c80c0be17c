/* rg_argv_size / rg_argv_encode / rg_argv_encode_iov: the exact-size contract, refusal without
 * writing (short buffers, sizes past SIZE_MAX, views {NULL, n > 0}), the iovec layout, and byte
 * equality with an independent snprintf-based encoder over random argvs (payloads full of \r and
 * \n), decoded back with rg_next. */
#include "rg_dec.h"
#include "rg_enc.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__unix__) || defined(__APPLE__)
#include <sys/uio.h>
#include <unistd.h>
/* The header promises that an rg_iov array can be handed to writev() as struct iovec. */
_Static_assert(sizeof(rg_iov) == sizeof(struct iovec), "rg_iov size");
_Static_assert(offsetof(rg_iov, base) == offsetof(struct iovec, iov_base), "rg_iov base");
_Static_assert(offsetof(rg_iov, len) == offsetof(struct iovec, iov_len), "rg_iov len");
_Static_assert(sizeof(((rg_iov *)0)->len) == sizeof(((struct iovec *)0)->iov_len), "len size");
#define HAVE_WRITEV 1
#endif

enum { GUARD = 0x5a };

/* ---- the reference encoder: snprintf, written from the RESP spec --------------------------- */

static size_t ref_encode(char *out, size_t cap, size_t argc, const rg_view *argv) {
    size_t n = (size_t)snprintf(out, cap, "*%zu\r\n", argc);
    for (size_t i = 0; i < argc; i++) {
        n += (size_t)snprintf(out + n, cap - n, "$%zu\r\n", argv[i].len);
        if (argv[i].len) memcpy(out + n, argv[i].ptr, argv[i].len);
        n += argv[i].len;
        memcpy(out + n, "\r\n", 2);
        n += 2;
    }
    return n;
}

static size_t ref_size(size_t argc, const rg_view *argv) {
    char tmp[32];
    size_t n = (size_t)snprintf(tmp, sizeof tmp, "*%zu\r\n", argc);
    for (size_t i = 0; i < argc; i++) {
        n += (size_t)snprintf(tmp, sizeof tmp, "$%zu\r\n", argv[i].len) + argv[i].len + 2;
    }
    return n;
}

/* ---- checks shared by the fixed and the random cases --------------------------------------- */

static bool all_guard(const char *p, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if ((unsigned char)p[i] != GUARD) return false;
    }
    return true;
}

/* rg_argv_encode: exact size, exact bytes, nothing past them, refusal one byte short. */
static void check_flat(size_t argc, const rg_view *argv, const char *want, size_t size) {
    char *buf = malloc(size + 16);
    assert_non_null(buf);
    memset(buf, GUARD, size + 16);
    assert_int_equal(rg_argv_encode(buf, size, argc, argv), size);
    assert_memory_equal(buf, want, size);
    assert_true(all_guard(buf + size, 16));

    memset(buf, GUARD, size + 16);
    assert_int_equal(rg_argv_encode(buf, size - 1, argc, argv), 0);
    assert_int_equal(rg_argv_encode(buf, 0, argc, argv), 0);
    assert_true(all_guard(buf, size + 16));
    free(buf);
}

static bool in_range(const void *p, size_t len, const char *lo, size_t n) {
    const char *c = p;
    return c >= lo && c + len <= lo + n;
}

/* rg_argv_encode_iov: entries, their sources, merged scratch runs, and the bytes they add up to. */
static void check_iov_layout(const rg_iov *iov, size_t n, const char *scratch, size_t scratch_size,
                             size_t argc, const rg_view *argv) {
    size_t referenced = 0, arg = 0, scratch_used = 0;
    for (size_t i = 0; i < argc; i++) referenced += argv[i].len >= RG_IOV_COPY_MIN;
    assert_int_equal(n, 2 * referenced + 1);
    assert_true(n <= rg_argv_iov_count(argc));
    for (size_t i = 0; i < n; i++) {
        if (i % 2 == 0) { /* even entries are the scratch runs, in order and back to back */
            assert_ptr_equal(iov[i].base, scratch + scratch_used);
            assert_true(in_range(iov[i].base, iov[i].len, scratch, scratch_size));
            scratch_used += iov[i].len;
            continue;
        }
        while (argv[arg].len < RG_IOV_COPY_MIN) arg++; /* odd: the next referenced payload */
        assert_ptr_equal(iov[i].base, argv[arg].ptr);  /* the caller's bytes, not a copy */
        assert_int_equal(iov[i].len, argv[arg].len);
        arg++;
    }
    assert_int_equal(scratch_used, scratch_size);
}

static void check_iov(size_t argc, const rg_view *argv, const char *want, size_t size) {
    const size_t iov_cap = rg_argv_iov_count(argc);
    const size_t scratch_size = rg_argv_iov_scratch_size(argc, argv);
    rg_iov *iov = calloc(iov_cap, sizeof *iov);
    char *scratch = malloc(scratch_size + 16);
    assert_true(iov != NULL && scratch != NULL);
    memset(scratch, GUARD, scratch_size + 16);

    const size_t n = rg_argv_encode_iov(iov, iov_cap, scratch, scratch_size, argc, argv);
    assert_true(n >= 1);
    assert_true(all_guard(scratch + scratch_size, 16));
    check_iov_layout(iov, n, scratch, scratch_size, argc, argv);
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        assert_true(at + iov[i].len <= size);
        assert_memory_equal(want + at, iov[i].base, iov[i].len);
        at += iov[i].len;
    }
    assert_int_equal(at, size);

    /* Either capacity one short: 0, and nothing written. */
    memset(scratch, GUARD, scratch_size + 16);
    assert_int_equal(rg_argv_encode_iov(iov, n - 1, scratch, scratch_size, argc, argv), 0);
    assert_int_equal(rg_argv_encode_iov(iov, n, scratch, scratch_size - 1, argc, argv), 0);
    assert_true(all_guard(scratch, scratch_size + 16));
    free(scratch);
    free(iov);
}

/* Decodes the encoding back: one array of argc bulks with the argv bytes, nothing else. */
static void check_decodes(const char *buf, size_t size, size_t argc, const rg_view *argv) {
    rg_reader r;
    rg_reader_init(&r, NULL);
    size_t pos = 0, bulks = 0;
    rg_event ev;
    assert_int_equal(rg_next(&r, buf, size, &pos, &ev), RG_OK);
    assert_int_equal(ev.kind, RG_EV_ARRAY);
    assert_int_equal(ev.u.i, (int64_t)argc);
    while (!ev.complete) {
        assert_int_equal(rg_next(&r, buf, size, &pos, &ev), RG_OK);
        if (ev.kind == RG_EV_END) continue;
        assert_int_equal(ev.kind, RG_EV_BULK);
        assert_true(bulks < argc);
        assert_int_equal(ev.str.len, argv[bulks].len);
        if (ev.str.len) assert_memory_equal(ev.str.ptr, argv[bulks].ptr, ev.str.len);
        bulks++;
    }
    assert_int_equal(bulks, argc);
    assert_int_equal(pos, size);
    assert_true(rg_reader_idle(&r));
}

static void check_argv(size_t argc, const rg_view *argv) {
    const size_t size = rg_argv_size(argc, argv);
    assert_int_equal(size, ref_size(argc, argv));
    char *want = malloc(size + 1);
    assert_non_null(want);
    assert_int_equal(ref_encode(want, size + 1, argc, argv), size);
    check_flat(argc, argv, want, size);
    check_iov(argc, argv, want, size);
    check_decodes(want, size, argc, argv);
    free(want);
}

/* ---- fixed cases ------------------------------------------------------------------------------
 */

static void test_known(void **state) {
    (void)state;
    const rg_view set[] = {RG_LIT("SET"), RG_LIT("key"), RG_LIT("value")};
    const char want[] = "*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n";
    char buf[64];
    assert_int_equal(rg_argv_size(3, set), sizeof want - 1);
    assert_int_equal(rg_argv_encode(buf, sizeof buf, 3, set), sizeof want - 1);
    assert_memory_equal(buf, want, sizeof want - 1);
    check_argv(3, set);

    assert_int_equal(rg_argv_encode(buf, sizeof buf, 0, NULL), 4);
    assert_memory_equal(buf, "*0\r\n", 4);
    check_argv(0, NULL);

    const rg_view empty[] = {{NULL, 0}, RG_LIT(""), RG_LIT("\r\n"), RG_LIT("$-1\r\n")};
    check_argv(4, empty);
}

static void test_iov_large_values(void **state) {
    (void)state;
    static char big[3 * RG_IOV_COPY_MIN];
    memset(big, 'v', sizeof big);
    const rg_view argv[] = {
        RG_LIT("MSET"),
        RG_LIT("k1"),
        {big, RG_IOV_COPY_MIN},     /* referenced */
        {big, RG_IOV_COPY_MIN - 1}, /* copied */
        {big, 3 * RG_IOV_COPY_MIN}, /* referenced, right after the copied one */
        {big, RG_IOV_COPY_MIN},     /* referenced twice in a row */
    };
    rg_iov iov[13];
    char scratch[2 * RG_IOV_COPY_MIN];
    const size_t n = rg_argv_encode_iov(iov, 13, scratch, sizeof scratch, 6, argv);
    assert_int_equal(n, 7);
    assert_int_equal(rg_argv_iov_scratch_size(6, argv),
                     rg_argv_size(6, argv) - 5 * RG_IOV_COPY_MIN);
    /* "*6\r\n$4\r\nMSET\r\n$2\r\nk1\r\n$1024\r\n" | big | "\r\n$1023\r\n...\r\n$3072\r\n" | ... */
    const char head[] = "*6\r\n$4\r\nMSET\r\n$2\r\nk1\r\n$1024\r\n";
    assert_int_equal(iov[0].len, sizeof head - 1);
    assert_memory_equal(iov[0].base, head, sizeof head - 1);
    assert_ptr_equal(iov[1].base, big);
    assert_int_equal(iov[3].len, 3 * RG_IOV_COPY_MIN);
    assert_int_equal(iov[4].len, strlen("\r\n$1024\r\n"));
    assert_memory_equal(iov[4].base, "\r\n$1024\r\n", iov[4].len);
    assert_int_equal(iov[6].len, 2);
    check_argv(6, argv);
}

/* Views may name the same bytes many times over, so their lengths can add up past SIZE_MAX. */
static void test_overflow_refused(void **state) {
    (void)state;
    static const char byte = 'x';
    const rg_view huge[] = {{&byte, SIZE_MAX / 2}, {&byte, SIZE_MAX / 2}, {&byte, SIZE_MAX / 2}};
    assert_int_equal(rg_argv_size(3, huge), 0);
    assert_int_equal(rg_argv_size(1, (const rg_view[]){{&byte, SIZE_MAX - 3}}), 0);
    char buf[8] = {0};
    /* A cap of SIZE_MAX claims room for anything; the wrapped size must still be refused (the
     * payload is never read, so this is safe). */
    assert_int_equal(rg_argv_encode(buf, SIZE_MAX, 3, huge), 0);
    rg_iov iov[7];
    char scratch[256];
    assert_int_equal(rg_argv_encode_iov(iov, 7, scratch, sizeof scratch, 3, huge), 0);
    assert_int_equal(rg_argv_iov_count(SIZE_MAX), SIZE_MAX);
    assert_int_equal(rg_argv_iov_count(SIZE_MAX / 2), SIZE_MAX);
    assert_int_equal(rg_argv_iov_count(SIZE_MAX / 2 - 1), SIZE_MAX - 2);
    assert_int_equal(rg_argv_iov_count(0), 1);
}

/* A view {NULL, n > 0} has no bytes to copy: every function refuses the argv with 0 and writes
 * nothing, wherever the view is and whatever its length (copied or referenced by an iovec). The
 * same view with len 0 is an empty argument. */
static void test_null_view_refused(void **state) {
    (void)state;
    static const size_t lens[] = {1, 5, 31, 1023, RG_IOV_COPY_MIN, 1 << 20};
    char buf[256], scratch[256];
    rg_iov iov[9];
    for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++) {
        for (size_t at = 0; at < 4; at++) {
            rg_view argv[] = {RG_LIT("SET"), RG_LIT("k"), RG_LIT("v"), RG_LIT("x")};
            argv[at] = (rg_view){NULL, lens[l]};
            memset(buf, GUARD, sizeof buf);
            memset(scratch, GUARD, sizeof scratch);
            memset(iov, GUARD, sizeof iov);
            assert_int_equal(rg_argv_size(4, argv), 0);
            assert_int_equal(rg_argv_encode(buf, sizeof buf, 4, argv), 0);
            assert_int_equal(rg_argv_iov_scratch_size(4, argv), 0);
            assert_int_equal(rg_argv_encode_iov(iov, 9, scratch, sizeof scratch, 4, argv), 0);
            assert_true(all_guard(buf, sizeof buf));
            assert_true(all_guard(scratch, sizeof scratch));
            assert_true(all_guard((const char *)iov, sizeof iov));
        }
    }
    static const char want[] = "*2\r\n$4\r\nECHO\r\n$0\r\n\r\n";
    const rg_view empty[] = {RG_LIT("ECHO"), {NULL, 0}};
    assert_int_equal(rg_argv_encode(buf, sizeof buf, 2, empty), sizeof want - 1);
    assert_memory_equal(buf, want, sizeof want - 1);
}

#ifdef HAVE_WRITEV
/* The cast the header documents, through a real writev() into a pipe. */
static void test_writev(void **state) {
    (void)state;
    static char big[5000];
    for (size_t i = 0; i < sizeof big; i++) big[i] = (char)('a' + i % 26);
    const rg_view argv[] = {RG_LIT("SET"), RG_LIT("key"), {big, sizeof big}};
    rg_iov iov[7];
    char scratch[64];
    const size_t n = rg_argv_encode_iov(iov, 7, scratch, sizeof scratch, 3, argv);
    assert_int_equal(n, 3);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    const size_t size = rg_argv_size(3, argv);
    assert_int_equal(writev(fds[1], (const struct iovec *)(const void *)iov, (int)n),
                     (ssize_t)size);
    char *got = malloc(size), *want = malloc(size + 1);
    assert_true(got != NULL && want != NULL);
    size_t at = 0;
    while (at < size) {
        const ssize_t r = read(fds[0], got + at, size - at);
        assert_true(r > 0);
        at += (size_t)r;
    }
    assert_int_equal(ref_encode(want, size + 1, 3, argv), size);
    assert_memory_equal(got, want, size);
    close(fds[0]);
    close(fds[1]);
    free(got);
    free(want);
}
#endif

/* ---- random argvs -----------------------------------------------------------------------------
 */

static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

enum { POOL = 256 * 1024 };

/* A length from a mix that hits the interesting places: empty, short, digit-count boundaries,
 * around the iovec copy threshold, and large. */
static size_t random_len(uint64_t *seed) {
    const uint64_t r = splitmix(seed);
    switch (r % 16) {
    case 0: return 0;
    case 1:
    case 2: return (size_t)(r >> 8) % 17;
    case 3: return (size_t)(r >> 8) % 300;
    case 4: return (size_t)((const size_t[]){9, 10, 11, 99, 100, 101, 999, 1000})[(r >> 8) % 8];
    case 5: return RG_IOV_COPY_MIN - 2 + (size_t)(r >> 8) % 5;
    case 6: return (size_t)(r >> 8) % 10000;
    case 7: return (size_t)(r >> 8) % (POOL / 2);
    default: return (size_t)(r >> 8) % 64;
    }
}

static void random_argv(uint64_t *seed, const char *pool, rg_view *argv, size_t argc) {
    for (size_t i = 0; i < argc; i++) {
        const size_t len = random_len(seed);
        const size_t at = (size_t)(splitmix(seed) % (POOL - len + 1));
        argv[i] = (rg_view){len == 0 && at % 2 ? NULL : pool + at, len};
    }
}

static void test_random_argv(void **state) {
    (void)state;
    char *pool = malloc(POOL);
    assert_non_null(pool);
    uint64_t seed = 4242;
    for (size_t i = 0; i < POOL; i++) { /* mostly \r and \n, to look like RESP framing */
        const uint64_t r = splitmix(&seed);
        pool[i] = r % 10 < 3 ? '\r' : r % 10 < 6 ? '\n' : (char)(r >> 8);
    }
#ifdef NDEBUG
    const size_t rounds = 3000;
#else
    const size_t rounds = 500;
#endif
    rg_view argv[100];
    for (size_t round = 0; round < rounds; round++) {
        const size_t argc = (size_t)(splitmix(&seed) % 101);
        random_argv(&seed, pool, argv, argc);
        check_argv(argc, argv);
    }
    free(pool);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known),
        cmocka_unit_test(test_iov_large_values),
        cmocka_unit_test(test_overflow_refused),
        cmocka_unit_test(test_null_view_refused),
#ifdef HAVE_WRITEV
        cmocka_unit_test(test_writev),
#endif
        cmocka_unit_test(test_random_argv),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
