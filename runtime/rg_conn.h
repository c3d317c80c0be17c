/* respgen runtime: a sans-I/O client connection engine.
 *
 * The engine owns no socket, thread or timer: the caller moves bytes (rg_conn_output /
 * rg_conn_written out, rg_conn_read_buf / rg_conn_feed in) and the engine pairs every reply
 * with the call that asked for it, decodes it with that command's typed table (rg_reply.h) and
 * completes the call through its callback. Out-of-band values (RESP3 pushes; in RESP2 subscribe
 * mode, messages) go to the push handler (rg_push.h), never to a call.
 *
 * It handles: pipelining (a ring of pending calls), Pub/Sub in RESP3 and RESP2 (subscription
 * confirmations count down their command; an UNSUBSCRIBE without names is closed by an internal
 * PING), MULTI/EXEC (QUEUED checked, EXEC's array decoded element by element with each queued
 * command's table, EXECABORT, a null EXEC after a failed WATCH), a connect sequence (HELLO 3,
 * falling back to RESP2 on an unknown command or NOPROTO; AUTH; SELECT; CLIENT SETNAME) run again
 * by rg_conn_reset after a reconnect, with the subscriptions it registered (rg_conn_config.subs),
 * connection loss (every pending call completes once with RG_CLOSED, in order), calls made while
 * down refused or queued within a bound (rg_conn_offline, rg_conn_config.queue_calls) and
 * deadlines (see rg_conn_expire). Redirect and retry errors are parsed for a cluster layer.
 *
 * Memory, two ways. Fixed: every buffer is the caller's, given once at rg_conn_init
 * (rg_conn_config), or inside the rg_conn (the decoder's frames for replies nested up to
 * RG_CONN_MAX_DEPTH levels); nothing is ever allocated, and a full ring, output buffer or array
 * storage makes the call fail at once (returns 0, or completes with RG_SHORT). Grown: given an
 * allocator (rg_conn_config.alloc), the buffers not given are allocated at init with the
 * RG_CONN_DEFAULT_* sizes, and every buffer (given or not) grows through the allocator when a
 * reply, a request, a pipeline or a reply's arrays need more, up to the RG_CONN_MAX_* bounds
 * (the config's max_*), and so does the subscription registry when no storage is given for it
 * (rg_conn_config.subs). Commands whose requests and replies fit what is there allocate nothing.
 *
 * Lifetimes: views in a completed call's result, error text and pushes point into the input
 * buffer (or the storage given for arrays) and are valid until the callback returns; after it,
 * until the next rg_conn_read_buf (which compacts the input, and is the only place it may move
 * to a grown buffer), unless rg_conn_hold keeps them.
 * Callbacks may queue new calls; they must not feed, reset or close the connection.
 */
#ifndef RG_CONN_H
#define RG_CONN_H

#include "rg_cmd.h"
#include "rg_push.h"
#include "rg_reply.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* Nesting every connection reads unless told otherwise, as hiredis does (its
 * REDIS_READER_MAX_REPLY_DEPTH): a Lua script returns tables nested 1,000 levels deep and more. */
#define RG_CONN_MAX_DEPTH 1024
/* The frames inside an rg_conn: one per level of RG_CONN_MAX_DEPTH past the decoder's own. */
#define RG_CONN_OWN_FRAMES (RG_CONN_MAX_DEPTH > RG_MAX_DEPTH ? RG_CONN_MAX_DEPTH - RG_MAX_DEPTH : 1)

/* The largest input buffer the engine grows to unless told (rg_conn_config.max_reply): Redis's
 * proto-max-bulk-len (512 MiB) and room for that bulk's header. */
#define RG_CONN_MAX_REPLY (((size_t)512 << 20) + 4096)
/* A grown input buffer no larger than this is kept for the next big reply; a larger one goes back
 * to the allocator once the input is nearly idle (see rg_conn_read_buf), so one 64 MiB value
 * does not pin 64 MiB for the connection's life. */
#define RG_CONN_KEEP_GROWN ((size_t)1 << 20)

/* With rg_conn_config.alloc, what rg_conn_init allocates for each buffer not given (NULL or 0),
 * in one block: 16 KiB in and out (hiredis reads 16 KiB at a time; a pipeline of a few hundred
 * small commands fits), 64 calls (a pipeline that deep without growing; 64 * sizeof(rg_call),
 * about 5 KiB) and 4 KiB of array storage (an LRANGE of 256 elements, an HGETALL of 128 fields).
 * About 41 KiB per connection, then growth as needed. */
#define RG_CONN_DEFAULT_IN      ((size_t)16 << 10)
#define RG_CONN_DEFAULT_OUT     ((size_t)16 << 10)
#define RG_CONN_DEFAULT_CALLS   ((size_t)64)
#define RG_CONN_DEFAULT_STORAGE ((size_t)4 << 10)
/* The bounds growth stops at unless the config says (max_out, max_calls, max_storage): one
 * request as large as the largest reply (a SET of a proto-max-bulk-len value); 2^20 pending calls
 * (80 MiB of ring); 1 GiB of array storage (a reply of max_reply bytes of small elements needs
 * more than its own size: 16 bytes a view for 4 bytes of ":1\r\n"). */
