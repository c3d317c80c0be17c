/* bench_dec: respgen's decoder (runtime/rg_dec.h) against hiredis's reader, in the same run.
 *
 * Cases (see docs/bench-decoder.md):
 *   D1  10,000 pipelined small replies cycling +OK, :12345, $5 hello, $-1
 *   D2  1,000 replies of *100 x 10-byte bulks
 *   D3  100 replies of 1 MiB bulks (plus a bulk-size sweep for ours: 1 KiB, 64 KiB, 1 MiB)
 *   D4  the D1 bytes arriving 16 bytes at a time
 *
 * Ours:    pull  = rg_next in a loop with an inline switch on ev.kind (no indirect call per value)
 *          cb    = rg_feed with a function-pointer callback (the public callback API)
 *          batch = rg_next_batch into an array of events
 *          inline = rg_feed_inline with the consumer inlined into the decoding loop
 * hiredis: obj   = default reply objects, freeReplyObject on each reply
 *          null  = reader->fn = NULL, pure parse
 *
 * Every variant consumes what it decodes into a checksum (integers, lengths, the first byte of
 * every string) that is compared with the one computed while generating the input, so nothing
 * can be optimised away and every variant is checked to decode exactly what was generated.
 *
 * Allocations are counted by interposing malloc/calloc/realloc/free in this executable; hiredis
 * is a shared library, so its calls resolve here too. The counter is on only while measuring.
 *
 * Usage: bench_dec [--runs N] [--case D1|D2|D3|D4] [--min-run-ms MS]
 *        bench_dec --callgrind CASE:VARIANT [--bulk BYTES]
 *        bench_dec --callgrind-method   (prints "client" or "toggle", see below)
 *   CASE: d1 d2 d3 d4; VARIANT: pull cb batch inline pull-win cb-win batch-win inline-win
 *   pull-copy cb-copy hiredis hiredis-null (the -win variants: 16 KiB windows, or 16 bytes for d4;
 * d4 always feeds 16 bytes). In callgrind mode one pass is run to warm up, then one pass (the
 * function cg_region) is run with callgrind collection on: run under valgrind --tool=callgrind
 * --collect-atstart=no, adding
 *   --toggle-collect=cg_region when --callgrind-method says "toggle" (built without
 *   valgrind/callgrind.h, so no client requests). It prints the number of replies, so
 *   instructions per reply = collected Ir / replies (scripts/bench.sh does this).
 */
#define _POSIX_C_SOURCE 200809L

#include "rg_dec.h"

#include "alloc_count.h"

#include <hiredis/hiredis.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(BENCH_HAVE_CALLGRIND_H)
#include <valgrind/callgrind.h>
#define BENCH_CG_TOGGLE() CALLGRIND_TOGGLE_COLLECT
#define BENCH_CG_METHOD   "client"
#else
/* Without the client request header, run callgrind with --toggle-collect=cg_region. */
#define BENCH_CG_TOGGLE() ((void)0)
#define BENCH_CG_METHOD   "toggle"
#endif

/* --------------------------------------------------------------------------------------------- */

__attribute__((format(printf, 1, 2), noreturn)) static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "bench_dec: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

/* A variant that decoded something else than was generated, or left its reader in a wrong state:
 * the first such message of the current row is kept, printed with the row and makes the exit
 * status 1; the measurement goes on so the rest of the table is still printed. */
static char g_flag[256];
static unsigned g_flagged_rows;

__attribute__((format(printf, 1, 2))) static void flag(const char *fmt, ...) {
    if (g_flag[0]) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_flag, sizeof g_flag, fmt, ap);
    va_end(ap);
}

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* What a consumer accumulates; compared with what the generator expects. */
typedef struct acc {
    uint64_t replies; /* top-level values */
    uint64_t values;  /* scalars and aggregate headers */
    uint64_t sum;     /* ints + counts + lengths + first string bytes + nulls */
} acc;

/* One generated input. */
typedef struct input {
    const char *name;
    char *buf;
    size_t len;
    acc want;          /* for the full consumers */
    uint64_t want_top; /* sum of the top-level hiredis reply types (for fn = NULL) */
} input;

/* --- the consumer: one inline switch, shared by the pull loop and the callback ---------------- */

static inline void consume(acc *a, const rg_event *ev) {
    switch (ev->kind) {
    case RG_EV_INT: a->sum += (uint64_t)ev->u.i; break;
    case RG_EV_SIMPLE:
    case RG_EV_ERROR:
    case RG_EV_BULK:
        a->sum += ev->str.len;
        if (ev->str.len) a->sum += (unsigned char)ev->str.ptr[0];
        break;
    case RG_EV_NULL: a->sum += 1; break;
    case RG_EV_ARRAY: a->sum += (uint64_t)ev->u.i; break;
    default: break;
    }
    a->values += ev->kind != RG_EV_END; /* an END closes a value; it is not one */
    a->replies += ev->complete;
}

