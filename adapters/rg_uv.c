/* respgen adapters: the libuv client (see rg_uv.h). */
/* The POSIX declarations this file and uv.h need (uv.h's pthread types, sigaction), also when a
 * user's build compiles it with -std=c11 and no feature macros: those hide them. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "rg_uv.h"
#ifdef RG_HAVE_TLS
#include "rg_tls.h"
#endif

#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static rg_uv *of_handle(const uv_handle_t *h) {
    return h->data;
}

static void tell(rg_uv *u, rg_uv_event ev) {
    if (u->on_event) u->on_event(u, ev, u->ud);
}

static void stream_gone(rg_uv *u);

/* The filter and the context made for it. */
static void tls_release(rg_uv *u) {
#ifdef RG_HAVE_TLS
    rg_tls_free(u->tls);
    if (u->tls_own_ctx) rg_tls_ctx_free(u->tls_ctx);
#endif
    u->tls = NULL;
    u->tls_ctx = NULL;
    u->tls_own_ctx = u->tls_release = false;
}

static void handle_closed(uv_handle_t *h) {
    rg_uv *u = of_handle(h);
    const bool stream = h == (uv_handle_t *)&u->h.stream;
    if (stream) u->stream_open = false;
    u->open--;
    if (stream && !u->shutting) {
        stream_gone(u); /* a reconnect's: the next attempt */
        return;
    }
    if (u->open != 0) return;
    u->handles_open = false;
    rg_conn_free(&u->conn); /* the engine's memory: nothing reads into it any more */
    if (u->tls_release) tls_release(u);
    u->in_closed = true;
    tell(u, RG_UV_CLOSED);
    u->in_closed = false;
    if (u->doomed) free(u);
}

/* A libuv error in the house's words: libuv's codes stop at this edge. */
static rg_status uv_status(int err) {
    switch (err) {
    case UV_EOF: return RG_CLOSED;
    case UV_ECONNREFUSED:
    case UV_ENOENT: return RG_REFUSED;
    case UV_ETIMEDOUT: return RG_TIMEOUT;
    case UV_ENOBUFS: return RG_FULL;
    default: return RG_IO;
    }
}

/* The socket failed with st (unless the engine failed by itself: rg_uv_error then tells its
 * error). */
static void note_failure(rg_uv *u, rg_status st, const char *why) {
    if (st == RG_OK || rg_conn_state_of(&u->conn) == RG_CONN_FAILED) return;
    u->err_status = st;
    snprintf(u->why, sizeof u->why, "%s", why);
}

/* Closes for good: fails the pending (and queued) calls, reports st (RG_OK: a plain close; the
 * engine's own failure when it has one: rg_uv_error then tells it) and closes the handles. */
static void shut(rg_uv *u, rg_status st, const char *why) {
    if (u->open == 0 || u->shutting) return;
    u->shutting = true;
    u->asking = false; /* a late answer of the where hook finds nothing to do */
    note_failure(u, st, why);
    rg_conn_closed(&u->conn, rg_cstr(why)); /* nothing when the engine failed by itself */
    if (st != RG_OK) tell(u, RG_UV_FAILED);
    if (u->stream_open && !uv_is_closing((uv_handle_t *)&u->h.stream))
        uv_close((uv_handle_t *)&u->h.stream, handle_closed);
    if (!u->handles_open) return;
    uv_close((uv_handle_t *)&u->prepare, handle_closed);
    uv_close((uv_handle_t *)&u->timer, handle_closed);
    uv_close((uv_handle_t *)&u->retry, handle_closed);
}

/* ---- reconnects ------------------------------------------------------------------------------ */

static void set_info(rg_uv *u, rg_reconnect_what what, uint32_t delay_ms) {
    u->info = (rg_reconnect_event){what, rg_uv_error(u), u->attempt, delay_ms};
}

/* May a failure be followed by a reconnect? Not before a first connect, not after a refused
 * connect sequence (nor a bad config), not after a refused certificate or handshake: the next
 * attempt would meet the same. */
