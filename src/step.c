/*
 * One training step: the configuration, its check, and the run that joins
 * the phases of the model (step_int.h says which file holds which).
 * Formulas, their sources and worked examples: models/step.md.
 */
#include <math.h>
#include <string.h>

#include "step.h"
#include "step_int.h"

static const char *const dim_names[DIM_COUNT] = { "tp", "cp", "ep", "pp", "dp" };
static const char *const phase_names[PH_COUNT] = { "forward", "backward", "optimizer" };
static const char *const rc_names[RC_COUNT] = { "none", "selective", "full", "matmul-outputs",
	"alternate-matmul-outputs", "norm-and-swiglu-inputs" };
static const char *const rc_about[RC_COUNT] = {
	"keeps every activation backward needs",
	"keeps all but the attention core's scores, recomputed (Megatron)",
	"keeps each layer's input, the layer's forward recomputed",
	"keeps every matmul's and the attention kernel's output; norms,\n"
	"activation functions and elementwise work recomputed",
	"as matmul-outputs with every second matmul of a layer\n"
	"recomputed too (torchtitan's per-op checkpointing)",
	"keeps each norm's input and SwiGLU's inputs; norms, latent\n"
	"attention's up projections and SwiGLU's output recomputed (DeepSeek-V3)",
};
static const char *const prec_names[PREC_COUNT] = { "bf16", "fp8" };
static const char *const fw_names[FW_COUNT] = { "megatron", "deepspeed", "fsdp", "deepspeed-2021" };
static const char *const cpf_names[CP_FORM_COUNT] = { "ring", "allgather" };

int step_attention_flash2(const struct step_config *c)
{
	return c->attention == ATTN_FLASH2 || (c->framework == FW_FSDP && c->attention == ATTN_AUTO);
}

const char *step_framework_name(enum step_framework f)
{
	return f < FW_COUNT ? fw_names[f] : "?";
}

/*
 * The names a run's framework goes by, read as the framework whose overlap
 * it has: torchtitan, torchtune and LLM Foundry (on Composer) train with
 * PyTorch's FSDP (FSDP2 and FSDP1), whose FSDP1 came from FairScale's
 * FullyShardedDataParallel, which metaseq (OPT) ran; NeMo, Megatron-Bridge
 * and Megatron-Core are Megatron-LM's code;
 * Megatron-DeepSpeed runs DeepSpeed's engine (models/step.md, "Overlap as
 * the frameworks do it").
 */
static const struct { const char *alias; enum step_framework f; } fw_aliases[] = {
	{ "fsdp1", FW_FSDP }, { "fsdp2", FW_FSDP }, { "torchtitan", FW_FSDP },
	{ "llm-foundry", FW_FSDP }, { "composer", FW_FSDP }, { "torchtune", FW_FSDP },
	{ "fairscale", FW_FSDP }, { "metaseq", FW_FSDP }, { "megatron-lm", FW_MEGATRON },
	{ "megatron-core", FW_MEGATRON }, { "mcore", FW_MEGATRON }, { "nemo", FW_MEGATRON },
	{ "megatron-bridge", FW_MEGATRON }, { "megatron-deepspeed", FW_DEEPSPEED },
};

/* name equal to want but for the case of its letters and '_' for '-' */
static int S_same_name(const char *name, const char *want)
{
	for (; *name && *want; name++, want++) {
		char c = *name >= 'A' && *name <= 'Z' ? (char)(*name - 'A' + 'a') :
			 *name == '_' ? '-' : *name;

		if (c != *want)
			return 0;
	}
	return !*name && !*want;
}

int step_framework_lookup(const char *name, enum step_framework *f, struct errbuf *eb)
{
	size_t i;

	for (i = 0; i < FW_COUNT; i++)
		if (S_same_name(name, fw_names[i])) {
			*f = (enum step_framework)i;
			return 0;
		}
	for (i = 0; i < sizeof(fw_aliases) / sizeof(fw_aliases[0]); i++)
		if (S_same_name(name, fw_aliases[i].alias)) {
			*f = fw_aliases[i].f;
			return 0;
		}
	return errbuf_set(eb, "unknown framework '%s' (megatron, deepspeed, fsdp, deepspeed-2021; "
			  "also torchtitan, torchtune, fsdp2, llm-foundry, composer, fairscale, "
			  "metaseq, nemo, megatron-lm, megatron-core, megatron-bridge, "
			  "megatron-deepspeed)", name);
}

