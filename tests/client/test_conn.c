/* The client core without a server: typed push decoders (runtime/rg_push.h) on hand-made RESP2
 * and RESP3 bytes, whole and cut at every byte; the connection engine (runtime/rg_conn.h) fed
 * scripted reply streams whole and one byte at a time: pipelined calls paired in order, pushes
 * between replies, Pub/Sub confirmations in RESP3 and RESP2 (and an UNSUBSCRIBE without names),
 * MULTI/EXEC with a failing command, EXECABORT and a failed WATCH, the HELLO fallback, connection
 * loss completing every call once, a stray reply, and redirect parsing. */
#include "rg_conn.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#define V(s) ((rg_view){(s), sizeof(s) - 1})

static bool same(rg_view v, const char *s) {
    return v.ptr && v.len == strlen(s) && memcmp(v.ptr, s, v.len) == 0;
}

/* ---- push decoders ------------------------------------------------------------------------ */

static rg_status decode(const char *bytes, bool r2, rg_push *p, size_t *used) {
    size_t pos = 0;
    const size_t len = strlen(bytes);
    /* Every cut is NEED_MORE (or NOT_PUSH, decided early) with nothing consumed. */
    for (size_t cut = 0; cut < len; cut++) {
        size_t at = 0;
        const rg_status st = rg_push_decode(bytes, cut, &at, r2, NULL, p, NULL);
        assert_true(st == RG_NEED_MORE || st == RG_NOT_PUSH);
        assert_int_equal(at, 0);
    }
    const rg_status st = rg_push_decode(bytes, len, &pos, r2, NULL, p, NULL);
    *used = pos;
    return st;
}

static void push_messages(void **state) {
    (void)state;
    rg_push p;
    size_t used;
    const char *m = ">3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$5\r\nhello\r\n";
    assert_int_equal(decode(m, false, &p, &used), RG_OK);
    assert_int_equal(used, strlen(m));
    assert_int_equal(p.kind, RG_PUSH_MESSAGE);
    assert_true(p.resp3 && same(p.channel, "ch") && same(p.payload, "hello"));
    assert_int_equal(p.raw.len, strlen(m));
    assert_int_equal(
        decode(">4\r\n$8\r\npmessage\r\n$2\r\nc*\r\n$2\r\nc1\r\n$1\r\nx\r\n", false, &p, &used),
        RG_OK);
    assert_int_equal(p.kind, RG_PUSH_PMESSAGE);
    assert_true(same(p.pattern, "c*") && same(p.channel, "c1") && same(p.payload, "x"));
    assert_int_equal(decode(">3\r\n$8\r\nsmessage\r\n$1\r\ns\r\n$0\r\n\r\n", false, &p, &used),
                     RG_OK);
    assert_int_equal(p.kind, RG_PUSH_SMESSAGE);
    assert_true(same(p.channel, "s") && p.payload.len == 0);
    /* RESP2 subscribe mode: the same as an array, only when allowed. */
    const char *m2 = "*3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$1\r\nz\r\n";
    assert_int_equal(decode(m2, true, &p, &used), RG_OK);
    assert_true(p.kind == RG_PUSH_MESSAGE && !p.resp3 && same(p.payload, "z"));
    assert_int_equal(decode(m2, false, &p, &used), RG_NOT_PUSH);
    assert_int_equal(decode("*2\r\n$4\r\npong\r\n$0\r\n\r\n", true, &p, &used), RG_NOT_PUSH);
    assert_int_equal(decode("+OK\r\n", true, &p, &used), RG_NOT_PUSH);
    /* A known name of another shape is kept raw, never an error. */
    assert_int_equal(decode(">2\r\n$7\r\nmessage\r\n$2\r\nch\r\n", false, &p, &used), RG_OK);
    assert_int_equal(p.kind, RG_PUSH_OTHER);
    assert_int_equal(decode(">2\r\n$3\r\nfoo\r\n:1\r\n", false, &p, &used), RG_OK);
    assert_true(p.kind == RG_PUSH_OTHER && same(p.name, "foo") && p.count == 2);
    /* An attribute before the push is skipped. */
    assert_int_equal(
        decode("|1\r\n+a\r\n+b\r\n>3\r\n$7\r\nmessage\r\n$1\r\nc\r\n$1\r\np\r\n", false, &p, &used),
        RG_OK);
    assert_true(p.kind == RG_PUSH_MESSAGE && same(p.payload, "p") && p.raw.ptr[0] == '>');
}

static void push_confirmations(void **state) {
    (void)state;
    rg_push p;
    size_t used;
    assert_int_equal(decode(">3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n", false, &p, &used), RG_OK);
    assert_true(p.kind == RG_PUSH_SUBSCRIBE && same(p.channel, "a") && p.subscriptions == 1);
    assert_int_equal(decode(">3\r\n$11\r\nunsubscribe\r\n_\r\n:0\r\n", false, &p, &used), RG_OK);
    assert_true(p.kind == RG_PUSH_UNSUBSCRIBE && p.channel.ptr == NULL && p.subscriptions == 0);
    assert_int_equal(decode("*3\r\n$12\r\npunsubscribe\r\n$-1\r\n:0\r\n", true, &p, &used), RG_OK);
    assert_int_equal(p.kind, RG_PUSH_PUNSUBSCRIBE);
    assert_int_equal(decode(">3\r\n$12\r\nsunsubscribe\r\n$1\r\ns\r\n:0\r\n", false, &p, &used),
                     RG_OK);
    assert_true(rg_push_is_confirmation(p.kind) && p.kind == RG_PUSH_SUNSUBSCRIBE);
    assert_string_equal(rg_push_kind_name(p.kind), "sunsubscribe");
}

static void push_invalidations(void **state) {
    (void)state;
    rg_push p;
    size_t used, at = 0;
    rg_view key;
    assert_int_equal(
        decode(">2\r\n$10\r\ninvalidate\r\n*2\r\n$1\r\na\r\n$3\r\nbcd\r\n", false, &p, &used),
        RG_OK);
    assert_true(p.kind == RG_PUSH_INVALIDATE && !p.flush_all && p.nkeys == 2);
    assert_true(rg_push_keys_next(&p, &at, &key) && same(key, "a"));
    assert_true(rg_push_keys_next(&p, &at, &key) && same(key, "bcd"));
    assert_false(rg_push_keys_next(&p, &at, &key));
    assert_int_equal(decode(">2\r\n$10\r\ninvalidate\r\n_\r\n", false, &p, &used), RG_OK);
    assert_true(p.kind == RG_PUSH_INVALIDATE && p.flush_all && p.nkeys == 0);
    at = 0;
    assert_false(rg_push_keys_next(&p, &at, &key));
    /* RESP2 with REDIRECT: a message on __redis__:invalidate. */
    assert_int_equal(decode("*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n*1\r\n+k\r\n",
                            true, &p, &used),
                     RG_OK);
    at = 0;
    assert_true(p.kind == RG_PUSH_INVALIDATE && p.nkeys == 1);
    assert_true(rg_push_keys_next(&p, &at, &key) && same(key, "k"));
    /* A length the reader accepts in an odd spelling ("$-0": empty) gives the same key here, and
     * no key reaches past the push (a second parser once read "-0" as a huge length). */
    const char *odd = ">2\r\n$10\r\ninvalidate\r\n~2\r\n$-0\r\n\r\n+z\r\n$9\r\nnot a key\r\n";
    size_t pos = 0;
    assert_int_equal(rg_push_decode(odd, strlen(odd), &pos, false, NULL, &p, NULL), RG_OK);
    assert_int_equal(pos, strlen(odd) - 15);
    at = 0;
    assert_true(rg_push_keys_next(&p, &at, &key) && key.len == 0);
    assert_true(rg_push_keys_next(&p, &at, &key) && same(key, "z"));
    assert_false(rg_push_keys_next(&p, &at, &key));
    assert_int_equal(decode(">1\r\n$21\r\ntracking-redir-broken\r\n", false, &p, &used), RG_OK);
    assert_int_equal(p.kind, RG_PUSH_TRACKING_REDIR_BROKEN);
}

