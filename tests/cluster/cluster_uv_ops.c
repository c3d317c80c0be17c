/* The libuv cluster client (adapters/rg_cluster_uv.h) through what an operator does to a real
 * six-node cluster that the test starts itself (tests/support/test_cluster.h): the checks
 * cluster_client.c makes of the blocking client, every call made and every result read on the
 * loop, the operator's steps (redis-cli in the background, kill -9, CLUSTER FAILOVER) taken while
 * the loop runs:
 *
 * - read modes: 300 GETs of replicated keys with each rg_cc_config.read: PRIMARY all on the
 *   slot's master, REPLICA all on a replica of it, ANY some on each (node and role counted from
 *   the call in its callback), every value right;
 * - channels and patterns (rg_cc_listen): 5 channels and a pattern on one node, a replica; each
 *   PUBLISH heard exactly once; the replica killed (SIGKILL), they move to another node and each
 *   is heard exactly once more; the replica is started again and resynced;
 * - SCAN across a reshard: 20,000 keys, a scan with the map unchanged finds each in one pass;
 *   a second one, its batch small enough that it stalls and is resumed on each DRAINED, pauses
 *   inside the master scanned last while `redis-cli --cluster reshard` moves 100 of its slots
 *   to the master scanned first (the loop running): every key is still found, the keys moved
 *   ahead of the cursor only by the second pass;
 * - transactions: a cross-slot one (rg_cc_add_tx) refused before sending (nothing of it ran);
 *   batches of 2,000 MULTI / INCR {t}:a / INCR {t}:b / EXEC (rg_cc_tx_call, each outcome to its
 *   callback: EXEC's reply [1, 1]) added again after each DRAINED, 10,000 on a still cluster,
 *   then more while 100 slots move: none failed, each pair reads back 1 and 1;
 * - manual failover: CLUSTER FAILOVER on a replica (from a uv timer) while INCRs of distinct
 *   counters are kept 1,000 in flight: every call completes exactly once with 1, every counter
 *   reads back 1, the masters' DBSIZE adds up.
 *
 * Each test leaves the cluster whole (three masters, each with a replica in sync) for the next.
 */
#include "rg_cluster_uv.h"
#include "test_cluster.h"

#include "redis_client.h"
#include "redis_keys.h"
#include "redis_reply.h"

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "cluster_ops.h"

enum { BATCH = 4000, ARENA = 1 << 20, MAX_ITEMS = 200000, WINDOW = 1000 };

static const rg_cluster_commands CMDS = {redis_keys_table, REDIS_KEYS_CMD_COUNT, redis_keys_policy};

typedef struct fixture fixture;

/* Calls made on the loop, `window` in flight, each completion making the next: item i's key is
 * key(i), make sends it (0: the batch is full, DRAINED resumes), seen looks at its outcome. */
typedef struct pump {
    int (*key)(const fixture *f, size_t i, char *buf, size_t cap);
    uint64_t (*make)(fixture *f, rg_view key);
    void (*seen)(fixture *f, size_t i, const rg_call_done *d);
    size_t next, total, window, inflight, completed;
    bool blocked;
    double longest; /* the longest a call took, made to completed (s) */
} pump;

struct fixture {
    test_cluster cluster;
    uv_loop_t loop;
    uv_timer_t tick; /* keeps uv_run(UV_RUN_ONCE) returning */
    uv_timer_t op;   /* an operator's step taken while the loop runs */
    rg_cc_uv u;
    bool open; /* opened, CLOSED not told yet */
    int events[RG_CC_UV_CLOSED + 1];
    void (*drained)(fixture *f); /* also told DRAINED (NULL: nothing) */
    rg_cc_call calls[BATCH];
    char arena[ARENA];
    union {
        redis_set_result set;
        redis_get_result get;
        redis_incr_result incr;
        rg_raw_result raw;
    } res[BATCH];             /* the batch's results, by index */
    size_t item_of[BATCH];    /* the pump's item of each call of the batch */
    double made_at[BATCH];    /* ... and when it was made */
    pump p;                   /* the calls in flight */
    const char *prefix;       /* of the pump's keys */
    uint8_t times[MAX_ITEMS]; /* completions of each item */
    int16_t got[MAX_ITEMS];   /* the number each GET read (nil: 0; not a number: -1) */
    size_t failed;            /* calls whose outcome was not the one wanted */
    long long one;            /* WAIT's answer (-1: it failed) */
    bool one_done;            /* ... it came */
};

#include "cluster_uv_util.h" /* (after fixture: its run_until reads one) */

static void pump_fill(fixture *f);

static void on_event(rg_cc_uv *u, rg_cc_uv_event ev, void *ud) {
    fixture *f = ud;
    (void)u;
    f->events[ev]++;
    if (ev == RG_CC_UV_CLOSED) f->open = false;
    if (ev != RG_CC_UV_DRAINED) return;
    if (f->p.blocked) {
        f->p.blocked = false;
        pump_fill(f);
    }
    if (f->drained) f->drained(f);
}

static void close_client(fixture *f) {
    f->drained = NULL;
    uvt_close(&f->u, &f->loop, f->events);
}

/* A client of f's cluster reading as `read` says (rg_cc_read), with a batch of ncalls and
 * on_push (or NULL) told f's Pub/Sub messages. */
