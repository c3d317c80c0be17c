/* respgen adapters: a blocking Redis Cluster client: the cluster engine (runtime/rg_cc.h) driven
 * by one poll(2) loop over blocking connects (rg_blocking.h).
 *
 * The caller fills a batch with encoded calls (generated encoders on rg_cc_conn, rg_cc_add,
 * rg_cc_add_argv), then rg_cc_run sends them and waits until every call of the batch has an
 * outcome; outcomes and typed results are then read from the batch in the caller's order.
 * rg_cc_run is a loop of rg_cc_step (one round of I/O); a caller that calls rg_cc_step itself may
 * add calls between rounds while earlier ones are in flight (streaming, with a window of calls in
 * flight). Routing, redirects, retries, fan-out, refreshes, reconnects and sharded Pub/Sub are
 * the engine's: rg_cc.h says what each does.
 *
 * Connects block (each at most connect_ms): a node connected for the first time, or again after
 * a loss, holds up the round that connects it. The map refresh's connection too.
 *
 * Memory: the batch (rg_cc_call array) and the arena that keeps each request for resending are
 * the caller's, given at rg_cc_init. Per node, the input and output buffers and the call ring are
 * allocated once when the node is first connected, and freed by rg_cc_close; nothing is
 * allocated per call. Typed results point into the nodes' input buffers, which keep every reply
 * of the batch (rg_conn_hold) until the next rg_cc_begin: a node's input buffer must hold all
 * replies it gets in one batch.
 */
#ifndef RG_CLUSTER_CLIENT_H
#define RG_CLUSTER_CLIENT_H

#include "rg_blocking.h"
#include "rg_cc.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* Sets up cc with cfg (copied; its buffers stay the caller's) and reads the map from the seed
 * node. Returns RG_OK, or the failure (rg_cc_error says why; nothing is left open): RG_INVALID
 * when cmds, calls or arena is missing, else as rg_cc_refresh. */
rg_status rg_cc_init(rg_cc *cc, const rg_cc_config *cfg, const char *seed_host, uint16_t seed_port);

/* Closes every connection and frees the per-node buffers. */
void rg_cc_close(rg_cc *cc);

/* Reads the whole map again from a reachable node, waiting for it. Returns RG_OK, or the last
 * failure (rg_cc_error): the status of connecting (RG_REFUSED, RG_IO, RG_TIMEOUT ...), of the
 * CLUSTER SHARDS / SLOTS call, or of decoding the map (RG_MISMATCH, RG_FULL). */
rg_status rg_cc_refresh(rg_cc *cc);

/* Sends the batch and waits until every call has an outcome. Returns the number of calls that
 * did not end RG_OK (server errors included). */
size_t rg_cc_run(rg_cc *cc);

/* One round of the same loop, for callers that keep adding calls while earlier ones are in
 * flight: the engine's tick (a due refresh, then every call added or waiting since the last round
 * is queued, in the caller's order), the connects it asks for, the writes, then one poll(2) of at
 * most timeout_ms (0: do not block) reads whatever arrived and completes those calls. rg_cc_add
 * may be called between rounds; a call's outcome may be read as soon as its `complete` is set.
 * Returns the calls of the batch that have no outcome yet (0: the batch is done and rg_cc_begin
 * may start the next). */
size_t rg_cc_step(rg_cc *cc, int timeout_ms);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
