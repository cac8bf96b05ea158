fit tests/data/nccl/l40s-x4-pcie-ring.txt --holdout --format json
