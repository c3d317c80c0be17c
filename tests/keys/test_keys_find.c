/* rg_keys_find, rg_slot_of_argv and rg_request_argv without a server: the documented behavior for
 * every kind of spec and every way argv can be wrong, the size-query contract, a differential run
 * against the independent model in keys_ref.h over random specs and argvs, and the request parser
 * on encoded, truncated and malformed input. */
#include "cmd_specs.h"
#include "keys_ref.h"
#include "rg_enc.h"
#include "rg_keys.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

enum { MAX_ARGS = 32 };

/* Words separated by single spaces; "" stands for an empty word. */
static size_t split(const char *line, rg_view *argv) {
    size_t n = 0;
    for (const char *p = line; *p && n < MAX_ARGS;) {
        const char *e = strchr(p, ' ');
        const size_t len = e ? (size_t)(e - p) : strlen(p);
        argv[n++] = len == 2 && p[0] == '"' && p[1] == '"' ? (rg_view){"", 0} : (rg_view){p, len};
        p += len + (e != NULL);
    }
    return n;
}

static const cmd_specs *specs_of(const char *name) {
    for (size_t i = 0; i < N_CMD_SPECS; i++)
        if (strcmp(all_cmd_specs[i].name, name) == 0) return &all_cmd_specs[i];
    fail_msg("no specs for %s", name);
    return NULL;
}

/* want: positions, -1 terminated. */
static void expect_specs(const rg_keyspec *specs, size_t nspecs, const char *line,
                         rg_status want_st, const int *want) {
    rg_view argv[MAX_ARGS];
    const size_t argc = split(line, argv);
    size_t pos[MAX_ARGS];
    rg_error e;
    const size_t n = rg_keys_find(specs, nspecs, argc, argv, pos, MAX_ARGS, &e);
    const rg_status st = e.status;
    if ((st == RG_OK) != (e.msg.len == 0)) fail_msg("%s: a message without an error", line);
    size_t nwant = 0;
    while (want[nwant] >= 0) nwant++;
    if (st != want_st)
        fail_msg("%s: status %s, want %s", line, rg_status_name(st), rg_status_name(want_st));
    if (n != nwant) fail_msg("%s: %zu keys, want %zu", line, n, nwant);
    for (size_t i = 0; i < n; i++)
        if (pos[i] != (size_t)want[i])
            fail_msg("%s: key %zu at %zu, want %d", line, i, pos[i], want[i]);
}

#define EXPECT(cmd, line, st, ...)                       \
    do {                                                 \
        const int want_[] = {__VA_ARGS__, -1};           \
        const cmd_specs *c_ = specs_of(cmd);             \
        expect_specs(c_->specs, c_->n, line, st, want_); \
    } while (0)
#define NONE -1

static void single_and_range_keys(void **state) {
    (void)state;
    EXPECT("GET", "GET k", RG_OK, 1);
    EXPECT("SET", "SET k v EX 10", RG_OK, 1);
    EXPECT("MSET", "MSET a 1 b 2 c 3", RG_OK, 1, 3, 5);
    EXPECT("MSET", "MSET a 1 b", RG_OK, 1, 3); /* like Redis: the server rejects it */
    EXPECT("DEL", "DEL a b c", RG_OK, 1, 2, 3);
    EXPECT("BLPOP", "BLPOP a b 0", RG_OK, 1, 2);
    EXPECT("LCS", "LCS a b IDX", RG_OK, 1, 2);
    EXPECT("BITOP", "BITOP AND d a b", RG_OK, 2, 3, 4);
    EXPECT("OBJECT ENCODING", "OBJECT ENCODING k", RG_OK, 2);
    EXPECT("XGROUP CREATE", "XGROUP CREATE k g $ MKSTREAM", RG_OK, 2);
    EXPECT("SMOVE", "SMOVE a b m", RG_OK, 1, 2);
    EXPECT("RENAME", "RENAME a b", RG_OK, 1, 2);
    EXPECT("COPY", "COPY a b DB 1 REPLACE", RG_OK, 1, 2);
    EXPECT("SPUBLISH", "SPUBLISH ch msg", RG_OK, NONE); /* NOT_KEY */
}

