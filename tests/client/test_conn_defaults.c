/* Memory that grows through the allocator (runtime/rg_conn.h, rg_conn_config.alloc): the
 * buffers a config leaves out are allocated at init with the documented sizes and given back at
 * rg_conn_free; the output grows for a request that does not fit (also while pinned: the pinned
 * bytes stay where the write reads them), the ring doubles (ids stay valid, also when callbacks
 * make calls in the middle of an EXEC), the shared array storage grows and the reply is decoded
 * again; each stops at its bound; an allocator that refuses fails the call cleanly and the
 * connection lives on; replies and requests that fit allocate nothing.
 *
 * The allocator under test poisons what it frees or moves and can be told to refuse. */
#include "rg_conn.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* ---- a counting, poisoning, refusing allocator ---------------------------------------------- */

typedef struct counter {
    size_t allocs, resizes, frees, live;
    size_t refuse_above; /* sizes above this are refused (0: none) */
} counter;

#define HEAD 16

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
    if (k->refuse_above && size > k->refuse_above) return NULL;
    char *const p = malloc(HEAD + size);
    assert_non_null(p);
    memcpy(p, &size, sizeof size);
    memset(p + HEAD, 0xaa, size);
    if (ptr) {
        size_t old;
        memcpy(&old, (char *)ptr - HEAD, sizeof old);
        memcpy(p + HEAD, ptr, old < size ? old : size);
        poison_free(ptr);
        k->resizes++;
    } else {
        k->allocs++;
        k->live++;
    }
    return p + HEAD;
}

static size_t calls_to(const counter *k) {
    return k->allocs + k->resizes + k->frees;
}

/* ---- tables --------------------------------------------------------------------------------- */

typedef struct view_result {
    rg_view value;
} view_result;
typedef struct list_result {
    struct {
        rg_view *items;
        size_t count;
    } value;
} list_result;

static const rg_rnode VIEW_NODES[] = {
    {RG_RA_STR | RG_RA_NULL, RG_RS_SCALAR, RG_RT_VIEW, 0, 0, 0, 0, 0, NULL}};
static const rg_rtable VIEW_TABLE = {"GET", VIEW_NODES, sizeof(view_result), RG_RF_VIEW};
static const rg_rnode LIST_NODES[] = {{RG_RA_ARR, RG_RS_ARRAY, RG_RT_NONE, 1, 1, 0,
                                       offsetof(list_result, value), sizeof(rg_view), NULL},
                                      {RG_RA_STR, RG_RS_SCALAR, RG_RT_VIEW, 0, 0, 0, 0, 0, NULL}};
static const rg_rtable LIST_TABLE = {"LRANGE", LIST_NODES, sizeof(list_result), 0};

/* ---- helpers -------------------------------------------------------------------------------- */

/* A RESP array of n bulks "e<i>" in buf; returns its length. */
static size_t array_reply(char *buf, size_t cap, size_t n) {
    size_t len = (size_t)snprintf(buf, cap, "*%zu\r\n", n);
    for (size_t i = 0; i < n; i++) {
        char e[24];
        const int el = snprintf(e, sizeof e, "e%zu", i);
        len += (size_t)snprintf(buf + len, cap - len, "$%d\r\n%s\r\n", el, e);
    }
    return len;
}

static void check_list(const list_result *r, size_t n) {
    assert_int_equal(r->value.count, n);
    for (size_t i = 0; i < n; i++) {
        char e[24];
        const int el = snprintf(e, sizeof e, "e%zu", i);
        assert_int_equal(r->value.items[i].len, (size_t)el);
        assert_memory_equal(r->value.items[i].ptr, e, (size_t)el);
    }
}

typedef struct done_rec {
    rg_status status;
    size_t needed;
    int count;
    size_t list_n; /* > 0: check the list result in the callback (views valid there) */
    list_result *list;
    const view_result
        *view; /* not NULL: the value must be key's digits (checked in the callback) */
    size_t key;
} done_rec;