static void push_errors(void **state) {
    (void)state;
    rg_push p;
    rg_error e;
    const char *bad = ">2\r\n$3\r\nfoo\r\n:x\r\n";
    size_t pos = 0;
    assert_int_equal(rg_push_decode(bad, strlen(bad), &pos, false, NULL, &p, &e), RG_ERR_PROTOCOL);
    assert_int_equal(pos, 0);
    assert_int_equal(e.status, RG_ERR_PROTOCOL);
    assert_int_equal(e.offset, 13);
    assert_true(e.msg.len > 0);
    /* a limit is its own status */
    rg_limits lim = rg_limits_default();
    lim.max_depth = 1;
    assert_int_equal(rg_push_decode(">1\r\n*1\r\n:1\r\n", 14, &pos, false, &lim, &p, &e),
                     RG_ERR_DEPTH);
    assert_int_equal(e.status, RG_ERR_DEPTH);
    assert_int_equal(e.offset, 4);
    /* no error: RG_OK in err */
    assert_int_equal(rg_push_decode("+OK\r\n", 5, &pos, false, NULL, &p, &e), RG_NOT_PUSH);
    assert_int_equal(e.status, RG_OK);
}

/* ---- the engine --------------------------------------------------------------------------- */

typedef struct int_result {
    int64_t value;
} int_result;

static const rg_rnode INT_NODES[] = {{.accept = RG_RA_INT,
                                      .shape = RG_RS_SCALAR,
                                      .store = RG_RT_I64,
                                      .offset = offsetof(int_result, value),
                                      .cval = NULL}};
static const rg_rtable INT_TABLE = {"INCR", INT_NODES, sizeof(int_result), 0};

typedef struct bed {
    rg_conn c;
    char in[4096], out[4096], storage[1024];
    rg_call calls[16];
    char log[2048]; /* one line per completion and push */
    size_t loglen;
} bed;

static void logf_(bed *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(b->log + b->loglen, sizeof b->log - b->loglen, fmt, ap);
    va_end(ap);
    if (n > 0) b->loglen += (size_t)n;
}

static void on_done(void *ud, const rg_call_done *d) {
    bed *b = ud;
    if (d->status == RG_OK && d->result) {
        logf_(b, "%llu:%lld ", (unsigned long long)d->id,
              (long long)((int_result *)d->result)->value);
    } else {
        logf_(b, "%llu:%s ", (unsigned long long)d->id, rg_status_name(d->status) + 3);
    }
}

static void on_push(void *ud, const rg_push *p) {
    bed *b = ud;
    logf_(b, "push:%s:%.*s ", rg_push_kind_name(p->kind), (int)p->payload.len,
          p->payload.ptr ? p->payload.ptr : "");
}

/* bed_init with deadlines (rg_conn_config.timeout_ms and connect_timeout_ms). */
static void bed_init_timed(bed *b, int protocol, uint32_t timeout_ms, uint32_t connect_ms) {
    memset(b, 0, sizeof *b);
    const rg_conn_config cfg = {.in = b->in,
                                .in_cap = sizeof b->in,
                                .out = b->out,
                                .out_cap = sizeof b->out,
                                .calls = b->calls,
                                .ncalls = 16,
                                .storage = b->storage,
                                .storage_cap = sizeof b->storage,
                                .on_push = on_push,
                                .push_ud = b,
                                .protocol = protocol,
                                .timeout_ms = timeout_ms,
                                .connect_timeout_ms = connect_ms};
    assert_int_equal(rg_conn_init(&b->c, &cfg), 0);
}

/* A zeroed bed and a config with its buffers and ring only (no push handler, no storage). */
static rg_conn_config bare_config(bed *b, int protocol) {
    memset(b, 0, sizeof *b);
    return (rg_conn_config){.in = b->in,
                            .in_cap = sizeof b->in,
                            .out = b->out,
                            .out_cap = sizeof b->out,
                            .calls = b->calls,
                            .ncalls = 16,
                            .protocol = protocol};
}

static void bed_init(bed *b, int protocol) {
    bed_init_timed(b, protocol, 0, 0);
}

static uint64_t call(bed *b, const char *words, const rg_rtable *t, int_result *r) {
    rg_view argv[8];
    size_t n = 0;
    for (const char *p = words; *p && n < 8;) {
        const char *e = strchr(p, ' ');
        const size_t len = e ? (size_t)(e - p) : strlen(p);
        argv[n++] = (rg_view){p, len};
        p += len + (e != NULL);
    }
    return rg_conn_call_argv(&b->c, n, argv, t, r, on_done, b);
}

static char written[8192];

static const char *drain(bed *b) {
    size_t n, at = 0;
    const char *o;
    while ((o = rg_conn_output(&b->c, &n)) != NULL) {
        memcpy(written + at, o, n);
        at += n;
        rg_conn_written(&b->c, n);
    }
    written[at] = '\0';
    return written;
}

/* Feeds bytes in pieces of step (0: whole). */
static void feed(bed *b, const char *bytes, size_t step) {
    size_t len = strlen(bytes), at = 0;
    while (at < len) {
        const size_t n = step && len - at > step ? step : len - at;
        assert_int_equal(rg_conn_feed_copy(&b->c, bytes + at, n, NULL), n);
        at += n;
    }
}

typedef void (*scenario)(bed *b, size_t step);

static void both_ways(scenario s, int protocol) {
    static bed b;
    for (size_t step = 0; step <= 1; step++) {
        bed_init(&b, protocol);
        s(&b, step);
    }
}

static void s_pipeline(bed *b, size_t step) {
    int_result r[3];
    assert_int_equal(call(b, "INCR a", &INT_TABLE, &r[0]), 1);
    assert_int_equal(call(b, "INCR a", &INT_TABLE, &r[1]), 2);
    assert_int_equal(call(b, "GET a", &INT_TABLE, &r[2]), 3);
    assert_string_equal(drain(b), "*2\r\n$4\r\nINCR\r\n$1\r\na\r\n*2\r\n$4\r\nINCR\r\n$1\r\na\r\n"
                                  "*2\r\n$3\r\nGET\r\n$1\r\na\r\n");
    feed(b, ":1\r\n>3\r\n$7\r\nmessage\r\n$1\r\nc\r\n$2\r\nhi\r\n:2\r\n-WRONGTYPE no\r\n", step);
    assert_string_equal(b->log, "1:1 push:message:hi 2:2 3:SERVER_ERROR ");
    assert_int_equal(rg_conn_pending(&b->c), 0);
    /* A reply nobody asked for breaks the stream. */
    assert_int_equal(rg_conn_feed_copy(&b->c, ":5\r\n", 4, NULL), 4);
    assert_int_equal(rg_conn_state_of(&b->c), RG_CONN_FAILED);
}

static void engine_pipeline(void **state) {
    (void)state;
    both_ways(s_pipeline, 0);
}

static void s_multi(bed *b, size_t step) {
    int_result r[4];
    call(b, "MULTI", NULL, NULL);
    call(b, "INCR a", &INT_TABLE, &r[0]);
    call(b, "LPUSH a x", &INT_TABLE, &r[1]);
    call(b, "INCR b", &INT_TABLE, &r[2]);
    call(b, "EXEC", NULL, NULL);
    /* In the transaction's middle, a push. */
    feed(b,
         "+OK\r\n+QUEUED\r\n+QUEUED\r\n>2\r\n$10\r\ninvalidate\r\n_\r\n+QUEUED\r\n"
         "*3\r\n:1\r\n-WRONGTYPE x\r\n:7\r\n",
         step);
    assert_string_equal(b->log, "1:OK push:invalidate: 2:1 3:SERVER_ERROR 4:7 5:OK ");
    assert_int_equal(rg_conn_pending(&b->c), 0);
    /* EXECABORT: a queue-time error fails at once, the rest abort. */
    b->loglen = 0;
    call(b, "MULTI", NULL, NULL);
    call(b, "INCR a", &INT_TABLE, &r[0]);
    call(b, "NOPE", &INT_TABLE, &r[1]);
    call(b, "EXEC", NULL, NULL);
    feed(b, "+OK\r\n+QUEUED\r\n-ERR unknown command\r\n-EXECABORT Transaction discarded\r\n", step);
    assert_string_equal(b->log, "6:OK 8:SERVER_ERROR 7:ABORTED 9:SERVER_ERROR ");
    /* A failed WATCH: a null EXEC. */
    b->loglen = 0;
    call(b, "MULTI", NULL, NULL);
    call(b, "INCR a", &INT_TABLE, &r[0]);
    call(b, "EXEC", NULL, NULL);
    feed(b, "+OK\r\n+QUEUED\r\n*-1\r\n", step);
    assert_string_equal(b->log, "10:OK 11:ABORTED 12:OK ");
    assert_int_equal(rg_conn_pending(&b->c), 0);
    /* A MULTI the server refused: the commands run at once and get their typed replies. */
    b->loglen = 0;
    call(b, "MULTI", NULL, NULL);
    call(b, "INCR a", &INT_TABLE, &r[0]);
    call(b, "EXEC", NULL, NULL);
    feed(b, "-NOAUTH Authentication required\r\n:42\r\n-ERR EXEC without MULTI\r\n", step);
    assert_string_equal(b->log, "13:SERVER_ERROR 14:42 15:SERVER_ERROR ");
}

