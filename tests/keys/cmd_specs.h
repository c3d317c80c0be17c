/* Key spec tables written by hand from the JSON files in ../shared/redis-commands, in the exact
 * shape the generator emits (designated initializers, every field of the spec's kinds spelled
 * out, the rest left zero). Shared by the unit tests, the server tests and the fuzz target. */
#ifndef RG_TEST_CMD_SPECS_H
#define RG_TEST_CMD_SPECS_H

#include "rg_keys.h"

#define KS_COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const rg_keyspec ks_get[] = {
    {.flags = RG_KEY_RO | RG_KEY_ACCESS,
     .begin = RG_KS_INDEX,
     .index = 1,
     .find = RG_KS_RANGE,
     .lastkey = 0,
     .step = 1,
     .limit = 0},
};
static const rg_keyspec ks_set[] = {
    {.flags = RG_KEY_RW | RG_KEY_ACCESS | RG_KEY_UPDATE | RG_KEY_VARIABLE_FLAGS,
     .begin = RG_KS_INDEX,
     .index = 1,
     .find = RG_KS_RANGE,
     .lastkey = 0,
     .step = 1,
     .limit = 0},
};
static const rg_keyspec ks_mset[] = {
    {.flags = RG_KEY_OW | RG_KEY_UPDATE,
     .begin = RG_KS_INDEX,
     .index = 1,
     .find = RG_KS_RANGE,
     .lastkey = -1,
     .step = 2,
     .limit = 0},
};
static const rg_keyspec ks_del[] = {
    {.flags = RG_KEY_RM | RG_KEY_DELETE,
     .begin = RG_KS_INDEX,
     .index = 1,
     .find = RG_KS_RANGE,
     .lastkey = -1,
     .step = 1,
     .limit = 0},
};
static const rg_keyspec ks_blpop[] = {
    {.flags = RG_KEY_RW | RG_KEY_ACCESS | RG_KEY_DELETE,
     .begin = RG_KS_INDEX,
     .index = 1,
     .find = RG_KS_RANGE,
     .lastkey = -2,
     .step = 1,
     .limit = 0},
};
static const rg_keyspec ks_eval[] = {
    {.flags = RG_KEY_RW | RG_KEY_ACCESS | RG_KEY_UPDATE,
     .begin = RG_KS_INDEX,
     .index = 2,
     .find = RG_KS_KEYNUM,
     .keynumidx = 0,
     .firstkey = 1,
     .step = 1},
};
static const rg_keyspec ks_xread[] = {
    {.flags = RG_KEY_RO | RG_KEY_ACCESS,
     .begin = RG_KS_KEYWORD,
     .keyword = "STREAMS",
     .startfrom = 1,
     .find = RG_KS_RANGE,
     .lastkey = -1,
     .step = 1,
     .limit = 2},
};
static const rg_keyspec ks_xreadgroup[] = {
    {.flags = RG_KEY_RO | RG_KEY_ACCESS,
     .begin = RG_KS_KEYWORD,
     .keyword = "STREAMS",
     .startfrom = 4,
     .find = RG_KS_RANGE,
     .lastkey = -1,
     .step = 1,
     .limit = 2},
};
static const rg_keyspec ks_zunionstore[] = {
    {.flags = RG_KEY_OW | RG_KEY_UPDATE,
     .begin = RG_KS_INDEX,
     .index = 1,
     .find = RG_KS_RANGE,
     .lastkey = 0,
     .step = 1,
     .limit = 0},
    {.flags = RG_KEY_RO | RG_KEY_ACCESS,
     .begin = RG_KS_INDEX,
     .index = 2,
     .find = RG_KS_KEYNUM,
     .keynumidx = 0,
     .firstkey = 1,
     .step = 1},
};
static const rg_keyspec ks_migrate[] = {
    /* The key may be "" (keys after KEYS): respgen adds RG_KEY_EMPTY_PLACEHOLDER. */
    {.flags = RG_KEY_RW | RG_KEY_ACCESS | RG_KEY_DELETE | RG_KEY_EMPTY_PLACEHOLDER,
     .begin = RG_KS_INDEX,
     .index = 3,
     .find = RG_KS_RANGE,
     .lastkey = 0,
     .step = 1,
     .limit = 0},
    {.flags = RG_KEY_RW | RG_KEY_ACCESS | RG_KEY_DELETE | RG_KEY_INCOMPLETE,
     .begin = RG_KS_KEYWORD,
     .keyword = "KEYS",
     .startfrom = -2,
     .find = RG_KS_RANGE,
     .lastkey = -1,
     .step = 1,
     .limit = 0},
};
static const rg_keyspec ks_sort[] = {
    {.flags = RG_KEY_RO | RG_KEY_ACCESS,
     .begin = RG_KS_INDEX,
     .index = 1,
     .find = RG_KS_RANGE,
     .lastkey = 0,
     .step = 1,
     .limit = 0},
    {.flags = RG_KEY_RO | RG_KEY_ACCESS, .begin = RG_KS_UNKNOWN, .find = RG_KS_UNKNOWN},
    {.flags = RG_KEY_OW | RG_KEY_UPDATE, .begin = RG_KS_UNKNOWN, .find = RG_KS_UNKNOWN},
};
static const rg_keyspec ks_lmpop[] = {
    {.flags = RG_KEY_RW | RG_KEY_ACCESS | RG_KEY_DELETE,
     .begin = RG_KS_INDEX,
     .index = 1,
     .find = RG_KS_KEYNUM,
     .keynumidx = 0,
     .firstkey = 1,
     .step = 1},
};
static const rg_keyspec ks_blmpop[] = {
    {.flags = RG_KEY_RW | RG_KEY_ACCESS | RG_KEY_DELETE,
     .begin = RG_KS_INDEX,
     .index = 2,
     .find = RG_KS_KEYNUM,
     .keynumidx = 0,
     .firstkey = 1,
     .step = 1},
};
static const rg_keyspec ks_georadius[] = {
    {.flags = RG_KEY_RO | RG_KEY_ACCESS,
     .begin = RG_KS_INDEX,
     .index = 1,
     .find = RG_KS_RANGE,
     .lastkey = 0,
     .step = 1,
     .limit = 0},
    {.flags = RG_KEY_OW | RG_KEY_UPDATE,
     .begin = RG_KS_KEYWORD,
     .keyword = "STORE",
     .startfrom = 6,
     .find = RG_KS_RANGE,
     .lastkey = 0,
     .step = 1,
     .limit = 0},
    {.flags = RG_KEY_OW | RG_KEY_UPDATE,
     .begin = RG_KS_KEYWORD,
     .keyword = "STOREDIST",
     .startfrom = 6,
     .find = RG_KS_RANGE,
     .lastkey = 0,
     .step = 1,
     .limit = 0},
};
static const rg_keyspec ks_object_encoding[] = {
    {.flags = RG_KEY_RO,
     .begin = RG_KS_INDEX,
     .index = 2,
     .find = RG_KS_RANGE,
     .lastkey = 0,
     .step = 1,
     .limit = 0},
};
static const rg_keyspec ks_xgroup_create[] = {
    {.flags = RG_KEY_RW | RG_KEY_INSERT,
     .begin = RG_KS_INDEX,
     .index = 2,
     .find = RG_KS_RANGE,
     .lastkey = 0,
     .step = 1,
     .limit = 0},
};
static const rg_keyspec ks_smove[] = {
    {.flags = RG_KEY_RW | RG_KEY_ACCESS | RG_KEY_DELETE,
     .begin = RG_KS_INDEX,
     .index = 1,
     .find = RG_KS_RANGE,
     .lastkey = 0,
     .step = 1,
     .limit = 0},
    {.flags = RG_KEY_RW | RG_KEY_INSERT,
     .begin = RG_KS_INDEX,
     .index = 2,
     .find = RG_KS_RANGE,
     .lastkey = 0,
     .step = 1,
     .limit = 0},
};
static const rg_keyspec ks_rename[] = {
    {.flags = RG_KEY_RW | RG_KEY_ACCESS | RG_KEY_DELETE,
     .begin = RG_KS_INDEX,
     .index = 1,
     .find = RG_KS_RANGE,
     .lastkey = 0,
     .step = 1,
     .limit = 0},
    {.flags = RG_KEY_OW | RG_KEY_UPDATE,
     .begin = RG_KS_INDEX,
     .index = 2,
     .find = RG_KS_RANGE,
     .lastkey = 0,
     .step = 1,
     .limit = 0},
};
static const rg_keyspec ks_copy[] = {
    {.flags = RG_KEY_RO | RG_KEY_ACCESS,
     .begin = RG_KS_INDEX,
     .index = 1,
     .find = RG_KS_RANGE,
     .lastkey = 0,
     .step = 1,
     .limit = 0},
    {.flags = RG_KEY_OW | RG_KEY_UPDATE,
     .begin = RG_KS_INDEX,
     .index = 2,
     .find = RG_KS_RANGE,
     .lastkey = 0,
     .step = 1,
     .limit = 0},
};
static const rg_keyspec ks_lcs[] = {
    {.flags = RG_KEY_RO | RG_KEY_ACCESS,
     .begin = RG_KS_INDEX,
     .index = 1,
     .find = RG_KS_RANGE,
     .lastkey = 1,
     .step = 1,
     .limit = 0},
};
static const rg_keyspec ks_sintercard[] = {
    {.flags = RG_KEY_RO | RG_KEY_ACCESS,
     .begin = RG_KS_INDEX,
     .index = 1,
     .find = RG_KS_KEYNUM,
     .keynumidx = 0,
     .firstkey = 1,
     .step = 1},
};
static const rg_keyspec ks_bitop[] = {
    {.flags = RG_KEY_OW | RG_KEY_UPDATE,
     .begin = RG_KS_INDEX,
     .index = 2,
     .find = RG_KS_RANGE,
     .lastkey = 0,
     .step = 1,
     .limit = 0},
    {.flags = RG_KEY_RO | RG_KEY_ACCESS,
     .begin = RG_KS_INDEX,
     .index = 3,
     .find = RG_KS_RANGE,
     .lastkey = -1,
     .step = 1,
     .limit = 0},
};
static const rg_keyspec ks_spublish[] = {
    {.flags = RG_KEY_NOT_KEY,
     .begin = RG_KS_INDEX,
     .index = 1,
     .find = RG_KS_RANGE,
     .lastkey = 0,
     .step = 1,
     .limit = 0},
};

