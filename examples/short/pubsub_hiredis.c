/* The trial's Pub/Sub on hiredis: one connection subscribes, a second publishes N messages, the
 * first prints them as they arrive. Usage: pubsub_hiredis [HOST [PORT [N]]] */
#include <hiredis/hiredis.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    const char *host = argc > 1 ? argv[1] : "127.0.0.1";
    const int port = argc > 2 ? atoi(argv[2]) : 6379, n = argc > 3 ? atoi(argv[3]) : 10;
    redisContext *sub = redisConnect(host, port), *pub = redisConnect(host, port);
    if (!sub || sub->err || !pub || pub->err) {
        fprintf(stderr, "cannot connect to %s:%d\n", host, port);
        return 1;
    }
    redisReply *r = redisCommand(sub, "SUBSCRIBE news");
    if (!r) return 1;
    freeReplyObject(r);
    for (int i = 0; i < n; i++) {
        r = redisCommand(pub, "PUBLISH news message:%d", i);
        if (!r) return 1;
        freeReplyObject(r);
    }
    int received = 0;
    while (received < n && redisGetReply(sub, (void **)&r) == REDIS_OK) {
        if (r->type == REDIS_REPLY_ARRAY && r->elements == 3 &&
            !strcmp(r->element[0]->str, "message")) {
            printf("%s %s\n", r->element[1]->str, r->element[2]->str);
            received++;
        }
        freeReplyObject(r);
    }
    redisFree(sub);
    redisFree(pub);
    return received != n;
}
