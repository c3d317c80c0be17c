/* respgen demo: a typed, pipelined session on the client respgen generated from
 * specs/example.lua (example_client.h: a call per command, its reply typed by example_reply.h)
 * over the blocking adapter. Six commands go out in one write; the replies come back typed (a
 * view for GET, an int64_t for INCRBY), and a client-side caching invalidation, pushed by the
 * server between two replies, goes to the push handler instead of a call.
 *
 * Usage: demo UNIX_SOCKET_PATH   (scripts/demo.sh starts a throwaway server and passes its path)
 */
#include "example_client.h"
#include "rg_blocking.h"

#include <stdio.h>

static void on_push(void *ud, const rg_push *p) {
    size_t at = 0;
    rg_view key;
    (void)ud;
    printf("  push between the replies: %s", rg_push_kind_name(p->kind));
    while (rg_push_keys_next(p, &at, &key)) printf(" \"%.*s\"", (int)key.len, key.ptr);
    printf("\n");
}

int main(int argc, char **argv) {
    static char in[1 << 16], out[1 << 16];
    static rg_call calls[64];
    const rg_conn_config cfg = {.in = in,
                                .in_cap = sizeof in,
                                .out = out,
                                .out_cap = sizeof out,
                                .calls = calls,
                                .ncalls = 64,
                                .on_push = on_push,
                                .protocol = 3};
    rg_bconn b;
    if (argc != 2) {
        fprintf(stderr, "usage: demo UNIX_SOCKET_PATH\n");
        return 1;
    }
    if (rg_bconn_connect_unix(&b, argv[1], &cfg, 1000, 5000) != RG_OK) {
        const rg_error e = rg_bconn_error(&b);
        fprintf(stderr, "demo: %s: %.*s\n", rg_status_name(e.status), (int)e.msg.len, e.msg.ptr);
        return 1;
    }
    /* ---- the user code: one pipeline of typed calls ---- */
    const rg_view tracking[] = {RG_LIT("CLIENT"), RG_LIT("TRACKING"), RG_LIT("on")};
    example_set_result set1, set2;
    example_get_result before, after;
    example_incrby_result visits;
    rg_call_record tracked = {0};
    rg_conn_call_argv(&b.conn, 3, tracking, NULL, NULL, rg_call_record_fn, &tracked);
    example_set_call(&b.conn, RG_LIT("greeting"), RG_LIT("hello"), NULL, &set1, NULL, NULL);
    example_get_call(&b.conn, RG_LIT("greeting"), &before, NULL, NULL); /* now cached: tracked */
    example_set_call(&b.conn, RG_LIT("greeting"), RG_LIT("bonjour"), NULL, &set2, NULL, NULL);
    example_incrby_call(&b.conn, RG_LIT("visits"), 5, &visits, NULL, NULL);
    const uint64_t last = example_get_call(&b.conn, RG_LIT("greeting"), &after, NULL, NULL);
    rg_conn_hold(&b.conn, true); /* every result's view stays valid until the end */
    printf("6 commands pipelined behind the HELLO 3, %zu bytes queued for the socket:\n",
           rg_conn_queued(&b.conn));
    if (rg_bconn_wait(&b, last) != RG_OK || tracked.status != RG_OK) {
        const rg_error e = rg_bconn_error(&b);
        fprintf(stderr, "demo: %s: %.*s %s\n", rg_status_name(e.status), (int)e.msg.len, e.msg.ptr,
                tracked.error);
        return 1;
    }
    printf("  SET greeting hello    -> %.*s\n", (int)set1.value.len, set1.value.ptr);
    printf("  GET greeting          -> \"%.*s\"\n", (int)before.value.len, before.value.ptr);
    printf("  SET greeting bonjour  -> %.*s\n", (int)set2.value.len, set2.value.ptr);
    printf("  INCRBY visits 5       -> (integer) %lld\n", (long long)visits.value);
    printf("  GET greeting          -> \"%.*s\"\n", (int)after.value.len, after.value.ptr);
    /* ---- end of the user code ---- */
    rg_bconn_close(&b);
    return 0;
}
