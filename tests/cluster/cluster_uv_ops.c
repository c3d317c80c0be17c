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
 * - scale out and in: a seventh node, started by the test, met (CLUSTER MEET), 300 slots moved
 *   onto it from every master, then all of them back to one master, the node forgotten by every
 *   other (CLUSTER FORGET) and shut down, each step from a uv timer while INCRs of 10,000
 *   counters and GETs of 10,000 keys whose values name them stream 1,000 in flight: every call
 *   completes exactly once, none fails, every GET reads its key's value, every counter reads the
 *   count of its INCRs, the masters' DBSIZE adds up, and the client's map gives the node no slot;
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
    double longest;   /* the longest a call took, made to completed (s) */
    double last_done; /* when a call last completed (s) */
    double gap;       /* the longest between two completions (s) */
    double gap_end;   /* ... when it ended */
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
    uint8_t times[MAX_ITEMS]; /* completions of each item (past MAX_ITEMS: of i % MAX_ITEMS) */
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
    if (f->times[i % MAX_ITEMS] < 255) f->times[i % MAX_ITEMS]++;
    const double at = now_s(), took = at - f->made_at[d->id - 1];
    if (took > p->longest) p->longest = took;
    if (p->last_done > 0 && at - p->last_done > p->gap) {
        p->gap = at - p->last_done;
        p->gap_end = at;
    }
    p->last_done = at;
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

/* ---- scale out and in ----------------------------------------------------------------------- */

/* The stream: even items INCR one of SCALE_COUNTERS counters in turn (uso:<k>), odd items GET one
 * of SCALE_VALUES keys written first (usv:<j>, whose value names it: a reply handed to another
 * call shows). SCALE_SLOTS move onto the new node; SCALE_AROUND calls complete before the first
 * step and after the last. */
enum { SCALE_COUNTERS = 10000, SCALE_VALUES = 10000, SCALE_SLOTS = 300, SCALE_AROUND = 20000 };

/* The operator's steps, in order: each phase waits for what its comment says, then the next
 * step is taken. */
typedef enum scale_phase {
    SP_LOAD,   /* the calls stream: SCALE_AROUND completed; then CLUSTER MEET */
    SP_JOIN,   /* every node knows the new one and agrees on the slots; then reshard onto it */
    SP_OUT,    /* redis-cli exited */
    SP_SETTLE, /* the nodes agree; then reshard all of its slots back to one master */
    SP_IN,     /* redis-cli exited */
    SP_EMPTY,  /* the nodes agree it serves nothing; then CLUSTER FORGET everywhere, SHUTDOWN */
    SP_GONE,   /* it exited */
    SP_AFTER,  /* SCALE_AROUND more completed, and the client's map gives it no slot */
    SP_DONE
} scale_phase;

static const char *const PHASE[] = {"load",  "join", "out",   "settle", "in",
                                    "empty", "gone", "after", "done"};

typedef struct scale_op {
    scale_phase phase;
    int node, port; /* the added node: its index, its port */
    int home;       /* the master its slots go back to: its port */
    char id[64], home_id[64];
    pid_t cli;                       /* redis-cli reshard, in the background */
    int served;                      /* slots the node served once scaled out */
    double started_t, known_t;       /* the new node started; every node knew it */
    size_t stale;                    /* slots the client's map still gave it when it exited */
    double clean_t;                  /* the client's map gave it none */
    double t[SP_DONE + 1];           /* when each phase began */
    size_t at[SP_DONE + 1];          /* calls completed by then */
    uint64_t redirects[SP_DONE + 1]; /* MOVED + ASK followed by then */
    /* INCRs on the wire to the node as it shut down (RG_CLOSED, written: they may have run, and
     * are reported so, not sent again), per counter: a refresh from a node that had not yet
     * learnt of the move back can leave a slot on it in the client's map, and the first call
     * for that slot then goes there, to meet a MOVED or the shutdown. */
    uint8_t reported[SCALE_COUNTERS];
    size_t nreported;
} scale_op;

static scale_op sop;

static int key_scale(const fixture *f, size_t i, char *buf, size_t cap) {
    (void)f;
    return i % 2 ? snprintf(buf, cap, "usv:%zu", i / 2 % SCALE_VALUES)
                 : snprintf(buf, cap, "uso:%zu", i / 2 % SCALE_COUNTERS);
}

/* The value of key: "v" and the key. */
static rg_view named_value(rg_view key, char *buf, size_t cap) {
    return (rg_view){buf, (size_t)snprintf(buf, cap, "v%.*s", (int)key.len, key.ptr)};
}

