/* respgen runtime: incremental, zero-copy, allocation-free RESP2/RESP3 decoder.
 *
 * The reader turns bytes into a flat stream of events, one per value, aggregate header, aggregate
 * end or string chunk. It never allocates: all of its state, including one frame per open
 * aggregate, lives inside the rg_reader the caller provides.
 *
 * Pull style (no indirect call per value):
 *
 *     rg_reader r;  rg_reader_init(&r, NULL);
 *     size_t pos = 0;  rg_event ev;  rg_status st;
 *     while ((st = rg_next(&r, buf, len, &pos, &ev)) == RG_OK) use(&ev);
 *     if (st == RG_NEED_MORE) keep buf[pos..len), append more bytes, call again from there;
 *     else report rg_reader_error(&r, &offset) and drop the connection.
 *
 * The same events come from rg_next_batch (many per call, into an array), rg_feed (a callback per
 * event) and rg_feed_inline (rg_feed with the callback inlined: the fastest, for hot callers).
 *
 * Ownership and input rule: rg_next consumes whole tokens only and advances *pos past them. Bytes
 * before *pos are consumed and the reader never looks at them again. Bytes from *pos on are not:
 * the next call must present them again at the start of its unread input, followed by new bytes.
 * A partial token is never re-scanned unless it is short: a number line (at most RG_NUM_LINE_MAX
 * bytes), a '+' line of which fewer than RG_NUM_LINE_MAX bytes have come, or a '$' bulk of at most
 * RG_NUM_LINE_MAX bytes in all may be left unconsumed and read again from its start (so a short
 * bulk's header may be consumed only with its payload). Of anything longer the reader remembers
 * how far it looked (string lines) or consumes the header and then waits for the payload alone.
 *
 * Views (ev->str, ev->fmt) point into the buffer passed to the call that produced them and stay
 * valid as long as the caller keeps those bytes; the decoder never copies payload bytes. A caller
 * that wants every view of a whole reply at once keeps the bytes from the reply's first event to
 * its ev->complete event.
 *
 * Big payloads: bulk, verbatim and blob-error payloads of at least limits.stream_min bytes, and
 * every RESP3 streamed string ($?), come as RG_EV_STR_BEGIN, one RG_EV_STR_CHUNK per piece as it
 * arrives (consumed at once, so the caller never holds the whole payload), and RG_EV_STR_END.
 */
#ifndef RG_DEC_H
#define RG_DEC_H

#include "rg.h"

#include <stdbool.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Capacity of the frame stack, fixed at compile time; limits.max_depth may lower it. */
#ifndef RG_MAX_DEPTH
#define RG_MAX_DEPTH 32
#endif

/* Longest line of a number-only type (':' '$' '*' '%' '~' '>' '|' ';' '#' '_'), CRLF included. */
#define RG_NUM_LINE_MAX 32
/* Longest double line (','), CRLF included. */
#define RG_DOUBLE_LINE_MAX 128

#define RG_DEFAULT_MAX_BULK     (512u * 1024u * 1024u)
#define RG_DEFAULT_MAX_ELEMENTS ((uint64_t)INT32_MAX)
#define RG_DEFAULT_MAX_LINE     (64u * 1024u * 1024u)

/* Event kinds. Scalars and aggregate headers carry the RESP type they were read from. */
typedef enum rg_kind {
    RG_EV_NONE = 0,
    RG_EV_SIMPLE,    /* +  str */
    RG_EV_ERROR,     /* -  str */
    RG_EV_INT,       /* :  i */
    RG_EV_BULK,      /* $  str */
    RG_EV_NULL,      /* _, $-1, *-1: sub is RG_EV_NULL, RG_EV_BULK or RG_EV_ARRAY */
    RG_EV_BOOL,      /* #  b */
    RG_EV_DOUBLE,    /* ,  d, and str holds the text as sent */
    RG_EV_BIGNUM,    /* (  str: the digits with optional sign */
    RG_EV_BLOBERR,   /* !  str */
    RG_EV_VERBATIM,  /* =  str: text after the format; fmt: the 3-byte format */
    RG_EV_ARRAY,     /* *  i: element count, -1 when streamed (*?) */
    RG_EV_MAP,       /* %  i: pair count, -1 when streamed */
    RG_EV_SET,       /* ~  i: element count, -1 when streamed */
    RG_EV_PUSH,      /* >  i: element count */
    RG_EV_ATTR,      /* |  i: pair count; the pairs follow, then RG_EV_END, then the value the
                          attribute annotates, at the depth of this event */
    RG_EV_END,       /* end of the aggregate opened at this depth; sub is its kind */
    RG_EV_STR_BEGIN, /* start of a chunked string; sub: BULK, VERBATIM or BLOBERR;
                        i: bytes the chunks will hold (for verbatim, without the "txt:"
                        prefix), -1 when streamed ($?); fmt set for verbatim */
    RG_EV_STR_CHUNK, /* str: the next piece of the payload */
    RG_EV_STR_END,   /* end of the chunked string; sub as in STR_BEGIN */
    RG_EV_KIND_COUNT
} rg_kind;

