/* respgen adapters: the blocking cluster client (see rg_cluster_client.h): the engine's links as
 * rg_bconns, connected when it asks, driven by one poll(2) per round. */
/* The POSIX declarations this file needs (clock_gettime), also when a user's build compiles it
 * with -std=c11 and no feature macros: those hide them. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "rg_cluster_client.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* One rg_bconn per link, allocated when the link first connects. */
typedef struct driver {
    rg_bconn *b[RG_CC_LINKS];
} driver;

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static rg_bconn *bconn(rg_cc *cc, size_t l) {
    return ((driver *)cc->driver)->b[l];
}

/* Connects link l where the engine says, blocking for at most connect_ms. */
static void dial(rg_cc *cc, size_t l) {
    driver *d = cc->driver;
    if (!d->b[l] && !(d->b[l] = calloc(1, sizeof *d->b[l]))) {
        rg_cc_link_failed(cc, l, (rg_error){RG_FULL, RG_LIT("out of memory"), 0});
        rg_cc_link_closed(cc, l);
        return;
    }
    rg_cc_dial to;
    rg_cc_link_dial(cc, l, &to);
    const rg_bconn_options opt = {.connect_ms = to.connect_ms, .io_ms = to.io_ms, .tls = to.tls};
    if (rg_bconn_connect(d->b[l], to.host, to.port, &to.conn, &opt) == RG_OK) {
        rg_cc_link_open(cc, l, &d->b[l]->conn);
        return;
    }
    rg_cc_link_failed(cc, l, rg_bconn_error(d->b[l])); /* (the engine copies the message) */
    rg_bconn_close(d->b[l]);                           /* the TLS filter */
    rg_cc_link_closed(cc, l);
}

/* Link l's connection failed in an rg_bconn call: lost, in that call's words. */
static void lost(rg_cc *cc, size_t l) {
    char why[128];
    const rg_error e = rg_bconn_error(bconn(cc, l));
    snprintf(why, sizeof why, "%.*s", (int)e.msg.len, e.msg.ptr ? e.msg.ptr : "");
    rg_cc_link_failed(cc, l, (rg_error){RG_CLOSED, rg_cstr(why), 0});
}

/* Does what the engine asks of its links; true when one opened. */
static bool links(rg_cc *cc) {
    bool opened = false;
    for (size_t j = 0; j < rg_cc_link_count(cc); j++) {
        const size_t l = rg_cc_link_id(cc, j);
        switch (rg_cc_link_want(cc, l)) {
        case RG_CC_CONNECT:
            dial(cc, l);
            opened |= rg_cc_link_want(cc, l) == RG_CC_OPEN;
            break;
        case RG_CC_CLOSE:
            rg_bconn_close(bconn(cc, l));
            rg_cc_link_closed(cc, l);
            break;
        default: break;
        }
    }
    return opened;
}

/* Does link l take part in this round's poll? A data link only with calls or bytes to send (an
 * idle one is looked at again when it has some); the others always listen. */
static bool polled(const rg_cc *cc, size_t l, bool out) {
    return l >= RG_CLUSTER_MAX_NODES || cc->node[l].inflight || out;
}

/* Writes what every open link has queued, then one poll of at most timeout_ms reads whatever
 * arrived. */
