/* Test support: a real redis-server started on a free loopback port, and a blocking client that
 * renders replies as compact text for assertions.
 *
 * Every integration test starts its own server with --save '' --appendonly no in a fresh
 * temporary directory and stops it, so tests never share state or touch a system Redis.
 */
#ifndef RG_TEST_REDIS_H
#define RG_TEST_REDIS_H

#include "rg_dec.h"

#include <stddef.h>
#include <sys/types.h>

/* Tells whether a server with no plain port answers yet (0: it does). */
typedef int (*test_probe_fn)(int port, void *ud);

typedef struct test_redis {
    pid_t pid;
    int port;
    char dir[64]; /* the server's working directory, removed by test_redis_stop */
    /* A server on its TLS port only (test_redis_start_tls_only): port is the TLS port, and
     * probe (NULL: PING on the plain port) tells when it is up, also on a restart. */
    test_probe_fn probe;
    void *probe_ud;
} test_redis;

/* Starts redis-server with the extra arguments (NULL-terminated list, or NULL) and waits until it
 * answers PING. Returns 0, or -1 with a reason on stderr (redis-server missing, no port). */
int test_redis_start(test_redis *s, const char *const *extra_args);

/* test_redis_start with a config file (a path, or NULL), which redis-server wants as its first
 * argument: Sentinel (extra_args "--sentinel") needs one it can rewrite. */
int test_redis_start_conf(test_redis *s, const char *conf, const char *const *extra_args);

/* test_redis_start_conf for a server that serves TLS only: --port 0 --tls-port s->port (the TLS
 * files come in extra_args or the config file); probe(port, ud) says when it answers. */
int test_redis_start_tls_only(test_redis *s, const char *conf, const char *const *extra_args,
                              test_probe_fn probe, void *ud);

/* Stops the server (SIGTERM, then SIGKILL after 5 s) and removes its directory. Idempotent. */
void test_redis_stop(test_redis *s);

/* Kills the server at once (SIGKILL), keeping its port and directory, as a crash would. */
void test_redis_kill(test_redis *s);

/* A port the kernel just handed out for loopback: free unless someone races us for it; -1 when
 * none could be had. */
int test_free_port(void);

/* A socket listening on a free loopback port (its number in *port) that nobody serves: a peer
 * that accepts and never answers, or that the test closes. The caller closes it; -1 on failure. */
int test_listen_loopback(int *port);

/* Sleeps ms milliseconds. */
void test_sleep_ms(long ms);
/* Kills the server if it runs and starts it again on the same port and directory, waiting until
 * it answers PING. Returns 0 or -1. */
int test_redis_restart(test_redis *s, const char *const *extra_args);
/* test_redis_restart with a config file (a sentinel's, rewritten by it: its dir is s->dir). */
int test_redis_restart_conf(test_redis *s, const char *conf, const char *const *extra_args);

/* A blocking connection with its own read buffer and decoder. */
typedef struct test_conn {
    int fd;
    char *buf; /* owned; grows to hold the largest unconsumed reply */
    size_t cap, len, pos;
    rg_reader reader;
} test_conn;

/* Connects to 127.0.0.1:port. Returns 0 or -1. */
int test_conn_open(test_conn *c, int port);
void test_conn_close(test_conn *c);

/* Writes all bytes. Returns 0 or -1. */
int test_conn_send(test_conn *c, const char *bytes, size_t len);

/* Reads one whole top-level reply and renders it into out (NUL-terminated, truncated to cap):
 *   +OK  -ERR msg  :42  hello (a bulk)  (nil) (any null)  #t  ,1.5  (123  !err  =txt:text
 *   *[a,b]  %{k:v,k2:v2}  ~[a]  >[a]  |{k:v}value  (streamed strings joined)
 * Returns 0, or -1 on a closed connection, timeout (10 s) or protocol error. */
int test_conn_reply(test_conn *c, char *out, size_t cap);

/* Reads one whole top-level reply and copies its bytes as the server sent them into out; *len is
 * their count. Returns 0, or -1 as test_conn_reply or when cap is too small. */
int test_conn_reply_raw(test_conn *c, char *out, size_t cap, size_t *len);

/* A server and one connection to it: the fixture of most integration tests. */
typedef struct test_fixture {
    test_redis server;
    test_conn conn;
} test_fixture;

/* cmocka group setup: a heap-allocated fixture with a server started with the extra arguments
 * (NULL-terminated, or NULL) in *state. Returns 0, or -1 (nothing left running). */
int test_fixture_start(void **state, const char *const *extra_args);
/* test_fixture_start with no extra arguments, to name directly in cmocka_run_group_tests. */
int test_fixture_setup(void **state);
/* cmocka group teardown: closes, stops and frees what test_fixture_start made. */
int test_fixture_teardown(void **state);

/* Renders one reply's raw bytes (raw[0..len)) as test_conn_reply does. Returns 0, or -1 when
 * they are not one whole reply. */
int test_render(const char *raw, size_t len, char *out, size_t cap);

/* Sends an argv command (encoded with rg_argv_encode) and renders its reply. */
int test_conn_command(test_conn *c, char *out, size_t cap, size_t argc, const char *const *argv);
/* test_conn_command with the reply's raw bytes (test_conn_reply_raw). */
int test_conn_command_raw(test_conn *c, char *out, size_t cap, size_t *len, size_t argc,
                          const char *const *argv);

#endif
