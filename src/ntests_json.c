/*
 * Reading the JSON file nccl-tests writes with -J (nccl-tests 2.17 and
 * later, "version": 3).  The document is parsed into a small tree (every
 * value remembers its line, for messages), then the parts commtime needs
 * are looked up: the program name (args[0]), the rank count
 * (config.devices × nthreads × ngpus) and results[] with their
 * out_of_place and in_place times.  See ntests_json.h and
 * models/nccl-tests.md.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "ntests_json.h"
#include "units.h"

/* Deep enough for nccl-tests' documents (4 levels), shallow enough for a fuzzer. */
#define DEPTH_MAX 32
#define STRING_MAX 4096

enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jval {
	enum jtype type;
	int line;
	double num;
	char *str;             /* J_STR */
	char **keys;           /* J_OBJ: key of each item */
	struct jval **items;   /* J_ARR, J_OBJ */
	size_t n, alloc;
};

struct jparser {
	const char *p, *end;
	const char *name;
	int line;
	struct errbuf *eb;
};

static void S_free(struct jval *v)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < v->n; i++) {
		S_free(v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->str);
	free(v);
}

static void S_ws(struct jparser *jp)
{
	while (jp->p < jp->end && (*jp->p == ' ' || *jp->p == '\t' || *jp->p == '\r' ||
				   *jp->p == '\n')) {
		if (*jp->p == '\n')
			jp->line++;
		jp->p++;
	}
}

static int S_err(struct jparser *jp, const char *what)
{
	return errbuf_set(jp->eb, "%s:%d: malformed JSON: %s", jp->name, jp->line, what);
}

/* A string; escapes other than \uXXXX are decoded, \uXXXX becomes '?'. */
static int S_string(struct jparser *jp, char **out)
{
	char *s = xmalloc(STRING_MAX + 1);
	size_t n = 0;

	jp->p++;    /* the opening quote */
	for (;;) {
		char c;

		if (jp->p >= jp->end) {
			free(s);
			return S_err(jp, "unterminated string");
		}
		c = *jp->p++;
		if (c == '"')
			break;
		if ((unsigned char)c < 0x20) {
			free(s);
			return S_err(jp, "control character in a string");
		}
		if (c == '\\') {
			if (jp->p >= jp->end) {
				free(s);
				return S_err(jp, "unterminated string");
			}
			c = *jp->p++;
			switch (c) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case '"': case '\\': case '/': break;
			case 'u':
				if (jp->end - jp->p < 4) {
					free(s);
					return S_err(jp, "short \\u escape");
				}
				jp->p += 4;
				c = '?';
				break;
			default:
				free(s);
				return S_err(jp, "unknown escape in a string");
			}
		}
		if (n == STRING_MAX) {
			free(s);
			return S_err(jp, "string longer than 4096 bytes");
		}
		s[n++] = c;
	}
	s[n] = '\0';
	*out = s;
	return 0;
}

static int S_value(struct jparser *jp, int depth, struct jval **out);

static void S_add(struct jval *v, char *key, struct jval *item)
{
	if (v->n == v->alloc) {
		v->alloc = v->alloc ? 2 * v->alloc : 8;
		v->items = xrealloc(v->items, v->alloc * sizeof(*v->items));
		if (v->type == J_OBJ)
			v->keys = xrealloc(v->keys, v->alloc * sizeof(*v->keys));
	}
	v->items[v->n] = item;
	if (v->type == J_OBJ)
		v->keys[v->n] = key;
	v->n++;
}

/* An array or object, the opening bracket at jp->p. */
static int S_compound(struct jparser *jp, int depth, struct jval *v)
{
	char close = v->type == J_OBJ ? '}' : ']';

	jp->p++;
	S_ws(jp);
	if (jp->p < jp->end && *jp->p == close) {
		jp->p++;
		return 0;
	}
	for (;;) {
		struct jval *item;
		char *key = NULL;

		S_ws(jp);
		if (v->type == J_OBJ) {
			if (jp->p >= jp->end || *jp->p != '"')
				return S_err(jp, "expected a key");
			if (S_string(jp, &key) < 0)
				return -1;
			S_ws(jp);
			if (jp->p >= jp->end || *jp->p != ':') {
				free(key);
				return S_err(jp, "expected ':' after a key");
			}
			jp->p++;
		}
		if (S_value(jp, depth + 1, &item) < 0) {
			free(key);
			return -1;
		}
		S_add(v, key, item);
		S_ws(jp);
		if (jp->p >= jp->end)
			return S_err(jp, "unexpected end of file");
		if (*jp->p == ',') {
			jp->p++;
			continue;
		}
		if (*jp->p == close) {
			jp->p++;
			return 0;
		}
		return S_err(jp, v->type == J_OBJ ? "expected ',' or '}'" : "expected ',' or ']'");
	}
}

