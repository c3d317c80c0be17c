/* Every command of the imported module sets specs/modules/valkey-json.lua and valkey-search.lua,
 * encoded by the generated encoders and read back with rg_next: each call must be exactly the
 * words written out by hand below (the independent expectation), and the size function must
 * agree. Commands with options are called bare and with their options set, so every option form
 * is reached by a plain designated initializer. The key specs the importer derived for these
 * sets (docs/import.md, "Warnings") are checked on JSON.MGET and JSON.MSET, and the module
 * prefix on the names (json_set, ft_search). */
#include "valkey-json.h"
#include "valkey-json_keys.h"
#include "valkey-search.h"

#include "rg_dec.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#define BUF_SIZE  2048
#define MAX_WORDS 64

/* Decodes buf[0..n) with rg_next as one array of bulks and compares them with want (NULL
 * terminated). */
static void check_words(const char *buf, size_t n, const char *const *want) {
    size_t count = 0;
    while (want[count]) count++;
    rg_reader rd;
    rg_reader_init(&rd, NULL);
    size_t pos = 0;
    rg_event ev;
    assert_int_equal(rg_next(&rd, buf, n, &pos, &ev), RG_OK);
    assert_int_equal(ev.kind, RG_EV_ARRAY);
    assert_int_equal(ev.u.i, (int64_t)count);
    for (size_t i = 0; i < count; i++) {
        assert_int_equal(rg_next(&rd, buf, n, &pos, &ev), RG_OK);
        assert_int_equal(ev.kind, RG_EV_BULK);
        if (ev.str.len != strlen(want[i]) || memcmp(ev.str.ptr, want[i], ev.str.len) != 0)
            fail_msg("word %zu is \"%.*s\", expected \"%s\"", i, (int)ev.str.len, ev.str.ptr,
                     want[i]);
    }
    assert_int_equal(rg_next(&rd, buf, n, &pos, &ev), RG_OK);
    assert_int_equal(ev.kind, RG_EV_END);
    assert_true(ev.complete);
    assert_int_equal(pos, n);
}

