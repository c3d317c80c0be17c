/* respgen runtime: typed reply decoding, driven by generated tables.
 *
 * For every command respgen emits a static const table of rg_rnode (what each value of the reply
 * may be and where it goes in the command's result struct) and a one-line entry point that calls
 * rg_reply_decode with it. This file is the one engine that walks those tables while rg_next
 * (rg_dec.h) drives the bytes: there is no per-command parsing code.
 *
 * Both protocol versions: a node accepts every RESP kind either version sends for its shape
 * (a string: bulk, simple or verbatim; a double: ',' or the RESP2 bulk text; a map: '%' or the
 * RESP2 flat array of key, value, ...; a list of pairs: an array of 2-element arrays or the
 * flat RESP2 array; a null: '_' or $-1 or *-1).
 *
 * Ownership and lifetimes:
 * - The rg_reply_reader is caller-owned, fixed-size, holds no heap memory: nothing to free.
 * - Views in a result (rg_view members) point into the caller's input buffer. A reply decoded
 *   in one call stores them directly. A reply that needs more calls is decoded again from its
 *   first byte with views kept as offsets from that byte, turned into pointers when the reply
 *   completes, relative to the buffer of the completing call. So the caller may move or compact
 *   its buffer between calls, but must keep every byte from the reply's first byte (stream
 *   offset rg_reply_start(), which may be before *pos) until the call that returns a final
 *   status; afterwards the views live as long as those bytes stay where they are.
 * - Variable-length parts (arrays, maps) go to caller storage set with rg_reply_set_storage:
 *   the engine carves each array from it when the array's header arrives (aligned, zeroed) and
 *   stores `items` and `count` in the result. Results point into that storage and stay valid
 *   until the next reply is decoded with it. When it is too small every value is still checked
 *   and counted, arrays that did not fit have items == NULL, and the call returns
 *   RG_SHORT without consuming the reply: *pos is put back at the reply's first byte and
 *   rg_reply_needed() tells the bytes needed. Size query: decode with no storage, allocate
 *   rg_reply_needed() bytes, decode again.
 * - Per-element callback instead of storage, for a reply that is a list at its root (an array,
 *   or pairs: one { key, value } per call): with rg_reply_set_each, each root element is decoded
 *   into one reused slot and handed to the callback (views already pointers) as soon as it
 *   completes; only one element's storage is needed. The result's root list then has
 *   items == NULL and its count.
 * - Pushes: a RESP3 push where a reply should start is RG_PUSH, nothing consumed; see
 *   rg_reply_decode_push and rg_reply_skip.
 * - Alternatives (RG_RS_ONEOF) are decided by the whole value; when the bytes at hand cannot tell
 *   yet, the header waits in the reader for the next call (docs/typed-replies.md).
 */
#ifndef RG_REPLY_H
#define RG_REPLY_H

#include "rg_dec.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* Accept sets: bit (1 << rg_kind) for every kind a node takes. */
#define RG_RA(k)    (1u << (k))
#define RG_RA_INT   RG_RA(RG_EV_INT)
#define RG_RA_NULL  RG_RA(RG_EV_NULL)
#define RG_RA_STR   (RG_RA(RG_EV_BULK) | RG_RA(RG_EV_SIMPLE) | RG_RA(RG_EV_VERBATIM))
#define RG_RA_CONST (RG_RA(RG_EV_BULK) | RG_RA(RG_EV_SIMPLE))
#define RG_RA_DBL   (RG_RA(RG_EV_DOUBLE) | RG_RA(RG_EV_BULK) | RG_RA(RG_EV_SIMPLE) | RG_RA_INT)
#define RG_RA_BOOL  (RG_RA(RG_EV_BOOL) | RG_RA_INT)
#define RG_RA_ARR   (RG_RA(RG_EV_ARRAY) | RG_RA(RG_EV_SET)) /* never '>': a push is no reply */
#define RG_RA_PAIRS (RG_RA(RG_EV_MAP) | RG_RA(RG_EV_ARRAY) | RG_RA(RG_EV_SET))
#define RG_RA_TUPLE RG_RA(RG_EV_ARRAY)
#define RG_RA_ANY   0xffffffffu

