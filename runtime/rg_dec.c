/* respgen runtime: the RESP2/RESP3 decoder. See rg_dec.h for the contract.
 *
 * Shape of the code: the entry points first try the fast path (rg_fast_* in rg_dec_inline.h,
 * shared with rg_feed_inline), which takes only complete, well-formed tokens of the common types.
 * Everything else comes here, to the general path (next_slow): it looks at the reader's token state
 * (rg_tok) and either emits the end of a finished aggregate, reads the next token starting with its
 * type byte (dispatched through a 256-entry table), or continues a payload. Every path that emits
 * an event fills only the fields its kind defines, consumes the whole token, and books the value
 * into its parent frame.
 */
#include "rg_dec.h"
#include "rg_decimal.h"
#include "rg_digits.h"

#include <locale.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define RG_NOINLINE __attribute__((noinline))
#else
#define RG_NOINLINE
#endif

/* What the bytes at *pos are. */
enum rg_tok {
    TOK_TYPE = 0, /* a token starting with its type byte */
    TOK_LINE,     /* a string line, its first r->scanned bytes known to hold no CR or LF */
    TOK_PAYLOAD,  /* a whole-mode payload of r->need bytes plus CRLF */
    TOK_CHUNKS,   /* r->need more payload bytes, handed out as STR_CHUNK events */
    TOK_TAIL,     /* the CRLF after a chunked payload */
    TOK_SSTR,     /* the next ';' chunk header of a streamed string */
};

/* How a type byte's token is read. */
enum rg_class {
    CL_INVALID = 0,
    CL_LINE,  /* + - ( ,: text up to CRLF */
    CL_INT,   /* : */
    CL_BLOB,  /* $ ! =: length, CRLF, payload, CRLF */
    CL_AGG,   /* * % ~ > | */
    CL_NULL,  /* _ */
    CL_BOOL,  /* # */
    CL_END,   /* . */
    CL_CHUNK, /* ; (valid only inside a streamed string) */
};

typedef struct rg_type_info {
    uint8_t cls;  /* rg_class */
    uint8_t kind; /* rg_kind */
} rg_type_info;

static const rg_type_info type_table[256] = {
    ['+'] = {CL_LINE, RG_EV_SIMPLE},     ['-'] = {CL_LINE, RG_EV_ERROR},
    ['('] = {CL_LINE, RG_EV_BIGNUM},     [','] = {CL_LINE, RG_EV_DOUBLE},
    [':'] = {CL_INT, RG_EV_INT},         ['$'] = {CL_BLOB, RG_EV_BULK},
    ['!'] = {CL_BLOB, RG_EV_BLOBERR},    ['='] = {CL_BLOB, RG_EV_VERBATIM},
    ['*'] = {CL_AGG, RG_EV_ARRAY},       ['%'] = {CL_AGG, RG_EV_MAP},
    ['~'] = {CL_AGG, RG_EV_SET},         ['>'] = {CL_AGG, RG_EV_PUSH},
    ['|'] = {CL_AGG, RG_EV_ATTR},        ['_'] = {CL_NULL, RG_EV_NULL},
    ['#'] = {CL_BOOL, RG_EV_BOOL},       ['.'] = {CL_END, RG_EV_END},
    [';'] = {CL_CHUNK, RG_EV_STR_CHUNK},
};

/* Per kind: its type byte, its name, and for aggregates how many elements one count unit is. */
typedef struct rg_kind_info {
    char byte;
    uint8_t per_count;
    const char *name;
} rg_kind_info;

static const rg_kind_info kind_table[RG_EV_KIND_COUNT] = {
    [RG_EV_NONE] = {0, 0, "none"},
    [RG_EV_SIMPLE] = {'+', 0, "simple"},
    [RG_EV_ERROR] = {'-', 0, "error"},
    [RG_EV_INT] = {':', 0, "integer"},
    [RG_EV_BULK] = {'$', 0, "bulk"},
    [RG_EV_NULL] = {'_', 0, "null"},
    [RG_EV_BOOL] = {'#', 0, "boolean"},
    [RG_EV_DOUBLE] = {',', 0, "double"},
    [RG_EV_BIGNUM] = {'(', 0, "big number"},
    [RG_EV_BLOBERR] = {'!', 0, "blob error"},
    [RG_EV_VERBATIM] = {'=', 0, "verbatim"},
    [RG_EV_ARRAY] = {'*', 1, "array"},
    [RG_EV_MAP] = {'%', 2, "map"},
    [RG_EV_SET] = {'~', 1, "set"},
    [RG_EV_PUSH] = {'>', 1, "push"},
    [RG_EV_ATTR] = {'|', 2, "attribute"},
    [RG_EV_END] = {'.', 0, "end"},
    [RG_EV_STR_BEGIN] = {0, 0, "string begin"},
    [RG_EV_STR_CHUNK] = {';', 0, "string chunk"},
    [RG_EV_STR_END] = {0, 0, "string end"},
};

