/* respgen: a Lua 5.4 state with the `host` module, running the embedded gen/lua/cli.lua.
 * All behaviour lives in Lua; this file only turns Lua errors into a one-line message and an
 * exit status. */
#include "host.h"

#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>

/* Exit status for an error that escaped Lua. */
#define EXIT_LUA_ERROR 1

/* The Lua allocator with a cap (docs/security.md): specs and JSON files come from contributors,
 * and neither may take the machine's memory. rg_host_set_memory_limit() changes the cap. */
static void *capped_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    rg_host_memory *m = ud;
    const size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        free(ptr);
        m->used -= old;
        return NULL;
    }
    if (nsize > old && nsize - old > m->limit - m->used) {
        m->hit = 1;
        return NULL;
    }
    void *p = realloc(ptr, nsize);
    if (p) m->used = m->used - old + nsize;
    return p;
}

static int on_panic(lua_State *L) {
    const char *msg = lua_tostring(L, -1);
    fprintf(stderr, "respgen: %s\n", msg ? msg : "unrecoverable Lua error");
    return 0; /* Lua aborts */
}

/* Message handler: the bare message, or with a traceback when RESPGEN_DEBUG is set. Error objects
 * that are not strings still become readable text. */
static int on_error(lua_State *L) {
    const char *msg = lua_tostring(L, 1);
    if (!msg && luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
        msg = lua_tostring(L, -1);
    else if (!msg)
        msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    if (getenv("RESPGEN_DEBUG")) luaL_traceback(L, L, msg, 1);
    return 1;
}

/* cli(argv) with argv[0] the program name and argv[1..] its arguments, like Lua's `arg`. */
static int run_cli(lua_State *L) {
    const int argc = (int)lua_tointeger(L, 1);
    char **argv = lua_touserdata(L, 2);
    luaL_openlibs(L);
    rg_host_install(L);
    lua_getglobal(L, "require");
    lua_pushliteral(L, "cli");
    lua_call(L, 1, 1);
    lua_createtable(L, argc, 1);
    for (int i = 0; i < argc; i++) {
        lua_pushstring(L, argv[i]);
        lua_rawseti(L, -2, i);
    }
    lua_call(L, 1, 1);
    return 1;
}

/* cli's result as an exit status: an integer, or true/nil for success and false for failure. */
static int exit_status(lua_State *L) {
    int isnum = 0;
    const lua_Integer code = lua_tointegerx(L, -1, &isnum);
    if (isnum) return code >= 0 && code <= 255 ? (int)code : EXIT_LUA_ERROR;
    return lua_isnil(L, -1) || lua_toboolean(L, -1) ? EXIT_SUCCESS : EXIT_FAILURE;
}

int main(int argc, char **argv) {
    rg_host_memory mem = {.limit = RG_HOST_DEFAULT_MEMORY};
    lua_State *L = lua_newstate(capped_alloc, &mem);
    if (!L) {
        fputs("respgen: cannot create the Lua state: out of memory\n", stderr);
        return EXIT_LUA_ERROR;
    }
    lua_atpanic(L, on_panic);
    rg_host_set_memory(L, &mem);
    lua_pushcfunction(L, on_error);
    lua_pushcfunction(L, run_cli);
    lua_pushinteger(L, argc);
    lua_pushlightuserdata(L, argv);
    int status = lua_pcall(L, 2, 1, 1);
    if (status == LUA_OK) {
        status = exit_status(L);
    } else {
        fflush(stdout);
        const char *msg = lua_tostring(L, -1);
        if (status == LUA_ERRMEM && mem.hit)
            fprintf(stderr, "respgen: memory limit of %zu MiB reached (--max-memory)\n",
                    mem.limit >> 20);
        else
            fprintf(stderr, "respgen: %s\n", msg ? msg : "unknown error");
        status = EXIT_LUA_ERROR;
    }
    lua_close(L);
    return status;
}
