/* `respgen dump`: reads a RESP stream in chunks, feeds the decoder and prints what it decodes.
 * See docs/dump.md for the user's view. */
#include "dump.h"

#include "dump_print.h"
#include "rg_dec.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { EXIT_OK = 0, EXIT_BAD_INPUT = 1, EXIT_USAGE = 2 };

#define DEFAULT_CHUNK ((size_t)64 * 1024)
/* Larger reads would only cost memory. */
#define MAX_CHUNK ((size_t)1024 * 1024 * 1024)
/* Payloads this long come as chunk events, printed as they arrive, so the input buffer never
 * has to hold a whole big string. */
#define STREAM_MIN ((uint64_t)64 * 1024)

typedef enum dump_mode { MODE_HUMAN, MODE_JSON, MODE_COUNT } dump_mode;

typedef struct dump_opts {
    dump_mode mode;
    bool mode_set;
    bool help;
    size_t chunk;
    rg_limits limits;
    const char *file; /* NULL or "-" for standard input */
} dump_opts;

static const char usage_text[] =
    "Usage: respgen dump [--json | --count] [--chunk N] [--max-depth N] [--max-bulk N] [FILE]\n"
    "Decode the RESP2/RESP3 stream in FILE (standard input when FILE is - or missing) and\n"
    "print each value as soon as it is complete.\n"
    "  --json         one JSON value per line instead of redis-cli's style\n"
    "  --count        print only \"<values> values, <bytes> bytes\"\n"
    "  --chunk N      feed the decoder at most N bytes at a time (default 65536)\n"
    "  --max-depth N  nest at most N aggregates (1..32, default 32)\n"
    "  --max-bulk N   accept strings of at most N bytes (default 536870912)\n"
    "  -h, --help     show this help\n"
    "Exit status: 0 all input decoded, 1 bad or truncated input or an I/O error, 2 bad usage.\n";

/* ---- Command line ---- */

/* A decimal number in [min, max], nothing else. */
static bool parse_number(const char *s, uint64_t min, uint64_t max, uint64_t *out) {
    uint64_t v = 0;
    if (*s == '\0') return false;
    for (; *s; s++) {
        const unsigned d = (unsigned)(*s - '0');
        if (d > 9 || v > (UINT64_MAX - d) / 10) return false;
        v = v * 10 + d;
    }
    *out = v;
    return v >= min && v <= max;
}

/* Each returns NULL or what is wrong with the value. */
typedef const char *(*option_fn)(dump_opts *o, const char *value);

static const char *set_mode(dump_opts *o, dump_mode mode) {
    if (o->mode_set && o->mode != mode) return "--json and --count exclude each other";
    o->mode = mode;
    o->mode_set = true;
    return NULL;
}

static const char *opt_json(dump_opts *o, const char *value) {
    (void)value;
    return set_mode(o, MODE_JSON);
}

static const char *opt_count(dump_opts *o, const char *value) {
    (void)value;
    return set_mode(o, MODE_COUNT);
}

static const char *opt_help(dump_opts *o, const char *value) {
    (void)value;
    o->help = true;
    return NULL;
}

static const char *opt_chunk(dump_opts *o, const char *value) {
    uint64_t v;
    if (!parse_number(value, 1, MAX_CHUNK, &v)) return "--chunk needs a number from 1 to 2^30";
    o->chunk = (size_t)v;
    return NULL;
}

static const char *opt_max_depth(dump_opts *o, const char *value) {
    uint64_t v;
    if (!parse_number(value, 1, RG_MAX_DEPTH, &v)) return "--max-depth needs a number from 1 to 32";
    o->limits.max_depth = (uint32_t)v;
    return NULL;
}

static const char *opt_max_bulk(dump_opts *o, const char *value) {
    uint64_t v;
    if (!parse_number(value, 1, UINT64_MAX, &v)) return "--max-bulk needs a positive number";
    o->limits.max_bulk = v;
    return NULL;
}

typedef struct option_spec {
    const char *name;
    bool takes_value;
    option_fn apply;
} option_spec;

static const option_spec options[] = {
    {"--json", false, opt_json},
    {"--count", false, opt_count},
    {"--chunk", true, opt_chunk},
    {"--max-depth", true, opt_max_depth},
    {"--max-bulk", true, opt_max_bulk},
    {"--help", false, opt_help},
    {"-h", false, opt_help},
};

