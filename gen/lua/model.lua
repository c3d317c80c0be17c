-- From a validated spec to what the C emitter needs: C names for everything, the C types that
-- carry each argument, and for every command a small intermediate program (ops) that both the
-- size and the write functions are rendered from, with its constant parts already folded.
--
-- Ops (lists of records with an `op` field) are data, not C text: an op names the model's
-- argument node it sends (`arg`) and where the encoder's functions find its value (`via`):
--   via = "param"   a parameter of the command's functions (a required argument)
--   via = "opts"    a member of the command's options struct (an optional argument)
--   via = "member"  a member of the block or oneof value a type's own functions take
-- with `elem` when the op sends the i-th element of a multiple argument (inside `each`). The C
-- emitter (emit_c.lua) spells every expression from these; nothing here is C.
--   lit    bytes, argc        constant words, e.g. "$2\r\nEX\r\n" (merged when adjacent)
--   view   arg, via [elem]    a caller's byte string as a bulk (at most arg.max_len bytes)
--   i64    arg, via [elem]    an int64_t as a bulk; with count_of = a counted key list, the
--                             list's length instead of a parameter (arg is the count argument;
--                             for a list in the options struct, when_no_opts is its bulk for
--                             opts == NULL)
--   dbl    arg, via [elem]    a double as a bulk
--   enum   arg, via [elem]    the bulk of a pure-token choice, looked up in arg's table
--   call   arg, via [elem]    a block or oneof value, through arg's own functions
--   if     test, body         test = "present": the optional argument arg is given;
--                             "nonempty": the multiple arg has elements; "opts": opts != NULL
--   each   arg, via, body     a multiple argument; the body sends element i
--   check  test, arg, via     measure only: the arguments are invalid when the test holds:
--          [stop]             "empty" (no elements), "null_list" (a NULL list of elements),
--                             "null" (a NULL list, under "nonempty"); with stop, measuring
--                             returns at once (what follows would read NULL)
--   switch arg, cases         in the oneof arg's own functions: one case per alternative
--                             ({ label, body }), on the value's kind

local naming = require("naming")
local reply_model = require("reply_model")
local resp = require("resp")
local spec_mod = require("spec")
local template = require("template")

local M = {}

-- The kinds that carry one scalar value, by the op that sends it (an argument node's `scalar`;
-- the server side maps it to its own value types).
local SCALAR = {
    key = "view", string = "view", pattern = "view",
    integer = "i64", ["unix-time"] = "i64", double = "dbl",
}

-- Names every command owns besides its types: functions and the options struct.
-- (req_args and op_table: the struct of the required arguments and the op table of a command
-- whose general path is a table, emit_table.lua.)
local COMMAND_SUFFIXES = { "size", "encode", "try_encode", "pipe_write", "pipe_write_opts",
    "append", "iov_count", "scratch_size", "encode_iov", "measure", "put", "opts", "req_args",
    "op_table", "call" }
local MACRO_SUFFIXES = { "FIXED_SIZE", "MAX_SIZE", "IOV_MAX", "SCRATCH_MAX" }

-- Helpers the emitter may define once per generated file: the pieces of templates/helpers.c.in.
local function helper_names()
    return template.sections(template.load("helpers.c.in")).order
end

---------------------------------------------------------------------------------------------
-- Argument analysis.

-- A valueless argument sends only constants: a pure-token, or a block of required valueless
-- arguments. It needs no C value, only a presence flag when optional.
local function is_valueless(a)
    if a.kind == "pure-token" then return true end
    if a.kind ~= "block" then return false end
    for _, c in ipairs(a.args) do
        if c.optional or c.multiple or not is_valueless(c) then return false end
    end
    return true
end

-- A oneof whose alternatives are single pure-tokens becomes a plain enum.
local function is_enum_oneof(a)
    if a.kind ~= "oneof" then return false end
    for _, c in ipairs(a.args) do
        if c.kind ~= "pure-token" or c.multiple then return false end
    end
    return true
end

