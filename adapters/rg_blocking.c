/* respgen adapters: the blocking client (see rg_blocking.h). */
/* The POSIX declarations this file needs (getaddrinfo, struct timeval, clock_gettime), also when
 * a user's build compiles it with -std=c11 and no feature macros: those hide them. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "rg_blocking.h"
#ifdef RG_HAVE_TLS
#include "rg_tls.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* The socket failed (st, what, errno err or 0): it closes; the engine is left alone (a failed
 * reconnect attempt keeps the calls queued while down). */
static rg_status socket_failed(rg_bconn *b, rg_status st, const char *what, int err) {
    char msg[sizeof b->why]; /* what may be in b->why */
    snprintf(msg, sizeof msg, "%s%s%s", what, err ? ": " : "", err ? strerror(err) : "");
    memcpy(b->why, msg, sizeof msg);
    b->err_status = st;
    if (b->fd >= 0) close(b->fd);
    b->fd = -1;
    return st;
}

/* The socket failed: it closes and the engine's calls complete, unless it was being dialled (see
 * dial: its callers decide). */
static rg_status failed(rg_bconn *b, rg_status st, const char *what, int err) {
    socket_failed(b, st, what, err);
    if (!b->dialing) rg_conn_closed(&b->conn, rg_cstr(b->why));
    return st;
}

/* A connect that failed with errno err, in the house's words. */
static rg_status connect_failed(rg_bconn *b, int err) {
    const rg_status st = err == ECONNREFUSED || err == ENOENT ? RG_REFUSED
                         : err == ETIMEDOUT                   ? RG_TIMEOUT
                                                              : RG_IO;
    return socket_failed(b, st, "connect", err);
}

/* The engine failed by itself (a protocol error, a refused handshake, a deadline): the socket
 * goes; rg_bconn_error then tells the engine's error. */
static rg_status engine_failed(rg_bconn *b) {
    close(b->fd);
    b->fd = -1;
    return rg_conn_error(&b->conn).status;
}

rg_error rg_bconn_error(const rg_bconn *b) {
    if (b->err_status != RG_OK) return (rg_error){b->err_status, rg_cstr(b->why), 0};
    return rg_conn_error(&b->conn);
}

/* Waits for events on the socket; 1 ready, 0 timeout, -1 error. */
static int wait_fd(int fd, short events, int ms) {
    struct pollfd p = {fd, events, 0};
    int n;
    do {
        n = poll(&p, 1, ms > 0 ? ms : -1);
    } while (n < 0 && errno == EINTR);
    return n;
}

/* A non-blocking connect bounded by connect_ms. */
static int connect_fd(rg_bconn *b, int family, const struct sockaddr *a, socklen_t len) {
    const int fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    if (connect(fd, a, len) != 0 && errno != EINPROGRESS) goto fail;
    if (wait_fd(fd, POLLOUT, b->connect_ms) != 1) {
        errno = ETIMEDOUT;
        goto fail;
    }
    int err = 0;
    socklen_t elen = sizeof err;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) != 0 || err) {
        errno = err ? err : errno;
        goto fail;
    }
    if (family != AF_UNIX) {
        const int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    /* Blocking from here on, each read and write bounded by io_ms: one system call per read or
     * write, no poll in front of it. */
    const struct timeval tv = {b->io_ms / 1000, (b->io_ms % 1000) * 1000};
    if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0 ||
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0 ||
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) != 0)
        goto fail;
    return fd;
fail:;
    const int saved = errno;
    close(fd);
    errno = saved;
    return -1;
}

/* options.where, when given, says where this connect goes. */
static rg_status ask_where(rg_bconn *b) {
    if (!b->where) return RG_OK;
    char host[sizeof b->host];
    int port = 0;
    host[0] = '\0';
    const rg_error e = b->where(b->where_ud, host, sizeof host, &port);
    if (e.status != RG_OK) {
        char what[sizeof b->why];
        snprintf(what, sizeof what, "%.*s", (int)e.msg.len, e.msg.ptr ? e.msg.ptr : "");
        return socket_failed(b, e.status, what, 0);
    }
    memcpy(b->host, host, sizeof host);
    b->host[sizeof b->host - 1] = '\0';
    b->port = port;
    return RG_OK;
}

