-- expect: bad/limit_memory_flag.lua:8: memory limit of 32 MiB reached (--max-memory)
-- flags: --max-memory 32
-- within: 5
-- The cap set on the command line.
command "X" {}
local t = {}
for i = 1, 40 do
    t[i] = ("x"):rep(4 * 1024 * 1024 - i)
end