/* The consumer loops of the variants are kept out of line, as a caller's own reply-reading
 * function would be: inlined into ours_window, they would share its registers with each other. */
#define BENCH_LOOP __attribute__((noinline)) static

/* The hot caller: rg_next in a loop with the consumer inline and its totals in locals. */
BENCH_LOOP rg_status pull_all(rg_reader *r, const char *buf, size_t len, size_t *pos, acc *out) {
    acc a = *out;
    rg_event ev;
    rg_status st;
    while ((st = rg_next(r, buf, len, pos, &ev)) == RG_OK) consume(&a, &ev);
    *out = a;
    return st;
}

/* Events per rg_next_batch call. */
#define BATCH 64

/* The batch pull API: up to BATCH events per call, consumed from the array. */
BENCH_LOOP rg_status batch_all(rg_reader *r, const char *buf, size_t len, size_t *pos, acc *out) {
    acc a = *out;
    rg_event evs[BATCH];
    rg_status st;
    size_t n;
    do {
        n = rg_next_batch(r, buf, len, pos, evs, BATCH, &st);
        for (size_t i = 0; i < n; i++) consume(&a, &evs[i]);
    } while (st == RG_OK);
    *out = a;
    return st;
}

static int on_event(void *ud, const rg_event *ev) {
    consume((acc *)ud, ev);
    return 0;
}

/* The inline callback API: on_event is visible here, so rg_feed_inline inlines it, and the totals
 * can stay in registers. */
BENCH_LOOP rg_status inline_all(rg_reader *r, const char *buf, size_t len, size_t *pos, acc *out) {
    acc a = *out;
    const rg_status st = rg_feed_inline(r, buf, len, pos, on_event, &a);
    *out = a;
    return st;
}

/* --- input generation --------------------------------------------------------------------------
 */

typedef struct gen {
    char *buf;
    size_t len, cap;
    acc want;
    uint64_t want_top;
} gen;

static void put(gen *g, const char *s, size_t n) {
    if (g->len + n > g->cap) {
        size_t cap = g->cap ? g->cap : 4096;
        while (cap < g->len + n) cap *= 2;
        g->buf = realloc(g->buf, cap);
        if (!g->buf) die("out of memory");
        g->cap = cap;
    }
    memcpy(g->buf + g->len, s, n);
    g->len += n;
}

static void put_str(gen *g, const char *s) {
    put(g, s, strlen(s));
}

static void want_str(gen *g, const char *s, size_t n) {
    g->want.values++;
    g->want.sum += n + (n ? (unsigned char)s[0] : 0);
}

static input make_d1(const char *name, unsigned replies) {
    gen g = {0};
    for (unsigned i = 0; i < replies; i++) {
        switch (i % 4) {
        case 0:
            put_str(&g, "+OK\r\n");
            want_str(&g, "OK", 2);
            g.want_top += REDIS_REPLY_STATUS;
            break;
        case 1:
            put_str(&g, ":12345\r\n");
            g.want.values++;
            g.want.sum += 12345;
            g.want_top += REDIS_REPLY_INTEGER;
            break;
        case 2:
            put_str(&g, "$5\r\nhello\r\n");
            want_str(&g, "hello", 5);
            g.want_top += REDIS_REPLY_STRING;
            break;
        default:
            put_str(&g, "$-1\r\n");
            g.want.values++;
            g.want.sum += 1;
            g.want_top += REDIS_REPLY_NIL;
            break;
        }
        g.want.replies++;
    }
    return (input){name, g.buf, g.len, g.want, g.want_top};
}

static input make_d2(unsigned replies, unsigned elems) {
    gen g = {0};
    char line[64];
    for (unsigned i = 0; i < replies; i++) {
        snprintf(line, sizeof line, "*%u\r\n", elems);
        put_str(&g, line);
        g.want.values++;
        g.want.sum += elems;
        for (unsigned j = 0; j < elems; j++) {
            char val[16];
            snprintf(val, sizeof val, "v%09u", (i * elems + j) % 1000000000u);
            snprintf(line, sizeof line, "$10\r\n%s\r\n", val);
            put_str(&g, line);
            want_str(&g, val, 10);
        }
        g.want.replies++;
        g.want_top += REDIS_REPLY_ARRAY;
    }
    return (input){"D2", g.buf, g.len, g.want, g.want_top};
}

