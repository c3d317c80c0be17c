/* Test support: see test_cluster.h. */
#include "test_cluster.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { READY_TIMEOUT_MS = 20000, CREATE_TIMEOUT_MS = 30000, NODES_TEXT = 16384 };

/* The one cluster the signal handler and atexit stop: set while a cluster runs. A test process
 * runs one cluster at a time; this is the only mutable global, and only the cleanup reads it. */
static test_cluster *volatile running_cluster;

/* The process is dying: kill the nodes at once (async-signal-safe), then remove what they left,
 * which is not (it forks rm); a crashed test has nothing else left to break. */
static void on_fatal(int sig) {
    test_cluster *c = running_cluster;
    for (int i = 0; c && i < c->n; i++)
        if (c->node[i].pid > 0) kill(c->node[i].pid, SIGKILL);
    if (c) test_cluster_stop(c);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void at_exit(void) {
    if (running_cluster) test_cluster_stop(running_cluster);
}

static void install_cleanup(test_cluster *c) {
    static const int sigs[] = {SIGSEGV, SIGABRT, SIGTERM, SIGINT, SIGBUS, SIGFPE};
    static bool registered; /* atexit once per process */
    running_cluster = c;
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) signal(sigs[i], on_fatal);
    if (!registered && atexit(at_exit) == 0) registered = true;
}

int test_cluster_command(int port, char *out, size_t cap, size_t argc, const char *const *argv) {
    test_conn conn;
    if (test_conn_open(&conn, port) != 0) return -1;
    const int r = test_conn_command(&conn, out, cap, argc, argv);
    test_conn_close(&conn);
    return r;
}

int test_cluster_info_field(int port, const char *cmd_a, const char *cmd_b, const char *field,
                            char *out, size_t cap) {
    char text[NODES_TEXT];
    const char *argv[] = {cmd_a, cmd_b};
    if (test_cluster_command(port, text, sizeof text, cmd_b ? 2 : 1, argv) != 0) return -1;
    const size_t flen = strlen(field);
    for (const char *p = text; (p = strstr(p, field)) != NULL; p += flen) {
        if ((p != text && p[-1] != '\n') || p[flen] != ':') continue;
        const char *v = p + flen + 1;
        size_t n = strcspn(v, "\r\n");
        if (n >= cap) n = cap - 1;
        memcpy(out, v, n);
        out[n] = '\0';
        return 0;
    }
    return -1;
}

static bool info_is(int port, const char *a, const char *b, const char *field, const char *want) {
    char v[64];
    return test_cluster_info_field(port, a, b, field, v, sizeof v) == 0 && strcmp(v, want) == 0;
}

int test_cluster_index(const test_cluster *c, int port) {
    for (int i = 0; i < c->n; i++)
        if (c->node[i].port == port) return i;
    return -1;
}

bool test_cluster_is_master(const test_cluster *c, int index) {
    return info_is(c->node[index].port, "INFO", "replication", "role", "master");
}

/* owner[slot] = port of the master serving it as CLUSTER NODES on port says (0: none). Lines:
 * "<id> <ip>:<port>@<bus> <flags> <master> <ping> <pong> <epoch> <link> <slot ranges...>". */
static int slot_owners(int port, int *owner) {
    char text[NODES_TEXT];
    const char *argv[] = {"CLUSTER", "NODES"};
    if (test_cluster_command(port, text, sizeof text, 2, argv) != 0) return -1;
    memset(owner, 0, sizeof(int) * 16384);
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char id[64], addr[96], flags[96], tail[NODES_TEXT];
        int used = 0;
        if (sscanf(line, "%63s %95s %95s %*s %*s %*s %*s %*s%n", id, addr, flags, &used) != 3 ||
            !strstr(flags, "master") || strstr(flags, "fail"))
            continue;
        const char *colon = strrchr(addr, ':');
        const int node_port = colon ? atoi(colon + 1) : 0;
        snprintf(tail, sizeof tail, "%s", line + used);
        for (char *save = NULL, *tok = strtok_r(tail, " ", &save); tok;
             tok = strtok_r(NULL, " ", &save)) {
            int a, b;
            if (tok[0] == '[') continue; /* a migrating or importing slot */
            if (sscanf(tok, "%d-%d", &a, &b) != 2) b = a = atoi(tok);
            for (int s = a; s <= b && s >= 0 && s < 16384; s++) owner[s] = node_port;
        }
    }
    return 0;
}

int test_cluster_owners(const test_cluster *c, int *owner) {
    for (int i = 0; i < c->n; i++)
        if (c->node[i].pid > 0 && slot_owners(c->node[i].port, owner) == 0) return 0;
    return -1;
}

