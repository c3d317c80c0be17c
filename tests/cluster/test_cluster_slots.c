/* The slot a generated call computes from its keys for a cluster's front, against the bytes.
 *
 * Every command of specs/redis.lua, in its minimal and full forms (respgen --sample-calls with
 * --sample-keys: random keys, 3 elements per list), goes through its generated call on a front
 * (rg_conn_relay_init) whose relay keeps what it is handed. For each:
 *   - a slot the call computed (not RG_SLOT_UNKNOWN) equals rg_slot_of_request on the same bytes;
 *   - the route by descriptor (rg_cluster_route_known: the entry its id names, that slot) equals
 *     rg_cluster_route's on the bytes, for every call, named keys or not;
 *   - the descriptor's id names the command's entry in redis_keys_table.
 * Keys come from a small pool with hashtags, so multi-key calls share a slot or cross. */
#include "redis_keys.h"
#include "rg_cluster.h"
#include "rg_conn.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

static uint32_t rng = 12345;

static uint32_t next_rand(void) {
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

/* A key of the pool: same-slot groups by hashtag, plain keys, an empty key. */
static rg_view sample_key(void) {
    static const char *const pool[] = {"{u1}a", "{u1}b", "{u1}", "x{u1}y", "k1",    "k2",
                                       "k3",    "",      "{}z",  "{{a}}",  "a{b}c", "{b}"};
    const char *k = pool[next_rand() % (sizeof pool / sizeof pool[0])];
    return (rg_view){k, strlen(k)};
}

#include "redis_calls.h"

typedef struct captured {
    char bytes[1 << 16];
    size_t len;
    int slot;
    const rg_cmd *cmd;
    size_t calls;
} captured;

static uint64_t keep(void *ud, const rg_relayed *call) {
    captured *c = ud;
    assert_true(call->len <= sizeof c->bytes);
    memcpy(c->bytes, call->req, call->len);
    c->len = call->len;
    c->slot = call->slot;
    c->cmd = call->cmd;
    return ++c->calls;
}

static const rg_cluster_commands CMDS = {redis_keys_table, REDIS_KEYS_CMD_COUNT, redis_keys_policy};

/* Three masters over the slots, so that routes tell slots apart. */
static void three_masters(rg_cluster_map *m) {
    rg_cluster_map_init(m);
    for (uint16_t i = 0; i < 3; i++) {
        const uint16_t n = rg_cluster_map_node(m, RG_LIT("127.0.0.1"), (uint16_t)(7000 + i));
        m->node[n].role = RG_NODE_MASTER;
        m->node[n].healthy = true;
        m->node[n].master = n;
    }
    for (int s = 0; s < RG_CLUSTER_SLOTS; s++) m->slot[s] = (uint16_t)(s % 3);
}

static void test_generated_slots(void **state) {
    (void)state;
    static captured cap;
    static char out[1 << 16];
    static rg_cluster_map map;
    three_masters(&map);
    rg_conn front;
    rg_conn_relay_init(&front, out, sizeof out, keep, &cap);
    assert_true(rg_conn_relayed(&front));
    size_t named = 0, unknown = 0, cross = 0, total = 0;
    rg_view argv[256], argv2[256];
    for (int round = 0; round < 40; round++) {
        for (size_t i = 0; i < sizeof redis_sample_calls / sizeof redis_sample_calls[0]; i++) {
            const redis_sample_call *sc = &redis_sample_calls[i];
            if (!sc->call) continue;
            const size_t before = cap.calls;
            assert_int_equal(sc->call(&front), before + 1);
            total++;
            /* The descriptor's id is the command's entry. */
            assert_non_null(cap.cmd);
            assert_true(cap.cmd->id < REDIS_KEYS_CMD_COUNT);
            assert_string_equal(redis_keys_table[cap.cmd->id].name, cap.cmd->name);
            const int want = rg_slot_of_request(redis_keys_table, REDIS_KEYS_CMD_COUNT, cap.bytes,
                                                cap.len, argv, sizeof argv / sizeof argv[0]);
            if (cap.slot == RG_SLOT_UNKNOWN) {
                unknown++;
            } else {
                if (cap.slot != want)
                    fprintf(stderr, "%s (%s): call slot %d, bytes %d\n", sc->command, sc->form,
                            cap.slot, want);
                assert_int_equal(cap.slot, want);
                named++;
                cross += cap.slot == RG_SLOT_CROSS;
            }
            rg_route by_bytes, by_desc;
            rg_cluster_route(&map, &CMDS, cap.bytes, cap.len, argv, 256, 0, &by_bytes);
            rg_cluster_route_known(&map, &CMDS, &redis_keys_table[cap.cmd->id], cap.slot, cap.bytes,
                                   cap.len, argv2, 256, 0, &by_desc);
            if (by_bytes.kind != by_desc.kind || by_bytes.slot != by_desc.slot)
                fprintf(stderr, "%s (%s): route %s slot %d, by descriptor %s slot %d\n",
                        sc->command, sc->form, rg_route_kind_name(by_bytes.kind), by_bytes.slot,
                        rg_route_kind_name(by_desc.kind), by_desc.slot);
            assert_int_equal(by_desc.kind, by_bytes.kind);
            assert_int_equal(by_desc.slot, by_bytes.slot);
            assert_int_equal(by_desc.node, by_bytes.node);
            assert_int_equal(by_desc.response, by_bytes.response);
            assert_ptr_equal(by_desc.cmd, by_bytes.cmd);
        }
    }
    printf("%zu calls: %zu with the slot computed by the call (%zu cross-slot), %zu left to the "
           "bytes\n",
           total, named, cross, unknown);
    /* Most key-bearing commands name their keys (GET, SET, MGET, DEL, MSET, ...). */
    assert_true(named > total / 3);
    assert_true(cross > 0);
}

/* A socket connection is no front: the generated calls' slot code does not run there. */
static void test_socket_conn_is_no_front(void **state) {
    (void)state;
    static char in[256], out[256];
    static rg_call calls[4];
    const rg_conn_config cfg = {.in = in,
                                .in_cap = sizeof in,
                                .out = out,
                                .out_cap = sizeof out,
                                .calls = calls,
                                .ncalls = 4};
    rg_conn c;
    assert_int_equal(rg_conn_init(&c, &cfg), 0);
    assert_false(rg_conn_relayed(&c));
    assert_int_not_equal(redis_get_call(&c, RG_LIT("k"), NULL, NULL, NULL), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generated_slots),
        cmocka_unit_test(test_socket_conn_is_no_front),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
