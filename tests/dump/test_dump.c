/* End-to-end tests of the respgen executable: `respgen dump` on every RESP type in both formats,
 * its errors and exit statuses, chunked input, and the top-level command line. The binary's path
 * comes in $RESPGEN. */
#include <fcntl.h>
#include <setjmp.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

extern char **environ;

/* ---- Running the binary ---- */

typedef struct run_result {
    char *out, *err;
    size_t out_len, err_len;
    int status; /* exit status, or 128 + signal */
} run_result;

static char *temp_file(const void *data, size_t len) {
    const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char *path = malloc(strlen(dir) + sizeof "/respgen-test-XXXXXX");
    assert_non_null(path);
    sprintf(path, "%s/respgen-test-XXXXXX", dir);
    const int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, data, len), (ssize_t)len);
    close(fd);
    return path;
}

static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t cap = 4096, n = 0;
    char *data = malloc(cap + 1);
    for (size_t got; (got = fread(data + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) data = realloc(data, (cap *= 2) + 1);
        assert_non_null(data);
    }
    fclose(f);
    data[n] = '\0';
    *len = n;
    return data;
}

/* Runs `respgen args...` (args NULL-terminated) with stdin holding input. */
static run_result run(const char *const *args, const void *input, size_t len) {
    const char *exe = getenv("RESPGEN");
    assert_non_null(exe);
    char *in = temp_file(input, len), *out = temp_file("", 0), *err = temp_file("", 0);
    const char *argv[32] = {exe};
    size_t argc = 1;
    for (; args[argc - 1]; argc++) {
        assert_true(argc < 31);
        argv[argc] = args[argc - 1];
    }
    argv[argc] = NULL;

    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, in, O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_TRUNC, 0);
    posix_spawn_file_actions_addopen(&fa, 2, err, O_WRONLY | O_TRUNC, 0);
    pid_t pid;
    assert_int_equal(posix_spawn(&pid, exe, &fa, NULL, (char *const *)argv, environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    int ws;
    assert_int_equal(waitpid(pid, &ws, 0), pid);

    run_result r = {.status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws)};
    r.out = slurp(out, &r.out_len);
    r.err = slurp(err, &r.err_len);
    unlink(in);
    unlink(out);
    unlink(err);
    free(in);
    free(out);
    free(err);
    return r;
}

static void run_free(run_result *r) {
    free(r->out);
    free(r->err);
}

/* Exact text, and no stray NUL hiding a difference. */
static void expect_text(const char *actual, size_t len, const char *expected) {
    assert_string_equal(actual, expected);
    assert_int_equal(len, strlen(expected));
}

static void expect_run(const run_result *r, const char *out, const char *err, int status) {
    expect_text(r->out, r->out_len, out);
    expect_text(r->err, r->err_len, err);
    assert_int_equal(r->status, status);
}

/* ---- Table of dump runs ---- */

typedef struct dump_case {
    const char *name;
    const char *args[6]; /* after "dump" */
    const char *input;
    size_t input_len;
    const char *out, *err;
    int status;
} dump_case;

#define IN(s) (s), sizeof(s) - 1
#define JSON  "--json"
#define COUNT "--count"

