-- expect: bad/arity_mismatch.lua:4: command 'X': arity 3 says exactly 3 words, the arguments allow 2
-- A positive arity is the exact word count, the name included.
command "X" {
    arity = 3,
    key "key",
}
