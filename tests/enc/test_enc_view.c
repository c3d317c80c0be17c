/* The ways to make an rg_view (runtime/rg.h): RG_LIT of string literals (also macros that expand
 * to one, concatenations, embedded NULs, in initializers), rg_cstr of NUL-terminated strings
 * (NULL gives {NULL, 0}), and pointer + length. That RG_LIT refuses anything else at compile time
 * is lit_compile (tests/enc/lit_compile.cmake). */
#include "rg.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <string.h>

#define KEY "user:1000"

static void test_lit(void **state) {
    (void)state;
    const rg_view list[] = {RG_LIT("GET"), RG_LIT(KEY),
                            RG_LIT("a"
                                   "bc"),
                            RG_LIT(""), RG_LIT("a\0b")};
    assert_int_equal(list[0].len, 3);
    assert_memory_equal(list[0].ptr, "GET", 3);
    assert_int_equal(list[1].len, strlen(KEY));
    assert_memory_equal(list[1].ptr, KEY, strlen(KEY));
    assert_int_equal(list[2].len, 3);
    assert_memory_equal(list[2].ptr, "abc", 3);
    assert_int_equal(list[3].len, 0);
    assert_non_null(list[3].ptr);
    /* The literal's bytes, not its text up to a NUL. */
    assert_int_equal(list[4].len, 3);
    assert_memory_equal(list[4].ptr, "a\0b", 3);
}

static void test_cstr(void **state) {
    (void)state;
    char buf[64] = "user:1000";
    const char *p = buf;
    const rg_view v = rg_cstr(p);
    assert_ptr_equal(v.ptr, buf);
    assert_int_equal(v.len, 9);
    /* A buffer's text, not its size. */
    assert_int_equal(rg_cstr(buf).len, 9);
    const rg_view empty = rg_cstr("");
    assert_non_null(empty.ptr);
    assert_int_equal(empty.len, 0);
    const rg_view none = rg_cstr(NULL);
    assert_null(none.ptr);
    assert_int_equal(none.len, 0);
    /* Stops at the first NUL; binary data takes pointer + length. */
    static const char bin[] = {'a', '\0', 'b'};
    assert_int_equal(rg_cstr(bin).len, 1);
    const rg_view whole = {bin, sizeof bin};
    assert_int_equal(whole.len, 3);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lit),
        cmocka_unit_test(test_cstr),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
