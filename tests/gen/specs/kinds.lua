-- Golden-test spec: every argument kind, required, optional and with tokens; bounded strings;
-- subcommands, containers, commands without arguments, and tokens that need C escapes; a
-- cacheable command and one the spec says is not (emit_client's _cached calls).

command "KINDS" {
    summary = "Every argument kind, required, in order.",
    group = "test",
    since = "1.0.0",
    flags = { "WRITE" },
    key_specs = {
        { flags = { "RW", "UPDATE" }, begin_search = { index = { pos = 1 } },
          find_keys = { range = { lastkey = 0, step = 1, limit = 0 } } },
    },
    reply = { const = "OK" },
    key "key" { key_spec_index = 0 },
    string "value",
    pattern "pattern",
    integer "count",
    double "score",
    unix_time "at",
    pure_token "flag" { token = "FLAG" },
}

command "TOKENS" {
    summary = "Every argument kind, optional and behind a token.",
    flags = { "READONLY", "FAST" },
    key "key" { token = "KEY", optional = true },
    string "value" { token = "VALUE", optional = true },
    pattern "match" { token = "MATCH", optional = true },
    integer "count" { token = "COUNT", optional = true },
    double "score" { token = "SCORE", optional = true },
    unix_time "at" { token = "EXAT", optional = true },
    pure_token "flag" { token = "FLAG", optional = true },
}

local ONE_RO_KEY = {
    { flags = { "RO", "ACCESS" }, begin_search = { index = { pos = 1 } },
      find_keys = { range = { lastkey = 0, step = 1, limit = 0 } } },
}

command "LOOKUP" {
    summary = "Read-only, deterministic, one read-only key: cacheable (LOOKUP_cached).",
    flags = { "READONLY", "FAST" },
    key_specs = ONE_RO_KEY,
    reply = { oneOf = { { type = "string" }, { type = "null" } } },
    key "key" { key_spec_index = 0 },
    string "field",
}

command "PEEK" {
    summary = "Cacheable by its flags, but not by the spec's word.",
    flags = { "READONLY", "FAST" },
    key_specs = ONE_RO_KEY,
    cacheable = false,
    reply = { type = "integer" },
    key "key" { key_spec_index = 0 },
}

command "GATHER" {
    summary = "One element per key: cacheable key by key (GATHER_cached, rg_cache_call_keys).",
    flags = { "READONLY", "FAST" },
    key_specs = {
        { flags = { "RO", "ACCESS" }, begin_search = { index = { pos = 1 } },
          find_keys = { range = { lastkey = -1, step = 1, limit = 0 } } },
    },
    cacheable = "per_key",
    reply = { type = "array", items = { oneOf = { { type = "string" }, { type = "null" } } } },
    key "key" { multiple = true, key_spec_index = 0 },
}

command "BOUNDED" {
    summary = "Strings with max_len: the request has a compile-time maximum size.",
    arity = -3,
    key "key" { max_len = 16 },
    string "value" { max_len = 64 },
    integer "ttl" { token = "EX", optional = true },
    double "weight" { token = "WEIGHT", optional = true },
}

command "OBJECT" {
    summary = "A container: only its subcommands are commands.",
    container = true,
    arity = -2,
}

command "OBJECT ENCODING" {
    summary = "A subcommand.",
    arity = 3,
    key "key",
}

command "TIME" {
    summary = "No arguments at all.",
    flags = { "LOADING", "STALE", "FAST" },
    reply = { type = "array", items = { { type = "string" }, { type = "string" } } },
}

command "ESCAPES" {
    summary = "Tokens that need escaping in C, and the empty token.",
    pure_token "odd" { token = "a\"b\\c??d\r\n\t\200" },
    pure_token "empty" { token = "" },
    string "value" { optional = true, token = "??=" },
}
