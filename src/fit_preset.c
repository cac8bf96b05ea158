/*
 * A fitted model as a link preset: the regime keys read back into a
 * fit_model (fit_model_from_preset) and the plain fit and the regimes
 * written through preset_save (fit_preset_write).  The keys are listed in
 * fit.h; models/fit.md, "The saved preset".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fit.h"
#include "fmt.h"
#include "units.h"

/* A quantity key that must be present. */
static int S_need(const struct preset *p, const char *key, enum quantity q,
		  double *x, struct errbuf *eb)
{
	int r = preset_get_quantity(p, key, q, x, eb);

	if (r == 0)
		return errbuf_set(eb, "%s: key '%s' is missing (the preset has 'regimes')",
				  p->path, key);
	return r < 0 ? -1 : 0;
}

/* The keys of what the fit was made for (fit.op, fit.algo, fit.ranks,
 * fit.base_steps) into m, cleared first. */
static int S_read_fit(const struct preset *p, struct fit_model *m, struct errbuf *eb)
{
	const struct preset_kv *kv;
	struct errbuf e2;
	enum coll_op op;
	enum coll_algo algo;
	double ranks;

	kv = preset_find(p, "fit.op");
	if (!kv)
		return errbuf_set(eb, "%s: key 'fit.op' is missing (the preset has 'regimes')",
				  p->path);
	if (coll_op_lookup(kv->value, &op, &e2) < 0)
		return errbuf_set(eb, "%s:%d: %s", p->path, kv->line, e2.msg);
	kv = preset_find(p, "fit.algo");
	algo = ALGO_RING;
	if (kv && ar_algo_lookup(kv->value, &algo, &e2) < 0)
		return errbuf_set(eb, "%s:%d: %s", p->path, kv->line, e2.msg);
	if (S_need(p, "fit.ranks", Q_COUNT, &ranks, eb) < 0)
		return -1;
	memset(m, 0, sizeof(*m));
	if (preset_get_quantity(p, "fit.base_steps", Q_NUMBER, &m->base_steps, eb) < 0)
		return -1;
	if (!(m->base_steps >= 0 && m->base_steps <= 1e6))
		return errbuf_set(eb, "%s:%d: fit.base_steps must be between 0 and 1e6", p->path,
				  preset_find(p, "fit.base_steps")->line);
	m->op = op;
	m->algo = algo;
	m->ranks = (unsigned long)ranks;
	return 0;
}

/* Regime k's keys (alpha.k, beta.k, from.k, to.k, alpha_ci.k, beta_ci.k)
 * into m->reg[k], its sizes above regime k - 1's. */
static int S_read_regime(const struct preset *p, struct fit_model *m, size_t k,
			 struct errbuf *eb)
{
	struct regime *r = &m->reg[k];
	char key[32];

	snprintf(key, sizeof(key), "alpha.%zu", k + 1);
	if (S_need(p, key, Q_TIME, &r->alpha, eb) < 0)
		return -1;
	snprintf(key, sizeof(key), "beta.%zu", k + 1);
	if (S_need(p, key, Q_RATE, &r->beta, eb) < 0)
		return -1;
	/* The bounds of alpha and beta (preset_link) hold for every regime. */
	if (!(r->beta >= BETA_MIN && r->beta <= 1e18))
		return errbuf_set(eb, "%s:%d: %s '%s' is not between %g and 1e18 B/s",
				  p->path, preset_find(p, key)->line, key, preset_find(p, key)->value,
				  BETA_MIN);
	snprintf(key, sizeof(key), "alpha.%zu", k + 1);
	if (r->alpha > 3600)
		return errbuf_set(eb, "%s:%d: %s '%s' is above 3600 s", p->path,
				  preset_find(p, key)->line, key, preset_find(p, key)->value);
	snprintf(key, sizeof(key), "from.%zu", k + 1);
	if (S_need(p, key, Q_SIZE, &r->lo, eb) < 0)
		return -1;
	r->alpha_ci = r->beta_ci = NAN;
	snprintf(key, sizeof(key), "alpha_ci.%zu", k + 1);
	if (preset_get_quantity(p, key, Q_TIME, &r->alpha_ci, eb) < 0)
		return -1;
	snprintf(key, sizeof(key), "beta_ci.%zu", k + 1);
	if (preset_get_quantity(p, key, Q_RATE, &r->beta_ci, eb) < 0)
		return -1;
	snprintf(key, sizeof(key), "to.%zu", k + 1);
	if (S_need(p, key, Q_SIZE, &r->hi, eb) < 0)
		return -1;
	if (r->hi < r->lo || (k > 0 && r->lo <= m->reg[k - 1].hi))
		return errbuf_set(eb, "%s:%d: regime %zu: sizes must increase "
				  "(from.%zu, to.%zu)", p->path, preset_find(p, key)->line,
				  k + 1, k + 1, k + 1);
	return 0;
}

