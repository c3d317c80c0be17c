/* Event log, event-stream checker and piecewise driver for the decoder tests; see declog.h. */
#define _DEFAULT_SOURCE /* mmap, MAP_ANONYMOUS */
#include "declog.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

volatile int dl_decoder_active;
volatile unsigned long dl_decoder_allocs;

/* ---- strings ---- */

static void dl_str_reserve(dl_str *s, size_t extra) {
    if (s->len + extra + 1 <= s->cap) return;
    size_t cap = s->cap ? s->cap : 256;
    while (cap < s->len + extra + 1) cap *= 2;
    char *p = realloc(s->p, cap);
    if (!p) {
        fputs("declog: out of memory\n", stderr);
        abort();
    }
    s->p = p;
    s->cap = cap;
}

void dl_str_add(dl_str *s, const char *p, size_t n) {
    dl_str_reserve(s, n);
    if (n) memcpy(s->p + s->len, p, n);
    s->len += n;
    s->p[s->len] = '\0';
}

void dl_str_addf(dl_str *s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) abort();
    dl_str_reserve(s, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(s->p + s->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    s->len += (size_t)n;
}

void dl_str_quote(dl_str *s, const char *p, size_t n) {
    dl_str_reserve(s, n * 4 + 2);
    s->p[s->len++] = '"';
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        char *o = s->p + s->len;
        switch (c) {
        case '\r': memcpy(o, "\\r", 2), s->len += 2; break;
        case '\n': memcpy(o, "\\n", 2), s->len += 2; break;
        case '\t': memcpy(o, "\\t", 2), s->len += 2; break;
        case '"': memcpy(o, "\\\"", 2), s->len += 2; break;
        case '\\': memcpy(o, "\\\\", 2), s->len += 2; break;
        default:
            if (c >= 0x20 && c < 0x7f) {
                *o = (char)c;
                s->len++;
            } else {
                static const char hex[] = "0123456789abcdef";
                o[0] = '\\', o[1] = 'x', o[2] = hex[c >> 4], o[3] = hex[c & 15];
                s->len += 4;
            }
        }
    }
    s->p[s->len++] = '"';
    s->p[s->len] = '\0';
}

void dl_str_clear(dl_str *s) {
    s->len = 0;
    if (s->p) s->p[0] = '\0';
}

void dl_str_free(dl_str *s) {
    free(s->p);
    s->p = NULL;
    s->len = s->cap = 0;
}

/* ---- names ---- */

const char *dl_kind_name(unsigned k) {
    static const char *const names[RG_EV_KIND_COUNT] = {
        [RG_EV_NONE] = "none",
        [RG_EV_SIMPLE] = "simple",
        [RG_EV_ERROR] = "error",
        [RG_EV_INT] = "int",
        [RG_EV_BULK] = "bulk",
        [RG_EV_NULL] = "null",
        [RG_EV_BOOL] = "bool",
        [RG_EV_DOUBLE] = "double",
        [RG_EV_BIGNUM] = "bignum",
        [RG_EV_BLOBERR] = "bloberr",
        [RG_EV_VERBATIM] = "verbatim",
        [RG_EV_ARRAY] = "array",
        [RG_EV_MAP] = "map",
        [RG_EV_SET] = "set",
        [RG_EV_PUSH] = "push",
        [RG_EV_ATTR] = "attr",
        [RG_EV_END] = "end",
        [RG_EV_STR_BEGIN] = "str_begin",
        [RG_EV_STR_CHUNK] = "str_chunk",
        [RG_EV_STR_END] = "str_end",
    };
    return k < RG_EV_KIND_COUNT ? names[k] : "kind?";
}

const char *dl_status_name(unsigned s) {
    /* Written out, not from RG_STATUSES: test_dec_api checks the generated names against it. */
    static const char *const names[RG_STATUS_COUNT] = {
        [RG_OK] = "RG_OK",
        [RG_NEED_MORE] = "RG_NEED_MORE",
        [RG_PAUSED] = "RG_PAUSED",
        [RG_PUSH] = "RG_PUSH",
        [RG_NOT_PUSH] = "RG_NOT_PUSH",
        [RG_SHORT] = "RG_SHORT",
        [RG_SERVER_ERROR] = "RG_SERVER_ERROR",
        [RG_MISMATCH] = "RG_MISMATCH",
        [RG_LOST] = "RG_LOST",
        [RG_INCOMPLETE] = "RG_INCOMPLETE",
        [RG_INVALID] = "RG_INVALID",
        [RG_ABORTED] = "RG_ABORTED",
        [RG_ABANDONED] = "RG_ABANDONED",
        [RG_TIMEOUT] = "RG_TIMEOUT",
        [RG_CLOSED] = "RG_CLOSED",
        [RG_REFUSED] = "RG_REFUSED",
        [RG_IO] = "RG_IO",
        [RG_FULL] = "RG_FULL",
        [RG_REDIRECT] = "RG_REDIRECT",
        [RG_ERR_PROTOCOL] = "RG_ERR_PROTOCOL",
        [RG_ERR_LIMIT] = "RG_ERR_LIMIT",
        [RG_ERR_DEPTH] = "RG_ERR_DEPTH",
    };
    return s < RG_STATUS_COUNT ? names[s] : "RG_STATUS?";
}

