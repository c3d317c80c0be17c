/* Generated encoders against hand-written RESP: every argument kind and combinator of
 * specs/example.lua and tests/gen/specs/{kinds,combinators}.lua, the invalid inputs that must be
 * rejected, the compile-time size macros, the iovec variant and the command list. */
#include "combinators.h"
#include "example.h"
#include "kinds.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define BUF_SIZE 4096
#define CANARY   0x5a

/* The result of one encode call, and the buffer around it. */
typedef struct out {
    char buf[BUF_SIZE];
    size_t n;
} out;

static void start(out *o) {
    memset(o->buf, CANARY, sizeof o->buf);
}

/* Checks the encoded bytes, that the size function agreed, and that nothing past them changed. */
static void expect(const out *o, size_t size, const char *want, size_t want_len) {
    assert_int_equal(o->n, want_len);
    assert_int_equal(size, want_len);
    assert_memory_equal(o->buf, want, want_len);
    for (size_t i = want_len; i < sizeof o->buf; i++) assert_int_equal(o->buf[i], CANARY);
}

#define EXPECT(o, size, lit) expect((o), (size), (lit), sizeof(lit) - 1)

static void expect_rejected(const out *o, size_t size) {
    assert_int_equal(o->n, 0);
    assert_int_equal(size, 0);
    for (size_t i = 0; i < sizeof o->buf; i++) assert_int_equal(o->buf[i], CANARY);
}

/* ---- specs/example.lua ---- */

static void test_get(void **state) {
    (void)state;
    out o;
    start(&o);
    o.n = example_get_encode(o.buf, sizeof o.buf, RG_LIT("k"));
    EXPECT(&o, example_get_size(RG_LIT("k")), "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n");
    /* Header and name are one constant. */
    assert_int_equal(EXAMPLE_GET_FIXED_SIZE, sizeof("*2\r\n$3\r\nGET\r\n") - 1);
}

static void test_set_plain(void **state) {
    (void)state;
    out o;
    start(&o);
    o.n = example_set_encode(o.buf, sizeof o.buf, RG_LIT("key"), RG_LIT("value"), NULL);
    EXPECT(&o, example_set_size(RG_LIT("key"), RG_LIT("value"), NULL),
           "*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n");
    const example_set_opts zero = {0};
    assert_int_equal(example_set_size(RG_LIT("key"), RG_LIT("value"), &zero), o.n);
}

static void test_set_all_options(void **state) {
    (void)state;
    const example_set_opts opts = {
        .condition = EXAMPLE_SET_CONDITION_NX,
        .get = true,
        .expiration = {.kind = EXAMPLE_SET_EXPIRATION_SECONDS, .seconds = 10},
    };
    out o;
    start(&o);
    o.n = example_set_encode(o.buf, sizeof o.buf, RG_LIT("k"), RG_LIT("v"), &opts);
    EXPECT(&o, example_set_size(RG_LIT("k"), RG_LIT("v"), &opts),
           "*7\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n$2\r\nNX\r\n$3\r\nGET\r\n"
           "$2\r\nEX\r\n$2\r\n10\r\n");
}

static void test_set_expirations(void **state) {
    (void)state;
    example_set_opts opts = {.condition = EXAMPLE_SET_CONDITION_XX};
    out o;
    opts.expiration = (example_set_expiration){
        .kind = EXAMPLE_SET_EXPIRATION_UNIX_TIME_MILLISECONDS, .unix_time_milliseconds = INT64_MIN};
    start(&o);
    o.n = example_set_encode(o.buf, sizeof o.buf, RG_LIT("k"), RG_LIT(""), &opts);
    EXPECT(&o, example_set_size(RG_LIT("k"), RG_LIT(""), &opts),
           "*6\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n$2\r\nXX\r\n$4\r\nPXAT\r\n"
           "$20\r\n-9223372036854775808\r\n");
    opts.expiration = (example_set_expiration){.kind = EXAMPLE_SET_EXPIRATION_KEEPTTL};
    start(&o);
    o.n = example_set_encode(o.buf, sizeof o.buf, RG_LIT("k"), RG_LIT("v"), &opts);
    EXPECT(&o, example_set_size(RG_LIT("k"), RG_LIT("v"), &opts),
           "*5\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n$2\r\nXX\r\n$7\r\nKEEPTTL\r\n");
}

