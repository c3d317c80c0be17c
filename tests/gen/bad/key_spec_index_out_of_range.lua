-- expect: bad/key_spec_index_out_of_range.lua:8: command 'X', argument 'key': key_spec_index 1 but the command has 1 key_specs (indexes start at 0)
-- key_spec_index refers to key_specs, counted from 0.
command "X" {
    key_specs = {
        { flags = { "RO" }, begin_search = { index = { pos = 1 } },
          find_keys = { range = { lastkey = 0, step = 1, limit = 0 } } },
    },
    key "key" { key_spec_index = 1 },
}
