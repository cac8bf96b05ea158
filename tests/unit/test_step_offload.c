/*
 * Unit tests of --offload-activations (models/step-teams.md, "Activation
 * offload"): the waits on the host link against timelines worked by hand,
 * the bytes that leave the GPU, Megatron-Core's refusals.
 */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "step_fix.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"

/*
 * L = 4 layers, the first N = 2 offloaded, forward 1 s and backward 2 s a
 * layer, a copy 3 s each way, one stream:
 *   forward:  layer 0 [0, 1]; layer 0 out [1, 4]; layer 1 [1, 2]; layer 1
 *             out [4, 7]; layer 2 waits for layer 0 out: 2 s, [4, 5];
 *             layer 3 waits for layer 1 out: 2 s, [7, 8]
 *   backward: layer 3 [8, 10]; layer 1 back from layer 2's backward on,
 *             [10, 13]; layer 2 [10, 12]; layer 0 back [13, 16]; layer 1
 *             waits 1 s, [13, 15]; layer 0 waits 1 s, [16, 18]
 * 2 + 2 + 1 + 1 = 6 s.
 */
void test_offload_wait_by_hand(void)
{
	DBL_NEAR(step_offload_wait_s(4, 2, 1, 2, 3), 6, 1e-15);
	/* copies shorter than a layer's forward: all hidden */
	CHECK(step_offload_wait_s(80, 40, 11e-3, 22e-3, 8e-3) == 0);
	/* L - N = 1: each copy waited for at once, 2 N copies: 2·1·0.5 */
	DBL_NEAR(step_offload_wait_s(2, 1, 1, 2, 0.5), 1, 1e-15);
	CHECK(isnan(step_offload_wait_s(4, 4, 1, 2, 3)));
	CHECK(isnan(step_offload_wait_s(4, 0, 1, 2, 3)));
}

/* GPT-3, one GPU, 8 micro-batches of 2048 tokens, 8 s of compute given. */
static int S_gpt3_offload(unsigned long n, double link, struct step_result *r)
{
	struct workload w = gpt3();
	struct step_config c;
	struct step_compute cs;
	struct cost_model m = free_model();
	struct errbuf eb;

	sched_fixture(&c, &cs, 1);
	c.offload = n;
	cs.host_link_Bps = link;
	return step_run(&w, &c, &cs, &m, STEP_BAND_NONE, r, &eb);
}

/*
 * GPT-3's layer without recomputation, fused attention, bf16 (Korthikanti
 * et al. 2022, Table 2 less the scores, + the log-sum-exp):
 * 34h + 4a = 34·12288 + 384 = 418176 bytes a token, 856424448 for 2048.
 * N = 48: 41108373504 B on the host a micro-batch, 2·8 times that over the
 * link a step.  N = 95 (L - N = 1): every copy waited for whole, 190 of
 * them a micro-batch at 1 GB/s: 190 x 0.856424448 s.
 */
void test_offload_bytes_and_wait(void)
{
	struct step_result r0, r;
	double layer = 2048 * (34 * 12288.0 + 4 * 96);

	CHECK(S_gpt3_offload(0, 0, &r0) == 0);
	CHECK(S_gpt3_offload(48, 1e15, &r) == 0);
	DBL_NEAR(r.offload.layer_B, layer, 1e-15);
	DBL_NEAR(r.mem.offload_B, 48 * layer, 1e-15);
	DBL_NEAR(r.offload.moved_B, 2 * 48 * layer * 8, 1e-15);
	DBL_NEAR(r.mem.act_B + r.mem.offload_B, r0.mem.act_B, 1e-12);
	DBL_NEAR(r.mem.total_B + 48 * layer, r0.mem.total_B, 1e-12);
	CHECK(r.offload.exposed_s == 0);
	DBL_NEAR(r.step_s, r0.step_s, 1e-15);
	CHECK(S_gpt3_offload(95, 1e9, &r) == 0);
	DBL_NEAR(r.offload.xfer_s, 0.856424448, 1e-12);
	DBL_NEAR(r.offload.exposed_s, 190 * 0.856424448, 1e-12);
	DBL_NEAR(r.step_s, r0.step_s + 8 * 190 * 0.856424448, 1e-12);
	/* no GPU known: PCIe Gen5's copy rate */
	CHECK(S_gpt3_offload(48, 0, &r) == 0);
	DBL_NEAR(r.offload.link_Bps, STEP_HOST_LINK_BPS, 1e-15);
}

/* Megatron-Core's refusals (transformer_config.py, __post_init__). */
void test_offload_refusals(void)
{
	struct workload w = gpt3();
	struct step_config c;
	struct errbuf eb;

	step_config_init(&c);
	c.seq = 2048;
	c.offload = 96;
	CHECK(step_check(&w, &c, &eb) < 0 && strstr(eb.msg, "at most 95"));
	c.offload = 95;
	CHECK(step_check(&w, &c, &eb) == 0);
	c.recompute = RC_FULL;
	CHECK(step_check(&w, &c, &eb) < 0 && strstr(eb.msg, "--recompute full"));
	c.recompute = RC_SELECTIVE;
	CHECK(step_check(&w, &c, &eb) < 0 && strstr(eb.msg, "recomputation"));
	c.recompute = RC_NONE;
	c.pp = 2;
	CHECK(step_check(&w, &c, &eb) < 0 && strstr(eb.msg, "pp 2"));
	c.pp = 1;
	c.framework = FW_FSDP;
	CHECK(step_check(&w, &c, &eb) < 0 && strstr(eb.msg, "fsdp"));
}

/* The host link: a preset's host_link, else 83 % of PCIe's x16 line rate. */
void test_host_link_default(void)
{
	struct gpu_spec g;

	memset(&g, 0, sizeof(g));
	g.pcie_gen = 4;
	DBL_NEAR(system_host_link_Bps(&g), 0.83 * 31.5e9, 1e-15);
	g.pcie_gen = 5;
	DBL_NEAR(system_host_link_Bps(&g), 0.83 * 63e9, 1e-15);
	g.host_link_Bps = 450e9;
	DBL_NEAR(system_host_link_Bps(&g), 450e9, 1e-15);
}