static void on_done(void *ud, const rg_call_done *d) {
    done_rec *r = ud;
    r->status = d->status;
    r->needed = d->needed;
    r->count++;
    if (d->status == RG_OK && r->list_n) check_list(r->list, r->list_n);
    if (d->status == RG_OK && r->view) {
        char key[24];
        const int kl = snprintf(key, sizeof key, "%zu", r->key);
        assert_int_equal(r->view->value.len, (size_t)kl);
        assert_memory_equal(r->view->value.ptr, key, (size_t)kl);
    }
}

static uint64_t call_words(rg_conn *c, const char *a, const char *b, const rg_rtable *t,
                           void *result, done_rec *rec) {
    const rg_view argv[2] = {rg_cstr(a), rg_cstr(b ? b : "")};
    return rg_conn_call_argv(c, b ? 2 : 1, argv, t, result, on_done, rec);
}

static void feed(rg_conn *c, const char *bytes, size_t n) {
    rg_conn_state st;
    assert_int_equal(rg_conn_feed_copy(c, bytes, n, &st), n);
}

static void feed_str(rg_conn *c, const char *s) {
    feed(c, s, strlen(s));
}

/* Everything queued is written (a synchronous write). */
static void drain(rg_conn *c) {
    size_t n;
    while (rg_conn_output(c, &n)) rg_conn_written(c, n);
}

static rg_conn_config grown_config(counter *k) {
    return (rg_conn_config){.protocol = 0, .alloc = counting, .alloc_ud = k};
}

/* ---- defaults ------------------------------------------------------------------------------- */

static void defaults_at_init(void **state) {
    (void)state;
    counter k = {0};
    rg_conn c;
    const rg_conn_config cfg = grown_config(&k);
    assert_int_equal(rg_conn_init(&c, &cfg), RG_OK);
    const rg_conn_config *f = rg_conn_config_of(&c);
    assert_int_equal(f->in_cap, RG_CONN_DEFAULT_IN);
    assert_int_equal(f->out_cap, RG_CONN_DEFAULT_OUT);
    assert_int_equal(f->ncalls, RG_CONN_DEFAULT_CALLS);
    assert_int_equal(f->storage_cap, RG_CONN_DEFAULT_STORAGE);
    assert_int_equal(k.allocs, 1); /* one block */
    view_result r;
    done_rec rec = {0};
    assert_true(call_words(&c, "GET", "k", &VIEW_TABLE, &r, &rec) != 0);
    feed_str(&c, "$3\r\nabc\r\n");
    assert_int_equal(rec.status, RG_OK);
    assert_memory_equal(r.value.ptr, "abc", 3);
    rg_conn_free(&c);
    assert_int_equal(k.live, 0);
    /* started again: the defaults come back */
    assert_int_equal(rg_conn_reset(&c), RG_OK);
    assert_int_equal(rg_conn_config_of(&c)->in_cap, RG_CONN_DEFAULT_IN);
    assert_int_equal(k.live, 1);
    rg_conn_free(&c);
    rg_conn_free(&c); /* twice is safe */
    assert_int_equal(k.live, 0);
    assert_int_equal(k.allocs, k.frees);
}

static void defaults_refused(void **state) {
    (void)state;
    counter k = {.refuse_above = 1};
    rg_conn c;
    const rg_conn_config cfg = grown_config(&k);
    assert_int_equal(rg_conn_init(&c, &cfg), RG_FULL);
    assert_int_equal(rg_conn_state_of(&c), RG_CONN_FAILED);
    assert_int_equal(rg_conn_error(&c).status, RG_FULL);
    rg_conn_free(&c);
    assert_int_equal(k.live, 0);
    /* without alloc, every buffer is still required */
    const rg_conn_config none = {.protocol = 0};
    assert_int_equal(rg_conn_init(&c, &none), RG_INVALID);
}

/* ---- the output ----------------------------------------------------------------------------- */