static rg_status open_socket(rg_bconn *b) {
    const rg_status st = ask_where(b);
    if (st != RG_OK) return st;
    if (!b->host[0]) {
        struct sockaddr_un a = {.sun_family = AF_UNIX};
        if (strlen(b->path) >= sizeof a.sun_path)
            return socket_failed(b, RG_INVALID, "unix socket path too long", 0);
        memcpy(a.sun_path, b->path, strlen(b->path) + 1);
        b->fd = connect_fd(b, AF_UNIX, (const struct sockaddr *)&a, sizeof a);
        return b->fd < 0 ? connect_failed(b, errno) : RG_OK;
    }
    char port[16];
    snprintf(port, sizeof port, "%d", b->port);
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *list = NULL;
    if (getaddrinfo(b->host, port, &hints, &list) != 0 || !list)
        return socket_failed(b, RG_IO, "cannot resolve host", 0);
    int err = 0;
    for (const struct addrinfo *ai = list; ai && b->fd < 0; ai = ai->ai_next) {
        b->fd = connect_fd(b, ai->ai_family, ai->ai_addr, ai->ai_addrlen);
        if (b->fd < 0) err = errno;
    }
    freeaddrinfo(list);
    return b->fd < 0 ? connect_failed(b, err) : RG_OK;
}

static uint64_t now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}

/* A plain connection that ends before the server said anything, during the connect sequence:
 * what a TLS port does to a plain client (it resets the connection). */
static const char *plain_hint(const rg_bconn *b) {
    return !b->tls_wanted && !b->heard && rg_conn_state_of(&b->conn) == RG_CONN_HANDSHAKE
               ? " before any reply (a TLS port? connect with rg_bconn_options.tls)"
               : "";
}

#ifdef RG_HAVE_TLS
/* The filter failed: its message becomes the connection's. */
static rg_status tls_failed(rg_bconn *b) {
    const rg_error e = rg_tls_error(b->tls);
    return failed(b, e.status, e.msg.ptr, 0);
}

/* Advances the filter (rg_tls_pump): not RG_OK when the filter or the engine failed. */
static rg_status tls_pump(rg_bconn *b) {
    const rg_status st = rg_tls_pump(b->tls, &b->conn);
    if (st == RG_FULL)
        return failed(b, RG_FULL, "reply larger than the input buffer (no cfg.alloc)", 0);
    if (st != RG_OK) return tls_failed(b);
    if (rg_conn_state_of(&b->conn) == RG_CONN_FAILED) return engine_failed(b);
    return RG_OK;
}

/* The socket failed under TLS (st, what, errno err): the server may have said why first, in an
 * alert (TLS 1.3 tells a missing client certificate after the client's side of the handshake
 * ended, and a reset follows the client's first write). What it sent is read and decrypted
 * first: the filter's cause, when it found one, is the failure's. */
static rg_status tls_socket_failed(rg_bconn *b, rg_status st, const char *what, int err) {
    size_t room;
    char *in = rg_tls_read_buf(b->tls, &room);
    const ssize_t r = in ? recv(b->fd, in, room, MSG_DONTWAIT) : -1;
    if (r > 0) {
        rg_tls_feed(b->tls, (size_t)r);
        if (rg_tls_pump(b->tls, &b->conn) != RG_OK && rg_tls_cause_of(b->tls) != RG_TLS_NONE)
            return tls_failed(b);
    }
    return failed(b, st, what, err);
}

