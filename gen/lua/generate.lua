-- respgen's default mode: specs in, C encoders out.
--
--   respgen [-o OUTDIR] [--prefix P] [--header-only] [--check] SPEC...
--
-- Every spec is loaded and validated, and every output rendered in memory, before the first
-- file is written: a bad spec anywhere means nothing is written. --check writes nothing and
-- reports the outputs that differ from what is on disk.

local host = require("host")
local naming = require("naming")
local spec = require("spec")
local model = require("model")
local emit_c = require("emit_c")
local emit_reply = require("emit_reply")
local emit_server = require("emit_server")
local emit_keys = require("emit_keys")
local emit_calls = require("emit_calls")
local emit_client = require("emit_client")

local M = {}

-- Bumped with runtime/rg.h's RG_ABI_VERSION; the host may tell the value it was built with.
local ABI_VERSION = 1

local function eprint(msg)
    io.stderr:write(msg, "\n")
end

-- The parts of a codec. Each emitter turns a command model into files ({ suffix, text }) and
-- may add command-line options (shaped like cli.lua's GEN_OPTIONS) that switch it on or tune it.
-- emit_calls is test tooling (--sample-calls): see its header. emit_client (--client) comes after
-- emit_reply, whose reply types it names.
local EMITTERS = { emit_c, emit_reply, emit_server, emit_keys, emit_calls, emit_client }

M.options = {}
for _, e in ipairs(EMITTERS) do
    for name, opt in pairs(e.options or {}) do M.options[name] = opt end
end

local function check_options(o)
    if #o.specs == 0 then return "no spec given" end
    if o.prefix and not naming.valid_prefix(o.prefix) then
        return "--prefix must be a C identifier not ending in '_'"
    end
end

local function file_name(path)
    return path:match("([^/]*)$")
end

local function stem_of(path)
    return (file_name(path):gsub("%.[^.]*$", ""))
end

-- Loads, validates and renders one spec: a list of { path, text } or nil, error lines.
local function render(path, o)
    local text, err = host.read_file(path)
    if not text then return nil, { path .. ":1: cannot read spec: " .. tostring(err) } end
    local s, errs = spec.load(text, path)
    if not s then return nil, errs end
    local stem = stem_of(path)
    local prefix = o.prefix or naming.ident(stem)
    if not prefix or not naming.valid_prefix(prefix) then
        return nil, { path .. ":1: the file name gives no usable prefix; pass --prefix" }
    end
    local m, merrs = model.build(s, {
        prefix = prefix, file = file_name(path), stem = stem,
        version = host.version, abi = host.abi_version or ABI_VERSION,
    })
    if not m then return nil, merrs end
    local outputs = {}
    for _, e in ipairs(EMITTERS) do
        for _, f in ipairs(e.emit(m, o)) do
            outputs[#outputs + 1] = { path = o.outdir .. "/" .. stem .. f.suffix, text = f.text }
        end
    end
    return outputs
end

local function render_all(o)
    local outputs, errors, seen = {}, {}, {}
    for _, path in ipairs(o.specs) do
        local outs, errs = render(path, o)
        for _, e in ipairs(errs or {}) do errors[#errors + 1] = e end
        for _, f in ipairs(outs or {}) do
            if seen[f.path] then
                errors[#errors + 1] = path .. ":1: output " .. f.path .. " is also produced by " ..
                    seen[f.path]
            end
            seen[f.path] = path
            outputs[#outputs + 1] = f
        end
    end
    table.sort(outputs, function(a, b) return a.path < b.path end)
    return outputs, errors
end

local function check(outputs)
    local stale = 0
    for _, f in ipairs(outputs) do
        local current = host.read_file(f.path)
        if current == nil then
            eprint("respgen: missing: " .. f.path)
            stale = stale + 1
        elseif current ~= f.text then
            eprint("respgen: stale: " .. f.path)
            stale = stale + 1
        end
    end
    return stale == 0 and 0 or 1
end

local function write(outputs, outdir)
    local made, why = host.mkdir_p(outdir)
    if not made then
        eprint("respgen: cannot create " .. tostring(why))
        return 1
    end
    for _, f in ipairs(outputs) do
        local ok, err = host.write_file_atomic(f.path, f.text)
        if not ok then
            eprint("respgen: cannot write " .. tostring(err))
            return 1
        end
    end
    return 0
end

-- opts: the command line as cli.lua parsed it ({ outdir, prefix, header_only, check, specs, and
-- the fields of M.options }). Returns the exit status.
function M.main(_, opts)
    local o = setmetatable({ outdir = opts.outdir or "." }, { __index = opts })
    o.specs = opts.specs or {}
    local err = check_options(o)
    if err then
        eprint("respgen: " .. err)
        return 2
    end
    local outputs, errors = render_all(o)
    if #errors > 0 then
        for _, e in ipairs(errors) do eprint(e) end
        return 1
    end
    if o.check then return check(outputs) end
    return write(outputs, o.outdir)
end

return M
