/* A plain-Makefile user of an installed respgen (see Makefile): encodes with the codec respgen
 * generated from the bundled Redis command set, sends the requests to a redis-server in one
 * pipelined write, decodes each reply with its command's typed decoder and checks the values.
 *
 * Usage: app UNIX_SOCKET_PATH      Exit status 0 when every reply is the expected one.
 */
#define _POSIX_C_SOURCE 200809L

#include "redis.h"
#include "redis_reply.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* One blocking connection and every byte it received: these replies are small, so nothing is
 * dropped and views into in stay valid until the end. */
typedef struct conn {
    int fd;
    char in[16384];
    size_t len, pos;
    rg_reply_reader rr;
} conn;

static int connect_unix(const char *path) {
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof a.sun_path) return -1;
    memcpy(a.sun_path, path, strlen(path) + 1);
    const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0) return fd;
    if (fd >= 0) close(fd);
    return -1;
}

/* Decodes the next reply with table t into out (a result struct), reading while it is
 * incomplete. Returns 0, or -1 with a message naming what went wrong. */
static int next_reply(conn *c, const rg_rtable *t, void *out) {
    for (;;) {
        const rg_status st = rg_reply_decode(&c->rr, t, c->in, c->len, &c->pos, out);
        if (st == RG_OK) return 0;
        if (st != RG_NEED_MORE) {
            const rg_view e = rg_reply_error(&c->rr).msg;
            fprintf(stderr, "app: %s: %s %.*s\n", t->command, rg_status_name(st), (int)e.len,
                    e.ptr);
            return -1;
        }
        const ssize_t got =
            c->len < sizeof c->in ? read(c->fd, c->in + c->len, sizeof c->in - c->len) : -1;
        if (got <= 0) {
            fprintf(stderr, "app: %s: connection closed or buffer full\n", t->command);
            return -1;
        }
        c->len += (size_t)got;
    }
}

static int same(rg_view v, const char *want) {
    return v.ptr && v.len == strlen(want) && memcmp(v.ptr, want, v.len) == 0;
}

static int check(int ok, const char *what) {
    printf("app: %-44s %s\n", what, ok ? "ok" : "UNEXPECTED");
    return ok ? 0 : 1;
}

/* Requests written back to back; an encoder returns 0 when its request does not fit. */
typedef struct reqbuf {
    char buf[4096];
    size_t len;
    bool full;
} reqbuf;

static char *at(reqbuf *r) {
    return r->buf + r->len;
}

static size_t room(const reqbuf *r) {
    return sizeof r->buf - r->len;
}

static void put(reqbuf *r, size_t written) {
    r->len += written;
    r->full |= written == 0;
}

static void encode_all(reqbuf *r) {
    const redis_set_opts nx = {.condition = REDIS_SET_CONDITION_NX};
    const rg_view keys[] = {RG_LIT("app:name"), RG_LIT("app:missing"), RG_LIT("app:hits")};
    put(r, redis_set_encode(at(r), room(r), keys[0], RG_LIT("respgen"), NULL));
    put(r, redis_set_encode(at(r), room(r), keys[0], RG_LIT("other"), &nx));
    put(r, redis_incrby_encode(at(r), room(r), keys[2], 40));
    put(r, redis_incrby_encode(at(r), room(r), keys[2], 2));
    put(r, redis_mget_encode(at(r), room(r), keys, 3));
    put(r, redis_del_encode(at(r), room(r), keys, 3));
}

/* Reads the replies in request order and checks each. Returns the number of failures. */
static int check_all(conn *c) {
    redis_set_result set, set_nx;
    redis_incrby_result first, second;
    redis_mget_result mget;
    redis_del_result del;
    int bad = 0;
    bad += check(next_reply(c, &redis_set_reply_table, &set) == 0 && same(set.value, "OK"),
                 "SET app:name respgen -> OK");
    bad += check(next_reply(c, &redis_set_reply_table, &set_nx) == 0 && !set_nx.value.ptr,
                 "SET app:name other NX -> (nil)");
    bad += check(next_reply(c, &redis_incrby_reply_table, &first) == 0 && first.value == 40,
                 "INCRBY app:hits 40 -> 40");
    bad += check(next_reply(c, &redis_incrby_reply_table, &second) == 0 && second.value == 42,
                 "INCRBY app:hits 2 -> 42");
    bad += check(next_reply(c, &redis_mget_reply_table, &mget) == 0 && mget.value.count == 3 &&
                     same(mget.value.items[0], "respgen") && !mget.value.items[1].ptr &&
                     same(mget.value.items[2], "42"),
                 "MGET app:name app:missing app:hits");
    bad += check(next_reply(c, &redis_del_reply_table, &del) == 0 && del.value == 2,
                 "DEL app:name app:missing app:hits -> 2");
    return bad;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: app UNIX_SOCKET_PATH\n");
        return 2;
    }
    static conn c;
    static reqbuf req;
    static char storage[1024]; /* MGET's views go here (caller-owned) */
    encode_all(&req);
    c.fd = req.full ? -1 : connect_unix(argv[1]);
    if (c.fd < 0) {
        fprintf(stderr, "app: %s\n", req.full ? "requests do not fit" : "cannot connect");
        return 1;
    }
    rg_reply_reader_init(&c.rr, NULL);
    rg_reply_set_storage(&c.rr, storage, sizeof storage);
    const int bad = write(c.fd, req.buf, req.len) == (ssize_t)req.len ? check_all(&c) : 1;
    close(c.fd);
    return bad == 0 ? 0 : 1;
}
