-- expect: bad/include_cycle.lua:3: include of include_cycle.lua makes a cycle or nests deeper than 8
-- The problems of an included spec are reported with its own file and lines.
include { "include_cycle.lua", commands = { "X" } }
command "Y" {}