int step_framework_deepspeed(enum step_framework f)
{
	return f == FW_DEEPSPEED || f == FW_DEEPSPEED_2021;
}

int step_framework_megatron_layers(enum step_framework f)
{
	return f != FW_FSDP;
}

double step_framework_grad_bytes(enum step_framework f)
{
	return step_framework_deepspeed(f) ? 2 : STEP_GRAD_BYTES;
}

const char *step_cp_form_name(enum step_cp_form f)
{
	return f < CP_FORM_COUNT ? cpf_names[f] : "?";
}

int step_cp_form_lookup(const char *name, enum step_cp_form *f, struct errbuf *eb)
{
	int i;

	for (i = 0; i < CP_FORM_COUNT; i++)
		if (!strcmp(name, cpf_names[i])) {
			*f = (enum step_cp_form)i;
			return 0;
		}
	return errbuf_set(eb, "unknown context-parallel form '%s' (ring, allgather)", name);
}

const char *step_dim_name(enum step_dim d)
{
	return d < DIM_COUNT ? dim_names[d] : "?";
}

const char *step_phase_name(enum step_phase p)
{
	return p < PH_COUNT ? phase_names[p] : "?";
}

const char *recompute_name(enum recompute r)
{
	return r < RC_COUNT ? rc_names[r] : "?";
}

int recompute_lookup(const char *name, enum recompute *r, struct errbuf *eb)
{
	int i;

	for (i = 0; i < RC_COUNT; i++)
		if (!strcmp(name, rc_names[i])) {
			*r = (enum recompute)i;
			return 0;
		}
	return errbuf_set(eb, "unknown recompute mode '%s' (none, selective, full, matmul-outputs, "
			  "alternate-matmul-outputs)", name);
}

const char *recompute_about(enum recompute r)
{
	return r < RC_COUNT ? rc_about[r] : "?";
}

const char *step_precision_name(enum step_precision p)
{
	return p < PREC_COUNT ? prec_names[p] : "?";
}

/*
 * The names FP8 recipes go by in frameworks' tables (Megatron-Bridge's
 * performance summary: FP8-CS current scaling, FP8-DS delayed, MXFP8 or
 * FP8-MX Blackwell's block scaling): every one runs its GEMMs at the FP8
 * peak after Transformer Engine's casts, which is what fp8 prices.
 */
static const char *const fp8_aliases[] = {
	"fp8-cs", "fp8-ds", "fp8-mx", "mxfp8", "fp8-current", "fp8-delayed",
};

int step_precision_lookup(const char *name, enum step_precision *p, struct errbuf *eb)
{
	size_t i;

	for (i = 0; i < PREC_COUNT; i++)
		if (S_same_name(name, prec_names[i])) {
			*p = (enum step_precision)i;
			return 0;
		}
	for (i = 0; i < sizeof(fp8_aliases) / sizeof(fp8_aliases[0]); i++)
		if (S_same_name(name, fp8_aliases[i])) {
			*p = PREC_FP8;
			return 0;
		}
	if (S_same_name(name, "bfloat16")) {
		*p = PREC_BF16;
		return 0;
	}
	return errbuf_set(eb, "unknown precision '%s' (bf16, fp8; fp8 also as fp8-cs, fp8-ds, "
			  "fp8-mx, mxfp8; FP4 and FP16 are not modelled)", name);
}

unsigned long step_etp(const struct step_config *c)
{
	return c->etp ? c->etp : c->tp;
}

double step_moe_load(const struct step_config *c)
{
	return c->capacity_given ? c->capacity : c->moe_imbalance;
}

double step_moe_dropped(const struct step_config *c)
{
	return c->capacity_given && c->moe_imbalance > c->capacity ?
	       1 - c->capacity / c->moe_imbalance : 0;
}

void step_config_init(struct step_config *c)
{
	memset(c, 0, sizeof(*c));
	c->tp = c->pp = c->dp = c->cp = c->ep = 1;
	c->micro_batch = 1;
	c->recompute = RC_NONE;
	c->schedule = PP_1F1B;
	c->virt = 1;
	c->grad_bytes = STEP_GRAD_BYTES;
	c->param_bytes = STEP_PARAM_BYTES;
	c->optim_bytes = STEP_OPTIM_BYTES;
	c->moment_bytes = STEP_MOMENT_BYTES;
	c->act_bytes = STEP_ACT_BYTES;
	c->capacity = STEP_CAPACITY;
	c->moe_imbalance = 1;
	c->dp_replicate = 1;
	c->precision = PREC_BF16;
}

