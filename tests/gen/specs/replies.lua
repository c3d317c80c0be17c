-- Reply shapes under test (tests/reply): commands copied from specs/redis.lua (imported from
-- the official Redis JSON specs), one or more per shape family: integer (INCR), simple OK and
-- nullable string (SET, GET), array of nullable strings (MGET), map (HGETALL, CONFIG GET),
-- double or null (ZSCORE), oneOf of arrays (ZRANGE, LPOS), nested arrays (XRANGE, SCAN), sets
-- (SMEMBERS), fixed-key objects kept raw (HELLO, COMMAND DOCS).

command "COMMAND" {
    group = "server",
    since = "2.8.13",
    arity = -1,
    flags = { "LOADING", "STALE", "SENTINEL" },
    acl_categories = { "CONNECTION" },
    command_tips = { "NONDETERMINISTIC_OUTPUT_ORDER" },
}

command "COMMAND DOCS" {
    group = "server",
    since = "7.0.0",
    arity = -2,
    flags = { "LOADING", "STALE", "SENTINEL" },
    acl_categories = { "CONNECTION" },
    command_tips = { "NONDETERMINISTIC_OUTPUT_ORDER" },
    reply = {
        type = "object",
        additionalProperties = false,
        patternProperties = {
            ["^.*$"] = {
                type = "object",
                additionalProperties = false,
                properties = {
                    summary = { description = "Short command description.", type = "string" },
                    since = {
                        type = "string",
                    },
                    group = {
                        oneOf = {
                            { const = "bitmap" },
                            { const = "cluster" },
                            { const = "connection" },
                            { const = "generic" },
                            { const = "geo" },
                            { const = "hash" },
                            { const = "hyperloglog" },
                            { const = "list" },
                            { const = "module" },
                            { const = "pubsub" },
                            { const = "scripting" },
                            { const = "sentinel" },
                            { const = "server" },
                            { const = "set" },
                            { const = "sorted-set" },
                            { const = "stream" },
                            { const = "string" },
                            { const = "transactions" },
                        },
                    },
                    complexity = {
                        type = "string",
                    },
                    module = { type = "string" },
                    doc_flags = {
                        type = "array",
                        items = {
                            oneOf = {
                                {
                                    const = "deprecated",
                                },
                                {
                                    const = "syscmd",
                                },
                            },
                        },
                    },
                    deprecated_since = {
                        type = "string",
                    },
                    replaced_by = {
                        type = "string",
                    },
                    history = {
                        type = "array",
                        items = {
                            type = "array",
                            minItems = 2,
                            maxItems = 2,
                            items = {
                                {
                                    type = "string",
                                },
                                { type = "string", description = "The description of the change." },
                            },
                        },
                    },
                    arguments = {
                        type = "array",
                        items = {
                            type = "object",
                            additionalProperties = false,
                            properties = {
                                name = { type = "string" },
                                type = { type = "string" },
                                display_text = { type = "string" },
                                key_spec_index = { type = "integer" },
                                token = { type = "string" },
                                summary = { type = "string" },
                                since = { type = "string" },
                                deprecated_since = { type = "string" },
                                flags = { type = "array", items = { type = "string" } },
                                arguments = { type = "array" },
                            },
                        },
                    },
                    reply_schema = { description = "Command reply schema.", type = "object" },
                    subcommands = {
                        ["$ref"] = "#",
                    },
                },
            },
        },
    },
    string "command-name" { optional = true, multiple = true },
}

command "CONFIG" {
    group = "server",
    since = "2.0.0",
    arity = -2,
    container = true,
}

command "CONFIG GET" {
    group = "server",
    since = "2.0.0",
    history = { { "7.0.0", "Added the ability to pass multiple pattern parameters in one call" } },
    arity = -3,
    flags = { "ADMIN", "NOSCRIPT", "LOADING", "STALE" },
    reply = { type = "object", additionalProperties = { type = "string" } },
    string "parameter" { multiple = true },
}

