/* Property test of generated encoders over random (seeded) arguments. For every request:
 *   - size == encode's return == the bytes written, and nothing past them is touched;
 *   - encode with cap = size - 1 returns 0 and writes nothing, try_encode returns size and writes
 *     nothing; appended twice to a pipe (owned, grown from its smallest size) the request is there
 *     twice, the same bytes;
 *   - the bytes equal rg_argv_encode of the words the arguments stand for, built here
 *     independently of the generated code;
 *   - rg_next decodes them back to exactly those words (an array of bulk strings);
 *   - the iovec variant needs exactly iov_count entries and scratch_size bytes, refuses one less
 *     of either, its entries concatenate to the same bytes, strings of RG_IOV_COPY_MIN bytes
 *     or more are referenced in place, and the split matches rg_argv_encode_iov's.
 * The seed is printed first; RG_SEED=<n> in the environment picks another one. */
#include "combinators.h"
#include "example.h"
#include "kinds.h"
#include "rg_dec.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define ITERATIONS 1500
#define MAX_WORDS  256
#define MAX_LIST   6
#define ARENA_SIZE (256 * 1024)
#define BIG_STRING 1500 /* above RG_IOV_COPY_MIN: referenced by the iovec variant */
#define CANARY     0x5a

/* ---- deterministic randomness (xorshift64*) ---- */

typedef struct rng {
    uint64_t s;
} rng;

static uint64_t next_u64(rng *r) {
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 2685821657736338717ull;
}

static size_t below(rng *r, size_t n) {
    return (size_t)(next_u64(r) % n);
}

static int chance(rng *r, unsigned percent) {
    return below(r, 100) < percent;
}

/* ---- one random request: its words and the memory behind its strings ---- */

typedef struct req {
    rng *r;
    rg_view words[MAX_WORDS];
    size_t count;
    char arena[ARENA_SIZE];
    size_t used;
} req;

static char *take(req *q, size_t n) {
    assert_true(q->used + n <= sizeof q->arena);
    char *p = q->arena + q->used;
    q->used += n;
    return p;
}

static void word(req *q, rg_view v) {
    assert_true(q->count < MAX_WORDS);
    q->words[q->count++] = v;
}

static void word_lit(req *q, const char *s) {
    word(q, (rg_view){s, strlen(s)});
}

/* A random string, sometimes empty, with CR/LF and NUL, sometimes big. */
static rg_view rand_string(req *q) {
    static const char alphabet[] = "abcXYZ019 \r\n*$:-_\0\xff";
    const size_t len = chance(q->r, 3) ? BIG_STRING : below(q->r, 12);
    char *p = take(q, len + 1);
    for (size_t i = 0; i < len; i++) p[i] = alphabet[below(q->r, sizeof alphabet - 1)];
    return (rg_view){len ? p : NULL, len};
}

static rg_view string_word(req *q) {
    const rg_view v = rand_string(q);
    word(q, v);
    return v;
}

static int64_t rand_i64(rng *r) {
    static const int64_t edges[] = {0, 1, -1, 9, 10, -10, INT64_MAX, INT64_MIN, 99999};
    if (chance(r, 30)) return edges[below(r, sizeof edges / sizeof edges[0])];
    return (int64_t)next_u64(r) >> below(r, 63);
}

static int64_t i64_word(req *q) {
    const int64_t v = rand_i64(q->r);
    char *p = take(q, RG_I64_MAX_LEN);
    word(q, (rg_view){p, (size_t)(rg_put_i64(p, v) - p)});
    return v;
}

static double rand_double(rng *r) {
    static const double edges[] = {0.0, -0.0, 1.5, -2.25, 1e300, 5e-324, INFINITY, -INFINITY};
    if (chance(r, 30)) return edges[below(r, sizeof edges / sizeof edges[0])];
    uint64_t bits = next_u64(r);
    double d;
    memcpy(&d, &bits, sizeof d);
    return isnan(d) ? 0.1 : d;
}

