/* The decoder's small API: names, the kind table, defaults, idle/values/offset bookkeeping,
 * zero-copy views, rg_feed pausing, sticky errors, and that the reader holds no pointers. */
#include "declog.h"

#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* Decodes the whole of s with fresh defaults and returns the status that ended it. */
static rg_status decode_all(rg_reader *r, const char *s, size_t n, size_t *pos, rg_event *evs,
                            size_t cap, size_t *nev) {
    rg_status st;
    *nev = 0;
    rg_event ev;
    dl_decoder_active = 1;
    while ((st = rg_next(r, s, n, pos, &ev)) == RG_OK)
        if (*nev < cap) evs[(*nev)++] = ev;
    dl_decoder_active = 0;
    return st;
}

static void test_status_names(void **state) {
    (void)state;
    for (unsigned s = 0; s < RG_STATUS_COUNT; s++) {
        assert_string_equal(rg_status_name((rg_status)s), dl_status_name(s));
        assert_true(strlen(rg_status_meaning((rg_status)s)) > 0);
        /* the sticky errors are the last ones, and only they */
        assert_int_equal(rg_status_fatal((rg_status)s), s >= RG_ERR_PROTOCOL);
    }
    assert_non_null(rg_status_name(RG_STATUS_COUNT));
    assert_non_null(rg_status_meaning(RG_STATUS_COUNT));
    assert_non_null(rg_status_name((rg_status)200));
}

static void test_kind_names(void **state) {
    (void)state;
    assert_string_equal(rg_kind_name(RG_EV_ARRAY), "array");
    for (unsigned k = 0; k < RG_EV_KIND_COUNT; k++) {
        const char *name = rg_kind_name((rg_kind)k);
        assert_non_null(name);
        assert_true(name[0] != '\0');
        for (const char *p = name; *p; p++) assert_false(isupper((unsigned char)*p));
        for (unsigned j = 0; j < k; j++) assert_string_not_equal(name, rg_kind_name((rg_kind)j));
    }
    assert_non_null(rg_kind_name(RG_EV_KIND_COUNT));
    assert_non_null(rg_kind_name((rg_kind)255));
}

static void test_kind_bytes(void **state) {
    (void)state;
    static const char bytes[RG_EV_KIND_COUNT] = {
        [RG_EV_SIMPLE] = '+',
        [RG_EV_ERROR] = '-',
        [RG_EV_INT] = ':',
        [RG_EV_BULK] = '$',
        [RG_EV_NULL] = '_',
        [RG_EV_BOOL] = '#',
        [RG_EV_DOUBLE] = ',',
        [RG_EV_BIGNUM] = '(',
        [RG_EV_BLOBERR] = '!',
        [RG_EV_VERBATIM] = '=',
        [RG_EV_ARRAY] = '*',
        [RG_EV_MAP] = '%',
        [RG_EV_SET] = '~',
        [RG_EV_PUSH] = '>',
        [RG_EV_ATTR] = '|',
        /* the streamed end marker and a streamed string's piece header */
        [RG_EV_END] = '.',
        [RG_EV_STR_CHUNK] = ';',
    };
    for (unsigned k = 0; k < RG_EV_KIND_COUNT; k++) {
        if (rg_kind_byte((rg_kind)k) != bytes[k])
            fail_msg("rg_kind_byte(%s) = %d, want '%c'", dl_kind_name(k), rg_kind_byte((rg_kind)k),
                     bytes[k] ? bytes[k] : '0');
    }
    assert_int_equal(rg_kind_byte(RG_EV_KIND_COUNT), 0);
    assert_int_equal(rg_kind_byte((rg_kind)255), 0);
}

static void test_limits_default(void **state) {
    (void)state;
    rg_limits l = rg_limits_default();
    assert_int_equal(l.max_depth, RG_MAX_DEPTH);
    assert_int_equal(l.max_bulk, RG_DEFAULT_MAX_BULK);
    assert_int_equal(l.max_elements, RG_DEFAULT_MAX_ELEMENTS);
    assert_int_equal(l.max_line, RG_DEFAULT_MAX_LINE);
    assert_true(l.stream_min == UINT64_MAX);
}

