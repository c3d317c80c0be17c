-- A JSON reader (RFC 8259) for the importer: strict, and able to say where things are.
--
-- Values map to Lua as: object and array -> table (arrays 1-based), string -> string (UTF-8),
-- number -> integer when written without fraction or exponent and in range, else float,
-- true/false -> boolean, null -> json.null. Objects and arrays remember their kind, the order
-- of their keys and the position of every member, so a consumer can point at any value:
--
--   local doc, err = json.decode(text, "set.json")   -- err: "set.json:3:7: $.SET: ..."
--   json.kind(doc)                    -- "object", "array", "string", "number", "boolean", "null"
--   json.keys(doc)                    -- object keys in document order
--   json.where(doc, "SET")            -- "set.json:2:12", where the member's value starts
--   json.path_join("$", "SET")        -- "$.SET"; path_join("$.a", 3) -> "$.a[2]" (0-based)
--
-- Rejected: anything outside the grammar, invalid UTF-8, unpaired surrogates, duplicate keys,
-- numbers that overflow a double, trailing bytes after the value, nesting deeper than
-- MAX_DEPTH (to fail cleanly long before the Lua stack would), strings over MAX_STRING bytes.

local M = {}

local MAX_DEPTH = 512
-- Contributors' files (docs/security.md): a string of command specs is a name, a token or a
-- summary; a 100 MB one is an attack on memory, refused before it is copied.
local MAX_STRING = 1024 * 1024
M.MAX_STRING = MAX_STRING

M.null = setmetatable({}, {
    __name = "json.null",
    __tostring = function() return "null" end,
})

-- What the reader knows about each object and array it made: kind, document, where it starts,
-- its keys in order and where each member's value starts. Weak, so it dies with the values.
local INFO = setmetatable({}, { __mode = "k" })

---------------------------------------------------------------------------------------------
-- Positions and paths.

-- Byte offset -> line and column (both 1-based; the column counts bytes).
local function line_col(text, offset)
    local line, line_start = 1, 1
    for nl in text:sub(1, offset - 1):gmatch("()\n") do
        line, line_start = line + 1, nl + 1
    end
    return line, offset - line_start + 1
end

local function format_where(doc, offset)
    local line, col = line_col(doc.text, offset)
    return doc.source .. ":" .. line .. ":" .. col
end

-- A path step: .key for plain keys, ["key"] for the others, [n] (0-based) for array items.
function M.path_join(path, key)
    if math.type(key) == "integer" then return path .. "[" .. (key - 1) .. "]" end
    if key:match("^[%a_][%w_%-]*$") then return path .. "." .. key end
    return path .. '["' .. key:gsub('[\\"]', "\\%0") .. '"]'
end

function M.kind(v)
    if v == M.null then return "null" end
    local t = type(v)
    if t == "table" then return INFO[v] and INFO[v].kind end
    if t == "string" or t == "number" or t == "boolean" then return t end
    return nil
end

