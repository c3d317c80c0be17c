/* The slot map (rg_cluster.h) on hand-made CLUSTER SHARDS and CLUSTER SLOTS replies in RESP2 and
 * RESP3 (whole, every truncation, malformed), MOVED patches, stable node indices across refreshes,
 * and the routing of encoded calls by the generated key specs and command_tips policies of
 * specs/redis.lua. */
#include "rg_cluster.h"
#include "rg_enc.h"

#include "redis_keys.h"

#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* ---- building replies ---------------------------------------------------------------------- */

typedef struct buf {
    char b[8192];
    size_t n;
    int resp; /* 2 or 3 */
} buf;

static void put(buf *o, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    const int w = vsnprintf(o->b + o->n, sizeof o->b - o->n, fmt, ap);
    va_end(ap);
    assert_true(w > 0 && (size_t)w < sizeof o->b - o->n);
    o->n += (size_t)w;
}
static void arr(buf *o, int n) {
    put(o, "*%d\r\n", n);
}
static void map(buf *o, int pairs) {
    if (o->resp == 3)
        put(o, "%%%d\r\n", pairs);
    else
        put(o, "*%d\r\n", pairs * 2);
}
static void str(buf *o, const char *s) {
    put(o, "$%zu\r\n%s\r\n", strlen(s), s);
}
static void num(buf *o, long v) {
    put(o, ":%ld\r\n", v);
}

typedef struct node_desc {
    const char *endpoint;
    int port;
    bool master, online;
    int tls_port; /* 0: none listed */
} node_desc;

static void shard_node(buf *o, const node_desc *n) {
    map(o, n->tls_port ? 8 : 7);
    str(o, "id");
    str(o, "0123456789012345678901234567890123456789");
    str(o, "port");
    num(o, n->port);
    if (n->tls_port) {
        str(o, "tls-port");
        num(o, n->tls_port);
    }
    str(o, "ip");
    str(o, "127.0.0.1");
    str(o, "endpoint");
    str(o, n->endpoint);
    str(o, "role");
    str(o, n->master ? "master" : "replica");
    str(o, "replication-offset");
    num(o, 72156);
    str(o, "health");
    str(o, n->online ? "online" : "failed");
}

/* Three shards 0-5460, 5461-10922, 10923-16383 (the first also 16000 moved out: no, kept simple),
 * masters on 7000..7002 and replicas on 7003..7005 (replica of 7000+i on 7003+i). */
static void three_shards(buf *o, int resp, const char *endpoint) {
    o->n = 0;
    o->resp = resp;
    static const long ranges[3][2] = {{0, 5460}, {5461, 10922}, {10923, 16383}};
    arr(o, 3);
    for (int i = 0; i < 3; i++) {
        map(o, 2);
        str(o, "slots");
        arr(o, 2);
        num(o, ranges[i][0]);
        num(o, ranges[i][1]);
        str(o, "nodes");
        arr(o, 2);
        const node_desc m = {endpoint, 7000 + i, true, true, 0},
                        r = {endpoint, 7003 + i, false, true, 0};
        shard_node(o, &m);
        shard_node(o, &r);
    }
}

static const rg_view localhost = {"127.0.0.1", 9};

/* What a caller may read of a map: the fields before the private ones. */
#define PUBLIC_SIZE offsetof(rg_cluster_map, tls)

static uint16_t node_at(const rg_cluster_map *m, int port) {
    for (size_t i = 0; i < m->nnodes; i++)
        if (m->node[i].port == port) return (uint16_t)i;
    return RG_NODE_NONE;
}

/* ---- the map ------------------------------------------------------------------------------- */

static void check_three(const rg_cluster_map *m, const char *host) {
    assert_int_equal(rg_cluster_map_covered(m), RG_CLUSTER_SLOTS);
    assert_int_equal(m->node[rg_cluster_map_owner(m, 0)].port, 7000);
    assert_int_equal(m->node[rg_cluster_map_owner(m, 5460)].port, 7000);
    assert_int_equal(m->node[rg_cluster_map_owner(m, 5461)].port, 7001);
    assert_int_equal(m->node[rg_cluster_map_owner(m, 16383)].port, 7002);
    assert_string_equal(m->node[rg_cluster_map_owner(m, 0)].host, host);
    const uint16_t r = rg_cluster_map_replica(m, 6000, 0);
    assert_int_equal(m->node[r].port, 7004);
    assert_int_equal(m->node[r].role, RG_NODE_REPLICA);
    assert_int_equal(m->node[r].master, node_at(m, 7001));
    assert_int_equal(m->node[node_at(m, 7000)].slots, 5461);
    assert_int_equal(m->node[node_at(m, 7001)].slots, 5462);
    assert_int_equal(m->node[node_at(m, 7002)].slots, 5461);
    assert_int_equal(m->node[r].slots, 0);
}

