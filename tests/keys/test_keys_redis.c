/* rg_slot_of_key and rg_keys_find against a live redis-server started with --cluster-enabled yes
 * (no slots need to be assigned: CLUSTER KEYSLOT and COMMAND GETKEYS answer anyway).
 *
 * Slots: the hashtag edge cases, some very long keys and thousands of random keys from four
 * alphabets (any byte, brace-heavy, printable, tag-shaped), pipelined 500 per write.
 * Keys: for the hand-written tables of cmd_specs.h, listed calls and random calls are sent as
 * COMMAND GETKEYS and compared by these rules (the server reports key names, not positions):
 *   RG_OK with keys:    the server names exactly the same keys, in the same order;
 *   RG_OK without keys: the server finds none either (empty array or an error);
 *   RG_INVALID:         not compared: once the specs fail, the server falls back to the
 *                            command's own key function, which may be more lenient (EVAL s 01 a
 *                            names a: it reads the count with atoi) although the command itself
 *                            rejects the call; the test counts how often that happens;
 *   RG_INCOMPLETE:      anything (the point of the status is to ask the server);
 *   an arity error:          not compared (COMMAND GETKEYS checks arity before keys).
 * The two documented differences (a key count of 0, a key count Redis truncates to int) are
 * checked to behave exactly as documented. */
#include "cmd_specs.h"
#include "rg_enc.h"
#include "rg_keys.h"
#include "test_redis.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

enum { MAX_ARGS = 48, BATCH = 500, REPLY_CAP = 4096 };

typedef test_fixture fixture;

static int setup(void **state) {
    /* The server runs in its own --dir, so a relative config file stays in its temp dir. */
    static const char *const extra[] = {"--cluster-enabled", "yes", "--cluster-config-file",
                                        "nodes.conf", NULL};
    return test_fixture_start(state, extra);
}

typedef struct rng {
    uint64_t s;
} rng;

static uint64_t next(rng *r) {
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return r->s;
}

/* ---- CLUSTER KEYSLOT --------------------------------------------------------------------------
 */

static void quote(const rg_view *k, char *out, size_t cap) {
    size_t o = 0;
    for (size_t i = 0; i < k->len && i < 40 && o + 5 < cap; i++) {
        const unsigned char c = (unsigned char)k->ptr[i];
        o += (size_t)snprintf(out + o, cap - o, c >= 32 && c < 127 ? "%c" : "\\x%02x", c);
    }
    snprintf(out + o, cap - o, "%s (%zu bytes)", k->len > 40 ? "..." : "", k->len);
}

/* Sends CLUSTER KEYSLOT for every key in one write, then checks each reply in order. */
static void compare_slots(fixture *f, const rg_view *keys, size_t n) {
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        const rg_view argv[] = {RG_LIT("CLUSTER"), RG_LIT("KEYSLOT"), keys[i]};
        total += rg_argv_size(3, argv);
    }
    char *req = malloc(total), *p = req;
    assert_non_null(req);
    for (size_t i = 0; i < n; i++) {
        const rg_view argv[] = {RG_LIT("CLUSTER"), RG_LIT("KEYSLOT"), keys[i]};
        p += rg_argv_encode(p, total - (size_t)(p - req), 3, argv);
    }
    assert_int_equal((size_t)(p - req), total);
    assert_int_equal(test_conn_send(&f->conn, req, total), 0);
    free(req);
    for (size_t i = 0; i < n; i++) {
        char out[64], want[16], q[256];
        assert_int_equal(test_conn_reply(&f->conn, out, sizeof out), 0);
        snprintf(want, sizeof want, ":%u", rg_slot_of_key(keys[i].ptr, keys[i].len));
        quote(&keys[i], q, sizeof q);
        if (strcmp(out, want) != 0) fail_msg("key %s: server %s, rg_slot_of_key %s", q, out, want);
    }
}

