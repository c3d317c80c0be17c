-- Hostile bytes everywhere a spec can put them (docs/security.md): comment closers, newlines,
-- quotes, backslashes, trigraphs, NUL and invalid UTF-8 in tokens, names and error texts. The
-- C generated from this must compile strict-clean and mean exactly this; test_gen_hostile.c
-- checks the bytes the encoders write and what the server parser accepts.
command "HX" {
    summary = "*/ int smuggled_summary(void) { return 1; } /*\n#error summary ??/",
    string "val*/??/",
    pure_token "close" { token = "*/ int smuggled(void) { return 1; } /*" },
    pure_token "nl" { token = "A\nB\r\n#error x", optional = true },
    pure_token "quote" { token = 'Q"\\??/', optional = true },
    pure_token "nul" { token = "Z\0\255\128", optional = true },
    integer "n" { token = "??=N*/", optional = true,
        invalid = "ERR */ \"n\" ??/ \\ is not a number" },
    string "bs" { token = "\\", optional = true },
}

command "HY*/" {
    arity = 2,
    reply = { const = "O\"K*/??/" },
    key "k\n*/" { key_spec_index = 0 },
    key_specs = {
        { flags = { "RO" }, notes = "*/ #error notes", begin_search = { index = { pos = 1 } },
          find_keys = { range = { lastkey = 0, step = 1, limit = 0 } } },
    },
}

-- Wider than the server tables' uint8_t members: the encoder stays exact, the server parser
-- leaves WIDE raw instead of emitting a count a uint8_t would cut (300 -> 44).
local wide = {}
for i = 1, 300 do
    wide[i] = string("a" .. i) { optional = true, token = "T" .. i }
end
command "WIDE" (wide)

local alts = {}
for i = 1, 300 do
    alts[i] = pure_token("p" .. i) { token = "P" .. i }
end
command "PICK" { oneof "o" (alts) }

-- Its oneof "v" is the type hostile_shape_v, the name the encoder shared by one-string commands
-- (HY*/) would take (emit_shape.lua): that shape is then not shared, HY*/ keeps its own code.
command "SHAPE" { oneof "v" { pure_token "a" { token = "A" }, pure_token "b" { token = "B" } } }