command "GET" {
    group = "string",
    since = "1.0.0",
    arity = 2,
    flags = { "READONLY", "FAST" },
    acl_categories = { "STRING" },
    key_specs = {
        {
            flags = { "RO", "ACCESS" },
            begin_search = { index = { pos = 1 } },
            find_keys = { range = { lastkey = 0, step = 1, limit = 0 } },
        },
    },
    reply = {
        oneOf = {
            { description = "The value of the key.", type = "string" },
            { description = "Key does not exist.", type = "null" },
        },
    },
    key "key" { key_spec_index = 0 },
}

command "HELLO" {
    group = "connection",
    since = "6.0.0",
    history = {
        { "6.2.0", "`protover` made optional; when called without arguments the command reports the current connection's context." },
    },
    arity = -1,
    flags = { "NOSCRIPT", "LOADING", "STALE", "FAST", "NO_AUTH", "SENTINEL", "ALLOW_BUSY" },
    acl_categories = { "CONNECTION" },
    reply = {
        type = "object",
        additionalProperties = false,
        properties = {
            server = { type = "string" },
            version = { type = "string" },
            proto = { const = 3 },
            id = { type = "integer" },
            mode = { type = "string" },
            role = { type = "string" },
            modules = {
                type = "array",
                items = {
                    type = "object",
                    additionalProperties = false,
                    properties = {
                        name = { type = "string" },
                        ver = { type = "integer" },
                        path = { type = "string" },
                        args = { type = "array", items = { type = "string" } },
                    },
                },
            },
        },
    },
    block "arguments" {
        optional = true,
        integer "protover",
        block "auth" {
            token = "AUTH",
            optional = true,
            string "username",
            string "password",
        },
        string "clientname" { token = "SETNAME", optional = true },
    },
}

command "HGETALL" {
    group = "hash",
    since = "2.0.0",
    arity = 2,
    flags = { "READONLY" },
    acl_categories = { "HASH" },
    command_tips = { "NONDETERMINISTIC_OUTPUT_ORDER" },
    key_specs = {
        {
            flags = { "RO", "ACCESS" },
            begin_search = { index = { pos = 1 } },
            find_keys = { range = { lastkey = 0, step = 1, limit = 0 } },
        },
    },
    reply = {
        type = "object",
        additionalProperties = { type = "string" },
    },
    key "key" { key_spec_index = 0 },
}

command "INCR" {
    group = "string",
    since = "1.0.0",
    arity = 2,
    flags = { "WRITE", "DENYOOM", "FAST" },
    acl_categories = { "STRING" },
    key_specs = {
        {
            flags = { "RW", "ACCESS", "UPDATE" },
            begin_search = { index = { pos = 1 } },
            find_keys = { range = { lastkey = 0, step = 1, limit = 0 } },
        },
    },
    reply = { description = "The value of key after the increment", type = "integer" },
    key "key" { key_spec_index = 0 },
}

command "LPOS" {
    group = "list",
    since = "6.0.6",
    arity = -3,
    flags = { "READONLY" },
    acl_categories = { "LIST" },
    key_specs = {
        {
            flags = { "RO", "ACCESS" },
            begin_search = { index = { pos = 1 } },
            find_keys = { range = { lastkey = 0, step = 1, limit = 0 } },
        },
    },
    reply = {
        anyOf = {
            { description = "In case there is no matching element", type = "null" },
            { description = "An integer representing the matching element", type = "integer" },
            {
                type = "array",
                uniqueItems = true,
                items = { type = "integer" },
            },
        },
    },
    key "key" { key_spec_index = 0 },
    string "element",
    integer "rank" { token = "RANK", optional = true },
    integer "num-matches" { token = "COUNT", optional = true },
    integer "len" { token = "MAXLEN", optional = true },
}

command "MGET" {
    group = "string",
    since = "1.0.0",
    arity = -2,
    flags = { "READONLY", "FAST" },
    acl_categories = { "STRING" },
    command_tips = { "REQUEST_POLICY:MULTI_SHARD" },
    key_specs = {
        {
            flags = { "RO", "ACCESS" },
            begin_search = { index = { pos = 1 } },
            find_keys = { range = { lastkey = -1, step = 1, limit = 0 } },
        },
    },
    reply = {
        type = "array",
        minItems = 1,
        items = { oneOf = { { type = "string" }, { type = "null" } } },
    },
    key "key" { multiple = true, key_spec_index = 0 },
}

