/* Helpers of the cluster client's integration tests (cluster_client.c, cluster_tls.c): calls
 * added to a batch by their words with raw results, and the integer a raw reply holds. Include
 * it after cmocka.h and rg_cluster_client.h. */
#ifndef RG_TEST_CC_BATCH_H
#define RG_TEST_CC_BATCH_H

#include "rg_cluster_client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Adds the call of argc words to cc's batch, its raw result raw[its index]; returns the index. */
static inline size_t cc_add_words(rg_cc *cc, rg_raw_result *raw, size_t argc,
                                  const char *const *args) {
    rg_view v[16];
    for (size_t i = 0; i < argc; i++) v[i] = (rg_view){args[i], strlen(args[i])};
    size_t i = 0;
    assert_int_equal(rg_cc_add_argv(cc, argc, v, NULL, &raw[rg_cc_size(cc)], &i), RG_OK);
    return i;
}

/* ADD(cc, f, "SET", "k", "v"): cc_add_words with f->raw. */
#define ADD(cc, f, ...)                                                                           \
    cc_add_words(cc, (f)->raw, sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *), \
                 (const char *const[]){__VA_ARGS__})

/* Runs cc's batch; every call must end RG_OK (the others are printed first). */
static inline void cc_run_ok(rg_cc *cc) {
    const size_t failed = rg_cc_run(cc);
    for (size_t i = 0; i < rg_cc_size(cc) && failed; i++) {
        const rg_cc_call *k = rg_cc_get(cc, i);
        if (k->status != RG_OK)
            printf("  call %zu: %s %s\n", i, rg_status_name(k->status), k->error.ptr);
    }
    assert_int_equal(failed, 0);
}

/* An integer in a raw reply (":12\r\n"), or a bulk's number ("$2\r\n12\r\n"); 0 for a null (the
 * key is absent); -1 for anything else. */
static inline long long raw_int(const rg_raw_result *r) {
    const char *p = r->value.ptr;
    if (!p || r->value.len < 3) return -1;
    if (p[0] == ':') return atoll(p + 1);
    if (p[0] == '$' && p[1] != '-') {
        const char *nl = memchr(p, '\n', r->value.len);
        return nl ? atoll(nl + 1) : -1;
    }
    return p[0] == '$' || p[0] == '_' ? 0 : -1;
}

#endif
