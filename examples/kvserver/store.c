/* The example server's keyspace. See store.h. */
#include "store.h"

#include <stdlib.h>
#include <string.h>

/* FNV-1a with a final multiply-xorshift: keys in benchmarks are "key:000000012345", whose
 * low bits alone would cluster. */
static uint64_t hash_of(rg_view k) {
    uint64_t h = 1469598103934665603u;
    for (size_t i = 0; i < k.len; i++) h = (h ^ (unsigned char)k.ptr[i]) * 1099511628211u;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9u;
    return h ^ (h >> 32);
}

bool kv_store_init(kv_store *s) {
    s->mask = 1023;
    s->count = 0;
    s->buckets = calloc(s->mask + 1, sizeof *s->buckets);
    return s->buckets != NULL;
}

void kv_store_free(kv_store *s) {
    for (size_t i = 0; i <= s->mask; i++) {
        kv_entry *e = s->buckets[i];
        while (e) {
            kv_entry *next = e->next;
            free(e->val);
            free(e);
            e = next;
        }
    }
    free(s->buckets);
    s->buckets = NULL;
}

static void grow(kv_store *s) {
    const size_t n = (s->mask + 1) * 2;
    kv_entry **b = calloc(n, sizeof *b);
    if (!b) return; /* keep the longer chains */
    for (size_t i = 0; i <= s->mask; i++) {
        kv_entry *e = s->buckets[i];
        while (e) {
            kv_entry *next = e->next;
            e->next = b[e->hash & (n - 1)];
            b[e->hash & (n - 1)] = e;
            e = next;
        }
    }
    free(s->buckets);
    s->buckets = b;
    s->mask = n - 1;
}

static kv_entry **slot_of(kv_store *s, rg_view key, uint64_t h) {
    kv_entry **p = &s->buckets[h & s->mask];
    while (*p && !((*p)->hash == h && (*p)->key_len == key.len &&
                   memcmp((*p)->key, key.ptr, key.len) == 0)) {
        p = &(*p)->next;
    }
    return p;
}

static void unlink_entry(kv_store *s, kv_entry **p) {
    kv_entry *e = *p;
    *p = e->next;
    free(e->val);
    free(e);
    s->count--;
}

static bool expired(const kv_entry *e, int64_t now_ms) {
    return e->expire_ms != 0 && e->expire_ms <= now_ms;
}

kv_entry *kv_find(kv_store *s, rg_view key, int64_t now_ms) {
    kv_entry **p = slot_of(s, key, hash_of(key));
    if (!*p) return NULL;
    if (expired(*p, now_ms)) {
        unlink_entry(s, p);
        return NULL;
    }
    return *p;
}

static bool set_value(kv_entry *e, rg_view val) {
    if (val.len > e->val_cap || !e->val) {
        char *v = realloc(e->val, val.len ? val.len : 1);
        if (!v) return false;
        e->val = v;
        e->val_cap = val.len;
    }
    if (val.len) memcpy(e->val, val.ptr, val.len);
    e->val_len = val.len;
    return true;
}

kv_entry *kv_put(kv_store *s, rg_view key, rg_view val, int64_t now_ms) {
    const uint64_t h = hash_of(key);
    kv_entry **p = slot_of(s, key, h);
    if (*p && expired(*p, now_ms)) unlink_entry(s, p);
    if (!*p) {
        kv_entry *e = calloc(1, sizeof *e + key.len);
        if (!e) return NULL;
        e->hash = h;
        e->key_len = key.len;
        if (key.len) memcpy(e->key, key.ptr, key.len);
        *p = e;
        s->count++;
    }
    kv_entry *e = *p;
    if (!set_value(e, val)) return NULL;
    if (s->count > s->mask + 1) grow(s);
    return e;
}

bool kv_del(kv_store *s, rg_view key, int64_t now_ms) {
    kv_entry **p = slot_of(s, key, hash_of(key));
    if (!*p) return false;
    const bool live = !expired(*p, now_ms);
    unlink_entry(s, p);
    return live;
}