static void out_grows(void **state) {
    (void)state;
    counter k = {0};
    char out[64];
    rg_conn c;
    rg_conn_config cfg = grown_config(&k);
    cfg.out = out;
    cfg.out_cap = sizeof out;
    cfg.max_out = 1 << 16;
    assert_int_equal(rg_conn_init(&c, &cfg), RG_OK);
    char *big = malloc(1 << 17);
    memset(big, 'v', 1 << 17);
    done_rec rec = {0};
    /* 5000 bytes through a 64-byte output, after a small request that stays in front */
    assert_true(call_words(&c, "GET", "a", NULL, NULL, &rec) != 0);
    const rg_view set[3] = {RG_LIT("SET"), RG_LIT("k"), {big, 5000}};
    assert_true(rg_conn_call_argv(&c, 3, set, NULL, NULL, on_done, &rec) != 0);
    size_t n;
    const char *o = rg_conn_output(&c, &n);
    const char *const head =
        "*2\r\n$3\r\nGET\r\n$1\r\na\r\n*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5000\r\n";
    assert_int_equal(n, strlen(head) + 5000 + 2);
    assert_memory_equal(o, head, strlen(head));
    assert_memory_equal(o + strlen(head), big, 5000);
    assert_true(rg_conn_config_of(&c)->out_cap >= n);
    drain(&c);
    /* over max_out: refused, nothing queued, the connection lives */
    const size_t pending = rg_conn_pending(&c);
    const rg_view huge[3] = {RG_LIT("SET"), RG_LIT("k"), {big, 1 << 16}};
    assert_int_equal(rg_conn_call_argv(&c, 3, huge, NULL, NULL, on_done, &rec), 0);
    assert_int_equal(rg_conn_pending(&c), pending);
    /* the allocator refusing: the same */
    k.refuse_above = 1;
    const rg_view mid[3] = {RG_LIT("SET"), RG_LIT("k"), {big, 30000}};
    assert_int_equal(rg_conn_call_argv(&c, 3, mid, NULL, NULL, on_done, &rec), 0);
    assert_int_equal(rg_conn_state_of(&c), RG_CONN_READY);
    assert_true(call_words(&c, "GET", "b", NULL, NULL, &rec) != 0);
    k.refuse_above = 0;
    feed_str(&c, "$-1\r\n+OK\r\n$-1\r\n");
    assert_int_equal(rec.count, 3);
    assert_int_equal(rg_conn_pending(&c), 0);
    rg_conn_free(&c);
    assert_int_equal(k.live, 0);
    free(big);
}

/* A pinned output (an asynchronous write reads it) grows into a new block: the pinned bytes stay
 * alive and unchanged where the write reads them until unpinned, and the block is freed then. */
static void out_grows_pinned(void **state) {
    (void)state;
    counter k = {0};
    char out[128];
    rg_conn c;
    rg_conn_config cfg = grown_config(&k);
    cfg.out = out;
    cfg.out_cap = sizeof out;
    assert_int_equal(rg_conn_init(&c, &cfg), RG_OK);
    done_rec rec = {0};
    char value[300];
    memset(value, 'x', sizeof value);
    const rg_view set[3] = {RG_LIT("SET"), RG_LIT("k"), {value, 100}};
    assert_true(rg_conn_call_argv(&c, 3, set, NULL, NULL, on_done, &rec) != 0);
    size_t n1;
    const char *w1 = rg_conn_output(&c, &n1);
    char copy1[256];
    memcpy(copy1, w1, n1);
    rg_conn_output_pin(&c, true); /* the write of w1[0..n1) is in flight */
    rg_conn_written(&c, 10);      /* part of it went */
    const rg_view set2[3] = {RG_LIT("SET"), RG_LIT("k"), {value, 200}};
    assert_true(rg_conn_call_argv(&c, 3, set2, NULL, NULL, on_done, &rec) != 0); /* grows */
    assert_memory_equal(w1, copy1, n1); /* the caller's block, untouched */
    size_t n2;
    const char *w2 = rg_conn_output(&c, &n2);
    assert_int_equal(n2, n1 - 10 + 228); /* SET k <200 bytes> */
    assert_memory_equal(w2, copy1 + 10, n1 - 10);
    /* grows again while still pinned: the grown block is retired, kept readable */
    const char *w2_block = w2 - 10;
    char copy2[1024];
    memcpy(copy2, w2_block, n2 + 10);
    value[0] = 'y';
    const rg_view set3[3] = {RG_LIT("SET"), RG_LIT("k"), {value, 300}};
    const size_t frees = k.frees;
    assert_true(rg_conn_call_argv(&c, 3, set3, NULL, NULL, on_done, &rec) != 0);
    assert_int_equal(k.frees, frees); /* not freed while pinned */
    assert_memory_equal(w2_block, copy2, n2 + 10);
    rg_conn_output_pin(&c, false);
    assert_int_equal(k.frees, frees + 1); /* freed at unpin */
    size_t n3;
    const char *w3 = rg_conn_output(&c, &n3);
    assert_memory_equal(w3, copy2 + 10, n2);
    assert_int_equal(w3[n3 - 3], 'x');
    assert_int_equal(w3[n3 - 302], 'y');
    drain(&c);
    feed_str(&c, "+OK\r\n+OK\r\n+OK\r\n");
    assert_int_equal(rec.count, 3);
    rg_conn_free(&c);
    assert_int_equal(k.live, 0);
}