static void engine_multi(void **state) {
    (void)state;
    both_ways(s_multi, 0);
}

/* EXEC's elements are decoded once, each as its bytes arrive: a queued call completes when its
 * element is read, before the array ends, and a push between elements is a push. */
static void s_exec_streamed(bed *b, size_t step) {
    int_result r[3];
    call(b, "MULTI", NULL, NULL);
    call(b, "INCR a", &INT_TABLE, &r[0]);
    call(b, "INCR b", &INT_TABLE, &r[1]);
    call(b, "INCR c", &INT_TABLE, &r[2]);
    call(b, "EXEC", NULL, NULL);
    feed(b, "+OK\r\n+QUEUED\r\n+QUEUED\r\n+QUEUED\r\n*3\r\n:1\r\n", step);
    assert_string_equal(b->log, "1:OK 2:1 ");
    feed(b, ">2\r\n$10\r\ninvalidate\r\n_\r\n-ERR x\r\n", step);
    assert_string_equal(b->log, "1:OK 2:1 push:invalidate: 3:SERVER_ERROR ");
    feed(b, ":3\r\n", step);
    assert_string_equal(b->log, "1:OK 2:1 push:invalidate: 3:SERVER_ERROR 4:3 5:OK ");
    assert_int_equal(rg_conn_pending(&b->c), 0);
    assert_int_equal(rg_conn_state_of(&b->c), RG_CONN_READY);
    /* an empty transaction, and a longer array than was queued (the rest is dropped) */
    b->loglen = 0;
    call(b, "MULTI", NULL, NULL);
    call(b, "EXEC", NULL, NULL);
    call(b, "MULTI", NULL, NULL);
    call(b, "INCR a", &INT_TABLE, &r[0]);
    call(b, "EXEC", NULL, NULL);
    call(b, "INCR z", &INT_TABLE, &r[1]);
    feed(b, "+OK\r\n*0\r\n+OK\r\n+QUEUED\r\n*2\r\n:4\r\n*1\r\n:0\r\n:9\r\n", step);
    assert_string_equal(b->log, "6:OK 7:OK 8:OK 9:4 10:OK 11:9 ");
    assert_int_equal(rg_conn_pending(&b->c), 0);
}

static void engine_exec_streamed(void **state) {
    (void)state;
    both_ways(s_exec_streamed, 0);
}

/* EXEC's own typed result (an array of raw elements) is still filled, from the array kept whole
 * while its elements were decoded, the input buffer compacted under it all along. */
typedef struct exec_result {
    struct {
        rg_view *items;
        size_t count;
    } value;
} exec_result;

static const rg_rnode EXEC_NODES[] = {
    {.accept = RG_RA_ARR,
     .shape = RG_RS_ARRAY,
     .child = 1,
     .nchildren = 1,
     .offset = offsetof(exec_result, value),
     .elem_size = sizeof(rg_view),
     .cval = NULL},
    {.accept = RG_RA_ANY, .shape = RG_RS_ANY, .store = RG_RT_NONE, .offset = 0, .cval = NULL}};
static const rg_rtable EXEC_TABLE = {"EXEC", EXEC_NODES, sizeof(exec_result), 0};

static void s_exec_typed(bed *b, size_t step) {
    int_result r[2];
    exec_result e;
    call(b, "MULTI", NULL, NULL);
    call(b, "INCR a", &INT_TABLE, &r[0]);
    call(b, "INCR b", &INT_TABLE, &r[1]);
    rg_view exec[] = {V("EXEC")};
    rg_call_record rec = {0};
    rg_conn_call_argv(&b->c, 1, exec, &EXEC_TABLE, &e, rg_call_record_fn, &rec);
    feed(b, "+OK\r\n+QUEUED\r\n+QUEUED\r\n*2\r\n:11\r\n:22\r\n", step);
    assert_string_equal(b->log, "1:OK 2:11 3:22 ");
    assert_true(rec.done && rec.status == RG_OK);
    assert_int_equal(e.value.count, 2);
    assert_true(same(e.value.items[0], ":11\r\n") && same(e.value.items[1], ":22\r\n"));
}

static void engine_exec_typed(void **state) {
    (void)state;
    both_ways(s_exec_typed, 0);
}

/* An EXEC whose array is larger than the input buffer: each element needs room only for
 * itself (the whole array was once kept to be walked). */
static void engine_exec_small_buffer(void **state) {
    (void)state;
    static bed b;
    rg_conn_config cfg = bare_config(&b, 0);
    cfg.in_cap = 64;
    assert_int_equal(rg_conn_init(&b.c, &cfg), 0);
    int_result r[6];
    call(&b, "MULTI", NULL, NULL);
    for (int i = 0; i < 6; i++) call(&b, "INCR a", &INT_TABLE, &r[i]);
    call(&b, "EXEC", NULL, NULL);
    feed(&b, "+OK\r\n", 1);
    for (int i = 0; i < 6; i++) feed(&b, "+QUEUED\r\n", 1);
    feed(&b, "*6\r\n", 1);
    for (int i = 0; i < 6; i++) feed(&b, ":1234567890123456789\r\n", 1);
    assert_string_equal(b.log, "1:OK 2:1234567890123456789 3:1234567890123456789 "
                               "4:1234567890123456789 5:1234567890123456789 "
                               "6:1234567890123456789 7:1234567890123456789 8:OK ");
    assert_int_equal(rg_conn_pending(&b.c), 0);
}

static void s_pubsub3(bed *b, size_t step) {
    int_result r;
    call(b, "SUBSCRIBE a b", NULL, NULL);
    call(b, "INCR x", &INT_TABLE, &r);
    call(b, "UNSUBSCRIBE", NULL, NULL);
    assert_non_null(strstr(drain(b), "UNSUBSCRIBE\r\n*1\r\n$4\r\nPING\r\n"));
    feed(b,
         ">3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n"
         ">3\r\n$7\r\nmessage\r\n$1\r\na\r\n$1\r\nm\r\n"
         ">3\r\n$9\r\nsubscribe\r\n$1\r\nb\r\n:2\r\n:5\r\n"
         ">3\r\n$11\r\nunsubscribe\r\n$1\r\na\r\n:1\r\n"
         ">3\r\n$11\r\nunsubscribe\r\n$1\r\nb\r\n:0\r\n+PONG\r\n"
         ">3\r\n$12\r\nsunsubscribe\r\n$1\r\ns\r\n:0\r\n",
         step);
    assert_string_equal(b->log, "push:message:m 1:OK 2:5 3:OK push:sunsubscribe: ");
    assert_int_equal(rg_conn_pending(&b->c), 0);
}

static void s_pubsub2(bed *b, size_t step) {
    call(b, "SUBSCRIBE a", NULL, NULL);
    call(b, "PING", NULL, NULL);
    call(b, "UNSUBSCRIBE a", NULL, NULL);
    feed(b,
         "*3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n"
         "*3\r\n$7\r\nmessage\r\n$1\r\na\r\n$1\r\nm\r\n"
         "*2\r\n$4\r\npong\r\n$0\r\n\r\n"
         "*3\r\n$11\r\nunsubscribe\r\n$1\r\na\r\n:0\r\n",
         step);
    assert_string_equal(b->log, "1:OK push:message:m 2:OK 3:OK ");
    assert_int_equal(b->c.r2_subs, 0);
}

/* SUBSCRIBE a, then UNSUBSCRIBE a b (hiredis#1039): two confirmations, the second for a channel
 * never subscribed. */
