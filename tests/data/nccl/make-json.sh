#!/bin/sh
# Writes l40s-x4.json: the table of l40s-x4-pcie-ring.txt as nccl-tests 2.17+
# writes it with -J (src/util.cu of NVIDIA/nccl-tests: one line, keys in its
# order, numbers printed with "%lf"; one "devices" entry per process, here
# one process driving 4 GPUs).  The numbers are the text log's; only the
# layout is made.  Run from this folder.
awk '
BEGIN {
	printf "{\"version\":3,\"start_time\":\"2026-02-22 15:07:51\",\"args\":[\"./build/all_reduce_perf\",\"-b\",\"8\",\"-e\",\"128M\",\"-f\",\"2\",\"-g\",\"4\",\"-J\",\"l40s-x4.json\"],\"env\":[\"NCCL_ALGO=ring\"],\"nccl_version\":22902"
	printf ",\"config\":{\"nthreads\":1,\"ngpus\":4,\"minimum_bytes\":8,\"maximum_bytes\":134217728,\"step_factor\":2,\"warmup_iters\":1,\"iterations\":20,\"aggregated_iterations\":1,\"validation\":1,\"graph\":0,\"blocking_collectives\":false,\"per_iter_timing\":false,\"per_iter_skip\":0,\"parallel_init\":false"
	printf ",\"devices\":[{\"rank\":0,\"group\":0,\"pid\":1176121,\"hostname\":\"oat-04\",\"device\":0,\"device_hex\":\"0000:4a:00\",\"device_info\":\"NVIDIA L40S\"}]}"
	printf ",\"results\":["
	n = 0
}
/^ +[0-9]+ +[0-9]+ +float/ {
	if (n++) printf ","
	printf "{\"size\":%d,\"count\":%d,\"type\":\"%s\",\"redop\":\"%s\",\"root\":\"%6d\"", $1, $2, $3, $4, $5
	printf ",\"out_of_place\":{\"time\":%f,\"alg_bw\":%f,\"bus_bw\":%f,\"nwrong\":%f}", $6, $7, $8, $9
	printf ",\"in_place\":{\"time\":%f,\"alg_bw\":%f,\"bus_bw\":%f,\"nwrong\":%f}", $10, $11, $12, $13
	printf ",\"actual_iterations\":20,\"experiment_name\":\"\"}"
}
END {
	printf "],\"out_of_bounds\":{\"count\":0,\"okay\":true},\"average_bus_bandwidth\":{\"bandwidth\":5.929590,\"okay\":\"unchecked\"},\"end_time\":\"2026-02-22 15:07:55\"}\n"
}' l40s-x4-pcie-ring.txt > l40s-x4.json
