-- expect: bad/not_an_argument.lua:3: command 'X': item 2 is a string, not an argument
-- Only arguments go in the list part of a command.
command "X" {
    key "key",
    "value",
}
