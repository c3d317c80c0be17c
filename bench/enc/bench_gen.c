/* bench_gen: the generated per-command encoders (specs/example.lua, generated at build time)
 * against a hand-written memcpy-only encoder, the runtime's rg_argv_encode and hiredis, in one run.
 *
 * Cases (see docs/bench-encoder.md):
 *   E1  SET, 16-byte key, 64-byte value
 *   E2  SET, 16-byte key, 4 KiB value
 *   E3  HSET user:1000 + 10 field/value pairs (8-byte fields, 16-byte values)
 *   E4  MSET, 100 key/value pairs (16-byte keys, 16-byte values)
 *   E5  SET, 16-byte key, 64-byte value, EX 100: a command's option path (option words)
 *   E6  ZADD board GT CH + 3 score/member pairs (specs/redis.lua, as E7 and E8)
 *   E7  XADD events MAXLEN ~ 1000 1700000000000-0 + 2 field/value pairs
 *   E8  GEOSEARCH Sicily FROMMEMBER Palermo BYRADIUS 200 km COUNT 10 WITHCOORD
 * Variants:
 *   gen       example_<cmd>_encode into a buffer the caller reuses (it computes the size itself)
 *   gen-size  example_<cmd>_size, then example_<cmd>_encode with exactly that capacity: what a
 *             caller does that sizes its buffer first (measures twice)
 *   gen-pipe  example_<cmd>_append into one rg_pipe over a buffer of PIPE_FLUSH + one request,
 *             reset (where a client would send the batch) once it holds PIPE_FLUSH bytes or more:
 *             a pipeline of many requests, each measured once
 *   hand      a hand-written encoder per command, the practical limit: precomputed command
 *             header, a small digit routine for the lengths, memcpy of the payloads, and the same
 *             contract (exact size first, nothing written when it does not fit)
 *   hand-pipe the hand-written encoder appending into gen-pipe's pipe, with its bookkeeping
 *   argv      rg_argv_encode over a prebuilt argv
 *   hiredis   redisFormatCommandArgv over a prebuilt argv, then redisFreeCommand
 * The target (PASS/FAIL) applies to gen and gen-pipe: a median at most 1.2x (E5-E8: 1.3x) that of
 * the hand-written encoder doing the same job (gen: hand; gen-pipe: hand-pipe, as a pipeline's own
 * bookkeeping is the same whoever encodes) and no allocation. The "x hand" column compares every
 * variant with hand.
 *
 * Before timing, every variant's bytes are compared with hiredis's for every case; any difference
 * exits with 1. Variants of one case are timed interleaved (run 1 of each, run 2 of each, ...) so
 * that the machine's load drifts over all of them alike; each run repeats the operation until it
 * lasts --min-run-ms. Allocations are counted by interposing malloc/calloc/realloc in this
 * executable (hiredis, a shared library, resolves to them too) while the timed runs are on.
 *
 * Usage: bench_gen [--runs N] [--min-run-ms MS] [--case E1..E8]
 *        bench_gen --callgrind CASE:VARIANT     (CASE e1..e8, VARIANT as above)
 *        bench_gen --callgrind-method           (prints "client" or "toggle", as bench_dec)
 * In callgrind mode CG_OPS operations run to warm up, then CG_OPS more inside the function
 * cg_region, with collection on; run under valgrind --tool=callgrind --collect-atstart=no (plus
 * --toggle-collect=cg_region when the method is "toggle"). It prints the operation count, so
 * instructions per operation = collected Ir / ops (scripts/bench.sh does this).
 */
#define _POSIX_C_SOURCE 200809L

#include "example.h"
#include "redis.h"
#include "rg_enc.h"

#include "alloc_count.h"

#include <hiredis/hiredis.h>

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
#define BENCH_CG_TOGGLE() ((void)0)
#define BENCH_CG_METHOD   "toggle"
#endif

/* The hand-written encoders are called as the generated ones, which live in another translation
 * unit: not inlined into the timing loop, where the compiler could hoist their work out of it, and
 * not cloned for these arguments (gcc's IPA would specialise them per call site). */
#if defined(__GNUC__) && !defined(__clang__)
#define BENCH_OPAQUE __attribute__((noinline, noipa))
#else
#define BENCH_OPAQUE __attribute__((noinline))
#endif

enum { MAX_PAIRS = 100, MAX_ARGS = 2 + 2 * MAX_PAIRS, MAX_RUNS = 1001, CG_OPS = 1000 };

/* The pipeline variant's batch: a client sends once its buffer holds this much (Redis' own reply
 * chunk, PROTO_REPLY_CHUNK_BYTES, is 16 KiB), then appends into the same buffer again. E1 sends
 * 153 requests a batch, E2 4, E3 41, E4 4. */
enum { PIPE_FLUSH = 16384 };

/* E5's option: SET ... EX 100. */
#define E5_SECONDS 100

/* ---- the cases ------------------------------------------------------------------------------ */

typedef enum shape {
    SHAPE_SET,
    SHAPE_HSET,
    SHAPE_MSET,
    SHAPE_SET_EX,
    SHAPE_ZADD,
    SHAPE_XADD,
    SHAPE_GEO
} shape;

/* E6-E8: options of Redis commands from specs/redis.lua (prefix rb). */
enum { ZADD_PAIRS = 3, XADD_PAIRS = 2 };

/* The pipeline variant's state: the pipe, and when it is reset (a send). */
typedef struct bench_pipe {
    rg_pipe p;
    size_t flush;
} bench_pipe;

/* One command in every form the variants take: typed arguments for the generated and hand-written
 * encoders, an argv for rg_argv_encode and hiredis's parallel arrays. Built once, never timed. */
