/* respgen runtime: the Redis Cluster engine, sans I/O (see rg_cc.h). */
#include "rg_cc.h"

#include "rg_enc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { C_NEW = 0, C_WAIT, C_FLIGHT, C_DONE };
enum { RING = 8192, REFRESH_EVERY_NS = 100000000, WAIT_STEP_NS = 5000000 };

static const char ASKING[] = "*1\r\n$6\r\nASKING\r\n";
static const char READONLY[] = "*1\r\n$8\r\nREADONLY\r\n";

static void defaults(rg_cc_config *c) {
    if (!c->alloc) c->alloc = rg_conn_std_alloc;
    if (c->read_from_replicas && !c->read) c->read = RG_CC_READ_REPLICA;
    if (!c->node_in_cap) c->node_in_cap = 4u << 20;
    if (!c->node_out_cap) c->node_out_cap = 1u << 20;
    if (!c->protocol) c->protocol = 3;
    if (!c->connect_ms) c->connect_ms = 1000;
    if (!c->io_ms) c->io_ms = 5000;
    if (!c->wait_ms) c->wait_ms = 10000;
    if (!c->max_redirects) c->max_redirects = 5;
    if (!c->max_retries) c->max_retries = 40;
    if (!c->refresh_after_moved) c->refresh_after_moved = 32;
}

/* The front hands out the arena's free tail (rg_cc_conn): told whenever the arena grew, before
 * the caller's code runs (a return, a callback). */
static void sync_front(rg_cc *cc) {
    rg_conn_relay_used(&cc->front, cc->arena_len);
}

/* ---- the map -------------------------------------------------------------------------------- */

/* Records a refresh or connect failure for rg_cc_error. */
static rg_status failed(rg_cc *cc, rg_status st, const char *host, uint16_t port, rg_view why) {
    snprintf(cc->why, sizeof cc->why, "%.64s:%u: %.*s", host, port,
             (int)(why.len < 176 ? why.len : 176), why.ptr ? why.ptr : "");
    cc->why_status = st;
    return st;
}

static void link_drop(rg_cc *cc, size_t l, rg_view why);

/* The refresh's next node to ask: the healthy masters (the likeliest up), then the other nodes,
 * then the seed; false when none is left. */
static bool refresh_next(rg_cc *cc) {
    rg_cc_refresh_state *r = &cc->refresh;
    r->shards_failed = false;
    r->next = 0;
    for (; r->pass < 2; r->pass++, r->at = 0) {
        while (r->at < cc->map.nnodes) {
            const rg_cluster_node *n = &cc->map.node[r->at++];
            if ((r->pass == 0) != (n->role == RG_NODE_MASTER && n->healthy)) continue;
            snprintf(r->host, sizeof r->host, "%s", n->host);
            r->port = n->port;
            return true;
        }
    }
    if (r->pass != 2) return false;
    r->pass = 3;
    snprintf(r->host, sizeof r->host, "%s", cc->seed_host);
    r->port = cc->seed_port;
    return true;
}

/* CLUSTER SHARDS (or SLOTS) answered: the map is decoded in place, while the reply's bytes are
 * valid. A node's map must cover some slot; the seed's is taken as it is. */
static void refresh_reply(void *ud, const rg_call_done *d) {
    rg_cc *cc = ud;
    rg_cc_refresh_state *r = &cc->refresh;
    /* (a connection that closed: the link's failure follows, with the transport's cause) */
    if (!r->active || r->next || d->status == RG_CLOSED) return;
    const rg_view host = {r->host, strlen(r->host)};
    r->status = d->status;
    if (d->status != RG_OK) {
        failed(cc, d->status, r->host, r->port, d->error);
        r->next = d->status == RG_SERVER_ERROR && !r->shards_failed ? 2 : 3;
        return;
    }
    const rg_view v = ((const rg_raw_result *)d->result)->value;
    const rg_status st = r->shards_failed
                             ? rg_cluster_map_from_slots(&cc->map, v.ptr, v.len, host)
                             : rg_cluster_map_from_shards(&cc->map, v.ptr, v.len, host);
    r->status = st;
    if (st != RG_OK) {
        failed(cc, st, r->host, r->port, rg_cluster_map_error(&cc->map).msg);
        r->next = r->shards_failed ? 3 : 2;
        return;
    }
    r->next = r->pass == 3 || rg_cluster_map_covered(&cc->map) > 0 ? 1 : 3;
}

/* The refresh link is open: ask it. */
static void refresh_ask(rg_cc *cc) {
    rg_cc_refresh_state *r = &cc->refresh;
    const rg_view argv[] = {RG_LIT("CLUSTER"),
                            r->shards_failed ? RG_LIT("SLOTS") : RG_LIT("SHARDS")};
    r->next = 0;
    if (!rg_conn_call_argv(cc->refresh_link.conn, 2, argv, NULL, &r->raw, refresh_reply, cc))
        r->next = 3;
}

static void refresh_end(rg_cc *cc, bool ok) {
    rg_cc_refresh_state *r = &cc->refresh;
    r->active = false;
    r->rounds++;
    if (ok) {
        r->status = RG_OK;
        cc->need_refresh = false;
    } else {
        if (r->status == RG_OK) r->status = cc->why_status;
        cc->stats.refresh_failures++;
    }
}

/* One step of the refresh: started when one is wanted (at most once per 100 ms), then each
 * node's answer decides the next move. */
static void refresh_tick(rg_cc *cc, int64_t now) {
    rg_cc_refresh_state *r = &cc->refresh;
    rg_cc_link *k = &cc->refresh_link;
    if (!r->active) {
        if (!cc->need_refresh || now < cc->next_refresh_ns) {
            if (cc->need_refresh && cc->next_refresh_ns < cc->next_ns)
                cc->next_ns = cc->next_refresh_ns;
            return;
        }
        /* (one asked for by the caller does not hold back the next one) */
        cc->next_refresh_ns = cc->refresh_asked ? 0 : now + REFRESH_EVERY_NS;
        cc->refresh_asked = false;
        cc->stats.refreshes++;
        *r = (rg_cc_refresh_state){.active = true, .rounds = r->rounds, .status = RG_OK};
        r->next = 3; /* ask the first node */
    }
    if (r->next == 0) return;
    cc->next_ns = now; /* a move to make */
    if (r->next == 1 || r->next == 3) {
        if (k->want == RG_CC_OPEN) link_drop(cc, RG_CC_REFRESH_LINK, RG_LIT("refresh done"));
        if (r->next == 1) {
            refresh_end(cc, true);
            return;
        }
        if (k->want != RG_CC_IDLE) return; /* the driver closes it first */
        if (!refresh_next(cc)) {
            refresh_end(cc, false);
            return;
        }
        k->want = RG_CC_CONNECT;
        return;
    }
    r->shards_failed = true; /* 2: the same node, CLUSTER SLOTS */
    refresh_ask(cc);
}

void rg_cc_refresh_start(rg_cc *cc) {
    cc->need_refresh = true;
    cc->refresh_asked = true;
    cc->next_refresh_ns = 0;
}

rg_error rg_cc_error(const rg_cc *cc) {
    if (cc->why_status == RG_OK) return (rg_error){RG_OK, {NULL, 0}, 0};
    return (rg_error){cc->why_status, rg_cstr(cc->why), 0};
}

/* ---- nodes ---------------------------------------------------------------------------------- */

static void tell(rg_cc *cc, uint16_t i, rg_reconnect_what what, rg_error cause, uint32_t delay) {
    if (!cc->cfg.on_event) return;
    const rg_reconnect_event ev = {what, cause, cc->node[i].attempt, delay};
    cc->cfg.on_event(cc, i, &ev, cc->cfg.event_ud);
}

/* Node i's next connect waits the policy's jittered delay; once its attempts ran out it is given
 * up (told once), and probed every max_ms, silently, until a connect succeeds. cause: why the
 * connection, or the last connect, failed. */
static void node_backoff(rg_cc *cc, uint16_t i, int64_t now, rg_error cause) {
    rg_cc_node *nd = &cc->node[i];
    const rg_backoff *p = &cc->cfg.reconnect;
    if (nd->gave_up || (p->attempts && nd->attempt >= p->attempts)) {
        if (!nd->gave_up) tell(cc, i, RG_RECONNECT_GAVE_UP, cause, 0);
        nd->gave_up = true;
        nd->down_until_ns = now + (int64_t)rg_backoff_cap(p, UINT32_MAX) * 1000000;
        return;
    }
    const uint32_t delay = rg_backoff_delay(p, nd->attempt, rg_backoff_random(&cc->rng));
    nd->attempt++;
    nd->down_until_ns = now + (int64_t)delay * 1000000;
    tell(cc, i, RG_RECONNECT_ATTEMPT, cause, delay);
}

/* Is node i given up, its next probe not due? */
static bool node_given_up(const rg_cc *cc, uint16_t i, int64_t now) {
    return cc->node[i].gave_up && now < cc->node[i].down_until_ns;
}

/* Node i's data link was lost (it was open) or did not connect: the map is read again and the
 * next connect waits the policy's delay. */
static void node_down(rg_cc *cc, uint16_t i, rg_error cause, bool was_open) {
    rg_cc_node *nd = &cc->node[i];
    const rg_cluster_node *mn = &cc->map.node[i];
    cc->need_refresh = true;
    nd->open = false;
    nd->tell_ready = false;
    if (was_open) {
        cc->stats.lost_connections++;
        nd->lost = true;
        nd->attempt = 0;
        tell(cc, i, RG_RECONNECT_DISCONNECTED, cause, 0);
    } else {
        failed(cc, cause.status, mn->host, mn->port, cause.msg);
        cause = rg_cc_error(cc);
    }
    node_backoff(cc, i, cc->now_ns, cause);
}

/* Is node i's data link open? If not, it is asked for (once its backoff delay passed). */
static bool node_ready(rg_cc *cc, uint16_t i, int64_t now) {
    rg_cc_node *nd = &cc->node[i];
    if (nd->open) return true;
    if (nd->link.want != RG_CC_IDLE || now < nd->down_until_ns) return false;
    const rg_cc_config *k = &cc->cfg;
    if (!nd->mem)
        nd->mem =
            k->alloc(k->alloc_ud, NULL, k->node_in_cap + k->node_out_cap + RING * sizeof(rg_call));
    if (!nd->mem) return false;
    cc->stats.connects++;
    nd->link.want = RG_CC_CONNECT;
    return false;
}

/* ---- outcomes ------------------------------------------------------------------------------- */

static void merge(rg_cc *cc, rg_cc_call *k);
static const rg_cc_call *part_of(const rg_cc *cc, const rg_cc_call *k, size_t j);
static void deliver(rg_cc *cc, rg_cc_call *k, rg_view bytes);

/* Does a reply of this table carve arrays from storage (MGET's values, HGETALL's pairs)? */
static bool needs_storage(const rg_rtable *t, uint16_t at, int depth) {
    const rg_rnode *n = &t->nodes[at];
    if (n->shape == RG_RS_ARRAY || n->shape == RG_RS_PAIRS) return true;
    if (depth > 16 || n->shape == RG_RS_SCALAR || n->shape == RG_RS_ANY) return depth > 16;
    for (uint16_t i = 0; i < n->nchildren; i++)
        if (needs_storage(t, (uint16_t)(n->child + i), depth + 1)) return true;
    return false;
}

/* Did a call that ended so get a reply (so its request was written)? Refused, full: never sent;
 * CLOSED and a broken stream: `written` says. */
static bool answered(rg_status st) {
    return st == RG_OK || st == RG_SERVER_ERROR || st == RG_MISMATCH || st == RG_SHORT ||
           st == RG_REDIRECT;
}

/* Did call k meet a redirect (redirect_at is written only then)? */
static bool met_redirect(const rg_cc_call *k) {
    return k->redirect != RG_REDIRECT_NONE || k->tx_error;
}

/* The last redirect call k met, or none (as a node tells it). */
static rg_redirect redirect_of(const rg_cc_call *k) {
    return met_redirect(k) ? k->redirect_at : (rg_redirect){RG_REDIRECT_NONE, -1, {NULL, 0}, 0};
}

/* A relayed call's callback, as on one node; during rg_cc_add (a refusal) it waits for the
 * next rg_cc_step, so that no callback runs before the call returned its id. */
static void notify(rg_cc_call *k) {
    rg_cc *cc = k->cc;
    if (cc->adding) {
        k->notify = true;
        cc->notify = true;
        return;
    }
    k->notify = false;
    const rg_call_done d = {.status = k->status,
                            .id = k->id,
                            .result = k->result,
                            .error = k->error,
                            .redirect = redirect_of(k),
                            .written = k->written || answered(k->status)};
    sync_front(cc); /* the callback may make calls */
    k->cb(k->ud, &d);
}

/* The callbacks of calls refused while they were added. */
static void notify_waiting(rg_cc *cc) {
    cc->notify = false;
    for (size_t j = 0; j < cc->n; j++)
        if (cc->cfg.calls[j].notify) notify(&cc->cfg.calls[j]);
}

