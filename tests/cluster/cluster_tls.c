/* The cluster client over TLS on a real six-node TLS cluster that the test starts itself
 * (tests/support/test_cluster.h: --tls-cluster yes --tls-replication yes, client certificates
 * required, certificates made with `openssl` by tests/support/test_tls.h):
 *
 * - the map: learnt over TLS, every node on its TLS port (CLUSTER SHARDS "tls-port"), none on a
 *   plain one;
 * - routing and pipelining: 20,000 distinct INCRs streamed over mutual TLS, cross-slot MGET and
 *   DEL through the fan-out, every counter read back exactly 1;
 * - replica reads: GETs routed to replicas (READONLY over TLS) see what the masters wrote once
 *   replication (over TLS) caught up;
 * - resharding: `redis-cli --tls --cluster reshard` moves 100 slots while 60,000 INCRs stream:
 *   MOVED and ASK name TLS ports and the client follows them (0 lost, 0 duplicated);
 * - refused: a client trusting another CA, or with no client certificate, fails at init naming
 *   the TLS cause;
 * - node reconnects by policy (rg_cc_config.reconnect, on_event): a replica serving reads killed
 *   (SIGKILL) and started again: DISCONNECTED, ATTEMPTs numbered from 1 with delays within the
 *   backoff's caps, READY, every read answered; a master killed with 3 attempts allowed:
 *   DISCONNECTED, ATTEMPT 1..3, GAVE_UP, then its calls end RG_CLOSED at once, unwritten, while
 *   the other masters' succeed; after the failover every call succeeds.
 *
 * With libuv (RG_TEST_CLUSTER_UV), the same cluster through the libuv client (rg_cluster_uv.h),
 * every engine link an rg_uv over TLS, every call a generated one made from the loop's callbacks:
 *
 * - mutual TLS: READY with every node of the map on its TLS port; 20,000 INCRs of distinct
 *   counters kept 1,000 in flight, each completed once with 1 (and read back 1); a cross-slot
 *   MGET over the three masters merged into its typed result;
 * - refused: an unknown CA, or no client certificate: the first refresh FAILS naming the TLS
 *   cause, and keeps failing; rg_cc_uv_close reaches CLOSED with no handle, engine buffer or
 *   heap byte left (glibc's count, or LeakSanitizer's), also when it closes the client early:
 *   while the first link connects or shakes hands, or in the turn of the loop that link failed;
 * - node reconnects through the driver: a replica serving reads killed and started again:
 *   DISCONNECTED, ATTEMPTs, READY for that node while the reads keep completing, then the
 *   restarted replica answers reads again.
 */
#include "rg_cluster_client.h"
#include "rg_tls.h"
#include "test_cluster.h"
#include "test_tls.h"

#include "redis_client.h"
#include "redis_keys.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "cc_batch.h"

#ifdef RG_TEST_CLUSTER_UV
#include "rg_cluster_uv.h"

#include <time.h>
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#define RG_TEST_LSAN 1
#elif defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#include <malloc.h>
#define RG_TEST_MALLINFO 1
#endif
#endif

enum { BATCH = 4000, ARENA = 1 << 20, STREAM = 50 };

static const rg_cluster_commands CMDS = {redis_keys_table, REDIS_KEYS_CMD_COUNT, redis_keys_policy};

enum { EVENTS = 64 };

typedef struct node_event {
    uint16_t node;
    rg_reconnect_event ev;
} node_event;

typedef struct fixture {
    test_certs certs;
    test_cluster cluster;
    char ca[256], cert[256], key[256], other_ca[256];
    rg_tls_ctx *ctx;      /* one context (one CA load) shared by every node's connection */
    rg_tls_config mutual; /* its config: the clients' */
    rg_cc_call calls[BATCH];
    rg_raw_result raw[BATCH];
    redis_incr_result incr[BATCH];
    char arena[ARENA];
    node_event events[EVENTS];
    int nevents;
#ifdef RG_TEST_CLUSTER_UV
    uv_loop_t loop;
    uv_timer_t tick; /* keeps uv_run(UV_RUN_ONCE) returning */
    rg_cc_uv u;      /* the libuv client */
    bool uv_open;    /* opened, CLOSED not told yet */
    int uv_events[RG_CC_UV_CLOSED + 1];
    rg_cc_call ucalls[BATCH];
    char uarena[ARENA];
    redis_get_result uget[BATCH];
    long live;            /* the libuv client's engine allocations not freed (cfg.alloc) */
    struct uv_load *load; /* the load that DRAINED resumes */
#endif
} fixture;

static void on_node_event(rg_cc *cc, uint16_t node, const rg_reconnect_event *ev, void *ud) {
    fixture *f = ud;
    (void)cc;
    printf("  node %u: event %d attempt %u delay %u %s\n", (unsigned)node, (int)ev->what,
           (unsigned)ev->attempt, (unsigned)ev->delay_ms,
           ev->cause.msg.ptr ? ev->cause.msg.ptr : "");
    if (f->nevents < EVENTS) f->events[f->nevents++] = (node_event){node, *ev};
}

/* A client of f's cluster over tls (kept alive by the caller until the client is freed): RG_OK
 * or the init's failure, *out the client. */
static rg_status open_cc_with(fixture *f, const rg_tls_config *tls, bool replicas,
                              rg_backoff reconnect, rg_cc **out) {
    rg_cc *cc = calloc(1, sizeof *cc);
    assert_non_null(cc);
    const rg_cc_config cfg = {.cmds = &CMDS,
                              .calls = f->calls,
                              .ncalls = BATCH,
                              .arena = f->arena,
                              .arena_cap = ARENA,
                              .read_from_replicas = replicas,
                              .wait_ms = 15000,
                              .tls = tls,
                              .reconnect = reconnect,
                              .on_event = on_node_event,
                              .event_ud = f};
    const rg_status st = rg_cc_init(cc, &cfg, "127.0.0.1", (uint16_t)f->cluster.tls_port[0]);
    if (st != RG_OK) printf("rg_cc_init: %s %s\n", rg_status_name(st), rg_cc_error(cc).msg.ptr);
    *out = cc;
    return st;
}

static rg_status open_cc(fixture *f, const rg_tls_config *tls, bool replicas, rg_cc **out) {
    return open_cc_with(f, tls, replicas, (rg_backoff){0, 0, 0}, out);
}

