plan --alpha 5us --beta 200GB/s --ranks 4,16 --sizes 1K,1M,1G --ops all_reduce --format csv