/* Call k has its outcome st (error text err, n bytes): its window is freed. */
static void ended(rg_cc_call *k, rg_status st, const char *err, size_t n) {
    k->status = st;
    if (n >= sizeof k->text) n = sizeof k->text - 1;
    if (n) {
        memmove(k->text, err, n); /* (err may be text itself: a transaction's cause) */
        k->text[n] = '\0';
    }
    k->error = n ? (rg_view){k->text, n} : (rg_view){"", 0}; /* (no text line touched) */
    k->state = C_DONE;
    k->complete = true;
    if (k->charged != RG_NODE_NONE && k->cc->node[k->charged].charged)
        k->cc->node[k->charged].charged--;
}

/* A plain call answered: the node's completion d is passed on as the call's own (its id the
 * cluster call's), not built anew, for the common path's sake. */
static void answered_ok(rg_cc *cc, rg_cc_call *k, const rg_call_done *d) {
    ended(k, RG_OK, NULL, 0);
    cc->done++;
    if (!k->cb) return;
    if (cc->adding) {
        notify(k);
        return;
    }
    rg_call_done own = *d;
    own.id = k->id;
    own.error = k->error;
    if (met_redirect(k)) own.redirect = k->redirect_at; /* (else the node's: none) */
    sync_front(cc);                                     /* the callback may make calls */
    k->cb(k->ud, &own);
}

static void finish(rg_cc_call *k, rg_status st, const char *err, size_t n) {
    ended(k, st, err, n);
    if (k->parent == SIZE_MAX) {
        k->cc->done++;
        if (k->cb) notify(k);
    } else {
        rg_cc_call *p = &k->cc->cfg.calls[k->parent];
        if (--p->parts == 0) merge(k->cc, p);
    }
}

static void requeue(rg_cc_call *k, int64_t delay_ns) {
    k->state = delay_ns ? C_WAIT : C_NEW;
    k->backoff = delay_ns != 0;
    k->due_ns = delay_ns ? k->cc->now_ns + delay_ns : 0;
    rg_cc *cc = k->cc;
    const size_t at = k->parent == SIZE_MAX ? (size_t)(k - cc->cfg.calls) : k->parent;
    if (at < cc->scan) cc->scan = at; /* dispatch must look at it again */
}

/* 1 ms doubling to 128 ms. */
static int64_t backoff_ns(unsigned tries) {
    return 1000000LL << (tries < 8 ? tries : 7);
}

/* A retry error, counted by its kind (a CLUSTERDOWN also asks for the map). */
static void count_retry(rg_cc *cc, rg_redirect_kind kind) {
    cc->stats.retries++;
    switch (kind) {
    case RG_REDIRECT_TRYAGAIN: cc->stats.tryagain++; break;
    case RG_REDIRECT_LOADING: cc->stats.loading++; break;
    case RG_REDIRECT_MASTERDOWN: cc->stats.masterdown++; break;
    default:
        cc->stats.clusterdown++;
        cc->need_refresh = true;
        break;
    }
}

/* A redirect or retry error: true when the call goes again. */
static bool redirected(rg_cc *cc, rg_cc_call *k, const rg_redirect *r) {
    const rg_view asked = {cc->map.node[k->node].host, strlen(cc->map.node[k->node].host)};
    k->redirect = r->kind;
    k->redirect_at = *r;
    switch (r->kind) {
    case RG_REDIRECT_MOVED:
        cc->stats.moved++;
        rg_cluster_map_moved(&cc->map, r->slot, r->host, r->port, asked);
        if (cc->stats.moved % cc->cfg.refresh_after_moved == 0) cc->need_refresh = true;
        k->asking = false;
        if (++k->redirects > cc->cfg.max_redirects) return false;
        requeue(k, 0);
        return true;
    case RG_REDIRECT_ASK:
        cc->stats.ask++;
        k->ask_node = rg_cluster_map_node(&cc->map, r->host.len ? r->host : asked, r->port);
        if (k->ask_node == RG_NODE_NONE || ++k->redirects > cc->cfg.max_redirects) return false;
        k->asking = true;
        requeue(k, 0);
        return true;
    case RG_REDIRECT_CLUSTERDOWN:
    case RG_REDIRECT_TRYAGAIN:
    case RG_REDIRECT_LOADING:
    case RG_REDIRECT_MASTERDOWN:
        count_retry(cc, r->kind);
        /* A multi-key call on a migrating slot goes ASK -> TRYAGAIN until the slot has moved:
         * those ASKs are waiting, not a redirect loop; max_retries bounds them. */
        k->redirects = 0;
        if (++k->retries > cc->cfg.max_retries) return false;
        requeue(k, backoff_ns(k->retries));
        return true;
    default: return false;
    }
}

static bool skip_value(const char *buf, size_t len, size_t *pos);

/* A transaction's piece (MULTI, a queued call) answered: a redirect is kept for EXEC's abort. */
static void tx_piece_done(void *ud, const rg_call_done *d) {
    rg_cc_call *k = ud;
    if (d->status != RG_SERVER_ERROR || k->tx_cause) return;
    /* the first piece's error is the transaction's cause (EXEC only says EXECABORT) */
    k->tx_cause = true;
    const size_t n = d->error.len < sizeof k->text - 1 ? d->error.len : sizeof k->text - 1;
    memcpy(k->text, d->error.ptr, n);
    k->text[n] = '\0';
    if (d->redirect.kind == RG_REDIRECT_NONE) return;
    k->tx_error = true;
    k->redirect_at = d->redirect; /* (its host a view into a held reply) */
}

/* EXEC aborted after a piece met a redirect: the whole block goes again. MOVED: to the slot's
 * new owner; ASK (the slot is migrating: ASKING would hold for MULTI alone), TRYAGAIN ...: after
 * a backoff, until the slot settled. True when it goes again. */
static bool tx_again(rg_cc *cc, rg_cc_call *k) {
    rg_redirect r = k->redirect_at;
    k->tx_error = k->tx_cause = false;
    if (r.kind != RG_REDIRECT_ASK) return redirected(cc, k, &r);
    cc->stats.ask++;
    k->redirect = r.kind;
    if (++k->retries > cc->cfg.max_retries) return false;
    requeue(k, backoff_ns(k->retries));
    return true;
}

static void on_done(void *ud, const rg_call_done *d) {
    rg_cc_call *k = ud;
    rg_cc *cc = k->cc;
    rg_cc_node *nd = &cc->node[k->node];
    if (nd->inflight) nd->inflight--;
    cc->flying--;
    cc->progressed = true;
    if (k->tx && d->status == RG_SERVER_ERROR && k->tx_cause) {
        if (k->tx_error && tx_again(cc, k)) return;
        finish(k, RG_SERVER_ERROR, k->text, strlen(k->text)); /* (the piece's error) */
        return;
    }
    if (d->status == RG_SERVER_ERROR && redirected(cc, k, &d->redirect)) return;
    if (d->status == RG_CLOSED || d->status == RG_ERR_PROTOCOL) {
        k->written = d->written;
        /* Not completely written: the server cannot have run it; only reading: running it
         * twice changes nothing. */
        if ((!k->written || k->reads_only) && ++k->retries <= cc->cfg.max_retries) {
            if (k->written)
                cc->stats.resent_reads++;
            else
                cc->stats.resent_unsent++;
            requeue(k, backoff_ns(k->retries));
            return;
        }
    }
    if (d->status == RG_OK) {
        if (k->carve)
            deliver(cc, k, k->raw.value);
        else if (k->parent == SIZE_MAX)
            answered_ok(cc, k, d);
        else
            finish(k, RG_OK, NULL, 0);
        return;
    }
    /* A MOVED or ASK not followed: the redirects ran out (a bad ASK target is one too). */
    const bool moved = d->status == RG_SERVER_ERROR && (d->redirect.kind == RG_REDIRECT_MOVED ||
                                                        d->redirect.kind == RG_REDIRECT_ASK);
    finish(k, moved ? RG_REDIRECT : d->status, d->error.ptr ? d->error.ptr : "", d->error.len);
}

/* ---- the batch ------------------------------------------------------------------------------ */

/* The batch's replies are let go: the nodes' input buffers are reused from their start. */
static void release_replies(rg_cc *cc) {
    for (size_t i = 0; i < cc->map.nnodes; i++) {
        rg_cc_node *nd = &cc->node[i];
        if (!nd->open) continue;
        rg_conn_hold(nd->link.conn, false);
        rg_conn_hold(nd->link.conn, true);
    }
    for (size_t i = 0; i < cc->map.nnodes; i++) cc->node[i].pins = 0;
}

/* Ids go on increasing across batches once the batch has rolled, or may (a window): a carried
 * call keeps its id. */
static void next_ids(rg_cc *cc, bool rolled) {
    if (rolled || cc->cfg.node_window || cc->id_base) cc->id_base += cc->n;
}

void rg_cc_begin(rg_cc *cc) {
    if (cc->notify) notify_waiting(cc);
    next_ids(cc, false);
    cc->n = cc->done = cc->arena_len = cc->nparts = cc->scan = cc->carried = 0;
    for (size_t i = 0; i < cc->map.nnodes; i++) cc->node[i].charged = 0;
    sync_front(cc);
    release_replies(cc);
}

/* Is a reply being decoded, part way, into a call's own memory (a raw part's or a carving
 * call's rg_raw_result)? The decoder keeps pointers into it: that call cannot move yet. */
static bool decoding_in_batch(const rg_cc *cc) {
    const char *lo = (const char *)cc->cfg.calls,
               *hi = (const char *)(cc->cfg.calls + cc->cfg.ncalls);
    for (size_t i = 0; i < cc->map.nnodes; i++) {
        const rg_cc_node *nd = &cc->node[i];
        const char *at = nd->open && nd->inflight ? rg_conn_decoding(nd->link.conn) : NULL;
        if (at && at >= lo && at < hi) return true;
    }
    return false;
}

/* Can pending fan-out k be carried? Its parts' replies are views into input let go at the roll:
 * one that only reads has its complete parts sent again; one that writes must not run twice, so
 * each complete part's reply is copied into the arena over the part's own request (not needed
 * again), which must have room for it (ALL_SHARDS parts share the call's). Typed parts (no
 * window) keep lists decoded into the arena: not carried. */
static bool carriable(const rg_cc *cc, const rg_cc_call *k) {
    if (k->typed_parts) return false;
    for (size_t j = 0; !k->reads_only && j < k->nparts; j++) {
        const rg_cc_call *p = part_of(cc, k, j);
        if (p->state == C_DONE && (p->off == k->off || p->raw.value.len > p->len)) return false;
    }
    return true;
}

/* Can the batch roll: some call complete (else nothing is freed), no callback waiting, every
 * pending fan-out carriable, no reply half decoded into a call's own memory? */
static bool rollable(const rg_cc *cc) {
    if (cc->notify || !cc->done) return false;
    for (size_t j = 0; j < cc->n; j++) {
        const rg_cc_call *k = &cc->cfg.calls[j];
        if (k->state != C_DONE && k->nparts && !carriable(cc, k)) return false;
    }
    return !cc->flying || !decoding_in_batch(cc);
}

/* Where each call still pending goes (its `to`): the calls to the batch's start in their order,
 * their fan-outs' parts to the array's end; returns how many calls stay. */
static size_t plan(rg_cc *cc, size_t *tail) {
    size_t w = 0;
    for (size_t j = 0; j < cc->n; j++) {
        rg_cc_call *k = &cc->cfg.calls[j];
        if (k->state == C_DONE) continue;
        k->to = w++;
        for (size_t p = 0; p < k->nparts; p++) cc->cfg.calls[k->first_part - p].to = (*tail)--;
    }
    return w;
}

/* A node's call on the wire (plan made): its ud and result follow the call to where it goes. */
static void repoint(void *ctx, rg_call *call) {
    rg_cc *cc = ctx;
    if (call->cb != on_done && call->cb != tx_piece_done) return; /* (ASKING: no call) */
    rg_cc_call *was = call->ud, *to = &cc->cfg.calls[was->to];
    call->ud = to;
    if (call->result == &was->raw) call->result = &to->raw;
}

/* Moves len bytes at arena offset *off to *at (never after where they are: calls and their
 * bytes are in the same order). */
static void slide(rg_cc *cc, size_t *off, size_t len, size_t *at) {
    memmove(cc->cfg.arena + *at, cc->cfg.arena + *off, len);
    *off = *at;
    *at += len;
}

/* Moves call k to its planned index; a call on the wire (not a fan-out: its parts are) counts
 * on its node again. */
static rg_cc_call *move_call(rg_cc *cc, rg_cc_call *k) {
    k->redirect_at.host = (rg_view){NULL, 0}; /* (a view into a reply let go) */
    rg_cc_call *to = &cc->cfg.calls[k->to];
    if (to != k) *to = *k;
    if (to->error.len) to->error.ptr = to->text; /* (an empty one is "": no text written) */
    if (to->state == C_FLIGHT && !to->nparts && (to->tx || !to->own)) cc->node[to->node].pins++;
    return to;
}

