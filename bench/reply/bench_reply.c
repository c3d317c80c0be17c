/* bench_reply: typed reply decoding against hiredis 0.14, in the same run, on RESP2 replies.
 *
 *   ours          the generated table + rg_reply_decode into the typed result (views, int64,
 *                 doubles parsed), arrays in caller storage: no allocation
 *   ours, 64 a call  the same with rg_reply_decode_many (pipelined GET replies, 64 results a
 *                 call into an array)
 *   hiredis tree  redisReaderFeed + redisReaderGetReply building redisReply trees (then freed)
 *   hiredis null  the same with reader->fn = NULL: parsing only, no tree
 *   raw           the foundation decoder's fastest path on the same bytes: rg_feed_inline with a
 *                 static callback that keeps each value's view or integer (no typing, no
 *                 storage), the floor the typed engine is measured against
 *
 * Each case decodes a buffer of REPLIES identical replies; hiredis is fed 16 KiB at a time
 * (its usual read size), ours decodes straight from the buffer. A run times one pass; the
 * table shows the median ns per reply over RUNS runs, hiredis / ours ratios, and allocations per
 * reply (counted by interposing malloc/calloc/realloc in this executable).
 *
 * Usage: bench_reply [RUNS [CASE]]   (default 31 runs; CASE 1-8 runs that case only, e.g. for a
 * profile: valgrind --tool=callgrind bench_reply 1 2) */
#include "bench_reply.h"

#include "alloc_count.h"

#include <hiredis/hiredis.h>

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { REPLIES = 2000, CHUNK = 16384 };

/* The measured passes stay functions of their own, so a profile (callgrind) shows each. */
#if defined(__GNUC__) || defined(__clang__)
#define RG_BENCH_NOINLINE __attribute__((noinline))
#else
#define RG_BENCH_NOINLINE
#endif

typedef struct buf {
    char *p;
    size_t len, cap;
} buf;