typedef struct rg_event {
    uint8_t kind;   /* rg_kind */
    uint8_t sub;    /* rg_kind: see RG_EV_NULL, RG_EV_END, RG_EV_STR_* */
    bool complete;  /* this event completes a top-level value */
    uint32_t depth; /* number of aggregates enclosing this event */
    union {
        int64_t i; /* INT; aggregate counts; STR_BEGIN length */
        double d;  /* DOUBLE */
        bool b;    /* BOOL */
    } u;
    rg_view str; /* SIMPLE ERROR BULK DOUBLE BIGNUM BLOBERR VERBATIM STR_CHUNK */
    rg_view fmt; /* VERBATIM and its STR_BEGIN */
} rg_event;

/* Limits checked at header time, before the reader waits for a single payload byte, so no peer
 * can make a caller reserve memory it has not sent. */
typedef struct rg_limits {
    uint32_t max_depth;    /* open aggregates at once, 1..RG_MAX_DEPTH; default RG_MAX_DEPTH */
    uint64_t max_bulk;     /* bytes in one bulk, verbatim, blob error or string chunk */
    uint64_t max_elements; /* elements in one aggregate, streamed or not; a map's pairs count 2 */
    uint64_t max_line;     /* bytes in a simple string, error or big number line, CRLF included */
    uint64_t stream_min;   /* payloads this long or longer come in chunks; default UINT64_MAX */
} rg_limits;

/* One open aggregate. */
typedef struct rg_frame {
    uint64_t left; /* elements still to come; a streamed aggregate counts down from max_elements */
    uint8_t kind;  /* rg_kind of the aggregate */
    bool streamed; /* ended by '.', not by a count */
} rg_frame;

/* The whole decoder state: fixed size, no pointers to the heap, safe to copy between calls
 * only while no views are held. Fields are private; use the functions below. */
typedef struct rg_reader {
    uint8_t status;   /* rg_status: RG_OK or a sticky error */
    uint8_t tok;      /* what the next bytes are (private state) */
    uint8_t pay_kind; /* rg_kind of the payload being read */
    bool in_sstr;     /* inside a RESP3 streamed string ($?) */
    bool attr_done;   /* an attribute ended and its value has not begun */
    uint32_t depth;
    uint64_t need;    /* payload bytes still to come */
    uint64_t scanned; /* bytes of the current string line already looked at */
    uint64_t offset;  /* stream offset of the byte at *pos */
    uint64_t err_offset;
    const char *err_msg;
    uint64_t values;        /* top-level values completed */
    uint64_t fast_bulk_end; /* bulks shorter than this the fast path reads whole */
    rg_limits limits;
    rg_frame stack[RG_MAX_DEPTH];
} rg_reader;

/* The defaults named above. */
rg_limits rg_limits_default(void);

/* Prepares r. limits may be NULL for the defaults; a max_depth of 0 or above RG_MAX_DEPTH is
 * taken as RG_MAX_DEPTH. r is caller-owned; nothing to free. */
void rg_reader_init(rg_reader *r, const rg_limits *limits);

/* Decodes the next event from buf[*pos..len). On RG_OK fills *ev and advances *pos past what the
 * event consumed (possibly nothing, e.g. for RG_EV_END). On RG_NEED_MORE *pos stays at the start
 * of the partial token. On an error *pos stays at the start of the bad token and the reader keeps
 * returning that error; rg_reader_error tells where and why. buf may be NULL when len is 0. */
