/* respgen runtime: the keys of a command and their Redis Cluster hash slots.
 *
 * What a cluster-aware client or proxy needs to route a command: which arguments are keys (from
 * the command's key specs, the same data Redis itself uses), the hash slot of each key, and
 * whether all keys of a multi-key command share one slot. docs/cluster.md shows the whole path.
 *
 * Ownership: nothing here allocates or retains anything. Every function reads its arguments during
 * the call only; positions and views written into caller arrays point into the caller's argv or
 * request bytes and live exactly as long as those do. All functions are reentrant (no global
 * mutable state) and never read outside the arrays and lengths they are given, whatever the bytes.
 */
#ifndef RG_KEYS_H
#define RG_KEYS_H

#include "rg.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* ---- hash slots -------------------------------------------------------------------------- */

/* Redis Cluster has 16384 hash slots, numbered 0..16383. */
#define RG_CLUSTER_SLOTS 16384

/* CRC16/XMODEM (polynomial 0x1021, init 0, no reflection, no final XOR) of n bytes: the checksum
 * Redis Cluster hashes keys with. rg_crc16("123456789", 9) == 0x31C3. p may be NULL when n is 0. */
uint16_t rg_crc16(const char *p, size_t n);

/* The hash slot of a key, exactly as Redis computes it (CLUSTER KEYSLOT): if the key contains a
 * '{' and a '}' somewhere after the first '{', and at least one byte lies between that '{' and
 * the first such '}', only those bytes (the hashtag) are hashed; otherwise the whole key is.
 * So "{user1000}.following" and "{user1000}.followers" share a slot, while "{}a" and "a{}" hash
 * whole and "{{a}}" hashes "{a". key may be NULL when n is 0. */
uint16_t rg_slot_of_key(const char *key, size_t n);

/* ---- key specs --------------------------------------------------------------------------- */

/* The two halves of a key spec: how to find the first key (begin_search: RG_KS_INDEX,
 * RG_KS_KEYWORD or RG_KS_UNKNOWN) and how to find the rest from there (find_keys: RG_KS_RANGE,
 * RG_KS_KEYNUM or RG_KS_UNKNOWN). Zero is RG_KS_UNKNOWN, so a spec left zeroed is never mistaken
 * for one that can be applied. */
typedef enum rg_ks_kind {
    RG_KS_UNKNOWN = 0,
    RG_KS_INDEX,
    RG_KS_KEYWORD,
    RG_KS_RANGE,
    RG_KS_KEYNUM,
    RG_KS_KIND_COUNT
} rg_ks_kind;

/* Key spec flags: the bits and values of Redis' CMD_KEY_* flags. Only RG_KEY_NOT_KEY and
 * RG_KEY_INCOMPLETE change what rg_keys_find does; the others describe the access and are kept so
 * that the tables are complete. */
#define RG_KEY_RO             (1u << 0)  /* read only */
#define RG_KEY_RW             (1u << 1)  /* read and write */
#define RG_KEY_OW             (1u << 2)  /* overwrite, value not read */
#define RG_KEY_RM             (1u << 3)  /* deletes the key */
#define RG_KEY_ACCESS         (1u << 4)  /* returns, copies or uses user data */
#define RG_KEY_UPDATE         (1u << 5)  /* updates data */
#define RG_KEY_INSERT         (1u << 6)  /* adds data, never modifies or deletes */
#define RG_KEY_DELETE         (1u << 7)  /* explicitly deletes data */
#define RG_KEY_NOT_KEY        (1u << 8)  /* a name in the key space that is not a key (channel) */
#define RG_KEY_INCOMPLETE     (1u << 9)  /* the spec may miss keys: ask the server */
#define RG_KEY_VARIABLE_FLAGS (1u << 10) /* the flags depend on the arguments */
/* Not a Redis flag: the key may be given as "" to say there is none here (MIGRATE host port ""
 * 0 1 KEYS a b: the keys come after KEYS), so an empty argument at its position is no key when
 * a keyword spec of the same command finds its keyword. Without the keyword "" is the key, as
 * in Redis (COMMAND GETKEYS MIGRATE h p "" 0 1 names ""). */
#define RG_KEY_EMPTY_PLACEHOLDER (1u << 15)

/* One key spec, field for field the JSON "key_specs" entry (see ../shared/redis-commands). Fields
 * that do not belong to the spec's kinds are ignored; generated tables leave them zero.
 * Positions are argv indices with argv[0] the command name (argv[1] the subcommand name of a
 * subcommand), as in Redis. */
