/* bench_cluster: what cluster routing costs per command, and pipelined throughput on a local
 * six-node cluster (tests/support/test_cluster.h) for respgen's cluster client against
 * `redis-benchmark --cluster` in the same run.
 *
 * Usage: bench_cluster [--route-only | --client-only | --mget] [N]   (N: SETs per throughput run,
 *   1M; --mget: MGETs, 10,000)
 *   routing: N encoded SET calls with distinct keys, timed per stage (CRC16 slot of the key, slot
 *   of the encoded request through the generated key specs, the whole rg_cluster_route with the
 *   map lookup), best of 5 passes. --route-only stops there (for callgrind).
 *   throughput: rg_cc in batches (rg_cc_run) and streaming (rg_cc_step with a window of calls in
 *   flight), and redis-benchmark --cluster, RG_BENCH_ROUNDS times interleaved, medians.
 *   --client-only: the two rg_cc modes once (for callgrind).
 *   --mget: N cross-slot MGETs of 8 keys (8 slots, one key missing) into typed results, in
 *   batches of MGET_BATCH, nothing else timed: for callgrind, whose --toggle-collect=bench_mget
 *   counts this loop alone (instructions per MGET: the total over N).
 *   RG_BENCH_WINDOW, RG_BENCH_CHUNK, RG_BENCH_STREAM: the streaming window, the calls added
 *   between rounds, the calls per batch.
 */
#include "rg_cluster_client.h"
#include "rg_enc.h"
#include "test_cluster.h"

#include "redis_keys.h"
#include "redis_reply.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

enum { KEYS = 1 << 16, BATCH = 8192, ARENA = 4 << 20 };
/* Streaming: a batch of up to STREAM calls, of which at most WINDOW are in flight (3 x 2730, as
 * redis-benchmark -c 3 -P 2730 keeps), topped up in chunks of CHUNK between rounds. */
enum { STREAM = 8192, WINDOW = 4096, CHUNK = 1024 };

