/* The reply engine against the tables of specs/redis.lua, on the replies of issue 11: shapes a
 * real server sends that the header alone cannot place (ZPOPMIN, XAUTOCLAIM JUSTID, GEOSEARCH
 * WITH*), bytes that crashed it (XPENDING, ROLE), streamed aggregates, callback mode, one set of
 * checks for the size query and the decode, and RESP3 pushes before and between replies. Every
 * case is fed whole, one byte at a time, and by a caller that moves its kept bytes to a fresh
 * buffer (poisoning the old one) before every call. */
#include "redis_reply.h"

#include <setjmp.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cmocka.h>

typedef union result_buf {
    max_align_t align;
    char bytes[4096];
} result_buf;

static alignas(max_align_t) char storage[1 << 16];

#define S(lit) lit, sizeof(lit) - 1

enum mode { WHOLE, BYTES, MOVING, MODES };

static void assert_view(rg_view v, const char *want) {
    assert_non_null(v.ptr);
    assert_int_equal(v.len, strlen(want));
    assert_memory_equal(v.ptr, want, v.len);
}

static void expect_message(const rg_reply_reader *rr, const char *want) {
    const rg_view e = rg_reply_error(rr).msg;
    char text[300];
    snprintf(text, sizeof text, "%.*s", (int)e.len, e.ptr);
    if (!strstr(text, want)) fail_msg("message \"%s\" lacks \"%s\"", text, want);
}

/* A caller's connection: the bytes of the stream, how many have "arrived", where it is. */
typedef struct conn {
    const char *bytes;
    size_t n;        /* all of the stream */
    size_t have;     /* arrived so far */
    size_t consumed; /* stream offset of the next unconsumed byte */
    enum mode m;
    char *buf; /* MOVING: the kept bytes, from keep */
    size_t keep;
} conn;

/* The bytes at hand as the mode presents them: buf, its length, and pos in it. */
static const char *present(conn *c, const rg_reply_reader *rr, size_t *len, size_t *pos) {
    if (c->m != MOVING) {
        *len = c->have;
        *pos = c->consumed;
        return c->bytes;
    }
    const size_t keep =
        (size_t)rg_reply_start(rr) < c->consumed ? (size_t)rg_reply_start(rr) : c->consumed;
    char *fresh = malloc(c->have - keep + 1);
    assert_non_null(fresh);
    memcpy(fresh, c->bytes + keep, c->have - keep);
    if (c->buf) memset(c->buf, 'X', c->have - c->keep);
    free(c->buf);
    c->buf = fresh;
    c->keep = keep;
    *len = c->have - keep;
    *pos = c->consumed - keep;
    return fresh;
}

typedef rg_status (*op_fn)(rg_reply_reader *rr, const char *buf, size_t len, size_t *pos, void *ud);

/* Runs op until it gives a final status, feeding bytes as the mode says. */
static rg_status run_op(conn *c, rg_reply_reader *rr, op_fn op, void *ud) {
    for (;;) {
        size_t len, pos;
        const char *buf = present(c, rr, &len, &pos);
        const rg_status st = op(rr, buf, len, &pos, ud);
        c->consumed = (c->m == MOVING ? c->keep : 0) + pos;
        if (st != RG_NEED_MORE) return st;
        if (c->have == c->n) return st;
        c->have = c->m == BYTES || c->m == MOVING ? c->have + 1 : c->n;
    }
}

typedef struct decode_args {
    const rg_rtable *t;
    void *out;
} decode_args;

static rg_status op_decode(rg_reply_reader *rr, const char *buf, size_t len, size_t *pos,
                           void *ud) {
    const decode_args *a = ud;
    return rg_reply_decode(rr, a->t, buf, len, pos, a->out);
}

static rg_status op_decode_push(rg_reply_reader *rr, const char *buf, size_t len, size_t *pos,
                                void *ud) {
    const decode_args *a = ud;
    return rg_reply_decode_push(rr, a->t, buf, len, pos, a->out);
}

static rg_status op_skip(rg_reply_reader *rr, const char *buf, size_t len, size_t *pos, void *ud) {
    (void)ud;
    return rg_reply_skip(rr, buf, len, pos);
}

static void conn_open(conn *c, rg_reply_reader *rr, enum mode m, const char *bytes, size_t n) {
    *c = (conn){bytes, n, m == WHOLE ? n : 0, 0, m, NULL, 0};
    rg_reply_reader_init(rr, NULL);
    rg_reply_set_storage(rr, storage, sizeof storage);
}

static void conn_close(conn *c) {
    free(c->buf);
    c->buf = NULL;
}

static rg_status decode_one(conn *c, rg_reply_reader *rr, const rg_rtable *t, void *out) {
    decode_args a = {t, out};
    return run_op(c, rr, op_decode, &a);
}

typedef void (*check_fn)(const void *out);

/* One reply in every mode: status want, and check() passes on OK; the whole input consumed. */
static void expect(const rg_rtable *t, const char *bytes, size_t n, rg_status want,
                   check_fn check) {
    for (int m = 0; m < MODES; m++) {
        rg_reply_reader rr;
        conn c;
        result_buf out;
        assert_true(t->result_size <= sizeof out.bytes);
        conn_open(&c, &rr, (enum mode)m, bytes, n);
        const rg_status st = decode_one(&c, &rr, t, out.bytes);
        if (st != want)
            fail_msg("%s mode %d: %s, want %s (%.*s)", t->command, m, rg_status_name(st),
                     rg_status_name(want), (int)rg_reply_error(&rr).msg.len,
                     rg_reply_error(&rr).msg.ptr);
        assert_int_equal(c.consumed, want == RG_SHORT ? 0 : n);
        /* the getter tells the failure the call returned, with a message */
        if (want == RG_SERVER_ERROR || want == RG_MISMATCH || rg_status_fatal(want)) {
            const rg_error e = rg_reply_error(&rr);
            assert_int_equal(e.status, want);
            assert_true(e.msg.len > 0);
        }
        if (want == RG_OK && check) check(out.bytes);
        conn_close(&c);
    }
}

/* ---- bytes that crashed the engine (a oneof reopened with an empty frame stack) ---- */

static void no_crash(void **state) {
    (void)state;
    static const char stream[] = "*2\r\n:1\r\n:1\r\n:5\r\n";
    static const rg_rtable *const tables[] = {&redis_xpending_reply_table, &redis_role_reply_table};
    for (size_t k = 0; k < 2; k++) {
        for (int m = 0; m < MODES; m++) {
            rg_reply_reader rr;
            conn c;
            result_buf out;
            conn_open(&c, &rr, (enum mode)m, S(stream));
            assert_int_equal(decode_one(&c, &rr, tables[k], out.bytes), RG_MISMATCH);
            expect_message(&rr, tables[k]->command);
            redis_incr_result incr;
            assert_int_equal(decode_one(&c, &rr, &redis_incr_reply_table, &incr), RG_OK);
            assert_int_equal(incr.value, 5);
            conn_close(&c);
        }
    }
}

/* ---- alternatives told apart by count and elements ---- */

static void check_zpop_pairs(const void *p) {
    const redis_zpopmin_result *r = p;
    assert_int_equal(r->value.count, 2);
    assert_view(r->value.items[0].key, "z");
    assert_true(r->value.items[0].value == 3);
    assert_view(r->value.items[1].key, "y");
    assert_true(r->value.items[1].value == 2);
}

/* One [member, score] pair reads as a list of one pair (the model folds the tuple into pairs). */
static void check_zpop_one(const void *p) {
    const redis_zpopmin_result *r = p;
    assert_int_equal(r->value.count, 1);
    assert_view(r->value.items[0].key, "z");
    assert_true(r->value.items[0].value == 3);
}

static void check_xautoclaim_justid(const void *p) {
    const redis_xautoclaim_result *r = p;
    assert_int_equal(r->value.which, REDIS_XAUTOCLAIM_REPLY_IDS);
    assert_view(r->value.ids.next, "0-0");
    assert_int_equal(r->value.ids.claimed.count, 1);
    assert_view(r->value.ids.claimed.items[0], "1-1");
    assert_int_equal(r->value.ids.deleted.count, 0);
}

static void check_xautoclaim_entries(const void *p) {
    const redis_xautoclaim_result *r = p;
    assert_int_equal(r->value.which, REDIS_XAUTOCLAIM_REPLY_ENTRIES);
    assert_int_equal(r->value.entries.claimed.count, 1);
    assert_view(r->value.entries.claimed.items[0].key, "1-1");
    assert_int_equal(r->value.entries.claimed.items[0].value.count, 2);
    assert_view(r->value.entries.claimed.items[0].value.items[1], "v");
}

static void check_geo_dist(const void *p) {
    const redis_geosearch_result *r = p;
    assert_int_equal(r->value.which, 2);
    assert_int_equal(r->value.array2.count, 2);
    assert_view(r->value.array2.items[0].f0, "a");
    assert_int_equal(r->value.array2.items[0].f1.which, 1);
    assert_view(r->value.array2.items[0].f1.string, "0.1234");
    assert_int_equal(r->value.array2.items[0].f2.which, 0);
    assert_view(r->value.array2.items[1].f0, "b");
}

static void check_geo_all(const void *p) {
    const redis_geosearch_result *r = p;
    assert_int_equal(r->value.which, 2);
    assert_int_equal(r->value.array2.count, 1);
    const redis_geosearch_elem1 *e = &r->value.array2.items[0];
    assert_view(e->f0, "a");
    assert_view(e->f1.string, "0.12");
    assert_int_equal(e->f2.which, 2);
    assert_int_equal(e->f2.integer, 123);
    assert_int_equal(e->f3.which, 3);
    assert_true(e->f3.tuple.f0 == 1.5);
    assert_true(e->f3.tuple.f1 == 2.5);
}

static void check_geo_names(const void *p) {
    const redis_geosearch_result *r = p;
    assert_int_equal(r->value.which, 1);
    assert_int_equal(r->value.array.count, 2);
    assert_view(r->value.array.items[1], "b");
}

