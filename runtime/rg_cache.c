/* respgen runtime: the typed client-side cache (see rg_cache.h).
 *
 * Two rings of records in the one block: entries (header, key, request, reply) and flights
 * (header, key, request: a read sent and not answered). Records are 8-byte aligned and begin
 * with their size and state. The index is two open-addressing tables of 32-bit references
 * (an entry's offset in the ring + 1; 0: empty) with linear probing and deletion by backward
 * shift: requests to their entry, keys to the first entry of the key's chain (every entry of one
 * key, doubly linked), so an invalidation finds all of a key's entries at once. */
#include "rg_cache.h"

#include "rg_enc.h"

#include <stdio.h>
#include <string.h>

enum { R_LIVE = 1, R_DEAD, R_PENDING, R_KILLED, R_DONE };

/* An entry's header; the key, the request and the reply follow. An entry of one key of a
 * command cached per key (MGET) has no request: its tag (the command's id + 1) and its key name
 * it, and its reply is the key's element of the command's array. */
typedef struct entry {
    uint32_t size; /* the record's bytes, header included, a multiple of 8 */
    uint8_t state; /* R_LIVE or R_DEAD */
    uint8_t pad;
    uint16_t tag; /* 0: a whole request's reply; else per key, of command tag - 1 */
    uint32_t req_hash, key_hash;
    uint32_t next, prev; /* the key's chain: references, 0 none */
    uint32_t key_len, req_len, reply_len;
    uint32_t pad2;
    uint64_t expires; /* 0: never */
} entry;

/* A read in flight: its key and request follow (per key: its keys, each a 32-bit length and the
 * name, and no request). The engine's callback argument points here. */
typedef struct flight {
    uint32_t size;
    uint8_t state; /* R_PENDING, R_KILLED (its reply is not to be stored), R_DONE */
    uint8_t pad;
    uint16_t tag; /* the entries' (see entry) */
    uint32_t key_hash, req_hash;
    uint32_t key_len, req_len; /* per key: key_len is the list's bytes */
    uint32_t nkeys;
    uint32_t pad2;
    uint64_t epoch; /* the cache's at the send: a flush since makes it stale */
    rg_cache *cache;
    rg_call_fn cb;
    void *ud;
} flight;

static size_t align8(size_t n) {
    return (n + 7) & ~(size_t)7;
}

/* A 64-bit hash of bytes: 8 at a time, multiply and shift (splitmix64's finaliser). */
static uint64_t hash_bytes(const char *p, size_t n) {
    uint64_t h = UINT64_C(0x9e3779b97f4a7c15) ^ n;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * UINT64_C(0xbf58476d1ce4e5b9);
        h ^= h >> 31;
        p += 8;
        n -= 8;
    }
    uint64_t w = 0;
    if (n) memcpy(&w, p, n);
    h = (h ^ w) * UINT64_C(0x94d049bb133111eb);
    h ^= h >> 29;
    h *= UINT64_C(0xbf58476d1ce4e5b9);
    return h ^ (h >> 32);
}

static uint32_t hash32(const char *p, size_t n) {
    return (uint32_t)hash_bytes(p, n);
}

/* ---- rings ---------------------------------------------------------------------------------- */

static uint32_t rec_size(const char *rec) {
    uint32_t n;
    memcpy(&n, rec, 4);
    return n;
}

static void ring_reset(rg_cache_ring *r) {
    r->head = r->tail = r->nrec = 0;
    r->wrap = r->cap;
    r->wrapped = false;
}

/* Drops the oldest record. */
static void ring_pop(rg_cache_ring *r) {
    r->tail += rec_size(r->base + r->tail);
    if (--r->nrec == 0) {
        ring_reset(r);
    } else if (r->wrapped && r->tail == r->wrap) {
        r->tail = 0;
        r->wrapped = false;
        r->wrap = r->cap;
    }
}

static size_t ring_bytes(const rg_cache_ring *r) {
    if (r->nrec == 0) return 0;
    return r->wrapped ? r->wrap - r->tail + r->head : r->head - r->tail;
}

typedef bool (*evict_fn)(rg_cache *k, char *rec);

/* n contiguous bytes at the ring's head, dropping the oldest records (evict says whether one
 * may go, and unlinks it); NULL when it cannot make room. */