-- Nodes that get a generated C type, with their name paths, in dependency order (children
-- first), so each type is declared before the types that contain it.
local function collect_type_nodes(args, path, out)
    for _, a in ipairs(args) do
        local p = {}
        for i, n in ipairs(path) do p[i] = n end
        p[#p + 1] = naming.ident(a.name)
        collect_type_nodes(a.args, p, out)
        if a.kind == "oneof" or (a.kind == "block" and not is_valueless(a)) then
            out[#out + 1] = { node = a, path = p }
        end
    end
    return out
end

-- Shortest unique type names: the argument's own name, lengthened with its parents' names
-- where two types of a command (or a type and a command function) would share a name.
local function assign_type_names(cmd_id, entries)
    local taken = {}
    for _, s in ipairs(COMMAND_SUFFIXES) do taken[s] = true end
    for _, e in ipairs(entries) do e.depth = 1 end
    local function suffix(e)
        return table.concat(e.path, "_", #e.path - e.depth + 1, #e.path)
    end
    for _ = 1, 64 do
        local groups = {}
        for _, e in ipairs(entries) do
            local s = suffix(e)
            groups[s] = groups[s] or {}
            table.insert(groups[s], e)
        end
        local changed = false
        for s, g in pairs(groups) do
            if #g > 1 or taken[s] then
                for _, e in ipairs(g) do
                    if e.depth < #e.path then e.depth, changed = e.depth + 1, true end
                end
            end
        end
        if not changed then break end
    end
    for _, e in ipairs(entries) do e.node.tname = cmd_id .. "_" .. suffix(e) end
end

---------------------------------------------------------------------------------------------
-- Declarations.

-- A member of a struct or a parameter of a function: its C name, its argument node and what it
-- holds of it (emit_c.lua spells the C type from these):
--   value  one value of the argument    list   a pointer to its values (a multiple argument)
--   count  the number of its values     flag   a bool: whether it is given
local function decl(holds, a, name)
    return { holds = holds, arg = a, name = name }
end

-- The members of a struct, or the parameters of a function, that hold argument a.
local function field_decls(a)
    if a.multiple then
        return { decl("list", a, a.id), decl("count", a, a.ident .. "_count") }
    end
    if a.optional then
        -- An absent view is {NULL, 0}, an absent oneof has kind NONE: no flag needed.
        if a.scalar == "view" or a.kind == "oneof" then return { decl("value", a, a.id) } end
        if a.valueless then return { decl("flag", a, a.id) } end
        return { decl("flag", a, "has_" .. a.ident), decl("value", a, a.id) }
    end
    if a.valueless then return {} end
    return { decl("value", a, a.id) }
end

---------------------------------------------------------------------------------------------
-- Counted key lists: EVAL script numkeys key... arg..., ZUNION numkeys key..., LMPOP numkeys
-- key... and the like. A key spec with find_keys = keynum names the argument that counts the keys
-- (keynumidx) and the first counted key (firstkey), both as word positions after
-- begin_search.index.pos. When they are a plain integer and, right after it, a repeated key,
-- the count is not a parameter: the encoder writes the list's length, so the two cannot
-- disagree. This is the one place that decides it: the parameter lists (params, opts_fields)
-- and the ops follow from a.counts, and tools that build calls (tools/sample_calls.lua) skip
-- such arguments.

-- Words a top-level argument takes when that number is fixed, else nil.
local function fixed_words(a)
    if a.optional or a.multiple then return nil end
    if a.scalar or is_enum_oneof(a) then return (a.token and 2 or 1) end
    if a.kind == "pure-token" then return 1 end
    return nil
end

-- The top-level arguments by word position (the command name's words first), as far as the
-- positions are fixed: up to and including the first argument of varying width.
local function args_by_position(cm)
    local at, pos = {}, #cm.words
    for _, a in ipairs(cm.args) do
        at[pos] = a
        local w = fixed_words(a)
        if not w then break end
        pos = pos + w
    end
    return at
end

-- The keynum finds of a command's key specs: { count = word position, first = word position }.
local function keynum_finds(key_specs)
    local out = {}
    for _, ks in ipairs(key_specs or {}) do
        local bs, fk = ks.begin_search, ks.find_keys
        local index = type(bs) == "table" and bs.index
        local kn = type(fk) == "table" and fk.keynum
        if index and kn and kn.step == 1 then
            out[#out + 1] = { count = index.pos + kn.keynumidx, first = index.pos + kn.firstkey }
        end
    end
    return out
end

-- Marks each counting integer (a.counts = the list) and its list (a.counted_by = the integer)
-- among the argument nodes of command cm.
local function mark_counted_lists(cm, key_specs)
    local at = args_by_position(cm)
    for _, f in ipairs(keynum_finds(key_specs)) do
        local n, list = at[f.count], at[f.first]
        if n and list and f.first == f.count + 1 and n.kind == "integer" and not n.token and
            not n.optional and not n.multiple and list.kind == "key" and list.multiple and
            not list.token then
            n.counts, list.counted_by = list, n
        end
    end
end

-- The op that sends count argument n: the length of list `l` (a parameter, or a member of the
-- options struct, which is 0 without it: then the op is the constant "0", when_no_opts).
local function count_ops(n, l)
    local op = { op = "i64", arg = n, count_of = l, via = l.optional and "opts" or "param" }
    if l.optional then op.when_no_opts = resp.bulk("0") end
    return { op }
end

---------------------------------------------------------------------------------------------
-- Ops.

local function lit(bytes, argc)
    return { op = "lit", bytes = bytes, argc = argc }
end

local function token_lit(token)
    return lit(resp.bulk(token), 1)
end

local node_ops

local function append(dst, src)
    for _, x in ipairs(src) do dst[#dst + 1] = x end
    return dst
end

-- Ops that send one value of a (its token excluded), found through `via` (the i-th element
-- with elem).
local function value_ops(a, via, elem)
    if a.scalar then return { { op = a.scalar, arg = a, via = via, elem = elem } } end
    if a.kind == "pure-token" then return { token_lit(a.token) } end
    if a.kind == "block" and a.valueless then
        local ops = {}
        for _, c in ipairs(a.args) do append(ops, node_ops(c, via, false)) end
        return ops
    end
    if a.enum then return { { op = "enum", arg = a, via = via, elem = elem } } end
    return { { op = "call", arg = a, via = via, elem = elem } }
end

-- Ops for argument a, found through `via` ("param", "opts", "member").
node_ops = function(a, via, in_oneof)
    local tok = (a.token and a.kind ~= "pure-token") and token_lit(a.token) or nil
    if a.multiple then
        local body = {}
        if tok and a.multiple_token then body[1] = tok end
        append(body, value_ops(a, via, true))
        -- A list {NULL, n > 0} has no elements to read: measuring stops at once (stop).
        local null_list = { op = "check", test = "null_list", arg = a, via = via, stop = true }
        local seq = { null_list, { op = "each", arg = a, via = via, body = body } }
        if tok and not a.multiple_token then table.insert(seq, 1, tok) end
        if a.optional then
            if tok and not a.multiple_token then
                null_list.test = "null" -- under "nonempty"
                return { { op = "if", test = "nonempty", arg = a, via = via, body = seq } }
            end
            return seq
        end
        table.insert(seq, 1, { op = "check", test = "empty", arg = a, via = via })
        return seq
    end
    local seq = {}
    if tok then seq[1] = tok end
    append(seq, value_ops(a, via, false))
    if a.optional and not in_oneof then
        return { { op = "if", test = "present", arg = a, via = via, body = seq } }
    end
    return seq
end

-- Moves checks to the front (they only affect validity) and merges adjacent constants.
local function fold(ops)
    local checks, rest = {}, {}
    for _, o in ipairs(ops) do
        if o.body then o.body = fold(o.body) end
        if o.cases then for _, c in ipairs(o.cases) do c.body = fold(c.body) end end
        if o.op == "check" then
            checks[#checks + 1] = o
        elseif o.op == "lit" and #rest > 0 and rest[#rest].op == "lit" then
            local prev = rest[#rest]
            rest[#rest] = lit(prev.bytes .. o.bytes, prev.argc + o.argc)
        else
            rest[#rest + 1] = o
        end
    end
    return append(checks, rest)
end

---------------------------------------------------------------------------------------------
-- Bounds: what the largest request needs, per op list.
-- { bytes = largest request, doubles = double bulks counted apart (their length is the
--   runtime's RG_DOUBLE_MAX_LEN), argc, views = caller strings an iovec encoding may reference,
--   open = true when a string has no max_len (no byte bound), many = true when a multiple makes
--   everything unbounded, scratch = bytes of an iovec encoding's scratch buffer, copies = strings
--   without max_len, each adding at most RG_IOV_COPY_MIN + 24 scratch bytes (copied when shorter
--   than RG_IOV_COPY_MIN, else a header of at most 23 bytes and a CRLF) }

local DOUBLE_FIXED = 1 + 2 + 2 + 2 -- "$NN\r\n" + "\r\n" around at most 99 digits

local function zero()
    return { bytes = 0, doubles = 0, argc = 0, views = 0, scratch = 0, copies = 0 }
end

local function add(a, b)
    return {
        bytes = a.bytes + b.bytes, doubles = a.doubles + b.doubles, argc = a.argc + b.argc,
        views = a.views + b.views, scratch = a.scratch + b.scratch, copies = a.copies + b.copies,
        open = a.open or b.open, many = a.many or b.many,
    }
end

local function max_of(a, b)
    return {
        bytes = math.max(a.bytes, b.bytes), doubles = math.max(a.doubles, b.doubles),
        argc = math.max(a.argc, b.argc), views = math.max(a.views, b.views),
        scratch = math.max(a.scratch, b.scratch), copies = math.max(a.copies, b.copies),
        open = a.open or b.open, many = a.many or b.many,
    }
end

local bound_ops

local function bound_op(o)
    local b = zero()
    if o.op == "lit" then
        b.bytes, b.argc, b.scratch = #o.bytes, o.argc, #o.bytes
    elseif o.op == "view" then
        b.argc, b.views = 1, 1
        if o.arg.max_len then
            b.bytes = resp.bulk_size(o.arg.max_len)
            b.scratch = b.bytes
        else
            b.open, b.scratch, b.copies = true, 24, 1
        end
    elseif o.op == "i64" then
        b.bytes, b.argc = resp.bulk_size(20), 1
        b.scratch = b.bytes
    elseif o.op == "dbl" then
        b.bytes, b.doubles, b.argc, b.scratch = DOUBLE_FIXED, 1, 1, DOUBLE_FIXED
    elseif o.op == "enum" then
        for _, alt in ipairs(o.arg.alts) do b.bytes = math.max(b.bytes, #alt.bulk) end
        b.argc, b.scratch = 1, b.bytes
    elseif o.op == "call" then
        b = o.arg.bound
    elseif o.op == "if" then
        b = bound_ops(o.body)
    elseif o.op == "each" then
        b = bound_ops(o.body)
        b.many = true
    elseif o.op == "switch" then
        for _, c in ipairs(o.cases) do b = max_of(b, bound_ops(c.body)) end
    end
    return b
end

bound_ops = function(ops)
    local b = zero()
    for _, o in ipairs(ops) do b = add(b, bound_op(o)) end
    return b
end

local function uses_views(ops)
    for _, o in ipairs(ops) do
        if o.op == "view" then return true end
        if o.op == "call" and o.arg.has_views then return true end
        if o.body and uses_views(o.body) then return true end
        if o.cases then
            for _, c in ipairs(o.cases) do if uses_views(c.body) then return true end end
        end
    end
    return false
end

---------------------------------------------------------------------------------------------
-- Types.

local function build_enum(a, PREFIX_T)
    a.enum = true
    a.none = PREFIX_T .. "_NONE"
    a.alts = {}
    for _, c in ipairs(a.args) do
        a.alts[#a.alts + 1] = { label = PREFIX_T .. "_" .. naming.upper(naming.ident(c.name)),
            bulk = resp.bulk(c.token), node = c }
    end
end

local function union_member(c)
    if c.multiple then return { multiple = true, decls = field_decls(c) } end
    if c.valueless then return nil end
    return { decls = { decl("value", c, c.id) } }
end

local function build_union(a, PREFIX_T)
    a.none = PREFIX_T .. "_NONE"
    a.alts, a.members = {}, {}
    local cases = {}
    for _, c in ipairs(a.args) do
        local label = PREFIX_T .. "_" .. naming.upper(naming.ident(c.name))
        a.alts[#a.alts + 1] = { label = label, node = c }
        a.members[#a.members + 1] = union_member(c)
        cases[#cases + 1] = { label = label, body = node_ops(c, "member", true) }
    end
    a.ops = fold({ { op = "switch", arg = a, cases = cases } })
end

local function build_struct(a)
    a.fields, a.ops = {}, {}
    for _, c in ipairs(a.args) do
        append(a.fields, field_decls(c))
        append(a.ops, node_ops(c, "member", false))
    end
    a.ops = fold(a.ops)
end

local function build_type(a, prefix)
    local T = naming.upper(prefix .. "_" .. a.tname)
    a.cname = prefix .. "_" .. a.tname
    if is_enum_oneof(a) then
        build_enum(a, T)
    elseif a.kind == "oneof" then
        build_union(a, T)
    else
        build_struct(a)
    end
    if a.ops then
        a.bound = bound_ops(a.ops)
        a.has_views = uses_views(a.ops)
    end
end

---------------------------------------------------------------------------------------------
-- Commands.

-- The model's own argument nodes for a list of the spec's arguments: each a copy of the spec's
-- fields (kind, name, line, path, token, optional, multiple, since ...: docs/spec-language.md)
-- with its children's nodes as args and what every part derives from it:
--   ident      the name as a C identifier (the prefix of _count and has_ members, type names)
--   id         the name as a C member or parameter name (a keyword gets a trailing '_')
--   scalar     "view", "i64" or "dbl" for a kind that carries one value (the op that sends it)
--   valueless  it sends only tokens (a pure-token, or a block of required such arguments)
-- build_command adds counts / counted_by (counted key lists) and, on nodes that get a C type,
-- tname, cname, ops, bound, has_views and enum, none, alts (oneofs), members or fields. The
-- spec's nodes are left as spec.lua made them.
local function arg_nodes(spec_args)
    local out = {}
    for i, s in ipairs(spec_args) do
        local a = {}
        for k, v in pairs(s) do
            if k ~= "args" then
                assert(type(v) ~= "table", "model: argument field " .. k .. " is a table")
                a[k] = v
            end
        end
        a.args = arg_nodes(s.args)
        a.ident = naming.ident(s.name)
        a.id = naming.member(s.name)
        a.scalar = SCALAR[s.kind]
        a.valueless = is_valueless(a)
        out[i] = a
    end
    return out
end

-- Redis-style syntax line for documentation comments: SET key value [NX | XX] ...
local function syntax_of(a, in_oneof)
    local s
    if a.kind == "pure-token" then
        s = a.token == "" and '""' or a.token
    elseif a.kind == "block" then
        local parts = {}
        for _, c in ipairs(a.args) do parts[#parts + 1] = syntax_of(c, false) end
        s = table.concat(parts, " ")
    elseif a.kind == "oneof" then
        local parts = {}
        for _, c in ipairs(a.args) do parts[#parts + 1] = syntax_of(c, true) end
        s = table.concat(parts, " | ")
        if not a.optional or a.multiple or in_oneof or a.token then s = "<" .. s .. ">" end
    else
        s = a.display or a.name
    end
    local tok = (a.token and a.kind ~= "pure-token") and (a.token == "" and '""' or a.token)
    if tok then s = tok .. " " .. s end
    if a.multiple then
        -- The repeated part: with the token when it repeats too (GET a [GET a ...]).
        local again = s
        if tok and not a.multiple_token then again = s:sub(#tok + 2) end
        s = s .. " [" .. again .. " ...]"
    end
    if a.optional and not in_oneof then s = "[" .. s .. "]" end
    return s
end

local function command_syntax(cm)
    local syn = { table.concat(cm.words, " ") }
    for _, a in ipairs(cm.args) do syn[#syn + 1] = syntax_of(a, false) end
    return table.concat(syn, " ")
end

-- The command's ops, parameters and options members: required arguments are parameters, optional
-- ones members of the options struct.
local function command_ops(cm, min_words)
    local ops = {}
    for _, w in ipairs(cm.words) do ops[#ops + 1] = token_lit(w) end
    cm.params, cm.opts_fields, cm.counted = {}, {}, {}
    for _, a in ipairs(cm.args) do
        if a.counts then
            append(ops, count_ops(a, a.counts))
            cm.counted[#cm.counted + 1] = { count = a, list = a.counts }
        elseif a.optional then
            append(cm.opts_fields, field_decls(a))
            append(ops, node_ops(a, "opts", false))
        else
            append(cm.params, field_decls(a))
            append(ops, node_ops(a, "param", false))
        end
    end
    ops = fold(ops)
    if cm.const_argc then
        -- The array header is a constant too: it joins the command name's literal.
        local first = 1
        while ops[first].op ~= "lit" do first = first + 1 end
        ops[first] = lit(resp.array_header(min_words) .. ops[first].bytes, ops[first].argc)
    end
    return ops
end

-- What every request of the command has (the top-level constants), and the largest one.
local function command_sizes(cm)
    cm.fixed_argc, cm.fixed_bytes = 0, 0
    for _, o in ipairs(cm.ops) do
        if o.op == "lit" then
            cm.fixed_argc, cm.fixed_bytes = cm.fixed_argc + o.argc, cm.fixed_bytes + #o.bytes
        end
    end
    local b = bound_ops(cm.ops)
    if not cm.const_argc then
        local header = #resp.array_header(b.argc)
        b.bytes, b.scratch = b.bytes + header, b.scratch + header
    end
    cm.bound = b
end

-- The words a command's C names are made of: its name's, with the module prefix ("JSON." of
-- "JSON.SET", and the '_'s after it: "FT._LIST") left out when the spec declares one.
local function id_words(c, module_prefix)
    local words = table.move(c.words, 1, #c.words, 1, {})
    if module_prefix then
        local n = #module_prefix
        local first = words[1]
        if first:sub(1, n + 1):upper() == module_prefix:upper() .. "." and #first > n + 1 then
            local rest = first:sub(n + 2):gsub("^_+", "")
            if rest ~= "" then words[1] = rest end
        end
    end
    return words
end

-- The C id of a command name's words ({ "CLIENT", "KILL" } -> client_kill).
function M.command_id(words, module_prefix)
    return naming.ident(table.concat(id_words({ words = words }, module_prefix), "_"))
end

local function build_command(c, prefix, PREFIX, module_prefix)
    local cm = { name = c.name, line = c.line, arity = c.arity, flags = c.flags or {},
        words = c.words, args = arg_nodes(c.args), cacheable = c.cacheable }
    cm.id = M.command_id(c.words, module_prefix)
    cm.fn = prefix .. "_" .. cm.id
    cm.ID = naming.upper(cm.id)
    cm.MACRO = PREFIX .. "_" .. cm.ID
    cm.opts_type = cm.fn .. "_opts"
    cm.const_argc = c.min_words == c.max_words
    cm.syntax = command_syntax(cm)
    mark_counted_lists(cm, c.key_specs)
    local entries = collect_type_nodes(cm.args, {}, {})
    assign_type_names(cm.id, entries)
    cm.types = {}
    for _, e in ipairs(entries) do
        build_type(e.node, prefix)
        cm.types[#cm.types + 1] = e.node
    end
    cm.ops = command_ops(cm, c.min_words)
    cm.has_opts = #cm.opts_fields > 0
    cm.has_views = uses_views(cm.ops)
    command_sizes(cm)
    return cm
end

---------------------------------------------------------------------------------------------
-- Name collisions: every generated identifier must be unique in its scope.

local function new_scope(report)
    local s = { names = {} }
    function s.claim(name, line, cmd, arg_path, what)
        local prev = s.names[name]
        if prev then
            report.add(line, cmd, arg_path, "generated " .. what .. " '" .. name ..
                "' is also the " .. prev.what .. " of " .. prev.owner)
            return
        end
        local owner = cmd and ("command '" .. cmd .. "'") or "the generated file"
        if arg_path then owner = owner .. ", argument '" .. arg_path .. "'" end
        s.names[name] = { what = what, owner = owner }
    end
    return s
end

local function claim_members(decls, line, cmd, arg_path, report)
    local scope = new_scope(report)
    for _, d in ipairs(decls) do scope.claim(d.name, line, cmd, arg_path, "member") end
end

local function check_type_names(t, global, cmd, report)
    global.claim(t.cname, t.line, cmd.name, t.path, "type")
    global.claim(t.cname .. "_measure", t.line, cmd.name, t.path, "function")
    global.claim(t.cname .. "_put", t.line, cmd.name, t.path, "function")
    -- Its op table (a block or oneof) or bulk table (an enum) in a general path as data.
    global.claim(t.cname .. (t.enum and "_bulks" or "_op_table"), t.line, cmd.name, t.path, "table")
    if t.enum then
        global.claim(t.none, t.line, cmd.name, t.path, "enumerator")
        for _, alt in ipairs(t.alts) do
            global.claim(alt.label, t.line, cmd.name, t.path, "enumerator")
        end
        global.claim(t.cname .. "_bulk", t.line, cmd.name, t.path, "function")
        return
    end
    if t.kind == "oneof" then
        global.claim(t.cname .. "_kind", t.line, cmd.name, t.path, "type")
        global.claim(t.none, t.line, cmd.name, t.path, "enumerator")
        local decls = { { name = "kind" } }
        for _, alt in ipairs(t.alts) do
            global.claim(alt.label, t.line, cmd.name, t.path, "enumerator")
        end
        for _, m in ipairs(t.members) do append(decls, m.decls) end
        claim_members(decls, t.line, cmd.name, t.path, report)
    else
        claim_members(t.fields, t.line, cmd.name, t.path, report)
    end
end

local function check_names(model, report)
    local global = new_scope(report)
    for _, h in ipairs(helper_names()) do
        global.claim(model.prefix .. "_" .. h, 1, nil, nil, "helper")
    end
    global.claim(model.PREFIX .. "_COMMANDS", 1, nil, nil, "macro")
    global.claim(model.PREFIX .. "_NCOMMANDS", 1, nil, nil, "macro")
    global.claim(model.guard, 1, nil, nil, "include guard")
    for _, f in ipairs(model.flags) do global.claim(f.macro, 1, nil, nil, "macro") end
    for _, cm in ipairs(model.commands) do
        for _, s in ipairs(COMMAND_SUFFIXES) do
            global.claim(cm.fn .. "_" .. s, cm.line, cm.name, nil, "name")
        end
        for _, s in ipairs(MACRO_SUFFIXES) do
            global.claim(cm.MACRO .. "_" .. s, cm.line, cm.name, nil, "macro")
        end
        for _, t in ipairs(cm.types) do check_type_names(t, global, cm, report) end
        -- req: the local struct of _pipe_write_opts when the general path is a table.
        local params = { { name = "dst" }, { name = "cap" }, { name = "opts" }, { name = "req" } }
        append(params, cm.params)
        claim_members(params, cm.line, cm.name, nil, report)
        claim_members(cm.opts_fields, cm.line, cm.name, nil, report)
    end
    return global.names
end

---------------------------------------------------------------------------------------------

local function flag_table(commands, PREFIX)
    local used = {}
    for _, cm in ipairs(commands) do
        for _, f in ipairs(cm.flags) do used[f] = true end
    end
    local flags = {}
    for bit, f in ipairs(spec_mod.COMMAND_FLAGS) do
        if used[f] then
            flags[#flags + 1] = { name = f, bit = bit - 1, macro = PREFIX .. "_FLAG_" .. f }
        end
    end
    return flags
end

-- A repeated argument must carry a value: repeating constants has no C representation.
local function check_repeatable(cmd, args, report)
    for _, a in ipairs(args) do
        if a.multiple and is_valueless(a) then
            report.add(a.line, cmd, a.path,
                "a multiple argument needs a value; this one sends only tokens")
        end
        check_repeatable(cmd, a.args, report)
    end
end

-- Key spec indices whose key may be given as "" instead (a oneof of the key and an empty
-- token: MIGRATE's key-selector, where "" says the keys come after KEYS).
local function empty_placeholders(args, out)
    for _, a in ipairs(args or {}) do
        if a.kind == "oneof" then
            local key, empty
            for _, alt in ipairs(a.args) do
                if alt.kind == "key" and alt.key_spec_index then key = alt.key_spec_index end
                if alt.kind == "pure-token" and alt.token == "" then empty = true end
            end
            if key and empty then out[key] = true end
        end
        empty_placeholders(a.args, out)
    end
    return out
end

-- What the routing tables need (emit_keys): the key specs in order, each a copy with
-- empty_placeholder set when "" may stand for its key, the command's tips (the request and
-- response policies), and the name of its spec table.
local function keys_of(c, cm, prefix)
    local empty = empty_placeholders(cm.args, {})
    local specs = {}
    for i, ks in ipairs(c.key_specs or {}) do
        local row = { empty_placeholder = empty[i - 1] }
        for k, v in pairs(ks) do row[k] = v end
        specs[i] = row
    end
    return { specs = specs, tips = c.command_tips or {}, table = prefix .. "_keyspecs_" .. cm.id }
end

-- The typed reply of a command (emit_reply, emit_client): the reply type of its schema (a
-- generic value for none or null), the result struct and the table the runtime walks.
local function add_reply(c, cm)
    local ty = reply_model.build(c.reply)
    if ty.t == "null" then ty = { t = "any", precise = false } end
    cm.reply_type, cm.reply_result, cm.reply_table = ty, cm.fn .. "_result", cm.fn .. "_reply_table"
end

-- What the server side (emit_server, server_args) and the tools read besides: the reply schema
-- as written (its exact forms make reply encoders), the group, `since`, and the server options
-- of the spec (docs/spec-language.md).
local function add_server(c, cm)
    cm.reply_schema, cm.group, cm.since = c.reply, c.group, c.since
    cm.reply_string, cm.syntax_error = c.reply_string, c.syntax_error
    cm.late_numbers, cm.unknown_error = c.late_numbers, c.unknown_error
end

-- The containers: the first word of a subcommand that is no command of its own (CLIENT of CLIENT
-- KILL), in the commands' order: { name (upper case), words, id, ID }.
local function containers_of(commands, module_prefix)
    local is_cmd, seen, out = {}, {}, {}
    for _, cm in ipairs(commands) do
        if #cm.words == 1 then is_cmd[cm.words[1]:upper()] = true end
    end
    for _, cm in ipairs(commands) do
        local top = cm.words[1]:upper()
        if #cm.words > 1 and not is_cmd[top] and not seen[top] then
            seen[top] = true
            local id = M.command_id({ cm.words[1] }, module_prefix)
            out[#out + 1] = { name = top, words = { cm.words[1] }, id = id, ID = naming.upper(id) }
        end
    end
    table.sort(out, function(a, b) return M.name_less(a.name, b.name) end)
    return out
end

-- The model is read-only once built. model.freeze gives every table reachable from the model a
-- read-only proxy over a private copy: reading goes through (fields, #, ipairs, pairs), writing
-- raises, a new field as well as a reassigned one, so an emitter that would annotate the model
-- for another (rather than keep its own state) fails at once. next() and rawget() do not see
-- through a proxy (no part uses them on the model). The copy also leaves the spec's tables the
-- model shares (words, key specs, reply schemas) untouched. A table with a metatable of its own
-- is kept as it is (there is none in the model).
local FROZEN = "the command model (read-only)"

local function refuse(_, k)
    error("the command model is read-only: cannot set field " .. tostring(k), 2)
end

-- The read-only form of t and of everything reachable from it (seen: table -> its proxy, so a
-- node reached twice, as an argument and as an op's arg, stays one node).
function M.freeze(t, seen)
    if type(t) ~= "table" or getmetatable(t) ~= nil then return t end
    seen = seen or {}
    if seen[t] then return seen[t] end
    local data = {}
    local proxy = setmetatable({}, {
        __index = data,
        __newindex = refuse,
        __len = function() return #data end,
        __pairs = function() return next, data, nil end,
        __metatable = FROZEN,
    })
    seen[t] = proxy
    for k, v in pairs(t) do data[k] = M.freeze(v, seen) end
    return proxy
end

-- Whether t is a frozen table of a model.
function M.frozen(t)
    return getmetatable(t) == FROZEN
end

-- Whether command name a sorts before b: bytes of the upper case, as rg_keys compares names.
function M.name_less(a, b)
    return naming.bytes_less(a:upper(), b:upper())
end

-- Builds the model of one spec. opts: prefix, file (spec file name), stem, version, abi.
-- Returns the model, or nil and a list of error lines.
function M.build(spec, opts)
    local prefix = opts.prefix
    local PREFIX = naming.upper(prefix)
    local stem_id = naming.upper(naming.ident(opts.stem) or "")
    local model = {
        prefix = prefix, PREFIX = PREFIX, file = opts.file, stem = opts.stem,
        module_prefix = spec.module_prefix,
        version = opts.version, abi = opts.abi, commands = {},
        guard = (stem_id == PREFIX or stem_id == "") and PREFIX .. "_H" or
            PREFIX .. "_" .. stem_id .. "_H",
    }
    local report = spec_mod.new_reporter(spec.path)
    for _, c in ipairs(spec.commands) do check_repeatable(c.name, c.args, report) end
    if #report.list > 0 then return nil, spec_mod.sorted_messages(report) end
    -- The spec node of each command, for the finishing below only: nothing after the model
    -- reads the spec.
    local source = {}
    for _, c in ipairs(spec.commands) do
        if not c.container then
            local cm = build_command(c, prefix, PREFIX, spec.module_prefix)
            model.commands[#model.commands + 1], source[cm] = cm, c
        end
    end
    table.sort(model.commands, function(a, b) return a.id < b.id end)
    for i = 2, #model.commands do
        local a, b = model.commands[i - 1], model.commands[i]
        if a.id == b.id then
            local later, first = a, b
            if a.line < b.line then later, first = b, a end
            report.add(later.line, later.name, nil, "maps to the same C name '" .. a.id ..
                "' as command '" .. first.name .. "' (line " .. first.line .. ") once the " ..
                "module prefix is left out")
        end
    end
    -- The one order of the commands, P_COMMANDS' and so every table's: by name, bytes of the
    -- upper case, the order the routing table's binary search (rg_keys_table_lookup) needs.
    table.sort(model.commands, function(a, b) return M.name_less(a.name, b.name) end)
    model.flags = flag_table(model.commands, PREFIX)
    -- Every file-scope name the encoders generate (a set): emitters that name something more
    -- (the shared shapes, emit_shape.lua) check against it.
    if #report.list == 0 then
        model.taken = {}
        for name in pairs(check_names(model, report)) do model.taken[name] = true end
    end
    if #report.list > 0 then return nil, spec_mod.sorted_messages(report) end
    for _, cm in ipairs(model.commands) do
        cm.keys = keys_of(source[cm], cm, prefix)
        add_reply(source[cm], cm)
        add_server(source[cm], cm)
    end
    model.containers = containers_of(model.commands, spec.module_prefix)
    return M.freeze(model)
end

return M
