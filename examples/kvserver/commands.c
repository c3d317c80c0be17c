/* The example server's command handlers. Semantics follow Redis 7.0 for what they implement;
 * replies and error texts are Redis'. */
#include "commands.h"

#include "rg_out.h"
#include "rg_req.h"

#include <stdlib.h>
#include <string.h>

char *kv_out_reserve(kv_out *out, size_t n) {
    if (out->failed) return NULL;
    if (out->cap - out->len < n) {
        size_t cap = out->cap ? out->cap : 16384;
        while (cap - out->len < n) cap *= 2;
        char *b = realloc(out->buf, cap);
        if (!b) {
            out->failed = true;
            return NULL;
        }
        out->buf = b;
        out->cap = cap;
    }
    char *at = out->buf + out->len;
    out->len += n;
    return at;
}

void kv_out_raw(kv_out *out, const char *bytes, size_t n) {
    char *at = kv_out_reserve(out, n);
    if (at) memcpy(at, bytes, n);
}

#define OUT_LIT(out, s) kv_out_raw((out), (s), sizeof(s) - 1)

void kv_out_error(kv_out *out, const char *text, size_t n) {
    char *at = kv_out_reserve(out, rg_out_simple_size(n));
    if (at) rg_out_error(at, text, n);
}

static void out_bulk(kv_out *out, const char *bytes, size_t n) {
    char *at = kv_out_reserve(out, rg_bulk_size(n));
    if (at) rg_put_bulk(at, bytes, n);
}

static void out_int(kv_out *out, int64_t v) {
    if (v == 0 || v == 1) {
        kv_out_raw(out, v ? RG_OUT_ONE : RG_OUT_ZERO, 4);
        return;
    }
    char *at = kv_out_reserve(out, rg_out_int_size(v));
    if (at) rg_out_int(at, v);
}

static void out_null(const kv_ctx *c) {
    const rg_view n = rg_out_null(*c->proto);
    kv_out_raw(c->out, n.ptr, n.len);
}

static void out_value(const kv_ctx *c, const kv_entry *e) {
    if (e) {
        out_bulk(c->out, e->val, e->val_len);
    } else {
        out_null(c);
    }
}

typedef void handler(kv_ctx *c, const kv_srv_args *a, size_t argc, const rg_view *argv);

static void cmd_ping(kv_ctx *c, const kv_srv_args *a, size_t argc, const rg_view *argv) {
    (void)argc, (void)argv;
    if (a->ping.has_message) {
        out_bulk(c->out, a->ping.message.ptr, a->ping.message.len);
    } else {
        OUT_LIT(c->out, RG_OUT_PONG);
    }
}

static void cmd_echo(kv_ctx *c, const kv_srv_args *a, size_t argc, const rg_view *argv) {
    (void)argc, (void)argv;
    out_bulk(c->out, a->echo.message.ptr, a->echo.message.len);
}

static void hello_reply(kv_ctx *c) {
    static const char *const keys[] = {"server", "version", "proto",  "id",
                                       "mode",   "role",    "modules"};
    kv_out *o = c->out;
    char *at = kv_out_reserve(o, rg_out_map_size(*c->proto, 7));
    if (at) rg_out_map(at, *c->proto, 7);
    for (size_t i = 0; i < 7; i++) {
        out_bulk(o, keys[i], strlen(keys[i]));
        switch (i) {
        case 0: OUT_LIT(o, "$8\r\nkvserver\r\n"); break;
        case 1: OUT_LIT(o, "$5\r\n0.1.0\r\n"); break;
        case 2: out_int(o, *c->proto); break;
        case 3: out_int(o, (int64_t)c->client_id); break;
        case 4: OUT_LIT(o, "$10\r\nstandalone\r\n"); break;
        case 5: OUT_LIT(o, "$6\r\nmaster\r\n"); break;
        default: OUT_LIT(o, RG_OUT_EMPTYARR); break;
        }
    }
}

/* HELLO [protover [AUTH username password] [SETNAME clientname]]: raw (nested optional blocks),
 * parsed here in Redis' order and with its texts. There is no authentication: AUTH is accepted. */