void step_config_moments(struct step_config *c, double bytes)
{
	c->moment_bytes = bytes;
	c->optim_bytes = 4 + 2 * bytes;
}

/* B, or d·b when no global batch was given. */
static double S_global(const struct step_config *c)
{
	return c->global_batch > 0 ? c->global_batch : (double)c->dp * c->micro_batch;
}

/*
 * Experts folded as Megatron-Core folds them (megatron/core/
 * parallel_state.py, the expert grid "tp-ep-dp-pp" beside the dense
 * "tp-cp-ep-dp-pp"): the t·c·d ranks of a stage hold ep·etp·edp expert
 * ranks, so ep·etp need only divide t·c·d.
 */
static int S_check_moe(const struct workload *w, const struct step_config *c, struct errbuf *eb)
{
	double tcd = (double)c->tp * (double)c->cp * (double)c->dp;
	unsigned long etp = step_etp(c);

	if (w->experts < 2 && c->etp)
		return errbuf_set(eb, "--etp: expert tensor parallelism needs experts; %s has none",
				  w->name[0] ? w->name : "the model");
	if (w->experts < 2 && (c->moe_imbalance != 1 || c->capacity_given))
		return errbuf_set(eb, "--moe-imbalance and --capacity describe experts; %s has none",
				  w->name[0] ? w->name : "the model");
	if (!(c->moe_imbalance >= 1) || !(c->moe_imbalance <= 1e3))
		return errbuf_set(eb, "--moe-imbalance: the busiest expert's tokens over the mean "
				  "is 1 to 1000, got %g", c->moe_imbalance);
	/* Megatron-Core's MoE layer refuses to train with tensor parallelism
	 * but no sequence parallelism (megatron/core/transformer/moe/
	 * moe_layer.py, forward): its dispatcher routes each rank's slice. */
	if (w->experts >= 2 && c->tp > 1 && etp != c->tp && !c->sp)
		return errbuf_set(eb, "--etp %lu with tp %lu: Megatron-Core folds the experts only "
				  "with sequence parallelism", etp, c->tp);
	if (w->experts >= 2 && c->tp > 1 && !c->sp)
		return errbuf_set(eb, "tp %lu with experts needs --sequence-parallel (Megatron-Core's "
				  "MoE layer refuses tensor parallelism without it)", c->tp);
	/* Megatron-Core's EP all-to-all overlap (transformer_config.py,
	 * overlap_moe_expert_parallel_comm): expert parallelism, the
	 * interleaved schedule when pipelined, no full recomputation. */
	if (c->ep_overlap && (w->experts < 2 || c->ep < 2 || c->framework != FW_MEGATRON))
		return errbuf_set(eb, "--overlap-moe-expert-parallel-comm overlaps Megatron-Core's "
				  "expert-parallel all-to-all: it needs experts, ep above 1 and "
				  "--framework megatron");
	if (c->ep_overlap && ((c->pp > 1 && c->schedule != PP_INTERLEAVED) ||
			      c->recompute == RC_FULL))
		return errbuf_set(eb, "--overlap-moe-expert-parallel-comm: Megatron-Core runs it "
				  "with the interleaved schedule when pipelined and without full "
				  "recomputation");
	/* Node-limited routing and an FP8 dispatch shape the expert
	 * all-to-all (DeepSeek-V3, §3.2.2 and §3.3.3). */
	if ((c->route_nodes || c->dispatch_fp8) && w->experts < 2)
		return errbuf_set(eb, "%s shapes the expert-parallel all-to-all; %s has no experts",
				  c->route_nodes ? "--moe-route-nodes" : "--moe-dispatch-fp8",
				  w->name[0] ? w->name : "the model");
	if ((c->route_nodes || c->dispatch_fp8) && c->ep < 2)
		return errbuf_set(eb, "%s shapes the expert-parallel all-to-all: it needs ep above "
				  "1, got ep %lu", c->route_nodes ? "--moe-route-nodes" :
				  "--moe-dispatch-fp8", c->ep);
	if (fmod(tcd, (double)c->ep * (double)etp) != 0)
		return errbuf_set(eb, "expert-parallel x expert-tensor-parallel size %lu x %lu does "
				  "not divide tp x cp x dp = %.15g", c->ep, etp, tcd);
	if (w->experts >= 2 && fmod(w->ffn, (double)etp) != 0)
		return errbuf_set(eb, "expert-tensor-parallel size %lu does not divide the experts' "
				  "inner size %.15g", etp, w->ffn);
	return 0;
}