static const dump_case cases[] = {
    /* Human style, every type. */
    {"simple",
     {0},
     IN("+OK\r\n+a\x01"
        "b\r\n"),
     "OK\na\\x01b\n",
     "",
     0},
    {"error", {0}, IN("-ERR x\r\n"), "(error) ERR x\n", "", 0},
    {"integer",
     {0},
     IN(":5\r\n:-9223372036854775808\r\n:9223372036854775807\r\n"),
     "(integer) 5\n(integer) -9223372036854775808\n(integer) 9223372036854775807\n",
     "",
     0},
    {"bulk",
     {0},
     IN("$0\r\n\r\n$9\r\na\"\\\0\r\n\t\xff\a\r\n"),
     "\"\"\n\"a\\\"\\\\\\x00\\r\\n\\t\\xff\\a\"\n",
     "",
     0},
    {"null", {0}, IN("$-1\r\n_\r\n*-1\r\n"), "(nil)\n(nil)\n(nil)\n", "", 0},
    {"bool", {0}, IN("#t\r\n#f\r\n"), "(true)\n(false)\n", "", 0},
    {"double",
     {0},
     IN(",1.5\r\n,-inf\r\n,nan\r\n,1e10\r\n,0.1\r\n"),
     "(double) 1.5\n(double) -inf\n(double) nan\n(double) 1e10\n(double) 0.1\n",
     "",
     0},
    {"bignum",
     {0},
     IN("(-123456789012345678901234567890\r\n"),
     "(big number) -123456789012345678901234567890\n",
     "",
     0},
    {"verbatim",
     {0},
     IN("=15\r\ntxt:Some string\r\n=8\r\nmkd:a\r\nb\r\n"),
     "(verbatim txt) \"Some string\"\n(verbatim mkd) \"a\\r\\nb\"\n",
     "",
     0},
    {"blob error",
     {0},
     IN("!21\r\nSYNTAX invalid syntax\r\n"),
     "(error) SYNTAX invalid syntax\n",
     "",
     0},
    {"array",
     {0},
     IN("*3\r\n:1\r\n*2\r\n$1\r\na\r\n*0\r\n$1\r\nb\r\n"),
     "1) (integer) 1\n2) 1) \"a\"\n   2) (empty array)\n3) \"b\"\n",
     "",
     0},
    {"array index width",
     {0},
     IN("*10\r\n:1\r\n:2\r\n:3\r\n:4\r\n:5\r\n:6\r\n:7\r\n:8\r\n:9\r\n*2\r\n:1\r\n:2\r\n"),
     " 1) (integer) 1\n 2) (integer) 2\n 3) (integer) 3\n 4) (integer) 4\n 5) (integer) 5\n"
     " 6) (integer) 6\n 7) (integer) 7\n 8) (integer) 8\n 9) (integer) 9\n"
     "10) 1) (integer) 1\n    2) (integer) 2\n",
     "",
     0},
    {"map",
     {0},
     IN("%2\r\n+k\r\n*2\r\n:1\r\n:2\r\n$2\r\nk2\r\n_\r\n"),
     "1# k => 1) (integer) 1\n   2) (integer) 2\n2# \"k2\" => (nil)\n",
     "",
     0},
    {"set", {0}, IN("~2\r\n:1\r\n$1\r\nx\r\n"), "1~ (integer) 1\n2~ \"x\"\n", "", 0},
    {"push",
     {0},
     IN(">3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$2\r\nhi\r\n"),
     "(push)\n1) \"message\"\n2) \"ch\"\n3) \"hi\"\n",
     "",
     0},
    {"empty aggregates",
     {0},
     IN("*0\r\n%0\r\n~0\r\n>0\r\n"),
     "(empty array)\n(empty hash)\n(empty set)\n(empty push)\n",
     "",
     0},
    {"attribute",
     {0},
     IN("|1\r\n+ttl\r\n:3600\r\n$3\r\nval\r\n"),
     "(attribute)\n1# ttl => (integer) 3600\n\"val\"\n",
     "",
     0},
    {"nested attributes",
     {0},
     IN("*2\r\n|1\r\n+a\r\n+b\r\n:1\r\n%1\r\n+k\r\n|1\r\n+c\r\n+d\r\n:2\r\n"),
     "1) (attribute)\n   1# a => b\n   (integer) 1\n"
     "2) 1# k => (attribute)\n      1# c => d\n      (integer) 2\n",
     "",
     0},
    {"attribute of an attribute",
     {0},
     IN("|1\r\n+a\r\n+b\r\n|1\r\n+c\r\n+d\r\n:1\r\n"),
     "(attribute)\n1# a => b\n(attribute)\n1# c => d\n(integer) 1\n",
     "",
     0},
    {"streamed",
     {0},
     IN("$?\r\n;4\r\nHell\r\n;1\r\no\r\n;0\r\n*?\r\n:1\r\n*?\r\n.\r\n.\r\n%?\r\n+a\r\n:1\r\n.\r\n"),
     "\"Hello\"\n1) (integer) 1\n2) (empty array)\n1# a => (integer) 1\n",
     "",
     0},
    {"streamed index width",
     {0},
     IN("*?\r\n:1\r\n:2\r\n:3\r\n:4\r\n:5\r\n:6\r\n:7\r\n:8\r\n:9\r\n:10\r\n.\r\n"),
     "1) (integer) 1\n2) (integer) 2\n3) (integer) 3\n4) (integer) 4\n5) (integer) 5\n"
     "6) (integer) 6\n7) (integer) 7\n8) (integer) 8\n9) (integer) 9\n10) (integer) 10\n",
     "",
     0},
    {"empty input", {0}, IN(""), "", "", 0},

    /* JSON, every type. */
    {"json simple",
     {JSON},
     IN("+OK\r\n+a\x01"
        "b\r\n"),
     "{\"simple\":\"OK\"}\n{\"simple\":\"a\\u0001b\"}\n",
     "",
     0},
    {"json error", {JSON}, IN("-ERR x\r\n"), "{\"error\":\"ERR x\"}\n", "", 0},
    {"json integer",
     {JSON},
     IN(":5\r\n:-9223372036854775808\r\n:9223372036854775807\r\n"),
     "{\"int\":5}\n{\"int\":-9223372036854775808}\n{\"int\":9223372036854775807}\n",
     "",
     0},
    {"json bulk",
     {JSON},
     IN("$0\r\n\r\n$12\r\na\"\\\0\r\n\t\x7f\x80\xff\a\b\r\n"),
     "{\"bulk\":\"\"}\n"
     "{\"bulk\":\"a\\\"\\\\\\u0000\\r\\n\\t\\u007f\xc2\x80\xc3\xbf\\u0007\\b\"}\n",
     "",
     0},
    {"json null", {JSON}, IN("$-1\r\n_\r\n*-1\r\n"), "null\nnull\nnull\n", "", 0},
    {"json bool", {JSON}, IN("#t\r\n#f\r\n"), "true\nfalse\n", "", 0},
    {"json double",
     {JSON},
     IN(",1.5\r\n,-inf\r\n,inf\r\n,nan\r\n,1e10\r\n,0.1\r\n,-0\r\n"),
     "{\"double\":1.5}\n{\"double\":\"-inf\"}\n{\"double\":\"inf\"}\n{\"double\":\"nan\"}\n"
     "{\"double\":10000000000}\n{\"double\":0.1}\n{\"double\":-0}\n",
     "",
     0},
    {"json double round trip",
     {JSON},
     IN(",0.30000000000000004\r\n,1.7976931348623157e308\r\n"),
     "{\"double\":0.30000000000000004}\n{\"double\":1.7976931348623157e+308}\n",
     "",
     0},
    {"json bignum",
     {JSON},
     IN("(-123456789012345678901234567890\r\n"),
     "{\"big\":\"-123456789012345678901234567890\"}\n",
     "",
     0},
    {"json verbatim",
     {JSON},
     IN("=15\r\ntxt:Some string\r\n=8\r\nmkd:a\r\nb\r\n"),
     "{\"verbatim\":\"Some string\",\"format\":\"txt\"}\n"
     "{\"verbatim\":\"a\\r\\nb\",\"format\":\"mkd\"}\n",
     "",
     0},
    {"json blob error",
     {JSON},
     IN("!21\r\nSYNTAX invalid syntax\r\n"),
     "{\"error\":\"SYNTAX invalid syntax\"}\n",
     "",
     0},
    {"json array",
     {JSON},
     IN("*3\r\n:1\r\n*2\r\n$1\r\na\r\n*0\r\n$1\r\nb\r\n"),
     "[{\"int\":1},[{\"bulk\":\"a\"},[]],{\"bulk\":\"b\"}]\n",
     "",
     0},
    {"json map",
     {JSON},
     IN("%2\r\n+k\r\n*2\r\n:1\r\n:2\r\n$2\r\nk2\r\n_\r\n"),
     "{\"map\":[[{\"simple\":\"k\"},[{\"int\":1},{\"int\":2}]],[{\"bulk\":\"k2\"},null]]}\n",
     "",
     0},
    {"json set",
     {JSON},
     IN("~2\r\n:1\r\n$1\r\nx\r\n"),
     "{\"set\":[{\"int\":1},{\"bulk\":\"x\"}]}\n",
     "",
     0},
    {"json push",
     {JSON},
     IN(">3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$2\r\nhi\r\n"),
     "{\"push\":[{\"bulk\":\"message\"},{\"bulk\":\"ch\"},{\"bulk\":\"hi\"}]}\n",
     "",
     0},
    {"json empty aggregates",
     {JSON},
     IN("*0\r\n%0\r\n~0\r\n>0\r\n"),
     "[]\n{\"map\":[]}\n{\"set\":[]}\n{\"push\":[]}\n",
     "",
     0},
    {"json attribute",
     {JSON},
     IN("|1\r\n+ttl\r\n:3600\r\n$3\r\nval\r\n"),
     "{\"attr\":[[{\"simple\":\"ttl\"},{\"int\":3600}]],\"value\":{\"bulk\":\"val\"}}\n",
     "",
     0},
    {"json nested attributes",
     {JSON},
     IN("*2\r\n|1\r\n+a\r\n+b\r\n:1\r\n%1\r\n+k\r\n|1\r\n+c\r\n+d\r\n:2\r\n"),
     "[{\"attr\":[[{\"simple\":\"a\"},{\"simple\":\"b\"}]],\"value\":{\"int\":1}},"
     "{\"map\":[[{\"simple\":\"k\"},"
     "{\"attr\":[[{\"simple\":\"c\"},{\"simple\":\"d\"}]],\"value\":{\"int\":2}}]]}]\n",
     "",
     0},
    {"json attribute of an attribute",
     {JSON},
     IN("|1\r\n+a\r\n+b\r\n|1\r\n+c\r\n+d\r\n:1\r\n"),
     "{\"attr\":[[{\"simple\":\"a\"},{\"simple\":\"b\"}]],\"value\":"
     "{\"attr\":[[{\"simple\":\"c\"},{\"simple\":\"d\"}]],\"value\":{\"int\":1}}}\n",
     "",
     0},
    {"json streamed",
     {JSON},
     IN("$?\r\n;4\r\nHell\r\n;1\r\no\r\n;0\r\n*?\r\n:1\r\n*?\r\n.\r\n.\r\n%?\r\n+a\r\n:1\r\n.\r\n"),
     "{\"bulk\":\"Hello\"}\n[{\"int\":1},[]]\n{\"map\":[[{\"simple\":\"a\"},{\"int\":1}]]}\n",
     "",
     0},

    /* Bad input: the values before the problem, then one line on stderr. */
    {"protocol error",
     {0},
     IN("+OK\r\n*2\r\n:1\r\n?x\r\n"),
     "OK\n",
     "respgen: protocol error at byte 13: invalid type byte\n",
     1},
    {"json protocol error",
     {JSON},
     IN("+OK\r\n*2\r\n:1\r\n?x\r\n"),
     "{\"simple\":\"OK\"}\n",
     "respgen: protocol error at byte 13: invalid type byte\n",
     1},
    {"truncated aggregate",
     {0},
     IN("+OK\r\n*2\r\n:1\r\n"),
     "OK\n",
     "respgen: input ends inside a value at byte 5\n",
     1},
    {"json truncated aggregate",
     {JSON},
     IN("+OK\r\n*2\r\n:1\r\n"),
     "{\"simple\":\"OK\"}\n",
     "respgen: input ends inside a value at byte 5\n",
     1},
    {"truncated token",
     {0},
     IN("+OK\r\n:12"),
     "OK\n",
     "respgen: input ends inside a value at byte 5\n",
     1},
    {"truncated bulk",
     {JSON},
     IN(":1\r\n$5\r\nab"),
     "{\"int\":1}\n",
     "respgen: input ends inside a value at byte 4\n",
     1},
    {"attribute without its value",
     {0},
     IN("|1\r\n+a\r\n+b\r\n"),
     "",
     "respgen: input ends inside a value at byte 0\n",
     1},
    {"max depth",
     {"--max-depth", "2"},
     IN(":1\r\n*1\r\n*1\r\n*1\r\n:1\r\n"),
     "(integer) 1\n",
     "respgen: protocol error at byte 12: nesting deeper than the limit\n",
     1},
    {"max bulk",
     {JSON, "--max-bulk", "5"},
     IN(":1\r\n$5\r\n01234\r\n$6\r\n012345\r\n"),
     "{\"int\":1}\n{\"bulk\":\"01234\"}\n",
     "respgen: protocol error at byte 15: bulk length over the limit\n",
     1},

    /* --count */
    {"count",
     {COUNT},
     IN("+OK\r\n*2\r\n:1\r\n:2\r\n$?\r\n;1\r\na\r\n;0\r\n"),
     "3 values, 32 bytes\n",
     "",
     0},
    {"count empty", {COUNT}, IN(""), "0 values, 0 bytes\n", "", 0},
    {"count protocol error",
     {COUNT},
     IN("+OK\r\n*2\r\n:1\r\n?x\r\n"),
     "1 values, 5 bytes\n",
     "respgen: protocol error at byte 13: invalid type byte\n",
     1},
    {"count truncated",
     {COUNT},
     IN("+OK\r\n*2\r\n:1\r\n"),
     "1 values, 5 bytes\n",
     "respgen: input ends inside a value at byte 5\n",
     1},
};

