-- Golden-test spec: a module's commands. module_prefix keeps "MOD." out of the C names (mod_set,
-- not mod_mod_set; FT._LIST style names lose the '_' too) and makes "mod" the default prefix;
-- include takes chosen commands from another spec (a subcommand alone, without its container).

module_prefix "MOD"

include { "kinds.lua", commands = { "TIME", "object encoding" } }

command "MOD.SET" {
    summary = "A module command: its C names are mod_set_*.",
    arity = -4,
    flags = { "WRITE", "MODULE" },
    key_specs = {
        { flags = { "RW", "UPDATE" }, begin_search = { index = { pos = 1 } },
          find_keys = { range = { lastkey = 0, step = 1, limit = 0 } } },
    },
    reply = { const = "OK" },
    key "key" { key_spec_index = 0 },
    string "path",
    string "json",
    oneof "condition" {
        optional = true,
        pure_token "nx" { token = "NX" },
        pure_token "xx" { token = "XX" },
    },
}

command "MOD._LIST" {
    summary = "An internal-looking name: mod_list_*.",
    arity = 1,
    reply = { type = "array", items = { type = "string" } },
}

command "mod.Get" {
    summary = "The prefix matches in any case.",
    key "key",
}

command "OTHER.PING" {
    summary = "Another prefix stays in the name: mod_other_ping_*.",
}