/* Every table above by command name, for tests that pick one. */
typedef struct cmd_specs {
    const char *name;
    const rg_keyspec *specs;
    size_t n;
} cmd_specs;

#define CMD_SPECS(name, t) \
    { name, t, KS_COUNT(t) }
static const cmd_specs all_cmd_specs[] = {
    CMD_SPECS("GET", ks_get),
    CMD_SPECS("SET", ks_set),
    CMD_SPECS("MSET", ks_mset),
    CMD_SPECS("DEL", ks_del),
    CMD_SPECS("BLPOP", ks_blpop),
    CMD_SPECS("EVAL", ks_eval),
    CMD_SPECS("XREAD", ks_xread),
    CMD_SPECS("XREADGROUP", ks_xreadgroup),
    CMD_SPECS("ZUNIONSTORE", ks_zunionstore),
    CMD_SPECS("MIGRATE", ks_migrate),
    CMD_SPECS("SORT", ks_sort),
    CMD_SPECS("LMPOP", ks_lmpop),
    CMD_SPECS("BLMPOP", ks_blmpop),
    CMD_SPECS("GEORADIUS", ks_georadius),
    CMD_SPECS("OBJECT ENCODING", ks_object_encoding),
    CMD_SPECS("XGROUP CREATE", ks_xgroup_create),
    CMD_SPECS("SMOVE", ks_smove),
    CMD_SPECS("RENAME", ks_rename),
    CMD_SPECS("COPY", ks_copy),
    CMD_SPECS("LCS", ks_lcs),
    CMD_SPECS("SINTERCARD", ks_sintercard),
    CMD_SPECS("BITOP", ks_bitop),
    CMD_SPECS("SPUBLISH", ks_spublish),
};
#define N_CMD_SPECS KS_COUNT(all_cmd_specs)

#endif
