-- Golden-test spec: every combinator (oneof, block, optional, multiple, multiple_token, tokens
-- before values) alone and nested, and argument names that are C keywords.

command "CHOICE" {
    summary = "oneof: required and optional enums, a union, a oneof behind a token.",
    key "key",
    oneof "mode" {
        pure_token "fast" { token = "FAST" },
        pure_token "safe" { token = "SAFE" },
    },
    oneof "condition" {
        optional = true,
        pure_token "nx" { token = "NX" },
        pure_token "xx" { token = "XX" },
    },
    oneof "expiry" {
        optional = true,
        integer "seconds" { token = "EX" },
        double "ratio" { token = "RATIO" },
        string "at" { token = "AT" },
        pure_token "keep" { token = "KEEPTTL" },
    },
    oneof "aggregate" {
        token = "AGGREGATE",
        optional = true,
        pure_token "sum" { token = "SUM" },
        pure_token "min" { token = "MIN" },
        pure_token "max" { token = "MAX" },
    },
}

command "BLOCKS" {
    summary = "block: required, optional behind a token, with optional parts, only tokens.",
    key "key",
    block "range" {
        integer "start",
        integer "stop",
    },
    block "limit" {
        token = "LIMIT",
        optional = true,
        integer "offset",
        integer "count",
    },
    block "full" {
        optional = true,
        pure_token "full" { token = "FULL" },
        integer "count" { token = "COUNT", optional = true },
    },
    block "withall" {
        optional = true,
        pure_token "with" { token = "WITH" },
        pure_token "all" { token = "ALL" },
    },
}

command "LISTS" {
    summary = "multiple: positional, token once, token repeated, blocks, unions, enums.",
    key "keys" { multiple = true },
    integer "weights" { token = "WEIGHTS", optional = true, multiple = true },
    pattern "get" { token = "GET", optional = true, multiple = true, multiple_token = true },
    block "pairs" {
        token = "PAIRS",
        optional = true,
        multiple = true,
        string "field",
        double "value",
    },
    oneof "ops" {
        optional = true,
        multiple = true,
        integer "incr" { token = "INCR" },
        pure_token "reset" { token = "RESET" },
    },
    oneof "marks" {
        optional = true,
        multiple = true,
        pure_token "a" { token = "A" },
        pure_token "b" { token = "B" },
    },
}

command "NESTED" {
    summary = "Nesting: blocks in oneofs, oneofs in repeated blocks, a repeated oneof in a oneof.",
    oneof "from" {
        string "member" { token = "FROMMEMBER" },
        block "lonlat" {
            token = "FROMLONLAT",
            double "lon",
            double "lat",
        },
    },
    block "write" {
        optional = true,
        multiple = true,
        oneof "overflow" {
            token = "OVERFLOW",
            optional = true,
            pure_token "wrap" { token = "WRAP" },
            pure_token "fail" { token = "FAIL" },
        },
        oneof "op" {
            block "set" {
                token = "SET",
                string "type",
                integer "offset",
                integer "value",
            },
            block "incr" {
                token = "INCRBY",
                string "type",
                integer "offset",
                integer "delta",
            },
        },
    },
    oneof "filter" {
        optional = true,
        string "old" { display = "ip:port" },
        oneof "new" {
            multiple = true,
            integer "id" { token = "ID", optional = true },
            string "user" { token = "USER", optional = true },
        },
    },
}

command "KEYWORDS" {
    summary = "Names that are C keywords or the generated code's own names still work.",
    string "default",
    integer "int",
    string "unix-time",
    string "operator" { optional = true },
    oneof "switch" {
        optional = true,
        pure_token "case" { token = "CASE" },
        integer "do" { token = "DO" },
    },
    block "struct" {
        optional = true,
        key "register",
        string "dst",
    },
}
