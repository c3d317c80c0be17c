-- expect: bad/max_len_on_integer.lua:4: command 'X', argument 'count': max_len applies to key, string and pattern arguments only
-- max_len bounds strings only.
command "X" {
    integer "count" { max_len = 3 },
}
