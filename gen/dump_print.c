/* Rendering of decoder events for `respgen dump`: redis-cli's style or one JSON value per line.
 *
 * Everything is written as the events come: a string's bytes as soon as its chunk arrives, an
 * aggregate's index markers from a stack that knows each open aggregate's element count. The
 * only thing that waits is a human-style line ending, because a map key's line goes on with
 * " => " and its value. */
#include "dump_print.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* First size of the output buffer. */
#define OUT_INITIAL_CAP ((size_t)64 * 1024)
/* Longest text held back for an unfinished value before it is shown as it goes. */
#define OUT_HOLD_MAX ((size_t)1024 * 1024)

void rg_out_init(rg_out *o, FILE *f) {
    *o = (rg_out){.f = f};
}

void rg_out_free(rg_out *o) {
    free(o->data);
    *o = (rg_out){.f = o->f};
}

/* Writes data[start..mark) to the stream. */
static void out_emit(rg_out *o) {
    const size_t n = o->mark - o->start;
    errno = 0;
    if (n > 0 && !o->err && fwrite(o->data + o->start, 1, n, o->f) != n)
        o->err = errno ? errno : EIO;
    o->start = o->mark;
    if (o->start == o->len) o->start = o->mark = o->len = 0;
}

/* Makes room for n more bytes. Written text is dropped from the front only when it is at least
 * as long as the held text that has to move down, so moving costs O(1) per byte overall. */
static bool out_reserve(rg_out *o, size_t n) {
    if (o->cap - o->len >= n) return true;
    out_emit(o);
    const size_t keep = o->len - o->start;
    if (o->start > 0 && o->start >= keep) {
        memmove(o->data, o->data + o->start, keep);
        o->mark -= o->start;
        o->len = keep;
        o->start = 0;
    }
    if (o->cap - o->len >= n) return true;
    size_t cap = o->cap ? o->cap : OUT_INITIAL_CAP;
    while (cap - o->len < n) {
        if (cap > SIZE_MAX / 2) return o->err = ENOMEM, false;
        cap *= 2;
    }
    char *data = realloc(o->data, cap);
    if (!data) return o->err = ENOMEM, false;
    o->data = data;
    o->cap = cap;
    return true;
}

void rg_out_write(rg_out *o, const char *p, size_t n) {
    if (n == 0 || o->err || !out_reserve(o, n)) return;
    memcpy(o->data + o->len, p, n);
    o->len += n;
    if (o->shown_partial || o->len - o->mark > OUT_HOLD_MAX) {
        o->mark = o->len;
        o->shown_partial = true;
    }
}

void rg_out_commit(rg_out *o) {
    o->mark = o->len;
    o->shown_partial = false;
}

void rg_out_abandon(rg_out *o) {
    if (o->shown_partial) {
        rg_out_write(o, "\n", 1);
        rg_out_commit(o);
    } else {
        o->len = o->mark;
    }
}

bool rg_out_flush(rg_out *o) {
    out_emit(o);
    if (!o->err && fflush(o->f) != 0) o->err = errno ? errno : EIO;
    return !o->err;
}

static void put(rg_printer *p, const char *s) {
    rg_out_write(p->out, s, strlen(s));
}

static void put_spaces(rg_printer *p, size_t n) {
    static const char spaces[] = "                                ";
    for (size_t k; n > 0; n -= k) {
        k = n < sizeof spaces - 1 ? n : sizeof spaces - 1;
        rg_out_write(p->out, spaces, k);
    }
}

/* ---- Bytes inside strings ---- */

typedef enum esc_mode {
    ESC_JSON,   /* inside a JSON string */
    ESC_QUOTED, /* inside "..." the way redis-cli's sdscatrepr writes it */
    ESC_RAW     /* bare text (status, error, number): only what a terminal would not show */
} esc_mode;

