/* Replies larger than the input buffer (runtime/rg_conn.h, rg_conn_config.alloc): 1 MiB bulks
 * through 64-byte to 4 KiB buffers in random chunkings with RESP3 pushes between the replies,
 * typed results exact; max_reply exceeded fails the connection with RG_ERR_LIMIT; replies that
 * fit never call the allocator; held results stay valid while the buffer grows under them; the
 * grown buffer goes back after a big reply and at rg_conn_free.
 *
 * The allocator under test poisons every block it frees or moves, so a view left pointing into
 * old memory reads garbage even without ASan. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memmem */
#endif
#include "rg_conn.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* ---- a counting, poisoning allocator -------------------------------------------------------- */

typedef struct counter {
    size_t allocs, resizes, frees, live;
} counter;

#define HEAD 16 /* the block's size, in front of what the engine sees */

static void poison_free(char *p) {
    size_t n;
    memcpy(&n, p - HEAD, sizeof n);
    memset(p - HEAD, 0xdd, n + HEAD);
    free(p - HEAD);
}

static void *counting(void *ud, void *ptr, size_t size) {
    counter *k = ud;
    if (size == 0) {
        if (ptr) {
            k->frees++;
            k->live--;
            poison_free(ptr);
        }
        return NULL;
    }
    char *const p = malloc(HEAD + size);
    assert_non_null(p);
    memcpy(p, &size, sizeof size);
    if (ptr) {
        size_t old;
        memcpy(&old, (char *)ptr - HEAD, sizeof old);
        memcpy(p + HEAD, ptr, old < size ? old : size);
        poison_free(ptr); /* always moved: a view into the old block is caught */
        k->resizes++;
    } else {
        k->allocs++;
        k->live++;
    }
    return p + HEAD;
}

/* ---- the bed -------------------------------------------------------------------------------- */

typedef struct view_result {
    rg_view value;
} view_result;
typedef struct int_result {
    int64_t value;
} int_result;

static const rg_rnode VIEW_NODES[] = {
    {RG_RA_STR | RG_RA_NULL, RG_RS_SCALAR, RG_RT_VIEW, 0, 0, 0, 0, 0, NULL}};
static const rg_rnode INT_NODES[] = {{RG_RA_INT, RG_RS_SCALAR, RG_RT_I64, 0, 0, 0, 0, 0, NULL}};
static const rg_rtable VIEW_TABLE = {"GET", VIEW_NODES, sizeof(view_result), RG_RF_VIEW};
static const rg_rtable INT_TABLE = {"INCR", INT_NODES, sizeof(int_result), 0};

enum { MAX_CALLS = 64, MAX_IN = 4096 };

typedef struct expect {
    const char *bytes; /* the value the call's result must hold (NULL: an integer) */
    size_t len;
    int64_t number;
    view_result v;
    int_result i;
    rg_status status;
    bool done;
} expect;

typedef struct bed {
    rg_conn c;
    char in[MAX_IN], out[8192];
    rg_call calls[MAX_CALLS];
    uint64_t storage[64]; /* given: with alloc, a missing buffer would be a default */
    expect ex[MAX_CALLS];
    size_t n;
    size_t pushes;
    counter k;
    char *stream; /* the server's replies, growing */
    size_t len, cap;
} bed;

static void on_done(void *ud, const rg_call_done *d) {
    expect *e = ud;
    assert_false(e->done);
    e->done = true;
    e->status = d->status;
    if (d->status != RG_OK) return;
    if (e->bytes) {
        assert_int_equal(e->v.value.len, e->len);
        if (e->len) assert_memory_equal(e->v.value.ptr, e->bytes, e->len); /* exact */
    } else {
        assert_int_equal(e->i.value, e->number);
    }
}

static void on_push(void *ud, const rg_push *p) {
    bed *b = ud;
    assert_int_equal(p->kind, RG_PUSH_MESSAGE);
    assert_true(p->payload.len == 5 && memcmp(p->payload.ptr, "hello", 5) == 0);
    b->pushes++;
}

static void start(bed *b, size_t in_cap, rg_alloc_fn alloc, size_t max_reply) {
    memset(b, 0, offsetof(bed, stream));
    b->len = 0;
    const rg_conn_config cfg = {.in = b->in,
                                .in_cap = in_cap,
                                .out = b->out,
                                .out_cap = sizeof b->out,
                                .calls = b->calls,
                                .ncalls = MAX_CALLS,
                                .storage = b->storage,
                                .storage_cap = sizeof b->storage,
                                .on_push = on_push,
                                .push_ud = b,
                                .protocol = 0, /* ready at once: the stream is replies only */
                                .alloc = alloc,
                                .alloc_ud = &b->k,
                                .max_reply = max_reply};
    assert_int_equal(rg_conn_init(&b->c, &cfg), RG_OK);
}

