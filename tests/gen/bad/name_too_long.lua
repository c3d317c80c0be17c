-- expect: bad/name_too_long.lua:4: command 'X', argument 'nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn...': name is 10240 bytes, over the limit of 128
-- A 10 KB argument name (it would become C identifiers): refused, shown cut short.
command "X" {
    string(("n"):rep(10240)),
}
