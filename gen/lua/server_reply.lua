-- Typed reply encoders for `respgen --server`, from each command's reply schema (the official
-- reply_schema, JSON-schema-like tables in the spec). A schema gets an encoder only when it names
-- one exact reply form; every generated <fn>_reply_size returns exactly what <fn>_reply writes.
--
-- What a schema cannot say, and how that is settled:
--   * "string" is taken as a bulk string, unless the command's reply_string says "simple" (TYPE,
--     BGREWRITEAOF: "+...") or "verbatim" (INFO, CLIENT INFO: "=...txt:" in RESP3), as Redis
--     sends them (specs/overlays/redis.lua; docs/server.md). It applies to a top-level string or
--     the string of a string-or-null; a command with any other schema gets no encoder rather
--     than one that would write a bulk where Redis does not.
--   * An array with uniqueItems is a RESP3 set ("~") for the commands of the "set" group
--     (SMEMBERS, SINTER, SUNION, SDIFF) and a plain array for the rest (HKEYS, ZRANGEBYLEX,
--     COMMAND GETKEYS, ...): that is what redis-server 7.0 sends, checked by test_dispatch.
--   * "number" is a double (Redis 7.0's %.17g form) alone or in arrays; inside fixed tuples it is
--     sometimes a count (WAITAOF's), so tuples take only strings and integers.

local cstr = require("cstr")
local layout = require("layout")

local M = {}

local function is_null(s) return type(s) == "table" and s.type == "null" end

local function int_const(s) return type(s) == "table" and math.type(s.const) == "integer" end

-- "int01" (only the constants 0 and 1), "integer" (integers and integer constants), or nil.
local function integer_union(alts)
    local seen, only01 = {}, true
    for _, a in ipairs(alts) do
        if int_const(a) then
            seen[a.const] = true
            if a.const ~= 0 and a.const ~= 1 then only01 = false end
        elseif type(a) == "table" and a.type == "integer" and not a.const then
            only01 = false
        else
            return nil
        end
    end
    if only01 and seen[0] and seen[1] then return "int01" end
    return "integer"
end

-- The scalar kinds a fixed tuple may hold, as C parameter types.
local TUPLE_ITEM = { bulk = "rg_view", integer = "int64_t" }

local shape_of

-- A fixed-length array of scalars: its C parameter types, or nil.
local function tuple_items(s)
    if not (s.type == "array" and type(s.items) == "table" and s.items[1]) then return nil end
    if s.minItems ~= #s.items or s.maxItems ~= #s.items then return nil end
    local types = {}
    for i, it in ipairs(s.items) do
        types[i] = TUPLE_ITEM[shape_of(it)]
        if not types[i] then return nil end
    end
    return types
end

-- Two alternatives, one of them null: the other's shape .. "_or_null" when that has a form.
local function or_null(a, b)
    if is_null(a) then a, b = b, a end
    if not is_null(b) or is_null(a) then return nil end
    local sa = shape_of(a)
    if sa == "bulk" or sa == "integer" or sa == "double" then return sa .. "_or_null" end
    if tuple_items(a) then return "tuple_or_null" end
    return nil
end

local function array_shape(s, group)
    local items = s.items
    if type(items) ~= "table" then return nil end
    if items[1] then
        if tuple_items(s) then return "tuple" end
        local cursor, list = items[1], items[2]
        if #items == 2 and shape_of(cursor) == "bulk" and type(list) == "table" and
            list.type == "array" and shape_of(list.items) == "bulk" then
            return "scan"
        end
        return nil
    end
    local item = shape_of(items)
    if item == "bulk" and s.uniqueItems and group == "set" then return "set" end
    if item == "bulk" or item == "bulk_or_null" then return "bulks" end
    if item == "integer" or item == "int01" then return "ints" end
    if item == "double_or_null" then return "doubles" end
    return nil
end

-- The shape name of a reply schema, or nil. group is the command's group (the set rule above).
shape_of = function(s, group)
    if type(s) ~= "table" then return nil end
    if type(s.const) == "string" and not s.const:find("[\r\n]") then return "const" end
    if s.type == "integer" then return "integer" end
    if s.type == "string" then return "bulk" end
    if s.type == "number" then return "double" end
    if s.type == "array" then return array_shape(s, group) end
    if s.type == "object" and not s.properties and shape_of(s.additionalProperties) == "bulk" then
        return "map"
    end
    local alts = s.oneOf or s.anyOf
    if not alts or #alts < 2 then return nil end
    local ints = integer_union(alts)
    if ints then return ints end
    if #alts == 2 then
        local nullable = or_null(alts[1], alts[2])
        if nullable then return nullable end
    end
    -- alternatives that only differ in their descriptions (ACL CAT's two arrays of strings)
    local first = alts[1].type == "array" and shape_of(alts[1], group)
    for i = 2, #alts do
        if not first or alts[i].type ~= "array" or shape_of(alts[i], group) ~= first then
            return nil
        end
    end
    return first or nil
end

-- The shape with the string form of reply_string ("simple", "verbatim" or nil) applied.
local function string_form(shape, form)
    if not form then return shape end
    if shape == "bulk" then return form end
    if shape == "bulk_or_null" then return form .. "_or_null" end
    return nil
end

function M.shape(reply, group, reply_string)
    return string_form(shape_of(reply, group), reply_string)
end

-- The tuple inside a reply (itself, or its non-null alternative): parameter list and the
-- descriptions of its items.
local function tuple_params(reply)
    local t = reply
    if not t.items then
        local alts = reply.oneOf or reply.anyOf
        t = is_null(alts[1]) and alts[2] or alts[1]
    end
    local params, names, what = {}, {}, {}
    for i, it in ipairs(t.items) do
        local ty = TUPLE_ITEM[shape_of(it)]
        names[i] = "v" .. (i - 1)
        params[i] = ty .. " " .. names[i]
        what[i] = (it.description or ""):gsub("%.$", ""):gsub("%*/", "* /")
    end
    return params, names, what
end

-- Size expression and write statements of a tuple's elements, after its "*n" header.
local function tuple_body(params, names)
    local size, write = { "rg_array_header_size(" .. #names .. ")" },
        { "dst = rg_out_array(dst, " .. #names .. ");" }
    for i, n in ipairs(names) do
        if params[i]:find("^rg_view") then
            size[#size + 1] = "rg_bulk_size(" .. n .. ".len)"
            write[#write + 1] = "dst = rg_put_bulk(dst, " .. n .. ".ptr, " .. n .. ".len);"
        else
            size[#size + 1] = "rg_out_int_size(" .. n .. ")"
            write[#write + 1] = "dst = rg_out_int(dst, " .. n .. ");"
        end
    end
    write[#write] = write[#write]:gsub("^dst = ", "return ")
    return size, write
end

local NULL_WRITE = "const rg_view null = rg_out_null(proto);"
local NULL_PUT = "return rg_put_raw(dst, null.ptr, null.len);"

-- Per shape: params (after dst), what (for the comment), size and write (the bodies of the size
-- function and of the writer, lists of statements; layout.sum_lines wraps long ones).
local FORMS = {
    integer = { params = { "int64_t v" }, what = "an integer",
        size = { "return rg_out_int_size(v);" }, write = { "return rg_out_int(dst, v);" } },
    int01 = { params = { "bool v" }, what = "1 (true) or 0, an integer in both protocol versions",
        size = { "(void)v;", "return 4;" },
        write = { "return rg_put_raw(dst, v ? RG_OUT_ONE : RG_OUT_ZERO, 4);" } },
    integer_or_null = { params = { "int proto", "const int64_t *v" },
        what = "an integer, or null when v is NULL",
        size = { "return v ? rg_out_int_size(*v) : rg_out_null(proto).len;" },
        write = { NULL_WRITE,
            "return v ? rg_out_int(dst, *v) : rg_put_raw(dst, null.ptr, null.len);" } },
    bulk = { params = { "rg_view v" }, what = "a bulk string",
        size = { "return rg_bulk_size(v.len);" },
        write = { "return rg_put_bulk(dst, v.ptr, v.len);" } },
    bulk_or_null = { params = { "int proto", "rg_view v" },
        what = "a bulk string, or null when v.ptr is NULL",
        size = { "return v.ptr ? rg_bulk_size(v.len) : rg_out_null(proto).len;" },
        write = { NULL_WRITE, "return v.ptr ? rg_put_bulk(dst, v.ptr, v.len) : " ..
            "rg_put_raw(dst, null.ptr, null.len);" } },
    simple = { params = { "rg_view v" }, what = "a simple string (v must hold no CR or LF)",
        size = { "return rg_out_simple_size(v.len);" },
        write = { "return rg_out_simple(dst, v.ptr, v.len);" } },
    simple_or_null = { params = { "int proto", "rg_view v" },
        what = "a simple string (v must hold no CR or LF), or null when v.ptr is NULL",
        size = { "return v.ptr ? rg_out_simple_size(v.len) : rg_out_null(proto).len;" },
        write = { NULL_WRITE, "return v.ptr ? rg_out_simple(dst, v.ptr, v.len) : " ..
            "rg_put_raw(dst, null.ptr, null.len);" } },
    verbatim = { params = { "int proto", "rg_view v" },
        what = "a verbatim string of format txt in RESP3, a bulk string in RESP2",
        size = { "return rg_out_verbatim_size(proto, v.len);" },
        write = { "return rg_out_verbatim(dst, proto, \"txt\", v.ptr, v.len);" } },
    verbatim_or_null = { params = { "int proto", "rg_view v" },
        what = "a verbatim string of format txt in RESP3, a bulk string in RESP2; or null when " ..
            "v.ptr is NULL",
        size = { "return v.ptr ? rg_out_verbatim_size(proto, v.len) : rg_out_null(proto).len;" },
        write = { NULL_WRITE, "if (!v.ptr) " .. NULL_PUT,
            "return rg_out_verbatim(dst, proto, \"txt\", v.ptr, v.len);" } },
    double = { params = { "int proto", "double v" }, what = "a double (Redis 7.0's %.17g form)",
        size = { "return rg_out_double_size(proto, v, false);" },
        write = { "return rg_out_double(dst, proto, v, false);" } },
    double_or_null = { params = { "int proto", "double v" },
        what = "a double (Redis 7.0's %.17g form), or null when v is a NaN",
        size = { "return rg_out_double_or_null_size(proto, v);" },
        write = { "return rg_out_double_or_null(dst, proto, v);" } },
    bulks = { params = { "int proto", "size_t n", "const rg_view *v" },
        what = "an array of bulk strings (NULL ptr: null)",
        size = { "return rg_out_bulks_size(proto, n, v);" },
        write = { "return rg_out_bulks(dst, proto, n, v);" } },
    set = { params = { "int proto", "size_t n", "const rg_view *v" },
        what = "a set of bulk strings (an array in RESP2)",
        size = { "return rg_out_set_size(proto, n) + rg_out_bulk_items_size(n, v);" },
        write = { "dst = rg_out_set(dst, proto, n);", "return rg_out_bulk_items(dst, n, v);" } },
    map = { params = { "int proto", "size_t pairs", "const rg_view *kv" },
        what = "a map of bulk strings, kv[2i] to kv[2i + 1] (a flat array in RESP2)",
        size = { "return rg_out_map_size(proto, pairs) + rg_out_bulk_items_size(2 * pairs, kv);" },
        write = { "dst = rg_out_map(dst, proto, pairs);",
            "return rg_out_bulk_items(dst, 2 * pairs, kv);" } },
    ints = { params = { "size_t n", "const int64_t *v" }, what = "an array of integers",
        size = { "return rg_out_ints_size(n, v);" }, write = { "return rg_out_ints(dst, n, v);" } },
    doubles = { params = { "int proto", "size_t n", "const double *v" },
        what = "an array of doubles (Redis 7.0's %.17g form), null where v[i] is a NaN",
        size = { "return rg_out_doubles_size(proto, n, v);" },
        write = { "return rg_out_doubles(dst, proto, n, v);" } },
    scan = { params = { "rg_view cursor", "size_t n", "const rg_view *v" },
        what = "[cursor, array of n bulk strings], the same in both protocol versions",
        size = { "return rg_out_array_size(2) + rg_bulk_size(cursor.len) + " ..
            "rg_out_array_size(n) + rg_out_bulk_items_size(n, v);" },
        write = { "dst = rg_out_array(dst, 2);", "dst = rg_put_bulk(dst, cursor.ptr, cursor.len);",
            "dst = rg_out_array(dst, n);", "return rg_out_bulk_items(dst, n, v);" } },
}

-- The forms of a fixed tuple, with or without its null alternative (a null array: "*-1" in RESP2).
local function tuple_form(c, nullable)
    local params, names, what = tuple_params(c.reply)
    local size, write = tuple_body(params, names)
    local list = "[" .. table.concat(names, ", ") .. "]: " .. table.concat(what, "; ")
    local size_expr = table.concat(size, " + ")
    if not nullable then
        return { params = params, what = list, size = { "return " .. size_expr .. ";" },
            write = write }
    end
    local first = names[1]
    table.insert(params, 1, "int proto")
    table.insert(write, 1, "if (!" .. first .. ".ptr) {")
    table.insert(write, 2, "    const rg_view null = rg_out_null_array(proto);")
    table.insert(write, 3, "    " .. NULL_PUT)
    table.insert(write, 4, "}")
    return { params = params, what = list .. "; or a null array when " .. first .. ".ptr is NULL",
        size = { "if (!" .. first .. ".ptr) return rg_out_null_array(proto).len;",
            "return " .. size_expr .. ";" }, write = write }
end

-- Header text of one command's reply encoder. signature(head, params, tail) lays out a
-- declaration as clang-format does.
function M.text(c, fn, signature)
    local shape = c.reply_shape
    local name = c.name:upper():gsub("|", " ")
    if shape == "const" then
        return "/* " .. cstr.comment(name) .. "'s reply. */\n#define " .. c.MACRO .. "_REPLY " ..
            cstr.literal("+" .. c.reply.const .. "\r\n")
    end
    local f = FORMS[shape]
    if shape == "tuple" or shape == "tuple_or_null" then
        f = tuple_form(c, shape == "tuple_or_null")
    end
    local lines = { layout.comment(0, name .. "'s reply: " .. f.what .. "."),
        signature("static inline size_t " .. fn .. "_reply_size", f.params, " {") }
    for _, l in ipairs(layout.sum_lines(f.size)) do lines[#lines + 1] = l end
    lines[#lines + 1] = "}"
    lines[#lines + 1] = signature("static inline char *" .. fn .. "_reply",
        { "char *dst", table.unpack(f.params) }, " {")
    for _, l in ipairs(layout.sum_lines(f.write)) do lines[#lines + 1] = l end
    lines[#lines + 1] = "}"
    return table.concat(lines, "\n")
end

return M