static bool can_reconnect(const rg_uv *u) {
    if (!u->reconnect.attempts || !u->ever_connected) return false;
#ifdef RG_HAVE_TLS
    if (u->tls && rg_tls_cause_status(rg_tls_cause_of(u->tls)) == RG_REFUSED) return false;
#endif
    if (rg_conn_state_of(&u->conn) != RG_CONN_FAILED || u->err_status != RG_OK) return true;
    const rg_status why = rg_conn_error(&u->conn).status;
    return why != RG_REFUSED && why != RG_INVALID;
}

static void give_up(rg_uv *u) {
    char why[64];
    set_info(u, RG_RECONNECT_GAVE_UP, 0);
    tell(u, RG_UV_GAVE_UP);
    snprintf(why, sizeof why, "reconnect: gave up after %u attempts", (unsigned)u->attempt);
    shut(u, RG_OK, why); /* rg_uv_error keeps the last attempt's error */
}

static rg_status dial(rg_uv *u);
static void lose(rg_uv *u, rg_status st, const char *why);

static void retry_now(uv_timer_t *t) {
    rg_uv *u = of_handle((uv_handle_t *)t);
    if (u->shutting) return;
    u->err_status = RG_OK;
    u->why[0] = '\0';
#ifdef RG_HAVE_TLS
    if (u->tls && rg_tls_restart(u->tls) != RG_OK) { /* a fresh session for the new stream */
        const rg_error e = rg_tls_error(u->tls);
        shut(u, e.status, e.msg.ptr);
        return;
    }
#endif
    if (u->where) {
        u->asking = true;
        u->where(u->where_ud, u); /* it answers with rg_uv_dial_at or rg_uv_dial_failed */
        return;
    }
    const rg_status st = dial(u);
    if (st != RG_OK) lose(u, st, u->why);
}

/* The next attempt after its jittered delay, or giving up. */
static void schedule(rg_uv *u) {
    if (u->attempt >= u->reconnect.attempts) {
        give_up(u);
        return;
    }
    const uint32_t delay = rg_backoff_delay(&u->reconnect, u->attempt, rg_backoff_random(&u->rng));
    u->attempt++;
    set_info(u, RG_RECONNECT_ATTEMPT, delay);
    tell(u, RG_UV_RECONNECTING);
    if (!u->shutting) uv_timer_start(&u->retry, retry_now, delay, 0);
}

/* The stream of a lost connection (or failed attempt) is closed: the engine waits offline (the
 * connect sequence and the replay queued once) and the next attempt is scheduled. */
static void stream_gone(rg_uv *u) {
    u->writing = 0;
    rg_conn_output_pin(&u->conn, false);
    if (rg_conn_offline(&u->conn) != RG_OK) {
        shut(u, RG_FULL, "reconnect: the connect sequence and replay do not fit");
        return;
    }
    schedule(u);
}

/* The connection (or an attempt) failed with st: a reconnect when allowed, else the end. */
static void lose(rg_uv *u, rg_status st, const char *why) {
    if (u->shutting || u->open == 0) return;
    if (!can_reconnect(u)) {
        if (!u->attempt) {
            shut(u, st, why);
            return;
        }
        set_info(u, RG_RECONNECT_GAVE_UP, 0); /* a reconnect's handshake refused: no loop */
        tell(u, RG_UV_GAVE_UP);
        shut(u, RG_OK, why);
        return;
    }
    const rg_error e = rg_conn_error(&u->conn); /* kept: the engine starts over below */
    if (rg_conn_state_of(&u->conn) == RG_CONN_FAILED && u->err_status == RG_OK) {
        u->err_status = e.status;
        snprintf(u->why, sizeof u->why, "%.*s", (int)e.msg.len, e.msg.ptr ? e.msg.ptr : "");
    }
    note_failure(u, st, why);
    /* an attempt that never connected wrote nothing: its queued calls wait for the next one */
    if (!rg_conn_is_offline(&u->conn)) rg_conn_closed(&u->conn, rg_cstr(why));
    u->connected = u->ready = false;
    const bool closing = u->stream_open;
    if (closing && !uv_is_closing((uv_handle_t *)&u->h.stream))
        uv_close((uv_handle_t *)&u->h.stream, handle_closed); /* no write reads the output now */
    u->writing = 0;
    rg_conn_output_pin(&u->conn, false);
    /* offline at once, so that calls made from the event below are queued (or refused) */
    if (rg_conn_offline(&u->conn) != RG_OK) {
        shut(u, RG_FULL, "reconnect: the connect sequence and replay do not fit");
        return;
    }
    if (!u->attempt) {
        set_info(u, RG_RECONNECT_DISCONNECTED, 0);
        tell(u, RG_UV_DISCONNECTED); /* it may close u */
    }
    if (!closing && !u->shutting) stream_gone(u); /* else from the close callback */
}

