/* --header-only output (prefix hox) next to the regular .h/.c pair (prefix example) from the
 * same spec, in one translation unit: both compile together and encode the same bytes. */
#include "example.h"
#include "header-only/example.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

static void test_set_same_bytes(void **state) {
    (void)state;
    char a[256], b[256];
    const example_set_opts opts = {
        .condition = EXAMPLE_SET_CONDITION_XX,
        .expiration = {.kind = EXAMPLE_SET_EXPIRATION_MILLISECONDS, .milliseconds = 1500},
    };
    const hox_set_opts hopts = {
        .condition = HOX_SET_CONDITION_XX,
        .expiration = {.kind = HOX_SET_EXPIRATION_MILLISECONDS, .milliseconds = 1500},
    };
    const size_t n = example_set_encode(a, sizeof a, RG_LIT("k"), RG_LIT("v"), &opts);
    assert_int_not_equal(n, 0);
    assert_int_equal(hox_set_encode(b, sizeof b, RG_LIT("k"), RG_LIT("v"), &hopts), n);
    assert_memory_equal(a, b, n);
    assert_int_equal(HOX_SET_FIXED_SIZE, EXAMPLE_SET_FIXED_SIZE);
}

static void test_zadd_same_bytes(void **state) {
    (void)state;
    char a[256], b[256];
    const example_zadd_data data[] = {{0.1, RG_LIT("m")}, {-3, RG_LIT("n")}};
    const hox_zadd_data hdata[] = {{0.1, RG_LIT("m")}, {-3, RG_LIT("n")}};
    const example_zadd_opts opts = {.increment = true};
    const hox_zadd_opts hopts = {.increment = true};
    const size_t n = example_zadd_encode(a, sizeof a, RG_LIT("z"), data, 2, &opts);
    assert_int_not_equal(n, 0);
    assert_int_equal(hox_zadd_encode(b, sizeof b, RG_LIT("z"), hdata, 2, &hopts), n);
    assert_memory_equal(a, b, n);
}

static void test_iov_same_entries(void **state) {
    (void)state;
    rg_iov iov[HOX_GET_IOV_MAX];
    char scratch[HOX_GET_SCRATCH_MAX];
    const size_t count =
        hox_get_encode_iov(iov, HOX_GET_IOV_MAX, scratch, sizeof scratch, RG_LIT("key"));
    assert_int_equal(count, hox_get_iov_count(RG_LIT("key")));
    assert_int_equal(iov[0].len, example_get_size(RG_LIT("key")));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set_same_bytes),
        cmocka_unit_test(test_zadd_same_bytes),
        cmocka_unit_test(test_iov_same_entries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