static void put(buf *b, const char *s, size_t n) {
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2;
        b->p = realloc(b->p, b->cap);
        if (!b->p) exit(1);
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

static void put_bulk(buf *b, const char *s) {
    char head[32];
    const int n = snprintf(head, sizeof head, "$%zu\r\n", strlen(s));
    put(b, head, (size_t)n);
    put(b, s, strlen(s));
    put(b, "\r\n", 2);
}

static void put_header(buf *b, char type, size_t n) {
    char head[32];
    const int w = snprintf(head, sizeof head, "%c%zu\r\n", type, n);
    put(b, head, (size_t)w);
}

/* One reply of each case, RESP2. */
static void reply_get(buf *b) {
    put_bulk(b, "the value of a key, 32 bytes....");
}

static void reply_mget(buf *b) {
    char v[32];
    put_header(b, '*', 100);
    for (int i = 0; i < 100; i++) {
        snprintf(v, sizeof v, "value:%06d", i);
        put_bulk(b, v);
    }
}

static void reply_hgetall(buf *b) {
    char v[32];
    put_header(b, '*', 200);
    for (int i = 0; i < 100; i++) {
        snprintf(v, sizeof v, "field:%04d", i);
        put_bulk(b, v);
        snprintf(v, sizeof v, "value:%06d", i);
        put_bulk(b, v);
    }
}

static void reply_zrange(buf *b) {
    char v[32];
    put_header(b, '*', 200);
    for (int i = 0; i < 100; i++) {
        snprintf(v, sizeof v, "member:%04d", i);
        put_bulk(b, v);
        snprintf(v, sizeof v, "%d.%d", i * 3, i % 10);
        put_bulk(b, v);
    }
}

/* Scores as Redis before 7.2 sends them over RESP2 ("%.17g": "0.33333333333333331"). */
static void reply_zrange17(buf *b) {
    char v[32];
    put_header(b, '*', 200);
    for (int i = 0; i < 100; i++) {
        snprintf(v, sizeof v, "member:%04d", i);
        put_bulk(b, v);
        snprintf(v, sizeof v, "%.17g", (i + 1) / 3.0);
        put_bulk(b, v);
    }
}

typedef struct bench_case {
    const char *name;
    void (*make)(buf *);
    const rg_rtable *table;
    size_t elems; /* values per reply, to check the typed result */
    size_t batch; /* 0: one rg_reply_decode a reply; else rg_reply_decode_many, batch a call */
} bench_case;

static char g_store[1 << 16];
static uint64_t g_check;

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The size of a result: the { items, count } member comes first for arrays. */
static size_t result_count(const bench_case *c, const void *out) {
    if (c->elems == 1) return 1;
    size_t n;
    /* elems 0: a oneof, its which byte first, then (aligned) the first alternative's list */
    memcpy(&n, (const char *)out + (c->elems ? 0 : sizeof(void *)) + sizeof(void *), sizeof n);
    return n;
}

RG_BENCH_NOINLINE static void ours(const bench_case *c, const buf *in) {
    rg_reply_reader rr;
    rg_reply_reader_init(&rr, NULL);
    rg_reply_set_storage(&rr, g_store, sizeof g_store);
    union {
        bench_get_result get;
        bench_mget_result mget;
        bench_hgetall_result hgetall;
        bench_lrange_result lrange;
        bench_zrange_result zrange;
        bench_zrevrange_result zrevrange;
    } out;
    /* in locals, as a caller's loop over one buffer has them: read through c and in, they are
     * loaded again after every call of the library (which might have changed them) */
    const rg_rtable *const t = c->table;
    const char *const p = in->p;
    const size_t len = in->len;
    size_t pos = 0;
    for (int i = 0; i < REPLIES; i++) {
        if (rg_reply_decode(&rr, t, p, len, &pos, &out) != RG_OK) exit(2);
        g_check += result_count(c, &out);
    }
}

/* Pipelined one-value replies (GET) decoded batch at a time into an array of results. */
RG_BENCH_NOINLINE static void ours_many(const bench_case *c, const buf *in) {
    rg_reply_reader rr;
    rg_reply_reader_init(&rr, NULL);
    bench_get_result out[64];
    size_t pos = 0;
    for (size_t left = REPLIES; left;) {
        const size_t n = left < c->batch ? left : c->batch;
        size_t done = 0;
        if (rg_reply_decode_many(&rr, c->table, in->p, in->len, &pos, out, sizeof out[0], n,
                                 &done) != RG_OK) {
            exit(2);
        }
        g_check += done + out[n - 1].value.len;
        left -= n;
    }
}

/* What the raw pass keeps of each event, so the compiler cannot drop the decoding. */
typedef struct raw_sink {
    uint64_t n;
    uintptr_t acc;
} raw_sink;

static int raw_event(void *ud, const rg_event *ev) {
    raw_sink *s = ud;
    s->n++;
    s->acc += (uintptr_t)ev->str.ptr + ev->str.len + (uintptr_t)ev->u.i;
    return 0;
}

RG_BENCH_NOINLINE static void raw(const buf *in) {
    rg_reader r;
    rg_reader_init(&r, NULL);
    raw_sink s = {0, 0};
    size_t pos = 0;
    if (rg_feed_inline(&r, in->p, in->len, &pos, raw_event, &s) != RG_NEED_MORE) exit(4);
    if (rg_reader_values(&r) != REPLIES) exit(4);
    g_check += s.n + (s.acc & 1);
}

RG_BENCH_NOINLINE static void hiredis(const buf *in, bool tree) {
    redisReader *rd = redisReaderCreate();
    if (!tree) rd->fn = NULL;
    for (size_t off = 0; off < in->len; off += CHUNK) {
        const size_t n = in->len - off < CHUNK ? in->len - off : CHUNK;
        if (redisReaderFeed(rd, in->p + off, n) != REDIS_OK) exit(3);
        for (;;) {
            void *reply = NULL;
            if (redisReaderGetReply(rd, &reply) != REDIS_OK) exit(3);
            if (!reply) break;
            if (tree) {
                const redisReply *r = reply;
                g_check += r->type == REDIS_REPLY_ARRAY ? r->elements : 1;
                freeReplyObject(reply);
            } else {
                g_check++;
            }
        }
    }
    redisReaderFree(rd);
}

typedef struct stat {
    double ns;     /* median ns per reply */
    double allocs; /* per reply */
} stat;

static int cmp(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static stat measure(const bench_case *c, const buf *in, int which, unsigned runs) {
    double t[256];
    stat s = {0, 0};
    for (unsigned r = 0; r < runs; r++) {
        const uint64_t a0 = g_allocs;
        g_count_allocs = 1;
        const uint64_t t0 = now_ns();
        if (which == 0 && c->batch) ours_many(c, in);
        if (which == 0 && !c->batch) ours(c, in);
        if (which == 1) hiredis(in, true);
        if (which == 2) hiredis(in, false);
        if (which == 3) raw(in);
        const uint64_t t1 = now_ns();
        g_count_allocs = 0;
        t[r] = (double)(t1 - t0) / REPLIES;
        s.allocs = (double)(g_allocs - a0) / REPLIES;
    }
    qsort(t, runs, sizeof t[0], cmp);
    s.ns = t[runs / 2];
    return s;
}

int main(int argc, char **argv) {
    unsigned runs = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 31;
    if (runs < 1 || runs > 256) runs = 31;
    const unsigned only = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 0;
    const bench_case cases[] = {
        {"GET (32 B bulk)", reply_get, &bench_get_reply_table, 1, 0},
        {"GET, 64 a call (rg_reply_decode_many)", reply_get, &bench_get_reply_table, 1, 64},
        {"MGET (100 keys)", reply_mget, &bench_mget_reply_table, 100, 0},
        {"HGETALL (100 fields)", reply_hgetall, &bench_hgetall_reply_table, 100, 0},
        {"LRANGE (100)", reply_mget, &bench_lrange_reply_table, 100, 0},
        {"ZRANGE WITHSCORES (100)", reply_zrange, &bench_zrange_reply_table, 100, 0},
        {"ZREVRANGE, oneof of two lists (100)", reply_mget, &bench_zrevrange_reply_table, 0, 0},
        {"ZRANGE WITHSCORES (100), 17-digit scores", reply_zrange17, &bench_zrange_reply_table, 100,
         0},
    };
    printf("bench_reply: %d RESP2 replies per run, median of %u runs, ns per reply\n\n", REPLIES,
           runs);
    printf("| reply | ours typed | raw decoder | hiredis tree | hiredis no tree | tree/ours | "
           "ours/raw | no-tree/ours | allocs ours | allocs hiredis tree |\n");
    printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (only && only != i + 1) continue;
        buf in = {NULL, 0, 0};
        for (int r = 0; r < REPLIES; r++) cases[i].make(&in);
        measure(&cases[i], &in, 0, 3); /* warm up */
        const stat o = measure(&cases[i], &in, 0, runs);
        const stat h = measure(&cases[i], &in, 1, runs);
        const stat n = measure(&cases[i], &in, 2, runs);
        const stat w = measure(&cases[i], &in, 3, runs);
        printf("| %s | %.1f | %.1f | %.1f | %.1f | %.1fx | %.2fx | %.1fx | %.2f | %.2f |\n",
               cases[i].name, o.ns, w.ns, h.ns, n.ns, h.ns / o.ns, o.ns / w.ns, n.ns / o.ns,
               o.allocs, h.allocs);
        free(in.p);
    }
    printf("\n(checksum %" PRIu64 ")\n", g_check);
    return 0;
}
