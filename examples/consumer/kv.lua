-- The commands the consumer example needs.
command "SET" {
    arity = -3,
    key "key",
    string "value",
    oneof "expiration" {
        optional = true,
        integer "seconds" { token = "EX" },
        pure_token "keepttl" { token = "KEEPTTL" },
    },
}

command "GET" {
    arity = 2,
    key "key",
}
