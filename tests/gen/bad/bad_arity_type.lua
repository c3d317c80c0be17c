-- expect: bad/bad_arity_type.lua:4: command 'X': field 'arity' must be a non-zero integer (negative: at least that many words), got "2"
-- arity is an integer.
command "X" {
    arity = "2",
    key "key",
}