void dl_str_double(dl_str *s, double d) {
    if (isnan(d)) {
        dl_str_add(s, "nan", 3);
    } else if (isinf(d)) {
        dl_str_addf(s, "%s", d > 0 ? "inf" : "-inf");
    } else {
        /* The shortest text that reads back as d, so vectors can say 0.1 and 100 rather than
         * 0.10000000000000001 and 1e+02: the shortest %g form or, when not longer, plain %f. */
        char g[40], f[64];
        for (int prec = 1; prec <= 17; prec++) {
            snprintf(g, sizeof g, "%.*g", prec, d);
            if (strtod(g, NULL) == d) break;
        }
        f[0] = '\0';
        for (int prec = 0; prec <= 20 && fabs(d) < 1e20; prec++) {
            snprintf(f, sizeof f, "%.*f", prec, d);
            if (strtod(f, NULL) == d) break;
            f[0] = '\0';
        }
        dl_str_addf(s, "%s", f[0] && strlen(f) <= strlen(g) ? f : g);
    }
}

/* ---- the checker: a model of what a well-formed event stream looks like ---- */

typedef struct dl_frame {
    uint8_t kind;
    int64_t count; /* -1 when streamed */
    uint64_t seen; /* elements so far, pairs counting 2 */
} dl_frame;

typedef struct dl_model {
    rg_limits lim;
    dl_frame st[DL_MAX_DEPTH + 1];
    uint32_t n;
    bool in_str;
    uint8_t str_sub;
    int64_t str_len;
    uint64_t str_got;
    uint32_t str_depth;
    bool after_attr; /* an attribute ended; the value it annotates must come next */
    uint64_t values;
} dl_model;

static uint64_t frame_mult(uint8_t kind) {
    return kind == RG_EV_MAP || kind == RG_EV_ATTR ? 2 : 1;
}

static bool frame_full(const dl_frame *f) {
    return f->count >= 0 && f->seen >= (uint64_t)f->count * frame_mult(f->kind);
}

/* An aggregate whose declared elements have all arrived: its END needs no more input, so the
 * reader must produce it before asking for more. */
static bool model_end_due(const dl_model *m) {
    return m->n > 0 && !m->in_str && !m->after_attr && frame_full(&m->st[m->n - 1]);
}

static bool model_idle(const dl_model *m) {
    return m->n == 0 && !m->in_str && !m->after_attr;
}

static void model_value_done(dl_model *m) {
    if (m->n)
        m->st[m->n - 1].seen++;
    else
        m->values++;
}

typedef struct dl_run {
    dl_model m;
    dl_str *log;
    unsigned problems;
    rg_reader *r;
    /* the buffer of the current call: views must lie in buf[lo..len) */
    const char *buf;
    size_t lo, len;
    /* a chunked string being joined */
    dl_str chunks;
    bool chunk_open;
    uint32_t chunk_depth;
    bool chunk_odd; /* a chunk had another depth or a complete flag */
    size_t events;  /* events since the last reset, for rg_feed's pause check */
} dl_run;