/* Appends "--chunk n" (when n is not NULL) to a case's arguments, after "dump". */
static void case_args(const dump_case *c, const char *chunk, const char *argv[12]) {
    size_t n = 0;
    argv[n++] = "dump";
    for (size_t i = 0; i < 6 && c->args[i]; i++) argv[n++] = c->args[i];
    if (chunk) {
        argv[n++] = "--chunk";
        argv[n++] = chunk;
    }
    argv[n] = NULL;
}

/* Whatever the chunk size, the output is the same. */
static void run_case(void **state) {
    const dump_case *c = *state;
    static const char *const chunks[] = {NULL, "1", "7", "65536"};
    for (size_t i = 0; i < sizeof chunks / sizeof chunks[0]; i++) {
        const char *argv[12];
        case_args(c, chunks[i], argv);
        run_result r = run(argv, c->input, c->input_len);
        if (chunks[i]) print_message("  with --chunk %s\n", chunks[i]);
        expect_run(&r, c->out, c->err, c->status);
        run_free(&r);
    }
}

/* ---- Larger inputs ---- */

/* The JSON string escaping the docs promise, written independently of the tool. */
static size_t json_escape_ref(const unsigned char *s, size_t n, char *out) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const unsigned c = s[i];
        const char *named = c == '"'    ? "\\\""
                            : c == '\\' ? "\\\\"
                            : c == '\n' ? "\\n"
                            : c == '\r' ? "\\r"
                            : c == '\t' ? "\\t"
                            : c == '\b' ? "\\b"
                            : c == '\f' ? "\\f"
                                        : NULL;
        if (named) {
            k += (size_t)sprintf(out + k, "%s", named);
        } else if (c < 0x20 || c == 0x7f) {
            k += (size_t)sprintf(out + k, "\\u%04x", c);
        } else if (c >= 0x80) {
            out[k++] = (char)(0xc0 | c >> 6);
            out[k++] = (char)(0x80 | (c & 0x3f));
        } else {
            out[k++] = (char)c;
        }
    }
    out[k] = '\0';
    return k;
}