/* ---- the ring ------------------------------------------------------------------------------- */

static void ring_grows(void **state) {
    (void)state;
    counter k = {0};
    rg_call calls[2];
    rg_conn c;
    rg_conn_config cfg = grown_config(&k);
    cfg.calls = calls;
    cfg.ncalls = 2;
    cfg.max_calls = 200; /* 128 */
    assert_int_equal(rg_conn_init(&c, &cfg), RG_OK);
    static view_result r[131];
    static done_rec rec[131];
    uint64_t ids[130];
    for (size_t i = 0; i < 130; i++) {
        char key[16];
        snprintf(key, sizeof key, "%zu", i);
        rec[i] = (done_rec){.view = &r[i], .key = i};
        ids[i] = call_words(&c, "GET", key, &VIEW_TABLE, &r[i], &rec[i]);
        assert_int_equal(ids[i], i + 1);
        if (i == 5) feed_str(&c, "$1\r\n0\r\n$1\r\n1\r\n"); /* replies while it grows */
    }
    assert_int_equal(rg_conn_config_of(&c)->ncalls, 128);
    assert_int_equal(rg_conn_pending(&c), 128);
    assert_int_equal(call_words(&c, "GET", "x", &VIEW_TABLE, &r[130], &rec[130]), 0); /* bound */
    assert_false(rg_conn_call_done(&c, ids[2]));
    assert_true(rg_conn_call_done(&c, ids[1]));
    for (size_t i = 2; i < 130; i++) {
        char reply[32];
        snprintf(reply, sizeof reply, "$%d\r\n%zu\r\n", i < 10 ? 1 : i < 100 ? 2 : 3, i);
        feed_str(&c, reply);
    }
    for (size_t i = 0; i < 130; i++) {
        assert_int_equal(rec[i].status, RG_OK);
        assert_int_equal(rec[i].count, 1);
    }
    rg_conn_free(&c);
    assert_int_equal(k.live, 0);
}

static void ring_refused(void **state) {
    (void)state;
    counter k = {.refuse_above = 1};
    rg_call calls[2];
    char in[256], out[256];
    rg_conn c;
    rg_conn_config cfg = grown_config(&k);
    cfg.calls = calls;
    cfg.ncalls = 2;
    cfg.in = in;
    cfg.in_cap = sizeof in;
    cfg.out = out;
    cfg.out_cap = sizeof out;
    cfg.storage = in; /* never used here */
    cfg.storage_cap = 8;
    assert_int_equal(rg_conn_init(&c, &cfg), RG_OK);
    done_rec rec = {0};
    assert_true(call_words(&c, "PING", NULL, NULL, NULL, &rec) != 0);
    assert_true(call_words(&c, "PING", NULL, NULL, NULL, &rec) != 0);
    assert_int_equal(call_words(&c, "PING", NULL, NULL, NULL, &rec), 0);
    assert_int_equal(rg_conn_state_of(&c), RG_CONN_READY);
    feed_str(&c, "+PONG\r\n+PONG\r\n");
    assert_int_equal(rec.count, 2);
    assert_int_equal(calls_to(&k), 0);
    rg_conn_free(&c);
}

/* Callbacks of a transaction's commands make calls that grow the ring under the engine while it
 * reads EXEC's array and aborts (DISCARD) or completes a transaction; the engine takes its calls
 * again after each callback (ASan and the poisoning allocator catch a stale pointer). */
