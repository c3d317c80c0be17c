/* respgen runtime: the Redis Cluster engine, sans I/O: routing, redirects, retries, fan-out and
 * merge, map refreshes, node reconnects and sharded Pub/Sub over one rg_conn per node, with no
 * socket, clock or event loop of its own. A driver connects what the engine asks for and moves
 * the bytes: adapters/rg_cluster_client.h (blocking, poll) and adapters/rg_cluster_uv.h (libuv).
 *
 * Calls come in batches. The caller fills a batch with encoded calls (generated encoders on
 * rg_cc_conn, rg_cc_add, rg_cc_add_argv): each goes to the node that serves its slot (keyless
 * calls to any master), pipelined per node, and completes through its callback (rg_cc_conn) or
 * is read from the batch (rg_cc_get) once `complete`. Typed results point into the nodes' input
 * buffers, which keep every reply of the batch (rg_conn_hold) until the next rg_cc_begin.
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
 *
 * The driver's contract. Links are numbered: node i's data link is i, its Pub/Sub link
 * RG_CLUSTER_MAX_NODES + i, the map refresh's RG_CC_REFRESH_LINK. The driver, in a loop:
 *   1. calls rg_cc_tick(cc, now) (a monotonic clock in ns): refreshes, (re)subscribes and
 *      dispatches the calls that are ready onto the open links' conns; it returns when it wants
 *      the next tick at the latest;
 *   2. for every link (rg_cc_link_count bounds them): RG_CC_CONNECT: rg_cc_link_dial gives host,
 *      port and the rg_conn_config to connect with (the engine's buffers); the driver connects
 *      (TLS with cfg.tls) and tells rg_cc_link_open with the conn it made from that config, or
 *      rg_cc_link_failed; RG_CC_CLOSE: it closes the transport and tells rg_cc_link_closed;
 *   3. for every OPEN link: writes the conn's output (rg_conn_output/written), feeds it what
 *      arrives (rg_conn_read_buf/feed), and tells rg_cc_link_failed when the transport fails.
 * Callbacks (calls' and pushes') run inside the driver's feeds and inside rg_cc_tick.
 */
#ifndef RG_CC_H
#define RG_CC_H

#include "rg_backoff.h"
#include "rg_cluster.h"
#include "rg_conn.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* (rg_tls.h's; the engine only hands it to the driver) */
typedef struct rg_tls_config rg_tls_config;

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
    uint64_t id;               /* what its call returned (rg_call_done.id; rg_cc_find) */
    rg_view error; /* the error text (truncated to 111 bytes), valid until the next rg_cc_begin */
    /* private. What a plain call's life touches comes first, and a new call clears exactly
     * that (hot): a call record is cold again by the time its reply comes, and each line of it
     * read then is a cache miss. The rest is written before it is read, on the paths that use
     * it (fan-outs, retries, rolls, errors). */
    struct rg_cc *cc;
    const rg_rtable *table;
    void *result;
    rg_call_fn cb; /* a relayed generated call's callback (rg_cc_conn), or NULL */
    void *ud;
    size_t off, len;
    int64_t dead_ns;   /* give up waiting for a node then */
    size_t parent;     /* a fan-out part: its call's index; else SIZE_MAX */
    size_t nparts;     /* a fan-out: its parts */
    uint16_t charged;  /* the shard master whose window counts it (RG_NODE_NONE: none) */
    uint16_t ask_node; /* ASK: where to send, once */
    uint16_t fixed;    /* a fan-out part: its node (RG_NODE_NONE: routed) */
    uint16_t tx;       /* a transaction: its pieces (MULTI, the calls, EXEC); 0: a plain call */
    uint8_t state;
    uint8_t response; /* a fan-out: rg_response_policy */
    bool notify;      /* its callback waits for the next rg_cc_step */
    bool own;         /* the engine's (SCAN's): its reply is used up in its callback */
    bool carve; /* its typed reply has arrays: kept raw, decoded with arena storage (deliver) */
    bool asking, read;
    bool tx_error;    /* a piece met a redirect (redirect_at): EXEC aborts, the block goes again */
    bool tx_cause;    /* a piece failed: its error is in text (EXEC's outcome says it) */
    bool reads_only;  /* every key read-only: sent again after a loss even when written */
    bool backoff;     /* waiting: a retry's delay (later calls for its node go ahead) */
    bool ordered;     /* a MULTI_SHARD fan-out whose reply lists its keys in order */
    bool typed_parts; /* its parts are decoded with its table (else raw) */
    uint8_t nkeys;    /* ordered: its keys */
    /* not cleared by a new call (see above) */
    int64_t due_ns; /* waiting: when to try again */
    size_t order;   /* ordered: arena offset of nkeys bytes, each key's part (split_by_slot's) */
    size_t mem_off, mem_cap; /* a typed part: its lists' storage in the arena */
    size_t parts;            /* a fan-out: parts not yet complete */
    size_t first_part;       /* a fan-out: where its parts start (they are at the batch's end) */
    size_t to;               /* rg_cc_roll: its index in the next batch */
    rg_raw_result raw;       /* a fan-out part's reply */
    rg_redirect redirect_at; /* the last redirect as parsed (its host a view into a held reply) */
    char text[112];          /* backs error */
} rg_cc_call;

