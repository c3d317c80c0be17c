-- expect: bad/duplicate_argument.lua:5: command 'X', argument 'key': duplicate argument name (line 4)
-- Two arguments with one name at one level.
command "X" {
    key "key",
    string "key",
}
