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
 * d = 1; schedules with p > 1: 1f1b and interleaved v = 2 (m % p = 0
 * needed: m = 4/d; GPipe is not tried); each with 3 recomputation modes.
 */
void test_search_enumeration(void)
{
	struct workload w = small();
	struct search_space sp;
	struct step_compute cs = { 100e12, 0.5, 0, NULL, 0, 0 };
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
	 * (1,1,4): 4 zero x 1 sched = 4;  (1,2,2): 3 zero (0-2: ZeRO-2 shards
	 * gradients with a pipeline) x (1f1b, v2) = 6;
	 * (1,4,1): 1 x 2 = 2;  (2,1,2): 4;  (2,2,1): 1 x 2 = 2;  (4,1,1): 1.
	 * 19 configurations x 3 recomputation modes = 57.
	 */
	INT_EQ(r.n, 57);
	for (i = 0; i < r.n; i++) {
		const struct search_layout *c = &r.cand[i]->l;

		DBL_NEAR((double)(c->tp * c->pp * c->dp * c->cp), 4, 0);
		if (i)
			CHECK(r.cand[i - 1]->step_s <= r.cand[i]->step_s);
	}
	/* The fastest is on the front; so is the cheapest. */
	CHECK(r.cand[0]->pareto);
	search_release(&r);
}

/* A memory limit: every row fits, and a tighter limit keeps fewer. */
void test_search_memory(void)
{
	struct workload w = small();
	struct search_space sp;
	struct step_compute cs = { 100e12, 0.5, 0, NULL, 0, 0 };
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
		CHECK(r.cand[i]->memory_B <= 2e9 + STEP_RESERVE_B);
	sp.gpu_memory = 0.5e9 + STEP_RESERVE_B;
	CHECK(search_run(&sp, gpus, 2, &cs, &cm, &r2, &eb) == 0);
	CHECK(r2.n < r.n);
	search_release(&r);
	search_release(&r2);
}