static void open_with(fixture *f, uint8_t read, size_t ncalls, rg_push_fn on_push) {
    const rg_cc_config cfg = {.cmds = &CMDS,
                              .calls = f->calls,
                              .ncalls = ncalls,
                              .arena = f->arena,
                              .arena_cap = ARENA,
                              .read = read,
                              .wait_ms = 15000,
                              .on_push = on_push,
                              .push_ud = f};
    if (f->open) close_client(f); /* (a failed test left it open: its handles are live) */
    f->drained = NULL;
    f->p = (pump){0};
    uvt_start(&f->u, &f->loop, &cfg, uvt_seed_port(&f->cluster), on_event, f, f->events);
    f->open = true;
    uvt_wait_told(&f->loop, f->events);
    assert_int_equal(f->events[RG_CC_UV_READY], 1);
    assert_int_equal(rg_cluster_map_covered(&f->u.cc.map), RG_CLUSTER_SLOTS);
}

static void open_client(fixture *f) {
    open_with(f, RG_CC_READ_PRIMARY, BATCH, NULL);
}

static int group_setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    if (!f || test_cluster_start(&f->cluster) != 0) {
        free(f);
        return -1;
    }
    uvt_loop_start(&f->loop, &f->tick);
    uv_timer_init(&f->loop, &f->op);
    *state = f;
    return 0;
}

static int group_teardown(void **state) {
    fixture *f = *state;
    if (f->open) rg_cc_uv_close(&f->u); /* (a failed test left it open) */
    for (int i = 0; i < 1000 && f->open; i++) uv_run(&f->loop, UV_RUN_ONCE);
    uv_close((uv_handle_t *)&f->op, NULL);
    if (uvt_loop_end(&f->loop, &f->tick) != 0) fprintf(stderr, "the loop still has handles\n");
    test_cluster_stop(&f->cluster);
    free(f);
    return 0;
}

/* ---- calls on the loop ---------------------------------------------------------------------- */

/* A generated call's callback: its item's outcome, then the next call. */
static void call_done(void *ud, const rg_call_done *d) {
    fixture *f = ud;
    pump *p = &f->p;
    const size_t i = f->item_of[d->id - 1];
    if (f->times[i] < 255) f->times[i]++;
    const double took = now_s() - f->made_at[d->id - 1];
    if (took > p->longest) p->longest = took;
    p->seen(f, i, d);
    p->inflight--;
    p->completed++;
    pump_fill(f);
}

static void pump_fill(fixture *f) {
    pump *p = &f->p;
    char key[64];
    while (p->inflight < p->window && p->next < p->total && !p->blocked) {
        const int n = p->key(f, p->next, key, sizeof key);
        const uint64_t id = p->make(f, (rg_view){key, (size_t)n});
        if (!id) {
            p->blocked = true;
            return;
        }
        f->item_of[id - 1] = p->next++;
        f->made_at[id - 1] = now_s();
        p->inflight++;
    }
}

static bool pump_idle(fixture *f) {
    return f->p.completed == f->p.total;
}

/* A new pump (its items counted from 0) of calls made by make on key(i), told to seen. */
static void pump_start(fixture *f, int (*key)(const fixture *f, size_t i, char *buf, size_t cap),
                       uint64_t (*make)(fixture *f, rg_view key),
                       void (*seen)(fixture *f, size_t i, const rg_call_done *d)) {
    f->p = (pump){.key = key, .make = make, .seen = seen, .window = WINDOW};
    memset(f->times, 0, sizeof f->times);
    memset(f->got, 0, sizeof f->got);
    f->failed = 0;
}

/* Runs the pump until items [0, total) completed. */
static void pump_run(fixture *f, size_t total, double timeout_s) {
    assert_true(total <= MAX_ITEMS);
    f->p.total = total;
    pump_fill(f);
    assert_true(run_until(f, pump_idle, timeout_s));
}

static rg_conn *front(fixture *f) {
    return rg_cc_conn(&f->u.cc);
}

/* The result struct of the next call of the batch. */
static void *next_result(fixture *f) {
    return &f->res[rg_cc_size(&f->u.cc)];
}

static uint64_t make_set(fixture *f, rg_view key) {
    return redis_set_call(front(f), key, RG_LIT("1"), NULL, next_result(f), call_done, f);
}

static uint64_t make_get(fixture *f, rg_view key) {
    return redis_get_call(front(f), key, next_result(f), call_done, f);
}

static uint64_t make_incr(fixture *f, rg_view key) {
    return redis_incr_call(front(f), key, next_result(f), call_done, f);
}

/* <prefix>:<i> */
static int key_plain(const fixture *f, size_t i, char *buf, size_t cap) {
    return snprintf(buf, cap, "%s:%zu", f->prefix, i);
}

/* Counts a call that did not end as wanted, the first ones printed. */
static void note(fixture *f, const char *what, size_t i, const rg_call_done *d) {
    if (f->failed++ < 5)
        printf("  %s %zu: %s %.*s\n", what, i, rg_status_name(d->status), (int)d->error.len,
               d->error.ptr ? d->error.ptr : "");
}

static void seen_set(fixture *f, size_t i, const rg_call_done *d) {
    if (d->status != RG_OK) note(f, "SET", i, d);
}

/* An INCR of a fresh counter: 1. */
static void seen_incr(fixture *f, size_t i, const rg_call_done *d) {
    const redis_incr_result *r = d->result;
    if (d->status != RG_OK || r->value != 1) note(f, "INCR", i, d);
}

