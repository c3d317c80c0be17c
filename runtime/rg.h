/* respgen runtime: the types every part of the library and generated code share.
 *
 * Ownership: an rg_view never owns its bytes; it points into memory the caller owns
 * (an input buffer, a string literal, a user value) and is valid exactly as long as that memory.
 */
#ifndef RG_H
#define RG_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped on every change of a runtime type or table layout that generated code depends on;
 * generated sources #error when they were made for another value. */
#define RG_ABI_VERSION 2

/* respgen's version. This header is its one source: CMake reads it for project(VERSION) and the
 * package files, the tool reports it and writes it into every generated banner
 * (tests/style/version.cmake checks that they agree). */
#define RG_VERSION_STRING "0.1.0"

/* A byte string that does not own its bytes. ptr may be NULL only when len is 0: encoders
 * refuse a view {NULL, n > 0} (size and encode return 0) instead of reading through it.
 *
 * Three ways to make one:
 *   RG_LIT("GET")        a string literal; the length is computed at compile time
 *   rg_cstr(s)           a NUL-terminated string (strlen at run time); NULL gives {NULL, 0}
 *   (rg_view){p, n}      n bytes at p, which may hold NULs: binary keys and values */
typedef struct rg_view {
    const char *ptr;
    size_t len;
} rg_view;

/* A view of a string literal. Anything else is a compile error: the literal is pasted between
 * two empty literals, which only string-literal concatenation accepts, so RG_LIT(ptr) (sizeof of
 * a pointer) and RG_LIT(array) (sizeof of a buffer, not of its text) do not compile. Usable in
 * initializers, as before. */
#define RG_LIT(s) ((rg_view){("" s ""), sizeof("" s "") - 1})

/* A view of the NUL-terminated string s (its bytes before the NUL), or {NULL, 0} for NULL. The
 * view borrows s. */
static inline rg_view rg_cstr(const char *s) {
    return (rg_view){s, s ? strlen(s) : 0};
}

/* Outcome of a runtime call. RG_OK and RG_NEED_MORE are not errors; everything from
 * RG_ERR_PROTOCOL on is, and is sticky on the object that reported it. */
typedef enum rg_status {
    RG_OK = 0,       /* an event or value was produced */
    RG_NEED_MORE,    /* the input ended inside a token; call again with more bytes */
    RG_PAUSED,       /* a callback asked to stop; call again to resume */
    RG_ERR_PROTOCOL, /* malformed input */
    RG_ERR_LIMIT,    /* a length or count over the configured limit */
    RG_ERR_DEPTH,    /* nesting deeper than the configured limit */
    RG_STATUS_COUNT
} rg_status;

/* A static name for a status, e.g. "RG_ERR_PROTOCOL". Never NULL. */
const char *rg_status_name(rg_status s);

#ifdef __cplusplus
}
#endif

#endif
