/* respgen runtime: the table-driven argument parser. See rg_args.h. */
#include "rg_args.h"

#include "rg_req.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bool rg_eq_lower(const char *word, const char *lower, size_t n) {
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)word[i];
        if (c >= 'A' && c <= 'Z') c = (unsigned char)(c | 0x20);
        if (c != (unsigned char)lower[i]) return false;
    }
    return true;
}

/* The bytes of a word before its first NUL: Redis formats the words it quotes in errors with %s,
 * which stops there. */
static size_t c_len(const char *bytes, size_t n) {
    const char *nul = n ? memchr(bytes, '\0', n) : NULL;
    return nul ? (size_t)(nul - bytes) : n;
}

static void err_put(rg_errbuf *err, const char *bytes, size_t n) {
    const size_t room = sizeof err->text - 1 - err->len;
    n = c_len(bytes, n);
    if (n > room) n = room;
    /* Redis turns CR and LF in error texts into spaces so the reply stays one line. */
    for (size_t i = 0; i < n; i++) {
        const char c = bytes[i];
        err->text[err->len++] = c == '\r' || c == '\n' ? ' ' : c;
    }
    err->text[err->len] = '\0';
}

void rg_err_append(rg_errbuf *err, const char *bytes, size_t n) {
    err_put(err, bytes, n);
}

static void err_str(rg_errbuf *err, const char *s) {
    err_put(err, s, strlen(s));
}

void rg_err_text(rg_errbuf *err, const char *text) {
    err->len = 0;
    err->at = 0;
    err_str(err, text);
}

void rg_err_arity(rg_errbuf *err, const char *name) {
    rg_err_text(err, "ERR wrong number of arguments for '");
    err_str(err, name);
    err_str(err, "' command");
}

static size_t min_size(size_t a, size_t b) {
    return a < b ? a : b;
}

/* "unknown command '%.128s', with args beginning with: " then "'%.*s' " per argument while
 * fewer than 128 bytes of them were written, each cut to what is left of the 128. */
void rg_err_unknown_command(rg_errbuf *err, size_t argc, const rg_view *argv) {
    rg_err_text(err, "ERR unknown command '");
    err_put(err, argv[0].ptr, min_size(argv[0].len, 128));
    err_str(err, "', with args beginning with: ");
    size_t args = 0;
    for (size_t i = 1; i < argc && args < 128; i++) {
        const size_t n = min_size(c_len(argv[i].ptr, argv[i].len), 128 - args);
        err_str(err, "'");
        err_put(err, argv[i].ptr, n);
        err_str(err, "' ");
        args += n + 3;
    }
}

/* "'<sub>'. Try <CONTAINER> HELP." after the caller's opening text. */
static void err_try_help(rg_errbuf *err, rg_view container, rg_view sub) {
    err_put(err, sub.ptr, min_size(sub.len, 128));
    err_str(err, "'. Try ");
    char up[32];
    for (size_t i = 0; i < container.len; i += sizeof up) {
        const size_t n = min_size(container.len - i, sizeof up);
        for (size_t k = 0; k < n; k++) {
            const char c = container.ptr[i + k];
            up[k] = c >= 'a' && c <= 'z' ? (char)(c - 32) : c;
        }
        err_put(err, up, n);
    }
    err_str(err, " HELP.");
}

void rg_err_unknown_subcommand(rg_errbuf *err, rg_view container, rg_view sub) {
    rg_err_text(err, "ERR unknown subcommand '");
    err->at = 1;
    err_try_help(err, container, sub);
}

void rg_err_subcommand_syntax(rg_errbuf *err, rg_view container, rg_view sub) {
    rg_err_text(err, "ERR unknown subcommand or wrong number of arguments for '");
    err->at = 1;
    err_try_help(err, container, sub);
}

bool rg_parse_double(const char *s, size_t n, double *out) {
    char tmp[64];
    if (n == 0 || n >= sizeof tmp) return false;
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    if (tmp[0] == ' ' || (unsigned char)tmp[0] - '\t' < 5) return false;
    char *end;
    const double v = strtod(tmp, &end);
    if ((size_t)(end - tmp) != n || isnan(v)) return false;
    *out = v;
    return true;
}

static void set_int(void *out, uint16_t off, int v) {
    if (off != RG_ARG_NO_OFF) memcpy((char *)out + off, &v, sizeof v);
}

static void set_view(void *out, uint16_t off, rg_view v) {
    memcpy((char *)out + off, &v, sizeof v);
}