static const rg_cluster_commands CMDS = {redis_keys_table, REDIS_KEYS_CMD_COUNT, redis_keys_policy};

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_s(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

typedef struct reqs {
    char *bytes;
    size_t off[KEYS + 1];
    char key[KEYS][24];
} reqs;

static void make_requests(reqs *r) {
    r->bytes = malloc((size_t)KEYS * 64);
    size_t at = 0;
    for (size_t i = 0; i < KEYS; i++) {
        snprintf(r->key[i], sizeof r->key[i], "key:%08zu", i);
        const rg_view v[] = {RG_LIT("SET"), {r->key[i], strlen(r->key[i])}, RG_LIT("value")};
        r->off[i] = at;
        at += rg_argv_encode(r->bytes + at, 64, 3, v);
    }
    r->off[KEYS] = at;
}

/* Best of five passes over n calls, in ns per call. */
#define BEST_NS(var, n, body)                                     \
    do {                                                          \
        double best_ = 1e30;                                      \
        for (int pass = 0; pass < 5; pass++) {                    \
            const double t0 = now_s();                            \
            for (size_t i = 0; i < (n); i++) {                    \
                body;                                             \
            }                                                     \
            const double dt = (now_s() - t0) * 1e9 / (double)(n); \
            if (dt < best_) best_ = dt;                           \
        }                                                         \
        var = best_;                                              \
    } while (0)

static void bench_routing(const rg_cluster_map *m, const reqs *r, size_t n) {
    volatile uint64_t sink = 0;
    rg_view argv[8];
    double slot, req, route, indexed, lookup;
    BEST_NS(slot, n, {
        const char *k = r->key[i % KEYS];
        sink += rg_slot_of_key(k, 12);
    });
    BEST_NS(req, n, {
        const size_t j = i % KEYS;
        sink += (uint64_t)redis_slot_of_request(r->bytes + r->off[j], r->off[j + 1] - r->off[j],
                                                argv, 8);
    });
    BEST_NS(route, n, {
        const size_t j = i % KEYS;
        rg_route out;
        rg_cluster_route(m, &CMDS, r->bytes + r->off[j], r->off[j + 1] - r->off[j], argv, 8, 0,
                         &out);
        sink += out.node;
    });
    static rg_cluster_index ix;
    (void)rg_cluster_index_init(&ix, &CMDS);
    BEST_NS(indexed, n, {
        const size_t j = i % KEYS;
        rg_route out;
        rg_cluster_route_indexed(m, &ix, r->bytes + r->off[j], r->off[j + 1] - r->off[j], argv, 8,
                                 0, &out);
        sink += out.node;
    });
    BEST_NS(lookup, n, sink += rg_cluster_map_owner(m, (int)(i & 16383)));
    printf("routing, ns per SET call (best of 5 x %zu):\n", n);
    printf("  CRC16 slot of the key (rg_slot_of_key)              %6.1f\n", slot);
    printf("  slot of the encoded request (key specs)         %6.1f\n", req);
    printf("  map lookup (rg_cluster_map_owner)               %6.1f\n", lookup);
    printf("  whole route (rg_cluster_route: parse, specs, map) %4.1f\n", route);
    printf("  the same with the hash index (rg_cluster_route_indexed) %4.1f\n", indexed);
    (void)sink;
}

static void client_init(rg_cc *cc, rg_cc_call *calls, size_t ncalls, char *arena,
                        const test_cluster *c) {
    const rg_cc_config cfg = {.cmds = &CMDS,
                              .calls = calls,
                              .ncalls = ncalls,
                              .arena = arena,
                              .arena_cap = ARENA,
                              .protocol = 2};
    if (rg_cc_init(cc, &cfg, "127.0.0.1", (uint16_t)c->node[0].port) != RG_OK) {
        fprintf(stderr, "rg_cc_init: %.*s\n", (int)rg_cc_error(cc).msg.len,
                rg_cc_error(cc).msg.ptr);
        exit(1);
    }
}

static size_t count_failed(const rg_cc *cc) {
    size_t failed = 0;
    for (size_t i = 0; i < rg_cc_size(cc); i++) failed += rg_cc_get(cc, i)->status != RG_OK;
    return failed;
}

/* Pipelined SETs through the cluster client. Batch mode: BATCH per rg_cc_run. Streaming: calls
 * are added while earlier ones are in flight (rg_cc_step), WINDOW at most, STREAM per batch. */
static size_t env_size(const char *name, size_t dflt) {
    const char *v = getenv(name);
    return v && *v ? strtoull(v, NULL, 10) : dflt;
}

static double bench_client(test_cluster *c, const reqs *r, size_t n, bool stream) {
    const size_t window = env_size("RG_BENCH_WINDOW", WINDOW),
                 chunk = env_size("RG_BENCH_CHUNK", CHUNK);
    static rg_cc cc;
    const size_t batch = env_size("RG_BENCH_STREAM", STREAM);
    const size_t ncalls = stream ? batch : BATCH;
    rg_cc_call *calls = calloc(ncalls, sizeof *calls);
    char *arena = malloc(ARENA);
    client_init(&cc, calls, ncalls, arena, c);
    size_t failed = 0;
    const double t0 = now_s(), c0 = cpu_s();
    for (size_t done = 0; done < n;) {
        rg_cc_begin(&cc);
        if (!stream) {
            for (size_t i = 0; i < BATCH && done < n; i++, done++) {
                const size_t j = done % KEYS;
                rg_cc_add(&cc, r->bytes + r->off[j], r->off[j + 1] - r->off[j], NULL, NULL, NULL);
            }
            failed += rg_cc_run(&cc);
            continue;
        }
        size_t added = 0, pending = 0;
        while ((added < batch && done < n) || pending) {
            /* A whole chunk when the window has room for it, then one round; block while it
             * has none (so that a round is worth its system calls). */
            const bool room = pending + chunk <= window;
            for (size_t i = 0; room && i < chunk && added < batch && done < n;
                 i++, added++, done++, pending++) {
                const size_t j = done % KEYS;
                rg_cc_add(&cc, r->bytes + r->off[j], r->off[j + 1] - r->off[j], NULL, NULL, NULL);
            }
            const bool full = pending + chunk > window || added == batch || done == n;
            pending = rg_cc_step(&cc, full ? 100 : 0);
        }
        failed += count_failed(&cc);
    }
    const double dt = now_s() - t0, cpu = cpu_s() - c0;
    if (stream)
        printf("respgen rg_cc streaming (rg_cc_step, window %zu, batches of %zu, chunks of %zu): ",
               window, batch, chunk);
    else
        printf("respgen rg_cc batches (rg_cc_run, %d per batch): ", BATCH);
    printf("%zu SET, %.0f ops/s, client CPU %.0f ns/op, %zu failed\n", n, (double)n / dt,
           cpu * 1e9 / (double)n, failed);
    rg_cc_close(&cc);
    free(calls);
    free(arena);
    return (double)n / dt;
}

enum { MGET_KEYS = 8, MGET_BATCH = 250 };

/* Keys of 8 different slots; the last is never set (a nil among the values). */
static void mget_keys(rg_view *keys, char (*text)[16]) {
    for (size_t i = 0; i < MGET_KEYS; i++) {
        snprintf(text[i], sizeof text[i], "mget:%zu", i);
        keys[i] = (rg_view){text[i], strlen(text[i])};
    }
}

/* N cross-slot MGETs through the cluster client (see --mget); returns the failures. */
__attribute__((noinline)) static size_t bench_mget(rg_cc *cc, const rg_view *argv, size_t n,
                                                   redis_mget_result *out) {
    size_t failed = 0;
    for (size_t done = 0; done < n;) {
        rg_cc_begin(cc);
        for (size_t i = 0; i < MGET_BATCH && done < n; i++, done++)
            rg_cc_add_argv(cc, 1 + MGET_KEYS, argv, &redis_mget_reply_table, &out[i], NULL);
        failed += rg_cc_run(cc);
        for (size_t i = 0; i < cc->n; i++)
            failed += out[i].value.count != MGET_KEYS || out[i].value.items[MGET_KEYS - 1].ptr ||
                      out[i].value.items[0].len != 7;
    }
    return failed;
}

static int run_mget(size_t n) {
    static test_cluster c;
    static rg_cc cc;
    static char text[MGET_KEYS][16];
    static redis_mget_result out[MGET_BATCH];
    rg_view argv[1 + MGET_KEYS] = {RG_LIT("MGET")};
    mget_keys(argv + 1, text);
    for (size_t i = 0; i < MGET_KEYS; i++)
        for (size_t j = 0; j < i; j++)
            if (rg_slot_of_key(argv[1 + i].ptr, argv[1 + i].len) ==
                rg_slot_of_key(argv[1 + j].ptr, argv[1 + j].len)) {
                fprintf(stderr, "mget: two keys share a slot\n");
                return 1;
            }
    if (test_cluster_start(&c) != 0) return 1;
    const size_t ncalls = MGET_BATCH * (1 + MGET_KEYS);
    rg_cc_call *calls = calloc(ncalls, sizeof *calls);
    char *arena = malloc(ARENA);
    client_init(&cc, calls, ncalls, arena, &c);
    rg_cc_begin(&cc);
    for (size_t i = 0; i + 1 < MGET_KEYS; i++) {
        const rg_view set[] = {RG_LIT("SET"), argv[1 + i], RG_LIT("value:x")};
        rg_cc_add_argv(&cc, 3, set, NULL, NULL, NULL);
    }
    size_t failed = rg_cc_run(&cc);
    const double t0 = now_s(), c0 = cpu_s();
    failed += bench_mget(&cc, argv, n, out);
    const double dt = now_s() - t0, cpu = cpu_s() - c0;
    printf("respgen rg_cc: %zu MGET of %d keys in %d slots, %.0f MGET/s, client CPU %.0f ns per "
           "MGET, %zu failed\n",
           n, MGET_KEYS, MGET_KEYS, (double)n / dt, cpu * 1e9 / (double)n, failed);
    rg_cc_close(&cc);
    free(calls);
    free(arena);
    test_cluster_stop(&c);
    return failed != 0;
}

static double redis_benchmark(const test_cluster *c, size_t n, const char *clients,
                              const char *pipeline) {
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "redis-benchmark -h 127.0.0.1 -p %d --cluster -t set -n %zu -c %s -P %s -r 65536 "
             "-d 5 -q 2>/dev/null | tr '\\r' '\\n' | grep -a 'requests per second' | tail -1",
             c->node[0].port, n, clients, pipeline);
    printf("redis-benchmark --cluster -t set -c %s -P %s: ", clients, pipeline);
    fflush(stdout);
    FILE *p = popen(cmd, "r");
    char line[256] = "";
    double ops = 0;
    if (p && fgets(line, sizeof line, p) && sscanf(line, "SET: %lf", &ops) == 1)
        printf("%s", line);
    else
        printf("(failed)\n");
    if (p) pclose(p);
    return ops;
}

