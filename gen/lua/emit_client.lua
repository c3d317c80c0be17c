-- The client half of a codec (respgen --client): <stem>_client.h/.c with one call per command,
--
--   uint64_t C_call(rg_conn *conn, <the encoder's parameters>, C_result *result,
--                   rg_call_fn cb, void *ud);
--
-- which encodes the request with the generated encoder straight into the connection's output
-- (runtime/rg_conn.h) and queues the command's typed reply table (emit_reply.lua). The
-- parameters are the encoder's own, from emit_c.lua's param_texts and arg_names, so the two can
-- never disagree. The reply names (cm.reply_result, cm.reply_table) come from the model.

local emit_c = require("emit_c")
local frame = require("frame")
local layout = require("layout")
local resp = require("resp")

local M = {}

M.options = {
    ["--client"] = { field = "client" },
}

local IND = "    "

-- Names of the call's own parameters, made unique against the encoder's.
local function own_names(cm)
    local taken = {}
    for _, name in ipairs(emit_c.arg_names(cm)) do taken[name] = true end
    local names = {}
    for _, n in ipairs({ "conn", "result", "cb", "ud", "dst", "cap", "n" }) do
        local v = n
        while taken[v] do v = v .. "_" end
        taken[v] = true
        names[n] = v
    end
    return names
end

local function signature(cm, lead, tail)
    local o = own_names(cm)
    local texts = { "rg_conn *" .. o.conn }
    for _, t in ipairs(emit_c.param_texts(cm)) do texts[#texts + 1] = t end
    texts[#texts + 1] = cm.reply_result .. " *" .. o.result
    texts[#texts + 1] = "rg_call_fn " .. o.cb
    texts[#texts + 1] = "void *" .. o.ud
    return layout.call({ indent = 0, lead = lead, name = cm.fn .. "_call", args = texts,
        tail = tail, decl = true })
end

local function definition(cm, static)
    local o = own_names(cm)
    local args = emit_c.arg_names(cm)
    local function call(indent, lead, name, first, tail)
        local a = {}
        for _, x in ipairs(first) do a[#a + 1] = x end
        for _, x in ipairs(args) do a[#a + 1] = x end
        return layout.call({ indent = indent, lead = lead, name = name, args = a, tail = tail })
    end
    local lines = {
        signature(cm, static .. "uint64_t ", ") {"),
        IND .. "size_t " .. o.cap .. " = 0, " .. o.n .. " = 0;",
        IND .. "char *" .. o.dst .. " = rg_conn_room(" .. o.conn .. ", &" .. o.cap .. ");",
        IND .. "if (" .. o.dst .. ") {",
        call(8, o.n .. " = ", cm.fn .. "_encode", { o.dst, o.cap }, ");"),
        IND .. "}",
        IND .. "if (" .. o.n .. " == 0) {",
        call(8, o.n .. " = ", cm.fn .. "_size", {}, ");"),
        IND .. IND .. o.dst .. " = rg_conn_reserve(" .. o.conn .. ", " .. o.n .. ");",
        IND .. IND .. "if (!" .. o.dst .. ") {",
        IND .. IND .. IND .. "return 0;",
        IND .. IND .. "}",
        call(8, o.n .. " = ", cm.fn .. "_encode", { o.dst, o.n }, ");"),
        IND .. "}",
        layout.call({ indent = 4, lead = "return ", name = "rg_conn_commit", args = {
            o.conn, o.n, "&" .. cm.reply_table, o.result, o.cb, o.ud }, tail = ");" }),
        "}",
    }
    return table.concat(lines, "\n")
end

local HEADER_DOC = [[
/* For each command C: C_call(conn, <C's encoder parameters>, result, cb, ud) encodes C into the
 * connection's output and queues it; the typed reply goes to *result (caller-owned, written when
 * the reply arrives) and cb (may be NULL) is called with the outcome (rg_call_done). Returns the
 * call's id, or 0 when the request does not fit the output or the ring of calls is full (nothing
 * is queued then). See runtime/rg_conn.h for the engine and the lifetimes of results. */]]

-- The header: the definitions themselves (header-only output) or a prototype per command.
local function header_text(model, defs)
    local body = {}
    if defs then
        body[1] = defs
    else
        for _, cm in ipairs(model.commands) do
            body[#body + 1] = layout.comment(0, resp.comment_escape(cm.name)) .. "\n" ..
                signature(cm, "uint64_t ", ");")
        end
    end
    return frame.header({
        model = model, suffix = "_client.h", what = "client calls",
        includes = { model.stem .. ".h", model.stem .. "_reply.h", "rg_conn.h" },
        system = { "stdint.h" },
        body = HEADER_DOC .. "\n\n" .. table.concat(body, "\n\n"),
    })
end

function M.emit(model, opts)
    if not opts.client then return {} end
    local header_only = opts.header_only
    local defs = {}
    for _, cm in ipairs(model.commands) do
        defs[#defs + 1] = definition(cm, header_only and "static inline " or "")
    end
    if header_only then
        local text = header_text(model, table.concat(defs, "\n\n"))
        return { { suffix = "_client.h", text = text } }
    end
    return {
        { suffix = "_client.h", text = header_text(model, nil) },
        { suffix = "_client.c", text = frame.source({ model = model, suffix = "_client.c",
            what = "client calls", body = table.concat(defs, "\n\n") }) },
    }
end

return M
