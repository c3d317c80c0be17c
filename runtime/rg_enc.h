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

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* Keeps a function out of line where the compiler knows how (generated encoders: the general path
 * of a command with a fixed-shape path, so that the fast path saves no registers); elsewhere
 * nothing, which costs only speed. */
#if defined(__GNUC__) || defined(__clang__)
#define RG_NOINLINE __attribute__((noinline))
#else
#define RG_NOINLINE
#endif

/* The general path (any options) of a generated command that also has a fixed-shape path for
 * opts == NULL (SET k v, against SET k v EX 100 NX), _pipe_write_opts: out of line, so that the
 * fast path saves no registers, and cold, so that gcc compiles it for size (it then inlines few
 * helpers) and places it in .text.unlikely. Why: those 106 functions were most of the full Redis
 * set's code and compile time (docs/bench-encoder.md, "Cold option paths": redis.c, gcc 12 -O2, 3.8
 * -> 3.0 s and 213 -> 178 KB; as RG_NOINLINE, 3.6 s and 215 KB). In a source file generated
 * without --iov, the general path is now an op table interpreted by rg_ops_pipe_write (below, "op
 * tables"), and _pipe_write_opts only fills a struct and calls it: there RG_OPTS_PATH changes
 * little. With --iov, _pipe_write_opts is the command's measure and put code, and the cost of cold
 * under gcc is that a request with options takes 1.3x the instructions and 1.5x the time (SET k v
 * EX 100: 353 -> 472 instructions, 15 -> 22 ns); clang still inlines into cold functions, and
 * costs nothing measurable. For full speed there, compile the generated .c with
 * -DRG_OPTS_PATH=RG_NOINLINE (out of line, not cold), or define RG_OPTS_PATH before including
 * rg_enc.h. Commands with options but no fixed-shape path keep their one _pipe_write hot: it is
 * their only path (cold: another 0.1 s and 12 KB less). */
#ifndef RG_OPTS_PATH
#if defined(__GNUC__) || defined(__clang__)
#define RG_OPTS_PATH __attribute__((noinline, cold))
#else
#define RG_OPTS_PATH
#endif
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
 * internally for its 15-17 digit significands.) From 10000 on, the division loop is out of line:
 * inline, every encoder kept its constant and registers for it (bench/enc: E1 160 -> 154,
 * E3 1,150 -> 1,097, E4 10,153 -> 9,946 instructions a request). */
