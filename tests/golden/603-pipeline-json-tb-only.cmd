pipeline --stages 16 --microbatches 64,128 --tb 4ms --schedule 1f1b,interleaved --virtual 4 --format json
