/* Test support: see test_redis.h. */
#include "test_redis.h"

#include "rg_enc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { READY_TIMEOUT_MS = 10000, REPLY_TIMEOUT_MS = 10000 };

void test_sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

int test_free_port(void) {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t n = sizeof a;
    int port = -1;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
        getsockname(fd, (struct sockaddr *)&a, &n) == 0)
        port = ntohs(a.sin_port);
    close(fd);
    return port;
}

int test_listen_loopback(int *port) {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t n = sizeof a;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 4) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &n) != 0) {
        close(fd);
        return -1;
    }
    *port = ntohs(a.sin_port);
    return fd;
}

static pid_t spawn_server(const test_redis *s, const char *conf, const char *const *extra) {
    char port[16], log[96];
    snprintf(port, sizeof port, "%d", s->port);
    snprintf(log, sizeof log, "%s/redis.log", s->dir);
    /* a TLS-only server: no plain port at all, the port handed out is the TLS one */
    const char *tls_only[] = {"--port", "0", "--tls-port", port};
    const char *base[] = {"redis-server",
                          "--port",
                          port,
                          "--bind",
                          "127.0.0.1",
                          "--save",
                          "",
                          "--appendonly",
                          "no",
                          "--dir",
                          s->dir,
                          "--logfile",
                          log,
                          "--daemonize",
                          "no"};
    enum { NBASE = sizeof base / sizeof base[0], MAXARGS = 64 };
    const char *argv[MAXARGS];
    size_t n = 0;
    argv[n++] = base[0];
    if (conf) argv[n++] = conf; /* a config file must be the first argument */
    for (size_t i = 0; s->probe && i < 4; i++) argv[n++] = tls_only[i];
    for (size_t i = s->probe ? 3 : 1; i < NBASE; i++) argv[n++] = base[i];
    for (size_t i = 0; extra && extra[i] && n < MAXARGS - 1; i++) argv[n++] = extra[i];
    argv[n] = NULL;
    const pid_t pid = fork();
    if (pid == 0) {
        execvp(argv[0], (char *const *)argv);
        _exit(127);
    }
    return pid;
}

static int wait_ready(test_redis *s) {
    for (int waited = 0; waited < READY_TIMEOUT_MS; waited += 20) {
        int status;
        if (waitpid(s->pid, &status, WNOHANG) == s->pid) {
            s->pid = 0;
            return -1;
        }
        if (s->probe) {
            if (s->probe(s->port, s->probe_ud) == 0) return 0;
            test_sleep_ms(20);
            continue;
        }
        test_conn c;
        if (test_conn_open(&c, s->port) == 0) {
            char out[64];
            const char *ping[] = {"PING"};
            const int ok =
                test_conn_command(&c, out, sizeof out, 1, ping) == 0 && strcmp(out, "+PONG") == 0;
            test_conn_close(&c);
            if (ok) return 0;
        }
        test_sleep_ms(20);
    }
    return -1;
}

int test_redis_start(test_redis *s, const char *const *extra_args) {
    return test_redis_start_conf(s, NULL, extra_args);
}

static int start(test_redis *s, const char *conf, const char *const *extra_args,
                 test_probe_fn probe, void *ud) {
    memset(s, 0, sizeof *s);
    s->probe = probe;
    s->probe_ud = ud;
    snprintf(s->dir, sizeof s->dir, "/tmp/respgen-redis-XXXXXX");
    if (!mkdtemp(s->dir)) {
        perror("test_redis_start: mkdtemp");
        return -1;
    }
    for (int attempt = 0; attempt < 5; attempt++) {
        s->port = test_free_port();
        if (s->port <= 0) continue;
        s->pid = spawn_server(s, conf, extra_args);
        if (s->pid > 0 && wait_ready(s) == 0) return 0;
        test_redis_stop(s);
        if (mkdir(s->dir, 0700) != 0 && errno != EEXIST) break;
    }
    fprintf(stderr, "test_redis_start: redis-server did not come up (is it installed?)\n");
    return -1;
}

int test_redis_start_conf(test_redis *s, const char *conf, const char *const *extra_args) {
    return start(s, conf, extra_args, NULL, NULL);
}

int test_redis_start_tls_only(test_redis *s, const char *conf, const char *const *extra_args,
                              test_probe_fn probe, void *ud) {
    return start(s, conf, extra_args, probe, ud);
}

void test_redis_kill(test_redis *s) {
    if (s->pid <= 0) return;
    kill(s->pid, SIGKILL);
    int status;
    waitpid(s->pid, &status, 0);
    s->pid = 0;
}

int test_redis_restart(test_redis *s, const char *const *extra_args) {
    return test_redis_restart_conf(s, NULL, extra_args);
}

