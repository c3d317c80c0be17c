-- The argument tables of the server half (respgen --server): a command's argument tree
-- compiled into the flat list of rg_args segments (runtime/rg_args.h) that rg_args_parse walks,
-- with the argument struct's fields and the enumerators of its oneofs. emit_server.lua renders
-- the result as C.
--
-- A command whose tree has a shape the segments cannot express (a token repeated before every
-- value, a oneof of blocks inside a repeated block, a run of words whose length only the
-- command's own code knows) gets no table: it is "raw", only its arity is checked and its
-- handler reads argv. docs/server.md has the rules and the Redis coverage.

local naming = require("naming")

local M = {}

-- The node type and C type of an argument that takes one word, from its scalar (model.lua).
local SCALAR = {
    view = { "RG_ARG_VIEW", "rg_view" },
    i64 = { "RG_ARG_I64", "int64_t" },
    dbl = { "RG_ARG_DOUBLE", "double" },
}

local function arg_type(a)
    if SCALAR[a.scalar] then return SCALAR[a.scalar][1], SCALAR[a.scalar][2] end
    if a.kind == "pure-token" then return "RG_ARG_NONE", nil end
    return nil
end

local function is_scalar(a)
    return arg_type(a) ~= nil and a.kind ~= "pure-token"
end

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
    if prefix == "" then return a.id end
    return prefix .. "_" .. a.ident
end

-- Enumerators for the alternatives of a oneof stored as an int at `field`.
local function add_consts(cmd, field, alts)
    local consts = {}
    for i, alt in ipairs(alts) do
        consts[#consts + 1] = { cmd.MACRO .. "_" .. naming.upper(field) .. "_" ..
            naming.upper(alt.ident), i }
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
        local sub = run_of(c, cmd, name .. "_" .. c.ident)
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
    local field = name .. "_" .. lead.ident
    if not add_field(cmd, "int", field, "0 or one of " .. cmd.MACRO .. "_" ..
        naming.upper(field) .. "_*") then
        return false
    end
    add_consts(cmd, field, lead.args)
    ctx.groups = ctx.groups + 1
    local group, tail, rest = ctx.groups, {}, {}
    for k = 2, #a.args do
        local c = a.args[k]
        local cname = name .. "_" .. c.ident
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
        if not add_option(c, cmd, name .. "_" .. c.ident, heads, ctx) then
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
            local led = alt.kind == "block" and alt.args[1] and alt.args[1].token
            if not alt.token and not led then
                return false
            end
            local nodes = run_of(alt, cmd, name .. "_" .. alt.ident)
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
        if not add_field(cmd, "int", name, "1 when " .. a.token .. " was given") then
            return false
        end
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
        local nodes = run_of(alt, cmd, set and (name .. "_" .. alt.ident) or name)
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
    local next_optional = args[i + 1] and args[i + 1].optional
    if args[i].kind == "oneof" and args[i].invalid and not next_optional then
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
    for _, ks in ipairs(c.keys.specs) do
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
        local nodes = run_of(alt, cmd, name .. "_" .. alt.ident)
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
    local first = name .. "_" .. a.args[1].ident
    local second = name .. "_" .. a.args[2].ident
    if not (add_field(cmd, "const rg_view *", first) and
            add_field(cmd, "const rg_view *", second) and
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
            local past = compile_options(args, i, cmd, prefix, ctx)
            if past then
                i = past - 1
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
        local empty_if = seg.kind == "RG_SEG_IF" and #seg.nodes == 0
        if empty_if and not fixed_from(segs, s + 1 + seg.skip) then
            return false
        end
        if seg.kind == "RG_SEG_IF" or seg.kind == "RG_SEG_OPTIONS" or
            (seg.kind == "RG_SEG_REST" and seg.min == 0) then
            optional = true
        end
    end
    return true
end

-- The largest value each narrow member of rg_arg_node / rg_arg_seg / rg_arg_spec can hold.
local U8, U16 = 255, 65534 -- 65535 is RG_ARG_NO_OFF
-- Bytes a field of the argument struct may take at most (a view; counts and offsets are less),
-- so that the offsets stay below U16.
local FIELD_MAX = 24

-- True when the tables fit the runtime's member types. A spec may be as wide as it likes (300
-- optional arguments, a oneof of 300 tokens); one that does not fit stays raw rather than emit
-- numbers that a uint8_t would silently cut.
local function fits(cmd)
    if #cmd.segs > U8 or #cmd.fields * FIELD_MAX > U16 then return false end
    for _, seg in ipairs(cmd.segs) do
        local nodes = seg.nodes or {}
        if #nodes > U8 or (seg.group or 0) > U8 or (seg.skip or 0) > U8 or
            (seg.min_after or 0) > U16 then
            return false
        end
        for _, n in ipairs(nodes) do
            if n.alt > U8 or n.group > U8 or n.more > U8 then return false end
        end
    end
    return true
end

-- Fills cmd.fields ({ ctype, name, comment }), cmd.consts (lists of { enumerator, value }) and
-- cmd.segs (segments of nodes) for command c of the model (its words, argument tree, key specs
-- and unknown_error); false for raw commands. cmd.MACRO prefixes the enumerators.
function M.compile(c, cmd)
    local ctx = { groups = 0, pos = #c.words, counts = {}, keynums = keynums(c),
        unknown_error = c.unknown_error }
    cmd.field_names = {}
    if not compile_seq(c.args, cmd, "", ctx) then return false end
    if ctx.groups > 63 then return false end
    return finish_segments(cmd.segs) and fits(cmd)
end

return M