static char *ring_take(rg_cache *k, rg_cache_ring *r, size_t n, evict_fn evict) {
    for (;;) {
        if (r->nrec == 0) {
            ring_reset(r);
            if (n > r->cap) return NULL;
        }
        if (!r->wrapped) {
            if (r->cap - r->head >= n) break;
            if (r->tail >= n) { /* the rest of the end stays unused until the tail passes it */
                r->wrap = r->head;
                r->wrapped = true;
                r->head = 0;
                break;
            }
        } else if (r->tail - r->head >= n) {
            break;
        }
        if (r->nrec == 0 || !evict(k, r->base + r->tail)) return NULL;
        ring_pop(r);
    }
    char *p = r->base + r->head;
    r->head += n;
    r->nrec++;
    return p;
}

/* ---- the index ------------------------------------------------------------------------------ */

static entry *ent(const rg_cache *k, uint32_t ref) {
    return (entry *)(void *)(k->ring.base + ref - 1);
}

static const char *ent_key(const entry *e) {
    return (const char *)(e + 1);
}

static const char *ent_req(const entry *e) {
    return ent_key(e) + e->key_len;
}

static const char *ent_reply(const entry *e) {
    return ent_req(e) + e->req_len;
}

/* Where the request's entry is (true, *at its slot), or the empty slot it would take. With a
 * tag, req is the key of an entry of one key (its request hash: per_key_hash). */
static bool req_find(const rg_cache *k, uint32_t h, const char *req, size_t n, uint16_t tag,
                     size_t *at) {
    for (size_t i = h & k->mask;; i = (i + 1) & k->mask) {
        const uint32_t ref = k->req_slots[i];
        *at = i;
        if (!ref) return false;
        const entry *e = ent(k, ref);
        if (e->req_hash != h || e->tag != tag) continue;
        const char *bytes = tag ? ent_key(e) : ent_req(e);
        if ((tag ? e->key_len : e->req_len) == n && memcmp(bytes, req, n) == 0) return true;
    }
}

/* The request hash of the entry of one key of a command cached per key. */
static uint32_t per_key_hash(uint32_t key_hash, uint16_t tag) {
    return key_hash ^ (uint32_t)(tag * UINT32_C(0x9e3779b1));
}

static bool key_find(const rg_cache *k, uint32_t h, const char *key, size_t n, size_t *at) {
    for (size_t i = h & k->mask;; i = (i + 1) & k->mask) {
        const uint32_t ref = k->key_slots[i];
        *at = i;
        if (!ref) return false;
        const entry *e = ent(k, ref);
        if (e->key_hash == h && e->key_len == n && memcmp(ent_key(e), key, n) == 0) return true;
    }
}

/* The slot holding ref, which is there. */
static size_t slot_of(const rg_cache *k, const uint32_t *slots, uint32_t h, uint32_t ref) {
    size_t i = h & k->mask;
    while (slots[i] != ref) i = (i + 1) & k->mask;
    return i;
}

/* Empties slot i, moving back the references after it that would no longer be found. */
static void slot_delete(const rg_cache *k, uint32_t *slots, bool by_key, size_t i) {
    for (size_t j = (i + 1) & k->mask; slots[j]; j = (j + 1) & k->mask) {
        const entry *e = ent(k, slots[j]);
        const size_t home = (by_key ? e->key_hash : e->req_hash) & k->mask;
        /* it stays when its home is cyclically in (i, j] */
        const bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
        if (stays) continue;
        slots[i] = slots[j];
        i = j;
    }
    slots[i] = 0;
}

/* Takes a live entry out of the index (its bytes stay until the ring passes them). */
static void unlink_entry(rg_cache *k, uint32_t ref) {
    entry *e = ent(k, ref);
    slot_delete(k, k->req_slots, false, slot_of(k, k->req_slots, e->req_hash, ref));
    if (e->prev) {
        ent(k, e->prev)->next = e->next;
    } else {
        const size_t s = slot_of(k, k->key_slots, e->key_hash, ref);
        if (e->next) {
            k->key_slots[s] = e->next; /* the same key: the same home */
        } else {
            slot_delete(k, k->key_slots, true, s);
        }
    }
    if (e->next) ent(k, e->next)->prev = e->prev;
    e->state = R_DEAD;
    k->stats.entries--;
}

static bool evict_entry(rg_cache *k, char *rec) {
    entry *e = (entry *)(void *)rec;
    if (e->state == R_LIVE) {
        unlink_entry(k, (uint32_t)(rec - k->ring.base) + 1);
        k->stats.evictions++;
    }
    return true;
}

