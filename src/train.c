/*
 * Training-level models: DDP gradient all-reduce, ZeRO stages, speedup.
 * Formulas, assumptions and sources: models/ddp.md, models/zero.md,
 * models/speedup.md.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_roots.h>
#include <gsl/gsl_vector.h>

#include "step.h"
#include "train.h"
#include "units.h"

/* ------------------------------------------------------------------ DDP */

void ddp_params_init(struct ddp_params *p)
{
	memset(p, 0, sizeof(*p));
	p->backward_share = DDP_BACKWARD_SHARE;
	p->overlap = 0;
	p->bucket = 0;
	p->algo = ALGO_RING;
}

int ddp_check(const struct ddp_params *p, struct errbuf *eb)
{
	if (!(p->grad_bytes > 0))
		return errbuf_set(eb, "gradient size must be positive, got %g B", p->grad_bytes);
	if (!isfinite(p->grad_bytes))
		return errbuf_set(eb, "gradient size is too large to compute with");
	if (!(p->compute >= 0) || !isfinite(p->compute))
		return errbuf_set(eb, "compute time must be positive, got %g s", p->compute);
	if (!(p->backward_share > 0 && p->backward_share <= 1))
		return errbuf_set(eb, "backward share must be in (0, 1], got %g", p->backward_share);
	if (!(p->overlap >= 0 && p->overlap <= 1))
		return errbuf_set(eb, "overlap must be in [0, 1], got %g", p->overlap);
	if (!(p->bucket >= 0) || !isfinite(p->bucket))
		return errbuf_set(eb, "bucket size must be positive, got %g B", p->bucket);
	return 0;
}

void ddp_step(const struct ddp_params *p, const struct link *l, unsigned long ranks,
	      struct ddp_step *s)
{
	struct cost_model m;

	cost_model_link(&m, l);
	ddp_step_cost(p, &m, ranks, s);
}

void ddp_step_cost(const struct ddp_params *p, const struct cost_model *m,
		   unsigned long ranks, struct ddp_step *s)
{
	double G = p->grad_bytes, hide;

	s->ranks = ranks;
	if (p->bucket > 0 && p->bucket < G) {
		/*
		 * Buckets fill in the order gradients become ready; all but the
		 * last are full, the last holds the remainder.  Each pays its
		 * own latency: that is the price of starting early.
		 */
		double k = ceil(G / p->bucket);
		double rest = G - (k - 1) * p->bucket;

		s->buckets = k;
		s->bucket_bytes = p->bucket;
		s->bucket_s = cost_time(m, OP_ALLREDUCE, p->algo, ranks, p->bucket);
		s->last_s = cost_time(m, OP_ALLREDUCE, p->algo, ranks, rest);
		s->comm_s = (k - 1) * s->bucket_s + s->last_s;
	} else {
		s->buckets = 1;
		s->bucket_bytes = G;
		s->bucket_s = s->last_s = s->comm_s = cost_time(m, OP_ALLREDUCE, p->algo, ranks, G);
	}

	/*
	 * Communication can run while backward still computes, for at most
	 * F·s_b·C seconds.  With buckets, the last one is launched only when
	 * backward has finished, so it is always exposed.  Without buckets
	 * the gradient is taken as streaming out while it is produced (the
	 * limit of small buckets whose latency is counted once).
	 */
	hide = p->overlap * p->backward_share * p->compute;
	s->exposed_s = s->comm_s - hide;
	if (p->bucket > 0 && p->overlap > 0 && s->exposed_s < s->last_s)
		s->exposed_s = s->last_s;
	if (s->exposed_s < 0)
		s->exposed_s = 0;
	if (s->exposed_s > s->comm_s)
		s->exposed_s = s->comm_s;
	if (!(p->compute > 0)) {
		s->step_s = s->fraction = NAN;
		return;
	}
	s->step_s = p->compute + s->exposed_s;
	s->fraction = s->exposed_s / s->step_s;
}

struct S_target {
	const struct ddp_params *p;
	struct link l;
	unsigned long ranks;
	double target;
};