static void check_zrange_scores(const void *p) {
    const redis_zrange_result *r = p;
    assert_int_equal(r->value.which, 2);
    assert_int_equal(r->value.map.count, 2);
    assert_view(r->value.map.items[1].key, "b");
    assert_true(r->value.map.items[1].value == 2.5);
}

static void alternatives(void **state) {
    (void)state;
    /* ZPOPMIN key COUNT 2 over RESP2: four elements rule the [member, score] pair out. */
    expect(&redis_zpopmin_reply_table, S("*4\r\n$1\r\nz\r\n$1\r\n3\r\n$1\r\ny\r\n$1\r\n2\r\n"),
           RG_OK, check_zpop_pairs);
    expect(&redis_zpopmin_reply_table, S("*2\r\n*2\r\n$1\r\nz\r\n,3\r\n*2\r\n$1\r\ny\r\n,2\r\n"),
           RG_OK, check_zpop_pairs);
    expect(&redis_zpopmin_reply_table, S("*2\r\n$1\r\nz\r\n$1\r\n3\r\n"), RG_OK, check_zpop_one);
    /* XAUTOCLAIM ... JUSTID: the entries alternative fails inside (1 element is no pair). */
    expect(&redis_xautoclaim_reply_table, S("*3\r\n$3\r\n0-0\r\n*1\r\n$3\r\n1-1\r\n*0\r\n"), RG_OK,
           check_xautoclaim_justid);
    expect(&redis_xautoclaim_reply_table,
           S("*3\r\n$3\r\n0-0\r\n*1\r\n*2\r\n$3\r\n1-1\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n*0\r\n"),
           RG_OK, check_xautoclaim_entries);
    /* GEOSEARCH with WITHDIST, with all three WITH*, and without. */
    expect(&redis_geosearch_reply_table,
           S("*2\r\n*2\r\n$1\r\na\r\n$6\r\n0.1234\r\n*2\r\n$1\r\nb\r\n$3\r\n1.5\r\n"), RG_OK,
           check_geo_dist);
    expect(&redis_geosearch_reply_table,
           S("*1\r\n*4\r\n$1\r\na\r\n$4\r\n0.12\r\n:123\r\n*2\r\n$3\r\n1.5\r\n$3\r\n2.5\r\n"),
           RG_OK, check_geo_all);
    expect(&redis_geosearch_reply_table,
           S("*1\r\n*4\r\n$1\r\na\r\n$4\r\n0.12\r\n:123\r\n*2\r\n,1.5\r\n,2.5\r\n"), RG_OK,
           check_geo_all);
    expect(&redis_geosearch_reply_table, S("*2\r\n$1\r\na\r\n$1\r\nb\r\n"), RG_OK, check_geo_names);
    expect(&redis_georadius_ro_reply_table, S("*1\r\n*5\r\n$1\r\na\r\n:1\r\n:2\r\n:3\r\n:4\r\n"),
           RG_MISMATCH, NULL);
    /* ZRANGE WITHSCORES over RESP3, and with an attribute before an element. */
    expect(&redis_zrange_reply_table, S("*2\r\n*2\r\n$1\r\na\r\n,1\r\n*2\r\n$1\r\nb\r\n,2.5\r\n"),
           RG_OK, check_zrange_scores);
    expect(&redis_zrange_reply_table,
           S("*2\r\n|1\r\n+k\r\n+v\r\n*2\r\n$1\r\na\r\n,1\r\n*2\r\n$1\r\nb\r\n,2.5\r\n"), RG_OK,
           check_zrange_scores);
}

/* ---- streamed aggregates never leave items NULL ---- */

static void check_lrange_ab(const void *p) {
    const redis_lrange_result *r = p;
    assert_int_equal(r->value.count, 2);
    assert_non_null(r->value.items);
    assert_view(r->value.items[0], "a");
    assert_view(r->value.items[1], "b");
}

static void check_hgetall_streamed(const void *p) {
    const redis_hgetall_result *r = p;
    assert_int_equal(r->value.count, 2);
    assert_non_null(r->value.items);
    assert_view(r->value.items[0].key, "f");
    assert_view(r->value.items[1].value, "w");
}

static void check_zrange_streamed(const void *p) {
    const redis_zrange_result *r = p;
    assert_int_equal(r->value.which, 2);
    assert_int_equal(r->value.map.count, 1);
    assert_non_null(r->value.map.items);
    assert_true(r->value.map.items[0].value == 1);
}

static void streamed(void **state) {
    (void)state;
    expect(&redis_lrange_reply_table, S("*?\r\n$1\r\na\r\n$1\r\nb\r\n.\r\n"), RG_OK,
           check_lrange_ab);
    expect(&redis_lrange_reply_table, S("*?\r\n$1\r\na\r\n|1\r\n+k\r\n*1\r\n:1\r\n+b\r\n.\r\n"),
           RG_OK, check_lrange_ab);
    expect(&redis_hgetall_reply_table, S("%?\r\n+f\r\n+v\r\n+g\r\n+w\r\n.\r\n"), RG_OK,
           check_hgetall_streamed);
    expect(&redis_hgetall_reply_table, S("*?\r\n+f\r\n+v\r\n+g\r\n+w\r\n.\r\n"), RG_OK,
           check_hgetall_streamed);
    expect(&redis_zrange_reply_table, S("*?\r\n*?\r\n+a\r\n,1\r\n.\r\n.\r\n"), RG_MISMATCH,
           NULL); /* a pair must be an array of 2 */
    expect(&redis_zrange_reply_table, S("*?\r\n*2\r\n+a\r\n,1\r\n.\r\n"), RG_OK,
           check_zrange_streamed);
    expect(&redis_hgetall_reply_table, S("*?\r\n+f\r\n+v\r\n+g\r\n.\r\n"), RG_MISMATCH, NULL);
}

/* ---- one set of checks: the size query says what the decode says ---- */

static void size_query(void **state) {
    (void)state;
    static const char *const replies[] = {"*1\r\n$3\r\nabc\r\n", "*2\r\n,1\r\n$3\r\n1.5\r\n"};
    static const rg_status want[] = {RG_MISMATCH, RG_OK};
    for (size_t k = 0; k < 2; k++) {
        const size_t n = strlen(replies[k]);
        redis_zmscore_result r;
        rg_reply_reader rr;
        rg_reply_reader_init(&rr, NULL);
        size_t pos = 0;
        const rg_status query = redis_zmscore_reply(&rr, replies[k], n, &pos, &r);
        assert_int_equal(query, want[k] == RG_OK ? RG_SHORT : want[k]);
        rg_reply_reader_init(&rr, NULL);
        rg_reply_set_storage(&rr, storage, sizeof storage);
        pos = 0;
        assert_int_equal(redis_zmscore_reply(&rr, replies[k], n, &pos, &r), want[k]);
    }
}

/* ---- callback mode ---- */

typedef struct seen {
    size_t calls;
    size_t index[8];
    char key[8];
    double score[8];
} seen;

static int each_pair(void *ud, size_t index, const void *elem) {
    seen *s = ud;
    const redis_zrange_elem1 *e = elem;
    if (s->calls < 8) {
        s->index[s->calls] = index;
        s->key[s->calls] = e->key.ptr ? e->key.ptr[0] : '-';
        s->score[s->calls] = e->value;
    }
    s->calls++;
    return 0;
}

static int each_view(void *ud, size_t index, const void *elem) {
    seen *s = ud;
    const rg_view *v = elem;
    if (s->calls < 8) {
        s->index[s->calls] = index;
        s->key[s->calls] = v->ptr ? v->ptr[0] : '-';
    }
    s->calls++;
    return 0;
}

/* Callback mode in every mode; the slot is the first bytes of storage, a canary right after. */
static void callback_case(const rg_rtable *t, const char *bytes, size_t n, rg_reply_each_fn fn,
                          size_t slot, size_t calls, const char *keys, const double *scores) {
    for (int m = 0; m < MODES; m++) {
        static alignas(max_align_t) char mem[256];
        seen s = {0};
        rg_reply_reader rr;
        conn c;
        result_buf out;
        conn_open(&c, &rr, (enum mode)m, bytes, n);
        memset(mem, 0x5a, sizeof mem);
        rg_reply_set_storage(&rr, mem, slot);
        rg_reply_set_each(&rr, fn, &s);
        assert_int_equal(decode_one(&c, &rr, t, out.bytes), RG_OK);
        assert_int_equal(s.calls, calls);
        for (size_t k = 0; k < calls; k++) {
            assert_int_equal(s.index[k], k);
            assert_int_equal(s.key[k], keys[k]);
            if (scores) assert_true(s.score[k] == scores[k]);
        }
        for (size_t k = slot; k < sizeof mem; k++) assert_int_equal((unsigned char)mem[k], 0x5a);
        conn_close(&c);
    }
}

static void callbacks(void **state) {
    (void)state;
    static const double scores[] = {1, 2.5};
    const size_t pair = sizeof(redis_zrange_elem1);
    callback_case(&redis_zrange_reply_table,
                  S("*2\r\n*2\r\n$1\r\na\r\n,1\r\n*2\r\n$1\r\nb\r\n,2.5\r\n"), each_pair, pair, 2,
                  "ab", scores);
    callback_case(&redis_zrange_reply_table, S("*?\r\n*2\r\n$1\r\na\r\n,1\r\n.\r\n"), each_pair,
                  pair, 1, "a", scores);
    callback_case(&redis_hgetall_reply_table, S("%2\r\n+a\r\n+x\r\n+b\r\n+y\r\n"), each_pair,
                  sizeof(redis_hgetall_elem1), 2, "ab", NULL);
    /* An attribute directly inside the root array is no element. */
    callback_case(&redis_lrange_reply_table, S("*2\r\n|1\r\n+k\r\n+v\r\n$1\r\na\r\n$1\r\nb\r\n"),
                  each_view, sizeof(rg_view), 2, "ab", NULL);
    callback_case(&redis_lrange_reply_table, S("*?\r\n$1\r\na\r\n$1\r\nb\r\n.\r\n"), each_view,
                  sizeof(rg_view), 2, "ab", NULL);
}

