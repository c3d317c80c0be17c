/* libFuzzer target for the connection engine (runtime/rg_conn.h) and the push decoders.
 *
 * The input's first bytes choose the protocol and a script of up to 32 calls (integer, string,
 * array and raw replies, SUBSCRIBE, an UNSUBSCRIBE without names, MULTI, EXEC, DISCARD); the rest
 * is the server's reply stream (a script byte may also abandon the call before it, give it a
 * timeout of 0 to 3 ms, or make a call whose callback closes the connection). The first byte's
 * top bits give every call a timeout (timeout_ms 1 to 3); deadlines start at 0 and the input ends
 * at 2 ms (rg_conn_expire), when the later ones are still running. It is fed
 * whole, in pieces cut where the input's hash says, and one byte at a time, through a 64-byte input
 * buffer that grows through an allocator hook up to MAX_REPLY bytes (above it the connection fails
 * with RG_ERR_LIMIT), and every way must give the same log of completions and pushes. The ring
 * (2 calls), the output (128 bytes) and the array storage (64 bytes) grow through the same hook.
 * When the hash says so the input is held (rg_conn_hold) from the start: the views of the string
 * results are logged again at the end, after every growth, and must read the same. Every grown
 * buffer goes back (rg_conn_free), counted, as does the subscription registry grown through the
 * same hook; what it holds is replayed once (rg_conn_offline) and lost again. Each call must
 * complete at most once, in the order the calls were made (no reply paired with the wrong call),
 * and after rg_conn_closed every call must have completed exactly once. ASan and UBSan catch the
 * rest.
 */
#include "rg_conn.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_CALLS = 32, LOG_CAP = 1 << 16, MAX_REPLY = 1024 };

typedef struct int_result {
    int64_t value;
} int_result;
typedef struct view_result {
    rg_view value;
} view_result;
typedef struct array_result {
    struct {
        rg_view *items;
        size_t count;
    } value;
} array_result;

static const rg_rnode INT_NODES[] = {{RG_RA_INT, RG_RS_SCALAR, RG_RT_I64, 0, 0, 0, 0, 0, NULL}};
static const rg_rnode VIEW_NODES[] = {
    {RG_RA_STR | RG_RA_NULL, RG_RS_SCALAR, RG_RT_VIEW, 0, 0, 0, 0, 0, NULL}};
static const rg_rnode ARRAY_NODES[] = {
    {RG_RA_ARR, RG_RS_ARRAY, RG_RT_NONE, 1, 1, 0, 0, sizeof(rg_view), NULL},
    {RG_RA_STR | RG_RA_NULL, RG_RS_SCALAR, RG_RT_VIEW, 0, 0, 0, 0, 0, NULL}};
static const rg_rtable INT_TABLE = {"INCR", INT_NODES, sizeof(int_result), 0};
static const rg_rtable VIEW_TABLE = {"GET", VIEW_NODES, sizeof(view_result), RG_RF_VIEW};
static const rg_rtable ARRAY_TABLE = {"MGET", ARRAY_NODES, sizeof(array_result), 0};

typedef struct run {
    rg_conn c;
    char in[64], out[128], storage[64];
    rg_call calls[2];
    union {
        int_result i;
        view_result v;
        array_result a;
        rg_raw_result r;
    } results[MAX_CALLS];
    uint64_t ids[MAX_CALLS];
    uint8_t kinds[MAX_CALLS]; /* 0 int, 1 view, 2 array, else raw */
    bool ok[MAX_CALLS];       /* completed with RG_OK into its result */
    size_t blocks;            /* the allocator's live blocks */
    size_t ncalls;
    uint8_t seen[MAX_CALLS * 2 + 8];
    uint8_t in_tx[MAX_CALLS * 2 + 8]; /* made between MULTI and EXEC/DISCARD */
    bool tx;
    uint64_t last_id;
    char *log;
    size_t loglen;
} run;

static void put(run *r, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(r->log + r->loglen, LOG_CAP - r->loglen, fmt, ap);
    va_end(ap);
    if (n > 0) r->loglen += (size_t)n < LOG_CAP - r->loglen ? (size_t)n : LOG_CAP - 1 - r->loglen;
}

static void put_view(run *r, rg_view v) {
    put(r, "'%.*s'", (int)(v.len > 40 ? 40 : v.len), v.ptr ? v.ptr : "");
}

