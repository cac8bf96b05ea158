fit tests/data/nccl/l40s-x4.json --regimes 1
