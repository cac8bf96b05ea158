presets llama2-7b
