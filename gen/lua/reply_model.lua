-- The reply-type model: a command's `reply` (the JSON-schema subset of the Redis specs, see
-- docs/spec-language.md) reduced to the few shapes the runtime's reply engine (rg_reply.h)
-- decodes, for RESP2 and RESP3 alike.
--
-- Types ({ t = ..., ... }):
--   int  dbl  bool                  int64_t, double, bool
--   str  { const?, nullable? }      rg_view; nullable: a null reply gives {NULL, 0}
--   null                            nothing stored (an alternative of a oneof)
--   array { item }                  { T *items; size_t count; }
--   pairs { key, value }            a map, or a list of 2-element arrays; RESP2 sends both flat
--   tuple { items, min? }           fixed elements, one member each; min: fewest that come
--   object { fields }               fixed keys ({ name, ty } each): one member per field, and
--                                   `present` bits; a map or the flat RESP2 array
--   oneof { alts }                  which (1-based) and a member per alternative
--   any                             the raw RESP bytes of the value (a generic value)
-- Every type also gets `precise = false` when it, or a part of it, fell back to `any` or can
-- not tell its alternatives apart, which the coverage report counts.

local M = {}

local SCALAR = { int = true, dbl = true, bool = true, str = true, null = true, any = true }
M.SCALAR = SCALAR

local from_schema

local function any_type()
    return { t = "any", precise = false }
end

local function all_precise(list)
    for _, x in ipairs(list) do if not x.precise then return false end end
    return true
end

local function pairs_of(key, value)
    return { t = "pairs", key = key, value = value, precise = key.precise and value.precise }
end

-- The most elements a tuple with `additionalItems` is spelled out to (GEOSEARCH: 4).
local MAX_TUPLE = 16

