-- expect: bad/runtime_error.lua:4: unknown argument kind 'strnig' (did you mean 'string'?)
-- A misspelt DSL function is an error of the spec, with its line and the name it resembles.
command "X" {
    strnig "value",
}