/* A complete part of a fan-out that writes keeps its reply: copied down the arena to *at, over
 * its request (carriable: it fits), from the node's input, which is let go. */
static void keep_reply(rg_cc *cc, rg_cc_call *p, size_t *at) {
    const rg_view r = p->raw.value;
    if (r.len) memmove(cc->cfg.arena + *at, r.ptr, r.len);
    p->off = *at;
    p->len = r.len;
    *at += r.len;
    p->raw.value = (rg_view){cc->cfg.arena + p->off, r.len};
}

/* Carries a pending fan-out's parts (k is its new place) to the end of the array: a part that
 * completed keeps its reply (the fan-out writes) or is made again (it only reads). */
static void carry_parts(rg_cc *cc, rg_cc_call *k, size_t old_off, size_t *at) {
    const size_t first = k->first_part;
    k->first_part = cc->cfg.calls[first].to;
    for (size_t j = 0; j < k->nparts; j++) {
        rg_cc_call *p = move_call(cc, &cc->cfg.calls[first - j]);
        p->parent = (size_t)(k - cc->cfg.calls);
        p->result = &p->raw;
        if (p->state == C_DONE && !k->reads_only) {
            keep_reply(cc, p, at);
            continue;
        }
        if (p->off == old_off)
            p->off = k->off; /* (ALL_SHARDS: the call's own request) */
        else
            slide(cc, &p->off, p->len, at);
        if (p->state != C_DONE) continue;
        const rg_cc_call was = *p;
        *p = (rg_cc_call){.cc = cc,
                          .table = was.table,
                          .result = &p->raw,
                          .off = was.off,
                          .len = was.len,
                          .node = RG_NODE_NONE,
                          .ask_node = RG_NODE_NONE,
                          .fixed = was.fixed,
                          .charged = RG_NODE_NONE,
                          .parent = was.parent,
                          .slot = was.slot};
        k->parts++;
    }
}

/* Moves pending call k to its planned index, its bytes down the arena to *at. */
static void carry(rg_cc *cc, rg_cc_call *k, size_t *at) {
    const size_t old_off = k->off;
    slide(cc, &k->off, k->len, at);
    if (k->ordered) slide(cc, &k->order, k->nkeys, at);
    rg_cc_call *to = move_call(cc, k);
    if (to->nparts) carry_parts(cc, to, old_off, at);
}

bool rg_cc_roll(rg_cc *cc) {
    if (!rollable(cc)) return false;
    size_t tail = cc->cfg.ncalls - 1, at = 0;
    const size_t w = plan(cc, &tail);
    for (size_t i = 0; cc->flying && i < cc->map.nnodes; i++)
        if (cc->node[i].open && cc->node[i].inflight)
            rg_conn_each_pending(cc->node[i].link.conn, repoint, cc);
    release_replies(cc); /* (pins: the calls on the wire count again as they move) */
    for (size_t j = 0; j < cc->n; j++)
        if (cc->cfg.calls[j].state != C_DONE) carry(cc, &cc->cfg.calls[j], &at);
    cc->nparts = cc->cfg.ncalls - 1 - tail;
    next_ids(cc, true);
    cc->stats.rolls++;
    cc->stats.carried += w;
    cc->stats.carried_flying += cc->flying;
    cc->n = cc->carried = w;
    cc->arena_len = at;
    cc->done = cc->scan = 0;
    sync_front(cc);
    return true;
}

