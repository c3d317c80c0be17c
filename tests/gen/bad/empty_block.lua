-- expect: bad/empty_block.lua:4: command 'X', argument 'range': block needs at least one argument
-- A block groups arguments; an empty one groups nothing.
command "X" {
    block "range" { optional = true },
}