/* Payloads long enough to come as chunk events, every byte value, any chunk size. */
static void big_strings(void **state) {
    (void)state;
    const size_t n = 300000;
    unsigned char *payload = malloc(n);
    assert_non_null(payload);
    for (size_t i = 0; i < n; i++) payload[i] = (unsigned char)(i * 7 + i / 256);
    char *input = malloc(2 * n + 100);
    size_t len = (size_t)sprintf(input, "$%zu\r\n", n);
    memcpy(input + len, payload, n);
    len += n;
    len += (size_t)sprintf(input + len, "\r\n=%zu\r\nbin:", n + 4);
    memcpy(input + len, payload, n);
    len += n;
    memcpy(input + len, "\r\n", 2);
    len += 2;

    char *text = malloc(6 * n + 1);
    json_escape_ref(payload, n, text);
    char *expected = malloc(12 * n + 100);
    sprintf(expected, "{\"bulk\":\"%s\"}\n{\"verbatim\":\"%s\",\"format\":\"bin\"}\n", text, text);

    static const char *const chunks[] = {"65536", "7", "1000000"};
    for (size_t i = 0; i < sizeof chunks / sizeof chunks[0]; i++) {
        const char *argv[] = {"dump", "--json", "--chunk", chunks[i], NULL};
        run_result r = run(argv, input, len);
        expect_run(&r, expected, "", 0);
        run_free(&r);
    }
    const char *argv[] = {"dump", "--count", NULL};
    run_result r = run(argv, input, len);
    char count[64];
    sprintf(count, "2 values, %zu bytes\n", len);
    expect_run(&r, count, "", 0);
    run_free(&r);
    free(payload);
    free(input);
    free(text);
    free(expected);
}