/* A GET of a number: got[i] (nil: 0, anything else -1). */
static void seen_number(fixture *f, size_t i, const rg_call_done *d) {
    const redis_get_result *r = d->result;
    char text[8] = "";
    if (d->status == RG_OK && r->value.ptr && r->value.len < sizeof text)
        memcpy(text, r->value.ptr, r->value.len);
    char *end = text;
    const long v = strtol(text, &end, 10);
    f->got[i] = d->status != RG_OK ? -1 : !r->value.ptr ? 0 : *text && !*end ? (int16_t)v : -1;
    if (d->status != RG_OK) note(f, "GET", i, d);
}

static void waited(void *ud, const rg_call_done *d) {
    fixture *f = ud;
    const redis_wait_result *r = d->result;
    f->one = d->status == RG_OK ? r->value : -1;
    f->one_done = true;
}

static bool one_answered(fixture *f) {
    return f->one_done;
}

static bool batch_empty(fixture *f) {
    return rg_cc_size(&f->u.cc) == 0;
}

static bool never(fixture *f) {
    (void)f;
    return false;
}

/* Runs the loop for s seconds, whatever happens. */
static void run_for(fixture *f, double s) {
    run_until(f, never, s);
}

/* ---- read modes ----------------------------------------------------------------------------- */

enum { READS = 300 };

typedef struct read_split {
    size_t master, replica, found; /* served by the slot's master, by its replica; right */
} read_split;

static read_split split;

/* Where a GET of urm:<i> was served (the batch's call, in its callback) and what it read. */
static void seen_read(fixture *f, size_t i, const rg_call_done *d) {
    const rg_cc *cc = &f->u.cc;
    const rg_cc_call *k = rg_cc_get(cc, d->id - 1);
    const uint16_t owner = rg_cluster_map_owner(&cc->map, k->slot);
    const rg_cluster_node *nd = &cc->map.node[k->node];
    split.master += k->node == owner;
    split.replica += nd->role == RG_NODE_REPLICA && nd->master == owner;
    const redis_get_result *r = d->result;
    if (d->status == RG_OK && rg_view_eq(r->value, RG_LIT("1")))
        split.found++;
    else
        note(f, "GET", i, d);
}

/* The keys written and, by WAIT (every master, AGG_MIN), on every replica. */
static void write_replicated(fixture *f) {
    open_client(f);
    f->prefix = "urm";
    pump_start(f, key_plain, make_set, seen_set);
    pump_run(f, READS, 20);
    assert_int_equal(f->failed, 0);
    static redis_wait_result wait;
    f->one_done = false;
    assert_true(redis_wait_call(front(f), 1, 5000, &wait, waited, f) > 0);
    assert_true(run_until(f, one_answered, 10));
    assert_int_equal(f->one, 1);
    close_client(f);
}

/* The GETs of every key with cfg.read = read: where they were served. */
static read_split reads_with(fixture *f, uint8_t read) {
    open_with(f, read, BATCH, NULL);
    split = (read_split){0};
    pump_start(f, key_plain, make_get, seen_read);
    pump_run(f, READS, 20);
    close_client(f);
    return split;
}

static void test_read_modes(void **state) {
    fixture *f = *state;
    write_replicated(f);
    const read_split primary = reads_with(f, RG_CC_READ_PRIMARY);
    const read_split replica = reads_with(f, RG_CC_READ_REPLICA);
    const read_split any = reads_with(f, RG_CC_READ_ANY);
    printf("read modes (libuv), %d GETs each, on the slot's master / its replica / right: "
           "PRIMARY %zu / %zu / %zu, REPLICA %zu / %zu / %zu, ANY %zu / %zu / %zu\n",
           READS, primary.master, primary.replica, primary.found, replica.master, replica.replica,
           replica.found, any.master, any.replica, any.found);
    assert_int_equal(primary.master, READS);
    assert_int_equal(replica.replica, READS);
    assert_int_equal(any.master + any.replica, READS);
    assert_true(any.master >= READS / 3 && any.replica >= READS / 3); /* (in turn: half each) */
    assert_int_equal(primary.found + replica.found + any.found, 3 * READS);
}

/* ---- channels and patterns ------------------------------------------------------------------ */

enum { PLAIN = 5 };

typedef struct plain_heard {
    int msgs[PLAIN]; /* messages per channel uch:<i> */
    int pmsgs;       /* messages through the pattern upat:* */
    int wrong;       /* a message of another channel, or not as published */
    int published;   /* PUBLISHes answered */
} plain_heard;

static plain_heard heard;

static void count_plain(void *ud, const rg_push *p) {
    (void)ud;
    if (p->kind != RG_PUSH_MESSAGE && p->kind != RG_PUSH_PMESSAGE) return;
    char name[32];
    snprintf(name, sizeof name, "%.*s", (int)p->channel.len, p->channel.ptr);
    const int i = strncmp(name, "uch:", 4) == 0 ? atoi(name + 4) : -1;
    if (!rg_view_eq(p->payload, RG_LIT("m")))
        heard.wrong++;
    else if (p->kind == RG_PUSH_PMESSAGE && strcmp(name, "upat:x") == 0)
        heard.pmsgs++;
    else if (p->kind == RG_PUSH_MESSAGE && i >= 0 && i < PLAIN)
        heard.msgs[i]++;
    else
        heard.wrong++;
}

static void published(void *ud, const rg_call_done *d) {
    (void)ud;
    heard.published += d->status == RG_OK;
}

