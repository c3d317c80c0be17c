/* Dispatch generated from specs/redis.lua (every Redis command) against a real redis-server:
 * for every command the server knows, a request with one word too few (or, for exact arities,
 * one too many) gets the same arity error text from redis_srv_parse as from the server; unknown
 * commands and subcommands get the same texts too. Lookup is checked for every name in three
 * letter cases. */
#include "redis_server.h"
#include "rg_enc.h"
#include "test_redis.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

/* Whether the server's name ("client|kill") is the command list's ("CLIENT KILL"). */
static bool same_name(const char *srv, const char *name) {
    for (; *srv && *name; srv++, name++) {
        const char want = *name == ' ' ? '|' : (*name >= 'A' && *name <= 'Z' ? *name + 32 : *name);
        if (*srv != want) return false;
    }
    return *srv == *name;
}

/* The ids come from the one command list (REDIS_COMMANDS, redis.h): each names its command. */
static void test_ids_from_command_list(void **state) {
    (void)state;
    assert_true(REDIS_SRV_NCMDS > REDIS_NCOMMANDS); /* NONE and the containers besides */
#define NAMED(id, ID, cmd_name, cmd_arity, flags)                              \
    assert_true(same_name(redis_srv_commands[REDIS_SRV_##ID].name, cmd_name)); \
    assert_int_equal(redis_srv_commands[REDIS_SRV_##ID].arity, cmd_arity);
    REDIS_COMMANDS(NAMED)
#undef NAMED
}

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
        /* the same text through the getter, found at the command or the subcommand */
        const rg_error e = rg_args_error(&err);
        assert_int_equal(e.status, RG_INVALID);
        assert_int_equal(e.msg.len, strlen(err.text));
        assert_int_equal(e.offset, k == 1 || k == 2 ? 1 : 0);
    }
    test_conn_close(&c);
}

/* A reply's bytes on one line for failure messages: CR, LF and NUL shown as '.'. */
static void show(const char *what, const char *p, size_t n) {
    char line[640];
    size_t i = 0;
    for (; i < n && i + 1 < sizeof line; i++)
        line[i] = p[i] == '\r' || p[i] == '\n' || !p[i] ? '.' : p[i];
    line[i] = '\0';
    print_error("%s: %s\n", what, line);
}

/* Words quoted in error texts stop at their first NUL, as Redis formats them with %s (names,
 * arguments, subcommands, an option's own text): each request goes to the server and through
 * redis_srv_parse, and the error replies must be the same bytes. */
static void test_nul_in_errors_vs_redis(void **state) {
    const test_redis srv = *(const test_redis *)*state;
#define W(s) \
    { s, sizeof s - 1 }
    char nul_early[100], plain[200];
    memset(nul_early, 'a', sizeof nul_early);
    nul_early[10] = '\0';
    memset(plain, 'b', sizeof plain);
    const rg_view cases[][4] = {
        {W("P\0")},
        {W("NO\0SUCH"), W("a\0b"), W("c")},
        {W("NOSUCH"), W("\0a")},
        /* the 128 bytes of arguments Redis quotes count what %.*s wrote, not the word */
        {W("NOSUCH"), {nul_early, sizeof nul_early}, {plain, sizeof plain}},
        {W("CLIENT"), W("NO\0SUCH")},
        {W("EXPIRE"), W("k"), W("10"), W("N\0X")},
        {W("FUNCTION"), W("LIST"), W("X\0Y")},
    };
#undef W
    test_conn c;
    assert_int_equal(test_conn_open(&c, srv.port), 0);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        size_t n = 0;
        while (n < 4 && cases[k][n].ptr) n++;
        char req[1024], got[1024];
        const size_t size = rg_argv_size(n, cases[k]);
        assert_int_equal(rg_argv_encode(req, sizeof req, n, cases[k]), size);
        assert_int_equal(test_conn_send(&c, req, size), 0);
        size_t got_len;
        assert_int_equal(test_conn_reply_raw(&c, got, sizeof got, &got_len), 0);
        redis_srv_args args;
        rg_errbuf err;
        assert_int_equal(redis_srv_parse(n, cases[k], &args, &err), REDIS_SRV_NONE);
        const rg_error e = rg_args_error(&err);
        char want[1024];
        want[0] = '-';
        memcpy(want + 1, e.msg.ptr, e.msg.len);
        memcpy(want + 1 + e.msg.len, "\r\n", 2);
        const size_t want_len = e.msg.len + 3;
        if (got_len != want_len || memcmp(got, want, got_len) != 0) {
            show("redis", got, got_len);
            show("ours ", want, want_len);
            fail_msg("case %zu: error texts differ", k);
        }
        assert_int_equal(e.msg.len, strlen(e.msg.ptr));
    }
    test_conn_close(&c);
}

/* Reply encoders generated from reply schemas: exact sizes and Redis' forms. */
/* rg_args_parse's status and where its error was found: the word that is no number, with SET's
 * late numbers too. */
static void test_args_error(void **state) {
    (void)state;
    static const struct {
        const char *words[6];
        size_t at;
    } cases[] = {
        {{"SET", "k", "v", "EX", "abc", NULL}, 4},
        {{"EXPIRE", "k", "abc", NULL}, 2},
        {{"GET", "k", NULL}, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rg_view views[6];
        size_t n = 0;
        for (; cases[i].words[n]; n++)
            views[n] = (rg_view){cases[i].words[n], strlen(cases[i].words[n])};
        redis_srv_args args;
        rg_errbuf err = {0};
        const redis_srv_cmd id = redis_srv_parse(n, views, &args, &err);
        const rg_error e = rg_args_error(&err);
        if (cases[i].at == 0) {
            assert_int_not_equal(id, REDIS_SRV_NONE);
            assert_int_equal(e.status, RG_OK);
            assert_null(e.msg.ptr);
            continue;
        }
        assert_int_equal(id, REDIS_SRV_NONE);
        assert_int_equal(e.status, RG_INVALID);
        assert_true(e.msg.len > 0);
        assert_int_equal(e.offset, cases[i].at);
    }
}

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

/* A reply written by a generated encoder: its size function's answer must be what it wrote, and
 * the bytes those of want (RESP2 or RESP3, by proto). */
#define WROTE(proto, call, size, want2, want3)                \
    do {                                                      \
        char *end_ = (call);                                  \
        const char *want_ = (proto) == 2 ? (want2) : (want3); \
        assert_int_equal((size_t)(end_ - b), (size));         \
        assert_int_equal((size_t)(end_ - b), strlen(want_));  \
        assert_memory_equal(b, want_, strlen(want_));         \
    } while (0)

/* The shapes beyond a plain integer, bulk or array of bulks, byte for byte in both versions. */
static void test_reply_shapes(void **state) {
    (void)state;
    char b[256];
    const rg_view kv[] = {RG_LIT("f"), RG_LIT("v"), RG_LIT("g"), RG_LIT("w")};
    const int64_t used = 72, ints[] = {1, 0, -3};
    const double scores[] = {1.5, NAN};
    for (int p = 2; p <= 3; p++) {
        WROTE(p, redis_srv_expire_reply(b, true), redis_srv_expire_reply_size(true), ":1\r\n",
              ":1\r\n");
        WROTE(p, redis_srv_hsetnx_reply(b, false), redis_srv_hsetnx_reply_size(false), ":0\r\n",
              ":0\r\n");
        WROTE(p, redis_srv_ttl_reply(b, -2), redis_srv_ttl_reply_size(-2), ":-2\r\n", ":-2\r\n");
        WROTE(p, redis_srv_memory_usage_reply(b, p, &used),
              redis_srv_memory_usage_reply_size(p, &used), ":72\r\n", ":72\r\n");
        WROTE(p, redis_srv_memory_usage_reply(b, p, NULL),
              redis_srv_memory_usage_reply_size(p, NULL), "$-1\r\n", "_\r\n");
        WROTE(p, redis_srv_zscore_reply(b, p, 1.5), redis_srv_zscore_reply_size(p, 1.5),
              "$3\r\n1.5\r\n", ",1.5\r\n");
        WROTE(p, redis_srv_zscore_reply(b, p, NAN), redis_srv_zscore_reply_size(p, NAN), "$-1\r\n",
              "_\r\n");
        WROTE(p, redis_srv_zmscore_reply(b, p, 2, scores),
              redis_srv_zmscore_reply_size(p, 2, scores), "*2\r\n$3\r\n1.5\r\n$-1\r\n",
              "*2\r\n,1.5\r\n_\r\n");
        WROTE(p, redis_srv_smismember_reply(b, 3, ints), redis_srv_smismember_reply_size(3, ints),
              "*3\r\n:1\r\n:0\r\n:-3\r\n", "*3\r\n:1\r\n:0\r\n:-3\r\n");
        WROTE(p, redis_srv_hgetall_reply(b, p, 2, kv), redis_srv_hgetall_reply_size(p, 2, kv),
              "*4\r\n$1\r\nf\r\n$1\r\nv\r\n$1\r\ng\r\n$1\r\nw\r\n",
              "%2\r\n$1\r\nf\r\n$1\r\nv\r\n$1\r\ng\r\n$1\r\nw\r\n");
        WROTE(p, redis_srv_hgetall_reply(b, p, 0, kv), redis_srv_hgetall_reply_size(p, 0, kv),
              "*0\r\n", "%0\r\n");
        WROTE(p, redis_srv_smembers_reply(b, p, 2, kv), redis_srv_smembers_reply_size(p, 2, kv),
              "*2\r\n$1\r\nf\r\n$1\r\nv\r\n", "~2\r\n$1\r\nf\r\n$1\r\nv\r\n");
        /* HKEYS' schema has uniqueItems too, but Redis sends an array in RESP3 */
        WROTE(p, redis_srv_hkeys_reply(b, p, 1, kv), redis_srv_hkeys_reply_size(p, 1, kv),
              "*1\r\n$1\r\nf\r\n", "*1\r\n$1\r\nf\r\n");
        WROTE(p, redis_srv_sscan_reply(b, RG_LIT("17"), 1, kv),
              redis_srv_sscan_reply_size(RG_LIT("17"), 1, kv),
              "*2\r\n$2\r\n17\r\n*1\r\n$1\r\nf\r\n", "*2\r\n$2\r\n17\r\n*1\r\n$1\r\nf\r\n");
        WROTE(p, redis_srv_blpop_reply(b, p, kv[0], kv[1]),
              redis_srv_blpop_reply_size(p, kv[0], kv[1]), "*2\r\n$1\r\nf\r\n$1\r\nv\r\n",
              "*2\r\n$1\r\nf\r\n$1\r\nv\r\n");
        const rg_view none = {NULL, 0};
        WROTE(p, redis_srv_blpop_reply(b, p, none, none), redis_srv_blpop_reply_size(p, none, none),
              "*-1\r\n", "_\r\n");
        WROTE(p, redis_srv_sentinel_get_master_addr_by_name_reply(b, p, kv[0], RG_LIT("6379")),
              redis_srv_sentinel_get_master_addr_by_name_reply_size(p, kv[0], RG_LIT("6379")),
              "*2\r\n$1\r\nf\r\n$4\r\n6379\r\n", "*2\r\n$1\r\nf\r\n$4\r\n6379\r\n");
        /* A master Sentinel does not monitor: null (the overlay's reply correction). */
        WROTE(p, redis_srv_sentinel_get_master_addr_by_name_reply(b, p, none, none),
              redis_srv_sentinel_get_master_addr_by_name_reply_size(p, none, none), "*-1\r\n",
              "_\r\n");
        WROTE(p, redis_srv_acl_cat_reply(b, p, 1, kv), redis_srv_acl_cat_reply_size(p, 1, kv),
              "*1\r\n$1\r\nf\r\n", "*1\r\n$1\r\nf\r\n");
    }
}

/* String replies the overlay's reply_string makes simple (TYPE, REPLICAOF) or verbatim (INFO,
 * LOLWUT) where the schema only says "string". */
static void test_reply_string_forms(void **state) {
    (void)state;
    char b[256];
    const rg_view none = {NULL, 0}, info = RG_LIT("# Server\r\nx:1\r\n"), lolwut = RG_LIT("ver\n");
    for (int p = 2; p <= 3; p++) {
        WROTE(p, redis_srv_type_reply(b, p, RG_LIT("string")),
              redis_srv_type_reply_size(p, RG_LIT("string")), "+string\r\n", "+string\r\n");
        /* the schema's null alternative (redis-server 7.0 says "+none" instead) */
        WROTE(p, redis_srv_type_reply(b, p, none), redis_srv_type_reply_size(p, none), "$-1\r\n",
              "_\r\n");
        WROTE(p, redis_srv_replicaof_reply(b, RG_LIT("OK")),
              redis_srv_replicaof_reply_size(RG_LIT("OK")), "+OK\r\n", "+OK\r\n");
        WROTE(p, redis_srv_info_reply(b, p, info), redis_srv_info_reply_size(p, info),
              "$15\r\n# Server\r\nx:1\r\n\r\n", "=19\r\ntxt:# Server\r\nx:1\r\n\r\n");
        WROTE(p, redis_srv_lolwut_reply(b, p, lolwut), redis_srv_lolwut_reply_size(p, lolwut),
              "$4\r\nver\n\r\n", "=8\r\ntxt:ver\n\r\n");
    }
}

/* Sends argv to the server and requires its reply to be byte for byte what mine..end holds. */
static void same_as_redis(test_conn *c, size_t argc, const char *const *argv, const char *mine,
                          const char *end) {
    char got[512];
    size_t len;
    assert_int_equal(test_conn_command_raw(c, got, sizeof got, &len, argc, argv), 0);
    if (len != (size_t)(end - mine) || memcmp(got, mine, len) != 0) {
        print_error("%s: redis %.*s, ours %.*s\n", argv[0], (int)len, got, (int)(end - mine), mine);
    }
    assert_int_equal(len, (size_t)(end - mine));
    assert_memory_equal(got, mine, len);
}

#define SAME(c, mine, end, ...)                                                      \
    same_as_redis((c), sizeof((const char *[]){__VA_ARGS__}) / sizeof(const char *), \
                  (const char *[]){__VA_ARGS__}, (mine), (end))

typedef char *verbatim_writer(char *dst, int proto, rg_view v);
typedef size_t verbatim_sizer(int proto, rg_view v);

/* Sends argv (a command with a verbatim reply) and requires the server's reply to be byte for byte
 * what put gives for the text it holds: the text differs between calls (INFO's uptime), the
 * framing must not. */
static void verbatim_as_redis(test_conn *c, int proto, verbatim_writer *put, verbatim_sizer *sizer,
                              size_t argc, const char *const *argv) {
    static char got[16384], mine[16384];
    size_t len;
    assert_int_equal(test_conn_command_raw(c, got, sizeof got, &len, argc, argv), 0);
    assert_int_equal(got[0], proto == 2 ? '$' : '=');
    const char *crlf = memchr(got, '\n', len);
    assert_non_null(crlf);
    size_t start = (size_t)(crlf + 1 - got);
    if (proto == 3) start += 4; /* "txt:" */
    assert_true(len >= start + 2);
    const rg_view text = {got + start, len - start - 2};
    const char *end = put(mine, proto, text);
    assert_int_equal((size_t)(end - mine), sizer(proto, text));
    if (len != (size_t)(end - mine) || memcmp(got, mine, len) != 0) {
        print_error("%s: redis %.*s, ours %.*s\n", argv[0], (int)len, got, (int)(end - mine), mine);
    }
    assert_int_equal(len, (size_t)(end - mine));
    assert_memory_equal(got, mine, len);
}

#define VERBATIM(c, p, fn, ...)                                                     \
    verbatim_as_redis((c), (p), fn, fn##_size,                                      \
                      sizeof((const char *[]){__VA_ARGS__}) / sizeof(const char *), \
                      (const char *[]){__VA_ARGS__})

/* The new shapes against what redis-server sends for the same data, over RESP2 and RESP3. */
static void test_reply_shapes_vs_redis(void **state) {
    const test_redis srv = *(const test_redis *)*state;
    test_conn conn, *c = &conn;
    assert_int_equal(test_conn_open(c, srv.port), 0);
    char got[512], b[512];
    static const char *const setup[][6] = {
        {"HSET", "h", "f", "v", "g", "w"},
        {"SADD", "s", "3", "1", "2"}, /* an intset: sorted */
        {"ZADD", "z", "1.5", "a", NULL},
        {"SET", "k", "v", NULL},
    };
    for (size_t i = 0; i < sizeof setup / sizeof setup[0]; i++) {
        size_t argc = 0;
        while (argc < 6 && setup[i][argc]) argc++;
        assert_int_equal(test_conn_command(c, got, sizeof got, argc, setup[i]), 0);
    }
    const rg_view hash[] = {RG_LIT("f"), RG_LIT("v"), RG_LIT("g"), RG_LIT("w")};
    const rg_view set[] = {RG_LIT("1"), RG_LIT("2"), RG_LIT("3")}, keys[] = {hash[0], hash[2]};
    const rg_view cfg[] = {RG_LIT("maxmemory"), RG_LIT("0")};
    const int64_t member[] = {1, 0};
    const double scores[] = {1.5, NAN};
    for (int p = 2; p <= 3; p++) {
        const char *hello[] = {"HELLO", p == 2 ? "2" : "3"};
        assert_int_equal(test_conn_command(c, got, sizeof got, 2, hello), 0);
        SAME(c, b, redis_srv_hgetall_reply(b, p, 2, hash), "HGETALL", "h");
        SAME(c, b, redis_srv_hgetall_reply(b, p, 0, hash), "HGETALL", "nokey");
        SAME(c, b, redis_srv_config_get_reply(b, p, 1, cfg), "CONFIG", "GET", "maxmemory");
        SAME(c, b, redis_srv_smembers_reply(b, p, 3, set), "SMEMBERS", "s");
        SAME(c, b, redis_srv_sinter_reply(b, p, 3, set), "SINTER", "s");
        SAME(c, b, redis_srv_hkeys_reply(b, p, 2, keys), "HKEYS", "h"); /* array, not set */
        SAME(c, b, redis_srv_smismember_reply(b, 2, member), "SMISMEMBER", "s", "1", "9");
        SAME(c, b, redis_srv_zscore_reply(b, p, 1.5), "ZSCORE", "z", "a");
        SAME(c, b, redis_srv_zscore_reply(b, p, NAN), "ZSCORE", "z", "nope");
        SAME(c, b, redis_srv_zmscore_reply(b, p, 2, scores), "ZMSCORE", "z", "a", "nope");
        SAME(c, b, redis_srv_hexists_reply(b, true), "HEXISTS", "h", "f");
        SAME(c, b, redis_srv_expire_reply(b, false), "EXPIRE", "nokey", "100");
        SAME(c, b, redis_srv_ttl_reply(b, -2), "TTL", "nokey");
        SAME(c, b, redis_srv_memory_usage_reply(b, p, NULL), "MEMORY", "USAGE", "nokey");
        SAME(c, b, redis_srv_sscan_reply(b, RG_LIT("0"), 3, set), "SSCAN", "s", "0");
        SAME(c, b, redis_srv_hscan_reply(b, RG_LIT("0"), 4, hash), "HSCAN", "h", "0");
        SAME(c, b, redis_srv_rpush_reply(b, 1), "RPUSH", "l", "a");
        SAME(c, b, redis_srv_blpop_reply(b, p, RG_LIT("l"), RG_LIT("a")), "BLPOP", "l", "0");
        const rg_view none = {NULL, 0};
        SAME(c, b, redis_srv_blpop_reply(b, p, none, none), "BLPOP", "l", "0.01");
        /* reply_string: simple strings, and verbatim strings in RESP3 */
        SAME(c, b, redis_srv_type_reply(b, p, RG_LIT("string")), "TYPE", "k");
        SAME(c, b, redis_srv_type_reply(b, p, RG_LIT("none")), "TYPE", "nokey");
        SAME(c, b, redis_srv_replicaof_reply(b, RG_LIT("OK")), "REPLICAOF", "NO", "ONE");
        VERBATIM(c, p, redis_srv_info_reply, "INFO", "server");
        VERBATIM(c, p, redis_srv_info_reply, "INFO");
        VERBATIM(c, p, redis_srv_lolwut_reply, "LOLWUT");
        VERBATIM(c, p, redis_srv_client_info_reply, "CLIENT", "INFO");
    }
    test_conn_close(c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ids_from_command_list),
        cmocka_unit_test(test_lookup_all_names),
        cmocka_unit_test_setup_teardown(test_arity_vs_redis, start_server, stop_server),
        cmocka_unit_test_setup_teardown(test_nul_in_errors_vs_redis, start_server, stop_server),
        cmocka_unit_test(test_args_error),
        cmocka_unit_test(test_reply_encoders),
        cmocka_unit_test(test_reply_shapes),
        cmocka_unit_test(test_reply_string_forms),
        cmocka_unit_test_setup_teardown(test_reply_shapes_vs_redis, start_server, stop_server),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