/* ---- pushes ---- */

#define MESSAGE_PUSH    ">3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$5\r\nhello\r\n"
#define INVALIDATE_PUSH ">2\r\n$10\r\ninvalidate\r\n*1\r\n$1\r\nk\r\n"

static void pushes(void **state) {
    (void)state;
    static const char stream[] =
        MESSAGE_PUSH "*2\r\n$1\r\na\r\n$1\r\nb\r\n" INVALIDATE_PUSH ":5\r\n" INVALIDATE_PUSH
                     "|1\r\n+k\r\n+v\r\n" MESSAGE_PUSH ":6\r\n";
    size_t push_at[4], n = 0; /* where each '>' is: only pushes have one */
    for (const char *p = stream; (p = strchr(p, '>')) != NULL; p++)
        push_at[n++] = (size_t)(p - stream);
    assert_int_equal(n, 4);
    for (int m = 0; m < MODES; m++) {
        rg_reply_reader rr;
        conn c;
        conn_open(&c, &rr, (enum mode)m, S(stream));
        redis_lrange_result lr;
        redis_incr_result incr;
        /* message push, then LRANGE's reply. */
        assert_int_equal(decode_one(&c, &rr, &redis_lrange_reply_table, &lr), RG_PUSH);
        assert_int_equal(c.consumed, push_at[0]);
        redis_lrange_result msg; /* a push read as a typed array of strings */
        decode_args a = {&redis_lrange_reply_table, &msg};
        assert_int_equal(run_op(&c, &rr, op_decode_push, &a), RG_OK);
        assert_int_equal(msg.value.count, 3);
        assert_view(msg.value.items[0], "message");
        assert_view(msg.value.items[2], "hello");
        assert_int_equal(decode_one(&c, &rr, &redis_lrange_reply_table, &lr), RG_OK);
        assert_int_equal(lr.value.count, 2);
        assert_view(lr.value.items[1], "b");
        /* invalidate push before INCR's :5 */
        assert_int_equal(decode_one(&c, &rr, &redis_incr_reply_table, &incr), RG_PUSH);
        assert_int_equal(c.consumed, push_at[1]);
        assert_int_equal(run_op(&c, &rr, op_skip, NULL), RG_OK);
        assert_int_equal(decode_one(&c, &rr, &redis_incr_reply_table, &incr), RG_OK);
        assert_int_equal(incr.value, 5);
        /* another, then an attribute and a push: the attribute goes, *pos is at the '>' */
        assert_int_equal(decode_one(&c, &rr, &redis_incr_reply_table, &incr), RG_PUSH);
        assert_int_equal(run_op(&c, &rr, op_skip, NULL), RG_OK);
        assert_int_equal(decode_one(&c, &rr, &redis_incr_reply_table, &incr), RG_PUSH);
        assert_int_equal(c.consumed, push_at[3]);
        assert_int_equal(run_op(&c, &rr, op_skip, NULL), RG_OK);
        assert_int_equal(decode_one(&c, &rr, &redis_incr_reply_table, &incr), RG_OK);
        assert_int_equal(incr.value, 6);
        assert_int_equal(c.consumed, sizeof stream - 1);
        conn_close(&c);
    }
    /* A push inside a reply is no array. */
    expect(&redis_lrange_reply_table, S("*1\r\n>1\r\n+a\r\n"), RG_MISMATCH, NULL);
}

/* ---- scores in a list of pairs: the word-wide parse reads what strtod reads ---- */

/* RESP3's double grammar, which the typed replies hold scores sent as text to as well:
 * [+-] digits [. digits] [e|E [+-] digits] (digits on one side of the point at least), and inf,
 * nan, -inf, -nan in any case (Redis 7.0 sends "-nan"). strtod takes more (leading blanks, hex,
 * "infinity", "+inf"): those are no scores. */
static bool is_score(const char *text) {
    const char *word = text + (*text == '-');
    if (!strcasecmp(word, "inf") || !strcasecmp(word, "nan")) return true;
    const char *p = text + (*text == '+' || *text == '-');
    size_t digits = strspn(p, "0123456789");
    p += digits;
    if (*p == '.') {
        const size_t frac = strspn(p + 1, "0123456789");
        digits += frac;
        p += 1 + frac;
    }
    if (!digits) return false;
    if (*p == 'e' || *p == 'E') {
        p += 1 + (p[1] == '+' || p[1] == '-');
        const size_t exp = strspn(p, "0123456789");
        if (!exp) return false;
        p += exp;
    }
    return *p == '\0';
}

static void check_score_text(const char *text) {
    char reply[96];
    /* a map of one member and its score as text; the trailing INCR keeps 8 bytes readable */
    const int n =
        snprintf(reply, sizeof reply, "%%1\r\n$1\r\nm\r\n$%zu\r\n%s\r\n:1\r\n", strlen(text), text);
    const size_t len = (size_t)n - 4;
    for (int whole = 0; whole < 2; whole++) {
        rg_reply_reader rr;
        rg_reply_reader_init(&rr, NULL);
        rg_reply_set_storage(&rr, storage, sizeof storage);
        redis_zrange_result r;
        size_t pos = 0;
        const rg_status st = redis_zrange_reply(&rr, reply, whole ? (size_t)n : len, &pos, &r);
        const double want = strtod(text, NULL);
        const bool number = is_score(text);
        if (!number) {
            if (st != RG_MISMATCH) fail_msg("\"%s\": %s", text, rg_status_name(st));
            continue;
        }
        if (st != RG_OK) fail_msg("\"%s\": %s", text, rg_status_name(st));
        assert_int_equal(r.value.which, 2);
        const double got = r.value.map.items[0].value;
        if (!(got == want || (got != got && want != want)))
            fail_msg("\"%s\" read as %.17g, strtod %.17g", text, got, want);
    }
}

static void scores(void **state) {
    (void)state;
    static const char *const fixed[] = {
        "1",        "0",        "1.5",       ".5",       "5.",       "-2.25", "1e5",
        ".",        "-",        "1.2.3",     "12345678", "1234567.", "inf",   "-inf",
        "0.000001", "99999999", "9.9999999", " 1",       "0x1p3",    "1e",    "+1",
        "infinity", "1.5e-3",   "\t2",       "1e+2",     "-nan",     "NaN",   "-NAN",
        "INF",      "-Inf",     "+inf",      "+nan",     "nan1",     "--nan", "in"};
    for (size_t k = 0; k < sizeof fixed / sizeof *fixed; k++) check_score_text(fixed[k]);
    unsigned seed = 3;
    for (int k = 0; k < 20000; k++) {
        char text[16];
        size_t n = 0;
        seed = seed * 1103515245u + 12345u;
        if ((seed >> 30) == 3) text[n++] = '-';
        const size_t digits = 1 + (seed >> 8) % 9, point = (seed >> 16) % (digits + 2);
        for (size_t i = 0; i < digits; i++) {
            if (i == point) text[n++] = '.';
            seed = seed * 1103515245u + 12345u;
            text[n++] = (char)('0' + (seed >> 16) % 10);
        }
        text[n] = '\0';
        check_score_text(text);
    }
}

/* ---- GET's own path agrees with the decoder's limits and grammar ---- */

static void get_path(void **state) {
    (void)state;
    rg_limits lim = rg_limits_default();
    lim.max_bulk = 4;
    static const struct {
        const char *bytes;
        bool small; /* with max_bulk 4 */
        rg_status want;
    } cases[] = {
        {"$4\r\nabcd\r\n", true, RG_OK},
        {"$5\r\nhello\r\n", true, RG_ERR_LIMIT},
        {"$5\r\nhello\r\n", false, RG_OK},
        {"$05\r\nhello\r\n", false, RG_OK},
        {"$12345678901234567890\r\nx\r\n", false, RG_ERR_PROTOCOL},
        {"$3\r\nabcX\n", false, RG_ERR_PROTOCOL},
        {"$-1\r\n", false, RG_OK},
        {"$\r\n", false, RG_ERR_PROTOCOL},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const size_t n = strlen(cases[k].bytes);
        for (size_t split = 0; split <= n; split++) { /* split 0: whole */
            rg_reply_reader rr;
            rg_reply_reader_init(&rr, cases[k].small ? &lim : NULL);
            redis_get_result r;
            size_t pos = 0;
            rg_status st = RG_NEED_MORE;
            if (split) st = redis_get_reply(&rr, cases[k].bytes, split, &pos, &r);
            if (st == RG_NEED_MORE) st = redis_get_reply(&rr, cases[k].bytes, n, &pos, &r);
            if (st != cases[k].want) fail_msg("%zu split %zu: %s", k, split, rg_status_name(st));
            if (st == RG_OK) assert_int_equal(pos, n);
        }
    }
}

/* ---- SET's own path agrees with the general one ---- */

/* One reply of table t at buf[0..n), read with rg_reply_decode (its inline paths first) and with
 * rg_reply_decode_rest alone, from fresh readers with limits lim: the same status, position,
 * reader offset and value. */
static void same_both_ways(const rg_rtable *t, const char *buf, size_t n, const rg_limits *lim) {
    rg_reply_reader a, b;
    rg_reply_reader_init(&a, lim);
    rg_reply_reader_init(&b, lim);
    redis_set_result ra = {{NULL, 7}}, rb = {{NULL, 7}};
    size_t pa = 0, pb = 0;
    const rg_status sa = rg_reply_decode(&a, t, buf, n, &pa, &ra);
    const rg_status sb = rg_reply_decode_rest(&b, t, buf, n, &pb, &rb);
    if (sa != sb || pa != pb || rg_reader_offset(&a.rd) != rg_reader_offset(&b.rd))
        fail_msg("\"%.*s\" (%zu bytes): %s at %zu, the general path %s at %zu", (int)n, buf, n,
                 rg_status_name(sa), pa, rg_status_name(sb), pb);
    if (sa != RG_OK) return;
    assert_int_equal(ra.value.len, rb.value.len);
    assert_ptr_equal(ra.value.ptr, rb.value.ptr);
}

