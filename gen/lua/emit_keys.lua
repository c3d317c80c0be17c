-- Renders the cluster routing tables: <stem>_keys.h and <stem>_keys.c (or one header with
-- --header-only). Per command its key specs as a static const rg_keyspec table (the JSON
-- key_specs in order, designated initializers as in tests/keys/cmd_specs.h), one lookup table
-- of { name, specs, count } sorted by name, and a few functions that hand them to the runtime's
-- engine (runtime/rg_keys.h): lookup by name or by argv, the keys and the hash slot of an
-- encoded call. The per-command part is data only; docs/cluster.md shows the whole path.

local frame = require("frame")
local layout = require("layout")
local model_mod = require("model")
local resp = require("resp")

local M = {}

local IND = "    "

-- JSON key spec flag -> runtime macro (the runtime's bits are Redis' CMD_KEY_* bits).
local FLAG_MACRO = {
    RO = "RG_KEY_RO", RW = "RG_KEY_RW", OW = "RG_KEY_OW", RM = "RG_KEY_RM",
    ACCESS = "RG_KEY_ACCESS", UPDATE = "RG_KEY_UPDATE", INSERT = "RG_KEY_INSERT",
    DELETE = "RG_KEY_DELETE", NOT_KEY = "RG_KEY_NOT_KEY", INCOMPLETE = "RG_KEY_INCOMPLETE",
    VARIABLE_FLAGS = "RG_KEY_VARIABLE_FLAGS",
}

-- The fields of each half of a spec, in the order tests/keys/cmd_specs.h spells them.
local BEGIN = {
    index = { kind = "RG_KS_INDEX", fields = { { "index", "pos" } } },
    keyword = { kind = "RG_KS_KEYWORD", fields = { { "keyword", "keyword" },
        { "startfrom", "startfrom" } } },
}
local FIND = {
    range = { kind = "RG_KS_RANGE", fields = { { "lastkey", "lastkey" }, { "step", "step" },
        { "limit", "limit" } } },
    keynum = { kind = "RG_KS_KEYNUM", fields = { { "keynumidx", "keynumidx" },
        { "firstkey", "firstkey" }, { "step", "step" } } },
}

---------------------------------------------------------------------------------------------
-- Spec tables.

-- The designated initializers of one half ({ name, value } pairs): kind first, then its fields.
local function half(v, kinds, kind_member)
    if v == "unknown" then return { { kind_member, "RG_KS_UNKNOWN" } } end
    local name
    for k in pairs(v) do name = k end -- its one field (pairs: the model is read-only proxies)
    local k = kinds[name]
    local out = { { kind_member, k.kind } }
    for _, f in ipairs(k.fields) do
        local x = v[name][f[2]]
        out[#out + 1] = { f[1], type(x) == "string" and '"' .. resp.c_escape(x) .. '"' or
            tostring(x) }
    end
    return out
end

