/* respgen runtime: exact-size RESP encoder building blocks (contract in rg_enc.h).
 *
 * No allocation and no printf family: every writer knows its length before it writes. The double
 * formatter, rg_fmt_double, is in rg_dtoa.c.
 */
#include "rg_enc.h"
#include "rg_digits.h"

#include <assert.h>
#include <stdbool.h>
#include <stdlib.h>

_Static_assert(SIZE_MAX <= UINT64_MAX, "lengths are written through rg_put_u64");

/* ---- integers ---------------------------------------------------------------------------- */

/* Two digits per division halves the divisions of a digit-at-a-time loop. */
const char rg_digit_pairs[200] =
    "0001020304050607080910111213141516171819202122232425262728293031323334353637383940414243444546"
    "4748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293"
    "949596979899";

/* Exactly 8 digits of v < 10^8, leading zeros included: four independent 32-bit steps instead of
 * a chain of 64-bit divisions. */
static void put_8_digits(char *dst, uint32_t v) {
    const uint32_t hi = v / 10000, lo = v % 10000;
    memcpy(dst, rg_digit_pairs + 2 * (hi / 100), 2);
    memcpy(dst + 2, rg_digit_pairs + 2 * (hi % 100), 2);
    memcpy(dst + 4, rg_digit_pairs + 2 * (lo / 100), 2);
    memcpy(dst + 6, rg_digit_pairs + 2 * (lo % 100), 2);
}

void rg_put_digits_backward(char *end, uint64_t v) {
    while (v >= 100000000) {
        end -= 8;
        put_8_digits(end, (uint32_t)(v % 100000000));
        v /= 100000000;
    }
    uint32_t w = (uint32_t)v;
    while (w >= 100) {
        end -= 2;
        memcpy(end, rg_digit_pairs + 2 * (w % 100), 2);
        w /= 100;
    }
    if (w >= 10) {
        memcpy(end - 2, rg_digit_pairs + 2 * w, 2);
    } else {
        end[-1] = (char)('0' + w);
    }
}

char *rg_put_u64(char *dst, uint64_t v) {
    char *const end = dst + rg_u64_len(v);
    rg_put_digits_backward(end, v);
    return end;
}

char *rg_put_i64(char *dst, int64_t v) {
    if (v >= 0) return rg_put_u64(dst, (uint64_t)v);
    *dst = '-';
    /* Negating in uint64_t is defined for INT64_MIN, where -v is not. */
    return rg_put_u64(dst + 1, 0 - (uint64_t)v);
}

size_t rg_u64_len_long(uint64_t v) {
    size_t n = 1;
    while (v >= 10000) {
        v /= 10000;
        n += 4;
    }
    return n + (v >= 10) + (v >= 100) + (v >= 1000);
}

/* ---- RESP pieces (the per-argument ones are inline in rg_enc.h) ---------------------------- */

/* Counts, limits and seconds, mostly below 10000, by the inline short form: the general form is
 * three calls deep (bench/enc E8, COUNT 10: 100 -> 25 instructions). */
char *rg_put_bulk_i64(char *dst, int64_t v) {
    if ((uint64_t)v < 10000) return rg_put_bulk_i64_short(dst, v);
    return rg_put_crlf(rg_put_i64(rg_put_bulk_header(dst, rg_i64_len(v)), v));
}

size_t rg_bulk_double_size(double v) {
    char text[RG_DOUBLE_MAX_LEN];
    return rg_bulk_size(rg_fmt_double(text, v));
}

char *rg_put_bulk_double(char *dst, double v) {
    /* Formatted in place after room for a one-digit length; a text of 10 or more characters (a
     * double takes at most 24 bytes) then moves up one byte. Both stay within the bulk's size. The
     * short texts ("1.5", "200", "13.361389") move nothing: a call of memmove was a quarter of
     * what this function added to the formatting (bench/enc E8). */
    const size_t n = rg_fmt_double(dst + 4, v);
    if (n >= 10) memmove(dst + 5, dst + 4, n);
    return rg_put_crlf(rg_put_bulk_header(dst, n) + n);
}

/* ---- argv ---------------------------------------------------------------------------------- */

/* "$<len>\r\n" plus the trailing "\r\n": what a bulk adds to its payload. */
static size_t bulk_overhead(size_t len) {
    return rg_bulk_header_size(len) + 2;
}

/* A running size sum that remembers whether it ever wrapped or met a view without bytes
 * ({NULL, n > 0}): one flag, set without a branch (cheaper than saturating each add). */
typedef struct size_sum {
    size_t total;
    bool bad;
} size_sum;

static void sum_add(size_sum *s, size_t n) {
    s->total += n;
    s->bad |= s->total < n;
}

/* A bulk's header, CRLF and, when counted, its payload. The test of ptr is a branch that is
 * almost never taken: cheaper than computing the flag for every view. */
static void sum_arg(size_sum *s, rg_view v, bool payload) {
    if (!v.ptr) s->bad |= v.len != 0;
    sum_add(s, bulk_overhead(v.len));
    if (payload) sum_add(s, v.len);
}