static const char hex_digits[] = "0123456789abcdef";
static const char json_short[0x80] = {
    ['"'] = '"',  ['\\'] = '\\', ['\b'] = 'b', ['\f'] = 'f',
    ['\n'] = 'n', ['\r'] = 'r',  ['\t'] = 't',
};
static const char repr_short[0x80] = {
    ['"'] = '"',  ['\\'] = '\\', ['\n'] = 'n', ['\r'] = 'r',
    ['\t'] = 't', ['\a'] = 'a',  ['\b'] = 'b',
};

static bool is_plain(unsigned char c, esc_mode m) {
    if (c < 0x20 || c >= 0x7f) return false;
    return m == ESC_RAW || !(m == ESC_JSON ? json_short : repr_short)[c];
}

/* JSON: each byte is the code point of the same value (U+0000..U+00FF), so any byte string
 * survives: decode the JSON, then map each code point back to a byte. */
static void json_escape(rg_out *o, unsigned char c) {
    char buf[6] = {'\\', 'u', '0', '0', hex_digits[c >> 4], hex_digits[c & 15]};
    size_t len = sizeof buf;
    if (c >= 0x80) {
        buf[0] = (char)(0xc0 | c >> 6);
        buf[1] = (char)(0x80 | (c & 0x3f));
        len = 2;
    } else if (json_short[c]) {
        buf[1] = json_short[c];
        len = 2;
    }
    rg_out_write(o, buf, len);
}

static void repr_escape(rg_out *o, unsigned char c) {
    char buf[4] = {'\\', 'x', hex_digits[c >> 4], hex_digits[c & 15]};
    size_t len = sizeof buf;
    if (c < 0x80 && repr_short[c]) {
        buf[1] = repr_short[c];
        len = 2;
    }
    rg_out_write(o, buf, len);
}

/* Copies runs of plain bytes in one go; only the others go one by one. */
static void put_bytes(rg_out *o, rg_view s, esc_mode m) {
    const unsigned char *b = (const unsigned char *)s.ptr;
    size_t run = 0;
    for (size_t i = 0; i < s.len; i++) {
        if (is_plain(b[i], m)) continue;
        rg_out_write(o, s.ptr + run, i - run);
        run = i + 1;
        (m == ESC_JSON ? json_escape : repr_escape)(o, b[i]);
    }
    rg_out_write(o, s.ptr + run, s.len - run);
}

/* ---- Per-kind texts ---- */

typedef struct str_text {
    const char *json_open, *json_close;
    const char *human_open, *human_close;
    esc_mode human_esc;
} str_text;

/* Verbatim strings also print their format: after human_open, before json_close's end. */
static const str_text str_texts[RG_EV_KIND_COUNT] = {
    [RG_EV_SIMPLE] = {"{\"simple\":\"", "\"}", "", "", ESC_RAW},
    [RG_EV_ERROR] = {"{\"error\":\"", "\"}", "(error) ", "", ESC_RAW},
    [RG_EV_BULK] = {"{\"bulk\":\"", "\"}", "\"", "\"", ESC_QUOTED},
    [RG_EV_BIGNUM] = {"{\"big\":\"", "\"}", "(big number) ", "", ESC_RAW},
    [RG_EV_BLOBERR] = {"{\"error\":\"", "\"}", "(error) ", "", ESC_RAW},
    [RG_EV_VERBATIM] = {"{\"verbatim\":\"", "\",\"format\":\"", "(verbatim ", "\"", ESC_QUOTED},
};

typedef struct agg_text {
    const char *json_open, *json_close;
    const char *human_empty;  /* what redis-cli prints for no elements */
    const char *human_header; /* a line of its own before the elements, or NULL */
    char sep;                 /* after the index: "1) ", "1# ", "1~ " */
    bool pairs;               /* elements are key, value, key, value... */
} agg_text;

static const agg_text agg_texts[RG_EV_KIND_COUNT] = {
    [RG_EV_NONE] = {"", "", "", NULL, ')', false}, /* the top level */
    [RG_EV_ARRAY] = {"[", "]", "(empty array)", NULL, ')', false},
    [RG_EV_MAP] = {"{\"map\":[", "]}", "(empty hash)", NULL, '#', true},
    [RG_EV_SET] = {"{\"set\":[", "]}", "(empty set)", NULL, '~', false},
    [RG_EV_PUSH] = {"{\"push\":[", "]}", "(empty push)", "(push)", ')', false},
    [RG_EV_ATTR] = {"{\"attr\":[", "],\"value\":", "", "(attribute)", '#', true},
};

