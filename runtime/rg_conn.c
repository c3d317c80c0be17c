/* respgen runtime: the sans-I/O client connection engine (see rg_conn.h).
 *
 * The ring of calls has three indices: first (oldest not released), head (the next to get a
 * reply), tail (the next free). Between first and head sit only commands queued in a MULTI that
 * wait for their EXEC; every other call is released as soon as it completes. */
#include "rg_conn.h"

#include "rg_digits.h"
#include "rg_enc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Private call kinds. */
/* Private call kinds: K_PING is the engine's own PING (after an UNSUBSCRIBE without names),
 * K_USER_PING a caller's. */
/* K_REPLAY: a subscribe the engine replays after a reconnect (rg_conn_config.subs); K_TRACKING:
 * a CLIENT TRACKING, whose success the registry notes. */
enum {
    K_PLAIN,
    K_MULTI,
    K_QUEUED,
    K_EXEC,
    K_DISCARD,
    K_PING,
    K_USER_PING,
    K_HELLO,
    K_RESET,
    K_REPLAY,
    K_TRACKING
};

/* Connect sequence steps. */
enum { HS_HELLO = 1, HS_AUTH, HS_SETNAME, HS_SELECT, HS_ROLE };

#define UNKNOWN_COUNT UINT32_MAX

/* Bytes before a grown input buffer in its block (the retired chain's link), keeping the buffer
 * 16-byte aligned. */
#define BLOCK_HEAD 16

static const rg_rnode RAW_NODES[] = {
    {.accept = RG_RA_ANY, .shape = RG_RS_ANY, .store = RG_RT_NONE, .cval = NULL}};
const rg_rtable rg_conn_raw_table = {"raw", RAW_NODES, sizeof(rg_raw_result), 0};

void rg_call_record_fn(void *ud, const rg_call_done *d) {
    rg_call_record *r = ud;
    const size_t n = d->error.len < sizeof r->error - 1 ? d->error.len : sizeof r->error - 1;
    r->done = true;
    r->status = d->status;
    r->redirect = d->redirect.kind;
    r->written = d->written;
    if (n) memcpy(r->error, d->error.ptr, n);
    r->error[n] = '\0';
}

rg_error rg_conn_error(const rg_conn *c) {
    return (rg_error){c->err_status, c->error, c->err_offset};
}

/* ---- redirects ------------------------------------------------------------------------------ */

static const struct {
    const char *word;
    rg_redirect_kind kind;
} REDIRECTS[] = {
    {"MOVED", RG_REDIRECT_MOVED},
    {"ASK", RG_REDIRECT_ASK},
    {"TRYAGAIN", RG_REDIRECT_TRYAGAIN},
    {"LOADING", RG_REDIRECT_LOADING},
    {"BUSY", RG_REDIRECT_BUSY},
    {"CLUSTERDOWN", RG_REDIRECT_CLUSTERDOWN},
    {"MASTERDOWN", RG_REDIRECT_MASTERDOWN},
};

/* The 1 to 6 digits p[0..n) as a number at most max, or -1. */
static int64_t small_number(const char *p, size_t n, int64_t max) {
    uint64_t v;
    return n <= 6 && rg_digits_u64(p, n, (uint64_t)max, false, &v) ? (int64_t)v : -1;
}

/* "slot host:port" after MOVED/ASK; the host is everything before the last colon (IPv6). */
static bool parse_address(const char *p, size_t n, rg_redirect *out) {
    const char *sp = memchr(p, ' ', n);
    if (!sp) return false;
    const int64_t slot = small_number(p, (size_t)(sp - p), 16383);
    const char *addr = sp + 1, *end = p + n, *colon = NULL;
    for (const char *q = addr; q < end; q++)
        if (*q == ':') colon = q;
    if (slot < 0 || !colon) return false;
    const int64_t port = small_number(colon + 1, (size_t)(end - colon - 1), 65535);
    if (port < 0) return false;
    out->slot = (int32_t)slot;
    out->host = (rg_view){addr, (size_t)(colon - addr)};
    out->port = (uint16_t)port;
    return true;
}

/* ---- roles ---------------------------------------------------------------------------------- */

rg_role rg_role_parse(rg_view raw) {
    static const struct {
        const char *word;
        rg_role role;
    } roles[] = {
        {"master", RG_ROLE_MASTER}, {"slave", RG_ROLE_REPLICA}, {"sentinel", RG_ROLE_SENTINEL}};
    rg_reader r;
    rg_event ev;
    size_t pos = 0;
    rg_reader_init(&r, NULL);
    if (!raw.ptr || rg_next(&r, raw.ptr, raw.len, &pos, &ev) != RG_OK || ev.kind != RG_EV_ARRAY ||
        ev.u.i < 1 || rg_next(&r, raw.ptr, raw.len, &pos, &ev) != RG_OK ||
        (ev.kind != RG_EV_BULK && ev.kind != RG_EV_SIMPLE))
        return RG_ROLE_ANY;
    for (size_t k = 0; k < sizeof roles / sizeof roles[0]; k++)
        if (rg_view_eq(ev.str, rg_cstr(roles[k].word))) return roles[k].role;
    return RG_ROLE_ANY;
}

const char *rg_role_name(rg_role r) {
    static const char *const names[] = {"unknown", "master", "replica", "sentinel"};
    return (unsigned)r < sizeof names / sizeof names[0] ? names[r] : names[0];
}

rg_redirect_kind rg_redirect_parse(rg_view error, rg_redirect *out) {
    memset(out, 0, sizeof *out);
    out->slot = -1;
    for (size_t k = 0; k < sizeof REDIRECTS / sizeof REDIRECTS[0]; k++) {
        const size_t w = strlen(REDIRECTS[k].word);
        if (error.len < w || memcmp(error.ptr, REDIRECTS[k].word, w) != 0) continue;
        if (error.len > w && error.ptr[w] != ' ') continue; /* BUSYKEY is not BUSY */
        const rg_redirect_kind kind = REDIRECTS[k].kind;
        if (kind == RG_REDIRECT_MOVED || kind == RG_REDIRECT_ASK) {
            if (error.len <= w || !parse_address(error.ptr + w + 1, error.len - w - 1, out))
                return out->kind = RG_REDIRECT_NONE;
        }
        return out->kind = kind;
    }
    return RG_REDIRECT_NONE;
}

/* ---- the ring ------------------------------------------------------------------------------- */

static rg_call *slot(const rg_conn *c, size_t i) {
    return &c->cfg.calls[i & (c->cfg.ncalls - 1)]; /* a power of two: no division */
}

/* Frees completed calls at the front. */
static void release(rg_conn *c) {
    while (c->first < c->head && slot(c, c->first)->done) c->first++;
    c->used = c->tail - c->first;
}

/* complete's rarer half, out of line so that an OK completion stays small enough to inline. */
static RG_NOINLINE void complete_failed(rg_conn *c, rg_call *call, rg_call_done *d) {
    const rg_status st = d->status;
    if (st == RG_SERVER_ERROR) rg_redirect_parse(d->error, &d->redirect);
    if (st == RG_SHORT || st == RG_FULL) d->needed = c->storage_need;
    if (st == RG_CLOSED || st == RG_TIMEOUT || st == RG_ABANDONED)
        d->written = call->end <= c->out_base + c->out_sent;
    call->cb(call->ud, d);
}

/* A Pub/Sub call completes: once none is pending, no subscribe's names need promised room. */
static void pubsub_done(rg_conn *c, const rg_call *call) {
    if (--c->pubsub_pending == 0) c->subs_reserved = 0;
    if (call->kind == K_REPLAY) c->replay_left--;
}

static void complete(rg_conn *c, rg_call *call, rg_status st, rg_view error, const rg_push *push) {
    /* Once, whatever a callback did meanwhile (closing the connection completes the rest). */
    if (call->done) return;
    if (call->flags & RG_CALL_F_PUBSUB) pubsub_done(c, call);
    call->done = true;
    const rg_view reply = c->done_reply; /* this call's only: not a later one's in its callback */
    c->done_reply = (rg_view){NULL, 0};
    if (!call->cb) return;
    rg_call_done d = {st, call->id, call->result, error, {RG_REDIRECT_NONE, -1, {NULL, 0}, 0},
                      0,  push,     true,         reply};
    if (st != RG_OK) {
        complete_failed(c, call, &d);
        return;
    }
    call->cb(call->ud, &d);
}

/* Completes every call not completed yet, in order, with st, or RG_TIMEOUT when its
 * deadline is at most now (started deadlines are below RG_DEADLINE_UNSTARTED; now 0: none); the
 * ring is then empty. */
static void tracking_lost(rg_conn *c);

static void fail_all(rg_conn *c, rg_status st, uint64_t now) {
    const size_t end = c->tail;
    for (size_t i = c->first; i < end; i++) {
        rg_call *call = slot(c, i);
        const bool late = call->deadline && call->deadline <= now;
        if (!call->done) complete(c, call, late ? RG_TIMEOUT : st, c->error, NULL);
    }
    c->first = c->head = c->tail = end;
    c->used = 0;
    c->pubsub_pending = c->replay_left = 0;
    c->subs_reserved = 0;
    tracking_lost(c);
}

static void set_error(rg_conn *c, rg_status st, const char *what, rg_view detail) {
    c->err_status = st;
    const int shown = detail.len > 100 ? 100 : (int)detail.len;
    snprintf(c->msg, sizeof c->msg, "%s%s%.*s", what, shown && *what ? ": " : "", shown,
             detail.ptr ? detail.ptr : "");
    c->error = (rg_view){c->msg, strlen(c->msg)};
}

/* After a loss a client-side cache cannot know what it missed: one synthetic "flush all", to
 * on_push when tracking was seen, and always to an invalidation hook (rg_conn_on_invalidate). */
static void tracking_reset(rg_conn *c) {
    rg_push p;
    const bool seen = c->tracking;
    c->tracking = false;
    if ((!seen || !c->cfg.on_push) && !c->inval_fn) return;
    memset(&p, 0, sizeof p);
    p.kind = RG_PUSH_INVALIDATE;
    p.name = RG_LIT("invalidate");
    p.flush_all = true;
    if (c->inval_fn) c->inval_fn(c->inval_ud, &p);
    if (seen && c->cfg.on_push) c->cfg.on_push(c->cfg.push_ud, &p);
}

/* The connection fails with st (what rg_conn_error tells); pending calls end with st when the
 * stream broke (the sticky errors), else RG_CLOSED (or RG_TIMEOUT when their deadline passed). */
static void fail_at(rg_conn *c, rg_status st, const char *what, rg_view detail, uint64_t now) {
    if (c->state == RG_CONN_FAILED) return;
    set_error(c, st, what, detail);
    c->err_offset = c->in_base + c->in_pos;
    c->state = RG_CONN_FAILED;
    c->hs_n = c->hs_i = 0;
    c->hs_deadline = 0;
    fail_all(c, rg_status_fatal(st) ? st : RG_CLOSED, now);
    tracking_reset(c);
}

static void fail(rg_conn *c, rg_status st, const char *what, rg_view detail) {
    fail_at(c, st, what, detail, 0);
}

void rg_conn_closed(rg_conn *c, rg_view why) {
    fail(c, RG_CLOSED, why.len ? "" : "connection closed", why);
}

bool rg_conn_call_done(const rg_conn *c, uint64_t id) {
    if (c->used == 0) return true;
    const uint64_t oldest = slot(c, c->first)->id;
    if (id < oldest || id - oldest >= c->used) return true;
    return slot(c, c->first + (size_t)(id - oldest))->done;
}

