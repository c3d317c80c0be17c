-- expect: bad/invalid_on_string.lua:4: command 'X', argument 'name': invalid applies to integer, double, unix-time and oneof arguments only
command "X" {
    key "key",
    string "name" { invalid = "ERR bad name" },
}
