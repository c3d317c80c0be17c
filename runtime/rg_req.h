/* respgen runtime: the server side's request reader.
 *
 * Reads client requests as Redis does: multibulk requests ("*<n>\r\n" then n
 * "$<len>\r\n<bytes>\r\n") and inline commands (a line of space-separated words, with Redis' double
 * and single quotes), and yields each request's argv as views into the caller's buffer. It never
 * allocates, and the reader remembers where it is inside a request, so bytes may arrive one at a
 * time without quadratic cost.
 *
 * Input rule (as rg_next in rg_dec.h): rg_req_next consumes whole requests only and advances *pos
 * past them. Bytes before *pos are never looked at again; bytes from *pos on must be presented
 * again, followed by new ones. While a request is incomplete the reader keeps how far it got in
 * relative offsets, so the caller may move buf[*pos..len) (compact its buffer) between calls.
 *
 * Argv: the views point into buf and are valid as long as those bytes stay where they are. A
 * request with more arguments than the caller's capacity is not an error: rg_req_next answers
 * RG_NEED_MORE with *argc set to the count it needs, and the caller retries with that much storage
 * (the reader keeps its progress). Streaming arguments one by one was rejected: every command
 * handler wants random access to its argv, and a server sizes argv from its own limit anyway.
 *
 * Cost: payload bytes and partial lines are never scanned twice. Only when one request arrived in
 * several pieces are its (already validated) length lines parsed once more at the end, to rebuild
 * the views; that is what lets the caller move its buffer between calls. A complete inline line is
 * read twice (a counting pass that also validates the quotes, then the splitting pass), so that
 * nothing is unescaped in place before the caller's argv is known to be big enough.
 *
 * A NUL before a line's end stalls the request, as in Redis, which looks for line ends with strchr:
 * the line never ends, and the request waits until its bytes pass max_inline, then gets the
 * limit's error ("too big inline request", "... mbulk count string", "... bulk count string").
 *
 * Inline commands are unescaped in place (Redis' "\x41", "\n", ... inside double quotes), which is
 * why buf is not const: the unescaped word is never longer than its quoted form.
 *
 * Errors: malformed input gives RG_ERR_PROTOCOL and a message that is byte for byte the error a
 * real Redis 7 sends before it closes the connection ("-ERR Protocol error: invalid multibulk
 * length\r\n" is "-" + rg_req_error().msg + "\r\n"). The error is sticky; drop the connection after
 * writing it. Requests completed before the bad bytes were already returned, as Redis executes
 * them.
 */
#ifndef RG_REQ_H
#define RG_REQ_H

#include "rg.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* Limits, each Redis' default. */
typedef struct rg_req_limits {
    int64_t max_multibulk; /* largest "*<n>": INT_MAX in Redis 7.0 */
    int64_t max_bulk;      /* largest "$<len>": proto-max-bulk-len, 512 MiB */
    size_t max_inline;     /* longest inline line (the bytes before its LF, however they
                              arrive) or length line without its end: 64 KiB */
} rg_req_limits;

#define RG_REQ_MAX_MULTIBULK 2147483647
#define RG_REQ_MAX_BULK      (512 * 1024 * 1024)
#define RG_REQ_MAX_INLINE    (64 * 1024)

/* The whole reader state; caller-owned, no pointers into the buffer. Fields private: use the
 * functions below. */
typedef struct rg_req {
    rg_req_limits lim;
    int64_t left;        /* bulks still to read in the current multibulk request; 0: none open */
    int64_t bulk;        /* length of the bulk being read, -1 while its "$" line is awaited */
    size_t off;          /* bytes of the current request consumed so far (relative to *pos) */
    size_t scanned;      /* bytes after off known to hold no line end */
    size_t argc;         /* arguments of the current request found so far */
    size_t need_argc;    /* the whole request's argument count */
    bool inline_req;     /* the current request is an inline command */
    bool resumed;        /* the current request arrived in pieces: rebuild its views at the end */
    bool stalled;        /* a NUL came before the current line's end: it never ends (rg_req.c) */
    uint8_t phase;       /* what the next bytes are: rg_req.c's PH_* */
    uint64_t consumed;   /* bytes of the stream consumed: the current request's first byte */
    uint64_t err_offset; /* stream offset of the bad line's first byte */
    rg_status err;
    char msg[64]; /* the error text, without the leading '-' and the CRLF */
} rg_req;

/* Initializes r with lim, or with the defaults when lim is NULL. */
void rg_req_init(rg_req *r, const rg_req_limits *lim);

/* Reads the next whole request from buf[*pos..len).
 *
 * RG_OK: a request; argv[0..*argc) are its words (views into buf), *pos is past it. Empty inline
 *   lines and "*0" / "*-1" requests are skipped silently, as Redis does, so *argc >= 1.
 * RG_NEED_MORE: no whole request yet; *pos may have advanced past skipped empty requests. When
 *   the pending request has more arguments than cap, *argc is set to the count it needs (> cap)
 *   and the caller should retry with storage that big; otherwise *argc is 0.
 * RG_ERR_PROTOCOL / RG_ERR_LIMIT: see rg_req_error; sticky.
 *
 * argv views are written only on RG_OK. The caller's argv may be reused for the next call. */
rg_status rg_req_next(rg_req *r, char *buf, size_t len, size_t *pos, rg_view *argv, size_t cap,
                      size_t *argc);

/* The sticky error (status RG_OK before one): msg is the text Redis sends for the failure ("ERR
 * Protocol error: ...", NUL-terminated, in r, valid while r is), to be written as "-<msg>\r\n";
 * offset is where the bad line starts, counted in bytes rg_req_next consumed since rg_req_init
 * (the request it belongs to begins there or before). */
rg_error rg_req_error(const rg_req *r);

/* Redis' string2ll: the strict decimal int64 grammar Redis uses for lengths and integer
 * arguments (no sign but '-', no leading zeros, no spaces, at most 20 characters). */
bool rg_parse_i64(const char *s, size_t n, int64_t *out);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