static input make_d3(const char *name, unsigned replies, size_t bulk) {
    gen g = {0};
    char line[64];
    char *payload = malloc(bulk ? bulk : 1);
    if (!payload) die("out of memory");
    for (unsigned i = 0; i < replies; i++) {
        memset(payload, 'a' + (int)(i % 26), bulk);
        snprintf(line, sizeof line, "$%zu\r\n", bulk);
        put_str(&g, line);
        put(&g, payload, bulk);
        put_str(&g, "\r\n");
        want_str(&g, payload, bulk);
        g.want.replies++;
        g.want_top += REDIS_REPLY_STRING;
    }
    free(payload);
    return (input){name, g.buf, g.len, g.want, g.want_top};
}

/* --- variants ----------------------------------------------------------------------------------
 */

typedef enum impl {
    OURS_PULL,      /* rg_next loop, window of `chunk` new bytes (0: the whole buffer at once) */
    OURS_CB,        /* rg_feed + callback, same windows */
    OURS_BATCH,     /* rg_next_batch into an array of BATCH events, same windows */
    OURS_INLINE,    /* rg_feed_inline with the consumer inlined, same windows */
    OURS_PULL_COPY, /* rg_next, `chunk` bytes at a time copied into a small rolling buffer */
    OURS_CB_COPY,   /* rg_feed, same rolling buffer */
    HI_OBJ,         /* hiredis, default reply objects, fed `chunk` bytes at a time */
    HI_NULL,        /* hiredis, fn = NULL */
} impl;

static bool is_ours(impl k) {
    return k <= OURS_CB_COPY;
}

typedef struct variant {
    const char *name;
    impl kind;
    size_t chunk;
} variant;

/* Rolling buffer of the copy variants: small, compacted only when the next piece does not fit. */
#define ROLL_CAP 64

static void ours_window(const input *in, size_t chunk, impl how, acc *a) {
    rg_reader r;
    rg_reader_init(&r, NULL);
    const char *buf = in->buf;
    size_t len = in->len, pos = 0, end = chunk ? 0 : len;
    for (;;) {
        rg_status st;
        if (how == OURS_CB)
            st = rg_feed(&r, buf, end, &pos, on_event, a);
        else if (how == OURS_BATCH)
            st = batch_all(&r, buf, end, &pos, a);
        else if (how == OURS_INLINE)
            st = inline_all(&r, buf, end, &pos, a);
        else
            st = pull_all(&r, buf, end, &pos, a);
        if (st != RG_NEED_MORE) {
            const rg_error e = rg_reader_error(&r);
            flag("%s at stream offset %" PRIu64 ": %.*s", rg_status_name(st), e.offset,
                 (int)e.msg.len, e.msg.ptr);
            return;
        }
        if (end == len) break;
        /* The next read: the unconsumed tail [pos, end) is re-presented followed by `chunk` new
         * bytes. Bytes before pos are consumed, so the window is the one buffer [pos, end+chunk).
         */
        end = len - end > chunk ? end + chunk : len;
    }
    if (pos != len) flag("input left over: pos %zu of %zu", pos, len);
    if (!rg_reader_idle(&r)) flag("rg_reader_idle false after the last reply");
}

static void ours_copy(const input *in, size_t chunk, bool cb, acc *a) {
    rg_reader r;
    rg_reader_init(&r, NULL);
    char roll[ROLL_CAP];
    size_t rlen = 0, pos = 0, off = 0;
    while (off < in->len) {
        size_t n = in->len - off < chunk ? in->len - off : chunk;
        if (pos == rlen) {
            pos = rlen = 0;
        } else if (rlen + n > ROLL_CAP) {
            memmove(roll, roll + pos, rlen - pos);
            rlen -= pos;
            pos = 0;
            if (rlen + n > ROLL_CAP) die("%s: token longer than the rolling buffer", in->name);
        }
        memcpy(roll + rlen, in->buf + off, n); /* "read" n bytes */
        rlen += n;
        off += n;
        rg_status st;
        if (cb)
            st = rg_feed(&r, roll, rlen, &pos, on_event, a);
        else
            st = pull_all(&r, roll, rlen, &pos, a);
        if (st != RG_NEED_MORE) {
            const rg_error e = rg_reader_error(&r);
            flag("%s at stream offset %" PRIu64 ": %.*s", rg_status_name(st), e.offset,
                 (int)e.msg.len, e.msg.ptr);
            return;
        }
    }
    if (pos != rlen) flag("input left over: %zu bytes", rlen - pos);
    if (!rg_reader_idle(&r)) flag("rg_reader_idle false after the last reply");
}

