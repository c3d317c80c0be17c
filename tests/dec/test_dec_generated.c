/* Random well-formed RESP2/RESP3 from a seeded generator that writes, next to the bytes, the event
 * log a correct decoder must produce. Unlike the split tests, which compare the decoder with
 * itself, this checks it against an independent oracle over nesting, attributes, streamed
 * strings and aggregates, chunked payloads and pipelining, then feeds each message in random
 * pieces too. */
#include "declog.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define MESSAGES           1500
#define SPLITS_PER_MESSAGE 12
#define MAX_NEST           6

typedef struct gen {
    uint64_t seed;
    uint64_t stream_min; /* payloads this long or longer are chunked */
    dl_str in, exp;
} gen;

static uint64_t rnd(gen *g, uint64_t n) {
    return dl_rand(&g->seed) % n;
}

static void finish_line(gen *g, unsigned d, bool complete) {
    dl_str_addf(&g->exp, " d%u%s\n", d, complete ? " complete" : "");
}

/* Random bytes; a line's text may hold anything but CR and LF. */
static void random_text(gen *g, char *out, size_t n, bool line) {
    static const char friendly[] = "abcXYZ019 :;+-*$%_#,.=!(|>~?\"\\\t";
    for (size_t i = 0; i < n; i++) {
        char c = rnd(g, 4) ? friendly[rnd(g, sizeof friendly - 1)] : (char)rnd(g, 256);
        if (line && (c == '\r' || c == '\n')) c = 'x';
        out[i] = c;
    }
}

static void gen_line(gen *g, char type, const char *name, unsigned d) {
    char text[40];
    size_t n = rnd(g, 4) ? rnd(g, 12) : rnd(g, sizeof text);
    random_text(g, text, n, true);
    dl_str_addf(&g->in, "%c", type);
    dl_str_add(&g->in, text, n);
    dl_str_add(&g->in, "\r\n", 2);
    dl_str_addf(&g->exp, "%s ", name);
    dl_str_quote(&g->exp, text, n);
    finish_line(g, d, d == 0);
}

/* A payload of the blob types, chunked once it reaches stream_min. */
static void gen_blob(gen *g, char type, const char *name, unsigned d) {
    char text[64];
    const char *fmt = rnd(g, 2) ? "txt" : "mkd";
    size_t n = rnd(g, 3) ? rnd(g, 12) : rnd(g, sizeof text);
    random_text(g, text, n, false);
    size_t total = n + (type == '=' ? 4 : 0);
    dl_str_addf(&g->in, "%c%zu\r\n%s", type, total, type == '=' ? fmt : "");
    if (type == '=') dl_str_add(&g->in, ":", 1);
    dl_str_add(&g->in, text, n);
    dl_str_add(&g->in, "\r\n", 2);
    if (total >= g->stream_min) {
        dl_str_addf(&g->exp, "str_begin %s %zu", name, n);
        if (type == '=') dl_str_addf(&g->exp, " \"%s\"", fmt);
        finish_line(g, d, false);
        dl_str_add(&g->exp, "chunks ", 7);
        dl_str_quote(&g->exp, text, n);
        finish_line(g, d, false);
        dl_str_addf(&g->exp, "str_end %s", name);
        finish_line(g, d, d == 0);
        return;
    }
    dl_str_addf(&g->exp, "%s ", name);
    if (type == '=') dl_str_addf(&g->exp, "\"%s\" ", fmt);
    dl_str_quote(&g->exp, text, n);
    finish_line(g, d, d == 0);
}

static void gen_streamed_string(gen *g, unsigned d) {
    dl_str joined = {0};
    dl_str_add(&g->in, "$?\r\n", 4);
    for (uint64_t i = 0, pieces = rnd(g, 4); i < pieces; i++) {
        char text[16];
        size_t n = 1 + rnd(g, sizeof text);
        random_text(g, text, n, false);
        dl_str_addf(&g->in, ";%zu\r\n", n);
        dl_str_add(&g->in, text, n);
        dl_str_add(&g->in, "\r\n", 2);
        dl_str_add(&joined, text, n);
    }
    dl_str_add(&g->in, ";0\r\n", 4);
    dl_str_add(&g->exp, "str_begin bulk -1", 17);
    finish_line(g, d, false);
    dl_str_add(&g->exp, "chunks ", 7);
    dl_str_quote(&g->exp, joined.p ? joined.p : "", joined.len);
    finish_line(g, d, false);
    dl_str_add(&g->exp, "str_end bulk", 12);
    finish_line(g, d, d == 0);
    dl_str_free(&joined);
}

