/* respgen runtime: the cluster slot map and routing (see rg_cluster.h). */
#include "rg_cluster.h"

#include "rg_dec.h"
#include "rg_digits.h"

#include <stdio.h>
#include <string.h>

#define RG_NODE_PENDING ((uint16_t)0xFFFEu) /* SHARDS: a slot of the shard being read */

void rg_cluster_map_init(rg_cluster_map *m) {
    memset(m, 0, sizeof *m);
    memset(m->slot, 0xFF, sizeof m->slot);
}

static bool view_eq(rg_view a, const char *s) {
    return a.len == strlen(s) && memcmp(a.ptr, s, a.len) == 0;
}

uint16_t rg_cluster_map_node(rg_cluster_map *m, rg_view host, uint16_t port) {
    if (host.len >= RG_CLUSTER_HOST_MAX) return RG_NODE_NONE;
    for (size_t i = 0; i < m->nnodes; i++) {
        const rg_cluster_node *n = &m->node[i];
        if (n->port == port && strlen(n->host) == host.len &&
            memcmp(n->host, host.ptr, host.len) == 0)
            return (uint16_t)i;
    }
    if (m->nnodes >= RG_CLUSTER_MAX_NODES) return RG_NODE_NONE;
    rg_cluster_node *n = &m->node[m->nnodes];
    memset(n, 0, sizeof *n);
    if (host.len) memcpy(n->host, host.ptr, host.len);
    n->port = port;
    n->master = (uint16_t)m->nnodes;
    return (uint16_t)m->nnodes++;
}

/* ---- a cursor over one whole reply ---------------------------------------------------------- */

typedef struct cursor {
    rg_reader r;
    const char *buf;
    size_t len, pos;
    rg_event ev;
    rg_cluster_map *m;
    rg_view asked;
} cursor;

/* A reply that is not a map (RG_MISMATCH) or one too large for the node table (RG_FULL). */
static int fail_as(cursor *c, rg_status st, const char *why) {
    snprintf(c->m->msg, sizeof c->m->msg, "%s (at byte %zu)", why, c->pos);
    c->m->status = st;
    c->m->offset = c->pos;
    return -1;
}

static int fail(cursor *c, const char *why) {
    return fail_as(c, RG_MISMATCH, why);
}

/* The next event; attributes (RESP3 '|') are skipped whole. */
static bool adv(cursor *c) {
    for (;;) {
        if (rg_next(&c->r, c->buf, c->len, &c->pos, &c->ev) != RG_OK) return false;
        if (c->ev.kind != RG_EV_ATTR) return true;
        const uint32_t d = c->ev.depth;
        do {
            if (rg_next(&c->r, c->buf, c->len, &c->pos, &c->ev) != RG_OK) return false;
        } while (!(c->ev.kind == RG_EV_END && c->ev.depth == d));
    }
}

static bool is_agg(uint8_t k) {
    return k == RG_EV_ARRAY || k == RG_EV_MAP || k == RG_EV_SET || k == RG_EV_PUSH;
}

/* The current event begins a value: consume the rest of it. */
static bool skip_rest(cursor *c) {
    if (c->ev.kind == RG_EV_STR_BEGIN) {
        while (adv(c))
            if (c->ev.kind == RG_EV_STR_END) return true;
        return false;
    }
    if (!is_agg(c->ev.kind)) return true;
    const uint32_t d = c->ev.depth;
    while (adv(c))
        if (c->ev.kind == RG_EV_END && c->ev.depth == d) return true;
    return false;
}

/* Inside an aggregate opened at depth d: advances to its next element, false at its end. */
static bool next_in(cursor *c, uint32_t d, bool *ok) {
    if (!adv(c)) return *ok = false;
    if (c->ev.kind == RG_EV_END && c->ev.depth == d) return false;
    return true;
}

static bool is_str(const rg_event *ev) {
    return ev->kind == RG_EV_BULK || ev->kind == RG_EV_SIMPLE || ev->kind == RG_EV_VERBATIM;
}

