/*
 * The nccl-tests log parser against the real logs and the variants of
 * tests/data/nccl (README.md there says how each was made).  Expected
 * values are read off the log text by eye.
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "measfile.h"
#include "model.h"
#include "nccl_model.h"
#include "ntests_text.h"

#define DATA "tests/data/nccl/"

/* Load a file; returns the status and leaves the message in eb. */
static int load(const char *path, struct meas *m, struct errbuf *eb)
{
	meas_init(m, path);
	eb->msg[0] = '\0';
	return meas_load_file(path, m, eb);
}

void test_nccllog_a100(void)
{
	struct meas m;
	struct errbuf eb;

	INT_EQ(load(DATA "a100-x8-nvswitch.txt", &m, &eb), 0);
	INT_EQ(m.n, 25);
	INT_EQ(m.op, OP_ALLREDUCE);
	INT_EQ(m.ranks, 8);
	INT_EQ(m.from_log, 1);
	INT_EQ(m.gpus_per_thread, 8);   /* "# nThread 1 nGpus 8 ..." */
	STR_EQ(m.nccl_version, "2.29.3");   /* "nccl-library=22903" */
	DBL_NEAR(m.rows[0].size, 8, 0);
	DBL_NEAR(m.rows[0].time, 58.00e-6, 1e-12);
	DBL_NEAR(m.rows[0].time_ip, 54.80e-6, 1e-12);
	DBL_NEAR(m.rows[24].size, 134217728, 0);
	DBL_NEAR(m.rows[24].time, 1402.03e-6, 1e-12);
	DBL_NEAR(m.rows[24].algbw, 95.73e9, 1e-12);
	DBL_NEAR(m.rows[24].busbw, 167.53e9, 1e-12);
	DBL_NEAR(m.rows[24].busbw_ip, 168.21e9, 1e-12);
	/* The first row is line 29 of the file (11 lines of source notes first). */
	INT_EQ(m.rows[0].line, 29);
	meas_release(&m);
}

void test_nccllog_l40s_and_old_layout_agree(void)
{
	struct meas a, b;
	struct errbuf eb;
	size_t i;

	INT_EQ(load(DATA "l40s-x4-pcie-ring.txt", &a, &eb), 0);
	INT_EQ(load(DATA "l40s-old-layout.txt", &b, &eb), 0);
	INT_EQ(a.ranks, 4);
	INT_EQ(b.ranks, 4);
	INT_EQ(a.op, OP_ALLREDUCE);
	/* old builds do not name the collective: told from redop and busbw/algbw */
	INT_EQ(b.op, OP_ALLREDUCE);
	INT_EQ(b.op_inferred, 1);
	INT_EQ(a.op_inferred, 0);
	INT_EQ(a.n, b.n);
	for (i = 0; i < a.n && i < b.n; i++) {
		DBL_NEAR(b.rows[i].size, a.rows[i].size, 0);
		DBL_NEAR(b.rows[i].time, a.rows[i].time, 0);
		DBL_NEAR(b.rows[i].busbw, a.rows[i].busbw, 0);
		DBL_NEAR(b.rows[i].time_ip, a.rows[i].time_ip, 0);
	}
	DBL_NEAR(a.rows[24].time, 13060.7e-6, 1e-12);
	meas_release(&a);
	meas_release(&b);
}

void test_nccllog_srun_label_info_lines(void)
{
	struct meas a, b;
	struct errbuf eb;
	size_t i;

	INT_EQ(load(DATA "a100-x8-nvswitch.txt", &a, &eb), 0);
	INT_EQ(load(DATA "a100-srun-label.txt", &b, &eb), 0);
	INT_EQ(b.n, 25);
	INT_EQ(b.ranks, 8);
	INT_EQ(b.op, OP_ALLREDUCE);
	for (i = 0; i < a.n && i < b.n; i++)
		DBL_NEAR(b.rows[i].time, a.rows[i].time, 0);
	meas_release(&a);
	meas_release(&b);
}