rg_status rg_conn_abandon(rg_conn *c, uint64_t id) {
    if (rg_conn_call_done(c, id)) return RG_INVALID;
    rg_call *call = slot(c, c->first + (size_t)(id - slot(c, c->first)->id));
    if (call->kind != K_PLAIN || (call->flags & RG_CALL_F_PUBSUB)) return RG_INVALID;
    /* before the callback, which may queue calls and so move the ring (grow_ring) */
    call->kind = K_PING; /* decoded raw and dropped, as an internal PING's */
    complete(c, call, RG_ABANDONED, RG_LIT("abandoned: its reply will be dropped"), NULL);
    return RG_OK;
}

/* ---- output --------------------------------------------------------------------------------- */

const char *rg_conn_output(const rg_conn *c, size_t *n) {
    *n = c->out_ready - c->out_sent;
    return *n ? c->cfg.out + c->out_sent : NULL;
}

/* Grown output blocks, as grown input ones: BLOCK_HEAD bytes (the retired chain's link) in front
 * of the buffer. */
static bool out_grown(const rg_conn *c) {
    return c->cfg.out != c->out_own;
}

/* The grown output blocks replaced while pinned: nothing reads them any more. */
static void free_out_retired(rg_conn *c) {
    while (c->out_retired) {
        char *const block = c->out_retired;
        memcpy(&c->out_retired, block, sizeof(char *));
        c->cfg.alloc(c->cfg.alloc_ud, block, 0);
    }
}

/* An empty output: a grown buffer larger than RG_CONN_KEEP_GROWN goes back (one big request does
 * not pin its size for the connection's life). */
static void shrink_out(rg_conn *c) {
    if (!out_grown(c) || c->cfg.out_cap <= RG_CONN_KEEP_GROWN) return;
    c->cfg.alloc(c->cfg.alloc_ud, c->cfg.out - BLOCK_HEAD, 0);
    c->cfg.out = c->out_own;
    c->cfg.out_cap = c->out_own_cap;
}

void rg_conn_written(rg_conn *c, size_t n) {
    c->out_sent += n;
    if (c->out_sent == c->out_len && !c->out_pinned) {
        c->out_base += c->out_len;
        c->out_sent = c->out_ready = c->out_len = c->held_from = 0;
        shrink_out(c);
    }
}

void rg_conn_output_pin(rg_conn *c, bool on) {
    c->out_pinned = on;
    if (on) return;
    free_out_retired(c);
    if (c->out_sent == c->out_len) rg_conn_written(c, 0);
}

/* Drops the sent bytes: the unsent ones (and `extra` written past them) move to the front. */
static void compact_out(rg_conn *c, size_t extra) {
    if (c->out_sent == 0 || c->out_pinned) return;
    memmove(c->cfg.out, c->cfg.out + c->out_sent, c->out_len + extra - c->out_sent);
    c->out_base += c->out_sent;
    c->out_len -= c->out_sent;
    c->out_ready -= c->out_sent;
    c->held_from = c->held_from > c->out_sent ? c->held_from - c->out_sent : 0;
    c->out_sent = 0;
}

/* With cfg.alloc: a larger output, for `extra` bytes already written past out_len (a request not
 * committed yet) and n more after them. The bytes keep their offsets; pinned, they are copied to
 * a new block and the old one (when grown) is retired until unpinned; else a grown block is
 * resized. NULL (nothing changed) above max_out or when the allocator refuses. */
static RG_NOINLINE char *grow_out(rg_conn *c, size_t extra, size_t n) {
    const size_t max = c->cfg.max_out;
    if (!c->cfg.alloc || c->state == RG_CONN_RELAY) return NULL;
    compact_out(c, extra);
    const size_t used = c->out_len + extra;
    if (n > max || used > max - n) return NULL;
    size_t to = c->cfg.out_cap >= 64 ? c->cfg.out_cap : 64;
    while (to < used + n) to = to > max / 2 ? max : to * 2;
    const bool move = !out_grown(c) || c->out_pinned;
    char *const block =
        c->cfg.alloc(c->cfg.alloc_ud, move ? NULL : c->cfg.out - BLOCK_HEAD, BLOCK_HEAD + to);
    if (!block) return NULL;
    if (move) {
        memcpy(block + BLOCK_HEAD, c->cfg.out, used);
        if (out_grown(c)) { /* pinned: a write may still read it */
            memcpy(c->cfg.out - BLOCK_HEAD, &c->out_retired, sizeof(char *));
            c->out_retired = c->cfg.out - BLOCK_HEAD;
        }
    }
    c->cfg.out = block + BLOCK_HEAD;
    c->cfg.out_cap = to;
    return c->cfg.out + c->out_len;
}

/* Room for n bytes at the end of the output, moving unsent bytes to the front if need be, else
 * growing it (cfg.alloc). */
static char *room(rg_conn *c, size_t n) {
    if (c->cfg.out_cap - c->out_len >= n) return c->cfg.out + c->out_len;
    if (c->out_sent && !c->out_pinned && c->cfg.out_cap - (c->out_len - c->out_sent) >= n) {
        compact_out(c, 0);
        return c->cfg.out + c->out_len;
    }
    return grow_out(c, 0, n);
}

/* The ring doubles (cfg.alloc), up to max_calls: every pending call is copied to the index its
 * position maps to in the larger ring, so positions and ids stay what they were. Only pointers
 * into the old ring die: the engine takes its calls again from their positions after any
 * callback (a callback may make calls). */
static RG_NOINLINE bool grow_ring(rg_conn *c, size_t k) {
    const size_t n = c->cfg.ncalls, max = c->cfg.max_calls;
    size_t to = n;
    while (to <= max / 2 && c->used + k > to) to *= 2;
    if (!c->cfg.alloc || c->state == RG_CONN_RELAY || c->used + k > to) return false;
    rg_call *const ring = c->cfg.alloc(c->cfg.alloc_ud, NULL, to * sizeof *ring);
    if (!ring) return false;
    for (size_t i = c->first; i < c->tail; i++) ring[i & (to - 1)] = c->cfg.calls[i & (n - 1)];
    if (c->cfg.calls != c->calls_own) c->cfg.alloc(c->cfg.alloc_ud, c->cfg.calls, 0);
    c->cfg.calls = ring;
    c->cfg.ncalls = to;
    return true;
}

/* Are k call slots free (growing the ring if need be)? */
static inline bool calls_free(rg_conn *c, size_t k) {
    return c->used + k <= c->cfg.ncalls || grow_ring(c, k);
}

char *rg_conn_reserve(rg_conn *c, size_t n) {
    if (c->state == RG_CONN_FAILED || !calls_free(c, 1) || n == 0) return NULL;
    return room(c, n);
}

/* rg_conn_room when no slot is free or the connection failed: out of line, so that the common
 * case saves no registers for the ring's growth. */
static RG_NOINLINE char *room_full(rg_conn *c, size_t *cap) {
    *cap = 0;
    if (c->state == RG_CONN_FAILED || !grow_ring(c, 1)) return NULL;
    *cap = c->cfg.out_cap - c->out_len;
    return c->cfg.out + c->out_len;
}

char *rg_conn_room(rg_conn *c, size_t *cap) {
    if (c->state == RG_CONN_FAILED || c->used == c->cfg.ncalls) return room_full(c, cap);
    *cap = c->cfg.out_cap - c->out_len;
    return c->cfg.out + c->out_len;
}

static rg_call *push_call(rg_conn *c, const rg_rtable *t, void *result, rg_call_fn cb, void *ud) {
    rg_call *call = slot(c, c->tail++);
    c->used++;
    const uint64_t deadline = c->cfg.timeout_ms ? RG_DEADLINE_UNSTARTED | c->cfg.timeout_ms : 0;
    *call = (rg_call){t,        result,     cb, ud, NULL,    0, ++c->next_id,
                      deadline, UINT64_MAX, 0,  0,  K_PLAIN, 0, false};
    return call;
}

/* ---- the subscription registry -------------------------------------------------------------- */

/* Entries: one class byte (S_*), the name's length (4 bytes, host order), the name. */
enum { S_CHANNEL, S_PATTERN, S_SHARD, S_CLASSES };
/* Beside them: the CLIENT TRACKING request that succeeded last, and those still unanswered. */
enum { S_TRACKING = S_CLASSES, S_TRACKING_SENT };

/* The confirmation and subscribe command of each class. */
static const struct {
    rg_push_kind sub, unsub;
    const char *command;
} SUB_CLASS[S_CLASSES] = {
    {RG_PUSH_SUBSCRIBE, RG_PUSH_UNSUBSCRIBE, "SUBSCRIBE"},
    {RG_PUSH_PSUBSCRIBE, RG_PUSH_PUNSUBSCRIBE, "PSUBSCRIBE"},
    {RG_PUSH_SSUBSCRIBE, RG_PUSH_SUNSUBSCRIBE, "SSUBSCRIBE"},
};

static bool subs_on(const rg_conn *c) {
    return c->subs || c->subs_own;
}

/* The entry at *at: its class and name; *at moves past it. */
static uint8_t sub_entry(const rg_conn *c, size_t *at, rg_view *name) {
    const uint8_t cls = (uint8_t)c->subs[*at];
    uint32_t len;
    memcpy(&len, c->subs + *at + 1, 4);
    *name = (rg_view){c->subs + *at + RG_CONN_SUB_OVERHEAD, len};
    *at += RG_CONN_SUB_OVERHEAD + len;
    return cls;
}

/* Room for need bytes in all: grown through cfg.alloc when the registry is the engine's. */
static bool subs_room(rg_conn *c, size_t need) {
    if (need <= c->subs_cap) return true;
    if (!c->subs_own || need > c->subs_max) return false;
    size_t to = c->subs_cap ? c->subs_cap * 2 : 256;
    to = to < need ? need : to > c->subs_max ? c->subs_max : to;
    char *const p = c->cfg.alloc(c->cfg.alloc_ud, c->subs, to);
    if (!p) return false;
    c->subs = p;
    c->subs_cap = to;
    return true;
}

/* The registry bytes of a subscribe's names (its request's words after the first), read in
 * place: the request is one whole canonical one, as every encoder (and rg_cmd_lookup's check)
 * makes it. */
static size_t names_size(const char *req, size_t n) {
    const char *const e = req + n;
    uint64_t words = 0, len = 0;
    size_t at = (size_t)(rg_digits_read(req + 1, e, UINT32_MAX, &words) - req) + 2, need = 0;
    for (uint64_t w = 0; w < words && at < n; w++) {
        at = (size_t)(rg_digits_read(req + at + 1, e, UINT32_MAX, &len) - req) + 2;
        if (w) need += RG_CONN_SUB_OVERHEAD + (size_t)len;
        at += (size_t)len + 2;
    }
    return need;
}

/* A subscribe is committed: room for its names is promised until no Pub/Sub call is pending, so
 * that their confirmations always fit the registry. False: it would not. */
static bool subs_promise(rg_conn *c, const char *req, size_t n) {
    if (!subs_on(c)) return true;
    const size_t need = names_size(req, n), want = c->subs_len + c->subs_reserved + need;
    if (want < need || !subs_room(c, want)) return false;
    c->subs_reserved += need;
    return true;
}

static bool subs_find(const rg_conn *c, uint8_t cls, rg_view name, size_t *where) {
    rg_view v;
    for (size_t at = 0; at < c->subs_len;) {
        *where = at;
        if (sub_entry(c, &at, &v) == cls && v.len == name.len &&
            memcmp(v.ptr, name.ptr, v.len) == 0)
            return true;
    }
    return false;
}