static void test_shards(void **state) {
    (void)state;
    static rg_cluster_map m;
    buf o;
    for (int resp = 2; resp <= 3; resp++) {
        rg_cluster_map_init(&m);
        three_shards(&o, resp, "127.0.0.1");
        assert_int_equal(rg_cluster_map_from_shards(&m, o.b, o.n, RG_LIT("x")), RG_OK);
        assert_int_equal(m.epoch, 1);
        assert_int_equal(m.nnodes, 6);
        check_three(&m, "127.0.0.1");
        /* An empty or "?" endpoint is the node asked. */
        three_shards(&o, resp, "");
        rg_cluster_map_init(&m);
        assert_int_equal(rg_cluster_map_from_shards(&m, o.b, o.n, RG_LIT("10.0.0.9")), RG_OK);
        check_three(&m, "10.0.0.9");
        three_shards(&o, resp, "?");
        rg_cluster_map_init(&m);
        assert_int_equal(rg_cluster_map_from_shards(&m, o.b, o.n, localhost), RG_OK);
        check_three(&m, "127.0.0.1");
    }
}

/* One shard whose master lists a TLS port and whose replica does not: a map for TLS takes the TLS
 * port where there is one, the plain port else; a plain map ignores it. */
static void test_shards_tls_ports(void **state) {
    (void)state;
    static rg_cluster_map m;
    buf o;
    for (int resp = 2; resp <= 3; resp++) {
        for (int tls = 0; tls <= 1; tls++) {
            o.n = 0;
            o.resp = resp;
            arr(&o, 1);
            map(&o, 2);
            str(&o, "slots");
            arr(&o, 2);
            num(&o, 0);
            num(&o, 16383);
            str(&o, "nodes");
            arr(&o, 2);
            const node_desc mn = {"127.0.0.1", 7000, true, true, 8000},
                            rn = {"127.0.0.1", 7001, false, true, 0};
            shard_node(&o, &mn);
            shard_node(&o, &rn);
            rg_cluster_map_init(&m);
            m.tls = tls;
            assert_int_equal(rg_cluster_map_from_shards(&m, o.b, o.n, localhost), RG_OK);
            assert_int_equal(m.node[rg_cluster_map_owner(&m, 0)].port, tls ? 8000 : 7000);
            assert_int_equal(m.node[rg_cluster_map_replica(&m, 0, 0)].port, 7001);
        }
    }
    /* a tls-port that is not a number */
    o.n = 0;
    o.resp = 3;
    put(&o, "*1\r\n%%2\r\n$5\r\nslots\r\n*2\r\n:0\r\n:16383\r\n$5\r\nnodes\r\n*1\r\n"
            "%%2\r\n$4\r\nport\r\n:7000\r\n$8\r\ntls-port\r\n$1\r\nx\r\n");
    rg_cluster_map_init(&m);
    assert_int_equal(rg_cluster_map_from_shards(&m, o.b, o.n, localhost), RG_MISMATCH);
    assert_non_null(strstr(rg_cluster_map_error(&m).msg.ptr, "tls-port is not a number"));
}

/* Every prefix of a good reply, and every reply with one byte changed, fails or decodes without
 * touching memory it should not; a failure leaves the map as it was. */
