/*
 * What NCCL's own lines say about a run (nccl_info.h): its choice per
 * call, its tuning table, the NCCL_ALGO and NCCL_PROTO it read.  Called
 * by the log parser for every line; a line it cannot read is skipped.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "nccl_info.h"
#include "units.h"

/* NCCL's function names (ncclFuncStr), the collective of each in both enums. */
static const struct {
	const char *name;
	enum nccl_func func;
	enum coll_op op;
} funcs[] = {
	{ "Broadcast", NCCL_BROADCAST, OP_BROADCAST }, { "Reduce", NCCL_REDUCE, OP_REDUCE },
	{ "AllGather", NCCL_ALLGATHER, OP_ALLGATHER },
	{ "ReduceScatter", NCCL_REDUCESCATTER, OP_REDUCESCATTER },
	{ "AllReduce", NCCL_ALLREDUCE, OP_ALLREDUCE },
};
enum { NFUNCS = sizeof(funcs) / sizeof(funcs[0]) };

/* The index in funcs[] of the len bytes at s, -1 if none. */
static int S_func(const char *s, size_t len)
{
	for (int i = 0; i < NFUNCS; i++)
		if (strlen(funcs[i].name) == len && strncmp(s, funcs[i].name, len) == 0)
			return i;
	return -1;
}

/*
 * A word of a TUNING line: NCCL's index (0 .. n-1) or a name lookup()
 * knows; -1 otherwise.  *p moves past the word.
 */
static int S_tuned_word(const char **p, int n, int (*lookup)(const char *, size_t))
{
	size_t len = strcspn(*p, " \t");
	const char *w = *p;

	*p += len;
	if (len == 1 && *w >= '0' && *w < '0' + n)
		return *w - '0';
	return len ? lookup(w, len) : -1;
}

/*
 * NCCL's choice of algorithm and protocol for one call, from a TUNING
 * line (meas.h, struct meas_tuned).  A line it cannot read is skipped:
 * these lines only inform compare, they never make a log invalid.
 */
static void S_tuning(struct meas *m, const char *line, int lineno)
{
	static const char arrow[] = " Bytes -> Algo ";
	const char *p = strstr(line, arrow), *q, *e;
	struct meas_tuned t = { .op = -1, .line = lineno };
	int k;

	if (!p)
		return;
	for (q = p; q > line && isdigit((unsigned char)q[-1]); q--)
		;
	if (q == p || p - q > 18)     /* 18 digits convert exactly, as a row's size */
		return;
	t.size = strtod(q, NULL);
	/* "AllReduce: " before the size (2.23 on) */
	for (e = q; e > line && e[-1] == ' '; e--)
		;
	if (e > line && e[-1] == ':') {
		const char *w = --e;

		while (w > line && isalpha((unsigned char)w[-1]))
			w--;
		if ((k = S_func(w, (size_t)(e - w))) < 0)
			return;
		t.op = (int)funcs[k].op;
	}
	p += sizeof(arrow) - 1;
	if ((k = S_tuned_word(&p, NCCL_NALGO, nccl_algo_lookup)) < 0 ||
	    strncmp(p, " proto ", 7) != 0)
		return;
	t.algo = (enum nccl_algo)k;
	p += 7;
	if ((k = S_tuned_word(&p, NCCL_NPROTO, nccl_proto_lookup)) < 0)
		return;
	t.proto = (enum nccl_proto)k;
	/* the named form (2.24 on) counts one rank's elements (task->count) */
	t.per_rank = strncmp(p, " channel", 8) == 0 &&
		     (t.op == OP_ALLGATHER || t.op == OP_REDUCESCATTER);
	meas_tuned_add(m, &t);
}

/*
 * The '|'-separated cells after the first '|' of s, each trimmed, into
 * cell[] (at most max; the text is cut in place).  Returns their number,
 * the empty cell after the last '|' not counted.
 */
static int S_cells(char *s, char **cell, int max)
{
	char *p = strchr(s, '|');
	int n = 0;

	while (p && n < max) {
		char *b = p + 1, *e;

		p = strchr(b, '|');
		if (!p)
			break;
		*p = '\0';
		while (isspace((unsigned char)*b))
			b++;
		for (e = b + strlen(b); e > b && isspace((unsigned char)e[-1]); e--)
			;
		*e = '\0';
		cell[n++] = b;
	}
	return n;
}

