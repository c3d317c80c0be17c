/* Typed reply decoders generated from tests/gen/specs/replies.lua, one test per shape family,
 * each case fed three ways: whole, one byte at a time (the buffer grows in place), and by a
 * caller that copies the bytes it keeps (from rg_reply_start) into a fresh buffer before every
 * call and poisons the old one, so views that were not fixed up would read garbage. */
#include "replies_reply.h"

#include <math.h>
#include <setjmp.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

typedef void (*check_fn)(const void *out);

typedef union result_buf {
    max_align_t align;
    char bytes[1024];
} result_buf;

static alignas(max_align_t) char storage[1 << 16];

static void assert_view(rg_view v, const char *want) {
    assert_non_null(v.ptr);
    assert_int_equal(v.len, strlen(want));
    assert_memory_equal(v.ptr, want, v.len);
}

#define S(lit) lit, sizeof(lit) - 1

enum mode { WHOLE, BYTES, MOVING, MODES };

/* Decodes one reply of t from bytes in the given mode; returns the final status. */
static rg_status decode(enum mode m, const rg_rtable *t, const char *bytes, size_t n,
                        result_buf *out, char **owned, bool strict) {
    rg_reply_reader rr;
    rg_reply_reader_init(&rr, NULL);
    rg_reply_set_storage(&rr, storage, sizeof storage);
    *owned = NULL;
    if (m == WHOLE) {
        size_t pos = 0;
        const rg_status st = rg_reply_decode(&rr, t, bytes, n, &pos, out);
        if (strict && st != RG_NEED_MORE) assert_int_equal(pos, n);
        return st;
    }
    size_t consumed = 0; /* stream offset of the next unconsumed byte */
    char *prev = NULL;
    size_t prev_len = 0;
    for (size_t k = 1; k <= n; k++) {
        const size_t keep = m == MOVING ? (size_t)rg_reply_start(&rr) : 0;
        const char *buf = bytes;
        if (m == MOVING) {
            char *fresh = malloc(k - keep);
            assert_non_null(fresh);
            memcpy(fresh, bytes + keep, k - keep);
            if (prev) memset(prev, 'X', prev_len);
            free(prev);
            prev = fresh;
            prev_len = k - keep;
            buf = fresh;
        }
        size_t pos = consumed - keep;
        const rg_status st = rg_reply_decode(&rr, t, buf, k - keep, &pos, out);
        consumed = keep + pos;
        if (st != RG_NEED_MORE) {
            if (strict) assert_int_equal(k, n);
            if (strict) assert_int_equal(consumed, n);
            *owned = prev;
            return st;
        }
    }
    *owned = prev;
    return RG_NEED_MORE;
}

/* Every mode gives status want and a result that passes check (when want is OK). */
static void run(const rg_rtable *t, const char *bytes, size_t n, check_fn check, rg_status want) {
    for (int m = 0; m < MODES; m++) {
        result_buf out;
        char *owned;
        assert_true(t->result_size <= sizeof out.bytes);
        const rg_status st = decode((enum mode)m, t, bytes, n, &out, &owned, true);
        if (st != want)
            fail_msg("mode %d: %s, want %s", m, rg_status_name(st), rg_status_name(want));
        if (want == RG_OK) check(out.bytes);
        free(owned);
    }
}

#define OK(table, bytes, check) run(&table, S(bytes), check, RG_OK)

/* ---- integer ---- */

static void check_incr(const void *p) {
    const replies_incr_result *r = p;
    assert_int_equal(r->value, -42);
}

static void integer(void **state) {
    (void)state;
    OK(replies_incr_reply_table, ":-42\r\n", check_incr);
    OK(replies_incr_reply_table, "|1\r\n+ttl\r\n:3\r\n:-42\r\n", check_incr); /* attribute */
}

/* ---- simple OK, nullable bulk ---- */

static void check_ok(const void *p) {
    assert_view(((const replies_set_result *)p)->value, "OK");
}

static void check_old(const void *p) {
    assert_view(((const replies_set_result *)p)->value, "old");
}

static void check_null_view(const void *p) {
    const rg_view v = ((const replies_get_result *)p)->value;
    assert_null(v.ptr);
    assert_int_equal(v.len, 0);
}

static void check_hello(const void *p) {
    assert_view(((const replies_get_result *)p)->value, "hello");
}

static void check_empty(const void *p) {
    const rg_view v = ((const replies_get_result *)p)->value;
    assert_non_null(v.ptr);
    assert_int_equal(v.len, 0);
}

static void simple_and_nullable(void **state) {
    (void)state;
    OK(replies_set_reply_table, "+OK\r\n", check_ok);
    OK(replies_set_reply_table, "$3\r\nold\r\n", check_old);
    OK(replies_set_reply_table, "$-1\r\n", check_null_view);
    OK(replies_set_reply_table, "_\r\n", check_null_view);
    OK(replies_get_reply_table, "$5\r\nhello\r\n", check_hello);
    OK(replies_get_reply_table, "=9\r\ntxt:hello\r\n", check_hello);
    OK(replies_get_reply_table, "$0\r\n\r\n", check_empty);
    OK(replies_get_reply_table, "$-1\r\n", check_null_view);
    OK(replies_get_reply_table, "_\r\n", check_null_view);
}

