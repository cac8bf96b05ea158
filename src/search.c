/*
 * Search over parallel configurations (models/search.md).
 */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search.h"
#include "search_int.h"

void search_space_init(struct search_space *sp, const struct workload *w)
{
	memset(sp, 0, sizeof(*sp));
	sp->w = w;
	sp->seq = w->seq;
	sp->max_cp = search_max_cp(w->seq);
	sp->max_mb = 16;
	sp->max_virt = 8;
	sp->grad_bytes = STEP_GRAD_BYTES;
	sp->framework = FW_MEGATRON;
	sp->precision = PREC_BF16;
	sp->moe_imbalance = 1;
	sp->price = NAN;
}

/*
 * 8 ranks, or seq / 8192 when more: Llama 3's 131072-token stage ran CP 16,
 * 8192 tokens a rank (Llama Team 2024, The Llama 3 Herd of Models, Table 4).
 */
unsigned long search_max_cp(double seq)
{
	double n = ceil(seq / 8192);

	return n > 8 && n < 1e6 ? (unsigned long)n : 8;
}

/* ---- a configuration by name: --where ---- */

void search_where_init(struct search_where *wh)
{
	memset(wh, 0, sizeof(*wh));
	wh->zero = wh->schedule = wh->recompute = wh->cp_form = -1;
}

/* A whole number >= lo of at most 9 digits. */
static int S_whole(const char *v, size_t n, double lo, double *out)
{
	char buf[16];
	size_t i;

	if (n == 0 || n > 9)
		return -1;
	for (i = 0; i < n; i++)
		if (!isdigit((unsigned char)v[i]))
			return -1;
	memcpy(buf, v, n);
	buf[n] = 0;
	*out = strtod(buf, NULL);
	return *out >= lo ? 0 : -1;
}

/*
 * The value val (vn bytes) of key number k of search_where_parse's keys[]
 * (a second spelling already counted as the first) into *wh.
 */
static int S_where_set(struct search_where *wh, size_t k, const char *key, const char *val,
		       size_t vn, struct errbuf *eb)
{
	double x = 0;
	struct errbuf e2;

	if (k == 11) {
		enum pp_schedule sc;

		if (pp_schedule_lookup(val, &sc, &e2) < 0)
			return errbuf_set(eb, "schedule: %s", e2.msg);
		wh->schedule = (int)sc;
	} else if (k == 12) {
		enum recompute rc;

		if (recompute_lookup(val, &rc, &e2) < 0)
			return errbuf_set(eb, "recompute: %s", e2.msg);
		wh->recompute = (int)rc;
	} else if (k == 13) {
		enum step_cp_form f;

		if (step_cp_form_lookup(val, &f, &e2) < 0)
			return errbuf_set(eb, "cp_form: %s", e2.msg);
		wh->cp_form = (int)f;
	} else if (S_whole(val, vn, k == 6 ? 0 : 1, &x) < 0 || (k == 6 && x > 3)) {
		return errbuf_set(eb, "%s=%s: %s", key, val, k == 6 ? "the ZeRO stage is 0, 1, 2 or 3"
				  : "must be a whole number of at least 1");
	} else {
		switch (k) {
		case 0: wh->gpus = x; break;
		case 1: wh->tp = (unsigned long)x; break;
		case 2: wh->pp = (unsigned long)x; break;
		case 3: wh->dp = (unsigned long)x; break;
		case 4: wh->cp = (unsigned long)x; break;
		case 5: wh->ep = (unsigned long)x; break;
		case 6: wh->zero = (int)x; break;
		case 7: wh->micro_batch = x; break;
		default: wh->virt = (unsigned long)x; break;
		}
	}
	return 0;
}

