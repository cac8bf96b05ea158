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

int workload_parallel(const struct workload *w)
{
	return w->block != WL_SEQUENTIAL;
}

int workload_mla(const struct workload *w)
{
	return w->kv_lora > 0;
}

double workload_head_dim(const struct workload *w)
{
	return w->head_dim > 0 ? w->head_dim : w->hidden / w->heads;
}

/* With multi-head latent attention the queries and keys are a(d + r)
 * wide, the values a·v: kv_width is their mean, so that h_q + 2·h_kv is
 * the width of Q, K and V together. */
double workload_q_width(const struct workload *w)
{
	if (workload_mla(w))
		return w->heads * (w->head_dim + w->rope);
	return w->head_dim > 0 ? w->heads * w->head_dim : w->hidden;
}

double workload_kv_width(const struct workload *w)
{
	if (workload_mla(w))
		return w->heads * (w->head_dim + w->rope + w->v_head) / 2;
	return w->head_dim > 0 ? w->kv_heads * w->head_dim : w->hidden * w->kv_heads / w->heads;
}

int workload_windowed(const struct workload *w)
{
	return w->window > 0;
}

double workload_attn_span(const struct workload *w, double s)
{
	double n = workload_windowed(w) ? w->window_layers : 0;

	return ((w->layers - n) * s + n * fmin(w->window, s)) / w->layers;
}

double workload_core_width(const struct workload *w)
{
	if (workload_mla(w))
		return w->heads * (w->head_dim + w->rope + w->v_head) / 2;
	return workload_q_width(w);
}

/*
 * Multi-head latent attention's matrices (DeepSeek-V2, arXiv:2405.04434,
 * §2.1.2 and Appendix C; the shapes of modeling_deepseek.py's
 * DeepseekV3Attention): q_a_proj h x q_lora, q_b_proj q_lora x a(d+r)
 * (or q_proj h x a(d+r) without q_lora), kv_a_proj_with_mqa h x
 * (kv_lora + r), kv_b_proj kv_lora x a(d+v), o_proj a·v x h; no biases.
 */
static double S_mla_params(const struct workload *w)
{
	double h = w->hidden, a = w->heads, d = w->head_dim, r = w->rope, v = w->v_head;
	double qr = w->q_lora, kvr = w->kv_lora;
	double q = qr > 0 ? h * qr + qr * a * (d + r) : h * a * (d + r);

	return q + h * (kvr + r) + kvr * a * (d + v) + a * v * h;
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
		lp->attn = workload_mla(w) ? S_mla_params(w) : 2 * h * hq + 2 * h * hkv;
		lp->mlp = 3 * h * f;
		lp->other = 2 * h;
		lp->matmul = lp->attn + k * lp->mlp;
		if (workload_mla(w))   /* q_a_layernorm, kv_a_layernorm */
			lp->other += w->kv_lora + (w->q_lora > 0 ? w->q_lora : 0);
	}
	if (w->block == WL_PARALLEL_ONE_NORM)   /* one norm, not two */
		lp->other -= w->arch == WL_GPT ? 2 * h : h;
	lp->shared = 0;
	if (E > 1) {
		lp->other += h * E;   /* the router: one h×E matrix */
		if (w->shared > 0) {
			lp->shared = w->shared * lp->mlp;
			lp->matmul += w->shared * lp->mlp;
		}
	}
}

void workload_dense_layer(const struct workload *w, struct workload *d)
{
	*d = *w;
	if (!(w->dense_layers > 0))
		return;
	d->ffn = w->dense_ffn;
	d->experts = d->top_k = 1;
	d->shared = d->dense_layers = d->dense_ffn = 0;
}

double workload_dense_in(const struct workload *w, double first, double n)
{
	double x = w->dense_layers - first;

	return x <= 0 ? 0 : x < n ? x : n;
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
	struct layer_params lp, ld;
	struct workload d;
	double E = w->experts >= 1 ? w->experts : 1, N = w->dense_layers;

	workload_layer_params(w, &lp);
	if (!(N > 0))
		return w->layers * (lp.attn + E * lp.mlp + lp.other) + w->layers * lp.shared +
		       workload_embed_params(w);
	workload_dense_layer(w, &d);
	workload_layer_params(&d, &ld);
	return N * (ld.attn + ld.mlp + ld.other) +
	       (w->layers - N) * (lp.attn + E * lp.mlp + lp.shared + lp.other) +
	       workload_embed_params(w);
}