#define RG_CONN_MAX_OUT     RG_CONN_MAX_REPLY
#define RG_CONN_MAX_CALLS   ((size_t)1 << 20)
#define RG_CONN_MAX_STORAGE ((size_t)1 << 30)

/* An allocator, realloc's contract with a user pointer: (ud, NULL, n) allocates n bytes, (ud, p,
 * n) resizes p (moving it if need be), (ud, p, 0) frees p (and returns NULL); NULL when out of
 * memory (p then unchanged). rg_conn_std_alloc is one over the C library's. */
typedef void *(*rg_alloc_fn)(void *ud, void *ptr, size_t size);
/* realloc and free; ud unused. */
void *rg_conn_std_alloc(void *ud, void *ptr, size_t size);

/* How a call ends: an rg_status (rg.h). RG_OK: the typed result is in *result;
 * RG_SERVER_ERROR: the server answered an error (error, and redirect when it is one);
 * RG_MISMATCH: the reply's shape is not the command's (error says where); RG_SHORT: the array
 * storage was too small (needed; the reply was skipped); RG_FULL: the storage could not grow,
 * the allocator refused (needed; the reply was skipped); RG_ABORTED: queued in MULTI, its
 * transaction did not run (EXECABORT, DISCARD, a failed WATCH's null EXEC); RG_ABANDONED:
 * rg_conn_abandon gave up on it (its reply is dropped); RG_CLOSED: the connection was lost or
 * closed before the reply; RG_TIMEOUT: its deadline passed (rg_conn_expire: the connection is
 * closed); RG_ERR_PROTOCOL, RG_ERR_LIMIT, RG_ERR_DEPTH: the stream broke (a malformed, too large
 * or too deep reply): the connection is dead. */

/* Redirect and retry errors, parsed for a cluster layer. */
typedef enum rg_redirect_kind {
    RG_REDIRECT_NONE = 0,
    RG_REDIRECT_MOVED,       /* -MOVED slot host:port */
    RG_REDIRECT_ASK,         /* -ASK slot host:port */
    RG_REDIRECT_TRYAGAIN,    /* -TRYAGAIN ... */
    RG_REDIRECT_LOADING,     /* -LOADING ... */
    RG_REDIRECT_BUSY,        /* -BUSY ... */
    RG_REDIRECT_CLUSTERDOWN, /* -CLUSTERDOWN ... */
    RG_REDIRECT_MASTERDOWN   /* -MASTERDOWN ... */
} rg_redirect_kind;

typedef struct rg_redirect {
    rg_redirect_kind kind;
    int32_t slot;  /* MOVED, ASK: 0..16383; else -1 */
    rg_view host;  /* MOVED, ASK: a view into the error text; empty means "the node asked" */
    uint16_t port; /* MOVED, ASK */
} rg_redirect;

/* Parses an error text (as sent, without '-'). Returns the kind (also in *out); a MOVED or ASK
 * without a valid slot and host:port is RG_REDIRECT_NONE. */
rg_redirect_kind rg_redirect_parse(rg_view error, rg_redirect *out);

/* What a completion callback receives (valid during the call only). */
typedef struct rg_call_done {
    rg_status status;
    uint64_t id;          /* what the call returned */
    void *result;         /* the result struct given to the call */
    rg_view error;        /* error text: the server's as sent, or the engine's message */
    rg_redirect redirect; /* SERVER_ERROR: parsed */
    size_t needed;        /* SHORT, FULL: storage bytes the reply needs */
    const rg_push *push;  /* Pub/Sub commands: the last confirmation, or NULL */
    /* Every byte of the request was handed to rg_conn_written: the server may have run it. When
     * false (a CLOSED or TIMEOUT call whose request never fully left), it certainly did not, and
     * the call is safe to send again. Always true for a call that got its reply. */
    bool written;
    /* RG_OK of a plain call read from the stream: the reply's RESP bytes as they came (a view
     * into the input, as the result's), what a client-side cache stores (rg_cache.h); else
     * empty. */
    rg_view reply;
} rg_call_done;

typedef void (*rg_call_fn)(void *ud, const rg_call_done *d);
typedef struct rg_conn rg_conn;
typedef void (*rg_push_fn)(void *ud, const rg_push *p);

/* A server's role, as ROLE tells it (rg_conn_config.role; rg_role_parse). */
typedef enum rg_role {
    RG_ROLE_ANY = 0, /* as a check: none; as a parse: not a ROLE reply (or an unknown role) */
    RG_ROLE_MASTER,
    RG_ROLE_REPLICA, /* "slave" */
    RG_ROLE_SENTINEL
} rg_role;

/* The role in a ROLE reply, given as its RESP bytes (an array whose first element is "master",
 * "slave" or "sentinel"); RG_ROLE_ANY for anything else, malformed or truncated bytes included.
 * Reads at most the array's header and first element. */
rg_role rg_role_parse(rg_view raw);
/* "master", "replica", "sentinel" or "unknown". */
const char *rg_role_name(rg_role r);