const rg_reconnect_event *rg_uv_reconnect_info(const rg_uv *u) {
    return &u->info;
}

/* A libuv call failed with err. */
static void shut_uv(rg_uv *u, int err) {
    lose(u, uv_status(err), uv_strerror(err));
}

/* The engine failed by itself (a protocol error, a refused handshake, a deadline). */
static void shut_engine(rg_uv *u) {
    lose(u, rg_conn_error(&u->conn).status, "");
}

rg_error rg_uv_error(const rg_uv *u) {
    if (u->err_status != RG_OK) return (rg_error){u->err_status, rg_cstr(u->why), 0};
    return rg_conn_error(&u->conn);
}

void rg_uv_close(rg_uv *u) {
    if (u->asking && u->open == 0) { /* a first connect still asking where: nothing is open */
        u->asking = false;
        rg_conn_closed(&u->conn, RG_LIT("closed by the client"));
        rg_conn_free(&u->conn);
    }
    u->tls_release = true;
    if (u->open == 0) tls_release(u); /* the handles are gone already */
    shut(u, RG_OK, "closed by the client");
}

static void flush(rg_uv *u);

static void written(uv_write_t *req, int status) {
    rg_uv *u = req->data;
    const size_t n = u->writing;
    u->writing = 0;
    if (!u->tls) rg_conn_output_pin(&u->conn, false);
    if (status == UV_ECANCELED || !u->connected) return; /* the stream is closing */
    if (status < 0) {
        shut_uv(u, status);
        return;
    }
#ifdef RG_HAVE_TLS
    if (u->tls) {
        rg_tls_written(u->tls, n);
    } else
#endif
        rg_conn_written(&u->conn, n);
    flush(u);
}

#ifdef RG_HAVE_TLS
static void tls_flush(rg_uv *u);
#endif

/* Writes what the engine has: at once when the socket takes it, else one uv_write with the
 * output pinned (libuv reads the bytes later from where they are). */
static void flush(rg_uv *u) {
    if (!u->connected || u->writing || u->shutting) return;
#ifdef RG_HAVE_TLS
    if (u->tls) {
        tls_flush(u);
        return;
    }
#endif
    size_t n;
    const char *out = rg_conn_output(&u->conn, &n);
    if (!out) return;
    uv_buf_t buf = uv_buf_init((char *)out, (unsigned)(n > UINT32_MAX ? UINT32_MAX : n));
    const int w = uv_try_write(&u->h.stream, &buf, 1);
    if (w > 0) {
        rg_conn_written(&u->conn, (size_t)w);
        out = rg_conn_output(&u->conn, &n);
        if (!out) return;
        buf = uv_buf_init((char *)out, (unsigned)(n > UINT32_MAX ? UINT32_MAX : n));
    } else if (w < 0 && w != UV_EAGAIN) {
        shut_uv(u, w);
        return;
    }
    u->writing = buf.len;
    rg_conn_output_pin(&u->conn, true);
    const int st = uv_write(&u->write_req, &u->h.stream, &buf, 1, written);
    if (st < 0) {
        u->writing = 0;
        rg_conn_output_pin(&u->conn, false);
        shut_uv(u, st);
    }
}

void rg_uv_flush(rg_uv *u) {
    flush(u);
}