typedef struct bench_case {
    const char *name, *what;
    shape shape;
    rg_view key, value;                /* SET: key and value; HSET: key */
    example_hset_data hset[MAX_PAIRS]; /* HSET field/value pairs */
    example_mset_data mset[MAX_PAIRS]; /* MSET key/value pairs */
    example_set_opts set_opts;         /* SET EX: the options */
    rb_zadd_data zadd[ZADD_PAIRS];     /* E6 */
    rb_zadd_opts zadd_opts;
    rg_view xadd_id; /* E7 */
    rb_xadd_id_selector xadd_sel;
    rb_xadd_data xadd[XADD_PAIRS];
    rb_xadd_opts xadd_opts;
    rb_geosearch_from geo_from; /* E8 */
    rb_geosearch_by geo_by;
    rb_geosearch_opts geo_opts;
    size_t pairs;
    size_t argc;
    rg_view argv[MAX_ARGS];
    const char *ptr[MAX_ARGS];
    size_t len[MAX_ARGS];
    char *bytes; /* owns every argument's bytes */
    char *out;   /* the reused output buffer, exactly one request long */
    char *out_block;
    size_t cap;
    bench_pipe *pipe; /* gen-pipe's pipe (mutable: the case is const to the variants) */
    bench_pipe pipe_state;
    char *pipe_block;
} bench_case;

/* Deterministic printable filler so keys and values differ from each other. */
static void fill(char *p, size_t n, unsigned seed) {
    for (size_t i = 0; i < n; i++) p[i] = (char)('a' + (seed * 31u + (unsigned)i * 7u) % 26u);
}

/* The buffers are page-aligned, the output 2 KiB off a page boundary. With malloc's placement,
 * E2's 4 KiB copies (hand-written and generated alike; hiredis writes a fresh buffer each time)
 * ran 2.5x to 6x slower in some builds and orders of cases: an aliasing effect of where these
 * fixed buffers happened to lie, not of the encoders. A fixed layout makes every run the same. */
enum { OUT_SKEW = 2048 };

static char *page_alloc(size_t n) {
    void *p = NULL;
    if (posix_memalign(&p, 4096, n) != 0) abort();
    return p;
}

static void case_finish(bench_case *c) {
    for (size_t i = 0; i < c->argc; i++) {
        c->ptr[i] = c->argv[i].ptr;
        c->len[i] = c->argv[i].len;
    }
    c->cap = rg_argv_size(c->argc, c->argv);
    c->out_block = page_alloc(OUT_SKEW + c->cap);
    c->out = c->out_block + OUT_SKEW;
    c->pipe_block = page_alloc(OUT_SKEW + PIPE_FLUSH + c->cap);
    c->pipe = &c->pipe_state;
}

static void case_arg(bench_case *c, rg_view v) {
    c->argv[c->argc++] = v;
}

/* E6-E8: the typed arguments and the argv hiredis gets for the same request. */
static void case_init_redis(bench_case *c, const char *name, const char *what, shape sh) {
    memset(c, 0, sizeof *c);
    c->name = name;
    c->what = what;
    c->shape = sh;
    c->bytes = page_alloc(4096);
    char *p = c->bytes;
    switch (sh) {
    case SHAPE_ZADD: {
        static const double scores[ZADD_PAIRS] = {1000, 1500.5, 2000};
        static const char *const score_text[ZADD_PAIRS] = {"1000", "1500.5", "2000"};
        c->key = RG_LIT("board");
        c->zadd_opts.comparison = RB_ZADD_COMPARISON_GT;
        c->zadd_opts.change = true;
        case_arg(c, RG_LIT("ZADD"));
        case_arg(c, c->key);
        case_arg(c, RG_LIT("GT"));
        case_arg(c, RG_LIT("CH"));
        for (size_t i = 0; i < ZADD_PAIRS; i++) {
            const int n = sprintf(p, "player:%04zu", i + 1);
            c->zadd[i] = (rb_zadd_data){scores[i], {p, (size_t)n}};
            case_arg(c, (rg_view){score_text[i], strlen(score_text[i])});
            case_arg(c, c->zadd[i].member);
            p += n;
        }
        c->pairs = ZADD_PAIRS;
        break;
    }
    case SHAPE_XADD:
        c->key = RG_LIT("events");
        c->xadd_opts.has_trim = true;
        c->xadd_opts.trim.strategy = RB_XADD_STRATEGY_MAXLEN;
        c->xadd_opts.trim.operator_ = RB_XADD_OPERATOR_APPROXIMATELY;
        c->xadd_opts.trim.threshold = RG_LIT("1000");
        c->xadd_id = RG_LIT("1700000000000-0");
        c->xadd_sel.kind = RB_XADD_ID_SELECTOR_ID;
        c->xadd_sel.id = c->xadd_id;
        case_arg(c, RG_LIT("XADD"));
        case_arg(c, c->key);
        case_arg(c, RG_LIT("MAXLEN"));
        case_arg(c, RG_LIT("~"));
        case_arg(c, RG_LIT("1000"));
        case_arg(c, c->xadd_id);
        for (size_t i = 0; i < XADD_PAIRS; i++) {
            fill(p, 8, (unsigned)(2 * i));
            fill(p + 8, 16, (unsigned)(2 * i + 1));
            c->xadd[i] = (rb_xadd_data){{p, 8}, {p + 8, 16}};
            case_arg(c, c->xadd[i].field);
            case_arg(c, c->xadd[i].value);
            p += 24;
        }
        c->pairs = XADD_PAIRS;
        break;
    default:
        c->key = RG_LIT("Sicily");
        c->geo_from.kind = RB_GEOSEARCH_FROM_MEMBER;
        c->geo_from.member = RG_LIT("Palermo");
        c->geo_by.kind = RB_GEOSEARCH_BY_CIRCLE;
        c->geo_by.circle.radius = 200;
        c->geo_by.circle.unit = RB_GEOSEARCH_CIRCLE_UNIT_KM;
        c->geo_opts.has_count_block = true;
        c->geo_opts.count_block.count = 10;
        c->geo_opts.withcoord = true;
        case_arg(c, RG_LIT("GEOSEARCH"));
        case_arg(c, c->key);
        case_arg(c, RG_LIT("FROMMEMBER"));
        case_arg(c, c->geo_from.member);
        case_arg(c, RG_LIT("BYRADIUS"));
        case_arg(c, RG_LIT("200"));
        case_arg(c, RG_LIT("km"));
        case_arg(c, RG_LIT("COUNT"));
        case_arg(c, RG_LIT("10"));
        case_arg(c, RG_LIT("WITHCOORD"));
        break;
    }
    case_finish(c);
}