/* Flags of a call. */
enum {
    RG_CALL_F_PUBSUB = 1u /* a (p|s)(un)subscribe: completes on its confirmations */
};

/* One pending call: the caller gives an array of them (rg_conn_config.calls). Fields private: use
 * the functions below. */
typedef struct rg_call {
    const rg_rtable *table;
    void *result;
    rg_call_fn cb;
    void *ud;
    void *mem; /* array storage, or NULL for the connection's shared one */
    size_t cap;
    uint64_t id;
    uint64_t deadline; /* 0: none; RG_DEADLINE_UNSTARTED | ms: a timeout not started yet */
    uint64_t end;      /* output stream offset just past its request */
    uint32_t expect;   /* Pub/Sub: confirmations still due; 0 with PUBSUB: until the next reply */
    uint8_t flags;
    uint8_t kind;   /* rg_conn.c's K_*: plain, multi, queued, exec, ... */
    uint8_t pubsub; /* rg_push_kind of the confirmations */
    bool done;      /* completed early (a queue-time error in MULTI) */
} rg_call;

/* Connect sequence and buffers. Strings are copied into the output when queued; the config
 * itself need not outlive rg_conn_init except the buffers. */
typedef struct rg_conn_config {
    char *in; /* input buffer, caller-owned (never freed by the engine); see alloc */
    size_t in_cap;
    char *out; /* output buffer, caller-owned */
    size_t out_cap;
    rg_call *calls; /* the ring of pending calls, caller-owned */
    size_t ncalls;  /* used rounded down to a power of two (an index mask, no division) */
    void *storage;  /* shared array storage for calls without their own */
    size_t storage_cap;
    rg_push_fn on_push; /* NULL: pushes are dropped */
    void *push_ud;
    /* Called by rg_conn_init and rg_conn_reset once the connect sequence is queued (NULL: not):
     * calls queued here go out right after it, e.g. the SUBSCRIBEs to replay after a reconnect. */
    void (*on_connect)(void *ud, rg_conn *c);
    void *connect_ud;
    int protocol;     /* 3: HELLO 3 (falls back to 2), 2: RESP2, 0: send nothing (as is) */
    rg_view user;     /* AUTH user (empty: default) */
    rg_view password; /* empty: no AUTH */
    int64_t db;       /* SELECT when not 0 */
    rg_view name;     /* CLIENT SETNAME when not empty */
    /* RG_ROLE_ANY: nothing. Else ROLE ends the connect sequence and a server in another role
     * fails the connection (RG_CLOSED, "connect: ROLE ..."), before any call is written: a client
     * that was sent to a master (by Sentinel: rg_sentinel.h) never writes to a replica that was
     * named by mistake or demoted since. The calls held behind the sequence complete with
     * RG_CLOSED and `written` false; an adapter that reconnects goes on as after a loss. */
    rg_role role;
    const rg_limits *limits; /* NULL: defaults, but for max_depth (see frames) */
    /* Replies nest up to limits->max_depth levels when it is set, else RG_CONN_MAX_DEPTH, or with
     * frames given RG_MAX_DEPTH + nframes; a deeper one is a protocol error (RG_ERR_DEPTH) that
     * ends the connection. Each level past the decoder's RG_MAX_DEPTH takes one rg_frame: from
     * frames[0..nframes) (caller-owned, borrowed for the connection's life) when given, else
     * from the connection's own, RG_CONN_MAX_DEPTH levels' worth. rg_conn_init fails when
     * max_depth needs more frames than there are. */
    rg_frame *frames;
    size_t nframes;
    /* Deadlines, in the caller's milliseconds (see rg_conn_expire); 0: none. */
    uint32_t timeout_ms;         /* every call's, from when the engine first sees the time */
    uint32_t connect_timeout_ms; /* the connect sequence's, until it is answered */
    /* Input growth. NULL: none (in_cap bytes is the most a reply, or a held run of replies, may
     * take: rg_conn_read_buf then returns NULL). Else, when the input buffer is full of a reply
     * not yet whole, rg_conn_read_buf moves it to a buffer twice as large from alloc (alloc_ud
     * passed back), up to max_reply bytes (0: RG_CONN_MAX_REPLY); a reply that needs more fails
     * the connection with RG_ERR_LIMIT, nothing of it misread. A grown buffer is the engine's:
     * kept across rg_conn_reset, given back when idle (RG_CONN_KEEP_GROWN) and by rg_conn_free.
     * rg_conn_config_of(c)->in and in_cap tell the buffer in use. */
    rg_alloc_fn alloc;
    void *alloc_ud;
    size_t max_reply;
    /* The rest of the memory, with alloc set (without it these are ignored and nothing grows).
     * in, out, calls and storage NULL (or their sizes 0): allocated by rg_conn_init (and by
     * rg_conn_reset after rg_conn_free) with the RG_CONN_DEFAULT_* sizes. Then:
     * - out: a request that does not fit (after the sent bytes are dropped) moves the output to
     *   a buffer twice as large (or as large as the request needs), up to max_out bytes (0:
     *   RG_CONN_MAX_OUT); above, the call fails (returns 0). While the output is pinned
     *   (rg_conn_output_pin) the bytes are copied to the new buffer at the same offsets and the
     *   old one stays alive for the write reading it, until unpinned. A grown buffer larger than
     *   RG_CONN_KEEP_GROWN goes back once everything in it was written.
     * - calls: a full ring doubles, up to max_calls (0: RG_CONN_MAX_CALLS; rounded down to a
     *   power of two); ids stay valid. Full at the bound: the call fails (returns 0).
     * - storage: a reply whose arrays do not fit the shared storage (calls without their own,
     *   rg_conn_call_storage) gets storage of the size it needs (twice the old at least) and is
     *   decoded again, up to max_storage bytes (0: RG_CONN_MAX_STORAGE); above, the call
     *   completes with RG_SHORT as without alloc. A grown storage larger than
     *   RG_CONN_KEEP_GROWN goes back at the next rg_conn_read_buf.
     * The allocator refusing fails the call at once (returns 0) for out and calls, completes it
     * with RG_FULL (needed: the bytes) for storage; the connection lives on. Everything the
     * engine allocated goes back at rg_conn_free. rg_conn_config_of tells the buffers in use. */
    size_t max_out;
    size_t max_calls;
    size_t max_storage;
    /* The subscription registry: the channels, patterns and shard channels the server confirmed
     * (added on a (p|s)subscribe confirmation, removed on the matching unsubscribe's, all of a
     * class when one says none are left, all by RESET), queued again by rg_conn_reset and
     * rg_conn_offline right behind the connect sequence; with them the last CLIENT TRACKING that
     * succeeded without REDIRECT (its request kept whole; OFF forgets it). Its memory: subs
     * (caller-owned, subs_cap bytes) when given; else, with alloc set, from alloc as names come, up
     * to subs_cap bytes (0: RG_CONN_MAX_SUBS), given back by rg_conn_free; else there is none
     * (nothing is replayed; on_connect may resubscribe). A name takes its length +
     * RG_CONN_SUB_OVERHEAD bytes. Full: a (P|S)SUBSCRIBE whose names do not fit beside those held
     * and those of the subscribes still pending is refused (returns 0, nothing sent), so every
     * subscription the server holds is one the engine can replay. The replay needs the output room
     * of one SUBSCRIBE per class with all its names (else rg_conn_reset fails with RG_FULL). */
    char *subs;
    size_t subs_cap;
    /* Calls made while the connection is down (rg_conn_offline until rg_conn_online): with
     * queue_calls 0 they are refused at once (return 0); else up to queue_calls calls of at most
     * queue_bytes request bytes in all (0: no byte bound but the output buffer) wait behind the
     * connect sequence and the replayed subscriptions, and the one past a bound is refused. */
    uint32_t queue_calls;
    size_t queue_bytes;
} rg_conn_config;

