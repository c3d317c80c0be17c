/* Requests with options of the Redis set (ZADD, XADD, GEOSEARCH, prefix rt), through every entry
 * point, against rg_argv_encode of the words built here: the general path's doubles formatted
 * once (rg_dbls: kept while measuring, written back in order; past RG_DBLS_MAX formatted again),
 * every option combination, NaN refused at every place a double goes. */
#include "redis.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define MAX_WORDS 128
#define BUF_SIZE  8192

/* The words a request stands for, doubles as rg_fmt_double writes them. */
typedef struct words {
    size_t argc;
    rg_view argv[MAX_WORDS];
    char num[MAX_WORDS][RG_DOUBLE_MAX_LEN];
} words;

static void word(words *w, const char *s) {
    assert_true(w->argc < MAX_WORDS);
    w->argv[w->argc++] = (rg_view){s, strlen(s)};
}

static void word_view(words *w, rg_view v) {
    assert_true(w->argc < MAX_WORDS);
    w->argv[w->argc++] = v;
}

static void word_double(words *w, double v) {
    assert_true(w->argc < MAX_WORDS);
    char *const text = w->num[w->argc];
    w->argv[w->argc++] = (rg_view){text, rg_fmt_double(text, v)};
}

static void word_i64(words *w, int64_t v) {
    assert_true(w->argc < MAX_WORDS);
    char *const text = w->num[w->argc];
    w->argv[w->argc++] =
        (rg_view){text, (size_t)snprintf(text, RG_DOUBLE_MAX_LEN, "%lld", (long long)v)};
}

/* What each entry point of one request returned, and the bytes it wrote. */
typedef size_t (*write_fn)(rg_pipe *p, const void *req);

/* Every entry point writes want (or refuses, want NULL): _size, _encode with exactly that room and
 * one byte less (nothing written), _append twice into a pipe with room to spare. */
static void same_bytes(write_fn write, const void *req, const words *want) {
    static char expect[BUF_SIZE], out[BUF_SIZE], pipe_buf[2 * BUF_SIZE];
    size_t n = 0;
    if (want) {
        n = rg_argv_encode(expect, sizeof expect, want->argc, want->argv);
        assert_true(n > 0);
    }
    rg_pipe p;
    rg_pipe_init(&p, NULL, 0);
    assert_int_equal(write(&p, req), n); /* _size */
    if (!want) {
        rg_pipe_init(&p, out, sizeof out);
        assert_int_equal(write(&p, req), 0);
        return;
    }
    memset(out, 0x5a, sizeof out);
    rg_pipe_init(&p, out, n - 1);
    assert_int_equal(write(&p, req), n); /* too small: nothing written */
    assert_int_equal((unsigned char)out[0], 0x5a);
    rg_pipe_init(&p, out, n); /* exactly the room */
    assert_int_equal(write(&p, req), n);
    assert_memory_equal(out, expect, n);
    assert_int_equal((unsigned char)out[n], 0x5a);
    rg_pipe_init(&p, pipe_buf, sizeof pipe_buf); /* room to spare, twice */
    for (int i = 0; i < 2; i++) {
        const size_t k = write(&p, req);
        assert_int_equal(k, n);
        rg_pipe_commit(&p, k);
    }
    assert_memory_equal(pipe_buf, expect, n);
    assert_memory_equal(pipe_buf + n, expect, n);
}

/* Doubles of every layout rg_fmt_double writes, and of every length. */
static const double g_doubles[] = {0.0,
                                   -0.0,
                                   1.5,
                                   -2.25,
                                   100,
                                   0.1,
                                   1e23,
                                   5e-324,
                                   1e-7,
                                   1e16,
                                   INFINITY,
                                   -INFINITY,
                                   -2.2250738585072014e-308,
                                   1.7976931348623157e308,
                                   3};
#define NDOUBLES (sizeof g_doubles / sizeof g_doubles[0])

/* ---- ZADD ---- */

typedef struct zadd_req {
    rg_view key;
    const rt_zadd_data *data;
    size_t n;
    const rt_zadd_opts *opts;
} zadd_req;

static size_t zadd_write(rg_pipe *p, const void *r) {
    const zadd_req *q = r;
    return rt_zadd_pipe_write(p, q->key, q->data, q->n, q->opts);
}

