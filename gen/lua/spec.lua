-- The spec language: loading a spec file in a sandbox and validating what it declares.
--
-- A spec is Lua code that calls the DSL functions below (see docs/spec-language.md). It runs
-- with nothing but those functions in scope: no io, os, require or load, so a spec can only
-- describe commands. Every command and argument remembers the line it was written on, and every
-- mistake is reported as "file:line: command 'X', argument 'y': what is wrong".

local host = require("host")
local naming = require("naming")
local source_lines = require("source_lines")

local M = {}

-- Instructions a spec may run; data-only specs need a tiny fraction of this.
local INSTRUCTION_LIMIT = 50000000

-- Sizes of what a spec names (docs/security.md). A name becomes part of C identifiers (Redis'
-- longest is 33 bytes); a token sits in a server table whose token_len is a uint8_t; any other
-- text may become a C string literal, which C11 only guarantees up to 4095 characters.
local MAX_NAME = 128
local MAX_TOKEN = 255
local MAX_TEXT = 4000
-- Nesting of oneof and block arguments (Redis' deepest is 5; the JSON importer allows 512
-- levels of JSON, which is about 256 of arguments).
local MAX_DEPTH = 64
M.MAX_NAME, M.MAX_TOKEN, M.MAX_TEXT = MAX_NAME, MAX_TOKEN, MAX_TEXT

-- Argument kinds: DSL function name -> kind as the Redis JSON specs spell it.
local KINDS = {
    key = "key",
    string = "string",
    pattern = "pattern",
    integer = "integer",
    double = "double",
    unix_time = "unix-time",
    pure_token = "pure-token",
    oneof = "oneof",
    block = "block",
}
M.KINDS = KINDS

-- Command flags (JSON "command_flags"), in the order that fixes their bit in generated masks.
-- Append only: reordering would change the numbers generated code was built with.
M.COMMAND_FLAGS = {
    "WRITE", "READONLY", "DENYOOM", "MODULE", "ADMIN", "PUBSUB", "NOSCRIPT", "BLOCKING",
    "LOADING", "STALE", "SKIP_MONITOR", "SKIP_SLOWLOG", "ASKING", "FAST", "NO_AUTH",
    "MAY_REPLICATE", "SENTINEL", "ONLY_SENTINEL", "NO_MANDATORY_KEYS", "PROTECTED",
    "NO_ASYNC_LOADING", "NO_MULTI", "MOVABLE_KEYS", "ALLOW_BUSY", "TOUCHES_ARBITRARY_KEYS",
}

local KEY_SPEC_FLAGS = {
    "RO", "RW", "OW", "RM", "ACCESS", "UPDATE", "INSERT", "DELETE", "NOT_KEY", "INCOMPLETE",
    "VARIABLE_FLAGS",
}
local DOC_FLAGS = { "DEPRECATED", "SYSCMD" }
local SCHEMA_TYPES = { "string", "array", "integer", "null", "object", "number", "boolean" }

local function set_of(list)
    local s = {}
    for _, v in ipairs(list) do s[v] = true end
    return s
end

local FLAG_SET, KEY_FLAG_SET = set_of(M.COMMAND_FLAGS), set_of(KEY_SPEC_FLAGS)
local DOC_FLAG_SET, SCHEMA_TYPE_SET = set_of(DOC_FLAGS), set_of(SCHEMA_TYPES)

