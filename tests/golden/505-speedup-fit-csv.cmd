speedup --measured 1:100,2:190,4:350,8:600 --format csv
