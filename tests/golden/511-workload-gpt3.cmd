zero --workload gpt3-175b --ranks 1 --stage 0
