zero --workload llama2-13b --ranks 1 --stage 0