/* Sends every byte of ciphertext the filter has (flags MSG_DONTWAIT: what the socket takes). */
static rg_status tls_send(rg_bconn *b, int flags) {
    size_t n;
    const char *out;
    while ((out = rg_tls_output(b->tls, &n)) != NULL) {
        const ssize_t w = send(b->fd, out, n, MSG_NOSIGNAL | flags);
        if (w > 0) {
            rg_tls_written(b->tls, (size_t)w);
        } else if (w < 0 && errno == EINTR) {
            continue;
        } else if (w < 0 && errno == EAGAIN && flags) {
            return RG_OK;
        } else {
            const bool timeout = w < 0 && errno == EAGAIN;
            return tls_socket_failed(b, timeout ? RG_TIMEOUT : RG_IO,
                                     timeout ? "write timeout" : "write", w < 0 ? errno : 0);
        }
    }
    return RG_OK;
}

/* Reads once into the filter and pumps (flags as read_some's). */
static rg_status tls_recv(rg_bconn *b, int flags) {
    if (rg_tls_want_pump(b->tls)) return tls_pump(b); /* what was fed first */
    size_t room;
    char *in = rg_tls_read_buf(b->tls, &room);
    if (!in) return tls_pump(b); /* room comes back once the engine took what was fed */
    const ssize_t r = recv(b->fd, in, room, flags);
    if (r == 0) {
        rg_tls_eof(b->tls);
        return tls_pump(b);
    }
    if (r < 0) {
        if (errno == EINTR || (flags && errno == EAGAIN)) return RG_OK;
        return errno == EAGAIN ? failed(b, RG_TIMEOUT, "read timeout", 0)
                               : tls_socket_failed(b, RG_IO, "read", errno);
    }
    b->heard = true;
    rg_tls_feed(b->tls, (size_t)r);
    return tls_pump(b);
}

/* The handshake, before the engine's first byte, within connect_ms. The name verified follows
 * the host this connect went to: a where hook may have sent it elsewhere than the last. */
static rg_status tls_handshake(rg_bconn *b) {
    if (rg_tls_retarget(b->tls, b->host) != RG_OK) return tls_failed(b);
    const uint64_t end = b->connect_ms > 0 ? now_ms() + (uint64_t)b->connect_ms : 0;
    for (;;) {
        rg_status st = tls_pump(b);
        if (st == RG_OK) st = tls_send(b, 0);
        if (st != RG_OK || rg_tls_ready(b->tls)) return st;
        const uint64_t now = now_ms();
        const int left = end == 0 ? -1 : end > now ? (int)(end - now) : 0;
        const int n = left == 0 ? 0 : wait_fd(b->fd, POLLIN, left);
        if (n < 0) return failed(b, RG_IO, "poll", errno);
        if (n == 0) {
            rg_tls_timeout(b->tls);
            return tls_failed(b);
        }
        if ((st = tls_recv(b, MSG_DONTWAIT)) != RG_OK) return st;
    }
}

/* The filter (and its context, unless the config shares one) for b->host. */
static rg_status tls_setup(rg_bconn *b, const rg_tls_config *tls) {
    b->tls_ctx = tls->ctx;
    if (!b->tls_ctx) {
        rg_tls_report why;
        b->tls_ctx = rg_tls_ctx_new(tls, &why);
        if (!b->tls_ctx) return failed(b, why.status, why.msg, 0);
        b->tls_own_ctx = true;
    }
    b->tls = rg_tls_new(b->tls_ctx, b->host, tls->server_name);
    return b->tls ? RG_OK : failed(b, RG_IO, "tls: out of memory", 0);
}

static void tls_release(rg_bconn *b) {
    rg_tls_free(b->tls);
    if (b->tls_own_ctx) rg_tls_ctx_free(b->tls_ctx);
    b->tls = NULL;
    b->tls_ctx = NULL;
    b->tls_own_ctx = false;
}

int rg_bconn_tls_cause(const rg_bconn *b) {
    return b->tls ? (int)rg_tls_cause_of(b->tls) : 0;
}

