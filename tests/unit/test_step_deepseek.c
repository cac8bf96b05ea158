/*
 * Unit tests of DeepSeek-V3's shape in the step model: the kernels of a
 * latent-attention layer with a shared expert (src/kernel.c), the FLOPs
 * of a step (src/step_shape.c) and the stages when the first layers are
 * dense, against values worked by hand (models/step-teams.md, "Dense
 * first layers, shared experts, latent attention").
 */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "step_fix.h"
#include "preset_fix.h"
#include "serve.h"
#include "step_expect.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"

static int dsv3(struct workload *w)
{
	return fix_workload_file("presets/deepseek-v3.preset", w);
}

/*
 * One sequence of 4096 tokens, no tensor parallelism, fused attention.
 * An MoE layer's GEMMs, 2T FLOPs per parameter a token meets: latent
 * attention 187,105,280, the router 7168·256 = 1,835,008, 8 routed and 1
 * shared expert 9·44,040,192 = 396,361,728: 585,302,016, times 2·4096 =
 * 4,794,794,115,072.  The attention core, causal, a = 128, d_qk = 192,
 * d_v = 128: 2·128·4096²·(192 + 128)/2 = 687,194,767,360.  In all
 * 5,481,988,882,432.  A dense layer: 2·4096·(187,105,280 + 3·7168·18432)
 * + 687,194,767,360 = 5,466,956,496,896.
 */
void test_kernel_mla_shared(void)
{
	struct workload w, d;
	struct kernel_gpu g;
	struct kernel_layer k;
	struct errbuf eb;
	struct kernel_shape sh = { .tokens = 4096, .seq = 4096, .cp = 1, .tp = 1, .fused = 1,
				   .ep = 8, .capacity = 1, .microbatches = 1, .etp = 1 };

	if (dsv3(&w) < 0)
		return;
	(void)a100_kernels(&g);
	CHECK(kernel_layer(&g, &w, &sh, &k, &eb) == 0);
	DBL_NEAR(k.flops_fwd, 5481988882432.0, 1e-15);
	workload_dense_layer(&w, &d);
	CHECK(kernel_layer(&g, &d, &sh, &k, &eb) == 0);
	DBL_NEAR(k.flops_fwd, 5466956496896.0, 1e-15);
	/* Two-way tensor parallelism splits the up projections and the
	 * output (T x a(d+r)/2 x q_lora ...) but not the down projections:
	 * 2T·(q_a 11,010,048 + kv_a 4,128,768 + (37,748,736 + 16,777,216 +
	 * 117,440,512)/2 + 3·7168·18432/2) + the core / 2. */
	sh.tp = 2;
	CHECK(kernel_layer(&g, &d, &sh, &k, &eb) == 0);
	DBL_NEAR(k.flops_fwd, 2 * 4096.0 * (11010048.0 + 4128768.0 + 85983232.0 + 198180864.0) +
		 687194767360.0 / 2, 1e-15);
}

/*
 * The FLOPs a token: 6·(the layers' matrices 61·583,467,008 =
 * 35,591,487,488 (a dense layer's 3·7168·18432 equals 9 experts'
 * 9·3·7168·2048), the output layer 129280·7168 = 926,679,040) +
 * 12·61·4096·20480 (the core, a(d_qk + d_v)/2 = 20480 wide) =
 * 219,108,999,168 + 61,404,610,560 = 280,513,609,728.
 */
void test_step_deepseek_flops(void)
{
	struct workload w;
	struct step_config c;
	struct step_compute cs = { 989.4e12, 0.5, 0, NULL, 0, 0 };
	struct step_result r;
	struct errbuf eb;
	struct cost_model rm = ring_model();

	if (dsv3(&w) < 0)
		return;
	step_config_init(&c);
	c.pp = 1; c.dp = 8; c.ep = 8; c.micro_batch = 1; c.global_batch = 8; c.seq = 4096;
	CHECK(step_run(&w, &c, &cs, &rm, STEP_BAND_NONE, &r, &eb) == 0);
	DBL_NEAR(r.flops_model / r.tokens, 280513609728.0, 1e-15);
	/* One stage of 61 layers, 58 of them MoE: 2·58 all-to-alls forward. */
	{
		const struct step_row *a = find(&r, DIM_EP, PH_FORWARD, OP_ALLTOALL);

		CHECK(a != NULL);
		if (a)
			DBL_NEAR(a->count, 2 * 58, 0);
	}
}

