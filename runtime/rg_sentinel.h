/* respgen runtime: Redis Sentinel discovery, sans I/O.
 *
 * What a client configured with a master name and a list of sentinels decides, without a socket
 * or a clock: which sentinel to ask next, what the answers say (SENTINEL GET-MASTER-ADDR-BY-NAME,
 * SENTINEL REPLICAS, +switch-master messages), which sentinels go to the front or the back of the
 * list. A driver does the I/O: adapters/rg_sentinel_client.h (blocking) and
 * adapters/rg_sentinel_uv.h (libuv). The data connection itself is an ordinary rg_conn whose
 * config asks for ROLE master (rg_conn_config.role), so a server that is not the master fails the
 * connect sequence before a call is written, and the adapter's reconnect policy (rg_backoff.h)
 * brings it back: each attempt asks the sentinels again.
 *
 * One resolution, as the Sentinel client guidelines describe it:
 *   rg_sentinel_begin(s);
 *   while ((i = rg_sentinel_next(s)) >= 0) {
 *       connect to rg_sentinel_at(s, i) (with the sentinels' own AUTH); failing: continue;
 *       send rg_sentinel_master_argv (and rg_sentinel_replicas_argv for replica reads);
 *       if (rg_sentinel_master_reply(s, i, raw) == RG_OK) break;   (the master: rg_sentinel_master)
 *   }
 * A sentinel that answers moves to the front of the list; one that cannot be reached, answers
 * null (it does not know the name) or an error, or whose last answer did not lead to a master
 * (the driver never called rg_sentinel_confirmed: the address was dead, or ROLE said replica: a
 * sentinel that lies, or lags) goes to the back. A watch link subscribed to +switch-master
 * (rg_sentinel_subscribe_argv) hands its messages to rg_sentinel_push, which says when the
 * master of this name moved: the driver then drops the data connection, and its reconnect asks
 * again.
 *
 * Untrusted input: every reply is parsed with the decoder (rg_dec.h) under small limits (depth
 * 3, bounded element counts); an address is taken only when its host is 1..RG_SENTINEL_HOST_MAX-1
 * bytes without NUL or control bytes and its port a decimal 1..65535. Anything else is a bad
 * answer (RG_MISMATCH), never a crash.
 *
 * Memory: everything is inside the rg_sentinel (the sentinels' addresses are copied at init)
 * but the replicas, which go to storage the caller gives (rg_sentinel_config.replicas). Nothing
 * is allocated.
 */
#ifndef RG_SENTINEL_H
#define RG_SENTINEL_H

#include "rg_conn.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* The longest host name plus its NUL (a DNS name is at most 253 bytes). */
#define RG_SENTINEL_HOST_MAX 256
/* Sentinels in one configuration (deployments run 3 or 5). */
#define RG_SENTINEL_MAX 16
/* The longest master name. */
#define RG_SENTINEL_NAME_MAX 128

/* The reconnect policy the drivers take when given none: 10 ms doubling to 500 ms, 40 attempts
 * (about 15 s: a failover takes seconds, and every attempt asks the sentinels again). */
#define RG_SENTINEL_ATTEMPTS 40
#define RG_SENTINEL_MAX_MS   500

/* An address: host NUL-terminated. */
typedef struct rg_sentinel_addr {
    char host[RG_SENTINEL_HOST_MAX];
    uint16_t port;
} rg_sentinel_addr;

typedef struct rg_sentinel_config {
    rg_view master_name;               /* the name the sentinels monitor, 1..NAME_MAX-1 bytes */
    const rg_sentinel_addr *sentinels; /* 1..RG_SENTINEL_MAX addresses, copied */
    size_t nsentinels;
    /* SENTINEL REPLICAS' healthy replicas go here (caller-owned, may be NULL): replicas_cap of
     * them at most, the others dropped. */
    rg_sentinel_addr *replicas;
    size_t replicas_cap;
} rg_sentinel_config;

/* What a +switch-master message meant (rg_sentinel_push). */
typedef enum rg_sentinel_news {
    RG_SENTINEL_NOTHING = 0, /* not a +switch-master of this name, or the master we have */
    RG_SENTINEL_SWITCHED     /* the master moved: rg_sentinel_master tells where */
} rg_sentinel_news;

