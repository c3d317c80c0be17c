/* bench_client: respgen's client against hiredis, one redis-server, one process.
 *
 *   bench_client [-n COMMANDS] [-d DEPTHS] [-p PORT]
 *     -n  commands per (command, depth, client); default 1000000
 *     -d  pipeline depths, comma-separated; default 1,16,256
 *     -p  use the redis-server at 127.0.0.1:PORT instead of starting one
 *     -r  repeats of each row (at most 15), the median kept; default 3
 *     -c  only this client (ours, hi-append, hi-format): for profiling
 *     -t  only this command (set, get): for profiling
 *     -m  each row repeats its COMMANDS until it took at least this many ms of client CPU
 *         (getrusage counts in scheduler ticks: a row of 1000 ms or more is not tick noise)
 *
 * For SET (32-byte values) and then GET over 10,000 keys, at each depth, three clients send the
 * same commands in rounds of DEPTH (write all, then read all replies) over one TCP connection:
 *   ours        generated redis_set_call / redis_get_call on the engine (runtime/rg_conn.h),
 *               typed results, blocking socket, one write and as few reads as the kernel allows
 *   hi-append   hiredis redisAppendCommand("SET %b %b") + redisGetReply + freeReplyObject
 *   hi-format   respgen's encoder into a buffer + redisAppendFormattedCommand + redisGetReply
 * and we print throughput, client CPU per command (getrusage: user + system of this process, and
 * the system part of it) and
 * heap allocations per command (bench/support/alloc_count.c), then ours against hiredis. The
 * server runs as another process: its CPU is not counted. */
#include "alloc_count.h"
#include "redis_client.h"

#include <hiredis/hiredis.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { KEYS = 10000, MAX_DEPTH = 1024, MAX_REPEATS = 15 };

typedef struct setup {
    int port;
    char keys[KEYS][16];
    rg_view key[KEYS];
    char value[33];
} setup;

typedef struct sample {
    size_t commands;     /* sent and answered */
    double secs, cpu_ns; /* wall seconds; client CPU ns per command */
    double sys_ns;       /* of which system time */
    double allocs;       /* per command */
} sample;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* User + system seconds of this process; *sys: the system part. */
static double cpu(double *sys) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    *sys = (double)u.ru_stime.tv_sec + (double)u.ru_stime.tv_usec / 1e6;
    return (double)u.ru_utime.tv_sec + (double)u.ru_utime.tv_usec / 1e6 + *sys;
}

/* ---- ours ----------------------------------------------------------------------------------- */

typedef struct ours {
    rg_conn c;
    int fd;
    char in[1 << 16];
    char out[1 << 20];
    rg_call calls[MAX_DEPTH + 8];
    union {
        redis_set_result set;
        redis_get_result get;
    } r[MAX_DEPTH];
} ours;

static int tcp(int port) {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const int one = 1;
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) return -1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

/* Writes the output, then reads until no call is pending. */
static int ours_round_trip(ours *o) {
    size_t n;
    const char *p;
    while ((p = rg_conn_output(&o->c, &n)) != NULL) {
        const ssize_t w = write(o->fd, p, n);
        if (w <= 0) return -1;
        rg_conn_written(&o->c, (size_t)w);
    }
    while (rg_conn_pending(&o->c)) {
        size_t room;
        char *in = rg_conn_read_buf(&o->c, &room);
        const ssize_t r = in ? read(o->fd, in, room) : -1;
        if (r <= 0 || rg_conn_feed(&o->c, (size_t)r) == RG_CONN_FAILED) return -1;
    }
    return 0;
}

/* The engine on a socket: one it opens (fd < 0) or one hiredis connected (docs/client.md, "for
 * hiredis users who keep their connection"): protocol 0, nothing sent before the calls. */
static int ours_open(ours *o, int port, int fd) {
    const rg_conn_config cfg = {.in = o->in,
                                .in_cap = sizeof o->in,
                                .out = o->out,
                                .out_cap = sizeof o->out,
                                .calls = o->calls,
                                .ncalls = MAX_DEPTH + 8,
                                .protocol = fd < 0 ? 2 : 0};
    o->fd = fd < 0 ? tcp(port) : fd;
    if (o->fd < 0 || rg_conn_init(&o->c, &cfg) != 0) return -1;
    return 0;
}