/* The front, by hand: (gpus, step) = (8, 1), (16, 0.6), (16, 0.9), (32, 0.5). */
void test_search_pareto(void)
{
	struct search_cand c[4], *pc[4] = { &c[0], &c[1], &c[2], &c[3] };
	struct search_result r;

	memset(&r, 0, sizeof(r));
	r.cand = pc;
	r.n = 4;

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

/* --where: the keys, their two spellings, and what is refused. */
void test_search_where_parse(void)
{
	struct search_where wh;
	struct step_config c;
	struct errbuf eb;
	char buf[200];

	CHECK(search_where_parse("tp=8,pp=16,dp=64", &wh, &eb) == 0);
	INT_EQ(wh.tp, 8);
	INT_EQ(wh.pp, 16);
	INT_EQ(wh.dp, 64);
	INT_EQ(wh.cp, 0);
	INT_EQ(wh.zero, -1);
	INT_EQ(wh.schedule, -1);
	STR_EQ(search_where_text(buf, sizeof(buf), &wh), "tp 8, pp 16, dp 64, cp 1");
	/* tp, pp and dp without cp: cp 1, the layout of their product. */
	step_config_init(&c);
	c.tp = 8; c.pp = 16; c.dp = 64;
	CHECK(search_where_match(&wh, &c, 8192));
	c.cp = 2;
	CHECK(!search_where_match(&wh, &c, 16384));
	CHECK(search_where_parse("tp=8,pp=16", &wh, &eb) == 0);
	CHECK(search_where_match(&wh, &c, 16384));
	CHECK(search_where_parse("zero=0,micro_batch=2,schedule=interleaved,v=4,recompute=full,"
				 "gpus=64", &wh, &eb) == 0);
	INT_EQ(wh.zero, 0);
	DBL_NEAR(wh.micro_batch, 2, 0);
	INT_EQ(wh.schedule, PP_INTERLEAVED);
	INT_EQ(wh.virt, 4);
	INT_EQ(wh.recompute, RC_FULL);
	DBL_NEAR(wh.gpus, 64, 0);

	step_config_init(&c);
	c.tp = 8; c.pp = 2; c.dp = 4; c.micro_batch = 2; c.zero = 0;
	c.schedule = PP_INTERLEAVED; c.virt = 4; c.recompute = RC_FULL;
	CHECK(search_where_match(&wh, &c, 64));
	CHECK(!search_where_match(&wh, &c, 128));
	c.virt = 2;
	CHECK(!search_where_match(&wh, &c, 64));

	CHECK(search_where_parse("tp=8,mb=1,micro_batch=2", &wh, &eb) < 0);
	CHECK(strstr(eb.msg, "twice") != NULL);
	CHECK(search_where_parse("tq=8", &wh, &eb) < 0);
	CHECK(strstr(eb.msg, "unknown key 'tq'") != NULL);
	CHECK(search_where_parse("tp=0", &wh, &eb) < 0);
	CHECK(search_where_parse("tp=1.5", &wh, &eb) < 0);
	CHECK(search_where_parse("zero=4", &wh, &eb) < 0);
	CHECK(search_where_parse("tp", &wh, &eb) < 0);
	CHECK(search_where_parse("", &wh, &eb) < 0);
	CHECK(search_where_parse("tp=8,", &wh, &eb) < 0);
	CHECK(search_where_parse("schedule=zigzag", &wh, &eb) < 0);
	CHECK(strstr(eb.msg, "zigzag") != NULL);
}

/*
 * What is refused is counted by reason.  6 layers on 4 GPUs, B = 4, one
 * micro-batch size, no context parallelism, v up to 3: t = 1, 2, 4 (the 8
 * heads); p = 1, 2, 4 dividing 4/t; p = 4 splits the 6 layers unevenly,
 * 1, 2, 2, 1, which the step model accepts.  Refused, per recomputation
 * mode (x 3):
 *   p = 2, v = 2: 2 x 2 = 4 does not divide 6: (t=1, d=2) ZeRO 0, 1, 2
 *   and (t=2, d=1) ZeRO 0: 4;
 *   p = 2, ZeRO 3 (d = 2 at t = 1): 1f1b, v 2, v 3 = 3;
 *   p = 4, v = 3 (t = 1, d = 1): a middle stage of 2 layers cannot hold
 *   3 chunks: 1 (v = 2 runs, the end stages' second chunk the embedding
 *   or the loss alone);
 *   p = 2, v = 3: m = 4/d must be a multiple of 2: d = 2 gives m = 2, fine;
 *   d = 1, m = 4, fine: none.
 * 4 + 3 + 1 = 8 layouts, 24 configurations, in three groups.
 */
void test_search_refused_counted(void)
{
	struct workload w = small();
	struct search_space sp;
	struct step_compute cs = { 100e12, 0.5, 0, NULL, 0, 0 };
	struct cost_model cm = S_model();
	struct search_result r = { 0 };
	struct errbuf eb;
	double gpus[] = { 4 };
	size_t i, sum = 0;

	w.layers = 6;
	search_space_init(&sp, &w);
	sp.global_batch = 4;
	sp.gpu_memory = 1e15;
	sp.max_cp = 1;
	sp.max_mb = 1;
	sp.max_virt = 3;
	CHECK(search_run(&sp, gpus, 1, &cs, &cm, &r, &eb) == 0);
	INT_EQ(r.tried - r.valid, 24);
	INT_EQ(r.nreasons, 3);
	for (i = 0; i < r.nreasons; i++)
		sum += r.reason[i].count;
	INT_EQ(sum, 24);
	INT_EQ(r.reason[2].count, 3);
	CHECK(strstr(r.reason[2].key, "chunks per stage on a stage of # layers") != NULL);
	/* The most frequent first: v = 2 on 3 layers a stage (4 x 3), ZeRO 3 with a pipeline (3 x 3). */
	INT_EQ(r.reason[0].count, 12);
	CHECK(strstr(r.reason[0].example, "2 x 2 does not divide the 6 layers") != NULL);
	INT_EQ(r.reason[1].count, 9);
	CHECK(strstr(r.reason[1].example, "ZeRO stage 3") != NULL);
	CHECK(strstr(r.reason[1].key, "ZeRO stage # does not") != NULL);
	INT_EQ(r.refused_other, 0);
	search_release(&r);
}

/* The collectives are priced once each, and the answers are the same. */
void test_search_memo(void)
{
	struct workload w = small();
	struct search_space sp;
	struct step_compute cs = { 100e12, 0.5, 0, NULL, 0, 0 };
	struct cost_model cm = S_model();
	struct search_result r = { 0 };
	struct step_result s;
	struct errbuf eb;
	double gpus[] = { 16 };
	size_t i;

	search_space_init(&sp, &w);
	sp.global_batch = 64;
	sp.gpu_memory = 1e15;
	CHECK(search_run(&sp, gpus, 1, &cs, &cm, &r, &eb) == 0);
	CHECK(r.n > 100);
	CHECK(r.coll_evals > 0 && r.coll_evals * 10 < r.coll_calls);
	for (i = 0; i < r.n; i += 37) {
		struct step_config c;

		search_cand_config(&sp, r.cand[i], &c);
		CHECK(step_run(&w, &c, &cs, &cm, STEP_BAND_NONE, &s, &eb) == 0);
		DBL_NEAR(r.cand[i]->step_s, s.step_s, 0);
		DBL_NEAR(r.cand[i]->memory_B, s.mem.total_B, 0);
	}
	search_release(&r);
}

/*
 * The terms add up to the step: with 16 layers on 2 stages of tp 2 and
 * micro-batches of one 1024-token sequence, m = 8: exposed tp = 8 x the
 * tp rows of one micro-batch, and other = 0.
 */
void test_search_terms(void)
{
	struct workload w = small();
	struct step_config c;
	struct step_compute cs = { 100e12, 0.5, 0, NULL, 0, 0 };
	struct cost_model cm = S_model();
	struct step_result s;
	struct search_terms t;
	struct errbuf eb;
	double tp = 0, sum;
	int i;

	w.layers = 16;
	step_config_init(&c);
	c.tp = 2; c.pp = 2; c.dp = 2; c.sp = 1;
	c.global_batch = 16;
	c.seq = 1024;
	CHECK(step_run(&w, &c, &cs, &cm, STEP_BAND_NONE, &s, &eb) == 0);
	search_terms_of(&s, &t);
	for (i = 0; i < s.nrows; i++)
		if (s.rows[i].dim == DIM_TP)
			tp += s.rows[i].exposed_s;
	DBL_NEAR(s.microbatches, 8, 0);
	DBL_NEAR(t.exposed_s[DIM_TP], 8 * tp, 1e-12);
	DBL_NEAR(t.exposed_s[DIM_DP], s.dp_exposed_s, 0);
	DBL_NEAR(t.bubble_s, s.bubble_s, 0);
	DBL_NEAR(t.compute_s, s.compute_s, 0);
	sum = t.compute_s + t.bubble_s;
	for (i = 0; i < DIM_COUNT; i++)
		sum += t.exposed_s[i];
	DBL_NEAR(sum, s.step_s, 1e-12);
	DBL_NEAR(t.other_s, 0, 0);
	DBL_NEAR(t.memory_B, s.mem.total_B, 0);
}

/* The runner-up is the fastest with another layout, by hand. */
void test_search_runner_up(void)
{
	struct search_cand c[4], *pc[4] = { &c[0], &c[1], &c[2], &c[3] };
	struct search_result r;
	int i;

	memset(&r, 0, sizeof(r));
	memset(c, 0, sizeof(c));
	for (i = 0; i < 4; i++) {
		c[i].gpus = 8;
		c[i].l.tp = 2; c[i].l.pp = 2; c[i].l.dp = 2;
		c[i].step_s = 1 + i;
	}
	c[1].l.zero = 1;            /* the same layout, another ZeRO stage */
	c[2].l.pp = 4; c[2].l.dp = 1;
	r.cand = pc;
	r.n = 4;
	INT_EQ(search_runner_up(&r), 2);
	c[2].l.pp = 2; c[2].l.dp = 2;
	INT_EQ(search_runner_up(&r), 4);
	c[3].gpus = 16;             /* another GPU count is another layout */
	INT_EQ(search_runner_up(&r), 3);
}

/* A price whose products overflow is an error naming it, never inf. */
void test_search_price_overflow(void)
{
	struct workload w = small();
	struct search_space sp;
	struct step_compute cs = { 100e12, 0.5, 0, NULL, 0, 0 };
	struct cost_model cm = S_model();
	struct search_result r = { 0 };
	struct errbuf eb;
	double gpus[] = { 8 };

	search_space_init(&sp, &w);
	sp.global_batch = 8;
	sp.gpu_memory = 1e15;
	sp.price = 1e308;
	CHECK(search_run(&sp, gpus, 1, &cs, &cm, &r, &eb) < 0);
	CHECK(strstr(eb.msg, "cost per hour overflows") != NULL);
	CHECK(strstr(eb.msg, "1e+308") != NULL);
	search_release(&r);

	/*
	 * 1e300 x 8 GPUs per hour is finite; 1e20 tokens at some 1e6 tokens/s
	 * take 3e10 hours, whose cost is not.
	 */
	sp.price = 1e300;
	sp.run_tokens = 1e20;
	CHECK(search_run(&sp, gpus, 1, &cs, &cm, &r, &eb) < 0);
	CHECK(strstr(eb.msg, "the cost of the run overflows") != NULL);
	search_release(&r);
	sp.price = 2.5;
	CHECK(search_run(&sp, gpus, 1, &cs, &cm, &r, &eb) == 0);
	CHECK(r.n > 0 && isfinite(r.cand[0]->run_cost));
	DBL_NEAR(r.cand[0]->cost_per_hour, 20, 1e-15);
	search_release(&r);
}

/*
 * The configurations --where names: counted as tried, refused, unfit and
 * fitting, with the least memory of those that do not fit.
 */
void test_search_named(void)
{
	struct workload w = small();
	struct search_space sp;
	struct search_where wh;
	struct step_compute cs = { 100e12, 0.5, 0, NULL, 0, 0 };
	struct cost_model cm = S_model();
	struct search_result r = { 0 };
	struct errbuf eb;
	double gpus[] = { 4 };

	w.layers = 6;
	search_space_init(&sp, &w);
	sp.global_batch = 4;
	sp.gpu_memory = 1e15;
	sp.max_cp = 1;
	sp.max_mb = 1;
	sp.max_virt = 3;
	CHECK(search_where_parse("pp=2,v=2,zero=0", &wh, &eb) == 0);
	sp.where = &wh;
	CHECK(search_run(&sp, gpus, 1, &cs, &cm, &r, &eb) == 0);
	/* v = 2 on 3 layers a stage, (t=1, d=2) and (t=2, d=1), x 3: all refused. */
	INT_EQ(r.named.tried, 6);
	INT_EQ(r.named.refused, 6);
	INT_EQ(r.named.fit, 0);
	CHECK(strstr(r.named.refused_why, "does not divide the 6 layers") != NULL);
	search_release(&r);

	CHECK(search_where_parse("tp=2,pp=2", &wh, &eb) == 0);
	sp.gpu_memory = 1;   /* nothing fits */
	CHECK(search_run(&sp, gpus, 1, &cs, &cm, &r, &eb) == 0);
	INT_EQ(r.n, 0);
	/* t = 2, p = 2, d = 1: ZeRO 0; 1f1b, v 3 (v 2 refused); 3 modes under
	 * megatron, which has no per-operator levels: 3 + 3 + 3 tried, 3
	 * refused, 6 unfit. */
	INT_EQ(r.named.tried, 9);
	INT_EQ(r.named.refused, 3);
	INT_EQ(r.named.unfit, 6);
	CHECK(r.named.unfit_memory_B > 1);
	INT_EQ(r.named.unfit_c.tp, 2);
	search_release(&r);
	/* Under fsdp, where none is valid but does not fit (1f1b, v 3), the 2
	 * per-operator levels too: 3 + 3 + 3 + 2 + 2 tried, 3 refused, 6 + 4
	 * unfit. */
	sp.framework = FW_FSDP;
	CHECK(search_run(&sp, gpus, 1, &cs, &cm, &r, &eb) == 0);
	INT_EQ(r.named.tried, 13);
	INT_EQ(r.named.refused, 3);
	INT_EQ(r.named.unfit, 10);
	search_release(&r);
}

/* Context parallelism in both forms the step model offers, and only with cp > 1. */
void test_search_cp_forms(void)
{
	struct workload w = small();
	struct search_space sp;
	struct search_where wh;
	struct step_compute cs = { 100e12, 0.5, 0, NULL, 0, 0 };
	struct cost_model cm = S_model();
	struct search_result r = { 0 };
	struct errbuf eb;
	double gpus[] = { 4 };
	size_t i, ring = 0, ag = 0, ag1 = 0;

	search_space_init(&sp, &w);
	sp.global_batch = 4;
	sp.gpu_memory = 1e15;
	sp.max_cp = 2;
	sp.max_mb = 1;
	CHECK(search_run(&sp, gpus, 1, &cs, &cm, &r, &eb) == 0);
	for (i = 0; i < r.n; i++) {
		const struct search_layout *c = &r.cand[i]->l;

		if (c->cp > 1 && c->cp_form == CP_RING)
			ring++;
		if (c->cp > 1 && c->cp_form == CP_ALLGATHER)
			ag++;
		if (c->cp == 1 && c->cp_form != CP_RING)
			ag1++;
	}
	CHECK(ring > 0);
	INT_EQ(ag, ring);
	INT_EQ(ag1, 0);
	search_release(&r);
	CHECK(search_where_parse("cp=2,cp_form=allgather", &wh, &eb) == 0);
	INT_EQ(wh.cp_form, CP_ALLGATHER);
	CHECK(search_where_parse("cp_form=zigzag", &wh, &eb) < 0);
	CHECK(strstr(eb.msg, "cp_form") != NULL);

	/* Under DeepSpeed, cp 1 alone: no candidate with cp > 1; a --where
	 * that names cp 2 is tried and priced (as ring). */
	sp.framework = FW_DEEPSPEED;
	CHECK(search_run(&sp, gpus, 1, &cs, &cm, &r, &eb) == 0);
	CHECK(r.n > 0);
	for (i = 0, ring = 0; i < r.n; i++)
		ring += r.cand[i]->l.cp > 1;
	INT_EQ(ring, 0);
	search_release(&r);
	CHECK(search_where_parse("cp=2", &wh, &eb) == 0);
	sp.where = &wh;
	CHECK(search_run(&sp, gpus, 1, &cs, &cm, &r, &eb) == 0);
	CHECK(r.named.tried > 0);
	CHECK(r.named.fit > 0);
	search_release(&r);
}

/*
 * A stage holds at least one layer per chunk of the interleaved schedule,
 * save the first stage's embedding and the last stage's loss, a chunk
 * each: 6 layers on 4 stages split 1, 2, 2, 1 (the step model's uneven
 * split) run v = 2 (Llama 3's layout, one layer a chunk) but not v = 3,
 * which is counted with the other refusals.
 */
void test_search_chunk_rule(void)
{
	struct workload w = small();
	struct search_space sp;
	struct step_compute cs = { 100e12, 0.5, 0, NULL, 0, 0 };
	struct cost_model cm = S_model();
	struct search_result r = { 0 };
	struct errbuf eb;
	double gpus[] = { 4 };
	size_t i, found = 0;
	int v2 = 0;

	w.layers = 6;
	search_space_init(&sp, &w);
	sp.global_batch = 4;
	sp.gpu_memory = 1e15;
	sp.max_cp = 1;
	sp.max_mb = 1;
	sp.max_virt = 3;
	CHECK(search_run(&sp, gpus, 1, &cs, &cm, &r, &eb) == 0);
	for (i = 0; i < r.n; i++) {
		CHECK(!(r.cand[i]->l.pp == 4 && r.cand[i]->l.schedule == PP_INTERLEAVED &&
			r.cand[i]->l.virt != 2));
		if (r.cand[i]->l.pp == 4 && r.cand[i]->l.schedule == PP_INTERLEAVED)
			v2 = 1;
	}
	CHECK(v2);
	for (i = 0; i < r.nreasons; i++)
		if (strstr(r.reason[i].example, "3 chunks per stage on a stage of 1 layers (pp 4)")) {
			/* t = 1, d = 1, ZeRO 0: one layout, 3 recomputation modes. */
			INT_EQ(r.reason[i].count, 3);
			found = 1;
		}
	CHECK(found);
	search_release(&r);
}

/* The default largest CP size: 8 up to 65536 tokens, then 8192 tokens a rank. */
void test_search_max_cp(void)
{
	CHECK(search_max_cp(4096) == 8);
	CHECK(search_max_cp(65536) == 8);
	CHECK(search_max_cp(65537) == 9);
	CHECK(search_max_cp(131072) == 16);	/* Llama 3 405B's long-context stage */
	CHECK(search_max_cp(1048576) == 128);
}
