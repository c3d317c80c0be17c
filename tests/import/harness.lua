-- A minimal test harness for the Lua tests here: test(name, fn) registers, run() runs them all,
-- prints "ok - name" or "FAIL - name: why", and raises an error when any failed.
local M = { tests = {} }

function M.test(name, fn)
    M.tests[#M.tests + 1] = { name = name, fn = fn }
end

function M.run()
    local failures = 0
    for _, t in ipairs(M.tests) do
        local ok, err = pcall(t.fn)
        if ok then
            print("ok - " .. t.name)
        else
            failures = failures + 1
            print("FAIL - " .. t.name .. ": " .. tostring(err))
        end
    end
    if failures > 0 then error(failures .. " of " .. #M.tests .. " tests failed", 0) end
end

return M
