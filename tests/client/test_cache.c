/* The client-side cache (runtime/rg_cache.h) without a server: an engine fed scripted streams.
 * Hits, misses and the requests a miss sends (CLIENT TRACKING in each mode, CLIENT CACHING YES
 * for OPTIN, BCAST prefixes, REDIRECT and its change), invalidations of one key's several
 * entries, the race (an invalidation read before the reply it makes stale, on the same
 * connection and on a REDIRECT listener), flushes (loss, RESET, FLUSHALL, a lost listener,
 * tracking-redir-broken, a refused CLIENT TRACKING), TTL, eviction against a model of what must
 * be held, and the allocator called once. */
#include "rg_cache.h"
#include "rg_enc.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

typedef struct view_result {
    rg_view value;
} view_result;

/* GET's shape: a string or a null. */
static const rg_rnode VIEW_NODES[] = {{.accept = RG_RA_STR | RG_RA_NULL,
                                       .shape = RG_RS_SCALAR,
                                       .store = RG_RT_VIEW,
                                       .offset = offsetof(view_result, value),
                                       .cval = NULL}};
static const rg_rtable VIEW_TABLE = {"GET", VIEW_NODES, sizeof(view_result), 0};
static const rg_cmd GET_CMD = {.name = "GET", .reply = &VIEW_TABLE, .flags = RG_CMD_F_READONLY};

typedef struct list_result {
    struct {
        rg_view *items;
        size_t count;
    } value;
} list_result;

static const rg_rnode LIST_NODES[] = {
    {.accept = RG_RA_ARR,
     .shape = RG_RS_ARRAY,
     .child = 1,
     .nchildren = 1,
     .offset = offsetof(list_result, value),
     .elem_size = sizeof(rg_view)},
    {.accept = RG_RA_STR, .shape = RG_RS_SCALAR, .store = RG_RT_VIEW, .offset = 0}};
static const rg_rtable LIST_TABLE = {"LRANGE", LIST_NODES, sizeof(list_result), 0};
static const rg_cmd LRANGE_CMD = {.name = "LRANGE", .reply = &LIST_TABLE};

/* MGET's shape: an array of strings or nulls; cached per key. */
static const rg_rnode MLIST_NODES[] = {
    {.accept = RG_RA_ARR,
     .shape = RG_RS_ARRAY,
     .child = 1,
     .nchildren = 1,
     .offset = offsetof(list_result, value),
     .elem_size = sizeof(rg_view)},
    {.accept = RG_RA_STR | RG_RA_NULL, .shape = RG_RS_SCALAR, .store = RG_RT_VIEW, .offset = 0}};
static const rg_rtable MLIST_TABLE = {"MGET", MLIST_NODES, sizeof(list_result), 0};
static const rg_cmd MGET_CMD = {.name = "MGET", .reply = &MLIST_TABLE, .id = 7};

typedef struct bed {
    rg_conn c, l; /* the cached connection, and a REDIRECT listener */
    char in[8192], out[8192], lin[4096], lout[4096], storage[2048];
    rg_call calls[64], lcalls[16];
    rg_cache k;
    char mem[64 << 10];
    char log[4096];
    size_t loglen;
    uint64_t now;
} bed;

static void logf_(bed *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(b->log + b->loglen, sizeof b->log - b->loglen, fmt, ap);
    va_end(ap);
    if (n > 0 && (size_t)n < sizeof b->log - b->loglen) b->loglen += (size_t)n;
}

static void log_reset(bed *b) {
    b->loglen = 0;
    b->log[0] = '\0';
}

static void on_done(void *ud, const rg_call_done *d) {
    bed *b = ud;
    const char *how = d->id == RG_CACHE_HIT ? "hit" : "net";
    if (d->status != RG_OK) {
        logf_(b, "%s:%s ", how, rg_status_name(d->status) + 3);
    } else if (d->result) {
        const rg_view v = ((view_result *)d->result)->value;
        logf_(b, "%s:%.*s ", how, (int)v.len, v.ptr ? v.ptr : "(nil)");
    } else {
        logf_(b, "%s ", how);
    }
}

