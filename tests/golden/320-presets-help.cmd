presets --help