/* '+' lines of 0 to 40 bytes (control bytes, CR and LF among them), whole and cut, under the
 * default limits and a max_line of 6, for SET (which takes a simple string: the inline path) and
 * GET (which takes a bulk: not). */
static void set_path(void **state) {
    (void)state;
    rg_limits small = rg_limits_default();
    small.max_line = 6;
    static const char bytes[] = {'O', 'K', 'a', '\r', '\n', '\t', 0x0d, 0x0e, 0x01, ' ', 0x7f};
    unsigned seed = 11;
    char buf[64];
    for (int k = 0; k < 200000; k++) {
        seed = seed * 1103515245u + 12345u;
        const size_t body = (seed >> 8) % 41;
        buf[0] = '+';
        for (size_t i = 0; i < body; i++) {
            seed = seed * 1103515245u + 12345u;
            buf[1 + i] = (seed >> 16) % 4 ? (char)('A' + (seed >> 20) % 26)
                                          : bytes[(seed >> 20) % sizeof bytes];
        }
        size_t n = 1 + body;
        if ((seed >> 4) % 4) buf[n++] = '\r', buf[n++] = '\n'; /* (mostly ended) */
        const size_t cut = (seed >> 6) % 3 ? n : (seed >> 9) % (n + 1);
        const rg_limits *lim = (seed >> 12) % 3 ? NULL : &small;
        same_both_ways(&redis_set_reply_table, buf, cut, lim);
        same_both_ways(&redis_get_reply_table, buf, cut, lim);
    }
    same_both_ways(&redis_set_reply_table, "+OK\r\n", 5, NULL); /* (the common reply) */
}

/* ---- root lists read by the engine's own path (root_list): every element a short bulk, or the
 * loops stopped by a long bulk, a null, a bad score, the end of the input; storage poisoned, so
 * elements the loops did not reach must have been zeroed ---- */

typedef struct kd {
    rg_view key;
    double value;
} kd;

typedef struct kd_list {
    kd *items;
    size_t count;
} kd_list;

static const rg_rnode kd_nodes[] = {
    {.accept = RG_RA_PAIRS,
     .shape = RG_RS_PAIRS,
     .child = 1,
     .nchildren = 2,
     .elem_size = sizeof(kd)},
    {.accept = RG_RA_STR, .shape = RG_RS_SCALAR, .store = RG_RT_VIEW, .offset = offsetof(kd, key)},
    {.accept = RG_RA_DBL, .shape = RG_RS_SCALAR, .store = RG_RT_DBL, .offset = offsetof(kd, value)},
};
static const rg_rtable kd_table = {"KD", kd_nodes, sizeof(kd_list), 0};

typedef struct view_list {
    rg_view *items;
    size_t count;
} view_list;

static const rg_rnode views_nodes[] = {
    {.accept = RG_RA_ARR,
     .shape = RG_RS_ARRAY,
     .child = 1,
     .nchildren = 1,
     .elem_size = sizeof(rg_view)},
    {.accept = RG_RA_STR | RG_RA_NULL, .shape = RG_RS_SCALAR, .store = RG_RT_VIEW},
};
static const rg_rtable views_table = {"VIEWS", views_nodes, sizeof(view_list), 0};

/* Decodes bytes in mode into poisoned storage and a poisoned out; c keeps the bytes the views
 * point into until conn_close. */
static rg_status poisoned(conn *c, const rg_rtable *t, const char *bytes, size_t n, void *out,
                          int mode) {
    rg_reply_reader rr;
    conn_open(c, &rr, (enum mode)mode, bytes, n);
    memset(storage, 0xab, sizeof storage);
    memset(out, 0xcd, t->result_size);
    const rg_status st = decode_one(c, &rr, t, out);
    assert_int_equal(c->consumed, n);
    return st;
}

static void root_lists(void **state) {
    (void)state;
    static char big[1400];
    char *b = big;
    b += sprintf(b, "*6\r\n$1\r\na\r\n$3\r\n1.5\r\n$%d\r\n", 1100); /* a long member */
    memset(b, 'm', 1100);
    b += 1100;
    sprintf(b, "\r\n$1\r\n2\r\n$1\r\nc\r\n$2\r\n-3\r\n");
    static const struct {
        const char *bytes;
        rg_status want;
        size_t set; /* elements (pairs: keys and values) written before the stop */
    } kd_cases[] = {
        {"*4\r\n$1\r\na\r\n$3\r\n1.5\r\n$1\r\nb\r\n$4\r\n-2.5\r\n", RG_OK, 4},
        {"*6\r\n$1\r\na\r\n$3\r\n1.5\r\n$1\r\nb\r\n$1\r\nx\r\n$1\r\nc\r\n$1\r\n1\r\n", RG_MISMATCH,
         3},
        {"*6\r\n$1\r\na\r\n$3\r\n1.5\r\n$-1\r\n$1\r\n2\r\n$1\r\nc\r\n$1\r\n1\r\n", RG_MISMATCH, 2},
        {"*4\r\n$1\r\na\r\n$3\r\n1.5\r\n$1\r\nb\r\n:7\r\n", RG_OK, 4},
        {"*4\r\n$1\r\na\r\n$3\r\n1.5\r\n$1\r\nb\r\n$3\r\ninf\r\n", RG_OK, 4},
        {big, RG_OK, 6},
    };
    for (size_t k = 0; k < sizeof kd_cases / sizeof kd_cases[0]; k++) {
        for (int m = 0; m < MODES; m++) {
            kd_list out;
            conn c;
            const rg_status st =
                poisoned(&c, &kd_table, kd_cases[k].bytes, strlen(kd_cases[k].bytes), &out, m);
            if (st != kd_cases[k].want) fail_msg("kd %zu mode %d: %s", k, m, rg_status_name(st));
            assert_non_null(out.items);
            const size_t pairs = (size_t)(kd_cases[k].bytes[1] - '0') / 2;
            if (st == RG_OK) assert_int_equal(out.count, pairs);
            /* (after a mismatch, views of a reply read in more than one call stay offsets) */
            if (st == RG_OK || m == WHOLE) assert_view(out.items[0].key, "a");
            assert_int_equal(out.items[0].key.len, 1);
            if (out.items[0].value != 1.5) fail_msg("kd %zu mode %d: %g", k, m, out.items[0].value);
            for (size_t e = kd_cases[k].set; e < 2 * pairs; e++) {
                const kd *it = &out.items[e / 2];
                if (e % 2 == 0) assert_null(it->key.ptr), assert_int_equal(it->key.len, 0);
                if (e % 2 == 1) assert_true(it->value == 0);
            }
            conn_close(&c);
        }
    }
    for (int m = 0; m < MODES; m++) {
        kd_list out;
        conn c;
        assert_int_equal(poisoned(&c, &kd_table, big, strlen(big), &out, m), RG_OK);
        assert_int_equal(out.items[1].key.len, 1100);
        assert_true(out.items[1].value == 2);
        assert_view(out.items[2].key, "c");
        assert_true(out.items[2].value == -3);
        conn_close(&c);
    }
    static const struct {
        const char *bytes;
        rg_status want;
        size_t pairs, set; /* pairs announced; keys and values written before the stop */
    } nested[] = {
        {"*2\r\n*2\r\n$1\r\na\r\n,1.5\r\n*2\r\n$1\r\nb\r\n,-2.5\r\n", RG_OK, 2, 4},
        {"*3\r\n*2\r\n$1\r\na\r\n,1.5\r\n*2\r\n$1\r\nb\r\n,1e3\r\n*2\r\n$1\r\nc\r\n,3\r\n", RG_OK,
         3, 6},
        {"*3\r\n*2\r\n$1\r\na\r\n,1.5\r\n*2\r\n$1\r\nb\r\n$3\r\n2.5\r\n*2\r\n$1\r\nc\r\n:3\r\n",
         RG_OK, 3, 6},
        {"*3\r\n*2\r\n$1\r\na\r\n,1.5\r\n*3\r\n$1\r\nb\r\n,1\r\n:1\r\n*2\r\n$1\r\nc\r\n,3\r\n",
         RG_MISMATCH, 3, 2},
        {"*3\r\n*2\r\n$1\r\na\r\n,1.5\r\n*2\r\n$1\r\nb\r\n$1\r\nx\r\n*2\r\n$1\r\nc\r\n,3\r\n",
         RG_MISMATCH, 3, 3},
        {"*3\r\n*2\r\n$1\r\na\r\n,1.5\r\n*2\r\n$-1\r\n,2\r\n*2\r\n$1\r\nc\r\n,3\r\n", RG_MISMATCH,
         3, 2},
    };
    for (size_t k = 0; k < sizeof nested / sizeof nested[0]; k++) {
        for (int m = 0; m < MODES; m++) {
            kd_list out;
            conn c;
            const rg_status st =
                poisoned(&c, &kd_table, nested[k].bytes, strlen(nested[k].bytes), &out, m);
            if (st != nested[k].want) fail_msg("nested %zu mode %d: %s", k, m, rg_status_name(st));
            assert_non_null(out.items);
            if (st == RG_OK) assert_int_equal(out.count, nested[k].pairs);
            if (st == RG_OK || m == WHOLE) assert_view(out.items[0].key, "a");
            assert_true(out.items[0].value == 1.5);
            for (size_t e = nested[k].set; e < 2 * nested[k].pairs; e++) {
                const kd *it = &out.items[e / 2];
                if (e % 2 == 0) assert_null(it->key.ptr), assert_int_equal(it->key.len, 0);
                if (e % 2 == 1) assert_true(it->value == 0);
            }
            if (st == RG_OK) assert_true(out.items[nested[k].pairs - 1].value != 0);
            conn_close(&c);
        }
    }
    static const char mget[] = "*5\r\n$1\r\na\r\n$-1\r\n$2\r\nbc\r\n:1\r\n$1\r\nd\r\n";
    for (int m = 0; m < MODES; m++) {
        view_list out;
        conn c;
        assert_int_equal(poisoned(&c, &views_table, mget, strlen(mget), &out, m), RG_MISMATCH);
        if (m == WHOLE) assert_view(out.items[0], "a");
        if (m == WHOLE) assert_view(out.items[2], "bc");
        assert_null(out.items[1].ptr);
        assert_int_equal(out.items[2].len, 2);
        for (size_t e = 3; e < 5; e++)
            assert_null(out.items[e].ptr), assert_int_equal(out.items[e].len, 0);
        conn_close(&c);
    }
}