typedef struct rg_cc rg_cc;

/* Told what happens to node i's connection (rg_reconnect_event: ev valid during the call):
 * DISCONNECTED (a connection that was up was lost; cause), ATTEMPT (the node's next connect,
 * attempt `attempt` from 1, waits delay_ms; cause: the failed connect before it, if any), READY
 * (connected again after a loss or a failed connect, its connect sequence answered), GAVE_UP
 * (reconnect.attempts connects failed in a row). It runs inside rg_cc_step: it may read cc, not
 * call rg_cc functions. */
typedef void (*rg_cc_event_fn)(rg_cc *cc, uint16_t node, const rg_reconnect_event *ev, void *ud);

/* rg_cc_config.read: where read-only calls go. */
typedef enum rg_cc_read { RG_CC_READ_PRIMARY = 0, RG_CC_READ_REPLICA, RG_CC_READ_ANY } rg_cc_read;

typedef struct rg_cc_config {
    const rg_cluster_commands *cmds; /* routing tables (static data) */
    rg_cc_call *calls;               /* the batch, caller-owned */
    size_t ncalls;
    char *arena; /* copies of the batch's requests, caller-owned */
    size_t arena_cap;
    rg_alloc_fn alloc; /* the nodes' buffers and Pub/Sub links (NULL: rg_conn_std_alloc) */
    void *alloc_ud;
    size_t node_in_cap;  /* per-node input buffer (0: 4 MiB) */
    size_t node_out_cap; /* per-node output buffer (0: 1 MiB) */
    int protocol;        /* 2 or 3 (0: 3) */
    /* Where calls whose keys are all read-only (the key specs' RO flag: GET, MGET, HGETALL ...)
     * go: RG_CC_READ_PRIMARY (0: the slot's master), RG_CC_READ_REPLICA (a replica of it,
     * rotating, its master when it has none), RG_CC_READ_ANY (the master and its replicas in
     * turn). Replica connections are sent READONLY first. */
    uint8_t read;
    bool read_from_replicas; /* the older spelling of read = RG_CC_READ_REPLICA */
    int connect_ms;          /* 0: 1000 */
    int io_ms;               /* a node silent this long with calls pending is lost (0: 5000) */
    int wait_ms;             /* how long a call may wait for a reachable node (0: 10000) */
    /* The window per shard: at most this many calls of the batch for one master's slots (by
     * the map when they are added) without an outcome; a call beyond it is refused, nothing
     * added (the call returns 0, RG_FULL; rg_cc_window_full says which), so that a shard that is
     * down or slow cannot fill the batch: calls for the others keep going while the batch rolls
     * (rg_cc_roll; the libuv driver rolls by itself) past the calls that wait. It also makes the
     * calls' ids increase from batch to batch (rg_cc_find). 0: no window, and ids are the batch
     * index + 1 until the batch first rolls. */
    size_t node_window;
    unsigned max_redirects;       /* 0: 5 */
    unsigned max_retries;         /* 0: 40 (about 4.5 s of backoff) */
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
    uint64_t window_full;    /* calls refused by their shard's window (cfg.node_window) */
    uint64_t rolls, carried; /* rg_cc_roll: batches rolled, calls carried into the next */
    uint64_t carried_flying; /* of those, calls on the wire when they were carried */
} rg_cc_stats;

