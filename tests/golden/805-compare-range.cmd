compare tests/data/nccl/cs244c/l40s-x4-ring.txt --preset tests/data/nccl/l40s-x2-fit.preset --range --format csv
