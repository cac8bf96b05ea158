/*
 * The CSV reader and the checks of meas_select.
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "measfile.h"
#include "ntests_text.h"
#include "model.h"

#define DATA "tests/data/nccl/"

static int csv(const char *text, struct meas *m, struct errbuf *eb)
{
	meas_init(m, "t.csv");
	eb->msg[0] = '\0';
	return meas_parse_csv(text, strlen(text), "t.csv", m, eb);
}

void test_measure_csv_units(void)
{
	struct meas m;
	struct errbuf eb;

	INT_EQ(csv("size_B,time_s\n1024,2.5e-05\n2048,3e-5\n", &m, &eb), 0);
	INT_EQ(m.n, 2);
	DBL_NEAR(m.rows[1].size, 2048, 0);
	DBL_NEAR(m.rows[1].time, 3e-5, 0);
	INT_EQ(m.rows[1].line, 3);
	meas_release(&m);

	/* Units in the header; columns in any order; unknown ones ignored. */
	INT_EQ(csv("note,Time_us,size_KiB\n\"a, b\",17.29,4\n", &m, &eb), 0);
	DBL_NEAR(m.rows[0].size, 4096, 0);
	DBL_NEAR(m.rows[0].time, 17.29e-6, 0);    /* read as "17.29e-6": exact */
	meas_release(&m);

	INT_EQ(csv("size_MB,time_ms\n1.5,2\n", &m, &eb), 0);
	DBL_NEAR(m.rows[0].size, 1.5e6, 0);
	DBL_NEAR(m.rows[0].time, 2e-3, 0);
	meas_release(&m);
}

void test_measure_csv_ranks_op(void)
{
	struct meas m;
	struct errbuf eb;

	INT_EQ(csv("size,time,ranks,op\n8,1e-5,4,all_reduce\n16,1e-5,4,allreduce\n", &m, &eb), 0);
	INT_EQ(meas_select(&m, OP_COUNT, 0, &eb), 0);
	INT_EQ(m.op, OP_ALLREDUCE);
	INT_EQ(m.ranks, 4);
	meas_release(&m);
}

void test_measure_select_mixed(void)
{
	struct meas m;
	struct errbuf eb;

	meas_init(&m, DATA "mixed-ranks.csv");
	INT_EQ(meas_load_file(DATA "mixed-ranks.csv", &m, &eb), 0);
	INT_EQ(meas_select(&m, OP_ALLREDUCE, 0, &eb), -1);
	CHECK(strstr(eb.msg, "mixed-ranks.csv:4: rows of several rank counts") != NULL);
	meas_release(&m);

	meas_init(&m, DATA "mixed-ranks.csv");
	INT_EQ(meas_load_file(DATA "mixed-ranks.csv", &m, &eb), 0);
	INT_EQ(meas_select(&m, OP_ALLREDUCE, 8, &eb), 0);
	INT_EQ(m.n, 2);
	DBL_NEAR(m.rows[0].time, 2e-5, 0);
	INT_EQ(m.ranks, 8);
	meas_release(&m);

	meas_init(&m, DATA "mixed-ranks.csv");
	INT_EQ(meas_load_file(DATA "mixed-ranks.csv", &m, &eb), 0);
	INT_EQ(meas_select(&m, OP_COUNT, 16, &eb), -1);
	STR_EQ(eb.msg, "tests/data/nccl/mixed-ranks.csv: no rows for 16 ranks");
	meas_release(&m);
}

/* A log's own rank count gives way to --ranks. */
void test_measure_select_log_override(void)
{
	struct meas m;
	struct errbuf eb;

	meas_init(&m, DATA "l40s-old-layout.txt");
	INT_EQ(meas_load_file(DATA "l40s-old-layout.txt", &m, &eb), 0);
	INT_EQ(meas_select(&m, OP_ALLREDUCE, 16, &eb), 0);
	INT_EQ(m.ranks, 16);
	INT_EQ(m.op, OP_ALLREDUCE);
	INT_EQ(m.n, 25);
	meas_release(&m);
}

void test_measure_csv_plan_rows(void)
{
	struct meas m;
	struct errbuf eb;

	/* Only the busbw rows of a plan are points of a curve. */
	INT_EQ(csv("check,run,op,ranks,algo,size_B,expected_time_s,note\n"
		   "busbw,x,all_reduce,8,ring,8,7e-5,\n"
		   "crossover,x,all_reduce,8,ring/dbtree,3.2e7,3.5e-4,n\n"
		   "busbw,x,all_reduce,8,dbtree,8,3e-5,\n", &m, &eb), 0);
	INT_EQ(m.n, 2);
	INT_EQ(m.rows[0].algo, ALGO_RING);
	INT_EQ(m.rows[1].algo, ALGO_DBTREE);
	DBL_NEAR(m.rows[1].time, 3e-5, 0);
	meas_release(&m);
}