static void case_init(bench_case *c, const char *name, const char *what, shape sh, size_t pairs,
                      size_t klen, size_t vlen) {
    static const char *const verbs[] = {"SET", "HSET", "MSET", "SET"};
    memset(c, 0, sizeof *c);
    c->name = name;
    c->what = what;
    c->shape = sh;
    c->pairs = pairs;
    c->bytes = page_alloc(pairs * (klen + vlen) + 1);
    c->argv[c->argc++] = (rg_view){verbs[sh], strlen(verbs[sh])};
    if (sh == SHAPE_HSET) c->argv[c->argc++] = c->key = RG_LIT("user:1000");
    char *p = c->bytes;
    for (size_t i = 0; i < pairs; i++) {
        fill(p, klen, (unsigned)(2 * i));
        const rg_view k = {p, klen};
        fill(p + klen, vlen, (unsigned)(2 * i + 1));
        const rg_view v = {p + klen, vlen};
        p += klen + vlen;
        c->argv[c->argc++] = k;
        c->argv[c->argc++] = v;
        c->hset[i] = (example_hset_data){k, v};
        c->mset[i] = (example_mset_data){k, v};
        if (sh == SHAPE_SET || sh == SHAPE_SET_EX) {
            c->key = k;
            c->value = v;
        }
    }
    if (sh == SHAPE_SET_EX) {
        c->argv[c->argc++] = RG_LIT("EX");
        c->argv[c->argc++] = RG_LIT("100");
        c->set_opts.expiration =
            (example_set_expiration){.kind = EXAMPLE_SET_EXPIRATION_SECONDS, .seconds = E5_SECONDS};
    }
    case_finish(c);
}

/* The pipe over the batch buffer: room for PIPE_FLUSH bytes and one more request, so an append
 * never fails; reset once PIPE_FLUSH bytes are in. */
static void pipe_batch(bench_case *c) {
    rg_pipe_init(&c->pipe->p, c->pipe_block + OUT_SKEW, PIPE_FLUSH + c->cap);
    c->pipe->flush = PIPE_FLUSH;
}

/* The pipe over the output buffer of cap bytes, reset after every request: for the byte checks. */
static void pipe_single(bench_case *c, size_t cap) {
    rg_pipe_init(&c->pipe->p, c->out, cap);
    c->pipe->flush = 1;
}

static void case_free(bench_case *c) {
    free(c->bytes);
    free(c->out_block);
    free(c->pipe_block);
}

/* ---- the hand-written encoders: the yardstick ----------------------------------------------- */

static const char g_pairs[200] =
    "00010203040506070809101112131415161718192021222324252627282930313233"
    "34353637383940414243444546474849505152535455565758596061626364656667"
    "6869707172737475767778798081828384858687888990919293949596979899";

/* Digits of a length. Arguments are short: below 10000 the count is three compares summed, no
 * branch; longer ones take the loop. */
static inline size_t hand_digits(size_t v) {
    if (v >= 10000) {
        size_t n = 5;
        for (v /= 100000; v; v /= 10) n++;
        return n;
    }
    return 1 + (v >= 10) + (v >= 100) + (v >= 1000);
}

/* v in decimal, n = hand_digits(v) characters, written backwards two digits at a time. */
static char *hand_put_digits(char *p, size_t v, size_t n) {
    char *const end = p + n;
    char *q = end;
    while (v >= 100) {
        q -= 2;
        memcpy(q, g_pairs + 2 * (v % 100), 2);
        v /= 100;
    }
    if (v >= 10) {
        memcpy(q - 2, g_pairs + 2 * v, 2);
    } else {
        q[-1] = (char)('0' + v);
    }
    return end;
}

/* "$<len>\r\n" "<bytes>" "\r\n" minus the payload: 5 bytes plus the digits. */
static inline size_t hand_bulk_overhead(size_t len) {
    return 5 + hand_digits(len);
}

/* Payload bytes: up to 32 as two overlapping fixed-size moves each way (no call), longer ones
 * through memcpy. */
static inline void hand_copy(char *dst, const char *src, size_t len) {
    if (len > 32) {
        memcpy(dst, src, len);
    } else if (len >= 16) {
        memcpy(dst, src, 16);
        memcpy(dst + len - 16, src + len - 16, 16);
    } else if (len >= 8) {
        memcpy(dst, src, 8);
        memcpy(dst + len - 8, src + len - 8, 8);
    } else if (len >= 4) {
        memcpy(dst, src, 4);
        memcpy(dst + len - 4, src + len - 4, 4);
    } else if (len != 0) {
        dst[0] = src[0];
        dst[len / 2] = src[len / 2];
        dst[len - 1] = src[len - 1];
    }
}

/* "$<len>\r\n": lengths below 100 from the two-digit table without a digit loop. */
static inline char *hand_put_bulk_header(char *p, size_t len) {
    *p = '$';
    if (len < 10) {
        p[1] = (char)('0' + len);
        p += 2;
    } else if (len < 100) {
        memcpy(p + 1, g_pairs + 2 * len, 2);
        p += 3;
    } else {
        p = hand_put_digits(p + 1, len, hand_digits(len));
    }
    memcpy(p, "\r\n", 2);
    return p + 2;
}

static inline char *hand_put_bulk(char *p, rg_view v) {
    p = hand_put_bulk_header(p, v.len);
    hand_copy(p, v.ptr, v.len);
    p += v.len;
    memcpy(p, "\r\n", 2);
    return p + 2;
}

BENCH_OPAQUE static size_t hand_set(char *dst, size_t cap, rg_view key, rg_view value) {
    static const char head[] = "*3\r\n$3\r\nSET\r\n";
    const size_t n = sizeof head - 1 + hand_bulk_overhead(key.len) + key.len +
                     hand_bulk_overhead(value.len) + value.len;
    if (n > cap) return 0;
    memcpy(dst, head, sizeof head - 1);
    char *p = hand_put_bulk(dst + sizeof head - 1, key);
    hand_put_bulk(p, value);
    return n;
}

/* SET key value EX seconds (seconds >= 0): the header and "EX" as literals, the number's digits
 * counted and written as a length's. */
