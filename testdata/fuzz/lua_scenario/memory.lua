run_for(s(2))
local t = {} for i = 1, 1e9 do t[i] = string.rep("x", 100) end
