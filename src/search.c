/*
 * Search over parallel configurations (models/search.md).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "search.h"

void search_space_init(struct search_space *sp, const struct workload *w)
{
	memset(sp, 0, sizeof(*sp));
	sp->w = w;
	sp->seq = w->seq;
	sp->max_cp = 8;
	sp->max_mb = 16;
	sp->max_virt = 4;
	sp->grad_bytes = STEP_GRAD_BYTES;
	sp->price = NAN;
}

static void S_push(struct search_result *r, const struct search_cand *c)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 256;
		r->cand = xrealloc(r->cand, r->cap * sizeof(*r->cand));
	}
	r->cand[r->n++] = *c;
}

static int S_cmp(const void *a, const void *b)
{
	const struct search_cand *x = a, *y = b;

	if (x->step_s != y->step_s)
		return x->step_s < y->step_s ? -1 : 1;
	if (x->memory_B != y->memory_B)
		return x->memory_B < y->memory_B ? -1 : 1;
	return 0;
}

static int S_divides(double a, double n)
{
	return fmod(n, a) == 0;
}

/* Evaluate one configuration; keep it when it fits. */
static int S_try(const struct search_space *sp, const struct step_config *c,
		 const struct step_compute *cs, const struct cost_model *cm,
		 struct search_result *r, struct errbuf *eb)
{
	struct step_result s;
	struct search_cand k;

	r->tried++;
	if (step_check(sp->w, c, eb) < 0)
		return 0;
	r->valid++;
	if (step_run(sp->w, c, cs, cm, STEP_BAND_NONE, &s, eb) < 0)
		return -1;
	if (!(s.mem.total_B <= sp->gpu_memory) || !(s.step_s > 0))
		return 0;
	memset(&k, 0, sizeof(k));
	k.c = *c;
	k.gpus = s.gpus;
	k.memory_B = s.mem.total_B;
	k.step_s = s.step_s;
	k.tokens_per_s = s.tokens_per_s;
	k.mfu = s.mfu;
	k.cost_per_Mtoken = sp->price * s.gpus * s.step_s / 3600 / (s.tokens / 1e6);
	k.run_s = sp->run_tokens > 0 ? sp->run_tokens / s.tokens_per_s : NAN;
	k.run_cost = k.run_s / 3600 * s.gpus * sp->price;
	S_push(r, &k);
	return 0;
}

/* The schedules, chunk counts and recomputation modes of one factorisation. */
static int S_inner(const struct search_space *sp, struct step_config *c,
		   const struct step_compute *cs, const struct cost_model *cm,
		   struct search_result *r, struct errbuf *eb)
{
	static const enum pp_schedule scheds[] = { PP_1F1B, PP_GPIPE, PP_INTERLEAVED };
	size_t si;
	unsigned long v;
	int rc;

	for (si = 0; si < sizeof(scheds) / sizeof(scheds[0]); si++) {
		if (c->pp == 1 && scheds[si] != PP_1F1B)
			continue;
		c->schedule = scheds[si];
		for (v = scheds[si] == PP_INTERLEAVED ? 2 : 1;
		     v <= (scheds[si] == PP_INTERLEAVED ? sp->max_virt : 1); v++) {
			c->virt = v;
			for (rc = 0; rc < RC_COUNT; rc++) {
				c->recompute = (enum recompute)rc;
				if (S_try(sp, c, cs, cm, r, eb) < 0)
					return -1;
			}
		}
	}
	return 0;
}

int search_run(const struct search_space *sp, const double *gpus, size_t ngpus,
	       const struct step_compute *cs, const struct cost_model *cm,
	       struct search_result *r, struct errbuf *eb)
{
	const struct workload *w = sp->w;
	unsigned long G = sp->gpus_per_node, maxtp = G ? G : 8;
	double E = w->experts > 1 ? w->experts : 1;
	size_t gi;

	for (gi = 0; gi < ngpus; gi++) {
		double N = gpus[gi], t, p, cp, e, z, b;

		for (t = 1; t <= N && t <= maxtp; t++) {
			if (!S_divides(t, N) || !S_divides(t, w->heads) || !S_divides(t, w->kv_heads))
				continue;
			for (p = 1; p <= N / t; p++) {
				if (!S_divides(p, N / t) || !S_divides(p, w->layers))
					continue;
				for (cp = 1; cp <= N / (t * p) && cp <= (double)sp->max_cp; cp++) {
					double d = N / (t * p * cp), per_dp;

					if (!S_divides(cp, N / (t * p)) || !S_divides(cp, sp->seq))
						continue;
					if (!S_divides(d, sp->global_batch))
						continue;
					per_dp = sp->global_batch / d;
					for (e = 1; e <= E; e++) {
						struct step_config c;

						if (!S_divides(e, E) || !S_divides(e, d * cp))
							continue;
						for (z = 0; z <= 3; z++) {
							/* ZeRO changes nothing on one data-parallel rank. */
							if (z > 0 && d * cp == 1)
								break;
							if (z >= 2 && p > 1)
								break;
							for (b = 1; b <= per_dp && b <= (double)sp->max_mb; b++) {
								if (!S_divides(b, per_dp))
									continue;
								step_config_init(&c);
								c.tp = (unsigned long)t;
								c.pp = (unsigned long)p;
								c.dp = (unsigned long)d;
								c.cp = (unsigned long)cp;
								c.ep = (unsigned long)e;
								c.zero = (int)z;
								c.sp = t > 1;
								c.micro_batch = b;
								c.global_batch = sp->global_batch;
								c.seq = sp->seq;
								c.grad_bytes = sp->grad_bytes;
								c.gpus_per_node = G;
								if (S_inner(sp, &c, cs, cm, r, eb) < 0)
									return -1;
							}
						}
					}
				}
			}
		}
	}
	if (r->n > 1)
		qsort(r->cand, r->n, sizeof(*r->cand), S_cmp);
	search_pareto(r);
	return 0;
}

void search_pareto(struct search_result *r)
{
	double best = INFINITY;
	size_t i;

	/* Ordered by step time: on the front when cheaper than every faster one. */
	for (i = 0; i < r->n; i++) {
		double gs = r->cand[i].gpus * r->cand[i].step_s;

		r->cand[i].pareto = gs < best;
		if (gs < best)
			best = gs;
	}
}

void search_release(struct search_result *r)
{
	free(r->cand);
	memset(r, 0, sizeof(*r));
}
