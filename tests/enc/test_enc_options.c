/* Requests with options of the Redis set (ZADD, XADD, GEOSEARCH, prefix rt), through every entry
 * point, against rg_argv_encode of the words built here: the general path's doubles formatted
 * once (rg_dbls: kept while measuring, written back in order; past RG_DBLS_MAX formatted again),
 * XADD's and GEOSEARCH's one-pass path (their words between the other arguments) and, for the
 * strings it does not copy, the general path, every option combination, NaN refused at every
 * place a double goes, and bad views, lists and choices refused on either path. */
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

/* ---- strings in the one-pass words, and bad input ----
 * GEOSEARCH's member and XADD's threshold and ID are copied into the one-pass path's words up to
 * 64 bytes; longer ones take the general path (the op table). Both must write the same bytes, and
 * refuse (0, nothing written) a view {NULL, n > 0}, a length no object has, a choice or kind
 * outside its enum, a required list that is empty or NULL with a count. */

/* A string of n bytes: 'a' 'b' ... (so that a copy of the wrong bytes shows). */
static rg_view letters(size_t n) {
    static char text[512];
    assert_true(n <= sizeof text);
    for (size_t i = 0; i < n; i++) text[i] = (char)('a' + i % 26);
    return (rg_view){text, n};
}

static const size_t g_lengths[] = {0, 1, 9, 10, 63, 64, 65, 99, 100, 300, 512};
#define NLENGTHS (sizeof g_lengths / sizeof g_lengths[0])

typedef struct geo_key_req {
    rg_view key;
    geo_req q;
} geo_key_req;

static size_t geo_key_write(rg_pipe *p, const void *r) {
    const geo_key_req *g = r;
    return rt_geosearch_pipe_write(p, g->key, g->q.from, g->q.by, g->q.opts);
}

static void geosearch_strings_and_refusals(void **state) {
    (void)state;
    rt_geosearch_opts opts = {.order = RT_GEOSEARCH_ORDER_DESC, .withdist = true};
    opts.has_count_block = true;
    opts.count_block.count = 7;
    for (size_t i = 0; i < NLENGTHS; i++) {
        for (size_t k = 0; k < 3; k++) {
            const rg_view member = letters(g_lengths[i]);
            const rg_view key = k == 0   ? RG_LIT("Sicily")
                                : k == 1 ? letters(g_lengths[i])
                                         : RG_LIT("");
            geo_key_req req = {.key = key, .q = {.opts = &opts}};
            req.q.from.kind = RT_GEOSEARCH_FROM_MEMBER;
            req.q.from.member = member;
            req.q.by.kind = RT_GEOSEARCH_BY_CIRCLE;
            req.q.by.circle = (rt_geosearch_circle){200, RT_GEOSEARCH_CIRCLE_UNIT_KM};
            words w = {0};
            const char *const tail[] = {"BYRADIUS", "200", "km", "DESC", "COUNT", "7", "WITHDIST"};
            word(&w, "GEOSEARCH");
            word_view(&w, key);
            word(&w, "FROMMEMBER");
            word_view(&w, member);
            for (size_t t = 0; t < sizeof tail / sizeof tail[0]; t++) word(&w, tail[t]);
            same_bytes(geo_key_write, &req, &w);
        }
    }
    geo_key_req req = {.key = RG_LIT("Sicily"), .q = {.opts = &opts}};
    req.q.from.kind = RT_GEOSEARCH_FROM_MEMBER;
    req.q.from.member = RG_LIT("Palermo");
    req.q.by.kind = RT_GEOSEARCH_BY_CIRCLE;
    req.q.by.circle = (rt_geosearch_circle){200, RT_GEOSEARCH_CIRCLE_UNIT_KM};
    const geo_key_req good = req;
    static const size_t bad_lens[] = {1, 64, 65, SIZE_MAX / 2 + 1, SIZE_MAX};
    for (size_t i = 0; i < sizeof bad_lens / sizeof bad_lens[0]; i++) {
        req.q.from.member = (rg_view){NULL, bad_lens[i]}; /* no bytes */
        same_bytes(geo_key_write, &req, NULL);
        req.q.from.member = (rg_view){"Palermo", bad_lens[i] > 65 ? bad_lens[i] : 0};
        if (bad_lens[i] > 65) same_bytes(geo_key_write, &req, NULL); /* no object is that long */
        req = good;
        req.key = (rg_view){NULL, bad_lens[i]};
        same_bytes(geo_key_write, &req, NULL);
        req = good;
    }
    req.q.from.kind = (rt_geosearch_from_kind)0; /* none */
    same_bytes(geo_key_write, &req, NULL);
    req.q.from.kind = (rt_geosearch_from_kind)3;
    same_bytes(geo_key_write, &req, NULL);
    req = good;
    req.q.by.kind = (rt_geosearch_by_kind)0;
    same_bytes(geo_key_write, &req, NULL);
    req = good;
    req.q.by.circle.unit = (rt_geosearch_circle_unit)0;
    same_bytes(geo_key_write, &req, NULL);
    req.q.by.circle.unit = (rt_geosearch_circle_unit)5;
    same_bytes(geo_key_write, &req, NULL);
    req = good;
    rt_geosearch_opts bad_order = opts;
    bad_order.order = (rt_geosearch_order)3;
    req.q.opts = &bad_order;
    same_bytes(geo_key_write, &req, NULL);
}