/* share(β) - target at β = e^x; falls as x grows. */
static double S_target_fn(double x, void *arg)
{
	struct S_target *t = arg;
	struct ddp_step s;

	t->l.beta = exp(x);
	ddp_step(t->p, &t->l, t->ranks, &s);
	return s.fraction - t->target;
}

int ddp_target_beta(const struct ddp_params *p, const struct link *l, unsigned long ranks,
		    double target, enum target_result *res, double *beta, struct errbuf *eb)
{
	struct S_target t = { p, *l, ranks, target };
	double lo = log(TARGET_BETA_LO), hi = log(TARGET_BETA_HI), x = 0;
	gsl_function F = { S_target_fn, &t };
	gsl_root_fsolver *s;
	int status, iter = 0;

	if (!(target > 0 && target < 1))
		return errbuf_set(eb, "target share must be between 0 and 1, got %g", target);
	if (S_target_fn(hi, &t) > 0) {
		*res = TARGET_UNREACHABLE;
		return 0;
	}
	if (S_target_fn(lo, &t) <= 0) {
		*res = TARGET_ANY;
		return 0;
	}

	gsl_set_error_handler_off();
	s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
	if (!s)
		return errbuf_set(eb, "cannot allocate the root solver");
	status = gsl_root_fsolver_set(s, &F, lo, hi);
	while (status == GSL_SUCCESS && iter++ < 200) {
		status = gsl_root_fsolver_iterate(s);
		if (status != GSL_SUCCESS)
			break;
		x = gsl_root_fsolver_root(s);
		status = gsl_root_test_interval(gsl_root_fsolver_x_lower(s),
						gsl_root_fsolver_x_upper(s), 1e-13, 0);
		if (status == GSL_SUCCESS)
			break;
		if (status == GSL_CONTINUE)
			status = GSL_SUCCESS;
	}
	gsl_root_fsolver_free(s);
	if (status != GSL_SUCCESS || iter > 200)
		return errbuf_set(eb, "no bandwidth found for a share of %g: %s", target,
				  gsl_strerror(status != GSL_SUCCESS ? status : GSL_EMAXITER));
	*res = TARGET_FOUND;
	*beta = exp(x);
	return 0;
}

/* ----------------------------------------------------------------- ZeRO */

void zero_params_init(struct zero_params *p)
{
	memset(p, 0, sizeof(*p));
	p->param_bytes = 2;
	p->grad_bytes = 2;
	p->optim_bytes = 12;
	p->layers = 1;
	p->algo = ALGO_RING;
}

int zero_check(const struct zero_params *p, struct errbuf *eb)
{
	if (!(p->params > 0) || !isfinite(p->params))
		return errbuf_set(eb, "parameter count must be positive, got %g", p->params);
	if (!(p->param_bytes > 0) || !isfinite(p->param_bytes))
		return errbuf_set(eb, "bytes per parameter must be positive, got %g", p->param_bytes);
	if (!(p->grad_bytes > 0) || !isfinite(p->grad_bytes))
		return errbuf_set(eb, "bytes per gradient must be positive, got %g", p->grad_bytes);
	if (!(p->optim_bytes >= 0) || !isfinite(p->optim_bytes))
		return errbuf_set(eb, "optimizer bytes per parameter must be >= 0, got %g",
				  p->optim_bytes);
	if (!isfinite(p->params * (p->param_bytes + p->grad_bytes + p->optim_bytes)))
		return errbuf_set(eb, "model states of %g parameters are too large to compute with",
				  p->params);
	return 0;
}

void zero_cost(const struct zero_params *p, const struct link *l, unsigned long ranks,
	       int stage, struct zero_cost *c)
{
	struct cost_model m;

	cost_model_link(&m, l);
	zero_cost_model(p, &m, ranks, stage, c);
}

