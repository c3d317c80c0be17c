/* respgen runtime: typed push decoders (see rg_push.h).
 *
 * A local rg_reader walks the whole value; the first elements are kept as scalars and byte
 * ranges, then a table says which name has which shape. All or nothing, so a half-read push
 * never leaves a reader in a state the caller would have to keep. */
#include "rg_push.h"

#include <string.h>

enum { KEPT = 4 }; /* elements looked at: the longest known shape (pmessage) */

/* One element of the value at depth 1. */
typedef struct elem {
    uint8_t kind;    /* rg_kind of its first event */
    bool strings;    /* an aggregate whose elements are all plain strings */
    int64_t i;       /* INT value; aggregate count */
    rg_view str;     /* strings */
    size_t from, to; /* its bytes in buf */
} elem;

typedef struct scan {
    const char *buf;
    bool resp3;
    size_t count, from, to;
    elem e[KEPT];
} scan;

/* Element shapes of the table. */
enum { S_STR, S_STR_OR_NULL, S_INT, S_KEYS };

typedef struct shape {
    const char *name;
    rg_push_kind kind;
    uint8_t n;       /* elements after the name */
    uint8_t want[3]; /* S_* of each */
} shape;

static const shape SHAPES[] = {
    {"message", RG_PUSH_MESSAGE, 2, {S_STR, S_STR}},
    {"pmessage", RG_PUSH_PMESSAGE, 3, {S_STR, S_STR, S_STR}},
    {"smessage", RG_PUSH_SMESSAGE, 2, {S_STR, S_STR}},
    {"subscribe", RG_PUSH_SUBSCRIBE, 2, {S_STR_OR_NULL, S_INT}},
    {"unsubscribe", RG_PUSH_UNSUBSCRIBE, 2, {S_STR_OR_NULL, S_INT}},
    {"psubscribe", RG_PUSH_PSUBSCRIBE, 2, {S_STR_OR_NULL, S_INT}},
    {"punsubscribe", RG_PUSH_PUNSUBSCRIBE, 2, {S_STR_OR_NULL, S_INT}},
    {"ssubscribe", RG_PUSH_SSUBSCRIBE, 2, {S_STR_OR_NULL, S_INT}},
    {"sunsubscribe", RG_PUSH_SUNSUBSCRIBE, 2, {S_STR_OR_NULL, S_INT}},
    {"invalidate", RG_PUSH_INVALIDATE, 1, {S_KEYS}},
    {"tracking-redir-broken", RG_PUSH_TRACKING_REDIR_BROKEN, 0, {0}},
};

/* RESP2 tracking with REDIRECT sends invalidations as messages on this channel. */
#define INVALIDATE_CHANNEL "__redis__:invalidate"

const char *rg_push_kind_name(rg_push_kind k) {
    static const char *const names[RG_PUSH_KIND_COUNT] = {
        [RG_PUSH_OTHER] = "other",
        [RG_PUSH_MESSAGE] = "message",
        [RG_PUSH_PMESSAGE] = "pmessage",
        [RG_PUSH_SMESSAGE] = "smessage",
        [RG_PUSH_SUBSCRIBE] = "subscribe",
        [RG_PUSH_UNSUBSCRIBE] = "unsubscribe",
        [RG_PUSH_PSUBSCRIBE] = "psubscribe",
        [RG_PUSH_PUNSUBSCRIBE] = "punsubscribe",
        [RG_PUSH_SSUBSCRIBE] = "ssubscribe",
        [RG_PUSH_SUNSUBSCRIBE] = "sunsubscribe",
        [RG_PUSH_INVALIDATE] = "invalidate",
        [RG_PUSH_TRACKING_REDIR_BROKEN] = "tracking-redir-broken",
    };
    return (unsigned)k < RG_PUSH_KIND_COUNT ? names[k] : "other";
}

static bool is_str(uint8_t kind) {
    return kind == RG_EV_BULK || kind == RG_EV_SIMPLE || kind == RG_EV_VERBATIM;
}

static bool is_agg(uint8_t kind) {
    return kind >= RG_EV_ARRAY && kind <= RG_EV_PUSH;
}

