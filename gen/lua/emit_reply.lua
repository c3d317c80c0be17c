-- Renders the typed reply decoders: <stem>_reply.h and <stem>_reply.c (or one header with
-- --header-only). Per command: a result struct, a static const table of rg_rnode for the
-- runtime's engine (runtime/rg_reply.h), and an entry point that hands both to rg_reply_decode.
-- The per-command part is data only; no parsing code is generated.
--
-- With --reply-coverage, also <stem>_reply_coverage.md: which commands got a precise decoder.

local frame = require("frame")
local layout = require("layout")
local naming = require("naming")
local resp = require("resp")

local M = {}

M.options = {
    ["--reply-coverage"] = { field = "reply_coverage" },
}

local IND = "    "

local ACCEPT = {
    int = "RG_RA_INT", dbl = "RG_RA_DBL", bool = "RG_RA_BOOL", str = "RG_RA_STR",
    null = "RG_RA_NULL", array = "RG_RA_ARR", pairs = "RG_RA_PAIRS", tuple = "RG_RA_TUPLE",
    any = "RG_RA_ANY", object = "RG_RA_PAIRS",
}
local STORE = { int = "RG_RT_I64", dbl = "RG_RT_DBL", bool = "RG_RT_BOOL", str = "RG_RT_VIEW" }
local SHAPE = {
    array = "RG_RS_ARRAY", pairs = "RG_RS_PAIRS", tuple = "RG_RS_TUPLE", oneof = "RG_RS_ONEOF",
    any = "RG_RS_ANY", object = "RG_RS_OBJECT",
}
local CTYPE = { int = "int64_t", dbl = "double", bool = "bool", str = "rg_view", any = "rg_view" }
local ALT_NAME = {
    int = "integer", dbl = "number", bool = "boolean", str = "string", array = "array",
    pairs = "map", tuple = "tuple", any = "raw", null = "null", object = "object",
}

---------------------------------------------------------------------------------------------
-- Descriptions (comments and the coverage report).

local describe

local function describe_list(list, sep)
    local out = {}
    for i, x in ipairs(list) do out[i] = describe(x) end
    return table.concat(out, sep)
end

describe = function(ty)
    local t = ty.t
    if t == "str" then
        if ty.const then return '"' .. ty.const .. '"' end
        return ty.nullable and "string or null" or "string"
    end
    if t == "array" then return "array of " .. describe(ty.item) end
    if t == "pairs" then
        return "pairs of (" .. describe(ty.key) .. ", " .. describe(ty.value) .. ")"
    end
    if t == "tuple" and ty.min then
        return "[" .. describe_list(ty.items, ", ") .. "] (at least " .. ty.min .. ")"
    end
    if t == "tuple" then return "[" .. describe_list(ty.items, ", ") .. "]" end
    if t == "oneof" then return "one of (" .. describe_list(ty.alts, " | ") .. ")" end
    if t == "any" then return "any value (raw RESP)" end
    if t == "object" then
        local names = {}
        for i, f in ipairs(ty.fields) do names[i] = f.name end
        return "object {" .. table.concat(names, ", ") .. "}"
    end
    return ALT_NAME[t]
end

---------------------------------------------------------------------------------------------
-- Result types. Element types of arrays get names (offsetof and sizeof need them); everything
-- else is an unnamed struct inside its parent.

local members

-- Names: a schema `title` (the official schemas have none; specs/overlays/redis.lua gives
-- them) names a tuple field or an alternative; without one a tuple field is f0, f1, ... and an
-- alternative is named by its type (null, string, tuple, array2, ...). Names that are no C
-- identifier, or repeat, fall back to those. Memoized on the type (ty.names), so the struct,
-- the table and the constants agree.

local function titled(x)
    local id = x.title and naming.member(x.title)
    if id == "which" then return nil end
    return id
end

local function unique(names, fallback)
    local seen = {}
    for _, n in ipairs(names) do seen[n] = (seen[n] or 0) + 1 end
    for i, n in ipairs(names) do
        if seen[n] > 1 then names[i] = fallback(i) end
    end
    return names
end

local function tuple_names(ty)
    if ty.names then return ty.names end
    local names = {}
    for i, x in ipairs(ty.items) do names[i] = titled(x) or ("f" .. (i - 1)) end
    ty.names = unique(names, function(i) return "f" .. (i - 1) end)
    return ty.names
end

