-- Runs respgen's Lua under the plain lua5.4 interpreter, standing in for the C host (gen/main.c):
--   lua5.4 tests/gen/shim.lua [respgen arguments...]
-- It provides the `host` module the embedded Lua gets from gen/host.c (templates read from
-- templates/, files written through a temporary name and a rename) and runs gen/lua/cli.lua, so
-- the generator can be developed and debugged without building respgen. Set RESPGEN_DEBUG for
-- tracebacks.
local root = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/../.."

package.path = root .. "/gen/lua/?.lua"

local function read_file(path)
    local f, err = io.open(path, "rb")
    if not f then return nil, err end
    local data = f:read("a")
    f:close()
    return data
end

-- The version and ABI number, from their one source as gen/host.c has them.
local rg_h = read_file(root .. "/runtime/rg.h")
package.loaded.host = {
    version = rg_h:match('#define RG_VERSION_STRING "([^"]+)"'),
    abi_version = tonumber(rg_h:match("#define RG_ABI_VERSION (%d+)")),
    lua_release = _VERSION,
    read_file = read_file,
    has_module = function(name)
        return read_file(root .. "/gen/lua/" .. name .. ".lua") ~= nil
    end,
    template = function(name)
        return read_file(root .. "/templates/" .. name)
    end,
    mkdir_p = function(path)
        return os.execute("mkdir -p '" .. path:gsub("'", "'\\''") .. "'") or nil, "mkdir failed"
    end,
    write_file_atomic = function(path, data)
        local tmp = path .. ".tmp"
        local f, err = io.open(tmp, "wb")
        if not f then return nil, err end
        f:write(data)
        f:close()
        local ok, rerr = os.rename(tmp, path)
        if not ok then return nil, rerr end
        return true
    end,
}

local argv = { [0] = "respgen" }
for i = 1, #arg do argv[i] = arg[i] end
local ok, status = xpcall(require("cli"), function(e)
    return os.getenv("RESPGEN_DEBUG") and debug.traceback(e) or e
end, argv)
if not ok then
    io.stderr:write("respgen: ", tostring(status), "\n")
    os.exit(1)
end
if status == true or status == nil then status = 0 elseif status == false then status = 1 end
os.exit(status)
