-- expect: bad/multiple_token_without_multiple.lua:4: command 'X', argument 'get': multiple_token needs multiple = true and a token
-- multiple_token repeats the token of a multiple argument.
command "X" {
    pattern "get" { token = "GET", multiple_token = true },
}
