/*
 * Unit tests of the kernel model (src/kernel.c): one GEMM, the output
 * layer and fused attention, against values worked by hand.
 */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "kernel.h"
#include "step_fix.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"

/* Llama 3 8B's shape, the workload the tests below time. */
static void S_llama3_8b(struct workload *w)
{
	memset(w, 0, sizeof(*w));
	w->arch = WL_LLAMA;
	w->layers = 32; w->hidden = 4096; w->heads = 32; w->kv_heads = 8; w->ffn = 14336;
	w->vocab = 128256; w->seq = 8192; w->experts = w->top_k = 1;
}

/*
 * One GEMM by hand (models/step-examples.md, "A kernel worked by hand"): GPT-3
 * 175B's QKV at t = 8, 2048 tokens, on an A100 SXM (108 SMs, 0.859 of
 * 312 TFLOP/s, 2039 GB/s).  256x128 tiles: 8 x 36 = 288, 3 waves of 108,
 * 288/324 = 8/9, eff = 0.859 x 8/9; 2·2048·4608·12288 FLOPs at that
 * share, then the 2-byte output at 0.85 x 2039 GB/s.
 */
void test_kernel_gemm_by_hand(void)
{
	struct kernel_gpu g;
	double eff = 0.859 * 8.0 / 9.0, flops = 2.0 * 2048 * 4608 * 12288;
	double bw = 2039e9 * 0.85;

	kernel_gpu_init(&g, ARCH_SM80, 312e12, 108, 2039e9, 0.859);
	DBL_NEAR(kernel_gemm_eff(&g, 2048, 4608, 1), eff, 1e-12);
	DBL_NEAR(kernel_gemm_s(&g, 2048, 4608, 12288, 1),
		 flops / (312e12 * eff) + 2.0 * 2048 * 4608 / bw, 1e-12);
	DBL_NEAR(kernel_gemm_s(&g, 2048, 4608, 12288, 1), 0.98444e-3, 1e-4);
	/* A full last wave and whole tiles: the benchmark's share itself. */
	DBL_NEAR(kernel_gemm_eff(&g, 256 * 12, 128 * 9, 1), 0.859, 1e-12);
	/* One tile on 108 SMs: 1/108 of the GPU works. */
	DBL_NEAR(kernel_gemm_eff(&g, 256, 128, 1), 0.859 / 108, 1e-12);
	/* A memory-bound GEMM (a thin one) runs at the bandwidth. */
	CHECK(kernel_gemm_s(&g, 8, 8, 1e8, 1) >= 2 * (8 * 1e8 + 1e8 * 8) / bw);
	/* --kernel-efficiency: every GEMM at the share given. */
	g.fixed_eff = 0.5;
	DBL_NEAR(kernel_gemm_eff(&g, 256, 128, 1), 0.5, 0);
}

/*
 * The output layer and Megatron's unfused cross-entropy: the logits GEMM
 * T x V/t x h and its two gradient GEMMs, then 52 bytes a logit through
 * HBM at 0.85 of its rate (forward cast 6, max 4, subtract 8, exp 8,
 * sum 4, divide 8; backward scale 8, cast back 6).  Llama 3 8B, 8192
 * tokens, t = 2, on an A100: 8192 x 64128 logits.
 */
void test_kernel_output_layer(void)
{
	struct kernel_gpu g;
	struct workload w;
	struct kernel_shape sh = { 8192, 8192, 1, 2, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0 };
	double T = 8192, V = 128256 / 2.0, h = 4096, ce;

	S_llama3_8b(&w);
	kernel_gpu_init(&g, ARCH_SM80, 312e12, 108, 2039e9, 0.859);
	ce = (6 + 4 + 8 + 8 + 4 + 8 + 8 + 6) * T * V / (2039e9 * 0.85);
	DBL_NEAR(ce, 52 * T * V / (2039e9 * 0.85), 1e-15);
	DBL_NEAR(kernel_output_s(&g, &w, &sh), kernel_gemm_s(&g, T, V, h, 1) +
		 kernel_gemm_s(&g, T, h, V, 1) + kernel_gemm_s(&g, h, V, T, 1) + ce, 1e-12);
}

