fit tests/data/mpi/osu-allreduce-144.txt --ranks 144 --regimes 1 --format csv
