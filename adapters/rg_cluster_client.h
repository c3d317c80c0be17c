/* respgen adapters: a blocking Redis Cluster client on the connection engine (rg_conn.h), the
 * slot map and the router (rg_cluster.h).
 *
 * One connection per node (an rg_bconn each, connected when first needed), all driven by one
 * poll(2) loop. The caller fills a batch with encoded calls (generated encoders, or
 * rg_argv_encode), then rg_cc_run sends them: each to the node that serves its slot (keyless
 * calls to any node), pipelined per node, and waits until every call of the batch has an outcome.
 * Outcomes and typed results are then read from the batch in the caller's order. rg_cc_run is a
 * loop of rg_cc_step (one round of I/O); a caller that calls rg_cc_step itself may add calls
 * between rounds while earlier ones are in flight (streaming, with a window of calls in flight).
 *
 * Redirects and retries, per call:
 *   -MOVED  the slot is patched in the map and the call sent again to the new owner;
 *   -ASK    ASKING and the call are written back to back to the named node, once; map unchanged;
 *   -TRYAGAIN, -CLUSTERDOWN, -LOADING, -MASTERDOWN: sent again after a bounded exponential
 *           backoff (1 ms doubling to 128 ms), at most max_retries (40: about 4.5 s) times;
 *   more than max_redirects MOVED or ASK end the call RG_REDIRECT (error: the last one);
 *   more than max_retries retries end it with the last error (RG_SERVER_ERROR).
 * Every refresh_after_moved MOVED replies, a CLUSTERDOWN, an uncovered slot or a node that
 * cannot be reached makes the client read the whole map again (CLUSTER SHARDS, falling back to
 * CLUSTER SLOTS), at most once per 100 ms.
 * A lost connection: calls whose request had not been completely written are sent again (the
 * server cannot have run them), and so are calls that only read (every key spec read-only: GET,
 * MGET, HGETALL, EVAL_RO ...; running them twice changes nothing); other calls whose request was
 * written complete with RG_CLOSED and `written` set, because they may or may not have run: the
 * client never guesses, it reports them. Both resends count against max_retries.
 * The node is connected again when a call needs it, after the jittered delay of the reconnect
 * policy (rg_cc_config.reconnect), each step told to on_event.
 *
 * Calls whose keys span several slots are refused before sending (RG_INVALID with a
 * CROSSSLOT message), unless the command's command_tips say how to split it:
 *   ALL_SHARDS / ALL_NODES (DBSIZE, FLUSHALL, KEYS, SCRIPT LOAD, CONFIG SET ...): one part per
 *   master (or per node), sent like any call;
 *   MULTI_SHARD (DEL, EXISTS, UNLINK, TOUCH, MSET, MGET): one part per slot, each keeping its
 *   key groups (MSET keeps its pairs), redirected like any call;
 * and the parts' replies merge by the RESPONSE_POLICY: AGG_SUM / MIN / MAX / LOGICAL_AND / OR of
 * integers, ALL_SUCCEEDED (the first error, else the first reply), ONE_SUCCEEDED (the first
 * success), none (arrays concatenated; for MULTI_SHARD, MGET, one element per key put back in
 * the order of the keys). A typed result is filled straight from the parts' replies, each
 * decoded once (rg_reply_merge: its lists carved from the arena, its views in the nodes' input
 * buffers; a merged integer written as is); a raw one gets the merged reply's bytes, in the
 * arena. SPECIAL policies are refused. Parts take batch slots from the end of the batch
 * array and arena room.
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
#include "rg_cluster.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* One call of a batch: read it (rg_cc_get) once `complete` is set. */
typedef struct rg_cc_call {
    rg_status status;          /* how it ended (valid once `complete`): RG_OK, RG_SERVER_ERROR,
                                  RG_MISMATCH, RG_SHORT, RG_CLOSED, RG_INVALID (refused before
                                  sending: CROSSSLOT, REQUEST_POLICY:SPECIAL, not one encoded
                                  call), RG_REDIRECT (more than max_redirects), RG_FULL (the
                                  batch or the arena could not take its fan-out parts) ... */
    bool complete;             /* it has an outcome (rg_cc_step may end calls one by one) */
    rg_redirect_kind redirect; /* the last redirect or retry error it met */
    bool written;              /* CLOSED: the request reached the socket; it may have run */
    uint8_t redirects;         /* MOVED and ASK followed */
    uint8_t retries;           /* TRYAGAIN, CLUSTERDOWN ... and unsent requests sent again */
    uint16_t node;             /* the node that answered last */
    int slot;                  /* the call's slot, or RG_SLOT_NONE / RG_SLOT_UNKNOWN */
    rg_view error; /* the error text (truncated to 111 bytes), valid until the next rg_cc_begin */
    /* private */
    char text[112]; /* backs error */
    struct rg_cc *cc;
    const rg_rtable *table;
    void *result;
    rg_call_fn cb; /* a relayed generated call's callback (rg_cc_conn), or NULL */
    void *ud;
    bool notify; /* its callback waits for the next rg_cc_step */
    bool carve;  /* its typed reply has arrays: kept raw, decoded with arena storage (deliver) */
    size_t off, len;
    int64_t due_ns;    /* waiting: when to try again */
    int64_t dead_ns;   /* give up waiting for a node then */
    uint16_t ask_node; /* ASK: where to send, once */
    uint16_t fixed;    /* a fan-out part: its node (RG_NODE_NONE: routed) */
    uint8_t state;
    uint8_t response; /* a fan-out: rg_response_policy */
    bool asking, read;
    bool reads_only;  /* every key read-only: sent again after a loss even when written */
    bool backoff;     /* waiting: a retry's delay (later calls for its node go ahead) */
    bool ordered;     /* a MULTI_SHARD fan-out whose reply lists its keys in order */
    uint8_t nkeys;    /* ordered: its keys */
    size_t order;     /* ordered: arena offset of nkeys bytes, each key's part (split_by_slot's) */
    bool typed_parts; /* its parts are decoded with its table (else raw) */
    size_t mem_off, mem_cap; /* a typed part: its lists' storage in the arena */
    size_t parent;           /* a fan-out part: its call's index; else SIZE_MAX */
    size_t parts;            /* a fan-out: parts not yet complete */
    size_t first_part;       /* a fan-out: where its parts start (they are at the batch's end) */
    size_t nparts;
    rg_raw_result raw;       /* a fan-out part's reply */
    rg_redirect redirect_at; /* the last redirect as parsed (its host a view into a held reply) */
} rg_cc_call;

