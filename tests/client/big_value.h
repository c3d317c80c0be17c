/* The 64 MiB value of the big-reply integration tests (client_server.c, client_uv.c): bytes
 * with no period (a misplaced chunk of any size shows), stored on the server with one SET
 * written by the plain test connection (tests/support/test_redis.h), not by the client under
 * test. */
#ifndef RG_TEST_BIG_VALUE_H
#define RG_TEST_BIG_VALUE_H

#include "test_redis.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIG_VALUE_LEN ((size_t)64 << 20)

/* BIG_VALUE_LEN bytes (caller frees), or NULL. */
static inline char *big_value(void) {
    char *v = malloc(BIG_VALUE_LEN);
    uint64_t s = 0x2545f4914f6cdd1du;
    for (size_t i = 0; v && i < BIG_VALUE_LEN; i += 8) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        memcpy(v + i, &s, 8);
    }
    return v;
}

/* SET key v on the server at port. Returns 0 or -1. */
static inline int big_value_set(int port, const char *key, const char *v) {
    test_conn t;
    char head[96], reply[64];
    const int n = snprintf(head, sizeof head, "*3\r\n$3\r\nSET\r\n$%zu\r\n%s\r\n$%zu\r\n",
                           strlen(key), key, BIG_VALUE_LEN);
    if (test_conn_open(&t, port) != 0) return -1;
    const int rc = test_conn_send(&t, head, (size_t)n) || test_conn_send(&t, v, BIG_VALUE_LEN) ||
                   test_conn_send(&t, "\r\n", 2) || test_conn_reply(&t, reply, sizeof reply) ||
                   strcmp(reply, "+OK") != 0;
    test_conn_close(&t);
    return rc ? -1 : 0;
}

#endif