/* The registry's cost per name (see rg_conn_config.subs), and its largest size from alloc. */
#define RG_CONN_SUB_OVERHEAD 5
#define RG_CONN_MAX_SUBS     ((size_t)1 << 20)

typedef enum rg_conn_state {
    RG_CONN_HANDSHAKE, /* the connect sequence runs; user requests wait in the output */
    RG_CONN_READY,
    RG_CONN_FAILED, /* a protocol error, a rejected handshake, or rg_conn_closed: see error */
    RG_CONN_RELAY   /* a front (rg_conn_relay_init): no socket, its calls are relayed */
} rg_conn_state;

/* A call committed on a front, as its relay receives it (valid during the relay call). */
typedef struct rg_relayed {
    const char *req; /* the request, where it was encoded: the front's output */
    size_t len;
    const rg_cmd *cmd;      /* the generated call's descriptor, or NULL (rg_conn_commit_request) */
    const rg_rtable *table; /* how to read its reply (NULL: raw, an rg_raw_result) */
    int slot; /* the slot the generated call computed from its keys (rg_conn_relay_slot):
                 0..16383, RG_SLOT_NONE, RG_SLOT_CROSS, else RG_SLOT_UNKNOWN (find the keys) */
    void *result;
    rg_call_fn cb;
    void *ud;
} rg_relayed;

/* Takes a call committed on a front: returns its id (never 0), or 0 when it was not taken. */
typedef uint64_t (*rg_relay_fn)(void *relay_ud, const rg_relayed *call);

