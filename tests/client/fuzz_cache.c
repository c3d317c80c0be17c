/* libFuzzer target for the client-side cache (runtime/rg_cache.h) over the connection engine: the
 * server's bytes (replies to the cache's CLIENT TRACKING and reads, invalidation pushes, anything)
 * are the input's, interleaved with a script of cached GETs of four keys, losses and flushes.
 *
 * Input: a first byte choosing the mode (default, OPTIN, BCAST with the prefix "a") and whether
 * entries live 0 or 1 ms of a clock that ticks per operation; then operations, one byte each:
 *   0x00..0x3f  a cached GET of key "a" + (byte & 3)
 *   0x40..0x7f  a cached MGET (per key) of keys "a" + (byte & 3) and "a" + (byte >> 2 & 3)
 *   0x80..0xef  feed the next (byte & 0x3f) + 1 input bytes to the engine
 *   0xf0        the connection is lost (rg_conn_closed), then reset and its HELLO answered
 *   0xf1        rg_cache_flush
 *   else        the clock ticks
 * The check (besides ASan and UBSan): a hit returns only values the server replied to a read of
 * their key (GET, or its element of an MGET) that was sent after the key's last invalidation (as
 * the push handler saw it), flush or loss, and completed before the next one; every call
 * completes once. */
#include "rg_cache.h"
#include "rg_enc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_CALLS = 256, KEYS = 4, VALUES = 32 };

typedef struct view_result {
    rg_view value;
} view_result;
typedef struct list_result {
    struct {
        rg_view *items;
        size_t count;
    } value;
} list_result;

static const rg_rnode VIEW_NODES[] = {
    {RG_RA_STR | RG_RA_NULL, RG_RS_SCALAR, RG_RT_VIEW, 0, 0, 0, 0, 0, NULL}};
static const rg_rtable VIEW_TABLE = {"GET", VIEW_NODES, sizeof(view_result), RG_RF_VIEW};
static const rg_cmd GET_CMD = {.name = "GET", .reply = &VIEW_TABLE, .flags = RG_CMD_F_READONLY};
static const rg_rnode LIST_NODES[] = {
    {RG_RA_ARR, RG_RS_ARRAY, RG_RT_NONE, 1, 1, 0, 0, sizeof(rg_view), NULL},
    {RG_RA_STR | RG_RA_NULL, RG_RS_SCALAR, RG_RT_VIEW, 0, 0, 0, 0, 0, NULL}};
static const rg_rtable LIST_TABLE = {"MGET", LIST_NODES, sizeof(list_result), 0};
static const rg_cmd MGET_CMD = {.name = "MGET", .reply = &LIST_TABLE, .id = 3};

typedef struct run run;

typedef struct call_ctx {
    run *r;
    int nkeys; /* 1: GET; 2: MGET */
    int key[2];
    uint64_t gen[2]; /* the keys' generations when it was sent */
    bool done;
} call_ctx;

struct run {
    rg_conn c;
    char in[2048], out[4096], storage[256];
    rg_call calls[64];
    rg_cache k;
    char mem[32 << 10];
    union {
        view_result v;
        list_result l;
    } results[MAX_CALLS];
    call_ctx ctx[MAX_CALLS];
    size_t ncalls;
    uint64_t gen[KEYS];            /* bumped by every invalidation, flush and loss of the key */
    uint64_t values[KEYS][VALUES]; /* hashes of the values a hit of the key may return */
    size_t nvalues[KEYS];
    uint64_t clock;
};

static uint64_t hash(rg_view v) {
    uint64_t h = v.ptr ? 1469598103934665603u : 7;
    for (size_t i = 0; i < v.len; i++) h = (h ^ (uint8_t)v.ptr[i]) * 1099511628211u;
    return h ^ v.len;
}

static void forget(run *r, int key) {
    r->gen[key]++;
    r->nvalues[key] = 0;
}

static void forget_all(run *r) {
    for (int i = 0; i < KEYS; i++) forget(r, i);
}

static void on_push(void *ud, const rg_push *p) {
    run *r = ud;
    if (p->kind != RG_PUSH_INVALIDATE && p->kind != RG_PUSH_TRACKING_REDIR_BROKEN) return;
    if (p->kind == RG_PUSH_TRACKING_REDIR_BROKEN || p->flush_all) {
        forget_all(r);
        return;
    }
    size_t at = 0;
    rg_view key;
    while (rg_push_keys_next(p, &at, &key))
        if (key.len == 1 && key.ptr[0] >= 'a' && key.ptr[0] < 'a' + KEYS)
            forget(r, key.ptr[0] - 'a');
}

/* One value of key i read by x: a hit's must be one a fresh reply gave; a reply's becomes one
 * when its key was not invalidated since the read was sent. */
static void value(run *r, const call_ctx *x, int i, rg_view v, bool hit) {
    const int key = x->key[i];
    const uint64_t h = hash(v);
    if (hit) {
        for (size_t k = 0; k < r->nvalues[key]; k++)
            if (r->values[key][k] == h) return;
        abort(); /* a value no fresh reply gave: stale */
    }
    if (x->gen[i] == r->gen[key] && r->nvalues[key] < VALUES) r->values[key][r->nvalues[key]++] = h;
}

