/* The consumer example: encodes with the generated kv codec, decodes a reply with the runtime,
 * and checks both against the bytes Redis defines. Exit status 0 when everything matches. */
#include "kv.h"
#include "rg_dec.h"

#include <stdio.h>
#include <string.h>

int main(void) {
    const rg_view key = RG_LIT("user:1"), value = RG_LIT("ada");
    const kv_set_opts opts = {.expiration = {.kind = KV_SET_EXPIRATION_SECONDS, .seconds = 30}};
    char buf[128];
    const size_t n = kv_set_encode(buf, sizeof buf, key, value, &opts);
    static const char want[] =
        "*5\r\n$3\r\nSET\r\n$6\r\nuser:1\r\n$3\r\nada\r\n$2\r\nEX\r\n$2\r\n30\r\n";
    if (n != sizeof want - 1 || memcmp(buf, want, n) != 0) {
        fprintf(stderr, "consumer: unexpected SET encoding\n");
        return 1;
    }

    static const char reply[] = "$3\r\nada\r\n";
    rg_reader r;
    rg_reader_init(&r, NULL);
    size_t pos = 0;
    rg_event ev;
    if (rg_next(&r, reply, sizeof reply - 1, &pos, &ev) != RG_OK || ev.kind != RG_EV_BULK ||
        ev.str.len != 3 || memcmp(ev.str.ptr, "ada", 3) != 0) {
        fprintf(stderr, "consumer: unexpected decode\n");
        return 1;
    }
    printf("consumer: SET encoded in %zu bytes, reply decoded: %.*s\n", n, (int)ev.str.len,
           ev.str.ptr);
    return 0;
}
