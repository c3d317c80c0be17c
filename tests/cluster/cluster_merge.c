/* The cluster client's fan-out merges (adapters/rg_cluster_client.h) on a real six-node cluster
 * that the test starts itself (tests/support/test_cluster.h), over RESP2 and RESP3:
 *
 * - a cross-slot MGET into the generated typed result: nils, an empty, a binary (CR, LF and NUL
 *   inside) and a long value, and a repeated key come back in key order, each view in the bytes
 *   the node sent (nothing rebuilt or copied into the arena); the raw result as one reply;
 * - DEL, EXISTS, TOUCH (MULTI_SHARD, AGG_SUM) and DBSIZE (ALL_SHARDS, AGG_SUM) into typed
 *   integers, taking no arena room;
 * - an error in one part (NOPERM from one master's ACL): the call ends with that error;
 * - no allocation per merged call (malloc, calloc and realloc counted through the linker, when
 *   the client is linked in statically on Linux).
 */
#include "rg_cluster_client.h"
#include "rg_enc.h"
#include "test_cluster.h"

#include "redis_keys.h"
#include "redis_reply.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* rg_cc_add_argv that must take the call: its index in the batch. */
static size_t add(rg_cc *cc, size_t argc, const rg_view *argv, const rg_rtable *table,
                  void *result) {
    size_t index = SIZE_MAX;
    assert_int_equal(rg_cc_add_argv(cc, argc, argv, table, result, &index), RG_OK);
    return index;
}

enum { BATCH = 256, ARENA = 1 << 18, NKEYS = 10, LONG = 3000 };

static const rg_cluster_commands CMDS = {redis_keys_table, REDIS_KEYS_CMD_COUNT, redis_keys_policy};

typedef struct fixture {
    test_cluster cluster;
    rg_cc_call calls[BATCH];
    char arena[ARENA];
    char long_value[LONG];
    char key[NKEYS][16];
} fixture;

#ifdef RG_COUNT_ALLOCS
/* Calls of the linked-in code (the client, the runtime, this test) to the allocator. */
static size_t allocs;
void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n) {
    allocs++;
    return __real_malloc(n);
}
void *__wrap_calloc(size_t n, size_t size) {
    allocs++;
    return __real_calloc(n, size);
}
void *__wrap_realloc(void *p, size_t n) {
    allocs++;
    return __real_realloc(p, n);
}
#endif

static rg_cc *client(fixture *f, int protocol) {
    rg_cc *cc = calloc(1, sizeof *cc);
    assert_non_null(cc);
    const rg_cc_config cfg = {.cmds = &CMDS,
                              .calls = f->calls,
                              .ncalls = BATCH,
                              .arena = f->arena,
                              .arena_cap = ARENA,
                              .protocol = protocol};
    const int r = rg_cc_init(cc, &cfg, "127.0.0.1", (uint16_t)f->cluster.node[0].port);
    if (r != 0) fprintf(stderr, "rg_cc_init: %s\n", cc->why);
    assert_int_equal(r, 0);
    return cc;
}

static void client_free(rg_cc *cc) {
    rg_cc_close(cc);
    free(cc);
}

static rg_view key(const fixture *f, size_t i) {
    return (rg_view){f->key[i], strlen(f->key[i])};
}

/* The values of keys 0..5 (6..9 are never set): an empty one, a binary one, a long one. */
static rg_view value(const fixture *f, size_t i) {
    static const char bin[] = "a\r\nb\0c\r";
    switch (i) {
    case 0: return RG_LIT("");
    case 1: return (rg_view){bin, sizeof bin - 1};
    case 2: return (rg_view){f->long_value, LONG};
    default: return (rg_view){f->key[i], strlen(f->key[i])};
    }
}

static bool in_arena(const fixture *f, const void *p) {
    return (uintptr_t)p >= (uintptr_t)f->arena && (uintptr_t)p < (uintptr_t)f->arena + ARENA;
}

static int group_setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    if (!f || test_cluster_start(&f->cluster) != 0) {
        free(f);
        return -1;
    }
    for (size_t i = 0; i < LONG; i++) f->long_value[i] = (char)('a' + i % 26);
    for (size_t i = 0; i < NKEYS; i++) snprintf(f->key[i], sizeof f->key[i], "merge:%zu", i);
    *state = f;
    return 0;
}

static int group_teardown(void **state) {
    fixture *f = *state;
    test_cluster_stop(&f->cluster);
    free(f);
    return 0;
}

