-- expect: bad/oneof_one_alternative.lua:4: command 'X', argument 'mode': oneof needs at least 2 alternatives, has 1
-- A choice needs something to choose from.
command "X" {
    oneof "mode" {
        pure_token "fast" { token = "FAST" },
    },
}
