-- expect: bad/duplicate_command_with_error.lua:5: command 'GET': unknown command field 'summery'
-- expect: bad/duplicate_command_with_error.lua:8: command 'GET': duplicate command (line 4)
-- A duplicate is reported even when the first definition has a problem of its own.
command "GET" {
    summery = "Typo.",
    key "key",
}
command "GET" { key "key" }