void test_nccllog_synthetic_layouts(void)
{
	static const struct { const char *file; int op; unsigned long ranks; } f[] = {
		{ DATA "ag-x4-synthetic.txt", OP_ALLGATHER, 4 },
		{ DATA "rs-x8-old-synthetic.txt", OP_REDUCESCATTER, 8 },
		{ DATA "a2a-x8-extracol-synthetic.txt", OP_ALLTOALL, 8 },
		{ DATA "bcast-x4-noheader-synthetic.txt", OP_BROADCAST, 4 },
	};
	size_t i;

	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		struct meas m;
		struct errbuf eb;

		INT_EQ(load(f[i].file, &m, &eb), 0);
		INT_EQ(m.op, f[i].op);
		INT_EQ(m.ranks, f[i].ranks);
		INT_EQ(m.n, 18);    /* 1 KiB to 128 MiB by 2 */
		DBL_NEAR(m.rows[0].size, 1024, 0);
		DBL_NEAR(m.rows[17].size, 134217728, 0);
		meas_release(&m);
	}
}

void test_nccllog_synthetic_values(void)
{
	struct meas m;
	struct errbuf eb;

	/* all_gather 4 ranks, α 2 µs, β 16 GB/s: 3(2 + 1024/64000) µs = 6.048 → "6.05". */
	INT_EQ(load(DATA "ag-x4-synthetic.txt", &m, &eb), 0);
	DBL_NEAR(m.rows[0].time, 6.05e-6, 1e-12);
	/* alltoall, extra column after the in-place #wrong: still the right fields. */
	meas_release(&m);
	INT_EQ(load(DATA "a2a-x8-extracol-synthetic.txt", &m, &eb), 0);
	/* 7(3 + 134217728/400000) µs = 2369.81 µs */
	DBL_NEAR(m.rows[17].time, 2369.81e-6, 1e-12);
	DBL_NEAR(m.rows[17].busbw_ip, 49.56e9, 1e-12);
	meas_release(&m);
}

/* Parse text given inline. */
static int parse(const char *text, struct meas *m, struct errbuf *eb)
{
	meas_init(m, "t.log");
	eb->msg[0] = '\0';
	return nccllog_parse(text, strlen(text), "t.log", m, eb);
}

void test_nccllog_inline_variants(void)
{
	struct meas m;
	struct errbuf eb;

	/* CRLF line ends, tabs, and a label with a tab. */
	INT_EQ(parse("# Collective test starting: all_gather_perf\r\n"
		     "#  Rank  0 Group  0 Pid 1 on h device 0 [0] X\r\n"
		     "#  Rank  1 Group  0 Pid 1 on h device 1 [0] X\r\n"
		     "#  Rank  1 Group  0 Pid 1 on h device 1 [0] X\r\n"
		     "1:\t  1024\t128 float none -1 10.5 0.1 0.05 0 10.4 0.1 0.05 0\r\n",
		     &m, &eb), 0);
	INT_EQ(m.n, 1);
	INT_EQ(m.ranks, 2);      /* distinct rank numbers */
	INT_EQ(m.op, OP_ALLGATHER);
	DBL_NEAR(m.rows[0].time, 10.5e-6, 1e-12);
	meas_release(&m);

	/* A time written with an exponent. */
	INT_EQ(parse("8 2 float sum -1 1.5e+01 0 0 0 15 0 0 0\n", &m, &eb), 0);
	DBL_NEAR(m.rows[0].time, 15e-6, 1e-12);
	meas_release(&m);

	/* An unknown test leaves the collective unknown. */
	INT_EQ(parse("# Collective test starting: hypercube_perf\n"
		     "8 2 float sum -1 15 0 0 0 15 0 0 0\n", &m, &eb), 0);
	INT_EQ(m.op, -1);
	meas_release(&m);
}

