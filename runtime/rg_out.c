/* respgen runtime: reply writers. See rg_out.h. */
#include "rg_out.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

char *rg_out_int(char *dst, int64_t v) {
    *dst++ = ':';
    dst = rg_put_i64(dst, v);
    return rg_put_raw(dst, "\r\n", 2);
}

static char *line(char *dst, char type, const char *text, size_t len) {
    *dst++ = type;
    dst = rg_put_raw(dst, text, len);
    return rg_put_raw(dst, "\r\n", 2);
}

char *rg_out_simple(char *dst, const char *text, size_t len) {
    return line(dst, '+', text, len);
}

char *rg_out_error(char *dst, const char *text, size_t len) {
    return line(dst, '-', text, len);
}

static char *header(char *dst, char type, size_t n) {
    *dst++ = type;
    dst = rg_put_u64(dst, n);
    return rg_put_raw(dst, "\r\n", 2);
}

char *rg_out_verbatim(char *dst, int proto, const char *format, const char *text, size_t len) {
    if (proto < 3) return rg_put_bulk(dst, text, len);
    dst = header(dst, '=', len + 4); /* the format and its ':' count in the length */
    dst = rg_put_raw(dst, format, 3);
    *dst++ = ':';
    dst = rg_put_raw(dst, text, len);
    return rg_put_raw(dst, "\r\n", 2);
}

char *rg_out_array(char *dst, size_t n) {
    return header(dst, '*', n);
}

size_t rg_out_map_size(int proto, size_t pairs) {
    return proto >= 3 ? rg_array_header_size(pairs) : rg_array_header_size(2 * pairs);
}

char *rg_out_map(char *dst, int proto, size_t pairs) {
    return proto >= 3 ? header(dst, '%', pairs) : header(dst, '*', 2 * pairs);
}

size_t rg_out_set_size(int proto, size_t n) {
    (void)proto;
    return rg_array_header_size(n);
}

char *rg_out_set(char *dst, int proto, size_t n) {
    return header(dst, proto >= 3 ? '~' : '*', n);
}

char *rg_out_bool(char *dst, int proto, bool v) {
    if (proto >= 3) return rg_put_raw(dst, v ? "#t\r\n" : "#f\r\n", 4);
    return rg_put_raw(dst, v ? RG_OUT_ONE : RG_OUT_ZERO, 4);
}

size_t rg_out_double_text(char *dst, double v, bool shortest) {
    if (isinf(v)) {
        const size_t n = v > 0 ? 3 : 4;
        memcpy(dst, v > 0 ? "inf" : "-inf", n);
        return n;
    }
    if (shortest) return rg_fmt_double(dst, v);
    /* Redis 7.0's addReplyDouble is snprintf("%.17g"); the C library gives the same digits. */
    char tmp[RG_OUT_DOUBLE_TEXT_MAX + 1];
    const int n = snprintf(tmp, sizeof tmp, "%.17g", v);
    memcpy(dst, tmp, (size_t)n);
    return (size_t)n;
}

size_t rg_out_double_text_size(int proto, size_t text_len) {
    return proto >= 3 ? 1 + text_len + 2 : rg_bulk_size(text_len);
}

char *rg_out_double_from_text(char *dst, int proto, const char *text, size_t text_len) {
    if (proto >= 3) return line(dst, ',', text, text_len);
    return rg_put_bulk(dst, text, text_len);
}

size_t rg_out_double_size(int proto, double v, bool shortest) {
    char text[RG_OUT_DOUBLE_TEXT_MAX];
    return rg_out_double_text_size(proto, rg_out_double_text(text, v, shortest));
}

/* Formatted in place, as rg_put_bulk_double does, rather than into a local buffer and copied:
 * rg_put_bulk's copy has a branch for texts over 32 bytes, which gcc 12 (-O2 -Warray-bounds)
 * flags as reading past such a buffer although a double's text never gets there. In RESP2 the
 * text goes after room for a two-digit length (it takes at most 24 bytes) and a shorter one moves
 * down a byte; both stay within rg_out_double_size. */
char *rg_out_double(char *dst, int proto, double v, bool shortest) {
    if (proto >= 3) {
        *dst = ',';
        return rg_put_crlf(dst + 1 + rg_out_double_text(dst + 1, v, shortest));
    }
    const size_t n = rg_out_double_text(dst + 5, v, shortest);
    if (n < 10) memmove(dst + 4, dst + 5, n);
    return rg_put_crlf(rg_put_bulk_header(dst, n) + n);
}

