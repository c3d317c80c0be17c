/* The op table interpreter (runtime/rg_ops.c) on hand-written tables: what the generated specs
 * reach only in part. PAINT: a list of blocks (each with its own list, checked for {NULL, n > 0}),
 * an enum, a oneof and a count; MIX: lists of every element type, a required list. Each encoded
 * byte for byte as rg_argv_encode encodes its words; every refusal, also inside the nested loop,
 * writes nothing. */
#include "rg_enc.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

typedef enum color { COLOR_NONE, COLOR_RED, COLOR_BLUE } color;
static const rg_view color_bulks[] = {{NULL, 0}, {"$3\r\nRED\r\n", 9}, {"$4\r\nBLUE\r\n", 10}};

/* A block: <name> [TAGS tag...], name at most 8 bytes. */
typedef struct item {
    rg_view name;
    const rg_view *tags;
    size_t tags_count;
} item;

static const rg_op item_table[] = {
    RG_OP_TYPE(6),
    RG_OP_CHECK_NULL_LIST(RG_OP_VALUE, item, tags, tags_count, RG_OP_STOP),
    RG_OP_VIEW(RG_OP_VALUE, item, name, 8),
    RG_OP_IF(RG_TEST_NONEMPTY, RG_OP_VALUE, item, tags_count, 3),
    RG_OP_LIT("$4\r\nTAGS\r\n", 10, 1),
    RG_OP_EACH(RG_OP_VALUE, item, tags_count, 1),
    RG_OP_VIEW_EL(RG_OP_VALUE, item, tags, SIZE_MAX),
};

/* A oneof: CIRCLE <radius> | BOX <w> <h>. */
typedef enum shape_kind { SHAPE_NONE, SHAPE_CIRCLE, SHAPE_BOX } shape_kind;
typedef struct shape {
    shape_kind kind;
    union {
        double radius;
        struct {
            int64_t w;
            int64_t h;
        };
    };
} shape;

static const rg_op shape_table[] = {
    RG_OP_TYPE(8),
    RG_OP_SWITCH(shape, 7),
    RG_OP_CASE(SHAPE_CIRCLE, 2, 7),
    RG_OP_LIT("$6\r\nCIRCLE\r\n", 12, 1),
    RG_OP_DBL(RG_OP_VALUE, shape, radius),
    RG_OP_CASE(SHAPE_BOX, 3, 4),
    RG_OP_LIT("$3\r\nBOX\r\n", 9, 1),
    RG_OP_I64(RG_OP_VALUE, shape, w),
    RG_OP_I64(RG_OP_VALUE, shape, h),
};

/* PAINT key <count of items> [color] [item...] [shape] */
typedef struct paint_req {
    rg_view key;
} paint_req;

typedef struct paint_opts {
    color color;
    const item *items;
    size_t items_count;
    shape shape;
} paint_opts;

static const rg_op paint_table[] = {
    RG_OP_COMMAND(11, RG_OP_ARRAY),
    RG_OP_LIT("$5\r\nPAINT\r\n", 11, 1),
    RG_OP_VIEW(RG_OP_REQ, paint_req, key, SIZE_MAX),
    RG_OP_COUNT(RG_OP_OPTS, paint_opts, items_count),
    RG_OP_IF_OPTS(7),
    RG_OP_CHECK_NULL_LIST(RG_OP_OPTS, paint_opts, items, items_count, RG_OP_STOP),
    RG_OP_IF(RG_TEST_NONZERO, RG_OP_OPTS, paint_opts, color, 1),
    RG_OP_ENUM(RG_OP_OPTS, paint_opts, color, color_bulks),
    RG_OP_EACH(RG_OP_OPTS, paint_opts, items_count, 1),
    RG_OP_CALL_EL(RG_OP_OPTS, paint_opts, items, item_table),
    RG_OP_IF(RG_TEST_NONZERO, RG_OP_OPTS, paint_opts, shape.kind, 1),
    RG_OP_CALL(RG_OP_OPTS, paint_opts, shape, shape_table),
};

enum { CAP = 512, GUARD = 0x5a };

/* The table's request over a pipe on a guarded buffer: the words' bytes, and on a buffer one byte
 * short the size with nothing written. */