/* The idx-th of list_scores' systematic texts (false past the last), for every length 1 to 20:
 * digits (a 9, then the length's own pattern: 16 of them are above 2^53), then a point in place of
 * each digit, then each byte of `bad` in place of each digit. */
static bool edge_score(size_t idx, char *out) {
    static const char bad[] = {'.', '/', ':',        'a',        '-',
                               '+', 'e', (char)0xb9, (char)0xba, (char)0xff};
    const size_t nbad = sizeof bad;
    for (size_t len = 1; len <= 20; len++) {
        const size_t variants = 1 + len + len * nbad;
        if (idx >= variants) {
            idx -= variants;
            continue;
        }
        for (size_t i = 0; i < len; i++) out[i] = (char)('0' + (i ? (i * 7 + len) % 10 : 9));
        out[len] = '\0';
        if (idx >= 1 && idx <= len) out[idx - 1] = '.';
        if (idx > len) out[(idx - len - 1) / nbad] = bad[(idx - len - 1) % nbad];
        return true;
    }
    return false;
}

/* Whether list_scores' text is a score: what strtod takes whole (as text_double, "+1" too). */

/* Scores read by the short loops of root_list (in lists long enough for their room) agree bit
 * for bit with strtod: random decimals of 1 to 17 digits, and the edges. */
static void list_scores(void **state) {
    (void)state;
    static const char *const fixed[] = {
        "0", "-0", "1.5", ".5", "5.", "-.5", "-5.", "1e5", ".", "-", "", "1.2.3", "+1", "inf",
        "nan", "-nan", "NAN", "-INF", "+nan", "0x10", " 1", "1 ", "--1", "9007199254740993",
        "123456789012345", "1234567890123456", "0.000000000000001", "99999999999999.9",
        "-999999999999999", "3.14159265358979", "0.1", "0.3", "2.675", "1.0000000000000002",
        /* 16 to 19 digits (Redis before 7.2 sends "%.17g"):
         * rg_decimal's 64-bit product, a multiple of 5^k (a
         * tie: 2^53 + 1), more than 19 digits, 2^63 */
        "0.10000000000000001", "-0.29999999999999999", "3.1400000000000001", "9007199254740993.0",
        "9007199254740993.5", "1844674407370955.1615", "9999999999999999999",
        "99999999999.99999999", "9223372036854775807", "9223372036854775808",
        "0.0000000000000000001", "12345678901234567890"};
    enum { PAIRS = 40 };
    char text[PAIRS][32];
    unsigned seed = 7;
    size_t next_fixed = 0;
    size_t next_edge = 0;
    bool edges_left = true;
    for (int round = 0; round < 1000 || edges_left; round++) {
        bool ended = false;
        for (size_t k = 0; k < PAIRS; k++) {
            if (round >= 1000) { /* the edge texts, after the random ones; one that is not a
                                    score ends its round (the rest would not be read) */
                ended = ended || (k && !is_score(text[k - 1]));
                if (ended || !(edges_left = edge_score(next_edge, text[k]))) {
                    snprintf(text[k], sizeof text[k], "1");
                } else {
                    next_edge++;
                }
                continue;
            }
            if (next_fixed < sizeof fixed / sizeof *fixed) {
                snprintf(text[k], sizeof text[k], "%s", fixed[next_fixed++]);
                continue;
            }
            size_t n = 0;
            seed = seed * 1103515245u + 12345u;
            if ((seed >> 26) % 4 == 0) { /* a double as Redis 7.0 sends it */
                const uint64_t bits = (uint64_t)seed << 32 ^ (uint64_t)(seed * 2654435761u);
                const double v = (double)(bits >> 12) / (double)(UINT64_C(1) << (bits & 63));
                snprintf(text[k], sizeof text[k], "%.17g", bits >> 11 & 1 ? -v : v);
                continue;
            }
            if ((seed >> 29) == 7) text[k][n++] = '-';
            const size_t digits = 1 + (seed >> 8) % 20, point = (seed >> 16) % (digits + 2);
            for (size_t i = 0; i < digits; i++) {
                if (i == point) text[k][n++] = '.';
                seed = seed * 1103515245u + 12345u;
                text[k][n++] = (char)('0' + (seed >> 16) % 10);
            }
            text[k][n] = '\0';
        }
        /* flat (RESP2); RESP3 pairs with ',' doubles (only random texts: all are doubles); pairs
         * with the scores as bulks */
        for (int form = 0; form < 3; form++) {
            if (form == 1 && (round == 0 || round >= 1000)) continue;
            char reply[4096];
            size_t len = (size_t)snprintf(reply, sizeof reply, "*%d\r\n", form ? PAIRS : 2 * PAIRS);
            for (size_t k = 0; k < PAIRS; k++) {
                const size_t tl = strlen(text[k]);
                if (form == 0)
                    len += (size_t)snprintf(reply + len, sizeof reply - len,
                                            "$1\r\nm\r\n$%zu\r\n%s\r\n", tl, text[k]);
                if (form == 1)
                    len += (size_t)snprintf(reply + len, sizeof reply - len,
                                            "*2\r\n$1\r\nm\r\n,%s\r\n", text[k]);
                if (form == 2)
                    len += (size_t)snprintf(reply + len, sizeof reply - len,
                                            "*2\r\n$1\r\nm\r\n$%zu\r\n%s\r\n", tl, text[k]);
            }
            const size_t whole = len;
            memset(reply + len, '+', 100); /* room after the reply, never read as part of it */
            rg_reply_reader rr;
            rg_reply_reader_init(&rr, NULL);
            rg_reply_set_storage(&rr, storage, sizeof storage);
            kd_list out;
            size_t pos = 0;
            const rg_status st = rg_reply_decode(&rr, &kd_table, reply, whole + 100, &pos, &out);
            bool all = true;
            for (size_t k = 0; k < PAIRS; k++) {
                const double want = strtod(text[k], NULL);
                if (!is_score(text[k])) {
                    all = false;
                    if (st != RG_MISMATCH) fail_msg("\"%s\": %s", text[k], rg_status_name(st));
                    break;
                }
                if (memcmp(&out.items[k].value, &want, sizeof want) != 0)
                    fail_msg("form %d: \"%s\" read as %.17g, strtod %.17g", form, text[k],
                             out.items[k].value, want);
            }
            if (all && st != RG_OK)
                fail_msg("round %d form %d: %s", round, form, rg_status_name(st));
            if (all) assert_int_equal(out.count, PAIRS);
            assert_int_equal(pos, whole);
        }
    }
}

/* Lists long enough for the short loops, counted and streamed (the count of a streamed one found
 * by the lookahead; the decoder's count of it runs on), in every mode (so also read again with
 * views as offsets): values right, nothing written past the items. */
static void long_lists(void **state) {
    (void)state;
    enum { N = 30 };
    static const char *const one[] = {"$5\r\nvalue\r\n", "$1\r\nm\r\n$3\r\n1.5\r\n",
                                      "*2\r\n$1\r\nm\r\n,1.5\r\n"};
    for (int form = 0; form < 6; form++) {
        const bool streamed = form >= 3;
        char reply[1024];
        size_t len =
            streamed ? (size_t)snprintf(reply, sizeof reply, "*?\r\n")
                     : (size_t)snprintf(reply, sizeof reply, "*%d\r\n", form % 3 == 1 ? 2 * N : N);
        for (int k = 0; k < N; k++)
            len += (size_t)snprintf(reply + len, sizeof reply - len, "%s", one[form % 3]);
        if (streamed) len += (size_t)snprintf(reply + len, sizeof reply - len, ".\r\n");
        const rg_rtable *t = form % 3 ? &kd_table : &views_table;
        const size_t items = form % 3 ? N * sizeof(kd) : N * sizeof(rg_view);
        for (int m = 0; m < MODES; m++) {
            union {
                view_list views;
                kd_list kd;
            } out;
            conn c;
            if (poisoned(&c, t, reply, len, &out, m) != RG_OK) fail_msg("form %d mode %d", form, m);
            assert_int_equal(form % 3 ? out.kd.count : out.views.count, N);
            for (size_t b = items; b < items + 64; b++) {
                if ((unsigned char)storage[b] != 0xab)
                    fail_msg("form %d mode %d: byte %zu written", form, m, b);
            }
            for (size_t k = 0; k < N; k++) {
                if (form % 3) assert_view(out.kd.items[k].key, "m");
                if (form % 3) assert_true(out.kd.items[k].value == 1.5);
                if (!(form % 3)) assert_view(out.views.items[k], "value");
            }
            conn_close(&c);
        }
        /* in two calls, the second on a moved copy with the whole reply: views kept as offsets
         * by the short loops while the rest is roomy */
        for (size_t cut = 1; cut < len; cut += 37) {
            rg_reply_reader rr;
            rg_reply_reader_init(&rr, NULL);
            rg_reply_set_storage(&rr, storage, sizeof storage);
            memset(storage, 0xab, sizeof storage);
            union {
                view_list views;
                kd_list kd;
            } out;
            char first[1024], moved[1024];
            memcpy(first, reply, len);
            size_t pos = 0;
            if (rg_reply_decode(&rr, t, first, cut, &pos, &out) != RG_NEED_MORE)
                fail_msg("form %d cut %zu: done early", form, cut);
            memcpy(moved, reply, len);
            memset(first, 'X', len);
            if (rg_reply_decode(&rr, t, moved, len, &pos, &out) != RG_OK)
                fail_msg("form %d cut %zu", form, cut);
            assert_int_equal(pos, len);
            for (size_t k = 0; k < N; k++) {
                if (form % 3) assert_view(out.kd.items[k].key, "m");
                if (form % 3) assert_true(out.kd.items[k].value == 1.5);
                if (!(form % 3)) assert_view(out.views.items[k], "value");
            }
        }
    }
}

