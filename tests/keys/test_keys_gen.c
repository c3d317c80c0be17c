/* The generated routing tables (<stem>_keys.h/.c, gen/lua/emit_keys.lua) of specs/example.lua and
 * specs/redis.lua: calls encoded by the generated encoders, their key positions and slots; the
 * lookups by name and argv; the generated redis tables field for field against the hand-written
 * ones of cmd_specs.h (which test_keys_redis checks against a live server). */
#include "cmd_specs.h"
#include "example.h"
#include "example_keys.h"
#include "redis.h"
#include "redis_keys.h"
#include "rg_keys.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#define V(s) RG_LIT(s)

enum { ARGV_CAP = 32, POS_CAP = 16 };

/* The keys of an encoded call, as views, and their status. */
typedef struct found {
    size_t n;
    size_t pos[POS_CAP];
    rg_error e;
    rg_view argv[ARGV_CAP];
} found;

static void expect_positions(const found *f, rg_status st, size_t n, const size_t *want) {
    assert_int_equal(f->e.status, st);
    assert_int_equal(f->n, n);
    for (size_t i = 0; i < n; i++) assert_int_equal(f->pos[i], want[i]);
}

static void example_mset(void **state) {
    (void)state;
    const example_mset_data same[] = {
        {V("{user1000}.a"), V("1")}, {V("{user1000}.b"), V("2")}, {V("{user1000}.c"), V("3")}};
    char req[256];
    const size_t len = example_mset_encode(req, sizeof req, same, 3);
    assert_true(len > 0);
    found f;
    f.n = example_keys_of_request(req, len, f.argv, ARGV_CAP, f.pos, POS_CAP, &f.e);
    expect_positions(&f, RG_OK, 3, (const size_t[]){1, 3, 5});
    assert_memory_equal(f.argv[f.pos[2]].ptr, "{user1000}.c", 12);
    assert_int_equal(example_slot_of_request(req, len, f.argv, ARGV_CAP), 3443);
    assert_int_equal(rg_slot_of_key("user1000", 8), 3443);

    const example_mset_data spread[] = {{V("foo"), V("1")}, {V("bar"), V("2")}};
    const size_t len2 = example_mset_encode(req, sizeof req, spread, 2);
    assert_int_equal(example_slot_of_request(req, len2, f.argv, ARGV_CAP), RG_SLOT_CROSS);
    /* A size query: no room for positions, the count all the same. */
    f.n = example_keys_of_request(req, len2, f.argv, ARGV_CAP, NULL, 0, &f.e);
    assert_int_equal(f.n, 2);
    assert_int_equal(f.e.status, RG_OK);
}

static void example_others(void **state) {
    (void)state;
    char req[256];
    rg_view argv[ARGV_CAP];
    size_t len = example_get_encode(req, sizeof req, V("foo"));
    assert_int_equal(example_slot_of_request(req, len, argv, ARGV_CAP), 12182);
    len = example_ping_encode(req, sizeof req, NULL);
    assert_int_equal(example_slot_of_request(req, len, argv, ARGV_CAP), RG_SLOT_NONE);
    /* SORT has unknown specs (BY, GET, STORE): the key found is reported, the slot is not. */
    found f;
    len = example_sort_encode(req, sizeof req, V("list"), NULL);
    f.n = example_keys_of_request(req, len, f.argv, ARGV_CAP, f.pos, POS_CAP, &f.e);
    expect_positions(&f, RG_INCOMPLETE, 1, (const size_t[]){1});
    assert_int_equal(example_slot_of_request(req, len, argv, ARGV_CAP), RG_SLOT_UNKNOWN);
    /* DEL k1 k2 k3 in one slot; a subcommand without key specs: no keys. */
    const rg_view keys[] = {V("a{t}"), V("b{t}"), V("{t}c")};
    len = example_del_encode(req, sizeof req, keys, 3);
    assert_int_equal(example_slot_of_request(req, len, argv, ARGV_CAP), rg_slot_of_key("t", 1));
    const example_client_kill_filter kill = {.kind = EXAMPLE_CLIENT_KILL_FILTER_OLD_FORMAT,
                                             .old_format = V("1.2.3.4:5")};
    len = example_client_kill_encode(req, sizeof req, kill);
    f.n = example_keys_of_request(req, len, f.argv, ARGV_CAP, f.pos, POS_CAP, &f.e);
    expect_positions(&f, RG_OK, 0, NULL);
}

