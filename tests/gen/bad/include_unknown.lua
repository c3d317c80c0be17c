-- expect: bad/include_unknown.lua:4: include ../specs/kinds.lua: no command 'NOPE', 'OBJECT NOPE' in it
-- Every name an include asks for must be a command (or container) of the included spec.
command "X" {}
include { "../specs/kinds.lua", commands = { "TIME", "NOPE", "OBJECT NOPE" } }