static void cmd_hello(kv_ctx *c, const kv_srv_args *a, size_t argc, const rg_view *argv) {
    (void)a;
    int64_t ver = 0;
    if (argc >= 2) {
        if (!rg_parse_i64(argv[1].ptr, argv[1].len, &ver)) {
            static const char e[] = "ERR Protocol version is not an integer or out of range";
            kv_out_error(c->out, e, sizeof e - 1);
            return;
        }
        if (ver < 2 || ver > 3) {
            static const char e[] = "NOPROTO unsupported protocol version";
            kv_out_error(c->out, e, sizeof e - 1);
            return;
        }
    }
    for (size_t j = 2; j < argc; j++) {
        const size_t more = argc - j - 1;
        if (argv[j].len == 4 && rg_eq_lower(argv[j].ptr, "auth", 4) && more >= 2) {
            j += 2;
        } else if (argv[j].len == 7 && rg_eq_lower(argv[j].ptr, "setname", 7) && more >= 1) {
            j += 1;
        } else {
            rg_errbuf err;
            rg_err_text(&err, "ERR Syntax error in HELLO option '");
            rg_err_append(&err, argv[j].ptr, argv[j].len);
            rg_err_append(&err, "'", 1);
            const rg_error e = rg_args_error(&err);
            kv_out_error(c->out, e.msg.ptr, e.msg.len);
            return;
        }
    }
    if (ver) *c->proto = (int)ver;
    hello_reply(c);
}

/* SET's expiry options: where the value is, its unit in ms, and whether it counts from now. */
static const struct {
    size_t off;
    int64_t unit;
    bool relative;
} expiry_kinds[] = {
    [KV_SRV_SET_EXPIRATION_SECONDS] = {offsetof(kv_srv_set_args, expiration_seconds), 1000, true},
    [KV_SRV_SET_EXPIRATION_MILLISECONDS] = {offsetof(kv_srv_set_args, expiration_milliseconds), 1,
                                            true},
    [KV_SRV_SET_EXPIRATION_UNIX_TIME_SECONDS] = {offsetof(kv_srv_set_args,
                                                          expiration_unix_time_seconds),
                                                 1000, false},
    [KV_SRV_SET_EXPIRATION_UNIX_TIME_MILLISECONDS] = {offsetof(kv_srv_set_args,
                                                               expiration_unix_time_milliseconds),
                                                      1, false},
};

/* SET's expiry in absolute unix ms (0: none); false with Redis' error written when invalid. */
static bool set_expiry(kv_ctx *c, const kv_srv_set_args *s, int64_t *at) {
    static const char bad[] = "ERR invalid expire time in 'set' command";
    *at = 0;
    if (s->expiration == 0 || s->expiration == KV_SRV_SET_EXPIRATION_KEEPTTL) return true;
    int64_t v;
    memcpy(&v, (const char *)s + expiry_kinds[s->expiration].off, sizeof v);
    const int64_t unit = expiry_kinds[s->expiration].unit;
    const int64_t base = expiry_kinds[s->expiration].relative ? c->now_ms : 0;
    /* as Redis: positive, no overflow in ms, and still positive after adding the base */
    if (v <= 0 || v > INT64_MAX / unit || v * unit > INT64_MAX - base) {
        kv_out_error(c->out, bad, sizeof bad - 1);
        return false;
    }
    *at = v * unit + base;
    return true;
}

static void cmd_set(kv_ctx *c, const kv_srv_args *a, size_t argc, const rg_view *argv) {
    (void)argc, (void)argv;
    const kv_srv_set_args *s = &a->set;
    int64_t expire_at = 0;
    if (!set_expiry(c, s, &expire_at)) return;
    kv_entry *e = kv_find(c->store, s->key, c->now_ms);
    if (s->get) out_value(c, e); /* the old value, before the conditions are applied */
    if ((s->condition == KV_SRV_SET_CONDITION_NX && e) ||
        (s->condition == KV_SRV_SET_CONDITION_XX && !e)) {
        if (!s->get) out_null(c);
        return;
    }
    const int64_t keep = e ? e->expire_ms : 0;
    e = kv_put(c->store, s->key, s->value, c->now_ms);
    if (!e) {
        c->out->failed = true;
        return;
    }
    e->expire_ms = s->expiration == KV_SRV_SET_EXPIRATION_KEEPTTL ? keep : expire_at;
    if (e->expire_ms && e->expire_ms <= c->now_ms) kv_del(c->store, s->key, c->now_ms);
    if (!s->get) OUT_LIT(c->out, RG_OUT_OK);
}

/* GET answers through the encoder generated from its reply schema (string or null). */
static void cmd_get(kv_ctx *c, const kv_srv_args *a, size_t argc, const rg_view *argv) {
    (void)argc, (void)argv;
    const kv_entry *e = kv_find(c->store, a->get.key, c->now_ms);
    const rg_view v = e ? (rg_view){e->val, e->val_len} : (rg_view){NULL, 0};
    char *at = kv_out_reserve(c->out, kv_srv_get_reply_size(*c->proto, v));
    if (at) kv_srv_get_reply(at, *c->proto, v);
}