char rg_kind_byte(rg_kind k) {
    return (unsigned)k < RG_EV_KIND_COUNT ? kind_table[k].byte : 0;
}

const char *rg_kind_name(rg_kind k) {
    return (unsigned)k < RG_EV_KIND_COUNT ? kind_table[k].name : "unknown";
}

rg_limits rg_limits_default(void) {
    rg_limits l = {RG_MAX_DEPTH, RG_DEFAULT_MAX_BULK, RG_DEFAULT_MAX_ELEMENTS, RG_DEFAULT_MAX_LINE,
                   UINT64_MAX};
    return l;
}

void rg_reader_init(rg_reader *r, const rg_limits *limits) {
    memset(r, 0, sizeof *r);
    r->limits = limits ? *limits : rg_limits_default();
    if (r->limits.max_depth == 0 || r->limits.max_depth > RG_MAX_DEPTH)
        r->limits.max_depth = RG_MAX_DEPTH;
    r->fast_depth = r->limits.max_depth;
    /* Bulks shorter than this are read whole by the fast path; with max_bulk at UINT64_MAX the
     * one length given up goes to the general path, which handles it the same way. */
    const uint64_t max_bulk = r->limits.max_bulk < UINT64_MAX ? r->limits.max_bulk + 1 : UINT64_MAX;
    r->fast_bulk_end = max_bulk < r->limits.stream_min ? max_bulk : r->limits.stream_min;
}

rg_status rg_reader_set_stack(rg_reader *r, rg_frame *frames, size_t n, uint32_t max_depth) {
    if (!frames) n = 0;
    const uint32_t fit = n < UINT32_MAX - RG_MAX_DEPTH ? RG_MAX_DEPTH + (uint32_t)n : UINT32_MAX;
    if (r->depth != 0 || max_depth > fit) return RG_INVALID;
    r->deep = n ? frames : NULL;
    r->ndeep = (uint32_t)(fit - RG_MAX_DEPTH);
    r->limits.max_depth = max_depth ? max_depth : fit;
    r->fast_depth = r->limits.max_depth < RG_MAX_DEPTH ? r->limits.max_depth : RG_MAX_DEPTH;
    return RG_OK;
}

rg_error rg_reader_error(const rg_reader *r) {
    if (r->status == RG_OK) return (rg_error){RG_OK, {NULL, 0}, 0};
    return (rg_error){(rg_status)r->status, rg_cstr(r->err_msg), r->err_offset};
}

bool rg_reader_idle(const rg_reader *r) {
    return r->status == RG_OK && r->depth == 0 && r->tok == TOK_TYPE && r->scanned == 0 &&
           !(r->slow & RG_SLOW_ATTR);
}

/* ---- the cursor of one call ---------------------------------------------------------------- */

/* The input of one rg_next call: the token starts at buf[at]; everything before is consumed. */
typedef struct cursor {
    const char *buf;
    size_t at;
    size_t len;
} cursor;

static inline size_t avail(const cursor *c) {
    return c->len - c->at;
}

/* Records a sticky error detected at buf[where]. */
static rg_status fail(rg_reader *r, const cursor *c, size_t where, rg_status st, const char *msg) {
    r->status = (uint8_t)st;
    r->err_msg = msg;
    r->err_offset = r->offset + (where - c->at);
    return st;
}

/* ---- numbers ----------------------------------------------------------------------------- */

typedef enum num_result { NUM_OK, NUM_MORE, NUM_BAD, NUM_LONG } num_result;

static num_result num_bad(size_t where, const char *why, size_t *next, const char **msg) {
    *next = where;
    *msg = why;
    return NUM_BAD;
}

/* Parses "[-]digits\r\n" at buf[from..); on NUM_OK *v is the value and *next the byte after LF.
 * On NUM_BAD *next is the offending byte and *msg says why. Number lines are short (at most
 * RG_NUM_LINE_MAX bytes from the type byte at c->at), so a partial one is simply parsed again.
 * Checks run in byte order, so a split input fails exactly where the whole one does. */