static void subs_add(rg_conn *c, uint8_t cls, rg_view name) {
    size_t at;
    const size_t need = RG_CONN_SUB_OVERHEAD + name.len;
    if (!name.ptr || name.len > UINT32_MAX || subs_find(c, cls, name, &at)) return;
    if (!subs_room(c, c->subs_len + need)) return; /* not promised: a subscribe made elsewhere */
    const uint32_t len = (uint32_t)name.len;
    c->subs[c->subs_len] = (char)cls;
    memcpy(c->subs + c->subs_len + 1, &len, 4);
    memcpy(c->subs + c->subs_len + RG_CONN_SUB_OVERHEAD, name.ptr, name.len);
    c->subs_len += need;
    c->subs_reserved = c->subs_reserved > need ? c->subs_reserved - need : 0;
}

/* Drops the entries of class cls named name (any when name.ptr is NULL): their places close
 * up. */
static void subs_drop(rg_conn *c, uint8_t cls, rg_view name) {
    size_t to = 0;
    rg_view v;
    for (size_t at = 0; at < c->subs_len;) {
        const size_t from = at;
        const uint8_t k = sub_entry(c, &at, &v);
        const bool hit =
            k == cls && (!name.ptr || (v.len == name.len && memcmp(v.ptr, name.ptr, v.len) == 0));
        if (!hit && to != from) memmove(c->subs + to, c->subs + from, at - from);
        if (!hit) to += at - from;
    }
    c->subs_len = to;
}

/* A confirmation updates the registry: a name in or out; none left of a class, the class out
 * (channels and patterns share one count, shard channels have their own). */
static void subs_note(rg_conn *c, const rg_push *p) {
    if (!subs_on(c)) return;
    for (uint8_t k = 0; k < S_CLASSES; k++) {
        if (p->kind == SUB_CLASS[k].sub) subs_add(c, k, p->channel);
        if (p->kind != SUB_CLASS[k].unsub) continue;
        if (p->channel.ptr) subs_drop(c, k, p->channel);
        if (p->subscriptions <= 0 && k == S_SHARD) subs_drop(c, S_SHARD, (rg_view){NULL, 0});
        if (p->subscriptions <= 0 && k != S_SHARD) {
            subs_drop(c, S_CHANNEL, (rg_view){NULL, 0});
            subs_drop(c, S_PATTERN, (rg_view){NULL, 0});
        }
    }
}

size_t rg_conn_subscriptions(const rg_conn *c) {
    size_t n = 0;
    rg_view v;
    for (size_t at = 0; c->subs && at < c->subs_len;) n += sub_entry(c, &at, &v) < S_CLASSES;
    return n;
}

/* One subscribe of class cls with every registered name of it, behind the connect sequence;
 * false when it does not fit the output or the ring. */
static bool replay_class(rg_conn *c, uint8_t cls) {
    size_t count = 0, n = 0;
    rg_view v;
    for (size_t at = 0; at < c->subs_len;) {
        if (sub_entry(c, &at, &v) != cls) continue;
        count++;
        n += rg_bulk_size(v.len);
    }
    if (!count) return true;
    const rg_view cmd = rg_cstr(SUB_CLASS[cls].command);
    n += rg_array_header_size(count + 1) + rg_bulk_size(cmd.len);
    char *dst = room(c, n);
    if (!dst || c->used == c->cfg.ncalls) return false;
    dst = rg_put_bulk(rg_put_array_header(dst, count + 1), cmd.ptr, cmd.len);
    for (size_t at = 0; at < c->subs_len;)
        if (sub_entry(c, &at, &v) == cls) dst = rg_put_bulk(dst, v.ptr, v.len);
    rg_call *call = push_call(c, &rg_conn_raw_table, NULL, NULL, NULL);
    call->deadline = 0; /* it waits out the reconnect with the connect sequence */
    call->kind = K_REPLAY;
    call->flags = RG_CALL_F_PUBSUB;
    call->pubsub = (uint8_t)SUB_CLASS[cls].sub;
    call->expect = (uint32_t)count;
    c->out_len += n;
    call->end = c->out_base + c->out_len;
    c->pubsub_pending++;
    c->replay_left++;
    return true;
}

/* Is v the word w (upper case), ASCII-caselessly? */
static bool is_word(rg_view v, const char *w) {
    const size_t n = strlen(w);
    if (v.len != n) return false;
    for (size_t i = 0; i < n; i++)
        if ((v.ptr[i] >= 'a' && v.ptr[i] <= 'z' ? v.ptr[i] - 32 : v.ptr[i]) != w[i]) return false;
    return true;
}

/* The first entry of class cls: [*from, *to) and its bytes; false when there is none. */
static bool find_class(const rg_conn *c, uint8_t cls, size_t *from, size_t *to, rg_view *v) {
    for (size_t at = 0; at < c->subs_len;) {
        *from = at;
        if (sub_entry(c, &at, v) == cls) {
            *to = at;
            return true;
        }
    }
    return false;
}

/* CLIENT TRACKING: the request of one without REDIRECT (the client id it names dies with the
 * connection) is kept in the registry while unanswered (S_TRACKING_SENT) and, once OK, as the one
 * to replay: ON replaces the last, OFF removes it. Inside MULTI, or with more than 64 words,
 * nothing is noted. False: it does not fit (the call is refused, as a subscribe's names that do
 * not fit). */
static bool tracking_sent(rg_conn *c, const char *req, size_t n) {
    rg_view argv[64];
    const size_t argc = rg_request_argv(req, n, argv, 64);
    if (!subs_on(c) || c->in_multi || argc > 64 || n > UINT32_MAX) return true;
    for (size_t i = 2; i < argc; i++)
        if (is_word(argv[i], "REDIRECT")) return true;
    if (!subs_room(c, c->subs_len + c->subs_reserved + RG_CONN_SUB_OVERHEAD + n)) return false;
    const uint32_t len = (uint32_t)n;
    c->subs[c->subs_len] = (char)S_TRACKING_SENT;
    memcpy(c->subs + c->subs_len + 1, &len, 4);
    memcpy(c->subs + c->subs_len + RG_CONN_SUB_OVERHEAD, req, n);
    c->subs_len += RG_CONN_SUB_OVERHEAD + n;
    return true;
}

/* A CLIENT TRACKING was answered (ok: +OK): its noted request, the oldest unanswered one, is
 * kept (ON) or dropped with the kept one (OFF), or dropped (an error). */
static void tracking_answered(rg_conn *c, bool ok) {
    size_t from, to;
    rg_view req, argv[3];
    if (!find_class(c, S_TRACKING_SENT, &from, &to, &req)) return; /* not noted */
    const bool on =
        ok && rg_request_argv(req.ptr, req.len, argv, 3) >= 3 && !is_word(argv[2], "OFF");
    if (ok) subs_drop(c, S_TRACKING, (rg_view){NULL, 0});
    find_class(c, S_TRACKING_SENT, &from, &to, &req); /* it may have moved down */
    if (on) {
        c->subs[from] = (char)S_TRACKING;
        return;
    }
    memmove(c->subs + from, c->subs + to, c->subs_len - to);
    c->subs_len -= to - from;
}

/* The connection is gone: unanswered CLIENT TRACKINGs will never be. */
static void tracking_lost(rg_conn *c) {
    if (c->subs_len) subs_drop(c, S_TRACKING_SENT, (rg_view){NULL, 0});
}

/* The kept CLIENT TRACKING, sent again behind the subscribes (its reply checked and dropped). */
static bool replay_tracking(rg_conn *c) {
    rg_view req;
    for (size_t at = 0; at < c->subs_len;) {
        if (sub_entry(c, &at, &req) != S_TRACKING) continue;
        char *dst = room(c, req.len);
        if (!dst || c->used == c->cfg.ncalls) return false;
        memcpy(dst, req.ptr, req.len);
        rg_call *call = push_call(c, &rg_conn_raw_table, NULL, NULL, NULL);
        call->deadline = 0;
        call->kind = K_REPLAY; /* "ready" waits for it too */
        c->out_len += req.len;
        call->end = c->out_base + c->out_len;
        c->replay_left++;
        c->tracking = true; /* a loss flushes caches again */
        return true;
    }
    return true;
}

static bool replay(rg_conn *c) {
    bool ok = true;
    for (uint8_t k = 0; k < S_CLASSES && ok; k++) ok = replay_class(c, k);
    return ok && replay_tracking(c);
}

static const char PING[] = "*1\r\n$4\r\nPING\r\n";

/* An UNSUBSCRIBE without names gets as many confirmations as there were subscriptions: an
 * internal PING after it tells where they end. */
static bool add_ping(rg_conn *c, size_t n) {
    if (!calls_free(c, 2)) return false;
    if (c->cfg.out_cap - c->out_len - n < sizeof PING - 1 && !grow_out(c, n, sizeof PING - 1))
        return false;
    memcpy(c->cfg.out + c->out_len + n, PING, sizeof PING - 1);
    return true;
}

/* The word count of the request just written ("*<n>\r\n", as every encoder writes it): how many
 * names a (un)subscribe confirms, whether a PING carries a message. Not the name: the
 * descriptor says which command it is. */
static uint32_t request_words(const char *req, size_t n) {
    uint64_t words = 0;
    if (n > 1) rg_digits_read(req + 1, req + (n < 8 ? n : 8), UINT32_MAX, &words);
    return (uint32_t)words;
}

/* The engine's private call kind of a command kind (a table: rg_cmd_kind's order). */
static const uint8_t CALL_KIND[RG_CMD_KIND_COUNT] = {
    [RG_CMD_PLAIN] = K_PLAIN,       [RG_CMD_SUBSCRIBE] = K_PLAIN, [RG_CMD_UNSUBSCRIBE] = K_PLAIN,
    [RG_CMD_MULTI] = K_MULTI,       [RG_CMD_EXEC] = K_EXEC,       [RG_CMD_DISCARD] = K_DISCARD,
    [RG_CMD_PING] = K_USER_PING,    [RG_CMD_HELLO] = K_HELLO,     [RG_CMD_RESET] = K_RESET,
    [RG_CMD_TRACKING] = K_TRACKING,
};

/* rg_conn_commit of a command whose kind is not plain: out of line, so that the common case
 * saves no registers for it. */
static RG_NOINLINE uint64_t commit_special(rg_conn *c, size_t n, const rg_cmd *cmd,
                                           const rg_rtable *table, void *result, rg_call_fn cb,
                                           void *ud) {
    const uint32_t argc = request_words(c->cfg.out + c->out_len, n);
    const uint8_t kind = cmd->kind < RG_CMD_KIND_COUNT ? CALL_KIND[cmd->kind] : K_PLAIN;
    const bool pubsub = cmd->kind == RG_CMD_SUBSCRIBE || cmd->kind == RG_CMD_UNSUBSCRIBE;
    if (pubsub && (c->in_multi || (argc < 2 && !add_ping(c, n)))) return 0;
    if (kind == K_MULTI && c->in_multi) return 0;
    if (cmd->kind == RG_CMD_SUBSCRIBE && !subs_promise(c, c->cfg.out + c->out_len, n)) return 0;
    if (cmd->kind == RG_CMD_TRACKING && !tracking_sent(c, c->cfg.out + c->out_len, n)) return 0;
    c->tracking = c->tracking || cmd->kind == RG_CMD_TRACKING;
    rg_call *call = push_call(c, table ? table : &rg_conn_raw_table, result, cb, ud);
    call->flags = pubsub ? RG_CALL_F_PUBSUB : 0;
    call->kind = c->in_multi && kind != K_EXEC && kind != K_DISCARD ? K_QUEUED : kind;
    c->in_multi = kind == K_MULTI || (c->in_multi && kind != K_EXEC && kind != K_DISCARD);
    c->out_len += n;
    call->end = c->out_base + c->out_len;
    if (kind == K_USER_PING) call->expect = argc;
    if (pubsub) {
        call->pubsub = cmd->pubsub;
        call->expect = argc < 2 ? UNKNOWN_COUNT : argc - 1;
        c->pubsub_pending++;
        if (argc < 2) {
            rg_call *ping = push_call(c, &rg_conn_raw_table, NULL, NULL, NULL);
            ping->kind = K_PING;
            c->out_len += sizeof PING - 1;
            ping->end = c->out_base + c->out_len;
        }
    }
    if (c->state == RG_CONN_READY) c->out_ready = c->out_len;
    return call->id;
}