const rg_cc_call *rg_cc_find(const rg_cc *cc, uint64_t id) {
    const uint64_t at = id - cc->id_base - 1;
    if (id > cc->id_base && at < cc->n && cc->cfg.calls[at].id == id) return &cc->cfg.calls[at];
    size_t lo = 0, hi = cc->carried; /* (carried in their order: their ids increase) */
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (cc->cfg.calls[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < cc->carried && cc->cfg.calls[lo].id == id ? &cc->cfg.calls[lo] : NULL;
}

/* Are all of the call's keys read-only (so a replica may serve it)? */
static bool read_only(const rg_keys_entry *e) {
    if (!e || e->count == 0) return false;
    for (size_t i = 0; i < e->count; i++)
        if (!(e->specs[i].flags & RG_KEY_RO)) return false;
    return true;
}

static size_t refuse(rg_cc_call *k, rg_status st, const char *why) {
    finish(k, st, why, strlen(why));
    k->cc->stats.refused++;
    return (size_t)(k - k->cc->cfg.calls);
}

/* ---- fan-out -------------------------------------------------------------------------------- */

/* A part of call k: its request is arena[off, off+len); it goes to node (or is routed by slot
 * when node is RG_NODE_NONE). NULL when the batch is full. */
static rg_cc_call *add_part(rg_cc *cc, rg_cc_call *k, size_t off, size_t len, uint16_t node,
                            int slot) {
    if (cc->n + cc->nparts >= cc->cfg.ncalls) return NULL;
    if (k->nparts == 0) k->parts = 0; /* (not cleared by new_call) */
    const size_t at = cc->cfg.ncalls - 1 - cc->nparts++;
    rg_cc_call *p = &cc->cfg.calls[at];
    *p = (rg_cc_call){.cc = cc,
                      .table = &rg_conn_raw_table,
                      .off = off,
                      .len = len,
                      .node = RG_NODE_NONE,
                      .ask_node = RG_NODE_NONE,
                      .fixed = node,
                      .charged = RG_NODE_NONE,
                      .parent = (size_t)(k - cc->cfg.calls),
                      .slot = slot};
    p->result = &p->raw;
    if (k->parts++ == 0) k->first_part = at;
    k->nparts++;
    return p;
}

static size_t refuse_parts(rg_cc *cc, rg_cc_call *k, const char *why) {
    cc->nparts -= k->nparts; /* the parts just added are the last ones */
    k->parts = k->nparts = 0;
    return refuse(k, RG_FULL, why);
}

/* ALL_SHARDS: one part per master serving slots; ALL_NODES: per node. */
static size_t fan_out(rg_cc *cc, rg_cc_call *k, bool all_nodes) {
    if (k->response == RG_RESP_SPECIAL)
        return refuse(k, RG_INVALID, "RESPONSE_POLICY:SPECIAL: not merged");
    k->state = C_FLIGHT;
    for (size_t i = 0; i < cc->map.nnodes; i++) {
        const rg_cluster_node *nd = &cc->map.node[i];
        if (nd->role == RG_NODE_GONE || !nd->healthy) continue;
        if (!all_nodes && (nd->role != RG_NODE_MASTER || nd->slots == 0)) continue;
        if (!add_part(cc, k, k->off, k->len, (uint16_t)i, RG_SLOT_NONE))
            return refuse_parts(cc, k, "the batch is full (fan-out parts)");
    }
    return k->nparts ? (size_t)(k - cc->cfg.calls) : refuse(k, RG_CLOSED, "no node to send to");
}

/* How many arguments req has. rg_cc_add's route parsed req into cc->argv (a MULTI_SHARD route
 * saw every argument), so the header's count is enough once the views it names are req's (the
 * first after the header, the last ending at req's final CRLF); else req is parsed here. */
static size_t routed_args(rg_cc *cc, const char *req, size_t len) {
    enum { CAP = sizeof cc->argv / sizeof cc->argv[0] };
    rg_reader rd;
    rg_event ev;
    size_t pos = 0;
    rg_reader_init(&rd, NULL);
    if (rg_next(&rd, req, len, &pos, &ev) == RG_OK && ev.kind == RG_EV_ARRAY && ev.u.i > 0 &&
        ev.u.i <= CAP) {
        const rg_view first = cc->argv[0], last = cc->argv[ev.u.i - 1];
        if ((uintptr_t)first.ptr > (uintptr_t)req + pos &&
            (uintptr_t)first.ptr <= (uintptr_t)last.ptr &&
            (uintptr_t)last.ptr + last.len == (uintptr_t)req + len - 2)
            return (size_t)ev.u.i;
    }
    return rg_request_argv(req, len, cc->argv, CAP);
}

/* Can a part's reply be decoded with table t into arena room known beforehand? A list of
 * scalars (MGET): one element per key, nothing nested. */
static bool scalar_list(const rg_rtable *t) {
    if (!t || t == &rg_conn_raw_table) return false;
    const rg_rnode *root = &t->nodes[0];
    return root->shape == RG_RS_ARRAY && t->nodes[root->child].shape == RG_RS_SCALAR;
}

/* Part p is decoded with the call's table t, as it arrives, into a result struct and a list of
 * nkeys elements carved from the arena (8-aligned, as the reader carves): the merge then only
 * places the elements. False when the arena is full. */
static bool typed_part(rg_cc *cc, rg_cc_call *p, const rg_rtable *t, size_t nkeys) {
    const size_t pad = (size_t)(-(uintptr_t)(cc->cfg.arena + cc->arena_len) & 7u);
    const size_t head = (t->result_size + 7u) & ~(size_t)7u;
    const size_t list = nkeys * t->nodes[0].elem_size;
    if (cc->cfg.arena_cap - cc->arena_len < pad + head + list) return false;
    cc->arena_len += pad;
    p->table = t;
    p->result = cc->cfg.arena + cc->arena_len;
    p->mem_off = cc->arena_len + head;
    p->mem_cap = list;
    cc->arena_len += head + list;
    return true;
}

/* MULTI_SHARD: one part per slot. Only the plain form is split: one key spec, keys from a fixed
 * index to the end in groups of `step` arguments (DEL k1 k2, MSET k1 v1 k2 v2). Each key's
 * slot is found once; its part's index (parts in the order their slots first appear) builds the
 * parts' requests and, for MGET, is kept in the arena for the merge. */
static size_t split_by_slot(rg_cc *cc, rg_cc_call *k, const rg_keys_entry *e, const char *req,
                            size_t len) {
    enum { CAP = sizeof cc->argv / sizeof cc->argv[0] };
    const rg_view *argv = cc->argv;
    const size_t argc = routed_args(cc, req, len);
    const rg_keyspec *ks = e && e->count == 1 ? &e->specs[0] : NULL;
    if (!ks || ks->begin != RG_KS_INDEX || ks->find != RG_KS_RANGE || ks->lastkey != -1 ||
        ks->step < 1 || ks->limit > 1 || argc > CAP || argc <= (size_t)ks->index ||
        (argc - (size_t)ks->index) % (size_t)ks->step != 0 ||
        (k->response != RG_RESP_AGG_SUM && k->response != RG_RESP_ALL_SUCCEEDED &&
         k->response != RG_RESP_DEFAULT))
        return refuse(k, RG_INVALID,
                      "CROSSSLOT Keys in request don't hash to the same slot (this "
                      "MULTI_SHARD form is not split by the client; not sent)");
    const size_t first = (size_t)ks->index, step = (size_t)ks->step;
    const size_t nkeys = (argc - first) / step;
    uint8_t part[CAP];
    int slots[CAP];
    size_t nslots = 0;
    for (size_t i = 0; i < nkeys; i++) {
        const rg_view key = argv[first + i * step];
        const int s = rg_slot_of_key(key.ptr, key.len);
        size_t j = 0;
        while (j < nslots && slots[j] != s) j++;
        if (j == nslots) slots[nslots++] = s;
        part[i] = (uint8_t)j;
    }
    /* No response policy (MGET): one reply element per key, put back in key order by merge. */
    k->ordered = k->response == RG_RESP_DEFAULT;
    if (k->ordered) {
        if (cc->cfg.arena_cap - cc->arena_len < nkeys)
            return refuse(k, RG_FULL, "the arena is full (MULTI_SHARD parts)");
        k->order = cc->arena_len;
        k->nkeys = (uint8_t)nkeys;
        memcpy(cc->cfg.arena + cc->arena_len, part, nkeys);
        cc->arena_len += nkeys;
    }
    /* (with a window the batch rolls: raw parts can be carried, typed ones could not) */
    k->typed_parts = k->ordered && scalar_list(k->table) && !cc->cfg.node_window;
    k->state = C_FLIGHT;
    rg_view sub[CAP];
    for (size_t j = 0; j < nslots; j++) {
        size_t n = first;
        memcpy(sub, argv, first * sizeof *argv);
        for (size_t i = 0; i < nkeys; i++)
            if (part[i] == j)
                for (size_t a = 0; a < step; a++) sub[n++] = argv[first + i * step + a];
        const size_t size = rg_argv_size(n, sub);
        if (cc->cfg.arena_cap - cc->arena_len < size)
            return refuse_parts(cc, k, "the arena is full (MULTI_SHARD parts)");
        char *dst = cc->cfg.arena + cc->arena_len;
        rg_argv_encode(dst, size, n, sub);
        rg_cc_call *p = add_part(cc, k, cc->arena_len, size, RG_NODE_NONE, slots[j]);
        if (!p) return refuse_parts(cc, k, "the batch is full (MULTI_SHARD parts)");
        cc->arena_len += size;
        if (k->typed_parts && !typed_part(cc, p, k->table, (n - first) / step))
            return refuse_parts(cc, k, "the arena is full (MULTI_SHARD parts)");
    }
    return (size_t)(k - cc->cfg.calls);
}

/* Part j of fan-out k (parts are at the batch's end, growing down). */
static const rg_cc_call *part_of(const rg_cc *cc, const rg_cc_call *k, size_t j) {
    return &cc->cfg.calls[k->first_part - j];
}

/* A part's integer reply, read by the decoder; false for anything else. */
static bool part_int(const rg_cc_call *p, int64_t *v) {
    const rg_view r = p->raw.value;
    rg_reader rd;
    rg_event ev;
    size_t pos = 0;
    rg_reader_init(&rd, NULL);
    if (p->status != RG_OK || rg_next(&rd, r.ptr, r.len, &pos, &ev) != RG_OK ||
        ev.kind != RG_EV_INT || pos != r.len)
        return false;
    *v = ev.u.i;
    return true;
}

/* Moves *pos past one whole value of buf; false when buf holds none there. */
static bool skip_value(const char *buf, size_t len, size_t *pos) {
    rg_reader r;
    rg_reader_init(&r, NULL);
    rg_event ev;
    do {
        if (rg_next(&r, buf, len, pos, &ev) != RG_OK) return false;
    } while (!ev.complete);
    return true;
}

/* The header of a part's array reply, read by the decoder: its element count, *pos past it;
 * false for anything else. */
static bool array_header(rg_view r, size_t *pos, size_t *count) {
    rg_reader rd;
    rg_event ev;
    rg_reader_init(&rd, NULL);
    *pos = 0;
    if (rg_next(&rd, r.ptr, r.len, pos, &ev) != RG_OK ||
        (ev.kind != RG_EV_ARRAY && ev.kind != RG_EV_SET) || ev.u.i < 0)
        return false;
    *count = (size_t)ev.u.i;
    return true;
}

/* "*<n>\r\n" at dst; returns its end. */
static char *put_array_header(char *dst, size_t n) {
    *dst++ = '*';
    dst = rg_put_u64(dst, n);
    memcpy(dst, "\r\n", 2);
    return dst + 2;
}

/* A raw result (the caller asked for the bytes): the parts' arrays as one reply's text, in the
 * arena; for MGET (ordered) key i's element is the next unread one of its part. */
static bool raw_list(rg_cc *cc, rg_cc_call *k, rg_view *out) {
    enum { MAXP = RG_CLUSTER_MAX_NODES };
    size_t at[MAXP], left[MAXP], total = 0, bytes = 32;
    if (k->nparts > MAXP) return false;
    for (size_t j = 0; j < k->nparts; j++) {
        const rg_view r = part_of(cc, k, j)->raw.value;
        if (!array_header(r, &at[j], &left[j])) return false;
        total += left[j];
        bytes += r.len;
    }
    if (cc->cfg.arena_cap - cc->arena_len < bytes) return false;
    char *const dst = cc->cfg.arena + cc->arena_len;
    const uint8_t *const order = k->ordered ? (const uint8_t *)cc->cfg.arena + k->order : NULL;
    const size_t n = k->ordered ? k->nkeys : total;
    char *w = put_array_header(dst, n);
    for (size_t i = 0, j = 0; i < n; i++) {
        if (k->ordered) j = order[i];
        while (!k->ordered && j < k->nparts && left[j] == 0) j++;
        if (j >= k->nparts || left[j]-- == 0) return false;
        const rg_view r = part_of(cc, k, j)->raw.value;
        const size_t from = at[j];
        if (!skip_value(r.ptr, r.len, &at[j])) return false;
        memcpy(w, r.ptr + from, at[j] - from);
        w += at[j] - from;
    }
    for (size_t j = 0; j < k->nparts; j++)
        if (left[j] != 0 || at[j] != part_of(cc, k, j)->raw.value.len) return false;
    *out = (rg_view){dst, (size_t)(w - dst)};
    cc->arena_len += out->len;
    return true;
}

static bool raw_table(const rg_cc_call *k) {
    return !k->table || k->table == &rg_conn_raw_table;
}

/* The reader that merges, with the arena's free room (8-aligned, as it carves) as storage;
 * false when the arena is full. */
static bool merge_reader(rg_cc *cc) {
    const size_t pad = (size_t)(-(uintptr_t)(cc->cfg.arena + cc->arena_len) & 7u);
    if (cc->cfg.arena_cap - cc->arena_len < pad) return false;
    cc->arena_len += pad;
    rg_reply_reader_init(&cc->merge, NULL);
    rg_reply_set_storage(&cc->merge, cc->cfg.arena + cc->arena_len,
                         cc->cfg.arena_cap - cc->arena_len);
    return true;
}

/* Ends k with the merge reader's outcome; the typed result's lists stay in the arena. */
static void typed_done(rg_cc *cc, rg_cc_call *k, rg_status st) {
    static const char full[] = "the arena is full (merged reply)";
    if (st == RG_OK) cc->arena_len += rg_reply_needed(&cc->merge);
    const rg_view e =
        st == RG_SHORT ? (rg_view){full, sizeof full - 1} : rg_reply_error(&cc->merge).msg;
    finish(k, st == RG_OK || st == RG_SHORT || st == RG_SERVER_ERROR ? st : RG_MISMATCH,
           e.ptr ? e.ptr : "", st == RG_OK ? 0 : e.len);
}

/* Where a typed merge writes: the caller's result, or scratch for a call that gave none. */
typedef union result_scratch {
    max_align_t align;
    char bytes[256];
} result_scratch;

static void *result_of(const rg_cc_call *k, result_scratch *s) {
    if (k->result) return k->result;
    return k->table->result_size <= sizeof s->bytes ? s->bytes : NULL;
}

/* One reply for k: the bytes for a raw result, else decoded with the call's table. */
static void deliver(rg_cc *cc, rg_cc_call *k, rg_view bytes) {
    if (raw_table(k)) {
        if (k->result) ((rg_raw_result *)k->result)->value = bytes;
        finish(k, RG_OK, "", 0);
        return;
    }
    result_scratch scratch;
    void *const out = result_of(k, &scratch);
    if (!out || !merge_reader(cc)) {
        typed_done(cc, k, RG_SHORT);
        return;
    }
    size_t pos = 0;
    typed_done(cc, k, rg_reply_decode(&cc->merge, k->table, bytes.ptr, bytes.len, &pos, out));
}

/* Lists (no response policy): the parts' elements straight into the typed result, each part's
 * reply decoded once (MGET: in key order, by the map split_by_slot kept). */
static void merge_lists(rg_cc *cc, rg_cc_call *k) {
    static const char msg[] = "the parts' replies are not arrays of the keys, or the arena is full";
    if (raw_table(k)) {
        rg_view out;
        if (raw_list(cc, k, &out)) {
            deliver(cc, k, out);
        } else {
            finish(k, RG_MISMATCH, msg, sizeof msg - 1);
        }
        return;
    }
    result_scratch scratch;
    void *const out = result_of(k, &scratch);
    if (k->nparts > RG_CLUSTER_MAX_NODES || !out || !merge_reader(cc)) {
        typed_done(cc, k, RG_SHORT);
        return;
    }
    const uint8_t *const order = k->ordered ? (const uint8_t *)cc->cfg.arena + k->order : NULL;
    if (k->typed_parts) {
        /* decoded already, each part as it arrived: only the elements are placed */
        const void *results[RG_CLUSTER_MAX_NODES];
        for (size_t j = 0; j < k->nparts; j++) results[j] = part_of(cc, k, j)->result;
        typed_done(cc, k,
                   rg_reply_gather(&cc->merge, k->table, results, k->nparts, order, k->nkeys, out));
        return;
    }
    rg_view parts[RG_CLUSTER_MAX_NODES];
    for (size_t j = 0; j < k->nparts; j++) parts[j] = part_of(cc, k, j)->raw.value;
    typed_done(cc, k, rg_reply_merge(&cc->merge, k->table, parts, k->nparts, order, k->nkeys, out));
}

/* The parts' integers by the response policy; false when one is not an integer, or the sum
 * overflows. */
static bool aggregate(const rg_cc *cc, const rg_cc_call *k, int64_t *acc) {
    int64_t v;
    for (size_t j = 0; j < k->nparts; j++) {
        if (!part_int(part_of(cc, k, j), &v)) return false;
        switch (k->response) {
        case RG_RESP_AGG_SUM:
            if (j > 0 && __builtin_add_overflow(*acc, v, &v)) return false;
            *acc = v;
            break;
        case RG_RESP_AGG_MIN: *acc = j == 0 || v < *acc ? v : *acc; break;
        case RG_RESP_AGG_MAX: *acc = j == 0 || v > *acc ? v : *acc; break;
        case RG_RESP_AGG_LOGICAL_AND: *acc = j == 0 ? v != 0 : *acc && v; break;
        default: *acc = j == 0 ? v != 0 : *acc || v; break;
        }
    }
    return true;
}

/* An aggregate's integer: written straight into the typed result, or as ":<v>\r\n" in the arena
 * for a raw one. */
static void deliver_int(rg_cc *cc, rg_cc_call *k, int64_t v) {
    if (!raw_table(k)) {
        result_scratch scratch;
        void *const out = result_of(k, &scratch);
        rg_reply_reader_init(&cc->merge, NULL);
        typed_done(cc, k, out ? rg_reply_put_int(&cc->merge, k->table, v, out) : RG_OK);
        return;
    }
    if (cc->cfg.arena_cap - cc->arena_len < 3 + RG_I64_MAX_LEN) {
        typed_done(cc, k, RG_SHORT);
        return;
    }
    char *const dst = cc->cfg.arena + cc->arena_len;
    dst[0] = ':';
    char *w = rg_put_i64(dst + 1, v);
    memcpy(w, "\r\n", 2);
    const rg_view text = {dst, (size_t)(w + 2 - dst)};
    cc->arena_len += text.len;
    deliver(cc, k, text);
}

/* All parts of k are complete: merge by its response policy. */
static void merge(rg_cc *cc, rg_cc_call *k) {
    const rg_cc_call *err = NULL, *ok = NULL;
    for (size_t j = 0; j < k->nparts; j++) {
        const rg_cc_call *p = part_of(cc, k, j);
        if (p->status != RG_OK && !err) err = p;
        if (p->status == RG_OK && !ok) ok = p;
    }
    const bool one = k->response == RG_RESP_ONE_SUCCEEDED;
    if (err && (!one || !ok)) {
        k->redirect = err->redirect;
        k->written = err->written;
        finish(k, err->status, err->error.ptr, err->error.len);
        return;
    }
    if (k->response == RG_RESP_ALL_SUCCEEDED || one) {
        deliver(cc, k, ok->raw.value);
        return;
    }
    if (k->response == RG_RESP_DEFAULT) {
        merge_lists(cc, k);
        return;
    }
    int64_t acc = 0;
    if (!aggregate(cc, k, &acc)) {
        static const char msg[] = "a part's reply is not an integer, or their sum overflows";
        finish(k, RG_MISMATCH, msg, sizeof msg - 1);
        return;
    }
    deliver_int(cc, k, acc);
}

/* carves for a table not asked about last: out of line, so that new_call saves no registers for
 * needs_storage's walk. */
static RG_NOINLINE bool carves_new(rg_cc *cc, const rg_rtable *t) {
    cc->carve_table = t;
    return cc->carve = needs_storage(t, 0, 0);
}

/* needs_storage of t, the last table's answer kept: a stream of one command asks once. */
static bool carves(rg_cc *cc, const rg_rtable *t) {
    return t == cc->carve_table ? cc->carve : carves_new(cc, t);
}

/* Clears the part of call k that a plain call's life reads (rg_cc_call: from its start to
 * due_ns) in 16-byte stores: memset's `rep stos` costs more to start than these to run. The rest
 * is written before it is read; debug builds fill it with 0xA5, so that a read before the write
 * shows in the tests. */
static void clear_hot(rg_cc_call *k) {
    enum { HOT = offsetof(rg_cc_call, due_ns) };
    typedef unsigned char chunk[16];
    static const chunk zero;
    unsigned char *p = (unsigned char *)k;
#if defined(__GNUC__)
#pragma GCC unroll 16
#endif
    for (size_t i = 0; i < HOT / 16; i++) memcpy(p + 16 * i, zero, 16);
    memset(p + HOT / 16 * 16, 0, HOT % 16);
#ifndef NDEBUG
    memset(p + HOT, 0xA5, offsetof(rg_cc_call, text) - HOT);
#endif
}

/* A new call of the batch whose request is the len bytes at the arena's end (NULL: full). */
static rg_cc_call *new_call(rg_cc *cc, size_t len, const rg_rtable *table, void *result) {
    cc->window_full = false;
    if (cc->n + cc->nparts == cc->cfg.ncalls || cc->cfg.arena_cap - cc->arena_len < len)
        return NULL;
    /* The io_ms silence check counts from when the client last had nothing in flight. */
    if (cc->done == cc->n) cc->progressed = true;
    rg_cc_call *k = &cc->cfg.calls[cc->n++];
    clear_hot(k);
    k->cc = cc;
    k->id = cc->id_base + cc->n;
    k->charged = k->node = k->ask_node = k->fixed = RG_NODE_NONE;
    k->table = table;
    k->result = result;
    k->off = cc->arena_len;
    k->len = len;
    k->parent = SIZE_MAX;
    k->carve = table && table != &rg_conn_raw_table && carves(cc, table);
    cc->arena_len += len;
    cc->stats.calls++;
    return k;
}

/* The window (cfg.node_window) a call of route r counts against: its slot's master by the map
 * (*charge; RG_NODE_NONE: none: no window, keyless, fanned out, not served). False when that
 * window is full: the call is refused before it is added. */
static bool admit(rg_cc *cc, const rg_route *r, size_t len, uint16_t *charge) {
    *charge = RG_NODE_NONE;
    if (!cc->cfg.node_window || r->kind != RG_ROUTE_NODE || r->slot < 0) return true;
    const uint16_t i = rg_cluster_map_owner(&cc->map, r->slot);
    if (i == RG_NODE_NONE) return true;
    if (cc->node[i].charged >= cc->cfg.node_window) {
        cc->stats.window_full++;
        cc->window_full = true;
        cc->window_len = len;
        return false;
    }
    *charge = i;
    return true;
}

static void charge(rg_cc *cc, rg_cc_call *k, uint16_t node) {
    k->charged = node;
    if (node != RG_NODE_NONE) cc->node[node].charged++;
}

static void send_now(rg_cc *cc, rg_cc_call *k);

/* What start asks of command e, kept for the last one: calls come in runs of one command. */
static void entry_facts(rg_cc *cc, const rg_keys_entry *e) {
    if (e == cc->entry) return;
    const rg_cluster_commands *cmds = cc->cfg.cmds;
    cc->entry = e;
    cc->entry_ro = read_only(e);
    cc->entry_special =
        e && cmds->policy && cmds->policy[e - cmds->table].request == RG_REQ_SPECIAL;
}

/* Starts call k, whose route is not one node's (or is SCAN's): split, fanned out or refused. */
static void start_other(rg_cc *cc, rg_cc_call *k, const rg_route *r) {
    cc->adding = true; /* a refusal's callback waits for the next step */
    if (cc->entry_special)
        /* SCAN: its cursor belongs to one node, and keyless calls rotate over the masters. */
        refuse(k, RG_INVALID,
               "REQUEST_POLICY:SPECIAL (SCAN): a cursor belongs to one node; rg_cc_scan_start "
               "scans them all");
    else if (r->kind == RG_ROUTE_CROSSSLOT)
        refuse(k, RG_INVALID,
               "CROSSSLOT Keys in request don't hash to the same slot (refused by "
               "the client, not sent)");
    else if (r->kind == RG_ROUTE_MULTI_SHARD)
        split_by_slot(cc, k, r->cmd, cc->cfg.arena + k->off, k->len);
    else if (r->kind == RG_ROUTE_ALL_NODES || r->kind == RG_ROUTE_ALL_SHARDS)
        fan_out(cc, k, r->kind == RG_ROUTE_ALL_NODES);
    else if (r->kind == RG_ROUTE_INVALID)
        refuse(k, RG_INVALID, "not one encoded call");
    cc->adding = false;
}

/* Starts call k on its route: sent (now, or by rg_cc_step), split, fanned out or refused. */
static void start(rg_cc *cc, rg_cc_call *k, const rg_route *r) {
    entry_facts(cc, r->cmd);
    k->slot = r->slot;
    k->reads_only = cc->entry_ro;
    k->read = cc->cfg.read != RG_CC_READ_PRIMARY && k->reads_only;
    k->response = r->response;
    if (r->kind != RG_ROUTE_NODE || cc->entry_special) start_other(cc, k, r);
    if (k->state == C_NEW) send_now(cc, k);
    sync_front(cc);
}

/* The command kinds a cluster call may have: each call goes its own way, so no transaction, no
 * subscription, no tracking and no change of protocol spans two of them. */
static bool cluster_kind(uint8_t kind) {
    static const bool ok[RG_CMD_KIND_COUNT] = {[RG_CMD_PLAIN] = true, [RG_CMD_PING] = true};
    return kind < RG_CMD_KIND_COUNT && ok[kind];
}

static const char NOT_ON_A_CLUSTER[] =
    "not on a cluster: MULTI/EXEC, (un)subscribe, HELLO, RESET, CLIENT TRACKING";

/* A request from bytes may go to a node unless its command is one the engine treats specially
 * (one lookup, as rg_conn_commit_request makes): nodes commit every call as a plain one. */
static bool cluster_request(const char *req, size_t len) {
    rg_view words[2] = {{NULL, 0}, {NULL, 0}};
    if (!rg_request_argv(req, len, words, 2)) return true; /* routing refuses it */
    const rg_cmd *cmd = rg_cmd_lookup(words[0], words[1]);
    return !cmd || cluster_kind(cmd->kind);
}

/* Refuses k during an add: its callback waits for the next step. */
static void refuse_added(rg_cc *cc, rg_cc_call *k) {
    cc->adding = true;
    refuse(k, RG_INVALID, NOT_ON_A_CLUSTER);
    cc->adding = false;
    sync_front(cc);
}

rg_status rg_cc_add(rg_cc *cc, const char *req, size_t len, const rg_rtable *table, void *result,
                    size_t *index) {
    cc->window_full = false;
    if (cc->n + cc->nparts == cc->cfg.ncalls || cc->cfg.arena_cap - cc->arena_len < len)
        return RG_FULL;
    char *dst = cc->cfg.arena + cc->arena_len;
    if (dst != req) memmove(dst, req, len); /* rg_cc_add_argv's bytes are in place */
    const bool ok = cluster_request(dst, len);
    rg_route r;
    if (ok)
        rg_cluster_route_indexed(&cc->map, &cc->index, dst, len, cc->argv,
                                 sizeof cc->argv / sizeof cc->argv[0], 0, &r);
    uint16_t node = RG_NODE_NONE;
    if (ok && !admit(cc, &r, len, &node)) return RG_FULL;
    rg_cc_call *k = new_call(cc, len, table, result); /* (room checked above) */
    charge(cc, k, node);
    if (index) *index = (size_t)(k - cc->cfg.calls);
    if (!ok)
        refuse_added(cc, k);
    else
        start(cc, k, &r);
    return RG_OK;
}

rg_status rg_cc_add_argv(rg_cc *cc, size_t argc, const rg_view *argv, const rg_rtable *table,
                         void *result, size_t *index) {
    const size_t n = rg_argv_size(argc, argv);
    if (cc->n + cc->nparts == cc->cfg.ncalls || cc->cfg.arena_cap - cc->arena_len < n)
        return RG_FULL;
    char *dst = cc->cfg.arena + cc->arena_len;
    if (rg_argv_encode(dst, n, argc, argv) != n) return RG_INVALID;
    return rg_cc_add(cc, dst, n, table, result, index);
}

/* rg_cc_add_tx with the callback (cb may be NULL) that its outcome goes to. */
static rg_status add_tx(rg_cc *cc, size_t n, const size_t *argc, const rg_view *const *argv,
                        const rg_rtable *table, void *result, rg_call_fn cb, void *ud,
                        size_t *index) {
    const rg_view MULTI = RG_LIT("MULTI"), EXEC = RG_LIT("EXEC");
    enum { ARGV = sizeof cc->argv / sizeof cc->argv[0] };
    if (n == 0 || n > UINT16_MAX - 2) return RG_INVALID;
    size_t total = rg_argv_size(1, &MULTI) + rg_argv_size(1, &EXEC);
    for (size_t i = 0; i < n; i++) total += rg_argv_size(argc[i], argv[i]);
    char *w = cc->cfg.arena + cc->arena_len;
    rg_cc_call *k = new_call(cc, total, table, result);
    if (!k) return RG_FULL;
    k->cb = cb; /* (before a refusal: it is told) */
    k->ud = ud;
    if (index) *index = (size_t)(k - cc->cfg.calls);
    w += rg_argv_encode(w, total, 1, &MULTI);
    int slot = RG_SLOT_NONE;
    bool one_slot = true;
    for (size_t i = 0; i < n; i++) {
        const size_t size = rg_argv_size(argc[i], argv[i]);
        rg_argv_encode(w, size, argc[i], argv[i]);
        rg_route r;
        rg_cluster_route_indexed(&cc->map, &cc->index, w, size, cc->argv, ARGV, 0, &r);
        if (r.kind == RG_ROUTE_CROSSSLOT || r.kind == RG_ROUTE_MULTI_SHARD ||
            (r.slot >= 0 && slot >= 0 && r.slot != slot))
            one_slot = false;
        if (r.slot >= 0) slot = r.slot;
        w += size;
    }
    rg_argv_encode(w, rg_argv_size(1, &EXEC), 1, &EXEC);
    const rg_route block = {.kind = RG_ROUTE_NODE, .slot = slot};
    uint16_t node = RG_NODE_NONE;
    if (one_slot && !admit(cc, &block, total, &node)) { /* the window is full: taken back */
        cc->n--;
        cc->arena_len -= total;
        cc->stats.calls--;
        return RG_FULL;
    }
    charge(cc, k, node);
    k->tx = (uint16_t)(n + 2);
    k->slot = slot;
    cc->adding = true; /* a refusal's callback waits for the next step */
    if (!one_slot)
        refuse(k, RG_INVALID,
               "CROSSSLOT Keys in request don't hash to the same slot (a transaction; refused "
               "by the client, not sent)");
    cc->adding = false;
    sync_front(cc);
    return RG_OK;
}

rg_status rg_cc_add_tx(rg_cc *cc, size_t n, const size_t *argc, const rg_view *const *argv,
                       const rg_rtable *table, void *result, size_t *index) {
    return add_tx(cc, n, argc, argv, table, result, NULL, NULL, index);
}

uint64_t rg_cc_tx_call(rg_cc *cc, size_t n, const size_t *argc, const rg_view *const *argv,
                       const rg_rtable *table, void *result, rg_call_fn cb, void *ud) {
    size_t at;
    if (add_tx(cc, n, argc, argv, table, result, cb, ud, &at) != RG_OK) return 0;
    return cc->cfg.calls[at].id;
}

/* Is descriptor cmd one of cfg.cmds (its id indexes the table)? The last one found is kept:
 * a stream of one command pays for the names' compare once. */
static bool known_cmd(rg_cc *cc, const rg_cmd *cmd) {
    const rg_cluster_commands *cmds = cc->cfg.cmds;
    if (cmd->id >= cmds->count || strcmp(cmds->table[cmd->id].name, cmd->name) != 0) return false;
    cc->known = cmd;
    return true;
}

/* The front's relay: a generated call (or rg_conn_call_argv) encoded its request at the arena's
 * end. A descriptor of cfg.cmds (its id indexes the table) routes it without a name lookup, with
 * the slot the call computed; anything else is routed from its bytes as rg_cc_add does. */
static uint64_t relay(void *ud, const rg_relayed *call) {
    rg_cc *cc = ud;
    cc->window_full = false;
    if (call->req != cc->cfg.arena + cc->arena_len) return 0; /* not the arena's tail */
    const rg_cluster_commands *cmds = cc->cfg.cmds;
    const rg_cmd *cmd = call->cmd;
    enum { ARGV = sizeof cc->argv / sizeof cc->argv[0] };
    rg_route r;
    bool ok;
    if (cmd && (cmd == cc->known || known_cmd(cc, cmd))) {
        ok = cluster_kind(cmd->kind);
        const rg_keys_entry *e = &cmds->table[cmd->id];
        if (ok && call->slot >= 0) /* the common call: its node is looked up as it is sent */
            r = (rg_route){
                .kind = RG_ROUTE_NODE, .slot = call->slot, .node = RG_NODE_NONE, .cmd = e};
        else if (ok)
            rg_cluster_route_known(&cc->map, cmds, e, call->slot, call->req, call->len, cc->argv,
                                   ARGV, 0, &r);
    } else if ((ok = cluster_request(call->req, call->len))) {
        rg_cluster_route_indexed(&cc->map, &cc->index, call->req, call->len, cc->argv, ARGV, 0, &r);
    }
    uint16_t node = RG_NODE_NONE;
    if (ok && !admit(cc, &r, call->len, &node)) return 0;
    rg_cc_call *k = new_call(cc, call->len, call->table, call->result);
    if (!k) return 0;
    charge(cc, k, node);
    k->cb = call->cb;
    k->ud = call->ud;
    if (!ok)
        refuse_added(cc, k);
    else
        start(cc, k, &r);
    return k->id;
}

rg_conn *rg_cc_conn(rg_cc *cc) {
    return &cc->front;
}

/* A master for keyless calls, rotating. */
static uint16_t any_master(rg_cc *cc) {
    for (size_t t = 0; t < cc->map.nnodes; t++) {
        const uint16_t i = (uint16_t)((cc->any + t) % cc->map.nnodes);
        const rg_cluster_node *n = &cc->map.node[i];
        if (n->role == RG_NODE_MASTER && n->healthy && n->slots) {
            cc->any = (uint16_t)(i + 1);
            return i;
        }
    }
    return RG_NODE_NONE;
}

static uint16_t target(rg_cc *cc, const rg_cc_call *k, uint32_t pick) {
    if (k->asking) return k->ask_node;
    if (k->fixed != RG_NODE_NONE) return k->fixed;
    if (k->slot < 0) return any_master(cc);
    if (k->read && cc->cfg.read == RG_CC_READ_ANY)
        return rg_cluster_map_any_copy(&cc->map, k->slot, pick);
    return k->read ? rg_cluster_map_replica(&cc->map, k->slot, pick)
                   : rg_cluster_map_owner(&cc->map, k->slot);
}

/* Queues READONLY once on a replica's connection. */
static bool readonly_once(rg_cc *cc, rg_cc_node *nd, uint16_t i) {
    if (nd->readonly_sent || cc->map.node[i].role != RG_NODE_REPLICA) return true;
    char *dst = rg_conn_reserve(nd->link.conn, sizeof READONLY - 1);
    if (!dst) return false;
    memcpy(dst, READONLY, sizeof READONLY - 1);
    if (!rg_conn_commit_plain(nd->link.conn, sizeof READONLY - 1, NULL, NULL, NULL, NULL))
        return false;
    nd->readonly_sent = true;
    return true;
}

/* Queues the call on its node's connection; false when it must wait. */
/* Queues transaction k as one block: its pieces committed one by one from one reservation, EXEC
 * last with the call's outcome. */
static bool send_tx(rg_cc *cc, rg_cc_call *k, rg_conn *c) {
    const char *req = cc->cfg.arena + k->off;
    if (rg_conn_pending(c) + k->tx + 1 > RING) return false;
    char *dst = rg_conn_reserve(c, k->len);
    if (!dst) return false;
    memcpy(dst, req, k->len);
    k->tx_error = k->tx_cause = false;
    size_t at = 0;
    for (uint16_t p = 0; p + 1 < k->tx; p++) {
        size_t end = at;
        if (!skip_value(req, k->len, &end)) return false; /* (encoded by rg_cc_add_tx) */
        rg_conn_commit_plain(c, end - at, &rg_conn_raw_table, NULL, tx_piece_done, k);
        at = end;
    }
    const bool raw = k->carve || !k->table;
    return rg_conn_commit_plain(c, k->len - at, raw ? &rg_conn_raw_table : k->table,
                                raw && k->carve ? &k->raw : k->result, on_done, k) != 0;
}

static bool send_call(rg_cc *cc, rg_cc_call *k, uint16_t i) {
    rg_cc_node *nd = &cc->node[i];
    rg_conn *c = nd->link.conn;
    if (k->tx) {
        if (!send_tx(cc, k, c)) return false;
        nd->inflight++;
        nd->pins++;
        cc->flying++;
        k->node = i;
        k->state = C_FLIGHT;
        return true;
    }
    if (k->read && !readonly_once(cc, nd, i)) return false;
    const size_t pre = k->asking ? sizeof ASKING - 1 : 0;
    if (rg_conn_pending(c) + 2 > RING) return false;
    char *dst = rg_conn_reserve(c, pre + k->len);
    if (!dst) return false;
    memcpy(dst, ASKING, pre);
    memcpy(dst + pre, cc->cfg.arena + k->off, k->len);
    if (pre && !rg_conn_commit_plain(c, pre, NULL, NULL, NULL, NULL)) return false;
    /* A reply with arrays is kept raw on the node and decoded into the result when it completes,
     * its arrays carved from the arena (they live as long as the batch); a typed fan-out part is
     * decoded in place, into arena room carved for it beforehand (typed_part). */
    const bool raw = k->carve || !k->table;
    const uint64_t id = rg_conn_commit_plain(c, k->len, raw ? &rg_conn_raw_table : k->table,
                                             raw && k->carve ? &k->raw : k->result, on_done, k);
    if (!id) return false;
    /* (it is the call just committed: this cannot fail) */
    if (k->parent != SIZE_MAX && k->mem_cap)
        (void)rg_conn_call_storage(c, id, cc->cfg.arena + k->mem_off, k->mem_cap);
    nd->inflight++;
    nd->pins += !k->own;
    cc->flying++;
    k->node = i;
    k->asking = false; /* ASK holds for this one attempt */
    k->state = C_FLIGHT;
    return true;
}

/* A call added while every call before it is on the wire or complete goes out at once when its
 * node is connected and takes it, as the next round of dispatch would (the node still gets its
 * calls in the caller's order), without that round's pass over it. */
static void send_now(rg_cc *cc, rg_cc_call *k) {
    const size_t j = (size_t)(k - cc->cfg.calls);
    if (cc->scan != j) return;
    const uint16_t i = target(cc, k, (uint32_t)j);
    if (i == RG_NODE_NONE || !cc->node[i].open || !send_call(cc, k, i)) return;
    k->dead_ns = cc->now_ns + (int64_t)cc->cfg.wait_ms * 1000000;
    cc->scan = j + 1;
}

/* Why a node takes no more calls in this round (dispatch's `held`). */
enum { H_FREE = 0, H_DRAINS, H_WAITS };

/* Sends call j if it is ready; returns 1 when it still waits. held[i]: node i takes no more
 * calls this round: its ring or output is full (H_DRAINS: it drains with this round's write, try
 * again at once), or it is not connected or an earlier call waits for it (H_WAITS). */
static size_t dispatch_one(rg_cc *cc, size_t j, int64_t now, uint8_t *held) {
    rg_cc_call *k = &cc->cfg.calls[j];
    if (k->state == C_WAIT && now < k->due_ns) {
        /* Waiting for its node (not a retry's backoff): the later calls for it wait as well.
         * (A keyless call has no node of its own: any master will do.) */
        const bool placed = k->slot >= 0 || k->fixed != RG_NODE_NONE || k->asking;
        const uint16_t i = k->backoff || !placed ? RG_NODE_NONE : target(cc, k, (uint32_t)j);
        if (i != RG_NODE_NONE && !held[i]) held[i] = H_WAITS;
        if (k->due_ns < cc->next_ns) cc->next_ns = k->due_ns;
        return 1;
    }
    if (k->state != C_NEW && k->state != C_WAIT) return 0;
    if (!k->dead_ns) k->dead_ns = now + (int64_t)cc->cfg.wait_ms * 1000000;
    const uint16_t i = target(cc, k, (uint32_t)j);
    if (i == RG_NODE_NONE) cc->need_refresh = true;
    /* Once a call found its node's ring or output full, the later calls for that node wait too
     * (a smaller one might fit): a node gets its calls in the caller's order. */
    bool again_now = false; /* the output drains in this round's write: try next round */
    if (i != RG_NODE_NONE && node_given_up(cc, i, now)) {
        static const char msg[] = "the node is given up: its reconnect attempts ran out";
        finish(k, RG_CLOSED, msg, sizeof msg - 1);
        return 0;
    }
    if (i != RG_NODE_NONE) {
        if (!held[i] && node_ready(cc, i, now)) {
            if (send_call(cc, k, i)) return 0;
            held[i] = H_DRAINS;
        }
        if (!held[i]) held[i] = H_WAITS;
        again_now = held[i] == H_DRAINS;
    }
    if (now >= k->dead_ns) {
        static const char msg[] = "no reachable node serves the slot";
        finish(k, RG_CLOSED, msg, sizeof msg - 1);
        return 0;
    }
    k->state = C_WAIT;
    k->backoff = false;
    k->due_ns = again_now ? now : now + WAIT_STEP_NS;
    if (k->due_ns < cc->next_ns) cc->next_ns = k->due_ns;
    return 1;
}

/* Sends every call that is ready, in the caller's order (a fan-out's parts where the call is);
 * returns how many still wait. Calls before cc->scan are in flight or complete (requeue moves
 * it back), so a round costs the calls added or waiting since, not the whole batch. */
static size_t dispatch(rg_cc *cc, int64_t now) {
    size_t waiting = 0;
    bool settled = true; /* every call before j is in flight or complete */
    uint8_t held[RG_CLUSTER_MAX_NODES] = {H_FREE};
    for (size_t j = cc->scan; j < cc->n; j++) {
        const rg_cc_call *k = &cc->cfg.calls[j];
        if (k->state != C_DONE) {
            size_t w = 0;
            if (k->nparts == 0) {
                w = dispatch_one(cc, j, now, held);
            } else {
                for (size_t p = 0; p < k->nparts; p++)
                    w += dispatch_one(cc, k->first_part - p, now, held);
            }
            waiting += w;
            if (w) settled = false;
        }
        if (settled) cc->scan = j + 1;
    }
    return waiting;
}

/* ---- sharded Pub/Sub ------------------------------------------------------------------------ */

enum { SUB_IN = 1 << 16, SUB_OUT = 1 << 12, SUB_CALLS = 64, SUB_RETRY_NS = 20000000 };

struct rg_cc_sub {
    rg_cc_link link;
    rg_cc *cc;
    uint16_t node;
    int64_t down_until_ns; /* no connect before (it failed) */
    rg_call calls[SUB_CALLS];
    char in[SUB_IN], out[SUB_OUT];
};

/* Each kind's subscribe and unsubscribe commands. */
static const char *const SUBSCRIBE[] = {"SSUBSCRIBE", "SUBSCRIBE", "PSUBSCRIBE"};
static const char *const UNSUBSCRIBE[] = {"SUNSUBSCRIBE", "UNSUBSCRIBE", "PUNSUBSCRIBE"};

static rg_cc_channel *channel_named(rg_cc *cc, uint8_t kind, rg_view name) {
    for (size_t i = 0; i < cc->nchannels; i++) {
        rg_cc_channel *ch = &cc->channel[i];
        if (ch->used && ch->kind == kind && rg_view_eq((rg_view){ch->name, ch->len}, name))
            return ch;
    }
    return NULL;
}

/* A push on node s->node's Pub/Sub connection: the server dropping a shard channel still
 * listened to (its slot moved away) puts it back to be subscribed where the map will say; every
 * push goes to the caller. */
static void sub_push(void *ud, const rg_push *p) {
    rg_cc_sub *s = ud;
    rg_cc *cc = s->cc;
    rg_cc_channel *ch =
        p->kind == RG_PUSH_SUNSUBSCRIBE ? channel_named(cc, RG_CC_SHARD, p->channel) : NULL;
    if (ch && ch->node == s->node) {
        ch->node = RG_NODE_NONE;
        cc->need_refresh = true;
    }
    cc->cfg.on_push(cc->cfg.push_ud, p);
}

/* Node i's Pub/Sub connection when it is open; else it is asked for (NULL meanwhile). */
static rg_cc_sub *sub_of(rg_cc *cc, uint16_t i) {
    rg_cc_sub *s = cc->sub[i];
    if (!s) {
        s = cc->cfg.alloc(cc->cfg.alloc_ud, NULL, sizeof *s);
        if (!s) return NULL;
        *s = (rg_cc_sub){.cc = cc, .node = i};
        cc->sub[i] = s;
    }
    if (s->link.want == RG_CC_OPEN) return s;
    if (s->link.want == RG_CC_IDLE && cc->now_ns >= s->down_until_ns) s->link.want = RG_CC_CONNECT;
    return NULL;
}

/* Node i's Pub/Sub connection failed: its channels are subscribed again where the refreshed
 * map says (a pending subscribe completes CLOSED: sub_done). */
static void sub_down(rg_cc *cc, uint16_t i) {
    cc->sub[i]->down_until_ns = cc->now_ns + SUB_RETRY_NS;
    for (size_t j = 0; j < cc->nchannels; j++)
        if (cc->channel[j].node == i) cc->channel[j].node = RG_NODE_NONE;
    cc->need_refresh = true;
}

static uint64_t sub_call(rg_cc_sub *s, const char *cmd, rg_cc_channel *ch, rg_call_fn cb) {
    if (!s || s->link.want != RG_CC_OPEN) return 0;
    const rg_view argv[] = {{cmd, strlen(cmd)}, {ch->name, ch->len}};
    return rg_conn_call_argv(s->link.conn, 2, argv, NULL, NULL, cb, ch);
}

/* A subscribe's answer: subscribed there, or to be asked again (after a MOVED, where it says). */
static void sub_done(void *ud, const rg_call_done *d) {
    rg_cc_channel *ch = ud;
    rg_cc *cc = ch->cc;
    const uint16_t node = ch->asked;
    ch->asked = RG_NODE_NONE;
    if (d->status == RG_OK && ch->used) {
        ch->node = node;
        return;
    }
    if (d->status == RG_OK) { /* no longer listened to */
        sub_call(cc->sub[node], UNSUBSCRIBE[ch->kind], ch, NULL);
        return;
    }
    if (d->redirect.kind == RG_REDIRECT_MOVED) {
        const rg_cluster_node *n = &cc->map.node[node];
        rg_cluster_map_moved(&cc->map, ch->slot, d->redirect.host, d->redirect.port,
                             (rg_view){n->host, strlen(n->host)});
    } else {
        cc->need_refresh = true;
    }
    ch->due_ns = cc->now_ns + SUB_RETRY_NS;
}

/* Is node i one to listen on for channels and patterns (every node hears every PUBLISH)? */
static bool listener_ok(const rg_cc *cc, uint16_t i, int64_t now) {
    const rg_cluster_node *n = &cc->map.node[i];
    return n->role != RG_NODE_GONE && n->healthy &&
           (!cc->sub[i] || now >= cc->sub[i]->down_until_ns);
}

/* The node that carries the channels and patterns: kept while it is fine, else the next healthy
 * replica (leaving the masters their work), else the next master. */
static uint16_t listener(rg_cc *cc, int64_t now) {
    if (cc->listener < cc->map.nnodes && listener_ok(cc, cc->listener, now)) return cc->listener;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t t = 1; t <= cc->map.nnodes; t++) {
            const uint16_t i = (uint16_t)((cc->listener + t) % cc->map.nnodes);
            const bool replica = cc->map.node[i].role == RG_NODE_REPLICA;
            if ((pass == 0) == replica && listener_ok(cc, i, now)) return cc->listener = i;
        }
    }
    return RG_NODE_NONE;
}

