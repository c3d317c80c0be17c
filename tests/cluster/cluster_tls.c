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
    *state = f;
    return 0;
}

static int group_teardown(void **state) {
    fixture *f = *state;
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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_map_on_tls_ports), cmocka_unit_test(test_pipelined),
        cmocka_unit_test(test_replica_reads),    cmocka_unit_test(test_resharding),
        cmocka_unit_test(test_refused),          cmocka_unit_test(test_replica_restarted),
        cmocka_unit_test(test_master_given_up),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