static double double_word(req *q) {
    const double v = rand_double(q->r);
    char *p = take(q, RG_DOUBLE_MAX_LEN);
    word(q, (rg_view){p, rg_fmt_double(p, v)});
    return v;
}

/* ---- checking one request ---- */

/* The generated functions of one command, called on a prepared argument set. */
typedef struct codec {
    const char *name;
    size_t (*size)(const void *a);
    size_t (*encode)(const void *a, char *dst, size_t cap);
    size_t (*try_encode)(const void *a, char *dst, size_t cap);
    size_t (*append)(const void *a, rg_pipe *p);
    size_t (*iov_count)(const void *a);
    size_t (*scratch_size)(const void *a);
    size_t (*encode_iov)(const void *a, rg_iov *iov, size_t iov_cap, char *scratch,
                         size_t scratch_cap);
} codec;

static char *alloc_filled(size_t n) {
    char *p = malloc(n ? n : 1);
    assert_non_null(p);
    memset(p, CANARY, n);
    return p;
}

static void check_untouched(const char *p, size_t from, size_t to) {
    for (size_t i = from; i < to; i++) assert_int_equal((unsigned char)p[i], CANARY);
}

/* rg_next reads back an array of exactly the expected bulks. */
static void check_decodes(const char *buf, size_t n, const req *q) {
    rg_reader rd;
    rg_reader_init(&rd, NULL);
    size_t pos = 0;
    rg_event ev;
    assert_int_equal(rg_next(&rd, buf, n, &pos, &ev), RG_OK);
    assert_int_equal(ev.kind, RG_EV_ARRAY);
    assert_int_equal(ev.u.i, (int64_t)q->count);
    for (size_t i = 0; i < q->count; i++) {
        assert_int_equal(rg_next(&rd, buf, n, &pos, &ev), RG_OK);
        assert_int_equal(ev.kind, RG_EV_BULK);
        assert_int_equal(ev.str.len, q->words[i].len);
        if (ev.str.len) assert_memory_equal(ev.str.ptr, q->words[i].ptr, ev.str.len);
    }
    assert_int_equal(rg_next(&rd, buf, n, &pos, &ev), RG_OK);
    assert_int_equal(ev.kind, RG_EV_END);
    assert_true(ev.complete);
    assert_int_equal(pos, n);
}

static void check_iov(const codec *c, const void *a, const char *want, size_t n, const req *q) {
    const size_t entries = c->iov_count(a);
    const size_t scratch_size = c->scratch_size(a);
    assert_true(entries % 2 == 1);
    /* The same split as the runtime's generic iovec encoder. */
    assert_int_equal(scratch_size, rg_argv_iov_scratch_size(q->count, q->words));
    rg_iov *iov = malloc(entries * sizeof *iov);
    char *scratch = alloc_filled(scratch_size);
    assert_non_null(iov);
    assert_int_equal(c->encode_iov(a, iov, entries - 1, scratch, scratch_size), 0);
    if (scratch_size > 0)
        assert_int_equal(c->encode_iov(a, iov, entries, scratch, scratch_size - 1), 0);
    check_untouched(scratch, 0, scratch_size);
    assert_int_equal(c->encode_iov(a, iov, entries, scratch, scratch_size), entries);
    size_t off = 0, in_scratch = 0;
    for (size_t i = 0; i < entries; i++) {
        assert_true(off + iov[i].len <= n);
        assert_memory_equal((const char *)iov[i].base, want + off, iov[i].len);
        const uintptr_t base = (uintptr_t)iov[i].base, lo = (uintptr_t)scratch;
        const int scratch_entry = base >= lo && base <= lo + scratch_size;
        /* Odd entries are the caller's big strings, even ones consecutive scratch bytes. */
        assert_int_equal(scratch_entry, i % 2 == 0);
        if (i % 2) assert_true(iov[i].len >= RG_IOV_COPY_MIN);
        in_scratch += scratch_entry ? iov[i].len : 0;
        off += iov[i].len;
    }
    assert_int_equal(off, n);
    assert_int_equal(in_scratch, scratch_size);
    assert_int_equal(rg_argv_encode_iov(iov, entries, scratch, scratch_size, q->count, q->words),
                     entries);
    free(iov);
    free(scratch);
}

