/* respgen adapters: the libuv Sentinel client (see rg_sentinel_uv.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "rg_sentinel_uv.h"

#include <stdio.h>
#include <string.h>

static void tell(rg_sentinel_uv *s, rg_uv_event ev) {
    if (s->on_event) s->on_event(&s->data, ev, s->ud);
}

/* RG_UV_CLOSED once nothing of the client is open any more. */
static void maybe_closed(rg_sentinel_uv *s) {
    if (!s->closing || s->told_closed || s->data.open || s->link.open || s->watch.open ||
        s->timer_open)
        return;
    s->told_closed = true;
    tell(s, RG_UV_CLOSED);
}

static void timer_closed(uv_handle_t *h) {
    rg_sentinel_uv *s = h->data;
    s->timer_open = false;
    maybe_closed(s);
}

void rg_sentinel_uv_close(rg_sentinel_uv *s) {
    if (s->closing) return;
    s->closing = true;
    s->asking = -1;
    rg_uv_close(&s->data);
    if (s->link.open) rg_uv_close(&s->link);
    if (s->watch.open) rg_uv_close(&s->watch);
    if (s->timer_open && !uv_is_closing((uv_handle_t *)&s->rewatch))
        uv_close((uv_handle_t *)&s->rewatch, timer_closed);
    maybe_closed(s);
}

/* Why sentinel i gave no master, for rg_sentinel_uv_error. */
static void blame(rg_sentinel_uv *s, int i, const char *why) {
    const rg_sentinel_addr *a = rg_sentinel_at(&s->sm, i);
    snprintf(s->why, sizeof s->why, "sentinel %.64s:%u: %.120s", a->host, (unsigned)a->port, why);
}

/* ---- asking the sentinels -------------------------------------------------------------------- */

static void ask_next(rg_sentinel_uv *s);
static void open_watch(rg_sentinel_uv *s, int i);

static void master_done(void *ud, const rg_call_done *d) {
    rg_sentinel_uv *s = ud;
    const int i = s->asking;
    if (i < 0) return;
    if (d->status == RG_OK) {
        s->answered = rg_sentinel_master_reply(&s->sm, i, s->master_raw.value) == RG_OK;
        if (!s->answered) blame(s, i, rg_sentinel_error(&s->sm));
    } else {
        blame(s, i, d->error.len ? d->error.ptr : "no answer");
        rg_sentinel_failed(&s->sm, i);
    }
    if (!s->ask_replicas) rg_uv_close(&s->link);
}

static void replicas_done(void *ud, const rg_call_done *d) {
    rg_sentinel_uv *s = ud;
    if (s->answered && d->status == RG_OK)
        rg_sentinel_replicas_reply(&s->sm, s->replicas_raw.value);
    rg_uv_close(&s->link);
}

/* The link to the sentinel asked is released: the answer goes to the data connection, or the
 * next sentinel is asked. */
static void asked(rg_sentinel_uv *s) {
    const int i = s->asking;
    s->asking = -1;
    if (s->closing || i < 0) return;
    if (!s->answered) {
        ask_next(s);
        return;
    }
    const rg_sentinel_addr *m = rg_sentinel_master(&s->sm);
    if (!s->watching) open_watch(s, i);
    rg_uv_dial_at(&s->data, m->host, m->port);
}

static void link_event(rg_uv *u, rg_uv_event ev, void *ud) {
    rg_sentinel_uv *s = ud;
    (void)u;
    if (ev == RG_UV_FAILED && s->asking >= 0 && !s->answered) {
        const rg_error e = rg_uv_error(&s->link);
        blame(s, s->asking, e.msg.ptr ? e.msg.ptr : "failed");
        rg_sentinel_failed(&s->sm, s->asking);
    }
    if (ev == RG_UV_CLOSED) asked(s);
    maybe_closed(s);
}