/* ---- alternatives that are lists of scalars, tried by decoding them (try_list) ---- */

typedef struct i64_list {
    int64_t *items;
    size_t count;
} i64_list;

typedef struct three_lists {
    uint8_t which;
    i64_list ints;
    kd_list kd;
    view_list views;
} three_lists;

/* ints, else flat pairs of a view and a double, else views: an element rules each out. */
static const rg_rnode three_nodes[] = {
    {.accept = RG_RA_ANY, .shape = RG_RS_ONEOF, .child = 1, .nchildren = 3},
    {.accept = RG_RA_ARR,
     .shape = RG_RS_ARRAY,
     .child = 4,
     .nchildren = 1,
     .offset = offsetof(three_lists, ints),
     .elem_size = sizeof(int64_t)},
    {.accept = RG_RA_PAIRS,
     .shape = RG_RS_PAIRS,
     .child = 5,
     .nchildren = 2,
     .offset = offsetof(three_lists, kd),
     .elem_size = sizeof(kd)},
    {.accept = RG_RA_ARR,
     .shape = RG_RS_ARRAY,
     .child = 7,
     .nchildren = 1,
     .offset = offsetof(three_lists, views),
     .elem_size = sizeof(rg_view)},
    {.accept = RG_RA_INT, .shape = RG_RS_SCALAR, .store = RG_RT_I64},
    {.accept = RG_RA_STR, .shape = RG_RS_SCALAR, .store = RG_RT_VIEW, .offset = offsetof(kd, key)},
    {.accept = RG_RA_DBL, .shape = RG_RS_SCALAR, .store = RG_RT_DBL, .offset = offsetof(kd, value)},
    {.accept = RG_RA_STR | RG_RA_NULL, .shape = RG_RS_SCALAR, .store = RG_RT_VIEW},
};
static const rg_rtable three_table = {"THREE", three_nodes, sizeof(three_lists), 0};

/* The lists of the alternatives not chosen stay empty (a tried one is put back). */
static void check_three(const three_lists *r, uint8_t which, size_t count) {
    assert_int_equal(r->which, which);
    const size_t counts[] = {r->ints.count, r->kd.count, r->views.count};
    const void *const items[] = {r->ints.items, r->kd.items, r->views.items};
    for (size_t k = 0; k < 3; k++) {
        assert_int_equal(counts[k], k + 1 == which ? count : 0);
        if (k + 1 != which) assert_null(items[k]);
    }
}

static void check_three_ints(const void *p) {
    const three_lists *r = p;
    check_three(r, 1, 3);
    assert_int_equal(r->ints.items[0], 1);
    assert_int_equal(r->ints.items[2], -3);
}

static void check_three_kd(const void *p) {
    const three_lists *r = p;
    check_three(r, 2, 2);
    assert_view(r->kd.items[0].key, "a");
    assert_true(r->kd.items[0].value == 1.5);
    assert_view(r->kd.items[1].key, "b");
    assert_true(r->kd.items[1].value == -2.5);
}

static void check_three_kd_one(const void *p) {
    const three_lists *r = p;
    check_three(r, 2, 1);
    assert_view(r->kd.items[0].key, "a");
    assert_true(r->kd.items[0].value == 1.5);
}

static void check_three_views(const void *p) {
    const three_lists *r = p;
    check_three(r, 3, 4);
    assert_view(r->views.items[0], "a");
    assert_view(r->views.items[1], "1.5");
    assert_null(r->views.items[2].ptr);
    assert_view(r->views.items[3], "x");
}

static void check_three_views3(const void *p) {
    const three_lists *r = p;
    check_three(r, 3, 3);
    assert_view(r->views.items[0], "a");
    assert_view(r->views.items[2], "c");
}

static void oneof_lists(void **state) {
    (void)state;
    expect(&three_table, S("*3\r\n:1\r\n:2\r\n:-3\r\n"), RG_OK, check_three_ints);
    /* the ints ruled out by the first element, the pairs taken */
    expect(&three_table, S("*4\r\n$1\r\na\r\n$3\r\n1.5\r\n$1\r\nb\r\n$4\r\n-2.5\r\n"), RG_OK,
           check_three_kd);
    expect(&three_table, S("*4\r\n+a\r\n,1.5\r\n+b\r\n#t\r\n"), RG_MISMATCH,
           NULL); /* no pairs (a boolean score), no views (a double) */
    expect(&three_table, S("%1\r\n$1\r\na\r\n,1.5\r\n"), RG_OK, check_three_kd_one);
    /* the pairs ruled out by the last score, by a null key, by an odd count */
    expect(&three_table, S("*4\r\n$1\r\na\r\n$3\r\n1.5\r\n$-1\r\n$1\r\nx\r\n"), RG_OK,
           check_three_views);
    expect(&three_table, S("*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n"), RG_OK, check_three_views3);
    /* the ints ruled out by their last element; nothing takes it */
    expect(&three_table, S("*3\r\n:1\r\n:2\r\n$1\r\nx\r\n"), RG_MISMATCH, NULL);
    expect(&three_table, S("*2\r\n:1\r\n-ERR x\r\n"), RG_MISMATCH, NULL);
    /* an attribute inside: left to the lookahead */
    expect(&three_table, S("*3\r\n:1\r\n|1\r\n+k\r\n+v\r\n:2\r\n:-3\r\n"), RG_OK, check_three_ints);
    expect(&three_table,
           S("*4\r\n$1\r\na\r\n|1\r\n+k\r\n+v\r\n$3\r\n1.5\r\n$1\r\nb\r\n$4\r\n-2.5\r\n"), RG_OK,
           check_three_kd);
    /* a nested list: no alternative */
    expect(&three_table, S("*2\r\n:1\r\n*1\r\n:2\r\n"), RG_MISMATCH, NULL);
    /* the next reply after each is read in step */
    static const char two[] = "*2\r\n:1\r\n$1\r\nx\r\n*3\r\n:1\r\n:2\r\n:-3\r\n";
    for (int m = 0; m < MODES; m++) {
        rg_reply_reader rr;
        conn c;
        three_lists out;
        conn_open(&c, &rr, (enum mode)m, S(two));
        assert_int_equal(decode_one(&c, &rr, &three_table, &out), RG_MISMATCH);
        assert_int_equal(decode_one(&c, &rr, &three_table, &out), RG_OK);
        check_three_ints(&out);
        conn_close(&c);
    }
}

/* ---- rg_reply_decode_many against one rg_reply_decode per reply ---- */

/* What a driver saw: each reply's status and value, and at each status other than RG_OK where
 * the reader stood; two drivers that see the same bytes must log the same. */
typedef struct many_log {
    char text[16384];
    size_t len;
} many_log;

static void log_add(many_log *lg, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    const int w = vsnprintf(lg->text + lg->len, sizeof lg->text - lg->len, fmt, ap);
    va_end(ap);
    assert_true(w >= 0 && (size_t)w < sizeof lg->text - lg->len);
    lg->len += (size_t)w;
}

static void log_value(many_log *lg, const redis_get_result *r) {
    if (!r->value.ptr) {
        log_add(lg, "OK null;");
    } else {
        log_add(lg, "OK %zu:%.*s;", r->value.len, (int)(r->value.len > 8 ? 8 : r->value.len),
                r->value.ptr);
    }
}

static void log_state(many_log *lg, const rg_reply_reader *rr, rg_status st, size_t pos) {
    const rg_reader *d = rg_reply_decoder(rr);
    log_add(lg, "%s pos %zu start %llu off %llu values %llu;\n", rg_status_name(st), pos,
            (unsigned long long)rg_reply_start(rr), (unsigned long long)rg_reader_offset(d),
            (unsigned long long)rg_reader_values(d));
}

/* Decodes the stream, the first split bytes arriving first, one reply a call (batch 0) or
 * batch replies a call with rg_reply_decode_many; pushes skipped. */
static void many_drive(const char *bytes, size_t total, size_t split, size_t batch, many_log *lg) {
    rg_reply_reader rr;
    rg_reply_reader_init(&rr, NULL);
    rg_reply_set_storage(&rr, storage, sizeof storage);
    redis_get_result res[8];
    size_t have = split, pos = 0, pend = 0;
    lg->len = 0;
    memset(res, 0xee, sizeof res);
    for (int guard = 0; guard < 1000; guard++) {
        rg_status st;
        if (batch == 0) {
            st = rg_reply_decode(&rr, &redis_get_reply_table, bytes, have, &pos, &res[0]);
            if (st == RG_OK) log_value(lg, &res[0]);
        } else {
            /* a reply left pending (RG_NEED_MORE) goes on in the struct it began in */
            size_t done = 99;
            memset(res + pend + 1, 0xee, sizeof res - (pend + 1) * sizeof res[0]);
            st = rg_reply_decode_many(&rr, &redis_get_reply_table, bytes, have, &pos, res + pend,
                                      sizeof res[0], batch - pend, &done);
            assert_true(done <= batch - pend);
            assert_true(st == RG_OK ? done == batch - pend : done < batch - pend);
            for (size_t k = 0; k < done; k++) log_value(lg, &res[pend + k]);
            pend = st == RG_NEED_MORE ? pend + done : 0;
        }
        if (st == RG_OK) continue;
        log_state(lg, &rr, st, pos);
        if (st == RG_NEED_MORE) {
            if (have == total) return;
            have = total;
        } else if (st == RG_PUSH) {
            rg_status sk = rg_reply_skip(&rr, bytes, have, &pos);
            if (sk == RG_NEED_MORE && have < total) {
                have = total;
                sk = rg_reply_skip(&rr, bytes, have, &pos);
            }
            log_state(lg, &rr, sk, pos);
        } else if (rg_status_fatal(st)) {
            return;
        }
    }
    fail_msg("no end");
}

