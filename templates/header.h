${banner}
#ifndef ${guard}
#define ${guard}

#include "rg_enc.h"
${assert_include}
#include <stdbool.h>

#if RG_ABI_VERSION != ${abi}
#error "${name} was generated for RG_ABI_VERSION ${abi}: regenerate it with this runtime's respgen"
#endif
${checks}
#ifdef __cplusplus
extern "C" {
#endif

/* For each command C below:
 *   size_t C_size(args)                  exact size of the request (a RESP array of bulks)
 *   size_t C_encode(dst, cap, args)      writes it; returns its size, or 0 and writes nothing
 *                                        when cap is smaller
 *   size_t C_encode_iov(iov, iov_cap, scratch, scratch_cap, args)
 *                                        the same request as iovec entries that point at the
 *                                        caller's strings instead of copying them, and at
 *                                        headers written into scratch; returns the entry count
 *   size_t C_iov_count(args)             entries C_encode_iov needs
 *   size_t C_scratch_size(args)          scratch bytes C_encode_iov needs
 * All of them return 0 for invalid arguments: a required multiple argument with count 0, a
 * oneof kind or enum value out of range (or NONE where the argument is required), a string
 * longer than its max_len. Strings are borrowed for the call only.
 * Macros: C_FIXED_SIZE is the constant part of every request; C_MAX_SIZE (when every argument
 * is bounded) the largest request; C_IOV_MAX and C_SCRATCH_MAX (when no argument repeats) the
 * most entries and scratch bytes C_encode_iov can need. */

${body}

#ifdef __cplusplus
}
#endif

#endif