static void test_empty_input(void **state) {
    (void)state;
    rg_reader r;
    rg_reader_init(&r, NULL);
    assert_true(rg_reader_idle(&r));
    assert_int_equal(rg_reader_error(&r).status, RG_OK);
    assert_null(rg_reader_error(&r).msg.ptr);
    assert_int_equal(rg_reader_offset(&r), 0);
    assert_int_equal(rg_reader_values(&r), 0);
    size_t pos = 0;
    rg_event ev;
    assert_int_equal(rg_next(&r, NULL, 0, &pos, &ev), RG_NEED_MORE);
    assert_int_equal(pos, 0);
    char one[1] = {'+'};
    pos = 1; /* an empty unread range at the end of a non-empty buffer */
    assert_int_equal(rg_next(&r, one, 1, &pos, &ev), RG_NEED_MORE);
    assert_int_equal(pos, 1);
    assert_true(rg_reader_idle(&r));
    assert_int_equal(rg_reader_offset(&r), 0);
}

/* Idle, values and offset after every step of a small session. */
static void test_bookkeeping(void **state) {
    (void)state;
    static const char s[] = "+OK\r\n*2\r\n:1\r\n|1\r\n+a\r\n+b\r\n:2\r\n_\r\n";
    struct {
        rg_kind kind;
        size_t pos;
        bool idle;
        uint64_t values;
    } want[] = {
        {RG_EV_SIMPLE, 5, true, 1}, {RG_EV_ARRAY, 9, false, 1},   {RG_EV_INT, 13, false, 1},
        {RG_EV_ATTR, 17, false, 1}, {RG_EV_SIMPLE, 21, false, 1}, {RG_EV_SIMPLE, 25, false, 1},
        {RG_EV_END, 25, false, 1},  {RG_EV_INT, 29, false, 1},    {RG_EV_END, 29, true, 2},
        {RG_EV_NULL, 32, true, 3},
    };
    rg_reader r;
    rg_reader_init(&r, NULL);
    size_t pos = 0;
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        rg_event ev;
        assert_int_equal(rg_next(&r, s, sizeof s - 1, &pos, &ev), RG_OK);
        assert_int_equal(ev.kind, want[i].kind);
        assert_int_equal(pos, want[i].pos);
        assert_int_equal(rg_reader_offset(&r), want[i].pos);
        assert_int_equal(rg_reader_idle(&r), want[i].idle);
        assert_int_equal(rg_reader_values(&r), want[i].values);
    }
    rg_event ev;
    assert_int_equal(rg_next(&r, s, sizeof s - 1, &pos, &ev), RG_NEED_MORE);
    assert_int_equal(pos, sizeof s - 1);

    /* a consumed bulk header with its payload still to come is not idle */
    rg_reader_init(&r, NULL);
    pos = 0;
    assert_int_equal(rg_next(&r, "$5\r\nhel", 7, &pos, &ev), RG_NEED_MORE);
    if (pos > 0) assert_false(rg_reader_idle(&r));
    assert_int_equal(rg_reader_offset(&r), pos);
}

static void test_zero_copy_views(void **state) {
    (void)state;
    static const char s[] =
        "$5\r\nhello\r\n+OK\r\n=9\r\ntxt:abcde\r\n,1.5\r\n(12\r\n!3\r\nERR\r\n-E\r\n";
    rg_event evs[16];
    size_t nev, pos = 0;
    rg_reader r;
    rg_reader_init(&r, NULL);
    assert_int_equal(decode_all(&r, s, sizeof s - 1, &pos, evs, 16, &nev), RG_NEED_MORE);
    assert_int_equal(nev, 7);
    assert_ptr_equal(evs[0].str.ptr, s + 4);
    assert_int_equal(evs[0].str.len, 5);
    assert_ptr_equal(evs[1].str.ptr, strstr(s, "OK"));
    assert_int_equal(evs[1].str.len, 2);
    assert_ptr_equal(evs[2].fmt.ptr, strstr(s, "txt"));
    assert_int_equal(evs[2].fmt.len, 3);
    assert_ptr_equal(evs[2].str.ptr, strstr(s, "abcde"));
    assert_int_equal(evs[2].str.len, 5);
    assert_ptr_equal(evs[3].str.ptr, strstr(s, "1.5"));
    assert_int_equal(evs[3].str.len, 3);
    assert_ptr_equal(evs[4].str.ptr, strstr(s, "(12") + 1);
    assert_ptr_equal(evs[5].str.ptr, strstr(s, "ERR"));
    assert_ptr_equal(evs[6].str.ptr, strstr(s, "-E") + 1);
    assert_int_equal(dl_decoder_allocs, 0);
}

