-- respgen's command line: picks the mode from argv and hands over to the module that runs it.
--
-- main.c calls the returned function with argv laid out like Lua's `arg` (argv[0] the program,
-- argv[1..n] the arguments) and exits with what it returns: an integer, or true/nil for 0 and
-- false for 1. Contracts with the modes living in other modules:
--   generate.main(argv, opts) -> status   the default mode; opts is the parsed command line
--                                         ({outdir=, prefix=, header_only=, check=, specs={...}});
--                                         generate.options may add entries shaped like
--                                         GEN_OPTIONS below.
--   import_json.main(args, argv) -> status   `respgen import-json ARGS...`
-- Errors raised in any of them reach main.c, which prints "respgen: <message>" and exits 1.
local host = require("host")

local SUCCESS, FAILURE, USAGE = 0, 1, 2

-- Options of the default mode: the opts field each sets, and the value's name if it takes one.
local GEN_OPTIONS = {
    ["-o"] = { field = "outdir", value = "OUTDIR" },
    ["--prefix"] = { field = "prefix", value = "P" },
    ["--header-only"] = { field = "header_only" },
    ["--check"] = { field = "check" },
}

-- A module that may be absent from this build. One that is present but fails to load is a bug
-- and must not pass for "not available", so its error goes on.
local function optional(name)
    local ok, mod = pcall(require, name)
    if ok then
        return mod
    end
    if host.has_module(name) then
        error(mod, 0)
    end
    return nil
end

