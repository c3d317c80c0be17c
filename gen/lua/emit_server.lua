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
local server_reply = require("server_reply")

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
-- Argument tables: the spec's argument tree compiled into rg_args segments (rg_args.h). A
-- command whose tree has a shape the segments cannot express (a token repeated before every
-- value, a oneof of blocks inside a repeated block, a run of words whose length only the
-- command's own code knows) gets no table: it is raw.

local function is_pure(a) return a.kind == "pure-token" end

local function all_pure(a)
    for _, c in ipairs(a.args) do
        if not is_pure(c) or c.optional or c.multiple then return false end
    end
    return true
end

-- The lower-case words of a oneof of pure tokens.
local function choices_of(a)
    local t = {}
    for _, c in ipairs(a.args) do t[#t + 1] = c.token:lower() end
    return t
end

-- A struct member; false when the name is taken (two arguments flatten to one name).
local function add_field(cmd, ctype, name, comment)
    if cmd.field_names[name] then return false end
    cmd.field_names[name] = true
    cmd.fields[#cmd.fields + 1] = { ctype, name, comment }
    return true
end

local function field_name(prefix, a)
    if prefix == "" then return naming.member(a.name) end
    return prefix .. "_" .. naming.ident(a.name)
end

-- Enumerators for the alternatives of a oneof stored as an int at `field`.
local function add_consts(cmd, field, alts)
    local consts = {}
    for i, alt in ipairs(alts) do
        consts[#consts + 1] = { cmd.MACRO .. "_" .. naming.upper(field) .. "_" ..
            naming.upper(naming.ident(alt.name)), i }
    end
    cmd.consts[#cmd.consts + 1] = consts
end

local function new_node(token, ntype, value)
    return { token = token and token:lower(), type = ntype, alt = 0, group = 0, more = 0,
        flags = 0, value = value }
end

-- The argument's own error texts and minimum (spec options invalid, min, min_error), or nil.
local function check_of(a)
    if not a.invalid and not a.min_error then return nil end
    return { invalid = a.invalid, min = a.min or 0, min_error = a.min_error }
end

-- The nodes of an argument that takes a fixed run of words: a scalar, a pure token, a oneof of
-- pure tokens (one word, stored as the 1-based choice), or a block of such (a token of the
-- block goes on its first node). Adds the value fields; nil when the argument is no such run.
local function run_of(a, cmd, name)
    if a.optional or a.multiple then return nil end
    if is_pure(a) then return { new_node(a.token, "RG_ARG_NONE") } end
    local t, ctype = arg_type(a)
    if t then
        if not add_field(cmd, ctype, name) then return nil end
        local n = new_node(a.token, t, name)
        n.check, n.count_error = check_of(a), a.count_error
        return { n }
    end
    if a.kind == "oneof" and all_pure(a) then
        if not add_field(cmd, "int", name, "one of " .. cmd.MACRO .. "_" .. naming.upper(name) ..
            "_*") then
            return nil
        end
        add_consts(cmd, name, a.args)
        local n = new_node(a.token, "RG_ARG_CHOICE", name)
        n.choices, n.check = choices_of(a), check_of(a)
        return { n }
    end
    if a.kind ~= "block" then return nil end
    local nodes = {}
    if a.token then nodes[1] = new_node(a.token, "RG_ARG_NONE") end
    for _, c in ipairs(a.args) do
        local sub = run_of(c, cmd, name .. "_" .. naming.ident(c.name))
        if not sub then return nil end
        for _, n in ipairs(sub) do nodes[#nodes + 1] = n end
    end
    -- A leading pure token followed by an untokened value becomes one node: LIMIT offset.
    if #nodes >= 2 and nodes[1].type == "RG_ARG_NONE" and nodes[1].token and
        not nodes[2].token and nodes[2].type ~= "RG_ARG_NONE" then
        nodes[2].token = nodes[1].token
        table.remove(nodes, 1)
    end
    return nodes
end

local function head(nodes)
    nodes[1].more = #nodes - 1
    return nodes
end

local function words_of(nodes)
    local n = 0
    for _, x in ipairs(nodes) do
        n = n + (x.token and 1 or 0) + (x.type ~= "RG_ARG_NONE" and 1 or 0)
    end
    return n
end

local compile_seq, compile_choice

-- A block led by a required oneof of pure tokens (XADD's and XTRIM's MAXLEN|MINID [=|~]
-- threshold [LIMIT count]).
local function leads_with_choice(a)
    local first = a.args[1]
    return first and first.kind == "oneof" and not first.optional and not first.multiple and
        all_pure(first)
end

local add_option, add_parts

-- A choice-led block as options: each token of the lead heads a run of the block's required
-- parts (an optional oneof of pure tokens among them is a word that may be left out), and the
-- block's optional tokened parts are options of their own. So Redis' any-order loop over
-- MAXLEN, LIMIT and NOMKSTREAM is what the set accepts; LIMIT without MAXLEN is the command's
-- own check.
local function add_choice_led(a, cmd, name, heads, ctx)
    local lead = a.args[1]
    local field = name .. "_" .. naming.ident(lead.name)
    if not add_field(cmd, "int", field, "0 or one of " .. cmd.MACRO .. "_" ..
        naming.upper(field) .. "_*") then
        return false
    end
    add_consts(cmd, field, lead.args)
    ctx.groups = ctx.groups + 1
    local group, tail, rest = ctx.groups, {}, {}
    for k = 2, #a.args do
        local c = a.args[k]
        local cname = name .. "_" .. naming.ident(c.name)
        if c.optional and c.token then
            rest[#rest + 1] = { c, cname }
        elseif c.optional and c.kind == "oneof" and all_pure(c) and #rest == 0 then
            local nodes = run_of(setmetatable({ optional = false }, { __index = c }), cmd, cname)
            if not nodes then return false end
            nodes[1].flags = "RG_ARG_MAYBE"
            cmd.fields[#cmd.fields][3] = "0 (left out) or one of " .. cmd.MACRO .. "_" ..
                naming.upper(cname) .. "_*"
            tail[#tail + 1] = nodes[1]
        elseif not c.optional and #rest == 0 then
            local nodes = run_of(c, cmd, cname)
            if not nodes or nodes[1].token then return false end
            for _, n in ipairs(nodes) do tail[#tail + 1] = n end
        else
            return false
        end
    end
    for i, alt in ipairs(lead.args) do
        local h = new_node(alt.token, "RG_ARG_NONE")
        h.set, h.alt, h.group = field, i, group
        local run = { h }
        for _, n in ipairs(tail) do run[#run + 1] = setmetatable({}, { __index = n }) end
        heads[#heads + 1] = head(run)
    end
    for _, r in ipairs(rest) do
        if not add_option(r[1], cmd, r[2], heads, ctx) then return false end
    end
    return true
end

-- The parts args[from..] of a block `name` as options of the set (each taken as optional).
function add_parts(args, from, cmd, name, heads, ctx)
    for k = from, #args do
        local c = setmetatable({ optional = true }, { __index = args[k] })
        if not add_option(c, cmd, name .. "_" .. naming.ident(c.name), heads, ctx) then
            return false
        end
    end
    return true
end

-- One optional argument as options-set heads (appended to `heads`); false when it is not
-- option-like (every word it takes starts with a token).
function add_option(a, cmd, name, heads, ctx)
    if a.multiple_token then return false end
    if a.multiple then
        local t = arg_type(a)
        if not a.token or not t or t == "RG_ARG_NONE" then return false end
        if not (add_field(cmd, "int", "has_" .. name) and
                add_field(cmd, "const rg_view *", name, "the words after " .. a.token) and
                add_field(cmd, "size_t", name .. "_count")) then
            return false
        end
        local n = new_node(a.token, "RG_ARG_NONE", name)
        n.flags, n.set, n.count = "RG_ARG_MULTI", "has_" .. name, name .. "_count"
        heads[#heads + 1] = { n }
        return true
    end
    if a.kind == "oneof" and not a.token then
        ctx.groups = ctx.groups + 1
        if not add_field(cmd, "int", name, "0 or one of " .. cmd.MACRO .. "_" ..
            naming.upper(name) .. "_*") then
            return false
        end
        add_consts(cmd, name, a.args)
        for i, alt in ipairs(a.args) do
            if not alt.token and not (alt.kind == "block" and alt.args[1] and alt.args[1].token) then
                return false
            end
            local nodes = run_of(alt, cmd, name .. "_" .. naming.ident(alt.name))
            if not nodes or not nodes[1].token then return false end
            nodes[1].set, nodes[1].alt, nodes[1].group = name, i, ctx.groups
            heads[#heads + 1] = head(nodes)
        end
        return true
    end
    if a.kind == "block" and not a.token and leads_with_choice(a) then
        return add_choice_led(a, cmd, name, heads, ctx)
    end
    if a.kind == "block" and not a.token then
        -- COUNT n [ANY]: its parts become options of the set (ANY alone is then accepted: the
        -- command's own check, as Redis' "the ANY argument requires COUNT argument").
        if not a.args[1] or not a.args[1].token then return false end
        for k = 2, #a.args do
            if not a.args[k].optional then return false end
        end
        return add_parts(a.args, 1, cmd, name, heads, ctx)
    end
    if not a.token then return false end
    if a.kind == "block" and a.args[#a.args].optional and a.args[#a.args].token then
        -- TO host port [FORCE]: the run without its optional tokened tail, which joins the set
        local n = #a.args
        while n > 0 and a.args[n].optional and a.args[n].token do n = n - 1 end
        local trimmed = setmetatable({ args = { table.unpack(a.args, 1, n) } }, { __index = a })
        return add_option(trimmed, cmd, name, heads, ctx) and
            add_parts(a.args, n + 1, cmd, name, heads, ctx)
    end
    local required = setmetatable({ optional = false }, { __index = a })
    local at = #cmd.fields + 1
    local nodes = run_of(required, cmd, name)
    if not nodes then return false end
    if nodes[1].type == "RG_ARG_NONE" and #nodes == 1 then
        if not add_field(cmd, "int", name, "1 when " .. a.token .. " was given") then return false end
        nodes[1].set = name
    elseif nodes[1].type ~= "RG_ARG_CHOICE" or #nodes > 1 then
        -- the presence flag goes before the values it guards
        if not add_field(cmd, "int", "has_" .. name) then return false end
        table.insert(cmd.fields, at, table.remove(cmd.fields))
        nodes[1].set = "has_" .. name
    end
    heads[#heads + 1] = head(nodes)
    return true
end

local function flatten(heads)
    local nodes = {}
    for _, h in ipairs(heads) do
        for _, n in ipairs(h) do nodes[#nodes + 1] = n end
    end
    return nodes
end

-- A run of consecutive optional arguments from args[i]: an OPTIONS segment over the longest run
-- that is option-like. Returns the index after it, or nil.
-- A required argument that starts with a token and carries values (XREADGROUP's GROUP g c), or
-- a required oneof of such (GEOSEARCH's FROMMEMBER m | FROMLONLAT lon lat): next to options,
-- Redis reads it in the same any-order loop. Pure-token oneofs (GEORADIUS' unit) stay words.
local function token_led(a)
    if a.optional or a.multiple then return false end
    local function led(x)
        if x.kind == "pure-token" then return false end
        if x.token then return true end
        return x.kind == "block" and x.args[1] and x.args[1].token and
            x.args[1].kind ~= "pure-token" and not x.args[1].optional
    end
    if a.kind == "oneof" and not a.token then
        for _, alt in ipairs(a.args) do
            if not led(alt) then return false end
        end
        return true
    end
    return led(a)
end

-- A token-led required argument as heads with RG_ARG_REQUIRED.
local function add_required(a, cmd, name, heads, ctx)
    ctx.groups = ctx.groups + 1
    local alts, set = { a }, nil
    if a.kind == "oneof" then
        alts, set = a.args, name
        if not add_field(cmd, "int", name, "one of " .. cmd.MACRO .. "_" .. naming.upper(name) ..
            "_*") then
            return false
        end
        add_consts(cmd, name, a.args)
    end
    for i, alt in ipairs(alts) do
        local nodes = run_of(alt, cmd, set and (name .. "_" .. naming.ident(alt.name)) or name)
        if not nodes or not nodes[1].token then return false end
        nodes[1].set, nodes[1].alt, nodes[1].group = set, i, ctx.groups
        nodes[1].flags = "RG_ARG_REQUIRED"
        heads[#heads + 1] = head(nodes)
    end
    return true
end

-- Whether two heads share a token (LMOVE's LEFT|RIGHT twice): such a set cannot be any-order.
local function tokens_clash(heads)
    local seen = {}
    for _, h in ipairs(heads) do
        if seen[h[1].token] then return true end
        seen[h[1].token] = true
    end
    return false
end

local function compile_options(args, i, cmd, prefix, ctx)
    -- a lone optional oneof with a text of its own (GEODIST's unit, FUNCTION FLUSH's mode) is an
    -- optional word: a wrong one gets that text, a word after it is an extra word
    if args[i].kind == "oneof" and args[i].invalid and not (args[i + 1] and args[i + 1].optional) then
        return nil
    end
    local function mark() return { #cmd.fields, #cmd.consts, ctx.groups } end
    local function undo(m)
        for k = #cmd.fields, m[1] + 1, -1 do
            cmd.field_names[cmd.fields[k][2]] = nil
            cmd.fields[k] = nil
        end
        for k = #cmd.consts, m[2] + 1, -1 do cmd.consts[k] = nil end
        ctx.groups = m[3]
    end
    local start, heads, j, optional, required = mark(), {}, i, false, false
    while args[j] and ((args[j].optional and not (args[j].multiple and not args[j].token)) or
            token_led(args[j])) do
        local m, try = mark(), {}
        local add = args[j].optional and add_option or add_required
        if not add(args[j], cmd, field_name(prefix, args[j]), try, ctx) then
            undo(m)
            break
        end
        optional = optional or args[j].optional
        required = required or not args[j].optional
        for _, h in ipairs(try) do heads[#heads + 1] = h end
        j = j + 1
    end
    -- required arguments join a set only where it has options (else they stay words)
    if j == i or not optional or tokens_clash(heads) then
        undo(start)
        return nil
    end
    cmd.segs[#cmd.segs + 1] = { kind = "RG_SEG_OPTIONS", nodes = flatten(heads),
        error = ctx.unknown_error, min = required and 1 or nil }
    return j
end

-- An optional argument that is not option-like: an IF group around its own segments.
local function compile_if(a, cmd, prefix, ctx)
    if a.multiple then return false end
    local name = field_name(prefix, a)
    if not add_field(cmd, "int", "has_" .. name) then return false end
    local seg = { kind = "RG_SEG_IF", nodes = {}, set = "has_" .. name }
    cmd.segs[#cmd.segs + 1] = seg
    local first = #cmd.segs
    local inner = setmetatable({ optional = false }, { __index = a })
    local ok
    if a.kind == "block" then
        local args = a.args
        if a.token then
            seg.nodes = { new_node(a.token, "RG_ARG_NONE") }
        end
        ok = compile_seq(args, cmd, name, ctx)
    elseif a.token and a.kind == "oneof" then
        -- FILTERBY MODULE name: the token, then one of the alternatives
        seg.nodes = { new_node(a.token, "RG_ARG_NONE") }
        local alts = setmetatable({ optional = false, token = false }, { __index = a })
        ok = compile_choice(alts, cmd, name, ctx)
    elseif a.token then
        return false
    else
        ok = compile_seq({ inner }, cmd, prefix, ctx, true)
    end
    seg.skip = #cmd.segs - first
    return ok
end

-- The key_specs' keynum: the word position of the count and of the first counted key.
local function keynums(c)
    local t = {}
    for _, ks in ipairs(c.key_specs or {}) do
        local kn = ks.find_keys and ks.find_keys.keynum
        local pos = ks.begin_search and ks.begin_search.index and ks.begin_search.index.pos
        if kn and pos and kn.step == 1 then
            t[#t + 1] = { count = pos + kn.keynumidx, first = pos + kn.firstkey }
        end
    end
    return t
end

local function compile_rest(a, cmd, name, ctx)
    if a.token or a.multiple_token then return false end
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
    if not (add_field(cmd, "const rg_view *", name, group > 1 and (group .. " views per element")
            or nil) and add_field(cmd, "size_t", name .. "_count")) then
        return false
    end
    local seg = { kind = "RG_SEG_REST", group = group, min = a.optional and 0 or 1, value = name,
        count = name .. "_count", error = a.count_error }
    for _, kn in ipairs(ctx.keynums) do
        if ctx.pos and ctx.pos == kn.first and ctx.counts[kn.count] and a.kind == "key" then
            local counter = ctx.counts[kn.count]
            counter.flags = "RG_ARG_COUNT"
            seg.counted_by, seg.error = counter.value, counter.count_error
        end
    end
    cmd.segs[#cmd.segs + 1] = seg
    ctx.pos = nil
    return true
end

-- A required oneof whose alternatives take values: a CHOICE segment.
function compile_choice(a, cmd, name, ctx)
    if not add_field(cmd, "int", name, "one of " .. cmd.MACRO .. "_" .. naming.upper(name) ..
        "_*") then
        return false
    end
    add_consts(cmd, name, a.args)
    local heads, untokened, width = {}, 0, nil
    for _, alt in ipairs(a.args) do
        local nodes = run_of(alt, cmd, name .. "_" .. naming.ident(alt.name))
        if not nodes then return false end
        if not nodes[1].token then untokened = untokened + 1 end
        local w = words_of(nodes)
        width = (width == nil or width == w) and w or -1
        heads[#heads + 1] = head(nodes)
    end
    if untokened > 1 then return false end
    cmd.segs[#cmd.segs + 1] = { kind = "RG_SEG_CHOICE", nodes = flatten(heads), set = name,
        width = width }
    ctx.pos = width >= 0 and ctx.pos and ctx.pos + width or nil
    return true
end

local function compile_word(a, cmd, name, ctx)
    local nodes = run_of(a, cmd, name)
    if not nodes then return false end
    if ctx.pos and #nodes == 1 and nodes[1].type == "RG_ARG_I64" and not nodes[1].token then
        ctx.counts[ctx.pos] = nodes[1]
    end
    cmd.segs[#cmd.segs + 1] = { kind = "RG_SEG_WORD", nodes = head(nodes), width = words_of(nodes) }
    ctx.pos = ctx.pos and ctx.pos + words_of(nodes)
    return true
end

-- A tokened block of two untokened `multiple` scalars that take every word left, in two
-- halves (XREAD's STREAMS key... id...): the token, then a HALVES segment.
local function is_halves(a)
    if a.kind ~= "block" or not a.token or #a.args ~= 2 or a.optional or a.multiple then
        return false
    end
    for _, c in ipairs(a.args) do
        if not c.multiple or c.token or c.optional or c.multiple_token or not is_scalar(c) then
            return false
        end
    end
    return true
end

local function compile_halves(a, cmd, name, ctx)
    local first = name .. "_" .. naming.ident(a.args[1].name)
    local second = name .. "_" .. naming.ident(a.args[2].name)
    if not (add_field(cmd, "const rg_view *", first) and add_field(cmd, "const rg_view *", second) and
            add_field(cmd, "size_t", name .. "_count", "words in each of " .. first .. " and " ..
                second)) then
        return false
    end
    cmd.segs[#cmd.segs + 1] = { kind = "RG_SEG_WORD", nodes = { new_node(a.token, "RG_ARG_NONE") },
        width = 1 }
    cmd.segs[#cmd.segs + 1] = { kind = "RG_SEG_HALVES", value = first, set = second,
        count = name .. "_count", error = a.count_error }
    ctx.pos = nil
    return true
end

-- Appends the segments of an argument list; false when some argument does not fit.
function compile_seq(args, cmd, prefix, ctx)
    local i = 1
    while args[i] do
        local a = args[i]
        local name = field_name(prefix, a)
        local ok = true
        local j = (not a.optional and token_led(a)) and compile_options(args, i, cmd, prefix, ctx)
        if j then
            i = j - 1
            ctx.pos = nil
        elseif a.multiple and not (a.optional and a.token) then
            ok = compile_rest(a, cmd, name, ctx)
        elseif a.optional then
            local j = compile_options(args, i, cmd, prefix, ctx)
            if j then
                i = j - 1
            else
                ok = compile_if(a, cmd, prefix, ctx)
            end
            ctx.pos = nil
        elseif a.kind == "oneof" and not all_pure(a) then
            ok = compile_choice(a, cmd, name, ctx)
        elseif is_halves(a) then
            ok = compile_halves(a, cmd, name, ctx) and i == #args
        elseif a.kind == "block" and not a.token and leads_with_choice(a) then
            -- XTRIM's MAXLEN|MINID ...: options in any order, as Redis reads them
            local heads = {}
            ok = add_choice_led(a, cmd, name, heads, ctx)
            cmd.segs[#cmd.segs + 1] = { kind = "RG_SEG_OPTIONS", nodes = flatten(heads),
                error = ctx.unknown_error }
            ctx.pos = nil
        elseif a.kind == "block" and not a.token then
            ok = compile_seq(a.args, cmd, name, ctx)
        else
            ok = compile_word(a, cmd, name, ctx)
        end
        if not ok then return false end
        i = i + 1
    end
    return true
end

-- The fewest words segments[from..] need: IF groups and options need none.
local function need_from(segs, from)
    local n, s = 0, from
    while segs[s] do
        local seg = segs[s]
        if seg.kind == "RG_SEG_IF" then
            s = s + seg.skip
        elseif seg.kind == "RG_SEG_WORD" then
            n = n + seg.width
        elseif seg.kind == "RG_SEG_CHOICE" then
            n = n + (seg.width >= 0 and seg.width or 1)
        elseif seg.kind == "RG_SEG_REST" then
            n = n + seg.min * seg.group
        elseif seg.kind == "RG_SEG_HALVES" then
            n = n + 2
        end
        s = s + 1
    end
    return n
end

-- Whether every segment from `from` on takes a fixed number of words.
local function fixed_from(segs, from)
    for s = from, #segs do
        local k = segs[s].kind
        if not (k == "RG_SEG_WORD" or (k == "RG_SEG_CHOICE" and segs[s].width >= 0)) then
            return false
        end
    end
    return true
end

-- min_after and optional_before of every segment; false when an uncounted REST or an untokened
-- IF group is followed by segments of varying length (where its extent is the command's own
-- business: XADD's trim options before its id and pairs).
local function finish_segments(segs)
    local optional = false
    for s, seg in ipairs(segs) do
        -- words missing inside an option or an optional group are a syntax error, as in Redis
        seg.optional_before = optional or seg.kind == "RG_SEG_OPTIONS"
        seg.min_after = need_from(segs, s + 1 + (seg.kind == "RG_SEG_IF" and seg.skip or 0))
        if seg.kind == "RG_SEG_REST" and not seg.counted_by and not fixed_from(segs, s + 1) then
            return false
        end
        if seg.kind == "RG_SEG_IF" and #seg.nodes == 0 and not fixed_from(segs, s + 1 + seg.skip) then
            return false
        end
        if seg.kind == "RG_SEG_IF" or seg.kind == "RG_SEG_OPTIONS" or
            (seg.kind == "RG_SEG_REST" and seg.min == 0) then
            optional = true
        end
    end
    return true
end

-- Fills cmd.fields, cmd.consts and cmd.segs; false for raw commands.
local function classify(c, cmd)
    local ctx = { groups = 0, pos = #c.words, counts = {}, keynums = keynums(c),
        unknown_error = c.unknown_error }
    cmd.field_names = {}
    if not compile_seq(c.args, cmd, "", ctx) then return false end
    if ctx.groups > 63 then return false end
    return finish_segments(cmd.segs)
end

-- Reply encoders: which schemas get one and their C text live in server_reply.lua.
local reply_shape = server_reply.shape

local function build_cmd(cm, prefix, PREFIX)
    local c = cm.spec
    local id = cm.id
    local cmd = {
        name = table.concat(c.words, "|"):lower(), words = c.words, arity = c.arity,
        enum = PREFIX .. "_SRV_" .. naming.upper(id), MACRO = PREFIX .. "_SRV_" .. naming.upper(id),
        struct = prefix .. "_srv_" .. id .. "_args", member = id, spec_name = prefix .. "_srv_" ..
            id .. "_spec", fields = {}, segs = {}, consts = {},
    }
    cmd.reply = c.reply
    cmd.syntax_error, cmd.late_numbers = c.syntax_error, c.late_numbers
    cmd.reply_shape = reply_shape(c.reply, c.group, c.reply_string)
    cmd.fn = prefix .. "_srv_" .. id
    cmd.parsed = classify(c, cmd)
    if not cmd.parsed then
        cmd.fields, cmd.segs, cmd.consts = {}, {}, {}
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
                enum = PREFIX .. "_SRV_" .. naming.upper(id), fields = {}, segs = {},
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

-- Header text of one command's reply encoder (server_reply.lua).
local function reply_text(c, fn) return server_reply.text(c, fn, signature) end

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
    add("/* Reply encoders follow for the commands whose reply schema names one exact form;")
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

-- An initializer `item` placed at column `col` and followed by `tail`, with a string literal
-- that would pass column 100 split as clang-format splits it: after the last space that keeps
-- a piece within the line, the pieces aligned under the first quote.
local function fit_item(col, item, tail)
    if col + #item + #tail <= 100 then return item end
    local q = item:find('"', 1, true)
    if not q or item:sub(-1) ~= '"' then return item end
    local text, qcol = item:sub(q + 1, -2), col + q - 1
    local pieces = {}
    while qcol + 2 + #text + #tail > 100 do
        local room = 100 - qcol - 2
        local cut = text:sub(1, room):match("^.*() ")
        if not cut then break end
        pieces[#pieces + 1] = '"' .. text:sub(1, cut) .. '"'
        text = text:sub(cut + 1)
    end
    pieces[#pieces + 1] = '"' .. text .. '"'
    return item:sub(1, q - 1) .. table.concat(pieces, "\n" .. string.rep(" ", qcol))
end

-- A braced list of designated initializers as clang-format lays it out: on one line when it
-- fits, else one initializer per line aligned after the brace.
local function designated(prefix, items, close)
    local one = prefix .. table.concat(items, ", ") .. close
    if #one <= 100 then return one end
    local indent = string.rep(" ", #prefix)
    local lines = { prefix .. fit_item(#prefix, items[1], ",") .. "," }
    for k = 2, #items - 1 do lines[#lines + 1] = indent .. fit_item(#indent, items[k], ",") .. "," end
    lines[#lines + 1] = indent .. fit_item(#indent, items[#items], close) .. close
    return join(lines)
end

-- A bin-packed braced list as clang-format lays it out: continuation lines aligned after the
-- brace, or, when not even the first item fits there, a break after the brace.
local function braced(prefix, items, close)
    local indent = string.rep(" ", #prefix)
    local first = prefix .. items[1] .. (#items == 1 and close or ",")
    if #first > 100 then
        return prefix:gsub(" $", "") .. "\n" .. pack("    ", items, "    ", close)
    end
    return pack(prefix, items, indent, close)
end

-- "<head> = {" and one initializer per line; the trailing comma keeps clang-format there.
local function one_per_line(head, items)
    local lines = {}
    for k, item in ipairs(items) do lines[k] = fit_item(4, item, ",") end
    return head .. " = {\n    " .. table.concat(lines, ",\n    ") .. ",\n};"
end

local SYNTAX_STYLE = { plain = "RG_SYNTAX_PLAIN", subcommand = "RG_SYNTAX_SUBCOMMAND",
    arity = "RG_SYNTAX_ARITY" }

local function offset(struct, field)
    return field and ("offsetof(" .. struct .. ", " .. field .. ")") or "RG_ARG_NO_OFF"
end

-- Designated initializers of the fields that are not zero (offsets that are absent are
-- RG_ARG_NO_OFF, since 0 is an offset).
local function node_init(n, struct, choices, check)
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
    return designated("    {", items, "},")
end

local function seg_init(seg, struct, nodes_name, first)
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
    return designated("    {", items, "},")
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
            if n.check.invalid then items[#items + 1] = ".invalid = " .. c_string(n.check.invalid) end
            if n.check.min_error then
                items[#items + 1] = ".min_error = " .. c_string(n.check.min_error)
                items[#items + 1] = ".min = " .. n.check.min
            end
            out[#out + 1] = one_per_line("static const rg_arg_check " .. name, items)
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
            out[#out + 1] = braced("static const char *const " .. name .. "[] = {", items, "};")
            choice_names[k] = name
        end
    end
    local nodes_name = c.fn .. "_nodes"
    if #all > 0 then
        out[#out + 1] = "static const rg_arg_node " .. nodes_name .. "[] = {"
        for k, n in ipairs(all) do
            out[#out + 1] = node_init(n, c.struct, choice_names[k], check_names[k])
        end
        out[#out + 1] = "};"
    end
    out[#out + 1] = "static const rg_arg_seg " .. c.fn .. "_segs[] = {"
    for s, seg in ipairs(c.segs) do
        out[#out + 1] = seg_init(seg, c.struct, nodes_name, first[s])
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
    out[#out + 1] = one_per_line("static const rg_arg_spec " .. c.spec_name, spec)
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
        "_srv_cmd id, rg_view word) {" }
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
