-- expect: bad/module_prefix_bad.lua:3: module_prefix needs a name like "JSON" (letters, digits, '_'), got "JSON."
-- The prefix is a name, without its dot.
module_prefix "JSON."
command "JSON.SET" {}
