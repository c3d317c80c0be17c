/* Integration: the blocking Sentinel client (adapters/rg_sentinel_client.h) against real servers:
 * a master, two replicas and three redis-sentinel processes started here on free loopback ports
 * (down-after-milliseconds 1000, failover-timeout 2000, so a failover takes a few seconds).
 *
 * In order, on one topology that moves:
 * - resolve: the client reaches the master the sentinels name, lists the two replicas, writes;
 * - lying_sentinel: a fake sentinel listed first names a replica; ROLE catches it, the client
 *   asks the next sentinel and ends on the master, the liar moved to the back;
 * - sentinel_down: the first sentinel killed; the client resolves through the others;
 * - failover: SENTINEL FAILOVER while the client writes INCRs, 16 in flight;
 * - kill_master: kill -9 of the master while the client writes.
 * In the last two every call completes exactly once (counted); on the new master the acks are
 * 1, 2, 3 ... apart (a resent write that had run would leave a gap) and the counter ends at the
 * last one; overall it is at most the acks plus the calls that may have run (RG_CLOSED with
 * written set). What asynchronous replication drops in a failover (acks of the old master after
 * the promotion) is measured and printed, as is the time from the event to the first ack of the
 * new master; neither is asserted.
 *
 * Built a second time as sentinel_tls (RG_TEST_TLS): the same topology on TLS only (data nodes
 * --port 0 --tls-port, --tls-replication yes; sentinels port 0, tls-port, tls-replication yes, so
 * they name the TLS ports), certificates made with `openssl` (test_tls.h). Both drivers resolve,
 * write and follow a SENTINEL FAILOVER over TLS with the checks above; a wrong CA (sentinels or
 * data nodes), a plain client, a bad CA file and a data server_name the certificates lack are
 * refused with their TLS causes, not hung; and the name rule for the data nodes (the address the
 * sentinel gave, as an IP SAN) is shown on a server whose certificate lacks it, named by a fake
 * sentinel: refused, then accepted with server_name.
 */
#include "rg_sentinel_client.h"
#include "test_redis.h"
#ifdef RG_TEST_UV
#include "rg_sentinel_uv.h"
#endif
#ifdef RG_TEST_TLS
#include "rg_tls.h"
#include "test_tls.h"
#endif

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NAME "mymaster"

typedef struct topo {
    test_redis node[3]; /* node[0] the first master, then its replicas */
    test_redis sent[3];
    char conf_dir[64];
    char conf[3][96];
} topo;

static topo T;

static uint64_t ms_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}

#ifdef RG_TEST_TLS
static test_certs C;
static char ca_path[256], other_ca_path[256];
/* Verified against the CA (the certificates name 127.0.0.1 and localhost); signed by another CA;
 * the fake sentinel's data node (its certificate names wrong.example only). */
static rg_tls_config TLS, OTHER_CA, WRONG_NAME;
static test_redis W; /* a data node whose certificate names wrong.example only (not 127.0.0.1) */
/* TLS sentinels in front of plain data nodes (data_plain): a master of its own on its plain port,
 * and a sentinel on TLS only that watches it in plain (tls-replication no) and wants client
 * certificates (mutual TLS, MTLS). */
static test_redis PM, PS;
static rg_tls_config MTLS;
static char client_crt[256], client_key[256];

/* One command over TLS with tls: the reply rendered (test_render); -1 when it cannot connect. */
static int command_tls(const rg_tls_config *tls, int port, char *out, size_t cap, size_t argc,
                       const char *const *argv) {
    rg_bconn b;
    const rg_conn_config cfg = {.protocol = 0,
                                .alloc = rg_conn_std_alloc}; /* RESP2, as test_conn */
    const rg_bconn_options o = {.connect_ms = 1000, .io_ms = 2000, .tls = tls};
    rg_view views[8];
    rg_raw_result raw = {{NULL, 0}};
    rg_call_record rec = {0};
    int r = -1;
    for (size_t i = 0; i < argc && i < 8; i++) views[i] = rg_cstr(argv[i]);
    if (rg_bconn_connect(&b, "127.0.0.1", port, &cfg, &o) == RG_OK) {
        rg_conn_hold(&b.conn, true);
        const uint64_t id =
            rg_conn_call_argv(&b.conn, argc, views, NULL, &raw, rg_call_record_fn, &rec);
        if (id && rg_bconn_wait(&b, id) == RG_OK && rec.status == RG_OK)
            r = test_render(raw.value.ptr, raw.value.len, out, cap);
    }
    rg_bconn_close(&b);
    return r;
}

static int command(int port, char *out, size_t cap, size_t argc, const char *const *argv) {
    return command_tls(&TLS, port, out, cap, argc, argv);
}

/* test_redis_start_tls_only's probe: PING over TLS with the config ud. */
static int tls_ping(int port, void *ud) {
    char out[16];
    const char *ping[] = {"PING"};
    const bool pong = command_tls(ud, port, out, sizeof out, 1, ping) == 0 && !strcmp(out, "+PONG");
    return pong ? 0 : -1;
}
#else
/* One command to a port, its reply rendered (test_conn_command); -1 when it cannot connect. */
static int command(int port, char *out, size_t cap, size_t argc, const char *const *argv) {
    test_conn c;
    if (test_conn_open(&c, port) != 0) return -1;
    const int r = test_conn_command(&c, out, cap, argc, argv);
    test_conn_close(&c);
    return r;
}
#endif

static bool reply_has(int port, const char *needle, size_t argc, const char *const *argv) {
    char out[8192];
    return command(port, out, sizeof out, argc, argv) == 0 && strstr(out, needle) != NULL;
}

/* The port the sentinels agree on: the first sentinel that answers. */
static int sentinel_master_port(void) {
    for (int i = 0; i < 3; i++) {
        char out[256];
        const char *argv[] = {"SENTINEL", "GET-MASTER-ADDR-BY-NAME", NAME};
        if (T.sent[i].pid <= 0 || command(T.sent[i].port, out, sizeof out, 3, argv) != 0) continue;
        const char *comma = strchr(out, ',');
        if (comma) return atoi(comma + 1);
    }
    return -1;
}

static bool wait_for(bool (*cond)(void), int ms) {
    for (int waited = 0; waited < ms; waited += 50) {
        if (cond()) return true;
        test_sleep_ms(50);
    }
    return cond();
}

static bool replicas_synced(void) {
    const char *info[] = {"INFO", "replication"};
    return reply_has(T.node[0].port, "connected_slaves:2", 2, info) &&
           reply_has(T.node[1].port, "master_link_status:up", 2, info) &&
           reply_has(T.node[2].port, "master_link_status:up", 2, info);
}

/* Every sentinel sees two replicas and two other sentinels. */
static bool sentinels_ready(void) {
    for (int i = 0; i < 3; i++) {
        const char *master[] = {"SENTINEL", "MASTER", NAME};
        char out[8192];
        if (command(T.sent[i].port, out, sizeof out, 3, master) != 0) return false;
        if (!strstr(out, "num-slaves,2") || !strstr(out, "num-other-sentinels,2")) return false;
    }
    return true;
}

