/*
 * Unit tests of the step model as a whole (src/step.c): the check of a
 * configuration, the names of its choices, and the step against the ddp
 * and zero calculators.  The phases have their own files, test_step_*.c.
 */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "step_fix.h"
#include "train.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"

/* Bad configurations say what is wrong. */
void test_step_check(void)
{
	struct workload w = gpt3();
	struct step_config c;
	struct errbuf eb;
	struct cost_model rm = ring_model(), mm = ms_model();
	struct step_pricing pr = { &mm, ALGO_AUTO, STEP_BAND_NONE, 0, 0, NULL };

	(void)rm; (void)mm; (void)pr;

	step_config_init(&c);
	c.seq = 2048;
	CHECK(step_check(&w, &c, &eb) == 0);
	c.pp = 64;
	CHECK(step_check(&w, &c, &eb) < 0);
	CHECK(strstr(eb.msg, "does not divide the 96 layers") != NULL);
	/* 96 over 5: 20 on the 3 middle stages, 18 on the first and the last. */
	c.pp = 5;
	CHECK(step_check(&w, &c, &eb) == 0);
	c.pp = 2;
	c.zero = 3;
	CHECK(step_check(&w, &c, &eb) < 0);
	c.zero = 0;
	c.global_batch = 3;
	c.dp = 2;
	CHECK(step_check(&w, &c, &eb) < 0);
	c.global_batch = 0;
	c.ep = 2;
	CHECK(step_check(&w, &c, &eb) < 0);   /* no experts */
	/*
	 * Interleaved: 96 layers over pp 48 leave 2 a stage; v 2 is one layer
	 * a chunk, v 4 would be half a layer.  126 over 64 (uneven: 2 a middle
	 * stage, 1 on the first and last) takes v 2, the first stage's first
	 * chunk the embedding alone and the last stage's last the loss (Llama
	 * 3's layout, section 3.3.2), and refuses v 3.
	 */
	c.ep = 1;
	c.dp = 1;
	c.pp = 48;
	c.global_batch = 96;
	c.schedule = PP_INTERLEAVED;
	c.virt = 2;
	CHECK(step_check(&w, &c, &eb) == 0);
	c.virt = 4;
	CHECK(step_check(&w, &c, &eb) < 0);
	w.layers = 126;
	c.pp = 64;
	c.global_batch = 128;
	c.virt = 2;
	CHECK(step_check(&w, &c, &eb) == 0);
	c.virt = 3;
	c.global_batch = 192;
	CHECK(step_check(&w, &c, &eb) < 0);
	CHECK(strstr(eb.msg, "3 chunks per stage on a stage of 1 layers (pp 64)") != NULL);
	c.virt = 1;
	CHECK(step_check(&w, &c, &eb) == 0);
	/*
	 * DeepSpeed's pipeline engine: 1F1B alone, ZeRO 0 or 1.  The same
	 * interleaved layout as above passes under megatron and fsdp.
	 */
	w.layers = 96;
	c.pp = 48;
	c.global_batch = 96;
	c.schedule = PP_INTERLEAVED;
	c.virt = 2;
	c.framework = FW_DEEPSPEED;
	CHECK(step_check(&w, &c, &eb) < 0);
	CHECK(strstr(eb.msg, "the interleaved schedule does not run under deepspeed") != NULL);
	c.framework = FW_FSDP;
	CHECK(step_check(&w, &c, &eb) == 0);
	c.framework = FW_DEEPSPEED_2021;
	c.schedule = PP_1F1B;
	c.virt = 1;
	CHECK(step_check(&w, &c, &eb) == 0);
	c.dp = 2;
	c.zero = 1;
	CHECK(step_check(&w, &c, &eb) == 0);
	c.zero = 2;
	CHECK(step_check(&w, &c, &eb) < 0);
	CHECK(strstr(eb.msg, "ZeRO stage 2 does not combine with pipeline parallelism under "
			     "deepspeed-2021") != NULL);
	c.framework = FW_MEGATRON;
	CHECK(step_check(&w, &c, &eb) == 0);   /* Megatron-FSDP's optim_grads */
	c.framework = FW_DEEPSPEED;
	c.pp = 1;
	CHECK(step_check(&w, &c, &eb) == 0);   /* no pipeline: the engine is DeepSpeed's */
	/* cp under DeepSpeed (Ulysses' in its runs) is priced as ring: taken */
	c.cp = 2;
	c.dp = 1;
	CHECK(step_check(&w, &c, &eb) == 0);
}

/*
 * The commands agree: pure data parallelism in step gives the same
 * gradient all-reduce as ddp for the same gradient, and zero's stage-3
 * time for a workload is the step ledger's ZeRO-3 rows.
 */