/* Encodes with <fn>_encode and <fn>_size (same arguments) and checks the words. */
#define CHECK(fn, args, ...)                                             \
    do {                                                                 \
        char buf_[BUF_SIZE];                                             \
        const size_t n_ = fn##_encode(buf_, sizeof buf_, args);          \
        assert_true(n_ > 0);                                             \
        assert_int_equal(fn##_size(args), n_);                           \
        check_words(buf_, n_, (const char *const[]){__VA_ARGS__, NULL}); \
    } while (0)
/* For commands without arguments. */
#define CHECK0(fn, ...)                                                  \
    do {                                                                 \
        char buf_[BUF_SIZE];                                             \
        const size_t n_ = fn##_encode(buf_, sizeof buf_);                \
        assert_int_equal(fn##_size(), n_);                               \
        check_words(buf_, n_, (const char *const[]){__VA_ARGS__, NULL}); \
    } while (0)
#define A(...) __VA_ARGS__

#define K RG_LIT("k")
#define P RG_LIT("$.a")
#define J RG_LIT("{\"x\":[1,2]}")

static void test_json_arrays(void **state) {
    (void)state;
    const rg_view vals[] = {RG_LIT("1"), RG_LIT("\"two\"")};
    CHECK(json_arrappend, A(K, P, vals, 2), "JSON.ARRAPPEND", "k", "$.a", "1", "\"two\"");
    CHECK(json_arrindex, A(K, P, RG_LIT("3"), NULL), "JSON.ARRINDEX", "k", "$.a", "3");
    CHECK(
        json_arrindex,
        A(K, P, RG_LIT("3"),
          &(const json_arrindex_opts){.has_start = true, .start = 1, .has_end = true, .end_ = -1}),
        "JSON.ARRINDEX", "k", "$.a", "3", "1", "-1");
    CHECK(json_arrinsert, A(K, P, -2, vals, 2), "JSON.ARRINSERT", "k", "$.a", "-2", "1", "\"two\"");
    CHECK(json_arrlen, A(K, NULL), "JSON.ARRLEN", "k");
    CHECK(json_arrlen, A(K, &(const json_arrlen_opts){.path = P}), "JSON.ARRLEN", "k", "$.a");
    CHECK(json_arrpop, A(K, NULL), "JSON.ARRPOP", "k");
    CHECK(json_arrpop, A(K, &(const json_arrpop_opts){.path = P, .has_index = true, .index = 0}),
          "JSON.ARRPOP", "k", "$.a", "0");
    CHECK(json_arrtrim, A(K, P, 0, 9), "JSON.ARRTRIM", "k", "$.a", "0", "9");
}

static void test_json_values(void **state) {
    (void)state;
    CHECK(json_clear, A(K, NULL), "JSON.CLEAR", "k");
    CHECK(json_clear, A(K, &(const json_clear_opts){.path = P}), "JSON.CLEAR", "k", "$.a");
    CHECK(json_debug, A(RG_LIT("MEMORY")), "JSON.DEBUG", "MEMORY");
    CHECK(json_del, A(K, NULL), "JSON.DEL", "k");
    CHECK(json_del, A(K, &(const json_del_opts){.path = P}), "JSON.DEL", "k", "$.a");
    CHECK0(json_forget, "JSON.FORGET");
    CHECK(json_get, A(K, NULL), "JSON.GET", "k");
    const rg_view paths[] = {P, RG_LIT("$.b")};
    CHECK(json_get,
          A(K, &(const json_get_opts){.indent_newline_space = RG_LIT("INDENT"),
                                      .noescape = RG_LIT("NOESCAPE"),
                                      .path = paths,
                                      .path_count = 2}),
          "JSON.GET", "k", "INDENT", "NOESCAPE", "$.a", "$.b");
    CHECK(json_numincrby, A(K, P, 5), "JSON.NUMINCRBY", "k", "$.a", "5");
    CHECK(json_nummultby, A(K, P, -3), "JSON.NUMMULTBY", "k", "$.a", "-3");
    CHECK(json_objkeys, A(K, NULL), "JSON.OBJKEYS", "k");
    CHECK(json_objkeys, A(K, &(const json_objkeys_opts){.path = P}), "JSON.OBJKEYS", "k", "$.a");
    CHECK(json_objlen, A(K, NULL), "JSON.OBJLEN", "k");
    CHECK(json_objlen, A(K, &(const json_objlen_opts){.path = P}), "JSON.OBJLEN", "k", "$.a");
    CHECK(json_resp, A(K, NULL), "JSON.RESP", "k");
    CHECK(json_resp, A(K, &(const json_resp_opts){.path = P}), "JSON.RESP", "k", "$.a");
    CHECK(json_set, A(K, P, J, NULL), "JSON.SET", "k", "$.a", "{\"x\":[1,2]}");
    CHECK(json_set, A(K, P, J, &(const json_set_opts){.options = RG_LIT("NX")}), "JSON.SET", "k",
          "$.a", "{\"x\":[1,2]}", "NX");
    CHECK(json_strappend, A(K, RG_LIT("\"s\""), NULL), "JSON.STRAPPEND", "k", "\"s\"");
    CHECK(json_strappend, A(K, RG_LIT("\"s\""), &(const json_strappend_opts){.path = P}),
          "JSON.STRAPPEND", "k", "$.a", "\"s\"");
    CHECK(json_strlen, A(K, NULL), "JSON.STRLEN", "k");
    CHECK(json_strlen, A(K, &(const json_strlen_opts){.path = P}), "JSON.STRLEN", "k", "$.a");
    CHECK(json_toggle, A(K, NULL), "JSON.TOGGLE", "k");
    CHECK(json_toggle, A(K, &(const json_toggle_opts){.path = P}), "JSON.TOGGLE", "k", "$.a");
    CHECK(json_type, A(K, NULL), "JSON.TYPE", "k");
    CHECK(json_type, A(K, &(const json_type_opts){.path = P}), "JSON.TYPE", "k", "$.a");
}

static void test_json_multi_key(void **state) {
    (void)state;
    const rg_view keys[] = {RG_LIT("a"), RG_LIT("b")};
    CHECK(json_mget, A(keys, 2, P), "JSON.MGET", "a", "b", "$.a");
    const json_mset_data data[] = {{K, P, J}, {RG_LIT("k2"), RG_LIT("$"), RG_LIT("1")}};
    CHECK(json_mset, A(data, 2), "JSON.MSET", "k", "$.a", "{\"x\":[1,2]}", "k2", "$", "1");
}

/* The key specs derived from the key arguments' places find the keys of encoded calls. */
static void test_json_derived_key_specs(void **state) {
    (void)state;
    char buf[BUF_SIZE];
    rg_view argv[MAX_WORDS];
    size_t positions[8];
    rg_error st;
    const rg_view keys[] = {RG_LIT("a"), RG_LIT("b"), RG_LIT("c")};
    size_t n = json_mget_encode(buf, sizeof buf, keys, 3, P);
    assert_int_equal(json_keys_of_request(buf, n, argv, MAX_WORDS, positions, 8, &st), 3);
    assert_int_equal(positions[0], 1);
    assert_int_equal(positions[2], 3);
    const json_mset_data data[] = {{K, P, J}, {RG_LIT("k2"), RG_LIT("$"), RG_LIT("1")}};
    n = json_mset_encode(buf, sizeof buf, data, 2);
    assert_int_equal(json_keys_of_request(buf, n, argv, MAX_WORDS, positions, 8, &st), 2);
    assert_int_equal(positions[0], 1);
    assert_int_equal(positions[1], 4);
    n = json_set_encode(buf, sizeof buf, K, P, J, NULL);
    assert_int_equal(json_keys_of_request(buf, n, argv, MAX_WORDS, positions, 8, &st), 1);
    assert_int_equal(positions[0], 1);
}

#define IDX RG_LIT("idx")
#define Q   RG_LIT("@t:{a}")

static void test_ft_create(void **state) {
    (void)state;
    const ft_create_fields numeric = {.field_identifier = RG_LIT("n"),
                                      .field_type = {.kind = FT_CREATE_FIELD_TYPE_NUMERIC}};
    CHECK(ft_create, A(IDX, (ft_create_schema){.fields = &numeric, .fields_count = 1}, NULL),
          "FT.CREATE", "idx", "SCHEMA", "n", "NUMERIC");
    const rg_view prefixes[] = {RG_LIT("doc:")};
    const rg_view stop[] = {RG_LIT("a"), RG_LIT("the")};
    const ft_create_fields fields[] = {
        {.field_identifier = RG_LIT("$.t"),
         .alias = RG_LIT("t"),
         .field_type = {.kind = FT_CREATE_FIELD_TYPE_TAG,
                        .tag = {.separator = RG_LIT(","), .casesensitive = true}},
         .sortable = true},
        {.field_identifier = RG_LIT("body"),
         .field_type = {.kind = FT_CREATE_FIELD_TYPE_TEXT,
                        .text = {.nostem = true,
                                 .suffix_trie = FT_CREATE_SUFFIX_TRIE_NOSUFFIXTRIE,
                                 .weight = RG_LIT("2")}}},
        {.field_identifier = RG_LIT("v"),
         .field_type = {.kind = FT_CREATE_FIELD_TYPE_VECTOR,
                        .vector = {.algorithm = FT_CREATE_ALGORITHM_HNSW,
                                   .attr_count = 6,
                                   .vector_params = {.dim = 4,
                                                     .distance_metric =
                                                         FT_CREATE_DISTANCE_METRIC_COSINE,
                                                     .has_m = true,
                                                     .m_ = 16}}}},
    };
    const ft_create_opts opts = {
        .on = FT_CREATE_ON_JSON,
        .has_prefix = true,
        .prefix = {.count = 1, .prefix = prefixes, .prefix_count = 1},
        .score = RG_LIT("0.5"),
        .has_score_field = true,
        .score_field = {.field_name = RG_LIT("s")},
        .language = RG_LIT("english"),
        .skipinitialscan = true,
        .has_minstemsize = true,
        .minstemsize = 3,
        .offsets = FT_CREATE_OFFSETS_NOOFFSETS,
        .stopwords = {.kind = FT_CREATE_STOPWORDS_STOPWORDS_LIST,
                      .stopwords_list = {.count = 2, .word = stop, .word_count = 2}},
        .punctuation = RG_LIT(".,"),
    };
    CHECK(ft_create, A(IDX, (ft_create_schema){.fields = fields, .fields_count = 3}, &opts),
          "FT.CREATE", "idx", "ON", "JSON", "PREFIX", "1", "doc:", "SCORE", "0.5", "SCORE_FIELD",
          "s", "LANGUAGE", "english", "SKIPINITIALSCAN", "MINSTEMSIZE", "3", "NOOFFSETS",
          "STOPWORDS", "2", "a", "the", "PUNCTUATION", ".,", "SCHEMA", "$.t", "AS", "t", "TAG",
          "SEPARATOR", ",", "CASESENSITIVE", "SORTABLE", "body", "TEXT", "NOSTEM", "NOSUFFIXTRIE",
          "WEIGHT", "2", "v", "VECTOR", "HNSW", "6", "TYPE", "FLOAT32", "DIM", "4",
          "DISTANCE_METRIC", "COSINE", "M", "16");
    const ft_create_opts nostop = {.stopwords = {.kind = FT_CREATE_STOPWORDS_NOSTOPWORDS}};
    CHECK(ft_create, A(IDX, (ft_create_schema){.fields = &numeric, .fields_count = 1}, &nostop),
          "FT.CREATE", "idx", "NOSTOPWORDS", "SCHEMA", "n", "NUMERIC");
}

static void test_ft_search(void **state) {
    (void)state;
    CHECK(ft_search, A(IDX, Q, NULL), "FT.SEARCH", "idx", "@t:{a}");
    const ft_search_parameters params[] = {{RG_LIT("p"), RG_LIT("1")}};
    const ft_search_fields ret[] = {
        {.field = RG_LIT("a")},
        {.field = RG_LIT("b"), .has_alias = true, .alias = {.name = RG_LIT("bb")}}};
    const ft_search_opts opts = {
        .shard_policy = FT_SEARCH_SHARD_POLICY_SOMESHARDS,
        .consistency = FT_SEARCH_CONSISTENCY_INCONSISTENT,
        .has_dialect = true,
        .dialect = 2,
        .inorder = true,
        .has_limit = true,
        .limit = {.offset = 0, .count = 10},
        .nocontent = true,
        .has_params = true,
        .params = {.count = 2, .parameters = params, .parameters_count = 1},
        .has_return = true,
        .return_ = {.count = 4, .fields = ret, .fields_count = 2},
        .has_slop = true,
        .slop = 1,
        .has_sortby = true,
        .sortby = {.field = RG_LIT("a"), .direction = FT_SEARCH_DIRECTION_DESC},
        .has_timeout = true,
        .timeout = 500,
        .verbatim = true,
        .withsortkeys = true,
    };
    CHECK(ft_search, A(IDX, Q, &opts), "FT.SEARCH", "idx", "@t:{a}", "SOMESHARDS", "INCONSISTENT",
          "DIALECT", "2", "INORDER", "LIMIT", "0", "10", "NOCONTENT", "PARAMS", "2", "p", "1",
          "RETURN", "4", "a", "b", "AS", "bb", "SLOP", "1", "SORTBY", "a", "DESC", "TIMEOUT", "500",
          "VERBATIM", "WITHSORTKEYS");
}

static void test_ft_aggregate(void **state) {
    (void)state;
    CHECK(ft_aggregate, A(IDX, Q, NULL), "FT.AGGREGATE", "idx", "@t:{a}");
    CHECK(ft_aggregate,
          A(IDX, Q, &(const ft_aggregate_opts){.load = {.kind = FT_AGGREGATE_LOAD_ALL}}),
          "FT.AGGREGATE", "idx", "@t:{a}", "LOAD", "*");
    const rg_view f[] = {RG_LIT("@a"), RG_LIT("@b")};
    const ft_aggregate_parameters params[] = {{RG_LIT("p"), RG_LIT("1")}};
    const ft_aggregate_apply apply[] = {{RG_LIT("@a*2"), RG_LIT("a2")}};
    const rg_view filter[] = {RG_LIT("@a>1")};
    const ft_aggregate_reduce reduce[] = {
        {.function = FT_AGGREGATE_FUNCTION_COUNT, .count = 0},
        {.function = FT_AGGREGATE_FUNCTION_SUM,
         .count = 1,
         .expression = f,
         .expression_count = 1,
         .has_alias = true,
         .alias = {.name = RG_LIT("total")}},
    };
    const ft_aggregate_groupby groupby[] = {
        {.count = 1, .field = f + 1, .field_count = 1, .reduce = reduce, .reduce_count = 2}};
    const ft_aggregate_limit limit[] = {{0, 5}};
    const ft_aggregate_opts opts = {
        .has_dialect = true,
        .dialect = 2,
        .inorder = true,
        .load = {.kind = FT_AGGREGATE_LOAD_FIELDS,
                 .fields = {.count = 2, .field = f, .field_count = 2}},
        .has_params = true,
        .params = {.count = 2, .parameters = params, .parameters_count = 1},
        .has_slop = true,
        .slop = 0,
        .has_timeout = true,
        .timeout = 100,
        .verbatim = true,
        .apply = apply,
        .apply_count = 1,
        .filter = filter,
        .filter_count = 1,
        .groupby = groupby,
        .groupby_count = 1,
        .limit = limit,
        .limit_count = 1,
        .has_sortby = true,
        .sortby = {.count = 2, .sort_params = f, .sort_params_count = 2, .has_max = true, .max = 3},
    };
    CHECK(ft_aggregate, A(IDX, Q, &opts), "FT.AGGREGATE", "idx", "@t:{a}", "DIALECT", "2",
          "INORDER", "LOAD", "2", "@a", "@b", "PARAMS", "2", "p", "1", "SLOP", "0", "TIMEOUT",
          "100", "VERBATIM", "APPLY", "@a*2", "AS", "a2", "FILTER", "@a>1", "GROUPBY", "1", "@b",
          "REDUCE", "COUNT", "0", "REDUCE", "SUM", "1", "@a", "AS", "total", "LIMIT", "0", "5",
          "SORTBY", "2", "@a", "@b", "MAX", "3");
}

static void test_ft_others(void **state) {
    (void)state;
    CHECK0(ft_debug, "FT._DEBUG");
    CHECK0(ft_list, "FT._LIST");
    CHECK(ft_dropindex, A(IDX), "FT.DROPINDEX", "idx");
    CHECK(ft_info, A(IDX, NULL), "FT.INFO", "idx");
    CHECK(ft_info,
          A(IDX, &(const ft_info_opts){.scope = FT_INFO_SCOPE_CLUSTER,
                                       .shard_policy = FT_INFO_SHARD_POLICY_ALLSHARDS,
                                       .consistency = FT_INFO_CONSISTENCY_CONSISTENT}),
          "FT.INFO", "idx", "CLUSTER", "ALLSHARDS", "CONSISTENT");
}

/* Every command of both sets is called above: the command lists have these many. */
#define ONE(id, ID, name, arity, flags) +1
static void test_command_counts(void **state) {
    (void)state;
    assert_int_equal(0 JSON_COMMANDS(ONE), 23);
    assert_int_equal(0 FT_COMMANDS(ONE), 7);
}
#undef ONE

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_arrays),    cmocka_unit_test(test_json_values),
        cmocka_unit_test(test_json_multi_key), cmocka_unit_test(test_json_derived_key_specs),
        cmocka_unit_test(test_ft_create),      cmocka_unit_test(test_ft_search),
        cmocka_unit_test(test_ft_aggregate),   cmocka_unit_test(test_ft_others),
        cmocka_unit_test(test_command_counts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
