/* respgen runtime: the interpreter of generated op tables (rg_op, rg_enc.h).
 *
 * Why a table: the general path (any options) of a command with a fixed-shape path is rare at run
 * time but was the bulk of what the compiler had to compile in a generated file: per command, a
 * measure and a put function and the same for each of its types, all inlined into one
 * _pipe_write_opts. As a static const table, the general path is data (offsetof and constants),
 * and this one function, compiled once in the runtime, measures and writes every such request.
 * One walk per command called twice (measure, then write) through out-of-line calls was tried and
 * dropped first: it was still code, and compiled as slowly.
 *
 * The rules are those of the generated code, op for op: measuring uses the rg_meas_* functions
 * (so the same refusals), a CHECK with RG_OP_STOP ends the measuring of its table (as generated
 * code returns from the function) and writing skips checks. Tables are trusted: the generator
 * emits them from the model, with offsets from offsetof; nothing here validates them. */
#include "rg_enc.h"

/* Where the ops of one table find their data: the bases of rg_op_base, and the element index of
 * the enclosing EACH (a table has at most one loop level: lists of lists are a type's own). */
typedef struct frame {
    const char *base[3];
    size_t i;
} frame;

/* The address of op o's value. With RG_OP_ELEM the member is a list pointer (of any element
 * type: read through memcpy as a char pointer, which has the representation of every object
 * pointer the generated structs hold). */
static const char *value_at(const frame *f, const rg_op *o) {
    const char *at = f->base[o->base] + o->off;
    if (!(o->flags & RG_OP_ELEM)) return at;
    const char *list;
    memcpy(&list, at, sizeof list);
    return list + f->i * o->aux;
}

static rg_view view_at(const frame *f, const rg_op *o) {
    rg_view v;
    memcpy(&v, value_at(f, o), sizeof v);
    return v;
}

static int64_t i64_at(const frame *f, const rg_op *o) {
    int64_t v;
    memcpy(&v, value_at(f, o), sizeof v);
    return v;
}

static double double_at(const frame *f, const rg_op *o) {
    double v;
    memcpy(&v, value_at(f, o), sizeof v);
    return v;
}

static size_t size_at(const frame *f, const rg_op *o, size_t off) {
    size_t v;
    memcpy(&v, f->base[o->base] + off, sizeof v);
    return v;
}

static const void *pointer_at(const frame *f, const rg_op *o) {
    const char *v;
    memcpy(&v, f->base[o->base] + o->off, sizeof v);
    return v;
}

/* An enum, oneof kind or bool of o->size bytes, as an unsigned number: 0 stays 0 (none, false),
 * and a negative enum value becomes one above every label, so it is out of range as the
 * generated (size_t) conversion makes it. */
static uint64_t enum_at(const frame *f, const rg_op *o) {
    const char *at = value_at(f, o);
    switch (o->size) {
    case 1: {
        uint8_t v;
        memcpy(&v, at, 1);
        return v;
    }
    case 2: {
        uint16_t v;
        memcpy(&v, at, 2);
        return v;
    }
    case 4: {
        uint32_t v;
        memcpy(&v, at, 4);
        return v;
    }
    default: {
        uint64_t v;
        memcpy(&v, at, 8);
        return v;
    }
    }
}

/* The count a NUM op sends: 0 for a list in options that are not given. */
static int64_t count_of(const frame *f, const rg_op *o) {
    if (!f->base[o->base]) return 0;
    return (int64_t)size_at(f, o, o->off); /* no list of 2^63 elements fits in memory */
}

/* The bulk of a CHOICE, {NULL, 0} when its value is outside the enum (measuring refuses it). */
static rg_view choice_of(const frame *f, const rg_op *o) {
    const uint64_t v = enum_at(f, o);
    const rg_view *bulks = o->ptr;
    return v < o->n ? bulks[v] : (rg_view){NULL, 0};
}

static inline bool holds(const frame *f, const rg_op *o) {
    switch ((rg_op_test)o->test) {
    case RG_TEST_OPTS: return f->base[RG_OP_OPTS] != NULL;
    case RG_TEST_VIEW: {
        const rg_view v = view_at(f, o);
        return v.ptr || v.len;
    }
    case RG_TEST_NONZERO: return enum_at(f, o) != 0;
    case RG_TEST_NONEMPTY: return size_at(f, o, o->off) > 0;
    case RG_TEST_EMPTY: return size_at(f, o, o->off) == 0;
    case RG_TEST_NULL: return !pointer_at(f, o);
    case RG_TEST_NULL_LIST: return !pointer_at(f, o) && size_at(f, o, o->aux) != 0;
    }
    return false;
}

