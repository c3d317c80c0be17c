/* The connection engine (runtime/rg_conn.h) on replies nested deeper than the decoder's inline
 * RG_MAX_DEPTH frames, fed whole and one byte at a time: RG_CONN_MAX_DEPTH (1,024) levels with a
 * zero-initialised config, one more refused with RG_ERR_DEPTH, 5,000 with frames the caller
 * gives, a deep element of EXEC's array, and the depth limits rg_conn_init refuses. */
#include "rg_conn.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define V(s) ((rg_view){(s), sizeof(s) - 1})

enum { IN_CAP = 1 << 17 };

typedef struct bed {
    rg_conn c;
    char in[IN_CAP], out[4096];
    rg_call calls[16];
    rg_call_record rec[8];
    rg_raw_result raw[8];
    size_t len[8]; /* each raw result's length, taken in the callback */
} bed;

typedef struct slot {
    bed *b;
    int i;
} slot;

static slot slots[8];

static void on_done(void *ud, const rg_call_done *d) {
    const slot *s = ud;
    rg_call_record_fn(&s->b->rec[s->i], d);
    if (d->status == RG_OK) s->b->len[s->i] = s->b->raw[s->i].value.len;
}

/* A config zero but for the buffers, as callers write it; frames as given. */
static int bed_init(bed *b, rg_frame *frames, size_t nframes, const rg_limits *limits) {
    memset(b, 0, sizeof *b);
    rg_conn_config cfg = {0};
    cfg.in = b->in;
    cfg.in_cap = sizeof b->in;
    cfg.out = b->out;
    cfg.out_cap = sizeof b->out;
    cfg.calls = b->calls;
    cfg.ncalls = 16;
    cfg.frames = frames;
    cfg.nframes = nframes;
    cfg.limits = limits;
    return rg_conn_init(&b->c, &cfg);
}

/* A raw call: its result is the reply's bytes. */
static void call(bed *b, int i, size_t argc, const rg_view *argv) {
    slots[i] = (slot){b, i};
    assert_int_not_equal(rg_conn_call_argv(&b->c, argc, argv, NULL, &b->raw[i], on_done, &slots[i]),
                         0);
}

static void drain(bed *b) {
    size_t n;
    while (rg_conn_output(&b->c, &n) != NULL) rg_conn_written(&b->c, n);
}

/* Feeds bytes whole, or one at a time. */
static void feed(bed *b, const char *bytes, size_t len, bool bytewise) {
    for (size_t at = 0; at < len;) {
        const size_t n = bytewise ? 1 : len - at;
        assert_int_equal(rg_conn_feed_copy(&b->c, bytes + at, n, NULL), n);
        at += n;
    }
}

/* d nested arrays (with a sibling each) around an integer. */
static char *nest(size_t d, size_t *len) {
    char *s = malloc(d * 11 + 8);
    assert_non_null(s);
    size_t n = 0;
    for (size_t i = 0; i < d; i++) n += (size_t)sprintf(s + n, "*2\r\n");
    n += (size_t)sprintf(s + n, ":1\r\n");
    for (size_t i = 0; i < d; i++) n += (size_t)sprintf(s + n, "+x\r\n");
    *len = n;
    return s;
}

/* A deep reply for call 0, then ":7" for call 1: want_ok tells whether the first completes (and
 * the connection goes on) or the stream fails at the level past the limit. */
static void deep_reply(bed *b, size_t d, bool bytewise, bool want_ok, uint32_t limit) {
    const rg_view get[] = {V("GET"), V("k")};
    call(b, 0, 2, get);
    call(b, 1, 2, get);
    drain(b);
    size_t n;
    char *s = nest(d, &n);
    feed(b, s, n, bytewise);
    assert_true(b->rec[0].done);
    if (want_ok) {
        assert_int_equal(b->rec[0].status, RG_OK);
        assert_int_equal(b->len[0], n);
        feed(b, ":7\r\n", 4, bytewise);
        assert_int_equal(b->rec[1].status, RG_OK);
        assert_int_equal(rg_conn_state_of(&b->c), RG_CONN_READY);
    } else {
        assert_int_equal(b->rec[0].status, RG_ERR_DEPTH);
        assert_true(b->rec[1].done);
        assert_int_equal(rg_conn_state_of(&b->c), RG_CONN_FAILED);
        const rg_error e = rg_conn_error(&b->c);
        assert_int_equal(e.status, RG_ERR_DEPTH);
        if (!e.msg.ptr || !strstr(b->rec[0].error, "nesting deeper than the limit"))
            fail_msg("error: %s", b->rec[0].error);
        assert_int_equal(e.offset, (uint64_t)limit * 4); /* where level limit + 1 opens */
    }
    free(s);
}

