fit tests/data/mpi/imb-pingpong-allreduce.txt --op sendrecv --regimes 1
