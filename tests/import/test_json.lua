-- Tests of gen/lua/json.lua (run by lua_test: see CMakeLists.txt here).
local json = require("json")

local harness = require("harness")
local test = harness.test

local function decode(text)
    local v, err = json.decode(text, "t.json")
    if err then error("unexpected error: " .. err, 2) end
    return v
end

-- The error for text, which must be exactly `want` (a full "t.json:L:C: path: message").
local function rejects(text, want)
    local v, err = json.decode(text, "t.json")
    if v ~= nil or err == nil then error("accepted: " .. text, 2) end
    if err ~= want then error("error\n  got:  " .. err .. "\n  want: " .. want, 2) end
end

local function eq(got, want)
    if got ~= want or math.type(got) ~= math.type(want) then
        error(string.format("got %s (%s), want %s (%s)", tostring(got), math.type(got) or type(got),
            tostring(want), math.type(want) or type(want)), 2)
    end
end

test("scalars", function()
    eq(decode("true"), true)
    eq(decode(" false "), false)
    eq(decode("null"), json.null)
    eq(json.kind(decode("null")), "null")
    eq(decode('"x"'), "x")
    eq(decode("\t\r\n 42 \n"), 42)
end)

test("numbers", function()
    eq(decode("0"), 0)
    eq(decode("-0"), 0)
    eq(decode("-12"), -12)
    eq(decode("1.5"), 1.5)
    eq(decode("1e3"), 1000.0)
    eq(decode("1E+2"), 100.0)
    eq(decode("2.5e-1"), 0.25)
    eq(decode("9223372036854775807"), math.maxinteger)
    eq(decode("-9223372036854775808"), math.mininteger)
    eq(decode("9223372036854775808"), 9223372036854775808.0)
    eq(decode("1e-400"), 0.0)
    rejects("01", "t.json:1:1: $: leading zero in number")
    rejects("-01", "t.json:1:1: $: leading zero in number")
    rejects("1.", "t.json:1:1: $: digits must follow the decimal point")
    rejects(".5", "t.json:1:1: $: expected a value, found '.'")
    rejects("+1", "t.json:1:1: $: expected a value, found '+'")
    rejects("1e", "t.json:1:1: $: digits must follow the exponent")
    rejects("1e+", "t.json:1:1: $: digits must follow the exponent")
    rejects("-", "t.json:1:1: $: invalid number")
    rejects("-a", "t.json:1:1: $: invalid number")
    rejects("1e400", "t.json:1:1: $: number out of range")
    rejects("-1e400", "t.json:1:1: $: number out of range")
    rejects("NaN", "t.json:1:1: $: expected a value, found 'N'")
    rejects("Infinity", "t.json:1:1: $: expected a value, found 'I'")
    rejects("0x10", "t.json:1:2: $: unexpected 'x' after the value")
end)

test("literals", function()
    rejects("nul", "t.json:1:1: $: expected a value, found 'n'")
    rejects("True", "t.json:1:1: $: expected a value, found 'T'")
    rejects("nulls", "t.json:1:1: $: expected a value, found 'n'")
    rejects("[true1]", "t.json:1:6: $: expected ',' or ']', found '1'")
end)

test("string escapes", function()
    eq(decode([["\"\\\/\b\f\n\r\t"]]), "\"\\/\b\f\n\r\t")
    eq(decode([["\u0041\u00e9\u20AC"]]), "A\u{e9}\u{20ac}")
    eq(decode([["\u0000"]]), "\0")
    eq(decode([["a\uD83D\uDE00b"]]), "a\u{1F600}b")
    eq(decode([["\uDBFF\uDFFF"]]), "\u{10FFFF}")
    eq(decode('"\127"'), "\127") -- DEL is not a control character to JSON
    rejects([["\x"]], "t.json:1:2: $: invalid escape \\x")
    rejects([["\u12"]], "t.json:1:4: $: \\u needs four hex digits")
    rejects([["\uD83D"]], "t.json:1:2: $: unpaired high surrogate")
    rejects([["\uD83Dx"]], "t.json:1:2: $: unpaired high surrogate")
    rejects([["\uD83D\u0041"]], "t.json:1:2: $: unpaired high surrogate")
    rejects([["\uDE00"]], "t.json:1:2: $: unpaired low surrogate")
    rejects('"a\nb"', "t.json:1:3: $: control character in string (escape it)")
    rejects('"a\tb"', "t.json:1:3: $: control character in string (escape it)")
    rejects('"a\0b"', "t.json:1:3: $: control character in string (escape it)")
    rejects('"abc', "t.json:1:1: $: unterminated string")
    rejects('"abc\\', "t.json:1:5: $: invalid escape \\")
end)

