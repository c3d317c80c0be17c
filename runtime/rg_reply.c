/* respgen runtime: the table-driven engine behind the generated typed reply decoders.
 *
 * One loop pulls events from rg_next and hands each to step(), which finds the node the event
 * belongs to (the root, or the next slot of the innermost open aggregate) and stores the value.
 * Views are kept as offsets from the reply's start (cast to pointers) until the reply completes,
 * then fixed up in one walk, so a caller may move its buffer between calls.
 *
 * Two things need more than the event at hand, and both look ahead over the bytes of the call
 * with a copy of the decoder (no event is consumed twice): a oneof whose alternatives take the
 * same aggregate header (ZRANGE, ZPOPMIN, XAUTOCLAIM, GEOSEARCH) checks each candidate against
 * the whole aggregate with the same checks the decode makes (check_value) and takes the first
 * that fits; a streamed aggregate (*?, %?) is counted before its storage is carved. When the
 * aggregate has not fully arrived and the choice still depends on it, the header waits (it is
 * consumed; its event is kept in the reader) and the next call decides again. */
#include "rg_reply.h"
#include "rg_decimal.h"
#include "rg_digits.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define RG_NOINLINE __attribute__((noinline))
#else
#define RG_NOINLINE
#endif

enum { F_ARRAY, F_PAIRS, F_TUPLE, F_ATTR, F_RAW, F_OBJECT };

/* The per-call facts step() needs to turn event views into offsets. */
typedef struct call_ctx {
    const char *buf;
    size_t len;
    size_t *pos;     /* the reader's position in buf; NULL while a batch's events are stepped
                        (the reader is past them then, so nothing may look ahead) */
    uint64_t base;   /* stream offset of buf[0] */
    uint64_t before; /* stream offset of the current event's first byte */
} call_ctx;

/* What rr->ready caches: between replies, nothing partly read, the decoder idle (and whether
 * rg_reply_quick_bulk's bulks, under 1000 bytes, are within the decoder's limits). */
static uint8_t between_replies(const rg_reply_reader *rr) {
    if (rr->active || rr->pending || rr->push_skip || rr->rd.depth || !rg_fast_ready(&rr->rd)) {
        return 0;
    }
    return rr->rd.fast_bulk_end >= 1000 ? RG_REPLY_QUICK : RG_REPLY_IDLE;
}

/* Every call that may change the state ends here (rg_reply_quick_bulk keeps it). */
static rg_status settle(rg_reply_reader *rr, rg_status st) {
    rr->ready = between_replies(rr);
    return st;
}

void rg_reply_reader_init(rg_reply_reader *rr, const rg_limits *limits) {
    memset(rr, 0, offsetof(rg_reply_reader, stack));
    rg_reader_init(&rr->rd, limits);
    rr->ready = between_replies(rr);
}

void rg_reply_set_storage(rg_reply_reader *rr, void *mem, size_t cap) {
    rr->mem = mem;
    rr->cap = mem ? cap : 0;
}

rg_status rg_reply_set_stack(rg_reply_reader *rr, rg_frame *frames, size_t n, uint32_t max_depth) {
    if (rr->active || rr->pending || rr->push_skip) return RG_INVALID;
    return rg_reader_set_stack(&rr->rd, frames, n, max_depth);
}

/* A fresh decoder with rr's limits and frames (rg_reader_init alone would drop the frames and
 * the depth they allow); its depth is 0, so the frames are taken back. Out of line: rare. */
RG_NOINLINE static void restart_reader(rg_reply_reader *rr) {
    const rg_limits limits = rr->rd.limits;
    rg_frame *const deep = rr->rd.deep;
    const size_t ndeep = rr->rd.ndeep;
    rg_reader_init(&rr->rd, &limits);
    (void)rg_reader_set_stack(&rr->rd, deep, ndeep, limits.max_depth);
}

void rg_reply_set_each(rg_reply_reader *rr, rg_reply_each_fn fn, void *ud) {
    rr->each = fn;
    rr->each_ud = ud;
}

rg_error rg_reply_error(const rg_reply_reader *rr) {
    if (rr->rd.status != RG_OK) return rg_reader_error(&rr->rd);
    const rg_status st = rr->server_error ? RG_SERVER_ERROR
                         : rr->skipping   ? RG_MISMATCH
                         : rr->lost       ? RG_LOST
                                          : RG_OK;
    if (st == RG_OK) return (rg_error){RG_OK, {NULL, 0}, 0};
    if (st == RG_LOST) return (rg_error){st, RG_LIT("bytes of the reply were dropped"), rr->start};
    return (rg_error){st, rr->error, rr->start};
}

/* ------------------------------------------------------------------------------------------ */
/* Storage. */

/* Carves size bytes (8-aligned, zeroed) from the caller's storage, or returns NULL when they do
 * not fit; either way the need is counted so a size query learns the total. */
static char *reserve(rg_reply_reader *rr, uint64_t size);

/* reserve() without the zeroing, for a list whose every byte its loop writes (root_list). */
static char *carve(rg_reply_reader *rr, uint64_t size) {
    const size_t at = (rr->used + 7u) & ~(size_t)7u;
    if (size == 0) return NULL;
    if (size > SIZE_MAX - at) {
        rr->used = SIZE_MAX;
        return NULL;
    }
    rr->used = at + (size_t)size;
    if (rr->used > rr->cap) return NULL;
    return rr->mem + at;
}

static char *reserve(rg_reply_reader *rr, uint64_t size) {
    char *const at = carve(rr, size);
    if (at) memset(at, 0, (size_t)size);
    return at;
}

