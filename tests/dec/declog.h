/* Test support for the decoder: turns rg_reader events into a normalized text log, checks every
 * event against the structural rules of rg_dec.h, and drives a reader over an input cut into
 * pieces the way a real caller would (keep buf[pos..len), append, call again).
 *
 * Shared by the cmocka tests and the fuzz target, so it depends on nothing but the runtime and
 * libc. Test code may allocate; the decoder may not (see dl_decoder_active).
 *
 * Log format, one line per event, as written in the vector files (tests/dec/vectors):
 *     simple "OK" d0 complete        int 42 d1          null bulk d0 complete
 *     array 2 d0                     end array d0 complete
 *     double "1.5" 1.5 d0            verbatim "txt" "hello" d0
 *     str_begin bulk -1 d0           chunks "all chunk bytes joined" d0    str_end bulk d0
 *     error RG_ERR_PROTOCOL at 3: <message>          incomplete
 * STR_CHUNK events are joined into one `chunks` line because chunk boundaries legitimately depend
 * on how the input was split. `incomplete` ends a log whose input stopped inside a value.
 * Lines starting with "!!" are rule violations found by the checker; a correct decoder never
 * produces them.
 */
#ifndef DECLOG_H
#define DECLOG_H

#include "rg_dec.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A growable NUL-terminated string. */
typedef struct dl_str {
    char *p;
    size_t len, cap;
} dl_str;

void dl_str_add(dl_str *s, const char *p, size_t n);
void dl_str_addf(dl_str *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends p[0..n) as a double-quoted C-like literal (\r \n \t \" \\ \xNN). */
void dl_str_quote(dl_str *s, const char *p, size_t n);
/* Appends d as the log writes doubles: inf, -inf, nan, or the shortest text that reads back as d
 * (plain notation when it is not longer than the exponent form). */
void dl_str_double(dl_str *s, double d);
void dl_str_clear(dl_str *s);
void dl_str_free(dl_str *s);

/* Our own names, so that a broken rg_kind_name cannot make every log look fine. */
const char *dl_kind_name(unsigned k);
const char *dl_status_name(unsigned s);

/* Set while control is inside rg_next/rg_feed (and cleared inside their callbacks), so an
 * allocation counter can tell the decoder's allocations from the test's own. */
extern volatile int dl_decoder_active;
/* Incremented by the malloc wrappers of alloc_wrap.c, when linked in. */
extern volatile unsigned long dl_decoder_allocs;

/* How the driver calls the reader. */
enum dl_api {
    DL_NEXT,         /* rg_next in a loop */
    DL_FEED,         /* rg_feed with a callback that never pauses */
    DL_FEED_PAUSE,   /* rg_feed with a callback that pauses after every event */
    DL_BATCH,        /* rg_next_batch, DL_BATCH_MAX events at a time */
    DL_INLINE,       /* rg_feed_inline with a callback that never pauses */
    DL_INLINE_PAUSE, /* rg_feed_inline with a callback that pauses after every event */
    DL_API_COUNT
};

#define DL_BATCH_MAX 3

/* Where the unread bytes sit in the buffer of each call. Each layout is a legal caller. */
enum dl_layout {
    DL_COMPACT, /* buf = the unread bytes, *pos = 0 */
    DL_RETAIN,  /* buf = the whole input so far, *pos = bytes consumed */
    DL_JUNK     /* buf = junk that looks like RESP, then the unread bytes; *pos = the junk length */
};

/* Provides the memory for one call's buffer: n bytes that end right before inaccessible memory
 * (a guard page, or the end of an exact-size heap block under ASan). The previous buffer may be
 * reused. */
typedef struct dl_arena {
    char *(*place)(void *ctx, size_t n);
    void *ctx;
} dl_arena;

/* The deepest nesting the checker models (a reader given frames may nest that deep). */
#define DL_MAX_DEPTH 6000

typedef struct dl_opts {
    const rg_limits *limits; /* NULL for rg_limits_default() */
    enum dl_api api;
    enum dl_layout layout;
    bool recall; /* after RG_NEED_MORE, call again with the same bytes and expect the same */
} dl_opts;

typedef struct dl_result {
    rg_status status;    /* RG_NEED_MORE when the input ran out, else the sticky error */
    uint64_t err_offset; /* when status is an error */
    uint64_t consumed;   /* rg_reader_offset at the end */
    unsigned problems;   /* "!!" lines in the log */
} dl_result;

/* Decodes in[0..n) presented in pieces ending at cuts[0] < cuts[1] < ... < n (each in (0, n)),
 * appending the normalized log to *log. */
dl_result dl_decode(const char *in, size_t n, const size_t *cuts, size_t ncuts, const dl_opts *o,
                    const dl_arena *arena, dl_str *log);

/* Frames lent to the reader: rg_reader_set_stack(frames, n, max_depth) right after its init. */
typedef struct dl_stack {
    rg_frame *frames;
    size_t n;
    uint32_t max_depth;
} dl_stack;

/* dl_decode with a reader given frames (stack NULL: none). */
dl_result dl_decode_deep(const char *in, size_t n, const size_t *cuts, size_t ncuts,
                         const dl_opts *o, const dl_stack *stack, const dl_arena *arena,
                         dl_str *log);

/* The exact-size heap arena (for ASan builds and the fuzz target). */
typedef struct dl_heap_arena {
    char *block;
} dl_heap_arena;
dl_arena dl_heap_arena_make(dl_heap_arena *h);
void dl_heap_arena_free(dl_heap_arena *h);

/* The guard-page arena: cap bytes of read-write memory followed by a PROT_NONE page, so that a
 * read one byte past the input faults even without ASan. */
typedef struct dl_guard_arena {
    char *base;
    size_t cap, map_len;
} dl_guard_arena;
bool dl_guard_arena_init(dl_guard_arena *g, size_t cap);
dl_arena dl_guard_arena_make(dl_guard_arena *g);
void dl_guard_arena_free(dl_guard_arena *g);

/* Deterministic PRNG for reproducible random splits. */
static inline uint64_t dl_rand(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static inline uint64_t dl_hash(const char *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)p[i]) * 0x100000001b3u;
    return h;
}

#endif
