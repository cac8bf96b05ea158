fit tests/data/nccl/l40s-old-layout.txt --op all_reduce --regimes 1