int test_redis_restart_conf(test_redis *s, const char *conf, const char *const *extra_args) {
    test_redis_kill(s);
    s->pid = spawn_server(s, conf, extra_args);
    return s->pid > 0 ? wait_ready(s) : -1;
}

static void remove_dir(const char *dir) {
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "test_redis_stop: could not remove %s\n", dir);
}

void test_redis_stop(test_redis *s) {
    if (s->pid > 0) {
        kill(s->pid, SIGTERM);
        int status;
        for (int waited = 0; waitpid(s->pid, &status, WNOHANG) == 0; waited += 10) {
            if (waited >= 5000) {
                kill(s->pid, SIGKILL);
                waitpid(s->pid, &status, 0);
                break;
            }
            test_sleep_ms(10);
        }
        s->pid = 0;
    }
    if (s->dir[0]) remove_dir(s->dir);
}

/* ---- the connection ------------------------------------------------------------------------ */

int test_conn_open(test_conn *c, int port) {
    memset(c, 0, sizeof *c);
    c->fd = socket(AF_INET, SOCK_STREAM, 0);
    if (c->fd < 0) return -1;
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    const int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(c->fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(c->fd);
        c->fd = -1;
        return -1;
    }
    rg_reader_init(&c->reader, NULL);
    return 0;
}

void test_conn_close(test_conn *c) {
    if (c->fd >= 0) close(c->fd);
    free(c->buf);
    memset(c, 0, sizeof *c);
    c->fd = -1;
}