/* A front's commit: handed to its relay (rg_conn_relay_init). */
static inline uint64_t relay(rg_conn *c, size_t n, const rg_cmd *cmd, const rg_rtable *table,
                             void *result, rg_call_fn cb, void *ud) {
    const rg_relayed call = {c->cfg.out + c->out_len, n, cmd, table, c->relay_slot, result, cb, ud};
    c->relay_slot = RG_SLOT_UNKNOWN;
    return n && c->state == RG_CONN_RELAY ? c->relay(c->relay_ud, &call) : 0;
}

static uint64_t commit_now(rg_conn *c, size_t n, const rg_cmd *cmd, const rg_rtable *table,
                           void *result, rg_call_fn cb, void *ud);

/* A commit that is no common one: a front's, a refused one, one with the ring full (it grows
 * through cfg.alloc, or the call is refused), or one while offline (queued within
 * cfg.queue_calls and queue_bytes, else refused). Out of line: the common path pays one
 * compare for all of them. */
static RG_NOINLINE uint64_t commit_rare(rg_conn *c, size_t n, const rg_cmd *cmd,
                                        const rg_rtable *table, void *result, rg_call_fn cb,
                                        void *ud) {
    if (n == 0 || c->state >= RG_CONN_FAILED) return relay(c, n, cmd, table, result, cb, ud);
    if (c->used == c->cfg.ncalls && !grow_ring(c, 1)) return 0;
    if (!c->offline) return commit_now(c, n, cmd, table, result, cb, ud);
    const rg_conn_config *f = &c->cfg;
    if (c->queued_calls >= f->queue_calls ||
        (f->queue_bytes && n > f->queue_bytes - c->queued_bytes))
        return 0;
    const uint64_t id = commit_now(c, n, cmd, table, result, cb, ud);
    if (id) {
        c->queued_calls++;
        c->queued_bytes += n;
    }
    return id;
}

static uint64_t commit(rg_conn *c, size_t n, const rg_cmd *cmd, const rg_rtable *table,
                       void *result, rg_call_fn cb, void *ud) {
    /* FAILED or RG_CONN_RELAY: one compare for both, a front costs the socket's path nothing */
    if (n == 0 || c->state >= RG_CONN_FAILED || c->used == c->cfg.ncalls || c->offline)
        return commit_rare(c, n, cmd, table, result, cb, ud);
    return commit_now(c, n, cmd, table, result, cb, ud);
}

static uint64_t commit_now(rg_conn *c, size_t n, const rg_cmd *cmd, const rg_rtable *table,
                           void *result, rg_call_fn cb, void *ud) {
    if (cmd && cmd->kind != RG_CMD_PLAIN) return commit_special(c, n, cmd, table, result, cb, ud);
    rg_call *call = push_call(c, table ? table : &rg_conn_raw_table, result, cb, ud);
    call->kind = c->in_multi ? K_QUEUED : K_PLAIN;
    c->out_len += n;
    call->end = c->out_base + c->out_len;
    if (c->state == RG_CONN_READY) c->out_ready = c->out_len;
    return call->id;
}

uint64_t rg_conn_commit(rg_conn *c, size_t n, const rg_cmd *cmd, void *result, rg_call_fn cb,
                        void *ud) {
    return commit(c, n, cmd, cmd->reply, result, cb, ud);
}

uint64_t rg_conn_commit_request(rg_conn *c, size_t n, const rg_rtable *table, void *result,
                                rg_call_fn cb, void *ud) {
    rg_view words[2] = {{NULL, 0}, {NULL, 0}};
    const rg_cmd *cmd = NULL;
    if (n && c->state < RG_CONN_FAILED && calls_free(c, 1) &&
        rg_request_argv(c->cfg.out + c->out_len, n, words, 2))
        cmd = rg_cmd_lookup(words[0], words[1]);
    return commit(c, n, cmd, table, result, cb, ud);
}

uint64_t rg_conn_commit_plain(rg_conn *c, size_t n, const rg_rtable *table, void *result,
                              rg_call_fn cb, void *ud) {
    return commit(c, n, NULL, table, result, cb, ud);
}

/* The call just made (id), skipping the internal PING behind an UNSUBSCRIBE; NULL if not it. */
static rg_call *last_call(rg_conn *c, uint64_t id, size_t *at) {
    if (c->used == 0) return NULL;
    *at = c->tail - 1;
    if (slot(c, *at)->kind == K_PING && c->used > 1) --*at;
    rg_call *call = slot(c, *at);
    return call->id == id ? call : NULL;
}

rg_status rg_conn_call_storage(rg_conn *c, uint64_t id, void *mem, size_t cap) {
    size_t at;
    rg_call *call = last_call(c, id, &at);
    if (!call) return RG_INVALID;
    call->mem = mem;
    call->cap = mem ? cap : 0;
    return RG_OK;
}

void rg_conn_each_pending(rg_conn *c, rg_call_visit_fn fn, void *ctx) {
    for (size_t i = c->first; i < c->tail; i++)
        if (!slot(c, i)->done) fn(ctx, slot(c, i));
}

const void *rg_conn_decoding(const rg_conn *c) {
    return c->mid_reply ? c->rr.out : NULL;
}

/* ---- deadlines ------------------------------------------------------------------------------ */

rg_status rg_conn_call_timeout(rg_conn *c, uint64_t id, uint32_t timeout_ms) {
    size_t at;
    rg_call *call = last_call(c, id, &at);
    if (!call) return RG_INVALID;
    call->deadline = timeout_ms ? RG_DEADLINE_UNSTARTED | timeout_ms : 0;
    if (c->stamp_from > at) c->stamp_from = at; /* started already: start it again */
    c->timed = c->timed || timeout_ms;
    return RG_OK;
}

/* Starts an unstarted deadline at now (saturating below RG_DEADLINE_UNSTARTED). */
static void start_deadline(uint64_t *d, uint64_t now) {
    if (!(*d & RG_DEADLINE_UNSTARTED)) return;
    const uint64_t ms = *d & ~RG_DEADLINE_UNSTARTED;
    const uint64_t cap = RG_DEADLINE_UNSTARTED - 1;
    *d = now >= cap - ms ? cap : now + ms;
}

uint64_t rg_conn_next_deadline(rg_conn *c, uint64_t now_ms) {
    if (!c->timed || c->state == RG_CONN_FAILED) return RG_DEADLINE_NONE;
    uint64_t next = RG_DEADLINE_NONE;
    if (c->hs_deadline && !c->offline) { /* it starts with the socket (rg_conn_online) */
        start_deadline(&c->hs_deadline, now_ms);
        next = c->hs_deadline;
    }
    if (c->stamp_from < c->first) c->stamp_from = c->first;
    for (size_t i = c->stamp_from; i < c->tail; i++) start_deadline(&slot(c, i)->deadline, now_ms);
    c->stamp_from = c->tail;
    /* Per-call timeouts may differ, so deadlines are not in ring order: a walk (only when used). */
    for (size_t i = c->first; i < c->tail; i++) {
        const rg_call *call = slot(c, i);
        if (!call->done && call->deadline && call->deadline < next) next = call->deadline;
    }
    return next;
}

rg_conn_state rg_conn_expire(rg_conn *c, uint64_t now_ms) {
    if (rg_conn_next_deadline(c, now_ms) > now_ms) return c->state;
    const bool connecting = c->hs_deadline && c->hs_deadline <= now_ms;
    /* Calls whose deadline passed get RG_TIMEOUT, the others RG_CLOSED. */
    fail_at(c, RG_TIMEOUT,
            connecting ? "timeout: the connect sequence was not answered in time"
                       : "timeout: no reply in time (the connection is closed)",
            (rg_view){NULL, 0}, now_ms);
    return c->state;
}

uint64_t rg_conn_call_argv(rg_conn *c, size_t argc, const rg_view *argv, const rg_rtable *table,
                           void *result, rg_call_fn cb, void *ud) {
    const size_t n = rg_argv_size(argc, argv);
    char *dst = rg_conn_reserve(c, n);
    if (!dst || rg_argv_encode(dst, n, argc, argv) != n) return 0;
    return rg_conn_commit_request(c, n, table, result, cb, ud);
}

/* ---- connect sequence ----------------------------------------------------------------------- */

/* Writes an internal request at the end of the output; false when it does not fit. */
static bool put_internal(rg_conn *c, uint8_t step, size_t argc, const rg_view *argv) {
    const size_t n = rg_argv_size(argc, argv);
    char *dst = room(c, n);
    if (!dst || c->hs_n >= sizeof c->hs_steps) return false;
    rg_argv_encode(dst, n, argc, argv);
    c->out_len += n;
    c->hs_steps[c->hs_n++] = step;
    return true;
}

/* AUTH [user] password, when there is a password: its words, else 0. */
static size_t auth_argv(const rg_conn *c, rg_view *argv) {
    const rg_conn_config *f = &c->cfg;
    if (!f->password.len) return 0;
    argv[0] = RG_LIT("AUTH");
    argv[1] = f->user.len ? f->user : f->password;
    argv[2] = f->password;
    return f->user.len ? 3 : 2;
}

static size_t setname_argv(const rg_conn *c, rg_view *argv) {
    if (!c->cfg.name.len) return 0;
    argv[0] = RG_LIT("CLIENT");
    argv[1] = RG_LIT("SETNAME");
    argv[2] = c->cfg.name;
    return 3;
}

static bool queue_auth(rg_conn *c) {
    rg_view argv[3];
    const size_t n = auth_argv(c, argv);
    return !n || put_internal(c, HS_AUTH, n, argv);
}

static bool queue_setname(rg_conn *c) {
    rg_view argv[3];
    const size_t n = setname_argv(c, argv);
    return !n || put_internal(c, HS_SETNAME, n, argv);
}

static bool queue_hello(rg_conn *c) {
    const rg_conn_config *f = &c->cfg;
    rg_view argv[7] = {RG_LIT("HELLO"), RG_LIT("3")};
    size_t n = 2;
    if (f->password.len) {
        argv[n++] = RG_LIT("AUTH");
        argv[n++] = f->user.len ? f->user : RG_LIT("default");
        argv[n++] = f->password;
    }
    if (f->name.len) {
        argv[n++] = RG_LIT("SETNAME");
        argv[n++] = f->name;
    }
    return put_internal(c, HS_HELLO, n, argv);
}

static bool queue_select(rg_conn *c) {
    char digits[24];
    const size_t n = (size_t)(rg_put_i64(digits, c->cfg.db) - digits);
    const rg_view argv[] = {RG_LIT("SELECT"), {digits, n}};
    return !c->cfg.db || put_internal(c, HS_SELECT, 2, argv);
}

/* ROLE last, so that it is asked as the user the sequence authenticated. */
static bool queue_role(rg_conn *c) {
    const rg_view argv[] = {RG_LIT("ROLE")};
    return c->cfg.role == RG_ROLE_ANY || put_internal(c, HS_ROLE, 1, argv);
}