/*
 * ZeRO and hybrid sharding.  ZeRO-3 with a pipeline only as FSDP2
 * frameworks run it (torchtitan; DeepSpeed's pipeline engine and
 * Megatron-LM refuse it); DeepSpeed's pipeline engine refuses ZeRO-2 too
 * (deepspeed/runtime/pipe/engine.py: "ZeRO-2 and ZeRO-3 are incompatible
 * with pipeline parallelism", in v0.3.16 and v0.5.4 as today).
 * --dp-replicate N: ZeRO-3/FSDP within groups of d·c/N ranks, N replicas
 * (PyTorch's HSDP, FSDP2's 2-D device mesh).
 */
static int S_check_sharding(const struct step_config *c, struct errbuf *eb)
{
	if (c->zero < 0 || c->zero > 3)
		return errbuf_set(eb, "ZeRO stage must be 0, 1, 2 or 3, got %d", c->zero);
	if (c->zero >= 3 && c->pp > 1 && c->framework != FW_FSDP)
		return errbuf_set(eb, "ZeRO stage %d does not combine with pipeline parallelism "
				  "under %s (DeepSpeed and Megatron-LM refuse it; FSDP2 frameworks "
				  "run it: --framework fsdp)", c->zero, step_framework_name(c->framework));
	if (c->zero == 2 && c->pp > 1 && step_framework_deepspeed(c->framework))
		return errbuf_set(eb, "ZeRO stage 2 does not combine with pipeline parallelism "
				  "under %s (DeepSpeed's pipeline engine refuses it: ZeRO 0 or 1 "
				  "with a pipeline)", step_framework_name(c->framework));
	if (c->dp_replicate > 1 && c->zero < 3)
		return errbuf_set(eb, "--dp-replicate %lu: hybrid sharding shards ZeRO-3/FSDP within "
				  "groups; it needs --zero 3", c->dp_replicate);
	if (c->dp_replicate < 1 || c->dp % c->dp_replicate != 0)
		return errbuf_set(eb, "--dp-replicate %lu does not divide dp = %lu", c->dp_replicate,
				  c->dp);
	return 0;
}

/*
 * The checks in the order step_check runs them, cut where the fields they
 * read change: each part reads only the fields its comment names (and
 * the workload), so a part that refuses at one value of those fields
 * refuses every configuration that shares them, with the same message,
 * once the parts before it pass (search counts whole subtrees so).
 */

/* Sizes >= 1; the layout: pp, layers_first/last, tp, sp, tp_overlap,
 * framework, seq (and dp, cp, ep only for being at least 1). */
static int S_check_layout(const struct workload *w, const struct step_config *c,
			  struct errbuf *eb)
{
	double f, mid, l;

	if (!c->tp || !c->pp || !c->dp || !c->cp || !c->ep)
		return errbuf_set(eb, "parallel sizes must be at least 1");
	if (step_stage_layers(w, c, &f, &mid, &l, eb) < 0)
		return -1;
	if (c->tp_overlap && (c->tp < 2 || !c->sp || c->framework == FW_DEEPSPEED_2021))
		return errbuf_set(eb, "--tp-comm-overlap overlaps the sequence-parallel collectives "
				  "with their GEMMs (Transformer Engine's userbuffers under megatron "
				  "or deepspeed, PyTorch's async TP under fsdp): it needs tp above 1, "
				  "--sequence-parallel and a framework other than deepspeed-2021");
	if (fmod(w->heads, (double)c->tp) != 0 || fmod(w->kv_heads, (double)c->tp) != 0)
		return errbuf_set(eb, "tensor-parallel size %lu does not divide the %.15g heads "
				  "and %.15g key/value heads", c->tp, w->heads, w->kv_heads);
	if (!(c->seq >= 1) || c->seq != floor(c->seq))
		return errbuf_set(eb, "sequence length must be a whole number >= 1, got %g", c->seq);
	return 0;
}