double workload_active_params(const struct workload *w)
{
	struct layer_params lp, ld;
	struct workload d;
	double N = w->dense_layers > 0 ? w->dense_layers : 0;
	double k = w->experts > 1 ? w->top_k : 1;

	workload_layer_params(w, &lp);
	workload_dense_layer(w, &d);
	workload_layer_params(&d, &ld);
	return N * (ld.attn + ld.mlp + ld.other) +
	       (w->layers - N) * (lp.attn + (k * lp.mlp + lp.shared) + lp.other) +
	       workload_embed_params(w);
}

double workload_matmul_params(const struct workload *w)
{
	struct layer_params lp, ld;
	struct workload d;
	double N = w->dense_layers;

	workload_layer_params(w, &lp);
	if (!(N > 0))
		return w->layers * lp.matmul;
	workload_dense_layer(w, &d);
	workload_layer_params(&d, &ld);
	return N * ld.matmul + (w->layers - N) * lp.matmul;
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

/*
 * A positive count under key.  *x is left alone when the key is absent
 * and !required.  Integral counts (layers, sizes) are checked as such.
 */
static int S_count(const struct preset *p, const char *key, int required, int integral,
		   double *x, struct errbuf *eb)
{
	const struct preset_kv *kv = preset_find(p, key);
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

static int S_line(const struct preset *p, const char *key)
{
	const struct preset_kv *kv = preset_find(p, key);

	return kv ? kv->line : 0;
}

/*
 * DeepSeek's keys (models/workloads.md): the first dense_layers layers
 * dense with a dense_ffn-wide MLP, shared_experts beside the routed ones,
 * and multi-head latent attention.  Each needs the shape it qualifies.
 */
static int S_deepseek_keys(const struct preset *p, struct workload *w, struct errbuf *eb)
{
	static const char *const mla[] = { "q_lora_rank", "qk_rope_head_dim", "v_head_dim" };
	int moe = w->experts > 1;
	size_t i;

	if (S_count(p, "shared_experts", 0, 1, &w->shared, eb) < 0 ||
	    S_count(p, "dense_layers", 0, 1, &w->dense_layers, eb) < 0 ||
	    S_count(p, "dense_ffn", 0, 1, &w->dense_ffn, eb) < 0 ||
	    S_count(p, "q_lora_rank", 0, 1, &w->q_lora, eb) < 0 ||
	    S_count(p, "kv_lora_rank", 0, 1, &w->kv_lora, eb) < 0 ||
	    S_count(p, "qk_rope_head_dim", 0, 1, &w->rope, eb) < 0 ||
	    S_count(p, "v_head_dim", 0, 1, &w->v_head, eb) < 0)
		return -1;
	if (w->shared > 0 && !moe)
		return errbuf_set(eb, "%s:%d: shared_experts: %.15g shared experts need routed "
				  "ones (experts >= 2)", p->path, S_line(p, "shared_experts"), w->shared);
	if (w->dense_layers > 0 || w->dense_ffn > 0) {
		const char *k = w->dense_layers > 0 ? "dense_layers" : "dense_ffn";

		if (!moe)
			return errbuf_set(eb, "%s:%d: %s: dense first layers are for a mixture "
					  "of experts (experts >= 2); a dense model's layers are all "
					  "dense", p->path, S_line(p, k), k);
		if (!(w->dense_layers > 0) || !(w->dense_ffn > 0))
			return errbuf_set(eb, "%s:%d: %s: dense_layers and dense_ffn go together "
					  "(the first N layers dense, their MLP F wide)", p->path,
					  S_line(p, k), k);
		if (w->dense_layers >= w->layers)
			return errbuf_set(eb, "%s:%d: dense_layers: %.15g is not fewer than the "
					  "%.15g layers", p->path, S_line(p, k), w->dense_layers,
					  w->layers);
	}
	if (!(w->kv_lora > 0)) {
		for (i = 0; i < sizeof(mla) / sizeof(mla[0]); i++)
			if (preset_find(p, mla[i]))
				return errbuf_set(eb, "%s:%d: %s: latent attention needs "
						  "kv_lora_rank", p->path, S_line(p, mla[i]), mla[i]);
		return 0;
	}
	if (w->arch != WL_LLAMA)
		return errbuf_set(eb, "%s:%d: kv_lora_rank: latent attention is for arch = llama "
				  "(no biases, RMSNorm)", p->path, S_line(p, "kv_lora_rank"));
	if (!(w->rope > 0) || !(w->v_head > 0) || !(w->head_dim > 0))
		return errbuf_set(eb, "%s:%d: kv_lora_rank: latent attention needs "
				  "qk_rope_head_dim, v_head_dim and head_dim (the non-rotary "
				  "part of a query's head)", p->path, S_line(p, "kv_lora_rank"));
	if (w->kv_heads != w->heads)
		return errbuf_set(eb, "%s:%d: kv_heads: latent attention up-projects keys and "
				  "values for every head; kv_heads %.15g is not heads %.15g",
				  p->path, S_line(p, "kv_heads"), w->kv_heads, w->heads);
	return 0;
}

/*
 * Sliding-window attention (models/workloads.md): window, the keys a
 * query spans (itself included), in window_layers of the layers (default
 * all); both whole numbers >= 1 (S_count).  Latent attention with a
 * window is not modelled.
 */
static int S_window_keys(const struct preset *p, struct workload *w, struct errbuf *eb)
{
	if (S_count(p, "window", 0, 1, &w->window, eb) < 0 ||
	    S_count(p, "window_layers", 0, 1, &w->window_layers, eb) < 0)
		return -1;
	if (!preset_find(p, "window")) {
		if (preset_find(p, "window_layers"))
			return errbuf_set(eb, "%s:%d: window_layers: needs window (the keys a "
					  "query spans in those layers)", p->path,
					  S_line(p, "window_layers"));
		return 0;
	}
	if (!preset_find(p, "window_layers"))
		w->window_layers = w->layers;
	if (w->window_layers > w->layers)
		return errbuf_set(eb, "%s:%d: window_layers: %.15g is more than the %.15g "
				  "layers", p->path, S_line(p, "window_layers"), w->window_layers,
				  w->layers);
	if (workload_mla(w))
		return errbuf_set(eb, "%s:%d: window: sliding-window latent attention is not "
				  "modelled", p->path, S_line(p, "window"));
	return 0;
}

/*
 * tied (yes/no; gpt ties by default) and parallel_block (no, two-norms,
 * one-norm: models/workloads.md, "Parallel blocks").
 */
static int S_block_keys(const struct preset *p, struct workload *w, struct errbuf *eb)
{
	const struct preset_kv *kv;

	w->tied = w->arch == WL_GPT;
	kv = preset_find(p, "tied");
	if (kv) {
		if (!strcmp(kv->value, "yes"))
			w->tied = 1;
		else if (!strcmp(kv->value, "no"))
			w->tied = 0;
		else
			return errbuf_set(eb, "%s:%d: tied: expected 'yes' or 'no', got '%s'",
					  p->path, kv->line, kv->value);
	}
	w->block = WL_SEQUENTIAL;
	kv = preset_find(p, "parallel_block");
	if (!kv || !strcmp(kv->value, "no"))
		return 0;
	if (!strcmp(kv->value, "two-norms"))
		w->block = WL_PARALLEL;
	else if (!strcmp(kv->value, "one-norm"))
		w->block = WL_PARALLEL_ONE_NORM;
	else
		return errbuf_set(eb, "%s:%d: parallel_block: expected 'no', 'two-norms' or "
				  "'one-norm', got '%s'", p->path, kv->line, kv->value);
	return 0;
}

/*
 * layers, hidden, heads, vocab and seq; kv_heads (heads), ffn (4·hidden,
 * given for llama) and head_dim, the heads in whole groups and widths.
 */
static int S_shape_keys(const struct preset *p, struct workload *w, struct errbuf *eb)
{
	const struct preset_kv *kv;

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
		kv = preset_find(p, "kv_heads");
		return errbuf_set(eb, "%s:%d: kv_heads: %.15g does not divide heads %.15g",
				  p->path, kv ? kv->line : 0, w->kv_heads, w->heads);
	}
	/* Without head_dim a head is h/a wide, so a must divide h. */
	if (!(w->head_dim > 0) && fmod(w->hidden, w->heads) != 0) {
		kv = preset_find(p, "heads");
		return errbuf_set(eb, "%s:%d: heads: %.15g does not divide hidden %.15g",
				  p->path, kv ? kv->line : 0, w->heads, w->hidden);
	}
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

	kv = preset_find(p, "arch");
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

	if (S_shape_keys(p, w, eb) < 0)
		return -1;

	if (S_block_keys(p, w, eb) < 0)
		return -1;

	w->experts = 1;
	w->top_k = 1;
	if (S_count(p, "experts", 0, 1, &w->experts, eb) < 0 ||
	    S_count(p, "top_k", 0, 1, &w->top_k, eb) < 0)
		return -1;
	if (w->top_k > w->experts) {
		kv = preset_find(p, "top_k");
		return errbuf_set(eb, "%s:%d: top_k: %.15g is more than the %.15g experts",
				  p->path, kv ? kv->line : 0, w->top_k, w->experts);
	}
	if (w->experts > 1 && workload_parallel(w))
		return errbuf_set(eb, "%s:%d: parallel_block: a mixture-of-experts layer in "
				  "parallel with its attention is not modelled", p->path,
				  S_line(p, "parallel_block"));

	if (S_deepseek_keys(p, w, eb) < 0 || S_window_keys(p, w, eb) < 0)
		return -1;
	w->published = NAN;
	return S_count(p, "published", 0, 0, &w->published, eb);
}

/* One pair key = "%.15g" of x into kv[*n], its text at *at in buf. */
static void S_pair(struct preset_kv *kv, size_t *n, char *buf, size_t len, size_t *at,
		   const char *key, const char *text, double x)
{
	int r;

	if (*n >= WORKLOAD_KV_MAX || *at >= len)
		return;
	r = text ? snprintf(buf + *at, len - *at, "%s", text)
		 : snprintf(buf + *at, len - *at, "%.15g", x);
	if (r < 0 || (size_t)r >= len - *at)
		return;
	kv[*n].key = (char *)key;
	kv[*n].value = buf + *at;
	kv[*n].line = 0;
	*at += (size_t)r + 1;
	(*n)++;
}

size_t workload_to_kv(const struct workload *w, const char *description,
		      struct preset_kv *kv, char *buf, size_t len)
{
	size_t n = 0, at = 0;

	S_pair(kv, &n, buf, len, &at, "name", w->name, 0);
	S_pair(kv, &n, buf, len, &at, "kind", "workload", 0);
	S_pair(kv, &n, buf, len, &at, "description", description, 0);
	S_pair(kv, &n, buf, len, &at, "arch", w->arch == WL_GPT ? "gpt" : "llama", 0);
	S_pair(kv, &n, buf, len, &at, "layers", NULL, w->layers);
	S_pair(kv, &n, buf, len, &at, "hidden", NULL, w->hidden);
	S_pair(kv, &n, buf, len, &at, "heads", NULL, w->heads);
	S_pair(kv, &n, buf, len, &at, "kv_heads", NULL, w->kv_heads);
	if (w->head_dim > 0)
		S_pair(kv, &n, buf, len, &at, "head_dim", NULL, w->head_dim);
	S_pair(kv, &n, buf, len, &at, "ffn", NULL, w->ffn);
	S_pair(kv, &n, buf, len, &at, "vocab", NULL, w->vocab);
	S_pair(kv, &n, buf, len, &at, "seq", NULL, w->seq);
	S_pair(kv, &n, buf, len, &at, "tied", w->tied ? "yes" : "no", 0);
	if (workload_parallel(w))
		S_pair(kv, &n, buf, len, &at, "parallel_block",
		       w->block == WL_PARALLEL ? "two-norms" : "one-norm", 0);
	if (w->experts > 1) {
		S_pair(kv, &n, buf, len, &at, "experts", NULL, w->experts);
		S_pair(kv, &n, buf, len, &at, "top_k", NULL, w->top_k);
	}
	if (w->shared > 0)
		S_pair(kv, &n, buf, len, &at, "shared_experts", NULL, w->shared);
	if (w->dense_layers > 0) {
		S_pair(kv, &n, buf, len, &at, "dense_layers", NULL, w->dense_layers);
		S_pair(kv, &n, buf, len, &at, "dense_ffn", NULL, w->dense_ffn);
	}
	if (w->q_lora > 0)
		S_pair(kv, &n, buf, len, &at, "q_lora_rank", NULL, w->q_lora);
	if (workload_mla(w)) {
		S_pair(kv, &n, buf, len, &at, "kv_lora_rank", NULL, w->kv_lora);
		S_pair(kv, &n, buf, len, &at, "qk_rope_head_dim", NULL, w->rope);
		S_pair(kv, &n, buf, len, &at, "v_head_dim", NULL, w->v_head);
	}
	if (workload_windowed(w)) {
		S_pair(kv, &n, buf, len, &at, "window", NULL, w->window);
		S_pair(kv, &n, buf, len, &at, "window_layers", NULL, w->window_layers);
	}
	if (!isnan(w->published))
		S_pair(kv, &n, buf, len, &at, "published", NULL, w->published);
	return n;
}
