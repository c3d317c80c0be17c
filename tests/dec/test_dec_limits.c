/* Limits at their boundaries (depth, max_bulk, max_elements, max_line, the number line caps) and
 * chunked delivery of big payloads to a caller that holds only about 1 KiB at a time. */
#include "declog.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

typedef struct outcome {
    rg_status st;
    uint64_t err_off;
    size_t events;
    rg_event last;
} outcome;

/* Decodes s[0..n) in one call sequence. */
static outcome decode(const rg_limits *lim, const char *s, size_t n) {
    rg_reader r;
    rg_reader_init(&r, lim);
    outcome o = {RG_OK, 0, 0, {0}};
    size_t pos = 0;
    rg_event ev;
    dl_decoder_active = 1;
    while ((o.st = rg_next(&r, s, n, &pos, &ev)) == RG_OK) o.events++, o.last = ev;
    dl_decoder_active = 0;
    if (o.st >= RG_ERR_PROTOCOL) {
        const rg_error e = rg_reader_error(&r);
        assert_int_equal(e.status, o.st);
        assert_non_null(e.msg.ptr);
        o.err_off = e.offset;
    }
    return o;
}

static outcome decode_str(const rg_limits *lim, const char *s) {
    return decode(lim, s, strlen(s));
}

static void expect_error(const rg_limits *lim, const char *s, rg_status want, uint64_t off) {
    outcome o = decode_str(lim, s);
    if (o.st != want || o.err_off != off)
        fail_msg("%s: got %s at %llu, want %s at %llu", s, dl_status_name(o.st),
                 (unsigned long long)o.err_off, dl_status_name(want), (unsigned long long)off);
}

static void expect_ok(const rg_limits *lim, const char *s) {
    outcome o = decode_str(lim, s);
    if (o.st != RG_NEED_MORE) fail_msg("%s: got %s, want no error", s, dl_status_name(o.st));
}

static rg_limits limits_with(uint32_t depth, uint64_t bulk, uint64_t elements, uint64_t line,
                             uint64_t stream_min) {
    rg_limits l = rg_limits_default();
    if (depth) l.max_depth = depth;
    if (bulk) l.max_bulk = bulk;
    if (elements) l.max_elements = elements;
    if (line) l.max_line = line;
    if (stream_min) l.stream_min = stream_min;
    return l;
}

/* ---- depth ---- */

/* Ways to open one level of nesting around an inner value, and what closes it. */
static const struct {
    const char *open, *close;
} levels[] = {
    {"*1\r\n", ""},
    {"%1\r\n+k\r\n", ""},
    {"~1\r\n", ""},
    {">1\r\n", ""},
    {"*?\r\n", ".\r\n"},
    {"%?\r\n+k\r\n", ".\r\n"},
    {"|1\r\n+a\r\n", ":0\r\n"}, /* nested in the attribute's value; then the annotated value */
    {"~?\r\n", ".\r\n"},
};
#define NLEVELS (sizeof levels / sizeof *levels)

/* d levels, starting at pattern `rot`, around ":1\r\n"; *bad_off is where level `limit + 1`
 * opens. */
static char *nest(size_t d, size_t rot, size_t limit, uint64_t *bad_off) {
    dl_str s = {0};
    for (size_t i = 0; i < d; i++) {
        if (i == limit) *bad_off = s.len;
        const char *o = levels[(i + rot) % NLEVELS].open;
        dl_str_add(&s, o, strlen(o));
    }
    dl_str_add(&s, ":1\r\n", 4);
    for (size_t i = d; i-- > 0;) {
        const char *c = levels[(i + rot) % NLEVELS].close;
        dl_str_add(&s, c, strlen(c));
    }
    return s.p;
}

static void test_depth_boundaries(void **state) {
    (void)state;
    static const uint32_t limits[] = {1, 2, 3, 5, 17, RG_MAX_DEPTH};
    for (size_t li = 0; li < sizeof limits / sizeof *limits; li++) {
        uint32_t L = limits[li];
        rg_limits lim = limits_with(L, 0, 0, 0, 0);
        for (size_t rot = 0; rot < NLEVELS; rot++) {
            uint64_t bad = 0;
            char *ok = nest(L, rot, L, &bad);
            outcome o = decode_str(&lim, ok);
            if (o.st != RG_NEED_MORE || !o.last.complete)
                fail_msg("depth %u exactly (rot %zu): %s", L, rot, dl_status_name(o.st));
            free(ok);
            char *over = nest(L + 1, rot, L, &bad);
            expect_error(&lim, over, RG_ERR_DEPTH, bad);
            free(over);
        }
    }
    /* the default */
    uint64_t bad = 0;
    char *s = nest(RG_MAX_DEPTH, 0, RG_MAX_DEPTH, &bad);
    expect_ok(NULL, s);
    free(s);
    s = nest(RG_MAX_DEPTH + 1, 0, RG_MAX_DEPTH, &bad);
    expect_error(NULL, s, RG_ERR_DEPTH, bad);
    free(s);
}

