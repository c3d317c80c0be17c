/* The example server's command handlers: one per command id of kv_server.h, each appending its
 * reply to the connection's output with the exact-size writers of rg_out.h. */
#ifndef KV_COMMANDS_H
#define KV_COMMANDS_H

#include "kv_server.h"
#include "store.h"

#include <stdbool.h>

/* A growable output buffer; the server owns it and sends out[sent..len). */
typedef struct kv_out {
    char *buf;
    size_t len, cap, sent;
    bool failed; /* out of memory: the connection is dropped */
} kv_out;

/* What a handler sees: the keyspace, the connection's reply buffer and protocol version. */
typedef struct kv_ctx {
    kv_store *store;
    kv_out *out;
    int *proto;     /* 2 or 3; HELLO changes it */
    bool *closing;  /* QUIT sets it: close after the reply is sent */
    int64_t now_ms; /* unix time of this batch of requests */
    uint64_t client_id;
} kv_ctx;

/* Room for n more bytes at the end of out, or NULL (and out->failed) when memory runs out. */
char *kv_out_reserve(kv_out *out, size_t n);
void kv_out_raw(kv_out *out, const char *bytes, size_t n);
/* "-<text>\r\n" */
void kv_out_error(kv_out *out, const char *text, size_t n);

/* Runs one request: looks it up, parses its arguments and appends its reply. */
void kv_execute(kv_ctx *ctx, size_t argc, const rg_view *argv);

#endif