typedef struct rg_keyspec {
    const char *keyword; /* RG_KS_KEYWORD: the token (NUL-terminated, matched ASCII-caselessly) */
    int32_t index;       /* RG_KS_INDEX: the argv position where the keys begin */
    int32_t startfrom;   /* RG_KS_KEYWORD: where the search for the keyword starts; > 0 searches
                            forwards from that position, <= 0 backwards from argc + startfrom;
                            the keys begin right after the keyword */
    int32_t lastkey;     /* RG_KS_RANGE: >= 0 the last key is that far after the first; < 0
                            counts from the end of argv (-1 = the last argument) */
    int32_t limit;       /* RG_KS_RANGE with lastkey < 0: 0 or 1 = up to the end, N = only the
                            first 1/N of the remaining arguments (XREAD: keys then as many IDs) */
    int32_t keynumidx;   /* RG_KS_KEYNUM: where the key count is, relative to the begin position */
    int32_t firstkey;    /* RG_KS_KEYNUM: where the first key is, relative to the begin position */
    int32_t step;        /* RG_KS_RANGE and RG_KS_KEYNUM: distance between keys (>= 1) */
    uint16_t flags;      /* RG_KEY_* */
    uint8_t begin;       /* RG_KS_INDEX, RG_KS_KEYWORD or RG_KS_UNKNOWN */
    uint8_t find;        /* RG_KS_RANGE, RG_KS_KEYNUM or RG_KS_UNKNOWN */
} rg_keyspec;

/* How far the positions rg_keys_find reports can be trusted: its err's status (rg.h) is
 *   RG_OK          the positions are exactly the keys Redis finds from these specs;
 *   RG_INCOMPLETE  a spec is RG_KS_UNKNOWN or RG_KEY_INCOMPLETE (SORT's BY/GET/STORE, MIGRATE ...
 *                  KEYS): the positions found are keys, but there may be others. Ask the server
 *                  (COMMAND GETKEYS);
 *   RG_INVALID     argv does not fit a spec (too few arguments, a key count that is not a
 *                  number, negative, or more than the arguments there are) or a spec is
 *                  malformed: the server will most likely reject the command. The positions of
 *                  the specs that did fit are still reported.
 * err's msg is static text saying which; its offset is the index in specs of the first spec that
 * gave the status (0 for the failures before any spec is looked at). */

/* The argv positions of the keys of one call, found from the command's key specs the way Redis'
 * getKeysUsingKeySpecs (src/db.c) does: specs in order, keys in order within a spec, a key that
 * two specs name reported twice, RG_KEY_NOT_KEY specs skipped, a RG_KS_KEYWORD spec whose keyword
 * is absent contributing nothing.
 *
 * Writes the first min(result, cap) positions (each < argc) into positions and returns how many
 * there are in all, so a call with cap 0 (positions may then be NULL) asks for the size. *err
 * (required) says whether the list is complete. When several specs fail, RG_INVALID wins over
 * RG_INCOMPLETE. argv[i].ptr may be NULL when argv[i].len is 0. An argc over INT32_MAX (more
 * arguments than Redis accepts) is RG_INVALID without a look at the specs.
 *
 * One deliberate difference from Redis: a key count of 0 (EVAL script 0) gives no keys and
 * RG_OK, where Redis' spec walk gives up and leaves it to the command's own key function,
 * which finds no keys either. Redis truncates a huge key count to int (4294967297 counts as 1);
 * here any count larger than argc is RG_INVALID. */
size_t rg_keys_find(const rg_keyspec *specs, size_t nspecs, size_t argc, const rg_view *argv,
                    size_t *positions, size_t cap, rg_error *err);

/* rg_slot_of_argv's answers besides a slot 0..16383. */
#define RG_SLOT_NONE    (-1) /* the call has no keys: any node can serve it */
#define RG_SLOT_CROSS   (-2) /* keys in more than one slot: Redis Cluster replies -CROSSSLOT */
#define RG_SLOT_UNKNOWN (-3) /* rg_keys_find's status is not RG_OK: ask the server */

/* The slot of some keys (acc: RG_SLOT_NONE before the first) with one more key: that key's slot
 * when it is the first or the same, else RG_SLOT_CROSS. The generated calls fold their keys with
 * it for a cluster (rg_conn_relay_slot). */
static inline int rg_slot_join(int acc, rg_view key) {
    const int s = rg_slot_of_key(key.ptr, key.len);
    return acc == RG_SLOT_NONE || acc == s ? s : RG_SLOT_CROSS;
}

/* The one hash slot all keys of the call hash to, or RG_SLOT_NONE, RG_SLOT_CROSS or
 * RG_SLOT_UNKNOWN. Needs no position storage. */
int rg_slot_of_argv(const rg_keyspec *specs, size_t nspecs, size_t argc, const rg_view *argv);

/* The one hash slot of the channels a sharded Pub/Sub call names (SPUBLISH, SSUBSCRIBE,
 * SUNSUBSCRIBE: their NOT_KEY specs, which are no keys but which a cluster routes as if they
 * were), with rg_slot_of_argv's answers: RG_SLOT_NONE for a call without such specs. */