static void test_set_rejects_bad_enums(void **state) {
    (void)state;
    out o;
    example_set_opts opts = {.condition = (example_set_condition)99};
    start(&o);
    o.n = example_set_encode(o.buf, sizeof o.buf, RG_LIT("k"), RG_LIT("v"), &opts);
    expect_rejected(&o, example_set_size(RG_LIT("k"), RG_LIT("v"), &opts));
    opts = (example_set_opts){.expiration = {.kind = (example_set_expiration_kind)42}};
    start(&o);
    o.n = example_set_encode(o.buf, sizeof o.buf, RG_LIT("k"), RG_LIT("v"), &opts);
    expect_rejected(&o, example_set_size(RG_LIT("k"), RG_LIT("v"), &opts));
}

static void test_cap_too_small(void **state) {
    (void)state;
    const size_t n = example_set_size(RG_LIT("key"), RG_LIT("value"), NULL);
    out o;
    start(&o);
    o.n = example_set_encode(o.buf, n - 1, RG_LIT("key"), RG_LIT("value"), NULL);
    assert_int_equal(o.n, 0);
    for (size_t i = 0; i < sizeof o.buf; i++) assert_int_equal(o.buf[i], CANARY);
    assert_int_equal(example_set_encode(NULL, 0, RG_LIT("key"), RG_LIT("value"), NULL), 0);
}

static void test_incrby(void **state) {
    (void)state;
    out o;
    start(&o);
    o.n = example_incrby_encode(o.buf, sizeof o.buf, RG_LIT("n"), -42);
    EXPECT(&o, example_incrby_size(RG_LIT("n"), -42),
           "*3\r\n$6\r\nINCRBY\r\n$1\r\nn\r\n$3\r\n-42\r\n");
}

static void test_hset_mset_del(void **state) {
    (void)state;
    out o;
    const example_hset_data fields[] = {{RG_LIT("f1"), RG_LIT("v1")}, {RG_LIT("f2"), RG_LIT("")}};
    start(&o);
    o.n = example_hset_encode(o.buf, sizeof o.buf, RG_LIT("h"), fields, 2);
    EXPECT(&o, example_hset_size(RG_LIT("h"), fields, 2),
           "*6\r\n$4\r\nHSET\r\n$1\r\nh\r\n$2\r\nf1\r\n$2\r\nv1\r\n$2\r\nf2\r\n$0\r\n\r\n");

    const example_mset_data pairs[] = {{RG_LIT("a"), RG_LIT("1")}};
    start(&o);
    o.n = example_mset_encode(o.buf, sizeof o.buf, pairs, 1);
    EXPECT(&o, example_mset_size(pairs, 1), "*3\r\n$4\r\nMSET\r\n$1\r\na\r\n$1\r\n1\r\n");

    const rg_view keys[] = {RG_LIT("a"), RG_LIT("bb"), RG_LIT("ccc")};
    start(&o);
    o.n = example_del_encode(o.buf, sizeof o.buf, keys, 3);
    EXPECT(&o, example_del_size(keys, 3),
           "*4\r\n$3\r\nDEL\r\n$1\r\na\r\n$2\r\nbb\r\n$3\r\nccc\r\n");
}

static void test_required_multiple_needs_one(void **state) {
    (void)state;
    out o;
    start(&o);
    o.n = example_del_encode(o.buf, sizeof o.buf, NULL, 0);
    expect_rejected(&o, example_del_size(NULL, 0));
    start(&o);
    o.n = example_hset_encode(o.buf, sizeof o.buf, RG_LIT("h"), NULL, 0);
    expect_rejected(&o, example_hset_size(RG_LIT("h"), NULL, 0));
}

static void test_zadd(void **state) {
    (void)state;
    const example_zadd_data members[] = {{1.5, RG_LIT("a")}, {-INFINITY, RG_LIT("b")}};
    const example_zadd_opts opts = {
        .condition = EXAMPLE_ZADD_CONDITION_XX,
        .comparison = EXAMPLE_ZADD_COMPARISON_GT,
        .change = true,
    };
    out o;
    start(&o);
    o.n = example_zadd_encode(o.buf, sizeof o.buf, RG_LIT("z"), members, 2, &opts);
    EXPECT(&o, example_zadd_size(RG_LIT("z"), members, 2, &opts),
           "*9\r\n$4\r\nZADD\r\n$1\r\nz\r\n$2\r\nXX\r\n$2\r\nGT\r\n$2\r\nCH\r\n"
           "$3\r\n1.5\r\n$1\r\na\r\n$4\r\n-inf\r\n$1\r\nb\r\n");
}

static void test_expire(void **state) {
    (void)state;
    const example_expire_opts opts = {.condition = EXAMPLE_EXPIRE_CONDITION_LT};
    out o;
    start(&o);
    o.n = example_expire_encode(o.buf, sizeof o.buf, RG_LIT("k"), 0, &opts);
    EXPECT(&o, example_expire_size(RG_LIT("k"), 0, &opts),
           "*4\r\n$6\r\nEXPIRE\r\n$1\r\nk\r\n$1\r\n0\r\n$2\r\nLT\r\n");
}