/* Sharded Pub/Sub: the channels listened to (rg_cc_ssubscribe). */
enum { RG_CC_MAX_CHANNELS = 64, RG_CC_CHANNEL_MAX = 128 };

/* What rg_cc_listen listens to. */
typedef enum rg_cc_channel_kind {
    RG_CC_SHARD = 0, /* a shard channel (SSUBSCRIBE on its slot's master) */
    RG_CC_CHANNEL,   /* a channel (SUBSCRIBE on one node: every node hears every PUBLISH) */
    RG_CC_PATTERN    /* a pattern (PSUBSCRIBE, the same) */
} rg_cc_channel_kind;

typedef struct rg_cc_channel {
    char name[RG_CC_CHANNEL_MAX];
    uint8_t kind; /* rg_cc_channel_kind */
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

/* Where a link stands (rg_cc_link_want): the engine asks, the driver does and tells. */
typedef enum rg_cc_want {
    RG_CC_IDLE = 0, /* no connection, none wanted */
    RG_CC_CONNECT,  /* wanted: the driver dials (rg_cc_link_dial), then tells open or failed */
    RG_CC_DIALING,  /* the driver is connecting */
    RG_CC_OPEN,     /* connected: the driver writes its conn's output and feeds it what it reads */
    RG_CC_CLOSE     /* done with (its calls completed): the driver closes it, then tells closed */
} rg_cc_want;

typedef struct rg_cc_link {
    rg_conn *conn; /* the driver's connection while OPEN (else NULL) */
    uint8_t want;  /* rg_cc_want */
} rg_cc_link;

typedef struct rg_cc_node {
    rg_cc_link link;
    bool open; /* the link is OPEN */
    bool readonly_sent;
    int64_t down_until_ns; /* no connect before (the backoff's delay) */
    uint32_t attempt;      /* failed connects since the last loss or success (0: none) */
    bool lost;             /* it was up, then lost: READY told once it connects */
    bool tell_ready;       /* connected again: READY once its connect sequence is answered */
    bool gave_up;          /* reconnect.attempts ran out: probed every max_ms until it is up */
    size_t inflight;
    size_t charged; /* calls of the batch counted against its window (cfg.node_window) */
    size_t pins;    /* the caller's calls sent to it in this batch: its replies are kept */
    char *mem;      /* buffers of the engine, one allocation */
} rg_cc_node;

/* The map refresh: one at a time, on a link of its own, trying the nodes in turn. */
typedef struct rg_cc_refresh_state {
    bool active;
    bool shards_failed; /* CLUSTER SHARDS refused or undecodable: CLUSTER SLOTS next */
    uint8_t pass;       /* 0: healthy masters, 1: the other nodes, 2: the seed, 3: none left */
    uint8_t next;       /* after the reply: 0 waiting, 1 done, 2 try the next variant / node */
    uint16_t at;        /* the node asked (pass 0, 1) */
    char host[RG_CLUSTER_HOST_MAX];
    uint16_t port;
    rg_status status;  /* the last attempt's; once ended, the refresh's outcome */
    uint32_t rounds;   /* refreshes ended */
    rg_raw_result raw; /* the reply */
} rg_cc_refresh_state;

/* Links: node i's data link is i, its Pub/Sub link RG_CLUSTER_MAX_NODES + i; then the refresh's. */
enum { RG_CC_REFRESH_LINK = 2 * RG_CLUSTER_MAX_NODES, RG_CC_LINKS };

struct rg_cc {
    rg_cluster_map map; /* read-only for the caller */
    rg_cc_stats stats;
    /* private */
    rg_cc_config cfg;
    rg_cc_node node[RG_CLUSTER_MAX_NODES];
    size_t n, done, arena_len;
    size_t carried;    /* calls at the batch's start carried over by rg_cc_roll */
    size_t flying;     /* calls written to a node, their reply not yet in */
    uint64_t id_base;  /* a fresh call's id is id_base + its index + 1 */
    bool window_full;  /* the last call refused met its shard's window */
    size_t window_len; /* and its request's length */
    size_t scan;       /* calls before this index are in flight or complete: dispatch starts here */
    size_t nparts;     /* fan-out parts, at the end of the batch array, growing down */
    uint16_t any;      /* rotates keyless calls over the masters */
    uint16_t listener; /* the node that carries the channels and patterns */
    bool need_refresh;
    bool refresh_asked; /* rg_cc_refresh_start: not rate-limited */
    int64_t next_refresh_ns;
    int64_t now_ns;      /* the driver's clock at the last rg_cc_tick */
    int64_t next_ns;     /* when the engine wants the next tick */
    int64_t progress_ns; /* the last time a reply came */
    bool progressed;     /* a reply came since the last tick */
    uint64_t rng;        /* the reconnect delays' jitter */
    rg_cc_refresh_state refresh;
    rg_cc_link refresh_link;
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
    rg_reply_reader merge;        /* decodes a fan-out's merged reply with its table */
    rg_cluster_index index;       /* cfg.cmds hashed: routing without the binary search */
    rg_conn front;                /* rg_cc_conn: relays generated calls into the batch */
    const rg_cmd *known;          /* the last descriptor found in cfg.cmds (relay) */
    const rg_rtable *carve_table; /* the last reply table asked about, and whether its */
    bool carve;                   /* replies carve arrays (new_call) */
    const rg_keys_entry *entry;   /* the last command start saw, and its facts: */
    bool entry_ro, entry_special; /* read-only keys; REQUEST_POLICY:SPECIAL */
    bool adding;                  /* inside rg_cc_add: callbacks wait (notify) */
    bool notify;                  /* some call's callback waits */
    void *driver; /* the driver's own state (rg_cluster_client.h, rg_cluster_uv.h) */
};

/* Sets up cc with cfg (copied; its buffers stay the caller's), with the seed node to read the
 * map from. Nothing is connected: the first rg_cc_tick starts the refresh. RG_OK, or
 * RG_INVALID when cmds, calls or arena is missing (rg_cc_error says so). */
rg_status rg_cc_setup(rg_cc *cc, const rg_cc_config *cfg, const char *seed_host,
                      uint16_t seed_port);

/* Frees what the engine allocated (nodes' buffers, Pub/Sub links). The driver has closed every
 * link first: every link is IDLE. */
void rg_cc_teardown(rg_cc *cc);

/* Asks for the whole map again now (a refresh already running is kept). rg_cc_refreshing says
 * when it ended; rg_cc_error why it failed. */
void rg_cc_refresh_start(rg_cc *cc);
static inline bool rg_cc_refreshing(const rg_cc *cc) {
    return cc->refresh.active || (cc->need_refresh && cc->now_ns >= cc->next_refresh_ns);
}

/* The last refresh or connect failure: its status, the message ("host:port: why", in cc's own
 * buffer, valid until the next failure) and offset 0; status RG_OK when there was none. */
rg_error rg_cc_error(const rg_cc *cc);

/* Starts a new batch: the previous batch's results are no longer valid. */
void rg_cc_begin(rg_cc *cc);

/* Starts a new batch that keeps the calls of this one without an outcome: those waiting for a
 * node (a shard down or failing over, a retry's backoff) and those on the wire. They move to the
 * new batch's start with their ids, results, callbacks and deadlines (the nodes' connections
 * follow the calls on the wire), and the rest of the batch is free again: a caller that streams
 * never waits for the batch to drain. A pending fan-out is carried with its parts: those that
 * completed keep their replies, copied into the arena, when it writes (DEL, MSET: they must not
 * run twice), and are made again when it only reads (MGET, EXISTS: their replies are let go).
 * Only when some call completed and no callback waits, and not while a reply is half decoded
 * into a call's own memory (a raw fan-out part's: within a round trip), a fan-out has typed parts
 * (no window), or a complete part of a fan-out that writes has a reply longer than its request or
 * shares the call's (ALL_SHARDS: FLUSHALL ...): false then, nothing changed. A carried call's
 * index changes (rg_cc_find finds it by id) and its rg_call_done.redirect.host is empty. The
 * complete calls' results are no longer valid, as after rg_cc_begin. */
bool rg_cc_roll(rg_cc *cc);

/* Is a roll worth its copies now (the libuv driver's rule)? Some call complete, and either none
 * on the wire, or half of the batch complete while half of its calls or arena is used. */
static inline bool rg_cc_roll_due(const rg_cc *cc) {
    if (!cc->done) return false;
    const bool used =
        2 * (cc->n + cc->nparts) >= cc->cfg.ncalls || 2 * cc->arena_len >= cc->cfg.arena_cap;
    return !cc->flying || (2 * cc->done >= cc->n && used);
}

/* After a call returned 0 (RG_FULL): true when its shard's window was full (cfg.node_window:
 * calls for other shards may still be added), false when the batch or the arena was. */
static inline bool rg_cc_window_full(const rg_cc *cc) {
    return cc->window_full && cc->n + cc->nparts < cc->cfg.ncalls &&
           cc->cfg.arena_cap - cc->arena_len >= cc->window_len;
}

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

/* Adds a transaction: MULTI, the n calls (call i's words argv[i][0 .. argc[i])), EXEC, encoded
 * into the arena and written back to back, one block, to the master of their slot: every key of
 * every call must hash to one slot (keyless calls go along), else the block is refused before
 * anything is sent (RG_INVALID, CROSSSLOT). Its outcome is EXEC's reply, raw (table NULL: an
 * rg_raw_result with the array's bytes) or typed with table. A MOVED met by a queued call (the
 * slot moved: EXEC then aborts) sends the whole block to the new owner; an ASK (the slot is
 * migrating), TRYAGAIN or CLUSTERDOWN sends it again after a backoff; a lost connection reports
 * it RG_CLOSED with `written` when it may have run (all or nothing: it is a transaction). Returns
 * as rg_cc_add; RG_INVALID also for n 0. */
rg_status rg_cc_add_tx(rg_cc *cc, size_t n, const size_t *argc, const rg_view *const *argv,
                       const rg_rtable *table, void *result, size_t *index);
/* rg_cc_add_tx for callers that learn outcomes from callbacks (an event loop's: the libuv
 * driver begins the next batch by itself): cb (may be NULL) gets an rg_call_done with EXEC's
 * outcome when the transaction is complete, as a call made on rg_cc_conn does (a refusal too, at
 * the next step). Returns its id, 0 when the batch, the arena or the shard's window is full or n
 * is 0 (nothing added). */
uint64_t rg_cc_tx_call(rg_cc *cc, size_t n, const size_t *argc, const rg_view *const *argv,
                       const rg_rtable *table, void *result, rg_call_fn cb, void *ud);

/* The cluster's front: an rg_conn without a socket on which the generated calls (and
 * rg_conn_call_argv) add calls to the batch, as on one node:
 *     redis_get_call(rg_cc_conn(cc), RG_LIT("k"), &r, cb, ud);
 * The request is encoded straight into the arena; the call's descriptor says which command it is
 * (no name lookup) and the call computed its keys' slot. The typed result goes to the result
 * struct, cb (may be NULL) gets an rg_call_done when the call is complete (status, error,
 * redirect: the last one met, written, result; id: what the call returned: its index in the
 * batch + 1, or with cfg.node_window an id that increases from batch to batch), and
 * rg_cc_find(cc, id) reads it as any call of the batch. A call returns 0 when the batch or the
 * arena is full, or its shard's window (RG_FULL: nothing added). Callbacks run inside rg_cc_step
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
/* Listens to a channel (RG_CC_CHANNEL) or a pattern (RG_CC_PATTERN), as rg_cc_ssubscribe does
 * to a shard channel (RG_CC_SHARD). A cluster sends every PUBLISH to every node, so channels and
 * patterns are all subscribed on one node's Pub/Sub connection: a healthy replica (the masters
 * keep their work), else a master. When that connection is lost, or the node leaves the map,
 * they are subscribed again on the next such node (messages published meanwhile are not heard:
 * Redis Pub/Sub keeps nothing). Returns as rg_cc_ssubscribe. */
rg_status rg_cc_listen(rg_cc *cc, rg_cc_channel_kind kind, rg_view name);
/* Stops listening (the kind's unsubscribe where it is subscribed). RG_OK, or RG_INVALID when it
 * was not listened to. */
rg_status rg_cc_unlisten(rg_cc *cc, rg_cc_channel_kind kind, rg_view name);

/* Stops listening to channel (SUNSUBSCRIBE where it is subscribed). RG_OK, or RG_INVALID when it
 * was not listened to. */
rg_status rg_cc_sunsubscribe(rg_cc *cc, rg_view channel);
/* How many of the channels listened to are subscribed now (confirmed by their node). */
size_t rg_cc_subscribed(const rg_cc *cc);

/* ---- SCAN over the whole cluster ---- */

/* Told the keys of one SCAN reply (valid during the call; a key may come more than once). */
typedef void (*rg_cc_scan_fn)(void *ud, const rg_view *keys, size_t n);

/* A SCAN of every master's keyspace, one node after the other, each with its own cursor, its
 * calls going through the batch like any other (fixed to their node). The guarantee, kept
 * across resharding and failover: every key that exists from the start of the scan to its end is
 * told at least once. How: when every master of a pass has been scanned, the scan waits until no
 * master has a slot migrating or importing (each asked CLUSTER NODES in turn, again every 100 ms
 * while one has, for at most 60 s: a key moved to a node already scanned is found only once its
 * slot is handed over), then the map is read again
 * (CLUSTER SHARDS) and compared with the one the pass began with; each node that gained slots
 * since (the keys of a moved slot are on it now, maybe after its scan passed them), and each that
 * serves slots of a node whose scan failed, is scanned again from cursor 0, until a pass ends with
 * the map unchanged. Keys may be told more than once; a key added or deleted during the scan may
 * or may not be (as SCAN on one node). Caller-owned; private fields. */
typedef struct rg_cc_scan {
    bool done;        /* it ended: status says how */
    rg_status status; /* RG_OK, or why it stopped (error: its message) */
    rg_view error;
    uint32_t passes; /* 1 when no slot moved */
    uint64_t calls;  /* SCAN calls answered */
    uint32_t waits;  /* times a pass's end waited for a slot's migration to end */
    /* private */
    rg_cc *cc;
    rg_cc_scan_fn fn;
    void *ud;
    uint16_t snap[RG_CLUSTER_SLOTS]; /* the owners when this pass began */
    bool todo[RG_CLUSTER_MAX_NODES]; /* masters still to scan in this pass */
    bool failed[RG_CLUSTER_MAX_NODES];
    uint16_t node; /* scanned, or asked for the map */
    uint64_t cursor;
    bool busy;        /* one of its calls is in flight */
    bool settling;    /* the pass is over: are slots migrating? (each master asked in turn) */
    bool mapping;     /* ... none: the map is read again */
    uint16_t check;   /* settling: the next master to ask */
    int64_t delay_ns; /* the next call waits this long (a migration is running) */
    rg_raw_result raw;
    char args[256]; /* what follows the cursor (MATCH, COUNT, TYPE) */
    rg_view argv[8];
    size_t argc;
    char text[112]; /* backs error */
} rg_cc_scan;

/* Starts scanning with args after each cursor (argc <= 6, 256 bytes in all: MATCH p COUNT n TYPE
 * t; copied), fn told the keys: adds the first SCAN call. Returns RG_OK; RG_INVALID (args too
 * many or too long, an uncovered slot); RG_FULL (the batch is full: rg_cc_scan_next later). */
rg_status rg_cc_scan_start(rg_cc *cc, rg_cc_scan *s, size_t argc, const rg_view *args,
                           rg_cc_scan_fn fn, void *ud);

/* Adds the scan's next call when none of its calls is in flight: for after an RG_FULL (a full
 * batch stalls a scan: call this once the next batch began, e.g. on RG_CC_UV_DRAINED). Each
 * answer adds the next call by itself. Returns RG_OK, RG_FULL, or s->status once done. */
rg_status rg_cc_scan_next(rg_cc *cc, rg_cc_scan *s);

/* ---- the driver's side ---- */

/* One round of the engine at time now_ns (monotonic): a due refresh, the subscriptions to make,
 * the calls to send, READY events, and the silence check (io_ms). Returns the time by which it
 * wants the next tick (it also wants one after any read or a link's change). */
int64_t rg_cc_tick(rg_cc *cc, int64_t now_ns);

/* The links that may be in use: rg_cc_link_id(cc, j) for j below this. */
static inline size_t rg_cc_link_count(const rg_cc *cc) {
    return 2 * cc->map.nnodes + 1;
}

/* The j-th link that may be in use: the nodes' data links, their Pub/Sub links, the refresh's. */
static inline size_t rg_cc_link_id(const rg_cc *cc, size_t j) {
    if (j < cc->map.nnodes) return j;
    if (j < 2 * cc->map.nnodes) return RG_CLUSTER_MAX_NODES + j - cc->map.nnodes;
    return RG_CC_REFRESH_LINK;
}

/* Link l's struct (data, Pub/Sub or refresh link), NULL for one that does not exist. */
rg_cc_link *rg_cc_link_at(rg_cc *cc, size_t l);

/* What the engine wants of link l. */
static inline rg_cc_want rg_cc_link_want(rg_cc *cc, size_t l) {
    const rg_cc_link *k = rg_cc_link_at(cc, l);
    return k ? (rg_cc_want)k->want : RG_CC_IDLE;
}

/* Where to connect link l (RG_CC_CONNECT), which becomes DIALING: host (valid until the next
 * rg_cc_tick), port, the rg_conn_config to init the connection with, and the connect options
 * of cfg (tls, connect_ms, io_ms). */
typedef struct rg_cc_dial {
    const char *host;
    uint16_t port;
    rg_conn_config conn;
    const rg_tls_config *tls;
    int connect_ms, io_ms;
} rg_cc_dial;
void rg_cc_link_dial(rg_cc *cc, size_t l, rg_cc_dial *d);

/* Link l is connected: conn (the driver's, set up with the dial's config) takes calls. */
void rg_cc_link_open(rg_cc *cc, size_t l, rg_conn *conn);

/* Link l failed to connect, or its connection failed (cause: why). The engine completes the
 * conn's calls (rg_conn_closed) and forgets it; the link becomes CLOSE. */
void rg_cc_link_failed(rg_cc *cc, size_t l, rg_error cause);

/* The driver released link l's transport (after CLOSE): the link is IDLE. */
void rg_cc_link_closed(rg_cc *cc, size_t l);

/* Calls in the batch (the next call's index). */
static inline size_t rg_cc_size(const rg_cc *cc) {
    return cc->n;
}

/* Calls of the batch without an outcome yet. */
static inline size_t rg_cc_pending(const rg_cc *cc) {
    return cc->n - cc->done;
}

/* The batch's calls, in the order they were added (after a roll, the carried ones first). */
static inline const rg_cc_call *rg_cc_get(const rg_cc *cc, size_t i) {
    return &cc->cfg.calls[i];
}

/* The call of the batch whose id is id (what its call returned), or NULL when the batch has
 * none: one look for a call made in this batch, a search of the carried ones else. */
const rg_cc_call *rg_cc_find(const rg_cc *cc, uint64_t id);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
