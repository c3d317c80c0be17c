/* Dispatch generated from specs/redis.lua (every Redis command) against a real redis-server:
 * for every command the server knows, a request with one word too few (or, for exact arities,
 * one too many) gets the same arity error text from redis_srv_parse as from the server; unknown
 * commands and subcommands get the same texts too. Lookup is checked for every name in three
 * letter cases. */
#include "redis_server.h"
#include "test_redis.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

static void test_lookup_all_names(void **state) {
    (void)state;
    for (int id = 1; id < REDIS_SRV_NCMDS; id++) {
        const char *name = redis_srv_commands[id].name;
        if (strchr(name, '|')) continue;
        char up[64], mixed[64];
        const size_t n = strlen(name);
        for (size_t i = 0; i <= n; i++) {
            const char c = name[i];
            up[i] = c >= 'a' && c <= 'z' ? (char)(c - 32) : c;
            mixed[i] = i % 2 ? up[i] : c;
        }
        assert_int_equal(redis_srv_lookup(name, n), id);
        assert_int_equal(redis_srv_lookup_switch(up, n), id);
        assert_int_equal(redis_srv_lookup_hash(mixed, n), id);
    }
    assert_int_equal(redis_srv_lookup("getx", 4), REDIS_SRV_NONE);
    assert_int_equal(redis_srv_lookup_hash("getx", 4), REDIS_SRV_NONE);
    assert_int_equal(redis_srv_lookup("", 0), REDIS_SRV_NONE);
}

/* The words of command id: its name split at '|', then dummy arguments up to argc. */
static size_t words_of(int id, size_t argc, const char **argv, char *store) {
    snprintf(store, 64, "%s", redis_srv_commands[id].name);
    size_t n = 0;
    argv[n++] = store;
    char *bar = strchr(store, '|');
    if (bar) {
        *bar = '\0';
        argv[n++] = bar + 1;
    }
    while (n < argc && n < 16) argv[n++] = "1";
    return n;
}

/* Commands never sent: if this Redis' arity differed from the spec's, they would run. */
static bool unsafe(const char *name) {
    static const char *const deny[] = {"shutdown",  "debug",      "monitor",    "sync",
                                       "psync",     "replicaof",  "slaveof",    "failover",
                                       "subscribe", "psubscribe", "ssubscribe", "multi"};
    for (size_t i = 0; i < sizeof deny / sizeof deny[0]; i++) {
        if (strncmp(name, deny[i], strlen(deny[i])) == 0) return true;
    }
    return false;
}

/* The server lives in setup/teardown so that a failed assertion still stops it. */
static int start_server(void **state) {
    static test_redis srv;
    if (test_redis_start(&srv, NULL) != 0) return -1;
    *state = &srv;
    return 0;
}

static int stop_server(void **state) {
    test_redis_stop(*state);
    return 0;
}

static void test_arity_vs_redis(void **state) {
    const test_redis srv = *(const test_redis *)*state;
    size_t compared = 0, disagree = 0;
    for (int id = 1; id < REDIS_SRV_NCMDS; id++) {
        const int arity = redis_srv_commands[id].arity;
        const size_t words = strchr(redis_srv_commands[id].name, '|') ? 2 : 1;
        /* a count the arity rejects and that still names the command */
        const size_t argc = arity > 0 ? (size_t)arity + 1 : (size_t)-arity - 1;
        if (arity == 0 || argc < words || argc > 16 || unsafe(redis_srv_commands[id].name)) {
            continue;
        }
        const char *argv[16];
        char store[64];
        const size_t n = words_of(id, argc, argv, store);
        char got[512];
        test_conn c; /* one per command: whatever a command did stays with its connection */
        assert_int_equal(test_conn_open(&c, srv.port), 0);
        assert_int_equal(test_conn_command(&c, got, sizeof got, n, argv), 0);
        test_conn_close(&c);
        rg_view views[16];
        for (size_t i = 0; i < n; i++) views[i] = (rg_view){argv[i], strlen(argv[i])};
        redis_srv_args args;
        rg_errbuf err;
        assert_int_equal(redis_srv_parse(n, views, &args, &err), REDIS_SRV_NONE);
        /* commands or arities of the spec's source (Valkey) that this Redis does not share */
        if (strncmp(got, "-ERR wrong number", 17) != 0) {
            disagree++;
            continue;
        }
        char want[520];
        snprintf(want, sizeof want, "-%s", err.text);
        if (strcmp(got, want) != 0) print_error("%s\n", redis_srv_commands[id].name);
        assert_string_equal(want, got);
        compared++;
    }
    print_message("arity errors identical for %zu commands (%zu unknown to this Redis or with "
                  "another arity)\n",
                  compared, disagree);
    assert_true(compared > 200);
    test_conn c;
    assert_int_equal(test_conn_open(&c, srv.port), 0);
    static const char *const unknown[][4] = {
        {"NOSUCH", "a", "b", NULL},
        {"CLIENT", "NOSUCH", NULL, NULL},
        {"COMMAND", "nosuch", "x", NULL},
        {"CONFIG", NULL, NULL, NULL},
    };
    for (size_t k = 0; k < sizeof unknown / sizeof unknown[0]; k++) {
        size_t n = 0;
        rg_view views[4];
        while (n < 4 && unknown[k][n]) {
            views[n] = (rg_view){unknown[k][n], strlen(unknown[k][n])};
            n++;
        }
        char got[512], want[520];
        assert_int_equal(test_conn_command(&c, got, sizeof got, n, unknown[k]), 0);
        redis_srv_args args;
        rg_errbuf err;
        assert_int_equal(redis_srv_parse(n, views, &args, &err), REDIS_SRV_NONE);
        snprintf(want, sizeof want, "-%s", err.text);
        assert_string_equal(want, got);
    }
    test_conn_close(&c);
}

/* Reply encoders generated from reply schemas: exact sizes and Redis' forms. */
static void test_reply_encoders(void **state) {
    (void)state;
    char b[128];
    const rg_view v = RG_LIT("abc"), none = {NULL, 0};
    for (int proto = 2; proto <= 3; proto++) {
        assert_int_equal((size_t)(redis_srv_get_reply(b, proto, v) - b),
                         redis_srv_get_reply_size(proto, v));
        const char *end = redis_srv_get_reply(b, proto, none);
        assert_int_equal((size_t)(end - b), redis_srv_get_reply_size(proto, none));
        assert_memory_equal(b, proto == 2 ? "$-1\r\n" : "_\r\n", (size_t)(end - b));
        const rg_view items[] = {v, none};
        assert_int_equal((size_t)(redis_srv_mget_reply(b, proto, 2, items) - b),
                         redis_srv_mget_reply_size(proto, 2, items));
    }
    const char *end = redis_srv_get_reply(b, 2, v);
    assert_memory_equal(b, "$3\r\nabc\r\n", (size_t)(end - b));
    end = redis_srv_incr_reply(b, -7);
    assert_int_equal((size_t)(end - b), redis_srv_incr_reply_size(-7));
    assert_memory_equal(b, ":-7\r\n", 5);
    assert_string_equal(REDIS_SRV_MSET_REPLY, "+OK\r\n");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lookup_all_names),
        cmocka_unit_test_setup_teardown(test_arity_vs_redis, start_server, stop_server),
        cmocka_unit_test(test_reply_encoders),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
