/* White-box checks of rg_dtoa.c's double formatter: the pieces the Schubfach proof relies on,
 * each checked against exact big-integer arithmetic done here, independently of the runtime.
 *
 * This file includes rg_dtoa.c (and rg_enc.c, for the digit table) to reach their static
 * functions, so its target does not link the runtime. A second target builds it with
 * RG_NO_INT128 to cover the portable multiply.
 */
#include "rg_dtoa.c"
#include "rg_enc.c"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>

/* ---- a minimal unsigned bignum: enough for 2^2048 ----------------------------------------- */

enum { BIG_LIMBS = 64 };

typedef struct big {
    uint32_t limb[BIG_LIMBS]; /* little-endian */
} big;

static big big_from_u128(uint64_t hi, uint64_t lo) {
    big b = {{0}};
    b.limb[0] = (uint32_t)lo;
    b.limb[1] = (uint32_t)(lo >> 32);
    b.limb[2] = (uint32_t)hi;
    b.limb[3] = (uint32_t)(hi >> 32);
    return b;
}

static void big_mul_small(big *b, uint32_t m) {
    uint64_t carry = 0;
    for (size_t i = 0; i < BIG_LIMBS; i++) {
        const uint64_t x = (uint64_t)b->limb[i] * m + carry;
        b->limb[i] = (uint32_t)x;
        carry = x >> 32;
    }
    assert_true(carry == 0);
}

static void big_shl(big *b, unsigned n) {
    for (; n >= 32; n -= 32) {
        assert_true(b->limb[BIG_LIMBS - 1] == 0);
        memmove(b->limb + 1, b->limb, (BIG_LIMBS - 1) * sizeof b->limb[0]);
        b->limb[0] = 0;
    }
    for (; n > 0; n--) big_mul_small(b, 2);
}

static big big_shr(big b, unsigned n) {
    big r = {{0}};
    for (size_t i = 0; i < BIG_LIMBS; i++) {
        const size_t src = i + n / 32;
        if (src >= BIG_LIMBS) break;
        uint64_t w = b.limb[src];
        if (src + 1 < BIG_LIMBS) w |= (uint64_t)b.limb[src + 1] << 32;
        r.limb[i] = (uint32_t)(w >> (n % 32));
    }
    return r;
}

static int big_cmp(const big *a, const big *b) {
    for (size_t i = BIG_LIMBS; i-- > 0;) {
        if (a->limb[i] != b->limb[i]) return a->limb[i] < b->limb[i] ? -1 : 1;
    }
    return 0;
}

/* b * 2^p2 * 10^p10 for p2, p10 >= 0 */
static big big_scaled(big b, int p2, int p10) {
    big_shl(&b, (unsigned)p2);
    for (int i = 0; i < p10; i++) big_mul_small(&b, 10);
    return b;
}

/* Sign of a * 2^a2 * 10^a10 - b * 2^b2 * 10^b10, exactly: negative powers move to the other side.
 */
static int cmp_terms(big a, int a2, int a10, big b, int b2, int b10) {
    const int d2 = a2 - b2, d10 = a10 - b10;
    const big l = big_scaled(a, d2 > 0 ? d2 : 0, d10 > 0 ? d10 : 0);
    const big r = big_scaled(b, d2 < 0 ? -d2 : 0, d10 < 0 ? -d10 : 0);
    return big_cmp(&l, &r);
}

static big big_small(uint64_t v) {
    return big_from_u128(0, v);
}

/* a * m, as a * (m mod 2^32) + (a * (m >> 32)) << 32 */
static big big_mul_u64(big a, uint64_t m) {
    big high = a;
    big_mul_small(&a, (uint32_t)m);
    big_mul_small(&high, (uint32_t)(m >> 32));
    big_shl(&high, 32);
    uint64_t carry = 0;
    for (size_t i = 0; i < BIG_LIMBS; i++) {
        const uint64_t s = (uint64_t)a.limb[i] + high.limb[i] + carry;
        a.limb[i] = (uint32_t)s;
        carry = s >> 32;
    }
    assert_true(carry == 0);
    return a;
}