/* The server's certificate (or the handshake) was refused: another attempt meets the same
 * certificate, so a reconnect gives up rather than loop on it. */
static bool tls_refused(const rg_bconn *b) {
    return b->tls && rg_tls_cause_status(rg_tls_cause_of(b->tls)) == RG_REFUSED;
}

bool rg_bconn_tls_reused(const rg_bconn *b) {
    return b->tls && rg_tls_reused(b->tls);
}
#else
static rg_status tls_setup(rg_bconn *b, const rg_tls_config *tls) {
    (void)tls;
    return failed(b, RG_INVALID, "tls: respgen was built without OpenSSL", 0);
}

static void tls_release(rg_bconn *b) {
    (void)b;
}

int rg_bconn_tls_cause(const rg_bconn *b) {
    (void)b;
    return 0;
}

static bool tls_refused(const rg_bconn *b) {
    (void)b;
    return false;
}

bool rg_bconn_tls_reused(const rg_bconn *b) {
    (void)b;
    return false;
}
#endif

/* The socket, then the TLS handshake when there is one. A failure leaves the engine alone (a
 * reconnect attempt's queued calls wait for the next attempt). */
static rg_status dial(rg_bconn *b) {
    b->heard = false;
    b->dialing = true;
    rg_status st = open_socket(b);
#ifdef RG_HAVE_TLS
    if (st == RG_OK && b->tls) st = tls_handshake(b);
#endif
    b->dialing = false;
    return st;
}

/* Dials for an engine just set up or reset: a failure fails its calls. */
static rg_status open_or_fail(rg_bconn *b) {
    const rg_status st = dial(b);
    if (st != RG_OK) rg_conn_closed(&b->conn, rg_cstr(b->why));
    return st;
}

static rg_status start(rg_bconn *b, const rg_conn_config *cfg, int connect_ms, int io_ms,
                       const rg_tls_config *tls) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    b->fd = -1;
    b->connect_ms = connect_ms;
    b->io_ms = io_ms;
    b->err_status = RG_OK;
    b->why[0] = '\0';
    b->rng = (uint64_t)(uintptr_t)b ^ ((uint64_t)t.tv_sec << 30) ^ (uint64_t)t.tv_nsec;
    b->retry_at = 0;
    b->attempt = 0;
    b->reconnecting = b->ready_told = b->closed = false;
    b->tls = NULL;
    b->tls_ctx = NULL;
    b->tls_own_ctx = false;
    b->tls_wanted = tls != NULL;
    b->heard = b->dialing = false;
    rg_status st = rg_conn_init(&b->conn, cfg);
    if (st != RG_OK) return st; /* rg_bconn_error: the engine's */
    if (tls && (st = tls_setup(b, tls)) != RG_OK) return st;
    return open_or_fail(b);
}

static void no_reconnects(rg_bconn *b) {
    b->reconnect = (rg_backoff){0, 0, 0};
    b->on_event = NULL;
    b->event_ud = NULL;
    b->where = NULL;
    b->where_ud = NULL;
}

rg_status rg_bconn_connect(rg_bconn *b, const char *host, int port, const rg_conn_config *cfg,
                           const rg_bconn_options *opt) {
    const rg_bconn_options none = {0};
    const rg_bconn_options *o = opt ? opt : &none;
    snprintf(b->host, sizeof b->host, "%s", host);
    b->path[0] = '\0';
    b->port = port;
    b->reconnect = o->reconnect;
    b->on_event = o->on_event;
    b->event_ud = o->event_ud;
    b->where = o->where;
    b->where_ud = o->where_ud;
    const int connect_ms = o->connect_ms == 0  ? RG_BCONN_CONNECT_MS
                           : o->connect_ms < 0 ? 0
                                               : o->connect_ms;
    return start(b, cfg, connect_ms, o->io_ms, o->tls);
}