static int start_sentinel(int i, int master_port) {
    FILE *f = fopen(T.conf[i], "w");
    if (!f) return -1;
    fprintf(f,
            "sentinel monitor " NAME " 127.0.0.1 %d 2\n"
            "sentinel down-after-milliseconds " NAME " 1000\n"
            "sentinel failover-timeout " NAME " 2000\n"
            "sentinel parallel-syncs " NAME " 2\n",
            master_port);
#ifdef RG_TEST_TLS
    /* TLS to the clients, and to the data nodes and the other sentinels (tls-replication) */
    fprintf(f, "tls-cert-file %s/server.crt\ntls-key-file %s/server.key\n", C.dir, C.dir);
    fprintf(f, "tls-ca-cert-file %s\ntls-auth-clients no\ntls-replication yes\n", ca_path);
    fclose(f);
    const char *extra[] = {"--sentinel", NULL};
    return test_redis_start_tls_only(&T.sent[i], T.conf[i], extra, tls_ping, &TLS);
#else
    fclose(f);
    const char *extra[] = {"--sentinel", NULL};
    return test_redis_start_conf(&T.sent[i], T.conf[i], extra);
#endif
}

#ifdef RG_TEST_TLS
/* A data node on TLS only, replicating over TLS (its replicas announce their TLS ports). */
static int start_node(test_redis *s, const char *cert, const char *const *more, test_probe_fn probe,
                      void *ud) {
    char crt[256], key[256];
    snprintf(crt, sizeof crt, "%s/%s.crt", C.dir, cert);
    snprintf(key, sizeof key, "%s/%s.key", C.dir, cert);
    const char *args[16] = {"--tls-cert-file",    crt,     "--tls-key-file",     key,
                            "--tls-ca-cert-file", ca_path, "--tls-auth-clients", "no",
                            "--tls-replication",  "yes"};
    size_t n = 10;
    for (size_t i = 0; more && more[i] && n < 15; i++) args[n++] = more[i];
    args[n] = NULL;
    return test_redis_start_tls_only(s, NULL, args, probe, ud);
}

/* The certificates, and the client configs on them. */
static int make_certs(void) {
    if (test_certs_make(&C) != 0) return -1;
    snprintf(ca_path, sizeof ca_path, "%s", test_certs_file(&C, "ca.crt"));
    snprintf(other_ca_path, sizeof other_ca_path, "%s", test_certs_file(&C, "other-ca.crt"));
    TLS = (rg_tls_config){.ca_file = ca_path};
    OTHER_CA = (rg_tls_config){.ca_file = other_ca_path};
    WRONG_NAME = (rg_tls_config){.ca_file = ca_path, .server_name = "wrong.example"};
    return 0;
}
#endif

static int start_nodes(void) {
#ifdef RG_TEST_TLS
    if (make_certs() != 0 || start_node(&T.node[0], "server", NULL, tls_ping, &TLS) != 0) return -1;
#else
    if (test_redis_start(&T.node[0], NULL) != 0) return -1;
#endif
    char mport[16];
    snprintf(mport, sizeof mport, "%d", T.node[0].port);
    const char *replica[] = {"--replicaof", "127.0.0.1", mport, NULL};
    for (int i = 1; i < 3; i++) {
#ifdef RG_TEST_TLS
        if (start_node(&T.node[i], "server", replica, tls_ping, &TLS) != 0) return -1;
#else
        if (test_redis_start(&T.node[i], replica) != 0) return -1;
#endif
    }
    return 0;
}

static int setup(void **state) {
    (void)state;
    snprintf(T.conf_dir, sizeof T.conf_dir, "/tmp/respgen-sentinel-XXXXXX");
    if (!mkdtemp(T.conf_dir)) return -1;
    if (start_nodes() != 0) return -1;
    if (!wait_for(replicas_synced, 10000)) return -1;
    for (int i = 0; i < 3; i++) {
        snprintf(T.conf[i], sizeof T.conf[i], "%s/sentinel%d.conf", T.conf_dir, i);
        if (start_sentinel(i, T.node[0].port) != 0) return -1;
    }
    if (!wait_for(sentinels_ready, 20000)) {
        fprintf(stderr, "sentinel_client: the sentinels did not see each other\n");
        return -1;
    }
    return 0;
}

static void stop_liar(pid_t pid);
static pid_t liar_running;
#ifdef RG_TEST_UV
static void close_uv_left(void);
#endif

static int teardown(void **state) {
    (void)state;
    stop_liar(liar_running);
#ifdef RG_TEST_UV
    close_uv_left();
#endif
    /* killed first: on SIGTERM a master waits for its replicas (shutdown-timeout), and nothing
     * of these servers is kept */
    for (int i = 0; i < 3; i++) test_redis_kill(&T.sent[i]);
    for (int i = 0; i < 3; i++) test_redis_kill(&T.node[i]);
    for (int i = 0; i < 3; i++) test_redis_stop(&T.sent[i]);
    for (int i = 0; i < 3; i++) test_redis_stop(&T.node[i]);
#ifdef RG_TEST_TLS
    test_redis_stop(&W);
    test_redis_kill(&PS);
    test_redis_stop(&PS);
    test_redis_stop(&PM);
#endif
    char cmd[96];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", T.conf_dir);
    if (T.conf_dir[0] && system(cmd) != 0) fprintf(stderr, "could not remove %s\n", T.conf_dir);
#ifdef RG_TEST_TLS
    test_certs_remove(&C);
#endif
    return 0;
}

/* ---- the client ------------------------------------------------------------------------------ */

static void sentinel_addr(rg_sentinel_addr *a, int port) {
    memset(a, 0, sizeof *a);
    snprintf(a->host, sizeof a->host, "127.0.0.1");
    a->port = (uint16_t)port;
}

static rg_sentinel_addr replicas[8];

/* The sentinels' TLS, which the data nodes take too (NULL: plain). */
#ifdef RG_TEST_TLS
#define SENTINEL_TLS (&TLS)
#else
#define SENTINEL_TLS NULL
#endif

/* Connects through the listed sentinel ports. */
static rg_status connect_client(rg_sentinel_client *s, const int *ports, size_t n) {
    rg_sentinel_addr addrs[RG_SENTINEL_MAX];
    for (size_t i = 0; i < n; i++) sentinel_addr(&addrs[i], ports[i]);
    const rg_sentinel_client_config cfg = {.master_name = RG_LIT(NAME),
                                           .sentinels = addrs,
                                           .nsentinels = n,
                                           .sentinel_tls = SENTINEL_TLS,
                                           .options = {.connect_ms = 1000, .io_ms = 2000},
                                           .replicas = replicas,
                                           .replicas_cap = 8};
    return rg_sentinel_connect(s, &cfg);
}

static int all_sentinels(int *ports) {
    int n = 0;
    for (int i = 0; i < 3; i++) ports[n++] = T.sent[i].port;
    return n;
}

/* INCR key through the client; its value, or -1. */
static int64_t incr(rg_sentinel_client *s, const char *key) {
    rg_raw_result raw;
    rg_call_record rec = {0};
    const rg_view argv[] = {RG_LIT("INCR"), rg_cstr(key)};
    const uint64_t id =
        rg_conn_call_argv(&s->data.conn, 2, argv, NULL, &raw, rg_call_record_fn, &rec);
    if (!id || rg_sentinel_wait(s, id) != RG_OK || rec.status != RG_OK) return -1;
    return raw.value.len > 1 && raw.value.ptr[0] == ':' ? strtoll(raw.value.ptr + 1, NULL, 10) : -1;
}