static size_t sum_result(size_sum s) {
    return s.bad ? 0 : s.total;
}

size_t rg_argv_size(size_t argc, const rg_view *argv) {
    size_sum s = {rg_array_header_size(argc), false};
    for (size_t i = 0; i < argc; i++) sum_arg(&s, argv[i], true);
    return sum_result(s);
}

size_t rg_argv_encode(char *dst, size_t cap, size_t argc, const rg_view *argv) {
    const size_t size = rg_argv_size(argc, argv);
    if (size > cap || size == 0) return 0;
    char *p = rg_put_array_header(dst, argc);
    for (size_t i = 0; i < argc; i++) p = rg_put_bulk(p, argv[i].ptr, argv[i].len);
    assert((size_t)(p - dst) == size);
    return size;
}

/* ---- argv as iovecs ------------------------------------------------------------------------ */

static bool iov_referenced(size_t len) {
    return len >= RG_IOV_COPY_MIN;
}

size_t rg_argv_iov_scratch_size(size_t argc, const rg_view *argv) {
    size_sum s = {rg_array_header_size(argc), false};
    for (size_t i = 0; i < argc; i++) sum_arg(&s, argv[i], !iov_referenced(argv[i].len));
    return sum_result(s);
}

/* Entries for argv: one scratch run, plus two per referenced payload (it and the run after it). */
static size_t iov_entries(size_t argc, const rg_view *argv) {
    size_t n = 1;
    for (size_t i = 0; i < argc; i++) n += 2 * iov_referenced(argv[i].len);
    return n;
}

/* Writes the scratch runs and payload references; the caller checked both capacities. */
typedef struct iov_writer {
    rg_iov *iov;     /* next entry */
    char *run_start; /* start of the scratch run not yet closed into an entry */
    char *p;         /* scratch write position */
} iov_writer;

static void iov_close_run(iov_writer *w) {
    *w->iov++ = (rg_iov){w->run_start, (size_t)(w->p - w->run_start)};
    w->run_start = w->p;
}

static void iov_put_arg(iov_writer *w, rg_view arg) {
    w->p = rg_put_bulk_header(w->p, arg.len);
    if (iov_referenced(arg.len)) {
        iov_close_run(w);
        *w->iov++ = (rg_iov){arg.ptr, arg.len};
    } else {
        w->p = rg_put_bytes(w->p, arg.ptr, arg.len);
    }
    w->p = rg_put_crlf(w->p);
}

size_t rg_argv_encode_iov(rg_iov *iov, size_t iov_cap, char *scratch, size_t scratch_cap,
                          size_t argc, const rg_view *argv) {
    const size_t scratch_size = rg_argv_iov_scratch_size(argc, argv);
    if (scratch_size > scratch_cap || scratch_size == 0) return 0;
    /* A total that wraps means more payload than memory even though the scratch fits. */
    if (rg_argv_size(argc, argv) == 0) return 0;
    const size_t entries = iov_entries(argc, argv);
    if (entries > iov_cap) return 0;

    iov_writer w = {iov, scratch, scratch};
    w.p = rg_put_array_header(w.p, argc);
    for (size_t i = 0; i < argc; i++) iov_put_arg(&w, argv[i]);
    iov_close_run(&w);
    assert((size_t)(w.p - scratch) == scratch_size && (size_t)(w.iov - iov) == entries);
    return entries;
}

/* ---- pipelines ------------------------------------------------------------------------------ */

enum { RG_PIPE_MIN_CAP = 64 };

bool rg_pipe_init_owned(rg_pipe *p, size_t cap) {
    if (cap < RG_PIPE_MIN_CAP) cap = RG_PIPE_MIN_CAP;
    *p = (rg_pipe){.buf = malloc(cap), .owned = true};
    if (!p->buf) return false;
    p->cap = cap;
    return true;
}

void rg_pipe_free(rg_pipe *p) {
    if (p->owned) free(p->buf);
    *p = (rg_pipe){.owned = p->owned};
}

/* Doubles until n more bytes fit: appends of growing sizes cost amortised O(1) copies. */
bool rg_pipe_reserve(rg_pipe *p, size_t n) {
    if (n <= p->cap - p->len) return true;
    if (!p->owned || !p->buf || n > SIZE_MAX - p->len) return false;
    const size_t need = p->len + n;
    size_t cap = p->cap;
    while (cap < need) cap = cap > SIZE_MAX / 2 ? need : 2 * cap;
    char *const buf = realloc(p->buf, cap);
    if (!buf) return false;
    p->buf = buf;
    p->cap = cap;
    return true;
}

size_t rg_pipe_append_argv(rg_pipe *p, size_t argc, const rg_view *argv) {
    const size_t n = rg_argv_size(argc, argv);
    if (n == 0 || !rg_pipe_reserve(p, n)) return 0;
    return rg_pipe_commit(p, rg_argv_encode(rg_pipe_end(p), n, argc, argv));
}