rg_status rg_bconn_connect_tcp(rg_bconn *b, const char *host, int port, const rg_conn_config *cfg,
                               int connect_ms, int io_ms) {
    const rg_bconn_options opt = {.connect_ms = connect_ms > 0 ? connect_ms : -1, .io_ms = io_ms};
    return rg_bconn_connect(b, host, port, cfg, &opt);
}

rg_bconn *rg_bconn_open(const char *host, int port, const rg_bconn_options *opt) {
    rg_bconn *const b = calloc(1, sizeof *b);
    if (!b) return NULL;
    rg_conn_config cfg = {.protocol = 3};
    if (opt && opt->config) cfg = *opt->config;
    if (!cfg.alloc) cfg.alloc = rg_conn_std_alloc;
    rg_bconn_connect(b, host, port, &cfg, opt); /* a failure: rg_bconn_error */
    return b;
}

void rg_bconn_free(rg_bconn *b) {
    if (!b) return;
    rg_bconn_close(b);
    free(b);
}

rg_status rg_bconn_connect_unix(rg_bconn *b, const char *path, const rg_conn_config *cfg,
                                int connect_ms, int io_ms) {
    b->host[0] = '\0';
    snprintf(b->path, sizeof b->path, "%s", path);
    no_reconnects(b);
    return start(b, cfg, connect_ms, io_ms, NULL);
}

rg_status rg_bconn_reconnect(rg_bconn *b) {
    if (b->fd >= 0) close(b->fd);
    b->fd = -1;
    b->err_status = RG_OK;
    b->why[0] = '\0';
    b->attempt = 0;
    b->reconnecting = b->ready_told = b->closed = false;
    const rg_status st = rg_conn_reset(&b->conn);
    if (st != RG_OK) return st;
    if (b->tls_wanted && !b->tls)
        return failed(b, RG_INVALID, "tls: closed by rg_bconn_close: connect again", 0);
#ifdef RG_HAVE_TLS
    if (b->tls && rg_tls_restart(b->tls) != RG_OK) return tls_failed(b);
#endif
    return open_or_fail(b);
}

void rg_bconn_close(rg_bconn *b) {
    if (b->fd >= 0) close(b->fd);
    b->fd = -1;
    b->closed = true;
    b->reconnecting = false;
    rg_conn_closed(&b->conn, RG_LIT("closed by the client"));
    rg_conn_free(&b->conn); /* a grown input buffer, the registry from cfg.alloc */
    tls_release(b);
}

/* ---- reconnects ------------------------------------------------------------------------------ */

static void tell(rg_bconn *b, rg_reconnect_what what, uint32_t delay_ms) {
    if (!b->on_event) return;
    const rg_reconnect_event ev = {what, rg_bconn_error(b), b->attempt, delay_ms};
    b->on_event(b, &ev, b->event_ud);
}

/* READY once per connection: connect sequence and replayed subscribes answered. */
static void tell_ready(rg_bconn *b) {
    if (b->ready_told || b->fd < 0 || rg_conn_state_of(&b->conn) != RG_CONN_READY ||
        rg_conn_replaying(&b->conn))
        return;
    b->ready_told = true;
    b->attempt = 0;
    tell(b, RG_RECONNECT_READY, 0);
}

/* The attempts ran out, or the server refused the connect sequence: queued calls complete. */
static rg_status give_up(rg_bconn *b, rg_status st) {
    char why[64];
    b->reconnecting = false;
    tell(b, RG_RECONNECT_GAVE_UP, 0);
    snprintf(why, sizeof why, "reconnect: gave up after %u attempts", (unsigned)b->attempt);
    rg_conn_closed(&b->conn, rg_cstr(why));
    b->attempt = 0;
    return st;
}

/* The next attempt after its jittered delay, or giving up. RG_OK, or the give-up's status. */
static rg_status schedule(rg_bconn *b, rg_status st) {
    if (b->attempt >= b->reconnect.attempts) return give_up(b, st);
    const uint32_t delay = rg_backoff_delay(&b->reconnect, b->attempt, rg_backoff_random(&b->rng));
    b->attempt++;
    b->retry_at = now_ms() + delay;
    b->reconnecting = true;
    tell(b, RG_RECONNECT_ATTEMPT, delay);
    return RG_OK;
}