static uint64_t clock_of(void *ud) {
    return ((bed *)ud)->now;
}

static void conn_init(rg_conn *c, char *in, size_t in_cap, char *out, size_t out_cap,
                      rg_call *calls, size_t ncalls, void *storage, size_t storage_cap,
                      int protocol) {
    const rg_conn_config cfg = {.in = in,
                                .in_cap = in_cap,
                                .out = out,
                                .out_cap = out_cap,
                                .calls = calls,
                                .ncalls = ncalls,
                                .storage = storage,
                                .storage_cap = storage_cap,
                                .protocol = protocol};
    assert_int_equal(rg_conn_init(c, &cfg), RG_OK);
}

static char written[16384];

static const char *drain(rg_conn *c) {
    size_t n, at = 0;
    const char *o;
    while ((o = rg_conn_output(c, &n)) != NULL) {
        memcpy(written + at, o, n);
        at += n;
        rg_conn_written(c, n);
    }
    written[at] = '\0';
    return written;
}

static void feed(rg_conn *c, const char *bytes) {
    assert_int_equal(rg_conn_feed_copy(c, bytes, strlen(bytes), NULL), strlen(bytes));
}

static const char HELLO3[] = "%1\r\n$5\r\nproto\r\n:3\r\n";

/* A RESP3 connection (its HELLO answered) with a cache of cfg (mem: the bed's). */
static void bed_init(bed *b, rg_cache_config cfg, int protocol) {
    memset(b, 0, sizeof *b);
    conn_init(&b->c, b->in, sizeof b->in, b->out, sizeof b->out, b->calls, 64, b->storage,
              sizeof b->storage, protocol);
    if (protocol == 3) {
        drain(&b->c);
        feed(&b->c, HELLO3);
    }
    assert_int_equal(rg_conn_state_of(&b->c), RG_CONN_READY);
    if (!cfg.mem && !cfg.alloc) {
        cfg.mem = b->mem;
        cfg.mem_size = sizeof b->mem;
    }
    cfg.now_ms = clock_of;
    cfg.now_ud = b;
    assert_int_equal(rg_cache_init(&b->k, &cfg), RG_OK);
    assert_int_equal(rg_cache_attach(&b->k, &b->c), RG_OK);
}

/* A cached call as the generated ones make it: encoded into the output, then rg_cache_call. */
static uint64_t cached(bed *b, const rg_cmd *cmd, const char *words, void *r) {
    rg_view argv[8];
    size_t n = 0;
    for (const char *p = words; *p && n < 8;) {
        const char *e = strchr(p, ' ');
        const size_t len = e ? (size_t)(e - p) : strlen(p);
        argv[n++] = (rg_view){p, len};
        p += len + (e != NULL);
    }
    const size_t size = rg_argv_size(n, argv);
    char *dst = rg_conn_reserve(&b->c, size);
    assert_non_null(dst);
    assert_int_equal(rg_argv_encode(dst, size, n, argv), size);
    return rg_cache_call(&b->k, dst, size, cmd, argv[1], r, on_done, b);
}

/* MGET of the keys (words), cached per key. */
static uint64_t mget(bed *b, const char *words, list_result *r) {
    rg_view argv[8];
    size_t n = 0;
    argv[n++] = (rg_view){"MGET", 4};
    for (const char *p = words; *p && n < 8;) {
        const char *e = strchr(p, ' ');
        const size_t len = e ? (size_t)(e - p) : strlen(p);
        argv[n++] = (rg_view){p, len};
        p += len + (e != NULL);
    }
    const size_t size = rg_argv_size(n, argv);
    char *dst = rg_conn_reserve(&b->c, size);
    assert_non_null(dst);
    assert_int_equal(rg_argv_encode(dst, size, n, argv), size);
    memset(r, 0, sizeof *r);
    return rg_cache_call_keys(&b->k, dst, size, &MGET_CMD, argv + 1, n - 1, r, NULL, NULL);
}