size_t rg_out_double_or_null_size(int proto, double v) {
    return isnan(v) ? rg_out_null(proto).len : rg_out_double_size(proto, v, false);
}

char *rg_out_double_or_null(char *dst, int proto, double v) {
    if (!isnan(v)) return rg_out_double(dst, proto, v, false);
    const rg_view null = rg_out_null(proto);
    return rg_put_raw(dst, null.ptr, null.len);
}

size_t rg_out_doubles_size(int proto, size_t n, const double *v) {
    size_t total = rg_array_header_size(n);
    for (size_t i = 0; i < n; i++) total += rg_out_double_or_null_size(proto, v[i]);
    return total;
}

char *rg_out_doubles(char *dst, int proto, size_t n, const double *v) {
    dst = header(dst, '*', n);
    for (size_t i = 0; i < n; i++) dst = rg_out_double_or_null(dst, proto, v[i]);
    return dst;
}

size_t rg_out_ints_size(size_t n, const int64_t *v) {
    size_t total = rg_array_header_size(n);
    for (size_t i = 0; i < n; i++) total += rg_out_int_size(v[i]);
    return total;
}

char *rg_out_ints(char *dst, size_t n, const int64_t *v) {
    dst = header(dst, '*', n);
    for (size_t i = 0; i < n; i++) dst = rg_out_int(dst, v[i]);
    return dst;
}

size_t rg_out_bulk_items_size(size_t n, const rg_view *v) {
    size_t total = 0;
    for (size_t i = 0; i < n; i++) total += rg_bulk_size(v[i].len);
    return total;
}

char *rg_out_bulk_items(char *dst, size_t n, const rg_view *v) {
    for (size_t i = 0; i < n; i++) dst = rg_put_bulk(dst, v[i].ptr, v[i].len);
    return dst;
}

size_t rg_out_ldouble_text(char *dst, long double v) {
    if (isinf(v)) { /* spelled out, as Redis does, whatever the C library prints */
        const size_t n = v > 0 ? 3 : 4;
        memcpy(dst, v > 0 ? "inf" : "-inf", n);
        return n;
    }
    const int r = snprintf(dst, RG_OUT_LDOUBLE_TEXT_MAX, "%.17Lf", v);
    size_t n = r > 0 && r < RG_OUT_LDOUBLE_TEXT_MAX ? (size_t)r : 0;
    /* Redis formats into MAX_LONG_DOUBLE_CHARS (5 KiB) and stores an empty string when the text
     * does not fit; no finite IEEE long double is that long, but the rule costs one compare. */
    if (n + 1 > 5 * 1024) return 0;
    if (!memchr(dst, '.', n)) return n; /* NaN: Redis trims only after a '.' */
    while (dst[n - 1] == '0') n--;
    if (dst[n - 1] == '.') n--;
    if (n == 2 && dst[0] == '-' && dst[1] == '0') { /* Redis never replies "-0" */
        dst[0] = '0';
        n = 1;
    }
    return n;
}

size_t rg_out_ldouble_size(long double v) {
    char text[RG_OUT_LDOUBLE_TEXT_MAX];
    return rg_bulk_size(rg_out_ldouble_text(text, v));
}

char *rg_out_ldouble(char *dst, long double v) {
    char text[RG_OUT_LDOUBLE_TEXT_MAX];
    return rg_put_bulk(dst, text, rg_out_ldouble_text(text, v));
}

size_t rg_out_bulks_size(int proto, size_t n, const rg_view *items) {
    size_t total = rg_array_header_size(n);
    const size_t null_len = rg_out_null(proto).len;
    for (size_t i = 0; i < n; i++) total += items[i].ptr ? rg_bulk_size(items[i].len) : null_len;
    return total;
}

char *rg_out_bulks(char *dst, int proto, size_t n, const rg_view *items) {
    const rg_view null = rg_out_null(proto);
    dst = header(dst, '*', n);
    for (size_t i = 0; i < n; i++) {
        dst = items[i].ptr ? rg_put_bulk(dst, items[i].ptr, items[i].len)
                           : rg_put_raw(dst, null.ptr, null.len);
    }
    return dst;
}