/* After a loss with status st: true when a reconnect follows (the engine offline, the first
 * attempt scheduled). Never after rg_bconn_close or a refused connect sequence. */
static bool lost(rg_bconn *b, rg_status st) {
    if (!b->reconnect.attempts || b->closed) return false;
    if (b->err_status == RG_OK) { /* the engine failed by itself: kept, it starts over below */
        const rg_error e = rg_conn_error(&b->conn);
        if (e.status == RG_REFUSED || e.status == RG_INVALID) {
            if (b->attempt) give_up(b, st); /* a reconnect's handshake refused: no loop */
            return false;
        }
        b->err_status = e.status;
        snprintf(b->why, sizeof b->why, "%.*s", (int)e.msg.len, e.msg.ptr ? e.msg.ptr : "");
    }
    b->ready_told = false;
    /* offline first, so that calls made from the event are queued (or refused) */
    if (rg_conn_offline(&b->conn) != RG_OK) return false; /* the replay does not fit */
    if (b->attempt == 0) tell(b, RG_RECONNECT_DISCONNECTED, 0);
    return schedule(b, st) == RG_OK;
}

/* Sleeps ms, whatever signals come. */
static void nap(uint64_t ms) {
    const uint64_t until = now_ms() + ms;
    for (uint64_t now = now_ms(); now < until; now = now_ms())
        poll(NULL, 0, until - now > INT32_MAX ? INT32_MAX : (int)(until - now));
}

/* While reconnecting: sleeps towards the next attempt (at most budget ms, < 0: no bound), the
 * queued calls' deadlines kept, then makes it. RG_OK (connected, or still to come), or the
 * give-up's status. */
static rg_status attempt(rg_bconn *b, int budget) {
    uint64_t now = now_ms();
    if (now < b->retry_at) {
        uint64_t wait = b->retry_at - now;
        const uint64_t next = rg_conn_next_deadline(&b->conn, now);
        if (next != RG_DEADLINE_NONE)
            wait = next <= now ? 0 : next - now < wait ? next - now : wait;
        if (budget >= 0 && wait > (uint64_t)budget) wait = (uint64_t)budget;
        nap(wait);
        now = now_ms();
        /* queued calls whose deadline passed complete (TIMEOUT, the others CLOSED, unwritten) */
        if (rg_conn_expire(&b->conn, now) == RG_CONN_FAILED) rg_conn_offline(&b->conn);
        if (now < b->retry_at) return RG_OK;
    }
    b->err_status = RG_OK;
    b->why[0] = '\0';
#ifdef RG_HAVE_TLS
    if (b->tls && rg_tls_restart(b->tls) != RG_OK) return give_up(b, tls_failed(b));
#endif
    const rg_status st = dial(b);
    if (st != RG_OK) return tls_refused(b) ? give_up(b, st) : schedule(b, st);
    b->reconnecting = false;
    rg_conn_online(&b->conn);
    return RG_OK;
}

/* Writes the output (flags 0: all of it, blocking up to io_ms a write; MSG_DONTWAIT: what the
 * socket takes now); not RG_OK on a timeout or an error. */
static rg_status write_out(rg_bconn *b, int flags) {
#ifdef RG_HAVE_TLS
    if (b->tls) {
        rg_status st = RG_OK;
        do {
            st = tls_pump(b);
            if (st == RG_OK) st = tls_send(b, flags);
        } while (st == RG_OK && rg_conn_want_write(&b->conn) && !rg_tls_want_send(b->tls));
        return st;
    }
#endif
    size_t n;
    const char *out;
    while ((out = rg_conn_output(&b->conn, &n)) != NULL) {
        const ssize_t w = send(b->fd, out, n, MSG_NOSIGNAL | flags);
        if (w > 0) {
            rg_conn_written(&b->conn, (size_t)w);
        } else if (w < 0 && errno == EINTR) {
            continue;
        } else if (w < 0 && errno == EAGAIN && flags) {
            return RG_OK;
        } else {
            const bool timeout = w < 0 && errno == EAGAIN;
            return failed(b, timeout ? RG_TIMEOUT : RG_IO, timeout ? "write timeout" : "write",
                          w < 0 ? errno : 0);
        }
    }
    return RG_OK;
}