/*
 * Fused attention: 4·b·a/t·s·s·d/2 FLOPs forward for causal attention,
 * 2.5 times that backward, at FlashAttention-2's long-sequence 62 % and
 * 52 % of the A100's peak, times L/(L + 300) for the L = 8192 keys a
 * query tile runs through: 8192/8492 = 0.96467.  Llama 3 8B, t = 1, 8192
 * tokens: a = 32, d = 128.
 */
void test_kernel_attention_fused(void)
{
	struct kernel_gpu g;
	struct workload w;
	struct kernel_layer k;
	struct kernel_shape sh = { 8192, 8192, 1, 1, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0 };
	struct errbuf eb;
	double fl = 4.0 * 32 * 8192 * 8192 * 128 / 2;

	S_llama3_8b(&w);
	kernel_gpu_init(&g, ARCH_SM80, 312e12, 108, 2039e9, 0.859);
	CHECK(kernel_layer(&g, &w, &sh, &k, &eb) == 0);
	DBL_NEAR(k.attn_fwd_s, fl / (312e12 * 0.62 * 8192 / 8492), 1e-12);
	DBL_NEAR(k.attn_bwd_s, 2.5 * fl / (312e12 * 0.52 * 8192 / 8492), 1e-12);
	DBL_NEAR(k.fwd_s, k.gemm_fwd_s + k.attn_fwd_s + k.mem_fwd_s, 1e-15);
	/* Unfused on the same GPU stores and streams the scores: slower. */
	sh.fused = 0;
	CHECK(kernel_layer(&g, &w, &sh, &k, &eb) == 0);
	CHECK(k.attn_fwd_s > fl / (312e12 * 0.62));
	/* Volta has no fused kernel. */
	kernel_gpu_init(&g, ARCH_SM70, 125e12, 80, 900e9, 0);
	INT_EQ(g.fused_ok, 0);
	DBL_NEAR(g.gemm_eff, KERNEL_GEMM_EFF, 0);
}

/*
 * Fused attention on the H100 by the kernel that runs it (models/step.md,
 * "Attention"): Transformer Engine's, cuDNN's, at 55.4 %
 * forward and 48.8 % backward of the 989.4 TFLOP/s peak on long
 * sequences, PyTorch's SDPA (FlashAttention-2) at 35 % and 30 % (Shah et
 * al. 2024, Figures 5-6), each times 8192/8492 for 8192 keys.  Llama 3
 * 8B, 8192 tokens: fl = 4 x 32 x 8192^2 x 128 / 2 = 5.4976e11 FLOPs,
 * 1.0397 ms forward and 2.9508 ms backward through Transformer Engine,
 * 1.6457 ms and 4.7999 ms through SDPA.  On the A100 both are
 * FlashAttention-2's.  At 2048 keys a query tile's share is 2048/2348 =
 * 0.8722 of the long one; a ring step of context parallelism 4 over
 * 8192 tokens sees 2048.
 */
void test_kernel_attention_sdpa(void)
{
	struct kernel_gpu g;
	struct workload w;
	struct kernel_layer te, sd;
	struct kernel_shape sh = { 8192, 8192, 1, 1, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0 };
	struct errbuf eb;
	double fl = 4.0 * 32 * 8192 * 8192 * 128 / 2;

	S_llama3_8b(&w);
	kernel_gpu_init(&g, ARCH_SM90, 989.4e12, 132, 3.35e12, 0);
	CHECK(kernel_layer(&g, &w, &sh, &te, &eb) == 0);
	DBL_NEAR(te.attn_fwd_s, 1.0397e-3, 5e-4);
	DBL_NEAR(te.attn_bwd_s, 2.9508e-3, 5e-4);
	sh.attn_len = 2048;
	CHECK(kernel_layer(&g, &w, &sh, &sd, &eb) == 0);
	DBL_NEAR(sd.attn_fwd_s, fl / (989.4e12 * 0.554 * 2048 / 2348), 1e-12);
	DBL_NEAR(sd.attn_bwd_s, 2.5 * fl / (989.4e12 * 0.488 * 2048 / 2348), 1e-12);
	sh.attn_len = 0;
	sh.sdpa = 1;
	CHECK(kernel_layer(&g, &w, &sh, &sd, &eb) == 0);
	DBL_NEAR(sd.attn_fwd_s, fl / (989.4e12 * 0.35 * 8192 / 8492), 1e-12);
	DBL_NEAR(sd.attn_fwd_s, 1.6457e-3, 5e-4);
	DBL_NEAR(sd.attn_bwd_s, 4.7999e-3, 5e-4);
	/* Only the attention core moves. */
	DBL_NEAR(sd.gemm_fwd_s, te.gemm_fwd_s, 0);
	DBL_NEAR(sd.mem_fwd_s, te.mem_fwd_s, 0);
	kernel_gpu_init(&g, ARCH_SM80, 312e12, 108, 2039e9, 0.859);
	CHECK(kernel_layer(&g, &w, &sh, &sd, &eb) == 0);
	DBL_NEAR(sd.attn_fwd_s, fl / (312e12 * 0.62 * 8192 / 8492), 1e-12);
}

