-- expect: bad/unknown_flag.lua:4: command 'X': field 'flags' item 2 'FAAST' is not a known command flag
-- Command flags are the Redis ones.
command "X" {
    flags = { "WRITE", "FAAST" },
}