/* ---- flights -------------------------------------------------------------------------------- */

static bool flight_over(rg_cache *k, char *rec) {
    (void)k;
    return ((flight *)(void *)rec)->state == R_DONE;
}

static const char *flight_key(const flight *f) {
    return (const char *)(f + 1);
}

/* Frees the answered flights at the ring's tail (answers come in order, nearly always). */
static void flights_release(rg_cache *k) {
    rg_cache_ring *r = &k->flights;
    while (r->nrec && flight_over(k, r->base + r->tail)) ring_pop(r);
}

/* Every flight of the key: its reply is not to be stored. */
static void flights_kill(rg_cache *k, uint32_t h, const char *key, size_t n) {
    rg_cache_ring *r = &k->flights;
    size_t at = r->tail;
    for (size_t i = 0; i < r->nrec; i++) {
        if (r->wrapped && at == r->wrap) at = 0;
        flight *f = (flight *)(void *)(r->base + at);
        at += f->size;
        if (f->state != R_PENDING) continue;
        if (!f->tag) {
            if (f->key_hash == h && f->key_len == n && memcmp(flight_key(f), key, n) == 0)
                f->state = R_KILLED;
            continue;
        }
        /* one of its keys: none of its elements is stored (the flight is one reply) */
        const char *p = flight_key(f);
        for (uint32_t j = 0; j < f->nkeys && f->state == R_PENDING; j++) {
            uint32_t len;
            memcpy(&len, p, 4);
            if (len == n && memcmp(p + 4, key, n) == 0) f->state = R_KILLED;
            p += 4 + len;
        }
    }
}

/* ---- invalidation --------------------------------------------------------------------------- */

void rg_cache_flush(rg_cache *k) {
    const size_t slots = k->mask + 1;
    memset(k->req_slots, 0, slots * sizeof *k->req_slots);
    memset(k->key_slots, 0, slots * sizeof *k->key_slots);
    ring_reset(&k->ring);
    k->stats.entries = 0;
    k->epoch++; /* every flight sent before is stale */
    k->stats.flushes++;
}

static void invalidate_key(rg_cache *k, rg_view key) {
    const uint32_t h = hash32(key.ptr, key.len);
    size_t at;
    k->stats.invalidations++;
    flights_kill(k, h, key.ptr, key.len);
    if (!key_find(k, h, key.ptr, key.len, &at)) return;
    for (uint32_t ref = k->key_slots[at]; ref;) {
        entry *e = ent(k, ref);
        const uint32_t next = e->next;
        slot_delete(k, k->req_slots, false, slot_of(k, k->req_slots, e->req_hash, ref));
        e->state = R_DEAD;
        k->stats.entries--;
        ref = next;
    }
    slot_delete(k, k->key_slots, true, at);
}

/* The engine's hook on the cached connection (and on the listening one: listened). */
static void invalidated(rg_cache *k, const rg_push *p, bool listener) {
    if (p->kind == RG_PUSH_TRACKING_REDIR_BROKEN) {
        rg_cache_flush(k); /* the listening client is gone: nothing is invalidated any more */
        k->track = RG_CACHE_TRACK_WAIT;
        k->redirect = 0;
        return;
    }
    if (!p->flush_all) {
        size_t at = 0;
        rg_view key;
        while (rg_push_keys_next(p, &at, &key)) invalidate_key(k, key);
        return;
    }
    rg_cache_flush(k);
    if (p->raw.len) return; /* the server's own (FLUSHALL): tracking goes on */
    /* A loss or a RESET: tracking is off on that connection. The cached one sends it again;
     * a lost listener's successor has another id, for rg_cache_redirect to tell. */
    if (listener) {
        k->track = RG_CACHE_TRACK_WAIT;
        k->redirect = 0;
    } else if (k->track != RG_CACHE_TRACK_WAIT || k->redirect) {
        k->track = RG_CACHE_TRACK_OFF;
        k->reissue = false;
    }
}

static void on_conn(void *ud, const rg_push *p) {
    invalidated(ud, p, false);
}

static void on_listener(void *ud, const rg_push *p) {
    invalidated(ud, p, true);
}

/* ---- tracking ------------------------------------------------------------------------------- */