/* ---- the logarithm approximations, over every argument the code can pass (and more) ------- */

static void test_flog10_pow2(void **state) {
    (void)state;
    for (int32_t e = -1200; e <= 1200; e++) {
        const int32_t k = flog10_pow2(e);
        /* 10^k <= 2^e < 10^(k+1) */
        assert_true(cmp_terms(big_small(1), 0, k, big_small(1), e, 0) <= 0);
        assert_true(cmp_terms(big_small(1), e, 0, big_small(1), 0, k + 1) < 0);
    }
}

static void test_flog10_three_quarters_pow2(void **state) {
    (void)state;
    for (int32_t e = -1200; e <= 1200; e++) {
        const int32_t k = flog10_three_quarters_pow2(e);
        /* 10^k <= 3 * 2^(e-2) < 10^(k+1) */
        assert_true(cmp_terms(big_small(1), 0, k, big_small(3), e - 2, 0) <= 0);
        assert_true(cmp_terms(big_small(3), e - 2, 0, big_small(1), 0, k + 1) < 0);
    }
}

static void test_flog2_pow10(void **state) {
    (void)state;
    for (int32_t e = -400; e <= 400; e++) {
        const int32_t j = flog2_pow10(e);
        /* 2^j <= 10^e < 2^(j+1) */
        assert_true(cmp_terms(big_small(1), j, 0, big_small(1), 0, e) <= 0);
        assert_true(cmp_terms(big_small(1), 0, e, big_small(1), j + 1, 0) < 0);
    }
}

static void test_floor_shift(void **state) {
    (void)state;
    for (int64_t x = -5000; x <= 5000; x++) {
        for (unsigned s = 0; s < 12; s++) {
            const int64_t d = (int64_t)1 << s;
            const int64_t q = x / d - (x % d != 0 && x < 0); /* floor division */
            assert_int_equal(floor_shift(x, s), q);
        }
    }
}

/* ---- the table: g(k) - 1 <= 10^-k * 2^-r < g(k), 2^125 <= g(k) < 2^126 --------------------- */

static void test_table(void **state) {
    (void)state;
    const big two125 = big_scaled(big_small(1), 125, 0);
    const big two126 = big_scaled(big_small(1), 126, 0);
    for (int32_t k = SCHUBFACH_K_MIN; k <= SCHUBFACH_K_MAX; k++) {
        const uint64_t *g = schubfach_g[k - SCHUBFACH_K_MIN];
        const int32_t r = flog2_pow10(-k) - 125;
        const big gb = big_from_u128(g[0], g[1]);
        const big gm1 = big_from_u128(g[0] - (g[1] == 0), g[1] - 1);
        assert_true(big_cmp(&two125, &gb) <= 0 && big_cmp(&gb, &two126) < 0);
        /* (g - 1) * 2^r <= 10^-k < g * 2^r */
        assert_true(cmp_terms(gm1, r, 0, big_small(1), 0, -k) <= 0);
        assert_true(cmp_terms(big_small(1), 0, -k, gb, r, 0) < 0);
    }
}

/* Every exponent the formatter can meet maps into the table, with the shift the proof assumes. */
static void test_k_and_h_ranges(void **state) {
    (void)state;
    for (int32_t q = F64_Q_MIN; q <= 971; q++) {
        for (int irregular = 0; irregular < 2; irregular++) {
            if (irregular && q == F64_Q_MIN) continue;
            const int32_t k = irregular ? flog10_three_quarters_pow2(q) : flog10_pow2(q);
            const int32_t h = q + flog2_pow10(-k) + 2;
            assert_true(k >= SCHUBFACH_K_MIN && k <= SCHUBFACH_K_MAX);
            assert_true(h >= 2 && h <= 5);
        }
    }
}

