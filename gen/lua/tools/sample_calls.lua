-- Test tooling: with --sample-calls VERSION, also <stem>_calls.h, one representative call per
-- command encoded by the generated encoders, for tests that send every command to a real server
-- of that version (tests/integration/server_commands.c). Not part of a codec.
--
-- Per command up to two forms: "minimal" (required arguments only) and "full" (every optional
-- argument the server's version has, by `since`). A oneof takes its first alternative the version
-- has, a multiple argument one element. Values by kind: key "k:<command>", string "v", pattern
-- "*", integer 1, double 1.5, unix-time 4102444800 (2100-01-01). --sample-overrides FILE (a Lua
-- file returning a table, see tests/integration/sample_calls.lua) adds per-command skips with
-- their reasons, values (C expressions by argument name), oneof picks, and optional arguments
-- to leave out of the full form or to send in both forms.
-- Commands newer than VERSION, and sentinel-only ones, are listed as skipped with the reason.
--
-- --sample-keys FN (with --client): every key is FN() (a C function of the test returning an
-- rg_view), every multiple argument has 3 elements, and each entry also has `call`, the same
-- arguments through the generated <stem>_call on a connection (result, cb and ud NULL): for
-- tests that compare what the calls compute from their keys with what the bytes say
-- (tests/cluster/test_cluster_slots.c).

local frame = require("frame")
local host = require("host")
local resp = require("resp")

local M = {}

M.options = {
    ["--sample-calls"] = { field = "sample_calls", value = "VERSION" },
    ["--sample-overrides"] = { field = "sample_overrides", value = "FILE" },
    ["--sample-keys"] = { field = "sample_keys", value = "FN" },
}

-- The C type of one value of an argument, by its scalar (model.lua); other arguments with a
-- value have a type of their own (cname).
local SCALAR_CTYPE = { view = "rg_view", i64 = "int64_t", dbl = "double" }

local function version_num(v)
    local a, b, c = (v or "0.0.0"):match("^(%d+)%.(%d+)%.(%d+)$")
    return tonumber(a) * 1000000 + tonumber(b) * 1000 + tonumber(c)
end

local function lit(s)
    return 'RG_LIT("' .. resp.c_escape(s) .. '")'
end

local function default_value(a, ctx)
    if a.kind == "key" and ctx.keys then return ctx.keys .. "()" end
    if a.kind == "key" then return lit("k:" .. ctx.cm.id) end
    if a.kind == "string" then return lit("v") end
    if a.kind == "pattern" then return lit("*") end
    if a.kind == "integer" then return "1" end
    if a.kind == "double" then return "1.5" end
    if a.kind == "unix-time" then return "INT64_C(4102444800)" end
end

-- ctx: { cm, version (number), full (bool), over (the command's overrides), fail (message) }
local function has(a, ctx)
    return version_num(a.since) <= ctx.version
end

local function listed(list, name)
    for _, x in ipairs(list or {}) do
        if x == name then return true end
    end
    return false
end

local function included(a, ctx)
    if not has(a, ctx) or listed(ctx.over.omit, a.name) then return false end
    return ctx.full or listed(ctx.over.require, a.name)
end

local function choose(a, ctx)
    local want = (ctx.over.pick or {})[a.name]
    for i, c in ipairs(a.args) do
        if (want and c.name == want) or (not want and has(c, ctx)) then return c, a.alts[i] end
    end
    ctx.fail = ctx.fail or ("no alternative of '" .. a.name .. "' in this version")
    return a.args[1], a.alts[1]
end

local value_expr

local function ctype(a)
    return SCALAR_CTYPE[a.scalar] or a.cname
end

-- Elements of a multiple argument: one, or 3 with --sample-keys.
local function count_of(ctx)
    return ctx.keys and 3 or 1
end

local function array_of(a, ctx)
    local items = {}
    for i = 1, count_of(ctx) do items[i] = value_expr(a, ctx) end
    return "(const " .. ctype(a) .. "[]){" .. table.concat(items, ", ") .. "}"
end

-- The designated initializers that give argument a (a member of an options struct, a block or
-- a oneof alternative) its value; none when it is left out.
local function members(a, ctx, in_oneof)
    if a.optional and not in_oneof and not included(a, ctx) then return {} end
    if a.multiple then
        return { "." .. a.id .. " = " .. array_of(a, ctx),
            "." .. a.ident .. "_count = " .. count_of(ctx) }
    end
    if not ctype(a) then
        return (a.optional and not in_oneof) and { "." .. a.id .. " = true" } or {}
    end
    if a.optional and not in_oneof and a.scalar ~= "view" and a.kind ~= "oneof" then
        return { ".has_" .. a.ident .. " = true", "." .. a.id .. " = " .. value_expr(a, ctx) }
    end
    return { "." .. a.id .. " = " .. value_expr(a, ctx) }
end

local function braced(list)
    return #list > 0 and "{" .. table.concat(list, ", ") .. "}" or "{0}"
end

value_expr = function(a, ctx)
    local over = (ctx.over.values or {})[a.name]
    if over then return over end
    if a.scalar then return default_value(a, ctx) end
    if a.enum then
        local _, alt = choose(a, ctx)
        return alt.label
    end
    if a.kind == "oneof" then
        local c, alt = choose(a, ctx)
        local list = { ".kind = " .. alt.label }
        for _, m in ipairs(members(c, ctx, true)) do list[#list + 1] = m end
        return "(" .. a.cname .. ")" .. braced(list)
    end
    local list = {}
    for _, c in ipairs(a.args) do
        for _, m in ipairs(members(c, ctx, false)) do list[#list + 1] = m end
    end
    return "(" .. a.cname .. ")" .. braced(list)
end

-- The encoder call of one form, or nil and why not; with --sample-keys also the client call.
local function call_text(cm, ctx)
    local args = {}
    for _, a in ipairs(cm.args) do
        -- A count of a counted key list is no parameter (model.lua, a.counts).
        if not a.optional and not a.counts then
            if a.multiple then
                args[#args + 1] = array_of(a, ctx)
                args[#args + 1] = tostring(count_of(ctx))
            elseif ctype(a) then
                args[#args + 1] = value_expr(a, ctx)
            end
        end
    end
    if cm.has_opts then
        local list = {}
        for _, a in ipairs(cm.args) do
            if a.optional then
                for _, m in ipairs(members(a, ctx, false)) do list[#list + 1] = m end
            end
        end
        args[#args + 1] = #list > 0 and ("&(const " .. cm.opts_type .. ")" .. braced(list)) or
            "NULL"
    end
    if ctx.fail then return nil, ctx.fail end
    local list = table.concat(args, ", ")
    local sep = #args > 0 and ", " or ""
    return cm.fn .. "_encode(dst, cap" .. sep .. list .. ")",
        ctx.keys and (cm.fn .. "_call(conn" .. sep .. list .. ", NULL, NULL, NULL)")
end

local function skip_reason(cm, version, over)
    if over.skip then return over.skip end
    if version_num(cm.since) > version then
        return "newer than the server (since " .. cm.since .. ")"
    end
    for _, f in ipairs(cm.flags) do
        if f == "ONLY_SENTINEL" then return "sentinel only" end
    end
end

local function load_overrides(path)
    if not path then return {} end
    local text, err = host.read_file(path)
    if not text then error("--sample-overrides: cannot read " .. tostring(err), 0) end
    local chunk, perr = load(text, "=" .. path, "t", {})
    if not chunk then error(perr, 0) end
    return chunk()
end

-- The command's typed reply table (emit_reply.lua names it) and group, for tests that decode
-- the replies (tests/reply/reply_diff.c).
local function reply_fields(cm)
    return "&" .. cm.fn .. "_reply_table, \"" .. resp.c_escape(cm.group or "") .. "\""
end

local function entry(rows, defs, cm, form, skip, text, conn_text, keys)
    local fn, conn_fn = "NULL", "NULL"
    if text then
        fn = cm.fn .. "_call_" .. form
        defs[#defs + 1] = "static size_t " .. fn .. "(char *dst, size_t cap) {\n    return " ..
            text .. ";\n}"
    end
    if conn_text then
        conn_fn = cm.fn .. "_conn_" .. form
        defs[#defs + 1] = "static uint64_t " .. conn_fn .. "(rg_conn *conn) {\n    return " ..
            conn_text .. ";\n}"
    end
    rows[#rows + 1] = '    {"' .. resp.c_escape(cm.name) .. '", "' .. form .. '", ' ..
        (skip and ('"' .. resp.c_escape(skip) .. '"') or "NULL") .. ", " .. fn .. ", " ..
        reply_fields(cm) .. (keys and (", " .. conn_fn) or "") .. "},"
end

local function command_calls(cm, version, overrides, rows, defs, keys)
    local over = overrides[cm.name] or {}
    local skip = skip_reason(cm, version, over)
    if skip then return entry(rows, defs, cm, "minimal", skip, nil, nil, keys) end
    local ctx = { cm = cm, version = version, full = false, over = over, keys = keys }
    local min, min_conn = call_text(cm, ctx)
    if not min then return entry(rows, defs, cm, "minimal", min_conn, nil, nil, keys) end
    entry(rows, defs, cm, "minimal", nil, min, min_conn, keys)
    local full, full_conn = call_text(cm, { cm = cm, version = version, full = true, over = over,
        keys = keys })
    if full and full ~= min then entry(rows, defs, cm, "full", nil, full, full_conn, keys) end
end

function M.emit(model, opts)
    if not opts.sample_calls then return {} end
    if not tostring(opts.sample_calls):match("^%d+%.%d+%.%d+$") then
        error("--sample-calls needs a server version like 7.0.15", 0)
    end
    local version = version_num(opts.sample_calls)
    local overrides = load_overrides(opts.sample_overrides)
    local rows, defs = {}, {}
    local keys = opts.sample_keys
    if keys and not opts.client then error("--sample-keys needs --client", 0) end
    for _, cm in ipairs(model.commands) do
        command_calls(cm, version, overrides, rows, defs, keys)
    end
    local P, p = model.PREFIX, model.prefix
    local body = table.concat({
        "#define " .. P .. "_SAMPLE_CALLS_VERSION \"" .. resp.c_escape(opts.sample_calls) .. "\"",
        "",
        "/* command, form (\"minimal\" or \"full\"), why it is not made (NULL: it is), and the " ..
            "encoder",
        " * call (dst, cap) -> bytes written, 0 when cap is too small; NULL when skipped; the",
        " * command's typed reply table and its group (\"string\", \"sorted-set\", ...). */",
        "typedef struct " .. p .. "_sample_call {",
        "    const char *command;",
        "    const char *form;",
        "    const char *skip;",
        "    size_t (*encode)(char *dst, size_t cap);",
        "    const rg_rtable *reply;",
        "    const char *group;" .. (keys and ("\n    uint64_t (*call)(rg_conn *conn); /* " ..
            p .. "_<command>_call, the same arguments */") or ""),
        "} " .. p .. "_sample_call;",
        "",
        table.concat(defs, "\n\n"),
        "",
        "static const " .. p .. "_sample_call " .. p .. "_sample_calls[] = {",
        table.concat(rows, "\n"),
        "};",
    }, "\n")
    local text = frame.header({
        model = model, suffix = "_calls.h",
        what = "test tooling, one representative call per command (--sample-calls " ..
            opts.sample_calls .. ")",
        includes = keys and { model.stem .. ".h", model.stem .. "_reply.h",
            model.stem .. "_client.h" } or { model.stem .. ".h", model.stem .. "_reply.h" },
        system = { "stddef.h", "stdint.h" }, body = body,
    })
    return { { suffix = "_calls.h", text = text } }
end

return M
