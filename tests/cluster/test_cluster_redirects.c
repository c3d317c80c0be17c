/* The cluster client's redirect and retry logic (adapters/rg_cluster_client.h) against scripted
 * fake nodes: no redis-server, deterministic and fast.
 *
 * Each fake node is a listening loopback socket served by one thread of the test. It answers
 * CLUSTER SHARDS with an error (so the client falls back to CLUSTER SLOTS, which it answers from
 * the test's slot ranges), logs every other request it gets as "CMD arg ..." (per node, in order)
 * and answers it from the test's script: a reply, or closing the connection. A GET is answered
 * by default with the node's name ("n0"), so a result says which node served it. The tests check
 * exactly what each node was sent and what each call completed with: MOVED, ASK, ASK then MOVED,
 * TRYAGAIN n times then a value, TRYAGAIN past max_retries, CLUSTERDOWN (a refresh follows), a
 * connection lost mid-batch, a redirect to a node the map does not know, MGET split per slot and
 * put back in key order, calls added with rg_cc_step while earlier ones are in flight, and the
 * calls refused before sending (SCAN, SPECIAL merges, cross-slot without a policy), and the
 * order of a node's calls when its output buffer is full.
 */
#include "rg_cluster_client.h"
#include "rg_enc.h"

#include "redis_client.h"
#include "redis_keys.h"

#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

enum { NODES = 4, CONNS = 32, LOG = 4096, BATCH = 256, ARENA = 1 << 16, INBUF = 1 << 16 };

static const rg_cluster_commands CMDS = {redis_keys_table, REDIS_KEYS_CMD_COUNT, redis_keys_policy};

typedef struct fake fake;
/* The test's answer to a request on node `node`: the reply's length written to out (at most
 * 512 bytes), 0 for the default answer, -1 to close the connection without answering. */
typedef int (*script_fn)(fake *f, int node, size_t argc, const rg_view *argv, char *out);

typedef struct conn {
    int fd, node;
    size_t len;
    char buf[INBUF];
} conn;

struct fake {
    pthread_t thread;
    pthread_mutex_t mu;
    int stop[2]; /* a pipe: the thread ends when it becomes readable */
    int listen_fd[NODES];
    uint16_t port[NODES];
    /* CLUSTER SLOTS: slots [from[i], to[i]] served by node owner[i]. Node 3 is never listed. */
    int nranges, from[NODES], to[NODES], owner[NODES];
    conn conns[CONNS];
    char log[NODES][LOG]; /* requests, "|"-separated */
    int refreshes[NODES]; /* CLUSTER SLOTS answered */
    script_fn script;
    int count; /* for scripts: how often they fired */
};

/* ---- the fake nodes ------------------------------------------------------------------------- */

/* The length of one whole request at b[0..len) with its arguments in argv; 0 when incomplete. */
static size_t parse_request(const char *b, size_t len, size_t *argc, rg_view *argv, size_t cap) {
    const char *p = b, *end = b + len, *nl;
    if (len < 4 || *p != '*' || !(nl = memchr(p, '\n', len))) return 0;
    const size_t n = strtoul(p + 1, NULL, 10);
    p = nl + 1;
    for (size_t i = 0; i < n; i++) {
        if (p >= end || !(nl = memchr(p, '\n', (size_t)(end - p)))) return 0;
        const size_t l = strtoul(p + 1, NULL, 10);
        p = nl + 1;
        if ((size_t)(end - p) < l + 2) return 0;
        if (i < cap) argv[i] = (rg_view){p, l};
        p += l + 2;
    }
    *argc = n;
    return (size_t)(p - b);
}

static void log_request(fake *f, int node, size_t argc, const rg_view *argv) {
    char *l = f->log[node];
    size_t n = strlen(l);
    for (size_t i = 0; i < argc && n + argv[i].len + 2 < LOG; i++) {
        if (i == 0 && n) l[n++] = '|';
        if (i) l[n++] = ' ';
        memcpy(l + n, argv[i].ptr, argv[i].len);
        n += argv[i].len;
    }
    l[n] = '\0';
}

static int put(char *out, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(out, 4096, fmt, ap);
    va_end(ap);
    return n;
}

static int cluster_slots(const fake *f, char *out) {
    int n = put(out, "*%d\r\n", f->nranges);
    for (int i = 0; i < f->nranges; i++)
        n += put(out + n, "*3\r\n:%d\r\n:%d\r\n*3\r\n$9\r\n127.0.0.1\r\n:%u\r\n$3\r\nid%d\r\n",
                 f->from[i], f->to[i], f->port[f->owner[i]], f->owner[i]);
    return n;
}

/* The default answers: ASKING and SET +OK, GET the node's name, MGET "<key>@n<node>" per key. */
static int default_reply(int node, size_t argc, const rg_view *argv, char *out) {
    if (argv[0].len == 3 && memcmp(argv[0].ptr, "GET", 3) == 0)
        return put(out, "$2\r\nn%d\r\n", node);
    if (argv[0].len == 4 && memcmp(argv[0].ptr, "MGET", 4) == 0) {
        int n = put(out, "*%zu\r\n", argc - 1);
        for (size_t i = 1; i < argc; i++)
            n += put(out + n, "$%zu\r\n%.*s@n%d\r\n", argv[i].len + 3, (int)argv[i].len,
                     argv[i].ptr, node);
        return n;
    }
    return put(out, "+OK\r\n");
}

/* Answers every whole request in c's buffer; false when the connection is to be closed. */
static bool serve(fake *f, conn *c) {
    size_t at = 0, argc, used;
    rg_view argv[64];
    char out[4096];
    while ((used = parse_request(c->buf + at, c->len - at, &argc, argv, 64)) != 0) {
        at += used;
        int n;
        pthread_mutex_lock(&f->mu);
        if (argc == 2 && argv[0].len == 7 && memcmp(argv[0].ptr, "CLUSTER", 7) == 0) {
            const bool slots = argv[1].len == 5 && memcmp(argv[1].ptr, "SLOTS", 5) == 0;
            f->refreshes[c->node] += slots;
            n = slots ? cluster_slots(f, out) : put(out, "-ERR unknown subcommand\r\n");
        } else {
            log_request(f, c->node, argc, argv);
            n = f->script ? f->script(f, c->node, argc, argv, out) : 0;
            if (n == 0) n = default_reply(c->node, argc, argv, out);
        }
        pthread_mutex_unlock(&f->mu);
        if (n < 0 || send(c->fd, out, (size_t)n, MSG_NOSIGNAL) != n) return false;
    }
    memmove(c->buf, c->buf + at, c->len - at);
    c->len -= at;
    return true;
}