static void problem(dl_run *run, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem(dl_run *run, const char *fmt, ...) {
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    dl_str_addf(run->log, "!! %s\n", tmp);
    run->problems++;
}

static void check_event(dl_run *run, const rg_event *ev) {
    dl_model *m = &run->m;
    unsigned k = ev->kind;
    bool want_complete = false;

    if (m->in_str) {
        if (k == RG_EV_STR_CHUNK) {
            if (ev->depth != m->str_depth)
                problem(run, "chunk at d%u, string at d%u", ev->depth, m->str_depth);
            if (ev->complete) problem(run, "chunk marked complete");
            if (ev->str.len > m->lim.max_bulk) problem(run, "chunk longer than max_bulk");
            m->str_got += ev->str.len;
            if (m->str_len >= 0 && m->str_got > (uint64_t)m->str_len)
                problem(run, "chunks exceed the announced length %lld", (long long)m->str_len);
            return;
        }
        if (k == RG_EV_STR_END) {
            if (ev->sub != m->str_sub)
                problem(run, "str_end sub %s, begin sub %s", dl_kind_name(ev->sub),
                        dl_kind_name(m->str_sub));
            if (ev->depth != m->str_depth)
                problem(run, "str_end at d%u, begin at d%u", ev->depth, m->str_depth);
            if (m->str_len >= 0 && m->str_got != (uint64_t)m->str_len)
                problem(run, "chunks hold %llu bytes, begin announced %lld",
                        (unsigned long long)m->str_got, (long long)m->str_len);
            if (ev->complete != (ev->depth == 0)) problem(run, "wrong complete flag on str_end");
            m->in_str = false;
            model_value_done(m);
            return;
        }
        problem(run, "%s inside a chunked string", dl_kind_name(k));
        m->in_str = false;
    }
    if (k == RG_EV_STR_CHUNK || k == RG_EV_STR_END) {
        problem(run, "%s outside a chunked string", dl_kind_name(k));
        return;
    }
    if (k == RG_EV_END) {
        if (m->n == 0) {
            problem(run, "end with no open aggregate");
            return;
        }
        dl_frame *f = &m->st[m->n - 1];
        if (ev->depth != m->n - 1)
            problem(run, "end at d%u, aggregate opened at d%u", ev->depth, m->n - 1);
        if (ev->sub != f->kind)
            problem(run, "end %s closes a %s", dl_kind_name(ev->sub), dl_kind_name(f->kind));
        if (m->after_attr) problem(run, "aggregate ends right after an attribute");
        if (f->count >= 0 && !frame_full(f))
            problem(run, "end after %llu of %lld elements", (unsigned long long)f->seen,
                    (long long)f->count);
        if (f->count < 0 && f->kind == RG_EV_MAP && f->seen % 2)
            problem(run, "streamed map ends after an odd number of elements");
        m->n--;
        m->after_attr = false;
        if (f->kind == RG_EV_ATTR) {
            if (ev->complete) problem(run, "attribute end marked complete");
            m->after_attr = true;
            return;
        }
        if (ev->complete != (ev->depth == 0)) problem(run, "wrong complete flag on end");
        model_value_done(m);
        return;
    }

    /* A value or an aggregate header, at the current depth. */
    if (ev->depth != m->n)
        problem(run, "%s at d%u, expected d%u", dl_kind_name(k), ev->depth, m->n);
    if (m->n && frame_full(&m->st[m->n - 1]) && k != RG_EV_ATTR)
        problem(run, "more elements than the %s announced", dl_kind_name(m->st[m->n - 1].kind));
    m->after_attr = false;
    switch (k) {
    case RG_EV_ARRAY:
    case RG_EV_MAP:
    case RG_EV_SET:
    case RG_EV_PUSH:
    case RG_EV_ATTR: {
        bool may_stream = k == RG_EV_ARRAY || k == RG_EV_MAP || k == RG_EV_SET;
        if (ev->u.i < (may_stream ? -1 : 0))
            problem(run, "%s count %lld", dl_kind_name(k), (long long)ev->u.i);
        if (ev->u.i > 0 && (uint64_t)ev->u.i > m->lim.max_elements / frame_mult((uint8_t)k))
            problem(run, "%s count %lld over max_elements", dl_kind_name(k), (long long)ev->u.i);
        if (ev->complete) problem(run, "aggregate header marked complete");
        if (m->n + 1 > m->lim.max_depth) {
            problem(run, "more than max_depth=%u aggregates open", m->lim.max_depth);
            return;
        }
        m->st[m->n++] = (dl_frame){(uint8_t)k, ev->u.i < 0 ? -1 : ev->u.i, 0};
        return;
    }
    case RG_EV_STR_BEGIN:
        if (ev->sub != RG_EV_BULK && ev->sub != RG_EV_VERBATIM && ev->sub != RG_EV_BLOBERR)
            problem(run, "str_begin sub %s", dl_kind_name(ev->sub));
        if (ev->u.i < -1 || (ev->u.i == -1 && ev->sub != RG_EV_BULK))
            problem(run, "str_begin length %lld", (long long)ev->u.i);
        if (ev->u.i >= 0 && (uint64_t)ev->u.i > m->lim.max_bulk)
            problem(run, "str_begin length over max_bulk");
        /* i counts the bytes the chunks will hold; a verbatim payload also holds "fmt:" */
        if (ev->u.i >= 0 &&
            (uint64_t)ev->u.i + (ev->sub == RG_EV_VERBATIM ? 4 : 0) < m->lim.stream_min)
            problem(run, "chunked payload shorter than stream_min");
        if (ev->sub == RG_EV_VERBATIM && ev->fmt.len != 3)
            problem(run, "verbatim format of %zu bytes", ev->fmt.len);
        if (ev->complete) problem(run, "str_begin marked complete");
        m->in_str = true;
        m->str_sub = ev->sub;
        m->str_len = ev->u.i;
        m->str_got = 0;
        m->str_depth = ev->depth;
        return;
    case RG_EV_SIMPLE:
    case RG_EV_ERROR:
    case RG_EV_BIGNUM:
        /* The line is the type byte, the text and CRLF. */
        if (ev->str.len + 3 > m->lim.max_line) problem(run, "line longer than max_line");
        if (memchr(ev->str.ptr ? ev->str.ptr : "", '\r', ev->str.len) ||
            memchr(ev->str.ptr ? ev->str.ptr : "", '\n', ev->str.len))
            problem(run, "CR or LF inside a line");
        break;
    case RG_EV_BULK:
    case RG_EV_BLOBERR:
        if (ev->str.len > m->lim.max_bulk) problem(run, "payload over max_bulk");
        if (ev->str.len >= m->lim.stream_min)
            problem(run, "payload of stream_min bytes or more not chunked");
        break;
    case RG_EV_VERBATIM:
        if (ev->fmt.len != 3) problem(run, "verbatim format of %zu bytes", ev->fmt.len);
        if (ev->str.len + 4 > m->lim.max_bulk) problem(run, "payload over max_bulk");
        if (ev->str.len + 4 >= m->lim.stream_min)
            problem(run, "payload of stream_min bytes or more not chunked");
        break;
    case RG_EV_NULL:
        if (ev->sub != RG_EV_NULL && ev->sub != RG_EV_BULK && ev->sub != RG_EV_ARRAY)
            problem(run, "null sub %s", dl_kind_name(ev->sub));
        break;
    case RG_EV_DOUBLE: {
        char tmp[RG_DOUBLE_LINE_MAX + 1], *end;
        if (ev->str.len == 0 || ev->str.len >= sizeof tmp) {
            problem(run, "double text of %zu bytes", ev->str.len);
            break;
        }
        memcpy(tmp, ev->str.ptr, ev->str.len);
        tmp[ev->str.len] = '\0';
        double d = strtod(tmp, &end);
        if (*end)
            problem(run, "double text does not parse");
        else if (!(isnan(d) && isnan(ev->u.d)) && !(d == ev->u.d && signbit(d) == signbit(ev->u.d)))
            problem(run, "double value differs from its text");
        break;
    }
    case RG_EV_INT:
    case RG_EV_BOOL: break;
    default: problem(run, "invalid kind %u", k); return;
    }
    want_complete = ev->depth == 0;
    if (ev->complete != want_complete) problem(run, "wrong complete flag on %s", dl_kind_name(k));
    model_value_done(m);
}

/* ---- logging ---- */

static void check_view(dl_run *run, const char *what, rg_view v) {
    if (v.len == 0) return;
    if (!v.ptr) {
        problem(run, "%s: NULL view of %zu bytes", what, v.len);
        return;
    }
    const char *lo = run->buf + run->lo, *hi = run->buf + run->len;
    /* Compare as integers: the pointer may belong to another object entirely. */
    if ((uintptr_t)v.ptr < (uintptr_t)lo || (uintptr_t)v.ptr > (uintptr_t)hi ||
        v.len > (size_t)(hi - v.ptr))
        problem(run, "%s: view outside the unread input of this call", what);
}

static void flush_chunks(dl_run *run) {
    if (!run->chunk_open) return;
    dl_str_add(run->log, "chunks ", 7);
    dl_str_quote(run->log, run->chunks.p ? run->chunks.p : "", run->chunks.len);
    dl_str_addf(run->log, " d%u%s\n", run->chunk_depth, run->chunk_odd ? " (odd chunk)" : "");
    run->chunk_open = false;
    dl_str_clear(&run->chunks);
}

static void log_event(dl_run *run, const rg_event *ev) {
    dl_str *s = run->log;
    unsigned k = ev->kind;
    run->events++;

    switch (k) {
    case RG_EV_SIMPLE:
    case RG_EV_ERROR:
    case RG_EV_BULK:
    case RG_EV_BIGNUM:
    case RG_EV_BLOBERR:
    case RG_EV_DOUBLE:
    case RG_EV_VERBATIM:
    case RG_EV_STR_CHUNK: check_view(run, dl_kind_name(k), ev->str); break;
    default: break;
    }
    if (k == RG_EV_VERBATIM || (k == RG_EV_STR_BEGIN && ev->sub == RG_EV_VERBATIM))
        check_view(run, "fmt", ev->fmt);

    if (k == RG_EV_STR_CHUNK && run->chunk_open) {
        if (ev->depth != run->chunk_depth || ev->complete) run->chunk_odd = true;
        dl_str_add(&run->chunks, ev->str.ptr, ev->str.len);
        check_event(run, ev);
        return;
    }
    if (k == RG_EV_STR_END) flush_chunks(run);

    dl_str_addf(s, "%s", dl_kind_name(k));
    switch (k) {
    case RG_EV_SIMPLE:
    case RG_EV_ERROR:
    case RG_EV_BULK:
    case RG_EV_BIGNUM:
    case RG_EV_BLOBERR:
    case RG_EV_STR_CHUNK: /* only outside a chunked string, which the checker reports */
        dl_str_add(s, " ", 1);
        dl_str_quote(s, ev->str.ptr, ev->str.len);
        break;
    case RG_EV_VERBATIM:
        dl_str_add(s, " ", 1);
        dl_str_quote(s, ev->fmt.ptr, ev->fmt.len);
        dl_str_add(s, " ", 1);
        dl_str_quote(s, ev->str.ptr, ev->str.len);
        break;
    case RG_EV_DOUBLE:
        dl_str_add(s, " ", 1);
        dl_str_quote(s, ev->str.ptr, ev->str.len);
        dl_str_add(s, " ", 1);
        dl_str_double(s, ev->u.d);
        break;
    case RG_EV_INT:
    case RG_EV_ARRAY:
    case RG_EV_MAP:
    case RG_EV_SET:
    case RG_EV_PUSH:
    case RG_EV_ATTR: dl_str_addf(s, " %lld", (long long)ev->u.i); break;
    case RG_EV_BOOL: dl_str_addf(s, " %s", ev->u.b ? "true" : "false"); break;
    case RG_EV_NULL:
    case RG_EV_END:
    case RG_EV_STR_END: dl_str_addf(s, " %s", dl_kind_name(ev->sub)); break;
    case RG_EV_STR_BEGIN:
        dl_str_addf(s, " %s %lld", dl_kind_name(ev->sub), (long long)ev->u.i);
        if (ev->sub == RG_EV_VERBATIM) {
            dl_str_add(s, " ", 1);
            dl_str_quote(s, ev->fmt.ptr, ev->fmt.len);
        }
        break;
    default: dl_str_addf(s, "#%u", k); break;
    }
    dl_str_addf(s, " d%u%s\n", ev->depth, ev->complete ? " complete" : "");

    if (k == RG_EV_STR_BEGIN) {
        run->chunk_open = true;
        run->chunk_depth = ev->depth;
        run->chunk_odd = false;
        dl_str_clear(&run->chunks);
    }
    check_event(run, ev);
}

/* ---- the driver ---- */

static const char junk[8] = {'*', '9', '\r', '\n', '$', '1', '\r', '\n'};

static char *present(const dl_opts *o, const dl_arena *a, const char *in, size_t consumed,
                     size_t upto, size_t *base, size_t *blen) {
    char *p;
    switch (o->layout) {
    case DL_RETAIN:
        *base = consumed;
        *blen = upto;
        p = a->place(a->ctx, upto);
        if (upto) memcpy(p, in, upto);
        return p;
    case DL_JUNK:
        *base = sizeof junk;
        *blen = sizeof junk + (upto - consumed);
        p = a->place(a->ctx, *blen);
        memcpy(p, junk, sizeof junk);
        if (upto > consumed) memcpy(p + sizeof junk, in + consumed, upto - consumed);
        return p;
    case DL_COMPACT:
    default:
        *base = 0;
        *blen = upto - consumed;
        p = a->place(a->ctx, *blen);
        if (*blen) memcpy(p, in + consumed, *blen);
        return p;
    }
}

typedef struct feed_ctx {
    dl_run *run;
    bool pause;
    /* rg_reader_offset during the current call stays in [lo, hi] and never goes back */
    uint64_t lo, hi;
    uint64_t buf_offset; /* the stream offset of run->buf[0] */
} feed_ctx;

static bool has_view(unsigned kind) {
    switch (kind) {
    case RG_EV_SIMPLE:
    case RG_EV_ERROR:
    case RG_EV_BULK:
    case RG_EV_DOUBLE:
    case RG_EV_BIGNUM:
    case RG_EV_BLOBERR:
    case RG_EV_VERBATIM:
    case RG_EV_STR_CHUNK: return true;
    default: return false;
    }
}

/* What a callback may ask the reader about the event it was just given. */
static void check_in_callback(dl_run *run, feed_ctx *c, const rg_event *ev) {
    uint64_t off = rg_reader_offset(run->r);
    if (off < c->lo || off > c->hi)
        problem(run, "rg_reader_offset %llu in a callback, outside [%llu, %llu]",
                (unsigned long long)off, (unsigned long long)c->lo, (unsigned long long)c->hi);
    c->lo = off;
    /* the bytes of a view are consumed by the time its event is seen */
    if (has_view(ev->kind) && ev->str.len && run->buf && ev->str.ptr >= run->buf &&
        c->buf_offset + (uint64_t)(ev->str.ptr + ev->str.len - run->buf) > off)
        problem(run, "rg_reader_offset %llu in a callback, before the end of the event's view",
                (unsigned long long)off);
    if (rg_reader_values(run->r) != run->m.values)
        problem(run, "rg_reader_values %llu in a callback, completed %llu",
                (unsigned long long)rg_reader_values(run->r), (unsigned long long)run->m.values);
    if (ev->complete && !rg_reader_idle(run->r))
        problem(run, "not idle in the callback of a complete value");
    if (!model_idle(&run->m) && rg_reader_idle(run->r))
        problem(run, "idle in a callback inside a value");
}

static int feed_cb(void *ud, const rg_event *ev) {
    feed_ctx *c = ud;
    dl_decoder_active = 0;
    log_event(c->run, ev);
    check_in_callback(c->run, c, ev);
    dl_decoder_active = 1;
    return c->pause;
}

/* rg_next_batch; logs the events and leaves the last one in *ev. */
static rg_status call_batch(rg_reader *r, feed_ctx *fc, const char *buf, size_t len, size_t *pos,
                            rg_event *ev) {
    rg_event evs[DL_BATCH_MAX];
    memset(evs, 0, sizeof evs);
    rg_status st;
    size_t n = rg_next_batch(r, buf, len, pos, evs, DL_BATCH_MAX, &st);
    dl_decoder_active = 0;
    if (n > DL_BATCH_MAX) {
        problem(fc->run, "rg_next_batch returned %zu events of %d", n, DL_BATCH_MAX);
        n = DL_BATCH_MAX;
    }
    if (n < DL_BATCH_MAX && st == RG_OK) problem(fc->run, "rg_next_batch stopped early with RG_OK");
    if (n == DL_BATCH_MAX && st != RG_OK) problem(fc->run, "rg_next_batch full but not RG_OK");
    for (size_t i = 0; i < n; i++) log_event(fc->run, &evs[i]);
    if (n) *ev = evs[n - 1];
    return st;
}

static rg_status call(rg_reader *r, const dl_opts *o, feed_ctx *fc, const char *buf, size_t len,
                      size_t *pos, rg_event *ev) {
    rg_status st;
    fc->lo = rg_reader_offset(r);
    fc->hi = fc->lo + (len - *pos);
    fc->buf_offset = fc->lo - *pos;
    dl_decoder_active = 1;
    switch (o->api) {
    case DL_NEXT: st = rg_next(r, buf, len, pos, ev); break;
    case DL_BATCH: st = call_batch(r, fc, buf, len, pos, ev); break;
    case DL_INLINE:
    case DL_INLINE_PAUSE: st = rg_feed_inline(r, buf, len, pos, feed_cb, fc); break;
    default: st = rg_feed(r, buf, len, pos, feed_cb, fc); break;
    }
    dl_decoder_active = 0;
    return st;
}

static bool api_pauses(enum dl_api api) {
    return api == DL_FEED_PAUSE || api == DL_INLINE_PAUSE;
}

/* The APIs that return events rather than calling back with them. */
static bool api_returns(enum dl_api api) {
    return api == DL_NEXT || api == DL_BATCH;
}

/* The reader's bookkeeping after any call: *pos never moves back, and rg_reader_offset counts
 * exactly the bytes consumed so far. */
static void check_position(dl_run *run, uint64_t consumed, size_t base, size_t pos_in, size_t pos,
                           size_t blen) {
    if (pos < pos_in || pos > blen)
        problem(run, "*pos moved from %zu to %zu (len %zu)", pos_in, pos, blen);
    uint64_t want = consumed + (pos - base);
    if (rg_reader_offset(run->r) != want)
        problem(run, "rg_reader_offset %llu, consumed %llu",
                (unsigned long long)rg_reader_offset(run->r), (unsigned long long)want);
    if (rg_reader_values(run->r) != run->m.values)
        problem(run, "rg_reader_values %llu, completed %llu",
                (unsigned long long)rg_reader_values(run->r), (unsigned long long)run->m.values);
}

static void check_sticky(dl_run *run, const dl_opts *o, feed_ctx *fc, rg_status st, const char *buf,
                         size_t blen, size_t pos, const char *rest, size_t nrest) {
    const rg_error e1 = rg_reader_error(run->r);
    size_t events = run->events;
    rg_event ev;
    static const enum dl_api apis[] = {DL_NEXT, DL_FEED, DL_BATCH, DL_INLINE};
    for (size_t i = 0; i < sizeof apis / sizeof apis[0]; i++) {
        dl_opts o2 = *o;
        o2.api = apis[i];
        size_t p2 = pos;
        rg_status st2 = call(run->r, &o2, fc, buf, blen, &p2, &ev);
        if (st2 != st || p2 != pos)
            problem(run, "error not sticky: then %s at pos %zu", dl_status_name(st2), p2);
        /* and with every remaining byte of the input, as a caller that read more would */
        p2 = 0;
        st2 = call(run->r, &o2, fc, nrest ? rest : buf, nrest, &p2, &ev);
        if (st2 != st || p2 != 0)
            problem(run, "error not sticky with more input: then %s", dl_status_name(st2));
    }
    const rg_error e2 = rg_reader_error(run->r);
    if (run->events != events) problem(run, "events after an error");
    if (!e2.msg.ptr || !e1.msg.ptr || strcmp(e1.msg.ptr, e2.msg.ptr) || e1.offset != e2.offset ||
        e1.status != st || e2.status != st)
        problem(run, "error message or offset changed");
}

dl_result dl_decode(const char *in, size_t n, const size_t *cuts, size_t ncuts, const dl_opts *o,
                    const dl_arena *arena, dl_str *log) {
    return dl_decode_deep(in, n, cuts, ncuts, o, NULL, arena, log);
}

dl_result dl_decode_deep(const char *in, size_t n, const size_t *cuts, size_t ncuts,
                         const dl_opts *o, const dl_stack *stack, const dl_arena *arena,
                         dl_str *log) {
    rg_reader r;
    rg_reader_init(&r, o->limits);
    if (stack && rg_reader_set_stack(&r, stack->frames, stack->n, stack->max_depth) != RG_OK)
        return (dl_result){RG_INVALID, 0, 0, 1};
    dl_run run;
    memset(&run, 0, sizeof run);
    run.log = log;
    run.r = &r;
    run.m.lim = o->limits ? *o->limits : rg_limits_default();
    if (run.m.lim.max_depth == 0 || run.m.lim.max_depth > RG_MAX_DEPTH)
        run.m.lim.max_depth = RG_MAX_DEPTH;
    if (stack) run.m.lim.max_depth = r.limits.max_depth;
    if (run.m.lim.max_depth > DL_MAX_DEPTH) {
        problem(&run, "max_depth over the checker's DL_MAX_DEPTH");
        return (dl_result){RG_INVALID, 0, 0, 1};
    }
    feed_ctx fc = {&run, api_pauses(o->api), 0, 0, 0};

    dl_result res = {RG_NEED_MORE, 0, 0, 0};
    rg_status st = RG_NEED_MORE;
    uint64_t consumed = 0;
    for (size_t piece = 0; piece <= ncuts; piece++) {
        size_t upto = piece < ncuts ? cuts[piece] : n;
        if (upto < consumed || upto > n || (piece && upto <= cuts[piece - 1])) {
            problem(&run, "bad cut list");
            break;
        }
        size_t base, blen;
        char *buf = present(o, arena, in, (size_t)consumed, upto, &base, &blen);
        size_t pos = base;
        run.buf = buf;
        run.len = blen;
        unsigned idle_events = 0; /* events in a row that consumed nothing */
        for (;;) {
            size_t pos_in = pos;
            rg_event ev;
            memset(&ev, 0, sizeof ev);
            run.lo = pos_in;
            run.events = 0;
            st = call(&r, o, &fc, buf, blen, &pos, &ev);
            if (st == RG_OK && o->api == DL_NEXT) log_event(&run, &ev);
            check_position(&run, consumed, base, pos_in, pos, blen);
            idle_events = pos == pos_in ? idle_events + 1 : 0;
            if (idle_events > 4 * (uint64_t)run.m.lim.max_depth + 8) {
                problem(&run, "no progress: events without consuming input");
                st = RG_STATUS_COUNT;
                break;
            }
            if (st == RG_OK && api_returns(o->api)) {
                if (ev.complete && !rg_reader_idle(&r))
                    problem(&run, "not idle right after a complete value");
                if (!model_idle(&run.m) && rg_reader_idle(&r)) problem(&run, "idle inside a value");
                continue;
            }
            if (st == RG_PAUSED && api_pauses(o->api)) {
                if (run.events != 1) problem(&run, "rg_feed paused after %zu events", run.events);
                continue;
            }
            if (st == RG_NEED_MORE) {
                if (model_end_due(&run.m))
                    problem(&run, "RG_NEED_MORE while an aggregate's end is due");
                if (!model_idle(&run.m) && rg_reader_idle(&r)) problem(&run, "idle inside a value");
                if (api_pauses(o->api) && run.events)
                    problem(&run, "rg_feed did not pause after an event");
                if (o->recall) {
                    size_t p2 = pos;
                    run.events = 0;
                    rg_status st2 = call(&r, o, &fc, buf, blen, &p2, &ev);
                    if (st2 != RG_NEED_MORE || p2 != pos || run.events)
                        problem(&run, "calling again with the same bytes: %s, pos %zu -> %zu",
                                dl_status_name(st2), pos, p2);
                    check_position(&run, consumed, base, pos, p2, blen);
                }
                break;
            }
            if (st >= RG_ERR_PROTOCOL && st < RG_STATUS_COUNT) break;
            problem(&run, "unexpected status %s from API %d", dl_status_name(st), (int)o->api);
            st = RG_STATUS_COUNT;
            break;
        }
        if (st >= RG_ERR_PROTOCOL) {
            if (st < RG_STATUS_COUNT) {
                const rg_error e = rg_reader_error(&r);
                const char *msg = e.msg.ptr;
                const uint64_t off = e.offset;
                if (e.status != st) problem(&run, "rg_reader_error's status is not the call's");
                uint64_t seen = consumed + (blen - base);
                if (!msg || !*msg) problem(&run, "error without a message");
                /* == seen: a line that ran out of room before its CRLF came */
                if (off < rg_reader_offset(&r) || off > seen)
                    problem(&run, "error offset %llu outside the bad token [%llu, %llu]",
                            (unsigned long long)off, (unsigned long long)rg_reader_offset(&r),
                            (unsigned long long)seen);
                uint64_t at = rg_reader_offset(&r);
                check_sticky(&run, o, &fc, st, buf, blen, pos, in + at, n - (size_t)at);
                flush_chunks(&run);
                dl_str_addf(log, "error %s at %llu: %s\n", dl_status_name(st),
                            (unsigned long long)off, msg ? msg : "(null)");
                res.err_offset = off;
            }
            break;
        }
        consumed += pos - base;
    }
    if (st == RG_NEED_MORE) {
        if (rg_reader_error(&r).status != RG_OK || rg_reader_error(&r).msg.ptr)
            problem(&run, "an error message without an error");
        flush_chunks(&run);
        if (consumed < n || !rg_reader_idle(&r)) dl_str_add(log, "incomplete\n", 11);
    }
    res.status = st;
    res.consumed = rg_reader_offset(&r);
    res.problems = run.problems;
    dl_str_free(&run.chunks);
    return res;
}

/* ---- arenas ---- */

static char *heap_place(void *ctx, size_t n) {
    dl_heap_arena *h = ctx;
    free(h->block);
    /* malloc(0) may return NULL; one spare byte keeps the empty buffer a valid pointer */
    h->block = malloc(n + 1);
    if (!h->block) abort();
    return h->block + 1;
}

dl_arena dl_heap_arena_make(dl_heap_arena *h) {
    h->block = NULL;
    return (dl_arena){heap_place, h};
}

void dl_heap_arena_free(dl_heap_arena *h) {
    free(h->block);
    h->block = NULL;
}

static char *guard_place(void *ctx, size_t n) {
    dl_guard_arena *g = ctx;
    if (n > g->cap) {
        fprintf(stderr, "declog: %zu bytes do not fit the guard arena of %zu\n", n, g->cap);
        abort();
    }
    return g->base + g->cap - n;
}

bool dl_guard_arena_init(dl_guard_arena *g, size_t cap) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t body = (cap + page - 1) / page * page;
    void *p = mmap(NULL, body + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return false;
    if (mprotect((char *)p + body, page, PROT_NONE)) {
        munmap(p, body + page);
        return false;
    }
    g->base = p;
    g->cap = body;
    g->map_len = body + page;
    return true;
}

dl_arena dl_guard_arena_make(dl_guard_arena *g) {
    return (dl_arena){guard_place, g};
}

void dl_guard_arena_free(dl_guard_arena *g) {
    if (g->base) munmap(g->base, g->map_len);
    g->base = NULL;
}
