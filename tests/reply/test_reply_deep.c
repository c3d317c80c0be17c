/* The typed reply engine over values nested deeper than the decoder's inline RG_MAX_DEPTH frames
 * (rg_reply_set_stack): a typed list of (name, raw) pairs whose raw values are 1,000 levels deep,
 * counted and streamed, and chosen between alternatives by the lookahead; whole and byte by
 * byte; the depth limit exactly and one past it; a table that nests typed levels deeper than the
 * engine's frames gives a mismatch, not an overflow. */
#include "rg_reply.h"

#include <setjmp.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static alignas(max_align_t) char storage[1 << 16];

/* [(name, raw), ...] */
typedef struct named {
    rg_view name;
    rg_view raw;
} named;

typedef struct named_list {
    named *items;
    size_t count;
} named_list;

static const rg_rnode named_nodes[] = {
    {.accept = RG_RA_ARR,
     .shape = RG_RS_ARRAY,
     .child = 1,
     .nchildren = 1,
     .elem_size = sizeof(named)},
    {.accept = RG_RA_TUPLE, .shape = RG_RS_TUPLE, .child = 2, .nchildren = 2},
    {.accept = RG_RA_STR,
     .shape = RG_RS_SCALAR,
     .store = RG_RT_VIEW,
     .offset = offsetof(named, name)},
    {.accept = RG_RA_ANY, .shape = RG_RS_ANY, .offset = offsetof(named, raw)},
};
static const rg_rtable named_table = {"NAMED", named_nodes, sizeof(named_list), 0};

/* [oneof((name, name), (name, raw)), ...]: both take an array of 2, so the lookahead reads each
 * element (a deep raw value too) before the decode does. */
typedef struct either {
    uint8_t which;
    named v;
} either;

typedef struct either_list {
    either *items;
    size_t count;
} either_list;

static const rg_rnode either_nodes[] = {
    {.accept = RG_RA_ARR,
     .shape = RG_RS_ARRAY,
     .child = 1,
     .nchildren = 1,
     .elem_size = sizeof(either)},
    {.accept = RG_RA_TUPLE,
     .shape = RG_RS_ONEOF,
     .child = 2,
     .nchildren = 2,
     .offset = offsetof(either, which)},
    {.accept = RG_RA_TUPLE, .shape = RG_RS_TUPLE, .child = 4, .nchildren = 2},
    {.accept = RG_RA_TUPLE, .shape = RG_RS_TUPLE, .child = 6, .nchildren = 2},
    {.accept = RG_RA_STR,
     .shape = RG_RS_SCALAR,
     .store = RG_RT_VIEW,
     .offset = offsetof(either, v.name)},
    {.accept = RG_RA_STR,
     .shape = RG_RS_SCALAR,
     .store = RG_RT_VIEW,
     .offset = offsetof(either, v.raw)},
    {.accept = RG_RA_STR,
     .shape = RG_RS_SCALAR,
     .store = RG_RT_VIEW,
     .offset = offsetof(either, v.name)},
    {.accept = RG_RA_ANY, .shape = RG_RS_ANY, .offset = offsetof(either, v.raw)},
};
static const rg_rtable either_table = {"EITHER", either_nodes, sizeof(either_list), 0};

/* Lists of lists of ... of empty lists: a typed level per level. */
typedef struct rec_list {
    struct rec_list *items;
    size_t count;
} rec_list;

static const rg_rnode rec_nodes[] = {
    {.accept = RG_RA_ARR | RG_RA_INT,
     .shape = RG_RS_ARRAY,
     .child = 0,
     .nchildren = 1,
     .elem_size = sizeof(rec_list)},
};
static const rg_rtable rec_table = {"REC", rec_nodes, sizeof(rec_list), 0};

typedef struct text {
    char *p;
    size_t len, cap;
} text;

static void put(text *t, const char *s) {
    const size_t n = strlen(s);
    if (t->len + n + 1 > t->cap) {
        t->cap = 2 * (t->len + n + 1);
        t->p = realloc(t->p, t->cap);
        assert_non_null(t->p);
    }
    memcpy(t->p + t->len, s, n + 1);
    t->len += n;
}