static void on_done(void *ud, const rg_call_done *d) {
    run *r = ud;
    if (d->id >= sizeof r->seen || r->seen[d->id]++) abort(); /* completed twice */
    /* In order, except that a command refused at queue time inside MULTI fails at once, before
     * the earlier queued ones (which wait for EXEC). */
    if (!r->in_tx[d->id]) {
        if (d->id <= r->last_id) abort(); /* out of order */
        r->last_id = d->id;
    }
    put(r, "%llu:%s", (unsigned long long)d->id, rg_status_name(d->status));
    if (d->status == RG_OK && d->result) {
        const void *res = d->result;
        size_t k = 0;
        while (k < r->ncalls && (const void *)&r->results[k] != res) k++;
        if (k == r->ncalls) abort();
        r->ok[k] = true;
        put(r, "=");
        if (r->kinds[k] == 0) {
            put(r, "%lld", (long long)r->results[k].i.value);
        } else if (r->kinds[k] == 2) {
            put(r, "%zu", r->results[k].a.value.count);
            /* rg_reply gives a streamed array (*?) its count but no items (no storage is carved
             * for an aggregate of unknown length). */
            for (size_t i = 0; r->results[k].a.value.items && i < r->results[k].a.value.count; i++)
                put_view(r, r->results[k].a.value.items[i]);
        } else {
            put_view(r, r->results[k].v.value); /* view and raw results are one rg_view */
        }
    }
    put(r, ";");
}

/* The input's allocator: the C library's, with its live blocks counted. */
static void *counted(void *ud, void *ptr, size_t size) {
    run *r = ud;
    void *p = rg_conn_std_alloc(NULL, ptr, size);
    r->blocks += !ptr && p;
    r->blocks -= ptr && !size;
    return p;
}

static uint64_t hash(const uint8_t *p, size_t n) {
    uint64_t h = 1469598103934665603u;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211u;
    return h;
}

/* Held: the string results' views again, after everything was fed. */
static void put_held(run *r) {
    put(r, "|held:");
    for (size_t k = 0; k < r->ncalls; k++)
        if (r->ok[k] && r->kinds[k] != 0 && r->kinds[k] != 2) {
            const rg_view v = r->results[k].v.value;
            put(r, "%zu:%llx", v.len,
                (unsigned long long)(v.ptr ? hash((const uint8_t *)v.ptr, v.len) : 0));
        }
}

/* A callback that closes the connection (allowed: the rest must still complete once). */
static void on_done_close(void *ud, const rg_call_done *d) {
    run *r = ud;
    on_done(ud, d);
    rg_conn_closed(&r->c, RG_LIT("closed by a callback"));
}

static void on_push(void *ud, const rg_push *p) {
    run *r = ud;
    put(r, "push:%s:%zu;", rg_push_kind_name(p->kind), p->raw.len);
    size_t at = 0;
    rg_view k;
    while (rg_push_keys_next(p, &at, &k)) put_view(r, k);
}

/* The calls of the script. */
static uint64_t make_call(run *r, uint8_t what) {
    static const rg_view words[][3] = {
        {{"INCR", 4}, {"a", 1}},
        {{"GET", 3}, {"a", 1}},
        {{"MGET", 4}, {"a", 1}},
        {{"ECHO", 4}, {"a", 1}},
        {{"SUBSCRIBE", 9}, {"a", 1}, {"b", 1}},
        {{"UNSUBSCRIBE", 11}},
        {{"MULTI", 5}},
        {{"EXEC", 4}},
        {{"DISCARD", 7}},
        {{"PSUBSCRIBE", 10}, {"p", 1}},
    };
    static const size_t argc[] = {2, 2, 2, 2, 3, 1, 1, 1, 1, 2};
    static const rg_rtable *const tables[] = {&INT_TABLE, &VIEW_TABLE, &ARRAY_TABLE};
    const size_t nk = sizeof argc / sizeof argc[0];
    if (what % (nk + 1) == nk && (what & 0x40)) {
        /* A timeout of its own for the previous call (0: none). */
        if (r->ncalls) rg_conn_call_timeout(&r->c, r->ids[r->ncalls - 1], (what >> 4) & 3);
        return 0;
    }
    if (what % (nk + 1) == nk) {
        /* Abandon the previous call: it completes now, out of order by design. */
        if (r->ncalls && !rg_conn_call_done(&r->c, r->ids[r->ncalls - 1])) {
            r->in_tx[r->ids[r->ncalls - 1]] = 1;
            rg_conn_abandon(&r->c, r->ids[r->ncalls - 1]);
        }
        return 0;
    }
    const size_t k = what % (nk + 1);
    const rg_rtable *t = k < 3 ? tables[k] : NULL;
    void *res = (what & 0x80) ? NULL : &r->results[r->ncalls];
    const rg_call_fn fn = (what & 0x40) ? on_done_close : on_done;
    const uint64_t id = rg_conn_call_argv(&r->c, argc[k], words[k], t, res, fn, r);
    if (id) {
        r->in_tx[id] = r->tx && k != 7 && k != 8;
        r->tx = k == 6 || (r->tx && k != 7 && k != 8);
        r->kinds[r->ncalls] = (uint8_t)k;
        r->ids[r->ncalls++] = id;
    }
    return id;
}

