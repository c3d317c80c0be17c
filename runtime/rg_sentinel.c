/* respgen runtime: Redis Sentinel discovery, sans I/O (see rg_sentinel.h). */
#include "rg_sentinel.h"

#include <stdio.h>
#include <string.h>

static void say(rg_sentinel *s, const char *what, rg_view detail) {
    const int shown = detail.len > 80 ? 80 : (int)detail.len;
    snprintf(s->msg, sizeof s->msg, "%s%s%.*s", what, shown ? ": " : "", shown,
             detail.ptr ? detail.ptr : "");
}

/* A decimal port 1..65535, digits only. */
static bool port_of(rg_view v, uint16_t *port) {
    uint32_t n = 0;
    if (v.len == 0 || v.len > 5) return false;
    for (size_t k = 0; k < v.len; k++) {
        if (v.ptr[k] < '0' || v.ptr[k] > '9') return false;
        n = n * 10 + (uint32_t)(v.ptr[k] - '0');
    }
    if (n == 0 || n > 65535) return false;
    *port = (uint16_t)n;
    return true;
}

/* A host a resolver may be handed: printable bytes, no NUL, not too long. */
static bool host_ok(rg_view v) {
    if (v.len == 0 || v.len >= RG_SENTINEL_HOST_MAX) return false;
    for (size_t k = 0; k < v.len; k++)
        if ((unsigned char)v.ptr[k] <= ' ' || (unsigned char)v.ptr[k] >= 0x7f) return false;
    return true;
}

static bool addr_set(rg_sentinel_addr *a, rg_view host, rg_view port) {
    uint16_t p;
    if (!host_ok(host) || !port_of(port, &p)) return false;
    memcpy(a->host, host.ptr, host.len);
    a->host[host.len] = '\0';
    a->port = p;
    return true;
}

static bool addr_eq(const rg_sentinel_addr *a, const rg_sentinel_addr *b) {
    return a->port == b->port && strcmp(a->host, b->host) == 0;
}

rg_status rg_sentinel_init(rg_sentinel *s, const rg_sentinel_config *cfg) {
    memset(s, 0, sizeof *s);
    s->source = -1;
    if (!cfg->master_name.len || cfg->master_name.len >= sizeof s->name) {
        say(s, "sentinel: the master name is empty or too long", (rg_view){NULL, 0});
        return RG_INVALID;
    }
    if (!cfg->nsentinels || cfg->nsentinels > RG_SENTINEL_MAX || !cfg->sentinels) {
        say(s, "sentinel: give 1 to RG_SENTINEL_MAX sentinels", (rg_view){NULL, 0});
        return RG_INVALID;
    }
    memcpy(s->name, cfg->master_name.ptr, cfg->master_name.len);
    s->name_len = cfg->master_name.len;
    for (size_t i = 0; i < cfg->nsentinels; i++) {
        const rg_sentinel_addr *a = &cfg->sentinels[i];
        const char *nul = memchr(a->host, '\0', sizeof a->host);
        if (!nul || !host_ok((rg_view){a->host, (size_t)(nul - a->host)}) || a->port == 0) {
            say(s, "sentinel: a sentinel's address is not one", (rg_view){NULL, 0});
            return RG_INVALID;
        }
        s->sentinels[i] = *a;
        s->order[i] = (uint8_t)i;
    }
    s->n = cfg->nsentinels;
    s->replicas = cfg->replicas;
    s->replicas_cap = cfg->replicas ? cfg->replicas_cap : 0;
    return RG_OK;
}

/* ---- the asking order ------------------------------------------------------------------------ */

static size_t position(const rg_sentinel *s, int i) {
    size_t k = 0;
    while (k < s->n && s->order[k] != i) k++;
    return k;
}

static void to_front(rg_sentinel *s, int i) {
    size_t k = position(s, i);
    if (k == s->n) return;
    for (; k > 0; k--) s->order[k] = s->order[k - 1];
    s->order[0] = (uint8_t)i;
}

static void to_back(rg_sentinel *s, int i) {
    size_t k = position(s, i);
    if (k == s->n) return;
    for (; k + 1 < s->n; k++) s->order[k] = s->order[k + 1];
    s->order[s->n - 1] = (uint8_t)i;
}

void rg_sentinel_begin(rg_sentinel *s) {
    s->asked = 0;
    /* The last answer never led to a master: that sentinel lied or lags; others first. */
    if (s->known && !s->confirmed && s->source >= 0) to_back(s, s->source);
    s->source = -1;
}

int rg_sentinel_next(rg_sentinel *s) {
    for (size_t k = 0; k < s->n; k++) {
        const int i = s->order[k];
        if (s->asked & (1u << i)) continue;
        s->asked |= 1u << i;
        return i;
    }
    return -1;
}

int rg_sentinel_first(const rg_sentinel *s) {
    return s->order[0];
}

