/* The generated argument parser (redis_srv_parse over specs/redis.lua) against a real
 * redis-server, differentially.
 *
 * 1. Acceptance: every sample call respgen --sample-calls made for the installed server
 *    (redis_calls.h, the calls server_commands sends), read back into argv by rg_req, must parse
 *    to its own command id, subcommand included.
 * 2. Mutations of each accepted call: one junk word appended; each argument word (after the
 *    command words) replaced by junk, and dropped; each integer word made "1.5"; each other
 *    number made "(1" and "-inf"; every tail that starts with a token moved before an earlier
 *    token (Redis reads most options in any order). Each mutation goes through redis_srv_parse
 *    and, on a fresh connection, to the server, after the call's keys were made afresh with the
 *    type its command group wants (so that Redis parses the whole call instead of answering
 *    early for a missing key, as BITCOUNT, HSCAN, LINDEX and GETEX do). The verdicts:
 *      ours rejects with E, the server says -E                 identical
 *      ours rejects, the server accepts                        FAILURE: we refuse valid input
 *      ours rejects, the server gives another error            FAILURE: texts must be Redis'
 *      ours rejects, the server gives a STATE error            unsure: Redis refused for the
 *                                                              server's or keys' state first
 *      ours accepts, the server gives a non-STATE error        lenient (not a failure: semantic
 *                                                              checks are the handlers')
 *      ours accepts, the server accepts or gives a STATE error agree
 *    Commands without an argument table (raw: only the arity is checked) are counted apart when
 *    ours accepts. KNOWN lists explained failures, so that the test fails only on new ones; DENY
 *    lists the commands whose mutations are not sent.
 * The tally, the causes (verdict, our text, the server's) and every case that does not agree are
 * printed.
 */
#include "redis_calls.h"
#include "redis_keys.h"
#include "redis_server.h"
#include "rg_enc.h"
#include "rg_req.h"
#include "test_redis.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

enum { REQ_CAP = 1 << 16, OUT_CAP = 1 << 12, MAX_WORDS = 64, SEEN_SLOTS = 1 << 15 };

#define N_CALLS     (sizeof redis_sample_calls / sizeof redis_sample_calls[0])
#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

#define JUNK RG_LIT("rgjunk")

/* Commands whose mutations are not sent (their sample calls are still parsed). */
typedef struct denied {
    const char *command; /* redis_srv_commands[].name */
    const char *reason;
} denied;

static const denied DENY[] = {
    {"shutdown", "stops the server (already skipped as a sample call)"},
    {"debug", "DEBUG SLEEP/SEGFAULT/RELOAD... would stall or crash the server"},
    {"monitor", "turns the connection into a stream of every later command"},
    {"sync", "replication stream instead of a reply"},
    {"psync", "replication stream instead of a reply"},
    {"replicaof", "makes the scratch server a read-only replica"},
    {"slaveof", "makes the scratch server a read-only replica"},
    {"failover", "a mutation without FORCE/TIMEOUT could start a failover that pauses writers"},
    {"wait", "a timeout mutated to 0 blocks forever (no replicas ever acknowledge)"},
    {"subscribe", "replies are a push per channel; an accepted call leaves a subscriber"},
    {"psubscribe", "replies are a push per pattern; an accepted call leaves a subscriber"},
    {"ssubscribe", "replies are a push per channel; an accepted call leaves a subscriber"},
    {"acl|setuser", "a mutated rule list could lock the default user out"},
    {"acl|deluser", "a mutated user name could delete a user the test relies on"},
    {"acl|load", "reloads the ACL from a file, replacing the users"},
    {"config|set", "a mutated name/value pair could reconfigure the scratch server"},
    {"client|pause", "a mutated timeout could pause every client for long"},
    {"client|kill", "a mutated filter could kill other connections of the test"},
    {"client|reply", "OFF/SKIP would leave the test waiting for a reply that never comes"},
};

/* Explained failures: a failing case whose command, our text and server reply prefix match an
 * entry counts as known, not as a failure. server NULL: the server accepted. Only semantic
 * checks belong here: Redis looked at the meaning of a value (often a sample value that is
 * well-formed for the spec but not for Redis) before it looked at the words our parser
 * refuses. Entries never met are printed, to be removed. */
typedef struct divergence {
    const char *command;
    const char *ours;
    const char *server;
    const char *reason;
} divergence;

#define SYNTAX    "ERR syntax error"
#define NOT_INT   "ERR value is not an integer or out of range"
#define BAD_ID    "-ERR Invalid stream ID specified as stream command argument"
#define NO_MEMBER "-ERR could not decode requested zset member"
#define SAMPLE_ID "the sample's stream IDs are \"v\": Redis checks an ID as it meets it"
#define STREAMS_LAST                                                                            \
    "a reordered call with STREAMS before GROUP: Redis takes every word after STREAMS as keys " \
    "and "                                                                                      \
    "IDs, ours takes the options set's tokens first"