/* An integer element (RESP3 sends them as integers; tolerate numeric strings). */
static bool as_int(const rg_event *ev, int64_t *v) {
    if (ev->kind == RG_EV_INT) {
        *v = ev->u.i;
        return true;
    }
    uint64_t x;
    if (!is_str(ev) || ev->str.len > 18) return false;
    if (!rg_digits_u64(ev->str.ptr, ev->str.len, INT64_MAX, false, &x)) return false;
    *v = (int64_t)x;
    return true;
}

/* Marks slots [a, b] in next[] as owner (or pending), refusing overlaps. */
static int set_range(cursor *c, int64_t a, int64_t b, uint16_t owner) {
    if (a < 0 || b >= RG_CLUSTER_SLOTS || a > b) return fail(c, "slot range out of bounds");
    for (int64_t s = a; s <= b; s++) {
        if (c->m->next[s] != RG_NODE_NONE) return fail(c, "slot served twice");
        c->m->next[s] = owner;
    }
    return 0;
}

static void begin_update(rg_cluster_map *m) {
    memset(m->next, 0xFF, sizeof m->next);
    for (size_t i = 0; i < RG_CLUSTER_MAX_NODES; i++) {
        m->next_role[i] = RG_NODE_GONE;
        m->next_healthy[i] = false;
        m->next_master[i] = (uint16_t)i;
    }
}

static void commit_update(rg_cluster_map *m) {
    memcpy(m->slot, m->next, sizeof m->slot);
    for (size_t i = 0; i < m->nnodes; i++) {
        m->node[i].role = m->next_role[i];
        m->node[i].healthy = m->next_healthy[i];
        m->node[i].master = m->next_master[i];
        m->node[i].slots = 0;
    }
    for (size_t s = 0; s < RG_CLUSTER_SLOTS; s++)
        if (m->slot[s] != RG_NODE_NONE) m->node[m->slot[s]].slots++;
    m->epoch++;
    m->msg[0] = '\0';
    m->status = RG_OK;
    m->offset = 0;
}

/* Empty and "?" endpoints mean the node that was asked. */
static rg_view endpoint(const cursor *c, rg_view host) {
    return host.len == 0 || view_eq(host, "?") ? c->asked : host;
}

/* ---- CLUSTER SHARDS ------------------------------------------------------------------------- */

typedef struct shard_node {
    rg_view ip, endpoint;
    int64_t port, tls_port;
    bool master, online, has_endpoint;
} shard_node;

/* One node: a map (RESP3) or a flat array of name, value pairs (RESP2). */
static int read_shard_node(cursor *c, shard_node *n) {
    *n = (shard_node){.port = -1, .tls_port = -1, .online = true};
    if (!is_agg(c->ev.kind)) return fail(c, "a shard node is not a map");
    const uint32_t d = c->ev.depth;
    bool ok = true;
    while (next_in(c, d, &ok)) {
        if (!is_str(&c->ev)) return fail(c, "a node field name is not a string");
        const rg_view name = c->ev.str;
        if (!adv(c)) return fail(c, "truncated node");
        if (view_eq(name, "port")) {
            if (!as_int(&c->ev, &n->port)) return fail(c, "node port is not a number");
        } else if (view_eq(name, "tls-port")) {
            if (!as_int(&c->ev, &n->tls_port)) return fail(c, "node tls-port is not a number");
        } else if (view_eq(name, "ip") && is_str(&c->ev)) {
            n->ip = c->ev.str;
        } else if (view_eq(name, "endpoint") && is_str(&c->ev)) {
            n->endpoint = c->ev.str;
            n->has_endpoint = true;
        } else if (view_eq(name, "role") && is_str(&c->ev)) {
            n->master = view_eq(c->ev.str, "master");
        } else if (view_eq(name, "health") && is_str(&c->ev)) {
            /* "loading" is also what a replica whose offset gossip has not told yet shows;
             * only "failed" keeps a node from being chosen (LOADING replies are retried). */
            n->online = !view_eq(c->ev.str, "failed");
        } else if (!skip_rest(c)) {
            return fail(c, "truncated node field");
        }
    }
    return ok ? 0 : fail(c, "truncated node");
}

