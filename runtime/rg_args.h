/* respgen runtime: the table-driven argument parser behind generated server dispatch.
 *
 * A generated table (rg_arg_spec) describes one command's arguments; rg_args_parse walks a
 * request's argv over it and fills the command's argument struct through byte offsets. Errors
 * are the texts Redis 7.0 sends, written into a caller's rg_errbuf.
 *
 * Rules (docs/server.md has the long form):
 *  1. The command words (1, or 2 for a subcommand) are skipped; arity was checked before.
 *  2. pos[]: required arguments, one word each, in order (a node with a token expects the token,
 *     case-insensitively, then its value word).
 *  3. Then either a rest (a trailing `multiple` argument: argv views handed out as they are, in
 *     groups of rest_group words; a count that is not a multiple is Redis' arity error), or one
 *     optional word without token (PING's message), or options: every remaining word must be the
 *     token of an optional argument, in any order. A token with a value takes the next word (none
 *     left: syntax error). Tokens of one oneof exclude each other (syntax error), repeating the
 *     same token is allowed and the last value wins (Redis' SET and EXPIRE behave so).
 *  4. After the walk, numeric values are converted in argv order with Redis' rules: integers by
 *     string2ll ("value is not an integer or out of range"), doubles by strtod with Redis'
 *     checks ("value is not a valid float"). So a syntax error anywhere wins over a bad number,
 *     as in Redis' SET.
 * Semantic checks (EX 0 is "invalid expire time in 'set' command") are the command's business.
 */
#ifndef RG_ARGS_H
#define RG_ARGS_H

#include "rg.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a node stores. */
typedef enum rg_arg_type {
    RG_ARG_NONE = 0, /* a pure token: only its presence */
    RG_ARG_VIEW,     /* rg_view */
    RG_ARG_I64,      /* int64_t */
    RG_ARG_DOUBLE,   /* double */
} rg_arg_type;

/* One argument. Offsets are into the command's argument struct. */
typedef struct rg_arg_node {
    const char *token; /* NULL: no token */
    uint8_t token_len;
    uint8_t type;     /* rg_arg_type of the value */
    uint8_t alt;      /* for oneof alternatives: the value stored at set_off (1-based) */
    uint8_t group;    /* optional arguments: 1-based exclusion group (a oneof), 0: none */
    uint16_t set_off; /* presence: an int set to alt (oneof) or to 1; UINT16_MAX: none */
    uint16_t value_off;
} rg_arg_node;

#define RG_ARG_NO_OFF UINT16_MAX

typedef struct rg_arg_spec {
    const rg_arg_node *pos; /* required, in order */
    const rg_arg_node *opt; /* optional tokens (any order), or the one optional word */
    uint8_t npos;
    uint8_t nopt;
    uint8_t words;      /* command words: 1, or 2 for a subcommand */
    uint8_t opt_word;   /* opt[0] is one optional word without token (PING [message]) */
    uint8_t rest_group; /* words per rest element; 0: no rest */
    uint16_t rest_off;  /* const rg_view * at rest_off, its element count at rest_count_off */
    uint16_t rest_count_off;
} rg_arg_spec;

/* A Redis error reply text, without '-' and CRLF (the unknown-command error is the longest:
 * a 128-byte name and about 130 bytes of arguments). */
typedef struct rg_errbuf {
    size_t len;
    char text[384];
} rg_errbuf;

/* Parses argv (argc words, command words included) into out (the zeroed struct the spec
 * describes). On failure fills err and returns false; out is then partly filled. name is the
 * command's lower-case Redis name ("set", "command|count") for the arity error. The views stored
 * in out borrow argv's bytes. */
bool rg_args_parse(const rg_arg_spec *spec, const char *name, size_t argc, const rg_view *argv,
                   void *out, rg_errbuf *err);

/* Redis' arity rule: arity > 0 exact, arity < 0 at least -arity words. */
static inline bool rg_arity_ok(int arity, size_t argc) {
    return arity > 0 ? argc == (size_t)arity : argc >= (size_t)-arity;
}

/* The error texts. */
void rg_err_arity(rg_errbuf *err, const char *name);
void rg_err_unknown_command(rg_errbuf *err, size_t argc, const rg_view *argv);
void rg_err_unknown_subcommand(rg_errbuf *err, rg_view container, rg_view sub);
void rg_err_text(rg_errbuf *err, const char *text);
/* Appends bytes (cut to what fits; CR and LF become spaces, as Redis sanitizes error texts). */
void rg_err_append(rg_errbuf *err, const char *bytes, size_t n);

/* ASCII case-insensitive equality of a word with a lower-case literal of the same length. */
bool rg_eq_lower(const char *word, const char *lower, size_t n);

/* Redis' string to double rules for arguments (strtod, no spaces, no NaN). */
bool rg_parse_double(const char *s, size_t n, double *out);

#ifdef __cplusplus
}
#endif

#endif
