/* The consumer example's client: the generated calls of kv.lua (respgen_generate(... CLIENT))
 * on the blocking adapter (respgen::blocking), as a project links them from an installed respgen
 * (or an add_subdirectory one). SET and GET pipelined in one write, then checked; a GET of a
 * missing key is a null.
 *
 * Usage: consumer_client UNIX_SOCKET_PATH      Exit status 0 when every reply is the expected one.
 */
#include "kv_client.h"
#include "rg_blocking.h"

#include <stdio.h>
#include <string.h>

static char in[1 << 14], out[1 << 14];
static rg_call calls[16];

static int failed(const rg_bconn *b) {
    const rg_error e = rg_bconn_error(b);
    fprintf(stderr, "consumer_client: %s: %.*s\n", rg_status_name(e.status), (int)e.msg.len,
            e.msg.ptr);
    return 1;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: consumer_client UNIX_SOCKET_PATH\n");
        return 2;
    }
    const rg_conn_config cfg = {.in = in,
                                .in_cap = sizeof in,
                                .out = out,
                                .out_cap = sizeof out,
                                .calls = calls,
                                .ncalls = 16,
                                .protocol = 3,
                                .timeout_ms = 5000};
    static rg_bconn b;
    if (rg_bconn_connect_unix(&b, argv[1], &cfg, 2000, 5000) != RG_OK) return failed(&b);
    kv_set_result set;
    kv_get_result got, missing;
    rg_call_record rs = {0}, rg = {0}, rm = {0};
    kv_set_call(&b.conn, RG_LIT("client:k"), RG_LIT("from the client"), NULL, &set,
                rg_call_record_fn, &rs);
    kv_get_call(&b.conn, RG_LIT("client:k"), &got, rg_call_record_fn, &rg);
    const uint64_t last =
        kv_get_call(&b.conn, RG_LIT("client:missing"), &missing, rg_call_record_fn, &rm);
    if (last == 0 || rg_bconn_wait(&b, last) != RG_OK) return failed(&b);
    const bool ok = rs.status == RG_OK && rg.status == RG_OK && rm.status == RG_OK &&
                    got.value.len == 15 && memcmp(got.value.ptr, "from the client", 15) == 0 &&
                    missing.value.ptr == NULL;
    printf("consumer_client: SET %s, GET '%.*s', missing %s\n", rg_status_name(rs.status),
           (int)got.value.len, got.value.ptr ? got.value.ptr : "",
           missing.value.ptr ? "present" : "null");
    rg_bconn_close(&b);
    return ok ? 0 : 1;
}