typedef struct chain {
    rg_conn *c;
    int made;
    done_rec rec;
} chain;

static void on_chain(void *ud, const rg_call_done *d) {
    chain *ch = ud;
    (void)d;
    for (int i = 0; i < 6; i++) {
        ch->made +=
            rg_conn_call_argv(ch->c, 1, &RG_LIT("PING"), NULL, NULL, on_done, &ch->rec) != 0;
    }
}

static void ring_grows_in_callbacks(void **state) {
    (void)state;
    counter k = {0};
    rg_call calls[4];
    rg_conn c;
    rg_conn_config cfg = grown_config(&k);
    cfg.calls = calls;
    cfg.ncalls = 4;
    chain ch = {&c, 0, {0}};
    done_rec multi = {0}, exec = {0}, discard = {0}, aborted = {0};
    /* EXEC read element by element, DISCARD, EXEC read whole (EXECABORT) */
    static const char *const ends[] = {"EXEC", "DISCARD", "EXEC"};
    static const char *const replies[] = {"*3\r\n+PONG\r\n+PONG\r\n+PONG\r\n", "+OK\r\n",
                                          "-EXECABORT Transaction discarded\r\n"};
    done_rec *const end_recs[] = {&exec, &discard, &aborted};
    for (int round = 0; round < 3; round++) { /* each on a new ring of 4: it grows in the round */
        assert_int_equal(rg_conn_init(&c, &cfg), RG_OK);
        call_words(&c, "MULTI", NULL, NULL, NULL, &multi);
        for (int i = 0; i < 3; i++) {
            assert_true(rg_conn_call_argv(&c, 1, &RG_LIT("PING"), NULL, NULL, on_chain, &ch) != 0);
        }
        assert_true(call_words(&c, ends[round], NULL, NULL, NULL, end_recs[round]) != 0);
        feed_str(&c, "+OK\r\n+QUEUED\r\n+QUEUED\r\n+QUEUED\r\n");
        feed_str(&c, replies[round]);
        assert_int_equal(ch.made, 18 * (round + 1));
        for (int i = 0; i < 18; i++) feed_str(&c, "+PONG\r\n");
        assert_int_equal(rg_conn_pending(&c), 0);
        assert_true(rg_conn_config_of(&c)->ncalls >= 16);
        rg_conn_free(&c);
    }
    assert_int_equal(exec.status, RG_OK);
    assert_int_equal(discard.status, RG_OK);
    assert_int_equal(aborted.status, RG_SERVER_ERROR);
    assert_int_equal(aborted.count, 1);
    assert_int_equal(ch.rec.count, 54);
    assert_int_equal(k.live, 0);
}

/* An abandoned call's callback makes calls that grow the ring: its reply, when it comes, is still
 * dropped (its result untouched), and the calls behind it get theirs. */
static void ring_grows_in_abandon(void **state) {
    (void)state;
    counter k = {0};
    rg_call calls[2];
    rg_conn c;
    rg_conn_config cfg = grown_config(&k);
    cfg.calls = calls;
    cfg.ncalls = 2;
    assert_int_equal(rg_conn_init(&c, &cfg), RG_OK);
    chain ch = {&c, 0, {0}};
    view_result r = {{"untouched", 9}};
    const rg_view get[2] = {RG_LIT("GET"), RG_LIT("k")};
    const uint64_t id = rg_conn_call_argv(&c, 2, get, &VIEW_TABLE, &r, on_chain, &ch);
    assert_int_equal(rg_conn_abandon(&c, id), RG_OK); /* on_chain makes 6 calls: 2 -> 8 */
    assert_int_equal(ch.made, 6);
    assert_int_equal(rg_conn_config_of(&c)->ncalls, 8);
    feed_str(&c, "$5\r\nlater\r\n");
    for (int i = 0; i < 6; i++) feed_str(&c, "+PONG\r\n");
    assert_int_equal(ch.rec.count, 6);
    assert_int_equal(ch.rec.status, RG_OK);
    assert_int_equal(r.value.len, 9); /* dropped, not decoded into the result */
    assert_int_equal(rg_conn_pending(&c), 0);
    rg_conn_free(&c);
    assert_int_equal(k.live, 0);
}