/* Reads once into the engine (flags: 0 to block up to io_ms, MSG_DONTWAIT not to); not RG_OK on
 * EOF, a timeout or an error. */
static rg_status read_some(rg_bconn *b, int flags) {
#ifdef RG_HAVE_TLS
    if (b->tls) return tls_recv(b, flags);
#endif
    size_t room;
    char *in = rg_conn_read_buf(&b->conn, &room); /* grows the input when cfg.alloc is set */
    if (!in && rg_conn_state_of(&b->conn) == RG_CONN_FAILED) return engine_failed(b);
    if (!in) return failed(b, RG_FULL, "reply larger than the input buffer (no cfg.alloc)", 0);
    const ssize_t r = recv(b->fd, in, room, flags);
    char what[sizeof b->why];
    if (r == 0) {
        snprintf(what, sizeof what, "connection closed by the server%s", plain_hint(b));
        return failed(b, RG_CLOSED, what, 0);
    }
    if (r < 0) {
        if (errno == EINTR || (flags && errno == EAGAIN)) return RG_OK;
        if (errno == EAGAIN) return failed(b, RG_TIMEOUT, "read timeout", 0);
        snprintf(what, sizeof what, "read: %s%s", strerror(errno), plain_hint(b));
        return failed(b, RG_IO, what, 0);
    }
    b->heard = true;
    if (rg_conn_feed(&b->conn, (size_t)r) == RG_CONN_FAILED) return engine_failed(b);
    return RG_OK;
}

/* The engine's deadlines passed at now: the socket goes (their late replies would be paired with
 * the wrong calls). RG_TIMEOUT when they did, else RG_OK. */
static rg_status expired(rg_bconn *b, uint64_t now) {
    if (rg_conn_expire(&b->conn, now) != RG_CONN_FAILED) return RG_OK;
    return engine_failed(b);
}

/* With deadlines in use (rg_conn_config.timeout_ms, rg_conn_call_timeout), waits until the socket
 * is readable or the next deadline: one poll in front of the read, only then. RG_OK: read now. */
static rg_status await_deadline(rg_bconn *b) {
    for (;;) {
        const uint64_t now = now_ms(), next = rg_conn_next_deadline(&b->conn, now);
        if (next == RG_DEADLINE_NONE) return RG_OK;
        if (next <= now) return expired(b, now);
#ifdef RG_HAVE_TLS
        if (b->tls && rg_tls_want_pump(b->tls)) return RG_OK; /* decrypt what came first */
#endif
        const uint64_t wait = next - now;
        const bool io_first = b->io_ms > 0 && (uint64_t)b->io_ms < wait;
        const int n = wait_fd(b->fd, POLLIN,
                              io_first           ? b->io_ms
                              : wait > INT32_MAX ? INT32_MAX
                                                 : (int)wait);
        if (n < 0) return failed(b, RG_IO, "poll", errno);
        if (n > 0) return RG_OK;
        if (io_first) return failed(b, RG_TIMEOUT, "read timeout", 0);
    }
}

static bool finished(const rg_bconn *b, uint64_t id) {
    return id ? rg_conn_call_done(&b->conn, id)
              : rg_conn_pending(&b->conn) == 0 && !b->reconnecting;
}

