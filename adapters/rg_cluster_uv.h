/* respgen adapters: an asynchronous Redis Cluster client on libuv: the cluster engine
 * (runtime/rg_cc.h) with each of its links an rg_uv (rg_uv.h), TLS included.
 *
 * Calls are made on rg_cc_conn(&u->cc) with the generated C_call functions (or
 * rg_conn_call_argv) from anywhere on the loop's thread, callbacks included; routing, redirects,
 * retries, fan-out and merge, refreshes, node reconnects and sharded Pub/Sub are the engine's
 * (rg_cc.h). Once per loop iteration (a uv_prepare handle) the engine runs one tick: the calls
 * made since are routed and written, pipelined per node, in one go; a uv_timer wakes it for its
 * deadlines (retry delays, reconnects, refreshes, the io_ms silence check). No connect blocks the
 * loop: node addresses are numeric, as the cluster gives them.
 *
 * Results: a call's typed result (and its error text) is valid during its callback, and until
 * the batch it belongs to is over: once every call made has completed and their callbacks ran,
 * the driver begins a new batch by itself (rg_cc_begin) and tells RG_CC_UV_DRAINED. A call made
 * while the batch or the arena is full returns 0 (RG_FULL): make it again after DRAINED. Call
 * ids are the batch index + 1.
 *
 * A caller that streams sets a window per shard (rg_cc_config.node_window): the batch then rolls
 * instead of draining, and a shard that is down cannot hold the others.
 *   - Once half of the batch completed while half of its room is used (rg_cc_roll_due), or
 *     nothing is on the wire, the driver rolls the batch (rg_cc_roll) and tells DRAINED as well:
 *     the calls without an outcome, on the wire or waiting for their shard, are carried into the
 *     new batch with their ids, results and callbacks, and the room of the complete ones is free
 *     again. The caller never waits for the batch to drain.
 *   - A call beyond its shard's window returns 0 at once (rg_cc_window_full: set it aside, go on
 *     with other calls).
 *   - Call ids increase from batch to batch (rg_cc_find finds a call by its id); a call's index in
 *     the batch is not a key for the caller's own records.
 *
 * Lifetime: the rg_cc_uv is caller-owned and stays put until RG_CC_UV_CLOSED: rg_cc_uv_close
 * completes every pending call with RG_CLOSED and releases the handles; libuv calls back. */
#ifndef RG_CLUSTER_UV_H
#define RG_CLUSTER_UV_H

#include "rg_cc.h"
#include "rg_uv.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

typedef struct rg_cc_uv rg_cc_uv;

typedef enum rg_cc_uv_event {
    RG_CC_UV_READY = 1, /* the map was read: calls are routed (made before, they waited) */
    RG_CC_UV_FAILED,    /* the first map refresh failed on every node (rg_cc_error says why);
                           it is tried again every 100 ms until READY or rg_cc_uv_close */
    RG_CC_UV_DRAINED,   /* every call made completed, or the rest were carried over (a roll):
                           a new batch began */
    RG_CC_UV_CLOSED     /* after rg_cc_uv_close: the handles are released, u may go */
} rg_cc_uv_event;

typedef void (*rg_cc_uv_fn)(rg_cc_uv *u, rg_cc_uv_event ev, void *ud);

typedef struct rg_cc_uv_link rg_cc_uv_link;

struct rg_cc_uv {
    rg_cc cc; /* the engine: rg_cc_conn(&u->cc), stats, map (read-only) */
    /* private */
    uv_loop_t *loop;
    uv_prepare_t prepare; /* one tick per loop iteration */
    uv_timer_t timer;     /* the engine's next deadline */
    rg_cc_uv_link *link[RG_CC_LINKS];
    rg_cc_uv_fn on_event;
    void *ud;
    bool told; /* READY or FAILED told */
    bool closing;
    size_t closes; /* closing: links, then our handles, whose close is still to come */
};

/* Sets up u on loop with cfg (as rg_cc_init takes it: copied, its buffers the caller's) and
 * starts reading the map from the seed node (a numeric address); on_event (may be NULL) is told
 * READY or FAILED once, DRAINED after each batch, CLOSED at the end. Returns RG_OK, or
 * RG_INVALID (cmds, calls or arena missing: rg_cc_error) with nothing started. */
rg_status rg_cc_uv_open(rg_cc_uv *u, uv_loop_t *loop, const rg_cc_config *cfg,
                        const char *seed_host, uint16_t seed_port, rg_cc_uv_fn on_event, void *ud);

/* Completes every pending call with RG_CLOSED, closes every connection, and tells CLOSED once
 * libuv released the handles. Safe from any callback; once only. */
void rg_cc_uv_close(rg_cc_uv *u);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
