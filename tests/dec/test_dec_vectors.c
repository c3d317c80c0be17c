/* Runs the decoder over every case in tests/dec/vectors and requires the same normalized event
 * log however the input is split: whole, byte by byte, at every single split point, and in 200
 * seeded random splittings, through rg_next and rg_feed (with and without pausing), with three
 * buffer layouts a caller may legally use. Every call's buffer ends right before a PROT_NONE page.
 *
 * Vector file format (one or more cases per file; blank lines and lines starting with '#' are
 * ignored, trailing white space is stripped):
 *
 *     === name of the case (unique over all files)
 *     limits: depth=2 bulk=10 elements=4 line=16 stream_min=8   (optional; "max" = UINT64_MAX)
 *     input: *1\r\n              the RESP bytes, with escapes \r \n \t \0 \\ \" \xNN
 *     input*3: :1\r\n            the same bytes 3 times; input lines concatenate
 *     array 1 d0                 the expected log, one event a line (format: declog.h)
 *     ...
 *     error RG_ERR_PROTOCOL at 7: substring of the message    (": ..." optional)
 *
 * With --corpus DIR the program writes every case's input to DIR (the fuzz seed corpus) instead.
 * RG_VECTOR_FILTER=pattern runs the matching cases only.
 */
#define _DEFAULT_SOURCE /* strdup, mkdir */
#include "declog.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#ifndef RG_DEC_VECTOR_DIR
#define RG_DEC_VECTOR_DIR "tests/dec/vectors"
#endif

#define RANDOM_SPLITS 200

typedef struct vcase {
    char name[160];
    char where[320]; /* file:line of the === line */
    dl_str input;
    bool has_limits;
    rg_limits limits;
    dl_str expect; /* expected lines, each ending in '\n' */
} vcase;

static vcase *cases;
static size_t ncases, cases_cap;
static dl_guard_arena guard;

