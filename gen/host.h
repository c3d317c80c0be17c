/* The C side of respgen's Lua world: the `host` module and the embedded-module searcher. */
#ifndef RG_HOST_H
#define RG_HOST_H

#include <lua.h>

/* Opens the `host` module: leaves its table on the stack (a lua_CFunction for luaL_requiref). */
int rg_host_open(lua_State *L);

/* Makes require() load modules from the files embedded under gen/lua/ and nowhere else: the
 * program must behave the same whatever Lua files or LUA_PATH the machine it runs on has.
 * Registers `host` in package.loaded too. Expects the standard libraries to be open. */
void rg_host_install(lua_State *L);

#endif
