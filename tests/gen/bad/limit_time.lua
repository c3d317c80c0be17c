-- expect: bad/limit_time.lua:7: time limit of 1 s reached (--max-seconds)
-- flags: --max-seconds 1
-- within: 5
-- Few instructions, each slow (C work no count hook sees): the wall-clock cap stops it.
command "X" {}
for i = 1, 1e12 do
    local s = ("x"):rep(4000000)
end