static num_result parse_num(const cursor *c, size_t from, bool plus_ok, int64_t *v, size_t *next,
                            const char **msg) {
    const size_t limit = c->at + RG_NUM_LINE_MAX;
    const size_t end = limit < c->len ? limit : c->len;
    size_t i = from;
    const bool neg = i < end && c->buf[i] == '-';
    i += neg || (plus_ok && i < end && c->buf[i] == '+');
    const size_t first = i;
    uint64_t acc;
    /* The magnitude may reach 2^63 for INT64_MIN; anything above is rejected at its digit. */
    i = (size_t)(rg_digits_read(c->buf + i, c->buf + end, (uint64_t)INT64_MAX + neg, &acc) -
                 c->buf);
    if (i < end && rg_digit(c->buf[i]) < 10) return num_bad(i, "integer out of range", next, msg);
    if (i == end) return end < limit ? NUM_MORE : num_bad(i, "number line too long", next, msg);
    if (c->buf[i] != '\r')
        return num_bad(i, c->buf[i] == '\n' ? "bare LF in line" : "invalid digit in number", next,
                       msg);
    if (i == first) return num_bad(i, "missing digits in number", next, msg);
    if (i + 1 == end)
        return end < limit ? NUM_MORE : num_bad(i + 1, "number line too long", next, msg);
    if (c->buf[i + 1] != '\n') return num_bad(i + 1, "CR not followed by LF", next, msg);
    *v = neg ? (int64_t)(0 - acc) : (int64_t)acc;
    *next = i + 2;
    return NUM_OK;
}

/* Parses a length or count line after its type byte: a number >= -1, or '?' (streamed, -2). */
static num_result parse_len(const cursor *c, int64_t *v, size_t *next, const char **msg) {
    const size_t from = c->at + 1;
    if (from < c->len && c->buf[from] == '?') {
        if (c->len - from < 3) return NUM_MORE;
        if (c->buf[from + 1] != '\r' || c->buf[from + 2] != '\n') {
            *next = from + 1;
            *msg = "invalid streamed length";
            return NUM_BAD;
        }
        *v = -2;
        *next = from + 3;
        return NUM_OK;
    }
    const num_result res = parse_num(c, from, false, v, next, msg);
    if (res == NUM_OK && *v < -1) {
        *next = from;
        *msg = "invalid negative length";
        return NUM_BAD;
    }
    return res;
}

/* ---- lines --------------------------------------------------------------------------------- */

/* Finds the CR of the line starting at c->at, resuming after the r->scanned bytes already known
 * to hold no CR or LF. Returns NUM_OK with *cr at the CR (LF checked), NUM_MORE (r->scanned
 * updated), NUM_LONG when the line cannot end within max bytes, or NUM_BAD with *cr at the bad
 * byte. Short lines take a plain loop; long ones memchr. */
static num_result find_line(rg_reader *r, const cursor *c, uint64_t max, size_t *cr,
                            const char **msg) {
    size_t i = c->at + (r->scanned ? (size_t)r->scanned : 1);
    const size_t short_end = c->len - i > 16 ? i + 16 : c->len;
    while (i < short_end && c->buf[i] != '\r' && c->buf[i] != '\n') i++;
    if (i == short_end && i < c->len) {
        const char *p = c->buf + i, *stop = c->buf + c->len;
        const char *q = memchr(p, '\r', (size_t)(stop - p));
        const char *lf = memchr(p, '\n', (size_t)((q ? q : stop) - p));
        i = (size_t)((lf ? lf : q ? q : stop) - c->buf);
    }
    if (i - c->at + 2 > max) return NUM_LONG;
    if (i == c->len || (i + 1 == c->len && c->buf[i] == '\r')) {
        r->scanned = i - c->at;
        r->tok = TOK_LINE;
        return NUM_MORE;
    }
    *cr = i;
    if (c->buf[i] == '\n') {
        *msg = "bare LF in line";
        return NUM_BAD;
    }
    if (c->buf[i + 1] != '\n') {
        *cr = i + 1;
        *msg = "CR not followed by LF";
        return NUM_BAD;
    }
    return NUM_OK;
}

/* inf or nan, with an optional '-', in any case: the spec's inf, -inf and nan, and what Redis
 * prints with "%.17g" besides (7.0 sends ",-nan" for Lua's 0/0), as hiredis reads them. A '+'
 * or a longer word ("infinity") stays refused, as in hiredis. */
static bool special_double(const char *s, size_t n) {
    const size_t i = n == 4 && s[0] == '-';
    if (n - i != 3) return false;
    /* | 0x20 lower-cases a letter and maps no other byte onto one */
    const char w[3] = {(char)(s[i] | 0x20), (char)(s[i + 1] | 0x20), (char)(s[i + 2] | 0x20)};
    return memcmp(w, "inf", 3) == 0 || memcmp(w, "nan", 3) == 0;
}

/* Accepts RESP3 double text: special_double's words, or [+-]digits[.digits][e[+-]digits]
 * (digits on at least one side of the point). */