#define XADD_ARITY "ERR wrong number of arguments for 'xadd' command"
#define WEIGHTS    "WEIGHTS takes exactly numkeys words in Redis, ours the words up to the next option"
#define WITHSCORE  "WITHSCORE is Redis 7.2's (the spec's source has it); 7.0 counts an extra word"

static const divergence KNOWN[] = {
    {"hello", SYNTAX, "-NOPROTO unsupported protocol version",
     "HELLO checks the version (the sample's 1 is unsupported) before its options"},
    {"geosearch", SYNTAX, NO_MEMBER, "the member is looked up before the options"},
    {"geosearchstore", SYNTAX, NO_MEMBER, "the member is looked up before the options"},
    {"xrange", SYNTAX, BAD_ID, SAMPLE_ID},
    {"xrange", NOT_INT, BAD_ID, SAMPLE_ID},
    {"xrevrange", SYNTAX, BAD_ID, SAMPLE_ID},
    {"xrevrange", NOT_INT, BAD_ID, SAMPLE_ID},
    {"xsetid", SYNTAX, BAD_ID, SAMPLE_ID},
    {"xsetid", NOT_INT, BAD_ID, SAMPLE_ID},
    {"xautoclaim", SYNTAX, "-ERR Invalid min-idle-time argument for XAUTOCLAIM",
     "the sample's min-idle-time is \"v\" (a string in the spec), checked first"},
    {"xautoclaim", NOT_INT, "-ERR Invalid min-idle-time argument for XAUTOCLAIM",
     "the sample's min-idle-time is \"v\" (a string in the spec), checked first"},
    {"migrate", SYNTAX, "-ERR When using MIGRATE KEYS option, the key argument must be set",
     "the full sample names a key and KEYS; Redis checks that before the rest"},
    {"migrate", NOT_INT, "-ERR When using MIGRATE KEYS option, the key argument must be set",
     "the full sample names a key and KEYS; Redis checks that before the numbers"},
    {"georadiusbymember", "ERR need numeric radius", NO_MEMBER,
     "the member is looked up before the radius is read"},
    {"georadiusbymember_ro", "ERR need numeric radius", NO_MEMBER,
     "the member is looked up before the radius is read"},
    {"lolwut", SYNTAX, NULL, "LOLWUT ignores words it does not know"},
    {"migrate", NOT_INT, "+NOKEY", "MIGRATE looks the key up before it reads the port"},
    {"bitcount", NOT_INT, "-ERR syntax error",
     "BITCOUNT k x: Redis counts the words (start needs end) before it converts them"},
    {"exec", "ERR wrong number of arguments for 'exec' command", "-EXECABORT",
     "Redis words any error of EXEC itself as the end of a transaction"},
    {"function|load", SYNTAX, "-ERR Unknown option given",
     "FUNCTION LOAD reads every word before the last as an option, in a loop of its own"},
    {"function|load", SYNTAX, "-ERR Missing library metadata",
     "FUNCTION LOAD REPLACE: a lone word is the code to Redis"},
    {"xtrim", SYNTAX, "-" NOT_INT,
     "the threshold is a string in the spec (MINID takes an ID); Redis converts MAXLEN's as it "
     "meets it, so a misplaced word is a bad number there"},
    {"xadd", XADD_ARITY, BAD_ID,
     "Redis checks the ID's form where it expects the ID before it counts the field-value words"},
    {"xadd", XADD_ARITY, "-" NOT_INT,
     "MAXLEN's threshold is a string in the spec (MINID takes an ID); Redis converts it as it "
     "meets it"},
    {"xadd", XADD_ARITY, "-ERR syntax error, LIMIT cannot be used without specifying a trimming",
     "Redis checks LIMIT's strategy when it meets the ID, before the field-value words"},
    {"xreadgroup", SYNTAX, "-ERR Unbalanced XREAD list of streams", STREAMS_LAST},
    {"xreadgroup", SYNTAX, "-ERR Missing GROUP option for XREADGROUP", STREAMS_LAST},
    {"zunion", SYNTAX, "-ERR weight value is not a float", WEIGHTS},
    {"zunionstore", SYNTAX, "-ERR weight value is not a float", WEIGHTS},
    {"zinter", SYNTAX, "-ERR weight value is not a float", WEIGHTS},
    {"zinterstore", SYNTAX, "-ERR weight value is not a float", WEIGHTS},
    {"zrank", SYNTAX, "-ERR wrong number of arguments", WITHSCORE},
    {"zrevrank", SYNTAX, "-ERR wrong number of arguments", WITHSCORE},
};

/* Server errors about the state of the server or of the keys, not about the words: with them
 * Redis says nothing about the arguments. Matched as substrings of the reply. */
