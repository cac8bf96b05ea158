speedup --ratio 0.15 --ranks 1,2,4,8,16