/* ---- array of nullable bulk ---- */

static void check_mget(const void *p) {
    const replies_mget_result *r = p;
    assert_int_equal(r->value.count, 3);
    assert_view(r->value.items[0], "a");
    assert_null(r->value.items[1].ptr);
    assert_view(r->value.items[2], "");
}

static void check_smembers(const void *p) {
    const replies_smembers_result *r = p;
    assert_int_equal(r->value.count, 2);
    assert_view(r->value.items[0], "x");
    assert_view(r->value.items[1], "yy");
}

static void check_empty_array(const void *p) {
    const replies_smembers_result *r = p;
    assert_int_equal(r->value.count, 0);
}

static void arrays(void **state) {
    (void)state;
    OK(replies_mget_reply_table, "*3\r\n$1\r\na\r\n$-1\r\n$0\r\n\r\n", check_mget);
    OK(replies_mget_reply_table, "*3\r\n+a\r\n_\r\n$0\r\n\r\n", check_mget);
    OK(replies_smembers_reply_table, "*2\r\n$1\r\nx\r\n$2\r\nyy\r\n", check_smembers);
    OK(replies_smembers_reply_table, "~2\r\n$1\r\nx\r\n$2\r\nyy\r\n", check_smembers);
    OK(replies_smembers_reply_table, "*0\r\n", check_empty_array);
    OK(replies_smembers_reply_table, "~0\r\n", check_empty_array);
}

/* ---- map ---- */

static void check_hgetall(const void *p) {
    const replies_hgetall_result *r = p;
    assert_int_equal(r->value.count, 2);
    assert_view(r->value.items[0].key, "f1");
    assert_view(r->value.items[0].value, "v1");
    assert_view(r->value.items[1].key, "f2");
    assert_view(r->value.items[1].value, "");
}

/* HELLO: an object with named fields (bit i of present: field i in name order). */
static void check_hello_map(const void *p) {
    const replies_hello_result *r = p;
    assert_int_equal(r->value.present, 1u << 2 | 1u << 3 | 1u << 5); /* modules, proto, server */
    assert_view(r->value.server, "redis");
    assert_int_equal(r->value.proto, 3);
    assert_null(r->value.version.ptr);
    assert_int_equal(r->value.modules.count, 1);
    assert_int_equal(r->value.modules.items[0].present, 1u << 1); /* name */
    assert_view(r->value.modules.items[0].name, "m");
}

/* Raw values keep their whole RESP bytes even when a long bulk's header is consumed by a call
 * that ends before its payload (the decoder reads headers of bulks over 32 bytes on their own). */
#define LONG_TEXT "a value long enough to be read in two calls"

static void check_docs_long(const void *p) {
    const replies_command_docs_result *r = p;
    assert_int_equal(r->value.count, 1);
    assert_view(r->value.items[0].key, "get");
    assert_view(r->value.items[0].value.subcommands, "$43\r\n" LONG_TEXT "\r\n");
    assert_view(r->value.items[0].value.since, LONG_TEXT);
}

static void check_command_raw(const void *p) {
    assert_view(((const replies_command_result *)p)->value, "$43\r\n" LONG_TEXT "\r\n");
}

static void raw_long_bulks(void **state) {
    (void)state;
    OK(replies_command_docs_reply_table,
       "%1\r\n$3\r\nget\r\n%2\r\n$11\r\nsubcommands\r\n$43\r\n" LONG_TEXT
       "\r\n$5\r\nsince\r\n$43\r\n" LONG_TEXT "\r\n",
       check_docs_long);
    OK(replies_command_reply_table, "$43\r\n" LONG_TEXT "\r\n", check_command_raw);
}