static rg_cc *client(fixture *f, bool replicas) {
    rg_cc *cc = NULL;
    assert_int_equal(open_cc(f, &f->mutual, replicas, &cc), RG_OK);
    assert_int_equal(rg_cluster_map_covered(&cc->map), RG_CLUSTER_SLOTS);
    return cc;
}

static void client_free(rg_cc *cc) {
    rg_cc_close(cc);
    free(cc);
}

#ifdef RG_TEST_CLUSTER_UV
#include "cluster_uv_util.h" /* (after fixture: its run_until reads one) */
#endif

static int group_setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    if (!f || test_certs_make(&f->certs) != 0) return -1;
    snprintf(f->ca, sizeof f->ca, "%s/ca.crt", f->certs.dir);
    snprintf(f->cert, sizeof f->cert, "%s/client.crt", f->certs.dir);
    snprintf(f->key, sizeof f->key, "%s/client.key", f->certs.dir);
    snprintf(f->other_ca, sizeof f->other_ca, "%s/other-ca.crt", f->certs.dir);
    const rg_tls_config files = {.ca_file = f->ca, .cert_file = f->cert, .key_file = f->key};
    rg_tls_report why;
    if (!(f->ctx = rg_tls_ctx_new(&files, &why))) {
        fprintf(stderr, "rg_tls_ctx_new: %s\n", why.msg);
        return -1;
    }
    f->mutual = (rg_tls_config){.ctx = f->ctx};
    if (test_cluster_start_tls(&f->cluster, &f->certs) != 0) {
        test_certs_remove(&f->certs);
        free(f);
        return -1;
    }
#ifdef RG_TEST_CLUSTER_UV
    uvt_loop_start(&f->loop, &f->tick);
#endif
    *state = f;
    return 0;
}

static int group_teardown(void **state) {
    fixture *f = *state;
#ifdef RG_TEST_CLUSTER_UV
    if (f->uv_open) rg_cc_uv_close(&f->u); /* (a failed test left it open) */
    for (int i = 0; i < 1000 && f->uv_open; i++) uv_run(&f->loop, UV_RUN_ONCE);
    if (uvt_loop_end(&f->loop, &f->tick) != 0) fprintf(stderr, "the loop still has handles\n");
#endif
    test_cluster_stop(&f->cluster);
    test_certs_remove(&f->certs);
    rg_tls_ctx_free(f->ctx);
    free(f);
    return 0;
}

/* ---- the map -------------------------------------------------------------------------------- */

static bool is_tls_port(const fixture *f, int port) {
    for (int i = 0; i < f->cluster.n; i++)
        if (f->cluster.tls_port[i] == port) return true;
    return false;
}

static void test_map_on_tls_ports(void **state) {
    fixture *f = *state;
    rg_cc *cc = client(f, false);
    size_t listed = 0;
    for (size_t i = 0; i < cc->map.nnodes; i++) {
        const rg_cluster_node *n = &cc->map.node[i];
        if (n->role == RG_NODE_GONE) continue;
        listed++;
        printf("node %s:%u role %u\n", n->host, (unsigned)n->port, (unsigned)n->role);
        assert_true(is_tls_port(f, n->port));
    }
    assert_int_equal(listed, TEST_CLUSTER_NODES);
    client_free(cc);
}

/* ---- routing and pipelining ----------------------------------------------------------------- */

typedef struct load {
    const char *prefix;
    size_t next, total, failed;
} load;

/* One batch of n INCRs of prefix:<next...>, streamed STREAM at a time between steps. */
static void load_batch(rg_cc *cc, fixture *f, load *l, size_t n) {
    rg_cc_begin(cc);
    char key[48];
    for (size_t i = 0; i < n && l->next < l->total; i++, l->next++) {
        const int kl = snprintf(key, sizeof key, "%s:%zu", l->prefix, l->next);
        const size_t at = rg_cc_size(cc);
        assert_int_equal(
            redis_incr_call(rg_cc_conn(cc), (rg_view){key, (size_t)kl}, &f->incr[at], NULL, NULL),
            at + 1);
        if ((i + 1) % STREAM == 0) rg_cc_step(cc, 0);
    }
    rg_cc_run(cc);
    for (size_t i = 0; i < rg_cc_size(cc); i++) {
        const rg_cc_call *k = rg_cc_get(cc, i);
        if (k->status == RG_OK && f->incr[i].value == 1) continue;
        if (l->failed++ < 5)
            printf("  failed: %s %s (%u redirects)\n", rg_status_name(k->status), k->error.ptr,
                   k->redirects);
    }
}

/* Reads the counters back: how many are not exactly 1. */
static size_t not_once(rg_cc *cc, fixture *f, const load *l) {
    size_t bad = 0;
    char key[48];
    for (size_t base = 0; base < l->total; base += BATCH) {
        rg_cc_begin(cc);
        for (size_t i = base; i < l->total && i < base + BATCH; i++) {
            snprintf(key, sizeof key, "%s:%zu", l->prefix, i);
            ADD(cc, f, "GET", key);
        }
        assert_int_equal(rg_cc_run(cc), 0);
        for (size_t i = 0; i < rg_cc_size(cc); i++) bad += raw_int(&f->raw[i]) != 1;
    }
    return bad;
}

static void test_pipelined(void **state) {
    fixture *f = *state;
    rg_cc *cc = client(f, false);
    load l = {.prefix = "tls", .total = 20000};
    while (l.next < l.total) load_batch(cc, f, &l, BATCH);
    assert_int_equal(l.failed, 0);
    assert_int_equal(not_once(cc, f, &l), 0);
    /* the fan-out: a cross-slot MGET merged in key order, a DEL summed */
    rg_cc_begin(cc);
    const size_t mget = ADD(cc, f, "MGET", "tls:1", "tls:2", "tls:3", "nothing");
    const size_t del = ADD(cc, f, "DEL", "tls:1", "tls:2", "tls:3", "nothing");
    assert_int_equal(rg_cc_run(cc), 0);
    const char want[] = "*4\r\n$1\r\n1\r\n$1\r\n1\r\n$1\r\n1\r\n_\r\n";
    assert_int_equal(f->raw[mget].value.len, sizeof want - 1);
    assert_memory_equal(f->raw[mget].value.ptr, want, sizeof want - 1);
    assert_int_equal(raw_int(&f->raw[del]), 3);
    printf("stats: %llu connects, %llu moved, %llu lost connections\n",
           (unsigned long long)cc->stats.connects, (unsigned long long)cc->stats.moved,
           (unsigned long long)cc->stats.lost_connections);
    assert_int_equal(cc->stats.lost_connections, 0);
    client_free(cc);
}