/* Every channel listened to and not subscribed asks its node: a shard channel its slot's master,
 * the others the listener. */
static void pubsub_step(rg_cc *cc, int64_t now) {
    for (size_t j = 0; j < cc->nchannels; j++) {
        rg_cc_channel *ch = &cc->channel[j];
        if (!ch->used || ch->node != RG_NODE_NONE || ch->asked != RG_NODE_NONE) continue;
        if (now < ch->due_ns) {
            if (ch->due_ns < cc->next_ns) cc->next_ns = ch->due_ns;
            continue;
        }
        const uint16_t owner =
            ch->kind == RG_CC_SHARD ? rg_cluster_map_owner(&cc->map, ch->slot) : listener(cc, now);
        if (owner == RG_NODE_NONE) {
            cc->need_refresh = true;
            ch->due_ns = now + SUB_RETRY_NS;
            continue;
        }
        rg_cc_sub *s = sub_of(cc, owner); /* (NULL while it connects: asked again then) */
        if (s && sub_call(s, SUBSCRIBE[ch->kind], ch, sub_done)) ch->asked = owner;
    }
}

rg_status rg_cc_listen(rg_cc *cc, rg_cc_channel_kind kind, rg_view name) {
    if (!cc->cfg.on_push || kind > RG_CC_PATTERN || name.len >= RG_CC_CHANNEL_MAX ||
        channel_named(cc, (uint8_t)kind, name))
        return RG_INVALID;
    size_t j = 0; /* a free entry (none with an answer to come: sub_done writes it) */
    while (j < cc->nchannels && (cc->channel[j].used || cc->channel[j].asked != RG_NODE_NONE)) j++;
    if (j == RG_CC_MAX_CHANNELS) return RG_FULL;
    if (j == cc->nchannels) cc->nchannels++;
    rg_cc_channel *ch = &cc->channel[j];
    *ch = (rg_cc_channel){.len = name.len,
                          .slot = rg_slot_of_key(name.ptr, name.len),
                          .node = RG_NODE_NONE,
                          .asked = RG_NODE_NONE,
                          .used = true,
                          .kind = (uint8_t)kind,
                          .cc = cc};
    memcpy(ch->name, name.ptr, name.len);
    return RG_OK;
}

