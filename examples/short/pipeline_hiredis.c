/* The trial's blocking pipeline on hiredis: 1000 SETs pipelined, then 1000 GETs whose replies
 * are checked. Usage: pipeline_hiredis [HOST [PORT]] */
#include <hiredis/hiredis.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 1000 };

int main(int argc, char **argv) {
    redisContext *c =
        redisConnect(argc > 1 ? argv[1] : "127.0.0.1", argc > 2 ? atoi(argv[2]) : 6379);
    if (!c || c->err) {
        fprintf(stderr, "connect: %s\n", c ? c->errstr : "out of memory");
        return 1;
    }
    for (int i = 0; i < N; i++) redisAppendCommand(c, "SET key:%d value:%d", i, i);
    for (int i = 0; i < N; i++) redisAppendCommand(c, "GET key:%d", i);
    int bad = 0;
    for (int i = 0; i < 2 * N; i++) {
        redisReply *r;
        if (redisGetReply(c, (void **)&r) != REDIS_OK) return 1;
        if (i >= N) {
            char value[32];
            snprintf(value, sizeof value, "value:%d", i - N);
            bad += r->type != REDIS_REPLY_STRING || strcmp(r->str, value) != 0;
        }
        freeReplyObject(r);
    }
    printf("%d SETs and %d GETs pipelined, %d wrong\n", N, N, bad);
    redisFree(c);
    return bad != 0;
}
