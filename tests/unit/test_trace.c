/*
 * The streaming JSON reader, the on-disk sort and the trace readers
 * (json.h, trace_spill.h, trace.h; models/trace.md).
 */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "json.h"
#include "meas.h"
#include "measfile.h"
#include "ntests_json.h"
#include "trace.h"
#include "tuner.h"

static int S_count_num(void *ctx, const char *s, size_t len)
{
	(void)s;
	(void)len;
	(*(int *)ctx)++;
	return 1;
}

void test_json_stream_lines_and_chunks(void)
{
	static const struct json_cb cb = { .number = S_count_num };
	const char *doc = "{\"a\": [1, 2,\n3],\n \"b\": 4}";
	struct errbuf eb;
	struct json_stream *js;
	int n = 0;
	size_t i;

	/* One byte at a time: the same four numbers. */
	js = json_stream_new(&cb, &n, "doc", 0);
	for (i = 0; i < strlen(doc); i++)
		INT_EQ(json_stream_feed(js, doc + i, 1, &eb), 0);
	INT_EQ(json_stream_finish(js, &eb), 0);
	INT_EQ(n, 4);
	json_stream_free(js);

	/* An error names its line. */
	js = json_stream_new(&cb, &n, "doc", 0);
	CHECK(json_stream_feed(js, "{\n\"a\":\n[1,\n2}", 13, &eb) < 0);
	CHECK(strncmp(eb.msg, "doc:4: malformed JSON", 21) == 0);
	json_stream_free(js);

	/* A document that stops early. */
	js = json_stream_new(&cb, &n, "doc", 0);
	INT_EQ(json_stream_feed(js, "[1,", 3, &eb), 0);
	CHECK(json_stream_finish(js, &eb) < 0);
	STR_EQ(eb.msg, "doc:1: malformed JSON: unexpected end of file");
	json_stream_free(js);
}

static int S_ucmp(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	return x < y ? -1 : x > y;
}

void test_spill_sorts_across_runs(void)
{
	struct spill s;
	struct errbuf eb;
	unsigned x, prev = 0, n = 3 * SPILL_BUF_RECS + 17, i, got = 0;

	spill_init(&s, sizeof(unsigned), S_ucmp);
	for (i = 0; i < n; i++) {
		x = (i * 2654435761u) % 1000003u;
		INT_EQ(spill_add(&s, &x, &eb), 0);
	}
	CHECK(s.nruns >= 3);
	INT_EQ(spill_sort(&s, &eb), 0);
	while (spill_next(&s, &x, &eb) == 1) {
		CHECK(x >= prev);
		prev = x;
		got++;
	}
	INT_EQ(got, n);
	spill_release(&s);
}

void test_trace_names(void)
{
	INT_EQ(trace_coll_lookup("allreduce"), OP_ALLREDUCE);
	INT_EQ(trace_coll_lookup("_allgather_base"), OP_ALLGATHER);
	INT_EQ(trace_coll_lookup("all_gather_into_tensor_coalesced"), OP_ALLGATHER);
	INT_EQ(trace_coll_lookup("reduce_scatter_tensor_coalesced"), OP_REDUCESCATTER);
	INT_EQ(trace_coll_lookup("AllToAll"), OP_ALLTOALL);
	INT_EQ(trace_coll_lookup("recv"), OP_SENDRECV);
	INT_EQ(trace_coll_lookup("SendRecv"), OP_SENDRECV);
	INT_EQ(trace_coll_lookup("Reduce"), OP_REDUCE);
	INT_EQ(trace_coll_lookup("gather"), -1);
	DBL_NEAR(trace_dtype_size("BFloat16"), 2, 0);
	DBL_NEAR(trace_dtype_size("Float"), 4, 0);
	DBL_NEAR(trace_dtype_size("Long"), 8, 0);
	DBL_NEAR(trace_dtype_size("Float8_e4m3fn"), 1, 0);
	DBL_NEAR(trace_dtype_size("Quaternion"), 0, 0);
}