BENCH_OPAQUE static size_t hand_set_ex(char *dst, size_t cap, rg_view key, rg_view value,
                                       int64_t seconds) {
    static const char head[] = "*5\r\n$3\r\nSET\r\n";
    static const char ex[] = "$2\r\nEX\r\n";
    const size_t secs = (size_t)seconds, digits = hand_digits(secs);
    const size_t n = sizeof head - 1 + hand_bulk_overhead(key.len) + key.len +
                     hand_bulk_overhead(value.len) + value.len + sizeof ex - 1 +
                     hand_bulk_overhead(digits) + digits;
    if (n > cap) return 0;
    memcpy(dst, head, sizeof head - 1);
    char *p = hand_put_bulk(dst + sizeof head - 1, key);
    p = hand_put_bulk(p, value);
    memcpy(p, ex, sizeof ex - 1);
    p = hand_put_bulk_header(p + sizeof ex - 1, digits);
    p = hand_put_digits(p, secs, digits);
    memcpy(p, "\r\n", 2);
    return n;
}

/* HSET and MSET: "*<argc>\r\n" from the pair count, then the precomputed command bulk. */
static inline size_t hand_pairs_size(size_t fixed, const rg_view *kv, size_t pairs) {
    size_t n = fixed;
    for (size_t i = 0; i < 2 * pairs; i++) n += hand_bulk_overhead(kv[i].len) + kv[i].len;
    return n;
}

static inline char *hand_put_array(char *p, size_t argc) {
    *p = '*';
    p = hand_put_digits(p + 1, argc, hand_digits(argc));
    memcpy(p, "\r\n", 2);
    return p + 2;
}

BENCH_OPAQUE static size_t hand_hset(char *dst, size_t cap, rg_view key,
                                     const example_hset_data *data, size_t pairs) {
    static const char verb[] = "$4\r\nHSET\r\n";
    const size_t argc = 2 + 2 * pairs;
    const size_t fixed =
        3 + hand_digits(argc) + sizeof verb - 1 + hand_bulk_overhead(key.len) + key.len;
    /* example_hset_data is two rg_views, so the pairs are a flat array of 2 * pairs views. */
    const size_t n = hand_pairs_size(fixed, &data[0].field, pairs);
    if (n > cap) return 0;
    char *p = hand_put_array(dst, argc);
    memcpy(p, verb, sizeof verb - 1);
    p = hand_put_bulk(p + sizeof verb - 1, key);
    for (size_t i = 0; i < pairs; i++) {
        p = hand_put_bulk(p, data[i].field);
        p = hand_put_bulk(p, data[i].value);
    }
    return n;
}

BENCH_OPAQUE static size_t hand_mset(char *dst, size_t cap, const example_mset_data *data,
                                     size_t pairs) {
    static const char verb[] = "$4\r\nMSET\r\n";
    const size_t argc = 1 + 2 * pairs;
    const size_t fixed = 3 + hand_digits(argc) + sizeof verb - 1;
    const size_t n = hand_pairs_size(fixed, &data[0].key, pairs);
    if (n > cap) return 0;
    char *p = hand_put_array(dst, argc);
    memcpy(p, verb, sizeof verb - 1);
    p += sizeof verb - 1;
    for (size_t i = 0; i < pairs; i++) {
        p = hand_put_bulk(p, data[i].key);
        p = hand_put_bulk(p, data[i].value);
    }
    return n;
}

/* E6-E8. Doubles are formatted once each by the runtime's formatter (rg_fmt_double, the shortest
 * form that reads back), into a local buffer that sizes and is copied: the formatting is not what
 * the cases compare. */

/* ZADD key GT CH score member ... */
BENCH_OPAQUE static size_t hand_zadd_gt_ch(char *dst, size_t cap, rg_view key,
                                           const rb_zadd_data *data, size_t pairs) {
    static const char verb[] = "$4\r\nZADD\r\n";
    static const char opts[] = "$2\r\nGT\r\n$2\r\nCH\r\n";
    char num[ZADD_PAIRS][RG_DOUBLE_MAX_LEN];
    size_t num_len[ZADD_PAIRS];
    if (pairs > ZADD_PAIRS) return 0;
    const size_t argc = 4 + 2 * pairs;
    size_t n = 3 + hand_digits(argc) + sizeof verb - 1 + hand_bulk_overhead(key.len) + key.len +
               sizeof opts - 1;
    for (size_t i = 0; i < pairs; i++) {
        num_len[i] = rg_fmt_double(num[i], data[i].score);
        n += hand_bulk_overhead(num_len[i]) + num_len[i] + hand_bulk_overhead(data[i].member.len) +
             data[i].member.len;
    }
    if (n > cap) return 0;
    char *p = hand_put_array(dst, argc);
    memcpy(p, verb, sizeof verb - 1);
    p = hand_put_bulk(p + sizeof verb - 1, key);
    memcpy(p, opts, sizeof opts - 1);
    p += sizeof opts - 1;
    for (size_t i = 0; i < pairs; i++) {
        p = hand_put_bulk(p, (rg_view){num[i], num_len[i]});
        p = hand_put_bulk(p, data[i].member);
    }
    return n;
}

/* XADD key MAXLEN ~ threshold id field value ... */
BENCH_OPAQUE static size_t hand_xadd_maxlen(char *dst, size_t cap, rg_view key, rg_view threshold,
                                            rg_view id, const rb_xadd_data *data, size_t pairs) {
    static const char verb[] = "$4\r\nXADD\r\n";
    static const char trim[] = "$6\r\nMAXLEN\r\n$1\r\n~\r\n";
    const size_t argc = 6 + 2 * pairs;
    const size_t fixed = 3 + hand_digits(argc) + sizeof verb - 1 + hand_bulk_overhead(key.len) +
                         key.len + sizeof trim - 1 + hand_bulk_overhead(threshold.len) +
                         threshold.len + hand_bulk_overhead(id.len) + id.len;
    const size_t n = hand_pairs_size(fixed, &data[0].field, pairs);
    if (n > cap) return 0;
    char *p = hand_put_array(dst, argc);
    memcpy(p, verb, sizeof verb - 1);
    p = hand_put_bulk(p + sizeof verb - 1, key);
    memcpy(p, trim, sizeof trim - 1);
    p = hand_put_bulk(p + sizeof trim - 1, threshold);
    p = hand_put_bulk(p, id);
    for (size_t i = 0; i < pairs; i++) {
        p = hand_put_bulk(p, data[i].field);
        p = hand_put_bulk(p, data[i].value);
    }
    return n;
}

