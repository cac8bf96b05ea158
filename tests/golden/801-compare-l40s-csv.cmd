compare tests/data/nccl/l40s-x4-pcie-ring.txt --preset pcie4-x16 --format csv