#ifdef RG_TEST_TLS
/* The data connection runs TLS, and the replicas listed (their TLS ports) take a TLS connection
 * checked by ROLE, their certificates verified against the addresses the sentinels gave. */
static void check_tls_data(rg_sentinel_client *s, const rg_sentinel_addr *r, size_t n) {
    assert_non_null(s->data.tls);
    for (size_t i = 0; i < n; i++) {
        rg_bconn b;
        rg_call_record rec = {0};
        const rg_conn_config cfg = {
            .protocol = 3, .role = RG_ROLE_REPLICA, .alloc = rg_conn_std_alloc};
        const rg_bconn_options o = {.connect_ms = 1000, .io_ms = 2000, .tls = &TLS};
        assert_int_equal(rg_bconn_connect(&b, r[i].host, r[i].port, &cfg, &o), RG_OK);
        const rg_view get[] = {RG_LIT("GET"), RG_LIT("resolve")};
        const uint64_t id = rg_conn_call_argv(&b.conn, 2, get, NULL, NULL, rg_call_record_fn, &rec);
        assert_true(id != 0);
        assert_int_equal(rg_bconn_wait(&b, id), RG_OK);
        assert_int_equal(rec.status, RG_OK);
        rg_bconn_close(&b);
    }
}
#endif

static void resolve(void **state) {
    (void)state;
    rg_sentinel_client s;
    int ports[3];
    const uint64_t t0 = ms_now();
    assert_int_equal(connect_client(&s, ports, (size_t)all_sentinels(ports)), RG_OK);
    printf("resolve: on the master in %llu ms\n", (unsigned long long)(ms_now() - t0));
    const rg_sentinel_addr *m = rg_sentinel_client_master(&s);
    assert_non_null(m);
    assert_int_equal(m->port, sentinel_master_port());
    assert_int_equal(m->port, T.node[0].port);
    size_t n;
    const rg_sentinel_addr *r = rg_sentinel_client_replicas(&s, &n);
    assert_int_equal(n, 2);
    const int a = r[0].port, b = r[1].port;
    assert_true((a == T.node[1].port && b == T.node[2].port) ||
                (a == T.node[2].port && b == T.node[1].port));
    assert_int_equal(incr(&s, "resolve"), 1);
    assert_int_equal(incr(&s, "resolve"), 2);
    assert_int_equal(rg_sentinel_client_resolves(&s), 1);
#ifdef RG_TEST_TLS
    check_tls_data(&s, r, n);
#endif
    rg_sentinel_close(&s);
    /* a refused config: no sentinels */
    rg_sentinel_client_config bad = {.master_name = RG_LIT(NAME)};
    assert_int_equal(rg_sentinel_connect(&s, &bad), RG_INVALID);
    assert_int_equal(rg_sentinel_client_error(&s).status, RG_INVALID);
    rg_sentinel_close(&s);
    rg_sentinel_addr one;
    sentinel_addr(&one, ports[0]);
    /* a sentinel that does not know the name */
    bad = (rg_sentinel_client_config){.master_name = RG_LIT("nosuchmaster"),
                                      .sentinels = &one,
                                      .nsentinels = 1,
                                      .sentinel_tls = SENTINEL_TLS};
    assert_int_equal(rg_sentinel_connect(&s, &bad), RG_REFUSED);
    printf("resolve: unknown name: %s\n", rg_sentinel_client_error(&s).msg.ptr);
    rg_sentinel_close(&s);
}

/* ---- a sentinel that lies -------------------------------------------------------------------- */

/* Answers one connection as a sentinel that names port `lie` as the master. */
static void liar_serve(int fd, int lie) {
    char buf[4096], out[256];
    size_t len = 0;
    rg_reader r;
    rg_reader_init(&r, NULL);
    for (;;) {
        const ssize_t got = recv(fd, buf + len, sizeof buf - len, 0);
        if (got <= 0) return;
        len += (size_t)got;
        size_t pos = 0, mark = 0;
        rg_event ev;
        rg_view words[4] = {{NULL, 0}};
        size_t nw = 0;
        while (rg_next(&r, buf, len, &pos, &ev) == RG_OK) {
            if (ev.kind == RG_EV_BULK && nw < 4) words[nw++] = ev.str;
            if (!ev.complete) continue;
            const char *reply = "-ERR unknown command\r\n";
            if (nw >= 2 && words[1].len == 23 && strncasecmp(words[1].ptr, "GET-MASTER", 10) == 0) {
                snprintf(out, sizeof out, "*2\r\n$9\r\n127.0.0.1\r\n$%d\r\n%d\r\n",
                         lie >= 10000 ? 5 : 4, lie);
                reply = out;
            } else if (nw >= 2 && strncasecmp(words[1].ptr, "REPLICAS", 8) == 0) {
                reply = "*0\r\n";
            } else if (nw >= 1 && strncasecmp(words[0].ptr, "SUBSCRIBE", 9) == 0) {
                reply = "*3\r\n$9\r\nsubscribe\r\n$14\r\n+switch-master\r\n:1\r\n";
            } else if (nw >= 1 && strncasecmp(words[0].ptr, "PING", 4) == 0) {
                reply = "+PONG\r\n";
            }
            if (send(fd, reply, strlen(reply), MSG_NOSIGNAL) < 0) return;
            nw = 0;
            mark = pos;
        }
        memmove(buf, buf + mark, len - mark);
        len -= mark;
        rg_reader_init(&r, NULL);
    }
}

/* A process group serving the liar on a free port: one child per connection. */
static pid_t start_liar(int *port, int lie) {
    const int lfd = test_listen_loopback(port);
    if (lfd < 0) return -1;
    const pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        signal(SIGCHLD, SIG_IGN);
        for (;;) {
            const int fd = accept(lfd, NULL, NULL);
            if (fd < 0) continue;
            if (fork() == 0) {
                close(lfd);
                liar_serve(fd, lie);
                _exit(0);
            }
            close(fd);
        }
    }
    setpgid(pid, pid);
    close(lfd);
    liar_running = pid;
    return pid;
}

static void stop_liar(pid_t pid) {
    if (pid <= 0) return;
    kill(-pid, SIGKILL);
    int status;
    waitpid(pid, &status, 0);
    liar_running = 0;
}