static void maps(void **state) {
    (void)state;
    OK(replies_hgetall_reply_table, "*4\r\n$2\r\nf1\r\n$2\r\nv1\r\n$2\r\nf2\r\n$0\r\n\r\n",
       check_hgetall);
    OK(replies_hgetall_reply_table, "%2\r\n$2\r\nf1\r\n$2\r\nv1\r\n$2\r\nf2\r\n$0\r\n\r\n",
       check_hgetall);
    OK(replies_hgetall_reply_table, "*0\r\n", check_empty_array);
    OK(replies_hello_reply_table,
       "%3\r\n$6\r\nserver\r\n$5\r\nredis\r\n$5\r\nproto\r\n:3\r\n"
       "$7\r\nmodules\r\n*1\r\n%1\r\n+name\r\n+m\r\n",
       check_hello_map);
    OK(replies_hello_reply_table,
       "*6\r\n$6\r\nserver\r\n$5\r\nredis\r\n$5\r\nproto\r\n:3\r\n"
       "$7\r\nmodules\r\n*1\r\n*2\r\n+name\r\n+m\r\n",
       check_hello_map);
    /* Unknown keys (with any value) are skipped; a RESP3 attribute too. */
    OK(replies_hello_reply_table,
       "%5\r\n+extra\r\n*2\r\n:1\r\n%1\r\n+a\r\n+b\r\n$6\r\nserver\r\n$5\r\nredis\r\n"
       "+new\r\n$?\r\n;1\r\nx\r\n;0\r\n"
       "$5\r\nproto\r\n|1\r\n+k\r\n+v\r\n:3\r\n$7\r\nmodules\r\n*1\r\n%1\r\n+name\r\n+m\r\n",
       check_hello_map);
    run(&replies_hello_reply_table, S("%1\r\n$5\r\nproto\r\n$1\r\n3\r\n"), NULL, RG_MISMATCH);
    run(&replies_hello_reply_table, S("*3\r\n$5\r\nproto\r\n:3\r\n+x\r\n"), NULL, RG_MISMATCH);
    run(&replies_hello_reply_table, S("%1\r\n:1\r\n:3\r\n"), NULL, RG_MISMATCH);
}

/* ---- double ---- */

static void check_score(const void *p) {
    const replies_zscore_result *r = p;
    assert_int_equal(r->value.which, REPLIES_ZSCORE_REPLY_NUMBER);
    assert_true(r->value.number == 1.5);
}

static void check_score_null(const void *p) {
    assert_int_equal(((const replies_zscore_result *)p)->value.which, REPLIES_ZSCORE_REPLY_NULL);
}

static void check_score_inf(const void *p) {
    const replies_zscore_result *r = p;
    assert_int_equal(r->value.which, 1);
    assert_true(r->value.number > 1e308);
}

static void check_score_nan(const void *p) {
    const replies_zscore_result *r = p;
    assert_int_equal(r->value.which, REPLIES_ZSCORE_REPLY_NUMBER);
    assert_true(isnan(r->value.number));
}

static void doubles(void **state) {
    (void)state;
    OK(replies_zscore_reply_table, "$3\r\n1.5\r\n", check_score);
    OK(replies_zscore_reply_table, ",1.5\r\n", check_score);
    OK(replies_zscore_reply_table, "$3\r\ninf\r\n", check_score_inf);
    OK(replies_zscore_reply_table, ",inf\r\n", check_score_inf);
    OK(replies_zscore_reply_table, ",INF\r\n", check_score_inf);
    OK(replies_zscore_reply_table, "$3\r\nInf\r\n", check_score_inf);
    /* redis-server 7.0 sends Lua's 0/0 as ",-nan" (glibc's "%.17g" of a negative NaN) */
    OK(replies_zscore_reply_table, ",-nan\r\n", check_score_nan);
    OK(replies_zscore_reply_table, ",nan\r\n", check_score_nan);
    OK(replies_zscore_reply_table, ",NaN\r\n", check_score_nan);
    OK(replies_zscore_reply_table, "$4\r\n-nan\r\n", check_score_nan);
    OK(replies_zscore_reply_table, "+-NAN\r\n", check_score_nan);
    run(&replies_zscore_reply_table, S("$4\r\n+nan\r\n"), NULL, RG_MISMATCH);
    run(&replies_zscore_reply_table, S("$5\r\n--nan\r\n"), NULL, RG_MISMATCH);
    OK(replies_zscore_reply_table, "$-1\r\n", check_score_null);
    OK(replies_zscore_reply_table, "_\r\n", check_score_null);
    run(&replies_zscore_reply_table, S("$3\r\nabc\r\n"), NULL, RG_MISMATCH);
    run(&replies_zscore_reply_table, S("$1\r\n.\r\n"), NULL, RG_MISMATCH);

    /* Doubles sent as text read back exactly as strtod reads them (the quick path and its
     * fallback): random decimals of 1 to 20 digits with the point anywhere. */
    unsigned seed = 1;
    for (int k = 0; k < 5000; k++) {
        char text[32], reply[64];
        size_t n = 0;
        seed = seed * 1103515245u + 12345u;
        if (seed >> 31) text[n++] = '-';
        const size_t digits = 1 + (seed >> 8) % 20, point = (seed >> 16) % (digits + 1);
        for (size_t i = 0; i < digits; i++) {
            if (i == point && i > 0) text[n++] = '.';
            seed = seed * 1103515245u + 12345u;
            text[n++] = (char)('0' + (seed >> 16) % 10);
        }
        text[n] = '\0';
        const int len = snprintf(reply, sizeof reply, "$%zu\r\n%s\r\n", n, text);
        rg_reply_reader rr;
        rg_reply_reader_init(&rr, NULL);
        size_t pos = 0;
        replies_zscore_result r;
        assert_int_equal(replies_zscore_reply(&rr, reply, (size_t)len, &pos, &r), RG_OK);
        if (r.value.number != strtod(text, NULL))
            fail_msg("%s read as %.17g", text, r.value.number);
    }
}

