-- Lua source for `respgen import-json`: literals, tables laid out to fit the line, and the
-- commands and arguments of a spec, written the way specs/example.lua is (one argument per
-- line, nested arguments indented under their oneof or block).
--
-- Values to render are Lua strings, numbers and booleans, lists made with M.list and records
-- (ordered key/value pairs) made with M.record; tables of any other kind are a bug.

local layout = require("layout")

local M = {}

local WIDTH = layout.LUA_LIMIT
local INDENT = "    "

local LIST, TUPLE, RECORD = { name = "list" }, { name = "tuple" }, { name = "record" }

function M.list(items)
    return setmetatable(items or {}, LIST)
end

-- A short list read as one thing (a history entry): always on one line, however long.
function M.tuple(items)
    return setmetatable(items, TUPLE)
end

-- A record keeps its keys in the order they were added.
function M.record()
    return setmetatable({}, RECORD)
end

function M.add(record, key, value)
    record[#record + 1] = { key, value }
    return record
end

function M.is_record(v)
    return getmetatable(v) == RECORD
end

---------------------------------------------------------------------------------------------
-- Literals.

local ESCAPES = {
    ["\\"] = "\\\\", ['"'] = '\\"', ["\a"] = "\\a", ["\b"] = "\\b", ["\f"] = "\\f",
    ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t", ["\v"] = "\\v",
}

-- A double-quoted Lua string: UTF-8 stays as it is (readable), control bytes are escaped
-- (three digits, so a following digit cannot join the escape).
function M.quote(s)
    return '"' .. s:gsub('[%c"\\]', function(c)
        return ESCAPES[c] or string.format("\\%03d", c:byte())
    end) .. '"'
end

local KEYWORDS = {}
for w in ([[and break do else elseif end false for function goto if in local nil not or
    repeat return then true until while]]):gmatch("%a+") do
    KEYWORDS[w] = true
end

-- A table key as written before " = ": bare when it is a Lua name, else ["..."].
function M.key(k)
    if type(k) == "string" and k:match("^[%a_][%w_]*$") and not KEYWORDS[k] then return k end
    if type(k) == "string" then return "[" .. M.quote(k) .. "]" end
    return "[" .. tostring(k) .. "]"
end

-- The shortest text that reads back as the same number, and as a float when it is one.
local function number(n)
    if math.type(n) == "integer" then return string.format("%d", n) end
    local s
    for digits = 15, 17 do
        s = string.format("%." .. digits .. "g", n)
        if tonumber(s) == n then break end
    end
    if not s:find("[.eEn]") then s = s .. ".0" end
    return s
end

local SCALARS = {
    string = M.quote,
    number = number,
    boolean = tostring,
}

---------------------------------------------------------------------------------------------
-- Tables.

local inline

local function inline_items(v)
    local parts = {}
    local mt = getmetatable(v)
    for i, item in ipairs(v) do
        if mt == RECORD then
            parts[i] = M.key(item[1]) .. " = " .. inline(item[2])
        else
            parts[i] = inline(item)
        end
    end
    return parts
end

-- The value on one line.
inline = function(v)
    local mt = getmetatable(v)
    if mt == LIST or mt == TUPLE or mt == RECORD then
        if #v == 0 then return "{}" end
        return "{ " .. table.concat(inline_items(v), ", ") .. " }"
    end
    local scalar = SCALARS[type(v)]
    if not scalar then error("import_lua: cannot render a " .. type(v), 2) end
    return scalar(v)
end
M.inline = inline

-- The value starting at column `lead` (0-based, the text before it included) on a line
-- indented by `indent`: on that line when it fits (a comma after it included), else one item
-- per line.
local function render(v, indent, lead)
    local flat = inline(v)
    local mt = getmetatable(v)
    if (mt ~= LIST and mt ~= RECORD) or lead + #flat + 1 <= WIDTH then return flat end
    local inner = indent .. INDENT
    local lines = { "{" }
    for _, item in ipairs(v) do
        local prefix, value = inner, item
        if mt == RECORD then prefix, value = inner .. M.key(item[1]) .. " = ", item[2] end
        lines[#lines + 1] = prefix .. render(value, inner, #prefix) .. ","
    end
    lines[#lines + 1] = indent .. "}"
    return table.concat(lines, "\n")
end
M.render = render

---------------------------------------------------------------------------------------------
-- Specs.

-- Appends text (possibly several lines) to out; returns the line number it starts on.
local function emit(out, text)
    local first = out.n + 1
    for line in (text .. "\n"):gmatch("(.-)\n") do
        out.n = out.n + 1
        out[out.n] = line
    end
    return first
end

-- lines (optional): lines[n] = origin for each field's first line n (the spec language points
-- problems of a command's field at the field's line).
local function emit_fields(out, fields, indent, lines, origin)
    for _, f in ipairs(fields) do
        local prefix = indent .. M.key(f[1]) .. " = "
        local line = emit(out, prefix .. render(f[2], indent, #prefix) .. ",")
        if lines then lines[line] = origin end
    end
end

-- arg: { fn = DSL function, name =, opts = record, args = { nested... }, origin = any }.
-- lines[n] = origin of the argument written on line n.
local function emit_arg(out, arg, indent, lines)
    local head = indent .. arg.fn .. " " .. M.quote(arg.name)
    local line
    if #arg.args == 0 and #arg.opts == 0 then
        line = emit(out, head .. ",")
    elseif #arg.args == 0 then
        line = emit(out, head .. " " .. inline(arg.opts) .. ",")
    else
        line = emit(out, head .. " {")
        emit_fields(out, arg.opts, indent .. INDENT)
        for _, child in ipairs(arg.args) do emit_arg(out, child, indent .. INDENT, lines) end
        emit(out, indent .. "},")
    end
    lines[line] = arg.origin
end

-- Text for a "-- " comment line. Names in it come from the JSON: a newline there would end the
-- comment and put the rest of the name into the spec as code.
local function comment_text(s)
    return (s:gsub("%c", function(c) return ESCAPES[c] or string.format("\\%03d", c:byte()) end))
end

-- The text of a spec. banner: comment lines (without "-- "); preamble: optional lines of
-- declarations before the commands (module_prefix "JSON"); commands: { name =, comment =
-- optional comment lines, fields = record, args = list of arguments, origin = any }.
-- Returns the text and a table from line numbers to the origin of the command, command field or
-- argument that starts there.
function M.spec(banner, commands, preamble)
    local out, lines = { n = 0 }, {}
    for _, b in ipairs(banner) do emit(out, b == "" and "--" or "-- " .. comment_text(b)) end
    if preamble and #preamble > 0 then
        emit(out, "")
        for _, p in ipairs(preamble) do emit(out, p) end
    end
    for _, c in ipairs(commands) do
        emit(out, "")
        for _, comment in ipairs(c.comment or {}) do emit(out, "-- " .. comment_text(comment)) end
        lines[emit(out, "command " .. M.quote(c.name) .. " {")] = c.origin
        emit_fields(out, c.fields, INDENT, lines, c.origin)
        for _, a in ipairs(c.args) do emit_arg(out, a, INDENT, lines) end
        emit(out, "}")
    end
    return table.concat(out, "\n", 1, out.n) .. "\n", lines
end

return M
