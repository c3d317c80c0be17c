-- RESP request bytes the generator computes ahead of time, and their C string literal form.

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

local ESCAPES = { ["\r"] = "\\r", ["\n"] = "\\n", ["\t"] = "\\t", ['"'] = '\\"', ["\\"] = "\\\\" }

-- The C source text of a string literal's contents for bytes. Octal escapes always have three
-- digits so a following digit cannot extend them; "??" is broken up so no trigraph can form.
function M.c_escape(bytes)
    local out = {}
    local prev = ""
    for i = 1, #bytes do
        local ch = bytes:sub(i, i)
        local b = ch:byte()
        local e = ESCAPES[ch]
        if not e then
            if b < 32 or b > 126 then
                e = string.format("\\%03o", b)
            elseif ch == "?" and prev == "?" then
                e = "\\?"
            else
                e = ch
            end
        end
        out[#out + 1] = e
        prev = ch
    end
    return table.concat(out)
end

-- Text of spec strings inside a C comment: control and non-ASCII bytes escaped as in C, and no
-- trigraph or comment delimiter can form.
function M.comment_escape(text)
    local out = text:gsub("[%c\128-\255]", function(ch) return M.c_escape(ch) end)
    return (out:gsub("%?%?", "?\\?"):gsub("%*/", "*\\/"):gsub("/%*", "/\\*"))
end

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
