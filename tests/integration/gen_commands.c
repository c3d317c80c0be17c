/* Generated encoders against a real redis-server: every command of specs/example.lua, with its
 * options, encoded by the generated code (flat and as iovecs through writev), sent, and its reply
 * checked for the value Redis computes, not only for the absence of an error. */
#include "example.h"
#include "test_redis.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include <cmocka.h>

#define V(s) RG_LIT(s)

typedef test_fixture fixture;

/* Sends size bytes that encode() wrote (checking it wrote exactly size) and renders the reply. */
static void roundtrip(fixture *f, const char *req, size_t size, size_t written, const char *want) {
    char out[4096];
    assert_true(size > 0);
    assert_int_equal(written, size);
    assert_int_equal(test_conn_send(&f->conn, req, size), 0);
    assert_int_equal(test_conn_reply(&f->conn, out, sizeof out), 0);
    assert_string_equal(out, want);
}

/* Encodes with C_size + C_encode into an exactly sized heap buffer, sends, checks the reply. */
#define CALL(f, want, cmd, ...)                                                            \
    do {                                                                                   \
        const size_t size_ = example_##cmd##_size(__VA_ARGS__);                            \
        char *req_ = malloc(size_ ? size_ : 1);                                            \
        assert_non_null(req_);                                                             \
        roundtrip(f, req_, size_, example_##cmd##_encode(req_, size_, __VA_ARGS__), want); \
        free(req_);                                                                        \
    } while (0)

static void strings(void **state) {
    fixture *f = *state;
    CALL(f, "+OK", set, V("s:k"), V("v1"), NULL);
    CALL(f, "v1", get, V("s:k"));
    const example_set_opts nx = {.condition = EXAMPLE_SET_CONDITION_NX};
    CALL(f, "(nil)", set, V("s:k"), V("v2"), &nx);
    const example_set_opts xx_get = {.condition = EXAMPLE_SET_CONDITION_XX, .get = true};
    CALL(f, "v1", set, V("s:k"), V("v3"), &xx_get);
    CALL(f, "v3", get, V("s:k"));
    const example_set_opts ex = {
        .expiration = {.kind = EXAMPLE_SET_EXPIRATION_SECONDS, .seconds = 100}};
    CALL(f, "+OK", set, V("s:ttl"), V("x"), &ex);
    const char *ttl[] = {"TTL", "s:ttl"};
    char out[64];
    assert_int_equal(test_conn_command(&f->conn, out, sizeof out, 2, ttl), 0);
    const long t = strtol(out + 1, NULL, 10);
    assert_true(out[0] == ':' && t > 90 && t <= 100);
    const example_set_opts keep = {.expiration = {.kind = EXAMPLE_SET_EXPIRATION_KEEPTTL}};
    CALL(f, "+OK", set, V("s:ttl"), V("y"), &keep);
    const example_set_opts pxat = {
        .expiration = {.kind = EXAMPLE_SET_EXPIRATION_UNIX_TIME_MILLISECONDS,
                       .unix_time_milliseconds = INT64_C(4102444800000)}};
    CALL(f, "+OK", set, V("s:at"), V("z"), &pxat);
    CALL(f, ":-5", incrby, V("s:n"), -5);
    CALL(f, ":9223372036854775802", incrby, V("s:n"), INT64_MAX);
    CALL(f, "-ERR increment or decrement would overflow", incrby, V("s:n"), 10);
    /* Binary-safe: CR, LF and NUL inside keys and values. */
    CALL(f, "+OK", set, V("s:\r\nbin\0"), V("a\r\n\0b"), NULL);
    CALL(f, "a\r\n\0b", get, V("s:\r\nbin\0"));
}

static void hashes_and_many_keys(void **state) {
    fixture *f = *state;
    enum { PAIRS = 500 };
    static char names[PAIRS][16], values[PAIRS][16];
    static example_hset_data data[PAIRS];
    static example_mset_data kv[PAIRS];
    for (int i = 0; i < PAIRS; i++) {
        const int nf = snprintf(names[i], sizeof names[i], "f%d", i);
        const int nv = snprintf(values[i], sizeof values[i], "%d", i * 7);
        data[i] = (example_hset_data){{names[i], (size_t)nf}, {values[i], (size_t)nv}};
        kv[i] = (example_mset_data){{names[i], (size_t)nf}, {values[i], (size_t)nv}};
    }
    CALL(f, ":500", hset, V("h"), data, PAIRS);
    CALL(f, ":0", hset, V("h"), data, 10);
    const char *hget[] = {"HGET", "h", "f499"};
    char out[64];
    assert_int_equal(test_conn_command(&f->conn, out, sizeof out, 3, hget), 0);
    assert_string_equal(out, "3493");
    CALL(f, "+OK", mset, kv, PAIRS);
    CALL(f, "2471", get, V("f353"));
    const rg_view keys[] = {V("f1"), V("f2"), V("missing"), V("h")};
    CALL(f, ":3", del, keys, 4);
    /* A required multiple argument with no elements cannot be encoded. */
    assert_int_equal(example_del_size(keys, 0), 0);
    assert_int_equal(example_mset_size(kv, 0), 0);
}

static void sorted_sets_and_sort(void **state) {
    fixture *f = *state;
    const example_zadd_data members[] = {
        {1.5, V("a")}, {-2.25, V("b")}, {1e10, V("c")}, {0.1, V("d")}};
    CALL(f, ":4", zadd, V("z"), members, 4, NULL);
    const example_zadd_opts incr = {.condition = EXAMPLE_ZADD_CONDITION_XX, .increment = true};
    const example_zadd_data bump[] = {{0.2, V("d")}};
    CALL(f, "0.30000000000000004", zadd, V("z"), bump, 1, &incr);
    const example_zadd_opts gt_ch = {.comparison = EXAMPLE_ZADD_COMPARISON_GT, .change = true};
    const example_zadd_data lower[] = {{1.0, V("a")}, {5.0, V("b")}};
    CALL(f, ":1", zadd, V("z"), lower, 2, &gt_ch);
    CALL(f, "*[d,a,b]", zrangebyscore, V("z"), 0.0, 100.0, NULL);
    const example_zrangebyscore_opts lim = {
        .withscores = true, .has_limit = true, .limit = {.offset = 1, .count = 1}};
    CALL(f, "*[a,1.5]", zrangebyscore, V("z"), 0.0, 100.0, &lim);

    const char *rpush[] = {"RPUSH", "list", "3", "1", "2"};
    char out[128];
    assert_int_equal(test_conn_command(&f->conn, out, sizeof out, 5, rpush), 0);
    const char *weights[] = {"MSET", "w_1", "30",  "w_2", "10",  "w_3",  "20",
                             "o_1",  "one", "o_2", "two", "o_3", "three"};
    assert_int_equal(test_conn_command(&f->conn, out, sizeof out, 13, weights), 0);
    CALL(f, "*[1,2,3]", sort, V("list"), NULL);
    const rg_view gets[] = {V("#"), V("o_*")};
    const example_sort_opts by = {.by_pattern = V("w_*"),
                                  .get_pattern = gets,
                                  .get_pattern_count = 2,
                                  .order = EXAMPLE_SORT_ORDER_DESC};
    CALL(f, "*[1,one,3,three,2,two]", sort, V("list"), &by);
    const example_sort_opts store = {
        .has_limit = true, .limit = {0, 2}, .sorting = true, .destination = V("sorted")};
    CALL(f, ":2", sort, V("list"), &store);
}

static void keys_geo_client_ping(void **state) {
    fixture *f = *state;
    CALL(f, "+OK", set, V("e"), V("1"), NULL);
    CALL(f, ":1", expire, V("e"), 100, NULL);
    const example_expire_opts nx = {.condition = EXAMPLE_EXPIRE_CONDITION_NX};
    CALL(f, ":0", expire, V("e"), 50, &nx);
    const example_expire_opts gt = {.condition = EXAMPLE_EXPIRE_CONDITION_GT};
    CALL(f, ":1", expire, V("e"), 500, &gt);

    const char *geoadd[] = {"GEOADD",  "g",         "13.361389", "38.115556",
                            "Palermo", "15.087269", "37.502669", "Catania"};
    char out[256];
    assert_int_equal(test_conn_command(&f->conn, out, sizeof out, 8, geoadd), 0);
    assert_string_equal(out, ":2");

    const example_geosearch_from palermo = {.kind = EXAMPLE_GEOSEARCH_FROM_MEMBER,
                                            .member = V("Palermo")};
    const example_geosearch_by circle = {
        .kind = EXAMPLE_GEOSEARCH_BY_CIRCLE,
        .circle = {.radius = 200, .unit = EXAMPLE_GEOSEARCH_CIRCLE_UNIT_KM}};
    const example_geosearch_opts asc = {.order = EXAMPLE_GEOSEARCH_ORDER_ASC};
    CALL(f, "*[Palermo,Catania]", geosearch, V("g"), palermo, circle, &asc);
    const example_geosearch_from point = {.kind = EXAMPLE_GEOSEARCH_FROM_FROMLONLAT,
                                          .fromlonlat = {15.0, 37.5}};
    const example_geosearch_by box = {
        .kind = EXAMPLE_GEOSEARCH_BY_BOX,
        .box = {.width = 100, .height = 100, .unit = EXAMPLE_GEOSEARCH_BOX_UNIT_KM}};
    const example_geosearch_opts one = {.has_count_block = true, .count_block = {1, true}};
    CALL(f, "*[Catania]", geosearch, V("g"), point, box, &one);
    /* A required oneof left at NONE is refused rather than encoded. */
    const example_geosearch_by nothing = {.kind = EXAMPLE_GEOSEARCH_BY_NONE};
    assert_int_equal(example_geosearch_size(V("g"), palermo, nothing, NULL), 0);

    const example_client_kill_new_format filters[] = {
        {.kind = EXAMPLE_CLIENT_KILL_NEW_FORMAT_CLIENT_ID, .client_id = 999999},
        {.kind = EXAMPLE_CLIENT_KILL_NEW_FORMAT_SKIPME, .skipme = EXAMPLE_CLIENT_KILL_SKIPME_YES},
    };
    const example_client_kill_filter by_id = {.kind = EXAMPLE_CLIENT_KILL_FILTER_NEW_FORMAT,
                                              .new_format = filters,
                                              .new_format_count = 2};
    CALL(f, ":0", client_kill, by_id);
    const example_client_kill_filter by_addr = {.kind = EXAMPLE_CLIENT_KILL_FILTER_OLD_FORMAT,
                                                .old_format = V("127.0.0.1:1")};
    CALL(f, "-ERR No such client", client_kill, by_addr);

    const example_ping_opts hello = {.message = V("hello")};
    CALL(f, "hello", ping, &hello);
    CALL(f, "+PONG", ping, NULL);
}

/* The iovec variant sends the same bytes through writev, payloads straight from the caller. */
static void iovec_variant(void **state) {
    fixture *f = *state;
    static char big[1 << 20];
    for (size_t i = 0; i < sizeof big; i++) big[i] = (char)(i * 31);
    const rg_view value = {big, sizeof big};
    const size_t count = example_set_iov_count(V("big"), value, NULL);
    const size_t scratch_size = example_set_scratch_size(V("big"), value, NULL);
    assert_true(count > 0 && count <= EXAMPLE_SET_IOV_MAX);
    rg_iov iov[EXAMPLE_SET_IOV_MAX];
    char scratch[EXAMPLE_SET_SCRATCH_MAX];
    assert_true(scratch_size <= sizeof scratch);
    assert_int_equal(
        example_set_encode_iov(iov, count, scratch, scratch_size, V("big"), value, NULL), count);
    size_t total = 0;
    bool referenced = false;
    for (size_t i = 0; i < count; i++) {
        total += iov[i].len;
        referenced |= iov[i].base == big;
    }
    assert_true(referenced); /* the 1 MiB value was not copied */
    assert_int_equal(total, example_set_size(V("big"), value, NULL));
    assert_int_equal(writev(f->conn.fd, (const struct iovec *)iov, (int)count), (ssize_t)total);
    char out[64];
    assert_int_equal(test_conn_reply(&f->conn, out, sizeof out), 0);
    assert_string_equal(out, "+OK");
    const char *strlen_[] = {"STRLEN", "big"};
    assert_int_equal(test_conn_command(&f->conn, out, sizeof out, 2, strlen_), 0);
    assert_string_equal(out, ":1048576");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(strings),
        cmocka_unit_test(hashes_and_many_keys),
        cmocka_unit_test(sorted_sets_and_sort),
        cmocka_unit_test(keys_geo_client_ping),
        cmocka_unit_test(iovec_variant),
    };
    return cmocka_run_group_tests(tests, test_fixture_setup, test_fixture_teardown);
}
