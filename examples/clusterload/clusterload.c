/* clusterload: writes N keys with unique values into a Redis Cluster, pipelined per node, then
 * reads every one back, and says what failed.
 *
 *   clusterload HOST PORT [N [BATCH]]     (defaults: 100000 keys, batches of 2000)
 *
 * HOST:PORT is any node of the cluster: the client reads the slot map from it (CLUSTER SHARDS)
 * and routes each SET and GET by the key's slot; MOVED, ASK, TRYAGAIN and lost nodes are handled
 * by the client, so resharding or failing the cluster over while this runs is fine. Exit status:
 * 0 when every key reads back with its value, 1 otherwise.
 */
#include "rg_cluster_client.h"

#include "redis_client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MAX_BATCH = 8192, ARENA = 4 << 20 };

typedef struct app {
    rg_cc cc;
    rg_cc_call calls[MAX_BATCH];
    char arena[ARENA];
    redis_get_result got[MAX_BATCH];
    char key[MAX_BATCH][32], value[MAX_BATCH][32];
} app;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Adds one call to the batch: the generated calls, as on one node, on the cluster's front (the
 * request is encoded straight into the client's arena). */
static void set(app *a, size_t i, size_t n) {
    const int kl = snprintf(a->key[i], sizeof a->key[i], "load:%zu", n);
    const int vl = snprintf(a->value[i], sizeof a->value[i], "v%zu-%zx", n, n * 2654435761u);
    redis_set_call(rg_cc_conn(&a->cc), (rg_view){a->key[i], (size_t)kl},
                   (rg_view){a->value[i], (size_t)vl}, NULL, NULL, NULL, NULL);
}

static void get(app *a, size_t i) {
    redis_get_call(rg_cc_conn(&a->cc), (rg_view){a->key[i], strlen(a->key[i])}, &a->got[i], NULL,
                   NULL);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: clusterload HOST PORT [N [BATCH]]\n");
        return 2;
    }
    const size_t total = argc > 3 ? strtoull(argv[3], NULL, 10) : 100000;
    size_t batch = argc > 4 ? strtoull(argv[4], NULL, 10) : 2000;
    if (batch == 0 || batch > MAX_BATCH) batch = MAX_BATCH;
    static app a;
    static const rg_cluster_commands cmds = {redis_keys_table, REDIS_KEYS_CMD_COUNT,
                                             redis_keys_policy};
    const rg_cc_config cfg = {
        .cmds = &cmds, .calls = a.calls, .ncalls = MAX_BATCH, .arena = a.arena, .arena_cap = ARENA};
    if (rg_cc_init(&a.cc, &cfg, argv[1], (uint16_t)atoi(argv[2])) != RG_OK) {
        const rg_error e = rg_cc_error(&a.cc);
        fprintf(stderr, "clusterload: %s: %.*s\n", rg_status_name(e.status), (int)e.msg.len,
                e.msg.ptr);
        return 1;
    }
    size_t failed = 0, wrong = 0;
    const double t0 = now_s();
    for (size_t base = 0; base < total; base += batch) {
        const size_t n = total - base < batch ? total - base : batch;
        rg_cc_begin(&a.cc);
        for (size_t i = 0; i < n; i++) set(&a, i, base + i);
        if (rg_cc_run(&a.cc) != 0) {
            for (size_t i = 0; i < n; i++) {
                const rg_cc_call *k = rg_cc_get(&a.cc, i);
                if (k->status != RG_OK && failed++ < 10)
                    printf("SET %s: %s%s %s\n", a.key[i], rg_status_name(k->status),
                           k->written ? " (written: may have run)" : "", k->error.ptr);
            }
        }
        rg_cc_begin(&a.cc);
        for (size_t i = 0; i < n; i++) get(&a, i);
        rg_cc_run(&a.cc);
        for (size_t i = 0; i < n; i++) {
            const rg_cc_call *k = rg_cc_get(&a.cc, i);
            const rg_view v = a.got[i].value;
            if (k->status != RG_OK) {
                if (failed++ < 10)
                    printf("GET %s: %s %s\n", a.key[i], rg_status_name(k->status), k->error.ptr);
            } else if (v.len != strlen(a.value[i]) || memcmp(v.ptr, a.value[i], v.len) != 0) {
                if (wrong++ < 10) printf("%s: read back another value\n", a.key[i]);
            }
        }
    }
    const double dt = now_s() - t0;
    const rg_cc_stats *s = &a.cc.stats;
    printf("%zu SET + %zu GET in %.2f s (%.0f calls/s) over %zu nodes; %zu failed, %zu wrong; "
           "MOVED %llu, ASK %llu, retries %llu, map refreshes %llu\n",
           total, total, dt, 2.0 * (double)total / dt, a.cc.map.nnodes, failed, wrong,
           (unsigned long long)s->moved, (unsigned long long)s->ask, (unsigned long long)s->retries,
           (unsigned long long)s->refreshes);
    rg_cc_close(&a.cc);
    return failed || wrong ? 1 : 0;
}