int test_cluster_slot_owner(const test_cluster *c, int slot) {
    int *owner = malloc(sizeof(int) * 16384);
    const int port = owner && test_cluster_owners(c, owner) == 0 && owner[slot] ? owner[slot] : -1;
    free(owner);
    return port;
}

/* Every running node says cluster_state:ok and sees the same owner for every slot. */
static bool agreed(const test_cluster *c, int *first, int *other) {
    bool have = false;
    for (int i = 0; i < c->n; i++) {
        if (c->node[i].pid <= 0) continue;
        const int port = c->node[i].port;
        if (!info_is(port, "CLUSTER", "INFO", "cluster_state", "ok")) return false;
        if (slot_owners(port, have ? other : first) != 0) return false;
        if (have && memcmp(first, other, sizeof(int) * 16384) != 0) return false;
        have = true;
    }
    for (int s = 0; have && s < 16384; s++)
        if (!first[s]) return false;
    return have;
}

int test_cluster_wait_ok(const test_cluster *c, int timeout_ms) {
    int *first = malloc(sizeof(int) * 16384 * 2);
    if (!first) return -1;
    int r = -1;
    for (int waited = 0;; waited += 50) {
        if (agreed(c, first, first + 16384)) {
            r = 0;
            break;
        }
        if (waited >= timeout_ms) break; /* (no sleep after the last look: 0 is a poll) */
        test_sleep_ms(50);
    }
    free(first);
    return r;
}

/* Runs argv with stdout and stderr into log; returns its exit status or -1. */
static int run(const char *const *argv, const char *log, int timeout_ms) {
    const pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        const int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        execvp(argv[0], (char *const *)argv);
        _exit(127);
    }
    int status = 0;
    for (int waited = 0; waitpid(pid, &status, WNOHANG) == 0; waited += 20) {
        if (waited > timeout_ms) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            return -1;
        }
        test_sleep_ms(20);
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Starts node i (again: restarts it on its ports and directory) with the cluster's arguments. */
static int launch(test_cluster *c, int i, bool again) {
    char bus[16], timeout[16], port[16], cert[256], key[256], ca[256];
    snprintf(bus, sizeof bus, "%d", c->bus_port[i]);
    snprintf(timeout, sizeof timeout, "%d", TEST_CLUSTER_NODE_TIMEOUT_MS);
    const char *args[32] = {"--cluster-enabled", "yes", "--cluster-config-file",  "nodes.conf",
                            "--cluster-port",    bus,   "--cluster-node-timeout", timeout};
    size_t n = 8;
    if (c->certs) {
        if (!again) c->tls_port[i] = test_free_port();
        snprintf(port, sizeof port, "%d", c->tls_port[i]);
        snprintf(cert, sizeof cert, "%s", test_certs_file(c->certs, "server.crt"));
        snprintf(key, sizeof key, "%s", test_certs_file(c->certs, "server.key"));
        snprintf(ca, sizeof ca, "%s", test_certs_file(c->certs, "ca.crt"));
        const char *const tls[] = {"--tls-port",         port,  "--tls-cert-file",    cert,
                                   "--tls-key-file",     key,   "--tls-ca-cert-file", ca,
                                   "--tls-auth-clients", "yes", "--tls-cluster",      "yes",
                                   "--tls-replication",  "yes"};
        for (size_t j = 0; j < sizeof tls / sizeof tls[0]; j++) args[n++] = tls[j];
    }
    args[n] = NULL;
    return again ? test_redis_restart(&c->node[i], args) : test_redis_start(&c->node[i], args);
}

static int start_node(test_cluster *c, int i) {
    for (int attempt = 0; attempt < 5; attempt++) {
        c->bus_port[i] = test_free_port();
        if (launch(c, i, false) == 0) return 0;
    }
    return -1;
}

/* Runs `redis-cli --cluster what x y`, its output in node i's directory. Returns 0 or -1. */
static int cli(const test_cluster *c, int i, const char *what, const char *x, const char *y) {
    char log[96];
    snprintf(log, sizeof log, "%s/cluster-%s.log", c->node[i].dir, what);
    const char *const argv[] = {"redis-cli", "--cluster", what, x, y, NULL};
    if (run(argv, log, CREATE_TIMEOUT_MS) == 0) return 0;
    fprintf(stderr, "test_cluster: redis-cli --cluster %s failed (see %s)\n", what, log);
    return -1;
}

int test_cluster_restart(test_cluster *c, int i) {
    return launch(c, i, true);
}

