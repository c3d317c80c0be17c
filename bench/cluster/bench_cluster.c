/* bench_cluster: what cluster routing costs per command, and pipelined throughput on a local
 * six-node cluster (tests/support/test_cluster.h) for respgen's cluster client against
 * `redis-benchmark --cluster` in the same run.
 *
 * Usage: bench_cluster [--route-only | --client-only | --mget] [N]   (N: commands per throughput
 *   run, 1M; --mget: MGETs, 10,000)
 *   routing: N encoded SET calls with distinct keys, timed per stage (CRC16 slot of the key, slot
 *   of the encoded request through the generated key specs, the whole rg_cluster_route with the
 *   map lookup), best of 5 passes. --route-only stops there (for callgrind).
 *   throughput: rg_cc in batches (rg_cc_run) and streaming (rg_cc_step with a window of calls in
 *   flight), and redis-benchmark --cluster, RG_BENCH_ROUNDS times interleaved, medians.
 *   --client-only: the clients once (the rg_cc modes, the libuv rows), no redis-benchmark (for
 *   callgrind).
 *   --mget: N cross-slot MGETs of 8 keys (8 slots, one key missing) into typed results, in
 *   batches of MGET_BATCH, nothing else timed: for callgrind, whose --toggle-collect=bench_mget
 *   counts this loop alone (instructions per MGET: the total over N).
 *   RG_BENCH_WINDOW, RG_BENCH_CHUNK, RG_BENCH_STREAM: the streaming window, the calls added
 *   between rounds, the calls per batch.
 *   libuv (built with respgen::cluster_uv): the libuv cluster client (rg_cc_uv) doing N SETs,
 *   then N GETs of the same keys, generated calls kept `window` in flight from their callbacks,
 *   against redis-benchmark --cluster -t set / -t get -c 3 -P <depth> (one connection per
 *   master, as the client has), the window 3 x depth, at each depth of RG_BENCH_UV_DEPTH (a list,
 *   "256,2730"), in batches of RG_BENCH_UV_BATCH calls (65536; with RG_BENCH_UV_WINDOW, the
 *   client's node_window, the batch rolls instead of draining). Then the client CPU per command
 *   (getrusage, user + sys; loads of N repeated until they took RG_BENCH_MIN_CPU_MS, 1000) of
 *   that client at the first depth's window and of the single-node libuv adapter (rg_uv) on one
 *   master with keys of its slots only, with the same window and with the cluster's window per
 *   master. RG_BENCH_ONLY: "batch" or "stream" (that rg_cc mode alone, with redis-benchmark),
 *   "uv" (the libuv throughput rows alone), "cpu" (the CPU figures alone). Under callgrind,
 *   --toggle-collect='uv_load*' --dump-before='uv_close_client*' gives each libuv load's
 *   instructions apart (--client-only runs the CPU figures only with RG_BENCH_ONLY=cpu;
 *   RG_BENCH_MIN_CPU_MS=1 makes them one load of N each).
 */
#include "rg_cluster_client.h"
#include "rg_enc.h"
#include "test_cluster.h"

#include "redis_keys.h"
#include "redis_reply.h"
#ifdef RG_BENCH_UV
#include "rg_cluster_uv.h"

#include "redis_client.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* KEYS distinct keys "key:%08zu", KEY_LEN bytes each. */
enum { KEYS = 1 << 16, KEY_LEN = 12, BATCH = 8192, ARENA = 4 << 20 };
/* Streaming: a batch of up to STREAM calls, of which at most WINDOW are in flight (3 x 2730, as
 * redis-benchmark -c 3 -P 2730 keeps), topped up in chunks of CHUNK between rounds. */
enum { STREAM = 8192, WINDOW = 4096, CHUNK = 1024 };

