-- expect: bad/duplicate_command.lua:5: command 'GET': duplicate command (line 3)
-- Two commands with one name.
command "GET" { key "key" }

command "GET" { key "key" }