rg_status rg_cc_unlisten(rg_cc *cc, rg_cc_channel_kind kind, rg_view name) {
    rg_cc_channel *ch = kind > RG_CC_PATTERN ? NULL : channel_named(cc, (uint8_t)kind, name);
    if (!ch) return RG_INVALID;
    ch->used = false;
    if (ch->node != RG_NODE_NONE) sub_call(cc->sub[ch->node], UNSUBSCRIBE[ch->kind], ch, NULL);
    ch->node = RG_NODE_NONE; /* (a subscribe still to answer is undone by sub_done) */
    return RG_OK;
}

rg_status rg_cc_ssubscribe(rg_cc *cc, rg_view channel) {
    return rg_cc_listen(cc, RG_CC_SHARD, channel);
}

rg_status rg_cc_sunsubscribe(rg_cc *cc, rg_view channel) {
    return rg_cc_unlisten(cc, RG_CC_SHARD, channel);
}

size_t rg_cc_subscribed(const rg_cc *cc) {
    size_t n = 0;
    for (size_t j = 0; j < cc->nchannels; j++)
        n += cc->channel[j].used && cc->channel[j].node != RG_NODE_NONE;
    return n;
}

/* ---- SCAN over the whole cluster ------------------------------------------------------------ */

enum { SCAN_MAX_PASSES = 16, SCAN_WAIT_NS = 100000000, SCAN_MAX_WAITS = 600 };