/* Not RG_OK when the connection cannot be used: what rg_bconn_error tells. */
static rg_status usable(const rg_bconn *b) {
    if (b->fd >= 0 && rg_conn_state_of(&b->conn) != RG_CONN_FAILED) return RG_OK;
    const rg_status st = rg_bconn_error(b).status;
    return st != RG_OK ? st : RG_CLOSED;
}

/* One round of I/O towards id on a usable connection: write, wait for a deadline or bytes, read. */
static rg_status io_round(rg_bconn *b, uint64_t id) {
    rg_status st = write_out(b, 0);
    if (st == RG_OK && finished(b, id)) return st; /* a TLS pump in the write read replies */
    if (st == RG_OK) st = await_deadline(b);
    if (st == RG_OK) st = read_some(b, 0);
    return st;
}

rg_status rg_bconn_wait(rg_bconn *b, uint64_t id) {
    rg_status loss = RG_OK;
    while (!finished(b, id)) {
        if (b->reconnecting) {
            const rg_status st = attempt(b, -1);
            if (st != RG_OK) return st; /* gave up */
            continue;
        }
        rg_status st = usable(b);
        if (st != RG_OK) return st; /* down for good: closed, gave up, or no reconnects */
        st = io_round(b, id);
        if (st == RG_OK) tell_ready(b);
        if (st == RG_OK) continue;
        if (!lost(b, st)) return st; /* no reconnects */
        loss = st;
    }
    if (b->fd < 0) return b->reconnecting ? (loss != RG_OK ? loss : RG_CLOSED) : usable(b);
    /* Requests queued by callbacks, or not needed for id, still go out. */
    return write_out(b, 0);
}

/* rg_bconn_poll on a usable connection: at most ms for bytes, then the deadlines. */
static rg_status poll_up(rg_bconn *b, int ms) {
    rg_status st = write_out(b, 0);
    if (st != RG_OK) return st;
#ifdef RG_HAVE_TLS
    const bool inside = b->tls && rg_tls_want_pump(b->tls); /* no poll would tell of it */
#else
    const bool inside = false;
#endif
    const int n = inside ? 1 : wait_fd(b->fd, POLLIN, ms > 0 ? ms : 1);
    if (n < 0) return failed(b, RG_IO, "poll", errno);
    if (n > 0 && (st = read_some(b, MSG_DONTWAIT)) != RG_OK) return st;
    return expired(b, now_ms());
}

rg_status rg_bconn_send_now(rg_bconn *b) {
    const rg_status st = usable(b);
    return st == RG_OK ? write_out(b, MSG_DONTWAIT) : st;
}

rg_status rg_bconn_read_now(rg_bconn *b) {
    const rg_status st = usable(b);
    return st == RG_OK ? read_some(b, MSG_DONTWAIT) : st;
}

bool rg_bconn_want_write(const rg_bconn *b) {
#ifdef RG_HAVE_TLS
    if (b->tls && rg_tls_want_send(b->tls)) return true;
#endif
    return rg_conn_want_write(&b->conn);
}

bool rg_bconn_buffered(const rg_bconn *b) {
#ifdef RG_HAVE_TLS
    return b->tls && b->fd >= 0 && rg_tls_want_pump(b->tls);
#else
    (void)b;
    return false;
#endif
}

rg_status rg_bconn_drop(rg_bconn *b, const char *why) {
    if (usable(b) != RG_OK || b->reconnecting) return RG_INVALID;
    const rg_status st = failed(b, RG_CLOSED, why, 0);
    lost(b, st);
    return RG_OK;
}

rg_status rg_bconn_poll(rg_bconn *b, int ms) {
    if (b->reconnecting) {
        const rg_status st = attempt(b, ms > 0 ? ms : 1);
        if (st != RG_OK || b->reconnecting) return st;
    }
    rg_status st = usable(b);
    if (st != RG_OK) return st; /* down for good */
    st = poll_up(b, ms);
    if (st == RG_OK) tell_ready(b);
    if (st != RG_OK) lost(b, st); /* the loss is told now; the next polls reconnect */
    return st;
}
