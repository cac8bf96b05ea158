/*
 * Crossover sizes: where two cost models take equal time.
 * See models/crossover.md.
 */
#include <math.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>

#include "crossover.h"

struct diff {
	cost_fn fa, fb;
	const void *a, *b;
};

/* The difference of the two costs at size e^x: solving in log size keeps
 * the bracket [1 B, 1 PiB] well scaled for the solver. */
static double diff_at(double x, void *arg)
{
	const struct diff *d = arg;
	double S = exp(x);

	return d->fa(S, d->a) - d->fb(S, d->b);
}

static int sign(double x)
{
	return (x > 0) - (x < 0);
}

#define GRID 96

/*
 * Brent's method between x0 and x1, log sizes either side of the change of
 * sign: the crossing into c->bytes.
 */
static int S_brent(struct diff *d, double x0, double x1, struct crossing *c,
		   struct errbuf *eb)
{
	gsl_function F = { .function = diff_at, .params = d };
	int status, iter;
	gsl_root_fsolver *solver;
	gsl_error_handler_t *old;

	old = gsl_set_error_handler_off();
	solver = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
	if (!solver) {
		gsl_set_error_handler(old);
		return errbuf_set(eb, "out of memory in the root finder");
	}
	status = gsl_root_fsolver_set(solver, &F, x0, x1);
	for (iter = 0; status == GSL_SUCCESS && iter < 200; iter++) {
		status = gsl_root_fsolver_iterate(solver);
		if (status != GSL_SUCCESS)
			break;
		status = gsl_root_test_interval(gsl_root_fsolver_x_lower(solver),
						gsl_root_fsolver_x_upper(solver),
						0, 1e-14);
		if (status == GSL_SUCCESS)
			break;
		if (status == GSL_CONTINUE)
			status = GSL_SUCCESS;
	}
	if (status == GSL_SUCCESS && iter < 200) {
		c->result = CROSS_FOUND;
		c->bytes = exp(gsl_root_fsolver_root(solver));
	}
	gsl_root_fsolver_free(solver);
	gsl_set_error_handler(old);
	if (c->result != CROSS_FOUND || status != GSL_SUCCESS || iter >= 200)
		return errbuf_set(eb, "the root finder did not converge between "
				  "%g B and %g B", exp(x0), exp(x1));
	return 0;
}

int crossover_solve(cost_fn fa, const void *a, cost_fn fb, const void *b,
		    double lo, double hi, struct crossing *c, struct errbuf *eb)
{
	struct diff d = { .fa = fa, .fb = fb, .a = a, .b = b };
	double xlo = log(lo), xhi = log(hi), x0, x1, g0, g1;
	int i, s0, any_neg = 0, any_pos = 0;

	c->result = CROSS_EQUAL;
	c->bytes = NAN;
	c->below = -1;
	if (!(lo > 0 && hi > lo && isfinite(hi)))
		return errbuf_set(eb, "bad bracket [%g, %g] for the crossover", lo, hi);

	/*
	 * Walk a geometric grid for the first change of sign.  The models are
	 * affine in S, so there is at most one; the grid keeps the search
	 * honest for models that are not.
	 */
	x0 = xlo;
	g0 = diff_at(x0, &d);
	s0 = sign(g0);
	any_neg |= s0 < 0;
	any_pos |= s0 > 0;
	for (i = 1; i <= GRID; i++) {
		x1 = i == GRID ? xhi : xlo + (xhi - xlo) * i / GRID;
		g1 = diff_at(x1, &d);
		if (isnan(g0) || isnan(g1))
			return errbuf_set(eb, "cost is not a number at %g B", exp(x1));
		if (s0 != 0 && sign(g1) == -s0)
			break;
		any_neg |= g1 < 0;
		any_pos |= g1 > 0;
		if (s0 == 0)
			s0 = sign(g1);
		x0 = x1;
		g0 = g1;
	}
	if (i > GRID) {
		c->result = any_neg ? CROSS_A_ALWAYS : any_pos ? CROSS_B_ALWAYS : CROSS_EQUAL;
		c->bytes = NAN;
		c->below = -1;
		return 0;
	}

	c->below = s0 < 0 ? 0 : 1;
	return S_brent(&d, x0, x1, c, eb);
}

struct coll_arg {
	const struct cost_model *m;
	enum coll_op op;
	enum coll_algo algo;
	const struct group *g;
};

static double coll_cost_fn(double bytes, const void *arg)
{
	const struct coll_arg *p = arg;
	struct coll_cost c;

	if (cost_coll(p->m, p->op, p->algo, p->g, bytes, &c, NULL) < 0)
		return NAN;
	return c.time_s;
}

int crossover_coll(const struct cost_model *m, enum coll_op op, enum coll_algo a,
		   enum coll_algo b, const struct group *g, double lo, double hi,
		   struct crossing *c, struct errbuf *eb)
{
	struct coll_arg pa = { .m = m, .op = op, .algo = a, .g = g };
	struct coll_arg pb = { .m = m, .op = op, .algo = b, .g = g };
	struct coll_cost t;

	/* Ask once with a message: the model's errors are the user's to read. */
	if (cost_coll(m, op, a, g, lo, &t, eb) < 0 || cost_coll(m, op, b, g, lo, &t, eb) < 0)
		return -1;
	return crossover_solve(coll_cost_fn, &pa, coll_cost_fn, &pb, lo, hi, c, eb);
}

int crossover_allreduce(enum coll_algo a, enum coll_algo b, const struct link *l,
			unsigned long ranks, double lo, double hi,
			struct crossing *c, struct errbuf *eb)
{
	struct cost_model m;
	struct group g = { .ranks = ranks };

	cost_model_link(&m, l);
	return crossover_coll(&m, OP_ALLREDUCE, a, b, &g, lo, hi, c, eb);
}

double crossover_ring_tree(const struct link *l, unsigned long ranks)
{
	double n = (double)ranks, L = ceil_log2(ranks);
	double num = n - 1 - L, den = L - (n - 1) / n;

	if (ranks < 2 || num <= 0 || den <= 0)
		return NAN;
	return l->alpha * l->beta * num / den;
}
