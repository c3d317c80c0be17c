/* respgen runtime, internal (not installed): plain decimals ([-]digits[.digits], what Redis sends
 * for scores and RESP3 doubles) to double, bit for bit what strtod gives, without strtod and
 * mostly without a division. Shared by the decoder (',' doubles, rg_dec.c) and the typed replies
 * (doubles sent as text, rg_reply.c). Names here are not API.
 */
#ifndef RG_DECIMAL_H
#define RG_DECIMAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* RESP3 double text ([+-]digits[.digits][e[+-]digits]; inf, nan, -inf, -nan in any case) to
 * double, as the decoder reads ',' lines (rg_dec.c); false for anything else, for text of
 * RG_DOUBLE_LINE_MAX bytes or more too. For doubles sent as text (scores): strtod alone would
 * also take leading blanks, hex and "infinity", and reads in the C library's current locale. */
bool rg_double_text(const char *s, size_t n, double *out);

/* Most significant digits rg_decimal takes: below 10^19, m fits in 64 bits. */
#define RG_DECIMAL_DIGITS 19

/* Exact powers of ten: m / 10^k with m < 2^53 and k <= 22 is one correctly rounded division
 * of two exact doubles (Clinger), strtod's result. */
static const double RG_POW10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                  1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                  1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* Per k = 1..19, for m / 10^k = (m / 5^k) * 2^-k:
 *   recip  floor(2^(63 + z) / 5^k) + 1, z the bit length of 5^k: 5^-k scaled into [2^63, 2^64),
 *          rounded up (by less than 1)
 *   inv    the inverse of 5^k modulo 2^64; div: floor((2^64 - 1) / 5^k). m is a multiple of
 *          5^k exactly when m * inv (mod 2^64) <= div, and that product is then m / 5^k
 *   exp    1085 - z - k: with the product's top bit and m's shift (below), the exponent field
 *          less 1 (the mantissa's bit 52, added, makes it up) */
typedef struct rg_pow5 {
    uint64_t recip, inv, div;
    int32_t exp;
} rg_pow5;

static const rg_pow5 RG_POW5[RG_DECIMAL_DIGITS + 1] = {
    {0, 0, 0, 0},
    {0xcccccccccccccccdu, 0xcccccccccccccccdu, 0x3333333333333333u, 1081},
    {0xa3d70a3d70a3d70bu, 0x8f5c28f5c28f5c29u, 0x0a3d70a3d70a3d70u, 1078},
    {0x83126e978d4fdf3cu, 0x1cac083126e978d5u, 0x020c49ba5e353f7cu, 1075},
    {0xd1b71758e219652cu, 0xd288ce703afb7e91u, 0x0068db8bac710cb2u, 1071},
    {0xa7c5ac471b478424u, 0x5d4e8fb00bcbe61du, 0x0014f8b588e368f0u, 1068},
    {0x8637bd05af6c69b6u, 0x790fb65668c26139u, 0x000431bde82d7b63u, 1065},
    {0xd6bf94d5e57a42bdu, 0xe5032477ae8d46a5u, 0x0000d6bf94d5e57au, 1061},
    {0xabcc77118461cefdu, 0xc767074b22e90e21u, 0x00002af31dc46118u, 1058},
    {0x89705f4136b4a598u, 0x8e47ce423a2e9c6du, 0x0000089705f4136bu, 1055},
    {0xdbe6fecebdedd5bfu, 0x4fa7f60d3ed61f49u, 0x000001b7cdfd9d7bu, 1051},
    {0xafebff0bcb24aaffu, 0x0fee64690c913975u, 0x00000057f5ff85e5u, 1048},
    {0x8cbccc096f5088ccu, 0x3662e0e1cf503eb1u, 0x000000119799812du, 1045},
    {0xe12e13424bb40e14u, 0xa47a2cf9f6433fbdu, 0x0000000384b84d09u, 1041},
    {0xb424dc35095cd810u, 0x54186f653140a659u, 0x00000000b424dc35u, 1038},
    {0x901d7cf73ab0acdau, 0x7738164770402145u, 0x0000000024075f3du, 1035},
    {0xe69594bec44de15cu, 0xe4a4d1417cd9a041u, 0x000000000734aca5u, 1031},
    {0xb877aa3236a4b44au, 0xc75429d9e5c5200du, 0x000000000170ef54u, 1028},
    {0x9392ee8e921d5d08u, 0xc1773b91fac10669u, 0x000000000049c977u, 1025},
    {0xec1e4a7db69561a6u, 0x26b172506559ce15u, 0x00000000000ec1e4u, 1021},
};

static inline double rg_decimal_bits(uint64_t bits) {
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

#if defined(__GNUC__) || defined(__clang__)
#define RG_DECIMAL_NOINLINE __attribute__((noinline, unused))
#define RG_DECIMAL_INLINE   __attribute__((always_inline, unused)) static inline
#else
#define RG_DECIMAL_NOINLINE
#define RG_DECIMAL_INLINE static inline
#endif

/* rg_decimal for m >= 2^53 and k >= 1 (16 to 19 digits: Redis before 7.2 sends "%.17g", e.g.
 * "0.10000000000000001"), where one division is no longer exact. Out of line (rg_decimal_wide):
 * the common short values keep their callers' loops small; inline for a caller that is itself
 * the long values' way.
 *
 * w = m shifted to bit 63, times recip, is (m / 10^k) * 2^(lz + 63 + z + k) plus less than w
 * (recip is above the exact 2^(63 + z) / 5^k by less than 1). Its top 54 bits are the true
 * ones (53 and the rounding bit) unless the bits of the product below them, from bit 64 on, are
 * all zero (only then can the excess have carried into them); and then the true value is no
 * tie either, nor exact (its bits below the rounding bit are not all zero), so rounding half
 * up is rounding to nearest (Eisel-Lemire's method, with one 64-bit product). All zero happens
 * for a multiple of 5^k, whose quotient is exact (converted, then scaled by 2^-k: one rounding),
 * and for about one in a thousand other values: false, for strtod. Nothing of this needs m to be
 * at least 2^53 (the shift by lz makes every m alike), so a caller may skip rg_decimal's test;
 * m 0 (shifted as 1) gives a product of 0, the exact way's 0. */
RG_DECIMAL_INLINE bool rg_decimal_wide_body(uint64_t m, unsigned k, bool neg, double *out) {
    const rg_pow5 *const c = &RG_POW5[k];
#if defined(__SIZEOF_INT128__) && (defined(__GNUC__) || defined(__clang__))
    __extension__ typedef unsigned __int128 u128;
    const unsigned lz = (unsigned)__builtin_clzll(m | 1); /* m 0: exact, below */
    const uint64_t hi = (uint64_t)((u128)(m << lz) * c->recip >> 64);
    const unsigned shift = 9 + (unsigned)(hi >> 63); /* the top bit: 127 or 126 */
    const uint64_t mant = hi >> shift;               /* 2^53..2^54 */
    if ((mant << shift) != hi) {
        /* rounded half up; its bit 52 adds the 1 the exponent field lacks, and 2^53 (all ones
         * rounded up) carries into it once more */
        const uint64_t bits =
            ((uint64_t)(c->exp + (int32_t)shift - 9 - (int32_t)lz) << 52) + ((mant + 1) >> 1);
        *out = rg_decimal_bits(bits | (uint64_t)neg << 63);
        return true;
    }
#endif
    const uint64_t q = m * c->inv;
    if (q > c->div) return false;
    const double d = (double)q * rg_decimal_bits((uint64_t)(1023 - k) << 52); /* 2^-k */
    *out = neg ? -d : d;
    return true;
}

static RG_DECIMAL_NOINLINE bool rg_decimal_wide(uint64_t m, unsigned k, bool neg, double *out) {
    return rg_decimal_wide_body(m, k, neg, out);
}

/* (neg ? -1 : 1) * m / 10^k, correctly rounded to nearest, ties to even: strtod's result for
 * the text these came from, for m < 10^19 and k <= 19. k 0: m converted (correctly rounded);
 * m < 2^53: one division of exact doubles (Clinger); else rg_decimal_wide. False, for strtod,
 * for m >= 2^63 with k 0 and for the few values rg_decimal_wide cannot round. */
static inline bool rg_decimal(uint64_t m, unsigned k, bool neg, double *out) {
    double d;
    if (k == 0) {
        if (m >> 63) return false;
        d = (double)(int64_t)m;
    } else if (m >> 53 == 0) {
        d = (double)m / RG_POW10[k];
    } else {
        return rg_decimal_wide(m, k, neg, out);
    }
    *out = neg ? -d : d;
    return true;
}

#endif