static void keyslot_known_values(void **state) {
    fixture *f = *state;
    static const struct {
        const char *key;
        unsigned slot;
    } rows[] = {{"foo", 12182},
                {"bar", 5061},
                {"somekey", 11058},
                {"{user1000}.following", 3443},
                {"{user1000}.followers", 3443},
                {"123456789", 0x31C3 & 0x3FFF}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char out[64], want[16];
        const char *argv[] = {"CLUSTER", "KEYSLOT", rows[i].key};
        assert_int_equal(test_conn_command(&f->conn, out, sizeof out, 3, argv), 0);
        snprintf(want, sizeof want, ":%u", rows[i].slot);
        assert_string_equal(out, want);
        assert_int_equal(rg_slot_of_key(rows[i].key, strlen(rows[i].key)), rows[i].slot);
    }
}

static void keyslot_edge_cases(void **state) {
    fixture *f = *state;
    static const struct {
        const char *p;
        size_t n;
    } small[] = {
        {"{}", 2},         {"{}a", 3},         {"a{}", 3},    {"{{a}}", 5},   {"a{b}c{d}", 8},
        {"{a", 2},         {"a}", 2},          {"}{a}", 4},   {"", 0},        {"{", 1},
        {"}", 1},          {"{{}}", 4},        {"}{", 2},     {"{ }", 3},     {"a{}{b}", 6},
        {"{a}{b}", 6},     {"\0{\0}", 4},      {"{\0}", 3},   {"{}}", 3},     {"{{", 2},
        {"}}", 2},         {"{}{}", 4},        {"{a}", 3},    {"x{y}", 4},    {"{\r\n}", 4},
        {"\xff{\xfe}", 4}, {"{user1000}", 10}, {"{{{{{a", 6}, {"a}}}}}{", 7},
    };
    enum { NSMALL = sizeof small / sizeof small[0], LONG = 200000 };
    rg_view keys[NSMALL + 4];
    for (size_t i = 0; i < NSMALL; i++) keys[i] = (rg_view){small[i].p, small[i].n};
    char *a = malloc(LONG), *tagged = malloc(LONG), *braces = malloc(LONG), *late = malloc(LONG);
    assert_true(a && tagged && braces && late);
    memset(a, 'a', LONG);
    memset(tagged, 'x', LONG);
    tagged[0] = '{';
    tagged[LONG - 1] = '}'; /* a tag of LONG - 2 bytes */
    memset(braces, '{', LONG);
    braces[LONG - 1] = '}'; /* first '{' at 0: the tag is LONG - 2 '{' */
    memset(late, 'z', LONG);
    memcpy(late + LONG - 4, "{t}", 3); /* a short tag near the end */
    keys[NSMALL + 0] = (rg_view){a, LONG};
    keys[NSMALL + 1] = (rg_view){tagged, LONG};
    keys[NSMALL + 2] = (rg_view){braces, LONG};
    keys[NSMALL + 3] = (rg_view){late, LONG};
    compare_slots(f, keys, NSMALL + 4);
    free(a);
    free(tagged);
    free(braces);
    free(late);
}

/* One random key: its length (mostly short, sometimes a few KiB) and its bytes. */
static size_t random_key(rng *r, int alphabet, char *out, size_t cap) {
    static const char braces[] = "{{}}ab\0c";
    static const char printable[] =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789{}{}:._-";
    size_t n = next(r) % 50 == 0 ? next(r) % cap : next(r) % 24;
    for (size_t i = 0; i < n; i++) {
        const uint64_t x = next(r);
        switch (alphabet) {
        case 0: out[i] = (char)x; break;
        case 1: out[i] = braces[x % (sizeof braces - 1)]; break;
        default: out[i] = printable[x % (sizeof printable - 1)]; break;
        }
    }
    if (alphabet == 3 && n + 2 <= cap) { /* a tag somewhere, maybe empty, maybe not closed */
        const size_t at = n ? next(r) % n : 0, len = next(r) % 4;
        out[at] = '{';
        if (at + 1 + len < n && next(r) % 4) out[at + 1 + len] = '}';
    }
    return n;
}

