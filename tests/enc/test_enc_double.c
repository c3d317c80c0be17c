/* rg_fmt_double: round trip, shortness, layout and Redis acceptance.
 *
 * The oracle is the C library: strtod for round trips, snprintf("%.*g"/"%.*e") for the digits a
 * correctly rounded conversion gives at each precision. (Tests may use printf; the runtime may
 * not.) Two levels of checking:
 *   full:  the smallest p in 1..17 whose "%.{p}g" round-trips is found by scanning, and no
 *          decimal with fewer significant digits than ours round-trips (both neighbours on the
 *          one-digit-shorter grid, from the exact expansion, are tried);
 *   quick: the one-digit-shorter rounding fails and the same-length rounding is our text.
 * Quick is exact except for powers of two (the rounding interval is lopsided there, so the
 * shortest need not be the correctly rounded one), which all get the full check.
 *
 * Random-run sizes: RG_ENC_DOUBLE_ITERS overrides; the default is 2 million in optimized
 * builds and 200 thousand with assertions or sanitizers on. RG_ENC_DOUBLE_SEED changes the seeds.
 */
#include "rg_enc.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_SANITIZER 1
#endif
#endif
#ifndef UNDER_SANITIZER
#define UNDER_SANITIZER 0
#endif

static size_t iterations(void) {
    const char *env = getenv("RG_ENC_DOUBLE_ITERS");
    if (env != NULL && *env != '\0') return (size_t)strtoull(env, NULL, 10);
#ifdef NDEBUG
    return UNDER_SANITIZER ? 200000 : 2000000;
#else
    return 200000;
#endif
}

/* RG_ENC_DOUBLE_SEED varies the random runs (for long one-off runs); fixed by default. */
static uint64_t seed_or(uint64_t fallback) {
    const char *env = getenv("RG_ENC_DOUBLE_SEED");
    return env != NULL && *env != '\0' ? strtoull(env, NULL, 10) ^ fallback : fallback;
}

static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static double from_bits(uint64_t bits) {
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

static uint64_t to_bits(double v) {
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    return bits;
}

static bool same(double a, double b) {
    return to_bits(a) == to_bits(b);
}

static bool round_trips(const char *text, double v) {
    return same(strtod(text, NULL), v);
}

/* ---- parsing our output, strictly --------------------------------------------------------- */

typedef struct parsed {
    char digits[24]; /* significant digits: no leading or trailing zeros ("" for zero) */
    size_t n;
    int x;    /* decimal exponent of the first significant digit */
    bool sci; /* written with an exponent */
} parsed;

static size_t span_digits(const char *s) {
    size_t i = 0;
    while (isdigit((unsigned char)s[i])) i++;
    return i;
}

/* "e-07" / "e+308": sign, then two digits or more, no leading zero beyond the two. */
static bool parse_exponent(const char *s, int *out) {
    if (s[0] != '-' && s[0] != '+') return false;
    const size_t n = span_digits(s + 1);
    if (n < 2 || s[1 + n] != '\0' || (n > 2 && s[1] == '0')) return false;
    *out = atoi(s + 1) * (s[0] == '-' ? -1 : 1);
    return true;
}

/* Collects the significant digits of the mantissa "int[.frac]" and where the first one sits. */
static bool collect_digits(const char *intp, size_t ni, const char *frac, size_t nf, parsed *p) {
    char all[48];
    if (ni + nf >= sizeof all) return false;
    memcpy(all, intp, ni);
    memcpy(all + ni, frac, nf);
    size_t lead = 0, len = ni + nf;
    while (lead < len && all[lead] == '0') lead++;
    while (len > lead && all[len - 1] == '0') len--;
    p->n = len - lead;
    if (p->n >= sizeof p->digits) return false;
    memcpy(p->digits, all + lead, p->n);
    p->digits[p->n] = '\0';
    p->x = (int)ni - 1 - (int)lead;
    return true;
}

/* Accepts exactly the layouts rg_enc.h promises; false on anything else. */
static bool parse_output(const char *s, parsed *p) {
    memset(p, 0, sizeof *p);
    if (*s == '-') s++;
    const size_t ni = span_digits(s);
    if (ni == 0 || (ni > 1 && s[0] == '0')) return false; /* no leading zeros */
    const char *rest = s + ni;
    const char *frac = "";
    size_t nf = 0;
    if (*rest == '.') {
        frac = rest + 1;
        nf = span_digits(frac);
        if (nf == 0 || frac[nf - 1] == '0') return false; /* no trailing zeros after a point */
        rest = frac + nf;
    }
    if (!collect_digits(s, ni, frac, nf, p)) return false;
    if (*rest == 'e') {
        int e;
        if (ni != 1 || s[0] == '0' || !parse_exponent(rest + 1, &e)) return false;
        p->sci = true;
        p->x = e;
        return true;
    }
    return *rest == '\0';
}

/* Redis's string2d (util.c) rules for a double argument. */
static bool redis_accepts(const char *s) {
    const size_t len = strlen(s);
    if (len == 0 || isspace((unsigned char)s[0])) return false;
    char *end;
    errno = 0;
    const double v = strtod(s, &end);
    if ((size_t)(end - s) != len) return false;
    if (errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL || fpclassify(v) == FP_ZERO)) {
        return false;
    }
    return !isnan(v);
}

