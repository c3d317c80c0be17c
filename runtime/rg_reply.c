/* respgen runtime: the table-driven engine behind the generated typed reply decoders.
 *
 * One loop pulls events from rg_next and hands each to step(), which finds the node the event
 * belongs to (the root, or the next slot of the innermost open aggregate) and stores the value.
 * Views are kept as offsets from the reply's start (cast to pointers) until the reply completes,
 * then fixed up in one walk, so a caller may move its buffer between calls. */
#include "rg_reply.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { F_ARRAY, F_PAIRS, F_TUPLE, F_SKIP, F_RAW };

/* The per-call facts step() needs to turn event views into offsets. */
typedef struct call_ctx {
    const char *buf;
    uint64_t base;   /* stream offset of buf[0] */
    uint64_t before; /* stream offset of the current event's first byte */
} call_ctx;

void rg_reply_reader_init(rg_reply_reader *rr, const rg_limits *limits) {
    memset(rr, 0, offsetof(rg_reply_reader, stack));
    rg_reader_init(&rr->rd, limits);
}

void rg_reply_set_storage(rg_reply_reader *rr, void *mem, size_t cap) {
    rr->mem = mem;
    rr->cap = mem ? cap : 0;
}

void rg_reply_set_each(rg_reply_reader *rr, rg_reply_each_fn fn, void *ud) {
    rr->each = fn;
    rr->each_ud = ud;
}

const char *rg_reply_status_name(rg_reply_status s) {
    static const char *const names[RG_REPLY_STATUS_COUNT] = {
        [RG_REPLY_OK] = "RG_REPLY_OK",
        [RG_REPLY_NEED_MORE] = "RG_REPLY_NEED_MORE",
        [RG_REPLY_SERVER_ERROR] = "RG_REPLY_SERVER_ERROR",
        [RG_REPLY_MISMATCH] = "RG_REPLY_MISMATCH",
        [RG_REPLY_SHORT] = "RG_REPLY_SHORT",
        [RG_REPLY_LOST] = "RG_REPLY_LOST",
        [RG_REPLY_PROTOCOL] = "RG_REPLY_PROTOCOL",
    };
    return (unsigned)s < RG_REPLY_STATUS_COUNT ? names[s] : "RG_REPLY_UNKNOWN";
}

rg_view rg_reply_error(const rg_reply_reader *rr) {
    return rr->error;
}

/* ------------------------------------------------------------------------------------------ */
/* Storage. */

/* Carves size bytes (8-aligned, zeroed) from the caller's storage, or returns NULL when they do
 * not fit; either way the need is counted so a size query learns the total. */
static char *reserve(rg_reply_reader *rr, uint64_t size) {
    const size_t at = (rr->used + 7u) & ~(size_t)7u;
    if (size == 0) return NULL;
    if (size > SIZE_MAX - at) {
        rr->used = SIZE_MAX;
        return NULL;
    }
    rr->used = at + (size_t)size;
    if (rr->used > rr->cap) return NULL;
    memset(rr->mem + at, 0, (size_t)size);
    return rr->mem + at;
}

/* A { items, count } member: items first, count after a pointer (every generated list struct). */
static void set_items(char *field, char *items) {
    if (field) memcpy(field, &items, sizeof items);
}

static void set_count(char *field, uint64_t count) {
    const size_t c = (size_t)count;
    if (field) memcpy(field + sizeof(void *), &c, sizeof c);
}

/* ------------------------------------------------------------------------------------------ */
/* Messages. */

/* "bulk|simple|verbatim" for an accept set. */
static void kinds_text(uint32_t accept, char *out, size_t cap) {
    size_t n = 0;
    out[0] = '\0';
    if (accept == RG_RA_ANY) {
        snprintf(out, cap, "anything");
        return;
    }
    for (unsigned k = 1; k < RG_EV_KIND_COUNT && n < cap; k++) {
        if (!(accept & RG_RA(k))) continue;
        const int w = snprintf(out + n, cap - n, "%s%s", n ? "|" : "", rg_kind_name((rg_kind)k));
        if (w < 0) break;
        n += (size_t)w;
    }
}