static uint64_t make_set_named(fixture *f, rg_view key) {
    char v[64];
    return redis_set_call(front(f), key, named_value(key, v, sizeof v), NULL, next_result(f),
                          call_done, f);
}

static uint64_t make_scale(fixture *f, rg_view key) {
    return memcmp(key.ptr, "uso:", 4) == 0 ? make_incr(f, key) : make_get(f, key);
}

/* An INCR reads at most the count of its counter's INCRs made so far (this one included); a GET
 * reads the value that names its key. */
static void seen_scale(fixture *f, size_t i, const rg_call_done *d) {
    if (i % 2 == 0) {
        const redis_incr_result *r = d->result;
        const int64_t made = (int64_t)(i / 2 / SCALE_COUNTERS) + 1;
        if (d->status == RG_CLOSED && d->written && sop.phase >= SP_EMPTY &&
            sop.reported[i / 2 % SCALE_COUNTERS] < UINT8_MAX) {
            sop.reported[i / 2 % SCALE_COUNTERS]++;
            sop.nreported++;
            return;
        }
        if (d->status != RG_OK || r->value < 1 || r->value > made) note(f, "INCR", i, d);
        return;
    }
    char key[32], v[64];
    const rg_view want =
        named_value((rg_view){key, (size_t)key_scale(f, i, key, sizeof key)}, v, sizeof v);
    const redis_get_result *r = d->result;
    if (d->status != RG_OK || !r->value.ptr || !rg_view_eq(r->value, want)) note(f, "GET", i, d);
}

/* Slots the client's map gives to the node on port. */
static size_t map_slots_of(const rg_cc *cc, int port) {
    size_t n = 0;
    for (int s = 0; s < RG_CLUSTER_SLOTS; s++) {
        const uint16_t owner = rg_cluster_map_owner(&cc->map, (uint16_t)s);
        n += owner != RG_NODE_NONE && cc->map.node[owner].port == port;
    }
    return n;
}

static void scale_next(fixture *f, scale_phase next) {
    sop.phase = next;
    sop.t[next] = now_s();
    sop.at[next] = f->p.completed;
    sop.redirects[next] = f->u.cc.stats.moved + f->u.cc.stats.ask;
}

/* redis-cli exited (successfully: else the test fails). */
static bool cli_exited(const test_cluster *c) {
    int status = 0;
    if (waitpid(sop.cli, &status, WNOHANG) != sop.cli) return false;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) cl_reshard_print_log(c);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    return true;
}

/* Forgotten by every other node, then shut down, as an operator takes a node out. */
static void scale_remove(const test_cluster *c) {
    cl_forget(c, sop.node);
    const char *argv[] = {"SHUTDOWN", "NOSAVE"};
    char out[64];
    (void)test_cluster_command(sop.port, out, sizeof out, 2, argv); /* (no reply: it exits) */
}

/* The node exited: reaped, its directory removed. */
static bool scale_reaped(test_cluster *c) {
    test_redis *n = &c->node[sop.node];
    int status;
    if (waitpid(n->pid, &status, WNOHANG) != n->pid) return false;
    n->pid = 0;
    test_redis_stop(n);
    return true;
}

/* Whether the phase's wait is over, looked at once (the loop is not held); if so its step. */
static bool scale_phase_over(fixture *f) {
    test_cluster *c = &f->cluster;
    switch (sop.phase) {
    case SP_LOAD:
        if (f->p.completed < SCALE_AROUND) return false;
        cl_meet(c, sop.node);
        return true;
    case SP_JOIN:
        if (!sop.known_t && test_cluster_linked(c)) sop.known_t = now_s();
        if (!sop.known_t || test_cluster_wait_ok(c, 0) != 0) return false;
        sop.cli = cl_reshard_ids(c, sop.home, "all", sop.id, SCALE_SLOTS);
        return true;
    case SP_SETTLE:
        if (test_cluster_wait_ok(c, 0) != 0) return false;
        sop.served = cl_slots_served(c, sop.port);
        sop.cli = cl_reshard_ids(c, sop.port, sop.id, sop.home_id, sop.served);
        return true;
    case SP_OUT:
    case SP_IN: return cli_exited(c);
    case SP_EMPTY:
        if (test_cluster_wait_ok(c, 0) != 0 || cl_slots_served(c, sop.port) != 0) return false;
        scale_remove(c);
        return true;
    case SP_GONE:
        if (!scale_reaped(c)) return false;
        sop.stale = map_slots_of(&f->u.cc, sop.port);
        if (sop.stale == 0) sop.clean_t = now_s();
        return true;
    case SP_AFTER:
        /* (a slot without keys that a refresh gave it keeps it until the refresh that its
         * connection's loss asks for: no call there meets a MOVED) */
        if (!sop.clean_t && map_slots_of(&f->u.cc, sop.port) == 0) sop.clean_t = now_s();
        return sop.clean_t > 0 && f->p.completed >= sop.at[SP_AFTER] + SCALE_AROUND;
    case SP_DONE: return false;
    }
    return false;
}

