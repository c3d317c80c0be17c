/* Typed reply decoders against a real redis-server: 70 commands of specs/redis.lua across
 * strings, hashes, lists, sets, sorted sets, streams, keys and server info, each encoded with
 * the generated encoder and decoded with the generated typed decoder, values checked; the whole
 * run once after HELLO 2 and once after HELLO 3. Then error replies (WRONGTYPE and others) and
 * mismatches with the stream staying usable, and a 10,000-command pipeline written in one batch
 * whose replies are decoded in order from reads of random sizes. */
#include "redis.h"
#include "redis_reply.h"
#include "test_redis.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#define V(s) RG_LIT(s)

/* A connection that reads into its own buffer and keeps the bytes of the reply in progress
 * (from rg_reply_start), compacting the buffer between reads. */
typedef struct client {
    test_redis server;
    test_conn conn;
    char *in;
    size_t cap, len, pos;
    uint64_t base; /* stream offset of in[0] */
    rg_reply_reader rr;
    char *store;
    size_t store_cap;
    size_t max_read; /* 0: as much as fits */
    unsigned seed;
    int proto;
} client;

static char req[1 << 16];

static int start(void **state, int proto) {
    client *c = calloc(1, sizeof *c);
    if (!c || test_redis_start(&c->server, NULL) != 0) return -1;
    if (test_conn_open(&c->conn, c->server.port) != 0) return -1;
    c->cap = 1 << 16;
    c->in = malloc(c->cap);
    c->store_cap = 1 << 10;
    c->store = malloc(c->store_cap);
    rg_reply_reader_init(&c->rr, NULL);
    rg_reply_set_storage(&c->rr, c->store, c->store_cap);
    c->seed = 12345;
    c->proto = proto;
    *state = c;
    return 0;
}

static int setup2(void **state) {
    return start(state, 2);
}

static int setup3(void **state) {
    return start(state, 3);
}

static int teardown(void **state) {
    client *c = *state;
    test_conn_close(&c->conn);
    test_redis_stop(&c->server);
    free(c->in);
    free(c->store);
    free(c);
    return 0;
}

static void compact(client *c) {
    const size_t keep = (size_t)(rg_reply_start(&c->rr) - c->base);
    const size_t from = keep < c->pos ? keep : c->pos;
    if (from == 0) return;
    memmove(c->in, c->in + from, c->len - from);
    c->len -= from;
    c->pos -= from;
    c->base += from;
}

static void fill(client *c) {
    if (c->len == c->cap) {
        c->cap *= 2;
        c->in = realloc(c->in, c->cap);
        assert_non_null(c->in);
    }
    size_t want = c->cap - c->len;
    if (c->max_read) {
        const size_t r = 1 + (size_t)rand_r(&c->seed) % c->max_read;
        if (r < want) want = r;
    }
    const ssize_t n = read(c->conn.fd, c->in + c->len, want);
    if (n <= 0) fail_msg("connection closed or read error");
    c->len += (size_t)n;
}

/* Receives one reply of table t into out; grows the storage when the reply needs more. */
static rg_status receive(client *c, const rg_rtable *t, void *out) {
    for (;;) {
        if (c->pos == c->len) {
            c->base += c->len;
            c->pos = c->len = 0;
        }
        const rg_status st = rg_reply_decode(&c->rr, t, c->in, c->len, &c->pos, out);
        if (st == RG_SHORT) {
            c->store_cap = rg_reply_needed(&c->rr);
            c->store = realloc(c->store, c->store_cap);
            assert_non_null(c->store);
            rg_reply_set_storage(&c->rr, c->store, c->store_cap);
            continue;
        }
        if (st != RG_NEED_MORE) return st;
        compact(c);
        fill(c);
    }
}

static rg_status call(client *c, const rg_rtable *t, size_t n, void *out) {
    assert_true(n > 0);
    assert_int_equal(test_conn_send(&c->conn, req, n), 0);
    return receive(c, t, out);
}

static void call_ok(client *c, const rg_rtable *t, size_t n, void *out) {
    const rg_status st = call(c, t, n, out);
    if (st != RG_OK) {
        const rg_view e = rg_reply_error(&c->rr).msg;
        fail_msg("%s: %s: %.*s", t->command, rg_status_name(st), (int)e.len, e.ptr);
    }
}

