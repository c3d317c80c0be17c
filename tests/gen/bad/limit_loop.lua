-- expect: bad/limit_loop.lua:5: spec runs too long (instruction limit)
-- within: 10
-- A spec that never ends.
command "X" {}
while true do end