static void check_request(const codec *c, const void *a, const req *q) {
    const size_t size = c->size(a);
    assert_int_equal(size, rg_argv_size(q->count, q->words));
    char *want = alloc_filled(size);
    assert_int_equal(rg_argv_encode(want, size, q->count, q->words), size);

    char *buf = alloc_filled(size + 64);
    assert_int_equal(c->encode(a, buf, size + 64), size);
    assert_memory_equal(buf, want, size);
    check_untouched(buf, size, size + 64);

    char *small = alloc_filled(size);
    assert_int_equal(c->encode(a, small, size - 1), 0);
    assert_int_equal(c->try_encode(a, small, size - 1), size);
    check_untouched(small, 0, size);

    rg_pipe p;
    assert_true(rg_pipe_init_owned(&p, 0));
    assert_int_equal(c->append(a, &p), size);
    assert_int_equal(c->append(a, &p), size);
    assert_int_equal(p.count, 2);
    assert_int_equal(p.len, 2 * size);
    assert_memory_equal(p.buf, want, size);
    assert_memory_equal(p.buf + size, want, size);
    rg_pipe_free(&p);

    check_decodes(buf, size, q);
    if (c->iov_count) check_iov(c, a, want, size, q);
    free(want);
    free(buf);
    free(small);
}

/* The iovec functions, which only --iov generates. Without it (RG_TEST_TABLES: the same specs
 * generated without --iov), the general path of a command with a fixed-shape path is an op table
 * that rg_ops_pipe_write interprets (emit_table.lua): the same checks run on that form. */
#ifdef RG_TEST_TABLES
#define IOV_WRAPPERS(fn, args_t, ARGS)
#define IOV_FIELDS(fn) NULL, NULL, NULL
#else
#define IOV_WRAPPERS(fn, args_t, ARGS)                                                         \
    static size_t fn##_p_iov_count(const void *a) {                                            \
        const args_t *x = a;                                                                   \
        return fn##_iov_count ARGS;                                                            \
    }                                                                                          \
    static size_t fn##_p_scratch_size(const void *a) {                                         \
        const args_t *x = a;                                                                   \
        return fn##_scratch_size ARGS;                                                         \
    }                                                                                          \
    static size_t fn##_p_encode_iov(const void *a, rg_iov *iov, size_t iov_cap, char *scratch, \
                                    size_t scratch_cap) {                                      \
        const args_t *x = a;                                                                   \
        return fn##_encode_iov(iov, iov_cap, scratch, scratch_cap, UNPAREN ARGS);              \
    }
#define IOV_FIELDS(fn) fn##_p_iov_count, fn##_p_scratch_size, fn##_p_encode_iov
#endif

/* Wrappers with one signature for every command: ARGS is the argument list, in parentheses,
 * written in terms of `x`, the command's argument struct. */
#define UNPAREN(...) __VA_ARGS__
#define CODEC(fn, args_t, ARGS)                                             \
    static size_t fn##_p_size(const void *a) {                              \
        const args_t *x = a;                                                \
        return fn##_size ARGS;                                              \
    }                                                                       \
    static size_t fn##_p_encode(const void *a, char *dst, size_t cap) {     \
        const args_t *x = a;                                                \
        return fn##_encode(dst, cap, UNPAREN ARGS);                         \
    }                                                                       \
    static size_t fn##_p_try_encode(const void *a, char *dst, size_t cap) { \
        const args_t *x = a;                                                \
        return fn##_try_encode(dst, cap, UNPAREN ARGS);                     \
    }                                                                       \
    static size_t fn##_p_append(const void *a, rg_pipe *p) {                \
        const args_t *x = a;                                                \
        return fn##_append(p, UNPAREN ARGS);                                \
    }                                                                       \
    IOV_WRAPPERS(fn, args_t, ARGS)                                          \
    static const codec fn##_codec = {                                       \
        #fn, fn##_p_size, fn##_p_encode, fn##_p_try_encode, fn##_p_append, IOV_FIELDS(fn)}