/*
 * One step by hand: compute kernels at [0, 10) and [12, 30) µs, NCCL kernels
 * at [5, 20) and [25, 40) µs, all launched inside ProfilerStep#7.  Compute
 * union 28 µs, comm union 30 µs, comm under compute [5,10) + [12,20) +
 * [25,30) = 18 µs, so exposed 12 µs; the all-gather of 1024 bf16 elements
 * out on 4 ranks is 2048 B.  The timestamps carry 16 digits, which a
 * double would round.
 */
void test_trace_kineto_step_by_hand(void)
{
	const char *doc =
		"{\"distributedInfo\": {\"rank\": 3, \"world_size\": 4},\n"
		"\"traceEvents\": [\n"
		"{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#7\", \"pid\": 9, \"tid\": 9,"
		" \"ts\": 4458677009000.000, \"dur\": 1000},\n"
		"{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"ts\": 4458677009001.5, \"dur\": 1, \"args\": {\"correlation\": 11}},\n"
		"{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"ts\": 4458677009002.5, \"dur\": 1, \"args\": {\"correlation\": 12}},\n"
		"{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"ts\": 4458677009003.5, \"dur\": 1, \"args\": {\"correlation\": 13}},\n"
		"{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"ts\": 4458677009004.5, \"dur\": 1, \"args\": {\"correlation\": 14}},\n"
		/* The kernels run after the step's CPU window: placed by their launch. */
		"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7, \"ts\": 4458677010000.001, \"dur\": 10, \"args\": {\"device\": 0, \"correlation\": 11}},\n"
		"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_AllGather_RING_LL(x)\", \"pid\": 0, \"tid\": 20, \"ts\": 4458677010005.001, \"dur\": 15,"
		" \"args\": {\"device\": 0, \"correlation\": 12, \"Collective name\": \"_allgather_base\", \"In msg nelems\": 256, \"Out msg nelems\": 1024,"
		" \"Group size\": 4, \"dtype\": \"BFloat16\", \"Process Group Name\": \"1\", \"Process Group Description\": \"dp\", \"Process Group Ranks\": \"[0, 1, 2, 3]\"}},\n"
		"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7, \"ts\": 4458677010012.001, \"dur\": 18, \"args\": {\"device\": 0, \"correlation\": 13}},\n"
		"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_AllGather_RING_LL(x)\", \"pid\": 0, \"tid\": 20, \"ts\": 4458677010025.001, \"dur\": 15,"
		" \"args\": {\"device\": 0, \"correlation\": 14, \"Collective name\": \"_allgather_base\", \"In msg nelems\": 256, \"Out msg nelems\": 1024,"
		" \"Group size\": 4, \"dtype\": \"BFloat16\", \"Process Group Name\": \"1\", \"Process Group Description\": \"dp\", \"Process Group Ranks\": \"[0, 1, 2, 3]\"}}\n"
		"]}\n";
	struct trace t;
	struct errbuf eb;
	const struct trace_step *s;

	trace_init(&t);
	INT_EQ(trace_read_buffer(&t, "hand", doc, strlen(doc), &eb), 0);
	INT_EQ((int)t.nkinds, 1);
	STR_EQ(t.kinds[0].op, "all_gather");
	DBL_NEAR(t.kinds[0].size_B, 2048, 0);
	INT_EQ((int)t.kinds[0].ranks, 4);
	INT_EQ((int)t.kinds[0].stride, 1);
	DBL_NEAR(t.kinds[0].count, 2, 0);
	STR_EQ(t.kinds[0].pg, "1:dp");
	DBL_NEAR(trace_kind_median(&t.kinds[0]), 15e-6, 1e-12);
	INT_EQ(trace_analyse(&t, -1, NULL, NULL, &eb), 0);
	INT_EQ((int)t.nsteps, 1);
	s = &t.steps[0];
	INT_EQ((int)s->rank, 3);
	INT_EQ((int)s->number, 7);
	DBL_NEAR(s->compute_s, 28e-6, 1e-9);
	DBL_NEAR(s->comm_s, 30e-6, 1e-9);
	DBL_NEAR(s->exposed_s, 12e-6, 1e-9);
	DBL_NEAR(s->busy_s, 40e-6, 1e-9);
	DBL_NEAR(s->gpu_t1_s - s->gpu_t0_s, 40e-6, 1e-4);   /* absolute s in a double: ns resolution */
	trace_release(&t);
}