static void *fake_main(void *arg) {
    fake *f = arg;
    for (;;) {
        struct pollfd p[1 + NODES + CONNS];
        int who[1 + NODES + CONNS];
        nfds_t n = 0;
        p[n] = (struct pollfd){f->stop[0], POLLIN, 0};
        who[n++] = -1;
        for (int i = 0; i < NODES; i++) {
            p[n] = (struct pollfd){f->listen_fd[i], POLLIN, 0};
            who[n++] = 1000 + i;
        }
        for (int i = 0; i < CONNS; i++) {
            if (f->conns[i].fd < 0) continue;
            p[n] = (struct pollfd){f->conns[i].fd, POLLIN, 0};
            who[n++] = i;
        }
        if (poll(p, n, -1) < 0) continue;
        if (p[0].revents) return NULL;
        for (nfds_t j = 1; j < n; j++) {
            if (!p[j].revents) continue;
            if (who[j] >= 1000) {
                const int fd = accept(p[j].fd, NULL, NULL);
                int slot = 0;
                while (slot < CONNS && f->conns[slot].fd >= 0) slot++;
                if (fd < 0 || slot == CONNS) {
                    if (fd >= 0) close(fd);
                    continue;
                }
                f->conns[slot].fd = fd;
                f->conns[slot].node = who[j] - 1000;
                f->conns[slot].len = 0;
                continue;
            }
            conn *c = &f->conns[who[j]];
            const ssize_t r = recv(c->fd, c->buf + c->len, INBUF - c->len, 0);
            if (r > 0) c->len += (size_t)r;
            if (r <= 0 || !serve(f, c)) {
                close(c->fd);
                c->fd = -1;
            }
        }
    }
}

static fake *fake_start(void) {
    fake *f = calloc(1, sizeof *f);
    assert_non_null(f);
    pthread_mutex_init(&f->mu, NULL);
    assert_int_equal(pipe(f->stop), 0);
    for (int i = 0; i < CONNS; i++) f->conns[i].fd = -1;
    for (int i = 0; i < NODES; i++) {
        f->listen_fd[i] = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        socklen_t al = sizeof a;
        assert_int_equal(bind(f->listen_fd[i], (struct sockaddr *)&a, sizeof a), 0);
        assert_int_equal(listen(f->listen_fd[i], 16), 0);
        assert_int_equal(getsockname(f->listen_fd[i], (struct sockaddr *)&a, &al), 0);
        f->port[i] = ntohs(a.sin_port);
    }
    /* Node 0 serves every slot unless the test says otherwise. */
    f->nranges = 1;
    f->to[0] = RG_CLUSTER_SLOTS - 1;
    assert_int_equal(pthread_create(&f->thread, NULL, fake_main, f), 0);
    return f;
}

static void fake_stop(fake *f) {
    assert_int_equal(write(f->stop[1], "x", 1), 1);
    pthread_join(f->thread, NULL);
    for (int i = 0; i < CONNS; i++)
        if (f->conns[i].fd >= 0) close(f->conns[i].fd);
    for (int i = 0; i < NODES; i++) close(f->listen_fd[i]);
    close(f->stop[0]);
    close(f->stop[1]);
    pthread_mutex_destroy(&f->mu);
    free(f);
}

/* What node i was sent since the last call (the log is cleared). */
static void expect_log(fake *f, int node, const char *want) {
    pthread_mutex_lock(&f->mu);
    char got[LOG];
    memcpy(got, f->log[node], LOG);
    f->log[node][0] = '\0';
    pthread_mutex_unlock(&f->mu);
    if (strcmp(got, want) != 0)
        fprintf(stderr, "node %d: got \"%s\", want \"%s\"\n", node, got, want);
    assert_string_equal(got, want);
}

static void set_script(fake *f, script_fn fn) {
    pthread_mutex_lock(&f->mu);
    f->script = fn;
    f->count = 0;
    pthread_mutex_unlock(&f->mu);
}

/* ---- the client ----------------------------------------------------------------------------- */

typedef struct fixture {
    fake *f;
    rg_cc cc;
    rg_cc_call calls[BATCH];
    rg_raw_result raw[BATCH];
    char arena[ARENA];
} fixture;

static int setup_cfg(void **state, size_t out_cap, size_t node_window, unsigned max_retries) {
    fixture *x = calloc(1, sizeof *x);
    if (!x) return -1;
    x->f = fake_start();
    const rg_cc_config cfg = {.cmds = &CMDS,
                              .calls = x->calls,
                              .ncalls = BATCH,
                              .arena = x->arena,
                              .arena_cap = ARENA,
                              .node_in_cap = 1 << 16,
                              .node_out_cap = out_cap,
                              .protocol = 2,
                              .io_ms = 1000,
                              .wait_ms = 1000,
                              .max_retries = max_retries,
                              .node_window = node_window};
    if (rg_cc_init(&x->cc, &cfg, "127.0.0.1", x->f->port[0]) != RG_OK) {
        fprintf(stderr, "rg_cc_init: %.*s\n", (int)rg_cc_error(&x->cc).msg.len,
                rg_cc_error(&x->cc).msg.ptr);
        return -1;
    }
    *state = x;
    return 0;
}

static int setup_out(void **state, size_t out_cap) {
    return setup_cfg(state, out_cap, 0, 5);
}

static int setup(void **state) {
    return setup_out(state, 1 << 16);
}

/* A window of 2 calls per shard, and retries for about 400 ms. */
static int setup_window(void **state) {
    return setup_cfg(state, 1 << 16, 2, 8);
}

/* A node output buffer of 256 bytes: a round can queue only a few calls. */
static int setup_small(void **state) {
    return setup_out(state, 256);
}

static int teardown(void **state) {
    fixture *x = *state;
    rg_cc_close(&x->cc);
    fake_stop(x->f);
    free(x);
    return 0;
}

static size_t add(fixture *x, size_t argc, const char *const *args) {
    rg_view v[16];
    for (size_t i = 0; i < argc; i++) v[i] = (rg_view){args[i], strlen(args[i])};
    size_t i = 0;
    assert_int_equal(rg_cc_add_argv(&x->cc, argc, v, NULL, &x->raw[rg_cc_size(&x->cc)], &i), RG_OK);
    return i;
}
#define ADD(x, ...)                                                           \
    add(x, sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *), \
        (const char *const[]){__VA_ARGS__})

/* Call i ended with status and (for OK) exactly the reply bytes want, or an error starting so. */
static void expect_call(fixture *x, size_t i, rg_status status, const char *want) {
    const rg_cc_call *k = rg_cc_get(&x->cc, i);
    assert_true(k->complete);
    if (k->status != status)
        fprintf(stderr, "call %zu: status %d (%.*s)\n", i, k->status, (int)k->error.len,
                k->error.ptr);
    assert_int_equal(k->status, status);
    if (status == RG_OK) {
        assert_int_equal(x->raw[i].value.len, strlen(want));
        assert_memory_equal(x->raw[i].value.ptr, want, strlen(want));
    } else {
        assert_true(k->error.len >= strlen(want));
        assert_memory_equal(k->error.ptr, want, strlen(want));
    }
}

