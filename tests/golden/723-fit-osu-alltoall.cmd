fit tests/data/mpi/osu-alltoall-36.txt --ranks 36 --regimes 1 --format csv
