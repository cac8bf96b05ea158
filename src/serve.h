#ifndef COMMTIME_SERVE_H
#define COMMTIME_SERVE_H

/*
 * Serving: the communication of inference.  One prefill and one decode
 * step of a workload on a system under a layout (TP, EP, PP), collective
 * by collective; the decode step's memory-bound compute (a roofline), the
 * prefill's compute from the kernel model (kernel.h); time to first token
 * and time per output token with the communication's share; the memory
 * of weights and KV cache against the GPU's; the KV cache handed from a
 * prefill to a decode instance over a link; and the small all-reduces of
 * decode as the serving engines run them (NCCL, one-shot, two-shot,
 * NCCL's symmetric-memory kernels).  Formulas and sources: models/serve.md.
 * Times in seconds, sizes in bytes, rates in bytes per second.
 */

#include "cost.h"
#include "kernel.h"
#include "system.h"
#include "workload.h"

/* ---- the all-reduce of serving (serve_ar.c) ---- */

enum ar_impl {
	AR_NCCL,      /* NCCL's own choice of algorithm and protocol (its model) */
	AR_ONESHOT,   /* every rank reads every peer's buffer and reduces it (vLLM
			 cross_device_reduce_1stage, TensorRT-LLM ONESHOT) */
	AR_TWOSHOT,   /* reduce-scatter by peer reads, a barrier, all-gather by
			 peer reads (vLLM cross_device_reduce_2stage, TWOSHOT) */
	AR_SYMM,      /* NCCL >= 2.27 with symmetric memory: the fastest of its
			 LL one-shot, its two-shot, with NVLink SHARP its
			 multimem two-shot, and its regular algorithms */
	AR_VLLM,      /* what vLLM picks: its custom kernel below 8 MiB on
			 2, 4, 6 or 8 NVLink GPUs, one-shot or two-shot by size,
			 NCCL otherwise */
	AR_IMPL_COUNT
};

/* "nccl", "oneshot", "twoshot", "symm", "vllm". */
const char *ar_impl_name(enum ar_impl i);
/* 0, or -1 with "unknown all-reduce implementation 'x'; ..." in eb. */
int ar_impl_lookup(const char *name, enum ar_impl *i, struct errbuf *eb);

/*
 * The constants of the serving kernels (models/serve.md, "The all-reduce
 * of decode"):
 *   SERVE_AR_LAUNCH_S  one kernel launch, NCCL_LAUNCH_S's value and source;
 *   SERVE_AR_SYNC_S    one barrier through flags written over NVLink: vLLM
 *                      csrc/custom_all_reduce.cuh says a barrier costs
 *                      "about 1-2us"; the upper end is taken;
 *   SERVE_AR_READ_SHARE the rate one GPU reads its peers' buffers in these
 *                      kernels as a share of its NVLink line rate: 57.4 GB/s
 *                      of H100's 450 GB/s, the slope of vLLM's kernel on
 *                      2 H100 from 256 KiB to 1 MiB (sgl-project/sglang pull
 *                      request 2904); the other points of that table check it.
 */
#define SERVE_AR_LAUNCH_S 5e-6
#define SERVE_AR_SYNC_S 2e-6
#define SERVE_AR_READ_SHARE 0.1276
/* vLLM's custom all-reduce runs below this size (custom_all_reduce.py max_size, 8 MiB). */
#define SERVE_VLLM_MAX_B (8.0 * 1024 * 1024)

struct ar_cost {
	double time_s;
	enum ar_impl used;     /* AR_NCCL when a rule fell back to NCCL */
	const char *kernel;    /* "oneshot", "twoshot", "symm-ll", "symm-mc", or NCCL's
				  "ring/LL"-style choice in text */
	char text[32];         /* storage for NCCL's choice */
};

/*
 * 1 when the serving kernels can run an all-reduce of `ranks` GPUs of s:
 * one node of NVLink GPUs (through NVSwitch, or a full mesh), ranks >= 2.
 */
int serve_ar_kernels_ok(const struct system *s, unsigned long ranks);

/*
 * One all-reduce of `bytes` on `ranks` GPUs of system s with implementation
 * impl; m prices NCCL (cost_coll, ALGO_AUTO).  Returns 0 with *out, or -1
 * with eb: a kernel asked for where it cannot run (more than one node, no
 * NVLink), a model error of NCCL's.  One rank costs 0.
 */
int serve_ar(const struct cost_model *m, const struct system *s, enum ar_impl impl,
	     unsigned long ranks, double bytes, struct ar_cost *out, struct errbuf *eb);

