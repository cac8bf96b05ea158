fit tests/data/nccl/two-rows.csv --op all_reduce --ranks 2
