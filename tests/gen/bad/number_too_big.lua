-- expect: bad/number_too_big.lua:7: command 'X': field 'arity' must be from -2147483647 to 2147483647, got -1099511627776
-- expect: bad/number_too_big.lua:8: command 'X': field 'key_specs' item 1 field 'begin_search' 'index' field 'pos' must be at most 2147483647, got 4294967297
-- expect: bad/number_too_big.lua:9: command 'X', argument 'n': field 'min' must be at least -9223372036854775807, got -9223372036854775808
-- expect: bad/number_too_big.lua:9: command 'X', argument 'n': min and min_error go together
-- Numbers that become C constants must fit their C type (int, int32_t, int64_t literals).
command "X" {
    arity = -(1 << 40),
    key_specs = { { flags = { "RO" }, begin_search = { index = { pos = (1 << 32) + 1 } }, find_keys = "unknown" } },
    integer "n" { min = math.mininteger, min_error = "ERR too small" },
}