static int heard_round; /* the count every channel and the pattern must reach */

static bool round_heard(fixture *f) {
    (void)f;
    for (int i = 0; i < PLAIN; i++)
        if (heard.msgs[i] < heard_round) return false;
    return heard.pmsgs >= heard_round && heard.published >= heard_round * (PLAIN + 1);
}

/* PUBLISH to every channel and to upat:x through the client (any master: the cluster sends it to
 * every node); each must be heard once more, and only once. */
static void plain_round(fixture *f, int round) {
    static redis_publish_result pub[PLAIN + 1];
    char ch[PLAIN + 1][16];
    for (int i = 0; i <= PLAIN; i++) {
        if (i < PLAIN)
            snprintf(ch[i], sizeof ch[i], "uch:%d", i);
        else
            snprintf(ch[i], sizeof ch[i], "upat:x");
        assert_true(
            redis_publish_call(front(f), rg_cstr(ch[i]), RG_LIT("m"), &pub[i], published, f) > 0);
    }
    heard_round = round;
    assert_true(run_until(f, round_heard, 10));
    run_for(f, 0.2);
    for (int i = 0; i < PLAIN; i++) assert_int_equal(heard.msgs[i], round);
    assert_int_equal(heard.pmsgs, round);
    assert_int_equal(heard.wrong, 0);
}

static uint16_t not_on; /* where the channels must no longer be (RG_NODE_NONE: anywhere) */

static bool all_listened(fixture *f) {
    const rg_cc *cc = &f->u.cc;
    return rg_cc_subscribed(cc) == PLAIN + 1 && cc->channel[0].node != not_on;
}

/* cl_restart_in_sync, and the cluster agreeing again. */
static void restart_in_sync(fixture *f, int i) {
    cl_restart_in_sync(&f->cluster, i);
    assert_int_equal(test_cluster_wait_ok(&f->cluster, 15000), 0);
}

static void test_channels_move(void **state) {
    fixture *f = *state;
    heard = (plain_heard){0};
    open_with(f, RG_CC_READ_PRIMARY, BATCH, count_plain);
    rg_cc *cc = &f->u.cc;
    char ch[PLAIN][16];
    for (int i = 0; i < PLAIN; i++) {
        snprintf(ch[i], sizeof ch[i], "uch:%d", i);
        assert_int_equal(rg_cc_listen(cc, RG_CC_CHANNEL, rg_cstr(ch[i])), RG_OK);
    }
    assert_int_equal(rg_cc_listen(cc, RG_CC_PATTERN, RG_LIT("upat:*")), RG_OK);
    assert_int_equal(rg_cc_listen(cc, RG_CC_PATTERN, RG_LIT("upat:*")), RG_INVALID);
    not_on = RG_NODE_NONE;
    assert_true(run_until(f, all_listened, 10));
    const uint16_t first = cc->channel[0].node;
    for (int i = 0; i <= PLAIN; i++) assert_int_equal(cc->channel[i].node, first);
    assert_int_equal(cc->map.node[first].role, RG_NODE_REPLICA);
    plain_round(f, 1);
    /* the listener killed: its Pub/Sub connection ends, they are subscribed on another node */
    const int victim = test_cluster_index(&f->cluster, cc->map.node[first].port);
    assert_true(victim >= 0);
    test_redis_kill(&f->cluster.node[victim]);
    const double t0 = now_s();
    not_on = first;
    assert_true(run_until(f, all_listened, 15));
    const double moved_s = now_s() - t0;
    const uint16_t second = cc->channel[0].node;
    for (int i = 0; i <= PLAIN; i++) assert_int_equal(cc->channel[i].node, second);
    plain_round(f, 2);
    printf("channels and a pattern (libuv): on replica %u, then (killed) on %s %u after %.3f s; "
           "%d PUBLISHes, each message heard once per round, %d wrong\n",
           cc->map.node[first].port,
           cc->map.node[second].role == RG_NODE_REPLICA ? "replica" : "master",
           cc->map.node[second].port, moved_s, heard.published, heard.wrong);
    assert_int_equal(heard.published, 2 * (PLAIN + 1));
    close_client(f);
    restart_in_sync(f, victim); /* the tests after need every replica */
}

/* ---- SCAN across a reshard ------------------------------------------------------------------ */

/* SCAN_BATCH: the scan's calls fill the batch every 16 (RG_FULL): it stalls, the batch drains,
 * and DRAINED resumes it (rg_cc_scan_next), which also lets the test pause it there. */
enum { SCAN_KEYS = 20000, SCAN_BATCH = 16, RESHARD_SLOTS = 100 };

typedef struct seen {
    uint8_t count[SCAN_KEYS];
    size_t told, other;
    size_t rescued; /* told first in a later pass: the first alone would have missed them */
} seen;

typedef struct scan_run {
    rg_cc_scan sc;
    int pause_at;   /* the map index of the node to pause inside (-1: none) */
    bool paused;    /* DRAINED does not resume it */
    int from, to;   /* ports: the slots move from, to */
    pid_t reshard;  /* redis-cli, started where the scan paused */
    int status;     /* its exit */
    bool ended;     /* ... it exited */
    size_t resumed; /* DRAINED resumed it */
} scan_run;

static scan_run scan;

