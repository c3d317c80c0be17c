/* respgen runtime: shared helpers. */
#include "rg.h"

const char *rg_status_name(rg_status s) {
    static const char *const names[RG_STATUS_COUNT] = {
        [RG_OK] = "RG_OK",
        [RG_NEED_MORE] = "RG_NEED_MORE",
        [RG_PAUSED] = "RG_PAUSED",
        [RG_ERR_PROTOCOL] = "RG_ERR_PROTOCOL",
        [RG_ERR_LIMIT] = "RG_ERR_LIMIT",
        [RG_ERR_DEPTH] = "RG_ERR_DEPTH",
    };
    return (unsigned)s < RG_STATUS_COUNT ? names[s] : "RG_STATUS_UNKNOWN";
}
