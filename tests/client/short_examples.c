/* examples/short against a real redis-server: each app (respgen's short form, and hiredis's when
 * it was built) runs with the server's host and port, exits 0 and prints what it should: the
 * pipeline "1000 SETs and 1000 GETs pipelined, 0 wrong", Pub/Sub every message in order. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* popen */
#endif
#include "test_redis.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>

static int setup(void **state) {
    test_redis *s = calloc(1, sizeof *s);
    if (!s || test_redis_start(s, NULL) != 0) return -1;
    *state = s;
    return 0;
}

static int teardown(void **state) {
    test_redis_stop(*state);
    free(*state);
    return 0;
}

/* Runs app with host, port and extra (NULL: none); its standard output in out. Returns its exit
 * status. */
static int run(const char *app, int port, const char *extra, char *out, size_t cap) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' 127.0.0.1 %d %s", app, port, extra ? extra : "");
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    const size_t n = fread(out, 1, cap - 1, p);
    out[n] = '\0';
    const int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void pipeline(const char *app, int port) {
    static char out[4096];
    assert_int_equal(run(app, port, NULL, out, sizeof out), 0);
    assert_string_equal(out, "1000 SETs and 1000 GETs pipelined, 0 wrong\n");
}

static void pubsub(const char *app, int port) {
    static char out[1 << 16], want[1 << 16];
    size_t len = 0;
    for (int i = 0; i < 200; i++) len += (size_t)sprintf(want + len, "news message:%d\n", i);
    assert_int_equal(run(app, port, "200", out, sizeof out), 0);
    assert_string_equal(out, want);
}

static void respgen_short(void **state) {
    const test_redis *s = *state;
    pipeline(PIPELINE_RG, s->port);
    pubsub(PUBSUB_RG, s->port);
}

static void hiredis(void **state) {
#ifdef PIPELINE_HIREDIS
    const test_redis *s = *state;
    pipeline(PIPELINE_HIREDIS, s->port);
    pubsub(PUBSUB_HIREDIS, s->port);
#else
    (void)state;
    skip();
#endif
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(respgen_short),
        cmocka_unit_test(hiredis),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
