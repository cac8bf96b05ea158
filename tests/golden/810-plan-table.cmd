plan --preset a100-nvlink3 --ranks 8 --sizes 8:128M:x16