/* The frame of a type's table: the value the op finds is its base. */
static frame value_frame(const frame *f, const rg_op *o) {
    return (frame){{NULL, NULL, value_at(f, o)}, 0};
}

/* The CASE of a SWITCH matching the value's kind; NULL when none does. */
static const rg_op *case_of(const frame *f, const rg_op *sw) {
    const uint64_t kind = enum_at(f, sw);
    for (const rg_op *c = sw + 1; c < sw + 1 + sw->n; c += 1 + c->n) {
        if (c->aux == kind) return c;
    }
    return NULL;
}

/* Both walks are flat: an IF that holds goes on into its body, one that does not skips it; a
 * SWITCH goes to its case's body, and the next CASE reached ends the case (it jumps off ops to the
 * switch's end). Only EACH and TABLE recurse (a loop, another table). A flat walk with one switch
 * per op: recursing for every body cost E5 (SET k v EX 100) 3.7x the instructions of generated
 * code instead of about 2x. */

/* What measuring met, piece by piece, so that writing needs no second walk of the table (its
 * tests, dispatch and recursion were half of a request's instructions: E5, SET k v EX 100, 1,063
 * -> 870). A request of more pieces (long lists) is written by walking the table
 * again. */
enum { TAPE_MAX = 24 };

typedef enum piece_kind { PIECE_RAW, PIECE_BULK, PIECE_INT, PIECE_DOUBLE } piece_kind;

typedef struct piece {
    piece_kind kind;
    union {
        rg_view v; /* RAW: constant bytes; BULK: a caller's string */
        int64_t i;
        double d;
    } as;
} piece;

typedef struct tape {
    size_t n; /* pieces met; above TAPE_MAX the tape is not used */
    piece p[TAPE_MAX];
} tape;

static piece *next_piece(tape *t, piece_kind kind) {
    piece *const p = t->n < TAPE_MAX ? &t->p[t->n] : NULL;
    t->n++;
    if (p) p->kind = kind;
    return p;
}

static void tape_view(tape *t, piece_kind kind, rg_view v) {
    piece *const p = next_piece(t, kind);
    if (p) p->as.v = v;
}

static void tape_i64(tape *t, int64_t v) {
    piece *const p = next_piece(t, PIECE_INT);
    if (p) p->as.i = v;
}

static void tape_double(tape *t, double v) {
    piece *const p = next_piece(t, PIECE_DOUBLE);
    if (p) p->as.d = v;
}

/* Writes the tape's pieces at dst; returns the end. */
static char *play(char *dst, const tape *t) {
    for (size_t k = 0; k < t->n; k++) {
        const piece *p = &t->p[k];
        switch (p->kind) {
        case PIECE_RAW: dst = rg_put_bytes(dst, p->as.v.ptr, p->as.v.len); break;
        case PIECE_BULK: dst = rg_put_bulk(dst, p->as.v.ptr, p->as.v.len); break;
        case PIECE_INT: dst = rg_put_bulk_i64(dst, p->as.i); break;
        case PIECE_DOUBLE: dst = rg_put_bulk_double(dst, p->as.d); break;
        }
    }
    return dst;
}

/* Measures ops [o, end), recording the pieces on t; false when measuring stopped (a CHECK with
 * RG_OP_STOP held). */