rg_status rg_next(rg_reader *r, const char *buf, size_t len, size_t *pos, rg_event *ev);

/* rg_next for hot loops: decodes up to max events into evs[0..n) and returns n. *st is RG_OK
 * when max events were decoded, otherwise the status that stopped the batch (RG_NEED_MORE or an
 * error), exactly as rg_next would have returned it after the n-th event. */
size_t rg_next_batch(rg_reader *r, const char *buf, size_t len, size_t *pos, rg_event *evs,
                     size_t max, rg_status *st);

/* Per-event callback: return 0 to go on, anything else to pause (rg_feed returns RG_PAUSED). */
typedef int (*rg_event_fn)(void *ud, const rg_event *ev);

/* Calls fn for every event in buf[*pos..len) until the input ends (RG_NEED_MORE), fn pauses
 * (RG_PAUSED, *pos past the paused event), or an error. Same input rule as rg_next. While fn runs,
 * rg_reader_offset, rg_reader_values and rg_reader_idle already count its event; *pos is written
 * when rg_feed returns. fn must not decode with r (no rg_next, rg_feed... on it). */
rg_status rg_feed(rg_reader *r, const char *buf, size_t len, size_t *pos, rg_event_fn fn, void *ud);

/* rg_feed for hot callers, defined below: when fn is a function the compiler can see (typically a
 * static one named at the call), it is inlined into the decoding loop, so there is no indirect
 * call and no event in memory per value. Same contract and events as rg_feed. It costs a few KiB
 * of code per call site. */
static inline rg_status rg_feed_inline(rg_reader *r, const char *buf, size_t len, size_t *pos,
                                       rg_event_fn fn, void *ud);

/* The sticky error's message (static storage; NULL when there is none) and, when offset is not
 * NULL, its byte offset in the whole stream. */
const char *rg_reader_error(const rg_reader *r, uint64_t *offset);

/* True when no value is partly decoded: the stream may end here. Bytes that RG_NEED_MORE left
 * unconsumed (*pos < len) are not the reader's: whether it is idle then does not tell whether they
 * start a value. */
bool rg_reader_idle(const rg_reader *r);

/* Stream offset of the next unconsumed byte (the total consumed so far). */
static inline uint64_t rg_reader_offset(const rg_reader *r) {
    return r->offset;
}

/* Top-level values completed so far. */
static inline uint64_t rg_reader_values(const rg_reader *r) {
    return r->values;
}

/* The RESP type byte of a kind ('*' for RG_EV_ARRAY), 0 for kinds without one. */
char rg_kind_byte(rg_kind k);
/* A static lower-case name of a kind ("array"). Never NULL. */
const char *rg_kind_name(rg_kind k);

/* ---- inline decoding ------------------------------------------------------------------------ */

#if defined(__GNUC__) || defined(__clang__)
#define RG_FAST_INLINE   __attribute__((always_inline)) static inline
#define RG_FAST_RARE(x)  __builtin_expect(!!(x), 0)
#define RG_FAST_OFTEN(x) __builtin_expect(!!(x), 1)
#else
#define RG_FAST_INLINE   static inline
#define RG_FAST_RARE(x)  (x)
#define RG_FAST_OFTEN(x) (x)
#endif

/* Internal: rg_next, rg_next_batch, rg_feed and rg_feed_inline share one fast path, for complete
 * well-formed tokens of the common types ('$' '*' ':' '+' and the end of a counted aggregate),
 * read with as few checks as their grammar allows. Everything else (rare types, limits, errors,
 * most partial input) goes to the general path inside rg_next, so the two can never disagree on
 * what they accept. The one answer the fast path gives on its own is RG_NEED_MORE for a short
 * token cut by the end of the input, where the general path says the same (for a bulk, after
 * consuming its header).
 *
 * The hot part of the reader's state is copied into an rg_fast (rg_fast_load), kept in registers
 * by the decoding loops, and written back (rg_fast_save) before the reader is left. Tokens with
 * at least RG_FAST_ROOM bytes after their start are read by a copy of the code without bounds
 * checks (`roomy`): no fast token reaches further than that, except a bulk payload, which is
 * checked. Names starting with rg_fast_ / RG_FAST_ are not API. */