/* Scores in a list of [member, score] pairs are read by the engine's own loop over short bulks
 * when the input has room after them: every string of up to 4 bytes over "0123456789.-+e" and
 * random longer ones must read exactly as strtod reads them (bit for bit, -0 included), or
 * mismatch where strtod does not read the whole string. Each candidate is the first score of a
 * ZPOPMIN reply whose second pair leaves room after it. */
static void check_score_text(const char *text, size_t n) {
    static const char pad[] = "mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm";
    char reply[256], tmp[32];
    const int len =
        snprintf(reply, sizeof reply, "*4\r\n$1\r\nm\r\n$%zu\r\n%.*s\r\n$%zu\r\n%s\r\n$1\r\n1\r\n",
                 n, (int)n, text, sizeof pad - 1, pad);
    memcpy(tmp, text, n);
    tmp[n] = '\0';
    char *end = NULL;
    const double want = strtod(tmp, &end);
    const bool number = n > 0 && end == tmp + n;
    rg_reply_reader rr;
    rg_reply_reader_init(&rr, NULL);
    rg_reply_set_storage(&rr, storage, sizeof storage);
    size_t pos = 0;
    replies_zpopmin_result r;
    const rg_status st = replies_zpopmin_reply(&rr, reply, (size_t)len, &pos, &r);
    if (!number) {
        if (st != RG_MISMATCH) fail_msg("\"%s\": %s, want a mismatch", tmp, rg_status_name(st));
        return;
    }
    if (st != RG_OK) fail_msg("\"%s\": %s", tmp, rg_status_name(st));
    assert_int_equal(r.value.count, 2);
    if (memcmp(&r.value.items[0].value, &want, sizeof want) != 0)
        fail_msg("\"%s\" read as %.17g, strtod %.17g", tmp, r.value.items[0].value, want);
}

static void score_texts(void **state) {
    (void)state;
    static const char alphabet[] = "0123456789.-+e";
    const size_t a = sizeof alphabet - 1;
    char text[32];
    for (size_t n = 0; n <= 4; n++) {
        size_t total = 1;
        for (size_t i = 0; i < n; i++) total *= a;
        for (size_t k = 0; k < total; k++) {
            size_t v = k;
            for (size_t i = 0; i < n; i++, v /= a) text[i] = alphabet[v % a];
            check_score_text(text, n);
        }
    }
    /* random decimals of 1 to 12 digits, a sign and a point anywhere, some junk mixed in */
    unsigned seed = 7;
    for (int k = 0; k < 300000; k++) {
        size_t n = 0;
        seed = seed * 1103515245u + 12345u;
        if ((seed >> 30) == 3) text[n++] = '-';
        const size_t digits = 1 + (seed >> 8) % 12, point = (seed >> 16) % (digits + 2);
        const bool junk = (seed >> 4) % 50 == 0;
        for (size_t i = 0; i < digits; i++) {
            if (i == point) text[n++] = '.';
            seed = seed * 1103515245u + 12345u;
            text[n++] = junk && (seed >> 12) % 4 == 0 ? alphabet[(seed >> 16) % a]
                                                      : (char)('0' + (seed >> 16) % 10);
        }
        if (point == digits) text[n++] = '.';
        check_score_text(text, n);
    }
    /* long ones, 13 to 21 digits (8 at a time after the point, rg_decimal beyond its common
     * case, too many for it), junk mixed in where the 8-digit steps look */
    for (int k = 0; k < 300000; k++) {
        size_t n = 0;
        seed = seed * 1103515245u + 12345u;
        if ((seed >> 30) == 3) text[n++] = '-';
        const size_t digits = 13 + (seed >> 8) % 9, point = (seed >> 16) % (digits + 2);
        const bool junk = (seed >> 4) % 10 == 0;
        for (size_t i = 0; i < digits; i++) {
            if (i == point) text[n++] = '.';
            seed = seed * 1103515245u + 12345u;
            text[n++] = junk && (seed >> 12) % 8 == 0 ? alphabet[(seed >> 16) % a]
                                                      : (char)('0' + (seed >> 16) % 10);
        }
        check_score_text(text, n);
    }
    /* what Redis before 7.2 sends: "%.17g" of doubles of every magnitude a score has */
    uint64_t x = 88172645463325252u;
    for (int k = 0; k < 300000; k++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        double d = (double)(x >> 11) * 0x1p-53 * 1e-4; /* (any double: strtod reads its text) */
        for (uint64_t e = (x & 31) % 20; e; e--) d *= 10;
        const int n = snprintf(text, sizeof text, "%.17g", (x >> 5 & 1) ? -d : d);
        check_score_text(text, (size_t)n);
    }
}