static void walk_reply(acc *a, const redisReply *rep) {
    a->values++;
    switch (rep->type) {
    case REDIS_REPLY_INTEGER: a->sum += (uint64_t)rep->integer; break;
    case REDIS_REPLY_STATUS:
    case REDIS_REPLY_ERROR:
    case REDIS_REPLY_STRING:
        a->sum += rep->len;
        if (rep->len) a->sum += (unsigned char)rep->str[0];
        break;
    case REDIS_REPLY_NIL: a->sum += 1; break;
    case REDIS_REPLY_ARRAY:
        a->sum += rep->elements;
        for (size_t i = 0; i < rep->elements; i++) walk_reply(a, rep->element[i]);
        break;
    default: break;
    }
}

static void hiredis_pass(const input *in, redisReader *rd, size_t chunk, bool objects, acc *a) {
    size_t off = 0;
    while (off < in->len) {
        size_t n = in->len - off < chunk ? in->len - off : chunk;
        if (redisReaderFeed(rd, in->buf + off, n) != REDIS_OK) die("%s: hiredis feed", in->name);
        off += n;
        for (;;) {
            void *reply;
            if (redisReaderGetReply(rd, &reply) != REDIS_OK)
                die("%s: hiredis error: %s", in->name, rd->errstr);
            if (!reply) break;
            a->replies++;
            if (objects) {
                walk_reply(a, reply);
                freeReplyObject(reply);
            } else {
                a->sum += (uintptr_t)reply; /* the reply type, cast to a pointer */
            }
        }
    }
}

/* One pass over the input. rd is the hiredis reader of the hiredis variants. */
static void one_pass(const variant *v, const input *in, redisReader *rd, acc *a) {
    switch (v->kind) {
    case OURS_PULL:
    case OURS_CB:
    case OURS_BATCH:
    case OURS_INLINE: ours_window(in, v->chunk, v->kind, a); break;
    case OURS_PULL_COPY: ours_copy(in, v->chunk, false, a); break;
    case OURS_CB_COPY: ours_copy(in, v->chunk, true, a); break;
    case HI_OBJ:
    case HI_NULL: hiredis_pass(in, rd, v->chunk, v->kind == HI_OBJ, a); break;
    }
}

static redisReader *make_hiredis(const variant *v) {
    if (is_ours(v->kind)) return NULL;
    redisReader *rd = redisReaderCreate();
    if (!rd) die("redisReaderCreate failed");
    if (v->kind == HI_NULL) rd->fn = NULL;
    return rd;
}

static void check(const variant *v, const input *in, const acc *a, uint64_t passes) {
    bool ok = a->replies == in->want.replies * passes;
    if (v->kind == HI_NULL)
        ok = ok && a->sum == in->want_top * passes;
    else
        ok = ok && a->values == in->want.values * passes && a->sum == in->want.sum * passes;
    if (!ok)
        flag("decoded replies=%" PRIu64 " values=%" PRIu64 " sum=%" PRIu64 ", want replies=%" PRIu64
             " values=%" PRIu64 " sum=%" PRIu64 " (x%" PRIu64 ")",
             a->replies, a->values, a->sum, in->want.replies, in->want.values,
             v->kind == HI_NULL ? in->want_top : in->want.sum, passes);
}

/* --- measurement -------------------------------------------------------------------------------
 */

typedef struct result {
    double med_ns, min_ns;   /* per reply */
    double mbps;             /* input MB/s at the median */
    double allocs;           /* per reply */
    unsigned reps;           /* passes per timed run */
    char bad[sizeof g_flag]; /* the first verification failure, "" when none */
} result;

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static uint64_t g_checksum; /* printed at the end */
static unsigned g_runs = 21;
static double g_min_run_ms = 2.0;

static uint64_t timed_run(const variant *v, const input *in, unsigned reps, bool count) {
    redisReader *rd = make_hiredis(v);
    acc a = {0};
    uint64_t t0 = now_ns();
    if (count) g_count_allocs = 1;
    for (unsigned i = 0; i < reps; i++) one_pass(v, in, rd, &a);
    g_count_allocs = 0;
    uint64_t t1 = now_ns();
    if (rd) redisReaderFree(rd);
    check(v, in, &a, reps);
    g_checksum = g_checksum * 31 + a.sum + a.values + a.replies;
    return t1 - t0;
}

/* --- the table ---------------------------------------------------------------------------------
 */

typedef struct row {
    const char *cas;
    const variant *v;
    const input *in;
    double target; /* ns per reply, 0 for none */
    bool any;      /* an API without an indirect call per value: the pull-style target is
                      met when any one of these rows of the case meets it */
    result res;
} row;

