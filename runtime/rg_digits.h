/* respgen runtime, internal (not installed): decimal digit writing shared by the integer writers
 * (rg_enc.c) and the double formatter (rg_dtoa.c). Names here are not API.
 */
#ifndef RG_DIGITS_H
#define RG_DIGITS_H

#include "rg_enc.h"

#include <stdint.h>

/* Write the decimal digits of v so that they end at end (the caller knows their count). Defined
 * in rg_enc.c, out of line as it was when the formatter lived there too: inlined into its five
 * call sites it doubled rg_fmt_double's code, and that was never measured faster. */
void rg_put_digits_backward(char *end, uint64_t v);

#endif
