/* The typed reply decoders of specs/redis.lua against every command a real redis-server runs,
 * differentially: each reply is read raw from the server, decoded by the command's generated
 * typed decoder (fed whole, then one byte at a time), and the typed result is walked through its
 * table together with what the generic decoder (rg_next) reads from the same bytes: values,
 * counts, nulls and raw bytes must agree (see "The comparison" below).
 *
 * The calls: every call respgen --sample-calls made (redis_calls.h: a minimal and a full form
 * per command, its keys seeded with data of the command's group), and the hand-written forms of
 * reply_forms.txt (main option forms on the seeded keys). Each on a fresh connection after the
 * seed (FLUSHALL, then data of every type, a function library and a script), once after HELLO 2
 * and once after HELLO 3.
 *
 * Fails on: a reply the typed decoder rejects (MISMATCH or PROTOCOL) that is not in
 * EXPECTED_FAILURES, an expected failure that now passes, a typed result that differs from the
 * generic reading, a form that cannot be sent, a command neither checked nor skipped with a
 * reason, and a stale section of docs/reply-coverage.md (with RG_REPLY_DIFF_WRITE=1 in the
 * environment the section is rewritten instead). */
#include "redis_calls.h"
#include "redis_keys.h"
#include "test_redis.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum {
    REQ_CAP = 1 << 16,
    RAW_CAP = 1 << 22,
    STORE_CAP = 1 << 23,
    MAX_NODES = 1 << 17,
    MAX_ARGS = 64,
    MAX_FORMS = 2048,
    BYTEWISE_MAX = 1 << 14, /* larger replies are fed in 64 pieces (the engine may rescan) */
};

#define N_CALLS (sizeof redis_sample_calls / sizeof redis_sample_calls[0])

/* Replies the typed decoder rejects today because of the engine (not the schema): the other
 * half of issue 11 fixes them. Matched by command, protocol (0: both) and a word of the request.
 * An entry that stops failing fails the test, so the list is emptied as the engine is fixed. */
typedef struct expected_failure {
    const char *command;
    int proto;
    const char *word;
    const char *why;
} expected_failure;

/* Empty since the engine decides alternatives by the whole value (XAUTOCLAIM JUSTID, a
 * Sentinel's ROLE were here); the terminator keeps the array non-empty, as C requires. */
static const expected_failure EXPECTED_FAILURES[] = {
    {NULL, 0, NULL, NULL},
};
#define N_EXPECTED (sizeof EXPECTED_FAILURES / sizeof EXPECTED_FAILURES[0] - 1)

/* ------------------------------------------------------------------------------------------ */
/* The comparison: the generic decoder's reading of a reply as a tree (one node per value, in
 * order), walked together with the typed result through its table. Every typed value must be
 * the generic value at the same place: scalars equal (a double the typed decoder parsed may be
 * the generic decoder's text or integer, a bool its 0 or 1), aggregates of the same count
 * (pairs: a map of that many pairs, a flat array of twice as many values, or an array of that
 * many 2-element arrays), nulls where the generic reading has nulls, and a raw value exactly
 * the bytes of the generic value. */

typedef enum { L_STR, L_INT, L_DBL, L_BOOL, L_NIL, L_ERR } leaf_kind;

typedef struct leaf {
    leaf_kind kind;
    bool typed_dbl; /* a double the typed decoder parsed (may come as text or an integer) */
    rg_view s;
    int64_t i;
    double d;
} leaf;

/* One value of the generic reading. */
typedef struct gnode {
    uint8_t agg;       /* 0: a scalar (v); else the aggregate's rg_kind */
    int64_t count;     /* aggregates: the header's count (a map's pairs) */
    size_t next;       /* the node after this value and everything in it */
    size_t start, end; /* its bytes in the buffer */
    leaf v;
} gnode;

typedef struct gtree {
    gnode *v;
    size_t n;
} gtree;

static leaf event_leaf(const rg_event *ev) {
    switch (ev->kind) {
    case RG_EV_INT: return (leaf){.kind = L_INT, .i = ev->u.i};
    case RG_EV_DOUBLE: return (leaf){.kind = L_DBL, .d = ev->u.d};
    case RG_EV_BOOL: return (leaf){.kind = L_BOOL, .i = ev->u.b};
    case RG_EV_NULL: return (leaf){.kind = L_NIL};
    case RG_EV_ERROR:
    case RG_EV_BLOBERR: return (leaf){.kind = L_ERR, .s = ev->str};
    default: return (leaf){.kind = L_STR, .s = ev->str}; /* simple, bulk, verbatim, big number */
    }
}

static bool is_aggregate(uint8_t kind) {
    return kind == RG_EV_ARRAY || kind == RG_EV_MAP || kind == RG_EV_SET || kind == RG_EV_PUSH;
}

/* Reads one whole reply (buf holds exactly it) into g. Returns NULL or what went wrong.
 * Attributes are skipped, as the typed engine skips them. */
static const char *generic_tree(const char *buf, size_t len, gtree *g) {
    rg_reader r;
    rg_reader_init(&r, NULL);
    size_t pos = 0, open[RG_MAX_DEPTH];
    uint64_t left[RG_MAX_DEPTH];
    int depth = 0, attr = 0;
    g->n = 0;
    for (;;) {
        const size_t before = pos;
        rg_event ev;
        if (rg_next(&r, buf, len, &pos, &ev) != RG_OK) return "the generic decoder failed";
        if (ev.kind == RG_EV_ATTR || ev.kind == RG_EV_END) {
            attr += ev.kind == RG_EV_ATTR ? 1 : ev.sub == RG_EV_ATTR ? -1 : 0;
            continue;
        }
        if (attr > 0) continue;
        if (g->n == MAX_NODES) return "too many values";
        gnode *x = &g->v[g->n++];
        *x = (gnode){.start = before, .end = pos, .next = g->n};
        if (is_aggregate(ev.kind)) {
            if (ev.u.i < 0) return "a streamed aggregate";
            x->agg = ev.kind;
            x->count = ev.u.i;
            const uint64_t items = (uint64_t)ev.u.i * (ev.kind == RG_EV_MAP ? 2 : 1);
            if (items > 0) {
                if (depth == RG_MAX_DEPTH) return "too deep";
                open[depth] = g->n - 1;
                left[depth++] = items;
                continue;
            }
        } else {
            x->v = event_leaf(&ev);
        }
        /* A value is complete: so are the aggregates it was the last value of. */
        while (depth > 0 && --left[depth - 1] == 0) {
            depth--;
            g->v[open[depth]].end = pos;
            g->v[open[depth]].next = g->n;
        }
        if (depth == 0) return pos == len ? NULL : "bytes after the value";
    }
}

