/* See alloc_count.h. glibc exports its allocator under __libc_* names; these definitions in the
 * executable take precedence for every shared library (hiredis) through symbol interposition. */
#include "alloc_count.h"

#include <stddef.h>

volatile int g_count_allocs;
uint64_t g_allocs;

#ifndef BENCH_NO_MALLOC_HOOK
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void __libc_free(void *p);

void *malloc(size_t size) {
    if (g_count_allocs) g_allocs++;
    return __libc_malloc(size);
}

void *calloc(size_t n, size_t size) {
    if (g_count_allocs) g_allocs++;
    return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size) {
    if (g_count_allocs) g_allocs++;
    return __libc_realloc(p, size);
}

void free(void *p) {
    __libc_free(p);
}
#endif
