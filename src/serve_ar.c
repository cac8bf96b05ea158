/*
 * The all-reduce of serving: NCCL as its model prices it, and the kernels
 * the serving engines run on one node of NVLink GPUs instead (vLLM's
 * custom all-reduce, TensorRT-LLM's and SGLang's one-shot and two-shot,
 * NCCL's symmetric-memory kernels).  Each kernel is a launch, its
 * barriers and the bytes one GPU reads from its peers at the rate these
 * kernels reach (serve.h; models/serve.md, "The all-reduce of decode").
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "serve.h"

static const char *const impl_names[AR_IMPL_COUNT] = {
	[AR_NCCL] = "nccl", [AR_ONESHOT] = "oneshot", [AR_TWOSHOT] = "twoshot",
	[AR_SYMM] = "symm", [AR_VLLM] = "vllm",
};

const char *ar_impl_name(enum ar_impl i)
{
	return i >= 0 && i < AR_IMPL_COUNT ? impl_names[i] : "?";
}

int ar_impl_lookup(const char *name, enum ar_impl *i, struct errbuf *eb)
{
	int k;

	for (k = 0; k < AR_IMPL_COUNT; k++)
		if (!strcmp(name, impl_names[k])) {
			*i = (enum ar_impl)k;
			return 0;
		}
	errbuf_set(eb, "unknown all-reduce implementation '%s'; choose nccl, oneshot, twoshot, "
		   "symm or vllm", name);
	return -1;
}

int serve_ar_kernels_ok(const struct system *s, unsigned long ranks)
{
	return ranks >= 2 && ranks <= s->gpus_per_node && s->gpu.nvlink_links > 0 &&
	       s->gpu.nvlink_link_Bps > 0 && s->p2p;
}

/* The rate one GPU reads its peers' buffers in these kernels (B/s). */
static double S_read_Bps(const struct system *s)
{
	return SERVE_AR_READ_SHARE * s->gpu.nvlink_links * s->gpu.nvlink_link_Bps;
}

/*
 * One-shot (vLLM cross_device_reduce_1stage): a launch, the start barrier,
 * every peer's whole buffer read, the end barrier: (n−1)·S read.
 */
static double S_oneshot(const struct system *s, double n, double S)
{
	return SERVE_AR_LAUNCH_S + 2 * SERVE_AR_SYNC_S + (n - 1) * S / S_read_Bps(s);
}

/*
 * Two-shot (vLLM cross_device_reduce_2stage): the start barrier, a
 * reduce-scatter reading (n−1)/n·S, the middle barrier, an all-gather
 * reading (n−1)/n·S from the peers' scratch buffers, which waits one more
 * round trip over NVLink after that barrier (a third SYNC).
 */
static double S_twoshot(const struct system *s, double n, double S)
{
	return SERVE_AR_LAUNCH_S + 3 * SERVE_AR_SYNC_S + 2 * (n - 1) / n * S / S_read_Bps(s);
}

/*
 * NCCL's symmetric kernels (src/device/symmetric/all_reduce.cuh), the
 * fastest of:
 *   AGxLL_R     one-shot in the LL protocol: each rank stores its buffer
 *               in every peer's with flags beside the data (half the rate),
 *               no barrier, the flags' flight one SYNC;
 *   RSxLD_AGxST two-shot: loads reduce a 1/n part, stores spread it, two
 *               barriers of the LSA team;
 *   RSxLDMC_AGxSTMC with NVLink SHARP: multimem loads reduce in the switch,
 *               multimem stores broadcast, one GPU receives S in all.
 * kernel receives the name of the one chosen.  serve_ar() then keeps
 * NCCL's regular choice where that is faster (large sizes), as NCCL's
 * tuning picks among both.
 */