/* n elements of size bytes; a count no storage could hold is counted as all of it. */
static char *reserve_n(rg_reply_reader *rr, uint64_t n, uint32_t size) {
    if (size && n > UINT64_MAX / size) n = UINT64_MAX / size;
    return reserve(rr, n * size);
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
        } else if (f->kind == F_OBJECT) {
            const rg_rnode *names = &rr->table->nodes[f->node->child];
            if (i % 2 && f->cur < f->node->nchildren / 2) {
                w = snprintf(out + n, cap - n, ".%s", names[2 * f->cur].cval);
            } else {
                w = snprintf(out + n, cap - n, "[%llu]", (unsigned long long)i);
            }
        } else if (f->kind == F_TUPLE && f->node->shape == RG_RS_PAIRS) {
            w = snprintf(out + n, cap - n, ".%s", i % 2 ? "value" : "key");
        } else if (f->kind != F_ATTR && f->kind != F_RAW) {
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
    const int n =
        snprintf(rr->msg, sizeof rr->msg, "%s: reply%s: expected %s, received %s",
                 rr->table->command, path, why ? why : want, received_text(ev, got, sizeof got));
    /* A message cut short says so (a long command name and a deep path do not fit). */
    if (n >= (int)sizeof rr->msg) memcpy(rr->msg + sizeof rr->msg - 4, "...", 4);
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

/* [-]digits[.digits] with 1 to 19 digits: one loop for each part, no test for the point in
 * between, then rg_decimal. Anything else (exponents, inf, 20 digits or more) is for
 * rg_double_text. */
static inline bool quick_double(rg_view s, double *out) {
    const char *p = s.ptr, *const end = s.ptr + s.len;
    const bool neg = p < end && *p == '-';
    p += neg;
    if (end - p > RG_DECIMAL_DIGITS + 1) return false;
    uint64_t m = 0;
    const char *q = rg_digits_wrap(p, end, &m);
    size_t frac = 0;
    if (q < end) {
        if (*q != '.') return false;
        const char *r = rg_digits_wrap(q + 1, end, &m);
        if (r != end) return false;
        frac = (size_t)(end - q - 1);
    }
    const size_t digits = (size_t)(end - p) - (q < end);
    if (digits == 0 || digits > RG_DECIMAL_DIGITS) return false;
    return rg_decimal(m, (unsigned)frac, neg, out);
}

static inline bool text_double(rg_view s, double *out) {
    return quick_double(s, out) || rg_double_text(s.ptr, s.len, out);
}

static inline bool const_fits(const rg_rnode *node, const rg_event *ev) {
    if (!node->cval) return true;
    if (ev->kind != RG_EV_SIMPLE && ev->kind != RG_EV_BULK) return false;
    return ev->str.len == strlen(node->cval) && memcmp(ev->str.ptr, node->cval, ev->str.len) == 0;
}

/* Why a scalar event does not fit a scalar node ("" for its kind or constant), or NULL; a
 * double's value goes to *d. The one set of checks behind the decode, the size query (which
 * stores nothing) and the lookahead, so the three never disagree on a reply. */
RG_FAST_INLINE const char *scalar_misfit(const rg_rnode *node, const rg_event *ev, double *d) {
    if (!(node->accept & RG_RA(ev->kind)) || !const_fits(node, ev)) return "";
    if (node->store == RG_RT_BOOL && ev->kind == RG_EV_INT && (ev->u.i < 0 || ev->u.i > 1)) {
        return "0 or 1";
    }
    if (node->store != RG_RT_DBL) return NULL;
    if (ev->kind == RG_EV_DOUBLE) *d = ev->u.d;
    if (ev->kind == RG_EV_INT) *d = (double)ev->u.i;
    if ((ev->kind == RG_EV_BULK || ev->kind == RG_EV_SIMPLE) && !text_double(ev->str, d)) {
        return "a number";
    }
    return NULL;
}

/* Stores a scalar event; returns false (and says why) when its value does not fit the node. */
static bool put_scalar(rg_reply_reader *rr, const call_ctx *c, const rg_rnode *node, char *mem,
                       const rg_event *ev) {
    double d = 0;
    const char *why = scalar_misfit(node, ev, &d);
    if (why) return mismatch(rr, node, ev, *why ? why : NULL), false;
    if (!mem || node->store == RG_RT_NONE) return true;
    char *at = mem + node->offset;
    switch (node->store) {
    case RG_RT_VIEW:
        put_view(rr, c, at, ev->kind == RG_EV_NULL ? (rg_view){NULL, 0} : ev->str);
        break;
    case RG_RT_I64: memcpy(at, &ev->u.i, sizeof(int64_t)); break;
    case RG_RT_BOOL: {
        const bool b = ev->kind == RG_EV_BOOL ? ev->u.b : ev->u.i != 0;
        memcpy(at, &b, sizeof b);
        break;
    }
    case RG_RT_DBL: memcpy(at, &d, sizeof d); break;
    default: break;
    }
    return true;
}

/* ------------------------------------------------------------------------------------------ */
/* Lookahead: a copy of the decoder reads on over the bytes of this call; the real one is not
 * moved. */

static bool is_header(uint8_t kind) {
    return kind >= RG_EV_ARRAY && kind <= RG_EV_PUSH;
}

typedef enum { CK_FITS, CK_FAILS, CK_MORE } ck;

typedef struct look {
    rg_reader rd;
    const char *buf;
    size_t len, pos;
} look;

static void look_init(look *lk, const rg_reply_reader *rr, const call_ctx *c) {
    lk->rd = rr->rd;
    lk->buf = c->buf;
    lk->len = c->len;
    lk->pos = *c->pos;
}

/* Skips the rest of the value that began with first (an aggregate or a chunked string). A
 * malformed value "fails": the real decode then meets the same error. */
static ck look_skip(look *lk, const rg_event *first) {
    uint8_t end = RG_EV_END;
    if (first->kind == RG_EV_STR_BEGIN) end = RG_EV_STR_END;
    if (end == RG_EV_END && !(is_header(first->kind) || first->kind == RG_EV_ATTR)) return CK_FITS;
    for (;;) {
        rg_event ev;
        const rg_status st = rg_next(&lk->rd, lk->buf, lk->len, &lk->pos, &ev);
        if (st == RG_NEED_MORE) return CK_MORE;
        if (st != RG_OK) return CK_FAILS;
        if (ev.kind == end && ev.depth == first->depth) return CK_FITS;
    }
}

/* The next event that starts a value or ends an aggregate (attributes skipped). */
static ck look_next(look *lk, rg_event *ev) {
    for (;;) {
        const rg_status st = rg_next(&lk->rd, lk->buf, lk->len, &lk->pos, ev);
        if (st == RG_NEED_MORE) return CK_MORE;
        if (st != RG_OK) return CK_FAILS;
        if (ev->kind != RG_EV_ATTR) return CK_FITS;
        const ck r = look_skip(lk, ev);
        if (r != CK_FITS) return r;
    }
}

static uint64_t tuple_min(const rg_rnode *node) {
    return node->min ? node->min : node->nchildren;
}

/* Does a header's count rule the node out? (Streamed counts are checked at the end.) */
static bool count_fits(const rg_rnode *node, const rg_event *ev) {
    if (node->shape != RG_RS_TUPLE || ev->u.i < 0) return true;
    return (uint64_t)ev->u.i >= tuple_min(node) && (uint64_t)ev->u.i <= node->nchildren;
}

static ck check_value(look *lk, const rg_rnode *nodes, const rg_rnode *node, const rg_event *ev);

/* One RESP3 pair of a nested pairs list: [key, value]. */
static ck check_pair(look *lk, const rg_rnode *nodes, const rg_rnode *node, const rg_event *ev) {
    if (ev->kind != RG_EV_ARRAY || ev->u.i != 2) return CK_FAILS;
    for (uint16_t k = 0; k < 3; k++) {
        rg_event e;
        const ck r = look_next(lk, &e);
        if (r != CK_FITS) return r;
        if (k == 2) return e.kind == RG_EV_END ? CK_FITS : CK_FAILS;
        const ck v = check_value(lk, nodes, &nodes[node->child + k], &e);
        if (v != CK_FITS) return v;
    }
    return CK_FAILS;
}

static bool is_text(uint8_t kind) {
    return kind == RG_EV_BULK || kind == RG_EV_SIMPLE || kind == RG_EV_VERBATIM;
}

/* The field an object key names (nchildren / 2 when none). */
static uint16_t object_field(const rg_rnode *nodes, const rg_rnode *node, rg_view key) {
    const uint16_t n = node->nchildren / 2;
    for (uint16_t j = 0; j < n; j++) {
        const char *name = nodes[node->child + 2 * j].cval;
        if (name && strlen(name) == key.len && memcmp(name, key.ptr, key.len) == 0) return j;
    }
    return n;
}

/* An object's elements: text keys, the known fields' values checked, the others skipped. */
static ck check_object(look *lk, const rg_rnode *nodes, const rg_rnode *node, const rg_event *ev) {
    uint16_t field = 0;
    for (uint64_t i = 0;; i++) {
        rg_event e;
        ck r = look_next(lk, &e);
        if (r != CK_FITS) return r;
        if (e.kind == RG_EV_END && e.depth == ev->depth) return i % 2 ? CK_FAILS : CK_FITS;
        if (i % 2 == 0) {
            if (!is_text(e.kind)) return CK_FAILS;
            field = object_field(nodes, node, e.str);
            continue;
        }
        if (field < node->nchildren / 2) {
            r = check_value(lk, nodes, &nodes[node->child + 2 * field + 1], &e);
        } else {
            r = look_skip(lk, &e);
        }
        if (r != CK_FITS) return r;
    }
}

/* A run of scalar elements being checked (look_event). */
typedef struct look_run {
    const rg_rnode *child; /* ARRAY: the element; flat PAIRS: key, value */
    uint64_t i;            /* elements checked */
    uint32_t depth;        /* the elements' depth */
    bool pairs, fails, has;
    rg_event held; /* the event that ended the run, for check_agg's loop */
} look_run;

/* GCC (12) cannot see that the decoder's inline loop fills each event before the callback reads
 * it (rg_fast_token fills it exactly when it returns RG_FAST_EVENT) once such loops are inlined
 * here; clang and the loops' other users are clean. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

/* Checks one element of a run of scalars, inlined into the decoder's loop; pauses at anything
 * else (a header, an attribute, the end), which check_agg's loop then takes. */
RG_FAST_INLINE int look_event(void *ud, const rg_event *ev) {
    look_run *x = ud;
    double d;
    if (RG_FAST_RARE(ev->depth != x->depth || is_header(ev->kind) || ev->kind >= RG_EV_ATTR)) {
        x->held = *ev;
        x->has = true;
        return 1;
    }
    const rg_rnode *node = x->pairs ? &x->child[x->i & 1] : x->child;
    if (RG_FAST_RARE(scalar_misfit(node, ev, &d) != NULL)) {
        x->fails = true;
        return 1;
    }
    x->i++;
    return 0;
}

/* The scalar elements from element *i on, checked in one inline loop (the lookahead of ZRANGE
 * over RESP2 reads whole lists): CK_FITS with *e the event that ended the run, consumed. */
static ck look_scalars(look *lk, const rg_rnode *child, bool pairs, uint32_t depth, uint64_t *i,
                       rg_event *e) {
    look_run x = {child, *i, depth, pairs, false, false, {0}};
    const rg_status st = rg_feed_inline(&lk->rd, lk->buf, lk->len, &lk->pos, look_event, &x);
    *i = x.i;
    if (x.fails) return CK_FAILS;
    if (st == RG_NEED_MORE) return CK_MORE;
    if (st != RG_PAUSED || !x.has) return CK_FAILS; /* a malformed value */
    *e = x.held;
    return CK_FITS;
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

/* Does the list node take runs of scalars (ARRAY of a scalar, flat PAIRS of scalars)? */
static bool scalar_list(const rg_rnode *nodes, const rg_rnode *node, int mode) {
    const rg_rnode *child = &nodes[node->child];
    if (node->shape == RG_RS_ARRAY) return child->shape == RG_RS_SCALAR;
    return node->shape == RG_RS_PAIRS && mode == 1 && child[0].shape == RG_RS_SCALAR &&
           child[1].shape == RG_RS_SCALAR;
}

/* Every element of the aggregate whose header is ev, against an ARRAY, PAIRS or TUPLE node. */
static ck check_agg(look *lk, const rg_rnode *nodes, const rg_rnode *node, const rg_event *ev) {
    int mode = ev->kind == RG_EV_MAP ? 1 : 0; /* PAIRS: 1 flat, 2 nested */
    uint64_t i = 0;
    if (!is_header(ev->kind) || !count_fits(node, ev)) return CK_FAILS;
    for (;; i++) {
        rg_event e;
        ck r;
        if (scalar_list(nodes, node, mode)) {
            r = look_scalars(lk, &nodes[node->child], node->shape == RG_RS_PAIRS, ev->depth + 1, &i,
                             &e);
            if (r == CK_FITS && e.kind == RG_EV_ATTR) r = look_skip(lk, &e);
            if (r == CK_FITS && e.kind == RG_EV_ATTR) r = look_next(lk, &e);
        } else {
            r = look_next(lk, &e);
        }
        if (r != CK_FITS) return r;
        if (e.kind == RG_EV_END && e.depth == ev->depth) break;
        const rg_rnode *child = &nodes[node->child];
        if (node->shape == RG_RS_TUPLE) {
            if (i >= node->nchildren) return CK_FAILS;
            child += i;
        } else if (node->shape == RG_RS_PAIRS) {
            if (mode == 0) mode = is_header(e.kind) ? 2 : 1;
            if (mode == 2) {
                r = check_pair(lk, nodes, node, &e);
                if (r != CK_FITS) return r;
                continue;
            }
            child += i % 2;
        }
        r = check_value(lk, nodes, child, &e);
        if (r != CK_FITS) return r;
    }
    if (mode == 1 && i % 2) return CK_FAILS;
    if (node->shape == RG_RS_TUPLE && i < tuple_min(node)) return CK_FAILS;
    return CK_FITS;
}

/* Would the value that begins with ev fit node? Reads the value's remaining events. */
static ck check_value(look *lk, const rg_rnode *nodes, const rg_rnode *node, const rg_event *ev) {
    double d;
    /* as frame_room refuses it in the decode */
    if ((is_header(ev->kind) || ev->kind == RG_EV_STR_BEGIN) && ev->depth >= RG_MAX_DEPTH)
        return CK_FAILS;
    if (node->shape == RG_RS_ANY) return look_skip(lk, ev);
    if (!(node->accept & RG_RA(ev->kind))) return CK_FAILS;
    switch (node->shape) {
    case RG_RS_SCALAR: return scalar_misfit(node, ev, &d) ? CK_FAILS : CK_FITS;
    case RG_RS_OBJECT: return check_object(lk, nodes, node, ev);
    case RG_RS_ONEOF:
        for (uint16_t k = 0; k < node->nchildren; k++) {
            const rg_rnode *alt = &nodes[node->child + k];
            if (!(alt->accept & RG_RA(ev->kind))) continue;
            look copy = *lk;
            const ck r = check_value(&copy, nodes, alt, ev);
            if (r == CK_FITS) *lk = copy;
            if (r != CK_FAILS) return r;
        }
        return CK_FAILS;
    default: return check_agg(lk, nodes, node, ev);
    }
}

/* Could alternative alt take the value that begins with ev, judged by ev alone? */
static bool candidate(const rg_rnode *alt, const rg_event *ev) {
    double d;
    if (!(alt->accept & RG_RA(ev->kind))) return false;
    if (alt->shape == RG_RS_SCALAR) return scalar_misfit(alt, ev, &d) == NULL;
    return count_fits(alt, ev);
}

/* The alternative of a oneof that takes the value beginning with ev (NULL: none), or CK_MORE
 * when the bytes at hand cannot tell yet. The first candidate that fits the whole value wins;
 * one that the input ends inside wins only when no later candidate could still fit. */
static ck decide(const rg_reply_reader *rr, const call_ctx *c, const rg_rnode *oneof,
                 const rg_event *ev, const rg_rnode *first, const rg_rnode **out) {
    const rg_rnode *nodes = rr->table->nodes;
    const rg_rnode *const end = &nodes[oneof->child] + oneof->nchildren;
    const rg_rnode *open = NULL; /* a candidate the input ended inside */
    size_t n = 0;
    *out = NULL;
    for (const rg_rnode *alt = first; alt < end; alt++) n += candidate(alt, ev);
    for (const rg_rnode *alt = first; alt < end; alt++) {
        if (!candidate(alt, ev)) continue;
        if (n == 1 || !is_header(ev->kind) || !c->pos) {
            /* The only one left, or a scalar (fully checked by candidate()). */
            if (!open) *out = alt;
            return open ? CK_MORE : CK_FITS;
        }
        n--;
        look lk;
        look_init(&lk, rr, c);
        const ck r = check_value(&lk, nodes, alt, ev);
        if (r == CK_FITS && !open) *out = alt;
        if (r == CK_FITS) return open ? CK_MORE : CK_FITS;
        if (r == CK_MORE && open) return CK_MORE;
        if (r == CK_MORE) open = alt;
    }
    *out = open;
    return CK_FITS;
}

/* How many elements the streamed aggregate ev begins has, when its end is at hand. */
static ck look_count(const rg_reply_reader *rr, const call_ctx *c, const rg_event *ev,
                     uint64_t *n) {
    look lk;
    look_init(&lk, rr, c);
    for (*n = 0;; ++*n) {
        rg_event e;
        ck r = look_next(&lk, &e);
        if (r == CK_FITS && e.kind == RG_EV_END && e.depth == ev->depth) return CK_FITS;
        if (r == CK_FITS) r = look_skip(&lk, &e);
        if (r == CK_MORE) return CK_MORE;
        if (r == CK_FAILS) return CK_FITS; /* the decode stops at the same error */
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Aggregates. */

/* Whether ev, if it opens a frame, finds room for it. Only typed levels take one each (a raw
 * value or an attribute takes one for all of its levels), and each is one level of the decoder,
 * so a header at decoder depth RG_MAX_DEPTH or more is refused by both the decode and the
 * lookahead (check_value): every lookahead then starts with the decoder within its inline
 * frames, as the copies it makes need (rg_reader_set_stack). */
static bool frame_room(const rg_reply_reader *rr, const rg_event *ev) {
    const bool opens = is_header(ev->kind) || ev->kind == RG_EV_ATTR || ev->kind == RG_EV_STR_BEGIN;
    return !opens || (rr->depth < RG_MAX_DEPTH && ev->depth < RG_MAX_DEPTH);
}

/* Out of line: rare, and kept out of the hot step(). */
RG_NOINLINE static void too_deep(rg_reply_reader *rr, const rg_rnode *node, const rg_event *ev) {
    mismatch(rr, node, ev, "a value less deeply nested");
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

/* An attribute: one frame for all of it (what it holds is skipped). */
RG_NOINLINE static void open_attr(rg_reply_reader *rr, const rg_event *ev) {
    if (!frame_room(rr, ev)) {
        too_deep(rr, NULL, ev);
        return;
    }
    push(rr, F_ATTR, NULL, ev);
}

static bool in_callback_slot(const rg_reply_reader *rr, const rg_rframe *f) {
    return rr->slot && f == &rr->stack[0];
}

/* Callback mode: the root list's elements all go to one slot, handed over one by one. */
static bool open_slot(rg_reply_reader *rr, const rg_rnode *node) {
    if (!rr->each || rr->depth != 1) return false;
    rr->slot = reserve(rr, node->elem_size);
    rr->slot_used = rr->used;
    return true;
}

static void open_array(rg_reply_reader *rr, const rg_rnode *node, char *mem, const rg_event *ev) {
    rg_rframe *f = push(rr, F_ARRAY, node, ev);
    f->field = mem ? mem + node->offset : NULL;
    if (open_slot(rr, node)) return;
    f->mem = reserve_n(rr, f->n, node->elem_size);
    set_items(f->field, f->mem);
}

/* A list of pairs: a RESP3 map is flat; an array is flat (RESP2) or nested (RESP3 pairs), which
 * its first element tells, so the storage is carved then. */
static void open_pairs(rg_reply_reader *rr, const rg_rnode *node, char *mem, const rg_event *ev) {
    rg_rframe *f = push(rr, F_PAIRS, node, ev);
    f->field = mem ? mem + node->offset : NULL;
    if (ev->kind == RG_EV_MAP) f->pairs_mode = 1;
    if (open_slot(rr, node) || ev->kind != RG_EV_MAP) return;
    f->mem = reserve_n(rr, f->n / 2, node->elem_size);
    set_items(f->field, f->mem);
}

static void open_raw(rg_reply_reader *rr, const rg_rnode *node, char *mem, const rg_event *ev,
                     const call_ctx *c) {
    if (!frame_room(rr, ev)) {
        too_deep(rr, node, ev);
        return;
    }
    rg_rframe *f = push(rr, F_RAW, NULL, ev);
    f->start = c->before;
    f->pairs_mode = ev->kind == RG_EV_STR_BEGIN; /* ends with STR_END, not END */
    f->raw = mem && node ? mem + node->offset : NULL;
}

/* The raw bytes of a value, from stream offset from to to (the fixup makes them a pointer). */
static void put_raw(const rg_reply_reader *rr, const call_ctx *c, char *at, uint64_t from,
                    uint64_t to) {
    rg_view o = {(const char *)(uintptr_t)(from - rr->start + 1), (size_t)(to - from)};
    if (rr->direct) o.ptr = c->buf + (from - c->base);
    if (at) memcpy(at, &o, sizeof o);
}

/* The header ev waits for the next call (see rg_reply_reader.wait_*). */
static void wait_for(rg_reply_reader *rr, const call_ctx *c, const rg_rnode *node, char *mem,
                     const rg_event *ev) {
    rr->waiting = true;
    rr->wait_node = node;
    rr->wait_mem = mem;
    rr->wait_ev = *ev;
    rr->wait_before = c->before;
}

/* A streamed aggregate's header, with the count the lookahead found, so that its storage can be
 * carved at once (a list's items are contiguous). The callback root needs no storage and is
 * handed over as it streams. Returns false when the header waits. */
static bool counted(rg_reply_reader *rr, const call_ctx *c, const rg_rnode *node, char *mem,
                    rg_event *ev) {
    uint64_t n = 0;
    if (ev->u.i >= 0 || !is_header(ev->kind)) return true;
    if (node->shape == RG_RS_ANY || node->shape == RG_RS_OBJECT) return true; /* no storage */
    if (rr->each && rr->depth == 0 && node->shape != RG_RS_TUPLE) return true;
    if (!c->pos) return mismatch(rr, node, ev, "a counted aggregate"), false;
    if (look_count(rr, c, ev, &n) == CK_MORE) return wait_for(rr, c, node, mem, ev), false;
    ev->u.i = (int64_t)(ev->kind == RG_EV_MAP ? n / 2 : n);
    return true;
}

static void open_tuple(rg_reply_reader *rr, const rg_rnode *node, char *mem, const rg_event *ev) {
    if (!count_fits(node, ev)) {
        char want[48];
        if (tuple_min(node) == node->nchildren) {
            snprintf(want, sizeof want, "array of %u", (unsigned)node->nchildren);
        } else {
            snprintf(want, sizeof want, "array of %u to %u", (unsigned)tuple_min(node),
                     (unsigned)node->nchildren);
        }
        mismatch(rr, node, ev, want);
        return;
    }
    push(rr, F_TUPLE, node, ev)->mem = mem;
}

typedef enum { TRY_TOOK, TRY_FAILS, TRY_UNSURE } try_result;

static try_result try_list(rg_reply_reader *rr, const call_ctx *c, const rg_rnode *oneof,
                           const rg_rnode *alt, char *mem, const rg_event *ev);

static void value(rg_reply_reader *rr, const call_ctx *c, const rg_rnode *node, char *mem,
                  const rg_event *ev) {
    if (!(node->accept & RG_RA(ev->kind))) {
        mismatch(rr, node, ev, NULL);
        return;
    }
    if (node->shape != RG_RS_SCALAR && !frame_room(rr, ev)) {
        too_deep(rr, node, ev);
        return;
    }
    rg_event h = *ev;
    if (!counted(rr, c, node, mem, &h)) return;
    switch (node->shape) {
    case RG_RS_SCALAR: put_scalar(rr, c, node, mem, ev); break;
    case RG_RS_ARRAY: open_array(rr, node, mem, &h); break;
    case RG_RS_PAIRS: open_pairs(rr, node, mem, &h); break;
    case RG_RS_TUPLE: open_tuple(rr, node, mem, &h); break;
    case RG_RS_OBJECT: push(rr, F_OBJECT, node, &h)->mem = mem; break;
    case RG_RS_ONEOF: {
        /* Lists of scalars are tried by decoding them (try_list), in order, while their
         * elements rule them out; the rest are decided by the lookahead. */
        const rg_rnode *alt = NULL, *from = &rr->table->nodes[node->child];
        const rg_rnode *const end = from + node->nchildren;
        for (; from < end; from++) {
            if (!candidate(from, ev)) continue;
            const try_result tr = try_list(rr, c, node, from, mem, ev);
            if (tr == TRY_TOOK) return;
            if (tr == TRY_UNSURE) break;
        }
        if (decide(rr, c, node, ev, from, &alt) == CK_MORE) {
            wait_for(rr, c, node, mem, ev);
            return;
        }
        if (!alt) {
            mismatch(rr, node, ev, NULL);
            return;
        }
        if (mem) mem[node->offset] = (char)(alt - &rr->table->nodes[node->child] + 1);
        value(rr, c, alt, mem, ev);
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

/* The node and memory of the next element of the innermost frame, or NULL after a mismatch. */
static const rg_rnode *next_slot(rg_reply_reader *rr, const rg_rnode *nodes, char **mem,
                                 const rg_event *ev) {
    rg_rframe *f = &rr->stack[rr->depth - 1];
    const rg_rnode *node = f->node;
    const uint64_t i = f->i++;
    const bool slot = in_callback_slot(rr, f);
    if (i >= f->n) {
        /* Never reached while counts are checked at the header; kept so no count can ever
         * index past a list's storage. */
        return mismatch(rr, node, ev, "no more elements"), NULL;
    }
    if (f->kind == F_TUPLE) {
        *mem = f->mem;
        return &nodes[node->child + i];
    }
    if (f->kind == F_ARRAY) {
        *mem = slot ? rr->slot : f->mem ? f->mem + i * node->elem_size : NULL;
        return &nodes[node->child];
    }
    if (f->pairs_mode == 0) {
        /* The first element of a pairs array decides between RESP3 pairs and RESP2 flat. */
        f->pairs_mode = is_header(ev->kind) ? 2 : 1;
        if (f->pairs_mode == 1 && f->n != UINT64_MAX && f->n % 2) {
            const rg_event hdr = {.kind = RG_EV_ARRAY, .u.i = (int64_t)f->n};
            rr->depth--; /* the message names the array, not its first element */
            mismatch(rr, node, &hdr, "an even number of elements");
            return NULL;
        }
        const uint64_t pairs = f->pairs_mode == 1 ? f->n / 2 : f->n;
        if (!slot) f->mem = reserve_n(rr, pairs, node->elem_size);
        set_items(f->field, f->mem);
    }
    if (f->pairs_mode == 2) {
        *mem = slot ? rr->slot : f->mem ? f->mem + i * node->elem_size : NULL;
        return node; /* a nested pair: the pairs node read as a 2-tuple */
    }
    *mem = slot ? rr->slot : f->mem ? f->mem + i / 2 * node->elem_size : NULL;
    return &nodes[node->child + i % 2];
}

/* An element of an object: a key names the field of the value after it (an unknown one is
 * skipped); a value goes to its field, whose bit is set. */
static void object_element(rg_reply_reader *rr, const call_ctx *c, rg_rframe *f,
                           const rg_event *ev) {
    const rg_rnode *nodes = rr->table->nodes;
    const rg_rnode *node = f->node;
    if (f->i++ % 2 == 0) {
        if (!is_text(ev->kind)) {
            mismatch(rr, NULL, ev, "a field name (string)");
            return;
        }
        f->cur = object_field(nodes, node, ev->str);
        return;
    }
    if (f->cur == node->nchildren / 2) {
        if (is_header(ev->kind) || ev->kind == RG_EV_STR_BEGIN) open_raw(rr, NULL, NULL, ev, c);
        return;
    }
    if (f->mem) {
        uint64_t present;
        memcpy(&present, f->mem + node->offset, sizeof present);
        present |= (uint64_t)1 << f->cur;
        memcpy(f->mem + node->offset, &present, sizeof present);
    }
    value(rr, c, &nodes[node->child + 2 * f->cur + 1], f->mem, ev);
}

/* One RESP3 pair of a nested pairs list: a 2-element array read as a tuple of the pairs node. */
static void open_pair(rg_reply_reader *rr, const rg_rnode *node, char *mem, const rg_event *ev) {
    if (ev->kind != RG_EV_ARRAY || ev->u.i != 2 || !frame_room(rr, ev)) {
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
    case RG_RS_OBJECT: /* (an object's key nodes store nothing) */
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

/* A root list's element is complete: in callback mode hand it over and reuse the slot. An
 * attribute's end is no element, nor is the first half of a flat pair. */
static void element_done(rg_reply_reader *rr, const call_ctx *c) {
    if (!rr->slot || rr->depth != 1 || rr->skipping) return;
    const rg_rframe *f = &rr->stack[0];
    const bool flat = f->kind == F_PAIRS && f->pairs_mode == 1;
    if (flat && f->i % 2) return;
    const rg_rnode *nodes = rr->table->nodes;
    const char *origin = origin_of(rr, c);
    if (!origin) {
        rr->lost = true;
        return;
    }
    if (!rr->direct) {
        for (uint16_t k = 0; k < f->node->nchildren; k++) {
            fixup(nodes, &nodes[f->node->child + k], rr->slot, origin);
        }
    }
    const size_t index = (size_t)(flat ? f->i / 2 : f->i) - 1;
    if (rr->each(rr->each_ud, index, rr->slot) != 0) {
        snprintf(rr->msg, sizeof rr->msg, "%s: reply[%zu]: stopped by the callback",
                 rr->table->command, index);
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
    if ((f->kind == F_PAIRS && f->pairs_mode == 1 && f->i % 2) ||
        (f->kind == F_OBJECT && f->i % 2)) {
        mismatch(rr, f->node, ev, "an even number of elements");
    }
    rr->depth--;
}

/* A value was given to its node: when it is whole (no frame opened, none waiting), it is an
 * element done. */
static void after_value(rg_reply_reader *rr, const call_ctx *c, uint32_t depth) {
    if (!rr->waiting && rr->depth == depth) element_done(rr, c);
}

static void step(rg_reply_reader *rr, const call_ctx *c, const rg_event *ev) {
    const rg_rnode *nodes = rr->table->nodes;
    rg_rframe *top = rr->depth ? &rr->stack[rr->depth - 1] : NULL;
    if (rr->skipping) return; /* after a mismatch: wait for the reply's end */
    if (top && (top->kind == F_ATTR || top->kind == F_RAW)) {
        const uint8_t end = top->pairs_mode ? RG_EV_STR_END : RG_EV_END;
        if (ev->kind == end && ev->depth == top->depth) {
            const bool attr = top->kind == F_ATTR;
            close_frame(rr, c, ev);
            if (!attr) element_done(rr, c);
        }
        return;
    }
    if (ev->kind == RG_EV_ATTR) {
        open_attr(rr, ev);
        return;
    }
    if (ev->kind == RG_EV_END) {
        close_frame(rr, c, ev);
        element_done(rr, c);
        return;
    }
    rg_event e = *ev;
    if (!top && (ev->kind == RG_EV_ERROR || ev->kind == RG_EV_BLOBERR)) {
        rr->server_error = true;
        rr->error = ev->str;
        return;
    }
    if (!top && ev->kind == RG_EV_PUSH) {
        if (!rr->push_ok) {
            /* A push after an attribute: handed back to the caller, see take_push(). */
            rr->push_seen = true;
            rr->push_at = c->before;
            return;
        }
        e.kind = RG_EV_ARRAY; /* rg_reply_decode_push: the push is the table's array */
    }
    const uint32_t depth = rr->depth;
    if (top && top->kind == F_OBJECT) {
        object_element(rr, c, top, &e);
        after_value(rr, c, depth);
        return;
    }
    char *mem = rr->out;
    const rg_rnode *node = top ? next_slot(rr, nodes, &mem, &e) : &nodes[0];
    if (!node) return;
    if (node->shape == RG_RS_PAIRS && top && top->node == node && top->kind == F_PAIRS) {
        open_pair(rr, node, mem, &e);
    } else {
        value(rr, c, node, mem, &e);
    }
    after_value(rr, c, depth);
}

/* Decides a header that waited, now with the bytes of this call. */
static void resume(rg_reply_reader *rr, call_ctx *c) {
    const rg_event ev = rr->wait_ev;
    const uint32_t depth = rr->depth;
    rr->waiting = false;
    c->before = rr->wait_before;
    value(rr, c, rr->wait_node, rr->wait_mem, &ev);
    after_value(rr, c, depth);
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
    rr->waiting = rr->push_seen = false;
    rr->error = (rg_view){NULL, 0};
    rr->start = rg_reader_offset(&rr->rd);
    /* Callbacks must not see an element twice, so callback mode never decodes a reply again. */
    rr->direct = rr->each == NULL;
    rr->start_values = rg_reader_values(&rr->rd);
}

/* Puts the decoder back at the reply's start (it was idle there, so a fresh one with that
 * offset and value count is the same state). */
static void rewind_reader(rg_reply_reader *rr) {
    restart_reader(rr);
    rr->rd.offset = rr->start;
    rr->rd.values = rr->start_values;
    rr->mark = rr->start;
    rr->pending = false;
}

static rg_status finish(rg_reply_reader *rr, const call_ctx *c, size_t *pos) {
    const char *origin = origin_of(rr, c);
    rr->active = false;
    if (rr->server_error) return RG_SERVER_ERROR;
    if (rr->skipping) return RG_MISMATCH;
    if (!origin || rr->lost) return RG_LOST;
    if (rr->used > rr->cap) {
        /* Put the reply back: the caller retries it with enough storage. */
        rewind_reader(rr);
        *pos = (size_t)(rr->start - c->base);
        return RG_SHORT;
    }
    if (!rr->direct) fixup(rr->table->nodes, &rr->table->nodes[0], rr->out, origin);
    return RG_OK;
}

/* Arrays (and flat pairs) of scalars, the bulk of most replies: up to the elements left are
 * decoded in one batch (so never past the aggregate) and stored straight from the events. The
 * first event that needs more than a store, and every one after it, goes through step(). */
static bool fast_frame(const rg_reply_reader *rr, const rg_rframe *f) {
    if (f->kind == F_ARRAY) {
        return f->mem && !rr->slot && f->n != UINT64_MAX && f->n > f->i &&
               rr->table->nodes[f->node->child].shape == RG_RS_SCALAR;
    }
    if (f->kind != F_PAIRS || f->pairs_mode != 1 || !f->mem || f->n == UINT64_MAX) return false;
    const rg_rnode *kv = &rr->table->nodes[f->node->child];
    return f->n > f->i && kv[0].shape == RG_RS_SCALAR && kv[1].shape == RG_RS_SCALAR;
}

/* GCC (12) cannot see that the decoder's inline loop fills each event before the callback reads
 * it (rg_fast_token fills it exactly when it returns RG_FAST_EVENT) once three loops are inlined
 * into fast_batch; clang and the loops' other users are clean. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

/* A fast frame's state while the decoder feeds it (fast_event), copied out of the frame so
 * that the stores into the list (char pointers, which may alias anything in memory) do not make
 * the compiler reload it for every element. */
typedef struct fast_ctx {
    const rg_rnode *child; /* ARRAY: the element; PAIRS: key, value */
    char *mem;             /* the list's items */
    uint64_t i, n;         /* the frame's element counts */
    uintptr_t delta; /* a view's offset from the reply start, + 1, is its pointer + delta (0 while
                        views are pointers: rg_reply_reader.direct) */
    uint32_t size;   /* bytes of one item */
    uint32_t accept[2]; /* view_event: the children's accept sets and offsets */
    uint32_t off[2];
    bool pairs;
    bool has; /* held is an event for step() */
    rg_event held;
} fast_ctx;

/* Keeps an event for step(), field by field: a copy of the whole struct would make the compiler
 * keep every event of the loop in memory rather than in registers. */
static inline void hold(fast_ctx *x, const rg_event *ev) {
    x->held.kind = ev->kind;
    x->held.sub = ev->sub;
    x->held.complete = ev->complete;
    x->held.depth = ev->depth;
    x->held.u = ev->u;
    x->held.str = ev->str;
    x->held.fmt = ev->fmt;
    x->has = true;
}

/* Stores a scalar event that fits node at at (what put_scalar does, without its messages). */
RG_FAST_INLINE bool fast_put(const fast_ctx *x, const rg_rnode *node, char *at,
                             const rg_event *ev) {
    if (RG_FAST_RARE(!(node->accept & RG_RA(ev->kind)) || node->cval)) return false;
    if (RG_FAST_OFTEN(node->store == RG_RT_VIEW)) {
        rg_view v = ev->kind == RG_EV_NULL ? (rg_view){NULL, 0} : ev->str;
        v.ptr = v.ptr ? (const char *)((uintptr_t)v.ptr + x->delta) : NULL; /* delta 0: direct */
        memcpy(at, &v, sizeof v);
        return true;
    }
    if (node->store == RG_RT_I64) {
        memcpy(at, &ev->u.i, sizeof ev->u.i);
        return true;
    }
    double d = 0;
    if (scalar_misfit(node, ev, &d)) return false; /* the rare kinds: the one set of checks */
    if (node->store == RG_RT_DBL) memcpy(at, &d, sizeof d);
    if (node->store == RG_RT_BOOL) {
        const bool b = ev->kind == RG_EV_BOOL ? ev->u.b : ev->u.i != 0;
        memcpy(at, &b, sizeof b);
    }
    return true;
}

/* One event of a fast frame, inlined into the decoder's loop (rg_feed_inline): a scalar that
 * fits is stored straight into the list; the feed pauses after the frame's last element (so
 * never past the aggregate) and at the first event that needs more than a store, which is kept
 * for step() (whose checks then give its mismatch). */
RG_FAST_INLINE int fast_event(void *ud, const rg_event *ev) {
    fast_ctx *x = ud;
    const uint64_t i = x->i;
    const rg_rnode *node = x->pairs ? &x->child[i & 1] : x->child;
    char *at = x->mem + (x->pairs ? i >> 1 : i) * x->size + node->offset;
    if (RG_FAST_RARE(!fast_put(x, node, at, ev))) {
        hold(x, ev);
        return 1;
    }
    x->i = i + 1;
    return x->i == x->n;
}

/* fast_event for lists whose elements (or keys and values) are all plain views, the bulk of real
 * replies (MGET, LRANGE, HGETALL, SMEMBERS, KEYS): no node is looked at per element, and pairs
 * is a constant at each of the two call sites. */
RG_FAST_INLINE int view_event(fast_ctx *x, const rg_event *ev, bool pairs) {
    const uint64_t i = x->i;
    const unsigned k = pairs ? (unsigned)(i & 1) : 0;
    if (RG_FAST_RARE(!(x->accept[k] & RG_RA(ev->kind)))) {
        hold(x, ev);
        return 1;
    }
    rg_view v = ev->kind == RG_EV_NULL ? (rg_view){NULL, 0} : ev->str;
    v.ptr = v.ptr ? (const char *)((uintptr_t)v.ptr + x->delta) : NULL; /* delta 0: direct */
    memcpy(x->mem + (pairs ? i >> 1 : i) * x->size + x->off[k], &v, sizeof v);
    x->i = i + 1;
    return x->i == x->n;
}

RG_FAST_INLINE int view_list_event(void *ud, const rg_event *ev) {
    return view_event(ud, ev, false);
}

RG_FAST_INLINE int view_pairs_event(void *ud, const rg_event *ev) {
    return view_event(ud, ev, true);
}

/* Pairs of a view and a double (ZRANGE WITHSCORES, ZPOPMIN COUNT, ZRANDMEMBER WITHSCORES). */
RG_FAST_INLINE int view_double_event(void *ud, const rg_event *ev) {
    fast_ctx *x = ud;
    const uint64_t i = x->i;
    const unsigned k = (unsigned)(i & 1);
    char *at = x->mem + (i >> 1) * x->size + x->off[k];
    if (RG_FAST_RARE(!(x->accept[k] & RG_RA(ev->kind)))) {
        hold(x, ev);
        return 1;
    }
    if (k == 0) {
        rg_view v = ev->kind == RG_EV_NULL ? (rg_view){NULL, 0} : ev->str;
        v.ptr = v.ptr ? (const char *)((uintptr_t)v.ptr + x->delta) : NULL;
        memcpy(at, &v, sizeof v);
    } else {
        double d = ev->kind == RG_EV_DOUBLE ? ev->u.d : (double)ev->u.i;
        const bool text = ev->kind == RG_EV_BULK || ev->kind == RG_EV_SIMPLE;
        if (text && RG_FAST_RARE(!quick_double(ev->str, &d) && !text_double(ev->str, &d))) {
            hold(x, ev); /* no number: step() says so */
            return 1;
        }
        memcpy(at, &d, sizeof d);
    }
    x->i = i + 1;
    return x->i == x->n;
}

/* True when every child of the fast frame f is a view without a constant. */
static bool views_only(const rg_rnode *child, bool pairs) {
    for (unsigned k = 0; k <= (unsigned)pairs; k++) {
        if (child[k].store != RG_RT_VIEW || child[k].cval) return false;
    }
    return true;
}

/* A key that is a plain view and a value that is a double. */
static bool view_double(const rg_rnode *kv) {
    return kv[0].store == RG_RT_VIEW && !kv[0].cval && kv[1].store == RG_RT_DBL && !kv[1].cval;
}

/* The length of a '$' bulk header of 1 to 3 digits at p, which has room after it; the payload's
 * start goes to *s. False for anything else (longer lengths, "$-1", junk): for rg_fast_bulk. */
static inline bool short_bulk_head(const char *p, const char **s, uint64_t *n) {
    const unsigned d0 = rg_fast_digit(p[1]), d1 = rg_fast_digit(p[2]), d2 = rg_fast_digit(p[3]);
    if (d0 > 9) return false;
    if (rg_fast_crlf(p + 2)) {
        *n = d0;
        *s = p + 4;
    } else if (d1 <= 9 && rg_fast_crlf(p + 3)) {
        *n = d0 * 10 + d1;
        *s = p + 5;
    } else if (d1 <= 9 && d2 <= 9 && rg_fast_crlf(p + 4)) {
        *n = d0 * 100 + d1 * 10 + d2;
        *s = p + 6;
    } else {
        return false;
    }
    return true;
}

/* quick_double for the payload of a short bulk, whose CR after it (checked) ends the digit loops
 * without a test for the end of the text: the same texts, the same values. Inline, only the
 * common case is spelled out (digits[.digits], at most SCORE_SHORT bytes: an integer converted,
 * or one division), each test a byte or two, so that the caller's loop holds no more than it
 * must; the rest (a sign, more digits, no digit first) is quick_double's. */
/* quick_score's rare texts: quick_double, out of line. */
static RG_NOINLINE bool score_rest(const char *s, size_t len, double *out) {
    return quick_double((rg_view){s, len}, out);
}

/* quick_score's long texts (more than SCORE_SHORT bytes) that fused_score does not take (other
 * lengths, no point in the first 8 bytes, a sign, an exponent), out of line: the integer digits,
 * then the digits after the point 8 at a time while 8 are left, then rg_decimal. The byte after
 * the text is a CR (the callers checked), which ends the digit loops. */
static RG_NOINLINE bool score_long(const char *s, size_t len, double *out) {
    const char *const e = s + len;
    uint64_t m = 0;
    const char *q = s;
    for (unsigned d; (d = rg_fast_digit(*q)) < 10; q++) m = m * 10 + d;
    if (q == s) return quick_double((rg_view){s, len}, out); /* '-', '.', ... */
    const char *r = q;
    if (*q == '.') {
        for (r++; e - r >= 8; r += 8) {
            const uint64_t x = rg_fast_load64(r) ^ (RG_FAST_ONES * '0');
            if ((x | (x + RG_FAST_ONES * (0x80 - 10))) & RG_FAST_HIGHS) break; /* not 8 digits */
            m = m * 100000000 + rg_fast_eight_digits(x); /* (wraps past 19 digits: refused) */
        }
        for (unsigned d; (d = rg_fast_digit(*r)) < 10; r++) m = m * 10 + d;
    }
    const unsigned k = r == q ? 0 : (unsigned)(r - q - 1);
    if (r != e || (size_t)(q - s) + k > RG_DECIMAL_DIGITS) return false;
    return rg_decimal(m, k, false, out);
}

/* The bytes of x (digits less '0') that are not digits: the high bit of each such byte, exact up
 * to the first one (a carry reaches later bytes only, which are then refused anyway). */
static inline uint64_t non_digits(uint64_t x) {
    return (x | (x + RG_FAST_ONES * (0x80 - 10))) & RG_FAST_HIGHS;
}

/* "%.17g" scores (Redis before 7.2: "0.33333333333333331", "10.333333333333334") of 17 to 19
 * bytes, digits with a point among the first 8 bytes, read at once: no loop, and no branch but for
 * the answer. The text is read as a frame of 19 bytes ending where it does, whose 0 to 2 bytes
 * before the text (its bulk's header or the ',': readable) count as zeros; with the frame's point
 * at j, digit i of the frame without it is byte i (i < j) or byte i + 1 (i >= j): the first 8 a
 * blend of the words at 0 and 1, the next 8 the word at 9, the last 2 bytes 17 and 18. Nothing
 * after the text is read. False when the text is not of that shape (nothing written); else *ok
 * says whether *out is its value (false for the few rg_decimal_wide_body leaves, as score_long). */
RG_FAST_INLINE bool fused_score(const char *s, size_t len, double *out, bool *ok) {
    const unsigned pad = 19 - (unsigned)len;
    if (pad > 2) return false;
    const char *const f = s - pad;
    const uint64_t zeros = RG_FAST_ONES * '0';
    const uint64_t a = (rg_fast_load64(f) ^ zeros) & ~(uint64_t)0 << 8 * pad;
    const uint64_t b = rg_fast_load64(f + 1) ^ zeros, c = rg_fast_load64(f + 9) ^ zeros;
    const uint64_t tail = rg_fast_load16(f + 17) ^ 0x3030u;
    const uint64_t stops = non_digits(a);
    const uint64_t upto = stops ^ (stops - 1); /* bytes 0..j (all 8 when there is no stop) */
    const uint64_t ints = upto >> 8;           /* bytes 0..j-1 */
    const uint64_t d0 = a ^ ((a ^ b) & ~ints);
    const uint64_t point = (a ^ RG_FAST_ONES * ('.' ^ '0')) & (upto ^ ints);
    if (point | non_digits(d0) | non_digits(c) | non_digits(tail)) return false;
    const uint64_t m = rg_fast_eight_digits(d0) * 10000000000 + rg_fast_eight_digits(c) * 100 +
                       (tail & 0xff) * 10 + (tail >> 8);
    const unsigned k = 18 - rg_fast_ctz(stops) / 8; /* digits after the point */
    *ok = rg_decimal_wide_body(m, k, false, out);   /* (any m: see there) */
    return true;
}

/* Their values go to *out through a double of its own, so that the common way's value can go
 * from a register straight to the item. */
RG_FAST_INLINE bool score_rest_to(const char *s, size_t len, double *out) {
    double w;
    if (!score_rest(s, len, &w)) return false;
    *out = w;
    return true;
}

RG_FAST_INLINE bool score_long_to(const char *s, size_t len, double *out) {
    double w;
    bool ok;
    if (!fused_score(s, len, &w, &ok)) ok = score_long(s, len, &w);
    if (!ok) return false;
    *out = w;
    return true;
}

/* Texts of at most this many bytes have at most 15 digits: m < 10^15 < 2^53, so the length alone
 * tells the common way (one conversion and a division) from rg_decimal's other ones. */
#define SCORE_SHORT 15

RG_FAST_INLINE bool quick_score(const char *s, size_t len, double *out) {
    if (RG_FAST_RARE(len > SCORE_SHORT)) return score_long_to(s, len, out);
    uint64_t m = 0;
    unsigned d;
    const char *q = s;
    for (; (d = rg_fast_digit(*q)) < 10; q++) m = m * 10 + d;
    if (RG_FAST_RARE(q == s)) return score_rest_to(s, len, out); /* '-', '.', ... */
    const bool point = d == (unsigned)('.' - '0');
    const char *r = q + point;
    for (; (d = rg_fast_digit(*r)) < 10; r++) m = m * 10 + d;
    if (r != s + len) return false;
    double v = (double)(int64_t)m;
    if (point) v /= RG_POW10[r - q - 1];
    *out = v;
    return true;
}

/* The pairs of member and score that short_bulks reads in a loop of their own. */
typedef struct score_run {
    const char *p;     /* the next pair's '$' */
    const char *roomy; /* rg_fast.roomy */
    char *at, *stop;   /* the next item's key, and where the pairs due end */
    size_t size;       /* bytes of one item */
    ptrdiff_t voff;    /* the score's offset from the key */
    uintptr_t delta;   /* as fast_ctx.delta */
    uint64_t longest;  /* bulks shorter than this (at most 41) */
} score_run;

/* Pairs of a short member and a short score, a whole pair at a time, out of line: its loop has
 * the registers to itself, so that nothing on the chain from one bulk to the next is kept in
 * memory. A bulk below 41 bytes ends inside the room of its header (64 bytes), so the end of the
 * input needs no test. Stops before the first pair it does not take whole. */
RG_FAST_INLINE void score_pairs_as(score_run *run, size_t size, ptrdiff_t voff, uintptr_t delta,
                                   uint64_t longest) {
    const char *p = run->p;
    const char *const roomy = run->roomy;
    char *at = run->at;
    char *const stop = run->stop;
    while (at != stop && p < roomy && *p == '$') {
        const char *s, *s2;
        uint64_t blen, vlen;
        if (!short_bulk_head(p, &s, &blen) || blen >= longest || !rg_fast_crlf(s + blen)) break;
        const char *const q = s + blen + 2;
        if (q >= roomy || *q != '$' || !short_bulk_head(q, &s2, &vlen) || vlen >= longest ||
            !rg_fast_crlf(s2 + vlen)) {
            break;
        }
        double d;
        if (!quick_score(s2, (size_t)vlen, &d)) break;
        memcpy(at + voff, &d, sizeof d);
        const rg_view k = {(const char *)((uintptr_t)s + delta), (size_t)blen};
        memcpy(at, &k, sizeof k);
        p = s2 + vlen + 2;
        at += size;
    }
    run->p = p;
    run->at = at;
}

/* The usual items ({ rg_view; double }, views direct, the default limits) get a loop of their own
 * whose layout and limit are constants: the loop then has registers enough for all it holds. */
static RG_NOINLINE void score_pairs(score_run *run) {
    typedef struct {
        rg_view key;
        double value;
    } view_dbl;
    if (run->size == sizeof(view_dbl) && run->voff == offsetof(view_dbl, value) && !run->delta &&
        run->longest == 41) {
        score_pairs_as(run, sizeof(view_dbl), offsetof(view_dbl, value), 0, 41);
    } else {
        score_pairs_as(run, run->size, run->voff, run->delta, run->longest);
    }
}

/* Pairs of two short bulks (HGETALL), as score_pairs reads its pairs. */
static RG_NOINLINE void view_pairs(score_run *run) {
    const char *p = run->p;
    const char *const roomy = run->roomy;
    char *at = run->at;
    char *const stop = run->stop;
    const size_t size = run->size;
    const ptrdiff_t voff = run->voff;
    const uintptr_t delta = run->delta;
    const uint64_t longest = run->longest;
    while (at != stop && p < roomy && *p == '$') {
        const char *s, *s2;
        uint64_t blen, vlen;
        if (!short_bulk_head(p, &s, &blen) || blen >= longest || !rg_fast_crlf(s + blen)) break;
        const char *const q = s + blen + 2;
        if (q >= roomy || *q != '$' || !short_bulk_head(q, &s2, &vlen) || vlen >= longest ||
            !rg_fast_crlf(s2 + vlen)) {
            break;
        }
        const rg_view k = {(const char *)((uintptr_t)s + delta), (size_t)blen};
        const rg_view v = {(const char *)((uintptr_t)s2 + delta), (size_t)vlen};
        memcpy(at, &k, sizeof k);
        memcpy(at + voff, &v, sizeof v);
        p = s2 + vlen + 2;
        at += size;
    }
    run->p = p;
    run->at = at;
}

/* The short bulks of a list of views, as score_pairs reads its pairs (run->voff unused). */
static RG_NOINLINE void view_items(score_run *run) {
    const char *p = run->p;
    const char *const roomy = run->roomy;
    char *at = run->at;
    char *const stop = run->stop;
    const size_t size = run->size;
    const uintptr_t delta = run->delta;
    const uint64_t longest = run->longest;
    while (at != stop && p < roomy && *p == '$') {
        const char *s;
        uint64_t blen;
        if (!short_bulk_head(p, &s, &blen) || blen >= longest || !rg_fast_crlf(s + blen)) break;
        const rg_view v = {(const char *)((uintptr_t)s + delta), (size_t)blen};
        memcpy(at, &v, sizeof v);
        p = s + blen + 2;
        at += size;
    }
    run->p = p;
    run->at = at;
}

/* The elements of a list of views (pairs: of two views; dbl: of a view and a double) that are
 * short '$' bulks, read in one tight loop before the decoder's event loop takes the rest: the
 * same checks as rg_fast_bulk's roomy path and the same booking (the element counted off its
 * aggregate, which is the decoder's innermost: the frame's), with no event built and the
 * frame's state in registers. Pairs go a whole pair at a time (the element's address and which
 * half is which need no work per value); what is left (a pair cut after its key, an odd start)
 * goes one element at a time. It stops, consuming nothing, at the first token it does not take
 * (anything else, a long or cut bulk, a score that is not a short decimal, the end of the room),
 * and after the frame's last element, as the callbacks do (RG_PAUSED then). */
RG_FAST_INLINE rg_status short_bulks(rg_reply_reader *rr, const call_ctx *c, size_t len,
                                     size_t *pos, fast_ctx *x, bool pairs, bool dbl) {
    rg_reader *const r = &rr->rd;
    const uint32_t bulk = RG_RA(RG_EV_BULK);
    if (!rg_fast_ready(r) || *pos >= len || r->depth == 0 || x->i >= x->n ||
        !(x->accept[0] & x->accept[pairs] & bulk)) {
        return RG_OK;
    }
    rg_fast f = rg_fast_load(r, c->buf, len, *pos, false);
    const uint64_t n = x->n, end = r->fast_bulk_end;
    const uintptr_t delta = x->delta;
    char *const mem = x->mem;
    const size_t size = x->size, off0 = x->off[0], off1 = x->off[pairs];
    uint64_t i = x->i, left = f.left;
    const char *p = f.p;
    if (pairs && !(i & 1)) {
        const uint64_t due = (n - i < left ? n - i : left) / 2;
        score_run run = {p,
                         f.roomy,
                         mem + (i >> 1) * size + off0,
                         NULL,
                         size,
                         (ptrdiff_t)off1 - (ptrdiff_t)off0,
                         delta,
                         end < 41 ? end : 41};
        run.stop = run.at + due * size;
        char *const first = run.at;
        if (dbl) {
            score_pairs(&run);
        } else {
            view_pairs(&run);
        }
        p = run.p;
        const uint64_t took = 2 * (uint64_t)((size_t)(run.at - first) / size);
        i += took;
        left -= took;
    }
    if (!pairs) {
        const uint64_t due = n - i < left ? n - i : left;
        score_run run = {p, f.roomy, mem + i * size + off0, NULL, size,
                         0, delta,   end < 41 ? end : 41};
        run.stop = run.at + due * size;
        char *const first = run.at;
        view_items(&run);
        p = run.p;
        const uint64_t took = (uint64_t)((size_t)(run.at - first) / size);
        i += took;
        left -= took;
    }
    while (i < n && left && p < f.roomy && *p == '$') { /* (a streamed list's left runs on) */
        const char *s;
        uint64_t blen;
        if (!short_bulk_head(p, &s, &blen) || blen >= end || (size_t)(f.e - s) < blen + 2 ||
            !rg_fast_crlf(s + blen)) {
            break;
        }
        const unsigned k = pairs ? (unsigned)(i & 1) : 0;
        char *const at = mem + (pairs ? i >> 1 : i) * size + (k ? off1 : off0);
        if (dbl && k) {
            double d;
            if (!quick_score(s, (size_t)blen, &d)) break;
            memcpy(at, &d, sizeof d);
        } else {
            const rg_view v = {(const char *)((uintptr_t)s + delta), (size_t)blen};
            memcpy(at, &v, sizeof v);
        }
        p = s + blen + 2;
        left--;
        if (++i == n) break;
    }
    f.p = p;
    f.left = left;
    rg_fast_save(&f, r, pos);
    x->i = i;
    return i == n ? RG_PAUSED : RG_OK;
}

/* One feeding loop per kind of frame, each in a function of its own: inlined side by side into
 * fast_batch, the loops share its registers and spill the decoder's state in the hot loop. The
 * lists of views take their short bulks first (short_bulks). */
#define RG_FEEDER(name, fn, quick, pairs, dbl)                                                   \
    static RG_NOINLINE rg_status name(rg_reply_reader *rr, const call_ctx *c, size_t len,        \
                                      size_t *pos, fast_ctx *x) {                                \
        if (quick && short_bulks(rr, c, len, pos, x, pairs, dbl) == RG_PAUSED) return RG_PAUSED; \
        return rg_feed_inline(&rr->rd, c->buf, len, pos, fn, x);                                 \
    }
RG_FEEDER(feed_view_double, view_double_event, true, true, true)
RG_FEEDER(feed_any, fast_event, false, false, false)
RG_FEEDER(feed_view_pairs, view_pairs_event, true, true, false)
RG_FEEDER(feed_view_list, view_list_event, true, false, false)
#undef RG_FEEDER

/* Bytes a scalar node stores (0 for none). */
static uint32_t store_size(const rg_rnode *node) {
    static const uint8_t sizes[] = {[RG_RT_NONE] = 0,
                                    [RG_RT_VIEW] = sizeof(rg_view),
                                    [RG_RT_I64] = sizeof(int64_t),
                                    [RG_RT_DBL] = sizeof(double),
                                    [RG_RT_BOOL] = sizeof(bool)};
    return node->store < sizeof sizes ? sizes[node->store] : UINT32_MAX;
}

/* The items of a fast frame from element i on, left unzeroed by root_list: zeroed when the fast
 * loops stopped before the end, before anything else stores into them (every element that
 * comes later starts from zero, as reserve() gives it). Pairs: a half-written element keeps its
 * key (which, the element being covered, is all that was written). */
static void zero_rest(const rg_reply_reader *rr, const rg_rframe *f, uint64_t i) {
    const uint64_t size = f->node->elem_size;
    const bool pairs = f->kind == F_PAIRS;
    const uint64_t items = pairs ? f->n / 2 : f->n;
    uint64_t e = pairs ? i / 2 : i;
    if (pairs && i % 2) {
        const rg_rnode *key = &rr->table->nodes[f->node->child];
        char *const at = f->mem + e * size;
        memset(at, 0, key->offset);
        memset(at + key->offset + store_size(key), 0, size - key->offset - store_size(key));
        e++;
    }
    if (e < items) memset(f->mem + e * size, 0, (size_t)((items - e) * size));
}

/* The fast frame's loop took its last element and the decoder is right before the aggregate's
 * end, a counted one (whose end has no bytes): the end is booked into the decoder as
 * rg_fast_end books it and stepped without reading it. False when the end is for the decoder
 * to read (a streamed aggregate's '.'). */
static bool close_fast(rg_reply_reader *rr, call_ctx *c, rg_event *last, bool *done) {
    rg_reader *const r = &rr->rd;
    const rg_frame *const top = &r->stack[r->depth - 1];
    if (!rg_fast_ready(r) || top->left != 0 || top->streamed || top->kind == RG_EV_ATTR) {
        return false;
    }
    const uint32_t depth = --r->depth;
    if (depth) {
        r->stack[depth - 1].left--;
    } else {
        r->values++;
    }
    const rg_event end = {
        .kind = RG_EV_END, .sub = top->kind, .complete = depth == 0, .depth = depth};
    c->before = rr->mark;
    step(rr, c, &end);
    if (end.complete) {
        *last = end;
        *done = true;
    }
    return true;
}

/* Feeds a fast frame: RG_OK to go on, else what the decoder said. The event that completed the
 * reply, if any, is left in *last with *done set. unzeroed: the frame's items were carved
 * without zeroing (root_list), see zero_rest. */
/* Runs the feeding loop of the fast frame f (the innermost) from its element f->i on, the state
 * in *x; returns what the decoder said. */
RG_FAST_INLINE rg_status feed_frame(rg_reply_reader *rr, const call_ctx *c, size_t len, size_t *pos,
                                    const rg_rframe *f, fast_ctx *x) {
    const rg_rnode *child = &rr->table->nodes[f->node->child];
    const bool pairs = f->kind == F_PAIRS;
    const fast_ctx y = {
        child,
        f->mem,
        f->i,
        f->n,
        rr->direct ? 0 : (uintptr_t)c->base - (uintptr_t)c->buf - (uintptr_t)rr->start + 1,
        f->node->elem_size,
        {child[0].accept, child[pairs].accept},
        {child[0].offset, child[pairs].offset},
        pairs,
        false,
        {0}};
    *x = y;
    if (pairs && view_double(child)) return feed_view_double(rr, c, len, pos, x);
    if (!views_only(child, pairs)) return feed_any(rr, c, len, pos, x);
    if (pairs) return feed_view_pairs(rr, c, len, pos, x);
    return feed_view_list(rr, c, len, pos, x);
}

static rg_status fast_batch(rg_reply_reader *rr, call_ctx *c, size_t len, size_t *pos,
                            rg_event *last, bool *done, bool unzeroed) {
    rg_rframe *f = &rr->stack[rr->depth - 1];
    fast_ctx x;
    const rg_status st = feed_frame(rr, c, len, pos, f, &x);
    f->i = x.i;
    if (unzeroed && x.i < x.n) zero_rest(rr, f, x.i);
    if (st != RG_PAUSED) return st;
    /* Paused right after an event: the reply's next value starts here. */
    rr->mark = rg_reader_offset(&rr->rd);
    if (!x.has && x.i == x.n && close_fast(rr, c, last, done)) return RG_OK;
    if (x.has) {
        c->before = rr->mark; /* only raw values use it; none are in a fast frame */
        step(rr, c, &x.held);
        if (x.held.complete) {
            *last = x.held;
            *done = true;
        }
    }
    return RG_OK;
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

/* A oneof's first candidate alt, when it is a counted list of scalars (ZRANGE and ZREVRANGE over
 * RESP2: the list of members), decoded at once by the fast loops, whose checks are the
 * lookahead's (the same accept sets, scalar_misfit for the rest): the value is then read once
 * rather than looked over and decoded again. TRY_TOOK: every element fit and is stored, alt is
 * chosen, its frame open for its end. Otherwise everything is put back (the reader, the position,
 * the storage, the frames, the result's member): TRY_FAILS when an element rules alt out
 * (decide() then skips it), TRY_UNSURE when the loops stopped at what they do not judge (an
 * attribute, a constant, the end of the input, malformed bytes) or were not tried. */
static try_result try_list(rg_reply_reader *rr, const call_ctx *c, const rg_rnode *oneof,
                           const rg_rnode *alt, char *mem, const rg_event *ev) {
    const rg_rnode *const nodes = rr->table->nodes, *const kv = &nodes[alt->child];
    const bool pairs = alt->shape == RG_RS_PAIRS;
    if (!c->pos || rr->each || rr->skipping || !mem || ev->u.i <= 0 || rr->depth >= RG_MAX_DEPTH ||
        !(alt->accept & RG_RA(ev->kind)) || kv[0].shape != RG_RS_SCALAR ||
        (alt->shape != RG_RS_ARRAY && !(pairs && kv[1].shape == RG_RS_SCALAR))) {
        return TRY_UNSURE;
    }
    const size_t at = *c->pos;
    /* flat RESP2 pairs: the first element must be a scalar (a header makes them RESP3 pairs) */
    if (pairs && ev->kind != RG_EV_MAP &&
        (ev->u.i % 2 || at >= c->len || !memchr("$+:,", c->buf[at], 4))) {
        return TRY_UNSURE;
    }
    /* The loops touch the decoder's frames up to one below the list's (a header they stop
     * at): only those are kept for the way back. */
    const uint32_t frames = rr->rd.depth + 1 < RG_MAX_DEPTH ? rr->rd.depth + 1 : RG_MAX_DEPTH;
    const size_t kept = offsetof(rg_reader, stack) + frames * sizeof(rg_frame);
    rg_reader saved;
    memcpy(&saved, &rr->rd, kept);
    const size_t used = rr->used;
    const uint32_t depth = rr->depth;
    const uint64_t mark = rr->mark;
    rg_rframe *const f = push(rr, pairs ? F_PAIRS : F_ARRAY, alt, ev);
    f->field = mem + alt->offset;
    f->pairs_mode = pairs; /* flat: a map, or an array whose first element is a scalar */
    /* items the loops write whole need no zeroing: they all are written when alt is taken */
    const uint64_t items = pairs ? f->n / 2 : f->n;
    const bool covered =
        store_size(&kv[0]) + (pairs ? store_size(&kv[1]) : 0) == (uint64_t)alt->elem_size;
    f->mem = covered && items <= UINT64_MAX / alt->elem_size ? carve(rr, items * alt->elem_size)
                                                             : reserve_n(rr, items, alt->elem_size);
    set_items(f->field, f->mem);
    try_result r = TRY_UNSURE;
    if (fast_frame(rr, f)) {
        fast_ctx x;
        const rg_status st = feed_frame(rr, c, c->len, c->pos, f, &x);
        f->i = x.i;
        if (st == RG_PAUSED && !x.has && x.i == x.n) {
            rr->mark = rg_reader_offset(&rr->rd);
            mem[oneof->offset] = (char)(alt - &nodes[oneof->child] + 1);
            return TRY_TOOK;
        }
        double d;
        if (x.has && x.held.kind != RG_EV_ATTR &&
            scalar_misfit(pairs ? &kv[x.i & 1] : kv, &x.held, &d)) {
            r = TRY_FAILS;
        }
    }
    memcpy(&rr->rd, &saved, kept);
    *c->pos = at;
    rr->used = used;
    rr->depth = depth;
    rr->mark = mark;
    set_items(mem + alt->offset, NULL);
    set_count(mem + alt->offset, 0);
    return r;
}

/* RESP3 pairs (ZRANGE WITHSCORES, HGETALL as pairs): a list of 2-element arrays, each of a short
 * member and a ',' double (or a short bulk: a score as text, or a view). */
typedef struct pair_run {
    score_run run;
    bool dbl; /* the second is a double */
} pair_run;

/* The ',' double at v (its line inside the room) of the form quick_score takes: its value, and
 * the byte after its CRLF, or NULL. Such text is what the decoder's grammar for doubles takes
 * too, well within its line limit, and quick_score's value is strtod's. */
RG_FAST_INLINE const char *comma_score(const char *v, double *d) {
    const char *cr = v + 1;
    while (cr < v + 19 && *cr != '\r') cr++;
    if (*cr != '\r' || cr[1] != '\n' || !quick_score(v + 1, (size_t)(cr - v - 1), d)) return NULL;
    return cr + 2;
}

/* Whole pairs "*2\r\n" + member + value, with the checks of the decoder's fast path (a pair's
 * array opens one level deeper and ends where its second value does; the bulks' limits are
 * fast_bulk_end's), as score_pairs reads flat ones; the caller books them into the decoder
 * (one element each of the list). Stops before the first pair it does not take whole. */
static RG_NOINLINE void nested_pairs(pair_run *pr) {
    score_run *const run = &pr->run;
    const char *p = run->p;
    const char *const roomy = run->roomy;
    char *at = run->at;
    char *const stop = run->stop;
    const size_t size = run->size;
    const ptrdiff_t voff = run->voff;
    const uintptr_t delta = run->delta;
    const uint64_t longest = run->longest;
    const bool dbl = pr->dbl;
    const uint32_t two = '*' | '2' << 8 | (uint32_t)'\r' << 16 | (uint32_t)'\n' << 24;
    while (at != stop && p < roomy && rg_fast_load32(p) == two) {
        const char *s, *s2;
        uint64_t blen, vlen;
        if (p[4] != '$' || !short_bulk_head(p + 4, &s, &blen) || blen >= longest ||
            !rg_fast_crlf(s + blen)) {
            break;
        }
        const char *const q = s + blen + 2, *next;
        if (q >= roomy) break;
        if (dbl && *q == ',') {
            double d;
            if (!(next = comma_score(q, &d))) break;
            memcpy(at + voff, &d, sizeof d);
        } else {
            if (*q != '$' || !short_bulk_head(q, &s2, &vlen) || vlen >= longest ||
                !rg_fast_crlf(s2 + vlen)) {
                break;
            }
            if (dbl) {
                double d;
                if (!quick_score(s2, (size_t)vlen, &d)) break;
                memcpy(at + voff, &d, sizeof d);
            } else {
                const rg_view v = {(const char *)((uintptr_t)s2 + delta), (size_t)vlen};
                memcpy(at + voff, &v, sizeof v);
            }
            next = s2 + vlen + 2;
        }
        const rg_view k = {(const char *)((uintptr_t)s + delta), (size_t)blen};
        memcpy(at, &k, sizeof k);
        p = next;
        at += size;
    }
    run->p = p;
    run->at = at;
}

/* Is f a list of RESP3 pairs (decided: nested) of a view and a view or double, with pairs to
 * come and storage for them? */
static bool nested_frame(const rg_reply_reader *rr, const rg_rframe *f) {
    if (f->kind != F_PAIRS || f->pairs_mode != 2 || !f->mem || rr->slot || f->n == UINT64_MAX ||
        f->i >= f->n) {
        return false;
    }
    const rg_rnode *kv = &rr->table->nodes[f->node->child];
    return kv[0].shape == RG_RS_SCALAR && kv[1].shape == RG_RS_SCALAR &&
           (view_double(kv) || views_only(kv, true));
}

/* Takes the whole pairs nested_pairs reads off the nested frame f: true when it took any. The
 * decoder books each as one element of the list (the pair's array opened and closed within);
 * the list's end, when that was its last pair, is closed at once (close_fast). */
static bool fast_nested(rg_reply_reader *rr, call_ctx *c, size_t len, size_t *pos, rg_event *last,
                        bool *done) {
    rg_reader *const r = &rr->rd;
    rg_rframe *const f = &rr->stack[rr->depth - 1];
    if (!rg_fast_ready(r) || *pos >= len || r->depth == 0 || r->depth >= r->limits.max_depth ||
        r->limits.max_elements < 2) {
        return false;
    }
    const rg_rnode *kv = &rr->table->nodes[f->node->child];
    rg_fast fs = rg_fast_load(r, c->buf, len, *pos, false);
    const uint64_t due = f->n - f->i < fs.left ? f->n - f->i : fs.left;
    const uint64_t end = r->fast_bulk_end;
    pair_run pr = {
        {fs.p, fs.roomy, f->mem + f->i * f->node->elem_size + kv[0].offset, NULL,
         f->node->elem_size, (ptrdiff_t)kv[1].offset - (ptrdiff_t)kv[0].offset,
         rr->direct ? 0 : (uintptr_t)c->base - (uintptr_t)c->buf - (uintptr_t)rr->start + 1,
         end < 41 ? end : 41},
        view_double(kv)};
    pr.run.stop = pr.run.at + due * f->node->elem_size;
    char *const first = pr.run.at;
    nested_pairs(&pr);
    const uint64_t took = (uint64_t)((size_t)(pr.run.at - first) / f->node->elem_size);
    if (took == 0) return false;
    fs.p = pr.run.p;
    fs.left -= took;
    rg_fast_save(&fs, r, pos);
    f->i += took;
    rr->mark = rg_reader_offset(r);
    if (f->i == f->n) close_fast(rr, c, last, done);
    return true;
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

/* Puts the decoder, idle, at stream offset at (a value's first byte, before which it was idle
 * or had just read an attribute, which is dropped). */
static void reset_reader_at(rg_reply_reader *rr, uint64_t at) {
    const uint64_t values = rr->rd.values;
    restart_reader(rr);
    rr->rd.offset = at;
    rr->rd.values = values;
    rr->mark = at;
    rr->pending = false;
}

/* A push where the reply should start: nothing of it consumed, the reply not begun. */
static rg_status take_push(rg_reply_reader *rr, const call_ctx *c, size_t *pos, uint64_t at) {
    reset_reader_at(rr, at);
    *pos = (size_t)(at - c->base);
    rr->active = rr->push_seen = rr->waiting = false;
    rr->depth = 0;
    rr->start = at;
    return RG_PUSH;
}

static rg_status decode_loop(rg_reply_reader *rr, call_ctx *c, size_t len, size_t *pos) {
    for (;;) {
        rg_event ev;
        rg_status st = RG_OK;
        bool done = false;
        if (rr->waiting) {
            resume(rr, c);
            if (rr->waiting) return RG_NEED_MORE;
            continue;
        }
        if (rr->depth && !rr->skipping && fast_frame(rr, &rr->stack[rr->depth - 1])) {
            st = fast_batch(rr, c, len, pos, &ev, &done, false);
        } else if (rr->depth && !rr->skipping && nested_frame(rr, &rr->stack[rr->depth - 1]) &&
                   fast_nested(rr, c, len, pos, &ev, &done)) {
            /* whole pairs taken; the next event, if any, in the next round */
        } else {
            c->before = rr->mark;
            st = rg_next(&rr->rd, c->buf, len, pos, &ev);
            if (st == RG_OK) {
                rr->mark = rg_reader_offset(&rr->rd);
                step(rr, c, &ev);
                done = ev.complete;
            }
        }
        if (rr->push_seen) return take_push(rr, c, pos, rr->push_at);
        if (done) return finish(rr, c, pos);
        if (rr->waiting || st == RG_NEED_MORE) return RG_NEED_MORE;
        if (st != RG_OK) {
            rr->active = false;
            return st; /* the reader's sticky error: rg_reply_error passes it on */
        }
    }
}

/* The reply's first event. A whole scalar reply (GET, INCR, ...) is stored at once; anything
 * else begins the reply and goes through step(). */
static rg_status first_of(rg_reply_reader *rr, const rg_rtable *t, call_ctx *c, size_t *pos,
                          void *out, rg_event ev);

static rg_status first_event(rg_reply_reader *rr, const rg_rtable *t, call_ctx *c, size_t len,
                             size_t *pos, void *out) {
    rg_event ev;
    if (!rr->pending) rr->start = rg_reader_offset(&rr->rd);
    const rg_status st = rg_next(&rr->rd, c->buf, len, pos, &ev);
    /* The first token may be partly consumed (a long bulk's header): the reply starts before it. */
    rr->pending = st == RG_NEED_MORE;
    if (st == RG_NEED_MORE) return RG_NEED_MORE;
    if (st != RG_OK) return st;
    return first_of(rr, t, c, pos, out, ev);
}

/* The reply's first event ev, read from stream offset rr->start. */
static rg_status first_of(rg_reply_reader *rr, const rg_rtable *t, call_ctx *c, size_t *pos,
                          void *out, rg_event ev) {
    const uint64_t before = rr->start;
    if (ev.kind == RG_EV_PUSH && !rr->push_ok) return take_push(rr, c, pos, before);
    const rg_rnode *root = &t->nodes[0];
    if (ev.complete && root->shape == RG_RS_SCALAR && (root->accept & RG_RA(ev.kind))) {
        if (root->store == RG_RT_VIEW && !root->cval) {
            const rg_view v = ev.kind == RG_EV_NULL ? (rg_view){NULL, 0} : ev.str;
            memcpy((char *)out + root->offset, &v, sizeof v);
            return RG_OK;
        }
        if (root->store == RG_RT_I64) {
            memcpy((char *)out + root->offset, &ev.u.i, sizeof ev.u.i);
            return RG_OK;
        }
        rr->table = t;
        rr->direct = true;
        rr->depth = 0;
        rr->skipping = false;
        if (root->store == RG_RT_NONE) memset(out, 0, t->result_size);
        return put_scalar(rr, c, root, out, &ev) ? RG_OK : RG_MISMATCH;
    }
    begin(rr, t, out);
    rr->start = before;
    rr->mark = rg_reader_offset(&rr->rd);
    rr->start_values = rg_reader_values(&rr->rd) - ev.complete;
    c->before = before;
    step(rr, c, &ev);
    return ev.complete ? finish(rr, c, pos) : RG_NEED_MORE;
}

/* Everything but a one-value reply read by the fast path: kept out of line, so that the fast
 * path's function saves few registers. first is the reply's first event when the fast path
 * already read it (from stream offset rr->start), else NULL. */
static RG_NOINLINE rg_status decode_general(rg_reply_reader *rr, const rg_rtable *t,
                                            const char *buf, size_t len, size_t *pos, void *out,
                                            const rg_event *first) {
    call_ctx c = {buf, len, pos, rg_reader_offset(&rr->rd) - *pos, 0};
    rg_status st = RG_NEED_MORE;
    if (first) {
        st = first_of(rr, t, &c, pos, out, *first);
        if (st != RG_NEED_MORE || !rr->active) return st;
    } else if (!rr->active) {
        st = first_event(rr, t, &c, len, pos, out);
        if (st != RG_NEED_MORE || !rr->active) return st;
    }
    st = decode_loop(rr, &c, len, pos);
    if (st == RG_NEED_MORE && rr->direct) {
        leave_direct(rr, &c, pos);
        st = decode_loop(rr, &c, len, pos);
    }
    return st;
}

/* Does root_list take the reply whose first event (a '*' header read by the inline reader) is
 * ev? A root list of scalars, or of flat pairs of scalars (the first element a bulk, so not
 * RESP3's nested pairs), with elements, not in callback mode. */
static bool root_list_fits(const rg_reply_reader *rr, const rg_rnode *nodes, const rg_rnode *root,
                           const rg_event *ev, const char *buf, size_t len, size_t pos) {
    const rg_rnode *const kv = &nodes[root->child];
    if (rr->each || ev->kind != RG_EV_ARRAY || ev->u.i <= 0 || !(root->accept & RG_RA_ARR)) {
        return false;
    }
    if (root->shape == RG_RS_ARRAY) return kv->shape == RG_RS_SCALAR;
    return root->shape == RG_RS_PAIRS && ev->u.i % 2 == 0 && pos < len && buf[pos] == '$' &&
           kv[0].shape == RG_RS_SCALAR && kv[1].shape == RG_RS_SCALAR;
}

/* Begins the reply at the list node (a root list, or a root oneof's list alternative) whose
 * header ev was just read: its frame opened as step() and open_array or open_pairs would (pairs
 * as flat ones: the first element is a bulk), its items placed. *covered: the loops write every
 * byte of an element, so the items are not zeroed first (fast_batch zeroes what its loops did not
 * reach). */
RG_FAST_INLINE rg_rframe *open_root_list(rg_reply_reader *rr, const rg_rtable *t, void *out,
                                         call_ctx *c, const rg_rnode *node, const rg_event *ev,
                                         bool *covered) {
    const uint64_t start = rr->start;
    const rg_rnode *const kv = &t->nodes[node->child];
    const bool pairs = node->shape == RG_RS_PAIRS;
    begin(rr, t, out);
    rr->start = c->before = start;
    rr->mark = rg_reader_offset(&rr->rd);
    rr->start_values = rg_reader_values(&rr->rd);
    rg_rframe *const f = push(rr, pairs ? F_PAIRS : F_ARRAY, node, ev);
    f->field = (char *)out + node->offset;
    f->pairs_mode = pairs; /* flat */
    const uint64_t items = pairs ? f->n / 2 : f->n;
    const uint32_t size = node->elem_size;
    *covered = store_size(&kv[0]) + (pairs ? store_size(&kv[1]) : 0) == (uint64_t)size;
    f->mem = *covered && size && items <= UINT64_MAX / size ? carve(rr, items * size)
                                                            : reserve_n(rr, items, size);
    set_items(f->field, f->mem);
    return f;
}

/* A root list (MGET, LRANGE, HGETALL, ZRANGE WITHSCORES over RESP2) whose header ev was just
 * read, its elements fed by fast_batch at once. */
static RG_NOINLINE rg_status root_list(rg_reply_reader *rr, const rg_rtable *t, const char *buf,
                                       size_t len, size_t *pos, void *out, const rg_event *ev) {
    call_ctx c = {buf, len, pos, rg_reader_offset(&rr->rd) - *pos, 0};
    bool covered;
    const rg_rframe *const f = open_root_list(rr, t, out, &c, &t->nodes[0], ev, &covered);
    if (f->mem) {
        rg_event last;
        bool done = false;
        const rg_status st = fast_batch(rr, &c, len, pos, &last, &done, covered);
        if (done) return finish(rr, &c, pos);
        (void)st; /* anything else: decode_loop meets it again */
    }
    rg_status st = decode_loop(rr, &c, len, pos);
    if (st == RG_NEED_MORE && rr->direct) {
        leave_direct(rr, &c, pos);
        st = decode_loop(rr, &c, len, pos);
    }
    return st;
}

/* The root oneof's alternative that value() tries first for the header ev (its first candidate),
 * when that is a list root_list would take (ZREVRANGE and ZRANGE without scores over RESP2), else
 * NULL. */
static const rg_rnode *root_alt(const rg_reply_reader *rr, const rg_rtable *t, const rg_event *ev,
                                const char *buf, size_t len, size_t pos) {
    const rg_rnode *const root = &t->nodes[0];
    if (root->shape != RG_RS_ONEOF || !(root->accept & RG_RA(ev->kind))) return NULL;
    const rg_rnode *alt = &t->nodes[root->child];
    const rg_rnode *const end = alt + root->nchildren;
    while (alt < end && !candidate(alt, ev)) alt++;
    if (alt == end || alt->cval || !root_list_fits(rr, t->nodes, alt, ev, buf, len, pos)) {
        return NULL;
    }
    return alt;
}

/* A root oneof whose first candidate alt is a list (root_alt), read as root_list reads a root
 * list: when the fast loops take every element (what try_list calls TRY_TOOK), alt is chosen
 * exactly as value() chooses it (the tag, the frame left open for its end, closed directly when
 * it can be); anything else puts the reply back (the decoder at its start, idle as it was there)
 * and decodes it by the general step, which tries the alternatives in order. */
static RG_NOINLINE rg_status root_oneof(rg_reply_reader *rr, const rg_rtable *t, const char *buf,
                                        size_t len, size_t *pos, void *out, const rg_event *ev,
                                        const rg_rnode *alt) {
    call_ctx c = {buf, len, pos, rg_reader_offset(&rr->rd) - *pos, 0};
    const uint64_t start = rr->start;
    const rg_rnode *const root = &t->nodes[0];
    bool covered;
    rg_rframe *const f = open_root_list(rr, t, out, &c, alt, ev, &covered);
    if (f->mem && fast_frame(rr, f)) {
        fast_ctx x;
        const rg_status st = feed_frame(rr, &c, len, pos, f, &x);
        f->i = x.i;
        if (st == RG_PAUSED && !x.has && x.i == x.n) {
            rr->mark = rg_reader_offset(&rr->rd);
            ((char *)out)[root->offset] = (char)(alt - &t->nodes[root->child] + 1);
            rg_event last;
            bool done = false;
            if (close_fast(rr, &c, &last, &done) && done) return finish(rr, &c, pos);
            rg_status rest = decode_loop(rr, &c, len, pos);
            if (rest == RG_NEED_MORE && rr->direct) {
                leave_direct(rr, &c, pos);
                rest = decode_loop(rr, &c, len, pos);
            }
            return rest;
        }
    }
    rewind_reader(rr);
    *pos = (size_t)(start - c.base);
    rr->active = false;
    rr->depth = 0;
    return decode_general(rr, t, buf, len, pos, out, NULL);
}

/* Every reply but GET's (rg_reply_quick_bulk, inline in rg_reply.h): one-value replies read by
 * the decoder's inline token reader and stored at once (INCR, a view of a '+' line), root lists
 * of scalars by root_list, the rest (with a '*' header read the same way) through
 * decode_general. */
rg_status rg_reply_decode_rest(rg_reply_reader *rr, const rg_rtable *t, const char *buf, size_t len,
                               size_t *pos, void *out) {
    /* The rest of a value rg_reply_skip left half-read belongs to no reply: read as one, its
     * closing events would close frames the engine never opened. */
    if (RG_FAST_RARE(rr->push_skip)) {
        const rg_status st = rg_reply_skip(rr, buf, len, pos);
        if (st != RG_OK) return st;
    }
    const rg_rnode *const root = &t->nodes[0];
    /* '$', ':', '+', and '*', whose header then goes to decode_general already read (a push,
     * '>', is left to the general path) */
    const char c0 = *pos < len ? buf[*pos] : 0;
    if ((c0 == '$' || c0 == ':' || c0 == '+' || c0 == '*') && rr->ready) { /* (idle) */
        rg_fast f = rg_fast_load(&rr->rd, buf, len, *pos, false);
        rg_event ev;
        rr->start = rg_reader_offset(&rr->rd);
        if (rg_fast_token(&f, &rr->rd, &ev) == RG_FAST_EVENT) {
            rg_fast_save(&f, &rr->rd, pos);
            const bool plain =
                root->shape == RG_RS_SCALAR && !root->cval && (root->accept & RG_RA(ev.kind));
            /* (a whole value read from the idle state leaves it idle: rr->ready holds) */
            if (plain && root->store == RG_RT_VIEW) {
                const rg_view v = ev.kind == RG_EV_NULL ? (rg_view){NULL, 0} : ev.str;
                memcpy((char *)out + root->offset, &v, sizeof v);
                return RG_OK;
            }
            if (plain && root->store == RG_RT_I64) {
                memcpy((char *)out + root->offset, &ev.u.i, sizeof ev.u.i);
                return RG_OK;
            }
            if (root_list_fits(rr, t->nodes, root, &ev, buf, len, *pos)) {
                return settle(rr, root_list(rr, t, buf, len, pos, out, &ev));
            }
            const rg_rnode *const alt = root_alt(rr, t, &ev, buf, len, *pos);
            if (alt) return settle(rr, root_oneof(rr, t, buf, len, pos, out, &ev, alt));
            return settle(rr, decode_general(rr, t, buf, len, pos, out, &ev));
        }
    }
    return settle(rr, decode_general(rr, t, buf, len, pos, out, NULL));
}

/* Whole short '$' bulks for a root view, as many as come (at most n), each read exactly as
 * rg_reply_quick_bulk reads one, with the position in a register and the reader's offset, value
 * count and the reply's start stored once at the end. Returns the replies taken. */
static size_t quick_bulks(rg_reply_reader *rr, const rg_rtable *t, const char *buf, size_t len,
                          size_t *pos, char *out, size_t stride, size_t n) {
    const rg_rnode *const root = &t->nodes[0];
    if (n == 0 || *pos >= len || !(rr->ready & RG_REPLY_IDLE) || root->store != RG_RT_VIEW ||
        root->shape != RG_RS_SCALAR || root->cval || !(root->accept & RG_RA(RG_EV_BULK))) {
        return 0;
    }
    const char *const first = buf + *pos, *const e = buf + len;
    const char *p = first, *last = first;
    const uint64_t longest = rr->rd.fast_bulk_end;
    out += root->offset;
    size_t k = 0;
    for (; k < n && e - p >= 6 && *p == '$'; k++) { /* 6: as rg_reply_quick_bulk */
        const char *s;
        uint64_t blen;
        if (!short_bulk_head(p, &s, &blen) || blen >= longest || (size_t)(e - s) < blen + 2 ||
            !rg_fast_crlf(s + blen)) {
            break;
        }
        const rg_view v = {s, (size_t)blen};
        memcpy(out, &v, sizeof v);
        out += stride;
        last = p;
        p = s + blen + 2;
    }
    if (k) {
        rr->start = rr->rd.offset + (uint64_t)(last - first);
        rr->rd.offset += (uint64_t)(p - first);
        rr->rd.values += k;
        *pos += (size_t)(p - first);
    }
    return k;
}

rg_status rg_reply_decode_many(rg_reply_reader *rr, const rg_rtable *t, const char *buf, size_t len,
                               size_t *pos, void *out, size_t stride, size_t n, size_t *done) {
    char *const items = out;
    rg_status st = RG_OK;
    size_t k = 0;
    while (k < n) {
        k += quick_bulks(rr, t, buf, len, pos, items + k * stride, stride, n - k);
        if (k == n) break;
        st = rg_reply_decode(rr, t, buf, len, pos, items + k * stride);
        if (st != RG_OK) break;
        k++;
    }
    *done = k;
    return st;
}

rg_status rg_reply_decode_push(rg_reply_reader *rr, const rg_rtable *t, const char *buf, size_t len,
                               size_t *pos, void *out) {
    rr->push_ok = true;
    const rg_status st = rg_reply_decode(rr, t, buf, len, pos, out);
    rr->push_ok = false;
    return st;
}

rg_status rg_reply_skip(rg_reply_reader *rr, const char *buf, size_t len, size_t *pos) {
    rg_event ev;
    for (;;) {
        const rg_status st = rg_next(&rr->rd, buf, len, pos, &ev);
        rr->start = rg_reader_offset(&rr->rd); /* nothing before *pos is needed */
        rr->push_skip = st == RG_NEED_MORE;
        if (st != RG_OK || ev.complete) return settle(rr, st);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Merging a fan-out's replies (rg_reply_merge, rg_reply_put_int). */

/* A merged part: its root list, and how many of its elements are placed. */
typedef struct merge_part {
    const char *items;
    size_t count, next;
} merge_part;

/* Ends a merge that cannot be made, with a message as a mismatch's (part SIZE_MAX: of them all). */
static rg_status merge_refused(rg_reply_reader *rr, const rg_rtable *t, const char *why,
                               size_t part) {
    if (part == SIZE_MAX) {
        snprintf(rr->msg, sizeof rr->msg, "%s: the parts' replies: %s", t->command, why);
    } else {
        snprintf(rr->msg, sizeof rr->msg, "%s: reply of part %zu: %s", t->command, part, why);
    }
    rr->error = (rg_view){rr->msg, strlen(rr->msg)};
    rr->skipping = true;
    rr->server_error = rr->lost = false;
    return RG_MISMATCH;
}

/* The reader between replies for the next part (or the next caller): the parts are read as one
 * stream, so an idle reader goes on as it is; one a part left inside a value starts afresh. */
static void merge_reset(rg_reply_reader *rr) {
    if (between_replies(rr)) return;
    restart_reader(rr);
    rr->active = rr->pending = rr->waiting = rr->push_skip = false;
    rr->depth = 0;
    rr->mark = 0;
    rr->ready = between_replies(rr);
}

/* Bytes needed so far, rounded up for the next 8-aligned carve (SIZE_MAX stays). */
static size_t merge_align(size_t used) {
    return used > SIZE_MAX - 7u ? SIZE_MAX : (used + 7u) & ~(size_t)7u;
}

/* The root list of a result (as set_items and set_count store it), none of it placed yet. */
static void list_of(const rg_rnode *root, const void *result, merge_part *p) {
    memcpy(&p->items, (const char *)result + root->offset, sizeof p->items);
    memcpy(&p->count, (const char *)result + root->offset + sizeof(void *), sizeof p->count);
    p->next = 0;
}

/* Part j into out, with the storage after *used; its root list into *p. */
static rg_status merge_decode(rg_reply_reader *rr, const rg_rtable *t, rg_view part, char *mem,
                              size_t cap, size_t *used, void *out, merge_part *p) {
    const size_t at = merge_align(*used);
    rr->mem = mem && at <= cap ? mem + at : NULL;
    rr->cap = rr->mem ? cap - at : 0;
    merge_reset(rr);
    size_t pos = 0;
    rg_status st = rg_reply_decode(rr, t, part.ptr, part.len, &pos, out);
    *used = rr->used > SIZE_MAX - at ? SIZE_MAX : at + rr->used;
    if (st == RG_NEED_MORE || (st == RG_OK && pos != part.len)) st = RG_INVALID;
    list_of(&t->nodes[0], out, p);
    return st;
}

/* Element i of the merged list: the next unplaced one of its part; false when there is none. */
static bool merge_place(merge_part *part, size_t nparts, const uint8_t *from, size_t i, size_t *cur,
                        size_t elem, char *dst) {
    if (from) {
        *cur = from[i];
    } else {
        while (*cur < nparts && part[*cur].next == part[*cur].count) ++*cur;
    }
    if (*cur >= nparts || part[*cur].next == part[*cur].count) return false;
    merge_part *const p = &part[*cur];
    memcpy(dst, p->items + p->next++ * elem, elem);
    return true;
}

/* The merged root list: n elements carved after the parts' storage, each the next of its part
 * (st: RG_SHORT when a part's storage did not fit, so only the need is counted). */
static rg_status merge_list(rg_reply_reader *rr, const rg_rtable *t, merge_part *part,
                            size_t nparts, const uint8_t *from, size_t n, void *out, rg_status st) {
    const rg_rnode *const root = &t->nodes[0];
    char *const items = reserve_n(rr, n, root->elem_size);
    if (st == RG_SHORT || (n && !items)) return RG_SHORT;
    size_t cur = 0;
    for (size_t i = 0; i < n; i++) {
        if (!merge_place(part, nparts, from, i, &cur, root->elem_size,
                         items + i * root->elem_size)) {
            return merge_refused(rr, t, "more or fewer elements than keys", SIZE_MAX);
        }
    }
    memset(out, 0, t->result_size);
    set_items((char *)out + root->offset, items);
    set_count((char *)out + root->offset, n);
    return RG_OK;
}

/* What rg_reply_merge and rg_reply_gather take: a list table, between replies. */
static rg_status merge_check(rg_reply_reader *rr, const rg_rtable *t, size_t nparts) {
    const rg_rnode *const root = &t->nodes[0];
    if (rr->active || rr->pending || rr->push_skip || rr->each || nparts > RG_REPLY_MERGE_MAX) {
        return RG_INVALID;
    }
    rr->table = t;
    if (root->shape != RG_RS_ARRAY && root->shape != RG_RS_PAIRS) {
        return merge_refused(rr, t, "the command's reply is not a list", SIZE_MAX);
    }
    return RG_OK;
}

rg_status rg_reply_gather(rg_reply_reader *rr, const rg_rtable *t, const void *const *results,
                          size_t nparts, const uint8_t *from, size_t n, void *out) {
    const rg_status st = merge_check(rr, t, nparts);
    if (st != RG_OK) return st;
    merge_part part[RG_REPLY_MERGE_MAX];
    size_t total = 0;
    for (size_t j = 0; j < nparts; j++) {
        list_of(&t->nodes[0], results[j], &part[j]);
        total += part[j].count;
    }
    rr->used = 0;
    if (from && n != total)
        return merge_refused(rr, t, "more or fewer elements than keys", SIZE_MAX);
    return merge_list(rr, t, part, nparts, from, from ? n : total, out, RG_OK);
}

rg_status rg_reply_merge(rg_reply_reader *rr, const rg_rtable *t, const rg_view *parts,
                         size_t nparts, const uint8_t *from, size_t n, void *out) {
    char *const mem = rr->mem;
    const size_t cap = rr->cap;
    const rg_status checked = merge_check(rr, t, nparts);
    if (checked != RG_OK) return checked;
    merge_part part[RG_REPLY_MERGE_MAX];
    size_t used = 0, total = 0;
    rg_status st = RG_OK;
    for (size_t j = 0; j < nparts && (st == RG_OK || st == RG_SHORT); j++) {
        const rg_status s = merge_decode(rr, t, parts[j], mem, cap, &used, out, &part[j]);
        if (s == RG_INVALID) {
            st = merge_refused(rr, t, "not one whole reply", j);
        } else if (s != RG_OK) {
            st = s; /* RG_SHORT goes on: the size query counts every part */
        }
        total += part[j].count;
    }
    rr->mem = mem;
    rr->cap = cap;
    rr->used = used;
    if (st == RG_OK || st == RG_SHORT) {
        if (from && n != total) {
            st = merge_refused(rr, t, "more or fewer elements than keys", SIZE_MAX);
        } else {
            st = merge_list(rr, t, part, nparts, from, from ? n : total, out, st);
        }
    }
    if (!rg_status_fatal(st)) merge_reset(rr); /* (a sticky error stays for rg_reply_error) */
    return st;
}

rg_status rg_reply_put_int(rg_reply_reader *rr, const rg_rtable *t, int64_t v, void *out) {
    const rg_rnode *const root = &t->nodes[0];
    const rg_event ev = {.kind = RG_EV_INT, .complete = true, .u.i = v};
    const call_ctx c = {NULL, 0, NULL, 0, 0};
    if (rr->active || rr->pending || rr->push_skip) return RG_INVALID;
    memset(out, 0, t->result_size);
    rr->table = t;
    rr->depth = 0;
    rr->skipping = rr->server_error = rr->lost = false;
    if (root->shape != RG_RS_SCALAR) {
        mismatch(rr, root, &ev, "a merged integer's place (a scalar)");
        return RG_MISMATCH;
    }
    return put_scalar(rr, &c, root, out, &ev) ? RG_OK : RG_MISMATCH;
}