static bool valid_double(const char *s, size_t n) {
    if (special_double(s, n)) return true;
    const char *const e = s + n, *p = s + (n > 0 && (s[0] == '-' || s[0] == '+'));
    const char *q = rg_digits_skip(p, e);
    size_t digits = (size_t)(q - p);
    if (q < e && *q == '.') {
        p = q + 1;
        q = rg_digits_skip(p, e);
        digits += (size_t)(q - p);
    }
    if (digits == 0) return false;
    if (q < e && (*q == 'e' || *q == 'E')) {
        p = q + 1 + (q + 1 < e && (q[1] == '-' || q[1] == '+'));
        q = rg_digits_skip(p, e);
        if (q == p) return false; /* no exponent digits */
    }
    return q == e;
}

/* Validated text of the form [-+]digits[.digits] with 1 to 19 digits in all: its digits m (below
 * 10^19) and the count k after the point, converted by rg_decimal, bit for bit what strtod
 * (correctly rounding) returns, at a small part of its cost. False for anything else (exponents,
 * inf, nan, more digits) and for the rare values rg_decimal leaves to strtod. */
static bool exact_double(const char *s, size_t n, double *out) {
    const char *const e = s + n, *p = s + (n > 0 && (s[0] == '-' || s[0] == '+'));
    uint64_t m = 0;
    const char *const point = rg_digits_wrap(p, e, &m);
    const char *const end = point < e && *point == '.' ? rg_digits_wrap(point + 1, e, &m) : point;
    const size_t frac = end == point ? 0 : (size_t)(end - point - 1);
    const size_t digits = (size_t)(point - p) + frac;
    if (end != e || digits == 0 || digits > RG_DECIMAL_DIGITS) return false;
    return rg_decimal(m, (unsigned)frac, s[0] == '-', out);
}

/* Converts validated double text. strtod wants a terminated string in the current locale's
 * notation, so the text is copied (it is at most RG_DOUBLE_LINE_MAX bytes). */
static double to_double(const char *s, size_t n) {
    double quick;
    if (exact_double(s, n, &quick)) return quick;
    char tmp[RG_DOUBLE_LINE_MAX];
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    const char point = *localeconv()->decimal_point;
    char *dot = memchr(tmp, '.', n);
    if (dot && point != '.') *dot = point;
    return strtod(tmp, NULL);
}

bool rg_double_text(const char *s, size_t n, double *out) {
    if (n >= RG_DOUBLE_LINE_MAX || !valid_double(s, n)) return false;
    *out = to_double(s, n);
    return true;
}

static bool valid_bignum(const char *s, size_t n) {
    const char *const p = s + (n > 0 && (s[0] == '-' || s[0] == '+'));
    return p < s + n && rg_digits_skip(p, s + n) == s + n;
}

/* ---- events -------------------------------------------------------------------------------- */

/* The frame of level i (0: the outermost): in stack[], or past it in the caller's frames. */
static inline rg_frame *frame_at(rg_reader *r, uint32_t i) {
    return i < RG_MAX_DEPTH ? &r->stack[i] : &r->deep[i - RG_MAX_DEPTH];
}

/* The innermost open frame; depth > 0. */
static inline rg_frame *top_frame(rg_reader *r) {
    return frame_at(r, r->depth - 1);
}

/* The depth changed: the fast path may run only while every open frame is in stack[]. */
static inline void depth_changed(rg_reader *r) {
    r->slow = (uint8_t)((r->slow & ~RG_SLOW_DEEP) | (r->depth > RG_MAX_DEPTH ? RG_SLOW_DEEP : 0));
}

static inline void consume(rg_reader *r, cursor *c, size_t to, size_t *pos) {
    r->offset += to - c->at;
    c->at = to;
    *pos = to;
}

/* Books a finished value into its parent frame, or counts it as a top-level value. */
static inline void value_done(rg_reader *r, rg_event *ev) {
    r->slow &= (uint8_t)~RG_SLOW_ATTR;
    if (r->depth == 0) {
        ev->complete = true;
        r->values++;
        return;
    }
    top_frame(r)->left--; /* a streamed frame counts down from max_elements */
}

static inline void set_event(rg_event *ev, const rg_reader *r, uint8_t kind, uint8_t sub) {
    ev->kind = kind;
    ev->sub = sub;
    ev->complete = false;
    ev->depth = r->depth;
}

RG_NOINLINE static rg_status emit_end(rg_reader *r, rg_event *ev) {
    const rg_frame *f = frame_at(r, --r->depth);
    depth_changed(r);
    set_event(ev, r, RG_EV_END, f->kind);
    if (f->kind == RG_EV_ATTR) {
        r->slow |= RG_SLOW_ATTR; /* the value it annotates comes next, in the parent */
        return RG_OK;
    }
    value_done(r, ev);
    return RG_OK;
}

/* ---- tokens -------------------------------------------------------------------------------- */

