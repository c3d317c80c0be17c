-- The commands the consumer example needs.
command "SET" {
    arity = -3,
    reply = { const = "OK" },
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
    reply = { oneOf = { { type = "string" }, { type = "null" } } },
    key "key",
}
