-- expect: bad/bad_reply.lua:4: command 'X': field 'reply' field 'oneOf' item 2 has unknown field 'typ'
-- The reply schema uses the JSON-schema keywords of the Redis specs.
command "X" {
    reply = { oneOf = { { type = "string" }, { typ = "null" } } },
}
