compare tests/data/nccl/a100-x8-nvswitch.txt --preset a100-nvlink3