/* GEOSEARCH key FROMMEMBER member BYRADIUS radius km COUNT count WITHCOORD (count >= 0) */
BENCH_OPAQUE static size_t hand_geosearch(char *dst, size_t cap, rg_view key, rg_view member,
                                          double radius, int64_t count) {
    static const char head[] = "*10\r\n$9\r\nGEOSEARCH\r\n";
    static const char from[] = "$10\r\nFROMMEMBER\r\n";
    static const char by[] = "$8\r\nBYRADIUS\r\n";
    static const char km_count[] = "$2\r\nkm\r\n$5\r\nCOUNT\r\n";
    static const char with[] = "$9\r\nWITHCOORD\r\n";
    char num[RG_DOUBLE_MAX_LEN];
    const size_t num_len = rg_fmt_double(num, radius);
    const size_t cnt = (size_t)count, digits = hand_digits(cnt);
    const size_t n = sizeof head - 1 + hand_bulk_overhead(key.len) + key.len + sizeof from - 1 +
                     hand_bulk_overhead(member.len) + member.len + sizeof by - 1 +
                     hand_bulk_overhead(num_len) + num_len + sizeof km_count - 1 +
                     hand_bulk_overhead(digits) + digits + sizeof with - 1;
    if (n > cap) return 0;
    memcpy(dst, head, sizeof head - 1);
    char *p = hand_put_bulk(dst + sizeof head - 1, key);
    memcpy(p, from, sizeof from - 1);
    p = hand_put_bulk(p + sizeof from - 1, member);
    memcpy(p, by, sizeof by - 1);
    p = hand_put_bulk(p + sizeof by - 1, (rg_view){num, num_len});
    memcpy(p, km_count, sizeof km_count - 1);
    p = hand_put_bulk_header(p + sizeof km_count - 1, digits);
    p = hand_put_digits(p, cnt, digits);
    memcpy(p, "\r\n", 2);
    memcpy(p + 2, with, sizeof with - 1);
    return n;
}

_Static_assert(sizeof(rb_xadd_data) == 2 * sizeof(rg_view),
               "hand_xadd_maxlen reads the pairs as a flat array of views");

_Static_assert(sizeof(example_hset_data) == 2 * sizeof(rg_view) &&
                   sizeof(example_mset_data) == 2 * sizeof(rg_view),
               "the hand-written encoders read the pairs as a flat array of views");

/* ---- the variants: one operation each, returning the request size ---------------------------- */

/* Each inlined into its timing loop, whose switch on the shape is then the same branch every
 * time: with eight shapes gcc stopped inlining them, and the extra call cost the generated E1
 * 8 instructions and 1.5 ns against the hand-written's 0. */
#if defined(__GNUC__)
#define BENCH_ONCE static inline __attribute__((always_inline))
#else
#define BENCH_ONCE static inline
#endif

BENCH_ONCE size_t gen_once(const bench_case *c) {
    switch (c->shape) {
    case SHAPE_SET: return example_set_encode(c->out, c->cap, c->key, c->value, NULL);
    case SHAPE_SET_EX: return example_set_encode(c->out, c->cap, c->key, c->value, &c->set_opts);
    case SHAPE_HSET: return example_hset_encode(c->out, c->cap, c->key, c->hset, c->pairs);
    case SHAPE_ZADD:
        return rb_zadd_encode(c->out, c->cap, c->key, c->zadd, c->pairs, &c->zadd_opts);
    case SHAPE_XADD:
        return rb_xadd_encode(c->out, c->cap, c->key, c->xadd_sel, c->xadd, c->pairs,
                              &c->xadd_opts);
    case SHAPE_GEO:
        return rb_geosearch_encode(c->out, c->cap, c->key, c->geo_from, c->geo_by, &c->geo_opts);
    default: return example_mset_encode(c->out, c->cap, c->mset, c->pairs);
    }
}

BENCH_ONCE size_t gen_size_once(const bench_case *c) {
    size_t n;
    switch (c->shape) {
    case SHAPE_SET:
        n = example_set_size(c->key, c->value, NULL);
        if (n == 0 || n > c->cap) abort();
        return example_set_encode(c->out, n, c->key, c->value, NULL);
    case SHAPE_SET_EX:
        n = example_set_size(c->key, c->value, &c->set_opts);
        if (n == 0 || n > c->cap) abort();
        return example_set_encode(c->out, n, c->key, c->value, &c->set_opts);
    case SHAPE_HSET:
        n = example_hset_size(c->key, c->hset, c->pairs);
        if (n == 0 || n > c->cap) abort();
        return example_hset_encode(c->out, n, c->key, c->hset, c->pairs);
    case SHAPE_ZADD:
        n = rb_zadd_size(c->key, c->zadd, c->pairs, &c->zadd_opts);
        if (n == 0 || n > c->cap) abort();
        return rb_zadd_encode(c->out, n, c->key, c->zadd, c->pairs, &c->zadd_opts);
    case SHAPE_XADD:
        n = rb_xadd_size(c->key, c->xadd_sel, c->xadd, c->pairs, &c->xadd_opts);
        if (n == 0 || n > c->cap) abort();
        return rb_xadd_encode(c->out, n, c->key, c->xadd_sel, c->xadd, c->pairs, &c->xadd_opts);
    case SHAPE_GEO:
        n = rb_geosearch_size(c->key, c->geo_from, c->geo_by, &c->geo_opts);
        if (n == 0 || n > c->cap) abort();
        return rb_geosearch_encode(c->out, n, c->key, c->geo_from, c->geo_by, &c->geo_opts);
    default:
        n = example_mset_size(c->mset, c->pairs);
        if (n == 0 || n > c->cap) abort();
        return example_mset_encode(c->out, n, c->mset, c->pairs);
    }
}

/* One request appended to the case's pipe; once the batch is full the pipe is reset, where a
 * client would send it. */
