-- expect: bad/include_clash.lua:4: command 'TIME': is also included from bad/../specs/kinds.lua
-- An included command and one of the spec's own cannot share a name.
include { "../specs/kinds.lua", commands = { "TIME" } }
command "TIME" {}
