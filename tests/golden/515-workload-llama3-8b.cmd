zero --workload llama3-8b --ranks 1 --stage 0
