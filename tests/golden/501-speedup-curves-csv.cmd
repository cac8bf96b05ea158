speedup --ratio 0,0.05,0.15 --ranks 1:64:x4 --format csv