/* The texts the score loops read at once (17 to 19 bytes, 1 to 7 digits, a point, digits:
 * "%.17g" as Redis before 7.2 sends it), with leading zeros and zeros after the point, whole, cut
 * at every byte, and with each byte in turn replaced by each of ten that are not digits (or are
 * a second point), all against strtod: the one-load checks for digits, the point's place and the
 * digits around it, the 0 to 2 bytes before the text read as zeros. */
static void fused_score_texts(void **state) {
    (void)state;
    static const char bad[] = {'.', '/', ':',        'a',        '-',
                               '+', 'e', (char)0xb9, (char)0xba, (char)0xff};
    static const char *const fixed[] = {
        "0.0000000000000000",  "0.00000000000000000", "0.00000000000000001", "0000000.00000000001",
        "9999999.99999999999", "0.99999999999999999", "1.0000000000000002",  "9999999.9999999999",
        "1234567.1234567891",  "0.10000000000000001", "0.29999999999999999", "7.0000000000000000"};
    char text[32], cut[32];
    uint64_t x = 0x9e3779b97f4a7c15u;
    for (int k = 0; k < 3000 + (int)(sizeof fixed / sizeof *fixed); k++) {
        size_t n = 0;
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        if (k < (int)(sizeof fixed / sizeof *fixed)) {
            n = (size_t)snprintf(text, sizeof text, "%s", fixed[k]);
        } else {
            const size_t len = 16 + x % 5, ints = 1 + (x >> 3) % 7; /* 16 to 20 bytes */
            const unsigned zeros = (unsigned)(x >> 6) % 4;          /* 0: no run of zeros */
            for (size_t i = 0; i < len; i++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                const bool zero = zeros && (i < zeros || (i > ints && i <= ints + zeros * 3));
                text[n++] = i == ints ? '.' : zero ? '0' : (char)('0' + (x >> 20) % 10);
            }
            text[n] = '\0';
        }
        for (size_t c = 1; c <= n; c++) check_score_text(text, c);
        for (size_t i = 0; i < n; i++) {
            for (size_t b = 0; b < sizeof bad; b++) {
                memcpy(cut, text, n);
                cut[i] = bad[b];
                check_score_text(cut, n);
            }
        }
    }
}

/* ---- nested arrays ---- */

static void check_xrange(const void *p) {
    const replies_xrange_result *r = p;
    assert_int_equal(r->value.count, 2);
    assert_view(r->value.items[0].key, "1-0");
    assert_int_equal(r->value.items[0].value.count, 2);
    assert_view(r->value.items[0].value.items[0], "f");
    assert_view(r->value.items[0].value.items[1], "v");
    assert_view(r->value.items[1].key, "2-0");
    assert_int_equal(r->value.items[1].value.count, 0);
}

static void check_scan(const void *p) {
    const replies_scan_result *r = p;
    /* Tuple fields named by the schema's titles (cursor, keys), not f0, f1. */
    assert_view(r->value.cursor, "17");
    assert_int_equal(r->value.keys.count, 2);
    assert_view(r->value.keys.items[0], "k1");
    assert_view(r->value.keys.items[1], "k2");
}

static void nested(void **state) {
    (void)state;
    OK(replies_xrange_reply_table,
       "*2\r\n*2\r\n$3\r\n1-0\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n*2\r\n$3\r\n2-0\r\n*0\r\n",
       check_xrange);
    OK(replies_scan_reply_table, "*2\r\n$2\r\n17\r\n*2\r\n$2\r\nk1\r\n$2\r\nk2\r\n", check_scan);
    OK(replies_scan_reply_table, "*2\r\n$2\r\n17\r\n~2\r\n$2\r\nk1\r\n$2\r\nk2\r\n", check_scan);
}

/* ---- oneOf ---- */

static void check_zrange_plain(const void *p) {
    const replies_zrange_result *r = p;
    assert_int_equal(r->value.which, REPLIES_ZRANGE_REPLY_ARRAY);
    assert_int_equal(r->value.array.count, 2);
    assert_view(r->value.array.items[1], "b");
}

static void check_zrange_scores(const void *p) {
    const replies_zrange_result *r = p;
    assert_int_equal(r->value.which, REPLIES_ZRANGE_REPLY_MAP);
    assert_int_equal(r->value.map.count, 2);
    assert_view(r->value.map.items[0].key, "a");
    assert_true(r->value.map.items[0].value == 1.0);
    assert_view(r->value.map.items[1].key, "b");
    assert_true(r->value.map.items[1].value == 2.5);
}

static void check_lpos_null(const void *p) {
    assert_int_equal(((const replies_lpos_result *)p)->value.which, REPLIES_LPOS_REPLY_NULL);
}

static void check_lpos_int(const void *p) {
    const replies_lpos_result *r = p;
    assert_int_equal(r->value.which, REPLIES_LPOS_REPLY_INTEGER);
    assert_int_equal(r->value.integer, 3);
}

