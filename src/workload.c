/*
 * Training workloads: transformer shapes from presets and their parameter
 * counts.  See models/workloads.md for the formulas and their sources.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"
#include "units.h"

double megatron_params(double l, double h, double V, double s)
{
	return 12.0 * l * h * h * (1.0 + 13.0 / (12.0 * h) + (V + s) / (12.0 * l * h));
}

double workload_head_dim(const struct workload *w)
{
	return w->head_dim > 0 ? w->head_dim : w->hidden / w->heads;
}

double workload_q_width(const struct workload *w)
{
	return w->head_dim > 0 ? w->heads * w->head_dim : w->hidden;
}

double workload_kv_width(const struct workload *w)
{
	return w->head_dim > 0 ? w->kv_heads * w->head_dim : w->hidden * w->kv_heads / w->heads;
}

void workload_layer_params(const struct workload *w, struct layer_params *lp)
{
	double h = w->hidden, f = w->ffn, hq = workload_q_width(w);
	double hkv = workload_kv_width(w);
	double E = w->experts >= 1 ? w->experts : 1, k = w->top_k >= 1 ? w->top_k : 1;

	if (w->arch == WL_GPT) {
		/*
		 * Written out term by term rather than as Eq. 2, so that GQA and
		 * a non-4h MLP are counted too; with f = 4h and h_kv = h the sum
		 * is 12h² + 13h per layer, which is Eq. 2.
		 */
		lp->attn = 2 * h * hq + 2 * h * hkv + hq + h + 2 * hkv;  /* Q, K, V, O and biases */
		lp->mlp = 2 * h * f + f + h;                          /* MLP up, down, biases */
		lp->other = 4 * h;                                    /* two LayerNorms */
		lp->matmul = 2 * h * hq + 2 * h * hkv + k * 2 * h * f;
	} else {
		/* No biases anywhere; SwiGLU has three h×f matrices. */
		lp->attn = 2 * h * hq + 2 * h * hkv;
		lp->mlp = 3 * h * f;
		lp->other = 2 * h;
		lp->matmul = lp->attn + k * lp->mlp;
	}
	if (E > 1)
		lp->other += h * E;   /* the router: one h×E matrix */
}

double workload_embed_params(const struct workload *w)
{
	double h = w->hidden, V = w->vocab;

	if (w->arch == WL_GPT)
		return V * h + w->seq * h + (w->tied ? 0 : V * h);
	return V * h + (w->tied ? 0 : V * h) + h;   /* + final RMSNorm */
}

double workload_params(const struct workload *w)
{
	struct layer_params lp;
	double E = w->experts >= 1 ? w->experts : 1;

	workload_layer_params(w, &lp);
	return w->layers * (lp.attn + E * lp.mlp + lp.other) + workload_embed_params(w);
}

int workload_parse_count(const char *s, double *count, struct errbuf *eb)
{
	static const struct { char c; double mult; } suffix[] = {
		{ 'k', 1e3 }, { 'K', 1e3 }, { 'M', 1e6 }, { 'B', 1e9 }, { 'G', 1e9 },
		{ 'T', 1e12 },
	};
	const char *p = s, *end;
	double x, mult = 1;
	size_t i, n;

	while (isspace((unsigned char)*p))
		p++;
	if (!*p)
		return errbuf_set(eb, "cannot parse parameter count '%s': empty", s);
	n = units_scan_decimal(p, 0, &x);
	if (!n || !isfinite(x))
		return errbuf_set(eb, "cannot parse parameter count '%s'", s);
	end = p + n;
	if (*end && !isspace((unsigned char)*end)) {
		for (i = 0; i < sizeof(suffix) / sizeof(suffix[0]); i++)
			if (*end == suffix[i].c)
				break;
		if (i == sizeof(suffix) / sizeof(suffix[0]))
			return errbuf_set(eb, "cannot parse parameter count '%s': unknown suffix '%s'",
					  s, end);
		mult = suffix[i].mult;
		end++;
	}
	while (isspace((unsigned char)*end))
		end++;
	if (*end)
		return errbuf_set(eb, "cannot parse parameter count '%s': unexpected '%s'", s, end);
	x *= mult;
	if (!isfinite(x) || x <= 0)
		return errbuf_set(eb, "parameter count '%s' must be positive", s);
	*count = x;
	return 0;
}

char *workload_fmt_count(char *buf, size_t len, double count)
{
	if (count >= 1e12)
		snprintf(buf, len, "%.4g trillion", count / 1e12);
	else if (count >= 1e9)
		snprintf(buf, len, "%.4g billion", count / 1e9);
	else if (count >= 1e6)
		snprintf(buf, len, "%.4g million", count / 1e6);
	else
		snprintf(buf, len, "%.4g", count);
	return buf;
}

