/* examples/kvserver against exhaustion (docs/security.md), no redis-server needed:
 * - descriptors: run with RLIMIT_NOFILE 32 and 60 clients; every client gets an answer (PONG or
 *   Redis' "max number of clients reached"), the idle server burns no CPU (it spun before), and
 *   once clients close, new ones are served;
 * - --timeout: a silent client is closed, a talking one is not;
 * - --max-output-buffer: a client pipelining GETs of a big value without reading its replies
 *   makes the server hold about the limit, not every reply; all replies still arrive, in order. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#define PING_REPLY  "+PONG\r\n"
#define REFUSED     "-ERR max number of clients reached\r\n"
#define MAX_CLIENTS 60
#define SERVER_FDS  32
#define BIG_VALUE   (256u << 10)
#define PIPELINED   400

typedef struct kv {
    pid_t pid;
    int port;
} kv;

static void sleep_ms(long ms) {
    const struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static int free_port(void) {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    const int ok = bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
                   getsockname(fd, (struct sockaddr *)&a, &len) == 0;
    close(fd);
    return ok ? ntohs(a.sin_port) : -1;
}

/* A connected socket to the port, or -1. */
static int dial(int port) {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0) return fd;
    if (fd >= 0) close(fd);
    return -1;
}

static void send_all(int fd, const char *p, size_t n) {
    while (n > 0) {
        const ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        assert_true(w > 0);
        p += w;
        n -= (size_t)w;
    }
}

/* Reads up to cap bytes until want have come, the peer closes or ms pass; returns the count,
 * or -1 when nothing came at all before the time ran out. */
static ssize_t recv_for(int fd, char *buf, size_t cap, size_t want, int ms) {
    size_t got = 0;
    struct pollfd p = {.fd = fd, .events = POLLIN};
    while (got < want && poll(&p, 1, ms) == 1) {
        const ssize_t n = recv(fd, buf + got, cap - got, 0);
        if (n <= 0) return (ssize_t)got;
        got += (size_t)n;
    }
    return got == 0 && want > 0 ? -1 : (ssize_t)got;
}

/* Starts kvserver with extra arguments (NULL-terminated) and, if nofile > 0, that descriptor
 * limit; waits until it accepts. */
