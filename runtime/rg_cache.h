/* respgen runtime: a typed client-side cache over one rg_conn (server-assisted, "tracking").
 *
 * Opt-in per connection: rg_cache_attach ties a cache to a connection, and the generated
 * C_cached(cache, <C's call parameters>) of a cacheable command (respgen --client; the list is
 * the spec's, see docs/cacheable.md) answers from the cache when it holds the same request, or
 * sends it and keeps the reply. A hit decodes the stored reply bytes with the command's own
 * typed reply table, so the result is exactly what the server's reply gives; it completes at once
 * (the callback runs inside the call) and the call returns RG_CACHE_HIT.
 *
 * Tracking: the cache sends CLIENT TRACKING ON itself (with OPTIN and CLIENT CACHING YES before
 * each read it sends, or BCAST with its prefixes, or REDIRECT to the client id of a second
 * connection whose invalidations it listens to: rg_cache_listen), before the first cached read
 * and again after a loss or a RESET. Invalidations reach it through the engine's hook
 * (rg_conn_on_invalidate), before on_push.
 *
 * Staleness: a value is never served once its invalidation has been read. A read that missed is
 * a "flight" (its request and key kept in the cache's memory until the reply comes); an
 * invalidation of its key, a flush, a loss or a refused CLIENT TRACKING while it is in flight
 * drops its reply instead of storing it (the race the Redis docs describe: an invalidation read
 * before the reply it makes stale, on a REDIRECT connection, or on the same connection when the
 * key was read twice). A loss of either connection, a RESET, tracking-redir-broken and the
 * server's null invalidation (FLUSHALL) flush everything.
 *
 * Memory: one block, the caller's (rg_cache_config.mem) or allocated once at rg_cache_init
 * through the allocator hook; nothing else is ever allocated. It holds the index (two tables of
 * 4-byte slots, 2 slots per entry in each), the flights, the hits' array storage and the entries:
 * each is a 48-byte header, the key, the request and the reply's RESP bytes, in a ring written
 * in order and evicted oldest first (FIFO: no fragmentation, O(1) eviction; an entry read since
 * it was stored is not spared). An entry larger than an eighth of the ring is not stored.
 *
 * Lifetimes: a hit's views point into the cache's memory and stay valid until the next
 * rg_conn_feed or rg_conn_closed on the connection (where replies are stored, so entries may be
 * overwritten) or cached call; its arrays are in the cache's hit storage, valid until the next
 * hit, as are the values of a hit cached per key (rg_cache_call_keys assembles the reply there).
 * A miss's result is the engine's as usual (rg_conn.h).
 */
#ifndef RG_CACHE_H
#define RG_CACHE_H

#include "rg_conn.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* What a cached call returns when the cache answered it (result filled, callback called). */
#define RG_CACHE_HIT UINT64_MAX

/* The block rg_cache_init allocates when no memory is given: 4 MiB. */
#define RG_CACHE_DEFAULT_SIZE ((size_t)4 << 20)
/* The smallest block rg_cache_init accepts, and the largest (offsets are 32 bits). */
#define RG_CACHE_MIN_SIZE ((size_t)16 << 10)
#define RG_CACHE_MAX_SIZE ((size_t)UINT32_MAX - 64)
/* The most prefixes of BCAST and their bytes in all. */
#define RG_CACHE_MAX_PREFIXES 16
#define RG_CACHE_PREFIX_BYTES 512

/* How the server tracks what the client reads (CLIENT TRACKING). */
typedef enum rg_cache_mode {
    RG_CACHE_DEFAULT = 0, /* the keys the client read (the server's memory: tracking-table) */
    RG_CACHE_OPTIN,       /* only reads after CLIENT CACHING YES: the cache's own, not others */
    RG_CACHE_BCAST        /* every key under the prefixes (no per-key server state) */
} rg_cache_mode;

