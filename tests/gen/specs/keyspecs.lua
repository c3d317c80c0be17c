-- Key specs of every kind for the cluster routing tables (<stem>_keys.h/.c): index and keyword
-- searches, range and keynum finds, unknown halves, a negative startfrom, a range limit, and a
-- flags value long enough to wrap.

command "EVAL" {
    arity = -3,
    key_specs = {
        { flags = { "RW", "ACCESS", "UPDATE" }, begin_search = { index = { pos = 2 } },
          find_keys = { keynum = { keynumidx = 0, firstkey = 1, step = 1 } } },
    },
    string "script",
    integer "numkeys",
    key "key" { optional = true, multiple = true, key_spec_index = 0 },
    string "arg" { optional = true, multiple = true },
}

-- A counted key list after a key, required: numkeys is written from key_count.
command "ZUNIONSTORE" {
    arity = -4,
    key_specs = {
        { flags = { "OW", "UPDATE" }, begin_search = { index = { pos = 1 } },
          find_keys = { range = { lastkey = 0, step = 1, limit = 0 } } },
        { flags = { "RO", "ACCESS" }, begin_search = { index = { pos = 2 } },
          find_keys = { keynum = { keynumidx = 0, firstkey = 1, step = 1 } } },
    },
    key "destination" { key_spec_index = 0 },
    integer "numkeys",
    key "key" { multiple = true, key_spec_index = 1 },
    integer "weight" { token = "WEIGHTS", optional = true, multiple = true },
}

command "XREAD" {
    arity = -4,
    key_specs = {
        { flags = { "RO", "ACCESS" },
          begin_search = { keyword = { keyword = "STREAMS", startfrom = 1 } },
          find_keys = { range = { lastkey = -1, step = 1, limit = 2 } } },
    },
    integer "count" { token = "COUNT", optional = true },
    block "streams" {
        token = "STREAMS",
        key "key" { multiple = true, key_spec_index = 0 },
        string "id" { multiple = true },
    },
}

command "MIGRATE" {
    arity = -6,
    key_specs = {
        { flags = { "RW", "ACCESS", "DELETE" }, begin_search = { index = { pos = 3 } },
          find_keys = { range = { lastkey = 0, step = 1, limit = 0 } } },
        { flags = { "RW", "ACCESS", "DELETE", "INCOMPLETE" },
          begin_search = { keyword = { keyword = "KEYS", startfrom = -2 } },
          find_keys = { range = { lastkey = -1, step = 1, limit = 0 } } },
    },
    string "host",
    integer "port",
    key "key" { key_spec_index = 0 },
    integer "destination-db",
    integer "timeout",
    key "keys" { token = "KEYS", optional = true, multiple = true, key_spec_index = 1 },
}

command "OBJECT ENCODING" {
    arity = 3,
    key_specs = {
        { flags = { "RO", "RW", "OW", "RM", "ACCESS", "UPDATE", "INSERT", "DELETE", "NOT_KEY",
                    "INCOMPLETE", "VARIABLE_FLAGS" },
          begin_search = { index = { pos = 2 } },
          find_keys = { range = { lastkey = 0, step = 1, limit = 0 } } },
        { flags = {}, begin_search = "unknown", find_keys = "unknown" },
    },
    key "key" { key_spec_index = 0 },
}

command "PING" {
    arity = -1,
    string "message" { optional = true },
}
