/* respgen runtime: the table-driven argument parser behind generated server dispatch.
 *
 * A generated table (rg_arg_spec) describes one command's arguments as a flat list of segments;
 * rg_args_parse walks a request's argv over them and fills the command's argument struct through
 * byte offsets. Errors are the texts Redis 7.0 sends, written into a caller's rg_errbuf.
 *
 * Segments (docs/server.md has the long form), after the command words (1, or 2 for a
 * subcommand; arity was checked before):
 *  - WORD: one positional argument: a word, or a token (matched case-insensitively) and its
 *    value words. Missing words are the arity error while nothing optional came before, else a
 *    syntax error (Redis' BITCOUNT k 1).
 *  - CHOICE: one of several alternatives (LMOVE's LEFT|RIGHT, GEOSEARCH's FROMMEMBER m |
 *    FROMLONLAT lon lat, XGROUP's id | $): the first whose token matches, else the one without
 *    a token, else a syntax error. The 1-based alternative is stored at set_off.
 *  - OPTIONS: tokens in any order, each with its value words. Tokens of one exclusion group (a
 *    oneof) exclude each other (syntax error); repeating a token is allowed and the last value
 *    wins (Redis' SET and EXPIRE behave so). Required tokened arguments among options are heads
 *    too (GEOSEARCH's FROMMEMBER|FROMLONLAT, XREADGROUP's GROUP): the set is a syntax error
 *    without them, and Redis' any-order loops are what it accepts. A word that is no token
 *    ends the set when segments follow (ZADD's flags before its pairs), else it is a syntax
 *    error. A MULTI option (WEIGHTS w...) takes every word up to the next token, as views.
 *  - REST: a run of elements of `group` words handed out as argv views. Its count is the value of
 *    an earlier integer (counted_by: numkeys), or every word the segments after it leave
 *    (BLPOP's keys before the timeout). A count that does not divide is Redis' arity error when
 *    nothing optional came before (MSET), else a syntax error (ZADD).
 *  - HALVES: every word left, split in two equal halves handed out as views (XREAD's STREAMS
 *    key... id...); an odd count is the segment's error.
 *  - IF: an optional group of the next `skip` segments, present when its token (nodes[0]) is the
 *    next word, or, without a token, when more words are left than the segments after the group
 *    need (AUTH [username] password, BITCOUNT key [start end]).
 * Numbers are converted when met with Redis' rules: integers by string2ll ("value is not an
 * integer or out of range"), doubles by strtod with Redis' checks ("value is not a valid float"),
 * or the argument's own texts and minimum (rg_arg_check). With late_numbers they are converted
 * after the walk, in argv order, so a syntax error anywhere wins (Redis' SET). Counts (numkeys)
 * are always converted when met: the words after them depend on them.
 * Semantic checks (EX 0 is "invalid expire time in 'set' command") are the command's business.
 */
#ifndef RG_ARGS_H
#define RG_ARGS_H

#include "rg.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* What a node stores at value_off. */
typedef enum rg_arg_type {
    RG_ARG_NONE = 0, /* a pure token: only its presence */
    RG_ARG_VIEW,     /* rg_view */
    RG_ARG_I64,      /* int64_t */
    RG_ARG_DOUBLE,   /* double */
    RG_ARG_CHOICE,   /* int: the 1-based index of the word in choices (a unit: m|km|ft|mi) */
} rg_arg_type;

/* Node flags. */
enum {
    RG_ARG_MULTI = 1,    /* option: values up to the next token; const rg_view * + size_t count */
    RG_ARG_COUNT = 2,    /* an integer that a later REST counts by: converted when met */
    RG_ARG_MAYBE = 4,    /* a CHOICE value word that may be left out (XADD's MAXLEN [=|~] n) */
    RG_ARG_REQUIRED = 8, /* an option head whose group must be met (XREADGROUP's GROUP g c) */
};

/* Texts and bounds of one argument that a server words its own way (BLPOP's timeout: "ERR
 * timeout is not a float or out of range", "ERR timeout is negative"). */
typedef struct rg_arg_check {
    const char *invalid;   /* the word is no number (no choice); NULL: the generic text */
    const char *min_error; /* the value is below min; NULL: no minimum */
    int64_t min;
} rg_arg_check;

/* One argument word, or a token and its first value word. Offsets are into the command's
 * argument struct. A token's further value words follow as nodes of their own without token
 * (`more` of them: LIMIT offset count has one more). */
typedef struct rg_arg_node {
    const char *token;          /* lower-case; NULL: no token */
    const char *const *choices; /* RG_ARG_CHOICE: the lower-case words, NULL-terminated */
    const rg_arg_check *check;  /* NULL: generic texts, no bounds */
    uint8_t token_len;
    uint8_t type;       /* rg_arg_type of the value */
    uint8_t alt;        /* oneof alternatives: the value stored at set_off (1-based) */
    uint8_t group;      /* options: 1-based exclusion group (a oneof), 0: none */
    uint8_t more;       /* value words after this one, as the following nodes */
    uint8_t flags;      /* RG_ARG_MULTI, _COUNT, _MAYBE, _REQUIRED */
    uint16_t set_off;   /* presence: an int set to alt or to 1; RG_ARG_NO_OFF: none */
    uint16_t value_off; /* the value; MULTI: the const rg_view * of the values */
    uint16_t count_off; /* MULTI: their size_t count */
} rg_arg_node;

#define RG_ARG_NO_OFF UINT16_MAX

