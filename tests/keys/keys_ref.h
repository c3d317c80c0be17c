/* A second, independent rg_keys_find for differential tests: a transcription of the shape of
 * Redis' getKeysUsingKeySpecs (src/db.c, 7.0) with GET_KEYSPEC_RETURN_PARTIAL, including its
 * keyword loop that stops before its end index and a string2ll-style number parser, plus the
 * guards rg_keys.h documents (count 0 = no keys, count > argc, first < 1, step < 1 invalid).
 * Deliberately written the plain way, without tables, so that the two share no code. */
#ifndef RG_TEST_KEYS_REF_H
#define RG_TEST_KEYS_REF_H

#include "rg_keys.h"

#include <limits.h>
#include <stdbool.h>
#include <string.h>

static bool ref_caseeq(rg_view a, const char *b) {
    if (a.len != strlen(b)) return false;
    for (size_t i = 0; i < a.len; i++) {
        int x = (unsigned char)a.ptr[i], y = (unsigned char)b[i];
        if (x >= 'a' && x <= 'z') x -= 32;
        if (y >= 'a' && y <= 'z') y -= 32;
        if (x != y) return false;
    }
    return true;
}

/* string2ll: "0", or an optional '-' then [1-9][0-9]*, within long long; at most 20 bytes. */
static bool ref_string2ll(rg_view v, long long *out) {
    const char *p = v.ptr;
    size_t n = v.len, i = 0;
    bool neg = false;
    unsigned long long u = 0;
    if (n == 0 || n >= 21) return false;
    if (n == 1 && p[0] == '0') {
        *out = 0;
        return true;
    }
    if (p[0] == '-') {
        neg = true;
        if (++i == n) return false;
    }
    if (p[i] < '1' || p[i] > '9') return false;
    for (; i < n; i++) {
        if (p[i] < '0' || p[i] > '9') return false;
        if (u > (~0ULL - (unsigned)(p[i] - '0')) / 10) return false;
        u = u * 10 + (unsigned)(p[i] - '0');
    }
    if (neg ? u > (unsigned long long)LLONG_MAX + 1 : u > (unsigned long long)LLONG_MAX)
        return false;
    *out = neg ? (long long)(0 - u) : (long long)u;
    return true;
}

static void ref_worse(rg_status *st, rg_status s) {
    if (s > *st) *st = s;
}

/* Redis' keyword search: the position after the keyword, or 0. */
static long long ref_keyword_at(const rg_keyspec *spec, long long argc, const rg_view *argv) {
    long long start = spec->startfrom > 0 ? spec->startfrom : argc + spec->startfrom;
    long long end = spec->startfrom > 0 ? argc - 1 : 1;
    for (long long i = start; i != end; i = start <= end ? i + 1 : i - 1) {
        if (i >= argc || i < 1) break;
        if (ref_caseeq(argv[i], spec->keyword)) return i + 1;
    }
    return 0;
}

/* MIGRATE's "" stands for "the keys come after KEYS" only when the keyword is there. */
static bool ref_keyword_present(const rg_keyspec *specs, size_t nspecs, long long argc,
                                const rg_view *argv) {
    for (size_t j = 0; j < nspecs; j++) {
        const rg_keyspec *spec = &specs[j];
        if (spec->begin != RG_KS_KEYWORD || !spec->keyword || (spec->flags & RG_KEY_NOT_KEY))
            continue;
        if (ref_keyword_at(spec, argc, argv)) return true;
    }
    return false;
}

static size_t ref_keys_find(const rg_keyspec *specs, size_t nspecs, size_t argc_,
                            const rg_view *argv, size_t *out, size_t cap, rg_status *status) {
    const long long argc = (long long)argc_;
    size_t k = 0;
    *status = RG_OK;
    for (size_t j = 0; j < nspecs; j++) {
        const rg_keyspec *spec = &specs[j];
        long long first = 0, last, step, i;
        if (spec->flags & RG_KEY_NOT_KEY) continue;
        if (spec->begin == RG_KS_INDEX) {
            first = spec->index;
        } else if (spec->begin == RG_KS_KEYWORD) {
            if (!spec->keyword) goto invalid;
            first = ref_keyword_at(spec, argc, argv);
            if (!first) continue;
        } else {
            goto incomplete;
        }
        if (spec->find == RG_KS_RANGE) {
            step = spec->step;
            if (spec->lastkey >= 0)
                last = first + spec->lastkey;
            else if (!spec->limit)
                last = argc + spec->lastkey;
            else
                last = first + ((argc - first) / spec->limit + spec->lastkey);
        } else if (spec->find == RG_KS_KEYNUM) {
            long long numkeys, idx = first + spec->keynumidx;
            step = spec->step;
            if (idx >= argc || idx < 1) goto invalid;
            if (!ref_string2ll(argv[idx], &numkeys) || numkeys < 0 || numkeys > argc) goto invalid;
            if (numkeys == 0) continue;
            first += spec->firstkey;
            last = first + numkeys - 1;
        } else {
            goto incomplete;
        }
        if (step < 1 || first < 1 || last >= argc || last < first || first >= argc) goto invalid;
        for (i = first; i <= last; i += step) {
            /* MIGRATE's "" in place of its key names no key when KEYS follows (Redis'
             * migrateGetKeys); without KEYS, "" is the key */
            if ((spec->flags & RG_KEY_EMPTY_PLACEHOLDER) && argv[i].len == 0 &&
                ref_keyword_present(specs, nspecs, argc, argv))
                continue;
            if (k < cap) out[k] = (size_t)i;
            k++;
        }
        if (spec->flags & RG_KEY_INCOMPLETE) goto incomplete;
        continue;
    incomplete:
        ref_worse(status, RG_INCOMPLETE);
        continue;
    invalid:
        ref_worse(status, RG_INVALID);
    }
    return k;
}

#endif