/*
 * A fused kernel's share by head width against its share at 128 (Shah et
 * al. 2024, Figure 5, causal forward at 16k on the H100): cuDNN 388/539 =
 * 0.72 at d = 64, 509/539 = 0.94 at 256; FlashAttention-2 299/335 and
 * 298/335, 0.89 both.  Linear in log2 d between: at 96, log2 96 − 7 =
 * −0.415, 1 − 0.415 × 0.28 = 0.8838 (cuDNN); at 192 (latent attention's
 * d + r), 0.585 × 0.06 off: 0.9649.  Outside, the nearest end.  The
 * attention of a layer of heads 64 wide takes 1/0.72 of one 128 wide for
 * the same FLOPs.
 */
void test_kernel_attention_head_width(void)
{
	DBL_NEAR(kernel_attn_head_share(0, 128), 1, 1e-15);
	DBL_NEAR(kernel_attn_head_share(0, 64), 0.72, 1e-12);
	DBL_NEAR(kernel_attn_head_share(0, 256), 0.94, 1e-12);
	DBL_NEAR(kernel_attn_head_share(1, 64), 0.89, 1e-12);
	DBL_NEAR(kernel_attn_head_share(1, 256), 0.89, 1e-12);
	DBL_NEAR(kernel_attn_head_share(0, 96), 1 - (7 - log2(96)) * 0.28, 1e-12);
	DBL_NEAR(kernel_attn_head_share(0, 96), 0.8838, 1e-4);
	DBL_NEAR(kernel_attn_head_share(0, 192), 0.9649, 1e-4);
	DBL_NEAR(kernel_attn_head_share(0, 32), 0.72, 1e-12);
	DBL_NEAR(kernel_attn_head_share(0, 512), 0.94, 1e-12);
}

/*
 * The elementwise work of a Llama layer, fused and eager (models/step.md,
 * "Memory-bound work"), Llama 3 8B (h 4096, h_kv 1024, f 14336), t = 1,
 * 8192 tokens, on an A100 (0.85 x 2039 GB/s), bytes per token forward:
 * fused 20h + 4(h + h_kv) + 6f = 188 416; eager, as torchtitan's model
 * runs it without compile, RMSNorms 72h, residual adds 12h, rotary
 * 20(h + h_kv), repeat_kv 4(h + h_kv), contiguous 4h, SwiGLU 10f:
 * 626 688, 3.33 times as much.  Backward twice the forward.
 */
void test_kernel_elementwise_eager(void)
{
	struct kernel_gpu g;
	struct workload w;
	struct kernel_layer fu, ea;
	struct kernel_shape sh = { 8192, 8192, 1, 1, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0 };
	struct errbuf eb;
	double bw = 2039e9 * 0.85, T = 8192;

	S_llama3_8b(&w);
	kernel_gpu_init(&g, ARCH_SM80, 312e12, 108, 2039e9, 0.859);
	CHECK(kernel_layer(&g, &w, &sh, &fu, &eb) == 0);
	DBL_NEAR(fu.mem_fwd_s, 188416 * T / bw, 1e-12);
	DBL_NEAR(fu.mem_bwd_s, 2 * 188416 * T / bw, 1e-12);
	sh.eager = 1;
	CHECK(kernel_layer(&g, &w, &sh, &ea, &eb) == 0);
	DBL_NEAR(ea.mem_fwd_s, 626688 * T / bw, 1e-12);
	DBL_NEAR(ea.mem_bwd_s, 2 * 626688 * T / bw, 1e-12);
	/* The GEMMs and the attention do not move. */
	DBL_NEAR(ea.gemm_fwd_s, fu.gemm_fwd_s, 0);
	DBL_NEAR(ea.attn_fwd_s, fu.attn_fwd_s, 0);
	/* GPT runs the same bytes either way (LayerNorm is one kernel in
	 * PyTorch too). */
	w.arch = WL_GPT;
	w.kv_heads = 32; w.ffn = 16384;
	CHECK(kernel_layer(&g, &w, &sh, &ea, &eb) == 0);
	sh.eager = 0;
	CHECK(kernel_layer(&g, &w, &sh, &fu, &eb) == 0);
	DBL_NEAR(ea.mem_fwd_s, fu.mem_fwd_s, 0);
}