/* 1 when msg is a table line labelled label: "  Algorithm   | ...". */
static int S_label_is(const char *msg, const char *label)
{
	size_t n = strlen(label);

	while (*msg == ' ')
		msg++;
	if (strncmp(msg, label, n) != 0)
		return 0;
	msg += n;
	while (*msg == ' ')
		msg++;
	return *msg == '|';
}

/*
 * NCCL's tuning table (meas.h, struct meas_ncclt) from the message of
 * one NCCL line: an "Algorithm" line opens a block of up to three
 * algorithms (a table that starts again from Tree once one was read is a
 * later communicator's, and ends the reading), and each function's line
 * gives "latency/bandwidth" per algorithm and protocol of the block.  A
 * line it cannot read ends the block, never the log.
 */
static void S_nccl_table(struct nccllines *st, struct meas *m, const char *head, int lineno)
{
	struct meas_ncclt *t = &m->ncclt;
	const char *msg = strstr(head, "NCCL INFO ");
	char buf[1024], *cell[32];
	int n, f, k;

	if (!msg || st->tab == TAB_DONE || !strchr(msg, '|') || strlen(msg) >= sizeof(buf))
		return;
	strcpy(buf, msg + 10);
	if (S_label_is(buf, "Algorithm")) {
		n = S_cells(buf, cell, 3);
		st->tab = TAB_NONE;
		for (k = 0; k < n; k++)
			if ((st->tab_algo[k] = nccl_algo_lookup(cell[k], strlen(cell[k]))) < 0)
				return;
		if (n == 0)
			return;
		if (t->have && st->tab_algo[0] == NCCL_TREE) {
			st->tab = TAB_DONE;
			return;
		}
		st->tab_n = n;
		st->tab = TAB_BLOCK;
		return;
	}
	if (st->tab != TAB_BLOCK || S_label_is(buf, "Protocol") || S_label_is(buf, "Max NThreads"))
		return;
	for (k = 0; k < NFUNCS && !S_label_is(buf, funcs[k].name); k++)
		;
	if (k == NFUNCS)
		return;
	f = (int)funcs[k].func;
	n = S_cells(buf, cell, 3 * st->tab_n);
	for (k = 0; k < n; k++) {
		int a = st->tab_algo[k / 3], pr = k % 3;
		char *slash = strchr(cell[k], '/');
		double lat, bw;

		if (!slash)
			break;
		*slash = '\0';
		if (units_decimal(cell[k], 0, &lat) < 0 || units_decimal(slash + 1, 0, &bw) < 0 ||
		    lat < 0 || bw < 0)
			break;
		t->lat[f][a][pr] = lat;
		t->bw[f][a][pr] = bw;
		t->seen[f][a][pr] = 1;
		if (!t->have) {
			t->have = 1;
			t->line = lineno;
		}
	}
}

/*
 * The value after key in line, up to a blank or quote, into out (size
 * NCCL_LIST_MAX + 1); nothing when it is empty or longer.
 */
static void S_env_value(const char *line, const char *key, char *out)
{
	const char *p = strstr(line, key);
	size_t n;

	if (!p)
		return;
	p += strlen(key);
	n = strcspn(p, " \t\"");
	if (n > 0 && n <= NCCL_LIST_MAX) {
		memcpy(out, p, n);
		out[n] = '\0';
	}
}

/*
 * What the run restricted NCCL to, from NCCL's own line as it reads the
 * variable (tuning.cc: "NCCL_PROTO set by environment to simple", the
 * same for NCCL_ALGO; NCCL_DEBUG=INFO shows NCCL_ENV by default), or AWS's
 * EFA plugin setting it ("Setting NCCL_PROTO to \"simple\"",
 * aws-ofi-nccl platform-aws.c) when NCCL's line is not there.
 */
static void S_env(struct meas *m, const char *head)
{
	char plugin[NCCL_LIST_MAX + 1] = "";

	S_env_value(head, "NCCL_PROTO set by environment to ", m->nccl_proto);
	S_env_value(head, "NCCL_ALGO set by environment to ", m->nccl_algo);
	S_env_value(head, "Setting NCCL_PROTO to \"", plugin);
	if (plugin[0] && !m->nccl_proto[0])
		memcpy(m->nccl_proto, plugin, sizeof(plugin));
}

void nccllines_read(struct nccllines *st, struct meas *m, const char *line, int lineno)
{
	S_tuning(m, line, lineno);
	S_nccl_table(st, m, line, lineno);
	S_env(m, line);
}
