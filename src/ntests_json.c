/*
 * Reading the JSON file nccl-tests writes with -J (nccl-tests 2.17 and
 * later, "version": 3).  The document is parsed by the streaming reader
 * (json.h, libyajl) into a small tree (every value remembers its line,
 * for messages; a key twice in one object is refused), then the parts commtime needs
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

#include "json.h"
#include "model.h"
#include "bound.h"
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
	const char *name;
	struct errbuf *eb;
	struct json_stream *js;
	struct jval *root;
	struct jval *stack[DEPTH_MAX + 1];   /* open arrays and objects */
	int depth;
	char *key;             /* the key of the next value in an object */
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

/*
 * A new value of type t, placed in the open array or object (with the
 * pending key) or as the document; NULL when the parse must stop.
 */
static struct jval *S_new(struct jparser *jp, enum jtype t)
{
	struct jval *v = xmalloc(sizeof(*v));

	memset(v, 0, sizeof(*v));
	v->type = t;
	v->line = (int)json_stream_line(jp->js);
	if (jp->depth == 0) {
		jp->root = v;
	} else {
		S_add(jp->stack[jp->depth - 1], jp->key, v);
		jp->key = NULL;
	}
	return v;
}

static int S_null(void *ctx)
{
	return S_new(ctx, J_NULL) != NULL;
}

static int S_bool(void *ctx, int b)
{
	struct jval *v = S_new(ctx, J_BOOL);
	v->num = b;
	return 1;
}

static int S_number(void *ctx, const char *s, size_t len)
{
	struct jparser *jp = ctx;
	char buf[64];
	double x;

	if (len >= sizeof(buf))
		return json_stream_fail(jp->js, "malformed JSON: a number of %zu digits", len);
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (units_decimal(buf, 0, &x) < 0)
		return json_stream_fail(jp->js, "malformed JSON: '%s' is not a number", buf);
	S_new(jp, J_NUM)->num = x;
	return 1;
}

static int S_string(void *ctx, const char *s, size_t len)
{
	struct jparser *jp = ctx;
	struct jval *v;

	if (len > STRING_MAX)
		return json_stream_fail(jp->js, "malformed JSON: string longer than 4096 bytes");
	v = S_new(jp, J_STR);
	v->str = xmalloc(len + 1);
	memcpy(v->str, s, len);
	v->str[len] = '\0';
	return 1;
}

static int S_open(struct jparser *jp, enum jtype t)
{
	struct jval *v;

	if (jp->depth >= DEPTH_MAX)
		return json_stream_fail(jp->js, "malformed JSON: nested too deeply");
	v = S_new(jp, t);
	jp->stack[jp->depth++] = v;
	return 1;
}

static int S_start_map(void *ctx)
{
	return S_open(ctx, J_OBJ);
}

static int S_start_array(void *ctx)
{
	return S_open(ctx, J_ARR);
}

static int S_close(void *ctx)
{
	struct jparser *jp = ctx;

	jp->depth--;
	return 1;
}

/* A key: refused when the object has it already (which one would count?). */
static int S_map_key(void *ctx, const char *s, size_t len)
{
	struct jparser *jp = ctx;
	const struct jval *o = jp->stack[jp->depth - 1];
	size_t i;

	if (len > STRING_MAX)
		return json_stream_fail(jp->js, "malformed JSON: key longer than 4096 bytes");
	free(jp->key);
	jp->key = xmalloc(len + 1);
	memcpy(jp->key, s, len);
	jp->key[len] = '\0';
	for (i = 0; i < o->n; i++)
		if (!strcmp(o->keys[i], jp->key))
			return json_stream_fail(jp->js, "duplicate key \"%.80s\" (also on line %d): "
						"which one holds?", jp->key, o->items[i]->line);
	return 1;
}

static const struct json_cb S_cb = {
	S_null, S_bool, S_number, S_string, S_start_map, S_map_key, S_close,
	S_start_array, S_close
};

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
	if (!(x > 0) || bound_check(BOUND_TIME, x * 1e-6) < 0)
		return errbuf_set(jp->eb, "%s:%d: %s time %g µs is not positive and %s", jp->name,
				  tv->line, what, x, bound_what(BOUND_TIME));
	*t = x * 1e-6;
	if (S_num(S_get(side, "bus_bw"), &x) == 0 && x >= 0)
		*busbw = x * 1e9;
	if (algbw && S_num(S_get(side, "alg_bw"), &x) == 0 && x >= 0)
		*algbw = x * 1e9;
	return 0;
}

/* One result r of the test (op, ranks) as the next row of m. */
static int S_result(struct jparser *jp, const struct jval *r, int op, unsigned long ranks,
		    struct meas *m)
{
	const struct jval *oop, *ip;
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
	if (S_num(S_get(r, "size"), &sz) < 0 || bound_check(BOUND_SIZE, sz) < 0 ||
	    sz != floor(sz))
		return errbuf_set(jp->eb, "%s:%d: result without a whole \"size\" in "
				  "bytes, %s", jp->name, r->line, bound_what(BOUND_SIZE));
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
	for (i = 0; i < res->n; i++)
		if (S_result(jp, res->items[i], op, ranks, m) < 0)
			return -1;
	if (m->n == 0)
		return errbuf_set(jp->eb, "%s: no results in the JSON file", jp->name);
	m->op = op;
	m->ranks = ranks;
	return 0;
}

int nccljson_parse(const char *buf, size_t len, const char *name,
		   struct meas *m, struct errbuf *eb)
{
	struct jparser jp;
	int rc;

	if (memchr(buf, '\0', len))
		return errbuf_set(eb, "%s: binary data (a NUL byte); expected JSON", name);
	memset(&jp, 0, sizeof(jp));
	jp.name = name;
	jp.eb = eb;
	jp.js = json_stream_new(&S_cb, &jp, name, 0);
	m->from_log = 1;
	rc = json_stream_feed(jp.js, buf, len, eb);
	if (rc == 0)
		rc = json_stream_finish(jp.js, eb);
	if (rc == 0 && jp.root->type != J_OBJ)
		rc = errbuf_set(eb, "%s:%d: the document is not an object; expected the "
				"JSON of nccl-tests -J", name, jp.root->line);
	else if (rc == 0)
		rc = S_results(&jp, jp.root, m);
	json_stream_free(jp.js);
	free(jp.key);
	S_free(jp.root);
	return rc;
}