#ifndef RG_TEST_TLS /* plain only: the liar speaks no TLS; one move each over TLS */
static void lying_sentinel(void **state) {
    (void)state;
    const int master = sentinel_master_port();
    const int replica = master == T.node[1].port ? T.node[2].port : T.node[1].port;
    int liar_port = 0;
    const pid_t liar = start_liar(&liar_port, replica);
    assert_true(liar > 0);
    int ports[4] = {liar_port};
    for (int i = 0; i < 3; i++) ports[1 + i] = T.sent[i].port;
    rg_sentinel_client s;
    const uint64_t t0 = ms_now();
    assert_int_equal(connect_client(&s, ports, 4), RG_OK);
    printf("lying_sentinel: on the master in %llu ms after %llu resolutions\n",
           (unsigned long long)(ms_now() - t0),
           (unsigned long long)rg_sentinel_client_resolves(&s));
    assert_int_equal(rg_sentinel_client_master(&s)->port, master);
    assert_true(rg_sentinel_client_resolves(&s) >= 2); /* the liar's answer failed ROLE */
    assert_true(incr(&s, "lying") >= 1);
    /* The liar went to the back: the next resolution starts with an honest sentinel. */
    assert_int_not_equal(rg_sentinel_first(&s.sm), 0);
    rg_sentinel_close(&s);
    stop_liar(liar);
}

static void sentinel_down(void **state) {
    (void)state;
    test_redis_kill(&T.sent[0]);
    int ports[3];
    rg_sentinel_client s;
    const int n = all_sentinels(ports);
    const uint64_t t0 = ms_now();
    assert_int_equal(connect_client(&s, ports, (size_t)n), RG_OK);
    printf("sentinel_down: on the master in %llu ms\n", (unsigned long long)(ms_now() - t0));
    assert_int_equal(rg_sentinel_client_master(&s)->port, sentinel_master_port());
    assert_true(incr(&s, "down") >= 1);
    rg_sentinel_close(&s);
    /* back for the failovers (the same port and its rewritten config) */
    const char *extra[] = {"--sentinel", NULL};
    assert_int_equal(test_redis_restart_conf(&T.sent[0], T.conf[0], extra), 0);
    assert_true(wait_for(sentinels_ready, 20000));
}

#endif

/* ---- writes across a move -------------------------------------------------------------------- */

enum { WINDOW = 16, MAX_WRITES = 400000 };

/* One INCR: how often it completed and how. */
typedef struct write_slot {
    uint8_t done;
    rg_status status;
    bool written;
} write_slot;

typedef struct writer {
    rg_sentinel_client *s; /* the blocking client, or */
#ifdef RG_TEST_UV
    rg_sentinel_uv *u; /* the libuv one */
#endif
    rg_conn *conn; /* its data connection's engine */
    write_slot *slots;
    size_t n, inflight;
    size_t acked, maybe, unwritten, refused;
    int old_port;
    uint64_t event_at, new_at; /* the event; the first ack by another master */
    /* acks from the old master (old_*) and from the new one (new_*): values in order */
    long long old_last;
    size_t new_acked;
    long long new_first, new_last;
    bool new_in_order; /* each ack on the new master is the one before it + 1 */
    char cause[160];   /* the first loss's cause */
} writer;

typedef struct incr_ctx {
    writer *w;
    size_t i;
    rg_raw_result raw;
} incr_ctx;

static incr_ctx *ctxs;
static uint64_t moved_at; /* when the last move ended (move_guard) */

static long long int_of(const rg_raw_result *raw) {
    return raw->value.len > 1 && raw->value.ptr[0] == ':' ? strtoll(raw->value.ptr + 1, NULL, 10)
                                                          : -1;
}

/* The port of the server the data connection is on: the blocking adapter's own; libuv's is the
 * address the last resolution dialled (a move drops the connection before it changes). */
static int data_port(const writer *w) {
#ifdef RG_TEST_UV
    if (w->u) return rg_sentinel_uv_master(w->u)->port;
#endif
    return w->s->data.port;
}

static uint64_t resolves_of(const writer *w) {
#ifdef RG_TEST_UV
    if (w->u) return rg_sentinel_uv_resolves(w->u);
#endif
    return rg_sentinel_client_resolves(w->s);
}

/* An ack, counted against the server that sent it. */
static void acked(writer *w, long long v) {
    w->acked++;
    if (data_port(w) == w->old_port) {
        w->old_last = v;
        return;
    }
    if (!w->new_at) {
        w->new_at = ms_now();
        w->new_first = v;
    } else if (v != w->new_last + 1) {
        w->new_in_order = false;
    }
    w->new_last = v;
    w->new_acked++;
}

static void incr_done(void *ud, const rg_call_done *d) {
    incr_ctx *c = ud;
    writer *w = c->w;
    write_slot *sl = &w->slots[c->i];
    sl->done++;
    sl->status = d->status;
    sl->written = d->written;
    w->inflight--;
    if (d->status == RG_OK) {
        acked(w, int_of(&c->raw));
    } else if (d->written) {
        w->maybe++;
    } else {
        w->unwritten++;
    }
}

/* Queues one INCR key; false when the client refused it. */
static bool write_one(writer *w, const char *key) {
    if (w->n == MAX_WRITES) return false;
    const rg_view argv[] = {RG_LIT("INCR"), rg_cstr(key)};
    ctxs[w->n] = (incr_ctx){w, w->n, {{NULL, 0}}};
    if (!rg_conn_call_argv(w->conn, 2, argv, NULL, &ctxs[w->n].raw, incr_done, &ctxs[w->n])) {
        w->refused++;
        return false;
    }
    w->n++;
    w->inflight++;
    return true;
}

static void on_event(rg_bconn *b, const rg_reconnect_event *ev, void *ud) {
    writer *w = ud;
    (void)b;
    if (ev->what == RG_RECONNECT_DISCONNECTED && !w->cause[0])
        snprintf(w->cause, sizeof w->cause, "%.*s", (int)ev->cause.msg.len,
                 ev->cause.msg.ptr ? ev->cause.msg.ptr : "");
}

/* Writes until the new master acknowledged `after` writes, or limit_ms passed; event() runs
 * once after warm_ms. */
static void write_through(writer *w, const char *key, int warm_ms, void (*event)(void),
                          size_t after, int limit_ms) {
    const uint64_t start = ms_now();
    while (ms_now() - start < (uint64_t)limit_ms && w->new_acked < after) {
        if (!w->event_at && ms_now() - start >= (uint64_t)warm_ms) {
            w->event_at = ms_now();
            event();
        }
        while (w->inflight < WINDOW && write_one(w, key)) {
        }
        if (rg_sentinel_poll(w->s, 2) != RG_OK && !rg_bconn_reconnecting(&w->s->data)) break;
    }
    rg_sentinel_wait(w->s, 0);
}

/* Every call completed once; on the new master every ack is counted once, in order, and the
 * counter is the last one (none lost, none doubled by a resend). */
static void check_writes(writer *w, const char *key, const char *what) {
    for (size_t i = 0; i < w->n; i++) assert_int_equal(w->slots[i].done, 1);
    const int port = sentinel_master_port();
    char out[64];
    const char *get[] = {"GET", key};
    assert_int_equal(command(port, out, sizeof out, 2, get), 0);
    const long long final = atoll(out);
    const long long lost = w->old_last >= w->new_first ? w->old_last - w->new_first + 1 : 0;
    printf("%s: %zu calls: %zu acknowledged (%zu by the new master), %zu may have run (written, "
           "lost with the connection), %zu never written, %zu refused while moving; counter %lld; "
           "on the new master %llu ms after the event; %llu resolutions; first loss: \"%s\"; "
           "acks of the old master the failover dropped (asynchronous replication): %lld\n",
           what, w->n, w->acked, w->new_acked, w->maybe, w->unwritten, w->refused, final,
           (unsigned long long)(w->new_at ? w->new_at - w->event_at : 0),
           (unsigned long long)resolves_of(w), w->cause, lost);
    assert_true(w->new_at != 0);
    assert_int_equal(data_port(w), port);
    assert_true(w->new_in_order);
    assert_int_equal(w->new_last - w->new_first + 1, (long long)w->new_acked);
    assert_int_equal(final, w->new_last);
    assert_true(final <= (long long)(w->acked + w->maybe)); /* none doubled overall */
}