static void check_lpos_array(const void *p) {
    const replies_lpos_result *r = p;
    assert_int_equal(r->value.which, REPLIES_LPOS_REPLY_ARRAY);
    assert_int_equal(r->value.array.count, 2);
    assert_int_equal(r->value.array.items[0], 1);
    assert_int_equal(r->value.array.items[1], 5);
}

static void oneof(void **state) {
    (void)state;
    OK(replies_zrange_reply_table, "*2\r\n$1\r\na\r\n$1\r\nb\r\n", check_zrange_plain);
    OK(replies_zrange_reply_table, "*2\r\n*2\r\n$1\r\na\r\n,1\r\n*2\r\n$1\r\nb\r\n,2.5\r\n",
       check_zrange_scores);
    OK(replies_lpos_reply_table, "$-1\r\n", check_lpos_null);
    OK(replies_lpos_reply_table, "*-1\r\n", check_lpos_null);
    OK(replies_lpos_reply_table, "_\r\n", check_lpos_null);
    OK(replies_lpos_reply_table, ":3\r\n", check_lpos_int);
    OK(replies_lpos_reply_table, "*2\r\n:1\r\n:5\r\n", check_lpos_array);
}

/* ZPOPMIN: one [member, score] or a list of them, both read as pairs (the model merges the
 * tuple into the pairs alternative), RESP2 flat and RESP3 nested alike. */
static void check_zpop_one(const void *p) {
    const replies_zpopmin_result *r = p;
    assert_int_equal(r->value.count, 1);
    assert_view(r->value.items[0].key, "a");
    assert_true(r->value.items[0].value == 1.5);
}

static void check_zpop_two(const void *p) {
    const replies_zpopmin_result *r = p;
    assert_int_equal(r->value.count, 2);
    assert_view(r->value.items[1].key, "b");
    assert_true(r->value.items[1].value == 2.0);
}

static void check_zpop_none(const void *p) {
    assert_int_equal(((const replies_zpopmin_result *)p)->value.count, 0);
}

/* GEOSEARCH: names, or matches of 1 to 4 elements each (an open tuple), named by titles. */
static void check_geo_names(const void *p) {
    const replies_geosearch_result *r = p;
    assert_int_equal(r->value.which, REPLIES_GEOSEARCH_REPLY_NAMES);
    assert_int_equal(r->value.names.count, 1);
    assert_view(r->value.names.items[0], "Palermo");
}

static void check_geo_matches(const void *p) {
    const replies_geosearch_result *r = p;
    assert_int_equal(r->value.which, REPLIES_GEOSEARCH_REPLY_MATCHES);
    assert_int_equal(r->value.matches.count, 2);
    const replies_geosearch_elem1 *m = r->value.matches.items;
    assert_view(m[0].f0, "Palermo");
    assert_int_equal(m[0].f1.which, REPLIES_GEOSEARCH_REPLY_MATCHES_ITEM_F1_STRING);
    assert_view(m[0].f1.string, "190.4424");
    assert_int_equal(m[0].f2.which, REPLIES_GEOSEARCH_REPLY_MATCHES_ITEM_F2_INTEGER);
    assert_int_equal(m[0].f2.integer, 3479099956230698);
    assert_int_equal(m[0].f3.which, REPLIES_GEOSEARCH_REPLY_MATCHES_ITEM_F3_COORD);
    assert_true(m[0].f3.coord.longitude == 13.5);
    assert_true(m[0].f3.coord.latitude == 38.25);
    assert_view(m[1].f0, "Catania");
    assert_int_equal(m[1].f1.which, 0);
}

static void model_rules(void **state) {
    (void)state;
    OK(replies_zpopmin_reply_table, "*2\r\n$1\r\na\r\n$3\r\n1.5\r\n", check_zpop_one);
    OK(replies_zpopmin_reply_table, "*2\r\n$1\r\na\r\n,1.5\r\n", check_zpop_one);
    OK(replies_zpopmin_reply_table, "*1\r\n*2\r\n$1\r\na\r\n,1.5\r\n", check_zpop_one);
    OK(replies_zpopmin_reply_table, "*4\r\n$1\r\na\r\n$3\r\n1.5\r\n$1\r\nb\r\n$1\r\n2\r\n",
       check_zpop_two);
    OK(replies_zpopmin_reply_table, "*0\r\n", check_zpop_none);
    OK(replies_geosearch_reply_table, "*1\r\n$7\r\nPalermo\r\n", check_geo_names);
    OK(replies_geosearch_reply_table,
       "*2\r\n*4\r\n$7\r\nPalermo\r\n$8\r\n190.4424\r\n:3479099956230698\r\n"
       "*2\r\n$4\r\n13.5\r\n$5\r\n38.25\r\n*1\r\n$7\r\nCatania\r\n",
       check_geo_matches);
}

