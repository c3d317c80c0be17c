/* bench_tls: the blocking adapter over TLS (adapters/rg_tls.h) against the same over plain TCP,
 * and against redis-benchmark --tls, one redis-server, one process (the server's CPU not
 * counted).
 *
 *   bench_tls [-s SECONDS]   client CPU seconds per row, at least (default 1)
 *
 * It makes a CA and a server certificate with the openssl command in a temporary directory,
 * starts redis-server with a plain port and a TLS port on them, stores 10,000 keys of 32 bytes,
 * and at pipeline depths 1, 16 and 256 runs GETs in rounds of DEPTH (queue DEPTH calls, then
 * rg_bconn_wait for the last), plain and TLS, until the row has used SECONDS of client CPU. It
 * prints throughput and client CPU per command (getrusage: user + system), TLS against plain;
 * then redis-benchmark -t get --tls -P DEPTH -c 1 for as many requests, its throughput and its
 * CPU per command (getrusage of the children). */
#include "redis_client.h"
#include "rg_blocking.h"
#include "rg_tls.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { KEYS = 10000, MAX_DEPTH = 256 };

typedef struct bench {
    char dir[64];
    int port, tls_port;
    pid_t server;
    double min_cpu;
    char keys[KEYS][16];
} bench;

typedef struct client {
    rg_bconn b;
    char in[1 << 16];
    char out[1 << 20];
    rg_call calls[MAX_DEPTH * 2];
    redis_get_result r[MAX_DEPTH];
} client;

typedef struct row {
    double kops, cpu_ns;
    size_t commands;
} row;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double cpu_of(int who) {
    struct rusage u;
    getrusage(who, &u);
    return (double)u.ru_utime.tv_sec + (double)u.ru_utime.tv_usec / 1e6 +
           (double)u.ru_stime.tv_sec + (double)u.ru_stime.tv_usec / 1e6;
}

static int make_certs(bench *b) {
    snprintf(b->dir, sizeof b->dir, "/tmp/respgen-bench-tls-XXXXXX");
    if (!mkdtemp(b->dir)) return -1;
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && K='-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes' && "
             "openssl req -x509 $K -keyout ca.key -out ca.crt -days 2 -subj /CN=bench-ca && "
             "openssl req $K -keyout server.key -out server.csr -subj /CN=localhost && "
             "echo subjectAltName=IP:127.0.0.1 > server.ext && "
             "openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -set_serial 1 -days 2 "
             "-extfile server.ext -out server.crt >/dev/null 2>&1",
             b->dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* A loopback port the kernel just handed out. */
static int free_port(void) {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t n = sizeof a;
    int port = -1;
    if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
        getsockname(fd, (struct sockaddr *)&a, &n) == 0)
        port = ntohs(a.sin_port);
    if (fd >= 0) close(fd);
    return port;
}

/* A connection (quiet: say nothing when it fails, as while the server starts). */
static client *connect_client(const bench *b, bool tls, bool quiet) {
    client *c = calloc(1, sizeof *c);
    char ca[128];
    snprintf(ca, sizeof ca, "%s/ca.crt", b->dir);
    const rg_tls_config t = {.ca_file = ca};
    const rg_bconn_options opt = {.connect_ms = 2000, .io_ms = 5000, .tls = tls ? &t : NULL};
    const rg_conn_config cfg = {.in = c->in,
                                .in_cap = sizeof c->in,
                                .out = c->out,
                                .out_cap = sizeof c->out,
                                .calls = c->calls,
                                .ncalls = MAX_DEPTH * 2,
                                .protocol = 2};
    if (rg_bconn_connect(&c->b, "127.0.0.1", tls ? b->tls_port : b->port, &cfg, &opt) != RG_OK) {
        if (!quiet) fprintf(stderr, "connect: %s\n", rg_bconn_error(&c->b).msg.ptr);
        rg_bconn_close(&c->b);
        free(c);
        return NULL;
    }
    return c;
}

static int start_server(bench *b) {
    for (int attempt = 0; attempt < 20; attempt++) {
        b->port = free_port();
        b->tls_port = free_port();
        char port[16], tls_port[16], cert[128], key[128], ca[128];
        snprintf(port, sizeof port, "%d", b->port);
        snprintf(tls_port, sizeof tls_port, "%d", b->tls_port);
        snprintf(cert, sizeof cert, "%s/server.crt", b->dir);
        snprintf(key, sizeof key, "%s/server.key", b->dir);
        snprintf(ca, sizeof ca, "%s/ca.crt", b->dir);
        b->server = fork();
        if (b->server == 0) {
            execlp("redis-server", "redis-server", "--port", port, "--bind", "127.0.0.1",
                   "--tls-port", tls_port, "--tls-cert-file", cert, "--tls-key-file", key,
                   "--tls-ca-cert-file", ca, "--tls-auth-clients", "no", "--save", "",
                   "--appendonly", "no", "--dir", b->dir, "--logfile", "/dev/null", NULL);
            _exit(127);
        }
        for (int i = 0; i < 100; i++) {
            struct timespec ts = {0, 20000000};
            nanosleep(&ts, NULL);
            client *c = connect_client(b, true, true);
            if (c) {
                rg_bconn_close(&c->b);
                free(c);
                return 0;
            }
            int status;
            if (waitpid(b->server, &status, WNOHANG) == b->server) break;
        }
        kill(b->server, SIGKILL);
        waitpid(b->server, NULL, 0);
    }
    return -1;
}

