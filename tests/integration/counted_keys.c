/* Counted key lists against a real redis-server: the encoders of specs/redis.lua write numkeys
 * from the key list (no count parameter), and the server and the routing tables see exactly
 * those keys. EVAL and FCALL (keys in the options struct) report #KEYS and #ARGV from inside the
 * script; ZUNIONSTORE (a required list) sums the sets it was given; redis_keys_of_request finds
 * the keys at their positions and nothing else. */
#include "redis.h"
#include "redis_keys.h"
#include "test_redis.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

enum { ARGV_CAP = 32 };

typedef test_fixture fixture;

/* Sends the n bytes of req, checks the reply renders as want. */
static void send_expect(fixture *f, const char *req, size_t n, const char *want) {
    char out[512];
    assert_true(n > 0);
    assert_int_equal(test_conn_send(&f->conn, req, n), 0);
    assert_int_equal(test_conn_reply(&f->conn, out, sizeof out), 0);
    assert_string_equal(out, want);
}

/* The keys redis_keys_of_request finds in req are exactly want (as argument positions and
 * bytes), and they hash to one slot. */
static void expect_keys(const char *req, size_t n, size_t count, const size_t *pos,
                        const char *const *want) {
    rg_view argv[ARGV_CAP];
    size_t got[ARGV_CAP];
    rg_error st;
    assert_int_equal(redis_keys_of_request(req, n, argv, ARGV_CAP, got, ARGV_CAP, &st), count);
    assert_int_equal(st.status, RG_OK);
    for (size_t i = 0; i < count; i++) {
        assert_int_equal(got[i], pos[i]);
        assert_int_equal(argv[got[i]].len, strlen(want[i]));
        assert_memory_equal(argv[got[i]].ptr, want[i], strlen(want[i]));
    }
    const int slot = redis_slot_of_request(req, n, argv, ARGV_CAP);
    assert_int_equal(slot, count ? rg_slot_of_key(want[0], strlen(want[0])) : RG_SLOT_NONE);
}

#define SCRIPT "return {#KEYS, #ARGV}"

static void eval_two_keys_one_arg(void **state) {
    fixture *f = *state;
    static const char *const keys[] = {"{t}1", "{t}2"};
    const rg_view key[] = {rg_cstr(keys[0]), rg_cstr(keys[1])};
    const rg_view arg[] = {RG_LIT("x")};
    const redis_eval_opts opts = {.key = key, .key_count = 2, .arg = arg, .arg_count = 1};
    char req[256];
    const size_t n = redis_eval_encode(req, sizeof req, RG_LIT(SCRIPT), &opts);
    assert_int_equal(n, redis_eval_size(RG_LIT(SCRIPT), &opts));
    send_expect(f, req, n, "*[:2,:1]");
    /* EVAL script 2 {t}1 {t}2 x: the keys at 3 and 4, the ARGV at 5 is not one. */
    expect_keys(req, n, 2, (const size_t[]){3, 4}, keys);
    /* Without options: no keys, and numkeys 0. */
    const size_t bare = redis_eval_encode(req, sizeof req, RG_LIT(SCRIPT), NULL);
    send_expect(f, req, bare, "*[:0,:0]");
    expect_keys(req, bare, 0, NULL, NULL);
    /* Arguments only: still numkeys 0, so the ARGV does not become a key. */
    const redis_eval_opts args_only = {.arg = arg, .arg_count = 1};
    const size_t only = redis_eval_encode(req, sizeof req, RG_LIT(SCRIPT), &args_only);
    send_expect(f, req, only, "*[:0,:1]");
    expect_keys(req, only, 0, NULL, NULL);
}

static void fcall_three_keys(void **state) {
    fixture *f = *state;
    const char *load[] = {"FUNCTION", "LOAD",
                          "#!lua name=counted\n"
                          "redis.register_function('counts', function(keys, args) "
                          "return {#keys, #args} end)"};
    char out[256];
    assert_int_equal(test_conn_command(&f->conn, out, sizeof out, 3, load), 0);
    assert_string_equal(out, "counted");
    static const char *const keys[] = {"{f}a", "{f}b", "{f}c"};
    const rg_view key[] = {rg_cstr(keys[0]), rg_cstr(keys[1]), rg_cstr(keys[2])};
    const redis_fcall_opts opts = {.key = key, .key_count = 3};
    char req[256];
    const size_t n = redis_fcall_encode(req, sizeof req, RG_LIT("counts"), &opts);
    send_expect(f, req, n, "*[:3,:0]");
    expect_keys(req, n, 3, (const size_t[]){3, 4, 5}, keys);
}

static void zunionstore_required_list(void **state) {
    fixture *f = *state;
    const char *add_a[] = {"ZADD", "{z}a", "1", "x"};
    const char *add_b[] = {"ZADD", "{z}b", "2", "y", "3", "x"};
    char out[64];
    assert_int_equal(test_conn_command(&f->conn, out, sizeof out, 4, add_a), 0);
    assert_int_equal(test_conn_command(&f->conn, out, sizeof out, 6, add_b), 0);
    static const char *const keys[] = {"{z}d", "{z}a", "{z}b"};
    const rg_view key[] = {rg_cstr(keys[1]), rg_cstr(keys[2])};
    char req[256];
    const size_t n = redis_zunionstore_encode(req, sizeof req, rg_cstr(keys[0]), key, 2, NULL);
    /* x (1 + 3) and y (2): two members. */
    send_expect(f, req, n, ":2");
    /* ZUNIONSTORE {z}d 2 {z}a {z}b: the destination at 1, the sources at 3 and 4. */
    expect_keys(req, n, 3, (const size_t[]){1, 3, 4}, keys);
    /* An empty list is refused by the encoder (Redis wants at least one key). */
    assert_int_equal(redis_zunionstore_size(rg_cstr(keys[0]), key, 0, NULL), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(eval_two_keys_one_arg),
        cmocka_unit_test(fcall_three_keys),
        cmocka_unit_test(zunionstore_required_list),
    };
    return cmocka_run_group_tests(tests, test_fixture_setup, test_fixture_teardown);
}