BENCH_ONCE size_t gen_pipe_once(const bench_case *c) {
    rg_pipe *const p = &c->pipe->p;
    size_t n;
    switch (c->shape) {
    case SHAPE_SET: n = example_set_append(p, c->key, c->value, NULL); break;
    case SHAPE_SET_EX: n = example_set_append(p, c->key, c->value, &c->set_opts); break;
    case SHAPE_HSET: n = example_hset_append(p, c->key, c->hset, c->pairs); break;
    case SHAPE_ZADD: n = rb_zadd_append(p, c->key, c->zadd, c->pairs, &c->zadd_opts); break;
    case SHAPE_XADD:
        n = rb_xadd_append(p, c->key, c->xadd_sel, c->xadd, c->pairs, &c->xadd_opts);
        break;
    case SHAPE_GEO: n = rb_geosearch_append(p, c->key, c->geo_from, c->geo_by, &c->geo_opts); break;
    default: n = example_mset_append(p, c->mset, c->pairs); break;
    }
    if (p->len >= c->pipe->flush) rg_pipe_reset(p);
    return n;
}

BENCH_ONCE size_t hand_once(const bench_case *c) {
    switch (c->shape) {
    case SHAPE_SET: return hand_set(c->out, c->cap, c->key, c->value);
    case SHAPE_SET_EX:
        return hand_set_ex(c->out, c->cap, c->key, c->value, c->set_opts.expiration.seconds);
    case SHAPE_HSET: return hand_hset(c->out, c->cap, c->key, c->hset, c->pairs);
    case SHAPE_ZADD: return hand_zadd_gt_ch(c->out, c->cap, c->key, c->zadd, c->pairs);
    case SHAPE_XADD:
        return hand_xadd_maxlen(c->out, c->cap, c->key, c->xadd_opts.trim.threshold, c->xadd_id,
                                c->xadd, c->pairs);
    case SHAPE_GEO:
        return hand_geosearch(c->out, c->cap, c->key, c->geo_from.member, c->geo_by.circle.radius,
                              c->geo_opts.count_block.count);
    default: return hand_mset(c->out, c->cap, c->mset, c->pairs);
    }
}

/* The hand-written encoders appending into gen-pipe's pipe with the same bookkeeping (room, end,
 * commit, the reset): what a pipeline costs whoever encodes. */
BENCH_ONCE size_t hand_pipe_once(const bench_case *c) {
    rg_pipe *const p = &c->pipe->p;
    char *const dst = rg_pipe_end(p);
    const size_t room = rg_pipe_room(p);
    size_t n;
    switch (c->shape) {
    case SHAPE_SET: n = hand_set(dst, room, c->key, c->value); break;
    case SHAPE_SET_EX:
        n = hand_set_ex(dst, room, c->key, c->value, c->set_opts.expiration.seconds);
        break;
    case SHAPE_HSET: n = hand_hset(dst, room, c->key, c->hset, c->pairs); break;
    case SHAPE_ZADD: n = hand_zadd_gt_ch(dst, room, c->key, c->zadd, c->pairs); break;
    case SHAPE_XADD:
        n = hand_xadd_maxlen(dst, room, c->key, c->xadd_opts.trim.threshold, c->xadd_id, c->xadd,
                             c->pairs);
        break;
    case SHAPE_GEO:
        n = hand_geosearch(dst, room, c->key, c->geo_from.member, c->geo_by.circle.radius,
                           c->geo_opts.count_block.count);
        break;
    default: n = hand_mset(dst, room, c->mset, c->pairs); break;
    }
    rg_pipe_commit(p, n);
    if (p->len >= c->pipe->flush) rg_pipe_reset(p);
    return n;
}

BENCH_ONCE size_t argv_once(const bench_case *c) {
    return rg_argv_encode(c->out, c->cap, c->argc, c->argv);
}

/* hiredis 0.14 declares argv as const char ** though it only reads it. */
BENCH_ONCE size_t hiredis_once(const bench_case *c) {
    char *cmd;
    const int n = redisFormatCommandArgv(&cmd, (int)c->argc, (const char **)c->ptr, c->len);
    if (n < 0) abort();
    redisFreeCommand(cmd);
    return (size_t)n;
}

/* The timed loops: one direct call per operation (the switch on the shape is the same branch
 * every time), so the loop adds the same small cost to every variant. */
#define BENCH_LOOP(name, once)                                \
    static uint64_t name(const bench_case *c, uint64_t ops) { \
        uint64_t acc = 0;                                     \
        for (uint64_t i = 0; i < ops; i++) acc += once(c);    \
        return acc;                                           \
    }
BENCH_LOOP(loop_gen, gen_once)
BENCH_LOOP(loop_gen_size, gen_size_once)
BENCH_LOOP(loop_gen_pipe, gen_pipe_once)
BENCH_LOOP(loop_hand, hand_once)
BENCH_LOOP(loop_hand_pipe, hand_pipe_once)
BENCH_LOOP(loop_argv, argv_once)
BENCH_LOOP(loop_hiredis, hiredis_once)

typedef enum variant_id {
    V_GEN,
    V_GEN_SIZE,
    V_GEN_PIPE,
    V_HAND,
    V_HAND_PIPE,
    V_ARGV,
    V_HIREDIS,
    V_COUNT
} variant_id;

typedef struct variant {
    const char *name; /* as --callgrind takes it */
    const char *label;
    uint64_t (*loop)(const bench_case *c, uint64_t ops);
    bool targeted;
    variant_id base; /* what a targeted variant is held to */
} variant;

static const variant g_variants[V_COUNT] = {
    [V_GEN] = {"gen", "gen encode", loop_gen, true, V_HAND},
    [V_GEN_SIZE] = {"gen-size", "gen size+encode", loop_gen_size, false, V_HAND},
    [V_GEN_PIPE] = {"gen-pipe", "gen append (pipe)", loop_gen_pipe, true, V_HAND_PIPE},
    [V_HAND] = {"hand", "hand-written", loop_hand, false, V_HAND},
    [V_HAND_PIPE] = {"hand-pipe", "hand-written (pipe)", loop_hand_pipe, false, V_HAND},
    [V_ARGV] = {"argv", "rg_argv_encode", loop_argv, false, V_HAND},
    [V_HIREDIS] = {"hiredis", "hiredis FormatArgv", loop_hiredis, false, V_HAND},
};

#define TARGET_RATIO 1.2
/* Requests with options (E5-E8): issue 24. */
#define TARGET_RATIO_OPTS 1.3

/* The cases, in order; the target applies to the first TARGET_CASES, TARGET_RATIO_OPTS to the
 * rest. */
enum { NCASES = 8, TARGET_CASES = 4 };

