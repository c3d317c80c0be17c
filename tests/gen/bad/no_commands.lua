-- expect: bad/no_commands.lua:1: spec declares no commands
-- A spec declares at least one command.
local unused = 1
