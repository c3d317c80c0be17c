/* Replies real servers send that the engine once refused, read through the blocking adapter
 * (adapters/rg_blocking.h) from a real redis-server:
 * - a RESP3 double NaN: redis-server 7.0 sends Lua's 0/0 as ",-nan" (glibc's "%.17g");
 * - tables nested deeper than the decoder's inline stack: a Lua script returns them 41, 1,000 and
 *   5,000 levels deep (RESP2 and RESP3), read with the default depth and a caller-given stack. */
#include "rg_blocking.h"
#include "test_redis.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define V(s) ((rg_view){(s), sizeof(s) - 1})

enum { NCALLS = 64, IN_CAP = 1 << 16, OUT_CAP = 1 << 16 };

typedef struct client {
    rg_bconn b;
    char in[IN_CAP];
    char out[OUT_CAP];
    rg_call calls[NCALLS];
} client;

/* A zero-initialised config but for the buffers, as most callers write it. */
static client *open_client(const test_redis *s, int protocol, rg_frame *frames, size_t nframes) {
    client *c = calloc(1, sizeof *c);
    assert_non_null(c);
    rg_conn_config cfg = {0};
    cfg.in = c->in;
    cfg.in_cap = sizeof c->in;
    cfg.out = c->out;
    cfg.out_cap = sizeof c->out;
    cfg.calls = c->calls;
    cfg.ncalls = NCALLS;
    cfg.protocol = protocol;
    cfg.frames = frames;
    cfg.nframes = nframes;
    assert_int_equal(rg_bconn_connect_tcp(&c->b, "127.0.0.1", s->port, &cfg, 2000, 10000), 0);
    return c;
}

static void close_client(client *c) {
    rg_bconn_close(&c->b);
    free(c);
}

/* A raw call: the reply's bytes as the server sent them, copied into *out (NUL-terminated,
 * truncated to cap). */
typedef struct raw_call {
    rg_call_record rec;
    rg_raw_result raw;
    char *out;
    size_t cap, len;
} raw_call;

static void raw_done(void *ud, const rg_call_done *d) {
    raw_call *r = ud;
    rg_call_record_fn(&r->rec, d);
    if (d->status != RG_OK || !r->out) return;
    r->len = r->raw.value.len;
    const size_t n = r->len < r->cap ? r->len : r->cap - 1;
    memcpy(r->out, r->raw.value.ptr, n);
    r->out[n] = '\0';
}

static void call(client *c, size_t argc, const rg_view *argv, raw_call *r) {
    const uint64_t id = rg_conn_call_argv(&c->b.conn, argc, argv, NULL, &r->raw, raw_done, r);
    assert_int_not_equal(id, 0);
    (void)rg_bconn_wait(&c->b, id);
    assert_true(r->rec.done);
}

/* The connection still works: a PING answered. */
static void still_usable(client *c) {
    char text[16];
    raw_call r = {.out = text, .cap = sizeof text};
    const rg_view argv[] = {V("PING")};
    call(c, 1, argv, &r);
    assert_int_equal(r.rec.status, RG_OK);
    assert_string_equal(text, "+PONG\r\n");
}

/* ---- NaN ------------------------------------------------------------------------------------ */

static void double_nan(void **state) {
    const test_redis *s = *state;
    client *c = open_client(s, 3, NULL, 0);
    char text[64];
    raw_call r = {.out = text, .cap = sizeof text};
    const rg_view argv[] = {V("EVAL"), V("redis.setresp(3); return {double=0/0}"), V("0")};
    call(c, 3, argv, &r);
    if (r.rec.status != RG_OK) fail_msg("%s: %s", rg_status_name(r.rec.status), r.rec.error);
    assert_int_equal(rg_conn_protocol(&c->b.conn), 3);
    /* whichever NaN the server's C library prints, as it printed it */
    assert_true(strcmp(text, ",-nan\r\n") == 0 || strcmp(text, ",nan\r\n") == 0);
    still_usable(c);
    close_client(c);
}

/* ---- nesting ------------------------------------------------------------------------------- */

/* A table nested d levels deep around the integer 1. */
static const char nest_script[] =
    "local t = {1} for i = 2, tonumber(ARGV[1]) do t = {t} end return t";

/* EVAL of nest_script for d levels on c: the call's status, the reply's bytes checked when OK. */
static rg_status nested(client *c, size_t d) {
    char depth[16];
    const int dn = snprintf(depth, sizeof depth, "%zu", d);
    static char got[1 << 16];
    raw_call r = {.out = got, .cap = sizeof got};
    const rg_view argv[] = {V("EVAL"), V(nest_script), V("0"), {depth, (size_t)dn}};
    call(c, 4, argv, &r);
    if (r.rec.status != RG_OK) return r.rec.status;
    assert_int_equal(r.len, 4 * d + 4);
    for (size_t i = 0; i < d; i++) assert_memory_equal(got + 4 * i, "*1\r\n", 4);
    assert_memory_equal(got + 4 * d, ":1\r\n", 4);
    return RG_OK;
}

/* 41 and 1,000 levels with a zero-initialised config (RG_CONN_MAX_DEPTH); 1,025 ends the
 * connection with a depth error. RESP2 and RESP3. */
static void nested_default(void **state) {
    const test_redis *s = *state;
    for (int protocol = 2; protocol <= 3; protocol++) {
        client *c = open_client(s, protocol, NULL, 0);
        assert_int_equal(nested(c, 41), RG_OK);
        assert_int_equal(rg_conn_protocol(&c->b.conn), protocol);
        assert_int_equal(nested(c, 1000), RG_OK);
        assert_int_equal(nested(c, RG_CONN_MAX_DEPTH), RG_OK);
        still_usable(c);
        assert_int_equal(nested(c, RG_CONN_MAX_DEPTH + 1), RG_ERR_DEPTH);
        const rg_error e = rg_conn_error(&c->b.conn);
        assert_int_equal(e.status, RG_ERR_DEPTH);
        assert_non_null(e.msg.ptr);
        close_client(c);
    }
}

/* 5,000 levels with the caller's frames. */
static void nested_caller_frames(void **state) {
    const test_redis *s = *state;
    const size_t nframes = RG_READER_FRAMES(5000);
    rg_frame *frames = malloc(nframes * sizeof *frames);
    assert_non_null(frames);
    for (int protocol = 2; protocol <= 3; protocol++) {
        client *c = open_client(s, protocol, frames, nframes);
        assert_int_equal(nested(c, 5000), RG_OK);
        assert_int_equal(nested(c, 41), RG_OK);
        still_usable(c);
        assert_int_equal(nested(c, 5001), RG_ERR_DEPTH);
        close_client(c);
    }
    free(frames);
}

/* ---- fixture -------------------------------------------------------------------------------- */

static int setup(void **state) {
    test_redis *s = calloc(1, sizeof *s);
    if (!s || test_redis_start(s, NULL) != 0) {
        free(s);
        return -1;
    }
    *state = s;
    return 0;
}

static int teardown(void **state) {
    test_redis *s = *state;
    test_redis_stop(s);
    free(s);
    return 0;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(double_nan),
        cmocka_unit_test(nested_default),
        cmocka_unit_test(nested_caller_frames),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
