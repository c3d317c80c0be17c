-- expect: bad/multiple_without_value.lua:4: command 'X', argument 'flags': a multiple argument needs a value; this one sends only tokens
-- A repeated argument needs a value to repeat.
command "X" {
    block "flags" {
        multiple = true,
        pure_token "a" { token = "A" },
    },
}