/* ---- array storage -------------------------------------------------------------------------- */

static void storage_grows(void **state) {
    (void)state;
    counter k = {0};
    char small[32];
    rg_conn c;
    rg_conn_config cfg = grown_config(&k);
    cfg.storage = small;
    cfg.storage_cap = sizeof small;
    cfg.max_storage = 4096;
    assert_int_equal(rg_conn_init(&c, &cfg), RG_OK);
    static char reply[1 << 16];
    list_result r;
    for (size_t step = 1; step <= 7; step += 6) {
        done_rec rec = {.list_n = 100, .list = &r};
        assert_true(call_words(&c, "LRANGE", "k", &LIST_TABLE, &r, &rec) != 0);
        const size_t n = array_reply(reply, sizeof reply, 100);
        for (size_t at = 0; at < n; at += step)
            feed(&c, reply + at, at + step <= n ? step : n - at);
        assert_int_equal(rec.status, RG_OK);
        assert_int_equal(rec.count, 1);
    }
    assert_int_equal(rg_conn_config_of(&c)->storage_cap, 2048); /* 1600 bytes, by doubling */
    /* beyond max_storage: RG_SHORT with the need, the stream goes on */
    done_rec over = {0}, after = {0};
    view_result v;
    assert_true(call_words(&c, "LRANGE", "k", &LIST_TABLE, &r, &over) != 0);
    assert_true(call_words(&c, "GET", "k", &VIEW_TABLE, &v, &after) != 0);
    const size_t n = array_reply(reply, sizeof reply, 300);
    feed(&c, reply, n);
    feed_str(&c, "$2\r\nok\r\n");
    assert_int_equal(over.status, RG_SHORT);
    assert_int_equal(over.needed, 300 * sizeof(rg_view));
    assert_int_equal(after.status, RG_OK);
    /* the allocator refusing: RG_FULL with the need, the stream goes on */
    k.refuse_above = 1;
    done_rec refused = {0};
    assert_true(call_words(&c, "LRANGE", "k", &LIST_TABLE, &r, &refused) != 0);
    assert_true(call_words(&c, "GET", "k", &VIEW_TABLE, &v, &after) != 0);
    const size_t m = array_reply(reply, sizeof reply, 200);
    feed(&c, reply, m);
    feed_str(&c, "$2\r\nok\r\n");
    assert_int_equal(refused.status, RG_FULL);
    assert_int_equal(refused.needed, 200 * sizeof(rg_view));
    assert_int_equal(after.status, RG_OK);
    assert_int_equal(after.count, 2);
    assert_int_equal(rg_conn_state_of(&c), RG_CONN_READY);
    k.refuse_above = 0;
    rg_conn_free(&c);
    assert_int_equal(k.live, 0);
}

/* EXEC's elements are decoded one by one: an element too large for the storage grows it too. */
static void storage_grows_in_exec(void **state) {
    (void)state;
    counter k = {0};
    char small[16];
    rg_conn c;
    rg_conn_config cfg = grown_config(&k);
    cfg.storage = small;
    cfg.storage_cap = sizeof small;
    assert_int_equal(rg_conn_init(&c, &cfg), RG_OK);
    list_result a, b;
    done_rec ra = {.list_n = 40, .list = &a}, rb = {.list_n = 3, .list = &b}, rx = {0}, rm = {0};
    call_words(&c, "MULTI", NULL, NULL, NULL, &rm);
    assert_true(call_words(&c, "LRANGE", "a", &LIST_TABLE, &a, &ra) != 0);
    assert_true(call_words(&c, "LRANGE", "b", &LIST_TABLE, &b, &rb) != 0);
    assert_true(call_words(&c, "EXEC", NULL, NULL, NULL, &rx) != 0);
    static char reply[4096];
    size_t n = (size_t)snprintf(reply, sizeof reply, "+OK\r\n+QUEUED\r\n+QUEUED\r\n*2\r\n");
    n += array_reply(reply + n, sizeof reply - n, 40);
    n += array_reply(reply + n, sizeof reply - n, 3);
    for (size_t at = 0; at < n; at += 5) feed(&c, reply + at, at + 5 <= n ? 5 : n - at);
    assert_int_equal(ra.status, RG_OK);
    assert_int_equal(rb.status, RG_OK);
    assert_int_equal(rx.status, RG_OK);
    rg_conn_free(&c);
    assert_int_equal(k.live, 0);
}