/* The engine. Fields private: use the functions below. */
struct rg_conn {
    rg_conn_config cfg;
    rg_conn_state state;
    int resp;              /* the protocol in use: 2 or 3 */
    size_t in_len, in_pos; /* in[in_pos..in_len): unread */
    size_t in_keep;        /* hold: bytes before in_pos kept from here (SIZE_MAX: none) */
    uint64_t in_base;      /* stream offset of in[0] */
    bool mid_reply;        /* a reply is partly decoded */
    size_t reply_from;     /* where in `in` that reply starts */
    size_t out_len, out_sent, out_ready; /* out[out_sent..out_ready) may be written */
    uint64_t out_base;                   /* output stream offset of out[0] */
    bool out_pinned;
    size_t first, head, tail, used; /* ring: unreleased, next to answer, next free */
    uint64_t next_id;
    uint8_t hs_steps[6]; /* the connect sequence still to answer (private codes) */
    uint8_t hs_n, hs_i;
    size_t held_from;  /* output offset where user requests start during the handshake */
    uint32_t r2_subs;  /* RESP2 subscribe mode: channels and patterns held (on while > 0) */
    uint32_t r2_ssubs; /* and shard channels */
    uint32_t pubsub_pending;
    bool in_multi;
    bool tracking; /* CLIENT TRACKING was sent or an invalidation came: a loss flushes caches */
    bool offline;  /* down, a reconnect to come: calls are queued within cfg.queue_* or refused */
    bool subs_own; /* the registry is from cfg.alloc */
    char *subs;    /* the subscription registry: [class][u32 length][name]... */
    size_t subs_len, subs_cap, subs_max;
    size_t subs_reserved;  /* room promised to the pending subscribes' names */
    uint32_t replay_left;  /* replayed subscribes not answered yet */
    uint32_t queued_calls; /* calls (and their bytes) queued while offline */
    size_t queued_bytes;
    uint64_t hs_deadline; /* the connect sequence's (encoded as rg_call.deadline) */
    size_t stamp_from;    /* calls before this index have their deadline started */
    bool timed;           /* a deadline was given since the last start: expiry looks */
    rg_status err_status;
    uint64_t err_offset;
    rg_relay_fn relay; /* a front's (RG_CONN_RELAY) */
    void *relay_ud;
    int relay_slot; /* the next relayed call's slot */
    char msg[160];
    rg_view error;
    rg_view done_reply;  /* the RESP bytes of the reply being completed (rg_call_done.reply) */
    rg_push_fn inval_fn; /* rg_conn_on_invalidate's: a client-side cache */
    void *inval_ud;
    /* EXEC's array (and RESP2 subscribe mode's PING pair) read one element at a time */
    uint64_t unwrap_left; /* its elements still to come (0: none is being read) */
    uint64_t unwrap_i;    /* the next element's index */
    size_t unwrap_next;   /* EXEC: ring index of the queued call the next element answers */
    size_t unwrap_from;   /* where in `in` the array starts, kept while unwrap_keep */
    bool unwrap_keep;     /* EXEC's own typed result reads the whole array at its end */
    rg_reply_reader rr;
    rg_reply_reader sub; /* a second decode: EXEC's own result, a confirmation, HELLO's */
    rg_frame deep[RG_CONN_OWN_FRAMES]; /* unless cfg.frames: see there */
    char *in_own;                      /* the caller's input buffer (cfg.in is the one in use) */
    size_t in_own_cap;
    char *in_retired; /* grown blocks replaced while held, chained through their headers */
    /* The memory that grows (see rg_conn_config.max_out): the base buffers are the caller's or
     * the block allocated at init (defaults); cfg's are the ones in use. */
    char *out_own;
    size_t out_own_cap;
    char *out_retired; /* grown output blocks replaced while pinned, chained as in_retired */
    rg_call *calls_own;
    size_t ncalls_own;
    void *storage_own;
    size_t storage_own_cap;
    size_t storage_need; /* the storage bytes the last reply too large for it needed */
    void *defaults;      /* the block rg_conn_init allocated for the buffers not given, or NULL */
    uint8_t defaulted;   /* which buffers it holds (private bits) */
};

/* Prepares c with cfg and queues the connect sequence. Returns RG_OK; RG_INVALID when a buffer is
 * missing (without alloc) or the frames do not reach the depth asked for; RG_FULL when the
 * sequence does not fit the output or the allocator refused the default buffers (rg_conn_error
 * says which; the state is then FAILED). With alloc set, call rg_conn_free when done with c. */
rg_status rg_conn_init(rg_conn *c, const rg_conn_config *cfg);

/* After a reconnect: every pending call completes with RG_CLOSED (if rg_conn_closed did
 * not already), buffers and decoder start over, the connect sequence is queued again and, right
 * behind it, one SUBSCRIBE, PSUBSCRIBE and SSUBSCRIBE with the registry's names (see
 * rg_conn_config.subs; their confirmations go to no callback and no push handler), then the
 * on_connect hook runs. Returns as rg_conn_init. */
rg_status rg_conn_reset(rg_conn *c);

/* For an adapter that reconnects by itself: the connection is down and a reconnect will follow.
 * When c failed (or is not offline already) it starts over as rg_conn_reset does (pending calls
 * RG_CLOSED; connect sequence, replay and on_connect queued); when it is offline already (an
 * attempt whose connect failed, nothing written) nothing changes, so nothing is queued twice.
 * Until rg_conn_online, calls are queued within rg_conn_config.queue_calls / queue_bytes or
 * refused, the connect sequence's deadline waits, and the calls' deadlines run (one that passes
 * fails the connection as rg_conn_expire says: call rg_conn_offline again). Returns as
 * rg_conn_reset. */
rg_status rg_conn_offline(rg_conn *c);
/* The new socket is connected: calls are taken as usual again and the connect sequence's
 * deadline starts. */
