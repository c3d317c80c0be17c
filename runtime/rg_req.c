/* respgen runtime: the request reader. See rg_req.h for the contract.
 *
 * Mirrors Redis 7.0's processMultibulkBuffer / processInlineBuffer (networking.c) so that every
 * request Redis accepts is accepted and every one it rejects is rejected with the same text. Where
 * Redis is lax the reader is lax the same way: a length line ends at its first CR and the byte
 * after the CR is skipped unchecked, and so are the two bytes after a bulk payload. Where Redis
 * reads a line as a C string, so does the reader: Redis looks for a line's end with strchr, which
 * stops at a NUL, so a line with a NUL before its end never ends ("stalled"): the request waits
 * until its bytes pass the limit and gets the limit's error.
 *
 * Shape: rg_req_next loops over requests; each is either multibulk (first byte '*') or inline.
 * Positions inside the pending request are offsets from *pos, so nothing points into the buffer
 * between calls.
 */
#include "rg_req.h"

#include "rg_digits.h"

#include <string.h>

enum rg_req_phase {
    PH_IDLE = 0, /* at the first byte of a request */
    PH_COUNT,    /* reading the "*<n>" line */
    PH_BULKS,    /* reading "$<len>" lines and payloads */
    PH_INLINE,   /* looking for the end of an inline line */
};

void rg_req_init(rg_req *r, const rg_req_limits *lim) {
    static const rg_req_limits defaults = {RG_REQ_MAX_MULTIBULK, RG_REQ_MAX_BULK,
                                           RG_REQ_MAX_INLINE};
    memset(r, 0, sizeof *r);
    r->lim = lim ? *lim : defaults;
    r->bulk = -1;
}

rg_error rg_req_error(const rg_req *r) {
    if (r->err == RG_OK) return (rg_error){RG_OK, {NULL, 0}, 0};
    return (rg_error){r->err, rg_cstr(r->msg), r->err_offset};
}

bool rg_parse_i64(const char *s, size_t n, int64_t *out) {
    return n <= 20 && rg_digits_i64(s, n, true, out);
}

static rg_status fail(rg_req *r, const char *msg) {
    static const char prefix[] = "ERR Protocol error: ";
    const size_t n = strlen(msg);
    memcpy(r->msg, prefix, sizeof prefix - 1);
    memcpy(r->msg + sizeof prefix - 1, msg, n + 1);
    r->err = RG_ERR_PROTOCOL;
    r->err_offset = r->consumed + r->off;
    return r->err;
}

/* Redis formats the offending byte with %c and then turns CR and LF into spaces. */
static rg_status fail_expected_dollar(rg_req *r, char got) {
    char msg[] = "expected '$', got ' '";
    if (got != '\r' && got != '\n') msg[sizeof msg - 3] = got;
    return fail(r, msg);
}

static void reset_request(rg_req *r) {
    r->phase = PH_IDLE;
    r->inline_req = false;
    r->off = 0;
    r->scanned = 0;
    r->argc = 0;
    r->need_argc = 0;
    r->left = 0;
    r->bulk = -1;
    r->resumed = false;
    r->stalled = false;
}

/* Finds the CR ending the line at b[off..n), starting after the r->scanned bytes known to hold
 * none. Returns the CR's offset, or n when the line (with the byte after its CR) is incomplete;
 * then r->scanned remembers the progress. */
static size_t line_end(rg_req *r, const char *b, size_t off, size_t n) {
    const char *cr = memchr(b + off + r->scanned, '\r', n - off - r->scanned);
    if (!cr) {
        r->scanned = n - off;
        return n;
    }
    const size_t at = (size_t)(cr - b);
    if (at + 2 > n) {
        r->scanned = at - off;
        return n;
    }
    r->scanned = 0;
    return at;
}

/* Rebuilds the views of a request that arrived in pieces: its lines were validated already. */
static void rebuild_argv(const char *b, size_t n, size_t argc, rg_view *argv) {
    size_t o = (size_t)((const char *)memchr(b, '\r', n) - b) + 2;
    for (size_t i = 0; i < argc; i++) {
        uint64_t len;
        o = (size_t)(rg_digits_read(b + o + 1, b + n, SIZE_MAX, &len) - b);
        argv[i].ptr = b + o + 2;
        argv[i].len = (size_t)len;
        o += 2 + len + 2;
    }
}

/* A stalled length line at r->off never ends: the request waits until its bytes pass the limit,
 * as a line whose end has not arrived. */
static rg_status wait_stalled(rg_req *r, size_t n) {
    r->scanned = n - r->off;
    if (r->scanned <= r->lim.max_inline) return RG_NEED_MORE;
    return fail(r,
                r->phase == PH_COUNT ? "too big mbulk count string" : "too big bulk count string");
}