static void arm(rg_uv *u);

/* Still connecting: the TCP connect, or the TLS handshake after it. */
static bool dialing(const rg_uv *u) {
#ifdef RG_HAVE_TLS
    if (u->tls && !rg_tls_ready(u->tls)) return true;
#endif
    return !u->connected;
}

/* The filter failed: its message becomes the connection's. */
#ifdef RG_HAVE_TLS
static void shut_tls(rg_uv *u) {
    const rg_error e = rg_tls_error(u->tls);
    lose(u, e.status, e.msg.ptr);
}
#endif

static void expired(uv_timer_t *t) {
    rg_uv *u = of_handle((uv_handle_t *)t);
    const uint64_t now = uv_now(u->loop);
    const uint32_t connect_ms = rg_conn_config_of(&u->conn)->connect_timeout_ms;
    if (u->stream_open && dialing(u) && connect_ms && now - u->dial_at >= connect_ms) {
#ifdef RG_HAVE_TLS
        if (u->connected && u->tls) {
            rg_tls_timeout(u->tls);
            shut_tls(u);
            return;
        }
#endif
        lose(u, RG_TIMEOUT, "connect timeout");
    } else if (rg_conn_expire(&u->conn, now) != RG_CONN_FAILED) {
        arm(u);
    } else if (rg_conn_is_offline(&u->conn)) {
        rg_conn_offline(&u->conn); /* calls queued while down timed out: the rest wait on */
        arm(u);
    } else {
        shut_engine(u);
    }
}

/* Sets the timer to the engine's next deadline (and, before the TCP connect completes, the
 * connect timeout's). Once per loop iteration: calls queued during it start their timeouts at
 * the iteration's uv_now. */
static void arm(rg_uv *u) {
    if (u->shutting) return;
    const uint64_t now = uv_now(u->loop);
    uint64_t next = rg_conn_next_deadline(&u->conn, now);
    const uint32_t connect_ms = rg_conn_config_of(&u->conn)->connect_timeout_ms;
    if (u->stream_open && dialing(u) && connect_ms && u->dial_at + connect_ms < next)
        next = u->dial_at + connect_ms;
    if (next == RG_DEADLINE_NONE) {
        uv_timer_stop(&u->timer);
    } else if (next != u->armed || !uv_is_active((uv_handle_t *)&u->timer)) {
        uv_timer_start(&u->timer, expired, next > now ? next - now : 0, 0);
    }
    u->armed = next;
}

static void before_poll(uv_prepare_t *p) {
    rg_uv *u = of_handle((uv_handle_t *)p);
    flush(u);
    arm(u);
}

/* The engine's room, grown when a reply fills the input (cfg.alloc); none (UV_ENOBUFS in got)
 * when it cannot grow. */
static void alloc_in(uv_handle_t *h, size_t suggested, uv_buf_t *buf) {
    rg_uv *u = of_handle(h);
    size_t room;
#ifdef RG_HAVE_TLS
    char *in = u->tls ? rg_tls_read_buf(u->tls, &room) : rg_conn_read_buf(&u->conn, &room);
#else
    char *in = rg_conn_read_buf(&u->conn, &room);
#endif
    (void)suggested;
    *buf = uv_buf_init(in, (unsigned)(room > UINT32_MAX ? UINT32_MAX : room));
}

/* RG_UV_READY once per connection, when the connect sequence has been answered (at once when
 * there is none): the engine's state says it. */
static void tell_ready(rg_uv *u) {
    if (u->ready || !u->connected || rg_conn_state_of(&u->conn) != RG_CONN_READY ||
        rg_conn_replaying(&u->conn) || dialing(u))
        return;
    u->ready = true;
    u->attempt = 0;
    tell(u, RG_UV_READY);
}

