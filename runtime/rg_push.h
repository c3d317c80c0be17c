/* respgen runtime: typed decoders of out-of-band values (RESP3 pushes, and the RESP2 arrays a
 * connection in subscribe mode receives in their place).
 *
 * One call decodes one whole value at buf[*pos] into an rg_push: Pub/Sub messages (message,
 * pmessage, smessage), subscription confirmations ((p|s)(un)subscribe), client-side caching
 * invalidations (invalidate, with a null key list meaning "flush everything") and
 * tracking-redir-broken; anything else is kept as raw bytes (RG_PUSH_OTHER). A value whose name
 * is known but whose shape is not (a message with 2 elements) is RG_PUSH_OTHER too, never an
 * error: the stream stays in step.
 *
 * Ownership: the rg_push is caller-owned and fixed-size; every view in it points into buf and is
 * valid as long as the caller keeps those bytes. Nothing is allocated. The keys of an
 * invalidation are read in place with rg_push_keys_next (no storage needed).
 *
 * Input rule: all or nothing. On RG_NEED_MORE and RG_NOT_PUSH nothing is consumed
 * (*pos is unchanged): call again with the same bytes followed by more. A value is scanned again
 * from its start on each call, token by token (a bulk's payload is never rescanned byte by
 * byte), which is cheap for the small values pushes are.
 */
#ifndef RG_PUSH_H
#define RG_PUSH_H

#include "rg_dec.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

typedef enum rg_push_kind {
    RG_PUSH_OTHER = 0,             /* unknown name or shape: see raw */
    RG_PUSH_MESSAGE,               /* message channel payload */
    RG_PUSH_PMESSAGE,              /* pmessage pattern channel payload */
    RG_PUSH_SMESSAGE,              /* smessage shardchannel payload */
    RG_PUSH_SUBSCRIBE,             /* subscribe channel count */
    RG_PUSH_UNSUBSCRIBE,           /* unsubscribe channel|null count */
    RG_PUSH_PSUBSCRIBE,            /* psubscribe pattern count */
    RG_PUSH_PUNSUBSCRIBE,          /* punsubscribe pattern|null count */
    RG_PUSH_SSUBSCRIBE,            /* ssubscribe shardchannel count */
    RG_PUSH_SUNSUBSCRIBE,          /* sunsubscribe shardchannel|null count */
    RG_PUSH_INVALIDATE,            /* invalidate [key...] | null */
    RG_PUSH_TRACKING_REDIR_BROKEN, /* tracking-redir-broken: the REDIRECT client is gone */
    RG_PUSH_KIND_COUNT
} rg_push_kind;

typedef struct rg_push {
    rg_push_kind kind;
    bool resp3;      /* it came as a RESP3 push ('>'), not a RESP2 array */
    size_t count;    /* elements of the value (the name included) */
    rg_view name;    /* the first element as sent (empty when it is not a string) */
    rg_view channel; /* messages: the channel; confirmations: the channel or pattern, {NULL, 0}
                        for a null (an unsubscribe from nothing) */
    rg_view pattern; /* pmessage: the pattern that matched */
    rg_view payload; /* messages: the message */
    int64_t subscriptions; /* confirmations: subscriptions the connection holds now */
    bool flush_all;        /* invalidate: null key list, every cached key is invalid */
    size_t nkeys;          /* invalidate: number of keys */
    rg_view keys;          /* invalidate: raw bytes of the key array (header included) */
    rg_view raw;           /* the whole value as sent (attributes before it excluded) */
} rg_push;

/* Decodes the value at buf[*pos..len). Leading attributes (|) are skipped. A RESP3 push ('>') is
 * always taken; a RESP2 array only when resp2_arrays is true (a connection in subscribe mode),
 * and then only when its first element names one of the kinds above (other arrays are
 * RG_NOT_PUSH: ordinary replies, such as RESP2's ["pong", ""]). limits as rg_reader_init
 * (NULL: defaults). Returns (rg_status, rg.h):
 *   RG_OK         *out holds the value; *pos is past it
 *   RG_NEED_MORE  the value is not complete yet; nothing consumed
 *   RG_NOT_PUSH   the value at *pos is not a push (nor, when allowed, an array); nothing consumed
 *   RG_ERR_PROTOCOL, RG_ERR_LIMIT, RG_ERR_DEPTH
 *                 malformed RESP or a limit: *err tells why (static text) and where (offset:
 *                 the index in buf of the bad token)
 * err may be NULL; otherwise it is written on every call (status RG_OK unless an error). */
rg_status rg_push_decode(const char *buf, size_t len, size_t *pos, bool resp2_arrays,
                         const rg_limits *limits, rg_push *out, rg_error *err);

/* Iterates an invalidation's keys without storage: *at starts at 0; each call stores the next
 * key (a view into the push's bytes) and returns true, or returns false after the last one. */
bool rg_push_keys_next(const rg_push *p, size_t *at, rg_view *key);

/* A static name of a kind ("message", "invalidate", "other"). Never NULL. */
const char *rg_push_kind_name(rg_push_kind k);

/* Is it one of the six subscription confirmations? */
static inline bool rg_push_is_confirmation(rg_push_kind k) {
    return k >= RG_PUSH_SUBSCRIBE && k <= RG_PUSH_SUNSUBSCRIBE;
}

/* Is it one of the three messages? */
static inline bool rg_push_is_message(rg_push_kind k) {
    return k >= RG_PUSH_MESSAGE && k <= RG_PUSH_SMESSAGE;
}

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