static int fill(bench *b) {
    client *c = connect_client(b, false, false);
    if (!c) return -1;
    char value[33];
    memset(value, 'v', 32);
    value[32] = '\0';
    uint64_t id = 0;
    for (int k = 0; k < KEYS; k++) {
        snprintf(b->keys[k], sizeof b->keys[k], "key:%d", k);
        id =
            redis_set_call(&c->b.conn, rg_cstr(b->keys[k]), rg_cstr(value), NULL, NULL, NULL, NULL);
        if (!id || (k % 256 == 255 && rg_bconn_wait(&c->b, id) != RG_OK)) return -1;
    }
    const rg_status st = rg_bconn_wait(&c->b, id);
    rg_bconn_close(&c->b);
    free(c);
    return st == RG_OK ? 0 : -1;
}

/* GETs in rounds of depth until the row used min_cpu seconds (checked every 1,000 rounds). */
static int run_row(const bench *b, bool tls, size_t depth, row *out) {
    client *c = connect_client(b, tls, false);
    if (!c) return -1;
    size_t k = 0, commands = 0;
    const double t0 = now(), c0 = cpu_of(RUSAGE_SELF);
    double used = 0;
    while (used < b->min_cpu) {
        for (int round = 0; round < 1000; round++) {
            uint64_t id = 0;
            for (size_t i = 0; i < depth; i++, k = k + 1 == KEYS ? 0 : k + 1)
                id = redis_get_call(&c->b.conn, rg_cstr(b->keys[k]), &c->r[i], NULL, NULL);
            if (!id || rg_bconn_wait(&c->b, id) != RG_OK || c->r[depth - 1].value.len != 32)
                return -1;
            commands += depth;
        }
        used = cpu_of(RUSAGE_SELF) - c0;
    }
    const double secs = now() - t0;
    *out = (row){(double)commands / secs / 1e3, used * 1e9 / (double)commands, commands};
    rg_bconn_close(&c->b);
    free(c);
    return 0;
}

/* redis-benchmark -t get --tls at depth for n requests: throughput (its own report) and CPU. */
static int run_redis_benchmark(const bench *b, size_t depth, size_t n, row *out) {
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "redis-benchmark -h 127.0.0.1 -p %d --tls --cacert %s/ca.crt -t get -c 1 -P %zu "
             "-n %zu -r %d -q 2>/dev/null | tr '\\r' '\\n' | grep 'requests per second' | tail -1",
             b->tls_port, b->dir, depth, n, KEYS);
    const double c0 = cpu_of(RUSAGE_CHILDREN);
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    char line[256] = "";
    const bool got = fgets(line, sizeof line, p) != NULL;
    pclose(p);
    const double used = cpu_of(RUSAGE_CHILDREN) - c0;
    const char *at = strstr(line, "GET: ");
    if (!got || !at) return -1;
    *out = (row){atof(at + 5) / 1e3, used * 1e9 / (double)n, n};
    return 0;
}

int main(int argc, char **argv) {
    static bench b;
    b.min_cpu = 1.0;
    for (int i = 1; i + 1 < argc; i += 2)
        if (strcmp(argv[i], "-s") == 0) b.min_cpu = atof(argv[i + 1]);
    if (make_certs(&b) != 0 || start_server(&b) != 0 || fill(&b) != 0) {
        fprintf(stderr, "bench_tls: setup failed (openssl, redis-server with TLS?)\n");
        return 1;
    }
    printf("GET, 32-byte values, one connection; client CPU per command (user + system)\n");
    printf("%5s | %12s %12s %6s | %10s %10s %6s | %14s %14s\n", "depth", "plain ns/cmd",
           "tls ns/cmd", "ratio", "plain kops", "tls kops", "ratio", "redis-bench tls",
           "its ns/cmd");
    const size_t depths[] = {1, 16, 256};
    int rc = 0;
    for (size_t d = 0; d < 3 && rc == 0; d++) {
        row plain, tls, rb = {0, 0, 0};
        if (run_row(&b, false, depths[d], &plain) != 0 || run_row(&b, true, depths[d], &tls) != 0) {
            rc = 1;
            break;
        }
        const bool have_rb = run_redis_benchmark(&b, depths[d], tls.commands, &rb) == 0;
        printf("%5zu | %12.0f %12.0f %5.2fx | %10.1f %10.1f %5.2fx | %14.1f %14.0f\n", depths[d],
               plain.cpu_ns, tls.cpu_ns, tls.cpu_ns / plain.cpu_ns, plain.kops, tls.kops,
               tls.kops / plain.kops, have_rb ? rb.kops : 0.0, have_rb ? rb.cpu_ns : 0.0);
    }
    kill(b.server, SIGTERM);
    waitpid(b.server, NULL, 0);
    char rm[128];
    snprintf(rm, sizeof rm, "rm -rf '%s'", b.dir);
    if (system(rm) != 0) fprintf(stderr, "bench_tls: could not remove %s\n", b.dir);
    return rc;
}