/* Out of line and cold where the compiler knows how: inlined, the refusal paths cost every valid
 * request about 12 instructions in rg_req_next (bench_server's SET/GET under callgrind). */
#if defined(__GNUC__) || defined(__clang__)
#define RG_REQ_COLD __attribute__((noinline, cold))
#else
#define RG_REQ_COLD
#endif

/* The length line b[r->off..cr) about to be refused: stalled when it holds a NUL (see the top),
 * else msg, or Redis' "expected '$'" when msg is NULL. A valid length line is all digits, so only
 * refused lines are searched for a NUL. */
static RG_REQ_COLD rg_status refuse_line(rg_req *r, const char *b, size_t cr, size_t n,
                                         const char *msg) {
    if (memchr(b + r->off, '\0', cr - r->off)) {
        r->stalled = true;
        return wait_stalled(r, n);
    }
    return msg ? fail(r, msg) : fail_expected_dollar(r, b[r->off]);
}

/* The "*<n>" line. Returns RG_OK with r in PH_BULKS (or idle after an empty request). */
static rg_status read_count(rg_req *r, const char *b, size_t n) {
    const size_t cr = line_end(r, b, 0, n);
    if (cr == n) {
        if (r->scanned > r->lim.max_inline) return fail(r, "too big mbulk count string");
        return RG_NEED_MORE;
    }
    int64_t count;
    if (!rg_parse_i64(b + 1, cr - 1, &count) || count > r->lim.max_multibulk) {
        return refuse_line(r, b, cr, n, "invalid multibulk length");
    }
    r->off = cr + 2;
    r->left = count > 0 ? count : 0;
    r->need_argc = (size_t)r->left;
    r->phase = PH_BULKS;
    return RG_OK;
}

/* The "$<len>" line of the next bulk. */
static rg_status read_bulk_len(rg_req *r, const char *b, size_t n) {
    const size_t cr = line_end(r, b, r->off, n);
    if (cr == n) {
        if (r->scanned > r->lim.max_inline) return fail(r, "too big bulk count string");
        return RG_NEED_MORE;
    }
    if (b[r->off] != '$') {
        return refuse_line(r, b, cr, n, NULL);
    }
    int64_t len;
    if (!rg_parse_i64(b + r->off + 1, cr - r->off - 1, &len) || len < 0 || len > r->lim.max_bulk) {
        return refuse_line(r, b, cr, n, "invalid bulk length");
    }
    r->bulk = len;
    r->off = cr + 2;
    return RG_OK;
}

static rg_status read_bulks(rg_req *r, const char *b, size_t n, rg_view *argv) {
    while (r->left > 0) {
        if (r->bulk < 0) {
            const rg_status st = read_bulk_len(r, b, n);
            if (st != RG_OK) return st;
        }
        const size_t need = (size_t)r->bulk + 2;
        if (n - r->off < need) return RG_NEED_MORE;
        argv[r->argc].ptr = b + r->off;
        argv[r->argc].len = (size_t)r->bulk;
        r->argc++;
        r->off += need;
        r->bulk = -1;
        r->left--;
    }
    return RG_OK;
}