static bool queue_handshake(rg_conn *c) {
    c->hs_n = c->hs_i = 0;
    c->resp = c->cfg.protocol == 3 ? 3 : 2;
    bool ok = true;
    if (c->cfg.protocol == 3) {
        ok = queue_hello(c) && queue_select(c);
    } else if (c->cfg.protocol == 2) {
        ok = queue_auth(c) && queue_setname(c) && queue_select(c);
    }
    ok = ok && queue_role(c);
    c->out_ready = c->held_from = c->out_len;
    c->state = c->hs_n ? RG_CONN_HANDSHAKE : RG_CONN_READY;
    return ok;
}

/* HELLO failed because the server predates it (or refuses RESP3): AUTH and SETNAME go in its
 * place, before the user requests held behind the sequence. */
static bool fall_back(rg_conn *c) {
    rg_view a[3], s[3];
    const size_t na = auth_argv(c, a), ns = setname_argv(c, s);
    const size_t need = (na ? rg_argv_size(na, a) : 0) + (ns ? rg_argv_size(ns, s) : 0);
    const size_t user = c->out_len - c->held_from;
    c->resp = 2;
    if (c->cfg.out_cap - c->out_len < need) return false;
    char *const at = c->cfg.out + c->held_from;
    memmove(at + need, at, user);
    for (size_t i = c->first; i < c->tail; i++) slot(c, i)->end += need; /* all behind it */
    c->out_len = c->held_from;
    const bool ok = queue_auth(c) && queue_setname(c);
    c->out_ready = c->held_from = c->out_len;
    c->out_len += user;
    return ok;
}

static bool hello_refused(rg_view e) {
    static const char *const why[] = {"NOPROTO", "ERR unknown command", "ERR unknown subcommand"};
    for (size_t k = 0; k < sizeof why / sizeof why[0]; k++) {
        const size_t n = strlen(why[k]);
        if (e.len >= n && memcmp(e.ptr, why[k], n) == 0) return true;
    }
    return false;
}

/* ROLE's reply against the role asked for: a wrong one is a loss, not a refusal, so that an
 * adapter reconnects (and asks Sentinel again) instead of giving up. */
static bool role_fits(rg_conn *c, rg_view raw) {
    const rg_role got = rg_role_parse(raw);
    if (got == c->cfg.role) return true;
    char what[96];
    snprintf(what, sizeof what, "connect: ROLE says %s, not %s", rg_role_name(got),
             rg_role_name(c->cfg.role));
    fail(c, RG_CLOSED, what, (rg_view){NULL, 0});
    return false;
}

/* One reply of the connect sequence (raw: its bytes). */
static void handshake_reply(rg_conn *c, rg_status st, const rg_raw_result *raw) {
    const uint8_t step = c->hs_steps[c->hs_i++];
    const rg_view e = rg_reply_error(&c->rr).msg;
    if (st == RG_SERVER_ERROR && step == HS_HELLO && hello_refused(e)) {
        if (!fall_back(c)) fail(c, RG_FULL, "connect: output buffer too small", e);
    } else if (st != RG_OK) {
        fail(c, RG_REFUSED, "connect sequence refused", e);
        return;
    } else if (step == HS_ROLE && !role_fits(c, raw->value)) {
        return;
    }
    if (c->state == RG_CONN_HANDSHAKE && c->hs_i == c->hs_n) {
        c->hs_n = c->hs_i = 0;
        c->hs_deadline = 0;
        c->state = RG_CONN_READY;
        c->out_ready = c->out_len;
    }
}

/* ---- init and reset ------------------------------------------------------------------------- */

/* Lends the frames for deep replies to a decoder of c. rr and sub share them: sub decodes (EXEC's
 * own result, a reply kept raw) only while rr is idle between replies or between EXEC's
 * elements, so only one of them is past RG_MAX_DEPTH levels at a time. */
static rg_status lend_frames(rg_conn *c, rg_reader *r) {
    const bool own = c->cfg.frames == NULL;
    const uint32_t asked = c->cfg.limits ? c->cfg.limits->max_depth : 0;
    return rg_reader_set_stack(r, own ? c->deep : c->cfg.frames,
                               own ? sizeof c->deep / sizeof *c->deep : c->cfg.nframes,
                               asked ? asked
                               : own ? RG_CONN_MAX_DEPTH
                                     : 0);
}

/* rg_reply_reader_init with c's limits and frames. */
static rg_status init_reply_reader(rg_conn *c, rg_reply_reader *rr) {
    rg_reply_reader_init(rr, c->cfg.limits);
    return lend_frames(c, &rr->rd);
}

/* The buffers rg_conn_init allocates when the config gives none (rg_conn.defaulted). */
enum { D_IN = 1, D_OUT = 2, D_CALLS = 4, D_STORAGE = 8 };

static size_t align16(size_t n) {
    return (n + 15) & ~(size_t)15;
}

/* One block for the buffers the config did not give, with the RG_CONN_DEFAULT_* sizes (calls
 * first: the allocator's alignment); false when the allocator refused. Nothing when they are
 * there already (a reset). */
static bool alloc_defaults(rg_conn *c) {
    const uint8_t d = c->defaulted;
    if (!d || c->defaults) return true;
    const size_t calls = d & D_CALLS ? RG_CONN_DEFAULT_CALLS * sizeof(rg_call) : 0;
    const size_t storage = d & D_STORAGE ? RG_CONN_DEFAULT_STORAGE : 0;
    const size_t in = d & D_IN ? RG_CONN_DEFAULT_IN : 0, out = d & D_OUT ? RG_CONN_DEFAULT_OUT : 0;
    char *at = c->cfg.alloc(c->cfg.alloc_ud, NULL, align16(calls) + storage + in + out);
    if (!at) return false;
    c->defaults = at;
    if (d & D_CALLS) {
        c->cfg.calls = c->calls_own = (rg_call *)(void *)at;
        c->cfg.ncalls = c->ncalls_own = RG_CONN_DEFAULT_CALLS;
        at += align16(calls);
    }
    if (d & D_STORAGE) {
        c->cfg.storage = c->storage_own = at;
        c->cfg.storage_cap = c->storage_own_cap = storage;
        at += storage;
    }
    if (d & D_IN) {
        c->cfg.in = c->in_own = at;
        c->cfg.in_cap = c->in_own_cap = in;
        at += in;
    }
    if (d & D_OUT) {
        c->cfg.out = c->out_own = at;
        c->cfg.out_cap = c->out_own_cap = out;
    }
    return true;
}

/* Gives the default block back: the buffers it held are missing again (alloc_defaults). */
static void free_defaults(rg_conn *c) {
    const uint8_t d = c->defaulted;
    if (!c->defaults) return;
    c->cfg.alloc(c->cfg.alloc_ud, c->defaults, 0);
    c->defaults = NULL;
    if (d & D_CALLS) c->cfg.calls = c->calls_own = NULL, c->cfg.ncalls = c->ncalls_own = 0;
    if (d & D_STORAGE) c->cfg.storage = c->storage_own = NULL, c->cfg.storage_cap = 0;
    if (d & D_STORAGE) c->storage_own_cap = 0;
    if (d & D_IN) c->cfg.in = c->in_own = NULL, c->cfg.in_cap = c->in_own_cap = 0;
    if (d & D_OUT) c->cfg.out = c->out_own = NULL, c->cfg.out_cap = c->out_own_cap = 0;
}

/* The memory fields past rg_conn_init's memset: the caller's buffers are the base ones, those
 * missing are the defaults' (with alloc), and the bounds. */
static void mem_init(rg_conn *c) {
    rg_conn_config *const f = &c->cfg;
    c->in_own = f->in;
    c->in_own_cap = f->in_cap;
    c->in_retired = c->out_retired = NULL;
    c->out_own = f->out;
    c->out_own_cap = f->out_cap;
    c->calls_own = f->calls;
    c->ncalls_own = f->ncalls;
    c->storage_own = f->storage;
    c->storage_own_cap = f->storage_cap;
    c->storage_need = 0;
    c->defaults = NULL;
    c->defaulted = 0;
    if (!f->alloc) return;
    c->defaulted =
        (uint8_t)((!f->in || !f->in_cap ? D_IN : 0) | (!f->out || !f->out_cap ? D_OUT : 0) |
                  (!f->calls || !f->ncalls ? D_CALLS : 0) |
                  (!f->storage || !f->storage_cap ? D_STORAGE : 0));
    if (!f->max_out) f->max_out = RG_CONN_MAX_OUT;
    if (!f->max_storage) f->max_storage = RG_CONN_MAX_STORAGE;
    if (!f->max_calls) f->max_calls = RG_CONN_MAX_CALLS;
    while (f->max_calls & (f->max_calls - 1)) f->max_calls &= f->max_calls - 1;
    if (f->max_out > SIZE_MAX - BLOCK_HEAD) f->max_out = SIZE_MAX - BLOCK_HEAD;
}

static rg_status start(rg_conn *c) {
    c->in_len = c->in_pos = c->in_base = c->out_base = 0;
    c->in_keep = SIZE_MAX;
    c->mid_reply = false;
    c->out_len = c->out_sent = c->out_ready = c->held_from = 0;
    c->first = c->head = c->tail = c->used = c->stamp_from = 0;
    c->r2_subs = c->r2_ssubs = c->pubsub_pending = 0;
    c->in_multi = c->tracking = c->offline = false;
    c->replay_left = c->queued_calls = 0;
    c->queued_bytes = c->subs_reserved = 0;
    c->unwrap_left = 0;
    c->unwrap_keep = false;
    c->err_status = RG_OK;
    c->error = (rg_view){NULL, 0};
    c->err_offset = 0;
    if (!alloc_defaults(c)) {
        c->state = RG_CONN_FAILED;
        set_error(c, RG_FULL, "the allocator refused the default buffers", (rg_view){NULL, 0});
        return RG_FULL;
    }
    if (init_reply_reader(c, &c->rr) != RG_OK) {
        c->state = RG_CONN_FAILED;
        set_error(c, RG_INVALID, "limits->max_depth needs more frames than given",
                  (rg_view){NULL, 0});
        return RG_INVALID;
    }
    if (!queue_handshake(c) || !replay(c)) {
        c->state = RG_CONN_FAILED;
        set_error(c, RG_FULL, "connect sequence (or subscriptions to replay) does not fit",
                  (rg_view){NULL, 0});
        return RG_FULL;
    }
    if (c->state == RG_CONN_READY) c->out_ready = c->out_len; /* the replay, with no sequence */
    const uint32_t hs_ms = c->state == RG_CONN_HANDSHAKE ? c->cfg.connect_timeout_ms : 0;
    c->hs_deadline = hs_ms ? RG_DEADLINE_UNSTARTED | hs_ms : 0;
    c->timed = c->cfg.timeout_ms || hs_ms;
    if (c->cfg.on_connect) c->cfg.on_connect(c->cfg.connect_ud, c);
    return RG_OK;
}

rg_status rg_conn_init(rg_conn *c, const rg_conn_config *cfg) {
    memset(c, 0, offsetof(rg_conn, rr));
    c->cfg = *cfg;
    if (!c->cfg.max_reply) c->cfg.max_reply = RG_CONN_MAX_REPLY;
    if (c->cfg.max_reply > SIZE_MAX - BLOCK_HEAD) c->cfg.max_reply = SIZE_MAX - BLOCK_HEAD;
    while (c->cfg.ncalls & (c->cfg.ncalls - 1)) c->cfg.ncalls &= c->cfg.ncalls - 1;
    mem_init(c);
    /* without alloc every buffer is required; with it, a missing one is a default */
    const bool missing = !cfg->in || !cfg->out || !cfg->calls || cfg->ncalls == 0;
    if ((missing && !cfg->alloc) || (cfg->in && cfg->in_cap < 64 && !(c->defaulted & D_IN))) {
        c->state = RG_CONN_FAILED;
        set_error(c, RG_INVALID, "rg_conn_init: in (64 bytes or more), out and calls are required",
                  (rg_view){NULL, 0});
        return RG_INVALID;
    }
    c->subs = cfg->subs;
    c->subs_cap = cfg->subs ? cfg->subs_cap : 0;
    c->subs_own = !cfg->subs && cfg->alloc;
    c->subs_max = cfg->subs_cap ? cfg->subs_cap : RG_CONN_MAX_SUBS;
    return start(c);
}

