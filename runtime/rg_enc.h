/* respgen runtime: the building blocks of exact-size RESP encoders.
 *
 * Every writer here has a size function that returns exactly the bytes the writer will write, so
 * a caller computes the total first and writes once into one buffer: no realloc, no malloc, no
 * snprintf. Writers take a destination the caller guarantees is large enough and return the end
 * of what they wrote. Generated encoders are sums and sequences of these.
 */
#ifndef RG_ENC_H
#define RG_ENC_H

#include "rg.h"

#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Longest decimal int64 ("-9223372036854775808"). */
#define RG_I64_MAX_LEN 20
/* Longest double as rg_fmt_double writes it ("-2.2250738585072014e-308"). */
#define RG_DOUBLE_MAX_LEN 24
/* Longest bulk header "$<len>\r\n" for a size_t length. */
#define RG_BULK_HEADER_MAX_LEN (1 + 20 + 2)

/* Decimal digits of v: 1..20. Bulk lengths and counts are mostly below 10000: three compares, no
 * division, no memory access. A count-leading-zeros plus power-of-ten table variant was measured
 * (gcc 12 and clang 14, -O2): 15% faster on 20-digit values, but 10-35% slower below 10000 and
 * 3.5x slower per argument in rg_argv_size, so this stays. (rg_fmt_double uses the clz form
 * internally for its 15-17 digit significands.) */
static inline size_t rg_u64_len(uint64_t v) {
    size_t n = 1;
    while (v >= 10000) {
        v /= 10000;
        n += 4;
    }
    return n + (v >= 10) + (v >= 100) + (v >= 1000);
}

/* Characters of v in decimal, sign included. */
static inline size_t rg_i64_len(int64_t v) {
    return v < 0 ? 1 + rg_u64_len(0 - (uint64_t)v) : rg_u64_len((uint64_t)v);
}

/* Write v in decimal at dst (exactly rg_u64_len(v) bytes); returns the end. */
char *rg_put_u64(char *dst, uint64_t v);
/* Write v in decimal at dst (exactly rg_i64_len(v) bytes); returns the end. */
char *rg_put_i64(char *dst, int64_t v);

/* Shortest decimal text that strtod reads back as exactly v and Redis accepts as a double
 * argument. Writes at most RG_DOUBLE_MAX_LEN bytes into dst (no terminating NUL); returns the
 * count.
 *
 * Digits: the fewest significant digits that round-trip; among those, the closest to v.
 * Layout: as printf's %.17g lays out a number, without trailing zeros: plain when the decimal
 * exponent X of the first digit is in -4..16 ("3", "-0", "0.1", "0.0001", "123.25",
 * "10000000000000000"), else d[.ddd]e<sign><at least two digits> ("1e+17", "1.5e-07", "5e-324").
 * So every integer with |v| <= 2^53 is written as an integer, -0.0 is "-0", and the longest
 * output is 24 bytes. +inf is "inf", -inf is "-inf" (Redis accepts both); every NaN is "nan",
 * which strtod reads but Redis rejects as an argument ("value is not a valid float"). Generated
 * encoders refuse a NaN argument (size and encode return 0); a caller of this function or of
 * rg_put_bulk_double that may hold a NaN has to check for it first. */
size_t rg_fmt_double(char *dst, double v);

/* The writers of the pieces every argument has (a bulk's header, its bytes, the array header) are
 * inline, with the rare long cases out of line: an encoder writes one bulk per argument, and a
 * call per bulk cost about as much as the writing (bench/enc/bench_gen.c, out of line -> inline:
 * generated HSET of 10 pairs 89 -> 62 ns, rg_argv_encode of a SET 14.6 -> 12.4 ns). */

/* Copy len bytes (ptr may be NULL when len is 0, which memcpy does not allow); returns the end.
 * Up to 32 bytes, most arguments, are two overlapping fixed-size moves: no call, no loop; the
 * shortest are tested first. */
static inline char *rg_put_bytes(char *dst, const char *bytes, size_t len) {
    if (len <= 16) {
        if (len >= 8) {
            memcpy(dst, bytes, 8);
            memcpy(dst + len - 8, bytes + len - 8, 8);
        } else if (len >= 4) {
            memcpy(dst, bytes, 4);
            memcpy(dst + len - 4, bytes + len - 4, 4);
        } else if (len != 0) {
            dst[0] = bytes[0];
            dst[len / 2] = bytes[len / 2];
            dst[len - 1] = bytes[len - 1];
        }
    } else if (len <= 32) {
        memcpy(dst, bytes, 16);
        memcpy(dst + len - 16, bytes + len - 16, 16);
    } else {
        memcpy(dst, bytes, len);
    }
    return dst + len;
}

static inline char *rg_put_crlf(char *dst) {
    dst[0] = '\r';
    dst[1] = '\n';
    return dst + 2;
}

/* "00" "01" ... "99": two digits per lookup. */
extern const char rg_digit_pairs[200];

/* "$<len>\r\n" only: the header of a bulk whose payload is written (or sent) separately. Lengths
 * below 100 skip the digit count and the digit loop. */
static inline size_t rg_bulk_header_size(size_t len) {
    return 1 + rg_u64_len(len) + 2;
}
static inline char *rg_put_bulk_header(char *dst, size_t len) {
    dst[0] = '$';
    if (len < 10) {
        dst[1] = (char)('0' + len);
        return rg_put_crlf(dst + 2);
    }
    if (len < 100) {
        memcpy(dst + 1, rg_digit_pairs + 2 * len, 2);
        return rg_put_crlf(dst + 3);
    }
    return rg_put_crlf(rg_put_u64(dst + 1, len));
}