/* Chunk views point into the buffer of the call that produced them, at the payload bytes. */
static void test_zero_copy_chunks(void **state) {
    (void)state;
    static const char s[] = "$?\r\n;3\r\nabc\r\n;0\r\n$6\r\nabcdef\r\n";
    rg_limits lim = rg_limits_default();
    lim.stream_min = 4;
    rg_reader r;
    rg_reader_init(&r, &lim);
    rg_event evs[16];
    size_t nev, pos = 0;
    assert_int_equal(decode_all(&r, s, sizeof s - 1, &pos, evs, 16, &nev), RG_NEED_MORE);
    assert_int_equal(nev, 6);
    assert_int_equal(evs[1].kind, RG_EV_STR_CHUNK);
    assert_ptr_equal(evs[1].str.ptr, s + 8);
    assert_int_equal(evs[4].kind, RG_EV_STR_CHUNK);
    assert_ptr_equal(evs[4].str.ptr, strstr(s, "abcdef"));
    assert_int_equal(evs[4].str.len, 6);
}

typedef struct pause_ctx {
    int events;
    int pause_at; /* pause after this many events */
    rg_kind kinds[32];
} pause_ctx;

static int pause_cb(void *ud, const rg_event *ev) {
    pause_ctx *c = ud;
    c->kinds[c->events++ % 32] = ev->kind;
    return c->events == c->pause_at;
}

static void test_feed_pause(void **state) {
    (void)state;
    static const char s[] = "*2\r\n:1\r\n:2\r\n+OK\r\n";
    /* pause after the n-th event: *pos is right after it, and resuming delivers the rest */
    static const size_t pos_after[] = {0, 4, 8, 12, 12, 17};
    for (int at = 1; at <= 5; at++) {
        rg_reader r;
        rg_reader_init(&r, NULL);
        pause_ctx c = {0, at, {0}};
        size_t pos = 0;
        assert_int_equal(rg_feed(&r, s, sizeof s - 1, &pos, pause_cb, &c), RG_PAUSED);
        assert_int_equal(c.events, at);
        assert_int_equal(pos, pos_after[at]);
        assert_int_equal(rg_reader_offset(&r), pos);
        assert_int_equal(rg_feed(&r, s, sizeof s - 1, &pos, pause_cb, &c), RG_NEED_MORE);
        assert_int_equal(c.events, 5);
        assert_int_equal(pos, sizeof s - 1);
        assert_int_equal(c.kinds[3], RG_EV_END);
        assert_int_equal(c.kinds[4], RG_EV_SIMPLE);
        assert_int_equal(rg_reader_values(&r), 2);
    }
}

static void test_feed_error(void **state) {
    (void)state;
    static const char s[] = "*2\r\n:1\r\n:1x\r\n";
    rg_reader r;
    rg_reader_init(&r, NULL);
    pause_ctx c = {0, -1, {0}};
    size_t pos = 0;
    assert_int_equal(rg_feed(&r, s, sizeof s - 1, &pos, pause_cb, &c), RG_ERR_PROTOCOL);
    assert_int_equal(c.events, 2);
    assert_int_equal(pos, 8); /* the start of the bad token */
    const rg_error e = rg_reader_error(&r);
    assert_int_equal(e.status, RG_ERR_PROTOCOL);
    assert_non_null(e.msg.ptr);
    assert_int_equal(e.msg.len, strlen(e.msg.ptr));
    assert_int_equal(e.offset, 10);
    /* sticky for both APIs, whatever the input */
    assert_int_equal(rg_feed(&r, "+OK\r\n", 5, &(size_t){0}, pause_cb, &c), RG_ERR_PROTOCOL);
    rg_event ev;
    assert_int_equal(rg_next(&r, "+OK\r\n", 5, &(size_t){0}, &ev), RG_ERR_PROTOCOL);
    assert_int_equal(rg_next(&r, NULL, 0, &(size_t){0}, &ev), RG_ERR_PROTOCOL);
    assert_int_equal(c.events, 2);
    /* init starts over */
    rg_reader_init(&r, NULL);
    assert_int_equal(rg_reader_error(&r).status, RG_OK);
    pos = 0;
    assert_int_equal(rg_next(&r, "+OK\r\n", 5, &pos, &ev), RG_OK);
    assert_int_equal(ev.kind, RG_EV_SIMPLE);
}

