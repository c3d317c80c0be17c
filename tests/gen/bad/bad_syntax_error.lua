-- expect: bad/bad_syntax_error.lua:3: command 'X': field 'syntax_error' must be "subcommand", "arity" or an error text like "ERR no such option"
command "X" {
    syntax_error = "loud",
    key "key",
}
