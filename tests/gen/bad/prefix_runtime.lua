-- expect: respgen: --prefix 'RG_mine' is the runtime's own namespace (rg_*, RG_*); choose another
-- flags: --prefix RG_mine
-- status: 2
-- Names like rg_keys_of_request would collide with the runtime's (this compiled to a conflict).
command "X" {}