static bool item_is(const list_result *r, size_t i, const char *s) {
    if (!s) return r->value.items[i].ptr == NULL;
    return r->value.items[i].len == strlen(s) && memcmp(r->value.items[i].ptr, s, strlen(s)) == 0;
}

static uint64_t get(bed *b, const char *key, view_result *r) {
    char words[128];
    snprintf(words, sizeof words, "GET %s", key);
    return cached(b, &GET_CMD, words, r);
}

#define TRACK_ON "*3\r\n$6\r\nCLIENT\r\n$8\r\nTRACKING\r\n$2\r\nON\r\n"
#define GET_K    "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"
#define INVAL_K  ">2\r\n$10\r\ninvalidate\r\n*1\r\n$1\r\nk\r\n"

static void hit_and_miss(void **state) {
    (void)state;
    static bed b;
    view_result r;
    bed_init(&b, (rg_cache_config){0}, 3);
    /* A miss: tracking first, then the read. */
    const uint64_t id = get(&b, "k", &r);
    assert_true(id != 0 && id != RG_CACHE_HIT);
    assert_string_equal(drain(&b.c), TRACK_ON GET_K);
    feed(&b.c, "+OK\r\n$2\r\nv1\r\n");
    assert_string_equal(b.log, "net:v1 ");
    /* A hit: the same typed result, no request, the callback inside the call. */
    memset(&r, 0, sizeof r);
    assert_int_equal(get(&b, "k", &r), RG_CACHE_HIT);
    assert_true(r.value.len == 2 && memcmp(r.value.ptr, "v1", 2) == 0);
    assert_string_equal(drain(&b.c), "");
    assert_string_equal(b.log, "net:v1 hit:v1 ");
    /* A null reply is cached too; tracking is not sent twice. */
    get(&b, "none", &r);
    assert_string_equal(drain(&b.c), "*2\r\n$3\r\nGET\r\n$4\r\nnone\r\n");
    feed(&b.c, "_\r\n");
    assert_int_equal(get(&b, "none", &r), RG_CACHE_HIT);
    assert_null(r.value.ptr);
    /* The invalidation: the next read goes to the server. */
    feed(&b.c, INVAL_K);
    assert_true(get(&b, "k", &r) != RG_CACHE_HIT);
    assert_string_equal(drain(&b.c), GET_K);
    feed(&b.c, "$2\r\nv2\r\n");
    assert_int_equal(get(&b, "k", &r), RG_CACHE_HIT);
    assert_true(r.value.len == 2 && memcmp(r.value.ptr, "v2", 2) == 0);
    const rg_cache_stats s = rg_cache_stats_of(&b.k);
    assert_int_equal(s.hits, 3);
    assert_int_equal(s.misses, 3);
    assert_int_equal(s.stored, 3);
    assert_int_equal(s.invalidations, 1);
    assert_int_equal(s.entries, 2);
    assert_int_equal(rg_cache_tracking(&b.k), RG_CACHE_TRACK_ON);
    rg_cache_free(&b.k);
}

/* Several entries of one key go with its invalidation; other keys' stay. */
static void one_key_many_entries(void **state) {
    (void)state;
    static bed b;
    view_result r;
    list_result l;
    bed_init(&b, (rg_cache_config){0}, 3);
    get(&b, "k", &r);
    cached(&b, &LRANGE_CMD, "LRANGE k 0 -1", &l);
    cached(&b, &LRANGE_CMD, "LRANGE k 0 0", &l);
    get(&b, "j", &r);
    drain(&b.c);
    feed(&b.c, "+OK\r\n$1\r\nv\r\n*2\r\n$1\r\na\r\n$1\r\nb\r\n*1\r\n$1\r\na\r\n$1\r\nw\r\n");
    assert_int_equal(rg_cache_stats_of(&b.k).entries, 4);
    memset(&l, 0, sizeof l);
    assert_int_equal(cached(&b, &LRANGE_CMD, "LRANGE k 0 -1", &l), RG_CACHE_HIT);
    assert_int_equal(l.value.count, 2);
    assert_true(l.value.items[1].len == 1 && l.value.items[1].ptr[0] == 'b');
    feed(&b.c, INVAL_K);
    assert_int_equal(rg_cache_stats_of(&b.k).entries, 1);
    assert_true(cached(&b, &LRANGE_CMD, "LRANGE k 0 0", &l) != RG_CACHE_HIT);
    assert_true(get(&b, "k", &r) != RG_CACHE_HIT);
    assert_int_equal(get(&b, "j", &r), RG_CACHE_HIT);
    rg_cache_free(&b.k);
}