/* Each bad file fails with a message naming the file and (where there is one) the line. */
void test_nccllog_bad_files(void)
{
	static const struct { const char *file; const char *msg; } f[] = {
		{ DATA "bad-truncated.txt", "bad-truncated.txt:32: data row has 11 fields" },
		{ DATA "bad-nan.txt", "bad-nan.txt:36: time 'nan' is not a number" },
		{ DATA "bad-zero-time.txt", "bad-zero-time.txt:36: time '0.00' is not positive" },
		{ DATA "bad-decreasing.txt", "bad-decreasing.txt:37: size 16384 is smaller" },
		{ DATA "bad-duplicate.txt", "bad-duplicate.txt:37: size 16384 appears twice" },
		{ DATA "bad-binary.bin", "bad-binary.bin:1: binary data" },
		{ DATA "bad-empty.txt", "bad-empty.txt: no data rows found" },
		{ DATA "bad-no-rows.txt", "bad-no-rows.txt: no data rows found" },
		{ DATA "bad-two-tests.txt", "a second test starts here" },
		{ DATA "no-such-file.txt", "cannot open 'tests/data/nccl/no-such-file.txt'" },
	};
	size_t i;

	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		struct meas m;
		struct errbuf eb;

		INT_EQ(load(f[i].file, &m, &eb), -1);
		if (!strstr(eb.msg, f[i].msg))
			STR_EQ(eb.msg, f[i].msg);
		else
			CHECK(1);
		meas_release(&m);
	}
}

void test_nccllog_long_line(void)
{
	size_t n = NCCLLOG_LINE_MAX + 10;
	char *buf = malloc(n + 1);
	struct meas m;
	struct errbuf eb;

	memset(buf, 'x', n);
	buf[n] = '\0';
	meas_init(&m, "long");
	INT_EQ(nccllog_parse(buf, n, "long", &m, &eb), -1);
	CHECK(strstr(eb.msg, "long:1: line longer than") != NULL);
	meas_release(&m);
	free(buf);
}

/*
 * The JSON of nccl-tests -J says how many GPUs one thread drove in
 * config.ngpus, as the text log's "# nThread 1 nGpus 4" line does; a log
 * of one process per GPU says 1.
 */
void test_nccllog_gpus_per_thread(void)
{
	struct meas m;
	struct errbuf eb;

	INT_EQ(load(DATA "l40s-x4.json", &m, &eb), 0);
	INT_EQ(m.gpus_per_thread, 4);
	INT_EQ(m.ranks, 4);
	STR_EQ(m.nccl_version, "2.29.2");   /* "nccl_version":22902 */
	meas_release(&m);
	INT_EQ(load(DATA "l40s-x4-pcie-ring.txt", &m, &eb), 0);
	INT_EQ(m.gpus_per_thread, 4);
	meas_release(&m);
	INT_EQ(load(DATA "h100-x16-ndr-xe9680.txt", &m, &eb), 0);
	INT_EQ(m.gpus_per_thread, 1);
	STR_EQ(m.nccl_version, "2.26.2");   /* "NCCL version 2.26.2+cuda12.8" */
	meas_release(&m);
	INT_EQ(load(DATA "h100-x16-ndr-ring.txt", &m, &eb), 0);
	STR_EQ(m.nccl_version, "");         /* not said */
	meas_release(&m);
}

/*
 * NCCL's TUNING lines in the three forms its enqueue.cc has printed:
 * "N Bytes -> Algo 0 proto 0 time T" (indices, up to 2.22, here after
 * mpirun's "[0] " tag as in NVIDIA/nccl issue #1453), the same after
 * "AllGather: " (2.23), and names from 2.24 on ("Tree", "RING",
 * "NVLS_TREE", "SIMPLE").  Lines it cannot read are skipped, never fatal.
 */
