-- RESP request bytes the generator computes ahead of time, and their C string literal form.

local cstr = require("cstr")

local M = {}

-- "$<len>\r\n<bytes>\r\n"
function M.bulk(bytes)
    return "$" .. #bytes .. "\r\n" .. bytes .. "\r\n"
end

-- Size of a bulk string with a payload of len bytes.
function M.bulk_size(len)
    return 1 + #tostring(len) + 2 + len + 2
end

-- "*<n>\r\n"
function M.array_header(n)
    return "*" .. n .. "\r\n"
end

-- String literal contents and comment text from spec bytes: see cstr.lua.
M.c_escape = cstr.escape
M.comment_escape = cstr.comment

-- Splits bytes into pieces whose escaped forms are at most `width` characters, cutting between
-- bulk strings where possible so each piece reads as whole words.
function M.split_literal(bytes, width)
    local pieces, cur = {}, ""
    local function flush()
        if cur ~= "" then pieces[#pieces + 1] = cur end
        cur = ""
    end
    local pos = 1
    while pos <= #bytes do
        -- The next word: "$<n>\r\n<n bytes>\r\n" or "*<n>\r\n".
        local len = bytes:match("^%$(%d+)\r\n", pos)
        local word
        if len then
            local head = #("$" .. len .. "\r\n")
            word = bytes:sub(pos, pos + head + tonumber(len) + 1)
        else
            word = bytes:match("^%*%d+\r\n", pos) or bytes:sub(pos)
        end
        pos = pos + #word
        if #M.c_escape(cur .. word) <= width then
            cur = cur .. word
        else
            flush()
            -- A word too long for one piece is cut between characters.
            for i = 1, #word do
                local ch = word:sub(i, i)
                if #M.c_escape(cur .. ch) > width then flush() end
                cur = cur .. ch
            end
        end
    end
    flush()
    return pieces
end

return M
