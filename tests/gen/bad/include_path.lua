-- expect: bad/include_path.lua:4: include needs a relative path to a spec ("x.lua") first, got "/etc/passwd"
-- expect: bad/include_path.lua:5: include has unknown field 'from'
-- Only spec files, named relative to the including spec.
include { "/etc/passwd" }
include { "../specs/kinds.lua", from = "x" }
command "X" {}