static int slot_of(const char *key) {
    return rg_slot_of_key(key, strlen(key));
}

/* ---- the scripts ---------------------------------------------------------------------------- */

static bool is(const rg_view *argv, const char *cmd, const char *key) {
    return argv[0].len == strlen(cmd) && memcmp(argv[0].ptr, cmd, argv[0].len) == 0 &&
           argv[1].len == strlen(key) && memcmp(argv[1].ptr, key, argv[1].len) == 0;
}

/* GET k on node 0: MOVED to node 1. */
static int moved_script(fake *f, int node, size_t argc, const rg_view *argv, char *out) {
    (void)argc;
    if (node != 0 || !is(argv, "GET", "k")) return 0;
    return put(out, "-MOVED %d 127.0.0.1:%u\r\n", slot_of("k"), f->port[1]);
}

/* The first GET k on node 0: ASK node 1. */
static int ask_script(fake *f, int node, size_t argc, const rg_view *argv, char *out) {
    (void)argc;
    if (node != 0 || !is(argv, "GET", "k") || f->count++) return 0;
    return put(out, "-ASK %d 127.0.0.1:%u\r\n", slot_of("k"), f->port[1]);
}

/* GET k: node 0 says ASK node 1, node 1 says MOVED node 2. */
static int ask_moved_script(fake *f, int node, size_t argc, const rg_view *argv, char *out) {
    (void)argc;
    if (!is(argv, "GET", "k") || node > 1) return 0;
    return put(out, "-%s %d 127.0.0.1:%u\r\n", node ? "MOVED" : "ASK", slot_of("k"),
               f->port[node + 1]);
}

/* GET k: TRYAGAIN three times, then the default. */
static int tryagain_script(fake *f, int node, size_t argc, const rg_view *argv, char *out) {
    (void)argc, (void)node;
    if (!is(argv, "GET", "k") || f->count >= 3) return 0;
    f->count++;
    return put(out, "-TRYAGAIN Multiple keys request during rehashing of slot\r\n");
}

/* GET k: TRYAGAIN, always. */
static int tryagain_forever(fake *f, int node, size_t argc, const rg_view *argv, char *out) {
    (void)argc, (void)node, (void)f;
    if (!is(argv, "GET", "k")) return 0;
    return put(out, "-TRYAGAIN Multiple keys request during rehashing of slot\r\n");
}

/* GET k: CLUSTERDOWN once. */
static int clusterdown_script(fake *f, int node, size_t argc, const rg_view *argv, char *out) {
    (void)argc, (void)node;
    if (!is(argv, "GET", "k") || f->count++) return 0;
    return put(out, "-CLUSTERDOWN The cluster is down\r\n");
}

/* The first GET b or SET b on node 0: the connection closes without an answer. */
static int close_script(fake *f, int node, size_t argc, const rg_view *argv, char *out) {
    (void)argc, (void)out;
    if (node != 0 || !(is(argv, "GET", "b") || is(argv, "SET", "b")) || f->count++) return 0;
    return -1;
}

/* GET k on node 0: MOVED to node 3, which CLUSTER SLOTS does not list. */
static int unknown_node_script(fake *f, int node, size_t argc, const rg_view *argv, char *out) {
    (void)argc;
    if (node != 0 || !is(argv, "GET", "k")) return 0;
    return put(out, "-MOVED %d 127.0.0.1:%u\r\n", slot_of("k"), f->port[3]);
}

/* ---- the tests ------------------------------------------------------------------------------ */

static void run(fixture *x, size_t failed) {
    const size_t got = rg_cc_run(&x->cc);
    for (size_t i = 0; got != failed && i < rg_cc_size(&x->cc); i++) {
        const rg_cc_call *k = rg_cc_get(&x->cc, i);
        if (k->status != RG_OK)
            fprintf(stderr, "call %zu: %s %.*s\n", i, rg_status_name(k->status), (int)k->error.len,
                    k->error.ptr);
    }
    assert_int_equal(got, failed);
}

static void test_moved(void **state) {
    fixture *x = *state;
    set_script(x->f, moved_script);
    rg_cc_begin(&x->cc);
    const size_t k = ADD(x, "GET", "k");
    run(x, 0);
    expect_call(x, k, RG_OK, "$2\r\nn1\r\n");
    assert_int_equal(rg_cc_get(&x->cc, k)->redirects, 1);
    assert_int_equal(rg_cc_get(&x->cc, k)->redirect, RG_REDIRECT_MOVED);
    expect_log(x->f, 0, "GET k");
    expect_log(x->f, 1, "GET k");
    /* The map is patched: the next GET k goes to node 1 at once, other keys still to node 0. */
    assert_int_equal(x->cc.map.node[rg_cluster_map_owner(&x->cc.map, slot_of("k"))].port,
                     x->f->port[1]);
    rg_cc_begin(&x->cc);
    ADD(x, "GET", "k");
    ADD(x, "GET", "other");
    run(x, 0);
    expect_log(x->f, 0, "GET other");
    expect_log(x->f, 1, "GET k");
    assert_int_equal(x->cc.stats.moved, 1);
}

static void test_ask(void **state) {
    fixture *x = *state;
    set_script(x->f, ask_script);
    rg_cc_begin(&x->cc);
    const size_t k = ADD(x, "GET", "k");
    run(x, 0);
    expect_call(x, k, RG_OK, "$2\r\nn1\r\n");
    assert_int_equal(rg_cc_get(&x->cc, k)->redirect, RG_REDIRECT_ASK);
    expect_log(x->f, 0, "GET k");
    expect_log(x->f, 1, "ASKING|GET k");
    /* ASK leaves the map alone: the next GET k goes to node 0 again. */
    rg_cc_begin(&x->cc);
    ADD(x, "GET", "k");
    run(x, 0);
    expect_call(x, 0, RG_OK, "$2\r\nn0\r\n");
    expect_log(x->f, 0, "GET k");
    expect_log(x->f, 1, "");
}

static void test_ask_then_moved(void **state) {
    fixture *x = *state;
    set_script(x->f, ask_moved_script);
    rg_cc_begin(&x->cc);
    const size_t k = ADD(x, "GET", "k");
    run(x, 0);
    expect_call(x, k, RG_OK, "$2\r\nn2\r\n");
    assert_int_equal(rg_cc_get(&x->cc, k)->redirects, 2);
    expect_log(x->f, 0, "GET k");
    expect_log(x->f, 1, "ASKING|GET k");
    expect_log(x->f, 2, "GET k"); /* no ASKING: a MOVED ends the ASK */
    assert_int_equal(x->cc.map.node[rg_cluster_map_owner(&x->cc.map, slot_of("k"))].port,
                     x->f->port[2]);
}