static void s_unsub_more(bed *b, size_t step) {
    call(b, "SUBSCRIBE a", NULL, NULL);
    call(b, "UNSUBSCRIBE a b", NULL, NULL);
    call(b, "PING", NULL, NULL);
    feed(b,
         "*3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n"
         "*3\r\n$11\r\nunsubscribe\r\n$1\r\na\r\n:0\r\n"
         "*3\r\n$11\r\nunsubscribe\r\n$1\r\nb\r\n:0\r\n+PONG\r\n",
         step);
    assert_string_equal(b->log, "1:OK 2:OK 3:OK ");
    assert_int_equal(b->c.r2_subs, 0);
}

typedef struct view_result {
    rg_view value;
} view_result;

static const rg_rnode VIEW_NODES[] = {{.accept = RG_RA_STR,
                                       .shape = RG_RS_SCALAR,
                                       .store = RG_RT_VIEW,
                                       .offset = offsetof(view_result, value),
                                       .cval = NULL}};
static const rg_rtable VIEW_TABLE = {"PING", VIEW_NODES, sizeof(view_result), 0};

/* RESP2 subscribe mode: PING's ["pong", message] is no push and is read once, its message
 * decoded by PING's table: only the message needs room in the input buffer (the pair was once
 * walked whole by the push decoder, then read again). */
static void engine_pong_pair_small_buffer(void **state) {
    (void)state;
    static bed b;
    static const char MSG[] = "0123456789012345678901234567890123456789012345678";
    rg_conn_config cfg = bare_config(&b, 0);
    cfg.in_cap = 64;
    assert_int_equal(rg_conn_init(&b.c, &cfg), RG_OK);
    call(&b, "SUBSCRIBE a", NULL, NULL);
    const rg_view ping[] = {V("PING"), V(MSG)};
    view_result r;
    rg_call_record rec = {0};
    assert_true(rg_conn_call_argv(&b.c, 2, ping, &VIEW_TABLE, &r, rg_call_record_fn, &rec));
    feed(&b, "*3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n", 1);
    feed(&b, "*2\r\n$4\r\npong\r\n$49\r\n", 1);
    feed(&b, MSG, 1);
    feed(&b, "\r\n", 1);
    assert_string_equal(b.log, "1:OK ");
    assert_true(rec.done && rec.status == RG_OK && same(r.value, MSG));
    assert_int_equal(rg_conn_pending(&b.c), 0);
}

/* An attribute before a reply is the reply decoder's to read (and drop), once, with the
 * connection's depth: one nested 40 levels (past the push decoder's own 32) before a reply, and
 * one before a push while a call waits, then one before a Pub/Sub confirmation. */
static void s_attribute(bed *b, size_t step) {
    char deep[512];
    size_t n = (size_t)sprintf(deep, "|1\r\n+k\r\n");
    for (int i = 0; i < 40; i++) n += (size_t)sprintf(deep + n, "*1\r\n");
    sprintf(deep + n, ":0\r\n:7\r\n");
    int_result r[2];
    call(b, "INCR a", &INT_TABLE, &r[0]);
    feed(b, deep, step);
    assert_string_equal(b->log, "1:7 ");
    call(b, "INCR a", &INT_TABLE, &r[1]);
    feed(b, "|1\r\n+k\r\n+v\r\n>2\r\n$10\r\ninvalidate\r\n_\r\n|1\r\n+k\r\n+v\r\n:8\r\n", step);
    assert_string_equal(b->log, "1:7 push:invalidate: 2:8 ");
    call(b, "SUBSCRIBE c", NULL, NULL);
    feed(b, "|1\r\n+k\r\n+v\r\n>3\r\n$9\r\nsubscribe\r\n$1\r\nc\r\n:1\r\n", step);
    assert_string_equal(b->log, "1:7 push:invalidate: 2:8 3:OK ");
    assert_int_equal(rg_conn_pending(&b->c), 0);
    assert_int_equal(rg_conn_state_of(&b->c), RG_CONN_READY);
}

static void engine_attribute(void **state) {
    (void)state;
    both_ways(s_attribute, 0);
}

static void engine_pubsub(void **state) {
    (void)state;
    both_ways(s_pubsub3, 0);
    both_ways(s_pubsub2, 0);
    both_ways(s_unsub_more, 0);
}

/* An error and then the close (max clients, LOADING): the error is the first call's, the close
 * the others'. */
static void engine_error_then_close(void **state) {
    (void)state;
    static bed b;
    bed_init(&b, 0);
    int_result r[2];
    call(&b, "INCR a", &INT_TABLE, &r[0]);
    call(&b, "INCR a", &INT_TABLE, &r[1]);
    feed(&b, "-ERR max number of clients reached\r\n", 0);
    rg_conn_closed(&b.c, RG_LIT("connection closed by the server"));
    assert_string_equal(b.log, "1:SERVER_ERROR 2:CLOSED ");
    /* During the connect sequence it is the sequence's error that fails everything. */
    const rg_conn_config cfg = bare_config(&b, 3);
    assert_int_equal(rg_conn_init(&b.c, &cfg), 0);
    call(&b, "INCR a", &INT_TABLE, &r[0]);
    feed(&b, "-LOADING Redis is loading the dataset in memory\r\n", 0);
    assert_int_equal(rg_conn_state_of(&b.c), RG_CONN_FAILED);
    assert_string_equal(b.log, "1:CLOSED ");
    assert_int_equal(rg_conn_error(&b.c).status, RG_REFUSED);
    assert_non_null(strstr(rg_conn_error(&b.c).msg.ptr, "LOADING"));
}

static void s_hello(bed *b, size_t step) {
    int_result r;
    call(b, "INCR a", &INT_TABLE, &r);
    /* Only the connect sequence goes out first. */
    assert_string_equal(drain(b), "*4\r\n$5\r\nHELLO\r\n$1\r\n3\r\n$7\r\nSETNAME\r\n$2\r\nme\r\n"
                                  "*2\r\n$6\r\nSELECT\r\n$1\r\n2\r\n");
    feed(b, "-ERR unknown command 'HELLO'\r\n", step);
    assert_int_equal(rg_conn_protocol(&b->c), 2);
    feed(b, "+OK\r\n", step);
    assert_string_equal(drain(b), "*3\r\n$6\r\nCLIENT\r\n$7\r\nSETNAME\r\n$2\r\nme\r\n");
    feed(b, "+OK\r\n", step);
    assert_int_equal(rg_conn_state_of(&b->c), RG_CONN_READY);
    assert_string_equal(drain(b), "*2\r\n$4\r\nINCR\r\n$1\r\na\r\n");
    feed(b, ":1\r\n", step);
    assert_string_equal(b->log, "1:1 ");
}

static void engine_hello(void **state) {
    (void)state;
    static bed b;
    for (size_t step = 0; step <= 1; step++) {
        rg_conn_config cfg = bare_config(&b, 3);
        cfg.db = 2;
        cfg.name = V("me");
        assert_int_equal(rg_conn_init(&b.c, &cfg), 0);
        s_hello(&b, step);
    }
    /* A wrong password is fatal: the waiting call completes, closed. */
    rg_conn_config cfg = bare_config(&b, 3);
    cfg.password = V("pw");
    assert_int_equal(rg_conn_init(&b.c, &cfg), 0);
    int_result r;
    call(&b, "INCR a", &INT_TABLE, &r);
    feed(&b, "-WRONGPASS invalid username-password pair\r\n", 0);
    assert_int_equal(rg_conn_state_of(&b.c), RG_CONN_FAILED);
    assert_string_equal(b.log, "1:CLOSED ");
    assert_int_equal(rg_conn_error(&b.c).status, RG_REFUSED);
    assert_int_equal(rg_conn_reset(&b.c), 0);
    assert_int_equal(rg_conn_state_of(&b.c), RG_CONN_HANDSHAKE);
    assert_non_null(strstr(drain(&b), "HELLO"));
}

static void engine_loss(void **state) {
    (void)state;
    static bed b;
    bed_init(&b, 0);
    int_result r[3];
    for (int i = 0; i < 3; i++) call(&b, "INCR a", &INT_TABLE, &r[i]);
    feed(&b, ":1\r\n:2", 0);
    rg_conn_closed(&b.c, RG_LIT("EOF"));
    rg_conn_closed(&b.c, RG_LIT("EOF again"));
    assert_string_equal(b.log, "1:1 2:CLOSED 3:CLOSED ");
    assert_int_equal(call(&b, "INCR a", &INT_TABLE, &r[0]), 0);
    assert_int_equal(rg_conn_reset(&b.c), 0);
    assert_int_not_equal(call(&b, "INCR a", &INT_TABLE, &r[0]), 0);
    /* A full ring refuses. */
    for (int i = 0; i < 15; i++) assert_int_not_equal(call(&b, "INCR a", &INT_TABLE, &r[0]), 0);
    assert_int_equal(call(&b, "INCR a", &INT_TABLE, &r[0]), 0);
}