typedef struct state_error {
    const char *text;
    const char *why;
} state_error;

static const state_error STATE_ERRORS[] = {
    {"-WRONGTYPE", "a key of another type (\"rgjunk\" is made by other mutations)"},
    {"-NOSCRIPT", "EVALSHA of a script never loaded"},
    {"-BUSYKEY", "RESTORE onto an existing key"},
    {"-WRONGPASS", "AUTH with the sample's credentials"},
    {"-NOPERM", "ACL refuses"},
    {"-ERR no such key", "a key the mutation renamed"},
    {"-ERR This instance has cluster support disabled", "CLUSTER on a non-cluster server"},
    {"-ERR Function not found", "FCALL of a function never loaded"},
    {"-ERR MODULE command not allowed", "MODULE is disabled by the server's configuration"},
    {"-ERR CLIENT CACHING can be called only", "needs tracking mode on the connection"},
    {"-ERR The server is running without a config file", "CONFIG REWRITE"},
    {"-ERR This Redis instance is not configured to use an ACL file", "ACL LOAD/SAVE"},
    {"-NOGROUP", "a consumer group that does not exist"},
    {"-BUSYGROUP", "the group \"v\" the stream maker below creates"},
    {"-IOERR", "MIGRATE to a closed port"},
    {"-ERR User '", "ACL DRYRUN of a user that does not exist"},
    {"-ERR AUTH <password> called without any password configured", "no password is set"},
    {"-ERR Library not found", "FUNCTION DELETE of a library never loaded"},
    {"-ERR An LFU maxmemory policy is not selected", "OBJECT FREQ under the default policy"},
    {"-ERR No samples available for event", "LATENCY GRAPH of an event never seen"},
    {"-ERR The client ID you want redirect to does not exist", "CLIENT TRACKING REDIRECT 1"},
    {"-ERR Background save already in progress", "a BGSAVE of an earlier case still runs"},
};
typedef enum verdict {
    V_AGREE,      /* both accept, or ours accepts and the server refuses for a STATE reason */
    V_IDENTICAL,  /* both reject with the same text */
    V_RAW,        /* ours accepts by arity alone (no table); the server agrees */
    V_RAW_LAX,    /* ours accepts by arity alone; the server refuses the words */
    V_LENIENT,    /* ours accepts words the server refuses */
    V_UNSURE,     /* ours rejects, the server refuses for a STATE_ERRORS reason */
    V_KNOWN,      /* a failure explained in KNOWN */
    V_FAIL_VALID, /* ours rejects what the server accepts */
    V_FAIL_TEXT,  /* both reject the words, with different texts */
    V_FAIL_REPLY, /* the server did not answer */
    V_COUNT
} verdict;

static const char *const VERDICT_NAME[V_COUNT] = {
    "agree",
    "identical error texts",
    "raw, server agrees",
    "raw, server refuses the words",
    "lenient",
    "unsure",
    "known divergence",
    "FAILURE: rejects valid input",
    "FAILURE: error text differs",
    "FAILURE: no reply",
};

static bool is_failure(verdict v) {
    return v >= V_FAIL_VALID;
}

/* Verdicts whose cases are printed one by one (raw ones are counted only: too many). */
static bool is_listed(verdict v) {
    return v == V_LENIENT || v == V_UNSURE || v == V_KNOWN || is_failure(v);
}

/* One sample call, read back into argv. */
typedef struct call {
    const redis_sample_call *sample;
    char *bytes; /* the encoded request; argv points into it */
    size_t argc, words;
    rg_view argv[MAX_WORDS];
    char group[24]; /* COMMAND DOCS group of its first word: the type its keys are made with */
} call;

/* A group of cases with one verdict, our text and the server's reply. */
typedef struct cause {
    verdict v;
    char ours[128], server[160];
    size_t n;
    char commands[160]; /* the first distinct commands, space-separated */
    char example[160];  /* the first case's words */
} cause;

typedef struct record {
    verdict v;
    char *line;
} record;

typedef struct run {
    int port;
    size_t cases, by[V_COUNT], known_hits[COUNT_OF(KNOWN)];
    cause *causes;
    size_t ncauses, causes_cap;
    record *records;
    size_t nrecords, records_cap;
    uint64_t *seen;  /* hashes of the argvs already tried: the forms share mutations */
    char *req;       /* encoding scratch */
    test_conn admin; /* makes keys, asks COMMAND DOCS */
} run;

static call calls[N_CALLS];
static test_redis server;

/* ---- the sample calls ---- */

/* "CLIENT LIST" -> "client|list", the form of redis_srv_commands[].name. */
static void redis_name(const char *command, char *dst, size_t cap) {
    size_t i = 0;
    for (; command[i] && i + 1 < cap; i++) {
        const char ch = command[i];
        dst[i] = ch == ' ' ? '|' : (ch >= 'A' && ch <= 'Z') ? (char)(ch + 32) : ch;
    }
    dst[i] = '\0';
}

