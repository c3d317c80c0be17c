/* respgen runtime: reply writers for servers.
 *
 * Like rg_enc.h: every writer has a size function returning exactly what it writes, so a server
 * sizes a whole reply (or a whole pipeline of replies) first and writes it once. Writers take a
 * destination the caller guarantees is large enough and return the end of what they wrote.
 * Replies that differ between RESP2 and RESP3 take the connection's protocol version (2 or 3).
 */
#ifndef RG_OUT_H
#define RG_OUT_H

#include "rg_enc.h"

#include <float.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* Constant replies: static literals, written with rg_put_raw. */
#define RG_OUT_OK        "+OK\r\n"
#define RG_OUT_PONG      "+PONG\r\n"
#define RG_OUT_ZERO      ":0\r\n"
#define RG_OUT_ONE       ":1\r\n"
#define RG_OUT_NULL2     "$-1\r\n"
#define RG_OUT_NULL3     "_\r\n"
#define RG_OUT_NULLARR2  "*-1\r\n"
#define RG_OUT_EMPTYARR  "*0\r\n"
#define RG_OUT_SYNTAX    "-ERR syntax error\r\n"
#define RG_OUT_NOT_INT   "-ERR value is not an integer or out of range\r\n"
#define RG_OUT_NOT_FLOAT "-ERR value is not a valid float\r\n"
#define RG_OUT_WRONGTYPE "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"

/* The null reply of a protocol version: "$-1\r\n" (RESP2) or "_\r\n" (RESP3). */
static inline rg_view rg_out_null(int proto) {
    return proto >= 3 ? RG_LIT(RG_OUT_NULL3) : RG_LIT(RG_OUT_NULL2);
}
/* The null array reply: "*-1\r\n" (RESP2) or "_\r\n" (RESP3). */
static inline rg_view rg_out_null_array(int proto) {
    return proto >= 3 ? RG_LIT(RG_OUT_NULL3) : RG_LIT(RG_OUT_NULLARR2);
}

/* ":<v>\r\n" */
static inline size_t rg_out_int_size(int64_t v) {
    return 1 + rg_i64_len(v) + 2;
}
char *rg_out_int(char *dst, int64_t v);

/* "+<text>\r\n" and "-<text>\r\n". text must hold no CR or LF (the caller's promise). */
static inline size_t rg_out_simple_size(size_t len) {
    return 1 + len + 2;
}
char *rg_out_simple(char *dst, const char *text, size_t len);
char *rg_out_error(char *dst, const char *text, size_t len);

/* "$<len>\r\n<bytes>\r\n": rg_bulk_size / rg_put_bulk from rg_enc.h. */

/* A verbatim string: "=<len + 4>\r\n<format>:<bytes>\r\n" in RESP3, a plain bulk of the bytes
 * in RESP2 (Redis drops the format there). format is exactly 3 bytes: "txt" for INFO, CLIENT
 * LIST and every other verbatim reply of Redis 7.0, "mkd" for markdown. */
static inline size_t rg_out_verbatim_size(int proto, size_t len) {
    return proto >= 3 ? rg_bulk_size(len + 4) : rg_bulk_size(len);
}
char *rg_out_verbatim(char *dst, int proto, const char *format, const char *text, size_t len);

/* Aggregate headers. A map is "%<n>" in RESP3 and an array of 2n elements in RESP2; a set is
 * "~<n>" in RESP3 and an array in RESP2. n counts pairs for maps. */
static inline size_t rg_out_array_size(size_t n) {
    return rg_array_header_size(n);
}
char *rg_out_array(char *dst, size_t n);
size_t rg_out_map_size(int proto, size_t pairs);
char *rg_out_map(char *dst, int proto, size_t pairs);
size_t rg_out_set_size(int proto, size_t n);
char *rg_out_set(char *dst, int proto, size_t n);