/* Sets keys 0..5 with one cross-slot MSET. */
static void set_keys(rg_cc *cc, const fixture *f) {
    rg_view argv[1 + 2 * 6] = {RG_LIT("MSET")};
    for (size_t i = 0; i < 6; i++) {
        argv[1 + 2 * i] = key(f, i);
        argv[2 + 2 * i] = value(f, i);
    }
    rg_cc_begin(cc);
    const size_t m = add(cc, 13, argv, NULL, NULL);
    assert_int_equal(rg_cc_run(cc), 0);
    assert_true(rg_cc_get(cc, m)->nparts > 1);
}

static void assert_value(rg_view got, rg_view want) {
    assert_int_equal(got.len, want.len);
    if (want.len) assert_memory_equal(got.ptr, want.ptr, want.len);
}

/* MGET of keys in several slots, a nil and a repeat among them, typed and raw. */
static void mget_typed(fixture *f, int protocol) {
    rg_cc *cc = client(f, protocol);
    set_keys(cc, f);
    static const size_t order[] = {2, 7, 0, 1, 5, 2, 9, 3, 4, 8, 6};
    enum { N = sizeof order / sizeof order[0] };
    rg_view argv[1 + N] = {RG_LIT("MGET")};
    for (size_t i = 0; i < N; i++) argv[1 + i] = key(f, order[i]);
    rg_cc_begin(cc);
    redis_mget_result typed;
    rg_raw_result raw = {0};
    const size_t t = add(cc, 1 + N, argv, &redis_mget_reply_table, &typed);
    const size_t r = add(cc, 1 + N, argv, NULL, &raw);
    assert_int_equal(rg_cc_run(cc), 0);
    assert_true(rg_cc_get(cc, t)->nparts > 2);
    assert_int_equal(typed.value.count, N);
    for (size_t i = 0; i < N; i++) {
        const rg_view v = typed.value.items[i];
        if (order[i] >= 6) {
            assert_null(v.ptr);
            continue;
        }
        assert_value(v, value(f, order[i]));
        /* the view is in the node's reply: no reply text rebuilt in the arena */
        assert_false(in_arena(f, v.ptr));
    }
    assert_true(in_arena(f, typed.value.items));
    /* raw: one reply with the values in key order */
    size_t pos = 0;
    rg_reply_reader rr;
    rg_reply_reader_init(&rr, NULL);
    static char storage[4096];
    rg_reply_set_storage(&rr, storage, sizeof storage);
    redis_mget_result again;
    assert_int_equal(redis_mget_reply(&rr, raw.value.ptr, raw.value.len, &pos, &again), RG_OK);
    assert_int_equal(pos, raw.value.len);
    assert_int_equal(again.value.count, N);
    for (size_t i = 0; i < N; i++) assert_value(again.value.items[i], typed.value.items[i]);
    (void)r;
    client_free(cc);
}

static void test_mget_resp2(void **state) {
    mget_typed(*state, 2);
}

static void test_mget_resp3(void **state) {
    mget_typed(*state, 3);
}

/* Counts summed over the parts straight into typed integers: no arena room taken. */
static void counts_typed(fixture *f, int protocol) {
    rg_cc *cc = client(f, protocol);
    set_keys(cc, f);
    rg_view argv[1 + NKEYS];
    for (size_t i = 0; i < NKEYS; i++) argv[1 + i] = key(f, i);
    rg_cc_begin(cc);
    redis_exists_result exists = {-1};
    redis_touch_result touch = {-1};
    redis_dbsize_result dbsize = {-1};
    redis_del_result del = {-1};
    argv[0] = RG_LIT("EXISTS");
    const size_t e = add(cc, 1 + NKEYS, argv, &redis_exists_reply_table, &exists);
    argv[0] = RG_LIT("TOUCH");
    add(cc, 1 + NKEYS, argv, &redis_touch_reply_table, &touch);
    const rg_view dbsize_argv[] = {RG_LIT("DBSIZE")};
    add(cc, 1, dbsize_argv, &redis_dbsize_reply_table, &dbsize);
    argv[0] = RG_LIT("DEL");
    const size_t d = add(cc, 1 + NKEYS, argv, &redis_del_reply_table, &del);
    const size_t used = cc->arena_len;
    assert_int_equal(rg_cc_run(cc), 0);
    assert_true(rg_cc_get(cc, e)->nparts > 2 && rg_cc_get(cc, d)->nparts > 2);
    assert_int_equal(exists.value, 6);
    assert_int_equal(touch.value, 6);
    assert_true(dbsize.value >= 6);
    assert_int_equal(del.value, 6);
    assert_int_equal(cc->arena_len, used); /* the merged integers took no arena room */
    client_free(cc);
}