static void case_make(bench_case *c, size_t i) {
    switch (i) {
    case 0: case_init(c, "E1", "SET 16 B key, 64 B value", SHAPE_SET, 1, 16, 64); break;
    case 1: case_init(c, "E2", "SET 16 B key, 4 KiB value", SHAPE_SET, 1, 16, 4096); break;
    case 2: case_init(c, "E3", "HSET key + 10 field/value", SHAPE_HSET, 10, 8, 16); break;
    case 3: case_init(c, "E4", "MSET 100 pairs 16 B / 16 B", SHAPE_MSET, 100, 16, 16); break;
    case 4: case_init(c, "E5", "SET 16 B / 64 B, EX 100", SHAPE_SET_EX, 1, 16, 64); break;
    case 5: case_init_redis(c, "E6", "ZADD GT CH + 3 pairs", SHAPE_ZADD); break;
    case 6: case_init_redis(c, "E7", "XADD MAXLEN ~ 1000 id + 2", SHAPE_XADD); break;
    default: case_init_redis(c, "E8", "GEOSEARCH BYRADIUS COUNT", SHAPE_GEO); break;
    }
}

/* ---- output check --------------------------------------------------------------------------- */

/* Every variant writes exactly hiredis's bytes, or nothing here is worth timing. */
static bool check_case(bench_case *c) {
    char *want;
    const int wn = redisFormatCommandArgv(&want, (int)c->argc, (const char **)c->ptr, c->len);
    bool ok = wn > 0 && (size_t)wn == c->cap;
    size_t (*const once[])(const bench_case *) = {
        [V_GEN] = gen_once,   [V_GEN_SIZE] = gen_size_once,   [V_GEN_PIPE] = gen_pipe_once,
        [V_HAND] = hand_once, [V_HAND_PIPE] = hand_pipe_once, [V_ARGV] = argv_once};
    pipe_single(c, c->cap);
    for (size_t v = 0; ok && v < V_HIREDIS; v++) {
        memset(c->out, 0, c->cap);
        const size_t n = once[v](c);
        if (n != c->cap || memcmp(c->out, want, c->cap) != 0) {
            fprintf(stderr, "bench_gen: %s: %s wrote %zu bytes that differ from hiredis's %d\n",
                    c->name, g_variants[v].name, n, wn);
            ok = false;
        }
    }
    /* A buffer one byte short gets nothing (gen-size sizes its own buffer). */
    c->cap--;
    pipe_single(c, c->cap);
    for (size_t v = 0; ok && v < V_HIREDIS; v++) {
        if (v == V_GEN_SIZE) continue;
        memset(c->out, 0, c->cap);
        size_t dirty = 0;
        const size_t n = once[v](c);
        for (size_t i = 0; i < c->cap; i++) dirty |= (unsigned char)c->out[i];
        if (n != 0 || dirty != 0) {
            fprintf(stderr, "bench_gen: %s: %s wrote into a buffer one byte short\n", c->name,
                    g_variants[v].name);
            ok = false;
        }
    }
    c->cap++;
    pipe_batch(c);
    if (wn > 0) redisFreeCommand(want);
    return ok;
}

/* ---- timing --------------------------------------------------------------------------------- */

/* Many short runs: on a loaded machine a run that a context switch or another process's burst
 * lands in is an outlier, and the shorter the runs, the fewer of them it hits, so the median is
 * the undisturbed speed. */
static unsigned g_runs = 101;
static double g_min_run_ms = 0.5;
static volatile uint64_t g_sink;

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct result {
    double med_ns, min_ns, allocs;
} result;

/* Operations per run so that a run lasts about g_min_run_ms. */
static uint64_t calibrate(const variant *v, const bench_case *c) {
    const double want = g_min_run_ms * 1e6;
    uint64_t ops = 16;
    for (;;) {
        const uint64_t t0 = now_ns();
        g_sink += v->loop(c, ops);
        const double dt = (double)(now_ns() - t0);
        if (dt >= want / 4) return (uint64_t)((double)ops * want / dt) + 1;
        ops *= 4;
    }
}

static void measure_case(const bench_case *c, result res[V_COUNT]) {
    uint64_t ops[V_COUNT], allocs[V_COUNT] = {0};
    static double ns[V_COUNT][MAX_RUNS];
    for (size_t v = 0; v < V_COUNT; v++) ops[v] = calibrate(&g_variants[v], c);
    for (unsigned r = 0; r < g_runs; r++) {
        for (size_t v = 0; v < V_COUNT; v++) {
            const uint64_t a0 = g_allocs;
            g_count_allocs = 1;
            const uint64_t t0 = now_ns();
            g_sink += g_variants[v].loop(c, ops[v]);
            const uint64_t dt = now_ns() - t0;
            g_count_allocs = 0;
            allocs[v] += g_allocs - a0;
            ns[v][r] = (double)dt / (double)ops[v];
        }
    }
    for (size_t v = 0; v < V_COUNT; v++) {
        qsort(ns[v], g_runs, sizeof ns[v][0], cmp_double);
        res[v].med_ns =
            g_runs % 2 ? ns[v][g_runs / 2] : (ns[v][g_runs / 2 - 1] + ns[v][g_runs / 2]) / 2;
        res[v].min_ns = ns[v][0];
        res[v].allocs = (double)allocs[v] / ((double)ops[v] * g_runs);
    }
}

static void cpu_model(char *out, size_t n) {
    snprintf(out, n, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            char *colon = strchr(line, ':');
            if (colon) {
                colon += 1 + (colon[1] == ' ');
                colon[strcspn(colon, "\n")] = 0;
                snprintf(out, n, "%s", colon);
            }
            break;
        }
    }
    fclose(f);
}

static void print_header(void) {
    char cpu[256], date[64];
    cpu_model(cpu, sizeof cpu);
    const time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", &tm);
    printf("bench_gen  %s  cpu: %s  nproc: %ld\n", date, cpu, sysconf(_SC_NPROCESSORS_ONLN));
    printf("compiler: %s  hiredis %d.%d.%d  runs: %u (median, min; a run lasts >= %.1f ms)%s\n",
           __VERSION__, HIREDIS_MAJOR, HIREDIS_MINOR, HIREDIS_PATCH, g_runs, g_min_run_ms,
           BENCH_ALLOC_COUNTING ? "" : "  [allocation counting disabled]");
    printf(
        "target: within %.1fx (E5-E8: %.1fx) of the hand-written variant doing the same job (gen:"
        " hand-written, gen-pipe: hand-written (pipe)), zero allocations\n\n",
        TARGET_RATIO, TARGET_RATIO_OPTS);
    printf("%-4s %-27s %6s  %-19s %9s %9s %8s %9s %10s  %s\n", "case", "what", "bytes", "variant",
           "med ns/op", "min ns/op", "x hand", "hi/this", "allocs/op", "target");
}

