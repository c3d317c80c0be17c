-- expect: bad/missing_body.lua:3: command 'X': missing body: write command "NAME" { ... }
-- A command needs its body table.
command "X"
