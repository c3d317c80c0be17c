-- Tests of gen/lua/import_lua.lua, the importer's Lua writer (run by lua_test).
local lua = require("import_lua")

local harness = require("harness")
local test = harness.test

local function eq(got, want)
    if got ~= want then
        error("\n  got:  " .. tostring(got) .. "\n  want: " .. tostring(want), 2)
    end
end

-- What Lua reads back from a rendered value.
local function read_back(text)
    return assert(load("return " .. text, "=rendered", "t", {}))()
end

test("strings", function()
    eq(lua.quote("plain"), '"plain"')
    eq(lua.quote('say "hi" \\ bye'), '"say \\"hi\\" \\\\ bye"')
    eq(lua.quote("a\nb\tc\r"), '"a\\nb\\tc\\r"')
    eq(lua.quote("\0" .. "1"), '"\\0001"') -- three digits: the 1 stays a character
    eq(lua.quote("\127\27"), '"\\127\\027"')
    eq(lua.quote("caf\u{e9} \u{2014}"), '"caf\u{e9} \u{2014}"') -- UTF-8 stays readable
    for _, s in ipairs({ "\0\1\2\31\127", 'x"\\y', "\u{10FFFF}", "]]", "--[[" }) do
        eq(read_back(lua.quote(s)), s)
    end
end)

test("keys", function()
    eq(lua.key("type"), "type")
    eq(lua.key("_x1"), "_x1")
    eq(lua.key("end"), '["end"]')
    eq(lua.key("function"), '["function"]')
    eq(lua.key("$ref"), '["$ref"]')
    eq(lua.key("client-id"), '["client-id"]')
    eq(lua.key("1st"), '["1st"]')
end)

test("numbers", function()
    eq(lua.inline(42), "42")
    eq(lua.inline(-7), "-7")
    eq(lua.inline(math.mininteger), "-9223372036854775808")
    eq(lua.inline(1.0), "1.0")
    eq(lua.inline(0.1), "0.1")
    eq(lua.inline(1e300), "1e+300")
    eq(math.type(read_back(lua.inline(2.0))), "float")
    eq(read_back(lua.inline(0.1 + 0.2)), 0.1 + 0.2)
end)

test("tables on one line", function()
    eq(lua.inline(lua.list()), "{}")
    eq(lua.inline(lua.record()), "{}")
    eq(lua.inline(lua.list({ "a", 1, true })), '{ "a", 1, true }')
    local r = lua.add(lua.add(lua.record(), "type", "string"), "$ref", "#")
    eq(lua.inline(r), '{ type = "string", ["$ref"] = "#" }')
    eq(lua.inline(lua.list({ r })), '{ { type = "string", ["$ref"] = "#" } }')
end)

test("tables across lines", function()
    local long = string.rep("x", 80)
    local r = lua.add(lua.add(lua.record(), "description", long), "type", "string")
    eq(lua.render(r, "    ", 12), table.concat({
        "{",
        '        description = "' .. long .. '",',
        '        type = "string",',
        "    }",
    }, "\n"))
    -- A tuple stays on one line however long; a list around it does not.
    local entries = lua.list({ lua.tuple({ "1.0.0", long }), lua.tuple({ "2.0.0", "x" }) })
    eq(lua.render(entries, "", 0), table.concat({
        "{",
        '    { "1.0.0", "' .. long .. '" },',
        '    { "2.0.0", "x" },',
        "}",
    }, "\n"))
    -- Exactly at the width (the comma after it counted) it stays on one line.
    local fit = lua.list({ string.rep("y", 100 - 10 - 6 - 1) })
    eq(#lua.render(fit, "", 10), 100 - 10 - 1)
    eq(lua.render(lua.list({ string.rep("y", 100 - 10 - 6) }), "", 10):sub(1, 2), "{\n")
end)

test("specs", function()
    local opts = lua.add(lua.record(), "token", "EX")
    local text, origins = lua.spec({ "banner", "" }, {
        {
            name = "SET", fields = lua.add(lua.record(), "arity", -3), origin = "set",
            args = {
                { fn = "key", name = "key", opts = lua.record(), args = {}, origin = "key" },
                { fn = "oneof", name = "expiration", opts = lua.add(lua.record(), "optional", true),
                  origin = "exp", args = {
                    { fn = "integer", name = "seconds", opts = opts, args = {}, origin = "s" },
                    { fn = "pure_token", name = "keepttl", origin = "k", args = {},
                      opts = lua.add(lua.record(), "token", "KEEPTTL") },
                } },
            },
        },
        { name = "GET", comment = { "note" }, fields = lua.record(), args = {}, origin = "get" },
    })
    eq(text, table.concat({
        "-- banner",
        "--",
        "",
        'command "SET" {',
        "    arity = -3,",
        '    key "key",',
        '    oneof "expiration" {',
        "        optional = true,",
        '        integer "seconds" { token = "EX" },',
        '        pure_token "keepttl" { token = "KEEPTTL" },',
        "    },",
        "}",
        "",
        "-- note",
        'command "GET" {',
        "}",
        "",
    }, "\n"))
    eq(origins[4], "set")
    eq(origins[6], "key")
    eq(origins[7], "exp")
    eq(origins[9], "s")
    eq(origins[10], "k")
    eq(origins[15], "get")
    eq(origins[5], "set") -- a command's field: the command (its problems point at this line)
    eq(origins[8], nil)
end)

-- Comment lines carry names from the JSON: a newline in one must not end the comment and turn
-- the rest of the name into spec code.
test("comments cannot smuggle code", function()
    local evil = 'X\ncommand "SMUGGLED" {}\r\n'
    local text = lua.spec({ evil }, { { name = "A", comment = { evil }, fields = lua.record(),
        args = {} } })
    eq(text:find("\ncommand \"SMUGGLED\"", 1, true), nil)
    local declared = {}
    assert(load(text, "=imported", "t", {
        command = function(name) declared[#declared + 1] = name; return function() end end,
    }))()
    eq(#declared, 1)
    eq(declared[1], "A")
end)

harness.run()