/* The path of the value being decoded: "[3].value", "[0][1]". */
static size_t path_text(const rg_reply_reader *rr, char *out, size_t cap) {
    size_t n = 0;
    out[0] = '\0';
    for (uint32_t d = 0; d < rr->depth && n < cap; d++) {
        const rg_rframe *f = &rr->stack[d];
        const uint64_t i = f->i ? f->i - 1 : 0;
        int w = 0;
        if (f->kind == F_PAIRS && f->pairs_mode == 1) {
            w = snprintf(out + n, cap - n, "[%llu].%s", (unsigned long long)(i / 2),
                         i % 2 ? "value" : "key");
        } else if (f->kind == F_TUPLE && f->node->shape == RG_RS_PAIRS) {
            w = snprintf(out + n, cap - n, ".%s", i % 2 ? "value" : "key");
        } else if (f->kind != F_SKIP && f->kind != F_RAW) {
            w = snprintf(out + n, cap - n, "[%llu]", (unsigned long long)i);
        }
        if (w < 0) break;
        n += (size_t)w;
    }
    return n;
}

static const char *received_text(const rg_event *ev, char *out, size_t cap) {
    if (ev->kind == RG_EV_NULL) {
        snprintf(out, cap, "null (%s)", rg_kind_name((rg_kind)ev->sub));
    } else if (ev->kind >= RG_EV_ARRAY && ev->kind <= RG_EV_ATTR) {
        snprintf(out, cap, "%s of %lld", rg_kind_name((rg_kind)ev->kind), (long long)ev->u.i);
    } else if (ev->kind == RG_EV_SIMPLE || ev->kind == RG_EV_BULK || ev->kind == RG_EV_ERROR) {
        const int shown = ev->str.len > 24 ? 24 : (int)ev->str.len;
        snprintf(out, cap, "%s \"%.*s\"", rg_kind_name((rg_kind)ev->kind), shown, ev->str.ptr);
    } else {
        snprintf(out, cap, "%s", rg_kind_name((rg_kind)ev->kind));
    }
    return out;
}

/* Records a mismatch; the rest of the reply is skipped, so the stream stays in step. */
static void mismatch(rg_reply_reader *rr, const rg_rnode *node, const rg_event *ev,
                     const char *why) {
    char path[96], want[96], got[64];
    if (rr->skipping) return;
    path_text(rr, path, sizeof path);
    kinds_text(node ? node->accept : 0, want, sizeof want);
    if (node && node->cval) snprintf(want, sizeof want, "\"%s\"", node->cval);
    snprintf(rr->msg, sizeof rr->msg, "%s: reply%s: expected %s, received %s", rr->table->command,
             path, why ? why : want, received_text(ev, got, sizeof got));
    rr->error = (rg_view){rr->msg, strlen(rr->msg)};
    rr->skipping = true;
}

/* ------------------------------------------------------------------------------------------ */
/* Scalars. */

/* A view kept as its offset from the reply's start until the reply completes (see fixup). */
static void put_view(const rg_reply_reader *rr, const call_ctx *c, char *at, rg_view v) {
    rg_view o = {NULL, v.len};
    if (rr->direct) {
        memcpy(at, &v, sizeof v);
        return;
    }
    if (v.ptr) {
        const uint64_t off = c->base + (uint64_t)(v.ptr - c->buf) - rr->start + 1;
        o.ptr = (const char *)(uintptr_t)off;
    }
    memcpy(at, &o, sizeof o);
}

/* Exact powers of ten: a decimal with at most 15 significant digits and at most 22 after the
 * point is m / 10^k with both exact, so one correctly rounded division gives strtod's result. */
static const double POW10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                               1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                               1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static inline bool quick_double(rg_view s, double *out) {
    const char *p = s.ptr, *const end = s.ptr + s.len;
    const bool neg = p < end && *p == '-';
    p += neg;
    if (end - p > 16) return false;
    uint64_t m = 0;
    const char *dot = NULL;
    for (; p < end; p++) {
        const unsigned d = (unsigned)(*p - '0');
        if (d < 10) {
            m = m * 10 + d;
        } else if (*p == '.' && !dot) {
            dot = p;
        } else {
            return false;
        }
    }
    const size_t frac = dot ? (size_t)(end - dot - 1) : 0;
    const size_t digits = (size_t)(end - s.ptr) - neg - (dot != NULL);
    if (digits == 0 || digits > 15) return false;
    const double d = (double)m / POW10[frac];
    *out = neg ? -d : d;
    return true;
}

static inline bool text_double(rg_view s, double *out) {
    char tmp[64];
    if (quick_double(s, out)) return true;
    char *end = NULL;
    if (s.len == 0 || s.len >= sizeof tmp) return false;
    memcpy(tmp, s.ptr, s.len);
    tmp[s.len] = '\0';
    *out = strtod(tmp, &end);
    return end == tmp + s.len;
}