static void decode_many(void **state) {
    (void)state;
    static char stream[4096];
    char *b = stream;
    b += sprintf(b, "$3\r\nabc\r\n$0\r\n\r\n$-1\r\n_\r\n$2\r\nde\r\n-ERR x\r\n");
    b += sprintf(b, ">2\r\n+message\r\n$1\r\nm\r\n$12\r\n0123456789ab\r\n:5\r\n+OK\r\n");
    b += sprintf(b, "$1200\r\n");
    memset(b, 'L', 1200);
    b += 1200;
    b += sprintf(b, "\r\n|1\r\n+k\r\n+v\r\n$1\r\na\r\n*1\r\n$1\r\nb\r\n$100\r\n");
    memset(b, 'h', 100);
    b += 100;
    b += sprintf(b, "\r\n$1\r\nz\r\n$1\r\ny\r\n$1\r\nx\r\n$1\r\nw\r\n$1\r\nv\r\n");
    const size_t good = (size_t)(b - stream);
    sprintf(b, "$1\r\nu\r\n$x\r\n$1\r\nt\r\n"); /* a protocol error after one more */
    const size_t ends[] = {good, strlen(stream)};
    static many_log want, got;
    for (size_t e = 0; e < 2; e++) {
        for (size_t split = 0; split <= ends[e]; split++) {
            many_drive(stream, ends[e], split, 0, &want);
            for (size_t batch = 1; batch <= 8; batch += 3) {
                many_drive(stream, ends[e], split, batch, &got);
                if (got.len != want.len || memcmp(got.text, want.text, got.len) != 0) {
                    fail_msg("end %zu split %zu batch %zu:\n%.*s\nwant\n%.*s", ends[e], split,
                             batch, (int)got.len, got.text, (int)want.len, want.text);
                }
            }
        }
    }
    /* the whole good stream: 15 values and the push skipped (RG_OK), an error, two mismatches */
    many_drive(stream, good, good, 4, &got);
    size_t oks = 0;
    for (const char *q = got.text; (q = strstr(q, "OK ")) != NULL; q++) oks++;
    assert_int_equal(oks, 16);
    /* after RG_OK: the reader as after the last of n calls (the last reply's start) */
    static const char abc[] = "$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n$1\r\nd\r\n";
    for (size_t n = 1; n <= 4; n++) {
        rg_reply_reader one, many;
        redis_get_result r[4];
        size_t p1 = 0, p2 = 0, done = 0;
        rg_reply_reader_init(&one, NULL);
        rg_reply_reader_init(&many, NULL);
        for (size_t k = 0; k < n; k++) {
            assert_int_equal(rg_reply_decode(&one, &redis_get_reply_table, S(abc), &p1, r), RG_OK);
        }
        assert_int_equal(rg_reply_decode_many(&many, &redis_get_reply_table, S(abc), &p2, r,
                                              sizeof r[0], n, &done),
                         RG_OK);
        assert_int_equal(done, n);
        assert_int_equal(p1, p2);
        assert_int_equal(rg_reply_start(&one), rg_reply_start(&many));
        assert_int_equal(rg_reply_start(&many), 7 * (n - 1));
        assert_int_equal(rg_reader_offset(rg_reply_decoder(&many)), 7 * n);
        assert_int_equal(rg_reader_values(rg_reply_decoder(&many)), n);
        assert_view(r[n - 1].value, (const char[]){(char)('a' + n - 1), 0});
    }
}

/* A decode called while rg_reply_skip still waits for the rest of a push (misuse, but a client
 * must not crash on it): the push is finished first, then the reply is read. It once read the
 * push's end as the reply's and closed a frame it never opened. */
static void decode_after_half_skip(void **state) {
    (void)state;
    static const char stream[] = MESSAGE_PUSH ":7\r\n";
    const size_t half = strlen(MESSAGE_PUSH) / 2;
    rg_reply_reader rr;
    rg_reply_reader_init(&rr, NULL);
    rg_reply_set_storage(&rr, storage, sizeof storage);
    size_t pos = 0;
    assert_int_equal(rg_reply_skip(&rr, stream, half, &pos), RG_NEED_MORE);
    redis_incr_result incr;
    assert_int_equal(rg_reply_decode(&rr, &redis_incr_reply_table, stream, half, &pos, &incr),
                     RG_NEED_MORE);
    assert_int_equal(
        rg_reply_decode(&rr, &redis_incr_reply_table, stream, strlen(stream), &pos, &incr), RG_OK);
    assert_int_equal(incr.value, 7);
    assert_int_equal(pos, strlen(stream));
}

/* The same with GET, the push cut before its last element, a bulk: the decode must finish the
 * push, not take its last element for GET's reply (the inline GET path reads the reader's state
 * from one flag, which rg_reply_skip must leave right). */
static void get_after_half_skip(void **state) {
    (void)state;
    static const char stream[] = MESSAGE_PUSH "$3\r\nabc\r\n";
    const size_t cut = strlen(MESSAGE_PUSH) - strlen("$5\r\nhello\r\n");
    rg_reply_reader rr;
    rg_reply_reader_init(&rr, NULL);
    size_t pos = 0;
    assert_int_equal(rg_reply_skip(&rr, stream, cut, &pos), RG_NEED_MORE);
    assert_int_equal(pos, cut);
    redis_get_result get;
    assert_int_equal(redis_get_reply(&rr, stream, strlen(stream), &pos, &get), RG_OK);
    assert_int_equal(get.value.len, 3);
    assert_memory_equal(get.value.ptr, "abc", 3);
    assert_int_equal(pos, strlen(stream));
    assert_int_equal(rg_reply_start(&rr), strlen(MESSAGE_PUSH));
}

/* ---- merging a fan-out's replies (rg_reply_merge, rg_reply_put_int) ------------------------ */

/* Does v point into [buf, buf + len)? (The merge copies no value: views stay in the parts.) */
static bool inside(rg_view v, const char *buf, size_t len) {
    return (uintptr_t)v.ptr >= (uintptr_t)buf && (uintptr_t)v.ptr + v.len <= (uintptr_t)buf + len;
}

/* An MGET split over two slots, in RESP2 and RESP3: nils, a binary value (CRLF and NUL inside)
 * and a repeated key come back in key order, each view in its part's bytes. */
static void merge_ordered(void **state) {
    (void)state;
    static const char p0[2][64] = {"*3\r\n$1\r\na\r\n$-1\r\n$5\r\nx\r\n\0y\r\n",
                                   "*3\r\n$1\r\na\r\n_\r\n$5\r\nx\r\n\0y\r\n"};
    /* the text before the NUL, then "\0y\r\n" (4 bytes: 3 + the sizeof of the NUL) */
    static const size_t p0_len[2] = {sizeof "*3\r\n$1\r\na\r\n$-1\r\n$5\r\nx\r\n" + 3,
                                     sizeof "*3\r\n$1\r\na\r\n_\r\n$5\r\nx\r\n" + 3};
    static const char p1[] = "*2\r\n$2\r\nbb\r\n$1\r\na\r\n";
    /* keys: k1(part 1) a(0) nil(0) a'(part 1) bin(0) */
    static const uint8_t from[] = {1, 0, 0, 1, 0};
    for (int proto = 0; proto < 2; proto++) {
        rg_reply_reader rr;
        rg_reply_reader_init(&rr, NULL);
        rg_reply_set_storage(&rr, storage, sizeof storage);
        const rg_view parts[] = {{p0[proto], p0_len[proto]}, {p1, sizeof p1 - 1}};
        redis_mget_result out;
        memset(&out, 0x5a, sizeof out);
        assert_int_equal(rg_reply_merge(&rr, &redis_mget_reply_table, parts, 2, from, 5, &out),
                         RG_OK);
        assert_int_equal(out.value.count, 5);
        assert_view(out.value.items[0], "bb");
        assert_view(out.value.items[1], "a");
        assert_null(out.value.items[2].ptr);
        assert_view(out.value.items[3], "a");
        assert_int_equal(out.value.items[4].len, 5);
        assert_memory_equal(out.value.items[4].ptr, "x\r\n\0y", 5);
        assert_true(inside(out.value.items[1], parts[0].ptr, parts[0].len));
        assert_true(inside(out.value.items[4], parts[0].ptr, parts[0].len));
        assert_true(inside(out.value.items[0], p1, sizeof p1));
        assert_true(inside(out.value.items[3], p1, sizeof p1));
        /* the merged list in the storage, after the parts' own lists */
        assert_true((char *)out.value.items >= storage + 3 * sizeof(rg_view));
        assert_true(rg_reply_needed(&rr) <= sizeof storage);
        /* the reader is fresh again: an ordinary reply decodes */
        size_t pos = 0;
        assert_int_equal(redis_mget_reply(&rr, p1, sizeof p1 - 1, &pos, &out), RG_OK);
        assert_int_equal(out.value.count, 2);
    }
}

/* Without an order (KEYS, HGETALL): the parts' lists one after another, flat RESP2 pairs and a
 * RESP3 map alike; an empty part adds nothing. */
