/* respgen runtime: the engine's own descriptors of the commands it treats specially (see
 * rg_cmd.h), for requests that come as bytes. Generated calls carry their own descriptors. */
#include "rg_cmd.h"

#include <string.h>

/* The names are upper case; a word is matched with its letters' case bit cleared. */
static bool same_word(rg_view w, const char *name) {
    const size_t n = strlen(name);
    if (w.len != n) return false;
    for (size_t i = 0; i < n; i++)
        if ((w.ptr[i] & ~0x20) != name[i]) return false;
    return true;
}

#define SPECIAL(name, kind, pubsub, flags) \
    { name, NULL, flags, 0, kind, pubsub }
static const rg_cmd SPECIALS[] = {
    SPECIAL("MULTI", RG_CMD_MULTI, 0, 0),
    SPECIAL("EXEC", RG_CMD_EXEC, 0, 0),
    SPECIAL("DISCARD", RG_CMD_DISCARD, 0, 0),
    SPECIAL("PING", RG_CMD_PING, 0, 0),
    SPECIAL("HELLO", RG_CMD_HELLO, 0, 0),
    SPECIAL("RESET", RG_CMD_RESET, 0, 0),
    SPECIAL("SUBSCRIBE", RG_CMD_SUBSCRIBE, RG_PUSH_SUBSCRIBE, RG_CMD_F_PUBSUB),
    SPECIAL("PSUBSCRIBE", RG_CMD_SUBSCRIBE, RG_PUSH_PSUBSCRIBE, RG_CMD_F_PUBSUB),
    SPECIAL("SSUBSCRIBE", RG_CMD_SUBSCRIBE, RG_PUSH_SSUBSCRIBE, RG_CMD_F_PUBSUB),
    SPECIAL("UNSUBSCRIBE", RG_CMD_UNSUBSCRIBE, RG_PUSH_UNSUBSCRIBE, RG_CMD_F_PUBSUB),
    SPECIAL("PUNSUBSCRIBE", RG_CMD_UNSUBSCRIBE, RG_PUSH_PUNSUBSCRIBE, RG_CMD_F_PUBSUB),
    SPECIAL("SUNSUBSCRIBE", RG_CMD_UNSUBSCRIBE, RG_PUSH_SUNSUBSCRIBE, RG_CMD_F_PUBSUB),
    SPECIAL("CLIENT TRACKING", RG_CMD_TRACKING, 0, 0),
};
#undef SPECIAL

const rg_cmd *rg_cmd_lookup(rg_view name, rg_view sub) {
    /* The shortest and longest names above; "CLIENT TRACKING" is matched by its two words. */
    if (name.len < 4 || name.len > 12) return NULL;
    if (same_word(name, "CLIENT"))
        return same_word(sub, "TRACKING") ? &SPECIALS[sizeof SPECIALS / sizeof SPECIALS[0] - 1]
                                          : NULL;
    for (size_t k = 0; k + 1 < sizeof SPECIALS / sizeof SPECIALS[0]; k++)
        if (same_word(name, SPECIALS[k].name)) return &SPECIALS[k];
    return NULL;
}
