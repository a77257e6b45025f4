run_for(s(2))
every(ms(1), function() for i = 1, 1e6 do after(ms(1), function() end) end end)