/* ---- replica reads -------------------------------------------------------------------------- */

static void test_replica_reads(void **state) {
    fixture *f = *state;
    rg_cc *writer = client(f, false);
    rg_cc_begin(writer);
    char key[32], val[32];
    for (int i = 0; i < 200; i++) {
        snprintf(key, sizeof key, "rep:%d", i);
        snprintf(val, sizeof val, "%d", i);
        ADD(writer, f, "SET", key, val);
    }
    assert_int_equal(rg_cc_run(writer), 0);
    client_free(writer);
    rg_cc *cc = client(f, true);
    size_t right = 0;
    for (int round = 0; round < 50 && right < 200; round++) {
        rg_cc_begin(cc);
        for (int i = 0; i < 200; i++) {
            snprintf(key, sizeof key, "rep:%d", i);
            ADD(cc, f, "GET", key);
        }
        assert_int_equal(rg_cc_run(cc), 0);
        right = 0;
        for (int i = 0; i < 200; i++) right += raw_int(&f->raw[i]) == i;
        if (right < 200) usleep(100 * 1000); /* replication over TLS catching up */
    }
    assert_int_equal(right, 200);
    /* the reads went to replicas: one connection per replica beside none to the masters */
    size_t replicas = 0;
    for (size_t i = 0; i < cc->map.nnodes; i++)
        replicas += cc->node[i].open && cc->map.node[i].role == RG_NODE_REPLICA;
    assert_int_equal(replicas, 3);
    client_free(cc);
}

/* ---- resharding ----------------------------------------------------------------------------- */

static void node_id(int port, char *id, size_t cap) {
    const char *argv[] = {"CLUSTER", "MYID"};
    assert_int_equal(test_cluster_command(port, id, cap, 2, argv), 0);
}

/* The index of the first master on record. */
static int master(const fixture *f, int nth) {
    for (int i = 0, seen = 0; i < f->cluster.n; i++)
        if (test_cluster_is_master(&f->cluster, i) && seen++ == nth) return i;
    return -1;
}

/* `redis-cli --tls --cluster reshard` of slots from master a to master b, in the background:
 * over TLS, so that it names the TLS ports to MIGRATE (which speaks TLS on a TLS cluster). */
static pid_t reshard(fixture *f, int a, int b, int slots) {
    char from[64], to[64], addr[32], n[16], log[96];
    node_id(f->cluster.node[a].port, from, sizeof from);
    node_id(f->cluster.node[b].port, to, sizeof to);
    snprintf(addr, sizeof addr, "127.0.0.1:%d", f->cluster.tls_port[a]);
    snprintf(n, sizeof n, "%d", slots);
    snprintf(log, sizeof log, "%s/reshard.log", f->cluster.node[0].dir);
    const pid_t pid = fork();
    if (pid == 0) {
        FILE *out = freopen(log, "w", stdout);
        (void)out;
        execlp("redis-cli", "redis-cli", "--tls", "--cacert", f->ca, "--cert", f->cert, "--key",
               f->key, "--cluster", "reshard", addr, "--cluster-from", from, "--cluster-to", to,
               "--cluster-slots", n, "--cluster-yes", "--cluster-pipeline", "20", (char *)NULL);
        _exit(127);
    }
    return pid;
}

static void test_resharding(void **state) {
    fixture *f = *state;
    rg_cc *cc = client(f, false);
    load l = {.prefix = "rs", .total = 60000};
    load_batch(cc, f, &l, BATCH); /* keys in the slots to move */
    const pid_t pid = reshard(f, master(f, 0), master(f, 1), 100);
    int status = 0;
    bool done = false;
    while (l.next < l.total) {
        load_batch(cc, f, &l, BATCH);
        done = done || waitpid(pid, &status, WNOHANG) == pid;
    }
    if (!done) waitpid(pid, &status, 0);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_int_equal(test_cluster_wait_ok(&f->cluster, 10000), 0);
    printf("resharding: %llu moved, %llu ask, %llu retries, %llu refreshes\n",
           (unsigned long long)cc->stats.moved, (unsigned long long)cc->stats.ask,
           (unsigned long long)cc->stats.retries, (unsigned long long)cc->stats.refreshes);
    assert_int_equal(l.failed, 0);
    assert_int_equal(not_once(cc, f, &l), 0);
    assert_true(cc->stats.moved + cc->stats.ask > 0);
    for (size_t i = 0; i < cc->map.nnodes; i++)
        if (cc->map.node[i].role != RG_NODE_GONE) assert_true(is_tls_port(f, cc->map.node[i].port));
    client_free(cc);
}

/* ---- refused -------------------------------------------------------------------------------- */

static void expect_refused(fixture *f, const rg_tls_config *tls, const char *cause) {
    rg_cc *cc = NULL;
    const rg_status st = open_cc(f, tls, false, &cc);
    assert_int_not_equal(st, RG_OK);
    const rg_error e = rg_cc_error(cc);
    assert_non_null(strstr(e.msg.ptr, "tls: "));
    assert_non_null(strstr(e.msg.ptr, cause));
    client_free(cc);
}

static void test_refused(void **state) {
    fixture *f = *state;
    const rg_tls_config other = {.ca_file = f->other_ca, .cert_file = f->cert, .key_file = f->key};
    expect_refused(f, &other, "certificate");
    const rg_tls_config anonymous = {.ca_file = f->ca};
    expect_refused(f, &anonymous, "client certificate");
}

/* ---- node reconnects ----------------------------------------------------------------------- */

/* The cluster's index of the node the map has at index i. */
static int cluster_index(const fixture *f, const rg_cc *cc, uint16_t i) {
    for (int j = 0; j < f->cluster.n; j++)
        if (f->cluster.tls_port[j] == cc->map.node[i].port) return j;
    return -1;
}

/* f's events for node i, in order, into out; their number. */
static int events_of(const fixture *f, uint16_t i, rg_reconnect_event *out, int cap) {
    int n = 0;
    for (int k = 0; k < f->nevents && n < cap; k++)
        if (f->events[k].node == i) out[n++] = f->events[k].ev;
    return n;
}