static rg_status read_line(rg_reader *r, cursor *c, uint8_t kind, size_t *pos, rg_event *ev) {
    const uint64_t max = kind == RG_EV_DOUBLE ? RG_DOUBLE_LINE_MAX : r->limits.max_line;
    size_t cr;
    const char *msg;
    const num_result res = find_line(r, c, max, &cr, &msg);
    if (res == NUM_MORE) return RG_NEED_MORE;
    if (res == NUM_LONG) return fail(r, c, c->at, RG_ERR_LIMIT, "line longer than the limit");
    if (res == NUM_BAD) return fail(r, c, cr, RG_ERR_PROTOCOL, msg);
    const char *s = c->buf + c->at + 1;
    const size_t n = cr - c->at - 1;
    if (kind == RG_EV_DOUBLE) {
        if (!valid_double(s, n)) return fail(r, c, c->at + 1, RG_ERR_PROTOCOL, "invalid double");
        ev->u.d = to_double(s, n);
    } else if (kind == RG_EV_BIGNUM && !valid_bignum(s, n)) {
        return fail(r, c, c->at + 1, RG_ERR_PROTOCOL, "invalid big number");
    }
    set_event(ev, r, kind, kind);
    ev->str.ptr = s;
    ev->str.len = n;
    r->scanned = 0;
    r->tok = TOK_TYPE;
    consume(r, c, cr + 2, pos);
    value_done(r, ev);
    return RG_OK;
}

static rg_status read_int(rg_reader *r, cursor *c, size_t *pos, rg_event *ev) {
    int64_t v;
    size_t next;
    const char *msg;
    const num_result res = parse_num(c, c->at + 1, true, &v, &next, &msg);
    if (res != NUM_OK)
        return res == NUM_MORE ? RG_NEED_MORE : fail(r, c, next, RG_ERR_PROTOCOL, msg);
    set_event(ev, r, RG_EV_INT, RG_EV_INT);
    ev->u.i = v;
    consume(r, c, next, pos);
    value_done(r, ev);
    return RG_OK;
}

/* Matches the fixed token want (n bytes, type byte included) at c->at: NUM_OK, NUM_MORE while
 * the bytes there are a prefix of it, or NUM_BAD with *bad at the first byte that differs. */
static num_result match_fixed(const cursor *c, const char *want, size_t n, size_t *bad) {
    const size_t have = avail(c) < n ? avail(c) : n;
    for (size_t i = 1; i < have; i++)
        if (c->buf[c->at + i] != want[i]) {
            *bad = c->at + i;
            return NUM_BAD;
        }
    return have == n ? NUM_OK : NUM_MORE;
}

static rg_status read_null(rg_reader *r, cursor *c, size_t *pos, rg_event *ev) {
    size_t bad;
    const num_result res = match_fixed(c, "_\r\n", 3, &bad);
    if (res != NUM_OK)
        return res == NUM_MORE ? RG_NEED_MORE : fail(r, c, bad, RG_ERR_PROTOCOL, "invalid null");
    set_event(ev, r, RG_EV_NULL, RG_EV_NULL);
    consume(r, c, c->at + 3, pos);
    value_done(r, ev);
    return RG_OK;
}

static rg_status read_bool(rg_reader *r, cursor *c, size_t *pos, rg_event *ev) {
    const bool f = avail(c) > 1 && c->buf[c->at + 1] == 'f';
    size_t bad;
    const num_result res = match_fixed(c, f ? "#f\r\n" : "#t\r\n", 4, &bad);
    if (res != NUM_OK)
        return res == NUM_MORE ? RG_NEED_MORE : fail(r, c, bad, RG_ERR_PROTOCOL, "invalid boolean");
    set_event(ev, r, RG_EV_BOOL, RG_EV_BOOL);
    ev->u.b = !f;
    consume(r, c, c->at + 4, pos);
    value_done(r, ev);
    return RG_OK;
}

/* Emits the whole payload of r->need bytes at c->at once it and its CRLF are there. */
static rg_status read_payload(rg_reader *r, cursor *c, size_t *pos, rg_event *ev) {
    const size_t n = (size_t)r->need;
    if (avail(c) < n + 2) {
        if (avail(c) > n && c->buf[c->at + n] != '\r') goto bad_tail;
        return RG_NEED_MORE;
    }
    if (c->buf[c->at + n] != '\r' || c->buf[c->at + n + 1] != '\n') goto bad_tail;
    const char *p = c->buf + c->at;
    const uint8_t kind = r->pay_kind;
    set_event(ev, r, kind, kind);
    if (kind == RG_EV_VERBATIM) {
        if (p[3] != ':')
            return fail(r, c, c->at + 3, RG_ERR_PROTOCOL, "verbatim format not followed by ':'");
        ev->fmt.ptr = p;
        ev->fmt.len = 3;
        p += 4;
    }
    ev->str.ptr = p;
    ev->str.len = (size_t)(c->buf + c->at + n - p);
    r->tok = TOK_TYPE;
    consume(r, c, c->at + n + 2, pos);
    value_done(r, ev);
    return RG_OK;
bad_tail:
    return fail(r, c, c->at + n + (c->buf[c->at + n] == '\r'), RG_ERR_PROTOCOL,
                "payload not followed by CRLF");
}

