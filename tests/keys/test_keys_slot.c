/* CRC16/XMODEM and hash slots without a server: the standard check value, every table entry
 * against a bit-by-bit CRC, slots Redis documents, and each hashtag rule. test_keys_redis
 * compares the same function with a live server's CLUSTER KEYSLOT. */
#include "rg_keys.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

/* The definition: polynomial 0x1021, MSB first, init 0, no final XOR. */
static uint16_t crc16_bitwise(const char *p, size_t n) {
    uint16_t crc = 0;
    for (size_t i = 0; i < n; i++) {
        crc ^= (uint16_t)((unsigned char)p[i] << 8);
        for (int b = 0; b < 8; b++) crc = (uint16_t)(crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1);
    }
    return crc;
}

static void check_value(void **state) {
    (void)state;
    assert_int_equal(rg_crc16("123456789", 9), 0x31C3);
    assert_int_equal(rg_crc16(NULL, 0), 0);
    assert_int_equal(rg_crc16("", 0), 0);
}

/* The CRC of one byte b is table entry b, so this checks the whole table. */
static void every_table_entry(void **state) {
    (void)state;
    for (unsigned b = 0; b < 256; b++) {
        const char c = (char)b;
        assert_int_equal(rg_crc16(&c, 1), crc16_bitwise(&c, 1));
    }
}

/* Every two-byte input (the single steps one after the other). */
static void every_byte_pair(void **state) {
    (void)state;
    for (unsigned v = 0; v < 65536; v++) {
        const char c[2] = {(char)(v >> 8), (char)v};
        assert_int_equal(rg_crc16(c, 2), crc16_bitwise(c, 2));
    }
}

/* Four bytes, all zero but byte i, b: the CRC of b followed by 3 - i zero bytes is table 3 - i's
 * entry b, so this checks the four tables whole through the four-byte step. */
static void every_byte_among_zeros(void **state) {
    (void)state;
    for (unsigned i = 0; i < 4; i++) {
        for (unsigned b = 0; b < 256; b++) {
            char c[4] = {0};
            c[i] = (char)b;
            assert_int_equal(rg_crc16(c, 4), crc16_bitwise(c, 4));
        }
    }
}

static void long_inputs_match_bitwise(void **state) {
    (void)state;
    char buf[4096];
    uint64_t x = 0x9E3779B97F4A7C15u;
    for (size_t n = 0; n < sizeof buf; n += 37) {
        for (size_t i = 0; i < n; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            buf[i] = (char)x;
        }
        assert_int_equal(rg_crc16(buf, n), crc16_bitwise(buf, n));
    }
}

static uint16_t slot_of(const char *key) {
    return rg_slot_of_key(key, strlen(key));
}

static uint16_t hash_of(const char *text) {
    return crc16_bitwise(text, strlen(text)) & 0x3FFF;
}

/* Values from the Redis Cluster specification and tutorial (and CLUSTER KEYSLOT). */
static void known_slots(void **state) {
    (void)state;
    assert_int_equal(slot_of("foo"), 12182);
    assert_int_equal(slot_of("bar"), 5061);
    assert_int_equal(slot_of("somekey"), 11058);
    assert_int_equal(slot_of("{user1000}.following"), 3443);
    assert_int_equal(slot_of("{user1000}.followers"), 3443);
    assert_int_equal(slot_of("user1000"), 3443);
    assert_int_equal(rg_slot_of_key(NULL, 0), 0);
}

/* Each row: a key and the part of it that is hashed. */
static void hashtag_rules(void **state) {
    (void)state;
    static const struct {
        const char *key, *hashed;
    } rows[] = {
        {"{}", "{}"},                 /* empty tag: the whole key */
        {"{}a", "{}a"},               /* the same */
        {"a{}", "a{}"},               /* the same */
        {"a{}{b}", "a{}{b}"},         /* only the first '{' counts, and its tag is empty */
        {"{{a}}", "{a"},              /* first '{', first '}' after it */
        {"a{b}c{d}", "b"},            /* the first tag only */
        {"{a}{b}", "a"},              /* the same */
        {"{a", "{a"},                 /* no '}' */
        {"a}", "a}"},                 /* no '{' */
        {"}{a}", "a"},                /* a '}' before the '{' is ordinary */
        {"", ""},                     /* the empty key */
        {"{", "{"},                   /* alone */
        {"}", "}"},                   /* alone */
        {"x{y}z", "y"},               /* tag in the middle */
        {"{ }", " "},                 /* one space is a tag */
        {"{user1000}.x", "user1000"}, /* the classic */
        {"{{}}", "{"},                /* the tag is "{" */
        {"}{", "}{"},                 /* wrong order */
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        if (slot_of(rows[i].key) != hash_of(rows[i].hashed))
            fail_msg("key \"%s\": slot %u, expected that of \"%s\" (%u)", rows[i].key,
                     slot_of(rows[i].key), rows[i].hashed, hash_of(rows[i].hashed));
    }
}

/* Keys are binary: a NUL neither ends the key nor the search for braces. */
static void binary_keys(void **state) {
    (void)state;
    static const char key[] = "\0{\0a}\0";
    assert_int_equal(rg_slot_of_key(key, sizeof key - 1), crc16_bitwise("\0a", 2) & 0x3FFF);
    static const char nul[] = "a\0b";
    assert_int_equal(rg_slot_of_key(nul, 3), crc16_bitwise(nul, 3) & 0x3FFF);
    assert_int_not_equal(rg_slot_of_key(nul, 3), slot_of("a"));
}

/* A tag whose '}' is the key's last byte, and a '{' that is the last byte: no read past n. */
static void braces_at_the_edges(void **state) {
    (void)state;
    char buf[8];
    memcpy(buf, "ab{", 3);
    assert_int_equal(rg_slot_of_key(buf, 3), hash_of("ab{"));
    memcpy(buf, "{ab}", 4);
    assert_int_equal(rg_slot_of_key(buf, 4), hash_of("ab"));
    memcpy(buf, "{ab}", 4);
    assert_int_equal(rg_slot_of_key(buf, 3), hash_of("{ab"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(check_value),
        cmocka_unit_test(every_table_entry),
        cmocka_unit_test(every_byte_pair),
        cmocka_unit_test(every_byte_among_zeros),
        cmocka_unit_test(long_inputs_match_bitwise),
        cmocka_unit_test(known_slots),
        cmocka_unit_test(hashtag_rules),
        cmocka_unit_test(binary_keys),
        cmocka_unit_test(braces_at_the_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
