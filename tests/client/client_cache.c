/* The client-side cache (runtime/rg_cache.h) against a real redis-server: a writer thread on its
 * own connection changes keys the client has cached as fast as it can, embedding a version in
 * each value, while the client reads them through the generated _cached calls. After each
 * write's invalidation has reached the client (the writer's acknowledged versions taken, then a
 * round trip on the connection the invalidations come on), no read (GET, and MGET cached key by
 * key) returns an older version,
 * and no key's reads go back in version. In RESP3 (default, OPTIN and BCAST tracking), in RESP2
 * with REDIRECT to a listener (whose invalidations are read while the reads are in flight, so
 * that the race of an invalidation before its stale reply happens), and through a server killed
 * and restarted (RESP3, and REDIRECT with a new listener id). And a hit's typed result is the
 * server reply's, for every shape of reply (hit_same_result). */
#include "redis_client.h"
#include "rg_blocking.h"
#include "test_redis.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

enum { NCALLS = 1024, KEYS = 128, PIPE = 16 };
static const char PADDING[] = "pad-pad-pad-pad-pad-pad-pad-pad-pad";

typedef struct client {
    rg_bconn b;
    char in[1 << 16];
    char out[1 << 16];
    char storage[1 << 14];
    rg_call calls[NCALLS];
} client;

static client *open_client(int port, int protocol) {
    client *c = calloc(1, sizeof *c);
    assert_non_null(c);
    const rg_conn_config cfg = {.in = c->in,
                                .in_cap = sizeof c->in,
                                .out = c->out,
                                .out_cap = sizeof c->out,
                                .calls = c->calls,
                                .ncalls = NCALLS,
                                .storage = c->storage,
                                .storage_cap = sizeof c->storage,
                                .protocol = protocol};
    const rg_bconn_options opt = {.connect_ms = 2000, .io_ms = 10000};
    assert_int_equal(rg_bconn_connect(&c->b, "127.0.0.1", port, &cfg, &opt), RG_OK);
    assert_int_equal(rg_bconn_wait(&c->b, 0), RG_OK);
    return c;
}

static void close_client(client *c) {
    rg_bconn_close(&c->b);
    free(c);
}

static void key_name(char *out, size_t cap, int i) {
    snprintf(out, cap, "ck:%d", i);
}

static uint64_t version_of(rg_view v) {
    char text[24];
    const size_t n = v.len < sizeof text - 1 ? v.len : sizeof text - 1;
    if (!v.ptr) return 0; /* not written yet */
    memcpy(text, v.ptr, n);
    text[n] = '\0';
    return strtoull(text, NULL, 10);
}

/* ---- the writer ------------------------------------------------------------------------------ */

typedef struct writer {
    int port;
    atomic_bool stop;
    atomic_bool pause, paused; /* the reader asks for a pause, the writer says it is in one */
    atomic_uint_fast64_t acked[KEYS]; /* the last version the server acknowledged, per key */
    atomic_uint_fast64_t writes;
    uint64_t next; /* the next version: greater than any written before, across tests */
    client *c; /* opened and closed by the test's thread (cmocka's asserts are not the writer's) */
    atomic_bool failed;
} writer;

/* The versions of the server's values only grow, across the tests that share the server. */
static uint64_t next_version = 1;

/* SETs random keys to "<version>:<padding>" in pipelines of PIPE, each version greater than the
 * key's last, recording it once acknowledged. */
static void *write_loop(void *arg) {
    writer *w = arg;
    client *c = w->c;
    uint64_t next = w->next, rng = 88172645463325252u;
    while (!atomic_load(&w->stop)) {
        if (atomic_load(&w->pause)) {
            atomic_store(&w->paused, true);
            while (atomic_load(&w->pause) && !atomic_load(&w->stop)) test_sleep_ms(1);
            atomic_store(&w->paused, false);
            continue;
        }
        int keys[PIPE];
        uint64_t versions[PIPE];
        uint64_t last = 0;
        for (int j = 0; j < PIPE; j++) {
            rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
            keys[j] = (int)(rng % KEYS);
            versions[j] = next++;
            char key[16], value[64];
            key_name(key, sizeof key, keys[j]);
            const int len = snprintf(value, sizeof value, "%llu:%.*s",
                                     (unsigned long long)versions[j], (int)(rng % 32), PADDING);
            last = redis_set_call(&c->b.conn, rg_cstr(key), (rg_view){value, (size_t)len}, NULL,
                                  NULL, NULL, NULL);
        }
        if (last == 0 || rg_bconn_wait(&c->b, last) != RG_OK) {
            atomic_store(&w->failed, true);
            break;
        }
        for (int j = 0; j < PIPE; j++) atomic_store(&w->acked[keys[j]], versions[j]);
        atomic_fetch_add(&w->writes, PIPE);
    }
    w->next = next;
    return NULL;
}

