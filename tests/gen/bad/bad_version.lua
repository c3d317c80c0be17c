-- expect: bad/bad_version.lua:4: command 'X': field 'since' must be a version string like "6.2.0"
-- Versions are major.minor.patch.
command "X" {
    since = "6.2",
}