static void die(const char *where, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void die(const char *where, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", where);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

static int hexval(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static void unescape(const char *where, const char *s, dl_str *out) {
    while (*s) {
        if (*s != '\\') {
            dl_str_add(out, s++, 1);
            continue;
        }
        char c;
        switch (s[1]) {
        case 'r': c = '\r'; break;
        case 'n': c = '\n'; break;
        case 't': c = '\t'; break;
        case '0': c = '\0'; break;
        case '\\': c = '\\'; break;
        case '"': c = '"'; break;
        case 'x': {
            int hi = hexval((unsigned char)s[2]), lo = hi < 0 ? -1 : hexval((unsigned char)s[3]);
            if (lo < 0) die(where, "\\x needs two hex digits");
            c = (char)(hi << 4 | lo);
            s += 2;
            break;
        }
        default: die(where, "unknown escape \\%c", s[1] ? s[1] : '0');
        }
        dl_str_add(out, &c, 1);
        s += 2;
    }
}

static uint64_t parse_u64(const char *where, const char *s) {
    if (!strcmp(s, "max")) return UINT64_MAX;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || *s == '-') die(where, "bad number '%s'", s);
    return v;
}

static void parse_limits(const char *where, char *s, rg_limits *l) {
    *l = rg_limits_default();
    for (char *tok = strtok(s, " \t"); tok; tok = strtok(NULL, " \t")) {
        char *eq = strchr(tok, '=');
        if (!eq) die(where, "limits: '%s' is not key=value", tok);
        *eq = '\0';
        uint64_t v = parse_u64(where, eq + 1);
        if (!strcmp(tok, "depth"))
            l->max_depth = (uint32_t)v;
        else if (!strcmp(tok, "bulk"))
            l->max_bulk = v;
        else if (!strcmp(tok, "elements"))
            l->max_elements = v;
        else if (!strcmp(tok, "line"))
            l->max_line = v;
        else if (!strcmp(tok, "stream_min"))
            l->stream_min = v;
        else
            die(where, "limits: unknown key '%s'", tok);
    }
}

static void finish_case(vcase *c) {
    if (!c) return;
    if (!c->input.len) die(c->where, "case '%s' has no input", c->name);
    if (!c->expect.len) die(c->where, "case '%s' has no expected events", c->name);
    for (size_t i = 0; i + 1 < ncases; i++)
        if (!strcmp(cases[i].name, c->name)) die(c->where, "duplicate case name '%s'", c->name);
}

static void load_file(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) die(path, "cannot open: %s", strerror(errno));
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    char line[8192], where[320];
    vcase *c = NULL;
    for (int lineno = 1; fgets(line, sizeof line, f); lineno++) {
        snprintf(where, sizeof where, "%.280s:%d", base, lineno);
        size_t len = strlen(line);
        if (len == sizeof line - 1 && line[len - 1] != '\n') die(where, "line too long");
        while (len && isspace((unsigned char)line[len - 1])) line[--len] = '\0';
        char *s = line;
        while (isspace((unsigned char)*s)) s++;
        if (!*s || *s == '#') continue;
        if (!strncmp(s, "===", 3)) {
            finish_case(c);
            if (ncases == cases_cap) {
                cases_cap = cases_cap ? cases_cap * 2 : 64;
                cases = realloc(cases, cases_cap * sizeof *cases);
                if (!cases) die(where, "out of memory");
            }
            c = &cases[ncases++];
            memset(c, 0, sizeof *c);
            s += 3;
            while (isspace((unsigned char)*s)) s++;
            if (!*s) die(where, "case without a name");
            if (strlen(s) >= sizeof c->name) die(where, "case name too long");
            strcpy(c->name, s);
            snprintf(c->where, sizeof c->where, "%s", where);
            continue;
        }
        if (!c) die(where, "text before the first === line");
        if (!strncmp(s, "limits:", 7)) {
            if (c->has_limits) die(where, "two limits lines");
            parse_limits(where, s + 7, &c->limits);
            c->has_limits = true;
        } else if (!strncmp(s, "input", 5) && (s[5] == ':' || s[5] == '*')) {
            unsigned long times = 1;
            char *p = s + 5;
            if (*p == '*') {
                char *end;
                times = strtoul(p + 1, &end, 10);
                if (end == p + 1 || *end != ':' || times == 0 || times > 1000000)
                    die(where, "bad repeat count");
                p = end;
            }
            p++; /* the colon */
            if (*p == ' ') p++;
            dl_str once = {0};
            unescape(where, p, &once);
            for (unsigned long i = 0; i < times; i++) dl_str_add(&c->input, once.p, once.len);
            dl_str_free(&once);
        } else {
            if (c->input.len == 0) die(where, "expected events before any input line");
            dl_str_add(&c->expect, s, strlen(s));
            dl_str_add(&c->expect, "\n", 1);
        }
    }
    finish_case(c);
    fclose(f);
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void load_all(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) die(dir, "cannot open the vector directory: %s", strerror(errno));
    char *names[256];
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len > 4 && !strcmp(e->d_name + len - 4, ".txt")) {
            if (n == 256) die(dir, "too many vector files");
            names[n++] = strdup(e->d_name);
        }
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        load_file(path);
        free(names[i]);
    }
    if (!ncases) die(dir, "no vectors found");
}

/* ---- matching ---- */

/* An expected line matches an actual one exactly, except that an expected error line may stop
 * after the offset or give only a substring of the message. */
static bool line_matches(const char *exp, size_t elen, const char *act, size_t alen) {
    if (elen == alen && !memcmp(exp, act, elen)) return true;
    if (elen < 6 || memcmp(exp, "error RG_ERR_", 13) != 0) return false;
    const char *ecolon = memchr(exp, ':', elen);
    const char *acolon = memchr(act, ':', alen);
    if (!acolon) return false;
    size_t ehead = ecolon ? (size_t)(ecolon - exp) : elen;
    if (ehead != (size_t)(acolon - act) || memcmp(exp, act, ehead)) return false;
    if (!ecolon) return true;
    const char *sub = ecolon + 1;
    size_t sublen = elen - ehead - 1;
    while (sublen && *sub == ' ') sub++, sublen--;
    const char *msg = acolon + 1;
    size_t msglen = alen - ehead - 1;
    for (size_t i = 0; i + sublen <= msglen; i++)
        if (!memcmp(msg + i, sub, sublen)) return true;
    return false;
}

