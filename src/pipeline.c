/*
 * Pipeline parallelism: closed forms of the bubble and a simulation of
 * the schedules from their dependencies.  See pipeline.h for the
 * interface and models/pipeline.md for the derivations and sources.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline.h"

static const char *const schedule_names[PP_COUNT] = {
	[PP_GPIPE] = "gpipe",
	[PP_1F1B] = "1f1b",
	[PP_INTERLEAVED] = "interleaved",
};

const char *pp_schedule_name(enum pp_schedule s)
{
	if (s == PP_DUALPIPE)
		return "dualpipe";
	return (unsigned)s < PP_COUNT ? schedule_names[s] : "?";
}

int pp_schedule_lookup(const char *name, enum pp_schedule *s, struct errbuf *eb)
{
	int i;

	for (i = 0; i < PP_COUNT; i++) {
		if (!strcmp(name, schedule_names[i])) {
			*s = (enum pp_schedule)i;
			return 0;
		}
	}
	return errbuf_set(eb, "unknown schedule '%s'; choose gpipe, 1f1b or interleaved", name);
}

int pp_schedule_parse_list(const char *s, enum pp_schedule *scheds, struct errbuf *eb)
{
	char word[64];
	int n = 0, i;

	for (;;) {
		size_t len = strcspn(s, ",");
		enum pp_schedule one = PP_GPIPE;

		if (len == 0 || len >= sizeof(word))
			return errbuf_set(eb, "cannot parse schedule list '%s'", s);
		memcpy(word, s, len);
		word[len] = '\0';
		if (pp_schedule_lookup(word, &one, eb) < 0)
			return -1;
		for (i = 0; i < n; i++)
			if (scheds[i] == one)
				return errbuf_set(eb, "schedule '%s' given twice", word);
		scheds[n++] = one;
		if (!s[len])
			return n;
		s += len + 1;
	}
}

struct pp_config pp_config_make(enum pp_schedule s, unsigned long stages, unsigned long micro,
				unsigned long virt, double tf, double tb)
{
	return (struct pp_config){ .schedule = s, .stages = stages, .microbatches = micro,
				   .virt = s == PP_INTERLEAVED ? virt : 1, .tf = tf, .tb = tb };
}

int pp_check(const struct pp_config *c, struct errbuf *eb)
{
	if ((unsigned)c->schedule >= PP_COUNT)
		return errbuf_set(eb, "unknown schedule number %d", (int)c->schedule);
	if (c->stages < 1)
		return errbuf_set(eb, "stage count must be at least 1, got '%lu'", c->stages);
	if (c->stages > PP_STAGES_MAX)
		return errbuf_set(eb, "stage count '%lu' is above the limit %lu",
				  c->stages, PP_STAGES_MAX);
	if (c->microbatches < 1)
		return errbuf_set(eb, "microbatch count must be at least 1, got '%lu'",
				  c->microbatches);
	if (c->microbatches > PP_MICROBATCHES_MAX)
		return errbuf_set(eb, "microbatch count '%lu' is above the limit %lu",
				  c->microbatches, PP_MICROBATCHES_MAX);
	if (c->virt < 1)
		return errbuf_set(eb, "chunks per stage must be at least 1, got '%lu'", c->virt);
	if (c->virt > PP_VIRTUAL_MAX)
		return errbuf_set(eb, "chunks per stage '%lu' is above the limit %lu",
				  c->virt, PP_VIRTUAL_MAX);
	if (c->schedule != PP_INTERLEAVED && c->virt != 1)
		return errbuf_set(eb, "schedule '%s' runs one chunk per stage, not '%lu'; "
				  "virtual stages need the interleaved schedule",
				  pp_schedule_name(c->schedule), c->virt);
	/*
	 * Megatron-LM's interleaved schedule walks the microbatches in groups
	 * of P and asserts that M is a multiple of P; the bubble formula
	 * (P-1)/(vM) is derived for that case.
	 */
	if (c->schedule == PP_INTERLEAVED && c->microbatches % c->stages)
		return errbuf_set(eb, "the interleaved schedule needs microbatches divisible "
				  "by stages: '%lu' is not a multiple of %lu",
				  c->microbatches, c->stages);
	if (!(c->tf > 0) || !isfinite(c->tf))
		return errbuf_set(eb, "forward time '%g' must be positive", c->tf);
	if (!(c->tb > 0) || !isfinite(c->tb))
		return errbuf_set(eb, "backward time '%g' must be positive", c->tb);
	return 0;
}