typedef struct rg_cc rg_cc;

/* Told what happens to node i's connection (rg_reconnect_event: ev valid during the call):
 * DISCONNECTED (a connection that was up was lost; cause), ATTEMPT (the node's next connect,
 * attempt `attempt` from 1, waits delay_ms; cause: the failed connect before it, if any), READY
 * (connected again after a loss or a failed connect, its connect sequence answered), GAVE_UP
 * (reconnect.attempts connects failed in a row). It runs inside rg_cc_step: it may read cc, not
 * call rg_cc functions. */
typedef void (*rg_cc_event_fn)(rg_cc *cc, uint16_t node, const rg_reconnect_event *ev, void *ud);

typedef struct rg_cc_config {
    const rg_cluster_commands *cmds; /* routing tables (static data) */
    rg_cc_call *calls;               /* the batch, caller-owned */
    size_t ncalls;
    char *arena; /* copies of the batch's requests, caller-owned */
    size_t arena_cap;
    size_t node_in_cap;      /* per-node input buffer (0: 4 MiB) */
    size_t node_out_cap;     /* per-node output buffer (0: 1 MiB) */
    int protocol;            /* 2 or 3 (0: 3) */
    bool read_from_replicas; /* calls whose keys are all read-only go to a replica (READONLY) */
    int connect_ms;          /* 0: 1000 */
    int io_ms;               /* a node silent this long with calls pending is lost (0: 5000) */
    int wait_ms;             /* how long a call may wait for a reachable node (0: 10000) */
    unsigned max_redirects;  /* 0: 5 */
    unsigned max_retries;    /* 0: 40 (about 4.5 s of backoff) */
    unsigned refresh_after_moved; /* 0: 32 */
    /* NULL: plain TCP; else every connection (nodes, map refreshes) over TLS with this config
     * (rg_tls.h; caller-owned, read at each connect: keep it alive), to the nodes' TLS ports
     * (CLUSTER SHARDS "tls-port"; CLUSTER SLOTS and redirects asked over TLS name them). Set
     * its ctx to share one context (one CA load) among the connections. */
    const rg_tls_config *tls;
    /* A lost or unreachable node is connected again when a call needs it, after a jittered
     * exponential delay (rg_backoff.h: attempt n waits up to min(max_ms, first_ms * 2^n); 0
     * fields: 10 ms, 1 s). attempts: failed connects in a row after which the node is given up:
     * the calls waiting for it end RG_CLOSED at once, unwritten, and one connect probes it every
     * max_ms until one succeeds (0: no bound; wait_ms bounds each call). Unlike the adapters',
     * 0 attempts does not mean no reconnects: a cluster's nodes come and go, the client always
     * follows them. */
    rg_backoff reconnect;
    rg_cc_event_fn on_event; /* NULL: none */
    void *event_ud;
    /* Sharded Pub/Sub (rg_cc_ssubscribe): the messages of the channels listened to, and the
     * server's own sunsubscribes, inside rg_cc_step (p valid during the call). NULL: none, and
     * rg_cc_ssubscribe is refused. */
    rg_push_fn on_push;
    void *push_ud;
} rg_cc_config;