/* Shapes. */
enum {
    RG_RS_SCALAR, /* one scalar, stored as `store` says */
    RG_RS_ARRAY,  /* any number of values of child 0; result: { T *items; size_t count; } */
    RG_RS_PAIRS,  /* a map or list of pairs: children 0 (first) and 1 (second); result as ARRAY,
                     element { K key; V value; } at the children's offsets */
    RG_RS_TUPLE,  /* min..nchildren values (min 0: exactly nchildren), child i at its own offset
                     in the same struct; members of elements that did not come stay zero */
    RG_RS_ONEOF,  /* the first child that takes the whole value (its kind, count, constants,
                     numbers and every element, see "Alternatives" in docs/typed-replies.md); a
                     uint8_t at offset is set to the chosen child's index + 1 */
    RG_RS_ANY,    /* anything: an rg_view of the value's raw RESP bytes (decode it with rg_next) */
    RG_RS_OBJECT  /* fixed keys (HELLO, XINFO STREAM): a map, or the flat RESP2 array of name,
                     value, ...; children in pairs: 2j a key node (cval: the field's name), 2j + 1
                     the field's value node (offset in the same struct); a uint64_t at offset gets
                     bit j when field j arrived; unknown keys are skipped; at most 64 fields */
};

/* How a scalar is stored at its offset. */
enum {
    RG_RT_NONE, /* checked, not stored (nulls, constants without a field) */
    RG_RT_VIEW, /* rg_view; a null stores {NULL, 0} when the node accepts null */
    RG_RT_I64,  /* int64_t */
    RG_RT_DBL,  /* double, from ',' or the text of a bulk or simple string, or an integer */
    RG_RT_BOOL  /* bool, from '#' or the integers 0 and 1 */
};

/* One node of a generated table. Tables are static const data; nodes[0] is the reply's root. */
typedef struct rg_rnode {
    uint32_t accept;    /* RG_RA_* bit set */
    uint8_t shape;      /* RG_RS_* */
    uint8_t store;      /* RG_RT_*, for scalars */
    uint16_t child;     /* index of the first child in the table */
    uint16_t nchildren; /* children: ARRAY 1, PAIRS 2, TUPLE and ONEOF any */
    uint16_t min;       /* TUPLE: fewest elements (0: exactly nchildren) */
    uint32_t offset;    /* where the value goes, in the struct of the enclosing value */
    uint32_t elem_size; /* ARRAY and PAIRS: bytes of one element */
    const char *cval;   /* a constant the value must equal (string), or NULL */
} rg_rnode;

/* rg_rtable.flags: what the engine may take for granted about nodes[0] without looking. */
#define RG_RF_VIEW 1u /* a scalar view (RG_RT_VIEW) without a constant that takes a bulk (GET) */

/* A command's reply table. */
typedef struct rg_rtable {
    const char *command; /* for messages */
    const rg_rnode *nodes;
    uint32_t result_size; /* sizeof the result struct, zeroed when a reply begins */
    uint32_t flags;       /* RG_RF_*, set by the generator; 0: nothing taken for granted */
} rg_rtable;

/* What rg_reply_decode returns (rg_status, rg.h):
 *   RG_OK            *out holds the reply
 *   RG_NEED_MORE     the input ended inside the reply: call again with more bytes
 *   RG_SERVER_ERROR  the server answered an error: rg_reply_error's msg is its text
 *   RG_MISMATCH      the reply's shape is not the command's: rg_reply_error's msg names the
 *                    command, the path in the reply, expected and received; the whole reply was
 *                    consumed, *out is partial
 *   RG_SHORT         storage too small: nothing consumed, rg_reply_needed() bytes
 *   RG_LOST          the caller dropped bytes of the reply before it completed
 *   RG_PUSH          a RESP3 push ('>') came where the reply should start: nothing of it is
 *                    consumed (*pos is at its '>'; an attribute before it is dropped), the
 *                    pending reply is untouched; read the push with rg_reply_decode_push or
 *                    rg_reply_skip, then call again
 *   RG_ERR_PROTOCOL, RG_ERR_LIMIT, RG_ERR_DEPTH
 *                    the decoder's sticky error (malformed input, a limit): drop the connection
 * Everything but the sticky errors (rg_status_fatal) leaves the stream usable. */

