fit tests/data/nccl/ag-x4-synthetic.txt --regimes 1