const rg_sentinel_addr *rg_sentinel_at(const rg_sentinel *s, int i) {
    return i >= 0 && (size_t)i < s->n ? &s->sentinels[i] : NULL;
}

void rg_sentinel_failed(rg_sentinel *s, int i) {
    to_back(s, i);
}

void rg_sentinel_confirmed(rg_sentinel *s) {
    s->confirmed = s->known;
}

const rg_sentinel_addr *rg_sentinel_master(const rg_sentinel *s) {
    return s->known ? &s->master : NULL;
}

const rg_sentinel_addr *rg_sentinel_replicas(const rg_sentinel *s, size_t *n) {
    *n = s->nreplicas;
    return s->replicas;
}

/* ---- requests -------------------------------------------------------------------------------- */

size_t rg_sentinel_master_argv(const rg_sentinel *s, rg_view *argv) {
    argv[0] = RG_LIT("SENTINEL");
    argv[1] = RG_LIT("GET-MASTER-ADDR-BY-NAME");
    argv[2] = (rg_view){s->name, s->name_len};
    return 3;
}

size_t rg_sentinel_replicas_argv(const rg_sentinel *s, rg_view *argv) {
    argv[0] = RG_LIT("SENTINEL");
    argv[1] = RG_LIT("REPLICAS");
    argv[2] = (rg_view){s->name, s->name_len};
    return 3;
}

size_t rg_sentinel_subscribe_argv(rg_view *argv) {
    argv[0] = RG_LIT("SUBSCRIBE");
    argv[1] = RG_LIT("+switch-master");
    return 2;
}

/* ---- replies --------------------------------------------------------------------------------- */

/* A reader for a reply from a sentinel: shallow and small, whatever it sends. */
static void reader_for(rg_reader *r, uint32_t depth, uint64_t elements) {
    rg_limits l = rg_limits_default();
    l.max_depth = depth;
    l.max_elements = elements;
    l.max_bulk = 4096;
    l.max_line = 4096;
    rg_reader_init(r, &l);
}

static bool is_text(const rg_event *ev) {
    return ev->kind == RG_EV_BULK || ev->kind == RG_EV_SIMPLE || ev->kind == RG_EV_VERBATIM;
}

static rg_status bad(rg_sentinel *s, rg_status st, const char *what, rg_view detail) {
    say(s, what, detail);
    return st;
}

/* The first event of a reply: RG_OK with an aggregate or text in *ev, or the reply's status. */
static rg_status first_event(rg_sentinel *s, rg_reader *r, rg_view raw, size_t *pos, rg_event *ev) {
    if (!raw.ptr || rg_next(r, raw.ptr, raw.len, pos, ev) != RG_OK)
        return bad(s, RG_MISMATCH, "sentinel: malformed reply", (rg_view){NULL, 0});
    if (ev->kind == RG_EV_ERROR || ev->kind == RG_EV_BLOBERR)
        return bad(s, RG_SERVER_ERROR, "sentinel: error", ev->str);
    return RG_OK;
}

/* GET-MASTER-ADDR-BY-NAME: [host, port], or null. */
static rg_status parse_master(rg_sentinel *s, rg_view raw, rg_sentinel_addr *out) {
    rg_reader r;
    rg_event ev, host, port;
    size_t pos = 0;
    reader_for(&r, 2, 8);
    rg_status st = first_event(s, &r, raw, &pos, &ev);
    if (st != RG_OK) return st;
    if (ev.kind == RG_EV_NULL)
        return bad(s, RG_CLOSED, "sentinel: the master name is unknown", (rg_view){NULL, 0});
    if (ev.kind != RG_EV_ARRAY || ev.u.i != 2 ||
        rg_next(&r, raw.ptr, raw.len, &pos, &host) != RG_OK ||
        rg_next(&r, raw.ptr, raw.len, &pos, &port) != RG_OK || !is_text(&host) || !is_text(&port) ||
        !addr_set(out, host.str, port.str))
        return bad(s, RG_MISMATCH, "sentinel: not an address", (rg_view){NULL, 0});
    return RG_OK;
}

rg_status rg_sentinel_master_reply(rg_sentinel *s, int i, rg_view raw) {
    rg_sentinel_addr a;
    const rg_status st = parse_master(s, raw, &a);
    if (st != RG_OK) {
        to_back(s, i);
        return st;
    }
    to_front(s, i);
    if (!s->known || !addr_eq(&a, &s->master)) s->confirmed = false;
    s->master = a;
    s->known = true;
    s->source = i;
    s->msg[0] = '\0';
    return RG_OK;
}

/* One replica's fields, as views into the reply. */
typedef struct replica_fields {
    rg_view ip, port, flags, link;
} replica_fields;

