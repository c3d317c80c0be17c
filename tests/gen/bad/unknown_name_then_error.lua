-- expect: bad/unknown_name_then_error.lua:5: command needs a name string, got table
-- expect: bad/unknown_name_then_error.lua:5: unknown name 'nme'; a spec sees only command, include, module_prefix, key, string, pattern, integer, double, unix_time, pure_token, oneof, block and plain Lua
-- An unknown name that then stops the spec: both the name and the error are reported.
local name = "X"
command(nme) { key "k" }