static void test_client_kill(void **state) {
    (void)state;
    out o;
    example_client_kill_filter old = {.kind = EXAMPLE_CLIENT_KILL_FILTER_OLD_FORMAT,
                                      .old_format = RG_LIT("1.2.3.4:5")};
    start(&o);
    o.n = example_client_kill_encode(o.buf, sizeof o.buf, old);
    EXPECT(&o, example_client_kill_size(old),
           "*3\r\n$6\r\nCLIENT\r\n$4\r\nKILL\r\n$9\r\n1.2.3.4:5\r\n");

    const example_client_kill_new_format filters[] = {
        {.kind = EXAMPLE_CLIENT_KILL_NEW_FORMAT_CLIENT_ID, .client_id = 7},
        {.kind = EXAMPLE_CLIENT_KILL_NEW_FORMAT_CLIENT_TYPE,
         .client_type = EXAMPLE_CLIENT_KILL_CLIENT_TYPE_REPLICA},
        {.kind = EXAMPLE_CLIENT_KILL_NEW_FORMAT_SKIPME, .skipme = EXAMPLE_CLIENT_KILL_SKIPME_NO},
    };
    example_client_kill_filter f = {.kind = EXAMPLE_CLIENT_KILL_FILTER_NEW_FORMAT,
                                    .new_format = filters,
                                    .new_format_count = 3};
    start(&o);
    o.n = example_client_kill_encode(o.buf, sizeof o.buf, f);
    EXPECT(&o, example_client_kill_size(f),
           "*8\r\n$6\r\nCLIENT\r\n$4\r\nKILL\r\n$2\r\nID\r\n$1\r\n7\r\n$4\r\nTYPE\r\n"
           "$7\r\nreplica\r\n$6\r\nSKIPME\r\n$2\r\nNO\r\n");
}

static void test_client_kill_rejects(void **state) {
    (void)state;
    out o;
    /* The required oneof left at NONE. */
    const example_client_kill_filter none = {0};
    start(&o);
    o.n = example_client_kill_encode(o.buf, sizeof o.buf, none);
    expect_rejected(&o, example_client_kill_size(none));
    /* A required multiple with no element. */
    const example_client_kill_filter empty = {.kind = EXAMPLE_CLIENT_KILL_FILTER_NEW_FORMAT};
    start(&o);
    o.n = example_client_kill_encode(o.buf, sizeof o.buf, empty);
    expect_rejected(&o, example_client_kill_size(empty));
    /* An alternative chosen with its enum at NONE. */
    const example_client_kill_new_format typeless[] = {
        {.kind = EXAMPLE_CLIENT_KILL_NEW_FORMAT_CLIENT_TYPE}};
    const example_client_kill_filter f = {.kind = EXAMPLE_CLIENT_KILL_FILTER_NEW_FORMAT,
                                          .new_format = typeless,
                                          .new_format_count = 1};
    start(&o);
    o.n = example_client_kill_encode(o.buf, sizeof o.buf, f);
    expect_rejected(&o, example_client_kill_size(f));
}

static void test_sort(void **state) {
    (void)state;
    const rg_view gets[] = {RG_LIT("#"), RG_LIT("w_*")};
    const example_sort_opts opts = {
        .by_pattern = RG_LIT("n_*"),
        .has_limit = true,
        .limit = {.offset = 0, .count = 10},
        .get_pattern = gets,
        .get_pattern_count = 2,
        .order = EXAMPLE_SORT_ORDER_DESC,
        .sorting = true,
        .destination = RG_LIT("dst"),
    };
    out o;
    start(&o);
    o.n = example_sort_encode(o.buf, sizeof o.buf, RG_LIT("l"), &opts);
    EXPECT(&o, example_sort_size(RG_LIT("l"), &opts),
           "*15\r\n$4\r\nSORT\r\n$1\r\nl\r\n$2\r\nBY\r\n$3\r\nn_*\r\n$5\r\nLIMIT\r\n$1\r\n0\r\n"
           "$2\r\n10\r\n$3\r\nGET\r\n$1\r\n#\r\n$3\r\nGET\r\n$3\r\nw_*\r\n$4\r\nDESC\r\n"
           "$5\r\nALPHA\r\n$5\r\nSTORE\r\n$3\r\ndst\r\n");
}