/* ---- the checks ---------------------------------------------------------------------------- */

/* Formats v and checks everything that does not need an oracle; returns the parse. */
static parsed format_checked(double v, char *out) {
    char buf[RG_DOUBLE_MAX_LEN + 8];
    memset(buf, 0x7f, sizeof buf);
    const size_t n = rg_fmt_double(buf, v);
    assert_true(n >= 1 && n <= RG_DOUBLE_MAX_LEN);
    for (size_t i = n; i < sizeof buf; i++) assert_true(buf[i] == 0x7f); /* wrote only n bytes */
    memcpy(out, buf, n);
    out[n] = '\0';
    if (!round_trips(out, v)) fail_msg("%.17g -> \"%s\" does not round-trip", v, out);
    if (!redis_accepts(out)) fail_msg("Redis would reject \"%s\"", out);
    parsed p;
    if (isinf(v)) {
        assert_string_equal(out, v > 0 ? "inf" : "-inf");
        memset(&p, 0, sizeof p);
        return p;
    }
    if (!parse_output(out, &p)) fail_msg("%.17g -> malformed \"%s\"", v, out);
    assert_true((out[0] == '-') == (signbit(v) != 0));
    if (v != 0) {
        assert_true(p.n >= 1 && p.n <= 17);
        if (p.sci != (p.x < -4 || p.x >= 17)) fail_msg("%.17g -> \"%s\": wrong layout", v, out);
    }
    if (v == floor(v) && fabs(v) <= 9007199254740992.0) {
        char want[32];
        snprintf(want, sizeof want, "%.0f", v);
        if (strcmp(out, want) != 0) fail_msg("integer %s -> \"%s\"", want, out);
    }
    return p;
}

/* Significant digits and exponent of the correctly rounded precision-p rendering of v. */
static parsed printf_digits(double v, int p) {
    char buf[64];
    snprintf(buf, sizeof buf, "%.*e", p - 1, fabs(v));
    parsed d;
    memset(&d, 0, sizeof d);
    const char *e = strchr(buf, 'e');
    size_t n = 0;
    for (const char *c = buf; c < e; c++) {
        if (*c != '.') d.digits[n++] = *c;
    }
    while (n > 1 && d.digits[n - 1] == '0') n--;
    d.digits[n] = '\0';
    d.n = n;
    d.x = atoi(e + 1);
    return d;
}

static bool printf_round_trips(double v, int p) {
    char buf[400]; /* gcc cannot see that p <= 17 */
    snprintf(buf, sizeof buf, "%.*g", p, v);
    return round_trips(buf, v);
}

static bool is_power_of_two(double v) {
    return (to_bits(v) & ((UINT64_C(1) << 52) - 1)) == 0;
}

/* Our digits are the correctly rounded ones whenever their count is printf's minimum. */
static void expect_printf_digits(double v, const parsed *p, const char *out) {
    const parsed want = printf_digits(v, (int)p->n);
    if (strcmp(want.digits, p->digits) != 0 || want.x != p->x) {
        fail_msg("%.17g -> \"%s\", printf rounds to %se%d", v, out, want.digits, want.x);
    }
}

/* No decimal with n-1 significant digits round-trips: it suffices to try the nearest one on each
 * side of v on the (n-1)-digit grid of v's decade, taken from the exact expansion. */
static void expect_no_shorter(double v, size_t n, const char *out) {
    if (n <= 1) return;
    char exact[800];
    snprintf(exact, sizeof exact, "%.770e", fabs(v)); /* exact: a double has < 770 digits */
    const char *e = strchr(exact, 'e');
    const int y = atoi(e + 1);
    uint64_t m = (uint64_t)(exact[0] - '0');
    for (size_t i = 1; i < n - 1; i++) m = m * 10 + (uint64_t)(exact[1 + i] - '0');
    const int grid = y - (int)(n - 2);
    for (uint64_t cand = m; cand <= m + 1; cand++) {
        char text[48];
        snprintf(text, sizeof text, "%s%llue%d", v < 0 ? "-" : "", (unsigned long long)cand, grid);
        if (round_trips(text, v)) fail_msg("%.17g -> \"%s\" but \"%s\" is shorter", v, out, text);
    }
}

