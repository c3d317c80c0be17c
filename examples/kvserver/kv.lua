-- The commands of the example key-value server (examples/kvserver), as Redis 7.0 defines them
-- (names, arities and arguments from the official command specs). respgen --server turns this
-- into kv_server.h/.c: command ids, lookup, arity checks and typed argument structs.

-- syntax_error = "arity": PING a b is Redis' wrong-number-of-arguments error (as the import
-- overlay gives PING in specs/redis.lua), not "ERR syntax error".
command "PING" { arity = -1, syntax_error = "arity", string "message" { optional = true } }
command "ECHO" { arity = 2, reply = { type = "string" }, string "message" }
-- HELLO [protover [AUTH username password] [SETNAME clientname]] as words the handler reads:
-- Redis answers NOPROTO for a bad version before it looks at the options, an order no table
-- expresses (specs/redis.lua has the structured form).
command "HELLO" {
    arity = -1,
    string "arguments" { optional = true, multiple = true },
}
command "GET" {
    arity = 2,
    reply = { oneOf = { { type = "string" }, { type = "null" } } },
    key "key" }
command "SET" {
    arity = -3,
    late_numbers = true, -- as Redis: SET k v EX abc FOO is a syntax error, not a bad number
    key "key",
    string "value",
    oneof "condition" {
        optional = true,
        pure_token "nx" { token = "NX" },
        pure_token "xx" { token = "XX" },
    },
    pure_token "get" { token = "GET", optional = true },
    oneof "expiration" {
        optional = true,
        integer "seconds" { token = "EX" },
        integer "milliseconds" { token = "PX" },
        unix_time "unix-time-seconds" { token = "EXAT" },
        unix_time "unix-time-milliseconds" { token = "PXAT" },
        pure_token "keepttl" { token = "KEEPTTL" },
    },
}
command "DEL" { arity = -2, reply = { type = "integer" }, key "key" { multiple = true } }
command "EXISTS" { arity = -2, reply = { type = "integer" }, key "key" { multiple = true } }
command "INCR" { arity = 2, reply = { type = "integer" }, key "key" }
command "INCRBY" { arity = 3, reply = { type = "integer" }, key "key", integer "increment" }
command "MGET" {
    arity = -2,
    reply = { type = "array", items = { oneOf = { { type = "string" }, { type = "null" } } } },
    key "key" { multiple = true } }
command "MSET" {
    arity = -3,
    reply = { const = "OK" },
    block "data" { multiple = true, key "key", string "value" },
}
-- EXPIRE checks its NX|XX|GT|LT words before the number, with texts of its own ("Unsupported
-- option", "NX and XX, GT or LT options at the same time are not compatible"): both are taken
-- as strings here and the handler applies Redis' order.
command "EXPIRE" {
    arity = -3,
    reply = { oneOf = { { const = 0 }, { const = 1 } } },
    key "key",
    string "seconds",
    string "condition" { optional = true, multiple = true },
}
command "TTL" { arity = 2, reply = { type = "integer" }, key "key" }
command "COMMAND" { arity = -1 }
command "COMMAND COUNT" { arity = 2, reply = { type = "integer" } }
command "QUIT" { arity = -1 }