static void test_counts_resp2(void **state) {
    counts_typed(*state, 2);
}

static void test_counts_resp3(void **state) {
    counts_typed(*state, 3);
}

/* One master refuses some keys (ACL): the MGET and the EXISTS end with its error; the other
 * calls of the batch are untouched. */
static void test_part_error(void **state) {
    fixture *f = *state;
    rg_cc *cc = client(f, 3);
    set_keys(cc, f);
    const uint16_t owner =
        rg_cluster_map_owner(&cc->map, rg_slot_of_key(f->key[1], strlen(f->key[1])));
    const int port = cc->map.node[owner].port;
    char out[256];
    const char *acl[] = {"ACL", "SETUSER", "default", "resetkeys", "~merge:1"};
    assert_int_equal(test_cluster_command(port, out, sizeof out, 5, acl), 0);
    rg_view argv[1 + NKEYS] = {RG_LIT("MGET")};
    for (size_t i = 0; i < NKEYS; i++) argv[1 + i] = key(f, i);
    rg_cc_begin(cc);
    redis_mget_result mget;
    redis_exists_result exists;
    redis_get_result get;
    const size_t m = add(cc, 1 + NKEYS, argv, &redis_mget_reply_table, &mget);
    argv[0] = RG_LIT("EXISTS");
    const size_t e = add(cc, 1 + NKEYS, argv, &redis_exists_reply_table, &exists);
    const rg_view get_argv[] = {RG_LIT("GET"), key(f, 1)};
    const size_t g = add(cc, 2, get_argv, &redis_get_reply_table, &get);
    rg_cc_run(cc);
    const char *allkeys[] = {"ACL", "SETUSER", "default", "allkeys"};
    assert_int_equal(test_cluster_command(port, out, sizeof out, 4, allkeys), 0);
    for (size_t i = m; i <= e; i++) {
        assert_int_equal(rg_cc_get(cc, i)->status, RG_SERVER_ERROR);
        assert_non_null(strstr(rg_cc_get(cc, i)->error.ptr, "NOPERM"));
    }
    assert_int_equal(rg_cc_get(cc, g)->status, RG_OK);
    assert_value(get.value, value(f, 1));
    client_free(cc);
}

/* Batches of merged calls (typed and raw MGET, typed DEL, KEYS, DBSIZE) once every node is
 * connected: not one allocation. */
static void test_no_alloc(void **state) {
#ifdef RG_COUNT_ALLOCS
    fixture *f = *state;
    const size_t at_start = allocs;
    rg_cc *cc = client(f, 3);
    assert_true(allocs > at_start); /* (the counter sees the client's calloc) */
    rg_view argv[1 + NKEYS] = {RG_LIT("MGET")};
    for (size_t i = 0; i < NKEYS; i++) argv[1 + i] = key(f, i);
    const rg_view keys[] = {RG_LIT("KEYS"), RG_LIT("merge:*")}, dbsize[] = {RG_LIT("DBSIZE")};
    size_t before = 0;
    for (int round = 0; round < 3; round++) {
        set_keys(cc, f); /* (round 0: connects to every master) */
        if (round == 1) before = allocs;
        rg_cc_begin(cc);
        redis_mget_result mget;
        redis_keys_result k;
        redis_dbsize_result n;
        redis_del_result del;
        argv[0] = RG_LIT("MGET");
        add(cc, 1 + NKEYS, argv, &redis_mget_reply_table, &mget);
        add(cc, 1 + NKEYS, argv, NULL, NULL);
        add(cc, 2, keys, &redis_keys_reply_table, &k);
        add(cc, 1, dbsize, &redis_dbsize_reply_table, &n);
        argv[0] = RG_LIT("DEL");
        add(cc, 1 + NKEYS, argv, &redis_del_reply_table, &del);
        assert_int_equal(rg_cc_run(cc), 0);
        assert_int_equal(mget.value.count, NKEYS);
        assert_int_equal(k.value.count, 6);
        assert_int_equal(del.value, 6);
    }
    assert_int_equal(allocs, before);
    client_free(cc);
#else
    (void)state;
    skip();
#endif
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mget_resp2),   cmocka_unit_test(test_mget_resp3),
        cmocka_unit_test(test_counts_resp2), cmocka_unit_test(test_counts_resp3),
        cmocka_unit_test(test_part_error),   cmocka_unit_test(test_no_alloc),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
