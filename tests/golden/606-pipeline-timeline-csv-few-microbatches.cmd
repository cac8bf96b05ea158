pipeline --stages 4 --microbatches 2 --timeline --format csv