static bool const_fits(const rg_rnode *node, const rg_event *ev) {
    if (!node->cval) return true;
    if (ev->kind != RG_EV_SIMPLE && ev->kind != RG_EV_BULK) return false;
    return ev->str.len == strlen(node->cval) && memcmp(ev->str.ptr, node->cval, ev->str.len) == 0;
}

/* Stores a scalar event; returns false (and says why) when its value does not fit the node. */
static bool put_scalar(rg_reply_reader *rr, const call_ctx *c, const rg_rnode *node, char *mem,
                       const rg_event *ev) {
    char *at = mem ? mem + node->offset : NULL;
    if (!const_fits(node, ev)) return mismatch(rr, node, ev, NULL), false;
    if (!at || node->store == RG_RT_NONE) return true;
    switch (node->store) {
    case RG_RT_VIEW:
        put_view(rr, c, at, ev->kind == RG_EV_NULL ? (rg_view){NULL, 0} : ev->str);
        break;
    case RG_RT_I64: memcpy(at, &ev->u.i, sizeof(int64_t)); break;
    case RG_RT_BOOL: {
        const bool b = ev->kind == RG_EV_BOOL ? ev->u.b : ev->u.i != 0;
        if (ev->kind == RG_EV_INT && (ev->u.i < 0 || ev->u.i > 1)) {
            return mismatch(rr, node, ev, "0 or 1"), false;
        }
        memcpy(at, &b, sizeof b);
        break;
    }
    case RG_RT_DBL: {
        double d = ev->u.d;
        if (ev->kind == RG_EV_INT) d = (double)ev->u.i;
        if (ev->kind == RG_EV_BULK || ev->kind == RG_EV_SIMPLE) {
            if (!text_double(ev->str, &d)) return mismatch(rr, node, ev, "a number"), false;
        }
        memcpy(at, &d, sizeof d);
        break;
    }
    default: break;
    }
    return true;
}

/* ------------------------------------------------------------------------------------------ */
/* Aggregates. */

static bool is_header(uint8_t kind) {
    return kind >= RG_EV_ARRAY && kind <= RG_EV_PUSH;
}

static rg_rframe *push(rg_reply_reader *rr, uint8_t kind, const rg_rnode *node,
                       const rg_event *ev) {
    rg_rframe *f = &rr->stack[rr->depth++];
    memset(f, 0, sizeof *f);
    f->kind = kind;
    f->node = node;
    f->depth = ev->depth;
    f->n = ev->u.i < 0 ? UINT64_MAX : (uint64_t)ev->u.i;
    if (ev->kind == RG_EV_MAP && ev->u.i > 0) f->n = 2 * (uint64_t)ev->u.i;
    return f;
}

static bool in_callback_slot(const rg_reply_reader *rr, const rg_rframe *f) {
    return rr->slot && f == &rr->stack[0];
}

static void open_array(rg_reply_reader *rr, const rg_rnode *node, char *mem, const rg_event *ev) {
    rg_rframe *f = push(rr, F_ARRAY, node, ev);
    f->field = mem ? mem + node->offset : NULL;
    if (rr->each && rr->depth == 1) {
        rr->slot = reserve(rr, node->elem_size);
        rr->slot_used = rr->used;
        return;
    }
    if (f->n != UINT64_MAX) f->mem = reserve(rr, f->n * node->elem_size);
    set_items(f->field, f->mem);
}

/* A list of pairs: a RESP3 map is flat; an array is flat (RESP2) or nested (RESP3 pairs), which
 * its first element tells, so the storage is carved then. */
static void open_pairs(rg_reply_reader *rr, const rg_rnode *node, char *mem, const rg_event *ev) {
    rg_rframe *f = push(rr, F_PAIRS, node, ev);
    f->field = mem ? mem + node->offset : NULL;
    if (ev->kind == RG_EV_MAP) {
        f->pairs_mode = 1;
        if (f->n != UINT64_MAX) f->mem = reserve(rr, f->n / 2 * node->elem_size);
        set_items(f->field, f->mem);
    }
}

static void open_raw(rg_reply_reader *rr, const rg_rnode *node, char *mem, const rg_event *ev,
                     const call_ctx *c) {
    rg_rframe *f = push(rr, F_RAW, NULL, ev);
    f->start = c->before;
    f->pairs_mode = ev->kind == RG_EV_STR_BEGIN; /* ends with STR_END, not END */
    f->raw = mem && node ? mem + node->offset : NULL;
}