static void keynum_keys(void **state) {
    (void)state;
    EXPECT("EVAL", "EVAL s 2 a b x y", RG_OK, 3, 4);
    EXPECT("EVAL", "EVAL s 0", RG_OK, NONE);
    EXPECT("EVAL", "EVAL s 0 x", RG_OK, NONE);
    EXPECT("ZUNIONSTORE", "ZUNIONSTORE d 2 a b WEIGHTS 1 2", RG_OK, 1, 3, 4);
    EXPECT("LMPOP", "LMPOP 2 a b LEFT COUNT 2", RG_OK, 2, 3);
    EXPECT("BLMPOP", "BLMPOP 0 2 a b LEFT", RG_OK, 3, 4);
    EXPECT("SINTERCARD", "SINTERCARD 2 a b LIMIT 1", RG_OK, 2, 3);
}

static void keyword_keys(void **state) {
    (void)state;
    EXPECT("XREAD", "XREAD COUNT 2 STREAMS a b 0 0", RG_OK, 4, 5);
    EXPECT("XREAD", "xread streams a 0", RG_OK, 2);
    EXPECT("XREAD", "XREAD STREAMS a b 0", RG_OK, 2); /* odd: (argc - first) / 2 */
    EXPECT("XREAD", "XREAD BLOCK 0", RG_OK, NONE);    /* no keyword: no keys */
    /* Like Redis, the search never looks at the last argument. */
    EXPECT("XREAD", "XREAD COUNT 1 STREAMS", RG_OK, NONE);
    EXPECT("XREADGROUP", "XREADGROUP GROUP g c STREAMS a b > >", RG_OK, 5, 6);
    /* The search starts at startfrom: a STREAMS before it is not the keyword. */
    EXPECT("XREADGROUP", "XREADGROUP GROUP STREAMS c STREAMS a >", RG_OK, 5);
    EXPECT("GEORADIUS", "GEORADIUS k 0 0 1 km STORE d", RG_OK, 1, 7);
    EXPECT("GEORADIUS", "GEORADIUS k 0 0 1 km store d", RG_OK, 1, 7);
    EXPECT("GEORADIUS", "GEORADIUS k 0 0 1 km STORE d STOREDIST e", RG_OK, 1, 7, 9);
    EXPECT("GEORADIUS", "GEORADIUS k 0 0 1 km WITHDIST", RG_OK, 1);
    EXPECT("GEORADIUS", "GEORADIUS k 0 0 1 km STORE", RG_OK, 1);
    EXPECT("MIGRATE", "MIGRATE h p k 0 100", RG_OK, 3);
    EXPECT("MIGRATE", "MIGRATE h p k 0 100 COPY REPLACE", RG_OK, 3);
    /* Searching backwards from argc - 2, a password "KEYS" in the last place is no keyword. */
    EXPECT("MIGRATE", "MIGRATE h p k 0 100 AUTH KEYS", RG_OK, 3);
    /* "" is no key only when KEYS follows; without it "" is the key (COMMAND GETKEYS). */
    EXPECT("MIGRATE", "MIGRATE 127.0.0.1 1 \"\" 0 1 COPY REPLACE AUTH v1", RG_OK, 3);
    EXPECT("MIGRATE", "MIGRATE h p \"\" 0 100", RG_OK, 3);
    EXPECT("MIGRATE", "MIGRATE h p \"\" 0 100 KEYS", RG_OK, 3);
}

static void incomplete_specs(void **state) {
    (void)state;
    /* MIGRATE's KEYS spec is INCOMPLETE: its keys are reported, and so is the doubt. */
    EXPECT("MIGRATE", "MIGRATE h p x 0 100 KEYS a b", RG_INCOMPLETE, 3, 7, 8);
    EXPECT("MIGRATE", "MIGRATE h p \"\" 0 100 KEYS a b", RG_INCOMPLETE, 7, 8);
    EXPECT("MIGRATE", "MIGRATE h p \"\" 0 100 KEYS \"\" b", RG_INCOMPLETE, 7, 8);
    EXPECT("SORT", "SORT k", RG_INCOMPLETE, 1);
    EXPECT("SORT", "SORT k BY w_* GET o_* STORE d", RG_INCOMPLETE, 1);
}

