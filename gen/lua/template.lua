-- Templates of emitted C (templates/*): ${name} placeholders, and files holding several named
-- pieces, each starting with a "//> name" line (or "//> name needs other more" when a piece uses
-- others). Lines before the first piece are comments about the file.

local host = require("host")

local M = {}

function M.load(name)
    return host.template(name)
end

-- Replaces every ${name}; a placeholder without a value is an error in the generator.
function M.fill(text, vars)
    return (text:gsub("%${([%w_]+)}", function(k)
        local v = vars[k]
        if v == nil then error("template placeholder ${" .. k .. "} has no value", 2) end
        return v
    end))
end

-- Splits a file of "//> name" pieces: { order = { names... }, needs = { [name] = { names } },
-- [name] = text without the trailing newline }.
function M.sections(text)
    local out = { order = {}, needs = {} }
    local name, lines = nil, {}
    local function close()
        if name then out[name] = table.concat(lines, "\n") end
    end
    for line in (text .. "\n"):gmatch("(.-)\n") do
        local n, rest = line:match("^//> ([%w_]+)(.*)$")
        if n then
            close()
            name, lines = n, {}
            out.order[#out.order + 1] = n
            out.needs[n] = {}
            for dep in (rest:match("^ needs (.*)$") or ""):gmatch("[%w_]+") do
                table.insert(out.needs[n], dep)
            end
        elseif name then
            lines[#lines + 1] = line
        end
    end
    close()
    for _, n in ipairs(out.order) do out[n] = out[n]:gsub("\n+$", "") end
    return out
end

return M
