/*
 * Unit tests of how the search walks its space fast without changing its
 * answer (src/search.c, src/step.c): step_check in parts, each reading
 * only the fields it names; the search's counts against a walk that checks
 * every configuration whole; a configuration too large not priced
 * (step_run_fit); the ranks ZeRO shards over (step_zero_ranks).
 */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "search.h"
#include "search_int.h"
#include "step_fix.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"

/* The first part that refuses, and its message; CHECK_PARTS when none. */
static int S_first_part(const struct workload *w, const struct step_config *c, struct errbuf *eb)
{
	int part;

	for (part = 0; part < CHECK_PARTS; part++)
		if (step_check_part(w, c, (enum step_check_part)part, eb) < 0)
			return part;
	return CHECK_PARTS;
}

/* A Mixtral-like workload small enough to walk: 8 experts, top 2. */
static struct workload S_moe(void)
{
	struct workload w;

	memset(&w, 0, sizeof(w));
	w.arch = WL_LLAMA;
	w.layers = 6; w.hidden = 1024; w.heads = 8; w.kv_heads = 4; w.ffn = 2048;
	w.vocab = 32000; w.seq = 4096; w.experts = 8; w.top_k = 2;
	snprintf(w.name, sizeof(w.name), "moe");
	return w;
}

/*
 * step_check is its parts in order: over a grid of configurations, good
 * and bad in every part, step_check refuses exactly when a part does,
 * with the first refusing part's message.  And each part reads only the
 * fields step.h names for it: the fields of the later parts changed, its
 * verdict and message stay.
 */
void test_step_check_parts(void)
{
	struct workload w = S_moe();
	static const unsigned long sizes[] = { 1, 2, 3, 4, 8 };
	struct step_config c, d;
	struct errbuf e1, e2, e3;
	size_t it, ip, ic, ie, n = 0, refused[CHECK_PARTS + 1] = { 0 };
	int z, part;

	for (it = 0; it < 5; it++)
		for (ip = 0; ip < 5; ip++)
			for (ic = 0; ic < 5; ic++)
				for (ie = 0; ie < 5; ie++)
					for (z = 0; z <= 3; z++) {
		step_config_init(&c);
		c.tp = sizes[it]; c.pp = sizes[ip]; c.cp = sizes[ic]; c.ep = sizes[ie];
		c.dp = 4; c.zero = z; c.seq = 4096; c.global_batch = 16;
		c.micro_batch = 1 + (double)(it + ie) / 2; c.sp = c.tp > 1;
		c.schedule = ip % 2 ? PP_INTERLEAVED : PP_1F1B;
		c.virt = ip % 2 ? 2 : 1;
		part = S_first_part(&w, &c, &e1);
		refused[part]++;
		n++;
		if (part == CHECK_PARTS) {
			CHECK(step_check(&w, &c, &e2) == 0);
			continue;
		}
		CHECK(step_check(&w, &c, &e2) < 0);
		STR_EQ(e2.msg, e1.msg);
		/* what the later parts read, changed: this part says the same */
		d = c;
		switch (part) {
		case CHECK_LAYOUT:
			d.cp = 3; d.dp = 5; d.ep = 2;
			/* fall through */
		case CHECK_CP:
			d.ep = 3; d.etp = 2; d.dp = 7;
			/* fall through */
		case CHECK_EXPERTS:
			d.zero = 3; d.dp_replicate = 2;
			/* fall through */
		case CHECK_SHARDING:
			d.micro_batch = 3;
			/* fall through */
		case CHECK_BATCH:
			d.schedule = PP_INTERLEAVED; d.virt = 5;
			/* fall through */
		default:
			d.recompute = RC_FULL; d.cp_form = CP_ALLGATHER;
			break;
		}
		if (part == CHECK_CP || part == CHECK_EXPERTS || part == CHECK_SHARDING ||
		    part == CHECK_BATCH)
			d.dp = c.dp;   /* read by these parts: kept */
		if (part == CHECK_LAYOUT)
			d.dp = d.cp = d.ep = 1;   /* read only for being at least 1 */
		CHECK(step_check_part(&w, &d, (enum step_check_part)part, &e3) < 0);
		STR_EQ(e3.msg, e1.msg);
	}
	/* the grid reaches every part, and configurations that pass */
	INT_EQ(n, 5 * 5 * 5 * 5 * 4);
	for (part = 0; part <= CHECK_PARTS; part++)
		CHECK(refused[part] > 0);
}

