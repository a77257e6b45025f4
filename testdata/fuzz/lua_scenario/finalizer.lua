run_for(s(2))
setmetatable({}, {__gc = function() after(s(1), function() end) now() end})