static void pump(rg_cc *cc, int timeout_ms) {
    struct pollfd fds[RG_CC_LINKS];
    size_t who[RG_CC_LINKS];
    nfds_t n = 0;
    bool buffered = false; /* bytes inside a TLS filter: no poll would tell of them */
    for (size_t j = 0; j < rg_cc_link_count(cc); j++) {
        const size_t l = rg_cc_link_id(cc, j);
        if (rg_cc_link_want(cc, l) != RG_CC_OPEN) continue;
        rg_bconn *b = bconn(cc, l);
        if (rg_bconn_send_now(b) != RG_OK) {
            lost(cc, l);
            continue;
        }
        const bool out = rg_bconn_want_write(b);
        if (!polled(cc, l, out)) continue;
        buffered |= rg_bconn_buffered(b);
        fds[n] = (struct pollfd){rg_bconn_fd(b), (short)(POLLIN | (out ? POLLOUT : 0)), 0};
        who[n++] = l;
    }
    if (n == 0) {
        if (timeout_ms > 0) poll(NULL, 0, timeout_ms);
        return;
    }
    if (poll(fds, n, buffered ? 0 : timeout_ms) <= 0 && !buffered) return;
    for (nfds_t k = 0; k < n; k++) {
        const size_t l = who[k];
        rg_bconn *b = bconn(cc, l);
        if (fds[k].revents & POLLOUT && rg_cc_link_want(cc, l) == RG_CC_OPEN &&
            rg_bconn_send_now(b) != RG_OK)
            lost(cc, l);
        if (rg_cc_link_want(cc, l) == RG_CC_OPEN &&
            (fds[k].revents & (POLLIN | POLLERR | POLLHUP) || rg_bconn_buffered(b)) &&
            rg_bconn_read_now(b) != RG_OK)
            lost(cc, l);
    }
}

/* One round: the engine's tick, its links, then I/O until its next deadline or timeout_ms. */
static void round_trip(rg_cc *cc, int timeout_ms) {
    int64_t now = now_ns();
    int64_t next = rg_cc_tick(cc, now);
    if (links(cc)) next = rg_cc_tick(cc, now = now_ns()); /* send to what just opened */
    const int64_t until = next <= now ? 0 : (next - now + 999999) / 1000000;
    pump(cc, until < timeout_ms ? (int)until : timeout_ms);
}

size_t rg_cc_step(rg_cc *cc, int timeout_ms) {
    if (cc->done == cc->n && cc->nchannels == 0 && !cc->notify && !cc->refresh.active) return 0;
    round_trip(cc, timeout_ms);
    return cc->n - cc->done;
}

size_t rg_cc_run(rg_cc *cc) {
    /* (a refresh the batch asked for ends too: the next batch finds the map read) */
    while (rg_cc_step(cc, cc->cfg.io_ms) > 0 || cc->refresh.active) {
    }
    size_t failed = 0;
    for (size_t j = 0; j < cc->n; j++) failed += cc->cfg.calls[j].status != RG_OK;
    return failed;
}

rg_status rg_cc_refresh(rg_cc *cc) {
    const uint32_t rounds = cc->refresh.rounds;
    rg_cc_refresh_start(cc);
    while (cc->refresh.rounds == rounds) round_trip(cc, cc->cfg.connect_ms);
    links(cc); /* the refresh's connection closed */
    return cc->refresh.status;
}

rg_status rg_cc_init(rg_cc *cc, const rg_cc_config *cfg, const char *seed_host,
                     uint16_t seed_port) {
    cc->driver = NULL;
    rg_status st = rg_cc_setup(cc, cfg, seed_host, seed_port);
    if (st != RG_OK) return st;
    if (!(cc->driver = calloc(1, sizeof(driver)))) return RG_FULL;
    st = rg_cc_refresh(cc);
    if (st != RG_OK) rg_cc_close(cc); /* (rg_cc_error still tells why) */
    return st;
}

void rg_cc_close(rg_cc *cc) {
    driver *d = cc->driver;
    cc->nchannels = 0; /* nothing to subscribe again */
    if (d) {
        for (size_t l = 0; l < RG_CC_LINKS; l++) {
            if (!d->b[l]) continue;
            const rg_cc_want w = rg_cc_link_want(cc, l);
            if (w != RG_CC_IDLE && w != RG_CC_CONNECT) rg_bconn_close(d->b[l]); /* (not twice) */
            rg_cc_link_closed(cc, l);
            free(d->b[l]);
        }
        free(d);
    }
    cc->driver = NULL;
    rg_cc_teardown(cc);
}