/* After a loss, a connection that used tracking gets one synthetic "flush all" invalidation. */
static void engine_tracking_reset(void **state) {
    (void)state;
    static bed b;
    bed_init(&b, 3);
    call(&b, "client tracking on", NULL, NULL);
    rg_conn_closed(&b.c, RG_LIT("EOF"));
    assert_string_equal(b.log, "1:CLOSED push:invalidate: ");
    /* Without tracking: nothing. */
    assert_int_equal(rg_conn_reset(&b.c), 0);
    b.loglen = 0;
    b.log[0] = '\0';
    call(&b, "CLIENT SETNAME x", NULL, NULL);
    rg_conn_closed(&b.c, RG_LIT("EOF"));
    assert_string_equal(b.log, "2:CLOSED ");
}

static void engine_abandon(void **state) {
    (void)state;
    static bed b;
    bed_init(&b, 0);
    int_result r[3];
    for (int i = 0; i < 3; i++) call(&b, "INCR a", &INT_TABLE, &r[i]);
    assert_int_equal(rg_conn_abandon(&b.c, 2), 0);
    assert_int_equal(rg_conn_abandon(&b.c, 2), RG_INVALID);
    assert_true(rg_conn_call_done(&b.c, 2) && !rg_conn_call_done(&b.c, 3));
    feed(&b, ":1\r\n:2\r\n:3\r\n", 1);
    assert_string_equal(b.log, "2:ABANDONED 1:1 3:3 ");
    assert_int_equal(rg_conn_pending(&b.c), 0);
    assert_int_equal(rg_conn_state_of(&b.c), RG_CONN_READY);
}

/* Deadlines: a timeout starts at the first look at the clock after the call; an expired one
 * breaks the connection (TIMEOUT for the late calls, CLOSED for the rest, each exactly once),
 * later calls fail at once, and a reset starts over. */
static void engine_deadlines(void **state) {
    (void)state;
    static bed b;
    int_result r[6];
    bed_init_timed(&b, 0, 100, 0);
    assert_true(rg_conn_next_deadline(&b.c, 1000) == RG_DEADLINE_NONE);
    assert_int_equal(call(&b, "INCR a", &INT_TABLE, &r[0]), 1);
    assert_int_equal(call(&b, "INCR a", &INT_TABLE, &r[1]), 2);
    assert_int_equal(call(&b, "INCR a", &INT_TABLE, &r[2]), 3);
    assert_int_equal(rg_conn_next_deadline(&b.c, 1000), 1100);
    assert_int_equal(call(&b, "INCR a", &INT_TABLE, &r[3]), 4);
    assert_int_equal(call(&b, "INCR a", &INT_TABLE, &r[4]), 5);
    assert_int_equal(rg_conn_call_timeout(&b.c, 4, 500), RG_INVALID); /* not the last call */
    assert_int_equal(rg_conn_call_timeout(&b.c, 5, 0), 0);            /* 5: none */
    assert_int_equal(rg_conn_next_deadline(&b.c, 1050), 1100);        /* 4 starts: 1150 */
    assert_int_equal(rg_conn_abandon(&b.c, 2), 0);
    feed(&b, ":1\r\n", 1);
    assert_int_equal(rg_conn_next_deadline(&b.c, 1060), 1100); /* 3; 2 was abandoned */
    assert_int_equal(rg_conn_expire(&b.c, 1099), RG_CONN_READY);
    assert_string_equal(b.log, "2:ABANDONED 1:1 ");
    assert_int_equal(rg_conn_expire(&b.c, 1100), RG_CONN_FAILED);
    assert_string_equal(b.log, "2:ABANDONED 1:1 3:TIMEOUT 4:CLOSED 5:CLOSED ");
    assert_int_equal(rg_conn_error(&b.c).status, RG_TIMEOUT);
    assert_non_null(strstr(rg_conn_error(&b.c).msg.ptr, "timeout"));
    /* Once: the late replies, another expiry and a close change nothing. */
    feed(&b, ":2\r\n:3\r\n", 0);
    assert_int_equal(rg_conn_expire(&b.c, 5000), RG_CONN_FAILED);
    rg_conn_closed(&b.c, RG_LIT("EOF"));
    assert_string_equal(b.log, "2:ABANDONED 1:1 3:TIMEOUT 4:CLOSED 5:CLOSED ");
    assert_int_equal(rg_conn_pending(&b.c), 0);
    assert_true(rg_conn_next_deadline(&b.c, 5000) == RG_DEADLINE_NONE);
    assert_int_equal(call(&b, "INCR a", &INT_TABLE, &r[5]), 0); /* fails cleanly */
    /* Reconnected: the deadline of a new call starts from the new clock reading. */
    assert_int_equal(rg_conn_reset(&b.c), 0);
    drain(&b);
    b.loglen = 0;
    assert_int_equal(call(&b, "INCR a", &INT_TABLE, &r[5]), 6);
    assert_int_equal(rg_conn_next_deadline(&b.c, 9000), 9100);
    feed(&b, ":7\r\n", 0);
    assert_string_equal(b.log, "6:7 ");
    assert_int_equal(rg_conn_expire(&b.c, 99999), RG_CONN_READY);
    assert_true(rg_conn_next_deadline(&b.c, 99999) == RG_DEADLINE_NONE);

    /* A per-call timeout without a connection-wide one. */
    bed_init_timed(&b, 0, 0, 0);
    call(&b, "INCR a", &INT_TABLE, &r[0]);
    assert_true(rg_conn_next_deadline(&b.c, 10) == RG_DEADLINE_NONE);
    call(&b, "BLPOP l 1", &INT_TABLE, &r[1]);
    assert_int_equal(rg_conn_call_timeout(&b.c, 2, 40), 0);
    assert_int_equal(rg_conn_next_deadline(&b.c, 20), 60);
    assert_int_equal(rg_conn_expire(&b.c, 60), RG_CONN_FAILED);
    assert_string_equal(b.log, "1:CLOSED 2:TIMEOUT ");
}

/* The connect sequence's deadline: not answered in time, the held calls close. */
static void engine_connect_deadline(void **state) {
    (void)state;
    static bed b;
    int_result r;
    bed_init_timed(&b, 3, 0, 50);
    call(&b, "INCR a", &INT_TABLE, &r);
    assert_int_equal(rg_conn_next_deadline(&b.c, 0), 50);
    assert_int_equal(rg_conn_expire(&b.c, 49), RG_CONN_HANDSHAKE);
    assert_int_equal(rg_conn_expire(&b.c, 50), RG_CONN_FAILED);
    assert_string_equal(b.log, "1:CLOSED ");
    assert_int_equal(rg_conn_error(&b.c).status, RG_TIMEOUT);
    assert_non_null(strstr(rg_conn_error(&b.c).msg.ptr, "connect sequence"));
    /* Answered in time: no deadline left. */
    assert_int_equal(rg_conn_reset(&b.c), 0);
    b.loglen = 0;
    call(&b, "INCR a", &INT_TABLE, &r);
    assert_int_equal(rg_conn_next_deadline(&b.c, 100), 150);
    feed(&b, "%1\r\n+proto\r\n:3\r\n:1\r\n", 1);
    assert_int_equal(rg_conn_state_of(&b.c), RG_CONN_READY);
    assert_string_equal(b.log, "2:1 ");
    assert_true(rg_conn_next_deadline(&b.c, 100) == RG_DEADLINE_NONE);
    assert_int_equal(rg_conn_expire(&b.c, 1000), RG_CONN_READY);
}

/* A callback that closes the connection (as rg_uv_close may): the rest complete once. */
/* Every completion says whether its request fully left: a lost connection's calls that were
 * written may have run, the others certainly did not (safe to send again). */
static void written_one(void *ud, const rg_call_done *d) {
    bed *b = ud;
    logf_(b, "%llu:%s:%c ", (unsigned long long)d->id, rg_status_name(d->status) + 3,
          d->written ? 'w' : '-');
}