#ifdef RG_HAVE_TLS
/* Pumps the filter until what was fed is in the engine; false when the connection went. */
static bool tls_drive(rg_uv *u) {
    do {
        const rg_status st = rg_tls_pump(u->tls, &u->conn);
        if (st == RG_FULL) {
            shut(u, RG_FULL, "reply larger than the input buffer (no cfg.alloc)");
            return false;
        }
        if (st != RG_OK) {
            shut_tls(u);
            return false;
        }
        if (rg_conn_state_of(&u->conn) == RG_CONN_FAILED) {
            shut_engine(u);
            return false;
        }
    } while (rg_tls_want_pump(u->tls));
    return true;
}

/* The engine's output encrypted, and the ciphertext written: at once when the socket takes it,
 * else one uv_write straight from the filter's buffer (it does not move until written). */
static void tls_flush(rg_uv *u) {
    for (;;) {
        if (!tls_drive(u)) return;
        size_t n;
        const char *out = rg_tls_output(u->tls, &n);
        if (!out) return;
        uv_buf_t buf = uv_buf_init((char *)out, (unsigned)(n > UINT32_MAX ? UINT32_MAX : n));
        const int w = uv_try_write(&u->h.stream, &buf, 1);
        if (w > 0) {
            rg_tls_written(u->tls, (size_t)w);
            continue;
        }
        if (w < 0 && w != UV_EAGAIN) {
            shut_uv(u, w);
            return;
        }
        u->writing = buf.len;
        const int st = uv_write(&u->write_req, &u->h.stream, &buf, 1, written);
        if (st < 0) {
            u->writing = 0;
            shut_uv(u, st);
        }
        return;
    }
}

/* Ciphertext came (n > 0) or the stream ended (UV_EOF). */
static void tls_got(rg_uv *u, ssize_t n) {
    if (n == UV_EOF) {
        rg_tls_eof(u->tls);
    } else {
        rg_tls_feed(u->tls, (size_t)n);
    }
    if (!tls_drive(u)) return;
    tell_ready(u);
    flush(u);
}
#endif

static void got(uv_stream_t *s, ssize_t n, const uv_buf_t *buf) {
    rg_uv *u = of_handle((uv_handle_t *)s);
    (void)buf;
#ifdef RG_HAVE_TLS
    if (u->tls && (n > 0 || n == UV_EOF)) {
        tls_got(u, n);
        return;
    }
#endif
    if (n == UV_ENOBUFS && rg_conn_state_of(&u->conn) == RG_CONN_FAILED) {
        shut_engine(u); /* over max_reply, or the allocator refused */
    } else if (n == UV_ENOBUFS) {
        lose(u, RG_FULL, "reply larger than the input buffer (no cfg.alloc)");
    } else if (n == UV_EOF) {
        lose(u, RG_CLOSED, "connection closed by the server");
    } else if (n < 0) {
        shut_uv(u, (int)n);
    } else if (n > 0 && rg_conn_feed(&u->conn, (size_t)n) == RG_CONN_FAILED) {
        shut_engine(u);
    } else {
        tell_ready(u);
        flush(u); /* requests queued by the callbacks */
    }
}

static void connected(uv_connect_t *req, int status) {
    rg_uv *u = req->data;
    if (status == UV_ECANCELED) return; /* the stream closed first */
    if (status < 0) {
        shut_uv(u, status);
        return;
    }
    u->connected = u->ever_connected = true;
    u->err_status = RG_OK;
    u->why[0] = '\0';
    rg_conn_online(&u->conn);
    const int st = uv_read_start(&u->h.stream, alloc_in, got);
    if (st < 0) {
        shut_uv(u, st);
        return;
    }
    tell_ready(u);
    flush(u);
}

/* libuv writes with write() and writev() (uv_try_write too), without MSG_NOSIGNAL: on Linux a
 * write to a peer that has closed raises SIGPIPE, whose default action ends the process, and
 * libuv's own writes from inside uv_run are out of the adapter's reach. So, as libuv applications
 * do (Node.js), the adapter ignores SIGPIPE while it has its default action; the write then fails
 * with EPIPE, which closes the connection like any other error. A handler the application
 * installed, or SIG_IGN, stays as it is (docs/client.md). */