void zero_cost_model(const struct zero_params *p, const struct cost_model *m,
		     unsigned long ranks, int stage, struct zero_cost *c)
{
	double psi = p->params, n = (double)ranks, share = (n - 1) / n;
	double P = p->param_bytes * psi, G = p->grad_bytes * psi, K = p->optim_bytes * psi;
	struct step_pricing pr = { m, p->algo, STEP_BAND_NONE, 0, 0, NULL };
	struct step_result r;
	struct errbuf eb;

	c->ranks = ranks;
	c->stage = stage;
	c->param_B = stage >= 3 ? P / n : P;
	c->grad_B = stage >= 2 ? G / n : G;
	c->optim_B = stage >= 1 ? K / n : K;
	c->memory_B = c->param_B + c->grad_B + c->optim_B;

	switch (stage) {
	case 0:
		c->comm_B = 2 * share * G;
		break;
	case 1:
	case 2:
		c->comm_B = share * (G + P);
		break;
	default:
		c->comm_B = share * (G + 2 * P);
		break;
	}
	memset(&r, 0, sizeof(r));
	/* Packed ranks (per_node 0), each collective by the cost core (step_dp_rows). */
	if (step_dp_rows(psi, p->layers >= 1 ? p->layers : 1, 1, stage, ranks, 0,
			 p->grad_bytes, p->param_bytes, &pr, &r, &eb) < 0)
		r.dp_comm_s = NAN;
	c->comm_s = r.dp_comm_s;
}

/* -------------------------------------------------------------- speedup */

double speedup(double a, double n)
{
	double d = 1 + a * (n - 1);

	return d > 0 ? n / d : NAN;
}

/* One "R:X" pair from p up to a comma or the end; *endp after it. */
static int S_pair(const char *whole, const char *p, const char **endp, double *r, double *x,
		  struct errbuf *eb)
{
	const char *comma = strchr(p, ',');
	size_t len = comma ? (size_t)(comma - p) : strlen(p);
	char buf[128], *colon;

	if (len == 0 || len >= sizeof(buf))
		return errbuf_set(eb, "cannot parse measurements '%s': expected RANKS:THROUGHPUT pairs",
				  whole);
	memcpy(buf, p, len);
	buf[len] = '\0';
	colon = strchr(buf, ':');
	if (!colon)
		return errbuf_set(eb, "cannot parse measurement '%s': expected RANKS:THROUGHPUT", buf);
	*colon = '\0';
	if (units_decimal(buf, 0, r) < 0 || *r < 1 || *r != floor(*r) ||
	    *r > (double)RANKS_MAX)
		return errbuf_set(eb, "cannot parse measurement '%s:%s': rank count must be a whole number >= 1",
				  buf, colon + 1);
	if (units_decimal(colon + 1, 0, x) < 0 || *x <= 0)
		return errbuf_set(eb, "cannot parse measurement '%s:%s': throughput must be a positive number",
				  buf, colon + 1);
	*endp = comma ? comma + 1 : p + len;
	return 0;
}

int speedup_parse_measured(const char *s, double **ranks, double **tput, size_t *n,
			   struct errbuf *eb)
{
	size_t cap = 1, k = 0;
	const char *p;
	double *r, *x;

	for (p = s; *p; p++)
		if (*p == ',')
			cap++;
	if (!*s || s[strlen(s) - 1] == ',')
		return errbuf_set(eb, "cannot parse measurements '%s': expected RANKS:THROUGHPUT pairs",
				  s);
	r = xmalloc(cap * sizeof(*r));
	x = xmalloc(cap * sizeof(*x));
	p = s;
	do {
		if (S_pair(s, p, &p, &r[k], &x[k], eb) < 0) {
			free(r);
			free(x);
			return -1;
		}
		k++;
	} while (*p && k < cap);
	*ranks = r;
	*tput = x;
	*n = k;
	return 0;
}

struct S_fit {
	const double *N, *X;
	size_t n;
	double x1;        /* used when it is not a parameter */
	int fit_x1;
};

/* Parameters: (a) or (a, X1). */
static void S_unpack(const struct S_fit *d, const gsl_vector *v, double *a, double *x1)
{
	*a = gsl_vector_get(v, 0);
	*x1 = d->fit_x1 ? gsl_vector_get(v, 1) : d->x1;
}