/* The operator, every 20 ms from the loop while the calls stream. */
static void scale_step(uv_timer_t *t) {
    fixture *f = t->data;
    if (!scale_phase_over(f)) return;
    scale_next(f, sop.phase + 1);
    if (sop.phase == SP_DONE) uv_timer_stop(t);
}

static bool scale_done(fixture *f) {
    (void)f;
    return sop.phase == SP_DONE;
}

/* Every call completed exactly once. Past MAX_ITEMS, times[] counts the items of each residue
 * (i, i + MAX_ITEMS, ...): each must have as many completions as it has items. Returns how many
 * do not. */
static size_t scale_not_once(const fixture *f) {
    const size_t made = f->p.total, rounds = made / MAX_ITEMS, rest = made % MAX_ITEMS;
    size_t bad = 0;
    for (size_t s = 0; s < MAX_ITEMS; s++) bad += f->times[s] != rounds + (s < rest);
    return bad;
}

/* Reads the counters back: how many are not the count of the INCRs made on them. */
static size_t scale_counters_wrong(fixture *f, size_t incrs) {
    f->prefix = "uso";
    pump_start(f, key_plain, make_get, seen_number);
    pump_run(f, SCALE_COUNTERS, 30);
    assert_int_equal(f->failed, 0);
    size_t wrong = 0;
    for (size_t k = 0; k < SCALE_COUNTERS; k++) {
        const int16_t want = (int16_t)(incrs / SCALE_COUNTERS + (k < incrs % SCALE_COUNTERS));
        wrong +=
            f->got[k] > want || f->got[k] < want - sop.reported[k]; /* (reported: ran or not) */
    }
    return wrong;
}

/* The phase a time falls in. */
static const char *phase_at(double t) {
    int k = SP_LOAD;
    while (k < SP_DONE && sop.t[k + 1] <= t) k++;
    return PHASE[k];
}

/* The keys the GETs read, and the node to add, started alone. */
static void scale_prepare(fixture *f) {
    f->prefix = "usv";
    pump_start(f, key_plain, make_set_named, seen_set);
    pump_run(f, SCALE_VALUES, 30);
    assert_int_equal(f->failed, 0);
    test_cluster *c = &f->cluster;
    sop = (scale_op){.home = cl_master_port(c, 0), .node = test_cluster_start_node(c)};
    assert_true(sop.node >= 0);
    sop.started_t = now_s();
    sop.port = c->node[sop.node].port;
    cl_node_id(sop.port, sop.id, sizeof sop.id);
    cl_node_id(sop.home, sop.home_id, sizeof sop.home_id);
}

/* Streams the calls, 1,000 in flight, while the operator takes its steps from the loop. */
static void scale_stream(fixture *f) {
    pump_start(f, key_scale, make_scale, seen_scale);
    f->p.total = SIZE_MAX; /* (until the operator is done) */
    scale_next(f, SP_LOAD);
    f->op.data = f;
    uv_timer_start(&f->op, scale_step, 20, 20);
    pump_fill(f);
    const bool done = run_until(f, scale_done, 60);
    uv_timer_stop(&f->op);
    f->p.total = f->p.next; /* the calls in flight complete */
    assert_true(run_until(f, pump_idle, 30));
    if (!done) printf("  the operator's steps stopped at \"%s\"\n", PHASE[sop.phase]);
    assert_true(done);
}

/* What the stream and the checks after it found. */
typedef struct scale_result {
    pump stream; /* as the stream left it */
    rg_cc_stats st;
    size_t not_once, failed, incrs;
    size_t on_node; /* slots the client's map gives to the removed node */
    bool listed;    /* ... which the map still lists */
    size_t wrong;   /* counters not the count of their INCRs */
    long long keys; /* the masters' DBSIZE added */
} scale_result;

