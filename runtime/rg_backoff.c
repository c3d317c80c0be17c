/* respgen runtime: reconnect delays (see rg_backoff.h). */
#include "rg_backoff.h"

uint32_t rg_backoff_cap(const rg_backoff *b, uint32_t n) {
    const uint32_t first = b->first_ms ? b->first_ms : RG_BACKOFF_FIRST_MS;
    const uint32_t max = b->max_ms ? b->max_ms : RG_BACKOFF_MAX_MS;
    /* first << n only while it stays at most max: no shift past the width, no wrap */
    if (first >= max || n >= 32 || first > (max >> n)) return max;
    return first << n;
}

uint32_t rg_backoff_delay(const rg_backoff *b, uint32_t n, uint64_t random) {
    /* the modulo's bias is below 2^-31 for a 64-bit random and a 32-bit range */
    return (uint32_t)(random % ((uint64_t)rg_backoff_cap(b, n) + 1));
}

uint64_t rg_backoff_random(uint64_t *state) {
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}
