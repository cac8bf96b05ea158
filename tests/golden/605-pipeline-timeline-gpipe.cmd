pipeline --stages 3 --microbatches 2 --schedule gpipe --timeline --tf 1ms --tb 2ms