/* The nodes of one shard; its master (the online one first) is *master. */
static int read_shard_nodes(cursor *c, uint16_t *master) {
    if (!is_agg(c->ev.kind)) return fail(c, "shard nodes are not an array");
    const uint32_t d = c->ev.depth;
    uint16_t idx[RG_CLUSTER_MAX_NODES];
    size_t k = 0;
    bool ok = true, have_online = false;
    *master = RG_NODE_NONE;
    while (next_in(c, d, &ok)) {
        shard_node n;
        if (read_shard_node(c, &n) != 0) return -1;
        const rg_view host = endpoint(c, n.has_endpoint ? n.endpoint : n.ip);
        if (c->m->tls && n.tls_port > 0) n.port = n.tls_port;
        if (n.port <= 0 || n.port > 65535) return fail(c, "node without a port");
        const uint16_t i = rg_cluster_map_node(c->m, host, (uint16_t)n.port);
        if (i == RG_NODE_NONE || k == RG_CLUSTER_MAX_NODES)
            return fail_as(c, RG_FULL, "too many nodes");
        idx[k++] = i;
        c->m->next_role[i] = n.master ? RG_NODE_MASTER : RG_NODE_REPLICA;
        c->m->next_healthy[i] = n.online;
        if (n.master && (*master == RG_NODE_NONE || (n.online && !have_online))) {
            *master = i;
            have_online = n.online;
        }
    }
    if (!ok) return fail(c, "truncated shard nodes");
    for (size_t j = 0; j < k && *master != RG_NODE_NONE; j++) c->m->next_master[idx[j]] = *master;
    return 0;
}

/* The "slots" array: start, end pairs (marked pending until the shard's master is known). */
static int read_shard_slots(cursor *c) {
    if (!is_agg(c->ev.kind)) return fail(c, "shard slots are not an array");
    const uint32_t d = c->ev.depth;
    bool ok = true;
    while (next_in(c, d, &ok)) {
        int64_t a, b;
        if (!as_int(&c->ev, &a) || !adv(c) || !as_int(&c->ev, &b))
            return fail(c, "slot range is not two numbers");
        if (set_range(c, a, b, RG_NODE_PENDING) != 0) return -1;
    }
    return ok ? 0 : fail(c, "truncated slots");
}

static int read_shard(cursor *c) {
    if (!is_agg(c->ev.kind)) return fail(c, "a shard is not a map");
    const uint32_t d = c->ev.depth;
    bool ok = true, slots = false;
    uint16_t master = RG_NODE_NONE;
    while (next_in(c, d, &ok)) {
        if (!is_str(&c->ev)) return fail(c, "a shard field name is not a string");
        const rg_view name = c->ev.str;
        if (!adv(c)) return fail(c, "truncated shard");
        int r = 0;
        if (view_eq(name, "slots")) {
            r = read_shard_slots(c);
            slots = true;
        } else if (view_eq(name, "nodes")) {
            r = read_shard_nodes(c, &master);
        } else if (!skip_rest(c)) {
            r = fail(c, "truncated shard field");
        }
        if (r != 0) return -1;
    }
    if (!ok) return fail(c, "truncated shard");
    if (!slots) return 0;
    /* A shard whose master is unknown leaves its slots uncovered. */
    const uint16_t owner = master;
    for (size_t s = 0; s < RG_CLUSTER_SLOTS; s++)
        if (c->m->next[s] == RG_NODE_PENDING) c->m->next[s] = owner;
    return 0;
}

static void cursor_init(cursor *c, rg_cluster_map *m, const char *reply, size_t len,
                        rg_view asked) {
    rg_reader_init(&c->r, NULL);
    c->buf = reply;
    c->len = len;
    c->pos = 0;
    c->m = m;
    c->asked = asked;
}