function M.keys(obj)
    local info = INFO[obj]
    assert(info and info.kind == "object", "json.keys: not a decoded object")
    return table.move(info.keys, 1, #info.keys, 1, {})
end

-- "source:line:col" of the member `key` of a decoded object or array, or of the container
-- itself when key is nil.
function M.where(container, key)
    local info = INFO[container]
    assert(info, "json.where: not a decoded object or array")
    local offset = info.at
    if key ~= nil then offset = assert(info.pos[key], "json.where: no such member") end
    return format_where(info.doc, offset)
end

---------------------------------------------------------------------------------------------
-- The reader.

local ESCAPES = {
    ['"'] = '"', ["\\"] = "\\", ["/"] = "/", b = "\b", f = "\f", n = "\n", r = "\r", t = "\t",
}

local LITERALS = { ["true"] = true, ["false"] = false, ["null"] = M.null }

-- Raises a parse error as a table, so decode can tell it from a bug.
local ParseError = {}

function M.decode(text, source)
    if type(text) ~= "string" then error("json.decode: text must be a string", 2) end
    local doc = { text = text, source = source or "<json>" }
    local pos = 1
    local path = { "$" } -- path[d] is the path of the value being read at depth d
    local depth = 1

    local function fail(msg, at)
        -- A hostile document's path can be 512 levels deep: keep its two ends readable.
        local where = path[depth]
        if #where > 160 then where = where:sub(1, 60) .. "..." .. where:sub(-60) end
        error(setmetatable({ text = format_where(doc, at or pos) .. ": " .. where ..
            ": " .. msg }, ParseError), 0)
    end

    local function skip_space()
        pos = text:find("[^ \t\r\n]", pos) or #text + 1
    end

    local function describe(at)
        if at > #text then return "end of input" end
        local c = text:sub(at, at)
        if c:match("^[%g ]$") then return "'" .. c .. "'" end
        return string.format("byte 0x%02X", c:byte())
    end

    local read_value

    local function check_utf8(first, last)
        local ok, bad = utf8.len(text, first, last)
        if not ok then fail("invalid UTF-8", bad) end
    end

    local function read_hex4(at)
        local hex = text:match("^%x%x%x%x", at)
        if not hex then fail("\\u needs four hex digits", at) end
        return tonumber(hex, 16)
    end

    -- A \uXXXX escape at `at` (the backslash), with its low half when it is a high surrogate.
    local function read_unicode(at)
        local cp = read_hex4(at + 2)
        local after = at + 6
        if cp >= 0xDC00 and cp <= 0xDFFF then fail("unpaired low surrogate", at) end
        if cp >= 0xD800 and cp <= 0xDBFF then
            if text:sub(after, after + 1) ~= "\\u" then fail("unpaired high surrogate", at) end
            local lo = read_hex4(after + 2)
            if lo < 0xDC00 or lo > 0xDFFF then fail("unpaired high surrogate", at) end
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00)
            after = after + 6
        end
        return utf8.char(cp), after
    end

    local function read_string()
        local start = pos
        local parts = {}
        local i = pos + 1
        while true do
            local j = text:find('[\0-\31"\\]', i)
            if not j then fail("unterminated string", start) end
            if j - start > MAX_STRING then
                fail("string longer than the limit of " .. MAX_STRING .. " bytes", start)
            end
            check_utf8(i, j - 1)
            parts[#parts + 1] = text:sub(i, j - 1)
            local c = text:sub(j, j)
            if c == '"' then
                pos = j + 1
                return table.concat(parts)
            elseif c == "\\" then
                local e = text:sub(j + 1, j + 1)
                if e == "u" then
                    parts[#parts + 1], i = read_unicode(j)
                elseif ESCAPES[e] then
                    parts[#parts + 1], i = ESCAPES[e], j + 2
                else
                    fail("invalid escape \\" .. e, j)
                end
            else
                fail("control character in string (escape it)", j)
            end
        end
    end

    local function read_number()
        local start = pos
        local int_end = select(2, text:find("^%-?%d+", pos))
        if not int_end then fail("invalid number", start) end
        if text:match("^%-?0%d", pos) then fail("leading zero in number", start) end
        local e = int_end
        local integral = true
        if text:sub(e + 1, e + 1) == "." then
            e = select(2, text:find("^%d+", e + 2))
            if not e then fail("digits must follow the decimal point", start) end
            integral = false
        end
        if text:match("^[eE]", e + 1) then
            e = select(2, text:find("^[+-]?%d+", e + 2))
            if not e then fail("digits must follow the exponent", start) end
            integral = false
        end
        local n = tonumber(text:sub(start, e))
        if integral and math.type(n) ~= "integer" then
            n = n + 0.0 -- an integer beyond 64 bits: as a double, like any JSON reader
        end
        if n ~= n or n == math.huge or n == -math.huge then
            fail("number out of range", start)
        end
        pos = e + 1
        return n
    end

    local function new_container(kind)
        local t = {}
        INFO[t] = { kind = kind, doc = doc, at = pos, keys = {}, pos = {} }
        return t
    end

    -- Reads the members of an object or array after its opening bracket. read_member stores
    -- one member and returns nothing.
    local function read_members(close, read_member)
        pos = pos + 1
        skip_space()
        if text:sub(pos, pos) == close then
            pos = pos + 1
            return
        end
        while true do
            read_member()
            skip_space()
            local c = text:sub(pos, pos)
            if c == close then
                pos = pos + 1
                return
            end
            if c ~= "," then fail("expected ',' or '" .. close .. "', found " .. describe(pos)) end
            pos = pos + 1
            skip_space()
        end
    end

    local function read_child(t, key)
        local info = INFO[t]
        depth = depth + 1
        path[depth] = M.path_join(path[depth - 1], key)
        skip_space()
        if depth > MAX_DEPTH then fail("nested deeper than " .. MAX_DEPTH .. " levels") end
        info.pos[key] = pos
        t[key] = read_value()
        depth = depth - 1
    end

    local function read_object()
        local t = new_container("object")
        local info = INFO[t]
        read_members("}", function()
            if text:sub(pos, pos) ~= '"' then
                fail("expected a string key, found " .. describe(pos))
            end
            local key_at = pos
            local key = read_string()
            if info.pos[key] then
                fail(string.format("duplicate key %q (first at %s)", key,
                    format_where(doc, info.pos[key])), key_at)
            end
            skip_space()
            if text:sub(pos, pos) ~= ":" then fail("expected ':', found " .. describe(pos)) end
            pos = pos + 1
            info.keys[#info.keys + 1] = key
            read_child(t, key)
        end)
        return t
    end

    local function read_array()
        local t = new_container("array")
        local n = 0
        read_members("]", function()
            n = n + 1
            read_child(t, n)
        end)
        return t
    end

    local READERS = {
        ["{"] = read_object, ["["] = read_array, ['"'] = read_string, ["-"] = read_number,
    }
    for d = 0, 9 do READERS[tostring(d)] = read_number end

    read_value = function()
        local c = text:sub(pos, pos)
        local reader = READERS[c]
        if reader then return reader() end
        local word = text:match("^%a+", pos)
        if word and LITERALS[word] ~= nil then
            pos = pos + #word
            return LITERALS[word]
        end
        fail("expected a value, found " .. describe(pos))
    end

    local ok, result = pcall(function()
        if text:sub(1, 3) == "\239\187\191" then pos = 4 end -- a UTF-8 byte order mark
        skip_space()
        local v = read_value()
        skip_space()
        if pos <= #text then fail("unexpected " .. describe(pos) .. " after the value") end
        return v
    end)
    if ok then return result end
    if getmetatable(result) == ParseError then return nil, result.text end
    error(result, 0)
end

return M
