/* The trial's blocking pipeline on respgen's short form: 1000 SETs pipelined, then 1000 GETs
 * whose typed results are checked. Usage: pipeline_rg [HOST [PORT]] */
#include "redis_client.h"
#include "rg_blocking.h"

#include <stdio.h>
#include <stdlib.h>

enum { N = 1000 };

int main(int argc, char **argv) {
    rg_bconn *b =
        rg_bconn_open(argc > 1 ? argv[1] : "127.0.0.1", argc > 2 ? atoi(argv[2]) : 6379, NULL);
    if (rg_bconn_error(b).status != RG_OK) {
        fprintf(stderr, "connect: %s\n", rg_bconn_error(b).msg.ptr);
        return 1;
    }
    /* requests copy their arguments when queued; the results are read after the wait */
    static char key[N][16], value[N][16];
    static redis_get_result got[N];
    for (int i = 0; i < N; i++) {
        snprintf(key[i], sizeof key[i], "key:%d", i);
        snprintf(value[i], sizeof value[i], "value:%d", i);
        redis_set_call(&b->conn, rg_cstr(key[i]), rg_cstr(value[i]), NULL, NULL, NULL, NULL);
    }
    for (int i = 0; i < N; i++) redis_get_call(&b->conn, rg_cstr(key[i]), &got[i], NULL, NULL);
    rg_conn_hold(&b->conn, true); /* the results' views stay valid until the end */
    if (rg_bconn_wait(b, 0) != RG_OK) return 1;
    int bad = 0;
    for (int i = 0; i < N; i++) bad += !rg_view_eq(got[i].value, rg_cstr(value[i]));
    printf("%d SETs and %d GETs pipelined, %d wrong\n", N, N, bad);
    rg_bconn_free(b);
    return bad != 0;
}
