-- `respgen import-json SOURCE -o FILE`: the official JSON command specs (Redis' and Valkey's
-- src/commands/*.json, one command per file, or a module's commands.json, all commands in one
-- object) converted into a spec in the respgen spec language (docs/import.md).
--
-- Every JSON key is either converted, or left out on purpose (DROPPED, with the reason), or an
-- error: input that is not understood fails the import, naming file:line:col and the JSON path,
-- and nothing is written. The result is checked by loading it with the spec language itself
-- (spec.load) before it is written, and what that check rejects is reported at the JSON that
-- produced it. A summary of what was read and kept goes to standard output.

local host = require("host")
local json = require("json")
local lua = require("import_lua")
local spec = require("spec")

local M = {}

local SUCCESS, FAILURE, USAGE = 0, 1, 2

-- A JSON file from a contributor larger than this is refused before it is read (Redis' largest
-- command file is about 30 KB, a module's whole commands.json some hundred KB).
local MAX_FILE = 16 * 1024 * 1024

-- Raised (as a table) for problems in the input; anything else raised is a bug.
local InputError = {}

---------------------------------------------------------------------------------------------
-- Cursors: a JSON value with where it is. { file, value, path, parent, key }: the value is
-- parent[key], and path its JSON path ("$.SET.arguments[2]").

local function root_cursor(file, value)
    return { file = file, value = value, path = "$" }
end

local function child(at, key)
    return {
        file = at.file, parent = at.value, key = key, value = at.value[key],
        path = json.path_join(at.path, key),
    }
end

local function where(at)
    if at.parent then return json.where(at.parent, at.key) end
    local k = json.kind(at.value)
    if k == "object" or k == "array" then return json.where(at.value) end
    return at.file .. ":1:1"
end

local function located(at, msg)
    return where(at) .. ": " .. at.path .. ": " .. msg
end

local function fail(at, msg)
    error(setmetatable({ text = located(at, msg) }, InputError), 0)
end

---------------------------------------------------------------------------------------------
-- JSON types.

local function type_of(v)
    local k = json.kind(v)
    if k == "number" and math.type(v) == "integer" then return "integer" end
    return k
end

local A_TYPE = {
    object = "an object", array = "an array", string = "a string", integer = "an integer",
    number = "a number", boolean = "true or false", null = "null",
}

local function describe(v)
    local t = type_of(v)
    if t == "string" then
        return "the string " .. lua.quote(#v > 40 and v:sub(1, 37) .. "..." or v)
    end
    if t == "number" or t == "integer" or t == "boolean" then return tostring(v) end
    return A_TYPE[t]
end

local function expect(at, want)
    if type_of(at.value) ~= want then
        fail(at, "expected " .. A_TYPE[want] .. ", found " .. describe(at.value))
    end
    return at.value
end

local function sorted_names(set)
    local names = {}
    for k in pairs(set) do names[#names + 1] = k end
    table.sort(names)
    return names
end

-- Fails on keys of the object at `at` that `known` does not have.
local function check_keys(at, known, what)
    for _, k in ipairs(json.keys(at.value)) do
        if known[k] == nil then
            fail(child(at, k), "unknown key " .. lua.quote(k) .. " in " .. what .. " (known: " ..
                table.concat(sorted_names(known), ", ") .. ")")
        end
    end
end

---------------------------------------------------------------------------------------------
-- Converters: conv(at, ctx) -> the value for the spec. ctx.fixup(at, text) records an input
-- quirk that was mapped rather than rejected (listed in the summary).

local function c_string(at) return expect(at, "string") end
local function c_integer(at) return expect(at, "integer") end

-- A version "x.y.z"; "x.y" (seen in module specs) gets ".0".
local function c_version(at, ctx)
    local v = expect(at, "string")
    if v:match("^%d+%.%d+%.%d+$") then return v end
    if v:match("^%d+%.%d+$") then
        ctx.fixup(at, "version " .. lua.quote(v) .. " read as " .. lua.quote(v .. ".0"))
        return v .. ".0"
    end
    fail(at, 'expected a version like "6.2.0", found ' .. describe(v))
end

-- A boolean; the strings "true" and "false" (CLIENT CAPA has one) mean the same.
local function c_bool(at, ctx)
    local v = at.value
    if v == true or v == false then return v end
    if v == "true" or v == "false" then
        ctx.fixup(at, "the string " .. lua.quote(v) .. " read as " .. v)
        return v == "true"
    end
    fail(at, "expected true or false, found " .. describe(v))
end

local function c_list(conv)
    return function(at, ctx)
        expect(at, "array")
        local out = lua.list()
        for i = 1, #at.value do out[i] = conv(child(at, i), ctx) end
        return out
    end
end

-- An object with the given fields ({ name, conv } in output order); `required` lists names.
local function c_record(fields, required)
    local known = {}
    for _, f in ipairs(fields) do known[f[1]] = true end
    return function(at, ctx)
        expect(at, "object")
        check_keys(at, known, "this object")
        for _, name in ipairs(required or {}) do
            if at.value[name] == nil then fail(at, "missing " .. lua.quote(name)) end
        end
        local out = lua.record()
        for _, f in ipairs(fields) do
            if at.value[f[1]] ~= nil then lua.add(out, f[1], f[2](child(at, f[1]), ctx)) end
        end
        return out
    end
end

-- An object with exactly one of the keys of `variants` (name -> conv of its value); the
-- result is what the chosen conv returns.
local function c_variant(variants)
    return function(at, ctx)
        expect(at, "object")
        check_keys(at, variants, "this object")
        local keys = json.keys(at.value)
        if #keys ~= 1 then
            fail(at, "expected exactly one of " .. table.concat(sorted_names(variants), ", ") ..
                ", found " .. #keys .. " keys")
        end
        return variants[keys[1]](child(at, keys[1]), ctx)
    end
end

-- The variant `name` whose value is a record of `fields`, all required: { name = { ... } }.
local function variant_record(name, fields)
    local required = {}
    for i, f in ipairs(fields) do required[i] = f[1] end
    local conv = c_record(fields, required)
    return function(at, ctx)
        return lua.add(lua.record(), name, conv(at, ctx))
    end
end

-- {"unknown": null}: Lua tables cannot hold nil, so the spec language spells it "unknown".
local function unknown_variant(at)
    expect(at, "null")
    return "unknown"
end

local c_key_spec = c_record({
    { "flags", c_list(c_string) },
    { "begin_search", c_variant({
        index = variant_record("index", { { "pos", c_integer } }),
        keyword = variant_record("keyword",
            { { "keyword", c_string }, { "startfrom", c_integer } }),
        unknown = unknown_variant,
    }) },
    { "find_keys", c_variant({
        range = variant_record("range",
            { { "lastkey", c_integer }, { "step", c_integer }, { "limit", c_integer } }),
        keynum = variant_record("keynum",
            { { "keynumidx", c_integer }, { "firstkey", c_integer }, { "step", c_integer } }),
        unknown = unknown_variant,
    }) },
    { "notes", c_string },
}, { "flags", "begin_search", "find_keys" })

-- The reply schema goes over as it is, keys in document order; which JSON-schema keywords it
-- may use is the spec language's business (checked when the result is loaded).
local function c_any(at, ctx)
    local t = json.kind(at.value)
    if t == "object" then
        local out = lua.record()
        for _, k in ipairs(json.keys(at.value)) do lua.add(out, k, c_any(child(at, k), ctx)) end
        return out
    elseif t == "array" then
        local out = lua.list()
        for i = 1, #at.value do out[i] = c_any(child(at, i), ctx) end
        return out
    elseif t == "null" then
        fail(at, "null cannot be written in a spec (Lua tables do not hold nil)")
    end
    return at.value
end

local function c_schema(at, ctx)
    expect(at, "object")
    return c_any(at, ctx)
end

local function c_history_entry(at, ctx)
    expect(at, "array")
    if #at.value ~= 2 then
        fail(at, "expected [version, text], found an array of " .. #at.value)
    end
    return lua.tuple({ c_version(child(at, 1), ctx), c_string(child(at, 2), ctx) })
end

---------------------------------------------------------------------------------------------
-- What becomes of each JSON key.

-- Keys of a command's body: to = the spec field, or `dropped` = why it is left out. The order
-- is the order of the fields in the spec. `arguments` and `container` are handled apart.
local COMMAND_FIELDS = {
    { json = "summary", to = "summary", conv = c_string },
    { json = "complexity", to = "complexity", conv = c_string },
    { json = "group", to = "group", conv = c_string },
    { json = "since", to = "since", conv = c_version },
    { json = "deprecated_since", to = "deprecated_since", conv = c_version },
    { json = "replaced_by", to = "replaced_by", conv = c_string },
    { json = "doc_flags", to = "doc_flags", conv = c_list(c_string) },
    { json = "history", to = "history", conv = c_list(c_history_entry) },
    { json = "arity", to = "arity", conv = c_integer },
    { json = "command_flags", to = "flags", conv = c_list(c_string) },
    { json = "acl_categories", to = "acl_categories", conv = c_list(c_string) },
    { json = "command_tips", to = "command_tips", conv = c_list(c_string) },
    { json = "key_specs", to = "key_specs", conv = c_list(c_key_spec) },
    { json = "reply_schema", to = "reply", conv = c_schema },
}

local DROPPED = {
    ["function"] = "the name of the server's C function that runs the command",
    get_keys_function = "the name of the server's C function that finds the keys " ..
        "(key_specs describe them)",
    module = "the name of the module that registers the command",
    module_since = "the module version that added the command (documentation; `since` is " ..
        "a server version)",
    ["arguments' description"] = "an argument's description (documentation)",
}

local COMMAND_KEYS = { arguments = true, container = true }
for _, f in ipairs(COMMAND_FIELDS) do COMMAND_KEYS[f.json] = f end
for k in pairs(DROPPED) do
    if not k:find(" ", 1, true) then COMMAND_KEYS[k] = true end
end

-- The spec field a JSON command key becomes, for pointing at it from the spec's messages.
local JSON_KEY_OF_FIELD = {}
for _, f in ipairs(COMMAND_FIELDS) do JSON_KEY_OF_FIELD[f.to] = f.json end

-- Token "\"\"" (MIGRATE): two quote characters stand for an empty argument.
local function c_token(at, ctx)
    local v = expect(at, "string")
    if v == '""' then
        ctx.fixup(at, 'the token "\\"\\"" (two quotes) read as the empty token ""')
        return ""
    end
    return v
end

-- Argument options, in the order they are written; the names are the same in the spec.
local ARG_OPTIONS = {
    { "token", c_token },
    { "optional", c_bool },
    { "multiple", c_bool },
    { "multiple_token", c_bool },
    { "since", c_version },
    { "deprecated_since", c_version },
    { "display", c_string },
    { "key_spec_index", c_integer },
}

-- Argument keys that only document (module specs have them): accepted and left out.
local ARG_DOC_KEYS = { description = true }

local ARG_KEYS = { name = true, type = true, arguments = true, description = true }
for _, o in ipairs(ARG_OPTIONS) do ARG_KEYS[o[1]] = true end

-- JSON argument type -> DSL function (spec.KINDS maps the other way).
local KIND_FN = {}
for fn, kind in pairs(spec.KINDS) do KIND_FN[kind] = fn end
local NESTING = { oneof = true, block = true }

---------------------------------------------------------------------------------------------
-- Arguments and commands.

local function count(t, k, n)
    t[k] = (t[k] or 0) + (n or 1)
end

-- The overlay (--overlay FILE, docs/import.md): what the JSON does not say, by command name and
-- argument path ("timeout", "by.circle.unit"). Entries that match nothing are errors, so the
-- overlay cannot silently outlive the specs it corrects.
local OVERLAY_COMMAND_KEYS = { args = true, reply_string = true, syntax_error = true,
    late_numbers = true, unknown_error = true, reply = true, cacheable = true }
-- The fields an overlay adds to a command, in the order they are written.
local OVERLAY_COMMAND_FIELDS = { "reply_string", "syntax_error", "late_numbers", "unknown_error",
    "cacheable" }
local OVERLAY_ARG_KEYS = { type = true, why = true, invalid = true, min = true, min_error = true,
    count_error = true }
-- The options an overlay adds to an argument, in the order they are written.
local OVERLAY_ARG_OPTIONS = { "invalid", "min", "min_error", "count_error" }

local function overlay_arg(ctx, path)
    local ov = ctx.overlay and ctx.command and ctx.overlay[ctx.command]
    local a = ov and ov.args and ov.args[path]
    if a then ctx.overlay_used[ctx.command .. "\0" .. path] = true end
    return a
end

-- An argument's kind after the overlay's `type` (a correction of the JSON, listed as a quirk).
local function retype(at, ctx, ov, kind)
    if not ov or not ov.type or ov.type == kind then return kind end
    ctx.fixup(at, ctx.command .. " " .. ov.path .. ": " .. (ov.why or "overlay") .. ", read as " ..
        ov.type .. " (not " .. kind .. ")")
    return ov.type
end

local function convert_arg(at, ctx, depth, parent)
    expect(at, "object")
    check_keys(at, ARG_KEYS, "an argument")
    local obj = at.value
    if obj.name == nil then fail(at, 'argument without "name"') end
    local name = c_string(child(at, "name"))
    if obj.type == nil then fail(at, 'argument ' .. lua.quote(name) .. ' without "type"') end
    local kind = c_string(child(at, "type"))
    local path = parent and (parent .. "." .. name) or name
    local ov = overlay_arg(ctx, path)
    if ov then ov.path = path end
    kind = retype(at, ctx, ov, kind)
    if kind == "oneof" and type(obj.arguments) == "table" and #obj.arguments == 1 then
        ctx.warn(at, "a oneof of one alternative: read as a block of it (the same requests)")
        kind = "block"
    end
    local fn = KIND_FN[kind]
    if not fn then
        fail(child(at, "type"), "unknown argument type " .. lua.quote(kind) .. " (known: " ..
            table.concat(sorted_names(KIND_FN), ", ") .. ")")
    end
    local a = { fn = fn, name = name, opts = lua.record(), args = {}, origin = { at = at } }
    local stats = ctx.stats
    for k in pairs(ARG_DOC_KEYS) do
        if obj[k] ~= nil then count(stats.dropped, "arguments' " .. k) end
    end
    count(stats.kinds, kind)
    stats.max_depth = math.max(stats.max_depth, depth)
    for _, o in ipairs(ARG_OPTIONS) do
        if obj[o[1]] ~= nil then
            local c = child(at, o[1])
            lua.add(a.opts, o[1], o[2](c, ctx))
            count(stats.options, o[1])
        end
    end
    for _, k in ipairs(OVERLAY_ARG_OPTIONS) do
        if ov and ov[k] ~= nil then lua.add(a.opts, k, ov[k]) end
    end
    if kind == "pure-token" and obj.token == nil then
        ctx.fixup(at, "pure-token without a token: its name " .. lua.quote(name) ..
            " is the token")
        table.insert(a.opts, 1, { "token", name })
    end
    if NESTING[kind] then
        if obj.arguments == nil then
            fail(at, kind .. " " .. lua.quote(name) .. ' without "arguments"')
        end
        local list = child(at, "arguments")
        expect(list, "array")
        for i = 1, #list.value do
            a.args[i] = convert_arg(child(list, i), ctx, depth + 1, path)
        end
    elseif obj.arguments ~= nil then
        fail(child(at, "arguments"), 'only oneof and block arguments have "arguments", not ' ..
            kind)
    end
    return a
end

---------------------------------------------------------------------------------------------
-- What the data gets wrong or leaves out (module specs): reported as warnings at the JSON, and
-- handled one documented way each (docs/import.md, "Warnings"), never guessed silently.

-- An argument as spec.arg_words reads it, from its JSON.
local function words_record(obj)
    local r = { kind = obj.type, token = obj.token, args = {},
        optional = obj.optional == true or obj.optional == "true",
        multiple = obj.multiple == true or obj.multiple == "true" }
    if r.kind == "pure-token" and r.token == nil then r.token = obj.name end
    for i, c in ipairs(type(obj.arguments) == "table" and obj.arguments or {}) do
        r.args[i] = words_record(c)
    end
    return r
end

local function field_index(record, key)
    for i, kv in ipairs(record) do
        if kv[1] == key then return i end
    end
end

local function drop_field(record, key)
    local i = field_index(record, key)
    if i then table.remove(record, i) end
end

-- Arity that the arguments contradict is left out: the spec derives it from the arguments.
local function check_arity(entry, c, ctx)
    local body, at = entry.at.value, entry.at
    local words = select(2, entry.name:gsub("%S+", ""))
    local lo, hi = words, words
    for _, obj in ipairs(type(body.arguments) == "table" and body.arguments or {}) do
        local alo, ahi = spec.arg_words(words_record(obj), false)
        lo, hi = lo + alo, hi and ahi and hi + ahi
    end
    local derived = (hi == lo) and lo or -lo
    local range = lo .. (hi == lo and "" or (" to " .. (hi and tostring(hi) or "any number")))
    local arity = body.arity
    if arity == nil then
        -- Containers need none; which commands are containers is known once all are read.
        c.missing_arity = #c.args == 0 and
            "no arity and no arguments: read as the name alone (arity " .. derived .. ")" or
            "no arity: derived from the arguments (" .. derived .. ")"
        return
    end
    if math.type(arity) ~= "integer" then return end
    -- A positive arity that counts one form of arguments that vary (the shortest, as module
    -- specs do) is taken for a slip; one the arguments cannot reach at all stays, and the spec
    -- language rejects it (an error).
    local one_form = arity > 0 and lo ~= hi and arity >= lo and (not hi or arity <= hi)
    if one_form then
        ctx.warn(child(at, "arity"), "arity " .. arity .. " disagrees with the arguments (" ..
            range .. " words): left out, derived from the arguments (" .. derived .. ")")
        drop_field(c.fields, "arity")
    end
end

-- Where the first word of each top-level argument is, while every argument before it is
-- required and of one fixed length: { [i] = word index } (1-based over the whole call), and
-- the words the arguments from i to the end take when that is fixed too.
local function fixed_positions(entry, objs)
    local pos, out = select(2, entry.name:gsub("%S+", "")), {}
    for i, obj in ipairs(objs) do
        out[i] = pos
        local r = words_record(obj)
        local lo, hi = spec.arg_words(r, false)
        if r.optional or r.multiple or lo ~= hi then break end
        pos = pos + lo
    end
    local tails, tail = {}, 0
    for i = #objs, 1, -1 do
        tails[i] = tail
        local r = words_record(objs[i])
        local lo, hi = spec.arg_words(r, false)
        if tail and lo == hi and not r.optional then tail = tail + lo else tail = nil end
    end
    return out, tails
end

-- A key spec for a key argument whose place the argument list fixes, or nil and why not:
-- a single key, a repeated key (the arguments after it fixed), or the key of a repeated block
-- of fixed width (MSET-style pairs). Access flags are unknown (left empty).
local function derive_key_spec(entry, objs, i, j)
    local positions, tails = fixed_positions(entry, objs)
    local top = objs[i]
    local pos, tail = positions[i], tails[i]
    if not pos then return nil, "arguments before it vary in length" end
    local r = words_record(top)
    if r.optional then return nil, "it is optional" end
    local tok = (top.token and top.type ~= "pure-token") and 1 or 0
    -- The key spec, and how it reads in a warning.
    local function spec_of(begin, lastkey, step)
        local range = lua.record()
        lua.add(range, "lastkey", lastkey)
        lua.add(range, "step", step)
        lua.add(range, "limit", 0)
        local ks = lua.record()
        lua.add(ks, "flags", lua.list())
        lua.add(ks, "begin_search", lua.add(lua.record(), "index",
            lua.add(lua.record(), "pos", begin)))
        lua.add(ks, "find_keys", lua.add(lua.record(), "range", range))
        return ks, "begin_search index " .. begin .. ", range lastkey " .. lastkey .. " step " ..
            step
    end
    if not j then
        if not r.multiple then return spec_of(pos + tok, 0, 1) end
        if not tail then return nil, "the arguments after it vary in length" end
        if top.multiple_token then return nil, "its token repeats" end
        return spec_of(pos + tok, -(1 + tail), 1)
    end
    -- the j-th argument of a block
    if top.type ~= "block" or tok ~= 0 then return nil, "it is nested in a " .. top.type end
    local offset, width = 0, 0
    for k, c in ipairs(r.args) do
        local lo, hi = spec.arg_words(c, false)
        if c.optional or c.multiple or lo ~= hi then
            return nil, "its block varies in length"
        end
        if k < j then offset = offset + lo end
        width = width + lo
    end
    if not r.multiple then return spec_of(pos + offset, 0, 1) end
    if not tail then return nil, "the arguments after it vary in length" end
    return spec_of(pos + offset, -(1 + tail + width - 1 - offset), width)
end

-- Key arguments of a command without key_specs get derived key specs where their place is
-- fixed, and lose their key_spec_index where it is not (cluster routing cannot see them);
-- indexes past the key_specs given are left out.
local function check_keys_of(entry, c, ctx)
    local body, at = entry.at.value, entry.at
    local objs = type(body.arguments) == "table" and body.arguments or {}
    local given = type(body.key_specs) == "table" and #body.key_specs or 0
    local derived = lua.list()
    local function visit(list_at, args, i_top, depth)
        for k, obj in ipairs(list_at.value) do
            local a_at, a = child(list_at, k), args[k]
            local i, j = i_top or k, i_top and k or nil
            if obj.type == "key" and given == 0 then
                local ks, how
                if depth <= 2 then ks, how = derive_key_spec(entry, objs, i, j) end
                how = how or "it is nested too deep"
                drop_field(a.opts, "key_spec_index")
                if ks then
                    count(ctx.stats, "derived_key_specs")
                    derived[#derived + 1] = ks
                    lua.add(a.opts, "key_spec_index", #derived - 1)
                    ctx.warn(a_at, "key argument " .. lua.quote(obj.name) .. " and the command " ..
                        "has no key_specs: derived one from its place (" .. how ..
                        "; access flags unknown)")
                else
                    ctx.warn(a_at, "key argument " .. lua.quote(obj.name) .. " and the command " ..
                        "has no key_specs, and none can be derived (" .. how .. "): no key " ..
                        "spec, cluster routing does not see this key")
                end
            elseif obj.key_spec_index ~= nil and obj.type ~= "key" and obj.type ~= "pattern" then
                ctx.warn(child(a_at, "key_spec_index"), "key_spec_index on a " ..
                    tostring(obj.type) .. " argument (only keys and patterns have key specs): " ..
                    "left out")
                drop_field(a.opts, "key_spec_index")
            elseif math.type(obj.key_spec_index) == "integer" and obj.key_spec_index >= given then
                ctx.warn(child(a_at, "key_spec_index"), "key_spec_index " .. obj.key_spec_index ..
                    " but the command has " .. given .. " key_specs: left out")
                drop_field(a.opts, "key_spec_index")
            end
            if type(obj.arguments) == "table" then
                visit(child(a_at, "arguments"), a.args, i, depth + 1)
            end
        end
    end
    if body.arguments ~= nil then visit(child(at, "arguments"), c.args, nil, 1) end
    if #derived > 0 then
        local i = field_index(c.fields, "reply")
        table.insert(c.fields, i or #c.fields + 1, { "key_specs", derived })
    end
end

-- Reply schema corrections (the overlay's `reply = { why = ..., set = { [path] = schema } }`):
-- what a real server sends that the official reply_schema leaves out (XPENDING's summary of a
-- group with nothing pending has nulls). A path names a part of the imported schema by JSON
-- keys and 1-based array indexes joined by "." ("oneOf.2.items.2"; "" is the whole schema); the
-- part must exist. The schema given is written with its keys in SCHEMA_ORDER, then the others
-- sorted, so the output stays deterministic.
local SCHEMA_ORDER = { "description", "type", "const", "minItems", "maxItems", "uniqueItems",
    "items", "properties", "patternProperties", "additionalProperties", "required", "oneOf",
    "anyOf" }

local function schema_record(v)
    if type(v) ~= "table" then return v end
    if #v > 0 or next(v) == nil then
        local out = lua.list()
        for i, x in ipairs(v) do out[i] = schema_record(x) end
        return out
    end
    local rank, keys = {}, {}
    for i, k in ipairs(SCHEMA_ORDER) do rank[k] = i end
    for k in pairs(v) do keys[#keys + 1] = k end
    table.sort(keys, function(a, b)
        local ra, rb = rank[a] or math.huge, rank[b] or math.huge
        if ra ~= rb then return ra < rb end
        return tostring(a) < tostring(b)
    end)
    local out = lua.record()
    for _, k in ipairs(keys) do lua.add(out, k, schema_record(v[k])) end
    return out
end

-- The slot of path inside record or list v: a setter, or nil when the path names nothing.
local function schema_slot(v, path)
    local parent, key
    for part in path:gmatch("[^.]+") do
        if v == nil then return nil end
        parent, key = v, nil
        if lua.is_record(v) then
            for i, kv in ipairs(v) do if kv[1] == part then key = i end end
            v = key and v[key][2] or nil
        elseif type(v) == "table" then
            key = tonumber(part)
            v = key and v[key] or nil
        else
            return nil
        end
    end
    if v == nil then return nil end
    return function(x)
        if lua.is_record(parent) then parent[key][2] = x else parent[key] = x end
    end
end

-- The schema record at path (nil: none).
local function schema_node(v, path)
    for part in path:gmatch("[^.]+") do
        if lua.is_record(v) then
            local found
            for _, kv in ipairs(v) do if kv[1] == part then found = kv[2] end end
            v = found
        elseif type(v) == "table" then
            v = v[tonumber(part) or 0]
        else
            return nil
        end
    end
    return lua.is_record(v) and v or nil
end

-- The overlay's `titles = { [path] = name }`: names for tuple fields and alternatives (BLPOP's
-- key and element), added to the schema as `title`.
local function title_reply(c, titles, field)
    local paths = {}
    for p in pairs(titles or {}) do paths[#paths + 1] = p end
    table.sort(paths)
    for _, p in ipairs(paths) do
        local node = field and schema_node(field[2], p)
        if not node then
            return c.name .. ": overlay reply title path '" .. p .. "' names nothing in the schema"
        end
        lua.add(node, "title", titles[p])
    end
end

local function correct_reply(c, ov, at, ctx)
    local field
    for _, kv in ipairs(c.fields) do if kv[1] == "reply" then field = kv end end
    local paths = {}
    for p in pairs(ov.set or {}) do paths[#paths + 1] = p end
    table.sort(paths)
    for _, p in ipairs(paths) do
        local replacement = schema_record(ov.set[p])
        if p == "" and not field then
            field = { "reply", nil }
            c.fields[#c.fields + 1] = field
        end
        local set = p == "" and function(x) field[2] = x end or
            (field and schema_slot(field[2], p))
        if not set then
            return c.name .. ": overlay reply path '" .. p .. "' names nothing in the schema"
        end
        set(replacement)
        ctx.fixup(at, c.name .. " reply " .. (p == "" and "(all)" or p) .. ": " ..
            (ov.why or "overlay"))
    end
    return title_reply(c, ov.titles, field)
end

-- entry: { name = full command name, at = cursor of its body }.
local function convert_command(entry, ctx)
    local at = entry.at
    expect(at, "object")
    check_keys(at, COMMAND_KEYS, "a command")
    local body = at.value
    local c = { name = entry.name, fields = lua.record(), args = {},
        origin = { at = at, command = true } }
    for _, f in ipairs(COMMAND_FIELDS) do
        if body[f.json] ~= nil then
            local fc = child(at, f.json)
            lua.add(c.fields, f.to, f.conv(fc, ctx))
            count(ctx.stats.kept, f.json)
        end
    end
    for k in pairs(DROPPED) do
        if body[k] ~= nil then count(ctx.stats.dropped, k) end
    end
    local ov = ctx.overlay and ctx.overlay[entry.name]
    if ov then
        ctx.overlay_used[entry.name] = true
        for _, k in ipairs(OVERLAY_COMMAND_FIELDS) do
            if ov[k] ~= nil then lua.add(c.fields, k, ov[k]) end
        end
        local bad = ov.reply and correct_reply(c, ov.reply, at, ctx)
        if bad then fail(at, bad) end
    end
    if body.arguments ~= nil then
        local list = child(at, "arguments")
        expect(list, "array")
        ctx.command = entry.name
        for i = 1, #list.value do c.args[i] = convert_arg(child(list, i), ctx, 1) end
        ctx.command = nil
        count(ctx.stats.kept, "arguments")
        count(ctx.stats, "arguments", #list.value)
    end
    if body.container ~= nil then count(ctx.stats.kept, "container") end
    check_keys_of(entry, c, ctx)
    check_arity(entry, c, ctx)
    if body.key_specs ~= nil then
        count(ctx.stats, "key_specs", #body.key_specs)
        for _, ks in ipairs(body.key_specs) do
            if ks.notes ~= nil then count(ctx.stats, "key_spec_notes") end
        end
    end
    return c
end

---------------------------------------------------------------------------------------------
-- Reading the input.

-- The full name of the command in body `at` listed under `key`: "KILL" with container
-- "CLIENT" is "CLIENT KILL"; a module's commands.json writes "JSON.DEBUG MEMORY" as its key.
local function full_name(key, at)
    local body = at.value
    if type_of(body) ~= "object" or body.container == nil then return key end
    local container = c_string(child(at, "container"))
    if key:find(" ", 1, true) then
        fail(child(at, "container"), "the command " .. lua.quote(key) ..
            " already names its container")
    end
    return container .. " " .. key
end

-- The commands of one decoded file: { name, at } each. A command file (the directory layout)
-- holds one; a module's commands.json holds any number.
local function commands_of(file, doc, single_file)
    local root = root_cursor(file, doc)
    expect(root, "object")
    local keys = json.keys(doc)
    if not single_file and #keys ~= 1 then
        fail(root, "a command file holds one command, this one has " .. #keys .. " keys" ..
            " (for a file of many commands, give the file instead of its directory)")
    end
    local out = {}
    for _, k in ipairs(keys) do
        local at = child(root, k)
        out[#out + 1] = { name = full_name(k, at), at = at }
    end
    return out
end

-- The *.json files of a directory, sorted.
local function list_json(dir)
    local entries, err = host.list_dir(dir)
    if not entries then return nil, tostring(err) .. ": not a readable directory" end
    local names = {}
    for _, name in ipairs(entries) do
        if name:match("^[^.].*%.json$") then names[#names + 1] = name end
    end
    table.sort(names)
    return names
end

-- The first 40-hex commit id in README.md next to the input, if any.
local function source_commit(dir)
    local text = host.read_file(dir .. "/README.md")
    return text and text:match("%f[%x](" .. string.rep("%x", 40) .. ")%f[^%x]")
end

-- fn(...) with problems in the input caught: true and fn's result, or false and the message.
-- Anything else raised is a bug and goes on.
local function attempt(fn, ...)
    local ok, result = pcall(fn, ...)
    if ok then return true, result end
    if getmetatable(result) ~= InputError then error(result, 0) end
    return false, result.text
end

-- Appends the commands of one file to input.commands (seen: the ones so far, by name).
-- Returns nil, or what is wrong with the file.
local function read_commands(file, input, seen)
    local text, err = host.read_file(file, MAX_FILE)
    if not text then return err end
    local doc, derr = json.decode(text, file)
    if doc == nil then return derr end
    local ok, msg = attempt(function()
        for _, entry in ipairs(commands_of(file, doc, input.single)) do
            local first = seen[entry.name]
            if first then
                fail(entry.at, "command " .. lua.quote(entry.name) .. " is also defined at " ..
                    where(first.at))
            end
            seen[entry.name] = entry
            input.commands[#input.commands + 1] = entry
        end
    end)
    return not ok and msg or nil
end

-- Reads, decodes and splits the input. Returns the input record, or nil and error lines.
local function read_input(source)
    local single = source:match("%.json$") ~= nil
    local dir = single and (source:match("^(.*)/[^/]*$") or ".") or source:gsub("(.)/+$", "%1")
    local files
    if single then
        files = { source }
    else
        local names, err = list_json(dir)
        if not names then return nil, { err } end
        if #names == 0 then return nil, { dir .. ": no command specs (*.json) here" } end
        files = {}
        for i, n in ipairs(names) do files[i] = dir .. "/" .. n end
    end
    local input = { single = single, files = files, commit = source_commit(dir), commands = {} }
    local errors, seen = {}, {}
    for _, file in ipairs(files) do
        errors[#errors + 1] = read_commands(file, input, seen)
    end
    if #errors > 0 then return nil, errors end
    if #input.commands == 0 then return nil, { source .. ": no commands in it" } end
    table.sort(input.commands, function(a, b) return a.name < b.name end)
    return input
end

---------------------------------------------------------------------------------------------
-- Conversion of the whole input.

local function new_context()
    local ctx = {
        fixups = {},
        stats = { kinds = {}, options = {}, kept = {}, dropped = {}, max_depth = 0 },
    }
    function ctx.fixup(at, text)
        ctx.fixups[#ctx.fixups + 1] = located(at, text)
    end
    ctx.warnings = {}
    function ctx.warn(at, text)
        local file, line, col = where(at):match("^(.*):(%d+):(%d+)$")
        ctx.warnings[#ctx.warnings + 1] = { file = file or "", line = tonumber(line) or 0,
            col = tonumber(col) or 0, text = located(at, "warning: " .. text) }
    end
    -- The warnings in the order of the input: by file, line and column.
    function ctx.sorted_warnings()
        table.sort(ctx.warnings, function(a, b)
            if a.file ~= b.file then return a.file < b.file end
            if a.line ~= b.line then return a.line < b.line end
            if a.col ~= b.col then return a.col < b.col end
            return a.text < b.text
        end)
        local out = {}
        for i, w in ipairs(ctx.warnings) do out[i] = w.text end
        return out
    end
    return ctx
end

-- The value of a converted command's field, or nil.
local function field_value(c, name)
    for _, f in ipairs(c.fields) do if f[1] == name then return f[2] end end
end

-- A command is a container when others are its subcommands. One that can also be called on
-- its own (it has arguments, or an arity of 1 or -1: the name alone is a whole call; COMMAND)
-- stays an ordinary command, since its subcommands need no declaration. A command without
-- arguments whose arity asks for more words than its name is a container too, of subcommands
-- the input does not describe (DEBUG): there is nothing an encoder could send.
local function mark_containers(commands, stats)
    local subs = {}
    for _, c in ipairs(commands) do
        local container = c.name:match("^(%S+) ")
        if container then
            subs[container] = subs[container] or {}
            table.insert(subs[container], c.name)
        end
    end
    stats.containers, stats.callable_containers, stats.orphans = {}, {}, {}
    stats.undescribed = {}
    local defined = {}
    for _, c in ipairs(commands) do
        defined[c.name] = true
        local arity = field_value(c, "arity")
        local words = c.name:find(" ", 1, true) and 2 or 1
        local needs_more = arity and math.abs(arity) > words and #c.args == 0
        if subs[c.name] and (#c.args > 0 or arity == 1 or arity == -1) then
            stats.callable_containers[#stats.callable_containers + 1] = c.name
            c.comment = { c.name .. " can be called on its own, and is the container of " ..
                "the " .. c.name .. " subcommands below." }
        elseif subs[c.name] or needs_more then
            stats.containers[#stats.containers + 1] = c.name
            lua.add(c.fields, "container", true)
            if not subs[c.name] then
                stats.undescribed[#stats.undescribed + 1] = c.name
                c.comment = { "Arity " .. arity .. " and no arguments: a container of " ..
                    "subcommands the input does not describe." }
            end
        end
    end
    for _, name in ipairs(sorted_names(subs)) do
        if not defined[name] then stats.orphans[#stats.orphans + 1] = name end
    end
end

local function convert_all(input, ctx)
    local commands, errors = {}, {}
    for _, entry in ipairs(input.commands) do
        local ok, result = attempt(convert_command, entry, ctx)
        if ok then
            commands[#commands + 1] = result
        else
            errors[#errors + 1] = result
        end
    end
    if #errors > 0 then return nil, errors end
    mark_containers(commands, ctx.stats)
    for _, c in ipairs(commands) do
        if c.missing_arity and not field_value(c, "container") then
            ctx.warn(c.origin.at, c.missing_arity)
        end
    end
    return commands
end

---------------------------------------------------------------------------------------------
-- The spec text, and checking it with the spec language.

local GENERATED = "<generated spec>"

local function banner(input, ctx)
    local from
    if input.single then
        from = input.files[1]:match("[^/]*$") .. " (" .. #input.commands .. " commands)"
    else
        from = #input.files .. " JSON command files"
    end
    local lines = { "Generated by `respgen import-json` from " .. from .. (input.commit and
        "," or ".") }
    if input.commit then lines[#lines + 1] = "source commit " .. input.commit .. "." end
    lines[#lines + 1] = "Do not edit: import again instead (docs/import.md)."
    local dropped = {}
    for _, k in ipairs(sorted_names(ctx.stats.dropped)) do
        dropped[#dropped + 1] = k .. " (" .. ctx.stats.dropped[k] .. ")"
    end
    if #dropped > 0 then
        lines[#lines + 1] = "Left out by design: " .. table.concat(dropped, ", ") .. "."
    end
    return lines
end

-- A message of spec.load about the generated text, moved to the JSON it came from: the line
-- names a command or an argument, and "field 'x'" in the message narrows it to that key.
local function relocate(msg, origins)
    local line, rest = msg:match("^" .. GENERATED:gsub("%p", "%%%0") .. ":(%d+): (.*)$")
    local o = line and origins[tonumber(line)]
    if not o then return msg end
    local at = o.at
    local field, item = rest:match("field '([%w_]+)' item (%d+)")
    field = field or rest:match("field '([%w_]+)'")
    if field then
        local key = o.command and (JSON_KEY_OF_FIELD[field] or field) or field
        if type(at.value) == "table" and at.value[key] ~= nil then at = child(at, key) end
        item = tonumber(item)
        if item and json.kind(at.value) == "array" and at.value[item] ~= nil then
            at = child(at, item)
        end
    end
    rest = rest:gsub("^command '[^']*', argument '[^']*': ", ""):gsub("^command '[^']*': ", "")
    return located(at, "the spec language rejects this: " .. rest)
end

-- The module prefix every command shares ("JSON" of JSON.SET, JSON.GET), or nil.
local function common_module_prefix(commands)
    local common
    for _, c in ipairs(commands) do
        local p = c.name:match("^([%a][%w_]*)%.[^%s]")
        if not p or (common and p ~= common) then return nil end
        common = p
    end
    return common
end

local function render(input, commands, ctx)
    local preamble = {}
    ctx.module_prefix = common_module_prefix(commands)
    if ctx.module_prefix then
        preamble[1] = "-- Every command starts with \"" .. ctx.module_prefix .. ".\": C names " ..
            "leave it out (docs/spec-language.md)."
        preamble[2] = "module_prefix " .. lua.quote(ctx.module_prefix)
    end
    local text, origins = lua.spec(banner(input, ctx), commands, preamble)
    local _, errs = spec.load(text, GENERATED)
    if errs then
        local out = {}
        for i, e in ipairs(errs) do out[i] = relocate(e, origins) end
        return nil, out
    end
    return text
end

---------------------------------------------------------------------------------------------
-- The summary.

local function counts(t, keys)
    local parts = {}
    for _, k in ipairs(keys or sorted_names(t)) do
        if t[k] then parts[#parts + 1] = k .. " " .. t[k] end
    end
    return #parts > 0 and table.concat(parts, ", ") or "none"
end

local function summary(source, output, input, commands, ctx, text)
    local s = ctx.stats
    local top, subs = 0, 0
    for _, c in ipairs(commands) do
        if c.name:find(" ", 1, true) then subs = subs + 1 else top = top + 1 end
    end
    local encoders = #commands - #s.containers
    local options = {}
    for i, o in ipairs(ARG_OPTIONS) do options[i] = o[1] end
    local total_args = 0
    for _, n in pairs(s.kinds) do total_args = total_args + n end
    local kept = {}
    for _, f in ipairs(COMMAND_FIELDS) do
        if s.kept[f.json] then
            kept[#kept + 1] = f.json .. (f.to ~= f.json and " -> " .. f.to or "") .. " " ..
                s.kept[f.json]
        end
    end
    if s.kept.arguments then kept[#kept + 1] = "arguments -> arguments " .. s.kept.arguments end
    if s.kept.container then
        kept[#kept + 1] = "container -> the command's first word " .. s.kept.container
    end
    local lines = {
        "respgen import-json: " .. source .. ": " .. #input.files .. " file(s)" ..
            (input.commit and (", source commit " .. input.commit) or ""),
        "commands: " .. #commands .. " (" .. top .. " top-level, " .. subs .. " subcommands), " ..
            encoders .. " with encoders",
        "  containers: " .. #s.containers .. (#s.containers > 0 and
            (" (" .. table.concat(s.containers, ", ") .. ")") or ""),
        "  containers that are also commands: " .. (#s.callable_containers > 0 and
            table.concat(s.callable_containers, ", ") or "none"),
        "  containers of subcommands without specs (arity beyond the name, no arguments): " ..
            (#s.undescribed > 0 and table.concat(s.undescribed, ", ") or "none"),
        "  subcommands whose container has no spec: " .. (#s.orphans > 0 and
            table.concat(s.orphans, ", ") or "none"),
        "arguments: " .. total_args .. " (" .. (s.arguments or 0) .. " at the top level), " ..
            "nested up to " .. s.max_depth .. " levels",
        "  by kind: " .. counts(s.kinds),
        "  options: " .. counts(s.options, options),
        "key_specs: " .. (s.key_specs or 0) .. " (with notes: " .. (s.key_spec_notes or 0) ..
            "), derived from key arguments' places: " .. (s.derived_key_specs or 0),
        "module prefix: " .. (ctx.module_prefix or "none"),
        "fields kept (JSON -> spec): " .. table.concat(kept, ", "),
        "fields left out by design:" .. (next(s.dropped) and "" or " none"),
    }
    for _, k in ipairs(sorted_names(s.dropped)) do
        lines[#lines + 1] = "  " .. k .. " " .. s.dropped[k] .. ": " .. DROPPED[k]
    end
    lines[#lines + 1] = "warnings (on standard error): " .. #ctx.warnings
    lines[#lines + 1] = "input quirks mapped: " .. #ctx.fixups
    for _, f in ipairs(ctx.fixups) do lines[#lines + 1] = "  " .. f end
    lines[#lines + 1] = "not mapped: nothing (anything unknown fails the import)"
    local n_lines = select(2, text:gsub("\n", ""))
    lines[#lines + 1] = "wrote " .. output .. " (" .. n_lines .. " lines)"
    io.stdout:write(table.concat(lines, "\n"), "\n")
end

---------------------------------------------------------------------------------------------
-- Command line.

local HELP = [[
Usage: respgen import-json SOURCE -o FILE [--overlay OVERLAY]
  Convert the official JSON command specs into a spec FILE (see docs/import.md).
  SOURCE is a directory of command files, one command each (Redis' or Valkey's
  src/commands/), or a file ending in .json that holds many commands in one object keyed
  by command name (a module's commands.json).
    -o FILE, --output FILE   the spec to write (replaced only when the import succeeds)
    --overlay OVERLAY        a Lua file of what the JSON does not say: corrected argument
                             types, servers' error texts (specs/overlays/redis.lua)
    -h, --help               show this help
]]

local function parse_args(args)
    local opts = {}
    local i = 1
    while i <= #args do
        local a = args[i]
        local inline = a:match("^%-%-output=(.*)$")
        if a == "-h" or a == "--help" then
            opts.help = true
        elseif a == "-o" or a == "--output" then
            i = i + 1
            if args[i] == nil then return nil, "option '" .. a .. "' needs a value (FILE)" end
            opts.output = args[i]
        elseif inline then
            opts.output = inline
        elseif a == "--overlay" then
            i = i + 1
            if args[i] == nil then return nil, "option '" .. a .. "' needs a value (FILE)" end
            opts.overlay = args[i]
        elseif a:sub(1, 1) == "-" then
            return nil, "unknown option '" .. a .. "'"
        elseif opts.source then
            return nil, "more than one SOURCE ('" .. opts.source .. "', '" .. a .. "')"
        else
            opts.source = a
        end
        i = i + 1
    end
    if opts.help then return opts end
    if not opts.source then return nil, "no SOURCE given" end
    if not opts.output or opts.output == "" then return nil, "no output FILE given (-o FILE)" end
    return opts
end

-- "path:line: " of an overlay entry: the line where the command's quoted name, and then the
-- argument's name, first appear (tables keep no lines; the names are written once each).
local function overlay_where(ov, name, arg)
    local at = ov.text:find('"' .. name .. '"', 1, true) or 1
    if arg then
        local plain = arg:match("^[%a_][%w_]*$") and (arg .. " ") or ('"' .. arg .. '"')
        at = ov.text:find(plain, at, true) or at
    end
    local _, newlines = ov.text:sub(1, at):gsub("\n", "")
    return ov.path .. ":" .. (newlines + 1) .. ": "
end

-- Loads the overlay: a Lua file returning { ["COMMAND"] = { syntax_error = ..., args = {
-- [path] = { type =, why =, invalid =, min =, min_error = } } } }, evaluated with no library.
local function load_overlay(path)
    local text, rerr = host.read_file(path)
    if not text then return nil, { path .. ":1: cannot read overlay: " .. tostring(rerr) } end
    local chunk, perr = load(text, "=" .. path, "t", {})
    if not chunk then return nil, { perr } end
    local ok, t = spec.run_limited(chunk, path)
    if not ok then return nil, { t } end
    if type(t) ~= "table" then return nil, { path .. ":1: an overlay returns a table" } end
    local ov = { commands = t, text = text, path = path }
    local errs = {}
    for name, c in pairs(t) do
        for k in pairs(type(c) == "table" and c or {}) do
            if not OVERLAY_COMMAND_KEYS[k] then
                errs[#errs + 1] = overlay_where(ov, name) .. name .. ": unknown key '" ..
                    tostring(k) .. "'"
            end
        end
        for k in pairs(type(c) == "table" and type(c.reply) == "table" and c.reply or {}) do
            if k ~= "why" and k ~= "set" and k ~= "titles" then
                errs[#errs + 1] = overlay_where(ov, name) .. name .. ": unknown key 'reply." ..
                    tostring(k) .. "' (why, set, titles)"
            end
        end
        for p, a in pairs(type(c) == "table" and c.args or {}) do
            for k in pairs(type(a) == "table" and a or {}) do
                if not OVERLAY_ARG_KEYS[k] then
                    errs[#errs + 1] = overlay_where(ov, name, p) .. name .. " " .. p ..
                        ": unknown key '" .. tostring(k) .. "'"
                end
            end
        end
    end
    if #errs > 0 then table.sort(errs) return nil, errs end
    return ov
end

-- Overlay entries that named no command or argument of the input.
local function unused_overlay(ctx, ov)
    local errs = {}
    for name, c in pairs(ov and ov.commands or {}) do
        if not ctx.overlay_used[name] then
            errs[#errs + 1] = overlay_where(ov, name) .. name .. ": no such command in the input"
        end
        for p in pairs(c.args or {}) do
            if ctx.overlay_used[name] and not ctx.overlay_used[name .. "\0" .. p] then
                errs[#errs + 1] = overlay_where(ov, name, p) .. name .. ": no argument '" .. p ..
                    "'"
            end
        end
    end
    table.sort(errs)
    return errs
end

local function report(errors)
    for _, e in ipairs(errors) do io.stderr:write(e, "\n") end
    io.stderr:write("respgen: import-json: ", #errors, " error(s); nothing written\n")
    return FAILURE
end

function M.main(args)
    local opts, err = parse_args(args)
    if not opts then
        io.stderr:write("respgen: import-json: ", err, "\nTry 'respgen import-json --help'.\n")
        return USAGE
    end
    if opts.help then
        io.stdout:write(HELP)
        return SUCCESS
    end
    local input, errors = read_input(opts.source)
    if not input then return report(errors) end
    local ctx = new_context()
    local overlay
    if opts.overlay then
        overlay, errors = load_overlay(opts.overlay)
        if not overlay then return report(errors) end
        ctx.overlay, ctx.overlay_used = overlay.commands, {}
    end
    local commands
    commands, errors = convert_all(input, ctx)
    if not commands then return report(errors) end
    errors = unused_overlay(ctx, overlay)
    if #errors > 0 then return report(errors) end
    local text
    text, errors = render(input, commands, ctx)
    if not text then return report(errors) end
    host.set_time_limit(0) -- the write is not cut short
    local ok, werr = host.write_file_atomic(opts.output, text)
    if not ok then return report({ werr }) end
    -- Only with a result: next to errors they would hide what stopped the import.
    for _, w in ipairs(ctx.sorted_warnings()) do io.stderr:write(w, "\n") end
    summary(opts.source, opts.output, input, commands, ctx, text)
    return SUCCESS
end


return M
