presets h100-nvlink4
