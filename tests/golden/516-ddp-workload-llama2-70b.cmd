ddp --workload llama2-70b --compute 2s --ranks 64,512 --bucket 25MiB --overlap 0.5