/* Whether the text is exactly a double (Redis' RESP2 form: "1.5", "inf", "-inf", "nan"). */
static bool text_is(rg_view s, double want) {
    char tmp[128];
    if (s.len == 0 || s.len >= sizeof tmp) return false;
    memcpy(tmp, s.ptr, s.len);
    tmp[s.len] = '\0';
    char *end;
    const double d = strtod(tmp, &end);
    return *end == '\0' && (d == want || (isnan(d) && isnan(want)));
}

static bool same_leaf(const leaf *t, const leaf *g) {
    if (t->kind == L_DBL && t->typed_dbl) {
        if (g->kind == L_DBL) return g->d == t->d || (isnan(g->d) && isnan(t->d));
        if (g->kind == L_STR) return text_is(g->s, t->d);
        return g->kind == L_INT && (double)g->i == t->d;
    }
    if (t->kind == L_BOOL && g->kind == L_INT) return g->i == t->i;
    if (t->kind != g->kind) return false;
    switch (t->kind) {
    case L_STR:
    case L_ERR: return t->s.len == g->s.len && memcmp(t->s.ptr, g->s.ptr, t->s.len) == 0;
    case L_INT:
    case L_BOOL: return t->i == g->i;
    case L_DBL: return t->d == g->d || (isnan(t->d) && isnan(g->d));
    default: return true;
    }
}

static void leaf_text(const leaf *x, char *out, size_t cap) {
    static const char *const K[] = {"string", "integer", "double", "bool", "null", "error"};
    switch (x->kind) {
    case L_STR:
    case L_ERR:
        snprintf(out, cap, "%s \"%.*s\"", K[x->kind], (int)(x->s.len > 40 ? 40 : x->s.len),
                 x->s.ptr);
        break;
    case L_INT:
    case L_BOOL: snprintf(out, cap, "%s %lld", K[x->kind], (long long)x->i); break;
    case L_DBL: snprintf(out, cap, "double %.17g", x->d); break;
    default: snprintf(out, cap, "%s", K[x->kind]); break;
    }
}

/* The typed value of scalar node n stored in mem. */
static leaf typed_scalar(const rg_rnode *n, const char *mem) {
    leaf x = {.kind = L_NIL};
    switch (n->store) {
    case RG_RT_VIEW:
        memcpy(&x.s, mem + n->offset, sizeof x.s);
        if (x.s.ptr) x.kind = L_STR; /* a null stores {NULL, 0} */
        break;
    case RG_RT_I64:
        memcpy(&x.i, mem + n->offset, sizeof x.i);
        x.kind = L_INT;
        break;
    case RG_RT_DBL:
        memcpy(&x.d, mem + n->offset, sizeof x.d);
        x.kind = L_DBL;
        x.typed_dbl = true;
        break;
    case RG_RT_BOOL: {
        bool b;
        memcpy(&b, mem + n->offset, sizeof b);
        x = (leaf){.kind = L_BOOL, .i = b};
        break;
    }
    default: /* RG_RT_NONE: a null, or a constant checked and not stored */
        if (n->cval) x = (leaf){.kind = L_STR, .s = {n->cval, strlen(n->cval)}};
        break;
    }
    return x;
}

/* Walks typed node k (its value in mem) with generic node gi. */
typedef struct matcher {
    const rg_rnode *t;
    const gtree *g;
    const char *buf;
    char *why;
    size_t cap;
    char path[160];
} matcher;

/* Records where and how the typed result parts from the generic reading; returns false. */
static bool differ(matcher *m, const char *fmt, ...) {
    const int n = snprintf(m->why, m->cap, "reply%s: ", m->path);
    const size_t at = n > 0 && (size_t)n < m->cap ? (size_t)n : 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->why + at, m->cap - at, fmt, ap);
    va_end(ap);
    return false;
}

static bool match(matcher *m, uint16_t k, const char *mem, size_t gi);

/* match() one level down, the path extended by "[i]" or "[i].name". */
static bool match_at(matcher *m, uint16_t k, const char *mem, size_t gi, const char *name,
                     size_t i) {
    const size_t len = strlen(m->path);
    if (name) {
        snprintf(m->path + len, sizeof m->path - len, "[%zu].%s", i, name);
    } else {
        snprintf(m->path + len, sizeof m->path - len, "[%zu]", i);
    }
    const bool same = match(m, k, mem, gi);
    if (same) m->path[len] = '\0';
    return same;
}

static bool match_list(matcher *m, const rg_rnode *n, const char *mem, const gnode *gn, size_t gi) {
    const char *items;
    size_t count;
    memcpy(&items, mem + n->offset, sizeof items);
    memcpy(&count, mem + n->offset + sizeof(void *), sizeof count);
    if (count > 0 && !items) return differ(m, "a count of %zu and no items", count);
    const bool pairs = n->shape == RG_RS_PAIRS;
    size_t c = gi + 1;
    if (!pairs || gn->agg == RG_EV_MAP) {
        if (gn->count != (int64_t)count)
            return differ(m, "typed count %zu, generic %lld", count, (long long)gn->count);
        for (size_t i = 0; i < count; i++, c = m->g->v[c].next) {
            if (!match_at(m, n->child, items + i * n->elem_size, c, pairs ? "key" : NULL, i))
                return false;
            if (!pairs) continue;
            c = m->g->v[c].next;
            if (!match_at(m, (uint16_t)(n->child + 1), items + i * n->elem_size, c, "value", i))
                return false;
        }
        return true;
    }
    /* Pairs from an array: flat (k, v, k, v) or nested ([k, v], [k, v]). */
    bool nested = count > 0 && gn->count == (int64_t)count;
    for (size_t i = 0, x = c; nested && i < count; i++, x = m->g->v[x].next)
        nested = m->g->v[x].agg == RG_EV_ARRAY && m->g->v[x].count == 2;
    if (!nested && gn->count != 2 * (int64_t)count)
        return differ(m, "typed %zu pairs, generic array of %lld", count, (long long)gn->count);
    for (size_t i = 0; i < count; i++) {
        const size_t key = nested ? c + 1 : c;
        const size_t value = m->g->v[key].next;
        if (!match_at(m, n->child, items + i * n->elem_size, key, "key", i) ||
            !match_at(m, (uint16_t)(n->child + 1), items + i * n->elem_size, value, "value", i))
            return false;
        c = nested ? m->g->v[c].next : m->g->v[value].next;
    }
    return true;
}

