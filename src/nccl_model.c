/*
 * NCCL's cost model (NCCL 2.30.7, tag v2.30.7-1 of github.com/NVIDIA/nccl).
 *
 * Every number below was read in that tag; the comment beside it names
 * the file and line.  No NCCL code is reproduced: the graph search is a
 * short replay of what ncclTopoCompute finds on the machines commtime
 * describes, and the tuning follows ncclTopoTuneModel term by term.
 * This file holds NCCL's constants and versions, the time of one call
 * from the tuning table, the run that follows the choice and the terms
 * of --explain; the table itself is built in src/nccl_tune.c
 * (nccl_int.h).  models/nccl.md derives it with worked examples.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "nccl_model.h"
#include "nccl_int.h"

const struct nccl_params nccl_params_default = {
	/* src/graph/tuning.cc:151-155, baseLatencies (µs), LL/LL128/Simple */
	.base_lat = {
		{ 6.8, 14.0, 8.4 },  /* Tree */
		{ 6.6, 14.0, 8.4 },  /* Ring */
		{ 0, 0, 0 }, { 0, 0, 0 },  /* CollNet Direct, Chain */
		{ 0, 0, 0 }, { 0, 0, 0 },  /* NVLS, NVLS Tree */
		{ 8.0, 8.0, 8.0 },   /* PAT */
	},
	/* src/graph/tuning.cc:159-174, hwLatencies (µs) */
	.hw_lat = {
		{ /* NVLINK, tuning.cc:159-162 */
			{ 0.6, 1.25, 4.0 }, { 0.6, 1.9, 3.4 },
			{ 0, 0, 3.7 }, { 0, 0, 2.8 },
			{ 0, 0, 25 }, { 0, 0, 25 },
			{ 0, 0, 4.0 },
		},
		{ /* PCI, tuning.cc:165-168 */
			{ 1.0, 1.9, 4.0 }, { 1.0, 2.5, 5.7 },
			{ 0, 0, 3.7 }, { 0, 0, 2.8 },
			{ 0, 0, 0 }, { 0, 0, 0 },
			{ 0, 0, 4.0 },
		},
		{ /* NET, tuning.cc:171-174 */
			{ 5.0, 8.5, 14 }, { 2.7, 4.0, 14.0 },
			{ 0, 0, 31 }, { 0, 0, 30 },
			{ 0, 0, 18 }, { 0, 0, 20.9 },
			{ 0, 0, 14 },
		},
	},
	/* tuning.cc:179-182, llMaxBws: one node by GPU arch; more by CPU row
	 * (row 0 Intel, row 1 AMD), columns 1, 2, >2 nodes */
	.ll_max_bw = {
		{ 39.0, 39.0, 20.4 },
		{ 87.7, 22.5, 19.0 },
		{ 141.0, 45.0, 35.0 },
		{ 2 * 141.0, 2 * 45.0, 2 * 35.0 },
	},
	/* tuning.cc:186-189, perChMaxRingLL128Bws */
	.perch_ring_ll128 = {
		{ 20.0, 20.0, 20.0 }, { 20.0, 20.0, 20.0 },
		{ 36.7, 36.7, 36.7 }, { 40.0, 40.0, 40.0 },
	},
	/* tuning.cc:193-196, perChMaxTreeLL128Bws */
	.perch_tree_ll128 = {
		{ 20.0, 20.0, 20.0 }, { 20.0, 20.0, 20.0 },
		{ 36.7, 36.7, 29.0 }, { 55.6, 31.67, 20.0 },
	},
	/* tuning.cc:200-203, perChMaxTreeBws */
	.perch_tree = {
		{ 26.5, 18.5, 10.0 }, { 24.0, 23.6, 17.8 },
		{ 38.7, 41.4, 36.0 }, { 70.0, 42.8, 24.0 },
	},
	/* tuning.cc:207-210, perChMaxNVLSTreeBws */
	.perch_nvls_tree = {
		{ 26.5, 18.5, 10.0 }, { 24.0, 23.6, 17.8 },
		{ 0.0, 57.7, 45.5 }, { 0.0, 96.0, 80.0 },
	},
	/* tuning.cc:139-144, nvlsEfficiency */
	.nvls_eff = { 0.0, 0.0, 0.85, 0.74 },
	/* tuning.cc:623-627, treeCorrectionFactor, powers of two from 64 B */
	.tree_correction = {
		{ 1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0 },
		{ 1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0, 1.0 },
		{ .9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9 },
	},
	/* tuning.cc:228-233, getNetOverhead: Intel 1 µs, AMD 2 µs, other 1 µs */
	.net_overhead = { 1.0, 2.0, 1.0 },
	.version = 230,
};

