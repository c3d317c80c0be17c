/* Unit tests of the Sentinel logic (runtime/rg_sentinel.h) and the engine's ROLE step
 * (rg_conn_config.role), on hand-made bytes: no server.
 */
#include "rg_sentinel.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

static rg_sentinel_addr seeds[3];
static rg_sentinel_addr replica_mem[2];

static void init3(rg_sentinel *s) {
    for (int i = 0; i < 3; i++) {
        snprintf(seeds[i].host, sizeof seeds[i].host, "10.0.0.%d", i + 1);
        seeds[i].port = 26379;
    }
    const rg_sentinel_config cfg = {RG_LIT("mymaster"), seeds, 3, replica_mem, 2};
    assert_int_equal(rg_sentinel_init(s, &cfg), RG_OK);
}

static rg_view cs(const char *s) {
    return rg_cstr(s);
}

static void bad_configs(void **state) {
    (void)state;
    rg_sentinel s;
    rg_sentinel_addr a = {"127.0.0.1", 26379}, bad = {"has space", 1}, noport = {"h", 0};
    const rg_sentinel_config none = {RG_LIT("m"), &a, 0, NULL, 0};
    assert_int_equal(rg_sentinel_init(&s, &none), RG_INVALID);
    assert_true(strlen(rg_sentinel_error(&s)) > 0);
    const rg_sentinel_config noname = {{NULL, 0}, &a, 1, NULL, 0};
    assert_int_equal(rg_sentinel_init(&s, &noname), RG_INVALID);
    const rg_sentinel_config badhost = {RG_LIT("m"), &bad, 1, NULL, 0};
    assert_int_equal(rg_sentinel_init(&s, &badhost), RG_INVALID);
    const rg_sentinel_config zero = {RG_LIT("m"), &noport, 1, NULL, 0};
    assert_int_equal(rg_sentinel_init(&s, &zero), RG_INVALID);
    rg_sentinel_addr many[RG_SENTINEL_MAX + 1];
    for (size_t i = 0; i <= RG_SENTINEL_MAX; i++) many[i] = a;
    const rg_sentinel_config toomany = {RG_LIT("m"), many, RG_SENTINEL_MAX + 1, NULL, 0};
    assert_int_equal(rg_sentinel_init(&s, &toomany), RG_INVALID);
}