static void tracking_done(void *ud, const rg_call_done *d) {
    rg_cache *k = ud;
    if (d->status != RG_SERVER_ERROR && d->status != RG_MISMATCH) return; /* a loss: flushed */
    const int shown = d->error.len > 100 ? 100 : (int)d->error.len;
    snprintf(k->err, sizeof k->err, "CLIENT TRACKING refused: %.*s", shown,
             d->error.ptr ? d->error.ptr : "");
    k->error = (rg_error){RG_SERVER_ERROR, {k->err, strlen(k->err)}, 0};
    k->track = RG_CACHE_TRACK_REFUSED;
    rg_cache_flush(k); /* the reads behind it were not tracked */
}

/* Queues an internal request (argv) as a plain call: no registry, no replay (the cache sends it
 * again itself). */
static bool send_argv(rg_cache *k, size_t argc, const rg_view *argv, rg_call_fn cb) {
    const size_t n = rg_argv_size(argc, argv);
    char *dst = rg_conn_reserve(k->conn, n);
    if (!dst || rg_argv_encode(dst, n, argc, argv) != n) return false;
    return rg_conn_commit_plain(k->conn, n, NULL, NULL, cb, k) != 0;
}

/* CLIENT TRACKING ON with the mode's options (after OFF when it was on with others). */
static bool send_tracking(rg_cache *k) {
    rg_view argv[8 + 2 * RG_CACHE_MAX_PREFIXES];
    char id[24];
    size_t argc = 0;
    argv[argc++] = RG_LIT("CLIENT");
    argv[argc++] = RG_LIT("TRACKING");
    if (k->reissue) {
        argv[argc++] = RG_LIT("OFF");
        if (!send_argv(k, argc, argv, NULL)) return false;
        argc = 2;
    }
    argv[argc++] = RG_LIT("ON");
    if (k->redirect) {
        argv[argc++] = RG_LIT("REDIRECT");
        argv[argc++] =
            (rg_view){id, (size_t)snprintf(id, sizeof id, "%llu", (unsigned long long)k->redirect)};
    }
    if (k->cfg.mode == RG_CACHE_OPTIN) argv[argc++] = RG_LIT("OPTIN");
    if (k->cfg.mode == RG_CACHE_BCAST) {
        argv[argc++] = RG_LIT("BCAST");
        for (size_t i = 0; i < k->cfg.nprefixes; i++) {
            argv[argc++] = RG_LIT("PREFIX");
            argv[argc++] = k->prefixes[i];
        }
    }
    if (!send_argv(k, argc, argv, tracking_done)) return false;
    k->track = RG_CACHE_TRACK_ON;
    k->reissue = true; /* a later change of redirect turns this one off first */
    return true;
}

void rg_cache_redirect(rg_cache *k, uint64_t id) {
    rg_cache_flush(k);
    k->redirect = id;
    k->error = (rg_error){RG_OK, {NULL, 0}, 0};
    k->track = RG_CACHE_TRACK_OFF;
}

/* ---- calls ---------------------------------------------------------------------------------- */

static uint64_t now(const rg_cache *k) {
    return k->cfg.now_ms ? k->cfg.now_ms(k->cfg.now_ud) : 0;
}

/* Can the server tell this connection of changes to the key? */
static bool trackable(const rg_cache *k, rg_view key) {
    const rg_conn *c = k->conn;
    if (k->track != RG_CACHE_TRACK_OFF && k->track != RG_CACHE_TRACK_ON) return false;
    if (!k->redirect && rg_conn_protocol(c) != 3) return false; /* RESP2 gets no pushes */
    if (rg_conn_state_of(c) >= RG_CONN_FAILED || rg_conn_is_offline(c) || rg_conn_in_multi(c))
        return false;
    if (k->cfg.mode != RG_CACHE_BCAST || k->cfg.nprefixes == 0) return true;
    for (size_t i = 0; i < k->cfg.nprefixes; i++) {
        const rg_view p = k->prefixes[i];
        if (key.len >= p.len && memcmp(key.ptr, p.ptr, p.len) == 0) return true;
    }
    return false; /* no invalidation would come for it */
}