/* ---- the reader ------------------------------------------------------------------------------ */

typedef struct reader reader;

/* One read in flight: what its callback checks. */
typedef struct read_ctx {
    reader *r;
    int key;
    uint64_t floor;
} read_ctx;

struct reader {
    client *c;        /* the cached connection */
    client *listener; /* REDIRECT: where invalidations come; NULL: c itself */
    rg_cache cache;
    char mem[1 << 20];
    /* The newest version each key's reads returned, by the command that read it ([0]: GET,
     * [1]: MGET) with REDIRECT, else all in [0]. Over REDIRECT a reply on the cached connection
     * may be newer than an entry of the same key under another request whose invalidation is
     * still unread on the listener: reads go back in version only across requests, never
     * against a floor (an invalidation read) nor within one request. */
    uint64_t seen[2][KEYS];
    redis_get_result results[PIPE];
    read_ctx ctx[PIPE];
    uint64_t checked, stale, failed;
};

/* A round trip on the connection the invalidations come on: every invalidation the server queued
 * before it has been handled when it returns. */
static void sync_invalidations(reader *r) {
    client *l = r->listener ? r->listener : r->c;
    redis_ping_result pong;
    const uint64_t id = redis_ping_call(&l->b.conn, NULL, &pong, NULL, NULL);
    assert_true(id != 0);
    assert_int_equal(rg_bconn_wait(&l->b, id), RG_OK);
}

/* Checks one read of a key (in its callback, where its views are valid: a hit's inside the
 * call, a miss's when its reply came) against its floor (an acknowledged version whose
 * invalidation has been handled) and against the key's earlier reads. */
static void check_value(reader *r, int cmd, int key, uint64_t floor, rg_view value, bool hit) {
    const uint64_t v = version_of(value);
    uint64_t *seen = &r->seen[r->listener ? cmd : 0][key];
    r->checked++;
    if (v < floor || v < *seen) {
        r->stale++;
        fprintf(stderr, "stale %s: ck:%d read version %llu, floor %llu, seen %llu\n",
                hit ? "hit" : "reply", key, (unsigned long long)v, (unsigned long long)floor,
                (unsigned long long)*seen);
    }
    if (v > *seen) *seen = v;
}

static void on_read(void *ud, const rg_call_done *d) {
    read_ctx *x = ud;
    if (d->status != RG_OK) {
        x->r->failed++;
        return;
    }
    check_value(x->r, 0, x->key, x->floor, ((const redis_get_result *)d->result)->value,
                d->id == RG_CACHE_HIT);
}

/* An MGET of MKEYS keys through the cache (cached key by key): each element checked. */
enum { MKEYS = 4 };
typedef struct mget_ctx {
    reader *r;
    int keys[MKEYS];
    uint64_t floors[MKEYS];
    redis_mget_result result;
} mget_ctx;

static void on_mget(void *ud, const rg_call_done *d) {
    mget_ctx *x = ud;
    const redis_mget_result *m = d->result;
    if (d->status != RG_OK || m->value.count != MKEYS || !m->value.items) {
        x->r->failed++;
        return;
    }
    for (int j = 0; j < MKEYS; j++)
        check_value(x->r, 1, x->keys[j], x->floors[j], m->value.items[j], d->id == RG_CACHE_HIT);
}

static void mget_round(reader *r, uint64_t *rng, const uint64_t *floors) {
    static mget_ctx x;
    char names[MKEYS][16];
    rg_view keys[MKEYS];
    x.r = r;
    for (int j = 0; j < MKEYS; j++) {
        *rng ^= *rng << 13, *rng ^= *rng >> 7, *rng ^= *rng << 17;
        x.keys[j] = (int)(*rng % KEYS);
        x.floors[j] = floors ? floors[x.keys[j]] : 0;
        key_name(names[j], sizeof names[j], x.keys[j]);
        keys[j] = rg_cstr(names[j]);
    }
    const uint64_t id = redis_mget_cached(&r->cache, keys, MKEYS, &x.result, on_mget, &x);
    assert_true(id != 0);
    if (id != RG_CACHE_HIT) assert_int_equal(rg_bconn_wait(&r->c->b, id), RG_OK);
}