static void invalid_argv(void **state) {
    (void)state;
    EXPECT("GET", "GET", RG_INVALID, NONE);
    EXPECT("MSET", "MSET", RG_INVALID, NONE);
    EXPECT("BLPOP", "BLPOP 0", RG_INVALID, NONE);
    EXPECT("LCS", "LCS a", RG_INVALID, NONE);
    EXPECT("BITOP", "BITOP AND d", RG_INVALID, 2); /* the first spec still fits */
    EXPECT("EVAL", "EVAL s", RG_INVALID, NONE);
    EXPECT("EVAL", "EVAL s 3 a b", RG_INVALID, NONE);
    EXPECT("EVAL", "EVAL s -1 a", RG_INVALID, NONE);
    EXPECT("EVAL", "EVAL s abc a", RG_INVALID, NONE);
    EXPECT("EVAL", "EVAL s 01 a", RG_INVALID, NONE);
    EXPECT("EVAL", "EVAL s +1 a", RG_INVALID, NONE);
    EXPECT("EVAL", "EVAL s -0 a", RG_INVALID, NONE);
    EXPECT("EVAL", "EVAL s 999999 a", RG_INVALID, NONE);
    EXPECT("EVAL", "EVAL s 4294967297 a", RG_INVALID, NONE);
    EXPECT("EVAL", "EVAL s 9223372036854775807 a", RG_INVALID, NONE);
    EXPECT("EVAL", "EVAL s 99999999999999999999999999 a", RG_INVALID, NONE);
    EXPECT("ZUNIONSTORE", "ZUNIONSTORE d 3 a b", RG_INVALID, 1);
    EXPECT("ZUNIONSTORE", "ZUNIONSTORE d", RG_INVALID, 1);
    EXPECT("ZUNIONSTORE", "ZUNIONSTORE", RG_INVALID, NONE);
    EXPECT("BLMPOP", "BLMPOP 0", RG_INVALID, NONE);
    EXPECT("XREAD", "XREAD STREAMS a", RG_INVALID, NONE); /* no room for an ID */
    EXPECT("OBJECT ENCODING", "OBJECT ENCODING", RG_INVALID, NONE);
}

static void empty_argv(void **state) {
    (void)state;
    for (size_t i = 0; i < N_CMD_SPECS; i++) {
        rg_error st;
        assert_int_equal(
            rg_keys_find(all_cmd_specs[i].specs, all_cmd_specs[i].n, 0, NULL, NULL, 0, &st), 0);
        assert_int_equal(rg_slot_of_argv(all_cmd_specs[i].specs, all_cmd_specs[i].n, 0, NULL) < 0,
                         1);
    }
    rg_error st = {RG_INVALID, {NULL, 0}, 0};
    assert_int_equal(rg_keys_find(NULL, 0, 0, NULL, NULL, 0, &st), 0);
    assert_int_equal(st.status, RG_OK);
}