int search_where_parse(const char *s, struct search_where *wh, struct errbuf *eb)
{
	static const char *const keys[] = { "gpus", "tp", "pp", "dp", "cp", "ep", "zero", "mb",
		"micro_batch", "v", "virtual_stages", "schedule", "recompute", "cp_form" };
	unsigned seen = 0;
	const char *p = s;

	search_where_init(wh);
	if (!*s)
		return errbuf_set(eb, "empty: give key=value pairs, e.g. tp=8,pp=16,dp=64");
	for (;;) {
		const char *end = strchr(p, ','), *eq;
		size_t n = end ? (size_t)(end - p) : strlen(p), kn, vn, k;
		char key[24], val[24];

		eq = memchr(p, '=', n);
		if (!eq)
			return errbuf_set(eb, "'%.*s' is not key=value (e.g. tp=8)", (int)(n > 40 ? 40 : n), p);
		kn = (size_t)(eq - p);
		vn = n - kn - 1;
		if (kn >= sizeof(key) || vn >= sizeof(val))
			return errbuf_set(eb, "'%.*s' is too long", (int)(n > 40 ? 40 : n), p);
		memcpy(key, p, kn);
		key[kn] = 0;
		memcpy(val, eq + 1, vn);
		val[vn] = 0;
		for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			if (!strcmp(key, keys[k]))
				break;
		if (k == sizeof(keys) / sizeof(keys[0]))
			return errbuf_set(eb, "unknown key '%s' (gpus, tp, pp, dp, cp, ep, zero, mb, v, "
					  "schedule, recompute, cp_form)", key);
		/* The two spellings of one key count as one. */
		if (k == 8 || k == 10)
			k--;
		if (seen & (1u << k))
			return errbuf_set(eb, "key '%s' given twice", key);
		seen |= 1u << k;
		if (S_where_set(wh, k, key, val, vn, eb) < 0)
			return -1;
		if (!end)
			break;
		p = end + 1;
	}
	return 0;
}

int search_where_match(const struct search_where *wh, const struct step_config *c, double gpus)
{
	/* tp, pp and dp named and cp not: the layout of their product, cp 1. */
	unsigned long cp = wh->cp ? wh->cp : wh->tp && wh->pp && wh->dp ? 1 : 0;

	return (!cp || cp == c->cp) && (!wh->gpus || wh->gpus == gpus) &&
	       (!wh->tp || wh->tp == c->tp) && (!wh->pp || wh->pp == c->pp) && (!wh->dp || wh->dp == c->dp) &&
	       (!wh->ep || wh->ep == c->ep) &&
	       (!wh->virt || wh->virt == c->virt) && (wh->zero < 0 || wh->zero == c->zero) &&
	       (!wh->micro_batch || wh->micro_batch == c->micro_batch) &&
	       (wh->schedule < 0 || wh->schedule == (int)c->schedule) &&
	       (wh->recompute < 0 || wh->recompute == (int)c->recompute) &&
	       (wh->cp_form < 0 || wh->cp_form == (int)c->cp_form);
}

char *search_where_text(char *buf, size_t len, const struct search_where *wh)
{
	size_t n = 0;

#define S_ADD(...) do { if (n < len) n += (size_t)snprintf(buf + n, len - n, __VA_ARGS__); } while (0)
	buf[0] = 0;
	if (wh->gpus)
		S_ADD("%s%.15g GPUs", n ? ", " : "", wh->gpus);
	if (wh->tp)
		S_ADD("%stp %lu", n ? ", " : "", wh->tp);
	if (wh->pp)
		S_ADD("%spp %lu", n ? ", " : "", wh->pp);
	if (wh->dp)
		S_ADD("%sdp %lu", n ? ", " : "", wh->dp);
	if (wh->cp || (wh->tp && wh->pp && wh->dp))
		S_ADD("%scp %lu", n ? ", " : "", wh->cp ? wh->cp : 1);
	if (wh->ep)
		S_ADD("%sep %lu", n ? ", " : "", wh->ep);
	if (wh->zero >= 0)
		S_ADD("%sZeRO %d", n ? ", " : "", wh->zero);
	if (wh->micro_batch)
		S_ADD("%smicro-batch %.15g", n ? ", " : "", wh->micro_batch);
	if (wh->schedule >= 0)
		S_ADD("%s%s", n ? ", " : "", pp_schedule_name((enum pp_schedule)wh->schedule));
	if (wh->virt)
		S_ADD("%sv %lu", n ? ", " : "", wh->virt);
	if (wh->recompute >= 0)
		S_ADD("%srecompute %s", n ? ", " : "", recompute_name((enum recompute)wh->recompute));
	if (wh->cp_form >= 0)
		S_ADD("%scp as %s", n ? ", " : "", step_cp_form_name((enum step_cp_form)wh->cp_form));
#undef S_ADD
	return buf;
}

/* ---- the candidates ---- */

static void S_push(struct search_result *r, const struct search_cand *c)
{
	if (r->nfound == r->capfound) {
		r->capfound = r->capfound ? 2 * r->capfound : 256;
		r->found = xrealloc(r->found, r->capfound * sizeof(*r->found));
	}
	r->found[r->nfound++] = *c;
}

