/* respgen demo: commands encoded by the code respgen generated from specs/example.lua, sent to a
 * real redis-server in one pipelined write, and the replies decoded by the typed reply decoders
 * generated from the same spec (example_reply.h: an int64_t for INCRBY, a nullable view for GET).
 *
 * Usage: demo UNIX_SOCKET_PATH   (scripts/demo.sh starts a throwaway server and passes its path)
 */
#include "example.h"
#include "example_reply.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define V(s) RG_LIT(s)

/* The requests of one pipeline, written back to back into one buffer sized exactly up front. */
typedef void (*print_fn)(const void *result);

/* The requests of one pipeline, written back to back into one buffer sized exactly up front,
 * with the reply table and printer of each. */
typedef struct batch {
    char buf[4096];
    size_t len;
    const char *what[16];
    const rg_rtable *table[16];
    print_fn print[16];
    size_t count;
} batch;

static void print_view(const void *result) {
    const rg_view *v = result; /* every printer's result starts with its value */
    if (v->ptr) {
        printf("    \"%.*s\"\n", (int)v->len, v->ptr);
    } else {
        printf("    (nil)\n");
    }
}

static void print_int(const void *result) {
    printf("    (integer) %lld\n", (long long)*(const int64_t *)result);
}

static void expect(batch *b, const rg_rtable *table, print_fn print) {
    b->table[b->count - 1] = table;
    b->print[b->count - 1] = print;
}

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
    expect(b, &example_set_reply_table, print_view);

    const example_set_opts nx_ex = {
        .condition = EXAMPLE_SET_CONDITION_NX,
        .expiration = {.kind = EXAMPLE_SET_EXPIRATION_SECONDS, .seconds = 60}};
    n = example_set_size(V("demo:lock"), V("owner-1"), &nx_ex);
    add(b, "SET demo:lock owner-1 NX EX 60", n,
        example_set_encode(b->buf + b->len, (size_t)(end - b->buf - b->len), V("demo:lock"),
                           V("owner-1"), &nx_ex));
    expect(b, &example_set_reply_table, print_view);

    n = example_get_size(V("demo:greeting"));
    add(b, "GET demo:greeting", n,
        example_get_encode(b->buf + b->len, (size_t)(end - b->buf - b->len), V("demo:greeting")));
    expect(b, &example_get_reply_table, print_view);

    n = example_incrby_size(V("demo:counter"), -42);
    add(b, "INCRBY demo:counter -42", n,
        example_incrby_encode(b->buf + b->len, (size_t)(end - b->buf - b->len), V("demo:counter"),
                              -42));
    expect(b, &example_incrby_reply_table, print_int);

    const example_hset_data fields[] = {{V("name"), V("respgen")}, {V("lang"), V("C")}};
    n = example_hset_size(V("demo:hash"), fields, 2);
    add(b, "HSET demo:hash name respgen lang C", n,
        example_hset_encode(b->buf + b->len, (size_t)(end - b->buf - b->len), V("demo:hash"),
                            fields, 2));
    expect(b, &example_hset_reply_table, print_int);

    const rg_view keys[] = {V("demo:greeting"), V("demo:lock"), V("demo:counter"), V("demo:hash")};
    n = example_del_size(keys, 4);
    add(b, "DEL demo:greeting demo:lock demo:counter demo:hash", n,
        example_del_encode(b->buf + b->len, (size_t)(end - b->buf - b->len), keys, 4));
    expect(b, &example_del_reply_table, print_int);

    char small[EXAMPLE_PING_MAX_SIZE]; /* bounded arguments: a stack buffer always fits */
    n = example_ping_size(NULL);
    const size_t w = example_ping_encode(small, sizeof small, NULL);
    memcpy(b->buf + b->len, small, w);
    add(b, "PING (encoded into a char[EXAMPLE_PING_MAX_SIZE])", n, w);
    expect(b, &example_ping_reply_table, print_view);
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

/* Reads until every request of the batch has its reply, decoding each with its command's typed
 * decoder as bytes arrive. The bytes of a reply in progress are kept (from rg_reply_start);
 * everything before is dropped between reads. */
static int read_replies(int fd, const batch *b) {
    static char in[65536];
    size_t len = 0, pos = 0, done = 0;
    uint64_t base = 0; /* stream offset of in[0] */
    rg_reply_reader rr;
    rg_reply_reader_init(&rr, NULL); /* these replies have no arrays: no storage needed */
    while (done < b->count) {
        const ssize_t got = read(fd, in + len, sizeof in - len);
        if (got <= 0) return -1;
        len += (size_t)got;
        union {
            example_set_result set;
            example_incrby_result incrby;
        } out;
        rg_reply_status st;
        while (done < b->count && (st = rg_reply_decode(&rr, b->table[done], in, len, &pos,
                                                        &out)) != RG_REPLY_NEED_MORE) {
            printf("  %s ->\n", b->what[done]);
            if (st == RG_REPLY_OK) {
                b->print[done](&out);
            } else {
                const rg_view e = rg_reply_error(&rr);
                printf("    (%s) %.*s\n", rg_reply_status_name(st), (int)e.len, e.ptr);
                if (st == RG_REPLY_PROTOCOL) return -1;
            }
            done++;
        }
        const size_t keep = rg_reply_start(&rr) > base ? (size_t)(rg_reply_start(&rr) - base) : 0;
        const size_t from = keep < pos ? keep : pos;
        memmove(in, in + from, len - from); /* keep the reply in progress */
        len -= from;
        pos -= from;
        base += from;
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
    printf("Replies, decoded in place by the typed decoders as they arrive:\n");
    const int rc = read_replies(fd, &b);
    close(fd);
    return rc == 0 ? 0 : 1;
}