void test_nccllog_tuning_lines(void)
{
	static const char text[] =
		"# Collective test starting: all_reduce_perf\n"
		"#  Rank  0 Group  0 Pid 1 on h device  0 [0x07] GPU\n"
		"#  Rank  1 Group  0 Pid 2 on h device  1 [0x08] GPU\n"
		"[0] h100-1:497888:497888 [0] NCCL INFO 256 Bytes -> Algo 0 proto 0 time 25.229528\n"
		"[0] h100-1:497888:497888 [0] NCCL INFO 256 Bytes -> Algo 0 proto 0 time 25.229528\n"
		"h:1:1 [0] NCCL INFO AllGather: 37756928 Bytes -> Algo 1 proto 2 time 2860.208008\n"
		"h:1:1 [0] NCCL INFO AllReduce: 4096 Bytes -> Algo Tree proto LL channel{Lo..Hi}={0..1}\n"
		"h:1:1 [0] NCCL INFO AllReduce: 4096 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..1}\n"
		"h:1:1 [0] NCCL INFO AllReduce: 8388608 Bytes -> Algo NVLS_TREE proto SIMPLE channel{Lo..Hi}={0..15}\n"
		/* one rank's 1024 B of an all-gather on 2 ranks: size 2048 */
		"h:1:1 [0] NCCL INFO AllGather: 1024 Bytes -> Algo Ring proto Simple channel{Lo..Hi}={0..3}\n"
		/* skipped: an index out of range, an unknown protocol, no protocol,
		 * a function NCCL does not tune, a size of 20 digits */
		"h:1:1 [0] NCCL INFO AllReduce: 512 Bytes -> Algo 9 proto 0 time 1.0\n"
		"h:1:1 [0] NCCL INFO AllReduce: 1024 Bytes -> Algo Ring proto LL64 channel{Lo..Hi}={0..1}\n"
		"h:1:1 [0] NCCL INFO AllReduce: 2048 Bytes -> Algo Ring\n"
		"h:1:1 [0] NCCL INFO Send: 2048 Bytes -> Algo 1 proto 2 time 1.0\n"
		"h:1:1 [0] NCCL INFO 12345678901234567890 Bytes -> Algo 1 proto 2 time 1.0\n"
		"           8             2     float     sum      -1    10.00    0.00    0.00      0"
		"    10.00    0.00    0.00      0\n";
	const struct meas_tuned *t;
	struct meas m;
	struct errbuf eb;

	INT_EQ(parse(text, &m, &eb), 0);
	INT_EQ(m.n, 1);
	INT_EQ(m.ntuned, 5);
	t = meas_tuned_find(&m, OP_ALLREDUCE, 256);     /* no function: any collective */
	CHECK(t != NULL);
	if (t) {
		INT_EQ(t->op, -1);
		INT_EQ(t->algo, NCCL_TREE);
		INT_EQ(t->proto, NCCL_LL);
		INT_EQ(t->line, 4);
		INT_EQ(t->mixed, 0);                    /* the same choice twice */
	}
	t = meas_tuned_find(&m, OP_ALLGATHER, 37756928);
	CHECK(t && t->op == OP_ALLGATHER && t->algo == NCCL_RING && t->proto == NCCL_SIMPLE);
	CHECK(meas_tuned_find(&m, OP_ALLREDUCE, 37756928) == NULL);   /* another collective's */
	t = meas_tuned_find(&m, OP_ALLGATHER, 2048);
	CHECK(t && t->algo == NCCL_RING && t->proto == NCCL_SIMPLE && t->per_rank == 0);
	CHECK(meas_tuned_find(&m, OP_ALLGATHER, 1024) == NULL);
	t = meas_tuned_find(&m, OP_ALLREDUCE, 4096);
	CHECK(t && t->algo == NCCL_TREE && t->proto == NCCL_LL && t->mixed == 1);
	t = meas_tuned_find(&m, OP_ALLREDUCE, 8388608);
	CHECK(t && t->algo == NCCL_NVLS_TREE && t->proto == NCCL_SIMPLE);
	CHECK(meas_tuned_find(&m, OP_ALLREDUCE, 512) == NULL);
	CHECK(meas_tuned_find(&m, OP_ALLREDUCE, 1024) == NULL);
	CHECK(meas_tuned_find(&m, OP_ALLREDUCE, 2048) == NULL);
	meas_release(&m);
}