static void cmd_del(kv_ctx *c, const kv_srv_args *a, size_t argc, const rg_view *argv) {
    (void)argc, (void)argv;
    int64_t n = 0;
    for (size_t i = 0; i < a->del.key_count; i++) n += kv_del(c->store, a->del.key[i], c->now_ms);
    out_int(c->out, n);
}

static void cmd_exists(kv_ctx *c, const kv_srv_args *a, size_t argc, const rg_view *argv) {
    (void)argc, (void)argv;
    int64_t n = 0;
    for (size_t i = 0; i < a->exists.key_count; i++) {
        n += kv_find(c->store, a->exists.key[i], c->now_ms) != NULL;
    }
    out_int(c->out, n);
}

static void incr_by(kv_ctx *c, rg_view key, int64_t by) {
    kv_entry *e = kv_find(c->store, key, c->now_ms);
    int64_t v = 0;
    if (e && !rg_parse_i64(e->val, e->val_len, &v)) {
        OUT_LIT(c->out, RG_OUT_NOT_INT);
        return;
    }
    if ((by > 0 && v > INT64_MAX - by) || (by < 0 && v < INT64_MIN - by)) {
        static const char e2[] = "ERR increment or decrement would overflow";
        kv_out_error(c->out, e2, sizeof e2 - 1);
        return;
    }
    v += by;
    char digits[RG_I64_MAX_LEN];
    const size_t n = (size_t)(rg_put_i64(digits, v) - digits);
    const int64_t keep = e ? e->expire_ms : 0;
    e = kv_put(c->store, key, (rg_view){digits, n}, c->now_ms);
    if (!e) {
        c->out->failed = true;
        return;
    }
    e->expire_ms = keep;
    out_int(c->out, v);
}

static void cmd_incr(kv_ctx *c, const kv_srv_args *a, size_t argc, const rg_view *argv) {
    (void)argc, (void)argv;
    incr_by(c, a->incr.key, 1);
}

static void cmd_incrby(kv_ctx *c, const kv_srv_args *a, size_t argc, const rg_view *argv) {
    (void)argc, (void)argv;
    incr_by(c, a->incrby.key, a->incrby.increment);
}

static void cmd_mget(kv_ctx *c, const kv_srv_args *a, size_t argc, const rg_view *argv) {
    (void)argc, (void)argv;
    char *at = kv_out_reserve(c->out, rg_out_array_size(a->mget.key_count));
    if (at) rg_out_array(at, a->mget.key_count);
    for (size_t i = 0; i < a->mget.key_count; i++) {
        out_value(c, kv_find(c->store, a->mget.key[i], c->now_ms));
    }
}

static void cmd_mset(kv_ctx *c, const kv_srv_args *a, size_t argc, const rg_view *argv) {
    (void)argc, (void)argv;
    for (size_t i = 0; i < a->mset.data_count; i++) {
        kv_entry *e = kv_put(c->store, a->mset.data[2 * i], a->mset.data[2 * i + 1], c->now_ms);
        if (!e) {
            c->out->failed = true;
            return;
        }
        e->expire_ms = 0;
    }
    OUT_LIT(c->out, RG_OUT_OK);
}

/* Whether EXPIRE's NX|XX|GT|LT (bits 1, 2, 4, 8) let the new expiry `when` replace the current
 * one (0: none). */
static bool expire_allowed(unsigned cond, int64_t current, int64_t when) {
    if ((cond & 1) && current != 0) return false;
    if ((cond & 2) && current == 0) return false;
    if ((cond & 4) && !(current != 0 && when > current)) return false;
    if ((cond & 8) && !(current == 0 || when < current)) return false;
    return true;
}

/* Redis' parseExtendedExpireArgumentsOrReply: the words, then their combination. */
static bool expire_flags(kv_ctx *c, const kv_srv_expire_args *x, unsigned *cond) {
    static const char *const names[] = {"nx", "xx", "gt", "lt"};
    *cond = 0;
    for (size_t i = 0; i < x->condition_count; i++) {
        const rg_view w = x->condition[i];
        size_t k = 0;
        while (k < 4 && !(w.len == 2 && rg_eq_lower(w.ptr, names[k], 2))) k++;
        if (k == 4) {
            rg_errbuf err;
            rg_err_text(&err, "ERR Unsupported option ");
            rg_err_append(&err, w.ptr, w.len);
            const rg_error e = rg_args_error(&err);
            kv_out_error(c->out, e.msg.ptr, e.msg.len);
            return false;
        }
        *cond |= 1u << k;
    }
    if ((*cond & 1) && (*cond & 14)) {
        static const char e[] =
            "ERR NX and XX, GT or LT options at the same time are not compatible";
        kv_out_error(c->out, e, sizeof e - 1);
        return false;
    }
    if ((*cond & 12) == 12) {
        static const char e[] = "ERR GT and LT options at the same time are not compatible";
        kv_out_error(c->out, e, sizeof e - 1);
        return false;
    }
    return true;
}