static const option_spec *find_option(const char *name) {
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++)
        if (strcmp(options[i].name, name) == 0) return &options[i];
    return NULL;
}

static int usage_error(FILE *err, const char *what, const char *arg) {
    fprintf(err, "respgen dump: %s%s\nTry 'respgen dump --help'.\n", what, arg ? arg : "");
    return EXIT_USAGE;
}

/* Fills o from argv; returns EXIT_OK or EXIT_USAGE (after telling why). */
static int parse_args(dump_opts *o, size_t argc, const char *const *argv, FILE *err) {
    bool options_done = false;
    for (size_t i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!options_done && strcmp(a, "--") == 0) {
            options_done = true;
            continue;
        }
        if (options_done || a[0] != '-' || strcmp(a, "-") == 0) {
            if (o->file) return usage_error(err, "more than one FILE: ", a);
            o->file = a;
            continue;
        }
        const option_spec *spec = find_option(a);
        if (!spec) return usage_error(err, "unknown option ", a);
        if (spec->takes_value && ++i == argc) return usage_error(err, "missing value for ", a);
        const char *problem = spec->apply(o, spec->takes_value ? argv[i] : NULL);
        if (problem) return usage_error(err, problem, NULL);
    }
    return EXIT_OK;
}

/* ---- Input ---- */

/* Bytes read but not consumed yet: data[pos..len). */
typedef struct inbuf {
    char *data;
    size_t cap, pos, len;
} inbuf;

/* Makes room for n more bytes. The consumed prefix is dropped only once it is at least as long
 * as the unconsumed tail that has to move, so a long string arriving in small pieces costs
 * O(1) per byte overall, not a move of everything held on every read. */
static bool inbuf_reserve(inbuf *b, size_t n) {
    if (b->cap - b->len >= n) return true;
    const size_t tail = b->len - b->pos;
    if (b->pos > 0 && b->pos >= tail) {
        memmove(b->data, b->data + b->pos, tail);
        b->pos = 0;
        b->len = tail;
        if (b->cap - b->len >= n) return true;
    }
    size_t cap = b->cap ? b->cap : 2 * n;
    while (cap - b->len < n) {
        if (cap > SIZE_MAX / 2) return false;
        cap *= 2;
    }
    char *data = realloc(b->data, cap);
    if (!data) return false;
    b->data = data;
    b->cap = cap;
    return true;
}

/* Reads at most n bytes into the buffer: how many (0 at end of input), or -1 with errno set. */
static ssize_t inbuf_read(inbuf *b, int fd, size_t n) {
    ssize_t got;
    do got = read(fd, b->data + b->len, n);
    while (got < 0 && errno == EINTR);
    if (got > 0) b->len += (size_t)got;
    return got;
}

/* ---- Decoding ---- */

typedef enum outcome {
    RUN_DONE,      /* all input decoded */
    RUN_TRUNCATED, /* the input ends inside a value */
    RUN_DECODE,    /* the decoder reported an error */
    RUN_EVENT,     /* the decoder produced an event that does not fit (a decoder bug) */
    RUN_READ,      /* reading failed; errno in sys_errno */
    RUN_MEMORY     /* the input buffer could not grow */
} outcome;

typedef struct dump_run {
    rg_reader reader;
    inbuf in;
    rg_out out;
    rg_printer printer;
    bool print;        /* false for --count */
    uint64_t last_end; /* stream offset just past the last complete top-level value */
    int sys_errno;
} dump_run;

/* Decodes everything the buffer holds. True when it ran out of input, else *failure says why. */
static bool decode_buffered(dump_run *d, outcome *failure) {
    rg_event ev;
    rg_status st;
    while ((st = rg_next(&d->reader, d->in.data, d->in.len, &d->in.pos, &ev)) == RG_OK) {
        if (d->print && !rg_printer_event(&d->printer, &ev)) {
            *failure = RUN_EVENT;
            return false;
        }
        if (ev.complete) d->last_end = rg_reader_offset(&d->reader);
    }
    *failure = RUN_DECODE;
    return st == RG_NEED_MORE;
}

/* The read-decode loop. Output is flushed before every read, so values show up while a slow
 * producer is still writing. */