/* Encodes the sample with its generated encoder and reads it back with rg_req, as a server
 * would. Returns 0, or -1 when either side refuses. */
static int decode_call(const redis_sample_call *s, call *c, char *scratch) {
    const size_t len = s->encode(scratch, REQ_CAP);
    c->sample = s;
    c->bytes = len ? malloc(len) : NULL;
    if (!c->bytes) return -1;
    memcpy(c->bytes, scratch, len);
    rg_req r;
    rg_req_init(&r, NULL);
    size_t pos = 0;
    if (rg_req_next(&r, c->bytes, len, &pos, c->argv, MAX_WORDS, &c->argc) != RG_OK) return -1;
    c->words = strchr(s->command, ' ') ? 2 : 1;
    return pos == len ? 0 : -1;
}

/* A reply on one line: CR and LF shown escaped, cut after 200 bytes (LOLWUT's art). */
static void print_reply(FILE *f, const char *reply) {
    size_t i = 0;
    for (; reply[i] && i < 200; i++) {
        if (reply[i] == '\r' || reply[i] == '\n') {
            fputs(reply[i] == '\r' ? "\\r" : "\\n", f);
        } else {
            fputc(reply[i], f);
        }
    }
    if (reply[i]) fputs("...", f);
}

static void print_argv(FILE *f, size_t argc, const rg_view *argv) {
    for (size_t i = 0; i < argc; i++) {
        fprintf(f, i ? " %.*s" : "%.*s", (int)argv[i].len, argv[i].ptr);
        if (argv[i].len == 0) fputs("\"\"", f);
    }
}

/* Sends argv on a fresh connection (a command may change its connection's state) and renders
 * the reply into got. Returns got, or NULL when the server did not answer. */
static const char *ask_server(int port, size_t argc, const rg_view *argv, char *scratch,
                              char *got) {
    const size_t len = rg_argv_encode(scratch, REQ_CAP, argc, argv);
    test_conn conn;
    if (len == 0 || test_conn_open(&conn, port) != 0) return NULL;
    const int rc =
        test_conn_send(&conn, scratch, len) == 0 ? test_conn_reply(&conn, got, OUT_CAP) : -1;
    test_conn_close(&conn);
    return rc == 0 ? got : NULL;
}

static bool state_error_reply(const char *reply) {
    for (size_t i = 0; i < COUNT_OF(STATE_ERRORS); i++) {
        if (strstr(reply, STATE_ERRORS[i].text)) return true;
    }
    return false;
}

/* got: the server's rendered reply, NULL when it did not answer; ours: our error text, NULL
 * when redis_srv_parse accepted. */
static verdict judge(const char *ours, bool raw, const char *got) {
    if (!got) return V_FAIL_REPLY;
    const bool refused = got[0] == '-' && !state_error_reply(got);
    if (!ours) {
        if (refused) return raw ? V_RAW_LAX : V_LENIENT;
        return raw ? V_RAW : V_AGREE;
    }
    if (got[0] != '-') return V_FAIL_VALID;
    if (strcmp(got + 1, ours) == 0) return V_IDENTICAL;
    return refused ? V_FAIL_TEXT : V_UNSURE;
}

/* The KNOWN entry explaining a failure, or -1. */
static int known_entry(const char *name, const char *ours, const char *got) {
    for (size_t i = 0; i < COUNT_OF(KNOWN); i++) {
        const divergence *d = &KNOWN[i];
        if (strcmp(d->command, name) != 0 || strcmp(d->ours, ours) != 0) continue;
        if (d->server ? strncmp(got, d->server, strlen(d->server)) == 0 : got[0] != '-') {
            return (int)i;
        }
    }
    return -1;
}

static int setup(void **state) {
    (void)state;
    char *scratch = malloc(REQ_CAP);
    int rc = scratch ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < N_CALLS; i++) {
        if (redis_sample_calls[i].skip) continue;
        if (decode_call(&redis_sample_calls[i], &calls[i], scratch) != 0) {
            fprintf(stderr, "cannot encode and read back %s (%s)\n", redis_sample_calls[i].command,
                    redis_sample_calls[i].form);
            rc = -1;
        }
    }
    free(scratch);
    return rc == 0 ? test_redis_start(&server, NULL) : -1;
}

static int teardown(void **state) {
    (void)state;
    test_redis_stop(&server);
    for (size_t i = 0; i < N_CALLS; i++) free(calls[i].bytes);
    return 0;
}

/* A command that takes arguments but has no table: only its arity is checked. */
static bool is_raw(redis_srv_cmd id, size_t words) {
    const redis_srv_command *c = &redis_srv_commands[id];
    return c->args == NULL && c->arity != (int)words;
}