/* Measures rows[0..n), which share one input, with their runs interleaved (run i of every row,
 * then run i + 1 ...), so a burst of machine noise hits all variants alike and the ratios stay
 * fair. Each row first calibrates its passes per run to last g_min_run_ms, then warms up. */
static void measure_group(row *rows, size_t n) {
    unsigned *reps = calloc(n, sizeof *reps);
    uint64_t *allocs = calloc(n, sizeof *allocs);
    double *ns = calloc(n * g_runs, sizeof *ns);
    if (!reps || !allocs || !ns) die("out of memory");
    const double want = g_min_run_ms * 1e6;
    for (size_t j = 0; j < n; j++) {
        g_flag[0] = 0;
        const uint64_t t = timed_run(rows[j].v, rows[j].in, 1, false);
        reps[j] = (double)t < want ? (unsigned)(want / (double)(t ? t : 1)) + 1 : 1;
        if (reps[j] > 100000) reps[j] = 100000;
        for (int w = 0; w < 2; w++) timed_run(rows[j].v, rows[j].in, reps[j], false);
        memcpy(rows[j].res.bad, g_flag, sizeof g_flag);
    }
    for (unsigned i = 0; i < g_runs; i++) {
        for (size_t j = 0; j < n; j++) {
            const input *in = rows[j].in;
            memcpy(g_flag, rows[j].res.bad, sizeof g_flag);
            const uint64_t a0 = g_allocs;
            const uint64_t dt = timed_run(rows[j].v, in, reps[j], true);
            allocs[j] += g_allocs - a0;
            ns[j * g_runs + i] = (double)dt / ((double)reps[j] * (double)in->want.replies);
            memcpy(rows[j].res.bad, g_flag, sizeof g_flag);
        }
    }
    for (size_t j = 0; j < n; j++) {
        result *res = &rows[j].res;
        const input *in = rows[j].in;
        double *x = ns + j * g_runs;
        qsort(x, g_runs, sizeof *x, cmp_double);
        res->med_ns = x[g_runs / 2];
        res->min_ns = x[0];
        res->mbps = (double)in->len / (res->med_ns * (double)in->want.replies) * 1e3;
        res->allocs = (double)allocs[j] / ((double)g_runs * reps[j] * (double)in->want.replies);
        res->reps = reps[j];
    }
    free(reps);
    free(allocs);
    free(ns);
}

/* A table row: case, variant, input, target ns/reply (0: none). */
#define ROW(c, var, inp, tgt) \
    { .cas = (c), .v = (var), .in = (inp), .target = (tgt) }
/* A row of the pull-style target (see row.any). */
#define ROW_ANY(c, var, inp, tgt) \
    { .cas = (c), .v = (var), .in = (inp), .target = (tgt), .any = true }

static const variant V_PULL = {"ours pull rg_next", OURS_PULL, 0};
static const variant V_CB = {"ours cb rg_feed", OURS_CB, 0};
static const variant V_BATCH = {"ours batch rg_next_batch", OURS_BATCH, 0};
static const variant V_BATCH_16K = {"ours batch, 16K windows", OURS_BATCH, 16384};
static const variant V_BATCH_W16 = {"ours batch, 16B window", OURS_BATCH, 16};
static const variant V_INLINE = {"ours inline rg_feed_inline", OURS_INLINE, 0};
static const variant V_INLINE_16K = {"ours inline, 16K windows", OURS_INLINE, 16384};
static const variant V_INLINE_W16 = {"ours inline, 16B window", OURS_INLINE, 16};
static const variant V_PULL_16K = {"ours pull, 16K windows", OURS_PULL, 16384};
static const variant V_CB_16K = {"ours cb, 16K windows", OURS_CB, 16384};
static const variant V_PULL_W16 = {"ours pull, 16B window", OURS_PULL, 16};
static const variant V_CB_W16 = {"ours cb, 16B window", OURS_CB, 16};
static const variant V_PULL_C16 = {"ours pull, 16B copied", OURS_PULL_COPY, 16};
static const variant V_CB_C16 = {"ours cb, 16B copied", OURS_CB_COPY, 16};
static const variant V_HI_OBJ = {"hiredis objects 16K", HI_OBJ, 16384};
static const variant V_HI_NULL = {"hiredis fn=NULL 16K", HI_NULL, 16384};
static const variant V_HI_OBJ16 = {"hiredis objects 16B", HI_OBJ, 16};
static const variant V_HI_NULL16 = {"hiredis fn=NULL 16B", HI_NULL, 16};

static void cpu_model(char *out, size_t n) {
    snprintf(out, n, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            char *c = strchr(line, ':');
            if (c) {
                c += 1 + (c[1] == ' ');
                c[strcspn(c, "\n")] = 0;
                snprintf(out, n, "%s", c);
            }
            break;
        }
    }
    fclose(f);
}

