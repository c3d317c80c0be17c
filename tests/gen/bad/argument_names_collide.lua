-- expect: bad/argument_names_collide.lua:5: command 'X', argument 'a_b': name maps to the same C identifier 'a_b' as 'a-b' (line 4)
-- Different names, one C identifier.
command "X" {
    string "a-b",
    string "a_b",
}
