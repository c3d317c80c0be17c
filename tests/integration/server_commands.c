/* The whole command set against a real redis-server: for every command of specs/redis.lua, the
 * calls respgen --sample-calls generated (redis_calls.h: a minimal form, and a full form with
 * every optional argument the server's version has) are encoded by the generated encoders, sent
 * on a fresh connection each, and their replies decoded. A reply of "ERR syntax error", "ERR wrong
 * number of arguments" or "ERR unknown command/subcommand" is a rejection and fails the test;
 * other errors (WRONGTYPE, no such key, cluster support disabled...) mean the server parsed the
 * call and are accepted. Skips (newer than the server, sentinel only, and the exceptions of
 * sample_calls.lua with their reasons) are counted. The tally is printed at the end.
 *
 * Each accepted call is also a test of the generated routing tables (redis_keys.c): the keys
 * redis_keys_of_request finds in it must be the ones COMMAND GETKEYS names. */
#include "redis_calls.h"
#include "redis_keys.h"
#include "test_redis.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { REQ_CAP = 1 << 16, OUT_CAP = 1 << 14, MAX_REASONS = 32, MAX_ARGS = 64 };

#define N_CALLS (sizeof redis_sample_calls / sizeof redis_sample_calls[0])

/* The answers that mean the server did not take the call as written. */
static const char *const REJECTIONS[] = {
    "-ERR syntax error",
    "-ERR wrong number of arguments",
    "-ERR unknown command",
    "-ERR unknown subcommand",
};

typedef struct reason_count {
    const char *reason;
    size_t n;
} reason_count;

typedef struct tally {
    size_t tried, accepted, other_errors, rejected, skipped;
    size_t keys_same, keys_differ, keys_unsure; /* against COMMAND GETKEYS */
    reason_count reasons[MAX_REASONS];
    size_t nreasons;
} tally;

/* Version skips differ by their "since"; they are counted under one reason. */
static const char *reason_key(const char *skip) {
    return strncmp(skip, "newer than the server", 21) == 0 ? "newer than the server" : skip;
}

static void count_skip(tally *t, const redis_sample_call *c) {
    const char *key = reason_key(c->skip);
    t->skipped++;
    for (size_t i = 0; i < t->nreasons; i++) {
        if (strcmp(t->reasons[i].reason, key) == 0) {
            t->reasons[i].n++;
            return;
        }
    }
    if (t->nreasons < MAX_REASONS) t->reasons[t->nreasons++] = (reason_count){key, 1};
}

static int is_rejection(const char *reply) {
    for (size_t i = 0; i < sizeof REJECTIONS / sizeof REJECTIONS[0]; i++) {
        if (strncasecmp(reply, REJECTIONS[i], strlen(REJECTIONS[i])) == 0) return 1;
    }
    return 0;
}

/* Sends one encoded call on a fresh connection (commands may change the connection's state) and
 * renders its reply into out. Returns 0, or -1 with the reason in out. */
static int send_call(int port, const char *req, size_t len, char *out, size_t cap) {
    test_conn conn;
    if (test_conn_open(&conn, port) != 0) {
        snprintf(out, cap, "(cannot connect: the server is gone)");
        return -1;
    }
    int rc = test_conn_send(&conn, req, len);
    if (rc == 0) rc = test_conn_reply(&conn, out, cap);
    if (rc != 0) snprintf(out, cap, "(no reply: closed, timed out or malformed)");
    test_conn_close(&conn);
    return rc;
}

/* The request as text for the report: its arguments, non-printable bytes escaped. */
static void show_request(const char *req, size_t len) {
    for (size_t i = 0; i < len; i++) {
        const unsigned char ch = (unsigned char)req[i];
        if (ch == '\r') {
            fputs("\\r", stdout);
        } else if (ch == '\n') {
            fputs("\\n", stdout);
        } else if (ch < 32 || ch > 126) {
            printf("\\x%02x", ch);
        } else {
            putchar(ch);
        }
    }
}

/* The keys as COMMAND GETKEYS renders them: *[k1,k2]. */
static void render_keys(char *dst, size_t cap, const rg_view *argv, const size_t *pos, size_t n) {
    size_t w = (size_t)snprintf(dst, cap, "*[");
    for (size_t i = 0; i < n && w < cap; i++) {
        w += (size_t)snprintf(dst + w, cap - w, "%s%.*s", i ? "," : "", (int)argv[pos[i]].len,
                              argv[pos[i]].ptr);
    }
    if (w < cap) snprintf(dst + w, cap - w, "]");
}

/* COMMAND GETKEYS says "no keys" with an error, or with an empty list where a key count is 0
 * (EVAL script 0); 7.0 also refuses a one-word call (arity -4). */
static int no_keys_answer(const char *got, size_t argc) {
    static const char *const NONE[] = {"-ERR The command has no key arguments",
                                       "-ERR Invalid arguments specified"};
    if (strcmp(got, "*[]") == 0) return 1;
    for (size_t i = 0; i < sizeof NONE / sizeof NONE[0]; i++) {
        if (strncmp(got, NONE[i], strlen(NONE[i])) == 0) return 1;
    }
    return argc == 1 && strncmp(got, "-ERR wrong number of arguments", 30) == 0;
}

/* Asks COMMAND GETKEYS <the call> on conn: 1 when the answer matches the keys the generated
 * tables find, 0 when it does not (printed), -1 when the tables cannot tell (RG_INCOMPLETE
 * or RG_INVALID). */