static void value(rg_reply_reader *rr, const call_ctx *c, const rg_rnode *nodes,
                  const rg_rnode *node, char *mem, const rg_event *ev);

/* The raw bytes of a value, from stream offset from to to (the fixup makes them a pointer). */
static void put_raw(const rg_reply_reader *rr, const call_ctx *c, char *at, uint64_t from,
                    uint64_t to) {
    rg_view o = {(const char *)(uintptr_t)(from - rr->start + 1), (size_t)(to - from)};
    if (rr->direct) o.ptr = c->buf + (from - c->base);
    if (at) memcpy(at, &o, sizeof o);
}

/* The first child of a oneof that takes the event. */
static const rg_rnode *choose(const rg_rnode *nodes, const rg_rnode *node, const rg_event *ev) {
    for (uint16_t k = 0; k < node->nchildren; k++) {
        const rg_rnode *alt = &nodes[node->child + k];
        if ((alt->accept & RG_RA(ev->kind)) && const_fits(alt, ev)) return alt;
    }
    return NULL;
}

static void value(rg_reply_reader *rr, const call_ctx *c, const rg_rnode *nodes,
                  const rg_rnode *node, char *mem, const rg_event *ev) {
    if (!(node->accept & RG_RA(ev->kind))) {
        mismatch(rr, node, ev, NULL);
        return;
    }
    switch (node->shape) {
    case RG_RS_SCALAR: put_scalar(rr, c, node, mem, ev); break;
    case RG_RS_ARRAY: open_array(rr, node, mem, ev); break;
    case RG_RS_PAIRS: open_pairs(rr, node, mem, ev); break;
    case RG_RS_TUPLE:
        if (ev->u.i != node->nchildren) {
            char want[32];
            snprintf(want, sizeof want, "array of %u", (unsigned)node->nchildren);
            mismatch(rr, node, ev, want);
            return;
        }
        push(rr, F_TUPLE, node, ev)->mem = mem;
        break;
    case RG_RS_ONEOF: {
        const rg_rnode *alt = choose(nodes, node, ev);
        if (!alt) {
            mismatch(rr, node, ev, NULL);
            return;
        }
        if (mem) mem[node->offset] = (char)(alt - &nodes[node->child] + 1);
        const uint32_t depth = rr->depth;
        value(rr, c, nodes, alt, mem, ev);
        if (rr->depth > depth && is_header(ev->kind)) {
            /* Alternatives that take the same header are told apart by the first element. */
            rg_rframe *f = &rr->stack[rr->depth - 1];
            f->oneof = node;
            f->omem = mem;
            f->count = ev->u.i;
        }
        break;
    }
    default:
        if (is_header(ev->kind) || ev->kind == RG_EV_STR_BEGIN) {
            open_raw(rr, node, mem, ev, c);
        } else if (mem) {
            put_raw(rr, c, mem + node->offset, c->before, rg_reader_offset(&rr->rd));
        }
        break;
    }
}

/* The node and memory of the next element of the innermost frame. */
static const rg_rnode *next_slot(rg_reply_reader *rr, const rg_rnode *nodes, const rg_event *ev,
                                 char **mem) {
    rg_rframe *f = &rr->stack[rr->depth - 1];
    const rg_rnode *node = f->node;
    const uint64_t i = f->i++;
    if (f->kind == F_TUPLE) {
        *mem = f->mem;
        return &nodes[node->child + i];
    }
    if (f->kind == F_ARRAY) {
        *mem = in_callback_slot(rr, f) ? rr->slot : f->mem ? f->mem + i * node->elem_size : NULL;
        return &nodes[node->child];
    }
    if (f->pairs_mode == 0) {
        /* The first element of a pairs array decides between RESP3 pairs and RESP2 flat. */
        f->pairs_mode = is_header(ev->kind) ? 2 : 1;
        if (f->pairs_mode == 1 && f->n != UINT64_MAX && f->n % 2) {
            const rg_event hdr = {.kind = RG_EV_ARRAY, .u.i = (int64_t)f->n};
            rr->depth--; /* the message names the array, not its first element */
            mismatch(rr, node, &hdr, "an even number of elements");
            (void)ev;
            return NULL;
        }
        const uint64_t pairs = f->pairs_mode == 1 ? f->n / 2 : f->n;
        f->mem = f->n == UINT64_MAX ? NULL : reserve(rr, pairs * node->elem_size);
        set_items(f->field, f->mem);
    }
    if (f->pairs_mode == 2) {
        *mem = f->mem ? f->mem + i * node->elem_size : NULL;
        return node; /* a nested pair: the pairs node read as a 2-tuple */
    }
    *mem = f->mem ? f->mem + i / 2 * node->elem_size : NULL;
    return &nodes[node->child + i % 2];
}

