presets h800
