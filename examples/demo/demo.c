/* respgen demo: commands encoded by the code respgen generated from specs/example.lua, sent to a
 * real redis-server in one pipelined write, and the replies decoded by the runtime decoder.
 *
 * Usage: demo UNIX_SOCKET_PATH   (scripts/demo.sh starts a throwaway server and passes its path)
 */
#include "example.h"
#include "rg_dec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define V(s) ((rg_view){(s), sizeof(s) - 1})

/* The requests of one pipeline, written back to back into one buffer sized exactly up front. */
typedef struct batch {
    char buf[4096];
    size_t len;
    const char *what[16];
    size_t count;
} batch;

static void add(batch *b, const char *what, size_t size, size_t written) {
    if (written != size) {
        fprintf(stderr, "demo: %s: encoder wrote %zu of %zu bytes\n", what, written, size);
        exit(1);
    }
    printf("  %-58s %3zu bytes\n", what, size);
    b->len += written;
    b->what[b->count++] = what;
}

static void encode_all(batch *b) {
    char *const end = b->buf + sizeof b->buf;
    size_t n;

    n = example_set_size(V("demo:greeting"), V("hello"), NULL);
    add(b, "SET demo:greeting hello", n,
        example_set_encode(b->buf + b->len, (size_t)(end - b->buf - b->len), V("demo:greeting"),
                           V("hello"), NULL));

    const example_set_opts nx_ex = {
        .condition = EXAMPLE_SET_CONDITION_NX,
        .expiration = {.kind = EXAMPLE_SET_EXPIRATION_SECONDS, .seconds = 60}};
    n = example_set_size(V("demo:lock"), V("owner-1"), &nx_ex);
    add(b, "SET demo:lock owner-1 NX EX 60", n,
        example_set_encode(b->buf + b->len, (size_t)(end - b->buf - b->len), V("demo:lock"),
                           V("owner-1"), &nx_ex));

    n = example_get_size(V("demo:greeting"));
    add(b, "GET demo:greeting", n,
        example_get_encode(b->buf + b->len, (size_t)(end - b->buf - b->len), V("demo:greeting")));

    n = example_incrby_size(V("demo:counter"), -42);
    add(b, "INCRBY demo:counter -42", n,
        example_incrby_encode(b->buf + b->len, (size_t)(end - b->buf - b->len), V("demo:counter"),
                              -42));

    const example_hset_data fields[] = {{V("name"), V("respgen")}, {V("lang"), V("C")}};
    n = example_hset_size(V("demo:hash"), fields, 2);
    add(b, "HSET demo:hash name respgen lang C", n,
        example_hset_encode(b->buf + b->len, (size_t)(end - b->buf - b->len), V("demo:hash"),
                            fields, 2));

    const rg_view keys[] = {V("demo:greeting"), V("demo:lock"), V("demo:counter"), V("demo:hash")};
    n = example_del_size(keys, 4);
    add(b, "DEL demo:greeting demo:lock demo:counter demo:hash", n,
        example_del_encode(b->buf + b->len, (size_t)(end - b->buf - b->len), keys, 4));

    char small[EXAMPLE_PING_MAX_SIZE]; /* bounded arguments: a stack buffer always fits */
    n = example_ping_size(NULL);
    const size_t w = example_ping_encode(small, sizeof small, NULL);
    memcpy(b->buf + b->len, small, w);
    add(b, "PING (encoded into a char[EXAMPLE_PING_MAX_SIZE])", n, w);
}

static int connect_unix(const char *path) {
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof a.sun_path) return -1;
    strcpy(a.sun_path, path);
    const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0) return fd;
    if (fd >= 0) close(fd);
    return -1;
}

/* Prints one event of a reply in a compact redis-cli-like style. */
static void print_event(const rg_event *ev) {
    const int pad = 2 * (int)ev->depth + 4;
    switch (ev->kind) {
    case RG_EV_SIMPLE: printf("%*s%.*s\n", pad, "", (int)ev->str.len, ev->str.ptr); break;
    case RG_EV_ERROR: printf("%*s(error) %.*s\n", pad, "", (int)ev->str.len, ev->str.ptr); break;
    case RG_EV_INT: printf("%*s(integer) %lld\n", pad, "", (long long)ev->u.i); break;
    case RG_EV_BULK: printf("%*s\"%.*s\"\n", pad, "", (int)ev->str.len, ev->str.ptr); break;
    case RG_EV_NULL: printf("%*s(nil)\n", pad, ""); break;
    case RG_EV_ARRAY: printf("%*s(array of %lld)\n", pad, "", (long long)ev->u.i); break;
    case RG_EV_END: break;
    default: printf("%*s(%s)\n", pad, "", rg_kind_name((rg_kind)ev->kind)); break;
    }
}

/* Reads until every request of the batch has its reply, decoding as bytes arrive. */
static int read_replies(int fd, const batch *b) {
    static char in[65536];
    size_t len = 0, pos = 0, done = 0;
    rg_reader r;
    rg_reader_init(&r, NULL);
    while (done < b->count) {
        const ssize_t got = read(fd, in + len, sizeof in - len);
        if (got <= 0) return -1;
        len += (size_t)got;
        rg_event ev;
        rg_status st;
        while ((st = rg_next(&r, in, len, &pos, &ev)) == RG_OK) {
            if (ev.depth == 0 && ev.kind != RG_EV_END) printf("  %s ->\n", b->what[done]);
            print_event(&ev);
            done += ev.complete;
        }
        if (st != RG_NEED_MORE) {
            uint64_t off;
            const char *why = rg_reader_error(&r, &off);
            fprintf(stderr, "demo: bad reply at byte %llu: %s\n", (unsigned long long)off, why);
            return -1;
        }
        memmove(in, in + pos, len - pos); /* keep the unconsumed tail */
        len -= pos;
        pos = 0;
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: demo UNIX_SOCKET_PATH\n");
        return 2;
    }
    batch b = {.len = 0};
    printf("Encoded with the generated encoders (exact size first, then one pass):\n");
    encode_all(&b);
    printf("  %zu requests, %zu bytes in one buffer, no allocation\n\n", b.count, b.len);

    const int fd = connect_unix(argv[1]);
    if (fd < 0) {
        fprintf(stderr, "demo: cannot connect to %s\n", argv[1]);
        return 1;
    }
    if (write(fd, b.buf, b.len) != (ssize_t)b.len) return 1;
    printf("Replies, decoded in place as they arrive:\n");
    const int rc = read_replies(fd, &b);
    close(fd);
    return rc == 0 ? 0 : 1;
}