/*
 * Sixteen stages, 4 layers on the first (3 dense, 1 MoE), 4 on each
 * middle one, 1 on the last: the first stage's micro-batch is
 * 3·dense + 1·MoE, a middle one's 4·MoE, the slowest sets the pace
 * (the best case, before step_expect).
 * A middle stage's parameters on one GPU (ep 8): 4·(attention
 * 187,105,280 + norms and router 1,851,392 + the shared expert
 * 44,040,192) + 4·256·44,040,192/8.
 */
void test_step_dense_stages(void)
{
	struct workload w, d;
	struct step_config c;
	struct kernel_gpu g;
	struct step_compute cs;
	struct step_result r;
	struct kernel_layer km, kd;
	struct errbuf eb;
	struct cost_model rm = ring_model();
	double moe, dense;

	if (dsv3(&w) < 0)
		return;
	cs = a100_kernels(&g);
	ds_stages(&c, 64);
	CHECK(step_run(&w, &c, &cs, &rm, STEP_BAND_NONE, &r, &eb) == 0);
	{
		struct kernel_shape sh = { .tokens = 4096, .seq = 4096, .cp = 1, .tp = 1,
					   .fused = 1, .ep = 8, .capacity = 1,
					   .microbatches = 8, .etp = 1 };

		CHECK(kernel_layer(&g, &w, &sh, &km, &eb) == 0);
		workload_dense_layer(&w, &d);
		CHECK(kernel_layer(&g, &d, &sh, &kd, &eb) == 0);
	}
	moe = km.fwd_s + km.bwd_s;
	dense = kd.fwd_s + kd.bwd_s;
	DBL_NEAR(r.mb_compute_best_s, fmax(3 * dense + moe, fmax(4 * moe, moe + r.output_s)), 1e-12);
	DBL_NEAR(r.stage_params, 4 * (187105280.0 + 1851392.0 + 44040192.0) +
		 4 * 256 * 44040192.0 / 8, 1e-15);
	/* The middle stage is the most loaded; its weights are those
	 * 931,987,456 + 5,637,144,576 parameters at 2 bytes. */
	STR_EQ(r.mem.stage, "middle");
	DBL_NEAR(r.mem.weights_B, 2 * (931987456.0 + 5637144576.0), 1e-15);
	/* Dense layers four times as wide: the first stage is the slowest. */
	w.dense_ffn = 4 * 18432;
	CHECK(step_run(&w, &c, &cs, &rm, STEP_BAND_NONE, &r, &eb) == 0);
	{
		struct kernel_shape sh = { .tokens = 4096, .seq = 4096, .cp = 1, .tp = 1,
					   .fused = 1, .ep = 8, .capacity = 1,
					   .microbatches = 8, .etp = 1 };

		workload_dense_layer(&w, &d);
		CHECK(kernel_layer(&g, &d, &sh, &kd, &eb) == 0);
	}
	dense = kd.fwd_s + kd.bwd_s;
	CHECK(3 * dense + moe > 4 * moe);
	DBL_NEAR(r.mb_compute_best_s, 3 * dense + moe, 1e-12);
	/* The first stage holds the most: 3 dense layers of 187,105,280 +
	 * 3·7168·73728 + 16,384 (norms) = 1,772,568,576, one MoE layer's
	 * 232,996,864 and 256·44,040,192/8 = 1,409,286,144 of experts, and
	 * the embedding 129280·7168 = 926,679,040: 7,886,667,776 at 2 bytes. */
	STR_EQ(r.mem.stage, "first");
	DBL_NEAR(r.mem.weights_B, 2 * 7886667776.0, 1e-15);
}

/* serve does not model latent attention's cache: it refuses, naming why. */
void test_serve_refuses_mla(void)
{
	struct workload w;
	struct serve_params p;
	struct errbuf eb;

	if (dsv3(&w) < 0)
		return;
	serve_params_init(&p);
	p.tp = 8;
	p.batch = 8;
	CHECK(serve_check(&w, &p, &eb) == -1);
	STR_EQ(eb.msg, "deepseek-v3: serve does not model latent attention's cache, dense first "
		       "layers or shared experts (the step model does)");
}

/* Kernels a DeepSeek-V3 MoE layer launches forward: Llama's 11, fused
 * attention 1, MoE 5, the shared expert 3, latent attention 7: 27, three
 * times that with backward (step_expect.c). */
void test_expect_kernels_deepseek(void)
{
	struct workload w;

	if (dsv3(&w) < 0)
		return;
	DBL_NEAR(expect_layer_kernels(&w, 1, RC_NONE), 81, 0);
}