static void test_ping_max_len(void **state) {
    (void)state;
    /* Every argument is bounded, so a stack buffer of the maximum size always suffices. */
    char buf[EXAMPLE_PING_MAX_SIZE];
    char message[64];
    memset(message, 'm', sizeof message);
    example_ping_opts opts = {.message = {message, sizeof message}};
    const size_t n = example_ping_encode(buf, sizeof buf, &opts);
    assert_int_equal(n, sizeof buf);
    assert_int_equal(n, example_ping_size(&opts));
    opts.message.len = 65;
    assert_int_equal(example_ping_size(&opts), 0);
    assert_int_equal(example_ping_encode(buf, sizeof buf, &opts), 0);

    out o;
    start(&o);
    o.n = example_ping_encode(o.buf, sizeof o.buf, NULL);
    EXPECT(&o, example_ping_size(NULL), "*1\r\n$4\r\nPING\r\n");
}

static void test_zrangebyscore(void **state) {
    (void)state;
    const example_zrangebyscore_opts opts = {
        .withscores = true, .has_limit = true, .limit = {.offset = 5, .count = -1}};
    out o;
    start(&o);
    o.n = example_zrangebyscore_encode(o.buf, sizeof o.buf, RG_LIT("z"), -2.5, 1e300, &opts);
    EXPECT(&o, example_zrangebyscore_size(RG_LIT("z"), -2.5, 1e300, &opts),
           "*8\r\n$13\r\nZRANGEBYSCORE\r\n$1\r\nz\r\n$4\r\n-2.5\r\n$6\r\n1e+300\r\n"
           "$10\r\nWITHSCORES\r\n$5\r\nLIMIT\r\n$1\r\n5\r\n$2\r\n-1\r\n");
}

static void test_geosearch(void **state) {
    (void)state;
    const example_geosearch_from from = {.kind = EXAMPLE_GEOSEARCH_FROM_FROMLONLAT,
                                         .fromlonlat = {.longitude = 15, .latitude = 37}};
    const example_geosearch_by by = {
        .kind = EXAMPLE_GEOSEARCH_BY_BOX,
        .box = {.width = 400, .height = 0.5, .unit = EXAMPLE_GEOSEARCH_BOX_UNIT_KM}};
    const example_geosearch_opts opts = {.order = EXAMPLE_GEOSEARCH_ORDER_ASC,
                                         .has_count_block = true,
                                         .count_block = {.count = 3, .any = true},
                                         .withdist = true};
    out o;
    start(&o);
    o.n = example_geosearch_encode(o.buf, sizeof o.buf, RG_LIT("g"), from, by, &opts);
    EXPECT(&o, example_geosearch_size(RG_LIT("g"), from, by, &opts),
           "*14\r\n$9\r\nGEOSEARCH\r\n$1\r\ng\r\n$10\r\nFROMLONLAT\r\n$2\r\n15\r\n$2\r\n37\r\n"
           "$5\r\nBYBOX\r\n$3\r\n400\r\n$3\r\n0.5\r\n$2\r\nKM\r\n$3\r\nASC\r\n$5\r\nCOUNT\r\n"
           "$1\r\n3\r\n$3\r\nANY\r\n$8\r\nWITHDIST\r\n");
    /* A required enum inside a chosen block left at NONE. */
    const example_geosearch_by unitless = {.kind = EXAMPLE_GEOSEARCH_BY_CIRCLE,
                                           .circle = {.radius = 1}};
    start(&o);
    o.n = example_geosearch_encode(o.buf, sizeof o.buf, RG_LIT("g"), from, unitless, NULL);
    expect_rejected(&o, example_geosearch_size(RG_LIT("g"), from, unitless, NULL));
}

/* ---- tests/gen/specs/kinds.lua ---- */

static void test_kinds_required(void **state) {
    (void)state;
    out o;
    start(&o);
    o.n = kinds_kinds_encode(o.buf, sizeof o.buf, RG_LIT("k"), RG_LIT("v"), RG_LIT("p*"), 3, 0.25,
                             1700000000);
    EXPECT(&o, kinds_kinds_size(RG_LIT("k"), RG_LIT("v"), RG_LIT("p*"), 3, 0.25, 1700000000),
           "*8\r\n$5\r\nKINDS\r\n$1\r\nk\r\n$1\r\nv\r\n$2\r\np*\r\n$1\r\n3\r\n$4\r\n0.25\r\n"
           "$10\r\n1700000000\r\n$4\r\nFLAG\r\n");
}