command "SCAN" {
    group = "generic",
    since = "2.8.0",
    history = { { "6.0.0", "Added the `TYPE` subcommand." } },
    arity = -2,
    flags = { "READONLY", "TOUCHES_ARBITRARY_KEYS" },
    acl_categories = { "KEYSPACE" },
    command_tips = {
        "NONDETERMINISTIC_OUTPUT",
        "REQUEST_POLICY:SPECIAL",
        "RESPONSE_POLICY:SPECIAL",
    },
    reply = {
        type = "array",
        minItems = 2,
        maxItems = 2,
        items = {
            { title = "cursor", description = "Cursor.", type = "string" },
            { title = "keys", description = "List of keys.", type = "array", items = { type = "string" } },
        },
    },
    integer "cursor",
    pattern "pattern" { token = "MATCH", optional = true },
    integer "count" { token = "COUNT", optional = true },
    string "type" { token = "TYPE", optional = true, since = "6.0.0" },
}

command "SET" {
    group = "string",
    since = "1.0.0",
    history = {
        { "2.6.12", "Added the `EX`, `PX`, `NX` and `XX` options." },
        { "6.0.0", "Added the `KEEPTTL` option." },
        { "6.2.0", "Added the `GET`, `EXAT` and `PXAT` option." },
        { "7.0.0", "Allowed the `NX` and `GET` options to be used together." },
    },
    arity = -3,
    flags = { "WRITE", "DENYOOM" },
    acl_categories = { "STRING" },
    key_specs = {
        {
            flags = { "RW", "ACCESS", "UPDATE", "VARIABLE_FLAGS" },
            begin_search = { index = { pos = 1 } },
            find_keys = { range = { lastkey = 0, step = 1, limit = 0 } },
            notes = "RW and ACCESS due to the optional `GET` argument",
        },
    },
    reply = {
        anyOf = {
            {
                type = "null",
            },
            { description = "`GET` not given: The key was set.", const = "OK" },
            { description = "`GET` given: The key didn't exist before the `SET`", type = "null" },
            { description = "`GET` given: The previous value of the key", type = "string" },
        },
    },
    key "key" { key_spec_index = 0 },
    string "value",
    oneof "condition" {
        optional = true,
        since = "2.6.12",
        pure_token "nx" { token = "NX" },
        pure_token "xx" { token = "XX" },
    },
    pure_token "get" { token = "GET", optional = true, since = "6.2.0" },
    oneof "expiration" {
        optional = true,
        integer "seconds" { token = "EX", since = "2.6.12" },
        integer "milliseconds" { token = "PX", since = "2.6.12" },
        unix_time "unix-time-seconds" { token = "EXAT", since = "6.2.0" },
        unix_time "unix-time-milliseconds" { token = "PXAT", since = "6.2.0" },
        pure_token "keepttl" { token = "KEEPTTL", since = "6.0.0" },
    },
}

command "SMEMBERS" {
    group = "set",
    since = "1.0.0",
    arity = 2,
    flags = { "READONLY" },
    acl_categories = { "SET" },
    command_tips = { "NONDETERMINISTIC_OUTPUT_ORDER" },
    key_specs = {
        {
            flags = { "RO", "ACCESS" },
            begin_search = { index = { pos = 1 } },
            find_keys = { range = { lastkey = 0, step = 1, limit = 0 } },
        },
    },
    reply = {
        type = "array",
        uniqueItems = true,
        items = { type = "string" },
    },
    key "key" { key_spec_index = 0 },
}

command "XRANGE" {
    group = "stream",
    since = "5.0.0",
    history = { { "6.2.0", "Added exclusive ranges." } },
    arity = -4,
    flags = { "READONLY" },
    acl_categories = { "STREAM" },
    key_specs = {
        {
            flags = { "RO", "ACCESS" },
            begin_search = { index = { pos = 1 } },
            find_keys = { range = { lastkey = 0, step = 1, limit = 0 } },
        },
    },
    reply = {
        type = "array",
        uniqueItems = true,
        items = {
            type = "array",
            minItems = 2,
            maxItems = 2,
            items = {
                { description = "Entry ID", type = "string", pattern = "[0-9]+-[0-9]+" },
                { description = "Data", type = "array", items = { type = "string" } },
            },
        },
    },
    key "key" { key_spec_index = 0 },
    string "start",
    string "end",
    integer "count" { token = "COUNT", optional = true },
}