/* A value d levels deep: arrays, maps and sets with a sibling on most levels, a ',' double
 * inside. */
static const char *const opens[] = {"*2\r\n", "%1\r\n+k\r\n", "~2\r\n:1\r\n"};

static void deep(text *t, size_t d) {
    for (size_t i = 0; i < d; i++) put(t, opens[i % 3]);
    put(t, ",1.5\r\n");
    for (size_t i = d; i-- > 0;) put(t, i % 3 == 0 ? "$1\r\nx\r\n" : "");
}

/* Where level i (0: the outermost) of deep()'s value opens. */
static size_t level_at(size_t i) {
    size_t n = 0;
    for (size_t k = 0; k < i; k++) n += strlen(opens[k % 3]);
    return n;
}

/* Decodes bytes[0..n) with t, whole or presented a byte more at a time (a few bytes more for
 * long replies: a oneof's lookahead reads from its header again on every call), into out. */
static rg_status decode(rg_reply_reader *rr, const rg_rtable *t, const char *bytes, size_t n,
                        bool bytewise, void *out, size_t *consumed) {
    const size_t step = n > 4096 ? 13 : 1;
    rg_reply_set_storage(rr, storage, sizeof storage);
    size_t pos = 0;
    if (!bytewise) {
        const rg_status st = rg_reply_decode(rr, t, bytes, n, &pos, out);
        *consumed = pos;
        return st;
    }
    for (size_t k = 1;; k = k + step < n ? k + step : n) {
        const rg_status st = rg_reply_decode(rr, t, bytes, k, &pos, out);
        if (st != RG_NEED_MORE || k == n) {
            *consumed = pos;
            return st;
        }
    }
}

/* A reply of two (name, deep raw) pairs, counted or streamed. */
static text pairs_reply(size_t d, bool streamed, size_t *raw_at, size_t *raw_len) {
    text t = {0};
    put(&t, streamed ? "*?\r\n" : "*2\r\n");
    for (int k = 0; k < 2; k++) {
        put(&t, "*2\r\n$4\r\nname\r\n");
        raw_at[k] = t.len;
        deep(&t, d);
        raw_len[k] = t.len - raw_at[k];
    }
    if (streamed) put(&t, ".\r\n");
    return t;
}

static void typed_over_deep_raw(void **state) {
    (void)state;
    static const size_t depths[] = {RG_MAX_DEPTH, 41, 1000};
    rg_frame *frames = malloc(2000 * sizeof *frames);
    assert_non_null(frames);
    for (size_t k = 0; k < sizeof depths / sizeof *depths; k++) {
        const size_t d = depths[k];
        for (int streamed = 0; streamed < 2; streamed++) {
            for (int bytewise = 0; bytewise < 2; bytewise++) {
                size_t at[2], len[2], used;
                text t = pairs_reply(d, streamed, at, len);
                /* the list, the pair, then the raw value's d levels */
                const uint32_t need = (uint32_t)d + 2;
                rg_reply_reader rr;
                rg_reply_reader_init(&rr, NULL);
                assert_int_equal(rg_reply_set_stack(&rr, frames, 2000, need), RG_OK);
                named_list out;
                rg_status st = decode(&rr, &named_table, t.p, t.len, bytewise, &out, &used);
                if (st != RG_OK) fail_msg("depth %zu: %s", d, rg_status_name(st));
                assert_int_equal(used, t.len);
                assert_int_equal(out.count, 2);
                for (int e = 0; e < 2; e++) {
                    assert_int_equal(out.items[e].name.len, 4);
                    assert_ptr_equal(out.items[e].raw.ptr, t.p + at[e]);
                    assert_int_equal(out.items[e].raw.len, len[e]);
                }
                /* the same through a oneof, whose lookahead reads the deep values first */
                either_list eo;
                rg_reply_reader_init(&rr, NULL);
                assert_int_equal(rg_reply_set_stack(&rr, frames, 2000, need), RG_OK);
                st = decode(&rr, &either_table, t.p, t.len, bytewise, &eo, &used);
                if (st != RG_OK) fail_msg("oneof, depth %zu: %s", d, rg_status_name(st));
                assert_int_equal(eo.count, 2);
                for (int e = 0; e < 2; e++) {
                    assert_int_equal(eo.items[e].which, 2);
                    assert_ptr_equal(eo.items[e].v.raw.ptr, t.p + at[e]);
                    assert_int_equal(eo.items[e].v.raw.len, len[e]);
                }
                /* one level short: the decoder's error, where the deepest level opens */
                rg_reply_reader_init(&rr, NULL);
                assert_int_equal(rg_reply_set_stack(&rr, frames, 2000, need - 1), RG_OK);
                st = decode(&rr, &named_table, t.p, t.len, bytewise, &out, &used);
                assert_int_equal(st, RG_ERR_DEPTH);
                const rg_error e = rg_reply_error(&rr);
                assert_int_equal(e.status, RG_ERR_DEPTH);
                assert_non_null(e.msg.ptr);
                assert_int_equal(e.offset, at[0] + level_at(d - 1));
                free(t.p);
            }
        }
    }
    free(frames);
}