static void zadd_options(void **state) {
    (void)state;
    static const char *const members[] = {"a", "bb", "member:0001", ""};
    rt_zadd_data data[40];
    /* 1, 3, RG_DBLS_MAX and one past it, and 40 pairs: past the kept texts, formatted again. */
    static const size_t counts[] = {1, 3, RG_DBLS_MAX, RG_DBLS_MAX + 1, 40};
    size_t combos = 0;
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        for (unsigned mask = 0; mask < 3 * 3 * 4; mask++) {
            const size_t n = counts[c];
            rt_zadd_opts opts = {0};
            opts.condition = (rt_zadd_condition)(mask % 3);
            opts.comparison = (rt_zadd_comparison)(mask / 3 % 3);
            opts.change = mask / 9 & 1;
            opts.increment = mask / 18 & 1;
            words w = {0};
            word(&w, "ZADD");
            word(&w, "board");
            static const char *const cond[] = {NULL, "NX", "XX"}, *const cmp[] = {NULL, "GT", "LT"};
            if (cond[opts.condition]) word(&w, cond[opts.condition]);
            if (cmp[opts.comparison]) word(&w, cmp[opts.comparison]);
            if (opts.change) word(&w, "CH");
            if (opts.increment) word(&w, "INCR");
            for (size_t i = 0; i < n; i++) {
                const double v = g_doubles[(i + mask) % NDOUBLES] * (double)(i + 1);
                data[i] = (rt_zadd_data){v, rg_cstr(members[i % 4])};
                word_double(&w, v);
                word_view(&w, data[i].member);
            }
            const zadd_req req = {RG_LIT("board"), data, n, mask ? &opts : NULL};
            same_bytes(zadd_write, &req, &w);
            /* A NaN anywhere is refused, the kept texts before it or not. */
            const size_t at = (mask * 7) % n;
            const double keep = data[at].score;
            data[at].score = NAN;
            same_bytes(zadd_write, &req, NULL);
            data[at].score = keep;
            combos++;
        }
    }
    assert_int_equal(combos, 5 * 36);
}

/* ---- GEOSEARCH ---- */

typedef struct geo_req {
    rt_geosearch_from from;
    rt_geosearch_by by;
    const rt_geosearch_opts *opts;
} geo_req;

static size_t geo_write(rg_pipe *p, const void *r) {
    const geo_req *q = r;
    return rt_geosearch_pipe_write(p, RG_LIT("Sicily"), q->from, q->by, q->opts);
}

static void geosearch_options(void **state) {
    (void)state;
    static const char *const units[] = {NULL, "m", "km", "ft", "mi"};
    static const int64_t counts[] = {0, 10, 9999, 10000, INT64_MAX};
    size_t combos = 0;
    for (unsigned mask = 0; mask < 2 * 2 * 4 * 3 * 2 * 8; mask++) {
        const unsigned lonlat = mask % 2, box = mask / 2 % 2, unit = 1 + mask / 4 % 4;
        const unsigned order = mask / 16 % 3, count = mask / 48 % 2, flags = mask / 96;
        const double a = g_doubles[mask % NDOUBLES], b = g_doubles[(mask / 3) % NDOUBLES];
        geo_req req = {0};
        words w = {0};
        word(&w, "GEOSEARCH");
        word(&w, "Sicily");
        if (lonlat) {
            req.from.kind = RT_GEOSEARCH_FROM_FROMLONLAT;
            req.from.fromlonlat = (rt_geosearch_fromlonlat){a, b};
            word(&w, "FROMLONLAT");
            word_double(&w, a);
            word_double(&w, b);
        } else {
            req.from.kind = RT_GEOSEARCH_FROM_MEMBER;
            req.from.member = RG_LIT("Palermo");
            word(&w, "FROMMEMBER");
            word(&w, "Palermo");
        }
        if (box) {
            req.by.kind = RT_GEOSEARCH_BY_BOX;
            req.by.box = (rt_geosearch_box){b, a + 1, (rt_geosearch_box_unit)unit};
            word(&w, "BYBOX");
            word_double(&w, b);
            word_double(&w, a + 1);
        } else {
            req.by.kind = RT_GEOSEARCH_BY_CIRCLE;
            req.by.circle = (rt_geosearch_circle){b * 3, (rt_geosearch_circle_unit)unit};
            word(&w, "BYRADIUS");
            word_double(&w, b * 3);
        }
        word(&w, units[unit]);
        rt_geosearch_opts opts = {0};
        opts.order = (rt_geosearch_order)order;
        if (order) word(&w, order == 1 ? "ASC" : "DESC");
        if (count) {
            opts.has_count_block = true;
            opts.count_block.count = counts[mask % 5];
            opts.count_block.any = mask / 5 & 1;
            word(&w, "COUNT");
            word_i64(&w, opts.count_block.count);
            if (opts.count_block.any) word(&w, "ANY");
        }
        opts.withcoord = flags & 1;
        opts.withdist = flags >> 1 & 1;
        opts.withhash = flags >> 2 & 1;
        if (opts.withcoord) word(&w, "WITHCOORD");
        if (opts.withdist) word(&w, "WITHDIST");
        if (opts.withhash) word(&w, "WITHHASH");
        req.opts = order || count || flags || mask % 7 ? &opts : NULL;
        same_bytes(geo_write, &req, &w);
        /* NaN in each double the request sends. */
        if (box) {
            req.by.box.height = NAN;
            same_bytes(geo_write, &req, NULL);
            req.by.box.height = a + 1;
        } else {
            req.by.circle.radius = NAN;
            same_bytes(geo_write, &req, NULL);
            req.by.circle.radius = b * 3;
        }
        if (lonlat) {
            req.from.fromlonlat.latitude = NAN;
            same_bytes(geo_write, &req, NULL);
        }
        combos++;
    }
    assert_int_equal(combos, 2 * 2 * 4 * 3 * 2 * 8);
}

