zero --params 7.5e9 --grad-bytes 2 --ranks 1,64 --format csv