static void test_tryagain(void **state) {
    fixture *x = *state;
    set_script(x->f, tryagain_script);
    rg_cc_begin(&x->cc);
    const size_t before = ADD(x, "SET", "a", "1");
    const size_t k = ADD(x, "GET", "k");
    const size_t after = ADD(x, "SET", "b", "2");
    run(x, 0);
    expect_call(x, k, RG_OK, "$2\r\nn0\r\n");
    expect_call(x, before, RG_OK, "+OK\r\n");
    expect_call(x, after, RG_OK, "+OK\r\n");
    assert_int_equal(rg_cc_get(&x->cc, k)->retries, 3);
    assert_int_equal(rg_cc_get(&x->cc, k)->redirect, RG_REDIRECT_TRYAGAIN);
    /* The others do not wait for it; it goes again after 2, 4 and 8 ms. */
    expect_log(x->f, 0, "SET a 1|GET k|SET b 2|GET k|GET k|GET k");

    /* Past max_retries (5): the call ends with the server's error, after 6 attempts. */
    set_script(x->f, tryagain_forever);
    rg_cc_begin(&x->cc);
    ADD(x, "GET", "k");
    run(x, 1);
    expect_call(x, 0, RG_SERVER_ERROR, "TRYAGAIN Multiple keys");
    expect_log(x->f, 0, "GET k|GET k|GET k|GET k|GET k|GET k");
}

static void test_clusterdown(void **state) {
    fixture *x = *state;
    set_script(x->f, clusterdown_script);
    const uint64_t refreshes = x->cc.stats.refreshes;
    const int answered = x->f->refreshes[0];
    rg_cc_begin(&x->cc);
    ADD(x, "GET", "k");
    run(x, 0);
    expect_call(x, 0, RG_OK, "$2\r\nn0\r\n");
    assert_int_equal(rg_cc_get(&x->cc, 0)->redirect, RG_REDIRECT_CLUSTERDOWN);
    expect_log(x->f, 0, "GET k|GET k");
    /* CLUSTERDOWN reads the map again (CLUSTER SHARDS refused, then CLUSTER SLOTS). */
    assert_int_equal(x->cc.stats.refreshes, refreshes + 1);
    pthread_mutex_lock(&x->f->mu);
    assert_int_equal(x->f->refreshes[0], answered + 1);
    pthread_mutex_unlock(&x->f->mu);
}

static void test_connection_lost(void **state) {
    fixture *x = *state;
    set_script(x->f, close_script);
    rg_cc_begin(&x->cc);
    ADD(x, "SET", "a", "1");
    ADD(x, "SET", "b", "1");
    ADD(x, "SET", "c", "1");
    run(x, 2);
    /* a was answered; b and c were written before the connection went: writes that may have
     * run, so they are reported, not sent again. */
    expect_call(x, 0, RG_OK, "+OK\r\n");
    expect_call(x, 1, RG_CLOSED, "connection closed by the server");
    expect_call(x, 2, RG_CLOSED, "connection closed by the server");
    assert_true(rg_cc_get(&x->cc, 1)->written);
    assert_true(rg_cc_get(&x->cc, 2)->written);
    expect_log(x->f, 0, "SET a 1|SET b 1"); /* c was in the same read: never looked at */
    assert_int_equal(x->cc.stats.lost_connections, 1);
    assert_int_equal(x->cc.stats.resent_reads, 0);
    /* Reads written before the loss are sent again (running them twice changes nothing): the
     * next batch connects again, and b and c go once more. */
    set_script(x->f, close_script);
    rg_cc_begin(&x->cc);
    ADD(x, "GET", "a");
    ADD(x, "GET", "b");
    ADD(x, "GET", "c");
    run(x, 0);
    for (size_t i = 0; i < 3; i++) expect_call(x, i, RG_OK, "$2\r\nn0\r\n");
    expect_log(x->f, 0, "GET a|GET b|GET b|GET c");
    assert_int_equal(x->cc.stats.lost_connections, 2);
    assert_int_equal(x->cc.stats.resent_reads, 2);
}

static void test_unknown_node(void **state) {
    fixture *x = *state;
    set_script(x->f, unknown_node_script);
    const size_t nodes = x->cc.map.nnodes;
    rg_cc_begin(&x->cc);
    ADD(x, "GET", "k");
    run(x, 0);
    expect_call(x, 0, RG_OK, "$2\r\nn3\r\n");
    expect_log(x->f, 0, "GET k");
    expect_log(x->f, 3, "GET k");
    assert_int_equal(x->cc.map.nnodes, nodes + 1); /* added by the MOVED */
    assert_int_equal(x->cc.map.node[rg_cluster_map_owner(&x->cc.map, slot_of("k"))].port,
                     x->f->port[3]);
}

/* Slots 0..8191 on node 0, the rest on node 1; the client reads the map again. */
static void two_nodes(fixture *x) {
    pthread_mutex_lock(&x->f->mu);
    x->f->nranges = 2;
    x->f->to[0] = 8191;
    x->f->from[1] = 8192;
    x->f->to[1] = RG_CLUSTER_SLOTS - 1;
    x->f->owner[1] = 1;
    pthread_mutex_unlock(&x->f->mu);
    assert_int_equal(rg_cc_refresh(&x->cc), RG_OK);
}

/* MGET split per slot over two nodes, the values put back in key order. */
static void test_mget(void **state) {
    fixture *x = *state;
    two_nodes(x);
    /* Keys on both nodes, one slot three times (a hashtag and a repeated key). */
    const char *keys[] = {"foo", "bar", "{foo}2", "baz", "qux", "foo"};
    const int node_of[] = {slot_of("foo") > 8191, slot_of("bar") > 8191, slot_of("foo") > 8191,
                           slot_of("baz") > 8191, slot_of("qux") > 8191, slot_of("foo") > 8191};
    rg_cc_begin(&x->cc);
    const size_t m = ADD(x, "MGET", keys[0], keys[1], keys[2], keys[3], keys[4], keys[5]);
    run(x, 0);
    char want[512];
    int n = put(want, "*6\r\n");
    for (int i = 0; i < 6; i++)
        n += put(want + n, "$%zu\r\n%s@n%d\r\n", strlen(keys[i]) + 3, keys[i], node_of[i]);
    expect_call(x, m, RG_OK, want);
    /* One part per slot, in the order the slots first appear, each with its keys in order. */
    char log[2][256] = {"", ""};
    const int slots[] = {slot_of("foo"), slot_of("bar"), slot_of("baz"), slot_of("qux")};
    for (int s = 0; s < 4; s++) {
        char *l = log[slots[s] > 8191];
        strcat(l, *l ? "|MGET" : "MGET");
        for (int i = 0; i < 6; i++)
            if (slot_of(keys[i]) == slots[s]) strcat(strcat(l, " "), keys[i]);
    }
    expect_log(x->f, 0, log[0]);
    expect_log(x->f, 1, log[1]);
}

