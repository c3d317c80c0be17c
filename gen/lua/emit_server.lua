-- The server half of a codec (respgen --server): <stem>_server.h/.c with
--   - an enum of command ids (subcommands included, containers too),
--   - two lookups from a request's first word to an id, both case-insensitive as Redis: a
--     generated switch on length and first letter, and a perfect hash (hash and displace over
--     FNV-1a of the lower-cased name); <prefix>_srv_lookup is the switch, which measured faster
--     on the full Redis command set (docs/server.md),
--   - per command an argument struct and the rg_arg_spec table that rg_args_parse fills it from,
--   - <prefix>_srv_parse: argv -> command id + typed arguments, or Redis' error text.
-- Commands whose arguments do not fit rg_args' rules (nested blocks, repeated tokens, optional
-- groups in the middle) get no table: they are "raw", only their arity is checked and their
-- handler reads argv.

local naming = require("naming")

local M = {}

M.options = {
    ["--server"] = { field = "server" },
}

local VIEW = { key = true, string = true, pattern = true }
local I64 = { integer = true, ["unix-time"] = true }

local function arg_type(a)
    if VIEW[a.kind] then return "RG_ARG_VIEW", "rg_view" end
    if I64[a.kind] then return "RG_ARG_I64", "int64_t" end
    if a.kind == "double" then return "RG_ARG_DOUBLE", "double" end
    if a.kind == "pure-token" then return "RG_ARG_NONE", nil end
    return nil
end

local function is_scalar(a)
    return arg_type(a) ~= nil and a.kind ~= "pure-token"
end

local function c_string(s)
    return '"' .. s:gsub('[\\"]', "\\%0") .. '"'
end

---------------------------------------------------------------------------------------------
-- Argument tables.

-- A node record: what the C initializer of one rg_arg_node needs.
local function node(a, set_field, value_field, alt, group)
    return { token = a.token and a.token:lower(), type = (arg_type(a)), set = set_field,
        value = value_field, alt = alt or 0, group = group or 0 }
end