enum {
    RG_FAST_EVENT, /* filled the event */
    RG_FAST_MORE,  /* the answer is RG_NEED_MORE, and nothing was consumed */
    RG_FAST_SLOW   /* the next event is for the general path */
};

#define RG_FAST_ROOM 64

/* An event's first 8 bytes (kind, sub, complete, pad, depth) as a little-endian number, so that
 * they are written with one store. A head holds depth and complete; the kinds are or-ed in. */
#define RG_FAST_COMPLETE ((uint64_t)1 << 16)

typedef struct rg_fast {
    bool packed;       /* constant: the events are in memory, so their head is written in one store
                        * (a local event is better written field by field: then it can live in
                        * registers) */
    const char *p;     /* the next token */
    const char *e;     /* the end of the input */
    const char *roomy; /* tokens before this have at least RG_FAST_ROOM bytes */
    const char *buf;   /* the start of the input */
    uint64_t anchor;   /* the stream offset of p is anchor + (uintptr_t)p */
    uint64_t left;     /* elements still due in the innermost aggregate; 1 at depth 0 */
    uint64_t head;     /* rg_fast_head(r->depth) */
} rg_fast;

static inline uint64_t rg_fast_head(uint32_t depth) {
    return (uint64_t)depth << 32 | (depth ? 0 : RG_FAST_COMPLETE);
}

RG_FAST_INLINE void rg_fast_put_head(const rg_fast *f, rg_event *ev, uint64_t head, unsigned kind,
                                     unsigned sub) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (f->packed) {
        head |= kind | sub << 8;
        memcpy(ev, &head, sizeof head);
        return;
    }
#endif
    ev->kind = (uint8_t)kind;
    ev->sub = (uint8_t)sub;
    ev->complete = (head & RG_FAST_COMPLETE) != 0;
    ev->depth = (uint32_t)(head >> 32);
    if (!f->packed) {
        /* A local event gets every field, so that none a handler reads is undefined (a compiler
         * that inlines the handler would rightly warn); the ones its kind defines are set
         * after this, and the rest cost nothing once the event lives in registers. */
        ev->u.i = 0;
        ev->str.ptr = ev->fmt.ptr = NULL;
        ev->str.len = ev->fmt.len = 0;
    }
}

/* The fast path never sets attr_done; by starting only when it is clear, it never has to clear
 * it either. tok 0 is "the next bytes start a token". */
static inline bool rg_fast_ready(const rg_reader *r) {
    return (r->status | r->tok | r->attr_done) == 0;
}

/* pos < len, so buf is not NULL. */
RG_FAST_INLINE rg_fast rg_fast_load(const rg_reader *r, const char *buf, size_t len, size_t pos,
                                    bool packed) {
    const uint32_t depth = r->depth;
    const char *const p = buf + pos;
    const rg_fast f = {packed,
                       p,
                       buf + len,
                       len - pos >= RG_FAST_ROOM ? buf + len - RG_FAST_ROOM + 1 : p,
                       buf,
                       r->offset - (uint64_t)(uintptr_t)p,
                       depth ? r->stack[depth - 1].left : 1,
                       rg_fast_head(depth)};
    return f;
}

/* What the reader's getters could be asked between two events (depth and values are kept in the
 * reader as they change). */
static inline void rg_fast_sync(const rg_fast *f, rg_reader *r) {
    r->offset = f->anchor + (uint64_t)(uintptr_t)f->p;
}

RG_FAST_INLINE void rg_fast_save(const rg_fast *f, rg_reader *r, size_t *pos) {
    const uint32_t depth = r->depth;
    rg_fast_sync(f, r);
    *pos = (size_t)(f->p - f->buf);
    if (depth) r->stack[depth - 1].left = f->left;
}

/* Little-endian loads of n bytes. On a little-endian machine a memcpy, which keeps the compiler
 * from also loading (and spilling) the single bytes; elsewhere bytewise. */
