-- expect: bad/limit_pattern.lua:6: string.find is not available in specs (patterns can run for hours; docs/security.md)
-- within: 5
-- Backtracking in C, where no hook can stop it: this find alone ran for more than 120 s.
command "X" {}
local s = ("a"):rep(40)
local found = s:find(("a*"):rep(30) .. "b")
