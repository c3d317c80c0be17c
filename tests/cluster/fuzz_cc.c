/* libFuzzer target for the cluster engine (runtime/rg_cc.h) fed hostile nodes: what the nodes of
 * a cluster answer is untrusted, and the engine parses more of it than the map (merged fan-outs,
 * summed integers, redirects, retries).
 *
 * The engine is driven without I/O, as its drivers do: the map is read from a good CLUSTER SLOTS
 * reply of three masters, every link connects at once, and a batch of calls goes out: plain
 * ones (GET, SET, INCR), a cross-slot MGET (split, merged in key order), EXISTS and DEL (summed),
 * DBSIZE and KEYS (to every master), and a typed GET. Then the input is fed to the three data
 * links as what they answer: its first byte picks how the rest is cut (one link at a time, in
 * chunks of 1 to 16 bytes), and the engine ticks between the chunks, with time moving on so that
 * retries and deadlines run too. Whatever comes, every call completes at most once, its status
 * is one the engine gives, and teardown frees everything (LeakSanitizer). ASan and UBSan catch
 * the rest.
 */
#include "rg_cc.h"
#include "rg_enc.h"

#include "redis_keys.h"
#include "redis_reply.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { NCALLS = 64, ARENA = 1 << 14, MASTERS = 3 };

static const rg_cluster_commands CMDS = {redis_keys_table, REDIS_KEYS_CMD_COUNT, redis_keys_policy};

/* Three masters on 7000..7002, the slots in thirds. */
static const char SLOTS[] = "*3\r\n"
                            "*3\r\n:0\r\n:5460\r\n*2\r\n$9\r\n127.0.0.1\r\n:7000\r\n"
                            "*3\r\n:5461\r\n:10922\r\n*2\r\n$9\r\n127.0.0.1\r\n:7001\r\n"
                            "*3\r\n:10923\r\n:16383\r\n*2\r\n$9\r\n127.0.0.1\r\n:7002\r\n";

typedef struct rig {
    rg_cc cc;
    rg_conn conn[RG_CC_LINKS];
    bool made[RG_CC_LINKS];
    int64_t now;
    unsigned done[NCALLS + 1]; /* completions per call id */
} rig;

static void on_done(void *ud, const rg_call_done *d) {
    rig *r = ud;
    if (d->id == 0 || d->id > NCALLS || ++r->done[d->id] > 1) abort();
}

/* What the engine asks of its links: connects succeed at once (the refresh link answers the map
 * when it asks), closes are done; the output of an open link is taken as written. */
static void links(rig *r) {
    rg_cc *cc = &r->cc;
    for (size_t j = 0; j < rg_cc_link_count(cc); j++) {
        const size_t l = rg_cc_link_id(cc, j);
        switch (rg_cc_link_want(cc, l)) {
        case RG_CC_CONNECT: {
            rg_cc_dial to;
            rg_cc_link_dial(cc, l, &to);
            to.conn.protocol = 0; /* RESP2 without HELLO: no connect sequence to answer */
            if (r->made[l]) rg_conn_free(&r->conn[l]);
            r->made[l] = rg_conn_init(&r->conn[l], &to.conn) == RG_OK;
            if (r->made[l])
                rg_cc_link_open(cc, l, &r->conn[l]);
            else
                rg_cc_link_failed(cc, l, (rg_error){RG_IO, RG_LIT("init"), 0});
            break;
        }
        case RG_CC_CLOSE: rg_cc_link_closed(cc, l); break;
        case RG_CC_OPEN: {
            size_t n;
            rg_conn_output(&r->conn[l], &n);
            if (n) rg_conn_written(&r->conn[l], n);
            break;
        }
        default: break;
        }
    }
}

static void tick(rig *r) {
    r->now += 20 * 1000000; /* 20 ms a tick: backoffs and deadlines run */
    rg_cc_tick(&r->cc, r->now);
    links(r);
}

