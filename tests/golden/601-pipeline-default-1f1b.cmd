pipeline --stages 8 --microbatches 24,32,64
