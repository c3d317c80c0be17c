/* Server-side codec costs, in memory (no sockets):
 *   codec:  rg_req_next + kv_srv_parse (lookup, arity, typed arguments) + the reply written with
 *           rg_out, per SET and per GET request, over a pipelined buffer shaped like
 *           redis-benchmark's (-t set,get -r 100000: "key:<12 digits>", 3-byte value);
 *   lookup: ns per name for the generated switch and the generated perfect hash, over every
 *           command name of specs/redis.lua (mixed case), and the kv subset.
 * Each figure is the median of --runs runs (default 7). */
#include "kv.h"
#include "kv_server.h"
#include "redis_server.h"
#include "rg_out.h"
#include "rg_req.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { NREQ = 200000 };

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n) {
    qsort(v, n, sizeof *v, cmp_double);
    return v[n / 2];
}

/* A pipeline of NREQ SETs or GETs on random keys, encoded with the generated client. */
static char *make_pipeline(int set, size_t *len) {
    char *buf = malloc((size_t)NREQ * 64);
    size_t n = 0;
    srand(1);
    for (int i = 0; i < NREQ; i++) {
        char key[32];
        snprintf(key, sizeof key, "key:%012d", rand() % 100000);
        const rg_view k = {key, 16};
        const kv_set_opts opts = {0};
        n += set ? kv_set_encode(buf + n, 64, k, RG_LIT("xxx"), &opts)
                 : kv_get_encode(buf + n, 64, k);
    }
    *len = n;
    return buf;
}

/* One pass: every request read, dispatched, parsed and answered. Returns a checksum. */
static size_t serve(char *in, size_t len, char *out) {
    rg_req r;
    rg_req_init(&r, NULL);
    rg_view argv[16];
    size_t pos = 0, argc, sum = 0;
    char *o = out;
    while (rg_req_next(&r, in, len, &pos, argv, 16, &argc) == RG_OK) {
        kv_srv_args args;
        rg_errbuf err;
        switch (kv_srv_parse(argc, argv, &args, &err)) {
        case KV_SRV_SET: o = rg_put_raw(o, RG_OUT_OK, 5); break;
        case KV_SRV_GET: o = rg_put_bulk(o, args.get.key.ptr, 3); break;
        default: o = rg_out_error(o, err.text, err.len); break;
        }
        sum += argc;
    }
    return sum + (size_t)(o - out);
}

static void bench_codec(int runs) {
    static const char *const names[] = {"GET", "SET"};
    char *out = malloc((size_t)NREQ * 32);
    for (int set = 1; set >= 0; set--) {
        size_t len;
        char *in = make_pipeline(set, &len);
        double t[64];
        size_t sink = 0;
        for (int r = 0; r < runs; r++) {
            const double t0 = now_ns();
            sink += serve(in, len, out);
            t[r] = (now_ns() - t0) / NREQ;
        }
        printf("codec %s: %.1f ns/request (read + lookup + arity + args + reply; %zu)\n",
               names[set], median(t, (size_t)runs), sink % 10);
        free(in);
    }
    free(out);
}

typedef redis_srv_cmd lookup_fn(const char *name, size_t len);
typedef kv_srv_cmd kv_lookup_fn(const char *name, size_t len);

static void bench_lookup(int runs) {
    /* every top-level name, in lower, upper and mixed case */
    static char names[3 * REDIS_SRV_NCMDS][64];
    size_t lens[3 * REDIS_SRV_NCMDS], n = 0;
    for (int id = 1; id < REDIS_SRV_NCMDS; id++) {
        const char *name = redis_srv_commands[id].name;
        if (strchr(name, '|')) continue;
        for (int v = 0; v < 3; v++) {
            size_t k = 0;
            for (; name[k]; k++) {
                const char c = name[k];
                const int up = v == 1 || (v == 2 && k % 2 == 0);
                names[n][k] = up && c >= 'a' && c <= 'z' ? (char)(c - 32) : c;
            }
            lens[n++] = k;
        }
    }
    static lookup_fn *const fns[] = {redis_srv_lookup_switch, redis_srv_lookup_hash};
    static const char *const fn_names[] = {"switch", "perfect hash"};
    for (size_t f = 0; f < 2; f++) {
        double t[64];
        size_t misses = 0;
        for (int r = 0; r < runs; r++) {
            const double t0 = now_ns();
            for (int rep = 0; rep < 200; rep++) {
                for (size_t i = 0; i < n; i++)
                    misses += fns[f](names[i], lens[i]) == REDIS_SRV_NONE;
            }
            t[r] = (now_ns() - t0) / (200.0 * (double)n);
        }
        printf("lookup %-12s: %.2f ns/name over %zu names (%zu commands x 3 cases), misses %zu\n",
               fn_names[f], median(t, (size_t)runs), n, n / 3, misses);
    }
    static const char *const hot[] = {"GET", "SET", "get", "set", "MGET", "INCR"};
    for (size_t f = 0; f < 2; f++) {
        double t[64];
        size_t hits = 0;
        for (int r = 0; r < runs; r++) {
            const double t0 = now_ns();
            for (int rep = 0; rep < 200000; rep++) {
                for (size_t i = 0; i < 6; i++) hits += fns[f](hot[i], strlen(hot[i]));
            }
            t[r] = (now_ns() - t0) / (200000.0 * 6);
        }
        printf("lookup redis %-12s: %.2f ns/name (GET/SET/MGET/INCR; %zu)\n", fn_names[f],
               median(t, (size_t)runs), hits % 10);
    }
    static kv_lookup_fn *const kv_fns[] = {kv_srv_lookup_switch, kv_srv_lookup_hash};
    static const char *const kv_words[] = {"GET", "SET", "get", "set", "MGET", "INCR"};
    for (size_t f = 0; f < 2; f++) {
        double t[64];
        size_t hits = 0;
        for (int r = 0; r < runs; r++) {
            const double t0 = now_ns();
            for (int rep = 0; rep < 200000; rep++) {
                for (size_t i = 0; i < 6; i++) hits += kv_fns[f](kv_words[i], strlen(kv_words[i]));
            }
            t[r] = (now_ns() - t0) / (200000.0 * 6);
        }
        printf("lookup kv %-9s: %.2f ns/name (GET/SET/MGET/INCR; %zu)\n", fn_names[f],
               median(t, (size_t)runs), hits % 10);
    }
}

int main(int argc, char **argv) {
    int runs = 7;
    if (argc == 3 && strcmp(argv[1], "--runs") == 0) runs = atoi(argv[2]);
    if (runs < 1 || runs > 64) runs = 7;
    bench_codec(runs);
    bench_lookup(runs);
    return 0;
}