void test_measure_csv_bad(void)
{
	static const struct { const char *file; const char *msg; } f[] = {
		{ DATA "bad-nan.csv", "bad-nan.csv:3: time 'nan' is not a number" },
		{ DATA "bad-nocol.csv", "bad-nocol.csv:1: the header needs a size column" },
		{ DATA "bad-neg.csv", "bad-neg.csv:2: time '-1e-5' is not positive" },
		{ DATA "bad-quote.csv", "bad-quote.csv:2: malformed CSV" },
	};
	size_t i;

	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		struct meas m;
		struct errbuf eb;

		meas_init(&m, f[i].file);
		eb.msg[0] = '\0';
		INT_EQ(meas_load_file(f[i].file, &m, &eb), -1);
		if (!strstr(eb.msg, f[i].msg))
			STR_EQ(eb.msg, f[i].msg);
		else
			CHECK(1);
		meas_release(&m);
	}
	{
		struct meas m;
		struct errbuf eb;

		meas_init(&m, DATA "bad-dup.csv");
		INT_EQ(meas_load_file(DATA "bad-dup.csv", &m, &eb), 0);
		INT_EQ(meas_select(&m, OP_COUNT, 0, &eb), -1);
		STR_EQ(eb.msg, "tests/data/nccl/bad-dup.csv:3: size 1024 appears twice (also on line 2)");
		meas_release(&m);
	}
}

void test_measure_csv_edge(void)
{
	struct meas m;
	struct errbuf eb;

	INT_EQ(csv("", &m, &eb), -1);
	STR_EQ(eb.msg, "t.csv: empty file; expected a CSV header and rows");
	meas_release(&m);
	INT_EQ(csv("size_B,time_s\n", &m, &eb), -1);
	STR_EQ(eb.msg, "t.csv: no data rows after the header");
	meas_release(&m);
	INT_EQ(csv("size_B,time_s\n8\n", &m, &eb), -1);
	STR_EQ(eb.msg, "t.csv:2: row has 1 fields, the header 2");
	meas_release(&m);
	INT_EQ(csv("size_B,time_s,size\n8,1,2\n", &m, &eb), -1);
	STR_EQ(eb.msg, "t.csv:1: two size columns ('size')");
	meas_release(&m);
	/* No newline at the end of the last row: the file may be cut short
	 * ("8,1e-5" of "8,1e-54"), so it is refused. */
	INT_EQ(csv("size_B,time_s\n8,1e-5", &m, &eb), -1);
	STR_EQ(eb.msg, "t.csv:2: the file ends inside this row (no line break after it): "
	       "cut short?");
	meas_release(&m);
	/* A header alone without one is still a header. */
	INT_EQ(csv("size_B,time_s", &m, &eb), -1);
	STR_EQ(eb.msg, "t.csv: no data rows after the header");
	meas_release(&m);
	/* Overflowing numbers, sizes that do not fit, short rows. */
	INT_EQ(csv("size_B,time_us\n8,1e309\n", &m, &eb), -1);
	STR_EQ(eb.msg, "t.csv:2: time '1e309' is out of range (past the largest double)");
	meas_release(&m);
	INT_EQ(csv("size_B,time_s\n12345678901234567890123,1e-5\n", &m, &eb), -1);
	STR_EQ(eb.msg, "t.csv:2: size '12345678901234567890123' does not fit: 1e18 bytes or more");
	meas_release(&m);
	INT_EQ(csv("size_B,time_s,note\n8,1e-5\n", &m, &eb), -1);
	STR_EQ(eb.msg, "t.csv:2: row has 2 fields, the header 3 (truncated?)");
	meas_release(&m);
	INT_EQ(csv("size_B,time_s\n8,1e-5,4\n", &m, &eb), -1);
	STR_EQ(eb.msg, "t.csv:2: row has 3 fields, the header 2");
	meas_release(&m);
}

/* Every input of the CSV fuzz corpus reads cleanly or fails with a message. */

typedef int S_parse_fn(const char *buf, size_t len, const char *name, struct meas *m,
		       struct errbuf *eb);

/* One corpus file through a reader: rows on success, a message on failure. */
static void S_corpus_one(const char *name, const char *path, const char *buf, size_t len,
			 void *arg)
{
	struct meas m;
	struct errbuf eb;
	int rc;

	meas_init(&m, path);
	eb.msg[0] = '\0';
	rc = (*(S_parse_fn **)arg)(buf, len, name, &m, &eb);
	if (rc == 0)
		rc = meas_select(&m, OP_COUNT, 0, &eb);
	CHECK(rc == 0 || rc == -1);
	CHECK(rc == 0 ? m.n > 0 : eb.msg[0] != '\0');
	meas_release(&m);
}

void test_measure_fuzz_corpus(void)
{
	S_parse_fn *fn = meas_parse_csv;

	CHECK(h_each_file("tests/fuzz/csv/corpus", S_corpus_one, &fn) > 0);
}

/*
 * The nccl-tests log parser's corpus (tests/fuzz/nccllog/corpus, crash
 * inputs included once fixed): a clean success or a clean error.
 */
void test_nccllog_fuzz_corpus(void)
{
	S_parse_fn *fn = nccllog_parse;

	CHECK(h_each_file("tests/fuzz/nccllog/corpus", S_corpus_one, &fn) > 0);
}

/* A byte order mark before the header, as spreadsheets write it. */
void test_measure_csv_bom(void)
{
	const char *path = "tests/unit/bom.csv";
	FILE *f = fopen(path, "wb");
	struct meas m;
	struct errbuf eb;

	CHECK(f != NULL);
	if (!f)
		return;
	fputs("\xEF\xBB\xBFsize_B,time_s\r\n8,1e-5\r\n16,2e-5\r\n", f);
	fclose(f);
	meas_init(&m, path);
	INT_EQ(meas_load_file(path, &m, &eb), 0);
	INT_EQ(m.n, 2);
	DBL_NEAR(m.rows[1].time, 2e-5, 0);
	meas_release(&m);
	remove(path);
}