/* The field of an object whose name is the generic key, or nfields when none is. */
static uint16_t object_field(const matcher *m, const rg_rnode *n, const gnode *key) {
    const uint16_t nfields = (uint16_t)(n->nchildren / 2);
    if (key->agg != 0) return nfields;
    for (uint16_t j = 0; j < nfields; j++) {
        const char *name = m->t[n->child + 2 * j].cval;
        if (strlen(name) == key->v.s.len && memcmp(name, key->v.s.ptr, key->v.s.len) == 0) return j;
    }
    return nfields;
}

/* An object: every key the schema names has its presence bit and a matching value; the bits of
 * keys that did not come are clear; other keys are skipped, as the engine skips them. */
static bool match_object(matcher *m, const rg_rnode *n, const char *mem, const gnode *gn,
                         size_t gi) {
    const int64_t pairs = gn->agg == RG_EV_MAP ? gn->count : gn->count / 2;
    if (gn->agg != RG_EV_MAP && gn->count % 2 != 0)
        return differ(m, "typed an object, generic array of %lld", (long long)gn->count);
    uint64_t present, seen = 0;
    memcpy(&present, mem + n->offset, sizeof present);
    size_t c = gi + 1;
    for (int64_t i = 0; i < pairs; i++) {
        const size_t value = m->g->v[c].next;
        const uint16_t j = object_field(m, n, &m->g->v[c]);
        if (j < n->nchildren / 2) {
            seen |= (uint64_t)1 << j;
            if (!(present & (uint64_t)1 << j))
                return differ(m, "field %s came, its presence bit is clear",
                              m->t[n->child + 2 * j].cval);
            if (!match_at(m, (uint16_t)(n->child + 2 * j + 1), mem, value,
                          m->t[n->child + 2 * j].cval, (size_t)i))
                return false;
        }
        c = m->g->v[value].next;
    }
    if (seen != present)
        return differ(m, "presence bits %#llx, fields that came %#llx", (unsigned long long)present,
                      (unsigned long long)seen);
    return true;
}

static bool match(matcher *m, uint16_t k, const char *mem, size_t gi) {
    const rg_rnode *n = &m->t[k];
    const gnode *gn = &m->g->v[gi];
    switch (n->shape) {
    case RG_RS_SCALAR: {
        const leaf t = typed_scalar(n, mem);
        if (gn->agg == 0 && same_leaf(&t, &gn->v)) return true;
        char a[96], b[96];
        leaf_text(&t, a, sizeof a);
        if (gn->agg) {
            snprintf(b, sizeof b, "%s of %lld", rg_kind_name((rg_kind)gn->agg),
                     (long long)gn->count);
        } else {
            leaf_text(&gn->v, b, sizeof b);
        }
        return differ(m, "typed %s, generic %s", a, b);
    }
    case RG_RS_ARRAY:
    case RG_RS_PAIRS:
        if (gn->agg == 0) return differ(m, "typed a list, generic a scalar");
        return match_list(m, n, mem, gn, gi);
    case RG_RS_TUPLE: {
        const int64_t lo = n->min ? n->min : n->nchildren;
        if (gn->agg == 0 || gn->agg == RG_EV_MAP || gn->count < lo || gn->count > n->nchildren)
            return differ(m, "typed a tuple of %u to %u, generic %s of %lld", (unsigned)lo,
                          (unsigned)n->nchildren,
                          gn->agg ? rg_kind_name((rg_kind)gn->agg) : "a scalar",
                          (long long)gn->count);
        size_t c = gi + 1;
        for (uint16_t i = 0; i < (uint16_t)gn->count; i++, c = m->g->v[c].next) {
            if (!match_at(m, (uint16_t)(n->child + i), mem, c, NULL, i)) return false;
        }
        return true;
    }
    case RG_RS_OBJECT:
        if (gn->agg == 0) return differ(m, "typed an object, generic a scalar");
        return match_object(m, n, mem, gn, gi);
    case RG_RS_ONEOF: {
        const uint8_t which = (uint8_t)mem[n->offset];
        if (which == 0 || which > n->nchildren)
            return differ(m, "which %u of %u alternatives", which, (unsigned)n->nchildren);
        return match(m, (uint16_t)(n->child + which - 1), mem, gi);
    }
    case RG_RS_ANY: {
        rg_view v;
        memcpy(&v, mem + n->offset, sizeof v);
        const size_t len = gn->end - gn->start;
        if (v.ptr && v.len == len && memcmp(v.ptr, m->buf + gn->start, len) == 0) return true;
        return differ(m, "a raw value of %zu bytes%s, generic %zu", v.len, v.ptr ? "" : " (none)",
                      len);
    }
    default: return differ(m, "unknown shape %u", (unsigned)n->shape);
    }
}

/* "" when the typed result (or server error) is the generic reading, else where they part. */
static void compare(const rg_rtable *t, rg_status st, const char *out, rg_view err, const char *buf,
                    const gtree *g, char *why, size_t cap) {
    why[0] = '\0';
    if (st == RG_SERVER_ERROR) {
        const leaf e = {.kind = L_ERR, .s = err};
        if (g->v[0].agg != 0 || !same_leaf(&e, &g->v[0].v))
            snprintf(why, cap, "the server error is not the generic reading's");
        return;
    }
    matcher m = {.t = t->nodes, .g = g, .buf = buf, .why = why, .cap = cap};
    match(&m, 0, out, 0);
}

/* ------------------------------------------------------------------------------------------ */
/* Decoding one reply both ways. */

typedef struct work {
    char *store, *out, *out2;
    gtree generic;
    rg_reply_reader rr;
} work;

typedef struct outcome {
    rg_status st;
    char why[320]; /* mismatch message or difference; "" when the reply is fine */
} outcome;

/* Decodes buf[0..len) with t, fed in pieces of at most step bytes (len: whole). */
static rg_status decode(work *w, const rg_rtable *t, const char *buf, size_t len, size_t step,
                        char *out) {
    rg_reply_reader_init(&w->rr, NULL);
    rg_reply_set_storage(&w->rr, w->store, STORE_CAP);
    size_t pos = 0, have = 0;
    memset(out, 0xa5, t->result_size); /* the engine zeroes it: garbage would show */
    for (;;) {
        have = have + step < len ? have + step : len;
        const rg_status st = rg_reply_decode(&w->rr, t, buf, have, &pos, out);
        if (st != RG_NEED_MORE) {
            if (st != RG_SHORT && pos != len) return RG_ERR_PROTOCOL;
            return st;
        }
        if (have == len) return RG_ERR_PROTOCOL;
    }
}

