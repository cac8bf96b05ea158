plan --alpha 5us --beta 200GB/s --ranks 8 --sizes 8:8G:x1024 --ops all_gather,alltoall --format json
