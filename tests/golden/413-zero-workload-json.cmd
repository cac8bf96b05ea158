zero --workload llama2-13b --ranks 8 --stage 1,3 --format json
