zero --params 7.5e9