/*
 * Each change below was read in tuning.cc at the tags v2.19.4-1,
 * v2.20.5-1, v2.21.5-1, v2.22.3-1, v2.23.4-1, v2.26.2-1, v2.27.7-1,
 * v2.28.3-1, v2.29.3-1 and v2.30.7-1 of NVIDIA/nccl, and 2.31's in
 * src/tuning/ at the dev branch's NCCL 2.31.0a7-1 (commit db761c88)
 * (models/nccl.md, "NCCL versions").  2.19 and 2.20 tune alike, so do
 * 2.21 and 2.22; the formulas that changed later are chosen by
 * p->version in nccl_tune_init.
 */
int nccl_params_version(const char *s, struct nccl_params *p, struct errbuf *eb)
{
	const char *given = s;
	char *end;
	long major, minor, patch = 0;

	errno = 0;
	major = strtol(s, &end, 10);
	if (end == s || *end != '.' || major != 2)
		goto bad;
	s = end + 1;
	minor = strtol(s, &end, 10);
	if (end == s || (*end && *end != '.'))
		goto bad;
	if (*end) {
		s = end + 1;
		patch = strtol(s, &end, 10);
		if (end == s || *end || patch < 0 || patch > 99)
			goto bad;
	}
	if (errno || minor < NCCL_VERSION_MIN % 100 || minor > NCCL_VERSION_MAX % 100)
		return errbuf_set(eb, "NCCL %ld.%ld is not modelled (2.%d to 2.%d)", major, minor,
				  NCCL_VERSION_MIN % 100, NCCL_VERSION_MAX % 100);
	*p = nccl_params_default;
	p->version = (int)(100 * major + minor);
	if (minor < 21) {
		/* 2.19 and 2.20 (v2.20.5-1 tuning.cc:69, 89; the same at v2.19.4-1):
		 * NVLS and NVLSTree 23 µs on NVLink, not 25; one node of Hopper
		 * capped for LL like Ampere, 87.7 GB/s (the network columns of
		 * that row are the AMD ones, read for AMD hosts alike) */
		p->hw_lat[NCCL_HW_NVLINK][NCCL_NVLS][NCCL_SIMPLE] = 23;
		p->hw_lat[NCCL_HW_NVLINK][NCCL_NVLS_TREE][NCCL_SIMPLE] = 23;
		p->ll_max_bw[NCCL_HOPPER][0] = 87.7;
		p->ll_max_bw[NCCL_HOPPER][1] = 22.5;
		p->ll_max_bw[NCCL_HOPPER][2] = 19.0;
	}
	if (minor < 29)   /* NVLSTree's network latency: 14 µs until 2.28 (v2.28.3 :165) */
		p->hw_lat[NCCL_HW_NET][NCCL_NVLS_TREE][NCCL_SIMPLE] = 14;
	if (minor < 23) {
		/* Tree/Simple: no base latency, 28 µs a step on every link
		 * (v2.21.5 tuning.cc:57, 67, 71, 75) */
		p->base_lat[NCCL_TREE][NCCL_SIMPLE] = 0;
		for (int hw = 0; hw < NCCL_NHW; hw++)
			p->hw_lat[hw][NCCL_TREE][NCCL_SIMPLE] = 28;
	}
	return 0;
bad:
	return errbuf_set(eb, "cannot read NCCL version '%.40s' (want 2.MINOR or "
			  "2.MINOR.PATCH, e.g. 2.21.5)", given);
}

/* The major and minor of an NCCL version string; 0, or -1 when it does not read. */
static int S_version_parse(const char *s, long *major, long *minor)
{
	char *end;
	long patch;

	errno = 0;
	*major = strtol(s, &end, 10);
	if (end == s || *end != '.' || *major != 2)
		return -1;
	s = end + 1;
	*minor = strtol(s, &end, 10);
	if (end == s || (*end && *end != '.') || *minor < 0)
		return -1;
	if (*end) {
		s = end + 1;
		patch = strtol(s, &end, 10);
		if (end == s || *end || patch < 0 || patch > 99)
			return -1;
	}
	return errno ? -1 : 0;
}

