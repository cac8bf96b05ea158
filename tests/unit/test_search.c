/*
 * Unit tests of the configuration search (src/search.c): what it
 * enumerates, that every row fits and uses every GPU, the order and the
 * Pareto front.
 */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "search.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"

/* Every collective on one link of 10 µs and 1 GB/s, priced by the cost core. */
static struct cost_model S_model(void)
{
	static const struct link lk = { 10e-6, 1e9, 0 };
	struct cost_model m;

	cost_model_link(&m, &lk);
	return m;
}

static struct workload small(void)
{
	struct workload w;

	memset(&w, 0, sizeof(w));
	w.arch = WL_LLAMA;
	w.layers = 8; w.hidden = 1024; w.heads = 8; w.kv_heads = 8; w.ffn = 4096;
	w.vocab = 32000; w.seq = 1024; w.experts = w.top_k = 1;
	return w;
}

/*
 * 4 GPUs, B = 4, 8 layers, no context parallelism, micro-batches up to 1:
 * (t, p, d) in (1,1,4) (1,2,2) (1,4,1) (2,1,2) (2,2,1) (4,1,1);
 * ZeRO 0-3 where d > 1 and p = 1, 0-1 where d > 1 and p > 1, 0 alone at
 * d = 1; schedules with p > 1: 1f1b, gpipe, interleaved v = 2 (m % p = 0
 * needed: m = 4/d); each with 3 recomputation modes.
 */
void test_search_enumeration(void)
{
	struct workload w = small();
	struct search_space sp;
	struct step_compute cs = { 100e12, 0.5, 0, NULL };
	struct cost_model cm = S_model();
	struct search_result r = { 0 };
	struct errbuf eb;
	double gpus[] = { 4 };
	size_t i;

	search_space_init(&sp, &w);
	sp.global_batch = 4;
	sp.gpu_memory = 1e15;    /* everything fits */
	sp.max_cp = 1;
	sp.max_mb = 1;
	sp.max_virt = 2;
	CHECK(search_run(&sp, gpus, 1, &cs, &cm, &r, &eb) == 0);
	/*
	 * (1,1,4): 4 zero x 1 sched = 4;  (1,2,2): 2 zero x (1f1b, gpipe, v2) = 6;
	 * (1,4,1): 1 x 3 = 3;  (2,1,2): 4;  (2,2,1): 1 x 3 = 3;  (4,1,1): 1.
	 * 21 configurations x 3 recomputation modes = 63.
	 */
	INT_EQ(r.n, 63);
	for (i = 0; i < r.n; i++) {
		const struct step_config *c = &r.cand[i].c;

		DBL_NEAR((double)(c->tp * c->pp * c->dp * c->cp), 4, 0);
		if (i)
			CHECK(r.cand[i - 1].step_s <= r.cand[i].step_s);
	}
	/* The fastest is on the front; so is the cheapest. */
	CHECK(r.cand[0].pareto);
	search_release(&r);
}

/* A memory limit: every row fits, and a tighter limit keeps fewer. */
void test_search_memory(void)
{
	struct workload w = small();
	struct search_space sp;
	struct step_compute cs = { 100e12, 0.5, 0, NULL };
	struct cost_model cm = S_model();
	struct search_result r = { 0 }, r2 = { 0 };
	struct errbuf eb;
	double gpus[] = { 8, 16 };
	size_t i;

	search_space_init(&sp, &w);
	sp.global_batch = 64;
	sp.gpu_memory = 2e9 + STEP_RESERVE_B;
	CHECK(search_run(&sp, gpus, 2, &cs, &cm, &r, &eb) == 0);
	CHECK(r.n > 0);
	for (i = 0; i < r.n; i++)
		CHECK(r.cand[i].memory_B <= 2e9 + STEP_RESERVE_B);
	sp.gpu_memory = 0.5e9 + STEP_RESERVE_B;
	CHECK(search_run(&sp, gpus, 2, &cs, &cm, &r2, &eb) == 0);
	CHECK(r2.n < r.n);
	search_release(&r);
	search_release(&r2);
}

/* The front, by hand: (gpus, step) = (8, 1), (16, 0.6), (16, 0.9), (32, 0.5). */
void test_search_pareto(void)
{
	struct search_cand c[4];
	struct search_result r = { c, 4, 4, 0, 0 };

	memset(c, 0, sizeof(c));
	c[0].gpus = 32; c[0].step_s = 0.5;   /* 16 GPU-s: fastest, on it */
	c[1].gpus = 16; c[1].step_s = 0.6;   /* 9.6: on it */
	c[2].gpus = 16; c[2].step_s = 0.9;   /* 14.4: slower and dearer than [1] */
	c[3].gpus = 8;  c[3].step_s = 1.0;   /* 8: on it */
	search_pareto(&r);
	INT_EQ(c[0].pareto, 1);
	INT_EQ(c[1].pareto, 1);
	INT_EQ(c[2].pareto, 0);
	INT_EQ(c[3].pareto, 1);
}