/* DO(cmd, out, args...): encode cmd with the generated encoder, decode its typed reply. */
#define DO(cmd, out, ...)                                                                          \
    do {                                                                                           \
        redis_##cmd##_result *typed_ = (out);                                                      \
        call_ok(c, &redis_##cmd##_reply_table, redis_##cmd##_encode(req, sizeof req, __VA_ARGS__), \
                typed_);                                                                           \
    } while (0)

#define DO0(cmd, out)                                                                          \
    do {                                                                                       \
        redis_##cmd##_result *typed_ = (out);                                                  \
        call_ok(c, &redis_##cmd##_reply_table, redis_##cmd##_encode(req, sizeof req), typed_); \
    } while (0)

static void eq(rg_view v, const char *want) {
    if (!v.ptr || v.len != strlen(want) || memcmp(v.ptr, want, v.len) != 0) {
        fail_msg("got \"%.*s\" (%s), want \"%s\"", (int)v.len, v.ptr ? v.ptr : "",
                 v.ptr ? "" : "null", want);
    }
}

static void hello(client *c) {
    const redis_hello_opts o = {.has_arguments = true, .arguments = {.protover = c->proto}};
    redis_hello_result r;
    DO(hello, &r, &o);
    /* Named fields in both protocols (a map, or RESP2's flat array); every field came. */
    assert_int_equal(r.value.present, (1u << 7) - 1);
    assert_int_equal(r.value.proto, c->proto);
    eq(r.value.server, "redis");
    eq(r.value.mode, "standalone");
    eq(r.value.role, "master");
    assert_true(r.value.id > 0);
    assert_int_equal(r.value.modules.count, 0);
}

static void strings(client *c) {
    redis_set_result set;
    DO(set, &set, V("s:a"), V("hello"), NULL);
    eq(set.value, "OK");
    const redis_set_opts nx = {.condition = REDIS_SET_CONDITION_NX};
    DO(set, &set, V("s:a"), V("x"), &nx);
    assert_null(set.value.ptr);
    const redis_set_opts get = {.get = true};
    DO(set, &set, V("s:a"), V("world"), &get);
    eq(set.value, "hello");
    redis_get_result g;
    DO(get, &g, V("s:a"));
    eq(g.value, "world");
    DO(get, &g, V("s:none"));
    assert_null(g.value.ptr);
    redis_incr_result incr;
    DO(incr, &incr, V("s:n"));
    assert_int_equal(incr.value, 1);
    redis_incrby_result incrby;
    DO(incrby, &incrby, V("s:n"), 41);
    assert_int_equal(incrby.value, 42);
    redis_decr_result decr;
    DO(decr, &decr, V("s:n"));
    assert_int_equal(decr.value, 41);
    redis_decrby_result decrby;
    DO(decrby, &decrby, V("s:n"), 50);
    assert_int_equal(decrby.value, -9);
    redis_incrbyfloat_result fl;
    DO(incrbyfloat, &fl, V("s:f"), 2.5);
    eq(fl.value, "2.5");
    redis_append_result app;
    DO(append, &app, V("s:a"), V("!!"));
    assert_int_equal(app.value, 7);
    redis_strlen_result sl;
    DO(strlen, &sl, V("s:a"));
    assert_int_equal(sl.value, 7);
    redis_getrange_result gr;
    DO(getrange, &gr, V("s:a"), 1, 3);
    eq(gr.value, "orl");
    redis_setrange_result sr;
    DO(setrange, &sr, V("s:a"), 0, V("W"));
    assert_int_equal(sr.value, 7);
    const redis_mset_data kv[] = {{V("s:m1"), V("v1")}, {V("s:m2"), V("")}};
    redis_mset_result ms;
    DO(mset, &ms, kv, 2);
    eq(ms.value, "OK");
    const rg_view keys[] = {V("s:m1"), V("s:none"), V("s:m2"), V("s:a")};
    redis_mget_result mg;
    DO(mget, &mg, keys, 4);
    assert_int_equal(mg.value.count, 4);
    eq(mg.value.items[0], "v1");
    assert_null(mg.value.items[1].ptr);
    eq(mg.value.items[2], "");
    eq(mg.value.items[3], "World!!");
    redis_getdel_result gd;
    DO(getdel, &gd, V("s:m1"));
    eq(gd.value, "v1");
    redis_setnx_result snx;
    DO(setnx, &snx, V("s:m1"), V("again"));
    assert_int_equal(snx.value, 1);
}

static bool has_pair(rg_view k, rg_view v, const char *wk, const char *wv) {
    return k.len == strlen(wk) && memcmp(k.ptr, wk, k.len) == 0 && v.len == strlen(wv) &&
           memcmp(v.ptr, wv, v.len) == 0;
}

static void hashes(client *c) {
    const redis_hset_data fv[] = {{V("f1"), V("v1")}, {V("f2"), V("v2")}, {V("n"), V("5")}};
    redis_hset_result hs;
    DO(hset, &hs, V("h"), fv, 3);
    assert_int_equal(hs.value, 3);
    redis_hget_result hg;
    DO(hget, &hg, V("h"), V("f2"));
    eq(hg.value, "v2");
    DO(hget, &hg, V("h"), V("nope"));
    assert_null(hg.value.ptr);
    redis_hgetall_result all;
    DO(hgetall, &all, V("h"));
    assert_int_equal(all.value.count, 3);
    int seen = 0;
    for (size_t i = 0; i < all.value.count; i++) {
        seen += has_pair(all.value.items[i].key, all.value.items[i].value, "f1", "v1");
        seen += has_pair(all.value.items[i].key, all.value.items[i].value, "n", "5");
    }
    assert_int_equal(seen, 2);
    const rg_view fields[] = {V("f1"), V("zz"), V("f2")};
    redis_hmget_result hm;
    DO(hmget, &hm, V("h"), fields, 3);
    assert_int_equal(hm.value.count, 3);
    eq(hm.value.items[0], "v1");
    assert_null(hm.value.items[1].ptr);
    redis_hlen_result hl;
    DO(hlen, &hl, V("h"));
    assert_int_equal(hl.value, 3);
    redis_hexists_result he;
    DO(hexists, &he, V("h"), V("f1"));
    assert_int_equal(he.value, 1);
    redis_hincrby_result hi;
    DO(hincrby, &hi, V("h"), V("n"), 10);
    assert_int_equal(hi.value, 15);
    redis_hincrbyfloat_result hf;
    DO(hincrbyfloat, &hf, V("h"), V("n"), 0.5);
    eq(hf.value, "15.5");
    redis_hkeys_result hk;
    DO(hkeys, &hk, V("h"));
    assert_int_equal(hk.value.count, 3);
    redis_hvals_result hv;
    DO(hvals, &hv, V("h"));
    assert_int_equal(hv.value.count, 3);
    redis_hsetnx_result hsn;
    DO(hsetnx, &hsn, V("h"), V("f1"), V("x"));
    assert_int_equal(hsn.value, 0);
    redis_hstrlen_result hsl;
    DO(hstrlen, &hsl, V("h"), V("f1"));
    assert_int_equal(hsl.value, 2);
    const rg_view del[] = {V("f1"), V("zz")};
    redis_hdel_result hd;
    DO(hdel, &hd, V("h"), del, 2);
    assert_int_equal(hd.value, 1);
}

static void lists(client *c) {
    const rg_view els[] = {V("a"), V("b"), V("c"), V("b")};
    redis_rpush_result rp;
    DO(rpush, &rp, V("l"), els, 4);
    assert_int_equal(rp.value, 4);
    redis_lpush_result lp;
    DO(lpush, &lp, V("l"), els, 1);
    assert_int_equal(lp.value, 5);
    redis_lrange_result lr;
    DO(lrange, &lr, V("l"), 0, -1);
    assert_int_equal(lr.value.count, 5);
    eq(lr.value.items[0], "a");
    eq(lr.value.items[4], "b");
    redis_llen_result ll;
    DO(llen, &ll, V("l"));
    assert_int_equal(ll.value, 5);
    redis_lindex_result li;
    DO(lindex, &li, V("l"), 2);
    eq(li.value, "b");
    DO(lindex, &li, V("l"), 99);
    assert_null(li.value.ptr);
    redis_lpos_result pos;
    DO(lpos, &pos, V("l"), V("b"), NULL);
    assert_int_equal(pos.value.which, REDIS_LPOS_REPLY_INTEGER);
    assert_int_equal(pos.value.integer, 2);
    const redis_lpos_opts all = {.has_num_matches = true, .num_matches = 0};
    DO(lpos, &pos, V("l"), V("b"), &all);
    assert_int_equal(pos.value.which, REDIS_LPOS_REPLY_ARRAY);
    assert_int_equal(pos.value.array.count, 2);
    assert_int_equal(pos.value.array.items[1], 4);
    DO(lpos, &pos, V("l"), V("zz"), NULL);
    assert_int_equal(pos.value.which, REDIS_LPOS_REPLY_NULL);
    redis_lset_result ls;
    DO(lset, &ls, V("l"), 0, V("A"));
    eq(ls.value, "OK");
    redis_lrem_result lrem;
    DO(lrem, &lrem, V("l"), 0, V("b"));
    assert_int_equal(lrem.value, 2);
    redis_lpop_result pop;
    DO(lpop, &pop, V("l"), NULL);
    assert_int_equal(pop.value.which, REDIS_LPOP_REPLY_STRING);
    eq(pop.value.string, "A");
    const redis_lpop_opts one = {.has_count = true, .count = 1};
    DO(lpop, &pop, V("l"), &one);
    assert_int_equal(pop.value.which, REDIS_LPOP_REPLY_ARRAY);
    assert_int_equal(pop.value.array.count, 1);
    eq(pop.value.array.items[0], "a");
    redis_rpop_result rpop;
    DO(rpop, &rpop, V("l"), NULL);
    assert_int_equal(rpop.value.which, REDIS_RPOP_REPLY_STRING);
    eq(rpop.value.string, "c");
    DO(rpop, &rpop, V("l"), NULL);
    assert_int_equal(rpop.value.which, REDIS_RPOP_REPLY_NULL);
    /* Named alternatives and tuple fields (titles from specs/overlays/redis.lua). */
    const rg_view bl[] = {V("l:none"), V("l")};
    redis_rpush_result pushed;
    DO(rpush, &pushed, V("l"), (const rg_view[]){V("first")}, 1);
    redis_blpop_result bp;
    DO(blpop, &bp, bl, 2, 0.01);
    assert_int_equal(bp.value.which, REDIS_BLPOP_REPLY_POPPED);
    eq(bp.value.popped.key, "l");
    eq(bp.value.popped.element, "first");
    DO(blpop, &bp, bl, 1, 0.01);
    assert_int_equal(bp.value.which, REDIS_BLPOP_REPLY_NULL);
}

static void sets(client *c) {
    const rg_view m[] = {V("x"), V("y"), V("z")};
    redis_sadd_result sa;
    DO(sadd, &sa, V("st"), m, 3);
    assert_int_equal(sa.value, 3);
    DO(sadd, &sa, V("st2"), m + 1, 2);
    redis_smembers_result sm;
    DO(smembers, &sm, V("st"));
    assert_int_equal(sm.value.count, 3);
    redis_sismember_result si;
    DO(sismember, &si, V("st"), V("y"));
    assert_int_equal(si.value, 1);
    redis_scard_result sc;
    DO(scard, &sc, V("st"));
    assert_int_equal(sc.value, 3);
    const rg_view both[] = {V("st"), V("st2")};
    redis_sinter_result sin;
    DO(sinter, &sin, both, 2);
    assert_int_equal(sin.value.count, 2);
    redis_sunion_result su;
    DO(sunion, &su, both, 2);
    assert_int_equal(su.value.count, 3);
    redis_sdiff_result sd;
    DO(sdiff, &sd, both, 2);
    assert_int_equal(sd.value.count, 1);
    eq(sd.value.items[0], "x");
    const rg_view q[] = {V("x"), V("nope")};
    redis_smismember_result smi;
    DO(smismember, &smi, V("st"), q, 2);
    assert_int_equal(smi.value.count, 2);
    assert_int_equal(smi.value.items[0], 1);
    assert_int_equal(smi.value.items[1], 0);
    redis_srem_result sr;
    DO(srem, &sr, V("st"), q, 2);
    assert_int_equal(sr.value, 1);
}

static void sorted_sets(client *c) {
    const redis_zadd_data d[] = {{1.5, V("a")}, {2, V("b")}, {-3.25, V("c")}};
    redis_zadd_result za;
    DO(zadd, &za, V("z"), d, 3, NULL);
    assert_int_equal(za.value.which, REDIS_ZADD_REPLY_INTEGER);
    assert_int_equal(za.value.integer, 3);
    const redis_zadd_opts incr = {.increment = true};
    DO(zadd, &za, V("z"), d, 1, &incr);
    assert_int_equal(za.value.which, REDIS_ZADD_REPLY_NUMBER);
    assert_true(za.value.number == 3.0);
    redis_zscore_result zs;
    DO(zscore, &zs, V("z"), V("c"));
    assert_int_equal(zs.value.which, REDIS_ZSCORE_REPLY_NUMBER);
    assert_true(zs.value.number == -3.25);
    DO(zscore, &zs, V("z"), V("nope"));
    assert_int_equal(zs.value.which, REDIS_ZSCORE_REPLY_NULL);
    redis_zrange_result zr;
    DO(zrange, &zr, V("z"), V("0"), V("-1"), NULL);
    assert_int_equal(zr.value.which, REDIS_ZRANGE_REPLY_ARRAY);
    assert_int_equal(zr.value.array.count, 3);
    eq(zr.value.array.items[0], "c");
    const redis_zrange_opts ws = {.withscores = true};
    DO(zrange, &zr, V("z"), V("0"), V("-1"), &ws);
    if (c->proto == 3) {
        /* RESP3 sends [member, score] pairs: the pairs alternative. */
        assert_int_equal(zr.value.which, REDIS_ZRANGE_REPLY_MAP);
        assert_int_equal(zr.value.map.count, 3);
        eq(zr.value.map.items[2].key, "a");
        assert_true(zr.value.map.items[2].value == 3.0);
    } else {
        /* RESP2 sends one flat array, which the first alternative takes (docs/typed-replies.md). */
        assert_int_equal(zr.value.which, REDIS_ZRANGE_REPLY_ARRAY);
        assert_int_equal(zr.value.array.count, 6);
        eq(zr.value.array.items[5], "3");
    }
    redis_zcard_result zc;
    DO(zcard, &zc, V("z"));
    assert_int_equal(zc.value, 3);
    redis_zincrby_result zi;
    DO(zincrby, &zi, V("z"), 10, V("b"));
    assert_true(zi.value == 12.0);
    redis_zrank_result rank;
    DO(zrank, &rank, V("z"), V("a"), NULL);
    assert_int_equal(rank.value.which, REDIS_ZRANK_REPLY_RANK);
    assert_int_equal(rank.value.rank, 1);
    DO(zrank, &rank, V("z"), V("nope"), NULL);
    assert_int_equal(rank.value.which, REDIS_ZRANK_REPLY_NULL);
    redis_zcount_result zcnt;
    DO(zcount, &zcnt, V("z"), V("0"), V("100"));
    assert_int_equal(zcnt.value, 2);
    DO(zcount, &zcnt, V("z"), V("(3"), V("+inf")); /* score-range bounds are strings */
    assert_int_equal(zcnt.value, 1);
    const rg_view mm[] = {V("a"), V("nope"), V("c")};
    redis_zmscore_result zm;
    DO(zmscore, &zm, V("z"), mm, 3);
    assert_int_equal(zm.value.count, 3);
    assert_int_equal(zm.value.items[0].which, REDIS_ZMSCORE_REPLY_ITEM_NUMBER);
    assert_true(zm.value.items[0].number == 3.0);
    assert_int_equal(zm.value.items[1].which, REDIS_ZMSCORE_REPLY_ITEM_NULL);
    assert_true(zm.value.items[2].number == -3.25);
    redis_zrem_result zrem;
    DO(zrem, &zrem, V("z"), mm, 3);
    assert_int_equal(zrem.value, 2);
}

/* XINFO STREAM / GROUPS / CONSUMERS and MEMORY STATS: objects with named fields. */
static void stream_info(client *c) {
    const redis_xgroup_create_id_selector zero = {.kind = REDIS_XGROUP_CREATE_ID_SELECTOR_ID,
                                                  .id = V("0")};
    redis_xgroup_create_result gc;
    DO(xgroup_create, &gc, V("x"), V("g"), zero, NULL);
    redis_xgroup_createconsumer_result cc;
    DO(xgroup_createconsumer, &cc, V("x"), V("g"), V("alice"));
    redis_xinfo_stream_result si;
    DO(xinfo_stream, &si, V("x"), NULL);
    assert_int_equal(si.value.which, 1);
    assert_int_equal(si.value.object.length, 1);
    assert_int_equal(si.value.object.groups, 1);
    eq(si.value.object.last_generated_id, "2-1");
    assert_int_equal(si.value.object.first_entry.which, 2);
    eq(si.value.object.first_entry.tuple.f0, "2-1");
    assert_int_equal(si.value.object.first_entry.tuple.f1.count, 2);
    assert_true(si.value.object.present & 1u << 5); /* length */
    const redis_xinfo_stream_opts full = {.has_full_block = true};
    DO(xinfo_stream, &si, V("x"), &full);
    assert_int_equal(si.value.which, 2);
    assert_int_equal(si.value.object2.entries.count, 1);
    assert_int_equal(si.value.object2.groups.count, 1);
    eq(si.value.object2.groups.items[0].name, "g");
    assert_int_equal(si.value.object2.groups.items[0].consumers.count, 1);
    eq(si.value.object2.groups.items[0].consumers.items[0].name, "alice");
    redis_xinfo_groups_result gi;
    DO(xinfo_groups, &gi, V("x"));
    assert_int_equal(gi.value.count, 1);
    eq(gi.value.items[0].name, "g");
    eq(gi.value.items[0].last_delivered_id, "0-0");
    assert_int_equal(gi.value.items[0].consumers, 1);
    assert_int_equal(gi.value.items[0].pending, 0);
    redis_xinfo_consumers_result ci;
    DO(xinfo_consumers, &ci, V("x"), V("g"));
    assert_int_equal(ci.value.count, 1);
    eq(ci.value.items[0].name, "alice");
    assert_int_equal(ci.value.items[0].present & 1u << 3, 1u << 3); /* pending */
    redis_memory_stats_result ms;
    DO0(memory_stats, &ms);
    assert_true(ms.value.present & 1u << 24); /* peak.allocated */
    assert_true(ms.value.peak_allocated > 0);
    assert_true(ms.value.keys_count > 0);
}

static void streams(client *c) {
    const redis_xadd_data fv[] = {{V("f"), V("v")}, {V("g"), V("w")}};
    const redis_xadd_id_selector id1 = {.kind = REDIS_XADD_ID_SELECTOR_ID, .id = V("1-1")};
    const redis_xadd_id_selector id2 = {.kind = REDIS_XADD_ID_SELECTOR_ID, .id = V("2-1")};
    redis_xadd_result xa;
    DO(xadd, &xa, V("x"), id1, fv, 2, NULL);
    eq(xa.value, "1-1");
    DO(xadd, &xa, V("x"), id2, fv, 1, NULL);
    eq(xa.value, "2-1");
    redis_xlen_result xl;
    DO(xlen, &xl, V("x"));
    assert_int_equal(xl.value, 2);
    redis_xrange_result xr;
    DO(xrange, &xr, V("x"), V("-"), V("+"), NULL);
    assert_int_equal(xr.value.count, 2);
    eq(xr.value.items[0].key, "1-1");
    assert_int_equal(xr.value.items[0].value.count, 4);
    eq(xr.value.items[0].value.items[2], "g");
    eq(xr.value.items[0].value.items[3], "w");
    eq(xr.value.items[1].key, "2-1");
    assert_int_equal(xr.value.items[1].value.count, 2);
    redis_xrevrange_result xv;
    const redis_xrevrange_opts one = {.has_count = true, .count = 1};
    DO(xrevrange, &xv, V("x"), V("+"), V("-"), &one);
    assert_int_equal(xv.value.count, 1);
    eq(xv.value.items[0].key, "2-1");
    const rg_view ids[] = {V("1-1")};
    redis_xdel_result xd;
    DO(xdel, &xd, V("x"), ids, 1);
    assert_int_equal(xd.value, 1);
    stream_info(c);
}

static void keys(client *c) {
    redis_set_result set;
    DO(set, &set, V("k:1"), V("v"), NULL);
    DO(set, &set, V("k:2"), V("v"), NULL);
    const rg_view two[] = {V("k:1"), V("k:2"), V("k:none")};
    redis_exists_result ex;
    DO(exists, &ex, two, 3);
    assert_int_equal(ex.value, 2);
    redis_expire_result exp;
    DO(expire, &exp, V("k:1"), 100, NULL);
    assert_int_equal(exp.value, 1);
    redis_ttl_result ttl;
    DO(ttl, &ttl, V("k:1"));
    assert_true(ttl.value > 90 && ttl.value <= 100);
    redis_pttl_result pttl;
    DO(pttl, &pttl, V("k:2"));
    assert_int_equal(pttl.value, -1);
    redis_persist_result pe;
    DO(persist, &pe, V("k:1"));
    assert_int_equal(pe.value, 1);
    redis_type_result ty;
    DO(type, &ty, V("k:1"));
    eq(ty.value, "string");
    DO(type, &ty, V("z"));
    eq(ty.value, "zset");
    redis_rename_result rn;
    DO(rename, &rn, V("k:2"), V("k:3"));
    eq(rn.value, "OK");
    redis_keys_result ks;
    DO(keys, &ks, V("k:*"));
    assert_int_equal(ks.value.count, 2);
    const redis_scan_opts match = {.pattern = V("k:*"), .has_count = true, .count = 1000};
    redis_scan_result sc;
    DO(scan, &sc, 0, &match);
    eq(sc.value.cursor, "0");
    assert_int_equal(sc.value.elements.count, 2);
    redis_dbsize_result db;
    DO0(dbsize, &db);
    assert_true(db.value >= 10);
    redis_role_result role;
    DO0(role, &role);
    assert_int_equal(role.value.which, REDIS_ROLE_REPLY_MASTER);
    eq(role.value.master.role, "master");
    assert_int_equal(role.value.master.replicas.count, 0);
    redis_del_result del;
    DO(del, &del, two, 3);
    assert_int_equal(del.value, 1);
    redis_unlink_result un;
    const rg_view k3[] = {V("k:3")};
    DO(unlink, &un, k3, 1);
    assert_int_equal(un.value, 1);
}

static void server(client *c) {
    redis_ping_result ping;
    DO(ping, &ping, NULL);
    eq(ping.value, "PONG");
    const redis_ping_opts msg = {.message = V("hi")};
    DO(ping, &ping, &msg);
    eq(ping.value, "hi");
    redis_echo_result echo;
    DO(echo, &echo, V("echo\r\nme"));
    eq(echo.value, "echo\r\nme");
    const rg_view section[] = {V("server")};
    const redis_info_opts io = {.section = section, .section_count = 1};
    redis_info_result info;
    DO(info, &info, &io);
    assert_non_null(info.value.ptr);
    assert_non_null(memmem(info.value.ptr, info.value.len, "redis_version:", 14));
    redis_time_result tm;
    DO0(time, &tm);
    assert_int_equal(tm.value.count, 2);
    assert_true(strtoll(tm.value.items[0].ptr, NULL, 10) > 1600000000);
    const rg_view param[] = {V("maxmemory-policy")};
    redis_config_get_result cg;
    DO(config_get, &cg, param, 1);
    assert_int_equal(cg.value.count, 1);
    eq(cg.value.items[0].key, "maxmemory-policy");
    eq(cg.value.items[0].value, "noeviction");
    redis_lastsave_result last;
    DO0(lastsave, &last);
    assert_true(last.value > 0);
}

/* Errors are error results, mismatches name the path, and the stream goes on. */
static void errors(client *c) {
    redis_get_result g;
    assert_int_equal(call(c, &redis_get_reply_table, redis_get_encode(req, sizeof req, V("h")), &g),
                     RG_SERVER_ERROR);
    const rg_view e = rg_reply_error(&c->rr).msg;
    assert_true(e.len > 9 && memcmp(e.ptr, "WRONGTYPE", 9) == 0);
    redis_incr_result incr;
    assert_int_equal(
        call(c, &redis_incr_reply_table, redis_incr_encode(req, sizeof req, V("s:a")), &incr),
        RG_SERVER_ERROR);
    assert_true(rg_reply_error(&c->rr).msg.len > 4 &&
                memcmp(rg_reply_error(&c->rr).msg.ptr, "ERR ", 4) == 0);
    /* An LRANGE request decoded with INCR's table: a mismatch naming the command. */
    assert_int_equal(call(c, &redis_incr_reply_table,
                          redis_lrange_encode(req, sizeof req, V("st"), 0, -1), &incr),
                     RG_SERVER_ERROR); /* st is a set: WRONGTYPE */
    redis_sadd_result sa;
    const rg_view m[] = {V("e1"), V("e2")};
    DO(sadd, &sa, V("le"), m, 2);
    assert_int_equal(
        call(c, &redis_incr_reply_table, redis_smembers_encode(req, sizeof req, V("le")), &incr),
        RG_MISMATCH);
    const rg_view msg = rg_reply_error(&c->rr).msg;
    assert_true(msg.len > 0 && memcmp(msg.ptr, "INCR: reply: expected integer", 29) == 0);
    redis_get_result ok;
    DO(get, &ok, V("s:m2"));
    eq(ok.value, "");
}

static void pipeline(client *c) {
    enum { N = 10000 };
    char *batch = malloc((size_t)N * 64);
    assert_non_null(batch);
    size_t n = 0;
    char key[32], val[32];
    for (int i = 0; i < N; i++) {
        const int k = snprintf(key, sizeof key, "p:%d", i / 4 % 100);
        const int v = snprintf(val, sizeof val, "%d", i);
        const rg_view kv = {key, (size_t)k}, vv = {val, (size_t)v};
        switch (i % 4) {
        case 0: n += redis_set_encode(batch + n, 64, kv, vv, NULL); break;
        case 1: n += redis_get_encode(batch + n, 64, kv); break;
        case 2: n += redis_incr_encode(batch + n, 64, V("p:counter")); break;
        default: n += redis_lrange_encode(batch + n, 64, V("p:list"), 0, -1); break;
        }
    }
    const rg_view el[] = {V("a"), V("b"), V("c")};
    redis_rpush_result rp;
    DO(rpush, &rp, V("p:list"), el, 3);
    assert_int_equal(test_conn_send(&c->conn, batch, n), 0);
    c->max_read = 997;
    int64_t counter = 0;
    for (int i = 0; i < N; i++) {
        union {
            redis_set_result set;
            redis_get_result get;
            redis_incr_result incr;
            redis_lrange_result lrange;
        } r;
        switch (i % 4) {
        case 0:
            assert_int_equal(receive(c, &redis_set_reply_table, &r.set), RG_OK);
            eq(r.set.value, "OK");
            break;
        case 1: {
            assert_int_equal(receive(c, &redis_get_reply_table, &r.get), RG_OK);
            const int v = snprintf(val, sizeof val, "%d", i - 1);
            assert_int_equal(r.get.value.len, (size_t)v);
            assert_memory_equal(r.get.value.ptr, val, (size_t)v);
            break;
        }
        case 2:
            assert_int_equal(receive(c, &redis_incr_reply_table, &r.incr), RG_OK);
            assert_int_equal(r.incr.value, ++counter);
            break;
        default:
            assert_int_equal(receive(c, &redis_lrange_reply_table, &r.lrange), RG_OK);
            assert_int_equal(r.lrange.value.count, 3);
            eq(r.lrange.value.items[2], "c");
            break;
        }
    }
    c->max_read = 0;
    free(batch);
}

static void all_commands(void **state) {
    client *c = *state;
    hello(c);
    strings(c);
    hashes(c);
    lists(c);
    sets(c);
    sorted_sets(c);
    streams(c);
    keys(c);
    server(c);
    errors(c);
    pipeline(c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(all_commands, setup2, teardown),
        cmocka_unit_test_setup_teardown(all_commands, setup3, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