static void scan_keys(void *ud, const rg_view *keys, size_t n) {
    seen *s = ud;
    for (size_t i = 0; i < n; i++) {
        char k[32];
        snprintf(k, sizeof k, "%.*s", (int)(keys[i].len < 31 ? keys[i].len : 31), keys[i].ptr);
        const int j = strncmp(k, "usc:", 4) == 0 ? atoi(k + 4) : -1;
        s->told++;
        if (j >= 0 && j < SCAN_KEYS && s->count[j] < 255) {
            s->rescued += s->count[j] == 0 && scan.sc.passes > 1;
            s->count[j]++;
        } else {
            s->other++;
        }
    }
}

/* DRAINED: the scan stalled on the full batch. It goes on, unless it is inside the node to pause
 * in (past its first call): then it stays there and the slots start moving. */
static void scan_drained(fixture *f) {
    scan_run *s = &scan;
    if (s->sc.done || s->paused) return;
    if (s->pause_at >= 0 && s->sc.node == s->pause_at && s->sc.cursor != 0) {
        s->pause_at = -1;
        s->paused = true;
        s->reshard = cl_reshard(&f->cluster, s->from, s->to, RESHARD_SLOTS);
        return;
    }
    s->resumed++;
    assert_int_equal(rg_cc_scan_next(&f->u.cc, &s->sc), RG_OK);
}

static bool scan_done(fixture *f) {
    (void)f;
    return scan.sc.done;
}

static bool scan_paused(fixture *f) {
    (void)f;
    return scan.paused || scan.sc.done;
}

static bool reshard_ended(fixture *f) {
    (void)f;
    scan.ended = scan.ended || waitpid(scan.reshard, &scan.status, WNOHANG) == scan.reshard;
    return scan.ended;
}

/* Starts a scan of usc:* told to s, in a batch of its own. */
static void scan_begin(fixture *f, seen *s, int pause_at) {
    const rg_view args[] = {RG_LIT("MATCH"), RG_LIT("usc:*"), RG_LIT("COUNT"), RG_LIT("100")};
    assert_true(run_until(f, batch_empty, 10)); /* (the calls before it: their DRAINED) */
    memset(s, 0, sizeof *s);
    scan.pause_at = pause_at;
    scan.paused = scan.ended = false;
    scan.resumed = 0;
    f->drained = scan_drained;
    assert_int_equal(rg_cc_scan_start(&f->u.cc, &scan.sc, 4, args, scan_keys, s), RG_OK);
}

/* The engine's index of the node on port. */
static int map_index(const rg_cc *cc, int port) {
    for (size_t i = 0; i < cc->map.nnodes; i++)
        if (cc->map.node[i].port == port) return (int)i;
    return -1;
}

/* The masters scanned first and last (the scan goes by map index): the slots move from the last
 * to the first, so the keys moved ahead of the cursor are behind both cursors. */
static void scan_ends(const fixture *f, int *first, int *last) {
    *first = *last = -1;
    for (int nth = 0; nth < 3; nth++) {
        const int port = cl_master_port(&f->cluster, nth);
        if (*first < 0 || map_index(&f->u.cc, port) < map_index(&f->u.cc, *first)) *first = port;
        if (*last < 0 || map_index(&f->u.cc, port) > map_index(&f->u.cc, *last)) *last = port;
    }
}

static size_t scan_missing(const seen *s, size_t *twice) {
    size_t missing = 0;
    *twice = 0;
    for (int i = 0; i < SCAN_KEYS; i++) {
        missing += s->count[i] == 0;
        *twice += s->count[i] > 1;
    }
    return missing;
}

static void test_scan_resharding(void **state) {
    fixture *f = *state;
    open_client(f);
    f->prefix = "usc";
    pump_start(f, key_plain, make_set, seen_set);
    pump_run(f, SCAN_KEYS, 60);
    assert_int_equal(f->failed, 0);
    close_client(f);

    open_with(f, RG_CC_READ_PRIMARY, SCAN_BATCH, NULL);
    static seen before, during;
    scan_begin(f, &before, -1);
    assert_true(run_until(f, scan_done, 30));
    const uint64_t calls_before = scan.sc.calls;
    const size_t resumed_before = scan.resumed;
    size_t twice = 0;
    const size_t missing_before = scan_missing(&before, &twice);
    assert_int_equal(scan.sc.status, RG_OK);
    assert_int_equal(scan.sc.passes, 1);
    assert_int_equal(missing_before, 0);

    static int owner_before[RG_CLUSTER_SLOTS], owner_after[RG_CLUSTER_SLOTS];
    assert_int_equal(test_cluster_owners(&f->cluster, owner_before), 0);
    scan_ends(f, &scan.to, &scan.from);
    scan_begin(f, &during, map_index(&f->u.cc, scan.from));
    assert_true(run_until(f, scan_paused, 30));
    assert_false(scan.sc.done);
    const uint64_t cursor_at_pause = scan.sc.cursor;
    const double t0 = now_s();
    assert_true(run_until(f, reshard_ended, 60)); /* the loop runs while the slots move */
    const double reshard_s = now_s() - t0;
    assert_true(WIFEXITED(scan.status) && WEXITSTATUS(scan.status) == 0);
    scan.paused = false;
    assert_int_equal(rg_cc_scan_next(&f->u.cc, &scan.sc), RG_OK);
    assert_true(run_until(f, scan_done, 30));
    assert_int_equal(test_cluster_owners(&f->cluster, owner_after), 0);
    int moved = 0;
    for (int s = 0; s < RG_CLUSTER_SLOTS; s++)
        moved += owner_before[s] == scan.from && owner_after[s] == scan.to;
    const size_t missing = scan_missing(&during, &twice);
    printf("scan (libuv): %zu keys told in 1 pass, %llu calls, resumed on %zu DRAINEDs, with the "
           "map unchanged; paused in %d at cursor %llu while %d slots moved to %d (%.2f s, the "
           "loop running): %u passes, %llu calls, %zu told, %zu missing, %zu told more than "
           "once, %zu told only by a later pass\n",
           before.told, (unsigned long long)calls_before, resumed_before, scan.from,
           (unsigned long long)cursor_at_pause, moved, scan.to, reshard_s, scan.sc.passes,
           (unsigned long long)scan.sc.calls, during.told, missing, twice, during.rescued);
    assert_int_equal(scan.sc.status, RG_OK);
    assert_int_equal(moved, RESHARD_SLOTS);
    assert_true(scan.sc.passes >= 2); /* the slots moved during the scan */
    assert_true(during.rescued > 0);
    assert_int_equal(missing, 0);
    assert_int_equal(before.other + during.other, 0);
    assert_true(resumed_before > 0); /* (the small batch made it stall) */
    close_client(f);
}

