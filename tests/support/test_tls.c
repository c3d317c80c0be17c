/* Test support: see test_tls.h. */
#include "test_tls.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One shell line: keys, requests and signatures, in c->dir. -days -1 backdates nothing but
 * makes notAfter yesterday: an expired certificate. */
static const char script[] =
    "set -e; cd '%s'; K='-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes'\n"
    "openssl req -x509 $K -keyout ca.key -out ca.crt -days 2 -subj /CN=rg-test-ca\n"
    "openssl req -x509 $K -keyout other-ca.key -out other-ca.crt -days 2 -subj /CN=rg-other-ca\n"
    "sign() { openssl req $K -keyout $1.key -out $1.csr -subj /CN=$2\n"
    "  printf '%%s\\n' \"$3\" > $1.ext\n"
    "  openssl x509 -req -in $1.csr -CA ca.crt -CAkey ca.key -set_serial $4 -days ${5:-2} "
    "-extfile $1.ext -out $1.crt; }\n"
    "sign server localhost 'subjectAltName=DNS:localhost,IP:127.0.0.1' 1\n"
    "sign wrong wrong.example 'subjectAltName=DNS:wrong.example' 2\n"
    "sign client rg-client 'extendedKeyUsage=clientAuth' 3\n"
    "openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -set_serial 4 -days -1 "
    "-extfile server.ext -out expired.crt\n";

int test_certs_make(test_certs *c) {
    memset(c, 0, sizeof *c);
    snprintf(c->dir, sizeof c->dir, "/tmp/respgen-certs-XXXXXX");
    if (!mkdtemp(c->dir)) {
        perror("test_certs_make: mkdtemp");
        return -1;
    }
    char cmd[2048];
    snprintf(cmd, sizeof cmd, script, c->dir);
    char line[2200];
    snprintf(line, sizeof line, "sh -c \"$(cat <<'RGEOF'\n%s\nRGEOF\n)\" >/dev/null 2>&1", cmd);
    if (system(line) != 0) {
        fprintf(stderr, "test_certs_make: the openssl commands failed (is openssl installed?)\n");
        return -1;
    }
    return 0;
}

void test_certs_remove(test_certs *c) {
    if (!c->dir[0]) return;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", c->dir);
    if (system(cmd) != 0) fprintf(stderr, "test_certs_remove: could not remove %s\n", c->dir);
    c->dir[0] = '\0';
}

const char *test_certs_file(test_certs *c, const char *name) {
    snprintf(c->path, sizeof c->path, "%s/%s", c->dir, name);
    return c->path;
}

int test_redis_start_tls(test_redis *s, int *tls_port, test_certs *c, const char *cert,
                         const char *key, bool auth_clients, const char *const *extra_args) {
    char port[16], certp[256], keyp[256], cap[256];
    *tls_port = test_free_port();
    snprintf(port, sizeof port, "%d", *tls_port);
    snprintf(certp, sizeof certp, "%s/%s", c->dir, cert);
    snprintf(keyp, sizeof keyp, "%s/%s", c->dir, key);
    snprintf(cap, sizeof cap, "%s/ca.crt", c->dir);
    enum { MAX = 48 };
    const char *args[MAX] = {"--tls-port",         port,
                             "--tls-cert-file",    certp,
                             "--tls-key-file",     keyp,
                             "--tls-ca-cert-file", cap,
                             "--tls-auth-clients", auth_clients ? "yes" : "no"};
    size_t n = 10;
    for (size_t i = 0; extra_args && extra_args[i] && n < MAX - 1; i++) args[n++] = extra_args[i];
    args[n] = NULL;
    return test_redis_start(s, args);
}