static inline uint64_t rg_fast_bytes(const char *p, unsigned n) {
    uint64_t v = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(&v, p, n);
#else
    for (unsigned i = 0; i < n; i++) v |= (uint64_t)(unsigned char)p[i] << (8 * i);
#endif
    return v;
}

static inline uint64_t rg_fast_load64(const char *p) {
    return rg_fast_bytes(p, 8);
}

static inline uint32_t rg_fast_load32(const char *p) {
    return (uint32_t)rg_fast_bytes(p, 4);
}

static inline uint16_t rg_fast_load16(const char *p) {
    return (uint16_t)rg_fast_bytes(p, 2);
}

#define RG_FAST_CRLF  ('\r' | '\n' << 8)
#define RG_FAST_ONES  ((uint64_t)0x0101010101010101u)
#define RG_FAST_HIGHS ((uint64_t)0x8080808080808080u)

static inline bool rg_fast_crlf(const char *p) {
    return rg_fast_load16(p) == RG_FAST_CRLF;
}

static inline unsigned rg_fast_digit(char c) {
    return (unsigned)(unsigned char)c - '0';
}

/* Index of the lowest set bit of x != 0. */
static inline unsigned rg_fast_ctz(uint64_t x) {
#if defined(__GNUC__) || defined(__clang__)
    return (unsigned)__builtin_ctzll(x);
#else
    unsigned n = 0;
    for (; !(x & 1); x >>= 1) n++;
    return n;
#endif
}

/* The value of 8 digits (0..9, not ASCII) in the bytes of x, the first in the lowest byte: pairs,
 * then pairs of pairs, multiplied into place. */
static inline uint64_t rg_fast_eight_digits(uint64_t x) {
    x = x * 10 + (x >> 8);
    return ((x & 0x000000ff000000ffu) * (100 + (1000000ull << 32)) +
            (x >> 16 & 0x000000ff000000ffu) * (1 + (10000ull << 32))) >>
           32;
}

/* Reads 1 to 6 digits followed by CRLF at p (8 bytes readable) into *v and returns the byte after
 * the LF, all at once: a byte is a digit when it is 0..9 after the xor, and a carry from a lower
 * byte can only reach bytes after the first non-digit. NULL when that is not what is there. */
RG_FAST_INLINE const char *rg_fast_swar_num(const char *p, uint64_t *v) {
    const uint64_t w = rg_fast_load64(p), x = w ^ (RG_FAST_ONES * '0');
    const uint64_t stops = (x | (x + RG_FAST_ONES * (0x80 - 10))) & RG_FAST_HIGHS;
    const unsigned bits = stops ? rg_fast_ctz(stops) - 7 : 64; /* 8 x the digits */
    if (RG_FAST_RARE(bits - 8 >= 48 || (w >> bits & 0xffff) != RG_FAST_CRLF)) return NULL;
    *v = rg_fast_eight_digits(x << (64 - bits));
    return p + bits / 8 + 2;
}

/* Reads 1 to 18 digits followed by CRLF at p (before e) into *v and returns the byte after the
 * LF, or NULL for anything else. 18 digits cannot overflow, so the loop needs no check. */
RG_FAST_INLINE const char *rg_fast_loop_num(const char *p, const char *e, uint64_t *v) {
    const char *const first = p;
    uint64_t acc = 0;
    for (; p < e && rg_fast_digit(*p) <= 9; p++) acc = acc * 10 + rg_fast_digit(*p);
    if (p == first || p - first > 18 || e - p < 2 || !rg_fast_crlf(p)) return NULL;
    *v = acc;
    return p + 2;
}

/* rg_fast_loop_num, tried the quickest way first. Word-wide reads are for roomy tokens only: the
 * end of the input is where a caller has often just copied bytes in, and a load that spans two of
 * those stores cannot take its bytes from the store buffer and waits (D4 copied is faster so). */
RG_FAST_INLINE const char *rg_fast_num(const char *p, const char *e, bool roomy, uint64_t *v) {
    const char *const end = roomy ? rg_fast_swar_num(p, v) : NULL;
    return end ? end : rg_fast_loop_num(p, e, v);
}