/* Without alloc nothing changes: a full storage is RG_SHORT, a full ring or output refuses. */
static void fixed_memory_unchanged(void **state) {
    (void)state;
    char in[256], out[64], storage[32];
    rg_call calls[2];
    const rg_conn_config cfg = {.in = in,
                                .in_cap = sizeof in,
                                .out = out,
                                .out_cap = sizeof out,
                                .calls = calls,
                                .ncalls = 2,
                                .storage = storage,
                                .storage_cap = sizeof storage,
                                .protocol = 0};
    rg_conn c;
    assert_int_equal(rg_conn_init(&c, &cfg), RG_OK);
    list_result r;
    done_rec rec = {0}, rec2 = {0};
    assert_true(call_words(&c, "LRANGE", "k", &LIST_TABLE, &r, &rec) != 0);
    char value[100] = {0};
    const rg_view set[3] = {RG_LIT("SET"), RG_LIT("k"), {value, sizeof value}};
    assert_int_equal(rg_conn_call_argv(&c, 3, set, NULL, NULL, on_done, &rec2), 0); /* output */
    assert_true(call_words(&c, "GET", "k", NULL, NULL, &rec2) != 0);
    assert_int_equal(call_words(&c, "GET", "k", NULL, NULL, &rec2), 0); /* ring */
    static char reply[1024];
    const size_t n = array_reply(reply, sizeof reply, 10);
    feed(&c, reply, n);
    assert_int_equal(rec.status, RG_SHORT);
    assert_int_equal(rec.needed, 10 * sizeof(rg_view));
    assert_ptr_equal(rg_conn_config_of(&c)->storage, storage);
    rg_conn_free(&c);
}

/* ---- steady state --------------------------------------------------------------------------- */

/* Once warmed up, commands whose requests and replies fit allocate nothing: 10,000 rounds of a
 * pipeline of 50 (GETs and LRANGEs) on a connection with only the allocator given. */
static void steady_state_no_allocation(void **state) {
    (void)state;
    counter k = {0};
    rg_conn c;
    const rg_conn_config cfg = grown_config(&k);
    assert_int_equal(rg_conn_init(&c, &cfg), RG_OK);
    static char replies[1 << 14];
    size_t len = 0;
    for (int i = 0; i < 50; i++) {
        len += i % 5 ? (size_t)snprintf(replies + len, sizeof replies - len, "$5\r\nvalue\r\n")
                     : array_reply(replies + len, sizeof replies - len, 20);
    }
    static view_result v[50];
    static list_result l[50];
    done_rec rec = {0};
    size_t before = 0;
    for (int round = 0; round < 10000; round++) {
        if (round == 1) before = calls_to(&k);
        for (int i = 0; i < 50; i++) {
            const uint64_t id = i % 5 ? call_words(&c, "GET", "k", &VIEW_TABLE, &v[i], &rec)
                                      : call_words(&c, "LRANGE", "k", &LIST_TABLE, &l[i], &rec);
            assert_true(id != 0);
        }
        drain(&c);
        feed(&c, replies, len);
    }
    assert_int_equal(rec.count, 500000);
    assert_int_equal(calls_to(&k) - before, 0);
    assert_int_equal(k.allocs, 1); /* the defaults only */
    rg_conn_free(&c);
    assert_int_equal(k.live, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults_at_init),
        cmocka_unit_test(defaults_refused),
        cmocka_unit_test(out_grows),
        cmocka_unit_test(out_grows_pinned),
        cmocka_unit_test(ring_grows),
        cmocka_unit_test(ring_refused),
        cmocka_unit_test(ring_grows_in_callbacks),
        cmocka_unit_test(ring_grows_in_abandon),
        cmocka_unit_test(storage_grows),
        cmocka_unit_test(storage_grows_in_exec),
        cmocka_unit_test(fixed_memory_unchanged),
        cmocka_unit_test(steady_state_no_allocation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