/* A value cut short is dropped, unless its text grew too big to hold back: then what was shown
 * ends with a newline, so the error message stands on its own line. */
static void huge_truncated_value(void **state) {
    (void)state;
    const size_t n = 2000000;
    char *input = malloc(n + 100);
    size_t len = (size_t)sprintf(input, ":1\r\n*2\r\n$%zu\r\n", n);
    memset(input + len, 'x', n);
    len += n;
    memcpy(input + len, "\r\n", 2);
    len += 2;
    char *expected = malloc(n + 100);
    size_t k = (size_t)sprintf(expected, "{\"int\":1}\n[{\"bulk\":\"");
    memset(expected + k, 'x', n);
    strcpy(expected + k + n, "\"}\n");
    const char *argv[] = {"dump", "--json", NULL};
    run_result r = run(argv, input, len);
    expect_run(&r, expected, "respgen: input ends inside a value at byte 4\n", 1);
    run_free(&r);
    free(input);
    free(expected);
}

/* ---- Command lines ---- */

static void dump_reads_file_argument(void **state) {
    (void)state;
    char *path = temp_file(":1\r\n", 4);
    const char *argv[] = {"dump", path, NULL};
    run_result r = run(argv, "+ignored\r\n", 10);
    expect_run(&r, "(integer) 1\n", "", 0);
    run_free(&r);
    const char *dash[] = {"dump", "--json", "-", NULL};
    r = run(dash, ":2\r\n", 4);
    expect_run(&r, "{\"int\":2}\n", "", 0);
    run_free(&r);
    unlink(path);
    free(path);
}

