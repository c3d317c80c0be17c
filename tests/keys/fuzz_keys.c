/* libFuzzer target for rg_request_argv, rg_keys_find and rg_slot_of_argv.
 *
 * Input: one control byte, the key specs, then the call.
 *   control: bits 0-1 = number of specs (0..3); bit 2 set = the call is raw bytes given to
 *   rg_request_argv as they are, clear = the call is arguments separated by '\n', which are
 *   encoded with rg_argv_encode and must parse back to the same arguments; bits 3-7 = the cap
 *   passed to rg_keys_find.
 *   each spec: one byte; with its top bit set, its low bits pick a whole hand-written command
 *   table from cmd_specs.h (and no more specs are read); else 11 more bytes give the fields.
 * Every answer must match the independent model in keys_ref.h, name positions inside argv, not
 * depend on cap, and agree with rg_slot_of_argv; ASan catches any read past the input.
 */
#include "cmd_specs.h"
#include "keys_ref.h"
#include "rg_enc.h"
#include "rg_keys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_ARGS = 256, MAX_KEYS = 4 * MAX_ARGS };

typedef struct input {
    const uint8_t *p;
    size_t n;
} input;

static uint8_t take(input *in) {
    if (in->n == 0) return 0;
    in->n--;
    return *in->p++;
}

static rg_keyspec spec_from(input *in) {
    static const char *const keywords[] = {"STREAMS", "KEYS", "STORE", "a", "", NULL};
    static const uint16_t flagsets[] = {RG_KEY_RO, RG_KEY_NOT_KEY, RG_KEY_INCOMPLETE,
                                        RG_KEY_NOT_KEY | RG_KEY_INCOMPLETE};
    rg_keyspec s = {0};
    s.begin = take(in) % (RG_KS_KIND_COUNT + 1);
    s.find = take(in) % (RG_KS_KIND_COUNT + 1);
    s.index = (int8_t)take(in);
    s.startfrom = (int8_t)take(in);
    s.lastkey = (int8_t)take(in);
    s.limit = (int8_t)take(in);
    s.keynumidx = (int8_t)take(in);
    s.firstkey = (int8_t)take(in);
    s.step = (int8_t)take(in);
    s.flags = flagsets[take(in) % 4];
    s.keyword = keywords[take(in) % 6];
    return s;
}

static void fail(const char *what) {
    fprintf(stderr, "fuzz_keys: %s\n", what);
    abort();
}

/* Splits at '\n' into views of the input. */
static size_t split(const char *p, size_t n, rg_view *argv) {
    size_t argc = 0, start = 0;
    for (size_t i = 0; i <= n && argc < MAX_ARGS; i++) {
        if (i == n || p[i] == '\n') {
            argv[argc++] = (rg_view){p + start, i - start};
            start = i + 1;
        }
    }
    return argc;
}

/* Encodes argv and parses it back; returns the parsed argc (views into *req, to be freed). */
static size_t round_trip(const rg_view *argv, size_t argc, char **req, rg_view *back) {
    const size_t len = rg_argv_size(argc, argv);
    *req = malloc(len);
    if (!*req || rg_argv_encode(*req, len, argc, argv) != len) fail("encode");
    if (rg_request_argv(*req, len, back, MAX_ARGS) != argc) fail("encoded call not parsed back");
    for (size_t i = 0; i < argc; i++)
        if (back[i].len != argv[i].len || memcmp(back[i].ptr, argv[i].ptr, argv[i].len))
            fail("encoded call parsed back differently");
    return argc;
}

static int slot_of(const size_t *pos, size_t n, const rg_view *argv) {
    int slot = RG_SLOT_NONE;
    for (size_t i = 0; i < n; i++) {
        const int s = rg_slot_of_key(argv[pos[i]].ptr, argv[pos[i]].len);
        slot = slot == RG_SLOT_NONE || slot == s ? s : RG_SLOT_CROSS;
    }
    return slot;
}

static void check_keys(const rg_keyspec *specs, size_t nspecs, size_t argc, const rg_view *argv,
                       size_t cap) {
    static const size_t unset = 12345;
    size_t got[MAX_KEYS], want[MAX_KEYS], all[MAX_KEYS];
    for (size_t i = 0; i < MAX_KEYS; i++) got[i] = want[i] = unset;
    rg_status wst;
    rg_error ge, ae;
    const size_t gn = rg_keys_find(specs, nspecs, argc, argv, got, cap, &ge);
    const rg_status gst = ge.status;
    const size_t wn = ref_keys_find(specs, nspecs, argc, argv, want, cap, &wst);
    if (gn != wn || gst != wst || memcmp(got, want, sizeof got)) fail("differs from the model");
    /* No spec names more keys than there are arguments. */
    if (gn > nspecs * argc) fail("too many keys");
    const size_t an = rg_keys_find(specs, nspecs, argc, argv, all, MAX_KEYS, &ae);
    if (an != gn || ae.status != gst || ae.offset != ge.offset) fail("answer depends on cap");
    if ((gst == RG_OK) != (ge.msg.len == 0)) fail("a message without an error, or none with one");
    for (size_t i = 0; i < an; i++)
        if (all[i] >= argc) fail("position outside argv");
    const int slot = rg_slot_of_argv(specs, nspecs, argc, argv);
    const int want_slot = gst != RG_OK ? RG_SLOT_UNKNOWN : slot_of(all, an, argv);
    if (slot != want_slot) fail("rg_slot_of_argv disagrees with the positions");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    input in = {data, size};
    const uint8_t control = take(&in);
    const size_t cap = control >> 3;
    rg_keyspec own[3];
    const rg_keyspec *specs = own;
    size_t nspecs = control & 3;
    for (size_t i = 0; i < nspecs; i++) {
        const uint8_t pick = take(&in);
        if (pick & 0x80) {
            const cmd_specs *c = &all_cmd_specs[(pick & 0x7f) % N_CMD_SPECS];
            specs = c->specs;
            nspecs = c->n;
            break;
        }
        own[i] = spec_from(&in);
    }
    const char *call = (const char *)in.p;
    rg_view argv[MAX_ARGS];
    if (control & 4) {
        const size_t argc = rg_request_argv(call, in.n, argv, MAX_ARGS);
        check_keys(specs, nspecs, argc < MAX_ARGS ? argc : MAX_ARGS, argv, cap);
        return 0;
    }
    const size_t argc = split(call, in.n, argv);
    char *req = NULL;
    rg_view back[MAX_ARGS];
    round_trip(argv, argc, &req, back);
    check_keys(specs, nspecs, argc, back, cap);
    free(req);
    return 0;
}
