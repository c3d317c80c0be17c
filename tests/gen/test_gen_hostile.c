/* C generated from tests/gen/hostile/hostile.lua, whose tokens, names and error texts hold comment
 * closers, newlines, quotes, backslashes, trigraphs, NUL and invalid UTF-8, and whose commands are
 * wider than the server tables' uint8_t members: it compiled under the
 * strict flags (this file links it), and here it must mean exactly what the spec says. The
 * expected words are written independently, as C literals, and encoded by rg_argv_encode. */
#include "hostile.h"
#include "hostile_keys.h"
#include "hostile_server.h"
#include "rg_enc.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#define V(lit) \
    { (lit), sizeof(lit) - 1 }
#define VIEW(lit) ((rg_view)V(lit))

/* The words of HX with every option, exactly as hostile.lua spells them. */
static const rg_view hx_words[] = {
    V("HX"),
    V("v"),
    V("*/ int smuggled(void) { return 1; } /*"),
    V("A\nB\r\n#error x"),
    V("Q\"\\?\?/"),
    V("Z\0\377\200"),
    V("?\?=N*/"),
    V("5"),
    V("\\"),
    V("x"),
};
#define HX_WORDS (sizeof hx_words / sizeof hx_words[0])

static void hx_encodes_the_hostile_tokens_exactly(void **state) {
    (void)state;
    char want[512], got[512];
    const size_t want_len = rg_argv_encode(want, sizeof want, HX_WORDS, hx_words);
    assert_true(want_len > 0);
    const hostile_hx_opts opts = {
        .nl = true, .quote = true, .nul = true, .has_n = true, .n_ = 5, .bs = VIEW("x")};
    const size_t n = hostile_hx_encode(got, sizeof got, VIEW("v"), &opts);
    assert_int_equal(n, want_len);
    assert_int_equal(hostile_hx_size(VIEW("v"), &opts), want_len);
    assert_memory_equal(got, want, want_len);
}

static void hx_without_options_sends_the_required_token_only(void **state) {
    (void)state;
    char want[256], got[256];
    const size_t want_len = rg_argv_encode(want, sizeof want, 3, hx_words);
    const size_t n = hostile_hx_encode(got, sizeof got, VIEW("v"), NULL);
    assert_int_equal(n, want_len);
    assert_memory_equal(got, want, want_len);
}

static void server_parses_the_hostile_tokens(void **state) {
    (void)state;
    hostile_srv_args args;
    memset(&args, 0, sizeof args);
    rg_errbuf err = {0};
    assert_int_equal(hostile_srv_parse(HX_WORDS, hx_words, &args, &err), HOSTILE_SRV_HX);
    assert_int_equal(args.hx.nl, 1);
    assert_int_equal(args.hx.quote, 1);
    assert_int_equal(args.hx.nul, 1);
    assert_int_equal(args.hx.has_n_, 1);
    assert_int_equal(args.hx.n_, 5);
    assert_int_equal(args.hx.has_bs, 1);
    assert_memory_equal(args.hx.bs.ptr, "x", 1);
}

/* A token differing in one byte after the NUL is not the token: the NUL does not end it. */
static void server_compares_tokens_past_a_nul(void **state) {
    (void)state;
    rg_view words[] = {V("HX"), V("v"), V("*/ int smuggled(void) { return 1; } /*"),
                       V("Z\0\377\201")};
    hostile_srv_args args;
    memset(&args, 0, sizeof args);
    rg_errbuf err = {0};
    assert_int_equal(hostile_srv_parse(4, words, &args, &err), HOSTILE_SRV_NONE);
}

/* The error text keeps its comment closer, quote, backslash and trigraph. */
static void server_error_text_is_the_spec_text(void **state) {
    (void)state;
    rg_view words[] = {V("HX"), V("v"), V("*/ int smuggled(void) { return 1; } /*"), V("?\?=N*/"),
                       V("five")};
    hostile_srv_args args;
    memset(&args, 0, sizeof args);
    rg_errbuf err = {0};
    assert_int_equal(hostile_srv_parse(5, words, &args, &err), HOSTILE_SRV_NONE);
    static const char want[] = "ERR */ \"n\" ?\?/ \\ is not a number";
    assert_int_equal(err.len, sizeof want - 1);
    assert_memory_equal(err.text, want, sizeof want - 1);
}