/* Calls added between rg_cc_step rounds while earlier ones are in flight: each node gets its
 * calls in the order they were added, every call completes once. */
static void test_step(void **state) {
    fixture *x = *state;
    two_nodes(x);
    rg_cc_begin(&x->cc);
    char keys[200][16], want[2][LOG] = {"", ""};
    size_t pending = 0;
    for (int i = 0; i < 200; i++) {
        snprintf(keys[i], sizeof keys[i], "s:%d", i);
        ADD(x, "GET", keys[i]);
        pending++;
        char *w = want[slot_of(keys[i]) > 8191];
        strcat(strcat(strcat(w, *w ? "|" : ""), "GET "), keys[i]);
        if (i % 7 == 6) pending = rg_cc_step(&x->cc, 0);
    }
    assert_true(pending > 0);
    while ((pending = rg_cc_step(&x->cc, 100)) > 0) {
    }
    for (int i = 0; i < 200; i++)
        expect_call(x, (size_t)i, RG_OK, slot_of(keys[i]) > 8191 ? "$2\r\nn1\r\n" : "$2\r\nn0\r\n");
    expect_log(x->f, 0, want[0]);
    expect_log(x->f, 1, want[1]);
}

/* A key served by the node that does not serve k (two_nodes). */
static void other_key(char *key, size_t cap, int i) {
    const bool k_high = slot_of("k") > 8191;
    for (int j = 0;; j++) {
        snprintf(key, cap, "o:%d:%d", i, j);
        if ((slot_of(key) > 8191) != k_high) return;
    }
}

/* Steps the batch until `pending` of its calls are left, then rolls it; false when that never
 * came (about 400 ms). */
static bool roll_at(fixture *x, size_t pending) {
    for (int t = 0; t < 400; t++) {
        rg_cc_step(&x->cc, t ? 1 : 0);
        if (rg_cc_pending(&x->cc) == pending && rg_cc_roll(&x->cc)) return true;
    }
    return false;
}

/* The window per shard and the roll: GET k meets TRYAGAIN over and over, so its calls wait for
 * their shard; a third call for it is refused at once (nothing added) while calls for the other
 * shard go on; the batch rolls past them once the others completed, carrying the waiting calls
 * with their ids, and ids go on increasing. */
static void test_window_roll(void **state) {
    fixture *x = *state;
    two_nodes(x);
    set_script(x->f, tryagain_forever);
    rg_cc_begin(&x->cc);
    const size_t k0 = ADD(x, "GET", "k"), k1 = ADD(x, "GET", "k");
    const uint64_t id0 = rg_cc_get(&x->cc, k0)->id, id1 = rg_cc_get(&x->cc, k1)->id;
    const rg_view get_k[] = {RG_LIT("GET"), RG_LIT("k")};
    assert_int_equal(rg_cc_add_argv(&x->cc, 2, get_k, NULL, &x->raw[2], NULL), RG_FULL);
    assert_true(rg_cc_window_full(&x->cc));
    assert_int_equal(rg_cc_size(&x->cc), 2);
    char key[32];
    for (int i = 0; i < 2; i++) { /* (the other shard's window: 2 too) */
        other_key(key, sizeof key, i);
        ADD(x, "GET", key);
    }
    assert_false(rg_cc_window_full(&x->cc));
    assert_false(rg_cc_roll(&x->cc)); /* none complete: nothing to free */
    assert_true(roll_at(x, 2));
    assert_int_equal(x->cc.stats.rolls, 1);
    assert_int_equal(rg_cc_size(&x->cc), 2);
    assert_int_equal(rg_cc_pending(&x->cc), 2);
    assert_int_equal(x->cc.stats.carried, 2);
    assert_int_equal(x->cc.stats.window_full, 1);
    assert_true(rg_cc_find(&x->cc, id0) == rg_cc_get(&x->cc, 0));
    assert_true(rg_cc_find(&x->cc, id1) == rg_cc_get(&x->cc, 1));
    /* the window is still full; the other shard takes calls, with ids above every earlier one */
    assert_int_equal(rg_cc_add_argv(&x->cc, 2, get_k, NULL, &x->raw[2], NULL), RG_FULL);
    other_key(key, sizeof key, 9);
    const size_t o = ADD(x, "GET", key);
    const uint64_t id = rg_cc_get(&x->cc, o)->id;
    assert_true(id > id1 + 2);
    assert_true(rg_cc_find(&x->cc, id) == rg_cc_get(&x->cc, o));
    assert_null(rg_cc_find(&x->cc, id0 + 2)); /* a call of the batch before */
    run(x, 2);
    expect_call(x, 0, RG_SERVER_ERROR, "TRYAGAIN");
    expect_call(x, 1, RG_SERVER_ERROR, "TRYAGAIN");
    expect_call(x, o, RG_OK, slot_of(key) > 8191 ? "$2\r\nn1\r\n" : "$2\r\nn0\r\n");
    /* their outcomes gave the window back */
    assert_int_equal(rg_cc_add_argv(&x->cc, 2, get_k, NULL, &x->raw[3], NULL), RG_OK);
}

/* MGET on k's node: TRYAGAIN the first 4 times. */
static int mget_tryagain(fake *f, int node, size_t argc, const rg_view *argv, char *out) {
    (void)argc;
    const int k_node = slot_of("k") > 8191;
    if (node != k_node || argv[0].len != 4 || memcmp(argv[0].ptr, "MGET", 4) != 0 || f->count >= 4)
        return 0;
    f->count++;
    return put(out, "-TRYAGAIN Multiple keys request during rehashing of slot\r\n");
}

/* How many times node's log (taken: it starts again empty) has `what`. */
static int log_count(fake *f, int node, const char *what) {
    pthread_mutex_lock(&f->mu);
    int n = 0;
    for (const char *at = f->log[node]; (at = strstr(at, what)) != NULL; at++) n++;
    f->log[node][0] = '\0';
    pthread_mutex_unlock(&f->mu);
    return n;
}

/* The batch rolls past a fan-out that waits for one shard: a cross-slot MGET whose part on k's
 * node meets TRYAGAIN is carried, its other part (complete, its reply let go by the roll) is
 * sent again, and the merged reply has both values in key order. */
