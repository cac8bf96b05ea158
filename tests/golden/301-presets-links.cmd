presets --kind link
