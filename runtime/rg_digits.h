/* respgen runtime, internal (not installed): decimal digits, written and read. Writing is shared
 * by the integer writers (rg_enc.c) and the double formatter (rg_dtoa.c); reading by every place
 * the runtime reads a decimal: lengths and integers (rg_dec.c, rg_req.c, rg_keys.c), doubles'
 * digits (rg_dec.c, rg_reply.c), slots, ports and counts (rg_conn.c, rg_cluster.c). Names here
 * are not API. The word-at-a-time readers of the decoder's fast path (rg_dec_inline.h, installed)
 * stay there: they read a line's digits and its CRLF in one go.
 */
#ifndef RG_DIGITS_H
#define RG_DIGITS_H

#include "rg_enc.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Write the decimal digits of v so that they end at end (the caller knows their count). Defined
 * in rg_enc.c, out of line as it was when the formatter lived there too: inlined into its five
 * call sites it doubled rg_fmt_double's code, and that was never measured faster. */
void rg_put_digits_backward(char *end, uint64_t v);

/* The value of an ASCII digit, or 10 and above for any other byte. */
static inline unsigned rg_digit(char c) {
    return (unsigned)(unsigned char)c - '0';
}

/* Reads the digits at p (before e) into *v while the value stays at most max, and returns the
 * first byte not read: one that is not a digit, or the digit that would take the value past max
 * (so a digit there means out of range; p itself: no digits). Signs, leading zeros and what
 * follows are the caller's: their rules differ (Redis' string2ll, RESP lines, a slot). */
static inline const char *rg_digits_read(const char *p, const char *e, uint64_t max, uint64_t *v) {
    const uint64_t top = max / 10, last = max % 10;
    uint64_t acc = 0;
    for (unsigned d; p < e && (d = rg_digit(*p)) < 10; p++) {
        if (acc >= top && (acc > top || d > last)) break;
        acc = acc * 10 + d;
    }
    *v = acc;
    return p;
}

/* The first byte at p (before e) that is not a digit: a validator's scan, no value kept. */
static inline const char *rg_digits_skip(const char *p, const char *e) {
    while (p < e && rg_digit(*p) < 10) p++;
    return p;
}

/* rg_digits_read without a bound, going on from *m (a double's digits after its point): the
 * caller counts the digits and refuses more than 19, so a value that wrapped is never used. */
static inline const char *rg_digits_wrap(const char *p, const char *e, uint64_t *m) {
    uint64_t v = *m;
    for (unsigned d; p < e && (d = rg_digit(*p)) < 10; p++) v = v * 10 + d;
    *m = v;
    return p;
}

/* All of s[0..n) as one unsigned decimal of at most max: one digit or more and nothing else;
 * canonical: no leading zero either (but "0"). */
static inline bool rg_digits_u64(const char *s, size_t n, uint64_t max, bool canonical,
                                 uint64_t *out) {
    uint64_t v;
    if (n == 0 || (canonical && n > 1 && s[0] == '0')) return false;
    if (rg_digits_read(s, s + n, max, &v) != s + n) return false;
    *out = v;
    return true;
}

/* All of s[0..n) as an int64_t, [-]digits: Redis' string2ll when canonical (no leading zero,
 * no "-0"), else any number of leading zeros. No '+', no spaces. */
static inline bool rg_digits_i64(const char *s, size_t n, bool canonical, int64_t *out) {
    const bool neg = n > 0 && s[0] == '-';
    uint64_t v;
    if (!rg_digits_u64(s + neg, n - neg, (uint64_t)INT64_MAX + neg, canonical, &v)) return false;
    if (canonical && neg && v == 0) return false;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return true;
}

#endif
