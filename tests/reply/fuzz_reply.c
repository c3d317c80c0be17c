/* libFuzzer target for the typed reply engine (rg_reply.h) over the tables of specs/redis.lua.
 *
 * Input: a first line naming the command whose table decodes the rest ("ZRANGE\n*2\r\n..."; an
 * unknown name picks a table by its hash), then RESP bytes, decoded as a pipeline of replies of
 * that table (a push is skipped). Each input is decoded
 *   - whole, with large storage: the reference (statuses, consumed bytes, a digest of every
 *     result: values, views' bytes, counts, which alternative);
 *   - in pieces at cuts placed by the input's hash, each call given a fresh copy of the kept
 *     bytes (from rg_reply_start) with the old copy freed, so a stale view is a use after free:
 *     the same statuses, bytes and digests;
 *   - with small storage: RG_SHORT puts the reply back, and a retry with exactly
 *     rg_reply_needed() bytes gives the reference;
 *   - in callback mode (whole and byte by byte): both give the same statuses and elements;
 *   - for a table whose root is one scalar, with rg_reply_decode_many in batches of 1 to 4,
 *     whole and in pieces: the reference's statuses, digests and ends (where a call ended).
 * Every OK result is checked: no list with a count has items NULL, every view lies inside the
 * bytes of the call, every `which` names an alternative. */
#include "redis_reply.h"
#include "reply_tables.h"

#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_REPLIES = 16, DIGEST = 1 << 14, RESULT = 1 << 12, STORE = 1 << 16 };

typedef struct digest {
    char p[DIGEST];
    size_t n;
} digest;

static void fail(const char *what, const char *name) {
    fprintf(stderr, "fuzz_reply: %s: %s\n", name, what);
    abort();
}

static void put(digest *d, const void *p, size_t n) {
    if (n > DIGEST - d->n) n = DIGEST - d->n;
    memcpy(d->p + d->n, p, n);
    d->n += n;
}

/* The bytes a result may point into: [lo, hi). */
typedef struct bounds {
    const char *lo, *hi;
    const char *name;
} bounds;

static void put_view(digest *d, const bounds *b, rg_view v) {
    if (v.ptr && (v.ptr < b->lo || v.ptr + v.len > b->hi))
        fail("a view outside the input", b->name);
    if (!v.ptr && v.len) fail("a NULL view with a length", b->name);
    put(d, &v.len, sizeof v.len);
    put(d, v.ptr ? "v" : "n", 1);
    if (v.ptr) put(d, v.ptr, v.len);
}

static void walk(digest *d, const bounds *b, const rg_rnode *nodes, const rg_rnode *node,
                 const char *mem, int depth);

static void walk_list(digest *d, const bounds *b, const rg_rnode *nodes, const rg_rnode *node,
                      const char *mem, int depth, bool root_cb) {
    const char *items;
    size_t count;
    memcpy(&items, mem + node->offset, sizeof items);
    memcpy(&count, mem + node->offset + sizeof(void *), sizeof count);
    put(d, &count, sizeof count);
    if (root_cb) return;
    if (count && !items) fail("a list with a count and no items", b->name);
    for (size_t i = 0; i < count; i++) {
        for (uint16_t k = 0; k < node->nchildren; k++) {
            walk(d, b, nodes, &nodes[node->child + k], items + i * node->elem_size, depth + 1);
        }
    }
}

static void walk(digest *d, const bounds *b, const rg_rnode *nodes, const rg_rnode *node,
                 const char *mem, int depth) {
    if (depth > 64) fail("a result nested too deep", b->name);
    const char *at = mem + node->offset;
    switch (node->shape) {
    case RG_RS_SCALAR:
        if (node->store == RG_RT_NONE) break;
        if (node->store == RG_RT_VIEW || node->store == RG_RT_I64 || node->store == RG_RT_DBL) {
            if (node->store == RG_RT_VIEW) {
                rg_view v;
                memcpy(&v, at, sizeof v);
                put_view(d, b, v);
            } else {
                put(d, at, 8);
            }
        } else if (node->store == RG_RT_BOOL) {
            put(d, at, 1);
        }
        break;
    case RG_RS_ANY: {
        rg_view v;
        memcpy(&v, at, sizeof v);
        put_view(d, b, v);
        break;
    }
    case RG_RS_ONEOF: {
        const uint8_t which = (uint8_t)*at;
        if (which > node->nchildren) fail("which names no alternative", b->name);
        put(d, &which, 1);
        if (which) walk(d, b, nodes, &nodes[node->child + which - 1], mem, depth + 1);
        break;
    }
    case RG_RS_OBJECT:
        put(d, at, 8); /* the presence bits */
        for (uint16_t k = 0; k < node->nchildren; k++) {
            walk(d, b, nodes, &nodes[node->child + k], mem, depth + 1);
        }
        break;
    case RG_RS_TUPLE:
        for (uint16_t k = 0; k < node->nchildren; k++) {
            walk(d, b, nodes, &nodes[node->child + k], mem, depth + 1);
        }
        break;
    default: walk_list(d, b, nodes, node, mem, depth, false); break;
    }
}

