/* Test support for TLS: certificates made with the `openssl` command in a temporary directory,
 * and a redis-server serving TLS on them (beside its plain port, which the test support uses to
 * see it is up and to load data).
 *
 * The certificates (EC P-256 keys: fast to make), all valid for two days unless said otherwise:
 *   ca.crt / ca.key          the CA that signs the others
 *   other-ca.crt             a CA that signed none of them (an unknown CA for a client)
 *   server.crt / server.key  CN localhost, SAN DNS:localhost and IP:127.0.0.1
 *   wrong.crt / wrong.key    CN wrong.example, SAN DNS:wrong.example (a wrong host)
 *   expired.crt              server.crt's name and key, expired yesterday
 *   client.crt / client.key  a client certificate (mutual TLS)
 */
#ifndef RG_TEST_TLS_H
#define RG_TEST_TLS_H

#include "test_redis.h"

#include <stdbool.h>

typedef struct test_certs {
    char dir[64];
    char path[256]; /* scratch for test_certs_file */
} test_certs;

/* Makes the certificates. Returns 0, or -1 with a reason on stderr. */
int test_certs_make(test_certs *c);
/* Removes the directory. Idempotent. */
void test_certs_remove(test_certs *c);
/* The path of one of the files above (e.g. "ca.crt"), in c's scratch (valid until the next
 * call). */
const char *test_certs_file(test_certs *c, const char *name);

/* Starts redis-server with a TLS port (*tls_port) serving cert/key (file names in c), trusting
 * ca.crt for client certificates, which it requires when auth_clients; extra arguments as
 * test_redis_start's (NULL-terminated, or NULL). Returns 0 or -1. */
int test_redis_start_tls(test_redis *s, int *tls_port, test_certs *c, const char *cert,
                         const char *key, bool auth_clients, const char *const *extra_args);

#endif
