/*
 * NCCL's tuning table from a log against the model's (src/nccl_table.c), on the
 * real NCCL 2.29.7 log of tests/data/nccl/rtx5090-bcast-tuning.txt and
 * the system written for it.  NCCL printed, for broadcast on 2 ranks,
 * Ring/LL 9.3 µs / 1.2 GB/s and Ring/Simple 22.4 µs / 2.4 GB/s; the
 * described machine (one socket NIC at 10 Gb/s: one channel at 1.2 GB/s)
 * gives the same latencies and half the bandwidths.  Two NICs give two
 * channels: NCCL's table.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "measfile.h"
#include "nccl_table.h"
#include "preset.h"

void test_ncclt_close(void)
{
	/* 5 % of NCCL's value plus the 0.05 its one decimal rounds away */
	CHECK(ncclt_close(10.55, 10.0));
	CHECK(ncclt_close(9.45, 10.0));
	CHECK(!ncclt_close(10.56, 10.0));
	CHECK(ncclt_close(0.05, 0.0));
	CHECK(!ncclt_close(0.06, 0.0));
}

void test_ncclt_rtx5090(void)
{
	struct preset_dirs d;
	struct system s;
	struct meas m;
	struct nccl_cost nc;
	struct cost_model cm;
	struct nccl_tune t;
	struct errbuf eb;
	struct group g = { .ranks = 2 };
	struct ncclt_variant v[3];
	struct ncclt_count c;
	char buf[16];
	int n;

	unsetenv("COMMTIME_PRESETS");
	preset_dirs_init(&d, NULL, NULL);
	meas_init(&m, "rtx5090-bcast-tuning.txt");
	INT_EQ(meas_load_file("tests/data/nccl/rtx5090-bcast-tuning.txt", &m, &eb), 0);
	INT_EQ(system_load(&d, "tests/data/nccl/systems/rtx5090-2rank-socket.preset", &s, &eb), 0);
	INT_EQ(nccl_cost_init(&nc, &cm, &s, ~0u, ~0u, &eb), 0);
	nccl_params_version("2.29.7", &nc.params, &eb);
	INT_EQ(nccl_cost_tune(&nc, &g, &t, &eb), 0);

	STR_EQ(ncclt_pair(&m.ncclt, &t, NCCL_BROADCAST, NCCL_RING, NCCL_LL, buf, sizeof(buf)), "bw");
	STR_EQ(ncclt_pair(&m.ncclt, &t, NCCL_BROADCAST, NCCL_RING, NCCL_SIMPLE, buf, sizeof(buf)),
	       "bw");
	/* LL128 is printed 18.0 / 0.0 and the model has none either: not compared */
	CHECK(ncclt_pair(&m.ncclt, &t, NCCL_BROADCAST, NCCL_RING, NCCL_LL128, buf, sizeof(buf)) ==
	      NULL);
	DBL_NEAR(t.lat[NCCL_BROADCAST][NCCL_RING][NCCL_LL], 9.3, 0.05);
	DBL_NEAR(t.bw[NCCL_BROADCAST][NCCL_RING][NCCL_SIMPLE], 1.2, 1e-9);
	c = ncclt_compare(&m.ncclt, &t, NCCL_BROADCAST);
	INT_EQ(c.pairs, 2);
	INT_EQ(c.agree, 0);

	/* The rule on NCCL's table: at 16 KiB Ring/LL 9.3 + 16384 B / 1.2 GB/s
	 * = 22.95 us beats Simple 22.4 + 16384 B / 2.4 GB/s = 29.23 us; at
	 * 64 KiB Simple (49.71 us) beats LL (63.91 us).  The model's own
	 * table (half the bandwidths) already picks Simple at 16 KiB. */
	{
		struct nccl_tune nt;
		struct nccl_choice ch;

		ncclt_as_model(&m.ncclt, &t, NCCL_BROADCAST, &nt);
		INT_EQ(nccl_rank(&nt, &nc.params, NCCL_BROADCAST, 16384, &ch, 1), 1);
		CHECK(ch.algo == NCCL_RING && ch.proto == NCCL_LL);
		DBL_NEAR(ch.time_s, (9.3 + 16384.0 / 1200) * 1e-6, 1e-9);
		INT_EQ(nccl_rank(&nt, &nc.params, NCCL_BROADCAST, 65536, &ch, 1), 1);
		CHECK(ch.algo == NCCL_RING && ch.proto == NCCL_SIMPLE);
		DBL_NEAR(ch.time_s, (22.4 + 65536.0 / 2400) * 1e-6, 1e-9);
		INT_EQ(nccl_rank(&t, &nc.params, NCCL_BROADCAST, 16384, &ch, 1), 1);
		CHECK(ch.proto == NCCL_SIMPLE);
	}

	n = ncclt_variants(&s, &nc, &g, &m.ncclt, NCCL_BROADCAST, v, 3);
	CHECK(n >= 1);
	if (n >= 1) {
		STR_EQ(v[0].key, "nics_per_node");
		STR_EQ(v[0].value, "2");
		INT_EQ(v[0].count.agree, 2);
		INT_EQ(v[0].count.pairs, 2);
	}
	for (int i = 1; i < n; i++)
		CHECK(v[i].count.agree <= v[i - 1].count.agree);

	system_release(&s);
	meas_release(&m);
	preset_dirs_release(&d);
}