/* The race: the invalidation comes before the reply it makes stale; the reply is the call's,
 * but it is not stored. */
static void invalidation_before_reply(void **state) {
    (void)state;
    static bed b;
    view_result r;
    bed_init(&b, (rg_cache_config){0}, 3);
    get(&b, "k", &r);
    get(&b, "k", &r); /* two in flight: both dropped */
    drain(&b.c);
    feed(&b.c, "+OK\r\n" INVAL_K "$3\r\nold\r\n$3\r\nold\r\n");
    assert_string_equal(b.log, "net:old net:old ");
    assert_int_equal(rg_cache_stats_of(&b.k).dropped, 2);
    assert_true(get(&b, "k", &r) != RG_CACHE_HIT);
    /* an invalidation of another key drops nothing in flight */
    feed(&b.c, ">2\r\n$10\r\ninvalidate\r\n*1\r\n$1\r\nx\r\n$3\r\nnew\r\n");
    assert_int_equal(get(&b, "k", &r), RG_CACHE_HIT);
    assert_true(r.value.len == 3 && memcmp(r.value.ptr, "new", 3) == 0);
    rg_cache_free(&b.k);
}

/* A loss flushes and drops what is in flight; tracking is sent again on the next connection. */
static void loss_and_reset(void **state) {
    (void)state;
    static bed b;
    view_result r;
    bed_init(&b, (rg_cache_config){0}, 3);
    get(&b, "k", &r);
    drain(&b.c);
    feed(&b.c, "+OK\r\n$1\r\nv\r\n");
    get(&b, "j", &r);
    drain(&b.c);
    rg_conn_closed(&b.c, (rg_view){NULL, 0});
    assert_string_equal(b.log, "net:v net:CLOSED ");
    rg_cache_stats s = rg_cache_stats_of(&b.k);
    assert_int_equal(s.entries, 0);
    assert_int_equal(s.flushes, 1);
    assert_int_equal(rg_cache_tracking(&b.k), RG_CACHE_TRACK_OFF);
    assert_int_equal(rg_conn_reset(&b.c), RG_OK);
    drain(&b.c);
    feed(&b.c, HELLO3);
    get(&b, "k", &r);
    assert_string_equal(drain(&b.c), TRACK_ON GET_K);
    feed(&b.c, "+OK\r\n$1\r\nw\r\n");
    assert_int_equal(get(&b, "k", &r), RG_CACHE_HIT);
    /* RESET turns tracking off: a flush, and ON again before the next read */
    rg_view reset = {"RESET", 5};
    rg_conn_call_argv(&b.c, 1, &reset, NULL, NULL, NULL, NULL);
    drain(&b.c);
    feed(&b.c, "+RESET\r\n");
    assert_int_equal(rg_cache_stats_of(&b.k).entries, 0);
    /* now RESP2 without a redirect: nothing can be cached */
    assert_true(get(&b, "k", &r) != RG_CACHE_HIT);
    assert_string_equal(drain(&b.c), GET_K);
    assert_int_equal(rg_cache_stats_of(&b.k).uncached, 1);
    rg_cache_free(&b.k);
}

/* FLUSHALL (a null invalidation) empties the cache; tracking stays on. A refused CLIENT
 * TRACKING drops what was read behind it and stops caching. */
