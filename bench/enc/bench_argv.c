/* bench_argv: respgen's generic argv encoder and double formatter against hiredis and libc.
 *
 * Cases:
 *   E1  SET, 16-byte key, 64-byte value
 *   E2  SET, 16-byte key, 4 KiB value
 *   E3  HSET key, 10 field/value pairs (8-byte fields, 16-byte values)
 *   E4  MSET, 100 key/value pairs (16-byte keys, 16-byte values)
 * Variants:
 *   rg         rg_argv_encode into a buffer the caller reuses (how it is meant to be used)
 *   rg+malloc  rg_argv_size, malloc, rg_argv_encode, free: the same work hiredis does
 *   hiredis    redisFormatCommandArgv + redisFreeCommand
 * Doubles: rg_fmt_double against snprintf("%.17g") (which is not shortest, only the usual way
 * to get round-tripping text), on random bit patterns and on score-like values.
 *
 * Each variant's output is compared with the others' once before timing. A run repeats the
 * operation until it lasts at least --min-run-ms; the table shows the median (and min) ns per
 * operation over --runs runs. A later step adds the generated per-command encoders here.
 *
 * Usage: bench_argv [--runs N] [--min-run-ms MS]
 */
#define _POSIX_C_SOURCE 200809L

#include "rg_enc.h"

#include <hiredis/hiredis.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MAX_ARGS = 201, MAX_RUNS = 101, DOUBLES = 4096 };

typedef struct options {
    unsigned runs;
    double min_run_ms;
} options;

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ---- a command: argv as rg views and as hiredis's parallel arrays --------------------------- */

typedef struct command {
    const char *name;
    const char *what;
    size_t argc;
    rg_view view[MAX_ARGS];
    const char *ptr[MAX_ARGS];
    size_t len[MAX_ARGS];
    char *bytes; /* owns every argument's bytes */
    char *out;   /* rg's reusable output buffer */
    size_t out_cap;
} command;

/* Deterministic printable filler so keys and values differ from each other. */
static void fill(char *p, size_t n, unsigned seed) {
    for (size_t i = 0; i < n; i++) p[i] = (char)('a' + (seed * 31u + (unsigned)i * 7u) % 26u);
}

/* verb [key] then `pairs` pairs of klen- and vlen-byte arguments. */
static void command_init(command *c, const char *name, const char *what, const char *verb,
                         const char *key, size_t pairs, size_t klen, size_t vlen) {
    memset(c, 0, sizeof *c);
    c->name = name;
    c->what = what;
    c->bytes = malloc(pairs * (klen + vlen) + 1);
    if (c->bytes == NULL) abort();
    c->view[c->argc++] = (rg_view){verb, strlen(verb)};
    if (key != NULL) c->view[c->argc++] = (rg_view){key, strlen(key)};
    char *p = c->bytes;
    for (size_t i = 0; i < pairs; i++) {
        fill(p, klen, (unsigned)(2 * i));
        c->view[c->argc++] = (rg_view){p, klen};
        p += klen;
        fill(p, vlen, (unsigned)(2 * i + 1));
        c->view[c->argc++] = (rg_view){p, vlen};
        p += vlen;
    }
    for (size_t i = 0; i < c->argc; i++) {
        c->ptr[i] = c->view[i].ptr;
        c->len[i] = c->view[i].len;
    }
    c->out_cap = rg_argv_size(c->argc, c->view);
    c->out = malloc(c->out_cap);
    if (c->out == NULL) abort();
}

static void command_free(command *c) {
    free(c->bytes);
    free(c->out);
}

/* ---- the variants: each encodes once and returns a byte of the output (so it is used) ------- */

typedef unsigned (*variant_fn)(const command *c);

static unsigned run_rg(const command *c) {
    const size_t n = rg_argv_encode(c->out, c->out_cap, c->argc, c->view);
    return (unsigned char)c->out[n - 3];
}