typedef struct rg_cc_stats {
    uint64_t calls, moved, ask;
    uint64_t retries; /* TRYAGAIN + CLUSTERDOWN + LOADING + MASTERDOWN, each counted below */
    uint64_t tryagain, clusterdown, loading, masterdown;
    uint64_t resent_unsent; /* requests not completely written at a loss, sent again */
    uint64_t resent_reads;  /* read-only requests written before a loss, sent again */
    uint64_t refreshes, refresh_failures, connects, lost_connections, refused;
} rg_cc_stats;

/* Sharded Pub/Sub: the channels listened to (rg_cc_ssubscribe). */
enum { RG_CC_MAX_CHANNELS = 64, RG_CC_CHANNEL_MAX = 128 };

typedef struct rg_cc_channel {
    char name[RG_CC_CHANNEL_MAX];
    size_t len;
    int slot;
    uint16_t node;  /* where it is subscribed (RG_NODE_NONE: not, or no more) */
    uint16_t asked; /* where its SSUBSCRIBE waits for the answer (RG_NODE_NONE: none) */
    int64_t due_ns; /* no SSUBSCRIBE before (after a refusal) */
    bool used;      /* listened to */
    struct rg_cc *cc;
} rg_cc_channel;

/* A node's connection for Pub/Sub: the batch's connections hold the batch's replies, which a
 * connection that only listens would never let go. */
typedef struct rg_cc_sub rg_cc_sub;

typedef struct rg_cc_node {
    rg_bconn b;
    bool open;
    bool readonly_sent;
    int64_t down_until_ns; /* no connect before (the backoff's delay) */
    uint32_t attempt;      /* failed connects since the last loss or success (0: none) */
    bool lost;             /* it was up, then lost: READY told once it connects */
    bool tell_ready;       /* connected again: READY once its connect sequence is answered */
    bool gave_up;          /* reconnect.attempts ran out: probed every max_ms until it is up */
    size_t inflight;
    char *mem; /* buffers of the engine, one allocation */
} rg_cc_node;

struct rg_cc {
    rg_cluster_map map; /* read-only for the caller */
    rg_cc_stats stats;
    /* private */
    rg_cc_config cfg;
    rg_cc_node node[RG_CLUSTER_MAX_NODES];
    size_t n, done, arena_len;
    size_t scan;   /* calls before this index are in flight or complete: dispatch starts here */
    size_t nparts; /* fan-out parts, at the end of the batch array, growing down */
    uint16_t any;  /* rotates keyless calls over the masters */
    bool need_refresh;
    int64_t next_refresh_ns;
    int64_t progress_ns; /* the last time a reply came */
    uint64_t rng;        /* the reconnect delays' jitter */
    rg_cc_channel channel[RG_CC_MAX_CHANNELS];
    size_t nchannels;                     /* channel[] entries in use */
    rg_cc_sub *sub[RG_CLUSTER_MAX_NODES]; /* Pub/Sub connections, opened when needed */
    char seed_host[RG_CLUSTER_HOST_MAX];
    uint16_t seed_port;
    rg_status why_status; /* the last refresh or connect failure (rg_cc_error) */
    char why[256];
    rg_view argv[64];
    char rbuf_in[1 << 16], rbuf_out[1024];
    rg_call rcalls[4];
    rg_reply_reader merge;  /* decodes a fan-out's merged reply with its table */
    rg_cluster_index index; /* cfg.cmds hashed: routing without the binary search */
    rg_conn front;          /* rg_cc_conn: relays generated calls into the batch */
    bool adding;            /* inside rg_cc_add: callbacks wait (notify) */
    bool notify;            /* some call's callback waits */
};

/* Sets up cc with cfg (copied; its buffers stay the caller's) and reads the map from the seed
 * node. Returns RG_OK, or the failure (rg_cc_error says why; nothing is left open): RG_INVALID
 * when cmds, calls or arena is missing, else as rg_cc_refresh. */
rg_status rg_cc_init(rg_cc *cc, const rg_cc_config *cfg, const char *seed_host, uint16_t seed_port);

/* Closes every connection and frees the per-node buffers. */
void rg_cc_close(rg_cc *cc);

/* Reads the whole map again from a reachable node. Returns RG_OK, or the last failure
 * (rg_cc_error): the status of connecting (RG_REFUSED, RG_IO, RG_TIMEOUT ...), of the CLUSTER
 * SHARDS / SLOTS call, or of decoding the map (RG_MISMATCH, RG_FULL). */
