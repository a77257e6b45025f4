cluster{nodes=3}
run_for(s(2))
while true do pcall(function() while true do end end) end
