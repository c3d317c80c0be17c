/* respgen runtime: the descriptor of a command, what the client engine and the cluster layer
 * must know of it.
 *
 * The generator knows every command's name, typed reply, flags, command tips and key specs; a
 * generated call hands the engine that knowledge as one static rg_cmd, so the engine never parses
 * it back out of the request bytes (which command it is, whether it subscribes, opens a
 * transaction, switches the protocol). Requests that come as bytes (rg_conn_call_argv, a user's
 * own encoder) are looked up by name in the engine's own table of the commands it treats
 * specially (rg_cmd_lookup).
 *
 * Ownership: descriptors are static data (generated, or the runtime's); nothing is owned.
 */
#ifndef RG_CMD_H
#define RG_CMD_H

#include "rg_keys.h"
#include "rg_push.h"
#include "rg_reply.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* What a command does to the connection it is sent on, as far as the engine cares. */
typedef enum rg_cmd_kind {
    RG_CMD_PLAIN = 0,   /* one request, one reply */
    RG_CMD_SUBSCRIBE,   /* (P|S)SUBSCRIBE: one confirmation per name, no ordinary reply */
    RG_CMD_UNSUBSCRIBE, /* (P|S)UNSUBSCRIBE: as many confirmations as names (or as held) */
    RG_CMD_MULTI,       /* opens a transaction: the calls behind it are queued */
    RG_CMD_EXEC,        /* runs it: one array of the queued calls' replies */
    RG_CMD_DISCARD,     /* drops it */
    RG_CMD_PING,        /* in RESP2 subscribe mode answered ["pong", message] */
    RG_CMD_HELLO,       /* may switch the protocol: the engine reads the one confirmed */
    RG_CMD_RESET,       /* back to RESP2, out of subscribe mode and of a transaction */
    RG_CMD_TRACKING,    /* CLIENT TRACKING: a loss must flush client-side caches */
    RG_CMD_KIND_COUNT
} rg_cmd_kind;

/* Command flags (the spec's command_flags): the bits are those of the generated P_FLAG_* macros
 * (each generated client checks that they agree); the ones the client half reads are named. */
#define RG_CMD_F_WRITE    (UINT32_C(1) << 0)
#define RG_CMD_F_READONLY (UINT32_C(1) << 1)
#define RG_CMD_F_PUBSUB   (UINT32_C(1) << 5)
#define RG_CMD_F_NOSCRIPT (UINT32_C(1) << 6)
#define RG_CMD_F_BLOCKING (UINT32_C(1) << 7)
#define RG_CMD_F_NO_MULTI (UINT32_C(1) << 21)

/* One command. Static data: every pointer is to static data or NULL. */
typedef struct rg_cmd {
    const char *name;       /* upper case; a subcommand as "CLIENT TRACKING" */
    const rg_rtable *reply; /* its typed reply table (NULL: any reply, kept raw) */
    uint32_t flags;         /* RG_CMD_F_* */
    uint16_t id;    /* its index in the generated command list and tables (P_KEYS_CMD_<ID>: its
                       key specs are P_keys_table[id], its tips P_keys_policy[id]); 0 for the
                       runtime's own */
    uint8_t kind;   /* rg_cmd_kind */
    uint8_t pubsub; /* SUBSCRIBE, UNSUBSCRIBE: the rg_push_kind of its confirmations */
} rg_cmd;

/* The runtime's descriptor of a command the engine treats specially (kind not RG_CMD_PLAIN),
 * found by its name and, for CLIENT, its subcommand (words compared ASCII-caselessly); NULL for
 * every other command. */
const rg_cmd *rg_cmd_lookup(rg_view name, rg_view sub);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