static int S_divides(double a, double n)
{
	return fmod(n, a) == 0;
}

/* The message with every run of digits (and a decimal point inside one) as '#'. */
static void S_reason_key(const char *msg, char *key, size_t len)
{
	size_t n = 0;
	const char *p = msg;

	while (*p && n + 1 < len) {
		if (isdigit((unsigned char)*p)) {
			while (isdigit((unsigned char)*p) ||
			       (*p == '.' && isdigit((unsigned char)p[1])) ||
			       ((*p == 'e' || *p == 'E') && (isdigit((unsigned char)p[1]) ||
							     p[1] == '+' || p[1] == '-')) ||
			       ((*p == '+' || *p == '-') && (p[-1] == 'e' || p[-1] == 'E')))
				p++;
			key[n++] = '#';
		} else {
			key[n++] = *p++;
		}
	}
	key[n] = 0;
}

/* n candidates refused with message msg, into its group. */
void search_refused(struct search_result *r, const char *msg, size_t n)
{
	char key[sizeof(r->reason[0].key)];
	size_t i;

	/* The same message as a group's latest: no need to take its numbers out. */
	for (i = 0; i < r->nreasons; i++)
		if (!strcmp(r->reason[i].last, msg)) {
			r->reason[i].count += n;
			return;
		}
	S_reason_key(msg, key, sizeof(key));
	for (i = 0; i < r->nreasons; i++)
		if (!strcmp(r->reason[i].key, key)) {
			r->reason[i].count += n;
			snprintf(r->reason[i].last, sizeof(r->reason[i].last), "%s", msg);
			return;
		}
	if (r->nreasons == SEARCH_REASONS_MAX) {
		r->refused_other += n;
		return;
	}
	snprintf(r->reason[i].key, sizeof(r->reason[i].key), "%s", key);
	snprintf(r->reason[i].example, sizeof(r->reason[i].example), "%s", msg);
	snprintf(r->reason[i].last, sizeof(r->reason[i].last), "%s", msg);
	r->reason[i].count = n;
	r->nreasons++;
}

/* A configuration that fits, with its step s0, into the result. */
static int S_keep(const struct search_space *sp, const struct step_config *c,
		  const struct step_result *s0, struct search_result *r, struct errbuf *eb)
{
	struct search_cand k;

	memset(&k, 0, sizeof(k));
	search_layout_of(c, &k.l);
	k.gpus = s0->gpus;
	k.memory_B = s0->mem.total_B;
	k.step_s = s0->step_s;
	k.step_lo_s = s0->step_lo_s;
	k.step_hi_s = s0->step_hi_s;
	k.tokens_per_s = s0->tokens_per_s;
	k.mfu = s0->mfu;
	k.cost_per_hour = sp->price * s0->gpus;
	k.cost_per_Mtoken = k.cost_per_hour * s0->step_s / 3600 / (s0->tokens / 1e6);
	k.run_s = sp->run_tokens > 0 ? sp->run_tokens / s0->tokens_per_s : NAN;
	k.run_cost = k.run_s / 3600 * k.cost_per_hour;
	if (!isnan(sp->price) && !isfinite(k.cost_per_hour))
		return errbuf_set(eb, "the cost per hour overflows: price %g per GPU-hour x %.15g GPUs "
				  "is beyond the largest number (1.8e308)", sp->price, s0->gpus);
	if (!isnan(sp->price) && !isfinite(k.cost_per_Mtoken))
		return errbuf_set(eb, "the cost per million tokens overflows: price %g per GPU-hour x "
				  "%.15g GPUs x %.4g s per step / %.15g tokens per step", sp->price, s0->gpus,
				  s0->step_s, s0->tokens);
	if (!isnan(sp->price) && sp->run_tokens > 0 && !isfinite(k.run_cost))
		return errbuf_set(eb, "the cost of the run overflows: %g tokens at %.6g tokens/s on "
				  "%.15g GPUs at a price of %g per GPU-hour is beyond the largest "
				  "number (1.8e308)", sp->run_tokens, s0->tokens_per_s, s0->gpus, sp->price);
	S_push(r, &k);
	return 2;
}