/* The same for lengths and counts, which mostly have one or two digits. */
RG_FAST_INLINE const char *rg_fast_len(const char *p, const char *e, bool roomy, uint64_t *v) {
    if ((roomy || e - p >= 4) && rg_fast_digit(p[0]) <= 9) {
        if (rg_fast_crlf(p + 1)) {
            *v = rg_fast_digit(p[0]);
            return p + 3;
        }
        if (RG_FAST_OFTEN(rg_fast_digit(p[1]) <= 9 && rg_fast_crlf(p + 2))) {
            *v = rg_fast_digit(p[0]) * 10 + rg_fast_digit(p[1]);
            return p + 4;
        }
    }
    return rg_fast_num(p, e, roomy, v);
}

/* After rg_fast_num failed on the digits at p: RG_FAST_MORE when the input ends inside a number
 * line that is well-formed so far and short (so it cannot yet be out of range or too long). */
static inline int rg_fast_num_cut(const char *p, const char *e) {
    const char *q = p;
    while (q < e && rg_fast_digit(*q) <= 9) q++;
    if (q - p > 18) return RG_FAST_SLOW;
    return q == e || (q + 1 == e && *q == '\r' && q != p) ? RG_FAST_MORE : RG_FAST_SLOW;
}

/* A '$' bulk at p whose payload (at s, n bytes) is not all there: RG_FAST_MORE when the whole
 * token is short, so reading its header again costs little and a caller never needs more room
 * for it than for a number line, and the bytes so far are right. */
static inline int rg_fast_bulk_cut(const char *p, const char *s, const char *e, uint64_t n) {
    if ((uint64_t)(s - p) + n + 2 > RG_NUM_LINE_MAX) return RG_FAST_SLOW;
    return (size_t)(e - s) > n && s[n] != '\r' ? RG_FAST_SLOW : RG_FAST_MORE;
}

/* A '+' line at p that the input ends inside, its first control byte at q (NULL: none in what
 * was looked at): RG_FAST_MORE when the token so far is short (so reading it again costs little)
 * and well-formed, and the line cannot be over max_line yet, as the general path would say. */
static inline int rg_fast_line_cut(const char *p, const char *q, const char *e, uint64_t max_line) {
    const char *const stop = q ? q : e;
    if (e - p >= RG_NUM_LINE_MAX || (stop != e && (stop + 1 != e || *stop != '\r')))
        return RG_FAST_SLOW;
    return (uint64_t)(stop - p) + 2 <= max_line ? RG_FAST_MORE : RG_FAST_SLOW;
}

/* A token of fewer than 4 bytes: the end of the input, unless it is junk. */
static inline int rg_fast_cut(const char *p, const char *e, uint64_t max_line) {
    if (p == e) return RG_FAST_MORE;
    if (*p == '+') {
        const char *q = p + 1;
        while (q < e && (unsigned char)*q >= 0x0e) q++;
        return rg_fast_line_cut(p, q < e ? q : NULL, e, max_line);
    }
    if (*p != '$' && *p != ':' && *p != '*') return RG_FAST_SLOW;
    p++;
    return rg_fast_num_cut(p + (p < e && *p == '-'), e);
}

/* The first byte below 0x0e (CR, LF and some other controls) in the 32 bytes at q (before e), or
 * NULL; a line with another control byte before its CR is left to the general path. Roomy, a word
 * at a time (a borrow only leaves a byte that matched, so the first match is exact); else a byte
 * at a time, as in rg_fast_num. */
RG_FAST_INLINE const char *rg_fast_line_end(const char *q, const char *e, bool roomy) {
    if (roomy) {
        for (size_t i = 0; i < 32; i += 8) {
            const uint64_t w = rg_fast_load64(q + i);
            const uint64_t m = (w - RG_FAST_ONES * 0x0e) & ~w & RG_FAST_HIGHS;
            if (m) return q + i + rg_fast_ctz(m) / 8;
        }
        return NULL;
    }
    const size_t n = e - q < 32 ? (size_t)(e - q) : 32;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)q[i] < 0x0e) return q + i;
    return NULL;
}