/* ---- the serving model (serve.c) ---- */

enum serve_precision { SERVE_BF16, SERVE_FP8 };

struct serve_params {
	unsigned long tp, ep, pp;    /* layout; ep divides tp (experts over the TP group) */
	double batch;                /* concurrent requests decoded together */
	double prompt, output;       /* tokens per request */
	enum serve_precision precision;   /* weights (and by default the KV cache) */
	double kv_bytes;             /* bytes per KV value: 2 (bf16) or 1 (fp8) */
	enum ar_impl impl;           /* the decode and prefill all-reduce */
	double imbalance;            /* busiest expert's tokens / the mean, >= 1 */
	double mem_util;             /* share of GPU memory the engine may use */
	double rate;                 /* requests per second for the KV hand-off (0: none) */
};

/* Defaults: bf16, vLLM's pick, imbalance 1, vLLM's gpu_memory_utilization 0.9. */
#define SERVE_MEM_UTIL 0.9
void serve_params_init(struct serve_params *p);

/*
 * Check p against w: tp divides the heads; tp divides the KV heads or is
 * a multiple of them (split, or each copied tp/kv_heads times); ep > 1
 * only with experts, ep divides tp and the experts; pp divides the
 * layers; batch, prompt, output ≥ 1; imbalance ≥ 1.
 * Returns 0, or -1 with eb naming the value: "--tp 3 does not divide the
 * 64 attention heads of llama3-70b".
 */
int serve_check(const struct workload *w, const struct serve_params *p, struct errbuf *eb);

/* One kind of collective of one step. */
enum serve_phase { SERVE_PREFILL, SERVE_DECODE };
struct serve_coll {
	enum serve_phase phase;
	const char *dim;       /* "tp", "ep", "pp" */
	const char *what;      /* "attention all-reduce", "MoE dispatch", ... */
	enum coll_op op;
	double count;          /* calls per step on one GPU's path (all stages) */
	double bytes;          /* per call: nccl-tests' size of op */
	double time_s;         /* per call */
	char impl[32];         /* what runs it: "oneshot", "nccl ring/LL", ... */
};
#define SERVE_COLLS_MAX 12

/* The KV cache a request hands from prefill to decode over a link. */
struct serve_kv {
	double per_token_B;    /* 2 · layers · kv_heads · head_dim · kv_bytes */
	double request_B;      /* per_token_B · prompt */
	double time_s;         /* request_B over the link: α + bytes / β */
	double rate_Bps;       /* request_B · rate */
	double link_share;     /* rate_Bps / β: the link's busy share */
};

struct serve_result {
	struct serve_coll coll[SERVE_COLLS_MAX];
	int ncoll;
	double gpus;                 /* tp · pp */
	double weights_B, kv_B, memory_B, gpu_memory_B;   /* per GPU */
	int fits;
	/* prefill: the whole batch's prompts in one step */
	double prefill_compute_s, prefill_comm_s, ttft_s;
	/* decode: one token for every request of the batch */
	double decode_weights_B, decode_kv_read_B;   /* bytes one GPU reads per step */
	double decode_mem_s, decode_flops_s, decode_compute_s, decode_comm_s, tpot_s;
	double comm_share;           /* decode_comm_s / tpot_s */
	double tokens_per_s;         /* batch / tpot_s: the replica's output tokens per second */
	double experts_touched;      /* MoE: experts one decode step reads, per layer */
};

/*
 * The model: w on system s (its GPU's HBM bandwidth, memory, peak) with the
 * kernel model g for prefill, m pricing collectives.  Returns 0, or -1 with
 * eb (a layout the system cannot hold, a collective the model cannot price).
 */
int serve_run(const struct cost_model *m, const struct system *s, const struct kernel_gpu *g,
	      const struct workload *w, const struct serve_params *p, struct serve_result *r,
	      struct errbuf *eb);

/* KV cache bytes per token, all layers: 2 · layers · kv_heads · head_dim · kv_bytes. */
double serve_kv_per_token(const struct workload *w, double kv_bytes);

/*
 * Expected distinct experts of E that `tokens` tokens each routed to k
 * experts reach, uniform routing: E · (1 − (1 − k/E)^tokens).
 */
double serve_experts_touched(double E, double k, double tokens);

/*
 * The KV hand-off of one request of `prompt` tokens over link l (α, β),
 * and at `rate` requests per second (0: rate terms 0).
 */
void serve_kv_handoff(const struct workload *w, double kv_bytes, double prompt, double rate,
		      const struct link *l, struct serve_kv *kv);

#endif