static void test_shards_truncated_and_mangled(void **state) {
    (void)state;
    static rg_cluster_map m, before;
    buf o;
    for (int resp = 2; resp <= 3; resp++) {
        three_shards(&o, resp, "127.0.0.1");
        rg_cluster_map_init(&m);
        assert_int_equal(rg_cluster_map_from_shards(&m, o.b, o.n, localhost), RG_OK);
        for (size_t cut = 0; cut < o.n; cut++) {
            memcpy(&before, &m, sizeof m);
            assert_int_equal(rg_cluster_map_from_shards(&m, o.b, cut, localhost), RG_MISMATCH);
            assert_memory_equal(m.slot, before.slot, sizeof m.slot);
            assert_int_equal(m.epoch, before.epoch);
            assert_int_equal(rg_cluster_map_error(&m).status, RG_MISMATCH);
            assert_true(rg_cluster_map_error(&m).msg.len > 0);
        }
        srand(7);
        for (int i = 0; i < 3000; i++) {
            buf x = o;
            x.b[(size_t)rand() % x.n] = (char)rand();
            memcpy(&before, &m, sizeof m);
            if (rg_cluster_map_from_shards(&m, x.b, x.n, localhost) != RG_OK)
                assert_memory_equal(&m, &before, PUBLIC_SIZE); /* slots, nodes, epoch */
            for (size_t s = 0; s < RG_CLUSTER_SLOTS; s++)
                assert_true(m.slot[s] == RG_NODE_NONE || m.slot[s] < m.nnodes);
        }
    }
}

/* A malformed reply that names new nodes adds none of them: a node that sends such replies cannot
 * fill the table (RG_CLUSTER_MAX_NODES) and make every later refresh fail RG_FULL. */
static void test_failed_refresh_adds_no_node(void **state) {
    (void)state;
    static rg_cluster_map m, before;
    buf o;
    three_shards(&o, 2, "127.0.0.1");
    rg_cluster_map_init(&m);
    assert_int_equal(rg_cluster_map_from_shards(&m, o.b, o.n, localhost), RG_OK);
    for (int i = 0; i < 2 * RG_CLUSTER_MAX_NODES; i++) {
        buf x = {.resp = 2};
        arr(&x, 1);
        map(&x, 2);
        str(&x, "slots");
        arr(&x, 2);
        num(&x, 0);
        num(&x, 10);
        str(&x, "nodes");
        arr(&x, 1);
        const node_desc n = {"10.9.9.9", 20000 + i, true, true, 0};
        shard_node(&x, &n);
        put(&x, "+trailing\r\n");
        memcpy(&before, &m, sizeof m);
        assert_int_equal(rg_cluster_map_from_shards(&m, x.b, x.n, localhost), RG_MISMATCH);
        assert_memory_equal(&m, &before, PUBLIC_SIZE);
        /* the same node through CLUSTER SLOTS: [[0, 10, ["10.9.9.9", port, id]]] + trailing */
        x.n = 0;
        put(&x, "*1\r\n*3\r\n:0\r\n:10\r\n*3\r\n");
        str(&x, "10.9.9.9");
        num(&x, 20000 + i);
        str(&x, "0123456789012345678901234567890123456789");
        put(&x, "+trailing\r\n");
        assert_int_equal(rg_cluster_map_from_slots(&m, x.b, x.n, localhost), RG_MISMATCH);
        assert_memory_equal(&m, &before, PUBLIC_SIZE);
    }
    assert_int_equal(rg_cluster_map_from_shards(&m, o.b, o.n, localhost), RG_OK);
    assert_int_equal(m.nnodes, 6);
}

static void test_shards_rejects(void **state) {
    (void)state;
    static rg_cluster_map m;
    buf o = {.resp = 2};
    rg_cluster_map_init(&m);
    /* Overlapping shards. */
    arr(&o, 2);
    for (int i = 0; i < 2; i++) {
        map(&o, 2);
        str(&o, "slots");
        arr(&o, 2);
        num(&o, 100 * i);
        num(&o, 150);
        str(&o, "nodes");
        arr(&o, 1);
        const node_desc n = {"h", 7000 + i, true, true, 0};
        shard_node(&o, &n);
    }
    assert_int_equal(rg_cluster_map_from_shards(&m, o.b, o.n, localhost), RG_MISMATCH);
    assert_non_null(strstr(rg_cluster_map_error(&m).msg.ptr, "served twice"));
    assert_int_equal(m.epoch, 0);
    assert_int_equal(rg_cluster_map_covered(&m), 0);
    /* A slot out of range, an error reply, trailing bytes. */
    o.n = 0;
    arr(&o, 1);
    map(&o, 1);
    str(&o, "slots");
    arr(&o, 2);
    num(&o, 0);
    num(&o, 16384);
    assert_int_equal(rg_cluster_map_from_shards(&m, o.b, o.n, localhost), RG_MISMATCH);
    assert_int_equal(rg_cluster_map_from_shards(&m, "-ERR no\r\n", 9, localhost), RG_MISMATCH);
    assert_int_equal(rg_cluster_map_from_shards(&m, "*0\r\n+x\r\n", 8, localhost), RG_MISMATCH);
    /* An empty reply is a map with no slot served. */
    assert_int_equal(rg_cluster_map_from_shards(&m, "*0\r\n", 4, localhost), RG_OK);
    assert_int_equal(rg_cluster_map_covered(&m), 0);
}

