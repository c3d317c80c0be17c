/* respgen adapters: the blocking Sentinel client (see rg_sentinel_client.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "rg_sentinel_client.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static uint64_t now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}

/* ---- sentinel links -------------------------------------------------------------------------- */

/* A sentinel link's connect options: the data connection's timeouts, the sentinels' TLS, no
 * reconnects (a sentinel that fails is skipped, not waited for). */
static rg_bconn_options link_options(const rg_sentinel_client *s) {
    const rg_bconn_options o = {.connect_ms = s->data.connect_ms > 0 ? s->data.connect_ms : -1,
                                .io_ms = s->data.io_ms,
                                .tls = s->sentinel_tls};
    return o;
}

static rg_status link_connect(rg_sentinel_client *s, rg_bconn *b, int i, rg_conn_config *cfg) {
    const rg_sentinel_addr *a = rg_sentinel_at(&s->sm, i);
    const rg_bconn_options o = link_options(s);
    return rg_bconn_connect(b, a->host, a->port, cfg, &o);
}

/* Why sentinel i gave no master, for rg_sentinel_client_error. */
static void blame(rg_sentinel_client *s, int i, const char *why) {
    const rg_sentinel_addr *a = rg_sentinel_at(&s->sm, i);
    snprintf(s->why, sizeof s->why, "sentinel %.64s:%u: %.120s", a->host, (unsigned)a->port, why);
}

/* Asks sentinel i for the master (and the replicas); RG_OK when it named one. */
static rg_status ask(rg_sentinel_client *s, int i) {
    rg_raw_result master = {{NULL, 0}}, replicas = {{NULL, 0}};
    rg_call_record mrec = {0}, rrec = {0};
    rg_view argv[3];
    rg_status st = link_connect(s, &s->link, i, &s->link_cfg);
    uint64_t id = 0;
    if (st == RG_OK) {
        rg_conn_hold(&s->link.conn, true); /* both replies stay readable until parsed */
        id = rg_conn_call_argv(&s->link.conn, rg_sentinel_master_argv(&s->sm, argv), argv, NULL,
                               &master, rg_call_record_fn, &mrec);
        if (id && s->ask_replicas)
            id = rg_conn_call_argv(&s->link.conn, rg_sentinel_replicas_argv(&s->sm, argv), argv,
                                   NULL, &replicas, rg_call_record_fn, &rrec);
        st = id ? rg_bconn_wait(&s->link, id) : RG_FULL;
    }
    if (st == RG_OK && mrec.status == RG_OK) {
        st = rg_sentinel_master_reply(&s->sm, i, master.value); /* a bad one: to the back */
        if (st == RG_OK && rrec.done && rrec.status == RG_OK)
            rg_sentinel_replicas_reply(&s->sm, replicas.value);
        if (st != RG_OK) blame(s, i, rg_sentinel_error(&s->sm));
    } else {
        const rg_error e = rg_bconn_error(&s->link);
        blame(s, i, mrec.done ? mrec.error : e.msg.ptr ? e.msg.ptr : "no answer");
        rg_sentinel_failed(&s->sm, i);
        st = st == RG_OK ? RG_REFUSED : st;
    }
    rg_bconn_close(&s->link);
    return st;
}

/* The watch link's pushes: a +switch-master of this name drops the data connection (later, out
 * of this callback). */
static void watch_push(void *ud, const rg_push *p) {
    rg_sentinel_client *s = ud;
    if (rg_sentinel_push(&s->sm, p) == RG_SENTINEL_SWITCHED) s->switched = true;
}

/* Subscribes a link to sentinel i for +switch-master. */
static void open_watch(rg_sentinel_client *s, int i) {
    rg_conn_config cfg = s->link_cfg;
    rg_view argv[2];
    cfg.on_push = watch_push;
    cfg.push_ud = s;
    s->rewatch_at = now_ms() + RG_SENTINEL_REWATCH_MS;
    if (link_connect(s, &s->watch, i, &cfg) == RG_OK &&
        rg_conn_call_argv(&s->watch.conn, rg_sentinel_subscribe_argv(argv), argv, NULL, NULL, NULL,
                          NULL) &&
        rg_bconn_send_now(&s->watch) == RG_OK) {
        s->watching = true;
        return;
    }
    rg_bconn_close(&s->watch);
}

