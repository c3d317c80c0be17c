-- expect: bad/unknown_command_field.lua:4: command 'X': unknown command field 'summery'
-- A misspelt command field is an error, not ignored.
command "X" {
    summery = "Typo.",
}
