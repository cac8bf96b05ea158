speedup --measured 2:89,4:170,8:300 --ranks 16,32
