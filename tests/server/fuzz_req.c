/* libFuzzer target for the request reader (rg_req.h) and the argument parser (rg_args.h).
 *
 * The input is read twice: whole, and in pieces (sizes from the input's first byte) through a
 * buffer that is moved to fresh memory between calls, with a 2-view argv that has to grow on
 * demand. Both reads must give the same requests and the same final status and error, every view
 * must lie inside the buffer, and every request is also dispatched and argument-parsed by the
 * server codec generated from specs/redis.lua (every command's rg_args table). Buffers are
 * malloc'd at their exact size so ASan sees any read past them. */
#include "redis_server.h"
#include "rg_req.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A digest of the requests read: their words, in order, hashed. */
typedef struct digest {
    uint64_t h;
    size_t requests;
} digest;

static void mix(digest *d, const char *p, size_t n) {
    for (size_t i = 0; i < n; i++) d->h = (d->h ^ (unsigned char)p[i]) * 1099511628211u;
    d->h = (d->h ^ n) * 1099511628211u;
}

static void use_request(digest *d, const char *buf, size_t len, size_t argc, const rg_view *argv) {
    if (argc == 0) abort();
    for (size_t i = 0; i < argc; i++) {
        if (argv[i].len > len || argv[i].ptr < buf || argv[i].ptr + argv[i].len > buf + len) {
            abort();
        }
        mix(d, argv[i].ptr, argv[i].len);
    }
    d->requests++;
    redis_srv_args args;
    rg_errbuf err;
    const redis_srv_cmd id = redis_srv_parse(argc, argv, &args, &err);
    if (id == REDIS_SRV_NONE ? err.len >= sizeof err.text : id >= REDIS_SRV_NCMDS) abort();
}

/* Reads data in pieces of `step` bytes (0: whole). Returns the final status. */
static rg_status read_in_pieces(const uint8_t *data, size_t size, size_t step, digest *d,
                                char *msg) {
    rg_req r;
    rg_req_init(&r, NULL);
    char *buf = NULL;
    size_t len = 0, pos = 0, fed = 0, cap = 2;
    rg_view *argv = malloc(cap * sizeof *argv);
    rg_status st = RG_NEED_MORE;
    for (;;) {
        if (st == RG_NEED_MORE) {
            if (fed == size) break;
            const size_t k = step == 0 || size - fed < step ? size - fed : step;
            char *moved = malloc(len - pos + k);
            if (len > pos) memcpy(moved, buf + pos, len - pos);
            memcpy(moved + (len - pos), data + fed, k);
            free(buf);
            buf = moved;
            len = len - pos + k;
            pos = 0;
            fed += k;
        }
        size_t argc;
        st = rg_req_next(&r, buf, len, &pos, argv, cap, &argc);
        if (st == RG_NEED_MORE && argc > 65536) {
            st = RG_STATUS_COUNT; /* a server would refuse that much argv; so does the harness */
            break;
        }
        if (st == RG_NEED_MORE && argc > cap) {
            cap = argc;
            argv = realloc(argv, cap * sizeof *argv);
            st = RG_OK; /* retry without new bytes */
            continue;
        }
        if (st == RG_OK) use_request(d, buf, len, argc, argv);
        if (st != RG_OK && st != RG_NEED_MORE) break;
    }
    const rg_error e = rg_req_error(&r);
    if ((e.status != RG_OK) != (e.msg.ptr != NULL)) abort(); /* a message exactly with an error */
    strcpy(msg, e.msg.ptr ? e.msg.ptr : "");
    free(buf);
    free(argv);
    return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) return 0;
    const size_t step = 1 + data[0] % 7;
    digest whole = {1469598103934665603u, 0}, pieces = whole;
    char m1[128], m2[128];
    const rg_status s1 = read_in_pieces(data + 1, size - 1, 0, &whole, m1);
    const rg_status s2 = read_in_pieces(data + 1, size - 1, step, &pieces, m2);
    if (s1 != s2 || whole.h != pieces.h || whole.requests != pieces.requests) abort();
    if (strcmp(m1, m2) != 0) abort();
    return 0;
}