static void flushall_and_refused(void **state) {
    (void)state;
    static bed b;
    view_result r;
    bed_init(&b, (rg_cache_config){0}, 3);
    get(&b, "k", &r);
    drain(&b.c);
    feed(&b.c, "+OK\r\n$1\r\nv\r\n>2\r\n$10\r\ninvalidate\r\n_\r\n");
    assert_int_equal(rg_cache_stats_of(&b.k).entries, 0);
    assert_int_equal(rg_cache_stats_of(&b.k).flushes, 1);
    get(&b, "k", &r);
    assert_string_equal(drain(&b.c), GET_K);
    rg_cache_free(&b.k);

    bed_init(&b, (rg_cache_config){0}, 3);
    get(&b, "k", &r);
    drain(&b.c);
    feed(&b.c, "-ERR no tracking here\r\n$1\r\nv\r\n");
    assert_string_equal(b.log, "net:v ");
    assert_int_equal(rg_cache_tracking(&b.k), RG_CACHE_TRACK_REFUSED);
    assert_int_equal(rg_cache_error(&b.k).status, RG_SERVER_ERROR);
    assert_int_equal(rg_cache_stats_of(&b.k).entries, 0);
    assert_true(get(&b, "k", &r) != RG_CACHE_HIT);
    assert_string_equal(drain(&b.c), GET_K);
    rg_cache_free(&b.k);
}

static void optin_and_bcast(void **state) {
    (void)state;
    static bed b;
    view_result r;
    bed_init(&b, (rg_cache_config){.mode = RG_CACHE_OPTIN}, 3);
    get(&b, "k", &r);
    assert_string_equal(drain(&b.c),
                        "*4\r\n$6\r\nCLIENT\r\n$8\r\nTRACKING\r\n$2\r\nON\r\n$5\r\nOPTIN\r\n"
                        "*3\r\n$6\r\nCLIENT\r\n$7\r\nCACHING\r\n$3\r\nYES\r\n" GET_K);
    feed(&b.c, "+OK\r\n+OK\r\n$1\r\nv\r\n");
    assert_string_equal(b.log, "net:v ");
    assert_int_equal(get(&b, "k", &r), RG_CACHE_HIT);
    get(&b, "j", &r);
    assert_string_equal(drain(&b.c), "*3\r\n$6\r\nCLIENT\r\n$7\r\nCACHING\r\n$3\r\nYES\r\n"
                                     "*2\r\n$3\r\nGET\r\n$1\r\nj\r\n");
    rg_cache_free(&b.k);

    const rg_view prefixes[] = {{"user:", 5}, {"cfg:", 4}};
    bed_init(&b, (rg_cache_config){.mode = RG_CACHE_BCAST, .prefixes = prefixes, .nprefixes = 2},
             3);
    get(&b, "other", &r); /* under no prefix: no invalidation would come */
    assert_string_equal(drain(&b.c), "*2\r\n$3\r\nGET\r\n$5\r\nother\r\n");
    assert_int_equal(rg_cache_stats_of(&b.k).uncached, 1);
    get(&b, "user:1", &r);
    assert_string_equal(drain(&b.c),
                        "*8\r\n$6\r\nCLIENT\r\n$8\r\nTRACKING\r\n$2\r\nON\r\n"
                        "$5\r\nBCAST\r\n$6\r\nPREFIX\r\n$5\r\nuser:\r\n$6\r\nPREFIX\r\n"
                        "$4\r\ncfg:\r\n*2\r\n$3\r\nGET\r\n$6\r\nuser:1\r\n");
    feed(&b.c, "$1\r\nx\r\n+OK\r\n$1\r\nu\r\n");
    assert_int_equal(get(&b, "user:1", &r), RG_CACHE_HIT);
    assert_true(get(&b, "other", &r) != RG_CACHE_HIT);
    rg_cache_free(&b.k);
}

#define REDIRECT_ON(id) \
    "*5\r\n$6\r\nCLIENT\r\n$8\r\nTRACKING\r\n$2\r\nON\r\n$8\r\nREDIRECT\r\n$2\r\n" id "\r\n"
