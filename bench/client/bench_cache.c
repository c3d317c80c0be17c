/* bench_cache: the client-side cache (runtime/rg_cache.h) against the server round trip it saves,
 * one redis-server, one process (the server's CPU not counted).
 *
 *   bench_cache [-n CALLS] [-r REPEATS]   calls per measure (default 100,000), repeats (5)
 *
 * It starts redis-server on a free loopback port, stores 1,000 keys of 32 bytes, and prints the
 * median of REPEATS measures of:
 * 1. one GET: the generated call through the cache when it hits (redis_get_cached, the result
 *    decoded from the stored reply), the same typed call to the server (redis_get_call, then
 *    rg_bconn_wait: a round trip), and hiredis' redisCommand GET (a round trip): wall ns per
 *    call, and the ratios;
 * 2. a 90/10 mix of GET and SET over the 1,000 keys (uniform), one connection, at pipeline
 *    depths 1 and 16 (rounds of DEPTH calls then a wait), with the cache on (reads through
 *    redis_get_cached; each SET invalidates its key) and off: thousands of operations a second,
 *    and the cache's hit rate. */
#include "redis_client.h"
#include "rg_blocking.h"

#include <arpa/inet.h>
#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { KEYS = 1000, MAX_DEPTH = 16, MAX_REPEATS = 32 };

typedef struct client {
    rg_bconn b;
    char in[1 << 16];
    char out[1 << 16];
    rg_call calls[256];
    redis_get_result r[MAX_DEPTH];
    rg_cache cache;
    char mem[4 << 20];
} client;

static char keys[KEYS][16];
static int port;
static pid_t server;
static char dir[64];

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int free_port(void) {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t n = sizeof a;
    int p = -1;
    if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
        getsockname(fd, (struct sockaddr *)&a, &n) == 0)
        p = ntohs(a.sin_port);
    if (fd >= 0) close(fd);
    return p;
}

static client *connect_client(bool cached, bool quiet) {
    client *c = calloc(1, sizeof *c);
    const rg_bconn_options opt = {.connect_ms = 2000, .io_ms = 5000};
    const rg_conn_config cfg = {.in = c->in,
                                .in_cap = sizeof c->in,
                                .out = c->out,
                                .out_cap = sizeof c->out,
                                .calls = c->calls,
                                .ncalls = 256,
                                .protocol = 3};
    if (rg_bconn_connect(&c->b, "127.0.0.1", port, &cfg, &opt) != RG_OK ||
        rg_bconn_wait(&c->b, 0) != RG_OK) {
        if (!quiet) fprintf(stderr, "connect: %s\n", rg_bconn_error(&c->b).msg.ptr);
        rg_bconn_close(&c->b);
        free(c);
        return NULL;
    }
    if (cached) {
        const rg_cache_config k = {.mem = c->mem, .mem_size = sizeof c->mem};
        if (rg_cache_init(&c->cache, &k) != RG_OK ||
            rg_cache_attach(&c->cache, &c->b.conn) != RG_OK)
            return NULL;
    }
    return c;
}

static void close_client(client *c) {
    rg_cache_free(&c->cache);
    rg_bconn_close(&c->b);
    free(c);
}

static int start_server(void) {
    snprintf(dir, sizeof dir, "/tmp/respgen-bench-cache-XXXXXX");
    if (!mkdtemp(dir)) return -1;
    for (int attempt = 0; attempt < 20; attempt++) {
        port = free_port();
        char p[16];
        snprintf(p, sizeof p, "%d", port);
        server = fork();
        if (server == 0) {
            execlp("redis-server", "redis-server", "--port", p, "--bind", "127.0.0.1", "--save", "",
                   "--appendonly", "no", "--dir", dir, "--logfile", "/dev/null", NULL);
            _exit(127);
        }
        for (int i = 0; i < 100; i++) {
            struct timespec ts = {0, 20000000};
            nanosleep(&ts, NULL);
            client *c = connect_client(false, true);
            if (c) {
                close_client(c);
                return 0;
            }
            int status;
            if (waitpid(server, &status, WNOHANG) == server) break;
        }
        kill(server, SIGKILL);
        waitpid(server, NULL, 0);
    }
    return -1;
}

