/* respgen runtime: the Redis Cluster slot map and the routing of encoded requests.
 *
 * The map says which master serves each of the 16384 hash slots (and which replicas follow each
 * master). It is decoded from a CLUSTER SHARDS reply (Redis 7), or a CLUSTER SLOTS reply for older
 * servers, in RESP2 or RESP3, patched one slot at a time by -MOVED, and carries an epoch that
 * every change increments, so a client can tell its routing decisions are stale.
 *
 * Nodes keep their index for the life of the map: a refresh matches nodes by host and port and
 * appends new ones, and a node no longer listed becomes RG_NODE_GONE. A client can therefore keep
 * one connection per node index.
 *
 * Routing an encoded request (as the generated encoders or rg_argv_encode write it) uses the
 * command's key specs (the generated <stem>_keys tables, rg_keys.h) and, for commands without
 * keys, the request and response policies of the spec's command_tips (rg_cmd_policy, generated
 * as <stem>_keys_policy). Nothing allocates: the map is one caller-owned struct, a lookup is an
 * array index, and there is no global mutable state.
 */
#ifndef RG_CLUSTER_H
#define RG_CLUSTER_H

#include "rg_keys.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

enum { RG_CLUSTER_MAX_NODES = 128, RG_CLUSTER_HOST_MAX = 64 };
#define RG_NODE_NONE ((uint16_t)0xFFFFu) /* no node serves the slot */

typedef enum rg_node_role {
    RG_NODE_GONE = 0, /* known once, not in the last refresh */
    RG_NODE_MASTER,
    RG_NODE_REPLICA
} rg_node_role;

typedef struct rg_cluster_node {
    char host[RG_CLUSTER_HOST_MAX]; /* NUL-terminated: the endpoint, else the IP */
    uint16_t port;
    uint8_t role;    /* rg_node_role */
    bool healthy;    /* SHARDS "health" is not "failed" (SLOTS: always true) */
    uint16_t master; /* a replica's master; a master's own index */
    /* How many slots it serves: a master without any (a node just added, or one a failover
     * demoted that an older server still lists as a master) is no shard to fan out to. */
    uint32_t slots;
} rg_cluster_node;

typedef struct rg_cluster_map {
    uint16_t slot[RG_CLUSTER_SLOTS]; /* the master serving each slot, or RG_NODE_NONE */
    rg_cluster_node node[RG_CLUSTER_MAX_NODES];
    size_t nnodes;
    uint64_t epoch; /* incremented by every change of slot[] or of a node's role */
    /* Set after rg_cluster_map_init by a client that connects over TLS: a node's port is then
     * its CLUSTER SHARDS "tls-port" (its "port" when it has none). */
    bool tls;
    /* private */
    /* Scratch of an update, so a reply that fails to decode leaves the map as it was. */
    uint16_t next[RG_CLUSTER_SLOTS];
    uint8_t next_role[RG_CLUSTER_MAX_NODES];
    bool next_healthy[RG_CLUSTER_MAX_NODES];
    uint16_t next_master[RG_CLUSTER_MAX_NODES];
    rg_status status; /* of the last decode */
    uint64_t offset;  /* where it failed in the reply */
    char msg[128];    /* why */
} rg_cluster_map;

/* An empty map: no node, every slot RG_NODE_NONE, epoch 0. */
void rg_cluster_map_init(rg_cluster_map *m);

/* The index of the node host:port, added (as RG_NODE_GONE) when it is not known. Returns
 * RG_NODE_NONE when the table is full or host is longer than RG_CLUSTER_HOST_MAX - 1. */
uint16_t rg_cluster_map_node(rg_cluster_map *m, rg_view host, uint16_t port);

/* Replaces the map's slots and roles with a whole CLUSTER SHARDS (from_shards) or CLUSTER SLOTS
 * (from_slots) reply: reply[0..len) is exactly one RESP2 or RESP3 value. asked is the host that
 * was asked: an empty or "?" endpoint means that host. Returns RG_OK (epoch incremented), else
 * the map is unchanged and rg_cluster_map_error says why: RG_MISMATCH (a malformed reply, an
 * error reply, a slot out of range or served twice, a node without host or port) or RG_FULL (a
 * full node table). */
rg_status rg_cluster_map_from_shards(rg_cluster_map *m, const char *reply, size_t len,
                                     rg_view asked);
rg_status rg_cluster_map_from_slots(rg_cluster_map *m, const char *reply, size_t len,
                                    rg_view asked);

/* Why the last rg_cluster_map_from_shards / _from_slots failed: its status, a message (in the
 * map's own buffer, valid until the next update) and the byte offset in that reply; status RG_OK
 * after a successful one. */
rg_error rg_cluster_map_error(const rg_cluster_map *m);

/* -MOVED slot host:port: slot now served by host:port (a master). An empty host means the node
 * that answered (asked). Returns the node index, or RG_NODE_NONE (slot out of range, table full).
 */
uint16_t rg_cluster_map_moved(rg_cluster_map *m, int slot, rg_view host, uint16_t port,
                              rg_view asked);