/* A sample ours refuses, judged as a mutation is: a failure unless the server refuses it with
 * the same text (the sample, not the parser, is wrong), for a STATE reason, or as KNOWN says.
 * Returns true for a failure. */
static bool refused_sample(const call *c, const char *ours) {
    static char scratch[REQ_CAP], got[OUT_CAP];
    const char *reply = ask_server(server.port, c->argc, c->argv, scratch, got);
    char name[64];
    redis_name(c->sample->command, name, sizeof name);
    verdict v = judge(ours, false, reply);
    if (is_failure(v) && reply && known_entry(name, ours, reply) >= 0) v = V_KNOWN;
    printf("sample refused [%s] %s (%s): ", VERDICT_NAME[v], c->sample->command, c->sample->form);
    print_argv(stdout, c->argc, c->argv);
    printf("\n      ours: %s\n      server: ", ours);
    print_reply(stdout, reply ? reply : "(no reply)");
    putchar('\n');
    return is_failure(v);
}

static void test_samples_parse(void **state) {
    (void)state;
    size_t table = 0, raw = 0, none = 0, refused = 0, bad = 0;
    for (size_t i = 0; i < N_CALLS; i++) {
        const call *c = &calls[i];
        if (!c->sample) continue;
        char want[64];
        redis_name(c->sample->command, want, sizeof want);
        redis_srv_args args;
        rg_errbuf err = {0};
        const redis_srv_cmd id = redis_srv_parse(c->argc, c->argv, &args, &err);
        if (id == REDIS_SRV_NONE) {
            refused++;
            bad += refused_sample(c, err.text);
        } else if (strcmp(redis_srv_commands[id].name, want) != 0) {
            bad++;
            printf("WRONG COMMAND %s (%s): %s\n", c->sample->command, c->sample->form,
                   redis_srv_commands[id].name);
        } else if (redis_srv_commands[id].args) {
            table++;
        } else if (is_raw(id, c->words)) {
            raw++;
        } else {
            none++;
        }
    }
    printf("sample calls: %zu parsed by tables, %zu raw (arity only), %zu without arguments, "
           "%zu refused (%zu of them failures)\n",
           table, raw, none, refused, bad);
    fflush(stdout);
    assert_int_equal(bad, 0);
    assert_true(table > 0);
}

/* ---- the keys of a call ---- */

/* Where the command's group does not give the key type a call needs. */
typedef struct key_group {
    const char *command;
    const char *group; /* NULL: no key is made */
    const char *why;
} key_group;

static const key_group KEY_GROUPS[] = {
    {"sort", "list", "group generic, but SORT wants a list, set or sorted set"},
    {"sort_ro", "list", "as SORT"},
    {"migrate", NULL, "with its key present MIGRATE connects to the mutated host: a DNS lookup"},
    {"restore", NULL, "RESTORE wants its key absent: BUSYKEY would come before the rest"},
    {"restore-asking", NULL, "as RESTORE"},
};

/* How a key of each group is made; "@" stands for the key. Values are numbers where a command
 * may compute with them (INCR, HINCRBY). */
typedef struct maker {
    const char *group;
    const char *make[2][6]; /* a second command when make[1][0] is set */
} maker;

static const maker MAKERS[] = {
    {"list", {{"RPUSH", "@", "v"}}},
    {"set", {{"SADD", "@", "v"}}},
    {"sorted-set", {{"ZADD", "@", "1", "v"}}},
    {"hash", {{"HSET", "@", "v", "1"}}},
    {"geo", {{"GEOADD", "@", "1.5", "1.5", "v"}}},
    {"hyperloglog", {{"PFADD", "@", "v"}}},
    {"stream", {{"XADD", "@", "1-1", "v", "v"}, {"XGROUP", "CREATE", "@", "v", "0"}}},
    {"", {{"SET", "@", "1"}}}, /* string, bitmap, generic and the rest */
};

/* Sends argv on the admin connection and reads (and drops) the reply. */
static void admin(run *r, size_t argc, const rg_view *argv, char *got) {
    const size_t len = rg_argv_encode(r->req, REQ_CAP, argc, argv);
    assert_true(len > 0);
    assert_int_equal(test_conn_send(&r->admin, r->req, len), 0);
    assert_int_equal(test_conn_reply(&r->admin, got, OUT_CAP), 0);
}

/* The group from COMMAND DOCS, rendered as *[name,*[summary,...,group,<group>,...]]. */
static void fetch_group(run *r, call *c) {
    static char got[OUT_CAP];
    const rg_view argv[] = {RG_LIT("COMMAND"), RG_LIT("DOCS"), c->argv[0]};
    admin(r, 3, argv, got);
    const char *g = strstr(got, ",group,");
    const size_t n = g ? strcspn(g + 7, ",]") : 0;
    snprintf(c->group, sizeof c->group, "%.*s", (int)n, g ? g + 7 : "");
}