static bool is_blank(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

static int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static char unescape(char c) {
    switch (c) {
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    case 'b': return '\b';
    case 'a': return '\a';
    default: return c;
    }
}

/* One word of an inline line, as Redis' sdssplitargs reads it, starting at s[*i] (not blank).
 * The unquoted bytes are written at *w (never past s + *i, so in place is safe) when write is
 * set. Returns false on unbalanced quotes. */
static bool inline_word(char *s, size_t n, size_t *i, char **w, bool write) {
    int quote = 0; /* '"', '\'' or 0 */
#define AT(k) ((k) < n ? s[k] : '\0')
#define OUT(c)                    \
    do {                          \
        if (write) *(*w)++ = (c); \
    } while (0)
    for (size_t p = *i;; p++) {
        const char c = AT(p);
        if (quote == '"' && c == '\\' && AT(p + 1) == 'x' && hex_value(AT(p + 2)) >= 0 &&
            hex_value(AT(p + 3)) >= 0) {
            OUT((char)(hex_value(s[p + 2]) * 16 + hex_value(s[p + 3])));
            p += 3;
        } else if (quote == '"' && c == '\\' && AT(p + 1)) {
            p++;
            OUT(unescape(s[p]));
        } else if (quote == '\'' && c == '\\' && AT(p + 1) == '\'') {
            p++;
            OUT('\'');
        } else if (quote && c == quote) {
            /* the closing quote must be followed by a blank or the end */
            if (AT(p + 1) && !is_blank(s[p + 1])) return false;
            *i = p + (p < n);
            return true;
        } else if (quote && !c) {
            return false;
        } else if (!quote && (c == ' ' || c == '\n' || c == '\r' || c == '\t' || !c)) {
            *i = p + (p < n);
            return true;
        } else if (!quote && (c == '"' || c == '\'')) {
            quote = c;
        } else {
            OUT(c);
        }
    }
#undef OUT
#undef AT
}

/* Splits line s[0..n) (no NUL in it: such a line stalls) into argv[0..cap) (when argv is not
 * NULL, unescaping in place) and returns the word count, which may exceed cap, or -1 on
 * unbalanced quotes. */
static long split_inline(char *s, size_t n, rg_view *argv, size_t cap) {
    long count = 0;
    size_t i = 0;
    for (;;) {
        while (i < n && is_blank(s[i])) i++;
        if (i == n) return count;
        char *start = s + i, *w = start;
        if (!inline_word(s, n, &i, &w, argv != NULL)) return -1;
        if (argv && (size_t)count < cap) argv[count] = (rg_view){start, (size_t)(w - start)};
        count++;
    }
}

/* The complete inline line b[0..r->scanned) (r->scanned is its LF). */
static rg_status split_line(rg_req *r, char *b, rg_view *argv, size_t cap) {
    size_t end = r->scanned;
    if (end > 0 && b[end - 1] == '\r') end--;
    /* Without quotes no byte moves (every byte is written back where it was), so one pass both
     * counts and fills argv, and a line over cap is read unchanged on the retry. Quoted words are
     * unescaped in place, which must wait until the line is known to fit and to be balanced:
     * those lines are counted first and split after. */
    const bool quoted = memchr(b, '"', end) || memchr(b, '\'', end);
    const long count = split_inline(b, end, quoted ? NULL : argv, cap);
    if (count < 0) return fail(r, "unbalanced quotes in request");
    r->need_argc = (size_t)count;
    r->off = r->scanned + 1;
    if ((size_t)count > cap) return RG_NEED_MORE;
    if (quoted) split_inline(b, end, argv, cap);
    r->argc = (size_t)count;
    return RG_OK;
}

/* An inline request at b[0..n). Each byte is searched once for the LF and once for a NUL before
 * it (which stalls the line). The limit applies to the bytes before the LF however they
 * arrived: Redis checks it whenever one of its reads ends inside a line, so a line over the limit
 * arriving in one write is refused too (but for one just over it that happens to end a read). */
static rg_status read_inline(rg_req *r, char *b, size_t n, rg_view *argv, size_t cap) {
    if (!r->stalled) {
        const char *nl = memchr(b + r->scanned, '\n', n - r->scanned);
        const size_t at = nl ? (size_t)(nl - b) : n;
        r->stalled = memchr(b + r->scanned, '\0', at - r->scanned) != NULL;
        r->scanned = at;
        if (nl && !r->stalled && at <= r->lim.max_inline) return split_line(r, b, argv, cap);
    }
    /* no whole line: n covers a line over the limit too, as it ends past the line */
    if (n > r->lim.max_inline) return fail(r, "too big inline request");
    return RG_NEED_MORE;
}

static rg_status read_multibulk(rg_req *r, char *b, size_t n, rg_view *argv, size_t cap) {
    if (r->stalled) return wait_stalled(r, n);
    if (r->phase == PH_COUNT) {
        const rg_status st = read_count(r, b, n);
        if (st != RG_OK) return st;
    }
    if (r->need_argc > cap) {
        r->resumed = true;
        return RG_NEED_MORE;
    }
    const rg_status st = read_bulks(r, b, n, argv);
    if (st == RG_NEED_MORE) r->resumed = true;
    if (st == RG_OK && r->resumed) rebuild_argv(b, n, r->argc, argv);
    return st;
}

rg_status rg_req_next(rg_req *r, char *buf, size_t len, size_t *pos, rg_view *argv, size_t cap,
                      size_t *argc) {
    *argc = 0;
    for (;;) {
        if (r->err != RG_OK) return r->err;
        char *b = buf + *pos;
        const size_t n = len - *pos;
        if (r->phase == PH_IDLE && !r->inline_req) {
            if (n == 0) return RG_NEED_MORE;
            if (b[0] == '*') {
                r->phase = PH_COUNT;
            } else {
                r->inline_req = true;
            }
        }
        const rg_status st =
            r->inline_req ? read_inline(r, b, n, argv, cap) : read_multibulk(r, b, n, argv, cap);
        if (st == RG_NEED_MORE && r->need_argc > cap) *argc = r->need_argc;
        if (st != RG_OK) return st;
        *pos += r->off;
        r->consumed += r->off;
        const size_t got = r->argc;
        reset_request(r);
        if (got > 0) {
            *argc = got;
            return RG_OK;
        }
    }
}