/* "Safe to copy between calls while no views are held": a copy taken mid-value decodes the
 * rest exactly as the original does, so the reader holds no pointers into itself or the input. */
static void kinds_until_need_more(rg_reader *r, const char *buf, size_t len, size_t *pos,
                                  dl_str *out) {
    rg_event ev;
    rg_status st;
    while ((st = rg_next(r, buf, len, pos, &ev)) == RG_OK)
        dl_str_addf(out, "%s ", dl_kind_name(ev.kind));
    assert_int_equal(st, RG_NEED_MORE);
}

static void test_reader_copy(void **state) {
    (void)state;
    static const char s[] = "*3\r\n+abcdefgh\r\n$6\r\nxyzxyz\r\n%1\r\n:1\r\n,2.5\r\n";
    size_t n = sizeof s - 1;
    dl_str ref = {0};
    rg_reader r;
    rg_reader_init(&r, NULL);
    kinds_until_need_more(&r, s, n, &(size_t){0}, &ref);
    for (size_t cut = 1; cut < n; cut++) {
        rg_reader a;
        rg_reader_init(&a, NULL);
        size_t pos = 0;
        dl_str log = {0};
        kinds_until_need_more(&a, s, cut, &pos, &log);
        rg_reader b = a;
        memset(&a, 0xa5, sizeof a); /* the copy must not depend on the original */
        char buf[64];
        memcpy(buf, s + pos, n - pos); /* the unread bytes, moved */
        size_t p2 = 0;
        kinds_until_need_more(&b, buf, n - pos, &p2, &log);
        assert_int_equal(p2, n - pos);
        assert_string_equal(log.p, ref.p);
        assert_int_equal(rg_reader_values(&b), 1);
        assert_true(rg_reader_idle(&b));
        dl_str_free(&log);
    }
    dl_str_free(&ref);
}

/* Limits outside 1..RG_MAX_DEPTH mean RG_MAX_DEPTH. */
static void test_init_depth_clamp(void **state) {
    (void)state;
    char s[(RG_MAX_DEPTH + 1) * 4 + 4];
    for (int i = 0; i <= RG_MAX_DEPTH; i++) memcpy(s + 4 * i, "*1\r\n", 4);
    memcpy(s + 4 * (RG_MAX_DEPTH + 1), ":1\r\n", 4);
    static const uint32_t depths[] = {0, RG_MAX_DEPTH, RG_MAX_DEPTH + 1, 1000, UINT32_MAX};
    for (size_t i = 0; i < sizeof depths / sizeof *depths; i++) {
        rg_limits lim = rg_limits_default();
        lim.max_depth = depths[i];
        for (int over = 0; over < 2; over++) {
            rg_reader r;
            rg_reader_init(&r, &lim);
            size_t pos = over ? 0 : 4, nev;
            rg_event evs[2 * RG_MAX_DEPTH + 4];
            rg_status st = decode_all(&r, s, sizeof s, &pos, evs, 2 * RG_MAX_DEPTH + 4, &nev);
            if (over) {
                assert_int_equal(st, RG_ERR_DEPTH);
                assert_int_equal(rg_reader_error(&r).status, RG_ERR_DEPTH);
                assert_int_equal(rg_reader_error(&r).offset, RG_MAX_DEPTH * 4);
            } else {
                assert_int_equal(st, RG_NEED_MORE);
                assert_int_equal(rg_reader_values(&r), 1);
            }
        }
    }
}