static void test_kinds_tokens(void **state) {
    (void)state;
    out o;
    start(&o);
    o.n = kinds_tokens_encode(o.buf, sizeof o.buf, NULL);
    EXPECT(&o, kinds_tokens_size(NULL), "*1\r\n$6\r\nTOKENS\r\n");
    const kinds_tokens_opts opts = {
        .key = RG_LIT("k"),
        .value = RG_LIT("v"),
        .match = RG_LIT("m"),
        .has_count = true,
        .count = 1,
        .has_score = true,
        .score = 2,
        .has_at = true,
        .at = 3,
        .flag = true,
    };
    start(&o);
    o.n = kinds_tokens_encode(o.buf, sizeof o.buf, &opts);
    EXPECT(&o, kinds_tokens_size(&opts),
           "*14\r\n$6\r\nTOKENS\r\n$3\r\nKEY\r\n$1\r\nk\r\n$5\r\nVALUE\r\n$1\r\nv\r\n"
           "$5\r\nMATCH\r\n$1\r\nm\r\n$5\r\nCOUNT\r\n$1\r\n1\r\n$5\r\nSCORE\r\n$1\r\n2\r\n"
           "$4\r\nEXAT\r\n$1\r\n3\r\n$4\r\nFLAG\r\n");
}

static void test_kinds_bounded(void **state) {
    (void)state;
    char key[16], value[64];
    memset(key, 'k', sizeof key);
    memset(value, 'v', sizeof value);
    const kinds_bounded_opts opts = {
        .has_ttl = true, .ttl = INT64_MIN, .has_weight = true, .weight = -1.2345678901234567e-300};
    const rg_view k = {key, sizeof key}, v = {value, sizeof value};
    char buf[KINDS_BOUNDED_MAX_SIZE];
    const size_t n = kinds_bounded_encode(buf, sizeof buf, k, v, &opts);
    assert_int_not_equal(n, 0);
    assert_true(n <= sizeof buf);
    assert_int_equal(n, kinds_bounded_size(k, v, &opts));
    const rg_view too_long = {value, sizeof key + 1};
    assert_int_equal(kinds_bounded_size(too_long, v, &opts), 0);
    /* Without options too (the fixed-shape path hands it to the general one, which refuses). */
    assert_int_equal(kinds_bounded_size(too_long, v, NULL), 0);
    assert_int_equal(kinds_bounded_encode(buf, sizeof buf, too_long, v, NULL), 0);
    assert_int_equal(kinds_bounded_size(k, v, NULL),
                     KINDS_BOUNDED_FIXED_SIZE + 4 + rg_bulk_size(16) + rg_bulk_size(64));
}

static void test_kinds_subcommand_and_no_args(void **state) {
    (void)state;
    out o;
    start(&o);
    o.n = kinds_object_encoding_encode(o.buf, sizeof o.buf, RG_LIT("k"));
    EXPECT(&o, kinds_object_encoding_size(RG_LIT("k")),
           "*3\r\n$6\r\nOBJECT\r\n$8\r\nENCODING\r\n$1\r\nk\r\n");
    assert_int_equal(KINDS_OBJECT_ENCODING_FIXED_SIZE,
                     sizeof("*3\r\n$6\r\nOBJECT\r\n$8\r\nENCODING\r\n") - 1);
    start(&o);
    o.n = kinds_time_encode(o.buf, sizeof o.buf);
    EXPECT(&o, kinds_time_size(), "*1\r\n$4\r\nTIME\r\n");
    assert_int_equal(KINDS_TIME_MAX_SIZE, o.n);
}

static void test_kinds_escapes(void **state) {
    (void)state;
    const kinds_escapes_opts opts = {.value = RG_LIT("x")};
    out o;
    start(&o);
    o.n = kinds_escapes_encode(o.buf, sizeof o.buf, &opts);
    EXPECT(&o, kinds_escapes_size(&opts),
           "*5\r\n$7\r\nESCAPES\r\n$12\r\na\"b\\c?\?d\r\n\t\310\r\n$0\r\n\r\n$3\r\n?\?=\r\n"
           "$1\r\nx\r\n");
}

/* ---- tests/gen/specs/combinators.lua ---- */