/* The group a call's keys are made for, NULL for none. */
static const char *key_group_of(const call *c, const char *name) {
    for (size_t i = 0; i < COUNT_OF(KEY_GROUPS); i++) {
        if (strcmp(KEY_GROUPS[i].command, name) == 0) return KEY_GROUPS[i].group;
    }
    return c->group;
}

static const maker *maker_of(const char *group) {
    size_t i = 0;
    while (i + 1 < COUNT_OF(MAKERS) && strcmp(MAKERS[i].group, group) != 0) i++;
    return &MAKERS[i];
}

static void make_key(run *r, const maker *m, rg_view key) {
    static char got[OUT_CAP];
    const rg_view del[] = {RG_LIT("DEL"), key};
    admin(r, 2, del, got);
    for (size_t k = 0; k < 2 && m->make[k][0]; k++) {
        rg_view argv[6];
        size_t n = 0;
        for (; n < 6 && m->make[k][n]; n++) {
            const char *w = m->make[k][n];
            argv[n] = strcmp(w, "@") == 0 ? key : (rg_view){w, strlen(w)};
        }
        admin(r, n, argv, got);
    }
}

static bool same_word(rg_view a, rg_view b) {
    return a.len == b.len && memcmp(a.ptr, b.ptr, a.len) == 0;
}

/* The key words of argv: where the key specs (redis_keys.h) put keys, and the sample's own keys
 * ("k:<command>", tools/sample_calls.lua's default) wherever a mutation moved them. */
static size_t key_words(size_t argc, const rg_view *argv, size_t words, rg_view *keys) {
    size_t pos[MAX_WORDS], n = 0, npos = 0;
    rg_error st;
    const redis_keys_entry *e = redis_keys_command(argc, argv);
    if (e) npos = rg_keys_find(e->specs, e->count, argc, argv, pos, MAX_WORDS, &st);
    for (size_t i = words; i < argc; i++) {
        bool key = argv[i].len > 2 && memcmp(argv[i].ptr, "k:", 2) == 0;
        for (size_t j = 0; j < npos && j < MAX_WORDS && !key; j++) key = pos[j] == i;
        for (size_t j = 0; j < n && key; j++) key = !same_word(keys[j], argv[i]);
        if (key) keys[n++] = argv[i];
    }
    return n;
}

/* Makes every key of the call afresh, of the type its command wants: the mutations before may
 * have changed or deleted it, and a mutation may have moved another word into a key's place. */
static void make_keys(run *r, const call *c, const char *name, size_t argc, const rg_view *argv) {
    const char *group = key_group_of(c, name);
    if (!group) return;
    const maker *m = maker_of(group);
    rg_view keys[MAX_WORDS];
    const size_t n = key_words(argc, argv, c->words, keys);
    for (size_t i = 0; i < n; i++) make_key(r, m, keys[i]);
}

/* ---- the mutations ---- */

static const char *deny_reason(const char *name) {
    for (size_t i = 0; i < COUNT_OF(DENY); i++) {
        if (strcmp(DENY[i].command, name) == 0) return DENY[i].reason;
    }
    return NULL;
}

/* FNV-1a over the words and their lengths. */
static uint64_t argv_hash(size_t argc, const rg_view *argv) {
    uint64_t h = 1469598103934665603u;
    for (size_t i = 0; i < argc; i++) {
        for (size_t j = 0; j < argv[i].len; j++) {
            h = (h ^ (unsigned char)argv[i].ptr[j]) * 1099511628211u;
        }
        h = (h ^ argv[i].len ^ 0x100) * 1099511628211u;
    }
    return h ? h : 1;
}

/* Marks argv as seen; false when it was already. */
static bool first_time(run *r, size_t argc, const rg_view *argv) {
    const uint64_t h = argv_hash(argc, argv);
    for (size_t i = h % SEEN_SLOTS;; i = (i + 1) % SEEN_SLOTS) {
        if (r->seen[i] == h) return false;
        if (r->seen[i] == 0) {
            r->seen[i] = h;
            return true;
        }
    }
}

static void *grow(void *items, size_t *cap, size_t need, size_t size) {
    if (need <= *cap) return items;
    const size_t n = *cap ? *cap * 2 : 64;
    void *p = realloc(items, n * size);
    assert_non_null(p);
    *cap = n;
    return p;
}

static void add_command(char *list, size_t cap, const char *name) {
    const size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)) != NULL; p += n) {
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return;
    }
    const size_t used = strlen(list);
    if (used + n + 5 >= cap) {
        if (!strstr(list, "...")) snprintf(list + used, cap - used, " ...");
        return;
    }
    snprintf(list + used, cap - used, used ? " %s" : "%s", name);
}