static bool log_matches(const char *exp, const char *act) {
    while (*exp && *act) {
        const char *ee = strchr(exp, '\n'), *ae = strchr(act, '\n');
        if (!ee || !ae) return false;
        if (!line_matches(exp, (size_t)(ee - exp), act, (size_t)(ae - act))) return false;
        exp = ee + 1;
        act = ae + 1;
    }
    return !*exp && !*act;
}

static void print_log(const char *title, const char *log) {
    fprintf(stderr, "  %s:\n", title);
    for (const char *s = log; *s;) {
        const char *e = strchr(s, '\n');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        fprintf(stderr, "    %.*s\n", (int)n, s);
        s += n + (e != NULL);
    }
}

static void print_input(const vcase *c) {
    dl_str q = {0};
    size_t n = c->input.len > 400 ? 400 : c->input.len;
    dl_str_quote(&q, c->input.p, n);
    fprintf(stderr, "  input (%zu bytes): %s%s\n", c->input.len, q.p,
            n < c->input.len ? "..." : "");
    dl_str_free(&q);
}

/* ---- running ---- */

static const char *const api_names[DL_API_COUNT] = {"rg_next",        "rg_feed",
                                                    "rg_feed+pause",  "rg_next_batch",
                                                    "rg_feed_inline", "rg_feed_inline+pause"};
static const char *const layout_names[] = {"compact", "retain", "junk"};

static void print_how(const dl_opts *o, const size_t *cuts, size_t ncuts) {
    fprintf(stderr, "  fed through %s, %s layout%s, in %zu piece%s", api_names[o->api],
            layout_names[o->layout], o->recall ? ", calling again after RG_NEED_MORE" : "",
            ncuts + 1, ncuts ? "s cut at" : "");
    for (size_t i = 0; i < ncuts; i++) fprintf(stderr, " %zu", cuts[i]);
    fputc('\n', stderr);
}

/* Decodes one way and compares with the reference log; false (after printing why) on mismatch. */
static bool run_one(const vcase *c, const dl_opts *o, const size_t *cuts, size_t ncuts,
                    const char *ref) {
    dl_arena arena = dl_guard_arena_make(&guard);
    dl_str log = {0};
    dl_decode(c->input.p, c->input.len, cuts, ncuts, o, &arena, &log);
    bool ok = !strcmp(log.p ? log.p : "", ref);
    if (!ok) {
        fprintf(stderr, "%s: case '%s': the log depends on how the input is fed\n", c->where,
                c->name);
        print_how(o, cuts, ncuts);
        print_input(c);
        print_log("whole input", ref);
        print_log("this split", log.p ? log.p : "");
    }
    dl_str_free(&log);
    return ok;
}