/* ---- SET: enums, a union, optional pure-token ---- */

/* no_opts: opts is passed as NULL, the encoders' fixed-shape path. */
typedef struct set_args {
    rg_view key, value;
    example_set_opts opts;
    int no_opts;
} set_args;
CODEC(example_set, set_args, (x->key, x->value, x->no_opts ? NULL : &x->opts));

static void gen_set(req *q, set_args *x) {
    static const char *const conditions[] = {NULL, "NX", "XX"};
    static const char *const tokens[] = {NULL, "EX", "PX", "EXAT", "PXAT", "KEEPTTL"};
    word_lit(q, "SET");
    x->key = string_word(q);
    x->value = string_word(q);
    x->no_opts = chance(q->r, 25);
    if (x->no_opts) return;
    x->opts.condition = (example_set_condition)below(q->r, 3);
    if (x->opts.condition) word_lit(q, conditions[x->opts.condition]);
    x->opts.get = chance(q->r, 50);
    if (x->opts.get) word_lit(q, "GET");
    x->opts.expiration.kind = (example_set_expiration_kind)below(q->r, 6);
    if (x->opts.expiration.kind) word_lit(q, tokens[x->opts.expiration.kind]);
    /* All integer alternatives share the union's storage. */
    if (x->opts.expiration.kind && x->opts.expiration.kind != EXAMPLE_SET_EXPIRATION_KEEPTTL)
        x->opts.expiration.seconds = i64_word(q);
}

/* ---- ZADD: repeated blocks with doubles ---- */

typedef struct zadd_args {
    rg_view key;
    example_zadd_data data[MAX_LIST];
    size_t count;
    example_zadd_opts opts;
} zadd_args;
CODEC(example_zadd, zadd_args, (x->key, x->data, x->count, &x->opts));

static void gen_zadd(req *q, zadd_args *x) {
    word_lit(q, "ZADD");
    x->key = string_word(q);
    x->opts.condition = (example_zadd_condition)below(q->r, 3);
    if (x->opts.condition)
        word_lit(q, x->opts.condition == EXAMPLE_ZADD_CONDITION_NX ? "NX" : "XX");
    x->opts.comparison = (example_zadd_comparison)below(q->r, 3);
    if (x->opts.comparison)
        word_lit(q, x->opts.comparison == EXAMPLE_ZADD_COMPARISON_GT ? "GT" : "LT");
    x->opts.change = chance(q->r, 50);
    if (x->opts.change) word_lit(q, "CH");
    x->opts.increment = chance(q->r, 50);
    if (x->opts.increment) word_lit(q, "INCR");
    x->count = 1 + below(q->r, MAX_LIST);
    for (size_t i = 0; i < x->count; i++) {
        x->data[i].score = double_word(q);
        x->data[i].member = string_word(q);
    }
}

/* ---- CLIENT KILL: a required oneof holding a repeated oneof with tokened enums ---- */

typedef struct client_kill_args {
    example_client_kill_filter filter;
    example_client_kill_new_format filters[MAX_LIST];
} client_kill_args;
CODEC(example_client_kill, client_kill_args, (x->filter));

