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
-- A type may carry `title` (the schema's), the name of its member or alternative.
-- Every type also gets `precise = false` when it, or a part of it, fell back to `any` or can
-- not tell its alternatives apart, which the coverage report counts.

local M = {}

local SCALAR = { int = true, dbl = true, bool = true, str = true, null = true, any = true }
M.SCALAR = SCALAR

local from_schema
local oneof_type
local same

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
        -- Unbounded (CLUSTER SLOTS' replicas): an array whose elements are one of the types any
        -- item may have, each read by its own type; never a wrong count.
        local list = {}
        for _, x in ipairs(s.items) do list[#list + 1] = x end
        list[#list + 1] = extra
        local item = oneof_type(list)
        return { t = "array", item = item, precise = item.precise }
    end
    if extra then
        for i = #items + 1, s.maxItems do items[i] = from_schema(extra) end
    end
    local min = s.minItems
    if min and min >= #items then min = nil end
    return { t = "tuple", items = items, min = min, precise = all_precise(items) }
end

local function array_type(s)
    -- An array that is always empty (SRANDMEMBER's "count given, no key"): nothing to type.
    if s.maxItems == 0 then
        return { t = "array", item = any_type(), precise = true, empty = true }
    end
    if s.items == nil then return { t = "array", item = any_type(), precise = false } end
    if s.items[1] ~= nil then return tuple_type(s) end
    local item = from_schema(s.items)
    -- A list of 2-tuples is what RESP2 flattens (ZRANGE WITHSCORES): a list of pairs.
    if item.t == "tuple" and #item.items == 2 and SCALAR[item.items[1].t] then
        return pairs_of(item.items[1], item.items[2])
    end
    return { t = "array", item = item, precise = item.precise }
end

-- The one scalar type every property of a fixed-key object has (CLUSTER SLOTS' node metadata:
-- strings; CLUSTER SLOT-STATS: integers), or nil: such an object reads precisely as pairs.
local function uniform_properties(s)
    local only
    local function see(x)
        local ty = from_schema(x)
        if not (SCALAR[ty.t] and ty.t ~= "any" and ty.t ~= "null" and ty.precise) then
            return false
        end
        only = only or ty
        return same(only, ty)
    end
    for _, v in pairs(s.properties) do if not see(v) then return nil end end
    for _, v in pairs(s.patternProperties or {}) do if not see(v) then return nil end end
    if type(s.additionalProperties) == "table" and not see(s.additionalProperties) then
        return nil
    end
    return only
end

-- True when an object may have keys beyond its `properties`.
local function open_object(s)
    return s.patternProperties ~= nil or
        (s.additionalProperties ~= nil and s.additionalProperties ~= false)
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
    return { t = "object", fields = fields, precise = precise and not open_object(s) }
end

local function object_type(s)
    local value
    if s.properties then
        -- Open objects (keys beyond the listed ones) whose values share one scalar type read
        -- precisely as pairs of it (CLUSTER SLOT-STATS); the rest get named fields.
        local uniform = open_object(s) and uniform_properties(s)
        if uniform then
            value = uniform
        else
            local o = fields_type(s)
            if o then return o end
        end
    end
    if value or s.properties then
        -- uniform values, or fixed keys past MAX_FIELDS: read as pairs below
        value = value or any_type()
    elseif type(s.additionalProperties) == "table" then
        value = from_schema(s.additionalProperties)
    elseif s.patternProperties then
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
    pairs = { MAP = true, ARRAY = true, SET = true }, tuple = { ARRAY = true },
    object = { MAP = true, ARRAY = true },
}

local overlaps

-- Whether every element of list fits elem, or list (a tuple's items) is empty.
local function all_fit(list, elem)
    for _, x in ipairs(list) do if not overlaps(x, elem) then return false end end
    return true
end

-- Whether a tuple's items can be read as a flat list of key, value, key, value.
local function flat_pairs(items, key, value)
    if #items % 2 ~= 0 then return false end
    for i = 1, #items, 2 do
        if not (overlaps(items[i], key) and overlaps(items[i + 1], value)) then return false end
    end
    return true
end

-- Whether two aggregate types can read the same non-empty reply: by their elements, at any
-- depth (an empty aggregate has no values to misread). The engine tells them apart by the
-- first element that fits one only (rg_reply.h).
local function aggregates_overlap(a, b)
    if a.empty or b.empty then return false end
    if a.t == "pairs" and b.t ~= "pairs" then a, b = b, a end
    if a.t == "tuple" and b.t == "tuple" then
        if #a.items ~= #b.items then return false end
        for i = 1, #a.items do
            if not overlaps(a.items[i], b.items[i]) then return false end
        end
        return true
    end
    local nested = { t = "tuple", items = { b.key, b.value } }
    if a.t == "array" and b.t == "array" then return overlaps(a.item, b.item) end
    if a.t == "array" and b.t == "tuple" then return all_fit(b.items, a.item) end
    if a.t == "tuple" and b.t == "array" then return all_fit(a.items, b.item) end
    if a.t == "array" and b.t == "pairs" then
        return (overlaps(a.item, b.key) and overlaps(a.item, b.value)) or overlaps(a.item, nested)
    end
    if a.t == "tuple" and b.t == "pairs" then
        return flat_pairs(a.items, b.key, b.value) or all_fit(a.items, nested)
    end
    if a.t == "pairs" and b.t == "pairs" then
        return overlaps(a.key, b.key) and overlaps(a.value, b.value)
    end
    return true
end

local AGGREGATE = { array = true, pairs = true, tuple = true }

overlaps = function(a, b)
    if a.t == "any" or b.t == "any" then return true end
    if a.t == "str" and a.const and b.t == "str" then return false end
    -- An integer first, then a double: integers are taken as integers, the rest as doubles.
    if a.t == "int" and b.t == "dbl" then return false end
    if a.t == "oneof" or b.t == "oneof" then
        local x, y = a.t == "oneof" and a or b, a.t == "oneof" and b or a
        for _, alt in ipairs(x.alts) do if overlaps(alt, y) then return true end end
        return false
    end
    if AGGREGATE[a.t] and AGGREGATE[b.t] then return aggregates_overlap(a, b) end
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

same = function(a, b)
    return signature(a) == signature(b)
end

-- A single [key, value] tuple next to pairs of the same key and value (ZPOPMIN without and
-- with COUNT): one pair is a list of pairs of one, and the engine reads a flat [k, v] as that
-- list (RESP2 sends both flat, so only pairs can read them alike). Returns alts without such
-- tuples.
local function pair_into_pairs(alts)
    local out = {}
    for _, a in ipairs(alts) do
        local absorbed = false
        if a.t == "tuple" and #a.items == 2 then
            for _, b in ipairs(alts) do
                if b.t == "pairs" and same(b.key, a.items[1]) and same(b.value, a.items[2]) then
                    absorbed = true
                end
            end
        end
        if not absorbed then out[#out + 1] = a end
    end
    return out
end

-- An always-empty array next to another array or pairs alternative, which reads it as well.
local function drop_empty_arrays(alts)
    local other = false
    for _, a in ipairs(alts) do
        if (a.t == "array" or a.t == "pairs") and not a.empty then other = true end
    end
    if not other then return alts end
    local out = {}
    for _, a in ipairs(alts) do if not a.empty then out[#out + 1] = a end end
    return out
end

-- Alternatives: nested oneofs flattened, duplicates dropped, constants before plain strings.
oneof_type = function(list)
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
    alts = drop_empty_arrays(pair_into_pairs(alts))
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

-- The type of schema s, named by its `title` when it has one (emit_reply.lua names struct
-- members and `which` constants after it).
local function typed(s)
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

from_schema = function(s)
    local ty = typed(s)
    if s and s.title then ty.title = s.title end
    return ty
end

-- The reply type of a command's `reply` field (nil: a generic value).
function M.build(reply)
    return from_schema(reply)
end

return M
