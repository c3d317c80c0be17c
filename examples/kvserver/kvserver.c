/* kvserver: a small single-threaded, epoll-driven in-memory key-value server built on the
 * generated server codec (kv_server.h from kv.lua) and the respgen runtime (rg_req.h, rg_out.h).
 * It exists to show the codec under real load, not to replace Redis. It keeps nothing across
 * restarts. Flags: see usage() and examples/kvserver/README.md.
 *
 * Per connection: one input buffer that rg_req_next reads whole requests from (views, no copies),
 * one output buffer the handlers append exact-size replies to, flushed when the input read so far
 * is processed. A protocol error is answered with Redis' text, then the connection is closed.
 *
 * Hostile or broken clients (docs/security.md): requests are bounded by rg_req's limits; a client
 * whose unsent replies reach the output limit is not served (nor read) until they drain; idle
 * clients are closed after --timeout; when descriptors run out, new clients get Redis' "max number
 * of clients reached" through a reserved descriptor, or accepting pauses, never spins.
 */
#include "commands.h"
#include "rg_req.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* Default output limit (--max-output-buffer): a client whose unsent replies reach it is neither
 * read nor served until they drain, so one reply past it is the most it can hold. */
#define DEFAULT_OUT_LIMIT_MIB 64
/* Largest argv a request may have (a bigger "*<n>" is Redis' invalid multibulk length). */
#define MAX_ARGS   (1u << 20)
#define READ_CHUNK 16384
/* While accepting is paused (no descriptor left, not even the reserve), retry this often. */
#define ACCEPT_RETRY_MS 100
/* How often idle clients are looked for when --timeout is set. */
#define IDLE_SCAN_MS 250

static const char max_clients_error[] = "-ERR max number of clients reached\r\n";

typedef struct conn {
    int fd;
    char *in; /* owned */
    size_t in_len, in_cap, in_pos;
    rg_req req;
    rg_view *argv; /* owned */
    size_t argv_cap;
    kv_out out;
    int proto;
    bool closing; /* close once out is sent */
    bool held;    /* requests wait in `in` for the replies before them to drain */
    uint64_t id;
    int64_t active_ms;        /* monotonic time of the last byte read or written */
    struct conn *prev, *next; /* the server's list of connections, for the idle scan */
} conn;

typedef struct server_config {
    int port;
    size_t out_limit; /* bytes of unsent replies a client may have before it is paused */
    int64_t idle_ms;  /* close clients idle this long; 0: never */
} server_config;

typedef struct server {
    int ep, lfd;
    int reserve_fd; /* held to be given up when accept fails with EMFILE; -1: none */
    bool accept_paused;
    int64_t accept_retry_ms, idle_scan_ms;
    server_config cfg;
    conn *conns; /* owned, every open connection */
    kv_store store;
    uint64_t next_id;
} server;