static void ignore_default_sigpipe(void) {
#ifdef SIGPIPE
    struct sigaction now;
    if (sigaction(SIGPIPE, NULL, &now) == 0 && !(now.sa_flags & SA_SIGINFO) &&
        now.sa_handler == SIG_DFL)
        signal(SIGPIPE, SIG_IGN);
#endif
}

/* The engine first (a bad config opens nothing), then the prepare handle; the stream handle is
 * initialized by the caller between the two. */
static rg_status prepare(rg_uv *u, uv_loop_t *loop, const rg_conn_config *cfg,
                         rg_uv_event_fn on_event, void *ud) {
    memset(u, 0, sizeof *u);
    u->loop = loop;
    u->on_event = on_event;
    u->ud = ud;
    u->h.stream.data = u;
    u->prepare.data = u;
    u->connect_req.data = u;
    u->write_req.data = u;
    u->timer.data = u;
    u->retry.data = u;
    u->rng = (uint64_t)(uintptr_t)u ^ uv_hrtime();
    ignore_default_sigpipe();
    return rg_conn_init(&u->conn, cfg);
}

/* The stream handle was initialized: the other handles too, once per connect. */
static void opened(rg_uv *u) {
    u->h.stream.data = u;
    u->stream_open = true;
    u->open++;
    uv_update_time(u->loop); /* the loop may not have run for a while */
    u->dial_at = uv_now(u->loop);
    if (u->handles_open) return;
    uv_prepare_init(u->loop, &u->prepare);
    uv_prepare_start(&u->prepare, before_poll);
    uv_unref((uv_handle_t *)&u->prepare); /* the stream alone keeps the loop alive */
    uv_timer_init(u->loop, &u->timer);
    u->timer.data = u;
    uv_unref((uv_handle_t *)&u->timer);
    uv_timer_init(u->loop, &u->retry); /* referenced while armed: a reconnect keeps the loop */
    u->retry.data = u;
    u->armed = RG_DEADLINE_NONE;
    u->handles_open = true;
    u->open += 3;
}

/* Opens the stream handle and connects to the address or path kept in u. */
static rg_status dial(rg_uv *u) {
    const bool unix_socket = u->path[0] != '\0';
    int st = unix_socket ? uv_pipe_init(u->loop, &u->h.pipe, 0) : uv_tcp_init(u->loop, &u->h.tcp);
    if (st < 0) {
        u->err_status = uv_status(st);
        snprintf(u->why, sizeof u->why, "%s", uv_strerror(st));
        return u->err_status;
    }
    opened(u);
    if (unix_socket) {
        uv_pipe_connect(&u->connect_req, &u->h.pipe, u->path, connected);
        return RG_OK;
    }
    uv_tcp_nodelay(&u->h.tcp, 1);
    st = uv_tcp_connect(&u->connect_req, &u->h.tcp, (struct sockaddr *)&u->addr, connected);
    if (st >= 0) return RG_OK;
    u->err_status = uv_status(st);
    snprintf(u->why, sizeof u->why, "%s", uv_strerror(st));
    /* the first connect's told by the return value: no RG_UV_FAILED, RG_UV_CLOSED follows; a
     * reconnect's is a failed attempt */
    if (!u->ever_connected) shut(u, RG_OK, u->why);
    return u->err_status;
}

/* A bad address or path: nothing opened, nothing follows. */
static rg_status invalid(rg_uv *u, const char *why) {
    memset(u, 0, sizeof *u);
    u->err_status = RG_INVALID;
    snprintf(u->why, sizeof u->why, "%s", why);
    return RG_INVALID;
}

/* The address of host_or_ip:port: numeric at once, else resolved (getaddrinfo). */
static bool resolve(const char *host, int port, struct sockaddr_storage *addr) {
    if (uv_ip4_addr(host, port, (struct sockaddr_in *)addr) == 0 ||
        uv_ip6_addr(host, port, (struct sockaddr_in6 *)addr) == 0)
        return true;
    char service[16];
    snprintf(service, sizeof service, "%d", port);
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *list = NULL;
    if (getaddrinfo(host, service, &hints, &list) != 0 || !list) return false;
    const bool fits = list->ai_addrlen <= sizeof *addr;
    if (fits) memcpy(addr, list->ai_addr, list->ai_addrlen);
    freeaddrinfo(list);
    return fits;
}