static void gen_client_kill_filter(req *q, example_client_kill_new_format *f) {
    static const char *const types[] = {NULL, "normal", "master", "slave", "replica", "pubsub"};
    f->kind = (example_client_kill_new_format_kind)(1 + below(q->r, 6));
    switch (f->kind) {
    case EXAMPLE_CLIENT_KILL_NEW_FORMAT_CLIENT_ID:
        word_lit(q, "ID");
        f->client_id = i64_word(q);
        break;
    case EXAMPLE_CLIENT_KILL_NEW_FORMAT_CLIENT_TYPE:
        word_lit(q, "TYPE");
        f->client_type = (example_client_kill_client_type)(1 + below(q->r, 5));
        word_lit(q, types[f->client_type]);
        break;
    case EXAMPLE_CLIENT_KILL_NEW_FORMAT_USERNAME:
        word_lit(q, "USER");
        f->username = string_word(q);
        break;
    case EXAMPLE_CLIENT_KILL_NEW_FORMAT_ADDR:
        word_lit(q, "ADDR");
        f->addr = string_word(q);
        break;
    case EXAMPLE_CLIENT_KILL_NEW_FORMAT_LADDR:
        word_lit(q, "LADDR");
        f->laddr = string_word(q);
        break;
    default:
        word_lit(q, "SKIPME");
        f->skipme =
            chance(q->r, 50) ? EXAMPLE_CLIENT_KILL_SKIPME_YES : EXAMPLE_CLIENT_KILL_SKIPME_NO;
        word_lit(q, f->skipme == EXAMPLE_CLIENT_KILL_SKIPME_YES ? "YES" : "NO");
        break;
    }
}

static void gen_client_kill(req *q, client_kill_args *x) {
    word_lit(q, "CLIENT");
    word_lit(q, "KILL");
    if (chance(q->r, 20)) {
        x->filter.kind = EXAMPLE_CLIENT_KILL_FILTER_OLD_FORMAT;
        x->filter.old_format = string_word(q);
        return;
    }
    x->filter.kind = EXAMPLE_CLIENT_KILL_FILTER_NEW_FORMAT;
    x->filter.new_format_count = 1 + below(q->r, MAX_LIST);
    x->filter.new_format = x->filters;
    for (size_t i = 0; i < x->filter.new_format_count; i++)
        gen_client_kill_filter(q, &x->filters[i]);
}

/* ---- SORT: tokened values, a tokened block, multiple_token, enum, pure-token ---- */

typedef struct sort_args {
    rg_view key;
    rg_view gets[MAX_LIST];
    example_sort_opts opts;
    int no_opts;
} sort_args;
CODEC(example_sort, sort_args, (x->key, x->no_opts ? NULL : &x->opts));

static void gen_sort(req *q, sort_args *x) {
    word_lit(q, "SORT");
    x->key = string_word(q);
    x->no_opts = chance(q->r, 25);
    if (x->no_opts) return;
    if (chance(q->r, 50)) {
        word_lit(q, "BY");
        x->opts.by_pattern = string_word(q);
        /* Absent is a NULL pointer; an empty pattern has to point somewhere. */
        if (!x->opts.by_pattern.ptr) x->opts.by_pattern.ptr = "";
    }
    x->opts.has_limit = chance(q->r, 50);
    if (x->opts.has_limit) {
        word_lit(q, "LIMIT");
        x->opts.limit.offset = i64_word(q);
        x->opts.limit.count = i64_word(q);
    }
    x->opts.get_pattern_count = below(q->r, MAX_LIST);
    x->opts.get_pattern = x->gets;
    for (size_t i = 0; i < x->opts.get_pattern_count; i++) {
        word_lit(q, "GET");
        x->gets[i] = string_word(q);
    }
    x->opts.order = (example_sort_order)below(q->r, 3);
    if (x->opts.order) word_lit(q, x->opts.order == EXAMPLE_SORT_ORDER_ASC ? "ASC" : "DESC");
    x->opts.sorting = chance(q->r, 50);
    if (x->opts.sorting) word_lit(q, "ALPHA");
    if (chance(q->r, 50)) {
        word_lit(q, "STORE");
        x->opts.destination = string_word(q);
        if (!x->opts.destination.ptr) x->opts.destination.ptr = "";
    }
}

/* ---- GEOSEARCH: blocks inside oneofs, enums inside blocks ---- */

typedef struct geosearch_args {
    rg_view key;
    example_geosearch_from from;
    example_geosearch_by by;
    example_geosearch_opts opts;
} geosearch_args;
CODEC(example_geosearch, geosearch_args, (x->key, x->from, x->by, &x->opts));