/* A refresh keeps node indices; a node missing from it is GONE; a failed master is replaced by
 * the online one of its shard. */
static void test_refresh_and_moved(void **state) {
    (void)state;
    static rg_cluster_map m;
    buf o;
    rg_cluster_map_init(&m);
    three_shards(&o, 2, "127.0.0.1");
    assert_int_equal(rg_cluster_map_from_shards(&m, o.b, o.n, localhost), RG_OK);
    const uint16_t n7001 = node_at(&m, 7001), n7004 = node_at(&m, 7004);
    /* Failover: 7004 master of 5461-10922, 7001 failed replica; 7002/7005 shard gone. */
    o.n = 0;
    o.resp = 3;
    arr(&o, 1);
    map(&o, 2);
    str(&o, "slots");
    arr(&o, 2);
    num(&o, 5461);
    num(&o, 10922);
    str(&o, "nodes");
    arr(&o, 2);
    const node_desc a = {"127.0.0.1", 7001, true, false, 0}, b = {"127.0.0.1", 7004, true, true, 0};
    shard_node(&o, &a);
    shard_node(&o, &b);
    assert_int_equal(rg_cluster_map_from_shards(&m, o.b, o.n, localhost), RG_OK);
    assert_int_equal(m.epoch, 2);
    assert_int_equal(node_at(&m, 7001), n7001);
    assert_int_equal(rg_cluster_map_owner(&m, 6000), n7004);
    assert_int_equal(rg_cluster_map_owner(&m, 0), RG_NODE_NONE);
    assert_int_equal(m.node[node_at(&m, 7002)].role, RG_NODE_GONE);
    assert_int_equal(rg_cluster_map_covered(&m), 10922 - 5461 + 1);
    /* MOVED: a new node, then the empty host of the node asked. */
    const uint16_t x = rg_cluster_map_moved(&m, 42, RG_LIT("10.1.1.1"), 7777, localhost);
    assert_int_equal(rg_cluster_map_owner(&m, 42), x);
    assert_int_equal(m.node[x].role, RG_NODE_MASTER);
    assert_int_equal(m.epoch, 3);
    assert_int_equal(rg_cluster_map_moved(&m, 43, RG_LIT(""), 7004, localhost), n7004);
    assert_int_equal(rg_cluster_map_moved(&m, 16384, RG_LIT("h"), 1, localhost), RG_NODE_NONE);
    /* the slots each serves follow (42 and 43 were uncovered) */
    assert_int_equal(m.node[x].slots, 1);
    assert_int_equal(m.node[n7004].slots, 10922 - 5461 + 2);
    assert_int_equal(rg_cluster_map_moved(&m, 6000, RG_LIT(""), 7777, RG_LIT("10.1.1.1")), x);
    assert_int_equal(m.node[x].slots, 2);
    assert_int_equal(m.node[n7004].slots, 10922 - 5461 + 1);
}