static void bad_requests(void **state) {
    (void)state;
    found f;
    /* Not one encoded call. */
    f.n = example_keys_of_request("GET foo\r\n", 9, f.argv, ARGV_CAP, f.pos, POS_CAP, &f.e);
    expect_positions(&f, RG_INVALID, 0, NULL);
    assert_int_equal(example_slot_of_request("*1\r\n", 4, f.argv, ARGV_CAP), RG_SLOT_UNKNOWN);
    /* A command the spec does not have: ask the server. */
    const char *unknown = "*2\r\n$4\r\nNOPE\r\n$1\r\nk\r\n";
    f.n = example_keys_of_request(unknown, strlen(unknown), f.argv, ARGV_CAP, f.pos, POS_CAP, &f.e);
    expect_positions(&f, RG_INCOMPLETE, 0, NULL);
    assert_int_equal(example_slot_of_request(unknown, strlen(unknown), f.argv, ARGV_CAP),
                     RG_SLOT_UNKNOWN);
    /* Too little room for the arguments. */
    char req[256];
    const example_mset_data kv[] = {{V("a"), V("1")}, {V("b"), V("2")}};
    const size_t len = example_mset_encode(req, sizeof req, kv, 2);
    f.n = example_keys_of_request(req, len, f.argv, 4, f.pos, POS_CAP, &f.e);
    expect_positions(&f, RG_INCOMPLETE, 0, NULL);
    assert_int_equal(rg_request_argv(req, len, NULL, 0), 5);
    f.n = example_keys_of_request(req, len, f.argv, 5, f.pos, POS_CAP, &f.e);
    expect_positions(&f, RG_OK, 2, (const size_t[]){1, 3});
    /* The wrong arity for the specs: MSET with a key and no value. */
    const char *odd = "*2\r\n$4\r\nMSET\r\n$1\r\nk\r\n";
    f.n = example_keys_of_request(odd, strlen(odd), f.argv, ARGV_CAP, f.pos, POS_CAP, &f.e);
    assert_int_equal(f.e.status, RG_OK); /* lastkey -1, step 2: k alone is the one key */
    assert_int_equal(f.n, 1);
}

static void lookups(void **state) {
    (void)state;
    const example_keys_entry *e = example_keys_lookup("client kill", 11);
    assert_non_null(e);
    assert_int_equal(e - example_keys_table, EXAMPLE_KEYS_CMD_CLIENT_KILL);
    assert_null(e->specs);
    assert_int_equal(e->count, 0);
    e = example_keys_lookup("mSeT", 4);
    assert_ptr_equal(e, &example_keys_table[EXAMPLE_KEYS_CMD_MSET]);
    assert_int_equal(e->count, 1);
    assert_int_equal(e->specs[0].step, 2);
    assert_null(example_keys_lookup("MSE", 3));
    assert_null(example_keys_lookup("MSETX", 5));
    assert_null(example_keys_lookup("MSET\0", 5));
    assert_null(example_keys_lookup("", 0));
    assert_null(example_keys_lookup("CLIENT", 6));
    const rg_view sub[] = {V("Client"), V("KILL"), V("1.2.3.4:5")};
    assert_ptr_equal(example_keys_command(3, sub),
                     &example_keys_table[EXAMPLE_KEYS_CMD_CLIENT_KILL]);
    assert_null(example_keys_command(1, sub));
    assert_null(example_keys_command(0, sub));
    const rg_view get[] = {V("get"), V("kill")};
    assert_ptr_equal(example_keys_command(2, get), &example_keys_table[EXAMPLE_KEYS_CMD_GET]);
    /* Every entry is found by its own name, in strictly increasing order. */
    for (size_t i = 0; i < EXAMPLE_KEYS_CMD_COUNT; i++) {
        const char *name = example_keys_table[i].name;
        assert_ptr_equal(example_keys_lookup(name, strlen(name)), &example_keys_table[i]);
        if (i > 0) assert_true(strcmp(example_keys_table[i - 1].name, name) < 0);
    }
    for (size_t i = 0; i < REDIS_KEYS_CMD_COUNT; i++) {
        const char *name = redis_keys_table[i].name;
        assert_ptr_equal(redis_keys_lookup(name, strlen(name)), &redis_keys_table[i]);
        if (i > 0) assert_true(strcmp(redis_keys_table[i - 1].name, name) < 0);
        assert_true((redis_keys_table[i].specs == NULL) == (redis_keys_table[i].count == 0));
    }
}