local function flags_value(flags, extra)
    local names = {}
    for _, f in ipairs(flags) do names[#names + 1] = FLAG_MACRO[f] end
    if extra then names[#names + 1] = extra end
    return #names > 0 and table.concat(names, " | ") or "0"
end

-- One spec as clang-format lays out a braced list in an array: on one line when it fits, else
-- one initializer per line, a long flags value broken after '|' under its first flag.
local function spec_row(ks, ind)
    local inits = { { "flags", flags_value(ks.flags, ks.empty_placeholder and
        "RG_KEY_EMPTY_PLACEHOLDER") } }
    for _, p in ipairs(half(ks.begin_search, BEGIN, "begin")) do inits[#inits + 1] = p end
    for _, p in ipairs(half(ks.find_keys, FIND, "find")) do inits[#inits + 1] = p end
    local items = {}
    for i, p in ipairs(inits) do items[i] = "." .. p[1] .. " = " .. p[2] end
    local one = ind .. "{" .. table.concat(items, ", ") .. "},"
    if #one <= layout.LIMIT then return one end
    local lines = {}
    for i, item in ipairs(items) do
        local lead = (i == 1) and (ind .. "{") or (ind .. " ")
        local tail = (i == #items) and "}," or ","
        if #lead + #item + #tail <= layout.LIMIT then
            lines[#lines + 1] = lead .. item .. tail
        else
            -- Only a flags value grows this long: a list of "A | B | C".
            local col = #lead + #("." .. inits[i][1] .. " = ")
            local cur = lead .. "." .. inits[i][1] .. " ="
            local words = {}
            for w in inits[i][2]:gmatch("[^ |]+") do words[#words + 1] = w end
            for j, w in ipairs(words) do
                local piece = w .. ((j < #words) and " |" or tail)
                if #cur + 1 + #piece > layout.LIMIT then
                    lines[#lines + 1] = cur
                    cur = layout.spaces(col) .. piece
                else
                    cur = cur .. " " .. piece
                end
            end
            lines[#lines + 1] = cur
        end
    end
    return table.concat(lines, "\n")
end

-- "<ctype> <name>[] = {", the rows and "};". A head too long for one line breaks after the '='
-- when that fits (the brace alone on the next line), else before the name; clang-format
-- indents the brace or the name once, and the rows once more.
local function array_def(ctype, name, row_of, items)
    local head, ind = ctype .. " " .. name .. "[] = {", IND
    if #head > layout.LIMIT and #head - 2 <= layout.LIMIT then
        head, ind = ctype .. " " .. name .. "[] =\n" .. IND .. "{", IND .. IND
    elseif #head > layout.LIMIT then
        head, ind = ctype .. "\n" .. IND .. name .. "[] = {", IND .. IND
    end
    local rows, flat = {}, {}
    for _, x in ipairs(items) do
        rows[#rows + 1] = row_of(x, ind)
        flat[#flat + 1] = rows[#rows]:sub(#ind + 1, -2)
    end
    rows = layout.rows(#ind, flat) or rows
    return head .. "\n" .. table.concat(rows, "\n") .. "\n};"
end

-- "typedef rg_keys_entry P_keys_entry;" and its comment, broken after the type when too long.
local function entry_typedef(n)
    local comment = " /* { name, specs, count } */"
    local one = "typedef rg_keys_entry " .. n.entry .. ";" .. comment
    if #one <= layout.LIMIT then return one end
    return "typedef rg_keys_entry\n" .. IND .. n.entry .. ";" .. comment
end

local function spec_table(cm)
    return array_def("static const rg_keyspec", cm.keys.table, spec_row, cm.keys.specs)
end

---------------------------------------------------------------------------------------------
-- The lookup table.

-- "[ID] = {name, specs, count}," as clang-format lays it out: the index designator keeps one
-- entry per line (a plain list of short rows would be packed into columns); a row too long
-- packs its items under the first, or else breaks after '=' first.
local function entry_row(e, ind)
    local items = { '"' .. resp.c_escape(e.name) .. '",', e.specs .. ",", e.count .. "}," }
    local lead = ind .. "[" .. e.enum .. "] = "
    local one = lead .. "{" .. table.concat(items, " ")
    if #one <= layout.LIMIT then return one end
    local packed = layout.pack_braced(lead, items)
    if packed then return packed end
    local cont = ind .. IND
    return lead:gsub(" $", "") .. "\n" .. (layout.pack_braced(cont, items) or cont .. "{" ..
        table.concat(items, " "))
end

-- command_tips' REQUEST_POLICY / RESPONSE_POLICY as the runtime's enum names (rg_keys.h).
local REQUEST = { ALL_NODES = "RG_REQ_ALL_NODES", ALL_SHARDS = "RG_REQ_ALL_SHARDS",
    MULTI_SHARD = "RG_REQ_MULTI_SHARD", SPECIAL = "RG_REQ_SPECIAL" }
local RESPONSE = { ONE_SUCCEEDED = "RG_RESP_ONE_SUCCEEDED",
    ALL_SUCCEEDED = "RG_RESP_ALL_SUCCEEDED", AGG_LOGICAL_AND = "RG_RESP_AGG_LOGICAL_AND",
    AGG_LOGICAL_OR = "RG_RESP_AGG_LOGICAL_OR", AGG_MIN = "RG_RESP_AGG_MIN",
    AGG_MAX = "RG_RESP_AGG_MAX", AGG_SUM = "RG_RESP_AGG_SUM", SPECIAL = "RG_RESP_SPECIAL" }

-- { request, response } of a command's tips, or nil when it has neither policy.
local function policy_of(cm)
    local req, rsp
    for _, tip in ipairs(cm.keys.tips) do
        local r = tip:match("^REQUEST_POLICY:(.+)$")
        local p = tip:match("^RESPONSE_POLICY:(.+)$")
        if r then req = assert(REQUEST[r], "emit_keys: unknown REQUEST_POLICY " .. r) end
        if p then rsp = assert(RESPONSE[p], "emit_keys: unknown RESPONSE_POLICY " .. p) end
    end
    if not req and not rsp then return nil end
    return { req or "RG_REQ_DEFAULT", rsp or "RG_RESP_DEFAULT" }
end

-- "<lead>P_keys_policy[COUNT];" as clang-format lays it out when too long: broken after the type
-- when the declarator then fits, else before '['.
local function sized_decl(lead, n, tail)
    local decl = n.policy .. "[" .. n.count .. "]"
    local one = lead .. decl .. tail
    if #one <= layout.LIMIT then return one end
    if #IND + #decl + #tail <= layout.LIMIT then
        return lead:gsub(" $", "") .. "\n" .. IND .. decl .. tail
    end
    return lead .. n.policy .. "\n" .. IND .. "[" .. n.count .. "]" .. tail
end

-- "P_keys_policy[COUNT] = {...}": the policies by command id, only commands that have one listed
-- (the others are zero: RG_REQ_DEFAULT, RG_RESP_DEFAULT); "{{0, 0}}" when none has one.
-- A head too long for its line would break where clang-format weighs it against the rows (before
-- the '[' or before the '{', depending on the rows' lengths), so the table is then defined as "[]"
-- (array_decl, whose breaks depend on the head alone), its size set by a row for the last command
-- (with the defaults when it has no policy) and checked against the header's declaration.
local function policy_def(static, n, list)
    local lead = static .. "const rg_cmd_policy "
    local decl = n.policy .. "[" .. n.count .. "]"
    local any = false
    for _, e in ipairs(list) do any = any or policy_of(e.cm) ~= nil end
    local zero = lead .. decl .. " = {{0, 0}};"
    if not any and #zero <= layout.LIMIT then return zero end
    local head = lead .. decl .. " = {"
    local sized = #head <= layout.LIMIT
    if not sized then head = layout.array_decl(lead:gsub(" $", ""), n.policy, "", " = {") end
    local ind = head:find("\n", 1, true) and IND .. IND or IND
    local rows = {}
    for k, e in ipairs(list) do
        local p = policy_of(e.cm)
        if not p and k == #list and (not sized or not any) then
            p = { "RG_REQ_DEFAULT", "RG_RESP_DEFAULT" }
        end
        if p then
            local row = ind .. "[" .. e.enum .. "] = "
            local items = { p[1] .. ",", p[2] .. "}," }
            local one = row .. "{" .. table.concat(items, " ")
            rows[#rows + 1] = #one <= layout.LIMIT and one or layout.pack_braced(row, items) or
                row:gsub(" $", "") .. "\n" .. ind .. IND .. "{" .. table.concat(items, " ")
        end
    end
    return head .. "\n" .. table.concat(rows, "\n") .. "\n};"
end

local function entries(model)
    local list = {}
    for _, cm in ipairs(model.commands) do
        local n = #cm.keys.specs
        list[#list + 1] = { cm = cm, name = cm.name:upper(), count = n,
            specs = n > 0 and cm.keys.table or "NULL",
            enum = model.PREFIX .. "_KEYS_CMD_" .. cm.ID }
    end
    -- The rows follow the ids, which follow P_COMMANDS: the model's order, by name as the
    -- binary search of rg_keys_table_lookup needs.
    for i = 2, #list do assert(model_mod.name_less(list[i - 1].name, list[i].name)) end
    return list
end

---------------------------------------------------------------------------------------------
-- Files.

local function names(model)
    local p = model.prefix
    return {
        p = p, P = model.PREFIX, entry = p .. "_keys_entry", cmd = p .. "_keys_cmd",
        table = p .. "_keys_table", count = model.PREFIX .. "_KEYS_CMD_COUNT",
        lookup = p .. "_keys_lookup", command = p .. "_keys_command",
        of_request = p .. "_keys_of_request", slot = p .. "_slot_of_request",
        policy = p .. "_keys_policy", policy_of = p .. "_keys_policy_of",
    }
end

-- Each function: its return type, name and parameters, shared by declaration and definition.
local function signatures(n)
    return {
        lookup = { "const " .. n.entry .. " *", n.lookup, { "const char *name", "size_t len" } },
        command = { "const " .. n.entry .. " *", n.command, { "size_t argc",
            "const rg_view *argv" } },
        of_request = { "size_t ", n.of_request, { "const char *req", "size_t len",
            "rg_view *argv", "size_t argv_cap", "size_t *positions", "size_t pos_cap",
            "rg_error *err" } },
        slot = { "int ", n.slot, { "const char *req", "size_t len", "rg_view *argv",
            "size_t argv_cap" } },
        policy_of = { "rg_cmd_policy ", n.policy_of, { "const " .. n.entry .. " *e" } },
    }
end

local function signature(sig, static, tail)
    return layout.call({ indent = 0, lead = static .. sig[1], name = sig[2], args = sig[3],
        tail = tail, decl = true })
end

local HEADER_DOC = [[
/* Cluster routing (runtime/rg_keys.h, docs/cluster.md), P standing for the prefix:
 *   P_keys_table[P_KEYS_CMD_COUNT]    one entry per command, sorted by name: { name, specs,
 *                                     count }, specs NULL when the command has no keys; the
 *                                     P_KEYS_CMD_* ids index it
 *   P_keys_lookup(name, len)          the entry of "GET" or "CLIENT KILL" (ASCII-caseless), or
 *                                     NULL
 *   P_keys_command(argc, argv)        the entry of a call: argv[0], or argv[0] and argv[1] for a
 *                                     subcommand; NULL for a command not in the spec
 *   P_keys_of_request(req, len, argv, argv_cap, positions, pos_cap, err)
 *       the keys of one encoded call (as the encoders write it): parses req into argv, finds
 *       the command and returns rg_keys_find's answer, its status in err->status. Besides
 *       rg_keys_find's: RG_INVALID and 0 when req is not one encoded call; RG_INCOMPLETE and 0
 *       when the command is not in the spec (ask the server) or argv_cap is smaller than the
 *       argument count (rg_request_argv(req, len, NULL, 0) tells it). Views point into req.
 *   P_slot_of_request(req, len, argv, argv_cap)
 *       the one hash slot of the call's keys, or RG_SLOT_NONE (no keys), RG_SLOT_CROSS
 *       (several slots) or RG_SLOT_UNKNOWN (ask the server: the same cases as above).
 *   P_keys_policy[P_KEYS_CMD_COUNT], P_keys_policy_of(entry)
 *       the REQUEST_POLICY and RESPONSE_POLICY of the command's command_tips (rg_keys.h;
 *       zero when it has none), for a cluster client's fan-out (rg_cluster.h). */]]

local function header_text(model, n, sigs, defs)
    local static = defs and "static " or ""
    local enum = layout.comment(0, "The command ids, derived from " .. n.P .. "_COMMANDS (" ..
        model.stem .. ".h): " .. n.P .. "_KEYS_CMD_<ID>, in its order, the table's.") .. "\n" ..
        layout.x_enum({ name = n.cmd, x = n.p .. "_keys_id_", id_prefix = n.P .. "_KEYS_CMD_",
            list = n.P .. "_COMMANDS" }) .. "\n" ..
        table.concat(layout.macros({ { n.count, n.P .. "_NCOMMANDS" } }), "\n")
    local body = {
        HEADER_DOC,
        enum,
        entry_typedef(n),
    }
    if defs then
        body[#body + 1] = defs
    else
        local ext = "extern const " .. n.entry .. " " .. n.table .. "[];"
        if #ext > layout.LIMIT then
            ext = "extern const " .. n.entry .. "\n" .. IND .. n.table .. "[];"
        end
        body[#body + 1] = ext
        body[#body + 1] = "/* command_tips' request and response policies by command id (zero: " ..
            "none). */\n" .. (sized_decl("extern const rg_cmd_policy ", n, ";"))
        local decls = {}
        for _, k in ipairs({ "lookup", "command", "of_request", "slot", "policy_of" }) do
            decls[#decls + 1] = signature(sigs[k], static, ");")
        end
        body[#body + 1] = table.concat(decls, "\n")
    end
    return frame.header({
        model = model, suffix = "_keys.h", what = "cluster routing tables",
        includes = { model.stem .. ".h", "rg_keys.h" }, system = { "stddef.h" },
        body = table.concat(body, "\n\n"),
    })
end

-- The functions, with ${...} standing for the generated names: this table bound to the
-- runtime's generic lookups (rg_keys.h).
local CODE = [[
${lookup_def}
    const rg_view word = {name, len};
    const ${entry} *e = rg_keys_table_lookup(${table}, ${count}, &word, 1);
    return e;
}

${command_def}
    const ${entry} *e = rg_keys_table_command(${table}, ${count}, argc, argv);
    return e;
}

${of_request_def}
    const size_t n = rg_keys_of_request(${table}, ${count}, req, len, argv, argv_cap, positions, pos_cap, err);
    return n;
}

${slot_def}
    const int slot = rg_slot_of_request(${table}, ${count}, req, len, argv, argv_cap);
    return slot;
}

${policy_of_def}
    const rg_cmd_policy none = {0, 0};
    if (!e) return none;
    const size_t i = (size_t)(e - ${table});
    return ${policy}[i];
}]]

local function fill(text, vars)
    local filled = text:gsub("%${([%w_]+)}", function(k)
        return assert(vars[k], "emit_keys: no value for ${" .. k .. "}")
    end)
    local out = {}
    for line in (filled .. "\n"):gmatch("(.-)\n") do out[#out + 1] = layout.relayout(line) end
    return table.concat(out, "\n")
end

local function code_text(model, n, sigs, list, header_only)
    local static = header_only and "static " or ""
    local parts = {}
    for _, cm in ipairs(model.commands) do
        if #cm.keys.specs > 0 then parts[#parts + 1] = spec_table(cm) end
    end
    parts[#parts + 1] = array_def(static .. "const " .. n.entry, n.table, entry_row, list)
    parts[#parts + 1] = policy_def(static, n, list)
    local vars = {}
    for k, v in pairs(n) do vars[k] = v end
    local def_static = header_only and "static inline " or ""
    for _, k in ipairs({ "lookup", "command", "of_request", "slot", "policy_of" }) do
        vars[k .. "_def"] = signature(sigs[k], def_static, ") {")
    end
    parts[#parts + 1] = fill(CODE, vars)
    return table.concat(parts, "\n\n")
end

-- Returns the routing files: { suffix, text } each.
function M.emit(model, opts)
    local n = names(model)
    local sigs = signatures(n)
    local list = entries(model)
    if opts.header_only then
        local defs = code_text(model, n, sigs, list, true)
        return { { suffix = "_keys.h", text = header_text(model, n, sigs, defs) } }
    end
    local source = frame.source({ model = model, suffix = "_keys.c",
        what = "cluster routing tables", body = code_text(model, n, sigs, list, false) })
    return {
        { suffix = "_keys.h", text = header_text(model, n, sigs, nil) },
        { suffix = "_keys.c", text = source },
    }
end

return M