static bool measure(rg_meas *m, tape *tp, const rg_op *o, const rg_op *end, const frame *f) {
    while (o < end) {
        switch ((rg_op_code)o->code) {
        case RG_OP_LITERAL:
            rg_meas_lit(m, o->aux, o->n);
            tape_view(tp, PIECE_RAW, (rg_view){o->ptr, o->n});
            break;
        case RG_OP_BULK: {
            const rg_view v = view_at(f, o);
            rg_meas_view_max(m, v, o->n);
            tape_view(tp, PIECE_BULK, v);
            break;
        }
        case RG_OP_INT:
        case RG_OP_NUM: {
            const int64_t v = o->code == RG_OP_INT ? i64_at(f, o) : count_of(f, o);
            rg_meas_i64(m, v);
            tape_i64(tp, v);
            break;
        }
        case RG_OP_DOUBLE: {
            const double v = double_at(f, o);
            rg_meas_double(m, v);
            tape_double(tp, v);
            break;
        }
        case RG_OP_CHOICE: {
            const rg_view b = choice_of(f, o);
            rg_meas_bulk(m, b);
            tape_view(tp, PIECE_RAW, b);
            break;
        }
        case RG_OP_TABLE: {
            const rg_op *t = o->ptr;
            const frame g = value_frame(f, o);
            measure(m, tp, t + 1, t + 1 + t->n, &g); /* a stop ends the type's measuring only */
            break;
        }
        case RG_OP_IF:
            if (!holds(f, o)) o += o->n;
            break;
        case RG_OP_CHECK:
            if (!holds(f, o)) break;
            m->bad = true;
            if (o->flags & RG_OP_STOP) return false;
            break;
        case RG_OP_EACH: {
            frame g = *f;
            const size_t count = size_at(f, o, o->off);
            for (g.i = 0; g.i < count; g.i++) {
                if (!measure(m, tp, o + 1, o + 1 + o->n, &g)) return false;
            }
            o += o->n;
            break;
        }
        case RG_OP_SWITCH: {
            const rg_op *c = case_of(f, o);
            if (c) {
                o = c;
            } else {
                m->bad = true;
                o += o->n;
            }
            break;
        }
        case RG_OP_CASE: o += o->off - 1; break; /* the end of the case before it */
        case RG_OP_END_:
        case RG_OP_HEAD: break;
        }
        o++;
    }
    return true;
}

/* Writes ops [o, end) at dst (measuring accepted the request: every value is valid); returns the
 * end. */
static char *put(char *dst, const rg_op *o, const rg_op *end, const frame *f) {
    while (o < end) {
        switch ((rg_op_code)o->code) {
        case RG_OP_LITERAL: dst = rg_put_bytes(dst, o->ptr, o->n); break; /* short: no call */
        case RG_OP_BULK: {
            const rg_view v = view_at(f, o);
            dst = rg_put_bulk(dst, v.ptr, v.len);
            break;
        }
        case RG_OP_INT: dst = rg_put_bulk_i64(dst, i64_at(f, o)); break;
        case RG_OP_NUM: dst = rg_put_bulk_i64(dst, count_of(f, o)); break;
        case RG_OP_DOUBLE: dst = rg_put_bulk_double(dst, double_at(f, o)); break;
        case RG_OP_CHOICE: dst = rg_put_bulk_lit(dst, choice_of(f, o)); break;
        case RG_OP_TABLE: {
            const rg_op *t = o->ptr;
            const frame g = value_frame(f, o);
            dst = put(dst, t + 1, t + 1 + t->n, &g);
            break;
        }
        case RG_OP_IF:
            if (!holds(f, o)) o += o->n;
            break;
        case RG_OP_EACH: {
            frame g = *f;
            const size_t count = size_at(f, o, o->off);
            for (g.i = 0; g.i < count; g.i++) dst = put(dst, o + 1, o + 1 + o->n, &g);
            o += o->n;
            break;
        }
        case RG_OP_SWITCH: {
            const rg_op *c = case_of(f, o);
            o = c ? c : o + o->n;
            break;
        }
        case RG_OP_CASE: o += o->off - 1; break;
        case RG_OP_END_:
        case RG_OP_HEAD:
        case RG_OP_CHECK: break;
        }
        o++;
    }
    return dst;
}

size_t rg_ops_pipe_write(rg_pipe *p, const rg_op *ops, const void *req, const void *opts) {
    const frame f = {{req, opts, NULL}, 0};
    const rg_op *end = ops + 1 + ops->n;
    rg_meas m;
    tape t;
    t.n = 0;
    rg_meas_start(&m, 0, 0);           /* the constant words are literals of the table too */
    measure(&m, &t, ops + 1, end, &f); /* stopped: m.bad is set */
    const bool array = (ops->flags & RG_OP_ARRAY) != 0;
    const size_t n = array ? rg_meas_total_array(&m) : rg_meas_total(&m);
    if (n == 0 || !rg_pipe_fits(p, n)) return n;
    char *dst = rg_pipe_end(p);
    if (array) dst = rg_put_array_header(dst, m.argc);
    if (t.n <= TAPE_MAX) {
        play(dst, &t);
    } else {
        put(dst, ops + 1, end, &f);
    }
    return n;
}