static void test_no_allocation(void **state) {
    (void)state;
    /* every event kind, chunked and not, then an error */
    static const char s[] = "*?\r\n%1\r\n+a\r\n~1\r\n>1\r\n|1\r\n:1\r\n#t\r\n,1e3\r\n.\r\n"
                            "$?\r\n;2\r\nab\r\n;0\r\n=9\r\ntxt:hello\r\n!2\r\nER\r\n(7\r\n"
                            "$-1\r\n*-1\r\n_\r\n-E\r\n$3\r\nabc\r\n+x\r\n@";
    rg_limits lim = rg_limits_default();
    lim.stream_min = 3;
    size_t n = sizeof s - 1;
    for (size_t step = 1; step <= 8; step++) {
        rg_reader r;
        rg_reader_init(&r, &lim);
        size_t pos = 0, len = 0;
        rg_status st;
        do {
            len = len + step < n ? len + step : n;
            rg_event ev;
            dl_decoder_active = 1;
            while ((st = rg_next(&r, s, len, &pos, &ev)) == RG_OK) continue;
            dl_decoder_active = 0;
        } while (st == RG_NEED_MORE && len < n);
        assert_int_equal(st, RG_ERR_PROTOCOL);
        assert_int_equal(rg_reader_values(&r), 11);
    }
    assert_int_equal(dl_decoder_allocs, 0);
}

/* A short token cut by the end of the input is left unconsumed and read again from its start;
 * of a longer bulk the header is consumed and only the payload waited for. */
static void test_partial_tokens(void **state) {
    (void)state;
    static const struct {
        const char *in; /* cut one byte before its end */
        size_t pos;     /* *pos after RG_NEED_MORE */
    } cases[] = {
        {"$5\r\nhello\r\n", 0},
        {":12345\r\n", 0},
        {"+OK\r\n", 0},
        {"*3\r\n", 0},
        {"$-1\r\n", 0},
        {"$26\r\nabcdefghijklmnopqrstuvwxyz\r\n", 5}, /* 33 bytes: over RG_NUM_LINE_MAX */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *in = cases[i].in;
        const size_t n = strlen(in);
        rg_reader r;
        rg_reader_init(&r, NULL);
        size_t pos = 0;
        rg_event ev;
        assert_int_equal(rg_next(&r, in, n - 1, &pos, &ev), RG_NEED_MORE);
        assert_int_equal(pos, cases[i].pos);
        assert_int_equal(rg_reader_offset(&r), pos);
        assert_int_equal(rg_next(&r, in, n, &pos, &ev), RG_OK);
        assert_int_equal(pos, n);
        assert_true(ev.complete || ev.kind == RG_EV_ARRAY);
    }
}

/* rg_next_batch stops at max with RG_OK, and takes max 0 (and then a NULL array). */
static void test_batch_bounds(void **state) {
    (void)state;
    static const char s[] = "*2\r\n:1\r\n:2\r\n+OK\r\n";
    rg_reader r;
    rg_reader_init(&r, NULL);
    size_t pos = 0;
    rg_status st = RG_ERR_PROTOCOL;
    assert_int_equal(rg_next_batch(&r, s, sizeof s - 1, &pos, NULL, 0, &st), 0);
    assert_int_equal(st, RG_OK);
    assert_int_equal(pos, 0);
    rg_event evs[8];
    assert_int_equal(rg_next_batch(&r, s, sizeof s - 1, &pos, evs, 2, &st), 2);
    assert_int_equal(st, RG_OK);
    assert_int_equal(evs[0].kind, RG_EV_ARRAY);
    assert_int_equal(evs[1].u.i, 1);
    assert_int_equal(rg_next_batch(&r, s, sizeof s - 1, &pos, evs, 8, &st), 3);
    assert_int_equal(st, RG_NEED_MORE);
    assert_int_equal(evs[1].kind, RG_EV_END);
    assert_true(evs[1].complete);
    assert_int_equal(evs[2].kind, RG_EV_SIMPLE);
    assert_int_equal(pos, sizeof s - 1);
    assert_int_equal(rg_reader_values(&r), 2);
}

/* RESP3 doubles read bit for bit as strtod reads them: the decoder's exact path (up to 15
 * digits) and strtod for the rest, on random decimals of 1 to 18 digits with signs, points and
 * exponents, and the edges. */
