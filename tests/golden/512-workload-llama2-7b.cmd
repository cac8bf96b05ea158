zero --workload llama2-7b --ranks 1 --stage 0
