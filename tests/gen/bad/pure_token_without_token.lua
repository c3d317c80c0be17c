-- expect: bad/pure_token_without_token.lua:4: command 'X', argument 'nx': pure-token needs a token
-- A pure-token sends its token, so it needs one.
command "X" {
    pure_token "nx" { optional = true },
}
