/*
 * The example tuner plugin's configuration (tuner.h).
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tuner.h"

const char *tuner_coll_name(enum coll_op op)
{
	switch (op) {
	case OP_ALLREDUCE: return "allreduce";
	case OP_ALLGATHER: return "allgather";
	case OP_REDUCESCATTER: return "reducescatter";
	case OP_BROADCAST: return "broadcast";
	case OP_REDUCE: return "reduce";
	default: return NULL;
	}
}

static const char *const S_algo[NCCL_NALGO] = {
	[NCCL_TREE] = "tree", [NCCL_RING] = "ring", [NCCL_COLLNET_DIRECT] = "collnet_direct",
	[NCCL_COLLNET_CHAIN] = "collnet_chain", [NCCL_NVLS] = "nvls", [NCCL_NVLS_TREE] = "nvls_tree",
	[NCCL_PAT] = "pat",
};
static const char *const S_proto[NCCL_NPROTO] = {
	[NCCL_LL] = "ll", [NCCL_LL128] = "ll128", [NCCL_SIMPLE] = "simple",
};

const char *tuner_algo_name(enum nccl_algo a)
{
	return a >= 0 && a < NCCL_NALGO ? S_algo[a] : "?";
}

const char *tuner_proto_name(enum nccl_proto p)
{
	return p >= 0 && p < NCCL_NPROTO ? S_proto[p] : "?";
}

static int S_pcmp(const void *a, const void *b)
{
	const struct tuner_point *x = a, *y = b;

	if (x->op != y->op)
		return x->op < y->op ? -1 : 1;
	if (x->ranks != y->ranks)
		return x->ranks < y->ranks ? -1 : 1;
	if (x->nodes != y->nodes)
		return x->nodes < y->nodes ? -1 : 1;
	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	return x->time < y->time ? -1 : x->time > y->time;
}

static int S_same_group(const struct tuner_point *a, const struct tuner_point *b)
{
	return a->op == b->op && a->ranks == b->ranks && a->nodes == b->nodes;
}

int tuner_choose(const struct tuner_point *p, size_t n, struct tuner_range **out,
		 struct errbuf *eb)
{
	struct tuner_point *s;
	struct tuner_range *r;
	size_t i, j, nr = 0;

	*out = NULL;
	for (i = 0; i < n; i++)
		if (!tuner_coll_name(p[i].op))
			return errbuf_set(eb, "%s: the example tuner plugin tunes allreduce, allgather, "
					  "reducescatter, broadcast and reduce only",
					  coll_op_name(p[i].op));
	s = xmalloc((n + 1) * sizeof(*s));
	memcpy(s, p, n * sizeof(*s));
	qsort(s, n, sizeof(*s), S_pcmp);
	r = xmalloc((n + 1) * sizeof(*r));
	for (i = 0; i < n; i = j) {
		/* s[i] is the fastest at its size (sorted by time); s[i+1..j) the others. */
		const struct tuner_point *best = &s[i];
		double margin = NAN;
		int new_rule;

		for (j = i + 1; j < n && S_same_group(&s[j], best) && s[j].size == best->size; j++)
			if (isnan(margin) && !(s[j].algo == best->algo && s[j].proto == best->proto))
				margin = s[j].time / best->time;
		new_rule = nr == 0 || r[nr - 1].op != best->op || r[nr - 1].ranks != best->ranks ||
			   r[nr - 1].nodes != best->nodes || r[nr - 1].algo != best->algo ||
			   r[nr - 1].proto != best->proto;
		if (new_rule) {
			if (nr > 0 && r[nr - 1].op == best->op && r[nr - 1].ranks == best->ranks &&
			    r[nr - 1].nodes == best->nodes) {
				/* Halfway, in log size, to this size. */
				double mid = floor(sqrt(r[nr - 1].last * best->size));
				if (mid < r[nr - 1].last)
					mid = r[nr - 1].last;
				if (mid >= best->size)
					mid = best->size - 1;
				r[nr - 1].max_B = mid;
			}
			memset(&r[nr], 0, sizeof(r[nr]));
			r[nr].op = best->op;
			r[nr].ranks = best->ranks;
			r[nr].nodes = best->nodes;
			r[nr].algo = best->algo;
			r[nr].proto = best->proto;
			r[nr].src = best->src;
			r[nr].first = best->size;
			r[nr].margin = NAN;
			r[nr].min_B = nr > 0 && r[nr - 1].op == best->op && r[nr - 1].ranks == best->ranks &&
				      r[nr - 1].nodes == best->nodes ? r[nr - 1].max_B + 1 : 0;
			nr++;
		}
		r[nr - 1].last = best->size;
		r[nr - 1].max_B = best->size;
		r[nr - 1].sizes++;
		if (!isnan(margin) && (isnan(r[nr - 1].margin) || margin < r[nr - 1].margin))
			r[nr - 1].margin = margin;
	}
	free(s);
	*out = r;
	return (int)nr;
}