int nccl_params_nearest(const char *s, struct nccl_params *p, int *nearest, struct errbuf *eb)
{
	long major, minor;
	char v[16];

	*nearest = 0;
	if (S_version_parse(s, &major, &minor) < 0)
		return nccl_params_version(s, p, eb);   /* its message */
	if (minor >= NCCL_VERSION_MIN % 100 && minor <= NCCL_VERSION_MAX % 100)
		return nccl_params_version(s, p, eb);
	*nearest = minor < NCCL_VERSION_MIN % 100 ? NCCL_VERSION_MIN : NCCL_VERSION_MAX;
	snprintf(v, sizeof(v), "%d.%d", *nearest / 100, *nearest % 100);
	return nccl_params_version(v, p, eb);
}

static double S_min(double a, double b) { return a < b ? a : b; }

double nccl_time(const struct nccl_tune *t, const struct nccl_params *p,
		 enum nccl_func f, enum nccl_algo a, enum nccl_proto pr,
		 double bytes, double *lat_s, double *bw_Bps)
{
	double bw, lat, us;
	int log_size;
	unsigned long long n = bytes > 0 ? (unsigned long long)bytes : 0;

	if (t->ranks <= 1) {
		if (lat_s)
			*lat_s = 0;
		if (bw_Bps)
			*bw_Bps = 0;
		return a == NCCL_RING && pr == NCCL_SIMPLE ? 0 : -1;
	}
	bw = t->bw[f][a][pr];
	lat = t->lat[f][a][pr];
	if (bw == 0)
		return -1;
	/* tuning.cc:639-650 */
	log_size = nccl_log2i(n >> 6);
	if (a == NCCL_TREE && f == NCCL_ALLREDUCE && log_size >= 0 && log_size < 23)
		bw *= p->tree_correction[pr][log_size];
	if (a == NCCL_NVLS_TREE && f == NCCL_ALLREDUCE && log_size >= 0 && log_size < 24 &&
	    t->arch >= NCCL_BLACKWELL && t->cpu != NCCL_CPU_ARM)
		bw *= p->tree_correction[pr][log_size];   /* x86 hosts only, :643-646 */
	if (a == NCCL_RING && pr == NCCL_SIMPLE && t->nodes > 1 && f == NCCL_ALLREDUCE &&
	    n / ((unsigned long long)t->comm_channels * t->ranks) >= 64)
		lat *= t->arch < NCCL_AMPERE ? 1.9 : 1.4;
	us = lat + bytes / (1000 * bw);      /* :653, one operation */
	if (lat_s)
		*lat_s = lat * 1e-6;
	if (bw_Bps)
		*bw_Bps = bw * 1e9;
	return us * 1e-6;
}

/* NCCL_MAX_NTHREADS, NCCL_LL_MAX_NTHREADS, NCCL_LL128_MAX_NTHREADS (device.h:93-114) */
static int S_threads(const struct nccl_tune *t, enum nccl_algo a, enum nccl_proto pr)
{
	if (a == NCCL_NVLS || a == NCCL_NVLS_TREE || a == NCCL_COLLNET_DIRECT || a == NCCL_COLLNET_CHAIN)
		return 640;                                   /* tuning.cc:250-252 */
	if (pr == NCCL_LL)
		return 512;                                   /* tuning.cc:253-254 */
	if (pr == NCCL_LL128)
		return 640;                                   /* tuning.cc:255-257 */
	return a == NCCL_RING ? t->ring_simple_threads : 512;  /* tuning.cc:244-249 */
}

/*
 * CollNet Direct's CTAs (enqueue.cc:2073-2082): from comm->nChannels drop
 * one while S < CTAs × threads × heads × 512 bytes (tuning.cc:594), in
 * stages down to 16, 8, 4, 2 and 1 CTAs, the threshold halved as a stage
 * passes one and a half times its floor.
 */
static int S_collnet_direct_ctas(int nc, int threads, int heads, double bytes)
{
	double thr = 512;
	int sw = 16, more = 1;

	while (sw >= 1 && more) {
		while ((more = bytes < (double)nc * threads * heads * thr) && nc > sw) {
			if (nc == sw + sw / 2)
				thr /= 2;
			nc--;
		}
		sw /= 2;
	}
	return nc;
}

/* The planner gives each channel at least 32 KiB of traffic
 * (MinTrafficPerChannel, enqueue.cc:585, 655-663): traffic is 2 S for
 * all-reduce, S otherwise as nccl-tests counts S (enqueue.cc:91-102),
 * and four times that for LL, whose lines carry half data
 * (enqueue.cc:658).  The CTAs of nc given work. */