/* A boolean: "#t"/"#f" in RESP3, ":1"/":0" in RESP2. */
static inline size_t rg_out_bool_size(int proto) {
    (void)proto;
    return 4; /* "#t\r\n" and ":1\r\n" alike */
}
char *rg_out_bool(char *dst, int proto, bool v);

/* A double as Redis 7.0 replies it (ZSCORE, ZINCRBY, ...): formatted with "%.17g" ("inf",
 * "-inf" for infinities), as a bulk in RESP2 and as ",<text>\r\n" in RESP3. Redis 7.2 and later
 * format the shortest round-trip digits instead: pass shortest = true for that form
 * (rg_fmt_double). The size function formats the number too; a caller sizing and writing the
 * same double may format once with rg_out_double_text and use the _text variants. */
#define RG_OUT_DOUBLE_TEXT_MAX 32
size_t rg_out_double_text(char *dst, double v, bool shortest);
size_t rg_out_double_text_size(int proto, size_t text_len);
char *rg_out_double_from_text(char *dst, int proto, const char *text, size_t text_len);
size_t rg_out_double_size(int proto, double v, bool shortest);
char *rg_out_double(char *dst, int proto, double v, bool shortest);

/* A double or null (ZSCORE): a NaN is the null of the protocol version ("$-1" or "_"), as Redis
 * never stores a NaN score; otherwise rg_out_double in Redis 7.0's form. */
size_t rg_out_double_or_null_size(int proto, double v);
char *rg_out_double_or_null(char *dst, int proto, double v);

/* An array of doubles or nulls (ZMSCORE), each as rg_out_double_or_null writes it. */
size_t rg_out_doubles_size(int proto, size_t n, const double *v);
char *rg_out_doubles(char *dst, int proto, size_t n, const double *v);

/* An array of integers (SMISMEMBER, BITFIELD_RO), the same in both protocol versions. */
size_t rg_out_ints_size(size_t n, const int64_t *v);
char *rg_out_ints(char *dst, size_t n, const int64_t *v);

/* n bulks one after the other, no header: the elements of a map of strings (after
 * rg_out_map, 2 * pairs views: key, value, ...), a set (after rg_out_set) or an array. */
size_t rg_out_bulk_items_size(size_t n, const rg_view *v);
char *rg_out_bulk_items(char *dst, size_t n, const rg_view *v);

/* INCRBYFLOAT's and HINCRBYFLOAT's reply: the new value as Redis 7.0 formats it (ld2string in
 * LD_STR_HUMAN mode), a bulk in both protocol versions. The text is "%.17Lf" with trailing zeros
 * and then a trailing '.' removed, and "-0" replaced by "0": 10.5 is "10.5", 3e3 is "3000",
 * -1e-20 is "0", 1e300 is all 301 integer digits (never an exponent). Infinities are "inf" and
 * "-inf" (Redis refuses to store them: "ERR increment would produce NaN or Infinity"; check before
 * replying). The text of any finite long double fits RG_OUT_LDOUBLE_TEXT_MAX bytes, sign,
 * LDBL_MAX_10_EXP + 1 integer digits, '.', 17 decimals and the C library's NUL included; dst of
 * rg_out_ldouble_text must hold that many (about 4.9 KB with x87 or quad long doubles, so the size
 * and bulk writers below format on the stack: format once with rg_out_ldouble_text and write it
 * with rg_bulk_size / rg_put_bulk when sizing and writing the same value). */
#define RG_OUT_LDOUBLE_TEXT_MAX (LDBL_MAX_10_EXP + 21)
size_t rg_out_ldouble_text(char *dst, long double v);
size_t rg_out_ldouble_size(long double v);
char *rg_out_ldouble(char *dst, long double v);

/* An array of bulks (or nulls where a view's ptr is NULL), e.g. MGET's reply. */
size_t rg_out_bulks_size(int proto, size_t n, const rg_view *items);
char *rg_out_bulks(char *dst, int proto, size_t n, const rg_view *items);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
