-- The server half of a codec (respgen --server): <stem>_server.h/.c with
--   - an enum of command ids (subcommands included, containers too),
--   - two lookups from a request's first word to an id, both case-insensitive as Redis: a
--     generated switch on length and first letter, and a perfect hash (hash and displace over
--     FNV-1a of the lower-cased name); <prefix>_srv_lookup is the switch, which measured faster
--     on the full Redis command set (docs/server.md),
--   - per command an argument struct and the rg_arg_spec table that rg_args_parse fills it from,
--   - <prefix>_srv_parse: argv -> command id + typed arguments, or Redis' error text,
--   - reply encoders from the reply schemas (server_reply.lua).
-- The argument tables are compiled by server_args.lua; this file renders them.

local cstr = require("cstr")
local frame = require("frame")
local layout = require("layout")
local server_args = require("server_args")
local server_reply = require("server_reply")

local M = {}

M.options = {
    ["--server"] = { field = "server" },
}

local c_string = cstr.literal

-- Reply encoders: which schemas get one and their C text live in server_reply.lua.
local reply_shape = server_reply.shape

local function build_cmd(cm, prefix, PREFIX)
    local id = cm.id
    local cmd = {
        name = table.concat(cm.words, "|"):lower(), words = cm.words, arity = cm.arity,
        enum = PREFIX .. "_SRV_" .. cm.ID, MACRO = PREFIX .. "_SRV_" .. cm.ID,
        struct = prefix .. "_srv_" .. id .. "_args", member = id, spec_name = prefix .. "_srv_" ..
            id .. "_spec", fields = {}, segs = {}, consts = {},
    }
    cmd.reply = cm.reply_schema
    cmd.syntax_error, cmd.late_numbers = cm.syntax_error, cm.late_numbers
    cmd.reply_shape = reply_shape(cm.reply_schema, cm.group, cm.reply_string)
    cmd.fn = prefix .. "_srv_" .. id
    cmd.parsed = server_args.compile(cm, cmd)
    if not cmd.parsed then
        cmd.fields, cmd.segs, cmd.consts = {}, {}, {}
    end
    return cmd
end

-- Commands and containers, sorted by name, and the top-level entries; a container (the model's
-- containers: a first word that is no command of its own) gets an entry (arity -2, raw).
local function build_all(model)
    local prefix, PREFIX = model.prefix, model.PREFIX
    local container = {}
    for _, ct in ipairs(model.containers) do container[ct.words[1]:lower()] = ct end
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
            local ct = assert(container[top], "emit_server: no container " .. top)
            e.cmd = { name = top, words = { top }, arity = -2, parsed = false, container = true,
                enum = PREFIX .. "_SRV_" .. ct.ID, fields = {}, segs = {}, consts = {} }
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

-- Header text of one command's reply encoder (server_reply.lua).
local function reply_text(c, fn) return server_reply.text(c, fn, layout.signature) end