typedef struct xadd_key_req {
    rg_view key;
    xadd_req q;
} xadd_key_req;

static size_t xadd_key_write(rg_pipe *p, const void *r) {
    const xadd_key_req *x = r;
    return rt_xadd_pipe_write(p, x->key, x->q.id, x->q.data, x->q.n, x->q.opts);
}

static void xadd_strings_and_refusals(void **state) {
    (void)state;
    const rt_xadd_data data[] = {{RG_LIT("f"), RG_LIT("v")}, {RG_LIT("field:01"), RG_LIT("")}};
    for (size_t i = 0; i < NLENGTHS; i++) {
        for (size_t j = 0; j < NLENGTHS; j += 2) {
            char threshold[600], id[600];
            memcpy(threshold, letters(g_lengths[i]).ptr, g_lengths[i]);
            memcpy(id, letters(g_lengths[j]).ptr, g_lengths[j]);
            rt_xadd_opts opts = {.nomkstream = i % 2};
            opts.has_trim = true;
            opts.trim.strategy = RT_XADD_STRATEGY_MINID;
            opts.trim.operator_ = RT_XADD_OPERATOR_APPROXIMATELY;
            opts.trim.threshold = (rg_view){threshold, g_lengths[i]};
            xadd_key_req req = {.key = RG_LIT("events"),
                                .q = {.data = data, .n = 2, .opts = &opts}};
            const bool auto_id = (i + j) % 3 == 0;
            req.q.id.kind = auto_id ? RT_XADD_ID_SELECTOR_AUTO_ID : RT_XADD_ID_SELECTOR_ID;
            req.q.id.id = auto_id ? (rg_view){NULL, 0} : (rg_view){id, g_lengths[j]};
            words w = {0};
            word(&w, "XADD");
            word(&w, "events");
            if (opts.nomkstream) word(&w, "NOMKSTREAM");
            word(&w, "MINID");
            word(&w, "~");
            word_view(&w, opts.trim.threshold);
            if (auto_id) {
                word(&w, "*");
            } else {
                word_view(&w, req.q.id.id);
            }
            for (size_t k = 0; k < 2; k++) {
                word_view(&w, data[k].field);
                word_view(&w, data[k].value);
            }
            same_bytes(xadd_key_write, &req, &w);
        }
    }
    rt_xadd_opts opts = {0};
    opts.has_trim = true;
    opts.trim.strategy = RT_XADD_STRATEGY_MAXLEN;
    opts.trim.threshold = RG_LIT("1000");
    xadd_key_req req = {.key = RG_LIT("events"), .q = {.data = data, .n = 2, .opts = &opts}};
    req.q.id.kind = RT_XADD_ID_SELECTOR_AUTO_ID;
    const xadd_key_req good = req;
    const rt_xadd_opts good_opts = opts;
    static const size_t bad_lens[] = {1, 64, 65, SIZE_MAX / 2 + 1, SIZE_MAX};
    for (size_t i = 0; i < sizeof bad_lens / sizeof bad_lens[0]; i++) {
        opts.trim.threshold = (rg_view){NULL, bad_lens[i]};
        same_bytes(xadd_key_write, &req, NULL);
        opts = good_opts;
        req.q.id.kind = RT_XADD_ID_SELECTOR_ID;
        req.q.id.id = (rg_view){NULL, bad_lens[i]};
        same_bytes(xadd_key_write, &req, NULL);
        req = good;
        req.key = (rg_view){NULL, bad_lens[i]};
        same_bytes(xadd_key_write, &req, NULL);
        req = good;
        const rt_xadd_data bad[] = {{RG_LIT("f"), RG_LIT("v")}, {RG_LIT("f"), {NULL, bad_lens[i]}}};
        req.q.data = bad;
        same_bytes(xadd_key_write, &req, NULL);
        req = good;
    }
    req.q.n = 0; /* XADD needs a pair */
    same_bytes(xadd_key_write, &req, NULL);
    req.q.data = NULL;
    req.q.n = 2;
    same_bytes(xadd_key_write, &req, NULL);
    req = good;
    req.q.id.kind = (rt_xadd_id_selector_kind)0;
    same_bytes(xadd_key_write, &req, NULL);
    req.q.id.kind = (rt_xadd_id_selector_kind)3;
    same_bytes(xadd_key_write, &req, NULL);
    req = good;
    opts.trim.strategy = (rt_xadd_strategy)0;
    same_bytes(xadd_key_write, &req, NULL);
    opts.trim.strategy = (rt_xadd_strategy)3;
    same_bytes(xadd_key_write, &req, NULL);
    opts = good_opts;
    opts.trim.operator_ = (rt_xadd_operator)3;
    same_bytes(xadd_key_write, &req, NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(zadd_options),
        cmocka_unit_test(geosearch_options),
        cmocka_unit_test(xadd_options),
        cmocka_unit_test(geosearch_strings_and_refusals),
        cmocka_unit_test(xadd_strings_and_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
