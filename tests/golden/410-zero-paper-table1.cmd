zero --params 7.5e9 --grad-bytes 2