static int keys_agree(test_conn *conn, const redis_sample_call *c, const char *req, size_t len) {
    rg_view argv[MAX_ARGS + 2];
    size_t pos[MAX_ARGS];
    rg_error st;
    const size_t n = redis_keys_of_request(req, len, argv + 2, MAX_ARGS, pos, MAX_ARGS, &st);
    if (st.status != RG_OK) {
        printf("keys not compared %s (%s): the tables say %s\n", c->command, c->form,
               st.status == RG_INCOMPLETE ? "incomplete" : "invalid");
        return -1;
    }
    const size_t argc = rg_request_argv(req, len, NULL, 0);
    argv[0] = RG_LIT("COMMAND");
    argv[1] = RG_LIT("GETKEYS");
    static char q[REQ_CAP], got[OUT_CAP], want[OUT_CAP];
    const size_t qlen = rg_argv_encode(q, sizeof q, argc + 2, argv);
    if (qlen == 0 || test_conn_send(conn, q, qlen) != 0 ||
        test_conn_reply(conn, got, sizeof got) != 0) {
        snprintf(got, sizeof got, "(no reply)");
    }
    render_keys(want, sizeof want, argv + 2, pos, n);
    const int same = n == 0 ? no_keys_answer(got, argc) : strcmp(got, want) == 0;
    if (!same)
        printf("KEYS DIFFER %s (%s): tables %s, server %s\n", c->command, c->form, want, got);
    return same;
}

static void check_keys(tally *t, test_conn *conn, const redis_sample_call *c, const char *req,
                       size_t len) {
    const int r = keys_agree(conn, c, req, len);
    if (r < 0) {
        t->keys_unsure++;
    } else if (r) {
        t->keys_same++;
    } else {
        t->keys_differ++;
    }
}

static void run_call(tally *t, int port, test_conn *keys_conn, const redis_sample_call *c,
                     char *req, char *out) {
    t->tried++;
    const size_t len = c->encode(req, REQ_CAP);
    int bad = len == 0;
    if (bad) {
        snprintf(out, OUT_CAP, "(the encoder refused the arguments)");
    } else {
        bad = send_call(port, req, len, out, OUT_CAP) != 0 || is_rejection(out);
    }
    if (!bad) {
        t->accepted++;
        check_keys(t, keys_conn, c, req, len);
        if (out[0] != '-') return;
        /* Listed so that a new kind of rejection stands out in the log. */
        t->other_errors++;
        printf("refused %s (%s) -> %s\n", c->command, c->form, out);
        return;
    }
    t->rejected++;
    printf("REJECTED %s (%s): ", c->command, c->form);
    show_request(req, len);
    printf("\n    -> %s\n", out);
}

/* The server's version from INFO server, to check the calls were generated for it. */
static int server_version(int port, char *version, size_t cap) {
    test_conn conn;
    if (test_conn_open(&conn, port) != 0) return -1;
    static char info[OUT_CAP];
    const char *argv[] = {"INFO", "server"};
    const int rc = test_conn_command(&conn, info, sizeof info, 2, argv);
    test_conn_close(&conn);
    const char *v = rc == 0 ? strstr(info, "redis_version:") : NULL;
    if (!v) return -1;
    v += strlen("redis_version:");
    const size_t n = strcspn(v, "\r\n");
    snprintf(version, cap, "%.*s", (int)n, v);
    return 0;
}

static void print_tally(const tally *t) {
    printf("\nserver_commands: %zu calls (minimal and full forms) and skips, redis-server %s\n",
           N_CALLS, REDIS_SAMPLE_CALLS_VERSION);
    printf("  tried    %zu\n", t->tried);
    printf("  accepted %zu (%zu of them answered with another error: parsed, then refused)\n",
           t->accepted, t->other_errors);
    printf("  rejected %zu\n", t->rejected);
    printf("  skipped  %zu\n", t->skipped);
    printf("  keys of the accepted calls against COMMAND GETKEYS: %zu same, %zu differ, %zu not "
           "compared (the tables say incomplete or invalid)\n",
           t->keys_same, t->keys_differ, t->keys_unsure);
    for (size_t i = 0; i < t->nreasons; i++) {
        printf("    %3zu  %s:", t->reasons[i].n, t->reasons[i].reason);
        for (size_t j = 0; j < N_CALLS; j++) {
            const redis_sample_call *c = &redis_sample_calls[j];
            if (c->skip && strcmp(reason_key(c->skip), t->reasons[i].reason) == 0) {
                printf(" %s", c->command);
            }
        }
        putchar('\n');
    }
}

int main(void) {
    test_redis server;
    if (test_redis_start(&server, NULL) != 0) return 1;
    char version[32];
    if (server_version(server.port, version, sizeof version) != 0 ||
        strcmp(version, REDIS_SAMPLE_CALLS_VERSION) != 0) {
        fprintf(stderr,
                "server_commands: the calls were generated for redis %s, the server is %s;"
                " reconfigure the build\n",
                REDIS_SAMPLE_CALLS_VERSION, version);
        test_redis_stop(&server);
        return 1;
    }
    char *req = malloc(REQ_CAP);
    const int have_buffer = req != NULL;
    static char out[OUT_CAP];
    tally t = {0};
    test_conn keys_conn;
    const int have_conn = test_conn_open(&keys_conn, server.port) == 0;
    for (size_t i = 0; have_buffer && have_conn && i < N_CALLS; i++) {
        const redis_sample_call *c = &redis_sample_calls[i];
        if (c->skip) {
            count_skip(&t, c);
        } else {
            run_call(&t, server.port, &keys_conn, c, req, out);
        }
    }
    if (have_conn) test_conn_close(&keys_conn);
    free(req);
    test_redis_stop(&server);
    print_tally(&t);
    return have_buffer && have_conn && t.rejected == 0 && t.keys_differ == 0 && t.tried > 0 ? 0 : 1;
}