static void set_views(void *out, uint16_t off, uint16_t count_off, const rg_view *first,
                      size_t count) {
    memcpy((char *)out + off, &first, sizeof first);
    memcpy((char *)out + count_off, &count, sizeof count);
}

/* The numeric words met during the walk, converted once the walk found no syntax error. */
typedef struct pending {
    const rg_arg_node *node;
    rg_view word;
} pending;

/* One parse: the request, the position in it, and where the values go. */
typedef struct walk {
    const rg_arg_spec *spec;
    const rg_view *argv;
    size_t argc;
    size_t i; /* the next word */
    void *out;
    rg_errbuf *err;
    const char *name;
    size_t nnums;
    pending nums[32];
} walk;

static bool syntax_error(walk *w) {
    if (w->spec->syntax == RG_SYNTAX_SUBCOMMAND && w->argc >= 2) {
        rg_err_subcommand_syntax(w->err, w->argv[0], w->argv[1]);
    } else if (w->spec->syntax == RG_SYNTAX_ARITY) {
        rg_err_arity(w->err, w->name);
    } else if (w->spec->syntax == RG_SYNTAX_TEXT) {
        rg_err_text(w->err, w->spec->syntax_text);
    } else {
        rg_err_text(w->err, "ERR syntax error");
    }
    return false;
}

/* A segment's own text for its error, its "%s" standing for the word at hand (cut at 128
 * bytes, as Redis prints it), else the syntax error. */
static bool seg_error(walk *w, const rg_arg_seg *seg) {
    if (!seg->error) return syntax_error(w);
    const char *at = strstr(seg->error, "%s");
    if (!at || w->i >= w->argc) {
        rg_err_text(w->err, seg->error);
        return false;
    }
    const rg_view word = w->argv[w->i];
    w->err->len = 0;
    w->err->at = 0;
    err_put(w->err, seg->error, (size_t)(at - seg->error));
    err_put(w->err, word.ptr, min_size(word.len, 128));
    err_str(w->err, at + 2);
    return false;
}

static bool arity_error(walk *w) {
    rg_err_arity(w->err, w->name);
    return false;
}

/* Missing words: Redis' arity error where only required words came before, else syntax. */
static bool short_error(walk *w, const rg_arg_seg *seg) {
    return seg->optional_before ? syntax_error(w) : arity_error(w);
}

/* The argument's own text where it has one, else the generic one. */
static bool bad_value(rg_errbuf *err, const char *own, const char *generic) {
    rg_err_text(err, own ? own : generic);
    return false;
}

static bool convert(const pending *p, void *out, rg_errbuf *err) {
    const rg_arg_check *check = p->node->check;
    const char *invalid = check ? check->invalid : NULL;
    const char *min_error = check ? check->min_error : NULL;
    char *dst = (char *)out + p->node->value_off;
    if (p->node->type == RG_ARG_I64) {
        int64_t v;
        if (!rg_parse_i64(p->word.ptr, p->word.len, &v)) {
            return bad_value(err, invalid, "ERR value is not an integer or out of range");
        }
        if (min_error && v < check->min) return bad_value(err, min_error, NULL);
        memcpy(dst, &v, sizeof v);
        return true;
    }
    double v;
    if (!rg_parse_double(p->word.ptr, p->word.len, &v)) {
        return bad_value(err, invalid, "ERR value is not a valid float");
    }
    if (min_error && v < (double)check->min) return bad_value(err, min_error, NULL);
    memcpy(dst, &v, sizeof v);
    return true;
}

static bool is_token(const rg_arg_node *n, rg_view word) {
    return n->token && n->token_len == word.len && rg_eq_lower(word.ptr, n->token, word.len);
}

/* The 1-based index of word among a CHOICE node's words, or 0. */
static int choice_of(const rg_arg_node *n, rg_view word) {
    for (int k = 0; n->choices[k]; k++) {
        const char *c = n->choices[k];
        if (strlen(c) == word.len && rg_eq_lower(word.ptr, c, word.len)) return k + 1;
    }
    return 0;
}

static bool store_choice(walk *w, const rg_arg_node *n, rg_view word) {
    const int k = choice_of(n, word);
    if (k) {
        set_int(w->out, n->value_off, k);
        return true;
    }
    if (n->check && n->check->invalid) return bad_value(w->err, n->check->invalid, NULL);
    return syntax_error(w);
}

/* Keeps a number for after the walk. A repeated option's later value replaces the earlier one
 * (SET k v EX abc EX 1 is fine in Redis), so there are at most as many as the spec has numbers. */