static int S_value(struct jparser *jp, int depth, struct jval **out)
{
	struct jval *v;

	if (depth > DEPTH_MAX)
		return S_err(jp, "nested too deeply");
	S_ws(jp);
	if (jp->p >= jp->end)
		return S_err(jp, "unexpected end of file");
	v = xmalloc(sizeof(*v));
	memset(v, 0, sizeof(*v));
	v->line = jp->line;
	*out = v;
	switch (*jp->p) {
	case '{':
	case '[':
		v->type = *jp->p == '{' ? J_OBJ : J_ARR;
		if (S_compound(jp, depth, v) < 0)
			goto fail;
		return 0;
	case '"':
		v->type = J_STR;
		if (S_string(jp, &v->str) < 0)
			goto fail;
		return 0;
	}
	if (jp->end - jp->p >= 4 && !memcmp(jp->p, "null", 4)) {
		jp->p += 4;
		return 0;
	}
	if (jp->end - jp->p >= 4 && !memcmp(jp->p, "true", 4)) {
		v->type = J_BOOL;
		v->num = 1;
		jp->p += 4;
		return 0;
	}
	if (jp->end - jp->p >= 5 && !memcmp(jp->p, "false", 5)) {
		v->type = J_BOOL;
		jp->p += 5;
		return 0;
	}
	if (*jp->p == '-' || isdigit((unsigned char)*jp->p)) {
		char buf[64];
		size_t n = 0;

		while (jp->p + n < jp->end && n < sizeof(buf) - 1 &&
		       strchr("+-0123456789.eE", jp->p[n]))
			n++;
		memcpy(buf, jp->p, n);
		buf[n] = '\0';
		if (units_decimal(buf, 0, &v->num) < 0) {
			errbuf_set(jp->eb, "%s:%d: malformed JSON: '%s' is not a number",
				   jp->name, jp->line, buf);
			goto fail;
		}
		v->type = J_NUM;
		jp->p += n;
		return 0;
	}
	S_err(jp, "expected a value");
fail:
	S_free(v);
	*out = NULL;
	return -1;
}

static const struct jval *S_get(const struct jval *o, const char *key)
{
	size_t i;

	if (!o || o->type != J_OBJ)
		return NULL;
	for (i = 0; i < o->n; i++)
		if (!strcmp(o->keys[i], key))
			return o->items[i];
	return NULL;
}

static int S_num(const struct jval *v, double *x)
{
	if (!v || v->type != J_NUM)
		return -1;
	*x = v->num;
	return 0;
}

/* The collective of the program in args[0] ("./build/all_reduce_perf"). */
static int S_op(const struct jval *root)
{
	const struct jval *args = S_get(root, "args");
	struct errbuf ignore;
	enum coll_op op;
	const char *b;

	if (!args || args->type != J_ARR || args->n == 0 || args->items[0]->type != J_STR)
		return -1;
	b = strrchr(args->items[0]->str, '/');
	b = b ? b + 1 : args->items[0]->str;
	return coll_op_lookup(b, &op, &ignore) == 0 ? (int)op : -1;
}

/* One rank per device line and GPU: devices × nthreads × ngpus, or 0. */
static unsigned long S_ranks(const struct jval *root)
{
	const struct jval *cfg = S_get(root, "config"), *dev = S_get(cfg, "devices");
	double nt = 1, ng = 1;

	if (!dev || dev->type != J_ARR || dev->n == 0)
		return 0;
	S_num(S_get(cfg, "nthreads"), &nt);
	S_num(S_get(cfg, "ngpus"), &ng);
	if (!(nt >= 1 && ng >= 1 && nt * ng * (double)dev->n <= (double)RANKS_MAX) ||
	    nt != floor(nt) || ng != floor(ng))
		return 0;
	return (unsigned long)(nt * ng) * (unsigned long)dev->n;
}

/* GPUs one host thread drove (config.ngpus, nccl-tests -g), or 0. */
static unsigned long S_gpus_per_thread(const struct jval *root)
{
	double ng = 0;

	S_num(S_get(S_get(root, "config"), "ngpus"), &ng);
	return ng >= 1 && ng <= (double)RANKS_MAX && ng == floor(ng) ? (unsigned long)ng : 0;
}

