-- expect: bad/token_too_long.lua:5: command 'X', argument 't': field 'token' is 10240 bytes, over the limit of 255
-- expect: bad/token_too_long.lua:5: command 'X', argument 't': pure-token needs a token
-- A 10 KB token: the server table keeps a token's length in a uint8_t.
command "X" {
    pure_token "t" { token = ("T"):rep(10240) },
}