/* Books one event of an element at depth >= 1 (before: where the event's bytes start). */
static void book(scan *s, const rg_event *ev, size_t before, size_t after) {
    if (ev->depth == 1 && ev->kind != RG_EV_END && ev->kind != RG_EV_STR_CHUNK &&
        ev->kind != RG_EV_STR_END) {
        const size_t k = s->count++;
        if (k >= KEPT) return;
        elem *e = &s->e[k];
        e->kind = ev->kind;
        e->i = ev->u.i;
        e->str = ev->str;
        e->from = before;
        e->strings = is_agg(ev->kind) && ev->kind != RG_EV_MAP;
    } else if (ev->depth >= 2 && s->count - 1 < KEPT) {
        elem *e = &s->e[s->count - 1];
        if (ev->depth > 2 || (ev->kind != RG_EV_BULK && ev->kind != RG_EV_SIMPLE))
            e->strings = false;
    }
    if (s->count - 1 < KEPT && ev->depth == 1) s->e[s->count - 1].to = after;
}

/* Walks the value; RG_OK with *s filled and *pos past it, or another status, nothing consumed
 * (*err filled for a sticky error). */
static rg_status walk(const char *buf, size_t len, size_t *pos, bool resp2_arrays,
                      const rg_limits *limits, scan *s, rg_error *err) {
    rg_limits lim = limits ? *limits : rg_limits_default();
    lim.stream_min = UINT64_MAX; /* payloads whole: they become views */
    rg_reader r;
    rg_reader_init(&r, &lim);
    size_t p = *pos;
    bool in_value = false;
    for (;;) {
        rg_event ev;
        const size_t before = p;
        const rg_status st = rg_next(&r, buf, len, &p, &ev);
        if (st == RG_NEED_MORE) return RG_NEED_MORE;
        if (st != RG_OK) {
            const rg_error e = rg_reader_error(&r);
            *err = (rg_error){e.status, e.msg, p};
            return st;
        }
        if (!in_value && ev.depth == 0) {
            if (ev.kind == RG_EV_ATTR) continue;
            if (ev.kind == RG_EV_END && ev.sub == RG_EV_ATTR) continue;
            const bool arr = resp2_arrays && ev.kind == RG_EV_ARRAY && ev.u.i > 0;
            if (ev.kind != RG_EV_PUSH && !arr) return RG_NOT_PUSH;
            in_value = true;
            s->resp3 = ev.kind == RG_EV_PUSH;
            s->from = before;
        } else if (in_value && ev.depth >= 1) {
            book(s, &ev, before, p);
        }
        if (in_value && ev.complete) {
            s->to = p;
            *pos = p;
            return RG_OK;
        }
    }
}

static bool fits(const elem *e, uint8_t want) {
    switch (want) {
    case S_STR: return is_str(e->kind);
    case S_STR_OR_NULL: return is_str(e->kind) || e->kind == RG_EV_NULL;
    case S_INT: return e->kind == RG_EV_INT;
    default: return e->kind == RG_EV_NULL || (is_agg(e->kind) && e->strings);
    }
}

static const shape *shape_of(const scan *s) {
    const elem *name = &s->e[0];
    if (!is_str(name->kind)) return NULL;
    for (size_t k = 0; k < sizeof SHAPES / sizeof SHAPES[0]; k++) {
        const shape *sh = &SHAPES[k];
        if (name->str.len != strlen(sh->name) || memcmp(name->str.ptr, sh->name, name->str.len))
            continue;
        if (sh->kind == RG_PUSH_TRACKING_REDIR_BROKEN ? s->count < 1 : s->count != 1u + sh->n)
            return NULL;
        for (unsigned i = 0; i < sh->n; i++)
            if (!fits(&s->e[i + 1], sh->want[i])) return NULL;
        return sh;
    }
    return NULL;
}

static void put_keys(const scan *s, const elem *e, rg_push *out) {
    out->kind = RG_PUSH_INVALIDATE;
    out->flush_all = e->kind == RG_EV_NULL;
    out->nkeys = out->flush_all ? 0 : (size_t)e->i;
    out->keys = out->flush_all ? (rg_view){NULL, 0} : (rg_view){s->buf + e->from, e->to - e->from};
}

