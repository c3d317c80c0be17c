/* Counted key lists (tests/gen/specs/keyspecs.lua): the integer a keynum key spec names as the
 * count of the keys after it is no parameter; the encoder writes the list's length. EVAL's keys
 * are optional (in the options struct, none without it), ZUNIONSTORE's required. The bytes are
 * checked against a reference built with snprintf, for counts of one to three digits. */
#include "keyspecs.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

enum { CAP = 8192, MAX_KEYS = 200 };

/* "*<argc>\r\n" then each word as a bulk. */
static size_t reference(char *out, size_t argc, const char *const *words) {
    size_t n = (size_t)snprintf(out, CAP, "*%zu\r\n", argc);
    for (size_t i = 0; i < argc; i++) {
        n += (size_t)snprintf(out + n, CAP - n, "$%zu\r\n%s\r\n", strlen(words[i]), words[i]);
    }
    return n;
}

typedef struct keys {
    char text[MAX_KEYS][24];
    rg_view view[MAX_KEYS];
} keys;

static void make_keys(keys *k, size_t n) {
    for (size_t i = 0; i < n; i++) {
        snprintf(k->text[i], sizeof k->text[i], "k%zu", i);
        k->view[i] = rg_cstr(k->text[i]);
    }
}

static void expect(const char *got, size_t got_len, size_t size, size_t argc,
                   const char *const *words) {
    static char want[CAP];
    const size_t n = reference(want, argc, words);
    assert_int_equal(size, n);
    assert_int_equal(got_len, n);
    assert_memory_equal(got, want, n);
}

static void eval_counts_its_keys(void **state) {
    (void)state;
    static keys k;
    static char buf[CAP], count[24];
    static const size_t counts[] = {0, 1, 2, 9, 10, 99, 100, MAX_KEYS};
    make_keys(&k, MAX_KEYS);
    const rg_view arg = RG_LIT("x");
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        const size_t n = counts[c];
        const keyspecs_eval_opts opts = {
            .key = k.view, .key_count = n, .arg = &arg, .arg_count = 1};
        const char *words[MAX_KEYS + 4] = {"EVAL", "return 1", count};
        snprintf(count, sizeof count, "%zu", n);
        for (size_t i = 0; i < n; i++) words[3 + i] = k.text[i];
        words[3 + n] = "x";
        const size_t size = keyspecs_eval_size(RG_LIT("return 1"), &opts);
        const size_t len = keyspecs_eval_encode(buf, sizeof buf, RG_LIT("return 1"), &opts);
        expect(buf, len, size, 4 + n, words);
    }
    /* No options: no keys, and the count is 0. */
    const char *none[] = {"EVAL", "return 1", "0"};
    const size_t len = keyspecs_eval_encode(buf, sizeof buf, RG_LIT("return 1"), NULL);
    expect(buf, len, keyspecs_eval_size(RG_LIT("return 1"), NULL), 3, none);
}

static void zunionstore_counts_its_keys(void **state) {
    (void)state;
    static keys k;
    static char buf[CAP], count[24];
    make_keys(&k, MAX_KEYS);
    const int64_t weights[] = {2, 3};
    const keyspecs_zunionstore_opts opts = {.weight = weights, .weight_count = 2};
    for (size_t n = 1; n <= MAX_KEYS; n += 11) {
        const char *words[MAX_KEYS + 6] = {"ZUNIONSTORE", "dst", count};
        snprintf(count, sizeof count, "%zu", n);
        for (size_t i = 0; i < n; i++) words[3 + i] = k.text[i];
        words[3 + n] = "WEIGHTS";
        words[4 + n] = "2";
        words[5 + n] = "3";
        const size_t size = keyspecs_zunionstore_size(RG_LIT("dst"), k.view, n, &opts);
        const size_t len =
            keyspecs_zunionstore_encode(buf, sizeof buf, RG_LIT("dst"), k.view, n, &opts);
        expect(buf, len, size, 6 + n, words);
    }
    /* The list is required (numkeys >= 1 in Redis): an empty one is refused. */
    assert_int_equal(keyspecs_zunionstore_size(RG_LIT("dst"), k.view, 0, NULL), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(eval_counts_its_keys),
        cmocka_unit_test(zunionstore_counts_its_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
