-- Tests of gen/lua/model.lua's promises (run by lua_test: see CMakeLists.txt here): the model
-- is read-only once built (a new field and a reassigned one both raise, in every table of it),
-- reads see through the read-only form, a node reached twice is one node, and building leaves
-- the spec as spec.lua made it.
local here = arg[0]:match("^(.*)/[^/]*$") or "."
package.path = package.path .. ";" .. here .. "/../import/?.lua"

local harness = require("harness")
local host = require("host")
local model = require("model")
local spec = require("spec")
local test = harness.test

-- lua_test embeds no files: the templates (model.lua reads the helpers' names) come from the tree.
host.template = function(name) return host.read_file(here .. "/../../templates/" .. name) end

local function load_spec(path)
    local text = assert(host.read_file(path))
    local s, errs = spec.load(text, path)
    if not s then error(table.concat(errs, "\n")) end
    return s
end

local function build(s)
    local m, errs = model.build(s, { prefix = "t", file = "t.lua", stem = "t", version = "0",
        abi = 1 })
    if not m then error(table.concat(errs, "\n")) end
    return m
end

local function command(m, name)
    for _, cm in ipairs(m.commands) do
        if cm.name == name then return cm end
    end
    error("no command " .. name)
end

local function raises(fn, want)
    local ok, err = pcall(fn)
    if ok then error("no error raised", 2) end
    if want and not tostring(err):find(want, 1, true) then
        error("error '" .. tostring(err) .. "' does not say '" .. want .. "'", 2)
    end
end

local function eq(got, want)
    if got ~= want then error("got " .. tostring(got) .. ", want " .. tostring(want), 2) end
end

-- Every table reachable from t, each once.
local function tables_of(t, out, seen)
    out, seen = out or {}, seen or {}
    if type(t) ~= "table" or seen[t] then return out end
    seen[t] = true
    out[#out + 1] = t
    for k, v in pairs(t) do
        tables_of(k, out, seen)
        tables_of(v, out, seen)
    end
    return out
end

-- A text of t that two equal trees share: sorted keys, tables by content, metatables named.
local function dump(t, seen)
    if type(t) ~= "table" then return type(t) .. ":" .. tostring(t) end
    seen = seen or {}
    if seen[t] then return "<cycle>" end
    seen[t] = true
    local keys = {}
    for k in pairs(t) do keys[#keys + 1] = k end
    table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
    local parts = { getmetatable(t) ~= nil and "meta " or "" }
    for _, k in ipairs(keys) do parts[#parts + 1] = tostring(k) .. "=" .. dump(t[k], seen) end
    seen[t] = nil
    return "{" .. table.concat(parts, ",") .. "}"
end

local kinds_path = here .. "/specs/kinds.lua"
local redis_path = here .. "/../../specs/redis.lua"

test("writing into the model raises: new fields and reassigned ones", function()
    local m = build(load_spec(kinds_path))
    local cm = command(m, "KINDS")
    raises(function() m.prefix = "x" end, "read-only")
    raises(function() m.extra = 1 end, "read-only")
    raises(function() cm.id = "other" end, "read-only")
    raises(function() cm.args[1].id = "other" end, "read-only")
    raises(function() cm.args[1].optional = true end, "read-only")
    raises(function() cm.ops[1].bytes = "" end, "read-only")
    raises(function() cm.keys.specs[1].flags = {} end, "read-only")
    raises(function() m.commands[#m.commands + 1] = cm end, "read-only")
    raises(function() table.insert(m.commands, cm) end, "read-only")
    raises(function() table.sort(m.commands, function(a, b) return a.name > b.name end) end,
        "read-only")
    raises(function() setmetatable(cm, nil) end)
end)

test("every table of the Redis model is read-only", function()
    local m = build(load_spec(redis_path))
    local n = 0
    for _, t in ipairs(tables_of(m)) do
        if not model.frozen(t) then error("a table of the model is not frozen: " .. tostring(t)) end
        local iter, state = pairs(t)
        local k = iter(state, nil) or "new" -- the first field pairs gives, else a new one
        local ok = pcall(function() t[k] = false end)
        if ok then error("a table of the model took a write to " .. tostring(k)) end
        n = n + 1
    end
    if n < 10000 then error("only " .. n .. " tables reached") end
end)

test("reads see through: fields, #, ipairs, pairs, one node per argument", function()
    local m = build(load_spec(kinds_path))
    local cm = command(m, "KINDS")
    eq(cm.args[1].name, "key")
    eq(cm.args[1].scalar, "view")
    eq(#cm.args, 7)
    local n = 0
    for i, a in ipairs(cm.args) do
        n = n + 1
        eq(a, cm.args[i])
    end
    eq(n, 7)
    local fields = 0
    for k, v in pairs(cm.args[1]) do
        fields = fields + 1
        eq(cm.args[1][k], v)
    end
    if fields < 5 then error("pairs gave " .. fields .. " fields") end
    -- The op that sends `key` names the argument node itself.
    local found
    for _, o in ipairs(cm.ops) do
        if o.op == "view" and o.arg.name == "key" then found = o end
    end
    eq(found.arg, cm.args[1])
    eq(found.via, "param")
end)

test("building leaves the spec untouched", function()
    for _, path in ipairs({ kinds_path, redis_path }) do
        local s = load_spec(path)
        local before = dump(s)
        build(s)
        -- dump marks metatables too: the spec's tables get none.
        if dump(s) ~= before then error(path .. ": the spec changed while the model was built") end
    end
end)

test("the client's command kinds are the runtime's", function()
    -- emit_client's KINDS (the generated descriptors) and rg_cmd.c's SPECIALS (requests that come
    -- as bytes) name the same commands with the same kinds and confirmations.
    local kinds = require("emit_client").KINDS
    local text = assert(host.read_file(here .. "/../../runtime/rg_cmd.c"))
    local seen = 0
    for name, kind, pubsub in text:gmatch('SPECIAL%("([^"]+)", (RG_CMD_[%u_]+), ([%w_]+),') do
        local k = kinds[name]
        if not k then error("rg_cmd.c names " .. name .. ", emit_client does not") end
        eq(k[1], kind)
        eq(k[2] or "0", pubsub)
        seen = seen + 1
    end
    local n = 0
    for _ in pairs(kinds) do n = n + 1 end
    eq(seen, n)
end)

harness.run()