int pp_defined(const struct pp_config *c)
{
	return !(c->schedule == PP_INTERLEAVED && c->stages > 0 && c->microbatches % c->stages);
}

int pp_bubble(const struct pp_config *c, struct pp_result *r, struct errbuf *eb)
{
	double P, M, v;

	if (pp_check(c, eb) < 0)
		return -1;
	P = (double)c->stages;
	M = (double)c->microbatches;
	v = (double)c->virt;

	/*
	 * Every stage does M forwards and M backwards (v chunks of 1/v each
	 * when interleaved) and idles for (P-1)(tf+tb)/v: the time the first
	 * forward needs to reach it plus the time the last backward needs to
	 * drain from it.  The fractions are written without the times, which
	 * cancel, so they are exact for any tf and tb.
	 */
	r->ideal = M * (c->tf + c->tb);
	r->bubble = (P - 1) * (c->tf + c->tb) / v;
	r->step = r->ideal + r->bubble;
	r->bubble_fraction = (P - 1) / (v * M + P - 1);
	r->bubble_ratio = (P - 1) / (v * M);

	switch (c->schedule) {
	case PP_GPIPE:
		r->inflight = M;
		break;
	case PP_1F1B:
		r->inflight = M < P ? M : P;
		break;
	default:
		/*
		 * Stage 0 runs 2(P-1) + (v-1)P warm-up chunk forwards and one
		 * more before its first backward; with M = P Megatron runs
		 * every forward first.
		 */
		if (c->microbatches == c->stages)
			r->inflight = M;
		else
			r->inflight = ((v + 1) * P - 1) / v;
		break;
	}
	return 0;
}

size_t pp_sim_ops(const struct pp_config *c)
{
	size_t n = 2;
	unsigned long f[3] = { c->stages, c->microbatches, c->virt };
	int i;

	for (i = 0; i < 3; i++) {
		if (f[i] && n > SIZE_MAX / f[i])
			return SIZE_MAX;
		n *= f[i];
	}
	return n;
}

/* One entry of a stage's order: which pass of which chunk of which microbatch. */
struct slot {
	enum pp_pass pass;
	unsigned long chunk, mb;
};

/*
 * Megatron-LM's interleaved order numbers the chunk forwards of a stage
 * k = 0 .. Mv-1: groups of P microbatches go through chunk 0, then the
 * same P through chunk 1, and so on; backwards walk the chunks in
 * reverse.
 */
static struct slot interleaved_slot(const struct pp_config *c, unsigned long k,
				    enum pp_pass pass)
{
	unsigned long P = c->stages, v = c->virt;
	unsigned long in_group = k % (P * v);
	struct slot sl;

	sl.pass = pass;
	sl.chunk = in_group / P;
	if (pass == PP_BACKWARD)
		sl.chunk = v - 1 - sl.chunk;
	sl.mb = k / (P * v) * P + k % P;
	return sl;
}

static struct slot make_slot(enum pp_pass pass, unsigned long chunk, unsigned long mb)
{
	struct slot sl = { pass, chunk, mb };

	return sl;
}

/* Fill order[0 .. 2Mv-1] with stage s's operations in the schedule's order. */
static void stage_order(const struct pp_config *c, unsigned long s, struct slot *order)
{
	unsigned long P = c->stages, M = c->microbatches, v = c->virt;
	unsigned long total = M * v, warm, rest, k;
	size_t n = 0;

	switch (c->schedule) {
	case PP_GPIPE:
		/* As in GPipe's figure 2: backwards in reverse, as autograd runs them. */
		for (k = 0; k < M; k++)
			order[n++] = make_slot(PP_FORWARD, 0, k);
		for (k = M; k-- > 0;)
			order[n++] = make_slot(PP_BACKWARD, 0, k);
		return;
	case PP_1F1B:
		warm = P - s - 1 < M ? P - s - 1 : M;
		rest = M - warm;
		for (k = 0; k < warm; k++)
			order[n++] = make_slot(PP_FORWARD, 0, k);
		for (k = 0; k < rest; k++) {
			order[n++] = make_slot(PP_FORWARD, 0, warm + k);
			order[n++] = make_slot(PP_BACKWARD, 0, k);
		}
		for (k = rest; k < M; k++)
			order[n++] = make_slot(PP_BACKWARD, 0, k);
		return;
	default:
		if (M == P) {
			warm = total;
		} else {
			warm = 2 * (P - s - 1) + (v - 1) * P;
			if (warm > total)
				warm = total;
		}
		rest = total - warm;
		for (k = 0; k < warm; k++)
			order[n++] = interleaved_slot(c, k, PP_FORWARD);
		for (k = 0; k < rest; k++) {
			order[n++] = interleaved_slot(c, warm + k, PP_FORWARD);
			order[n++] = interleaved_slot(c, k, PP_BACKWARD);
		}
		for (k = rest; k < total; k++)
			order[n++] = interleaved_slot(c, k, PP_BACKWARD);
		return;
	}
}