void rg_conn_relay_init(rg_conn *c, char *out, size_t cap, rg_relay_fn fn, void *ud) {
    memset(c, 0, offsetof(rg_conn, rr));
    c->cfg.out = out;
    c->cfg.out_cap = cap;
    c->cfg.ncalls = 1; /* never used: room is handed out while no call is queued */
    mem_init(c);
    c->out_pinned = true; /* the used bytes are the owner's: never moved */
    c->state = RG_CONN_RELAY;
    c->relay = fn;
    c->relay_ud = ud;
    c->relay_slot = RG_SLOT_UNKNOWN;
}

void rg_conn_relay_used(rg_conn *c, size_t used) {
    c->out_len = used < c->cfg.out_cap ? used : c->cfg.out_cap;
}

void rg_conn_relay_slot(rg_conn *c, int slot) {
    c->relay_slot = slot;
}

rg_status rg_conn_reset(rg_conn *c) {
    if (c->used) rg_conn_closed(c, RG_LIT("reset"));
    return start(c);
}

rg_status rg_conn_offline(rg_conn *c) {
    if (c->offline && c->state != RG_CONN_FAILED) return RG_OK; /* queued once per connect */
    const rg_status st = rg_conn_reset(c);
    c->offline = st == RG_OK;
    return st;
}

void rg_conn_online(rg_conn *c) {
    c->offline = false;
}

/* ---- array storage -------------------------------------------------------------------------- */

static bool storage_grown(const rg_conn *c) {
    return c->cfg.storage != c->storage_own;
}

/* Back to the base storage: a grown one goes (views into it die; the reader is told). Only
 * between replies: the reply reader may hold the storage while a reply is partly decoded. */
static void storage_back(rg_conn *c) {
    if (!storage_grown(c)) return;
    c->cfg.alloc(c->cfg.alloc_ud, c->cfg.storage, 0);
    c->cfg.storage = c->storage_own;
    c->cfg.storage_cap = c->storage_own_cap;
    rg_reply_set_storage(&c->rr, NULL, 0);
}

/* A reply for call needed `need` storage bytes and the storage was too small. RG_OK: the shared
 * storage grew (cfg.alloc; twice the old at least, up to max_storage) and the reply is to be
 * decoded again; RG_SHORT: it cannot (the call's own storage, no allocator, above the bound);
 * RG_FULL: the allocator refused. Called between replies only (see storage_back). */
static rg_status storage_grow(rg_conn *c, const rg_call *call, size_t need) {
    const size_t max = c->cfg.max_storage;
    c->storage_need = need;
    if (call->mem || !c->cfg.alloc || need <= c->cfg.storage_cap || need > max) return RG_SHORT;
    size_t to = c->cfg.storage_cap >= 64 ? c->cfg.storage_cap : 64;
    while (to < need) to = to > max / 2 ? max : to * 2;
    void *const mem = c->cfg.alloc(c->cfg.alloc_ud, NULL, to);
    if (!mem) return RG_FULL;
    storage_back(c);
    c->cfg.storage = mem;
    c->cfg.storage_cap = to;
    return RG_OK;
}

/* ---- input ---------------------------------------------------------------------------------- */

void rg_conn_hold(rg_conn *c, bool on) {
    if (!on || c->in_keep == SIZE_MAX) c->in_keep = on ? c->in_pos : SIZE_MAX;
}

void *rg_conn_std_alloc(void *ud, void *ptr, size_t size) {
    (void)ud;
    if (size == 0) {
        free(ptr);
        return NULL;
    }
    return realloc(ptr, size);
}

/* A grown buffer is the tail of a block from cfg.alloc: the block's head links it into
 * in_retired once it is replaced while held. */
static char *block_of(char *in) {
    return in - BLOCK_HEAD;
}

static bool grown(const rg_conn *c) {
    return c->cfg.in != c->in_own;
}

static void free_retired(rg_conn *c) {
    while (c->in_retired) {
        char *const block = c->in_retired;
        memcpy(&c->in_retired, block, sizeof(char *));
        c->cfg.alloc(c->cfg.alloc_ud, block, 0);
    }
}

/* Drops the bytes before the unread ones (and the unfinished reply's start), or before the hold:
 * while held, only as long as nothing was read since it (no held view points into the input). */
static void compact(rg_conn *c) {
    const bool held = c->in_keep != SIZE_MAX;
    size_t keep = c->mid_reply ? c->reply_from : c->in_pos;
    if (held && c->in_pos != c->in_keep) return;
    if (held && c->in_keep < keep) keep = c->in_keep;
    if (c->unwrap_keep && c->unwrap_from < keep) keep = c->unwrap_from; /* EXEC's array */
    if (keep == 0) return;
    memmove(c->cfg.in, c->cfg.in + keep, c->in_len - keep);
    c->in_len -= keep;
    c->in_pos -= keep;
    c->in_base += keep;
    c->reply_from -= c->mid_reply ? keep : 0;
    c->unwrap_from -= c->unwrap_keep ? keep : 0;
    if (held) c->in_keep -= keep;
}

/* Back to the caller's buffer after a big reply (the threshold: rg_conn_read_buf's comment). */
static void shrink(rg_conn *c) {
    if (!grown(c) || c->cfg.in_cap <= RG_CONN_KEEP_GROWN || c->in_len > c->in_own_cap / 2) return;
    memcpy(c->in_own, c->cfg.in, c->in_len);
    c->cfg.alloc(c->cfg.alloc_ud, block_of(c->cfg.in), 0);
    c->cfg.in = c->in_own;
    c->cfg.in_cap = c->in_own_cap;
}

/* The input is full: twice the room, up to max_reply. Not held, a grown block is resized in
 * place (realloc may avoid the copy); held, the bytes go to a new block and the old one stays
 * where held views point. False (and the connection failed) when it cannot grow. */
static bool grow(rg_conn *c) {
    const size_t cap = c->cfg.in_cap, max = c->cfg.max_reply;
    if (cap >= max) {
        char size[24];
        snprintf(size, sizeof size, "%zu", max);
        fail(c, RG_ERR_LIMIT, "reply larger than max_reply (bytes)", rg_cstr(size));
        return false;
    }
    const size_t to = cap > max / 2 ? max : cap * 2;
    const bool move = !grown(c) || c->in_keep != SIZE_MAX;
    char *const block =
        c->cfg.alloc(c->cfg.alloc_ud, move ? NULL : block_of(c->cfg.in), BLOCK_HEAD + to);
    if (!block) {
        char size[24];
        snprintf(size, sizeof size, "%zu", BLOCK_HEAD + to);
        fail(c, RG_FULL, "input buffer: the allocator refused (bytes)", rg_cstr(size));
        return false;
    }
    if (move) {
        memcpy(block + BLOCK_HEAD, c->cfg.in, c->in_len);
        if (grown(c)) { /* held: retired, freed once the hold is released */
            memcpy(block_of(c->cfg.in), &c->in_retired, sizeof(char *));
            c->in_retired = block_of(c->cfg.in);
        }
    }
    c->cfg.in = block + BLOCK_HEAD;
    c->cfg.in_cap = to;
    return true;
}

char *rg_conn_read_buf(rg_conn *c, size_t *n) {
    compact(c);
    if (c->in_keep == SIZE_MAX) {
        free_retired(c);
        shrink(c);
    }
    if (c->cfg.storage_cap > RG_CONN_KEEP_GROWN && !c->mid_reply && !c->unwrap_left)
        storage_back(c);
    const bool full = c->in_len == c->cfg.in_cap;
    if (full && c->cfg.alloc && c->state != RG_CONN_FAILED) grow(c);
    *n = c->cfg.in_cap - c->in_len;
    return *n ? c->cfg.in + c->in_len : NULL;
}

void rg_conn_free(rg_conn *c) {
    rg_conn_closed(c, RG_LIT("freed"));
    if (c->subs_own && c->subs) c->cfg.alloc(c->cfg.alloc_ud, c->subs, 0);
    if (c->subs_own) c->subs = NULL;
    if (c->subs_own) c->subs_cap = 0;
    c->subs_len = 0;
    if (!c->cfg.alloc) return; /* nothing was allocated */
    free_retired(c);
    if (grown(c)) c->cfg.alloc(c->cfg.alloc_ud, block_of(c->cfg.in), 0);
    c->cfg.in = c->in_own;
    c->cfg.in_cap = c->in_own_cap;
    c->in_len = c->in_pos = c->reply_from = 0;
    c->unwrap_keep = false;
    c->mid_reply = false;
    free_out_retired(c);
    if (out_grown(c)) c->cfg.alloc(c->cfg.alloc_ud, c->cfg.out - BLOCK_HEAD, 0);
    c->cfg.out = c->out_own;
    c->cfg.out_cap = c->out_own_cap;
    c->out_len = c->out_sent = c->out_ready = c->held_from = 0;
    if (c->cfg.calls != c->calls_own) c->cfg.alloc(c->cfg.alloc_ud, c->cfg.calls, 0);
    c->cfg.calls = c->calls_own;
    c->cfg.ncalls = c->ncalls_own;
    storage_back(c);
    free_defaults(c);
}

static rg_reply_reader *storage_for(rg_conn *c, rg_reply_reader *rr, const rg_call *call) {
    if (call->mem) {
        rg_reply_set_storage(rr, call->mem, call->cap);
    } else {
        rg_reply_set_storage(rr, c->cfg.storage, c->cfg.storage_cap);
    }
    return rr;
}

/* Decodes one whole value (bytes) for call with the second reader (into result with t),
 * growing the shared storage when the value's arrays need more (storage_grow): RG_SHORT or
 * RG_FULL when it cannot. */
static rg_status sub_decode(rg_conn *c, const rg_call *call, const rg_rtable *t, rg_view bytes,
                            void *result) {
    for (;;) { /* twice at most: a grown storage holds what the first decode counted */
        size_t at = 0;
        (void)init_reply_reader(c, &c->sub); /* checked by start() */
        const rg_status st =
            rg_reply_decode(storage_for(c, &c->sub, call), t, bytes.ptr, bytes.len, &at, result);
        if (st != RG_SHORT) return st;
        const rg_status grew = storage_grow(c, call, rg_reply_needed(&c->sub));
        if (grew != RG_OK) return grew;
    }
}

/* Completes call with what the reply decoder said about its reply. */
static void complete_with(rg_conn *c, rg_call *call, rg_reply_reader *rr, rg_status st) {
    /* a status no call ends with (NEED_MORE inside a whole value) is a broken stream */
    const bool ends = st == RG_OK || st == RG_SERVER_ERROR || st == RG_MISMATCH || st == RG_SHORT ||
                      st == RG_FULL || rg_status_fatal(st);
    const rg_status s = ends ? st : RG_ERR_PROTOCOL;
    complete(c, call, s, s == RG_OK ? (rg_view){NULL, 0} : rg_reply_error(rr).msg, NULL);
}

/* The queued commands of the transaction whose EXEC (or DISCARD) is at head, in order. */
static size_t queued_next(const rg_conn *c, size_t i) {
    while (i < c->head && (slot(c, i)->kind != K_QUEUED || slot(c, i)->done)) i++;
    return i;
}

