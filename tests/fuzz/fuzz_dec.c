/* libFuzzer target for the decoder. Each input is decoded whole and then in pieces, under the
 * default limits and under small ones, and every way must give the same normalized event log
 * (declog.h): the same events, joined chunk bytes, and error status, offset and message; and a
 * third time with the default limits and a reader lent frames past its inline ones
 * (rg_reader_set_stack), up to RG_MAX_DEPTH + DEEP_FRAMES levels. The
 * declog checker also rejects any event stream that breaks the rules of rg_dec.h and any view
 * outside the bytes of the call that produced it; ASan catches reads past the input.
 *
 * The input is plain RESP (no control prefix), so seed files are readable and work for any RESP
 * decoder; the split points are derived from the input's first bytes and its hash instead.
 */
#include "declog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Small enough that fuzzed inputs reach every limit. */
static const rg_limits small_limits = {
    .max_depth = 3,
    .max_bulk = 16,
    .max_elements = 6,
    .max_line = 24,
    .stream_min = 5,
};

static void report(const char *what, const char *in, size_t n, const char *how, const char *ref,
                   const char *got) {
    dl_str q = {0};
    dl_str_quote(&q, in, n > 2000 ? 2000 : n);
    fprintf(stderr, "fuzz_dec: %s (%s)\ninput: %s\n--- whole input:\n%s--- this way:\n%s", what,
            how, q.p, ref, got ? got : "");
    dl_str_free(&q);
    abort();
}

/* Frames lent in the third pass: few, so that fuzzed inputs reach the limit they give. */
enum { DEEP_FRAMES = 9 };

static void decode_and_compare(const char *in, size_t n, const rg_limits *lim,
                               const dl_stack *stack, const size_t *cuts, size_t ncuts,
                               enum dl_api api, enum dl_layout layout, const char *ref,
                               const char *how) {
    dl_heap_arena heap;
    dl_arena arena = dl_heap_arena_make(&heap);
    dl_opts o = {lim, api, layout, true};
    dl_str log = {0};
    dl_result r = dl_decode_deep(in, n, cuts, ncuts, &o, stack, &arena, &log);
    dl_heap_arena_free(&heap);
    if (r.problems) report("the checker found a problem", in, n, how, ref, log.p);
    if (strcmp(ref, log.p ? log.p : ""))
        report("the log depends on the split", in, n, how, ref, log.p);
    dl_str_free(&log);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *in = (const char *)data;
    if (size > 1 << 16) return 0;
    uint64_t h = dl_hash(in, size);
    rg_frame frames[DEEP_FRAMES];
    const dl_stack deep = {frames, DEEP_FRAMES, 0};
    for (int pass = 0; pass < 3; pass++) {
        const rg_limits *lim = pass == 1 ? &small_limits : NULL;
        const dl_stack *stack = pass == 2 ? &deep : NULL;
        dl_heap_arena heap;
        dl_arena arena = dl_heap_arena_make(&heap);
        dl_opts o = {lim, DL_NEXT, DL_COMPACT, false};
        dl_str ref = {0};
        dl_result r = dl_decode_deep(in, size, NULL, 0, &o, stack, &arena, &ref);
        dl_heap_arena_free(&heap);
        const char *refp = ref.p ? ref.p : "";
        if (r.problems) report("the checker found a problem", in, size, "whole", refp, NULL);
        if (r.consumed > size)
            report("consumed more than the input", in, size, "whole", refp, NULL);

        if (size >= 2) {
            /* one cut, placed by the first two bytes so a mutation of them moves it */
            size_t cut = 1 + (((size_t)data[0] << 8 | data[1]) ^ (size_t)h) % (size - 1);
            decode_and_compare(in, size, lim, stack, &cut, 1, (enum dl_api)(h % DL_API_COUNT),
                               (enum dl_layout)(h / DL_API_COUNT % 3), refp, "one cut");
        }
        if (size >= 3) {
            size_t a = 1 + (size_t)(h >> 20) % (size - 1), b = 1 + (size_t)(h >> 40) % (size - 1);
            size_t cuts[2] = {a < b ? a : b, a < b ? b : a};
            decode_and_compare(in, size, lim, stack, cuts, a == b ? 1 : 2,
                               h >> 60 & 1 ? DL_INLINE_PAUSE : DL_FEED_PAUSE, DL_JUNK, refp,
                               "two cuts");
            decode_and_compare(in, size, lim, stack, cuts, a == b ? 1 : 2, DL_BATCH,
                               (enum dl_layout)(h >> 61 & 1), refp, "two cuts, batch");
        }
        if (size >= 2 && size <= 256) {
            size_t cuts[256];
            for (size_t i = 1; i < size; i++) cuts[i - 1] = i;
            decode_and_compare(in, size, lim, stack, cuts, size - 1, DL_NEXT,
                               (enum dl_layout)(h % 3), refp, "byte by byte");
        }
        dl_str_free(&ref);
    }
    return 0;
}