/* ---- max_bulk: checked on the header, before any payload byte ---- */

static void test_max_bulk(void **state) {
    (void)state;
    rg_limits lim = limits_with(0, 10, 0, 0, 0);
    expect_ok(&lim, "$10\r\n0123456789\r\n");
    expect_error(&lim, "$11\r\n", RG_ERR_LIMIT, 0);
    expect_ok(&lim, "!10\r\n0123456789\r\n");
    expect_error(&lim, "!11\r\n", RG_ERR_LIMIT, 0);
    expect_ok(&lim, "=10\r\ntxt:456789\r\n");
    expect_error(&lim, "=11\r\n", RG_ERR_LIMIT, 0);
    /* a piece of a streamed string is a string chunk */
    expect_ok(&lim, "$?\r\n;10\r\n0123456789\r\n;0\r\n");
    expect_error(&lim, "$?\r\n;11\r\n", RG_ERR_LIMIT, 4);
    /* many pieces may add up to more than max_bulk */
    expect_ok(&lim, "$?\r\n;10\r\n0123456789\r\n;10\r\n0123456789\r\n;0\r\n");
    /* chunked delivery does not lift the limit on one bulk */
    rg_limits chunked = limits_with(0, 10, 0, 0, 4);
    expect_ok(&chunked, "$10\r\n0123456789\r\n");
    expect_error(&chunked, "$11\r\n", RG_ERR_LIMIT, 0);

    /* the default: 512 MiB is fine, one byte more is refused with no payload sent */
    outcome o = decode_str(NULL, "$536870912\r\n");
    assert_int_equal(o.st, RG_NEED_MORE);
    expect_error(NULL, "$536870913\r\n", RG_ERR_LIMIT, 0);
    expect_error(NULL, "!536870913\r\n", RG_ERR_LIMIT, 0);
    expect_error(NULL, "=536870913\r\n", RG_ERR_LIMIT, 0);
    expect_error(NULL, "$9223372036854775807\r\n", RG_ERR_LIMIT, 0);
}

/* ---- max_elements: pairs count 2, without overflow ---- */

static void test_max_elements(void **state) {
    (void)state;
    /* the default, INT32_MAX */
    static const char *const ok[] = {"*2147483647\r\n", "~2147483647\r\n", ">2147483647\r\n",
                                     "%1073741823\r\n", "|1073741823\r\n"};
    static const char *const over[] = {"*2147483648\r\n",          "~2147483648\r\n",
                                       ">2147483648\r\n",          "%1073741824\r\n",
                                       "|1073741824\r\n",          "*4294967295\r\n",
                                       "%4611686018427387904\r\n", "%9223372036854775807\r\n"};
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        outcome o = decode_str(NULL, ok[i]);
        if (o.st != RG_NEED_MORE || o.events != 1)
            fail_msg("%s: %s after %zu events", ok[i], dl_status_name(o.st), o.events);
    }
    for (size_t i = 0; i < sizeof over / sizeof *over; i++)
        expect_error(NULL, over[i], RG_ERR_LIMIT, 0);

    /* a small limit refuses a huge header at once, before any element */
    rg_limits small = limits_with(0, 0, 5, 0, 0);
    expect_error(&small, "*4294967295\r\n", RG_ERR_LIMIT, 0);
    expect_error(&small, "%3\r\n", RG_ERR_LIMIT, 0);
    expect_ok(&small, "*5\r\n:1\r\n:2\r\n:3\r\n:4\r\n:5\r\n");
    expect_ok(&small, "%2\r\n:1\r\n:2\r\n:3\r\n:4\r\n");

    /* doubling must not overflow: INT64_MAX pairs are 2^64-2 elements, within UINT64_MAX */
    rg_limits huge = limits_with(0, 0, UINT64_MAX, 0, 0);
    outcome o = decode_str(&huge, "%9223372036854775807\r\n");
    assert_int_equal(o.st, RG_NEED_MORE);
    assert_int_equal(o.events, 1);
    assert_true(o.last.u.i == INT64_MAX);
    /* and 2^62 pairs are 2^63 elements, one over INT64_MAX */
    rg_limits i64 = limits_with(0, 0, (uint64_t)INT64_MAX, 0, 0);
    expect_error(&i64, "%4611686018427387904\r\n", RG_ERR_LIMIT, 0);
    expect_error(&i64, "|4611686018427387904\r\n", RG_ERR_LIMIT, 0);
    expect_ok(&i64, "%4611686018427387903\r\n");
}