local function help_text()
    local lines = {
        "Usage:",
        "  respgen [-o OUTDIR] [--prefix P] [--header-only] [--check] [--server] [--client]",
        "          [--commands LIST] [--commands-file F] [--iov] [--fast-options]",
        "          [--reply-coverage] [--cacheable-list] SPEC...",
        "      Generate C from the command specs SPEC...: for each, <stem>.h/.c (encoders),",
        "      <stem>_reply.h/.c (typed reply decoders), <stem>_keys.h/.c (cluster routing)",
        "        -o OUTDIR          write the generated files into OUTDIR (made if missing)",
        "        --prefix P         start every generated C name with P",
        "        --header-only      generate headers only, the implementation inside",
        "        --check            write nothing; fail when the files on disk are not current",
        "        --commands LIST    only these commands (comma-separated: SET,GET,\"CLIENT INFO\";",
        "                           a container's name takes all its subcommands)",
        "        --commands-file F  only the commands named in F (one a line, # comments)",
        "        --iov              also the iovec functions (_iov_count, _scratch_size,",
        "                           _encode_iov); --no-iov (the default) leaves them out",
        "        --fast-options     requests with options as compiled general paths, not",
        "                           option words and op tables (docs/spec-language.md)",
        "        --server           also <stem>_server.h/.c: command lookup, arity checks,",
        "                           typed argument parsing and reply encoders (docs/server.md)",
        "        --client           also <stem>_client.h/.c: per command a call that queues it on",
        "                           a connection engine with its typed reply (docs/client.md)",
        "        --reply-coverage   also <stem>_reply_coverage.md: which commands get a",
        "                           precisely typed reply decoder (docs/typed-replies.md)",
        "        --cacheable-list   also <stem>_cacheable.md: the commands a client-side cache",
        "                           may answer (C_cached, runtime/rg_cache.h; docs/cacheable.md)",
        "  respgen dump [--json | --count] [--chunk N] [--max-depth N] [--max-bulk N] [FILE]",
        "      Decode a RESP2/RESP3 stream from FILE or standard input and print its values",
        "      (see docs/dump.md; `respgen dump --help` for details).",
    }
    if host.has_module("import_json") then
        lines[#lines + 1] = "  respgen import-json SOURCE -o FILE"
        lines[#lines + 1] = "      Convert official command specs (a directory of Redis/Valkey"
        lines[#lines + 1] = "      src/commands/*.json, or one module commands.json)"
            .. " into a spec FILE."
    end
    lines[#lines + 1] = "  Limits, in every mode (docs/security.md):"
    lines[#lines + 1] = "        --max-memory MIB   the memory respgen may use (default 512)"
    lines[#lines + 1] = "        --max-seconds S    the time it may run, except dump (default 60)"
    lines[#lines + 1] = "  respgen --help | -h"
    lines[#lines + 1] = "      Show this help."
    lines[#lines + 1] = "  respgen --version"
    lines[#lines + 1] = "      Show the version."
    return table.concat(lines, "\n") .. "\n"
end

local function usage_error(msg)
    io.stderr:write("respgen: ", msg, "\nTry 'respgen --help'.\n")
    return USAGE
end

local function unavailable(what)
    io.stderr:write("respgen: ", what, " is not available in this build\n")
    return FAILURE
end

-- argv[first..n] as a new list.
local function tail(argv, first)
    return table.move(argv, first, #argv, 1, {})
end

-- Parses the default mode's command line into opts, or returns nil and a usage message.
-- Accepts "--opt VALUE" and "--opt=VALUE"; "--" ends the options.
local function parse_generate(argv, options)
    local opts, specs = {}, {}
    local i = 1
    while i <= #argv do
        local a = argv[i]
        if a == "--" then
            table.move(argv, i + 1, #argv, #specs + 1, specs)
            break
        elseif a:sub(1, 1) == "-" and a ~= "-" then
            local name, inline = a:match("^(%-%-[^=]+)=(.*)$")
            name = name or a
            local spec = options[name]
            if not spec then
                return nil, "unknown option '" .. name .. "'"
            elseif spec.value then
                if not inline then
                    i = i + 1
                    inline = argv[i]
                end
                if inline == nil then
                    return nil, "option '" .. name .. "' needs a value (" .. spec.value .. ")"
                end
                opts[spec.field] = inline
            elseif inline then
                return nil, "option '" .. name .. "' takes no value"
            else
                opts[spec.field] = true
            end
        else
            specs[#specs + 1] = a
        end
        i = i + 1
    end
    if #specs == 0 then
        return nil, "no SPEC given"
    end
    opts.specs = specs
    return opts
end

local function generate(argv)
    local gen = optional("generate")
    local options = setmetatable({}, { __index = GEN_OPTIONS })
    for name, spec in pairs(gen and gen.options or {}) do
        options[name] = spec
    end
    local opts, err = parse_generate(argv, options)
    if not opts then
        return usage_error(err)
    end
    if not (gen and type(gen.main) == "function") then
        return unavailable("code generation")
    end
    return gen.main(argv, opts)
end

local commands = {
    ["--help"] = function()
        io.stdout:write(help_text())
        return SUCCESS
    end,
    ["--version"] = function()
        io.stdout:write("respgen ", host.version, " (", host.lua_release, ")\n")
        return SUCCESS
    end,
    dump = function(argv)
        return host.dump(tail(argv, 2))
    end,
    ["import-json"] = function(argv)
        local mod = optional("import_json")
        if not (mod and type(mod.main) == "function") then
            return unavailable("import-json")
        end
        return mod.main(tail(argv, 2), argv)
    end,
}
commands["-h"] = commands["--help"]

-- Limits valid in every mode (docs/security.md), as "--opt N" or "--opt=N": the option, its
-- range, and what it sets. Removed from argv before the mode sees it.
local LIMITS = {
    ["--max-memory"] = { min = 16, max = 1048576, unit = "MiB", default = 512,
        set = function(n) host.set_memory_limit(n * 1024 * 1024) end },
    ["--max-seconds"] = { min = 1, max = 86400, unit = "seconds", default = 60,
        set = function(n) host.set_time_limit(n) end },
}

-- Takes the limit options out of argv: their values by option name, or nil and a usage message.
local function take_limits(argv)
    local values = {}
    for i = #argv, 1, -1 do
        local name, inline = argv[i]:match("^(%-%-[^=]+)=(.*)$")
        name = name or argv[i]
        local limit = LIMITS[name]
        if limit then
            local n = tonumber(inline or argv[i + 1] or "")
            if math.type(n) ~= "integer" or n < limit.min or n > limit.max then
                return nil, "option '" .. name .. "' needs a number of " .. limit.unit ..
                    " from " .. limit.min .. " to " .. limit.max
            end
            table.remove(argv, i)
            if not inline then
                table.remove(argv, i)
            end
            values[name] = n
        end
    end
    return values
end

-- Applies the limits: memory in every mode, time where Lua does the work (dump reads a stream
-- for as long as it flows).
local function apply_limits(values, mode)
    for name, limit in pairs(LIMITS) do
        if name ~= "--max-seconds" or mode ~= "dump" then
            limit.set(values[name] or limit.default)
        end
    end
end

return function(argv)
    local limits, err = take_limits(argv)
    if not limits then
        return usage_error(err)
    end
    apply_limits(limits, argv[1])
    if #argv == 0 then
        io.stderr:write(help_text())
        return USAGE
    end
    local command = commands[argv[1]]
    if command then
        return command(argv)
    end
    return generate(argv)
end
