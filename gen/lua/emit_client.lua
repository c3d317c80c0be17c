-- The client half of a codec (respgen --client): <stem>_client.h/.c with one call per command,
--
--   uint64_t C_call(rg_conn *conn, <the encoder's parameters>, C_result *result,
--                   rg_call_fn cb, void *ud);
--
-- which encodes the request with the generated encoder straight into the connection's output
-- (runtime/rg_conn.h) and queues the command's typed reply table (emit_reply.lua). The
-- parameters are the encoder's own, from emit_c.lua's param_texts and arg_names, so the two can
-- never disagree. The reply names (cm.reply_result, cm.reply_table) come from the model.
--
-- Each call hands the engine its command's descriptor (runtime/rg_cmd.h), a static const rg_cmd
-- in its body: { name, reply table, flags, id (P_KEYS_CMD_<ID>, emit_keys.lua: the index of its
-- key specs and tips), kind, confirmations }, so that the engine learns what the command does
-- to the connection from the generator, never from the request bytes.

local emit_c = require("emit_c")
local frame = require("frame")
local layout = require("layout")
local cstr = require("cstr")
local resp = require("resp")

local M = {}

M.options = {
    ["--client"] = { field = "client" },
    ["--cacheable-list"] = { field = "cacheable_list" },
}

local IND = "    "

-- What a command does to the connection (rg_cmd_kind) and the push kind of its confirmations:
-- the commands the engine treats specially; every other is RG_CMD_PLAIN. The runtime's own
-- table for requests that come as bytes (rg_cmd.c) names the same commands.
local KINDS = { -- also M.KINDS: gen_model checks it against rg_cmd.c
    ["MULTI"] = { "RG_CMD_MULTI" },
    ["EXEC"] = { "RG_CMD_EXEC" },
    ["DISCARD"] = { "RG_CMD_DISCARD" },
    ["PING"] = { "RG_CMD_PING" },
    ["HELLO"] = { "RG_CMD_HELLO" },
    ["RESET"] = { "RG_CMD_RESET" },
    ["SUBSCRIBE"] = { "RG_CMD_SUBSCRIBE", "RG_PUSH_SUBSCRIBE" },
    ["PSUBSCRIBE"] = { "RG_CMD_SUBSCRIBE", "RG_PUSH_PSUBSCRIBE" },
    ["SSUBSCRIBE"] = { "RG_CMD_SUBSCRIBE", "RG_PUSH_SSUBSCRIBE" },
    ["UNSUBSCRIBE"] = { "RG_CMD_UNSUBSCRIBE", "RG_PUSH_UNSUBSCRIBE" },
    ["PUNSUBSCRIBE"] = { "RG_CMD_UNSUBSCRIBE", "RG_PUSH_PUNSUBSCRIBE" },
    ["SUNSUBSCRIBE"] = { "RG_CMD_UNSUBSCRIBE", "RG_PUSH_SUNSUBSCRIBE" },
    ["CLIENT TRACKING"] = { "RG_CMD_TRACKING" },
}

-- The command flags rg_cmd.h names (RG_CMD_F_<NAME>): each generated client checks that the
-- set's P_FLAG_<NAME> has the same bit.
local RUNTIME_FLAGS = { WRITE = true, READONLY = true, PUBSUB = true, NOSCRIPT = true,
    BLOCKING = true, NO_MULTI = true }

local function cmd_enum(model, cm)
    return model.PREFIX .. "_KEYS_CMD_" .. cm.ID
end