/* Stores one entry (tag 0: the request's reply; else the element of one key). */
static void store(rg_cache *k, uint16_t tag, rg_view key, uint32_t key_hash, rg_view req,
                  uint32_t req_hash, rg_view reply) {
    const size_t size = align8(sizeof(entry) + key.len + req.len + reply.len);
    const rg_view probe = tag ? key : req;
    size_t at;
    if (size > k->ring.cap / 8 || reply.len > UINT32_MAX) {
        k->stats.dropped++;
        return;
    }
    if (req_find(k, req_hash, probe.ptr, probe.len, tag, &at)) unlink_entry(k, k->req_slots[at]);
    while (k->stats.entries >= k->max_entries && k->ring.nrec) {
        evict_entry(k, k->ring.base + k->ring.tail);
        ring_pop(&k->ring);
    }
    char *rec = ring_take(k, &k->ring, size, evict_entry);
    if (!rec) {
        k->stats.dropped++;
        return;
    }
    entry *e = (entry *)(void *)rec;
    const uint32_t ref = (uint32_t)(rec - k->ring.base) + 1;
    *e = (entry){.size = (uint32_t)size,
                 .state = R_LIVE,
                 .tag = tag,
                 .req_hash = req_hash,
                 .key_hash = key_hash,
                 .key_len = (uint32_t)key.len,
                 .req_len = (uint32_t)req.len,
                 .reply_len = (uint32_t)reply.len,
                 .expires = k->cfg.ttl_ms ? now(k) + k->cfg.ttl_ms : 0};
    char *p = rec + sizeof(entry);
    memcpy(p, key.ptr, key.len);
    if (req.len) memcpy(p + key.len, req.ptr, req.len);
    memcpy(p + key.len + req.len, reply.ptr, reply.len);
    req_find(k, req_hash, probe.ptr, probe.len, tag, &at);
    k->req_slots[at] = ref;
    if (key_find(k, key_hash, key.ptr, key.len, &at)) {
        e->next = k->key_slots[at];
        ent(k, e->next)->prev = ref;
    }
    k->key_slots[at] = ref;
    k->stats.entries++;
    k->stats.stored++;
}

/* A per-key flight's reply: an array of one element per key, each stored as the key's entry.
 * Anything else (another count, an aggregate element) stores nothing. */
static void store_keys(rg_cache *k, const flight *f, rg_view reply) {
    rg_reader rd;
    rg_event ev;
    size_t pos = 0;
    rg_reader_init(&rd, NULL);
    if (rg_next(&rd, reply.ptr, reply.len, &pos, &ev) != RG_OK || ev.kind != RG_EV_ARRAY ||
        ev.u.i != (int64_t)f->nkeys) {
        k->stats.dropped++;
        return;
    }
    const char *p = flight_key(f);
    for (uint32_t j = 0; j < f->nkeys; j++) {
        const size_t from = pos;
        if (rg_next(&rd, reply.ptr, reply.len, &pos, &ev) != RG_OK || ev.depth != 1 ||
            ev.kind == RG_EV_ARRAY || ev.kind == RG_EV_MAP || ev.kind == RG_EV_SET ||
            ev.kind == RG_EV_ATTR || ev.kind == RG_EV_PUSH || ev.kind == RG_EV_STR_BEGIN) {
            k->stats.dropped++;
            return;
        }
        uint32_t len;
        memcpy(&len, p, 4);
        const rg_view key = {p + 4, len};
        const uint32_t kh = hash32(key.ptr, key.len);
        store(k, f->tag, key, kh, (rg_view){NULL, 0}, per_key_hash(kh, f->tag),
              (rg_view){reply.ptr + from, pos - from});
        p += 4 + len;
    }
}

/* The engine's callback of a cached read: store its reply unless it went stale in flight,
 * then the caller's callback. */
static void flight_done(void *ud, const rg_call_done *d) {
    flight *f = ud;
    rg_cache *k = f->cache;
    const rg_call_fn cb = f->cb;
    void *const cb_ud = f->ud;
    if (d->status == RG_OK && d->reply.len) {
        /* a connection that fell back to RESP2 without a redirect gets no invalidations */
        const bool heard = k->redirect || rg_conn_protocol(k->conn) == 3;
        if (f->state == R_PENDING && f->epoch == k->epoch && k->track == RG_CACHE_TRACK_ON &&
            heard) {
            if (f->tag) {
                store_keys(k, f, d->reply);
            } else {
                const char *key = flight_key(f);
                store(k, 0, (rg_view){key, f->key_len}, f->key_hash,
                      (rg_view){key + f->key_len, f->req_len}, f->req_hash, d->reply);
            }
        } else {
            k->stats.dropped++;
        }
    }
    f->state = R_DONE;
    flights_release(k); /* before the callback, which may make cached calls */
    if (cb) cb(cb_ud, d);
}