/* The state. Fields private: use the functions below. */
typedef struct rg_sentinel {
    /* private */
    char name[RG_SENTINEL_NAME_MAX];
    size_t name_len;
    rg_sentinel_addr sentinels[RG_SENTINEL_MAX];
    uint8_t order[RG_SENTINEL_MAX]; /* the asking order: indexes into sentinels */
    size_t n;
    uint32_t asked; /* bit i: sentinel i was asked in this round */
    rg_sentinel_addr master;
    bool known;        /* master holds an answer */
    bool confirmed;    /* the driver reached it as master (rg_sentinel_confirmed) */
    int source;        /* the sentinel that named it (-1: a +switch-master) */
    uint64_t switches; /* masters seen move */
    rg_sentinel_addr *replicas;
    size_t nreplicas, replicas_cap;
    char msg[160];
} rg_sentinel;

/* Copies cfg in. RG_OK; RG_INVALID (rg_sentinel_error says why) for an empty or too long name,
 * no sentinels or more than RG_SENTINEL_MAX, or a sentinel address that is not one. */
rg_status rg_sentinel_init(rg_sentinel *s, const rg_sentinel_config *cfg);

/* A resolution starts: every sentinel may be asked once again. When the last answer was never
 * confirmed, its sentinel goes to the back first. */
void rg_sentinel_begin(rg_sentinel *s);
/* The sentinel to ask next (an index for rg_sentinel_at), or -1 when all were asked. */
int rg_sentinel_next(rg_sentinel *s);
/* The sentinel at the front of the list (the last to answer): the one to watch. */
int rg_sentinel_first(const rg_sentinel *s);
/* Sentinel i's address (i from rg_sentinel_next; NULL when out of range). */
const rg_sentinel_addr *rg_sentinel_at(const rg_sentinel *s, int i);
/* Sentinel i could not be asked (connect, AUTH, a timeout): to the back. */
void rg_sentinel_failed(rg_sentinel *s, int i);

/* The request words (argv[3]): SENTINEL GET-MASTER-ADDR-BY-NAME <name>. Views into s. */
size_t rg_sentinel_master_argv(const rg_sentinel *s, rg_view *argv);
/* The request words (argv[3]): SENTINEL REPLICAS <name>. */
size_t rg_sentinel_replicas_argv(const rg_sentinel *s, rg_view *argv);
/* The request words (argv[2]): SUBSCRIBE +switch-master. */
size_t rg_sentinel_subscribe_argv(rg_view *argv);

/* Sentinel i answered GET-MASTER-ADDR-BY-NAME with raw (the reply's RESP bytes). RG_OK: it named
 * the master (rg_sentinel_master), i goes to the front; else i goes to the back and the status
 * says why (rg_sentinel_error): RG_SERVER_ERROR (an error reply), RG_CLOSED (null: it does not
 * know the name), RG_MISMATCH (anything else). */
rg_status rg_sentinel_master_reply(rg_sentinel *s, int i, rg_view raw);
/* SENTINEL REPLICAS' reply (RESP2 flat field lists or RESP3 maps): the replicas whose flags say
 * neither s_down, o_down nor disconnected, and whose master-link-status is "ok" when told, go to
 * the replicas storage (in the order sent, capped at replicas_cap). RG_OK, or RG_SERVER_ERROR /
 * RG_MISMATCH (the list is then empty). */
rg_status rg_sentinel_replicas_reply(rg_sentinel *s, rg_view raw);

/* The driver reached the master named last and ROLE said master. */
void rg_sentinel_confirmed(rg_sentinel *s);
/* A Pub/Sub message from a watch link (any other push is ignored): on "+switch-master" with
 * "<name> <old-ip> <old-port> <new-ip> <new-port>" for this name, a new address becomes the
 * master (unconfirmed) and RG_SENTINEL_SWITCHED is returned. */
rg_sentinel_news rg_sentinel_push(rg_sentinel *s, const rg_push *p);

/* The master last named (NULL before any answer). */
const rg_sentinel_addr *rg_sentinel_master(const rg_sentinel *s);
/* The healthy replicas of the last SENTINEL REPLICAS answer (*n of them). */
const rg_sentinel_addr *rg_sentinel_replicas(const rg_sentinel *s, size_t *n);
/* +switch-master messages that moved the master. */
static inline uint64_t rg_sentinel_switches(const rg_sentinel *s) {
    return s->switches;
}
/* What the last failed step said (empty when none), NUL-terminated, in s. */
static inline const char *rg_sentinel_error(const rg_sentinel *s) {
    return s->msg;
}

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
