/* bench_iov: where copying a payload into the scratch beats giving it its own iovec entry.
 *
 * This is the measurement behind RG_IOV_COPY_MIN (rg_enc.h). For payload sizes S from 16 B to
 * 16 KiB it sends a 32-argument command over an AF_UNIX stream socket (drained by a reader
 * thread) two ways:
 *   copy  everything in one buffer (rg_argv_encode), one writev() entry
 *   ref   every payload referenced: header runs in a scratch, payloads as their own entries
 *         (2 * 32 + 1 entries), the shape rg_argv_encode_iov gives payloads >= RG_IOV_COPY_MIN
 * and prints the per-argument difference, ref - copy: positive means copying is cheaper. Both
 * sides include building their buffers or entries. Medians of --runs runs.
 *
 * Usage: bench_iov [--runs N]
 */
#define _POSIX_C_SOURCE 200809L

#include "rg_enc.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

enum { ARGS = 32, MAX_S = 16384, ITERS = 4000, MAX_RUNS = 101 };

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void *drain(void *arg) {
    const int fd = *(const int *)arg;
    static char buf[1 << 20]; /* only this thread touches it */
    while (read(fd, buf, sizeof buf) > 0) continue;
    return NULL;
}

static void write_all(int fd, struct iovec *iov, int n) {
    while (n > 0) {
        ssize_t w = writev(fd, iov, n);
        if (w < 0) {
            perror("writev");
            exit(1);
        }
        while (n > 0 && (size_t)w >= iov->iov_len) {
            w -= (ssize_t)iov->iov_len;
            iov++;
            n--;
        }
        if (n > 0) {
            iov->iov_base = (char *)iov->iov_base + w;
            iov->iov_len -= (size_t)w;
        }
    }
}

typedef struct bufs {
    rg_view argv[ARGS];
    char *flat;    /* copy: the whole command */
    char *scratch; /* ref: the header runs */
    struct iovec iov[2 * ARGS + 1];
} bufs;

static void send_copy(int fd, bufs *b) {
    const size_t n = rg_argv_encode(b->flat, rg_argv_size(ARGS, b->argv), ARGS, b->argv);
    struct iovec one = {b->flat, n};
    write_all(fd, &one, 1);
}

static void send_ref(int fd, bufs *b) {
    char *p = rg_put_array_header(b->scratch, ARGS), *run = b->scratch;
    int n = 0;
    for (size_t i = 0; i < ARGS; i++) {
        if (i > 0) p = rg_put_raw(p, "\r\n", 2);
        p = rg_put_bulk_header(p, b->argv[i].len);
        b->iov[n++] = (struct iovec){run, (size_t)(p - run)};
        b->iov[n++] = (struct iovec){(void *)b->argv[i].ptr, b->argv[i].len};
        run = p;
    }
    p = rg_put_raw(p, "\r\n", 2);
    b->iov[n++] = (struct iovec){run, (size_t)(p - run)};
    write_all(fd, b->iov, n);
}

static double time_per_command(void (*fn)(int, bufs *), int fd, bufs *b, unsigned runs) {
    double ns[MAX_RUNS];
    for (unsigned r = 0; r < runs; r++) {
        const double t0 = now_ns();
        for (size_t i = 0; i < ITERS; i++) fn(fd, b);
        ns[r] = (now_ns() - t0) / ITERS;
    }
    qsort(ns, runs, sizeof ns[0], cmp_double);
    return ns[runs / 2];
}

int main(int argc, char **argv) {
    unsigned runs = argc == 3 && strcmp(argv[1], "--runs") == 0 ? (unsigned)atoi(argv[2]) : 9;
    if (runs < 1 || runs > MAX_RUNS) runs = 9;
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) {
        perror("socketpair");
        return 1;
    }
    pthread_t reader;
    pthread_create(&reader, NULL, drain, &fds[1]);

    static char payload[ARGS][MAX_S];
    for (size_t i = 0; i < ARGS; i++) memset(payload[i], 'a' + (int)i % 26, MAX_S);
    static bufs b;
    b.flat = malloc(ARGS * (MAX_S + 32) + 16);
    b.scratch = malloc(ARGS * 32 + 16);
    if (b.flat == NULL || b.scratch == NULL) return 1;

    printf("writev of a %d-argument command over AF_UNIX, ns per command (median of %u)\n", ARGS,
           runs);
    printf("%8s %10s %10s %16s\n", "payload", "copy", "ref", "ref-copy per arg");
    for (size_t s = 16; s <= MAX_S; s *= 2) {
        for (size_t i = 0; i < ARGS; i++) b.argv[i] = (rg_view){payload[i], s};
        const double copy = time_per_command(send_copy, fds[0], &b, runs);
        const double ref = time_per_command(send_ref, fds[0], &b, runs);
        printf("%8zu %10.0f %10.0f %16.1f\n", s, copy, ref, (ref - copy) / ARGS);
    }
    shutdown(fds[0], SHUT_WR);
    pthread_join(reader, NULL);
    free(b.flat);
    free(b.scratch);
    return 0;
}
