-- Error texts long enough that clang-format splits their literals: the generator must lay them
-- out the same way (tests server_format_long_texts, server_compile_*_long_texts).
command "LONGTEXTS" {
    syntax_error = "ERR this is a rather long syntax error text that surely goes past the hundredth column of a line",
    unknown_error = "ERR an unknown option was given to this command and this text is long enough to wrap: %s",
    key "key",
    double "timeout" { invalid = "ERR timeout is not a float or out of range and this text keeps going on and on", min = 0, min_error = "ERR timeout is negative, and this one is also rather long so that it wraps around" },
    pure_token "nx" { token = "NX", optional = true },
}