/* One RESP3 pair of a nested pairs list: a 2-element array read as a tuple of the pairs node. */
static void open_pair(rg_reply_reader *rr, const rg_rnode *node, char *mem, const rg_event *ev) {
    if (ev->kind != RG_EV_ARRAY || ev->u.i != 2) {
        mismatch(rr, node, ev, "a pair (array of 2)");
        return;
    }
    push(rr, F_TUPLE, node, ev)->mem = mem;
}

/* ------------------------------------------------------------------------------------------ */
/* View fixup: offsets from the reply start become pointers. */

static void fix_view(char *at, const char *origin) {
    rg_view v;
    memcpy(&v, at, sizeof v);
    if (!v.ptr) return;
    v.ptr = origin + ((uintptr_t)v.ptr - 1);
    memcpy(at, &v, sizeof v);
}

static void fixup(const rg_rnode *nodes, const rg_rnode *node, char *mem, const char *origin) {
    if (!mem) return;
    switch (node->shape) {
    case RG_RS_SCALAR:
        if (node->store == RG_RT_VIEW) fix_view(mem + node->offset, origin);
        break;
    case RG_RS_ANY: fix_view(mem + node->offset, origin); break;
    case RG_RS_ONEOF: {
        const uint8_t which = (uint8_t)mem[node->offset];
        if (which) fixup(nodes, &nodes[node->child + which - 1], mem, origin);
        break;
    }
    case RG_RS_TUPLE:
        for (uint16_t k = 0; k < node->nchildren; k++) {
            fixup(nodes, &nodes[node->child + k], mem, origin);
        }
        break;
    default: {
        char *items;
        size_t count;
        memcpy(&items, mem + node->offset, sizeof items);
        memcpy(&count, mem + node->offset + sizeof(void *), sizeof count);
        for (size_t i = 0; items && i < count; i++) {
            for (uint16_t k = 0; k < node->nchildren; k++) {
                fixup(nodes, &nodes[node->child + k], items + i * node->elem_size, origin);
            }
        }
        break;
    }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* The loop. */

/* Origin of the reply's bytes in this call's buffer, or NULL when the caller dropped some. */
static const char *origin_of(const rg_reply_reader *rr, const call_ctx *c) {
    if (rr->start < c->base) return NULL;
    return c->buf + (rr->start - c->base);
}

/* A root array element is complete: in callback mode hand it over and reuse the slot. */
static void element_done(rg_reply_reader *rr, const call_ctx *c) {
    if (!rr->slot || rr->depth != 1 || rr->skipping) return;
    const rg_rframe *f = &rr->stack[0];
    const rg_rnode *nodes = rr->table->nodes;
    const char *origin = origin_of(rr, c);
    if (!origin) {
        rr->lost = true;
        return;
    }
    if (!rr->direct) fixup(nodes, &nodes[f->node->child], rr->slot, origin);
    if (rr->each(rr->each_ud, (size_t)(f->i - 1), rr->slot) != 0) {
        snprintf(rr->msg, sizeof rr->msg, "%s: reply[%llu]: stopped by the callback",
                 rr->table->command, (unsigned long long)(f->i - 1));
        rr->error = (rg_view){rr->msg, strlen(rr->msg)};
        rr->skipping = true;
        return;
    }
    memset(rr->slot, 0, f->node->elem_size);
    rr->used = rr->slot_used;
}

/* An aggregate ended: its count goes to the result; raw values get their bytes. */
static void close_frame(rg_reply_reader *rr, const call_ctx *c, const rg_event *ev) {
    rg_rframe *f = &rr->stack[rr->depth - 1];
    if (f->kind == F_RAW) put_raw(rr, c, f->raw, f->start, rg_reader_offset(&rr->rd));
    if (f->kind == F_ARRAY) set_count(f->field, f->i);
    if (f->kind == F_PAIRS) set_count(f->field, f->pairs_mode == 2 ? f->i : f->i / 2);
    if (f->kind == F_PAIRS && f->pairs_mode == 1 && f->i % 2) {
        mismatch(rr, f->node, ev, "an even number of elements");
    }
    rr->depth--;
}

/* Would the first element ev fit the aggregate frame f opened? */
static bool first_fits(const rg_rnode *nodes, const rg_rframe *f, const rg_event *ev) {
    const rg_rnode *first = &nodes[f->node->child];
    if (f->kind == F_PAIRS && f->pairs_mode == 0 && ev->kind == RG_EV_ARRAY) return true;
    return (first->accept & RG_RA(ev->kind)) && const_fits(first, ev);
}

/* A oneof picked an aggregate alternative by its header; when the first element does not fit
 * it, reopen the aggregate as the next alternative that takes both. */
static void recheck_oneof(rg_reply_reader *rr, const call_ctx *c, const rg_event *ev) {
    const rg_rnode *nodes = rr->table->nodes;
    rg_rframe *f = &rr->stack[rr->depth - 1];
    if (!f->oneof || f->i != 0 || first_fits(nodes, f, ev)) return;
    const rg_rnode *oneof = f->oneof;
    char *mem = f->omem;
    rg_event hdr = {.kind = f->kind == F_PAIRS && f->pairs_mode == 1 ? RG_EV_MAP : RG_EV_ARRAY};
    hdr.depth = f->depth;
    hdr.u.i = f->count;
    for (const rg_rnode *alt = f->node + 1; alt < &nodes[oneof->child + oneof->nchildren]; alt++) {
        if (!(alt->accept & RG_RA(hdr.kind)) || alt->shape == RG_RS_SCALAR) continue;
        rr->depth--;
        if (mem) mem[oneof->offset] = (char)(alt - &nodes[oneof->child] + 1);
        value(rr, c, nodes, alt, mem, &hdr);
        if (rr->skipping) return;
        f = &rr->stack[rr->depth - 1];
        f->oneof = oneof;
        f->omem = mem;
        f->count = hdr.u.i;
        if (first_fits(nodes, f, ev)) return;
    }
}

static void step(rg_reply_reader *rr, const call_ctx *c, const rg_event *ev) {
    const rg_rnode *nodes = rr->table->nodes;
    rg_rframe *top = rr->depth ? &rr->stack[rr->depth - 1] : NULL;
    if (rr->skipping) return; /* after a mismatch: wait for the reply's end */
    if (top && (top->kind == F_SKIP || top->kind == F_RAW)) {
        const uint8_t end = top->pairs_mode ? RG_EV_STR_END : RG_EV_END;
        if (ev->kind == end && ev->depth == top->depth) {
            close_frame(rr, c, ev);
            element_done(rr, c);
        }
        return;
    }
    if (ev->kind == RG_EV_ATTR) {
        push(rr, F_SKIP, NULL, ev);
        return;
    }
    if (ev->kind == RG_EV_END) {
        close_frame(rr, c, ev);
        element_done(rr, c);
        return;
    }
    if (!top && (ev->kind == RG_EV_ERROR || ev->kind == RG_EV_BLOBERR)) {
        rr->server_error = true;
        rr->error = ev->str;
        return;
    }
    if (top && top->oneof) recheck_oneof(rr, c, ev);
    top = top ? &rr->stack[rr->depth - 1] : NULL;
    char *mem = rr->out;
    const rg_rnode *node = top ? next_slot(rr, nodes, ev, &mem) : &nodes[0];
    if (!node) return;
    const uint32_t depth = rr->depth;
    if (node->shape == RG_RS_PAIRS && top && top->node == node && top->kind == F_PAIRS) {
        open_pair(rr, node, mem, ev);
    } else {
        value(rr, c, nodes, node, mem, ev);
    }
    if (rr->depth == depth) element_done(rr, c);
}

static void begin(rg_reply_reader *rr, const rg_rtable *t, void *out) {
    rr->table = t;
    rr->out = out;
    memset(out, 0, t->result_size);
    rr->used = 0;
    rr->slot = NULL;
    rr->depth = 0;
    rr->active = true;
    rr->skipping = rr->server_error = rr->lost = false;
    rr->error = (rg_view){NULL, 0};
    rr->start = rg_reader_offset(&rr->rd);
    /* Callbacks must not see an element twice, so callback mode never decodes a reply again. */
    rr->direct = rr->each == NULL;
    rr->start_values = rg_reader_values(&rr->rd);
}

/* Puts the decoder back at the reply's start (it was idle there, so a fresh one with that
 * offset and value count is the same state). */
static void rewind_reader(rg_reply_reader *rr) {
    const rg_limits limits = rr->rd.limits;
    rg_reader_init(&rr->rd, &limits);
    rr->rd.offset = rr->start;
    rr->rd.values = rr->start_values;
    rr->mark = rr->start;
    rr->pending = false;
}

static rg_reply_status finish(rg_reply_reader *rr, const call_ctx *c, size_t *pos) {
    const char *origin = origin_of(rr, c);
    rr->active = false;
    if (rr->server_error) return RG_REPLY_SERVER_ERROR;
    if (rr->skipping) return RG_REPLY_MISMATCH;
    if (!origin || rr->lost) return RG_REPLY_LOST;
    if (rr->used > rr->cap) {
        /* Put the reply back: the caller retries it with enough storage. */
        rewind_reader(rr);
        *pos = (size_t)(rr->start - c->base);
        return RG_REPLY_SHORT;
    }
    if (!rr->direct) fixup(rr->table->nodes, &rr->table->nodes[0], rr->out, origin);
    return RG_REPLY_OK;
}

/* Arrays (and flat pairs) of scalars, the bulk of most replies: up to the elements left are
 * decoded in one batch (so never past the aggregate) and stored straight from the events. The
 * first event that needs more than a store, and every one after it, goes through step(). */
static bool fast_frame(const rg_reply_reader *rr, const rg_rframe *f) {
    if (f->kind == F_ARRAY) {
        return f->mem && !rr->slot && !f->oneof && f->n != UINT64_MAX && f->n > f->i &&
               rr->table->nodes[f->node->child].shape == RG_RS_SCALAR;
    }
    if (f->kind != F_PAIRS || f->pairs_mode != 1 || !f->mem || f->n == UINT64_MAX) return false;
    const rg_rnode *kv = &rr->table->nodes[f->node->child];
    return f->n > f->i && kv[0].shape == RG_RS_SCALAR && kv[1].shape == RG_RS_SCALAR;
}

/* Stores evs[k...] while they are plain scalars of the frame; returns how many it took. */
static size_t fast_store(rg_reply_reader *rr, const call_ctx *c, rg_rframe *f, const rg_event *evs,
                         size_t n) {
    const rg_rnode *nodes = rr->table->nodes;
    const rg_rnode *child = &nodes[f->node->child];
    const uint32_t size = f->node->elem_size;
    const bool pairs = f->kind == F_PAIRS;
    size_t k = 0;
    for (; k < n; k++) {
        const rg_event *ev = &evs[k];
        const rg_rnode *node = pairs ? &child[f->i & 1] : child;
        if (!(node->accept & RG_RA(ev->kind)) || node->cval) break;
        char *at = f->mem + (pairs ? f->i >> 1 : f->i) * size + node->offset;
        if (node->store == RG_RT_VIEW) {
            put_view(rr, c, at, ev->kind == RG_EV_NULL ? (rg_view){NULL, 0} : ev->str);
        } else if (node->store == RG_RT_I64) {
            memcpy(at, &ev->u.i, sizeof ev->u.i);
        } else if (node->store == RG_RT_DBL && ev->kind == RG_EV_BULK) {
            double d;
            if (!text_double(ev->str, &d)) break;
            memcpy(at, &d, sizeof d);
        } else {
            break;
        }
        f->i++;
    }
    return k;
}

enum { BATCH = 32 };

/* One batch of events for a fast frame: RG_OK to go on, else what the decoder said. The event
 * that completed the reply, if any, is left in *last with *done set. */
static rg_status fast_batch(rg_reply_reader *rr, call_ctx *c, size_t len, size_t *pos,
                            rg_event *last, bool *done) {
    rg_event evs[BATCH];
    rg_rframe *f = &rr->stack[rr->depth - 1];
    const uint64_t left = f->n - f->i;
    rg_status st;
    const size_t n =
        rg_next_batch(&rr->rd, c->buf, len, pos, evs, left < BATCH ? left : BATCH, &st);
    /* A batch that stopped at its count consumed nothing after its last event. */
    if (st == RG_OK) rr->mark = rg_reader_offset(&rr->rd);
    size_t k = fast_store(rr, c, f, evs, n);
    for (; k < n; k++) {
        c->before = rg_reader_offset(&rr->rd); /* only raw values use it; none are fast */
        step(rr, c, &evs[k]);
        if (evs[k].complete) {
            *last = evs[k];
            *done = true;
            return RG_OK;
        }
    }
    return st;
}

/* The reply did not complete in its first call: decode it again from its start with views
 * kept as offsets, so the caller may move its bytes before the next call. */
static void leave_direct(rg_reply_reader *rr, call_ctx *c, size_t *pos) {
    rewind_reader(rr);
    *pos = (size_t)(rr->start - c->base);
    const rg_rtable *t = rr->table;
    void *out = rr->out;
    begin(rr, t, out);
    rr->direct = false;
}

static rg_reply_status decode_loop(rg_reply_reader *rr, call_ctx *c, size_t len, size_t *pos) {
    for (;;) {
        rg_event ev;
        rg_status st = RG_OK;
        bool done = false;
        if (rr->depth && !rr->skipping && fast_frame(rr, &rr->stack[rr->depth - 1])) {
            st = fast_batch(rr, c, len, pos, &ev, &done);
        } else {
            c->before = rr->mark;
            st = rg_next(&rr->rd, c->buf, len, pos, &ev);
            if (st == RG_OK) {
                rr->mark = rg_reader_offset(&rr->rd);
                step(rr, c, &ev);
                done = ev.complete;
            }
        }
        if (done) return finish(rr, c, pos);
        if (st == RG_NEED_MORE) return RG_REPLY_NEED_MORE;
        if (st != RG_OK) {
            const char *why = rg_reader_error(&rr->rd, NULL);
            rr->active = false;
            rr->error = (rg_view){why, why ? strlen(why) : 0};
            return RG_REPLY_PROTOCOL;
        }
    }
}

/* The reply's first event. A whole scalar reply (GET, INCR, ...) is stored at once; anything
 * else begins the reply and goes through step(). */
static rg_reply_status first_event(rg_reply_reader *rr, const rg_rtable *t, call_ctx *c, size_t len,
                                   size_t *pos, void *out) {
    rg_event ev;
    if (!rr->pending) rr->start = rg_reader_offset(&rr->rd);
    const uint64_t before = rr->start;
    const rg_status st = rg_next(&rr->rd, c->buf, len, pos, &ev);
    /* The first token may be partly consumed (a long bulk's header): the reply starts before it. */
    rr->pending = st == RG_NEED_MORE;
    if (st == RG_NEED_MORE) return RG_REPLY_NEED_MORE;
    if (st != RG_OK) {
        const char *why = rg_reader_error(&rr->rd, NULL);
        rr->error = (rg_view){why, why ? strlen(why) : 0};
        return RG_REPLY_PROTOCOL;
    }
    const rg_rnode *root = &t->nodes[0];
    if (ev.complete && root->shape == RG_RS_SCALAR && (root->accept & RG_RA(ev.kind))) {
        if (root->store == RG_RT_VIEW && !root->cval) {
            const rg_view v = ev.kind == RG_EV_NULL ? (rg_view){NULL, 0} : ev.str;
            memcpy((char *)out + root->offset, &v, sizeof v);
            return RG_REPLY_OK;
        }
        if (root->store == RG_RT_I64) {
            memcpy((char *)out + root->offset, &ev.u.i, sizeof ev.u.i);
            return RG_REPLY_OK;
        }
        rr->table = t;
        rr->direct = true;
        rr->depth = 0;
        rr->skipping = false;
        if (root->store == RG_RT_NONE) memset(out, 0, t->result_size);
        return put_scalar(rr, c, root, out, &ev) ? RG_REPLY_OK : RG_REPLY_MISMATCH;
    }
    begin(rr, t, out);
    rr->start = before;
    rr->mark = rg_reader_offset(&rr->rd);
    rr->start_values = rg_reader_values(&rr->rd) - ev.complete;
    c->before = before;
    step(rr, c, &ev);
    return ev.complete ? finish(rr, c, pos) : RG_REPLY_NEED_MORE;
}

rg_reply_status rg_reply_decode(rg_reply_reader *rr, const rg_rtable *t, const char *buf,
                                size_t len, size_t *pos, void *out) {
    call_ctx c = {buf, rg_reader_offset(&rr->rd) - *pos, 0};
    rg_reply_status st = RG_REPLY_NEED_MORE;
    if (!rr->active) {
        st = first_event(rr, t, &c, len, pos, out);
        if (st != RG_REPLY_NEED_MORE || !rr->active) return st;
    }
    st = decode_loop(rr, &c, len, pos);
    if (st == RG_REPLY_NEED_MORE && rr->direct) {
        leave_direct(rr, &c, pos);
        st = decode_loop(rr, &c, len, pos);
    }
    return st;
}