/* "$<len>\r\n<bytes>\r\n" */
static inline size_t rg_bulk_size(size_t len) {
    return 1 + rg_u64_len(len) + 2 + len + 2;
}
static inline char *rg_put_bulk(char *dst, const char *bytes, size_t len) {
    return rg_put_crlf(rg_put_bytes(rg_put_bulk_header(dst, len), bytes, len));
}

/* An integer argument as a bulk: "$<n>\r\n<digits>\r\n". */
static inline size_t rg_bulk_i64_size(int64_t v) {
    return rg_bulk_size(rg_i64_len(v));
}
char *rg_put_bulk_i64(char *dst, int64_t v);

/* A double argument as a bulk, in rg_fmt_double's form. Both functions format the number, so an
 * encoder that needs the size of many doubles may format each once into a local
 * char[RG_DOUBLE_MAX_LEN] and use rg_bulk_size / rg_put_bulk instead. */
size_t rg_bulk_double_size(double v);
char *rg_put_bulk_double(char *dst, double v);

/* "*<n>\r\n"; most commands have fewer than 10 words. */
static inline size_t rg_array_header_size(size_t n) {
    return 1 + rg_u64_len(n) + 2;
}
static inline char *rg_put_array_header(char *dst, size_t n) {
    dst[0] = '*';
    if (n < 10) {
        dst[1] = (char)('0' + n);
        return rg_put_crlf(dst + 2);
    }
    return rg_put_crlf(rg_put_u64(dst + 1, n));
}

/* Copy n constant bytes (a precomputed literal) and return the end. */
static inline char *rg_put_raw(char *dst, const char *bytes, size_t n) {
    memcpy(dst, bytes, n);
    return dst + n;
}

/* Generic encoder for commands without a spec: a RESP array of argc bulk strings.
 * rg_argv_size returns the exact size; rg_argv_encode writes it into dst and returns the count,
 * or writes nothing and returns 0 when cap is smaller. argv is borrowed for the call only; a view
 * with len 0 may have a NULL ptr.
 *
 * Invalid input, refused by every rg_argv_* function with 0 (size, scratch size, count written),
 * writing nothing; no request is 0 bytes long, so 0 never means "nothing to send":
 * - a view {NULL, n > 0}: there are no bytes to copy (a failed allocation, a bug upstream);
 * - lengths that sum past SIZE_MAX: views can name the same bytes many times (easily on 32-bit
 *   targets), so this holds even when cap is SIZE_MAX. */
size_t rg_argv_size(size_t argc, const rg_view *argv);
size_t rg_argv_encode(char *dst, size_t cap, size_t argc, const rg_view *argv);

/* Scatter/gather output for large values: the command as a list of pieces to hand to writev()
 * without copying the big payloads.
 *
 * rg_iov is laid out like struct iovec on Linux, the BSDs and macOS (void *iov_base, then size_t
 * iov_len), so there an rg_iov array may be passed to writev() cast to (const struct iovec *);
 * tests/enc static-asserts the layout against <sys/uio.h> on every Unix build. base is const
 * because the encoder never writes through it.
 *
 * Pieces: payloads of at least RG_IOV_COPY_MIN bytes are referenced where the caller keeps them
 * (never copied); everything else (the array header, each "$<len>\r\n", each "\r\n", and the
 * shorter payloads) is written consecutively into the caller's scratch buffer, and each run of
 * scratch bytes between two referenced payloads is one entry. So a command with L referenced
 * payloads has exactly 2L+1 entries, and the entries concatenated are the bytes rg_argv_encode
 * writes.
 *
 * Why 1024: an extra iovec entry costs the kernel a fixed amount, a copy costs per byte. Measured
 * with writev() to an AF_UNIX socket (bench/enc/bench_iov.c), copying a payload into the scratch
 * beats referencing it by 25-50 ns per argument at 1 KiB, breaks even near 2 KiB and loses
 * from 4 KiB on. 1024 keeps the copying side of that line while bounding the scratch at about 1 KiB
 * per argument.
 *
 * The returned count may exceed the system's IOV_MAX (1024 on Linux); send such a list in slices.
 */
#define RG_IOV_COPY_MIN 1024

typedef struct rg_iov {
    const void *base;
    size_t len;
} rg_iov;

/* Entries rg_argv_encode_iov needs at most for argc arguments: 2 * argc + 1 (saturating). */
static inline size_t rg_argv_iov_count(size_t argc) {
    return argc > (SIZE_MAX - 1) / 2 ? SIZE_MAX : 2 * argc + 1;
}

/* Exact scratch bytes rg_argv_encode_iov writes for this argv; 0 for a view {NULL, n > 0} or a
 * scratch size past SIZE_MAX (lengths that only the referenced payloads push past it pass here;
 * rg_argv_encode_iov refuses them). rg_argv_iov_count depends on argc alone: an upper bound. */
size_t rg_argv_iov_scratch_size(size_t argc, const rg_view *argv);

/* Fill iov with the pieces of the command and scratch with its non-referenced bytes. Returns the
 * entry count (>= 1), or 0 without writing anything when iov_cap or scratch_cap is too small or
 * the input is invalid (as for rg_argv_size).
 * The entries point into scratch and into the caller's argv bytes: both must outlive the write. */
size_t rg_argv_encode_iov(rg_iov *iov, size_t iov_cap, char *scratch, size_t scratch_cap,
                          size_t argc, const rg_view *argv);

#ifdef __cplusplus
}
#endif

#endif