/* ATTEMPTs numbered 1, 2, ... each within its cap (events ev[from..to)). */
static void attempts_ok(const rg_reconnect_event *ev, int from, int to, const rg_backoff *p) {
    for (int k = from; k < to; k++) {
        assert_int_equal(ev[k].what, RG_RECONNECT_ATTEMPT);
        assert_int_equal(ev[k].attempt, (uint32_t)(k - from + 1));
        assert_true(ev[k].delay_ms <= rg_backoff_cap(p, (uint32_t)(k - from)));
    }
}

/* 200 GETs of rep:<i> (written by test_replica_reads), added to a new batch. */
static void add_reads(rg_cc *cc, fixture *f) {
    char key[32];
    rg_cc_begin(cc);
    for (int i = 0; i < 200; i++) {
        snprintf(key, sizeof key, "rep:%d", i);
        ADD(cc, f, "GET", key);
    }
}

static void test_replica_restarted(void **state) {
    fixture *f = *state;
    const rg_backoff policy = {10, 100, 0};
    rg_cc *cc = NULL;
    assert_int_equal(open_cc_with(f, &f->mutual, true, policy, &cc), RG_OK);
    add_reads(cc, f);
    assert_int_equal(rg_cc_run(cc), 0); /* every replica connected */
    uint16_t r = RG_NODE_NONE;
    for (uint16_t i = 0; i < cc->map.nnodes && r == RG_NODE_NONE; i++)
        if (cc->node[i].open && cc->map.node[i].role == RG_NODE_REPLICA) r = i;
    assert_int_not_equal(r, RG_NODE_NONE);
    const int victim = cluster_index(f, cc, r);
    assert_true(victim >= 0);
    f->nevents = 0;
    test_redis_kill(&f->cluster.node[victim]);
    /* Reads to it fail its connection, then its connects, until it is back: it is started again
     * once the second attempt is announced (batch after batch: a batch whose reads to it were all
     * written ends without an attempt). */
    bool restarted = false, ready = false;
    for (int round = 0; round < 100 && !ready; round++) {
        add_reads(cc, f);
        while (rg_cc_step(cc, 10) > 0) {
            if (!restarted && f->nevents >= 3) {
                assert_int_equal(test_cluster_restart(&f->cluster, victim), 0);
                restarted = true;
            }
        }
        for (size_t i = 0; i < rg_cc_size(cc); i++) {
            const rg_cc_call *k = rg_cc_get(cc, i);
            assert_true(k->status == RG_OK || (k->status == RG_CLOSED && k->written));
        }
        ready = f->nevents > 0 && f->events[f->nevents - 1].ev.what == RG_RECONNECT_READY;
    }
    assert_true(restarted && ready);
    rg_reconnect_event ev[EVENTS] = {0};
    const int n = events_of(f, r, ev, EVENTS);
    assert_int_equal(f->nevents, n); /* no other node's */
    assert_true(n >= 4);
    assert_int_equal(ev[0].what, RG_RECONNECT_DISCONNECTED);
    assert_int_equal(ev[0].cause.status, RG_CLOSED);
    attempts_ok(ev, 1, n - 1, &policy);
    assert_int_equal(ev[n - 1].what, RG_RECONNECT_READY);
    assert_int_equal(ev[n - 1].attempt, (uint32_t)(n - 2));
    assert_true(cc->node[r].open);
    client_free(cc);
    assert_int_equal(test_cluster_wait_ok(&f->cluster, 15000), 0);
}

/* CONFIG SET name value on every running node (their plain ports). */
static void config_all(fixture *f, const char *name, const char *value) {
    for (int i = 0; i < f->cluster.n; i++) {
        if (f->cluster.node[i].pid <= 0) continue;
        const char *argv[] = {"CONFIG", "SET", name, value};
        char out[64];
        assert_int_equal(test_cluster_command(f->cluster.node[i].port, out, sizeof out, 4, argv),
                         0);
        assert_string_equal(out, "+OK");
    }
}

/* 300 SETs of gu:after:<i> to value; the calls' outcomes in cc's batch. */
static void set_batch(rg_cc *cc, fixture *f, const char *value) {
    char key[32];
    rg_cc_begin(cc);
    for (int i = 0; i < 300; i++) {
        snprintf(key, sizeof key, "gu:after:%d", i);
        ADD(cc, f, "SET", key, value);
    }
    rg_cc_run(cc);
}

static void test_master_given_up(void **state) {
    fixture *f = *state;
    /* No failover and no CLUSTERDOWN: the dead master keeps its slots, the others serve theirs. */
    config_all(f, "cluster-replica-no-failover", "yes");
    config_all(f, "cluster-require-full-coverage", "no");
    const rg_backoff policy = {5, 20, 3};
    rg_cc *cc = NULL;
    assert_int_equal(open_cc_with(f, &f->mutual, false, policy, &cc), RG_OK);
    load l = {.prefix = "gu", .total = 1000};
    load_batch(cc, f, &l, 1000); /* every master connected */
    assert_int_equal(l.failed, 0);
    const uint16_t m = rg_cluster_map_owner(&cc->map, 0);
    const int victim = cluster_index(f, cc, m);
    assert_true(victim >= 0);
    f->nevents = 0;
    test_redis_kill(&f->cluster.node[victim]);
    for (int round = 0; round < 20 && !cc->node[m].gave_up; round++) {
        l.total += 1000;
        load_batch(cc, f, &l, 1000);
    }
    assert_true(cc->node[m].gave_up);
    rg_reconnect_event ev[EVENTS] = {0};
    int n = events_of(f, m, ev, EVENTS);
    assert_int_equal(n, 5);
    assert_int_equal(ev[0].what, RG_RECONNECT_DISCONNECTED);
    attempts_ok(ev, 1, 4, &policy);
    assert_int_equal(ev[4].what, RG_RECONNECT_GAVE_UP);
    assert_int_equal(ev[4].attempt, 3);
    /* Given up: its calls end at once, unwritten; the others' succeed. */
    set_batch(cc, f, "v");
    size_t its = 0;
    for (size_t i = 0; i < rg_cc_size(cc); i++) {
        const rg_cc_call *k = rg_cc_get(cc, i);
        if (rg_cluster_map_owner(&cc->map, k->slot) != m) {
            assert_int_equal(k->status, RG_OK);
            continue;
        }
        its++;
        assert_int_equal(k->status, RG_CLOSED);
        assert_false(k->written);
        assert_non_null(strstr(k->error.ptr, "given up"));
    }
    assert_true(its > 0);
    /* Back: a probe (one connect per max_ms) finds it, READY, and every call succeeds. */
    assert_int_equal(test_cluster_restart(&f->cluster, victim), 0);
    size_t ok = 0;
    for (int round = 0; round < 100 && ok < 300; round++) {
        set_batch(cc, f, "w");
        ok = 0;
        for (size_t i = 0; i < rg_cc_size(cc); i++) ok += rg_cc_get(cc, i)->status == RG_OK;
        if (ok < 300) usleep(20 * 1000);
    }
    assert_int_equal(ok, 300);
    n = events_of(f, m, ev, EVENTS);
    assert_int_equal(n, 6); /* the probes are silent */
    assert_int_equal(ev[5].what, RG_RECONNECT_READY);
    assert_false(cc->node[m].gave_up);
    client_free(cc);
    config_all(f, "cluster-replica-no-failover", "no");
    config_all(f, "cluster-require-full-coverage", "yes");
    assert_int_equal(test_cluster_wait_ok(&f->cluster, 15000), 0);
}