/* ---- transactions --------------------------------------------------------------------------- */

enum { TX_BATCH = 2000, MAX_TX = MAX_ITEMS / 2 };

typedef struct tx_load {
    const char *prefix;
    size_t next;             /* transactions made */
    size_t first;            /* the batch in flight: its first transaction */
    size_t added;            /* ... and how many */
    size_t done;             /* ... and how many of them completed */
    uint8_t outcome[MAX_TX]; /* 1 ok, 2 closed after written, 3 other */
    size_t failed, ambiguous, batches;
    size_t wrong; /* EXEC replied other than [1, 1] */
} tx_load;

static tx_load txl;

/* {<prefix><i / 2>}:a or :b: the two keys of transaction i / 2. */
static int key_tx(const fixture *f, size_t i, char *buf, size_t cap) {
    (void)f;
    return snprintf(buf, cap, "{%s%zu}:%c", txl.prefix, i / 2, i % 2 ? 'b' : 'a');
}

/* Transaction t's outcome, in its callback: EXEC's reply, raw, is [1, 1] (two fresh counters). */
static void tx_done(void *ud, const rg_call_done *d) {
    tx_load *l = &txl;
    uint8_t *o = ud;
    const rg_raw_result *r = d->result;
    static const char ONES[] = "*2\r\n:1\r\n:1\r\n";
    const bool ok = d->status == RG_OK;
    *o = ok ? 1 : d->status == RG_CLOSED && d->written ? 2 : 3;
    l->failed += !ok;
    l->ambiguous += *o == 2;
    l->wrong += ok && !(r->value.len == sizeof ONES - 1 &&
                        memcmp(r->value.ptr, ONES, sizeof ONES - 1) == 0);
    if (!ok && l->failed <= 5)
        printf("  tx %zu: %s %.*s\n", (size_t)(o - l->outcome), rg_status_name(d->status),
               (int)d->error.len, d->error.ptr);
    if (++l->done == l->added) l->batches++;
}

/* Adds one batch of MULTI; INCR {p<i>}:a; INCR {p<i>}:b; EXEC to the (empty) batch. */
static void tx_add_batch(fixture *f) {
    tx_load *l = &txl;
    rg_cc *cc = &f->u.cc;
    assert_true(run_until(f, batch_empty, 10)); /* (the calls before it: their DRAINED) */
    l->first = l->next;
    l->added = l->done = 0;
    char a[32], b[32];
    for (size_t j = 0; j < TX_BATCH && l->next < MAX_TX; j++, l->next++, l->added++) {
        key_tx(f, 2 * l->next, a, sizeof a);
        key_tx(f, 2 * l->next + 1, b, sizeof b);
        const rg_view ia[] = {RG_LIT("INCR"), rg_cstr(a)}, ib[] = {RG_LIT("INCR"), rg_cstr(b)};
        const rg_view *argv[] = {ia, ib};
        const size_t argc[] = {2, 2};
        assert_true(rg_cc_tx_call(cc, 2, argc, argv, NULL, &f->res[j].raw, tx_done,
                                  &l->outcome[l->next]) > 0);
    }
}

static bool tx_settled(fixture *f) {
    (void)f;
    return txl.done == txl.added;
}

/* One batch of transactions, run until each told its outcome. */
static void tx_round(fixture *f) {
    tx_add_batch(f);
    assert_true(run_until(f, tx_settled, 60));
}

static void tx_start(fixture *f, const char *prefix) {
    (void)f;
    memset(&txl, 0, sizeof txl);
    txl.prefix = prefix;
}

typedef struct tx_verdict {
    size_t ok, half, lost, dup, other;
} tx_verdict;

/* Reads both counters of every transaction: equal always (all or nothing), 1 for one that
 * succeeded, 0 or 1 for one reported written and closed. */
static tx_verdict tx_verify(fixture *f) {
    f->drained = NULL;
    pump_start(f, key_tx, make_get, seen_number);
    pump_run(f, 2 * txl.next, 60);
    assert_int_equal(f->failed, 0);
    tx_verdict v = {0};
    for (size_t t = 0; t < txl.next; t++) {
        const int x = f->got[2 * t], y = f->got[2 * t + 1];
        const uint8_t o = txl.outcome[t];
        if (x != y)
            v.half++;
        else if (x > 1)
            v.dup++;
        else if (x == 0 && o == 1)
            v.lost++;
        else if (x == 1 || (x == 0 && o == 2))
            v.ok++;
        else
            v.other++;
    }
    return v;
}