/*
 * Rows split by NCCL's own lines (NCCL_DEBUG=INFO writes to nccl-tests'
 * stdout between the three pieces of a row): put back together whether
 * the piece is glued to the host name ("-1modal:1:1") or to mpirun's
 * "[0] " tag, and read as the unsplit row; a split row the log ends in,
 * or one a comment interrupts, is an incomplete row and an error.
 */
void test_nccllog_split_rows(void)
{
	static const char head[] =
		"# Collective test starting: all_reduce_perf\n"
		"#  Rank  0 Group  0 Pid 1 on h device  0 [0x07] GPU\n"
		"#  Rank  1 Group  0 Pid 2 on h device  1 [0x08] GPU\n"
		"#       size         count      type   redop    root     time   algbw   busbw"
		"  #wrong     time   algbw   busbw  #wrong\n";
	char text[2048];
	struct meas m;
	struct errbuf eb;

	snprintf(text, sizeof(text), "%s%s", head,
		 "          16             4     float     sum      -1modal:1:1 [0] NCCL INFO "
		 "AllReduce: 16 Bytes -> Algo Ring proto LL channel{Lo..Hi}={0..1}\n"
		 "modal:1:1 [0] NCCL INFO AllReduce: 16 Bytes -> Algo Ring proto LL channel{Lo..Hi}={0..1}\n"
		 "    54.74    0.00    0.00       0modal:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM\n"
		 "    54.73    0.00    0.00       0\n"
		 "[0]          512           128     float     sum      -1[0] h:1:1 [0] NCCL INFO "
		 "512 Bytes -> Algo 0 proto 0 time 25.259054\n"
		 "[0]     62.05    0.00    0.01    N/Ah:1:1 [0] NCCL WARN something\n"
		 "[0]     61.05    0.00    0.01    N/A\n");
	INT_EQ(parse(text, &m, &eb), 0);
	INT_EQ(m.n, 2);
	if (m.n == 2) {
		DBL_NEAR(m.rows[0].size, 16, 0);
		DBL_NEAR(m.rows[0].time, 54.74e-6, 1e-12);
		DBL_NEAR(m.rows[0].time_ip, 54.73e-6, 1e-12);
		DBL_NEAR(m.rows[1].size, 512, 0);
		DBL_NEAR(m.rows[1].time, 62.05e-6, 1e-12);
		DBL_NEAR(m.rows[1].time_ip, 61.05e-6, 1e-12);
		DBL_NEAR(m.rows[1].busbw_ip, 0.01e9, 1);
	}
	INT_EQ(m.ranks, 2);
	INT_EQ(m.ntuned, 2);
	meas_release(&m);

	/* The log ends inside a split row; a comment where its last piece
	 * should be.  Both are the incomplete row, at the line it ends on. */
	{
		static const char *const tails[][2] = {
			{ "          16             4     float     sum      -1modal:1:1 [0] NCCL INFO x\n",
			  "t.log:5: data row has 5 fields" },
			{ "          16             4     float     sum      -1modal:1:1 [0] NCCL INFO x\n"
			  "# Out of bounds values : 0 OK\n", "t.log:6: data row has 5 fields" },
		};
		for (size_t i = 0; i < sizeof(tails) / sizeof(tails[0]); i++) {
			snprintf(text, sizeof(text), "%s%s", head, tails[i][0]);
			INT_EQ(parse(text, &m, &eb), -1);
			CHECK(strstr(eb.msg, tails[i][1]) != NULL);
			meas_release(&m);
		}
	}

	/* Text before NCCL's lines that is no piece of a row (a time stamp)
	 * joins nothing; a launcher's "[0]" glued to a piece is cut off. */
	snprintf(text, sizeof(text), "%s%s", head,
		 "[2024-05-01 10:00:01] h:1:1 [0] NCCL INFO Bootstrap : Using eth0\n"
		 "[2024-05-01 10:00:01] h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM\n"
		 "          16             4     float     sum      -1    54.74    0.00    0.00"
		 "       0    54.73    0.00    0.00       0\n"
		 "[0]          32             8     float     sum      -1[0] h:1:1 [0] NCCL INFO x\n"
		 "[0]     55.00    0.00    0.00       0[0] h:1:1 [0] NCCL INFO y\n"
		 "[0]     56.00    0.00    0.00       0\n");
	INT_EQ(parse(text, &m, &eb), 0);
	INT_EQ(m.n, 2);
	if (m.n == 2) {
		DBL_NEAR(m.rows[1].size, 32, 0);
		DBL_NEAR(m.rows[1].time, 55.00e-6, 1e-12);
		DBL_NEAR(m.rows[1].time_ip, 56.00e-6, 1e-12);
	}
	meas_release(&m);

	/* A plain NCCL line whose host name starts with digits starts no row. */
	snprintf(text, sizeof(text), "%s%s", head,
		 "10-0-0-1:12:34 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM\n"
		 "          16             4     float     sum      -1    54.74    0.00    0.00"
		 "       0    54.73    0.00    0.00       0\n");
	INT_EQ(parse(text, &m, &eb), 0);
	INT_EQ(m.n, 1);
	meas_release(&m);
}