/* A flight for the read of n request bytes: of one key (tag 0) or of nkeys keys, cached per key
 * (their list kept: each a 32-bit length and the name). NULL when there is no room. */
static flight *flight_new(rg_cache *k, uint16_t tag, const rg_view *keys, size_t nkeys,
                          const char *req, size_t n, uint32_t req_hash, rg_call_fn cb, void *ud) {
    size_t list = tag ? 0 : keys[0].len;
    for (size_t i = 0; tag && i < nkeys; i++) list += 4 + keys[i].len;
    const size_t size = align8(sizeof(flight) + list + n);
    if (size > k->flights.cap / 2) return NULL;
    char *rec = ring_take(k, &k->flights, size, flight_over);
    if (!rec) return NULL;
    flight *f = (flight *)(void *)rec;
    *f = (flight){.size = (uint32_t)size,
                  .state = R_PENDING,
                  .tag = tag,
                  .key_hash = tag ? 0 : hash32(keys[0].ptr, keys[0].len),
                  .req_hash = req_hash,
                  .key_len = (uint32_t)list,
                  .req_len = (uint32_t)n,
                  .nkeys = (uint32_t)nkeys,
                  .epoch = k->epoch,
                  .cache = k,
                  .cb = cb,
                  .ud = ud};
    char *p = rec + sizeof(flight);
    if (!tag) {
        memcpy(p, keys[0].ptr, keys[0].len);
        p += keys[0].len;
    }
    for (size_t i = 0; tag && i < nkeys; i++) {
        const uint32_t len = (uint32_t)keys[i].len;
        memcpy(p, &len, 4);
        memcpy(p + 4, keys[i].ptr, len);
        p += 4 + len;
    }
    memcpy(p, req, n);
    return f;
}

/* A hit: reply (whole RESP bytes) decoded with the command's table, arrays in mem. False when it
 * does not decode here (its arrays do not fit): the caller asks the server. */
static bool answer(rg_cache *k, rg_view reply, void *mem, size_t cap, const rg_cmd *cmd,
                   void *result, rg_call_fn cb, void *ud) {
    if (result) {
        size_t at = 0;
        if (k->rr_dirty) rg_reply_reader_init(&k->rr, NULL);
        rg_reply_set_storage(&k->rr, mem, cap);
        const rg_status st = rg_reply_decode(&k->rr, cmd->reply, reply.ptr, reply.len, &at, result);
        k->rr_dirty = st != RG_OK || at != reply.len;
        if (k->rr_dirty) return false;
    }
    k->stats.hits++;
    if (cb) {
        const rg_call_done d = {.status = RG_OK,
                                .id = RG_CACHE_HIT,
                                .result = result,
                                .redirect = {RG_REDIRECT_NONE, -1, {NULL, 0}, 0},
                                .written = false,
                                .reply = reply};
        cb(ud, &d);
    }
    return true;
}

/* The live entry at slot at, or NULL when it expired (and is dropped). */
static const entry *fresh(rg_cache *k, size_t at) {
    const uint32_t ref = k->req_slots[at];
    const entry *e = ent(k, ref);
    if (!e->expires || now(k) < e->expires) return e;
    unlink_entry(k, ref);
    k->stats.expired++;
    return NULL;
}

/* A miss: the read goes out behind CLIENT TRACKING when it is to be sent and CLIENT CACHING YES
 * in OPTIN (it is encoded already, so it is written again behind them from the flight's copy,
 * at the end of the flight: the output may move), with the flight as its callback's argument. */
static uint64_t send_read(rg_cache *k, flight *f, size_t n, const rg_cmd *cmd, void *result) {
    rg_conn *const c = k->conn;
    k->stats.misses++;
    if (k->track == RG_CACHE_TRACK_OFF || k->cfg.mode == RG_CACHE_OPTIN) {
        static const rg_view caching[] = {{"CLIENT", 6}, {"CACHING", 7}, {"YES", 3}};
        bool ok = k->track == RG_CACHE_TRACK_ON || send_tracking(k);
        if (ok && k->cfg.mode == RG_CACHE_OPTIN) ok = send_argv(k, 3, caching, NULL);
        char *dst = ok ? rg_conn_reserve(c, n) : NULL;
        if (!dst) {
            f->state = R_DONE;
            flights_release(k);
            return 0;
        }
        memcpy(dst, flight_key(f) + f->key_len, n);
    }
    const uint64_t id = rg_conn_commit(c, n, cmd, result, flight_done, f);
    if (!id) {
        f->state = R_DONE;
        flights_release(k);
    }
    return id;
}