local function sorted_keys(t)
    local keys = {}
    for k in pairs(t) do keys[#keys + 1] = k end
    table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
    return keys
end

---------------------------------------------------------------------------------------------
-- Value checkers: each returns nil when v is acceptable, else a description of the problem.

local function is_list(v)
    if type(v) ~= "table" then return false end
    local n = #v
    for k in pairs(v) do
        if math.type(k) ~= "integer" or k < 1 or k > n then return false end
    end
    return true
end

-- A value as a message shows it: strings quoted, numbers as they are, other things by type.
local function show(v)
    if type(v) == "string" then return string.format("%q", v) end
    if type(v) == "number" or type(v) == "boolean" then return tostring(v) end
    return "a " .. type(v)
end

local function check_string(v)
    if type(v) ~= "string" then return "must be a string, got " .. show(v) end
    if #v > MAX_TEXT then return "is " .. #v .. " bytes, over the limit of " .. MAX_TEXT end
end

local function check_token(v)
    if type(v) ~= "string" then return "must be a string, got " .. show(v) end
    if #v > MAX_TOKEN then return "is " .. #v .. " bytes, over the limit of " .. MAX_TOKEN end
end

local function check_bool(v)
    if type(v) ~= "boolean" then return "must be true or false, got " .. show(v) end
end

local function check_version(v)
    if type(v) ~= "string" or not v:match("^%d+%.%d+%.%d+$") then
        return "must be a version string like \"6.2.0\""
    end
end

-- Integers that become C constants must fit their C type: key spec fields and arity are int32_t
-- or int, so a bigger one would not compile (or would mean another number).
local INT32_MAX = 2147483647

local function check_int_min(min, max)
    max = max or INT32_MAX
    return function(v)
        if math.type(v) ~= "integer" or v < min then
            return "must be an integer >= " .. min .. ", got " .. show(v)
        end
        if v > max then return "must be at most " .. max .. ", got " .. show(v) end
    end
end

-- An error reply text as a server sends it, without '-' and CRLF: "ERR timeout is negative".
local function check_error_text(v)
    if type(v) ~= "string" or not v:match("^%u[%u_]* ") or v:find("%c") or #v > MAX_TEXT then
        return "must be an error text like \"ERR timeout is negative\" (a code in capitals, " ..
            "a space, a message on one line)"
    end
end

-- An int64_t constant; math.mininteger has no C literal (-9223372036854775808 is the negation
-- of a constant too large for any signed type).
local function check_integer(v)
    if math.type(v) ~= "integer" then return "must be an integer, got " .. show(v) end
    if v == math.mininteger then return "must be at least " .. (v + 1) .. ", got " .. show(v) end
end

local function check_arity(v)
    if math.type(v) ~= "integer" or v == 0 then
        return "must be a non-zero integer (negative: at least that many words), got " .. show(v)
    end
    if v > INT32_MAX or v < -INT32_MAX then
        return "must be from " .. -INT32_MAX .. " to " .. INT32_MAX .. ", got " .. show(v)
    end
end

local function check_list_of(check_item)
    return function(v)
        if not is_list(v) then return "must be a list" end
        for i, item in ipairs(v) do
            local err = check_item(item)
            if err then return "item " .. i .. " " .. err end
        end
    end
end

local function check_member(set, what)
    return function(v)
        if type(v) ~= "string" or not set[v] then
            return "'" .. tostring(v) .. "' is not a known " .. what
        end
    end
end

-- A table with exactly the given fields (name -> checker); required ones listed in `need`.
local function check_record(fields, need)
    return function(v)
        if type(v) ~= "table" then return "must be a table" end
        for _, k in ipairs(sorted_keys(v)) do
            if not fields[k] then return "has unknown field '" .. tostring(k) .. "'" end
            local err = fields[k](v[k])
            if err then return "field '" .. k .. "' " .. err end
        end
        for _, k in ipairs(need or {}) do
            if v[k] == nil then return "needs field '" .. k .. "'" end
        end
    end
end

-- A table with exactly one of the given variants, or the string "unknown".
local function check_variant(variants)
    return function(v)
        if v == "unknown" then return nil end
        if type(v) ~= "table" then return "must be \"unknown\" or a table" end
        local keys = sorted_keys(v)
        if #keys ~= 1 or not variants[keys[1]] then
            return "must have exactly one of: " .. table.concat(sorted_keys(variants), ", ")
        end
        local err = variants[keys[1]](v[keys[1]])
        if err then return "'" .. keys[1] .. "' " .. err end
    end
end

local int0 = check_int_min(0)
local any_int = check_int_min(-INT32_MAX)

local check_key_spec = check_record({
    notes = check_string,
    flags = check_list_of(check_member(KEY_FLAG_SET, "key spec flag")),
    begin_search = check_variant({
        index = check_record({ pos = int0 }, { "pos" }),
        keyword = check_record({ keyword = check_string, startfrom = any_int },
            { "keyword", "startfrom" }),
    }),
    find_keys = check_variant({
        range = check_record({ lastkey = any_int, step = int0, limit = int0 },
            { "lastkey", "step", "limit" }),
        keynum = check_record({ keynumidx = int0, firstkey = int0, step = int0 },
            { "keynumidx", "firstkey", "step" }),
    }),
}, { "flags", "begin_search", "find_keys" })

local function check_history_entry(v)
    if not is_list(v) or #v ~= 2 or check_version(v[1]) or type(v[2]) ~= "string" then
        return "must be { \"<version>\", \"<text>\" }"
    end
end

-- The reply: the JSON-schema subset of the Redis command specs, written as Lua tables.
local check_schema

local function check_schema_map(v)
    if type(v) ~= "table" then return "must be a table of schemas" end
    for _, k in ipairs(sorted_keys(v)) do
        if type(k) ~= "string" then return "keys must be strings" end
        local err = check_schema(v[k])
        if err then return "'" .. k .. "' " .. err end
    end
end

local function check_schema_or_list(v)
    if is_list(v) and #v > 0 then
        return check_list_of(function(x) return check_schema(x) end)(v)
    end
    return check_schema(v)
end

local function check_schema_or_bool(v)
    if type(v) == "boolean" then return nil end
    return check_schema(v)
end

local function check_const(v)
    local t = type(v)
    if t ~= "string" and t ~= "number" and t ~= "boolean" then
        return "must be a string, number or boolean"
    end
    if t == "string" then return check_string(v) end
end

local SCHEMA_FIELDS = {
    type = check_member(SCHEMA_TYPE_SET, "schema type"),
    description = check_string,
    title = check_string,
    const = check_const,
    items = check_schema_or_list,
    additionalItems = function(v) return check_schema(v) end,
    oneOf = check_list_of(function(v) return check_schema(v) end),
    anyOf = check_list_of(function(v) return check_schema(v) end),
    minItems = check_int_min(0, math.maxinteger),
    maxItems = check_int_min(0, math.maxinteger),
    minimum = check_int_min(math.mininteger, math.maxinteger),
    pattern = check_string,
    uniqueItems = check_bool,
    properties = check_schema_map,
    patternProperties = check_schema_map,
    additionalProperties = check_schema_or_bool,
    ["$ref"] = check_string,
}

check_schema = function(v)
    return check_record(SCHEMA_FIELDS)(v)
end

-- Request and response policies (command_tips) that cluster clients act on: a tip with one of
-- these prefixes must name a policy Redis defines; other tips are free text.
local POLICIES = {
    ["REQUEST_POLICY:"] = { ALL_NODES = true, ALL_SHARDS = true, MULTI_SHARD = true,
        SPECIAL = true },
    ["RESPONSE_POLICY:"] = { ONE_SUCCEEDED = true, ALL_SUCCEEDED = true, AGG_LOGICAL_AND = true,
        AGG_LOGICAL_OR = true, AGG_MIN = true, AGG_MAX = true, AGG_SUM = true, SPECIAL = true },
}

local function check_tip(v)
    local err = check_string(v)
    if err then return err end
    for prefix, known in pairs(POLICIES) do
        if v:sub(1, #prefix) == prefix and not known[v:sub(#prefix + 1)] then
            return "'" .. v .. "' is no " .. prefix:sub(1, -2) .. " Redis defines"
        end
    end
end

-- Command fields other than the arguments (which are the body's list part).
local COMMAND_FIELDS = {
    summary = check_string,
    complexity = check_string,
    group = check_string,
    since = check_version,
    deprecated_since = check_version,
    replaced_by = check_string,
    arity = check_arity,
    flags = check_list_of(check_member(FLAG_SET, "command flag")),
    acl_categories = check_list_of(check_string),
    command_tips = check_list_of(check_tip),
    doc_flags = check_list_of(check_member(DOC_FLAG_SET, "doc flag")),
    history = check_list_of(check_history_entry),
    key_specs = check_list_of(check_key_spec),
    reply = check_schema,
    container = check_bool,
    syntax_error = function(v)
        if v == "subcommand" or v == "arity" then return nil end
        if check_error_text(v) then
            return "must be \"subcommand\", \"arity\" or an error text like \"ERR no such option\""
        end
    end,
    late_numbers = check_bool,
    unknown_error = check_error_text,
    -- client-side caching (emit_client): true or false overrides what the flags, tips and key
    -- specs say (a read-only, deterministic command of one key is cacheable); "per_key": a
    -- command of a list of keys whose reply is one element per key (MGET), cached key by key
    cacheable = function(v)
        if v == true or v == false or v == "per_key" then return nil end
        return "must be true, false or \"per_key\""
    end,
    -- what a string reply is on the wire, which the reply schema's "string" cannot say
    reply_string = check_member({ simple = true, verbatim = true },
        "reply string form (\"simple\" or \"verbatim\")"),
}

-- Argument options (the table after the name).
local ARG_FIELDS = {
    token = check_token,
    optional = check_bool,
    multiple = check_bool,
    multiple_token = check_bool,
    since = check_version,
    deprecated_since = check_version,
    display = check_string,
    key_spec_index = int0,
    max_len = check_int_min(1, math.maxinteger),
    invalid = check_error_text,
    min = check_integer,
    min_error = check_error_text,
    count_error = check_error_text,
}

---------------------------------------------------------------------------------------------
-- Evaluation: the DSL functions build plain records; validation happens afterwards, when the
-- command an argument belongs to is known.

local function caller_line(level)
    return debug.getinfo(level + 1, "l").currentline
end

-- A copy of a library table, so a spec cannot change the generator's own.
local function copy(t)
    local c = {}
    for k, v in pairs(t) do c[k] = v end
    return c
end

-- Unknown names. A misspelt DSL function ("strin") is read as a global the sandbox lacks; rather
-- than stop at the first with Lua's "attempt to call a nil value", the environment hands out an
-- inert stand-in that every operation accepts, remembers the name and its line, and checking goes
-- on, so one run reports every misspelling and every other problem.
local DSL_LIST = { "command", "include", "module_prefix", "key", "string", "pattern", "integer",
    "double", "unix_time", "pure_token", "oneof", "block" }
local LIBRARY_LIST = { "ipairs", "pairs", "select", "type", "tostring", "tonumber", "error",
    "math", "table" }
local DSL_NAMES = table.concat(DSL_LIST, ", ")
local MAX_UNKNOWN = 100

-- Optimal string alignment distance: edits, where swapping two neighbours counts as one ("strnig"
-- is one from "string", as is "strin").
local function edit_distance(a, b)
    local d = {}
    for i = 0, #a do d[i] = { [0] = i } end
    for j = 1, #b do d[0][j] = j end
    for i = 1, #a do
        for j = 1, #b do
            local same = a:byte(i) == b:byte(j)
            local v = math.min(d[i - 1][j] + 1, d[i][j - 1] + 1,
                d[i - 1][j - 1] + (same and 0 or 1))
            if i > 1 and j > 1 and a:byte(i) == b:byte(j - 1) and a:byte(i - 1) == b:byte(j) then
                v = math.min(v, d[i - 2][j - 2] + 1)
            end
            d[i][j] = v
        end
    end
    return d[#a][#b]
end

-- The known name closest to name: at most 1 edit from a name of 4 letters or fewer, 2 from a
-- longer one (farther ones are guesses, not help). Lengths differing by more exclude a name
-- without the quadratic distance, so a hostile 10 KB name costs nothing.
local function closest_name(name)
    local best, best_d
    for _, list in ipairs({ DSL_LIST, LIBRARY_LIST }) do
        for _, known in ipairs(list) do
            local limit = #known > 4 and 2 or 1
            if math.abs(#known - #name) <= limit then
                local d = edit_distance(name, known)
                if d <= limit and (not best_d or d < best_d) then best, best_d = known, d end
            end
        end
    end
    return best
end

-- The message for an unknown name (shown: how messages show names).
local function unknown_message(name, shown)
    local best = closest_name(name)
    if best and KINDS[best] then
        return "unknown argument kind '" .. shown(name) .. "' (did you mean '" .. best .. "'?)"
    elseif best then
        return "unknown name '" .. shown(name) .. "' (did you mean '" .. best .. "'?)"
    end
    return "unknown name '" .. shown(name) .. "'; a spec sees only " .. DSL_NAMES ..
        " and plain Lua"
end

-- The stand-in for unknown names: indexing, calling, arithmetic and concatenation give it back,
-- comparisons are false, its length 0, so `strin "x" { ... }` and `io.open(...)` run on.
local function new_stand_in()
    local stand_in = {}
    local function same() return stand_in end
    local mt = { __index = same, __call = same, __newindex = function() end,
        __len = function() return 0 end, __lt = function() return false end,
        __le = function() return false end, __tostring = function() return "unknown" end }
    for _, op in ipairs({ "add", "sub", "mul", "div", "mod", "pow", "unm", "idiv", "band", "bor",
        "bxor", "shl", "shr", "bnot", "concat" }) do
        mt["__" .. op] = same
    end
    return setmetatable(stand_in, mt)
end

-- Makes env hand out decl.stand_in for names it lacks, recording each (name, line) once in
-- decl.unknowns (at most MAX_UNKNOWN: a loop over _ENV["x" .. i] must not flood stderr).
local function watch_unknown_names(env, decl)
    local seen = {}
    decl.stand_in, decl.unknowns = new_stand_in(), {}
    setmetatable(env, { __index = function(_, name)
        local info = debug.getinfo(2, "l")
        local line = info and info.currentline > 0 and info.currentline or 1
        local key = tostring(name) .. "\0" .. line
        if not seen[key] and #decl.unknowns < MAX_UNKNOWN then
            seen[key] = true
            decl.unknowns[#decl.unknowns + 1] = { name = tostring(name), line = line }
        elseif not seen[key] then
            decl.more_unknowns = true
        end
        return decl.stand_in
    end })
end

-- The spec's environment. Arguments are opaque handles the spec can call once with their option
-- table; what they hold lives in `args` (handle -> record), out of the spec's reach.
local function new_env(commands, args, decl)
    local handle_mt = {
        __newindex = function() error("arguments cannot be changed", 2) end,
        __call = function(self, opts)
            local r = args[self]
            if r.opts then error("argument '" .. r.name .. "' has two option tables", 2) end
            if type(opts) ~= "table" then
                error("argument '" .. r.name .. "' options must be a table, got " .. type(opts), 2)
            end
            r.opts = opts
            return self
        end,
    }
    local env = {
        ipairs = ipairs, pairs = pairs, select = select, type = type, tostring = tostring,
        tonumber = tonumber, error = error, math = copy(math), table = copy(table),
    }
    for fn_name, kind in pairs(KINDS) do
        env[fn_name] = function(name)
            if type(name) ~= "string" then
                error(fn_name .. " needs a name string, got " .. type(name), 2)
            end
            local handle = setmetatable({}, handle_mt)
            args[handle] = { kind = kind, name = name, line = caller_line(2) }
            return handle
        end
    end
    -- module_prefix "JSON": the commands' "JSON." is left out of their C names (docs).
    env.module_prefix = function(name)
        if decl.module_prefix then error("module_prefix is declared twice", 2) end
        if type(name) ~= "string" or not naming.valid_prefix(name) then
            error("module_prefix needs a name like \"JSON\" (letters, digits, '_'), got " ..
                show(name), 2)
        end
        decl.module_prefix = name
    end
    -- include { "redis.lua", commands = { "SET", "GET" } }: commands of another spec, resolved
    -- after this one has run (a spec cannot read files itself).
    env.include = function(t)
        if type(t) == "string" then t = { t } end
        if type(t) ~= "table" then
            error("include needs { \"file.lua\", commands = { ... } }, got " .. show(t), 2)
        end
        decl.includes[#decl.includes + 1] = { args = t, line = caller_line(2) }
    end
    env.command = function(name)
        if type(name) ~= "string" then
            error("command needs a name string, got " .. type(name), 2)
        end
        local line = caller_line(2)
        -- Which call on its line it is, to find its fields' lines in the source (report).
        decl.per_line[line] = (decl.per_line[line] or 0) + 1
        local cmd = { name = name, line = line, nth = decl.per_line[line] }
        commands[#commands + 1] = cmd
        return function(body)
            if type(body) ~= "table" then
                error("command '" .. name .. "' body must be a table, got " .. type(body), 2)
            end
            cmd.body = body
        end
    end
    watch_unknown_names(env, decl)
    return env
end

-- Lua reports positions as "<chunkname>:<line>:"; the chunk name is kept short (Lua truncates
-- long ones) and replaced by the spec's path here.
local CHUNK = "spec"

local function relocate(msg, path)
    msg = tostring(msg)
    local line, rest = msg:match("^" .. CHUNK .. ":(%d+): (.*)$")
    if not line then line, rest = "1", msg end
    -- Unknown globals are mostly misspelt DSL functions or library calls the sandbox leaves out.
    if rest:match("%(global '[^']*'%)$") then
        rest = rest .. "; a spec sees only " .. DSL_NAMES .. " and plain Lua"
    end
    return path .. ":" .. line .. ": " .. rest
end

-- The string methods a spec sees ("x"):rep(3) through: the library without the pattern
-- functions, whose backtracking runs in C where no hook can stop it (s:find(("a*"):rep(30) ..
-- "b") ran for minutes), and with a rep that refuses results over MAX_REP at once.
local MAX_REP = 64 * 1024 * 1024
local PATTERN_FUNCTIONS = { "find", "match", "gmatch", "gsub" }

local function sandbox_strings(where, chunkname)
    local lib = copy(string)
    for _, name in ipairs(PATTERN_FUNCTIONS) do
        lib[name] = function()
            error("string." .. name .. " is not available in specs (patterns can run for " ..
                "hours; docs/security.md)", 2)
        end
    end
    local rep = string.rep
    lib.rep = function(str, n, sep)
        -- The big allocations of a spec are mostly reps: keep their line for the memory limit.
        local info = debug.getinfo(2, "Sl")
        if info and info.source == chunkname then where.line = info.currentline end
        local len = #tostring(str) + #tostring(sep or "")
        if type(n) == "number" and n > 0 and len > 0 and n > MAX_REP / len then
            error("string.rep result over the limit of " .. MAX_REP .. " bytes", 2)
        end
        return rep(str, n, sep)
    end
    return lib
end

-- Runs fn with the string methods replaced by the sandbox's and a hook that keeps the spec's
-- current line and stops it after INSTRUCTION_LIMIT instructions or SECONDS_LIMIT of CPU time.
local SECONDS_LIMIT = 10
local HOOK_EVERY = 1000

local function run_sandboxed(fn, chunkname)
    local meta = getmetatable("")
    local saved = meta.__index
    local where = { line = 1 }
    local budget, deadline = INSTRUCTION_LIMIT, os.clock() + SECONDS_LIMIT
    -- No line hook: it would fire on every iteration of a tight loop. The line is the one the
    -- spec was on at the last count event (a refused allocation carries no position).
    debug.sethook(function()
        local info = debug.getinfo(2, "Sl")
        if info and info.source == chunkname then where.line = info.currentline end
        budget = budget - HOOK_EVERY
        if budget <= 0 then error("spec runs too long (instruction limit)", 2) end
        if os.clock() > deadline then
            error("spec runs too long (time limit of " .. SECONDS_LIMIT .. " s)", 2)
        end
    end, "", HOOK_EVERY)
    meta.__index = sandbox_strings(where, chunkname)
    local ok, err = pcall(fn)
    meta.__index = saved
    debug.sethook()
    return ok, err, where.line
end

-- The message of a failed run: Lua's own, or for a refused allocation the limit that refused it
-- (the error object is then a bare "not enough memory", with no position).
local function limit_error(line, path)
    local _, limit, hit = host.memory()
    if hit then
        return path .. ":" .. line .. ": memory limit of " .. ((limit or 0) >> 20) ..
            " MiB reached (--max-memory)"
    end
end

local function run_error(err, line, path)
    -- host's --max-seconds alarm raises its error from a hook, where Lua knows no position.
    local timeout = tostring(err):match("time limit of %d+ s reached %(%-%-max%-seconds%)$")
    if timeout then return path .. ":" .. line .. ": " .. timeout end
    return limit_error(line, path) or relocate(err, path)
end

-- For other Lua files from contributors (import-json's overlays): runs chunk (loaded with
-- chunkname "=" .. path) under the spec's limits; returns true, its result or nil, the message.
function M.run_limited(chunk, path)
    host.memory()
    local ok, res, line = run_sandboxed(chunk, "=" .. path)
    if ok then return true, res end
    return nil, limit_error(line, path) or tostring(res)
end

-- Runs the spec text; returns the raw command records, the argument records (handle ->
-- record), the declarations and the chunk's result, or nil, an error message and the
-- declarations (unknown names seen before the error).
local function evaluate(text, path)
    local commands, args, decl = {}, {}, { includes = {}, per_line = {} }
    local chunk, err = load(text, "=" .. CHUNK, "t", new_env(commands, args, decl))
    if not chunk then return nil, relocate(err, path), decl end
    host.memory() -- clears the "cap hit" flag
    local ok, result, line = run_sandboxed(chunk, "=" .. CHUNK)
    if not ok then return nil, run_error(result, line, path), decl end
    return commands, args, decl, result
end

-- An import overlay (specs/overlays/*.lua) returns a table of commands' corrections and declares
-- no command: given as a spec it would only fail as empty, which hides what went wrong.
local function is_overlay(raws, result)
    if #raws > 0 or type(result) ~= "table" then return false end
    for k, v in pairs(result) do
        if type(k) == "string" and type(v) == "table" then return true end
    end
    return false
end

---------------------------------------------------------------------------------------------
-- Validation.

-- Collects problems as { line, message } and formats them for stderr.
-- A spec name as a message shows it: control bytes escaped (a message is one line, and a
-- terminal must not act on it) and a hostile 10 KB name cut short.
local function shown(name)
    local cut = #name > 80 and name:sub(1, 77) .. "..." or name
    return (cut:gsub("%c", function(ch) return string.format("\\%03d", ch:byte()) end))
end

-- text (optional): the spec's source, for the lines of command fields (report.field_line).
local function new_reporter(path, text)
    local r = { path = path, list = {} }
    local tokens
    -- The line of field k of a command's body (raw: the command record), else the command's.
    function r.field_line(raw, k)
        if not text or not raw.nth then return raw.line end
        tokens = tokens or source_lines.tokens(text)
        raw.fields = raw.fields or source_lines.body_fields(tokens, "command", raw.line, raw.nth)
        return raw.fields[k] or raw.line
    end
    function r.add(line, cmd, arg_path, msg)
        local where = ""
        if cmd then where = "command '" .. shown(cmd) .. "'" end
        if arg_path then where = where .. ", argument '" .. shown(arg_path) .. "'" end
        if where ~= "" then where = where .. ": " end
        r.list[#r.list + 1] = { line = line, text = path .. ":" .. line .. ": " .. where .. msg }
    end
    return r
end

-- Splits a body table into its list part and its named fields; reports stray keys.
local function split_body(body, report, line, cmd, arg_path)
    local items, fields = {}, {}
    local n = #body
    for _, k in ipairs(sorted_keys(body)) do
        if math.type(k) == "integer" and k >= 1 and k <= n then
            items[k] = body[k]
        elseif type(k) == "string" then
            fields[k] = body[k]
        else
            report.add(line, cmd, arg_path, "unexpected key " .. tostring(k))
        end
    end
    return items, fields
end

-- Checks named fields against a checker table and copies the good ones into out. line_of(k),
-- when given, is the line field k was written on (else `line`).
local function copy_fields(fields, checkers, out, report, line, cmd, arg_path, what, line_of)
    for _, k in ipairs(sorted_keys(fields)) do
        local check = checkers[k]
        local at = line_of and line_of(k) or line
        if not check then
            report.add(at, cmd, arg_path, "unknown " .. what .. " field '" .. k .. "'")
        else
            local err = check(fields[k])
            if err then
                report.add(at, cmd, arg_path, "field '" .. k .. "' " .. err)
            else
                out[k] = fields[k]
            end
        end
    end
end

local validate_args

-- Rules that involve more than one field of an argument.
local function check_arg_rules(a, report, cmd, arg_path)
    local function bad(msg) report.add(a.line, cmd, arg_path, msg) end
    local valued = a.kind ~= "pure-token" and a.kind ~= "oneof" and a.kind ~= "block"
    if a.kind == "pure-token" and a.token == nil then bad("pure-token needs a token") end
    if a.kind == "pure-token" and a.multiple then bad("a pure-token cannot be multiple") end
    if a.token == "" and a.kind ~= "pure-token" then bad("token must not be empty") end
    if a.multiple_token and not (a.multiple and a.token) then
        bad("multiple_token needs multiple = true and a token")
    end
    if a.max_len and not (a.kind == "key" or a.kind == "string" or a.kind == "pattern") then
        bad("max_len applies to key, string and pattern arguments only")
    end
    if a.key_spec_index and not (a.kind == "key" or a.kind == "pattern") then
        bad("key_spec_index applies to key and pattern arguments only")
    end
    if a.kind == "oneof" and #a.args < 2 and not a.incomplete then
        bad("oneof needs at least 2 alternatives, has " .. #a.args)
    end
    if a.kind == "block" and #a.args == 0 and not a.incomplete then
        bad("block needs at least one argument")
    end
    local numeric = a.kind == "integer" or a.kind == "double" or a.kind == "unix-time"
    if a.invalid and not (numeric or a.kind == "oneof") then
        bad("invalid applies to integer, double, unix-time and oneof arguments only")
    end
    if (a.min == nil) ~= (a.min_error == nil) then bad("min and min_error go together") end
    if a.min and not numeric then
        bad("min applies to integer, double and unix-time arguments only")
    end
    if a.count_error and a.kind ~= "integer" and a.kind ~= "block" then
        bad("count_error applies to integer and block arguments only")
    end
    if valued and #a.args > 0 then bad(a.kind .. " argument cannot have nested arguments") end
end

local function validate_arg(raw, report, cmd, parent_path, depth)
    local a = { kind = raw.kind, name = raw.name, line = raw.line, args = {} }
    local arg_path = parent_path and (parent_path .. "." .. raw.name) or raw.name
    a.path = arg_path
    local items, fields = split_body(raw.opts or {}, report, raw.line, cmd, arg_path)
    copy_fields(fields, ARG_FIELDS, a, report, raw.line, cmd, arg_path, "argument")
    a.args, a.incomplete = validate_args(items, report, cmd, arg_path, raw.line, depth + 1)
    if #raw.name > MAX_NAME then
        report.add(raw.line, cmd, arg_path, "name is " .. #raw.name ..
            " bytes, over the limit of " .. MAX_NAME)
    elseif not naming.ident(raw.name) then
        report.add(raw.line, cmd, arg_path, "name cannot become a C identifier")
    end
    check_arg_rules(a, report, cmd, arg_path)
    return a
end

-- Validates a list of raw arguments (one nesting level); names must stay distinct as C
-- identifiers because they become parameters, members and enumerators. Returns the arguments and
-- whether some are missing from them (too deep, or an unknown name's stand-in, both reported
-- already), which makes counts of them meaningless.
validate_args = function(items, report, cmd, parent_path, parent_line, depth)
    local out, seen, incomplete = {}, {}, false
    if #items > 0 and depth > MAX_DEPTH then
        -- Stop here: deeper levels would only cost time and memory (paths grow with depth).
        report.add(parent_line, cmd, parent_path, "arguments nested deeper than the limit of " ..
            MAX_DEPTH .. " levels")
        return out, true
    end
    for i, item in ipairs(items) do
        local raw = report.args[item]
        if item == report.stand_in then
            incomplete = true
        elseif not raw then
            report.add(parent_line, cmd, parent_path,
                "item " .. i .. " is a " .. type(item) .. ", not an argument")
        else
            local a = validate_arg(raw, report, cmd, parent_path, depth)
            local id = naming.ident(a.name)
            if id and seen[id] then
                local first = seen[id]
                local same = first.name == a.name and "duplicate argument name" or
                    "name maps to the same C identifier '" .. id .. "' as '" .. first.name .. "'"
                report.add(a.line, cmd, a.path, same .. " (line " .. first.line .. ")")
            elseif id then
                seen[id] = a
            end
            incomplete = incomplete or a.incomplete
            out[#out + 1] = a
        end
    end
    return out, incomplete
end

-- Smallest and largest number of request words an argument produces (nil = unbounded). Inside a
-- oneof, "optional" on a single alternative means nothing: choosing it sends it.
local function arg_words(a, in_oneof)
    local tok = (a.token and a.kind ~= "pure-token") and 1 or 0
    local lo, hi = 1, 1
    if a.kind == "block" then
        lo, hi = 0, 0
        for _, c in ipairs(a.args) do
            local clo, chi = arg_words(c, false)
            lo, hi = lo + clo, hi and chi and hi + chi
        end
    elseif a.kind == "oneof" then
        lo, hi = math.huge, 0
        for _, c in ipairs(a.args) do
            local clo, chi = arg_words(c, true)
            lo, hi = math.min(lo, clo), hi and chi and math.max(hi, chi)
        end
    end
    lo, hi = lo + tok, hi and hi + tok
    if a.multiple then hi = nil end
    if a.optional and (a.multiple or not in_oneof) then lo = 0 end
    return lo, hi
end
M.arg_words = arg_words

local function words_of(name)
    local words = {}
    for w in name:gmatch("%S+") do words[#words + 1] = w end
    return words
end

local function check_arity_against_args(c, report, line)
    local lo, hi = #c.words, #c.words
    for _, a in ipairs(c.args) do
        local alo, ahi = arg_words(a, false)
        lo = lo + alo
        hi = hi and ahi and hi + ahi
    end
    c.min_words, c.max_words = lo, hi
    if not c.arity then
        c.arity = (hi == lo) and lo or -lo
        return
    end
    if c.arity > 0 and (lo ~= c.arity or hi ~= c.arity) then
        report.add(line, c.name, nil, "arity " .. c.arity .. " says exactly " .. c.arity ..
            " words, the arguments allow " .. lo .. (hi == lo and "" or (" to " ..
            (hi and tostring(hi) or "any number"))))
    elseif c.arity < 0 and hi and hi < -c.arity then
        -- A negative arity is the server's minimum; arguments that can never reach it are wrong.
        -- (Fewer is fine: the server may demand more than the argument tree shows.)
        report.add(line, c.name, nil, "arity " .. c.arity .. " says at least " .. -c.arity ..
            " words, the arguments allow at most " .. hi)
    end
end

local function check_key_spec_refs(c, args, report)
    for _, a in ipairs(args) do
        local n = c.key_specs and #c.key_specs or 0
        if a.key_spec_index and a.key_spec_index >= n then
            report.add(a.line, c.name, a.path, "key_spec_index " .. a.key_spec_index ..
                " but the command has " .. n .. " key_specs (indexes start at 0)")
        end
        check_key_spec_refs(c, a.args, report)
    end
end

local function validate_command(raw, report)
    local before = #report.list
    local c = { name = raw.name, line = raw.line, words = words_of(raw.name) }
    if not raw.body then
        report.add(raw.line, raw.name, nil, "missing body: write command \"NAME\" { ... }")
        c.args = {}
        return c
    end
    local bad_name = #c.words == 0 or #c.words > 2 or c.name ~= table.concat(c.words, " ") or
        c.name:match("[%c\"\\]")
    if #c.name > MAX_NAME then
        report.add(raw.line, raw.name, nil, "name is " .. #c.name .. " bytes, over the limit of " ..
            MAX_NAME)
    elseif bad_name then
        report.add(raw.line, raw.name, nil,
            "name must be one word or a container and a subcommand separated by one space")
    elseif not naming.ident(table.concat(c.words, "_")) then
        report.add(raw.line, raw.name, nil, "name cannot become a C identifier")
    end
    local items, fields = split_body(raw.body, report, raw.line, raw.name)
    local function line_of(k) return report.field_line(raw, k) end
    copy_fields(fields, COMMAND_FIELDS, c, report, raw.line, raw.name, nil, "command", line_of)
    c.args, c.incomplete = validate_args(items, report, raw.name, nil, raw.line, 1)
    check_key_spec_refs(c, c.args, report)
    if c.container and #c.args > 0 then
        report.add(raw.line, raw.name, nil, "a container has subcommands, not arguments")
    elseif #report.list == before and not c.container and not c.incomplete then
        check_arity_against_args(c, report, line_of("arity"))
    end
    return c
end

local function validate_commands(raws, report)
    local out, seen = {}, {}
    for _, raw in ipairs(raws) do
        local c = validate_command(raw, report)
        local id = naming.ident(table.concat(c.words, "_"))
        if id and seen[id] then
            local first = seen[id]
            local what = first.name == c.name and "duplicate command" or
                "maps to the same C name '" .. id .. "' as command '" .. first.name .. "'"
            report.add(c.line, c.name, nil, what .. " (line " .. first.line .. ")")
        elseif id then
            -- Even a command with other errors: its twin is a problem of its own.
            seen[id] = c
        end
        out[#out + 1] = c
    end
    return out
end

local function report_unknown_names(decl, report)
    for _, u in ipairs(decl.unknowns) do
        report.add(u.line, nil, nil, unknown_message(u.name, shown))
    end
    if decl.more_unknowns then
        local last = decl.unknowns[#decl.unknowns].line
        report.add(last, nil, nil, "and more unknown names (the first " .. MAX_UNKNOWN ..
            " are listed)")
    end
end

local function sorted_messages(report)
    table.sort(report.list, function(a, b)
        if a.line ~= b.line then return a.line < b.line end
        return a.text < b.text
    end)
    local texts = {}
    for i, e in ipairs(report.list) do texts[i] = e.text end
    return texts
end

---------------------------------------------------------------------------------------------
-- Choosing commands: respgen --commands, and include { ..., commands = { ... } }.

-- The form names are compared in: upper case, one space between words ("client|info" and
-- "CLIENT  INFO" are "CLIENT INFO", as Redis' ACL rules and COMMAND INFO write them).
function M.normal_name(name)
    local words = {}
    for w in name:upper():gsub("|", " "):gmatch("%S+") do words[#words + 1] = w end
    return table.concat(words, " ")
end

-- The commands (a list of validated commands) that `names` choose, in their order, and the
-- names that match nothing. A command's name chooses it; a container's name (a container,
-- or a first word only subcommands have) chooses all its subcommands. Containers themselves
-- are never chosen: generated code derives what it needs of them from their subcommands.
function M.select(commands, names)
    local by_name, subs = {}, {}
    for _, c in ipairs(commands) do
        local n = M.normal_name(c.name)
        by_name[n] = c
        if #c.words == 2 then
            local top = M.normal_name(c.words[1])
            subs[top] = subs[top] or {}
            table.insert(subs[top], c)
        end
    end
    local chosen, unknown = {}, {}
    for _, name in ipairs(names) do
        local n = M.normal_name(name)
        local c = by_name[n]
        if c and not c.container then
            chosen[c] = true
        elseif subs[n] then
            for _, s in ipairs(subs[n]) do chosen[s] = true end
        else
            unknown[#unknown + 1] = name
        end
    end
    local out = {}
    for _, c in ipairs(commands) do
        if chosen[c] then out[#out + 1] = c end
    end
    return out, unknown
end

-- "'A', 'B', 'C'": names as messages list them.
local function quoted_list(names)
    local q = {}
    for i, n in ipairs(names) do q[i] = "'" .. n .. "'" end
    return table.concat(q, ", ")
end
M.quoted_list = quoted_list

local MAX_INCLUDE_DEPTH = 8

-- What an include asks for: the file (relative to the including spec) and the names, or nil
-- (all commands); or nil, nil and what is wrong.
local function include_request(t)
    local file, names = t[1], t.commands
    for _, k in ipairs(sorted_keys(t)) do
        if k ~= 1 and k ~= "commands" then
            return nil, nil, "include has unknown field '" .. tostring(k) .. "'"
        end
    end
    if type(file) ~= "string" or not file:match("%.lua$") or file:match("^/") then
        return nil, nil, "include needs a relative path to a spec (\"x.lua\") first, got " ..
            show(file)
    end
    local bad_names = names ~= nil and
        (not is_list(names) or #names == 0 or check_list_of(check_string)(names))
    if bad_names then return nil, nil, "include's commands must be a list of command names" end
    return file, names
end

local function dir_of(path)
    return path:match("^(.*)/[^/]*$")
end

local function in_chain(chain, path)
    for _, p in ipairs(chain) do
        if p == path then return true end
    end
    return false
end

-- The commands one include takes from a loaded spec (all but containers without names), and
-- the names it does not have.
local function taken(sub, names)
    if names then return M.select(sub.commands, names) end
    local got = {}
    for _, c in ipairs(sub.commands) do
        if not c.container then got[#got + 1] = c end
    end
    return got, {}
end

-- Loads the spec one include names and adds the commands it takes to `into`. opts.read(path)
-- -> text or nil, error; opts.chain: the including specs, to refuse cycles.
local function include_one(inc, path, opts, into, report)
    local file, names, err = include_request(inc.args)
    if not file then return report.add(inc.line, nil, nil, err) end
    if not opts.read then return report.add(inc.line, nil, nil, "include is not available here") end
    local dir = dir_of(path)
    local target = dir and (dir .. "/" .. file) or file
    if in_chain(opts.chain, target) or #opts.chain >= MAX_INCLUDE_DEPTH then
        return report.add(inc.line, nil, nil, "include of " .. file .. " makes a cycle or nests " ..
            "deeper than " .. MAX_INCLUDE_DEPTH)
    end
    local text, rerr = opts.read(target)
    if not text then
        return report.add(inc.line, nil, nil, "cannot read included spec: " .. tostring(rerr))
    end
    local chain = table.move(opts.chain, 1, #opts.chain, 1, {})
    chain[#chain + 1] = target
    local sub, errs = M.load(text, target, { read = opts.read, chain = chain })
    -- The included spec's own messages name its file and lines already.
    for _, e in ipairs(errs or {}) do
        report.list[#report.list + 1] = { line = inc.line, text = e }
    end
    if not sub then return end
    local got, unknown = taken(sub, names)
    if #unknown > 0 then
        report.add(inc.line, nil, nil, "include " .. file .. ": no command " ..
            quoted_list(unknown) .. " in it")
    end
    for _, c in ipairs(got) do
        -- Later messages about the command point at the include.
        c.from, c.line = c.from or target, inc.line
        into[#into + 1] = c
    end
end

-- Commands of the spec itself and included ones must keep distinct C names.
local function check_included_names(included, commands, report)
    local seen = {}
    for _, c in ipairs(included) do
        local id = naming.ident(table.concat(c.words, "_"))
        if seen[id] then
            report.add(c.line, c.name, nil, "included twice (from " .. seen[id].from .. " and " ..
                c.from .. ")")
        end
        seen[id] = c
    end
    for _, c in ipairs(commands) do
        local id = naming.ident(table.concat(c.words, "_"))
        if id and seen[id] then
            report.add(c.line, c.name, nil, "is also included from " .. seen[id].from)
        end
    end
end

-- Loads and validates spec text. opts (optional): read = function(path) -> text or nil, err,
-- which `include` needs. Returns the spec ({ path, commands, module_prefix }), or nil and a
-- list of error lines.
function M.load(text, path, opts)
    opts = { read = opts and opts.read, chain = opts and opts.chain or { path } }
    local raws, args, decl, result = evaluate(text, path)
    if not raws then
        -- An unknown name is often the cause of the error that stopped the spec: name both.
        local report = new_reporter(path)
        report_unknown_names(decl, report)
        local line = tonumber(args:match(":(%d+): ")) or 1
        report.list[#report.list + 1] = { line = line, text = args }
        return nil, sorted_messages(report)
    end
    if is_overlay(raws, result) then
        return nil, { path .. ": this is an import overlay (for respgen import-json --overlay), " ..
            "not a spec" }
    end
    local report = new_reporter(path, text)
    report.args, report.stand_in = args, decl.stand_in
    report_unknown_names(decl, report)
    local commands = validate_commands(raws, report)
    local included = {}
    for _, inc in ipairs(decl.includes) do include_one(inc, path, opts, included, report) end
    check_included_names(included, commands, report)
    commands = table.move(commands, 1, #commands, #included + 1, included)
    if #commands == 0 and #report.list == 0 then
        report.add(1, nil, nil, "spec declares no commands")
    end
    if #report.list > 0 then return nil, sorted_messages(report) end
    return { path = path, commands = commands, module_prefix = decl.module_prefix }
end

M.new_reporter = new_reporter
M.sorted_messages = sorted_messages

return M