static void ask_next(rg_sentinel_uv *s) {
    rg_view argv[3];
    const rg_uv_options lo = {.tls = s->sentinel_tls};
    rg_status st = RG_REFUSED;
    for (int i; (i = rg_sentinel_next(&s->sm)) >= 0;) {
        const rg_sentinel_addr *a = rg_sentinel_at(&s->sm, i);
        s->asking = i;
        s->answered = false;
        st = rg_uv_connect(&s->link, s->loop, a->host, a->port, &s->link_cfg, &lo, link_event, s);
        if (st != RG_OK) {
            blame(s, i, rg_uv_error(&s->link).msg.ptr);
            rg_sentinel_failed(&s->sm, i);
            if (s->link.open) return; /* RG_UV_CLOSED follows: the next from there */
            /* a bad TLS config: every sentinel would refuse it */
            if (st == RG_INVALID) break;
            continue;
        }
        rg_conn *c = &s->link.conn;
        rg_conn_hold(c, true); /* both replies readable in their callbacks */
        bool ok = rg_conn_call_argv(c, rg_sentinel_master_argv(&s->sm, argv), argv, NULL,
                                    &s->master_raw, master_done, s) != 0;
        if (ok && s->ask_replicas)
            ok = rg_conn_call_argv(c, rg_sentinel_replicas_argv(&s->sm, argv), argv, NULL,
                                   &s->replicas_raw, replicas_done, s) != 0;
        if (!ok) rg_uv_close(&s->link); /* RG_UV_CLOSED: the next one */
        return;
    }
    s->asking = -1;
    rg_uv_dial_failed(&s->data, st == RG_INVALID ? RG_INVALID : RG_REFUSED, s->why);
}

/* The data connection's where hook: a resolution, before every connect. */
static void where(void *ud, rg_uv *u) {
    rg_sentinel_uv *s = ud;
    (void)u;
    if (s->closing) return;
    s->resolves++;
    rg_sentinel_begin(&s->sm);
    snprintf(s->why, sizeof s->why, "sentinel: no sentinel to ask");
    ask_next(s);
}

/* ---- the watch link -------------------------------------------------------------------------- */

static void watch_push(void *ud, const rg_push *p) {
    rg_sentinel_uv *s = ud;
    if (rg_sentinel_push(&s->sm, p) == RG_SENTINEL_SWITCHED)
        rg_uv_drop(&s->data, "sentinel: +switch-master: the master moved");
}

static void rewatch_now(uv_timer_t *t) {
    rg_sentinel_uv *s = t->data;
    if (!s->closing && !s->watching && !s->watch.open) open_watch(s, rg_sentinel_first(&s->sm));
}

static void watch_event(rg_uv *u, rg_uv_event ev, void *ud) {
    rg_sentinel_uv *s = ud;
    (void)u;
    if (ev != RG_UV_CLOSED) return;
    s->watching = false;
    if (!s->closing) uv_timer_start(&s->rewatch, rewatch_now, RG_SENTINEL_UV_REWATCH_MS, 0);
    maybe_closed(s);
}

static void open_watch(rg_sentinel_uv *s, int i) {
    const rg_sentinel_addr *a = rg_sentinel_at(&s->sm, i);
    rg_conn_config cfg = s->link_cfg;
    rg_view argv[2];
    cfg.on_push = watch_push;
    cfg.push_ud = s;
    cfg.timeout_ms = 0; /* it waits for messages for ever */
    const rg_uv_options lo = {.tls = s->sentinel_tls};
    const rg_status st =
        rg_uv_connect(&s->watch, s->loop, a->host, a->port, &cfg, &lo, watch_event, s);
    s->watching = st == RG_OK;
    if (st == RG_OK && !rg_conn_call_argv(&s->watch.conn, rg_sentinel_subscribe_argv(argv), argv,
                                          NULL, NULL, NULL, NULL))
        rg_uv_close(&s->watch);
    if (st != RG_OK && !s->watch.open && !s->closing)
        uv_timer_start(&s->rewatch, rewatch_now, RG_SENTINEL_UV_REWATCH_MS, 0);
}

/* ---- the data connection --------------------------------------------------------------------- */

/* The data connection's events go to the caller; READY confirms the master; its end ends the
 * client. */
static void data_event(rg_uv *u, rg_uv_event ev, void *ud) {
    rg_sentinel_uv *s = ud;
    (void)u;
    if (ev == RG_UV_READY) rg_sentinel_confirmed(&s->sm);
    if (ev != RG_UV_CLOSED) {
        tell(s, ev);
        return;
    }
    if (!s->closing) rg_sentinel_uv_close(s); /* gave up, or the first connect failed */
    maybe_closed(s);
}

static bool copy_text(char *dst, size_t cap, rg_view v) {
    if (v.len >= cap) return false;
    if (v.len) memcpy(dst, v.ptr, v.len);
    dst[v.len] = '\0';
    return true;
}