/* The reference: a linear scan, each name compared with the word by its length and caselessly. */
static const redis_keys_entry *linear_lookup(const char *w, size_t n) {
    for (size_t i = 0; i < REDIS_KEYS_CMD_COUNT; i++) {
        const char *name = redis_keys_table[i].name;
        if (strlen(name) != n) continue;
        size_t j = 0;
        while (j < n && name[j] == (w[j] >= 'a' && w[j] <= 'z' ? w[j] - 32 : w[j])) j++;
        if (j == n) return &redis_keys_table[i];
    }
    return NULL;
}

/* Random words near the names (a name, changed in one byte, cut, lengthened, with NUL and high
 * bytes) looked up by binary search and by the reference. */
static void lookup_random(void **state) {
    (void)state;
    uint64_t x = 0x9E3779B97F4A7C15u;
    size_t hits = 0;
    for (int round = 0; round < 200000; round++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        const char *name = redis_keys_table[x % REDIS_KEYS_CMD_COUNT].name;
        char w[48];
        size_t n = strlen(name);
        memcpy(w, name, n);
        const unsigned what = (unsigned)(x >> 20) % 5, at = (unsigned)(x >> 28) % (unsigned)n;
        static const char bytes[] = {' ', '-', '_', '\0', 'a', 'z', 'A', 'Z', '\x80', '\xff'};
        if (what == 0) w[at] = bytes[(x >> 36) % sizeof bytes];
        if (what == 1) n = at;
        if (what == 2) w[n++] = bytes[(x >> 36) % sizeof bytes];
        if (what == 3) w[at] = (char)(w[at] >= 'A' && w[at] <= 'Z' ? w[at] + 32 : w[at]);
        const redis_keys_entry *got = redis_keys_lookup(w, n);
        assert_ptr_equal(got, linear_lookup(w, n));
        hits += got != NULL;
    }
    assert_true(hits > 50000);
}

static void same_spec(const rg_keyspec *a, const rg_keyspec *b) {
    assert_int_equal(a->flags, b->flags);
    assert_int_equal(a->begin, b->begin);
    assert_int_equal(a->find, b->find);
    assert_int_equal(a->index, b->index);
    assert_int_equal(a->startfrom, b->startfrom);
    assert_int_equal(a->lastkey, b->lastkey);
    assert_int_equal(a->limit, b->limit);
    assert_int_equal(a->keynumidx, b->keynumidx);
    assert_int_equal(a->firstkey, b->firstkey);
    assert_int_equal(a->step, b->step);
    assert_true((a->keyword == NULL) == (b->keyword == NULL));
    if (a->keyword) assert_string_equal(a->keyword, b->keyword);
}

/* The generated tables equal the hand-written ones, which a live server has confirmed. */
static void redis_tables(void **state) {
    (void)state;
    for (size_t i = 0; i < N_CMD_SPECS; i++) {
        const cmd_specs *want = &all_cmd_specs[i];
        const redis_keys_entry *got = redis_keys_lookup(want->name, strlen(want->name));
        assert_non_null(got);
        assert_int_equal(got->count, want->n);
        for (size_t j = 0; j < want->n; j++) same_spec(&got->specs[j], &want->specs[j]);
    }
}

