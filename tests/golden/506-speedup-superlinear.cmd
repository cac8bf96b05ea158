speedup --measured 1:45,2:134
