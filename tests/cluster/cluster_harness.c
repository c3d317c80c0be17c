/* The cluster fixture itself: six nodes come up as three masters with one replica each, every
 * slot is served and every node agrees; after test_cluster_stop no process and no directory is
 * left. */
#include "test_cluster.h"

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

static void test_up_and_down(void **state) {
    (void)state;
    test_cluster c;
    assert_int_equal(test_cluster_start(&c), 0);
    int masters = 0;
    pid_t pids[TEST_CLUSTER_NODES];
    char dirs[TEST_CLUSTER_NODES][64];
    for (int i = 0; i < c.n; i++) {
        masters += test_cluster_is_master(&c, i);
        pids[i] = c.node[i].pid;
        memcpy(dirs[i], c.node[i].dir, sizeof dirs[i]);
    }
    assert_int_equal(c.n, 6);
    assert_int_equal(masters, 3);
    for (int s = 0; s < 16384; s += 997) {
        const int owner = test_cluster_slot_owner(&c, s);
        assert_true(owner > 0);
        assert_true(test_cluster_is_master(&c, test_cluster_index(&c, owner)));
    }
    char v[32];
    assert_int_equal(test_cluster_info_field(c.node[0].port, "CLUSTER", "INFO",
                                             "cluster_slots_assigned", v, sizeof v),
                     0);
    assert_string_equal(v, "16384");
    test_cluster_stop(&c);
    struct stat st;
    for (int i = 0; i < TEST_CLUSTER_NODES; i++) {
        assert_int_equal(kill(pids[i], 0), -1); /* reaped: no such process */
        assert_int_equal(stat(dirs[i], &st), -1);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_up_and_down)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
