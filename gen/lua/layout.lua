-- Line layout of emitted C, matching what clang-format produces with the project's .clang-format
-- (LLVM based, 4-space indent, 100 columns), so generated files pass `clang-format --dry-run
-- --Werror` without clang-format being needed to make them.
--
-- Only the shapes the emitter produces are handled: calls and declarations with a flat argument
-- list, short if/for/case bodies, aligned macro groups, and comments. For a call or declaration
-- that does not fit on one line clang-format picks the layout with the lowest penalty; the
-- candidates and penalties below are the ones its LLVM style assigns to these shapes.

local cstr = require("cstr")

local M = {}

M.LIMIT = 100
M.INDENT = 4
-- The Lua specs `respgen import-json` writes (import_lua.lua) follow the project's Lua style
-- (scripts/lua-style.sh): the same 100 columns.
M.LUA_LIMIT = M.LIMIT

-- clang-format penalties (LLVM style) for the breaks these shapes allow. A break inside the
-- argument parentheses costs 20 per nesting level on top of its own penalty.
-- Each break costs 20 times the binding strength of the token after it (1 outside the argument
-- parentheses, 2 inside) plus the penalty of the break's position.
local PENALTY = {
    comma = 40 + 1,        -- after a ',' of the argument list (comma precedence)
    open_call = 40 + 19,   -- after '(' of a call (PenaltyBreakBeforeFirstCallParameter)
    open_decl = 160,       -- after '(' of a function declaration (fitted to clang-format 14)
    return_type = 100,     -- between return type and name (fitted to clang-format 14)
    -- Between "static RG_NOINLINE size_t" (or RG_OPTS_PATH, RG_WORDS_PATH) and the name:
    -- clang-format 14 reads the macro as the type and size_t as a declared name, and a break after
    -- a name costs 110 (+ 20).
    return_type_macro = 130,
    assignment = 20 + 2,   -- after '=' (PenaltyBreakAssignment)
    sum = 40,              -- after a '+' inside an argument (more than open_call - comma)
}

local function spaces(n)
    return string.rep(" ", n)
end
M.spaces = spaces

-- Whether a line fits the column limit.
function M.fits(line)
    return #line <= M.LIMIT
end