/* ---- the libuv client over TLS -------------------------------------------------------------- */

#ifdef RG_TEST_CLUSTER_UV

enum { UV_COUNTERS = 20000, READS = 200 };

/* The engine's buffers, counted: f->live is what is allocated and not freed. */
static void *counting_alloc(void *ud, void *ptr, size_t size) {
    fixture *f = ud;
    void *p = rg_conn_std_alloc(NULL, ptr, size);
    if (size == 0 && ptr) f->live--;
    if (size && !ptr && p) f->live++;
    return p;
}

/* A load of calls made from their callbacks, `window` in flight: INCRs of <prefix>:<i>, or
 * GETs of uvrep:<i % READS> (each holds its number). */
typedef struct uv_load {
    fixture *f;
    bool reads;
    const char *prefix;
    size_t next, total, window, inflight, peak, completed;
    bool blocked;                 /* a call found the batch full: more after DRAINED */
    size_t counter_of[BATCH];     /* the batch's calls' counters */
    uint8_t outcome[UV_COUNTERS]; /* INCRs: 1 done with 1, 2 done with another value, 3 failed */
    size_t twice;                 /* INCRs completed twice */
    size_t ok, closed_written, wrong; /* reads: right, CLOSED after written, anything else */
    size_t stale; /* reads: nil from the restarted replica (emptied by the kill) before its sync */
    uint16_t watch;           /* reads: the node watched (RG_NODE_NONE: none) */
    size_t watch_ok;          /* reads right from it after its READY */
    size_t at_kill, at_ready; /* completed when it was killed, when READY came */
    bool restarted;
} uv_load;

static void uvl_fill(uv_load *l);

static void uvc_event(rg_cc_uv *u, rg_cc_uv_event ev, void *ud) {
    fixture *f = ud;
    (void)u;
    f->uv_events[ev]++;
    if (ev == RG_CC_UV_CLOSED) f->uv_open = false;
    if (ev == RG_CC_UV_DRAINED && f->load && f->load->blocked) {
        f->load->blocked = false;
        uvl_fill(f->load);
    }
}

static bool batch_empty(fixture *f) {
    return rg_cc_size(&f->u.cc) == 0;
}

/* Opens the libuv client on f's cluster (seed: node 0's TLS port) over tls. */
static void uvc_start(fixture *f, const rg_tls_config *tls, bool replicas, rg_backoff reconnect) {
    f->load = NULL;
    const rg_cc_config cfg = {.cmds = &CMDS,
                              .calls = f->ucalls,
                              .ncalls = BATCH,
                              .arena = f->uarena,
                              .arena_cap = ARENA,
                              .alloc = counting_alloc,
                              .alloc_ud = f,
                              .read_from_replicas = replicas,
                              .wait_ms = 15000,
                              .tls = tls,
                              .reconnect = reconnect,
                              .on_event = on_node_event,
                              .event_ud = f};
    uvt_start(&f->u, &f->loop, &cfg, f->cluster.tls_port[0], uvc_event, f, f->uv_events);
    f->uv_open = true;
}

/* uvc_start, and the loop run until READY or FAILED. */
static void uvc_open(fixture *f, const rg_tls_config *tls, bool replicas, rg_backoff reconnect) {
    uvc_start(f, tls, replicas, reconnect);
    uvt_wait_told(&f->loop, f->uv_events);
}

static void uvc_close(fixture *f) {
    f->load = NULL;
    uvt_close(&f->u, &f->loop, f->uv_events);
}

static void uvl_done(void *ud, const rg_call_done *d) {
    uv_load *l = ud;
    fixture *f = l->f;
    const size_t c = l->counter_of[d->id - 1];
    if (l->reads) {
        const redis_get_result *r = d->result;
        char want[16];
        snprintf(want, sizeof want, "%zu", c % READS);
        const bool watched = rg_cc_get(&f->u.cc, d->id - 1)->node == l->watch;
        if (d->status == RG_OK && rg_view_eq(r->value, rg_cstr(want))) {
            l->ok++;
            const bool back = f->nevents > 0 &&
                              f->events[f->nevents - 1].ev.what == RG_RECONNECT_READY &&
                              f->events[f->nevents - 1].node == l->watch;
            l->watch_ok += back && watched;
        } else if (d->status == RG_CLOSED && d->written) {
            l->closed_written++;
        } else if (d->status == RG_OK && !r->value.ptr && watched && l->restarted) {
            l->stale++;
        } else if (l->wrong++ < 5) {
            printf("  GET uvrep:%zu: %s %.*s value %.*s (node %u)\n", c % READS,
                   rg_status_name(d->status), (int)d->error.len, d->error.ptr ? d->error.ptr : "",
                   (int)r->value.len, r->value.ptr ? r->value.ptr : "nil",
                   (unsigned)rg_cc_get(&f->u.cc, d->id - 1)->node);
        }
    } else {
        const redis_incr_result *r = d->result;
        l->twice += l->outcome[c] != 0;
        l->outcome[c] = d->status != RG_OK ? 3 : r->value == 1 ? 1 : 2;
        if (d->status != RG_OK && l->wrong++ < 5)
            printf("  INCR %s:%zu: %s %.*s\n", l->prefix, c, rg_status_name(d->status),
                   (int)d->error.len, d->error.ptr ? d->error.ptr : "");
    }
    l->inflight--;
    l->completed++;
    uvl_fill(l);
}