/* A call of the engine's own, to node (RG_NODE_NONE: any master), its reply raw into *raw, its
 * outcome to cb. NULL when the batch or the arena is full. */
static rg_cc_call *add_own(rg_cc *cc, size_t argc, const rg_view *argv, uint16_t node,
                           rg_raw_result *raw, rg_call_fn cb, void *ud) {
    const size_t n = rg_argv_size(argc, argv);
    char *const dst = cc->cfg.arena + cc->arena_len;
    rg_cc_call *k = new_call(cc, n, NULL, raw);
    if (!k) return NULL;
    rg_argv_encode(dst, n, argc, argv);
    k->cb = cb;
    k->ud = ud;
    k->fixed = node;
    k->slot = RG_SLOT_NONE;
    k->own = true;
    sync_front(cc);
    return k;
}

/* An engine's own call's reply on node i was used up in its callback: when no call of the
 * caller's went to the node in this batch, nothing needs its replies kept, and they are let go
 * (a SCAN alone in a batch would otherwise keep all of its replies until the next one). */
static void let_go(rg_cc *cc, uint16_t i) {
    rg_cc_node *nd = i < cc->map.nnodes ? &cc->node[i] : NULL;
    if (!nd || !nd->open || nd->pins) return;
    rg_conn_hold(nd->link.conn, false);
    rg_conn_hold(nd->link.conn, true);
}

static void scan_end(rg_cc_scan *s, rg_status st, const char *why) {
    s->done = true;
    s->status = st;
    snprintf(s->text, sizeof s->text, "%s", why);
    s->error = rg_cstr(s->text);
}

/* Every master serving a slot of snap that changed owner since (or whose node failed) is to be
 * scanned again; true when one is. */
static bool scan_receivers(rg_cc_scan *s, const rg_cluster_map *m) {
    bool any = false;
    for (int slot = 0; slot < RG_CLUSTER_SLOTS; slot++) {
        const uint16_t was = s->snap[slot], now = m->slot[slot];
        if (now == RG_NODE_NONE || (now == was && !(was != RG_NODE_NONE && s->failed[was])))
            continue;
        any |= !s->todo[now];
        s->todo[now] = true;
    }
    return any;
}

static bool scan_covered(const rg_cluster_map *m) {
    return rg_cluster_map_covered(m) == RG_CLUSTER_SLOTS;
}

/* The pass's map answered: the nodes that gained slots are scanned in a new pass, or it is done. */
static void scan_mapped(void *ud, const rg_call_done *d) {
    rg_cc_scan *s = ud;
    rg_cc *cc = s->cc;
    s->busy = false;
    if (d->status == RG_OK) {
        const rg_cluster_node *n = &cc->map.node[s->node];
        const rg_view v = s->raw.value;
        /* (a reply that does not decode leaves the map as it was: compared as it is) */
        (void)rg_cluster_map_from_shards(&cc->map, v.ptr, v.len, rg_cstr(n->host));
    }
    let_go(cc, s->node);
    if (d->status != RG_OK || !scan_covered(&cc->map)) {
        if (++s->passes > SCAN_MAX_PASSES)
            scan_end(s, RG_CLOSED, "the map stayed unreadable or a slot unserved");
        else
            rg_cc_scan_next(cc, s);
        return;
    }
    const bool again = scan_receivers(s, &cc->map);
    memcpy(s->snap, cc->map.slot, sizeof s->snap);
    memset(s->failed, 0, sizeof s->failed);
    s->mapping = false;
    if (!again) {
        scan_end(s, RG_OK, "");
        return;
    }
    if (++s->passes > SCAN_MAX_PASSES) {
        scan_end(s, RG_FULL, "the slots kept moving: too many passes");
        return;
    }
    rg_cc_scan_next(cc, s);
}

/* Does a CLUSTER NODES reply show a slot of the node asked migrating or importing? Its own line
 * (flags "myself") lists them after its slots: "[slot->-id]", "[slot-<-id]". */
static bool migrating(rg_view v) {
    static const char ME[] = "myself";
    for (size_t i = 0; i + sizeof ME - 1 <= v.len; i++) {
        if (memcmp(v.ptr + i, ME, sizeof ME - 1) != 0) continue;
        const char *end = memchr(v.ptr + i, '\n', v.len - i);
        return memchr(v.ptr + i, '[', end ? (size_t)(end - (v.ptr + i)) : v.len - i) != NULL;
    }
    return false;
}

/* A master answered whether it has slots migrating: if so, every master is asked again after a
 * while; else the next one is (a node that does not answer has no migration to wait for: its
 * slots' keys are looked for where the map puts them). */
static void scan_settled(void *ud, const rg_call_done *d) {
    rg_cc_scan *s = ud;
    s->busy = false;
    if (d->status == RG_OK && migrating(s->raw.value)) {
        if (++s->waits > SCAN_MAX_WAITS) {
            scan_end(s, RG_FULL, "a slot stayed migrating for 60 s");
            return;
        }
        s->check = 0;
        s->delay_ns = SCAN_WAIT_NS;
    } else {
        s->check = (uint16_t)(s->node + 1);
    }
    let_go(s->cc, s->node);
    rg_cc_scan_next(s->cc, s);
}

/* The next master to ask whether slots migrate, from s->check (cc->map.nnodes: none left). */
static uint16_t scan_next_master(const rg_cc *cc, const rg_cc_scan *s) {
    uint16_t j = s->check;
    while (j < cc->map.nnodes && !(cc->map.node[j].role == RG_NODE_MASTER && cc->map.node[j].slots))
        j++;
    return j;
}

/* A cursor: the decimal text of a u64. */
static bool parse_cursor(rg_view v, uint64_t *out) {
    uint64_t c = 0;
    if (v.len == 0 || v.len > 20) return false;
    for (size_t i = 0; i < v.len; i++) {
        const unsigned d = (unsigned)(v.ptr[i] - '0');
        if (d > 9 || c > (UINT64_MAX - d) / 10) return false;
        c = c * 10 + d;
    }
    *out = c;
    return true;
}

/* A SCAN reply: *2 [cursor, [keys...]]; its keys go to fn in chunks. False when it is not one. */
static bool scan_reply(rg_cc_scan *s, rg_view r) {
    enum { CHUNK = 128 };
    rg_view keys[CHUNK];
    rg_reader rd;
    rg_event ev;
    size_t pos = 0, n = 0;
    rg_reader_init(&rd, NULL);
    if (rg_next(&rd, r.ptr, r.len, &pos, &ev) != RG_OK || ev.kind != RG_EV_ARRAY || ev.u.i != 2 ||
        rg_next(&rd, r.ptr, r.len, &pos, &ev) != RG_OK || ev.kind != RG_EV_BULK ||
        !parse_cursor(ev.str, &s->cursor) || rg_next(&rd, r.ptr, r.len, &pos, &ev) != RG_OK ||
        ev.kind != RG_EV_ARRAY || ev.u.i < 0)
        return false;
    for (int64_t left = ev.u.i; left > 0; left--) {
        if (rg_next(&rd, r.ptr, r.len, &pos, &ev) != RG_OK || ev.kind != RG_EV_BULK) return false;
        keys[n++] = ev.str;
        if (n == CHUNK) {
            s->fn(s->ud, keys, n);
            n = 0;
        }
    }
    if (n) s->fn(s->ud, keys, n);
    return pos == r.len;
}

