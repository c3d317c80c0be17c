/* bench_exec: the engine's transaction path without a server, for instruction counts.
 *
 *   bench_exec [TRANSACTIONS]     default 10000
 *
 * Each transaction is MULTI, SET, GET x 10, EXEC through the generated calls (typed results for
 * SET and the GETs, none for EXEC), its requests taken as written, and then the replies a
 * redis-server sends (+OK, 11 x +QUEUED, *11 [+OK, 10 x 32-byte bulks]) fed in one piece. Every
 * completion is checked. One warm-up transaction, then the rest in cg_region: run under
 *   valgrind --tool=callgrind --collect-atstart=no --toggle-collect=cg_region bench_exec N
 * and divide the collected Ir by N for instructions per transaction. */
#include "redis_client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { GETS = 10 };

typedef struct bench {
    rg_conn c;
    char in[1 << 14], out[1 << 14];
    rg_call calls[64];
    char reply[1024];
    size_t reply_len;
    redis_set_result set;
    redis_get_result get[GETS];
    size_t ok, bad;
} bench;

static void done(void *ud, const rg_call_done *d) {
    bench *b = ud;
    *(d->status == RG_OK ? &b->ok : &b->bad) += 1;
}

static void build_reply(bench *b) {
    char *p = b->reply;
    p += sprintf(p, "+OK\r\n");
    for (int i = 0; i < GETS + 1; i++) p += sprintf(p, "+QUEUED\r\n");
    p += sprintf(p, "*%d\r\n+OK\r\n", GETS + 1);
    for (int i = 0; i < GETS; i++) p += sprintf(p, "$32\r\n%032d\r\n", i);
    b->reply_len = (size_t)(p - b->reply);
}

static int transaction(bench *b) {
    const rg_view key = RG_LIT("key:000001"), value = RG_LIT("vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv");
    int ok = redis_multi_call(&b->c, NULL, done, b) != 0;
    ok = ok && redis_set_call(&b->c, key, value, NULL, &b->set, done, b) != 0;
    for (int i = 0; i < GETS; i++) ok = ok && redis_get_call(&b->c, key, &b->get[i], done, b);
    ok = ok && redis_exec_call(&b->c, NULL, done, b) != 0;
    size_t n;
    if (!ok || !rg_conn_output(&b->c, &n)) return -1;
    rg_conn_written(&b->c, n);
    rg_conn_state st;
    if (rg_conn_feed_copy(&b->c, b->reply, b->reply_len, &st) != b->reply_len) return -1;
    return st == RG_CONN_READY && rg_conn_pending(&b->c) == 0 ? 0 : -1;
}

__attribute__((noinline)) int cg_region(bench *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (transaction(b) != 0) return -1;
    return 0;
}

int main(int argc, char **argv) {
    const size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 10000;
    static bench b;
    const rg_conn_config cfg = {.in = b.in,
                                .in_cap = sizeof b.in,
                                .out = b.out,
                                .out_cap = sizeof b.out,
                                .calls = b.calls,
                                .ncalls = 64,
                                .protocol = 0};
    build_reply(&b);
    if (rg_conn_init(&b.c, &cfg) != RG_OK || transaction(&b) != 0 || cg_region(&b, n) != 0) {
        fprintf(stderr, "bench_exec: a transaction failed\n");
        return 1;
    }
    const size_t want = (n + 1) * (GETS + 3);
    for (int i = 0; i < GETS; i++)
        if (b.get[i].value.len != 32) b.bad++;
    printf("transactions %zu completions %zu bad %zu\n", n + 1, b.ok, b.bad);
    return b.ok == want && b.bad == 0 ? 0 : 1;
}
