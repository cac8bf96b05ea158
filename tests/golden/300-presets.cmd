presets