static void on_done(void *ud, const rg_call_done *d) {
    call_ctx *x = ud;
    run *r = x->r;
    if (x->done) abort(); /* completed twice */
    x->done = true;
    if (d->status != RG_OK) return;
    const bool hit = d->id == RG_CACHE_HIT;
    if (x->nkeys == 1) {
        value(r, x, 0, ((const view_result *)d->result)->value, hit);
        return;
    }
    const list_result *l = d->result;
    if (hit && (l->value.count != 2 || !l->value.items)) abort(); /* a hit is whole */
    for (int i = 0; i < 2 && l->value.items && l->value.count == 2; i++)
        value(r, x, i, l->value.items[i], hit);
}

static uint64_t tick(void *ud) {
    return ((run *)ud)->clock;
}

static const char HELLO3[] = "%1\r\n$5\r\nproto\r\n:3\r\n";

static void start(run *r) {
    size_t n;
    while (rg_conn_output(&r->c, &n)) rg_conn_written(&r->c, n);
    rg_conn_feed_copy(&r->c, HELLO3, sizeof HELLO3 - 1, NULL);
}

/* A cached GET (nkeys 1) or MGET of keys a and b. */
static void read_keys(run *r, int nkeys, int a, int b) {
    if (r->ncalls == MAX_CALLS) return;
    const size_t i = r->ncalls++;
    const char names[2] = {(char)('a' + a), (char)('a' + b)};
    const rg_view argv[] = {
        {nkeys == 1 ? "GET" : "MGET", nkeys == 1 ? 3u : 4u}, {names, 1}, {names + 1, 1}};
    const size_t argc = (size_t)nkeys + 1;
    const size_t n = rg_argv_size(argc, argv);
    char *dst = rg_conn_reserve(&r->c, n);
    r->ctx[i] = (call_ctx){r, nkeys, {a, b}, {r->gen[a], r->gen[b]}, dst == NULL};
    if (!dst) return;
    rg_argv_encode(dst, n, argc, argv);
    const uint64_t id = nkeys == 1 ? rg_cache_call(&r->k, dst, n, &GET_CMD, argv[1], &r->results[i],
                                                   on_done, &r->ctx[i])
                                   : rg_cache_call_keys(&r->k, dst, n, &MGET_CMD, argv + 1, 2,
                                                        &r->results[i], on_done, &r->ctx[i]);
    if (id == 0) r->ctx[i].done = true; /* not made */
    size_t out;
    while (rg_conn_output(&r->c, &out)) rg_conn_written(&r->c, out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static run r;
    if (size < 1) return 0;
    memset(&r, 0, sizeof r);
    const rg_conn_config cfg = {.in = r.in,
                                .in_cap = sizeof r.in,
                                .out = r.out,
                                .out_cap = sizeof r.out,
                                .calls = r.calls,
                                .ncalls = 64,
                                .storage = r.storage,
                                .storage_cap = sizeof r.storage,
                                .on_push = on_push,
                                .push_ud = &r,
                                .protocol = 3};
    if (rg_conn_init(&r.c, &cfg) != RG_OK) abort();
    start(&r);
    static const rg_view prefix = {"a", 1};
    const rg_cache_config kc = {.mem = r.mem,
                                .mem_size = sizeof r.mem,
                                .max_entries = 8,
                                .flight_bytes = 512,
                                .mode = (rg_cache_mode)(data[0] % 3),
                                .prefixes = &prefix,
                                .nprefixes = data[0] % 3 == RG_CACHE_BCAST,
                                .ttl_ms = (data[0] >> 2) & 1,
                                .now_ms = tick,
                                .now_ud = &r};
    if (rg_cache_init(&r.k, &kc) != RG_OK || rg_cache_attach(&r.k, &r.c) != RG_OK) abort();
    for (size_t at = 1; at < size;) {
        const uint8_t op = data[at++];
        if (op < 0x40) {
            read_keys(&r, 1, op & 3, op & 3);
        } else if (op < 0x80) {
            read_keys(&r, 2, op & 3, (op >> 2) & 3);
        } else if (op < 0xf0) {
            size_t n = (size_t)(op & 0x3f) + 1;
            if (n > size - at) n = size - at;
            if (rg_conn_state_of(&r.c) != RG_CONN_FAILED &&
                rg_conn_feed_copy(&r.c, (const char *)data + at, n, NULL) < n)
                rg_conn_closed(&r.c, (rg_view){NULL, 0}); /* a reply larger than the input */
            at += n;
        } else if (op == 0xf0) {
            rg_conn_closed(&r.c, (rg_view){NULL, 0});
            forget_all(&r); /* told the push handler only when tracking was seen */
            if (rg_conn_reset(&r.c) != RG_OK) abort();
            start(&r);
        } else if (op == 0xf1) {
            rg_cache_flush(&r.k);
            forget_all(&r);
        } else {
            r.clock++;
        }
        if (rg_conn_state_of(&r.c) == RG_CONN_FAILED) forget_all(&r);
    }
    rg_conn_closed(&r.c, (rg_view){NULL, 0});
    for (size_t i = 0; i < r.ncalls; i++)
        if (!r.ctx[i].done) abort(); /* never completed */
    rg_cache_free(&r.k);
    return 0;
}