static const rg_cluster_commands CMDS = {redis_keys_table, REDIS_KEYS_CMD_COUNT, redis_keys_policy};

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_of(int who) {
    struct rusage ru;
    getrusage(who, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* The bench's own CPU (the clients; not the servers, not redis-benchmark). */
static double cpu_s(void) {
    return cpu_of(RUSAGE_SELF);
}

/* The cluster's servers' CPU so far (s): every node's user and system time from /proc/<pid>/stat
 * (clock ticks), so that a row tells what its commands cost the servers as well as the client:
 * on a machine where the servers and the client share the cores, that is what bounds a row. */
static double servers_cpu(const test_cluster *c) {
    const double tick = (double)sysconf(_SC_CLK_TCK);
    double s = 0;
    for (int i = 0; i < c->n; i++) {
        char path[64], buf[1024];
        snprintf(path, sizeof path, "/proc/%d/stat", (int)c->node[i].pid);
        FILE *f = c->node[i].pid > 0 ? fopen(path, "r") : NULL;
        if (!f) continue;
        const size_t len = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[len] = '\0';
        const char *p = strrchr(buf, ')'); /* (the name before it may hold spaces) */
        unsigned long ut, st; /* fields 14 and 15, after state, five ids, flags and four counts */
        if (p &&
            sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) == 2)
            s += (double)(ut + st) / tick;
    }
    return s;
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

/* redis-benchmark --cluster -t <test> (set or get): its requests per second (0: failed), and
 * its CPU per request (the children's, waited for: redis-benchmark and the shell pipe). */
static double redis_benchmark(const test_cluster *c, const char *test, size_t n,
                              const char *clients, const char *pipeline, double *servers) {
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "redis-benchmark -h 127.0.0.1 -p %d --cluster -t %s -n %zu -c %s -P %s -r 65536 "
             "-d 5 -q 2>/dev/null | tr '\\r' '\\n' | grep -a 'requests per second' | tail -1",
             c->node[0].port, test, n, clients, pipeline);
    printf("redis-benchmark --cluster -t %s -c %s -P %s: ", test, clients, pipeline);
    fflush(stdout);
    const double c0 = cpu_of(RUSAGE_CHILDREN), s0 = servers_cpu(c);
    FILE *p = popen(cmd, "r");
    char line[256] = "";
    double ops = 0;
    const bool ok = p && fgets(line, sizeof line, p) && sscanf(line, "%*[A-Z]: %lf", &ops) == 1;
    if (p) pclose(p);
    line[strcspn(line, "\n")] = '\0';
    const double srv = (servers_cpu(c) - s0) * 1e9 / (double)n;
    if (servers) *servers = srv;
    if (ok)
        printf("%s; its CPU %.0f ns/op, the servers' %.0f ns/op\n", line,
               (cpu_of(RUSAGE_CHILDREN) - c0) * 1e9 / (double)n, srv);
    else
        printf("(failed)\n");
    return ops;
}

#ifdef RG_BENCH_UV
/* ---- libuv ---------------------------------------------------------------------------------- */

/* The system part of the bench's CPU. */
static double sys_s(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* A load of generated SETs (or GETs) of keys, kept `window` in flight from the calls' callbacks,
 * on the libuv cluster client (cluster) or on the single-node libuv adapter. Results: the
 * cluster's by the call's index in the batch, the single node's by its number (calls complete in
 * order there, at most `window` in flight). */
enum { UV_BATCH = 1 << 16, NODE_IN = 4 << 20, NODE_OUT = 1 << 20, NODE_RING = 8192 };

typedef struct uvload {
    uv_loop_t loop;
    uv_timer_t start; /* makes the first calls, from the loop */
    uv_check_t check; /* counts the loop's iterations (unreferenced) */
    size_t iterations;
    double sys; /* the last load's system CPU (s) */
    bool cluster, get;
    rg_cc_uv cu; /* the cluster client */
    rg_uv one;   /* the single-node adapter */
    bool ready, closed;
    const reqs *r;
    const uint32_t *keys; /* indexes into r->key */
    size_t nkeys;
    size_t next, total, window, inflight, completed, failed;
    size_t node_window; /* the cluster client's rg_cc_config.node_window (it rolls) */
    bool blocked;       /* the batch is full: more after DRAINED */
    double blocked_at;  /* when it became full */
    double paused;      /* s spent with the batch full and calls to make (the drains' pauses) */
    size_t pauses;
    rg_cc_call *calls; /* the cluster client's batch: ncalls */
    size_t ncalls;
    char *arena;
    char *in, *out; /* the single node's buffers */
    rg_call *ring;
    redis_set_result set[UV_BATCH];
    redis_get_result got[UV_BATCH];
} uvload;

static void uv_fill(uvload *b);

static void uv_done(void *ud, const rg_call_done *d) {
    uvload *b = ud;
    const redis_get_result *g = d->result;
    b->failed += d->status != RG_OK || (b->get && g->value.len != 5);
    b->inflight--;
    if (++b->completed == b->total) {
        uv_stop(&b->loop);
        return;
    }
    uv_fill(b);
}

/* Makes calls until `window` are in flight (or the batch is full: DRAINED resumes). */
static void uv_fill(uvload *b) {
    while (b->inflight < b->window && b->next < b->total && !b->blocked) {
        const rg_view key = {b->r->key[b->keys[b->next % b->nkeys]], KEY_LEN};
        rg_conn *conn = b->cluster ? rg_cc_conn(&b->cu.cc) : &b->one.conn;
        const size_t at = b->next % UV_BATCH; /* (fewer than UV_BATCH in flight) */
        const uint64_t id =
            b->get ? redis_get_call(conn, key, &b->got[at], uv_done, b)
                   : redis_set_call(conn, key, RG_LIT("value"), NULL, &b->set[at], uv_done, b);
        if (!id) {
            if (!b->cluster && !b->inflight) {
                fprintf(stderr, "rg_uv: a call was refused with nothing in flight\n");
                exit(1);
            }
            b->blocked = b->cluster; /* the single node: again at the next completion */
            b->blocked_at = now_s();
            return;
        }
        b->next++;
        b->inflight++;
    }
}

static void uv_cluster_event(rg_cc_uv *u, rg_cc_uv_event ev, void *ud) {
    uvload *b = ud;
    if (ev == RG_CC_UV_READY) {
        b->ready = true;
        uv_stop(&b->loop);
    } else if (ev == RG_CC_UV_FAILED) {
        fprintf(stderr, "rg_cc_uv: %.*s\n", (int)rg_cc_error(&u->cc).msg.len,
                rg_cc_error(&u->cc).msg.ptr);
        exit(1);
    } else if (ev == RG_CC_UV_DRAINED && b->blocked) {
        b->blocked = false;
        b->paused += now_s() - b->blocked_at;
        b->pauses++;
        uv_fill(b);
    } else if (ev == RG_CC_UV_CLOSED) {
        b->closed = true;
    }
}

static void uv_one_event(rg_uv *u, rg_uv_event ev, void *ud) {
    uvload *b = ud;
    if (ev == RG_UV_READY) {
        b->ready = true;
        uv_stop(&b->loop);
    } else if (ev == RG_UV_FAILED) {
        fprintf(stderr, "rg_uv: %.*s\n", (int)rg_uv_error(u).msg.len, rg_uv_error(u).msg.ptr);
        exit(1);
    } else if (ev == RG_UV_CLOSED) {
        b->closed = true;
    }
}

/* Runs the loop until flag is set; exits when the loop has nothing left to run. */
static void uv_until(uvload *b, const bool *flag, const char *what) {
    while (!*flag)
        if (uv_run(&b->loop, UV_RUN_DEFAULT) == 0 && !*flag) {
            fprintf(stderr, "libuv: the loop ended before %s\n", what);
            exit(1);
        }
}

/* The load's first calls, from a callback: made from outside the loop while the cluster client
 * is idle, nothing would keep the loop alive to send them (its timer is unreferenced then). */
static void uv_start(uv_timer_t *t) {
    uv_fill(t->data);
}

static void uv_count(uv_check_t *h) {
    ((uvload *)h->data)->iterations++;
}

/* total calls (SET, or GET when get); returns the wall time, *cpu the client CPU (s). */
__attribute__((noinline)) static double uv_load(uvload *b, bool get, size_t total, double *cpu) {
    b->get = get;
    b->total = total;
    b->next = b->inflight = b->completed = b->failed = b->iterations = b->pauses = 0;
    b->blocked = false;
    b->paused = 0;
    const double t0 = now_s(), c0 = cpu_s(), s0 = sys_s();
    uv_timer_start(&b->start, uv_start, 0, 0);
    while (b->completed < total)
        if (uv_run(&b->loop, UV_RUN_DEFAULT) == 0 && b->completed < total) {
            fprintf(stderr, "libuv: the loop ended with %zu of %zu calls complete\n", b->completed,
                    total);
            exit(1);
        }
    if (cpu) *cpu = cpu_s() - c0;
    b->sys = sys_s() - s0;
    return now_s() - t0;
}

/* The cluster client on c, opened and warmed (every master's connection up). */
static void uv_cluster_open(uvload *b, const test_cluster *c) {
    const rg_cc_config cfg = {.cmds = &CMDS,
                              .calls = b->calls,
                              .ncalls = b->ncalls,
                              .arena = b->arena,
                              .arena_cap = ARENA,
                              .protocol = 2,
                              .node_window = b->node_window};
    b->cluster = true;
    b->ready = b->closed = false;
    if (rg_cc_uv_open(&b->cu, &b->loop, &cfg, "127.0.0.1", (uint16_t)c->node[0].port,
                      uv_cluster_event, b) != RG_OK) {
        fprintf(stderr, "rg_cc_uv_open: %.*s\n", (int)rg_cc_error(&b->cu.cc).msg.len,
                rg_cc_error(&b->cu.cc).msg.ptr);
        exit(1);
    }
    uv_until(b, &b->ready, "READY");
    uv_load(b, false, 10000, NULL);
}

/* The single-node adapter on port (the engine's buffers as the cluster client gives a node). */
static void uv_one_open(uvload *b, int port) {
    const rg_conn_config cfg = {.in = b->in,
                                .in_cap = NODE_IN,
                                .out = b->out,
                                .out_cap = NODE_OUT,
                                .calls = b->ring,
                                .ncalls = NODE_RING,
                                .protocol = 2};
    b->cluster = false;
    b->ready = b->closed = false;
    if (rg_uv_connect(&b->one, &b->loop, "127.0.0.1", port, &cfg, NULL, uv_one_event, b) != RG_OK) {
        fprintf(stderr, "rg_uv_connect: %.*s\n", (int)rg_uv_error(&b->one).msg.len,
                rg_uv_error(&b->one).msg.ptr);
        exit(1);
    }
    uv_until(b, &b->ready, "READY");
    uv_load(b, false, 10000, NULL);
}

static void uv_close_client(uvload *b) {
    if (b->cluster)
        rg_cc_uv_close(&b->cu);
    else
        rg_uv_close(&b->one);
    uv_until(b, &b->closed, "CLOSED");
}

/* One throughput row: n SETs or GETs through the cluster client; ops/s. */
static double uv_row(uvload *b, const test_cluster *c, bool get, size_t n, double *servers) {
    double cpu;
    const double s0 = servers_cpu(c);
    const double dt = uv_load(b, get, n, &cpu);
    *servers = (servers_cpu(c) - s0) * 1e9 / (double)n;
    printf("respgen rg_cc_uv (libuv cluster, generated calls, window %zu): %zu %s, %.0f ops/s, "
           "client CPU %.0f ns/op, the servers' %.0f ns/op, %.0f calls per loop iteration, %zu "
           "failed; batch full %zu times, %.1f ms in all\n",
           b->window, n, get ? "GET" : "SET", (double)n / dt, cpu * 1e9 / (double)n, *servers,
           (double)n / (double)b->iterations, b->failed, b->pauses, b->paused * 1e3);
    return (double)n / dt;
}

/* Loads of n until they took min_cpu seconds of CPU; the client CPU in ns per command. */
static double uv_cpu(uvload *b, bool get, size_t n, double min_cpu, const char *who) {
    double cpu = 0, wall = 0, sys = 0;
    size_t total = 0, failed = 0, iterations = 0;
    while (cpu < min_cpu || total == 0) {
        double c;
        wall += uv_load(b, get, n, &c);
        cpu += c;
        total += n;
        failed += b->failed;
        iterations += b->iterations;
        sys += b->sys;
    }
    const double ns = cpu * 1e9 / (double)total;
    printf("client CPU, %s: %zu %s in %.2f s (%.0f ops/s), CPU %.2f s: %.0f ns/op (system %.0f), "
           "%.0f calls per loop iteration, %zu failed\n",
           who, total, get ? "GET" : "SET", wall, (double)total / wall, cpu, ns,
           sys * 1e9 / (double)total, (double)total / (double)iterations, failed);
    return ns;
}

/* The keys (of r) whose slots master `port` serves, by owner[] (test_cluster_owners). */
static size_t keys_of(const reqs *r, const int *owner, int port, uint32_t *keys) {
    size_t n = 0;
    for (uint32_t j = 0; j < KEYS; j++)
        if (owner[rg_slot_of_key(r->key[j], KEY_LEN)] == port) keys[n++] = j;
    return n;
}
#endif

static int by_value(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0, n) (sorted in place), *lo and *hi its extremes. */
static double median(double *v, size_t n, double *lo, double *hi) {
    qsort(v, n, sizeof *v, by_value);
    *lo = v[0];
    *hi = v[n - 1];
    return v[n / 2];
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
     * machine's load hits them alike; the medians at the end. --client-only: the clients once,
     * no redis-benchmark (for callgrind). */
    enum { CONTENDERS = 4, MAX_ROUNDS = 15 };
    static const char *const name[CONTENDERS] = {
        "rg_cc batches (rg_cc_run)", "rg_cc streaming (rg_cc_step)",
        "redis-benchmark --cluster -c 3 -P 2730", "redis-benchmark --cluster -c 50 -P 16"};
    size_t rounds = client_only ? 1 : env_size("RG_BENCH_ROUNDS", 3);
    if (rounds > MAX_ROUNDS) rounds = MAX_ROUNDS;
    const char *only = getenv("RG_BENCH_ONLY");
    const bool blocking = !only || !strcmp(only, "batch") || !strcmp(only, "stream");
    double ops[CONTENDERS][MAX_ROUNDS];
#ifdef RG_BENCH_UV
    const bool uv = !only || !strcmp(only, "uv");
    const bool cpu = (!only && !client_only) || (only && !strcmp(only, "cpu"));
    /* The pipeline depths (a list, "256,2730"): the throughput rows at each, the CPU figures at
     * the first. */
    enum { MAX_DEPTHS = 4 };
    size_t depth[MAX_DEPTHS], ndepths = 0;
    const char *at = getenv("RG_BENCH_UV_DEPTH");
    if (!at || !*at) at = "256,2730";
    while (*at && ndepths < MAX_DEPTHS) {
        char *end;
        depth[ndepths] = strtoull(at, &end, 10);
        if (end == at || depth[ndepths] == 0 || 3 * depth[ndepths] > NODE_RING - 2) {
            fprintf(stderr, "RG_BENCH_UV_DEPTH: depths from 1 to %d, by commas\n",
                    (NODE_RING - 2) / 3);
            return 1;
        }
        ndepths++;
        at = end + (*end == ',');
    }
    const double min_cpu = (double)env_size("RG_BENCH_MIN_CPU_MS", 1000) / 1e3;
    /* depth x [SET, GET] x [rg_cc_uv, redis-benchmark]; [SET, GET] x [cluster, one node with the
     * same window, one node with the cluster's window per master] ns/op */
    static double uvops[MAX_DEPTHS][2][2][MAX_ROUNDS], uvcpu[2][3][MAX_ROUNDS];
    static double uvsrv[MAX_DEPTHS][2][2][MAX_ROUNDS]; /* the servers' CPU, ns/op */
    static uvload b;
    static uint32_t all[KEYS], mine[KEYS];
    static int owner[RG_CLUSTER_SLOTS];
    for (uint32_t j = 0; j < KEYS; j++) all[j] = j;
    if (test_cluster_owners(&c, owner) != 0) return 1;
    const int master = owner[0]; /* the single node: the master of slot 0, with its keys */
    const size_t nmine = keys_of(&r, owner, master, mine);
    uv_loop_init(&b.loop);
    uv_timer_init(&b.loop, &b.start);
    b.start.data = &b;
    uv_check_init(&b.loop, &b.check);
    b.check.data = &b;
    uv_check_start(&b.check, uv_count);
    uv_unref((uv_handle_t *)&b.check);
    b.r = &r;
    b.ncalls = env_size("RG_BENCH_UV_BATCH", UV_BATCH);
    b.node_window = env_size("RG_BENCH_UV_WINDOW", 0);
    b.calls = calloc(b.ncalls, sizeof *b.calls);
    b.arena = malloc(ARENA);
    b.in = malloc(NODE_IN);
    b.out = malloc(NODE_OUT);
    b.ring = calloc(NODE_RING, sizeof *b.ring);
    size_t deepest = 0;
    for (size_t d = 0; d < ndepths; d++) deepest = depth[d] > deepest ? depth[d] : deepest;
    if (b.ncalls > UV_BATCH || b.ncalls < 2 * 3 * deepest) {
        fprintf(stderr, "RG_BENCH_UV_BATCH: at most %d, at least twice the window\n", UV_BATCH);
        return 1;
    }
#endif
    for (size_t round = 0; round < rounds; round++) {
        if (blocking) {
            ops[0][round] = only && strcmp(only, "batch") ? 0 : bench_client(&c, &r, n, false);
            ops[1][round] = only && strcmp(only, "stream") ? 0 : bench_client(&c, &r, n, true);
            if (!client_only) {
                /* as the client: one connection per master, deep */
                ops[2][round] = redis_benchmark(&c, "set", n, "3", "2730", NULL);
                ops[3][round] = redis_benchmark(&c, "set", n, "50", "16", NULL);
            }
        }
#ifdef RG_BENCH_UV
        for (size_t d = 0; uv && d < ndepths; d++) {
            char text[24];
            snprintf(text, sizeof text, "%zu", depth[d]);
            b.keys = all;
            b.nkeys = KEYS;
            b.window = 3 * depth[d];
            uv_cluster_open(&b, &c);
            for (int get = 0; get < 2; get++) {
                uvops[d][get][0][round] = uv_row(&b, &c, get, n, &uvsrv[d][get][0][round]);
                /* its SETs first: the GETs find the keys */
                uvops[d][get][1][round] = client_only
                                              ? 0
                                              : redis_benchmark(&c, get ? "get" : "set", n, "3",
                                                                text, &uvsrv[d][get][1][round]);
            }
            uv_close_client(&b);
        }
        for (int get = 0; cpu && get < 2; get++) {
            b.keys = all;
            b.nkeys = KEYS;
            b.window = 3 * depth[0];
            uv_cluster_open(&b, &c);
            uvcpu[get][0][round] =
                uv_cpu(&b, get, n, min_cpu, "libuv cluster (rg_cc_uv, 3 masters)");
            uv_close_client(&b);
            b.keys = mine;
            b.nkeys = nmine;
            uv_one_open(&b, master);
            uvcpu[get][1][round] =
                uv_cpu(&b, get, n, min_cpu, "libuv one node (rg_uv, one master, its keys)");
            b.window = depth[0];
            uvcpu[get][2][round] =
                uv_cpu(&b, get, n, min_cpu, "libuv one node, the cluster's window per master");
            uv_close_client(&b);
        }
#endif
    }
    if (blocking) {
        printf("median of %zu rounds, %zu SET each:\n", rounds, n);
        for (int k = 0; k < (client_only ? 2 : CONTENDERS); k++) {
            double lo, hi;
            const double mid = median(ops[k], rounds, &lo, &hi);
            printf("  %-40s %8.0f ops/s  (%.0f to %.0f)\n", name[k], mid, lo, hi);
        }
    }
#ifdef RG_BENCH_UV
    for (size_t d = 0; uv && d < ndepths; d++) {
        printf("libuv cluster client (window %zu = 3 x %zu) against redis-benchmark --cluster -c 3 "
               "-P %zu, median of %zu rounds, %zu commands each:\n",
               3 * depth[d], depth[d], depth[d], rounds, n);
        for (int get = 0; get < 2; get++) {
            double lo[2], hi[2], mid[2];
            for (int k = 0; k < 2; k++) mid[k] = median(uvops[d][get][k], rounds, &lo[k], &hi[k]);
            double srv[2], slo, shi;
            for (int k = 0; k < 2; k++) srv[k] = median(uvsrv[d][get][k], rounds, &slo, &shi);
            printf("  %s  rg_cc_uv %8.0f ops/s (%.0f to %.0f)  redis-benchmark %8.0f ops/s (%.0f "
                   "to %.0f)  ours/redis-benchmark %.2f; the servers' CPU %.0f and %.0f ns/op\n",
                   get ? "GET" : "SET", mid[0], lo[0], hi[0], mid[1], lo[1], hi[1],
                   mid[1] > 0 ? mid[0] / mid[1] : 0.0, srv[0], srv[1]);
        }
    }
    if (cpu) {
        printf("client CPU per command (getrusage user + sys, >= %.1f s of CPU each), libuv, "
               "median of %zu rounds: cluster (rg_cc_uv, window %zu) against one node (rg_uv, "
               "window %zu; and window %zu, the cluster's per master):\n",
               min_cpu, rounds, 3 * depth[0], 3 * depth[0], depth[0]);
        for (int get = 0; get < 2; get++) {
            double lo[3], hi[3], mid[3];
            for (int k = 0; k < 3; k++) mid[k] = median(uvcpu[get][k], rounds, &lo[k], &hi[k]);
            printf("  %s  cluster %4.0f ns (%.0f to %.0f)  one node %4.0f ns (%.0f to %.0f)  "
                   "cluster/one node %.2f  (window %zu: %.0f ns, cluster/that %.2f)\n",
                   get ? "GET" : "SET", mid[0], lo[0], hi[0], mid[1], lo[1], hi[1], mid[0] / mid[1],
                   depth[0], mid[2], mid[0] / mid[2]);
        }
    }
    uv_close((uv_handle_t *)&b.start, NULL);
    uv_close((uv_handle_t *)&b.check, NULL);
    uv_run(&b.loop, UV_RUN_DEFAULT);
    uv_loop_close(&b.loop);
    free(b.calls);
    free(b.arena);
    free(b.in);
    free(b.out);
    free(b.ring);
#endif
    test_cluster_stop(&c);
    free(r.bytes);
    return 0;
}
