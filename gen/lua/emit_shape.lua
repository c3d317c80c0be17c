-- Shared encoders for commands of the same shape (issue 13: less C per command).
--
-- A command without options whose words are its constant words (array header, name,
-- subcommand) followed by arguments of one word each (a string, an integer, a double) or lists
-- of strings differs from another with the same argument kinds only in those constant bytes.
-- Such commands share one encoder per shape, <prefix>_shape_<kinds>, which takes the constant
-- words as `head`. The command's _pipe_write is a call of it, static inline in the header: the
-- command has no function of its own in the .c (228 functions of one call each cost the Redis
-- set's redis.c about 0.4 s of gcc's time, per function), and its callers make one call, not
-- two. In the Redis set 228 of the 383 commands share 22 shapes (docs/bench-encoder.md, "Shared
-- shapes"). A command with options keeps its fixed-shape path inline (a call there cost E1 14 of
-- 152 instructions).
--
-- Only in a source file without the iovec form: the iovec form measures through the command's
-- own functions, and a header's static inline code is the caller's compiler's to share anyway.

local layout = require("layout")
local resp = require("resp")

local M = {}

local IND = string.rep(" ", layout.INDENT)

-- Per argument kind: its letter in the shape's name, C type, measuring and writing call.
local KINDS = {
    view = { letter = "v", ctype = "rg_view", meas = "rg_meas_view",
        put = function(a) return "rg_put_bulk(dst, " .. a .. ".ptr, " .. a .. ".len)" end },
    i64 = { letter = "i", ctype = "int64_t", meas = "rg_meas_i64",
        put = function(a) return "rg_put_bulk_i64(dst, " .. a .. ")" end },
    dbl = { letter = "d", ctype = "double", meas = "rg_meas_double",
        put = function(a) return "rg_put_bulk_double(dst, " .. a .. ")" end },
    list = { letter = "L", list = true },
    list0 = { letter = "l", list = true },
}

-- A list of views (one view op on its i-th element in a loop over it) as a shape argument: its
-- argument node, or nil.
local function list_of(o)
    local b = o.body
    if #b ~= 1 or b[1].op ~= "view" or b[1].arg.max_len then return nil end
    if b[1].arg ~= o.arg or not b[1].elem then return nil end
    return o.arg
end