/* The grid of one search of `N` GPUs of one node, checked configuration by configuration. */
struct S_brute {
	size_t tried, valid, named, named_refused;
	struct search_reason reason[8];
	size_t nreasons;
};

static void S_brute_count(struct S_brute *b, const char *msg)
{
	size_t i;

	for (i = 0; i < b->nreasons; i++)
		if (!strcmp(b->reason[i].example, msg)) {
			b->reason[i].count++;
			return;
		}
	if (b->nreasons < 8) {
		snprintf(b->reason[b->nreasons].example, sizeof(b->reason[0].example), "%s", msg);
		b->reason[b->nreasons++].count = 1;
	}
}

/*
 * What search_run walks for a dense workload on N GPUs of one node, no
 * context parallelism, one expert: t, p, d, the ZeRO stages, the
 * micro-batches, the schedules and chunks and the three recomputation
 * levels (the memory never binds), each checked whole by step_check.
 */
static void S_brute_walk(const struct workload *w, const struct search_space *sp, double N,
			 const struct search_where *wh, struct S_brute *b)
{
	double t, p, d, z, mb, f;
	unsigned long v;
	int sc, rc;
	struct errbuf eb;

	for (t = 1; t <= N && t <= 8; t++)
		for (p = 1; fmod(N, t) == 0 && p <= N / t; p++) {
			if (fmod(N / t, p) != 0)
				continue;
			d = N / (t * p);
			if (fmod(sp->global_batch, d) != 0)
				continue;
			for (z = 0; z <= 3 && !(z > 0 && d == 1); z++)
				for (mb = 1; mb <= sp->global_batch / d && mb <= (double)sp->max_mb; mb++) {
					if (fmod(sp->global_batch / d, mb) != 0)
						continue;
					for (sc = 0; sc < 2; sc++)
						for (v = sc ? 2 : 1; v <= (sc ? sp->max_virt : 1) && !(sc && p == 1); v++)
							for (rc = 0; rc < 3; rc++) {
								struct step_config c;

								step_config_init(&c);
								c.tp = (unsigned long)t; c.pp = (unsigned long)p;
								c.dp = (unsigned long)d; c.zero = (int)z;
								c.sp = t > 1; c.micro_batch = mb;
								c.global_batch = sp->global_batch; c.seq = sp->seq;
								c.grad_bytes = sp->grad_bytes;
								c.schedule = sc ? PP_INTERLEAVED : PP_1F1B;
								c.virt = v; c.recompute = (enum recompute)rc;
								f = search_where_match(wh, &c, N);
								b->tried++;
								b->named += f != 0;
								if (step_check(w, &c, &eb) < 0) {
									S_brute_count(b, eb.msg);
									b->named_refused += f != 0;
								} else {
									b->valid++;
								}
							}
				}
		}
}

/*
 * The search's counts, found part by part and subtree by subtree, equal
 * those of a walk that checks every configuration whole: configurations
 * tried, valid, refused by each message, and those a --where names.
 */
void test_search_walk_counts(void)
{
	struct workload w = gpt3();
	struct search_space sp;
	struct search_where wh;
	struct step_compute cs = { 100e12, 0.5, 0, NULL, 0, 0 };
	struct cost_model cm = ring_model();
	struct search_result r = { 0 };
	struct S_brute b;
	struct errbuf eb;
	double gpus[] = { 8 };
	size_t i, j, sum = 0;

	w.layers = 6;
	w.heads = 12; w.kv_heads = 12;   /* tp 8 refused, tp 4 taken */
	search_space_init(&sp, &w);
	sp.seq = 2048;
	sp.global_batch = 8;
	sp.gpu_memory = 1e15;
	sp.max_cp = 1;
	sp.max_mb = 2;
	sp.max_virt = 3;
	CHECK(search_where_parse("pp=8", &wh, &eb) == 0);
	sp.where = &wh;
	CHECK(search_run(&sp, gpus, 1, &cs, &cm, &r, &eb) == 0);
	memset(&b, 0, sizeof(b));
	S_brute_walk(&w, &sp, 8, &wh, &b);
	INT_EQ(r.tried, b.tried);
	INT_EQ(r.valid, b.valid);
	INT_EQ(r.n, b.valid);   /* all fit */
	INT_EQ(r.named.tried, b.named);
	INT_EQ(r.named.refused, b.named_refused);
	CHECK(r.named.tried > 0 && r.named.refused == r.named.tried);
	CHECK(strstr(r.named.refused_why, "pipeline size 8") != NULL);
	/* every message of the walk, counted in the group of its key */
	for (i = 0; i < b.nreasons; i++) {
		char key[512];
		size_t k = 0;
		const char *p;

		/* the message with its numbers as '#', as the search keys it */
		for (p = b.reason[i].example; *p && k + 1 < sizeof(key);) {
			if (*p >= '0' && *p <= '9') {
				while ((*p >= '0' && *p <= '9') || (*p == '.' && p[1] >= '0' && p[1] <= '9'))
					p++;
				key[k++] = '#';
			} else {
				key[k++] = *p++;
			}
		}
		key[k] = 0;
		for (j = 0; j < r.nreasons; j++)
			if (!strcmp(r.reason[j].key, key))
				break;
		CHECK(j < r.nreasons);
	}
	for (i = 0; i < b.nreasons; i++)
		sum += b.reason[i].count;
	INT_EQ(r.tried - r.valid, sum);
	for (i = 0, sum = 0; i < r.nreasons; i++)
		sum += r.reason[i].count;
	INT_EQ(r.tried - r.valid, sum);
	CHECK(r.nreasons >= 3);
	/* ordered by step, ties by memory */
	for (i = 1; i < r.n; i++)
		CHECK(r.cand[i - 1]->step_s < r.cand[i]->step_s ||
		      (r.cand[i - 1]->step_s == r.cand[i]->step_s &&
		       r.cand[i - 1]->memory_B <= r.cand[i]->memory_B));
	search_release(&r);
}