#define R2_INVAL_K "*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n*1\r\n$1\r\nk\r\n"

/* RESP2 with REDIRECT: invalidations come on a listener subscribed to __redis__:invalidate,
 * and may be read before the reply they make stale. */
static void redirect_listener(void **state) {
    (void)state;
    static bed b;
    view_result r;
    bed_init(&b, (rg_cache_config){.redirect = 42}, 2);
    conn_init(&b.l, b.lin, sizeof b.lin, b.lout, sizeof b.lout, b.lcalls, 16, NULL, 0, 2);
    assert_int_equal(rg_cache_listen(&b.k, &b.l), RG_OK);
    const rg_view sub[] = {{"SUBSCRIBE", 9}, {"__redis__:invalidate", 20}};
    assert_true(rg_conn_call_argv(&b.l, 2, sub, NULL, NULL, NULL, NULL) != 0);
    drain(&b.l);
    feed(&b.l, "*3\r\n$9\r\nsubscribe\r\n$20\r\n__redis__:invalidate\r\n:1\r\n");
    get(&b, "k", &r);
    assert_string_equal(drain(&b.c), REDIRECT_ON("42") GET_K);
    feed(&b.c, "+OK\r\n$2\r\nv1\r\n");
    assert_int_equal(get(&b, "k", &r), RG_CACHE_HIT);
    feed(&b.l, R2_INVAL_K);
    assert_int_equal(rg_cache_stats_of(&b.k).entries, 0);
    /* the race across connections: the listener's invalidation read first */
    get(&b, "k", &r);
    drain(&b.c);
    feed(&b.l, R2_INVAL_K);
    feed(&b.c, "$2\r\nv1\r\n");
    assert_int_equal(rg_cache_stats_of(&b.k).dropped, 1);
    assert_true(get(&b, "k", &r) != RG_CACHE_HIT);
    drain(&b.c);
    feed(&b.c, "$2\r\nv2\r\n");
    assert_int_equal(get(&b, "k", &r), RG_CACHE_HIT);
    /* the listener is lost: a flush, and nothing cached until the next one's id is told */
    rg_conn_closed(&b.l, (rg_view){NULL, 0});
    assert_int_equal(rg_cache_stats_of(&b.k).entries, 0);
    assert_int_equal(rg_cache_tracking(&b.k), RG_CACHE_TRACK_WAIT);
    assert_true(get(&b, "k", &r) != RG_CACHE_HIT);
    assert_string_equal(drain(&b.c), GET_K);
    feed(&b.c, "$2\r\nv2\r\n");
    assert_true(get(&b, "k", &r) != RG_CACHE_HIT);
    drain(&b.c);
    feed(&b.c, "$2\r\nv2\r\n");
    rg_cache_redirect(&b.k, 43);
    get(&b, "k", &r);
    assert_string_equal(drain(&b.c),
                        "*3\r\n$6\r\nCLIENT\r\n$8\r\nTRACKING\r\n$3\r\nOFF\r\n" REDIRECT_ON("43")
                            GET_K);
    feed(&b.c, "+OK\r\n+OK\r\n$2\r\nv3\r\n");
    assert_int_equal(get(&b, "k", &r), RG_CACHE_HIT);
    assert_true(r.value.len == 2 && memcmp(r.value.ptr, "v3", 2) == 0);
    /* RESP3 on the cached connection: tracking-redir-broken says the listener is gone */
    rg_cache_free(&b.k);
}

static void redir_broken(void **state) {
    (void)state;
    static bed b;
    view_result r;
    bed_init(&b, (rg_cache_config){.redirect = 7}, 3);
    get(&b, "k", &r);
    drain(&b.c);
    feed(&b.c, "+OK\r\n$1\r\nv\r\n>1\r\n$21\r\ntracking-redir-broken\r\n");
    assert_int_equal(rg_cache_stats_of(&b.k).entries, 0);
    assert_int_equal(rg_cache_tracking(&b.k), RG_CACHE_TRACK_WAIT);
    assert_true(get(&b, "k", &r) != RG_CACHE_HIT);
    rg_cache_free(&b.k);
}