static const char *const units[] = {NULL, "M", "KM", "FT", "MI"};

static void gen_geosearch(req *q, geosearch_args *x) {
    word_lit(q, "GEOSEARCH");
    x->key = string_word(q);
    if (chance(q->r, 50)) {
        x->from.kind = EXAMPLE_GEOSEARCH_FROM_MEMBER;
        word_lit(q, "FROMMEMBER");
        x->from.member = string_word(q);
    } else {
        x->from.kind = EXAMPLE_GEOSEARCH_FROM_FROMLONLAT;
        word_lit(q, "FROMLONLAT");
        x->from.fromlonlat.longitude = double_word(q);
        x->from.fromlonlat.latitude = double_word(q);
    }
    if (chance(q->r, 50)) {
        x->by.kind = EXAMPLE_GEOSEARCH_BY_CIRCLE;
        word_lit(q, "BYRADIUS");
        x->by.circle.radius = double_word(q);
        x->by.circle.unit = (example_geosearch_circle_unit)(1 + below(q->r, 4));
        word_lit(q, units[x->by.circle.unit]);
    } else {
        x->by.kind = EXAMPLE_GEOSEARCH_BY_BOX;
        word_lit(q, "BYBOX");
        x->by.box.width = double_word(q);
        x->by.box.height = double_word(q);
        x->by.box.unit = (example_geosearch_box_unit)(1 + below(q->r, 4));
        word_lit(q, units[x->by.box.unit]);
    }
    x->opts.order = (example_geosearch_order)below(q->r, 3);
    if (x->opts.order) word_lit(q, x->opts.order == EXAMPLE_GEOSEARCH_ORDER_ASC ? "ASC" : "DESC");
    x->opts.has_count_block = chance(q->r, 50);
    if (x->opts.has_count_block) {
        word_lit(q, "COUNT");
        x->opts.count_block.count = i64_word(q);
        x->opts.count_block.any = chance(q->r, 50);
        if (x->opts.count_block.any) word_lit(q, "ANY");
    }
    x->opts.withcoord = chance(q->r, 50);
    if (x->opts.withcoord) word_lit(q, "WITHCOORD");
    x->opts.withdist = chance(q->r, 50);
    if (x->opts.withdist) word_lit(q, "WITHDIST");
    x->opts.withhash = chance(q->r, 50);
    if (x->opts.withhash) word_lit(q, "WITHHASH");
}

/* ---- LISTS: every flavour of multiple ---- */

typedef struct lists_args {
    rg_view keys[MAX_LIST];
    size_t key_count;
    int64_t weights[MAX_LIST];
    rg_view gets[MAX_LIST];
    combinators_lists_pairs pairs[MAX_LIST];
    combinators_lists_ops ops[MAX_LIST];
    combinators_lists_marks marks[MAX_LIST];
    combinators_lists_opts opts;
} lists_args;
CODEC(combinators_lists, lists_args, (x->keys, x->key_count, &x->opts));