static bool defer(walk *w, const rg_arg_node *n, rg_view word) {
    for (size_t k = 0; k < w->nnums; k++) {
        if (w->nums[k].node->value_off == n->value_off) {
            w->nums[k] = (pending){n, word};
            return true;
        }
    }
    if (w->nnums == sizeof w->nums / sizeof w->nums[0]) return syntax_error(w);
    w->nums[w->nnums++] = (pending){n, word};
    return true;
}

static bool store(walk *w, const rg_arg_node *n, rg_view word) {
    switch (n->type) {
    case RG_ARG_VIEW: set_view(w->out, n->value_off, word); return true;
    case RG_ARG_CHOICE: return store_choice(w, n, word);
    case RG_ARG_I64:
    case RG_ARG_DOUBLE:
        if (!w->spec->late_numbers || (n->flags & RG_ARG_COUNT)) {
            return convert(&(pending){n, word}, w->out, w->err);
        }
        return defer(w, n, word);
    default: return true;
    }
}

/* A node's words: its token (which must match) and its value. */
static inline bool take_node(walk *w, const rg_arg_node *n, const rg_arg_seg *seg) {
    if (n->token) {
        if (w->i == w->argc) return short_error(w, seg);
        if (!is_token(n, w->argv[w->i])) return syntax_error(w);
        w->i++;
    }
    set_int(w->out, n->set_off, n->alt ? n->alt : 1);
    if (n->type == RG_ARG_NONE) return true;
    if ((n->flags & RG_ARG_MAYBE) && (w->i == w->argc || !choice_of(n, w->argv[w->i]))) {
        return true;
    }
    if (w->i == w->argc) return n->token ? syntax_error(w) : short_error(w, seg);
    return store(w, n, w->argv[w->i++]);
}

/* A node and its `more` value nodes. */
static inline bool take_run(walk *w, const rg_arg_node *n, const rg_arg_seg *seg) {
    for (size_t k = 0; k <= n->more; k++) {
        if (!take_node(w, &n[k], seg)) return false;
    }
    return true;
}

static bool seg_choice(walk *w, const rg_arg_seg *seg) {
    if (w->i == w->argc) return short_error(w, seg);
    const rg_arg_node *fallback = NULL;
    int alt = 0, fallback_alt = 0;
    for (size_t k = 0; k < seg->n; k += 1u + seg->nodes[k].more) {
        const rg_arg_node *n = &seg->nodes[k];
        alt++;
        if (is_token(n, w->argv[w->i])) {
            set_int(w->out, seg->set_off, alt);
            return take_run(w, n, seg);
        }
        if (!n->token && !fallback) {
            fallback = n;
            fallback_alt = alt;
        }
    }
    if (!fallback) return syntax_error(w);
    set_int(w->out, seg->set_off, fallback_alt);
    return take_run(w, fallback, seg);
}

static const rg_arg_node *find_option(const rg_arg_seg *seg, rg_view word) {
    for (size_t k = 0; k < seg->n; k += 1u + seg->nodes[k].more) {
        if (is_token(&seg->nodes[k], word)) return &seg->nodes[k];
    }
    return NULL;
}

/* WEIGHTS w...: every word up to the next token of the set, at least one. */
static bool take_multi(walk *w, const rg_arg_node *o, const rg_arg_seg *seg) {
    const size_t first = w->i;
    while (w->i < w->argc && !find_option(seg, w->argv[w->i])) w->i++;
    if (w->i == first) return syntax_error(w);
    set_int(w->out, o->set_off, 1);
    set_views(w->out, o->value_off, o->count_off, w->argv + first, w->i - first);
    return true;
}

/* Whether every required head's group was met. */
static bool required_met(const rg_arg_seg *seg, const uint8_t *groups) {
    for (size_t k = 0; k < seg->n; k++) {
        const rg_arg_node *o = &seg->nodes[k];
        if ((o->flags & RG_ARG_REQUIRED) && !groups[o->group % 64]) return false;
    }
    return true;
}

/* Options in any order; groups[g] remembers the alternative chosen in exclusion group g. */
static bool seg_options(walk *w, const rg_arg_seg *seg, bool last) {
    uint8_t groups[64] = {0};
    while (w->i < w->argc) {
        const rg_arg_node *o = find_option(seg, w->argv[w->i]);
        if (!o) {
            if (last) return seg_error(w, seg);
            break;
        }
        if (o->group) {
            if (groups[o->group % 64] && groups[o->group % 64] != o->alt) return syntax_error(w);
            groups[o->group % 64] = o->alt ? o->alt : 1;
        }
        if (o->flags & RG_ARG_MULTI) {
            w->i++;
            if (!take_multi(w, o, seg)) return false;
        } else if (!take_run(w, o, seg)) {
            return false;
        }
    }
    return !seg->min || required_met(seg, groups) || syntax_error(w);
}