/* Makes calls until `window` are in flight (or the batch is full: DRAINED resumes). */
static void uvl_fill(uv_load *l) {
    fixture *f = l->f;
    char key[48];
    while (l->inflight < l->window && l->next < l->total && !l->blocked) {
        const size_t at = rg_cc_size(&f->u.cc);
        rg_conn *conn = rg_cc_conn(&f->u.cc);
        const int kl = l->reads ? snprintf(key, sizeof key, "uvrep:%zu", l->next % READS)
                                : snprintf(key, sizeof key, "%s:%zu", l->prefix, l->next);
        const rg_view k = {key, (size_t)kl};
        const uint64_t id = l->reads ? redis_get_call(conn, k, &f->uget[at], uvl_done, l)
                                     : redis_incr_call(conn, k, &f->incr[at], uvl_done, l);
        if (!id) {
            l->blocked = true;
            return;
        }
        assert_int_equal(id, at + 1);
        l->counter_of[id - 1] = l->next++;
        if (++l->inflight > l->peak) l->peak = l->inflight;
    }
}

static bool uvl_all_done(fixture *f) {
    return f->load->completed == f->load->next && f->load->next == f->load->total;
}

/* Runs l until its `total` calls completed. */
static void uvl_run(fixture *f, uv_load *l, double timeout_s) {
    f->load = l;
    uvl_fill(l);
    assert_true(run_until(f, uvl_all_done, timeout_s));
}

/* The cross-slot MGET, checked in its callback. */
typedef struct mget_check {
    redis_mget_result r;
    bool done, right;
} mget_check;

static mget_check *mget_now;

static void mget_done(void *ud, const rg_call_done *d) {
    mget_check *m = ud;
    const redis_mget_result *r = d->result;
    m->done = true;
    m->right = d->status == RG_OK && r->value.count == 4 && r->value.items[3].ptr == NULL;
    for (size_t i = 0; m->right && i < 3; i++)
        m->right = rg_view_eq(r->value.items[i], RG_LIT("1"));
    printf("MGET of 4 keys over 3 masters: %s, %zu values:", rg_status_name(d->status),
           d->status == RG_OK ? r->value.count : 0);
    for (size_t i = 0; d->status == RG_OK && i < r->value.count; i++)
        printf(" %.*s", r->value.items[i].ptr ? (int)r->value.items[i].len : 3,
               r->value.items[i].ptr ? r->value.items[i].ptr : "nil");
    printf("\n");
}

static bool mget_checked(fixture *f) {
    (void)f;
    return mget_now->done;
}

static void test_uv_pipelined(void **state) {
    fixture *f = *state;
    uvc_open(f, &f->mutual, false, (rg_backoff){0, 0, 0});
    assert_int_equal(f->uv_events[RG_CC_UV_READY], 1);
    assert_int_equal(f->uv_events[RG_CC_UV_FAILED], 0);
    const rg_cc *cc = &f->u.cc;
    assert_int_equal(rg_cluster_map_covered(&cc->map), RG_CLUSTER_SLOTS);
    size_t listed = 0, tls = 0;
    for (size_t i = 0; i < cc->map.nnodes; i++) {
        const rg_cluster_node *n = &cc->map.node[i];
        if (n->role == RG_NODE_GONE) continue;
        listed++;
        tls += is_tls_port(f, n->port);
    }
    printf("libuv map: %zu nodes, %zu on TLS ports\n", listed, tls);
    assert_int_equal(listed, TEST_CLUSTER_NODES);
    assert_int_equal(tls, listed);

    static uv_load l;
    l = (uv_load){.f = f, .prefix = "tlsuv", .total = UV_COUNTERS, .window = 1000};
    const double t0 = now_s();
    uvl_run(f, &l, 60);
    const double secs = now_s() - t0;
    size_t once = 0, other = 0, failed = 0;
    for (size_t c = 0; c < l.total; c++) {
        once += l.outcome[c] == 1;
        other += l.outcome[c] == 2;
        failed += l.outcome[c] == 3;
    }
    printf("libuv over mutual TLS: %zu INCRs in %.2f s (%.0f calls/s), at most %zu in flight: "
           "%zu done with 1, %zu with another value, %zu failed, %zu completed twice\n",
           l.completed, secs, (double)l.completed / secs, l.peak, once, other, failed, l.twice);
    assert_int_equal(l.peak, l.window);
    assert_int_equal(l.twice, 0);
    assert_int_equal(once, l.total);

    /* the fan-out: one counter of each master and a key that is not there, in one MGET */
    assert_true(run_until(f, batch_empty, 10)); /* (DRAINED: a new batch) */
    char kb[3][32];
    rg_view keys[4];
    uint16_t owner[3];
    size_t nk = 0;
    for (size_t c = 0; nk < 3 && c < l.total; c++) {
        const int kl = snprintf(kb[nk], sizeof kb[nk], "tlsuv:%zu", c);
        const uint16_t o = rg_cluster_map_owner(&cc->map, rg_slot_of_key(kb[nk], (size_t)kl));
        bool seen = false;
        for (size_t j = 0; j < nk; j++) seen |= owner[j] == o;
        if (seen) continue;
        owner[nk] = o;
        keys[nk] = (rg_view){kb[nk], (size_t)kl};
        nk++;
    }
    assert_int_equal(nk, 3);
    keys[3] = RG_LIT("tlsuv:none");
    static mget_check m;
    memset(&m, 0, sizeof m);
    mget_now = &m;
    assert_true(redis_mget_call(rg_cc_conn(&f->u.cc), keys, 4, &m.r, mget_done, &m) > 0);
    assert_true(run_until(f, mget_checked, 10));
    assert_true(m.right);
    printf("libuv stats: %llu connects, %llu moved, %llu lost connections, %llu refreshes\n",
           (unsigned long long)cc->stats.connects, (unsigned long long)cc->stats.moved,
           (unsigned long long)cc->stats.lost_connections, (unsigned long long)cc->stats.refreshes);
    assert_int_equal(cc->stats.lost_connections, 0);
    uvc_close(f);
    assert_int_equal(f->live, 0);

    /* read back by the blocking client: every counter exactly 1 on its master */
    rg_cc *b = client(f, false);
    const load back = {.prefix = "tlsuv", .total = UV_COUNTERS};
    assert_int_equal(not_once(b, f, &back), 0);
    client_free(b);
}