static int decode(rg_cluster_map *m, const char *reply, size_t len, rg_view asked,
                  int (*entry)(cursor *)) {
    cursor c;
    cursor_init(&c, m, reply, len, asked);
    begin_update(m);
    if (!adv(&c)) return fail(&c, "not a whole RESP value");
    if (c.ev.kind == RG_EV_ERROR) return fail(&c, "the server answered an error");
    if (!is_agg(c.ev.kind)) return fail(&c, "the reply is not an array");
    bool ok = true;
    while (next_in(&c, 0, &ok))
        if (entry(&c) != 0) return -1;
    if (!ok) return fail(&c, "truncated reply");
    if (c.pos != len) return fail(&c, "bytes after the reply");
    commit_update(m);
    return 0;
}

/* The map's one status: RG_OK, or why decode failed (its status set by fail_as). */
/* A failed decode takes back the nodes it added: else each malformed reply naming new nodes would
 * fill the table for good, and every refresh after it would fail RG_FULL. (The table only grows:
 * the entries past nnodes are as rg_cluster_map_init left them.) */
static rg_status decode_top(rg_cluster_map *m, const char *reply, size_t len, rg_view asked,
                            int (*entry)(cursor *)) {
    const size_t known = m->nnodes;
    if (decode(m, reply, len, asked, entry) == 0) return RG_OK;
    memset(&m->node[known], 0, (m->nnodes - known) * sizeof m->node[0]);
    m->nnodes = known;
    return m->status;
}

rg_status rg_cluster_map_from_shards(rg_cluster_map *m, const char *reply, size_t len,
                                     rg_view asked) {
    return decode_top(m, reply, len, asked, read_shard);
}

/* ---- CLUSTER SLOTS -------------------------------------------------------------------------- */

/* [host, port, id, {metadata}]: the node's index. */
static int read_slots_node(cursor *c, uint16_t *out) {
    if (!is_agg(c->ev.kind)) return fail(c, "a slots node is not an array");
    const uint32_t d = c->ev.depth;
    bool ok = true;
    rg_view host = {NULL, 0};
    int64_t port = -1;
    for (size_t i = 0; next_in(c, d, &ok); i++) {
        if (i == 0 && is_str(&c->ev)) {
            host = c->ev.str;
        } else if (i == 0 && c->ev.kind == RG_EV_NULL) {
            host = (rg_view){NULL, 0};
        } else if (i == 1) {
            if (!as_int(&c->ev, &port)) return fail(c, "slots node port is not a number");
        } else if (!skip_rest(c)) {
            return fail(c, "truncated slots node");
        }
    }
    if (!ok) return fail(c, "truncated slots node");
    if (port <= 0 || port > 65535) return fail(c, "slots node without a port");
    *out = rg_cluster_map_node(c->m, endpoint(c, host), (uint16_t)port);
    return *out == RG_NODE_NONE ? fail_as(c, RG_FULL, "too many nodes") : 0;
}

static int read_slots_entry(cursor *c) {
    if (!is_agg(c->ev.kind)) return fail(c, "a slots entry is not an array");
    const uint32_t d = c->ev.depth;
    int64_t a = -1, b = -1;
    uint16_t master = RG_NODE_NONE;
    bool ok = true;
    for (size_t i = 0; next_in(c, d, &ok); i++) {
        if (i < 2) {
            if (!as_int(&c->ev, i == 0 ? &a : &b)) return fail(c, "slot is not a number");
            continue;
        }
        uint16_t n = RG_NODE_NONE; /* set when it returns 0 (gcc -Os cannot tell) */
        if (read_slots_node(c, &n) != 0) return -1;
        if (i == 2) master = n;
        c->m->next_role[n] = i == 2 ? RG_NODE_MASTER : RG_NODE_REPLICA;
        c->m->next_healthy[n] = true;
        c->m->next_master[n] = master;
    }
    if (!ok) return fail(c, "truncated slots entry");
    if (master == RG_NODE_NONE) return fail(c, "slots entry without a master");
    return set_range(c, a, b, master);
}

