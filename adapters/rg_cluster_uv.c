/* respgen adapters: the libuv cluster client (see rg_cluster_uv.h): the engine's links as
 * rg_uvs, its ticks from a uv_prepare and a uv_timer. */
/* uv.h needs the POSIX types (pthread_rwlock_t) that -std=c11 hides, also when a user's build
 * compiles this file with no feature macros. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "rg_cluster_uv.h"

#include <stdlib.h>

struct rg_cc_uv_link {
    rg_uv uv;
    rg_cc_uv *owner;
    size_t l;
};

static void tell(rg_cc_uv *u, rg_cc_uv_event ev) {
    if (u->on_event) u->on_event(u, ev, u->ud);
}

/* Our own two handles are released: nothing calls back any more. */
static void handle_closed(uv_handle_t *h) {
    rg_cc_uv *u = h->data;
    if (--u->closes) return;
    for (size_t l = 0; l < RG_CC_LINKS; l++) free(u->link[l]);
    rg_cc_teardown(&u->cc);
    tell(u, RG_CC_UV_CLOSED);
}

/* Closing, one link's handles are released; once all are, ours close (the links are freed only
 * then: never from inside an rg_uv's own callback). */
static void link_gone(rg_cc_uv *u) {
    if (u->closes && --u->closes) return;
    u->closes = 2;
    uv_close((uv_handle_t *)&u->prepare, handle_closed);
    uv_close((uv_handle_t *)&u->timer, handle_closed);
}

/* What a link's rg_uv reports: READY opens the engine's link (its connect sequence answered),
 * FAILED loses it (its calls completed already). */
static void link_event(rg_uv *uv, rg_uv_event ev, void *ud) {
    rg_cc_uv_link *lk = ud;
    rg_cc_uv *u = lk->owner;
    if (ev == RG_UV_CLOSED && u->closing) {
        link_gone(u);
        return;
    }
    if (u->closing) return;
    if (ev == RG_UV_READY && rg_cc_link_want(&u->cc, lk->l) == RG_CC_DIALING)
        rg_cc_link_open(&u->cc, lk->l, &uv->conn);
    else if (ev == RG_UV_FAILED)
        rg_cc_link_failed(&u->cc, lk->l, rg_uv_error(uv));
}

/* Starts connecting link l where the engine says (once the last connection's handles are
 * released: until then the engine's ask waits). */
static void dial(rg_cc_uv *u, size_t l) {
    rg_cc_uv_link *lk = u->link[l];
    if (!lk && (lk = u->link[l] = calloc(1, sizeof *lk)) != NULL) {
        lk->owner = u;
        lk->l = l;
    }
    if (!lk) {
        rg_cc_link_failed(&u->cc, l, (rg_error){RG_FULL, RG_LIT("out of memory"), 0});
        return;
    }
    if (lk->uv.open > 0) return;
    rg_cc_dial to;
    rg_cc_link_dial(&u->cc, l, &to);
    to.conn.connect_timeout_ms = to.connect_ms > 0 ? (uint32_t)to.connect_ms : 0;
    const rg_uv_options opt = {.tls = to.tls};
    if (rg_uv_connect(&lk->uv, u->loop, to.host, to.port, &to.conn, &opt, link_event, lk) != RG_OK)
        rg_cc_link_failed(&u->cc, l, rg_uv_error(&lk->uv));
}

/* Does what the engine asks of its links, and writes what it queued on the open ones. */
static void links(rg_cc_uv *u) {
    rg_cc *cc = &u->cc;
    for (size_t j = 0; j < rg_cc_link_count(cc); j++) {
        const size_t l = rg_cc_link_id(cc, j);
        switch (rg_cc_link_want(cc, l)) {
        case RG_CC_CONNECT: dial(u, l); break;
        case RG_CC_CLOSE:
            if (u->link[l]) rg_uv_close(&u->link[l]->uv);
            rg_cc_link_closed(cc, l);
            break;
        case RG_CC_OPEN: rg_uv_flush(&u->link[l]->uv); break;
        default: break;
        }
    }
}

