-- expect: bad/bad_argument_name.lua:4: command 'X', argument '2nd': name cannot become a C identifier
-- Argument names become C identifiers.
command "X" {
    string "2nd",
}
