-- expect: bad/limit_memory.lua:7: memory limit of 512 MiB reached (--max-memory)
-- within: 20
-- Forty strings of 64 MiB each (2.5 GiB): the allocator's cap stops them.
command "X" {}
local t = {}
for i = 1, 40 do
    t[i] = ("x"):rep(64 * 1024 * 1024 - i)
end