static int run_table(const char *only) {
    static bench_case cases[NCASES];
    for (size_t i = 0; i < NCASES; i++) case_make(&cases[i], i);
    bool same = true;
    for (size_t i = 0; i < NCASES; i++) same &= check_case(&cases[i]);
    if (!same) return 1;

    print_header();
    char missed[V_COUNT][32] = {{0}}; /* per targeted variant, the cases that missed */
    for (size_t i = 0; i < NCASES; i++) {
        const bench_case *c = &cases[i];
        if (only && strcmp(only, c->name) != 0) continue;
        result res[V_COUNT];
        measure_case(c, res);
        const double hand = res[V_HAND].med_ns, hi = res[V_HIREDIS].med_ns;
        for (size_t v = 0; v < V_COUNT; v++) {
            const variant *va = &g_variants[v];
            const double ratio = res[v].med_ns / hand;
            char target[48] = "";
            if (va->targeted) {
                const double held = res[v].med_ns / res[va->base].med_ns;
                const double limit = i < TARGET_CASES ? TARGET_RATIO : TARGET_RATIO_OPTS;
                const bool pass = held <= limit && res[v].allocs == 0;
                snprintf(target, sizeof target, "%s %.2fx %s", pass ? "PASS" : "FAIL", held,
                         g_variants[va->base].name);
                if (!pass) snprintf(missed[v] + strlen(missed[v]), 4, " %s", c->name);
            }
            printf("%-4s %-27s %6zu  %-19s %9.1f %9.1f %7.2fx %8.1fx %10.4f  %s\n",
                   v == 0 ? c->name : "", v == 0 ? c->what : "", c->cap, va->label, res[v].med_ns,
                   res[v].min_ns, ratio, hi / res[v].med_ns, res[v].allocs, target);
        }
        fflush(stdout);
    }
    printf("\nbytes: every variant wrote exactly hiredis's bytes for every case\n");
    printf("E5-E8 (requests with options) are held to %.1fx\n", TARGET_RATIO_OPTS);
    for (size_t v = 0; v < V_COUNT; v++) {
        if (!g_variants[v].targeted) continue;
        printf("target, %s: %s%s\n", g_variants[v].label, missed[v][0] ? "missed on" : "met",
               missed[v]);
    }
    for (size_t i = 0; i < NCASES; i++) case_free(&cases[i]);
    return 0;
}

/* ---- callgrind mode ------------------------------------------------------------------------- */

/* With --toggle-collect=cg_region (no client requests) this function is the measured region. */
__attribute__((noinline)) uint64_t cg_region(const variant *v, const bench_case *c, uint64_t ops);
__attribute__((noinline)) uint64_t cg_region(const variant *v, const bench_case *c, uint64_t ops) {
    return v->loop(c, ops);
}

static int run_callgrind(const char *spec) {
    static bench_case c;
    const char *colon = strchr(spec, ':');
    if (!colon || colon - spec != 2 || spec[0] != 'e' || spec[1] < '1' || spec[1] > '0' + NCASES) {
        fprintf(stderr, "bench_gen: --callgrind wants CASE:VARIANT, e.g. e1:gen, not '%s'\n", spec);
        return 2;
    }
    const variant *v = NULL;
    for (size_t i = 0; i < V_COUNT; i++)
        if (strcmp(colon + 1, g_variants[i].name) == 0) v = &g_variants[i];
    if (!v) {
        fprintf(stderr, "bench_gen: unknown variant '%s'\n", colon + 1);
        return 2;
    }
    case_make(&c, (size_t)(spec[1] - '1'));
    if (!check_case(&c)) return 1;
    g_sink += v->loop(&c, CG_OPS); /* warm-up: lazy binding, allocator set-up, caches */
    BENCH_CG_TOGGLE();
    const uint64_t acc = cg_region(v, &c, CG_OPS);
    BENCH_CG_TOGGLE();
    if (acc != (uint64_t)CG_OPS * c.cap) {
        fprintf(stderr, "bench_gen: %s wrote %llu bytes in %d ops, not %zu each\n", spec,
                (unsigned long long)acc, CG_OPS, c.cap);
        return 1;
    }
    printf("callgrind %s (%s) ops %d bytes %zu\n", spec, v->label, CG_OPS, c.cap);
    case_free(&c);
    return 0;
}

int main(int argc, char **argv) {
    const char *only = NULL, *cg = NULL;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(arg, "--runs") == 0 && val) {
            g_runs = (unsigned)strtoul(val, NULL, 10);
            if (g_runs < 1) g_runs = 1;
            if (g_runs > MAX_RUNS) g_runs = MAX_RUNS;
            i++;
        } else if (strcmp(arg, "--min-run-ms") == 0 && val) {
            g_min_run_ms = strtod(val, NULL);
            i++;
        } else if (strcmp(arg, "--case") == 0 && val) {
            only = val;
            if (strlen(only) != 2 || only[0] != 'E' || only[1] < '1' || only[1] > '0' + NCASES) {
                fprintf(stderr, "bench_gen: --case wants E1 .. E8, not '%s'\n", only);
                return 2;
            }
            i++;
        } else if (strcmp(arg, "--callgrind") == 0 && val) {
            cg = val;
            i++;
        } else if (strcmp(arg, "--callgrind-method") == 0) {
            puts(BENCH_CG_METHOD);
            return 0;
        } else {
            fprintf(stderr,
                    "usage: %s [--runs N] [--min-run-ms MS] [--case E1..E8]\n"
                    "       %s --callgrind e1..e8:gen|gen-size|gen-pipe|hand|hand-pipe|argv|"
                    "hiredis\n"
                    "       %s --callgrind-method\n",
                    argv[0], argv[0], argv[0]);
            return 2;
        }
    }
    return cg ? run_callgrind(cg) : run_table(only);
}