rg_status rg_cluster_map_from_slots(rg_cluster_map *m, const char *reply, size_t len,
                                    rg_view asked) {
    return decode_top(m, reply, len, asked, read_slots_entry);
}

/* ---- updates and lookups -------------------------------------------------------------------- */

uint16_t rg_cluster_map_moved(rg_cluster_map *m, int slot, rg_view host, uint16_t port,
                              rg_view asked) {
    if (slot < 0 || slot >= RG_CLUSTER_SLOTS) return RG_NODE_NONE;
    const uint16_t n = rg_cluster_map_node(m, host.len ? host : asked, port);
    if (n == RG_NODE_NONE) return n;
    if (m->slot[slot] != n || m->node[n].role != RG_NODE_MASTER) m->epoch++;
    if (m->slot[slot] != RG_NODE_NONE) m->node[m->slot[slot]].slots--;
    m->node[n].slots++;
    m->slot[slot] = n;
    m->node[n].role = RG_NODE_MASTER;
    m->node[n].healthy = true;
    m->node[n].master = n;
    return n;
}

/* The pick-th modulo their number of slot's master's healthy replicas, and of the master too
 * when with_master (it counts last); the master when it has no replica. */
static uint16_t copy_of(const rg_cluster_map *m, int slot, uint32_t pick, bool with_master) {
    const uint16_t master = rg_cluster_map_owner(m, slot);
    if (master == RG_NODE_NONE) return master;
    size_t count = 0;
    for (size_t i = 0; i < m->nnodes; i++) {
        const rg_cluster_node *n = &m->node[i];
        count += n->role == RG_NODE_REPLICA && n->healthy && n->master == master;
    }
    if (count == 0) return master;
    size_t want = pick % (count + with_master);
    for (size_t i = 0; i < m->nnodes; i++) {
        const rg_cluster_node *n = &m->node[i];
        if (n->role == RG_NODE_REPLICA && n->healthy && n->master == master && want-- == 0)
            return (uint16_t)i;
    }
    return master;
}

uint16_t rg_cluster_map_replica(const rg_cluster_map *m, int slot, uint32_t pick) {
    return copy_of(m, slot, pick, false);
}

uint16_t rg_cluster_map_any_copy(const rg_cluster_map *m, int slot, uint32_t pick) {
    return copy_of(m, slot, pick, true);
}

size_t rg_cluster_map_covered(const rg_cluster_map *m) {
    size_t n = 0;
    for (size_t s = 0; s < RG_CLUSTER_SLOTS; s++) n += m->slot[s] != RG_NODE_NONE;
    return n;
}

rg_error rg_cluster_map_error(const rg_cluster_map *m) {
    if (m->status == RG_OK) return (rg_error){RG_OK, {NULL, 0}, 0};
    return (rg_error){m->status, {m->msg, strlen(m->msg)}, m->offset};
}

/* ---- routing -------------------------------------------------------------------------------- */

static rg_cmd_policy policy_of(const rg_cluster_commands *cmds, const rg_keys_entry *e) {
    if (!e || !cmds->policy) return (rg_cmd_policy){0, 0};
    return cmds->policy[e - cmds->table];
}

/* Keyless, or keys in several slots: the policy decides. */
static rg_route_kind by_policy(rg_cmd_policy p, bool cross, uint16_t any, rg_route *out) {
    out->response = p.response;
    if (cross)
        return out->kind =
                   p.request == RG_REQ_MULTI_SHARD ? RG_ROUTE_MULTI_SHARD : RG_ROUTE_CROSSSLOT;
    switch (p.request) {
    case RG_REQ_ALL_NODES: return out->kind = RG_ROUTE_ALL_NODES;
    case RG_REQ_ALL_SHARDS: return out->kind = RG_ROUTE_ALL_SHARDS;
    default: break;
    }
    out->node = any;
    return out->kind = any == RG_NODE_NONE ? RG_ROUTE_UNCOVERED : RG_ROUTE_NODE;
}

