-- expect: bad/unknown_names.lua:9: unknown name 'comand' (did you mean 'command'?)
-- expect: bad/unknown_names.lua:11: command 'X': field 'flags' item 1 'FAAST' is not a known command flag
-- expect: bad/unknown_names.lua:12: unknown argument kind 'strin' (did you mean 'string'?)
-- expect: bad/unknown_names.lua:14: unknown argument kind 'pure_tokn' (did you mean 'pure_token'?)
-- expect: bad/unknown_names.lua:15: unknown argument kind 'blcok' (did you mean 'block'?)
-- expect: bad/unknown_names.lua:21: command 'Y', argument 'b': block needs at least one argument
-- Misspelt DSL names do not stop the spec: each is reported with the name it resembles, and
-- every other problem of the spec too (arity is not checked against arguments that are missing).
comand "W" { key "k" }
command "X" {
    flags = { "FAAST" },
    strin "value",
    oneof "mode" {
        pure_tokn "nx" { token = "NX" },
        blcok "both" { key "a", key "b" },
    },
    arity = 3,
}
command "Y" {
    key "k",
    block "b" {},
}
