-- Renders a model (model.lua) as C text: a header and a source file, or one header with every
-- definition static inline. Pure functions from the model to strings; the layout follows the
-- project's .clang-format (see layout.lua).

local frame = require("frame")
local layout = require("layout")
local resp = require("resp")
local shape = require("emit_shape")
local tables = require("emit_table")
local template = require("template")

local M = {}

local LIMIT = layout.LIMIT
local IND = layout.INDENT

-- The lists given, one after another, as a new list.
local function concat(...)
    local out = {}
    for _, list in ipairs({ ... }) do
        for _, x in ipairs(list) do out[#out + 1] = x end
    end
    return out
end

---------------------------------------------------------------------------------------------
-- Statements: small trees rendered with clang-format's rules for short if/for/case bodies.
--   { t = "call", lead, name, args }   a call statement ("lead" as in layout.call)
--   { t = "text", text }              any other one-line statement
--   { t = "if", cond, body }  { t = "for", count, body }
--   { t = "switch", expr, cases = { { label, body } } }  { t = "loop", body }  (for (;;))

local function call(lead, name, args)
    return { t = "call", lead = lead, name = name, args = args }
end

local function text(s)
    return { t = "text", text = s }
end

local function flat(s)
    if s.t == "call" then return s.lead .. s.name .. "(" .. table.concat(s.args, ", ") .. ");" end
    if s.t == "text" then return s.text end
    return nil
end

local render_list

-- The "if (...)" or "for (...)" line; a condition too long for it, with `tail` (" {" or "")
-- after it, breaks after its comparison operator, continuing under the condition's start.
local function control_head(ind, s, tail)
    if s.t == "for" then return { ind .. "for (size_t i = 0; i < " .. s.count .. "; i++)" } end
    local one = ind .. "if (" .. s.cond .. ")"
    -- The operator of lowest precedence first, as clang-format breaks.
    local left, op, right = s.cond:match("^(.-) (||) (.*)$")
    if not left then left, op, right = s.cond:match("^(.-) (&&) (.*)$") end
    if not left then left, op, right = s.cond:match("^(.-) ([!=<>]=?) (.*)$") end
    if #one + #tail <= LIMIT or not left then return { one } end
    return { ind .. "if (" .. left .. " " .. op, ind .. "    " .. right .. ")" }
end

local function render_one(s, indent, out)
    local ind = layout.spaces(indent)
    if s.t == "call" then
        out[#out + 1] = layout.call({ indent = indent, lead = s.lead, name = s.name, args = s.args,
            tail = ");" })
    elseif s.t == "text" then
        out[#out + 1] = ind .. s.text
    elseif s.t == "assign" then
        out[#out + 1] = layout.assign(indent, s.lhs, s.rhs)
    elseif s.t == "if" or s.t == "for" then
        local only = #s.body == 1 and flat(s.body[1])
        local head = control_head(ind, s, only and "" or " {")
        if only and #head == 1 and #head[1] + 1 + #only <= LIMIT then
            out[#out + 1] = head[1] .. " " .. only
        elseif only then
            for _, l in ipairs(head) do out[#out + 1] = l end
            render_one(s.body[1], indent + IND, out)
        else
            head[#head] = head[#head] .. " {"
            for _, l in ipairs(head) do out[#out + 1] = l end
            render_list(s.body, indent + IND, out)
            out[#out + 1] = ind .. "}"
        end
    elseif s.t == "block" then
        out[#out + 1] = ind .. "{"
        render_list(s.body, indent + IND, out)
        out[#out + 1] = ind .. "}"
    elseif s.t == "loop" then
        out[#out + 1] = ind .. "for (;;) {"
        render_list(s.body, indent + IND, out)
        out[#out + 1] = ind .. "}"
    elseif s.t == "switch" then
        out[#out + 1] = ind .. "switch (" .. s.expr .. ") {"
        for _, c in ipairs(s.cases) do
            local label = c.label == "default" and "default:" or ("case " .. c.label .. ":")
            label = ind .. label
            local parts = {}
            for _, b in ipairs(c.body) do parts[#parts + 1] = flat(b) or false end
            local one = #parts <= 2 and not c.braced and label
            for _, p in ipairs(parts) do one = one and p and (one .. " " .. p) end
            if c.braced then
                out[#out + 1] = label .. " {"
                render_list(c.body, indent + IND, out)
                out[#out + 1] = ind .. "}"
            elseif one and #one <= LIMIT then
                out[#out + 1] = one
            else
                out[#out + 1] = label
                render_list(c.body, indent + IND, out)
            end
        end
        out[#out + 1] = ind .. "}"
    end
end

render_list = function(stmts, indent, out)
    for _, s in ipairs(stmts) do render_one(s, indent, out) end
    return out
end

-- A function definition: signature laid out like clang-format, then the body.
local function func(lead, name, params, body)
    if #params == 0 then params = { "void" } end
    local out = { layout.call({ indent = 0, lead = lead, name = name, args = params,
        tail = ") {", decl = true }) }
    render_list(body, IND, out)
    out[#out + 1] = "}"
    return table.concat(out, "\n")
end

local function proto(lead, name, params)
    if #params == 0 then params = { "void" } end
    return layout.call({ indent = 0, lead = lead, name = name, args = params, tail = ");",
        decl = true })
end

---------------------------------------------------------------------------------------------
-- Ops to statements, in two modes: measuring (size) and putting (writing the bytes).

-- An emitter of op lists: remembers which helpers (templates/helpers.c.in) the code uses.
local Ops = {}
Ops.__index = Ops

-- m: how measuring code names the measure struct's address; w: how putting code names the
-- iovec writer. Public functions hold the struct itself and pass no writer ("&m", "NULL").
-- ret: how measuring code stops early (a command's measure returns its size, a type's nothing).
-- iov: whether the iovec form is generated; without it put functions take no writer at all.
local function new_ops(model, used, iov)
    return setmetatable({ p = model.prefix, used = used, m = "m", w = "w", ret = "return 0;",
        iov = iov }, Ops)
end

-- The same emitter, naming the measure struct and the writer as given, and stopping with ret.
function Ops:with(m, w, ret)
    return setmetatable({ p = self.p, used = self.used, m = m, w = w, ret = ret or self.ret,
        iov = self.iov, kept = self.kept }, Ops)
end

-- The same emitter, writing doubles from the texts measuring kept in k (rg_dbls, rg_enc.h): the
-- put functions of the general path.
function Ops:keeping()
    local o = self:with(self.m, self.w, self.ret)
    o.kept = true
    return o
end

-- The runtime's measuring function rg_<name> (rg_enc.h).
function Ops.rt(_, name)
    return "rg_" .. name
end

-- Whether put functions of ops that reference views take the iovec writer.
function Ops:writer(has_views)
    return has_views and self.iov
end

function Ops:helper(name)
    self.used[name] = true
    return self.p .. "_" .. name
end

-- C expressions of the ops' data (model.lua: an op names its argument node and `via`, where the
-- function finds it).
local BASE = { param = "", opts = "opts->", member = "v->" }

-- The argument an op sends, or its i-th element (elem).
local function value_of(o)
    return BASE[o.via] .. o.arg.id .. (o.elem and "[i]" or "")
end

-- Whether ops send a double, in a type's ops too: then the command's measure keeps them
-- (rg_meas_keep) and its put functions and those of such types take the kept texts (rg_dbls *k).
local function sends_double(ops)
    for _, o in ipairs(ops) do
        if o.op == "dbl" or (o.op == "call" and sends_double(o.arg.ops)) or
            sends_double(o.body or {}) then
            return true
        end
        for _, c in ipairs(o.cases or {}) do if sends_double(c.body) then return true end end
    end
    return false
end

-- The element count of multiple argument a.
local function count_expr(a, via)
    return BASE[via] .. a.ident .. "_count"
end

-- The value of an i64 op: its argument's, or for a count argument the length of the list it
-- counts, 0 without options when the list is an option. The cast cannot wrap: a list of 2^63
-- views does not fit in memory.
local function i64_of(o)
    if not o.count_of then return value_of(o) end
    if o.via == "opts" then
        return "opts ? (int64_t)" .. count_expr(o.count_of, "opts") .. " : 0"
    end
    return "(int64_t)" .. count_expr(o.count_of, o.via)
end

-- The condition under which optional argument a is present.
local function presence(a, via)
    local x = BASE[via] .. a.id
    -- {NULL, 0} is absent; {NULL, n > 0} counts as present, so that measuring refuses it.
    if a.scalar == "view" then return x .. ".ptr || " .. x .. ".len" end
    if a.kind == "oneof" then
        if a.enum then return x .. " != " .. a.none end
        return x .. ".kind != " .. a.none
    end
    if a.valueless then return x end
    return BASE[via] .. "has_" .. a.ident
end

-- The conditions of `if` and `check` ops, by their test.
local TEST = {
    present = function(o) return presence(o.arg, o.via) end,
    nonempty = function(o) return count_expr(o.arg, o.via) .. " > 0" end,
    opts = function() return "opts" end,
    empty = function(o) return count_expr(o.arg, o.via) .. " == 0" end,
    null_list = function(o)
        return "!" .. BASE[o.via] .. o.arg.id .. " && " .. count_expr(o.arg, o.via) .. " != 0"
    end,
    null = function(o) return "!" .. BASE[o.via] .. o.arg.id end,
}

-- What emit_shape.lua needs to spell an op's data.
local SHAPE_C = { value = value_of, i64 = i64_of, count = count_expr }

-- Statements measuring each kind of op (self.m: the measure struct).
local MEASURE = {
    lit = function(self, o)
        return call("", self:rt("meas_lit"), { self.m, tostring(o.argc), tostring(#o.bytes) })
    end,
    view = function(self, o)
        if o.arg.max_len then
            return call("", self:rt("meas_view_max"),
                { self.m, value_of(o), tostring(o.arg.max_len) })
        end
        return call("", self:rt("meas_view"), { self.m, value_of(o) })
    end,
    i64 = function(self, o) return call("", self:rt("meas_i64"), { self.m, i64_of(o) }) end,
    dbl = function(self, o) return call("", self:rt("meas_double"), { self.m, value_of(o) }) end,
    enum = function(self, o)
        return call("", o.arg.cname .. "_measure", { self.m, value_of(o) })
    end,
    call = function(self, o)
        return call("", o.arg.cname .. "_measure", { self.m, "&" .. value_of(o) })
    end,
    check = function(self, o)
        local body = { text("m->bad = true;") }
        if o.stop then body[2] = text(self.ret) end
        return { t = "if", cond = TEST[o.test](o), body = body }
    end,
}

-- Statements writing each kind of op at dst (self.w: the iovec writer, NULL for one buffer).
local PUT = {
    view = function(self, o)
        local x = value_of(o)
        if not self.iov then
            return call("dst = ", "rg_put_bulk", { "dst", x .. ".ptr", x .. ".len" })
        end
        return call("dst = ", self:helper("put_view"), { "dst", self.w, x })
    end,
    i64 = function(_, o) return call("dst = ", "rg_put_bulk_i64", { "dst", i64_of(o) }) end,
    dbl = function(self, o)
        if self.kept then
            return call("dst = ", "rg_put_bulk_double_kept", { "dst", "k", value_of(o) })
        end
        return call("dst = ", "rg_put_bulk_double", { "dst", value_of(o) })
    end,
    enum = function(_, o) return call("dst = ", o.arg.cname .. "_put", { "dst", value_of(o) }) end,
    call = function(self, o)
        local args = { "dst" }
        if self:writer(o.arg.has_views) then args[#args + 1] = self.w end
        if sends_double(o.arg.ops) then args[#args + 1] = "k" end
        args[#args + 1] = "&" .. value_of(o)
        return call("dst = ", o.arg.cname .. "_put", args)
    end,
}

-- `dst = rg_put_raw(dst, "<literal>", n);`, cut into several writes when a line would be too
-- long (clang-format would otherwise break the string literal itself).
local function put_lit(o, indent, out)
    local room = LIMIT - indent - #'dst = rg_put_raw(dst, "' - #'", 9999);'
    for _, piece in ipairs(resp.split_literal(o.bytes, room)) do
        out[#out + 1] = call("dst = ", "rg_put_raw",
            { "dst", '"' .. resp.c_escape(piece) .. '"', tostring(#piece) })
    end
end

-- Renders ops in one of the two modes: `mode` is MEASURE or PUT, `default` the statements of a
-- switch's default case. Top-level constants of a command are skipped when measuring (they are
-- in its FIXED_SIZE).
function Ops:render(ops, mode, indent, out, skip_lits)
    for _, o in ipairs(ops) do
        local k = o.op
        if k == "if" or k == "each" then
            local body = self:render(o.body, mode, indent + IND, {})
            if k == "if" then
                out[#out + 1] = { t = "if", cond = TEST[o.test](o), body = body }
            else
                out[#out + 1] = { t = "for", count = count_expr(o.arg, o.via), body = body }
            end
        elseif k == "switch" then
            out[#out + 1] = self:switch(o, mode, indent)
        elseif k == "lit" and mode == PUT then
            put_lit(o, indent, out)
        elseif mode[k] and not (k == "lit" and skip_lits) then
            out[#out + 1] = mode[k](self, o)
        end
    end
    return out
end

-- A oneof's switch: one case per alternative, and a default that rejects (measuring) or
-- writes nothing (putting: never reached, measuring rejected it first).
function Ops:switch(o, mode, indent)
    local cases = {}
    for _, c in ipairs(o.cases) do
        local body = self:render(c.body, mode, indent + IND, {})
        body[#body + 1] = text("break;")
        cases[#cases + 1] = { label = c.label, body = body }
    end
    local default = mode == MEASURE and { text("m->bad = true;"), text("break;") } or
        { text("break;") }
    cases[#cases + 1] = { label = "default", body = default }
    return { t = "switch", expr = "v->kind", cases = cases }
end

function Ops:measure(ops, indent, out, skip_lits)
    return self:render(ops, MEASURE, indent, out, skip_lits)
end

function Ops:put(ops, indent, out)
    return self:render(ops, PUT, indent, out)
end

---------------------------------------------------------------------------------------------
-- Declarations (header).

-- The C type of one value of argument a: its scalar's, or its own type's.
local SCALAR_CTYPE = { view = "rg_view", i64 = "int64_t", dbl = "double" }

-- The type text of a member or parameter, by what it holds of its argument (model.lua, decl),
-- with the space or '*' that joins it to the name.
local DECL_TYPE = {
    value = function(a) return (SCALAR_CTYPE[a.scalar] or a.cname) .. " " end,
    list = function(a) return "const " .. (SCALAR_CTYPE[a.scalar] or a.cname) .. " *" end,
    count = function() return "size_t " end,
    flag = function() return "bool " end,
}

local function decl_type(d)
    return DECL_TYPE[d.holds](d.arg)
end

local function decl_text(d)
    return decl_type(d) .. d.name .. ";"
end

local function enum_decl(name, labels)
    local out = { "typedef enum " .. name .. " {" }
    for _, l in ipairs(labels) do out[#out + 1] = layout.spaces(IND) .. l .. "," end
    out[#out + 1] = "} " .. name .. ";"
    return table.concat(out, "\n")
end

local function struct_decl(name, lines)
    local out = { "typedef struct " .. name .. " {" }
    for _, l in ipairs(lines) do out[#out + 1] = l end
    out[#out + 1] = "} " .. name .. ";"
    return table.concat(out, "\n")
end

-- Member declarations; one too long for a line continues with its name on the next.
local function member_lines(decls, indent)
    local out = {}
    for _, d in ipairs(decls) do
        local line = layout.spaces(indent) .. decl_text(d)
        if #line > LIMIT and d.holds ~= "list" then
            out[#out + 1] = layout.spaces(indent) .. decl_type(d):gsub(" $", "")
            line = layout.spaces(indent + IND) .. d.name .. ";"
        end
        out[#out + 1] = line
    end
    return out
end

local function labels_of(t)
    local labels = { t.none }
    for _, alt in ipairs(t.alts) do labels[#labels + 1] = alt.label end
    return labels
end

local function type_decl(t)
    if t.enum then return enum_decl(t.cname, labels_of(t)) end
    if t.kind == "block" then return struct_decl(t.cname, member_lines(t.fields, IND)) end
    local kind = t.cname .. "_kind"
    local lines = { layout.spaces(IND) .. kind .. " kind;" }
    if #t.members > 0 then
        lines[#lines + 1] = layout.spaces(IND) .. "union {"
        for _, m in ipairs(t.members) do
            if m.multiple then
                lines[#lines + 1] = layout.spaces(2 * IND) .. "struct {"
                for _, l in ipairs(member_lines(m.decls, 3 * IND)) do lines[#lines + 1] = l end
                lines[#lines + 1] = layout.spaces(2 * IND) .. "};"
            else
                for _, l in ipairs(member_lines(m.decls, 2 * IND)) do lines[#lines + 1] = l end
            end
        end
        lines[#lines + 1] = layout.spaces(IND) .. "};"
    end
    return enum_decl(kind, labels_of(t)) .. "\n\n" .. struct_decl(t.cname, lines)
end

-- A bound: a constant plus multiples of runtime macros.
local function bound_value(bytes, terms)
    local parts = { tostring(bytes) }
    for _, t in ipairs(terms) do
        if t[1] == 1 then
            parts[#parts + 1] = t[2]
        elseif t[1] > 1 then
            parts[#parts + 1] = t[1] .. " * " .. t[2]
        end
    end
    if #parts == 1 then return parts[1] end
    return "(" .. table.concat(parts, " + ") .. ")"
end

local function command_macros(cm, iov)
    local defs = { { cm.MACRO .. "_FIXED_SIZE", tostring(cm.fixed_bytes) } }
    local b = cm.bound
    if not b.many and not b.open then
        defs[#defs + 1] = { cm.MACRO .. "_MAX_SIZE",
            bound_value(b.bytes, { { b.doubles, "RG_DOUBLE_MAX_LEN" } }) }
    end
    if not b.many and iov then
        defs[#defs + 1] = { cm.MACRO .. "_IOV_MAX", tostring(2 * b.views + 1) }
        defs[#defs + 1] = { cm.MACRO .. "_SCRATCH_MAX", bound_value(b.scratch,
            { { b.copies, "RG_IOV_COPY_MIN" }, { b.doubles, "RG_DOUBLE_MAX_LEN" } }) }
    end
    return table.concat(layout.macros(defs), "\n")
end

local function opts_param(cm)
    return cm.has_opts and { "const " .. cm.opts_type .. " *opts" } or {}
end

local function param_texts(cm)
    local out = {}
    for _, d in ipairs(cm.params) do out[#out + 1] = decl_type(d) .. d.name end
    return concat(out, opts_param(cm))
end

local function arg_names(cm)
    local out = {}
    for _, d in ipairs(cm.params) do out[#out + 1] = d.name end
    if cm.has_opts then out[#out + 1] = "opts" end
    return out
end

-- The encoder's own parameters (texts and names), shared with emit_client.lua so that the client
-- calls take exactly what the encoders take.
M.param_texts = param_texts
M.arg_names = arg_names

-- Leading parameters of the functions that write into the caller's buffer, of _pipe_write (and
-- the shared shapes') and of _encode_iov.
local PUBLIC_WRITE = { "char *dst", "size_t cap" }
local PIPE_WRITE = { "rg_pipe *p" }
local PUBLIC_IOV = { "rg_iov *iov", "size_t iov_cap", "char *scratch", "size_t scratch_cap" }

-- The out-of-line functions of a command: name suffix -> leading parameters; iov: only with
-- --iov.
local PUBLIC = {
    { "pipe_write", PIPE_WRITE },
    { "iov_count", {}, iov = true },
    { "scratch_size", {}, iov = true },
    { "encode_iov", PUBLIC_IOV, iov = true },
}

-- _try_encode, _size, _encode and _append: _pipe_write into a pipe over the caller's buffer,
-- over no buffer, over the caller's buffer, into the caller's pipe. _pipe_write measures once and
-- makes room (growing an owned pipe) before it writes, all in one call: _append writes once and
-- keeps no argument alive across a call (bench/enc E1, pipe: 163 -> 154 instructions, 8.0 ->
-- 6.6 ns; it measured, grew and wrote again when short before).
local function wrapper_defs(cm, lead)
    local args = arg_names(cm)
    local params = param_texts(cm)
    local write = cm.fn .. "_pipe_write"
    local try = cm.fn .. "_try_encode"
    return {
        func(lead, try, concat(PUBLIC_WRITE, params), {
            text("rg_pipe p;"),
            call("", "rg_pipe_init", { "&p", "dst", "cap" }),
            call("return ", write, concat({ "&p" }, args)),
        }),
        func(lead, cm.fn .. "_size", params, { call("return ", try, concat({ "NULL", "0" },
            args)) }),
        func(lead, cm.fn .. "_encode", concat(PUBLIC_WRITE, params), {
            call("const size_t n = ", try, concat({ "dst", "cap" }, args)),
            text("return n <= cap ? n : 0;"),
        }),
        -- Written when it fit or the pipe grew: then n bytes fit at the pipe's end.
        func(lead, cm.fn .. "_append", concat(PIPE_WRITE, params), {
            call("const size_t n = ", write, concat({ "p" }, args)),
            text("return n <= rg_pipe_room(p) ? rg_pipe_commit(p, n) : 0;"),
        }),
    }
end

-- The wrappers of a source file's header are static inline too: each is a call and a compare
-- around _pipe_write, so that _pipe_write is the only copy of the command's code in the object
-- file, and _encode costs no second call (E1).
local WRAPPER_LEAD = "static inline size_t "

-- The syntax line, and for each counted key list what writes its count.
local function command_doc(cm)
    local text = resp.comment_escape(cm.syntax)
    for _, c in ipairs(cm.counted) do
        local where = count_expr(c.list, c.list.optional and "opts" or "param")
        text = text .. " (" .. resp.comment_escape(c.count.name) .. ": written from " .. where ..
            ", not a parameter)"
    end
    return layout.comment(0, text)
end

-- form: { header_only = bool, iov = bool (the iovec functions) }.
local function command_header(cm, form)
    local parts = { command_doc(cm) .. "\n" .. command_macros(cm, form.iov) }
    for _, t in ipairs(cm.types) do parts[#parts + 1] = type_decl(t) end
    if cm.has_opts then
        parts[#parts + 1] = layout.comment(0,
            "Optional arguments of " .. resp.comment_escape(cm.name) ..
            ": zeroed members (or opts == NULL) send none.") ..
            "\n" .. struct_decl(cm.opts_type, member_lines(cm.opts_fields, IND))
    end
    if not form.header_only then
        local protos = {}
        for _, f in ipairs(PUBLIC) do
            if f[1] == "pipe_write" and form.shaped and form.shaped[cm.fn] then
                protos[#protos + 1] = form.shaped[cm.fn]
            elseif form.iov or not f.iov then
                protos[#protos + 1] = proto("size_t ", cm.fn .. "_" .. f[1],
                    concat(f[2], param_texts(cm)))
            end
        end
        parts[#parts + 1] = table.concat(protos, "\n")
        for _, d in ipairs(wrapper_defs(cm, WRAPPER_LEAD)) do parts[#parts + 1] = d end
    end
    return table.concat(parts, "\n\n")
end

---------------------------------------------------------------------------------------------
-- Definitions (source, or header-only).

-- The enum's table entries at column col: one designated initializer per value. One that does
-- not fit on a line breaks inside its braces when that fits, else after '=' (clang-format's
-- penalties for the two).
local function bulk_lines(t, col)
    local flat = {}
    for _, alt in ipairs(t.alts) do
        flat[#flat + 1] = "[" .. alt.label .. "] = {\"" .. resp.c_escape(alt.bulk) .. "\", " ..
            #alt.bulk .. "}"
    end
    local rows = layout.rows(col, flat)
    if rows then return rows end
    local out = {}
    for _, alt in ipairs(t.alts) do
        local head = "[" .. alt.label .. "] = "
        local lit, len = '{"' .. resp.c_escape(alt.bulk) .. '",', #alt.bulk .. "},"
        local at = col + #head
        if at + #lit + 1 + #len <= LIMIT then
            out[#out + 1] = layout.spaces(col) .. head .. lit .. " " .. len
        elseif at + #lit <= LIMIT then
            out[#out + 1] = layout.spaces(col) .. head .. lit
            out[#out + 1] = layout.spaces(at + 1) .. len
        else
            out[#out + 1] = layout.spaces(col) .. head:gsub(" $", "")
            out[#out + 1] = layout.spaces(col + IND) .. lit .. " " .. len
        end
    end
    return out
end

-- The same entries as statements of a function body (a local table).
local function bulk_entries(t)
    local out = {}
    for k, l in ipairs(bulk_lines(t, 2 * IND)) do out[k] = text(l:sub(IND + 1)) end
    return out
end

-- A pure-token oneof: a table of its values' bulks, and measure and put through it.
-- put_only: the bulk and put functions only (the option words').
local function enum_defs(t, ops, static, put_only)
    local body = concat({ text("static const rg_view bulks[] = {") }, bulk_entries(t), {
        text("};"),
        text("return (size_t)v < sizeof bulks / sizeof bulks[0] ? bulks[v] : (rg_view){NULL, 0};"),
    })
    local bulk = t.cname .. "_bulk"
    local lookup = call("const rg_view b = ", bulk, { "v" })
    local value = t.cname .. " v"
    local defs = { layout.comment(0, "The bulk of each choice; {NULL, 0} for none or out of " ..
        "range.") .. "\n" .. func(static .. " rg_view ", bulk, { value }, body) }
    if not put_only then
        defs[#defs + 1] = func(static .. " void ", t.cname .. "_measure",
            { "rg_meas *m", value }, { lookup, call("", ops:rt("meas_bulk"), { "m", "b" }) })
    end
    defs[#defs + 1] = func(static .. " char *", t.cname .. "_put", { "char *dst", value },
        { lookup, call("return ", "rg_put_bulk_lit", { "dst", "b" }) })
    return table.concat(defs, "\n\n")
end

local function type_defs(t, ops, static)
    if t.enum then return enum_defs(t, ops, static) end
    local v = "const " .. t.cname .. " *v"
    local m = func(static .. " void ", t.cname .. "_measure",
        { "rg_meas *m", v }, ops:with("m", "w", "return;"):measure(t.ops, IND, {}))
    local put_params = { "char *dst" }
    if ops:writer(t.has_views) then put_params[#put_params + 1] = ops.p .. "_iovw *w" end
    if sends_double(t.ops) then put_params[#put_params + 1] = "rg_dbls *k" end
    put_params[#put_params + 1] = v
    local put_body = ops:keeping():put(t.ops, IND, {})
    put_body[#put_body + 1] = text("return dst;")
    local p = func(static .. " char *", t.cname .. "_put", put_params, put_body)
    return m .. "\n\n" .. p
end

-- Whether an op reads the options struct: one found through it, except the count of a list in
-- it, which tests opts itself (i64_of).
local function reads_opts(o)
    if o.via == "opts" then return not o.count_of end
    for _, b in ipairs(o.body or {}) do if reads_opts(b) then return true end end
    for _, c in ipairs(o.cases or {}) do
        for _, b in ipairs(c.body) do if reads_opts(b) then return true end end
    end
    return false
end

-- The command's ops with each run of option ops under one `if (opts)`: without options (NULL),
-- the most common call, they cost one test instead of a load and a test each.
local function guard_opts(ops)
    local out, run = {}, nil
    for _, o in ipairs(ops) do
        if not reads_opts(o) then
            out[#out + 1], run = o, nil
        elseif run then
            run.body[#run.body + 1] = o
        else
            run = { op = "if", test = "opts", body = { o } }
            out[#out + 1] = run
        end
    end
    return out
end

local function measure_def(cm, ops, static)
    local body, params = {}, { "rg_meas *m" }
    body[#body + 1] = call("", ops:rt("meas_start"),
        { "m", tostring(cm.fixed_argc), cm.MACRO .. "_FIXED_SIZE" })
    if sends_double(cm.ops) then
        params[2] = "rg_dbls *k"
        body[#body + 1] = call("", ops:rt("meas_keep"), { "m", "k" })
    end
    ops:measure(guard_opts(cm.ops), IND, body, true)
    local total = cm.const_argc and "meas_total" or "meas_total_array"
    body[#body + 1] = call("return ", ops:rt(total), { "m" })
    return func(static .. " size_t ", cm.fn .. "_measure", concat(params, param_texts(cm)), body)
end

-- The arguments of a call of the command's measure function (with the kept doubles' k when it
-- sends doubles).
local function measure_args(cm)
    local args = { "&m" }
    if sends_double(cm.ops) then args[2] = "&k" end
    return concat(args, arg_names(cm))
end

-- The declarations of the measure struct and, when the command sends doubles, their texts.
local function meas_decls(cm)
    local out = { text("rg_meas m;") }
    if sends_double(cm.ops) then out[2] = text("rg_dbls k;") end
    return out
end

local function put_params(cm, ops)
    local params = { "char *dst" }
    if ops:writer(cm.has_views) then params[#params + 1] = ops.p .. "_iovw *w" end
    if sends_double(cm.ops) then params[#params + 1] = "rg_dbls *k" end
    if not cm.const_argc then params[#params + 1] = "size_t argc" end
    return concat(params, param_texts(cm))
end

-- The ops that write something: checks are for measuring only (an option's check alone would
-- leave an empty `if (opts)`).
local function writing_ops(ops)
    local out = {}
    for _, o in ipairs(ops) do
        if o.op ~= "check" then out[#out + 1] = o end
    end
    return out
end

local function put_def(cm, ops, static)
    local body = {}
    if not cm.const_argc then
        body[#body + 1] = call("dst = ", "rg_put_array_header", { "dst", "argc" })
    end
    ops:keeping():put(guard_opts(writing_ops(cm.ops)), IND, body)
    body[#body + 1] = text("return dst;")
    return func(static .. " char *", cm.fn .. "_put", put_params(cm, ops), body)
end

-- Arguments of the internal put call: destination, writer, word count, then the caller's.
local function put_args(cm, ops, dst, writer)
    local args = { dst }
    if ops:writer(cm.has_views) then args[#args + 1] = writer end
    if sends_double(cm.ops) then args[#args + 1] = "&k" end
    if not cm.const_argc then args[#args + 1] = "m.argc" end
    return concat(args, arg_names(cm))
end

-- Without options, a command whose required arguments are one word each always sends the same
-- words: its ops without the options, adjacent constants merged, the array header joining the
-- first. nil for other commands. size and encode take this path when opts is NULL, the common
-- call: no word count, no option tests, and a smaller function for the compiler to keep in
-- registers (bench/enc/bench_gen.c, E1: 8.1 -> 7.3 ns, 163 -> 152 instructions).
local SINGLE_WORD = { view = true, i64 = true, dbl = true, enum = true }

-- At most this many views (RG_FIX_VIEWS_MAX, rg_enc.h), and no enum (its measure function takes
-- an rg_meas), and the fixed-shape path sums their sizes unchecked (rg_fix): a plain sum, the
-- rare views it cannot take (NULL, longer than RG_FIX_VIEW_MAX) going to the general path.
-- bench/enc E1: 154 -> 147 instructions.
local FIX_VIEWS_MAX = 7

-- The fixed-shape path's sum of a view, an integer, a double (unchecked: rg_fix).
local FIX = {
    view = function(o)
        if o.arg.max_len then
            return call("", "rg_fix_view_max", { "&f", value_of(o), tostring(o.arg.max_len) })
        end
        return call("", "rg_fix_view", { "&f", value_of(o) })
    end,
    i64 = function(o) return call("", "rg_fix_i64", { "&f", i64_of(o) }) end,
    dbl = function(o) return call("", "rg_fix_double", { "&f", value_of(o) }) end,
}

local function plain_ops(cm)
    if not cm.has_opts then return nil end
    local ops, argc, extra, views, enums = {}, 0, 0, 0, 0
    for _, o in ipairs(cm.ops) do
        if not reads_opts(o) then
            if o.when_no_opts then
                -- A constant here but not in FIXED_SIZE (with options it varies).
                o = { op = "lit", bytes = o.when_no_opts, argc = 1 }
                extra = extra + #o.bytes
            end
            if o.op == "lit" then
                argc = argc + o.argc
                local prev = ops[#ops]
                if prev and prev.op == "lit" then
                    ops[#ops] = { op = "lit", bytes = prev.bytes .. o.bytes,
                        argc = prev.argc + o.argc }
                else
                    ops[#ops + 1] = o
                end
            elseif SINGLE_WORD[o.op] then
                argc = argc + 1
                views = views + (o.op == "view" and 1 or 0)
                enums = enums + (o.op == "enum" and 1 or 0)
                ops[#ops + 1] = o
            else
                return nil
            end
        end
    end
    local header = resp.array_header(argc)
    ops[1] = { op = "lit", bytes = header .. ops[1].bytes, argc = ops[1].argc }
    return { ops = ops, argc = argc, fixed = cm.MACRO .. "_FIXED_SIZE + " .. #header + extra,
        unchecked = enums == 0 and views <= FIX_VIEWS_MAX }
end

local PLAIN_NOTE = text("/* Without options the words are fixed, and so is the array header. */")

-- The statements measuring the plain request into the local struct m.
local function plain_measure(plain, ops)
    local body = { PLAIN_NOTE, text("rg_meas m;"), call("", ops:rt("meas_start"),
        { "&m", tostring(plain.argc), plain.fixed }) }
    return ops:with("&m", "NULL"):measure(plain.ops, 2 * IND, body, true)
end

-- What _pipe_write does when the request is invalid or does not fit (nor can be made to): returns
-- its size (0 when invalid) without writing.
local function short_return(n)
    return { t = "if", cond = n .. " == 0 || !rg_pipe_fits(p, " .. n .. ")",
        body = { text("return n;") } }
end

-- Where _pipe_write writes, once the request fits.
local DST = text("char *dst = rg_pipe_end(p);")

-- The fixed-shape path with the checked sum (rg_meas): enums, or more views than rg_fix takes.
local function checked_path(plain, ops)
    local enc = plain_measure(plain, ops)
    enc[#enc + 1] = call("const size_t n = ", ops:rt("meas_total"), { "&m" })
    enc[#enc + 1] = short_return("n")
    enc[#enc + 1] = DST
    ops:with("&m", "NULL"):put(plain.ops, 2 * IND, enc)
    enc[#enc + 1] = text("return n;")
    return { t = "if", cond = "!opts", body = enc }
end

-- The fixed-shape path with the plain sum (rg_fix): taken when no argument needs a check,
-- else the general path after it decides.
local function fix_path(plain, ops)
    local body = { PLAIN_NOTE, text("rg_fix f;"), call("", "rg_fix_start", { "&f", plain.fixed }) }
    local checked = false
    for _, o in ipairs(plain.ops) do
        if FIX[o.op] then body[#body + 1] = FIX[o.op](o) end
        checked = checked or o.op == "view" or o.op == "dbl"
    end
    local enc = { text("const size_t n = f.bytes;"),
        { t = "if", cond = "!rg_pipe_fits(p, n)", body = { text("return n;") } }, DST }
    ops:with("&m", "NULL"):put(plain.ops, (checked and 3 or 2) * IND, enc)
    enc[#enc + 1] = text("return n;")
    if checked then
        body[#body + 1] = { t = "if", cond = "rg_fix_ok(&f)", body = enc }
    else
        for _, st in ipairs(enc) do body[#body + 1] = st end
    end
    return { t = "if", cond = "!opts", body = body }
end

-- _pipe_write: the one function per command that measures and writes, so that _try_encode,
-- _size, _encode and _append share one copy of the measure and put code (they were five copies,
-- one per entry point, 63% of redis.c). With the fixed-shape path first when the command has one.
-- No assert that put wrote n bytes: it cost 15% of the code of redis.c (a call and the function's
-- name each), and the tests check every encoder's size against its bytes (tests/gen, under ASan
-- too).
-- split: the general path out of line (a source file; in a header, static inline code cannot be
-- kept out of line without a warning, and the caller's compiler decides anyway).
-- _pipe_write as the fixed-shape path, and the general path (body general) out of line in
-- _pipe_write_opts, introduced by comment.
-- attr: the general path's attribute (RG_OPTS_PATH by default).
local function split_defs(cm, ops, lead, plain, general, comment, attr)
    local params = concat(PIPE_WRITE, param_texts(cm))
    local opts_fn = cm.fn .. "_pipe_write_opts"
    local fast = plain.unchecked and fix_path(plain, ops) or checked_path(plain, ops)
    return layout.comment(0, comment) .. "\n" ..
        func("static " .. (attr or "RG_OPTS_PATH") .. " size_t ", opts_fn, params, general) ..
        "\n\n" ..
        func(lead, cm.fn .. "_pipe_write", params, {
            fast,
            call("return ", opts_fn, concat({ "p" }, arg_names(cm))),
        })
end

local function write_def(cm, ops, lead, plain, split)
    local params = concat(PIPE_WRITE, param_texts(cm))
    local write = cm.fn .. "_pipe_write"
    local general = concat(meas_decls(cm), {
        call("const size_t n = ", cm.fn .. "_measure", measure_args(cm)),
        short_return("n"),
        call("", cm.fn .. "_put", put_args(cm, ops, "rg_pipe_end(p)", "NULL")),
        text("return n;"),
    })
    if not plain then return func(lead, write, params, general) end
    if not split then
        local fast = plain.unchecked and fix_path(plain, ops) or checked_path(plain, ops)
        return func(lead, write, params, concat({ fast }, general))
    end
    -- The general path out of line: inlined, the registers it needs were saved on the fast path
    -- too (bench/enc E1: 5.3 -> 4.9 ns, 158 -> 152 instructions). And cold by default
    -- (RG_OPTS_PATH, rg_enc.h): these functions were most of redis.c's code and compile time.
    return split_defs(cm, ops, lead, plain, general,
        "With options: what _pipe_write does for any command (RG_OPTS_PATH: rg_enc.h).")
end

-- The iovec form (--iov): three more entry points, each measuring again.
local function iov_defs(cm, ops, lead)
    local params = param_texts(cm)
    local measure_n = call("const size_t n = ", cm.fn .. "_measure", measure_args(cm))
    return {
        func(lead, cm.fn .. "_iov_count", params, concat(meas_decls(cm), {
            measure_n, text("return n ? 2 * m.views + 1 : 0;"),
        })),
        func(lead, cm.fn .. "_scratch_size", params, concat(meas_decls(cm), {
            measure_n, text("return n ? n - m.payload : 0;"),
        })),
        func(lead, cm.fn .. "_encode_iov", concat(PUBLIC_IOV, params), concat(meas_decls(cm), {
            measure_n,
            { t = "if", cond = "!" .. ops:helper("iov_fits") .. "(&m, n, iov_cap, scratch_cap)",
                body = { text("return 0;") } },
            text(ops:helper("iovw") .. " w = {iov, 0, scratch};"),
            call("const char *end = ", cm.fn .. "_put", put_args(cm, ops, "scratch", "&w")),
            call("return ", ops:helper("iov_finish"), { "&w", "end", "&m" }),
        })),
    }
end

-- header_only: the wrappers too (a source file's header defines them).
local function public_defs(cm, ops, lead, form)
    local iov, header_only = form.iov, form.header_only
    local defs = { write_def(cm, ops, lead, plain_ops(cm), not header_only) }
    if header_only then
        for _, d in ipairs(wrapper_defs(cm, lead)) do defs[#defs + 1] = d end
    end
    if iov then
        for _, d in ipairs(iov_defs(cm, ops, lead)) do defs[#defs + 1] = d end
    end
    return table.concat(defs, "\n\n")
end

-- Internal functions and helpers are static inline in a source file too: at -O2 the hint is what
-- makes gcc inline measure and put into _pipe_write (and the iovec form's functions), so the
-- measure struct lives in registers (bench/enc/bench_gen.c, gcc 12 -O2: E3 and E4 took 1.5x the
-- instructions without it). The runtime's rg_meas_* helpers must stay inline too: all static,
-- E1 +21%, E3 +16%, E4 +18% instructions (docs/bench-encoder.md). Header-only output is all
-- static inline anyway.
local STATIC = "static inline"

-- The option words of a command as compiled code: what rg_ops_words (runtime/rg_ops.c) does
-- with the options' part of the command's table, for options that are flat: tokens, choices,
-- integers and doubles, blocks and oneofs of them (no string, no list, no check, no type inside
-- a type), at most RG_WORDS_MAX bytes in all (so no room checks). Returns false where measuring
-- would refuse (a choice outside its enum, a NaN, a oneof of no known kind), and the general path
-- then refuses. One walk that writes, instead of the table's walk: bench/enc E5 (SET k v EX 100).
local WORDS_MAX = 128 -- RG_WORDS_MAX
-- The one-pass path's words (onepass_plan): strings copied up to this many bytes, and a buffer on
-- the stack of at most this many.
local WORDS_VIEW_MAX, ONEPASS_MAX = 64, 512
local WORDS_I64, WORDS_DBL = 5 + 20 + 2, 5 + 24 + 2

-- The statements of ops into out; returns the most bytes they write, or nil when not flat.
-- st.argc: the words written since the last flush (added to argc once, before control flow).
local words_ops

local function flush(st, out)
    if st.argc > 0 then out[#out + 1] = text("argc += " .. st.argc .. ";") end
    st.argc = 0
end

local WORDS = {
    lit = function(o, st, out, indent)
        put_lit(o, indent, out)
        st.argc = st.argc + o.argc
        return #o.bytes
    end,
    i64 = function(o, st, out)
        out[#out + 1] = call("dst = ", "rg_put_bulk_i64_short", { "dst", i64_of(o) })
        st.argc = st.argc + 1
        return WORDS_I64
    end,
    dbl = function(o, st, out)
        local x = value_of(o)
        out[#out + 1] = { t = "if", cond = x .. " != " .. x, body = { text(st.fail) } }
        out[#out + 1] = call("dst = ", "rg_put_bulk_double", { "dst", x })
        st.argc = st.argc + 1
        return WORDS_DBL
    end,
    enum = function(o, st, out)
        local x, t = value_of(o), o.arg
        -- 0 (none) wraps to SIZE_MAX: none and out of range alike.
        out[#out + 1] = { t = "if", cond = "(size_t)" .. x .. " - 1 >= " .. #t.alts,
            body = { text(st.fail) } }
        out[#out + 1] = call("dst = ", t.cname .. "_put", { "dst", x })
        st.enums[t.cname] = true
        st.argc = st.argc + 1
        local most = 0
        for _, alt in ipairs(t.alts) do most = math.max(most, #alt.bulk) end
        return most
    end,
    -- A string (the one-pass path only): copied when at most WORDS_VIEW_MAX bytes (and its
    -- max_len), else false, and the general path encodes or refuses it.
    view = function(o, st, out)
        if not st.nested then return nil end
        local x = value_of(o)
        local max = math.min(o.arg.max_len or WORDS_VIEW_MAX, WORDS_VIEW_MAX)
        out[#out + 1] = { t = "if", cond = x .. ".len > " .. max .. " || (!" .. x .. ".ptr && " ..
            x .. ".len != 0)", body = { text(st.fail) } }
        out[#out + 1] = call("dst = ", "rg_put_bulk", { "dst", x .. ".ptr", x .. ".len" })
        st.argc = st.argc + 1
        return resp.bulk_size(max)
    end,
    ["if"] = function(o, st, out, indent)
        flush(st, out)
        local body = {}
        -- A type alone in the body needs no block of its own.
        local unwrap = #o.body == 1 and o.body[1].op == "call"
        st.unwrapped = unwrap
        local most = words_ops(o.body, st, body, indent + IND)
        flush(st, body)
        st.unwrapped = false
        if not most then return nil end
        if unwrap then body = body[1].body end
        out[#out + 1] = { t = "if", cond = TEST[o.test](o), body = body }
        return most
    end,
    call = function(o, st, out, indent)
        if st.in_type and not st.nested then return nil end
        flush(st, out)
        local at = st.unwrapped and indent or indent + IND
        st.unwrapped = false
        -- A type inside a type (the one-pass path only) names its value v2, v3, ...: -Wshadow.
        local depth = (st.depth or 0) + 1
        local var = depth == 1 and "v" or "v" .. depth
        local body = { { t = "assign", lhs = "const " .. o.arg.cname .. " *" .. var,
            rhs = "&" .. value_of(o) } }
        local outer, in_type = BASE.member, st.in_type
        BASE.member, st.in_type, st.depth = var .. "->", true, depth
        local most = words_ops(o.arg.ops, st, body, at)
        BASE.member, st.in_type, st.depth = outer, in_type, depth - 1
        flush(st, body)
        if not most then return nil end
        out[#out + 1] = { t = "block", body = body }
        return most
    end,
    switch = function(o, st, out, indent)
        flush(st, out)
        local cases, most = {}, 0
        for _, c in ipairs(o.cases) do
            local body = {}
            local n = words_ops(c.body, st, body, indent + IND)
            if not n then return nil end
            flush(st, body)
            -- A type's block (a nested type: the one-pass path) opens the case's braces instead.
            local blocks = {}
            for k, b in ipairs(body) do if b.t == "block" then blocks[#blocks + 1] = k end end
            if #blocks == 1 then
                local k = blocks[1]
                body = concat({ table.unpack(body, 1, k - 1) }, body[k].body,
                    { table.unpack(body, k + 1) })
            end
            local braced = #blocks > 0
            body[#body + 1] = text("break;")
            cases[#cases + 1] = { label = c.label, body = body, braced = braced }
            most = math.max(most, n)
        end
        cases[#cases + 1] = { label = "default", body = { text(st.fail) } }
        out[#out + 1] = { t = "switch", expr = BASE.member .. "kind", cases = cases }
        return most
    end,
}

words_ops = function(ops, st, out, indent)
    local most = 0
    for _, o in ipairs(ops) do
        local f = WORDS[o.op]
        local n = f and f(o, st, out, indent)
        if not n then return nil end
        most = most + n
    end
    return most
end

-- The most words flat options send.
local function words_argc(ops)
    local n = 0
    for _, o in ipairs(ops) do
        if o.op == "lit" then
            n = n + o.argc
        elseif o.op == "if" then
            n = n + words_argc(o.body)
        elseif o.op == "call" then
            n = n + words_argc(o.arg.ops)
        elseif o.op == "switch" then
            local most = 0
            for _, c in ipairs(o.cases) do most = math.max(most, words_argc(c.body)) end
            n = n + most
        else
            n = n + 1
        end
    end
    return n
end

-- The definition of <cmd>_words for the options' run (the `if (opts)` op), or nil when its
-- options are not flat; and the enum types whose _put it calls (by cname).
local function words_def(cm, run)
    local st = { argc = 0, enums = {}, fail = "return false;" }
    local body = { text("char *dst = w->bytes;"), text("size_t argc = 0;") }
    local most = words_ops({ run }, st, body, IND)
    if not most or most > WORDS_MAX then return nil end
    body[#body + 1] = text("w->len = (size_t)(dst - w->bytes);")
    body[#body + 1] = text("w->argc = argc;")
    body[#body + 1] = text("return true;")
    return layout.comment(0, "The words of " .. resp.comment_escape(cm.name) .. "'s " ..
        "options, as rg_ops_words writes them from its table: compiled, as they are flat " ..
        "(at most " .. most .. " bytes). False where measuring refuses.") .. "\n" ..
        func("static inline bool ", cm.fn .. "_words",
            { "rg_words *w", "const " .. cm.opts_type .. " *opts" }, body), st.enums
end

-- The required part of a command whose options' words are compiled: its constant words, then
-- at most FIX_VIEWS_MAX views and any integers and doubles, summed with rg_fix; nil otherwise.
local function fix_req(req)
    local lits, values, views = {}, {}, 0
    for _, o in ipairs(req) do
        if o.op == "lit" and #values == 0 then
            lits[#lits + 1] = o
        elseif FIX[o.op] then
            values[#values + 1] = o
            views = views + (o.op == "view" and 1 or 0)
        else
            return nil
        end
    end
    if #lits == 0 or views > FIX_VIEWS_MAX then return nil end
    local head, argc = "", 0
    for _, o in ipairs(lits) do head, argc = head .. o.bytes, argc + o.argc end
    return { req = req, head = head, argc = argc + #values, values = values }
end

-- _pipe_write_opts's path through the compiled words: the request as the fixed-shape path
-- writes it, with the words' count in its array header and their bytes after the arguments.
-- Inline, not a shared shape: a call and its saved registers were 35 of E5's instructions.
local function words_path(cm, ops, inline, run)
    local fix = { text("rg_fix f;"),
        call("", "rg_fix_start", { "&f", #inline.head .. " + w.len" }) }
    for _, o in ipairs(inline.values) do fix[#fix + 1] = FIX[o.op](o) end
    fix[#fix + 1] = text("const size_t argc = " .. inline.argc .. " + w.argc;")
    -- "*<argc>\r\n": 4 bytes while at most 9 words.
    local header = inline.argc + words_argc({ run }) < 10 and "4" or "rg_array_header_size(argc)"
    local enc = { text("const size_t n = f.bytes + " .. header .. ";"),
        { t = "if", cond = "!rg_pipe_fits(p, n)", body = { text("return n;") } }, DST,
        text("dst = rg_put_array_header(dst, argc);") }
    ops:with("&m", "NULL"):put(inline.req, 3 * IND, enc)
    enc[#enc + 1] = text("rg_put_bytes(dst, w.bytes, w.len);")
    enc[#enc + 1] = text("return n;")
    fix[#fix + 1] = { t = "if", cond = "rg_fix_ok(&f)", body = enc }
    return { text("rg_words w;"), call("const bool words = ", cm.fn .. "_words", { "&w", "opts" }),
        { t = "if", cond = "words", body = fix } }
end

-- The one-pass path of a command without a fixed-shape path whose options sit between its other
-- arguments (XADD key [NOMKSTREAM] [MAXLEN ~ n] id field value ..., GEOSEARCH key FROMMEMBER m
-- BYRADIUS r km [COUNT n] ...): the general path measures every option and oneof, then tests and
-- writes each again. Here one run of the command's top-level ops (options, oneofs and blocks of
-- tokens, choices, integers, doubles and strings of at most WORDS_VIEW_MAX bytes) is written once
-- into a buffer on the stack (<cmd>_words), and the request is its constant words, its top-level
-- strings and integers (summed with rg_fix) and lists (measured with rg_meas), with the words'
-- bytes copied where the run sits. Anything the words or the sums do not take (a longer string, a
-- view {NULL, n > 0}, a NaN, a choice outside its enum, a check that holds, a sum that would wrap)
-- goes to the general path, out of line, which encodes or refuses it as before.
-- Returns nil for commands it does not fit: no run, two runs, a list of doubles (ZADD: rg_dbls
-- keeps their texts), or more than FIX_VIEWS_MAX top-level strings.
local ONEPASS_DIRECT = { lit = true, view = true, i64 = true, each = true }

-- Whether ops hold a check (measuring code writes m->bad: not for the one-pass path's local m).
local function has_check(ops)
    for _, o in ipairs(ops) do
        if o.op == "check" or has_check(o.body or {}) or
            (o.op == "call" and has_check(o.arg.ops)) then
            return true
        end
        for _, c in ipairs(o.cases or {}) do if has_check(c.body) then return true end end
    end
    return false
end

local function onepass_plan(cm)
    if not cm.has_opts then return nil end
    local checks, items, run, views = {}, {}, nil, 0
    for _, o in ipairs(guard_opts(cm.ops)) do
        local direct = ONEPASS_DIRECT[o.op] and o.via == "param" and not o.elem
        if o.op == "check" then
            checks[#checks + 1] = o
        elseif o.op == "lit" and items[#items] and items[#items].kind == "lit" then
            local prev = items[#items].o
            items[#items].o = { op = "lit", bytes = prev.bytes .. o.bytes,
                argc = prev.argc + o.argc }
        elseif o.op == "lit" then
            items[#items + 1] = { kind = "lit", o = o }
        elseif direct and o.op == "each" then
            if sends_double({ o }) or has_check(o.body) then return nil end
            items[#items + 1] = { kind = "list", o = o }
        elseif direct then
            views = views + (o.op == "view" and 1 or 0)
            items[#items + 1] = { kind = "value", o = o }
        elseif run and items[#items] ~= run then
            return nil
        elseif run then
            run.ops[#run.ops + 1] = o
        else
            run = { kind = "words", ops = { o } }
            items[#items + 1] = run
        end
    end
    if not run or views > FIX_VIEWS_MAX or items[1].kind ~= "lit" then return nil end
    return { checks = checks, items = items, run = run }
end

-- <cmd>_words of the one-pass path: its checks (false when one holds), then the run's words at
-- dst; returns their end, or NULL where the general path must decide. Its parameters: the
-- command's that it reads. nil when the run is not flat or longer than ONEPASS_MAX.
local function onepass_words_def(cm, plan)
    local st = { argc = 0, enums = {}, fail = "return NULL;", nested = true }
    local body = {}
    for _, o in ipairs(plan.checks) do
        body[#body + 1] = { t = "if", cond = TEST[o.test](o), body = { text("return NULL;") } }
    end
    body[#body + 1] = text("size_t argc = 0;")
    local most = words_ops(plan.run.ops, st, body, IND)
    if not most or most > ONEPASS_MAX then return nil end
    flush(st, body)
    body[#body + 1] = text("*count = argc;")
    body[#body + 1] = text("return dst;")
    local seen = table.concat(render_list(body, IND, {}), "\n")
    local params = { "char *dst", "size_t *count" }
    local args = {}
    for _, d in ipairs(cm.params) do
        if seen:find("%f[%w_]" .. d.name .. "%f[^%w_]") then
            params[#params + 1] = decl_type(d) .. d.name
            args[#args + 1] = d.name
        end
    end
    if seen:find("%f[%w_]opts%f[^%w_]") then
        params[#params + 1] = "const " .. cm.opts_type .. " *opts"
        args[#args + 1] = "opts"
    end
    return func("static inline char *", cm.fn .. "_words", params, body), args, most, st.enums
end

-- _pipe_write of the one-pass path (onepass_plan), <cmd>_words (onepass_words_def: words, args
-- and most) and the general path (body general) out of line (_pipe_write_general,
-- RG_OPTS_PATH).
local function onepass_defs(cm, ops, plan, general, words, args, most)
    local lead = "size_t "
    local bytes, argc, list = 0, 0, nil
    local fix, enc = {}, {}
    local at = ops:with("&m", "NULL")
    for _, it in ipairs(plan.items) do
        if it.kind == "lit" then
            bytes, argc = bytes + #it.o.bytes, argc + it.o.argc
            put_lit(it.o, 3 * IND, enc)
        elseif it.kind == "value" then
            argc = argc + 1
            fix[#fix + 1] = FIX[it.o.op](it.o)
            at:put({ it.o }, 3 * IND, enc)
        elseif it.kind == "words" then
            enc[#enc + 1] = text("dst = rg_put_bytes(dst, words, len);")
        else
            list = it.o
            at:put({ it.o }, 3 * IND, enc)
        end
    end
    local words_fn = cm.fn .. "_words"
    local body = {
        text("char words[" .. most .. "];"),
        text("size_t count;"),
        call("const char *const end = ", words_fn, concat({ "words", "&count" }, args)),
    }
    local path = { text("const size_t len = (size_t)(end - words);"), text("rg_fix f;"),
        call("", "rg_fix_start", { "&f", bytes .. " + len" }) }
    for _, st in ipairs(fix) do path[#path + 1] = st end
    local head = {}
    if list then
        path[#path + 1] = text("rg_meas m;")
        path[#path + 1] = call("", "rg_meas_start", { "&m", argc .. " + count", "f.bytes" })
        at:measure({ list }, 2 * IND, path)
        head[1] = text("const size_t n = rg_meas_total_array(&m);")
        head[2] = short_return("n")
        head[3] = DST
        head[4] = text("dst = rg_put_array_header(dst, m.argc);")
    else
        path[#path + 1] = text("const size_t argc = " .. argc .. " + count;")
        -- "*<argc>\r\n": 4 bytes while at most 9 words.
        local header = argc + words_argc(plan.run.ops) < 10 and "4" or
            "rg_array_header_size(argc)"
        head[1] = text("const size_t n = f.bytes + " .. header .. ";")
        head[2] = { t = "if", cond = "!rg_pipe_fits(p, n)", body = { text("return n;") } }
        head[3] = DST
        head[4] = text("dst = rg_put_array_header(dst, argc);")
    end
    enc = concat(head, enc)
    enc[#enc + 1] = text("return n;")
    path[#path + 1] = { t = "if", cond = list and "rg_fix_ok(&f) && !m.bad" or "rg_fix_ok(&f)",
        body = enc }
    body[#body + 1] = { t = "if", cond = "end", body = path }
    local params = concat(PIPE_WRITE, param_texts(cm))
    local slow = cm.fn .. "_pipe_write_general"
    body[#body + 1] = call("return ", slow, concat({ "p" }, arg_names(cm)))
    return words .. "\n\n" .. layout.comment(0, "Any request the one pass does not take: " ..
        "the table's, measured and written by rg_ops_pipe_write (RG_OPTS_PATH: rg_enc.h).") ..
        "\n" ..
        func("static RG_OPTS_PATH size_t ", slow, params, general) .. "\n\n" ..
        layout.comment(0, "One pass: " .. cm.fn .. "_words writes the words between the " ..
        "arguments once, and the request is measured around them.") .. "\n" ..
        func(lead, cm.fn .. "_pipe_write", params, body)
end

-- The types (by cname) that ops send through their functions: called or chosen, recursively.
local function types_of(ops, out)
    for _, o in ipairs(ops) do
        if o.op == "call" or o.op == "enum" then
            out[o.arg.cname] = true
            if o.op == "call" then types_of(o.arg.ops, out) end
        end
        types_of(o.body or {}, out)
        for _, c in ipairs(o.cases or {}) do types_of(c.body, out) end
    end
    return out
end

-- A command with a one-pass path (onepass_plan): its general path is an op table, as that of a
-- command with a fixed-shape path (table_defs), and only the functions the one pass calls are
-- code: the _put of the choices in its words, the measure and put of the types in its list.
-- nil when the words are not flat.
local function onepass_table_defs(cm, ops, plan)
    local words, args, most, put_enums = onepass_words_def(cm, plan)
    if not words then return nil end
    local listed = {}
    for _, it in ipairs(plan.items) do
        if it.kind == "list" then types_of({ it.o }, listed) end
    end
    local used, type_parts = {}, {}
    for k, t in ipairs(cm.types) do
        if not t.enum then type_parts[k] = tables.type_table(t, used) end
    end
    local cmd_table = tables.command_table(cm, guard_opts(cm.ops), used)
    local parts = {}
    for k, t in ipairs(cm.types) do
        if listed[t.cname] then
            parts[#parts + 1] = type_defs(t, ops, STATIC)
        elseif put_enums[t.cname] then
            parts[#parts + 1] = enum_defs(t, ops, STATIC, true)
        end
        if t.enum and used[t.cname] then parts[#parts + 1] = tables.bulks(t) end
        if not t.enum then parts[#parts + 1] = type_parts[k] end
    end
    local name = tables.req_name(cm)
    parts[#parts + 1] = layout.comment(0, "The required arguments of " ..
        resp.comment_escape(cm.name) .. ", where " .. tables.ops_name(cm.fn) ..
        " finds them.") .. "\n" .. struct_decl(name, member_lines(cm.params, IND))
    parts[#parts + 1] = cmd_table
    local general = { text(name .. " req;") }
    for _, d in ipairs(cm.params) do
        general[#general + 1] = text(layout.assign(IND, "req." .. d.name, d.name):sub(IND + 1))
    end
    general[#general + 1] = call("return ", "rg_ops_pipe_write",
        { "p", tables.ops_name(cm.fn), "&req", "opts" })
    parts[#parts + 1] = onepass_defs(cm, ops, plan, general, words, args, most)
    return table.concat(parts, "\n\n")
end

-- The general path of a command with a fixed-shape path as an op table (emit_table.lua): its
-- types as tables too (enum types keep their functions, which the fixed-shape path may call,
-- and add a bulk table), the struct of its required arguments, and a _pipe_write_opts that
-- fills that struct and calls the interpreter (rg_ops_pipe_write, runtime/rg_ops.c).
local function table_defs(cm, ops, plain, form)
    local used, type_parts = {}, {}
    for k, t in ipairs(cm.types) do
        if not t.enum then type_parts[k] = tables.type_table(t, used) end
    end
    local guarded = guard_opts(cm.ops)
    local cmd_table, opts_at = tables.command_table(cm, guarded, used)
    -- The option words' path (emit_shape.lua, M.tail): one run of options, last; compiled when
    -- its options are flat (words_def).
    local last, tail, tail_args, words, put_enums = guarded[#guarded], nil, nil, nil, nil
    -- The enum types the fixed-shape path and the words measure and write through their
    -- functions.
    local fast_enums, inline = {}, nil
    if #opts_at == 1 and last.op == "if" and last.test == "opts" then
        local req_ops = { table.unpack(guarded, 1, #guarded - 1) }
        inline = fix_req(req_ops)
        if inline then words, put_enums = words_def(cm, last) end
        if not words then
            inline = nil
            tail, tail_args = shape.tail(form.shapes, req_ops, SHAPE_C)
        end
    end
    put_enums = put_enums or {}
    for _, o in ipairs(plain.ops) do
        if o.op == "enum" then fast_enums[o.arg.cname] = true end
    end
    local parts = {}
    for k, t in ipairs(cm.types) do
        if t.enum then
            if fast_enums[t.cname] or put_enums[t.cname] then
                parts[#parts + 1] = enum_defs(t, ops, STATIC, not fast_enums[t.cname])
            end
            if used[t.cname] then parts[#parts + 1] = tables.bulks(t) end
        else
            parts[#parts + 1] = type_parts[k]
        end
    end
    local body, req = {}, "NULL"
    if inline then
        body = words_path(cm, ops, inline, last)
    elseif tail then
        body[1] = text("rg_words w;")
        body[2] = words and call("const bool words = ", cm.fn .. "_words", { "&w", "opts" })
            or call("const bool words = ", "rg_ops_words",
                { "&w", "&" .. tables.ops_name(cm.fn) .. "[" .. opts_at[1] .. "]", "opts" })
        body[3] = { t = "if", cond = "words", body = { call("return ", tail, tail_args) } }
    end
    if #cm.params > 0 then
        local name = tables.req_name(cm)
        parts[#parts + 1] = layout.comment(0, "The required arguments of " ..
            resp.comment_escape(cm.name) .. ", where " .. tables.ops_name(cm.fn) ..
            " finds them.") .. "\n" .. struct_decl(name, member_lines(cm.params, IND))
        body[#body + 1] = text(name .. " req;")
        for _, d in ipairs(cm.params) do
            body[#body + 1] = text(layout.assign(IND, "req." .. d.name, d.name):sub(IND + 1))
        end
        req = "&req"
    end
    parts[#parts + 1] = cmd_table
    parts[#parts + 1] = words
    body[#body + 1] = call("return ", "rg_ops_pipe_write", { "p", tables.ops_name(cm.fn), req,
        cm.has_opts and "opts" or "NULL" })
    if words then
        -- Not cold: the options' words are compiled into it.
        parts[#parts + 1] = split_defs(cm, ops, "size_t ", plain, body, "With options: the " ..
            "required arguments, then the options' words (" .. cm.fn .. "_words), or when " ..
            "they cannot be, the table's request, measured and written by rg_ops_pipe_write.",
            "RG_NOINLINE")
    elseif body[1] and body[1].text == "rg_words w;" then
        parts[#parts + 1] = split_defs(cm, ops, "size_t ", plain, body, "With options: the " ..
            "options' words (rg_ops_words) after the required arguments (the tail shape), or " ..
            "when it cannot take them, the table's request, measured and written by " ..
            "rg_ops_pipe_write (RG_OPTS_PATH: rg_enc.h).")
    else
        parts[#parts + 1] = split_defs(cm, ops, "size_t ", plain, body, "With options: the " ..
            "table's request, measured and written by rg_ops_pipe_write (RG_OPTS_PATH: " ..
            "rg_enc.h).")
    end
    return table.concat(parts, "\n\n")
end

local function command_defs(cm, ops, form)
    local static = STATIC
    local plain = form.table and plain_ops(cm)
    local shared = form.shapes and
        shape.write(form.shapes, cm, WRAPPER_LEAD, concat(PIPE_WRITE, param_texts(cm)), SHAPE_C)
    if plain and not shared then return table_defs(cm, ops, plain, form) end
    local plan = form.table and not shared and onepass_plan(cm)
    local one = plan and onepass_table_defs(cm, ops, plan)
    if one then return one end
    local parts = {}
    for _, t in ipairs(cm.types) do parts[#parts + 1] = type_defs(t, ops, static) end
    if shared then
        form.shaped[cm.fn] = shared
        return table.concat(parts, "\n\n")
    end
    parts[#parts + 1] = measure_def(cm, ops, static)
    parts[#parts + 1] = put_def(cm, ops, static)
    parts[#parts + 1] = public_defs(cm, ops,
        form.header_only and "static inline size_t " or "size_t ", form)
    return table.concat(parts, "\n\n")
end

---------------------------------------------------------------------------------------------
-- File-level parts.

-- The header's summary of the iovec functions and macros, which only --iov generates.
local IOV_API = [[
 *   size_t C_encode_iov(iov, iov_cap, scratch, scratch_cap, args)
 *                                        the same request as iovec entries that point at the
 *                                        caller's strings instead of copying them, and at
 *                                        headers written into scratch; returns the entry count
 *   size_t C_iov_count(args)             entries C_encode_iov needs
 *   size_t C_scratch_size(args)          scratch bytes C_encode_iov needs
]]
local IOV_MACROS = "; C_IOV_MAX and C_SCRATCH_MAX (when no argument repeats) the\n" ..
    " * most entries and scratch bytes C_encode_iov can need."

local function flag_macros(model)
    if #model.flags == 0 then return nil end
    local defs = {}
    for _, f in ipairs(model.flags) do
        defs[#defs + 1] = { f.macro, "(UINT32_C(1) << " .. f.bit .. ")" }
    end
    return layout.comment(0, "Command flags (command_flags in the spec), the bits of the flags " ..
        "column of " .. model.PREFIX .. "_COMMANDS.") .. "\n" ..
        table.concat(layout.macros(defs), "\n")
end

-- One X(...) entry of the command list.
local function x_entry(cm, flag_macro, last)
    local flags = {}
    for _, f in ipairs(cm.flags) do flags[#flags + 1] = flag_macro[f] end
    return layout.macro_entry("    X(", { cm.id, cm.ID, '"' .. resp.c_escape(cm.name) .. '"',
        tostring(cm.arity) }, #flags > 0 and flags or { "0" }, last)
end

local function command_list(model)
    local flag_macro = {}
    for _, f in ipairs(model.flags) do flag_macro[f.name] = f.macro end
    local lines = { "#define " .. model.PREFIX .. "_COMMANDS(X)" }
    for i, cm in ipairs(model.commands) do
        for _, l in ipairs(x_entry(cm, flag_macro, i == #model.commands)) do
            lines[#lines + 1] = l
        end
    end
    lines = layout.continued(lines)
    return layout.comment(0, "Every command, sorted by name (bytes of the upper case): " ..
        "X(id, ID, name, arity, flags), id as in " .. model.prefix .. "_<id>_encode, ID its " ..
        "upper case (as in the _keys.h and _server.h ids derived from this list). " ..
        model.PREFIX .. "_NCOMMANDS counts them.") .. "\n" .. table.concat(lines, "\n") ..
        "\n\n#define " .. model.PREFIX .. "_NCOMMANDS " .. #model.commands
end

local function uses_double_bounds(model)
    for _, cm in ipairs(model.commands) do
        if cm.bound.doubles > 0 and not cm.bound.many then return true end
    end
    return false
end

-- The helpers the code uses and the ones those use, in template order.
local function helpers_text(model, used)
    local chunks = template.sections(template.load("helpers.c.in"))
    local function need(name)
        assert(chunks[name], "no helper " .. name .. " in templates/helpers.c.in")
        used[name] = true
        for _, dep in ipairs(chunks.needs[name]) do need(dep) end
    end
    for _, name in ipairs(chunks.order) do if used[name] then need(name) end end
    local vars = { p = model.prefix, static = STATIC }
    local out = {}
    for _, name in ipairs(chunks.order) do
        if used[name] then
            local lines = {}
            for line in (template.fill(chunks[name], vars) .. "\n"):gmatch("(.-)\n") do
                lines[#lines + 1] = layout.relayout(line)
            end
            out[#out + 1] = table.concat(lines, "\n")
        end
    end
    return table.concat(out, "\n\n")
end

local function header_text(model, form, defs)
    local body = {}
    body[#body + 1] = flag_macros(model)
    body[#body + 1] = #model.commands > 0 and command_list(model) or nil
    body[#body + 1] = form.shapes and shape.protos(form.shapes) or nil
    for _, cm in ipairs(model.commands) do body[#body + 1] = command_header(cm, form) end
    if defs then body[#body + 1] = defs end
    local list = {}
    for _, b in ipairs(body) do if b then list[#list + 1] = b end end
    local doc = template.fill(template.load("header.h.in"), {
        iov_api = form.iov and IOV_API or
            " *   (no iovec form: generate with --iov for C_encode_iov)\n",
        iov_macros = form.iov and IOV_MACROS or ".",
        body = table.concat(list, "\n\n"),
    })
    return frame.header({
        model = model, suffix = ".h", what = "request encoders",
        includes = { "rg_enc.h" },
        system = form.header_only and { "assert.h", "stdbool.h" } or { "stdbool.h" },
        checks = uses_double_bounds(model) and "#if RG_DOUBLE_MAX_LEN > 99\n" ..
            "#error \"the MAX_SIZE macros assume doubles of at most 99 characters\"\n#endif" or nil,
        body = (doc:gsub("\n+$", "")),
    })
end

-- Returns { { suffix = ".h", text = ... }, { suffix = ".c", text = ... } } (header only: one).
-- opts.header_only: one header holding the definitions too.
-- --iov adds the iovec form (_iov_count, _scratch_size, _encode_iov and their macros): three
-- more functions per command, each measuring again, which few callers need. --no-iov, once the
-- way to leave them out, is still accepted and wins.
-- --fast-options keeps the general paths of commands with a fixed-shape path as compiled code
-- instead of op tables: requests with options at full speed (SET k v EX 100: 477 instead of
-- 870 instructions), for 1.6x the compile time of the full Redis set.
M.options = { ["--iov"] = { field = "iov" }, ["--no-iov"] = { field = "no_iov" },
    ["--fast-options"] = { field = "fast_options" } }

function M.emit(model, opts)
    local header_only = opts.header_only
    local form = { header_only = header_only, iov = opts.iov and not opts.no_iov }
    -- Shared shape encoders (emit_shape.lua): in a source file without the iovec form.
    -- form.shaped: the static inline _pipe_write of each command that calls its shape, by cm.fn,
    -- for the header.
    -- form.table: general paths as op tables (emit_table.lua), under the same conditions, unless
    -- --fast-options.
    if not form.header_only and not form.iov then
        form.shapes = shape.new(model.prefix, model.taken)
        form.shaped = {}
        form.table = not opts.fast_options
    end
    local used = {}
    local ops = new_ops(model, used, form.iov)
    local defs = {}
    for _, cm in ipairs(model.commands) do
        local d = command_defs(cm, ops, form)
        if d ~= "" then defs[#defs + 1] = d end
    end
    local helpers = helpers_text(model, used)
    local code = {}
    if helpers ~= "" then code[1] = helpers end
    code[#code + 1] = form.shapes and shape.defs(form.shapes) or nil
    for _, d in ipairs(defs) do code[#code + 1] = d end
    local code_text = table.concat(code, "\n\n")
    if header_only then
        return { { suffix = ".h", text = header_text(model, form, code_text) } }
    end
    local source = frame.source({ model = model, suffix = ".c", what = "request encoders",
        system = { "assert.h" }, body = code_text })
    return {
        { suffix = ".h", text = header_text(model, form, nil) },
        { suffix = ".c", text = source },
    }
end

return M
