/* Helpers of the libuv cluster client's integration tests (cluster_uv.c, cluster_uv_ops.c and
 * cluster_tls.c with libuv): a monotonic clock, the test's loop with a tick, running it until a
 * condition holds, and opening and closing the client (adapters/rg_cluster_uv.h) with its
 * events counted in an int[UVT_EVENTS] indexed by rg_cc_uv_event (the test's on_event does
 * events[ev]++).
 *
 * run_until's conditions read the test's own fixture: include this header after cmocka.h and
 * after the test's `fixture` type, which has a `uv_loop_t loop`. */
#ifndef RG_TEST_CLUSTER_UV_UTIL_H
#define RG_TEST_CLUSTER_UV_UTIL_H

#include "rg_cluster_uv.h"
#include "test_cluster.h"

#include <string.h>
#include <time.h>

enum { UVT_EVENTS = RG_CC_UV_CLOSED + 1 };

static inline double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline void uvt_on_tick(uv_timer_t *t) {
    (void)t;
}

/* Starts loop with a tick every 10 ms: uv_run(UV_RUN_ONCE) returns at least that often, so a
 * wait watches its clock even while nothing else happens. */
static inline void uvt_loop_start(uv_loop_t *loop, uv_timer_t *tick) {
    uv_loop_init(loop);
    uv_timer_init(loop, tick);
    uv_timer_start(tick, uvt_on_tick, 10, 10);
}

/* Closes the tick and the loop: uv_loop_close's result (UV_EBUSY: a handle is still open, e.g.
 * a client a failed test left; never waited for, so a teardown cannot hang on it). */
static inline int uvt_loop_end(uv_loop_t *loop, uv_timer_t *tick) {
    uv_close((uv_handle_t *)tick, NULL);
    uv_run(loop, UV_RUN_NOWAIT);
    return uv_loop_close(loop);
}

/* Runs f's loop until done(f) or timeout_s; false on the timeout. */
static inline bool run_until(fixture *f, bool (*done)(fixture *f), double timeout_s) {
    const double end = now_s() + timeout_s;
    while (!done(f)) {
        if (now_s() > end) return false;
        uv_run(&f->loop, UV_RUN_ONCE);
    }
    return true;
}

/* READY or FAILED was told (the first refresh ended). */
static inline bool uvt_told(const int *events) {
    return events[RG_CC_UV_READY] + events[RG_CC_UV_FAILED] > 0;
}

/* Opens u on loop with cfg, seeded at 127.0.0.1:port, its events counted from 0. */
static inline void uvt_start(rg_cc_uv *u, uv_loop_t *loop, const rg_cc_config *cfg, int port,
                             rg_cc_uv_fn on_event, void *ud, int *events) {
    memset(events, 0, UVT_EVENTS * sizeof *events);
    assert_int_equal(rg_cc_uv_open(u, loop, cfg, "127.0.0.1", (uint16_t)port, on_event, ud), RG_OK);
}

/* Runs the loop until READY or FAILED (which one: the caller checks). */
static inline void uvt_wait_told(uv_loop_t *loop, const int *events) {
    const double end = now_s() + 10;
    while (!uvt_told(events) && now_s() < end) uv_run(loop, UV_RUN_ONCE);
    assert_true(uvt_told(events));
}

/* uvt_start and uvt_wait_told. */
static inline void uvt_open(rg_cc_uv *u, uv_loop_t *loop, const rg_cc_config *cfg, int port,
                            rg_cc_uv_fn on_event, void *ud, int *events) {
    uvt_start(u, loop, cfg, port, on_event, ud, events);
    uvt_wait_told(loop, events);
}

/* Closes u and runs the loop until CLOSED, told once. */
static inline void uvt_close(rg_cc_uv *u, uv_loop_t *loop, const int *events) {
    rg_cc_uv_close(u);
    const double end = now_s() + 10;
    while (events[RG_CC_UV_CLOSED] == 0 && now_s() < end) uv_run(loop, UV_RUN_ONCE);
    assert_int_equal(events[RG_CC_UV_CLOSED], 1);
}

/* The plain port of the first running node (the failover tests kill some). */
static inline int uvt_seed_port(const test_cluster *c) {
    int seed = 0;
    while (seed < c->n - 1 && c->node[seed].pid <= 0) seed++;
    return c->node[seed].port;
}

#endif
