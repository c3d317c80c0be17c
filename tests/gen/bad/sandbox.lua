-- expect: bad/sandbox.lua:3: unknown name 'io'; a spec sees only command, include, module_prefix, key, string, pattern, integer, double, unix_time, pure_token, oneof, block and plain Lua
-- Specs run without io, os, require or load.
local f = io.open("/etc/passwd")
command "X" {}
