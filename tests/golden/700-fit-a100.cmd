fit tests/data/nccl/a100-x8-nvswitch.txt