/* MGET key by key: a hit needs every key's element, in any order and subset; one key's
 * invalidation drops its element only; GET's entries are apart. */
static void per_key(void **state) {
    (void)state;
    static bed b;
    list_result l;
    view_result r;
    bed_init(&b, (rg_cache_config){0}, 3);
    assert_true(mget(&b, "a b", &l) != RG_CACHE_HIT);
    assert_string_equal(drain(&b.c), TRACK_ON "*3\r\n$4\r\nMGET\r\n$1\r\na\r\n$1\r\nb\r\n");
    feed(&b.c, "+OK\r\n*2\r\n$1\r\nx\r\n_\r\n");
    assert_int_equal(rg_cache_stats_of(&b.k).entries, 2);
    assert_int_equal(mget(&b, "a b", &l), RG_CACHE_HIT);
    assert_true(l.value.count == 2 && item_is(&l, 0, "x") && item_is(&l, 1, NULL));
    assert_int_equal(mget(&b, "b a a", &l), RG_CACHE_HIT);
    assert_true(l.value.count == 3 && item_is(&l, 0, NULL) && item_is(&l, 1, "x") &&
                item_is(&l, 2, "x"));
    assert_true(get(&b, "a", &r) != RG_CACHE_HIT); /* GET a is not MGET a's element */
    drain(&b.c);
    feed(&b.c, "$1\r\nx\r\n");
    assert_true(mget(&b, "a c", &l) != RG_CACHE_HIT); /* c is not held: all of it is sent */
    drain(&b.c);
    feed(&b.c, "*2\r\n$1\r\nx\r\n$1\r\nz\r\n");
    assert_int_equal(mget(&b, "c", &l), RG_CACHE_HIT);
    feed(&b.c, ">2\r\n$10\r\ninvalidate\r\n*1\r\n$1\r\na\r\n");
    assert_int_equal(mget(&b, "b c", &l), RG_CACHE_HIT);
    assert_true(mget(&b, "a b", &l) != RG_CACHE_HIT);
    /* an invalidation of one key in flight: none of the reply's elements is stored */
    drain(&b.c);
    feed(&b.c, ">2\r\n$10\r\ninvalidate\r\n*1\r\n$1\r\nb\r\n*2\r\n$1\r\nx\r\n_\r\n");
    assert_int_equal(rg_cache_stats_of(&b.k).dropped, 1);
    assert_true(mget(&b, "a", &l) != RG_CACHE_HIT);
    drain(&b.c);
    /* a reply of another count stores nothing */
    feed(&b.c, "*2\r\n$1\r\nx\r\n$1\r\ny\r\n");
    assert_int_equal(rg_cache_stats_of(&b.k).dropped, 2);
    assert_true(mget(&b, "a", &l) != RG_CACHE_HIT);
    rg_cache_free(&b.k);
}

static void ttl(void **state) {
    (void)state;
    static bed b;
    view_result r;
    bed_init(&b, (rg_cache_config){.ttl_ms = 100}, 3);
    b.now = 1000;
    get(&b, "k", &r);
    drain(&b.c);
    feed(&b.c, "+OK\r\n$1\r\nv\r\n");
    b.now = 1099;
    assert_int_equal(get(&b, "k", &r), RG_CACHE_HIT);
    b.now = 1100;
    assert_true(get(&b, "k", &r) != RG_CACHE_HIT);
    assert_int_equal(rg_cache_stats_of(&b.k).expired, 1);
    rg_cache_free(&b.k);
    rg_cache k;
    assert_int_equal(
        rg_cache_init(&k, &(rg_cache_config){.mem = b.mem, .mem_size = sizeof b.mem, .ttl_ms = 5}),
        RG_INVALID); /* no clock */
}

/* Many keys through a small cache, in random order with invalidations: every hit returns the
 * value last stored for its key, and the bounds hold. */