-- A list of `items` (SCAN), maybe followed by `additionalItems` up to `maxItems` (GEOSEARCH
-- WITHDIST/WITHHASH/WITHCOORD: name, then 0 to 3 of dist, hash, coordinates): one member per
-- position; `min` (when fewer than all may come) is `minItems`.
local function tuple_type(s)
    local items = {}
    for i, x in ipairs(s.items) do items[i] = from_schema(x) end
    local extra = type(s.additionalItems) == "table" and s.additionalItems
    if extra and not (s.maxItems and s.maxItems <= MAX_TUPLE) then
        -- Unbounded (CLUSTER SLOTS' replicas): a list of raw values, never a wrong count.
        return { t = "array", item = any_type(), precise = false }
    end
    if extra then
        for i = #items + 1, s.maxItems do items[i] = from_schema(extra) end
    end
    local min = s.minItems
    if min and min >= #items then min = nil end
    return { t = "tuple", items = items, min = min, precise = all_precise(items) }
end

local function array_type(s)
    if s.items == nil then return { t = "array", item = any_type(), precise = false } end
    if s.items[1] ~= nil then return tuple_type(s) end
    local item = from_schema(s.items)
    -- A list of 2-tuples is what RESP2 flattens (ZRANGE WITHSCORES): a list of pairs.
    if item.t == "tuple" and #item.items == 2 and SCALAR[item.items[1].t] then
        return pairs_of(item.items[1], item.items[2])
    end
    return { t = "array", item = item, precise = item.precise }
end

-- The most fields an object gets (its presence bits are one uint64_t); beyond, name/value pairs.
local MAX_FIELDS = 64

-- Fixed keys (`properties`: HELLO, XINFO STREAM): one named field each, in byte order of their
-- names (Lua tables have no order); keys the schema does not list are skipped.
local function fields_type(s)
    local names = {}
    for name in pairs(s.properties) do names[#names + 1] = name end
    if #names == 0 or #names > MAX_FIELDS then return nil end
    table.sort(names)
    local fields, precise = {}, true
    for i, name in ipairs(names) do
        fields[i] = { name = name, ty = from_schema(s.properties[name]) }
        precise = precise and fields[i].ty.precise
    end
    -- Keys beyond the listed ones (MEMORY STATS' db.N) are skipped: not every part is typed.
    local open = s.patternProperties or (s.additionalProperties and s.additionalProperties ~= false)
    return { t = "object", fields = fields, precise = precise and not open }
end

local function object_type(s)
    local value
    if s.properties then
        local o = fields_type(s)
        if o then return o end
    end
    if type(s.additionalProperties) == "table" and not s.properties then
        value = from_schema(s.additionalProperties)
    elseif s.patternProperties and not s.properties then
        local only
        for _, v in pairs(s.patternProperties) do only = only and "many" or v end
        value = (only and only ~= "many") and from_schema(only) or any_type()
    else
        -- Fixed-key objects of too many fields: a map of name to raw value.
        value = any_type()
    end
    return pairs_of({ t = "str", precise = true }, value)
end

-- The accept classes a type takes (as in rg_reply.h), to tell oneof alternatives apart.
local ACCEPT = {
    int = { INT = true }, dbl = { DOUBLE = true, BULK = true, SIMPLE = true, INT = true },
    bool = { BOOL = true, INT = true }, str = { BULK = true, SIMPLE = true, VERBATIM = true },
    null = { NULL = true }, array = { ARRAY = true, SET = true },
    pairs = { MAP = true, ARRAY = true }, tuple = { ARRAY = true },
    object = { MAP = true, ARRAY = true },
}

local function overlaps(a, b)
    if a.t == "any" or b.t == "any" then return true end
    if a.t == "str" and a.const and b.t == "str" then return false end
    -- An integer first, then a double: integers are taken as integers, the rest as doubles.
    if a.t == "int" and b.t == "dbl" then return false end
    for k in pairs(ACCEPT[a.t]) do if ACCEPT[b.t][k] then return true end end
    return false
end

-- A type's structure as text, to find duplicate alternatives.
local function signature(x)
    local parts = { x.t, tostring(x.const), tostring(x.nullable), tostring(x.min) }
    for _, k in ipairs({ "item", "key", "value" }) do
        if x[k] then parts[#parts + 1] = k .. "=" .. signature(x[k]) end
    end
    for _, list in ipairs({ x.items or {}, x.alts or {} }) do
        for _, y in ipairs(list) do parts[#parts + 1] = signature(y) end
    end
    for _, f in ipairs(x.fields or {}) do parts[#parts + 1] = f.name .. "=" .. signature(f.ty) end
    return "(" .. table.concat(parts, " ") .. ")"
end

local function same(a, b)
    return signature(a) == signature(b)
end

-- Alternatives: nested oneofs flattened, duplicates dropped, constants before plain strings.
local function oneof_type(list)
    local alts = {}
    local function add(x)
        if x.t == "oneof" then
            for _, y in ipairs(x.alts) do add(y) end
            return
        end
        for _, y in ipairs(alts) do if same(x, y) then return end end
        alts[#alts + 1] = x
    end
    for _, s in ipairs(list) do add(from_schema(s)) end
    local sorted = {}
    for _, a in ipairs(alts) do if a.const then sorted[#sorted + 1] = a end end
    for _, a in ipairs(alts) do if not a.const then sorted[#sorted + 1] = a end end
    alts = sorted
    if #alts == 1 then return alts[1] end
    -- Strings and null only: one nullable view (the constants are just strings then).
    local strings, nulls = 0, 0
    for _, a in ipairs(alts) do
        if a.t == "str" then strings = strings + 1 elseif a.t == "null" then nulls = nulls + 1 end
    end
    if strings + nulls == #alts and strings > 0 then
        return { t = "str", nullable = nulls > 0, precise = true }
    end
    local precise = all_precise(alts)
    for i = 1, #alts do
        for j = i + 1, #alts do
            if overlaps(alts[i], alts[j]) then precise, alts[j].shadowed = false, true end
        end
    end
    return { t = "oneof", alts = alts, precise = precise }
end

local TYPES = {
    integer = function() return { t = "int", precise = true } end,
    number = function() return { t = "dbl", precise = true } end,
    string = function() return { t = "str", precise = true } end,
    boolean = function() return { t = "bool", precise = true } end,
    null = function() return { t = "null", precise = true } end,
    array = array_type,
    object = object_type,
}

from_schema = function(s)
    if s == nil or s["$ref"] then return any_type() end
    if s.const ~= nil then
        if type(s.const) == "string" then return { t = "str", const = s.const, precise = true } end
        if type(s.const) == "boolean" then return { t = "bool", precise = true } end
        return { t = "int", precise = true }
    end
    if s.oneOf then return oneof_type(s.oneOf) end
    if s.anyOf then return oneof_type(s.anyOf) end
    local f = TYPES[s.type]
    if not f then return any_type() end
    return f(s)
end

-- The reply type of a command's `reply` field (nil: a generic value).
function M.build(reply)
    return from_schema(reply)
end

-- { commands, precise, generic, partial } over a model's commands (see reply coverage).
function M.coverage(commands)
    local c = { commands = 0, precise = 0, generic = 0, partial = 0, list = {} }
    for _, cm in ipairs(commands) do
        local r = M.build(cm.spec.reply)
        c.commands = c.commands + 1
        local class = r.precise and "precise" or (r.t == "any" and "generic" or "partial")
        c[class] = c[class] + 1
        c.list[#c.list + 1] = { name = cm.name, class = class }
    end
    return c
end

return M