static void test_double_bits(void **state) {
    (void)state;
    static const char *const fixed[] = {"0",
                                        "-0",
                                        "+0",
                                        "1.5",
                                        ".5",
                                        "5.",
                                        "-.5",
                                        "+.5",
                                        "1e5",
                                        "1E-5",
                                        "inf",
                                        "-inf",
                                        "nan",
                                        "0.1",
                                        "0.3",
                                        "2.675",
                                        "9007199254740993",
                                        "123456789012345",
                                        "1234567890123456",
                                        "0.000000000000001",
                                        "-999999999999999",
                                        "1.7976931348623157e308",
                                        "4.9e-324",
                                        "99999999999999.9",
                                        "1.0000000000000002",
                                        "0.10000000000000001",
                                        "-0.29999999999999999",
                                        "+3.1400000000000001",
                                        "9007199254740993.0",
                                        "9007199254740993.5",
                                        "1844674407370955.1615",
                                        "9999999999999999999",
                                        "99999999999.99999999",
                                        "9223372036854775807",
                                        "9223372036854775808",
                                        "0.0000000000000000001",
                                        "12345678901234567890",
                                        "1.7976931348623157e+308",
                                        "2.2250738585072014e-308"};
    unsigned seed = 11;
    for (size_t k = 0; k < 60000; k++) {
        char text[40];
        if (k < sizeof fixed / sizeof *fixed) {
            snprintf(text, sizeof text, "%s", fixed[k]);
        } else {
            size_t n = 0;
            seed = seed * 1103515245u + 12345u;
            if ((seed >> 25) % 4 == 0) { /* any double as Redis 7.0 sends it: "%.17g" */
                double v;
                const uint64_t bits = (uint64_t)seed << 32 ^ (uint64_t)(seed * 2654435761u);
                memcpy(&v, &bits, sizeof v);
                if (v != v) v = 0; /* (printed "-nan" for some: no RESP3 double) */
                snprintf(text, sizeof text, (seed >> 20) % 2 ? "%.17g" : "%.16g", v);
                goto check;
            }
            const unsigned sign = (seed >> 28) & 3;
            if (sign == 1) text[n++] = '-';
            if (sign == 2) text[n++] = '+';
            const size_t digits = 1 + (seed >> 8) % 20, point = (seed >> 16) % (digits + 2);
            for (size_t i = 0; i < digits; i++) {
                if (i == point) text[n++] = '.';
                seed = seed * 1103515245u + 12345u;
                text[n++] = (char)('0' + (seed >> 16) % 10);
            }
            if ((seed >> 24) % 8 == 0)
                n += (size_t)snprintf(text + n, sizeof text - n, "e%d", (int)(seed % 41) - 20);
            text[n] = '\0';
        }
    check:;
        char line[48];
        const int len = snprintf(line, sizeof line, ",%s\r\n", text);
        rg_reader r;
        rg_reader_init(&r, NULL);
        size_t pos = 0;
        rg_event ev;
        if (rg_next(&r, line, (size_t)len, &pos, &ev) != RG_OK) fail_msg("\"%s\" refused", text);
        assert_int_equal(ev.kind, RG_EV_DOUBLE);
        const double want = strtod(text, NULL);
        if (memcmp(&ev.u.d, &want, sizeof want) != 0 && !(want != want && ev.u.d != ev.u.d))
            fail_msg("\"%s\" read as %.17g, strtod %.17g", text, ev.u.d, want);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_partial_tokens),  cmocka_unit_test(test_batch_bounds),
        cmocka_unit_test(test_status_names),    cmocka_unit_test(test_kind_names),
        cmocka_unit_test(test_kind_bytes),      cmocka_unit_test(test_limits_default),
        cmocka_unit_test(test_empty_input),     cmocka_unit_test(test_bookkeeping),
        cmocka_unit_test(test_zero_copy_views), cmocka_unit_test(test_zero_copy_chunks),
        cmocka_unit_test(test_feed_pause),      cmocka_unit_test(test_feed_error),
        cmocka_unit_test(test_reader_copy),     cmocka_unit_test(test_init_depth_clamp),
        cmocka_unit_test(test_no_allocation),   cmocka_unit_test(test_double_bits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