static void test_roll_fan_out(void **state) {
    fixture *x = *state;
    two_nodes(x);
    log_count(x->f, 0, "MGET"), log_count(x->f, 1, "MGET"); /* (empties the logs) */
    set_script(x->f, mget_tryagain);
    char other[32], get[32];
    other_key(other, sizeof other, 0);
    other_key(get, sizeof get, 1);
    const int k_node = slot_of("k") > 8191;
    rg_cc_begin(&x->cc);
    ADD(x, "MGET", "k", other);
    ADD(x, "GET", get);
    assert_true(roll_at(x, 1));
    assert_int_equal(rg_cc_size(&x->cc), 1);
    run(x, 0);
    char want[128];
    snprintf(want, sizeof want, "*2\r\n$4\r\nk@n%d\r\n$%zu\r\n%s@n%d\r\n", k_node,
             strlen(other) + 3, other, 1 - k_node);
    expect_call(x, 0, RG_OK, want);
    assert_int_equal(log_count(x->f, 1 - k_node, "MGET"), 2); /* before the roll and after */
    assert_true(log_count(x->f, k_node, "MGET") >= 5);        /* 4 TRYAGAIN, then the value */
}

/* DEL: on k's node TRYAGAIN the first 4 times, then 1 per key; on the other node 1 per key. */
static int del_tryagain(fake *f, int node, size_t argc, const rg_view *argv, char *out) {
    if (argv[0].len != 3 || memcmp(argv[0].ptr, "DEL", 3) != 0) return 0;
    if (node == (slot_of("k") > 8191) && f->count < 4) {
        f->count++;
        return put(out, "-TRYAGAIN Multiple keys request during rehashing of slot\r\n");
    }
    return put(out, ":%zu\r\n", argc - 1);
}

/* The batch rolls past a fan-out that writes and waits for one shard: a cross-slot DEL whose part
 * on k's node meets TRYAGAIN is carried; its other part, complete, keeps its reply (it must not
 * run twice): it is sent once, and the sum counts both parts. */
static void test_roll_write_fan_out(void **state) {
    fixture *x = *state;
    two_nodes(x);
    log_count(x->f, 0, "DEL"), log_count(x->f, 1, "DEL"); /* (empties the logs) */
    set_script(x->f, del_tryagain);
    char other[32], get[32];
    other_key(other, sizeof other, 0);
    other_key(get, sizeof get, 1);
    const int k_node = slot_of("k") > 8191;
    rg_cc_begin(&x->cc);
    ADD(x, "DEL", "k", other);
    ADD(x, "GET", get);
    assert_true(roll_at(x, 1));
    assert_int_equal(rg_cc_size(&x->cc), 1);
    run(x, 0);
    expect_call(x, 0, RG_OK, ":2\r\n");
    assert_int_equal(log_count(x->f, 1 - k_node, "DEL"), 1); /* its part ran once */
    assert_true(log_count(x->f, k_node, "DEL") >= 5);        /* 4 TRYAGAIN, then the count */
}

/* GET k: MOVED between nodes 0 and 1, forever. */
static int moved_forever(fake *f, int node, size_t argc, const rg_view *argv, char *out) {
    (void)argc;
    if (node > 1 || !is(argv, "GET", "k")) return 0;
    return put(out, "-MOVED %d 127.0.0.1:%u\r\n", slot_of("k"), f->port[1 - node]);
}

/* What the callbacks of relayed calls got. */
typedef struct seen {
    int calls;
    rg_call_done last;
    char error[128];
} seen;

static void on_call(void *ud, const rg_call_done *d) {
    seen *s = ud;
    s->calls++;
    s->last = *d;
    snprintf(s->error, sizeof s->error, "%.*s", (int)d->error.len,
             d->error.ptr ? d->error.ptr : "");
}

/* A window of 8 calls per shard. */
static int setup_window8(void **state) {
    return setup_cfg(state, 1 << 16, 8, 8);
}

/* The batch rolls while calls are on the wire: the nodes' connections follow the calls that
 * move (their callbacks, and the raw replies kept in the calls themselves: a fan-out's parts),
 * and every call completes once, with its own reply, after the roll. */
static void test_roll_in_flight(void **state) {
    fixture *x = *state;
    two_nodes(x);
    const int k_node = slot_of("k") > 8191;
    char other[32];
    other_key(other, sizeof other, 0);
    const rg_view ov = {other, strlen(other)};
    rg_cc_begin(&x->cc);
    ADD(x, "GET", "k");
    ADD(x, "GET", other); /* (both nodes connected, two calls complete: room to free) */
    run(x, 0);
    enum { N = 4 };
    rg_raw_result raw[N] = {0};
    uint64_t raw_id[N];
    for (int i = 0; i < N; i++) {
        const rg_view get[] = {RG_LIT("GET"), i % 2 ? ov : RG_LIT("k")};
        size_t at;
        assert_int_equal(rg_cc_add_argv(&x->cc, 2, get, NULL, &raw[i], &at), RG_OK);
        raw_id[i] = rg_cc_get(&x->cc, at)->id;
    }
    seen s[N + 1] = {0};
    redis_get_result g[N] = {0};
    rg_conn *c = rg_cc_conn(&x->cc);
    uint64_t gid[N];
    for (int i = 0; i < N; i++)
        assert_int_not_equal(
            gid[i] = redis_get_call(c, i % 2 ? RG_LIT("k") : ov, &g[i], on_call, &s[i]), 0);
    const rg_view keys[] = {ov, RG_LIT("k")};
    redis_mget_result m = {0};
    assert_int_not_equal(redis_mget_call(c, keys, 2, &m, on_call, &s[N]), 0);
    rg_cc_tick(&x->cc, x->cc.now_ns); /* queued on the nodes' connections, none answered yet */
    assert_int_equal(x->cc.flying, 2 * N + 2);
    assert_true(rg_cc_roll(&x->cc));
    assert_int_equal(x->cc.stats.carried, 2 * N + 1);
    assert_int_equal(x->cc.stats.carried_flying, 2 * N + 2); /* (the MGET's two parts) */
    assert_int_equal(rg_cc_size(&x->cc), 2 * N + 1);
    run(x, 0);
    char want[64];
    for (int i = 0; i < N; i++) {
        const int node = i % 2 ? 1 - k_node : k_node;
        const rg_cc_call *k = rg_cc_find(&x->cc, raw_id[i]);
        assert_non_null(k);
        assert_int_equal(k->status, RG_OK);
        snprintf(want, sizeof want, "$2\r\nn%d\r\n", node);
        assert_int_equal(raw[i].value.len, strlen(want));
        assert_memory_equal(raw[i].value.ptr, want, strlen(want));
        assert_int_equal(s[i].calls, 1);
        assert_int_equal(s[i].last.status, RG_OK);
        /* the call's own completion, not its node's */
        assert_int_equal(s[i].last.id, gid[i]);
        assert_ptr_equal(s[i].last.result, &g[i]);
        assert_true(s[i].last.written);
        assert_int_equal(s[i].last.error.len, 0);
        snprintf(want, sizeof want, "n%d", i % 2 ? k_node : 1 - k_node);
        assert_int_equal(g[i].value.len, 2);
        assert_memory_equal(g[i].value.ptr, want, 2);
    }
    assert_int_equal(s[N].calls, 1);
    assert_int_equal(s[N].last.status, RG_OK);
    assert_int_equal(m.value.count, 2);
    snprintf(want, sizeof want, "%s@n%d", other, 1 - k_node);
    assert_int_equal(m.value.items[0].len, strlen(want));
    assert_memory_equal(m.value.items[0].ptr, want, strlen(want));
    snprintf(want, sizeof want, "k@n%d", k_node);
    assert_int_equal(m.value.items[1].len, strlen(want));
    assert_memory_equal(m.value.items[1].ptr, want, strlen(want));
}

