-- luacheck's settings for respgen's Lua (the ctest lua_check; Debian package lua-check).
-- scripts/lua-style.sh checks the layout (indentation, line length), so luacheck does not.
std = "lua54"
max_line_length = false

-- Specs run in the sandbox of gen/lua/spec.lua (new_env): the argument constructors, command,
-- and the few library functions it hands over. `string` there is the argument kind.
local spec_env = {
    "command", "key", "string", "pattern", "integer", "double", "unix_time", "pure_token",
    "oneof", "block", "include", "module_prefix",
    "ipairs", "pairs", "select", "type", "tostring", "tonumber", "error", "math", "table",
}
files["specs/example.lua"] = { std = "none", read_globals = spec_env }
files["specs/redis.lua"] = { std = "none", read_globals = spec_env }
files["specs/modules"] = { std = "none", read_globals = spec_env }
-- The import overlay is a plain table, loaded by the importer.

-- Warnings left in modules that other work in progress rewrites (issue 13's command model):
-- fixed there rather than here, so the merge stays simple. Remove an entry once it is clean.
files["gen/lua/emit_c.lua"] = { ignore = { "431" } }           -- `text` shadows the helper
files["gen/lua/emit_reply.lua"] = { ignore = { "212", "213", "431" } }