static void print_header(void) {
    char cpu[256], date[64];
    cpu_model(cpu, sizeof cpu);
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", &tm);
    printf("bench_dec  %s  cpu: %s  nproc: %ld\n", date, cpu, sysconf(_SC_NPROCESSORS_ONLN));
    printf("compiler: %s  hiredis %d.%d.%d  runs: %u (median, min of runs; a run lasts >= %.1f "
           "ms)%s\n\n",
           __VERSION__, HIREDIS_MAJOR, HIREDIS_MINOR, HIREDIS_PATCH, g_runs, g_min_run_ms,
           BENCH_ALLOC_COUNTING ? "" : "  [allocation counting disabled]");
}

/* The row of hiredis variant kind measured on r's input, or NULL. */
static const row *hiredis_row(const row *rows, size_t nrows, const row *r, impl kind) {
    for (size_t i = 0; i < nrows; i++)
        if (rows[i].in == r->in && rows[i].v->kind == kind) return &rows[i];
    return NULL;
}

static void print_row(const row *rows, size_t nrows, const row *r) {
    char tgt[32] = "", ro[16] = "-", rn[16] = "-";
    if (r->target > 0) {
        bool pass = r->res.med_ns <= r->target && r->res.allocs == 0 && !r->res.bad[0];
        snprintf(tgt, sizeof tgt, "<=%g%s %s", r->target, r->any ? "*" : "",
                 pass     ? "PASS"
                 : r->any ? "over"
                          : "FAIL");
    }
    if (is_ours(r->v->kind)) {
        const row *ho = hiredis_row(rows, nrows, r, HI_OBJ);
        const row *hn = hiredis_row(rows, nrows, r, HI_NULL);
        if (ho) snprintf(ro, sizeof ro, "%.1fx", ho->res.med_ns / r->res.med_ns);
        if (hn) snprintf(rn, sizeof rn, "%.1fx", hn->res.med_ns / r->res.med_ns);
    }
    printf("%-8s %-26s %11.2f %11.2f %10.1f %9.4f %10s %10s  %s%s%s\n", r->cas, r->v->name,
           r->res.med_ns, r->res.min_ns, r->res.mbps, r->res.allocs, ro, rn, tgt,
           r->res.bad[0] ? "  !! VERIFY FAILED: " : "", r->res.bad);
    fflush(stdout);
}

