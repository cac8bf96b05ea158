zero --workload gpt2-124m --ranks 1 --stage 0