static void add(bed *b, const void *bytes, size_t n) {
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2;
        b->stream = realloc(b->stream, b->cap);
        assert_non_null(b->stream);
    }
    memcpy(b->stream + b->len, bytes, n);
    b->len += n;
}

static void add_push(bed *b) {
    static const char m[] = ">3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$5\r\nhello\r\n";
    add(b, m, sizeof m - 1);
}

/* A GET whose reply is the bulk value[0..n), appended to the stream. */
static expect *get(bed *b, const char *value, size_t n) {
    expect *e = &b->ex[b->n++];
    const rg_view argv[] = {RG_LIT("GET"), RG_LIT("k")};
    e->bytes = value;
    e->len = n;
    assert_true(rg_conn_call_argv(&b->c, 2, argv, &VIEW_TABLE, &e->v, on_done, e) != 0);
    char head[32];
    add(b, head, (size_t)snprintf(head, sizeof head, "$%zu\r\n", n));
    add(b, value, n);
    add(b, "\r\n", 2);
    return e;
}

static expect *incr(bed *b, int64_t v) {
    expect *e = &b->ex[b->n++];
    const rg_view argv[] = {RG_LIT("INCR"), RG_LIT("k")};
    e->number = v;
    assert_true(rg_conn_call_argv(&b->c, 2, argv, &INT_TABLE, &e->i, on_done, e) != 0);
    char line[32];
    add(b, line, (size_t)snprintf(line, sizeof line, ":%lld\r\n", (long long)v));
    return e;
}

static bool same_bytes(rg_view v, const char *s) {
    return v.len == strlen(s) && memcmp(v.ptr, s, v.len) == 0;
}

