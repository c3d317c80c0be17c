/* The kill -9 mid-pipeline of the reconnect integration tests (client_reconnect.c,
 * client_tls_reconnect.c): INCRs of one counter pipelined on a blocking connection, WINDOW in
 * flight, the server killed once a third of LOSS_CALLS were answered, and a tally of how each
 * call completed, so that a test can check every call completed exactly once. Include it after
 * cmocka.h and redis_client.h. */
#ifndef RG_TEST_LOSS_PIPELINE_H
#define RG_TEST_LOSS_PIPELINE_H

#include "rg_blocking.h"
#include "test_redis.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { LOSS_CALLS = 20000, LOSS_WINDOW = 500 };

typedef struct tally {
    uint8_t seen[LOSS_CALLS]; /* completions of each call */
    size_t ok, closed, closed_written, twice, other;
} tally;

typedef struct loss_call {
    tally *t;
    size_t i;
    redis_incr_result r;
} loss_call;

static inline void loss_count(void *ud, const rg_call_done *d) {
    loss_call *l = ud;
    if (l->t->seen[l->i]++) l->t->twice++;
    if (d->status == RG_OK) {
        l->t->ok++;
    } else if (d->status == RG_CLOSED) {
        l->t->closed++;
        l->t->closed_written += d->written;
    } else {
        l->t->other++;
    }
}

/* Pipelines INCRs of "n" on b into calls[], tallied in t, and kills s once a third was
 * answered; returns when b saw the loss, with the number of calls made. */
static inline size_t loss_pipeline(rg_bconn *b, test_redis *s, tally *t, loss_call *calls) {
    size_t queued = 0;
    bool killed = false;
    for (rg_status st = RG_OK; st == RG_OK; st = rg_bconn_poll(b, 5)) {
        while (queued < LOSS_CALLS && rg_conn_pending(&b->conn) < LOSS_WINDOW) {
            calls[queued] = (loss_call){t, queued, {0}};
            if (!redis_incr_call(&b->conn, RG_LIT("n"), &calls[queued].r, loss_count,
                                 &calls[queued]))
                break;
            queued++;
        }
        if (!killed && t->ok >= LOSS_CALLS / 3) {
            test_redis_kill(s);
            killed = true;
        }
        assert_true(killed || queued < LOSS_CALLS || rg_conn_pending(&b->conn));
    }
    assert_true(killed);
    return queued;
}

#endif