static void names_and_replies_keep_their_bytes(void **state) {
    (void)state;
    assert_string_equal(hostile_srv_commands[HOSTILE_SRV_HY__].name, "hy*/");
    assert_int_equal(hostile_srv_lookup("hy*/", 4), HOSTILE_SRV_HY__);
    assert_string_equal(HOSTILE_SRV_HY___REPLY, "+O\"K*/?\?/\r\n");
    char want[64], got[64];
    const rg_view words[] = {V("HY*/"), V("k")};
    const size_t want_len = rg_argv_encode(want, sizeof want, 2, words);
    assert_int_equal(hostile_hy___encode(got, sizeof got, VIEW("k")), want_len);
    assert_memory_equal(got, want, want_len);
}

/* 300 optional arguments: encoded exactly; the server leaves the command raw (NULL args), the
 * handler reads argv. */
static void wide_command_is_exact_or_raw(void **state) {
    (void)state;
    const hostile_wide_opts opts = {.a300 = VIEW("x"), .a1 = VIEW("y")};
    const rg_view words[] = {V("WIDE"), V("T1"), V("y"), V("T300"), V("x")};
    char want[64], got[64];
    const size_t want_len = rg_argv_encode(want, sizeof want, 5, words);
    assert_int_equal(hostile_wide_encode(got, sizeof got, &opts), want_len);
    assert_memory_equal(got, want, want_len);
    assert_null(hostile_srv_commands[HOSTILE_SRV_WIDE].args);
}

/* A oneof of 300 tokens: the 300th is told from the 44th (300 mod 256) on both sides. */
static void oneof_of_300_keeps_its_numbers(void **state) {
    (void)state;
    const rg_view words[] = {V("PICK"), V("P300")};
    char want[32], got[32];
    const size_t want_len = rg_argv_encode(want, sizeof want, 2, words);
    assert_int_equal(hostile_pick_encode(got, sizeof got, HOSTILE_PICK_O_P300), want_len);
    assert_memory_equal(got, want, want_len);
    hostile_srv_args args;
    memset(&args, 0, sizeof args);
    rg_errbuf err = {0};
    assert_int_equal(hostile_srv_parse(2, words, &args, &err), HOSTILE_SRV_PICK);
    assert_int_equal(args.pick.o, HOSTILE_SRV_PICK_O_P300);
}

/* SHAPE's oneof v owns the name hostile_shape_v (a type), so the one-string command HY keeps its
 * own encoder instead of sharing the shape of that name (emit_shape.lua); both encode exactly. */
static void a_shape_name_a_command_owns_is_not_shared(void **state) {
    (void)state;
    const hostile_shape_v v = HOSTILE_SHAPE_V_B;
    const rg_view words[] = {V("SHAPE"), V("B")};
    char want[32], got[32];
    const size_t want_len = rg_argv_encode(want, sizeof want, 2, words);
    assert_int_equal(hostile_shape_encode(got, sizeof got, v), want_len);
    assert_memory_equal(got, want, want_len);
    rg_pipe p;
    rg_pipe_init(&p, got, sizeof got);
    const rg_view hy[] = {V("HY*/"), V("k")};
    const size_t hy_len = rg_argv_encode(want, sizeof want, 2, hy);
    assert_int_equal(hostile_hy___append(&p, VIEW("k")), hy_len);
    assert_memory_equal(got, want, hy_len);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hx_encodes_the_hostile_tokens_exactly),
        cmocka_unit_test(hx_without_options_sends_the_required_token_only),
        cmocka_unit_test(server_parses_the_hostile_tokens),
        cmocka_unit_test(server_compares_tokens_past_a_nul),
        cmocka_unit_test(server_error_text_is_the_spec_text),
        cmocka_unit_test(names_and_replies_keep_their_bytes),
        cmocka_unit_test(wide_command_is_exact_or_raw),
        cmocka_unit_test(oneof_of_300_keeps_its_numbers),
        cmocka_unit_test(a_shape_name_a_command_owns_is_not_shared),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