void rg_conn_online(rg_conn *c);
/* Is c down, waiting for a reconnect (between rg_conn_offline and rg_conn_online)? */
static inline bool rg_conn_is_offline(const rg_conn *c) {
    return c->offline;
}
/* Replayed subscribes not answered yet: an adapter tells "ready" once this is 0 too. */
static inline uint32_t rg_conn_replaying(const rg_conn *c) {
    return c->replay_left;
}
/* The names in the subscription registry (channels, patterns and shard channels). */
size_t rg_conn_subscriptions(const rg_conn *c);

/* The connection is gone (EOF, error, timeout): every pending call completes once, in order, with
 * RG_CLOSED and why as its error (borrowed for the call only; empty: "connection closed");
 * the state becomes FAILED until rg_conn_reset and rg_conn_error tells RG_CLOSED. When the
 * connection used client-side caching (CLIENT TRACKING was sent, or an invalidation came), the
 * push handler then gets one invalidation with flush_all set (and raw empty): invalidations may
 * have been lost with the connection, so a cache must drop everything. */
void rg_conn_closed(rg_conn *c, rg_view why);

/* ---- output --------------------------------------------------------------------------------- */

/* Bytes to write next (*n of them), or NULL with *n 0. Valid until the next call on c. */
const char *rg_conn_output(const rg_conn *c, size_t *n);
/* n bytes of rg_conn_output were written. */
void rg_conn_written(rg_conn *c, size_t n);

/* While pinned, bytes already in the output never move (an asynchronous write may be reading
 * them): a call that needs the room compaction would make fails (returns 0) instead, or with
 * alloc the output grows into a new buffer and the pinned one stays alive until unpinned. */
void rg_conn_output_pin(rg_conn *c, bool on);

/* For generated calls: room for one request of exactly n bytes at the end of the output, or NULL
 * when it does not fit, no call slot is free or the connection failed. Write the request there,
 * then rg_conn_commit. */
char *rg_conn_reserve(rg_conn *c, size_t n);
/* For generated calls: the free room at the end of the output (*cap bytes, no compaction), or
 * NULL when no call slot is free or the connection failed. An encoder that fits writes there and
 * the call is committed; one that does not falls back to rg_conn_reserve with its exact size. */
char *rg_conn_room(rg_conn *c, size_t *cap);
/* For generated calls: queues the call whose n-byte request was just written at rg_conn_reserve's
 * (or rg_conn_room's) pointer. cmd is the command's descriptor (static data, rg_cmd.h): the
 * engine learns from it, not from the bytes, which command it is and how its reply is read
 * (cmd->reply). result: a struct of cmd->reply->result_size bytes, caller-owned, written when the
 * reply comes (NULL: the reply is checked and dropped); cb may be NULL. Returns the call's id
 * (never 0); 0 when nothing was queued: n == 0 (an encoder that did not fit), the ring is full,
 * the connection failed, a MULTI inside a MULTI, or a (un)subscribe inside one. */
uint64_t rg_conn_commit(rg_conn *c, size_t n, const rg_cmd *cmd, void *result, rg_call_fn cb,
                        void *ud);
/* rg_conn_commit for a request written by other means (the caller's own encoder, rg_argv_encode):
 * its name is looked up among the commands the engine treats specially (rg_cmd_lookup), and its
 * reply read with table (NULL: raw, an rg_raw_result). */
uint64_t rg_conn_commit_request(rg_conn *c, size_t n, const rg_rtable *table, void *result,
                                rg_call_fn cb, void *ud);
/* rg_conn_commit_request without the lookup, for a layer that knows the request is one plain
 * command (one request, one reply; a PING outside subscribe mode is one): the cluster client,
 * whose calls were checked when they were added. */
uint64_t rg_conn_commit_plain(rg_conn *c, size_t n, const rg_rtable *table, void *result,
                              rg_call_fn cb, void *ud);

/* Array storage for the call just committed (id), instead of the shared one: its results then
 * stay valid after later replies. Returns RG_OK, or RG_INVALID when id is not the last call. */
rg_status rg_conn_call_storage(rg_conn *c, uint64_t id, void *mem, size_t cap);

/* For the owner of the ring's callers' memory (the cluster engine compacting its batch): fn(ctx,
 * call) sees each call not yet complete and may change its ud and its result to where the owner
 * moved them. Not while a reply is being decoded into a result that moves (rg_conn_decoding). */
typedef void (*rg_call_visit_fn)(void *ctx, rg_call *call);
void rg_conn_each_pending(rg_conn *c, rg_call_visit_fn fn, void *ctx);

/* The result a reply is being decoded into, part way (its bytes came in pieces), or NULL. */
const void *rg_conn_decoding(const rg_conn *c);

/* ---- fronts ---------------------------------------------------------------------------------- */

/* A front is an rg_conn without a socket or a ring whose calls go elsewhere, so that the
 * generated calls (and rg_conn_call_argv) run unchanged on another engine, e.g. a cluster client
 * (rg_cc_conn): rg_conn_room and rg_conn_reserve hand out room in out[0..cap) past the bytes the
 * owner says are used (rg_conn_relay_used), the request is encoded there, and the commit is
 * relayed to fn(ud, call) with the command's descriptor, reply table, result, callback and the
 * slot the call computed, instead of being queued; fn's answer is the call's id. The owner
 * completes the call through its callback. Every other function is for socket connections: a
 * front's state is RG_CONN_RELAY. out stays the caller's. */
