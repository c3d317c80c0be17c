/* Test support: a real local Redis Cluster of six redis-server processes (three masters, one
 * replica each) on free loopback ports, joined by `redis-cli --cluster create`.
 *
 * Each node is a test_redis (test_redis.h: --save '' --appendonly no, its own temporary
 * directory) started with --cluster-enabled yes, a cluster config file in that directory, a free
 * cluster bus port (--cluster-port) and a short node timeout so failovers take about two seconds.
 * test_cluster_stop stops every node and removes every directory; it also runs from atexit and
 * from a fatal signal (SIGSEGV, SIGABRT, SIGTERM, SIGINT), so a failing or crashing test leaves
 * nothing running. Ownership: the test_cluster is caller-owned and must stay alive (and at the
 * same address) until test_cluster_stop, as the signal handler reads it.
 */
#ifndef RG_TEST_CLUSTER_H
#define RG_TEST_CLUSTER_H

#include "test_redis.h"
#include "test_tls.h"

#include <stdbool.h>

/* Six nodes at the start; room for two more (test_cluster_add_master). */
enum { TEST_CLUSTER_NODES = 6, TEST_CLUSTER_MAX_NODES = 8, TEST_CLUSTER_NODE_TIMEOUT_MS = 1000 };

typedef struct test_cluster {
    test_redis node[TEST_CLUSTER_MAX_NODES];
    int bus_port[TEST_CLUSTER_MAX_NODES];
    int tls_port[TEST_CLUSTER_MAX_NODES]; /* a TLS cluster's (0: none) */
    test_certs *certs;                    /* a TLS cluster's certificates (caller-owned) */
    int n;                                /* nodes started */
} test_cluster;

/* Starts six nodes, creates the cluster with one replica per master and waits until every node
 * reports cluster_state:ok, knows all six nodes and every replica's link to its master is up.
 * Returns 0, or -1 with a reason on stderr (nothing left running). */
int test_cluster_start(test_cluster *c);

/* test_cluster_start for a TLS cluster: each node also serves TLS on tls_port[i] with certs'
 * server.crt, requires client certificates signed by its ca.crt (mutual TLS), and speaks TLS on
 * the cluster bus and for replication (--tls-cluster yes --tls-replication yes). The plain ports
 * stay open for the test support's own commands. certs must outlive the cluster. */
int test_cluster_start_tls(test_cluster *c, test_certs *certs);

/* Kills node i if it runs (SIGKILL) and starts it again on its ports, directory (its
 * nodes.conf: it rejoins as what it was) and arguments, waiting until it answers PING. Returns 0
 * or -1. */
int test_cluster_restart(test_cluster *c, int i);

/* Starts one more node, cluster-enabled and alone: no other node knows it until the caller joins
 * it (CLUSTER MEET). Returns its index, or -1 (no room, or it did not start). */
int test_cluster_start_node(test_cluster *c);

/* Starts one more node, an empty master, and joins it (`redis-cli --cluster add-node`), waiting
 * until every running node knows it. Returns its index, or -1 (no room, or it did not join). */
int test_cluster_add_master(test_cluster *c);

/* Takes node i out (`redis-cli --cluster del-node`: the others forget it and it shuts down); a
 * master must serve no slot by then. Returns 0 or -1. */
int test_cluster_del_node(test_cluster *c, int i);

/* Stops every node still running and removes their directories. Idempotent. */
void test_cluster_stop(test_cluster *c);

/* Waits until every running node (pid > 0) reports cluster_state:ok and agrees on who serves
 * all 16384 slots (CLUSTER SHARDS masters seen alike). Returns 0, or -1 after timeout_ms (0:
 * one look, no wait). */
int test_cluster_wait_ok(const test_cluster *c, int timeout_ms);

/* Every running node knows all the running nodes (cluster_known_nodes) and every replica's link
 * to its master is up: one look. */
bool test_cluster_linked(const test_cluster *c);

/* One command on a node, its reply rendered as test_conn_reply does. Returns 0 or -1. */
int test_cluster_command(int port, char *out, size_t cap, size_t argc, const char *const *argv);

/* The value of "field:" in an INFO-style text reply of cmd (e.g. CLUSTER INFO, INFO
 * replication) on port, copied into out. Returns 0, or -1 when absent. */
int test_cluster_info_field(int port, const char *cmd_a, const char *cmd_b, const char *field,
                            char *out, size_t cap);

/* The index of the node on port, or -1. */
int test_cluster_index(const test_cluster *c, int port);

/* The port of the master serving slot now, as that node itself says (CLUSTER SHARDS on a
 * running node), or -1. */
int test_cluster_slot_owner(const test_cluster *c, int slot);

/* owner[16384]: the port of the master serving each slot (0: none), as a running node says.
 * Returns 0 or -1. */
int test_cluster_owners(const test_cluster *c, int *owner);

/* Is the node at index a master (ROLE)? */
bool test_cluster_is_master(const test_cluster *c, int index);

#endif