/* One run over the input: statuses, ends and digests of its replies. */
typedef struct run {
    size_t n;
    rg_status st[MAX_REPLIES];
    size_t end[MAX_REPLIES];
    digest *d; /* one per reply */
} run;

typedef struct cfg {
    const rg_rtable *t;
    const char *in;
    size_t n;
    const size_t *cuts; /* stream offsets where more bytes arrive, ascending; NULL: whole */
    size_t ncuts;
    size_t cap; /* storage bytes */
    bool callback;
    bool retry_short; /* on SHORT, retry with rg_reply_needed() bytes */
} cfg;

typedef struct cb_ctx {
    const rg_rtable *t;
    digest *d;
    bounds b;
    const char *result; /* the root oneof's which is there before the first element */
} cb_ctx;

static int each(void *ud, size_t index, const void *elem) {
    cb_ctx *c = ud;
    const rg_rnode *nodes = c->t->nodes;
    const rg_rnode *root = &nodes[0];
    put(c->d, &index, sizeof index);
    /* The root may be a oneof whose chosen alternative is the list. */
    const rg_rnode *list = root;
    if (root->shape == RG_RS_ONEOF) {
        const uint8_t which = (uint8_t)c->result[root->offset];
        if (which == 0 || which > root->nchildren) fail("callback before which", c->t->command);
        list = &nodes[root->child + which - 1];
    }
    if (list->shape != RG_RS_ARRAY && list->shape != RG_RS_PAIRS) fail("callback", "no list");
    for (uint16_t k = 0; k < list->nchildren; k++) {
        walk(c->d, &c->b, nodes, &nodes[list->child + k], elem, 0);
    }
    return 0;
}

static void run_cfg(const cfg *g, run *out, char *store) {
    rg_reply_reader rr;
    rg_reply_reader_init(&rr, NULL);
    size_t cap = g->cap;
    rg_reply_set_storage(&rr, store, cap);
    alignas(max_align_t) char result[RESULT];
    cb_ctx cb = {g->t, NULL, {NULL, NULL, g->t->command}, result};
    if (g->callback) rg_reply_set_each(&rr, each, &cb);
    size_t consumed = 0, have = g->cuts ? 0 : g->n, next_cut = 0;
    char *copy = NULL;
    size_t keep = 0;
    out->n = 0;
    bool skipping_push = false;
    while (out->n < MAX_REPLIES) {
        digest *d = &out->d[out->n];
        d->n = 0;
        cb.d = d;
        rg_status st;
        for (;;) {
            const char *buf = g->in;
            size_t base = 0;
            if (g->cuts) {
                keep =
                    (size_t)rg_reply_start(&rr) < consumed ? (size_t)rg_reply_start(&rr) : consumed;
                char *fresh = malloc(have - keep + 1);
                if (!fresh) abort();
                memcpy(fresh, g->in + keep, have - keep);
                free(copy);
                copy = fresh;
                buf = copy;
                base = keep;
            }
            size_t pos = consumed - base;
            cb.b = (bounds){buf, buf + (have - base), g->t->command};
            st = skipping_push ? rg_reply_skip(&rr, buf, have - base, &pos)
                               : rg_reply_decode(&rr, g->t, buf, have - base, &pos, result);
            consumed = base + pos;
            if (st == RG_OK && !skipping_push && !g->callback) {
                walk(d, &cb.b, g->t->nodes, &g->t->nodes[0], result, 0);
            }
            if (st != RG_NEED_MORE || have == g->n) break;
            have = next_cut < g->ncuts ? g->cuts[next_cut++] : g->n;
        }
        if (st == RG_SHORT && g->retry_short && rg_reply_needed(&rr) <= STORE &&
            cap != rg_reply_needed(&rr)) {
            cap = rg_reply_needed(&rr);
            rg_reply_set_storage(&rr, store, cap);
            continue; /* the same reply again, now with room */
        }
        if (skipping_push) {
            skipping_push = false;
            if (st == RG_OK) continue;
        }
        out->st[out->n] = st;
        out->end[out->n] = consumed;
        out->n++;
        if (st == RG_PUSH) skipping_push = true;
        if (st == RG_NEED_MORE || rg_status_fatal(st) || st == RG_SHORT) break;
        if (consumed >= g->n) break;
        if (g->retry_short) rg_reply_set_storage(&rr, store, g->cap);
        cap = g->cap;
    }
    free(copy);
}