static void eviction_model(void **state) {
    (void)state;
    static bed b;
    enum { KEYS = 300 };
    static unsigned version[KEYS]; /* the server's value of key i: "i:version" padded */
    bed_init(&b, (rg_cache_config){.max_entries = 100, .flight_bytes = 4096}, 3);
    srand(7);
    size_t hits = 0;
    bool tracked = false;
    for (int round = 0; round < 20000; round++) {
        const int i = rand() % KEYS;
        char key[16], value[512];
        snprintf(key, sizeof key, "key%d", i);
        if (rand() % 5 == 0) { /* a write elsewhere: its invalidation */
            version[i]++;
            char push[96];
            snprintf(push, sizeof push, ">2\r\n$10\r\ninvalidate\r\n*1\r\n$%zu\r\n%s\r\n",
                     strlen(key), key);
            feed(&b.c, push);
            continue;
        }
        const int pad = 20 + (i * 37) % 400;
        const int len = snprintf(value, sizeof value, "%d:%u:%*s", i, version[i], pad, "x");
        view_result r;
        log_reset(&b);
        const uint64_t id = get(&b, key, &r);
        assert_true(id != 0);
        if (id == RG_CACHE_HIT) {
            hits++;
            assert_true(r.value.len == (size_t)len && memcmp(r.value.ptr, value, (size_t)len) == 0);
            continue;
        }
        drain(&b.c);
        char reply[600];
        snprintf(reply, sizeof reply, "%s$%d\r\n%s\r\n", tracked ? "" : "+OK\r\n", len, value);
        tracked = true;
        feed(&b.c, reply);
        const rg_cache_stats s = rg_cache_stats_of(&b.k);
        assert_true(s.entries <= 100);
        assert_true(s.bytes <= sizeof b.mem);
    }
    const rg_cache_stats s = rg_cache_stats_of(&b.k);
    assert_true(hits > 1000);
    assert_true(s.evictions > 100);
    assert_int_equal(s.hits, hits);
    rg_cache_free(&b.k);
}

static size_t allocs;

static void *counting_alloc(void *ud, void *ptr, size_t size) {
    (void)ud;
    allocs++;
    return rg_conn_std_alloc(NULL, ptr, size);
}

/* Memory from the hook: once at init, back at free; never per call. Uncached paths (MULTI). */
static void one_allocation(void **state) {
    (void)state;
    static bed b;
    view_result r;
    allocs = 0;
    bed_init(&b, (rg_cache_config){.alloc = counting_alloc, .mem_size = 1 << 20}, 3);
    assert_int_equal(allocs, 1);
    for (int i = 0; i < 1000; i++) {
        char key[16];
        snprintf(key, sizeof key, "k%d", i % 50);
        if (get(&b, key, &r) == RG_CACHE_HIT) continue;
        drain(&b.c);
        feed(&b.c, i == 0 ? "+OK\r\n$1\r\nv\r\n" : "$1\r\nv\r\n");
    }
    assert_int_equal(rg_cache_stats_of(&b.k).hits, 950);
    const rg_view multi = {"MULTI", 5};
    rg_conn_call_argv(&b.c, 1, &multi, NULL, NULL, NULL, NULL);
    assert_true(get(&b, "k1", &r) != RG_CACHE_HIT); /* inside MULTI: sent, not cached */
    assert_int_equal(rg_cache_stats_of(&b.k).uncached, 1);
    assert_int_equal(allocs, 1);
    rg_cache_free(&b.k);
    assert_int_equal(allocs, 2);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hit_and_miss),
        cmocka_unit_test(one_key_many_entries),
        cmocka_unit_test(invalidation_before_reply),
        cmocka_unit_test(loss_and_reset),
        cmocka_unit_test(flushall_and_refused),
        cmocka_unit_test(optin_and_bcast),
        cmocka_unit_test(redirect_listener),
        cmocka_unit_test(redir_broken),
        cmocka_unit_test(per_key),
        cmocka_unit_test(ttl),
        cmocka_unit_test(eviction_model),
        cmocka_unit_test(one_allocation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
