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

static void err_put(rg_errbuf *err, const char *bytes, size_t n) {
    const size_t room = sizeof err->text - 1 - err->len;
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
        const size_t n = min_size(argv[i].len, 128 - args);
        err_str(err, "'");
        err_put(err, argv[i].ptr, n);
        err_str(err, "' ");
        args += n + 3;
    }
}

void rg_err_unknown_subcommand(rg_errbuf *err, rg_view container, rg_view sub) {
    rg_err_text(err, "ERR unknown subcommand '");
    err_put(err, sub.ptr, min_size(sub.len, 128));
    err_str(err, "'. Try ");
    for (size_t i = 0; i < container.len; i++) {
        const char c = container.ptr[i];
        const char up = c >= 'a' && c <= 'z' ? (char)(c - 32) : c;
        err_put(err, &up, 1);
    }
    err_str(err, " HELP.");
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

/* The numeric words met during the walk, converted once the walk found no syntax error. */
typedef struct pending {
    const rg_arg_node *node;
    rg_view word;
} pending;

typedef struct walk {
    void *out;
    pending nums[32];
    size_t nnums;
} walk;

static bool store(walk *w, const rg_arg_node *node, rg_view word) {
    if (node->type == RG_ARG_VIEW) {
        set_view(w->out, node->value_off, word);
        return true;
    }
    if (w->nnums == sizeof w->nums / sizeof w->nums[0]) return false;
    w->nums[w->nnums++] = (pending){node, word};
    return true;
}

static bool convert(const walk *w, rg_errbuf *err) {
    for (size_t i = 0; i < w->nnums; i++) {
        const pending *p = &w->nums[i];
        char *dst = (char *)w->out + p->node->value_off;
        if (p->node->type == RG_ARG_I64) {
            int64_t v;
            if (!rg_parse_i64(p->word.ptr, p->word.len, &v)) {
                rg_err_text(err, "ERR value is not an integer or out of range");
                return false;
            }
            memcpy(dst, &v, sizeof v);
        } else {
            double v;
            if (!rg_parse_double(p->word.ptr, p->word.len, &v)) {
                rg_err_text(err, "ERR value is not a valid float");
                return false;
            }
            memcpy(dst, &v, sizeof v);
        }
    }
    return true;
}

static const rg_arg_node *find_token(const rg_arg_spec *spec, rg_view word) {
    for (size_t i = 0; i < spec->nopt; i++) {
        const rg_arg_node *o = &spec->opt[i];
        if (o->token_len == word.len && rg_eq_lower(word.ptr, o->token, word.len)) return o;
    }
    return NULL;
}

static bool syntax_error(rg_errbuf *err) {
    rg_err_text(err, "ERR syntax error");
    return false;
}

/* Options in any order; groups[g] remembers the alternative chosen in exclusion group g. */
static bool walk_options(const rg_arg_spec *spec, walk *w, size_t i, size_t argc,
                         const rg_view *argv, rg_errbuf *err) {
    uint8_t groups[256] = {0};
    while (i < argc) {
        const rg_arg_node *o = find_token(spec, argv[i]);
        if (!o) return syntax_error(err);
        if (o->group) {
            if (groups[o->group] && groups[o->group] != o->alt) return syntax_error(err);
            groups[o->group] = o->alt;
        }
        set_int(w->out, o->set_off, o->alt ? o->alt : 1);
        i++;
        if (o->type != RG_ARG_NONE) {
            if (i == argc) return syntax_error(err);
            if (!store(w, o, argv[i++])) return syntax_error(err);
        }
    }
    return true;
}

static bool walk_tail(const rg_arg_spec *spec, walk *w, size_t i, size_t argc, const rg_view *argv,
                      const char *name, rg_errbuf *err) {
    if (spec->rest_group) {
        const size_t n = argc - i;
        if (n % spec->rest_group != 0) {
            rg_err_arity(err, name);
            return false;
        }
        const rg_view *first = argv + i;
        const size_t count = n / spec->rest_group;
        memcpy((char *)w->out + spec->rest_off, &first, sizeof first);
        memcpy((char *)w->out + spec->rest_count_off, &count, sizeof count);
        return true;
    }
    if (spec->opt_word) {
        if (i == argc) return true;
        if (argc - i > 1) return syntax_error(err);
        set_int(w->out, spec->opt[0].set_off, 1);
        return store(w, &spec->opt[0], argv[i]);
    }
    return walk_options(spec, w, i, argc, argv, err);
}

bool rg_args_parse(const rg_arg_spec *spec, const char *name, size_t argc, const rg_view *argv,
                   void *out, rg_errbuf *err) {
    walk w = {.out = out, .nnums = 0};
    size_t i = spec->words;
    for (size_t k = 0; k < spec->npos; k++) {
        const rg_arg_node *p = &spec->pos[k];
        if (i >= argc) {
            rg_err_arity(err, name);
            return false;
        }
        if (p->token) {
            if (argv[i].len != p->token_len || !rg_eq_lower(argv[i].ptr, p->token, p->token_len))
                return syntax_error(err);
            if (++i >= argc) return syntax_error(err);
        }
        if (!store(&w, p, argv[i++])) return syntax_error(err);
    }
    if (!walk_tail(spec, &w, i, argc, argv, name, err)) return false;
    return convert(&w, err);
}