local function alt_names(ty)
    if ty.names then return ty.names end
    local seen, by_type = {}, {}
    for i, a in ipairs(ty.alts) do
        local base = ALT_NAME[a.t]
        seen[base] = (seen[base] or 0) + 1
        by_type[i] = seen[base] > 1 and (base .. seen[base]) or base
    end
    local names = {}
    for i, a in ipairs(ty.alts) do names[i] = titled(a) or by_type[i] end
    ty.names = unique(names, function(i) return by_type[i] end)
    return ty.names
end

-- C member names of an object's fields (identifier form, kept clear of each other and of
-- `present`), set once on the type.
local function field_members(ty)
    if ty.members then return ty.members end
    local used, out = { present = true }, {}
    for i, f in ipairs(ty.fields) do
        local m = naming.member(f.name) or ("field" .. i)
        local base, n = m, 1
        while used[m] do
            n = n + 1
            m = base .. "_" .. n
        end
        used[m], out[i] = true, m
    end
    ty.members = out
    return out
end

-- The member lines of the struct that holds a compound type's parts.
local function body(ty, ctx)
    local out = {}
    local function add(list) for _, l in ipairs(list) do out[#out + 1] = l end end
    if ty.t == "tuple" then
        local names = tuple_names(ty)
        for i, x in ipairs(ty.items) do add(members(x, names[i], ctx)) end
    elseif ty.t == "oneof" then
        local names, list = alt_names(ty), {}
        for i, a in ipairs(ty.alts) do list[i] = i .. " " .. names[i] end
        out[1] = "/* which: 0 nothing yet, " .. resp.comment_escape(table.concat(list, ", ")) ..
            " */"
        out[2] = "uint8_t which;"
        for i, a in ipairs(ty.alts) do
            a.member = names[i]
            add(members(a, names[i], ctx))
        end
    elseif ty.t == "object" then
        local names = field_members(ty)
        -- Wrapped short, as the struct may sit deep inside others.
        local line = "/* present: bit i set when field i came:"
        for i, f in ipairs(ty.fields) do
            local word = " " .. (i - 1) .. " " .. f.name .. (i < #ty.fields and "," or " */")
            if #line + #word > 64 then
                out[#out + 1] = line
                line = " *"
            end
            line = line .. word
        end
        out[#out + 1] = line
        out[#out + 1] = "uint64_t present;"
        for i, f in ipairs(ty.fields) do add(members(f.ty, names[i], ctx)) end
    elseif ty.t == "pair" then
        add(members(ty.key, "key", ctx))
        add(members(ty.value, "value", ctx))
    end
    return out
end

-- A named struct for an element type, declared before its user.
local function named(ty, ctx, lines)
    ctx.n = ctx.n + 1
    local name = ctx.base .. "_elem" .. ctx.n
    local decl = { "typedef struct " .. name .. " {" }
    for _, l in ipairs(lines) do decl[#decl + 1] = IND .. l end
    decl[#decl + 1] = "} " .. name .. ";"
    ctx.decls[#ctx.decls + 1] = table.concat(decl, "\n")
    return name
end

local function list_lines(elem)
    return { elem .. " *items;", "size_t count;" }
end

-- The C type of one element of an array (or the pair struct of a pairs list).
local function elem_type(ty, ctx)
    if CTYPE[ty.t] then return CTYPE[ty.t] end
    if ty.t == "null" then return "rg_view" end
    if ty.t == "array" then
        ty.elem = elem_type(ty.item, ctx)
        return named(ty, ctx, list_lines(ty.elem))
    end
    if ty.t == "pairs" then
        ty.elem = named(ty, ctx, body({ t = "pair", key = ty.key, value = ty.value }, ctx))
        return named(ty, ctx, list_lines(ty.elem))
    end
    return named(ty, ctx, body(ty, ctx))
end

-- Lines declaring member `name` of type ty (none for null).
members = function(ty, name, ctx)
    if ty.t == "null" then return {} end
    if CTYPE[ty.t] then return { CTYPE[ty.t] .. " " .. name .. ";" } end
    local inner
    if ty.t == "array" then
        ty.elem = elem_type(ty.item, ctx)
        inner = list_lines(ty.elem)
    elseif ty.t == "pairs" then
        ty.elem = named(ty, ctx, body({ t = "pair", key = ty.key, value = ty.value }, ctx))
        inner = list_lines(ty.elem)
    else
        inner = body(ty, ctx)
    end
    local out = { "struct {" }
    for _, l in ipairs(inner) do out[#out + 1] = IND .. l end
    out[#out + 1] = "} " .. name .. ";"
    return out
end

---------------------------------------------------------------------------------------------
-- Tables: nodes in breadth-first order, so every node's children are consecutive.

local function join(path, m)
    return path == "" and m or path .. "." .. m
end

local function offset(container, path)
    if path == "" then return nil end
    return "offsetof(" .. container .. ", " .. path .. ")"
end

local function accept_of(ty)
    if ty.t == "str" and ty.const then return "RG_RA_CONST" end
    if ty.t == "str" and ty.nullable then return "RG_RA_STR | RG_RA_NULL" end
    if ty.t ~= "oneof" then return ACCEPT[ty.t] end
    local seen, list = {}, {}
    for _, a in ipairs(ty.alts) do
        for part in accept_of(a):gmatch("[%w_]+") do
            if not seen[part] then seen[part], list[#list + 1] = true, part end
        end
    end
    return table.concat(list, " | ")
end

-- The children of a node: { ty, container, path } each.
local function children(n)
    local ty = n.ty
    if ty.t == "array" then
        local c = CTYPE[ty.item.t] and "" or ty.elem
        return { { ty = ty.item, container = c, path = "" } }
    end
    if ty.t == "pairs" then
        return { { ty = ty.key, container = ty.elem, path = "key" },
            { ty = ty.value, container = ty.elem, path = "value" } }
    end
    if ty.t == "tuple" then
        local out = {}
        local names = tuple_names(ty)
        for i, x in ipairs(ty.items) do
            out[i] = { ty = x, container = n.container, path = join(n.path, names[i]) }
        end
        return out
    end
    if ty.t == "object" then
        local out, names = {}, field_members(ty)
        for i, f in ipairs(ty.fields) do
            out[#out + 1] = { ty = { t = "key", name = f.name }, container = n.container,
                path = "" }
            local p = f.ty.t == "null" and "" or join(n.path, names[i])
            out[#out + 1] = { ty = f.ty, container = n.container, path = p }
        end
        return out
    end
    if ty.t == "oneof" then
        local out = {}
        for i, a in ipairs(ty.alts) do
            local p = a.t == "null" and "" or join(n.path, a.member)
            out[i] = { ty = a, container = n.container, path = p }
        end
        return out
    end
    return {}
end

local function node_rows(root)
    local list, i = { root }, 1
    while i <= #list do
        local n = list[i]
        local kids = children(n)
        n.child, n.nchildren = #list, #kids
        for _, k in ipairs(kids) do list[#list + 1] = k end
        i = i + 1
    end
    return list
end

-- One ".field = value," line as clang-format lays it out: broken after '=' when the value then
-- fits, else after the call's '(' (offsetof, sizeof).
local function field_line(ind, name, value)
    local lead = ind .. "." .. name .. " = "
    local one = lead .. value .. ","
    if #one <= layout.LIMIT then return one end
    -- The value on the next line when it fits there; else the arguments aligned after the '('
    -- when the first one fits; else all of them on the next line.
    local cont = ind .. IND
    if #cont + #value + 1 <= layout.LIMIT then
        return ind .. "." .. name .. " =\n" .. cont .. value .. ","
    end
    local fn, first, rest = value:match("^([%w_]+)%(([^,]*), (.*)%)$")
    if fn then
        local open = lead .. fn .. "(" .. first .. ","
        local under = layout.spaces(#lead + #fn + 1) .. rest .. "),"
        if #open <= layout.LIMIT and #under <= layout.LIMIT then return open .. "\n" .. under end
        local all = cont .. first .. ", " .. rest .. "),"
        if #all <= layout.LIMIT then return lead .. fn .. "(\n" .. all end
        open = cont .. fn .. "(" .. first .. ","
        under = layout.spaces(#cont + #fn + 1) .. rest .. "),"
        if #open <= layout.LIMIT and #under <= layout.LIMIT then
            return ind .. "." .. name .. " =\n" .. open .. "\n" .. under
        end
    end
    fn = value:match("^([%w_]+)%(")
    -- A value that is no call (an identifier a long prefix made longer than a line) passes the
    -- limit least on the next line, where clang-format puts it.
    if not fn then return ind .. "." .. name .. " =\n" .. cont .. value .. "," end
    local args = cont .. value:sub(#fn + 2) .. ","
    if #args > layout.LIMIT then args = args:gsub(", ", ",\n" .. cont, 1) end
    return lead .. fn .. "(\n" .. args
end

-- A node's fields in order: { name, C value } each.
local function node_fields(n)
    local ty, f = n.ty, {}
    -- An object's key node: the field's name, checked, not stored.
    if ty.t == "key" then
        return { { "accept", "RG_RA_STR" }, { "shape", "RG_RS_SCALAR" },
            { "cval", '"' .. resp.c_escape(ty.name) .. '"' } }
    end
    f[#f + 1] = { "accept", accept_of(ty) }
    f[#f + 1] = { "shape", SHAPE[ty.t] or "RG_RS_SCALAR" }
    if STORE[ty.t] then f[#f + 1] = { "store", STORE[ty.t] } end
    if n.nchildren > 0 then
        f[#f + 1] = { "child", tostring(n.child) }
        f[#f + 1] = { "nchildren", tostring(n.nchildren) }
    end
    if ty.min then f[#f + 1] = { "min", tostring(ty.min) } end
    local path = ty.t == "oneof" and join(n.path, "which") or n.path
    if ty.t == "object" then path = join(n.path, "present") end
    if ty.t == "tuple" or ty.t == "null" then path = "" end
    local off = offset(n.container, path)
    if off then f[#f + 1] = { "offset", off } end
    if ty.elem then f[#f + 1] = { "elem_size", "sizeof(" .. ty.elem .. ")" } end
    if ty.const then f[#f + 1] = { "cval", '"' .. resp.c_escape(ty.const) .. '"' } end
    return f
end

local function node_text(n, base)
    local lines = { base .. "{" }
    for _, kv in ipairs(node_fields(n)) do
        lines[#lines + 1] = field_line(base .. IND, kv[1], kv[2])
    end
    lines[#lines + 1] = base .. "},"
    return table.concat(lines, "\n")
end

---------------------------------------------------------------------------------------------
-- Per command.

local function params(cm)
    return { "rg_reply_reader *rr", "const char *buf", "size_t len", "size_t *pos",
        cm.reply_result .. " *out" }
end

-- A copy of a reply type, sharing kept: the functions above memoize C names on the type (names,
-- members, elem), and the model's own type is read-only.
local function copy(t, seen)
    if type(t) ~= "table" then return t end
    if seen[t] then return seen[t] end
    local out = {}
    seen[t] = out
    for k, v in pairs(t) do out[copy(k, seen)] = copy(v, seen) end
    return out
end

-- The C of one command's reply: { ty, decls, nodes }, ty this emitter's copy of the model's type.
local function build(cm)
    local ty = copy(cm.reply_type, {})
    local ctx = { base = cm.fn, n = 0, decls = {} }
    local lines = members(ty, "value", ctx)
    local decl = { "typedef struct " .. cm.reply_result .. " {" }
    for _, l in ipairs(lines) do decl[#decl + 1] = IND .. l end
    decl[#decl + 1] = "} " .. cm.reply_result .. ";"
    ctx.decls[#ctx.decls + 1] = table.concat(decl, "\n")
    return { ty = ty, decls = ctx.decls,
        nodes = node_rows({ ty = ty, container = cm.reply_result, path = "value" }) }
end

-- The `which` constants of every oneof in a reply type: <FN>_REPLY[_<path>]_<ALT> = i, where
-- the path names the members (and "item" for each array element) from `value` down to the
-- oneof. One enum per oneof, preceded by the member it is for.
local function oneof_constants(cm, r)
    local out = {}
    local function walk(ty, path, where)
        if ty.t == "oneof" then
            local names = alt_names(ty)
            local lines = { "/* " .. where .. ".which */", "enum {" }
            for i, n in ipairs(names) do
                local parts = { cm.fn, "reply" }
                for _, p in ipairs(path) do parts[#parts + 1] = p end
                parts[#parts + 1] = n
                lines[#lines + 1] = IND .. naming.upper(table.concat(parts, "_")) .. " = " ..
                    i .. ","
            end
            lines[#lines + 1] = "};"
            out[#out + 1] = table.concat(lines, "\n")
            for i, a in ipairs(ty.alts) do
                local sub = { table.unpack(path) }
                sub[#sub + 1] = names[i]
                walk(a, sub, where .. "." .. names[i])
            end
        elseif ty.t == "tuple" then
            local names = tuple_names(ty)
            for i, x in ipairs(ty.items) do
                local sub = { table.unpack(path) }
                sub[#sub + 1] = names[i]
                walk(x, sub, where .. "." .. names[i])
            end
        elseif ty.t == "array" then
            local sub = { table.unpack(path) }
            sub[#sub + 1] = "item"
            walk(ty.item, sub, where .. ".items[]")
        elseif ty.t == "pairs" then
            local k, v = { table.unpack(path) }, { table.unpack(path) }
            k[#k + 1], v[#v + 1] = "key", "value"
            walk(ty.key, k, where .. ".items[].key")
            walk(ty.value, v, where .. ".items[].value")
        end
    end
    walk(r.ty, {}, "value")
    return out
end

local function command_header(cm, r, header_only)
    local out = {}
    out[#out + 1] = layout.comment(0, resp.comment_escape(cm.name) .. ": " ..
        resp.comment_escape(describe(cm.reply_type)) .. ".")
    for _, e in ipairs(oneof_constants(cm, r)) do out[#out + 1] = e end
    out[#out + 1] = table.concat(r.decls, "\n\n")
    if not header_only then
        local ext = "extern const rg_rtable " .. cm.reply_table .. ";"
        if #ext > layout.LIMIT then
            ext = "extern const rg_rtable\n" .. IND .. cm.reply_table .. ";"
        end
        out[#out + 1] = ext
        out[#out + 1] = layout.call({ indent = 0, lead = "rg_status ",
            name = cm.fn .. "_reply", args = params(cm), tail = ");", decl = true })
    end
    return table.concat(out, "\n")
end

-- The key of a command's node array: its rows and result struct with the command's name made
-- neutral. Commands with equal keys have result structs of the same layout, so one array (the
-- first's, whose offsetof and sizeof name its own types) serves all of them: in the Redis set
-- 383 arrays are 94 distinct ones.
local function shape_key(cm, r)
    local plain = cm.fn:gsub("%p", "%%%0")
    local rows = {}
    for _, n in ipairs(r.nodes) do
        for _, kv in ipairs(node_fields(n)) do rows[#rows + 1] = kv[1] .. "=" .. kv[2] end
        rows[#rows + 1] = "}"
    end
    local text = table.concat(r.decls, "\n") .. "\n" .. table.concat(rows, "\n")
    return (text:gsub(plain, "@"))
end

-- The table's flags line (RG_RF_*, rg_reply.h), or "": a root that is a plain string (GET's)
-- is read by the inline path of rg_reply_decode without looking at the node.
local function flags_line(r, base)
    local root = r.nodes[1].ty
    if root.t ~= "str" or root.const then return "" end
    return field_line(base, "flags", "RG_RF_VIEW") .. "\n"
end

-- shared: the name of an earlier command's node array that serves this one, or nil.
local function command_defs(cm, r, header_only, shared)
    local static = header_only and "static " or ""
    local nodes = shared or cm.fn .. "_reply_nodes"
    -- A declaration too long for one line continues on the next, its braces one level in.
    local head, base = "static const rg_rnode " .. nodes .. "[] = {", IND
    if #head - 2 <= layout.LIMIT and #head > layout.LIMIT then
        head, base = "static const rg_rnode " .. nodes .. "[] =\n" .. IND .. "{", IND .. IND
    elseif #head > layout.LIMIT then
        head, base = "static const rg_rnode\n" .. IND .. nodes .. "[] = {", IND .. IND
    end
    local rows = {}
    for _, n in ipairs(r.nodes) do rows[#rows + 1] = node_text(n, base) end
    local thead, tbase = static .. "const rg_rtable " .. cm.reply_table .. " = {", IND
    if #thead - 2 <= layout.LIMIT and #thead > layout.LIMIT then
        thead, tbase = static .. "const rg_rtable " .. cm.reply_table .. " =\n" .. IND .. "{",
            IND .. IND
    elseif #thead > layout.LIMIT then
        thead, tbase = static .. "const rg_rtable\n" .. IND .. cm.reply_table .. " = {", IND .. IND
    end
    local out = {
        head .. "\n" .. table.concat(rows, "\n") .. "\n};",
        "",
    }
    if shared then out = { layout.comment(0, "Nodes: the same shape as an earlier command's.") } end
    local tail = {
        thead .. "\n" ..
            field_line(tbase, "command", '"' .. resp.c_escape(cm.name) .. '"') .. "\n" ..
            field_line(tbase, "nodes", nodes) .. "\n" ..
            field_line(tbase, "result_size", "sizeof(" .. cm.reply_result .. ")") .. "\n" ..
            flags_line(r, tbase) .. "};",
        "",
        layout.call({ indent = 0, lead = (header_only and "static inline " or "") ..
            "rg_status ", name = cm.fn .. "_reply", args = params(cm), tail = ") {",
            decl = true }),
        layout.call({ indent = 4, lead = "return ", name = "rg_reply_decode",
            args = { "rr", "&" .. cm.reply_table, "buf", "len", "pos", "out" }, tail = ");" }),
        "}",
    }
    for _, t in ipairs(tail) do out[#out + 1] = t end
    return table.concat(out, "\n")
end

---------------------------------------------------------------------------------------------

local HEADER_DOC = [[
/* For each command C below:
 *   C_result            the typed reply: `value` holds it (see the comment above each struct)
 *   C_reply_table       the table the runtime's engine (rg_reply.h) walks
 *   rg_status C_reply(rr, buf, len, pos, out)
 *                       decodes one reply of C from buf[*pos..len) into *out: RG_OK, or
 *                       RG_NEED_MORE (call again with more bytes), RG_SERVER_ERROR,
 *                       RG_MISMATCH, RG_SHORT (storage), RG_PUSH or a sticky RG_ERR_*;
 *                       rg_reply_error(rr) tells the failure (status, message, offset).
 * Views point into the caller's buffer; arrays into the storage given with
 * rg_reply_set_storage (see rg_reply.h for both ownership rules). A oneof member's `which` is
 * the 1-based number of the alternative that arrived, one of the C_REPLY_..._<ALT> constants
 * before the struct; pairs are { key, value } structs. */]]

local function header_text(model, built, header_only, defs)
    local body = {}
    for i, cm in ipairs(model.commands) do
        body[#body + 1] = command_header(cm, built[i], header_only)
    end
    if defs then body[#body + 1] = defs end
    return frame.header({
        model = model, suffix = "_reply.h", what = "typed reply decoders",
        includes = { "rg_reply.h" }, system = { "stdbool.h", "stddef.h", "stdint.h" },
        body = HEADER_DOC .. "\n\n" .. table.concat(body, "\n\n"),
    })
end

local function coverage_text(model)
    local n = { precise = 0, partial = 0, generic = 0 }
    local rows = {}
    for _, cm in ipairs(model.commands) do
        local ty = cm.reply_type
        local class = ty.precise and "precise" or (ty.t == "any" and "generic" or "partial")
        n[class] = n[class] + 1
        rows[#rows + 1] = "| " .. cm.name .. " | " .. class .. " | " ..
            describe(ty):gsub("|", "\\|") .. " |"
    end
    local total = #model.commands
    return table.concat({
        "# Typed reply coverage: " .. model.file,
        "",
        "Generated by `respgen --reply-coverage`. precise: every part of the reply has a typed",
        "decoder; partial: typed, with some parts kept as raw RESP values (fixed-key objects, a",
        "missing or `$ref` schema) or alternatives that only the first match tells apart;",
        "generic: the whole reply is a raw RESP value.",
        "",
        string.format("- commands: %d", total),
        string.format("- precise: %d", n.precise),
        string.format("- partial: %d", n.partial),
        string.format("- generic: %d", n.generic),
        "",
        "| command | class | reply type |",
        "|---|---|---|",
        table.concat(rows, "\n"),
        "",
    }, "\n")
end

-- Returns the reply files: { suffix, text } each.
function M.emit(model, opts)
    local header_only = opts.header_only
    local built, defs, arrays = {}, {}, {}
    for i, cm in ipairs(model.commands) do
        built[i] = build(cm)
        local key = shape_key(cm, built[i])
        defs[i] = command_defs(cm, built[i], header_only, arrays[key])
        arrays[key] = arrays[key] or cm.fn .. "_reply_nodes"
    end
    local out = {}
    if header_only then
        local text = header_text(model, built, true, table.concat(defs, "\n\n"))
        out[1] = { suffix = "_reply.h", text = text }
    else
        out[1] = { suffix = "_reply.h", text = header_text(model, built, false, nil) }
        out[2] = { suffix = "_reply.c", text = frame.source({ model = model, suffix = "_reply.c",
            what = "typed reply decoders", body = table.concat(defs, "\n\n") }) }
    end
    if opts.reply_coverage then
        out[#out + 1] = { suffix = "_reply_coverage.md", text = coverage_text(model) }
    end
    return out
end

return M