static void scale_report(const scale_result *r) {
    const double *t = sop.t;
    const size_t *at = sop.at;
    printf(
        "scale out and in (libuv): node %d known to every node %.2f s after CLUSTER MEET, "
        "all agreeing %.2f s after it started; %d slots moved onto it from every master in "
        "%.2f s, agreed %.2f s later; moved back to %d in %.2f s, agreed %.2f s later; "
        "forgotten and shut down, it exited %.3f s later. %zu calls (INCR and GET alternating) "
        "in %.2f s, "
        "completed per phase (load, join, out, settle, in, empty, gone, after): %zu, %zu, "
        "%zu, %zu, %zu, %zu, %zu, %zu; %zu not completed exactly once, %zu failed, %zu "
        "reported written as the node shut down; MOVED "
        "%llu, ASK %llu, retries %llu, lost connections %llu; the longest gap between "
        "completions %.3f s (%s), the longest call %.3f s; counters wrong %zu, keys added "
        "%lld; the client's map: %zu slots on the node when it exited, none %.3f s later, %zu at "
        "the end, the node %s\n",
        sop.port, sop.known_t - t[SP_JOIN], t[SP_OUT] - sop.started_t, sop.served,
        t[SP_SETTLE] - t[SP_OUT], t[SP_IN] - t[SP_SETTLE], sop.home, t[SP_EMPTY] - t[SP_IN],
        t[SP_GONE] - t[SP_EMPTY], t[SP_AFTER] - t[SP_GONE], r->stream.total,
        t[SP_DONE] - t[SP_LOAD], at[SP_JOIN] - at[SP_LOAD], at[SP_OUT] - at[SP_JOIN],
        at[SP_SETTLE] - at[SP_OUT], at[SP_IN] - at[SP_SETTLE], at[SP_EMPTY] - at[SP_IN],
        at[SP_GONE] - at[SP_EMPTY], at[SP_AFTER] - at[SP_GONE], r->stream.completed - at[SP_AFTER],
        r->not_once, r->failed, sop.nreported, (unsigned long long)r->st.moved,
        (unsigned long long)r->st.ask, (unsigned long long)r->st.retries,
        (unsigned long long)r->st.lost_connections, r->stream.gap, phase_at(r->stream.gap_end),
        r->stream.longest, r->wrong, r->keys, sop.stale,
        sop.stale ? sop.clean_t - t[SP_AFTER] : 0.0, r->on_node,
        r->listed ? "still listed" : "not listed");
}

/* Scale out: a node the test starts is met (CLUSTER MEET) and SCALE_SLOTS move onto it from every
 * master; scale in: they all move back to one master, every other node forgets it and it shuts
 * down. Each step is taken from the loop while INCRs and GETs stream 1,000 in flight: every call
 * completes exactly once, none fails, every GET reads its key's value, every counter reads the
 * count of its INCRs, no key is left astray, and the client's map ends with no slot on the node. */
static void test_scale_out_in(void **state) {
    fixture *f = *state;
    const long long keys_before = cl_dbsize_sum(&f->cluster);
    open_client(f);
    scale_prepare(f);
    scale_stream(f);
    scale_result r = {.stream = f->p,
                      .st = f->u.cc.stats,
                      .not_once = scale_not_once(f),
                      .failed = f->failed,
                      .incrs = (f->p.total + 1) / 2,
                      .on_node = map_slots_of(&f->u.cc, sop.port),
                      .listed = map_index(&f->u.cc, sop.port) >= 0};
    r.wrong = scale_counters_wrong(f, r.incrs);
    r.keys = cl_dbsize_sum(&f->cluster) - keys_before;
    scale_report(&r);
    assert_int_equal(r.not_once, 0);
    assert_int_equal(r.failed, 0);
    assert_true(sop.nreported <= 1000); /* (at most the calls in flight) */
    assert_int_equal(r.wrong, 0);
    assert_int_equal(r.keys, SCALE_VALUES + (r.incrs < SCALE_COUNTERS ? r.incrs : SCALE_COUNTERS));
    assert_true(sop.served > SCALE_SLOTS - 10 && sop.served <= SCALE_SLOTS);
    assert_true(sop.redirects[SP_SETTLE] > sop.redirects[SP_OUT]); /* it followed the slots */
    assert_true(sop.redirects[SP_EMPTY] > sop.redirects[SP_IN]);   /* ... there and back */
    assert_int_equal(r.on_node, 0);
    assert_int_equal(rg_cluster_map_covered(&f->u.cc.map), RG_CLUSTER_SLOTS);
    assert_int_equal(f->cluster.node[sop.node].pid, 0);
    close_client(f);
    assert_int_equal(test_cluster_wait_ok(&f->cluster, 15000), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_modes),
        cmocka_unit_test(test_channels_move),
        cmocka_unit_test(test_scan_resharding),
        cmocka_unit_test(test_transactions),
        cmocka_unit_test(test_transactions_resharding),
        cmocka_unit_test(test_scale_out_in),
        cmocka_unit_test(test_manual_failover), /* last: the roles stay swapped */
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
