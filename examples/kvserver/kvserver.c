/* kvserver: a small single-threaded, epoll-driven in-memory key-value server built on the
 * generated server codec (kv_server.h from kv.lua) and the respgen runtime (rg_req.h, rg_out.h).
 * It exists to show the codec under real load, not to replace Redis.
 *
 *   kvserver [--port N]     listens on 127.0.0.1:N (default 6380)
 *
 * Per connection: one input buffer that rg_req_next reads whole requests from (views, no copies),
 * one output buffer the handlers append exact-size replies to, flushed when the input read so far
 * is processed. A protocol error is answered with Redis' text, then the connection is closed.
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

/* Stop reading from a client whose unsent replies exceed this: it is not reading them. */
#define OUT_HIGH_WATER (64u << 20)
/* Largest argv a request may have (a bigger "*<n>" is Redis' invalid multibulk length). */
#define MAX_ARGS   (1u << 20)
#define READ_CHUNK 16384

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
    uint64_t id;
} conn;

typedef struct server {
    int ep, lfd;
    kv_store store;
    uint64_t next_id;
} server;

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void conn_free(conn *c) {
    close(c->fd);
    free(c->in);
    free(c->argv);
    free(c->out.buf);
    free(c);
}

static bool set_events(server *s, conn *c) {
    struct epoll_event ev = {0};
    ev.data.ptr = c;
    const size_t pending = c->out.len - c->out.sent;
    if (!c->closing && pending < OUT_HIGH_WATER) ev.events |= EPOLLIN;
    if (pending > 0) ev.events |= EPOLLOUT;
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

/* Runs every whole request in the input buffer. Returns false on a protocol error (answered). */
static bool process(server *s, conn *c) {
    kv_ctx ctx = {&s->store, &c->out, &c->proto, &c->closing, now_ms(), c->id};
    while (!c->closing) {
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
        const char *why = rg_req_error(&c->req);
        kv_out_error(&c->out, why, strlen(why));
        c->closing = true;
    }
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
        if (c->closing && c->out.len == c->out.sent) ok = false;
    }
    if (!ok || !set_events(s, c)) {
        epoll_ctl(s->ep, EPOLL_CTL_DEL, c->fd, NULL);
        conn_free(c);
    }
}

static void on_accept(server *s) {
    for (;;) {
        const int fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
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
        const rg_req_limits lim = {MAX_ARGS, RG_REQ_MAX_BULK, RG_REQ_MAX_INLINE};
        rg_req_init(&c->req, &lim);
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
        if (epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &ev) != 0) conn_free(c);
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
        const int n = epoll_wait(s->ep, evs, 256, -1);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return 1;
        for (int i = 0; i < n; i++) {
            if (evs[i].data.ptr == NULL) {
                on_accept(s);
            } else {
                on_conn(s, evs[i].data.ptr, evs[i].events);
            }
        }
    }
}

int main(int argc, char **argv) {
    int port = 6380;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--port") == 0 && i + 1 < argc) {
            port = atoi(argv[++i]);
        } else {
            fprintf(stderr, "usage: kvserver [--port N]\n");
            return 2;
        }
    }
    signal(SIGPIPE, SIG_IGN);
    server s = {0};
    s.lfd = listen_on(port);
    s.ep = epoll_create1(EPOLL_CLOEXEC);
    if (s.lfd < 0 || s.ep < 0 || !kv_store_init(&s.store)) {
        perror("kvserver");
        return 1;
    }
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};
    epoll_ctl(s.ep, EPOLL_CTL_ADD, s.lfd, &ev);
    fprintf(stderr, "kvserver: listening on 127.0.0.1:%d\n", port);
    return run(&s);
}