static void keyslot_random(void **state) {
    fixture *f = *state;
    enum { PER_ALPHABET = 2000, ALPHABETS = 4, MAXLEN = 4096 };
    rng r = {0x853C49E6748FEA9Bu};
    char *arena = malloc((size_t)BATCH * MAXLEN);
    assert_non_null(arena);
    rg_view keys[BATCH];
    size_t compared = 0;
    for (int alphabet = 0; alphabet < ALPHABETS; alphabet++) {
        for (size_t done = 0; done < PER_ALPHABET; done += BATCH) {
            for (size_t i = 0; i < BATCH; i++) {
                char *k = arena + i * MAXLEN;
                keys[i] = (rg_view){k, random_key(&r, alphabet, k, MAXLEN)};
            }
            compare_slots(f, keys, BATCH);
            compared += BATCH;
        }
    }
    free(arena);
    print_message("CLUSTER KEYSLOT: %zu random keys compared\n", compared);
}

/* ---- COMMAND GETKEYS --------------------------------------------------------------------------
 */

/* Words separated by single spaces; "" stands for an empty argument. */
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

/* The server's raw reply to COMMAND GETKEYS argv (NUL-terminated): raw, so that a key "" is not
 * mistaken for no key ("*1\r\n$0\r\n\r\n" against "*0\r\n"). */
static void getkeys(fixture *f, size_t argc, const rg_view *argv, char *out, size_t cap) {
    rg_view cmd[MAX_ARGS + 2] = {RG_LIT("COMMAND"), RG_LIT("GETKEYS")};
    memcpy(cmd + 2, argv, argc * sizeof *argv);
    const size_t size = rg_argv_size(argc + 2, cmd);
    char *req = malloc(size);
    assert_non_null(req);
    assert_int_equal(rg_argv_encode(req, size, argc + 2, cmd), size);
    assert_int_equal(test_conn_send(&f->conn, req, size), 0);
    free(req);
    size_t len;
    assert_int_equal(test_conn_reply_raw(&f->conn, out, cap - 1, &len), 0);
    out[len] = '\0';
}

/* What the server would send for our keys: an array of bulks, as raw bytes (NUL-terminated). */
static void render_keys(const size_t *pos, size_t n, const rg_view *argv, char *out, size_t cap) {
    rg_view keys[MAX_ARGS * 3];
    for (size_t i = 0; i < n; i++) keys[i] = argv[pos[i]];
    const size_t size = rg_argv_size(n, keys);
    assert_true(size < cap);
    assert_int_equal(rg_argv_encode(out, size, n, keys), size);
    out[size] = '\0';
}

/* A raw reply on one line for failure messages: CR and LF shown as spaces. */
static const char *shown(char *raw) {
    for (char *p = raw; *p; p++)
        if (*p == '\r' || *p == '\n') *p = ' ';
    return raw;
}

static int server_found_none(const char *reply) {
    return reply[0] == '-' || strcmp(reply, "*0\r\n") == 0;
}

/* A keynum spec whose count argument reads "0": the documented difference. */
static int has_zero_count(const cmd_specs *c, size_t argc, const rg_view *argv) {
    for (size_t i = 0; i < c->n; i++) {
        const rg_keyspec *s = &c->specs[i];
        const int64_t at = (int64_t)s->index + s->keynumidx;
        if (s->begin == RG_KS_INDEX && s->find == RG_KS_KEYNUM && at >= 1 && (size_t)at < argc &&
            argv[at].len == 1 && argv[at].ptr[0] == '0')
            return 1;
    }
    return 0;
}

typedef struct tally {
    size_t exact, none, incomplete, arity, zero_count, invalid, invalid_server_keys;
} tally;

