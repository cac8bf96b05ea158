/*
 * A layer's kernels kept by shape.  A search prices hundreds of thousands
 * of configurations, but their layers take a few thousand shapes (tp, cp,
 * experts, micro-batch, ...): each shape's kernels (kernel_layer, the
 * output layer, the dense layer of a model with dense first layers) are
 * timed once and read back after.  The times are the same numbers
 * kernel_layer gives; only how often they are computed changes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "step.h"
#include "step_int.h"
#include "util.h"

/* the shape's fields, one double each, and the pointers that own it */
#define S_KEY 16

struct step_kmemo_ent {
	double key[S_KEY];
	const struct workload *w;
	const struct kernel_gpu *g;
	int used;
	struct step_kernels k;
};

static void S_key(const struct kernel_shape *sh, double *key)
{
	double v[S_KEY] = {
		sh->tokens, sh->seq, sh->cp, sh->tp, sh->sp, sh->fused, sh->ep, sh->capacity,
		sh->fp8, sh->microbatches, sh->etp, sh->eager, sh->sdpa, sh->attn_len, 0, 0,
	};

	memcpy(key, v, sizeof(v));
}

/* FNV-1a over the key's words and the two pointers, each step's high
 * bits folded down (a double's low mantissa bits are mostly zero). */
static size_t S_hash(const double *key, const struct workload *w, const struct kernel_gpu *g)
{
	uint64_t h = UTIL_FNV_BASIS, b;
	size_t i;

	for (i = 0; i < S_KEY; i++) {
		memcpy(&b, &key[i], sizeof(b));
		h = UTIL_FNV(h, b);
		h ^= h >> 31;
	}
	h = UTIL_FNV(h, (uintptr_t)w);
	h = UTIL_FNV(h, (uintptr_t)g);
	return (size_t)(h ^ (h >> 29));
}

static void S_grow(struct step_memo *m)
{
	struct step_kmemo_ent *old = m->k;
	size_t oc = m->kcap, i, j;

	m->kcap = oc ? 2 * oc : 256;
	m->k = xmalloc(m->kcap * sizeof(*m->k));
	memset(m->k, 0, m->kcap * sizeof(*m->k));
	for (i = 0; i < oc; i++) {
		if (!old[i].used)
			continue;
		j = S_hash(old[i].key, old[i].w, old[i].g) & (m->kcap - 1);
		while (m->k[j].used)
			j = (j + 1) & (m->kcap - 1);
		m->k[j] = old[i];
	}
	free(old);
}

static struct step_kmemo_ent *S_slot(struct step_memo *m, const double *key,
				      const struct workload *w, const struct kernel_gpu *g)
{
	size_t j;

	if (2 * (m->kn + 1) > m->kcap)
		S_grow(m);
	for (j = S_hash(key, w, g) & (m->kcap - 1);; j = (j + 1) & (m->kcap - 1)) {
		struct step_kmemo_ent *e = &m->k[j];

		if (!e->used || (e->w == w && e->g == g &&
				 !memcmp(e->key, key, sizeof(e->key))))
			return e;
	}
}

/* The kernels of one shape, timed. */
static int S_time(const struct kernel_gpu *g, const struct workload *w,
		  const struct kernel_shape *sh, struct step_kernels *k, struct errbuf *eb)
{
	memset(k, 0, sizeof(*k));
	if (kernel_layer(g, w, sh, &k->layer, eb) < 0)
		return -1;
	k->output_s = kernel_output_s(g, w, sh);
	if (w->dense_layers > 0) {
		struct workload d;

		workload_dense_layer(w, &d);
		if (kernel_layer(g, &d, sh, &k->dense, eb) < 0)
			return -1;
	}
	return 0;
}

const struct step_kernels *step_kernels_of(struct step_memo *m, const struct kernel_gpu *g,
					   const struct workload *w, const struct kernel_shape *sh,
					   struct step_kernels *k, struct errbuf *eb)
{
	struct step_kmemo_ent *e;
	double key[S_KEY];

	if (!m)
		return S_time(g, w, sh, k, eb) < 0 ? NULL : k;
	S_key(sh, key);
	e = S_slot(m, key, w, g);
	if (!e->used) {
		if (S_time(g, w, sh, &e->k, eb) < 0)
			return NULL;
		memcpy(e->key, key, sizeof(key));
		e->w = w;
		e->g = g;
		e->used = 1;
		m->kn++;
	}
	return &e->k;
}
