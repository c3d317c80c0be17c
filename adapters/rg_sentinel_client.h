/* respgen adapters: a blocking client of a Redis master found through Sentinel, on the blocking
 * adapter (rg_blocking.h) and the sans-I/O Sentinel logic (runtime/rg_sentinel.h).
 *
 * The data connection is an ordinary rg_bconn (s->data: queue calls on &s->data.conn as on any
 * connection) whose reconnect policy does the moving: before every connect its `where` hook asks
 * the sentinels for the master (SENTINEL GET-MASTER-ADDR-BY-NAME, in the order rg_sentinel.h
 * keeps: the last to answer first, the failed ones last), and its connect sequence ends with ROLE
 * (rg_conn_config.role), so that a server that is not the master (a sentinel that lies or lags,
 * a master demoted since) fails the connect before any call is written and the next attempt asks
 * again. A watch link to a sentinel, subscribed to +switch-master, drops the data connection
 * when the master of this name moves (rg_bconn_drop): what a loss does then happens, as with any
 * reconnect: the calls whose request was not written wait for the new master (within the
 * config's queue_calls), those that were complete with RG_CLOSED and `written` set (they may have
 * run: the client never guesses), and the connect sequence and subscriptions are replayed.
 *
 * I/O happens inside rg_sentinel_wait and rg_sentinel_poll only, which move the data connection
 * and read the watch link in turns of at most RG_SENTINEL_SLICE_MS.
 *
 * TLS (rg_tls.h): sentinel_tls for the links to the sentinels, options.tls for the data
 * connection (the sentinels' when NULL), each verified by default: see the config below for the
 * names checked.
 *
 * Memory: the rg_sentinel_client is caller-owned; the data connection's and the sentinel links'
 * buffers come from the allocator (cfg.alloc, else rg_conn_std_alloc: the engine's defaults,
 * growing as needed), given back by rg_sentinel_close.
 */
#ifndef RG_SENTINEL_CLIENT_H
#define RG_SENTINEL_CLIENT_H

#include "rg_blocking.h"
#include "rg_sentinel.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* The longest turn of rg_sentinel_wait on one connection before it looks at the other. */
#define RG_SENTINEL_SLICE_MS 20
/* How often a lost watch link is opened again (ms). */
#define RG_SENTINEL_REWATCH_MS 1000

typedef struct rg_sentinel_client_config {
    rg_view master_name;               /* the name the sentinels monitor */
    const rg_sentinel_addr *sentinels; /* 1..RG_SENTINEL_MAX, copied */
    size_t nsentinels;
    /* The sentinels' own AUTH, apart from the data nodes' (data->user, data->password). */
    rg_view sentinel_user;
    rg_view sentinel_password;
    /* TLS to the sentinels (rg_tls.h; NULL: plain). Caller-owned and read at each connect (every
     * resolution connects): keep it alive until rg_sentinel_close; set its ctx to load the CAs
     * once. A sentinel's certificate must name its host as listed in `sentinels` (a DNS name; an
     * address: an IP SAN), or sentinel_tls->server_name when set. */
    const rg_tls_config *sentinel_tls;
    /* The data connection's engine config (connect sequence, AUTH, push handler, deadlines,
     * queue_calls ...; copied); NULL: HELLO 3 and 1,024 calls queued while moving. Its role is
     * set to RG_ROLE_MASTER, its alloc NULL means rg_conn_std_alloc. */
    const rg_conn_config *data;
    /* Timeouts and the reconnect policy of the data connection (where is the client's own); the
     * sentinel links take connect_ms and io_ms too. reconnect.attempts 0: RG_SENTINEL_ATTEMPTS
     * (rg_sentinel.h). options.tls: TLS to the data nodes (caller-owned, kept alive as
     * sentinel_tls), NULL: sentinel_tls's. The sentinels name the master by address: its
     * certificate must list that address as an IP SAN, or name options.tls->server_name when set
     * (one name for every data node). A certificate refused on a move is not retried (as any
     * reconnect's, rg_blocking.h): the client gives up with the TLS cause. */
    rg_bconn_options options;
    /* The data nodes speak plain RESP although the sentinels speak TLS (sentinel_tls set,
     * options.tls NULL; both set is refused as invalid). */
    bool data_plain;
    /* Replicas kept from each SENTINEL REPLICAS answer (caller-owned storage; NULL: not asked). */
    rg_sentinel_addr *replicas;
    size_t replicas_cap;
} rg_sentinel_client_config;

/* The client. Queue calls on data.conn; the rest is private. */
typedef struct rg_sentinel_client {
    rg_bconn data;
    /* private */
    rg_sentinel sm;
    rg_bconn link;  /* a sentinel asked during a resolution, closed after it */
    rg_bconn watch; /* the sentinel subscribed to +switch-master (fd -1: none) */
    rg_conn_config link_cfg;
    /* the config's sentinel_tls (NULL: plain links) */
    const rg_tls_config *sentinel_tls;
    bool watching;       /* watch is connected (and its SUBSCRIBE sent) */
    bool switched;       /* a +switch-master moved the master: drop the data connection */
    bool ask_replicas;   /* replicas storage given */
    uint64_t rewatch_at; /* CLOCK_MONOTONIC ms of the next watch attempt */
    uint64_t resolves;   /* resolutions made */
    rg_bconn_event_fn user_event;
    void *user_event_ud;
    char user[128];
    char password[128];
    rg_status why_status; /* what why says when the data connection never failed */
    char why[224];
} rg_sentinel_client;

/* Finds the master through the sentinels and connects to it (and a watch link to a sentinel).
 * RG_OK; else the data connection is down (rg_sentinel_client_error says why): RG_INVALID (a bad
 * config: name, sentinels, buffers), RG_REFUSED when no sentinel named a master that answered
 * ROLE master, or the connect's status. Call rg_sentinel_close after either. */
rg_status rg_sentinel_connect(rg_sentinel_client *s, const rg_sentinel_client_config *cfg);

/* Runs the I/O until call id (on data.conn) completed (0: until nothing is pending and no
 * reconnect runs), following the master as it moves. Returns as rg_bconn_wait. */
rg_status rg_sentinel_wait(rg_sentinel_client *s, uint64_t id);
/* Runs the I/O for at most ms (pushes, late replies, a move). Returns as rg_bconn_poll. */
rg_status rg_sentinel_poll(rg_sentinel_client *s, int ms);

/* The master the client uses (or is moving to); NULL before any sentinel answered. */
const rg_sentinel_addr *rg_sentinel_client_master(const rg_sentinel_client *s);
/* The healthy replicas of the last resolution (*n of them), for replica reads: connect to them
 * with rg_bconn_connect (they are plain servers; check ROLE with rg_conn_config.role
 * RG_ROLE_REPLICA). */
const rg_sentinel_addr *rg_sentinel_client_replicas(const rg_sentinel_client *s, size_t *n);
/* Resolutions made (each one asks the sentinels; the first connect's included). */
static inline uint64_t rg_sentinel_client_resolves(const rg_sentinel_client *s) {
    return s->resolves;
}
/* Why the data connection failed last (rg_bconn_error of data). */
rg_error rg_sentinel_client_error(const rg_sentinel_client *s);

/* Closes everything: pending calls complete with RG_CLOSED; memory goes back. Idempotent. */
void rg_sentinel_close(rg_sentinel_client *s);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
