compare tests/data/nccl/ag-x4-synthetic.txt --alpha 2us --beta 16GB/s --large 1G