static void engine_written(void **state) {
    (void)state;
    static bed b;
    static const rg_view incr[] = {{"INCR", 4}, {"a", 1}};
    bed_init(&b, 0);
    for (int i = 0; i < 3; i++) rg_conn_call_argv(&b.c, 2, incr, &INT_TABLE, NULL, written_one, &b);
    size_t n;
    rg_conn_output(&b.c, &n);
    assert_int_equal(n, 3 * 21);   /* "*2\r\n$4\r\nINCR\r\n$1\r\na\r\n" */
    rg_conn_written(&b.c, 21 + 5); /* the first request and part of the second */
    feed(&b, ":1\r\n", 0);
    rg_conn_closed(&b.c, RG_LIT("gone"));
    assert_string_equal(b.log, "1:OK:w 2:CLOSED:- 3:CLOSED:- ");
    /* Written in two pieces, with compaction between: offsets survive the buffer's moves. */
    assert_int_equal(rg_conn_reset(&b.c), 0);
    b.loglen = 0;
    b.log[0] = '\0';
    rg_conn_call_argv(&b.c, 2, incr, &INT_TABLE, NULL, written_one, &b);
    rg_conn_written(&b.c, 21);
    for (int i = 0; i < 2; i++) rg_conn_call_argv(&b.c, 2, incr, &INT_TABLE, NULL, written_one, &b);
    rg_conn_written(&b.c, 21);
    rg_conn_closed(&b.c, RG_LIT("gone"));
    assert_string_equal(b.log, "4:CLOSED:w 5:CLOSED:w 6:CLOSED:- ");
    /* During a connect sequence whose HELLO falls back, AUTH is put in front of the held calls:
     * their offsets move with them. */
    rg_conn_config cfg = bare_config(&b, 3);
    cfg.password = V("pw");
    assert_int_equal(rg_conn_init(&b.c, &cfg), 0);
    rg_conn_call_argv(&b.c, 2, incr, &INT_TABLE, NULL, written_one, &b);
    const size_t hello = strlen(drain(&b));
    feed(&b, "-ERR unknown command 'HELLO'\r\n", 0);
    rg_conn_output(&b.c, &n); /* AUTH pw, then (once it is answered) INCR a */
    assert_int_equal(n, 22);
    rg_conn_written(&b.c, n);
    feed(&b, "+OK\r\n", 0);
    rg_conn_output(&b.c, &n);
    assert_int_equal(n, 21);
    rg_conn_written(&b.c, 20);
    rg_conn_closed(&b.c, RG_LIT("gone"));
    assert_string_equal(b.log, "1:CLOSED:- ");
    assert_true(hello > 0);
}

/* ---- reconnects: the subscription registry, replay, the queue while down ------------------- */

static char subs_mem[256];

/* A bed whose registry is subs_mem (cap bytes of it), RESP3 with a password: HELLO 3 AUTH. */
static void bed_subs(bed *b, size_t cap, uint32_t queue_calls, size_t queue_bytes) {
    rg_conn_config cfg = bare_config(b, 3);
    cfg.on_push = on_push;
    cfg.push_ud = b;
    cfg.password = V("pw");
    cfg.subs = subs_mem;
    cfg.subs_cap = cap;
    cfg.queue_calls = queue_calls;
    cfg.queue_bytes = queue_bytes;
    assert_int_equal(rg_conn_init(&b->c, &cfg), 0);
}

#define HELLO_PW "*5\r\n$5\r\nHELLO\r\n$1\r\n3\r\n$4\r\nAUTH\r\n$7\r\ndefault\r\n$2\r\npw\r\n"
#define REPLAYED                                                                             \
    "*3\r\n$9\r\nSUBSCRIBE\r\n$1\r\na\r\n$1\r\nc\r\n*2\r\n$10\r\nPSUBSCRIBE\r\n$2\r\np*\r\n" \
    "*2\r\n$10\r\nSSUBSCRIBE\r\n$1\r\ns\r\n"
#define REPLAY_CONFIRMED                                                                   \
    ">3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n>3\r\n$9\r\nsubscribe\r\n$1\r\nc\r\n:2\r\n" \
    ">3\r\n$10\r\npsubscribe\r\n$2\r\np*\r\n:3\r\n>3\r\n$10\r\nssubscribe\r\n$1\r\ns\r\n:1\r\n"

/* Subscribes to channels a b c, pattern p*, shard channel s, then leaves b. */
static void subscribe_all(bed *b, size_t step) {
    assert_string_equal(drain(b), HELLO_PW);
    feed(b, "+OK\r\n", step);
    assert_int_not_equal(call(b, "SUBSCRIBE a b c", NULL, NULL), 0);
    assert_int_not_equal(call(b, "PSUBSCRIBE p*", NULL, NULL), 0);
    assert_int_not_equal(call(b, "SSUBSCRIBE s", NULL, NULL), 0);
    assert_int_not_equal(call(b, "UNSUBSCRIBE b", NULL, NULL), 0);
    drain(b);
    feed(b,
         ">3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n>3\r\n$9\r\nsubscribe\r\n$1\r\nb\r\n:2\r\n"
         ">3\r\n$9\r\nsubscribe\r\n$1\r\nc\r\n:3\r\n>3\r\n$10\r\npsubscribe\r\n$2\r\np*\r\n:4\r\n"
         ">3\r\n$10\r\nssubscribe\r\n$1\r\ns\r\n:1\r\n"
         ">3\r\n$11\r\nunsubscribe\r\n$1\r\nb\r\n:3\r\n",
         step);
    assert_int_equal(rg_conn_subscriptions(&b->c), 4);
    assert_int_equal(rg_conn_pending(&b->c), 0);
}

static void s_replay(bed *b, size_t step) {
    subscribe_all(b, step);
    /* Lost: the connect sequence first (AUTH in HELLO), then one subscribe per class, once. */
    rg_conn_closed(&b->c, RG_LIT("EOF"));
    assert_int_equal(rg_conn_reset(&b->c), 0);
    assert_string_equal(drain(b), HELLO_PW);
    assert_int_equal(rg_conn_replaying(&b->c), 3);
    feed(b, "+OK\r\n", step);
    assert_string_equal(drain(b), REPLAYED);
    b->loglen = 0;
    b->log[0] = '\0';
    feed(b, REPLAY_CONFIRMED ">3\r\n$7\r\nmessage\r\n$1\r\na\r\n$2\r\nm1\r\n", step);
    assert_string_equal(b->log, "push:message:m1 "); /* confirmations go to nobody */
    assert_int_equal(rg_conn_replaying(&b->c), 0);
    assert_int_equal(rg_conn_subscriptions(&b->c), 4);
    /* Lost in the middle of the replay: the next connect replays everything once again. */
    rg_conn_closed(&b->c, RG_LIT("EOF"));
    assert_int_equal(rg_conn_reset(&b->c), 0);
    drain(b);
    feed(b, "+OK\r\n>3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n", step);
    rg_conn_closed(&b->c, RG_LIT("EOF"));
    assert_int_equal(rg_conn_offline(&b->c), 0);
    assert_int_equal(rg_conn_offline(&b->c), 0); /* a failed attempt: nothing queued again */
    rg_conn_online(&b->c);
    assert_string_equal(drain(b), HELLO_PW);
    feed(b, "+OK\r\n", step);
    assert_string_equal(drain(b), REPLAYED);
    /* Leaving: unsubscribe-all of channels and patterns; only the shard channel stays. */
    feed(b, REPLAY_CONFIRMED, step);
    assert_int_not_equal(call(b, "UNSUBSCRIBE", NULL, NULL), 0);
    assert_int_not_equal(call(b, "PUNSUBSCRIBE", NULL, NULL), 0);
    drain(b);
    feed(
        b,
        ">3\r\n$11\r\nunsubscribe\r\n$1\r\na\r\n:2\r\n>3\r\n$11\r\nunsubscribe\r\n$1\r\nc\r\n:1\r\n"
        "+PONG\r\n>3\r\n$12\r\npunsubscribe\r\n$2\r\np*\r\n:0\r\n+PONG\r\n",
        step);
    assert_int_equal(rg_conn_pending(&b->c), 0);
    assert_int_equal(rg_conn_subscriptions(&b->c), 1);
    rg_conn_closed(&b->c, RG_LIT("EOF"));
    assert_int_equal(rg_conn_reset(&b->c), 0);
    drain(b);
    feed(b, "+OK\r\n", step);
    assert_string_equal(drain(b), "*2\r\n$10\r\nSSUBSCRIBE\r\n$1\r\ns\r\n");
    /* RESET leaves everything: nothing to replay. */
    feed(b, ">3\r\n$10\r\nssubscribe\r\n$1\r\ns\r\n:1\r\n", step);
    assert_int_not_equal(call(b, "RESET", NULL, NULL), 0);
    drain(b);
    feed(b, "+RESET\r\n", step);
    assert_int_equal(rg_conn_subscriptions(&b->c), 0);
    rg_conn_closed(&b->c, RG_LIT("EOF"));
    assert_int_equal(rg_conn_reset(&b->c), 0);
    drain(b);
    feed(b, "+OK\r\n", step);
    assert_string_equal(drain(b), "");
}

