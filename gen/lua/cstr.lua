-- C text made from spec bytes: the one place that decides how a name, token, error text or file
-- name the generator did not write itself may appear in emitted C.
--
-- Spec and JSON files come from contributors (docs/security.md), so every such byte string is
-- hostile until it has gone through here: string literals escape everything that is not plain
-- printable ASCII, comments cannot be closed or spliced, identifiers are checked, not trusted.

local M = {}

-- C11 5.2.4.1: a string literal (after concatenation) of up to 4095 characters is portable;
-- -Wpedantic (-Woverlength-strings) refuses longer ones.
M.MAX_LITERAL = 4095

local ESCAPES = { ["\r"] = "\\r", ["\n"] = "\\n", ["\t"] = "\\t", ['"'] = '\\"', ["\\"] = "\\\\" }

-- The contents of a C string literal holding exactly `bytes`. Octal escapes always have three
-- digits so a following digit cannot extend them; a '?' after a '?' is escaped so no trigraph
-- (which -std=c11 honours) can form.
function M.escape(bytes)
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

-- A whole C string literal holding exactly `bytes`.
function M.literal(bytes)
    return '"' .. M.escape(bytes) .. '"'
end

-- Text that can stand inside a block comment whatever it held: control and non-ASCII bytes as C
-- escapes (so no newline, and no line splice), no "*/" or "/*", no "??" (trigraphs). Idempotent,
-- so text escaped once may pass through a comment writer that escapes again.
function M.comment(text)
    local out = text:gsub("[%c\128-\255]", function(ch)
        return ESCAPES[ch] or string.format("\\%03o", ch:byte())
    end)
    out = out:gsub("%?%?+", function(run) return "?" .. ("\\?"):rep(#run - 1) end)
    return (out:gsub("%*/", "*\\/"):gsub("/%*", "/\\*"))
end

-- True when s is a C identifier.
function M.is_ident(s)
    return type(s) == "string" and s:match("^[%a_][%w_]*$") ~= nil
end

-- s itself when it is a C identifier; anything else is a generator bug (spec names are checked
-- with file:line messages before any emitter runs), so it stops generation.
function M.ident(s)
    if not M.is_ident(s) then
        error("internal error: not a C identifier: " .. M.comment(tostring(s)), 2)
    end
    return s
end

return M
