plan --preset a100-nvlink3 --ranks 16 --sizes 1M --ops all_reduce --algo ring --workload llama2-7b --compute 2s --format csv