/*
 * The walk over the space, level by level (layout, cp, experts, sharding,
 * micro-batch, schedule, then the cp form and recomputation, which the
 * check does not read).  Each level runs the part of step_check that
 * reads the fields it fixes (step_check_part, src/step.c); a part that
 * refuses refuses every configuration below it with the same message, so
 * the walk below only counts them, and their message is formatted once.
 */
struct S_walk {
	const struct search_space *sp;
	const struct step_compute *cs;
	struct search_memo *memo;
	struct search_result *r;
	struct errbuf *eb;
	struct step_config c;     /* the configuration, built level by level */
	const char *why;          /* the refusal of the subtree walked; NULL: none */
	size_t nwhy;              /* configurations refused with it so far */
	struct errbuf part;       /* its message */
};

/* Run one part of the check at this level: 1 when it refuses the
 * subtree (the level then ends it with S_end), else 0. */
static int S_part(struct S_walk *k, enum step_check_part part)
{
	if (k->why || step_check_part(k->sp->w, &k->c, part, &k->part) == 0)
		return 0;
	k->why = k->part.msg;
	k->nwhy = 0;
	return 1;
}

/* The end of a subtree that S_part refused: its count into the reasons. */
static void S_end(struct S_walk *k, int refused)
{
	if (!refused)
		return;
	if (k->nwhy)
		search_refused(k->r, k->why, k->nwhy);
	k->why = NULL;
}

/* Evaluate the configuration; keep it when it fits.  -1 on error, 0
 * refused, 1 valid but too large, 2 kept. */
static int S_try(struct S_walk *k)
{
	const struct search_space *sp = k->sp;
	const struct step_config *c = &k->c;
	struct search_result *r = k->r;
	struct step_result s;
	double gpus = (double)c->tp * (double)c->pp * (double)c->dp * (double)c->cp;
	int named = sp->where && search_where_match(sp->where, c, gpus), fits;

	r->tried++;
	if (named)
		r->named.tried++;
	if (k->why) {
		k->nwhy++;
		if (named && !r->named.refused++)
			snprintf(r->named.refused_why, sizeof(r->named.refused_why), "%s", k->why);
		return 0;
	}
	r->valid++;
	/* One too large for the GPU is not priced: its memory says so first. */
	if ((fits = step_run_fit(sp->w, c, k->cs, k->memo->m, &k->memo->prices, sp->gpu_memory,
				 &s, k->eb)) < 0)
		return -1;
	fits = !fits && s.mem.total_B <= sp->gpu_memory && s.step_s > 0;
	if (named && !fits) {
		if (!(r->named.unfit_memory_B <= s.mem.total_B)) {
			r->named.unfit_memory_B = s.mem.total_B;
			r->named.unfit_c = *c;
		}
		r->named.unfit++;
	}
	if (!fits)
		return 1;
	if (named)
		r->named.fit++;
	return S_keep(sp, c, &s, r, k->eb);
}

/*
 * The recomputation levels of one configuration: none, selective, full,
 * and, under --framework fsdp, the per-operator levels only when nothing
 * recomputed is valid but too large (where none fits, every level that
 * recomputes is slower on the same collectives, so none of them can rank
 * above it).  The per-operator policies are torchtitan's (its selective
 * "op" checkpointing); Megatron-Core recomputes whole modules
 * (recompute_modules: core_attn, layernorm, mlp, ...) and DeepSpeed whole
 * layers, so neither is offered one.
 */
static int S_levels(struct S_walk *k)
{
	static const enum recompute base[] = { RC_NONE, RC_SELECTIVE, RC_FULL };
	static const enum recompute per_op[] = { RC_MATMUL, RC_ALT_MATMUL };
	size_t i;
	int got = 0, none = 0;

	for (i = 0; i < sizeof(base) / sizeof(base[0]); i++) {
		k->c.recompute = base[i];
		if ((got = S_try(k)) < 0)
			return -1;
		if (i == 0)
			none = got;
	}
	if (none != 1 || k->c.framework != FW_FSDP)
		return 0;
	for (i = 0; i < sizeof(per_op) / sizeof(per_op[0]); i++) {
		k->c.recompute = per_op[i];
		if (S_try(k) < 0)
			return -1;
	}
	return 0;
}