static void encodes_as(const rg_op *table, const void *req, const void *opts, size_t argc,
                       const rg_view *words) {
    char want[CAP], buf[CAP];
    const size_t n = rg_argv_encode(want, CAP, argc, words);
    assert_true(n > 0);
    memset(buf, GUARD, CAP);
    rg_pipe p;
    rg_pipe_init(&p, buf, CAP);
    assert_int_equal(rg_ops_pipe_write(&p, table, req, opts), n);
    assert_memory_equal(buf, want, n);
    assert_int_equal((unsigned char)buf[n], GUARD);
    memset(buf, GUARD, CAP);
    rg_pipe_init(&p, buf, n - 1);
    assert_int_equal(rg_ops_pipe_write(&p, table, req, opts), n);
    for (size_t i = 0; i < CAP; i++) assert_int_equal((unsigned char)buf[i], GUARD);
}

static void refused_as(const rg_op *table, const void *req, const void *opts) {
    char buf[CAP];
    memset(buf, GUARD, CAP);
    rg_pipe p;
    rg_pipe_init(&p, buf, CAP);
    assert_int_equal(rg_ops_pipe_write(&p, table, req, opts), 0);
    for (size_t i = 0; i < CAP; i++) assert_int_equal((unsigned char)buf[i], GUARD);
}

static const paint_req paint_k = {{"k", 1}};

static void encodes(const paint_opts *opts, size_t argc, const rg_view *words) {
    encodes_as(paint_table, &paint_k, opts, argc, words);
}

static void refused(const paint_opts *opts) {
    refused_as(paint_table, &paint_k, opts);
}

static const rg_view xy[] = {{"x", 1}, {"y", 1}};

static void encodes_every_op(void **state) {
    (void)state;
    const rg_view bare[] = {RG_LIT("PAINT"), RG_LIT("k"), RG_LIT("0")};
    encodes(NULL, 3, bare);
    const paint_opts none = {0};
    encodes(&none, 3, bare);
    const item items[] = {{RG_LIT("a"), xy, 2}, {RG_LIT("b"), NULL, 0}};
    paint_opts all = {.color = COLOR_BLUE, .items = items, .items_count = 2};
    all.shape.kind = SHAPE_BOX;
    all.shape.w = 2;
    all.shape.h = -3;
    const rg_view words[] = {RG_LIT("PAINT"), RG_LIT("k"),    RG_LIT("2"), RG_LIT("BLUE"),
                             RG_LIT("a"),     RG_LIT("TAGS"), RG_LIT("x"), RG_LIT("y"),
                             RG_LIT("b"),     RG_LIT("BOX"),  RG_LIT("2"), RG_LIT("-3")};
    encodes(&all, 12, words);
    paint_opts circle = {.color = COLOR_RED};
    circle.shape.kind = SHAPE_CIRCLE;
    circle.shape.radius = 1.5;
    const rg_view round[] = {RG_LIT("PAINT"), RG_LIT("k"),      RG_LIT("0"),
                             RG_LIT("RED"),   RG_LIT("CIRCLE"), RG_LIT("1.5")};
    encodes(&circle, 6, round);
}

static void refuses_inside_nested_loops(void **state) {
    (void)state;
    /* The second item's list has no elements to read: the check in the item's table. */
    const item null_tags[] = {{RG_LIT("a"), xy, 2}, {RG_LIT("b"), NULL, 2}};
    refused(&(paint_opts){.items = null_tags, .items_count = 2});
    /* A view {NULL, n > 0} in the inner loop. */
    const rg_view bad_tag[] = {RG_LIT("x"), {NULL, 1}};
    const item bad[] = {{RG_LIT("a"), xy, 2}, {RG_LIT("b"), bad_tag, 2}};
    refused(&(paint_opts){.items = bad, .items_count = 2});
    /* A name past its max_len, in the loop. */
    const item long_name[] = {{RG_LIT("123456789"), NULL, 0}};
    refused(&(paint_opts){.items = long_name, .items_count = 1});
    /* The outer list itself {NULL, n > 0}: the stop keeps the loop from reading it. */
    refused(&(paint_opts){.items = NULL, .items_count = 3});
}

static void refuses_values(void **state) {
    (void)state;
    refused(&(paint_opts){.color = (color)3});
    refused(&(paint_opts){.color = (color)-1});
    paint_opts kind = {0};
    kind.shape.kind = (shape_kind)9;
    refused(&kind);
    paint_opts nan = {0};
    nan.shape.kind = SHAPE_CIRCLE;
    nan.shape.radius = NAN;
    refused(&nan);
    char buf[CAP];
    rg_pipe p;
    rg_pipe_init(&p, buf, CAP);
    const paint_req null_key = {{NULL, 1}};
    assert_int_equal(rg_ops_pipe_write(&p, paint_table, &null_key, NULL), 0);
}

/* rg_ops_words: the options' words of paint_table (its RG_OP_IF_OPTS is entry 4) as RESP, and
 * false for everything measuring refuses and for words past RG_WORDS_MAX bytes. */