/* RESP2's invalidation: ["message", "__redis__:invalidate", [keys] | null]. */
static bool resp2_invalidation(const scan *s, rg_push *out) {
    const elem *e = s->e;
    if (s->count != 3 || !is_str(e[0].kind) || !is_str(e[1].kind)) return false;
    if (e[0].str.len != 7 || memcmp(e[0].str.ptr, "message", 7)) return false;
    if (e[1].str.len != sizeof INVALIDATE_CHANNEL - 1 ||
        memcmp(e[1].str.ptr, INVALIDATE_CHANNEL, e[1].str.len))
        return false;
    if (!fits(&e[2], S_KEYS)) return false;
    out->name = e[0].str;
    out->channel = e[1].str;
    put_keys(s, &e[2], out);
    return true;
}

static void fill(const scan *s, const shape *sh, rg_push *out) {
    const elem *e = s->e;
    out->kind = sh->kind;
    if (rg_push_is_message(sh->kind)) {
        const bool p = sh->kind == RG_PUSH_PMESSAGE;
        if (p) out->pattern = e[1].str;
        out->channel = e[1 + p].str;
        out->payload = e[2 + p].str;
    } else if (rg_push_is_confirmation(sh->kind)) {
        out->channel = e[1].kind == RG_EV_NULL ? (rg_view){NULL, 0} : e[1].str;
        out->subscriptions = e[2].i;
    } else if (sh->kind == RG_PUSH_INVALIDATE) {
        put_keys(s, &e[1], out);
    }
}

rg_status rg_push_decode(const char *buf, size_t len, size_t *pos, bool resp2_arrays,
                         const rg_limits *limits, rg_push *out, rg_error *err) {
    scan s;
    memset(&s, 0, sizeof s);
    s.buf = buf;
    size_t p = *pos;
    rg_error e = {RG_OK, {NULL, 0}, 0};
    const rg_status st = walk(buf, len, &p, resp2_arrays, limits, &s, &e);
    if (err) *err = e;
    if (st != RG_OK) return st;
    memset(out, 0, sizeof *out);
    out->resp3 = s.resp3;
    out->count = s.count;
    out->raw = (rg_view){buf + s.from, s.to - s.from};
    if (s.count && is_str(s.e[0].kind)) out->name = s.e[0].str;
    const shape *sh = s.count ? shape_of(&s) : NULL;
    if (sh && !(sh->kind == RG_PUSH_MESSAGE && resp2_invalidation(&s, out))) {
        fill(&s, sh, out);
    } else if (!sh && !(s.count && resp2_invalidation(&s, out)) && !s.resp3) {
        return RG_NOT_PUSH; /* an ordinary RESP2 reply */
    }
    *pos = p;
    return RG_OK;
}

/* ---- keys of an invalidation ------------------------------------------------------------- */

/* The keys are read again by rg_next, the reader that validated them, not by a second parser:
 * a length line the reader accepts in an unusual spelling ("$-0") must give the same key here.
 * Each key is a whole value at depth 0 of a fresh reader, so no state is kept between calls. */
static bool next_value(const rg_view *v, size_t *at, rg_event *ev) {
    rg_limits lim = rg_limits_default();
    lim.stream_min = UINT64_MAX;
    rg_reader r;
    rg_reader_init(&r, &lim);
    return *at < v->len && rg_next(&r, v->ptr, v->len, at, ev) == RG_OK;
}

bool rg_push_keys_next(const rg_push *p, size_t *at, rg_view *key) {
    if (p->kind != RG_PUSH_INVALIDATE || !p->keys.ptr) return false;
    size_t i = *at;
    rg_event ev;
    if (i == 0 && !next_value(&p->keys, &i, &ev)) return false; /* the aggregate's header */
    if (!next_value(&p->keys, &i, &ev) || (ev.kind != RG_EV_BULK && ev.kind != RG_EV_SIMPLE))
        return false;
    *key = ev.str;
    *at = i;
    return true;
}