/* The filter (and its context, unless the config shares one) for host: RG_OK, or the failure
 * (nothing opened yet: nothing follows). */
static rg_status tls_setup(rg_uv *u, const char *host, const rg_tls_config *tls) {
#ifdef RG_HAVE_TLS
    u->tls_wanted = true;
    u->tls_ctx = tls->ctx;
    if (!u->tls_ctx) {
        rg_tls_report why;
        u->tls_ctx = rg_tls_ctx_new(tls, &why);
        if (!u->tls_ctx) {
            u->err_status = why.status;
            snprintf(u->why, sizeof u->why, "%s", why.msg);
            return why.status;
        }
        u->tls_own_ctx = true;
    }
    u->tls = rg_tls_new(u->tls_ctx, host, tls->server_name);
    if (u->tls) return RG_OK;
    tls_release(u);
    u->err_status = RG_IO;
    snprintf(u->why, sizeof u->why, "tls: out of memory");
    return RG_IO;
#else
    (void)host;
    (void)tls;
    u->err_status = RG_INVALID;
    snprintf(u->why, sizeof u->why, "tls: respgen was built without OpenSSL");
    return RG_INVALID;
#endif
}

rg_status rg_uv_connect(rg_uv *u, uv_loop_t *loop, const char *host_or_ip, int port,
                        const rg_conn_config *cfg, const rg_uv_options *opt,
                        rg_uv_event_fn on_event, void *ud) {
    struct sockaddr_storage addr;
    const bool asks = opt && opt->where;
    if (!asks && !resolve(host_or_ip, port, &addr)) return invalid(u, "cannot resolve host");
    rg_status st = prepare(u, loop, cfg, on_event, ud);
    if (st != RG_OK) return st;
    if (!asks) u->addr = addr;
    if (opt) u->reconnect = opt->reconnect;
    if (opt && opt->tls && (st = tls_setup(u, host_or_ip, opt->tls)) != RG_OK) {
        rg_conn_free(&u->conn); /* nothing was opened: no close gives its memory back */
        return st;
    }
    if (!asks) return dial(u);
    u->where = opt->where;
    u->where_ud = opt->where_ud;
    u->asking = true;
    u->where(u->where_ud, u);
    return RG_OK;
}

rg_status rg_uv_dial_at(rg_uv *u, const char *ip, int port) {
    if (!u->asking || u->shutting) return RG_INVALID;
    if (!resolve(ip, port, &u->addr)) return rg_uv_dial_failed(u, RG_IO, "cannot resolve host");
#ifdef RG_HAVE_TLS
    /* the certificate must name where this connect goes, not where the last one went */
    if (u->tls && rg_tls_retarget(u->tls, ip) != RG_OK)
        return rg_uv_dial_failed(u, rg_tls_error(u->tls).status, rg_tls_error(u->tls).msg.ptr);
#endif
    u->asking = false;
    const rg_status st = dial(u); /* the first connect's failure: dial shuts u */
    if (st != RG_OK && u->ever_connected) lose(u, st, u->why);
    return st;
}

rg_status rg_uv_dial_failed(rg_uv *u, rg_status st, const char *why) {
    if (!u->asking || u->shutting) return RG_INVALID;
    u->asking = false;
    u->err_status = st;
    snprintf(u->why, sizeof u->why, "%s", why);
    if (u->ever_connected) {
        lose(u, st, u->why); /* offline already, no stream open: the next attempt */
        return RG_OK;
    }
    /* The first connect: no handle was opened, so none closes; both events told here, as
     * handle_closed does (the engine's memory back first; a free from either event waits). */
    rg_conn_closed(&u->conn, rg_cstr(u->why));
    u->in_closed = true;
    tell(u, RG_UV_FAILED);
    rg_conn_free(&u->conn);
    tell(u, RG_UV_CLOSED);
    u->in_closed = false;
    if (u->doomed) free(u);
    return RG_OK;
}