static int create(test_cluster *c) {
    char addr[TEST_CLUSTER_NODES][32], log[96];
    const char *argv[TEST_CLUSTER_NODES + 8];
    size_t n = 0;
    argv[n++] = "redis-cli";
    argv[n++] = "--cluster";
    argv[n++] = "create";
    for (int i = 0; i < c->n; i++) {
        snprintf(addr[i], sizeof addr[i], "127.0.0.1:%d", c->node[i].port);
        argv[n++] = addr[i];
    }
    argv[n++] = "--cluster-replicas";
    argv[n++] = "1";
    argv[n++] = "--cluster-yes";
    argv[n] = NULL;
    snprintf(log, sizeof log, "%s/cluster-create.log", c->node[0].dir);
    if (run(argv, log, CREATE_TIMEOUT_MS) == 0) return 0;
    fprintf(stderr, "test_cluster_start: redis-cli --cluster create failed (see %s)\n", log);
    return -1;
}

/* How many nodes run. */
static int running(const test_cluster *c) {
    int n = 0;
    for (int i = 0; i < c->n; i++) n += c->node[i].pid > 0;
    return n;
}

bool test_cluster_linked(const test_cluster *c) {
    char v[32], known[16];
    snprintf(known, sizeof known, "%d", running(c));
    for (int i = 0; i < c->n; i++) {
        if (c->node[i].pid <= 0) continue;
        const int port = c->node[i].port;
        if (!info_is(port, "CLUSTER", "INFO", "cluster_known_nodes", known)) return false;
        if (test_cluster_info_field(port, "INFO", "replication", "role", v, sizeof v) != 0)
            return false;
        if (strcmp(v, "slave") == 0 &&
            !info_is(port, "INFO", "replication", "master_link_status", "up"))
            return false;
    }
    return true;
}

static int start(test_cluster *c, test_certs *certs) {
    memset(c, 0, sizeof *c);
    c->certs = certs;
    install_cleanup(c);
    for (; c->n < TEST_CLUSTER_NODES; c->n++)
        if (start_node(c, c->n) != 0) goto fail;
    if (create(c) != 0) goto fail;
    int waited = 0;
    for (; waited < READY_TIMEOUT_MS && !test_cluster_linked(c); waited += 50) test_sleep_ms(50);
    if (waited >= READY_TIMEOUT_MS || test_cluster_wait_ok(c, READY_TIMEOUT_MS) != 0) {
        fprintf(stderr, "test_cluster_start: the cluster did not settle\n");
        goto fail;
    }
    return 0;
fail:
    test_cluster_stop(c);
    return -1;
}

int test_cluster_start(test_cluster *c) {
    return start(c, NULL);
}

int test_cluster_start_tls(test_cluster *c, test_certs *certs) {
    return start(c, certs);
}

/* The first running node but i. */
static int other_than(const test_cluster *c, int i) {
    for (int j = 0; j < c->n; j++)
        if (j != i && c->node[j].pid > 0) return j;
    return -1;
}

int test_cluster_start_node(test_cluster *c) {
    const int i = c->n;
    if (i >= TEST_CLUSTER_MAX_NODES || start_node(c, i) != 0) return -1;
    c->n++;
    return i;
}

int test_cluster_add_master(test_cluster *c) {
    const int peer = other_than(c, -1), i = peer < 0 ? -1 : test_cluster_start_node(c);
    if (i < 0) return -1;
    char addr[32], at[32];
    snprintf(addr, sizeof addr, "127.0.0.1:%d", c->node[i].port);
    snprintf(at, sizeof at, "127.0.0.1:%d", c->node[peer].port);
    if (cli(c, i, "add-node", addr, at) != 0) return -1;
    int waited = 0;
    for (; waited < READY_TIMEOUT_MS && !test_cluster_linked(c); waited += 50) test_sleep_ms(50);
    /* it knows every slot's owner too (redis-cli refuses to reshard while nodes disagree) */
    return waited < READY_TIMEOUT_MS && test_cluster_wait_ok(c, READY_TIMEOUT_MS) == 0 ? i : -1;
}

int test_cluster_del_node(test_cluster *c, int i) {
    const int peer = other_than(c, i);
    char at[32], id[64];
    const char *const myid[] = {"CLUSTER", "MYID"};
    if (peer < 0 || test_cluster_command(c->node[i].port, id, sizeof id, 2, myid) != 0) return -1;
    snprintf(at, sizeof at, "127.0.0.1:%d", c->node[peer].port);
    if (cli(c, i, "del-node", at, id) != 0) return -1;
    test_redis_stop(&c->node[i]); /* it shut down: reaped, its directory removed */
    int waited = 0;
    for (; waited < READY_TIMEOUT_MS && !test_cluster_linked(c); waited += 50) test_sleep_ms(50);
    return waited < READY_TIMEOUT_MS ? 0 : -1;
}

void test_cluster_stop(test_cluster *c) {
    for (int i = 0; i < c->n; i++) test_redis_stop(&c->node[i]);
    if (running_cluster == c) running_cluster = NULL;
}