void test_step_agrees_with_ddp_and_zero(void)
{
	struct workload w = gpt3();
	struct step_config c;
	struct step_result r;
	struct errbuf eb;
	struct cost_model rm = ring_model(), mm = ms_model();
	struct step_pricing pr = { &mm, ALGO_AUTO, STEP_BAND_NONE, 0, 0, NULL };

	(void)rm; (void)mm; (void)pr;
	struct ddp_params dp;
	struct ddp_step ds;
	struct zero_params zp;
	struct zero_cost zc;
	struct layer_params lp;
	double params;

	w.layers = 4;      /* small enough for one GPU's arithmetic */
	step_config_init(&c);
	c.dp = 64;
	c.seq = 2048;
	CHECK(step_run(&w, &c, NULL, &rm, STEP_BAND_NONE, &r, &eb) == 0);
	workload_layer_params(&w, &lp);
	/* every parameter: the layers, the embedding and the output layer */
	params = 4 * (lp.attn + lp.mlp + lp.other) + workload_embed_params(&w);
	DBL_NEAR(r.stage_params, params, 1e-15);

	ddp_params_init(&dp);
	dp.grad_bytes = 4 * params;
	dp.compute = 1;
	ddp_step(&dp, ring_link(), 64, &ds);
	DBL_NEAR(r.dp_comm_s, ds.comm_s, 1e-15);

	zero_params_init(&zp);
	zp.params = params;
	zp.grad_bytes = 4;
	zp.layers = 4;
	zero_cost(&zp, ring_link(), 64, 0, &zc);
	DBL_NEAR(zc.comm_s, ds.comm_s, 1e-15);
	zero_cost(&zp, ring_link(), 64, 3, &zc);
	c.zero = 3;
	CHECK(step_run(&w, &c, NULL, &rm, STEP_BAND_NONE, &r, &eb) == 0);
	DBL_NEAR(r.dp_comm_s, zc.comm_s, 1e-15);
}

/* The names of the step's choices read back as written, and a wrong one
 * is refused with the name and the choices. */
void test_step_names(void)
{
	enum step_framework f;
	enum step_cp_form cf;
	enum recompute rc;
	struct errbuf eb;
	int i;

	for (i = 0; i < FW_COUNT; i++) {
		CHECK(step_framework_lookup(step_framework_name((enum step_framework)i), &f, &eb) == 0);
		CHECK(f == (enum step_framework)i);
	}
	CHECK(step_framework_lookup("jax", &f, &eb) < 0);
	CHECK(strstr(eb.msg, "'jax'") && strstr(eb.msg, "deepspeed-2021"));
	/* the names frameworks go by: each read as the one whose code it runs */
	CHECK(step_framework_lookup("megatron-lm", &f, &eb) == 0 && f == FW_MEGATRON);
	CHECK(step_framework_lookup("NeMo", &f, &eb) == 0 && f == FW_MEGATRON);
	CHECK(step_framework_lookup("megatron_bridge", &f, &eb) == 0 && f == FW_MEGATRON);
	CHECK(step_framework_lookup("torchtitan", &f, &eb) == 0 && f == FW_FSDP);
	CHECK(step_framework_lookup("FSDP2", &f, &eb) == 0 && f == FW_FSDP);
	CHECK(step_framework_lookup("metaseq", &f, &eb) == 0 && f == FW_FSDP);
	CHECK(step_framework_lookup("FairScale", &f, &eb) == 0 && f == FW_FSDP);
	CHECK(step_framework_lookup("composer", &f, &eb) == 0 && f == FW_FSDP);
	CHECK(step_framework_lookup("torchtune", &f, &eb) == 0 && f == FW_FSDP);
	CHECK(step_framework_lookup("megatron-deepspeed", &f, &eb) == 0 && f == FW_DEEPSPEED);
	CHECK(step_framework_lookup("DeepSpeed-2021", &f, &eb) == 0 && f == FW_DEEPSPEED_2021);
	CHECK(step_framework_lookup("deepspeed-2022", &f, &eb) < 0);
	CHECK(step_framework_lookup("megatron-", &f, &eb) < 0);
	{
		enum step_precision pr;

		CHECK(step_precision_lookup("MXFP8", &pr, &eb) == 0 && pr == PREC_FP8);
		CHECK(step_precision_lookup("FP8-CS", &pr, &eb) == 0 && pr == PREC_FP8);
		CHECK(step_precision_lookup("fp8_ds", &pr, &eb) == 0 && pr == PREC_FP8);
		CHECK(step_precision_lookup("BF16", &pr, &eb) == 0 && pr == PREC_BF16);
		CHECK(step_precision_lookup("bfloat16", &pr, &eb) == 0 && pr == PREC_BF16);
		CHECK(step_precision_lookup("nvfp4", &pr, &eb) < 0);
		CHECK(strstr(eb.msg, "'nvfp4'") && strstr(eb.msg, "not modelled"));
	}
	for (i = 0; i < CP_FORM_COUNT; i++) {
		CHECK(step_cp_form_lookup(step_cp_form_name((enum step_cp_form)i), &cf, &eb) == 0);
		CHECK(cf == (enum step_cp_form)i);
	}
	CHECK(step_cp_form_lookup("ulysses", &cf, &eb) < 0);
	for (i = 0; i < RC_COUNT; i++) {
		CHECK(recompute_lookup(recompute_name((enum recompute)i), &rc, &eb) == 0);
		CHECK(rc == (enum recompute)i);
	}
	CHECK(recompute_lookup("partial", &rc, &eb) < 0);
	CHECK(!strcmp(step_dim_name(DIM_DP), "dp") && !strcmp(step_phase_name(PH_OPTIMIZER), "optimizer"));
	CHECK(!strcmp(step_framework_name(FW_COUNT), "?"));
	CHECK(step_framework_deepspeed(FW_DEEPSPEED_2021) && !step_framework_deepspeed(FW_FSDP));
	DBL_NEAR(step_framework_grad_bytes(FW_DEEPSPEED), 2, 0);
	DBL_NEAR(step_framework_grad_bytes(FW_MEGATRON), 4, 0);
}