/* Context parallelism: cp, seq.  With sliding-window layers the ring's
 * steps and the all-gather would carry only the keys a window reaches,
 * which is not modelled (models/step.md, "Attention").  Under DeepSpeed
 * the sequence is sharded by Ulysses' all-to-all of the heads
 * (deepspeed/sequence/layer.py, DistributedAttention), not modelled: its
 * cp is priced in the forms here, and step says so. */
static int S_check_cp(const struct workload *w, const struct step_config *c,
		      struct errbuf *eb)
{
	if (c->cp > 1 && workload_windowed(w))
		return errbuf_set(eb, "context parallelism with sliding-window attention is not "
				  "modelled (%s: %.15g of %.15g layers attend over %.15g keys); "
				  "use cp 1", w->name[0] ? w->name : "the model", w->window_layers,
				  w->layers, w->window);
	if (fmod(c->seq, (double)c->cp) != 0)
		return errbuf_set(eb, "context-parallel size %lu does not divide the sequence "
				  "length %.15g", c->cp, c->seq);
	return 0;
}

/* Experts: ep, etp, tp, cp, dp, sp, moe_imbalance, capacity_given. */
static int S_check_experts(const struct workload *w, const struct step_config *c,
			   struct errbuf *eb)
{
	if (c->ep > 1 && (w->experts < 2 || fmod(w->experts, (double)c->ep) != 0))
		return errbuf_set(eb, "expert-parallel size %lu does not divide the %.15g experts",
				  c->ep, w->experts);
	return S_check_moe(w, c, eb);
}

/* The batch: micro_batch, global_batch, dp. */
static int S_check_batch(const struct step_config *c, struct errbuf *eb)
{
	double B = S_global(c), db = (double)c->dp * c->micro_batch, m;

	if (!(c->micro_batch >= 1) || c->micro_batch != floor(c->micro_batch))
		return errbuf_set(eb, "micro-batch must be a whole number >= 1, got %g",
				  c->micro_batch);
	m = B / db;
	if (!(B >= 1) || m != floor(m) || m < 1)
		return errbuf_set(eb, "global batch %.15g is not a multiple of dp x micro-batch = %.15g",
				  B, db);
	return 0;
}

/* DeepSeek-V3's recomputation (arXiv:2412.19437, §3.2.3, §3.3.3) is
 * stated for RMSNorm and SwiGLU layers; GPT's LayerNorm, GELU and
 * dropout masks are another save list. */
static int S_check_recompute(const struct workload *w, const struct step_config *c,
			     struct errbuf *eb)
{
	if (c->recompute == RC_NORM_SWIGLU && w->arch == WL_GPT)
		return errbuf_set(eb, "--recompute norm-and-swiglu-inputs keeps RMSNorm's and "
				  "SwiGLU's inputs; %s is GPT (LayerNorm, GELU): choose another "
				  "level", w->name[0] ? w->name : "the model");
	return 0;
}

/* The interleaved schedule: its virtual stages divide the layers, and
 * its m micro-batches fill them. */
static int S_check_interleaved(const struct workload *w, const struct step_config *c, double m,
			       struct errbuf *eb)
{
	/*
	 * Even stages split into v equal chunks; uneven ones (Llama 3's
	 * 126 layers over 16) into v chunks as near equal as the layers
	 * allow, which the model takes as L/v layers each.
	 */
	if (c->virt < 1 ||
	    (fmod(w->layers, (double)c->pp) == 0 && !(c->layers_first > 0) &&
	     !(c->layers_last > 0) && fmod(w->layers, (double)c->pp * (double)c->virt) != 0))
		return errbuf_set(eb, "pp x virtual stages = %lu x %lu does not divide the "
				  "%.15g layers", c->pp, c->virt, w->layers);
	/*
	 * A virtual stage runs its micro-batches in groups of N
	 * (step_vp_group): Megatron-Core takes any m >= pp, PyTorch's
	 * schedule m in rounds of at least pp that divide it.
	 */
	if (m < (double)c->pp)
		return errbuf_set(eb, "the interleaved schedule needs at least pp = %lu "
				  "micro-batches, got %.15g", c->pp, m);
	if (step_vp_group(c, m) == 0)
		return errbuf_set(eb, "the interleaved schedule under %s runs the "
				  "micro-batches in %.15g rounds (m / pp), which do not divide "
				  "m = %.15g (PyTorch's ScheduleInterleaved1F1B)",
				  step_framework_name(c->framework), floor(m / (double)c->pp), m);
	return 0;
}