static void run_move(const char *key, void (*event)(void), const char *what) {
    rg_sentinel_client s;
    int ports[3];
    writer w = {.s = &s, .new_in_order = true};
    rg_sentinel_addr addrs[3];
    const int n = all_sentinels(ports);
    for (int i = 0; i < n; i++) sentinel_addr(&addrs[i], ports[i]);
    const rg_sentinel_client_config cfg = {
        .master_name = RG_LIT(NAME),
        .sentinels = addrs,
        .nsentinels = (size_t)n,
        .sentinel_tls = SENTINEL_TLS,
        .options = {.connect_ms = 1000, .io_ms = 2000, .on_event = on_event, .event_ud = &w}};
    assert_int_equal(rg_sentinel_connect(&s, &cfg), RG_OK);
    w.old_port = s.data.port;
    w.conn = &s.data.conn;
    w.slots = calloc(MAX_WRITES, sizeof *w.slots);
    ctxs = calloc(MAX_WRITES, sizeof *ctxs);
    assert_non_null(w.slots);
    assert_non_null(ctxs);
    write_through(&w, key, 300, event, 2000, 30000);
    moved_at = ms_now();
    check_writes(&w, key, what);
    rg_sentinel_close(&s);
    free(w.slots);
    free(ctxs);
}

static void do_failover(void) {
    char out[256];
    const char *argv[] = {"SENTINEL", "FAILOVER", NAME};
    assert_int_equal(command(T.sent[1].port, out, sizeof out, 3, argv), 0);
    assert_string_equal(out, "+OK");
}

#ifndef RG_TEST_TLS /* plain only: the liar speaks no TLS; one move each over TLS */
static int killed_port;

static void do_kill(void) {
    killed_port = sentinel_master_port();
    for (int i = 0; i < 3; i++)
        if (T.node[i].port == killed_port) test_redis_kill(&T.node[i]);
}

#endif

/* A failover starts no sooner than 2 * failover-timeout after the last (4 s here): the next move
 * waits that long after the last one's end (the settling in between counts). */

static void move_guard(void) {
    const uint64_t now = ms_now();
    if (moved_at && now < moved_at + 4500) test_sleep_ms((long)(moved_at + 4500 - now));
}

/* The new master has both replicas and every sentinel knows them all again. */
static bool failover_settled(void) {
    const char *info[] = {"INFO", "replication"};
    const int port = sentinel_master_port();
    return port > 0 && reply_has(port, "connected_slaves:2", 2, info) && sentinels_ready();
}

static void failover(void **state) {
    (void)state;
    run_move("failover", do_failover, "failover");
    assert_true(wait_for(failover_settled, 20000));
}

#ifndef RG_TEST_TLS /* plain only: the liar speaks no TLS; one move each over TLS */
static void kill_master(void **state) {
    (void)state;
    move_guard();
    run_move("killed", do_kill, "kill_master");
    assert_int_not_equal(sentinel_master_port(), killed_port);
}

#endif

#ifdef RG_TEST_UV
/* ---- the libuv client ------------------------------------------------------------------------ */

static uv_loop_t loop;
static rg_sentinel_uv U;

typedef struct uv_run_state {
    writer *w;
    const char *key;
    void (*event)(void);
    uint64_t start;
    bool ready, closed, stop;
    int events[RG_UV_GAVE_UP + 1];
    int tls_cause; /* the data connection's at RG_UV_FAILED */
} uv_run_state;

static void uv_event(rg_uv *u, rg_uv_event ev, void *ud) {
    uv_run_state *r = ud;
    (void)u;
    r->events[ev]++;
    if (ev == RG_UV_FAILED) r->tls_cause = rg_uv_tls_cause(u);
    if (ev == RG_UV_READY) r->ready = true;
    if (ev == RG_UV_CLOSED) r->closed = true;
    if (ev == RG_UV_DISCONNECTED && r->w && !r->w->cause[0]) {
        const rg_error e = rg_uv_reconnect_info(u)->cause;
        snprintf(r->w->cause, sizeof r->w->cause, "%.*s", (int)e.msg.len,
                 e.msg.ptr ? e.msg.ptr : "");
    }
}

static void wake(uv_timer_t *t) {
    (void)t;
}

/* Runs the loop until *flag or limit_ms (a timer wakes a loop that waits on idle links). */
static bool run_until(const bool *flag, int limit_ms) {
    const uint64_t end = ms_now() + (uint64_t)limit_ms;
    uv_timer_t t;
    uv_timer_init(&loop, &t);
    uv_timer_start(&t, wake, (uint64_t)limit_ms, 0);
    while (!*flag && ms_now() < end) uv_run(&loop, UV_RUN_ONCE);
    uv_close((uv_handle_t *)&t, NULL);
    uv_run(&loop, UV_RUN_NOWAIT); /* t is released before it goes out of scope */
    return *flag;
}

/* A failed test may leave the client open: closed (and the loop run until it is) first. */
static void close_uv_left(void) {
    if (!U.loop || U.told_closed) return;
    U.on_event = NULL; /* its state died with the failed test */
    rg_sentinel_uv_close(&U);
    const uint64_t end = ms_now() + 5000;
    while (!U.told_closed && ms_now() < end) uv_run(&loop, UV_RUN_ONCE);
}

/* Starts the libuv client through the listed sentinel ports, with these TLS configs. */
static rg_status connect_uv_tls(uv_run_state *r, const int *ports, size_t n,
                                const rg_tls_config *sentinel_tls, const rg_tls_config *data_tls) {
    close_uv_left();
    rg_sentinel_addr addrs[RG_SENTINEL_MAX];
    for (size_t i = 0; i < n; i++) sentinel_addr(&addrs[i], ports[i]);
    const rg_sentinel_uv_config cfg = {.master_name = RG_LIT(NAME),
                                       .sentinels = addrs,
                                       .nsentinels = n,
                                       .sentinel_tls = sentinel_tls,
                                       .data_tls = data_tls,
                                       .replicas = replicas,
                                       .replicas_cap = 8};
    return rg_sentinel_uv_connect(&U, &loop, &cfg, uv_event, r);
}

static rg_status connect_uv(uv_run_state *r, const int *ports, size_t n) {
    return connect_uv_tls(r, ports, n, SENTINEL_TLS, NULL);
}

static void close_uv(uv_run_state *r) {
    rg_sentinel_uv_close(&U);
    assert_true(run_until(&r->closed, 5000));
    assert_int_equal(r->events[RG_UV_CLOSED], 1);
}