/* Called for each element of a root array in callback mode; elem points to the element (a
 * struct of the element's type, e.g. rg_view), valid during the call only. Return 0 to go on;
 * anything else makes the reply a RG_MISMATCH ("stopped by the callback"). */
typedef int (*rg_reply_each_fn)(void *ud, size_t index, const void *elem);

/* One open aggregate of the reply. Fields private: use the functions below. */
typedef struct rg_rframe {
    const rg_rnode *node; /* NULL: an attribute or a raw (ANY) value being skipped */
    char *mem;            /* where elements go: items (ARRAY, PAIRS) or the struct (TUPLE) */
    char *field;          /* ARRAY, PAIRS: the { items, count } member, or NULL */
    uint64_t n;           /* RESP elements announced (-1 as UINT64_MAX when streamed) */
    uint64_t i;           /* RESP elements seen */
    uint64_t start;       /* raw values: stream offset of the first byte */
    uint32_t depth;       /* the decoder's depth of the header */
    uint8_t kind;         /* rg_reply.c's frame kind */
    uint8_t pairs_mode;   /* PAIRS: 0 undecided, 1 flat, 2 nested */
    uint16_t cur;         /* OBJECT: the field whose value comes next (nchildren / 2: none) */
    char *raw;            /* raw values: the rg_view to fill, or NULL */
} rg_rframe;

/* The whole engine state; fixed size, no heap. Fields private: use the functions below. */
typedef struct rg_reply_reader {
    rg_reader rd;
    uint64_t start_values; /* the reader's value count at the reply's start (for a rewind) */
    const rg_rtable *table;
    char *out;
    char *mem; /* storage, caller-owned */
    size_t cap, used;
    rg_reply_each_fn each;
    void *each_ud;
    char *slot; /* callback mode: the reused element */
    size_t slot_used;
    uint64_t start; /* stream offset of the reply's first byte */
    uint64_t mark;  /* stream offset where the reply's next value starts (the end of its last
                     * event): a token's header may be consumed by a call that ends in
                     * RG_NEED_MORE, so the offset before a call is not where its event began */
    bool pending;   /* the reply's first event is partly read; start is already set */
    bool waiting;   /* an aggregate header waits for more of its elements (see wait_*) */
    bool push_seen; /* a push came where the reply should start, at stream offset push_at */
    bool push_ok;   /* rg_reply_decode_push: a push at the root is read as an array */
    bool push_skip; /* rg_reply_skip stopped inside a value (RG_NEED_MORE) */
    uint8_t ready;  /* RG_REPLY_IDLE: between replies: no reply begun (active), none partly read
                     * (pending), no skip half done, the decoder idle at depth 0; RG_REPLY_QUICK:
                     * that, and the decoder's limits let bulks of up to 999 bytes be read whole.
                     * Set by every call that changes the state, before it returns: the one test
                     * of it rg_reply_quick_bulk makes */
    uint64_t push_at;
    /* A header whose alternative or element count the bytes at hand could not tell yet: it is
     * consumed, so the next call decides it again from these, with the elements after it. */
    rg_event wait_ev;
    const rg_rnode *wait_node;
    char *wait_mem;
    uint64_t wait_before;
    uint32_t depth; /* open frames */
    bool active, skipping, server_error, lost;
    bool direct; /* views are pointers already (the reply has not needed a second call) */
    rg_view error;
    char msg[256];
    rg_rframe stack[RG_MAX_DEPTH];
} rg_reply_reader;

/* Prepares rr; limits as rg_reader_init (NULL: defaults). No storage, no callback. */
void rg_reply_reader_init(rg_reply_reader *rr, const rg_limits *limits);

/* Storage for arrays of the following replies (caller-owned, borrowed until replaced; may be
 * NULL with cap 0). Takes effect at the next reply's start. */
