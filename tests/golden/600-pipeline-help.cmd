pipeline --help