local function header_text(model, cmds)
    local P, p = model.PREFIX, model.prefix
    local out = {}
    local function add(s) out[#out + 1] = s end
    local first = { P .. "_SRV_NONE = 0" }
    for _, ct in ipairs(model.containers) do first[#first + 1] = P .. "_SRV_" .. ct.ID end
    add(layout.comment(0, "Command ids: " .. P .. "_SRV_NONE (0) for \"no such command\", the " ..
        "containers (a command of subcommands only), then one per command of " .. P ..
        "_COMMANDS (" .. model.stem .. ".h), derived from it in its order: " .. P ..
        "_SRV_<ID>."))
    add(layout.x_enum({ name = p .. "_srv_cmd", x = p .. "_srv_id_", id_prefix = P .. "_SRV_",
        first = first, list = P .. "_COMMANDS" }))
    add(table.concat(layout.macros({ { P .. "_SRV_NCMDS", "(" .. #first .. " + " .. P ..
        "_NCOMMANDS)" } }), "\n"))
    for _, c in ipairs(cmds) do
        if c.parsed and #c.fields > 0 then
            add("")
            for _, consts in ipairs(c.consts) do
                add("enum {")
                for _, k in ipairs(consts) do add("    " .. k[1] .. " = " .. k[2] .. ",") end
                add("};")
            end
            add(layout.comment(0, c.name:upper():gsub("|", " ") ..
                ": views borrow the request's argv."))
            add("typedef struct " .. c.struct .. " {")
            for _, f in ipairs(c.fields) do
                local sp = f[1]:sub(-1) == "*" and "" or " "
                if f[3] then add(layout.comment(4, f[3])) end
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
        if c.parsed and #c.fields > 0 then
            -- (A declaration too long breaks before the member's name, one continuation in.)
            local one = "    " .. c.struct .. " " .. c.member .. ";"
            add(layout.fits(one) and one or ("    " .. c.struct .. "\n        " .. c.member .. ";"))
        end
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
    add(layout.array_decl("extern const " .. p .. "_srv_command", p .. "_srv_commands",
        P .. "_SRV_NCMDS", ";"))
    add("")
    add("/* Reply encoders follow for the commands whose reply schema names one exact form;")
    add(" * each _reply_size returns exactly what its _reply writes. */")
    add("")
    add(layout.comment(0, "The command named by a request's first word (case-insensitive), or " ..
        P .. "_SRV_NONE. Containers (COMMAND, CLIENT, ...) resolve to their own id; " .. p ..
        "_srv_parse goes on to the subcommand. _switch and _hash are the two generated forms; " ..
        "lookup is the faster."))
    for _, form in ipairs({ "", "_switch", "_hash" }) do
        add(layout.signature(p .. "_srv_cmd " .. p .. "_srv_lookup" .. form,
            { "const char *name", "size_t len" }, ";"))
    end
    add("")
    add(layout.comment(0, "Resolves a request (argc >= 1) to its command, subcommand included, " ..
        "checks the arity and parses the typed arguments into *args (views borrow argv). " ..
        "Returns the id, or " .. P .. "_SRV_NONE with Redis' error text in *err (unknown " ..
        "command or subcommand, arity, syntax, number)."))
    add(layout.signature(p .. "_srv_cmd " .. p .. "_srv_parse", { "size_t argc",
        "const rg_view *argv", p .. "_srv_args *args", "rg_errbuf *err" }, ";"))
    for _, c in ipairs(cmds) do
        if c.reply_shape then
            add("")
            add(reply_text(c, c.fn))
        end
    end
    return frame.header({
        model = model, suffix = "_server.h", what = "request dispatch (--server)",
        includes = { model.stem .. ".h", "rg_args.h", "rg_out.h" },
        system = { "stddef.h", "stdint.h" },
        body = join(out),
    })
end

-- The head "<typ> <name><dims> = {" of a table (dims "[]", or false for no array) and the
-- indentation of its rows: one continuation further in when the head breaks before the name.
local function table_head(typ, name, dims)
    local head = layout.array_decl(typ, name, dims, " = {")
    return head, string.rep(" ", head:find("\n", 1, true) and 2 * layout.INDENT or layout.INDENT)
end

-- "<typ> <name> = {" and one initializer per line; the trailing comma keeps clang-format there.
local function one_per_line(typ, name, items)
    local head, ind = table_head(typ, name, false)
    local lines = {}
    for k, item in ipairs(items) do lines[k] = layout.initializer(#ind, item, ",") end
    return head .. "\n" .. ind .. table.concat(lines, ",\n" .. ind) .. ",\n};"
end

local SYNTAX_STYLE = { plain = "RG_SYNTAX_PLAIN", subcommand = "RG_SYNTAX_SUBCOMMAND",
    arity = "RG_SYNTAX_ARITY" }

local function offset(struct, field)
    return field and ("offsetof(" .. struct .. ", " .. field .. ")") or "RG_ARG_NO_OFF"
end

-- Designated initializers of the fields that are not zero (offsets that are absent are
-- RG_ARG_NO_OFF, since 0 is an offset).
local function node_init(n, struct, choices, check, ind)
    local items = {}
    if n.token then
        items[#items + 1] = ".token = " .. c_string(n.token)
        items[#items + 1] = ".token_len = " .. #n.token
    end
    if choices then items[#items + 1] = ".choices = " .. choices end
    if check then items[#items + 1] = ".check = &" .. check end
    if n.type ~= "RG_ARG_NONE" then items[#items + 1] = ".type = " .. n.type end
    if n.alt ~= 0 then items[#items + 1] = ".alt = " .. n.alt end
    if n.group ~= 0 then items[#items + 1] = ".group = " .. n.group end
    if n.more ~= 0 then items[#items + 1] = ".more = " .. n.more end
    if n.flags ~= 0 then items[#items + 1] = ".flags = " .. n.flags end
    items[#items + 1] = ".set_off = " .. offset(struct, n.set)
    if n.value then items[#items + 1] = ".value_off = " .. offset(struct, n.value) end
    if n.count then items[#items + 1] = ".count_off = " .. offset(struct, n.count) end
    return layout.designated(ind .. "{", items, "},")
end

local function seg_init(seg, struct, nodes_name, first, ind)
    local items = { ".kind = " .. seg.kind }
    if #(seg.nodes or {}) > 0 then
        items[#items + 1] = ".nodes = &" .. nodes_name .. "[" .. first .. "]"
        items[#items + 1] = ".n = " .. #seg.nodes
    end
    if seg.group then items[#items + 1] = ".group = " .. seg.group end
    if seg.skip then items[#items + 1] = ".skip = " .. seg.skip end
    if seg.min and seg.min ~= 0 then items[#items + 1] = ".min = " .. seg.min end
    if seg.optional_before then items[#items + 1] = ".optional_before = 1" end
    if seg.min_after ~= 0 then items[#items + 1] = ".min_after = " .. seg.min_after end
    items[#items + 1] = ".set_off = " .. offset(struct, seg.set)
    if seg.value then items[#items + 1] = ".value_off = " .. offset(struct, seg.value) end
    if seg.count then items[#items + 1] = ".count_off = " .. offset(struct, seg.count) end
    items[#items + 1] = ".counted_by = " .. offset(struct, seg.counted_by)
    if seg.error then items[#items + 1] = ".error = " .. c_string(seg.error) end
    return layout.designated(ind .. "{", items, "},")
end

local function spec_text(c)
    local out = {}
    local all, first = {}, {}
    for s, seg in ipairs(c.segs) do
        first[s] = #all
        for _, n in ipairs(seg.nodes or {}) do all[#all + 1] = n end
    end
    local choice_names, check_names, choice_arrays = {}, {}, {}
    for k, n in ipairs(all) do
        if n.check then
            local name = c.fn .. "_check" .. (k - 1)
            local items = {}
            if n.check.invalid then
                items[#items + 1] = ".invalid = " .. c_string(n.check.invalid)
            end
            if n.check.min_error then
                items[#items + 1] = ".min_error = " .. c_string(n.check.min_error)
                items[#items + 1] = ".min = " .. n.check.min
            end
            out[#out + 1] = one_per_line("static const rg_arg_check", name, items)
            check_names[k] = name
        end
        local key = n.choices and table.concat(n.choices, "\0")
        if key and choice_arrays[key] then
            choice_names[k] = choice_arrays[key]
        elseif n.choices then
            local name = c.fn .. "_choices" .. (k - 1)
            choice_arrays[key] = name
            local items = {}
            for _, w in ipairs(n.choices) do items[#items + 1] = c_string(w) end
            items[#items + 1] = "NULL"
            -- A head too long breaks as array_decl breaks it; the list follows its last line.
            local head = layout.array_decl("static const char *const", name, "", " = {")
            local above, last = head:match("^(.*\n)([^\n]*)$")
            out[#out + 1] = (above or "") .. layout.braced(last or head, items, "};")
            choice_names[k] = name
        end
    end
    local nodes_name = c.fn .. "_nodes"
    if #all > 0 then
        local head, ind = table_head("static const rg_arg_node", nodes_name, "")
        out[#out + 1] = head
        for k, n in ipairs(all) do
            out[#out + 1] = node_init(n, c.struct, choice_names[k], check_names[k], ind)
        end
        out[#out + 1] = "};"
    end
    local head, ind = table_head("static const rg_arg_seg", c.fn .. "_segs", "")
    out[#out + 1] = head
    for s, seg in ipairs(c.segs) do
        out[#out + 1] = seg_init(seg, c.struct, nodes_name, first[s], ind)
    end
    out[#out + 1] = "};"
    local spec = { ".segs = " .. c.fn .. "_segs", ".nsegs = " .. #c.segs, ".words = " .. #c.words }
    local style = SYNTAX_STYLE[c.syntax_error or "plain"]
    if not style then
        style = "RG_SYNTAX_TEXT"
        spec[#spec + 1] = ".syntax_text = " .. c_string(c.syntax_error)
    end
    if style ~= "RG_SYNTAX_PLAIN" then table.insert(spec, 4, ".syntax = " .. style) end
    if c.late_numbers then spec[#spec + 1] = ".late_numbers = 1" end
    out[#out + 1] = one_per_line("static const rg_arg_spec", c.spec_name, spec)
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
    local out = { layout.signature(p .. "_srv_cmd " .. p .. "_srv_lookup_switch",
        { "const char *name", "size_t len" }, " {"), "    switch (len) {" }
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
                local cond = "            if (" .. p .. "_srv_eq(name, " .. c_string(t.name) ..
                    ", " .. n .. "))"
                local ret = "return " .. t.cmd.enum .. ";"
                out[#out + 1] = layout.fits(cond .. " " .. ret) and (cond .. " " .. ret) or
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
        layout.wrap_items(seeds, "    "),
        "};",
        "",
        "static const uint16_t " .. p .. "_srv_hash_slots[" .. (1 << ph.bits) .. "] = {",
        layout.wrap_items(slots, "    "),
        "};",
        "/* clang-format on */",
        "",
        layout.signature(p .. "_srv_cmd " .. p .. "_srv_lookup_hash",
            { "const char *name", "size_t len" }, " {"),
        "    uint32_t h = 2166136261u;",
        "    for (size_t i = 0; i < len; i++) {",
        "        const unsigned char c = (unsigned char)name[i];",
        "        h = (h ^ (c >= 'A' && c <= 'Z' ? c | 0x20u : c)) * 16777619u;",
        "    }",
        "    const uint32_t seed = " .. p .. "_srv_hash_seeds[h & " .. (ph.nb - 1) .. "u];",
        "    const uint32_t slot = ((h ^ seed) * 0x9E3779B1u) >> " .. (32 - ph.bits) .. ";",
        -- (Shapes that no prefix makes clang-format break: braced ifs, short right sides.)
        layout.assign(4, "const " .. p .. "_srv_cmd id", p .. "_srv_hash_slots[slot]"),
        "    const char *want = " .. p .. "_srv_commands[id].name;",
        "    if (id == " .. P .. "_SRV_NONE || strlen(want) != len) {",
        "        return " .. P .. "_SRV_NONE;",
        "    }",
        "    if (!" .. p .. "_srv_eq(name, want, len)) {",
        "        return " .. P .. "_SRV_NONE;",
        "    }",
        "    return id;",
        "}",
    }
    return join(out)
end

local function sub_lookup_text(p, P, tops)
    local out = { layout.comment(0, "The subcommand argv[1] of container id, or " .. P ..
        "_SRV_NONE."), layout.signature("static " .. p .. "_srv_cmd " .. p .. "_srv_sub",
        { p .. "_srv_cmd id", "rg_view word" }, " {") }
    local any = false
    for _, t in ipairs(tops) do any = any or (t.cmd.subs and #t.cmd.subs > 0) end
    if not any then out[#out + 1] = "    (void)word; /* a spec without subcommands */" end
    out[#out + 1] = "    switch (id) {"
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
    local out = { layout.signature("static int " .. p .. "_srv_has_subs", { p .. "_srv_cmd id" },
        " {"), "    switch (id) {" }
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
    add("/* " .. #cmds .. " commands and containers: " .. tabled .. " with argument tables, " ..
        plain .. " without arguments, " .. raw .. " raw. */")
    for _, c in ipairs(cmds) do
        if c.parsed and #c.fields > 0 then
            add("")
            add(spec_text(c))
        end
    end
    add("")
    -- The size comes from the initializers (every id has one) and must agree with the header's.
    local def = layout.array_decl("const " .. p .. "_srv_command", p .. "_srv_commands", "",
        " = {")
    -- A definition broken before its name puts the entries one continuation further in.
    local ind = def:find("\n", 1, true) and 2 * layout.INDENT or layout.INDENT
    add(def)
    add(string.rep(" ", ind) .. "[" .. P .. "_SRV_NONE] = {\"\", 0, NULL},")
    for _, c in ipairs(cmds) do
        local spec = (c.parsed and #c.fields > 0) and ("&" .. c.spec_name) or "NULL"
        local items = { c_string(c.name), tostring(c.arity), spec }
        local head = string.rep(" ", ind) .. "[" .. c.enum .. "] = {"
        local text = layout.pack(head, items, string.rep(" ", #head), "},")
        local longest = 0
        for l in text:gmatch("[^\n]+") do longest = math.max(longest, #l) end
        if longest > layout.LIMIT then
            local cont = string.rep(" ", ind + layout.INDENT)
            text = layout.pack(head:sub(1, -3) .. "\n" .. cont .. "{", items, cont .. " ", "},")
        end
        add(text)
    end
    add("};")
    add("")
    add("/* rg_eq_lower, here so that the lookups inline it. */")
    add(layout.signature("static inline int " .. p .. "_srv_eq",
        { "const char *word", "const char *lower", "size_t n" }, " {"))
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
    add(layout.signature(p .. "_srv_cmd " .. p .. "_srv_lookup",
        { "const char *name", "size_t len" }, " {"))
    add("    return " .. p .. "_srv_lookup_switch(name, len);")
    add("}")
    add("")
    add(has_subs(p, tops))
    add("")
    add(sub_lookup_text(p, P, tops))
    add("")
    add(layout.signature(p .. "_srv_cmd " .. p .. "_srv_parse", { "size_t argc",
        "const rg_view *argv", p .. "_srv_args *args", "rg_errbuf *err" }, " {"))
    add(layout.call({ indent = 4, lead = p .. "_srv_cmd id = ", name = p .. "_srv_lookup",
        args = { "argv[0].ptr", "argv[0].len" }, tail = ");" }))
    add("    if (id == " .. P .. "_SRV_NONE) {")
    add("        rg_err_unknown_command(err, argc, argv);")
    add("        return " .. P .. "_SRV_NONE;")
    add("    }")
    add("    if (argc >= 2 && " .. p .. "_srv_has_subs(id)) {")
    add(layout.call({ indent = 8, lead = "const " .. p .. "_srv_cmd sub = ", name = p .. "_srv_sub",
        args = { "id", "argv[1]" }, tail = ");" }))
    add("        if (sub == " .. P .. "_SRV_NONE) {")
    add("            rg_err_unknown_subcommand(err, argv[0], argv[1]);")
    add("            return " .. P .. "_SRV_NONE;")
    add("        }")
    add("        id = sub;")
    add("    }")
    add(layout.assign(4, "const " .. p .. "_srv_command *c", "&" .. p .. "_srv_commands[id]"))
    add("    if (!rg_arity_ok(c->arity, argc)) {")
    add("        rg_err_arity(err, c->name);")
    add("        return " .. P .. "_SRV_NONE;")
    add("    }")
    add("    if (!c->args) return id;")
    add("    memset(args, 0, sizeof *args);")
    add("    if (rg_args_parse(c->args, c->name, argc, argv, args, err) != RG_OK) {")
    add("        return " .. P .. "_SRV_NONE;")
    add("    }")
    add("    return id;")
    add("}")
    return frame.source({ model = model, suffix = "_server.c", what = "request dispatch (--server)",
        system = { "string.h" }, body = join(out) })
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
