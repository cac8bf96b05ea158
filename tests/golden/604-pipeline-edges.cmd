pipeline --stages 1,2 --microbatches 1 --schedule gpipe,1f1b
