-- expect: bad/bad_error_text.lua:4: command 'X', argument 'count': field 'invalid' must be an error text like "ERR timeout is negative" (a code in capitals, a space, a message on one line)
command "X" {
    key "key",
    integer "count" { invalid = "count is bad" },
}