static void run_once(run *r, const uint8_t *script, size_t ncalls, int protocol, uint32_t timeout,
                     bool hold, const char *in, size_t n, const size_t *cuts, size_t ncuts) {
    memset(r, 0, offsetof(run, log));
    r->loglen = 0;
    const rg_conn_config cfg = {.in = r->in,
                                .in_cap = sizeof r->in,
                                .out = r->out,
                                .out_cap = sizeof r->out,
                                .calls = r->calls,
                                .ncalls = 2,
                                .storage = r->storage,
                                .storage_cap = sizeof r->storage,
                                .on_push = on_push,
                                .push_ud = r,
                                .protocol = protocol,
                                .timeout_ms = timeout,
                                .connect_timeout_ms = timeout,
                                .alloc = counted,
                                .alloc_ud = r,
                                .max_reply = MAX_REPLY};
    if (rg_conn_init(&r->c, &cfg) != 0) abort();
    rg_conn_hold(&r->c, hold);
    for (size_t i = 0; i < ncalls; i++) make_call(r, script[i]);
    /* Every deadline starts at 0, whatever the feeding: the same log every way. */
    const uint64_t first = rg_conn_next_deadline(&r->c, 0);
    if (first != RG_DEADLINE_NONE && (first == 0 || first > 3)) abort();
    size_t at = 0;
    for (size_t k = 0; k <= ncuts && rg_conn_state_of(&r->c) != RG_CONN_FAILED; k++) {
        const size_t end = k < ncuts ? cuts[k] : n;
        while (at < end && rg_conn_state_of(&r->c) != RG_CONN_FAILED) {
            const size_t took = rg_conn_feed_copy(&r->c, in + at, end - at, NULL);
            if (took == 0) {
                /* full at MAX_REPLY: the engine failed by itself */
                if (rg_conn_error(&r->c).status != RG_ERR_LIMIT) abort();
                break;
            }
            at += took;
            if (rg_conn_next_deadline(&r->c, 0) < first) abort(); /* nothing new started */
        }
    }
    if (at == n && rg_conn_expire(&r->c, 2) == RG_CONN_FAILED && rg_conn_pending(&r->c) != 0)
        abort();
    put(r, "|state %d pending %zu subs %zu|", (int)rg_conn_state_of(&r->c), rg_conn_pending(&r->c),
        rg_conn_subscriptions(&r->c));
    if (hold) put_held(r);
    rg_conn_closed(&r->c, RG_LIT("end of input"));
    if (rg_conn_pending(&r->c) != 0) abort();
    for (size_t i = 0; i < r->ncalls; i++)
        if (r->seen[r->ids[i]] != 1) abort(); /* every call completed once */
    if (rg_conn_config_of(&r->c)->in_cap > MAX_REPLY) abort();
    if (rg_conn_config_of(&r->c)->ncalls > MAX_CALLS * 2) abort(); /* grown only as needed */
    /* What the registry holds is replayed (a subscribe per class, CLIENT TRACKING), then lost. */
    const rg_status again = rg_conn_offline(&r->c);
    if ((again != RG_OK && again != RG_FULL) || rg_conn_replaying(&r->c) > 4) abort();
    rg_conn_closed(&r->c, RG_LIT("lost again"));
    if (rg_conn_pending(&r->c) != 0) abort();
    rg_conn_free(&r->c);
    if (r->blocks != 0) abort(); /* every grown buffer went back */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2) return 0;
    static run r;
    static char ref[LOG_CAP], got[LOG_CAP];
    const int protocol = data[0] & 1 ? 3 : 0;
    const uint32_t timeout = data[0] >> 6; /* bits 1 to 5 count the calls */
    size_t ncalls = (size_t)(data[0] >> 1) % MAX_CALLS + 1;
    if (ncalls > size - 1) ncalls = size - 1;
    const uint8_t *script = data + 1;
    const char *in = (const char *)data + 1 + ncalls;
    const size_t n = size - 1 - ncalls;
    uint64_t h = hash(data, size);
    const bool hold = h >> 63;
    r.log = ref;
    run_once(&r, script, ncalls, protocol, timeout, hold, in, n, NULL, 0);
    const size_t reflen = r.loglen;
    if (getenv("RG_FUZZ_CONN_LOG")) fprintf(stderr, "%.*s\n", (int)reflen, ref);
    /* Cut where the hash says, then at every byte. */
    size_t cuts[8], ncuts = 0;
    for (size_t i = 0; i < 8 && n; i++, h >>= 8) {
        const size_t c = (size_t)(h % (n + 1));
        if (!ncuts || c > cuts[ncuts - 1]) cuts[ncuts++] = c;
    }
    static size_t every[4096];
    const size_t nevery = n < 4096 ? n : 4096;
    for (size_t i = 0; i < nevery; i++) every[i] = i + 1;
    const struct {
        const size_t *cuts;
        size_t n;
    } ways[] = {{cuts, ncuts}, {every, nevery}};
    for (size_t w = 0; w < 2; w++) {
        r.log = got;
        run_once(&r, script, ncalls, protocol, timeout, hold, in, n, ways[w].cuts, ways[w].n);
        if (r.loglen != reflen || memcmp(ref, got, reflen) != 0) {
            fprintf(stderr, "fuzz_conn: split feeding differs\nwhole: %.*s\nsplit: %.*s\n",
                    (int)reflen, ref, (int)r.loglen, got);
            abort();
        }
    }
    return 0;
}
