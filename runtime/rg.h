/* respgen runtime: the types every part of the library and generated code share.
 *
 * Ownership: an rg_view never owns its bytes; it points into memory the caller owns
 * (an input buffer, a string literal, a user value) and is valid exactly as long as that memory.
 */
#ifndef RG_H
#define RG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* Bumped on every change of a runtime type or table layout that generated code depends on;
 * generated sources #error when they were made for another value. */
#define RG_ABI_VERSION 11

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

/* Do a and b hold the same bytes? */
static inline bool rg_view_eq(rg_view a, rg_view b) {
    return a.len == b.len && (a.len == 0 || memcmp(a.ptr, b.ptr, a.len) == 0);
}

/* Every status of the runtime, one vocabulary for the decoder, typed replies, keys, requests,
 * argument parsing, pushes, calls, connections and clusters: X(name, meaning). Each function's
 * comment says which of them it returns. The sticky errors (the stream is broken: drop the
 * connection) come last, from RG_ERR_PROTOCOL on, so rg_status_fatal is one comparison. Generated
 * code checks RG_ABI_VERSION, which changes whenever this list does. */
#define RG_STATUSES(X)                                                                         \
    X(RG_OK, "done: an event, value, reply, request or list of keys was produced")             \
    X(RG_NEED_MORE, "the input ended inside a value; call again with more bytes")              \
    X(RG_PAUSED, "a callback asked to stop; call again to resume")                             \
    X(RG_PUSH, "a RESP3 push came where a reply should start; nothing of it consumed")         \
    X(RG_NOT_PUSH, "the value is no push (nor an out-of-band array); nothing consumed")        \
    X(RG_SHORT, "the caller's storage is too small; nothing consumed, retry with more")        \
    X(RG_SERVER_ERROR, "the server answered an error; the message is its text")                \
    X(RG_MISMATCH, "the reply does not have the command's shape; the reply was consumed")      \
    X(RG_LOST, "the caller dropped bytes of a value before it completed")                      \
    X(RG_INCOMPLETE, "the answer may be partial (keys the specs cannot find); ask the server") \
    X(RG_INVALID, "the arguments do not fit the command; the message says why (not sticky)")   \
    X(RG_ABORTED, "queued in MULTI, the transaction did not run (EXECABORT, DISCARD, WATCH)")  \
    X(RG_ABANDONED, "the caller gave up on the call; its reply is read and dropped")           \
    X(RG_TIMEOUT, "a deadline passed; the connection is closed")                               \
    X(RG_CLOSED, "the connection was lost or closed before the reply")                         \
    X(RG_REFUSED, "the server refused the connection or its connect sequence")                 \
    X(RG_IO, "a system call failed; the message says which and why")                           \
    X(RG_FULL, "no room: a buffer, ring or batch is full; nothing was queued")                 \
    X(RG_REDIRECT, "the cluster redirected the call more often than allowed")                  \
    X(RG_ERR_PROTOCOL, "malformed input (sticky)")                                             \
    X(RG_ERR_LIMIT, "a length or count over the configured limit (sticky)")                    \
    X(RG_ERR_DEPTH, "nesting deeper than the configured limit (sticky)")

#define RG_STATUS_ENUM_(name, meaning) name,
/* Outcome of a runtime call; see RG_STATUSES for each value's meaning. RG_OK is 0. */
typedef enum rg_status { RG_STATUSES(RG_STATUS_ENUM_) RG_STATUS_COUNT } rg_status;
#undef RG_STATUS_ENUM_

/* A static name for a status, e.g. "RG_ERR_PROTOCOL". Never NULL. */
const char *rg_status_name(rg_status s);

/* A static one-line meaning of a status (its RG_STATUSES text). Never NULL. */
const char *rg_status_meaning(rg_status s);

/* Is s a sticky error, after which the object that reported it only repeats it? */
static inline bool rg_status_fatal(rg_status s) {
    return s >= RG_ERR_PROTOCOL;
}

/* What every object that can fail tells about its failure, through one getter each
 * (rg_reader_error, rg_reply_error, rg_req_error, rg_args_error, rg_push_decode's and
 * rg_keys_find's err). status is RG_OK (msg empty, offset 0) when there is nothing to report.
 *
 * msg is a view, not a C string: a server's error text is not NUL-terminated where it lies in the
 * input. Print it with "%.*s", (int)e.msg.len, e.msg.ptr. Each getter says how long it lives
 * (static text, the object's buffer, or the caller's input bytes).
 *
 * offset says where: for byte parsers (reader, replies, requests, pushes) the byte offset of the
 * bad token, counted as each getter says (in the whole stream, or in buf); for argv parsers (keys,
 * arguments) the argv index of the word that failed. */
typedef struct rg_error {
    rg_status status;
    rg_view msg;
    uint64_t offset;
} rg_error;

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