/* The guide's path, checked once: hiredis connects and writes, the engine takes over its socket
 * for typed replies. */
static int guide_check(const setup *s, int port) {
    static ours g;
    redisContext *h = redisConnect("127.0.0.1", port);
    redisReply *r = h && !h->err ? redisCommand(h, "SET guide %b", s->value, (size_t)32) : NULL;
    int st = r && r->type == REDIS_REPLY_STATUS ? 0 : -1;
    if (r) freeReplyObject(r);
    if (st == 0) st = ours_open(&g, port, h->fd);
    redis_get_result got;
    if (st == 0 && !redis_get_call(&g.c, RG_LIT("guide"), &got, NULL, NULL)) st = -1;
    if (st == 0) st = ours_round_trip(&g);
    if (st == 0 && (got.value.len != 32 || memcmp(got.value.ptr, s->value, 32) != 0)) st = -1;
    if (h) redisFree(h);
    return st;
}

/* (not inlined: callgrind --toggle-collect=ours_run counts ours alone, scripts/bench-split.sh) */
__attribute__((noinline)) static int ours_run(ours *o, const setup *s, bool set, size_t total,
                                              size_t depth) {
    size_t k = 0;
    for (size_t done = 0; done < total; done += depth) {
        for (size_t i = 0; i < depth; i++, k = k + 1 == KEYS ? 0 : k + 1) {
            const uint64_t id = set ? redis_set_call(&o->c, s->key[k], (rg_view){s->value, 32},
                                                     NULL, &o->r[i].set, NULL, NULL)
                                    : redis_get_call(&o->c, s->key[k], &o->r[i].get, NULL, NULL);
            if (!id) return -1;
        }
        if (ours_round_trip(o) != 0) return -1;
        /* The last reply is typed: "OK", or the 32-byte value. */
        if (set ? o->r[depth - 1].set.value.len != 2 : o->r[depth - 1].get.value.len != 32)
            return -1;
    }
    return 0;
}

/* ---- hiredis -------------------------------------------------------------------------------- */

static int hiredis_run(redisContext *c, const setup *s, bool set, size_t total, size_t depth,
                       bool formatted) {
    size_t k = 0;
    char buf[128];
    for (size_t done = 0; done < total; done += depth) {
        for (size_t i = 0; i < depth; i++, k = k + 1 == KEYS ? 0 : k + 1) {
            const rg_view key = s->key[k];
            int st;
            if (formatted) {
                const size_t n =
                    set ? redis_set_encode(buf, sizeof buf, key, (rg_view){s->value, 32}, NULL)
                        : redis_get_encode(buf, sizeof buf, key);
                st = redisAppendFormattedCommand(c, buf, n);
            } else if (set) {
                st = redisAppendCommand(c, "SET %b %b", key.ptr, key.len, s->value, (size_t)32);
            } else {
                st = redisAppendCommand(c, "GET %b", key.ptr, key.len);
            }
            if (st != REDIS_OK) return -1;
        }
        for (size_t i = 0; i < depth; i++) {
            redisReply *r = NULL;
            if (redisGetReply(c, (void **)&r) != REDIS_OK || !r) return -1;
            const bool ok = set ? r->type == REDIS_REPLY_STATUS : r->len == 32;
            freeReplyObject(r);
            if (!ok) return -1;
        }
    }
    return 0;
}

/* ---- the runs ------------------------------------------------------------------------------- */

enum { OURS, HI_APPEND, HI_FORMAT, CLIENTS };
static const char *const NAMES[CLIENTS] = {"ours", "hi-append", "hi-format"};

typedef struct clients {
    ours *o;
    redisContext *h;
} clients;