static bed the_bed;

static void default_depth(void **state) {
    (void)state;
    for (int bytewise = 0; bytewise < 2; bytewise++) {
        assert_int_equal(bed_init(&the_bed, NULL, 0, NULL), 0);
        deep_reply(&the_bed, 41, bytewise, true, 0);
        assert_int_equal(bed_init(&the_bed, NULL, 0, NULL), 0);
        deep_reply(&the_bed, RG_CONN_MAX_DEPTH, bytewise, true, 0);
        assert_int_equal(bed_init(&the_bed, NULL, 0, NULL), 0);
        deep_reply(&the_bed, RG_CONN_MAX_DEPTH + 1, bytewise, false, RG_CONN_MAX_DEPTH);
    }
}

static void caller_frames(void **state) {
    (void)state;
    const size_t nframes = RG_READER_FRAMES(5000);
    rg_frame *frames = malloc(nframes * sizeof *frames);
    assert_non_null(frames);
    for (int bytewise = 0; bytewise < 2; bytewise++) {
        assert_int_equal(bed_init(&the_bed, frames, nframes, NULL), 0);
        deep_reply(&the_bed, 5000, bytewise, true, 0);
        assert_int_equal(bed_init(&the_bed, frames, nframes, NULL), 0);
        deep_reply(&the_bed, 5001, bytewise, false, 5000);
    }
    /* a lower limit with the same frames */
    rg_limits lim = rg_limits_default();
    lim.max_depth = 100;
    assert_int_equal(bed_init(&the_bed, frames, nframes, &lim), 0);
    deep_reply(&the_bed, 100, false, true, 0);
    assert_int_equal(bed_init(&the_bed, frames, nframes, &lim), 0);
    deep_reply(&the_bed, 101, false, false, 100);
    /* more than the frames hold */
    lim.max_depth = 5001;
    assert_int_equal(bed_init(&the_bed, frames, nframes, &lim), RG_INVALID);
    free(frames);
}

/* limits->max_depth without frames: up to RG_CONN_MAX_DEPTH with the connection's own. */
static void limits_depth(void **state) {
    (void)state;
    rg_limits lim = rg_limits_default(); /* max_depth RG_MAX_DEPTH: as asked */
    assert_int_equal(bed_init(&the_bed, NULL, 0, &lim), 0);
    deep_reply(&the_bed, RG_MAX_DEPTH + 1, false, false, RG_MAX_DEPTH);
    lim.max_depth = 0; /* the connection's default */
    assert_int_equal(bed_init(&the_bed, NULL, 0, &lim), 0);
    deep_reply(&the_bed, RG_CONN_MAX_DEPTH, false, true, 0);
    lim.max_depth = RG_CONN_MAX_DEPTH + 1;
    assert_int_equal(bed_init(&the_bed, NULL, 0, &lim), RG_INVALID);
}

/* EXEC's array holds a deep element: each element is decoded as a reply of its own, with the
 * connection's frames. */
static void exec_deep_element(void **state) {
    (void)state;
    for (int bytewise = 0; bytewise < 2; bytewise++) {
        bed *b = &the_bed;
        assert_int_equal(bed_init(b, NULL, 0, NULL), 0);
        const rg_view multi[] = {V("MULTI")}, eval[] = {V("EVAL"), V("s"), V("0")},
                      exec[] = {V("EXEC")};
        call(b, 0, 1, multi);
        call(b, 1, 3, eval);
        call(b, 2, 3, eval);
        call(b, 3, 1, exec);
        drain(b);
        size_t n;
        char *s = nest(RG_CONN_MAX_DEPTH - 1, &n);
        char *all = malloc(n + 64);
        assert_non_null(all);
        size_t len = (size_t)sprintf(all, "+OK\r\n+QUEUED\r\n+QUEUED\r\n*2\r\n");
        memcpy(all + len, s, n);
        len += n;
        len += (size_t)sprintf(all + len, ":5\r\n");
        feed(b, all, len, bytewise);
        for (int i = 0; i < 4; i++) assert_int_equal(b->rec[i].status, RG_OK);
        assert_int_equal(b->len[1], n);
        assert_int_equal(b->len[2], 4);
        assert_int_equal(rg_conn_state_of(&b->c), RG_CONN_READY);
        free(all);
        free(s);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(default_depth),
        cmocka_unit_test(caller_frames),
        cmocka_unit_test(limits_depth),
        cmocka_unit_test(exec_deep_element),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
