presets tests/data/presets/crlf-bom.preset
