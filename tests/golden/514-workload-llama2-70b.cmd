zero --workload llama2-70b --ranks 1 --stage 0