static int S_ctas_used(enum nccl_func f, enum nccl_proto pr, double bytes, int nc)
{
	double traffic = bytes * (f == NCCL_ALLREDUCE ? 2 : 1) * (pr == NCCL_LL ? 4 : 1);
	/* (clamped as a double: a large size overflows an int) */
	int used = traffic / 32768.0 >= nc ? nc : (int)ceil(traffic / 32768.0);
	return used < 1 ? 1 : used;
}

/* Store-and-forward pipeline of NVLS and NVLSTree (Simple only):
 * each channel moves loops of nHeads chunks (enqueue.cc:2333-2355,
 * 2361), a chunk is nvlsChunkSize, 128 KiB (nvls.cc:160), capped for
 * NVLSTree at nvlsTreeMaxChunkSize (64 KiB from 4 nodes on,
 * nvls.cc:226-229), and halved for small channels
 * (enqueue.cc:2260-2286, with the bytes of one channel:
 * enqueue.cc:725-737).  A loop crosses the reduction into the heads
 * and the multicast back (2 stages), and NVLSTree the network tree up
 * and down between them (2 log2(nodes) more); the first loop crosses
 * them before the stream flows.  Ring's chunks are the steps its
 * latency term already counts; Tree's mid-size shortfall is what
 * NCCL's treeCorrectionFactor stands for; LL and LL128 forward line
 * by line. */
static void S_nvls_pipeline(const struct nccl_tune *t, int a, double per_channel, double bw,
			    struct nccl_run *run)
{
	double chunk = 131072, ops = t->graph[NCCL_NVLS].nchannels;   /* nHeads */
	if (a == NCCL_NVLS) {
		if (per_channel < 64 * ops * chunk && chunk > 65536)
			chunk = 65536;
		if (per_channel < 8 * ops * chunk && chunk > 32768)
			chunk = 32768;
		if (per_channel < 2 * ops * chunk && chunk > 16384)
			chunk = 16384;
		run->stages = 2;
	} else {
		if (t->nodes >= 4)
			chunk = 65536;
		if (per_channel < 32 * ops * chunk && chunk > 262144)
			chunk = 262144;
		if (per_channel < 16 * ops * chunk && chunk > 131072)
			chunk = 131072;
		if (per_channel < 4 * ops * chunk && chunk > 65536)
			chunk = 65536;
		if (per_channel < 1 * ops * chunk && chunk > 32768)
			chunk = 32768;
		run->stages = 2 + 2 * nccl_log2i((unsigned long long)t->nodes);
	}
	run->chunk_B = chunk;
	run->chunks_per_loop = (int)ops;
	/* The head stages move one chunk per loop (device/all_reduce.h:
	 * 448-454 and 588-631, a chunk at headRank): a chunk (no more
	 * than a head's share of the channel) crosses each stage in
	 * no less than chunk / (bw per channel). */
	run->fill_s = (run->stages - 1) * S_min(chunk, per_channel / ops) / (bw / run->channels);
}