typedef enum rg_seg_kind {
    RG_SEG_WORD = 0,
    RG_SEG_CHOICE,
    RG_SEG_OPTIONS,
    RG_SEG_REST,
    RG_SEG_IF,
    RG_SEG_HALVES,
} rg_seg_kind;

typedef struct rg_arg_seg {
    const rg_arg_node *nodes; /* WORD: 1 + more; CHOICE, OPTIONS: all; IF: its token or none */
    uint8_t kind;             /* rg_seg_kind */
    uint8_t n;                /* nodes */
    uint8_t group;            /* REST: words per element */
    uint8_t skip;             /* IF: the segments of the group */
    uint8_t min;              /* REST: the fewest elements (0 or 1); OPTIONS: 1 when some heads
                                 are RG_ARG_REQUIRED */
    uint8_t optional_before;  /* something optional came before: short input is a syntax error */
    uint16_t min_after;       /* the fewest words the segments after this one need */
    uint16_t set_off;         /* CHOICE: the alternative; IF: int set to 1 when present;
                                 HALVES: const rg_view * of the second half */
    uint16_t value_off;       /* REST, HALVES: const rg_view * of the first element */
    uint16_t count_off;       /* REST, HALVES: size_t element count (of each half) */
    uint16_t counted_by;      /* REST: int64_t count (an RG_ARG_COUNT node), or RG_ARG_NO_OFF */
    /* REST: the count is more than the words left, or the words left do not divide into
     * elements (XADD's field value pairs); HALVES: the words do not pair up; OPTIONS: a
     * word that is none of its tokens ("%s" in it stands for the word: "ERR Unsupported option
     * %s"). NULL: "ERR syntax error". */
    const char *error;
} rg_arg_seg;

/* How a command words its syntax errors. */
typedef enum rg_syntax_style {
    RG_SYNTAX_PLAIN = 0,  /* "ERR syntax error" */
    RG_SYNTAX_SUBCOMMAND, /* "ERR unknown subcommand or wrong number of arguments for 'x'. ..." */
    RG_SYNTAX_ARITY,      /* "ERR wrong number of arguments for 'x' command" (LPOP k 1 2) */
    RG_SYNTAX_TEXT,       /* the spec's syntax_text (SCRIPT FLUSH's "only support SYNC|ASYNC") */
} rg_syntax_style;

typedef struct rg_arg_spec {
    const rg_arg_seg *segs;
    uint8_t nsegs;
    uint8_t words;  /* command words: 1, or 2 for a subcommand */
    uint8_t syntax; /* rg_syntax_style */
    /* Numbers are converted after the whole request was walked, so that a syntax error anywhere
     * wins over a bad number (SET, GETEX, EXPIRE); else each when met, as most of Redis does. */
    uint8_t late_numbers;
    const char *syntax_text; /* RG_SYNTAX_TEXT */
} rg_arg_spec;

/* A Redis error reply text, without '-' and CRLF (the unknown-command error is the longest:
 * a 128-byte name and about 130 bytes of arguments), and where it was found. Caller-owned; read
 * it with rg_args_error. */
typedef struct rg_errbuf {
    size_t len;     /* bytes of text; 0: no error */
    size_t at;      /* the argv index of the word the parser stopped at (argc: words ran out) */
    char text[384]; /* NUL-terminated */
} rg_errbuf;

/* Parses argv (argc words, command words included) into out (the zeroed struct the spec
 * describes): RG_OK, or RG_INVALID with the error in err (rg_args_error); out is then partly
 * filled. name is the command's lower-case Redis name ("set", "command|count") for the arity
 * error. The views stored in out borrow argv's bytes. */
rg_status rg_args_parse(const rg_arg_spec *spec, const char *name, size_t argc, const rg_view *argv,
                        void *out, rg_errbuf *err);

/* The error in err: RG_INVALID, msg the Redis error text (in err, valid while err is; write it
 * as "-<msg>\r\n") and offset the argv index where it was found (0 for the command, 1 for a
 * subcommand); RG_OK with an empty message when err holds none. err must have been written by
 * a parse or an rg_err_* call (or zeroed). */
rg_error rg_args_error(const rg_errbuf *err);

/* Redis' arity rule: arity > 0 exact, arity < 0 at least -arity words. */
static inline bool rg_arity_ok(int arity, size_t argc) {
    return arity > 0 ? argc == (size_t)arity : argc >= (size_t)-arity;
}

/* The error texts (each one replaces err's text; at is 0, or 1 for the subcommand ones). */
void rg_err_arity(rg_errbuf *err, const char *name);
void rg_err_unknown_command(rg_errbuf *err, size_t argc, const rg_view *argv);
void rg_err_unknown_subcommand(rg_errbuf *err, rg_view container, rg_view sub);
/* Redis' syntax error of a subcommand (addReplySubcommandSyntaxError). */
void rg_err_subcommand_syntax(rg_errbuf *err, rg_view container, rg_view sub);
void rg_err_text(rg_errbuf *err, const char *text);
/* Appends bytes (cut to what fits; CR and LF become spaces, as Redis sanitizes error texts). Like
 * every word the rg_err_* functions quote, they stop at their first NUL: Redis formats quoted
 * words with %s. */
void rg_err_append(rg_errbuf *err, const char *bytes, size_t n);

/* ASCII case-insensitive equality of a word with a lower-case literal of the same length. */
bool rg_eq_lower(const char *word, const char *lower, size_t n);

/* Redis' string to double rules for arguments (strtod, no spaces, no NaN). */
bool rg_parse_double(const char *s, size_t n, double *out);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