static const char *const CROSS_KEYS[] = {"{uvt}a", "{uvt}b", "{uvx}a", "{uvy}b"};

static int key_cross(const fixture *f, size_t i, char *buf, size_t cap) {
    (void)f;
    return snprintf(buf, cap, "%s", CROSS_KEYS[i]);
}

static bool drained_once(fixture *f) {
    return f->events[RG_CC_UV_DRAINED] > 0;
}

static void refused_told(void *ud, const rg_call_done *d) {
    *(rg_status *)ud = d->status;
}

/* A cross-slot transaction is refused as it is added, complete, nothing sent: its keys stay
 * absent while a good one beside it runs. Made with a callback, the refusal is told to it (not
 * inside the call: at the next tick). */
static void tx_cross_slot(fixture *f) {
    rg_cc *cc = &f->u.cc;
    const rg_view a[] = {RG_LIT("INCR"), rg_cstr(CROSS_KEYS[0])},
                  b[] = {RG_LIT("INCR"), rg_cstr(CROSS_KEYS[1])},
                  x[] = {RG_LIT("INCR"), rg_cstr(CROSS_KEYS[2])},
                  y[] = {RG_LIT("INCR"), rg_cstr(CROSS_KEYS[3])};
    const rg_view *cross[] = {x, y}, *good[] = {a, b};
    const size_t argc[] = {2, 2};
    size_t ci = SIZE_MAX, gi = SIZE_MAX;
    f->events[RG_CC_UV_DRAINED] = 0;
    assert_int_equal(rg_cc_add_tx(cc, 2, argc, cross, NULL, &f->res[0].raw, &ci), RG_OK);
    assert_int_equal(rg_cc_add_tx(cc, 2, argc, good, NULL, &f->res[1].raw, &gi), RG_OK);
    rg_status told = RG_OK;
    assert_true(rg_cc_tx_call(cc, 2, argc, cross, NULL, &f->res[2].raw, refused_told, &told) > 0);
    assert_int_equal(told, RG_OK); /* (not yet) */
    const rg_cc_call *k = rg_cc_get(cc, ci);
    assert_true(k->complete);
    assert_int_equal(k->status, RG_INVALID);
    assert_non_null(strstr(k->error.ptr, "CROSSSLOT"));
    printf("cross-slot transaction (libuv): refused as added, %s: %s\n", rg_status_name(k->status),
           k->error.ptr);
    assert_false(rg_cc_get(cc, gi)->complete);
    assert_true(run_until(f, drained_once, 10));
    assert_int_equal(f->calls[gi].status, RG_OK);
    assert_int_equal(told, RG_INVALID);
    /* read back: the good one's counters 1, the refused one's keys absent (0) */
    pump_start(f, key_cross, make_get, seen_number);
    pump_run(f, 4, 10);
    assert_int_equal(f->failed, 0);
    assert_int_equal(f->got[0] * 1000 + f->got[1] * 100 + f->got[2] * 10 + f->got[3], 1100);
}

static void test_transactions(void **state) {
    fixture *f = *state;
    open_client(f);
    tx_cross_slot(f);
    tx_start(f, "uvtx");
    for (int i = 0; i < 5; i++) tx_round(f);
    const tx_verdict v = tx_verify(f);
    printf("transactions (libuv): %zu in %zu batches re-added after DRAINED, %zu failed; read "
           "back %zu ok, %zu half applied, %zu lost, %zu doubled, %zu other\n",
           txl.next, txl.batches, txl.failed, v.ok, v.half, v.lost, v.dup, v.other);
    assert_int_equal(txl.next, 5 * TX_BATCH);
    assert_int_equal(txl.failed, 0);
    assert_int_equal(txl.wrong, 0);
    assert_int_equal(v.ok, txl.next);
    close_client(f);
}

/* Transactions while 100 slots move (redis-cli in the background, the loop running): a MOVED or
 * ASK inside one moves the whole block; each ran once, both of its writes or neither. */
static void test_transactions_resharding(void **state) {
    fixture *f = *state;
    open_client(f);
    tx_start(f, "uvtr");
    const pid_t pid = cl_reshard(&f->cluster, cl_master_port(&f->cluster, 1),
                                 cl_master_port(&f->cluster, 0), RESHARD_SLOTS);
    const double t0 = now_s();
    int status = 0, after = 0;
    double secs = 0;
    /* batches while the slots move, and three after; at least 20,000 */
    for (bool done = false; (!done || after < 3 || txl.next < 20000) && txl.next < MAX_TX;
         after += done) {
        tx_round(f);
        if (!done && (done = waitpid(pid, &status, WNOHANG) == pid)) secs = now_s() - t0;
    }
    if (secs == 0) { /* (MAX_TX reached first) */
        waitpid(pid, &status, 0);
        secs = now_s() - t0;
    }
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    const tx_verdict v = tx_verify(f);
    const rg_cc_stats *st = &f->u.cc.stats;
    printf("transactions across a reshard of %d slots (libuv, %.2f s): %zu in %zu batches, %zu "
           "failed; read back %zu ok, %zu half applied, %zu lost, %zu doubled, %zu other; MOVED "
           "%llu, ASK %llu, retries %llu\n",
           RESHARD_SLOTS, secs, txl.next, txl.batches, txl.failed, v.ok, v.half, v.lost, v.dup,
           v.other, (unsigned long long)st->moved, (unsigned long long)st->ask,
           (unsigned long long)st->retries);
    assert_true(txl.next >= 20000);
    assert_int_equal(txl.failed, 0);
    assert_int_equal(txl.wrong, 0);
    assert_int_equal(v.ok, txl.next);
    assert_true(st->moved + st->ask > 0);
    close_client(f);
}