static void count_cause(run *r, verdict v, const char *name, size_t argc, const rg_view *argv,
                        const char *ours, const char *got) {
    const char *o = ours ? ours : "(accepted)", *s = got ? got : "(no reply)";
    cause *c = NULL;
    for (size_t i = 0; i < r->ncauses && !c; i++) {
        cause *k = &r->causes[i];
        if (k->v == v && strncmp(k->ours, o, sizeof k->ours - 1) == 0 &&
            strncmp(k->server, s, sizeof k->server - 1) == 0) {
            c = k;
        }
    }
    if (!c) {
        r->causes = grow(r->causes, &r->causes_cap, r->ncauses + 1, sizeof *r->causes);
        c = &r->causes[r->ncauses++];
        *c = (cause){.v = v};
        /* cut to fit: causes are told apart by their beginnings */
        snprintf(c->ours, sizeof c->ours, "%.*s", (int)sizeof c->ours - 1, o);
        snprintf(c->server, sizeof c->server, "%.*s", (int)sizeof c->server - 1, s);
        FILE *f = fmemopen(c->example, sizeof c->example - 1, "w"); /* keeps a NUL */
        assert_non_null(f);
        print_argv(f, argc, argv);
        fclose(f);
    }
    c->n++;
    add_command(c->commands, sizeof c->commands, name);
}

static void keep_record(run *r, verdict v, size_t argc, const rg_view *argv, const char *ours,
                        const char *got) {
    char *line = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&line, &size);
    assert_non_null(f);
    print_argv(f, argc, argv);
    fprintf(f, "\n      ours: %s\n      server: ", ours ? ours : "(accepted)");
    print_reply(f, got ? got : "(no reply)");
    fclose(f);
    r->records = grow(r->records, &r->records_cap, r->nrecords + 1, sizeof *r->records);
    r->records[r->nrecords++] = (record){v, line};
}

static void run_case(run *r, const call *c, size_t argc, const rg_view *argv) {
    if (!first_time(r, argc, argv)) return;
    redis_srv_args args;
    rg_errbuf err = {0};
    const redis_srv_cmd id = redis_srv_parse(argc, argv, &args, &err);
    const char *ours = id == REDIS_SRV_NONE ? err.text : NULL;
    char name[64];
    redis_name(c->sample->command, name, sizeof name);
    make_keys(r, c, name, argc, argv);
    char got_buf[OUT_CAP];
    const char *got = ask_server(r->port, argc, argv, r->req, got_buf);
    verdict v = judge(ours, id != REDIS_SRV_NONE && is_raw(id, c->words), got);
    if (is_failure(v) && got) {
        const int k = known_entry(name, ours, got);
        if (k >= 0) {
            r->known_hits[k]++;
            v = V_KNOWN;
        }
    }
    r->cases++;
    r->by[v]++;
    if (v != V_AGREE && v != V_IDENTICAL && v != V_RAW) {
        count_cause(r, v, name, argc, argv, ours, got);
    }
    if (is_listed(v)) keep_record(r, v, argc, argv, ours, got);
}

/* The replacements of a numeric word besides junk: "1.5" for an integer (is it typed integer?),
 * "(1" and "-inf" for another number (score-range syntax, infinities). */
static size_t numeric_variants(rg_view w, rg_view *out) {
    int64_t i;
    double d;
    if (rg_parse_i64(w.ptr, w.len, &i)) {
        out[0] = RG_LIT("1.5");
        return 1;
    }
    if (!rg_parse_double(w.ptr, w.len, &d)) return 0;
    out[0] = RG_LIT("(1");
    out[1] = RG_LIT("-inf");
    return 2;
}

/* Whether a word looks like a token: the sample calls write tokens in capitals and values in
 * lower case or digits. */
static bool token_like(rg_view w) {
    if (w.len < 2) return false;
    for (size_t i = 0; i < w.len; i++) {
        if (!((w.ptr[i] >= 'A' && w.ptr[i] <= 'Z') || w.ptr[i] == '-')) return false;
    }
    return true;
}

/* Redis reads most options in any order: every token-led tail argv[s..n) moved before an
 * earlier token argv[p] (GEOSEARCH k BYRADIUS r u FROMLONLAT lon lat). */
static void reorder(run *r, const call *c) {
    rg_view m[MAX_WORDS + 1];
    const size_t n = c->argc;
    for (size_t p = c->words; p < n; p++) {
        if (!token_like(c->argv[p])) continue;
        for (size_t s = p + 1; s < n; s++) {
            if (!token_like(c->argv[s])) continue;
            memcpy(m, c->argv, p * sizeof m[0]);
            memcpy(m + p, c->argv + s, (n - s) * sizeof m[0]);
            memcpy(m + p + (n - s), c->argv + p, (s - p) * sizeof m[0]);
            run_case(r, c, n, m);
        }
    }
}

