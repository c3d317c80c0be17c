-- expect: bad/runtime_error.lua:4: attempt to call a nil value (global 'strnig'); a spec sees only command, include, module_prefix, key, string, pattern, integer, double, unix_time, pure_token, oneof, block and plain Lua
-- A misspelt DSL function is an error of the spec, with its line.
command "X" {
    strnig "value",
}