/*
 * The token copies of an MoE layer's all-to-all dispatcher (models/step-teams.md,
 * "Experts folded over their own grid"), Qwen3-30B-A3B's shape (h 2048,
 * 32 heads and 4 kv heads of 128, expert f 768, 128 experts, top 8),
 * T = 8192 tokens on an H100 (0.85 x 3.35 TB/s), bf16, bytes forward:
 * fused Llama work T·(20h + 4(h_q + h_kv) + 6fk) = 8192 x 96256
 * = 788 529 152, twice that backward; permutation 1 and its inverse
 * 4·(T + kT)·h = 4 x 73728 x 2048 = 603 979 776; with ep 8 (16 experts a
 * rank) the sort by local expert and its inverse 2·4·kT·h = 2^30; the
 * copies the same again backward.  With one expert a rank (ep 128), or
 * without an all-to-all (ep 1), no sort.  tp 2 with SP and etp 1: each
 * rank routes T/2 tokens and its experts receive kT/2 copies, half of
 * each pair.
 */
void test_kernel_moe_copies(void)
{
	struct kernel_gpu g;
	struct workload w;
	struct kernel_layer k8, k1, k128, kt;
	struct kernel_shape sh = { 8192, 4096, 1, 1, 0, 1, 8, 1, 0, 1, 1, 0, 0, 0 };
	struct errbuf eb;
	double bw = 3.35e12 * 0.85, T = 8192, ew = 788529152.0;
	double p1 = 603979776.0, p2 = 1073741824.0;

	memset(&w, 0, sizeof(w));
	w.arch = WL_LLAMA;
	w.layers = 48; w.hidden = 2048; w.heads = 32; w.kv_heads = 4; w.head_dim = 128;
	w.ffn = 768; w.vocab = 151936; w.seq = 4096; w.experts = 128; w.top_k = 8;
	kernel_gpu_init(&g, ARCH_SM90, 989.4e12, 132, 3.35e12, 0.801);
	DBL_NEAR(T * 96256, ew, 0);
	DBL_NEAR(KERNEL_COPY_BYTES * (T + 8 * T) * 2048, p1, 0);
	DBL_NEAR(2 * KERNEL_COPY_BYTES * 8 * T * 2048, p2, 0);
	CHECK(kernel_layer(&g, &w, &sh, &k8, &eb) == 0);
	DBL_NEAR(k8.mem_fwd_s, (ew + p1 + p2) / bw, 1e-12);
	DBL_NEAR(k8.mem_bwd_s, (2 * ew + p1 + p2) / bw, 1e-12);
	DBL_NEAR(k8.mem_fwd_s, 0.8661e-3, 1e-4);
	DBL_NEAR(k8.mem_bwd_s, 1.1430e-3, 1e-4);
	sh.ep = 1;
	CHECK(kernel_layer(&g, &w, &sh, &k1, &eb) == 0);
	DBL_NEAR(k1.mem_fwd_s, (ew + p1) / bw, 1e-12);
	sh.ep = 128;
	CHECK(kernel_layer(&g, &w, &sh, &k128, &eb) == 0);
	DBL_NEAR(k128.mem_fwd_s, k1.mem_fwd_s, 1e-15);
	/* tp 2, SP, etp 1, ep 8: h-wide work on T/2 tokens 20h/2 + 4(h_q +
	 * h_kv)/2 + 6·(f/2)·k = 48128 a token, each pair halved. */
	sh.ep = 8; sh.tp = 2; sh.sp = 1; sh.etp = 1;
	CHECK(kernel_layer(&g, &w, &sh, &kt, &eb) == 0);
	DBL_NEAR(kt.mem_fwd_s, (T * 48128 + (p1 + p2) / 2) / bw, 1e-12);
}