/* One INCR of key through the libuv client, answered. */
static void incr_uv(rg_view key) {
    rg_call_record rec = {0};
    const rg_view argv[] = {RG_LIT("INCR"), key};
    assert_true(rg_conn_call_argv(&U.data.conn, 2, argv, NULL, NULL, rg_call_record_fn, &rec));
    assert_true(run_until(&rec.done, 5000));
    assert_int_equal(rec.status, RG_OK);
}

static void resolve_uv(void **state) {
    (void)state;
    uv_run_state r = {0};
    int ports[3];
    const uint64_t t0 = ms_now();
    assert_int_equal(connect_uv(&r, ports, (size_t)all_sentinels(ports)), RG_OK);
    assert_true(run_until(&r.ready, 10000));
    printf("resolve_uv: on the master in %llu ms\n", (unsigned long long)(ms_now() - t0));
    assert_int_equal(rg_sentinel_uv_master(&U)->port, sentinel_master_port());
    size_t n;
    rg_sentinel_uv_replicas(&U, &n);
    assert_int_equal(n, 2);
    incr_uv(RG_LIT("resolve_uv"));
    close_uv(&r);
}

#ifndef RG_TEST_TLS /* plain only: the liar speaks no TLS; one move each over TLS */
static void lying_sentinel_uv(void **state) {
    (void)state;
    const int master = sentinel_master_port();
    const int replica = master == T.node[1].port ? T.node[2].port : T.node[1].port;
    int liar_port = 0;
    const pid_t liar = start_liar(&liar_port, replica);
    assert_true(liar > 0);
    int ports[4] = {liar_port};
    for (int i = 0; i < 3; i++) ports[1 + i] = T.sent[i].port;
    uv_run_state r = {0};
    assert_int_equal(connect_uv(&r, ports, 4), RG_OK);
    assert_true(run_until(&r.ready, 10000));
    printf("lying_sentinel_uv: %llu resolutions\n",
           (unsigned long long)rg_sentinel_uv_resolves(&U));
    assert_int_equal(rg_sentinel_uv_master(&U)->port, master);
    assert_true(rg_sentinel_uv_resolves(&U) >= 2);
    close_uv(&r);
    stop_liar(liar);
}

/* No sentinel answers: FAILED, then CLOSED, and the calls made complete. */
static void no_sentinel_uv(void **state) {
    (void)state;
    int dead = test_free_port();
    uv_run_state r = {0};
    assert_int_equal(connect_uv(&r, &dead, 1), RG_OK);
    rg_call_record rec = {0};
    const rg_view argv[] = {RG_LIT("PING")};
    assert_true(rg_conn_call_argv(&U.data.conn, 1, argv, NULL, NULL, rg_call_record_fn, &rec));
    assert_true(run_until(&r.closed, 5000));
    assert_int_equal(r.events[RG_UV_FAILED], 1);
    assert_int_equal(r.events[RG_UV_CLOSED], 1);
    assert_true(rec.done);
    assert_int_equal(rec.status, RG_CLOSED);
    assert_int_equal(rg_sentinel_uv_error(&U).status, RG_REFUSED);
    printf("no_sentinel_uv: %s\n", rg_sentinel_uv_error(&U).msg.ptr);
}

#endif

/* Every millisecond: the event when due, the window topped up, the end when the new master
 * acknowledged enough. */
static void tick(uv_timer_t *t) {
    uv_run_state *r = t->data;
    writer *w = r->w;
    if (!w->event_at && ms_now() - r->start >= 300) {
        w->event_at = ms_now();
        r->event();
    }
    while (!r->stop && w->inflight < WINDOW && write_one(w, r->key)) {
    }
    if (w->new_acked >= 2000 || ms_now() - r->start > 30000) r->stop = true;
    if (r->stop && w->inflight == 0) uv_timer_stop(t);
}

static void run_move_uv(const char *key, void (*event)(void), const char *what) {
    writer w = {.u = &U, .new_in_order = true};
    uv_run_state r = {.w = &w, .key = key, .event = event};
    int ports[3];
    assert_int_equal(connect_uv(&r, ports, (size_t)all_sentinels(ports)), RG_OK);
    assert_true(run_until(&r.ready, 10000));
    w.old_port = rg_sentinel_uv_master(&U)->port;
    w.conn = &U.data.conn;
    w.slots = calloc(MAX_WRITES, sizeof *w.slots);
    ctxs = calloc(MAX_WRITES, sizeof *ctxs);
    assert_non_null(w.slots);
    assert_non_null(ctxs);
    uv_timer_t t;
    uv_timer_init(&loop, &t);
    t.data = &r;
    r.start = ms_now();
    uv_timer_start(&t, tick, 1, 1);
    while (uv_is_active((uv_handle_t *)&t) && ms_now() - r.start < 60000)
        uv_run(&loop, UV_RUN_ONCE);
    uv_close((uv_handle_t *)&t, NULL);
    moved_at = ms_now();
    check_writes(&w, key, what);
    close_uv(&r);
    free(w.slots);
    free(ctxs);
}
#endif

#ifdef RG_TEST_UV
static void failover_uv(void **state) {
    (void)state;
    move_guard();
    run_move_uv("failover_uv", do_failover, "failover_uv");
#ifndef RG_TEST_TLS /* (over TLS the last move: nothing needs the old master back) */
    assert_true(wait_for(failover_settled, 20000));
#endif
}

#ifndef RG_TEST_TLS /* plain only: the liar speaks no TLS; one move each over TLS */
/* The node killed last comes back: Sentinel makes it a replica of the new master. */
static void restart_killed(void) {
    for (int i = 0; i < 3; i++)
        if (T.node[i].port == killed_port)
            assert_int_equal(test_redis_restart(&T.node[i], NULL), 0);
    assert_true(wait_for(failover_settled, 30000));
}

static void kill_master_uv(void **state) {
    (void)state;
    restart_killed();
    move_guard();
    run_move_uv("killed_uv", do_kill, "kill_master_uv");
    assert_int_not_equal(sentinel_master_port(), killed_port);
}
#endif

#endif

#ifdef RG_TEST_TLS
/* ---- TLS: refusals and the name rule ----------------------------------------------------------
 */

static rg_status connect_tls(rg_sentinel_client *s, const int *ports, size_t n,
                             const rg_tls_config *sentinel_tls, const rg_tls_config *data_tls) {
    rg_sentinel_addr addrs[RG_SENTINEL_MAX];
    for (size_t i = 0; i < n; i++) sentinel_addr(&addrs[i], ports[i]);
    const rg_sentinel_client_config cfg = {
        .master_name = RG_LIT(NAME),
        .sentinels = addrs,
        .nsentinels = n,
        .sentinel_tls = sentinel_tls,
        .options = {.connect_ms = 1000, .io_ms = 2000, .tls = data_tls}};
    return rg_sentinel_connect(s, &cfg);
}

/* A connect through the three sentinels that fails with want (and the data connection's TLS
 * cause, when not 0), saying needle, well within the bounds (no hang). */