static void test_choice(void **state) {
    (void)state;
    out o;
    start(&o);
    o.n = combinators_choice_encode(o.buf, sizeof o.buf, RG_LIT("k"), COMBINATORS_CHOICE_MODE_SAFE,
                                    NULL);
    EXPECT(&o, combinators_choice_size(RG_LIT("k"), COMBINATORS_CHOICE_MODE_SAFE, NULL),
           "*3\r\n$6\r\nCHOICE\r\n$1\r\nk\r\n$4\r\nSAFE\r\n");
    const combinators_choice_opts opts = {
        .condition = COMBINATORS_CHOICE_CONDITION_NX,
        .expiry = {.kind = COMBINATORS_CHOICE_EXPIRY_AT, .at = RG_LIT("then")},
        .aggregate = COMBINATORS_CHOICE_AGGREGATE_MAX,
    };
    start(&o);
    o.n = combinators_choice_encode(o.buf, sizeof o.buf, RG_LIT("k"), COMBINATORS_CHOICE_MODE_FAST,
                                    &opts);
    EXPECT(&o, combinators_choice_size(RG_LIT("k"), COMBINATORS_CHOICE_MODE_FAST, &opts),
           "*8\r\n$6\r\nCHOICE\r\n$1\r\nk\r\n$4\r\nFAST\r\n$2\r\nNX\r\n$2\r\nAT\r\n$4\r\nthen\r\n"
           "$9\r\nAGGREGATE\r\n$3\r\nMAX\r\n");
    /* A required enum at NONE, or past its last value. */
    assert_int_equal(combinators_choice_size(RG_LIT("k"), COMBINATORS_CHOICE_MODE_NONE, NULL), 0);
    assert_int_equal(combinators_choice_size(RG_LIT("k"), (combinators_choice_mode)3, NULL), 0);
}

static void test_blocks(void **state) {
    (void)state;
    const combinators_blocks_range range = {.start = 1, .stop = -1};
    out o;
    start(&o);
    o.n = combinators_blocks_encode(o.buf, sizeof o.buf, RG_LIT("k"), range, NULL);
    EXPECT(&o, combinators_blocks_size(RG_LIT("k"), range, NULL),
           "*4\r\n$6\r\nBLOCKS\r\n$1\r\nk\r\n$1\r\n1\r\n$2\r\n-1\r\n");
    const combinators_blocks_opts opts = {
        .has_limit = true, .limit = {.offset = 2, .count = 3}, .has_full = true, .withall = true};
    start(&o);
    o.n = combinators_blocks_encode(o.buf, sizeof o.buf, RG_LIT("k"), range, &opts);
    EXPECT(&o, combinators_blocks_size(RG_LIT("k"), range, &opts),
           "*10\r\n$6\r\nBLOCKS\r\n$1\r\nk\r\n$1\r\n1\r\n$2\r\n-1\r\n$5\r\nLIMIT\r\n$1\r\n2\r\n"
           "$1\r\n3\r\n$4\r\nFULL\r\n$4\r\nWITH\r\n$3\r\nALL\r\n");
}

static void test_lists(void **state) {
    (void)state;
    const rg_view keys[] = {RG_LIT("a"), RG_LIT("b")};
    const int64_t weights[] = {1, 2};
    const rg_view gets[] = {RG_LIT("x")};
    const combinators_lists_pairs pairs[] = {{RG_LIT("f"), 0.5}};
    const combinators_lists_ops ops[] = {{.kind = COMBINATORS_LISTS_OPS_INCR, .incr = 9},
                                         {.kind = COMBINATORS_LISTS_OPS_RESET}};
    const combinators_lists_marks marks[] = {COMBINATORS_LISTS_MARKS_B, COMBINATORS_LISTS_MARKS_A};
    const combinators_lists_opts opts = {
        .weights = weights,
        .weights_count = 2,
        .get = gets,
        .get_count = 1,
        .pairs = pairs,
        .pairs_count = 1,
        .ops = ops,
        .ops_count = 2,
        .marks = marks,
        .marks_count = 2,
    };
    out o;
    start(&o);
    o.n = combinators_lists_encode(o.buf, sizeof o.buf, keys, 2, &opts);
    EXPECT(&o, combinators_lists_size(keys, 2, &opts),
           "*16\r\n$5\r\nLISTS\r\n$1\r\na\r\n$1\r\nb\r\n$7\r\nWEIGHTS\r\n$1\r\n1\r\n$1\r\n2\r\n"
           "$3\r\nGET\r\n$1\r\nx\r\n$5\r\nPAIRS\r\n$1\r\nf\r\n$3\r\n0.5\r\n$4\r\nINCR\r\n"
           "$1\r\n9\r\n$5\r\nRESET\r\n$1\r\nB\r\n$1\r\nA\r\n");
    /* An optional multiple may be empty; an element outside its enum may not. */
    start(&o);
    o.n = combinators_lists_encode(o.buf, sizeof o.buf, keys, 1, NULL);
    EXPECT(&o, combinators_lists_size(keys, 1, NULL), "*2\r\n$5\r\nLISTS\r\n$1\r\na\r\n");
    const combinators_lists_marks bad[] = {COMBINATORS_LISTS_MARKS_NONE};
    const combinators_lists_opts bad_opts = {.marks = bad, .marks_count = 1};
    assert_int_equal(combinators_lists_size(keys, 1, &bad_opts), 0);
}

