-- expect: bad/two_option_tables.lua:4: argument 'value' has two option tables
-- An argument takes one option table.
command "X" {
    string "value" { optional = true } { token = "V" },
}