/* Specs a generator should never emit still give an answer and never loop or read outside. */
static void malformed_specs(void **state) {
    (void)state;
    static const rg_keyspec step0[] = {
        {.begin = RG_KS_INDEX, .index = 1, .find = RG_KS_RANGE, .lastkey = -1, .step = 0}};
    static const rg_keyspec stepneg[] = {
        {.begin = RG_KS_INDEX, .index = 1, .find = RG_KS_RANGE, .lastkey = -1, .step = -1}};
    static const rg_keyspec index0[] = {
        {.begin = RG_KS_INDEX, .index = 0, .find = RG_KS_RANGE, .step = 1}};
    static const rg_keyspec indexneg[] = {
        {.begin = RG_KS_INDEX, .index = -5, .find = RG_KS_RANGE, .lastkey = 7, .step = 1}};
    static const rg_keyspec nokeyword[] = {
        {.begin = RG_KS_KEYWORD, .startfrom = 1, .find = RG_KS_RANGE, .step = 1}};
    static const rg_keyspec crossed[] = {
        {.begin = RG_KS_RANGE, .index = 1, .find = RG_KS_INDEX, .step = 1}};
    static const rg_keyspec badkind[] = {
        {.begin = 200, .index = 1, .find = RG_KS_RANGE, .step = 1}};
    static const rg_keyspec zeroed[] = {{0}};
    static const rg_keyspec extreme[] = {
        {.begin = RG_KS_INDEX,
         .index = INT32_MAX,
         .find = RG_KS_RANGE,
         .lastkey = INT32_MAX,
         .step = INT32_MAX},
        {.begin = RG_KS_KEYWORD,
         .keyword = "a",
         .startfrom = 1,
         .find = RG_KS_RANGE,
         .lastkey = INT32_MIN,
         .limit = INT32_MIN,
         .step = 1},
        {.begin = RG_KS_KEYWORD,
         .keyword = "a",
         .startfrom = 1,
         .find = RG_KS_RANGE,
         .lastkey = -1,
         .limit = INT32_MAX,
         .step = 1},
        {.begin = RG_KS_INDEX,
         .index = 1,
         .find = RG_KS_RANGE,
         .lastkey = -1,
         .limit = -1,
         .step = 1},
        {.begin = RG_KS_INDEX,
         .index = 1,
         .find = RG_KS_KEYNUM,
         .keynumidx = INT32_MAX,
         .firstkey = INT32_MIN,
         .step = 1},
        {.begin = RG_KS_INDEX, .index = INT32_MIN, .find = RG_KS_KEYNUM, .keynumidx = INT32_MIN},
    };
    static const struct {
        const rg_keyspec *s;
        rg_status st;
    } rows[] = {
        {step0, RG_INVALID},      {stepneg, RG_INVALID},   {index0, RG_INVALID},
        {indexneg, RG_INVALID},   {nokeyword, RG_INVALID}, {crossed, RG_INCOMPLETE},
        {badkind, RG_INCOMPLETE}, {zeroed, RG_INCOMPLETE},
    };
    rg_view argv[MAX_ARGS];
    const size_t argc = split("CMD a b c", argv);
    size_t pos[MAX_ARGS];
    rg_error st;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        assert_int_equal(rg_keys_find(rows[i].s, 1, argc, argv, pos, MAX_ARGS, &st), 0);
        assert_int_equal(st.status, rows[i].st);
    }
    for (size_t i = 0; i < KS_COUNT(extreme); i++) {
        assert_int_equal(rg_keys_find(&extreme[i], 1, argc, argv, pos, MAX_ARGS, &st), 0);
        assert_int_equal(st.status, RG_INVALID);
    }
}

/* More arguments than Redis accepts: refused before argv is looked at (it is 3 views here). */
static void huge_argc(void **state) {
    (void)state;
    const rg_view argv[] = {RG_LIT("GET"), RG_LIT("k"), RG_LIT("x")};
    const size_t huge = (size_t)INT32_MAX + 1;
    size_t pos[2];
    rg_error st;
    assert_int_equal(rg_keys_find(ks_del, KS_COUNT(ks_del), huge, argv, pos, 2, &st), 0);
    assert_int_equal(st.status, RG_INVALID);
    assert_int_equal(rg_slot_of_argv(ks_del, KS_COUNT(ks_del), huge, argv), RG_SLOT_UNKNOWN);
    assert_int_equal(rg_keys_find(ks_del, KS_COUNT(ks_del), SIZE_MAX, argv, pos, 2, &st), 0);
    assert_int_equal(st.status, RG_INVALID);
}

/* INVALID wins over INCOMPLETE whatever the order; NOT_KEY specs count for nothing. */
static void status_precedence(void **state) {
    (void)state;
    static const rg_keyspec a[] = {
        {.begin = RG_KS_UNKNOWN},
        {.begin = RG_KS_INDEX, .index = 9, .find = RG_KS_RANGE, .step = 1},
        {.begin = RG_KS_INDEX, .index = 1, .find = RG_KS_RANGE, .step = 1},
    };
    static const rg_keyspec b[] = {
        {.begin = RG_KS_INDEX, .index = 9, .find = RG_KS_RANGE, .step = 1},
        {.begin = RG_KS_UNKNOWN},
        {.begin = RG_KS_INDEX, .index = 1, .find = RG_KS_RANGE, .step = 1},
    };
    static const rg_keyspec c[] = {
        {.flags = RG_KEY_NOT_KEY, .begin = RG_KS_INDEX, .index = 9, .find = RG_KS_RANGE, .step = 1},
        {.flags = RG_KEY_NOT_KEY, .begin = RG_KS_UNKNOWN},
        {.begin = RG_KS_INDEX, .index = 1, .find = RG_KS_RANGE, .step = 1},
    };
    rg_view argv[MAX_ARGS];
    const size_t argc = split("CMD a b", argv);
    size_t pos[4];
    rg_error st;
    assert_int_equal(rg_keys_find(a, 3, argc, argv, pos, 4, &st), 1);
    assert_int_equal(st.status, RG_INVALID);
    assert_int_equal(st.offset, 1); /* the first spec that gave the worst status */
    assert_int_equal(rg_keys_find(b, 3, argc, argv, pos, 4, &st), 1);
    assert_int_equal(st.status, RG_INVALID);
    assert_int_equal(st.offset, 0);
    assert_true(st.msg.len > 0);
    assert_int_equal(rg_keys_find(b + 1, 2, argc, argv, pos, 4, &st), 1);
    assert_int_equal(st.status, RG_INCOMPLETE);
    assert_int_equal(st.offset, 0);
    assert_int_equal(rg_keys_find(c, 3, argc, argv, pos, 4, &st), 1);
    assert_int_equal(st.status, RG_OK);
    assert_int_equal(st.msg.len, 0);
    assert_int_equal(pos[0], 1);
}

