fit tests/data/nccl/comment-lines.csv --regimes 1