static void mutate(run *r, const call *c) {
    rg_view m[MAX_WORDS + 1];
    const size_t n = c->argc;
    memcpy(m, c->argv, n * sizeof m[0]);
    m[n] = JUNK;
    run_case(r, c, n + 1, m);
    for (size_t i = c->words; i < n; i++) {
        rg_view with[3] = {JUNK};
        const size_t k = 1 + numeric_variants(c->argv[i], with + 1);
        for (size_t j = 0; j < k; j++) {
            memcpy(m, c->argv, n * sizeof m[0]);
            m[i] = with[j];
            run_case(r, c, n, m);
        }
        memcpy(m, c->argv, i * sizeof m[0]);
        memcpy(m + i, c->argv + i + 1, (n - i - 1) * sizeof m[0]);
        run_case(r, c, n - 1, m);
    }
    reorder(r, c);
}

static void print_causes(const run *r) {
    printf("\ncauses (verdict, count: ours | server: commands)\n");
    for (int v = 0; v < V_COUNT; v++) {
        for (size_t i = 0; i < r->ncauses; i++) {
            const cause *c = &r->causes[i];
            if ((int)c->v != v) continue;
            printf("  [%s] %zu: %s | ", VERDICT_NAME[v], c->n, c->ours);
            print_reply(stdout, c->server);
            printf(": %s\n      e.g. %s\n", c->commands, c->example);
        }
    }
}

static void print_records(const run *r) {
    for (int v = 0; v < V_COUNT; v++) {
        if (!is_listed((verdict)v) || r->by[v] == 0) continue;
        printf("\n%s (%zu):\n", VERDICT_NAME[v], r->by[v]);
        for (size_t i = 0; i < r->nrecords; i++) {
            if ((int)r->records[i].v == v) printf("  %s\n", r->records[i].line);
        }
    }
}

static void print_tally(const run *r, size_t mutated, size_t denied_calls, double seconds) {
    printf("\nargs vs redis-server %s: %zu calls mutated (%zu denied), %zu cases in %.1f s\n",
           REDIS_SAMPLE_CALLS_VERSION, mutated, denied_calls, r->cases, seconds);
    for (int v = 0; v < V_COUNT; v++) printf("  %-32s %zu\n", VERDICT_NAME[v], r->by[v]);
    for (size_t i = 0; i < COUNT_OF(KNOWN); i++) {
        const divergence *d = &KNOWN[i];
        printf("  %s %zu: %s | %s | %s (%s)\n",
               r->known_hits[i] ? "known" : "KNOWN, NOT MET:", r->known_hits[i], d->command,
               d->ours, d->server ? d->server : "(accepted)", d->reason);
    }
}

static void free_run(run *r) {
    for (size_t i = 0; i < r->nrecords; i++) free(r->records[i].line);
    free(r->records);
    free(r->causes);
    free(r->seen);
    free(r->req);
    test_conn_close(&r->admin);
}

/* The calls were generated for one server version; another would judge them differently. */
static void check_version(int port) {
    test_conn conn;
    assert_int_equal(test_conn_open(&conn, port), 0);
    static char info[OUT_CAP];
    const char *argv[] = {"INFO", "server"};
    assert_int_equal(test_conn_command(&conn, info, sizeof info, 2, argv), 0);
    test_conn_close(&conn);
    char want[64];
    snprintf(want, sizeof want, "redis_version:%s\r", REDIS_SAMPLE_CALLS_VERSION);
    if (!strstr(info, want)) {
        print_error("the calls were made for redis %s: reconfigure\n", REDIS_SAMPLE_CALLS_VERSION);
    }
    assert_non_null(strstr(info, want));
}

static void test_mutations_vs_redis(void **state) {
    (void)state;
    check_version(server.port);
    run r = {
        .port = server.port, .seen = calloc(SEEN_SLOTS, sizeof(uint64_t)), .req = malloc(REQ_CAP)};
    assert_true(r.seen && r.req);
    assert_int_equal(test_conn_open(&r.admin, r.port), 0);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    size_t mutated = 0, denied_calls = 0;
    for (size_t i = 0; i < N_CALLS; i++) {
        const call *c = &calls[i];
        if (!c->sample) continue;
        char name[64];
        redis_name(c->sample->command, name, sizeof name);
        if (deny_reason(name)) {
            denied_calls++;
            continue;
        }
        mutated++;
        fetch_group(&r, &calls[i]);
        mutate(&r, c);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    print_causes(&r);
    print_records(&r);
    print_tally(&r, mutated, denied_calls,
                (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    const size_t failures = r.by[V_FAIL_VALID] + r.by[V_FAIL_TEXT] + r.by[V_FAIL_REPLY];
    const size_t cases = r.cases;
    free_run(&r);
    fflush(stdout);
    assert_true(cases > 1000);
    assert_int_equal(failures, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_samples_parse),
        cmocka_unit_test(test_mutations_vs_redis),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
