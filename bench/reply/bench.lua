-- The replies bench_reply decodes, with the reply shapes of the official specs; ZRANGE is
-- declared with its WITHSCORES shape only (a list of member, score pairs), which the spec
-- language lets a client choose for the calls it makes with WITHSCORES.
command "GET" {
    arity = 2,
    reply = { oneOf = { { type = "string" }, { type = "null" } } },
    key "key",
}

command "MGET" {
    arity = -2,
    reply = { type = "array", items = { oneOf = { { type = "string" }, { type = "null" } } } },
    key "key" { multiple = true },
}

command "HGETALL" {
    arity = 2,
    reply = { type = "object", additionalProperties = { type = "string" } },
    key "key",
}

command "LRANGE" {
    arity = 4,
    reply = { type = "array", items = { type = "string" } },
    key "key",
    integer "start",
    integer "stop",
}

command "ZRANGE" {
    arity = -4,
    reply = {
        type = "array",
        items = { type = "array", items = { { type = "string" }, { type = "number" } } },
    },
    key "key",
    string "start",
    string "stop",
    pure_token "withscores" { token = "WITHSCORES", optional = true },
}

-- ZREVRANGE with the official reply (array of members, or of [member, score] pairs): over RESP2
-- the engine looks ahead over the whole array before it takes the first alternative; the case
-- measures that lookahead against LRANGE on the same bytes.
command "ZREVRANGE" {
    arity = -4,
    reply = {
        anyOf = {
            { type = "array", items = { type = "string" } },
            {
                type = "array",
                items = { type = "array", items = { { type = "string" }, { type = "number" } } },
            },
        },
    },
    key "key",
    integer "start",
    integer "stop",
    pure_token "withscores" { token = "WITHSCORES", optional = true },
}