/* Compares one call by the rules at the top; fails with the call in the message. */
static void compare_call(fixture *f, const cmd_specs *c, size_t argc, const rg_view *argv,
                         const char *line, tally *t) {
    size_t pos[MAX_ARGS * 3];
    rg_error st;
    const size_t n = rg_keys_find(c->specs, c->n, argc, argv, pos, MAX_ARGS * 3, &st);
    char got[REPLY_CAP], ours[REPLY_CAP];
    getkeys(f, argc, argv, got, sizeof got);
    render_keys(pos, n, argv, ours, sizeof ours);
    if (strstr(got, "Invalid number of arguments")) {
        t->arity++;
    } else if (st.status == RG_INCOMPLETE) {
        t->incomplete++;
    } else if (st.status == RG_INVALID) {
        t->invalid++;
        t->invalid_server_keys += !server_found_none(got);
    } else if (has_zero_count(c, argc, argv)) {
        /* Redis' spec walk gives up on a count of 0 and the command's key function finds no
         * keys; rg_keys_find reports the other specs' keys and RG_OK. */
        if (!server_found_none(got) || st.status != RG_OK)
            fail_msg("%s: count 0: server %s, ours %s status %d", line, shown(got), shown(ours),
                     st.status);
        t->zero_count++;
    } else if (st.status == RG_OK && n > 0) {
        if (strcmp(got, ours) != 0)
            fail_msg("%s: server %s, rg_keys_find %s", line, shown(got), shown(ours));
        t->exact++;
    } else {
        if (!server_found_none(got))
            fail_msg("%s: server %s, rg_keys_find no keys", line, shown(got));
        t->none++;
    }
}

static void report(const char *what, size_t calls, const tally *t) {
    print_message("COMMAND GETKEYS, %zu %s: %zu same keys, %zu no keys on both sides, %zu count 0, "
                  "%zu incomplete, %zu invalid (server still named keys for %zu), %zu arity "
                  "errors\n",
                  calls, what, t->exact, t->none, t->zero_count, t->incomplete, t->invalid,
                  t->invalid_server_keys, t->arity);
}

static const cmd_specs *specs_of(const char *name) {
    for (size_t i = 0; i < N_CMD_SPECS; i++)
        if (strcmp(all_cmd_specs[i].name, name) == 0) return &all_cmd_specs[i];
    fail_msg("no specs for %s", name);
    return NULL;
}

