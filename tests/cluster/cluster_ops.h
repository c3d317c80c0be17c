/* Helpers of the cluster integration tests that act on the test's own cluster
 * (tests/support/test_cluster.h) as an operator would: node ids, masters and their replicas,
 * DBSIZE of the masters, and `redis-cli --cluster reshard` in the background. Include it after
 * cmocka.h. */
#ifndef RG_TEST_CLUSTER_OPS_H
#define RG_TEST_CLUSTER_OPS_H

#include "test_cluster.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static inline void cl_node_id(int port, char *id, size_t cap) {
    const char *argv[] = {"CLUSTER", "MYID"};
    assert_int_equal(test_cluster_command(port, id, cap, 2, argv), 0);
}

/* The port of the nth running master on record, or -1. */
static inline int cl_master_port(const test_cluster *c, int nth) {
    for (int i = 0, seen = 0; i < c->n; i++)
        if (c->node[i].pid > 0 && test_cluster_is_master(c, i) && seen++ == nth)
            return c->node[i].port;
    return -1;
}

/* The index of a running replica of the master on port, or -1. */
static inline int cl_replica_of(const test_cluster *c, int port) {
    char want[64], id[64], master[64];
    cl_node_id(port, want, sizeof want);
    for (int i = 0; i < c->n; i++) {
        if (c->node[i].pid <= 0 || test_cluster_is_master(c, i)) continue;
        cl_node_id(c->node[i].port, id, sizeof id);
        /* CLUSTER NODES' "myself" line names the master in its fourth field. */
        char text[8192];
        const char *argv[] = {"CLUSTER", "NODES"};
        assert_int_equal(test_cluster_command(c->node[i].port, text, sizeof text, 2, argv), 0);
        const char *me = strstr(text, id);
        if (me && sscanf(me, "%*s %*s %*s %63s", master) == 1 && strcmp(master, want) == 0)
            return i;
    }
    return -1;
}

/* The first master that has a running replica: its port in *port, the replica's index
 * returned (-1: no master has one). */
static inline int cl_master_with_replica(const test_cluster *c, int *port) {
    for (int nth = 0; nth < 3; nth++) {
        int replica;
        if ((*port = cl_master_port(c, nth)) > 0 && (replica = cl_replica_of(c, *port)) >= 0)
            return replica;
    }
    return -1;
}

/* Starts node i again (a replica: its nodes.conf says so) and waits until it is in sync with its
 * master (else it could not take over from it). */
static inline void cl_restart_in_sync(test_cluster *c, int i) {
    assert_int_equal(test_cluster_restart(c, i), 0);
    char link[16] = "";
    for (int t = 0; t < 200 && strcmp(link, "up") != 0; t++) {
        usleep(50000);
        if (test_cluster_info_field(c->node[i].port, "INFO", "replication", "master_link_status",
                                    link, sizeof link) != 0)
            link[0] = '\0';
    }
    assert_string_equal(link, "up");
}

/* How many slots the master on port serves, as a running node says (-1: none answered). */
static inline int cl_slots_served(const test_cluster *c, int port) {
    static int owner[16384];
    if (test_cluster_owners(c, owner) != 0) return -1;
    int served = 0;
    for (int s = 0; s < 16384; s++) served += owner[s] == port;
    return served;
}

/* Node i (started alone, test_cluster_start_node) meets the first other running node, as
 * `redis-cli --cluster add-node` has it do: gossip then tells every node of it. */
static inline void cl_meet(const test_cluster *c, int i) {
    int peer = 0;
    while (peer < c->n && (peer == i || c->node[peer].pid <= 0)) peer++;
    assert_true(peer < c->n);
    char port[16], bus[16], out[64];
    snprintf(port, sizeof port, "%d", c->node[peer].port);
    snprintf(bus, sizeof bus, "%d", c->bus_port[peer]); /* (not port + 10000 here) */
    const char *argv[] = {"CLUSTER", "MEET", "127.0.0.1", port, bus};
    assert_int_equal(test_cluster_command(c->node[i].port, out, sizeof out, 5, argv), 0);
    assert_string_equal(out, "+OK");
}

/* Every other running node forgets node i (CLUSTER FORGET, which also keeps gossip from
 * bringing it back for a minute): what `redis-cli --cluster del-node` does before the shutdown. */
static inline void cl_forget(const test_cluster *c, int i) {
    char id[64], out[128];
    cl_node_id(c->node[i].port, id, sizeof id);
    const char *argv[] = {"CLUSTER", "FORGET", id};
    for (int j = 0; j < c->n; j++) {
        if (j == i || c->node[j].pid <= 0) continue;
        assert_int_equal(test_cluster_command(c->node[j].port, out, sizeof out, 3, argv), 0);
        assert_string_equal(out, "+OK");
    }
}

/* The keys of the running masters (DBSIZE summed). */
static inline long long cl_dbsize_sum(const test_cluster *c) {
    long long sum = 0;
    for (int i = 0; i < c->n; i++) {
        if (c->node[i].pid <= 0 || !test_cluster_is_master(c, i)) continue;
        char out[64];
        const char *argv[] = {"DBSIZE"};
        assert_int_equal(test_cluster_command(c->node[i].port, out, sizeof out, 1, argv), 0);
        sum += atoll(out + 1);
    }
    return sum;
}

/* redis-cli --cluster reshard of slots from node id `from` ("all": every master) to node id `to`,
 * asked at at_port, in the background; its output in the first node's directory. */
static inline pid_t cl_reshard_ids(const test_cluster *c, int at_port, const char *from,
                                   const char *to, int slots) {
    char addr[32], n[16], log[96];
    snprintf(addr, sizeof addr, "127.0.0.1:%d", at_port);
    snprintf(n, sizeof n, "%d", slots);
    snprintf(log, sizeof log, "%s/reshard.log", c->node[0].dir);
    fflush(stdout); /* else the child repeats what is buffered */
    const pid_t pid = fork();
    if (pid == 0) {
        FILE *out = freopen(log, "w", stdout);
        (void)out;
        execlp("redis-cli", "redis-cli", "--cluster", "reshard", addr, "--cluster-from", from,
               "--cluster-to", to, "--cluster-slots", n, "--cluster-yes", "--cluster-pipeline",
               "20", (char *)NULL);
        _exit(127);
    }
    return pid;
}

/* Prints the end of the output of the last cl_reshard_ids (why a reshard failed). */
static inline void cl_reshard_print_log(const test_cluster *c) {
    char log[96], text[2048];
    snprintf(log, sizeof log, "%s/reshard.log", c->node[0].dir);
    FILE *in = fopen(log, "r");
    if (!in) return;
    if (fseek(in, -(long)sizeof text + 1, SEEK_END) != 0) rewind(in); /* (a shorter one: all) */
    const size_t n = fread(text, 1, sizeof text - 1, in);
    fclose(in);
    text[n] = '\0';
    printf("  %s ends:\n%s\n", log, text);
}

/* The same from the master on from_port to the one on to_port. */
static inline pid_t cl_reshard(const test_cluster *c, int from_port, int to_port, int slots) {
    char from[64], to[64];
    cl_node_id(from_port, from, sizeof from);
    cl_node_id(to_port, to, sizeof to);
    return cl_reshard_ids(c, from_port, from, to, slots);
}

#endif