void test_trace_bad_input_names_the_line(void)
{
	const char *doc = "{\"traceEvents\": [\n{\"ph\": \"X\", \"cat\": \"kernel\",\n\"ts\": \"soon\", \"dur\": 1}]}";
	struct trace t;
	struct errbuf eb;

	trace_init(&t);
	CHECK(trace_read_buffer(&t, "bad", doc, strlen(doc), &eb) < 0);
	STR_EQ(eb.msg, "bad:3: \"ts\" is not a time in µs");
	trace_release(&t);
}

void test_trace_inspector_and_info_sizes(void)
{
	const char *insp = "{\"header\": {\"rank\": 0, \"n_ranks\": 4}, \"coll_perf\": {\"coll\": \"AllGather\","
			   " \"coll_msg_size_bytes\": 1000, \"coll_exec_time_us\": 20}}\n";
	const char *info = "h:1:1 [0] NCCL INFO ReduceScatter: opCount 5 sendbuff 0x1 recvbuff 0x2 count 10 "
			   "datatype 9 op 0 root 0 comm 0xab [nranks=4] stream 0x3\n";
	struct trace t;
	struct errbuf eb;

	trace_init(&t);
	INT_EQ(trace_read_buffer(&t, "insp", insp, strlen(insp), &eb), 0);
	INT_EQ(trace_read_buffer(&t, "info", info, strlen(info), &eb), 0);
	INT_EQ((int)t.nkinds, 2);
	/* Inspector: 1000 B per rank x 4 ranks; 20 µs. */
	STR_EQ(t.kinds[0].op, "all_gather");
	DBL_NEAR(t.kinds[0].size_B, 4000, 0);
	DBL_NEAR(trace_kind_median(&t.kinds[0]), 20e-6, 1e-12);
	/* NCCL INFO: 10 bf16 received per rank x 4 ranks = 80 B; no time. */
	STR_EQ(t.kinds[1].op, "reduce_scatter");
	DBL_NEAR(t.kinds[1].size_B, 80, 0);
	CHECK(isnan(trace_kind_median(&t.kinds[1])));
	STR_EQ(t.kinds[1].pg, "0xab");
	trace_release(&t);
}

void test_nccljson_refuses_duplicate_keys(void)
{
	const char *doc = "{\"args\": [\"./all_reduce_perf\"],\n\"results\": [{\"size\": 8,\n"
			  "\"out_of_place\": {\"time\": 2, \"time\": 3}}]}";
	struct meas m;
	struct errbuf eb;

	meas_init(&m, "dup");
	CHECK(nccljson_parse(doc, strlen(doc), "dup", &m, &eb) < 0);
	STR_EQ(eb.msg, "dup:3: duplicate key \"time\" (also on line 3): which one holds?");
	meas_release(&m);
}

/*
 * Two runs of all-reduce on 8 ranks: ring/ll faster at 1 KiB and 4 KiB,
 * tree/ll128 at 16 KiB.  Rules: 0..sqrt(4096*16384) = 8192 ring/ll, then
 * 8193..16384 tree/ll128.
 */
