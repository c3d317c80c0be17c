/* respgen runtime: incremental, zero-copy, allocation-free RESP2/RESP3 decoder.
 *
 * The reader turns bytes into a flat stream of events, one per value, aggregate header, aggregate
 * end or string chunk. It never allocates: all of its state, including one frame per open
 * aggregate, lives inside the rg_reader the caller provides, which holds RG_MAX_DEPTH frames;
 * levels past those use frames the caller lends with rg_reader_set_stack.
 *
 * Pull style (no indirect call per value):
 *
 *     rg_reader r;  rg_reader_init(&r, NULL);
 *     size_t pos = 0;  rg_event ev;  rg_status st;
 *     while ((st = rg_next(&r, buf, len, &pos, &ev)) == RG_OK) use(&ev);
 *     if (st == RG_NEED_MORE) keep buf[pos..len), append more bytes, call again from there;
 *     else report rg_reader_error(&r) (message, stream offset) and drop the connection.
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
#pragma GCC visibility push(default)

/* Frames inside every rg_reader, fixed at compile time: the default depth limit, and as deep as a
 * reader nests without rg_reader_set_stack. limits.max_depth may lower it. Real servers send
 * deeper values (a Lua table nested 1,000 levels): a reader for them gets more frames from its
 * caller (the connection engine does, rg_conn.h). */
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
    uint32_t max_depth;    /* open aggregates at once, 1..RG_MAX_DEPTH (deeper with
                              rg_reader_set_stack); default RG_MAX_DEPTH */
    uint64_t max_bulk;     /* bytes in one bulk, verbatim, blob error or string chunk */
    uint64_t max_elements; /* elements in one aggregate, streamed or not; a map's pairs count 2 */
    uint64_t max_line;     /* bytes in a simple string, error or big number line, CRLF included */
    uint64_t stream_min;   /* payloads this long or longer come in chunks; default UINT64_MAX */
} rg_limits;

/* One open aggregate of an rg_reader. Fields private: use the functions below. */
typedef struct rg_frame {
    uint64_t left; /* elements still to come; a streamed aggregate counts down from max_elements */
    uint8_t kind;  /* rg_kind of the aggregate */
    bool streamed; /* ended by '.', not by a count */
} rg_frame;

/* The whole decoder state: fixed size, no pointers to the heap (but to the frames lent by
 * rg_reader_set_stack, which copies share), safe to copy between calls only while no views are
 * held. Fields private: use the functions below. */
typedef struct rg_reader {
    uint8_t status;   /* rg_status: RG_OK or a sticky error */
    uint8_t tok;      /* what the next bytes are: rg_dec.c's rg_tok */
    uint8_t pay_kind; /* rg_kind of the payload being read */
    bool in_sstr;     /* inside a RESP3 streamed string ($?) */
    uint8_t slow;     /* RG_SLOW_* bits: states only the general path reads in */
    uint32_t depth;
    uint64_t need;    /* payload bytes still to come */
    uint64_t scanned; /* bytes of the current string line already looked at */
    uint64_t offset;  /* stream offset of the byte at *pos */
    uint64_t err_offset;
    const char *err_msg;
    uint64_t values;        /* top-level values completed */
    uint64_t fast_bulk_end; /* bulks shorter than this the fast path reads whole */
    rg_frame *deep;         /* frames of the levels past stack[] (rg_reader_set_stack), or NULL */
    uint32_t ndeep;
    uint32_t fast_depth; /* the fast path opens aggregates below this depth (all in stack[]) */
    rg_limits limits;
    rg_frame stack[RG_MAX_DEPTH];
} rg_reader;

/* rg_reader.slow: an attribute ended and its value has not begun; the reader is deeper than its
 * stack[] (the fast path only reads frames there). Not API. */
#define RG_SLOW_ATTR 1u
#define RG_SLOW_DEEP 2u

/* The frames rg_reader_set_stack needs for a reader to nest depth levels. */
#define RG_READER_FRAMES(depth) ((depth) > RG_MAX_DEPTH ? (size_t)(depth)-RG_MAX_DEPTH : 0)

/* The defaults named above. */
rg_limits rg_limits_default(void);

/* Prepares r. limits may be NULL for the defaults; a max_depth of 0 or above RG_MAX_DEPTH is
 * taken as RG_MAX_DEPTH (see rg_reader_set_stack for more). r is caller-owned; nothing to free. */
void rg_reader_init(rg_reader *r, const rg_limits *limits);

/* Lets r nest deeper than the RG_MAX_DEPTH frames inside it: level RG_MAX_DEPTH + i uses
 * frames[i], i < n (caller-owned, borrowed until r is initialised again or given other frames;
 * RG_READER_FRAMES(d) of them for d levels). r then reads up to max_depth levels (0: all that fit,
 * RG_MAX_DEPTH + n, at most UINT32_MAX). frames NULL with n 0: the inline frames alone again.
 * Nothing is allocated, and values no deeper than RG_MAX_DEPTH decode as fast as before. A value
 * deeper than max_depth is RG_ERR_DEPTH, as ever. Only while r is at depth 0 (between values).
 * Copies of r (a lookahead) share these frames: a copy may decode on while r itself stays within
 * RG_MAX_DEPTH levels (the frames past them are then scratch to r), never deeper.
 * Returns RG_OK, or RG_INVALID with nothing changed when max_depth needs more frames than n or r
 * is not at depth 0. */
rg_status rg_reader_set_stack(rg_reader *r, rg_frame *frames, size_t n, uint32_t max_depth);

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

/* rg_feed for hot callers, defined in rg_dec_inline.h: when fn is a function the compiler can see
 * (typically a static one named at the call), it is inlined into the decoding loop, so there is no
 * indirect call and no event in memory per value. Same contract and events as rg_feed. It costs a
 * few KiB of code per call site. */
static inline rg_status rg_feed_inline(rg_reader *r, const char *buf, size_t len, size_t *pos,
                                       rg_event_fn fn, void *ud);

/* The sticky error: its status (RG_OK when there is none), message (static text) and the byte
 * offset of the bad token in the whole stream. */
rg_error rg_reader_error(const rg_reader *r);

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

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

/* The inline fast path behind rg_feed_inline and the reader's entry points: not API. */
#include "rg_dec_inline.h"

#endif