/* rg_reply_decode_many, batch replies a call (a reply left pending goes on in its own struct),
 * for tables whose root is one scalar (no storage: every result of a batch stays whole). The
 * run records what run_cfg records, but an OK reply's end only where the call ended (SIZE_MAX
 * inside a batch). */
static void run_many(const cfg *g, size_t batch, run *out, char *store) {
    static alignas(max_align_t) char results[4][RESULT];
    rg_reply_reader rr;
    rg_reply_reader_init(&rr, NULL);
    rg_reply_set_storage(&rr, store, g->cap);
    size_t consumed = 0, have = g->cuts ? 0 : g->n, next_cut = 0, pend = 0;
    char *copy = NULL;
    bool skipping_push = false;
    out->n = 0;
    while (out->n < MAX_REPLIES) {
        rg_status st;
        size_t done = 0;
        for (;;) {
            const char *buf = g->in;
            size_t base = 0;
            if (g->cuts) {
                const size_t keep =
                    (size_t)rg_reply_start(&rr) < consumed ? (size_t)rg_reply_start(&rr) : consumed;
                char *fresh = malloc(have - keep + 1);
                if (!fresh) abort();
                memcpy(fresh, g->in + keep, have - keep);
                free(copy);
                copy = fresh;
                buf = copy;
                base = keep;
            }
            size_t pos = consumed - base;
            done = 0;
            const bounds b = {buf, buf + (have - base), g->t->command};
            if (skipping_push) {
                st = rg_reply_skip(&rr, buf, have - base, &pos);
            } else {
                const size_t room = batch - pend;
                st = rg_reply_decode_many(&rr, g->t, buf, have - base, &pos, results[pend], RESULT,
                                          room, &done);
                if (done > room || (st == RG_OK) != (done == room)) fail("done", g->t->command);
            }
            consumed = base + pos;
            for (size_t k = 0; k < done && out->n < MAX_REPLIES; k++) {
                digest *d = &out->d[out->n];
                d->n = 0;
                walk(d, &b, g->t->nodes, &g->t->nodes[0], results[pend + k], 0);
                out->st[out->n] = RG_OK;
                out->end[out->n++] = k + 1 == done && st == RG_OK ? consumed : SIZE_MAX;
            }
            if (!skipping_push) pend = st == RG_NEED_MORE ? pend + done : 0;
            if (st == RG_OK && !skipping_push) {
                if (consumed >= g->n || out->n >= MAX_REPLIES) break;
                continue;
            }
            if (st != RG_NEED_MORE || have == g->n) break;
            have = next_cut < g->ncuts ? g->cuts[next_cut++] : g->n;
        }
        if (out->n >= MAX_REPLIES) break; /* (a batch may fill the run) */
        if (skipping_push) {
            skipping_push = false;
            if (st == RG_OK) continue;
        }
        if (st == RG_OK) break; /* the input or the replies ran out after a batch */
        /* after an OK reply that ended the input one call a reply does not call again */
        if (st == RG_NEED_MORE && done && consumed >= g->n && rg_reply_start(&rr) == consumed) {
            break;
        }
        out->st[out->n] = st;
        out->end[out->n] = consumed;
        out->n++;
        if (st == RG_PUSH) skipping_push = true;
        if (st == RG_NEED_MORE || rg_status_fatal(st) || st == RG_SHORT) break;
        if (consumed >= g->n) break;
    }
    free(copy);
}

