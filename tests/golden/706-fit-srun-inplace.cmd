fit tests/data/nccl/a100-srun-label.txt --in-place --regimes 2 --robust --format csv
