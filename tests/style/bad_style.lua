-- A Lua file with one planted problem per kind, for style_lua_selftest (line numbers matter).
-- Lines 3-4, 6-7, 11-12 and 14-17 are clean; a long string is free text.
local M = {}
function M.two()
  return 2
end
function M.three()
    local x = 3	-- a tab
    return x 
    -- this comment line goes on and on past the limit of one hundred characters, which is far too long
end
M.y = 2
      M.x = 1
local T = [[
  free text in a long string, any indentation, and as long as it likes to be, past the column limit
]]
return M, T