static void getkeys_listed_calls(void **state) {
    fixture *f = *state;
    static const struct {
        const char *cmd, *line;
    } rows[] = {
        {"GET", "GET k1"},
        {"GET", "GET"},
        {"SET", "SET k1 v EX 10"},
        {"SET", "SET k1 v GET"},
        {"MSET", "MSET a 1 b 2 c 3"},
        {"MSET", "MSET a 1"},
        {"MSET", "MSET a 1 b"},
        {"DEL", "DEL a b c"},
        {"DEL", "DEL a"},
        {"BLPOP", "BLPOP a b 0"},
        {"BLPOP", "BLPOP a 0"},
        {"EVAL", "EVAL s 2 a b x y"},
        {"EVAL", "EVAL s 1 a"},
        {"EVAL", "EVAL s 0"},
        {"EVAL", "EVAL s 0 x"},
        {"EVAL", "EVAL s 3 a b"},
        {"EVAL", "EVAL s -1 a"},
        {"EVAL", "EVAL s abc a"},
        {"EVAL", "EVAL s 999999 a"},
        {"EVAL", "EVAL s 01 a"},
        {"EVAL", "EVAL s +1 a"},
        {"EVAL", "EVAL s 99999999999999999999999 a"},
        {"EVAL", "EVAL s"},
        {"EVAL", "EVAL"},
        {"XREAD", "XREAD COUNT 2 STREAMS a b 0 0"},
        {"XREAD", "XREAD STREAMS a 0"},
        {"XREAD", "xread streams a b 0 0"},
        {"XREAD", "XREAD BLOCK 0 STREAMS a 0"},
        {"XREAD", "XREAD STREAMS a b 0"},
        {"XREAD", "XREAD COUNT 1 STREAMS"},
        {"XREAD", "XREAD COUNT 1 BLOCK 0"},
        {"XREAD", "XREAD STREAMS a"},
        {"XREADGROUP", "XREADGROUP GROUP g c STREAMS a b > >"},
        {"XREADGROUP", "XREADGROUP GROUP g c COUNT 1 STREAMS a >"},
        {"ZUNIONSTORE", "ZUNIONSTORE d 2 a b WEIGHTS 1 2"},
        {"ZUNIONSTORE", "ZUNIONSTORE d 1 a"},
        {"ZUNIONSTORE", "ZUNIONSTORE d 3 a b"},
        {"ZUNIONSTORE", "ZUNIONSTORE d 0 a"},
        {"ZUNIONSTORE", "ZUNIONSTORE d x a"},
        {"MIGRATE", "MIGRATE h p k 0 100"},
        {"MIGRATE", "MIGRATE h p k 0 100 COPY REPLACE"},
        {"MIGRATE", "MIGRATE h p k 0 100 AUTH KEYS"},
        {"MIGRATE", "MIGRATE h p \"\" 0 100 KEYS a b"},
        {"MIGRATE", "MIGRATE h p \"\" 0 100 AUTH2 u pw KEYS a"},
        /* "" names no key only when KEYS follows; without it "" is the key (migrateGetKeys) */
        {"MIGRATE", "MIGRATE 127.0.0.1 1 \"\" 0 1 COPY REPLACE AUTH v1"},
        {"MIGRATE", "MIGRATE h p \"\" 0 100"},
        {"MIGRATE", "MIGRATE h p \"\" 0 100 COPY"},
        {"MIGRATE", "MIGRATE h p \"\" 0 100 AUTH2 u pw"},
        {"MIGRATE", "MIGRATE h p \"\" 0 100 KEYS"},
        {"MIGRATE", "MIGRATE h p \"\" 0 100 AUTH pw KEYS"},
        {"MIGRATE", "MIGRATE h p \"\" 0 100 KEYS \"\" a"},
        {"MIGRATE", "MIGRATE h p \"\" 0 100 KEYS a \"\""},
        {"GET", "GET \"\""},
        {"MSET", "MSET \"\" 1 b 2"},
        {"SORT", "SORT k"},
        {"SORT", "SORT k STORE d"},
        {"SORT", "SORT k BY w_* GET o_* LIMIT 0 1"},
        {"LMPOP", "LMPOP 2 a b LEFT"},
        {"LMPOP", "LMPOP 1 a RIGHT COUNT 2"},
        {"LMPOP", "LMPOP 3 a b LEFT"},
        {"LMPOP", "LMPOP 0 a LEFT"},
        {"LMPOP", "LMPOP -1 a LEFT"},
        {"BLMPOP", "BLMPOP 0 2 a b LEFT"},
        {"BLMPOP", "BLMPOP 0 abc a LEFT"},
        {"BLMPOP", "BLMPOP 0 999999 a LEFT"},
        {"GEORADIUS", "GEORADIUS k 0 0 1 km"},
        {"GEORADIUS", "GEORADIUS k 0 0 1 km STORE d"},
        {"GEORADIUS", "GEORADIUS k 0 0 1 km STOREDIST d"},
        {"GEORADIUS", "GEORADIUS k 0 0 1 km store d"},
        {"GEORADIUS", "GEORADIUS k 0 0 1 km WITHDIST COUNT 1 STORE d"},
        {"GEORADIUS", "GEORADIUS k 0 0 1 km STORE d STOREDIST e"},
        {"GEORADIUS", "GEORADIUS k 0 0 1 km STORE"},
        {"OBJECT ENCODING", "OBJECT ENCODING k"},
        {"OBJECT ENCODING", "OBJECT ENCODING"},
        {"XGROUP CREATE", "XGROUP CREATE k g $"},
        {"XGROUP CREATE", "XGROUP CREATE k g $ MKSTREAM ENTRIESREAD 3"},
        {"SMOVE", "SMOVE a b m"},
        {"RENAME", "RENAME a b"},
        {"COPY", "COPY a b"},
        {"COPY", "COPY a b DB 1 REPLACE"},
        {"LCS", "LCS a b"},
        {"LCS", "LCS a b IDX MINMATCHLEN 2"},
        {"SINTERCARD", "SINTERCARD 2 a b"},
        {"SINTERCARD", "SINTERCARD 2 a b LIMIT 1"},
        {"SINTERCARD", "SINTERCARD 1 a"},
        {"SINTERCARD", "SINTERCARD 5 a b"},
        {"SINTERCARD", "SINTERCARD 0 a"},
        {"BITOP", "BITOP AND d a b"},
        {"BITOP", "BITOP NOT d a"},
        {"BITOP", "BITOP AND d"},
        {"SPUBLISH", "SPUBLISH ch m"},
    };
    tally t = {0};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        rg_view argv[MAX_ARGS];
        const size_t argc = split(rows[i].line, argv);
        compare_call(f, specs_of(rows[i].cmd), argc, argv, rows[i].line, &t);
    }
    report("listed calls", sizeof rows / sizeof rows[0], &t);
}