/*
 * NCCL's tuning table as NCCL 2.29.7 printed it for a broadcast run
 * (rtx5090-bcast-tuning.txt, read off the log by eye): three blocks of
 * up to three algorithms, a "latency/bandwidth" cell per protocol; the
 * PAT block's protocol line has nine cells for one algorithm.
 */
void test_nccllog_tuning_table(void)
{
	static const char second[] =
		"# Collective test starting: broadcast_perf\n"
		"#  Rank  0 Group  0 Pid 1 on h device  0 [0x07] GPU\n"
		"h:1:1 [0] NCCL INFO   Algorithm   |      Tree     |      Ring      |  CollNetDirect |\n"
		"h:1:1 [0] NCCL INFO     Broadcast |     1.0/   2.0 |     3.0/   4.0 |\n"
		"h:1:1 [0] NCCL INFO   Algorithm   |      Bogus    |\n"
		"h:1:1 [0] NCCL INFO     AllReduce |     7.0/   7.0 |\n"
		"h:1:1 [0] NCCL INFO   Algorithm   |      Tree     |\n"
		"h:1:1 [0] NCCL INFO     Broadcast |     9.0/   9.0 |     9.0/   9.0 |\n"
		"        1024           256     float    none       0  2239.78    0.00    0.00       0"
		"  2233.58    0.00    0.00       0\n";
	const struct meas_ncclt *t;
	struct meas m;
	struct errbuf eb;

	INT_EQ(load(DATA "rtx5090-bcast-tuning.txt", &m, &eb), 0);
	t = &m.ncclt;
	INT_EQ(t->have, 1);
	INT_EQ(t->line, 40);
	DBL_NEAR(t->lat[NCCL_BROADCAST][NCCL_RING][NCCL_LL], 9.3, 0);
	DBL_NEAR(t->bw[NCCL_BROADCAST][NCCL_RING][NCCL_LL], 1.2, 0);
	DBL_NEAR(t->lat[NCCL_BROADCAST][NCCL_RING][NCCL_SIMPLE], 22.4, 0);
	DBL_NEAR(t->bw[NCCL_BROADCAST][NCCL_RING][NCCL_SIMPLE], 2.4, 0);
	DBL_NEAR(t->lat[NCCL_ALLREDUCE][NCCL_TREE][NCCL_SIMPLE], 36.4, 0);
	DBL_NEAR(t->bw[NCCL_ALLREDUCE][NCCL_TREE][NCCL_SIMPLE], 1.9, 0);
	DBL_NEAR(t->lat[NCCL_ALLREDUCE][NCCL_COLLNET_CHAIN][NCCL_SIMPLE], 14.0, 0);
	DBL_NEAR(t->lat[NCCL_ALLGATHER][NCCL_PAT][NCCL_SIMPLE], 17.6, 0);
	DBL_NEAR(t->bw[NCCL_ALLGATHER][NCCL_PAT][NCCL_SIMPLE], 3.6, 0);
	INT_EQ(t->seen[NCCL_ALLREDUCE][NCCL_NVLS_TREE][NCCL_LL128], 1);
	/* and the TUNING lines after it, in 2.29's upper case */
	CHECK(meas_tuned_find(&m, OP_BROADCAST, 16384) != NULL &&
	      meas_tuned_find(&m, OP_BROADCAST, 16384)->proto == NCCL_LL);
	CHECK(meas_tuned_find(&m, OP_BROADCAST, 32768) != NULL &&
	      meas_tuned_find(&m, OP_BROADCAST, 32768)->proto == NCCL_SIMPLE);
	meas_release(&m);

	/* An unknown algorithm ends the block (its rows are not read); a
	 * table that starts again from Tree is a later communicator's: the
	 * first stays. */
	INT_EQ(parse(second, &m, &eb), 0);
	t = &m.ncclt;
	INT_EQ(t->have, 1);
	DBL_NEAR(t->lat[NCCL_BROADCAST][NCCL_TREE][NCCL_LL], 1.0, 0);
	DBL_NEAR(t->bw[NCCL_BROADCAST][NCCL_TREE][NCCL_LL128], 4.0, 0);
	INT_EQ(t->seen[NCCL_BROADCAST][NCCL_RING][NCCL_LL], 0);
	INT_EQ(t->seen[NCCL_ALLREDUCE][NCCL_TREE][NCCL_LL], 0);
	meas_release(&m);
}