-- An optional argument in options position; adds its fields and nodes. False when it does not fit.
local function add_option(a, cmd, groups)
    local id = naming.member(a.name)
    if a.multiple then return false end
    if a.kind == "pure-token" then
        cmd.fields[#cmd.fields + 1] = { "int", id, "1 when " .. a.token .. " was given" }
        cmd.opt[#cmd.opt + 1] = node(a, id)
        return true
    end
    if is_scalar(a) and a.token then
        local _, ctype = arg_type(a)
        cmd.fields[#cmd.fields + 1] = { "int", "has_" .. id }
        cmd.fields[#cmd.fields + 1] = { ctype, id }
        cmd.opt[#cmd.opt + 1] = node(a, "has_" .. id, id)
        return true
    end
    if a.kind ~= "oneof" then return false end
    groups.n = groups.n + 1
    local consts = {}
    cmd.fields[#cmd.fields + 1] = { "int", id, "0 or one of " .. cmd.MACRO .. "_" ..
        naming.upper(id) .. "_*" }
    for i, alt in ipairs(a.args) do
        if not alt.token or alt.multiple or not arg_type(alt) then return false end
        local aid = naming.member(alt.name)
        consts[#consts + 1] = { cmd.MACRO .. "_" .. naming.upper(id) .. "_" ..
            naming.upper(naming.ident(alt.name)), i }
        local value
        if alt.kind ~= "pure-token" then
            local _, ctype = arg_type(alt)
            value = id .. "_" .. aid
            cmd.fields[#cmd.fields + 1] = { ctype, value }
        end
        cmd.opt[#cmd.opt + 1] = node(alt, id, value, i, groups.n)
    end
    cmd.consts[#cmd.consts + 1] = consts
    return true
end

-- The trailing `multiple` argument: a scalar, or a block of untokened scalars.
local function add_rest(a, cmd)
    if a.token then return false end
    local id = naming.member(a.name)
    local group
    if is_scalar(a) then
        group = 1
    elseif a.kind == "block" then
        for _, c in ipairs(a.args) do
            if not is_scalar(c) or c.token or c.optional or c.multiple then return false end
        end
        group = #a.args
    else
        return false
    end
    cmd.fields[#cmd.fields + 1] = { "const rg_view *", id, group > 1 and
        (group .. " views per element") or nil }
    cmd.fields[#cmd.fields + 1] = { "size_t", id .. "_count" }
    cmd.rest = { group = group, field = id }
    return true
end

-- Fills cmd.fields, cmd.pos, cmd.opt, cmd.rest, cmd.opt_word; returns false for raw commands.
local function classify(args, cmd)
    local i = 1
    while args[i] and not args[i].optional and not args[i].multiple and is_scalar(args[i]) do
        local a = args[i]
        local id = naming.member(a.name)
        local _, ctype = arg_type(a)
        cmd.fields[#cmd.fields + 1] = { ctype, id }
        cmd.pos[#cmd.pos + 1] = node(a, nil, id)
        i = i + 1
    end
    local rest = {}
    for k = i, #args do rest[#rest + 1] = args[k] end
    if #rest == 0 then return true end
    if #rest == 1 and rest[1].multiple then return add_rest(rest[1], cmd) end
    if #rest == 1 and rest[1].optional and is_scalar(rest[1]) and not rest[1].token then
        local a = rest[1]
        local id = naming.member(a.name)
        local _, ctype = arg_type(a)
        cmd.fields[#cmd.fields + 1] = { "int", "has_" .. id }
        cmd.fields[#cmd.fields + 1] = { ctype, id }
        cmd.opt[1] = node(a, "has_" .. id, id)
        cmd.opt_word = true
        return true
    end
    local groups = { n = 0 }
    for _, a in ipairs(rest) do
        if not a.optional or not add_option(a, cmd, groups) then return false end
    end
    return true
end

local function is_null(s) return s and s.type == "null" end

local function reply_shape(s)
    if type(s) ~= "table" then return nil end
    if type(s.const) == "string" and not s.const:find("[\r\n]") then return "const" end
    if s.type == "integer" then return "integer" end
    if s.type == "string" then return "bulk" end
    if s.type == "number" then return "double" end
    local alts = s.oneOf or s.anyOf
    if alts and #alts == 2 then
        local a, b = alts[1], alts[2]
        if (reply_shape(a) == "bulk" and is_null(b)) or (reply_shape(b) == "bulk" and is_null(a)) then
            return "bulk_or_null"
        end
    end
    if s.type == "array" and s.items then
        local item = reply_shape(s.items)
        if item == "bulk" or item == "bulk_or_null" then return "bulks" end
    end
    return nil
end

local function build_cmd(cm, prefix, PREFIX)
    local c = cm.spec
    local id = cm.id
    local cmd = {
        name = table.concat(c.words, "|"):lower(), words = c.words, arity = c.arity,
        enum = PREFIX .. "_SRV_" .. naming.upper(id), MACRO = PREFIX .. "_SRV_" .. naming.upper(id),
        struct = prefix .. "_srv_" .. id .. "_args", member = id, spec_name = prefix .. "_srv_" ..
            id .. "_spec", fields = {}, pos = {}, opt = {}, consts = {},
    }
    cmd.reply = c.reply
    cmd.reply_shape = reply_shape(c.reply)
    cmd.fn = prefix .. "_srv_" .. id
    cmd.parsed = classify(c.args, cmd)
    if not cmd.parsed then
        cmd.fields, cmd.pos, cmd.opt, cmd.consts, cmd.rest, cmd.opt_word = {}, {}, {}, {}, nil, nil
    end
    return cmd
end

-- Commands and containers in id order: top-level entries sorted by name; containers that the
-- spec does not define as commands get an entry of their own (arity -2, raw).
local function build_all(model)
    local prefix, PREFIX = model.prefix, model.PREFIX
    local cmds, by_top = {}, {}
    for _, cm in ipairs(model.commands) do
        local cmd = build_cmd(cm, prefix, PREFIX)
        cmds[#cmds + 1] = cmd
        local top = cmd.words[1]:lower()
        by_top[top] = by_top[top] or { subs = {} }
        if #cmd.words == 1 then
            by_top[top].cmd = cmd
        else
            table.insert(by_top[top].subs, cmd)
        end
    end
    for top, e in pairs(by_top) do
        if not e.cmd then
            local id = naming.ident(top)
            e.cmd = { name = top, words = { top }, arity = -2, parsed = false, container = true,
                enum = PREFIX .. "_SRV_" .. naming.upper(id), fields = {}, pos = {}, opt = {},
                consts = {} }
            cmds[#cmds + 1] = e.cmd
        end
        e.cmd.subs = e.subs
        table.sort(e.subs, function(a, b) return a.name < b.name end)
    end
    table.sort(cmds, function(a, b) return a.name < b.name end)
    local tops = {}
    for top, e in pairs(by_top) do tops[#tops + 1] = { name = top, cmd = e.cmd } end
    table.sort(tops, function(a, b) return a.name < b.name end)
    return cmds, tops
end

---------------------------------------------------------------------------------------------
-- Perfect hash: FNV-1a (32 bits) of the lower-cased name picks a bucket; each bucket has a seed
-- so that slot = ((h ^ seed) * 0x9E3779B1) >> (32 - bits) is collision-free over all names.

local MASK = 0xffffffff

local function fnv(name)
    local h = 2166136261
    for i = 1, #name do
        h = ((h ~ name:byte(i)) * 16777619) & MASK
    end
    return h
end

local function slot_of(h, seed, bits)
    return (((h ~ seed) * 0x9E3779B1) & MASK) >> (32 - bits)
end

local function perfect_hash(names)
    local bits = 1
    while (1 << bits) < 2 * #names do bits = bits + 1 end
    local nb = 1
    while nb * 2 < #names do nb = nb * 2 end
    local buckets = {}
    for b = 0, nb - 1 do buckets[b] = {} end
    for i, n in ipairs(names) do
        local h = fnv(n)
        table.insert(buckets[h & (nb - 1)], { i = i, h = h })
    end
    local order = {}
    for b = 0, nb - 1 do order[#order + 1] = b end
    table.sort(order, function(a, b)
        if #buckets[a] ~= #buckets[b] then return #buckets[a] > #buckets[b] end
        return a < b
    end)
    local slots, seeds = {}, {}
    for _, b in ipairs(order) do
        local seed = 0
        while true do
            local used, ok = {}, true
            for _, k in ipairs(buckets[b]) do
                local s = slot_of(k.h, seed, bits)
                if slots[s] or used[s] then ok = false break end
                used[s] = k.i
            end
            if ok then
                for s, i in pairs(used) do slots[s] = i end
                break
            end
            seed = seed + 1
            assert(seed < 1000000, "perfect hash: no seed found")
        end
        seeds[b] = seed
    end
    return { bits = bits, nb = nb, seeds = seeds, slots = slots }
end

---------------------------------------------------------------------------------------------
-- Rendering.

local function join(t, sep) return table.concat(t, sep or "\n") end

local function banner(model)
    return "/* Generated by respgen " .. model.version .. " from " .. model.file .. " (--server).\n" ..
        " * Do not edit: change the spec and regenerate. */"
end

-- A declaration "<ret> <name>(<params>)<tail>" on one line, or wrapped after the comma that keeps
-- the first line within 100 columns, continuation aligned with the parameters (clang-format's
-- layout for two parameter lines).
local function signature(head, params, tail)
    local one = head .. "(" .. table.concat(params, ", ") .. ")" .. tail
    if #one <= 100 then return one end
    local indent = string.rep(" ", #head + 1)
    local lines, line = {}, head .. "(" .. params[1]
    for i = 2, #params do
        if #line + 2 + #params[i] + (i == #params and #tail + 1 or 1) > 100 then
            lines[#lines + 1] = line .. ","
            line = indent .. params[i]
        else
            line = line .. ", " .. params[i]
        end
    end
    lines[#lines + 1] = line .. ")" .. tail
    return table.concat(lines, "\n")
end

-- Typed reply encoders from the spec's reply schema, for the shapes that map onto one rg_out
-- writer: an integer, a bulk string, a bulk string or null, a double, an array of bulk strings
-- (or nulls), and a constant simple string ("OK"). Other schemas get none.

-- Header text of one command's reply encoder (nil when its schema does not fit).
local function reply_text(c, fn)
    local shape = c.reply_shape
    local name = c.name:upper():gsub("|", " ")
    if shape == "const" then
        return "/* " .. name .. "'s reply. */\n#define " .. c.MACRO .. "_REPLY \"+" ..
            c.reply.const .. "\\r\\n\""
    end
    local T = {
        integer = { { "int64_t v" }, "rg_out_int_size(v)", "rg_out_int(dst, v)", "an integer" },
        bulk = { { "rg_view v" }, "rg_bulk_size(v.len)", "rg_put_bulk(dst, v.ptr, v.len)",
            "a bulk string" },
        double = { { "int proto", "double v" }, "rg_out_double_size(proto, v, false)",
            "rg_out_double(dst, proto, v, false)", "a double (Redis 7.0's %.17g form)" },
        bulks = { { "int proto", "size_t n", "const rg_view *v" }, "rg_out_bulks_size(proto, n, v)",
            "rg_out_bulks(dst, proto, n, v)", "an array of bulk strings (NULL ptr: null)" },
    }
    if shape == "bulk_or_null" then
        return table.concat({
            "/* " .. name .. "'s reply: a bulk string, or null when v.ptr is NULL. */",
            "static inline size_t " .. fn .. "_reply_size(int proto, rg_view v) {",
            "    return v.ptr ? rg_bulk_size(v.len) : rg_out_null(proto).len;",
            "}",
            "static inline char *" .. fn .. "_reply(char *dst, int proto, rg_view v) {",
            "    const rg_view null = rg_out_null(proto);",
            "    return v.ptr ? rg_put_bulk(dst, v.ptr, v.len) : rg_put_raw(dst, null.ptr, null.len);",
            "}",
        }, "\n")
    end
    local t = T[shape]
    return table.concat({
        "/* " .. name .. "'s reply: " .. t[4] .. ". */",
        signature("static inline size_t " .. fn .. "_reply_size", t[1], " {"),
        "    return " .. t[2] .. ";",
        "}",
        signature("static inline char *" .. fn .. "_reply", { "char *dst", table.unpack(t[1]) },
            " {"),
        "    return " .. t[3] .. ";",
        "}",
    }, "\n")
end

local function header_text(model, cmds)
    local P, p = model.PREFIX, model.prefix
    local out = {}
    local function add(s) out[#out + 1] = s end
    add(banner(model))
    local guard = P .. "_SERVER_H"
    add("#ifndef " .. guard)
    add("#define " .. guard)
    add("")
    add("#include \"rg_args.h\"")
    add("#include \"rg_out.h\"")
    add("")
    add("#include <stddef.h>")
    add("#include <stdint.h>")
    add("")
    add("/* Command ids; " .. P .. "_SRV_NONE is \"no such command\". */")
    add("typedef enum " .. p .. "_srv_cmd {")
    add("    " .. P .. "_SRV_NONE = 0,")
    for _, c in ipairs(cmds) do add("    " .. c.enum .. ",") end
    add("    " .. P .. "_SRV_NCMDS")
    add("} " .. p .. "_srv_cmd;")
    for _, c in ipairs(cmds) do
        if c.parsed and #c.fields > 0 then
            add("")
            for _, consts in ipairs(c.consts) do
                add("enum {")
                for _, k in ipairs(consts) do add("    " .. k[1] .. " = " .. k[2] .. ",") end
                add("};")
            end
            add("/* " .. c.name:upper():gsub("|", " ") .. ": views borrow the request's argv. */")
            add("typedef struct " .. c.struct .. " {")
            for _, f in ipairs(c.fields) do
                local sp = f[1]:sub(-1) == "*" and "" or " "
                if f[3] then add("    /* " .. f[3] .. " */") end
                add("    " .. f[1] .. sp .. f[2] .. ";")
            end
            add("} " .. c.struct .. ";")
        end
    end
    add("")
    add("/* The typed arguments of any parsed command; the member is named after the command. */")
    add("typedef union " .. p .. "_srv_args {")
    add("    char none_;")
    for _, c in ipairs(cmds) do
        if c.parsed and #c.fields > 0 then add("    " .. c.struct .. " " .. c.member .. ";") end
    end
    add("} " .. p .. "_srv_args;")
    add("")
    add("typedef struct " .. p .. "_srv_command {")
    add("    /* Redis' lower-case name: \"set\", \"command|count\" */")
    add("    const char *name;")
    add("    /* Redis' arity: > 0 exact, < 0 at least -arity words */")
    add("    int arity;")
    add("    /* NULL: raw, the handler reads argv */")
    add("    const rg_arg_spec *args;")
    add("} " .. p .. "_srv_command;")
    add("")
    add("extern const " .. p .. "_srv_command " .. p .. "_srv_commands[" .. P .. "_SRV_NCMDS];")
    add("")
    add("/* Reply encoders follow for the commands whose reply schema maps onto one rg_out writer;")
    add(" * each _reply_size returns exactly what its _reply writes. */")
    add("")
    add("/* The command named by a request's first word (case-insensitive), or " .. P ..
        "_SRV_NONE.")
    add(" * Containers (COMMAND, CLIENT, ...) resolve to their own id; " .. p ..
        "_srv_parse goes on to")
    add(" * the subcommand. _switch and _hash are the two generated forms; lookup is the faster. */")
    add(p .. "_srv_cmd " .. p .. "_srv_lookup(const char *name, size_t len);")
    add(p .. "_srv_cmd " .. p .. "_srv_lookup_switch(const char *name, size_t len);")
    add(p .. "_srv_cmd " .. p .. "_srv_lookup_hash(const char *name, size_t len);")
    add("")
    add("/* Resolves a request (argc >= 1) to its command, subcommand included, checks the arity and")
    add(" * parses the typed arguments into *args (views borrow argv). Returns the id, or " .. P ..
        "_SRV_NONE")
    add(" * with Redis' error text in *err (unknown command or subcommand, arity, syntax, number). */")
    add(signature(p .. "_srv_cmd " .. p .. "_srv_parse", { "size_t argc", "const rg_view *argv",
        p .. "_srv_args *args", "rg_errbuf *err" }, ";"))
    for _, c in ipairs(cmds) do
        if c.reply_shape then
            add("")
            add(reply_text(c, c.fn))
        end
    end
    add("")
    add("#endif")
    return join(out) .. "\n"
end

-- Items packed greedily as clang-format bin-packs a braced list: prefix .. "a, b," then
-- continuation lines at indent; close follows the last item.
local function pack(prefix, items, indent, close)
    local lines, line = {}, prefix .. items[1]
    for i = 2, #items do
        local extra = (i == #items) and #close or 1
        if #line:match("[^\n]*$") + 2 + #items[i] + extra > 100 then
            lines[#lines + 1] = line .. ","
            line = indent .. items[i]
        else
            line = line .. ", " .. items[i]
        end
    end
    lines[#lines + 1] = line .. close
    return join(lines)
end

local function node_init(n, struct)
    local set = n.set and ("offsetof(" .. struct .. ", " .. n.set .. ")") or "RG_ARG_NO_OFF"
    local value = n.value and ("offsetof(" .. struct .. ", " .. n.value .. ")") or "0"
    local tok = n.token and c_string(n.token) or "NULL"
    return pack("    {", { tok, tostring(n.token and #n.token or 0), n.type, tostring(n.alt),
        tostring(n.group), set, value }, "     ", "},")
end

local function spec_text(c)
    local out = {}
    local function nodes(list, suffix)
        if #list == 0 then return "NULL" end
        local name = c.spec_name .. "_" .. suffix
        out[#out + 1] = "static const rg_arg_node " .. name .. "[] = {"
        for _, n in ipairs(list) do out[#out + 1] = node_init(n, c.struct) end
        out[#out + 1] = "};"
        return name
    end
    local pos = nodes(c.pos, "pos")
    local opt = nodes(c.opt, "opt")
    local rest_off, rest_count = "0", "0"
    if c.rest then
        rest_off = "offsetof(" .. c.struct .. ", " .. c.rest.field .. ")"
        rest_count = "offsetof(" .. c.struct .. ", " .. c.rest.field .. "_count)"
    end
    out[#out + 1] = "static const rg_arg_spec " .. c.spec_name .. " = {"
    out[#out + 1] = "    .pos = " .. pos .. ","
    out[#out + 1] = "    .opt = " .. opt .. ","
    out[#out + 1] = "    .npos = " .. #c.pos .. ","
    out[#out + 1] = "    .nopt = " .. #c.opt .. ","
    out[#out + 1] = "    .words = " .. #c.words .. ","
    out[#out + 1] = "    .opt_word = " .. (c.opt_word and 1 or 0) .. ","
    out[#out + 1] = "    .rest_group = " .. (c.rest and c.rest.group or 0) .. ","
    out[#out + 1] = "    .rest_off = " .. rest_off .. ","
    out[#out + 1] = "    .rest_count_off = " .. rest_count .. ","
    out[#out + 1] = "};"
    return join(out)
end

local function switch_text(p, tops)
    local by_len, lens = {}, {}
    for _, t in ipairs(tops) do
        local n = #t.name
        if not by_len[n] then by_len[n] = {} lens[#lens + 1] = n end
        table.insert(by_len[n], t)
    end
    table.sort(lens)
    local out = { p .. "_srv_cmd " .. p .. "_srv_lookup_switch(const char *name, size_t len) {",
        "    switch (len) {" }
    for _, n in ipairs(lens) do
        out[#out + 1] = "    case " .. n .. ":"
        out[#out + 1] = "        switch (name[0] | 0x20) {"
        local by_first, firsts = {}, {}
        for _, t in ipairs(by_len[n]) do
            local f = t.name:sub(1, 1)
            if not by_first[f] then by_first[f] = {} firsts[#firsts + 1] = f end
            table.insert(by_first[f], t)
        end
        table.sort(firsts)
        for _, f in ipairs(firsts) do
            out[#out + 1] = "        case '" .. f .. "':"
            for _, t in ipairs(by_first[f]) do
                local cond = "            if (" .. p .. "_srv_eq(name, " .. c_string(t.name) .. ", " ..
                    n .. "))"
                local ret = "return " .. t.cmd.enum .. ";"
                out[#out + 1] = #cond + 1 + #ret <= 100 and (cond .. " " .. ret) or
                    (cond .. "\n                " .. ret)
            end
            out[#out + 1] = "            break;"
        end
        out[#out + 1] = "        }"
        out[#out + 1] = "        break;"
    end
    out[#out + 1] = "    }"
    out[#out + 1] = "    return " .. p:upper() .. "_SRV_NONE;"
    out[#out + 1] = "}"
    return join(out)
end

local function wrap_list(items, indent)
    local lines, line = {}, indent
    for i, it in ipairs(items) do
        local piece = it .. ","
        if #line + #piece + 1 > 100 then
            lines[#lines + 1] = line
            line = indent .. piece
        else
            line = (line == indent) and (line .. piece) or (line .. " " .. piece)
        end
    end
    lines[#lines + 1] = line
    return join(lines)
end

local function hash_text(model, tops)
    local p, P = model.prefix, model.PREFIX
    local names = {}
    for i, t in ipairs(tops) do names[i] = t.name end
    local ph = perfect_hash(names)
    local seeds, slots = {}, {}
    for b = 0, ph.nb - 1 do seeds[#seeds + 1] = tostring(ph.seeds[b]) .. "u" end
    for s = 0, (1 << ph.bits) - 1 do
        local i = ph.slots[s]
        slots[#slots + 1] = i and tops[i].cmd.enum or (P .. "_SRV_NONE")
    end
    -- clang-format would bin-pack or column-align these depending on their contents.
    local out = {
        "/* clang-format off */",
        "static const uint32_t " .. p .. "_srv_hash_seeds[" .. ph.nb .. "] = {",
        wrap_list(seeds, "    "),
        "};",
        "",
        "static const uint16_t " .. p .. "_srv_hash_slots[" .. (1 << ph.bits) .. "] = {",
        wrap_list(slots, "    "),
        "};",
        "/* clang-format on */",
        "",
        p .. "_srv_cmd " .. p .. "_srv_lookup_hash(const char *name, size_t len) {",
        "    uint32_t h = 2166136261u;",
        "    for (size_t i = 0; i < len; i++) {",
        "        const unsigned char c = (unsigned char)name[i];",
        "        h = (h ^ (c >= 'A' && c <= 'Z' ? c | 0x20u : c)) * 16777619u;",
        "    }",
        "    const uint32_t seed = " .. p .. "_srv_hash_seeds[h & " .. (ph.nb - 1) .. "u];",
        "    const uint32_t slot = ((h ^ seed) * 0x9E3779B1u) >> " .. (32 - ph.bits) .. ";",
        "    const " .. p .. "_srv_cmd id = (" .. p .. "_srv_cmd)" .. p .. "_srv_hash_slots[slot];",
        "    const char *want = " .. p .. "_srv_commands[id].name;",
        "    if (id == " .. P .. "_SRV_NONE || strlen(want) != len) return " .. P .. "_SRV_NONE;",
        "    return " .. p .. "_srv_eq(name, want, len) ? id : " .. P .. "_SRV_NONE;",
        "}",
    }
    return join(out)
end

local function sub_lookup_text(p, P, tops)
    local out = { "/* The subcommand argv[1] of container id, or " .. P .. "_SRV_NONE. */",
        "static " .. p .. "_srv_cmd " .. p .. "_srv_sub(" .. p ..
        "_srv_cmd id, rg_view word) {",
        "    switch (id) {" }
    for _, t in ipairs(tops) do
        if t.cmd.subs and #t.cmd.subs > 0 then
            out[#out + 1] = "    case " .. t.cmd.enum .. ":"
            for _, s in ipairs(t.cmd.subs) do
                local w = s.words[2]:lower()
                out[#out + 1] = "        if (word.len == " .. #w .. " && rg_eq_lower(word.ptr, " ..
                    c_string(w) .. ", " .. #w .. ")) {"
                out[#out + 1] = "            return " .. s.enum .. ";"
                out[#out + 1] = "        }"
            end
            out[#out + 1] = "        return " .. P .. "_SRV_NONE;"
        end
    end
    out[#out + 1] = "    default: return " .. P .. "_SRV_NONE;"
    out[#out + 1] = "    }"
    out[#out + 1] = "}"
    return join(out)
end

local function has_subs(p, tops)
    local out = { "static int " .. p .. "_srv_has_subs(" .. p .. "_srv_cmd id) {",
        "    switch (id) {" }
    for _, t in ipairs(tops) do
        if t.cmd.subs and #t.cmd.subs > 0 then out[#out + 1] = "    case " .. t.cmd.enum .. ":" end
    end
    if #out > 2 then out[#out] = out[#out] .. " return 1;" end
    out[#out + 1] = "    default: return 0;"
    out[#out + 1] = "    }"
    out[#out + 1] = "}"
    return join(out)
end

local function source_text(model, cmds, tops)
    local p, P = model.prefix, model.PREFIX
    local out = {}
    local function add(s) out[#out + 1] = s end
    add(banner(model))
    add("#include \"" .. model.stem .. "_server.h\"")
    add("")
    add("#include <string.h>")
    local tabled, plain, raw = 0, 0, 0
    for _, c in ipairs(cmds) do
        if not c.parsed then
            raw = raw + 1
        elseif #c.fields > 0 then
            tabled = tabled + 1
        else
            plain = plain + 1
        end
    end
    add("")
    add("/* " .. #cmds .. " commands and containers: " .. tabled .. " with argument tables, " ..
        plain .. " without arguments, " .. raw .. " raw. */")
    for _, c in ipairs(cmds) do
        if c.parsed and #c.fields > 0 then
            add("")
            add(spec_text(c))
        end
    end
    add("")
    add("const " .. p .. "_srv_command " .. p .. "_srv_commands[" .. P .. "_SRV_NCMDS] = {")
    add("    [" .. P .. "_SRV_NONE] = {\"\", 0, NULL},")
    for _, c in ipairs(cmds) do
        local spec = (c.parsed and #c.fields > 0) and ("&" .. c.spec_name) or "NULL"
        local head = "    [" .. c.enum .. "] = {"
        local items = { c_string(c.name), tostring(c.arity), spec }
        local text = pack(head, items, string.rep(" ", #head), "},")
        local longest = 0
        for l in text:gmatch("[^\n]+") do longest = math.max(longest, #l) end
        if longest > 100 then
            text = pack("    [" .. c.enum .. "] =\n        {", items, "         ", "},")
        end
        add(text)
    end
    add("};")
    add("")
    add("/* rg_eq_lower, here so that the lookups inline it. */")
    add("static inline int " .. p .. "_srv_eq(const char *word, const char *lower, size_t n) {")
    add("    for (size_t i = 0; i < n; i++) {")
    add("        const unsigned char c = (unsigned char)word[i];")
    add("        if ((c >= 'A' && c <= 'Z' ? c | 0x20u : c) != (unsigned char)lower[i]) return 0;")
    add("    }")
    add("    return 1;")
    add("}")
    add("")
    add(switch_text(p, tops))
    add("")
    add(hash_text(model, tops))
    add("")
    add(p .. "_srv_cmd " .. p .. "_srv_lookup(const char *name, size_t len) {")
    add("    return " .. p .. "_srv_lookup_switch(name, len);")
    add("}")
    add("")
    add(has_subs(p, tops))
    add("")
    add(sub_lookup_text(p, P, tops))
    add("")
    add(signature(p .. "_srv_cmd " .. p .. "_srv_parse", { "size_t argc", "const rg_view *argv",
        p .. "_srv_args *args", "rg_errbuf *err" }, " {"))
    add("    " .. p .. "_srv_cmd id = " .. p .. "_srv_lookup(argv[0].ptr, argv[0].len);")
    add("    if (id == " .. P .. "_SRV_NONE) {")
    add("        rg_err_unknown_command(err, argc, argv);")
    add("        return " .. P .. "_SRV_NONE;")
    add("    }")
    add("    if (argc >= 2 && " .. p .. "_srv_has_subs(id)) {")
    add("        const " .. p .. "_srv_cmd sub = " .. p .. "_srv_sub(id, argv[1]);")
    add("        if (sub == " .. P .. "_SRV_NONE) {")
    add("            rg_err_unknown_subcommand(err, argv[0], argv[1]);")
    add("            return " .. P .. "_SRV_NONE;")
    add("        }")
    add("        id = sub;")
    add("    }")
    add("    const " .. p .. "_srv_command *c = &" .. p .. "_srv_commands[id];")
    add("    if (!rg_arity_ok(c->arity, argc)) {")
    add("        rg_err_arity(err, c->name);")
    add("        return " .. P .. "_SRV_NONE;")
    add("    }")
    add("    if (!c->args) return id;")
    add("    memset(args, 0, sizeof *args);")
    add("    return rg_args_parse(c->args, c->name, argc, argv, args, err) ? id : " .. P ..
        "_SRV_NONE;")
    add("}")
    return join(out) .. "\n"
end

function M.emit(model, opts)
    if not opts.server or opts.header_only then return {} end
    local cmds, tops = build_all(model)
    return {
        { suffix = "_server.h", text = header_text(model, cmds) },
        { suffix = "_server.c", text = source_text(model, cmds, tops) },
    }
end

return M
