-- expect: bad/syntax_error.lua:5: '}' expected (to close '{' at line 3) near 'string'
-- Lua syntax errors point at the line too.
command "X" {
    string "a"
    string "b",
}
