/* Generated encoders refuse bad input (specs/example.lua, tests/gen/specs/keyspecs.lua): a view
 * {NULL, n > 0} wherever it sits (a parameter, an option, an element of a list, a member of a
 * block or a oneof alternative) and a NaN double make C_size, C_encode, C_try_encode, C_append,
 * C_iov_count, C_scratch_size and C_encode_iov return 0 and write nothing; so does a list
 * {NULL, n > 0}. The same calls with the view {NULL, 0} (an empty argument, or an absent option)
 * and with +-inf encode. The generic rg_argv_* encoders are tested in test_enc_argv.c. */
#include "example.h"
#include "keyspecs.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <string.h>

enum { GUARD = 0x5a, CAP = 4096, IOV_CAP = 64 };

typedef struct out {
    char buf[CAP];
    char scratch[CAP];
    rg_iov iov[IOV_CAP];
} out;

static void guard(out *o) {
    memset(o, GUARD, sizeof *o);
}

static bool untouched(const out *o) {
    const unsigned char *p = (const unsigned char *)o;
    for (size_t i = 0; i < sizeof *o; i++) {
        if (p[i] != GUARD) return false;
    }
    return true;
}

/* The iovec functions, which only --iov generates. Without it (RG_TEST_TABLES: the same specs
 * generated without --iov), the general path of a command with a fixed-shape path is an op table
 * that rg_ops_pipe_write interprets (emit_table.lua): the same refusals are checked on that form.
 */