/* Does the (sorted) table hold subcommands of e ("NAME X" sorts right after "NAME")? */
static bool has_subcommands(const rg_cluster_commands *cmds, const rg_keys_entry *e) {
    const size_t len = strlen(e->name);
    const rg_keys_entry *n = e + 1;
    return n < cmds->table + cmds->count && strncmp(n->name, e->name, len) == 0 &&
           n->name[len] == ' ';
}

/* rg_keys_table_command's answer with one binary search for most calls: the one-word entry when
 * it has no subcommands, else the two-word lookup first as there. */
static const rg_keys_entry *command_of(const rg_cluster_commands *cmds, size_t argc,
                                       const rg_view *argv) {
    const rg_keys_entry *e = argc ? rg_keys_table_lookup(cmds->table, cmds->count, argv, 1) : NULL;
    if (e && !has_subcommands(cmds, e)) return e;
    return rg_keys_table_command(cmds->table, cmds->count, argc, argv);
}

/* ---- the command index ---------------------------------------------------------------------- */

/* An index slot's flag: the entry has subcommands (look at argv[1] too). */
enum { SUBS = 0x8000 };

static inline unsigned upper(unsigned char c) {
    return c >= 'a' && c <= 'z' ? c - ('a' - 'A') : c;
}

/* FNV-1a of the upper-cased bytes. */
static uint32_t name_hash(const char *p, size_t n) {
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ upper((unsigned char)p[i])) * 16777619u;
    return h;
}

/* Is name (upper case, NUL-terminated) the word w, ASCII-caselessly? */
static bool name_is(const char *name, rg_view w) {
    for (size_t i = 0; i < w.len; i++) {
        const unsigned char c = (unsigned char)name[i]; /* a NUL in w never passes the name's */
        if (c == '\0' || c != upper((unsigned char)w.ptr[i])) return false;
    }
    return name[w.len] == '\0';
}

rg_status rg_cluster_index_init(rg_cluster_index *ix, const rg_cluster_commands *cmds) {
    enum { MASK = RG_CLUSTER_INDEX_SLOTS - 1 };
    memset(ix, 0, sizeof *ix);
    ix->cmds = cmds;
    size_t used = 0;
    if (cmds->count >= SUBS) return RG_FULL;
    for (size_t i = 0; i < cmds->count; i++) {
        const char *name = cmds->table[i].name;
        if (strchr(name, ' ')) continue;
        if (++used > RG_CLUSTER_INDEX_SLOTS / 2) {
            memset(ix->slot, 0, sizeof ix->slot);
            return RG_FULL;
        }
        size_t at = name_hash(name, strlen(name)) & MASK;
        while (ix->slot[at]) at = (at + 1) & MASK;
        ix->slot[at] = (uint16_t)((i + 1) | (has_subcommands(cmds, &cmds->table[i]) ? SUBS : 0));
    }
    return RG_OK;
}

/* The one-word entry named w when it has no subcommands (the whole answer), else NULL. */
static const rg_keys_entry *index_find(const rg_cluster_index *ix, rg_view w) {
    enum { MASK = RG_CLUSTER_INDEX_SLOTS - 1 };
    for (size_t at = name_hash(w.ptr, w.len) & MASK; ix->slot[at]; at = (at + 1) & MASK) {
        const rg_keys_entry *e = &ix->cmds->table[(ix->slot[at] & ~SUBS) - 1];
        if (name_is(e->name, w)) return ix->slot[at] & SUBS ? NULL : e;
    }
    return NULL;
}

/* ---- routing, the rest -------------------------------------------------------------------- */

/* The call's slot: its keys', else its shard channels' (which a cluster routes like keys). */
static int slot_of_call(const rg_keys_entry *e, size_t argc, const rg_view *argv) {
    const int slot = rg_slot_of_argv(e->specs, e->count, argc, argv);
    return slot == RG_SLOT_NONE ? rg_channel_slot_of_argv(e->specs, e->count, argc, argv) : slot;
}

