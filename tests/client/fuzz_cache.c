/* libFuzzer target for the client-side cache (runtime/rg_cache.h) over the connection engine: the
 * server's bytes (replies to the cache's CLIENT TRACKING and reads, invalidation pushes, anything)
 * are the input's, interleaved with a script of cached GETs of four keys, losses and flushes.
 *
 * Input: a first byte choosing the mode (default, OPTIN, BCAST with the prefix "a") and whether
 * entries live 0 or 1 ms of a clock that ticks per operation; then operations, one byte each:
 *   0x00..0x7f  a cached GET of key "a" + (byte & 3)
 *   0x80..0xef  feed the next (byte & 0x3f) + 1 input bytes to the engine
 *   0xf0        the connection is lost (rg_conn_closed), then reset and its HELLO answered
 *   0xf1        rg_cache_flush
 *   else        the clock ticks
 * The check (besides ASan and UBSan): a hit returns only a value the server replied to a read of
 * that key that was sent after the key's last invalidation (as the push handler saw it), flush
 * or loss, and completed before the next one; every call completes once. */
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

static const rg_rnode VIEW_NODES[] = {
    {RG_RA_STR | RG_RA_NULL, RG_RS_SCALAR, RG_RT_VIEW, 0, 0, 0, 0, 0, NULL}};
static const rg_rtable VIEW_TABLE = {"GET", VIEW_NODES, sizeof(view_result), RG_RF_VIEW};
static const rg_cmd GET_CMD = {.name = "GET", .reply = &VIEW_TABLE, .flags = RG_CMD_F_READONLY};

typedef struct run run;

typedef struct call_ctx {
    run *r;
    int key;
    uint64_t gen; /* the key's generation when it was sent */
    bool done;
} call_ctx;

struct run {
    rg_conn c;
    char in[2048], out[4096], storage[256];
    rg_call calls[64];
    rg_cache k;
    char mem[32 << 10];
    view_result results[MAX_CALLS];
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

static void on_done(void *ud, const rg_call_done *d) {
    call_ctx *x = ud;
    run *r = x->r;
    if (x->done) abort(); /* completed twice */
    x->done = true;
    if (d->status != RG_OK) return;
    const uint64_t h = hash(((const view_result *)d->result)->value);
    if (d->id == RG_CACHE_HIT) {
        for (size_t i = 0; i < r->nvalues[x->key]; i++)
            if (r->values[x->key][i] == h) return;
        abort(); /* a value no fresh reply gave: stale */
    }
    /* a reply to a read sent since the key's last invalidation: a hit may return it */
    if (x->gen == r->gen[x->key] && r->nvalues[x->key] < VALUES)
        r->values[x->key][r->nvalues[x->key]++] = h;
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

static void get(run *r, int key) {
    if (r->ncalls == MAX_CALLS) return;
    const size_t i = r->ncalls++;
    const char name[1] = {(char)('a' + key)};
    const rg_view argv[] = {{"GET", 3}, {name, 1}};
    const size_t n = rg_argv_size(2, argv);
    char *dst = rg_conn_reserve(&r->c, n);
    r->ctx[i] = (call_ctx){r, key, r->gen[key], dst == NULL};
    if (!dst) return;
    rg_argv_encode(dst, n, 2, argv);
    const uint64_t id =
        rg_cache_call(&r->k, dst, n, &GET_CMD, argv[1], &r->results[i], on_done, &r->ctx[i]);
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
        if (op < 0x80) {
            get(&r, op & 3);
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