/* Starts a chunked payload: STR_BEGIN now, the bytes as STR_CHUNK events, then STR_END. */
static rg_status begin_chunks(rg_reader *r, cursor *c, size_t next, int64_t n, size_t *pos,
                              rg_event *ev) {
    set_event(ev, r, RG_EV_STR_BEGIN, r->pay_kind);
    ev->u.i = n;
    if (r->pay_kind == RG_EV_VERBATIM) {
        /* The format is part of the BEGIN event, so it must be there before the header is
         * consumed. */
        if (c->len - next < 4) return RG_NEED_MORE;
        if (c->buf[next + 3] != ':')
            return fail(r, c, next + 3, RG_ERR_PROTOCOL, "verbatim format not followed by ':'");
        ev->fmt.ptr = c->buf + next;
        ev->fmt.len = 3;
        ev->u.i = n - 4;
        next += 4;
        r->need -= 4;
    }
    r->tok = r->need ? TOK_CHUNKS : TOK_TAIL;
    r->slow &= (uint8_t)~RG_SLOW_ATTR;
    consume(r, c, next, pos);
    return RG_OK;
}

/* A length or count of -1: RESP2's null bulk ("$-1") and null array ("*-1"); no other type has
 * one. */
static rg_status read_len_null(rg_reader *r, cursor *c, uint8_t kind, size_t next, size_t *pos,
                               rg_event *ev) {
    if (kind != RG_EV_BULK && kind != RG_EV_ARRAY)
        return fail(r, c, c->at + 1, RG_ERR_PROTOCOL,
                    kind_table[kind].per_count ? "invalid count" : "invalid length");
    set_event(ev, r, RG_EV_NULL, kind);
    consume(r, c, next, pos);
    value_done(r, ev);
    return RG_OK;
}

static rg_status read_blob(rg_reader *r, cursor *c, uint8_t kind, size_t *pos, rg_event *ev) {
    int64_t n;
    size_t next;
    const char *msg;
    const num_result res = parse_len(c, &n, &next, &msg);
    if (res != NUM_OK)
        return res == NUM_MORE ? RG_NEED_MORE : fail(r, c, next, RG_ERR_PROTOCOL, msg);
    if (n == -1) return read_len_null(r, c, kind, next, pos, ev);
    if (n == -2) {
        if (kind != RG_EV_BULK)
            return fail(r, c, c->at + 1, RG_ERR_PROTOCOL, "streamed length on a non-bulk type");
        set_event(ev, r, RG_EV_STR_BEGIN, RG_EV_BULK);
        ev->u.i = -1;
        r->pay_kind = RG_EV_BULK;
        r->slow &= (uint8_t)~RG_SLOW_ATTR;
        r->tok = TOK_SSTR;
        consume(r, c, next, pos);
        return RG_OK;
    }
    if ((uint64_t)n > r->limits.max_bulk)
        return fail(r, c, c->at, RG_ERR_LIMIT, "bulk length over the limit");
    if (kind == RG_EV_VERBATIM && n < 4)
        return fail(r, c, c->at, RG_ERR_PROTOCOL, "verbatim string shorter than 4 bytes");
    r->pay_kind = kind;
    r->need = (uint64_t)n;
    if ((uint64_t)n >= r->limits.stream_min) return begin_chunks(r, c, next, n, pos, ev);
    r->tok = TOK_PAYLOAD;
    consume(r, c, next, pos);
    return read_payload(r, c, pos, ev);
}

static rg_status read_agg(rg_reader *r, cursor *c, uint8_t kind, size_t *pos, rg_event *ev) {
    int64_t n;
    size_t next;
    const char *msg;
    const num_result res = parse_len(c, &n, &next, &msg);
    if (res != NUM_OK)
        return res == NUM_MORE ? RG_NEED_MORE : fail(r, c, next, RG_ERR_PROTOCOL, msg);
    if (n == -1) return read_len_null(r, c, kind, next, pos, ev);
    const bool streamed = n == -2;
    if (streamed && kind != RG_EV_ARRAY && kind != RG_EV_MAP && kind != RG_EV_SET)
        return fail(r, c, c->at + 1, RG_ERR_PROTOCOL, "streamed count on a type that has none");
    const uint64_t per = kind_table[kind].per_count;
    if (!streamed && (uint64_t)n > r->limits.max_elements / per)
        return fail(r, c, c->at, RG_ERR_LIMIT, "aggregate count over the limit");
    if (r->depth >= r->limits.max_depth)
        return fail(r, c, c->at, RG_ERR_DEPTH, "nesting deeper than the limit");
    set_event(ev, r, kind, kind);
    ev->u.i = streamed ? -1 : n;
    rg_frame *f = frame_at(r, r->depth++);
    f->left = streamed ? r->limits.max_elements : (uint64_t)n * per;
    f->kind = kind;
    f->streamed = streamed;
    r->slow &= (uint8_t)~RG_SLOW_ATTR;
    depth_changed(r);
    consume(r, c, next, pos);
    return RG_OK;
}