typedef struct rg_cache_config {
    void *mem;         /* the whole memory, caller-owned (never freed); NULL: allocated */
    size_t mem_size;   /* its size; 0 with mem NULL: RG_CACHE_DEFAULT_SIZE */
    rg_alloc_fn alloc; /* with mem NULL: allocates mem_size once (NULL: rg_conn_std_alloc) */
    void *alloc_ud;
    /* The most entries (0: one per 512 bytes of memory); each costs 16 bytes of index. */
    size_t max_entries;
    /* Bytes for reads in flight (their keys and requests; 0: a sixteenth of the memory). A miss
     * that does not fit goes to the server uncached. */
    size_t flight_bytes;
    /* The hits' array storage (0: 16 KiB): a hit whose arrays need more goes to the server. */
    size_t hit_storage;
    rg_cache_mode mode;
    /* BCAST: the prefixes (none: every key); only keys under one are cached. Copied. */
    const rg_view *prefixes;
    size_t nprefixes;
    /* Invalidations go to the client with this id (CLIENT TRACKING ... REDIRECT id); 0: to the
     * cached connection itself, which must then speak RESP3. rg_cache_redirect changes it. */
    uint64_t redirect;
    /* An entry lives at most ttl_ms (0: until invalidated or evicted), by now_ms (required
     * with ttl_ms: any monotonic clock in milliseconds). */
    uint32_t ttl_ms;
    uint64_t (*now_ms)(void *ud);
    void *now_ud;
} rg_cache_config;

/* Counters, from rg_cache_init or rg_cache_stats_reset. */
typedef struct rg_cache_stats {
    uint64_t hits;          /* answered from the cache */
    uint64_t misses;        /* sent to the server, to be stored */
    uint64_t uncached;      /* sent uncached: tracking off, in MULTI, no flight room, ... */
    uint64_t stored;        /* replies stored */
    uint64_t dropped;       /* replies not stored: invalidated, flushed or lost in flight */
    uint64_t invalidations; /* keys invalidated (a key with nothing cached counts too) */
    uint64_t flushes;       /* everything dropped: loss, RESET, FLUSHALL, redir-broken */
    uint64_t evictions;     /* entries dropped for room */
    uint64_t expired;       /* entries dropped at their TTL */
    size_t entries;         /* held now */
    size_t bytes;           /* of the ring in use now (dropped entries until passed over) */
} rg_cache_stats;

/* The tracking state (rg_cache_tracking). */
typedef enum rg_cache_track {
    RG_CACHE_TRACK_OFF = 0, /* CLIENT TRACKING to be sent before the next cached read */
    RG_CACHE_TRACK_ON,      /* sent (the reads behind it are tracked) */
    RG_CACHE_TRACK_WAIT,    /* waiting for rg_cache_redirect (a RESP2 connection, or the
                               listening connection was lost): reads go uncached */
    RG_CACHE_TRACK_REFUSED  /* the server refused CLIENT TRACKING: reads go uncached until
                               rg_cache_redirect or a reconnect */
} rg_cache_track;

typedef struct rg_cache rg_cache;

/* Prepares a cache. Returns RG_OK; RG_INVALID for a bad config (memory outside
 * RG_CACHE_MIN_SIZE..RG_CACHE_MAX_SIZE or too small for its parts, ttl_ms without now_ms, too
 * many prefixes); RG_FULL when the allocator refused. Call rg_cache_free when done. */
rg_status rg_cache_init(rg_cache *k, const rg_cache_config *cfg);
/* Detaches the cache from its connections and gives back what rg_cache_init allocated. Reads in
 * flight must be over (their callbacks point into the cache): detach after the connection is
 * closed or idle. */
void rg_cache_free(rg_cache *k);

/* Ties the cache to c, whose invalidation hook it takes (rg_conn_on_invalidate): cached calls go
 * to c. One cache per connection; not a front (a cluster's): RG_INVALID. */