static void size_query(void **state) {
    (void)state;
    rg_view argv[MAX_ARGS];
    const size_t argc = split("MSET a 1 b 2 c 3 d 4", argv);
    rg_error st;
    assert_int_equal(rg_keys_find(ks_mset, 1, argc, argv, NULL, 0, &st), 4);
    assert_int_equal(st.status, RG_OK);
    size_t pos[6] = {99, 99, 99, 99, 99, 99};
    assert_int_equal(rg_keys_find(ks_mset, 1, argc, argv, pos, 2, &st), 4);
    assert_int_equal(pos[0], 1);
    assert_int_equal(pos[1], 3);
    assert_int_equal(pos[2], 99); /* nothing past cap */
    assert_int_equal(rg_keys_find(ks_mset, 1, argc, argv, pos, 6, &st), 4);
    assert_int_equal(pos[3], 7);
    assert_int_equal(pos[4], 99);
}

/* Keywords are matched byte for byte apart from ASCII case: no prefix, no NUL tricks. */
static void keyword_matching(void **state) {
    (void)state;
    static const char *const words[] = {"STREAMS", "streams", "StReAmS"};
    static const struct {
        const char *p;
        size_t n;
    } not_words[] = {{"STREAMS\0", 8}, {"STREAM", 6},   {"STREAMSX", 8},
                     {"\0TREAMS", 7},  {"STREAMS ", 8}, {"streams\xff", 8}};
    rg_error st;
    size_t pos[4];
    for (size_t i = 0; i < 3; i++) {
        const rg_view argv[] = {RG_LIT("XREAD"), {words[i], 7}, RG_LIT("k"), RG_LIT("0")};
        assert_int_equal(rg_keys_find(ks_xread, 1, 4, argv, pos, 4, &st), 1);
        assert_int_equal(pos[0], 2);
    }
    for (size_t i = 0; i < sizeof not_words / sizeof not_words[0]; i++) {
        const rg_view argv[] = {
            RG_LIT("XREAD"), {not_words[i].p, not_words[i].n}, RG_LIT("k"), RG_LIT("0")};
        assert_int_equal(rg_keys_find(ks_xread, 1, 4, argv, pos, 4, &st), 0);
        assert_int_equal(st.status, RG_OK);
    }
}

