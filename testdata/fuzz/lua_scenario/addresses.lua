run_for(s(2))
print(tostring({}), string.format("%s %p", print, {}))
for k, v in pairs({b=1, a=2, [3]=4}) do print(k, v) end
