-- expect: bad/empty_token_on_value.lua:4: command 'X', argument 'value': token must not be empty
-- An empty token is only meaningful as a pure-token (an empty argument).
command "X" {
    string "value" { token = "" },
}