static void check_reply(work *w, const rg_rtable *t, const char *buf, size_t len, outcome *o) {
    o->why[0] = '\0';
    o->st = decode(w, t, buf, len, len, w->out);
    if (o->st == RG_MISMATCH || rg_status_fatal(o->st)) {
        const rg_view err = rg_reply_error(&w->rr).msg;
        snprintf(o->why, sizeof o->why, "%s: %.*s", rg_status_name(o->st), (int)err.len,
                 err.ptr ? err.ptr : "");
        return;
    }
    if (o->st != RG_OK && o->st != RG_SERVER_ERROR) {
        snprintf(o->why, sizeof o->why, "%s", rg_status_name(o->st));
        return;
    }
    const char *bad = generic_tree(buf, len, &w->generic);
    if (bad) {
        snprintf(o->why, sizeof o->why, "generic reading: %s", bad);
        return;
    }
    compare(t, o->st, w->out, rg_reply_error(&w->rr).msg, buf, &w->generic, o->why, sizeof o->why);
    if (o->why[0]) return;
    /* Fed in pieces: the same status and the same values. */
    const size_t step = len <= BYTEWISE_MAX ? 1 : len / 64 + 1;
    const rg_status st2 = decode(w, t, buf, len, step, w->out2);
    if (st2 != o->st) {
        snprintf(o->why, sizeof o->why, "fed in pieces of %zu: %s, whole: %s", step,
                 rg_status_name(st2), rg_status_name(o->st));
        return;
    }
    compare(t, st2, w->out2, rg_reply_error(&w->rr).msg, buf, &w->generic, o->why, sizeof o->why);
}

/* ------------------------------------------------------------------------------------------ */
/* The server: seed data, one connection per form. */