static void words_are(const paint_opts *opts, size_t argc, const rg_view *words) {
    char want[CAP];
    const size_t n = rg_argv_encode(want, CAP, argc, words);
    const size_t header = argc < 10 ? 4 : 5; /* "*<argc>\r\n" */
    rg_words w;
    assert_true(rg_ops_words(&w, &paint_table[4], opts));
    assert_int_equal(w.argc, argc);
    assert_int_equal(w.len, n - header);
    assert_memory_equal(w.bytes, want + header, w.len);
}

static void words_of_options(void **state) {
    (void)state;
    const paint_opts none = {0};
    words_are(&none, 0, NULL);
    const item items[] = {{RG_LIT("a"), xy, 2}, {RG_LIT("b"), NULL, 0}};
    paint_opts all = {.color = COLOR_BLUE, .items = items, .items_count = 2};
    all.shape.kind = SHAPE_BOX;
    all.shape.w = 2;
    all.shape.h = -3;
    const rg_view words[] = {RG_LIT("BLUE"), RG_LIT("a"), RG_LIT("TAGS"),
                             RG_LIT("x"),    RG_LIT("y"), RG_LIT("b"),
                             RG_LIT("BOX"),  RG_LIT("2"), RG_LIT("-3")};
    words_are(&all, 9, words);
    paint_opts circle = {.color = COLOR_RED};
    circle.shape.kind = SHAPE_CIRCLE;
    circle.shape.radius = 1.5;
    const rg_view round[] = {RG_LIT("RED"), RG_LIT("CIRCLE"), RG_LIT("1.5")};
    words_are(&circle, 3, round);
    /* Integers of every digit count, and past the small-number path. */
    const int64_t sides[] = {0, 7, 42, 999, 1000, -1, INT64_MAX, INT64_MIN};
    const char *const text[] = {
        "0", "7", "42", "999", "1000", "-1", "9223372036854775807", "-9223372036854775808"};
    for (size_t i = 0; i < sizeof sides / sizeof sides[0]; i++) {
        paint_opts box = {0};
        box.shape.kind = SHAPE_BOX;
        box.shape.w = sides[i];
        box.shape.h = 1;
        const rg_view three[] = {RG_LIT("BOX"), {text[i], strlen(text[i])}, RG_LIT("1")};
        words_are(&box, 3, three);
    }
    rg_words w;
    assert_false(rg_ops_words(&w, &paint_table[4], &(paint_opts){.color = (color)3}));
    paint_opts nan = {0};
    nan.shape.kind = SHAPE_CIRCLE;
    nan.shape.radius = NAN;
    assert_false(rg_ops_words(&w, &paint_table[4], &nan));
    paint_opts kind = {0};
    kind.shape.kind = (shape_kind)9;
    assert_false(rg_ops_words(&w, &paint_table[4], &kind));
    assert_false(rg_ops_words(&w, &paint_table[4], &(paint_opts){.items = NULL, .items_count = 3}));
    const item long_name[] = {{RG_LIT("123456789"), NULL, 0}};
    assert_false(
        rg_ops_words(&w, &paint_table[4], &(paint_opts){.items = long_name, .items_count = 1}));
    const rg_view bad_tag[] = {{NULL, 1}};
    const item bad[] = {{RG_LIT("a"), bad_tag, 1}};
    assert_false(rg_ops_words(&w, &paint_table[4], &(paint_opts){.items = bad, .items_count = 1}));
    /* 20 items of 7 bytes each: 140 bytes, past RG_WORDS_MAX; the table path still encodes it. */
    item many[20];
    for (size_t i = 0; i < 20; i++) many[i] = (item){RG_LIT("a"), NULL, 0};
    assert_false(
        rg_ops_words(&w, &paint_table[4], &(paint_opts){.items = many, .items_count = 20}));
    /* 18 of them, 126 bytes, fit. */
    assert_true(rg_ops_words(&w, &paint_table[4], &(paint_opts){.items = many, .items_count = 18}));
    assert_int_equal(w.len, 18 * 7);
}

/* MIX <count of ids> id... [WEIGHTS w...] [color...]: lists of every element type, a required list
 * (refused empty), checks of NULL lists with and without a count. */
typedef struct mix_req {
    const int64_t *ids;
    size_t ids_count;
} mix_req;

typedef struct mix_opts {
    const double *ws;
    size_t ws_count;
    const color *cs;
    size_t cs_count;
} mix_opts;