static void slots(void **state) {
    (void)state;
    rg_view argv[MAX_ARGS];
    static const struct {
        const char *cmd, *line;
        int slot;
    } rows[] = {
        {"GET", "GET foo", 12182},
        {"GET", "GET bar", 5061},
        {"MSET", "MSET {user1000}.following 1 {user1000}.followers 2", 3443},
        {"MSET", "MSET foo 1 bar 2", RG_SLOT_CROSS},
        {"DEL", "DEL foo foo foo", 12182},
        {"RENAME", "RENAME foo {foo}x", 12182},
        {"EVAL", "EVAL s 0", RG_SLOT_NONE},
        {"EVAL", "EVAL s 2 foo bar", RG_SLOT_CROSS},
        {"EVAL", "EVAL s x foo", RG_SLOT_UNKNOWN},
        {"SORT", "SORT foo", RG_SLOT_UNKNOWN},
        {"MIGRATE", "MIGRATE h p foo 0 100", 12182},
        {"MIGRATE", "MIGRATE h p x 0 100 KEYS foo", RG_SLOT_UNKNOWN},
        {"SPUBLISH", "SPUBLISH foo m", RG_SLOT_NONE},
        {"XREAD", "XREAD BLOCK 0", RG_SLOT_NONE},
        {"GET", "GET", RG_SLOT_UNKNOWN},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const cmd_specs *c = specs_of(rows[i].cmd);
        const size_t argc = split(rows[i].line, argv);
        const int got = rg_slot_of_argv(c->specs, c->n, argc, argv);
        if (got != rows[i].slot) fail_msg("%s: slot %d, want %d", rows[i].line, got, rows[i].slot);
    }
    /* The shard channels' slot: the NOT_KEY specs walked as keys, and only they. */
    static const struct {
        const char *cmd, *line;
        int slot;
    } channels[] = {
        {"SPUBLISH", "SPUBLISH foo m", 12182},
        {"SPUBLISH", "SPUBLISH {foo}x m", 12182},
        {"GET", "GET foo", RG_SLOT_NONE},
        {"MSET", "MSET foo 1 bar 2", RG_SLOT_NONE},
    };
    for (size_t i = 0; i < sizeof channels / sizeof channels[0]; i++) {
        const cmd_specs *c = specs_of(channels[i].cmd);
        const size_t argc = split(channels[i].line, argv);
        const int got = rg_channel_slot_of_argv(c->specs, c->n, argc, argv);
        if (got != channels[i].slot)
            fail_msg("%s: channel slot %d, want %d", channels[i].line, got, channels[i].slot);
    }
}

/* ---- differential against keys_ref.h ------------------------------------------------------- */

typedef struct rng {
    uint64_t s;
} rng;

static uint64_t next(rng *r) {
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return r->s;
}

static int32_t pick(rng *r, int32_t lo, int32_t hi) {
    return lo + (int32_t)(next(r) % (uint64_t)(hi - lo + 1));
}

static const char *const vocabulary[] = {
    "KEYS",       "keys", "STREAMS", "Streams", "0", "1",   "2",  "3",
    "-1",         "01",   "abc",     "",        "k", "999", "12", "99999999999999999999",
    "4294967297", "+1",   "-0",      "STORE",
};
#define VOCAB (sizeof vocabulary / sizeof vocabulary[0])

static rg_keyspec random_spec(rng *r) {
    static const char *const keywords[] = {"KEYS", "STREAMS", "k", "", NULL};
    static const uint16_t flagsets[] = {0,
                                        0,
                                        0,
                                        RG_KEY_NOT_KEY,
                                        RG_KEY_INCOMPLETE,
                                        RG_KEY_RO | RG_KEY_ACCESS,
                                        RG_KEY_EMPTY_PLACEHOLDER};
    return (rg_keyspec){
        .keyword = keywords[pick(r, 0, 4)],
        .index = pick(r, -2, 7),
        .startfrom = pick(r, -7, 7),
        .lastkey = pick(r, -4, 4),
        .limit = pick(r, -2, 4),
        .keynumidx = pick(r, -2, 3),
        .firstkey = pick(r, -2, 3),
        .step = pick(r, -1, 3),
        .flags = flagsets[pick(r, 0, 6)],
        .begin = (uint8_t)pick(r, 0, 5),
        .find = (uint8_t)pick(r, 0, 5),
    };
}

static int slot_from(const size_t *pos, size_t n, const rg_view *argv, rg_status st) {
    if (st != RG_OK) return RG_SLOT_UNKNOWN;
    int slot = RG_SLOT_NONE;
    for (size_t i = 0; i < n; i++) {
        const int s = rg_slot_of_key(argv[pos[i]].ptr, argv[pos[i]].len);
        slot = slot == RG_SLOT_NONE || slot == s ? s : RG_SLOT_CROSS;
    }
    return slot;
}