test("UTF-8", function()
    eq(decode('"h\u{e9}llo \u{1F600}"'), "h\u{e9}llo \u{1F600}")
    rejects('"a\255"', "t.json:1:3: $: invalid UTF-8")
    rejects('"\192\175"', "t.json:1:2: $: invalid UTF-8") -- overlong "/"
    rejects('"\237\160\128"', "t.json:1:2: $: invalid UTF-8") -- an encoded surrogate
    rejects('"\244\144\128\128"', "t.json:1:2: $: invalid UTF-8") -- beyond U+10FFFF
    rejects('"\226\130"', "t.json:1:2: $: invalid UTF-8") -- truncated before the quote
    eq(decode("\239\187\191[1]")[1], 1) -- a byte order mark is skipped
end)

test("objects and arrays", function()
    local v = decode('{"b": [1, {"c": null}], "a": {}, "e": [], "d": "x"}')
    eq(json.kind(v), "object")
    eq(json.kind(v.a), "object")
    eq(json.kind(v.e), "array")
    eq(json.kind(v.b), "array")
    eq(#v.b, 2)
    eq(v.b[2].c, json.null)
    eq(table.concat(json.keys(v), ","), "b,a,e,d")
    eq(#json.keys(v.a), 0)
    eq(json.kind({}), nil)
end)

test("positions", function()
    local v = decode('{\n  "SET": {\n    "arity": -3,\n    "args": [ "x",\n "y" ]\n  }\n}')
    eq(json.where(v), "t.json:1:1")
    eq(json.where(v, "SET"), "t.json:2:10")
    eq(json.where(v.SET, "arity"), "t.json:3:14")
    eq(json.where(v.SET.args, 1), "t.json:4:15")
    eq(json.where(v.SET.args, 2), "t.json:5:2")
end)

test("paths", function()
    eq(json.path_join("$", "SET"), "$.SET")
    eq(json.path_join("$.SET", "key_specs"), "$.SET.key_specs")
    eq(json.path_join("$", "client-kill"), "$.client-kill")
    eq(json.path_join("$", "JSON.GET"), '$["JSON.GET"]')
    eq(json.path_join("$", 'a"b'), '$["a\\"b"]')
    eq(json.path_join("$.a", 1), "$.a[0]")
    rejects('{"a": [1, 2, {"b": [tru]}]}', "t.json:1:21: $.a[2].b[0]: expected a value, found 't'")
    rejects('{"a": {"b": 1,}}', "t.json:1:15: $.a: expected a string key, found '}'")
    rejects('{"JSON.GET": {"x" 1}}', 't.json:1:19: $["JSON.GET"]: expected \':\', found \'1\'')
end)

test("structure errors", function()
    rejects("", "t.json:1:1: $: expected a value, found end of input")
    rejects("  \n ", "t.json:2:2: $: expected a value, found end of input")
    rejects("[1,]", "t.json:1:4: $[1]: expected a value, found ']'")
    rejects("[1 2]", "t.json:1:4: $: expected ',' or ']', found '2'")
    rejects("[1", "t.json:1:3: $: expected ',' or ']', found end of input")
    rejects('{"a" 1}', "t.json:1:6: $: expected ':', found '1'")
    rejects("{1: 2}", "t.json:1:2: $: expected a string key, found '1'")
    rejects("{'a': 2}", "t.json:1:2: $: expected a string key, found '''")
    rejects("[1] [2]", "t.json:1:5: $: unexpected '[' after the value")
    rejects("{} x", "t.json:1:4: $: unexpected 'x' after the value")
    rejects("[1]\0", "t.json:1:4: $: unexpected byte 0x00 after the value")
    rejects("[\v1]", "t.json:1:2: $[0]: expected a value, found byte 0x0B")
    rejects("// c\n1", "t.json:1:1: $: expected a value, found '/'")
end)

test("duplicate keys", function()
    rejects('{"a": 1,\n "b": 2,\n "a": 3}',
        't.json:3:2: $: duplicate key "a" (first at t.json:1:7)')
    rejects('{"x": {"k": 1, "k": 1}}', 't.json:1:16: $.x: duplicate key "k" (first at t.json:1:13)')
    -- Keys equal after unescaping are the same key.
    rejects('{"a": 1, "\\u0061": 2}', 't.json:1:10: $: duplicate key "a" (first at t.json:1:7)')
end)

test("nesting limit", function()
    local ok = decode(string.rep("[", 512) .. string.rep("]", 512))
    eq(json.kind(ok), "array")
    local v, err = json.decode(string.rep("[", 513) .. string.rep("]", 513), "t.json")
    eq(v, nil)
    assert(err:match("^t%.json:1:513: %$%[0%]") and err:match("nested deeper than 512 levels$"),
        err)
    -- The path is cut in its middle, so the message stays one readable line.
    assert(#err < 250 and err:find("...", 1, true), err)
end)

test("large input", function()
    local items = {}
    for i = 1, 20000 do items[i] = string.format('{"n": %d, "s": "v%d\\u00e9"}', i, i) end
    local v = decode("[" .. table.concat(items, ",\n") .. "]")
    eq(#v, 20000)
    eq(v[20000].s, "v20000\u{e9}")
    eq(json.where(v, 20000), "t.json:20000:1")
end)

harness.run()
