fit tests/data/nccl/l40s-us.csv --algo dbtree --regimes 1 --format csv
