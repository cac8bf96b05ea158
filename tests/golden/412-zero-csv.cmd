zero --params 7.5e9 --ranks 1,64 --format csv