void rg_conn_relay_init(rg_conn *c, char *out, size_t cap, rg_relay_fn fn, void *ud);
/* The first used bytes of the front's output are taken: room starts after them. */
void rg_conn_relay_used(rg_conn *c, size_t used);
/* Is c a front? The generated calls ask, to compute their slot only for one. */
static inline bool rg_conn_relayed(const rg_conn *c) {
    return c->state == RG_CONN_RELAY;
}
/* For generated calls on a front: the slot of the call about to be committed (else the relay
 * sees RG_SLOT_UNKNOWN). */
void rg_conn_relay_slot(rg_conn *c, int slot);

/* The raw table: a reply of any shape, kept as its RESP bytes (decode them with rg_next). */
typedef struct rg_raw_result {
    rg_view value;
} rg_raw_result;
extern const rg_rtable rg_conn_raw_table;

/* A command outside any spec: argv encoded (rg_argv_encode), result as table (NULL: raw, an
 * rg_raw_result). The commands the engine treats specially are recognised by name
 * (rg_conn_commit_request). Returns the id, or 0 when it does not fit. */
uint64_t rg_conn_call_argv(rg_conn *c, size_t argc, const rg_view *argv, const rg_rtable *table,
                           void *result, rg_call_fn cb, void *ud);

/* ---- input ---------------------------------------------------------------------------------- */

/* Where to read into: *n bytes of room. Compacts the input first (see rg_conn_hold), and when it is
 * still full, grows it through rg_conn_config.alloc (see there): views of earlier results move
 * or die here and nowhere else. NULL with *n 0 when the input is full and cannot grow: no
 * allocator (a reply larger than in_cap, or rg_conn_hold keeps everything), or the connection
 * failed (RG_ERR_LIMIT above max_reply; RG_FULL when the allocator returned NULL: the pending
 * calls then complete inside this call). After a big
 * reply, a grown buffer larger than RG_CONN_KEEP_GROWN is freed here, and the caller's used
 * again, once no bytes are held and the unread ones fit half the caller's buffer. */
char *rg_conn_read_buf(rg_conn *c, size_t *n);
/* n bytes were read into rg_conn_read_buf's room: decodes every whole reply and push in them,
 * completing calls and calling the push handler. Returns the state; FAILED after a protocol
 * error (every pending call then completed with the decoder's sticky status). n == 0 is not EOF:
 * call rg_conn_closed for that. */
rg_conn_state rg_conn_feed(rg_conn *c, size_t n);
/* rg_conn_read_buf + copy + rg_conn_feed, for callers whose bytes are elsewhere, until all n are
 * taken. Returns the bytes taken (less than n when the input is full and cannot grow, or the
 * connection failed). */
size_t rg_conn_feed_copy(rg_conn *c, const char *bytes, size_t n, rg_conn_state *state);

/* Keeps the input bytes of every reply from now on (results stay valid across reads) until
 * rg_conn_hold(c, false); holding again while held changes nothing. The bytes before the hold
 * are dropped by the next rg_conn_read_buf if nothing was read in between; once a reply or push
 * has been read under the hold the input never moves: growth copies to a new buffer and keeps
 * the old one alive (held views point into it) until the first rg_conn_read_buf after the hold
 * is released; memory held then is at most twice the buffer in use. */
void rg_conn_hold(rg_conn *c, bool on);

/* Closes the connection (as rg_conn_closed, if it is not already) and gives everything the
 * engine allocated back to the allocator: grown buffers, ring and storage, and the defaults
 * rg_conn_init allocated (nothing without alloc); the caller's buffers stay the caller's. Views
 * into the input and storage die. c may be started again with rg_conn_reset (on the caller's
 * buffers, allocating the defaults again) or rg_conn_init; call it before giving up c, or
 * rg_conn_init-ing it again, whenever rg_conn_config.alloc was set (the adapters do it when they
 * close). Safe to call twice. */
void rg_conn_free(rg_conn *c);

/* ---- state ---------------------------------------------------------------------------------- */

/* The connection's state: HANDSHAKE until the connect sequence is answered, then READY; FAILED
 * after a loss, a protocol error or a refused handshake (rg_conn_error says why). */
static inline rg_conn_state rg_conn_state_of(const rg_conn *c) {
    return c->state;
}
/* The protocol the connection speaks: 2 or 3 (after HELLO's reply, a user's HELLO or RESET, the
 * one the server confirmed). */
static inline int rg_conn_protocol(const rg_conn *c) {
    return c->resp;
}
/* The config rg_conn_init was given (buffers and all), as the engine keeps it. */
static inline const rg_conn_config *rg_conn_config_of(const rg_conn *c) {
    return &c->cfg;
}
/* Sets the push handler (rg_conn_config.on_push, push_ud) of a connection already made, e.g. by
 * rg_bconn_open: pushes from now on go to fn(ud, push) (fn NULL: dropped). */