static void gen_lists(req *q, lists_args *x) {
    word_lit(q, "LISTS");
    x->key_count = 1 + below(q->r, MAX_LIST);
    for (size_t i = 0; i < x->key_count; i++) x->keys[i] = string_word(q);
    x->opts.weights = x->weights;
    x->opts.weights_count = below(q->r, MAX_LIST);
    if (x->opts.weights_count) word_lit(q, "WEIGHTS");
    for (size_t i = 0; i < x->opts.weights_count; i++) x->weights[i] = i64_word(q);
    x->opts.get = x->gets;
    x->opts.get_count = below(q->r, MAX_LIST);
    for (size_t i = 0; i < x->opts.get_count; i++) {
        word_lit(q, "GET");
        x->gets[i] = string_word(q);
    }
    x->opts.pairs = x->pairs;
    x->opts.pairs_count = below(q->r, MAX_LIST);
    if (x->opts.pairs_count) word_lit(q, "PAIRS");
    for (size_t i = 0; i < x->opts.pairs_count; i++) {
        x->pairs[i].field = string_word(q);
        x->pairs[i].value = double_word(q);
    }
    x->opts.ops = x->ops;
    x->opts.ops_count = below(q->r, MAX_LIST);
    for (size_t i = 0; i < x->opts.ops_count; i++) {
        if (chance(q->r, 50)) {
            x->ops[i].kind = COMBINATORS_LISTS_OPS_RESET;
            word_lit(q, "RESET");
        } else {
            x->ops[i].kind = COMBINATORS_LISTS_OPS_INCR;
            word_lit(q, "INCR");
            x->ops[i].incr = i64_word(q);
        }
    }
    x->opts.marks = x->marks;
    x->opts.marks_count = below(q->r, MAX_LIST);
    for (size_t i = 0; i < x->opts.marks_count; i++) {
        x->marks[i] = chance(q->r, 50) ? COMBINATORS_LISTS_MARKS_A : COMBINATORS_LISTS_MARKS_B;
        word_lit(q, x->marks[i] == COMBINATORS_LISTS_MARKS_A ? "A" : "B");
    }
}

/* ---- NESTED: oneofs in repeated blocks, a repeated oneof in a oneof ---- */

typedef struct nested_args {
    combinators_nested_from from;
    combinators_nested_write writes[MAX_LIST];
    combinators_nested_new filters[MAX_LIST];
    combinators_nested_opts opts;
} nested_args;
CODEC(combinators_nested, nested_args, (x->from, &x->opts));

static void gen_nested_write(req *q, combinators_nested_write *w) {
    w->overflow = (combinators_nested_overflow)below(q->r, 3);
    if (w->overflow) {
        word_lit(q, "OVERFLOW");
        word_lit(q, w->overflow == COMBINATORS_NESTED_OVERFLOW_WRAP ? "WRAP" : "FAIL");
    }
    if (chance(q->r, 50)) {
        w->op.kind = COMBINATORS_NESTED_OP_SET;
        word_lit(q, "SET");
        w->op.set.type = string_word(q);
        w->op.set.offset = i64_word(q);
        w->op.set.value = i64_word(q);
    } else {
        w->op.kind = COMBINATORS_NESTED_OP_INCR;
        word_lit(q, "INCRBY");
        w->op.incr.type = string_word(q);
        w->op.incr.offset = i64_word(q);
        w->op.incr.delta = i64_word(q);
    }
}

static void gen_nested(req *q, nested_args *x) {
    word_lit(q, "NESTED");
    if (chance(q->r, 50)) {
        x->from.kind = COMBINATORS_NESTED_FROM_MEMBER;
        word_lit(q, "FROMMEMBER");
        x->from.member = string_word(q);
    } else {
        x->from.kind = COMBINATORS_NESTED_FROM_LONLAT;
        word_lit(q, "FROMLONLAT");
        x->from.lonlat.lon = double_word(q);
        x->from.lonlat.lat = double_word(q);
    }
    x->opts.write = x->writes;
    x->opts.write_count = below(q->r, MAX_LIST);
    for (size_t i = 0; i < x->opts.write_count; i++) gen_nested_write(q, &x->writes[i]);
    const size_t filter = below(q->r, 3);
    if (filter == 1) {
        x->opts.filter.kind = COMBINATORS_NESTED_FILTER_OLD;
        x->opts.filter.old = string_word(q);
    } else if (filter == 2) {
        x->opts.filter.kind = COMBINATORS_NESTED_FILTER_NEW;
        x->opts.filter.new_ = x->filters;
        x->opts.filter.new_count = 1 + below(q->r, MAX_LIST);
        for (size_t i = 0; i < x->opts.filter.new_count; i++) {
            const int id = chance(q->r, 50);
            x->filters[i].kind = id ? COMBINATORS_NESTED_NEW_ID : COMBINATORS_NESTED_NEW_USER;
            word_lit(q, id ? "ID" : "USER");
            if (id)
                x->filters[i].id = i64_word(q);
            else
                x->filters[i].user = string_word(q);
        }
    }
}