static rg_status read_end(rg_reader *r, cursor *c, size_t *pos, rg_event *ev) {
    size_t bad;
    const num_result res = match_fixed(c, ".\r\n", 3, &bad);
    if (res != NUM_OK)
        return res == NUM_MORE ? RG_NEED_MORE : fail(r, c, bad, RG_ERR_PROTOCOL, "invalid end");
    const rg_frame *f = r->depth ? top_frame(r) : NULL;
    if (!f || !f->streamed)
        return fail(r, c, c->at, RG_ERR_PROTOCOL, "'.' outside a streamed aggregate");
    if (f->kind == RG_EV_MAP && (r->limits.max_elements - f->left) % 2)
        return fail(r, c, c->at, RG_ERR_PROTOCOL, "streamed map ends inside a pair");
    if (r->slow & RG_SLOW_ATTR)
        return fail(r, c, c->at, RG_ERR_PROTOCOL, "attribute not followed by a value");
    consume(r, c, c->at + 3, pos);
    return emit_end(r, ev);
}

static rg_status read_token(rg_reader *r, cursor *c, size_t *pos, rg_event *ev) {
    const rg_type_info t = type_table[(unsigned char)c->buf[c->at]];
    /* A streamed aggregate that has used up max_elements may only end. */
    if (r->depth && top_frame(r)->left == 0 && t.cls != CL_END)
        return fail(r, c, c->at, RG_ERR_LIMIT, "streamed aggregate over the element limit");
    switch (t.cls) {
    case CL_LINE: return read_line(r, c, t.kind, pos, ev);
    case CL_INT: return read_int(r, c, pos, ev);
    case CL_BLOB: return read_blob(r, c, t.kind, pos, ev);
    case CL_AGG: return read_agg(r, c, t.kind, pos, ev);
    case CL_NULL: return read_null(r, c, pos, ev);
    case CL_BOOL: return read_bool(r, c, pos, ev);
    case CL_END: return read_end(r, c, pos, ev);
    case CL_CHUNK: return fail(r, c, c->at, RG_ERR_PROTOCOL, "';' outside a streamed string");
    default: return fail(r, c, c->at, RG_ERR_PROTOCOL, "invalid type byte");
    }
}

/* ---- chunked payloads -------------------------------------------------------------------- */

static rg_status read_chunk(rg_reader *r, cursor *c, size_t *pos, rg_event *ev) {
    const size_t n = avail(c) < r->need ? avail(c) : (size_t)r->need;
    if (n == 0) return RG_NEED_MORE;
    set_event(ev, r, RG_EV_STR_CHUNK, r->pay_kind);
    ev->str.ptr = c->buf + c->at;
    ev->str.len = n;
    r->need -= n;
    if (r->need == 0) r->tok = TOK_TAIL;
    consume(r, c, c->at + n, pos);
    return RG_OK;
}

static rg_status str_end(rg_reader *r, rg_event *ev) {
    set_event(ev, r, RG_EV_STR_END, r->pay_kind);
    r->tok = TOK_TYPE;
    value_done(r, ev);
    return RG_OK;
}

/* The CRLF after a chunked payload; a streamed string's chunk goes back to its next header. */
static rg_status read_tail(rg_reader *r, cursor *c, size_t *pos, rg_event *ev, bool *again) {
    if (c->buf[c->at] != '\r')
        return fail(r, c, c->at, RG_ERR_PROTOCOL, "payload not followed by CRLF");
    if (avail(c) < 2) return RG_NEED_MORE;
    if (c->buf[c->at + 1] != '\n')
        return fail(r, c, c->at + 1, RG_ERR_PROTOCOL, "payload not followed by CRLF");
    consume(r, c, c->at + 2, pos);
    if (r->in_sstr) {
        r->tok = TOK_SSTR;
        *again = true;
        return RG_OK;
    }
    return str_end(r, ev);
}

