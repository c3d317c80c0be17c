-- Where the fields of a command's body were written. A spec's tables keep no lines (only calls
-- do, through debug.getinfo), so a message about `flags = { ... }` would otherwise point at the
-- command's first line. This reads the spec's source as Lua tokens, only when a message needs a
-- line, and in time linear in the text (a hostile spec must not make it slow).

local M = {}

-- Two-character operators: only `==`, `<=`, `>=` and `~=` matter (they are not a field's `=`).
local TWO = { ["=="] = true, ["<="] = true, [">="] = true, ["~="] = true, ["::"] = true,
    [".."] = true, ["//"] = true, ["<<"] = true, [">>"] = true }

local function count_lines(text, from, to)
    local n = 0
    for _ in text:sub(from, to):gmatch("\n") do n = n + 1 end
    return n
end

-- The end of a long bracket ("[==[ ... ]==]") that opens at i, or of the text when unclosed.
local function long_end(text, i)
    local eqs = text:match("^%[(=*)%[", i)
    if not eqs then return nil end
    local _, close = text:find("]" .. eqs .. "]", i + #eqs + 2, true)
    return close or #text
end

-- The end of the quoted string that opens at i (escapes skip the next byte, a bare newline
-- ends it as Lua's lexer would refuse it).
local function short_end(text, i)
    local q, j = text:sub(i, i), i + 1
    while j <= #text do
        local c = text:sub(j, j)
        if c == "\\" then
            j = j + 2
        elseif c == q or c == "\n" then
            return j
        else
            j = j + 1
        end
    end
    return #text
end

-- The token at i: its kind ("name", "string", "number", "op"), its value and its end.
local function token_at(text, i)
    local c = text:sub(i, i)
    local name = text:match("^[%a_][%w_]*", i)
    if name then return "name", name, i + #name - 1 end
    if c == "\"" or c == "'" then
        local e = short_end(text, i)
        return "string", text:sub(i + 1, e - 1), e
    end
    if c == "[" then
        local e = long_end(text, i)
        if e then return "string", nil, e end
    end
    -- A number's exponent sign ("1e-5") comes out as an operator: harmless for fields.
    local num = text:match("^%.?%d[%w%.]*", i)
    if num then return "number", nil, i + #num - 1 end
    local two = text:sub(i, i + 1)
    if TWO[two] then return "op", two, i + 1 end
    return "op", c, i
end

-- Every token of text as { kind, value, line }; out.first[line] is the index of a line's first.
function M.tokens(text)
    local out, i, line = { first = {} }, 1, 1
    while i <= #text do
        local s = text:find("[^ \t\r\f\v\n]", i)
        if not s then break end
        line = line + count_lines(text, i, s - 1)
        if text:sub(s, s + 1) == "--" then
            local e = long_end(text, s + 2) or (text:find("\n", s, true) or #text + 1) - 1
            line = line + count_lines(text, s, e)
            i = e + 1
        else
            local kind, value, e = token_at(text, s)
            out[#out + 1] = { kind = kind, value = value, line = line }
            out.first[line] = out.first[line] or #out
            line = line + count_lines(text, s, e)
            i = e + 1
        end
    end
    return out
end

local OPEN = { ["{"] = 1, ["("] = 1, ["["] = 1, ["}"] = -1, [")"] = -1, ["]"] = -1 }

local function depth_step(tok)
    return tok.kind == "op" and OPEN[tok.value] or 0
end

-- The index of the token after the balanced group that opens at i.
local function skip_group(toks, i)
    local depth = 0
    repeat
        depth = depth + depth_step(toks[i])
        i = i + 1
    until depth <= 0 or i > #toks
    return i
end

local function is_op(tok, v)
    return tok ~= nil and tok.kind == "op" and tok.value == v
end

-- The field at i of a constructor (`name =` or `["name"] =` after `{`, `,` or `;`), if any.
local function field_at(toks, i)
    local prev = toks[i - 1]
    if not (is_op(prev, "{") or is_op(prev, ",") or is_op(prev, ";")) then return nil end
    local t = toks[i]
    if t.kind == "name" and is_op(toks[i + 1], "=") then return t.value end
    if is_op(t, "[") and toks[i + 1] and toks[i + 1].kind == "string" and
        is_op(toks[i + 2], "]") and is_op(toks[i + 3], "=") then
        return toks[i + 1].value
    end
end

-- The indexes of the calls of fn on a line (names fn not after a '.'), found once per line.
local function calls_on(toks, fn, line)
    toks.calls = toks.calls or {}
    local key = fn .. "@" .. line
    if toks.calls[key] then return toks.calls[key] end
    local found, i = {}, toks.first[line]
    while i and toks[i] and toks[i].line == line do
        local t = toks[i]
        if t.kind == "name" and t.value == fn and not is_op(toks[i - 1], ".") then
            found[#found + 1] = i
        end
        i = i + 1
    end
    toks.calls[key] = found
    return found
end

-- Field name -> line of the body of the nth call of `fn` that begins on `line` (`fn "X" { ... }`
-- or `fn(x) { ... }`); empty when the source does not show it so (a call through another name).
function M.body_fields(toks, fn, line, nth)
    local at = calls_on(toks, fn, line)[nth]
    local fields = {}
    if not at then return fields end
    local i = at + 1
    if toks[i] and toks[i].kind == "string" then i = i + 1 elseif is_op(toks[i], "(") then
        i = skip_group(toks, i)
    end
    if not is_op(toks[i], "{") then return fields end
    local stop, depth = skip_group(toks, i), 0
    for j = i, stop - 1 do
        if depth == 1 then
            local name = field_at(toks, j)
            if name and not fields[name] then fields[name] = toks[j].line end
        end
        depth = depth + depth_step(toks[j])
    end
    return fields
end

return M
