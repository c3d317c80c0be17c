/* respgen runtime, internal: the decoder's inline fast path (rg_feed_inline and the fast path of
 * rg_next, rg_next_batch and rg_feed). Included at the end of rg_dec.h, which is the API; nothing
 * here is. Installed beside rg_dec.h because rg_feed_inline is compiled into its callers.
 */
#ifndef RG_DEC_INLINE_H
#define RG_DEC_INLINE_H

#include "rg_dec.h"

#ifdef __cplusplus
extern "C" {
#endif

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

/* The fast path never sets RG_SLOW_ATTR; by starting only when it is clear, it never has to clear
 * it either. It reads and writes frames in stack[] only: it never starts deeper than that
 * (RG_SLOW_DEEP) and opens no aggregate past it (fast_depth). tok 0 is "the next bytes start a
 * token". */
static inline bool rg_fast_ready(const rg_reader *r) {
    return (r->status | r->tok | r->slow) == 0;
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
    if (RG_FAST_RARE(n > r->limits.max_elements || depth >= r->fast_depth)) return RG_FAST_SLOW;
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