/* ---- refused -------------------------------------------------------------------------------- */

/* mallinfo2 counts the chunks in glibc's per-thread cache as in use: the heap is told exactly
 * only with that cache off (GLIBC_TUNABLES=glibc.malloc.tcache_count=0, as ctest runs this). */
static bool heap_exact;

/* The heap in use (glibc, heap_exact), or 0 where it cannot be told (LeakSanitizer checks). */
static long heap_in_use(void) {
#ifdef RG_TEST_MALLINFO
    const struct mallinfo2 mi = mallinfo2();
    return (long)(mi.uordblks + mi.hblkhd);
#else
    return 0;
#endif
}

typedef struct handle_count {
    const uv_handle_t *tick;
    int n;
} handle_count;

static void count_handle(uv_handle_t *h, void *arg) {
    handle_count *c = arg;
    c->n += h != c->tick;
}

/* Handles on f's loop beside its tick. */
static int handles_left(fixture *f) {
    handle_count c = {(const uv_handle_t *)&f->tick, 0};
    uv_walk(&f->loop, count_handle, &c);
    return c.n;
}

static bool refused_thrice(fixture *f) {
    return f->u.cc.stats.refresh_failures >= 3;
}

/* Closed, nothing is left on the loop, of the engine's buffers nor (LeakSanitizer) the heap. */
static void uvc_close_clean(fixture *f) {
    uvc_close(f);
    uv_run(&f->loop, UV_RUN_NOWAIT);
    assert_int_equal(handles_left(f), 0);
    assert_int_equal(f->live, 0);
#ifdef RG_TEST_LSAN
    assert_int_equal(__lsan_do_recoverable_leak_check(), 0);
#endif
}

/* The libuv client with tls: the first refresh fails (with status, unless RG_OK) naming cause,
 * and each one after it; closed, nothing is left. Returns the heap it left (heap_in_use). */
static long uvc_expect_refused(fixture *f, const rg_tls_config *tls, rg_status status,
                               const char *cause) {
    const long heap = heap_in_use();
    uvc_open(f, tls, false, (rg_backoff){0, 0, 0});
    assert_int_equal(f->uv_events[RG_CC_UV_FAILED], 1);
    assert_int_equal(f->uv_events[RG_CC_UV_READY], 0);
    rg_error e = rg_cc_error(&f->u.cc);
    printf("libuv refused: FAILED, %s: %s\n", rg_status_name(e.status), e.msg.ptr);
    assert_int_not_equal(e.status, RG_OK);
    if (status != RG_OK) assert_int_equal(e.status, status);
    assert_non_null(strstr(e.msg.ptr, "tls: "));
    assert_non_null(strstr(e.msg.ptr, cause));
    /* tried again every 100 ms: refused each time, never READY */
    assert_true(run_until(f, refused_thrice, 10));
    e = rg_cc_error(&f->u.cc);
    assert_non_null(strstr(e.msg.ptr, cause));
    assert_int_equal(f->uv_events[RG_CC_UV_READY], 0);
    assert_int_equal(f->uv_events[RG_CC_UV_FAILED], 1);
    const unsigned long long refusals = f->u.cc.stats.refresh_failures;
    uvc_close_clean(f);
    const long left = heap_in_use() - heap;
    printf("  %llu refreshes refused; closed, %ld heap bytes left\n", refusals, left);
    return left;
}

static bool refresh_link_failed(fixture *f) {
    return rg_cc_link_want(&f->u.cc, RG_CC_REFRESH_LINK) == RG_CC_CLOSE || uvt_told(f->uv_events);
}

/* The libuv client with tls closed before READY or FAILED: after `steps` turns of the loop (while
 * the first refresh's link connects or shakes hands), or, steps < 0, in the turn that link failed
 * (its rg_uv released its handles in that turn; the driver has not closed it yet). Returns the
 * heap it left; at[w] counts the closes made with the link in state w (rg_cc_want). */
static long uvc_close_early(fixture *f, const rg_tls_config *tls, int steps, int *at) {
    const long heap = heap_in_use();
    uvc_start(f, tls, false, (rg_backoff){0, 0, 0});
    if (steps < 0) {
        assert_true(run_until(f, refresh_link_failed, 10));
        assert_int_equal(rg_cc_link_want(&f->u.cc, RG_CC_REFRESH_LINK), RG_CC_CLOSE);
    }
    for (int i = 0; i < steps && !uvt_told(f->uv_events); i++) uv_run(&f->loop, UV_RUN_ONCE);
    at[rg_cc_link_want(&f->u.cc, RG_CC_REFRESH_LINK)]++;
    uvc_close_clean(f);
    return heap_in_use() - heap;
}

static void test_uv_refused(void **state) {
    fixture *f = *state;
    const rg_tls_config other = {.ca_file = f->other_ca, .cert_file = f->cert, .key_file = f->key};
    const rg_tls_config anonymous = {.ca_file = f->ca};
    /* Round 0 may leave OpenSSL's one-time state; rounds 1 and 2 must leave nothing. */
    long left = 0;
    int at[RG_CC_CLOSE + 1] = {0};
    for (int round = 0; round < 3; round++) {
        long l = uvc_expect_refused(f, &other, RG_REFUSED, "unknown CA");
        l += uvc_expect_refused(f, &anonymous, RG_REFUSED, "client certificate");
        /* closed early: right after the link failed, and at the steps of its connect */
        l += uvc_close_early(f, &other, -1, at);
        for (int steps = 0; steps < 6; steps++) {
            l += uvc_close_early(f, &other, steps, at);
            l += uvc_close_early(f, &f->mutual, steps, at);
        }
        if (round > 0) left += l;
    }
    printf("libuv closed early (the refresh link's state): %d idle, %d dialing, %d open, %d "
           "failed\n",
           at[RG_CC_IDLE], at[RG_CC_CONNECT] + at[RG_CC_DIALING], at[RG_CC_OPEN], at[RG_CC_CLOSE]);
    assert_true(at[RG_CC_DIALING] > 0);
    assert_true(at[RG_CC_CLOSE] >= 3);
#ifdef RG_TEST_LSAN
    (void)left;
    printf("libuv refused: the heap checked by LeakSanitizer after each close\n");
    return;
#endif
    if (!heap_exact) {
        printf("libuv refused: heap not measured (GLIBC_TUNABLES=glibc.malloc.tcache_count=0 "
               "tells it)\n");
        return;
    }
    /* (a few dozen bytes come and go with OpenSSL's per-thread error queue; a link's rg_uv is
     * kilobytes, its TLS state hundreds of them) */
    printf("libuv refused: rounds 1-2 (30 clients) left %ld heap bytes\n", left);
    assert_true(labs(left) < 1024);
}