int fit_model_from_preset(const struct preset *p, struct fit_model *m,
			  struct errbuf *eb)
{
	const struct preset_kv *kv;
	double nreg;
	size_t k;

	kv = preset_find(p, "regimes");
	if (!kv)
		return 0;
	if (S_need(p, "regimes", Q_COUNT, &nreg, eb) < 0)
		return -1;
	if (nreg < 1 || nreg > FIT_REGIMES_MAX)
		return errbuf_set(eb, "%s:%d: regimes '%s' is not between 1 and %d",
				  p->path, kv->line, kv->value, FIT_REGIMES_MAX);
	if (S_read_fit(p, m, eb) < 0)
		return -1;
	m->nreg = (size_t)nreg;
	for (k = 0; k < m->nreg; k++)
		if (S_read_regime(p, m, k, eb) < 0)
			return -1;
	return 1;
}

/* Append key = value (key NULL: a comment line) to kv; value is copied. */
static void kv_add(struct preset_kv *kv, size_t *n, const char *key, const char *value)
{
	kv[*n] = (struct preset_kv){ .key = key ? xstrdup(key) : NULL, .value = xstrdup(value) };
	++*n;
}

/* key = x with every digit that reads back exactly. */
static void kv_num(struct preset_kv *kv, size_t *n, const char *key, double x)
{
	char num[32];

	fmt_double(num, x);
	kv_add(kv, n, key, num);
}

int fit_preset_write(const char *path, const char *name, const char *description,
		     const char *comment, const struct ab_fit *ab,
		     const struct fit_model *m, struct errbuf *eb)
{
	struct preset_kv kv[16 + 7 * FIT_REGIMES_MAX];
	char key[32], num[32];
	char *desc = preset_text_clean(description, 1000);
	size_t n = 0, k;
	int r;

	kv_add(kv, &n, "name", name);
	kv_add(kv, &n, "kind", "link");
	kv_add(kv, &n, "description", desc);
	free(desc);
	kv_add(kv, &n, NULL, "the single best alpha-beta fit (s per step, bytes/s)");
	kv_num(kv, &n, "alpha", ab->alpha);
	kv_num(kv, &n, "beta", ab->beta);
	kv_add(kv, &n, NULL, "what the fit was made for; alpha.k and beta.k hold for these");
	kv_add(kv, &n, "fit.op", coll_op_name(m->op));
	kv_add(kv, &n, "fit.algo", coll_algo_name(m->algo));
	snprintf(num, sizeof(num), "%lu", m->ranks);
	kv_add(kv, &n, "fit.ranks", num);
	if (m->base_steps > 0) {
		kv_add(kv, &n, NULL, "every call pays a base latency of fit.base_steps times "
		       "alpha.k besides the a*alpha.k of its steps: a prior (models/fit.md)");
		kv_num(kv, &n, "fit.base_steps", m->base_steps);
	}
	if (m->nreg > 1 || m->base_steps > 0) {
		kv_add(kv, &n, NULL, "regimes: alpha.k (s per step) and beta.k (bytes/s) hold "
		       "for sizes from.k to to.k (bytes); between regimes the time moves from "
		       "one to the next linearly in log size (models/fit.md)");
		snprintf(num, sizeof(num), "%zu", m->nreg);
		kv_add(kv, &n, "regimes", num);
		for (k = 0; k < m->nreg; k++) {
			snprintf(key, sizeof(key), "alpha.%zu", k + 1);
			kv_num(kv, &n, key, m->reg[k].alpha);
			snprintf(key, sizeof(key), "beta.%zu", k + 1);
			kv_num(kv, &n, key, m->reg[k].beta);
			snprintf(key, sizeof(key), "from.%zu", k + 1);
			kv_num(kv, &n, key, m->reg[k].lo);
			snprintf(key, sizeof(key), "to.%zu", k + 1);
			kv_num(kv, &n, key, m->reg[k].hi);
			/* an interval, not a value to reproduce: three digits say it */
			if (isfinite(m->reg[k].alpha_ci)) {
				snprintf(key, sizeof(key), "alpha_ci.%zu", k + 1);
				snprintf(num, sizeof(num), "%.3g", m->reg[k].alpha_ci);
				kv_add(kv, &n, key, num);
			}
			if (isfinite(m->reg[k].beta_ci)) {
				snprintf(key, sizeof(key), "beta_ci.%zu", k + 1);
				snprintf(num, sizeof(num), "%.3g", m->reg[k].beta_ci);
				kv_add(kv, &n, key, num);
			}
		}
	}
	r = preset_save(path, comment, kv, n, eb);
	for (k = 0; k < n; k++) {
		free(kv[k].key);
		free(kv[k].value);
	}
	return r;
}