/*
 * Which fused attention runs at FlashAttention-2's rates (models/step.md,
 * "Attention"): --attention flash2 under any framework, and by default
 * PyTorch's SDPA under --framework fsdp, in bf16 and fp8 (torchao's Float8
 * converts the linears alone); not Transformer Engine's kernels (the
 * default under megatron, or named with --attention fused), never unfused
 * attention.
 */
void test_step_attention_flash2(void)
{
	struct step_config c;
	enum attention_kind a;
	struct errbuf eb;

	memset(&c, 0, sizeof(c));
	c.framework = FW_MEGATRON;
	c.attention = ATTN_AUTO;
	CHECK(!step_attention_flash2(&c));
	CHECK(attention_lookup("flash2", &a, &eb) == 0 && a == ATTN_FLASH2);
	c.attention = a;
	CHECK(step_attention_flash2(&c));
	c.framework = FW_FSDP;
	c.attention = ATTN_AUTO;
	CHECK(step_attention_flash2(&c));
	c.precision = PREC_FP8;
	CHECK(step_attention_flash2(&c));
	c.framework = FW_MEGATRON;
	CHECK(!step_attention_flash2(&c));
	c.framework = FW_FSDP;
	c.precision = PREC_BF16;
	c.attention = ATTN_UNFUSED;
	CHECK(!step_attention_flash2(&c));
	/* named fused: Transformer Engine's kernel, even under fsdp */
	c.attention = ATTN_FUSED;
	CHECK(!step_attention_flash2(&c));
	CHECK(attention_lookup("flash3", &a, &eb) < 0 && strstr(eb.msg, "flash2"));
}

/*
 * step_run_stated: without a band the step's own stated error and the
 * step itself for the collectives' ends; asked for a band on a model
 * whose collectives have none (the ring's alpha-beta), the first
 * collective without one is named (1 + OP_ALLREDUCE) and the step keeps
 * its own band, as step prints it ("has no band of its own").
 */
void test_step_run_stated(void)
{
	struct workload w = gpt3();
	struct step_config c;
	struct step_result r;
	struct step_stated st;
	struct step_compute cs = { 312e12, 0.5, 0, NULL, 0, 0 };
	struct errbuf eb;
	struct cost_model rm = ring_model();

	w.layers = 4;
	step_config_init(&c);
	c.dp = 8;
	c.seq = 2048;
	c.global_batch = 8;
	CHECK(step_run_stated(&w, &c, &cs, &rm, 0, &r, &st, &eb) == 0);
	CHECK(r.step_s > 0);
	INT_EQ(st.banded, 0);
	INT_EQ(st.missing, 0);
	DBL_NEAR(st.coll_lo_s, r.step_s, 0);
	DBL_NEAR(st.coll_hi_s, r.step_s, 0);
	DBL_NEAR(st.lo_s, r.step_lo_s, 0);
	DBL_NEAR(st.hi_s, r.step_hi_s, 0);
	DBL_NEAR(r.step_lo_s, EXPECT_BAND_LO * r.step_s, 1e-12);
	DBL_NEAR(r.step_hi_s, EXPECT_BAND_HI * r.step_s, 1e-12);
	CHECK(step_run_stated(&w, &c, &cs, &rm, 1, &r, &st, &eb) == 0);
	INT_EQ(st.banded, 0);
	INT_EQ(st.missing, 1 + (int)OP_ALLREDUCE);
	DBL_NEAR(r.step_lo_s, EXPECT_BAND_LO * r.step_s, 1e-12);
}