/* The state of one simulation: its sizes, the orders, the times so far, the queue. */
struct sim {
	unsigned long P, M, Q;
	size_t per_stage, *next, qhead, qlen, *queue;
	struct slot *order;
	double *end_f, *end_b, *free_at;
	unsigned char *queued;
};

static void sim_init(struct sim *m, const struct pp_config *c)
{
	unsigned long s;
	size_t i;

	m->P = c->stages;
	m->M = c->microbatches;
	m->Q = m->P * c->virt;    /* virtual stages: chunk k of stage s is q = kP + s */
	m->per_stage = 2 * (size_t)m->M * c->virt;
	m->order = xmalloc(pp_sim_ops(c) * sizeof(*m->order));
	for (s = 0; s < m->P; s++)
		stage_order(c, s, m->order + s * m->per_stage);

	/* End time of each pass of each microbatch on each virtual stage; -1: not run. */
	m->end_f = xmalloc((size_t)m->Q * m->M * sizeof(*m->end_f));
	m->end_b = xmalloc((size_t)m->Q * m->M * sizeof(*m->end_b));
	for (i = 0; i < (size_t)m->Q * m->M; i++)
		m->end_f[i] = m->end_b[i] = -1;
	m->next = xmalloc(m->P * sizeof(*m->next));
	m->free_at = xmalloc(m->P * sizeof(*m->free_at));
	m->queue = xmalloc(m->P * sizeof(*m->queue));
	m->queued = xmalloc(m->P);
	for (s = 0; s < m->P; s++) {
		m->next[s] = 0;
		m->free_at[s] = 0;
		m->queue[s] = s;
		m->queued[s] = 1;
	}
	m->qhead = 0;
	m->qlen = m->P;
}

static void sim_release(struct sim *m)
{
	free(m->order);
	free(m->end_f);
	free(m->end_b);
	free(m->next);
	free(m->free_at);
	free(m->queue);
	free(m->queued);
}

/*
 * When slot SL of stage S (virtual stage Q) can start, in *START, and how
 * long it runs, in *DUR; 0 when an input is missing yet.
 */
static int sim_ready(const struct sim *m, const struct pp_config *c, unsigned long s,
		     const struct slot *sl, unsigned long q, double *startp, double *dur)
{
	double start = m->free_at[s];

	if (sl->pass == PP_FORWARD) {
		if (q > 0) {
			double e = m->end_f[(q - 1) * m->M + sl->mb];
			if (e < 0)
				return 0;
			if (e > start)
				start = e;
		}
		*dur = 1;
	} else {
		double own = m->end_f[q * m->M + sl->mb];
		if (own < 0)
			return 0;
		if (own > start)
			start = own;
		if (q + 1 < m->Q) {
			double e = m->end_b[(q + 1) * m->M + sl->mb];
			if (e < 0)
				return 0;
			if (e > start)
				start = e;
		}
		*dur = c->tb / c->tf;
	}
	*startp = start;
	return 1;
}

/* Stage S runs the operations of its order until one must wait for its input. */
static void sim_stage(struct sim *m, const struct pp_config *c, unsigned long s,
		      struct pp_timeline *t)
{
	unsigned long P = m->P, M = m->M;

	while (m->next[s] < m->per_stage) {
		const struct slot *sl = &m->order[s * m->per_stage + m->next[s]];
		unsigned long q = sl->chunk * P + s, wake;
		double start, dur;
		struct pp_op *op;

		if (!sim_ready(m, c, s, sl, q, &start, &dur))
			break;
		op = &t->ops[s * m->per_stage + m->next[s]];
		op->stage = s;
		op->microbatch = sl->mb;
		op->chunk = sl->chunk;
		op->pass = sl->pass;
		op->start = start;
		op->end = start + dur;
		m->free_at[s] = op->end;
		if (op->end > t->makespan)
			t->makespan = op->end;
		m->next[s]++;

		/* The stage that consumes this result may now go on. */
		if (sl->pass == PP_FORWARD) {
			m->end_f[q * M + sl->mb] = op->end;
			wake = q + 1 < m->Q ? (q + 1) % P : s;
		} else {
			m->end_b[q * M + sl->mb] = op->end;
			wake = q > 0 ? (q - 1) % P : s;
		}
		if (wake != s && !m->queued[wake]) {
			m->queue[(m->qhead + m->qlen) % P] = wake;
			m->qlen++;
			m->queued[wake] = 1;
		}
	}
}

