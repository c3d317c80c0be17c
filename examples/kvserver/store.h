/* The example server's keyspace: a chained hash table of byte-string keys and values, each with
 * an optional absolute expiry (unix milliseconds). Expired keys are removed lazily, on access:
 * enough for an example, where Redis also samples keys actively. */
#ifndef KV_STORE_H
#define KV_STORE_H

#include "rg.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct kv_entry {
    struct kv_entry *next;
    uint64_t hash;
    int64_t expire_ms; /* 0: none */
    size_t key_len, val_len, val_cap;
    char *val;  /* owned */
    char key[]; /* owned, inline */
} kv_entry;

typedef struct kv_store {
    kv_entry **buckets; /* owned */
    size_t mask;        /* bucket count - 1 */
    size_t count;
} kv_store;

bool kv_store_init(kv_store *s);
void kv_store_free(kv_store *s);

/* The live entry for key at time now_ms, or NULL (an expired one is deleted first). */
kv_entry *kv_find(kv_store *s, rg_view key, int64_t now_ms);

/* Sets key to val, creating the entry if needed; keeps the expiry of an existing entry (callers
 * reset it). Returns the entry, or NULL when out of memory. */
kv_entry *kv_put(kv_store *s, rg_view key, rg_view val, int64_t now_ms);

/* Deletes key; returns whether a live entry was removed. */
bool kv_del(kv_store *s, rg_view key, int64_t now_ms);

#endif