void rg_reply_set_storage(rg_reply_reader *rr, void *mem, size_t cap);

/* rg_reader_set_stack for rr's decoder: replies nest up to max_depth levels, those past
 * RG_MAX_DEPTH in frames[0..n) (caller-owned, borrowed until rr is initialised again). Typed
 * levels stay within RG_MAX_DEPTH (a deeper one is RG_MISMATCH); a raw (RG_RS_ANY) value, which a
 * typed reply may hold at any level, nests as deep as the decoder allows. Only between replies:
 * RG_INVALID otherwise, or when the frames do not reach max_depth. */
rg_status rg_reply_set_stack(rg_reply_reader *rr, rg_frame *frames, size_t n, uint32_t max_depth);

/* Callback mode for root arrays (fn NULL: off). Takes effect at the next reply's start. */
void rg_reply_set_each(rg_reply_reader *rr, rg_reply_each_fn fn, void *ud);

/* Internal, not API: rg_reply_reader.ready's values. */
#define RG_REPLY_IDLE  1u
#define RG_REPLY_QUICK 3u

/* Internal, not API: rg_reply_decode for every reply its inline part below does not read. */
rg_status rg_reply_decode_rest(rg_reply_reader *rr, const rg_rtable *t, const char *buf, size_t len,
                               size_t *pos, void *out);

/* Inlined into a caller that passes a small result (INCR's int64_t) for out, gcc -O2 sees the
 * view store below (reached only for view tables) write past that object and warns; the table
 * test rules it out at run time, so the warning is silenced here, for this function only. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif
/* Internal, not API: GET's reply, the commonest of all: a whole '$' bulk of under 1000 bytes
 * for a root view (a table with RG_RF_VIEW), read the way the decoder's fast path reads it
 * (rg_fast_bulk: the same length, limit and CRLF checks), with the reader idle at depth 0 before
 * and after. Inline in the caller, so that a caller's loop keeps its position in a register
 * rather than passing it through memory on every reply; longer lengths and a header cut by the
 * end of the input are for rg_reply_decode_rest. False when it is anything else; nothing
 * consumed then. */
static inline bool rg_reply_quick_bulk(rg_reply_reader *rr, const rg_rtable *t, const char *buf,
                                       size_t len, size_t *pos, void *out) {
    const rg_rnode *const root = &t->nodes[0];
    const size_t at = *pos;
    /* 6: "$ddd\r\n", or the shortest whole bulk: "$0\r\n\r\n" */
    if (at + 6 > len || buf[at] != '$' || rr->ready != RG_REPLY_QUICK || !(t->flags & RG_RF_VIEW)) {
        return false;
    }
    const char *const p = buf + at;
    const unsigned d0 = rg_fast_digit(p[1]), d1 = rg_fast_digit(p[2]);
    const char *s;
    uint64_t n;
    if (d0 > 9) return false;
    if (rg_fast_crlf(p + 2)) {
        n = d0;
        s = p + 4;
    } else if (d1 <= 9 && rg_fast_crlf(p + 3)) {
        n = d0 * 10 + d1;
        s = p + 5;
    } else if (d1 <= 9 && rg_fast_digit(p[3]) <= 9 && rg_fast_crlf(p + 4)) {
        n = d0 * 100 + d1 * 10 + rg_fast_digit(p[3]);
        s = p + 6;
    } else {
        return false;
    }
    const size_t end = (size_t)(s - buf) + n + 2; /* n < 1000: no overflow */
    if (end > len || !rg_fast_crlf(s + n)) return false;
    rr->start = rr->rd.offset;
    rr->rd.offset += end - at;
    rr->rd.values++;
    *pos = end;
    const rg_view v = {s, (size_t)n};
    memcpy((char *)out + root->offset, &v, sizeof v);
    return true;
}
/* Internal, not API: SET's reply, "+OK": a whole '+' line of under 32 bytes for a root view that
 * takes one (a table with RG_RF_VIEW whose root accepts simple strings), read as the decoder's
 * fast path reads it (rg_fast_simple: the line ends at its first byte below 0x0e, which must be
 * the CR of a CRLF, within max_line), with the reader idle at depth 0 before and after, as
 * rg_reply_quick_bulk. False when it is anything else; nothing consumed then. */
