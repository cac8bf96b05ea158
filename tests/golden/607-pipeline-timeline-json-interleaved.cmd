pipeline --virtual 2 --stages 2 --microbatches 4 --timeline --format json
