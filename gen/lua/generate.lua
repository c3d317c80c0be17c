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
local emit_client = require("emit_client")
local sample_calls = require("tools.sample_calls")

local M = {}

local function eprint(msg)
    io.stderr:write(msg, "\n")
end

-- The parts of a codec. Each emitter turns a command model into files ({ suffix, text }) and
-- may add command-line options (shaped like cli.lua's GEN_OPTIONS) that switch it on or tune it.
-- emit_client (--client) comes after emit_reply, whose reply types it names.
local EMITTERS = { emit_c, emit_reply, emit_server, emit_keys, emit_client }
-- Test tooling (gen/lua/tools/), not part of a codec: the same interface, files only when its
-- option asks (--sample-calls, for the tests that send every command to a server).
local TOOLS = { sample_calls }

M.options = {
    ["--commands"] = { field = "commands", value = "LIST" },
    ["--commands-file"] = { field = "commands_file", value = "FILE" },
}
for _, list in ipairs({ EMITTERS, TOOLS }) do
    for _, e in ipairs(list) do
        for name, opt in pairs(e.options or {}) do M.options[name] = opt end
    end
end

local function check_options(o)
    if #o.specs == 0 then return "no spec given" end
    local problem = o.prefix and naming.prefix_problem(o.prefix)
    if problem then return "--prefix '" .. o.prefix .. "' " .. problem end
end

local function file_name(path)
    return path:match("([^/]*)$")
end

local function stem_of(path)
    return (file_name(path):gsub("%.[^.]*$", ""))
end

-- How many unknown command names an error names.
local UNKNOWN_SHOWN = 10

-- The largest --commands-file read: a list of every Redis command, commented, is some 30 KB.
local COMMANDS_FILE_MAX = 1 << 20

-- The command names of --commands (comma-separated) and --commands-file (one per line, '#'
-- starts a comment), in that order, each once (the first spelling of names that are the same
-- command); nil when neither is given, or nil and an error.
local function chosen_names(o)
    if not o.commands and not o.commands_file then return nil end
    local names, seen = {}, {}
    local function add(name)
        name = name:match("^%s*(.-)%s*$")
        local n = spec.normal_name(name)
        if name ~= "" and not seen[n] then names[#names + 1], seen[n] = name, true end
    end
    for item in (o.commands or ""):gmatch("[^,]+") do add(item) end
    if o.commands_file then
        local text, err = host.read_file(o.commands_file, COMMANDS_FILE_MAX)
        if text and #text > COMMANDS_FILE_MAX then -- not a regular file: read, then refused
            text, err = nil, o.commands_file .. ": over the limit of " .. COMMANDS_FILE_MAX ..
                " bytes"
        end
        if not text then return nil, "--commands-file: cannot read " .. tostring(err) end
        for line in text:gmatch("[^\n]+") do add(line:gsub("#.*", "")) end
    end
    if #names == 0 then return nil, "--commands/--commands-file name no command" end
    return names
end

-- Loads and validates one spec, keeping only the commands o.names chooses (all without it):
-- the spec, or nil and error lines. o.found collects the names some spec knows.
local function load_spec(path, o)
    local text, err = host.read_file(path)
    if not text then return nil, { path .. ":1: cannot read spec: " .. tostring(err) } end
    local s, errs = spec.load(text, path, { read = host.read_file })
    if not s or not o.names then return s, errs end
    -- One pass over all the names: a long list costs its length, not its length times the
    -- spec's commands.
    local chosen, unknown = spec.select(s.commands, o.names)
    local missing = {}
    for _, name in ipairs(unknown) do missing[name] = true end
    for _, name in ipairs(o.names) do
        if not missing[name] then o.found[name] = true end
    end
    if #chosen == 0 then
        return nil, { path .. ":1: none of the chosen commands is in this spec" }
    end
    s.commands = chosen
    return s
end

-- Loads, validates and renders one spec: a list of { path, text } or nil, error lines.
local function render(path, o)
    local s, errs = load_spec(path, o)
    if not s then return nil, errs end
    local stem = stem_of(path)
    -- The stem names the outputs and stands in #include "<stem>.h", the file name in the banner
    -- comments: a quote or control byte would end that header name or comment, and C11 6.4.7
    -- leaves ', \, // and /* in a header name undefined.
    if not file_name(path):match("^[%w_.+-]+$") then
        return nil, { path .. ":1: the file name cannot appear in a C #include (use letters, " ..
            "digits and _ . + -)" }
    end
    local prefix = o.prefix or naming.ident(s.module_prefix or stem)
    local problem = prefix and naming.prefix_problem(prefix)
    if not prefix or problem then
        local from = s.module_prefix and "module_prefix" or "file name"
        return nil, { path .. ":1: the " .. from .. " gives no usable prefix" ..
            (problem and (" ('" .. prefix .. "' " .. problem .. ")") or "") .. "; pass --prefix" }
    end
    local m, merrs = model.build(s, {
        prefix = prefix, file = file_name(path), stem = stem,
        version = host.version, abi = host.abi_version, -- both from runtime/rg.h
    })
    if not m then return nil, merrs end
    local outputs = {}
    for _, list in ipairs({ EMITTERS, TOOLS }) do
        for _, e in ipairs(list) do
            for _, f in ipairs(e.emit(m, o)) do
                outputs[#outputs + 1] = { path = o.outdir .. "/" .. stem .. f.suffix,
                    text = f.text }
            end
        end
    end
    return outputs
end

local function render_all(o)
    local outputs, errors, seen = {}, {}, {}
    for _, path in ipairs(o.specs) do
        local ok, outs, errs = pcall(render, path, o)
        if not ok then
            -- A limit hit while generating has no position of its own: name the spec.
            local _, limit, hit = host.memory()
            local timeout = tostring(outs):match("time limit of .*$")
            if not (hit or timeout) then error(outs, 0) end
            outs, errs = nil, { path .. ":1: " .. (timeout or ("memory limit of " ..
                (limit >> 20) .. " MiB reached while generating (--max-memory)")) }
        end
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
    local unknown = {}
    for _, name in ipairs(o.names or {}) do
        if not o.found[name] then unknown[#unknown + 1] = name end
    end
    if #unknown > 0 then
        -- The first few by name; a list of thousands would bury the message.
        local shown, more = unknown, ""
        if #unknown > UNKNOWN_SHOWN then
            shown = table.move(unknown, 1, UNKNOWN_SHOWN, 1, {})
            more = " and " .. (#unknown - UNKNOWN_SHOWN) .. " more"
        end
        errors[#errors + 1] = "respgen: unknown command" .. (#unknown > 1 and "s " or " ") ..
            spec.quoted_list(shown) .. more .. " (in none of the specs given)"
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
    host.set_time_limit(0) -- all or nothing: the time limit must not fall between two files
    local made, why = host.mkdir_p(outdir)
    if not made then
        eprint("respgen: cannot create " .. tostring(why))
        return 1
    end
    -- All files or none: a spec set is written as a whole (host.write_files).
    local files = {}
    for i, f in ipairs(outputs) do files[i] = { f.path, f.text } end
    local ok, err = host.write_files(files)
    if not ok then
        eprint("respgen: cannot write " .. tostring(err))
        return 1
    end
    return 0
end

-- opts: the command line as cli.lua parsed it ({ outdir, prefix, header_only, check, specs, and
-- the fields of M.options }). Returns the exit status.
function M.main(_, opts)
    local o = setmetatable({ outdir = opts.outdir or "." }, { __index = opts })
    o.specs = opts.specs or {}
    local err = check_options(o)
    if not err then
        o.names, err = chosen_names(o)
        o.found = {}
    end
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
