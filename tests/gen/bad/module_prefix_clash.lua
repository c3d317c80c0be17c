-- expect: bad/module_prefix_clash.lua:5: command 'SET': maps to the same C name 'set' as command 'MOD.SET' (line 4) once the module prefix is left out
-- Without its module prefix a command's C name must stay distinct from the others'.
module_prefix "MOD"
command "MOD.SET" {}
command "SET" {}