static void engine_replay(void **state) {
    (void)state;
    static bed b;
    for (size_t step = 0; step <= 1; step++) {
        bed_subs(&b, sizeof subs_mem, 0, 0);
        s_replay(&b, step);
    }
}

/* RESP2: the replayed subscribes' confirmations are arrays, read as such (subscribe mode). */
static void engine_replay_resp2(void **state) {
    (void)state;
    static bed b;
    rg_conn_config cfg = bare_config(&b, 2);
    cfg.on_push = on_push;
    cfg.push_ud = &b;
    cfg.subs = subs_mem;
    cfg.subs_cap = sizeof subs_mem;
    assert_int_equal(rg_conn_init(&b.c, &cfg), 0);
    call(&b, "SUBSCRIBE a", NULL, NULL);
    drain(&b);
    feed(&b, "*3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n", 0);
    rg_conn_closed(&b.c, RG_LIT("EOF"));
    assert_int_equal(rg_conn_reset(&b.c), 0);
    assert_string_equal(drain(&b), "*2\r\n$9\r\nSUBSCRIBE\r\n$1\r\na\r\n");
    b.loglen = 0;
    feed(&b,
         "*3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n*3\r\n$7\r\nmessage\r\n$1\r\na\r\n$1\r\nm\r\n",
         0);
    assert_string_equal(b.log, "push:message:m ");
    assert_int_equal(rg_conn_state_of(&b.c), RG_CONN_READY);
}

/* A full registry refuses the subscribe whose names would not fit (nothing sent); the names of
 * pending subscribes count. */
static void engine_registry_full(void **state) {
    (void)state;
    static bed b;
    bed_subs(&b, 16, 0, 0);
    drain(&b);
    feed(&b, "+OK\r\n", 0);
    assert_int_not_equal(call(&b, "SUBSCRIBE abcdefghij", NULL, NULL), 0); /* 5 + 10 bytes */
    assert_int_equal(call(&b, "SUBSCRIBE x", NULL, NULL), 0);              /* pending: promised */
    assert_int_equal(call(&b, "SUBSCRIBE abcdefghij", NULL, NULL), 0);
    drain(&b);
    feed(&b, ">3\r\n$9\r\nsubscribe\r\n$10\r\nabcdefghij\r\n:1\r\n", 0);
    assert_int_equal(call(&b, "SUBSCRIBE x", NULL, NULL), 0);
    assert_int_equal(rg_conn_subscriptions(&b.c), 1);
}

/* CLIENT TRACKING without REDIRECT is replayed once it succeeded (ON), forgotten after OFF, an
 * error or with REDIRECT (the id dies with the connection). */
static void lose_and_ready(bed *b) {
    rg_conn_closed(&b->c, RG_LIT("EOF"));
    assert_int_equal(rg_conn_reset(&b->c), 0);
    assert_string_equal(drain(b), HELLO_PW);
    feed(b, "+OK\r\n", 0);
    b->loglen = 0;
    b->log[0] = '\0';
}

#define TRACK_ON "*4\r\n$6\r\nCLIENT\r\n$8\r\nTRACKING\r\n$2\r\non\r\n$5\r\nBCAST\r\n"

static void engine_tracking_replay(void **state) {
    (void)state;
    static bed b;
    bed_subs(&b, sizeof subs_mem, 0, 0);
    drain(&b);
    feed(&b, "+OK\r\n", 0);
    assert_int_not_equal(call(&b, "CLIENT TRACKING on BCAST", NULL, NULL), 0);
    assert_int_not_equal(call(&b, "SUBSCRIBE a", NULL, NULL), 0);
    drain(&b);
    feed(&b, "+OK\r\n>3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n", 0);
    assert_int_equal(rg_conn_subscriptions(&b.c), 1);
    lose_and_ready(&b);
    assert_string_equal(drain(&b), "*2\r\n$9\r\nSUBSCRIBE\r\n$1\r\na\r\n" TRACK_ON);
    feed(&b, ">3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n", 0);
    assert_int_equal(rg_conn_replaying(&b.c), 1); /* "ready" waits for tracking too */
    feed(&b, "+OK\r\n", 0);
    assert_int_equal(rg_conn_replaying(&b.c), 0);
    assert_int_equal(rg_conn_pending(&b.c), 0);
    assert_string_equal(b.log, "");
    /* replayed, tracking is on again: a loss flushes caches */
    rg_conn_closed(&b.c, RG_LIT("EOF"));
    assert_string_equal(b.log, "push:invalidate: ");
    assert_int_equal(rg_conn_reset(&b.c), 0);
    drain(&b);
    feed(&b, "+OK\r\n", 0);
    drain(&b);
    feed(&b, ">3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n+OK\r\n", 0);
    /* refused, with REDIRECT, then OFF: nothing to replay but the subscription */
    call(&b, "CLIENT TRACKING on OPTIN", NULL, NULL);
    call(&b, "CLIENT TRACKING on REDIRECT 7", NULL, NULL);
    call(&b, "CLIENT TRACKING off", NULL, NULL);
    drain(&b);
    feed(&b, "-ERR no\r\n+OK\r\n+OK\r\n", 0);
    lose_and_ready(&b);
    assert_string_equal(drain(&b), "*2\r\n$9\r\nSUBSCRIBE\r\n$1\r\na\r\n");
    /* lost before its answer: not replayed */
    feed(&b, ">3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n", 0);
    call(&b, "CLIENT TRACKING on BCAST", NULL, NULL);
    drain(&b);
    lose_and_ready(&b);
    assert_string_equal(drain(&b), "*2\r\n$9\r\nSUBSCRIBE\r\n$1\r\na\r\n");
}

/* Without storage but with an allocator, the registry grows through it up to subs_cap bytes and
 * goes back with rg_conn_free (the sanitizer build sees a leak or a double free). */
static void engine_registry_alloc(void **state) {
    (void)state;
    static bed b;
    rg_conn_config cfg = bare_config(&b, 0);
    cfg.alloc = rg_conn_std_alloc;
    cfg.subs_cap = 300;
    assert_int_equal(rg_conn_init(&b.c, &cfg), 0);
    char confirm[64], words[32];
    int n = 0;
    for (; n < 100; n++) {
        snprintf(words, sizeof words, "SUBSCRIBE channel-%03d", n);
        if (!call(&b, words, NULL, NULL)) break;
        drain(&b);
        snprintf(confirm, sizeof confirm, ">3\r\n$9\r\nsubscribe\r\n$11\r\nchannel-%03d\r\n:%d\r\n",
                 n, n + 1);
        feed(&b, confirm, 0);
    }
    assert_int_equal(n, 300 / 16); /* 5 + 11 bytes each */
    assert_int_equal(rg_conn_subscriptions(&b.c), (size_t)n);
    rg_conn_closed(&b.c, RG_LIT("EOF"));
    assert_int_equal(rg_conn_reset(&b.c), 0);
    assert_int_equal(strlen(drain(&b)), 5 + 15 + (size_t)n * 18); /* *19, SUBSCRIBE, names */
    rg_conn_free(&b.c);
    assert_int_equal(rg_conn_subscriptions(&b.c), 0);
}