/* ---- XADD ---- */

typedef struct xadd_req {
    rt_xadd_id_selector id;
    const rt_xadd_data *data;
    size_t n;
    const rt_xadd_opts *opts;
} xadd_req;

static size_t xadd_write(rg_pipe *p, const void *r) {
    const xadd_req *q = r;
    return rt_xadd_pipe_write(p, RG_LIT("events"), q->id, q->data, q->n, q->opts);
}

static void xadd_options(void **state) {
    (void)state;
    rt_xadd_data data[30];
    for (size_t i = 0; i < 30; i++) {
        data[i] = (rt_xadd_data){i % 2 ? RG_LIT("field:01") : RG_LIT("f"),
                                 i % 3 ? RG_LIT("a value of 16 B.") : RG_LIT("")};
    }
    static const size_t pairs[] = {1, 2, 30};
    for (unsigned mask = 0; mask < 2 * 2 * 3 * 2 * 2 * 2 * 3; mask++) {
        const unsigned nomk = mask % 2, trim = mask / 2 % 2, op = mask / 4 % 3;
        const unsigned strategy = 1 + mask / 12 % 2, limit = mask / 24 % 2, id = mask / 48 % 2;
        const size_t n = pairs[mask / 96];
        rt_xadd_opts opts = {0};
        words w = {0};
        word(&w, "XADD");
        word(&w, "events");
        opts.nomkstream = nomk;
        if (nomk) word(&w, "NOMKSTREAM");
        if (trim) {
            opts.has_trim = true;
            opts.trim.strategy = (rt_xadd_strategy)strategy;
            opts.trim.operator_ = (rt_xadd_operator)op;
            opts.trim.threshold = strategy == 1 ? RG_LIT("1000") : RG_LIT("1700000000000-0");
            word(&w, strategy == 1 ? "MAXLEN" : "MINID");
            if (op) word(&w, op == 1 ? "=" : "~");
            word_view(&w, opts.trim.threshold);
            if (limit) {
                opts.trim.has_count = true;
                opts.trim.count = (int64_t)mask * 1000;
                word(&w, "LIMIT");
                word_i64(&w, opts.trim.count);
            }
        }
        xadd_req req = {.data = data, .n = n, .opts = nomk || trim ? &opts : NULL};
        if (id) {
            req.id.kind = RT_XADD_ID_SELECTOR_ID;
            req.id.id = RG_LIT("1700000000000-0");
            word(&w, "1700000000000-0");
        } else {
            req.id.kind = RT_XADD_ID_SELECTOR_AUTO_ID;
            word(&w, "*");
        }
        for (size_t i = 0; i < n; i++) {
            word_view(&w, data[i].field);
            word_view(&w, data[i].value);
        }
        same_bytes(xadd_write, &req, &w);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(zadd_options),
        cmocka_unit_test(geosearch_options),
        cmocka_unit_test(xadd_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