static void test_slots(void **state) {
    (void)state;
    static rg_cluster_map m;
    buf o = {.resp = 2};
    /* Redis' CLUSTER SLOTS: [start, end, [host, port, id, {meta}], [replica ...]]. */
    arr(&o, 2);
    arr(&o, 4);
    num(&o, 0);
    num(&o, 8191);
    arr(&o, 3);
    str(&o, "127.0.0.1");
    num(&o, 7000);
    str(&o, "id0");
    arr(&o, 4);
    str(&o, "");
    num(&o, 7002);
    str(&o, "id2");
    arr(&o, 0);
    arr(&o, 3);
    num(&o, 8192);
    num(&o, 16383);
    arr(&o, 3);
    str(&o, "?");
    num(&o, 7001);
    str(&o, "id1");
    rg_cluster_map_init(&m);
    assert_int_equal(rg_cluster_map_from_slots(&m, o.b, o.n, RG_LIT("10.0.0.2")), RG_OK);
    assert_int_equal(rg_cluster_map_covered(&m), RG_CLUSTER_SLOTS);
    assert_int_equal(m.node[rg_cluster_map_owner(&m, 8191)].port, 7000);
    const uint16_t r = rg_cluster_map_replica(&m, 1, 0);
    assert_int_equal(m.node[r].port, 7002);
    assert_string_equal(m.node[r].host, "10.0.0.2");
    assert_string_equal(m.node[rg_cluster_map_owner(&m, 9000)].host, "10.0.0.2");
    /* No replica: the master. */
    assert_int_equal(rg_cluster_map_replica(&m, 9000, 5), rg_cluster_map_owner(&m, 9000));
    /* Any copy: the replica, then the master, in turn; the master alone where it has none. */
    assert_int_equal(rg_cluster_map_any_copy(&m, 1, 0), r);
    assert_int_equal(rg_cluster_map_any_copy(&m, 1, 1), rg_cluster_map_owner(&m, 1));
    assert_int_equal(rg_cluster_map_any_copy(&m, 1, 2), r);
    assert_int_equal(rg_cluster_map_any_copy(&m, 9000, 1), rg_cluster_map_owner(&m, 9000));
    for (size_t cut = 0; cut < o.n; cut++)
        assert_int_equal(rg_cluster_map_from_slots(&m, o.b, cut, localhost), RG_MISMATCH);
}

/* ---- routing ------------------------------------------------------------------------------- */

typedef struct routed {
    rg_route_kind kind;
    rg_route r;
} routed;

static routed route_of(const rg_cluster_map *m, size_t argc, const char *const *args) {
    rg_view v[16];
    for (size_t i = 0; i < argc; i++) v[i] = (rg_view){args[i], strlen(args[i])};
    char req[512];
    const size_t len = rg_argv_encode(req, sizeof req, argc, v);
    assert_true(len > 0);
    const rg_cluster_commands cmds = {redis_keys_table, REDIS_KEYS_CMD_COUNT, redis_keys_policy};
    rg_view argv[8];
    routed x;
    x.kind = rg_cluster_route(m, &cmds, req, len, argv, 8, 3, &x.r);
    assert_int_equal(x.kind, x.r.kind);
    return x;
}

#define ROUTE(m, ...)                                                              \
    route_of(m, sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *), \
             (const char *const[]){__VA_ARGS__})