static void merge_concat(void **state) {
    (void)state;
    rg_reply_reader rr;
    rg_reply_reader_init(&rr, NULL);
    rg_reply_set_storage(&rr, storage, sizeof storage);
    const rg_view keys[] = {RG_LIT("*2\r\n$1\r\na\r\n$1\r\nb\r\n"), RG_LIT("*0\r\n"),
                            RG_LIT("*1\r\n+c\r\n")};
    redis_keys_result k;
    assert_int_equal(rg_reply_merge(&rr, &redis_keys_reply_table, keys, 3, NULL, 0, &k), RG_OK);
    assert_int_equal(k.value.count, 3);
    assert_view(k.value.items[0], "a");
    assert_view(k.value.items[1], "b");
    assert_view(k.value.items[2], "c");
    const rg_view pairs[] = {RG_LIT("*4\r\n$1\r\nf\r\n$1\r\n1\r\n$1\r\ng\r\n$1\r\n2\r\n"),
                             RG_LIT("%1\r\n$1\r\nh\r\n$1\r\n3\r\n")};
    redis_hgetall_result h;
    assert_int_equal(rg_reply_merge(&rr, &redis_hgetall_reply_table, pairs, 2, NULL, 0, &h), RG_OK);
    assert_int_equal(h.value.count, 3);
    assert_view(h.value.items[0].key, "f");
    assert_view(h.value.items[1].value, "2");
    assert_view(h.value.items[2].key, "h");
    assert_view(h.value.items[2].value, "3");
}

/* The size query: no storage says how much; that much merges; a byte less is RG_SHORT. */
static void merge_size_query(void **state) {
    (void)state;
    const rg_view parts[] = {RG_LIT("*2\r\n$1\r\na\r\n$1\r\nb\r\n"), RG_LIT("*1\r\n$1\r\nc\r\n")};
    static const uint8_t from[] = {1, 0, 0};
    rg_reply_reader rr;
    rg_reply_reader_init(&rr, NULL);
    redis_mget_result out;
    assert_int_equal(rg_reply_merge(&rr, &redis_mget_reply_table, parts, 2, from, 3, &out),
                     RG_SHORT);
    const size_t need = rg_reply_needed(&rr);
    assert_int_equal(need, 2 * 16 + 16 + 3 * 16); /* both parts' lists, then the merged one */
    rg_reply_set_storage(&rr, storage, need - 1);
    assert_int_equal(rg_reply_merge(&rr, &redis_mget_reply_table, parts, 2, from, 3, &out),
                     RG_SHORT);
    assert_int_equal(rg_reply_needed(&rr), need);
    rg_reply_set_storage(&rr, storage, need);
    assert_int_equal(rg_reply_merge(&rr, &redis_mget_reply_table, parts, 2, from, 3, &out), RG_OK);
    assert_view(out.value.items[0], "c");
    assert_view(out.value.items[2], "b");
}

/* What cannot be merged: a part's server error (its text), a part of another shape, counts that
 * do not match the keys, a cut or overlong part, a table whose reply is no list; the reader
 * decodes on afterwards. */
static void merge_failures(void **state) {
    (void)state;
    rg_reply_reader rr;
    rg_reply_reader_init(&rr, NULL);
    rg_reply_set_storage(&rr, storage, sizeof storage);
    redis_mget_result out;
    static const uint8_t from[] = {0, 1};
    const rg_view ok = RG_LIT("*1\r\n$1\r\na\r\n");
    const rg_view err[] = {ok, RG_LIT("-NOPERM no\r\n")};
    assert_int_equal(rg_reply_merge(&rr, &redis_mget_reply_table, err, 2, from, 2, &out),
                     RG_SERVER_ERROR);
    expect_message(&rr, "NOPERM no");
    const rg_view shape[] = {ok, RG_LIT(":1\r\n")};
    assert_int_equal(rg_reply_merge(&rr, &redis_mget_reply_table, shape, 2, from, 2, &out),
                     RG_MISMATCH);
    expect_message(&rr, "MGET: reply: expected array");
    const rg_view more[] = {ok, RG_LIT("*2\r\n$1\r\na\r\n$1\r\nb\r\n")};
    assert_int_equal(rg_reply_merge(&rr, &redis_mget_reply_table, more, 2, from, 2, &out),
                     RG_MISMATCH);
    expect_message(&rr, "more or fewer elements than keys");
    static const uint8_t twice[] = {0, 0};
    const rg_view fewer[] = {ok, ok};
    assert_int_equal(rg_reply_merge(&rr, &redis_mget_reply_table, fewer, 2, twice, 2, &out),
                     RG_MISMATCH);
    const rg_view cut[] = {ok, RG_LIT("*1\r\n$1\r\n")};
    assert_int_equal(rg_reply_merge(&rr, &redis_mget_reply_table, cut, 2, from, 2, &out),
                     RG_MISMATCH);
    expect_message(&rr, "reply of part 1: not one whole reply");
    const rg_view after[] = {RG_LIT("*1\r\n$1\r\na\r\n:1\r\n"), ok};
    assert_int_equal(rg_reply_merge(&rr, &redis_mget_reply_table, after, 2, from, 2, &out),
                     RG_MISMATCH);
    expect_message(&rr, "reply of part 0: not one whole reply");
    redis_del_result del;
    assert_int_equal(rg_reply_merge(&rr, &redis_del_reply_table, err, 1, NULL, 0, &del),
                     RG_MISMATCH);
    expect_message(&rr, "not a list");
    const rg_view bad[] = {ok, RG_LIT("*1\r\n$x\r\n")};
    assert_true(
        rg_status_fatal(rg_reply_merge(&rr, &redis_mget_reply_table, bad, 2, from, 2, &out)));
    assert_int_equal(rg_reply_merge(&rr, &redis_mget_reply_table, err, 1, NULL, 0, &out), RG_OK);
    size_t pos = 0;
    assert_int_equal(redis_mget_reply(&rr, ok.ptr, ok.len, &pos, &out), RG_OK);
    assert_view(out.value.items[0], "a");
}

/* Parts a connection decoded already, each into storage of its own: only the merged list is
 * carved (size query included), elements by the key map, views untouched. */
static void gather(void **state) {
    (void)state;
    static const char p0[] = "*2\r\n$1\r\na\r\n_\r\n", p1[] = "*1\r\n$2\r\nbb\r\n";
    static alignas(max_align_t) char own[2][64];
    redis_mget_result part[2];
    rg_reply_reader rr;
    rg_reply_reader_init(&rr, NULL);
    size_t pos = 0;
    rg_reply_set_storage(&rr, own[0], sizeof own[0]);
    assert_int_equal(redis_mget_reply(&rr, p0, sizeof p0 - 1, &pos, &part[0]), RG_OK);
    pos = 0;
    rg_reply_set_storage(&rr, own[1], sizeof own[1]);
    assert_int_equal(redis_mget_reply(&rr, p1, sizeof p1 - 1, &pos, &part[1]), RG_OK);
    const void *const results[] = {&part[0], &part[1]};
    static const uint8_t from[] = {1, 0, 0};
    redis_mget_result out;
    rg_reply_set_storage(&rr, NULL, 0);
    assert_int_equal(rg_reply_gather(&rr, &redis_mget_reply_table, results, 2, from, 3, &out),
                     RG_SHORT);
    assert_int_equal(rg_reply_needed(&rr), 3 * sizeof(rg_view));
    rg_reply_set_storage(&rr, storage, 3 * sizeof(rg_view));
    assert_int_equal(rg_reply_gather(&rr, &redis_mget_reply_table, results, 2, from, 3, &out),
                     RG_OK);
    assert_ptr_equal(out.value.items, storage);
    assert_int_equal(out.value.count, 3);
    assert_ptr_equal(out.value.items[0].ptr, part[1].value.items[0].ptr);
    assert_view(out.value.items[1], "a");
    assert_null(out.value.items[2].ptr);
    assert_int_equal(rg_reply_gather(&rr, &redis_mget_reply_table, results, 2, from, 2, &out),
                     RG_MISMATCH);
    expect_message(&rr, "more or fewer elements than keys");
    static const uint8_t wrong[] = {1, 1, 0};
    assert_int_equal(rg_reply_gather(&rr, &redis_mget_reply_table, results, 2, wrong, 3, &out),
                     RG_MISMATCH);
    redis_del_result del = {0};
    const void *const ints[] = {&del};
    assert_int_equal(rg_reply_gather(&rr, &redis_del_reply_table, ints, 1, NULL, 0, &del),
                     RG_MISMATCH);
    pos = 0;
    assert_int_equal(redis_mget_reply(&rr, p1, sizeof p1 - 1, &pos, &out), RG_OK);
}

/* A merged count goes where t would put ":v"; a list's table takes none. */
static void put_int(void **state) {
    (void)state;
    rg_reply_reader rr;
    rg_reply_reader_init(&rr, NULL);
    redis_del_result del = {99};
    assert_int_equal(rg_reply_put_int(&rr, &redis_del_reply_table, -7, &del), RG_OK);
    assert_int_equal(del.value, -7);
    redis_mget_result out;
    assert_int_equal(rg_reply_put_int(&rr, &redis_mget_reply_table, 3, &out), RG_MISMATCH);
    expect_message(&rr, "MGET: reply: expected");
    assert_null(out.value.items);
    /* in the middle of a reply: refused, the reply goes on */
    size_t pos = 0;
    assert_int_equal(redis_del_reply(&rr, ":4", 2, &pos, &del), RG_NEED_MORE);
    assert_int_equal(rg_reply_put_int(&rr, &redis_del_reply_table, 1, &del), RG_INVALID);
    assert_int_equal(redis_del_reply(&rr, ":42\r\n", 5, &pos, &del), RG_OK);
    assert_int_equal(del.value, 42);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(no_crash),
        cmocka_unit_test(alternatives),
        cmocka_unit_test(streamed),
        cmocka_unit_test(size_query),
        cmocka_unit_test(callbacks),
        cmocka_unit_test(pushes),
        cmocka_unit_test(get_path),
        cmocka_unit_test(set_path),
        cmocka_unit_test(scores),
        cmocka_unit_test(root_lists),
        cmocka_unit_test(list_scores),
        cmocka_unit_test(long_lists),
        cmocka_unit_test(oneof_lists),
        cmocka_unit_test(decode_many),
        cmocka_unit_test(decode_after_half_skip),
        cmocka_unit_test(get_after_half_skip),
        cmocka_unit_test(merge_ordered),
        cmocka_unit_test(merge_concat),
        cmocka_unit_test(merge_size_query),
        cmocka_unit_test(merge_failures),
        cmocka_unit_test(gather),
        cmocka_unit_test(put_int),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