double nccl_run_time(const struct nccl_tune *t, const struct nccl_params *p,
		     enum nccl_func f, enum nccl_algo a, enum nccl_proto pr,
		     double bytes, struct nccl_run *r)
{
	struct nccl_run run;
	double lat, bw;
	int nvls = a == NCCL_NVLS || a == NCCL_NVLS_TREE, nc, used;

	memset(&run, 0, sizeof run);
	run.tune_s = nccl_time(t, p, f, a, pr, bytes, &lat, &bw);
	if (run.tune_s < 0 || t->ranks <= 1) {
		if (r)
			*r = run;
		return run.tune_s;
	}
	run.lat_s = lat;
	run.bw_Bps = bw;
	run.threads = S_threads(t, a, pr);

	/* Channels: NVLS runs comm->nvlsChannels CTAs; ring and tree start
	 * from comm->nChannels and drop one while S < nc × threads ×
	 * threadThreshold (enqueue.cc:2070-2097), the threshold being 8 bytes
	 * per thread for LL (times the ranks on the ring) and LL128, 64 for
	 * Simple (comm.h:49-51, tuning.cc:589-593). */
	if (nvls) {
		nc = t->nvls_channels > 0 ? t->nvls_channels : t->graph[a].nchannels;
		run.channels = run.channels_algo = nc;
	} else if (a == NCCL_COLLNET_DIRECT) {
		nc = run.channels = t->comm_channels > 0 ? t->comm_channels : 1;
		nc = run.channels_algo = S_collnet_direct_ctas(nc, run.threads,
							       t->graph[a].nchannels, bytes);
	} else {
		/* CollNet Chain's threshold is 512 (tuning.cc:594-595) */
		double thr = a == NCCL_COLLNET_CHAIN ? 512 : pr == NCCL_SIMPLE ? 64 : 8;
		if (a == NCCL_RING && pr == NCCL_LL)
			thr *= t->ranks;
		nc = run.channels = t->comm_channels > 0 ? t->comm_channels : 1;
		while (nc >= 2 && bytes < (double)nc * run.threads * thr)
			nc--;
		run.channels_algo = nc;
	}
	used = run.channels_used = S_ctas_used(f, pr, bytes, nc);
	/* The transfer runs at the tuning bandwidth whatever the CTAs given
	 * work: NCCL's source has no rate for one CTA, and sharing the
	 * bandwidth evenly among them made the time fall as the size grew
	 * past a CTA step (34.5 us at 63.9 KiB, 28.8 us at 90 KiB for
	 * Ring/LL on 8 H100), which no run shows.  The CTAs given work only
	 * set the bytes per channel of the fill below. */
	/* NCCL's fallback graph: the tuning's 0.1 GB/s chose the pair, the
	 * one channel moves at its path's rate (nccl_graph.run_bw). */
	if (t->graph[a].run_bw > 0 && t->graph[a].bw_intra > 0)
		bw *= t->graph[a].run_bw / t->graph[a].bw_intra;
	run.xfer_s = bytes / bw;
	if (nvls && pr == NCCL_SIMPLE)
		S_nvls_pipeline(t, a, bytes / used, bw, &run);
	run.time_s = lat + run.xfer_s + run.fill_s;
	if (r)
		*r = run;
	return run.time_s;
}

int nccl_rank(const struct nccl_tune *t, const struct nccl_params *p,
	      enum nccl_func f, double bytes, struct nccl_choice *out, int max)
{
	struct nccl_choice all[NCCL_NALGO * NCCL_NPROTO];
	int k = 0;

	for (int a = 0; a < NCCL_NALGO; a++)
		for (int pr = 0; pr < NCCL_NPROTO; pr++) {
			struct nccl_choice c;
			int i;
			c.time_s = nccl_time(t, p, f, a, pr, bytes, &c.lat_s, &c.bw_Bps);
			if (c.time_s < 0)
				continue;
			c.algo = a;
			c.proto = pr;
			/* a stable insertion: on a tie the pair NCCL tries
			 * first (lower algorithm, then protocol) stays first */
			for (i = k; i > 0 && all[i - 1].time_s > c.time_s; i--)
				all[i] = all[i - 1];
			all[i] = c;
			k++;
		}
	if (k > max)
		k = max;
	memcpy(out, all, k * sizeof all[0]);
	return k;
}

#define TERM(n, v, u, s) do { \
	if (k < max) { \
		out[k].name = (n); out[k].value = (v); out[k].unit = (u); out[k].source = (s); \
	} \
	k++; \
} while (0)

/* The terms of the channels and their speed, and the NCCL version when
 * not 2.30 (the TERM list from k on). */
static int S_terms_channels(const struct nccl_tune *t, const struct nccl_params *p,
			    enum nccl_algo a, struct nccl_term *out, int max, int k)
{
	const struct nccl_graph *g = &t->graph[a];
	int nodes = t->nodes, ranks = t->ranks;
	int cn = a == NCCL_COLLNET_DIRECT || a == NCCL_COLLNET_CHAIN;

	if (a == NCCL_COLLNET_DIRECT)
		TERM("CollNet Direct heads (GPUs at a NIC)", g->nchannels, "",
		     "search.cc:373-411, 754-770, 1129-1131");
	else if (a == NCCL_COLLNET_CHAIN)
		TERM("CollNet Chain channels (the tree's)", g->nchannels, "",
		     "init.cc:1189-1194, search.cc:738");
	else
		TERM("channels", g->nchannels, "",
		     "search.cc:1162-1287 (search), 1036-1049 (duplication)");
	TERM(nodes <= 2 || cn ? "bw per channel (bwIntra)" : "bw per channel (bwInter)",
	     nodes <= 2 || cn ? g->bw_intra : g->bw_inter, "GB/s",
	     cn ? "search.cc:1279-1282 (bwIntra up to twice bwInter), tuning.cc:305-306" :
	     "search.cc:1051-1067 (speeds tried)");
	if (a == NCCL_COLLNET_DIRECT) {
		double gpn = (double)ranks / nodes / g->nchannels;
		TERM("GPUs a NIC serves, counted halfway", gpn - (gpn - 1) / 2, "", "tuning.cc:340-348");
		if (t->arch >= NCCL_HOPPER)
			TERM("CollNet Direct factor from sm90", .85, "", "tuning.cc:349");
	}
	if (p->version != 230)
		TERM("NCCL version", p->version / 100 + p->version % 100 / 100.0, "",
		     "--nccl-version; its changes: models/nccl.md, \"NCCL versions\"");
	return k;
}

