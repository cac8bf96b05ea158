zero --params 1B --param-bytes 4 --grad-bytes 4 --optim-bytes 8 --ranks 2,16 --algo rabenseifner