static double S_symm(const struct system *s, double n, double S, const char **kernel)
{
	double B = S_read_Bps(s);
	double ll = SERVE_AR_LAUNCH_S + SERVE_AR_SYNC_S + 2 * (n - 1) * S / B;
	double ld = SERVE_AR_LAUNCH_S + 2 * SERVE_AR_SYNC_S + 2 * (n - 1) / n * S / B;
	double mc = s->nvls ? SERVE_AR_LAUNCH_S + 2 * SERVE_AR_SYNC_S + S / B : INFINITY;

	if (ll <= ld && ll <= mc) {
		*kernel = "symm-ll";
		return ll;
	}
	if (mc < ld) {
		*kernel = "symm-mc";
		return mc;
	}
	*kernel = "symm-ld";
	return ld;
}

/*
 * vLLM's choice (csrc/custom_all_reduce.cuh, allreduce(); Python
 * custom_all_reduce.py should_custom_ar): its kernel on 2, 4, 6 or 8
 * GPUs, for sizes below max_size (8 MiB) that are a multiple of 16 bytes;
 * two GPUs always one-shot; on 4 or fewer one-shot below 512 KiB, on 8 or
 * fewer below 256 KiB; two-shot above.  NCCL otherwise.
 */
static enum ar_impl S_vllm_pick(const struct system *s, unsigned long n, double S)
{
	if (!serve_ar_kernels_ok(s, n) || (n != 2 && n != 4 && n != 6 && n != 8) ||
	    !(S < SERVE_VLLM_MAX_B) || fmod(S, 16) != 0)
		return AR_NCCL;
	if (n == 2 || (n <= 4 && S < 512 * 1024.0) || S < 256 * 1024.0)
		return AR_ONESHOT;
	return AR_TWOSHOT;
}

static int S_nccl(const struct cost_model *m, unsigned long ranks, double bytes,
		  struct ar_cost *out, struct errbuf *eb)
{
	struct group g = { .ranks = ranks };
	struct coll_cost c;

	if (cost_coll(m, OP_ALLREDUCE, ALGO_AUTO, &g, bytes, &c, eb) < 0)
		return -1;
	out->time_s = c.time_s;
	out->used = AR_NCCL;
	if (c.proto != PROTO_NONE)
		snprintf(out->text, sizeof(out->text), "nccl %s/%s", coll_algo_name(c.algo),
			 coll_proto_name(c.proto));
	else
		snprintf(out->text, sizeof(out->text), "%s %s", cost_kind_name(m->kind),
			 coll_algo_name(c.algo));
	out->kernel = out->text;
	return 0;
}

int serve_ar(const struct cost_model *m, const struct system *s, enum ar_impl impl,
	     unsigned long ranks, double bytes, struct ar_cost *out, struct errbuf *eb)
{
	double n = (double)ranks;

	memset(out, 0, sizeof(*out));
	out->kernel = "-";
	out->used = impl;
	if (ranks <= 1)
		return 0;
	if (impl == AR_VLLM)
		impl = S_vllm_pick(s, ranks, bytes);
	if (impl == AR_NCCL)
		return S_nccl(m, ranks, bytes, out, eb);
	if (!serve_ar_kernels_ok(s, ranks)) {
		errbuf_set(eb, "the %s kernel runs on the NVLink GPUs of one node; %lu ranks of %s "
			   "(%lu GPUs per node, %u NVLinks per GPU) cannot run it",
			   ar_impl_name(impl), ranks, s->name ? s->name : "the system",
			   s->gpus_per_node, s->gpu.nvlink_links);
		return -1;
	}
	out->used = impl;
	switch (impl) {
	case AR_ONESHOT:
		out->time_s = S_oneshot(s, n, bytes);
		out->kernel = "oneshot";
		break;
	case AR_TWOSHOT:
		out->time_s = S_twoshot(s, n, bytes);
		out->kernel = "twoshot";
		break;
	default:
		out->time_s = S_symm(s, n, bytes, &out->kernel);
		/* NCCL runs its symmetric kernels where they beat its others */
		{
			struct ar_cost nc;
			struct errbuf ignore;

			if (S_nccl(m, ranks, bytes, &nc, &ignore) == 0 && nc.time_s < out->time_s) {
				*out = nc;
				out->kernel = out->text;
				out->used = AR_SYMM;
			}
		}
		break;
	}
	return 0;
}