static inline void rg_conn_on_push(rg_conn *c, rg_push_fn fn, void *ud) {
    c->cfg.on_push = fn;
    c->cfg.push_ud = ud;
}
/* Hands every invalidation (RG_PUSH_INVALIDATE: the server's, and the synthetic flush_all of a
 * loss or a RESET, whose raw is empty) and every RG_PUSH_TRACKING_REDIR_BROKEN to fn(ud, push)
 * before on_push (fn NULL: none): a client-side cache's hook (rg_cache.h), kept across
 * rg_conn_reset. With a hook set, a loss always tells it (flush_all), whether or not tracking
 * was seen on this connection: it may be the one a REDIRECT sends invalidations to. */
static inline void rg_conn_on_invalidate(rg_conn *c, rg_push_fn fn, void *ud) {
    c->inval_fn = fn;
    c->inval_ud = ud;
}
/* Is a MULTI open (the calls made now are queued in a transaction)? */
static inline bool rg_conn_in_multi(const rg_conn *c) {
    return c->in_multi;
}
/* Calls queued and not completed (internal ones included). */
static inline size_t rg_conn_pending(const rg_conn *c) {
    return c->used;
}
/* Gives up on call id without breaking the connection (a per-call timeout): it completes now
 * with RG_ABANDONED, and its reply, when it comes, is decoded and dropped. Returns RG_OK, or
 * RG_INVALID when id is not pending, or is a Pub/Sub, MULTI/EXEC or CLIENT TRACKING call (their
 * replies steer the engine). */
rg_status rg_conn_abandon(rg_conn *c, uint64_t id);
/* ---- deadlines ------------------------------------------------------------------------------ */

/* The engine has no clock: the caller passes its own milliseconds (any monotonic clock, e.g.
 * uv_now or CLOCK_MONOTONIC) and arms a timer for the deadline it is told. A timeout starts when
 * the engine first sees the time after the call was queued (at the next rg_conn_next_deadline or
 * rg_conn_expire), so a loop that asks once per iteration times every call from that iteration.
 *
 * Replies come in order, so a call that timed out leaves its reply somewhere in the stream: the
 * next reply would be paired with the wrong call. An expired deadline therefore breaks the
 * connection, as in hiredis and libvalkey: the calls whose deadline passed complete with
 * RG_TIMEOUT, every other pending call with RG_CLOSED, the state becomes FAILED (new
 * calls return 0) and the caller closes the socket and reconnects (rg_conn_reset). To give up on
 * one call and keep the connection, use rg_conn_abandon instead (its reply is read and dropped). */
#define RG_DEADLINE_NONE      UINT64_MAX
#define RG_DEADLINE_UNSTARTED (UINT64_C(1) << 63)

/* The earliest deadline of the pending calls and of the connect sequence (RG_DEADLINE_NONE when
 * there is none), after starting the timeouts of the calls queued since the last look at now_ms.
 * Costs a walk over the pending calls when deadlines are in use, nothing otherwise. */
uint64_t rg_conn_next_deadline(rg_conn *c, uint64_t now_ms);
/* At now_ms: when a deadline has passed, the connection fails as told above (a connect sequence
 * that timed out fails every pending call with RG_CLOSED). Returns the state: FAILED means
 * close the socket. */
rg_conn_state rg_conn_expire(rg_conn *c, uint64_t now_ms);
/* The timeout of the call just made (id), instead of the config's timeout_ms (0: none), e.g. a
 * BLPOP with a server-side timeout. Returns RG_OK, or RG_INVALID when id is not the last call. */
rg_status rg_conn_call_timeout(rg_conn *c, uint64_t id, uint32_t timeout_ms);

/* Has call id completed (or is it not one of the pending calls)? */
bool rg_conn_call_done(const rg_conn *c, uint64_t id);
/* Bytes queued and not yet written (the connect sequence's and, behind it, the calls'). */
static inline size_t rg_conn_queued(const rg_conn *c) {
    return c->out_len - c->out_sent;
}
/* Is there anything to write? */
static inline bool rg_conn_want_write(const rg_conn *c) {
    return c->out_ready > c->out_sent;
}
/* Why the connection failed: status RG_OK (msg empty) while it did not; else RG_CLOSED (lost or
 * closed), RG_TIMEOUT (a deadline passed), RG_REFUSED (the connect sequence was refused), RG_FULL
 * (it did not fit, or the input's allocator refused), RG_INVALID (a bad config), RG_ERR_LIMIT (a
 * reply above max_reply) or the decoder's sticky error; msg (in the
 * connection, valid until rg_conn_reset) says what, offset is the input stream offset. */
rg_error rg_conn_error(const rg_conn *c);

/* A ready-made callback that copies the outcome into an rg_call_record (ud). */
typedef struct rg_call_record {
    bool done;
    rg_status status;
    rg_redirect_kind redirect;
    bool written;    /* rg_call_done's */
    char error[128]; /* the error text, truncated, NUL-terminated */
} rg_call_record;
void rg_call_record_fn(void *ud, const rg_call_done *d);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
