/*
 * Option values the commands share: time units of the tables, the
 * callbacks of algorithm, collective and rank options, quantities with units
 * and lists of them.
 */
#include <math.h>
#include <string.h>

#include "cli.h"

static const struct time_unit time_units[] = {
	{ .name = "ns", .scale = 1e-9, .suffix = "ns", .prec = 1 },
	{ .name = "us", .scale = 1e-6, .suffix = "\xc2\xb5s", .prec = 1 },
	{ .name = "ms", .scale = 1e-3, .suffix = "ms", .prec = 1 },
	{ .name = "s", .scale = 1, .suffix = "s", .prec = 1 },
};
#define NTIME_UNITS (sizeof(time_units) / sizeof(time_units[0]))

static const struct time_unit *find_time_unit(const char *name)
{
	size_t i;

	if (!strcmp(name, "\xc2\xb5s"))
		name = "us";
	for (i = 0; i < NTIME_UNITS; i++)
		if (!strcmp(time_units[i].name, name))
			return &time_units[i];
	return NULL;
}

int time_unit_known(const char *name)
{
	return !strcmp(name, "auto") || find_time_unit(name);
}

void ctx_time_unit(const struct ctx *ctx, double tmin, double tmax, enum unit_rule rule,
		   struct time_unit *u)
{
	size_t i = 0;

	if (ctx->time_unit && find_time_unit(ctx->time_unit)) {
		*u = *find_time_unit(ctx->time_unit);
		return;
	}
	/* nothing to time (one rank): milliseconds, as a step is counted */
	if (!(tmin > 0 && isfinite(tmin)) && !(tmax > 0 && isfinite(tmax))) {
		*u = time_units[2];
		return;
	}
	if (!(tmin > 0 && isfinite(tmin)))
		tmin = tmax;
	if (!(tmax > 0 && isfinite(tmax)))
		tmax = tmin;
	if (rule == UNIT_BY_SMALLEST) {
		while (i + 1 < NTIME_UNITS && tmin >= time_units[i + 1].scale)
			i++;
	} else {
		/* at most three digits before the point: 2.132 s, not 2131.6 ms */
		while (i + 1 < NTIME_UNITS && tmax / time_units[i].scale >= 1e3)
			i++;
	}
	/* seven digits before the point are too many to read: a larger unit */
	while (i + 1 < NTIME_UNITS && tmax / time_units[i].scale >= 1e6)
		i++;
	*u = time_units[i];
	/* below 10 the smallest time gets a second decimal, below 1 a third */
	while (u->prec < 3 && tmin / u->scale < pow(10, 2 - u->prec))
		u->prec++;
}

void column_time_unit(struct column *c, const struct time_unit *u)
{
	c->human = H_FIXED;
	c->scale = u->scale;
	c->suffix = u->suffix;
	c->prec = u->prec;
}

const struct cost_model *ctx_algo_model(const struct ctx *ctx)
{
	return ctx->machine.have_system ? &ctx->machine.model : NULL;
}

void opt_cb_algo(const struct opt *o, const char *arg)
{
	const struct cost_model *model = o->arg;
	struct errbuf eb;
	int r = model ? cost_algo_lookup(model, OP_ALLREDUCE, arg, o->value, &eb)
		      : ar_algo_lookup(arg, o->value, &eb);

	if (r < 0)
		die_usage("--%s: %s", o->long_name, eb.msg);
}

void opt_cb_meas_algo(const struct opt *o, const char *arg)
{
	const struct cost_model *model = o->arg;
	struct errbuf eb, first;
	int op;

	if (!model) {
		opt_cb_algo(o, arg);
		return;
	}
	/* The log says the collective later: any of the model's names will do. */
	for (op = 0; op < OP_COUNT; op++)
		if (cost_algo_lookup(model, (enum coll_op)op, arg, o->value,
				     op == OP_ALLREDUCE ? &first : &eb) == 0)
			return;
	die_usage("--%s: %s", o->long_name, first.msg);
}

void opt_cb_algos(const struct opt *o, const char *arg)
{
	const struct cost_model *model = o->arg;
	struct algo_set *s = o->value;
	struct errbuf eb;

	s->n = model ? cost_algo_parse_list(model, OP_ALLREDUCE, arg, s->v, &eb)
		     : ar_algo_parse_list(arg, s->v, &eb);
	if (s->n < 0)
		die_usage("--%s: %s", o->long_name, eb.msg);
}

void ctx_check_ranks(const struct ctx *ctx, const struct dlist *ranks)
{
	struct errbuf eb;
	size_t i;

	if (!ctx->machine.have_system)
		return;
	for (i = 0; i < ranks->n; i++)
		if (system_check_ranks(&ctx->machine.system, (unsigned long)ranks->v[i], &eb) < 0)
			die("%s", eb.msg);
}

void opt_cb_op(const struct opt *o, const char *arg)
{
	struct errbuf eb;
	enum coll_op x;

	if (coll_op_lookup(arg, &x, &eb) < 0)
		die_usage("--%s: %s", o->long_name, eb.msg);
	*(enum coll_op *)o->value = x;
}