static bool is_string_kind(uint8_t kind) {
    return kind < RG_EV_KIND_COUNT && str_texts[kind].json_open;
}

static bool is_aggregate_kind(uint8_t kind) {
    return kind != RG_EV_NONE && kind < RG_EV_KIND_COUNT && agg_texts[kind].json_open;
}

/* ---- The two styles ---- */

struct rg_dump_style {
    void (*element)(rg_printer *p, const rg_dump_frame *f);   /* a new element of f begins */
    void (*annotated)(rg_printer *p, const rg_dump_frame *f); /* an attribute's value begins */
    void (*done)(rg_printer *p, rg_dump_frame *f);            /* an element of f completed */
    void (*open)(rg_printer *p, const rg_dump_frame *f);      /* f was just pushed */
    void (*close)(rg_printer *p, const rg_dump_frame *f);     /* f was just popped */
    void (*scalar)(rg_printer *p, const rg_event *ev);        /* a value without text escaping */
    void (*str_open)(rg_printer *p, rg_view fmt);             /* p->str_sub is set */
    esc_mode (*str_esc)(const rg_printer *p);
    void (*str_close)(rg_printer *p);
};

/* Where the elements of an aggregate opened inside f start: past f's index markers. */
static size_t content_indent(const rg_dump_frame *f) {
    return f->kind == RG_EV_NONE ? 0 : f->indent + f->width + 2;
}

/* redis-cli pads every index to the width of the highest one. A streamed aggregate's count is
 * not known up front, so its indexes are not padded. */
static uint32_t index_width(int64_t count) {
    uint32_t w = 1;
    for (int64_t v = count; v >= 10; v /= 10) w++;
    return w;
}

static void human_element(rg_printer *p, const rg_dump_frame *f) {
    const agg_text *t = &agg_texts[f->kind];
    const bool map_value = t->pairs && f->n % 2 == 1;
    if (p->pending_nl) put(p, map_value ? " => " : "\n");
    p->pending_nl = false;
    if (f->kind == RG_EV_NONE || map_value) return;
    if (f->n == 0 && t->human_header) {
        put(p, t->human_header);
        put(p, "\n");
    }
    /* The first marker goes where the aggregate itself began, already indented (redis-cli). */
    if (f->n > 0 || t->human_header) put_spaces(p, f->indent);
    char marker[32];
    const uint64_t index = (t->pairs ? f->n / 2 : f->n) + 1;
    const int len =
        snprintf(marker, sizeof marker, "%*" PRIu64 "%c ", (int)f->width, index, t->sep);
    rg_out_write(p->out, marker, (size_t)len);
}

static void human_annotated(rg_printer *p, const rg_dump_frame *f) {
    if (!p->pending_nl) return; /* an empty attribute printed nothing */
    put(p, "\n");
    put_spaces(p, content_indent(f));
    p->pending_nl = false;
}

static void human_done(rg_printer *p, rg_dump_frame *f) {
    p->pending_nl = f->kind != RG_EV_NONE;
    if (!p->pending_nl) put(p, "\n");
}

static void human_open(rg_printer *p, const rg_dump_frame *f) {
    (void)p;
    (void)f;
}

static void human_close(rg_printer *p, const rg_dump_frame *f) {
    if (f->n > 0 || f->kind == RG_EV_ATTR) return;
    put(p, agg_texts[f->kind].human_empty);
    p->pending_nl = true;
}

static void human_scalar(rg_printer *p, const rg_event *ev) {
    char buf[48];
    switch (ev->kind) {
    case RG_EV_INT:
        snprintf(buf, sizeof buf, "(integer) %" PRId64, ev->u.i);
        put(p, buf);
        break;
    case RG_EV_DOUBLE:
        put(p, "(double) ");
        put_bytes(p->out, ev->str, ESC_RAW);
        break;
    case RG_EV_BOOL: put(p, ev->u.b ? "(true)" : "(false)"); break;
    default: put(p, "(nil)"); break;
    }
}