static rg_status invalid(rg_sentinel_uv *s, const char *why) {
    snprintf(s->why, sizeof s->why, "%s", why);
    return RG_INVALID;
}

static rg_status setup(rg_sentinel_uv *s, const rg_sentinel_uv_config *cfg) {
    const rg_sentinel_config sc = {cfg->master_name, cfg->sentinels, cfg->nsentinels, cfg->replicas,
                                   cfg->replicas_cap};
    if (rg_sentinel_init(&s->sm, &sc) != RG_OK) return invalid(s, rg_sentinel_error(&s->sm));
    if (!copy_text(s->user, sizeof s->user, cfg->sentinel_user) ||
        !copy_text(s->password, sizeof s->password, cfg->sentinel_password))
        return invalid(s, "sentinel: sentinel_user or _password too long");
    const uint32_t ms = cfg->link_ms ? cfg->link_ms : RG_SENTINEL_UV_LINK_MS;
    s->link_cfg = (rg_conn_config){
        .protocol = 3, .alloc = rg_conn_std_alloc, .connect_timeout_ms = ms, .timeout_ms = ms};
    s->link_cfg.user = (rg_view){s->user, cfg->sentinel_user.len};
    s->link_cfg.password = (rg_view){s->password, cfg->sentinel_password.len};
    s->ask_replicas = cfg->replicas && cfg->replicas_cap;
    s->sentinel_tls = cfg->sentinel_tls;
    return RG_OK;
}

rg_status rg_sentinel_uv_connect(rg_sentinel_uv *s, uv_loop_t *loop,
                                 const rg_sentinel_uv_config *cfg, rg_uv_event_fn on_event,
                                 void *ud) {
    memset(s, 0, sizeof *s);
    s->loop = loop;
    s->asking = -1;
    s->on_event = on_event;
    s->ud = ud;
    if (cfg->data_plain && cfg->data_tls) { /* nothing opened: nothing to close */
        s->closing = s->told_closed = true;
        return invalid(s, "sentinel: data_plain with data_tls");
    }
    rg_status st = setup(s, cfg);
    if (st != RG_OK) return st;
    rg_conn_config data = {
        .protocol = 3, .connect_timeout_ms = RG_UV_CONNECT_MS, .queue_calls = 1024};
    if (cfg->data) data = *cfg->data;
    data.role = RG_ROLE_MASTER;
    if (!data.alloc) data.alloc = rg_conn_std_alloc;
    rg_uv_options o = {.tls = cfg->data_plain ? NULL
                              : cfg->data_tls ? cfg->data_tls
                                              : cfg->sentinel_tls,
                       .reconnect = cfg->reconnect,
                       .where = where,
                       .where_ud = s};
    if (!o.reconnect.attempts)
        o.reconnect = (rg_backoff){.max_ms = RG_SENTINEL_MAX_MS, .attempts = RG_SENTINEL_ATTEMPTS};
    st = rg_uv_connect(&s->data, loop, "", 0, &data, &o, data_event, s);
    if (st != RG_OK) { /* a bad data config: nothing was opened */
        snprintf(s->why, sizeof s->why, "%s", rg_uv_error(&s->data).msg.ptr);
        s->closing = s->told_closed = true;
        return st;
    }
    if (s->closing) return RG_OK; /* no sentinel could be asked at all: told already */
    uv_timer_init(loop, &s->rewatch);
    s->rewatch.data = s;
    uv_unref((uv_handle_t *)&s->rewatch); /* the links keep the loop alive, not this */
    s->timer_open = true;
    return RG_OK;
}

const rg_sentinel_addr *rg_sentinel_uv_master(const rg_sentinel_uv *s) {
    return rg_sentinel_master(&s->sm);
}

const rg_sentinel_addr *rg_sentinel_uv_replicas(const rg_sentinel_uv *s, size_t *n) {
    return rg_sentinel_replicas(&s->sm, n);
}

rg_error rg_sentinel_uv_error(const rg_sentinel_uv *s) {
    const rg_error e = rg_uv_error(&s->data);
    if (e.status == RG_OK && s->why[0] && !rg_sentinel_master(&s->sm))
        return (rg_error){RG_REFUSED, rg_cstr(s->why), 0};
    return e;
}