static const rg_op mix_table[] = {
    RG_OP_COMMAND(15, RG_OP_ARRAY),
    RG_OP_LIT("$3\r\nMIX\r\n", 9, 1),
    RG_OP_CHECK(RG_TEST_EMPTY, RG_OP_REQ, mix_req, ids_count, 0),
    RG_OP_CHECK_NULL_LIST(RG_OP_REQ, mix_req, ids, ids_count, RG_OP_STOP),
    RG_OP_COUNT(RG_OP_REQ, mix_req, ids_count),
    RG_OP_EACH(RG_OP_REQ, mix_req, ids_count, 1),
    RG_OP_I64_EL(RG_OP_REQ, mix_req, ids),
    RG_OP_IF_OPTS(8),
    RG_OP_IF(RG_TEST_NONEMPTY, RG_OP_OPTS, mix_opts, ws_count, 4),
    RG_OP_CHECK(RG_TEST_NULL, RG_OP_OPTS, mix_opts, ws, RG_OP_STOP),
    RG_OP_LIT("$7\r\nWEIGHTS\r\n", 13, 1),
    RG_OP_EACH(RG_OP_OPTS, mix_opts, ws_count, 1),
    RG_OP_DBL_EL(RG_OP_OPTS, mix_opts, ws),
    RG_OP_CHECK_NULL_LIST(RG_OP_OPTS, mix_opts, cs, cs_count, RG_OP_STOP),
    RG_OP_EACH(RG_OP_OPTS, mix_opts, cs_count, 1),
    RG_OP_ENUM_EL(RG_OP_OPTS, mix_opts, cs, color_bulks),
};

static void lists_of_every_type(void **state) {
    (void)state;
    const int64_t ids[] = {1, -2};
    const mix_req two = {ids, 2};
    const rg_view bare[] = {RG_LIT("MIX"), RG_LIT("2"), RG_LIT("1"), RG_LIT("-2")};
    encodes_as(mix_table, &two, NULL, 4, bare);
    const double ws[] = {0.5, 2};
    const color cs[] = {COLOR_RED, COLOR_BLUE};
    const mix_opts all = {ws, 2, cs, 2};
    const rg_view words[] = {RG_LIT("MIX"), RG_LIT("2"),       RG_LIT("1"),
                             RG_LIT("-2"),  RG_LIT("WEIGHTS"), RG_LIT("0.5"),
                             RG_LIT("2"),   RG_LIT("RED"),     RG_LIT("BLUE")};
    encodes_as(mix_table, &two, &all, 9, words);
    /* {NULL, 0}: an absent optional list, an empty required one (refused). */
    const mix_opts empty = {NULL, 0, NULL, 0};
    encodes_as(mix_table, &two, &empty, 4, bare);
    refused_as(mix_table, &(mix_req){NULL, 0}, NULL);
    refused_as(mix_table, &(mix_req){ids, 0}, &all);
    refused_as(mix_table, &(mix_req){NULL, 2}, NULL);
    refused_as(mix_table, &two, &(mix_opts){NULL, 1, cs, 2});
    refused_as(mix_table, &two, &(mix_opts){ws, 2, NULL, 1});
    const double nan_w[] = {1, NAN};
    refused_as(mix_table, &two, &(mix_opts){nan_w, 2, NULL, 0});
    const color bad_c[] = {COLOR_RED, (color)3};
    refused_as(mix_table, &two, &(mix_opts){NULL, 0, bad_c, 2});
}

/* Requests of 3 to 42 pieces: the interpreter writes what measuring recorded up to its tape's
 * size (24 pieces) and walks the table again beyond; both ways the bytes are the words'. */
static void short_and_long_requests(void **state) {
    (void)state;
    enum { MAX_IDS = 40 };
    int64_t ids[MAX_IDS];
    char text[MAX_IDS + 1][24];
    rg_view words[MAX_IDS + 2];
    for (size_t n = 1; n <= MAX_IDS; n++) {
        words[0] = RG_LIT("MIX");
        snprintf(text[0], sizeof text[0], "%zu", n);
        words[1] = rg_cstr(text[0]);
        for (size_t i = 0; i < n; i++) {
            ids[i] = (int64_t)(i * i) - 7;
            snprintf(text[i + 1], sizeof text[i + 1], "%lld", (long long)ids[i]);
            words[i + 2] = rg_cstr(text[i + 1]);
        }
        encodes_as(mix_table, &(mix_req){ids, n}, NULL, n + 2, words);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(encodes_every_op),        cmocka_unit_test(refuses_inside_nested_loops),
        cmocka_unit_test(refuses_values),          cmocka_unit_test(lists_of_every_type),
        cmocka_unit_test(short_and_long_requests), cmocka_unit_test(words_of_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