static void human_str_open(rg_printer *p, rg_view fmt) {
    put(p, str_texts[p->str_sub].human_open);
    if (p->str_sub != RG_EV_VERBATIM) return;
    put_bytes(p->out, fmt, ESC_RAW);
    put(p, ") \"");
}

static esc_mode human_str_esc(const rg_printer *p) {
    return str_texts[p->str_sub].human_esc;
}

static void human_str_close(rg_printer *p) {
    put(p, str_texts[p->str_sub].human_close);
}

static void json_element(rg_printer *p, const rg_dump_frame *f) {
    if (f->kind == RG_EV_NONE) return;
    if (!agg_texts[f->kind].pairs)
        put(p, f->n > 0 ? "," : "");
    else if (f->n % 2 == 0)
        put(p, f->n > 0 ? ",[" : "[");
    else
        put(p, ",");
}

static void json_annotated(rg_printer *p, const rg_dump_frame *f) {
    (void)p;
    (void)f;
}

static void json_done(rg_printer *p, rg_dump_frame *f) {
    for (; f->closes > 0; f->closes--) put(p, "}");
    if (agg_texts[f->kind].pairs && f->n % 2 == 0) put(p, "]");
    if (f->kind == RG_EV_NONE) put(p, "\n");
}

static void json_open(rg_printer *p, const rg_dump_frame *f) {
    put(p, agg_texts[f->kind].json_open);
}

static void json_close(rg_printer *p, const rg_dump_frame *f) {
    put(p, agg_texts[f->kind].json_close);
}

/* The shortest of %.15g..%.17g that reads back as the same double; JSON has no inf or nan. */
static void json_double(rg_printer *p, double d) {
    if (isnan(d) || isinf(d)) {
        put(p, isnan(d) ? "{\"double\":\"nan\"}"
               : d > 0  ? "{\"double\":\"inf\"}"
                        : "{\"double\":\"-inf\"}");
        return;
    }
    char buf[48];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "{\"double\":%.*g}", prec, d);
        if (strtod(buf + strlen("{\"double\":"), NULL) == d) break;
    }
    put(p, buf);
}

static void json_scalar(rg_printer *p, const rg_event *ev) {
    char buf[48];
    switch (ev->kind) {
    case RG_EV_INT:
        snprintf(buf, sizeof buf, "{\"int\":%" PRId64 "}", ev->u.i);
        put(p, buf);
        break;
    case RG_EV_DOUBLE: json_double(p, ev->u.d); break;
    case RG_EV_BOOL: put(p, ev->u.b ? "true" : "false"); break;
    default: put(p, "null"); break;
    }
}

static void json_str_open(rg_printer *p, rg_view fmt) {
    put(p, str_texts[p->str_sub].json_open);
    /* fmt is only set for verbatim strings. It is printed after the text, when this view may be
     * gone, so it is copied. */
    if (p->str_sub != RG_EV_VERBATIM) return;
    p->fmt_len = (uint8_t)(fmt.len < sizeof p->fmt ? fmt.len : sizeof p->fmt);
    if (p->fmt_len > 0) memcpy(p->fmt, fmt.ptr, p->fmt_len);
}

static esc_mode json_str_esc(const rg_printer *p) {
    (void)p;
    return ESC_JSON;
}

static void json_str_close(rg_printer *p) {
    put(p, str_texts[p->str_sub].json_close);
    if (p->str_sub != RG_EV_VERBATIM) return;
    put_bytes(p->out, (rg_view){p->fmt, p->fmt_len}, ESC_JSON);
    put(p, "\"}");
}

static const struct rg_dump_style styles[] = {
    [RG_DUMP_HUMAN] = {human_element, human_annotated, human_done, human_open, human_close,
                       human_scalar, human_str_open, human_str_esc, human_str_close},
    [RG_DUMP_JSON] = {json_element, json_annotated, json_done, json_open, json_close, json_scalar,
                      json_str_open, json_str_esc, json_str_close},
};