/* The terms of the bandwidth: channels, speeds, factors, caps (the TERM list from k on). */
static int S_terms_bw(const struct nccl_tune *t, const struct nccl_params *p,
			enum nccl_func f, enum nccl_algo a, enum nccl_proto pr, double bytes,
			struct nccl_term *out, int max, int k)
{
	const struct nccl_graph *g = &t->graph[a];
	int nodes = t->nodes, ranks = t->ranks, idx2 = nodes <= 2 ? nodes - 1 : 2;
	int nsteps = f == NCCL_ALLREDUCE ? 2 * (ranks - 1) :
		     f == NCCL_REDUCESCATTER || f == NCCL_ALLGATHER ? ranks - 1 : ranks;
	double ratio;

	k = S_terms_channels(t, p, a, out, max, k);
	if ((a == NCCL_NVLS || a == NCCL_NVLS_TREE) && p->version < 228)
		TERM("min(bwIntra, bwInter)", nccl_nvls_bw_old(p, g, f, a, nodes, (double)ranks / nodes), "GB/s",
		     "v2.27.7 tuning.cc:267-275 (bwInter / 2 beyond 2 nodes for NVLSTree)");
	if ((a == NCCL_NVLS || a == NCCL_NVLS_TREE) && p->version >= 228)
		TERM("NVLS efficiency", p->nvls_eff[t->arch], "", "tuning.cc:139-144, 311-318");
	if (a == NCCL_NVLS_TREE && p->version >= 228)
		TERM("NVLSTree cap per channel", p->perch_nvls_tree[t->arch][idx2], "GB/s",
		     "tuning.cc:207-210, 321-322");
	if (a == NCCL_RING && pr == NCCL_LL) {
		TERM("LL factor", nccl_ring_ll_factor(p, f, nodes), "",
		     p->version >= 221 ? "tuning.cc:327" : "v2.20.5 tuning.cc:181");
		TERM("LL cap", p->ll_max_bw[nodes == 1 ? t->arch : t->cpu == NCCL_CPU_AMD][idx2],
		     "GB/s", "tuning.cc:179-182, 269-272");
	}
	if (a == NCCL_RING && pr == NCCL_LL128) {
		TERM("LL128 factor", p->version < 223 && ranks == nodes ? .7 : .92, "",
		     p->version < 223 && ranks == nodes ? "v2.21.5 tuning.cc:181" : "tuning.cc:328-329");
		TERM("LL128 cap per channel", p->perch_ring_ll128[t->arch][idx2], "GB/s",
		     "tuning.cc:186-189");
	}
	if (a == NCCL_TREE && f == NCCL_ALLREDUCE) {
		TERM("tree factor", .92, "", "tuning.cc:330-331");
		TERM("tree cap per channel", p->perch_tree[t->arch][idx2], "GB/s", "tuning.cc:200-203");
	}
	if (a == NCCL_TREE && pr == NCCL_LL)
		TERM("tree LL factor", 1.0 / 3.8, "", "tuning.cc:332");
	if (a == NCCL_TREE && pr == NCCL_LL128)
		TERM("tree LL128 factor", nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0, "",
		     "tuning.cc:333-335");
	if (a == NCCL_PAT)
		TERM("PAT factor", p->version < 224 ? .85 : .75, "",
		     p->version < 224 ? "v2.23.4 tuning.cc:193" : "tuning.cc:337");
	if (nccl_bus_ratio(p, f, a, ranks, nsteps, &ratio))
		TERM("bus to algorithm bandwidth", ratio, "",
		     (a == NCCL_NVLS || a == NCCL_NVLS_TREE) && p->version < 228 ?
		     "v2.27.7 tuning.cc:321-326" : "tuning.cc:377-382");
	if (a == NCCL_TREE && f == NCCL_ALLREDUCE) {
		int ls = nccl_log2i((unsigned long long)(bytes > 0 ? bytes : 0) >> 6);
		if (ls >= 0 && ls < 23)
			TERM("tree correction at this size", p->tree_correction[pr][ls], "",
			     "tuning.cc:623-627, 639-642");
	}
	return k;
}