static unsigned run_rg_malloc(const command *c) {
    const size_t size = rg_argv_size(c->argc, c->view);
    char *buf = malloc(size);
    if (buf == NULL) abort();
    rg_argv_encode(buf, size, c->argc, c->view);
    const unsigned r = (unsigned char)buf[size - 3];
    free(buf);
    return r;
}

/* hiredis 0.14 declares argv as const char ** though it only reads it. */
static const char **hiredis_argv(const command *c) {
    return (const char **)c->ptr;
}

static unsigned run_hiredis(const command *c) {
    char *cmd;
    const int n = redisFormatCommandArgv(&cmd, (int)c->argc, hiredis_argv(c), c->len);
    if (n < 0) abort();
    const unsigned r = (unsigned char)cmd[n - 3];
    redisFreeCommand(cmd);
    return r;
}

/* Both encoders must produce the same bytes before their speed means anything. */
static void check_same_output(const command *c) {
    const size_t size = rg_argv_size(c->argc, c->view);
    char *cmd;
    const int n = redisFormatCommandArgv(&cmd, (int)c->argc, hiredis_argv(c), c->len);
    if (n < 0 || (size_t)n != size || rg_argv_encode(c->out, size, c->argc, c->view) != size ||
        memcmp(cmd, c->out, size) != 0) {
        fprintf(stderr, "%s: rg and hiredis disagree\n", c->name);
        exit(1);
    }
    redisFreeCommand(cmd);
}

typedef struct stats {
    double median, min;
} stats;

static stats summarize(double *ns, unsigned runs) {
    qsort(ns, runs, sizeof ns[0], cmp_double);
    return (stats){runs % 2 ? ns[runs / 2] : (ns[runs / 2 - 1] + ns[runs / 2]) / 2, ns[0]};
}

/* Operations per run so that a run lasts about min_run_ms. */
static size_t calibrate(variant_fn fn, const command *c, double min_run_ms) {
    volatile unsigned sink = 0;
    size_t iters = 1;
    for (;;) {
        const double t0 = now_ns();
        for (size_t i = 0; i < iters; i++) sink += fn(c);
        if (now_ns() - t0 >= min_run_ms * 1e6) break;
        iters *= 2;
    }
    (void)sink; /* a volatile read: the results were used */
    return iters;
}

static stats measure(variant_fn fn, const command *c, const options *o) {
    double ns[MAX_RUNS];
    volatile unsigned sink = 0;
    const size_t iters = calibrate(fn, c, o->min_run_ms);
    for (unsigned r = 0; r < o->runs; r++) {
        unsigned acc = 0;
        const double t0 = now_ns();
        for (size_t i = 0; i < iters; i++) acc += fn(c);
        ns[r] = (now_ns() - t0) / (double)iters;
        sink += acc;
    }
    (void)sink;
    return summarize(ns, o->runs);
}

static void bench_commands(const options *o) {
    static command cmds[4];
    command_init(&cmds[0], "E1", "SET 16 B key, 64 B value", "SET", NULL, 1, 16, 64);
    command_init(&cmds[1], "E2", "SET 16 B key, 4 KiB value", "SET", NULL, 1, 16, 4096);
    command_init(&cmds[2], "E3", "HSET key + 10 field/value", "HSET", "user:1000", 10, 8, 16);
    command_init(&cmds[3], "E4", "MSET 100 pairs 16 B / 16 B", "MSET", NULL, 100, 16, 16);
    printf("argv encoding, ns/op: median (min) over %u runs\n", o->runs);
    printf("%-3s %-27s %6s %16s %16s %16s %8s %8s\n", "", "case", "bytes", "rg", "rg+malloc",
           "hiredis", "hi/rg", "hi/rg+m");
    for (size_t i = 0; i < 4; i++) {
        const command *c = &cmds[i];
        check_same_output(c);
        const stats a = measure(run_rg, c, o);
        const stats b = measure(run_rg_malloc, c, o);
        const stats h = measure(run_hiredis, c, o);
        printf("%-3s %-27s %6zu %8.1f (%5.1f) %8.1f (%5.1f) %8.1f (%5.1f) %7.1fx %7.1fx\n", c->name,
               c->what, rg_argv_size(c->argc, c->view), a.median, a.min, b.median, b.min, h.median,
               h.min, h.median / a.median, h.median / b.median);
    }
    for (size_t i = 0; i < 4; i++) command_free(&cmds[i]);
}

