-- expect: bad/unknown_policy.lua:4: command 'X': field 'command_tips' item 1 'REQUEST_POLICY:SOME_NODES' is no REQUEST_POLICY Redis defines
-- A policy a cluster client could not act on (emit_keys maps each to a runtime constant).
command "X" {
    command_tips = { "REQUEST_POLICY:SOME_NODES" },
}
