-- expect: bad/wrong_field_type.lua:4: command 'X', argument 'value': field 'optional' must be true or false, got "yes"
-- Flags are booleans.
command "X" {
    string "value" { optional = "yes" },
}