static void close_watch(rg_sentinel_client *s) {
    rg_bconn_close(&s->watch);
    s->watching = false;
}

/* Reads what the watch link has, without waiting; a lost link is opened again later. */
static void watch_pump(rg_sentinel_client *s) {
    if (!s->watching) {
        if (now_ms() >= s->rewatch_at) open_watch(s, rg_sentinel_first(&s->sm));
        return;
    }
    if (rg_bconn_send_now(&s->watch) != RG_OK || rg_bconn_read_now(&s->watch) != RG_OK)
        close_watch(s);
}

/* ---- the data connection --------------------------------------------------------------------- */

/* The data connection's where hook: a resolution, before every connect. */
static rg_error where(void *ud, char *host, size_t cap, int *port) {
    rg_sentinel_client *s = ud;
    s->resolves++;
    rg_sentinel_begin(&s->sm);
    snprintf(s->why, sizeof s->why, "sentinel: no sentinel to ask");
    rg_status st = RG_REFUSED;
    for (int i; (i = rg_sentinel_next(&s->sm)) >= 0;) {
        st = ask(s, i);
        if (st == RG_INVALID) break; /* a bad TLS config: every sentinel would refuse it */
        if (st != RG_OK) continue;
        const rg_sentinel_addr *m = rg_sentinel_master(&s->sm);
        snprintf(host, cap, "%s", m->host);
        *port = m->port;
        if (!s->watching) open_watch(s, i);
        return (rg_error){RG_OK, {NULL, 0}, 0};
    }
    return (rg_error){st == RG_INVALID ? RG_INVALID : RG_REFUSED, rg_cstr(s->why), 0};
}

/* The data connection's events: READY confirms the master; the caller's hook hears them all. */
static void data_event(rg_bconn *b, const rg_reconnect_event *ev, void *ud) {
    rg_sentinel_client *s = ud;
    if (ev->what == RG_RECONNECT_READY) rg_sentinel_confirmed(&s->sm);
    if (s->user_event) s->user_event(b, ev, s->user_event_ud);
}

static bool copy_text(char *dst, size_t cap, rg_view v) {
    if (v.len >= cap) return false;
    if (v.len) memcpy(dst, v.ptr, v.len);
    dst[v.len] = '\0';
    return true;
}

/* The config's parts that the links keep: the sentinel AUTH, copied. */
static rg_status setup(rg_sentinel_client *s, const rg_sentinel_client_config *cfg) {
    const rg_sentinel_config sc = {cfg->master_name, cfg->sentinels, cfg->nsentinels, cfg->replicas,
                                   cfg->replicas_cap};
    if (rg_sentinel_init(&s->sm, &sc) != RG_OK) {
        snprintf(s->why, sizeof s->why, "%s", rg_sentinel_error(&s->sm));
        return RG_INVALID;
    }
    if (!copy_text(s->user, sizeof s->user, cfg->sentinel_user) ||
        !copy_text(s->password, sizeof s->password, cfg->sentinel_password)) {
        snprintf(s->why, sizeof s->why, "sentinel: sentinel_user or _password too long");
        return RG_INVALID;
    }
    s->link_cfg = (rg_conn_config){.protocol = 3, .alloc = rg_conn_std_alloc};
    s->link_cfg.user = (rg_view){s->user, cfg->sentinel_user.len};
    s->link_cfg.password = (rg_view){s->password, cfg->sentinel_password.len};
    s->ask_replicas = cfg->replicas && cfg->replicas_cap;
    s->sentinel_tls = cfg->sentinel_tls;
    return RG_OK;
}

/* Waits for a PING behind the connect sequence: the data connection reached a master. */
static rg_status await_master(rg_sentinel_client *s) {
    for (;;) {
        rg_call_record rec = {0};
        const uint64_t id = rg_conn_call_argv(&s->data.conn, 1, &RG_LIT("PING"), NULL, NULL,
                                              rg_call_record_fn, &rec);
        const rg_status st = id ? rg_sentinel_wait(s, id) : rg_sentinel_poll(s, 1);
        if (rec.done && rec.status == RG_OK) return RG_OK;
        if (st != RG_OK && !rg_bconn_reconnecting(&s->data)) return st;
    }
}