static void cmd_expire(kv_ctx *c, const kv_srv_args *a, size_t argc, const rg_view *argv) {
    (void)argc, (void)argv;
    const kv_srv_expire_args *x = &a->expire;
    unsigned cond;
    if (!expire_flags(c, x, &cond)) return;
    int64_t secs;
    if (!rg_parse_i64(x->seconds.ptr, x->seconds.len, &secs)) {
        OUT_LIT(c->out, RG_OUT_NOT_INT);
        return;
    }
    if (secs > INT64_MAX / 1000 || secs < INT64_MIN / 1000 || secs * 1000 > INT64_MAX - c->now_ms) {
        static const char bad[] = "ERR invalid expire time in 'expire' command";
        kv_out_error(c->out, bad, sizeof bad - 1);
        return;
    }
    const int64_t when = secs * 1000 + c->now_ms;
    kv_entry *e = kv_find(c->store, x->key, c->now_ms);
    if (!e || !expire_allowed(cond, e->expire_ms, when)) {
        OUT_LIT(c->out, RG_OUT_ZERO);
        return;
    }
    if (when <= c->now_ms) {
        kv_del(c->store, x->key, c->now_ms);
    } else {
        e->expire_ms = when;
    }
    OUT_LIT(c->out, RG_OUT_ONE);
}

static void cmd_ttl(kv_ctx *c, const kv_srv_args *a, size_t argc, const rg_view *argv) {
    (void)argc, (void)argv;
    const kv_entry *e = kv_find(c->store, a->ttl.key, c->now_ms);
    if (!e) {
        out_int(c->out, -2);
    } else if (!e->expire_ms) {
        out_int(c->out, -1);
    } else {
        const int64_t ms = e->expire_ms - c->now_ms;
        out_int(c->out, ((ms < 0 ? 0 : ms) + 500) / 1000);
    }
}

/* COMMAND without a subcommand lists command docs in Redis; this server answers an empty list. */
static void cmd_command(kv_ctx *c, const kv_srv_args *a, size_t argc, const rg_view *argv) {
    (void)a, (void)argc, (void)argv;
    OUT_LIT(c->out, RG_OUT_EMPTYARR);
}

static void cmd_command_count(kv_ctx *c, const kv_srv_args *a, size_t argc, const rg_view *argv) {
    (void)a, (void)argc, (void)argv;
    out_int(c->out, KV_SRV_NCMDS - 1);
}

static void cmd_quit(kv_ctx *c, const kv_srv_args *a, size_t argc, const rg_view *argv) {
    (void)a, (void)argc, (void)argv;
    OUT_LIT(c->out, RG_OUT_OK);
    *c->closing = true;
}

static handler *const handlers[KV_SRV_NCMDS] = {
    [KV_SRV_PING] = cmd_ping,     [KV_SRV_ECHO] = cmd_echo,
    [KV_SRV_HELLO] = cmd_hello,   [KV_SRV_GET] = cmd_get,
    [KV_SRV_SET] = cmd_set,       [KV_SRV_DEL] = cmd_del,
    [KV_SRV_EXISTS] = cmd_exists, [KV_SRV_INCR] = cmd_incr,
    [KV_SRV_INCRBY] = cmd_incrby, [KV_SRV_MGET] = cmd_mget,
    [KV_SRV_MSET] = cmd_mset,     [KV_SRV_EXPIRE] = cmd_expire,
    [KV_SRV_TTL] = cmd_ttl,       [KV_SRV_COMMAND] = cmd_command,
    [KV_SRV_QUIT] = cmd_quit,     [KV_SRV_COMMAND_COUNT] = cmd_command_count,
};

void kv_execute(kv_ctx *c, size_t argc, const rg_view *argv) {
    kv_srv_args args;
    rg_errbuf err;
    const kv_srv_cmd id = kv_srv_parse(argc, argv, &args, &err);
    if (id == KV_SRV_NONE) {
        const rg_error e = rg_args_error(&err);
        kv_out_error(c->out, e.msg.ptr, e.msg.len);
        return;
    }
    handlers[id](c, &args, argc, argv);
}