static int run_table(const char *only) {
    input d1 = make_d1("D1", 10000);
    input d2 = make_d2(1000, 100);
    input d3 = make_d3("D3", 100, 1u << 20);
    input d3k = make_d3("D3@1KiB", 100, 1024);
    input d3m = make_d3("D3@64KiB", 100, 64u << 10);
    input d4 = make_d1("D4", 10000);

    /* hiredis rows first in each case so ratios can refer to them. */
    /* hiredis rows and ours rows of a case share its input; ratios compare rows of one input. */
    /* clang-format off */
    row rows[] = {
        ROW("D1", &V_HI_OBJ, &d1, 0),
        ROW("D1", &V_HI_NULL, &d1, 0),
        ROW_ANY("D1", &V_PULL, &d1, 4),
        ROW("D1", &V_CB, &d1, 5),
        ROW_ANY("D1", &V_BATCH, &d1, 4),
        ROW_ANY("D1", &V_INLINE, &d1, 4),
        ROW("D1", &V_PULL_16K, &d1, 0),
        ROW("D1", &V_CB_16K, &d1, 0),
        ROW("D2", &V_HI_OBJ, &d2, 0),
        ROW("D2", &V_HI_NULL, &d2, 0),
        ROW_ANY("D2", &V_PULL, &d2, 450),
        ROW("D2", &V_CB, &d2, 550),
        ROW_ANY("D2", &V_BATCH, &d2, 450),
        ROW_ANY("D2", &V_INLINE, &d2, 450),
        ROW("D2", &V_PULL_16K, &d2, 0),
        ROW("D2", &V_CB_16K, &d2, 0),
        ROW("D3", &V_HI_OBJ, &d3, 0),
        ROW("D3", &V_HI_NULL, &d3, 0),
        ROW("D3", &V_PULL, &d3, 0),
        ROW("D3", &V_CB, &d3, 0),
        ROW("D3", &V_PULL_16K, &d3, 0),
        ROW("D3", &V_CB_16K, &d3, 0),
        ROW("D3@1KiB", &V_PULL, &d3k, 0),
        ROW("D3@1KiB", &V_CB, &d3k, 0),
        ROW("D3@64KiB", &V_PULL, &d3m, 0),
        ROW("D3@64KiB", &V_CB, &d3m, 0),
        ROW("D4", &V_HI_OBJ16, &d4, 0),
        ROW("D4", &V_HI_NULL16, &d4, 0),
        ROW("D4", &V_PULL_W16, &d4, 0),
        ROW("D4", &V_CB_W16, &d4, 10),
        ROW("D4", &V_BATCH_W16, &d4, 0),
        ROW("D4", &V_INLINE_W16, &d4, 0),
        ROW("D4", &V_PULL_C16, &d4, 0),
        ROW("D4", &V_CB_C16, &d4, 10),
    };
    /* clang-format on */
    size_t nrows = sizeof rows / sizeof rows[0];

    print_header();
    printf("%-8s %-26s %11s %11s %10s %9s %10s %10s  %s\n", "case", "variant", "med ns/rep",
           "min ns/rep", "MB/s(med)", "allocs/rep", "hiobj/ours", "hinull/ours", "target");
    const char *prev = "";
    bool fail = false;
    for (size_t i = 0, n; i < nrows; i += n) {
        for (n = 1; i + n < nrows && rows[i + n].in == rows[i].in;) n++;
        if (only && strncmp(rows[i].cas, only, 2) != 0) continue;
        if (strncmp(prev, rows[i].cas, 2) != 0) printf("\n");
        prev = rows[i].cas;
        measure_group(rows + i, n);
        bool any_rows = false, any_met = false;
        for (size_t j = i; j < i + n; j++) {
            const row *r = &rows[j];
            const bool met = r->res.med_ns <= r->target && !r->res.bad[0];
            if (r->res.bad[0]) g_flagged_rows++;
            if (is_ours(r->v->kind) && r->res.allocs != 0) fail = true;
            if (r->target > 0 && r->any) {
                any_rows = true;
                any_met = any_met || met;
            } else if (r->target > 0 && !met) {
                fail = true;
            }
            print_row(rows, nrows, r);
        }
        if (any_rows && !any_met) fail = true;
    }

    if (!only || strncmp(only, "D3", 2) == 0) {
        printf("\nD3 effective throughput (median), GB/s of input:\n");
        for (size_t i = 0; i < nrows; i++) {
            if (strncmp(rows[i].cas, "D3", 2) != 0) continue;
            printf("  %-8s %-26s %10.1f GB/s  (%.1f ns per reply)\n", rows[i].cas, rows[i].v->name,
                   rows[i].res.mbps / 1e3, rows[i].res.med_ns);
        }
        /* Same variant, whole buffer, bulk sizes 1 KiB .. 1 MiB: the decoder's work per reply does
         * not depend on the size (callgrind shows equal instructions); what grows is the cost of
         * the cache misses on each reply's header, now 1 MiB from the previous one. */
        const variant *vs[] = {&V_PULL, &V_CB};
        for (size_t k = 0; k < 2; k++) {
            double at[3] = {0, 0, 0};
            const input *ins[3] = {&d3k, &d3m, &d3};
            for (size_t i = 0; i < nrows; i++)
                for (size_t m = 0; m < 3; m++)
                    if (rows[i].v == vs[k] && rows[i].in == ins[m]) at[m] = rows[i].res.med_ns;
            printf("  bulk-size independence, %s: %.1f / %.1f / %.1f ns per reply at 1 KiB / 64 "
                   "KiB / 1 MiB (1 MiB / 1 KiB = %.2f)\n",
                   vs[k]->name, at[0], at[1], at[2], at[0] > 0 ? at[2] / at[0] : 0.0);
        }
    }
    printf("\nchecksum %016" PRIx64 "  (%s)\n", g_checksum,
           g_flagged_rows ? "NOT all variants decoded what was generated"
                          : "every variant decoded the generated counts and values");
    printf("targets: %s (a * target is met when one of its rows meets it)\n",
           fail ? "SOME MISSED (see FAIL / allocs)" : "all met");
    if (g_flagged_rows)
        printf("VERIFICATION FAILED in %u rows (marked !!): their numbers are not valid\n",
               g_flagged_rows);
    input all[] = {d1, d2, d3, d3k, d3m, d4};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) free(all[i].buf);
    return g_flagged_rows ? 1 : 0;
}

/* --- callgrind mode ----------------------------------------------------------------------------
 */

/* With --toggle-collect=cg_region (no client requests) this function is the measured region. */
__attribute__((noinline)) void cg_region(const variant *v, const input *in, redisReader *rd,
                                         acc *a);
__attribute__((noinline)) void cg_region(const variant *v, const input *in, redisReader *rd,
                                         acc *a) {
    one_pass(v, in, rd, a);
}