static int S_fit_f(const gsl_vector *v, void *arg, gsl_vector *f)
{
	const struct S_fit *d = arg;
	double a, x1;
	size_t i;

	S_unpack(d, v, &a, &x1);
	for (i = 0; i < d->n; i++) {
		double den = 1 + a * (d->N[i] - 1);

		if (!(den > 0))
			return GSL_EDOM;
		gsl_vector_set(f, i, x1 * d->N[i] / den - d->X[i]);
	}
	return GSL_SUCCESS;
}

static int S_fit_df(const gsl_vector *v, void *arg, gsl_matrix *J)
{
	const struct S_fit *d = arg;
	double a, x1;
	size_t i;

	S_unpack(d, v, &a, &x1);
	for (i = 0; i < d->n; i++) {
		double N = d->N[i], den = 1 + a * (N - 1);

		if (!(den > 0))
			return GSL_EDOM;
		gsl_matrix_set(J, i, 0, -x1 * N * (N - 1) / (den * den));
		if (d->fit_x1)
			gsl_matrix_set(J, i, 1, N / den);
	}
	return GSL_SUCCESS;
}

/*
 * First guess from the linearised model: N/X = 1/X1 + (a/X1)(N-1) is a
 * straight line in N-1; with X1 known, N·X1/X - 1 = a(N-1) is one
 * through the origin.  -1 when there is none, or when it scales faster
 * than linearly (1 + a(N-1) <= 0 at a point).
 */
static int S_fit_start(const struct S_fit *d, double *a, double *x1, struct errbuf *eb)
{
	double *u = xmalloc(d->n * sizeof(*u)), *y = xmalloc(d->n * sizeof(*y));
	double c0, c1, c11, c00, c01, sumsq;
	size_t i;
	int st;

	for (i = 0; i < d->n; i++) {
		u[i] = d->N[i] - 1;
		y[i] = d->fit_x1 ? d->N[i] / d->X[i] : d->N[i] * d->x1 / d->X[i] - 1;
	}
	if (d->fit_x1) {
		st = gsl_fit_linear(u, 1, y, 1, d->n, &c0, &c1, &c00, &c01, &c11, &sumsq);
		if (st == GSL_SUCCESS && c0 > 0 && isfinite(c1)) {
			*x1 = 1 / c0;
			*a = c1 / c0;
		} else
			st = GSL_EDOM;
	} else {
		st = gsl_fit_mul(u, 1, y, 1, d->n, &c1, &c11, &sumsq);
		*a = c1;
		*x1 = d->x1;
		if (st == GSL_SUCCESS && !isfinite(c1))
			st = GSL_EDOM;
	}
	free(u);
	free(y);
	if (st != GSL_SUCCESS)
		return errbuf_set(eb, "cannot fit the measurements: the throughputs do not follow N/(1+a(N-1))");
	for (i = 0; i < d->n; i++)
		if (!(1 + *a * (d->N[i] - 1) > 0))
			return errbuf_set(eb, "cannot fit the measurements: they scale faster than linearly (a = %.3g)",
					  *a);
	return 0;
}

static double S_norm(const double *x, size_t n)
{
	double s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += x[i] * x[i];
	return sqrt(s);
}

/*
 * The measurements checked, and X1 in d: the mean of the N = 1 points, or
 * a parameter of the fit when there are none.
 */
static int S_fit_points(const double *ranks, const double *tput, size_t n, struct S_fit *d,
			struct errbuf *eb)
{
	double sum1 = 0;
	size_t i, n1 = 0, distinct = 0;

	for (i = 0; i < n; i++) {
		size_t j;

		if (!(ranks[i] >= 1) || !(tput[i] > 0) || !isfinite(tput[i]))
			return errbuf_set(eb, "measurement %.15g:%.15g: ranks must be >= 1 and throughput positive",
					  ranks[i], tput[i]);
		for (j = 0; j < i && ranks[j] != ranks[i]; j++)
			;
		distinct += j == i;
		if (ranks[i] == 1) {
			n1++;
			sum1 += tput[i];
		}
	}
	if (distinct < 2)
		return errbuf_set(eb, "need throughputs at 2 or more different rank counts to fit a, got %zu",
				  distinct);
	d->fit_x1 = n1 == 0;
	d->x1 = n1 ? sum1 / (double)n1 : 0;
	return 0;
}