static void gen_double(gen *g, unsigned d) {
    char text[64];
    switch (rnd(g, 6)) {
    case 0:
        snprintf(text, sizeof text, "%s", (const char *[]){"inf", "-inf", "nan"}[rnd(g, 3)]);
        break;
    case 1: snprintf(text, sizeof text, "%lld", (long long)rnd(g, 2000000) - 1000000); break;
    case 2:
        snprintf(text, sizeof text, "%llu.%02lluE%s%llu", (unsigned long long)rnd(g, 100),
                 (unsigned long long)rnd(g, 100), rnd(g, 2) ? "-" : "+",
                 (unsigned long long)rnd(g, 300));
        break;
    default: {
        uint64_t bits = dl_rand(&g->seed);
        double x;
        memcpy(&x, &bits, sizeof x);
        if (x != x || x - x != 0) x = 1.0 / 3.0; /* nan or inf bit patterns */
        snprintf(text, sizeof text, "%.17g", x);
    }
    }
    dl_str_addf(&g->in, ",%s\r\n", text);
    dl_str_add(&g->exp, "double ", 7);
    dl_str_quote(&g->exp, text, strlen(text));
    dl_str_add(&g->exp, " ", 1);
    dl_str_double(&g->exp, strtod(text, NULL));
    finish_line(g, d, d == 0);
}

static void gen_value(gen *g, unsigned d);

/* n elements (pairs count 2) one level down, then the end. */
static void gen_aggregate(gen *g, unsigned d, char type, const char *name, bool may_stream) {
    bool streamed = may_stream && rnd(g, 4) == 0;
    uint64_t n = rnd(g, 4), elements = n * (type == '%' ? 2 : 1);
    if (streamed) {
        dl_str_addf(&g->in, "%c?\r\n", type);
        dl_str_addf(&g->exp, "%s -1", name);
    } else {
        dl_str_addf(&g->in, "%c%llu\r\n", type, (unsigned long long)n);
        dl_str_addf(&g->exp, "%s %llu", name, (unsigned long long)n);
    }
    finish_line(g, d, false);
    for (uint64_t i = 0; i < elements; i++) gen_value(g, d + 1);
    if (streamed) dl_str_add(&g->in, ".\r\n", 3);
    dl_str_addf(&g->exp, "end %s", name);
    finish_line(g, d, d == 0);
}

static void gen_value(gen *g, unsigned d) {
    bool leaf = d + 1 >= MAX_NEST || rnd(g, 3) == 0;
    if (!leaf && rnd(g, 8) == 0) { /* an attribute on this value */
        uint64_t n = rnd(g, 3);
        dl_str_addf(&g->in, "|%llu\r\n", (unsigned long long)n);
        dl_str_addf(&g->exp, "attr %llu", (unsigned long long)n);
        finish_line(g, d, false);
        for (uint64_t i = 0; i < 2 * n; i++) gen_value(g, d + 1);
        dl_str_add(&g->exp, "end attr", 8);
        finish_line(g, d, false);
    }
    if (!leaf) {
        switch (rnd(g, 5)) {
        case 0: gen_aggregate(g, d, '*', "array", true); return;
        case 1: gen_aggregate(g, d, '%', "map", true); return;
        case 2: gen_aggregate(g, d, '~', "set", true); return;
        case 3: gen_aggregate(g, d, '>', "push", false); return;
        default: break;
        }
    }
    switch (rnd(g, 14)) {
    case 0: gen_line(g, '+', "simple", d); break;
    case 1: gen_line(g, '-', "error", d); break;
    case 2: {
        static const int64_t special[] = {0, -1, 1, INT64_MAX, INT64_MIN, 10, -10};
        int64_t v = rnd(g, 2) ? special[rnd(g, 7)] : (int64_t)dl_rand(&g->seed);
        dl_str_addf(&g->in, ":%lld\r\n", (long long)v);
        dl_str_addf(&g->exp, "int %lld", (long long)v);
        finish_line(g, d, d == 0);
        break;
    }
    case 3:
    case 4: gen_blob(g, '$', "bulk", d); break;
    case 5: gen_blob(g, '!', "bloberr", d); break;
    case 6: gen_blob(g, '=', "verbatim", d); break;
    case 7: {
        static const char *const nulls[][2] = {{"_", "null"}, {"$-1", "bulk"}, {"*-1", "array"}};
        uint64_t k = rnd(g, 3);
        dl_str_addf(&g->in, "%s\r\n", nulls[k][0]);
        dl_str_addf(&g->exp, "null %s", nulls[k][1]);
        finish_line(g, d, d == 0);
        break;
    }
    case 8: {
        bool b = rnd(g, 2);
        dl_str_addf(&g->in, "#%c\r\n", b ? 't' : 'f');
        dl_str_addf(&g->exp, "bool %s", b ? "true" : "false");
        finish_line(g, d, d == 0);
        break;
    }
    case 9: gen_double(g, d); break;
    case 10: {
        char digits[48];
        size_t n = 1 + rnd(g, 40);
        for (size_t i = 0; i < n; i++) digits[i] = (char)('0' + rnd(g, 10));
        bool neg = rnd(g, 2);
        dl_str_addf(&g->in, "(%s%.*s\r\n", neg ? "-" : "", (int)n, digits);
        dl_str_addf(&g->exp, "bignum \"%s%.*s\"", neg ? "-" : "", (int)n, digits);
        finish_line(g, d, d == 0);
        break;
    }
    case 11: gen_streamed_string(g, d); break;
    default: gen_line(g, '+', "simple", d); break;
    }
}

