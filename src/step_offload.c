/*
 * Activation offload to host memory (--offload-activations N): which
 * configurations take it, the bytes that leave the GPU and the time the
 * step waits for the copies.  models/step-teams.md, "Activation offload".
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "step.h"
#include "step_int.h"

/*
 * Megatron-Core refuses what its offload does not run
 * (megatron/core/transformer/transformer_config.py, __post_init__):
 * cpu_offloading_num_layers in [0, num_layers) ("CPU offloading can be
 * done only for layers less than ..."), no pipeline ("Currently there is
 * no support for Pipeline parallelism with CPU offloading") and no
 * recomputation of any granularity ("CPU offloading does not work when
 * activation recomputation is enabled").  The offload context is
 * Transformer Engine's, which only Megatron's transformer block opens
 * (megatron/core/transformer/transformer_block.py).
 */
int step_offload_check(const struct workload *w, const struct step_config *c,
		       struct errbuf *eb)
{
	if (!c->offload)
		return 0;
	if (!step_framework_megatron_layers(c->framework))
		return errbuf_set(eb, "--offload-activations %lu is Megatron-Core's offload through "
				  "Transformer Engine; --framework %s has none", c->offload,
				  step_framework_name(c->framework));
	if (c->pp > 1)
		return errbuf_set(eb, "--offload-activations %lu with pp %lu: Megatron-Core offloads "
				  "only without a pipeline (transformer_config.py: no support for "
				  "pipeline parallelism with CPU offloading)", c->offload, c->pp);
	if (c->recompute != RC_NONE)
		return errbuf_set(eb, "--offload-activations %lu with --recompute %s: Megatron-Core "
				  "offloads only what the forward saves, with no recomputation "
				  "(transformer_config.py: CPU offloading does not work when "
				  "activation recomputation is enabled); give --recompute none",
				  c->offload, recompute_name(c->recompute));
	if ((double)c->offload >= w->layers)
		return errbuf_set(eb, "--offload-activations %lu: a stage of %.15g layers offloads "
				  "at most %.15g of them (transformer_config.py: layers less than "
				  "num_layers)", c->offload, w->layers, w->layers - 1);
	return 0;
}

/* One copy on the stream: starts when both the stream and the compute
 * that made it are free, returns when it ends. */
static double S_copy(double *stream, double ready, double x)
{
	*stream = fmax(*stream, ready) + x;
	return *stream;
}

/*
 * Transformer Engine's DefaultOffloadSynchronizer (transformer_engine/
 * pytorch/cpu_offload.py, _init_offload_synchronization_dicts, fwd_step,
 * bwd_step; one offload_stream for both ways): before layer j's forward
 * the copy out of layer j - 1 starts (when offloaded) and the compute
 * waits for layer i = j - (L - N) to be out; before layer j's backward
 * the copy back of layer i = j - (L - 1 - N) starts, and the layer's
 * backward waits for its own copy back.
 */
double step_offload_wait_s(double L, double N, double f, double b, double x)
{
	double t = 0, stream = 0, wait = 0, *done;
	long n, l, j, i;

	if (!(N >= 1) || !(L > N) || L > 1e6 || !(f >= 0) || !(b >= 0) || !(x >= 0))
		return NAN;
	n = (long)N, l = (long)L;
	done = calloc((size_t)n, sizeof(*done));
	if (!done)
		return NAN;
	for (j = 0; j < l; j++) {
		if (j >= 1 && j - 1 < n)
			done[j - 1] = S_copy(&stream, t, x);
		i = j - (l - n);
		if (i >= 0 && i < n && done[i] > t)
			wait += done[i] - t, t = done[i];
		t += f;
	}
	for (j = l - 1; j >= 0; j--) {
		i = j - (l - 1 - n);
		if (i >= 0 && i < n)
			done[i] = S_copy(&stream, t, x);
		if (j < n && done[j] > t)
			wait += done[j] - t, t = done[j];
		t += b;
	}
	free(done);
	return wait;
}

/*
 * The offload's bytes and its wait per micro-batch, the copies of the
 * mean offloaded layer against the stage's mean layer's compute
 * (u->fwd_l, u->bwd_l): every tensor a layer saves for backward goes (Transformer Engine marks its modules' saved tensors,
 * Megatron-Core the rest: tensor_parallel/layers.py, transformer/mlp.py).
 */
void step_offload_time(struct run *u)
{
	const struct step_config *c = u->c;
	const struct step_compute *cs = u->cs;
	struct step_offload *o = &u->r->offload;
	double N = (double)c->offload;

	memset(o, 0, sizeof(*o));
	if (!c->offload)
		return;
	o->layers = N;
	o->host_B = step_memory_offload_B(u, N);
	o->layer_B = o->host_B / N;
	o->moved_B = 2 * o->host_B * u->m;
	o->link_Bps = cs && cs->host_link_Bps > 0 ? cs->host_link_Bps : STEP_HOST_LINK_BPS;
	o->xfer_s = o->layer_B / o->link_Bps;
	o->exposed_s = isnan(u->fwd_l) ? NAN :
		step_offload_wait_s(u->L, N, u->fwd_l, u->bwd_l, o->xfer_s);
}