/* Data of every type, a function library and a script, before every form. */
static const char *const SEED[][10] = {
    {"FLUSHALL"},
    {"SET", "str", "hello"},
    {"SET", "num", "10"},
    {"SET", "fl", "1.5"},
    {"SET", "bits", "foobar"},
    {"RPUSH", "list", "a", "b", "c", "a", "d"},
    {"RPUSH", "list2", "x", "y"},
    {"HSET", "hash", "f1", "v1", "f2", "v2"},
    {"HSET", "hash", "n", "5", "fl", "1.5"},
    {"SADD", "set", "a", "b", "c", "d"},
    {"SADD", "set2", "c", "d", "e"},
    {"ZADD", "zset", "1", "a", "2", "b", "3", "c"},
    {"ZADD", "zset", "4.5", "d"},
    {"ZADD", "zset2", "2", "b", "5", "e"},
    {"ZADD", "zlex", "0", "a", "0", "b", "0", "c"},
    {"GEOADD", "geo", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"},
    {"PFADD", "hll", "a", "b", "c"},
    {"PFADD", "hll2", "c", "d"},
    {"XADD", "stream", "1-1", "f", "v"},
    {"XADD", "stream", "2-1", "f", "w", "g", "x"},
    {"XADD", "stream", "3-1", "f", "y"},
    {"XGROUP", "CREATE", "stream", "grp", "0"},
    {"XGROUP", "CREATE", "stream", "idle", "$"},
    {"XREADGROUP", "GROUP", "grp", "alice", "COUNT", "2", "STREAMS", "stream", ">"},
    {"XGROUP", "CREATECONSUMER", "stream", "grp", "bob"},
    {"XADD", "stream2", "1-1", "a", "1"},
    {"FUNCTION", "LOAD", "REPLACE",
     "#!lua name=lib\n"
     "redis.register_function('echo', function(keys, args) return args[1] end)\n"
     "redis.register_function{function_name='one', callback=function(keys, args) return 1 end,"
     " flags={'no-writes'}}"},
    {"SCRIPT", "LOAD", "return 1"},
    {"CONFIG", "SET", "maxmemory-policy", "noeviction"},
};

/* Data for a sample call's keys ("k:<command>"), by the command's group; the sample values
 * ("v", 1, 1.5) name members that exist. NULL: a string. */
typedef struct group_seed {
    const char *group;
    const char *const argv[4][10];
} group_seed;

static const group_seed GROUP_SEEDS[] = {
    {"list", {{"RPUSH", "{k}", "v", "a", "b", "v"}}},
    {"generic", {{"RPUSH", "{k}", "3", "1", "2", "v"}}},
    {"hash", {{"HSET", "{k}", "v", "1", "a", "2"}}},
    {"set", {{"SADD", "{k}", "v", "a", "b"}}},
    {"sorted_set", {{"ZADD", "{k}", "1", "v", "2", "a", "3", "b"}}},
    {"geo", {{"GEOADD", "{k}", "13.361389", "38.115556", "v", "15.087269", "37.502669", "a"}}},
    {"hyperloglog", {{"PFADD", "{k}", "v", "a"}}},
    {"stream",
     {{"XADD", "{k}", "1-1", "v", "v"},
      {"XGROUP", "CREATE", "{k}", "v", "0"},
      {"XREADGROUP", "GROUP", "v", "v", "STREAMS", "{k}", ">"}}},
};

static size_t argv_len(const char *const *argv, size_t max) {
    size_t n = 0;
    while (n < max && argv[n]) n++;
    return n;
}

/* Sends argv (with "{k}" standing for key) and reads the reply; errors are the caller's. */
static int send_argv(test_conn *c, const char *const *argv, size_t argc, rg_view key, char *raw,
                     size_t *len) {
    rg_view v[16];
    for (size_t i = 0; i < argc; i++) {
        v[i] = strcmp(argv[i], "{k}") == 0 ? key : (rg_view){argv[i], strlen(argv[i])};
    }
    static char q[REQ_CAP];
    const size_t n = rg_argv_encode(q, sizeof q, argc, v);
    if (n == 0 || test_conn_send(c, q, n) != 0) return -1;
    return test_conn_reply_raw(c, raw, RAW_CAP, len);
}

static int seed(test_conn *c, char *raw) {
    size_t len;
    for (size_t i = 0; i < sizeof SEED / sizeof SEED[0]; i++) {
        if (send_argv(c, SEED[i], argv_len(SEED[i], 10), (rg_view){0}, raw, &len) != 0 ||
            raw[0] == '-') {
            fprintf(stderr, "seed %s: %.*s\n", SEED[i][0], (int)(len > 200 ? 200 : len), raw);
            return -1;
        }
    }
    return 0;
}

/* Waits (up to 5 s) until the cluster-mode server says its state is ok. */
static int cluster_ok(test_conn *c, char *raw) {
    static const char *const INFO[] = {"CLUSTER", "INFO"};
    for (int i = 0; i < 500; i++) {
        size_t len;
        if (send_argv(c, INFO, 2, (rg_view){0}, raw, &len) != 0) return -1;
        if (memmem(raw, len, "cluster_state:ok", 16)) return 0;
        const struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    fprintf(stderr, "reply_diff: the cluster-mode server's state is not ok\n");
    return -1;
}

/* The cluster-mode server's slots: forms may delete a slot (DELSLOTS 5) or all of them
 * (FLUSHSLOTS); they are given back before the next form (errors: already assigned), and when
 * all were gone the state is ok again before the seed. With cluster-require-full-coverage no, a
 * missing slot only stops keys in it. */
static int cluster_seed(test_conn *c, char *raw) {
    static const char *const ALL[] = {"CLUSTER", "ADDSLOTSRANGE", "0", "16383"};
    static const char *const ONE[][3] = {{"CLUSTER", "ADDSLOTS", "5"},
                                         {"CLUSTER", "ADDSLOTS", "6"}};
    size_t len;
    if (send_argv(c, ALL, 4, (rg_view){0}, raw, &len) != 0) return -1;
    if (raw[0] == '+' && cluster_ok(c, raw) != 0) return -1;
    for (size_t i = 0; i < sizeof ONE / sizeof ONE[0]; i++) {
        if (send_argv(c, ONE[i], 3, (rg_view){0}, raw, &len) != 0) return -1;
    }
    return 0;
}

/* Starts the cluster-mode server with every slot. */
static int start_cluster(test_redis *s, char *raw) {
    static const char *const ARGS[] = {"--cluster-enabled",
                                       "yes",
                                       "--cluster-config-file",
                                       "nodes.conf",
                                       "--cluster-require-full-coverage",
                                       "no",
                                       NULL};
    if (test_redis_start(s, ARGS) != 0) return -1;
    test_conn c;
    if (test_conn_open(&c, s->port) != 0) return -1;
    const int rc = cluster_seed(&c, raw) == 0 && cluster_ok(&c, raw) == 0 ? 0 : -1;
    test_conn_close(&c);
    return rc;
}

/* Starts a Sentinel that monitors the server on port as "mymaster" (quorum 1), with its
 * config file at conf (a mkstemp template, filled in; the caller unlinks it). */
static int start_sentinel(test_redis *s, char *conf, int port) {
    const int fd = mkstemp(conf);
    char text[96];
    const int n = snprintf(text, sizeof text, "sentinel monitor mymaster 127.0.0.1 %d 1\n", port);
    if (fd < 0 || write(fd, text, (size_t)n) != n) {
        if (fd >= 0) close(fd);
        return -1;
    }
    close(fd);
    static const char *const ARGS[] = {"--sentinel", NULL};
    return test_redis_start_conf(s, conf, ARGS);
}

static int seed_keys(test_conn *c, const char *group, const char *req, size_t len, char *raw) {
    rg_view argv[MAX_ARGS];
    size_t pos[MAX_ARGS];
    rg_error st;
    const size_t n = redis_keys_of_request(req, len, argv, MAX_ARGS, pos, MAX_ARGS, &st);
    const group_seed *g = NULL;
    for (size_t i = 0; i < sizeof GROUP_SEEDS / sizeof GROUP_SEEDS[0]; i++) {
        if (strcmp(GROUP_SEEDS[i].group, group) == 0) g = &GROUP_SEEDS[i];
    }
    static const char *const STRING[] = {"SET", "{k}", "10"};
    for (size_t k = 0; st.status == RG_OK && k < n; k++) {
        for (size_t j = 0; j < 4; j++) {
            const char *const *a = g ? g->argv[j] : (j == 0 ? STRING : NULL);
            if (!a || !a[0]) break;
            size_t rl;
            if (send_argv(c, a, g ? argv_len(a, 10) : 3, argv[pos[k]], raw, &rl) != 0) return -1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Forms. */

typedef struct form {
    const char *command; /* the name its reply table is looked up by */
    const rg_rtable *reply;
    const char *group;
    const char *source; /* "minimal", "full" or "reply_forms.txt:<line>" */
    char *req;          /* the encoded requests (owned): setup requests, then the form's */
    size_t len;
    size_t setup; /* replies before the form's own, read and dropped */
    char *line;   /* reply_forms.txt: the words (owned), sent one request at a time */
    char **words;
    int nwords;
    bool seed_keys; /* a sample call: seed its keys by group */
    bool cluster;   /* "@cluster" in reply_forms.txt: runs on the cluster-mode server */
    bool sentinel;  /* "@sentinel": runs on a Sentinel that monitors the first server (no seed) */
} form;

typedef struct command_state {
    const char *name;
    const char *skip; /* the sample calls' reason, or NULL */
    size_t forms, replies, data_replies, expected;
    char first_error[96];
} command_state;

typedef struct run {
    form forms[MAX_FORMS];
    size_t nforms, sample_forms, hand_forms;
    command_state cmds[N_CALLS];
    size_t ncmds;
    size_t replies, fed, failures, expected_hits, pushes;
    bool expected_seen[N_EXPECTED + 1]; /* + 1: never empty */
    work w;
} run;

static command_state *command_of(run *r, const char *name) {
    for (size_t i = 0; i < r->ncmds; i++) {
        if (strcmp(r->cmds[i].name, name) == 0) return &r->cmds[i];
    }
    return NULL;
}

static const redis_sample_call *table_of(const char *name) {
    for (size_t i = 0; i < N_CALLS; i++) {
        if (strcasecmp(redis_sample_calls[i].command, name) == 0) return &redis_sample_calls[i];
    }
    return NULL;
}

static void add_commands(run *r) {
    for (size_t i = 0; i < N_CALLS; i++) {
        const redis_sample_call *c = &redis_sample_calls[i];
        command_state *s = command_of(r, c->command);
        if (!s) {
            s = &r->cmds[r->ncmds++];
            *s = (command_state){.name = c->command};
        }
        if (c->skip) s->skip = c->skip;
    }
}

static int add_samples(run *r) {
    for (size_t i = 0; i < N_CALLS; i++) {
        const redis_sample_call *c = &redis_sample_calls[i];
        if (c->skip) continue;
        form *f = &r->forms[r->nforms++];
        *f = (form){.command = c->command,
                    .reply = c->reply,
                    .group = c->group,
                    .source = c->form,
                    .seed_keys = true};
        f->req = malloc(REQ_CAP);
        if (!f->req || (f->len = c->encode(f->req, REQ_CAP)) == 0) {
            fprintf(stderr, "%s (%s): cannot encode\n", c->command, c->form);
            return -1;
        }
        r->sample_forms++;
    }
    return 0;
}

/* Splits a line of reply_forms.txt into words: blanks separate, "..." quotes (with \n, \" and
 * \\ escapes). Returns the count, or -1 on a bad line. */
static int split(char *line, char **words, size_t max) {
    size_t n = 0;
    char *p = line;
    while (*p) {
        while (*p == ' ' || *p == '\t') p++;
        if (!*p || *p == '\n') break;
        if (n == max) return -1;
        if (*p != '"') {
            words[n++] = p;
            while (*p && *p != ' ' && *p != '\t' && *p != '\n') p++;
            if (*p) *p++ = '\0';
            continue;
        }
        char *w = ++p, *o = p;
        while (*p && *p != '"') {
            if (*p == '\\' && p[1]) {
                p++;
                *o++ = *p == 'n' ? '\n' : *p;
                p++;
            } else {
                *o++ = *p++;
            }
        }
        if (*p != '"') return -1;
        *o = '\0';
        p++;
        words[n++] = w;
    }
    return (int)n;
}

/* The command a request's words name: "CLIENT INFO" when that is a command, else "GET". */
static const redis_sample_call *command_named(char **w, int n) {
    if (n >= 2) {
        char two[128];
        snprintf(two, sizeof two, "%s %s", w[0], w[1]);
        const redis_sample_call *c = table_of(two);
        if (c) return c;
    }
    return table_of(w[0]);
}

/* Encodes the words of a line: requests separated by ";", the last one the form's own (named by
 * c). */
static int encode_line(form *f, char **w, int n) {
    int from = 0;
    for (int i = 0; i <= n; i++) {
        if (i < n && strcmp(w[i], ";") != 0) continue;
        rg_view v[MAX_ARGS];
        for (int j = from; j < i; j++) v[j - from] = (rg_view){w[j], strlen(w[j])};
        const size_t m = rg_argv_encode(f->req + f->len, REQ_CAP - f->len, (size_t)(i - from), v);
        if (m == 0 || i == from) return -1;
        f->len += m;
        if (i < n) f->setup++;
        from = i + 1;
    }
    return 0;
}

static int add_hand_forms(run *r, const char *path) {
    FILE *fp = fopen(path, "r");
    if (!fp) {
        perror(path);
        return -1;
    }
    char line[4096];
    int lineno = 0, rc = 0;
    while (rc == 0 && fgets(line, sizeof line, fp)) {
        lineno++;
        if (line[0] == '#' || line[strspn(line, " \t\r\n")] == '\0') continue;
        char *w[MAX_ARGS + 1];
        int n = split(line, w, MAX_ARGS + 1);
        const bool cluster = n > 0 && strcmp(w[0], "@cluster") == 0;
        const bool sentinel = n > 0 && strcmp(w[0], "@sentinel") == 0;
        if (cluster || sentinel) memmove(w, w + 1, (size_t)--n * sizeof w[0]);
        int last = n;
        while (last > 0 && strcmp(w[last - 1], ";") != 0) last--;
        const redis_sample_call *c = n > last ? command_named(w + last, n - last) : NULL;
        if (!c || r->nforms == MAX_FORMS) {
            fprintf(stderr, "%s:%d: no such command, or a bad line\n", path, lineno);
            rc = -1;
            break;
        }
        form *f = &r->forms[r->nforms++];
        *f = (form){.command = c->command,
                    .reply = c->reply,
                    .group = c->group,
                    .cluster = cluster,
                    .sentinel = sentinel};
        char src[64];
        snprintf(src, sizeof src, "reply_forms.txt:%d", lineno);
        f->source = strdup(src);
        f->req = malloc(REQ_CAP);
        f->line = malloc(sizeof line);
        f->words = malloc(sizeof(char *) * (size_t)(n > 0 ? n : 1));
        if (f->line && f->words) {
            memcpy(f->line, line, sizeof line);
            for (int i = 0; i < n; i++) f->words[i] = f->line + (w[i] - line);
            f->nwords = n;
        }
        if (!f->req || !f->source || !f->line || !f->words || encode_line(f, w, n) != 0) {
            fprintf(stderr, "%s:%d: cannot encode\n", path, lineno);
            rc = -1;
        }
        r->hand_forms++;
    }
    fclose(fp);
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* Running. */

static int expected_index(const form *f, int proto) {
    for (size_t i = 0; EXPECTED_FAILURES[i].command; i++) {
        const expected_failure *e = &EXPECTED_FAILURES[i];
        if (strcmp(e->command, f->command) != 0 || (e->proto && e->proto != proto)) continue;
        if (memmem(f->req, f->len, e->word, strlen(e->word))) return (int)i;
    }
    return -1;
}

static void show_request(const form *f) {
    for (size_t i = 0; i < f->len && i < 300; i++) {
        const unsigned char ch = (unsigned char)f->req[i];
        if (ch == '\r' || ch == '\n') {
            if (ch == '\n') putchar(' ');
        } else {
            putchar(ch < 32 || ch > 126 ? '.' : ch);
        }
    }
}

static void note_reply(run *r, command_state *s, const char *raw, bool decoded) {
    s->replies++;
    r->replies++;
    r->fed += decoded ? 2 : 0;
    if (raw[0] != '-' && raw[0] != '!') {
        s->data_replies++;
    } else if (!s->first_error[0]) {
        const size_t n = strcspn(raw + 1, "\r\n");
        snprintf(s->first_error, sizeof s->first_error, "%.*s", (int)(n > 60 ? 60 : n), raw + 1);
    }
}

/* The payload of a bulk reply, or an empty view. */
static rg_view bulk_of(const char *raw, size_t len) {
    if (len < 4 || raw[0] != '$' || raw[1] == '-') return (rg_view){"", 0};
    const char *p = memchr(raw, '\n', len);
    const size_t n = (size_t)strtoull(raw + 1, NULL, 10);
    return p && (size_t)(p + 1 - raw) + n <= len ? (rg_view){p + 1, n} : (rg_view){"", 0};
}

/* Sends a hand form's requests one at a time, each after the reply of the one before, with
 * {prev} standing for the previous reply's bulk payload (DUMP ; RESTORE k 0 {prev}) and {port}
 * for the other server's port (MIGRATE: a server cannot migrate to itself; a Sentinel's
 * master); the last reply is
 * left in raw. */
static int send_words(test_conn *c, const form *f, int other, char *raw, size_t *len) {
    static char prev[1 << 16], q[REQ_CAP];
    char port_text[16];
    snprintf(port_text, sizeof port_text, "%d", other);
    size_t prev_len = 0;
    int from = 0;
    for (int i = 0; i <= f->nwords; i++) {
        if (i < f->nwords && strcmp(f->words[i], ";") != 0) continue;
        rg_view v[MAX_ARGS];
        for (int j = from; j < i; j++) {
            const char *w = f->words[j];
            v[j - from] = strcmp(w, "{prev}") == 0   ? (rg_view){prev, prev_len}
                          : strcmp(w, "{port}") == 0 ? (rg_view){port_text, strlen(port_text)}
                                                     : (rg_view){w, strlen(w)};
        }
        const size_t m = rg_argv_encode(q, sizeof q, (size_t)(i - from), v);
        if (m == 0 || test_conn_send(c, q, m) != 0 ||
            test_conn_reply_raw(c, raw, RAW_CAP, len) != 0) {
            return -1;
        }
        const rg_view b = bulk_of(raw, *len);
        prev_len = b.len < sizeof prev ? b.len : 0;
        memcpy(prev, b.ptr, prev_len);
        from = i + 1;
    }
    return 0;
}

static int run_form(run *r, const form *f, int port, int other, int proto, char *raw) {
    test_conn c;
    if (test_conn_open(&c, port) != 0) return -1;
    size_t len = 0;
    char hello[2] = {(char)('0' + proto), 0};
    const char *h[] = {"HELLO", hello};
    if ((f->cluster && cluster_seed(&c, raw) != 0) || (!f->sentinel && seed(&c, raw) != 0)) {
        test_conn_close(&c);
        return -1;
    }
    int rc = send_argv(&c, h, 2, (rg_view){0}, raw, &len);
    if (rc == 0 && f->seed_keys) rc = seed_keys(&c, f->group, f->req, f->len, raw);
    if (rc == 0 && f->words) {
        rc = send_words(&c, f, other, raw, &len);
    } else if (rc == 0) {
        rc = test_conn_send(&c, f->req, f->len);
        if (rc == 0) rc = test_conn_reply_raw(&c, raw, RAW_CAP, &len);
    }
    test_conn_close(&c);
    command_state *s = command_of(r, f->command);
    if (rc != 0 || !s) {
        printf("NO REPLY %s (%s, RESP%d): ", f->command, f->source, proto);
        show_request(f);
        putchar('\n');
        r->failures++;
        return 0;
    }
    if (raw[0] == '>') {
        /* SUBSCRIBE and friends over RESP3: the confirmation is a push, which a typed reply
         * decoder never takes as the reply (issue 11); the push decoders read it. */
        r->pushes++;
        note_reply(r, s, raw, false);
        return 0;
    }
    outcome o;
    check_reply(&r->w, f->reply, raw, len, &o);
    note_reply(r, s, raw, true);
    const int x = expected_index(f, proto);
    if (o.why[0] && x >= 0) {
        r->expected_seen[x] = true;
        r->expected_hits++;
        s->expected++;
        return 0;
    }
    if (!o.why[0]) return 0; /* an entry none of whose forms fails is reported at the end */
    r->failures++;
    printf("FAILED %s (%s, RESP%d): ", f->command, f->source, proto);
    show_request(f);
    printf("\n    %s\n    reply: %.*s\n", o.why, (int)(len > 300 ? 300 : len), raw);
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* The section of docs/reply-coverage.md this test owns. */

#define BEGIN_MARK "<!-- reply_diff: begin -->\n"
#define END_MARK   "<!-- reply_diff: end -->\n"

static char *section(const run *r, const char *version) {
    size_t cap = 1 << 16, n = 0;
    char *s = malloc(cap);
    if (!s) return NULL;
#define OUT(...) n += (size_t)snprintf(s + n, n < cap ? cap - n : 0, __VA_ARGS__)
    size_t checked = 0, with_data = 0, skipped = 0;
    for (size_t i = 0; i < r->ncmds; i++) {
        checked += r->cmds[i].replies > 0;
        with_data += r->cmds[i].data_replies > 0;
        skipped += r->cmds[i].replies == 0;
    }
    OUT("## Against redis-server %s\n\n", version);
    OUT("Written and checked by `tests/reply/reply_diff.c` (`ctest -R reply_diff`; "
        "`scripts/reply-coverage.sh` rewrites it).\n\n");
    OUT("- commands checked: %zu of %zu (%zu with a reply that is not an error)\n", checked,
        r->ncmds, with_data);
    OUT("- forms: %zu (%zu sample calls, %zu from tests/reply/reply_forms.txt), each under "
        "HELLO 2 and HELLO 3\n",
        r->nforms, r->sample_forms, r->hand_forms);
    OUT("- replies: %zu, each decoded whole and in pieces (%zu decodes), compared with rg_next\n",
        r->replies, r->fed);
    OUT("- of them RESP3 pushes (SUBSCRIBE and friends confirm with a push, never taken as a "
        "reply; its RESP2 array is decoded): %zu\n",
        r->pushes);
    OUT("- expected failures (engine defects of issue 11, fixed apart): %zu replies\n\n",
        r->expected_hits);
    OUT("Not run against the server:\n\n| command | why |\n|---|---|\n");
    for (size_t i = 0; i < r->ncmds; i++) {
        if (r->cmds[i].replies == 0)
            OUT("| %s | %s |\n", r->cmds[i].name, r->cmds[i].skip ? r->cmds[i].skip : "no form");
    }
    OUT("\nRun, but answered only with errors (the error shape is checked, the data shape is "
        "not):\n\n| command | first error |\n|---|---|\n");
    for (size_t i = 0; i < r->ncmds; i++) {
        const command_state *c = &r->cmds[i];
        if (c->replies > 0 && c->data_replies == 0) OUT("| %s | %s |\n", c->name, c->first_error);
    }
    (void)skipped;
#undef OUT
    if (n >= cap) {
        free(s);
        return NULL;
    }
    return s;
}

static char *read_all(const char *path) {
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    fseek(fp, 0, SEEK_END);
    const long size = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *text = size >= 0 ? malloc((size_t)size + 1) : NULL;
    if (text && fread(text, 1, (size_t)size, fp) != (size_t)size) {
        free(text);
        text = NULL;
    }
    if (text) text[size] = '\0';
    fclose(fp);
    return text;
}

/* Compares (or, with RG_REPLY_DIFF_WRITE set, rewrites) the doc's section. */
static int check_doc(const char *path, const char *want) {
    char *doc = read_all(path);
    char *b = doc ? strstr(doc, BEGIN_MARK) : NULL;
    char *e = b ? strstr(b, END_MARK) : NULL;
    if (!e) {
        fprintf(stderr, "%s: no section between %s and %s", path, BEGIN_MARK, END_MARK);
        free(doc);
        return -1;
    }
    b += strlen(BEGIN_MARK);
    const size_t have = (size_t)(e - b);
    int rc = 0;
    if (getenv("RG_REPLY_DIFF_WRITE")) {
        FILE *fp = fopen(path, "wb");
        rc = fp && fwrite(doc, 1, (size_t)(b - doc), fp) == (size_t)(b - doc) &&
                     fputs(want, fp) >= 0 && fputs(e, fp) >= 0
                 ? 0
                 : -1;
        if (fp) fclose(fp);
        printf("reply_diff: wrote the section of %s\n", path);
    } else if (have != strlen(want) || memcmp(b, want, have) != 0) {
        printf("reply_diff: %s is stale (scripts/reply-coverage.sh rewrites it); it should "
               "read:\n%s",
               path, want);
        rc = -1;
    }
    free(doc);
    return rc;
}

/* ------------------------------------------------------------------------------------------ */

static int server_version(int port, char *version, size_t cap) {
    test_conn conn;
    if (test_conn_open(&conn, port) != 0) return -1;
    static char info[1 << 14];
    const char *argv[] = {"INFO", "server"};
    const int rc = test_conn_command(&conn, info, sizeof info, 2, argv);
    test_conn_close(&conn);
    const char *v = rc == 0 ? strstr(info, "redis_version:") : NULL;
    if (!v) return -1;
    v += strlen("redis_version:");
    snprintf(version, cap, "%.*s", (int)strcspn(v, "\r\n"), v);
    return 0;
}

static int check_expected(const run *r) {
    int rc = 0;
    for (size_t i = 0; EXPECTED_FAILURES[i].command; i++) {
        if (r->expected_seen[i]) continue;
        printf("EXPECTED FAILURE NOT SEEN: %s %s (RESP%d, 0: both): remove it from "
               "EXPECTED_FAILURES\n",
               EXPECTED_FAILURES[i].command, EXPECTED_FAILURES[i].word, EXPECTED_FAILURES[i].proto);
        rc = -1;
    }
    return rc;
}

/* The three servers the forms run on, and the files they need. */
typedef struct servers {
    test_redis server, cluster, sentinel;
    char acl[32];           /* the server's ACL file, so that ACL LOAD and ACL SAVE run */
    char sentinel_conf[40]; /* the Sentinel's config file */
} servers;

static void stop_servers(servers *s) {
    test_redis_stop(&s->server);
    test_redis_stop(&s->cluster);
    test_redis_stop(&s->sentinel);
    unlink(s->sentinel_conf);
    unlink(s->acl); /* after the server: ACL SAVE writes it again */
}

static int start_servers(servers *s, char *raw) {
    *s = (servers){.acl = "/tmp/reply_diff_acl_XXXXXX",
                   .sentinel_conf = "/tmp/reply_diff_sentinel_XXXXXX"};
    const int fd = mkstemp(s->acl);
    static const char USERS[] = "user default on nopass ~* &* +@all\n";
    const bool written = fd >= 0 && write(fd, USERS, sizeof USERS - 1) == sizeof USERS - 1;
    if (fd >= 0) close(fd);
    const char *const args[] = {"--aclfile", s->acl, NULL};
    if (!written || test_redis_start(&s->server, args) != 0 ||
        start_cluster(&s->cluster, raw) != 0 ||
        start_sentinel(&s->sentinel, s->sentinel_conf, s->server.port) != 0) {
        stop_servers(s);
        return -1;
    }
    return 0;
}

/* Every form under HELLO 2 and HELLO 3, on its server; {port} is another one. */
static int run_all(run *r, const servers *s, char *raw) {
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < r->nforms; i++) {
        const form *f = &r->forms[i];
        const int port = f->cluster    ? s->cluster.port
                         : f->sentinel ? s->sentinel.port
                                       : s->server.port;
        const int other = f->cluster || f->sentinel ? s->server.port : s->cluster.port;
        for (int proto = 2; rc == 0 && proto <= 3; proto++)
            rc = run_form(r, f, port, other, proto, raw);
    }
    return rc;
}

static void free_run(run *r) {
    for (size_t i = 0; i < r->nforms; i++) {
        free(r->forms[i].req);
        free(r->forms[i].line);
        free(r->forms[i].words);
        if (!r->forms[i].seed_keys) free((char *)r->forms[i].source);
    }
    free(r->w.store);
    free(r->w.out);
    free(r->w.out2);
    free(r->w.generic.v);
}

int main(void) {
    static run r;
    r.w.store = malloc(STORE_CAP);
    r.w.out = malloc(1 << 16);
    r.w.out2 = malloc(1 << 16);
    r.w.generic.v = malloc(MAX_NODES * sizeof(gnode));
    char *raw = malloc(RAW_CAP);
    servers s;
    int rc = raw && r.w.store && r.w.out && r.w.out2 && r.w.generic.v ? 0 : -1;
    if (rc == 0) add_commands(&r);
    if (rc == 0 && (add_samples(&r) != 0 || add_hand_forms(&r, RG_REPLY_FORMS) != 0)) rc = -1;
    if (rc == 0 && start_servers(&s, raw) != 0) rc = -1;
    char version[32] = "";
    if (rc == 0) {
        if (server_version(s.server.port, version, sizeof version) != 0 ||
            strcmp(version, REDIS_SAMPLE_CALLS_VERSION) != 0) {
            fprintf(stderr, "reply_diff: the server is %s, the calls are for %s\n", version,
                    REDIS_SAMPLE_CALLS_VERSION);
            rc = -1;
        }
        if (rc == 0) rc = run_all(&r, &s, raw);
        stop_servers(&s);
    }
    char *doc = rc == 0 ? section(&r, version) : NULL;
    printf("reply_diff: %zu forms, %zu replies, %zu failures, %zu expected failures\n", r.nforms,
           r.replies, r.failures, r.expected_hits);
    if (rc == 0 && (r.failures > 0 || check_expected(&r) != 0)) rc = -1;
    if (rc == 0 && (!doc || check_doc(RG_REPLY_COVERAGE_DOC, doc) != 0)) rc = -1;
    free(doc);
    free(raw);
    free_run(&r);
    return rc == 0 ? 0 : 1;
}
