/* respgen adapters: the blocking client (see rg_blocking.h). */
/* The POSIX declarations this file needs (getaddrinfo, struct timeval, clock_gettime), also when
 * a user's build compiles it with -std=c11 and no feature macros: those hide them. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "rg_blocking.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static int failed(rg_bconn *b, const char *what, int err) {
    snprintf(b->why, sizeof b->why, "%s%s%s", what, err ? ": " : "", err ? strerror(err) : "");
    if (b->fd >= 0) close(b->fd);
    b->fd = -1;
    rg_conn_closed(&b->conn, b->why);
    return -1;
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

static int open_socket(rg_bconn *b) {
    if (!b->host[0]) {
        struct sockaddr_un a = {.sun_family = AF_UNIX};
        if (strlen(b->path) >= sizeof a.sun_path) return failed(b, "unix socket path too long", 0);
        memcpy(a.sun_path, b->path, strlen(b->path) + 1);
        b->fd = connect_fd(b, AF_UNIX, (const struct sockaddr *)&a, sizeof a);
        return b->fd < 0 ? failed(b, "connect", errno) : 0;
    }
    char port[16];
    snprintf(port, sizeof port, "%d", b->port);
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *list = NULL;
    if (getaddrinfo(b->host, port, &hints, &list) != 0 || !list)
        return failed(b, "cannot resolve host", 0);
    int err = 0;
    for (const struct addrinfo *ai = list; ai && b->fd < 0; ai = ai->ai_next) {
        b->fd = connect_fd(b, ai->ai_family, ai->ai_addr, ai->ai_addrlen);
        if (b->fd < 0) err = errno;
    }
    freeaddrinfo(list);
    return b->fd < 0 ? failed(b, "connect", err) : 0;
}

static int start(rg_bconn *b, const rg_conn_config *cfg, int connect_ms, int io_ms) {
    b->fd = -1;
    b->connect_ms = connect_ms;
    b->io_ms = io_ms;
    b->why[0] = '\0';
    if (rg_conn_init(&b->conn, cfg) != 0) return failed(b, "bad configuration", 0);
    return open_socket(b);
}

int rg_bconn_connect_tcp(rg_bconn *b, const char *host, int port, const rg_conn_config *cfg,
                         int connect_ms, int io_ms) {
    snprintf(b->host, sizeof b->host, "%s", host);
    b->path[0] = '\0';
    b->port = port;
    return start(b, cfg, connect_ms, io_ms);
}

int rg_bconn_connect_unix(rg_bconn *b, const char *path, const rg_conn_config *cfg, int connect_ms,
                          int io_ms) {
    b->host[0] = '\0';
    snprintf(b->path, sizeof b->path, "%s", path);
    return start(b, cfg, connect_ms, io_ms);
}

int rg_bconn_reconnect(rg_bconn *b) {
    if (b->fd >= 0) close(b->fd);
    b->fd = -1;
    if (rg_conn_reset(&b->conn) != 0) return failed(b, "bad configuration", 0);
    return open_socket(b);
}

void rg_bconn_close(rg_bconn *b) {
    if (b->fd >= 0) close(b->fd);
    b->fd = -1;
    rg_conn_closed(&b->conn, "closed by the client");
}

/* Writes the whole output; -1 on a timeout or an error. */
static int write_all(rg_bconn *b) {
    size_t n;
    const char *out;
    while ((out = rg_conn_output(&b->conn, &n)) != NULL) {
        const ssize_t w = send(b->fd, out, n, MSG_NOSIGNAL);
        if (w > 0) {
            rg_conn_written(&b->conn, (size_t)w);
        } else if (w < 0 && errno == EINTR) {
            continue;
        } else {
            return failed(b, w < 0 && errno == EAGAIN ? "write timeout" : "write",
                          w < 0 ? errno : 0);
        }
    }
    return 0;
}

/* Reads once into the engine (flags: 0 to block up to io_ms, MSG_DONTWAIT not to); -1 on EOF, a
 * timeout or an error. */
static int read_some(rg_bconn *b, int flags) {
    size_t room;
    char *in = rg_conn_read_buf(&b->conn, &room);
    if (!in) return failed(b, "reply larger than the input buffer", 0);
    const ssize_t r = recv(b->fd, in, room, flags);
    if (r == 0) return failed(b, "connection closed by the server", 0);
    if (r < 0) {
        if (errno == EINTR || (flags && errno == EAGAIN)) return 0;
        return errno == EAGAIN ? failed(b, "timeout", 0) : failed(b, "read", errno);
    }
    if (rg_conn_feed(&b->conn, (size_t)r) == RG_CONN_FAILED) {
        const rg_view e = rg_conn_error(&b->conn, NULL);
        snprintf(b->why, sizeof b->why, "%.*s", (int)e.len, e.ptr ? e.ptr : "");
        close(b->fd);
        b->fd = -1;
        return -1;
    }
    return 0;
}

static uint64_t now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}

/* The engine's deadlines passed at now: the socket goes (their late replies would be paired with
 * the wrong calls). -1 when they did, else 0. */
static int expired(rg_bconn *b, uint64_t now) {
    if (rg_conn_expire(&b->conn, now) != RG_CONN_FAILED) return 0;
    const rg_view e = rg_conn_error(&b->conn, NULL);
    snprintf(b->why, sizeof b->why, "%.*s", (int)e.len, e.ptr ? e.ptr : "");
    close(b->fd);
    b->fd = -1;
    return -1;
}

/* With deadlines in use (rg_conn_config.timeout_ms, rg_conn_call_timeout), waits until the socket
 * is readable or the next deadline: one poll in front of the read, only then. 0: read now. */
static int await_deadline(rg_bconn *b) {
    for (;;) {
        const uint64_t now = now_ms(), next = rg_conn_next_deadline(&b->conn, now);
        if (next == RG_DEADLINE_NONE) return 0;
        if (next <= now) return expired(b, now);
        const uint64_t wait = next - now;
        const bool io_first = b->io_ms > 0 && (uint64_t)b->io_ms < wait;
        const int n = wait_fd(b->fd, POLLIN,
                              io_first           ? b->io_ms
                              : wait > INT32_MAX ? INT32_MAX
                                                 : (int)wait);
        if (n < 0) return failed(b, "poll", errno);
        if (n > 0) return 0;
        if (io_first) return failed(b, "timeout", 0);
    }
}

static bool finished(const rg_bconn *b, uint64_t id) {
    return id ? rg_conn_call_done(&b->conn, id) : rg_conn_pending(&b->conn) == 0;
}

int rg_bconn_wait(rg_bconn *b, uint64_t id) {
    while (!finished(b, id)) {
        if (b->fd < 0 || b->conn.state == RG_CONN_FAILED) {
            if (!b->why[0]) snprintf(b->why, sizeof b->why, "connection failed");
            return -1;
        }
        if (write_all(b) != 0 || await_deadline(b) != 0 || read_some(b, 0) != 0) return -1;
    }
    /* Requests queued by callbacks, or not needed for id, still go out. */
    return b->fd >= 0 ? write_all(b) : 0;
}

int rg_bconn_poll(rg_bconn *b, int ms) {
    if (b->fd < 0 || write_all(b) != 0) return -1;
    const int n = wait_fd(b->fd, POLLIN, ms > 0 ? ms : 1);
    if (n < 0) return failed(b, "poll", errno);
    if (n > 0 && read_some(b, MSG_DONTWAIT) != 0) return -1;
    return expired(b, now_ms());
}