/* ---- doubles ------------------------------------------------------------------------------- */

typedef struct double_set {
    const char *what;
    double v[DOUBLES];
} double_set;

typedef size_t (*fmt_fn)(char *out, double v);

static size_t fmt_rg(char *out, double v) {
    return rg_fmt_double(out, v);
}

static size_t fmt_printf(char *out, double v) {
    return (size_t)snprintf(out, 32, "%.17g", v);
}

static stats measure_fmt(fmt_fn fn, const double_set *s, const options *o) {
    double ns[MAX_RUNS];
    volatile size_t sink = 0;
    char out[32];
    size_t rounds = 1;
    for (;;) { /* calibrate */
        const double t0 = now_ns();
        for (size_t r = 0; r < rounds; r++) {
            for (size_t i = 0; i < DOUBLES; i++) sink += fn(out, s->v[i]);
        }
        if (now_ns() - t0 >= o->min_run_ms * 1e6) break;
        rounds *= 2;
    }
    for (unsigned run = 0; run < o->runs; run++) {
        size_t acc = 0;
        const double t0 = now_ns();
        for (size_t r = 0; r < rounds; r++) {
            for (size_t i = 0; i < DOUBLES; i++) acc += fn(out, s->v[i]) + (unsigned char)out[0];
        }
        ns[run] = (now_ns() - t0) / (double)(rounds * DOUBLES);
        sink += acc;
    }
    (void)sink;
    return summarize(ns, o->runs);
}

static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static void bench_doubles(const options *o) {
    static double_set sets[2] = {{"random finite bit patterns", {0}},
                                 {"scores: n/4, n/100, integers", {0}}};
    uint64_t seed = 1;
    for (size_t i = 0; i < DOUBLES;) {
        const uint64_t bits = splitmix(&seed);
        double v;
        memcpy(&v, &bits, sizeof v);
        if (v - v == 0) sets[0].v[i++] = v; /* finite */
    }
    for (size_t i = 0; i < DOUBLES; i++) {
        const double n = (double)(splitmix(&seed) % 1000000);
        sets[1].v[i] = i % 3 == 0 ? n / 4 : i % 3 == 1 ? n / 100 : n;
    }
    printf("\ndouble formatting, ns/op: median (min) over %u runs\n", o->runs);
    printf("%-30s %16s %16s %8s\n", "values", "rg_fmt_double", "%.17g", "ratio");
    for (size_t i = 0; i < 2; i++) {
        const stats a = measure_fmt(fmt_rg, &sets[i], o);
        const stats p = measure_fmt(fmt_printf, &sets[i], o);
        printf("%-30s %8.1f (%5.1f) %8.1f (%5.1f) %7.1fx\n", sets[i].what, a.median, a.min,
               p.median, p.min, p.median / a.median);
    }
}

static options parse_args(int argc, char **argv) {
    options o = {15, 20.0};
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--runs") == 0) {
            o.runs = (unsigned)atoi(argv[i + 1]);
        } else if (strcmp(argv[i], "--min-run-ms") == 0) {
            o.min_run_ms = atof(argv[i + 1]);
        } else {
            fprintf(stderr, "usage: bench_argv [--runs N] [--min-run-ms MS]\n");
            exit(2);
        }
    }
    if (o.runs < 1 || o.runs > MAX_RUNS) o.runs = 15;
    return o;
}

int main(int argc, char **argv) {
    const options o = parse_args(argc, argv);
    printf("bench_argv: hiredis %d.%d.%d\n", HIREDIS_MAJOR, HIREDIS_MINOR, HIREDIS_PATCH);
    bench_commands(&o);
    bench_doubles(&o);
    return 0;
}