/* A scalar: booked into its parent frame, consumed, described. */
RG_FAST_INLINE int rg_fast_scalar(rg_fast *f, rg_reader *r, rg_event *ev, unsigned kind,
                                  unsigned sub, int64_t i, const char *str, size_t len,
                                  const char *end) {
    if (f->head & RG_FAST_COMPLETE)
        r->values++;
    else
        f->left--;
    f->p = end;
    rg_fast_put_head(f, ev, f->head, kind, sub);
    ev->u.i = i;
    ev->str.ptr = str;
    ev->str.len = len;
    return RG_FAST_EVENT;
}

/* "$-1": the null bulk. */
RG_FAST_INLINE int rg_fast_null(rg_fast *f, rg_reader *r, rg_event *ev, bool roomy) {
    const char *const p = f->p;
    const uint32_t want = '$' | '-' << 8 | '1' << 16 | (uint32_t)'\r' << 24;
    if (!roomy && f->e - p < 5) return rg_fast_load32(p) == want ? RG_FAST_MORE : RG_FAST_SLOW;
    if (RG_FAST_RARE(rg_fast_load32(p) != want || p[4] != '\n')) return RG_FAST_SLOW;
    return rg_fast_scalar(f, r, ev, RG_EV_NULL, RG_EV_BULK, 0, p, 0, p + 5);
}

RG_FAST_INLINE int rg_fast_bulk(rg_fast *f, rg_reader *r, rg_event *ev, bool roomy) {
    const char *const p = f->p, *const e = f->e;
    uint64_t n;
    const char *const s = rg_fast_len(p + 1, e, roomy, &n);
    if (!s) return p[1] == '-' ? rg_fast_null(f, r, ev, roomy) : rg_fast_num_cut(p + 1, e);
    if (RG_FAST_RARE(n >= r->fast_bulk_end)) return RG_FAST_SLOW;
    /* A roomy header is at most 21 bytes long. */
    if (RG_FAST_RARE(!(roomy && n <= RG_FAST_ROOM - 23) && (size_t)(e - s) < n + 2))
        return rg_fast_bulk_cut(p, s, e, n);
    if (RG_FAST_RARE(!rg_fast_crlf(s + n))) return RG_FAST_SLOW;
    return rg_fast_scalar(f, r, ev, RG_EV_BULK, RG_EV_BULK, (int64_t)n, s, (size_t)n, s + n + 2);
}

RG_FAST_INLINE int rg_fast_int(rg_fast *f, rg_reader *r, rg_event *ev, bool roomy) {
    const char *const p = f->p;
    const bool neg = p[1] == '-';
    uint64_t v;
    const char *const end = rg_fast_num(p + 1 + neg, f->e, roomy, &v);
    if (RG_FAST_RARE(!end)) return rg_fast_num_cut(p + 1 + neg, f->e);
    return rg_fast_scalar(f, r, ev, RG_EV_INT, RG_EV_INT, neg ? -(int64_t)v : (int64_t)v, p, 0,
                          end);
}

RG_FAST_INLINE int rg_fast_simple(rg_fast *f, rg_reader *r, rg_event *ev, bool roomy) {
    const char *const p = f->p, *const e = f->e;
    const char *const q = rg_fast_line_end(p + 1, e, roomy);
    if (RG_FAST_OFTEN(q && (roomy || e - q >= 2) && rg_fast_crlf(q) &&
                      (uint64_t)(q - p) + 2 <= r->limits.max_line))
        return rg_fast_scalar(f, r, ev, RG_EV_SIMPLE, RG_EV_SIMPLE, 0, p + 1, (size_t)(q - p - 1),
                              q + 2);
    return roomy ? RG_FAST_SLOW : rg_fast_line_cut(p, q, e, r->limits.max_line);
}

/* A counted array. */
RG_FAST_INLINE int rg_fast_array(rg_fast *f, rg_reader *r, rg_event *ev, bool roomy) {
    const uint32_t depth = r->depth;
    uint64_t n;
    const char *const end = rg_fast_len(f->p + 1, f->e, roomy, &n);
    if (RG_FAST_RARE(!end)) return rg_fast_num_cut(f->p + 1, f->e);
    if (RG_FAST_RARE(n > r->limits.max_elements || depth >= r->limits.max_depth))
        return RG_FAST_SLOW;
    if (depth) r->stack[depth - 1].left = f->left;
    r->stack[depth].left = n;
    r->stack[depth].kind = RG_EV_ARRAY;
    r->stack[depth].streamed = false;
    r->depth = depth + 1;
    rg_fast_put_head(f, ev, f->head & ~RG_FAST_COMPLETE, RG_EV_ARRAY, RG_EV_ARRAY);
    ev->u.i = (int64_t)n;
    f->head = rg_fast_head(depth + 1);
    f->left = n;
    f->p = end;
    return RG_FAST_EVENT;
}

