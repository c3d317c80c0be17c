-- The general path of a command as data: its ops (model.lua) as a static const table of rg_op
-- entries (the RG_OP_* macros of runtime/rg_enc.h) that rg_ops_pipe_write (runtime/rg_ops.c)
-- interprets, instead of measure and put functions. Why: those functions, inlined into each
-- command's _pipe_write_opts, were 30% of the compile time of the full Redis set's redis.c, for
-- the rare request with options (docs/spec-language.md, "Option paths").
--
-- An entry names its value by base, struct type and member (offsetof in the macro): the
-- command's required arguments (the struct <fn>_req_args, RG_OP_REQ), its options (RG_OP_OPTS)
-- or the value of the type whose table it is (RG_OP_VALUE). Ops with a body (if, each, switch
-- and its cases) give its length in entries; the body follows.

local layout = require("layout")
local resp = require("resp")

local M = {}

local IND = layout.INDENT

local BASE = { param = "RG_OP_REQ", opts = "RG_OP_OPTS", member = "RG_OP_VALUE" }

-- The name of a command's required-arguments struct, of a command's or type's table, of an enum
-- type's bulk table (model.lua reserves them).
function M.req_name(cm) return cm.fn .. "_req_args" end
function M.ops_name(cname) return cname .. "_op_table" end
function M.bulks_name(cname) return cname .. "_bulks" end

local function entry(name, args)
    return { name = name, args = args }
end

-- Base and struct type of an op's data, as the first two macro arguments.
local function where(ctx, via)
    return BASE[via], ctx[via]
end

-- The member of argument a's element count.
local function count_member(a)
    return a.ident .. "_count"
end

