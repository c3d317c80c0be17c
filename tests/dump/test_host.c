/* Unit tests of the `host` Lua module and the embedded-module searcher, against the fixture
 * files in test_host_embedded.c. Each test runs a Lua chunk that asserts what it expects. */
#include "host.h"

#include <dirent.h>
#include <lauxlib.h>
#include <lualib.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

static int setup(void **state) {
    lua_State *L = luaL_newstate();
    if (!L) return -1;
    luaL_openlibs(L);
    rg_host_install(L);
    *state = L;
    return 0;
}

static int teardown(void **state) {
    lua_close(*state);
    return 0;
}

/* Runs chunk with `...` bound to arg (may be NULL); fails the test with Lua's message. */
static void lua_check(void **state, const char *chunk, const char *arg) {
    lua_State *L = *state;
    if (luaL_loadstring(L, chunk) != LUA_OK) fail_msg("%s", lua_tostring(L, -1));
    lua_pushstring(L, arg);
    if (lua_pcall(L, 1, 0, 0) != LUA_OK) fail_msg("%s", lua_tostring(L, -1));
}

static void version(void **state) {
    lua_check(state,
              "local host = require('host')\n"
              "assert(host.version == '0.1.0', host.version)\n"
              "assert(host.lua_release:match('^Lua 5%.4'))\n",
              NULL);
}

static void require_embedded(void **state) {
    lua_check(state,
              "assert(require('top') == 'top')\n"
              "assert(require('a.b').name == 'a.b')\n"
              "local pkg = require('pkg')\n"
              "assert(pkg.name == 'pkg' and pkg.path == 'gen/lua/pkg/init.lua', pkg.path)\n"
              "local host = require('host')\n"
              "assert(host.has_module('a.b') and host.has_module('pkg'))\n"
              "assert(not host.has_module('a') and not host.has_module('nope'))\n"
              "assert(package.path == '' and package.cpath == '')\n",
              NULL);
}

static void require_errors_name_the_file(void **state) {
    lua_check(state,
              "local ok, err = pcall(require, 'nope')\n"
              "assert(not ok and err:find(\"no embedded module 'gen/lua/nope.lua' or "
              "'gen/lua/nope/init.lua'\", 1, true), err)\n"
              "ok, err = pcall(require, 'bad')\n"
              "assert(not ok and err:find('gen/lua/bad.lua:1: boom', 1, true), err)\n"
              "ok, err = pcall(require, 'syntax')\n"
              "assert(not ok and err:find('gen/lua/syntax.lua:2:', 1, true), err)\n",
              NULL);
}

static void templates(void **state) {
    lua_check(state,
              "local host = require('host')\n"
              "assert(host.template('x.tmpl') == 'X\\n')\n"
              "assert(host.template('sub/y.tmpl') == 'Y\\0Y')\n"
              "assert(host.template('nope') == nil)\n"
              "assert(host.template('../gen/lua/top.lua') == nil)\n"
              "local list = host.templates()\n"
              "assert(#list == 2 and list[1] == 'sub/y.tmpl' and list[2] == 'x.tmpl')\n",
              NULL);
}

static size_t count_entries(const char *dir) {
    DIR *d = opendir(dir);
    assert_non_null(d);
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d));) n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static void files(void **state) {
    char dir[] = "/tmp/respgen-host-XXXXXX";
    assert_non_null(mkdtemp(dir));
    lua_check(state,
              "local host, dir = require('host'), ...\n"
              "local path = dir .. '/out.c'\n"
              "local data = 'bytes\\0\\255\\r\\n'\n"
              "assert(host.write_file_atomic(path, data) == true)\n"
              "assert(host.read_file(path) == data)\n"
              "assert(host.write_file_atomic(path, 'second') == true)\n"
              "assert(host.read_file(path) == 'second')\n"
              "local ok, err = host.write_file_atomic(dir .. '/no/such/dir/f', 'x')\n"
              "assert(ok == nil and err:find('No such file or directory', 1, true), err)\n"
              "ok, err = host.read_file(dir .. '/missing')\n"
              "assert(ok == nil and err == dir .. '/missing: No such file or directory', err)\n"
              "assert(host.write_file_atomic(dir .. '/empty', '') == true)\n"
              "assert(host.read_file(dir .. '/empty') == '')\n",
              dir);
    /* No temp file left behind, and a replaced file keeps its mode. */
    char path[64];
    assert_int_equal(count_entries(dir), 2);
    snprintf(path, sizeof path, "%s/out.c", dir);
    assert_int_equal(chmod(path, 0640), 0);
    lua_check(state, "assert(require('host').write_file_atomic(... .. '/out.c', 'third'))", dir);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0640);
    unlink(path);
    snprintf(path, sizeof path, "%s/empty", dir);
    unlink(path);
    assert_int_equal(rmdir(dir), 0);
}

/* host.write_files: all the files, or none when one of them cannot be written. */
static void files_all_or_none(void **state) {
    char dir[] = "/tmp/respgen-host-XXXXXX";
    assert_non_null(mkdtemp(dir));
    lua_check(
        state,
        "local host, dir = require('host'), ...\n"
        "assert(host.write_files({ {dir .. '/a.c', 'A'}, {dir .. '/b.c', 'B'} }) == true)\n"
        "assert(host.read_file(dir .. '/a.c') == 'A' and host.read_file(dir .. '/b.c') == 'B')\n"
        "assert(host.mkdir_p(dir .. '/d.c'))\n"
        "local ok, err = host.write_files({ {dir .. '/a.c', 'A2'}, {dir .. '/c.c', 'C'},\n"
        "                                   {dir .. '/d.c', 'D'} })\n"
        "assert(ok == nil and err == dir .. '/d.c: Is a directory', err)\n"
        "assert(host.read_file(dir .. '/a.c') == 'A' and not host.read_file(dir .. '/c.c'))\n"
        "assert(host.write_files({}) == true)\n",
        dir);
    /* a.c, b.c and the directory d.c: no temp file left behind. */
    assert_int_equal(count_entries(dir), 3);
    char path[64];
    for (const char *const *f = (const char *const[]){"a.c", "b.c", NULL}; *f; f++) {
        snprintf(path, sizeof path, "%s/%s", dir, *f);
        assert_int_equal(unlink(path), 0);
    }
    snprintf(path, sizeof path, "%s/d.c", dir);
    assert_int_equal(rmdir(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

static void dump_arguments(void **state) {
    lua_check(state,
              "local host = require('host')\n"
              "assert(host.dump({'--max-depth', '99'}) == 2)\n"
              "local ok, err = pcall(host.dump, {'--json', 5})\n"
              "assert(not ok and err:find('argument 2 is not a string', 1, true), err)\n"
              "ok, err = pcall(host.dump, 'x')\n"
              "assert(not ok and err:find('table expected', 1, true), err)\n",
              NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(version, setup, teardown),
        cmocka_unit_test_setup_teardown(require_embedded, setup, teardown),
        cmocka_unit_test_setup_teardown(require_errors_name_the_file, setup, teardown),
        cmocka_unit_test_setup_teardown(templates, setup, teardown),
        cmocka_unit_test_setup_teardown(files, setup, teardown),
        cmocka_unit_test_setup_teardown(files_all_or_none, setup, teardown),
        cmocka_unit_test_setup_teardown(dump_arguments, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