/* The end of a counted aggregate, booked into its parent. */
RG_FAST_INLINE int rg_fast_end(rg_fast *f, rg_reader *r, rg_event *ev) {
    const rg_frame *const top = &r->stack[r->depth - 1];
    /* A streamed aggregate at its element limit, or an attribute: for the general path. */
    if (top->streamed || top->kind == RG_EV_ATTR) return RG_FAST_SLOW;
    const uint32_t depth = --r->depth;
    f->head = rg_fast_head(depth);
    if (depth) {
        f->left = r->stack[depth - 1].left - 1;
    } else {
        f->left = 1;
        r->values++;
    }
    rg_fast_put_head(f, ev, f->head, RG_EV_END, top->kind);
    return RG_FAST_EVENT;
}

RG_FAST_INLINE int rg_fast_typed(rg_fast *f, rg_reader *r, rg_event *ev, bool roomy) {
    const char c = f->p[0];
    if (c == '$') return rg_fast_bulk(f, r, ev, roomy);
    if (c == ':') return rg_fast_int(f, r, ev, roomy);
    if (c == '+') return rg_fast_simple(f, r, ev, roomy);
    if (c == '*') return rg_fast_array(f, r, ev, roomy);
    return RG_FAST_SLOW;
}

/* One event at f->p, or why not. */
RG_FAST_INLINE int rg_fast_token(rg_fast *f, rg_reader *r, rg_event *ev) {
    if (RG_FAST_RARE(f->left == 0)) return rg_fast_end(f, r, ev);
    if (RG_FAST_OFTEN(f->p < f->roomy)) return rg_fast_typed(f, r, ev, true);
    if (f->e - f->p < 4) return rg_fast_cut(f->p, f->e, r->limits.max_line);
    return rg_fast_typed(f, r, ev, false);
}

/* The general path for the events the fast path leaves: rg_next, or inside rg_dec.c the part of it
 * after its own fast attempt. */
typedef rg_status (*rg_fast_general_fn)(rg_reader *r, const char *buf, size_t len, size_t *pos,
                                        rg_event *ev);

/* The loop of rg_feed and rg_feed_inline; packed as in rg_fast. */
RG_FAST_INLINE rg_status rg_fast_feed(rg_reader *r, const char *buf, size_t len, size_t *pos,
                                      rg_event_fn fn, void *ud, bool packed,
                                      rg_fast_general_fn general) {
    for (;;) {
        if (rg_fast_ready(r) && *pos < len) {
            rg_fast f = rg_fast_load(r, buf, len, *pos, packed);
            int res;
            for (;;) {
                /* An event per value, so that unpacked it can live in registers. */
                rg_event ev;
                if (RG_FAST_RARE((res = rg_fast_token(&f, r, &ev)) != RG_FAST_EVENT)) break;
                rg_fast_sync(&f, r);
                if (RG_FAST_RARE(fn(ud, &ev))) {
                    rg_fast_save(&f, r, pos);
                    return RG_PAUSED;
                }
            }
            rg_fast_save(&f, r, pos);
            if (res == RG_FAST_MORE) return RG_NEED_MORE;
        }
        /* With its own event, so that the fast one never has its address taken. */
        rg_event slow;
        const rg_status st = general(r, buf, len, pos, &slow);
        if (st != RG_OK) return st;
        if (fn(ud, &slow)) return RG_PAUSED;
    }
}

/* See the declaration above. */
RG_FAST_INLINE rg_status rg_feed_inline(rg_reader *r, const char *buf, size_t len, size_t *pos,
                                        rg_event_fn fn, void *ud) {
    return rg_fast_feed(r, buf, len, pos, fn, ud, false, rg_next);
}

#ifdef __cplusplus
}
#endif

#endif