static void refused(const char *what, const rg_tls_config *sentinel_tls,
                    const rg_tls_config *data_tls, rg_status want, int cause, const char *needle) {
    rg_sentinel_client s;
    int ports[3];
    const int n = all_sentinels(ports);
    const uint64_t t0 = ms_now();
    const rg_status st = connect_tls(&s, ports, (size_t)n, sentinel_tls, data_tls);
    const uint64_t took = ms_now() - t0;
    const rg_error e = rg_sentinel_client_error(&s);
    printf("refused_tls: %s: %s in %llu ms: %s\n", what, rg_status_name(st),
           (unsigned long long)took, e.msg.ptr ? e.msg.ptr : "");
    assert_int_equal(st, want);
    assert_int_equal(e.status, want);
    if (cause) assert_int_equal(rg_bconn_tls_cause(&s.data), cause);
    assert_non_null(e.msg.ptr);
    assert_non_null(strstr(e.msg.ptr, needle));
    assert_true(took < 2000);
    rg_sentinel_close(&s);
}

static void refused_tls(void **state) {
    (void)state;
    const rg_tls_config no_file = {.ca_file = "/nonexistent/ca.crt"};
    refused("sentinels of another CA", &OTHER_CA, NULL, RG_REFUSED, 0, "certificate verify failed");
    refused("data nodes of another CA", &TLS, &OTHER_CA, RG_REFUSED, RG_TLS_UNKNOWN_CA,
            "certificate verify failed");
    refused("data server_name not in the certificates", &TLS, &WRONG_NAME, RG_REFUSED,
            RG_TLS_HOSTNAME, "wrong.example");
    refused("a plain client", NULL, NULL, RG_REFUSED, 0, "TLS port");
    refused("a CA file that is not there", &no_file, NULL, RG_INVALID, 0, "cannot load CAs");
    /* the data nodes verified against a configured name their certificates hold */
    const rg_tls_config named = {.ca_file = ca_path, .server_name = "localhost"};
    rg_sentinel_client s;
    int ports[3];
    assert_int_equal(connect_tls(&s, ports, (size_t)all_sentinels(ports), &TLS, &named), RG_OK);
    assert_true(incr(&s, "named") >= 1);
    rg_sentinel_close(&s);
}

/* W, and a plain fake sentinel naming it at 127.0.0.1 (*liar_port). */
static pid_t start_wrong(int *liar_port) {
    if (!W.pid) assert_int_equal(start_node(&W, "wrong", NULL, tls_ping, &WRONG_NAME), 0);
    const pid_t liar = start_liar(liar_port, W.port);
    assert_true(liar > 0);
    return liar;
}

/* The data nodes' name rule: the address the sentinel gave, which W's certificate does not list,
 * is refused; W's own name, given as server_name, is accepted. */
static void name_rule(void **state) {
    (void)state;
    int liar_port = 0;
    const pid_t liar = start_wrong(&liar_port);
    rg_sentinel_client s;
    assert_int_equal(connect_tls(&s, &liar_port, 1, NULL, &TLS), RG_REFUSED);
    const rg_error e = rg_sentinel_client_error(&s);
    printf("name_rule: %s\n", e.msg.ptr);
    assert_int_equal(rg_bconn_tls_cause(&s.data), RG_TLS_HOSTNAME);
    assert_non_null(strstr(e.msg.ptr, "127.0.0.1"));
    rg_sentinel_close(&s);
    assert_int_equal(connect_tls(&s, &liar_port, 1, NULL, &WRONG_NAME), RG_OK);
    assert_int_equal(s.data.port, W.port);
    assert_true(incr(&s, "name_rule") >= 1);
    rg_sentinel_close(&s);
    stop_liar(liar);
}

static void start_plain_data(void) {
    if (PS.pid > 0) return;
    snprintf(client_crt, sizeof client_crt, "%s", test_certs_file(&C, "client.crt"));
    snprintf(client_key, sizeof client_key, "%s", test_certs_file(&C, "client.key"));
    MTLS = (rg_tls_config){.ca_file = ca_path, .cert_file = client_crt, .key_file = client_key};
    assert_int_equal(test_redis_start(&PM, NULL), 0);
    char conf[128];
    snprintf(conf, sizeof conf, "%s/plain-data-sentinel.conf", T.conf_dir);
    FILE *f = fopen(conf, "w");
    assert_non_null(f);
    fprintf(f, "sentinel monitor " NAME " 127.0.0.1 %d 1\n", PM.port);
    fprintf(f, "tls-cert-file %s/server.crt\ntls-key-file %s/server.key\n", C.dir, C.dir);
    fprintf(f, "tls-ca-cert-file %s\ntls-auth-clients yes\ntls-replication no\n", ca_path);
    fclose(f);
    const char *extra[] = {"--sentinel", NULL};
    assert_int_equal(test_redis_start_tls_only(&PS, conf, extra, tls_ping, &MTLS), 0);
}

static rg_status connect_plain_data(rg_sentinel_client *s, const rg_tls_config *sentinel_tls,
                                    bool data_plain, const rg_tls_config *data_tls) {
    rg_sentinel_addr addr;
    sentinel_addr(&addr, PS.port);
    const rg_sentinel_client_config cfg = {
        .master_name = RG_LIT(NAME),
        .sentinels = &addr,
        .nsentinels = 1,
        .sentinel_tls = sentinel_tls,
        /* (two attempts: a port that speaks no TLS is an I/O failure, retried by policy) */
        .options = {.connect_ms = 1000,
                    .io_ms = 2000,
                    .tls = data_tls,
                    .reconnect = {.first_ms = 10, .max_ms = 20, .attempts = 2}},
        .data_plain = data_plain};
    return rg_sentinel_connect(s, &cfg);
}

/* A client without a certificate is refused by the sentinel; without data_plain the data node
 * gets the sentinels' TLS, which its plain port does not answer; with it, the client writes there;
 * with a data TLS config as well, the config is refused. */
static void plain_data(void **state) {
    (void)state;
    start_plain_data();
    rg_sentinel_client s;
    assert_int_equal(connect_plain_data(&s, &TLS, true, NULL), RG_REFUSED);
    printf("plain_data: no client certificate: %s\n", rg_sentinel_client_error(&s).msg.ptr);
    assert_non_null(strstr(rg_sentinel_client_error(&s).msg.ptr, "client certificate"));
    rg_sentinel_close(&s);
    const uint64_t t0 = ms_now();
    const rg_status st = connect_plain_data(&s, &MTLS, false, NULL);
    printf("plain_data: the sentinels' TLS to the plain data node: %s in %llu ms: %s\n",
           rg_status_name(st), (unsigned long long)(ms_now() - t0),
           rg_sentinel_client_error(&s).msg.ptr);
    assert_int_not_equal(st, RG_OK);
    /* (Redis reads the client hello as an inline command: nothing comes back) */
    assert_int_equal(rg_bconn_tls_cause(&s.data), RG_TLS_TIMEOUT);
    assert_non_null(strstr(rg_sentinel_client_error(&s).msg.ptr, "plain port"));
    rg_sentinel_close(&s);
    assert_int_equal(connect_plain_data(&s, &MTLS, true, &TLS), RG_INVALID);
    assert_non_null(strstr(rg_sentinel_client_error(&s).msg.ptr, "data_plain"));
    rg_sentinel_close(&s);
    assert_int_equal(connect_plain_data(&s, &MTLS, true, NULL), RG_OK);
    assert_int_equal(s.data.port, PM.port);
    assert_int_equal(rg_bconn_tls_cause(&s.data), 0);
    assert_true(incr(&s, "plain_data") >= 1);
    rg_sentinel_close(&s);
}