static void test_nested(void **state) {
    (void)state;
    const combinators_nested_write writes[] = {
        {.overflow = COMBINATORS_NESTED_OVERFLOW_FAIL,
         .op = {.kind = COMBINATORS_NESTED_OP_INCR,
                .incr = {.type = RG_LIT("u8"), .offset = 0, .delta = 1}}},
        {.op = {.kind = COMBINATORS_NESTED_OP_SET,
                .set = {.type = RG_LIT("i5"), .offset = 100, .value = -3}}},
    };
    const combinators_nested_new filters[] = {
        {.kind = COMBINATORS_NESTED_NEW_USER, .user = RG_LIT("bob")}};
    const combinators_nested_opts opts = {
        .write = writes,
        .write_count = 2,
        .filter = {.kind = COMBINATORS_NESTED_FILTER_NEW, .new_ = filters, .new_count = 1},
    };
    const combinators_nested_from from = {.kind = COMBINATORS_NESTED_FROM_MEMBER,
                                          .member = RG_LIT("m")};
    out o;
    start(&o);
    o.n = combinators_nested_encode(o.buf, sizeof o.buf, from, &opts);
    EXPECT(&o, combinators_nested_size(from, &opts),
           "*15\r\n$6\r\nNESTED\r\n$10\r\nFROMMEMBER\r\n$1\r\nm\r\n$8\r\nOVERFLOW\r\n$4\r\nFAIL\r\n"
           "$6\r\nINCRBY\r\n$2\r\nu8\r\n$1\r\n0\r\n$1\r\n1\r\n$3\r\nSET\r\n$2\r\ni5\r\n"
           "$3\r\n100\r\n$2\r\n-3\r\n$4\r\nUSER\r\n$3\r\nbob\r\n");
}

static void test_keywords(void **state) {
    (void)state;
    const combinators_keywords_opts opts = {
        .operator_ = RG_LIT("op"),
        .switch_ = {.kind = COMBINATORS_KEYWORDS_SWITCH_DO, .do_ = 4},
        .has_struct = true,
        .struct_ = {.register_ = RG_LIT("r"), .dst_ = RG_LIT("d")},
    };
    out o;
    start(&o);
    o.n = combinators_keywords_encode(o.buf, sizeof o.buf, RG_LIT("x"), 1, RG_LIT("t"), &opts);
    EXPECT(&o, combinators_keywords_size(RG_LIT("x"), 1, RG_LIT("t"), &opts),
           "*9\r\n$8\r\nKEYWORDS\r\n$1\r\nx\r\n$1\r\n1\r\n$1\r\nt\r\n$2\r\nop\r\n$2\r\nDO\r\n"
           "$1\r\n4\r\n$1\r\nr\r\n$1\r\nd\r\n");
}

/* ---- iovec variant ---- */

/* Concatenates the entries into buf; returns the length. */
static size_t flatten(const rg_iov *iov, size_t count, char *buf) {
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        memcpy(buf + n, iov[i].base, iov[i].len);
        n += iov[i].len;
    }
    return n;
}

static void test_iov_references_big_values(void **state) {
    (void)state;
    const size_t big = 1u << 20;
    char *value = malloc(big);
    char *flat = malloc(big + 256);
    char *direct = malloc(big + 256);
    assert_non_null(value);
    assert_non_null(flat);
    assert_non_null(direct);
    memset(value, 'x', big);
    const rg_view v = {value, big};
    const example_set_opts opts = {.get = true};

    const size_t entries = example_set_iov_count(RG_LIT("k"), v, &opts);
    const size_t scratch_size = example_set_scratch_size(RG_LIT("k"), v, &opts);
    assert_int_equal(entries, 3);
    assert_true(entries <= EXAMPLE_SET_IOV_MAX);
    assert_true(scratch_size <= EXAMPLE_SET_SCRATCH_MAX);
    rg_iov iov[EXAMPLE_SET_IOV_MAX];
    char scratch[EXAMPLE_SET_SCRATCH_MAX];
    /* One entry or one scratch byte short: nothing. */
    assert_int_equal(
        example_set_encode_iov(iov, entries - 1, scratch, sizeof scratch, RG_LIT("k"), v, &opts),
        0);
    assert_int_equal(
        example_set_encode_iov(iov, entries, scratch, scratch_size - 1, RG_LIT("k"), v, &opts), 0);
    const size_t count =
        example_set_encode_iov(iov, entries, scratch, scratch_size, RG_LIT("k"), v, &opts);
    assert_int_equal(count, entries);
    /* The value is referenced where it is, never copied. */
    assert_ptr_equal(iov[1].base, value);
    assert_int_equal(iov[1].len, big);
    assert_int_equal(iov[0].len + iov[2].len, scratch_size);

    const size_t n = example_set_encode(direct, big + 256, RG_LIT("k"), v, &opts);
    assert_int_equal(n, example_set_size(RG_LIT("k"), v, &opts));
    assert_int_equal(flatten(iov, count, flat), n);
    assert_memory_equal(flat, direct, n);
    free(value);
    free(flat);
    free(direct);
}