/* ---- max_line and the number line caps: a line that cannot end in time fails early ---- */

/* Feeds s one byte at a time and returns how many bytes were presented when it failed (0 when it
 * never did). */
static size_t bytes_until_error(const rg_limits *lim, const char *s, size_t n, rg_status *st_out) {
    rg_reader r;
    rg_reader_init(&r, lim);
    size_t pos = 0;
    for (size_t len = 1; len <= n; len++) {
        rg_event ev;
        rg_status st;
        while ((st = rg_next(&r, s, len, &pos, &ev)) == RG_OK) continue;
        if (st != RG_NEED_MORE) {
            *st_out = st;
            return len;
        }
    }
    return 0;
}

static void test_max_line(void **state) {
    (void)state;
    /* the line is the type byte, the text and CRLF */
    rg_limits lim = limits_with(0, 0, 0, 10, 0);
    expect_ok(&lim, "+1234567\r\n");
    expect_error(&lim, "+12345678\r\n", RG_ERR_LIMIT, 0);
    expect_ok(&lim, "-1234567\r\n");
    expect_error(&lim, "-12345678\r\n", RG_ERR_LIMIT, 0);
    expect_ok(&lim, "(1234567\r\n");
    expect_error(&lim, "(12345678\r\n", RG_ERR_LIMIT, 0);

    char line[300];
    for (const char *t = "+-("; *t; t++) {
        line[0] = *t;
        memset(line + 1, '7', sizeof line - 1);
        rg_status st;
        size_t at = bytes_until_error(&lim, line, sizeof line, &st);
        if (at == 0 || at > 11)
            fail_msg("'%c' line with max_line 10 failed after %zu bytes", *t, at);
        assert_int_equal(st, RG_ERR_LIMIT);
    }
}

static void test_number_line_max(void **state) {
    (void)state;
    char line[400];
    /* zeros are digits everywhere, so only the line cap can stop these */
    for (const char *t = ":$*%~>|#_"; *t; t++) {
        line[0] = *t;
        memset(line + 1, '0', sizeof line - 1);
        rg_status st;
        size_t at = bytes_until_error(NULL, line, sizeof line, &st);
        if (at == 0 || at > RG_NUM_LINE_MAX + 1)
            fail_msg("'%c' number line failed after %zu bytes", *t, at);
    }
    /* a streamed string's piece header */
    memcpy(line, "$?\r\n;", 5);
    memset(line + 5, '0', sizeof line - 5);
    rg_status st;
    size_t at = bytes_until_error(NULL, line, sizeof line, &st);
    if (at == 0 || at > 4 + RG_NUM_LINE_MAX + 1) fail_msg("';' line failed after %zu bytes", at);
    /* doubles have their own cap */
    line[0] = ',';
    line[1] = '1';
    memset(line + 2, '0', sizeof line - 2);
    at = bytes_until_error(NULL, line, sizeof line, &st);
    if (at == 0 || at > RG_DOUBLE_LINE_MAX + 1) fail_msg("',' line failed after %zu bytes", at);
}

/* ---- chunked delivery: the caller holds ~1 KiB whatever the payload size ---- */

typedef struct chunked_run {
    dl_str joined;
    size_t chunks, max_held, need_more;
    bool began, ended;
    rg_event begin;
} chunked_run;

/* Streams `msg` to a reader 1 KiB at a time through a buffer of `cap` bytes; every event is used
 * at once and only the unread bytes are kept. */
static void stream_through(const rg_limits *lim, const char *msg, size_t n, size_t cap,
                           chunked_run *out) {
    rg_reader r;
    rg_reader_init(&r, lim);
    char *buf = malloc(cap);
    assert_non_null(buf);
    size_t held = 0, sent = 0;
    memset(out, 0, sizeof *out);
    while (sent < n || held) {
        size_t add = n - sent < 1024 ? n - sent : 1024;
        if (held + add > cap)
            fail_msg("the caller would hold %zu bytes (cap %zu)", held + add, cap);
        memcpy(buf + held, msg + sent, add);
        held += add;
        sent += add;
        if (held > out->max_held) out->max_held = held;
        size_t pos = 0;
        rg_event ev;
        rg_status st;
        dl_decoder_active = 1;
        while ((st = rg_next(&r, buf, held, &pos, &ev)) == RG_OK) {
            dl_decoder_active = 0;
            if (ev.kind == RG_EV_STR_BEGIN) out->began = true, out->begin = ev;
            if (ev.kind == RG_EV_STR_CHUNK) {
                assert_true(ev.str.ptr >= buf && ev.str.ptr + ev.str.len <= buf + held);
                dl_str_add(&out->joined, ev.str.ptr, ev.str.len);
                out->chunks++;
            }
            if (ev.kind == RG_EV_STR_END) {
                out->ended = true;
                assert_true(ev.complete);
            }
            dl_decoder_active = 1;
        }
        dl_decoder_active = 0;
        assert_int_equal(st, RG_NEED_MORE);
        out->need_more++;
        memmove(buf, buf + pos, held - pos);
        held -= pos;
        if (sent == n && pos == 0) break;
    }
    assert_int_equal(held, 0);
    assert_true(rg_reader_idle(&r));
    assert_int_equal(rg_reader_values(&r), 1);
    free(buf);
}