static void abort_queued(rg_conn *c, rg_view why) {
    for (size_t i = queued_next(c, c->first); i < c->head; i = queued_next(c, i + 1))
        complete(c, slot(c, i), RG_ABORTED, why, NULL);
}

/* Completes call with its reply decoded from bytes (one whole RESP value kept raw so far: an
 * element of EXEC's array, or a reply that came where QUEUED was due). */
static void complete_from(rg_conn *c, rg_call *call, rg_view bytes) {
    rg_raw_result ignored;
    const rg_status st = sub_decode(c, call, call->result ? call->table : &rg_conn_raw_table, bytes,
                                    call->result ? call->result : &ignored);
    complete_with(c, call, &c->sub, st);
}

/* EXEC's reply when it was read whole (see unwrap): an error, a null, or no array. */
static void exec_reply(rg_conn *c, rg_status st, const rg_raw_result *raw) {
    const rg_view v = raw->value;
    if (st != RG_OK) {
        abort_queued(c, rg_reply_error(&c->rr).msg);
    } else if (v.len && (v.ptr[0] == '_' || v.ptr[0] == '*') &&
               (v.ptr[0] == '_' || v.ptr[1] == '-')) {
        abort_queued(c, RG_LIT("EXEC: transaction aborted (a WATCHed key changed)"));
    } else {
        abort_queued(c, RG_LIT("EXEC: the reply is not an array"));
    }
    rg_call *const call = slot(c, c->head - 1); /* after the callbacks (grow_ring) */
    if (st != RG_OK) {
        complete_with(c, call, &c->rr, st);
        return;
    }
    if (!call->result) {
        complete(c, call, RG_OK, (rg_view){NULL, 0}, NULL);
        return;
    }
    /* The EXEC call's own result: its table over the same bytes. */
    complete_with(c, call, &c->sub, sub_decode(c, call, call->table, v, call->result));
}

/* The value of "proto" in HELLO's reply (a map, or in RESP2 a flat array of pairs), or 0. */
static int hello_proto(const rg_conn *c, rg_view v) {
    rg_reader r;
    rg_event ev;
    size_t p = 0;
    bool key = false;
    rg_reader_init(&r, c->cfg.limits);
    while (rg_next(&r, v.ptr, v.len, &p, &ev) == RG_OK && !ev.complete) {
        if (ev.depth != 1) continue;
        if (key && ev.kind == RG_EV_INT) return ev.u.i == 2 || ev.u.i == 3 ? (int)ev.u.i : 0;
        key = (ev.kind == RG_EV_BULK || ev.kind == RG_EV_SIMPLE) && ev.str.len == 5 &&
              memcmp(ev.str.ptr, "proto", 5) == 0;
    }
    return 0;
}

/* A reply that changes the connection (HELLO, RESET): the engine takes note. */
static void connection_reply(rg_conn *c, const rg_call *call, rg_view v) {
    if (call->kind == K_HELLO) {
        const int proto = hello_proto(c, v);
        if (proto) c->resp = proto;
    } else {
        c->resp = 2;
        c->r2_subs = c->r2_ssubs = 0;
        c->subs_len = 0;   /* unsubscribed from everything */
        tracking_reset(c); /* tracking is off: whatever a cache holds is no longer watched */
    }
}

/* One reply for the call at head, by its kind. */
static void call_reply(rg_conn *c, rg_call *call, rg_status st, const rg_raw_result *raw) {
    switch (call->kind) {
    case K_QUEUED:
        if (st == RG_OK && raw->value.len == 9 && memcmp(raw->value.ptr, "+QUEUED", 7) == 0)
            return; /* waits for EXEC */
        if (st == RG_OK) {
            complete_from(c, call, raw->value); /* the MULTI failed: it ran at once */
        } else {
            complete_with(c, call, &c->rr, st);
        }
        return;
    case K_EXEC: exec_reply(c, st, raw); return;
    case K_DISCARD:
        abort_queued(c, RG_LIT("DISCARD"));
        complete_with(c, slot(c, c->head - 1), &c->rr, st); /* taken again: see exec_reply */
        return;
    case K_PING: call->done = true; return;
    case K_REPLAY: /* the replayed CLIENT TRACKING (a subscribe's error too) */
        if (!(call->flags & RG_CALL_F_PUBSUB)) c->replay_left--;
        complete_with(c, call, &c->rr, st);
        return;
    case K_TRACKING:
        tracking_answered(c, st == RG_OK);
        if (st == RG_OK) {
            complete_from(c, call, raw->value);
        } else {
            complete_with(c, call, &c->rr, st);
        }
        return;
    case K_HELLO:
    case K_RESET:
        if (st != RG_OK) {
            complete_with(c, call, &c->rr, st);
        } else {
            connection_reply(c, call, raw->value); /* a push handler may make calls: */
            complete_from(c, slot(c, c->head - 1), raw->value);
        }
        return;
    default: complete_with(c, call, &c->rr, st); return;
    }
}

/* Skips a reply whose storage was too small (it is whole in the buffer): st is storage_grow's,
 * RG_SHORT or RG_FULL. */
static void skip_short(rg_conn *c, rg_call *call, rg_status st) {
    rg_raw_result skip;
    rg_reply_set_storage(&c->rr, NULL, 0);
    complete(c, call, st,
             st == RG_FULL ? RG_LIT("array storage: the allocator refused")
                           : RG_LIT("array storage too small"),
             NULL);
    rg_reply_decode(&c->rr, &rg_conn_raw_table, c->cfg.in, c->in_len, &c->in_pos, &skip);
}

/* ---- pushes --------------------------------------------------------------------------------- */

/* RESP2 subscribe mode: arrays may be messages. Also while a Pub/Sub call waits for its first
 * confirmation, but not while an ordinary call waits for an array of its own. */
static bool resp2_subscribed(const rg_conn *c) {
    if (c->resp != 2) return false;
    if (c->r2_subs || c->r2_ssubs) return true;
    return c->head < c->tail && (slot(c, c->head)->flags & RG_CALL_F_PUBSUB);
}

/* A (un)subscribe's last confirmation completes it: its typed result is that confirmation. */
static void confirmed(rg_conn *c, rg_call *call, const rg_push *p) {
    rg_status st = RG_OK;
    while (call->result) { /* again when the storage grew */
        size_t at = 0;
        rg_reply_reader_init(&c->sub, c->cfg.limits);
        st = rg_reply_decode_push(storage_for(c, &c->sub, call), call->table, p->raw.ptr,
                                  p->raw.len, &at, call->result);
        if (st != RG_SHORT || storage_grow(c, call, rg_reply_needed(&c->sub)) != RG_OK) break;
    }
    const rg_status s = st == RG_OK ? RG_OK : RG_MISMATCH;
    complete(c, call, s, s == RG_OK ? (rg_view){NULL, 0} : rg_reply_error(&c->sub).msg, p);
}

/* A confirmation counts down the Pub/Sub call at head; false when none waits for it. */
static bool confirm(rg_conn *c, const rg_push *p) {
    const uint32_t now = (uint32_t)(p->subscriptions > 0 ? p->subscriptions : 0);
    const bool shard = p->kind == RG_PUSH_SSUBSCRIBE || p->kind == RG_PUSH_SUNSUBSCRIBE;
    if (c->resp == 2) *(shard ? &c->r2_ssubs : &c->r2_subs) = now;
    if (c->head == c->tail || c->state != RG_CONN_READY) return false;
    rg_call *call = slot(c, c->head);
    if (!(call->flags & RG_CALL_F_PUBSUB) || call->pubsub != p->kind) return false;
    /* Without names: the last confirmation leaves no subscription, else the PING behind it
     * closes the call. */
    if (call->expect == UNKNOWN_COUNT && p->subscriptions > 0) return true;
    if (call->expect == UNKNOWN_COUNT) call->expect = 1;
    if (--call->expect == 0) {
        c->head++;
        confirmed(c, call, p);
        release(c);
    }
    return true;
}

enum { P_HANDLED, P_NOT, P_WAIT, P_MAYBE };

/* RESP2 subscribe mode answers PING with ["pong", message], its one array that is no push: when
 * a PING waits and the bytes begin so, they are its reply (P_NOT; P_WAIT while they may still
 * be), read once (see unwrap) rather than walked by the push decoder only to be handed back. */
static int pong_pair(const rg_conn *c) {
    static const char PAIR[] = "*2\r\n$4\r\npong\r\n";
    const size_t have = c->in_len - c->in_pos, n = have < sizeof PAIR - 1 ? have : sizeof PAIR - 1;
    if (c->head == c->tail || slot(c, c->head)->kind != K_USER_PING ||
        memcmp(c->cfg.in + c->in_pos, PAIR, n) != 0)
        return P_MAYBE;
    return n < sizeof PAIR - 1 ? P_WAIT : P_NOT;
}

/* An attribute where a reply is due is the reply decoder's: it reads it once (with the
 * connection's depth) and drops it, and hands a push after it back (RG_PUSH, see stream_fate).
 * The push decoder takes attributes only where no reply is due or a Pub/Sub call counts its
 * confirmations (pushes). */
static bool reply_due(const rg_conn *c) {
    if (c->state == RG_CONN_HANDSHAKE) return true;
    return c->head != c->tail && !(slot(c, c->head)->flags & RG_CALL_F_PUBSUB);
}

static int try_push(rg_conn *c) {
    const char ch = c->cfg.in[c->in_pos];
    if (ch != '>' && ch != '|' && ch != '*') return P_NOT;
    if (ch == '|' && reply_due(c)) return P_NOT;
    const bool r2 = ch == '*' && resp2_subscribed(c);
    if (ch == '*' && !r2) return P_NOT;
    const int pong = r2 ? pong_pair(c) : P_MAYBE;
    if (pong != P_MAYBE) return pong;
    rg_push p;
    rg_error e;
    const rg_status st =
        rg_push_decode(c->cfg.in, c->in_len, &c->in_pos, r2, c->cfg.limits, &p, &e);
    if (st == RG_NOT_PUSH) return P_NOT;
    if (st == RG_NEED_MORE) return P_WAIT;
    if (rg_status_fatal(st)) {
        c->in_pos = (size_t)e.offset;
        fail(c, st, "protocol error", e.msg);
        return P_WAIT;
    }
    if (rg_push_is_confirmation(p.kind)) subs_note(c, &p);
    if (rg_push_is_confirmation(p.kind) && confirm(c, &p)) return P_HANDLED;
    if (p.kind == RG_PUSH_INVALIDATE) c->tracking = true;
    if (c->inval_fn && (p.kind == RG_PUSH_INVALIDATE || p.kind == RG_PUSH_TRACKING_REDIR_BROKEN))
        c->inval_fn(c->inval_ud, &p);
    if (c->cfg.on_push) c->cfg.on_push(c->cfg.push_ud, &p);
    return P_HANDLED;
}

/* ---- the feed loop -------------------------------------------------------------------------- */

/* The statuses this engine was written against; any other (a newer decoder's) is handled by
 * one_reply without assuming anything was decoded. */
static bool known_status(rg_status st) {
    return st == RG_OK || st == RG_SERVER_ERROR || st == RG_MISMATCH || st == RG_SHORT ||
           st == RG_LOST || rg_status_fatal(st);
}

/* Between replies the decoder is idle; pushes were consumed by rg_push_decode, so its stream
 * offset (which the reply engine pairs with *pos) is set to the connection's. The array storage
 * is set only when it changes (the decoder starts every reply at its beginning). */
