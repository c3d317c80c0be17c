-- expect: bad/error_text_control.lua:4: command 'X', argument 'n': field 'invalid' must be an error text like "ERR timeout is negative" (a code in capitals, a space, a message on one line)
-- A NUL in an error text would cut the C string the server sends short.
command "X" {
    integer "n" { invalid = "ERR not\0 a number" },
}
