/* respgen runtime: shared helpers. */
#include "rg.h"

#define RG_STATUS_NAME_(name, meaning)    [name] = #name,
#define RG_STATUS_MEANING_(name, meaning) [name] = meaning,

const char *rg_status_name(rg_status s) {
    static const char *const names[RG_STATUS_COUNT] = {RG_STATUSES(RG_STATUS_NAME_)};
    return (unsigned)s < RG_STATUS_COUNT ? names[s] : "RG_STATUS_UNKNOWN";
}

const char *rg_status_meaning(rg_status s) {
    static const char *const meanings[RG_STATUS_COUNT] = {RG_STATUSES(RG_STATUS_MEANING_)};
    return (unsigned)s < RG_STATUS_COUNT ? meanings[s] : "unknown status";
}