/* The master serving slot (0..16383): an array index, no check beyond the range. */
static inline uint16_t rg_cluster_map_owner(const rg_cluster_map *m, int slot) {
    return m->slot[slot & (RG_CLUSTER_SLOTS - 1)];
}

/* A healthy replica of slot's master, the pick-th one modulo their number (to spread reads), or
 * the master when it has none. RG_NODE_NONE when the slot is uncovered. */
uint16_t rg_cluster_map_replica(const rg_cluster_map *m, int slot, uint32_t pick);

/* The same over the master and its healthy replicas together: the pick-th of them modulo their
 * number (the master is the last), to spread reads over every copy of the slot. */
uint16_t rg_cluster_map_any_copy(const rg_cluster_map *m, int slot, uint32_t pick);

/* Slots served (not RG_NODE_NONE). */
size_t rg_cluster_map_covered(const rg_cluster_map *m);

/* The commands a router knows: a generated <stem>_keys_table with its count and the parallel
 * <stem>_keys_policy (or NULL: every command RG_REQ_DEFAULT). Static data, not owned. */
typedef struct rg_cluster_commands {
    const rg_keys_entry *table;
    size_t count;
    const rg_cmd_policy *policy;
} rg_cluster_commands;

/* ---- routing ------------------------------------------------------------------------------- */

typedef enum rg_route_kind {
    RG_ROUTE_NODE = 0,    /* send to .node: the slot's master, or any node for a keyless call */
    RG_ROUTE_ALL_NODES,   /* send to every node; merge by .response */
    RG_ROUTE_ALL_SHARDS,  /* send to every master; merge by .response */
    RG_ROUTE_MULTI_SHARD, /* keys in several slots of a MULTI_SHARD command: split per slot */
    RG_ROUTE_CROSSSLOT,   /* keys in several slots: refused before sending (-CROSSSLOT) */
    RG_ROUTE_UNCOVERED,   /* no node serves .slot (or the map is empty): refresh the map */
    RG_ROUTE_INVALID      /* req is not one encoded call */
} rg_route_kind;

typedef struct rg_route {
    rg_route_kind kind;
    int slot;                 /* 0..16383, or RG_SLOT_NONE / RG_SLOT_UNKNOWN (any node) */
    uint16_t node;            /* NODE: where to send */
    uint8_t response;         /* rg_response_policy for the fan-out kinds */
    const rg_keys_entry *cmd; /* the command's entry, or NULL when not in the table */
} rg_route;

/* Routes one encoded call. argv (argv_cap views) is scratch for the parsed arguments (views into
 * req; a call with more arguments than argv_cap is routed to any node, as for an unknown
 * command, and the server redirects it). any: the node for keyless calls (the caller rotates it).
 * Returns out->kind. */
rg_route_kind rg_cluster_route(const rg_cluster_map *m, const rg_cluster_commands *cmds,
                               const char *req, size_t len, rg_view *argv, size_t argv_cap,
                               uint16_t any, rg_route *out);

/* Routes one encoded call whose command the caller knows, as a generated call's descriptor says
 * (rg_cmd.id indexes cmds->table): e is its entry, slot the one hash slot of its keys when the
 * caller computed it (0..16383, RG_SLOT_NONE, RG_SLOT_CROSS), else RG_SLOT_UNKNOWN: then the keys
 * are found in req with e's key specs (one parse into argv, no name lookup). The same answers as
 * rg_cluster_route for the same bytes. Returns out->kind. */
rg_route_kind rg_cluster_route_known(const rg_cluster_map *m, const rg_cluster_commands *cmds,
                                     const rg_keys_entry *e, int slot, const char *req, size_t len,
                                     rg_view *argv, size_t argv_cap, uint16_t any, rg_route *out);

/* A hash index of a command table's one-word names, so that a route finds most commands with
 * one hash and one caseless compare instead of a binary search of caseless compares (about 500
 * of the 1,240 instructions of a SET's route). Caller-owned, 2 KiB, no pointer to the heap;
 * built once, then read-only (any number of threads may route with it). */
enum { RG_CLUSTER_INDEX_SLOTS = 1024 };
typedef struct rg_cluster_index {
    const rg_cluster_commands *cmds;       /* kept: static data */
    uint16_t slot[RG_CLUSTER_INDEX_SLOTS]; /* table index + 1 of a one-word name (0: empty),
                                              bit 15: it has subcommands */
} rg_cluster_index;

/* Builds ix for cmds. Returns RG_OK, or RG_FULL when the table has more than
 * RG_CLUSTER_INDEX_SLOTS / 2 one-word names or 32767 entries (ix then finds nothing: routing with
 * it falls back to the binary search, with the same answers). */
rg_status rg_cluster_index_init(rg_cluster_index *ix, const rg_cluster_commands *cmds);

/* rg_cluster_route with the index: the same answers, for ix->cmds. */
rg_route_kind rg_cluster_route_indexed(const rg_cluster_map *m, const rg_cluster_index *ix,
                                       const char *req, size_t len, rg_view *argv, size_t argv_cap,
                                       uint16_t any, rg_route *out);

/* A readable name of a route kind ("node", "crossslot", ...). */
const char *rg_route_kind_name(rg_route_kind k);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