/*
 * What the run restricted NCCL to, as NCCL says when it reads the
 * variables (tuning.cc) or as AWS's EFA plugin says when it sets
 * NCCL_PROTO; NCCL's own line wins, a value longer than NCCL_LIST_MAX is
 * not taken.
 */
void test_nccllog_env_lines(void)
{
	static const char text[] =
		"# Collective test starting: all_reduce_perf\n"
		"#  Rank  0 Group  0 Pid 1 on h device  0 [0x07] GPU\n"
		"h:1:1 [0] NCCL INFO NET/OFI Setting NCCL_PROTO to \"simple\"\n"
		"h:1:1 [0] NCCL INFO NCCL_ALGO set by environment to Ring,Tree\n"
		"           8             2     float     sum      -1    10.00    0.00    0.00      0"
		"    10.00    0.00    0.00      0\n";
	char text2[1024], longv[200];
	struct meas m;
	struct errbuf eb;

	INT_EQ(parse(text, &m, &eb), 0);
	STR_EQ(m.nccl_proto, "simple");
	STR_EQ(m.nccl_algo, "Ring,Tree");
	meas_release(&m);

	/* NCCL's line after the plugin's: NCCL's value is what it read */
	snprintf(text2, sizeof(text2), "%sh:1:1 [0] NCCL INFO NCCL_PROTO set by environment to "
		 "LL,Simple\n", text);
	INT_EQ(parse(text2, &m, &eb), 0);
	STR_EQ(m.nccl_proto, "LL,Simple");
	meas_release(&m);

	memset(longv, 'a', sizeof(longv) - 1);
	longv[sizeof(longv) - 1] = '\0';
	snprintf(text2, sizeof(text2), "# Collective test starting: all_reduce_perf\n"
		 "h:1:1 [0] NCCL INFO NCCL_ALGO set by environment to %s\n"
		 "           8             2     float     sum      -1    10.00    0.00    0.00"
		 "      0    10.00    0.00    0.00      0\n", longv);
	INT_EQ(parse(text2, &m, &eb), 0);
	STR_EQ(m.nccl_algo, "");
	meas_release(&m);
}

/*
 * Open MPI's --tag-output puts "[job,rank]<stdout>:" before every line; it
 * is removed as srun's "0: " is, and a bracket that is no tag stays.
 */
