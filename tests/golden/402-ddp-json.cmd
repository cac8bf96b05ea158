ddp --grad 1GiB --compute 50ms --ranks 2,4 --format json