/* time (µs) and bus_bw (GB/s) of an out_of_place or in_place object. */
static int S_side(struct jparser *jp, const struct jval *side, const char *what,
		  double *t, double *busbw, double *algbw)
{
	const struct jval *tv = S_get(side, "time");
	double x;

	if (!tv)
		tv = S_get(side, "cpu_time");
	if (S_num(tv, &x) < 0)
		return errbuf_set(jp->eb, "%s:%d: %s has no time", jp->name, side->line, what);
	if (!(x > 0))
		return errbuf_set(jp->eb, "%s:%d: %s time %g is not positive", jp->name,
				  tv->line, what, x);
	*t = x * 1e-6;
	if (S_num(S_get(side, "bus_bw"), &x) == 0 && x >= 0)
		*busbw = x * 1e9;
	if (algbw && S_num(S_get(side, "alg_bw"), &x) == 0 && x >= 0)
		*algbw = x * 1e9;
	return 0;
}

static int S_results(struct jparser *jp, const struct jval *root, struct meas *m)
{
	const struct jval *res = S_get(root, "results");
	int op = S_op(root);
	unsigned long ranks = S_ranks(root);
	size_t i;

	m->gpus_per_thread = S_gpus_per_thread(root);
	{	/* "nccl_version": 22902, NCCL_VERSION_CODE */
		double code = 0;
		S_num(S_get(root, "nccl_version"), &code);
		if (code >= 20900 && code < 100000 && code == floor(code))
			snprintf(m->nccl_version, sizeof(m->nccl_version), "%d.%d.%d",
				 (int)code / 10000, (int)code / 100 % 100, (int)code % 100);
	}

	if (!res || res->type != J_ARR)
		return errbuf_set(jp->eb, "%s:%d: no \"results\" list; expected the JSON "
				  "of nccl-tests -J", jp->name, root->line);
	for (i = 0; i < res->n; i++) {
		const struct jval *r = res->items[i], *oop, *ip;
		struct meas_row row;
		double sz;

		if (r->type != J_OBJ)
			return errbuf_set(jp->eb, "%s:%d: a result is not an object",
					  jp->name, r->line);
		memset(&row, 0, sizeof(row));
		row.line = r->line;
		row.op = op;
		row.ranks = ranks;
		row.algo = -1;
		row.time = row.algbw = row.busbw = row.time_ip = row.busbw_ip = NAN;
		if (S_num(S_get(r, "size"), &sz) < 0 || sz < 0 || sz != floor(sz) || sz > 9e18)
			return errbuf_set(jp->eb, "%s:%d: result without a whole \"size\" in bytes",
					  jp->name, r->line);
		row.size = sz;
		oop = S_get(r, "out_of_place");
		ip = S_get(r, "in_place");
		if (oop && oop->type == J_OBJ &&
		    S_side(jp, oop, "out_of_place", &row.time, &row.busbw, &row.algbw) < 0)
			return -1;
		if (ip && ip->type == J_OBJ &&
		    S_side(jp, ip, "in_place", &row.time_ip, &row.busbw_ip, NULL) < 0)
			return -1;
		/* Trace replay writes in-place results only ("out_of_place": null). */
		if (isnan(row.time))
			row.time = row.time_ip;
		if (isnan(row.time))
			return errbuf_set(jp->eb, "%s:%d: result of size %.17g has no time",
					  jp->name, r->line, sz);
		if (m->n > 0 && row.size <= m->rows[m->n - 1].size)
			return errbuf_set(jp->eb, "%s:%d: size %.17g %s line %d; sizes must "
					  "increase", jp->name, r->line, sz,
					  row.size == m->rows[m->n - 1].size ?
					  "appears twice, also on" : "is smaller than the size on",
					  m->rows[m->n - 1].line);
		meas_push(m, &row);
	}
	if (m->n == 0)
		return errbuf_set(jp->eb, "%s: no results in the JSON file", jp->name);
	m->op = op;
	m->ranks = ranks;
	return 0;
}

int nccljson_parse(const char *buf, size_t len, const char *name,
		   struct meas *m, struct errbuf *eb)
{
	struct jparser jp = { buf, buf + len, name, 1, eb };
	struct jval *root = NULL;
	int rc;

	if (memchr(buf, '\0', len))
		return errbuf_set(eb, "%s: binary data (a NUL byte); expected JSON", name);
	m->from_log = 1;
	if (S_value(&jp, 0, &root) < 0)
		return -1;
	S_ws(&jp);
	if (jp.p < jp.end)
		rc = S_err(&jp, "text after the end of the document");
	else if (root->type != J_OBJ)
		rc = errbuf_set(eb, "%s:%d: the document is not an object; expected the "
				"JSON of nccl-tests -J", name, root->line);
	else
		rc = S_results(&jp, root, m);
	S_free(root);
	return rc;
}
