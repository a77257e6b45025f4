run_for(s(2))
print(string.find(string.rep("a", 60), string.rep("a-", 12) .. "b"))
print(("x"):rep(50):gsub("(x*)*y", "%1"))
