/* respgen adapters: a libuv client of a Redis master found through Sentinel, on the libuv
 * adapter (rg_uv.h) and the sans-I/O Sentinel logic (runtime/rg_sentinel.h).
 *
 * As the blocking one (rg_sentinel_client.h), on the loop: the data connection is an ordinary
 * rg_uv (s->data: queue calls on &s->data.conn at any time on the loop's thread) whose reconnect
 * policy does the moving. Its `where` hook (rg_uv_options.where) asks the sentinels before every
 * connect, one link at a time on the loop (SENTINEL GET-MASTER-ADDR-BY-NAME, SENTINEL REPLICAS
 * when replica storage is given; each link bounded by link_ms), and answers with the master's
 * address; the connect sequence ends with ROLE (rg_conn_config.role), so a server that is not the
 * master fails the connect before any call is written and the next attempt asks again. A watch
 * link subscribed to +switch-master drops the data connection when the master of this name
 * moves (rg_uv_drop); a lost watch link is opened again RG_SENTINEL_UV_REWATCH_MS later.
 * Calls at a move complete as at any loss: written ones RG_CLOSED with `written` (they may have
 * run), unwritten ones RG_CLOSED without; calls made while moving are queued (queue_calls).
 *
 * TLS: sentinel_tls for the sentinel links, data_tls for the data connection (the sentinels'
 * when NULL), verified by default (the names checked: the config below).
 *
 * Events: on_event hears the data connection's (rg_uv_event, with u == &s->data): READY on the
 * master, DISCONNECTED, RECONNECTING, GAVE_UP, FAILED as rg_uv.h says; RG_UV_CLOSED once, when
 * every handle of the client (data, sentinel links, timer) is released: only then may s go.
 */
#ifndef RG_SENTINEL_UV_H
#define RG_SENTINEL_UV_H

#include "rg_sentinel.h"
#include "rg_uv.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* A sentinel link's bound (connect, AUTH, the answers) when link_ms is 0. */
#define RG_SENTINEL_UV_LINK_MS 1000
/* How long after a lost watch link another is opened. */
#define RG_SENTINEL_UV_REWATCH_MS 1000

typedef struct rg_sentinel_uv_config {
    rg_view master_name;               /* the name the sentinels monitor */
    const rg_sentinel_addr *sentinels; /* 1..RG_SENTINEL_MAX (numeric addresses best: a name is
                                          resolved with getaddrinfo, blocking the loop) */
    size_t nsentinels;
    rg_view sentinel_user; /* the sentinels' own AUTH, apart from the data nodes' */
    rg_view sentinel_password;
    /* TLS (rg_tls.h; caller-owned, read at each connect: keep them alive until RG_UV_CLOSED;
     * set their ctx to load the CAs once), NULL: plain. sentinel_tls to the sentinels, whose
     * certificates must name their hosts as listed (an address: an IP SAN) or its server_name;
     * data_tls to the data nodes (NULL: sentinel_tls's), whose certificates must list the
     * address the sentinels gave as an IP SAN, or name data_tls->server_name when set. A
     * certificate refused on a move is not retried (rg_uv.h): RG_UV_FAILED with its cause. */
    const rg_tls_config *sentinel_tls;
    const rg_tls_config *data_tls;
    /* The data nodes speak plain RESP although the sentinels speak TLS (sentinel_tls set,
     * data_tls NULL; both set is refused as invalid). */
    bool data_plain;
    /* The data connection's engine config (copied); NULL: HELLO 3, connect_timeout_ms
     * RG_UV_CONNECT_MS and 1,024 calls queued while moving. Its role is set to RG_ROLE_MASTER,
     * its alloc NULL means rg_conn_std_alloc. */
    const rg_conn_config *data;
    rg_backoff reconnect;       /* attempts 0: 40 attempts, up to 500 ms apart */
    uint32_t link_ms;           /* 0: RG_SENTINEL_UV_LINK_MS */
    rg_sentinel_addr *replicas; /* SENTINEL REPLICAS kept here (NULL: not asked) */
    size_t replicas_cap;
} rg_sentinel_uv_config;

/* The client. Queue calls on data.conn; the rest is private. Caller-owned, it must stay put
 * until RG_UV_CLOSED. */
typedef struct rg_sentinel_uv {
    rg_uv data;
    /* private */
    uv_loop_t *loop;
    rg_sentinel sm;
    rg_uv link;  /* the sentinel being asked */
    rg_uv watch; /* the sentinel subscribed to +switch-master */
    uv_timer_t rewatch;
    rg_conn_config link_cfg;
    const rg_tls_config *sentinel_tls; /* the config's (NULL: plain links) */
    rg_raw_result master_raw, replicas_raw;
    int asking;      /* the sentinel asked on link (-1: none) */
    bool answered;   /* it named the master */
    bool watching;   /* watch is connected or connecting */
    bool timer_open; /* rewatch is initialized and not closed */
    bool closing;    /* rg_sentinel_uv_close, or the data connection ended */
    bool told_closed;
    bool ask_replicas;
    uint64_t resolves;
    rg_uv_event_fn on_event;
    void *ud;
    char user[128];
    char password[128];
    char why[224];
} rg_sentinel_uv;

/* Starts: asks the sentinels on loop and connects to the master they name; calls may be queued
 * on data.conn at once (they go out behind the connect sequence and ROLE). RG_OK; RG_INVALID (a
 * bad config: nothing was opened, nothing follows, rg_sentinel_uv_error says why). When no
 * sentinel names a master, RG_UV_FAILED then RG_UV_CLOSED are told. */
rg_status rg_sentinel_uv_connect(rg_sentinel_uv *s, uv_loop_t *loop,
                                 const rg_sentinel_uv_config *cfg, rg_uv_event_fn on_event,
                                 void *ud);
/* Closes everything: pending calls complete with RG_CLOSED now; RG_UV_CLOSED follows once every
 * handle is released. Safe from callbacks, and more than once. */
void rg_sentinel_uv_close(rg_sentinel_uv *s);

/* The master the client uses (or moves to); NULL before any sentinel answered. */
const rg_sentinel_addr *rg_sentinel_uv_master(const rg_sentinel_uv *s);
/* The healthy replicas of the last resolution (*n of them). */
const rg_sentinel_addr *rg_sentinel_uv_replicas(const rg_sentinel_uv *s, size_t *n);
/* Resolutions made (each asks the sentinels). */
static inline uint64_t rg_sentinel_uv_resolves(const rg_sentinel_uv *s) {
    return s->resolves;
}
/* Why the data connection failed last (rg_uv_error), or why no sentinel named a master. */
rg_error rg_sentinel_uv_error(const rg_sentinel_uv *s);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