rg_status rg_uv_drop(rg_uv *u, const char *why) {
    if (!u->connected || u->shutting || u->open == 0) return RG_INVALID;
    char copy[sizeof u->why];
    snprintf(copy, sizeof copy, "%s", why);
    lose(u, RG_CLOSED, copy);
    return RG_OK;
}

rg_status rg_uv_connect_tcp(rg_uv *u, uv_loop_t *loop, const char *ip, int port,
                            const rg_conn_config *cfg, rg_uv_event_fn on_event, void *ud) {
    struct sockaddr_storage addr;
    if (uv_ip4_addr(ip, port, (struct sockaddr_in *)&addr) != 0 &&
        uv_ip6_addr(ip, port, (struct sockaddr_in6 *)&addr) != 0)
        return invalid(u, "not a numeric IPv4 or IPv6 address");
    return rg_uv_connect(u, loop, ip, port, cfg, NULL, on_event, ud);
}

int rg_uv_tls_cause(const rg_uv *u) {
#ifdef RG_HAVE_TLS
    return u->tls ? (int)rg_tls_cause_of(u->tls) : 0;
#else
    (void)u;
    return 0;
#endif
}

bool rg_uv_tls_reused(const rg_uv *u) {
#ifdef RG_HAVE_TLS
    return u->tls && rg_tls_reused(u->tls);
#else
    (void)u;
    return false;
#endif
}

rg_uv *rg_uv_open(uv_loop_t *loop, const char *host, int port, const rg_uv_options *opt,
                  rg_uv_event_fn on_event, void *ud) {
    rg_uv *const u = calloc(1, sizeof *u);
    if (!u) return NULL;
    rg_conn_config cfg = {.protocol = 3, .connect_timeout_ms = RG_UV_CONNECT_MS};
    if (opt && opt->config) cfg = *opt->config;
    if (!cfg.alloc) cfg.alloc = rg_conn_std_alloc;
    rg_uv_connect(u, loop, host, port, &cfg, opt, on_event, ud); /* a failure: rg_uv_error */
    u->heap = true;
    return u;
}

void rg_uv_free(rg_uv *u) {
    if (!u || !u->heap) return;
    u->doomed = true;
    rg_uv_close(u);
    if (u->open == 0 && !u->in_closed) { /* nothing open: nothing will call back */
        rg_conn_free(&u->conn);
        free(u);
    }
}

rg_status rg_uv_connect_unix(rg_uv *u, uv_loop_t *loop, const char *path, const rg_conn_config *cfg,
                             rg_uv_event_fn on_event, void *ud) {
    if (strlen(path) >= sizeof u->path || !path[0]) return invalid(u, "bad unix socket path");
    const rg_status st = prepare(u, loop, cfg, on_event, ud);
    if (st != RG_OK) return st;
    memcpy(u->path, path, strlen(path) + 1);
    return dial(u);
}

rg_status rg_uv_reconnect(rg_uv *u) {
    if (u->open != 0 || u->doomed) return RG_INVALID; /* not closed yet, or being freed */
    u->writing = 0;
    u->connected = u->ready = u->shutting = false;
    u->attempt = 0;
    u->err_status = RG_OK;
    u->why[0] = '\0';
    rg_conn_output_pin(&u->conn, false);
    const rg_status st = rg_conn_reset(&u->conn);
    if (st != RG_OK) return st;
    if (u->tls_wanted && !u->tls) {
        u->err_status = RG_INVALID;
        snprintf(u->why, sizeof u->why, "tls: closed by rg_uv_close: connect again");
        return RG_INVALID;
    }
#ifdef RG_HAVE_TLS
    if (u->tls && rg_tls_restart(u->tls) != RG_OK) {
        u->err_status = rg_tls_error(u->tls).status;
        snprintf(u->why, sizeof u->why, "%s", rg_tls_error(u->tls).msg.ptr);
        return u->err_status;
    }
#endif
    return dial(u);
}