/* The terms of the latency, lat the total (s). */
static int S_terms_lat(const struct nccl_tune *t, const struct nccl_params *p,
			enum nccl_func f, enum nccl_algo a, enum nccl_proto pr, double lat,
			struct nccl_term *out, int max, int k)
{
	const struct nccl_graph *g = &t->graph[a];
	int nodes = t->nodes, ranks = t->ranks;
	int hw = g->nvlink ? NCCL_HW_NVLINK : NCCL_HW_PCI;
	int nsteps = f == NCCL_ALLREDUCE ? 2 * (ranks - 1) :
		     f == NCCL_REDUCESCATTER || f == NCCL_ALLGATHER ? ranks - 1 : ranks;

	TERM("base latency", nccl_base_lat(p, t->amd, a, pr), "us",
	     t->amd ? "rccl tuning.cc baseLat" : "tuning.cc:151-155");
	if (a != NCCL_NVLS || nodes == 1)
		TERM(hw == NCCL_HW_NVLINK ? "NVLink latency per step" : "PCI latency per step",
		     nccl_hw_lat(p, t->amd, hw, a, pr), "us",
		     t->amd ? "rccl tuning.cc tuning_model_5" : "tuning.cc:159-168");
	if (nodes > 1) {
		TERM("network latency per step",
		     ranks == nodes && p->version >= 223 ? nccl_hw_lat(p, t->amd, NCCL_HW_NET, NCCL_TREE, pr)
							 : nccl_hw_lat(p, t->amd, NCCL_HW_NET, a, pr),
		     "us", t->amd ? "rccl tuning.cc tuning_model_5" : "tuning.cc:171-174, 387-388");
		if (t->net_latency > 0)
			TERM("network plugin latency per step",
			     t->net_latency * (pr == NCCL_SIMPLE ? 2 : 1), "us",
			     "search.cc:745, tuning.cc:389-391 (twice for Simple)");
		if (a == NCCL_RING && f != NCCL_BROADCAST && f != NCCL_REDUCE)
			TERM("network overhead per step", p->net_overhead[t->cpu] * (pr == NCCL_SIMPLE ? 3 : 1),
			     "us", "tuning.cc:228-233, 405-410");
	}
	if (a == NCCL_RING && f != NCCL_BROADCAST && f != NCCL_REDUCE) {
		int inter = nccl_inter_steps(p, f, nodes);
		TERM("steps inside nodes", nsteps - inter, "", "tuning.cc:289-291, 411-412");
		if (inter)
			TERM("steps across nodes", inter, "", "tuning.cc:411-412");
	}
	if (a == NCCL_COLLNET_DIRECT)
		TERM("arity latency, each way", (ranks / nodes - 1) * 0.4, "us",
		     "tuning.cc:418-421: 0.4 us a peer of the head");
	if (a == NCCL_COLLNET_CHAIN)
		TERM("chain steps inside a node, each way", ranks / nodes - 1, "", "tuning.cc:422-423");
	if (a == NCCL_TREE && f == NCCL_ALLREDUCE) {
		TERM("chain steps inside a node, each way", ranks / nodes - 1, "", "tuning.cc:416");
		if (nodes > 1)
			TERM("tree levels across nodes, each way", nccl_log2i(nodes), "", "tuning.cc:416");
	}
	if (a == NCCL_RING && pr == NCCL_SIMPLE && nodes > 1 && f == NCCL_ALLREDUCE &&
	    lat > t->lat[f][a][pr] * 1e-6 * 1.01)
		TERM("ring plateau latency factor", t->arch < NCCL_AMPERE ? 1.9 : 1.4, "",
		     "tuning.cc:647-650");
	TERM("latency", lat * 1e6, "us", "base + steps x per-step latencies");
	return k;
}