static void test_iov_copies_small_values(void **state) {
    (void)state;
    rg_iov iov[EXAMPLE_GET_IOV_MAX];
    char scratch[EXAMPLE_GET_SCRATCH_MAX];
    const size_t count = example_get_encode_iov(iov, 3, scratch, sizeof scratch, RG_LIT("key"));
    assert_int_equal(count, 1);
    assert_int_equal(example_get_iov_count(RG_LIT("key")), 1);
    assert_int_equal(iov[0].len, example_get_size(RG_LIT("key")));
    assert_memory_equal(iov[0].base, "*2\r\n$3\r\nGET\r\n$3\r\nkey\r\n", iov[0].len);
}

/* ---- the command list ---- */

typedef struct cmd_info {
    const char *name;
    int arity;
    uint32_t flags;
} cmd_info;

#define AS_INFO(id, ID, name, arity, flags) {name, arity, flags},
static const cmd_info example_commands[] = {EXAMPLE_COMMANDS(AS_INFO)};
#undef AS_INFO

#define COUNT(id, ID, name, arity, flags) +1
enum { EXAMPLE_COMMAND_COUNT = 0 EXAMPLE_COMMANDS(COUNT) };
#undef COUNT

static void test_command_list(void **state) {
    (void)state;
    assert_int_equal(EXAMPLE_COMMAND_COUNT, 13);
    assert_int_equal(EXAMPLE_NCOMMANDS, EXAMPLE_COMMAND_COUNT);
    /* Sorted by name; subcommands by their whole name. */
    assert_string_equal(example_commands[0].name, "CLIENT KILL");
    for (size_t i = 1; i < EXAMPLE_COMMAND_COUNT; i++)
        assert_true(strcmp(example_commands[i - 1].name, example_commands[i].name) < 0);
    for (size_t i = 0; i < EXAMPLE_COMMAND_COUNT; i++) {
        if (strcmp(example_commands[i].name, "SET") != 0) continue;
        assert_int_equal(example_commands[i].arity, -3);
        assert_int_equal(example_commands[i].flags, EXAMPLE_FLAG_WRITE | EXAMPLE_FLAG_DENYOOM);
    }
    /* Containers are no commands; arity is derived when the spec leaves it out. */
#define CHECK_KINDS(id, ID, name, arity, flags) assert_string_not_equal(name, "OBJECT");
    KINDS_COMMANDS(CHECK_KINDS)
#undef CHECK_KINDS
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_get),
        cmocka_unit_test(test_set_plain),
        cmocka_unit_test(test_set_all_options),
        cmocka_unit_test(test_set_expirations),
        cmocka_unit_test(test_set_rejects_bad_enums),
        cmocka_unit_test(test_cap_too_small),
        cmocka_unit_test(test_incrby),
        cmocka_unit_test(test_hset_mset_del),
        cmocka_unit_test(test_required_multiple_needs_one),
        cmocka_unit_test(test_zadd),
        cmocka_unit_test(test_expire),
        cmocka_unit_test(test_client_kill),
        cmocka_unit_test(test_client_kill_rejects),
        cmocka_unit_test(test_sort),
        cmocka_unit_test(test_ping_max_len),
        cmocka_unit_test(test_zrangebyscore),
        cmocka_unit_test(test_geosearch),
        cmocka_unit_test(test_kinds_required),
        cmocka_unit_test(test_kinds_tokens),
        cmocka_unit_test(test_kinds_bounded),
        cmocka_unit_test(test_kinds_subcommand_and_no_args),
        cmocka_unit_test(test_kinds_escapes),
        cmocka_unit_test(test_choice),
        cmocka_unit_test(test_blocks),
        cmocka_unit_test(test_lists),
        cmocka_unit_test(test_nested),
        cmocka_unit_test(test_keywords),
        cmocka_unit_test(test_iov_references_big_values),
        cmocka_unit_test(test_iov_copies_small_values),
        cmocka_unit_test(test_command_list),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
