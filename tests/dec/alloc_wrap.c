/* Allocation counters for the decoder tests, linked with -Wl,--wrap=malloc and friends: every
 * call from the test binary's own objects and the static runtime library goes through here, and
 * calls made while control is inside the decoder are counted (the decoder must never allocate). */
#include "declog.h"

#include <stdlib.h>
#include <string.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);

void *__wrap_malloc(size_t n) {
    if (dl_decoder_active) dl_decoder_allocs++;
    return __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size) {
    if (dl_decoder_active) dl_decoder_allocs++;
    return __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t n) {
    if (dl_decoder_active) dl_decoder_allocs++;
    return __real_realloc(p, n);
}

/* A free from inside the decoder means it allocated somewhere we could not see (strdup, ...). */
void __wrap_free(void *p) {
    if (dl_decoder_active && p) dl_decoder_allocs++;
    __real_free(p);
}