/* Redis 7.0 casts the parsed count to int: 4294967297 keys is 1 key to its spec walk (the command
 * itself then fails). rg_keys_find refuses any count over argc. */
static void getkeys_truncated_count(void **state) {
    fixture *f = *state;
    rg_view argv[MAX_ARGS];
    const size_t argc = split("EVAL s 4294967297 a", argv);
    char got[REPLY_CAP];
    getkeys(f, argc, argv, got, sizeof got);
    rg_error st;
    assert_int_equal(rg_keys_find(ks_eval, KS_COUNT(ks_eval), argc, argv, NULL, 0, &st), 0);
    assert_int_equal(st.status, RG_INVALID);
    print_message("COMMAND GETKEYS EVAL s 4294967297 a: server %s, rg_keys_find INVALID\n",
                  shown(got));
}

/* Random calls: the command's words, then words from a vocabulary rich in the tokens specs look
 * for, in random number. */
static void getkeys_random_calls(void **state) {
    fixture *f = *state;
    static const char *const vocab[] =
        {
            "a",    "b",       "c",    "d",   "e",       "0",     "1",       "2",
            "3",    "-1",      "01",   "abc", "STREAMS", "KEYS",  "STORE",   "STOREDIST",
            "LEFT", "km",      "$",    ">",   "g",       "COUNT", "streams", "store",
            "4",    "WEIGHTS", "AUTH", "k",   "x",       "y",     "", /* an empty argument */
        };
    enum { VOCAB = sizeof vocab / sizeof vocab[0], PER_COMMAND = 300 };
    rng r = {0xA0761D6478BD642Fu};
    tally t = {0};
    for (size_t ci = 0; ci < N_CMD_SPECS; ci++) {
        const cmd_specs *c = &all_cmd_specs[ci];
        rg_view argv[MAX_ARGS];
        const size_t words = split(c->name, argv);
        for (int round = 0; round < PER_COMMAND; round++) {
            const size_t extra = next(&r) % 10;
            for (size_t i = 0; i < extra; i++) {
                const char *w = vocab[next(&r) % VOCAB];
                argv[words + i] = (rg_view){w, strlen(w)};
            }
            char line[512];
            size_t o = 0;
            for (size_t i = 0; i < words + extra && o < sizeof line; i++)
                o += (size_t)snprintf(line + o, sizeof line - o, "%s%.*s", i ? " " : "",
                                      argv[i].len ? (int)argv[i].len : 2,
                                      argv[i].len ? argv[i].ptr : "\"\"");
            compare_call(f, c, words + extra, argv, line, &t);
        }
    }
    report("random calls", N_CMD_SPECS * PER_COMMAND, &t);
    assert_true(t.exact > N_CMD_SPECS * PER_COMMAND / 5);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(keyslot_known_values),    cmocka_unit_test(keyslot_edge_cases),
        cmocka_unit_test(keyslot_random),          cmocka_unit_test(getkeys_listed_calls),
        cmocka_unit_test(getkeys_truncated_count), cmocka_unit_test(getkeys_random_calls),
    };
    return cmocka_run_group_tests(tests, setup, test_fixture_teardown);
}
