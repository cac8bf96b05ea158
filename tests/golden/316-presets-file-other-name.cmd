presets tests/data/presets/misnamed.preset