/* Loads of total commands until they took min_cpu seconds of client CPU (one at least). */
static int run(const clients *cl, const setup *s, int who, bool set, size_t total, size_t depth,
               double min_cpu, sample *out) {
    const uint64_t a0 = g_allocs;
    double s0, s1;
    const double c0 = cpu(&s0), t0 = now();
    size_t n = 0;
    int st = 0;
    g_count_allocs = 1;
    do {
        st = who == OURS ? ours_run(cl->o, s, set, total, depth)
                         : hiredis_run(cl->h, s, set, total, depth, who == HI_FORMAT);
        n += total;
    } while (st == 0 && cpu(&s1) - c0 < min_cpu);
    g_count_allocs = 0;
    out->secs = now() - t0;
    out->commands = n;
    out->cpu_ns = (cpu(&s1) - c0) * 1e9 / (double)n;
    out->sys_ns = (s1 - s0) * 1e9 / (double)n;
    out->allocs = (double)(g_allocs - a0) / (double)n;
    return st;
}

/* ---- the server ----------------------------------------------------------------------------- */

static int free_port(void) {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    int port = -1;
    if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
        getsockname(fd, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    if (fd >= 0) close(fd);
    return port;
}

static pid_t start_server(int port) {
    char p[16];
    snprintf(p, sizeof p, "%d", port);
    const pid_t pid = fork();
    if (pid == 0) {
        execlp("redis-server", "redis-server", "--port", p, "--bind", "127.0.0.1", "--save", "",
               "--appendonly", "no", "--logfile", "/dev/null", "--daemonize", "no", (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 250 && pid > 0; i++) {
        redisContext *c = redisConnect("127.0.0.1", port);
        redisReply *r = c && !c->err ? redisCommand(c, "PING") : NULL;
        const bool up = r != NULL;
        if (r) freeReplyObject(r);
        if (c) redisFree(c);
        if (up) return pid;
        usleep(20000);
    }
    if (pid > 0) kill(pid, SIGKILL);
    return -1;
}

static size_t parse_depths(const char *s, size_t *d, size_t max) {
    size_t n = 0;
    for (char *end; *s && n < max; s = *end ? end + 1 : end) {
        const unsigned long v = strtoul(s, &end, 10);
        if (v == 0 || v > MAX_DEPTH || end == s) return 0;
        d[n++] = v;
    }
    return n;
}

static int by_cpu(const void *a, const void *b) {
    const double x = ((const sample *)a)->cpu_ns, y = ((const sample *)b)->cpu_ns;
    return (x > y) - (x < y);
}

static int by_secs(const void *a, const void *b) {
    const double x = ((const sample *)a)->secs, y = ((const sample *)b)->secs;
    return (x > y) - (x < y);
}

/* The median repeat by CPU (with its system part), and the median wall time. */
static sample median(sample *s, size_t n) {
    qsort(s, n, sizeof *s, by_secs);
    const double secs = s[n / 2].secs;
    qsort(s, n, sizeof *s, by_cpu);
    sample m = s[n / 2];
    m.secs = secs;
    return m;
}

static void report(const char *cmd, size_t depth, sample r[CLIENTS]) {
    for (int w = 0; w < CLIENTS; w++) {
        const double rate = (double)r[w].commands / r[w].secs;
        printf("%-4s %5zu  %-10s %10.0f %10.0f %8.0f %8.2f %9zu", cmd, depth, NAMES[w], rate,
               r[w].cpu_ns, r[w].sys_ns, r[w].allocs, r[w].commands);
        if (w != OURS) {
            printf("   ours: %.2fx less CPU (user %.2fx), %.2fx throughput",
                   r[w].cpu_ns / r[OURS].cpu_ns,
                   (r[w].cpu_ns - r[w].sys_ns) / (r[OURS].cpu_ns - r[OURS].sys_ns),
                   (double)r[OURS].commands / r[OURS].secs / rate);
        }
        printf("\n");
    }
}

int main(int argc, char **argv) {
    size_t total = 1000000, depths[8] = {1, 16, 256}, ndepths = 3;
    int port = 0, opt, repeats = 3, only = -1, only_cmd = -1;
    double min_cpu = 0;
    while ((opt = getopt(argc, argv, "n:d:p:r:c:t:m:")) != -1) {
        if (opt == 't') only_cmd = strcmp(optarg, "set") == 0 ? 1 : strcmp(optarg, "get") ? 2 : 0;
        if (opt == 'm') min_cpu = strtod(optarg, NULL) / 1000;
        if (opt == 'n') total = strtoul(optarg, NULL, 10);
        if (opt == 'r') repeats = atoi(optarg) > 0 ? atoi(optarg) : 1;
        if (repeats > MAX_REPEATS) repeats = MAX_REPEATS;
        for (int w = 0; opt == 'c' && w < CLIENTS; w++)
            if (strcmp(optarg, NAMES[w]) == 0) only = w;
        if (opt == 'd') ndepths = parse_depths(optarg, depths, 8);
        if (opt == 'p') port = atoi(optarg);
        if (opt == '?' || total == 0 || ndepths == 0 || only_cmd == 2) {
            fprintf(stderr,
                    "usage: %s [-n N] [-d 1,16,256] [-p PORT] [-r R] [-c CLIENT] [-t set|get] "
                    "[-m MS]\n",
                    argv[0]);
            return 2;
        }
    }
    static setup s;
    memset(s.value, 'v', 32);
    for (size_t i = 0; i < KEYS; i++) {
        snprintf(s.keys[i], sizeof s.keys[i], "key:%06zu", i);
        s.key[i] = (rg_view){s.keys[i], strlen(s.keys[i])};
    }
    pid_t server = 0;
    if (!port) {
        port = free_port();
        server = start_server(port);
        if (server < 0) {
            fprintf(stderr, "bench_client: redis-server did not start\n");
            return 1;
        }
    }
    static ours o;
    clients cl = {&o, redisConnect("127.0.0.1", port)};
    int status = 0;
    if (ours_open(&o, port, -1) != 0 || !cl.h || cl.h->err || guide_check(&s, port) != 0) {
        fprintf(stderr, "bench_client: cannot connect\n");
        status = 1;
    }
    printf("%zu commands per row (repeated until %.0f ms of client CPU), median of %d, 32-byte "
           "values, %d keys; CPU = user + system of the client\n",
           total, min_cpu * 1000, repeats, KEYS);
    printf("%-4s %5s  %-10s %10s %10s %8s %8s %9s\n", "cmd", "depth", "client", "cmd/s",
           "CPU ns/cmd", "of: sys", "allocs", "commands");
    /* GET alone: its keys set first, by hiredis (a profile of ours_run sees GETs only) */
    if (status == 0 && only_cmd == 0 && hiredis_run(cl.h, &s, true, KEYS, 100, false) != 0) {
        fprintf(stderr, "bench_client: the keys were not set\n");
        status = 1;
    }
    for (int set = 1; set >= 0 && status == 0; set--) {
        if (only_cmd >= 0 && set != only_cmd) continue;
        for (size_t d = 0; d < ndepths && status == 0; d++) {
            sample r[CLIENTS] = {{0}}, all[CLIENTS][MAX_REPEATS];
            /* Repeats interleave the clients, so a noisy moment hits them alike. */
            for (int k = 0; k < repeats; k++) {
                for (int w = 0; w < CLIENTS && status == 0; w++) {
                    if (only >= 0 && w != only) continue;
                    if (run(&cl, &s, w, set, total, depths[d], min_cpu, &all[w][k]) != 0) {
                        fprintf(stderr, "bench_client: %s failed\n", NAMES[w]);
                        status = 1;
                    }
                }
            }
            for (int w = 0; w < CLIENTS && status == 0; w++)
                if (only < 0 || w == only) r[w] = median(all[w], (size_t)repeats);
            if (status == 0 && only < 0) report(set ? "SET" : "GET", depths[d], r);
        }
    }
    if (cl.h) redisFree(cl.h);
    if (o.fd >= 0) close(o.fd);
    if (server > 0) {
        kill(server, SIGTERM);
        waitpid(server, NULL, 0);
    }
    return status;
}