/* PIPE cached reads of random keys; the misses are sent, then (REDIRECT) the listener's
 * invalidations are read while their replies are on the way, then the replies. floors: each
 * key's floor (NULL: none). */
static void read_round(reader *r, uint64_t *rng, const uint64_t *floors) {
    uint64_t last = 0;
    for (int j = 0; j < PIPE; j++) {
        *rng ^= *rng << 13, *rng ^= *rng >> 7, *rng ^= *rng << 17;
        const int i = (int)(*rng % KEYS);
        char key[16];
        key_name(key, sizeof key, i);
        r->ctx[j] = (read_ctx){r, i, floors ? floors[i] : 0};
        const uint64_t id =
            redis_get_cached(&r->cache, rg_cstr(key), &r->results[j], on_read, &r->ctx[j]);
        assert_true(id != 0);
        if (id != RG_CACHE_HIT) last = id;
    }
    if (!last) return;
    if (r->listener) {
        assert_int_equal(rg_bconn_send_now(&r->c->b), RG_OK);
        assert_int_equal(rg_bconn_poll(&r->listener->b, 1), RG_OK);
    }
    assert_int_equal(rg_bconn_wait(&r->c->b, last), RG_OK);
}

static uint64_t now_ms(void *ud) {
    (void)ud;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

static reader *open_reader(int port, int protocol, rg_cache_config cfg) {
    reader *r = calloc(1, sizeof *r);
    assert_non_null(r);
    r->c = open_client(port, protocol);
    cfg.mem = r->mem;
    cfg.mem_size = sizeof r->mem;
    cfg.now_ms = now_ms;
    assert_int_equal(rg_cache_init(&r->cache, &cfg), RG_OK);
    assert_int_equal(rg_cache_attach(&r->cache, &r->c->b.conn), RG_OK);
    return r;
}

/* A RESP2 listener: CLIENT ID, then SUBSCRIBE __redis__:invalidate (confirmed), then the cache
 * is told its id. */
static void listen_on(reader *r, client *l) {
    redis_client_id_result id;
    uint64_t call = redis_client_id_call(&l->b.conn, &id, NULL, NULL);
    assert_int_equal(rg_bconn_wait(&l->b, call), RG_OK);
    const rg_view ch[] = {RG_LIT("__redis__:invalidate")};
    redis_subscribe_result sub;
    call = redis_subscribe_call(&l->b.conn, ch, 1, &sub, NULL, NULL);
    assert_int_equal(rg_bconn_wait(&l->b, call), RG_OK);
    rg_cache_redirect(&r->cache, (uint64_t)id.value);
}

static void close_reader(reader *r) {
    rg_cache_free(&r->cache);
    close_client(r->c);
    if (r->listener) close_client(r->listener);
    free(r);
}

/* Reads every key twice with the writer paused: the second read of each is a hit (nothing
 * changed, nothing is invalidated), with the value the first read gave. */
static void paused_pass(reader *r, writer *w) {
    atomic_store(&w->pause, true);
    while (!atomic_load(&w->paused)) test_sleep_ms(1);
    sync_invalidations(r);
    const uint64_t hits = rg_cache_stats_of(&r->cache).hits;
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < KEYS; i++) {
            char key[16];
            key_name(key, sizeof key, i);
            r->ctx[0] = (read_ctx){r, i, atomic_load(&w->acked[i])};
            const uint64_t id =
                redis_get_cached(&r->cache, rg_cstr(key), &r->results[0], on_read, &r->ctx[0]);
            assert_true(id != 0);
            if (pass == 1) assert_true(id == RG_CACHE_HIT);
            if (id != RG_CACHE_HIT) assert_int_equal(rg_bconn_wait(&r->c->b, id), RG_OK);
        }
    }
    assert_true(rg_cache_stats_of(&r->cache).hits >= hits + KEYS);
    atomic_store(&w->pause, false);
}

/* The check under a concurrent writer: rounds of (take the acknowledged versions, sync the
 * invalidations, read everything through the cache, each read at least its key's floor), with
 * unsynced rounds between them for the race, and now and then a pass with the writer paused.
 * At least `rounds` rounds, and on until the writer has written 2,000 values (however slow the
 * machine: no timing is assumed). */
