/* respgen runtime: the delays between reconnect attempts, as a pure function.
 *
 * Exponential backoff with full jitter (the delay of attempt n is drawn uniformly from
 * [0, min(max_ms, first_ms * 2^n)]), so that many clients that lost one server do not come back
 * in step. No clock, no global state: the caller passes the randomness (rg_backoff_random over
 * a state it keeps, one per connection, is enough) and sleeps or arms a timer itself. The
 * adapters (rg_blocking.h, rg_uv.h) take an rg_backoff as their reconnect policy.
 */
#ifndef RG_BACKOFF_H
#define RG_BACKOFF_H

#include "rg.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* The defaults of a zero field: 10 ms, then doubling up to 1 s (redis-py's and the design
 * notes' choice). */
#define RG_BACKOFF_FIRST_MS 10u
#define RG_BACKOFF_MAX_MS   1000u

/* A reconnect policy. Plain data, copied by whoever takes it. */
typedef struct rg_backoff {
    uint32_t first_ms; /* the first attempt's largest delay (0: RG_BACKOFF_FIRST_MS) */
    uint32_t max_ms;   /* no delay is larger (0: RG_BACKOFF_MAX_MS) */
    uint32_t attempts; /* attempts after a loss before giving up (0: no reconnects) */
} rg_backoff;

/* What an adapter that reconnects by itself tells (rg_blocking.h, rg_uv.h). */
typedef enum rg_reconnect_what {
    RG_RECONNECT_DISCONNECTED = 1, /* the connection was lost (cause); pending calls completed */
    RG_RECONNECT_ATTEMPT,          /* attempt number `attempt` (from 1) starts in delay_ms */
    RG_RECONNECT_READY,  /* connected, connect sequence and replayed subscribes answered */
    RG_RECONNECT_GAVE_UP /* no more attempts (cause: the last one's error, or a refused connect
                            sequence, which is never retried); queued calls completed */
} rg_reconnect_what;

typedef struct rg_reconnect_event {
    rg_reconnect_what what;
    rg_error cause;    /* DISCONNECTED, GAVE_UP: why (msg valid during the event only) */
    uint32_t attempt;  /* ATTEMPT, GAVE_UP: attempts made since the loss, this one included */
    uint32_t delay_ms; /* ATTEMPT: the jittered delay before it */
} rg_reconnect_event;

/* The largest delay of attempt n (0 for the first): min(max_ms, first_ms * 2^n), with no
 * overflow for any n. */
uint32_t rg_backoff_cap(const rg_backoff *b, uint32_t n);

/* The delay of attempt n in ms: random (any 64 uniformly random bits) mapped onto
 * [0, rg_backoff_cap(b, n)]. */
uint32_t rg_backoff_delay(const rg_backoff *b, uint32_t n, uint64_t random);

/* 64 random bits from *state (splitmix64: any seed, including 0, gives a full-period stream).
 * Not for secrets: it only spreads reconnects. */
uint64_t rg_backoff_random(uint64_t *state);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
