-- expect: bad/include_cycle.lua:3: include of include_cycle.lua makes a cycle or nests deeper than 8
-- A spec cannot include itself, directly or through others.
include { "include_cycle.lua", commands = { "X" } }
command "X" {}