/* The terms of the run: the choice, the CTAs, the transfer, the pipeline. */
static int S_terms_run(const struct nccl_tune *t, const struct nccl_params *p,
			enum nccl_func f, enum nccl_algo a, enum nccl_proto pr, double bytes,
			struct nccl_term *out, int max, int k)
{
	struct nccl_run r;
	int nvls = a == NCCL_NVLS || a == NCCL_NVLS_TREE;
	nccl_run_time(t, p, f, a, pr, bytes, &r);
	TERM("tuning time (the choice)", r.tune_s * 1e6, "us",
	     "tuning.cc:630-655, latency + S / bandwidth");
	TERM("CTAs the bandwidth stands for", r.channels, "",
	     nvls ? "transport/nvls.cc:155-157, 207-214 (nvlsChannels)"
		  : "comm->nChannels: the ring channels, doubled");
	if (!nvls) {
		TERM("threads per CTA", r.threads, "", "tuning.cc:244-257, device.h:93-114");
		TERM("CTAs after the size check", r.channels_algo, "", a == NCCL_COLLNET_DIRECT ?
		     "enqueue.cc:2073-2082, threshold 512 x heads, tuning.cc:594" :
		     a == NCCL_COLLNET_CHAIN ? "enqueue.cc:2092-2097, threshold 512, tuning.cc:595" :
		     "enqueue.cc:2092-2097, thresholds comm.h:49-51, tuning.cc:589-593");
	}
	TERM("CTAs given work", r.channels_used, "",
	     "enqueue.cc:585, 655-663: 32 KiB of traffic per CTA at least");
	TERM("transfer", r.xfer_s * 1e6, "us", "S / bandwidth, tuning.cc:653");
	if (r.stages) {
		TERM("chunk per head", r.chunk_B / 1024, "KiB",
		     "nvls.cc:160, 226-229; enqueue.cc:2260-2286");
		TERM("pipeline stages", r.stages, "", a == NCCL_NVLS ?
		     "device/all_reduce.h:390-458 (reduce into the heads, multicast)" :
		     "device/all_reduce.h:527-635 (NVLS reduce, tree up and down, multicast)");
		TERM("pipeline fill", r.fill_s * 1e6, "us",
		     "(stages - 1) x chunk / bandwidth per CTA");
	}
	TERM("predicted run time", r.time_s * 1e6, "us", "latency + transfer + fill");
	return k;
}

int nccl_terms(const struct nccl_tune *t, const struct nccl_params *p,
	       enum nccl_func f, enum nccl_algo a, enum nccl_proto pr, double bytes,
	       struct nccl_term *out, int max)
{
	int k = 0, ranks = t->ranks;
	double lat, bw;

	if (ranks <= 1 || nccl_time(t, p, f, a, pr, bytes, &lat, &bw) < 0)
		return 0;
	k = S_terms_bw(t, p, f, a, pr, bytes, out, max, k);
	TERM("bandwidth", bw / 1e9, "GB/s", "algorithm bandwidth after the factors above");
	k = S_terms_lat(t, p, f, a, pr, lat, out, max, k);
	k = S_terms_run(t, p, f, a, pr, bytes, out, max, k);
	return k < max ? k : max;
}

const char *nccl_low_busbw_cause(const struct nccl_machine *m, int nodes, double busbw_Bps)
{
	double bw = busbw_Bps / 1e9;   /* GB/s, as NCCL counts */
	double pci = nccl_pcie_bw(m->pcie_gen, m->pcie_width);

	if (nodes > 1 && m->nics_per_node > 0) {
		/* Each NIC carries its own rings: a node below one NIC's
		 * rate is not using RDMA at all, or one NIC only. */
		if (bw < m->nic_bw)
			return "below one NIC's rate: is GPUDirect RDMA off, or NCCL on TCP sockets "
			       "(NCCL_IB_DISABLE, NCCL_NET_GDR_LEVEL)?";
		if (bw < 0.5 * m->nics_per_node * m->nic_bw)
			return "below half of what the node's NICs carry together: does NCCL use every "
			       "NIC (NCCL_IB_HCA), and is the fabric congested or misrouted?";
		return NULL;
	}
	if (m->nvlinks > 0 && m->gpus_per_node > 1 && bw < pci)
		return "below the PCIe rate on an NVLink machine: is NVLink in use "
		       "(NCCL_P2P_DISABLE, NCCL_P2P_LEVEL, a GPU without its NVLinks)?";
	if (m->nvlinks == 0) {
		if (!m->p2p)
			return "P2P is off: traffic is staged through host memory";
		if (m->pcie_path == NCCL_PATH_SYS)
			return "the PCIe path crosses CPU sockets";
		if (m->pcie_path >= NCCL_PATH_PHB)
			return "the GPUs meet only through the host bridge: NCCL stages through host "
			       "memory beyond PXB";
	}
	return NULL;
}