rg_status rg_sentinel_connect(rg_sentinel_client *s, const rg_sentinel_client_config *cfg) {
    memset(s, 0, sizeof *s);
    s->data.fd = s->link.fd = s->watch.fd = -1;
    s->data.closed = s->link.closed = s->watch.closed = true;
    s->why_status = RG_INVALID; /* until the config is taken */
    if (cfg->data_plain && cfg->options.tls) {
        snprintf(s->why, sizeof s->why, "sentinel: data_plain with options.tls");
        return RG_INVALID;
    }
    rg_status st = setup(s, cfg);
    if (st != RG_OK) return st;
    rg_conn_config data = {.protocol = 3, .queue_calls = 1024};
    if (cfg->data) data = *cfg->data;
    data.role = RG_ROLE_MASTER;
    if (!data.alloc) data.alloc = rg_conn_std_alloc;
    rg_bconn_options o = cfg->options;
    if (!o.tls && !cfg->data_plain) o.tls = cfg->sentinel_tls;
    if (!o.reconnect.attempts)
        o.reconnect = (rg_backoff){.max_ms = RG_SENTINEL_MAX_MS, .attempts = RG_SENTINEL_ATTEMPTS};
    s->user_event = o.on_event;
    s->user_event_ud = o.event_ud;
    o.on_event = data_event;
    o.event_ud = s;
    o.where = where;
    o.where_ud = s;
    o.config = NULL;
    s->why_status = RG_REFUSED; /* from here: no sentinel named a master */
    st = rg_bconn_connect(&s->data, "", 0, &data, &o);
    return st == RG_OK ? await_master(s) : st;
}

/* ---- I/O ------------------------------------------------------------------------------------- */

static bool finished(const rg_sentinel_client *s, uint64_t id) {
    return id ? rg_conn_call_done(&s->data.conn, id)
              : rg_conn_pending(&s->data.conn) == 0 && !rg_bconn_reconnecting(&s->data);
}

/* One turn: the watch link, a move it asked for, then the data connection for at most ms. */
static rg_status turn(rg_sentinel_client *s, int ms) {
    watch_pump(s);
    if (s->switched) {
        s->switched = false;
        rg_bconn_drop(&s->data, "sentinel: +switch-master: the master moved");
    }
    return rg_bconn_poll(&s->data, ms);
}

rg_status rg_sentinel_wait(rg_sentinel_client *s, uint64_t id) {
    while (!finished(s, id)) {
        const rg_status st = turn(s, RG_SENTINEL_SLICE_MS);
        if (st != RG_OK && !rg_bconn_reconnecting(&s->data)) return st; /* down for good */
    }
    return RG_OK;
}

rg_status rg_sentinel_poll(rg_sentinel_client *s, int ms) {
    const uint64_t end = now_ms() + (uint64_t)(ms > 0 ? ms : 0);
    rg_status st;
    do {
        const uint64_t now = now_ms();
        const uint64_t left = end > now ? end - now : 0;
        st = turn(s, left < RG_SENTINEL_SLICE_MS ? (int)left : RG_SENTINEL_SLICE_MS);
        if (st != RG_OK && !rg_bconn_reconnecting(&s->data)) return st;
    } while (now_ms() < end);
    return st;
}

const rg_sentinel_addr *rg_sentinel_client_master(const rg_sentinel_client *s) {
    return rg_sentinel_master(&s->sm);
}

const rg_sentinel_addr *rg_sentinel_client_replicas(const rg_sentinel_client *s, size_t *n) {
    return rg_sentinel_replicas(&s->sm, n);
}

rg_error rg_sentinel_client_error(const rg_sentinel_client *s) {
    const rg_error e = rg_bconn_error(&s->data);
    if (e.status == RG_OK && s->why[0] && !rg_sentinel_master(&s->sm))
        return (rg_error){s->why_status, rg_cstr(s->why), 0};
    return e;
}

void rg_sentinel_close(rg_sentinel_client *s) {
    if (!s->data.closed) rg_bconn_close(&s->data);
    if (!s->link.closed) rg_bconn_close(&s->link);
    if (!s->watch.closed) rg_bconn_close(&s->watch);
    s->watching = false;
}