uint64_t rg_cache_call(rg_cache *k, const char *req, size_t n, const rg_cmd *cmd, rg_view key,
                       void *result, rg_call_fn cb, void *ud) {
    rg_conn *const c = k->conn;
    if (!trackable(k, key) || key.len > UINT32_MAX || n > UINT32_MAX) {
        k->stats.uncached++;
        return rg_conn_commit(c, n, cmd, result, cb, ud);
    }
    const uint32_t rh = hash32(req, n);
    size_t at;
    if (req_find(k, rh, req, n, 0, &at)) {
        const entry *e = fresh(k, at);
        if (e && answer(k, (rg_view){ent_reply(e), e->reply_len}, k->hit_mem, k->hit_cap, cmd,
                        result, cb, ud))
            return RG_CACHE_HIT;
        if (e) unlink_entry(k, k->req_slots[at]);
    }
    flight *f = flight_new(k, 0, &key, 1, req, n, rh, cb, ud);
    if (!f) {
        k->stats.uncached++;
        return rg_conn_commit(c, n, cmd, result, cb, ud);
    }
    return send_read(k, f, n, cmd, result);
}

/* Every key's element held: the array the server would send, assembled at the end of the hit
 * storage ("*<nkeys>" and the elements), decoded into result with the rest of it. */
static bool answer_keys(rg_cache *k, uint16_t tag, const rg_view *keys, size_t nkeys,
                        const rg_cmd *cmd, void *result, rg_call_fn cb, void *ud) {
    char head[32];
    const size_t hl = (size_t)snprintf(head, sizeof head, "*%zu\r\n", nkeys);
    size_t total = hl, at;
    for (int pass = 0; pass < 2; pass++) {
        char *bytes = (char *)k->hit_mem + k->hit_cap - total, *p = bytes + hl;
        if (pass) memcpy(bytes, head, hl);
        for (size_t i = 0; i < nkeys; i++) {
            const uint32_t kh = hash32(keys[i].ptr, keys[i].len);
            if (!req_find(k, per_key_hash(kh, tag), keys[i].ptr, keys[i].len, tag, &at))
                return false;
            const entry *e = pass ? ent(k, k->req_slots[at]) : fresh(k, at);
            if (!e) return false;
            if (pass) {
                memcpy(p, ent_reply(e), e->reply_len);
                p += e->reply_len;
            } else {
                total += e->reply_len;
            }
        }
        if (!pass && total > k->hit_cap / 2) return false;
        if (pass) {
            const size_t cap = (k->hit_cap - total) & ~(size_t)15;
            return answer(k, (rg_view){bytes, total}, k->hit_mem, cap, cmd, result, cb, ud);
        }
    }
    return false;
}

uint64_t rg_cache_call_keys(rg_cache *k, const char *req, size_t n, const rg_cmd *cmd,
                            const rg_view *keys, size_t nkeys, void *result, rg_call_fn cb,
                            void *ud) {
    rg_conn *const c = k->conn;
    const uint16_t tag = (uint16_t)(cmd->id + 1);
    bool usable = nkeys > 0 && nkeys <= UINT32_MAX && n <= UINT32_MAX && cmd->id < UINT16_MAX;
    for (size_t i = 0; usable && i < nkeys; i++)
        usable = trackable(k, keys[i]) && keys[i].len <= UINT32_MAX;
    if (!usable) {
        k->stats.uncached++;
        return rg_conn_commit(c, n, cmd, result, cb, ud);
    }
    if (answer_keys(k, tag, keys, nkeys, cmd, result, cb, ud)) return RG_CACHE_HIT;
    flight *f = flight_new(k, tag, keys, nkeys, req, n, 0, cb, ud);
    if (!f) {
        k->stats.uncached++;
        return rg_conn_commit(c, n, cmd, result, cb, ud);
    }
    return send_read(k, f, n, cmd, result);
}

/* ---- setup ---------------------------------------------------------------------------------- */

static size_t pow2_at_least(size_t n) {
    size_t p = 16;
    while (p < n) p <<= 1;
    return p;
}