/*
 * step_run_fit: above the limit, the memory alone (the same as
 * step_run's) and nothing priced; under it, the step of step_run_memo.
 */
void test_step_run_fit(void)
{
	struct workload w = gpt3();
	struct step_config c;
	struct step_result a, s;
	struct step_memo memo = { 0 };
	struct errbuf eb;
	struct kernel_gpu g;
	struct step_compute cs = a100_kernels(&g);
	struct cost_model cm = ring_model();

	step_config_init(&c);
	c.tp = 8; c.pp = 8; c.dp = 4; c.seq = 2048; c.global_batch = 64; c.sp = 1;
	CHECK(step_run(&w, &c, &cs, &cm, STEP_BAND_NONE, &a, &eb) == 0);
	CHECK(a.mem.total_B > 1e9);
	INT_EQ(step_run_fit(&w, &c, &cs, &cm, &memo, a.mem.total_B / 2, &s, &eb), 1);
	DBL_NEAR(s.mem.total_B, a.mem.total_B, 0);
	INT_EQ(memo.calls, 0);
	INT_EQ(step_run_fit(&w, &c, &cs, &cm, &memo, a.mem.total_B, &s, &eb), 0);
	DBL_NEAR(s.step_s, a.step_s, 0);
	DBL_NEAR(s.mem.total_B, a.mem.total_B, 0);
	CHECK(memo.calls > 0);
	/* no limit: priced */
	INT_EQ(step_run_fit(&w, &c, &cs, &cm, &memo, 0, &s, &eb), 0);
	DBL_NEAR(s.step_s, a.step_s, 0);
	step_memo_release(&memo);
}

/* zd = d·c / dp_replicate, ze = t·d·c / (etp·e), by hand. */
void test_step_zero_ranks(void)
{
	struct step_config c;
	double zd, ze;

	step_config_init(&c);
	c.tp = 4; c.dp = 8; c.cp = 2; c.ep = 4; c.dp_replicate = 2;
	step_zero_ranks(&c, &zd, &ze);
	DBL_NEAR(zd, 8, 0);
	DBL_NEAR(ze, 4 * 8 * 2 / (4.0 * 4), 0);
	c.etp = 1;
	step_zero_ranks(&c, &zd, &ze);
	DBL_NEAR(ze, 4 * 8 * 2 / (1.0 * 4), 0);
}

/* Two searches' results, the same in every candidate, count and reason. */
static int S_same_result(const struct search_result *a, const struct search_result *b)
{
	size_t i;
	int same = a->n == b->n && a->tried == b->tried && a->valid == b->valid &&
		   a->nreasons == b->nreasons && a->refused_other == b->refused_other &&
		   a->named.tried == b->named.tried && a->named.fit == b->named.fit &&
		   a->named.unfit == b->named.unfit && a->named.refused == b->named.refused;

	for (i = 0; same && i < a->nreasons; i++)
		same = a->reason[i].count == b->reason[i].count &&
		       !strcmp(a->reason[i].example, b->reason[i].example);
	for (i = 0; same && i < a->n; i++)
		same = !memcmp(&a->cand[i]->l, &b->cand[i]->l, sizeof(a->cand[i]->l)) &&
		       a->cand[i]->step_s == b->cand[i]->step_s &&
		       a->cand[i]->memory_B == b->cand[i]->memory_B &&
		       a->cand[i]->pareto == b->cand[i]->pareto;
	return same;
}