rg_status rg_cache_attach(rg_cache *k, rg_conn *c);
/* Listens to a second connection l for invalidations (REDIRECT): its hook too. l must receive
 * them: RESP3, or RESP2 subscribed to __redis__:invalidate (confirmed) before the cache sends
 * CLIENT TRACKING with l's id (rg_cache_redirect). A loss of l flushes the cache and waits for
 * the id of the next one. */
rg_status rg_cache_listen(rg_cache *k, rg_conn *l);
/* The client id invalidations go to (CLIENT ID of the listening connection), set after each
 * (re)connect of it; 0: the cached connection itself. Flushes, and tracking is sent again
 * (OFF, then ON) before the next cached read. */
void rg_cache_redirect(rg_cache *k, uint64_t id);

/* Everything dropped (reads in flight too). */
void rg_cache_flush(rg_cache *k);
/* Counters and sizes. */
rg_cache_stats rg_cache_stats_of(const rg_cache *k);
void rg_cache_stats_reset(rg_cache *k);
rg_cache_track rg_cache_tracking(const rg_cache *k);
/* The server's refusal of CLIENT TRACKING (RG_SERVER_ERROR and its text), else status RG_OK. */
rg_error rg_cache_error(const rg_cache *k);

/* The connection the cache is attached to (NULL: none). */
static inline rg_conn *rg_cache_conn(const rg_cache *k);

/* For generated cached calls: the request of n bytes was just encoded at req (rg_conn_room's or
 * rg_conn_reserve's pointer in the cached connection's output) for command cmd, whose one key
 * is key. Answers from the cache (RG_CACHE_HIT), or commits it as rg_conn_commit does (its id,
 * 0 when nothing was queued). */
uint64_t rg_cache_call(rg_cache *k, const char *req, size_t n, const rg_cmd *cmd, rg_view key,
                       void *result, rg_call_fn cb, void *ud);
/* rg_cache_call for a command cached per key (MGET: the spec's cacheable = "per_key"): its reply
 * is an array of one element per key, in order, and each key's element is stored apart, so
 * that an invalidation of one key drops only its own. A hit needs every key's element: the
 * array is assembled in the hit storage (its views point there, valid until the next hit) and
 * decoded with the command's table; else the whole request is sent and every element stored. */
uint64_t rg_cache_call_keys(rg_cache *k, const char *req, size_t n, const rg_cmd *cmd,
                            const rg_view *keys, size_t nkeys, void *result, rg_call_fn cb,
                            void *ud);

/* A ring of variable records in the cache's memory. Fields private. */
typedef struct rg_cache_ring {
    char *base;
    size_t cap, head, tail, wrap;
    size_t nrec;
    bool wrapped;
} rg_cache_ring;

/* The cache. Fields private: use the functions above. */
struct rg_cache {
    rg_cache_config cfg;
    rg_conn *conn;
    rg_conn *listener;
    void *own;           /* the block rg_cache_init allocated, or NULL */
    uint32_t *req_slots; /* the index: request -> entry, and key -> its first entry */
    uint32_t *key_slots;
    size_t mask; /* slots - 1 */
    size_t max_entries;
    rg_cache_ring ring;    /* entries */
    rg_cache_ring flights; /* reads in flight */
    void *hit_mem;
    size_t hit_cap;
    char *prefix_mem; /* the BCAST prefixes, copied */
    rg_view prefixes[RG_CACHE_MAX_PREFIXES];
    uint64_t epoch; /* a flush makes every flight older than it */
    uint64_t redirect;
    rg_cache_track track;
    bool reissue; /* tracking was on: send OFF before ON */
    rg_cache_stats stats;
    rg_reply_reader rr; /* a hit's decoder */
    bool rr_dirty;      /* its last decode failed: initialise it again */
    char err[128];
    rg_error error;
};

static inline rg_conn *rg_cache_conn(const rg_cache *k) {
    return k->conn;
}

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