/* ---- node reconnects ------------------------------------------------------------------------ */

static bool replica_back(fixture *f) {
    uv_load *l = f->load;
    if (!l->restarted && f->nevents >= 3) { /* DISCONNECTED, ATTEMPT 1, ATTEMPT 2 */
        l->at_ready = 0;
        assert_int_equal(test_cluster_restart(&f->cluster, cluster_index(f, &f->u.cc, l->watch)),
                         0);
        l->restarted = true;
    }
    const bool ready = f->nevents > 0 && f->events[f->nevents - 1].ev.what == RG_RECONNECT_READY;
    if (ready && !l->at_ready) l->at_ready = l->completed;
    return l->restarted && ready && l->watch_ok >= 100;
}

static void test_uv_replica_restarted(void **state) {
    fixture *f = *state;
    rg_cc *w = client(f, false); /* the keys to read, on the masters */
    rg_cc_begin(w);
    char key[32], val[32];
    for (int i = 0; i < READS; i++) {
        snprintf(key, sizeof key, "uvrep:%d", i);
        snprintf(val, sizeof val, "%d", i);
        ADD(w, f, "SET", key, val);
    }
    cc_run_ok(w);
    client_free(w);
    const rg_backoff policy = {10, 100, 0};
    uvc_open(f, &f->mutual, true, policy);
    assert_int_equal(f->uv_events[RG_CC_UV_READY], 1);
    static uv_load l;
    l = (uv_load){.f = f, .reads = true, .window = READS, .watch = RG_NODE_NONE};
    /* reads until every replica serves them, replication (over TLS) caught up */
    size_t replicas = 0;
    for (int round = 0; round < 50; round++) {
        l.ok = l.closed_written = l.wrong = 0;
        l.total += 1000;
        uvl_run(f, &l, 20);
        replicas = 0;
        for (size_t i = 0; i < f->u.cc.map.nnodes; i++)
            replicas += f->u.cc.node[i].open && f->u.cc.map.node[i].role == RG_NODE_REPLICA;
        if (l.ok == 1000 && replicas == 3) break;
        usleep(50 * 1000);
    }
    assert_int_equal(l.ok, 1000);
    assert_int_equal(replicas, 3);
    uint16_t r = RG_NODE_NONE;
    for (uint16_t i = 0; i < f->u.cc.map.nnodes && r == RG_NODE_NONE; i++)
        if (f->u.cc.node[i].open && f->u.cc.map.node[i].role == RG_NODE_REPLICA) r = i;
    const int victim = cluster_index(f, &f->u.cc, r);
    assert_true(victim >= 0);
    /* Killed under the reads; started again once the second attempt is announced. */
    l.ok = l.closed_written = l.wrong = l.stale = 0;
    l.watch = r;
    l.at_kill = l.completed;
    l.total = SIZE_MAX;
    f->nevents = 0;
    test_redis_kill(&f->cluster.node[victim]);
    uvl_fill(&l);
    assert_true(run_until(f, replica_back, 30));
    l.total = l.next; /* no more calls: the ones in flight complete */
    assert_true(run_until(f, uvl_all_done, 20));
    printf("replica %d restarted (libuv): %zu reads, %zu completed between the kill and READY, "
           "%zu right (%zu from it after READY), %zu nil from it before its resync, %zu closed "
           "after written, %zu wrong\n",
           f->cluster.node[victim].port, l.completed - l.at_kill, l.at_ready - l.at_kill, l.ok,
           l.watch_ok, l.stale, l.closed_written, l.wrong);
    rg_reconnect_event ev[EVENTS] = {0};
    const int n = events_of(f, r, ev, EVENTS);
    assert_int_equal(f->nevents, n); /* no other node's */
    assert_true(n >= 4);
    assert_int_equal(ev[0].what, RG_RECONNECT_DISCONNECTED);
    /* (EOF: "tls: connection closed without close_notify"; a reset when it died unread) */
    assert_true(ev[0].cause.status == RG_CLOSED || ev[0].cause.status == RG_IO);
    attempts_ok(ev, 1, n - 1, &policy);
    assert_int_equal(ev[n - 1].what, RG_RECONNECT_READY);
    assert_int_equal(ev[n - 1].attempt, (uint32_t)(n - 2));
    assert_true(f->u.cc.node[r].open);
    assert_int_equal(l.wrong, 0);
    assert_true(l.at_ready > l.at_kill); /* reads completed while it was down */
    assert_true(l.watch_ok >= 100);
    uvc_close(f);
    assert_int_equal(f->live, 0);
    assert_int_equal(test_cluster_wait_ok(&f->cluster, 15000), 0);
}

#endif

int main(void) {
#ifdef RG_TEST_MALLINFO
    const char *tunables = getenv("GLIBC_TUNABLES");
    heap_exact = tunables && strstr(tunables, "glibc.malloc.tcache_count=0");
    unsetenv("GLIBC_TUNABLES"); /* (read at start: not for the servers) */
#endif
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_map_on_tls_ports),
        cmocka_unit_test(test_pipelined),
        cmocka_unit_test(test_replica_reads),
        cmocka_unit_test(test_resharding),
        cmocka_unit_test(test_refused),
#ifdef RG_TEST_CLUSTER_UV
        cmocka_unit_test(test_uv_pipelined),
        cmocka_unit_test(test_uv_refused),
#endif
        cmocka_unit_test(test_replica_restarted),
#ifdef RG_TEST_CLUSTER_UV
        cmocka_unit_test(test_uv_replica_restarted),
#endif
        cmocka_unit_test(test_master_given_up),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