static void matches_model(void **state) {
    (void)state;
    rng r = {0x2545F4914F6CDD1Du};
    enum { ROUNDS = 300000, MAXPOS = 64 };
    size_t hits[RG_STATUS_COUNT] = {0};
    for (size_t round = 0; round < ROUNDS; round++) {
        rg_keyspec specs[3];
        const size_t nspecs = (size_t)pick(&r, 0, 3);
        for (size_t i = 0; i < nspecs; i++) specs[i] = random_spec(&r);
        rg_view argv[12];
        const size_t argc = (size_t)pick(&r, 0, 12);
        for (size_t i = 0; i < argc; i++) {
            const char *w = vocabulary[next(&r) % VOCAB];
            argv[i] = (rg_view){w, strlen(w)};
        }
        const size_t cap = (size_t)pick(&r, 0, 8);
        size_t got[MAXPOS], want[MAXPOS];
        for (size_t i = 0; i < MAXPOS; i++) got[i] = want[i] = 777;
        rg_status wst;
        rg_error ge;
        const size_t gn = rg_keys_find(specs, nspecs, argc, argv, got, cap, &ge);
        const rg_status gst = ge.status;
        const size_t wn = ref_keys_find(specs, nspecs, argc, argv, want, cap, &wst);
        if (gn != wn || gst != wst || memcmp(got, want, sizeof got) != 0)
            fail_msg("round %zu: %zu keys %s, model %zu keys %s", round, gn, rg_status_name(gst),
                     wn, rg_status_name(wst));
        size_t all[MAXPOS];
        assert_int_equal(rg_keys_find(specs, nspecs, argc, argv, all, MAXPOS, &ge), gn);
        for (size_t i = 0; i < gn; i++) assert_true(all[i] < argc);
        assert_int_equal(rg_slot_of_argv(specs, nspecs, argc, argv), slot_from(all, gn, argv, gst));
        hits[gst]++;
    }
    /* The generator reaches every status often. */
    static const rg_status statuses[] = {RG_OK, RG_INCOMPLETE, RG_INVALID};
    for (size_t i = 0; i < 3; i++) assert_true(hits[statuses[i]] > ROUNDS / 20);
}

/* ---- rg_request_argv ------------------------------------------------------------------------ */

/* Parses a copy in a buffer of exactly len bytes, so ASan sees any read past the end. */
static size_t parse_exact(const char *req, size_t len, rg_view *argv, size_t cap) {
    char *copy = malloc(len ? len : 1);
    assert_non_null(copy);
    memcpy(copy, req, len);
    const size_t n = rg_request_argv(copy, len, argv, cap);
    /* Views must lie inside the copy: check, then make them point into req for the caller. */
    for (size_t i = 0; i < n && i < cap; i++) {
        assert_true(argv[i].ptr >= copy && argv[i].ptr + argv[i].len <= copy + len);
        argv[i].ptr = req + (argv[i].ptr - copy);
    }
    free(copy);
    return n;
}

static void request_round_trip(void **state) {
    (void)state;
    rng r = {0xD1B54A32D192ED03u};
    static char bytes[70000];
    for (size_t i = 0; i < sizeof bytes; i++) bytes[i] = (char)next(&r);
    for (int round = 0; round < 3000; round++) {
        rg_view argv[MAX_ARGS], back[MAX_ARGS];
        const size_t argc = (size_t)pick(&r, 1, MAX_ARGS);
        for (size_t i = 0; i < argc; i++) {
            const size_t len = round % 100 == 0 && i == 0 ? 65536 : (size_t)pick(&r, 0, 40);
            argv[i] = (rg_view){bytes + next(&r) % (sizeof bytes - len), len};
        }
        const size_t size = rg_argv_size(argc, argv);
        char *req = malloc(size);
        assert_non_null(req);
        assert_int_equal(rg_argv_encode(req, size, argc, argv), size);
        assert_int_equal(parse_exact(req, size, back, MAX_ARGS), argc);
        for (size_t i = 0; i < argc; i++) {
            assert_int_equal(back[i].len, argv[i].len);
            assert_memory_equal(back[i].ptr, argv[i].ptr, argv[i].len);
        }
        /* Size query: fewer views than arguments. */
        rg_view few[3] = {{NULL, 99}, {NULL, 99}, {NULL, 99}};
        assert_int_equal(parse_exact(req, size, few, 2), argc);
        assert_int_equal(few[2].len, 99);
        assert_int_equal(few[0].len, argv[0].len);
        /* Every proper prefix is short input. */
        if (round % 50 == 0)
            for (size_t cut = 0; cut < size && cut < 300; cut++)
                assert_int_equal(parse_exact(req, cut, back, MAX_ARGS), 0);
        free(req);
    }
}