/* The fit's a and X1 with their errors from covar, the residuals, the fitted throughputs. */
static void S_fit_report(const struct S_fit *d, double a, double x1, const gsl_matrix *covar,
			 struct speedup_fit *f, double *fitted)
{
	const double *ranks = d->N, *tput = d->X;
	size_t i, n = d->n;
	double rss = 0, s2;

	for (i = 0; i < n; i++) {
		double m = x1 * speedup(a, ranks[i]);

		rss += (m - tput[i]) * (m - tput[i]);
		if (fitted)
			fitted[i] = m;
	}
	f->a = a;
	f->x1 = x1;
	f->x1_fitted = d->fit_x1;
	f->npoints = n;
	/* X1 counts as an unknown either way: the mean of the N = 1 points. */
	f->dof = (int)n - 2;
	f->rss = rss;
	s2 = f->dof > 0 ? rss / f->dof : NAN;
	f->a_err = sqrt(gsl_matrix_get(covar, 0, 0) * s2);
	f->x1_err = d->fit_x1 ? sqrt(gsl_matrix_get(covar, 1, 1) * s2) : NAN;
}

/* What the fit allocated; the workspace may be NULL. */
static void S_fit_free(gsl_multifit_nlinear_workspace *w, gsl_vector *v, gsl_matrix *covar)
{
	if (w)
		gsl_multifit_nlinear_free(w);
	gsl_vector_free(v);
	gsl_matrix_free(covar);
}

int speedup_fit(const double *ranks, const double *tput, size_t n,
		struct speedup_fit *f, double *fitted, struct errbuf *eb)
{
	gsl_multifit_nlinear_parameters par = gsl_multifit_nlinear_default_parameters();
	gsl_multifit_nlinear_fdf fdf;
	gsl_multifit_nlinear_workspace *w;
	gsl_matrix *covar;
	gsl_vector *v;
	struct S_fit d = { ranks, tput, n, 0, 1 };
	double a = 0, x1 = 0;
	size_t p;
	int info, st;

	if (S_fit_points(ranks, tput, n, &d, eb) < 0)
		return -1;
	p = d.fit_x1 ? 2 : 1;

	gsl_set_error_handler_off();
	if (S_fit_start(&d, &a, &x1, eb) < 0)
		return -1;

	fdf.f = S_fit_f;
	fdf.df = S_fit_df;
	fdf.fvv = NULL;
	fdf.n = n;
	fdf.p = p;
	fdf.params = &d;
	w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &par, n, p);
	v = gsl_vector_alloc(p);
	covar = gsl_matrix_alloc(p, p);
	if (!w || !v || !covar) {
		S_fit_free(w, v, covar);
		return errbuf_set(eb, "cannot allocate the fit");
	}
	gsl_vector_set(v, 0, a);
	if (d.fit_x1)
		gsl_vector_set(v, 1, x1);
	st = gsl_multifit_nlinear_init(v, &fdf, w);
	/*
	 * An exactly determined fit starts at the answer, where the trust
	 * region cannot make progress: no iterations are needed then.
	 */
	if (st == GSL_SUCCESS &&
	    gsl_blas_dnrm2(gsl_multifit_nlinear_residual(w)) > 1e-12 * S_norm(tput, n))
		st = gsl_multifit_nlinear_driver(200, 1e-12, 1e-12, 1e-12, NULL, NULL, &info, w);
	if (st == GSL_ENOPROG)
		st = GSL_SUCCESS;
	if (st == GSL_SUCCESS) {
		S_unpack(&d, gsl_multifit_nlinear_position(w), &a, &x1);
		st = gsl_multifit_nlinear_covar(gsl_multifit_nlinear_jac(w), 0.0, covar);
	}
	if (st != GSL_SUCCESS) {
		S_fit_free(w, v, covar);
		return errbuf_set(eb, "cannot fit the measurements: %s", gsl_strerror(st));
	}

	S_fit_report(&d, a, x1, covar, f, fitted);
	S_fit_free(w, v, covar);
	return 0;
}
