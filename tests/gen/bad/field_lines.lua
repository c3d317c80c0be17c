-- expect: bad/field_lines.lua:8: command 'X': field 'flags' item 2 'FAAST' is not a known command flag
-- expect: bad/field_lines.lua:10: command 'X': field 'reply' field 'oneOf' item 2 has unknown field 'typ'
-- expect: bad/field_lines.lua:19: command 'Y': field 'reply' has unknown field 'typ'
-- Problems of a command's fields point at the field's line, not the command's: also when the
-- field spans lines, is written as ["name"], or the command is the second on its line.
command "X" {
    summary = "A command.",
    flags = { "WRITE", "FAAST" },
    key "key",
    reply = {
        oneOf = {
            { type = "string" },
            { typ = "null" },
        },
    },
}
command "Z" { key "k" } command "Y" {
    key "k",
    ["reply"] = { typ = "string" },
}
