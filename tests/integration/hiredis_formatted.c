/* The README's claim that respgen pairs with hiredis: a generated encoder's output is one complete
 * RESP request, handed to redisAppendFormattedCommand as is, pipelined, and read back by hiredis
 * from a real redis-server with the values Redis computes. */
#include "example.h"
#include "test_redis.h"

#include <hiredis/hiredis.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#define V(s) ((rg_view){(s), sizeof(s) - 1})

static int setup(void **state) {
    static test_redis server;
    if (test_redis_start(&server, NULL) != 0) return -1;
    *state = &server;
    return 0;
}

static int teardown(void **state) {
    test_redis_stop(*state);
    return 0;
}

/* Appends n bytes an encoder wrote (0: it did not fit) to hiredis' output buffer. */
static void append(redisContext *c, const char *req, size_t n) {
    assert_true(n > 0);
    assert_int_equal(redisAppendFormattedCommand(c, req, n), REDIS_OK);
}

/* Reads the next reply and checks its type, and its integer or its text. */
static void expect(redisContext *c, int type, long long integer, const char *text) {
    redisReply *r = NULL;
    assert_int_equal(redisGetReply(c, (void **)&r), REDIS_OK);
    assert_non_null(r);
    assert_int_equal(r->type, type);
    if (type == REDIS_REPLY_INTEGER) assert_int_equal(r->integer, integer);
    if (text) assert_string_equal(r->str, text);
    freeReplyObject(r);
}

static void encoders_feed_redis_append_formatted_command(void **state) {
    const test_redis *server = *state;
    redisContext *c = redisConnect("127.0.0.1", server->port);
    assert_non_null(c);
    assert_int_equal(c->err, 0);

    char buf[512];
    const example_set_opts nx_ex = {
        .condition = EXAMPLE_SET_CONDITION_NX,
        .expiration = {.kind = EXAMPLE_SET_EXPIRATION_SECONDS, .seconds = 60}};
    append(c, buf, example_set_encode(buf, sizeof buf, V("hi:k"), V("v1"), NULL));
    append(c, buf, example_set_encode(buf, sizeof buf, V("hi:k"), V("v2"), &nx_ex));
    append(c, buf, example_get_encode(buf, sizeof buf, V("hi:k")));
    append(c, buf, example_incrby_encode(buf, sizeof buf, V("hi:n"), -42));
    const example_hset_data fields[] = {{V("a"), V("1")}, {V("b"), V("2")}};
    append(c, buf, example_hset_encode(buf, sizeof buf, V("hi:h"), fields, 2));
    const rg_view keys[] = {V("hi:k"), V("hi:n"), V("hi:h")};
    append(c, buf, example_del_encode(buf, sizeof buf, keys, 3));

    expect(c, REDIS_REPLY_STATUS, 0, "OK");
    expect(c, REDIS_REPLY_NIL, 0, NULL); /* NX: the key exists */
    expect(c, REDIS_REPLY_STRING, 0, "v1");
    expect(c, REDIS_REPLY_INTEGER, -42, NULL);
    expect(c, REDIS_REPLY_INTEGER, 2, NULL);
    expect(c, REDIS_REPLY_INTEGER, 3, NULL);
    redisFree(c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(encoders_feed_redis_append_formatted_command),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