static void run_against_writer(reader *r, int port, int rounds) {
    writer *w = calloc(1, sizeof *w);
    assert_non_null(w);
    w->port = port;
    w->c = open_client(port, 3);
    w->next = next_version;
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, write_loop, w), 0);
    uint64_t rng = 2463534242u, floors[KEYS];
    for (int round = 0; round < rounds || atomic_load(&w->writes) < 2000; round++) {
        if (atomic_load(&w->failed)) break;
        for (int i = 0; i < KEYS; i++) floors[i] = atomic_load(&w->acked[i]);
        sync_invalidations(r);
        for (int k = 0; k < KEYS / PIPE; k++) read_round(r, &rng, floors);
        for (int k = 0; k < KEYS / MKEYS / 4; k++) mget_round(r, &rng, floors);
        for (int k = 0; k < 4; k++) read_round(r, &rng, NULL);
        if (round % 10 == 9) paused_pass(r, w);
    }
    atomic_store(&w->stop, true);
    pthread_join(t, NULL);
    next_version = w->next;
    close_client(w->c);
    const uint64_t writes = atomic_load(&w->writes);
    const bool failed = atomic_load(&w->failed);
    free(w);
    assert_false(failed);
    assert_int_equal(r->failed, 0);
    const rg_cache_stats s = rg_cache_stats_of(&r->cache);
    fprintf(stderr,
            "  writes %llu, reads checked %llu: hits %llu, misses %llu, stored %llu, dropped in "
            "flight %llu, invalidations %llu, flushes %llu\n",
            (unsigned long long)writes, (unsigned long long)r->checked, (unsigned long long)s.hits,
            (unsigned long long)s.misses, (unsigned long long)s.stored,
            (unsigned long long)s.dropped, (unsigned long long)s.invalidations,
            (unsigned long long)s.flushes);
    assert_int_equal(r->stale, 0);
    assert_true(writes >= 2000 && s.invalidations > 0);
}

static test_redis server;

static int setup(void **state) {
    (void)state;
    const char *const args[] = {"--save", "", "--appendonly", "no", NULL};
    return test_redis_start(&server, args);
}

static int teardown(void **state) {
    (void)state;
    test_redis_stop(&server);
    return 0;
}

static void stale_resp3_default(void **state) {
    (void)state;
    reader *r = open_reader(server.port, 3, (rg_cache_config){0});
    run_against_writer(r, server.port, 40);
    close_reader(r);
}

static void stale_resp3_optin(void **state) {
    (void)state;
    reader *r = open_reader(server.port, 3, (rg_cache_config){.mode = RG_CACHE_OPTIN});
    run_against_writer(r, server.port, 20);
    close_reader(r);
}

static void stale_resp3_bcast(void **state) {
    (void)state;
    const rg_view prefixes[] = {RG_LIT("ck:")};
    reader *r = open_reader(
        server.port, 3,
        (rg_cache_config){.mode = RG_CACHE_BCAST, .prefixes = prefixes, .nprefixes = 1});
    run_against_writer(r, server.port, 20);
    close_reader(r);
}

static void stale_resp2_redirect(void **state) {
    (void)state;
    reader *r = open_reader(server.port, 2, (rg_cache_config){0});
    r->listener = open_client(server.port, 2);
    assert_int_equal(rg_cache_listen(&r->cache, &r->listener->b.conn), RG_OK);
    listen_on(r, r->listener);
    run_against_writer(r, server.port, 40);
    close_reader(r);
}

/* One key through the cache, with the writer's value checked (single-threaded). */
static uint64_t read_key(reader *r, const char *key, bool *hit) {
    redis_get_result g;
    memset(&g, 0, sizeof g);
    const uint64_t id = redis_get_cached(&r->cache, rg_cstr(key), &g, NULL, NULL);
    assert_true(id != 0);
    *hit = id == RG_CACHE_HIT;
    if (!*hit) assert_int_equal(rg_bconn_wait(&r->c->b, id), RG_OK);
    return version_of(g.value);
}

static void set_key(client *w, const char *key, uint64_t version) {
    char value[24];
    snprintf(value, sizeof value, "%llu", (unsigned long long)version);
    const uint64_t id =
        redis_set_call(&w->b.conn, rg_cstr(key), rg_cstr(value), NULL, NULL, NULL, NULL);
    assert_int_equal(rg_bconn_wait(&w->b, id), RG_OK);
}

/* The server is killed and restarted empty: nothing cached before is served after, tracking is
 * sent again on the new connection (a write after is invalidated), for RESP3 and REDIRECT. */