/* ---- manual failover ------------------------------------------------------------------------ */

/* INCRs completed before CLUSTER FAILOVER is sent, and after the replica is master. */
enum { FAILOVER_AROUND = 20000 };

typedef struct failover {
    int replica;              /* its fixture index */
    double asked_t;           /* CLUSTER FAILOVER sent (s) */
    double master_t;          /* the replica seen as master */
    size_t at_ask, at_master; /* calls completed by then */
} failover;

static failover fo;

/* The operator's step, every 10 ms from the loop while the INCRs run: CLUSTER FAILOVER once
 * FAILOVER_AROUND completed, then the replica's ROLE watched until it is master. */
static void failover_step(uv_timer_t *t) {
    fixture *f = t->data;
    if (fo.asked_t == 0) {
        if (f->p.completed < FAILOVER_AROUND) return;
        const char *argv[] = {"CLUSTER", "FAILOVER"};
        char out[64];
        assert_int_equal(
            test_cluster_command(f->cluster.node[fo.replica].port, out, sizeof out, 2, argv), 0);
        assert_string_equal(out, "+OK");
        fo.asked_t = now_s();
        fo.at_ask = f->p.completed;
        return;
    }
    if (!test_cluster_is_master(&f->cluster, fo.replica)) return;
    fo.master_t = now_s();
    fo.at_master = f->p.completed;
    uv_timer_stop(t);
}

/* Promoted, and FAILOVER_AROUND calls completed since (or no call left to make). */
static bool failed_over(fixture *f) {
    return (fo.master_t > 0 && f->p.completed >= fo.at_master + FAILOVER_AROUND) ||
           f->p.next == f->p.total;
}

static void test_manual_failover(void **state) {
    fixture *f = *state;
    const int master = cl_master_port(&f->cluster, 2);
    fo = (failover){.replica = cl_replica_of(&f->cluster, master)};
    assert_true(fo.replica >= 0);
    const long long keys_before = cl_dbsize_sum(&f->cluster);
    open_client(f);
    f->prefix = "umf";
    pump_start(f, key_plain, make_incr, seen_incr);
    f->op.data = f;
    uv_timer_start(&f->op, failover_step, 10, 10);
    const double t0 = now_s();
    f->p.total = MAX_ITEMS; /* (more than it takes: failed_over stops the calls) */
    pump_fill(f);
    const bool over = run_until(f, failed_over, 60);
    uv_timer_stop(&f->op);
    f->p.total = f->p.next; /* the calls in flight complete */
    assert_true(run_until(f, pump_idle, 30));
    const double secs = now_s() - t0;
    assert_true(over);
    assert_true(fo.master_t > 0);
    size_t once = 0, twice = 0;
    for (size_t i = 0; i < f->p.total; i++) {
        once += f->times[i] == 1;
        twice += f->times[i] > 1;
    }
    const size_t total = f->p.total, failed = f->failed;
    const double longest = f->p.longest;
    const rg_cc_stats st = f->u.cc.stats;
    assert_int_equal(test_cluster_wait_ok(&f->cluster, 15000), 0);
    pump_start(f, key_plain, make_get, seen_number);
    pump_run(f, total, 60);
    size_t ones = 0;
    for (size_t i = 0; i < total; i++) ones += f->got[i] == 1;
    const long long keys = cl_dbsize_sum(&f->cluster) - keys_before;
    printf("manual failover (libuv): replica %d of master %d is master %.3f s after CLUSTER "
           "FAILOVER; %zu INCRs in %.2f s (%zu before it was asked, %zu by the promotion), the "
           "longest %.3f s: %zu completed once, %zu more than once, %zu failed; read back %zu at "
           "1, keys added %lld; MOVED %llu, ASK %llu, retries %llu, lost connections %llu\n",
           f->cluster.node[fo.replica].port, master, fo.master_t - fo.asked_t, total, secs,
           fo.at_ask, fo.at_master, longest, once, twice, failed, ones, keys,
           (unsigned long long)st.moved, (unsigned long long)st.ask, (unsigned long long)st.retries,
           (unsigned long long)st.lost_connections);
    assert_true(test_cluster_is_master(&f->cluster, fo.replica));
    assert_int_equal(once, total);
    assert_int_equal(twice, 0);
    assert_int_equal(failed, 0);
    assert_int_equal(f->failed, 0);
    assert_int_equal(ones, total);
    assert_int_equal(keys, (long long)total);
    assert_true(st.moved > 0); /* the calls followed the slots to the new master */
    close_client(f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_modes),
        cmocka_unit_test(test_channels_move),
        cmocka_unit_test(test_scan_resharding),
        cmocka_unit_test(test_transactions),
        cmocka_unit_test(test_transactions_resharding),
        cmocka_unit_test(test_manual_failover), /* last: the roles stay swapped */
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
