-- Example spec: a handful of Redis commands that together use every argument kind and
-- combinator of the spec language (docs/spec-language.md).
--
--   respgen -o out specs/example.lua   ->   out/example.h, out/example.c

command "GET" {
    summary = "Returns the string value of a key.",
    group = "string",
    since = "1.0.0",
    arity = 2,
    flags = { "READONLY", "FAST" },
    key_specs = {
        { flags = { "RO", "ACCESS" }, begin_search = { index = { pos = 1 } },
          find_keys = { range = { lastkey = 0, step = 1, limit = 0 } } },
    },
    reply = { oneOf = { { type = "string" }, { type = "null" } } },
    key "key" { key_spec_index = 0 },
}

command "SET" {
    summary = "Sets the string value of a key, ignoring its type.",
    group = "string",
    since = "1.0.0",
    arity = -3,
    flags = { "WRITE", "DENYOOM" },
    key_specs = {
        { flags = { "RW", "ACCESS", "UPDATE", "VARIABLE_FLAGS" },
          begin_search = { index = { pos = 1 } },
          find_keys = { range = { lastkey = 0, step = 1, limit = 0 } } },
    },
    reply = {
        anyOf = { { type = "null" }, { const = "OK" }, { type = "string" } },
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
        integer "seconds" { token = "EX" },
        integer "milliseconds" { token = "PX" },
        unix_time "unix-time-seconds" { token = "EXAT", since = "6.2.0" },
        unix_time "unix-time-milliseconds" { token = "PXAT", since = "6.2.0" },
        pure_token "keepttl" { token = "KEEPTTL", since = "6.0.0" },
    },
}

command "INCRBY" {
    summary = "Increments the integer value of a key by a number.",
    group = "string",
    since = "1.0.0",
    arity = 3,
    flags = { "WRITE", "DENYOOM", "FAST" },
    key_specs = {
        { flags = { "RW", "ACCESS", "UPDATE" }, begin_search = { index = { pos = 1 } },
          find_keys = { range = { lastkey = 0, step = 1, limit = 0 } } },
    },
    reply = { type = "integer" },
    key "key",
    integer "increment",
}

command "HSET" {
    summary = "Creates or modifies the value of a field in a hash.",
    group = "hash",
    since = "2.0.0",
    arity = -4,
    flags = { "WRITE", "DENYOOM", "FAST" },
    key_specs = {
        { flags = { "RW", "UPDATE" }, begin_search = { index = { pos = 1 } },
          find_keys = { range = { lastkey = 0, step = 1, limit = 0 } } },
    },
    reply = { type = "integer", minimum = 0 },
    key "key",
    block "data" {
        multiple = true,
        string "field",
        string "value",
    },
}

command "MSET" {
    summary = "Atomically creates or modifies the string values of one or more keys.",
    group = "string",
    since = "1.0.1",
    arity = -3,
    flags = { "WRITE", "DENYOOM" },
    key_specs = {
        { flags = { "OW", "UPDATE" }, begin_search = { index = { pos = 1 } },
          find_keys = { range = { lastkey = -1, step = 2, limit = 0 } } },
    },
    reply = { const = "OK" },
    block "data" {
        multiple = true,
        key "key",
        string "value",
    },
}

command "DEL" {
    summary = "Deletes one or more keys.",
    group = "generic",
    since = "1.0.0",
    arity = -2,
    flags = { "WRITE" },
    key_specs = {
        { flags = { "RM", "DELETE" }, begin_search = { index = { pos = 1 } },
          find_keys = { range = { lastkey = -1, step = 1, limit = 0 } } },
    },
    reply = { type = "integer", minimum = 0 },
    key "key" { multiple = true },
}

command "ZADD" {
    summary = "Adds one or more members to a sorted set, or updates their scores.",
    group = "sorted-set",
    since = "1.2.0",
    arity = -4,
    flags = { "WRITE", "DENYOOM", "FAST" },
    key_specs = {
        { flags = { "RW", "UPDATE" }, begin_search = { index = { pos = 1 } },
          find_keys = { range = { lastkey = 0, step = 1, limit = 0 } } },
    },
    reply = { oneOf = { { type = "null" }, { type = "integer" }, { type = "number" } } },
    key "key",
    oneof "condition" {
        optional = true,
        pure_token "nx" { token = "NX" },
        pure_token "xx" { token = "XX" },
    },
    oneof "comparison" {
        optional = true,
        pure_token "gt" { token = "GT" },
        pure_token "lt" { token = "LT" },
    },
    pure_token "change" { token = "CH", optional = true },
    pure_token "increment" { token = "INCR", optional = true },
    block "data" {
        multiple = true,
        double "score",
        string "member",
    },
}

command "EXPIRE" {
    summary = "Sets the expiration time of a key in seconds.",
    group = "generic",
    since = "1.0.0",
    arity = -3,
    flags = { "WRITE", "FAST" },
    key_specs = {
        { flags = { "RW", "UPDATE" }, begin_search = { index = { pos = 1 } },
          find_keys = { range = { lastkey = 0, step = 1, limit = 0 } } },
    },
    reply = { type = "integer" },
    key "key",
    integer "seconds",
    oneof "condition" {
        optional = true,
        since = "7.0.0",
        pure_token "nx" { token = "NX" },
        pure_token "xx" { token = "XX" },
        pure_token "gt" { token = "GT" },
        pure_token "lt" { token = "LT" },
    },
}