void opt_cb_count2(const struct opt *o, const char *arg)
{
	char shown[64];

	snprintf(shown, sizeof(shown), "--%s", o->long_name);
	*(unsigned long *)o->value = (unsigned long)opt_quantity_range(shown, Q_COUNT, arg,
								       2, (double)RANKS_MAX);
}

void opt_cb_ranks2(const struct opt *o, const char *arg)
{
	char shown[64];

	snprintf(shown, sizeof(shown), "--%s", o->long_name);
	opt_ranks(shown, arg, o->value, 2);
}

void opt_cb_params(const struct opt *o, const char *arg)
{
	struct workload_args *w = o->value;
	struct errbuf eb;

	if (workload_parse_count(arg, &w->params, &eb) < 0)
		die_usage("--%s: %s", o->long_name, eb.msg);
	w->params_arg = arg;
}

void opt_cb_whole(const struct opt *o, const char *arg)
{
	char name[64];
	double x;

	snprintf(name, sizeof(name), "--%s", o->long_name);
	x = opt_quantity_range(name, Q_NUMBER, arg, 1, 1e15);
	if (x != floor(x))
		die_usage("%s: expected a whole number, got '%s'", name, arg);
	*(unsigned long *)o->value = (unsigned long)x;
}

/*
 * A bare number that is almost surely missing its unit: a rate below
 * 1 MB/s (a bare number is bytes per second: '--beta 200' is 200 B/s,
 * slower than any link the tool models) or an --alpha of 10 ms or more
 * (seconds: '--alpha 5' is 5 s a step, where links take microseconds).
 * Said on stderr; the value stands and the exit status is unchanged.
 */
static void plausible(const char *opt, enum quantity q, const char *arg, double x)
{
	size_t n = strlen(arg);

	if (n == 0 || strspn(arg, "0123456789.eE+-") != n || !strpbrk(arg, "0123456789"))
		return;
	if (q == Q_RATE && x > 0 && x < 1e6)
		warning("%s: '%s' is %s B/s, a bare number being bytes per second; if you "
			"meant %sGB/s or %sGb/s, write the unit", opt, arg, arg, arg, arg);
	else if (q == Q_TIME && !strcmp(opt, "--alpha") && x >= 0.01)
		warning("%s: '%s' is %s s a step, a bare number being seconds; if you "
			"meant %sus, write the unit", opt, arg, arg, arg);
}

void opt_warn_bare(const char *opt, enum quantity q, const char *arg)
{
	struct errbuf eb;
	double x;

	if (arg && units_parse(q, arg, &x, &eb) == 0)
		plausible(opt, q, arg, x);
}

double opt_quantity(const char *opt, enum quantity q, const char *arg)
{
	struct errbuf eb;
	double x;

	if (units_parse(q, arg, &x, &eb) < 0)
		die_usage("%s: %s", opt, eb.msg);
	plausible(opt, q, arg, x);
	return x;
}

double opt_positive(const char *opt, enum quantity q, const char *arg)
{
	static const char *const what[] = {
		[Q_NUMBER] = "value", [Q_COUNT] = "count", [Q_TIME] = "time",
		[Q_SIZE] = "size", [Q_RATE] = "rate", [Q_FRACTION] = "fraction"
	};
	double x = opt_quantity(opt, q, arg);

	if (!(x > 0))
		die_usage("%s: %s must be positive, got '%s'", opt,
			  (unsigned)q < sizeof(what) / sizeof(what[0]) && what[q] ? what[q] : "value",
			  arg);
	return x;
}

double opt_quantity_range(const char *opt, enum quantity q, const char *arg,
			  double lo, double hi)
{
	double x = opt_quantity(opt, q, arg);

	if (x < lo || x > hi)
		die_usage("%s: '%s' is out of range [%g, %g]", opt, arg, lo, hi);
	return x;
}

void opt_list(const char *opt, enum quantity q, const char *arg, struct dlist *l)
{
	struct errbuf eb;

	size_t i;

	dlist_release(l);
	if (units_parse_list(q, arg, l, &eb) < 0)
		die_usage("%s: %s", opt, eb.msg);
	/* Nothing moves a fraction of a byte: 1e-300 B would only mislead. */
	for (i = 0; q == Q_SIZE && i < l->n; i++)
		if (l->v[i] > 0 && l->v[i] < 1)
			die_usage("%s: size %g B in '%s' is below one byte", opt, l->v[i], arg);
}

void opt_ranks(const char *opt, const char *arg, struct dlist *l, unsigned long min)
{
	size_t i;

	opt_list(opt, Q_COUNT, arg, l);
	for (i = 0; i < l->n; i++) {
		if (l->v[i] < (double)min)
			die_usage("%s: rank count %.17g in '%s' is below %lu", opt,
				  l->v[i], arg, min);
		if (l->v[i] > (double)RANKS_MAX)
			die_usage("%s: rank count %.17g in '%s' is above the limit %lu",
				  opt, l->v[i], arg, RANKS_MAX);
	}
}