static void stop_server(void) {
    kill(server, SIGTERM);
    waitpid(server, NULL, 0);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

static int fill(void) {
    client *c = connect_client(false, false);
    if (!c) return -1;
    uint64_t id = 0;
    for (int k = 0; k < KEYS; k++) {
        snprintf(keys[k], sizeof keys[k], "key:%d", k);
        id = redis_set_call(&c->b.conn, rg_cstr(keys[k]),
                            RG_LIT("vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"), NULL, NULL, NULL, NULL);
        if (!id || (k % 128 == 127 && rg_bconn_wait(&c->b, id) != RG_OK)) return -1;
    }
    const rg_status st = rg_bconn_wait(&c->b, id);
    close_client(c);
    return st == RG_OK ? 0 : -1;
}

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

/* ns per GET: through the cache (all hits after the first round), or to the server. */
static double get_ns(client *c, bool cached, size_t n) {
    volatile size_t sink = 0;
    const double t0 = now();
    for (size_t i = 0; i < n; i++) {
        const char *key = keys[i % 64]; /* 64 keys: always held once read */
        uint64_t id;
        if (cached) {
            id = redis_get_cached(&c->cache, rg_cstr(key), &c->r[0], NULL, NULL);
        } else {
            id = redis_get_call(&c->b.conn, rg_cstr(key), &c->r[0], NULL, NULL);
        }
        if (!id || (id != RG_CACHE_HIT && rg_bconn_wait(&c->b, id) != RG_OK)) return -1;
        sink += c->r[0].value.len;
    }
    const double ns = (now() - t0) * 1e9 / (double)n;
    return sink == 32 * n ? ns : -1;
}

static double hiredis_ns(redisContext *h, size_t n) {
    size_t sink = 0;
    const double t0 = now();
    for (size_t i = 0; i < n; i++) {
        redisReply *r = redisCommand(h, "GET %s", keys[i % 64]);
        if (!r) return -1;
        sink += r->len;
        freeReplyObject(r);
    }
    const double ns = (now() - t0) * 1e9 / (double)n;
    return sink == 32 * n ? ns : -1;
}

/* The 90/10 mix at depth: kops/s; *hit_rate the cache's hits per read. */
static double mix_kops(client *c, bool cached, size_t depth, size_t n, uint64_t *rng,
                       double *hit_rate) {
    size_t reads = 0;
    const rg_cache_stats s0 = cached ? rg_cache_stats_of(&c->cache) : (rg_cache_stats){0};
    const double t0 = now();
    for (size_t done = 0; done < n; done += depth) {
        uint64_t last = 0;
        for (size_t j = 0; j < depth; j++) {
            *rng ^= *rng << 13, *rng ^= *rng >> 7, *rng ^= *rng << 17;
            const char *key = keys[(*rng >> 8) % KEYS];
            uint64_t id;
            if (*rng % 10 == 0) {
                id = redis_set_call(&c->b.conn, rg_cstr(key),
                                    RG_LIT("wwwwwwwwwwwwwwwwwwwwwwwwwwwwwwww"), NULL, NULL, NULL,
                                    NULL);
            } else if (cached) {
                reads++;
                id = redis_get_cached(&c->cache, rg_cstr(key), &c->r[j], NULL, NULL);
            } else {
                reads++;
                id = redis_get_call(&c->b.conn, rg_cstr(key), &c->r[j], NULL, NULL);
            }
            if (!id) return -1;
            if (id != RG_CACHE_HIT) last = id;
        }
        if (last && rg_bconn_wait(&c->b, last) != RG_OK) return -1;
    }
    const double secs = now() - t0;
    if (cached) {
        const rg_cache_stats s = rg_cache_stats_of(&c->cache);
        *hit_rate = (double)(s.hits - s0.hits) / (double)reads;
    }
    return (double)n / secs / 1e3;
}

int main(int argc, char **argv) {
    size_t n = 100000;
    int repeats = 5;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "-n") == 0) n = (size_t)atol(argv[i + 1]);
        if (strcmp(argv[i], "-r") == 0) repeats = atoi(argv[i + 1]);
    }
    if (repeats < 1 || repeats > MAX_REPEATS || n < 100) return 2;
    if (start_server() != 0 || fill() != 0) {
        fprintf(stderr, "bench_cache: setup failed (redis-server?)\n");
        return 1;
    }
    client *c = connect_client(true, false), *plain = connect_client(false, false);
    redisContext *h = redisConnect("127.0.0.1", port);
    if (!c || !plain || !h || h->err) return 1;
    double hit[MAX_REPEATS], trip[MAX_REPEATS], hi[MAX_REPEATS];
    get_ns(c, true, 64); /* the first reads fill it */
    for (int r = 0; r < repeats; r++) {
        hit[r] = get_ns(c, true, n);
        trip[r] = get_ns(plain, false, n / 20);
        hi[r] = hiredis_ns(h, n / 20);
        if (hit[r] < 0 || trip[r] < 0 || hi[r] < 0) return 1;
    }
    const double mh = median(hit, repeats), mt = median(trip, repeats), mhi = median(hi, repeats);
    printf("GET of a 32-byte value, wall ns per call, median of %d\n", repeats);
    printf("  cache hit (redis_get_cached)          %10.1f\n", mh);
    printf("  round trip (redis_get_call + wait)    %10.1f   %7.0fx the hit\n", mt, mt / mh);
    printf("  hiredis redisCommand GET              %10.1f   %7.0fx the hit\n", mhi, mhi / mh);
    printf("  hits %llu, misses %llu\n", (unsigned long long)rg_cache_stats_of(&c->cache).hits,
           (unsigned long long)rg_cache_stats_of(&c->cache).misses);

    printf("90%% GET / 10%% SET over %d keys, one connection, kops/s, median of %d\n", KEYS,
           repeats);
    printf("%6s | %10s %10s %7s | %8s\n", "depth", "cache off", "cache on", "ratio", "hit rate");
    const size_t depths[] = {1, MAX_DEPTH};
    for (size_t d = 0; d < 2; d++) {
        double off[MAX_REPEATS], on[MAX_REPEATS], rate[MAX_REPEATS];
        uint64_t rng = 88172645463325252u;
        const size_t ops = n / (depths[d] == 1 ? 20 : 4);
        mix_kops(c, true, depths[d], ops, &rng, &rate[0]); /* warm the cache */
        for (int r = 0; r < repeats; r++) {
            off[r] = mix_kops(plain, false, depths[d], ops, &rng, NULL);
            on[r] = mix_kops(c, true, depths[d], ops, &rng, &rate[r]);
            if (off[r] < 0 || on[r] < 0) return 1;
        }
        const double moff = median(off, repeats), mon = median(on, repeats);
        printf("%6zu | %10.1f %10.1f %6.2fx | %7.1f%%\n", depths[d], moff, mon, mon / moff,
               100 * median(rate, repeats));
    }
    redisFree(h);
    close_client(c);
    close_client(plain);
    stop_server();
    return 0;
}