static char *make_payload(size_t n) {
    char *p = malloc(n);
    uint64_t seed = 42;
    for (size_t i = 0; i < n; i++) p[i] = (char)(dl_rand(&seed) & 0xff);
    return p;
}

static void test_stream_min_big_bulk(void **state) {
    (void)state;
    const size_t N = 1 << 20;
    char *payload = make_payload(N);
    for (const char *t = "$!"; *t; t++) {
        dl_str msg = {0};
        dl_str_addf(&msg, "%c%zu\r\n", *t, N);
        dl_str_add(&msg, payload, N);
        dl_str_add(&msg, "\r\n", 2);
        rg_limits lim = limits_with(0, 0, 0, 0, 64 * 1024);
        chunked_run run;
        stream_through(&lim, msg.p, msg.len, 1024 + 64, &run);
        assert_true(run.began && run.ended);
        assert_int_equal(run.begin.u.i, (int64_t)N);
        assert_int_equal(run.joined.len, N);
        assert_memory_equal(run.joined.p, payload, N);
        assert_true(run.chunks >= N / 1024);
        dl_str_free(&run.joined);
        dl_str_free(&msg);
    }
    free(payload);
    assert_int_equal(dl_decoder_allocs, 0);
}

static void test_stream_min_big_verbatim(void **state) {
    (void)state;
    const size_t N = 1 << 20;
    char *payload = make_payload(N);
    memcpy(payload, "txt:", 4);
    dl_str msg = {0};
    dl_str_addf(&msg, "=%zu\r\n", N);
    dl_str_add(&msg, payload, N);
    dl_str_add(&msg, "\r\n", 2);
    rg_limits lim = limits_with(0, 0, 0, 0, 4096);
    chunked_run run;
    stream_through(&lim, msg.p, msg.len, 1024 + 64, &run);
    assert_true(run.began && run.ended);
    assert_int_equal(run.begin.sub, RG_EV_VERBATIM);
    assert_int_equal(run.begin.fmt.len, 3);
    assert_int_equal(run.joined.len, N - 4);
    assert_memory_equal(run.joined.p, payload + 4, N - 4);
    dl_str_free(&run.joined);
    dl_str_free(&msg);
    free(payload);
}

/* A streamed string of 16 pieces of 64 KiB: the caller need not hold a whole piece either. */
static void test_streamed_string_big_pieces(void **state) {
    (void)state;
    const size_t piece = 64 * 1024, pieces = 16;
    char *payload = make_payload(piece * pieces);
    dl_str msg = {0};
    dl_str_add(&msg, "$?\r\n", 4);
    for (size_t i = 0; i < pieces; i++) {
        dl_str_addf(&msg, ";%zu\r\n", piece);
        dl_str_add(&msg, payload + i * piece, piece);
        dl_str_add(&msg, "\r\n", 2);
    }
    dl_str_add(&msg, ";0\r\n", 4);
    chunked_run run;
    stream_through(NULL, msg.p, msg.len, 1024 + 64, &run);
    assert_true(run.began && run.ended);
    assert_int_equal(run.begin.u.i, -1);
    assert_int_equal(run.joined.len, piece * pieces);
    assert_memory_equal(run.joined.p, payload, piece * pieces);
    dl_str_free(&run.joined);
    dl_str_free(&msg);
    free(payload);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_depth_boundaries),
        cmocka_unit_test(test_max_bulk),
        cmocka_unit_test(test_max_elements),
        cmocka_unit_test(test_max_line),
        cmocka_unit_test(test_number_line_max),
        cmocka_unit_test(test_stream_min_big_bulk),
        cmocka_unit_test(test_stream_min_big_verbatim),
        cmocka_unit_test(test_streamed_string_big_pieces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