/* ---- errors, mismatches, recovery ---- */

static void expect_message(const rg_reply_reader *rr, const char *want) {
    const rg_view e = rg_reply_error(rr).msg;
    char text[300];
    snprintf(text, sizeof text, "%.*s", (int)e.len, e.ptr);
    if (!strstr(text, want)) fail_msg("message \"%s\" lacks \"%s\"", text, want);
}

static void errors_and_recovery(void **state) {
    (void)state;
    static const char stream[] = "-WRONGTYPE Operation against a key holding the wrong kind\r\n"
                                 "!7\r\nERR bad\r\n"
                                 "*3\r\n$1\r\na\r\n:5\r\n$1\r\nc\r\n"
                                 "*1\r\n*2\r\n$3\r\n1-0\r\n*2\r\n$1\r\nf\r\n:1\r\n"
                                 "%1\r\n+k\r\n+v\r\n"
                                 "*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n"
                                 ":7\r\n";
    rg_reply_reader rr;
    rg_reply_reader_init(&rr, NULL);
    rg_reply_set_storage(&rr, storage, sizeof storage);
    size_t pos = 0;
    const size_t n = sizeof stream - 1;
    result_buf out;
    assert_int_equal(replies_get_reply(&rr, stream, n, &pos, (void *)&out), RG_SERVER_ERROR);
    expect_message(&rr, "WRONGTYPE Operation against a key");
    assert_int_equal(replies_get_reply(&rr, stream, n, &pos, (void *)&out), RG_SERVER_ERROR);
    expect_message(&rr, "ERR bad");
    assert_int_equal(replies_mget_reply(&rr, stream, n, &pos, (void *)&out), RG_MISMATCH);
    expect_message(&rr, "MGET: reply[1]: expected simple|bulk|null|verbatim");
    expect_message(&rr, "received integer");
    assert_int_equal(replies_xrange_reply(&rr, stream, n, &pos, (void *)&out), RG_MISMATCH);
    expect_message(&rr, "XRANGE: reply[0].value[1]: expected");
    assert_int_equal(replies_incr_reply(&rr, stream, n, &pos, (void *)&out), RG_MISMATCH);
    expect_message(&rr, "INCR: reply: expected integer, received map of 1");
    assert_int_equal(replies_hgetall_reply(&rr, stream, n, &pos, (void *)&out), RG_MISMATCH);
    expect_message(&rr, "HGETALL: reply: expected an even number of elements");
    replies_incr_result incr;
    assert_int_equal(replies_incr_reply(&rr, stream, n, &pos, &incr), RG_OK);
    assert_int_equal(incr.value, 7);
    assert_int_equal(pos, n);
    assert_int_equal(rg_reader_values(rg_reply_decoder(&rr)), 7);

    /* Malformed input is the decoder's sticky error. */
    pos = 0;
    rg_reply_reader_init(&rr, NULL);
    assert_int_equal(replies_incr_reply(&rr, S("?bad\r\n"), &pos, &incr), RG_ERR_PROTOCOL);
    assert_true(rg_reply_error(&rr).msg.len > 0);
}

/* ---- storage: size query and callback ---- */

static int collect(void *ud, size_t index, const void *elem) {
    char *seen = ud;
    const rg_view *v = elem;
    seen[index] = v->ptr ? v->ptr[0] : '-';
    return 0;
}

static int stop_at_one(void *ud, size_t index, const void *elem) {
    (void)ud;
    (void)elem;
    return index == 1;
}

static void storage_modes(void **state) {
    (void)state;
    static const char reply[] = "*3\r\n$1\r\na\r\n$-1\r\n$1\r\nc\r\n:1\r\n";
    rg_reply_reader rr;
    rg_reply_reader_init(&rr, NULL);
    size_t pos = 0;
    replies_mget_result r;
    assert_int_equal(replies_mget_reply(&rr, S(reply), &pos, &r), RG_SHORT);
    assert_int_equal(pos, 0);
    assert_int_equal(rg_reply_needed(&rr), 3 * sizeof(rg_view));
    char *mem = malloc(rg_reply_needed(&rr));
    rg_reply_set_storage(&rr, mem, rg_reply_needed(&rr));
    assert_int_equal(replies_mget_reply(&rr, S(reply), &pos, &r), RG_OK);
    assert_int_equal(r.value.count, 3);
    assert_view(r.value.items[2], "c");
    free(mem);

    /* Callback mode: one element at a time, no storage for the array. */
    char seen[4] = {0};
    rg_reply_set_storage(&rr, NULL, 0);
    rg_reply_set_each(&rr, collect, seen);
    pos = 0;
    rg_reply_reader_init(&rr, NULL);
    rg_reply_set_storage(&rr, storage, sizeof(rg_view));
    rg_reply_set_each(&rr, collect, seen);
    assert_int_equal(replies_mget_reply(&rr, S(reply), &pos, &r), RG_OK);
    assert_string_equal(seen, "a-c");
    assert_int_equal(r.value.count, 3);
    assert_null(r.value.items);
    /* The same reply a byte at a time: each element once, in order. */
    memset(seen, 0, sizeof seen);
    rg_reply_reader_init(&rr, NULL);
    rg_reply_set_storage(&rr, storage, sizeof(rg_view));
    rg_reply_set_each(&rr, collect, seen);
    pos = 0;
    rg_status st = RG_NEED_MORE;
    for (size_t k = 1; st == RG_NEED_MORE && k <= sizeof reply - 1; k++) {
        st = replies_mget_reply(&rr, reply, k, &pos, &r);
    }
    assert_int_equal(st, RG_OK);
    assert_string_equal(seen, "a-c");
    rg_reply_set_each(&rr, stop_at_one, NULL);
    pos = 0;
    rg_reply_reader_init(&rr, NULL);
    rg_reply_set_storage(&rr, storage, sizeof storage);
    rg_reply_set_each(&rr, stop_at_one, NULL);
    assert_int_equal(replies_mget_reply(&rr, S(reply), &pos, &r), RG_MISMATCH);
    expect_message(&rr, "stopped by the callback");
    replies_incr_result incr;
    assert_int_equal(replies_incr_reply(&rr, S(reply), &pos, &incr), RG_OK);
    assert_int_equal(incr.value, 1);
}