int rg_channel_slot_of_argv(const rg_keyspec *specs, size_t nspecs, size_t argc,
                            const rg_view *argv);

/* ---- encoded calls ----------------------------------------------------------------------- */

/* The arguments of one encoded call, as generated encoders and rg_argv_encode write it: a RESP
 * array of bulk strings, "*<n>\r\n" then n times "$<len>\r\n<bytes>\r\n", counts in canonical
 * decimal (no sign, no leading zeros), occupying exactly len bytes.
 *
 * Returns n, the argument count, and stores views of the first min(n, cap) arguments into argv
 * (views into req: valid as long as req is). Returns 0 when req is not exactly one such request
 * (an inline command, another RESP type, a count or length that is not canonical, missing CRLF,
 * short input, trailing bytes, an empty array); argv's contents are then unspecified. With a
 * result greater than cap, call again with room for n views. */
size_t rg_request_argv(const char *req, size_t len, rg_view *argv, size_t cap);

/* ---- command_tips: request and response policies --------------------------------------- */

/* What the spec's command_tips say about a command in a cluster (REQUEST_POLICY:<x>,
 * RESPONSE_POLICY:<x>); the generated P_keys_policy holds them per command. */

/* REQUEST_POLICY:<x> of a command without keys (or with keys in several slots). */
typedef enum rg_request_policy {
    RG_REQ_DEFAULT = 0, /* by the keys' slot; keyless: any node */
    RG_REQ_ALL_NODES,   /* every node, masters and replicas */
    RG_REQ_ALL_SHARDS,  /* every master */
    RG_REQ_MULTI_SHARD, /* the keys split per slot (DEL k1 k2, MSET k1 v1 k2 v2) */
    RG_REQ_SPECIAL      /* the client must know (SCAN, FT.SEARCH ...): sent to any node */
} rg_request_policy;

/* RESPONSE_POLICY:<x>: how the replies of a fanned-out command merge into one. */
typedef enum rg_response_policy {
    RG_RESP_DEFAULT = 0,   /* keyless: the replies concatenated (arrays); with keys: in order */
    RG_RESP_ONE_SUCCEEDED, /* the first non-error reply; an error only when all failed */
    RG_RESP_ALL_SUCCEEDED, /* the first error, else any reply */
    RG_RESP_AGG_LOGICAL_AND,
    RG_RESP_AGG_LOGICAL_OR,
    RG_RESP_AGG_MIN,
    RG_RESP_AGG_MAX,
    RG_RESP_AGG_SUM,
    RG_RESP_SPECIAL
} rg_response_policy;

typedef struct rg_cmd_policy {
    uint8_t request;  /* rg_request_policy */
    uint8_t response; /* rg_response_policy */
} rg_cmd_policy;

/* ---- command tables ------------------------------------------------------------------------ */

/* One command of a generated table (P_keys_table): the tables are sorted by name (bytewise),
 * which the lookups below rely on. Everything is static data; nothing is owned. */
typedef struct rg_keys_entry {
    const char *name;        /* upper case; a subcommand as "CLIENT KILL" */
    const rg_keyspec *specs; /* in key_specs order; NULL when count is 0 */
    size_t count;
} rg_keys_entry;

/* The entry named by words joined with single spaces ("CLIENT" "KILL"), compared
 * ASCII-caselessly; NULL when there is none. */
const rg_keys_entry *rg_keys_table_lookup(const rg_keys_entry *table, size_t n,
                                          const rg_view *words, size_t nwords);

/* The entry of a call: argv[0] and argv[1] for a subcommand, else argv[0]; NULL when the command
 * is not in the table. */
const rg_keys_entry *rg_keys_table_command(const rg_keys_entry *table, size_t n, size_t argc,
                                           const rg_view *argv);

/* The keys of one encoded call: parses req into argv (views into req), finds the command and
 * returns rg_keys_find's answer. Besides its errors: RG_INVALID and 0 when req is not one encoded
 * call; RG_INCOMPLETE and 0 when the command is not in the table (ask the server) or argv_cap is
 * smaller than the argument count (then err's offset, as rg_request_argv(req, len, NULL, 0)).
 * err is required; its msg is static text. */
size_t rg_keys_of_request(const rg_keys_entry *table, size_t n, const char *req, size_t len,
                          rg_view *argv, size_t argv_cap, size_t *positions, size_t pos_cap,
                          rg_error *err);

/* The one hash slot of an encoded call's keys, or RG_SLOT_NONE, RG_SLOT_CROSS or RG_SLOT_UNKNOWN
 * (the cases of rg_keys_of_request that tell no keys). */
int rg_slot_of_request(const rg_keys_entry *table, size_t n, const char *req, size_t len,
                       rg_view *argv, size_t argv_cap);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