static bool seg_rest(walk *w, const rg_arg_seg *seg) {
    const size_t left = w->argc - w->i;
    size_t count;
    if (seg->counted_by != RG_ARG_NO_OFF) {
        int64_t n;
        memcpy(&n, (const char *)w->out + seg->counted_by, sizeof n);
        if (n < (int64_t)seg->min) return syntax_error(w);
        if ((uint64_t)n > left / seg->group) return seg_error(w, seg);
        count = (size_t)n;
    } else {
        if (left < seg->min_after) return short_error(w, seg);
        const size_t words = left - seg->min_after;
        if (words % seg->group != 0) return seg->error ? seg_error(w, seg) : short_error(w, seg);
        count = words / seg->group;
        if (count < seg->min) return short_error(w, seg);
    }
    set_views(w->out, seg->value_off, seg->count_off, w->argv + w->i, count);
    w->i += count * seg->group;
    return true;
}

/* STREAMS key... id...: every word left, in two halves. */
static bool seg_halves(walk *w, const rg_arg_seg *seg) {
    const size_t left = w->argc - w->i;
    if (left == 0 || left % 2 != 0) return seg_error(w, seg);
    const size_t n = left / 2;
    set_views(w->out, seg->value_off, seg->count_off, w->argv + w->i, n);
    const rg_view *second = w->argv + w->i + n;
    memcpy((char *)w->out + seg->set_off, &second, sizeof second);
    w->i = w->argc;
    return true;
}

/* Whether an IF group is present; consumes its token. */
static bool seg_if(walk *w, const rg_arg_seg *seg) {
    if (w->i == w->argc) return false;
    if (seg->n) {
        if (!is_token(&seg->nodes[0], w->argv[w->i])) return false;
        w->i++;
    } else if (w->argc - w->i <= seg->min_after) {
        return false;
    }
    set_int(w->out, seg->set_off, 1);
    return true;
}

static bool walk_segments(walk *w, const rg_arg_spec *spec) {
    for (size_t s = 0; s < spec->nsegs; s++) {
        const rg_arg_seg *seg = &spec->segs[s];
        bool ok = true;
        switch (seg->kind) {
        case RG_SEG_WORD: ok = take_run(w, seg->nodes, seg); break;
        case RG_SEG_CHOICE: ok = seg_choice(w, seg); break;
        case RG_SEG_OPTIONS: ok = seg_options(w, seg, s + 1 == spec->nsegs); break;
        case RG_SEG_REST: ok = seg_rest(w, seg); break;
        case RG_SEG_HALVES: ok = seg_halves(w, seg); break;
        case RG_SEG_IF:
            if (!seg_if(w, seg)) s += seg->skip;
            break;
        default: ok = syntax_error(w);
        }
        if (!ok) return false;
    }
    return w->i == w->argc || syntax_error(w);
}

/* The argv index of a word (a view of one of argv's), argc when it is none. */
static size_t index_of(const rg_view *argv, size_t argc, rg_view word) {
    for (size_t k = 0; k < argc; k++) {
        if (argv[k].ptr == word.ptr && argv[k].len == word.len) return k;
    }
    return argc;
}

rg_error rg_args_error(const rg_errbuf *err) {
    if (err->len == 0) return (rg_error){RG_OK, {NULL, 0}, 0};
    return (rg_error){RG_INVALID, {err->text, err->len}, err->at};
}

rg_status rg_args_parse(const rg_arg_spec *spec, const char *name, size_t argc, const rg_view *argv,
                        void *out, rg_errbuf *err) {
    walk w; /* not zero-initialized: nums[] is only read up to nnums */
    w.spec = spec;
    w.argv = argv;
    w.argc = argc;
    w.i = spec->words;
    w.out = out;
    w.err = err;
    w.name = name;
    w.nnums = 0;
    if (!walk_segments(&w, spec)) {
        err->at = w.i < argc ? w.i : argc;
        return RG_INVALID;
    }
    for (size_t k = 0; k < w.nnums; k++) {
        if (!convert(&w.nums[k], out, err)) {
            err->at = index_of(argv, argc, w.nums[k].word);
            return RG_INVALID;
        }
    }
    return RG_OK;
}