#ifdef RG_TEST_UV
/* A libuv connect that ends RG_UV_FAILED then RG_UV_CLOSED, saying needle (and the data
 * connection's TLS cause, when not 0). */
static void refused_uv(const char *what, const int *ports, size_t n,
                       const rg_tls_config *sentinel_tls, const rg_tls_config *data_tls,
                       rg_status want, int cause, const char *needle) {
    uv_run_state r = {0};
    const uint64_t t0 = ms_now();
    assert_int_equal(connect_uv_tls(&r, ports, n, sentinel_tls, data_tls), RG_OK);
    assert_true(run_until(&r.closed, 5000));
    const rg_error e = rg_sentinel_uv_error(&U);
    printf("refused_tls_uv: %s: %s in %llu ms: %s\n", what, rg_status_name(e.status),
           (unsigned long long)(ms_now() - t0), e.msg.ptr ? e.msg.ptr : "");
    assert_int_equal(r.events[RG_UV_FAILED], 1);
    assert_int_equal(r.events[RG_UV_READY], 0);
    assert_int_equal(e.status, want);
    if (cause) assert_int_equal(r.tls_cause, cause);
    assert_non_null(strstr(e.msg.ptr, needle));
    assert_true(ms_now() - t0 < 2000);
}

static void refused_tls_uv(void **state) {
    (void)state;
    int ports[3];
    const size_t n = (size_t)all_sentinels(ports);
    const rg_tls_config no_file = {.ca_file = "/nonexistent/ca.crt"};
    refused_uv("sentinels of another CA", ports, n, &OTHER_CA, NULL, RG_REFUSED, 0,
               "certificate verify failed");
    refused_uv("data nodes of another CA", ports, n, &TLS, &OTHER_CA, RG_REFUSED, RG_TLS_UNKNOWN_CA,
               "certificate verify failed");
    refused_uv("a plain client", ports, n, NULL, NULL, RG_REFUSED, 0, "sentinel 127.0.0.1");
    refused_uv("a sentinel CA file that is not there", ports, n, &no_file, &TLS, RG_INVALID, 0,
               "cannot load CAs");
    /* a bad data config: refused at once, nothing opened */
    uv_run_state r = {0};
    assert_int_equal(connect_uv_tls(&r, ports, n, &TLS, &no_file), RG_INVALID);
    assert_non_null(strstr(rg_sentinel_uv_error(&U).msg.ptr, "cannot load CAs"));
}

static void name_rule_uv(void **state) {
    (void)state;
    int liar_port = 0;
    const pid_t liar = start_wrong(&liar_port);
    refused_uv("the address the sentinel gave", &liar_port, 1, NULL, &TLS, RG_REFUSED,
               RG_TLS_HOSTNAME, "127.0.0.1");
    uv_run_state r = {0};
    assert_int_equal(connect_uv_tls(&r, &liar_port, 1, NULL, &WRONG_NAME), RG_OK);
    assert_true(run_until(&r.ready, 5000));
    assert_int_equal(rg_sentinel_uv_master(&U)->port, W.port);
    incr_uv(RG_LIT("name_rule_uv"));
    close_uv(&r);
    stop_liar(liar);
}

static void plain_data_uv(void **state) {
    (void)state;
    start_plain_data();
    close_uv_left();
    rg_sentinel_addr addr;
    sentinel_addr(&addr, PS.port);
    const rg_conn_config data = {.protocol = 3, .connect_timeout_ms = 500, .queue_calls = 16};
    rg_sentinel_uv_config cfg = {.master_name = RG_LIT(NAME),
                                 .data = &data,
                                 .sentinels = &addr,
                                 .nsentinels = 1,
                                 .sentinel_tls = &MTLS,
                                 .data_plain = true,
                                 .reconnect = {.first_ms = 10, .max_ms = 20, .attempts = 2}};
    uv_run_state r = {0};
    assert_int_equal(rg_sentinel_uv_connect(&U, &loop, &cfg, uv_event, &r), RG_OK);
    assert_true(run_until(&r.ready, 5000));
    assert_int_equal(rg_sentinel_uv_master(&U)->port, PM.port);
    incr_uv(RG_LIT("plain_data_uv"));
    close_uv(&r);
    /* without data_plain: the sentinels' TLS to the plain port, refused, not hung */
    cfg.data_plain = false;
    uv_run_state f = {0};
    const uint64_t t0 = ms_now();
    assert_int_equal(rg_sentinel_uv_connect(&U, &loop, &cfg, uv_event, &f), RG_OK);
    assert_true(run_until(&f.closed, 5000));
    printf("plain_data_uv: the sentinels' TLS to the plain data node: failed in %llu ms: %s\n",
           (unsigned long long)(ms_now() - t0), rg_sentinel_uv_error(&U).msg.ptr);
    assert_int_equal(f.events[RG_UV_GAVE_UP], 1); /* (its two attempts ran out) */
    assert_int_equal(f.events[RG_UV_READY], 0);
    assert_non_null(strstr(rg_sentinel_uv_error(&U).msg.ptr, "tls: handshake timeout"));
    /* both: refused at once, nothing opened */
    cfg.data_plain = true;
    cfg.data_tls = &TLS;
    assert_int_equal(rg_sentinel_uv_connect(&U, &loop, &cfg, uv_event, &f), RG_INVALID);
    assert_non_null(strstr(rg_sentinel_uv_error(&U).msg.ptr, "data_plain"));
}
#endif
#endif

int main(void) {
    const struct CMUnitTest tests[] = {
#ifdef RG_TEST_TLS
        cmocka_unit_test(resolve),      cmocka_unit_test(refused_tls),
        cmocka_unit_test(name_rule),    cmocka_unit_test(plain_data),
#ifdef RG_TEST_UV
        cmocka_unit_test(resolve_uv),   cmocka_unit_test(refused_tls_uv),
        cmocka_unit_test(name_rule_uv), cmocka_unit_test(plain_data_uv),
#endif
        cmocka_unit_test(failover),
#ifdef RG_TEST_UV
        cmocka_unit_test(failover_uv),
#endif
#else
        cmocka_unit_test(resolve),        cmocka_unit_test(lying_sentinel),
#ifdef RG_TEST_UV
        cmocka_unit_test(resolve_uv),     cmocka_unit_test(lying_sentinel_uv),
        cmocka_unit_test(no_sentinel_uv),
#endif
        cmocka_unit_test(sentinel_down),  cmocka_unit_test(failover),
#ifdef RG_TEST_UV
        cmocka_unit_test(failover_uv),
#endif
        cmocka_unit_test(kill_master),
#ifdef RG_TEST_UV
        cmocka_unit_test(kill_master_uv),
#endif
#endif
    };
    setvbuf(stdout, NULL, _IOLBF, 0);
#ifdef RG_TEST_UV
    uv_loop_init(&loop);
#endif
    return cmocka_run_group_tests(tests, setup, teardown);
}