static int by_value(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    bool route_only = false, client_only = false, mget = false;
    size_t n = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--route-only") == 0)
            route_only = true;
        else if (strcmp(argv[i], "--client-only") == 0)
            client_only = true;
        else if (strcmp(argv[i], "--mget") == 0)
            mget = true;
        else
            n = strtoull(argv[i], NULL, 10);
    }
    if (mget) return run_mget(n ? n : 10000);
    if (!n) n = 1000000;
    static reqs r;
    make_requests(&r);
    static rg_cluster_map m;
    rg_cluster_map_init(&m);
    /* Three masters, as the local cluster has, for the routing figures. */
    for (int s = 0; s < RG_CLUSTER_SLOTS; s++)
        m.slot[s] = rg_cluster_map_node(&m, RG_LIT("127.0.0.1"), (uint16_t)(7000 + s * 3 / 16384));
    if (!client_only) bench_routing(&m, &r, route_only ? n : 4u << 20);
    if (route_only) return 0;
    static test_cluster c;
    if (test_cluster_start(&c) != 0) return 1;
    /* Each contender ROUNDS times (RG_BENCH_ROUNDS, default 3), interleaved so that the
     * machine's load hits them alike; the medians at the end. --client-only: the two rg_cc
     * modes once, no redis-benchmark (for callgrind). */
    enum { CONTENDERS = 4, MAX_ROUNDS = 15 };
    static const char *const name[CONTENDERS] = {
        "rg_cc batches (rg_cc_run)", "rg_cc streaming (rg_cc_step)",
        "redis-benchmark --cluster -c 3 -P 2730", "redis-benchmark --cluster -c 50 -P 16"};
    size_t rounds = client_only ? 1 : env_size("RG_BENCH_ROUNDS", 3);
    if (rounds > MAX_ROUNDS) rounds = MAX_ROUNDS;
    double ops[CONTENDERS][MAX_ROUNDS];
    for (size_t round = 0; round < rounds; round++) {
        const char *only = getenv("RG_BENCH_ONLY"); /* "batch" or "stream": that mode alone */
        ops[0][round] = only && strcmp(only, "batch") ? 0 : bench_client(&c, &r, n, false);
        ops[1][round] = only && strcmp(only, "stream") ? 0 : bench_client(&c, &r, n, true);
        if (client_only) continue;
        /* as the client: one connection per master, deep */
        ops[2][round] = redis_benchmark(&c, n, "3", "2730");
        ops[3][round] = redis_benchmark(&c, n, "50", "16");
    }
    printf("median of %zu rounds, %zu SET each:\n", rounds, n);
    for (int k = 0; k < (client_only ? 2 : CONTENDERS); k++) {
        qsort(ops[k], rounds, sizeof ops[k][0], by_value);
        printf("  %-40s %8.0f ops/s  (%.0f to %.0f)\n", name[k], ops[k][rounds / 2], ops[k][0],
               ops[k][rounds - 1]);
    }
    test_cluster_stop(&c);
    free(r.bytes);
    return 0;
}