static unsigned lcg(unsigned *s) {
    *s = *s * 1103515245u + 12345u;
    return *s >> 16;
}

/* Valid replies of every shape with random bytes changed, decoded with every table, whole and
 * byte by byte: whatever the status, no crash, no read outside the input (ASan builds), and the
 * whole and split runs agree. */
static void mutations(void **state) {
    (void)state;
    static const char *const seeds[] = {
        "*2\r\n*2\r\n$3\r\n1-0\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n*2\r\n$3\r\n2-0\r\n*0\r\n",
        "*2\r\n*2\r\n$1\r\na\r\n,1\r\n*2\r\n$1\r\nb\r\n,2.5\r\n",
        "%2\r\n$2\r\nf1\r\n$2\r\nv1\r\n$2\r\nf2\r\n$0\r\n\r\n",
        "*3\r\n$1\r\na\r\n_\r\n$0\r\n\r\n",
        "*2\r\n$2\r\n17\r\n~2\r\n$2\r\nk1\r\n$2\r\nk2\r\n",
        "|1\r\n+ttl\r\n:3\r\n*?\r\n:1\r\n$?\r\n;2\r\nab\r\n;0\r\n.\r\n",
        "%?\r\n+a\r\n*1\r\n:1\r\n.\r\n",
    };
    static const rg_rtable *const tables[] = {
        &replies_incr_reply_table,         &replies_get_reply_table,
        &replies_mget_reply_table,         &replies_hgetall_reply_table,
        &replies_zscore_reply_table,       &replies_zrange_reply_table,
        &replies_xrange_reply_table,       &replies_lpos_reply_table,
        &replies_scan_reply_table,         &replies_hello_reply_table,
        &replies_command_docs_reply_table, &replies_zpopmin_reply_table,
        &replies_geosearch_reply_table,
    };
    const char tokens[] = "*%~$:+-_,#(!=|>.;?\r\n0123456789-";
    unsigned seed = 7;
    char input[256];
    for (int round = 0; round < 3000; round++) {
        const char *s = seeds[(unsigned)round % (sizeof seeds / sizeof *seeds)];
        const size_t n = strlen(s);
        memcpy(input, s, n);
        for (int k = 0; k < 1 + round % 3; k++) {
            input[(size_t)lcg(&seed) % n] = tokens[(size_t)lcg(&seed) % (sizeof tokens - 1)];
        }
        const rg_rtable *t = tables[(unsigned)round % (sizeof tables / sizeof *tables)];
        result_buf whole, split;
        char *owned = NULL;
        const rg_status a = decode(WHOLE, t, input, n, &whole, &owned, false);
        const rg_status b = decode(MOVING, t, input, n, &split, &owned, false);
        free(owned);
        if (rg_status_fatal(a) || rg_status_fatal(b)) continue;
        if (a != b)
            fail_msg("round %d: whole %s, split %s", round, rg_status_name(a), rg_status_name(b));
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(integer),        cmocka_unit_test(simple_and_nullable),
        cmocka_unit_test(arrays),         cmocka_unit_test(maps),
        cmocka_unit_test(raw_long_bulks), cmocka_unit_test(doubles),
        cmocka_unit_test(score_texts),    cmocka_unit_test(fused_score_texts),
        cmocka_unit_test(nested),         cmocka_unit_test(oneof),
        cmocka_unit_test(model_rules),    cmocka_unit_test(errors_and_recovery),
        cmocka_unit_test(storage_modes),  cmocka_unit_test(mutations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