void test_nccllog_openmpi_tag(void)
{
	static const char text[] =
		"[1,0]<stdout>:# Collective test starting: all_reduce_perf\n"
		"[1,0]<stdout>:#  Rank  0 Group  0 Pid 1 on h device  0 [0x07] GPU\n"
		"[1,0]<stdout>:#  Rank  1 Group  0 Pid 2 on h device  1 [0x08] GPU\n"
		"[1,1]<stderr>:h:2:2 [1] NCCL INFO NCCL_PROTO set by environment to Simple\n"
		"[1,0]<stdout>:           8             2     float     sum      -1    10.00    0.00"
		"    0.00      0    11.00    0.00    0.00      0\n"
		"[1,0]x:          16             4     float     sum      -1    10.00    0.00"
		"    0.00      0    11.00    0.00    0.00      0\n";
	struct meas m;
	struct errbuf eb;

	INT_EQ(parse(text, &m, &eb), 0);
	INT_EQ(m.n, 1);            /* "[1,0]x:" is no tag: that line is no row */
	INT_EQ(m.ranks, 2);
	INT_EQ(m.op, OP_ALLREDUCE);
	STR_EQ(m.nccl_proto, "Simple");
	if (m.n == 1)
		DBL_NEAR(m.rows[0].time_ip, 11.00e-6, 1e-12);
	meas_release(&m);
}

/*
 * A log without "Collective test starting" is all_reduce_perf's only when
 * every row says redop "sum" and busbw/algbw = 2(n-1)/n: on 4 ranks 1.5
 * (all_reduce), not 0.75 (reduce_scatter, also "sum"), and never on 2
 * ranks, where reduce has the same factor 1.
 */
static int infer(const char *ranks_lines, const char *rows, struct meas *m)
{
	char buf[2048];
	struct errbuf eb;

	snprintf(buf, sizeof(buf), "# Using devices\n%s#  size  count type redop root "
		 "time algbw busbw #wrong time algbw busbw #wrong\n%s", ranks_lines, rows);
	meas_init(m, "x");
	return nccllog_parse(buf, strlen(buf), "x", m, &eb);
}

void test_nccllog_infers_allreduce(void)
{
	const char *four = "#  Rank  0 Pid 1 on a device 0\n#  Rank  1 Pid 1 on a device 1\n"
			   "#  Rank  2 Pid 1 on a device 2\n#  Rank  3 Pid 1 on a device 3\n";
	const char *two = "#  Rank  0 Pid 1 on a device 0\n#  Rank  1 Pid 1 on a device 1\n";
	struct meas m;

	/* 1 GiB in 10 ms: algbw 107.37 GB/s; all-reduce busbw x1.5 */
	INT_EQ(infer(four, "1073741824 268435456 float sum -1 10000 107.37 161.06 0 "
		     "10000 107.37 161.06 0\n", &m), 0);
	INT_EQ(m.op, OP_ALLREDUCE);
	INT_EQ(m.op_inferred, 1);
	meas_release(&m);
	/* the same row with reduce_scatter's factor 0.75 */
	INT_EQ(infer(four, "1073741824 268435456 float sum -1 10000 107.37 80.53 0 "
		     "10000 107.37 80.53 0\n", &m), 0);
	INT_EQ(m.op, -1);
	INT_EQ(m.op_inferred, 0);
	meas_release(&m);
	/* rows that do not reduce with "sum" (redop "none") */
	INT_EQ(infer(four, "1073741824 268435456 float none -1 10000 107.37 161.06 0 "
		     "10000 107.37 161.06 0\n", &m), 0);
	INT_EQ(m.op, -1);
	meas_release(&m);
	/* two ranks: factor 1, as reduce's */
	INT_EQ(infer(two, "1073741824 268435456 float sum -1 10000 107.37 107.37 0 "
		     "10000 107.37 107.37 0\n", &m), 0);
	INT_EQ(m.op, -1);
	meas_release(&m);
}