void test_tuner_choose_by_hand(void)
{
	const struct tuner_point p[] = {
		{ OP_ALLREDUCE, 8, 1, 1024, 10e-6, NCCL_RING, NCCL_LL, 0, 10 },
		{ OP_ALLREDUCE, 8, 1, 1024, 12e-6, NCCL_TREE, NCCL_LL128, 1, 10 },
		{ OP_ALLREDUCE, 8, 1, 4096, 11e-6, NCCL_RING, NCCL_LL, 0, 11 },
		{ OP_ALLREDUCE, 8, 1, 4096, 13e-6, NCCL_TREE, NCCL_LL128, 1, 11 },
		{ OP_ALLREDUCE, 8, 1, 16384, 20e-6, NCCL_RING, NCCL_LL, 0, 12 },
		{ OP_ALLREDUCE, 8, 1, 16384, 15e-6, NCCL_TREE, NCCL_LL128, 1, 12 },
	};
	struct tuner_range *r;
	struct errbuf eb;
	char line[256];

	INT_EQ(tuner_choose(p, 6, &r, &eb), 2);
	DBL_NEAR(r[0].min_B, 0, 0);
	DBL_NEAR(r[0].max_B, 8192, 0);
	INT_EQ(r[0].sizes, 2);
	DBL_NEAR(r[0].margin, 13.0 / 11.0, 1e-12);
	DBL_NEAR(r[1].min_B, 8193, 0);
	DBL_NEAR(r[1].max_B, 16384, 0);
	tuner_format(&r[1], line, sizeof(line));
	STR_EQ(line, "allreduce,8193,16384,tree,ll128,-1,1,8,-1,-1");
	INT_EQ(tuner_check_line(line, &eb), 1);
	free(r);
}

/* The example plugin's reading rules (plugins/tuner/example/plugin.c, loadConfig). */
void test_tuner_check_line_rules(void)
{
	struct errbuf eb;
	char longl[300];

	INT_EQ(tuner_check_line("# a comment", &eb), 0);
	INT_EQ(tuner_check_line("", &eb), 0);
	INT_EQ(tuner_check_line("allreduce,0,65536,tree,simple,2,1,-1,-1,1", &eb), 1);
	INT_EQ(tuner_check_line("allgather,0,4294967295,ring,simple,4,2,-1", &eb), 1);
	INT_EQ(tuner_check_line(" allreduce , 0 , 10 , ring , ll , -1 , -1 , -1", &eb), 1);
	CHECK(tuner_check_line("allreduce,0,10,ring,ll,-1,-1", &eb) < 0);         /* 7 fields */
	CHECK(tuner_check_line("alltoall,0,10,ring,ll,-1,-1,-1", &eb) < 0);
	CHECK(tuner_check_line("allreduce,0,10,nvlstree,ll,-1,-1,-1", &eb) < 0);  /* nvls_tree */
	CHECK(tuner_check_line("allreduce,0,10,ring,LL,-1,-1,-1", &eb) < 0);      /* case matters */
	CHECK(tuner_check_line("allreduce,20,10,ring,ll,-1,-1,-1", &eb) < 0);
	memset(longl, 'x', sizeof(longl) - 1);
	longl[sizeof(longl) - 1] = '\0';
	memcpy(longl, "allreduce,0,10,ring,ll,-1,-1,-1,", 32);
	CHECK(tuner_check_line(longl, &eb) < 0);
}

/* Every input of the fuzzer's corpus: read or refused with a message, never a crash. */
static void S_trace_one(const char *name, const char *path, const char *buf, size_t len,
		       void *arg)
{
	struct trace t;
	struct errbuf eb;
	int rc;

	trace_init(&t);
	eb.msg[0] = '\0';
	rc = trace_read_buffer(&t, name, buf, len, &eb);
	if (rc == 0)
		rc = trace_analyse(&t, -2, NULL, NULL, &eb);
	CHECK(rc == 0 || eb.msg[0] != '\0');
	trace_release(&t);
}

void test_trace_fuzz_corpus(void)
{
	CHECK(h_each_file("tests/fuzz/trace/corpus", S_trace_one, NULL) >= 4);
}