static int64_t clock_ms(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t now_ms(void) {
    return clock_ms(CLOCK_REALTIME);
}

static int64_t mono_ms(void) {
    return clock_ms(CLOCK_MONOTONIC);
}

static size_t pending_out(const conn *c) {
    return c->out.len - c->out.sent;
}

static void resume_accept(server *s);

/* Unlinks and frees c; a descriptor is free again, so a paused accept may go on. */
static void conn_close(server *s, conn *c) {
    epoll_ctl(s->ep, EPOLL_CTL_DEL, c->fd, NULL);
    if (c->prev)
        c->prev->next = c->next;
    else
        s->conns = c->next;
    if (c->next) c->next->prev = c->prev;
    close(c->fd);
    free(c->in);
    free(c->argv);
    free(c->out.buf);
    free(c);
    if (s->accept_paused) resume_accept(s);
}

static bool set_events(server *s, conn *c) {
    struct epoll_event ev = {0};
    ev.data.ptr = c;
    const size_t pending = pending_out(c);
    if (!c->closing && pending < s->cfg.out_limit) ev.events |= EPOLLIN;
    /* held requests run when the socket takes more: EPOLLOUT, which an empty one gives at once */
    if (pending > 0 || c->held) ev.events |= EPOLLOUT;
    return epoll_ctl(s->ep, EPOLL_CTL_MOD, c->fd, &ev) == 0;
}

/* Sends what it can. Returns false when the connection is to be closed. */
static bool flush_out(conn *c) {
    kv_out *o = &c->out;
    while (o->sent < o->len) {
        const ssize_t n = write(c->fd, o->buf + o->sent, o->len - o->sent);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
        if (n <= 0) return false;
        o->sent += (size_t)n;
        c->active_ms = mono_ms();
    }
    o->len = o->sent = 0;
    return !c->closing;
}

static bool grow_argv(conn *c, size_t need) {
    rg_view *a = realloc(c->argv, need * sizeof *a);
    if (!a) return false;
    c->argv = a;
    c->argv_cap = need;
    return true;
}

/* Runs the whole requests in the input buffer while the client's unsent replies stay under the
 * output limit; the rest waits for them to drain. Returns false on a protocol error (answered). */
static bool process(server *s, conn *c) {
    kv_ctx ctx = {&s->store, &c->out, &c->proto, &c->closing, now_ms(), c->id};
    while (!c->closing && pending_out(c) < s->cfg.out_limit) {
        size_t argc;
        const rg_status st =
            rg_req_next(&c->req, c->in, c->in_len, &c->in_pos, c->argv, c->argv_cap, &argc);
        if (st == RG_OK) {
            kv_execute(&ctx, argc, c->argv);
            continue;
        }
        if (st == RG_NEED_MORE && argc > c->argv_cap) {
            if (!grow_argv(c, argc)) return false;
            continue;
        }
        if (st == RG_NEED_MORE) break;
        const rg_error why = rg_req_error(&c->req);
        kv_out_error(&c->out, why.msg.ptr, why.msg.len);
        c->closing = true;
    }
    c->held = !c->closing && pending_out(c) >= s->cfg.out_limit && c->in_pos < c->in_len;
    /* Keep only the unread tail, at the front: views of pending requests are offsets. */
    memmove(c->in, c->in + c->in_pos, c->in_len - c->in_pos);
    c->in_len -= c->in_pos;
    c->in_pos = 0;
    return !c->out.failed;
}

/* Reads what is available. Returns false on EOF or error. */
static bool read_in(conn *c) {
    if (c->in_cap - c->in_len < READ_CHUNK) {
        size_t cap = c->in_cap ? c->in_cap * 2 : 2 * READ_CHUNK;
        char *b = realloc(c->in, cap);
        if (!b) return false;
        c->in = b;
        c->in_cap = cap;
    }
    for (;;) {
        const ssize_t n = read(c->fd, c->in + c->in_len, c->in_cap - c->in_len);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
        if (n <= 0) return false;
        c->in_len += (size_t)n;
        c->active_ms = mono_ms();
        return true;
    }
}

static void on_conn(server *s, conn *c, uint32_t events) {
    bool ok = true;
    if (events & (EPOLLIN | EPOLLHUP | EPOLLERR)) ok = read_in(c) && process(s, c);
    if (ok || c->out.len > c->out.sent) {
        /* even a client that hung up gets the replies to what it sent, if it still reads */
        const bool open = flush_out(c);
        ok = ok && open;
        /* requests held back by the output limit run once the replies before them are sent */
        if (ok && c->held && pending_out(c) < s->cfg.out_limit) ok = process(s, c) && flush_out(c);
        if (c->closing && c->out.len == c->out.sent) ok = false;
    }
    if (!ok || !set_events(s, c)) conn_close(s, c);
}

static void pause_accept(server *s) {
    struct epoll_event ev = {.events = 0, .data.ptr = NULL};
    epoll_ctl(s->ep, EPOLL_CTL_MOD, s->lfd, &ev);
    s->accept_paused = true;
    s->accept_retry_ms = mono_ms() + ACCEPT_RETRY_MS;
}

static void resume_accept(server *s) {
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};
    epoll_ctl(s->ep, EPOLL_CTL_MOD, s->lfd, &ev);
    s->accept_paused = false;
}

/* Out of descriptors (EMFILE/ENFILE) with clients waiting: the listening socket stays readable,
 * so returning would spin. Gives up the reserved descriptor to accept one client, tells it so
 * and closes it, as Redis does at maxclients. Returns false when that cannot be done, and
 * accepting pauses instead until a connection closes or ACCEPT_RETRY_MS pass. */
static bool refuse_one(server *s) {
    if (s->reserve_fd < 0) {
        s->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (s->reserve_fd < 0) {
            pause_accept(s);
            return false;
        }
    }
    close(s->reserve_fd);
    const int fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd >= 0) {
        /* best effort: a client that cannot take 36 bytes now learns it from the close */
        const ssize_t n = write(fd, max_clients_error, sizeof max_clients_error - 1);
        (void)n;
        close(fd);
    }
    s->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (fd < 0 && errno != EAGAIN && errno != EWOULDBLOCK) pause_accept(s);
    return fd >= 0;
}