rg_status rg_cache_init(rg_cache *k, const rg_cache_config *cfg) {
    memset(k, 0, sizeof *k);
    k->cfg = *cfg;
    rg_cache_config *f = &k->cfg;
    if (!f->mem && !f->mem_size) f->mem_size = RG_CACHE_DEFAULT_SIZE;
    if (f->mem_size < RG_CACHE_MIN_SIZE || f->mem_size > RG_CACHE_MAX_SIZE ||
        (f->ttl_ms && !f->now_ms) || f->nprefixes > RG_CACHE_MAX_PREFIXES ||
        (f->nprefixes && !f->prefixes))
        return RG_INVALID;
    size_t pbytes = 0;
    for (size_t i = 0; i < f->nprefixes; i++) pbytes += f->prefixes[i].len;
    if (pbytes > RG_CACHE_PREFIX_BYTES) return RG_INVALID;
    k->max_entries = f->max_entries ? f->max_entries : f->mem_size / 512;
    const size_t slots = pow2_at_least(2 * k->max_entries);
    const size_t index = 2 * slots * sizeof(uint32_t);
    const size_t fl = align8(f->flight_bytes ? f->flight_bytes : f->mem_size / 16);
    const size_t hit = align8(f->hit_storage ? f->hit_storage : (size_t)16 << 10);
    const size_t fixed = index + fl + hit + align8(pbytes) + 16;
    if (k->max_entries > UINT32_MAX / 2 || fixed > f->mem_size ||
        f->mem_size - fixed < RG_CACHE_MIN_SIZE / 4 || fl < 256)
        return RG_INVALID;
    char *mem = f->mem;
    if (!mem) {
        if (!f->alloc) f->alloc = rg_conn_std_alloc;
        mem = k->own = f->alloc(f->alloc_ud, NULL, f->mem_size);
        if (!mem) return RG_FULL;
    }
    char *p = (char *)(((uintptr_t)mem + 15) & ~(uintptr_t)15); /* the hits' arrays: aligned */
    k->hit_mem = p;
    k->hit_cap = hit;
    p += hit;
    k->req_slots = (uint32_t *)(void *)p;
    k->key_slots = k->req_slots + slots;
    k->mask = slots - 1;
    p += index;
    k->flights = (rg_cache_ring){.base = p, .cap = fl};
    ring_reset(&k->flights);
    p += fl;
    k->prefix_mem = p;
    for (size_t i = 0; i < f->nprefixes; i++) {
        memcpy(p, f->prefixes[i].ptr, f->prefixes[i].len);
        k->prefixes[i] = (rg_view){p, f->prefixes[i].len};
        p += f->prefixes[i].len;
    }
    p = (char *)(((uintptr_t)p + 7) & ~(uintptr_t)7);
    k->ring = (rg_cache_ring){.base = p, .cap = (size_t)(mem + f->mem_size - p) & ~(size_t)7};
    ring_reset(&k->ring);
    memset(k->req_slots, 0, index);
    k->redirect = f->redirect;
    k->track = RG_CACHE_TRACK_OFF;
    rg_reply_reader_init(&k->rr, NULL);
    return RG_OK;
}

void rg_cache_free(rg_cache *k) {
    if (k->conn) rg_conn_on_invalidate(k->conn, NULL, NULL);
    if (k->listener) rg_conn_on_invalidate(k->listener, NULL, NULL);
    k->conn = k->listener = NULL;
    if (k->own) k->cfg.alloc(k->cfg.alloc_ud, k->own, 0);
    k->own = NULL;
}

rg_status rg_cache_attach(rg_cache *k, rg_conn *c) {
    if (rg_conn_relayed(c) || k->conn) return RG_INVALID;
    k->conn = c;
    rg_conn_on_invalidate(c, on_conn, k);
    return RG_OK;
}

rg_status rg_cache_listen(rg_cache *k, rg_conn *l) {
    if (rg_conn_relayed(l) || k->listener || l == k->conn) return RG_INVALID;
    k->listener = l;
    rg_conn_on_invalidate(l, on_listener, k);
    return RG_OK;
}

rg_cache_stats rg_cache_stats_of(const rg_cache *k) {
    rg_cache_stats s = k->stats;
    s.bytes = ring_bytes(&k->ring);
    return s;
}

void rg_cache_stats_reset(rg_cache *k) {
    const size_t entries = k->stats.entries;
    memset(&k->stats, 0, sizeof k->stats);
    k->stats.entries = entries;
}

rg_cache_track rg_cache_tracking(const rg_cache *k) {
    return k->track;
}

rg_error rg_cache_error(const rg_cache *k) {
    return k->error;
}