/* The schedules, chunk counts and recomputation modes of one factorisation. */
static int S_inner(struct S_walk *k)
{
	/*
	 * GPipe is not tried: the step model gives it 1F1B's time with every
	 * micro-batch's activations in flight, so it never wins.
	 */
	static const enum pp_schedule scheds[] = { PP_1F1B, PP_INTERLEAVED };
	struct step_config *c = &k->c;
	size_t si;
	unsigned long v;
	int f, rc = 0, refused;

	for (si = 0; si < sizeof(scheds) / sizeof(scheds[0]); si++) {
		if (c->pp == 1 && scheds[si] != PP_1F1B)
			continue;
		c->schedule = scheds[si];
		for (v = scheds[si] == PP_INTERLEAVED ? 2 : 1;
		     v <= (scheds[si] == PP_INTERLEAVED ? k->sp->max_virt : 1); v++) {
			c->virt = v;
			refused = S_part(k, CHECK_SCHEDULE);
			/* Both forms of context parallelism: ring attention, Llama 3's all-gather. */
			for (f = 0; f < (c->cp > 1 ? CP_FORM_COUNT : 1) && !rc; f++) {
				c->cp_form = (enum step_cp_form)f;
				rc = S_levels(k);
			}
			S_end(k, refused);
			if (rc < 0)
				return -1;
		}
	}
	return 0;
}