/*
 * The reference order: every layout of N walked in turn into one list,
 * then sorted by step time, ties by memory, by insertion (stable: ties
 * stay in the order found).
 */
static struct search_result S_walked(const struct search_space *sp, double N,
				     const struct step_compute *cs, const struct cost_model *cm)
{
	struct search_result r = { 0 };
	struct search_memo memo = { cm, { 0 } };
	struct search_unit u[256];
	struct errbuf eb;
	size_t n = search_units(sp, N, u, 256), i, j;

	CHECK(n <= 256);
	for (i = 0; i < n && i < 256; i++)
		CHECK(search_walk(sp, &u[i], cs, &memo, &r, &eb) == 0);
	step_memo_release(&memo.prices);
	for (i = 1; i < r.nfound; i++) {
		struct search_cand x = r.found[i];

		for (j = i; j > 0 && (r.found[j - 1].step_s > x.step_s ||
				      (r.found[j - 1].step_s == x.step_s &&
				       r.found[j - 1].memory_B > x.memory_B)); j--)
			r.found[j] = r.found[j - 1];
		r.found[j] = x;
	}
	return r;
}

/*
 * The walk split over threads joins into the result of one thread,
 * candidate for candidate (ties in the order found), count for count;
 * and a step priced with the layers' kernels kept by shape is the step
 * step_run gives without them.
 */
void test_search_threads(void)
{
	struct workload w = S_moe();
	struct search_space sp;
	struct search_where wh;
	struct kernel_gpu g;
	struct step_compute cs = a100_kernels(&g);
	struct cost_model cm = ring_model();
	struct search_result one = { 0 }, four = { 0 };
	struct step_result s;
	struct errbuf eb;
	double gpus[] = { 16, 32 };
	size_t i;
	int flat;

	search_space_init(&sp, &w);
	sp.global_batch = 64;
	sp.gpu_memory = 40e9;
	sp.gpus_per_node = 8;
	sp.max_mb = 4;
	CHECK(search_where_parse("tp=2,pp=2", &wh, &eb) == 0);
	sp.where = &wh;
	sp.threads = 1;
	CHECK(search_run(&sp, gpus, 2, &cs, &cm, &one, &eb) == 0);
	sp.threads = 4;
	CHECK(search_run(&sp, gpus, 2, &cs, &cm, &four, &eb) == 0);
	CHECK(one.n > 1000 && one.nreasons > 0 && one.named.fit > 0);
	CHECK(S_same_result(&one, &four));
	/* against the order of one plain walk of 32 GPUs, by kernel and flat
	 * (where recomputing nothing and the attention core tie, in time and
	 * memory: the order found breaks the tie) */
	for (flat = 0; flat < 2; flat++) {
		struct step_compute fc = { 100e12, 0.5, 0, NULL, 0, 0 };
		const struct step_compute *csx = flat ? &fc : &cs;
		struct search_result ref = S_walked(&sp, 32, csx, &cm), r32 = { 0 };
		int same;

		sp.threads = 3;
		CHECK(search_run(&sp, &gpus[1], 1, csx, &cm, &r32, &eb) == 0);
		same = r32.n == ref.nfound && r32.n > 100;
		for (i = 0; same && i < r32.n; i++)
			same = !memcmp(&r32.cand[i]->l, &ref.found[i].l, sizeof(ref.found[i].l)) &&
			       r32.cand[i]->step_s == ref.found[i].step_s &&
			       r32.cand[i]->memory_B == ref.found[i].memory_B;
		CHECK(same);
		search_release(&ref);
		search_release(&r32);
	}
	for (i = 0; i < four.n; i += 97) {
		struct step_config c;

		search_cand_config(&sp, four.cand[i], &c);
		CHECK(step_run(&w, &c, &cs, &cm, STEP_BAND_NONE, &s, &eb) == 0);
		DBL_NEAR(four.cand[i]->step_s, s.step_s, 0);
		DBL_NEAR(four.cand[i]->memory_B, s.mem.total_B, 0);
	}
	search_release(&one);
	search_release(&four);
}