static void on_accept(server *s) {
    for (;;) {
        const int fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0 && (errno == EINTR || errno == ECONNABORTED)) continue;
        if (fd < 0 && (errno == EMFILE || errno == ENFILE)) {
            if (refuse_one(s)) continue;
            return;
        }
        if (fd < 0) return;
        const int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        conn *c = calloc(1, sizeof *c);
        if (!c || !grow_argv(c, 16)) {
            free(c);
            close(fd);
            continue;
        }
        c->fd = fd;
        c->proto = 2;
        c->id = ++s->next_id;
        c->active_ms = mono_ms();
        c->next = s->conns;
        if (s->conns) s->conns->prev = c;
        s->conns = c;
        const rg_req_limits lim = {MAX_ARGS, RG_REQ_MAX_BULK, RG_REQ_MAX_INLINE};
        rg_req_init(&c->req, &lim);
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
        if (epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &ev) != 0) conn_close(s, c);
    }
}

/* Closes the clients that neither sent nor took a byte for --timeout, as Redis' `timeout`. */
static void close_idle(server *s, int64_t now) {
    for (conn *c = s->conns, *next; c; c = next) {
        next = c->next;
        if (now - c->active_ms >= s->cfg.idle_ms) conn_close(s, c);
    }
}

/* What epoll_wait may sleep: until the next timer (paused accept, idle scan), or forever. */
static int wait_ms(const server *s, int64_t now) {
    int64_t until = -1;
    if (s->accept_paused) until = s->accept_retry_ms;
    if (s->cfg.idle_ms > 0 && (until < 0 || s->idle_scan_ms < until)) until = s->idle_scan_ms;
    if (until < 0) return -1;
    return until <= now ? 0 : (int)(until - now);
}

static void run_timers(server *s) {
    const int64_t now = mono_ms();
    if (s->accept_paused && now >= s->accept_retry_ms) {
        resume_accept(s);
        on_accept(s);
    }
    if (s->cfg.idle_ms > 0 && now >= s->idle_scan_ms) {
        close_idle(s, now);
        s->idle_scan_ms = now + IDLE_SCAN_MS;
    }
}

static int listen_on(int port) {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    const int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 511) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static int run(server *s) {
    struct epoll_event evs[256];
    for (;;) {
        const int n = epoll_wait(s->ep, evs, 256, wait_ms(s, mono_ms()));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return 1;
        run_timers(s);
        for (int i = 0; i < n; i++) {
            if (evs[i].data.ptr == NULL) {
                if (!s->accept_paused) on_accept(s);
            } else {
                on_conn(s, evs[i].data.ptr, evs[i].events);
            }
        }
    }
}

static int usage(void) {
    fputs("usage: kvserver [--port N] [--timeout SECONDS] [--max-output-buffer MIB]\n"
          "  --port N                listen on 127.0.0.1:N (default 6380)\n"
          "  --timeout SECONDS       close clients idle that long (default 0: never)\n"
          "  --max-output-buffer MIB stop serving a client whose unsent replies reach this\n"
          "                          until it reads them (default 64)\n"
          "Everything is in memory: nothing survives a restart.\n",
          stderr);
    return 2;
}

/* A decimal number from min to max, or -1. */
static long long number_arg(const char *s, long long min, long long max) {
    char *end;
    errno = 0;
    const long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max) return -1;
    return v;
}

static bool parse_args(int argc, char **argv, server_config *cfg) {
    for (int i = 1; i < argc; i += 2) { /* each option and its value */
        const long long v = i + 1 < argc ? number_arg(argv[i + 1], 0, 1 << 30) : -1;
        if (v < 0) return false;
        if (strcmp(argv[i], "--port") == 0 && v > 0 && v < 65536) {
            cfg->port = (int)v;
        } else if (strcmp(argv[i], "--timeout") == 0) {
            cfg->idle_ms = (int64_t)v * 1000;
        } else if (strcmp(argv[i], "--max-output-buffer") == 0 && v > 0) {
            cfg->out_limit = (size_t)v << 20;
        } else {
            return false;
        }
    }
    return true;
}

int main(int argc, char **argv) {
    server s = {.reserve_fd = -1,
                .cfg = {.port = 6380, .out_limit = (size_t)DEFAULT_OUT_LIMIT_MIB << 20}};
    if (!parse_args(argc, argv, &s.cfg)) return usage();
    signal(SIGPIPE, SIG_IGN);
    s.lfd = listen_on(s.cfg.port);
    s.ep = epoll_create1(EPOLL_CLOEXEC);
    s.reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (s.lfd < 0 || s.ep < 0 || s.reserve_fd < 0 || !kv_store_init(&s.store)) {
        perror("kvserver");
        return 1;
    }
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};
    epoll_ctl(s.ep, EPOLL_CTL_ADD, s.lfd, &ev);
    s.idle_scan_ms = mono_ms() + IDLE_SCAN_MS;
    fprintf(stderr, "kvserver: listening on 127.0.0.1:%d\n", s.cfg.port);
    return run(&s);
}