static void begin_reply(rg_conn *c, const rg_call *call) {
    c->rr.rd.offset = c->in_base + c->in_pos;
    c->reply_from = c->in_pos;
    const bool own = call && call->mem;
    char *const mem = own ? call->mem : c->cfg.storage;
    const size_t cap = mem ? (own ? call->cap : c->cfg.storage_cap) : 0;
    if (c->rr.mem != mem || c->rr.cap != cap) rg_reply_set_storage(&c->rr, mem, cap);
}

static bool end_reply(rg_conn *c, rg_call *call, rg_status st, const rg_raw_result *raw);

/* A status that completes no call: a push where a reply should start (1: the feed loop reads
 * it), or a broken stream (0, the connection failed). -1 for every other. */
static int stream_fate(rg_conn *c, rg_status st) {
    if (!known_status(st)) {
        /* A decoder that stops at a push where a reply should start (and consumes nothing)
         * hands it back: the feed loop gives it to the push decoder. */
        if (c->in_pos < c->in_len && c->cfg.in[c->in_pos] == '>') return 1;
        fail(c, RG_ERR_PROTOCOL, "reply decoder: unexpected status", (rg_view){NULL, 0});
        return 0;
    }
    if (rg_status_fatal(st) || st == RG_LOST) {
        fail(c, st == RG_LOST ? RG_ERR_PROTOCOL : st, "protocol error", rg_reply_error(&c->rr).msg);
        return 0;
    }
    return -1;
}

/* ---- arrays read one element at a time ------------------------------------------------------ */

/* EXEC's array, and the pair RESP2 subscribe mode answers PING with (["pong", message]), are read
 * here one element at a time: the engine reads the array's header, then each element is a reply
 * of its own to the reply decoder, decoded once, as its bytes arrive, by the table of the call it
 * answers (queued command i's for EXEC's element i, PING's for the message) into that call's
 * result, which completes at once. Pushes may come between elements. Anything else (an error, a
 * null, a header the decoder must judge) is read whole, as every other reply. */
enum { U_WHOLE, U_WAIT, U_ON };

/* The header "*<count>\r\n" at in_pos: U_ON, consumed, its count in *n; U_WAIT when the input
 * ends inside a short header that is right so far; U_WHOLE for anything else. */
static int unwrap_header(rg_conn *c, const rg_call *call, uint64_t *n) {
    const char *const p = c->cfg.in + c->in_pos, *const e = c->cfg.in + c->in_len;
    if (*p != '*') return U_WHOLE;
    const char *const q = rg_digits_read(p + 1, e, c->rr.rd.limits.max_elements, n);
    if (q < e && rg_digit(*q) < 10) return U_WHOLE; /* over the limit: the decoder says so */
    if (e - q < 2 || !rg_fast_crlf(q)) {
        const bool cut = q == e || (q + 1 == e && *q == '\r');
        return cut && q - p < RG_NUM_LINE_MAX ? U_WAIT : U_WHOLE;
    }
    /* a line the decoder would refuse (no digits, too long) is the decoder's to refuse */
    if (q == p + 1 || q + 2 - p > RG_NUM_LINE_MAX || (call->kind == K_USER_PING && *n != 2))
        return U_WHOLE;
    c->in_pos += (size_t)(q + 2 - p);
    return U_ON;
}

/* The call the next element answers, or NULL: it is read and dropped ("pong", an element more
 * than the transaction queued, PING's empty message). */
static rg_call *unwrap_target(rg_conn *c, rg_call *head) {
    if (head->kind == K_EXEC) return c->unwrap_next < c->head ? slot(c, c->unwrap_next) : NULL;
    return c->unwrap_i == 1 && head->expect >= 2 ? head : NULL;
}

/* After the last element: the queued commands left without a reply abort, and EXEC completes
 * (its own typed result, when it asked for one, read from the array kept whole); a PING without
 * a message gets PONG, as outside subscribe mode. */
static void unwrap_end(rg_conn *c, rg_call *head) {
    static const char PONG[] = "+PONG\r\n";
    const size_t from = c->unwrap_from;
    c->unwrap_keep = false;
    c->head++;
    if (head->kind != K_EXEC) {
        if (!head->done) complete_from(c, head, (rg_view){PONG, sizeof PONG - 1});
    } else {
        abort_queued(c, RG_LIT("EXEC: fewer replies than queued commands"));
        head = slot(c, c->head - 1); /* after the callbacks (grow_ring) */
        if (!head->result) {
            complete(c, head, RG_OK, (rg_view){NULL, 0}, NULL);
        } else {
            const rg_view all = {c->cfg.in + from, c->in_pos - from};
            complete_with(c, head, &c->sub, sub_decode(c, head, head->table, all, head->result));
        }
    }
    release(c);
}

/* Decodes the next element; false when more bytes are needed or the connection failed. */
static bool unwrap_element(rg_conn *c, rg_call *head) {
    rg_call *const to = unwrap_target(c, head);
    const bool typed = to && to->result;
    rg_raw_result raw;
    if (!c->mid_reply) begin_reply(c, to);
    const rg_status st = rg_reply_decode(&c->rr, typed ? to->table : &rg_conn_raw_table, c->cfg.in,
                                         c->in_len, &c->in_pos, typed ? to->result : &raw);
    c->mid_reply = st == RG_NEED_MORE;
    if (st == RG_NEED_MORE) return false;
    const int fate = stream_fate(c, st);
    if (fate >= 0) return fate == 1;
    const rg_status grew = to && st == RG_SHORT ? storage_grow(c, to, rg_reply_needed(&c->rr)) : st;
    if (to && st == RG_SHORT && grew == RG_OK) return true; /* decoded again, with room */
    if (to && st == RG_SHORT) {
        skip_short(c, to, grew);
    } else if (to) {
        complete_with(c, to, &c->rr, st);
    }
    /* a callback may have closed or reset the connection, or moved the ring (grow_ring) */
    if (c->state == RG_CONN_FAILED || c->unwrap_left == 0) return false;
    head = slot(c, c->head);
    c->unwrap_i++;
    if (to && head->kind == K_EXEC) c->unwrap_next = queued_next(c, c->unwrap_next + 1);
    if (--c->unwrap_left == 0) unwrap_end(c, head);
    return true;
}

/* EXEC or PING at head: U_ON when an element was read (or the array was empty), U_WAIT for more
 * bytes, U_WHOLE when the reply is to be read whole. */
static int unwrap(rg_conn *c, rg_call *head) {
    if (!c->unwrap_left) {
        uint64_t n;
        const size_t at = c->in_pos;
        const int h = c->mid_reply ? U_WHOLE : unwrap_header(c, head, &n);
        if (h != U_ON) return h;
        c->unwrap_from = at;
        c->unwrap_left = n;
        c->unwrap_i = 0;
        c->unwrap_next = queued_next(c, c->first);
        c->unwrap_keep = head->kind == K_EXEC && head->result;
        if (n == 0) {
            unwrap_end(c, head);
            return U_ON;
        }
    }
    return unwrap_element(c, head) ? U_ON : U_WAIT;
}

/* Decodes one reply for head (or the connect sequence); false when more bytes are needed. */
static bool one_reply(rg_conn *c) {
    const bool hs = c->state == RG_CONN_HANDSHAKE;
    if (!hs && c->head == c->tail) {
        fail(c, RG_ERR_PROTOCOL, "a reply arrived with no call waiting", (rg_view){NULL, 0});
        return false;
    }
    rg_call *call = hs ? NULL : slot(c, c->head);
    if (call && call->expect == UNKNOWN_COUNT) {
        /* The reply of the PING after an UNSUBSCRIBE without names: the UNSUBSCRIBE is done. */
        c->head++;
        complete(c, call, RG_OK, (rg_view){NULL, 0}, NULL);
        return true;
    }
    if (call && (call->kind == K_EXEC || call->kind == K_USER_PING)) {
        const int u = unwrap(c, call);
        if (u != U_WHOLE) return u == U_ON;
    }
    rg_raw_result raw = {{NULL, 0}};
    /* a PING's reply, unless unwrapped above, is its table's to read */
    const bool internal =
        hs || !call->result || (call->kind != K_PLAIN && call->kind != K_USER_PING);
    const rg_rtable *t = internal ? &rg_conn_raw_table : call->table;
    void *out = internal ? &raw : call->result;
    if (!c->mid_reply) begin_reply(c, call);
    const rg_status st = rg_reply_decode(&c->rr, t, c->cfg.in, c->in_len, &c->in_pos, out);
    return end_reply(c, call, st, &raw);
}

/* The common case, a plain call with a typed result at head (no handshake running): decoded
 * straight into its result, and an OK completes it without the general path's questions. */
static bool plain_reply(rg_conn *c, rg_call *call) {
    if (!c->mid_reply) begin_reply(c, call);
    const rg_status st =
        rg_reply_decode(&c->rr, call->table, c->cfg.in, c->in_len, &c->in_pos, call->result);
    if (st != RG_OK) {
        rg_raw_result raw = {{NULL, 0}};
        return end_reply(c, call, st, &raw);
    }
    c->mid_reply = false;
    c->head++;
    c->done_reply = (rg_view){c->cfg.in + c->reply_from, c->in_pos - c->reply_from};
    complete(c, call, RG_OK, (rg_view){NULL, 0}, NULL);
    release(c);
    return true;
}

/* What is left of one_reply once the decoder said st: state, errors, completion. */
static bool end_reply(rg_conn *c, rg_call *call, rg_status st, const rg_raw_result *raw) {
    const bool hs = call == NULL;
    c->mid_reply = st == RG_NEED_MORE;
    if (st == RG_NEED_MORE) return false;
    const int fate = stream_fate(c, st);
    if (fate >= 0) return fate == 1;
    if (hs) {
        handshake_reply(c, st, raw);
        return true;
    }
    const rg_status grew = st == RG_SHORT ? storage_grow(c, call, rg_reply_needed(&c->rr)) : st;
    if (st == RG_SHORT && grew == RG_OK) return true; /* decoded again, with room */
    c->head++;
    if (st == RG_SHORT) {
        skip_short(c, call, grew);
    } else {
        if (st == RG_OK && call->kind == K_PLAIN)
            c->done_reply = (rg_view){c->cfg.in + c->reply_from, c->in_pos - c->reply_from};
        call_reply(c, call, st, raw);
        c->done_reply = (rg_view){NULL, 0};
    }
    release(c);
    return true;
}

rg_conn_state rg_conn_feed(rg_conn *c, size_t n) {
    if (n > c->cfg.in_cap - c->in_len) n = c->cfg.in_cap - c->in_len;
    c->in_len += n;
    while (c->state != RG_CONN_FAILED && c->in_pos < c->in_len) {
        if (!c->mid_reply) {
            const int p = try_push(c);
            if (p == P_HANDLED) continue;
            if (p == P_WAIT) break;
        }
        rg_call *call = c->head != c->tail ? slot(c, c->head) : NULL;
        const bool plain = call && call->kind == K_PLAIN && call->result &&
                           call->expect != UNKNOWN_COUNT && c->state == RG_CONN_READY;
        if (!(plain ? plain_reply(c, call) : one_reply(c))) break;
    }
    return c->state;
}

size_t rg_conn_feed_copy(rg_conn *c, const char *bytes, size_t n, rg_conn_state *state) {
    size_t done = 0, room_n;
    rg_conn_state st = c->state;
    char *dst;
    do {
        dst = rg_conn_read_buf(c, &room_n);
        const size_t take = n - done < room_n ? n - done : room_n;
        if (take) memcpy(dst, bytes + done, take);
        st = rg_conn_feed(c, take);
        done += take;
    } while (done < n && dst && st != RG_CONN_FAILED);
    if (state) *state = st;
    return done;
}