char *workload_describe(char *buf, size_t len, const struct workload *w)
{
	char a[48], b[48];

	workload_fmt_count(a, sizeof(a), workload_params(w));
	if (isnan(w->published))
		snprintf(buf, len, "%s, computed from the shape", a);
	else
		snprintf(buf, len, "%s, computed from the shape; published %s", a,
			 workload_fmt_count(b, sizeof(b), w->published));
	return buf;
}

static const struct preset_kv *S_find(const struct preset *p, const char *key)
{
	size_t i;

	for (i = 0; i < p->nkv; i++)
		if (!strcmp(p->kv[i].key, key))
			return &p->kv[i];
	return NULL;
}

/*
 * A positive count under key.  *x is left alone when the key is absent
 * and !required.  Integral counts (layers, sizes) are checked as such.
 */
static int S_count(const struct preset *p, const char *key, int required, int integral,
		   double *x, struct errbuf *eb)
{
	const struct preset_kv *kv = S_find(p, key);
	struct errbuf e2;

	if (!kv) {
		if (required)
			return errbuf_set(eb, "%s: workload '%s' has no '%s'", p->path, p->name, key);
		return 0;
	}
	if (workload_parse_count(kv->value, x, &e2) < 0)
		return errbuf_set(eb, "%s:%d: %s: %s", p->path, kv->line, key, e2.msg);
	if (integral && (*x != floor(*x) || *x > 1e15))
		return errbuf_set(eb, "%s:%d: %s: '%s' is not a whole number", p->path,
				  kv->line, key, kv->value);
	return 0;
}

int workload_from_preset(const struct preset *p, struct workload *w, struct errbuf *eb)
{
	const struct preset_kv *kv;

	if (!p->kind || strcmp(p->kind, "workload"))
		return errbuf_set(eb, "preset '%s' is a %s, not a workload", p->name,
				  p->kind ? p->kind : "preset without kind");
	memset(w, 0, sizeof(*w));
	snprintf(w->name, sizeof(w->name), "%s", p->name);

	kv = S_find(p, "arch");
	if (!kv)
		return errbuf_set(eb, "%s: workload '%s' has no 'arch' (gpt or llama)",
				  p->path, p->name);
	if (!strcmp(kv->value, "gpt"))
		w->arch = WL_GPT;
	else if (!strcmp(kv->value, "llama"))
		w->arch = WL_LLAMA;
	else
		return errbuf_set(eb, "%s:%d: arch: unknown architecture '%s' (gpt or llama)",
				  p->path, kv->line, kv->value);

	if (S_count(p, "layers", 1, 1, &w->layers, eb) < 0 ||
	    S_count(p, "hidden", 1, 1, &w->hidden, eb) < 0 ||
	    S_count(p, "heads", 1, 1, &w->heads, eb) < 0 ||
	    S_count(p, "vocab", 1, 1, &w->vocab, eb) < 0 ||
	    S_count(p, "seq", 1, 1, &w->seq, eb) < 0)
		return -1;
	w->kv_heads = w->heads;
	w->ffn = 4 * w->hidden;
	if (S_count(p, "kv_heads", 0, 1, &w->kv_heads, eb) < 0 ||
	    S_count(p, "ffn", w->arch == WL_LLAMA, 1, &w->ffn, eb) < 0 ||
	    S_count(p, "head_dim", 0, 1, &w->head_dim, eb) < 0)
		return -1;
	if (w->kv_heads > w->heads || fmod(w->heads, w->kv_heads) != 0) {
		kv = S_find(p, "kv_heads");
		return errbuf_set(eb, "%s:%d: kv_heads: %.15g does not divide heads %.15g",
				  p->path, kv ? kv->line : 0, w->kv_heads, w->heads);
	}
	/* Without head_dim a head is h/a wide, so a must divide h. */
	if (!(w->head_dim > 0) && fmod(w->hidden, w->heads) != 0) {
		kv = S_find(p, "heads");
		return errbuf_set(eb, "%s:%d: heads: %.15g does not divide hidden %.15g",
				  p->path, kv ? kv->line : 0, w->heads, w->hidden);
	}

	w->tied = w->arch == WL_GPT;
	kv = S_find(p, "tied");
	if (kv) {
		if (!strcmp(kv->value, "yes"))
			w->tied = 1;
		else if (!strcmp(kv->value, "no"))
			w->tied = 0;
		else
			return errbuf_set(eb, "%s:%d: tied: expected 'yes' or 'no', got '%s'",
					  p->path, kv->line, kv->value);
	}

	w->experts = 1;
	w->top_k = 1;
	if (S_count(p, "experts", 0, 1, &w->experts, eb) < 0 ||
	    S_count(p, "top_k", 0, 1, &w->top_k, eb) < 0)
		return -1;
	if (w->top_k > w->experts) {
		kv = S_find(p, "top_k");
		return errbuf_set(eb, "%s:%d: top_k: %.15g is more than the %.15g experts",
				  p->path, kv ? kv->line : 0, w->top_k, w->experts);
	}

	w->published = NAN;
	return S_count(p, "published", 0, 0, &w->published, eb);
}