int test_conn_send(test_conn *c, const char *bytes, size_t len) {
    while (len > 0) {
        const ssize_t n = send(c->fd, bytes, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        bytes += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Appends what the socket has, keeping the unconsumed tail buf[pos..len). */
static int fill(test_conn *c) {
    if (c->pos > 0) {
        memmove(c->buf, c->buf + c->pos, c->len - c->pos);
        c->len -= c->pos;
        c->pos = 0;
    }
    if (c->cap - c->len < 65536) {
        const size_t cap = c->cap ? c->cap * 2 : 131072;
        char *b = realloc(c->buf, cap);
        if (!b) return -1;
        c->buf = b;
        c->cap = cap;
    }
    struct pollfd p = {.fd = c->fd, .events = POLLIN};
    if (poll(&p, 1, REPLY_TIMEOUT_MS) != 1) return -1;
    const ssize_t n = recv(c->fd, c->buf + c->len, c->cap - c->len, 0);
    if (n <= 0) return -1;
    c->len += (size_t)n;
    return 0;
}

/* ---- rendering ------------------------------------------------------------------------------ */

typedef struct text {
    char *out;
    size_t cap, len;
} text;

static void put(text *t, const char *s, size_t n) {
    for (size_t i = 0; i < n && t->len + 1 < t->cap; i++) t->out[t->len++] = s[i];
    t->out[t->len < t->cap ? t->len : t->cap - 1] = '\0';
}

static void puts_(text *t, const char *s) {
    put(t, s, strlen(s));
}

/* Separator before an element: ',' between elements, ':' between a map key and its value. */
typedef struct level {
    uint8_t kind;
    uint64_t index;
} level;

static void separator(text *t, level *stack, uint32_t depth) {
    if (depth == 0) return;
    level *l = &stack[depth - 1];
    const bool pairs = l->kind == RG_EV_MAP || l->kind == RG_EV_ATTR;
    if (l->index > 0) puts_(t, pairs && l->index % 2 ? ":" : ",");
    l->index++;
}

static void open_agg(text *t, level *stack, const rg_event *ev) {
    static const char *const opener[RG_EV_KIND_COUNT] = {
        [RG_EV_ARRAY] = "*[", [RG_EV_MAP] = "%{",  [RG_EV_SET] = "~[",
        [RG_EV_PUSH] = ">[",  [RG_EV_ATTR] = "|{",
    };
    puts_(t, opener[ev->kind]);
    stack[ev->depth] = (level){ev->kind, 0};
}

static void scalar(text *t, const rg_event *ev) {
    char num[64];
    switch (ev->kind) {
    case RG_EV_SIMPLE: puts_(t, "+"); break;
    case RG_EV_ERROR: puts_(t, "-"); break;
    case RG_EV_BIGNUM: puts_(t, "("); break;
    case RG_EV_BLOBERR: puts_(t, "!"); break;
    case RG_EV_VERBATIM:
        puts_(t, "=");
        put(t, ev->fmt.ptr, ev->fmt.len);
        puts_(t, ":");
        break;
    case RG_EV_INT:
        snprintf(num, sizeof num, ":%lld", (long long)ev->u.i);
        puts_(t, num);
        return;
    case RG_EV_DOUBLE: puts_(t, ","); break;
    case RG_EV_BOOL: puts_(t, ev->u.b ? "#t" : "#f"); return;
    case RG_EV_NULL: puts_(t, "(nil)"); return;
    default: break;
    }
    put(t, ev->str.ptr, ev->str.len);
}

static bool render(text *t, level *stack, const rg_event *ev) {
    switch (ev->kind) {
    case RG_EV_ARRAY:
    case RG_EV_MAP:
    case RG_EV_SET:
    case RG_EV_PUSH:
    case RG_EV_ATTR:
        separator(t, stack, ev->depth);
        open_agg(t, stack, ev);
        break;
    case RG_EV_END:
        puts_(t, ev->sub == RG_EV_MAP || ev->sub == RG_EV_ATTR ? "}" : "]");
        /* The annotated value follows without a separator of its own. */
        if (ev->sub == RG_EV_ATTR && ev->depth > 0) stack[ev->depth - 1].index--;
        break;
    case RG_EV_STR_BEGIN: separator(t, stack, ev->depth); break;
    case RG_EV_STR_CHUNK: put(t, ev->str.ptr, ev->str.len); break;
    case RG_EV_STR_END: break;
    default: separator(t, stack, ev->depth); scalar(t, ev);
    }
    return ev->complete;
}

int test_conn_reply(test_conn *c, char *out, size_t cap) {
    text t = {out, cap, 0};
    level stack[RG_MAX_DEPTH];
    if (cap) out[0] = '\0';
    for (;;) {
        rg_event ev;
        rg_status st;
        while ((st = rg_next(&c->reader, c->buf, c->len, &c->pos, &ev)) == RG_OK)
            if (render(&t, stack, &ev)) return 0;
        if (st != RG_NEED_MORE || fill(c) != 0) return -1;
    }
}

int test_render(const char *raw, size_t len, char *out, size_t cap) {
    text t = {out, cap, 0};
    level stack[RG_MAX_DEPTH];
    rg_reader r;
    rg_event ev;
    size_t pos = 0;
    if (cap) out[0] = '\0';
    rg_reader_init(&r, NULL);
    while (rg_next(&r, raw, len, &pos, &ev) == RG_OK)
        if (render(&t, stack, &ev)) return 0;
    return -1;
}

/* Copies buf[*start..pos) after what out holds; fill() moves the unconsumed tail, so the bytes of a
 * reply are saved before every fill. */
static int keep(const test_conn *c, size_t start, char *out, size_t cap, size_t *len) {
    const size_t n = c->pos - start;
    if (n > cap - *len) return -1;
    if (n > 0) memcpy(out + *len, c->buf + start, n); /* buf is NULL before the first read */
    *len += n;
    return 0;
}

int test_conn_reply_raw(test_conn *c, char *out, size_t cap, size_t *len) {
    *len = 0;
    for (size_t start = c->pos;; start = c->pos) {
        rg_event ev;
        rg_status st;
        while ((st = rg_next(&c->reader, c->buf, c->len, &c->pos, &ev)) == RG_OK)
            if (ev.complete) return keep(c, start, out, cap, len);
        if (st != RG_NEED_MORE || keep(c, start, out, cap, len) != 0 || fill(c) != 0) return -1;
    }
}

/* Sends argv as one multibulk request. */
static int send_command(test_conn *c, size_t argc, const char *const *argv) {
    rg_view views[64];
    if (argc > 64) return -1;
    for (size_t i = 0; i < argc; i++) views[i] = (rg_view){argv[i], strlen(argv[i])};
    const size_t size = rg_argv_size(argc, views);
    char *req = malloc(size);
    if (!req) return -1;
    const bool sent =
        rg_argv_encode(req, size, argc, views) == size && test_conn_send(c, req, size) == 0;
    free(req);
    return sent ? 0 : -1;
}

int test_conn_command(test_conn *c, char *out, size_t cap, size_t argc, const char *const *argv) {
    return send_command(c, argc, argv) == 0 ? test_conn_reply(c, out, cap) : -1;
}

int test_conn_command_raw(test_conn *c, char *out, size_t cap, size_t *len, size_t argc,
                          const char *const *argv) {
    return send_command(c, argc, argv) == 0 ? test_conn_reply_raw(c, out, cap, len) : -1;
}

/* ---- fixtures ------------------------------------------------------------------------------- */

int test_fixture_start(void **state, const char *const *extra_args) {
    test_fixture *f = calloc(1, sizeof *f);
    if (!f) return -1;
    f->conn.fd = -1;
    if (test_redis_start(&f->server, extra_args) != 0 ||
        test_conn_open(&f->conn, f->server.port) != 0) {
        test_redis_stop(&f->server);
        free(f);
        return -1;
    }
    *state = f;
    return 0;
}

int test_fixture_setup(void **state) {
    return test_fixture_start(state, NULL);
}

int test_fixture_teardown(void **state) {
    test_fixture *f = *state;
    test_conn_close(&f->conn);
    test_redis_stop(&f->server);
    free(f);
    return 0;
}
