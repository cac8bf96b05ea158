ddp --params 7B --grad-bytes 4 --compute 1s --ranks 1,2,1024 --algo tree
