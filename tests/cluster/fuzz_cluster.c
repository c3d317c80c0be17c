/* libFuzzer target for what a cluster node tells the client (runtime/rg_cluster.h): the slot
 * map's CLUSTER SHARDS and CLUSTER SLOTS parsers and the redirect errors (rg_redirect_parse,
 * rg_cluster_map_moved). A node's replies are untrusted.
 *
 * The input's first byte picks what the rest is:
 * - 0: a CLUSTER SHARDS reply; 1: a CLUSTER SLOTS reply (bit 2: with tls set, so the tls-port
 *   fields count). Each is decoded into a map that already holds a good three-shard reply: a
 *   failure must leave its public part as it was, with the error's offset inside the input.
 * - 2: an error text: parsed as a redirect, and a MOVED or ASK applied to the map.
 * - 3: the same text decoded as a CLUSTER SHARDS reply, then parsed as a redirect.
 * Every parse runs on a heap copy of exactly the input's bytes (ASan sees a read past them), and
 * the map must stay sane: every slot's owner a node of the table or none, every host
 * NUL-terminated, roles and masters in range, lookups in range. ASan and UBSan catch the rest.
 */
#include "rg_cluster.h"
#include "rg_conn.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Everything of the map that a caller may read (the fields before the private ones). */
#define PUBLIC_SIZE offsetof(rg_cluster_map, tls)

static void check_node(const rg_cluster_map *m, const rg_cluster_node *n) {
    if (!memchr(n->host, '\0', sizeof n->host) || n->role > RG_NODE_REPLICA) abort();
    if (n->role == RG_NODE_REPLICA && n->master >= m->nnodes) abort();
    if (n->slots > RG_CLUSTER_SLOTS) abort();
}

static void check(const rg_cluster_map *m) {
    if (m->nnodes > RG_CLUSTER_MAX_NODES) abort();
    for (size_t i = 0; i < m->nnodes; i++) check_node(m, &m->node[i]);
    size_t covered = 0;
    for (int s = 0; s < RG_CLUSTER_SLOTS; s++) {
        const uint16_t o = rg_cluster_map_owner(m, s);
        if (o != RG_NODE_NONE && o >= m->nnodes) abort();
        covered += o != RG_NODE_NONE;
    }
    if (rg_cluster_map_covered(m) != covered) abort();
    for (int s = 0; s < RG_CLUSTER_SLOTS; s += 997)
        for (uint32_t pick = 0; pick < 3; pick++) {
            const uint16_t r = rg_cluster_map_replica(m, s, pick);
            const uint16_t a = rg_cluster_map_any_copy(m, s, pick);
            if ((r != RG_NODE_NONE && r >= m->nnodes) || (a != RG_NODE_NONE && a >= m->nnodes))
                abort();
        }
    const rg_error e = rg_cluster_map_error(m);
    if (e.status != RG_OK && (!e.msg.ptr || strlen(e.msg.ptr) != e.msg.len)) abort();
}

/* A good reply to start from: three masters with a replica each, over both port kinds. */
static size_t three_shards(char *out, size_t cap) {
    size_t n = (size_t)snprintf(out, cap, "*3\r\n");
    static const int ranges[3][2] = {{0, 5460}, {5461, 10922}, {10923, 16383}};
    for (int i = 0; i < 3; i++) {
        n += (size_t)snprintf(out + n, cap - n,
                              "*4\r\n$5\r\nslots\r\n*2\r\n:%d\r\n:%d\r\n$5\r\nnodes\r\n*2\r\n",
                              ranges[i][0], ranges[i][1]);
        for (int r = 0; r < 2; r++)
            n += (size_t)snprintf(
                out + n, cap - n,
                "*10\r\n$4\r\nport\r\n:%d\r\n$8\r\ntls-port\r\n:%d\r\n$2\r\nip\r\n"
                "$9\r\n127.0.0.1\r\n$4\r\nrole\r\n$%d\r\n%s\r\n$6\r\nhealth\r\n"
                "$6\r\nonline\r\n",
                7000 + i + 3 * r, 8000 + i + 3 * r, r ? 7 : 6, r ? "replica" : "master");
    }
    return n;
}

static void decode(rg_cluster_map *m, bool shards, const char *buf, size_t len) {
    static const rg_view asked = {"10.0.0.9", 8};
    rg_cluster_map before;
    memcpy(&before, m, sizeof before);
    const rg_status st = shards ? rg_cluster_map_from_shards(m, buf, len, asked)
                                : rg_cluster_map_from_slots(m, buf, len, asked);
    const rg_error e = rg_cluster_map_error(m);
    if (e.status != st) abort();
    if (st != RG_OK) {
        if (st != RG_MISMATCH && st != RG_FULL) abort();
        if (memcmp(&before, m, PUBLIC_SIZE) != 0) abort(); /* the map unchanged */
        if (e.offset > len) abort();
    }
    check(m);
}

static void redirect(rg_cluster_map *m, const char *buf, size_t len) {
    rg_redirect r;
    const rg_redirect_kind k = rg_redirect_parse((rg_view){buf, len}, &r);
    if (k != r.kind) abort();
    if (k == RG_REDIRECT_MOVED || k == RG_REDIRECT_ASK) {
        if (r.slot < 0 || r.slot >= RG_CLUSTER_SLOTS) abort();
        if (r.host.len && (r.host.ptr < buf || r.host.ptr + r.host.len > buf + len)) abort();
        if (k == RG_REDIRECT_MOVED) {
            const uint16_t i = rg_cluster_map_moved(m, r.slot, r.host, r.port, RG_LIT("10.0.0.9"));
            if (i != RG_NODE_NONE && rg_cluster_map_owner(m, r.slot) != i) abort();
        } else {
            (void)rg_cluster_map_node(m, r.host, r.port);
        }
    } else if (r.slot != -1) {
        abort();
    }
    check(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    /* the map each input starts from, made once per tls setting */
    static rg_cluster_map start[2], m;
    static bool made[2];
    const int tls = (data[0] & 4) != 0;
    if (!made[tls]) {
        static char good[4096];
        rg_cluster_map_init(&start[tls]);
        start[tls].tls = tls;
        const size_t n = three_shards(good, sizeof good);
        if (rg_cluster_map_from_shards(&start[tls], good, n, RG_LIT("127.0.0.1")) != RG_OK ||
            rg_cluster_map_covered(&start[tls]) != RG_CLUSTER_SLOTS)
            abort();
        made[tls] = true;
    }
    memcpy(&m, &start[tls], sizeof m);
    const size_t len = size - 1;
    char *buf = malloc(len ? len : 1);
    if (!buf) return 0;
    if (len) memcpy(buf, data + 1, len);
    switch (data[0] & 3) {
    case 0: decode(&m, true, buf, len); break;
    case 1: decode(&m, false, buf, len); break;
    case 2: redirect(&m, buf, len); break;
    default:
        decode(&m, true, buf, len);
        redirect(&m, buf, len);
        break;
    }
    free(buf);
    return 0;
}
