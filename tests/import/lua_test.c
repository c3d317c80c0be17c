/* Runs a Lua test script against the generator's Lua sources, not the embedded copies, so the
 * modules under test are exactly the files in gen/lua/:
 *
 *   lua_test SOURCE_DIR SCRIPT [ARGS...]
 *
 * The script sees `host` (the real C module), `require` over SOURCE_DIR/gen/lua and the
 * script's own folder, and its arguments in `arg` as the lua interpreter would set them. Exit
 * status 0 when the script runs to the end, 1 (with the message) when it raises an error. */
#include "embed.h"
#include "host.h"

#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* host.c looks embedded files up here; these tests load everything from the source tree. */
const rg_embedded_file rg_embedded_files[] = {{NULL, NULL, 0}};
const size_t rg_embedded_count = 0;

static int traceback(lua_State *L) {
    luaL_traceback(L, L, lua_tostring(L, 1), 1);
    return 1;
}

static void set_path(lua_State *L, const char *source_dir, const char *script) {
    const char *slash = strrchr(script, '/');
    lua_getglobal(L, "package");
    lua_pushfstring(L, "%s/gen/lua/?.lua;", source_dir);
    if (slash)
        lua_pushlstring(L, script, (size_t)(slash - script));
    else
        lua_pushliteral(L, ".");
    lua_pushliteral(L, "/?.lua");
    lua_concat(L, 3);
    lua_setfield(L, -2, "path");
    lua_pop(L, 1);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fputs("usage: lua_test SOURCE_DIR SCRIPT [ARGS...]\n", stderr);
        return 2;
    }
    lua_State *L = luaL_newstate();
    if (!L) return 1;
    luaL_openlibs(L);
    luaL_requiref(L, "host", rg_host_open, 0);
    lua_pop(L, 1);
    set_path(L, argv[1], argv[2]);
    lua_createtable(L, argc - 3, 1);
    for (int i = 2; i < argc; i++) {
        lua_pushstring(L, argv[i]);
        lua_rawseti(L, -2, i - 2);
    }
    lua_setglobal(L, "arg");
    lua_pushcfunction(L, traceback);
    int status = luaL_loadfile(L, argv[2]);
    if (status == LUA_OK) status = lua_pcall(L, 0, 0, -2);
    if (status != LUA_OK) fprintf(stderr, "%s\n", lua_tostring(L, -1));
    lua_close(L);
    return status == LUA_OK ? 0 : 1;
}
