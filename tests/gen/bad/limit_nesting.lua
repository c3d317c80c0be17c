-- expect: bad/limit_nesting.lua:6: command 'X', argument 'b20000.b19999.b19998.b19997.b19996.b19995.b19994.b19993.b19992.b19991.b19990....': arguments nested deeper than the limit of 64 levels
-- within: 5
-- block nested 20,000 deep (it ran for more than 77 s and took 4 GB before the limit).
local a = string "x"
for i = 1, 20000 do
    a = block("b" .. i) { a }
end
command "X" { a }