/* Is word one of the comma-separated flags? */
static bool has_flag(rg_view flags, const char *word) {
    const size_t n = strlen(word);
    for (size_t at = 0; at < flags.len;) {
        size_t end = at;
        while (end < flags.len && flags.ptr[end] != ',') end++;
        if (end - at == n && memcmp(flags.ptr + at, word, n) == 0) return true;
        at = end + 1;
    }
    return false;
}

static bool healthy(const replica_fields *f) {
    static const char *const down[] = {"s_down", "o_down", "disconnected"};
    for (size_t k = 0; k < sizeof down / sizeof down[0]; k++)
        if (has_flag(f->flags, down[k])) return false;
    return !f->link.ptr || rg_view_eq(f->link, RG_LIT("ok"));
}

/* The field a key names (NULL: one not kept). */
static rg_view *field_of(replica_fields *f, rg_view key) {
    static const struct {
        const char *key;
        size_t off;
    } keys[] = {{"ip", offsetof(replica_fields, ip)},
                {"port", offsetof(replica_fields, port)},
                {"flags", offsetof(replica_fields, flags)},
                {"master-link-status", offsetof(replica_fields, link)}};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        if (rg_view_eq(key, rg_cstr(keys[k].key))) return (rg_view *)((char *)f + keys[k].off);
    return NULL;
}

static void keep_replica(rg_sentinel *s, const replica_fields *f) {
    if (s->nreplicas == s->replicas_cap || !healthy(f)) return;
    if (addr_set(&s->replicas[s->nreplicas], f->ip, f->port)) s->nreplicas++;
}

/* The records of SENTINEL REPLICAS after its header: each an array or map of text pairs. */
static rg_status parse_records(rg_sentinel *s, rg_reader *r, rg_view raw, size_t pos) {
    replica_fields f;
    rg_view *value = NULL;
    bool key_turn = true;
    rg_event ev;
    do {
        if (rg_next(r, raw.ptr, raw.len, &pos, &ev) != RG_OK)
            return bad(s, RG_MISMATCH, "sentinel: malformed replica list", (rg_view){NULL, 0});
        if (ev.depth == 1 && (ev.kind == RG_EV_ARRAY || ev.kind == RG_EV_MAP)) {
            memset(&f, 0, sizeof f);
            key_turn = true;
        } else if (ev.depth == 1 && ev.kind == RG_EV_END) {
            keep_replica(s, &f);
        } else if (ev.depth == 2 && key_turn) {
            value = is_text(&ev) ? field_of(&f, ev.str) : NULL;
            key_turn = false;
        } else if (ev.depth == 2) {
            if (value && is_text(&ev)) *value = ev.str;
            key_turn = true;
        } else if (ev.kind != RG_EV_END) {
            return bad(s, RG_MISMATCH, "sentinel: not a replica list", (rg_view){NULL, 0});
        }
    } while (!ev.complete);
    return RG_OK;
}

rg_status rg_sentinel_replicas_reply(rg_sentinel *s, rg_view raw) {
    rg_reader r;
    rg_event ev;
    size_t pos = 0;
    s->nreplicas = 0;
    reader_for(&r, 3, 4096);
    rg_status st = first_event(s, &r, raw, &pos, &ev);
    if (st != RG_OK) return st;
    if (ev.kind != RG_EV_ARRAY && ev.kind != RG_EV_SET)
        return bad(s, RG_MISMATCH, "sentinel: not a replica list", (rg_view){NULL, 0});
    if (ev.complete) return RG_OK; /* none */
    st = parse_records(s, &r, raw, pos);
    if (st != RG_OK) s->nreplicas = 0;
    return st;
}

/* ---- +switch-master -------------------------------------------------------------------------- */

/* Splits text at single spaces into at most max words; the count, or max + 1 when more. */
static size_t split_words(rg_view text, rg_view *words, size_t max) {
    size_t n = 0;
    for (size_t at = 0; at <= text.len;) {
        size_t end = at;
        while (end < text.len && text.ptr[end] != ' ') end++;
        if (n == max) return max + 1;
        words[n++] = (rg_view){text.ptr + at, end - at};
        at = end + 1;
    }
    return n;
}

rg_sentinel_news rg_sentinel_push(rg_sentinel *s, const rg_push *p) {
    rg_view w[5];
    rg_sentinel_addr a;
    if ((p->kind != RG_PUSH_MESSAGE && p->kind != RG_PUSH_PMESSAGE) ||
        !rg_view_eq(p->channel, RG_LIT("+switch-master")) || !p->payload.ptr ||
        split_words(p->payload, w, 5) != 5 || !rg_view_eq(w[0], (rg_view){s->name, s->name_len}) ||
        !addr_set(&a, w[3], w[4]))
        return RG_SENTINEL_NOTHING;
    if (s->known && addr_eq(&a, &s->master)) return RG_SENTINEL_NOTHING;
    s->master = a;
    s->known = true;
    s->confirmed = false;
    s->source = -1;
    s->switches++;
    return RG_SENTINEL_SWITCHED;
}