/* Typed levels past the engine's RG_MAX_DEPTH frames: a clean mismatch (the decoder would read
 * them), and the stream stays in step for the next reply. */
static void typed_levels_past_the_frames(void **state) {
    (void)state;
    rg_frame frames[64];
    for (int bytewise = 0; bytewise < 2; bytewise++) {
        text t = {0};
        for (int i = 0; i < 40; i++) put(&t, "*1\r\n");
        put(&t, "*0\r\n*1\r\n*0\r\n");
        rg_reply_reader rr;
        rg_reply_reader_init(&rr, NULL);
        assert_int_equal(rg_reply_set_stack(&rr, frames, 64, 0), RG_OK);
        rec_list out;
        size_t used;
        rg_status st = decode(&rr, &rec_table, t.p, t.len - 8, bytewise, &out, &used);
        assert_int_equal(st, RG_MISMATCH);
        assert_int_equal(used, t.len - 8);
        const rg_error e = rg_reply_error(&rr);
        if (!strstr(e.msg.ptr, "less deeply nested")) fail_msg("%.*s", (int)e.msg.len, e.msg.ptr);
        size_t pos = used;
        st = rg_reply_decode(&rr, &rec_table, t.p, t.len, &pos, &out);
        assert_int_equal(st, RG_OK);
        assert_int_equal(out.count, 1);
        free(t.p);
    }
}

/* rg_reply_set_stack between replies only; the reader then keeps its frames across rewinds (a
 * reply that needed more storage is decoded again from its start). */
static void set_stack_rules(void **state) {
    (void)state;
    rg_frame frames[40];
    rg_reply_reader rr;
    rg_reply_reader_init(&rr, NULL);
    assert_int_equal(rg_reply_set_stack(&rr, frames, 40, RG_MAX_DEPTH + 41), RG_INVALID);
    assert_int_equal(rg_reply_set_stack(&rr, frames, 40, 0), RG_OK);
    size_t at[2], len[2], pos = 0;
    text t = pairs_reply(60, false, at, len);
    named_list out;
    rg_reply_set_storage(&rr, NULL, 0);
    assert_int_equal(rg_reply_decode(&rr, &named_table, t.p, t.len / 2, &pos, &out), RG_NEED_MORE);
    assert_int_equal(rg_reply_set_stack(&rr, frames, 40, 0), RG_INVALID);
    assert_int_equal(rg_reply_decode(&rr, &named_table, t.p, t.len, &pos, &out), RG_SHORT);
    assert_int_equal(pos, 0);
    rg_reply_set_storage(&rr, storage, sizeof storage);
    assert_int_equal(rg_reply_decode(&rr, &named_table, t.p, t.len, &pos, &out), RG_OK);
    assert_int_equal(out.items[1].raw.len, len[1]);
    free(t.p);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(typed_over_deep_raw),
        cmocka_unit_test(typed_levels_past_the_frames),
        cmocka_unit_test(set_stack_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