static void master_replies(void **state) {
    (void)state;
    static const struct {
        const char *bytes;
        rg_status want;
        const char *host;
        uint16_t port;
    } cases[] = {
        {"*2\r\n$9\r\n127.0.0.1\r\n$4\r\n6379\r\n", RG_OK, "127.0.0.1", 6379},
        {"*2\r\n+::1\r\n+65535\r\n", RG_OK, "::1", 65535},
        {"*2\r\n$14\r\nredis.internal\r\n$1\r\n1\r\n", RG_OK, "redis.internal", 1},
        {"*-1\r\n", RG_CLOSED, NULL, 0},
        {"_\r\n", RG_CLOSED, NULL, 0},
        {"$-1\r\n", RG_CLOSED, NULL, 0},
        {"-IDONTKNOW No such master\r\n", RG_SERVER_ERROR, NULL, 0},
        {"*2\r\n$1\r\nh\r\n$1\r\n0\r\n", RG_MISMATCH, NULL, 0},
        {"*2\r\n$1\r\nh\r\n$5\r\n65536\r\n", RG_MISMATCH, NULL, 0},
        {"*2\r\n$1\r\nh\r\n$6\r\n000001\r\n", RG_MISMATCH, NULL, 0},
        {"*2\r\n$1\r\nh\r\n$2\r\n-1\r\n", RG_MISMATCH, NULL, 0},
        {"*2\r\n$0\r\n\r\n$2\r\n10\r\n", RG_MISMATCH, NULL, 0},
        {"*2\r\n$3\r\na\0b\r\n$2\r\n10\r\n", RG_MISMATCH, NULL, 0},
        {"*2\r\n$3\r\na b\r\n$2\r\n10\r\n", RG_MISMATCH, NULL, 0},
        {"*2\r\n:1\r\n:2\r\n", RG_MISMATCH, NULL, 0},
        {"*3\r\n$1\r\nh\r\n$2\r\n10\r\n$1\r\nx\r\n", RG_MISMATCH, NULL, 0},
        {"*1\r\n$1\r\nh\r\n", RG_MISMATCH, NULL, 0},
        {"*2\r\n$1\r\nh\r\n", RG_MISMATCH, NULL, 0},
        {"*2\r\n*1\r\n$1\r\nh\r\n$2\r\n10\r\n", RG_MISMATCH, NULL, 0},
        {"+OK\r\n", RG_MISMATCH, NULL, 0},
        {"garbage", RG_MISMATCH, NULL, 0},
        {"", RG_MISMATCH, NULL, 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        rg_sentinel s;
        init3(&s);
        rg_sentinel_begin(&s);
        const int i = rg_sentinel_next(&s);
        const size_t len = k == 12 ? 21 : strlen(cases[k].bytes); /* the NUL case */
        const rg_status st = rg_sentinel_master_reply(&s, i, (rg_view){cases[k].bytes, len});
        if (st != cases[k].want) fail_msg("case %zu: %s", k, rg_sentinel_error(&s));
        if (st == RG_OK) {
            assert_string_equal(rg_sentinel_master(&s)->host, cases[k].host);
            assert_int_equal(rg_sentinel_master(&s)->port, cases[k].port);
        } else {
            assert_null(rg_sentinel_master(&s));
            assert_true(strlen(rg_sentinel_error(&s)) > 0);
            assert_int_not_equal(rg_sentinel_first(&s), i); /* to the back */
        }
    }
}

/* The asking order: answers to the front, failures and unconfirmed answers to the back. */
static void order(void **state) {
    (void)state;
    rg_sentinel s;
    init3(&s);
    rg_sentinel_begin(&s);
    assert_int_equal(rg_sentinel_next(&s), 0);
    rg_sentinel_failed(&s, 0); /* 1 2 0 */
    assert_int_equal(rg_sentinel_next(&s), 1);
    assert_int_equal(rg_sentinel_master_reply(&s, 1, cs("*-1\r\n")), RG_CLOSED); /* 2 0 1 */
    assert_int_equal(rg_sentinel_next(&s), 2);
    assert_int_equal(rg_sentinel_next(&s), -1); /* all asked, none again */
    assert_int_equal(rg_sentinel_master_reply(&s, 2, cs("*2\r\n+h\r\n+1\r\n")), RG_OK);
    assert_int_equal(rg_sentinel_first(&s), 2);
    /* never confirmed (ROLE said replica, or the address was dead): 2 goes to the back */
    rg_sentinel_begin(&s);
    assert_int_equal(rg_sentinel_next(&s), 0);
    assert_int_equal(rg_sentinel_master_reply(&s, 0, cs("*2\r\n+h\r\n+2\r\n")), RG_OK);
    rg_sentinel_confirmed(&s);
    rg_sentinel_begin(&s); /* confirmed: 0 stays first */
    assert_int_equal(rg_sentinel_first(&s), 0);
    assert_int_equal(rg_sentinel_next(&s), 0);
    assert_int_equal(rg_sentinel_next(&s), 1);
    assert_int_equal(rg_sentinel_next(&s), 2);
    assert_null(rg_sentinel_at(&s, 3));
    assert_null(rg_sentinel_at(&s, -1));
    rg_view argv[3];
    assert_int_equal(rg_sentinel_master_argv(&s, argv), 3);
    assert_true(rg_view_eq(argv[2], RG_LIT("mymaster")));
    assert_int_equal(rg_sentinel_replicas_argv(&s, argv), 3);
    assert_true(rg_view_eq(argv[1], RG_LIT("REPLICAS")));
    assert_int_equal(rg_sentinel_subscribe_argv(argv), 2);
    assert_true(rg_view_eq(argv[1], RG_LIT("+switch-master")));
}

static void replicas(void **state) {
    (void)state;
    rg_sentinel s;
    init3(&s);
    size_t n = 9;
    /* RESP2: flat field lists; one down, one with its link broken, one healthy (with noise) */
    const char *resp2 = "*4\r\n"
                        "*6\r\n$2\r\nip\r\n$3\r\n1.1\r\n$4\r\nport\r\n$4\r\n7001\r\n"
                        "$5\r\nflags\r\n$12\r\nslave,s_down\r\n"
                        "*6\r\n$2\r\nip\r\n$3\r\n1.2\r\n$4\r\nport\r\n$4\r\n7002\r\n"
                        "$18\r\nmaster-link-status\r\n$3\r\nerr\r\n"
                        "*8\r\n$4\r\nname\r\n$1\r\nx\r\n$2\r\nip\r\n$3\r\n1.3\r\n"
                        "$4\r\nport\r\n$4\r\n7003\r\n$5\r\nflags\r\n$5\r\nslave\r\n"
                        "*4\r\n$2\r\nip\r\n$3\r\n1.4\r\n$4\r\nport\r\n$1\r\nx\r\n";
    assert_int_equal(rg_sentinel_replicas_reply(&s, cs(resp2)), RG_OK);
    const rg_sentinel_addr *r = rg_sentinel_replicas(&s, &n);
    assert_int_equal(n, 1);
    assert_string_equal(r[0].host, "1.3");
    assert_int_equal(r[0].port, 7003);
    /* RESP3 maps, more healthy ones than room: the first two kept */
    const char *resp3 = "*3\r\n"
                        "%2\r\n$2\r\nip\r\n$1\r\na\r\n$4\r\nport\r\n$1\r\n1\r\n"
                        "%3\r\n$2\r\nip\r\n$1\r\nb\r\n$4\r\nport\r\n$1\r\n2\r\n"
                        "$5\r\nflags\r\n$15\r\nslave,o_downish\r\n"
                        "%2\r\n$2\r\nip\r\n$1\r\nc\r\n$4\r\nport\r\n$1\r\n3\r\n";
    assert_int_equal(rg_sentinel_replicas_reply(&s, cs(resp3)), RG_OK);
    r = rg_sentinel_replicas(&s, &n);
    assert_int_equal(n, 2);
    assert_string_equal(r[0].host, "a");
    assert_string_equal(r[1].host, "b");
    assert_int_equal(rg_sentinel_replicas_reply(&s, cs("*0\r\n")), RG_OK);
    rg_sentinel_replicas(&s, &n);
    assert_int_equal(n, 0);
    assert_int_equal(rg_sentinel_replicas_reply(&s, cs("-ERR no such master\r\n")),
                     RG_SERVER_ERROR);
    assert_int_equal(rg_sentinel_replicas_reply(&s, cs("+OK\r\n")), RG_MISMATCH);
    /* too deep, or cut short: refused, the list emptied */
    assert_int_equal(rg_sentinel_replicas_reply(&s, cs("*1\r\n*2\r\n*1\r\n*1\r\n:1\r\n:2\r\n")),
                     RG_MISMATCH);
    assert_int_equal(rg_sentinel_replicas_reply(&s, cs("*2\r\n%1\r\n$2\r\nip\r\n")), RG_MISMATCH);
    rg_sentinel_replicas(&s, &n);
    assert_int_equal(n, 0);
}

static rg_push message(const char *channel, const char *payload) {
    rg_push p;
    memset(&p, 0, sizeof p);
    p.kind = RG_PUSH_MESSAGE;
    p.channel = rg_cstr(channel);
    p.payload = rg_cstr(payload);
    return p;
}

static void switch_master(void **state) {
    (void)state;
    rg_sentinel s;
    init3(&s);
    rg_sentinel_begin(&s);
    assert_int_equal(rg_sentinel_master_reply(&s, 0, cs("*2\r\n+h\r\n+1\r\n")), RG_OK);
    rg_sentinel_confirmed(&s);
    static const char *const ignored[][2] = {
        {"+switch-master", "other h 1 h2 2"},      /* another master */
        {"+switch-master", "mymaster h 1 h 1"},    /* where we are */
        {"+switch-master", "mymaster h 1 h2"},     /* too few words */
        {"+switch-master", "mymaster h 1 h2 2 x"}, /* too many */
        {"+switch-master", "mymaster h 1 h2 0"},   /* no port */
        {"+switch-master", "mymaster  h 1 h2 2"},  /* an empty word */
        {"+sdown", "mymaster h 1 h2 2"},           /* another channel */
        {"+switch-master", ""},
    };
    for (size_t k = 0; k < sizeof ignored / sizeof ignored[0]; k++) {
        const rg_push p = message(ignored[k][0], ignored[k][1]);
        assert_int_equal(rg_sentinel_push(&s, &p), RG_SENTINEL_NOTHING);
    }
    rg_push p = message("+switch-master", "mymaster h 1 10.0.0.9 6380");
    p.kind = RG_PUSH_SUBSCRIBE;
    assert_int_equal(rg_sentinel_push(&s, &p), RG_SENTINEL_NOTHING);
    p.kind = RG_PUSH_MESSAGE;
    assert_int_equal(rg_sentinel_push(&s, &p), RG_SENTINEL_SWITCHED);
    assert_string_equal(rg_sentinel_master(&s)->host, "10.0.0.9");
    assert_int_equal(rg_sentinel_master(&s)->port, 6380);
    assert_int_equal(rg_sentinel_switches(&s), 1);
    assert_int_equal(rg_sentinel_push(&s, &p), RG_SENTINEL_NOTHING); /* told twice */
    /* not confirmed, but no sentinel named it: none goes to the back */
    rg_sentinel_begin(&s);
    assert_int_equal(rg_sentinel_first(&s), 0);
}

static void roles(void **state) {
    (void)state;
    static const struct {
        const char *bytes;
        rg_role want;
    } cases[] = {
        {"*3\r\n$6\r\nmaster\r\n:0\r\n*0\r\n", RG_ROLE_MASTER},
        {"*5\r\n$5\r\nslave\r\n$9\r\n127.0.0.1\r\n:6379\r\n$9\r\nconnected\r\n:1\r\n",
         RG_ROLE_REPLICA},
        {"*2\r\n+sentinel\r\n*0\r\n", RG_ROLE_SENTINEL},
        {"*1\r\n$7\r\nmasters\r\n", RG_ROLE_ANY},
        {"*0\r\n", RG_ROLE_ANY},
        {"$6\r\nmaster\r\n", RG_ROLE_ANY},
        {"-NOAUTH\r\n", RG_ROLE_ANY},
        {"*3\r\n$6\r\nmas", RG_ROLE_ANY},
        {"", RG_ROLE_ANY},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        assert_int_equal(rg_role_parse(cs(cases[k].bytes)), cases[k].want);
    assert_int_equal(rg_role_parse((rg_view){NULL, 0}), RG_ROLE_ANY);
    assert_string_equal(rg_role_name(RG_ROLE_REPLICA), "replica");
    assert_string_equal(rg_role_name((rg_role)9), "unknown");
}

/* The engine: ROLE ends the connect sequence and holds the calls behind it. */
static char in[1024], out[1024];
static rg_call calls[8];

static void engine(rg_conn *c, int protocol) {
    const rg_conn_config cfg = {.in = in,
                                .in_cap = sizeof in,
                                .out = out,
                                .out_cap = sizeof out,
                                .calls = calls,
                                .ncalls = 8,
                                .protocol = protocol,
                                .role = RG_ROLE_MASTER};
    assert_int_equal(rg_conn_init(c, &cfg), RG_OK);
}

static void feed(rg_conn *c, const char *bytes) {
    rg_conn_state st;
    assert_int_equal(rg_conn_feed_copy(c, bytes, strlen(bytes), &st), strlen(bytes));
}

static void role_step(void **state) {
    (void)state;
    rg_conn c;
    rg_call_record rec = {0};
    size_t n;
    const rg_view ping[] = {RG_LIT("PING")};
    /* a replica: the held PING was never written and the connection failed as a loss */
    engine(&c, 2);
    assert_true(rg_conn_call_argv(&c, 1, ping, NULL, NULL, rg_call_record_fn, &rec) != 0);
    const char *o = rg_conn_output(&c, &n);
    assert_int_equal(n, 14);
    assert_memory_equal(o, "*1\r\n$4\r\nROLE\r\n", 14);
    rg_conn_written(&c, n);
    feed(&c, "*5\r\n$5\r\nslave\r\n$1\r\nh\r\n:1\r\n$9\r\nconnected\r\n:0\r\n");
    assert_int_equal(rg_conn_state_of(&c), RG_CONN_FAILED);
    assert_true(rec.done);
    assert_int_equal(rec.status, RG_CLOSED);
    assert_false(rec.written);
    assert_int_equal(rg_conn_error(&c).status, RG_CLOSED);
    assert_non_null(strstr(rg_conn_error(&c).msg.ptr, "ROLE says replica, not master"));
    /* a master: the PING goes out behind ROLE (and, in RESP3, behind HELLO) */
    engine(&c, 3);
    rec = (rg_call_record){0};
    assert_true(rg_conn_call_argv(&c, 1, ping, NULL, NULL, rg_call_record_fn, &rec) != 0);
    o = rg_conn_output(&c, &n);
    assert_int_equal(n, 22 + 14); /* HELLO 3, ROLE; the PING held */
    assert_memory_equal(o + 22, "*1\r\n$4\r\nROLE\r\n", 14);
    rg_conn_written(&c, n);
    feed(&c, "%1\r\n$5\r\nproto\r\n:3\r\n*3\r\n$6\r\nmaster\r\n:0\r\n*0\r\n");
    assert_int_equal(rg_conn_state_of(&c), RG_CONN_READY);
    o = rg_conn_output(&c, &n);
    assert_int_equal(n, 14);
    assert_memory_equal(o, "*1\r\n$4\r\nPING\r\n", 14);
    rg_conn_written(&c, n);
    feed(&c, "+PONG\r\n");
    assert_int_equal(rec.status, RG_OK);
    /* ROLE refused (NOAUTH): a refusal, as the rest of the sequence */
    engine(&c, 2);
    rg_conn_written(&c, 14);
    feed(&c, "-NOAUTH Authentication required.\r\n");
    assert_int_equal(rg_conn_error(&c).status, RG_REFUSED);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bad_configs), cmocka_unit_test(master_replies), cmocka_unit_test(order),
        cmocka_unit_test(replicas),    cmocka_unit_test(switch_master),  cmocka_unit_test(roles),
        cmocka_unit_test(role_step),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