/* Has the engine anything to do without being asked (so the timer keeps the loop alive)? */
static bool busy(const rg_cc *cc) {
    return cc->n != cc->done || cc->refresh.active || cc->need_refresh || cc->nchannels;
}

static void on_timer(uv_timer_t *t);

/* One tick of the engine and what follows from it: links, writes, events, the next wake-up. */
static void drive(rg_cc_uv *u) {
    rg_cc *cc = &u->cc;
    int64_t now = (int64_t)uv_hrtime();
    int64_t next = rg_cc_tick(cc, now);
    links(u);
    const size_t made = cc->n;
    if (!u->told && cc->refresh.rounds) {
        u->told = true;
        tell(u, cc->refresh.status == RG_OK ? RG_CC_UV_READY : RG_CC_UV_FAILED);
    }
    if (!u->closing && cc->n && cc->done == cc->n && !cc->notify) {
        rg_cc_begin(cc);
        tell(u, RG_CC_UV_DRAINED);
    } else if (!u->closing && cc->cfg.node_window && rg_cc_roll_due(cc) && rg_cc_roll(cc)) {
        tell(u, RG_CC_UV_DRAINED); /* (the calls waiting for a shard were carried over) */
    }
    if (u->closing) return;
    if (cc->n != made || cc->notify) {
        /* calls made by the events above: routed and written now, not after the next poll */
        next = rg_cc_tick(cc, now = (int64_t)uv_hrtime());
        links(u);
    }
    /* (at least 1 ms: a timer of 0 armed from its own callback would run again in the same
     * pass of the loop, which never ends; what is due now the next iteration's prepare does) */
    const int64_t ms = next <= now ? 1 : (next - now + 999999) / 1000000;
    uv_timer_start(&u->timer, on_timer, (uint64_t)ms, 0);
    if (busy(cc))
        uv_ref((uv_handle_t *)&u->timer);
    else
        uv_unref((uv_handle_t *)&u->timer);
}

static void on_timer(uv_timer_t *t) {
    drive(t->data);
}

static void on_prepare(uv_prepare_t *p) {
    drive(p->data);
}

rg_status rg_cc_uv_open(rg_cc_uv *u, uv_loop_t *loop, const rg_cc_config *cfg,
                        const char *seed_host, uint16_t seed_port, rg_cc_uv_fn on_event, void *ud) {
    for (size_t l = 0; l < RG_CC_LINKS; l++) u->link[l] = NULL;
    u->loop = loop;
    u->on_event = on_event;
    u->ud = ud;
    u->told = u->closing = false;
    u->closes = 0;
    const rg_status st = rg_cc_setup(&u->cc, cfg, seed_host, seed_port);
    if (st != RG_OK) return st;
    u->cc.driver = u;
    uv_prepare_init(loop, &u->prepare);
    u->prepare.data = u;
    uv_prepare_start(&u->prepare, on_prepare);
    /* (referenced: calls made before uv_run, with no connection open yet, still go out) */
    uv_timer_init(loop, &u->timer);
    u->timer.data = u;
    uv_timer_start(&u->timer, on_timer, 0, 0); /* the first refresh */
    return RG_OK;
}

void rg_cc_uv_close(rg_cc_uv *u) {
    if (u->closing) return;
    u->closing = true;
    u->cc.nchannels = 0; /* nothing to subscribe again */
    uv_prepare_stop(&u->prepare);
    uv_timer_stop(&u->timer);
    u->closes = 1; /* held until every link is asked to close below */
    for (size_t l = 0; l < RG_CC_LINKS; l++) {
        rg_cc_uv_link *lk = u->link[l];
        if (!lk) continue;
        if (lk->uv.open == 0) {
            /* its handles are released already (it failed in this turn of the loop, before
             * links() closed it): this frees the TLS state it kept, at once, no event */
            rg_uv_close(&lk->uv);
            continue;
        }
        u->closes++;
        rg_uv_close(&lk->uv); /* its calls complete RG_CLOSED; RG_UV_CLOSED follows */
    }
    link_gone(u);
}