static void check_full(double v) {
    char out[RG_DOUBLE_MAX_LEN + 1];
    const parsed p = format_checked(v, out);
    if (v == 0 || isinf(v)) return;
    int pmin = 1;
    while (pmin < 17 && !printf_round_trips(v, pmin)) pmin++;
    if ((int)p.n > pmin) fail_msg("%.17g -> \"%s\" but %%.%dg round-trips", v, out, pmin);
    if ((int)p.n == pmin) expect_printf_digits(v, &p, out);
    if ((int)p.n < pmin) assert_true(is_power_of_two(v));
    expect_no_shorter(v, p.n, out);
}

static void check_quick(double v) {
    char out[RG_DOUBLE_MAX_LEN + 1];
    const parsed p = format_checked(v, out);
    if (v == 0) return;
    if (p.n > 1 && printf_round_trips(v, (int)p.n - 1)) {
        fail_msg("%.17g -> \"%s\" but %%.%zug round-trips", v, out, p.n - 1);
    }
    char same_len[400]; /* gcc cannot see that n <= 17 */
    snprintf(same_len, sizeof same_len, "%.*g", (int)p.n, v);
    if (round_trips(same_len, v)) { /* %g drops trailing zeros, so it parses like ours */
        parsed want;
        assert_true(parse_output(same_len, &want));
        if (strcmp(want.digits, p.digits) != 0 || want.x != p.x) {
            fail_msg("%.17g -> \"%s\", printf rounds to \"%s\"", v, out, same_len);
        }
    } else {
        assert_true(is_power_of_two(v)); /* the lopsided interval: the full check applies */
        check_full(v);
    }
}

/* ---- fixed expectations --------------------------------------------------------------------- */

static void expect_text(double v, const char *want) {
    char out[RG_DOUBLE_MAX_LEN + 1];
    const size_t n = rg_fmt_double(out, v);
    out[n] = '\0';
    if (strcmp(out, want) != 0) fail_msg("%.17g -> \"%s\", want \"%s\"", v, out, want);
}