static void through_reconnect(void **state) {
    (void)state;
    for (int redirect = 0; redirect <= 1; redirect++) {
        reader *r = open_reader(server.port, redirect ? 2 : 3, (rg_cache_config){0});
        if (redirect) {
            r->listener = open_client(server.port, 2);
            assert_int_equal(rg_cache_listen(&r->cache, &r->listener->b.conn), RG_OK);
            listen_on(r, r->listener);
        }
        client *w = open_client(server.port, 3);
        bool hit;
        set_key(w, "rk", 10);
        assert_int_equal(read_key(r, "rk", &hit), 10);
        assert_int_equal(read_key(r, "rk", &hit), 10);
        assert_true(hit);
        const char *const args[] = {"--save", "", "--appendonly", "no", NULL};
        assert_int_equal(test_redis_restart(&server, args), 0);
        /* the cached connection notices the loss at its next use; the writer reconnects */
        rg_bconn_poll(&r->c->b, 50);
        if (redirect) rg_bconn_poll(&r->listener->b, 50);
        assert_int_equal(rg_bconn_reconnect(&w->b), RG_OK);
        set_key(w, "rk", 11);
        assert_int_equal(rg_cache_stats_of(&r->cache).entries, 0); /* flushed on the loss */
        assert_int_equal(rg_bconn_reconnect(&r->c->b), RG_OK);
        if (redirect) {
            assert_int_equal(rg_cache_tracking(&r->cache), RG_CACHE_TRACK_WAIT);
            assert_int_equal(rg_bconn_reconnect(&r->listener->b), RG_OK);
            listen_on(r, r->listener);
        }
        assert_int_equal(read_key(r, "rk", &hit), 11);
        assert_false(hit);
        assert_int_equal(read_key(r, "rk", &hit), 11);
        assert_true(hit); /* caching again */
        set_key(w, "rk", 12);
        sync_invalidations(r);
        assert_int_equal(read_key(r, "rk", &hit), 12); /* tracked again */
        assert_false(hit);
        close_client(w);
        close_reader(r);
    }
}

/* ---- a hit's typed result is the reply's ------------------------------------------------------
 */

/* Runs a command given as words (split at spaces) and waits for it. */
static void command(client *c, const char *words) {
    rg_view argv[16];
    size_t n = 0;
    for (const char *p = words; *p && n < 16;) {
        const char *e = strchr(p, ' ');
        const size_t len = e ? (size_t)(e - p) : strlen(p);
        argv[n++] = (rg_view){p, len};
        p += len + (e != NULL);
    }
    rg_call_record rec = {0};
    const uint64_t id = rg_conn_call_argv(&c->b.conn, n, argv, NULL, NULL, rg_call_record_fn, &rec);
    assert_true(id != 0);
    assert_int_equal(rg_bconn_wait(&c->b, id), RG_OK);
    assert_int_equal(rec.status, RG_OK);
}

enum { R_VIEWS, R_PAIRS, R_SCORE, R_INT, R_STREAM };

/* A rendering of a typed result, made in its callback (where its views are valid). */
typedef struct rendered {
    int shape;
    bool hit;
    char text[256];
} rendered;

static void put_view(char *out, size_t cap, rg_view v) {
    const size_t n = strlen(out);
    if (v.ptr) {
        snprintf(out + n, cap - n, "%.*s,", (int)v.len, v.ptr);
    } else {
        snprintf(out + n, cap - n, "(nil),");
    }
}

static void on_render(void *ud, const rg_call_done *d) {
    rendered *x = ud;
    x->hit = d->id == RG_CACHE_HIT;
    x->text[0] = '\0';
    if (d->status != RG_OK) {
        snprintf(x->text, sizeof x->text, "status %s", rg_status_name(d->status));
        return;
    }
    const size_t cap = sizeof x->text;
    switch (x->shape) {
    case R_VIEWS: {
        const redis_lrange_result *r = d->result; /* LRANGE, SMEMBERS, HMGET: one layout */
        for (size_t i = 0; i < r->value.count; i++) put_view(x->text, cap, r->value.items[i]);
        break;
    }
    case R_PAIRS: {
        const redis_hgetall_result *r = d->result;
        for (size_t i = 0; i < r->value.count; i++) {
            put_view(x->text, cap, r->value.items[i].key);
            put_view(x->text, cap, r->value.items[i].value);
        }
        break;
    }
    case R_SCORE: {
        const redis_zscore_result *r = d->result;
        snprintf(x->text, cap, "%d:%g", r->value.which, r->value.number);
        break;
    }
    case R_INT: snprintf(x->text, cap, "%lld", (long long)((const int64_t *)d->result)[0]); break;
    default: {
        const redis_xrange_result *r = d->result;
        for (size_t i = 0; i < r->value.count; i++) {
            put_view(x->text, cap, r->value.items[i].key);
            for (size_t j = 0; j < r->value.items[i].value.count; j++)
                put_view(x->text, cap, r->value.items[i].value.items[j]);
        }
        break;
    }
    }
}