/* ---- option words (rg_ops_words) ---------------------------------------------------------------
 * One walk of the options' ops that writes as it goes, into a buffer of RG_WORDS_MAX bytes: each
 * piece checks its room first (its longest form), and anything measuring would refuse ends the
 * walk with false, for the general path to refuse. */

/* The longest bulks of an integer ("$20\r\n" + 20 digits + "\r\n") and of a double. */
enum { WORDS_I64_MAX = 5 + RG_I64_MAX_LEN + 2, WORDS_DOUBLE_MAX = 5 + RG_DOUBLE_MAX_LEN + 2 };

typedef struct words_at {
    char *dst;
    char *lim;
    size_t argc;
} words_at;

/* The walk keeps where it writes in locals (dst, argc), in w only across a recursion. */
static bool words(words_at *w, const rg_op *o, const rg_op *end, const frame *f) {
    char *dst = w->dst;
    char *const lim = w->lim;
    size_t argc = w->argc;
#define ROOM(n) ((size_t)(lim - dst) >= (n))
    while (o < end) {
        switch ((rg_op_code)o->code) {
        case RG_OP_LITERAL:
            if (!ROOM(o->n)) return false;
            dst = rg_put_bytes(dst, o->ptr, o->n);
            argc += o->aux;
            break;
        case RG_OP_BULK: {
            const rg_view v = view_at(f, o);
            if ((!v.ptr && v.len) || v.len > o->n || v.len > RG_WORDS_MAX) return false;
            if (!ROOM(rg_bulk_size(v.len))) return false;
            dst = rg_put_bulk(dst, v.ptr, v.len);
            argc++;
            break;
        }
        case RG_OP_INT:
        case RG_OP_NUM:
            if (!ROOM(WORDS_I64_MAX)) return false;
            dst = rg_put_bulk_i64_short(dst, o->code == RG_OP_INT ? i64_at(f, o) : count_of(f, o));
            argc++;
            break;
        case RG_OP_DOUBLE: {
            const double v = double_at(f, o);
            if (v != v || !ROOM(WORDS_DOUBLE_MAX)) return false;
            dst = rg_put_bulk_double(dst, v);
            argc++;
            break;
        }
        case RG_OP_CHOICE: {
            const rg_view b = choice_of(f, o);
            if (!b.ptr || !ROOM(b.len)) return false;
            dst = rg_put_bytes(dst, b.ptr, b.len);
            argc++;
            break;
        }
        case RG_OP_TABLE: {
            const rg_op *t = o->ptr;
            const frame g = value_frame(f, o);
            *w = (words_at){dst, lim, argc};
            if (!words(w, t + 1, t + 1 + t->n, &g)) return false;
            dst = w->dst;
            argc = w->argc;
            break;
        }
        case RG_OP_IF:
            if (!holds(f, o)) o += o->n;
            break;
        case RG_OP_CHECK:
            if (holds(f, o)) return false;
            break;
        case RG_OP_EACH: {
            frame g = *f;
            const size_t count = size_at(f, o, o->off);
            *w = (words_at){dst, lim, argc};
            for (g.i = 0; g.i < count; g.i++) {
                if (!words(w, o + 1, o + 1 + o->n, &g)) return false;
            }
            dst = w->dst;
            argc = w->argc;
            o += o->n;
            break;
        }
        case RG_OP_SWITCH: {
            const rg_op *c = case_of(f, o);
            if (!c) return false;
            o = c;
            break;
        }
        case RG_OP_CASE: o += o->off - 1; break;
        case RG_OP_END_:
        case RG_OP_HEAD: break;
        }
        o++;
    }
#undef ROOM
    *w = (words_at){dst, lim, argc};
    return true;
}

bool rg_ops_words(rg_words *w, const rg_op *ops, const void *opts) {
    const frame f = {{NULL, opts, NULL}, 0};
    words_at at = {w->bytes, w->bytes + RG_WORDS_MAX, 0};
    if (!opts) { /* the fixed-shape path passed the request on: no options, no words */
        w->len = w->argc = 0;
        return true;
    }
    if (!words(&at, ops + 1, ops + 1 + ops->n, &f)) return false;
    w->len = (size_t)(at.dst - w->bytes);
    w->argc = at.argc;
    return true;
}