/* More MOVED than max_redirects: RG_REDIRECT with the last MOVED as error (added as bytes, and
 * through a generated call, whose callback says the same). */
static void test_too_many_redirects(void **state) {
    fixture *x = *state;
    set_script(x->f, moved_forever);
    rg_cc_begin(&x->cc);
    const size_t k = ADD(x, "GET", "k");
    seen s = {0};
    redis_get_result r = {0};
    const uint64_t id = redis_get_call(rg_cc_conn(&x->cc), RG_LIT("k"), &r, on_call, &s);
    assert_int_equal(id, k + 2);
    run(x, 2);
    expect_call(x, k, RG_REDIRECT, "MOVED");
    expect_call(x, k + 1, RG_REDIRECT, "MOVED");
    assert_int_equal(rg_cc_get(&x->cc, k)->redirects, 6); /* max_redirects 5: the 6th ends it */
    assert_int_equal(s.calls, 1);
    assert_int_equal(s.last.status, RG_REDIRECT);
    assert_int_equal(s.last.id, id);
    assert_int_equal(s.last.redirect.kind, RG_REDIRECT_MOVED);
    assert_int_equal(s.last.redirect.slot, slot_of("k"));
    assert_memory_equal(s.error, "MOVED", 5);
}

/* The generated calls on the cluster's front: the same arguments and typed results as on one
 * node, routed by the slot they computed, a MOVED followed, the callback called once each with
 * the outcome; the batch reads them as any call. */
static void test_generated_calls(void **state) {
    fixture *x = *state;
    set_script(x->f, moved_script);
    rg_conn *front = rg_cc_conn(&x->cc);
    assert_true(rg_conn_relayed(front));
    rg_cc_begin(&x->cc);
    redis_get_result got = {0};
    redis_set_result set = {0};
    redis_mget_result mget = {0};
    redis_ping_result ping = {0};
    seen sg = {0}, ss = {0}, sm = {0}, sp = {0};
    const uint64_t g = redis_get_call(front, RG_LIT("k"), &got, on_call, &sg);
    const uint64_t st = redis_set_call(front, RG_LIT("a"), RG_LIT("1"), NULL, &set, on_call, &ss);
    const rg_view same[] = {RG_LIT("{t}1"), RG_LIT("{t}2")};
    const uint64_t m = redis_mget_call(front, same, 2, &mget, on_call, &sm);
    const uint64_t p = redis_ping_call(front, NULL, &ping, on_call, &sp);
    const uint64_t none = redis_get_call(front, RG_LIT("b"), NULL, NULL, NULL);
    assert_true(g && st && m && p && none);
    assert_int_equal(rg_cc_size(&x->cc), 5);
    assert_int_equal(sg.calls + ss.calls + sm.calls + sp.calls, 0); /* nothing ran yet */
    run(x, 0);
    assert_int_equal(sg.calls, 1);
    assert_int_equal(sg.last.status, RG_OK);
    assert_int_equal(sg.last.id, g);
    assert_ptr_equal(sg.last.result, &got);
    assert_true(sg.last.written);
    assert_int_equal(sg.last.redirect.kind, RG_REDIRECT_MOVED);
    assert_int_equal(got.value.len, 2);
    assert_memory_equal(got.value.ptr, "n1", 2); /* after the MOVED, from node 1 */
    assert_int_equal(rg_cc_get(&x->cc, g - 1)->redirects, 1);
    assert_int_equal(rg_cc_get(&x->cc, g - 1)->slot, slot_of("k"));
    assert_int_equal(ss.calls, 1);
    assert_int_equal(set.value.len, 2);
    assert_memory_equal(set.value.ptr, "OK", 2);
    assert_int_equal(sm.calls, 1);
    assert_int_equal(sm.last.status, RG_OK);
    assert_int_equal(mget.value.count, 2);
    const int n = 0; /* node 0 serves every slot here */
    char want[32];
    snprintf(want, sizeof want, "{t}2@n%d", n);
    assert_int_equal(mget.value.items[1].len, strlen(want));
    assert_memory_equal(mget.value.items[1].ptr, want, strlen(want));
    assert_int_equal(sp.calls, 1);
    assert_int_equal(sp.last.status, RG_OK);
    assert_memory_equal(ping.value.ptr, "OK", 2); /* the fake nodes answer +OK */
    assert_int_equal(rg_cc_get(&x->cc, p - 1)->slot, RG_SLOT_NONE);
    assert_true(rg_cc_get(&x->cc, none - 1)->complete);
    /* One MGET to the slot's node: the call named its keys (no split). */
    char log[64];
    snprintf(log, sizeof log, "MGET {t}1 {t}2");
    assert_non_null(strstr(x->f->log[n], log));
}

/* Refused generated calls: a cross-slot MSETNX (RG_INVALID, never sent) and MULTI (no
 * transaction spans a cluster's calls); their callbacks run at the next step, not inside the
 * call. A full batch: the call returns 0 and rg_cc_add RG_FULL. */
