/* Allocation counting for the benchmarks: while g_count_allocs is non-zero, every malloc, calloc
 * and realloc of the process (hiredis' included) adds one to g_allocs. The counter is process
 * state by nature: it stands in for the allocator, which is process-global itself. */
#ifndef BENCH_ALLOC_COUNT_H
#define BENCH_ALLOC_COUNT_H

#include <stdint.h>

extern volatile int g_count_allocs;
extern uint64_t g_allocs;

/* 0 when the build cannot interpose the allocator (the sanitizers own it): counts stay 0. */
#ifdef BENCH_NO_MALLOC_HOOK
#define BENCH_ALLOC_COUNTING 0
#else
#define BENCH_ALLOC_COUNTING 1
#endif

#endif
