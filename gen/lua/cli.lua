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
    "  respgen [-o OUTDIR] [--prefix P] [--header-only] [--check] [--server] [--client] SPEC...",
    "      Generate C from the command specs SPEC...: for each, <stem>.h/.c (encoders),",
    "      <stem>_reply.h/.c (typed reply decoders), <stem>_keys.h/.c (cluster routing)",
    "        -o OUTDIR          write the generated files into OUTDIR (made if missing)",
    "        --prefix P         start every generated C name with P",
    "        --header-only      generate headers only, the implementation inside",
    "        --check            write nothing; fail when the files on disk are not current",
    "        --server           also <stem>_server.h/.c: command lookup, arity checks,",
    "                           typed argument parsing and reply encoders (docs/server.md)",
    "        --client           also <stem>_client.h/.c: per command a call that queues it on",
    "                           a connection engine with its typed reply (docs/client.md)",
    "        --reply-coverage   also <stem>_reply_coverage.md: which commands get a",
    "                           precisely typed reply decoder (docs/typed-replies.md)",
    "  respgen dump [--json | --count] [--chunk N] [--max-depth N] [--max-bulk N] [FILE]",
    "      Decode a RESP2/RESP3 stream from FILE or standard input and print its values",
    "      (see docs/dump.md; `respgen dump --help` for details).",
  }
  if host.has_module("import_json") then
    lines[#lines + 1] = "  respgen import-json SOURCE -o FILE"
    lines[#lines + 1] = "      Convert official command specs (a directory of Redis/Valkey"
    lines[#lines + 1] = "      src/commands/*.json, or one module commands.json) into a spec FILE."
  end
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

return function(argv)
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