static void run_case(void **state) {
    const vcase *c = *state;
    const rg_limits *lim = c->has_limits ? &c->limits : NULL;
    size_t n = c->input.len;
    unsigned long allocs = dl_decoder_allocs;

    dl_opts whole = {lim, DL_NEXT, DL_COMPACT, false};
    dl_arena arena = dl_guard_arena_make(&guard);
    dl_str ref = {0};
    dl_decode(c->input.p, n, NULL, 0, &whole, &arena, &ref);
    if (!log_matches(c->expect.p, ref.p)) {
        fprintf(stderr, "%s: case '%s': unexpected events\n", c->where, c->name);
        print_input(c);
        print_log("expected", c->expect.p);
        print_log("got", ref.p);
        dl_str_free(&ref);
        fail_msg("case '%s': unexpected events", c->name);
    }

    size_t *cuts = malloc((n + 1) * sizeof *cuts);
    assert_non_null(cuts);
    bool ok = true;

    /* whole, through the other APIs and layouts */
    for (int api = DL_NEXT; api < DL_API_COUNT && ok; api++)
        for (int layout = DL_COMPACT; layout <= DL_JUNK && ok; layout++) {
            dl_opts o = {lim, (enum dl_api)api, (enum dl_layout)layout, true};
            ok = run_one(c, &o, NULL, 0, ref.p);
        }

    /* byte by byte */
    for (size_t i = 1; i < n; i++) cuts[i - 1] = i;
    for (int api = DL_NEXT; api < DL_API_COUNT && ok && n > 1; api++) {
        dl_opts o = {lim, (enum dl_api)api, (enum dl_layout)((api + 1) % 3), true};
        ok = run_one(c, &o, cuts, n - 1, ref.p);
    }

    /* every single split point */
    for (size_t k = 1; k < n && ok; k++) {
        dl_opts o = {lim, (enum dl_api)(k % DL_API_COUNT), (enum dl_layout)(k / DL_API_COUNT % 3),
                     k % 2 == 0};
        ok = run_one(c, &o, &k, 1, ref.p);
    }

    /* random splittings, seeded by the case name so a failure reproduces */
    uint64_t seed = dl_hash(c->name, strlen(c->name));
    for (int round = 0; round < RANDOM_SPLITS && ok && n > 1; round++) {
        uint64_t every = 1 + dl_rand(&seed) % 8;
        size_t ncuts = 0;
        for (size_t i = 1; i < n; i++)
            if (dl_rand(&seed) % every == 0) cuts[ncuts++] = i;
        uint64_t how = dl_rand(&seed);
        dl_opts o = {lim, (enum dl_api)(how % DL_API_COUNT),
                     (enum dl_layout)(how / DL_API_COUNT % 3), how / DL_API_COUNT / 3 % 2 == 1};
        ok = run_one(c, &o, cuts, ncuts, ref.p);
    }
    free(cuts);
    dl_str_free(&ref);
    if (!ok) fail_msg("case '%s': events depend on how the input is split", c->name);
    assert_int_equal(dl_decoder_allocs, allocs);
}

static void write_corpus(const char *dir) {
    mkdir(dir, 0777);
    for (size_t i = 0; i < ncases; i++) {
        char file[512], slug[80];
        size_t k = 0;
        for (const char *s = cases[i].name; *s && k + 1 < sizeof slug; s++)
            slug[k++] = isalnum((unsigned char)*s) ? (char)tolower((unsigned char)*s) : '_';
        slug[k] = '\0';
        snprintf(file, sizeof file, "%s/v_%s", dir, slug);
        FILE *f = fopen(file, "wb");
        if (!f || fwrite(cases[i].input.p, 1, cases[i].input.len, f) != cases[i].input.len ||
            fclose(f))
            die(file, "cannot write: %s", strerror(errno));
    }
    printf("wrote %zu files to %s\n", ncases, dir);
}

int main(int argc, char **argv) {
    const char *dir = getenv("RG_DEC_VECTORS");
    load_all(dir && *dir ? dir : RG_DEC_VECTOR_DIR);
    if (argc == 3 && !strcmp(argv[1], "--corpus")) {
        write_corpus(argv[2]);
        return 0;
    }

    size_t biggest = 0;
    for (size_t i = 0; i < ncases; i++)
        if (cases[i].input.len > biggest) biggest = cases[i].input.len;
    if (!dl_guard_arena_init(&guard, biggest + 64)) die("mmap", "cannot map the guard arena");

    struct CMUnitTest *tests = calloc(ncases, sizeof *tests);
    if (!tests) die("main", "out of memory");
    for (size_t i = 0; i < ncases; i++) {
        tests[i].name = cases[i].name;
        tests[i].test_func = run_case;
        tests[i].initial_state = &cases[i];
    }
    const char *filter = getenv("RG_VECTOR_FILTER");
    if (filter && *filter) cmocka_set_test_filter(filter);
    printf("%zu decoder vectors\n", ncases);
    int failed = _cmocka_run_group_tests("dec_vectors", tests, ncases, NULL, NULL);

    free(tests);
    for (size_t i = 0; i < ncases; i++) {
        dl_str_free(&cases[i].input);
        dl_str_free(&cases[i].expect);
    }
    free(cases);
    dl_guard_arena_free(&guard);
    return failed;
}
