/* The C side of respgen's Lua world: the `host` module and the embedded-module searcher. */
#ifndef RG_HOST_H
#define RG_HOST_H

#include <lua.h>
#include <stddef.h>

/* Default cap on the memory of respgen's Lua state (--max-memory changes it). */
#define RG_HOST_DEFAULT_MEMORY ((size_t)512 << 20)

/* The accounting of the capped allocator main.c gives the Lua state (its ud): bytes in use, the
 * cap, and whether an allocation was refused because of it. */
typedef struct rg_host_memory {
    size_t used;
    size_t limit;
    int hit;
} rg_host_memory;

/* Tells the `host` module (host.memory, host.set_memory_limit) where the state's allocator keeps
 * its accounting; m must outlive L. */
void rg_host_set_memory(lua_State *L, rg_host_memory *m);

/* Opens the `host` module: leaves its table on the stack (a lua_CFunction for luaL_requiref). */
int rg_host_open(lua_State *L);

/* Makes require() load modules from the files embedded under gen/lua/ and nowhere else: the
 * program must behave the same whatever Lua files or LUA_PATH the machine it runs on has.
 * Registers `host` in package.loaded too. Expects the standard libraries to be open. */
void rg_host_install(lua_State *L);

#endif