static void compare(const run *a, const run *b, const char *how, const char *name) {
    char what[128];
    if (a->n != b->n) {
        snprintf(what, sizeof what, "%s: %zu replies, whole %zu", how, b->n, a->n);
        fail(what, name);
    }
    for (size_t i = 0; i < a->n; i++) {
        if (a->st[i] != b->st[i] || (a->end[i] != b->end[i] && b->end[i] != SIZE_MAX)) {
            snprintf(what, sizeof what, "%s: reply %zu: %s at %zu, whole %s at %zu", how, i,
                     rg_status_name(b->st[i]), b->end[i], rg_status_name(a->st[i]), a->end[i]);
            fail(what, name);
        }
        if (a->d[i].n != b->d[i].n || memcmp(a->d[i].p, b->d[i].p, a->d[i].n) != 0) {
            snprintf(what, sizeof what, "%s: reply %zu: another result", how, i);
            fail(what, name);
        }
    }
}

static const rg_rtable *pick_table(const char *name, size_t n) {
    uint64_t h = 1469598103934665603u;
    for (size_t i = 0; i < N_REPLY_TABLES; i++) {
        const char *c = reply_tables[i]->command;
        if (strlen(c) == n && memcmp(c, name, n) == 0) return reply_tables[i];
    }
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)name[i]) * 1099511628211u;
    return reply_tables[h % N_REPLY_TABLES];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static alignas(max_align_t) char store[STORE];
    static digest ds[6][MAX_REPLIES];
    if (size > 4096) return 0;
    const char *nl = memchr(data, '\n', size < 64 ? size : 64);
    if (!nl) return 0;
    const char *in = nl + 1;
    const size_t n = size - (size_t)(in - (const char *)data);
    const rg_rtable *t = pick_table((const char *)data, (size_t)(nl - (const char *)data));
    if (t->result_size > RESULT) return 0;
    uint64_t h = 1469598103934665603u;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)in[i]) * 1099511628211u;
    size_t cuts[256], ncuts = 0;
    for (size_t k = 0; k < 3 && n > 1; k++) cuts[ncuts++] = 1 + (size_t)(h >> (20 * k)) % (n - 1);
    for (size_t i = 0; i + 1 < ncuts; i++) /* ascending */
        for (size_t j = i + 1; j < ncuts; j++)
            if (cuts[j] < cuts[i]) {
                const size_t x = cuts[i];
                cuts[i] = cuts[j];
                cuts[j] = x;
            }
    size_t bytes[256], nbytes = 0;
    for (size_t i = 1; i < n && nbytes < 256; i++) bytes[nbytes++] = i;

    run ref = {.d = ds[0]}, r = {.d = ds[1]};
    run_cfg(&(cfg){t, in, n, NULL, 0, STORE, false, false}, &ref, store);
    run_cfg(&(cfg){t, in, n, cuts, ncuts, STORE, false, false}, &r, store);
    compare(&ref, &r, "three cuts", t->command);
    if (n <= 256) {
        run_cfg(&(cfg){t, in, n, bytes, nbytes, STORE, false, false}, &r, store);
        compare(&ref, &r, "byte by byte", t->command);
    }
    run_cfg(&(cfg){t, in, n, cuts, ncuts, 16 + h % 64, false, true}, &r, store);
    compare(&ref, &r, "small storage, retried", t->command);

    if (t->nodes[0].shape == RG_RS_SCALAR) {
        run_many(&(cfg){t, in, n, NULL, 0, STORE, false, false}, 1 + h % 4, &r, store);
        compare(&ref, &r, "rg_reply_decode_many", t->command);
        run_many(&(cfg){t, in, n, n <= 256 ? bytes : cuts, n <= 256 ? nbytes : ncuts, STORE, false,
                        false},
                 1 + (h >> 8) % 4, &r, store);
        compare(&ref, &r, "rg_reply_decode_many, in pieces", t->command);
    }

    run cb = {.d = ds[2]}, cb2 = {.d = ds[3]};
    run_cfg(&(cfg){t, in, n, NULL, 0, STORE, true, false}, &cb, store);
    run_cfg(
        &(cfg){t, in, n, n <= 256 ? bytes : cuts, n <= 256 ? nbytes : ncuts, STORE, true, false},
        &cb2, store);
    compare(&cb, &cb2, "callback, in pieces", t->command);
    return 0;
}