/* A ';' header inside a streamed string: ";0" ends it, ";N" starts N bytes of chunks. */
static rg_status read_sstr(rg_reader *r, cursor *c, size_t *pos, rg_event *ev) {
    if (c->buf[c->at] != ';')
        return fail(r, c, c->at, RG_ERR_PROTOCOL, "expected ';' chunk in a streamed string");
    int64_t n;
    size_t next;
    const char *msg;
    const num_result res = parse_num(c, c->at + 1, false, &n, &next, &msg);
    if (res != NUM_OK)
        return res == NUM_MORE ? RG_NEED_MORE : fail(r, c, next, RG_ERR_PROTOCOL, msg);
    if (n < 0) return fail(r, c, c->at + 1, RG_ERR_PROTOCOL, "invalid chunk length");
    if ((uint64_t)n > r->limits.max_bulk)
        return fail(r, c, c->at, RG_ERR_LIMIT, "chunk length over the limit");
    consume(r, c, next, pos);
    if (n == 0) {
        r->in_sstr = false;
        return str_end(r, ev);
    }
    r->in_sstr = true;
    r->need = (uint64_t)n;
    r->tok = TOK_CHUNKS;
    return read_chunk(r, c, pos, ev);
}

/* ---- the general path ---------------------------------------------------------------------- */

/* The general path: every token state, partial input and every error. Kept out of line so the
 * fast path's prologue stays small. */
RG_NOINLINE static rg_status next_slow(rg_reader *r, const char *buf, size_t len, size_t *pos,
                                       rg_event *ev) {
    if (r->status != RG_OK) return (rg_status)r->status;
    const rg_frame *const top = r->depth ? top_frame(r) : NULL;
    if (r->tok == TOK_TYPE && top && top->left == 0 && !top->streamed) return emit_end(r, ev);
    cursor c = {buf, *pos, len};
    for (;;) {
        if (c.at >= c.len) return RG_NEED_MORE;
        bool again = false;
        rg_status st;
        switch (r->tok) {
        case TOK_TYPE:
        case TOK_LINE: return read_token(r, &c, pos, ev);
        case TOK_PAYLOAD: return read_payload(r, &c, pos, ev);
        case TOK_CHUNKS: return read_chunk(r, &c, pos, ev);
        case TOK_SSTR: return read_sstr(r, &c, pos, ev);
        default: st = read_tail(r, &c, pos, ev, &again); break;
        }
        if (!again) return st;
    }
}

/* ---- the API: the fast path of rg_dec_inline.h first ---------------------------------------- */

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
_Static_assert(offsetof(rg_event, sub) == 1 && offsetof(rg_event, complete) == 2 &&
                   offsetof(rg_event, depth) == 4 && sizeof(bool) == 1,
               "rg_fast_put_head: rg_event starts with kind, sub, complete, depth");
#endif
_Static_assert(TOK_TYPE == 0, "rg_fast_ready: tok 0 starts a token");

rg_status rg_next(rg_reader *r, const char *buf, size_t len, size_t *pos, rg_event *ev) {
    if (rg_fast_ready(r) && *pos < len) {
        rg_fast f = rg_fast_load(r, buf, len, *pos, true);
        /* For one token, this bound says the same in a way the compiler folds into one test. */
        f.roomy = len - *pos >= RG_FAST_ROOM ? f.p + 1 : f.p;
        const int res = rg_fast_token(&f, r, ev);
        if (res == RG_FAST_EVENT) {
            rg_fast_save(&f, r, pos);
            return RG_OK;
        }
        if (res == RG_FAST_MORE) return RG_NEED_MORE;
    }
    return next_slow(r, buf, len, pos, ev);
}

size_t rg_next_batch(rg_reader *r, const char *buf, size_t len, size_t *pos, rg_event *evs,
                     size_t max, rg_status *st) {
    *st = RG_OK;
    if (max == 0) return 0; /* evs may be NULL */
    rg_event *ev = evs, *const stop = evs + max;
    rg_status s = RG_OK;
    while (ev < stop) {
        if (rg_fast_ready(r) && *pos < len) {
            rg_fast f = rg_fast_load(r, buf, len, *pos, true);
            int res;
            do res = rg_fast_token(&f, r, ev);
            while (res == RG_FAST_EVENT && ++ev < stop);
            rg_fast_save(&f, r, pos);
            if (res == RG_FAST_MORE) {
                s = RG_NEED_MORE;
                break;
            }
            if (res == RG_FAST_EVENT) break; /* max events */
        }
        if ((s = next_slow(r, buf, len, pos, ev)) != RG_OK) break;
        ev++;
    }
    *st = s;
    return (size_t)(ev - evs);
}

rg_status rg_feed(rg_reader *r, const char *buf, size_t len, size_t *pos, rg_event_fn fn,
                  void *ud) {
    return rg_fast_feed(r, buf, len, pos, fn, ud, true, next_slow);
}