-- The shape of a command's ops: { head = constant bytes, kinds = { op kind, ... },
-- exprs = { argument expressions, ... } }, or nil when the command has none (options, a
-- bounded argument, a choice, a repeated group, a constant after an argument). A list of views
-- is kind "list" (at least one element) or "list0" (may be empty); the checks model.lua puts
-- before the ops must be exactly those of its lists. cx spells the C of an op's data
-- (emit_c.lua): value(o), i64(o), count(arg, via).
local function ops_shape(ops, cx)
    local head, head_argc, kinds, exprs, checks = "", 0, {}, {}, {}
    for _, o in ipairs(ops) do
        if o.op == "check" then
            checks[o.arg] = checks[o.arg] or {}
            checks[o.arg][o.test] = true
        elseif o.op == "lit" and #kinds == 0 then
            head = head .. o.bytes
            head_argc = head_argc + o.argc
        elseif KINDS[o.op] and not o.arg.max_len then
            kinds[#kinds + 1] = o.op
            exprs[#exprs + 1] = o.op == "i64" and cx.i64(o) or cx.value(o)
        elseif o.op == "each" and list_of(o) then
            local a = list_of(o)
            local c = checks[a]
            if not (c and c.null_list) then return nil end
            kinds[#kinds + 1] = c.empty and "list" or "list0"
            checks[a] = nil
            exprs[#exprs + 1] = cx.value({ arg = a, via = o.via })
            exprs[#exprs + 1] = cx.count(a, o.via)
        else
            return nil
        end
    end
    if head == "" or next(checks) then return nil end
    return { head = head, head_argc = head_argc, kinds = kinds, exprs = exprs }
end

local function shape_of(cm, cx)
    if cm.has_opts then return nil end
    local s = ops_shape(cm.ops, cx)
    if not s or #s.head ~= cm.fixed_bytes then return nil end
    -- A word count that varies: the array header is written first, the head's words counted.
    if not cm.const_argc then s.words = cm.fixed_argc end
    return s
end

local function shape_name(prefix, s)
    local letters = {}
    for i, k in ipairs(s.kinds) do letters[i] = KINDS[k].letter end
    local name = prefix .. "_shape_" .. (s.words and "w" .. s.words .. "_" or "")
    return name .. (#letters > 0 and table.concat(letters) or "words") .. (s.tail and "_tail" or "")
end

-- A registry of the shapes a file uses, in order of first use. taken: the names the model's
-- encoders use (a command SHAPE with an argument VI would own the type <prefix>_shape_vi); a
-- shape whose name is taken is not shared.
function M.new(prefix, taken)
    return { list = {}, seen = {}, prefix = prefix, taken = taken }
end

-- The shape's encoder (registered) and the arguments of its call for shape s, or nil when the
-- head would not fit on one line at indent (clang-format would break the string literal).
local function use(reg, s, indent)
    local head = "(rg_view){\"" .. resp.c_escape(s.head) .. "\", " .. #s.head .. "}"
    if indent + #IND + #head + 1 > layout.LIMIT then return nil end
    local name = shape_name(reg.prefix, s)
    if reg.taken[name] then return nil end
    if not reg.seen[name] then
        reg.seen[name] = true
        reg.list[#reg.list + 1] = { name = name, kinds = s.kinds, words = s.words, tail = s.tail }
    end
    local args = { "p", head }
    if s.tail then args[3] = "&w" end
    for _, e in ipairs(s.exprs) do args[#args + 1] = e end
    return name, args
end

-- The _pipe_write of cm as a call of its shape's encoder, or nil when cm has no shape, its head
-- would not fit on one line (clang-format would break the string literal) or its name is taken.
-- lead: the definition's return type and qualifiers ("static inline size_t ").
function M.write(reg, cm, lead, params, cx)
    local s = shape_of(cm, cx)
    if not s then return nil end
    local name, args = use(reg, s, layout.INDENT)
    if not name then return nil end
    return layout.call({ indent = 0, lead = lead, name = cm.fn .. "_pipe_write", args = params,
        tail = ") {", decl = true }) .. "\n" ..
        layout.call({ indent = layout.INDENT, lead = "return ", name = name, args = args,
            tail = ");" }) .. "\n}"
end

-- The option words' path of a command with options (emit_c.lua, the op tables): when its ops
-- are required ops (req: constant words, then single words) and one run of options after them,
-- the options go into an rg_words (rg_ops_words, runtime/rg_ops.c) and a tail shape measures
-- and writes the request: the array header (the head's words, the arguments' and w->argc),
-- head, the arguments, then w's bytes. Returns the shape's name and the arguments of its call
-- (the words as &w), or nil when req has no shape or the call's head would not fit on a line.
function M.tail(reg, req, cx)
    local s = ops_shape(req, cx)
    if not s then return nil end
    for _, k in ipairs(s.kinds) do
        if KINDS[k].list then return nil end
    end
    s.words, s.tail = s.head_argc, true
    return use(reg, s, 2 * layout.INDENT)
end

local DOC = "Commands without options whose arguments are single words or lists of strings " ..
    "share an encoder per shape: head holds their constant words (the array header too when " ..
    "their word count is fixed). The commands' _pipe_write, in the header, call them."

local function shape_params(s)
    local params = { "rg_pipe *p", "rg_view head" }
    if s.tail then params[3] = "const rg_words *w" end
    for i, k in ipairs(s.kinds) do
        local a, kind = "a" .. i, KINDS[k]
        if kind.list then
            params[#params + 1] = "const rg_view *" .. a
            params[#params + 1] = "size_t " .. a .. "_count"
        else
            params[#params + 1] = kind.ctype .. " " .. a
        end
    end
    return params
end

local function shape_def(s)
    local params = shape_params(s)
    local checks, meas, puts = {}, {}, {}
    for i, k in ipairs(s.kinds) do
        local a, kind = "a" .. i, KINDS[k]
        if kind.list then
            if k == "list" then checks[#checks + 1] = "if (" .. a .. "_count == 0) return 0;" end
            checks[#checks + 1] = "if (!" .. a .. " && " .. a .. "_count != 0) return 0;"
            meas[#meas + 1] = "for (size_t i = 0; i < " .. a .. "_count; i++) rg_meas_view(&m, " ..
                a .. "[i]);"
            puts[#puts + 1] = "for (size_t i = 0; i < " .. a .. "_count; i++) dst = " ..
                "rg_put_bulk(dst, " .. a .. "[i].ptr, " .. a .. "[i].len);"
        else
            meas[#meas + 1] = kind.meas .. "(&m, " .. a .. ");"
            puts[#puts + 1] = "dst = " .. kind.put(a) .. ";"
        end
    end
    local body = {}
    for _, c in ipairs(checks) do body[#body + 1] = c end
    body[#body + 1] = "rg_meas m;"
    if s.tail then
        body[#body + 1] = "rg_meas_start(&m, " .. s.words .. " + w->argc, head.len + w->len);"
    else
        body[#body + 1] = "rg_meas_start(&m, " .. (s.words or 0) .. ", head.len);"
    end
    for _, x in ipairs(meas) do body[#body + 1] = x end
    body[#body + 1] = "const size_t n = rg_meas_total" .. (s.words and "_array" or "") .. "(&m);"
    body[#body + 1] = "if (n == 0 || !rg_pipe_fits(p, n)) return n;"
    body[#body + 1] = "char *dst = rg_pipe_end(p);"
    if s.words then body[#body + 1] = "dst = rg_put_array_header(dst, m.argc);" end
    body[#body + 1] = "dst = rg_put_bytes(dst, head.ptr, head.len);"
    for _, x in ipairs(puts) do body[#body + 1] = x end
    if s.tail then body[#body + 1] = "rg_put_bytes(dst, w->bytes, w->len);" end
    body[#body + 1] = "return n;"
    for i, line in ipairs(body) do body[i] = IND .. line end
    -- A tail shape serves the option paths of this file only.
    return layout.call({ indent = 0, lead = s.tail and "static RG_WORDS_PATH size_t " or "size_t ",
        name = s.name, args = params, tail = ") {", decl = true }) .. "\n" ..
        table.concat(body, "\n") .. "\n}"
end

-- The definitions of the shapes used, to precede the commands (a source file); nil when none.
local TAIL_DOC = "Commands with options whose required arguments are single words, the " ..
    "options after them, share an encoder per shape for their requests with options: head " ..
    "holds their constant words after the array header, w the words of the options " ..
    "(rg_ops_words). The commands' _pipe_write_opts call them."

function M.defs(reg)
    local out = {}
    for _, tail in ipairs({ false, true }) do
        local first = true
        for _, s in ipairs(reg.list) do
            if (s.tail or false) == tail then
                if first then
                    out[#out + 1] = (#out > 0 and "\n" or "") ..
                        layout.comment(0, tail and TAIL_DOC or DOC)
                end
                out[#out + 1] = (first and "" or "\n") .. shape_def(s)
                first = false
            end
        end
    end
    if #out == 0 then return nil end
    return table.concat(out, "\n")
end

-- Their prototypes, for the header, before the commands whose _pipe_write calls them; nil when
-- none.
function M.protos(reg)
    local out = { layout.comment(0, DOC) }
    for _, s in ipairs(reg.list) do
        if not s.tail then
            out[#out + 1] = layout.call({ indent = 0, lead = "size_t ", name = s.name,
                args = shape_params(s), tail = ");", decl = true })
        end
    end
    if #out == 1 then return nil end
    return table.concat(out, "\n")
end

return M