command "CLIENT KILL" {
    summary = "Terminates open connections.",
    group = "connection",
    since = "2.4.0",
    arity = -3,
    flags = { "ADMIN", "NOSCRIPT", "LOADING", "STALE" },
    reply = { oneOf = { { const = "OK" }, { type = "integer", minimum = 0 } } },
    oneof "filter" {
        string "old-format" { display = "ip:port", deprecated_since = "2.8.12" },
        oneof "new-format" {
            multiple = true,
            integer "client-id" { token = "ID", optional = true },
            oneof "client-type" {
                token = "TYPE",
                optional = true,
                pure_token "normal" { token = "normal" },
                pure_token "master" { token = "master" },
                pure_token "slave" { token = "slave" },
                pure_token "replica" { token = "replica" },
                pure_token "pubsub" { token = "pubsub" },
            },
            string "username" { token = "USER", optional = true },
            string "addr" { token = "ADDR", display = "ip:port", optional = true },
            string "laddr" { token = "LADDR", display = "ip:port", optional = true },
            oneof "skipme" {
                token = "SKIPME",
                optional = true,
                pure_token "yes" { token = "YES" },
                pure_token "no" { token = "NO" },
            },
        },
    },
}

command "SORT" {
    summary = "Sorts the elements in a list, a set, or a sorted set.",
    group = "generic",
    since = "1.0.0",
    arity = -2,
    flags = { "WRITE", "DENYOOM" },
    key_specs = {
        { flags = { "RO", "ACCESS" }, begin_search = { index = { pos = 1 } },
          find_keys = { range = { lastkey = 0, step = 1, limit = 0 } } },
        -- BY and GET name keys that derive from the sorted values; STORE may be anywhere.
        { flags = { "RO", "ACCESS" }, begin_search = "unknown", find_keys = "unknown" },
        { flags = { "OW", "UPDATE" }, begin_search = "unknown", find_keys = "unknown" },
    },
    reply = { oneOf = { { type = "array", items = { type = "string" } }, { type = "integer" } } },
    key "key",
    pattern "by-pattern" { token = "BY", display = "pattern", optional = true },
    block "limit" {
        token = "LIMIT",
        optional = true,
        integer "offset",
        integer "count",
    },
    pattern "get-pattern" {
        token = "GET",
        display = "pattern",
        optional = true,
        multiple = true,
        multiple_token = true,
    },
    oneof "order" {
        optional = true,
        pure_token "asc" { token = "ASC" },
        pure_token "desc" { token = "DESC" },
    },
    pure_token "sorting" { token = "ALPHA", optional = true },
    key "destination" { token = "STORE", optional = true },
}

command "PING" {
    summary = "Returns the server's liveliness response.",
    group = "connection",
    since = "1.0.0",
    arity = -1,
    flags = { "FAST" },
    reply = { anyOf = { { const = "PONG" }, { type = "string" } } },
    string "message" { optional = true, max_len = 64 },
}

command "ZRANGEBYSCORE" {
    summary = "Returns members in a sorted set within a range of scores.",
    group = "sorted-set",
    since = "1.0.5",
    arity = -4,
    flags = { "READONLY" },
    key_specs = {
        { flags = { "RO", "ACCESS" }, begin_search = { index = { pos = 1 } },
          find_keys = { range = { lastkey = 0, step = 1, limit = 0 } } },
    },
    deprecated_since = "6.2.0",
    replaced_by = "`ZRANGE` with the `BYSCORE` argument",
    doc_flags = { "DEPRECATED" },
    reply = { type = "array", items = { type = "string" } },
    key "key",
    double "min",
    double "max",
    pure_token "withscores" { token = "WITHSCORES", optional = true },
    block "limit" {
        token = "LIMIT",
        optional = true,
        integer "offset",
        integer "count",
    },
}

command "GEOSEARCH" {
    summary = "Queries a geospatial index for members inside an area of a box or a circle.",
    group = "geo",
    since = "6.2.0",
    arity = -7,
    flags = { "READONLY" },
    key_specs = {
        { flags = { "RO", "ACCESS" }, begin_search = { index = { pos = 1 } },
          find_keys = { range = { lastkey = 0, step = 1, limit = 0 } } },
    },
    reply = { type = "array" },
    key "key",
    oneof "from" {
        string "member" { token = "FROMMEMBER" },
        block "fromlonlat" {
            token = "FROMLONLAT",
            double "longitude",
            double "latitude",
        },
    },
    oneof "by" {
        block "circle" {
            double "radius" { token = "BYRADIUS" },
            oneof "unit" {
                pure_token "m" { token = "M" },
                pure_token "km" { token = "KM" },
                pure_token "ft" { token = "FT" },
                pure_token "mi" { token = "MI" },
            },
        },
        block "box" {
            double "width" { token = "BYBOX" },
            double "height",
            oneof "unit" {
                pure_token "m" { token = "M" },
                pure_token "km" { token = "KM" },
                pure_token "ft" { token = "FT" },
                pure_token "mi" { token = "MI" },
            },
        },
    },
    oneof "order" {
        optional = true,
        pure_token "asc" { token = "ASC" },
        pure_token "desc" { token = "DESC" },
    },
    block "count-block" {
        optional = true,
        integer "count" { token = "COUNT" },
        pure_token "any" { token = "ANY", optional = true },
    },
    pure_token "withcoord" { token = "WITHCOORD", optional = true },
    pure_token "withdist" { token = "WITHDIST", optional = true },
    pure_token "withhash" { token = "WITHHASH", optional = true },
}