static void dump_missing_file(void **state) {
    (void)state;
    const char *argv[] = {"dump", "/nonexistent/respgen-test", NULL};
    run_result r = run(argv, "", 0);
    expect_run(&r, "",
               "respgen: cannot open /nonexistent/respgen-test: No such file or directory\n", 1);
    run_free(&r);
}

static void dump_usage_errors(void **state) {
    (void)state;
    static const struct {
        const char *args[5];
        const char *err;
    } bad[] = {
        {{"--json", "--count"}, "respgen dump: --json and --count exclude each other\n"},
        {{"--chunk", "0"}, "respgen dump: --chunk needs a number from 1 to 2^30\n"},
        {{"--chunk", "12x"}, "respgen dump: --chunk needs a number from 1 to 2^30\n"},
        {{"--chunk"}, "respgen dump: missing value for --chunk\n"},
        {{"--max-depth", "33"}, "respgen dump: --max-depth needs a number from 1 to 32\n"},
        {{"--max-bulk", "-1"}, "respgen dump: --max-bulk needs a positive number\n"},
        {{"--frob"}, "respgen dump: unknown option --frob\n"},
        {{"a", "b"}, "respgen dump: more than one FILE: b\n"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *argv[8] = {"dump"};
        for (size_t j = 0; j < 5 && bad[i].args[j]; j++) argv[j + 1] = bad[i].args[j];
        run_result r = run(argv, "", 0);
        char err[200];
        snprintf(err, sizeof err, "%sTry 'respgen dump --help'.\n", bad[i].err);
        expect_run(&r, "", err, 2);
        run_free(&r);
    }
}

static void dump_help(void **state) {
    (void)state;
    const char *argv[] = {"dump", "--help", NULL};
    run_result r = run(argv, "", 0);
    assert_int_equal(r.status, 0);
    assert_true(strncmp(r.out, "Usage: respgen dump [--json | --count]", 38) == 0);
    expect_text(r.err, r.err_len, "");
    run_free(&r);
}

static void help(void **state) {
    (void)state;
    static const char *const flags[] = {"--help", "-h"};
    for (size_t i = 0; i < 2; i++) {
        const char *argv[] = {flags[i], NULL};
        run_result r = run(argv, "", 0);
        assert_int_equal(r.status, 0);
        assert_true(strncmp(r.out, "Usage:\n  respgen [-o OUTDIR]", 28) == 0);
        assert_non_null(strstr(r.out, "\n  respgen dump [--json | --count]"));
        assert_non_null(strstr(r.out, "\n  respgen --version"));
        expect_text(r.err, r.err_len, "");
        run_free(&r);
    }
}

static void version(void **state) {
    (void)state;
    const char *argv[] = {"--version", NULL};
    run_result r = run(argv, "", 0);
    assert_int_equal(r.status, 0);
    assert_true(strncmp(r.out, "respgen 0.1.0 (Lua 5.4.", 23) == 0);
    assert_int_equal(r.out[r.out_len - 1], '\n');
    expect_text(r.err, r.err_len, "");
    run_free(&r);
}

static void unknown_option(void **state) {
    (void)state;
    const char *argv[] = {"--bogus", "x.spec", NULL};
    run_result r = run(argv, "", 0);
    expect_run(&r, "", "respgen: unknown option '--bogus'\nTry 'respgen --help'.\n", 2);
    run_free(&r);
    const char *value[] = {"-o", NULL};
    r = run(value, "", 0);
    expect_run(&r, "", "respgen: option '-o' needs a value (OUTDIR)\nTry 'respgen --help'.\n", 2);
    run_free(&r);
}

static void no_arguments(void **state) {
    (void)state;
    const char *argv[] = {NULL};
    run_result r = run(argv, "", 0);
    assert_int_equal(r.status, 2);
    expect_text(r.out, r.out_len, "");
    assert_true(strncmp(r.err, "Usage:\n", 7) == 0);
    run_free(&r);
}

int main(void) {
    enum { NCASES = sizeof cases / sizeof cases[0] };
    static const struct CMUnitTest fixed[] = {
        cmocka_unit_test(big_strings),
        cmocka_unit_test(huge_truncated_value),
        cmocka_unit_test(dump_reads_file_argument),
        cmocka_unit_test(dump_missing_file),
        cmocka_unit_test(dump_usage_errors),
        cmocka_unit_test(dump_help),
        cmocka_unit_test(help),
        cmocka_unit_test(version),
        cmocka_unit_test(unknown_option),
        cmocka_unit_test(no_arguments),
    };
    enum { NFIXED = sizeof fixed / sizeof fixed[0] };
    struct CMUnitTest tests[NCASES + NFIXED];
    for (size_t i = 0; i < NCASES; i++)
        tests[i] = (struct CMUnitTest){
            .name = cases[i].name, .test_func = run_case, .initial_state = (void *)&cases[i]};
    memcpy(tests + NCASES, fixed, sizeof fixed);
    return _cmocka_run_group_tests("dump", tests, NCASES + NFIXED, NULL, NULL);
}