size_t rg_u64_len_long(uint64_t v); /* rg_u64_len for v >= 10000 */
static inline size_t rg_u64_len(uint64_t v) {
    if (v >= 10000) return rg_u64_len_long(v);
    return 1 + (size_t)(v >= 10) + (v >= 100) + (v >= 1000);
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
/* rg_put_bulk_i64 with 0-9999 (seconds, counts, limits) inline: the writer of option words
 * (rg_ops_words and the generated <command>_words), where SET k v EX 100 spent a quarter of its
 * instructions in the general one's calls. */
static inline char *rg_put_bulk_i64_short(char *dst, int64_t v) {
    if ((uint64_t)v >= 10000) return rg_put_bulk_i64(dst, v);
    unsigned u = (unsigned)v;
    const unsigned n = 1 + (u >= 10) + (u >= 100) + (u >= 1000);
    dst[0] = '$';
    dst[1] = (char)('0' + n);
    char *const end = rg_put_crlf(dst + 2) + n;
    char *q = end;
    if (u >= 100) {
        q -= 2;
        memcpy(q, rg_digit_pairs + 2 * (u % 100), 2);
        u /= 100;
    }
    if (u >= 10) {
        memcpy(q - 2, rg_digit_pairs + 2 * u, 2);
    } else {
        q[-1] = (char)('0' + u);
    }
    return rg_put_crlf(end);
}

/* A double argument as a bulk, in rg_fmt_double's form. Both functions format the number, so an
 * encoder that needs the size of many doubles may format each once into a local
 * char[RG_DOUBLE_MAX_LEN] and use rg_bulk_size / rg_put_bulk instead. */
size_t rg_bulk_double_size(double v);
char *rg_put_bulk_double(char *dst, double v);

/* "*<n>\r\n"; most commands have fewer than 10 words, requests with options or a few pairs
 * fewer than 100 (two digits from the table, not a call: bench/enc E6-E8 send 10 words). */
static inline size_t rg_array_header_size(size_t n) {
    return 1 + rg_u64_len(n) + 2;
}
static inline char *rg_put_array_header(char *dst, size_t n) {
    dst[0] = '*';
    if (n < 10) {
        dst[1] = (char)('0' + n);
        return rg_put_crlf(dst + 2);
    }
    if (n < 100) {
        memcpy(dst + 1, rg_digit_pairs + 2 * n, 2);
        return rg_put_crlf(dst + 3);
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

/* A pipeline: many requests encoded back to back into one buffer, to be sent with one write.
 * Generated <prefix>_<command>_append(p, args) functions measure each request once, check (and
 * when owned, grow) the room once and write it in place, all in one call of the command's
 * _pipe_write; rg_pipe_append_argv does the same for commands outside any spec.
 *
 * The buffer is the caller's (rg_pipe_init: borrowed for the pipe's life, never grown, an append
 * that does not fit is refused) or the pipe's own (rg_pipe_init_owned: malloc'd, doubled when
 * short, released by rg_pipe_free). buf[0..len) holds count complete requests; the caller sends
 * them and calls rg_pipe_reset to reuse the buffer. Arguments must not point into the pipe's own
 * buffer (growing moves it). Members are read-only for callers. */
typedef struct rg_pipe {
    char *buf;
    size_t len;
    size_t cap;
    size_t count;
    bool owned;
} rg_pipe;

/* Over the caller's buf of cap bytes (buf may be NULL only when cap is 0: a pipe that measures,
 * as C_size does); the pipe never grows nor frees it. Inline: a pipe made for one request costs a
 * few stores. */
static inline void rg_pipe_init(rg_pipe *p, char *buf, size_t cap) {
    *p = (rg_pipe){.buf = buf, .cap = cap};
}
/* Over a buffer of at least cap bytes (at least 64) that the pipe allocates and owns; false when
 * the allocation fails (the pipe is then empty and rg_pipe_free is a no-op on it). */
bool rg_pipe_init_owned(rg_pipe *p, size_t cap);
/* Releases an owned buffer; the pipe is then empty with no room. */
void rg_pipe_free(rg_pipe *p);
/* Forgets the requests (len = count = 0), keeping the buffer. */
static inline void rg_pipe_reset(rg_pipe *p) {
    p->len = 0;
    p->count = 0;
}
static inline char *rg_pipe_end(const rg_pipe *p) {
    return p->buf + p->len;
}
static inline size_t rg_pipe_room(const rg_pipe *p) {
    return p->cap - p->len;
}
/* Makes room for n more bytes: true when there is; false for a borrowed buffer that is too
 * small or an owned one that cannot grow (allocation failed, or the size would wrap). */
bool rg_pipe_reserve(rg_pipe *p, size_t n);
/* Whether n more bytes fit, after growing an owned pipe when they do not: what generated C_write
 * checks between measuring a request and writing it. Inline, and a borrowed pipe that is short
 * (C_size's) returns without a call. */
static inline bool rg_pipe_fits(rg_pipe *p, size_t n) {
    return n <= rg_pipe_room(p) || (p->owned && rg_pipe_reserve(p, n));
}
/* Adds a request of n bytes just written at rg_pipe_end (n <= room; 0: nothing written, no
 * request). Returns n. */
static inline size_t rg_pipe_commit(rg_pipe *p, size_t n) {
    p->len += n;
    p->count += n != 0;
    return n;
}
/* Appends rg_argv_encode's request; returns its size, or 0 and appends nothing (invalid argv,
 * or no room). */
size_t rg_pipe_append_argv(rg_pipe *p, size_t argc, const rg_view *argv);

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

/* ---- measuring: what generated encoders sum in one pass before writing ------------------------
 * A request's word count (for the array header), bytes, and for the iovec form the caller's
 * strings it would point at instead of copying (those of at least RG_IOV_COPY_MIN bytes, as
 * rg_argv_encode_iov does). bad: an argument was invalid; the request is refused.
 * Inline: a call per argument cost as much as the measuring (bench/enc, docs/bench-encoder.md).
 * Out-of-line copies for option code were tried and dropped: redis.c kept its size and compile
 * time (the code of a command is its structure: literals, choices, loops, not these calls). */

/* Doubles formatted once: a command's general path measures, then writes, and a double it
 * formatted to measure it was formatted again to write it (rg_fmt_double: about 190 instructions,
 * a third of bench/enc E6, ZADD of 3 scores). Measuring (rg_meas_double, when the measure struct
 * points here) keeps the text of the first RG_DBLS_MAX doubles, and writing
 * (rg_put_bulk_double_kept) takes them back in the same order; later ones are formatted twice, as
 * before. Lives on the stack of the command's _pipe_write. */
#define RG_DBLS_MAX 16

typedef struct rg_dbls {
    size_t n;    /* doubles kept */
    size_t next; /* the next one to write */
    unsigned char len[RG_DBLS_MAX];
    char text[RG_DBLS_MAX][RG_DOUBLE_MAX_LEN];
} rg_dbls;

typedef struct rg_meas {
    size_t argc;
    size_t bytes;
    size_t views;
    size_t payload;
    bool bad;
    rg_dbls *dbls; /* where doubles are kept, or NULL (rg_meas_keep) */
} rg_meas;

/* Starts with the words and bytes every request of the command has. */
static inline void rg_meas_start(rg_meas *m, size_t argc, size_t bytes) {
    *m = (rg_meas){.argc = argc, .bytes = bytes};
}
/* Keeps the doubles measured from now on in k, empty until then. */
static inline void rg_meas_keep(rg_meas *m, rg_dbls *k) {
    k->n = 0;
    k->next = 0;
    m->dbls = k;
}
/* Adds to the size; a sum that would wrap (views may name the same bytes many times) makes the
 * request invalid instead. Tested after the add: it wrapped exactly when the sum is below what was
 * added (bench/enc E7: 16 instructions fewer than testing the room before). */
static inline void rg_meas_add(rg_meas *m, size_t bytes) {
    m->bytes += bytes;
    m->bad |= m->bytes < bytes;
}
/* Constant words. */
static inline void rg_meas_lit(rg_meas *m, size_t argc, size_t bytes) {
    m->argc += argc;
    rg_meas_add(m, bytes);
}
/* A caller's string as a bulk. Refused: a view without bytes ({NULL, n > 0}), so no writer reads
 * through NULL, and a length no object has (the check keeps rg_bulk_size from wrapping). The test
 * sees either as a top bit (ptr - 1 wraps for NULL): one branch per view, almost never taken, and
 * the exact check behind it, for pointers that have the top bit set (tagged, 32-bit). bench/enc,
 * E4, per view: +2 instructions; two tests cost +2.5, flags computed without a branch +5. */
static inline void rg_meas_view(rg_meas *m, rg_view v) {
    m->argc++;
    if ((((uintptr_t)v.ptr - 1) | v.len) > SIZE_MAX / 2) {
        m->bad |= v.ptr ? v.len > SIZE_MAX / 2 : v.len != 0;
    }
    rg_meas_add(m, rg_bulk_size(v.len));
    if (v.len < RG_IOV_COPY_MIN) return;
    m->views++;
    m->payload += v.len;
}
/* A string the spec bounds with max_len: longer ones are refused, so the MAX_SIZE macros hold. */
static inline void rg_meas_view_max(rg_meas *m, rg_view v, size_t max_len) {
    if (v.len > max_len) m->bad = true;
    rg_meas_view(m, v);
}
static inline void rg_meas_i64(rg_meas *m, int64_t v) {
    m->argc++;
    rg_meas_add(m, rg_bulk_i64_size(v));
}
/* NaN is refused: Redis rejects "nan" ("value is not a valid float"); v != v holds only for NaN.
 * +-inf pass: Redis takes "inf" and "-inf". */
static inline void rg_meas_double(rg_meas *m, double v) {
    m->argc++;
    m->bad |= v != v;
    rg_dbls *const k = m->dbls;
    if (k && k->n < RG_DBLS_MAX) {
        const size_t len = rg_fmt_double(k->text[k->n], v);
        k->len[k->n++] = (unsigned char)len;
        rg_meas_add(m, rg_bulk_size(len));
        return;
    }
    rg_meas_add(m, rg_bulk_double_size(v));
}
/* The next double as a bulk: the text measuring kept, or formatted now. */
static inline char *rg_put_bulk_double_kept(char *dst, rg_dbls *k, double v) {
    if (k->next < k->n) {
        const size_t i = k->next++;
        return rg_put_bulk(dst, k->text[i], k->len[i]);
    }
    return rg_put_bulk_double(dst, v);
}
/* ---- the fixed-shape path: a command's single-word arguments, opts == NULL --------------------
 * Its words and array header are constants; what varies is the size of its few views and numbers.
 * Views of at most RG_FIX_VIEW_MAX bytes (SIZE_MAX / 8: 2^61 - 1 on 64-bit targets, 512 MiB - 1
 * on 32-bit ones, where Redis' own proto-max-bulk-len is 512 MiB by default) cannot make the sum
 * wrap: RG_FIX_VIEWS_MAX of them, each at most RG_FIX_VIEW_MAX + 25 bytes, plus numbers and the
 * constant words stay below SIZE_MAX. So the sum is a plain sum; hi collects what would need a
 * check (a view's length, and ptr - 1: all ones for NULL), and a request whose hi exceeds
 * RG_FIX_VIEW_MAX (a view {NULL, n > 0}, a longer view, a NaN, a string past its max_len) takes
 * the command's general path, which refuses or encodes it as before. Nothing is refused here, so
 * the bound changes no result. bench/enc E1: the wrap checks and the flag cost 7 instructions a
 * request (154 -> 147). (On 64-bit targets ptr - 1 joins the length in one test: pointers at or
 * above 2^61, tagged ones, also take the general path: correct, slower. 32-bit targets test NULL
 * apart. The generator uses this path for at most RG_FIX_VIEWS_MAX views.) */
#define RG_FIX_VIEW_MAX  (SIZE_MAX / 8)
#define RG_FIX_VIEWS_MAX 7

typedef struct rg_fix {
    size_t bytes;
    size_t hi;
} rg_fix;

static inline void rg_fix_start(rg_fix *f, size_t bytes) {
    *f = (rg_fix){.bytes = bytes};
}
static inline void rg_fix_view(rg_fix *f, rg_view v) {
#if UINTPTR_MAX > 0xffffffffu
    f->hi |= ((uintptr_t)v.ptr - 1) | v.len;
#else
    f->hi |= v.len | (v.ptr || !v.len ? 0 : SIZE_MAX);
#endif
    f->bytes += rg_bulk_size(v.len);
}
static inline void rg_fix_view_max(rg_fix *f, rg_view v, size_t max_len) {
    f->hi |= v.len > max_len ? SIZE_MAX : 0;
    rg_fix_view(f, v);
}
static inline void rg_fix_i64(rg_fix *f, int64_t v) {
    f->bytes += rg_bulk_i64_size(v);
}
static inline void rg_fix_double(rg_fix *f, double v) {
    f->hi |= v != v ? SIZE_MAX : 0;
    f->bytes += rg_bulk_double_size(v);
}
/* Whether the request takes the fixed-shape path: then f->bytes is its size. */
static inline bool rg_fix_ok(const rg_fix *f) {
    return f->hi <= RG_FIX_VIEW_MAX;
}

/* A constant bulk chosen at run time; a NULL one is a choice outside its enum. */
static inline void rg_meas_bulk(rg_meas *m, rg_view bulk) {
    if (!bulk.ptr) m->bad = true;
    rg_meas_lit(m, 1, bulk.len);
}
/* The request size, or 0 when an argument was invalid. */
static inline size_t rg_meas_total(const rg_meas *m) {
    return m->bad ? 0 : m->bytes;
}
/* As rg_meas_total, for commands whose word count, and so array header, varies. */
static inline size_t rg_meas_total_array(const rg_meas *m) {
    const size_t header = rg_array_header_size(m->argc);
    return m->bad || header > SIZE_MAX - m->bytes ? 0 : m->bytes + header;
}
/* A constant bulk chosen at run time (rg_meas_bulk measured it). Its length is not a constant,
 * so rg_put_raw's memcpy would be a call: a choice's bulk is short, two moves. */
static inline char *rg_put_bulk_lit(char *dst, rg_view bulk) {
    return rg_put_bytes(dst, bulk.ptr, bulk.len);
}

/* ---- op tables: the general path of a generated command as data --------------------------------
 * Why: a command's option path compiled from its own measure and put code (oneof switches, loops,
 * blocks, each twice) was 30% of the compile time of the full Redis set's redis.c, for the rare
 * request with options. As a table of these ops, interpreted by rg_ops_pipe_write, the compiler
 * sees constants instead of code. The interpreter measures with exactly the rg_meas_* rules above
 * (the same refusals: a view {NULL, n > 0}, a string past its max_len, a NaN, a choice outside its
 * enum, the spec's checks) and writes exactly what generated put code writes.
 *
 * A table is a static const array the generator emits (the RG_OP_* macros below), read-only and
 * owned by the generated file. Its first op is RG_OP_COMMAND or RG_OP_TYPE: how many ops follow;
 * ops with a body (IF, EACH, CASE, SWITCH) are followed by it, n ops long. An op finds its value
 * at offset off from one of three bases: the command's required arguments (a struct the generated
 * function fills), its options (may be NULL: every op that reads them is under RG_OP_IF_OPTS,
 * except COUNT, which reads 0 then) or the value a type's table describes (a block or oneof,
 * RG_OP_CALL). With RG_OP_ELEM, the member at off is a list pointer and the value is its element i
 * (the index of the enclosing EACH) of aux bytes. Values are read as the C types the generated
 * structs declare them (rg_view, int64_t, double, size_t, a list pointer); enums and bools, whose
 * size the compiler picks, by their size (1, 2, 4 or 8 bytes) through memcpy. */
typedef enum rg_op_code {
    RG_OP_END_,    /* never in a table; keeps 0 out of the codes */
    RG_OP_HEAD,    /* first op: n ops follow */
    RG_OP_LITERAL, /* constant bytes ptr, n long: aux words */
    RG_OP_BULK,    /* an rg_view as a bulk, at most n bytes */
    RG_OP_INT,     /* an int64_t as a bulk */
    RG_OP_NUM,     /* a size_t count as an integer bulk (0 without opts) */
    RG_OP_DOUBLE,  /* a double as a bulk */
    RG_OP_CHOICE,  /* an enum of size bytes: its bulk in the rg_view table ptr, n entries */
    RG_OP_TABLE,   /* a block or oneof: the table ptr with that value as base RG_OP_VALUE */
    RG_OP_IF,      /* the body when test holds */
    RG_OP_CHECK,   /* measuring: invalid when test holds; RG_OP_STOP: measuring this table stops */
    RG_OP_EACH,    /* the body for each element i < the size_t count at off */
    RG_OP_SWITCH,  /* a oneof: the CASE (label aux) of its kind; none: invalid (n ops of cases) */
    RG_OP_CASE,    /* an alternative, n ops; off ops from it to the end of its SWITCH */
} rg_op_code;

/* Where an op's value is (rg_op.base). */
typedef enum rg_op_base { RG_OP_REQ, RG_OP_OPTS, RG_OP_VALUE } rg_op_base;

/* The tests of IF and CHECK (rg_op.test). */
typedef enum rg_op_test {
    RG_TEST_OPTS,     /* opts != NULL */
    RG_TEST_VIEW,     /* the rg_view is given: ptr or len (so that {NULL, n > 0} is refused) */
    RG_TEST_NONZERO,  /* the enum, oneof kind or bool (size bytes) is not 0 (none, false) */
    RG_TEST_NONEMPTY, /* the size_t count is above 0 */
    RG_TEST_EMPTY,    /* the size_t count is 0 */
    RG_TEST_NULL,     /* the list pointer is NULL */
    RG_TEST_NULL_LIST /* the list pointer is NULL and the size_t count at aux is not 0 */
} rg_op_test;

/* rg_op.flags */
#define RG_OP_ELEM  1u /* the value is element i of the list at off, aux bytes each */
#define RG_OP_STOP  2u /* CHECK: what follows would read through NULL */
#define RG_OP_ARRAY 4u /* HEAD of a command whose word count varies: an array header first */

/* 32 bytes on 64-bit targets (the full Redis set has about 1,200 ops). off and aux hold struct
 * offsets, element sizes, word counts and enum labels: below 4 GiB (a constant that is not would
 * be a compile-time conversion error of the generated table, not a silent wrap). */
typedef struct rg_op {
    unsigned char code;  /* rg_op_code */
    unsigned char base;  /* rg_op_base */
    unsigned char test;  /* rg_op_test */
    unsigned char flags; /* RG_OP_* flags */
    unsigned char size;  /* bytes of an enum, kind or bool value */
    uint32_t off;        /* where the value is in its base; CASE: ops to the end of its SWITCH */
    uint32_t aux;        /* words (LITERAL), element size (ELEM), count (NULL_LIST), label (CASE) */
    size_t n;            /* ops of the body, bytes (LITERAL), max_len (BULK), entries (CHOICE) */
    const void *ptr;     /* bytes (LITERAL), bulks (CHOICE), table (TABLE) */
} rg_op;

/* Table entries, by base b (RG_OP_REQ, RG_OP_OPTS, RG_OP_VALUE), struct type T and member m. The
 * _EL forms read element i of the list member m. */
#define RG_OP_SIZE_(T, m)   sizeof(((T *)0)->m)
#define RG_OP_STRIDE_(T, m) sizeof(*((T *)0)->m)
#define RG_OP_AT_(b, T, m)  .base = (b), .off = offsetof(T, m)
#define RG_OP_EL_(b, T, m)  RG_OP_AT_(b, T, m), .flags = RG_OP_ELEM, .aux = RG_OP_STRIDE_(T, m)

#define RG_OP_COMMAND(len, fl) \
    { .code = RG_OP_HEAD, .n = (len), .flags = (fl) }
#define RG_OP_TYPE(len) \
    { .code = RG_OP_HEAD, .n = (len) }
#define RG_OP_LIT(s, len, argc) \
    { .code = RG_OP_LITERAL, .ptr = (s), .n = (len), .aux = (argc) }
#define RG_OP_VIEW(b, T, m, max) \
    { .code = RG_OP_BULK, RG_OP_AT_(b, T, m), .n = (max) }
#define RG_OP_VIEW_EL(b, T, m, max) \
    { .code = RG_OP_BULK, RG_OP_EL_(b, T, m), .n = (max) }
#define RG_OP_I64(b, T, m) \
    { .code = RG_OP_INT, RG_OP_AT_(b, T, m) }
#define RG_OP_I64_EL(b, T, m) \
    { .code = RG_OP_INT, RG_OP_EL_(b, T, m) }
#define RG_OP_COUNT(b, T, m) \
    { .code = RG_OP_NUM, RG_OP_AT_(b, T, m) }
#define RG_OP_DBL(b, T, m) \
    { .code = RG_OP_DOUBLE, RG_OP_AT_(b, T, m) }
#define RG_OP_DBL_EL(b, T, m) \
    { .code = RG_OP_DOUBLE, RG_OP_EL_(b, T, m) }
#define RG_OP_ENUM(b, T, m, bulks)                                                           \
    {                                                                                        \
        .code = RG_OP_CHOICE, RG_OP_AT_(b, T, m), .size = RG_OP_SIZE_(T, m), .ptr = (bulks), \
        .n = sizeof(bulks) / sizeof((bulks)[0])                                              \
    }
#define RG_OP_ENUM_EL(b, T, m, bulks)                                                          \
    {                                                                                          \
        .code = RG_OP_CHOICE, RG_OP_EL_(b, T, m), .size = RG_OP_STRIDE_(T, m), .ptr = (bulks), \
        .n = sizeof(bulks) / sizeof((bulks)[0])                                                \
    }
#define RG_OP_CALL(b, T, m, ops) \
    { .code = RG_OP_TABLE, RG_OP_AT_(b, T, m), .ptr = (ops) }
#define RG_OP_CALL_EL(b, T, m, ops) \
    { .code = RG_OP_TABLE, RG_OP_EL_(b, T, m), .ptr = (ops) }
#define RG_OP_IF_OPTS(len) \
    { .code = RG_OP_IF, .test = RG_TEST_OPTS, .n = (len) }
#define RG_OP_IF(t, b, T, m, len) \
    { .code = RG_OP_IF, .test = (t), RG_OP_AT_(b, T, m), .size = RG_OP_SIZE_(T, m), .n = (len) }
#define RG_OP_CHECK(t, b, T, m, fl) \
    { .code = RG_OP_CHECK, .test = (t), RG_OP_AT_(b, T, m), .flags = (fl) }
#define RG_OP_CHECK_NULL_LIST(b, T, m, count, fl)                           \
    {                                                                       \
        .code = RG_OP_CHECK, .test = RG_TEST_NULL_LIST, RG_OP_AT_(b, T, m), \
        .aux = offsetof(T, count), .flags = (fl)                            \
    }
#define RG_OP_EACH(b, T, count, len) \
    { .code = RG_OP_EACH, RG_OP_AT_(b, T, count), .n = (len) }
#define RG_OP_SWITCH(T, len)                                                                 \
    {                                                                                        \
        .code = RG_OP_SWITCH, RG_OP_AT_(RG_OP_VALUE, T, kind), .size = RG_OP_SIZE_(T, kind), \
        .n = (len)                                                                           \
    }
#define RG_OP_CASE(label, len, rest) \
    { .code = RG_OP_CASE, .aux = (label), .n = (len), .off = (rest) }

/* What a generated _pipe_write does with the command whose table is ops (its RG_OP_COMMAND head
 * first): measures the request, and when it is valid and fits (rg_pipe_fits, growing an owned
 * pipe), writes it at the pipe's end. Returns its size (0: invalid, nothing written); the caller
 * commits. req: the command's required arguments (the generated struct the table's offsets are
 * in; NULL without any); opts: its options or NULL. Both are borrowed for the call only. */
size_t rg_ops_pipe_write(rg_pipe *p, const rg_op *ops, const void *req, const void *opts);

/* ---- option words: the fast path of a request with options ------------------------------------
 * A command whose required arguments are single words and whose options all follow them (SET k v
 * EX 100, EXPIRE k 60 NX, ...) sends its constant words, its required arguments, then the words of
 * its options. rg_ops_words writes those option words, as RESP, into w in one walk of the options'
 * part of the command's table, and a shared encoder compiled per argument shape (generated: its
 * <prefix>_shape_..._tail functions) measures the required arguments and writes the whole request
 * with w->bytes copied at its end. Measuring the options is then w->len, and writing them one copy:
 * no second walk. Where the options are flat (no strings, lists or checks), the generator compiles
 * this walk instead (<command>_words) and writes the required arguments itself: SET k v EX 100
 * 872 -> 268 instructions, 1.25x the hand-written encoder (docs/bench-encoder.md, "Option words").
 *
 * rg_ops_words refuses nothing: it returns false for anything it does not take, and the command's
 * general path (rg_ops_pipe_write) then measures and encodes or refuses the request as before.
 * It does not take: option words of more than RG_WORDS_MAX bytes, a view {NULL, n > 0} or past its
 * max_len, a NaN, a choice outside its enum, a oneof of no known kind, a CHECK that holds. So it
 * changes no result, only the speed of the requests it takes. */
#define RG_WORDS_MAX 128

/* The tail shapes: out of line, and hot, as gcc would otherwise compile them for size (their only
 * callers are the cold RG_OPTS_PATH functions). */
#if defined(__GNUC__) || defined(__clang__)
#define RG_WORDS_PATH __attribute__((noinline, hot))
#else
#define RG_WORDS_PATH
#endif

typedef struct rg_words {
    size_t len;  /* bytes of bytes used */
    size_t argc; /* the words they hold */
    char bytes[RG_WORDS_MAX];
} rg_words;

/* Writes into w the option words of the request whose options are opts (NULL: none), ops the
 * command table's RG_OP_IF_OPTS op (its body: the options' ops). Returns whether it could. */
bool rg_ops_words(rg_words *w, const rg_op *ops, const void *opts);

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

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
