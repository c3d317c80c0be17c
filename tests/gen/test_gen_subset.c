/* respgen_generate(... COMMANDS ...): a subset of specs/redis.lua and of a module spec
 * (tests/gen/specs/modular.lua, module_prefix "MOD") generated through CMake. The command lists
 * hold exactly the chosen commands, which encode as hand-written RESP; module commands are named
 * without their module prefix (mod_set, not mod_mod_set). */
#include "modular.h"
#include "redis.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

/* Without IOV: none of the iovec form's functions and macros. */
#if defined(REDIS_SET_IOV_MAX) || defined(REDIS_GET_SCRATCH_MAX) || defined(MOD_SET_IOV_MAX)
#error "output without IOV has iovec macros"
#endif

#define NAME_OF(id, ID, name, arity, flags) name,
static const char *const redis_names[] = {REDIS_COMMANDS(NAME_OF)};
static const char *const mod_names[] = {MOD_COMMANDS(NAME_OF)};
#undef NAME_OF

static void test_only_the_chosen_commands(void **state) {
    (void)state;
    static const char *const want[] = {"CLIENT INFO", "GET", "SET"};
    assert_int_equal(sizeof redis_names / sizeof redis_names[0], 3);
    for (size_t i = 0; i < 3; i++) assert_string_equal(redis_names[i], want[i]);
    assert_int_equal(sizeof mod_names / sizeof mod_names[0], 1);
    assert_string_equal(mod_names[0], "MOD.SET");
}

#define ENCODES(call, lit)                    \
    do {                                      \
        char buf[128];                        \
        const size_t n = (call);              \
        assert_int_equal(n, sizeof(lit) - 1); \
        assert_memory_equal(buf, lit, n);     \
    } while (0)

static void test_encoders(void **state) {
    (void)state;
    ENCODES(redis_get_encode(buf, sizeof buf, RG_LIT("k")), "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n");
    const redis_set_opts nx = {.condition = REDIS_SET_CONDITION_NX};
    ENCODES(redis_set_encode(buf, sizeof buf, RG_LIT("k"), RG_LIT("v"), &nx),
            "*4\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n$2\r\nNX\r\n");
    ENCODES(redis_client_info_encode(buf, sizeof buf), "*2\r\n$6\r\nCLIENT\r\n$4\r\nINFO\r\n");
    const mod_set_opts xx = {.condition = MOD_SET_CONDITION_XX};
    ENCODES(mod_set_encode(buf, sizeof buf, RG_LIT("k"), RG_LIT("$"), RG_LIT("1"), &xx),
            "*5\r\n$7\r\nMOD.SET\r\n$1\r\nk\r\n$1\r\n$\r\n$1\r\n1\r\n$2\r\nXX\r\n");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_only_the_chosen_commands),
        cmocka_unit_test(test_encoders),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