static void start(kv *k, rlim_t nofile, const char *a1, const char *a2) {
    k->port = free_port();
    assert_true(k->port > 0);
    char port[16];
    snprintf(port, sizeof port, "%d", k->port);
    k->pid = fork();
    assert_true(k->pid >= 0);
    if (k->pid == 0) {
        const struct rlimit lim = {nofile, nofile};
        if (nofile > 0 && setrlimit(RLIMIT_NOFILE, &lim) != 0) _exit(126);
        prctl(PR_SET_PDEATHSIG, SIGTERM); /* a test killed by its timeout takes the server along */
        execl(KVSERVER_PATH, "kvserver", "--port", port, a1, a2, (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 1000; i++) { /* up to 10 s on a loaded machine */
        const int fd = dial(k->port);
        if (fd >= 0) {
            close(fd);
            return;
        }
        sleep_ms(10);
    }
    fail_msg("kvserver did not start");
}

static void stop(kv *k) {
    kill(k->pid, SIGTERM);
    waitpid(k->pid, NULL, 0);
}

/* User + system CPU time of the process, in clock ticks (/proc/PID/stat fields 14 and 15). */
static long cpu_ticks(pid_t pid) {
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    const size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')');
    assert_non_null(p);
    long utime = 0, stime = 0;
    assert_int_equal(
        sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %ld %ld", &utime, &stime), 2);
    return utime + stime;
}

/* Resident memory of the process in KiB (/proc/PID/status VmRSS). */
static long rss_kib(pid_t pid) {
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    long kib = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld", &kib) == 1) break;
    fclose(f);
    return kib;
}

/* PING on fd: 1 for PONG, 0 for the refusal, -1 for anything else (silence included). */
static int ping(int fd) {
    send_all(fd, "PING\r\n", 6);
    char buf[64];
    const ssize_t n = recv_for(fd, buf, sizeof buf, sizeof PING_REPLY - 1, 5000);
    if (n == (ssize_t)sizeof PING_REPLY - 1 && memcmp(buf, PING_REPLY, (size_t)n) == 0) return 1;
    if (n > 0 && (size_t)n <= sizeof REFUSED - 1 && memcmp(buf, REFUSED, (size_t)n) == 0) return 0;
    return -1;
}

static void descriptor_exhaustion(void **state) {
    (void)state;
    kv k;
    start(&k, SERVER_FDS, NULL, NULL);
    int fds[MAX_CLIENTS];
    for (int i = 0; i < MAX_CLIENTS; i++) assert_true((fds[i] = dial(k.port)) >= 0);
    int served = 0, refused = 0;
    for (int i = 0; i < MAX_CLIENTS; i++) {
        const int r = ping(fds[i]);
        assert_int_not_equal(r, -1); /* every client hears something: nobody hangs */
        served += r == 1;
        refused += r == 0;
    }
    print_message("served %d, refused %d\n", served, refused);
    assert_true(served > 0 && served < SERVER_FDS);
    assert_int_equal(served + refused, MAX_CLIENTS);
    /* Idle, still out of descriptors: it must sleep, not spin (1.93 s of CPU in 4 s before). */
    const long before = cpu_ticks(k.pid);
    sleep_ms(1000);
    const long spent = cpu_ticks(k.pid) - before;
    print_message("CPU while idle and exhausted: %ld ticks in 1 s\n", spent);
    assert_true(spent <= 10);
    for (int i = 0; i < MAX_CLIENTS; i++) close(fds[i]);
    sleep_ms(200);
    for (int i = 0; i < 4; i++) {
        const int fd = dial(k.port);
        assert_true(fd >= 0);
        assert_int_equal(ping(fd), 1);
        close(fd);
    }
    stop(&k);
}

static void idle_clients_are_closed(void **state) {
    (void)state;
    kv k;
    start(&k, 0, "--timeout", "1");
    const int silent = dial(k.port), talking = dial(k.port);
    assert_true(silent >= 0 && talking >= 0);
    for (int i = 0; i < 8; i++) { /* 2.4 s, well past the timeout */
        assert_int_equal(ping(talking), 1);
        sleep_ms(300);
    }
    char buf[16];
    assert_int_equal(recv_for(silent, buf, sizeof buf, 1, 2000), 0); /* closed: EOF */
    assert_int_equal(ping(talking), 1);
    close(silent);
    close(talking);
    stop(&k);
}

static void output_buffer_is_bounded(void **state) {
    (void)state;
    kv k;
    start(&k, 0, "--max-output-buffer", "1");
    const int fd = dial(k.port);
    assert_true(fd >= 0);
    char head[64];
    const int hlen =
        snprintf(head, sizeof head, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$%u\r\n", BIG_VALUE);
    send_all(fd, head, (size_t)hlen);
    char *value = malloc(BIG_VALUE);
    assert_non_null(value);
    memset(value, 'v', BIG_VALUE);
    send_all(fd, value, BIG_VALUE);
    send_all(fd, "\r\n", 2);
    char ok[8];
    assert_int_equal(recv_for(fd, ok, sizeof ok, 5, 5000), 5);
    assert_memory_equal(ok, "+OK\r\n", 5);
    /* 400 GETs of it in one go, replies unread: about 100 MiB if all were buffered. */
    static const char get[] = "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n";
    for (int i = 0; i < PIPELINED; i++) send_all(fd, get, sizeof get - 1);
    sleep_ms(500);
    const long rss = rss_kib(k.pid);
    print_message("server RSS with %d unread replies of %u bytes: %ld KiB\n", PIPELINED, BIG_VALUE,
                  rss);
    assert_true(rss > 0 && rss < 32 * 1024);
    /* Every reply still comes, complete. */
    char rhead[32];
    const int rlen = snprintf(rhead, sizeof rhead, "$%u\r\n", BIG_VALUE);
    const size_t one = (size_t)rlen + BIG_VALUE + 2, total = one * PIPELINED;
    char *all = malloc(total);
    assert_non_null(all);
    assert_int_equal(recv_for(fd, all, total, total, 10000), (ssize_t)total);
    for (int i = 0; i < PIPELINED; i++) {
        const char *r = all + (size_t)i * one;
        assert_memory_equal(r, rhead, (size_t)rlen);
        assert_memory_equal(r + rlen, value, BIG_VALUE);
    }
    free(all);
    free(value);
    assert_int_equal(ping(fd), 1);
    close(fd);
    stop(&k);
}

int main(void) {
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(descriptor_exhaustion),
        cmocka_unit_test(idle_clients_are_closed),
        cmocka_unit_test(output_buffer_is_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