int tuner_format(const struct tuner_range *r, char *buf, size_t cap)
{
	return snprintf(buf, cap, "%s,%.0f,%.0f,%s,%s,-1,%ld,%lu,-1,-1", tuner_coll_name(r->op),
			r->min_B, r->max_B, tuner_algo_name(r->algo), tuner_proto_name(r->proto),
			r->nodes, r->ranks);
}

/* A field as the plugin trims it: blanks and tabs off both ends. */
static void S_trim(char *s)
{
	char *p = s, *e;

	while (*p == ' ' || *p == '\t')
		p++;
	memmove(s, p, strlen(p) + 1);
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = '\0';
}

static int S_whole(const char *s, int sign)
{
	if (sign && *s == '-')
		s++;
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

int tuner_check_line(const char *line, struct errbuf *eb)
{
	char copy[512], *tok[12], *p;
	int n = 0, i;
	size_t len = strlen(line);
	static const char *const colls[] = { "broadcast", "reduce", "allgather", "reducescatter",
					     "allreduce" };
	int ok;

	if (len > 0 && line[len - 1] == '\n')
		len--;
	if (len + 2 > 256)
		return errbuf_set(eb, "line of %zu bytes: the plugin reads 255 at most", len + 1);
	if (line[0] == '#' || len == 0)
		return 0;
	memcpy(copy, line, len);
	copy[len] = '\0';
	/* strtok: empty fields vanish, as they do in the plugin. */
	for (p = strtok(copy, ","); p && n < 12; p = strtok(NULL, ","))
		tok[n++] = p;
	if (n < 8 || n > 10)
		return errbuf_set(eb, "%d fields: the plugin loads 8 to 10", n);
	for (i = 0; i < n; i++)
		S_trim(tok[i]);
	for (ok = 0, i = 0; i < 5; i++)
		ok |= !strcmp(tok[0], colls[i]);
	if (!ok)
		return errbuf_set(eb, "collective '%s' is none of broadcast, reduce, allgather, "
				  "reducescatter, allreduce", tok[0]);
	if (!S_whole(tok[1], 0) || !S_whole(tok[2], 0) ||
	    strtod(tok[1], NULL) > strtod(tok[2], NULL))
		return errbuf_set(eb, "bounds '%s', '%s' are not whole numbers with min <= max",
				  tok[1], tok[2]);
	for (ok = 0, i = 0; i < NCCL_NALGO; i++)
		ok |= !strcmp(tok[3], S_algo[i]);
	if (!ok)
		return errbuf_set(eb, "algorithm '%s' is not one the plugin knows", tok[3]);
	for (ok = 0, i = 0; i < NCCL_NPROTO; i++)
		ok |= !strcmp(tok[4], S_proto[i]);
	if (!ok)
		return errbuf_set(eb, "protocol '%s' is not one the plugin knows", tok[4]);
	for (i = 5; i < n; i++)
		if (!S_whole(tok[i], 1))
			return errbuf_set(eb, "field %d '%s' is not a whole number", i + 1, tok[i]);
	return 1;
}
