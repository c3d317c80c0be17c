-- expect: bad/min_without_text.lua:4: command 'X', argument 'timeout': min and min_error go together
command "X" {
    key "key",
    double "timeout" { min = 0 },
}