static void scan_answered(void *ud, const rg_call_done *d) {
    rg_cc_scan *s = ud;
    s->busy = false;
    const uint16_t node = s->node;
    if (d->status != RG_OK) {
        /* the node's keys are looked for again where its slots are at the pass's end */
        s->failed[s->node] = true;
        s->todo[s->node] = false;
        s->cursor = 0;
    } else {
        s->calls++;
        if (!scan_reply(s, s->raw.value)) {
            scan_end(s, RG_MISMATCH, "a SCAN reply is not [cursor, [keys]]");
            return;
        }
        if (s->cursor == 0) s->todo[s->node] = false;
    }
    let_go(s->cc, node);
    rg_cc_scan_next(s->cc, s);
}

rg_status rg_cc_scan_next(rg_cc *cc, rg_cc_scan *s) {
    if (s->done) return s->status;
    if (s->busy) return RG_OK;
    uint16_t i = 0;
    while (!s->settling && !s->mapping && i < cc->map.nnodes && !s->todo[i]) i++;
    if (!s->settling && !s->mapping && i == cc->map.nnodes) {
        s->settling = true; /* the pass is over: do slots migrate? */
        s->check = 0;
        s->cursor = 0;
    }
    if (s->settling && (i = scan_next_master(cc, s)) == cc->map.nnodes) {
        s->settling = false;
        s->mapping = true; /* none: is the map as it began? */
    }
    if (s->settling) {
        const rg_view argv[] = {RG_LIT("CLUSTER"), RG_LIT("NODES")};
        rg_cc_call *k = add_own(cc, 2, argv, i, &s->raw, scan_settled, s);
        if (!k) return RG_FULL;
        if (s->delay_ns) { /* a retry's backoff: dispatch sends it when due */
            k->state = C_WAIT;
            k->backoff = true;
            k->due_ns = cc->now_ns + s->delay_ns;
            s->delay_ns = 0;
        }
    } else if (s->mapping) {
        /* asked of a master that serves slots (its answer is the one a refresh would take) */
        i = cc->map.slot[0];
        for (uint16_t j = 0; j < cc->map.nnodes && i == RG_NODE_NONE; j++)
            if (cc->map.node[j].role == RG_NODE_MASTER && cc->map.node[j].slots) i = j;
        const rg_view argv[] = {RG_LIT("CLUSTER"), RG_LIT("SHARDS")};
        if (!add_own(cc, 2, argv, i, &s->raw, scan_mapped, s)) return RG_FULL;
    } else {
        if (i != s->node) s->cursor = 0;
        char cur[RG_I64_MAX_LEN];
        rg_view argv[2 + 8] = {RG_LIT("SCAN"), {cur, (size_t)(rg_put_u64(cur, s->cursor) - cur)}};
        memcpy(argv + 2, s->argv, s->argc * sizeof *argv);
        if (!add_own(cc, 2 + s->argc, argv, i, &s->raw, scan_answered, s)) return RG_FULL;
    }
    s->node = i;
    s->busy = true;
    return RG_OK;
}

rg_status rg_cc_scan_start(rg_cc *cc, rg_cc_scan *s, size_t argc, const rg_view *args,
                           rg_cc_scan_fn fn, void *ud) {
    memset(s, 0, offsetof(rg_cc_scan, raw));
    s->cc = cc;
    s->fn = fn;
    s->ud = ud;
    s->passes = 1;
    s->node = RG_NODE_NONE;
    s->status = RG_OK;
    size_t used = 0;
    if (argc > 6) return RG_INVALID;
    for (size_t j = 0; j < argc; j++) {
        if (args[j].len > sizeof s->args - used) return RG_INVALID;
        memcpy(s->args + used, args[j].ptr, args[j].len);
        s->argv[j] = (rg_view){s->args + used, args[j].len};
        used += args[j].len;
    }
    s->argc = argc;
    if (!scan_covered(&cc->map)) return RG_INVALID;
    memcpy(s->snap, cc->map.slot, sizeof s->snap);
    for (int slot = 0; slot < RG_CLUSTER_SLOTS; slot++) s->todo[s->snap[slot]] = true;
    return rg_cc_scan_next(cc, s);
}

/* ---- the driver's side --------------------------------------------------------------------- */

rg_cc_link *rg_cc_link_at(rg_cc *cc, size_t l) {
    if (l == RG_CC_REFRESH_LINK) return &cc->refresh_link;
    if (l < RG_CLUSTER_MAX_NODES) return l < cc->map.nnodes ? &cc->node[l].link : NULL;
    l -= RG_CLUSTER_MAX_NODES;
    return l < cc->map.nnodes && cc->sub[l] ? &cc->sub[l]->link : NULL;
}

void rg_cc_link_dial(rg_cc *cc, size_t l, rg_cc_dial *d) {
    const rg_cc_config *k = &cc->cfg;
    rg_cc_link *link = rg_cc_link_at(cc, l);
    *d = (rg_cc_dial){.tls = k->tls, .connect_ms = k->connect_ms, .io_ms = k->io_ms};
    d->conn.protocol = k->protocol;
    if (l == RG_CC_REFRESH_LINK) {
        /* RESP2: both map replies decode from either protocol, and no HELLO round trip */
        d->host = cc->refresh.host;
        d->port = cc->refresh.port;
        d->conn = (rg_conn_config){.in = cc->rbuf_in,
                                   .in_cap = sizeof cc->rbuf_in,
                                   .out = cc->rbuf_out,
                                   .out_cap = sizeof cc->rbuf_out,
                                   .calls = cc->rcalls,
                                   .ncalls = sizeof cc->rcalls / sizeof cc->rcalls[0],
                                   .protocol = 2};
    } else if (l < RG_CLUSTER_MAX_NODES) {
        char *mem = cc->node[l].mem;
        d->host = cc->map.node[l].host;
        d->port = cc->map.node[l].port;
        d->conn.in = mem;
        d->conn.in_cap = k->node_in_cap;
        d->conn.out = mem + k->node_in_cap;
        d->conn.out_cap = k->node_out_cap;
        d->conn.calls = (rg_call *)(void *)(mem + k->node_in_cap + k->node_out_cap);
        d->conn.ncalls = RING;
    } else {
        rg_cc_sub *s = cc->sub[l - RG_CLUSTER_MAX_NODES];
        d->host = cc->map.node[s->node].host;
        d->port = cc->map.node[s->node].port;
        d->conn.in = s->in;
        d->conn.in_cap = SUB_IN;
        d->conn.out = s->out;
        d->conn.out_cap = SUB_OUT;
        d->conn.calls = s->calls;
        d->conn.ncalls = SUB_CALLS;
        d->conn.on_push = sub_push;
        d->conn.push_ud = s;
    }
    link->want = RG_CC_DIALING;
}

/* Calls that wait for a node's link go as soon as it is open. */
static void wake_waiting(rg_cc *cc) {
    for (size_t j = cc->scan; j < cc->n; j++) {
        rg_cc_call *k = &cc->cfg.calls[j];
        if (k->state == C_WAIT && !k->backoff) k->due_ns = 0;
    }
    for (size_t j = cc->cfg.ncalls - cc->nparts; j < cc->cfg.ncalls; j++) {
        rg_cc_call *k = &cc->cfg.calls[j];
        if (k->state == C_WAIT && !k->backoff) k->due_ns = 0;
    }
}

void rg_cc_link_open(rg_cc *cc, size_t l, rg_conn *conn) {
    rg_cc_link *link = rg_cc_link_at(cc, l);
    link->conn = conn;
    link->want = RG_CC_OPEN;
    if (l == RG_CC_REFRESH_LINK) {
        refresh_ask(cc);
        return;
    }
    if (l >= RG_CLUSTER_MAX_NODES) return; /* pubsub_step subscribes */
    rg_cc_node *nd = &cc->node[l];
    nd->open = true;
    nd->readonly_sent = false;
    nd->inflight = 0;
    rg_conn_hold(conn, true);
    nd->tell_ready = nd->lost || nd->attempt || nd->gave_up; /* once the sequence is answered */
    nd->lost = nd->gave_up = false;
    wake_waiting(cc);
}

void rg_cc_link_failed(rg_cc *cc, size_t l, rg_error cause) {
    rg_cc_link *link = rg_cc_link_at(cc, l);
    if (!link || link->want == RG_CC_IDLE || link->want == RG_CC_CLOSE) return;
    const bool was_open = link->want == RG_CC_OPEN;
    rg_conn *conn = link->conn;
    link->conn = NULL;
    link->want = RG_CC_CLOSE;
    if (l == RG_CC_REFRESH_LINK) {
        if (cc->refresh.active && cc->refresh.next == 0) {
            failed(cc, cause.status, cc->refresh.host, cc->refresh.port, cause.msg);
            cc->refresh.status = cause.status;
            cc->refresh.next = 3;
        }
    } else if (l < RG_CLUSTER_MAX_NODES) {
        node_down(cc, (uint16_t)l, cause, was_open);
    } else {
        sub_down(cc, (uint16_t)(l - RG_CLUSTER_MAX_NODES));
    }
    if (conn) rg_conn_closed(conn, cause.msg); /* its calls complete: on_done sorts them */
}

static void link_drop(rg_cc *cc, size_t l, rg_view why) {
    rg_cc_link_failed(cc, l, (rg_error){RG_CLOSED, why, 0});
}

void rg_cc_link_closed(rg_cc *cc, size_t l) {
    rg_cc_link *link = rg_cc_link_at(cc, l);
    if (link) {
        link->want = RG_CC_IDLE;
        link->conn = NULL;
    }
}

/* READY for the nodes connected again whose connect sequence is answered, and the silence
 * check: no reply for io_ms while calls are in flight loses the nodes they wait on. */
static void nodes_tick(rg_cc *cc, int64_t now) {
    const int64_t quiet_until = cc->progress_ns + (int64_t)cc->cfg.io_ms * 1000000;
    for (size_t i = 0; i < cc->map.nnodes; i++) {
        rg_cc_node *nd = &cc->node[i];
        if (!nd->open) continue;
        if (nd->tell_ready && rg_conn_state_of(nd->link.conn) == RG_CONN_READY) {
            nd->tell_ready = false;
            tell(cc, (uint16_t)i, RG_RECONNECT_READY, (rg_error){RG_OK, {NULL, 0}, 0}, 0);
            nd->attempt = 0;
        }
        if (!nd->inflight) continue;
        if (now >= quiet_until)
            link_drop(cc, i, RG_LIT("timeout"));
        else if (quiet_until < cc->next_ns)
            cc->next_ns = quiet_until;
    }
}

int64_t rg_cc_tick(rg_cc *cc, int64_t now) {
    cc->now_ns = now;
    cc->next_ns = now + (int64_t)cc->cfg.io_ms * 1000000;
    if (cc->progressed) {
        cc->progress_ns = now;
        cc->progressed = false;
    }
    if (cc->notify) notify_waiting(cc);
    refresh_tick(cc, now);
    nodes_tick(cc, now);
    if (cc->nchannels) pubsub_step(cc, now);
    if (cc->done != cc->n) dispatch(cc, now);
    sync_front(cc); /* merges carve the arena */
    return cc->next_ns;
}

/* ---- set up --------------------------------------------------------------------------------- */

rg_status rg_cc_setup(rg_cc *cc, const rg_cc_config *cfg, const char *seed_host,
                      uint16_t seed_port) {
    memset(cc, 0, offsetof(rg_cc, argv)); /* (the big scratch after it needs no zeroing) */
    cc->adding = cc->notify = false;
    cc->known = NULL; /* (after argv: not cleared above) */
    cc->carve_table = NULL;
    cc->entry = NULL;
    cc->entry_ro = cc->entry_special = false;
    cc->listener = RG_NODE_NONE; /* chosen when a channel is first listened to */
    rg_cluster_map_init(&cc->map);
    cc->map.tls = cfg->tls != NULL;
    cc->cfg = *cfg;
    defaults(&cc->cfg);
    snprintf(cc->seed_host, sizeof cc->seed_host, "%s", seed_host);
    cc->seed_port = seed_port;
    cc->rng = (uint64_t)(uintptr_t)cc ^ ((uint64_t)seed_port << 48); /* spreads, secret-free */
    cc->need_refresh = true;
    rg_conn_relay_init(&cc->front, cc->cfg.arena, cc->cfg.arena ? cc->cfg.arena_cap : 0, relay, cc);
    if (!cfg->cmds || !cfg->calls || !cfg->arena) {
        snprintf(cc->why, sizeof cc->why, "rg_cc_init: cmds, calls and arena are required");
        cc->why_status = RG_INVALID;
        return RG_INVALID;
    }
    /* RG_FULL: the index finds nothing, routing still works */
    (void)rg_cluster_index_init(&cc->index, cfg->cmds);
    return RG_OK;
}

void rg_cc_teardown(rg_cc *cc) {
    const rg_cc_config *k = &cc->cfg;
    for (size_t i = 0; i < RG_CLUSTER_MAX_NODES; i++) {
        if (cc->node[i].mem) k->alloc(k->alloc_ud, cc->node[i].mem, 0);
        if (cc->sub[i]) k->alloc(k->alloc_ud, cc->sub[i], 0);
        cc->node[i].mem = NULL;
        cc->sub[i] = NULL;
    }
}