static void test_known_values(void **state) {
    (void)state;
    static const struct {
        double v;
        const char *text;
    } cases[] = {
        {0.0, "0"},
        {-0.0, "-0"},
        {1, "1"},
        {-1, "-1"},
        {0.5, "0.5"},
        {0.1, "0.1"},
        {0.3, "0.3"},
        {0.1 + 0.2, "0.30000000000000004"},
        {1.0 / 3, "0.3333333333333333"},
        {2.0 / 3, "0.6666666666666666"},
        {100, "100"},
        {123.456, "123.456"},
        {1234.5, "1234.5"},
        {-1.25e-5, "-1.25e-05"},
        {1.5e-7, "1.5e-07"},
        {0.0001, "0.0001"},
        {0.000123456, "0.000123456"},
        {0.00001, "1e-05"},
        {1e15, "1000000000000000"},
        {1e16, "10000000000000000"},
        {1e17, "1e+17"},
        {1e21, "1e+21"},
        {1e22, "1e+22"},
        {1e23, "1e+23"},
        {1e100, "1e+100"},
        {1e300, "1e+300"},
        {1e-300, "1e-300"},
        {2251799813685248.5, "2251799813685248.5"},
        {9007199254740991.0, "9007199254740991"},
        {9007199254740992.0, "9007199254740992"},
        {-9007199254740992.0, "-9007199254740992"},
        {18014398509481988.0, "18014398509481988"},
        {123456789012345680.0, "1.2345678901234568e+17"},
        {9223372036854775808.0, "9.223372036854776e+18"},
        {DBL_EPSILON, "2.220446049250313e-16"},
        {DBL_MAX, "1.7976931348623157e+308"},
        {-DBL_MAX, "-1.7976931348623157e+308"},
        {DBL_MIN, "2.2250738585072014e-308"},
        {-DBL_MIN, "-2.2250738585072014e-308"},              /* RG_DOUBLE_MAX_LEN characters */
        {2.2250738585072009e-308, "2.225073858507201e-308"}, /* greatest subnormal */
        {5e-324, "5e-324"},
        {-5e-324, "-5e-324"},
        {1e-323, "1e-323"},
        {1.5e-323, "1.5e-323"},
        {INFINITY, "inf"},
        {-INFINITY, "-inf"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        expect_text(cases[i].v, cases[i].text);
        check_full(cases[i].v);
    }
    char out[RG_DOUBLE_MAX_LEN];
    assert_int_equal(rg_fmt_double(out, -DBL_MIN), RG_DOUBLE_MAX_LEN);
#ifdef DBL_TRUE_MIN
    expect_text(DBL_TRUE_MIN, "5e-324");
#endif
}

static void test_nan(void **state) {
    (void)state;
    expect_text(NAN, "nan");
    expect_text(-NAN, "nan");
    expect_text(from_bits(0x7ff0000000000001u), "nan"); /* signalling */
    expect_text(from_bits(0xffffffffffffffffu), "nan");
    assert_false(redis_accepts("nan"));
}

/* ---- sweeps with the full check -------------------------------------------------------------- */

static void test_powers_of_two(void **state) {
    (void)state;
    for (int e = -1074; e <= 1023; e++) {
        check_full(ldexp(1.0, e));
        check_full(-ldexp(1.0, e));
    }
}

/* "1e+23", "0.001", "1000": how 10^e must come out. */
static void power_of_ten_text(int e, char *out, size_t cap) {
    if (e < -4 || e >= 17) {
        snprintf(out, cap, "1e%+03d", e);
    } else if (e >= 0) {
        snprintf(out, cap, "1%.*s", e, "0000000000000000");
    } else {
        snprintf(out, cap, "0.%.*s1", -e - 1, "000");
    }
}

static void test_powers_of_ten(void **state) {
    (void)state;
    for (int e = -323; e <= 308; e++) {
        char text[32];
        snprintf(text, sizeof text, "1e%d", e);
        const double v = strtod(text, NULL);
        power_of_ten_text(e, text, sizeof text);
        expect_text(v, text);
        check_full(v);
        check_full(nextafter(v, 0));
        check_full(nextafter(v, INFINITY));
    }
}

static size_t scaled(size_t n) {
    return iterations() >= 2000000 ? n : n / 16;
}

static void test_subnormals(void **state) {
    (void)state;
    const size_t n = scaled(1 << 16);
    const uint64_t top = (UINT64_C(1) << 52) - 1;
    for (uint64_t c = 1; c <= n; c++) {
        check_full(from_bits(c));           /* the smallest */
        check_full(from_bits(top + 1 - c)); /* the greatest, down from DBL_MIN */
        check_full(from_bits(top + 1 + c)); /* the least normal binade */
    }
}

static void test_integers(void **state) {
    (void)state;
    for (int64_t i = -100000; i <= 100000; i++) check_quick((double)i);
    const int64_t two53 = INT64_C(1) << 53;
    const int64_t span = (int64_t)scaled(100000);
    for (int64_t d = -span; d <= span; d++) {
        check_quick((double)(two53 + d));
        check_quick((double)(-two53 + d));
    }
}

/* ---- random sweeps -----------------------------------------------------------------------------
 */

static void test_random_bits(void **state) {
    (void)state;
    uint64_t seed = seed_or(20240601);
    const size_t n = iterations();
    for (size_t i = 0; i < n; i++) {
        const double v = from_bits(splitmix(&seed));
        if (isnan(v)) continue;
        check_quick(v);
    }
    print_message("random bit patterns: %zu checked\n", n);
}

/* Doubles read from short random decimals: ours must be at most that short. Exercises the
 * "one digit shorter" branch and trailing-zero stripping, which random bits rarely reach. */
static void test_random_short_decimals(void **state) {
    (void)state;
    uint64_t seed = seed_or(99);
    const size_t n = iterations() / 10;
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = splitmix(&seed);
        const int ndig = 1 + (int)(r % 17);
        uint64_t m = splitmix(&seed) % 100000000000000000u;
        for (int d = ndig; d < 17; d++) m /= 10;
        const int e = (int)((r >> 8) % 660) - 340;
        char text[48];
        snprintf(text, sizeof text, "%llue%d", (unsigned long long)m, e);
        const double v = strtod(text, NULL);
        if (v == 0 || isinf(v)) continue;
        char out[RG_DOUBLE_MAX_LEN + 1];
        const parsed p = format_checked(v, out);
        size_t src = (size_t)snprintf(text, sizeof text, "%llu", (unsigned long long)m);
        while (src > 1 && text[src - 1] == '0') src--;
        if (p.n > src) fail_msg("\"%s\" reads as %.17g, written \"%s\"", text, v, out);
        check_quick(v);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_values),
        cmocka_unit_test(test_nan),
        cmocka_unit_test(test_powers_of_two),
        cmocka_unit_test(test_powers_of_ten),
        cmocka_unit_test(test_subnormals),
        cmocka_unit_test(test_integers),
        cmocka_unit_test(test_random_short_decimals),
        cmocka_unit_test(test_random_bits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
