/* The trial's Pub/Sub on respgen's short form: one connection subscribes, a second publishes N
 * messages, the first prints them as they arrive. Usage: pubsub_rg [HOST [PORT [N]]] */
#include "redis_client.h"
#include "rg_blocking.h"

#include <stdio.h>
#include <stdlib.h>

static void on_message(void *received, const rg_push *p) {
    if (p->kind != RG_PUSH_MESSAGE) return;
    printf("%.*s %.*s\n", (int)p->channel.len, p->channel.ptr, (int)p->payload.len, p->payload.ptr);
    ++*(int *)received;
}

int main(int argc, char **argv) {
    const char *host = argc > 1 ? argv[1] : "127.0.0.1";
    const int port = argc > 2 ? atoi(argv[2]) : 6379, n = argc > 3 ? atoi(argv[3]) : 10;
    rg_bconn *sub = rg_bconn_open(host, port, NULL), *pub = rg_bconn_open(host, port, NULL);
    if (rg_bconn_error(sub).status != RG_OK || rg_bconn_error(pub).status != RG_OK) {
        fprintf(stderr, "cannot connect to %s:%d\n", host, port);
        return 1;
    }
    int received = 0;
    rg_conn_on_push(&sub->conn, on_message, &received);
    const rg_view ch = RG_LIT("news");
    if (rg_bconn_wait(sub, redis_subscribe_call(&sub->conn, &ch, 1, NULL, NULL, NULL))) return 1;
    for (int i = 0; i < n; i++) {
        char message[32];
        snprintf(message, sizeof message, "message:%d", i);
        redis_publish_call(&pub->conn, ch, rg_cstr(message), NULL, NULL, NULL);
    }
    if (rg_bconn_wait(pub, 0) != RG_OK) return 1;
    while (received < n && rg_bconn_poll(sub, 1000) == RG_OK) continue;
    rg_bconn_free(sub);
    rg_bconn_free(pub);
    return received != n;
}
