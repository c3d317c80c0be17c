/* libFuzzer target for the Sentinel parsers (runtime/rg_sentinel.h): what a sentinel or a data
 * node sends is untrusted.
 *
 * The input's first byte picks what the rest is: a GET-MASTER-ADDR-BY-NAME reply, a SENTINEL
 * REPLICAS reply, a ROLE reply, or a push stream (RESP2 subscribe-mode arrays and RESP3 pushes,
 * decoded with rg_push_decode and handed to rg_sentinel_push one by one). Every parse runs on a
 * heap copy of exactly the input's bytes (ASan sees a read past them) and must leave the state
 * sane: an address taken has a NUL-terminated printable host and a port 1..65535, no more
 * replicas than the storage holds, the asking order a permutation of the sentinels. ASan and
 * UBSan catch the rest.
 */
#include "rg_sentinel.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_addr(const rg_sentinel_addr *a) {
    const char *nul = memchr(a->host, '\0', sizeof a->host);
    if (!nul || nul == a->host || a->port == 0) abort();
    for (const char *p = a->host; p < nul; p++)
        if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 0x7f) abort();
}

static void check(rg_sentinel *s, size_t cap) {
    const rg_sentinel_addr *m = rg_sentinel_master(s);
    if (m) check_addr(m);
    size_t n;
    const rg_sentinel_addr *r = rg_sentinel_replicas(s, &n);
    if (n > cap) abort();
    for (size_t i = 0; i < n; i++) check_addr(&r[i]);
    /* every sentinel is asked exactly once in a round */
    unsigned seen = 0;
    rg_sentinel_begin(s);
    for (int i; (i = rg_sentinel_next(s)) >= 0;) {
        if (i >= 3 || (seen & (1u << i))) abort();
        seen |= 1u << i;
    }
    if (seen != 7) abort();
    if (strlen(rg_sentinel_error(s)) >= sizeof s->msg) abort();
}

static void pushes(rg_sentinel *s, const char *buf, size_t len) {
    size_t pos = 0;
    while (pos < len) {
        rg_push p;
        const rg_status st = rg_push_decode(buf, len, &pos, true, NULL, &p, NULL);
        if (st != RG_OK) break;
        rg_sentinel_push(s, &p);
    }
    /* and the whole input as one message's payload */
    rg_push p;
    memset(&p, 0, sizeof p);
    p.kind = RG_PUSH_MESSAGE;
    p.channel = RG_LIT("+switch-master");
    p.payload = (rg_view){buf, len};
    rg_sentinel_push(s, &p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    static rg_sentinel_addr seeds[3] = {{"127.0.0.1", 26379}, {"127.0.0.1", 26380}, {"h", 1}};
    rg_sentinel_addr replicas[4];
    const rg_sentinel_config cfg = {RG_LIT("mymaster"), seeds, 3, replicas, 4};
    rg_sentinel s;
    if (rg_sentinel_init(&s, &cfg) != RG_OK) abort();
    const size_t len = size - 1;
    char *buf = malloc(len ? len : 1);
    if (!buf) return 0;
    if (len) memcpy(buf, data + 1, len);
    const rg_view raw = {buf, len};
    rg_sentinel_begin(&s);
    const int i = rg_sentinel_next(&s);
    switch (data[0] & 3) {
    case 0: rg_sentinel_master_reply(&s, i, raw); break;
    case 1: rg_sentinel_replicas_reply(&s, raw); break;
    case 2:
        if ((unsigned)rg_role_parse(raw) > RG_ROLE_SENTINEL) abort();
        break;
    default: pushes(&s, buf, len); break;
    }
    check(&s, 4);
    free(buf);
    return 0;
}