static void request_malformed(void **state) {
    (void)state;
    static const char *const bad[] = {
        "",
        "*",
        "*\r\n",
        "*0\r\n",
        "*1\r\n",
        "*1\r\n$1\r\na",
        "*1\r\n$1\r\nab\r\n",
        "*1\r\n$2\r\na\r\n",
        "*1\r\n$01\r\na\r\n",
        "*01\r\n$1\r\na\r\n",
        "*1\r\n$-1\r\n",
        "*-1\r\n",
        "*+1\r\n$1\r\na\r\n",
        "*1 \r\n$1\r\na\r\n",
        "*1\r\n$ 1\r\na\r\n",
        "*1\r\n:1\r\n",
        "*1\r\n+a\r\n",
        "*1\r\n*1\r\n$1\r\na\r\n",
        "PING\r\n",
        "$4\r\nPING\r\n",
        "*1\n$1\na\n",
        "*1\r\n$1\na\r\n",
        "*1\r\n$1\r\na\n\r",
        "*1\r\n$1\r\na\r\nX",
        "*1\r\n$1\r\na\r\n*1\r\n$1\r\na\r\n",
        "*2\r\n$1\r\na\r\n",
        "*3\r\n$1\r\na\r\n$1\r\nb\r\n",
        "*99999999999999999999999\r\n$1\r\na\r\n",
        "*18446744073709551617\r\n",
        "*1\r\n$18446744073709551616\r\na\r\n",
        "*1\r\n$99999999999999999999999999\r\na\r\n",
        "*1\r\n$4294967297\r\na\r\n",
        "*1\r\n$\r\n\r\n",
        "*1\r\n$1\r\n",
    };
    rg_view argv[4];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (parse_exact(bad[i], strlen(bad[i]), argv, 4) != 0) fail_msg("accepted: %s", bad[i]);
    assert_int_equal(rg_request_argv(NULL, 0, argv, 4), 0);
    /* Binary payloads, CRLF inside, empty arguments: all fine. */
    static const char good[] = "*3\r\n$0\r\n\r\n$2\r\n\r\n\r\n$3\r\n\0*\n\r\n";
    assert_int_equal(parse_exact(good, sizeof good - 1, argv, 4), 3);
    assert_int_equal(argv[0].len, 0);
    assert_memory_equal(argv[1].ptr, "\r\n", 2);
    assert_memory_equal(argv[2].ptr, "\0*\n", 3);
}

/* The path a proxy takes: an encoded call, its argv, its slot. */
static void slot_of_encoded_call(void **state) {
    (void)state;
    const rg_view call[] = {RG_LIT("MSET"), RG_LIT("{user1000}.following"), RG_LIT("1"),
                            RG_LIT("{user1000}.followers"), RG_LIT("2")};
    char req[128];
    const size_t len = rg_argv_encode(req, sizeof req, 5, call);
    assert_true(len > 0);
    rg_view argv[8];
    const size_t argc = rg_request_argv(req, len, argv, 8);
    assert_int_equal(argc, 5);
    assert_int_equal(rg_slot_of_argv(ks_mset, KS_COUNT(ks_mset), argc, argv), 3443);
    size_t pos[4];
    rg_error st;
    assert_int_equal(rg_keys_find(ks_mset, KS_COUNT(ks_mset), argc, argv, pos, 4, &st), 2);
    assert_memory_equal(argv[pos[1]].ptr, "{user1000}.followers", 20);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(single_and_range_keys), cmocka_unit_test(keynum_keys),
        cmocka_unit_test(keyword_keys),          cmocka_unit_test(incomplete_specs),
        cmocka_unit_test(invalid_argv),          cmocka_unit_test(empty_argv),
        cmocka_unit_test(malformed_specs),       cmocka_unit_test(huge_argc),
        cmocka_unit_test(status_precedence),     cmocka_unit_test(size_query),
        cmocka_unit_test(keyword_matching),      cmocka_unit_test(slots),
        cmocka_unit_test(matches_model),         cmocka_unit_test(request_round_trip),
        cmocka_unit_test(request_malformed),     cmocka_unit_test(slot_of_encoded_call),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