-- Fills args into lines: the first line starts at column `first_col` (text already there), the
-- others at `cont_col`. Returns the lines and the number of breaks, or nil when an argument does
-- not fit. `tail` follows the last argument.
local function pack(args, first_col, cont_col, tail)
    local lines, cur, col = {}, "", first_col
    local breaks, extra = 0, 0
    for i, a in ipairs(args) do
        local piece = a .. (i < #args and "," or tail)
        local sep = (cur == "") and "" or " "
        if cur ~= "" and col + #sep + #piece > M.LIMIT then
            lines[#lines + 1] = cur
            cur, col, breaks = "", cont_col, breaks + 1
            sep = ""
        end
        if col + #sep + #piece > M.LIMIT then
            -- A sum too long for its line ("P_X_FIXED_SIZE + 4") breaks after its '+', the
            -- rest one continuation further in; on a line of its own only.
            local a1, a2 = a:match("^(.*) %+ (.-)$")
            if cur ~= "" or not a1 or col + #a1 + 2 > M.LIMIT or
                    col + M.INDENT + #a2 + #piece - #a > M.LIMIT then
                return nil
            end
            lines[#lines + 1] = a1 .. " +"
            cur, col = spaces(M.INDENT) .. a2 .. piece:sub(#a + 1), col + M.INDENT + #a2
            extra = extra + PENALTY.sum
        else
            cur = cur .. sep .. piece
            col = col + #sep + #piece
        end
    end
    lines[#lines + 1] = cur
    return lines, breaks, extra
end

-- A layout with the arguments starting right after "prefix(" and continuing aligned under the
-- first one: { cost, lines }, or nil when an argument does not fit.
local function aligned(prefix, args, tail, cost)
    local col = #prefix + 1
    local lines, breaks, extra = pack(args, col, col, tail)
    if not lines then return nil end
    local out = { prefix .. "(" .. lines[1] }
    for i = 2, #lines do out[i] = spaces(col) .. lines[i] end
    return { cost = cost + breaks * PENALTY.comma + extra, lines = out }
end

-- A layout broken after "prefix(", the arguments from column `cont` on.
local function broken(prefix, cont, args, tail, cost)
    if #prefix + 1 > M.LIMIT then return nil end
    local lines, breaks, extra = pack(args, cont, cont, tail)
    if not lines then return nil end
    local out = { prefix .. "(" }
    for _, l in ipairs(lines) do out[#out + 1] = spaces(cont) .. l end
    return { cost = cost + breaks * PENALTY.comma + extra, lines = out }
end

local function after_line(first, layout)
    if layout then table.insert(layout.lines, 1, first) end
    return layout
end

-- Lays out `<lead><name>(<args>)<tail>`:
--   s.indent: column of the statement
--   s.lead:   text before the function name: "", "return ", "dst = ", "size_t n = "; for a
--             declaration, the return type with its trailing space or '*' ("size_t ", "char *")
--   s.name:   the function name
--   s.args:   argument (or parameter) texts
--   s.tail:   ");" or ") {"
--   s.decl:   true for declarations and definitions
-- Returns the text (lines joined with "\n", no trailing newline). Of the candidate layouts the
-- cheapest wins, the earlier one on a tie, as in clang-format's search.
function M.call(s)
    local ind = spaces(s.indent)
    local one = ind .. s.lead .. s.name .. "(" .. table.concat(s.args, ", ") .. s.tail
    if #one <= M.LIMIT then return one end
    local head, cont = ind .. s.lead .. s.name, s.indent + M.INDENT
    local candidates = {}
    local function add(layout) candidates[#candidates + 1] = layout or false end
    add(aligned(head, s.args, s.tail, 0))
    local macro = s.decl and (s.lead:find("RG_NOINLINE", 1, true)
        or s.lead:find("RG_OPTS_PATH", 1, true) or s.lead:find("RG_WORDS_PATH", 1, true))
    if s.decl then
        -- The return type alone on a line, the name at the statement's column.
        local rtype, name_line = ind .. s.lead:gsub(" $", ""), ind .. s.name
        local rt = macro and PENALTY.return_type_macro or PENALTY.return_type
        add(after_line(rtype, aligned(name_line, s.args, s.tail, rt)))
        add(after_line(rtype, broken(name_line, cont, s.args, s.tail, rt + PENALTY.open_decl)))
        add(broken(head, cont, s.args, s.tail, PENALTY.open_decl))
    else
        add(broken(head, cont, s.args, s.tail, PENALTY.open_call))
        local lhs = s.lead:match("^(.-) = $")
        if lhs then
            -- Broken after '=', the call one continuation in (and maybe after its '(' too).
            local lhs_line, call_line = ind .. lhs .. " =", spaces(cont) .. s.name
            add(after_line(lhs_line, aligned(call_line, s.args, s.tail, PENALTY.assignment)))
            add(after_line(lhs_line, broken(call_line, cont + M.INDENT, s.args, s.tail,
                PENALTY.assignment + PENALTY.open_call)))
        end
    end
    local best
    for _, c in ipairs(candidates) do
        if c and (not best or c.cost < best.cost) then best = c end
    end
    -- A declaration whose parameters all fit on the line after the return type goes there
    -- rather than breaking twice or more after its '(' column (clang-format 14, observed with
    -- "static inline size_t" and long names; its penalties are not additive here). With the
    -- attribute macro they are: the candidates' costs alone decide (checked against
    -- clang-format 14 over thousands of random declarations of each kind).
    local rt_flat = s.decl and not macro and candidates[2]
    if rt_flat and #rt_flat.lines == 2 and best == candidates[1] and #best.lines >= 3 then
        best = rt_flat
    end
    return best and table.concat(best.lines, "\n") or one
end

-- Consecutive #define lines, as AlignConsecutiveMacros lays them out: a definition too long for
-- one line continues on the next line after a backslash, and the others align their values in
-- runs that such a definition interrupts. defs: list of { name, value }; returns the lines.
function M.macros(defs)
    local out, run = {}, {}
    local function flush()
        local width = 0
        for _, d in ipairs(run) do width = math.max(width, #d[1]) end
        for _, d in ipairs(run) do
            out[#out + 1] = "#define " .. d[1] .. spaces(width - #d[1] + 1) .. d[2]
        end
        run = {}
    end
    for _, d in ipairs(defs) do
        if #"#define " + #d[1] + 1 + #d[2] > M.LIMIT then
            flush()
            out[#out + 1] = "#define " .. d[1] .. " \\"
            out[#out + 1] = spaces(M.INDENT) .. d[2]
        else
            run[#run + 1] = d
        end
    end
    flush()
    return out
end

-- A block comment wrapped at word boundaries: "/* text */" when it fits, else "/* ..." with
-- " * " continuation lines and the closing "*/" on the last text line.
function M.comment(indent, text)
    local ind = spaces(indent)
    text = cstr.comment(text)
    local one = ind .. "/* " .. text .. " */"
    if #one <= M.LIMIT then return one end
    local lines, cur = {}, nil
    local words = {}
    for w in text:gmatch("%S+") do words[#words + 1] = w end
    for i, w in ipairs(words) do
        local closing = (i == #words) and " */" or ""
        if cur and #ind + #cur + 1 + #w + #closing <= M.LIMIT then
            cur = cur .. " " .. w
        else
            if cur then lines[#lines + 1] = ind .. cur end
            cur = ((#lines == 0 and not cur) and "/* " or " * ") .. w
        end
    end
    lines[#lines + 1] = ind .. cur .. " */"
    if #lines[#lines] > M.LIMIT then
        lines[#lines] = ind .. cur
        lines[#lines + 1] = ind .. " */"
    end
    return table.concat(lines, "\n")
end

---------------------------------------------------------------------------------------------
-- Shapes of the tables and declarations of the keys and server emitters.

-- A declaration "<ret> <name>(<params>)<tail>" (tail ";" or " {") at column 0, laid out as M.call
-- lays out a declaration.
function M.signature(head, params, tail)
    local lead, name = head:match("^(.*[ *])([%w_]+)$")
    return M.call({ indent = 0, lead = lead, name = name, args = params, tail = ")" .. tail,
        decl = true })
end

-- "<lhs> = <rhs>;" at column `indent`: on one line, or broken after the '=' with the right side
-- one continuation in, as clang-format breaks it when the right side has no cheaper break of its
-- own (a name, "&table[id]", "table[slot]").
function M.assign(indent, lhs, rhs)
    local one = spaces(indent) .. lhs .. " = " .. rhs .. ";"
    if #one <= M.LIMIT then return one end
    return spaces(indent) .. lhs .. " =\n" .. spaces(indent + M.INDENT) .. rhs .. ";"
end

-- An array declaration at the top level, "<head> <name>[<bound>]<tail>" (tail ";" or " = {"; no
-- bound: "[]"; bound false: a declaration of no array):
-- on one line, else broken before the name, one continuation in, and, when "[<bound>]" does not
-- fit there either, before the '[' one more continuation in (clang-format 14's layout).
function M.array_decl(head, name, bound, tail)
    local dims = bound and ("[" .. bound .. "]") or ""
    local one = head .. " " .. name .. dims .. tail
    if #one <= M.LIMIT then return one end
    -- An initializer's brace that alone passes the limit goes to the next line.
    if tail == " = {" and #one - 2 <= M.LIMIT then
        return one:sub(1, -3) .. "\n" .. spaces(M.INDENT) .. "{"
    end
    local second = spaces(M.INDENT) .. name .. dims .. tail
    if #second <= M.LIMIT then return head .. "\n" .. second end
    return head .. "\n" .. spaces(M.INDENT) .. name .. "\n" .. spaces(2 * M.INDENT) .. "[" ..
        bound .. "]" .. tail
end

-- Greedy packing of items after an opening "{" at column #lead, continuing aligned under the
-- first item; nil when an item does not fit.
function M.pack_braced(lead, items)
    local lines, cur = {}, lead .. "{"
    for _, it in ipairs(items) do
        local sep = cur:match("{$") and "" or " "
        if #cur + #sep + #it > M.LIMIT and not cur:match("{$") then
            lines[#lines + 1] = cur
            cur, sep = spaces(#lead + 1), ""
        end
        if #cur + #sep + #it > M.LIMIT then return nil end
        cur = cur .. sep .. it
    end
    lines[#lines + 1] = cur
    return table.concat(lines, "\n")
end

-- Items packed greedily as clang-format bin-packs a braced list: prefix .. "a, b," then
-- continuation lines at indent; close follows the last item.
function M.pack(prefix, items, indent, close)
    local lines, line = {}, prefix .. items[1]
    for i = 2, #items do
        local extra = (i == #items) and #close or 1
        if #line:match("[^\n]*$") + 2 + #items[i] + extra > M.LIMIT then
            lines[#lines + 1] = line .. ","
            line = indent .. items[i]
        else
            line = line .. ", " .. items[i]
        end
    end
    lines[#lines + 1] = line .. close
    return table.concat(lines, "\n")
end

-- An initializer `item` placed at column `col` and followed by `tail`, with a string literal
-- that would pass the column limit split as clang-format splits it: after the last space that
-- keeps a piece within the line, the pieces aligned under the first quote.
function M.split_string(col, item, tail)
    if col + #item + #tail <= M.LIMIT then return item end
    local q = item:find('"', 1, true)
    if not q or item:sub(-1) ~= '"' then return item end
    local text, qcol = item:sub(q + 1, -2), col + q - 1
    local pieces = {}
    while qcol + 2 + #text + #tail > M.LIMIT do
        local room = M.LIMIT - qcol - 2
        local cut = text:sub(1, room):match("^.*() ")
        if not cut then break end
        pieces[#pieces + 1] = '"' .. text:sub(1, cut) .. '"'
        text = text:sub(cut + 1)
    end
    pieces[#pieces + 1] = '"' .. text .. '"'
    return item:sub(1, q - 1) .. table.concat(pieces, "\n" .. spaces(qcol))
end

-- One designated initializer ".member = value" at column `col`, followed by `tail`, as
-- clang-format breaks it when it does not fit: a string literal split (split_string); a call
-- ("offsetof(type, member)") laid out as M.call lays out "x = f(...)"; any other value after
-- the '=', one continuation in. The first line is returned without its indentation.
function M.initializer(col, item, tail)
    if col + #item + #tail <= M.LIMIT then return item end
    if item:find('"', 1, true) then return M.split_string(col, item, tail) end
    local lead, name, args = item:match("^(%.[%w_]+ = )([%w_]+)%((.*)%)$")
    if lead then
        local list = {}
        for a in args:gmatch("[^,]+") do list[#list + 1] = a:match("^%s*(.-)%s*$") end
        return M.call({ indent = col, lead = lead, name = name, args = list, tail = ")" .. tail })
            :sub(col + 1):sub(1, -#tail - 1)
    end
    local member, value = item:match("^(%.[%w_]+) = (.*)$")
    if not member then return item end
    -- A value too long even there ("&name[0]") breaks before its subscript, one more in.
    local base, sub = value:match("^(.-)(%[[^%]]*%])$")
    if base and col + M.INDENT + #value + #tail > M.LIMIT then
        return member .. " =\n" .. spaces(col + M.INDENT) .. base .. "\n" ..
            spaces(col + 2 * M.INDENT) .. sub
    end
    return member .. " =\n" .. spaces(col + M.INDENT) .. value
end

-- A braced list of designated initializers as clang-format lays it out: on one line when it
-- fits, else one initializer per line aligned after the brace.
function M.designated(prefix, items, close)
    local one = prefix .. table.concat(items, ", ") .. close
    if #one <= M.LIMIT then return one end
    local col = #prefix
    local lines = {}
    for k, item in ipairs(items) do
        local tail = k < #items and "," or close
        lines[k] = (k == 1 and prefix or spaces(col)) .. M.initializer(col, item, tail) .. tail
    end
    return table.concat(lines, "\n")
end

-- clang-format's column layout of a braced list at the top level of a declaration
-- (CommaSeparatedList in its FormatToken.cpp): six or more items, rows of `columns` items each
-- padded to its column's widest, where no column but the last mixes items whose lengths differ
-- by more than 10 and the rows fit. Of the layouts that fit after a break after the brace, the
-- one with the fewest columns among those with the fewest lines. Returns the lines, or nil when
-- clang-format would not use a column layout (fewer items, no fitting layout, one column).
local function column_formats(items, close, trailing)
    local n = #items
    local len, eol = {}, {}
    for i = 1, n do
        -- The comma counts with its item; the last one has none (but a trailing comma), and at
        -- the end of its line the close stays with it.
        len[i] = #items[i] + ((i < n or trailing) and 1 or 0)
        eol[i] = len[i] + ((i < n or trailing) and 0 or #close)
    end
    local formats = {}
    for columns = 1, M.LIMIT // 3 do
        local size, min, lines, full = {}, {}, 1, false
        for c = 1, columns do size[c], min[c] = 0, math.huge end
        local c = 0
        for i = 1, n do
            if c == columns then lines, c = lines + 1, 0 end
            if c == columns - 1 then full = true end
            local l = (c == columns - 1) and eol[i] or len[i]
            size[c + 1], min[c + 1] = math.max(size[c + 1], l), math.min(min[c + 1], l)
            c = c + 1
        end
        if not full then break end
        local total, even = columns - 1, true
        for k = 1, columns do
            total = total + size[k]
            if k < columns and size[k] - min[k] > 10 then even = false end
        end
        if even and (total <= M.LIMIT or columns == 1) then
            formats[#formats + 1] = { columns = columns, size = size, lines = lines, total = total }
        end
    end
    return formats, len
end

-- The format getColumnFormat picks when the list starts at column `col`: of those that fit in
-- the rest of the line, the one with the fewest columns among those with the fewest lines.
local function pick_format(formats, col)
    local best
    for k = #formats, 1, -1 do
        local f = formats[k]
        if f.total <= M.LIMIT - col or f.columns == 1 then
            if best and f.lines > best.lines then break end
            best = f
        end
    end
    return best
end

-- The rows of format f, all but the first starting at column `indent`.
local function column_rows(items, close, f, len, indent)
    local out, cur, c = {}, "", 0
    for i, it in ipairs(items) do
        if c == f.columns then out[#out + 1], cur, c = cur, spaces(indent), 0 end
        cur = cur .. it .. (i < #items and "," or close)
        if c < f.columns - 1 and i < #items then cur = cur .. spaces(f.size[c + 1] - len[i] + 1) end
        c = c + 1
    end
    out[#out + 1] = cur
    return out
end

-- A list of six or more items after `prefix` (which ends in "{"), as clang-format 14 lays it
-- out; nil for shorter lists. With one usable format (one column) the items go one a line,
-- aligned after the brace (it avoids bin packing then); else in columns, from after the brace
-- or, when that saves two lines or more (a break after the brace costs about 1.5 lines), from
-- the next line.
local function columns_layout(prefix, items, close)
    if #items < 6 then return nil end
    local formats, len = column_formats(items, close)
    local here = #prefix
    if #formats == 1 then
        local widest = 0
        for i = 1, #items do
            widest = math.max(widest, i < #items and len[i] or #items[i] + #close)
        end
        if here + widest > M.LIMIT then here = M.INDENT end
        local f = { columns = 1, size = { 0 } }
        local rows = column_rows(items, close, f, len, here)
        if here == #prefix then return prefix .. table.concat(rows, "\n") end
        return prefix .. "\n" .. spaces(here) .. table.concat(rows, "\n")
    end
    local same, below = pick_format(formats, here), pick_format(formats, M.INDENT)
    if here + same.size[1] <= M.LIMIT and same.lines <= below.lines + 1 then
        return prefix .. table.concat(column_rows(items, close, same, len, here), "\n")
    end
    return prefix .. "\n" .. spaces(M.INDENT) ..
        table.concat(column_rows(items, close, below, len, M.INDENT), "\n")
end

-- The rows of a braced list that ends in a trailing comma (so clang-format breaks after its brace
-- and before its close), its items from column `indent` on: in columns when clang-format would
-- use a column layout (five items or more, short and of similar lengths: a short prefix makes
-- "[P_X] = {...}" rows such), else nil and the caller's one item a line. Returns the lines.
function M.rows(indent, items)
    if #items < 5 then return nil end
    for _, it in ipairs(items) do
        if indent + #it + 1 > M.LIMIT or it:find("\n", 1, true) then return nil end
    end
    local formats, len = column_formats(items, ",", true)
    local f = pick_format(formats, indent)
    if not f or f.columns == 1 then return nil end
    local rows = column_rows(items, ",", f, len, indent)
    rows[1] = spaces(indent) .. rows[1]
    return rows
end

-- A bin-packed braced list as clang-format lays it out: continuation lines aligned after the
-- brace, or a break after the brace when that costs less (as after a call's '('); a list of six
-- or more items in columns or one a line (columns_layout).
function M.braced(prefix, items, close)
    local one = prefix .. table.concat(items, ", ") .. close
    if #one <= M.LIMIT then return one end
    local cols = columns_layout(prefix, items, close)
    if cols then return cols end
    local here, breaks = pack(items, #prefix, #prefix, close)
    local below, below_breaks = pack(items, M.INDENT, M.INDENT, close)
    if here and (not below or breaks * PENALTY.comma <=
            PENALTY.open_call + below_breaks * PENALTY.comma) then
        return prefix .. table.concat(here, "\n" .. spaces(#prefix))
    end
    return prefix .. "\n" .. spaces(M.INDENT) .. table.concat(below, "\n" .. spaces(M.INDENT))
end

-- Items with a trailing comma each, packed into lines that start with `indent`.
function M.wrap_items(items, indent)
    local lines, line = {}, indent
    for _, it in ipairs(items) do
        local piece = it .. ","
        if #line + #piece + 1 > M.LIMIT then
            lines[#lines + 1] = line
            line = indent .. piece
        else
            line = (line == indent) and (line .. piece) or (line .. " " .. piece)
        end
    end
    lines[#lines + 1] = line
    return table.concat(lines, "\n")
end

-- A statement list as function body lines, wrapping a long "return a + b + ...;" after a '+' the
-- way clang-format does (continuation indented by 8).
function M.sum_lines(stmts)
    local out = {}
    for _, st in ipairs(stmts) do
        local line = spaces(M.INDENT) .. st
        if #line <= M.LIMIT then
            out[#out + 1] = line
        else
            local cur, rest = "", line
            while #rest > 0 do
                local cut
                for i = 1, #rest do
                    if rest:sub(i, i + 2) == " + " and #cur + i <= M.LIMIT then cut = i end
                end
                if not cut or #cur + #rest <= M.LIMIT then
                    out[#out + 1] = cur .. rest
                    break
                end
                out[#out + 1] = cur .. rest:sub(1, cut - 1) .. " +"
                cur, rest = spaces(2 * M.INDENT + 3), rest:sub(cut + 3)
            end
        end
    end
    return out
end

-- A line of a filled template (written on one line) that a long prefix pushed past the limit,
-- laid out as clang-format would: a definition's signature, or a call assigned to a declared
-- variable; any other line as it is.
function M.relayout(line)
    if #line <= M.LIMIT then return line end
    local lead, name, args, tail = line:match("^(%S.-[ *])([%w_]+)%((.*)%)( {)$")
    local indent, decl = 0, true
    if not lead then
        local ind
        ind, lead, name, args, tail = line:match("^( *)(%S.- = )([%w_]+)%((.*)%)(;)$")
        indent, decl = ind and #ind, false
    end
    if not lead then return line end
    local list = {}
    for a in args:gmatch("[^,]+") do list[#list + 1] = a:match("^%s*(.-)%s*$") end
    return M.call({ indent = indent, lead = lead, name = name, args = list,
        tail = ")" .. tail, decl = decl })
end

-- The ids derived from the command list P_COMMANDS(X): "#define <x>(i, I, n, a, f) <ID_PREFIX>##I,"
-- then "typedef enum <name> { <first...>, P_COMMANDS(<x>) } <name>;" and "#undef <x>". The
-- expansion is the last enumerator (the list ends each id with its comma), so clang-format sees
-- no trailing comma and keeps the enum on one line when it fits; else one enumerator a line, and
-- an expansion too long for its line broken after '(' as M.call breaks a call.
function M.x_enum(e)
    local x_def = M.macros({ { e.x .. "(i, I, n, a, f)", e.id_prefix .. "##I," } })
    local items = {}
    for _, f in ipairs(e.first or {}) do items[#items + 1] = f end
    items[#items + 1] = e.list .. "(" .. e.x .. ")"
    local head, tail = "typedef enum " .. e.name .. " {", "} " .. e.name .. ";"
    local lines = { head .. " " .. table.concat(items, ", ") .. " " .. tail }
    if #lines[1] > M.LIMIT then
        lines = { head }
        for i = 1, #items - 1 do lines[#lines + 1] = spaces(M.INDENT) .. items[i] .. "," end
        lines[#lines + 1] = M.call({ indent = M.INDENT, lead = "", name = e.list, args = { e.x },
            tail = ")" })
        lines[#lines + 1] = tail
    end
    return table.concat(x_def, "\n") .. "\n" .. table.concat(lines, "\n") .. "\n#undef " .. e.x
end

-- One entry "X(a, b, ..., t1 | t2 | ...)" of a multi-line macro, leaving room for the " \" that
-- ends each line: the arguments packed after `lead` ("    X(") and aligned under the first; the
-- last one, the terms joined by " | ", on that line when it fits, else from the next, broken
-- after a '|' with the continuations one indent further. The macro's last entry (last) ends
-- without a backslash, so it has the whole line when it fits on one. Returns the lines.
function M.macro_entry(lead, args, terms, last)
    local whole = lead .. table.concat(args, ", ") .. ", " .. table.concat(terms, " | ") .. ")"
    if last and #whole <= M.LIMIT then return { whole } end
    -- (Once the last entry is broken, its lines keep the room of the others: clang-format 14.)
    local room, col = M.LIMIT - 2, #lead
    local lines, cur = {}, lead .. args[1] .. ","
    for i = 2, #args do
        local piece = args[i] .. ","
        if #cur + 1 + #piece > room then
            lines[#lines + 1] = cur
            cur = spaces(col) .. piece
        else
            cur = cur .. " " .. piece
        end
    end
    local expr = table.concat(terms, " | ")
    if #cur + 1 + #expr + 1 <= room then
        lines[#lines + 1] = cur .. " " .. expr .. ")"
        return lines
    end
    lines[#lines + 1] = cur
    cur = spaces(col)
    for i, t in ipairs(terms) do
        local piece = t .. (i < #terms and " |" or ")")
        if cur:match("%S") and #cur + 1 + #piece > room then
            lines[#lines + 1] = cur
            cur = spaces(col + M.INDENT) .. piece
        else
            cur = cur .. (cur:match("%S") and " " or "") .. piece
        end
    end
    lines[#lines + 1] = cur
    return lines
end

-- The lines of a multi-line macro, each but the last ended by a backslash one column after the
-- longest of them (AlignEscapedNewlines); one line when the whole definition fits on one, as
-- clang-format joins it then.
function M.continued(lines)
    local words = {}
    for i, l in ipairs(lines) do words[i] = l:match("^%s*(.-)%s*$") end
    local one = table.concat(words, " ")
    if #one <= M.LIMIT then return { one } end
    local width, out = 0, {}
    for i = 1, #lines - 1 do width = math.max(width, #lines[i]) end
    for i = 1, #lines - 1 do out[i] = lines[i] .. spaces(width - #lines[i] + 1) .. "\\" end
    out[#lines] = lines[#lines]
    return out
end

return M
