-- expect: bad/import_overlay.lua: this is an import overlay (for respgen import-json --overlay), not a spec
-- An import overlay (specs/overlays/*.lua) given as a spec is named for what it is.
return {
    ["SET"] = { args = { seconds = { min = 1, min_error = "ERR invalid expire time" } } },
}
