-- expect: bad/unknown_argument_field.lua:4: command 'X', argument 'value': unknown argument field 'maxlen'
-- A misspelt argument field is an error, not ignored.
command "X" {
    string "value" { maxlen = 5 },
}