static void test_route(void **state) {
    (void)state;
    static rg_cluster_map m;
    buf o;
    rg_cluster_map_init(&m);
    three_shards(&o, 2, "127.0.0.1");
    assert_int_equal(rg_cluster_map_from_shards(&m, o.b, o.n, localhost), RG_OK);
    /* foo: slot 12182 (7002); bar: 5061 (7000); {user1000}: 3443 (7000). */
    routed x = ROUTE(&m, "GET", "foo");
    assert_int_equal(x.kind, RG_ROUTE_NODE);
    assert_int_equal(x.r.slot, 12182);
    assert_int_equal(m.node[x.r.node].port, 7002);
    assert_string_equal(x.r.cmd->name, "GET");
    x = ROUTE(&m, "MSET", "{user1000}.a", "1", "{user1000}.b", "2");
    assert_int_equal(x.kind, RG_ROUTE_NODE);
    assert_int_equal(x.r.slot, 3443);
    x = ROUTE(&m, "RENAME", "foo", "bar");
    assert_int_equal(x.kind, RG_ROUTE_CROSSSLOT);
    /* Shard channels are no keys, but route as if they were. */
    x = ROUTE(&m, "SPUBLISH", "foo", "m");
    assert_int_equal(x.kind, RG_ROUTE_NODE);
    assert_int_equal(x.r.slot, 12182);
    assert_int_equal(m.node[x.r.node].port, 7002);
    x = ROUTE(&m, "SSUBSCRIBE", "foo", "bar");
    assert_int_equal(x.kind, RG_ROUTE_CROSSSLOT);
    /* MULTI_SHARD commands split instead; their merge is in .response. */
    x = ROUTE(&m, "DEL", "foo", "bar");
    assert_int_equal(x.kind, RG_ROUTE_MULTI_SHARD);
    assert_int_equal(x.r.response, RG_RESP_AGG_SUM);
    x = ROUTE(&m, "MSET", "foo", "1", "bar", "2");
    assert_int_equal(x.kind, RG_ROUTE_MULTI_SHARD);
    assert_int_equal(x.r.response, RG_RESP_ALL_SUCCEEDED);
    x = ROUTE(&m, "DBSIZE");
    assert_int_equal(x.kind, RG_ROUTE_ALL_SHARDS);
    assert_int_equal(x.r.response, RG_RESP_AGG_SUM);
    x = ROUTE(&m, "FLUSHALL");
    assert_int_equal(x.kind, RG_ROUTE_ALL_SHARDS);
    assert_int_equal(x.r.response, RG_RESP_ALL_SUCCEEDED);
    x = ROUTE(&m, "CONFIG", "SET", "maxmemory", "0");
    assert_int_equal(x.kind, RG_ROUTE_ALL_NODES);
    x = ROUTE(&m, "PING"); /* its tips: ALL_SHARDS, ALL_SUCCEEDED */
    assert_int_equal(x.kind, RG_ROUTE_ALL_SHARDS);
    x = ROUTE(&m, "ECHO", "hi");
    assert_int_equal(x.kind, RG_ROUTE_NODE);
    assert_int_equal(x.r.node, 3); /* the node given for keyless calls */
    /* More arguments than argv has room for: any node, the server redirects. */
    x = ROUTE(&m, "DEL", "a", "b", "c", "d", "e", "f", "g", "h", "i");
    assert_int_equal(x.kind, RG_ROUTE_NODE);
    assert_int_equal(x.r.slot, RG_SLOT_UNKNOWN);
    /* A module command: unknown, any node. */
    x = ROUTE(&m, "JSON.GET", "k");
    assert_int_equal(x.kind, RG_ROUTE_NODE);
    assert_null(x.r.cmd);
    /* An uncovered slot. */
    m.slot[12182] = RG_NODE_NONE;
    x = ROUTE(&m, "GET", "foo");
    assert_int_equal(x.kind, RG_ROUTE_UNCOVERED);
    assert_int_equal(x.r.slot, 12182);
    /* Not an encoded call. */
    const rg_cluster_commands cmds = {redis_keys_table, REDIS_KEYS_CMD_COUNT, NULL};
    rg_route r;
    rg_view argv[4];
    assert_int_equal(rg_cluster_route(&m, &cmds, "PING\r\n", 6, argv, 4, 0, &r), RG_ROUTE_INVALID);
    /* Without policies a keyless command goes to any node. */
    static const char dbsize[] = "*1\r\n$6\r\nDBSIZE\r\n";
    assert_int_equal(rg_cluster_route(&m, &cmds, dbsize, sizeof dbsize - 1, argv, 4, 1, &r),
                     RG_ROUTE_NODE);
    assert_string_equal(rg_route_kind_name(RG_ROUTE_CROSSSLOT), "crossslot");
}

/* For every command of the table (and a made-up subcommand of each), the route names the entry
 * rg_keys_table_command finds: the one-search shortcut changes nothing. */