static int run_callgrind(const char *spec, size_t bulk) {
    static const struct {
        const char *name;
        const variant *d123, *d4; /* the variant for D1..D3 and the one for D4 (16-byte feeds) */
    } vars[] = {
        {"pull", &V_PULL, &V_PULL_W16},          {"cb", &V_CB, &V_CB_W16},
        {"batch", &V_BATCH, &V_BATCH_W16},       {"pull-win", &V_PULL_16K, &V_PULL_W16},
        {"cb-win", &V_CB_16K, &V_CB_W16},        {"batch-win", &V_BATCH_16K, &V_BATCH_W16},
        {"inline", &V_INLINE, &V_INLINE_W16},    {"inline-win", &V_INLINE_16K, &V_INLINE_W16},
        {"pull-copy", &V_PULL_C16, &V_PULL_C16}, {"cb-copy", &V_CB_C16, &V_CB_C16},
        {"hiredis", &V_HI_OBJ, &V_HI_OBJ16},     {"hiredis-null", &V_HI_NULL, &V_HI_NULL16},
    };
    const char *colon = strchr(spec, ':');
    if (!colon || colon - spec != 2 || spec[0] != 'd' || spec[1] < '1' || spec[1] > '4')
        die("--callgrind wants CASE:VARIANT, e.g. d1:pull, not '%s'", spec);
    int cas = spec[1] - '0';
    const variant *v = NULL;
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (strcmp(colon + 1, vars[i].name) == 0) v = cas == 4 ? vars[i].d4 : vars[i].d123;
    if (!v) die("unknown variant '%s'", colon + 1);
    if (cas != 4 && (v->kind == OURS_PULL_COPY || v->kind == OURS_CB_COPY))
        die("the copy variants are D4 only ('%s')", spec);

    input in;
    switch (cas) {
    case 1: in = make_d1("D1", 10000); break;
    case 2: in = make_d2(1000, 100); break;
    case 3: in = make_d3("D3", 100, bulk); break;
    default: in = make_d1("D4", 10000); break;
    }
    redisReader *rd = make_hiredis(v);
    acc a = {0};
    one_pass(v, &in, rd, &a); /* warm-up: lazy binding, first-touch, allocator set-up */
    if (rd) {
        redisReaderFree(rd);
        rd = make_hiredis(v);
    }
    BENCH_CG_TOGGLE();
    cg_region(v, &in, rd, &a);
    BENCH_CG_TOGGLE();
    check(v, &in, &a, 2);
    if (g_flag[0]) die("%s: verification failed: %s", spec, g_flag);
    if (rd) redisReaderFree(rd);
    printf("callgrind %s (%s) replies %" PRIu64 " bytes %zu checksum %016" PRIx64 "\n", spec,
           v->name, in.want.replies, in.len, a.sum);
    free(in.buf);
    return 0;
}

int main(int argc, char **argv) {
    const char *only = NULL, *cg = getenv("BENCH_DEC_CALLGRIND");
    size_t bulk = 1u << 20;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(arg, "--runs") == 0 && val) {
            g_runs = (unsigned)strtoul(val, NULL, 10);
            if (g_runs < 1) g_runs = 1;
            i++;
        } else if (strcmp(arg, "--case") == 0 && val) {
            only = val;
            if (strlen(only) != 2 || only[0] != 'D' || only[1] < '1' || only[1] > '4')
                die("--case wants D1, D2, D3 or D4, not '%s'", only);
            i++;
        } else if (strcmp(arg, "--min-run-ms") == 0 && val) {
            g_min_run_ms = strtod(val, NULL);
            i++;
        } else if (strcmp(arg, "--callgrind") == 0 && val) {
            cg = val;
            i++;
        } else if (strcmp(arg, "--callgrind-method") == 0) {
            /* How the callgrind mode brackets its pass, for scripts/bench.sh. */
            puts(BENCH_CG_METHOD);
            return 0;
        } else if (strcmp(arg, "--bulk") == 0 && val) {
            bulk = (size_t)strtoull(val, NULL, 10);
            i++;
        } else {
            fprintf(stderr,
                    "usage: %s [--runs N] [--case D1|D2|D3|D4] [--min-run-ms MS]\n"
                    "       %s --callgrind d1|d2|d3|d4:pull|cb|batch|inline|pull-win|cb-win|"
                    "batch-win|inline-win|pull-copy|cb-copy|hiredis|hiredis-null [--bulk BYTES]\n",
                    argv[0], argv[0]);
            return 2;
        }
    }
    if (cg) return run_callgrind(cg, bulk);
    return run_table(only);
}