/* The micro-batches of one sharding. */
static int S_mb(struct S_walk *k, double per_dp)
{
	double b;
	int rc, refused;

	for (b = 1; b <= per_dp && b <= (double)k->sp->max_mb; b++) {
		if (!S_divides(b, per_dp))
			continue;
		k->c.micro_batch = b;
		refused = S_part(k, CHECK_BATCH);
		rc = S_inner(k);
		S_end(k, refused);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* The sharding and micro-batches of one layout t, p, c, d, e, etp (in k->c). */
static int S_zero_mb(struct S_walk *k, double per_dp)
{
	const struct search_space *sp = k->sp;
	struct step_config *c = &k->c;
	double t = (double)c->tp, p = (double)c->pp, cp = (double)c->cp, d = (double)c->dp;
	double z, Rs[2];
	unsigned long G = sp->gpus_per_node;
	int nr, ri, rc = 0, refused, zref;

	refused = S_part(k, CHECK_EXPERTS);
	for (z = 0; z <= 3 && !rc; z++) {
		/* ZeRO shards over nothing on one data-parallel rank. */
		if (z > 0 && d * cp == 1)
			break;
		/* Hybrid sharding for ZeRO-3: the whole group, and one node's ranks a group. */
		nr = 0;
		Rs[nr++] = sp->dp_replicate && z >= 3 ? (double)sp->dp_replicate : 1;
		/* (only where ZeRO-3 runs at all: no pipeline, or FSDP2's) */
		if (!sp->dp_replicate && z >= 3 && (p == 1 || sp->framework == FW_FSDP)) {
			double inner = (double)step_per_node((unsigned long)(d * cp), (unsigned long)t,
							     G ? G : 8);

			if (inner >= 2 && inner < d * cp && S_divides(d * cp / inner, d))
				Rs[nr++] = d * cp / inner;
		}
		for (ri = 0; ri < nr && !rc; ri++) {
			c->zero = (int)z;
			c->dp_replicate = (unsigned long)Rs[ri];
			zref = S_part(k, CHECK_SHARDING);
			rc = S_mb(k, per_dp);
			S_end(k, zref);
		}
	}
	S_end(k, refused);
	return rc;
}

/*
 * The expert grids of one layout: etp = t with e dividing d·c, as before
 * folding; etp = 1 (or --etp) where e divides t·c·d but not d·c, the
 * layouts only Megatron-Core's folding runs.
 */
static int S_experts(struct S_walk *k, double e, double per_dp)
{
	const struct search_space *sp = k->sp;
	double t = (double)k->c.tp, cp = (double)k->c.cp, d = (double)k->c.dp, etp = t;

	if (sp->etp) {
		etp = (double)sp->etp;
		if (!S_divides(e * etp, t * cp * d))
			return 0;
	} else if (!S_divides(e, d * cp)) {
		if (!(t > 1 && S_divides(e, t * d * cp)))
			return 0;
		etp = 1;
	}
	k->c.ep = (unsigned long)e;
	k->c.etp = etp == t ? 0 : (unsigned long)etp;
	return S_zero_mb(k, per_dp);
}

/* The context-parallel sizes, data-parallel sizes and experts of t, p (in k->c). */
static int S_cp(struct S_walk *k, double N)
{
	const struct search_space *sp = k->sp;
	double E = sp->w->experts > 1 ? sp->w->experts : 1, t = (double)k->c.tp;
	double p = (double)k->c.pp, cp, e, max_cp = (double)sp->max_cp;
	int rc = 0, refused;

	/*
	 * DeepSpeed has no ring or all-gather context parallelism (its
	 * sequence parallelism is Ulysses' all-to-all, not modelled): cp 1
	 * alone, save a size --where names, which step prices as ring.
	 */
	if (step_framework_deepspeed(sp->framework))
		max_cp = sp->where && sp->where->cp > 1 ? (double)sp->where->cp : 1;
	for (cp = 1; cp <= N / (t * p) && cp <= max_cp && !rc; cp++) {
		double d = N / (t * p * cp), per_dp;

		if (!S_divides(cp, N / (t * p)) || !S_divides(d, sp->global_batch))
			continue;
		per_dp = sp->global_batch / d;
		k->c.cp = (unsigned long)cp;
		k->c.dp = (unsigned long)d;
		refused = S_part(k, CHECK_CP);
		for (e = 1; e <= E && !rc; e++)
			if (S_divides(e, E))
				rc = S_experts(k, e, per_dp);
		S_end(k, refused);
	}
	return rc;
}

void search_config_base(const struct search_space *sp, struct step_config *c)
{
	step_config_init(c);
	c->global_batch = sp->global_batch;
	c->seq = sp->seq;
	c->grad_bytes = sp->grad_bytes;
	c->framework = sp->framework;
	c->eager = sp->eager;
	c->precision = sp->precision;
	c->moe_imbalance = sp->moe_imbalance;
	c->gpus_per_node = sp->gpus_per_node;
}

void search_layout_of(const struct step_config *c, struct search_layout *l)
{
	memset(l, 0, sizeof(*l));
	l->tp = c->tp, l->pp = c->pp, l->dp = c->dp, l->cp = c->cp, l->ep = c->ep;
	l->etp = c->etp, l->dp_replicate = c->dp_replicate, l->virt = c->virt;
	l->micro_batch = c->micro_batch;
	l->zero = c->zero, l->sp = c->sp, l->tp_overlap = c->tp_overlap;
	l->recompute = c->recompute, l->schedule = c->schedule, l->cp_form = c->cp_form;
}

void search_cand_config(const struct search_space *sp, const struct search_cand *k,
			struct step_config *c)
{
	const struct search_layout *l = &k->l;

	search_config_base(sp, c);
	c->tp = l->tp, c->pp = l->pp, c->dp = l->dp, c->cp = l->cp, c->ep = l->ep;
	c->etp = l->etp, c->dp_replicate = l->dp_replicate, c->virt = l->virt;
	c->micro_batch = l->micro_batch;
	c->zero = l->zero, c->sp = l->sp, c->tp_overlap = l->tp_overlap;
	c->recompute = l->recompute, c->schedule = l->schedule, c->cp_form = l->cp_form;
}

int search_cand_named(const struct search_space *sp, const struct search_cand *k)
{
	struct step_config c;

	search_cand_config(sp, k, &c);
	return sp->where && search_where_match(sp->where, &c, k->gpus);
}

unsigned long search_cand_etp(const struct search_cand *k)
{
	return k->l.etp ? k->l.etp : k->l.tp;
}

/*
 * The space: every t·p·c·d = N with t at most one node's GPUs, p any
 * divisor of N/t (the step model says whether it splits the layers), c
 * up to max_cp, d dividing the global batch; e dividing the experts and
 * d·c; ZeRO 0-3 (1-3 only with more than one data-parallel rank); every
 * micro-batch dividing B/d up to max_mb.  The rules of the model itself
 * (heads, layers, sequence, schedule) are step_check's, counted.  Its
 * units are the layouts t, p of N, in the order they are walked.
 */
size_t search_units(const struct search_space *sp, double N, struct search_unit *u, size_t cap)
{
	unsigned long G = sp->gpus_per_node, maxtp = G ? G : 8;
	double t, p;
	size_t n = 0;

	for (t = 1; t <= N && t <= (double)maxtp; t++) {
		if (!S_divides(t, N))
			continue;
		for (p = 1; p <= N / t; p++) {
			if (!S_divides(p, N / t))
				continue;
			if (n < cap) {
				u[n].N = N;
				u[n].t = t;
				u[n].p = p;
			}
			n++;
		}
	}
	return n;
}

int search_walk(const struct search_space *sp, const struct search_unit *un,
		const struct step_compute *cs, struct search_memo *memo, struct search_result *r,
		struct errbuf *eb)
{
	struct S_walk k;
	struct step_config *c = &k.c;
	int rc, refused;

	memset(&k, 0, sizeof(k));
	k.sp = sp, k.cs = cs, k.memo = memo, k.r = r, k.eb = eb;
	search_config_base(sp, c);
	c->tp = (unsigned long)un->t;
	c->sp = un->t > 1;
	c->tp_overlap = sp->tp_overlap && un->t > 1;
	c->pp = (unsigned long)un->p;
	refused = S_part(&k, CHECK_LAYOUT);
	rc = S_cp(&k, un->N);
	S_end(&k, refused);
	return rc;
}

void search_pareto(struct search_result *r)
{
	double best = INFINITY;
	size_t i;

	/* Ordered by step time: on the front when cheaper than every faster one. */
	for (i = 0; i < r->n; i++) {
		double gs = r->cand[i]->gpus * r->cand[i]->step_s;

		r->cand[i]->pareto = gs < best;
		if (gs < best)
			best = gs;
	}
}

size_t search_runner_up(const struct search_result *r)
{
	size_t i;

	for (i = 1; i < r->n; i++) {
		const struct search_layout *a = &r->cand[0]->l, *b = &r->cand[i]->l;

		if (r->cand[i]->gpus != r->cand[0]->gpus || a->tp != b->tp || a->pp != b->pp ||
		    a->dp != b->dp || a->cp != b->cp || a->ep != b->ep)
			return i;
	}
	return r->n;
}

void search_terms_of(const struct step_result *r, struct search_terms *t)
{
	double sum;
	int i, d;

	memset(t, 0, sizeof(*t));
	t->compute_s = r->compute_s;
	t->bubble_s = r->bubble_s;
	for (i = 0; i < r->nrows; i++) {
		const struct step_row *row = &r->rows[i];

		if (row->dim != DIM_DP && !isnan(row->exposed_s))
			t->exposed_s[row->dim] += row->exposed_s * r->microbatches;
	}
	t->exposed_s[DIM_DP] = r->dp_exposed_s;
	t->optim_s = r->optim_s;
	t->step_s = r->step_s;
	t->memory_B = r->mem.total_B;
	sum = t->compute_s + t->bubble_s + t->optim_s;
	for (d = 0; d < DIM_COUNT; d++)
		sum += t->exposed_s[d];
	t->other_s = t->step_s - sum;
	/* Rounding of the sum is not a term. */
	if (fabs(t->other_s) <= 1e-9 * t->step_s)
		t->other_s = 0;
}

void search_release(struct search_result *r)
{
	size_t i;

	for (i = 0; i < r->nstore; i++)
		free(r->store[i]);
	free(r->store);
	free(r->found);
	free(r->cand);
	memset(r, 0, sizeof(*r));
}

/* 1 when some configuration of N GPUs fits; -1 on a model error. */
static int S_fits_at(const struct search_space *sp, double N, const struct step_compute *cs,
		     const struct cost_model *cm, struct errbuf *eb)
{
	struct search_result r;
	int rc;

	memset(&r, 0, sizeof(r));
	rc = search_run(sp, &N, 1, cs, cm, &r, eb);
	if (rc == 0)
		rc = r.n > 0;
	search_release(&r);
	return rc;
}

int search_min_gpus(const struct search_space *sp, double from, const struct step_compute *cs,
		    const struct cost_model *cm, double *gpus, struct errbuf *eb)
{
	struct search_space s = *sp;
	double node = sp->gpus_per_node ? (double)sp->gpus_per_node : 8, N;
	int rc;

	s.where = NULL;   /* every layout, not only a named one */
	*gpus = 0;
	N = (floor(from / node) + 1) * node;
	for (; N <= 4 * from && N <= SEARCH_MIN_GPUS_MAX; N += node)
		if ((rc = S_fits_at(&s, N, cs, cm, eb)) != 0) {
			if (rc > 0)
				*gpus = N;
			return rc < 0 ? -1 : 0;
		}
	for (N = 8 * from; N <= SEARCH_MIN_GPUS_MAX; N *= 2)
		if ((rc = S_fits_at(&s, N, cs, cm, eb)) != 0) {
			if (rc > 0)
				*gpus = N;
			return rc < 0 ? -1 : 0;
		}
	return 0;
}
