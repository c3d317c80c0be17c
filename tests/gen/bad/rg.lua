-- expect: bad/rg.lua:1: the file name gives no usable prefix ('rg' is the runtime's own namespace (rg_*, RG_*); choose another); pass --prefix
-- A spec whose stem would make the runtime's names (rg_keys_of_request ...).
command "X" {}
