compare tests/data/nccl/a100-x8-nvswitch.txt --preset tests/data/nccl/a100-fit.preset --tolerance 5%