static inline bool rg_reply_quick_simple(rg_reply_reader *rr, const rg_rtable *t, const char *buf,
                                         size_t len, size_t *pos, void *out) {
    const rg_rnode *const root = &t->nodes[0];
    const size_t at = *pos;
    if (at + 3 > len || buf[at] != '+' || rr->ready != RG_REPLY_QUICK || !(t->flags & RG_RF_VIEW) ||
        !(root->accept & RG_RA(RG_EV_SIMPLE))) {
        return false;
    }
    const char *const p = buf + at, *const stop = buf + (len - at > 32 ? at + 32 : len) - 1;
    const char *q = p + 1;
    while (q < stop && (unsigned char)*q >= 0x0e) q++;
    if (q >= stop || !rg_fast_crlf(q) || (uint64_t)(q - p) + 2 > rr->rd.limits.max_line) {
        return false;
    }
    const size_t end = (size_t)(q - buf) + 2;
    rr->start = rr->rd.offset;
    rr->rd.offset += end - at;
    rr->rd.values++;
    *pos = end;
    const rg_view v = {p + 1, (size_t)(q - p - 1)};
    memcpy((char *)out + root->offset, &v, sizeof v);
    return true;
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

/* Decodes one reply of table t from buf[*pos..len) into out (a struct of t->result_size bytes,
 * caller-owned). Same input rule as rg_next: on RG_NEED_MORE keep buf[*pos..len) (and the
 * reply's earlier bytes, see above), append, call again with the same t and out. (Inline: GET's
 * and SET's replies are read in the caller, everything else by the library.) */
static inline rg_status rg_reply_decode(rg_reply_reader *rr, const rg_rtable *t, const char *buf,
                                        size_t len, size_t *pos, void *out) {
    if (rg_reply_quick_bulk(rr, t, buf, len, pos, out)) return RG_OK;
    if (rg_reply_quick_simple(rr, t, buf, len, pos, out)) return RG_OK;
    return rg_reply_decode_rest(rr, t, buf, len, pos, out);
}

/* Up to n consecutive replies of table t, as n calls of rg_reply_decode would decode them:
 * reply k into the struct at (char *)out + k * stride (each of t->result_size bytes, stride at
 * least that, caller-owned). Stops at the first call that would not return RG_OK and returns
 * its status, with the reader, *pos and that reply's struct as that call leaves them (RG_PUSH,
 * RG_NEED_MORE mid-reply: go on as after rg_reply_decode, the pending reply's struct being the
 * one at index *done); RG_OK when all n were decoded. *done: the replies decoded with RG_OK.
 * For pipelined one-value replies (GET): whole short bulks are read in one loop that keeps the
 * position in a register; every other reply goes through rg_reply_decode. Views and storage as
 * for rg_reply_decode: with storage set, each reply's arrays are carved from its start, so only
 * the last reply's arrays survive (use n = 1, or callback mode, for lists). */
rg_status rg_reply_decode_many(rg_reply_reader *rr, const rg_rtable *t, const char *buf, size_t len,
                               size_t *pos, void *out, size_t stride, size_t n, size_t *done);

/* rg_reply_decode for a push, after RG_PUSH: the push ('>') at the root is read as the
 * array that table t describes (typed push decoders are tables like any other). */
rg_status rg_reply_decode_push(rg_reply_reader *rr, const rg_rtable *t, const char *buf, size_t len,
                               size_t *pos, void *out);

/* Parts rg_reply_merge takes at most (a part's index is a uint8_t). */
enum { RG_REPLY_MERGE_MAX = 256 };

/* One result from the replies of a command a cluster client split or fanned out (one reply per
 * slot or shard), each reply decoded once, straight into out (t->result_size bytes,
 * caller-owned). t's root must be a list (RG_RS_ARRAY or RG_RS_PAIRS). Element i of out's list
 * is the next element of part from[i] (i < n): each part's elements in their order, interleaved
 * as from says (MGET: one per key, in key order), every element of every part placed exactly
 * once. from NULL: the parts' elements one part after another (KEYS), n ignored.
 * parts[j] (j < nparts <= RG_REPLY_MERGE_MAX) holds one whole reply and nothing after it,
 * borrowed: the result's views point into those bytes, which must stay where they are while it
 * is used. Storage (rg_reply_set_storage, caller-owned): each part's lists, then the merged list
 * (n elements), carved from it in that order and valid until it is used again; too small:
 * RG_SHORT, rg_reply_needed() bytes (nothing merged). Returns RG_OK, the first failing part's
 * status as rg_reply_decode returns it (RG_SERVER_ERROR, RG_MISMATCH ...; rg_reply_error says
 * what), RG_MISMATCH when t's root is not a list, a part is not one whole reply or the parts'
 * elements do not match from, or RG_INVALID in the middle of a reply or in callback mode.
 * Only between replies: the parts are read as the next replies of rr's stream (its offsets
 * count their bytes), and rr is left between replies, but after a sticky error
 * (rg_status_fatal), which stays for rg_reply_error as after rg_reply_decode. */
rg_status rg_reply_merge(rg_reply_reader *rr, const rg_rtable *t, const rg_view *parts,
                         size_t nparts, const uint8_t *from, size_t n, void *out);

/* rg_reply_merge for parts already decoded with t (by a connection, each with storage of its
 * own): results[j] is part j's result struct (borrowed; its lists and views must stay while out
 * is used). Only the merged list (n elements; from as for rg_reply_merge) is carved from the
 * storage, from its start: RG_SHORT when it does not fit (rg_reply_needed: the bytes). Returns
 * RG_OK, RG_MISMATCH (t's root is not a list, or the parts' elements do not match from) or
 * RG_INVALID (as rg_reply_merge). The decoder is not used: rr's stream is untouched. */
rg_status rg_reply_gather(rg_reply_reader *rr, const rg_rtable *t, const void *const *results,
                          size_t nparts, const uint8_t *from, size_t n, void *out);

/* Stores v into out (t->result_size bytes, caller-owned, zeroed first) as t would decode the
 * reply ":v" (a fan-out's merged count: DEL's sum, DBSIZE's). RG_OK, or RG_MISMATCH when t's
 * root is not a scalar that takes an integer (rg_reply_error says why); RG_INVALID in the middle
 * of a reply (nothing stored). */
rg_status rg_reply_put_int(rg_reply_reader *rr, const rg_rtable *t, int64_t v, void *out);

/* Consumes one whole value (a push, after RG_PUSH) from buf[*pos..len) with rr's decoder,
 * so the stream offsets stay in step: RG_OK when it is consumed, RG_NEED_MORE (keep
 * buf[*pos..len), call again), or the decoder's sticky error. Only between replies. A decode
 * called instead of the second skip finishes the skipped value first. */
rg_status rg_reply_skip(rg_reply_reader *rr, const char *buf, size_t len, size_t *pos);

/* What the last call that failed reported, as its status:
 *   RG_SERVER_ERROR  msg: the error text as sent (a view into the caller's buffer)
 *   RG_MISMATCH      msg: a message in rr (valid until the next call)
 *   RG_LOST          msg: a static text
 *   RG_ERR_*         the decoder's error (rg_reader_error)
 * offset: the stream offset of the reply's first byte (of the bad token for RG_ERR_*). Call it
 * right after the failing call: a call that succeeds may leave the last failure in place. */
rg_error rg_reply_error(const rg_reply_reader *rr);

/* Storage bytes the last reply needed (valid after any final status). */
static inline size_t rg_reply_needed(const rg_reply_reader *rr) {
    return rr->used;
}

/* Stream offset of the current (or last) reply's first byte: keep the bytes from there. */
static inline uint64_t rg_reply_start(const rg_reply_reader *rr) {
    return rr->start;
}

/* The underlying decoder, for offsets and values counts. */
static inline const rg_reader *rg_reply_decoder(const rg_reply_reader *rr) {
    return &rr->rd;
}

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