command "ZRANGE" {
    group = "sorted_set",
    since = "1.2.0",
    history = { { "6.2.0", "Added the `REV`, `BYSCORE`, `BYLEX` and `LIMIT` options." } },
    arity = -4,
    flags = { "READONLY" },
    acl_categories = { "SORTEDSET" },
    key_specs = {
        {
            flags = { "RO", "ACCESS" },
            begin_search = { index = { pos = 1 } },
            find_keys = { range = { lastkey = 0, step = 1, limit = 0 } },
        },
    },
    reply = {
        anyOf = {
            {
                type = "array",
                uniqueItems = true,
                items = { type = "string" },
            },
            {
                type = "array",
                uniqueItems = true,
                items = {
                    type = "array",
                    minItems = 2,
                    maxItems = 2,
                    items = {
                        { description = "Member", type = "string" },
                        { description = "Score", type = "number" },
                    },
                },
            },
        },
    },
    key "key" { key_spec_index = 0 },
    string "start",
    string "stop",
    oneof "sortby" {
        optional = true,
        since = "6.2.0",
        pure_token "byscore" { token = "BYSCORE" },
        pure_token "bylex" { token = "BYLEX" },
    },
    pure_token "rev" { token = "REV", optional = true, since = "6.2.0" },
    block "limit" {
        token = "LIMIT",
        optional = true,
        since = "6.2.0",
        integer "offset",
        integer "count",
    },
    pure_token "withscores" { token = "WITHSCORES", optional = true },
}

command "ZSCORE" {
    group = "sorted_set",
    since = "1.2.0",
    arity = 3,
    flags = { "READONLY", "FAST" },
    acl_categories = { "SORTEDSET" },
    key_specs = {
        {
            flags = { "RO", "ACCESS" },
            begin_search = { index = { pos = 1 } },
            find_keys = { range = { lastkey = 0, step = 1, limit = 0 } },
        },
    },
    reply = {
        oneOf = {
            {
                type = "number",
            },
            {
                type = "null",
            },
        },
    },
    key "key" { key_spec_index = 0 },
    string "member",
}

-- A single [member, score] next to pairs of them (ZPOPMIN without and with COUNT): read as pairs.
command "ZPOPMIN" {
    group = "sorted_set",
    since = "5.0.0",
    arity = -2,
    reply = {
        oneOf = {
            {
                type = "array",
                minItems = 2,
                maxItems = 2,
                items = { { type = "string" }, { type = "number" } },
            },
            {
                type = "array",
                items = {
                    type = "array",
                    minItems = 2,
                    maxItems = 2,
                    items = { { type = "string" }, { type = "number" } },
                },
            },
        },
    },
    key "key",
    integer "count" { optional = true },
}

-- An open tuple ([name, dist?, hash?, coord?]: additionalItems) and an always-empty array next
-- to an array of names; alternatives and tuple fields named by titles.
command "GEOSEARCH" {
    group = "geo",
    since = "6.2.0",
    arity = 2,
    reply = {
        anyOf = {
            { title = "names", type = "array", items = { type = "string" } },
            { type = "array", maxItems = 0 },
            {
                title = "matches",
                type = "array",
                items = {
                    type = "array",
                    minItems = 1,
                    maxItems = 4,
                    items = { { type = "string" } },
                    additionalItems = {
                        oneOf = {
                            { type = "string" },
                            { type = "integer" },
                            {
                                title = "coord",
                                type = "array",
                                minItems = 2,
                                maxItems = 2,
                                items = {
                                    { title = "longitude", type = "number" },
                                    { title = "latitude", type = "number" },
                                },
                            },
                        },
                    },
                },
            },
        },
    },
    key "key",
}