static outcome decode_stream(dump_run *d, int fd, size_t chunk) {
    for (;;) {
        outcome failure;
        if (!decode_buffered(d, &failure)) return failure;
        rg_out_flush(&d->out);
        if (!inbuf_reserve(&d->in, chunk)) return RUN_MEMORY;
        const ssize_t got = inbuf_read(&d->in, fd, chunk);
        if (got < 0) {
            d->sys_errno = errno;
            return RUN_READ;
        }
        if (got == 0) break;
    }
    /* A partial token at the end is not consumed, so the reader may look idle with bytes left. */
    const bool idle = rg_reader_idle(&d->reader) && d->in.pos == d->in.len;
    return idle ? RUN_DONE : RUN_TRUNCATED;
}

/* Tells what went wrong; the exit status. */
static int report(dump_run *d, outcome o, const char *name, FILE *err) {
    rg_error e;
    switch (o) {
    case RUN_DONE: return EXIT_OK;
    case RUN_TRUNCATED:
        fprintf(err, "respgen: input ends inside a value at byte %" PRIu64 "\n", d->last_end);
        break;
    case RUN_DECODE:
        e = rg_reader_error(&d->reader);
        fprintf(err, "respgen: protocol error at byte %" PRIu64 ": %.*s\n", e.offset,
                (int)e.msg.len, e.msg.ptr);
        break;
    case RUN_EVENT:
        fprintf(err,
                "respgen: internal error: the decoder produced an event out of place after "
                "byte %" PRIu64 "\n",
                rg_reader_offset(&d->reader));
        break;
    case RUN_READ:
        fprintf(err, "respgen: cannot read %s: %s\n", name, strerror(d->sys_errno));
        break;
    case RUN_MEMORY: fprintf(err, "respgen: out of memory\n"); break;
    }
    return EXIT_BAD_INPUT;
}

static void print_count(dump_run *d) {
    char line[64];
    const int n = snprintf(line, sizeof line, "%" PRIu64 " values, %" PRIu64 " bytes\n",
                           rg_reader_values(&d->reader), d->last_end);
    rg_out_write(&d->out, line, (size_t)n);
    rg_out_commit(&d->out);
}

static int dump_fd(const dump_opts *o, int fd, const char *name, FILE *out, FILE *err) {
    dump_run *d = calloc(1, sizeof *d); /* the reader and printer are a few KiB: not the stack */
    if (!d) {
        fputs("respgen: out of memory\n", err);
        return EXIT_BAD_INPUT;
    }
    rg_reader_init(&d->reader, &o->limits);
    rg_out_init(&d->out, out);
    rg_printer_init(&d->printer, &d->out, o->mode == MODE_JSON ? RG_DUMP_JSON : RG_DUMP_HUMAN);
    d->print = o->mode != MODE_COUNT;

    const outcome result = decode_stream(d, fd, o->chunk);
    /* Only complete values are printed: the text of one cut short goes. */
    rg_out_abandon(&d->out);
    if (!d->print) print_count(d);
    const bool written = rg_out_flush(&d->out);
    int status = report(d, result, name, err);
    if (!written) {
        fprintf(err, "respgen: cannot write the output: %s\n", strerror(d->out.err));
        status = EXIT_BAD_INPUT;
    }
    rg_out_free(&d->out);
    free(d->in.data);
    free(d);
    return status;
}

int rg_dump_main(size_t argc, const char *const *argv, FILE *out, FILE *err) {
    dump_opts o = {.mode = MODE_HUMAN, .chunk = DEFAULT_CHUNK, .limits = rg_limits_default()};
    o.limits.stream_min = STREAM_MIN;
    if (parse_args(&o, argc, argv, err) != EXIT_OK) return EXIT_USAGE;
    if (o.help) {
        fputs(usage_text, out);
        return fflush(out) == 0 ? EXIT_OK : EXIT_BAD_INPUT;
    }
    const bool use_stdin = !o.file || strcmp(o.file, "-") == 0;
    const char *name = use_stdin ? "standard input" : o.file;
    const int fd = use_stdin ? STDIN_FILENO : open(o.file, O_RDONLY);
    if (fd < 0) {
        fprintf(err, "respgen: cannot open %s: %s\n", name, strerror(errno));
        return EXIT_BAD_INPUT;
    }
    fflush(out);
    const int status = dump_fd(&o, fd, name, out, err);
    if (!use_stdin) close(fd);
    return status;
}