/*
 * DualPipe runs the pipeline from both ends, half the micro-batches
 * each way (dualpipe/dualpipe.py at 3da1bbe, DualPipe.step: asserts
 * num_ranks % 2 == 0, num_chunks % 2 == 0, num_chunks >= 2 num_ranks).
 */
static int S_check_dualpipe(const struct step_config *c, double m, struct errbuf *eb)
{
	if (c->pp < 2)
		return errbuf_set(eb, "the dualpipe schedule needs a pipeline: give an even "
				  "pp of 2 or more");
	if (c->pp % 2)
		return errbuf_set(eb, "the dualpipe schedule feeds the pipeline from both "
				  "ends and needs an even pp, got %lu", c->pp);
	if (fmod(m, 2) != 0 || m < 2 * (double)c->pp)
		return errbuf_set(eb, "the dualpipe schedule needs an even count of "
				  "micro-batches, at least 2 x pp = %lu, got %.15g",
				  2 * c->pp, m);
	return 0;
}

/* The schedule: schedule, virt, pp, layers_first/last, m (global_batch,
 * dp, micro_batch), the bytes per value and capacity, the recompute level. */
static int S_check_schedule(const struct workload *w, const struct step_config *c,
			    struct errbuf *eb)
{
	double m = S_global(c) / ((double)c->dp * c->micro_batch);

	if (c->schedule != PP_INTERLEAVED && c->virt != 1)
		return errbuf_set(eb, "virtual stages need the interleaved schedule");
	/*
	 * DeepSpeed's pipeline engine trains with one schedule, 1F1B
	 * (deepspeed/runtime/pipe/schedule.py, TrainSchedule; engine.py
	 * builds no other for training).
	 */
	if (c->pp > 1 && c->schedule != PP_1F1B && step_framework_deepspeed(c->framework))
		return errbuf_set(eb, "the %s schedule does not run under %s: DeepSpeed's pipeline "
				  "engine trains with 1F1B alone (--schedule 1f1b, or --framework "
				  "megatron)", pp_schedule_name(c->schedule),
				  step_framework_name(c->framework));
	if (c->schedule == PP_INTERLEAVED && S_check_interleaved(w, c, m, eb) < 0)
		return -1;
	if (c->schedule == PP_DUALPIPE && S_check_dualpipe(c, m, eb) < 0)
		return -1;
	if (!(c->grad_bytes > 0) || !(c->param_bytes > 0) || !(c->optim_bytes >= 0) ||
	    !(c->act_bytes > 0) || !(c->capacity > 0))
		return errbuf_set(eb, "bytes per value and the capacity factor must be positive");
	/*
	 * The interleaved schedule splits each stage into v chunks of whole
	 * layers (Megatron-LM's --num-layers-per-virtual-pipeline-stage): no
	 * stage may hold fewer layers than chunks, save that the first
	 * stage's first chunk may hold the embedding alone and the last
	 * stage's last chunk the output layer and the loss alone (Llama 3,
	 * section 3.3.2: 126 layers and these two in 16 x 8 chunks;
	 * Megatron-Core's account_for_embedding_in_pipeline_split and
	 * account_for_loss_in_pipeline_split).
	 */
	if (c->schedule == PP_INTERLEAVED && c->pp > 1) {
		double first, middle, last, least, v = (double)c->virt;

		if (step_stage_layers(w, c, &first, &middle, &last, eb) < 0)
			return -1;
		least = fmin(first, fmin(middle, last));
		if (middle < v || first + 1 < v || last + 1 < v || (c->pp == 2 && least < v))
			return errbuf_set(eb, "%lu chunks per stage on a stage of %.15g layers (pp %lu): "
					  "a chunk holds at least one layer (or, first and last, the "
					  "embedding or the loss alone)", c->virt, least, c->pp);
	}
	if (S_check_recompute(w, c, eb) < 0)
		return -1;
	return step_offload_check(w, c, eb);
}