/* ---- Event dispatch, shared by both styles ---- */

void rg_printer_init(rg_printer *p, rg_out *out, rg_dump_format format) {
    *p = (rg_printer){.out = out, .style = &styles[format]};
}

static rg_dump_frame *current(rg_printer *p) {
    return &p->stack[p->depth];
}

/* Before any value begins: the value an attribute annotates continues the attribute's element,
 * everything else is a new element. */
static void begin_value(rg_printer *p) {
    rg_dump_frame *f = current(p);
    if (f->cont) {
        f->cont = false;
        p->style->annotated(p, f);
        return;
    }
    p->style->element(p, f);
    f->n++;
}

static void end_value(rg_printer *p) {
    p->style->done(p, current(p));
    if (p->depth == 0) rg_out_commit(p->out);
}

static bool open_aggregate(rg_printer *p, const rg_event *ev) {
    if (p->depth == RG_MAX_DEPTH) return false;
    begin_value(p);
    const size_t indent = content_indent(current(p));
    rg_dump_frame *f = &p->stack[++p->depth];
    *f = (rg_dump_frame){.kind = ev->kind, .width = index_width(ev->u.i), .indent = indent};
    p->style->open(p, f);
    return true;
}

static bool close_aggregate(rg_printer *p, const rg_event *ev) {
    if (p->depth == 0 || ev->sub != current(p)->kind) return false;
    const rg_dump_frame f = p->stack[p->depth--];
    p->style->close(p, &f);
    if (f.kind != RG_EV_ATTR) {
        end_value(p);
        return true;
    }
    current(p)->cont = true;
    current(p)->closes++;
    return true;
}

static bool open_string(rg_printer *p, uint8_t sub, rg_view fmt) {
    if (!is_string_kind(sub)) return false;
    begin_value(p);
    p->str_sub = sub;
    p->in_str = true;
    p->style->str_open(p, fmt);
    return true;
}

static bool string_chunk(rg_printer *p, rg_view s) {
    if (!p->in_str) return false;
    put_bytes(p->out, s, p->style->str_esc(p));
    return true;
}

static bool close_string(rg_printer *p, uint8_t sub) {
    if (!p->in_str || sub != p->str_sub) return false;
    p->in_str = false;
    p->style->str_close(p);
    end_value(p);
    return true;
}

static bool whole_string(rg_printer *p, const rg_event *ev) {
    return open_string(p, ev->kind, ev->fmt) && string_chunk(p, ev->str) &&
           close_string(p, ev->kind);
}

static bool scalar(rg_printer *p, const rg_event *ev) {
    begin_value(p);
    p->style->scalar(p, ev);
    end_value(p);
    return true;
}

/* The decoder's depth must match the printer's stack, and strings must open, go on and close in
 * order: a mismatch means the decoder (or this file) is wrong. */
static bool event_fits(const rg_printer *p, const rg_event *ev) {
    const bool in_str_event = ev->kind == RG_EV_STR_CHUNK || ev->kind == RG_EV_STR_END;
    if (in_str_event) return p->in_str;
    if (p->in_str) return false;
    if (ev->kind == RG_EV_END) return p->depth > 0 && ev->depth == p->depth - 1;
    return ev->depth == p->depth;
}

bool rg_printer_event(rg_printer *p, const rg_event *ev) {
    if (!event_fits(p, ev)) return false;
    switch (ev->kind) {
    case RG_EV_INT:
    case RG_EV_NULL:
    case RG_EV_BOOL:
    case RG_EV_DOUBLE: return scalar(p, ev);
    case RG_EV_END: return close_aggregate(p, ev);
    case RG_EV_STR_BEGIN: return open_string(p, ev->sub, ev->fmt);
    case RG_EV_STR_CHUNK: return string_chunk(p, ev->str);
    case RG_EV_STR_END: return close_string(p, ev->sub);
    default:
        if (is_aggregate_kind(ev->kind)) return open_aggregate(p, ev);
        return is_string_kind(ev->kind) && whole_string(p, ev);
    }
}
