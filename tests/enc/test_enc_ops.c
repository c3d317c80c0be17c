/* The op table interpreter (runtime/rg_ops.c) on a hand-written table: what the generated specs
 * reach only in part. A command with a list of blocks (each with its own list, checked for
 * {NULL, n > 0}), an enum, a oneof and a count, encoded byte for byte as rg_argv_encode encodes
 * its words; and every refusal, also inside the nested loop, writes nothing. */
#include "rg_enc.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
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

/* PAINT over a pipe on a guarded buffer; returns the size, which must equal the words'. */
static void encodes(const paint_opts *opts, size_t argc, const rg_view *words) {
    char want[CAP], buf[CAP];
    const size_t n = rg_argv_encode(want, CAP, argc, words);
    assert_true(n > 0);
    memset(buf, GUARD, CAP);
    rg_pipe p;
    rg_pipe_init(&p, buf, CAP);
    const paint_req req = {RG_LIT("k")};
    assert_int_equal(rg_ops_pipe_write(&p, paint_table, &req, opts), n);
    assert_memory_equal(buf, want, n);
    assert_int_equal((unsigned char)buf[n], GUARD);
    /* Too small: the size, nothing written. */
    char small[CAP];
    memset(small, GUARD, CAP);
    rg_pipe_init(&p, small, n - 1);
    assert_int_equal(rg_ops_pipe_write(&p, paint_table, &req, opts), n);
    for (size_t i = 0; i < CAP; i++) assert_int_equal((unsigned char)small[i], GUARD);
}

static void refused(const paint_opts *opts) {
    char buf[CAP];
    memset(buf, GUARD, CAP);
    rg_pipe p;
    rg_pipe_init(&p, buf, CAP);
    const paint_req req = {RG_LIT("k")};
    assert_int_equal(rg_ops_pipe_write(&p, paint_table, &req, opts), 0);
    for (size_t i = 0; i < CAP; i++) assert_int_equal((unsigned char)buf[i], GUARD);
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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(encodes_every_op),
        cmocka_unit_test(refuses_inside_nested_loops),
        cmocka_unit_test(refuses_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