/* The route of a call whose command (out->cmd) and slot are known. */
static rg_route_kind by_slot(const rg_cluster_map *m, const rg_cluster_commands *cmds, int slot,
                             uint16_t any, rg_route *out) {
    out->slot = slot;
    if (slot >= 0) {
        out->node = rg_cluster_map_owner(m, slot);
        return out->kind = out->node == RG_NODE_NONE ? RG_ROUTE_UNCOVERED : RG_ROUTE_NODE;
    }
    return by_policy(policy_of(cmds, out->cmd), slot == RG_SLOT_CROSS, any, out);
}

static rg_route_kind route(const rg_cluster_map *m, const rg_cluster_commands *cmds,
                           const rg_cluster_index *ix, const char *req, size_t len, rg_view *argv,
                           size_t argv_cap, uint16_t any, rg_route *out) {
    *out = (rg_route){.kind = RG_ROUTE_INVALID, .slot = RG_SLOT_UNKNOWN, .node = RG_NODE_NONE};
    const size_t argc = rg_request_argv(req, len, argv, argv_cap);
    if (argc == 0) return RG_ROUTE_INVALID;
    const size_t seen = argc < argv_cap ? argc : argv_cap;
    /* One parse, one lookup: the slot from the entry's specs directly. A one-word name the index
     * knows and that has no subcommands is the answer; anything else goes the long way. */
    const rg_keys_entry *e = ix && seen ? index_find(ix, argv[0]) : NULL;
    out->cmd = e ? e : command_of(cmds, seen, argv);
    const int slot =
        argc > argv_cap || !out->cmd ? RG_SLOT_UNKNOWN : slot_of_call(out->cmd, argc, argv);
    return by_slot(m, cmds, slot, any, out);
}

rg_route_kind rg_cluster_route_known(const rg_cluster_map *m, const rg_cluster_commands *cmds,
                                     const rg_keys_entry *e, int slot, const char *req, size_t len,
                                     rg_view *argv, size_t argv_cap, uint16_t any, rg_route *out) {
    *out = (rg_route){.kind = RG_ROUTE_INVALID, .slot = RG_SLOT_UNKNOWN, .node = RG_NODE_NONE};
    out->cmd = e;
    if (slot == RG_SLOT_UNKNOWN && e->count > 0) {
        const size_t argc = rg_request_argv(req, len, argv, argv_cap);
        if (argc == 0) return RG_ROUTE_INVALID;
        if (argc <= argv_cap) slot = slot_of_call(e, argc, argv);
    } else if (slot == RG_SLOT_UNKNOWN) {
        slot = RG_SLOT_NONE; /* no key specs: no keys */
    }
    return by_slot(m, cmds, slot, any, out);
}

rg_route_kind rg_cluster_route(const rg_cluster_map *m, const rg_cluster_commands *cmds,
                               const char *req, size_t len, rg_view *argv, size_t argv_cap,
                               uint16_t any, rg_route *out) {
    return route(m, cmds, NULL, req, len, argv, argv_cap, any, out);
}

rg_route_kind rg_cluster_route_indexed(const rg_cluster_map *m, const rg_cluster_index *ix,
                                       const char *req, size_t len, rg_view *argv, size_t argv_cap,
                                       uint16_t any, rg_route *out) {
    return route(m, ix->cmds, ix, req, len, argv, argv_cap, any, out);
}

const char *rg_route_kind_name(rg_route_kind k) {
    static const char *const names[] = {
        [RG_ROUTE_NODE] = "node",
        [RG_ROUTE_ALL_NODES] = "all-nodes",
        [RG_ROUTE_ALL_SHARDS] = "all-shards",
        [RG_ROUTE_MULTI_SHARD] = "multi-shard",
        [RG_ROUTE_CROSSSLOT] = "crossslot",
        [RG_ROUTE_UNCOVERED] = "uncovered",
        [RG_ROUTE_INVALID] = "invalid",
    };
    return (size_t)k < sizeof names / sizeof names[0] ? names[k] : "?";
}