/* Feeds bytes to link l as what its node answers; false when the engine took the link down. */
static void feed(rig *r, size_t l, const char *bytes, size_t n) {
    if (rg_cc_link_want(&r->cc, l) != RG_CC_OPEN) return;
    rg_conn_state st;
    rg_conn_feed_copy(&r->conn[l], bytes, n, &st);
    if (st == RG_CONN_FAILED) rg_cc_link_failed(&r->cc, l, rg_conn_error(&r->conn[l]));
}

static void add(rig *r, const char *const *words, size_t argc, const rg_rtable *table,
                void *result) {
    rg_view argv[8];
    for (size_t i = 0; i < argc; i++) argv[i] = rg_cstr(words[i]);
    (void)rg_conn_call_argv(rg_cc_conn(&r->cc), argc, argv, table, result, on_done, r);
}

static void calls(rig *r, rg_raw_result *raw, redis_get_result *got) {
    static const char *const get[] = {"GET", "a"}, *const set[] = {"SET", "b", "v"},
                             *const incr[] = {"INCR", "c"}, *const mget[] = {"MGET", "a", "b",
                                                                             "c",    "d", "e"},
                             *const exists[] = {"EXISTS", "a", "b", "c"},
                             *const del[] = {"DEL", "x", "y", "z"}, *const dbsize[] = {"DBSIZE"},
                             *const keys[] = {"KEYS", "*"}, *const typed[] = {"GET", "t"};
    add(r, get, 2, NULL, &raw[0]);
    add(r, set, 3, NULL, &raw[1]);
    add(r, incr, 2, NULL, &raw[2]);
    add(r, mget, 6, NULL, &raw[3]);
    add(r, exists, 4, NULL, &raw[4]);
    add(r, del, 4, NULL, &raw[5]);
    add(r, dbsize, 1, NULL, &raw[6]);
    add(r, keys, 2, NULL, &raw[7]);
    add(r, typed, 2, &redis_get_reply_table, got);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    static rig r;
    static rg_cc_call batch[NCALLS];
    static char arena[ARENA];
    memset(&r, 0, sizeof r);
    const rg_cc_config cfg = {.cmds = &CMDS,
                              .calls = batch,
                              .ncalls = NCALLS,
                              .arena = arena,
                              .arena_cap = ARENA,
                              .node_in_cap = 1 << 12,
                              .node_out_cap = 1 << 12,
                              .protocol = 2,
                              .max_retries = 3};
    if (rg_cc_setup(&r.cc, &cfg, "127.0.0.1", 7000) != RG_OK) abort();
    /* the map: the refresh link connects and is answered */
    for (int i = 0; i < 4 && r.cc.refresh.rounds == 0; i++) {
        tick(&r);
        feed(&r, RG_CC_REFRESH_LINK, SLOTS, sizeof SLOTS - 1);
    }
    if (r.cc.map.nnodes != MASTERS) abort();
    rg_raw_result raw[8];
    redis_get_result got;
    calls(&r, raw, &got);
    tick(&r);
    tick(&r);
    if (r.cc.n < 9 || r.cc.flying == 0) abort(); /* (the batch is out: the input answers it) */
    /* the input, cut as its first byte says, to the data links in turn */
    const char *in = (const char *)data + 1;
    size_t left = size - 1, link = 0;
    const size_t chunk = 1 + (data[0] & 15u);
    while (left) {
        const size_t n = left < chunk ? left : chunk;
        feed(&r, (data[0] & 16u) ? link : link % MASTERS, in, n);
        in += n;
        left -= n;
        link = (data[0] & 32u) ? link + 1 : link + (n == chunk && in[-1] == '\n');
        tick(&r);
    }
    for (int i = 0; i < 8; i++) tick(&r);
    for (size_t j = 0; j < r.cc.n; j++) {
        const rg_cc_call *k = &batch[j];
        if (k->complete && (k->status < RG_OK || k->status >= RG_STATUS_COUNT)) abort();
    }
    /* as a driver closes: the connections first (their calls complete), then the engine */
    for (size_t l = 0; l < RG_CC_LINKS; l++)
        if (r.made[l]) rg_conn_free(&r.conn[l]);
    rg_cc_teardown(&r.cc);
    return 0;
}
