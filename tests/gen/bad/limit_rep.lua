-- expect: bad/limit_rep.lua:5: string.rep result over the limit of 67108864 bytes
-- within: 5
-- A gigabyte in one call: refused before anything is allocated.
command "X" {}
local s = ("x"):rep(1e9)