#ifdef RG_TEST_TABLES
#define IOV_REFUSED(fn, ...) (void)0
#define IOV_ENCODES(fn, ...) (void)0
#else
#define IOV_REFUSED(fn, ...)                                                               \
    do {                                                                                   \
        assert_int_equal(fn##_iov_count(__VA_ARGS__), 0);                                  \
        assert_int_equal(fn##_scratch_size(__VA_ARGS__), 0);                               \
        assert_int_equal(fn##_encode_iov(o.iov, IOV_CAP, o.scratch, CAP, __VA_ARGS__), 0); \
    } while (0)
#define IOV_ENCODES(fn, ...) \
    assert_true(fn##_encode_iov(o.iov, IOV_CAP, o.scratch, CAP, __VA_ARGS__) > 0)
#endif

/* Every public function of command fn refuses the arguments and writes nothing; a pipeline over
 * o.buf gets no request. */
#define REFUSED(fn, ...)                                               \
    do {                                                               \
        out o;                                                         \
        guard(&o);                                                     \
        rg_pipe p;                                                     \
        rg_pipe_init(&p, o.buf, CAP);                                  \
        assert_int_equal(fn##_size(__VA_ARGS__), 0);                   \
        assert_int_equal(fn##_encode(o.buf, CAP, __VA_ARGS__), 0);     \
        assert_int_equal(fn##_try_encode(o.buf, CAP, __VA_ARGS__), 0); \
        assert_int_equal(fn##_append(&p, __VA_ARGS__), 0);             \
        assert_int_equal(p.len + p.count, 0);                          \
        IOV_REFUSED(fn, __VA_ARGS__);                                  \
        assert_true(untouched(&o));                                    \
    } while (0)

/* Command fn encodes the arguments as the literal want, with size and encode agreeing. */
#define ENCODES(want, fn, ...)                                      \
    do {                                                            \
        out o;                                                      \
        guard(&o);                                                  \
        const size_t n_ = sizeof(want) - 1;                         \
        assert_int_equal(fn##_size(__VA_ARGS__), n_);               \
        assert_int_equal(fn##_encode(o.buf, CAP, __VA_ARGS__), n_); \
        assert_memory_equal(o.buf, want, n_);                       \
        IOV_ENCODES(fn, __VA_ARGS__);                               \
    } while (0)

static const rg_view NULL3 = {NULL, 3};
static const rg_view NONE = {NULL, 0};

static void null_view_parameter(void **state) {
    (void)state;
    REFUSED(example_get, NULL3);
    REFUSED(example_get, ((rg_view){NULL, 1}));
    REFUSED(example_get, ((rg_view){NULL, SIZE_MAX}));
    /* Without options (the fixed-words path) and with them. */
    REFUSED(example_set, RG_LIT("k"), NULL3, NULL);
    const example_set_opts nx = {.condition = EXAMPLE_SET_CONDITION_NX};
    REFUSED(example_set, NULL3, RG_LIT("v"), &nx);
    /* Long enough to be referenced by an iovec entry instead of copied. */
    REFUSED(example_set, RG_LIT("k"), ((rg_view){NULL, 2 * RG_IOV_COPY_MIN}), &nx);
    ENCODES("*2\r\n$3\r\nGET\r\n$0\r\n\r\n", example_get, NONE);
    ENCODES("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n", example_set, RG_LIT("k"), NONE, NULL);
}

static void null_view_in_lists(void **state) {
    (void)state;
    const rg_view keys[] = {RG_LIT("a"), NULL3, RG_LIT("c")};
    REFUSED(example_del, keys, 3);
    ENCODES("*3\r\n$3\r\nDEL\r\n$1\r\na\r\n$0\r\n\r\n", example_del,
            ((const rg_view[]){RG_LIT("a"), NONE}), 2);
    const example_hset_data pairs[] = {{RG_LIT("f"), RG_LIT("v")}, {RG_LIT("g"), NULL3}};
    REFUSED(example_hset, RG_LIT("h"), pairs, 2);
    const example_mset_data kv[] = {{NULL3, RG_LIT("1")}};
    REFUSED(example_mset, kv, 1);
    const keyspecs_eval_opts eval = {.key = keys, .key_count = 3};
    REFUSED(keyspecs_eval, RG_LIT("return 1"), &eval);
}

static void null_view_in_options(void **state) {
    (void)state;
    const example_ping_opts bad = {.message = NULL3};
    REFUSED(example_ping, &bad);
    const example_ping_opts absent = {.message = NONE};
    ENCODES("*1\r\n$4\r\nPING\r\n", example_ping, &absent);
    const example_ping_opts empty = {.message = RG_LIT("")};
    ENCODES("*2\r\n$4\r\nPING\r\n$0\r\n\r\n", example_ping, &empty);
    const example_sort_opts by = {.by_pattern = NULL3};
    REFUSED(example_sort, RG_LIT("k"), &by);
    const example_sort_opts store = {.destination = NULL3};
    REFUSED(example_sort, RG_LIT("k"), &store);
    const rg_view patterns[] = {NULL3};
    const example_sort_opts get = {.get_pattern = patterns, .get_pattern_count = 1};
    REFUSED(example_sort, RG_LIT("k"), &get);
}

static void null_view_in_oneof(void **state) {
    (void)state;
    const example_client_kill_filter old = {.kind = EXAMPLE_CLIENT_KILL_FILTER_OLD_FORMAT,
                                            .old_format = NULL3};
    REFUSED(example_client_kill, old);
    const example_client_kill_new_format user = {.kind = EXAMPLE_CLIENT_KILL_NEW_FORMAT_USERNAME,
                                                 .username = NULL3};
    const example_client_kill_filter filter = {
        .kind = EXAMPLE_CLIENT_KILL_FILTER_NEW_FORMAT, .new_format = &user, .new_format_count = 1};
    REFUSED(example_client_kill, filter);
    const example_geosearch_from member = {.kind = EXAMPLE_GEOSEARCH_FROM_MEMBER, .member = NULL3};
    const example_geosearch_by circle = {
        .kind = EXAMPLE_GEOSEARCH_BY_CIRCLE,
        .circle = {.radius = 1, .unit = EXAMPLE_GEOSEARCH_CIRCLE_UNIT_M}};
    REFUSED(example_geosearch, RG_LIT("g"), member, circle, NULL);
}

/* A list {NULL, n > 0} is the same mistake one level up: refused before an element is read. */
static void null_list(void **state) {
    (void)state;
    REFUSED(example_del, NULL, 2);
    REFUSED(example_mset, NULL, 1);
    REFUSED(example_hset, RG_LIT("h"), NULL, 3);
    const example_sort_opts get = {.get_pattern = NULL, .get_pattern_count = 2};
    REFUSED(example_sort, RG_LIT("k"), &get);
    const example_client_kill_filter filter = {
        .kind = EXAMPLE_CLIENT_KILL_FILTER_NEW_FORMAT, .new_format = NULL, .new_format_count = 4};
    REFUSED(example_client_kill, filter);
    const keyspecs_eval_opts eval = {.key = NULL, .key_count = 2};
    REFUSED(keyspecs_eval, RG_LIT("return 1"), &eval);
    const int64_t *none = NULL;
    const keyspecs_zunionstore_opts weights = {.weight = none, .weight_count = 1};
    REFUSED(keyspecs_zunionstore, RG_LIT("d"), (const rg_view[]){RG_LIT("a")}, 1, &weights);
    /* {NULL, 0} is an empty list: absent where optional, refused where required. */
    const example_sort_opts empty = {.get_pattern = NULL, .get_pattern_count = 0};
    ENCODES("*2\r\n$4\r\nSORT\r\n$1\r\nk\r\n", example_sort, RG_LIT("k"), &empty);
    REFUSED(example_del, NULL, 0);
}

static void nan_refused(void **state) {
    (void)state;
    REFUSED(example_zrangebyscore, RG_LIT("z"), NAN, 1, NULL);
    REFUSED(example_zrangebyscore, RG_LIT("z"), 1, -NAN, NULL);
    const example_zrangebyscore_opts ws = {.withscores = true};
    REFUSED(example_zrangebyscore, RG_LIT("z"), NAN, NAN, &ws);
    const example_zadd_data scores[] = {{1.5, RG_LIT("a")}, {NAN, RG_LIT("b")}};
    REFUSED(example_zadd, RG_LIT("z"), scores, 2, NULL);
    const example_geosearch_from lonlat = {.kind = EXAMPLE_GEOSEARCH_FROM_FROMLONLAT,
                                           .fromlonlat = {.longitude = 1, .latitude = NAN}};
    const example_geosearch_by circle = {
        .kind = EXAMPLE_GEOSEARCH_BY_CIRCLE,
        .circle = {.radius = 1, .unit = EXAMPLE_GEOSEARCH_CIRCLE_UNIT_M}};
    REFUSED(example_geosearch, RG_LIT("g"), lonlat, circle, NULL);
    const example_geosearch_from here = {.kind = EXAMPLE_GEOSEARCH_FROM_FROMLONLAT,
                                         .fromlonlat = {.longitude = 1, .latitude = 2}};
    const example_geosearch_by box = {
        .kind = EXAMPLE_GEOSEARCH_BY_BOX,
        .box = {.width = NAN, .height = 1, .unit = EXAMPLE_GEOSEARCH_BOX_UNIT_KM}};
    REFUSED(example_geosearch, RG_LIT("g"), here, box, NULL);
}

/* Redis takes "inf" and "-inf" as doubles (ZRANGEBYSCORE z -inf +inf is the usual whole range). */
static void infinities_encode(void **state) {
    (void)state;
    ENCODES("*4\r\n$13\r\nZRANGEBYSCORE\r\n$1\r\nz\r\n$4\r\n-inf\r\n$3\r\ninf\r\n",
            example_zrangebyscore, RG_LIT("z"), -INFINITY, INFINITY, NULL);
    const example_zadd_data scores[] = {{INFINITY, RG_LIT("a")}};
    ENCODES("*4\r\n$4\r\nZADD\r\n$1\r\nz\r\n$3\r\ninf\r\n$1\r\na\r\n", example_zadd, RG_LIT("z"),
            scores, 1, NULL);
}

/* The fixed-shape path (SET without options) sums the sizes of views of at most RG_FIX_VIEW_MAX
 * bytes without a wrap check; a longer view takes the general path, which measures it exactly
 * or refuses a sum that would wrap. Sizes only: no byte is read. */
static void long_views(void **state) {
    (void)state;
    static const char byte = 'x';
    const rg_view at = {&byte, RG_FIX_VIEW_MAX}, past = {&byte, RG_FIX_VIEW_MAX + 1};
    const rg_view half = {&byte, SIZE_MAX / 2};
    const size_t head = sizeof "*3\r\n$3\r\nSET\r\n" - 1;
    assert_int_equal(example_set_size(at, at, NULL), head + 2 * rg_bulk_size(RG_FIX_VIEW_MAX));
    assert_int_equal(example_set_size(past, RG_LIT("v"), NULL),
                     head + rg_bulk_size(RG_FIX_VIEW_MAX + 1) + rg_bulk_size(1));
    assert_int_equal(example_set_size(half, RG_LIT("v"), NULL),
                     head + rg_bulk_size(SIZE_MAX / 2) + rg_bulk_size(1));
    /* Too long for any buffer: nothing written, the size returned. */
    char buf[16] = {0};
    assert_int_equal(example_set_encode(buf, sizeof buf, past, past, NULL), 0);
    assert_int_equal(example_set_try_encode(buf, sizeof buf, at, at, NULL),
                     head + 2 * rg_bulk_size(RG_FIX_VIEW_MAX));
    /* Two such halves add up past SIZE_MAX: refused on either path. */
    REFUSED(example_set, half, half, NULL);
    const example_set_opts nx = {.condition = EXAMPLE_SET_CONDITION_NX};
    REFUSED(example_set, half, half, &nx);
    REFUSED(example_set, half, ((rg_view){&byte, SIZE_MAX - 30}), NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(null_view_parameter),
        cmocka_unit_test(null_view_in_lists),
        cmocka_unit_test(null_view_in_options),
        cmocka_unit_test(null_view_in_oneof),
        cmocka_unit_test(null_list),
        cmocka_unit_test(nan_refused),
        cmocka_unit_test(infinities_encode),
        cmocka_unit_test(long_views),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