static void engine_offline_queue(void **state) {
    (void)state;
    static bed b;
    int_result r[4];
    /* By default calls made while down are refused at once. */
    bed_subs(&b, sizeof subs_mem, 0, 0);
    drain(&b);
    feed(&b, "+OK\r\n", 0);
    rg_conn_closed(&b.c, RG_LIT("EOF"));
    assert_int_equal(rg_conn_offline(&b.c), 0);
    assert_true(rg_conn_is_offline(&b.c));
    assert_int_equal(call(&b, "INCR a", &INT_TABLE, &r[0]), 0);
    rg_conn_online(&b.c);
    assert_int_not_equal(call(&b, "INCR a", &INT_TABLE, &r[0]), 0);
    /* Bounded: two calls, 42 bytes; the one past a bound is refused. */
    bed_subs(&b, sizeof subs_mem, 2, 42);
    drain(&b);
    feed(&b, "+OK\r\n", 0);
    call(&b, "SUBSCRIBE a", NULL, NULL);
    drain(&b);
    feed(&b, ">3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n", 0);
    rg_conn_closed(&b.c, RG_LIT("EOF"));
    assert_int_equal(rg_conn_offline(&b.c), 0);
    assert_int_equal(call(&b, "INCR abcdefghijklmnopqrstuvwxyz", &INT_TABLE, &r[0]), 0); /* 47 */
    assert_int_not_equal(call(&b, "INCR a", &INT_TABLE, &r[0]), 0);                      /* 21 */
    assert_int_not_equal(call(&b, "INCR b", &INT_TABLE, &r[1]), 0);                      /* 42 */
    assert_int_equal(call(&b, "INCR c", &INT_TABLE, &r[2]), 0);
    /* A failed attempt keeps them; then they go out after the connect sequence and replay. */
    assert_int_equal(rg_conn_offline(&b.c), 0);
    rg_conn_online(&b.c);
    assert_string_equal(drain(&b), HELLO_PW);
    feed(&b, "+OK\r\n", 0);
    assert_string_equal(drain(&b),
                        "*2\r\n$9\r\nSUBSCRIBE\r\n$1\r\na\r\n*2\r\n$4\r\nINCR\r\n$1\r\na\r\n"
                        "*2\r\n$4\r\nINCR\r\n$1\r\nb\r\n");
    b.loglen = 0;
    b.log[0] = '\0';
    feed(&b, ">3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n:1\r\n:2\r\n", 0);
    assert_string_equal(b.log, "3:1 4:2 "); /* 2: the replay */
    /* Queued while down and never sent (attempts ran out): CLOSED, not written, once. */
    rg_conn_closed(&b.c, RG_LIT("EOF"));
    assert_int_equal(rg_conn_offline(&b.c), 0);
    b.loglen = 0;
    b.log[0] = '\0';
    static const rg_view incr[] = {{"INCR", 4}, {"a", 1}};
    rg_conn_call_argv(&b.c, 2, incr, &INT_TABLE, NULL, written_one, &b);
    rg_conn_closed(&b.c, RG_LIT("gave up"));
    rg_conn_closed(&b.c, RG_LIT("gave up"));
    assert_string_equal(b.log, "6:CLOSED:- ");
}

/* Deadlines run while queued; the connect sequence's waits for the socket. */
static void engine_offline_deadlines(void **state) {
    (void)state;
    static bed b;
    rg_conn_config cfg = bare_config(&b, 3);
    cfg.timeout_ms = 100;
    cfg.connect_timeout_ms = 50;
    cfg.queue_calls = 4;
    assert_int_equal(rg_conn_init(&b.c, &cfg), 0);
    rg_conn_closed(&b.c, RG_LIT("EOF"));
    assert_int_equal(rg_conn_offline(&b.c), 0);
    assert_int_equal(rg_conn_next_deadline(&b.c, 1000), RG_DEADLINE_NONE);
    static const rg_view incr[] = {{"INCR", 4}, {"a", 1}};
    rg_conn_call_argv(&b.c, 2, incr, &INT_TABLE, NULL, written_one, &b);
    assert_int_equal(rg_conn_next_deadline(&b.c, 1000), 1100);
    assert_int_equal(rg_conn_expire(&b.c, 1099), RG_CONN_HANDSHAKE);
    assert_int_equal(rg_conn_expire(&b.c, 1100), RG_CONN_FAILED);
    assert_string_equal(b.log, "1:TIMEOUT:- ");
    /* Online, the connect sequence's deadline starts. */
    assert_int_equal(rg_conn_offline(&b.c), 0);
    rg_conn_online(&b.c);
    assert_int_equal(rg_conn_next_deadline(&b.c, 2000), 2050);
}

static void close_in_callback(void *ud, const rg_call_done *d) {
    bed *b = ud;
    on_done(ud, d);
    rg_conn_closed(&b->c, RG_LIT("closed by a callback"));
}

static void engine_close_in_callback(void **state) {
    (void)state;
    static bed b;
    for (size_t step = 0; step <= 1; step++) {
        bed_init(&b, 0);
        int_result r[2];
        call(&b, "MULTI", NULL, NULL);
        rg_view incr[] = {V("INCR"), V("a")};
        rg_conn_call_argv(&b.c, 2, incr, &INT_TABLE, &r[0], close_in_callback, &b);
        call(&b, "INCR a", &INT_TABLE, &r[1]);
        call(&b, "EXEC", NULL, NULL);
        call(&b, "INCR a", &INT_TABLE, &r[1]);
        feed(&b, "+OK\r\n+QUEUED\r\n+QUEUED\r\n*2\r\n:1\r\n:2\r\n:3\r\n", step);
        assert_string_equal(b.log, "1:OK 2:1 3:CLOSED 4:CLOSED 5:CLOSED ");
        assert_int_equal(rg_conn_pending(&b.c), 0);
    }
}

static void redirects(void **state) {
    (void)state;
    rg_redirect r;
    assert_int_equal(rg_redirect_parse(V("MOVED 3999 127.0.0.1:6381"), &r), RG_REDIRECT_MOVED);
    assert_true(r.slot == 3999 && same(r.host, "127.0.0.1") && r.port == 6381);
    assert_int_equal(rg_redirect_parse(V("ASK 1 ::1:7000"), &r), RG_REDIRECT_ASK);
    assert_true(same(r.host, "::1") && r.port == 7000);
    assert_int_equal(rg_redirect_parse(V("MOVED 1 :7000"), &r), RG_REDIRECT_MOVED);
    assert_int_equal(r.host.len, 0);
    assert_int_equal(rg_redirect_parse(V("MOVED 16384 a:1"), &r), RG_REDIRECT_NONE);
    assert_int_equal(rg_redirect_parse(V("TRYAGAIN Multiple keys"), &r), RG_REDIRECT_TRYAGAIN);
    assert_int_equal(rg_redirect_parse(V("LOADING Redis is loading"), &r), RG_REDIRECT_LOADING);
    assert_int_equal(rg_redirect_parse(V("BUSY Redis is busy"), &r), RG_REDIRECT_BUSY);
    assert_int_equal(rg_redirect_parse(V("BUSYKEY exists"), &r), RG_REDIRECT_NONE);
    assert_int_equal(rg_redirect_parse(V("CLUSTERDOWN down"), &r), RG_REDIRECT_CLUSTERDOWN);
    assert_int_equal(rg_redirect_parse(V("ERR x"), &r), RG_REDIRECT_NONE);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(push_messages),
        cmocka_unit_test(push_confirmations),
        cmocka_unit_test(push_invalidations),
        cmocka_unit_test(push_errors),
        cmocka_unit_test(engine_pipeline),
        cmocka_unit_test(engine_multi),
        cmocka_unit_test(engine_exec_streamed),
        cmocka_unit_test(engine_exec_typed),
        cmocka_unit_test(engine_exec_small_buffer),
        cmocka_unit_test(engine_pong_pair_small_buffer),
        cmocka_unit_test(engine_attribute),
        cmocka_unit_test(engine_pubsub),
        cmocka_unit_test(engine_hello),
        cmocka_unit_test(engine_loss),
        cmocka_unit_test(engine_abandon),
        cmocka_unit_test(engine_deadlines),
        cmocka_unit_test(engine_connect_deadline),
        cmocka_unit_test(engine_tracking_reset),
        cmocka_unit_test(engine_error_then_close),
        cmocka_unit_test(engine_close_in_callback),
        cmocka_unit_test(engine_written),
        cmocka_unit_test(engine_replay),
        cmocka_unit_test(engine_replay_resp2),
        cmocka_unit_test(engine_registry_full),
        cmocka_unit_test(engine_registry_alloc),
        cmocka_unit_test(engine_offline_queue),
        cmocka_unit_test(engine_tracking_replay),
        cmocka_unit_test(engine_offline_deadlines),
        cmocka_unit_test(redirects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