-- ".flags = P_FLAG_A | P_FLAG_B," (or 0) at column col as clang-format lays it out: on one line,
-- else the expression whole on the next line one continuation in, else broken greedily as a
-- binary expression (continued under the first term).
local function flags_item(model, cm, col)
    local set = {}
    for _, f in ipairs(cm.flags) do set[f] = true end
    local terms = {}
    for _, f in ipairs(model.flags) do
        if set[f.name] then terms[#terms + 1] = f.macro end
    end
    local lead = string.rep(" ", col) .. ".flags = "
    if #terms == 0 then return lead .. "0," end
    local expr = table.concat(terms, " | ")
    if #lead + #expr + 1 <= layout.LIMIT then return lead .. expr .. "," end
    local below = string.rep(" ", col + #IND) .. expr .. ","
    if #below <= layout.LIMIT then return lead:gsub(" $", "") .. "\n" .. below end
    local lines, line = {}, lead .. terms[1]
    for k = 2, #terms do
        local tail = k == #terms and "," or " |"
        if #line + 3 + #terms[k] + #tail > layout.LIMIT then
            lines[#lines + 1] = line .. " |"
            line = string.rep(" ", #lead) .. terms[k]
        else
            line = line .. " | " .. terms[k]
        end
    end
    lines[#lines + 1] = line .. ","
    return table.concat(lines, "\n")
end

-- "static const rg_cmd desc = {...};" in the call's body, its designated members one a line
-- (clang-format's shape for them whatever the lengths; a local, so that no name of the prefix's
-- length comes before the brace).
local function descriptor(model, cm, name)
    local kind = KINDS[cm.name:upper()] or {}
    local ind = IND .. IND
    local function member(item) return ind .. layout.initializer(#ind, item, ",") .. "," end
    local lines = {
        IND .. "static const rg_cmd " .. name .. " = {",
        member(".name = " .. cstr.literal(cm.name:upper())),
        member(".reply = &" .. cm.reply_table),
        flags_item(model, cm, #ind),
        member(".id = " .. cmd_enum(model, cm)),
        member(".kind = " .. (kind[1] or "RG_CMD_PLAIN")),
    }
    if kind[2] then lines[#lines + 1] = member(".pubsub = " .. kind[2]) end
    lines[#lines + 1] = IND .. "};"
    return table.concat(lines, "\n")
end

-- The checks that the set's flag bits are the runtime's (C only: not in a C++ header).
local function flag_checks(model)
    local checks = {}
    for _, f in ipairs(model.flags) do
        if RUNTIME_FLAGS[f.name] then
            checks[#checks + 1] = layout.call({ indent = 0, lead = "", name = "_Static_assert",
                args = { f.macro .. " == RG_CMD_F_" .. f.name, '"' .. f.macro ..
                    ': not the runtime\'s bit"' }, tail = ");" })
        end
    end
    return table.concat(checks, "\n")
end

-- Names of the call's own parameters, made unique against the encoder's.
local function own_names(cm)
    local taken = {}
    for _, name in ipairs(emit_c.arg_names(cm)) do taken[name] = true end
    local names = {}
    for _, n in ipairs({ "conn", "result", "cb", "ud", "dst", "cap", "n", "desc", "slot", "i",
        "cache" }) do
        local v = n
        while taken[v] do v = v .. "_" end
        taken[v] = true
        names[n] = v
    end
    return names
end

---------------------------------------------------------------------------------------------
-- The slot a call computes for a cluster's front (rg_conn_relayed): from the keys it can name,
-- the same answer as rg_slot_of_request on its bytes. It names them when every key of the
-- command is a required parameter (a key, a list of keys, a key member of a list of blocks:
-- MSET's pairs) and the key specs find exactly those (no spec incomplete, not a key, or with an
-- empty placeholder); otherwise the cluster finds the keys in the bytes with the command's
-- entry (RG_SLOT_UNKNOWN).

local SPEC_UNNAMED = { INCOMPLETE = true, NOT_KEY = true }

local function specs_plain(cm)
    for _, ks in ipairs(cm.keys.specs) do
        if ks.empty_placeholder or ks.begin_search == "unknown" or ks.find_keys == "unknown" then
            return false
        end
        for _, f in ipairs(ks.flags or {}) do
            if SPEC_UNNAMED[f] then return false end
        end
    end
    return true
end

local function is_key(a)
    return a.kind == "key" or a.key_spec_index ~= nil
end

-- Every node below args that is a key (or a key spec's argument) is in named.
local function all_named(args, named)
    for _, a in ipairs(args or {}) do
        if is_key(a) and not named[a] then return false end
        if not all_named(a.args, named) then return false end
    end
    return true
end

-- The call's key terms in parameter order: { expr = C text of one key } or { list = name,
-- count = name, member = nil or ".field" } (a list of keys, or a member of a list of blocks);
-- nil when the keys cannot all be named. An empty list: no keys (RG_SLOT_NONE).
local function key_terms(cm)
    if #cm.keys.specs == 0 or not specs_plain(cm) then return nil end
    local counts, named, terms = {}, {}, {}
    for _, d in ipairs(cm.params) do
        if d.holds == "count" then counts[d.arg] = d.name end
    end
    for _, d in ipairs(cm.params) do
        local a = d.arg
        if d.holds == "value" and a.kind == "key" and not a.optional then
            named[a] = true
            terms[#terms + 1] = { expr = d.name }
        elseif d.holds == "list" and a.kind == "key" and counts[a] then
            named[a] = true
            terms[#terms + 1] = { list = d.name, count = counts[a], member = "" }
        elseif d.holds == "list" and a.kind == "block" and counts[a] then
            for _, f in ipairs(a.fields or {}) do
                local fa = f.arg
                if f.holds == "value" and fa.kind == "key" and not fa.optional and
                    not fa.multiple then
                    named[fa] = true
                    terms[#terms + 1] = { list = d.name, count = counts[a], member = "." .. f.name }
                end
            end
        end
    end
    if #terms == 0 or not all_named(cm.args, named) then return nil end
    return terms
end

-- The statements that hand a front the call's slot (none when the keys cannot be named).
local function slot_lines(cm, o)
    local terms = key_terms(cm)
    if not terms then return {} end
    local ind, ind2 = IND .. IND, IND .. IND .. IND
    local function join(indent, lead, key)
        return layout.call({ indent = #indent, lead = lead, name = "rg_slot_join",
            args = { o.slot, key }, tail = ");" })
    end
    local lines = { IND .. "if (rg_conn_relayed(" .. o.conn .. ")) {" }
    if #terms == 1 and terms[1].expr then
        lines[#lines + 1] = layout.call({ indent = #ind, lead = "", name = "rg_conn_relay_slot",
            args = { o.conn, "rg_slot_join(RG_SLOT_NONE, " .. terms[1].expr .. ")" },
            tail = ");" })
    else
        lines[#lines + 1] = ind .. "int " .. o.slot .. " = RG_SLOT_NONE;"
        for _, t in ipairs(terms) do
            if t.expr then
                lines[#lines + 1] = join(ind, o.slot .. " = ", t.expr)
            else
                lines[#lines + 1] = ind .. "for (size_t " .. o.i .. " = 0; " .. o.i .. " < " ..
                    t.count .. "; " .. o.i .. "++) {"
                lines[#lines + 1] = join(ind2, o.slot .. " = ", t.list .. "[" .. o.i .. "]" ..
                    t.member)
                lines[#lines + 1] = ind .. "}"
            end
        end
        lines[#lines + 1] = ind .. "rg_conn_relay_slot(" .. o.conn .. ", " .. o.slot .. ");"
    end
    lines[#lines + 1] = IND .. "}"
    return lines
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

-- The request encoded into the connection's room, or sized and reserved when it does not fit
-- (a call returns 0 when the output cannot take it): C_call's and C_cached's lines.
local function encode_lines(cm, o, lines)
    local args = emit_c.arg_names(cm)
    local function call(indent, lead, name, first, tail)
        local a = {}
        for _, x in ipairs(first) do a[#a + 1] = x end
        for _, x in ipairs(args) do a[#a + 1] = x end
        return layout.call({ indent = indent, lead = lead, name = name, args = a, tail = tail })
    end
    local enc = {
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
    }
    for _, l in ipairs(enc) do lines[#lines + 1] = l end
end

local function definition(model, cm, static)
    local o = own_names(cm)
    local lines = {
        signature(cm, static .. "uint64_t ", ") {"),
        descriptor(model, cm, o.desc),
    }
    for _, l in ipairs(slot_lines(cm, o)) do lines[#lines + 1] = l end
    encode_lines(cm, o, lines)
    local rest = {
        layout.call({ indent = 4, lead = "return ", name = "rg_conn_commit", args = {
            o.conn, o.n, "&" .. o.desc, o.result, o.cb, o.ud }, tail = ");" }),
        "}",
    }
    for _, l in ipairs(rest) do lines[#lines + 1] = l end
    return table.concat(lines, "\n")
end

---------------------------------------------------------------------------------------------
-- Client-side caching (runtime/rg_cache.h): a command is cacheable when its reply depends on
-- one key's value alone, so that the server's invalidation of that key is all a cache needs to
-- hear. From the spec: the READONLY flag (and not BLOCKING), no NONDETERMINISTIC_OUTPUT tip (an
-- order that is nondeterministic is fine: a cached SMEMBERS is one of the orders the server
-- could send), one key spec that only reads (RO), and that key a parameter of the call. The
-- spec's `cacheable` says otherwise either way. Returns the key's parameter name or nil, and why.

local WRITES = { RW = true, OW = true, RM = true, INSERT = true, DELETE = true, UPDATE = true }

local function has(list, word)
    for _, w in ipairs(list or {}) do
        if w == word then return true end
    end
    return false
end

local function cacheability(cm)
    local terms = key_terms(cm)
    local key = terms and #terms == 1 and terms[1].expr or nil
    if cm.cacheable == false then return nil, "the spec says not cacheable" end
    if cm.cacheable == "per_key" then
        local t = terms and #terms == 1 and terms[1].list and terms[1].member == "" and terms[1]
        if not t then
            error(string.format("%s: command '%s': cacheable = \"per_key\" needs one list of " ..
                "keys", cm.line and tostring(cm.line) or "?", cm.name), 0)
        end
        return { list = t.list, count = t.count }, "the spec says cacheable per key"
    end
    if cm.cacheable == true then
        if not key then
            error(string.format("%s: command '%s': cacheable = true needs one key argument",
                cm.line and tostring(cm.line) or "?", cm.name), 0)
        end
        return key, "the spec says cacheable"
    end
    if not has(cm.flags, "READONLY") then return nil, "not READONLY" end
    if has(cm.flags, "BLOCKING") then return nil, "BLOCKING" end
    if has(cm.keys.tips, "NONDETERMINISTIC_OUTPUT") then
        return nil, "NONDETERMINISTIC_OUTPUT"
    end
    if #cm.keys.specs ~= 1 then
        return nil, #cm.keys.specs == 0 and "no key" or "more than one key spec"
    end
    local ks = cm.keys.specs[1]
    if not has(ks.flags, "RO") then return nil, "its key spec is not RO" end
    for _, f in ipairs(ks.flags or {}) do
        if WRITES[f] then return nil, "its key spec writes (" .. f .. ")" end
    end
    if not key then return nil, "not one key argument" end
    return key, "READONLY, deterministic, one RO key"
end

local function cached_signature(cm, lead, tail)
    local o = own_names(cm)
    local texts = { "rg_cache *" .. o.cache }
    for _, t in ipairs(emit_c.param_texts(cm)) do texts[#texts + 1] = t end
    texts[#texts + 1] = cm.reply_result .. " *" .. o.result
    texts[#texts + 1] = "rg_call_fn " .. o.cb
    texts[#texts + 1] = "void *" .. o.ud
    return layout.call({ indent = 0, lead = lead, name = cm.fn .. "_cached", args = texts,
        tail = tail, decl = true })
end

-- C_cached: the request encoded as C_call does, then handed to the cache (rg_cache_call), which
-- answers it or commits it.
local function cached_definition(model, cm, static, key)
    local o = own_names(cm)
    local lines = {
        cached_signature(cm, static .. "uint64_t ", ") {"),
        descriptor(model, cm, o.desc),
        IND .. "rg_conn *" .. o.conn .. " = rg_cache_conn(" .. o.cache .. ");",
    }
    encode_lines(cm, o, lines)
    lines[#lines + 1] =
        type(key) == "table" and
            layout.call({ indent = 4, lead = "return ", name = "rg_cache_call_keys", args = {
                o.cache, o.dst, o.n, "&" .. o.desc, key.list, key.count, o.result, o.cb, o.ud },
                tail = ");" }) or
            layout.call({ indent = 4, lead = "return ", name = "rg_cache_call", args = {
                o.cache, o.dst, o.n, "&" .. o.desc, key, o.result, o.cb, o.ud }, tail = ");" })
    lines[#lines + 1] = "}"
    return table.concat(lines, "\n")
end

-- <stem>_cacheable.md (--cacheable-list): the commands with a C_cached call and why, and the
-- read-only ones without, for review (docs/cacheable.md is specs/redis.lua's).
local function cacheable_text(model)
    local yes, no = {}, {}
    for _, cm in ipairs(model.commands) do
        local key, why = cacheability(cm)
        if key then
            local name = type(key) == "table" and key.list .. " (each)" or key
            yes[#yes + 1] = "| " .. cm.name .. " | " .. name .. " | " .. why .. " |"
        elseif has(cm.flags, "READONLY") then
            no[#no + 1] = "| " .. cm.name .. " | " .. why .. " |"
        end
    end
    return table.concat({
        "# Cacheable commands: " .. model.file,
        "",
        "Generated by `respgen --cacheable-list`: the commands whose `_cached` call",
        "(runtime/rg_cache.h) may answer from a client-side cache, and the read-only commands",
        "that may not. Cacheable: READONLY and not BLOCKING, no NONDETERMINISTIC_OUTPUT tip, one",
        "key spec that only reads (RO), that key an argument of the call; a command's `cacheable`",
        "in the spec overrides it either way, or makes a command of a list of keys whose reply is",
        "one element per key (MGET) cacheable per key.",
        "",
        string.format("- cacheable: %d", #yes),
        string.format("- read-only, not cacheable: %d", #no),
        "",
        "| command | key | why |",
        "|---|---|---|",
        table.concat(yes, "\n"),
        "",
        "| read-only command | why not |",
        "|---|---|",
        table.concat(no, "\n"),
        "",
    }, "\n")
end

local HEADER_DOC = [[
/* For each command C: C_call(conn, <C's encoder parameters>, result, cb, ud) encodes C into the
 * connection's output and queues it; the typed reply goes to *result (caller-owned, written when
 * the reply arrives) and cb (may be NULL) is called with the outcome (rg_call_done). Returns the
 * call's id, or 0 when the request does not fit the output or the ring of calls is full (nothing
 * is queued then). See runtime/rg_conn.h for the engine and the lifetimes of results.
 *
 * Each call hands the engine its command's descriptor (runtime/rg_cmd.h): the engine learns
 * from it, not from the request bytes, what the command does to the connection.
 *
 * A cacheable command C (one key, read-only, deterministic: docs/cacheable.md) also gets
 * C_cached(cache, <C's encoder parameters>, result, cb, ud): the same call through a client-side
 * cache (runtime/rg_cache.h), answered from it when it holds the reply (returns RG_CACHE_HIT,
 * the callback called inside) or sent to the cache's connection. */]]

-- The header: the definitions themselves (header-only output) or a prototype per command.
local function header_text(model, defs)
    local body = {}
    if defs then
        body[1] = defs
    else
        for _, cm in ipairs(model.commands) do
            local proto = signature(cm, "uint64_t ", ");")
            if cacheability(cm) then
                proto = proto .. "\n" .. cached_signature(cm, "uint64_t ", ");")
            end
            body[#body + 1] = layout.comment(0, resp.comment_escape(cm.name)) .. "\n" .. proto
        end
    end
    return frame.header({
        model = model, suffix = "_client.h", what = "client calls",
        includes = { model.stem .. ".h", model.stem .. "_keys.h", model.stem .. "_reply.h",
            "rg_cache.h", "rg_conn.h" },
        system = { "stdint.h" },
        body = HEADER_DOC .. "\n\n" .. table.concat(body, "\n\n"),
    })
end

function M.emit(model, opts)
    local list = opts.cacheable_list and
        { suffix = "_cacheable.md", text = cacheable_text(model) } or nil
    if not opts.client then return { list } end
    local header_only = opts.header_only
    local defs = {}
    if not header_only and #flag_checks(model) > 0 then defs[1] = flag_checks(model) end
    local static = header_only and "static inline " or ""
    for _, cm in ipairs(model.commands) do
        defs[#defs + 1] = definition(model, cm, static)
        local key = cacheability(cm)
        if key then defs[#defs + 1] = cached_definition(model, cm, static, key) end
    end
    if header_only then
        local text = header_text(model, table.concat(defs, "\n\n"))
        return { { suffix = "_client.h", text = text }, list }
    end
    return {
        { suffix = "_client.h", text = header_text(model, nil) },
        { suffix = "_client.c", text = frame.source({ model = model, suffix = "_client.c",
            what = "client calls", body = table.concat(defs, "\n\n") }) },
        list,
    }
end

M.KINDS = KINDS

return M