int step_check_part(const struct workload *w, const struct step_config *c,
		    enum step_check_part part, struct errbuf *eb)
{
	switch (part) {
	case CHECK_LAYOUT: return S_check_layout(w, c, eb);
	case CHECK_CP: return S_check_cp(w, c, eb);
	case CHECK_EXPERTS: return S_check_experts(w, c, eb);
	case CHECK_SHARDING: return S_check_sharding(c, eb);
	case CHECK_BATCH: return S_check_batch(c, eb);
	case CHECK_SCHEDULE: return S_check_schedule(w, c, eb);
	default: return errbuf_set(eb, "no such part of the check");
	}
}

int step_check(const struct workload *w, const struct step_config *c, struct errbuf *eb)
{
	int part;

	for (part = 0; part < CHECK_PARTS; part++)
		if (step_check_part(w, c, (enum step_check_part)part, eb) < 0)
			return -1;
	return 0;
}

static int S_run(const struct workload *w, const struct step_config *c,
		 const struct step_compute *cs, struct step_pricing *prp, double mem_limit_B,
		 struct step_result *r, struct errbuf *eb);

int step_run(const struct workload *w, const struct step_config *c,
	     const struct step_compute *cs, const struct cost_model *cm, enum step_band band,
	     struct step_result *r, struct errbuf *eb)
{
	struct step_pricing pr = { cm, ALGO_AUTO, band, 0, 0, NULL };

	return S_run(w, c, cs, &pr, 0, r, eb);
}

int step_run_stated(const struct workload *w, const struct step_config *c,
		    const struct step_compute *cs, const struct cost_model *cm, int band,
		    struct step_result *r, struct step_stated *st, struct errbuf *eb)
{
	struct step_result rb;
	int i;

	memset(st, 0, sizeof(*st));
	if (step_run(w, c, cs, cm, STEP_BAND_NONE, r, eb) < 0)
		return -1;
	st->lo_s = r->step_lo_s;
	st->hi_s = r->step_hi_s;
	st->coll_lo_s = st->coll_hi_s = r->step_s;
	if (!band || isnan(r->step_s))
		return 0;
	for (i = 0; i < 2; i++) {
		if (step_run(w, c, cs, cm, i ? STEP_BAND_HI : STEP_BAND_LO, &rb, eb) < 0)
			return -1;
		*(i ? &st->hi_s : &st->lo_s) = i ? rb.step_hi_s : rb.step_lo_s;
		*(i ? &st->coll_hi_s : &st->coll_lo_s) = rb.step_s;
		st->cells |= rb.band_cells;
		if (rb.band_missing && !st->missing)
			st->missing = rb.band_missing;
	}
	st->banded = !st->missing;
	if (!st->banded) {
		st->lo_s = r->step_lo_s;
		st->hi_s = r->step_hi_s;
	}
	/* one band for every view of the step: its table, JSON and figure */
	r->step_lo_s = st->lo_s;
	r->step_hi_s = st->hi_s;
	return 0;
}

int step_run_memo(const struct workload *w, const struct step_config *c,
		  const struct step_compute *cs, const struct cost_model *cm,
		  struct step_memo *memo, struct step_result *r, struct errbuf *eb)
{
	struct step_pricing pr = { cm, ALGO_AUTO, STEP_BAND_NONE, 0, 0, memo };

	return S_run(w, c, cs, &pr, 0, r, eb);
}

int step_run_fit(const struct workload *w, const struct step_config *c,
		 const struct step_compute *cs, const struct cost_model *cm,
		 struct step_memo *memo, double memory_B, struct step_result *r, struct errbuf *eb)
{
	struct step_pricing pr = { cm, ALGO_AUTO, STEP_BAND_NONE, 0, 0, memo };

	return S_run(w, c, cs, &pr, memory_B > 0 ? memory_B : 0, r, eb);
}

void step_zero_ranks(const struct step_config *c, double *zd, double *ze)
{
	double t = (double)c->tp, d = (double)c->dp, cp = (double)c->cp, e = (double)c->ep;

	*zd = d * cp / (double)c->dp_replicate;
	*ze = t * d * cp / ((double)step_etp(c) * e);
}