-- The test and member of "present" (emit_c.lua's presence, as data).
local function presence(a)
    if a.scalar == "view" then return "RG_TEST_VIEW", a.id end
    if a.kind == "oneof" then
        if a.enum then return "RG_TEST_NONZERO", a.id end
        return "RG_TEST_NONZERO", a.id .. ".kind"
    end
    if a.valueless then return "RG_TEST_NONZERO", a.id end
    return "RG_TEST_NONZERO", "has_" .. a.ident
end

local render

-- The literal's entries: pieces short enough for a line, the words counted on the first.
local function lit_entries(o, _, out)
    local room = layout.LIMIT - IND - #'RG_OP_LIT("' - #'", 9999, 999),'
    for k, piece in ipairs(resp.split_literal(o.bytes, room)) do
        out[#out + 1] = entry("RG_OP_LIT", { '"' .. resp.c_escape(piece) .. '"',
            tostring(#piece), k == 1 and tostring(o.argc) or "0" })
    end
end

-- A value op: the macro (with _EL for a list element) and its arguments.
local VALUE = {
    view = function(o) return "RG_OP_VIEW", { o.arg.max_len and tostring(o.arg.max_len) or
        "SIZE_MAX" } end,
    i64 = function() return "RG_OP_I64", {} end,
    dbl = function() return "RG_OP_DBL", {} end,
    enum = function(o, ctx)
        ctx.used[o.arg.cname] = true
        return "RG_OP_ENUM", { M.bulks_name(o.arg.cname) }
    end,
    call = function(o) return "RG_OP_CALL", { M.ops_name(o.arg.cname) } end,
}

local function value_entry(o, ctx, out)
    local b, T = where(ctx, o.via)
    if o.op == "i64" and o.count_of then
        out[#out + 1] = entry("RG_OP_COUNT", { b, T, count_member(o.count_of) })
        return
    end
    local name, extra = VALUE[o.op](o, ctx)
    local args = { b, T, o.arg.id }
    for _, x in ipairs(extra) do args[#args + 1] = x end
    out[#out + 1] = entry(name .. (o.elem and "_EL" or ""), args)
end

local function check_entry(o, ctx, out)
    local b, T = where(ctx, o.via)
    local flags = o.stop and "RG_OP_STOP" or "0"
    local a = o.arg
    if o.test == "null_list" then
        out[#out + 1] = entry("RG_OP_CHECK_NULL_LIST", { b, T, a.id, count_member(a), flags })
    elseif o.test == "null" then
        out[#out + 1] = entry("RG_OP_CHECK", { "RG_TEST_NULL", b, T, a.id, flags })
    else
        assert(o.test == "empty", o.test)
        out[#out + 1] = entry("RG_OP_CHECK", { "RG_TEST_EMPTY", b, T, count_member(a), flags })
    end
end

-- An op with a body: its head entry (len filled in once the body is rendered), then the body.
local function body_entries(head, body, ctx, out)
    out[#out + 1] = head
    local before = #out
    render(body, ctx, out)
    head.args[#head.args + 1] = tostring(#out - before)
end

local function if_entry(o, ctx, out)
    if o.test == "opts" then
        ctx.opts_at[#ctx.opts_at + 1] = #out + 1
        return body_entries(entry("RG_OP_IF_OPTS", {}), o.body, ctx, out)
    end
    local b, T = where(ctx, o.via)
    local test, member
    if o.test == "present" then
        test, member = presence(o.arg)
    else
        assert(o.test == "nonempty", o.test)
        test, member = "RG_TEST_NONEMPTY", count_member(o.arg)
    end
    body_entries(entry("RG_OP_IF", { test, b, T, member }), o.body, ctx, out)
end

-- A switch: its cases, each with its body length and the entries from it to the switch's end
-- (where the interpreter jumps when it reaches the next case).
local function switch_entries(o, ctx, out)
    local head = entry("RG_OP_SWITCH", { ctx.member })
    out[#out + 1] = head
    local before, at = #out, {}
    for _, c in ipairs(o.cases) do
        local case = entry("RG_OP_CASE", { c.label })
        at[case] = #out + 1
        body_entries(case, c.body, ctx, out)
    end
    head.args[#head.args + 1] = tostring(#out - before)
    for case, k in pairs(at) do case.args[#case.args + 1] = tostring(#out + 1 - k) end
end

local BY_OP = {
    lit = lit_entries, view = value_entry, i64 = value_entry, dbl = value_entry,
    enum = value_entry, call = value_entry, check = check_entry, ["if"] = if_entry,
    each = function(o, ctx, out)
        local b, T = where(ctx, o.via)
        body_entries(entry("RG_OP_EACH", { b, T, count_member(o.arg) }), o.body, ctx, out)
    end,
    switch = switch_entries,
}

render = function(ops, ctx, out)
    for _, o in ipairs(ops) do BY_OP[o.op](o, ctx, out) end
    return out
end

-- "static const rg_op <name>[] = {", the head entry, the entries, "};".
local function table_text(name, head, entries)
    local lines = { layout.array_decl("static const rg_op", name, "", " = {") }
    -- A head broken before the name puts the entries one continuation further in.
    local ind = M.indent(lines[1])
    table.insert(entries, 1, head)
    for _, e in ipairs(entries) do
        lines[#lines + 1] = layout.call({ indent = ind, lead = "", name = e.name, args = e.args,
            tail = ")," })
    end
    lines[#lines + 1] = "};"
    return table.concat(lines, "\n")
end

-- The table of a block or oneof type t. used: the enum types whose bulk tables it names (by
-- cname) are added.
function M.type_table(t, used)
    local ctx = { member = t.cname, used = used, opts_at = {} }
    local entries = render(t.ops, ctx, {})
    return table_text(M.ops_name(t.cname), entry("RG_OP_TYPE", { tostring(#entries) }), entries)
end

-- The table of command cm from its ops (options guarded, emit_c.lua), and the index in it of
-- its RG_OP_IF_OPTS entries (the head is entry 0).
function M.command_table(cm, ops, used)
    local ctx = { param = M.req_name(cm), opts = cm.opts_type, used = used, opts_at = {} }
    local entries = render(ops, ctx, {})
    return table_text(M.ops_name(cm.fn), entry("RG_OP_COMMAND", { tostring(#entries),
        cm.const_argc and "0" or "RG_OP_ARRAY" }), entries), ctx.opts_at
end

-- The column of a table's entries after its head (layout.array_decl's text).
function M.indent(head)
    return head:find("\n", 1, true) and 2 * IND or IND
end

-- An enum type's bulks as a table at file scope, which the ENUM entries name: by position, as
-- the enum numbers its labels (none first: {NULL, 0}, refused). Positional, not designated as
-- in the type's _bulk: a label as long as the line would leave clang-format no layout to keep.
-- Packed in columns when clang-format would (layout.rows), else one per line.
function M.bulks(t)
    local head = layout.array_decl("static const rg_view", M.bulks_name(t.cname), "", " = {")
    local col = M.indent(head)
    local items = { "{NULL, 0}" }
    for _, alt in ipairs(t.alts) do
        items[#items + 1] = '{"' .. resp.c_escape(alt.bulk) .. '", ' .. #alt.bulk .. "}"
    end
    local lines = { head }
    local rows = layout.rows(col, items)
    if rows then
        for _, r in ipairs(rows) do lines[#lines + 1] = r end
    else
        for _, it in ipairs(items) do
            lines[#lines + 1] = layout.spaces(col) .. layout.initializer(col, it, ",") .. ","
        end
    end
    lines[#lines + 1] = "};"
    return table.concat(lines, "\n")
end

return M