/* Decodes g's bytes whole and in random pieces; false (after printing why) on a wrong log. */
static bool check_message(const gen *g, const rg_limits *lim, dl_guard_arena *guard,
                          uint64_t *seed) {
    dl_arena arena = dl_guard_arena_make(guard);
    size_t n = g->in.len;
    size_t *cuts = malloc(n * sizeof *cuts + 1);
    assert_non_null(cuts);
    bool ok = true;
    for (int round = 0; round <= SPLITS_PER_MESSAGE && ok; round++) {
        size_t ncuts = 0;
        uint64_t every = 1 + dl_rand(seed) % 16;
        if (round > 0)
            for (size_t i = 1; i < n; i++)
                if (dl_rand(seed) % every == 0) cuts[ncuts++] = i;
        uint64_t how = dl_rand(seed);
        dl_opts o = {lim, (enum dl_api)(how % DL_API_COUNT),
                     (enum dl_layout)(how / DL_API_COUNT % 3), false};
        dl_str log = {0};
        dl_decode(g->in.p, n, cuts, ncuts, &o, &arena, &log);
        ok = !strcmp(log.p ? log.p : "", g->exp.p);
        if (!ok) {
            dl_str q = {0};
            dl_str_quote(&q, g->in.p, n);
            fprintf(stderr, "input: %s\n%zu cuts\n--- expected:\n%s--- got:\n%s", q.p, ncuts,
                    g->exp.p, log.p ? log.p : "");
            dl_str_free(&q);
        }
        dl_str_free(&log);
    }
    free(cuts);
    return ok;
}

static void run_generated(uint64_t stream_min) {
    dl_guard_arena guard;
    assert_true(dl_guard_arena_init(&guard, 1 << 20));
    rg_limits lim = rg_limits_default();
    lim.stream_min = stream_min;
    uint64_t split_seed = 7;
    unsigned long allocs = dl_decoder_allocs;
    size_t bytes = 0;
    for (uint64_t m = 0; m < MESSAGES; m++) {
        gen g = {m * 0x9e3779b97f4a7c15u + stream_min, stream_min, {0}, {0}};
        for (uint64_t values = 1 + rnd(&g, 3); values--;) gen_value(&g, 0); /* pipelined */
        bytes += g.in.len;
        bool ok = check_message(&g, &lim, &guard, &split_seed);
        dl_str_free(&g.in);
        dl_str_free(&g.exp);
        if (!ok) {
            dl_guard_arena_free(&guard);
            fail_msg("generated message %llu (stream_min %llu): unexpected events",
                     (unsigned long long)m, (unsigned long long)stream_min);
        }
    }
    printf("%d messages, %zu bytes, stream_min %llu\n", MESSAGES, bytes,
           (unsigned long long)stream_min);
    assert_int_equal(dl_decoder_allocs, allocs);
    dl_guard_arena_free(&guard);
}

static void test_generated_whole_payloads(void **state) {
    (void)state;
    run_generated(UINT64_MAX);
}

static void test_generated_chunked_payloads(void **state) {
    (void)state;
    run_generated(8);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generated_whole_payloads),
        cmocka_unit_test(test_generated_chunked_payloads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