/* ---- TOKENS: every kind, optional, behind a token ---- */

typedef struct tokens_args {
    kinds_tokens_opts opts;
} tokens_args;
CODEC(kinds_tokens, tokens_args, (&x->opts));

/* An optional string: absent (NULL) or present, possibly empty. */
static rg_view optional_string(req *q, const char *token) {
    if (chance(q->r, 50)) return (rg_view){NULL, 0};
    word_lit(q, token);
    rg_view v = string_word(q);
    if (!v.ptr) v.ptr = "";
    return v;
}

static void gen_tokens(req *q, tokens_args *x) {
    word_lit(q, "TOKENS");
    x->opts.key = optional_string(q, "KEY");
    x->opts.value = optional_string(q, "VALUE");
    x->opts.match = optional_string(q, "MATCH");
    x->opts.has_count = chance(q->r, 50);
    if (x->opts.has_count) word_lit(q, "COUNT");
    if (x->opts.has_count) x->opts.count = i64_word(q);
    x->opts.has_score = chance(q->r, 50);
    if (x->opts.has_score) word_lit(q, "SCORE");
    if (x->opts.has_score) x->opts.score = double_word(q);
    x->opts.has_at = chance(q->r, 50);
    if (x->opts.has_at) word_lit(q, "EXAT");
    if (x->opts.has_at) x->opts.at = i64_word(q);
    x->opts.flag = chance(q->r, 50);
    if (x->opts.flag) word_lit(q, "FLAG");
}

/* ---- driver ---- */

static uint64_t seed(void) {
    const char *s = getenv("RG_SEED");
    return s ? strtoull(s, NULL, 10) : 20240601u;
}

/* Each test its own stream (FNV-1a of its name mixed into the seed), never 0 for xorshift. */
static uint64_t seed_for(const char *name) {
    uint64_t h = 14695981039346656037ull;
    for (; *name; name++) h = (h ^ (unsigned char)*name) * 1099511628211ull;
    return (seed() ^ h) | 1;
}

/* Runs ITERATIONS random requests of one command. */
#define PROPERTY(test, args_t, gen, codec)     \
    static void test(void **state) {           \
        (void)state;                           \
        rng r = {seed_for(#test)};             \
        req *q = malloc(sizeof *q);            \
        assert_non_null(q);                    \
        for (int i = 0; i < ITERATIONS; i++) { \
            args_t x;                          \
            memset(&x, 0, sizeof x);           \
            q->r = &r;                         \
            q->count = 0;                      \
            q->used = 0;                       \
            gen(q, &x);                        \
            check_request(&codec, &x, q);      \
        }                                      \
        free(q);                               \
    }

PROPERTY(test_set, set_args, gen_set, example_set_codec)
PROPERTY(test_zadd, zadd_args, gen_zadd, example_zadd_codec)
PROPERTY(test_client_kill, client_kill_args, gen_client_kill, example_client_kill_codec)
PROPERTY(test_sort, sort_args, gen_sort, example_sort_codec)
PROPERTY(test_geosearch, geosearch_args, gen_geosearch, example_geosearch_codec)
PROPERTY(test_lists, lists_args, gen_lists, combinators_lists_codec)
PROPERTY(test_nested, nested_args, gen_nested, combinators_nested_codec)
PROPERTY(test_tokens, tokens_args, gen_tokens, kinds_tokens_codec)

int main(void) {
    printf("test_gen_property: seed %llu (set RG_SEED to change)\n", (unsigned long long)seed());
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set),         cmocka_unit_test(test_zadd),
        cmocka_unit_test(test_client_kill), cmocka_unit_test(test_sort),
        cmocka_unit_test(test_geosearch),   cmocka_unit_test(test_lists),
        cmocka_unit_test(test_nested),      cmocka_unit_test(test_tokens),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