static uint64_t next_random(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Feeds the stream as an adapter does (rg_conn_read_buf, then a read of at most what the
 * chunking allows), chunks of 1 to max_chunk bytes. Returns the bytes taken. */
static size_t feed_random(bed *b, uint64_t seed, size_t max_chunk) {
    size_t at = 0;
    while (at < b->len && rg_conn_state_of(&b->c) != RG_CONN_FAILED) {
        size_t room;
        char *dst = rg_conn_read_buf(&b->c, &room);
        if (!dst) break;
        size_t n = 1 + (size_t)(next_random(&seed) % max_chunk);
        if (n > room) n = room;
        if (n > b->len - at) n = b->len - at;
        memcpy(dst, b->stream + at, n);
        at += n;
        rg_conn_feed(&b->c, n);
    }
    return at;
}

static char *pattern(size_t n, unsigned salt) {
    char *p = malloc(n);
    assert_non_null(p);
    for (size_t i = 0; i < n; i++) p[i] = (char)((i * 131u + salt + (i >> 12)) & 0xff);
    return p;
}

/* ---- tests ---------------------------------------------------------------------------------- */

/* 1 MiB bulks (and small replies) with pushes between them, through 64 B..4 KiB buffers. */
static void grow_big_bulks(void **state) {
    (void)state;
    static bed b;
    const size_t mib = (size_t)1 << 20;
    char *big1 = pattern(mib, 1), *big2 = pattern(mib + 7, 2);
    const size_t caps[] = {64, 100, 512, 4096};
    uint64_t seed = 0x9e3779b97f4a7c15u;
    for (size_t ci = 0; ci < sizeof caps / sizeof caps[0]; ci++) {
        for (int round = 0; round < 3; round++) {
            start(&b, caps[ci], counting, 0);
            add_push(&b);
            expect *e1 = get(&b, big1, mib);
            add_push(&b);
            expect *e2 = incr(&b, 42);
            expect *e3 = get(&b, "abc", 3);
            add_push(&b);
            add_push(&b);
            expect *e4 = get(&b, big2, mib + 7);
            expect *e5 = get(&b, "", 0);
            add_push(&b);
            const size_t max_chunk = round == 0 ? 7 : round == 1 ? 1500 : 70000;
            assert_int_equal(feed_random(&b, next_random(&seed), max_chunk), b.len);
            assert_int_equal(rg_conn_state_of(&b.c), RG_CONN_READY);
            const expect *all[] = {e1, e2, e3, e4, e5};
            for (size_t i = 0; i < 5; i++) assert_true(all[i]->done && all[i]->status == RG_OK);
            assert_int_equal(b.pushes, 5);
            assert_int_equal(rg_conn_pending(&b.c), 0);
            assert_true(b.k.allocs >= 1);
            /* Idle after a buffer over RG_CONN_KEEP_GROWN: back to the caller's. */
            size_t room;
            assert_non_null(rg_conn_read_buf(&b.c, &room));
            assert_ptr_equal(rg_conn_config_of(&b.c)->in, b.in);
            assert_int_equal(rg_conn_config_of(&b.c)->in_cap, caps[ci]);
            assert_int_equal(b.k.live, 0);
            rg_conn_free(&b.c);
            assert_int_equal(b.k.allocs, b.k.frees);
        }
    }
    free(big1);
    free(big2);
    free(b.stream);
    b.stream = NULL;
}

/* Above max_reply: RG_ERR_LIMIT naming the size, the connection failed, nothing misread. */
static void grow_over_max(void **state) {
    (void)state;
    static bed b;
    char *big = pattern(10000, 3);
    start(&b, 256, counting, 8192);
    expect *e1 = get(&b, "first", 5);
    expect *e2 = get(&b, big, 10000); /* needs more than 8192 bytes at once */
    expect *e3 = incr(&b, 7);
    assert_true(feed_random(&b, 12345, 300) < b.len);
    assert_true(e1->done && e1->status == RG_OK);
    assert_true(e2->done && e2->status == RG_ERR_LIMIT);
    assert_true(e3->done && e3->status == RG_ERR_LIMIT);
    assert_int_equal(rg_conn_state_of(&b.c), RG_CONN_FAILED);
    const rg_error err = rg_conn_error(&b.c);
    assert_int_equal(err.status, RG_ERR_LIMIT);
    assert_non_null(memmem(err.msg.ptr, err.msg.len, "max_reply", 9));
    assert_non_null(memmem(err.msg.ptr, err.msg.len, "8192", 4));
    assert_int_equal(rg_conn_config_of(&b.c)->in_cap, 8192);
    /* Later calls fail, later reads get no room. */
    const rg_view argv[] = {RG_LIT("PING")};
    assert_int_equal(rg_conn_call_argv(&b.c, 1, argv, NULL, NULL, NULL, NULL), 0);
    size_t room;
    assert_null(rg_conn_read_buf(&b.c, &room));
    assert_int_equal(room, 0);
    assert_int_equal(rg_conn_feed_copy(&b.c, "+OK\r\n", 5, NULL), 0);
    rg_conn_free(&b.c);
    assert_int_equal(b.k.live, 0);
    /* The default maximum; and without an allocator the input stays as it was (NULL when full). */
    start(&b, 256, counting, 0);
    assert_int_equal(rg_conn_config_of(&b.c)->max_reply, RG_CONN_MAX_REPLY);
    start(&b, 256, NULL, 0);
    get(&b, big, 10000);
    assert_int_equal(feed_random(&b, 99, 300), 256);
    assert_null(rg_conn_read_buf(&b.c, &room));
    assert_int_equal(rg_conn_state_of(&b.c), RG_CONN_READY);
    rg_conn_free(&b.c);
    free(big);
    free(b.stream);
    b.stream = NULL;
}

/* Replies that fit (up to exactly the buffer's size) never call the allocator. */
static void grow_none_when_fits(void **state) {
    (void)state;
    static bed b;
    char *v = pattern(MAX_IN, 4);
    uint64_t seed = 77;
    for (int round = 0; round < 20; round++) {
        start(&b, MAX_IN, counting, 0);
        for (size_t i = 0; i < MAX_CALLS - 1; i++) {
            /* the largest is $4087\r\n + 4087 bytes + \r\n: 4096, the whole buffer */
            const size_t n = i == 0 ? MAX_IN - 9 : (size_t)(next_random(&seed) % 3000);
            if (i % 5 == 4) {
                incr(&b, (int64_t)i);
            } else {
                get(&b, v, n);
            }
            if (i % 7 == 3) add_push(&b);
        }
        assert_int_equal(feed_random(&b, next_random(&seed), round % 2 ? 5000 : 9), b.len);
        for (size_t i = 0; i < b.n; i++) assert_true(b.ex[i].done && b.ex[i].status == RG_OK);
        assert_int_equal(b.k.allocs + b.k.resizes, 0);
        rg_conn_free(&b.c);
    }
    free(v);
    free(b.stream);
    b.stream = NULL;
}

/* Held results stay valid while the input grows under them (twice: a grown block retired too);
 * the retired blocks go back at the first read after the hold is released. */
static void grow_held(void **state) {
    (void)state;
    static bed b;
    char *big1 = pattern(3000, 5), *big2 = pattern(20000, 6);
    start(&b, 256, counting, 0);
    rg_conn_hold(&b.c, true);
    expect *e1 = get(&b, "small", 5);
    expect *e2 = get(&b, big1, 3000);
    add_push(&b);
    expect *e3 = get(&b, big2, 20000);
    expect *e4 = get(&b, "last", 4);
    assert_int_equal(feed_random(&b, 4242, 333), b.len);
    const expect *all[] = {e1, e2, e3, e4};
    for (size_t i = 0; i < 4; i++) {
        assert_true(all[i]->done && all[i]->status == RG_OK);
        /* After every read: the views still hold the values. */
        assert_int_equal(all[i]->v.value.len, all[i]->len);
        assert_memory_equal(all[i]->v.value.ptr, all[i]->bytes, all[i]->len);
    }
    assert_ptr_equal(e1->v.value.ptr >= b.in && e1->v.value.ptr < b.in + 256, true);
    assert_true(b.k.live >= 2);       /* the one in use and at least one retired */
    assert_int_equal(b.k.resizes, 0); /* held: never resized in place */
    size_t room;
    assert_non_null(rg_conn_read_buf(&b.c, &room)); /* still held: nothing goes */
    assert_memory_equal(e2->v.value.ptr, big1, 3000);
    rg_conn_hold(&b.c, false);
    assert_non_null(rg_conn_read_buf(&b.c, &room));
    assert_int_equal(b.k.live, 1); /* 32 KiB, under RG_CONN_KEEP_GROWN: kept */
    assert_int_equal(rg_conn_config_of(&b.c)->in_cap, 32768);
    /* Kept across a reset, and used again. */
    assert_int_equal(rg_conn_reset(&b.c), RG_OK);
    const size_t allocs = b.k.allocs;
    b.len = 0;
    b.n = 0;
    memset(b.ex, 0, sizeof b.ex);
    get(&b, big2, 20000);
    assert_int_equal(feed_random(&b, 5, 4000), b.len);
    assert_true(b.ex[0].done && b.ex[0].status == RG_OK);
    assert_int_equal(b.k.allocs, allocs);
    rg_conn_free(&b.c);
    assert_int_equal(b.k.live, 0);
    assert_ptr_equal(rg_conn_config_of(&b.c)->in, b.in);
    rg_conn_free(&b.c); /* twice: nothing */
    assert_int_equal(b.k.frees, b.k.allocs);
    free(big1);
    free(big2);
    free(b.stream);
    b.stream = NULL;
}

/* Held again between batches (as the cluster client does): the earlier batch's bytes go at the
 * next read, so batches that each fit never need more than the buffer, allocator or not; a hold
 * taken after a reply was read keeps it where it is. */
static void hold_batches(void **state) {
    (void)state;
    static bed b;
    char *v = pattern(200, 7);
    start(&b, 256, NULL, 0);
    rg_conn_hold(&b.c, true);
    for (int batch = 0; batch < 5; batch++) {
        b.len = 0;
        expect *e = get(&b, v, 200);
        assert_int_equal(feed_random(&b, (uint64_t)batch + 1, 64), b.len);
        assert_true(e->done && e->status == RG_OK);
        assert_memory_equal(e->v.value.ptr, v, 200);
        rg_conn_hold(&b.c, false);
        rg_conn_hold(&b.c, true);
    }
    /* A hold taken between two feeds of one read: the reply read after it stays where it is
     * (it was moved, and then overwritten by the next read, before). */
    rg_conn_hold(&b.c, false);
    b.len = 0;
    get(&b, "abc", 3);
    expect *e = get(&b, "defg", 4);
    expect *last = get(&b, "zzzzzzzz", 8);
    size_t room;
    char *dst = rg_conn_read_buf(&b.c, &room);
    memcpy(dst, b.stream, 9); /* $3 abc */
    rg_conn_feed(&b.c, 9);
    rg_conn_hold(&b.c, true);
    memcpy(dst + 9, b.stream + 9, 10); /* $4 defg */
    rg_conn_feed(&b.c, 10);
    assert_true(e->done && same_bytes(e->v.value, "defg"));
    dst = rg_conn_read_buf(&b.c, &room);
    memcpy(dst, b.stream + 19, b.len - 19);
    rg_conn_feed(&b.c, b.len - 19);
    assert_true(last->done && last->status == RG_OK);
    assert_true(same_bytes(e->v.value, "defg"));
    rg_conn_free(&b.c);
    free(v);
    free(b.stream);
    b.stream = NULL;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(grow_big_bulks),      cmocka_unit_test(grow_over_max),
        cmocka_unit_test(grow_none_when_fits), cmocka_unit_test(grow_held),
        cmocka_unit_test(hold_batches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