/* ---- the 64x64 multiply and round-to-odd ---------------------------------------------------- */

static uint64_t xorshift(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void test_umul64(void **state) {
    (void)state;
    uint64_t seed = 0x9e3779b97f4a7c15u;
    const uint64_t edge[] = {
        0, 1, 2, UINT32_MAX, (uint64_t)UINT32_MAX + 1, UINT64_MAX, UINT64_MAX - 1};
    for (size_t i = 0; i < 200000; i++) {
        const uint64_t a = i < 49 ? edge[i % 7] : xorshift(&seed);
        const uint64_t b = i < 49 ? edge[i / 7] : xorshift(&seed) >> (i % 64);
        uint64_t hi, lo;
        umul64(a, b, &hi, &lo);
        const big acc = big_mul_u64(big_small(a), b);
        const big want = big_from_u128(hi, lo);
        assert_int_equal(big_cmp(&acc, &want), 0);
    }
}

/* round_to_odd(g, cp) is Q / 2^63 rounded to odd, Q = floor(cp * g / 2^64) (the paper's rop). */
static void test_round_to_odd(void **state) {
    (void)state;
    uint64_t seed = 12345;
    for (size_t i = 0; i < 50000; i++) {
        const uint64_t *g = schubfach_g[xorshift(&seed) % (SCHUBFACH_K_MAX - SCHUBFACH_K_MIN + 1)];
        const uint64_t cp = xorshift(&seed) >> (4 + i % 40);
        const big q = big_shr(big_mul_u64(big_from_u128(g[0], g[1]), cp), 64);
        const big quotient = big_shr(q, 63);
        const bool inexact = q.limb[0] != 0 || (q.limb[1] & 0x7fffffffu) != 0;
        const uint64_t want = ((uint64_t)quotient.limb[1] << 32 | quotient.limb[0]) | inexact;
        assert_true(quotient.limb[2] == 0);
        assert_int_equal(round_to_odd(g, cp), want);
    }
}

/* significand_len against the digit count of every boundary below 10^17 (and the powers of 2). */
static void test_significand_len(void **state) {
    (void)state;
    uint64_t p = 1;
    for (size_t digits = 1; digits <= 17; digits++, p *= 10) {
        assert_int_equal(significand_len(p), digits);
        assert_int_equal(significand_len(p + 1), digits);
        if (p > 1) assert_int_equal(significand_len(p - 1), digits - 1);
        assert_int_equal(significand_len(p * 10 - 1), digits);
    }
    for (unsigned b = 0; b < 57; b++) {
        const uint64_t v = UINT64_C(1) << b;
        assert_int_equal(significand_len(v), rg_u64_len(v));
        assert_int_equal(significand_len(v - (v > 1)), rg_u64_len(v - (v > 1)));
    }
}

/* ---- an end-to-end smoke run through whichever multiply this build uses -------------------- */

static void test_round_trip_smoke(void **state) {
    (void)state;
    uint64_t seed = 777;
    for (size_t i = 0; i < 300000; i++) {
        const uint64_t bits = xorshift(&seed);
        double v;
        memcpy(&v, &bits, sizeof v);
        if (v != v) continue;
        char buf[RG_DOUBLE_MAX_LEN + 1];
        const size_t n = rg_fmt_double(buf, v);
        assert_true(n <= RG_DOUBLE_MAX_LEN);
        buf[n] = '\0';
        const double back = strtod(buf, NULL);
        assert_memory_equal(&back, &v, sizeof v);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flog10_pow2),     cmocka_unit_test(test_flog10_three_quarters_pow2),
        cmocka_unit_test(test_flog2_pow10),     cmocka_unit_test(test_floor_shift),
        cmocka_unit_test(test_table),           cmocka_unit_test(test_k_and_h_ranges),
        cmocka_unit_test(test_umul64),          cmocka_unit_test(test_round_to_odd),
        cmocka_unit_test(test_significand_len), cmocka_unit_test(test_round_trip_smoke),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