static void test_generated_refused(void **state) {
    fixture *x = *state;
    two_nodes(x);
    rg_conn *front = rg_cc_conn(&x->cc);
    rg_cc_begin(&x->cc);
    seen sx = {0}, sm = {0};
    const redis_msetnx_data pairs[] = {{RG_LIT("foo"), RG_LIT("1")}, {RG_LIT("bar"), RG_LIT("2")}};
    const uint64_t x1 = redis_msetnx_call(front, pairs, 2, NULL, on_call, &sx);
    const uint64_t x2 = redis_multi_call(front, NULL, on_call, &sm);
    assert_true(x1 && x2);
    assert_int_equal(sx.calls + sm.calls, 0);
    assert_int_equal(rg_cc_get(&x->cc, x1 - 1)->slot, RG_SLOT_CROSS);
    run(x, 2);
    assert_int_equal(sx.calls, 1);
    assert_int_equal(sx.last.status, RG_INVALID);
    assert_false(sx.last.written); /* refused: never sent */
    assert_non_null(strstr(sx.error, "CROSSSLOT"));
    assert_int_equal(sm.calls, 1);
    assert_int_equal(sm.last.status, RG_INVALID);
    expect_log(x->f, 0, "");
    expect_log(x->f, 1, "");
    /* The same as bytes: one lookup at the add, for rg_cc_add and rg_conn_call_argv alike (the
     * nodes then commit every call as a plain one). */
    rg_cc_begin(&x->cc);
    size_t at = SIZE_MAX;
    static const char sub[] = "*2\r\n$9\r\nSUBSCRIBE\r\n$2\r\nch\r\n";
    assert_int_equal(rg_cc_add(&x->cc, sub, sizeof sub - 1, NULL, NULL, &at), RG_OK);
    const rg_view exec[] = {RG_LIT("exec")}, ping[] = {RG_LIT("PING")};
    seen se = {0}, sp = {0};
    assert_int_not_equal(rg_conn_call_argv(front, 1, exec, NULL, NULL, on_call, &se), 0);
    assert_int_not_equal(rg_conn_call_argv(front, 1, ping, NULL, NULL, on_call, &sp), 0);
    run(x, 2);
    assert_int_equal(rg_cc_get(&x->cc, at)->status, RG_INVALID);
    assert_non_null(strstr(rg_cc_get(&x->cc, at)->error.ptr, "not on a cluster"));
    assert_int_equal(se.last.status, RG_INVALID);
    assert_int_equal(sp.last.status, RG_OK); /* PING goes to a node */
    rg_cc_begin(&x->cc);
    for (size_t i = 0; i < BATCH; i++)
        assert_int_not_equal(redis_get_call(front, RG_LIT("k"), NULL, NULL, NULL), 0);
    assert_int_equal(redis_get_call(front, RG_LIT("k"), NULL, NULL, NULL), 0);
    assert_int_equal(rg_cc_add(&x->cc, "*1\r\n$4\r\nPING\r\n", 14, NULL, NULL, NULL), RG_FULL);
    run(x, 0);
}

/* rg_cc_init's failures: rg_status, and rg_cc_error says why. */
static void test_init_errors(void **state) {
    (void)state;
    static rg_cc cc;
    static rg_cc_call calls[4];
    static char arena[256];
    const rg_cc_config missing = {.cmds = &CMDS, .calls = calls, .ncalls = 4};
    assert_int_equal(rg_cc_init(&cc, &missing, "127.0.0.1", 1), RG_INVALID);
    assert_int_equal(rg_cc_error(&cc).status, RG_INVALID);
    assert_non_null(strstr(rg_cc_error(&cc).msg.ptr, "arena"));
    /* A seed nobody listens on (port 1 of the loopback): the connect's own status. */
    const rg_cc_config cfg = {
        .cmds = &CMDS, .calls = calls, .ncalls = 4, .arena = arena, .arena_cap = sizeof arena};
    const rg_status st = rg_cc_init(&cc, &cfg, "127.0.0.1", 1);
    assert_int_not_equal(st, RG_OK);
    assert_int_equal(rg_cc_error(&cc).status, st);
    assert_memory_equal(rg_cc_error(&cc).msg.ptr, "127.0.0.1:1: ", 13);
    rg_cc_close(&cc);
}

/* Refused before sending: SCAN (REQUEST_POLICY:SPECIAL), INFO and RANDOMKEY (fan-outs whose
 * RESPONSE_POLICY is SPECIAL), a cross-slot MSETNX (no policy); nothing reaches a node. */
static void test_refused(void **state) {
    fixture *x = *state;
    two_nodes(x);
    rg_cc_begin(&x->cc);
    const size_t scan = ADD(x, "SCAN", "0");
    const size_t info = ADD(x, "INFO");
    const size_t rnd = ADD(x, "RANDOMKEY");
    const size_t msetnx = ADD(x, "MSETNX", "foo", "1", "bar", "2");
    const size_t get = ADD(x, "GET", "foo");
    run(x, 4);
    expect_call(x, scan, RG_INVALID, "REQUEST_POLICY:SPECIAL");
    expect_call(x, info, RG_INVALID, "RESPONSE_POLICY:SPECIAL");
    expect_call(x, rnd, RG_INVALID, "RESPONSE_POLICY:SPECIAL");
    expect_call(x, msetnx, RG_INVALID, "CROSSSLOT");
    expect_call(x, get, RG_OK, slot_of("foo") > 8191 ? "$2\r\nn1\r\n" : "$2\r\nn0\r\n");
    expect_log(x->f, slot_of("foo") > 8191, "GET foo");
    expect_log(x->f, slot_of("foo") <= 8191, "");
    assert_int_equal(x->cc.stats.refused, 4);
}

/* A call that does not fit its node's output buffer waits, and so do the later calls for that
 * node, even one small enough to fit: the node gets them in the caller's order. */
static void test_order_when_full(void **state) {
    fixture *x = *state;
    char big[151];
    memset(big, 'v', 150);
    big[150] = '\0';
    rg_cc_begin(&x->cc);
    ADD(x, "SET", "k1", big); /* 180 bytes: fits */
    ADD(x, "SET", "k2", big); /* does not fit behind k1 */
    ADD(x, "GET", "k3");      /* would fit */
    run(x, 0);
    char want[512];
    snprintf(want, sizeof want, "SET k1 %s|SET k2 %s|GET k3", big, big);
    expect_log(x->f, 0, want);
    /* The same while streaming: a call added in a later round does not pass the waiting ones. */
    rg_cc_begin(&x->cc);
    ADD(x, "SET", "k1", big);
    ADD(x, "SET", "k2", big);
    ADD(x, "GET", "k3");
    rg_cc_step(&x->cc, 0);
    ADD(x, "GET", "k4");
    while (rg_cc_step(&x->cc, 100) > 0) {
    }
    snprintf(want, sizeof want, "SET k1 %s|SET k2 %s|GET k3|GET k4", big, big);
    expect_log(x->f, 0, want);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_moved, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ask, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ask_then_moved, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tryagain, setup, teardown),
        cmocka_unit_test_setup_teardown(test_clusterdown, setup, teardown),
        cmocka_unit_test_setup_teardown(test_connection_lost, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_node, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mget, setup, teardown),
        cmocka_unit_test_setup_teardown(test_step, setup, teardown),
        cmocka_unit_test_setup_teardown(test_window_roll, setup_window, teardown),
        cmocka_unit_test_setup_teardown(test_roll_fan_out, setup_window, teardown),
        cmocka_unit_test_setup_teardown(test_roll_in_flight, setup_window8, teardown),
        cmocka_unit_test_setup_teardown(test_roll_write_fan_out, setup_window, teardown),
        cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_order_when_full, setup_small, teardown),
        cmocka_unit_test_setup_teardown(test_too_many_redirects, setup, teardown),
        cmocka_unit_test_setup_teardown(test_generated_calls, setup, teardown),
        cmocka_unit_test_setup_teardown(test_generated_refused, setup, teardown),
        cmocka_unit_test(test_init_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