/* The timeline's stages, its nops operations unplaced, each stage's first. */
static void timeline_init(struct pp_timeline *t, const struct pp_config *c,
			  const struct sim *m, size_t nops)
{
	unsigned long P = c->stages, s;

	t->stages = P;
	t->virt = c->virt;
	t->nops = nops;
	t->ops = xmalloc(nops * sizeof(*t->ops));
	t->first = xmalloc((P + 1) * sizeof(*t->first));
	for (s = 0; s <= P; s++)
		t->first[s] = s * m->per_stage;
}

/* A stage that did not run all its operations: the schedule deadlocks, -1. */
static int sim_deadlock(const struct sim *m, const struct pp_config *c, struct errbuf *eb)
{
	unsigned long s;

	for (s = 0; s < c->stages; s++)
		if (m->next[s] < m->per_stage)
			return errbuf_set(eb, "the %s schedule deadlocks on stage %lu after "
					  "%zu of %zu operations", pp_schedule_name(c->schedule),
					  s, m->next[s], m->per_stage);
	return 0;
}

int pp_simulate(const struct pp_config *c, struct pp_timeline *t, struct errbuf *eb)
{
	unsigned long P, v, s;
	size_t nops, i;
	struct sim m;
	int ret = 0;

	memset(t, 0, sizeof(*t));
	if (pp_check(c, eb) < 0)
		return -1;
	nops = pp_sim_ops(c);
	if (nops > PP_SIM_OPS_MAX)
		return errbuf_set(eb, "a schedule of %lu stages, %lu microbatches and %lu "
				  "chunks has %zu operations, more than the %lu that can be "
				  "simulated", c->stages, c->microbatches, c->virt,
				  nops, PP_SIM_OPS_MAX);
	P = c->stages;
	v = c->virt;
	sim_init(&m, c);

	timeline_init(t, c, &m, nops);

	/*
	 * Times run in units of one chunk forward (tf/v) and are scaled at
	 * the end: with the usual tb = 2 tf every time is then a whole number
	 * until the one multiplication, so no rounding accumulates.
	 *
	 * A stage runs the next operation of its order as soon as that
	 * operation's inputs exist, starting when both the stage and the
	 * inputs are ready; when it must wait it leaves the queue and is put
	 * back by the stage that produces the missing input.  Each operation
	 * is thus placed once, after everything it depends on: the times are
	 * the earliest the order and the dependencies allow.
	 */
	while (m.qlen > 0) {
		s = m.queue[m.qhead];
		m.qhead = (m.qhead + 1) % P;
		m.qlen--;
		m.queued[s] = 0;
		sim_stage(&m, c, s, t);
	}

	for (i = 0; i < nops; i++) {
		t->ops[i].start = t->ops[i].start * c->tf / (double)v;
		t->ops[i].end = t->ops[i].end * c->tf / (double)v;
	}
	t->makespan = t->makespan * c->tf / (double)v;
	ret = sim_deadlock(&m, c, eb);
	sim_release(&m);
	if (ret < 0)
		pp_timeline_release(t);
	return ret;
}

void pp_timeline_release(struct pp_timeline *t)
{
	free(t->ops);
	free(t->first);
	memset(t, 0, sizeof(*t));
}

void pp_stage_stats(const struct pp_timeline *t, unsigned long s, struct pp_stage_stats *st)
{
	size_t i, a = t->first[s], b = t->first[s + 1];
	long held = 0, peak = 0;

	memset(st, 0, sizeof(*st));
	if (a == b)
		return;
	st->first_start = t->ops[a].start;
	st->last_end = t->ops[b - 1].end;
	for (i = a; i < b; i++) {
		const struct pp_op *op = &t->ops[i];

		st->busy += op->end - op->start;
		/* Activations live from the start of a forward to the end of its backward. */
		if (op->pass == PP_FORWARD && ++held > peak)
			peak = held;
		else if (op->pass == PP_BACKWARD)
			held--;
	}
	st->idle = t->makespan - st->busy;
	st->window_idle = st->last_end - st->first_start - st->busy;
	st->peak_inflight = (unsigned long)peak;
}
