run_for(s(2))
xpcall(function() while true do end end, function() while true do end end)