rg_status rg_cc_refresh(rg_cc *cc);

/* The last refresh or connect failure: its status, the message ("host:port: why", in cc's own
 * buffer, valid until the next failure) and offset 0; status RG_OK when there was none. */
rg_error rg_cc_error(const rg_cc *cc);

/* Starts a new batch: the previous batch's results are no longer valid. */
void rg_cc_begin(rg_cc *cc);

/* Adds one encoded call (copied into the arena) with its reply table (NULL: raw, an
 * rg_raw_result) and result struct (caller-owned, or NULL); *index (may be NULL) gets its index in
 * the batch. Returns RG_OK when it was added, RG_FULL when the batch or the arena is full (run it
 * first; nothing added). A call refused by routing (CROSSSLOT, a fan-out that does not fit, not
 * an encoded call) is added already complete with its error. */
rg_status rg_cc_add(rg_cc *cc, const char *req, size_t len, const rg_rtable *table, void *result,
                    size_t *index);
/* rg_cc_add of argv (encoded with rg_argv_encode into the arena). */
rg_status rg_cc_add_argv(rg_cc *cc, size_t argc, const rg_view *argv, const rg_rtable *table,
                         void *result, size_t *index);

/* The cluster's front: an rg_conn without a socket on which the generated calls (and
 * rg_conn_call_argv) add calls to the batch, as on one node:
 *     redis_get_call(rg_cc_conn(cc), RG_LIT("k"), &r, cb, ud);
 * The request is encoded straight into the arena; the call's descriptor says which command it is
 * (no name lookup) and the call computed its keys' slot. The typed result goes to the result
 * struct, cb (may be NULL) gets an rg_call_done when the call is complete (status, error,
 * redirect: the last one met, written, result; id: the call's index in the batch + 1, what the
 * call returned), and rg_cc_get(cc, id - 1) reads it as any call of the batch. A call returns 0
 * when the batch or the arena is full (RG_FULL: nothing added). Callbacks run inside rg_cc_step
 * (a call refused while added, at the next one) and may add calls; they must not begin, run or
 * step the batch. MULTI/EXEC, the (un)subscribe family, HELLO, RESET and CLIENT TRACKING are
 * refused (RG_INVALID): each call of a batch goes its own way. Valid as long as cc. */
rg_conn *rg_cc_conn(rg_cc *cc);

/* Listens to a shard channel: SSUBSCRIBE on the master of its slot, over that node's connection
 * for Pub/Sub. Its messages come to cfg.on_push inside rg_cc_step, which a listener calls in a
 * loop (it waits up to timeout_ms for them). The subscription follows its slot: when the server
 * drops it (the slot moved away: an unsolicited sunsubscribe, also told to on_push), when the
 * node refuses it (MOVED) or its connection is lost (a failover), it is made again on the slot's
 * master as the refreshed map says. Returns RG_OK; RG_FULL (RG_CC_MAX_CHANNELS listened to);
 * RG_INVALID (no cfg.on_push, a name of RG_CC_CHANNEL_MAX bytes or more, or one listened to). */
rg_status rg_cc_ssubscribe(rg_cc *cc, rg_view channel);
/* Stops listening to channel (SUNSUBSCRIBE where it is subscribed). RG_OK, or RG_INVALID when it
 * was not listened to. */
rg_status rg_cc_sunsubscribe(rg_cc *cc, rg_view channel);
/* How many of the channels listened to are subscribed now (confirmed by their node). */
size_t rg_cc_subscribed(const rg_cc *cc);

/* Sends the batch and waits until every call has an outcome. Returns the number of calls that
 * did not end RG_OK (server errors included). */
size_t rg_cc_run(rg_cc *cc);

/* One round of the same loop, for callers that keep adding calls while earlier ones are in
 * flight: a due refresh, then every call added or waiting since the last round is queued (in the
 * caller's order) and written, then one poll(2) of at most timeout_ms (0: do not block) reads
 * whatever arrived and completes those calls. rg_cc_add may be called between rounds; a call's
 * outcome may be read as soon as its `complete` is set. Returns the calls of the batch that
 * have no outcome yet (0: the batch is done and rg_cc_begin may start the next). */
size_t rg_cc_step(rg_cc *cc, int timeout_ms);

/* Calls in the batch (the next call's index). */
static inline size_t rg_cc_size(const rg_cc *cc) {
    return cc->n;
}

/* Calls of the batch without an outcome yet. */
static inline size_t rg_cc_pending(const rg_cc *cc) {
    return cc->n - cc->done;
}

/* The batch's calls, in the order they were added. */
static inline const rg_cc_call *rg_cc_get(const rg_cc *cc, size_t i) {
    return &cc->cfg.calls[i];
}

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
