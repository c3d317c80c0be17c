/* Compiled by tests/enc/lit_compile.cmake once per case: CASE_LITERAL must compile (warnings as
 * errors), every other case must not, since RG_LIT takes string literals only. */
#include "rg.h"

#define NAME "user:1"

rg_view lit_case(void);

rg_view lit_case(void) {
#if defined(CASE_LITERAL)
    const rg_view list[] = {RG_LIT("a"), RG_LIT(NAME),
                            RG_LIT("a"
                                   "b"),
                            RG_LIT("")};
    return list[1];
#elif defined(CASE_POINTER)
    const char *k = "user:1";
    return RG_LIT(k); /* sizeof(k) - 1 would be 7 on 64-bit targets */
#elif defined(CASE_ARRAY)
    char buf[64] = "user:1";
    return RG_LIT(buf); /* sizeof(buf) - 1 would be 63, not the text's 6 */
#elif defined(CASE_CONST_ARRAY)
    static const char name[] = "user:1";
    return RG_LIT(name); /* right length, but use rg_cstr or (rg_view){name, sizeof name - 1} */
#else
#error "no CASE_ defined"
#endif
}