static void test_route_lookup(void **state) {
    (void)state;
    static rg_cluster_map m;
    rg_cluster_map_init(&m);
    const rg_cluster_commands cmds = {redis_keys_table, REDIS_KEYS_CMD_COUNT, redis_keys_policy};
    static rg_cluster_index ix;
    assert_int_equal(rg_cluster_index_init(&ix, &cmds), RG_OK);
    for (size_t i = 0; i < 3 * REDIS_KEYS_CMD_COUNT; i++) {
        char name[64];
        snprintf(name, sizeof name, "%s", redis_keys_table[i / 3].name);
        /* Every name as the table has it, in lower case, and with its first word's last letter
         * changed. */
        if (i % 3)
            for (char *c = name; *c; c++) *c = (char)tolower((unsigned char)*c);
        if (i % 3 == 2) name[strcspn(name, " ") - 1] ^= 1;
        char *sp = strchr(name, ' ');
        rg_view v[4];
        size_t argc = 0;
        v[argc++] = (rg_view){name, sp ? (size_t)(sp - name) : strlen(name)};
        v[argc++] = sp ? (rg_view){sp + 1, strlen(sp + 1)} : RG_LIT("NOSUCHSUB");
        v[argc++] = RG_LIT("k");
        for (size_t variant = 0; variant < 2; variant++) {
            if (variant) v[1] = RG_LIT("nosuchsub"); /* a subcommand the table lacks */
            char req[256];
            const size_t len = rg_argv_encode(req, sizeof req, argc, v);
            rg_view argv[8];
            rg_route r;
            rg_cluster_route(&m, &cmds, req, len, argv, 8, 0, &r);
            assert_ptr_equal(
                r.cmd, rg_keys_table_command(redis_keys_table, REDIS_KEYS_CMD_COUNT, argc, argv));
            /* The hash index finds the same entry, or none. */
            rg_route ri;
            rg_cluster_route_indexed(&m, &ix, req, len, argv, 8, 0, &ri);
            assert_ptr_equal(ri.cmd, r.cmd);
            assert_int_equal(ri.kind, r.kind);
            assert_int_equal(ri.slot, r.slot);
        }
    }
    /* Names the table lacks, a NUL inside a name, an empty name: no entry (one word with a space
     * is found by the binary search, as without the index). */
    const rg_view odd[] = {RG_LIT("SE"), RG_LIT("SETX"), {"SET\0", 4}, {"S\0T", 3}, RG_LIT("")};
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) {
        const rg_view v[] = {odd[i], RG_LIT("k")};
        char req[64];
        const size_t len = rg_argv_encode(req, sizeof req, 2, v);
        rg_view argv[8];
        rg_route r;
        rg_cluster_route_indexed(&m, &ix, req, len, argv, 8, 0, &r);
        assert_null(r.cmd);
    }
    const rg_view sp[] = {RG_LIT("client kill"), RG_LIT("k")};
    char req[64];
    const size_t len = rg_argv_encode(req, sizeof req, 2, sp);
    rg_view argv[8];
    rg_route r;
    rg_cluster_route_indexed(&m, &ix, req, len, argv, 8, 0, &r);
    assert_string_equal(r.cmd->name, "CLIENT KILL");
}

/* How often specs/redis.lua names a tip. */
static size_t tips_in_spec(const char *tip) {
    char path[512];
    const char *src = getenv("RG_SOURCE_DIR");
    snprintf(path, sizeof path, "%s/specs/redis.lua", src ? src : ".");
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char text[4 << 20];
    const size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    size_t count = 0;
    for (const char *p = text; (p = strstr(p, tip)) != NULL; p++) count++;
    return count;
}

/* The generated policy table says what the spec's command_tips say. */
static void test_policy_table(void **state) {
    (void)state;
    const rg_cmd_policy p = redis_keys_policy_of(redis_keys_lookup("keys", 4));
    assert_int_equal(p.request, RG_REQ_ALL_SHARDS);
    const rg_cmd_policy g = redis_keys_policy_of(redis_keys_lookup("GET", 3));
    assert_int_equal(g.request, RG_REQ_DEFAULT);
    assert_int_equal(g.response, RG_RESP_DEFAULT);
    assert_int_equal(redis_keys_policy_of(NULL).request, RG_REQ_DEFAULT);
    size_t shards = 0, nodes = 0, multi = 0;
    for (size_t i = 0; i < REDIS_KEYS_CMD_COUNT; i++) {
        shards += redis_keys_policy[i].request == RG_REQ_ALL_SHARDS;
        nodes += redis_keys_policy[i].request == RG_REQ_ALL_NODES;
        multi += redis_keys_policy[i].request == RG_REQ_MULTI_SHARD;
    }
    /* As many as specs/redis.lua names each tip. */
    assert_int_equal(shards, tips_in_spec("REQUEST_POLICY:ALL_SHARDS"));
    assert_int_equal(nodes, tips_in_spec("REQUEST_POLICY:ALL_NODES"));
    assert_int_equal(multi, tips_in_spec("REQUEST_POLICY:MULTI_SHARD"));
    assert_true(shards > 10 && nodes > 10 && multi > 3);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shards),
        cmocka_unit_test(test_shards_truncated_and_mangled),
        cmocka_unit_test(test_failed_refresh_adds_no_node),
        cmocka_unit_test(test_shards_tls_ports),
        cmocka_unit_test(test_shards_rejects),
        cmocka_unit_test(test_refresh_and_moved),
        cmocka_unit_test(test_slots),
        cmocka_unit_test(test_route),
        cmocka_unit_test(test_policy_table),
        cmocka_unit_test(test_route_lookup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