/* Each command twice through the cache: a miss (the server's reply), then a hit that renders the
 * same typed result, for lists, pairs (a RESP3 map, or RESP2's flat array), nullable elements,
 * a double, an integer and nested arrays; over RESP3 and RESP2 with REDIRECT. */
static void hit_same_result(void **state) {
    (void)state;
    client *w = open_client(server.port, 3);
    command(w, "DEL hl hh hz hs hx");
    command(w, "RPUSH hl a b c");
    command(w, "HSET hh f1 v1 f2 v2");
    command(w, "ZADD hz 1.5 m");
    command(w, "SADD hs x y z");
    command(w, "XADD hx 1-1 f v g w");
    for (int redirect = 0; redirect <= 1; redirect++) {
        reader *r = open_reader(server.port, redirect ? 2 : 3, (rg_cache_config){0});
        if (redirect) {
            r->listener = open_client(server.port, 2);
            assert_int_equal(rg_cache_listen(&r->cache, &r->listener->b.conn), RG_OK);
            listen_on(r, r->listener);
        }
        const rg_view fields[] = {RG_LIT("f2"), RG_LIT("nope"), RG_LIT("f1")};
        const char *expect[] = {"a,b,c,", "f1,v1,f2,v2,", "v2,(nil),v1,", "1:1.5",
                                "3",      "1-1,f,v,g,w,", "x,y,z,"};
        for (int cmd = 0; cmd < 7; cmd++) {
            rendered got[2];
            union {
                redis_lrange_result l;
                redis_hgetall_result h;
                redis_hmget_result m;
                redis_zscore_result z;
                redis_llen_result n;
                redis_xrange_result x;
                redis_smembers_result s;
            } res[2];
            for (int k = 0; k < 2; k++) {
                rendered *x = &got[k];
                uint64_t id = 0;
                switch (cmd) {
                case 0:
                    x->shape = R_VIEWS;
                    id = redis_lrange_cached(&r->cache, RG_LIT("hl"), 0, -1, &res[k].l, on_render,
                                             x);
                    break;
                case 1:
                    x->shape = R_PAIRS;
                    id = redis_hgetall_cached(&r->cache, RG_LIT("hh"), &res[k].h, on_render, x);
                    break;
                case 2:
                    x->shape = R_VIEWS;
                    id = redis_hmget_cached(&r->cache, RG_LIT("hh"), fields, 3, &res[k].m,
                                            on_render, x);
                    break;
                case 3:
                    x->shape = R_SCORE;
                    id = redis_zscore_cached(&r->cache, RG_LIT("hz"), RG_LIT("m"), &res[k].z,
                                             on_render, x);
                    break;
                case 4:
                    x->shape = R_INT;
                    id = redis_llen_cached(&r->cache, RG_LIT("hl"), &res[k].n, on_render, x);
                    break;
                case 5:
                    x->shape = R_STREAM;
                    id = redis_xrange_cached(&r->cache, RG_LIT("hx"), RG_LIT("-"), RG_LIT("+"),
                                             NULL, &res[k].x, on_render, x);
                    break;
                default:
                    x->shape = R_VIEWS;
                    id = redis_smembers_cached(&r->cache, RG_LIT("hs"), &res[k].s, on_render, x);
                    break;
                }
                assert_true(id != 0);
                if (id != RG_CACHE_HIT) assert_int_equal(rg_bconn_wait(&r->c->b, id), RG_OK);
            }
            assert_false(got[0].hit);
            assert_true(got[1].hit);
            assert_string_equal(got[1].text, got[0].text);
            if (cmd != 6) {
                assert_string_equal(got[0].text, expect[cmd]);
            } else {
                assert_int_equal(strlen(got[0].text), strlen(expect[cmd])); /* any order */
            }
        }
        close_reader(r);
    }
    close_client(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stale_resp3_default), cmocka_unit_test(stale_resp3_optin),
        cmocka_unit_test(stale_resp3_bcast),   cmocka_unit_test(stale_resp2_redirect),
        cmocka_unit_test(through_reconnect),   cmocka_unit_test(hit_same_result),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