static void redis_calls(void **state) {
    (void)state;
    char req[512];
    found f;
    /* EVAL script 2 k1 k2 arg: keys 3 and 4. */
    const redis_eval_opts eval = {.key = (const rg_view[]){V("{a}1"), V("{a}2")},
                                  .key_count = 2,
                                  .arg = (const rg_view[]){V("x")},
                                  .arg_count = 1};
    size_t len = redis_eval_encode(req, sizeof req, V("return 1"), &eval);
    f.n = redis_keys_of_request(req, len, f.argv, ARGV_CAP, f.pos, POS_CAP, &f.e);
    expect_positions(&f, RG_OK, 2, (const size_t[]){3, 4});
    assert_int_equal(redis_slot_of_request(req, len, f.argv, ARGV_CAP), rg_slot_of_key("a", 1));
    /* XREAD COUNT 1 STREAMS s1 s2 0 0: keys 4 and 5, the IDs are not keys. */
    const redis_xread_opts count = {.has_count = true, .count = 1};
    const redis_xread_streams streams = {.key = (const rg_view[]){V("s1"), V("s2")},
                                         .key_count = 2,
                                         .id = (const rg_view[]){V("0"), V("0")},
                                         .id_count = 2};
    len = redis_xread_encode(req, sizeof req, streams, &count);
    f.n = redis_keys_of_request(req, len, f.argv, ARGV_CAP, f.pos, POS_CAP, &f.e);
    expect_positions(&f, RG_OK, 2, (const size_t[]){4, 5});
    assert_int_equal(redis_slot_of_request(req, len, f.argv, ARGV_CAP), RG_SLOT_CROSS);
    /* OBJECT ENCODING key: a subcommand, its key at 2. */
    len = redis_object_encoding_encode(req, sizeof req, V("obj"));
    f.n = redis_keys_of_request(req, len, f.argv, ARGV_CAP, f.pos, POS_CAP, &f.e);
    expect_positions(&f, RG_OK, 1, (const size_t[]){2});
    /* MIGRATE host port "" db timeout KEYS k1 k2: the "" placeholder is no key; the KEYS spec is
     * incomplete. */
    const redis_migrate_key_selector none = {.kind = REDIS_MIGRATE_KEY_SELECTOR_EMPTY_STRING};
    const redis_migrate_opts keys = {.keys = (const rg_view[]){V("k1"), V("k2")}, .keys_count = 2};
    len = redis_migrate_encode(req, sizeof req, V("h"), 1, none, 0, 5, &keys);
    f.n = redis_keys_of_request(req, len, f.argv, ARGV_CAP, f.pos, POS_CAP, &f.e);
    expect_positions(&f, RG_INCOMPLETE, 2, (const size_t[]){7, 8});
    /* MSET with three pairs in one slot, through the redis tables too. */
    const redis_mset_data kv[] = {{V("{u}a"), V("1")}, {V("{u}b"), V("2")}, {V("{u}c"), V("3")}};
    len = redis_mset_encode(req, sizeof req, kv, 3);
    f.n = redis_keys_of_request(req, len, f.argv, ARGV_CAP, f.pos, POS_CAP, &f.e);
    expect_positions(&f, RG_OK, 3, (const size_t[]){1, 3, 5});
    assert_int_equal(redis_slot_of_request(req, len, f.argv, ARGV_CAP), rg_slot_of_key("u", 1));
}

/* The ids come from the one command list (REDIS_COMMANDS, redis.h): each names its own row. */
static void ids_from_command_list(void **state) {
    (void)state;
    assert_int_equal(REDIS_KEYS_CMD_COUNT, REDIS_NCOMMANDS);
#define ROW_NAMED(id, ID, cmd_name, cmd_arity, flags) \
    assert_string_equal(redis_keys_table[REDIS_KEYS_CMD_##ID].name, cmd_name);
    REDIS_COMMANDS(ROW_NAMED)
#undef ROW_NAMED
    assert_ptr_equal(redis_keys_lookup("CLIENT KILL", 11),
                     &redis_keys_table[REDIS_KEYS_CMD_CLIENT_KILL]);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(example_mset),  cmocka_unit_test(example_others),
        cmocka_unit_test(bad_requests),  cmocka_unit_test(lookups),
        cmocka_unit_test(redis_tables),  cmocka_unit_test(redis_calls),
        cmocka_unit_test(lookup_random), cmocka_unit_test(ids_from_command_list),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