/* The sizes, the stage and what the result says of them before any time. */
static int S_run_init(struct run *u, const struct workload *w, const struct step_config *c,
		      const struct step_compute *cs, struct step_pricing *prp,
		      struct step_result *r, struct errbuf *eb)
{
	memset(u, 0, sizeof(*u));
	u->w = w;
	u->c = c;
	u->cs = cs;
	u->prp = prp;
	u->r = r;
	u->kg = cs ? cs->kgpu : NULL;
	u->t = (double)c->tp, u->p = (double)c->pp, u->d = (double)c->dp, u->cp = (double)c->cp;
	u->e = (double)c->ep, u->v = (double)c->virt, u->b = c->micro_batch, u->s = c->seq;
	u->h = w->hidden, u->l = w->layers, u->hkv = workload_kv_width(w);
	u->hq = workload_q_width(w);
	u->E = w->experts > 1 ? w->experts : 1, u->k = w->experts > 1 ? w->top_k : 1;
	u->rate = u->fwd_l = u->bwd_l = u->fwd_mb = u->bwd_mb = u->rec_mb = NAN;
	u->G = c->gpus_per_node;
	u->full = c->recompute == RC_FULL;
	u->moe = u->E > 1;
	u->megatron_layers = step_framework_megatron_layers(c->framework);
	u->sms = u->kg ? u->kg->sms : 0;

	if (step_check(w, c, eb) < 0)
		return -1;
	memset(r, 0, sizeof(*r));
	if (step_stage_layers(w, c, &u->Lf, &u->Lm, &u->Ll, eb) < 0)
		return -1;
	workload_layer_params(w, &u->lp);
	/* The ledger's stage: a middle one, or the larger edge without one. */
	u->L = c->pp > 2 ? u->Lm : fmax(u->Lf, u->Ll);
	step_stage_dense(u);
	u->m = S_global(c) / (u->d * u->b);
	u->sr = u->s / u->cp;                    /* tokens of one rank's chunk of a sequence */
	u->A = u->b * u->sr * u->h * c->act_bytes;  /* one layer's input for one micro-batch */
	r->layers = u->L;
	r->layers_first = u->Lf;
	r->layers_last = u->Ll;
	r->microbatches = u->m;
	r->gpus = u->t * u->p * u->d * u->cp;
	r->tokens = u->m * u->d * u->b * u->s;
	r->fused = c->attention == ATTN_FUSED || c->attention == ATTN_FLASH2 ||
		   (c->attention == ATTN_AUTO && (!u->kg || u->kg->fused_ok));
	return 0;
}

static int S_run(const struct workload *w, const struct step_config *c,
		 const struct step_compute *cs, struct step_pricing *prp, double mem_limit_B,
		 struct step_result *r, struct errbuf *eb)
{
	struct run u;
	int i;

	if (S_run_init(&u, w, c, cs, prp, r, eb) < 0)
		return -1;
	/*
	 * The memory reads the sizes alone, no time: a configuration that
	 * cannot fit is not priced (step_run_fit).
	 */
	if (mem_limit_B > 0) {
		step_zero_ranks(c, &u.zd, &u.ze);
		step_memory_stages(&u);
		if (r->mem.total_B > mem_limit_B)
			return 1;
	}
	step_shape_flops(&u);
	if (step_shape_compute(&u, eb) < 0)
		return -1;
	/* each dimension's rows per micro-batch, then what of them hides */
	if (step_ledger_tp(&u, eb) < 0)
		return -1;
	step_overlap_tp(&u);
	if (step_ledger_cp(&u, eb) < 0)
		return -1;
	step_overlap_cp(&u);
	if (step_ledger_ep(&u, eb) < 0)
		return -1;
	step_overlap_ep(&u);
	if (step_ledger_pp(&u, eb) < 0)
		return -1;
	step_overlap_pp(&u);
	/* the per-micro-batch rows: what hiding them costs, then their sums */
	step_overlap_sm_share(r, 0, u.sms);
	step_overlap_dualpipe(&u);
	for (i = 0; i < r->nrows; i++) {
		r->mb_comm_s += r->rows[i].time_s;
		r->mb_exposed_s += r->rows[i].exposed_s;
	}
	/* the data-parallel rows per step, the stages' own, then the step */
	if (step_ledger_dp(&u, eb) < 0 || step_overlap_dp(&u, eb) < 0 ||
	    step_ledger_edges(&u, eb) < 0 || step_sched_step(&u, eb) < 0)
		return -1;
	/* the best case becomes the expected step (step_expect.h) */
	step_expect(w, c, r->kernels ? u.kg : NULL, cs ? cs->power_share : 0,
		    cs ? cs->peak_flops : 0, NULL, r);
	/* the memory reads the sizes alone: already filled when checked above */
	if (!(mem_limit_B > 0))
		step_memory_stages(&u);
	return 0;
}
