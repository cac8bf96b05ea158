#ifndef COMMTIME_WORKLOAD_H
#define COMMTIME_WORKLOAD_H

#include "util.h"
#include "preset.h"

/*
 * Training workloads: the shape of a transformer language model, read from
 * a kind = workload preset, and its parameter count.  The formulas and
 * their sources are in models/workloads.md.
 */

enum workload_arch {
	WL_GPT,     /* GPT-2/GPT-3/Megatron: GELU MLP, LayerNorm, biases, learned
	               positions; the count is Narayanan et al. 2021, Eq. 2 */
	WL_LLAMA    /* Llama: SwiGLU MLP, RMSNorm, no biases, rotary positions */
};

/* How a layer's attention and MLP are joined (models/workloads.md,
 * "Parallel blocks"). */
enum workload_block {
	WL_SEQUENTIAL,  /* x + attn(n1(x)), then + mlp(n2(.)): GPT, Llama */
	WL_PARALLEL,    /* x + attn(n1(x)) + mlp(n2(x)): two norms of the one
			   input (GPT-NeoX, Falcon 40B and 180B) */
	WL_PARALLEL_ONE_NORM /* x + attn(n(x)) + mlp(n(x)): one norm (GPT-J) */
};

struct workload {
	char name[64];
	enum workload_arch arch;
	double layers;      /* l: transformer layers */
	double hidden;      /* h: hidden size */
	double heads;       /* attention heads */
	double kv_heads;    /* key/value heads (grouped-query attention); = heads if absent */
	double head_dim;    /* d: one head's width; 0 (absent): hidden/heads */
	double ffn;         /* f: MLP inner size; GPT default 4h, required for Llama */
	double vocab;       /* V: vocabulary size */
	double seq;         /* s: sequence length */
	int tied;           /* output layer shares the embedding matrix */
	enum workload_block block; /* parallel_block: sequential unless given */
	double experts;     /* E: MLP experts per layer (mixture of experts); 1 = dense */
	double top_k;       /* k: experts each token is routed to; 1 when dense */
	double shared;      /* S: shared experts of the routed size every token runs
			       through beside its k (DeepSeekMoE); 0 if absent */
	double dense_layers;/* N: the first N layers dense, MLP dense_ffn wide; 0 if absent */
	double dense_ffn;   /* their MLP's inner size (0 when dense_layers is absent) */
	/* Multi-head latent attention (DeepSeek-V2 and V3); kv_lora = 0: none.
	 * head_dim is then the query and key's part without rotary position
	 * (qk_nope_head_dim), rope their rotary part, v_head the value's. */
	double q_lora;      /* q_lora_rank: the queries' low-rank width; 0: q_proj h x a(d+r) */
	double kv_lora;     /* kv_lora_rank: the keys' and values' compressed width */
	double rope;        /* qk_rope_head_dim r */
	double v_head;      /* v_head_dim */
	/* Sliding-window attention (GPT-OSS, Gemma 2, Mistral 7B v0.1): in
	 * window_layers of the layers each query attends to the window keys
	 * ending at itself; 0 (absent): every layer attends to all keys. */
	double window;      /* window: keys a query spans, itself included */
	double window_layers; /* window_layers: the layers that do so */
	double published;   /* parameter count published for the model; NaN if absent */
};

/*
 * Read a kind = workload preset.  Besides the keys below, for DeepSeek's
 * shapes (models/workloads.md): dense_layers with dense_ffn (the first
 * layers dense, in an MoE model), shared_experts (S >= 0), and
 * multi-head latent attention: kv_lora_rank, qk_rope_head_dim,
 * v_head_dim and head_dim together, q_lora_rank optional; sliding-window
 * attention: window (>= 1) with window_layers (1 to layers; default all).
 * Required keys: arch (gpt or llama),
 * layers, hidden, heads, vocab, seq; ffn for llama; optional kv_heads,
 * tied (yes/no; default yes for gpt, no for llama), head_dim, published,
 * parallel_block (no, two-norms or one-norm; a dense model only), and for a
 * mixture-of-experts model experts (E >= 2) with top_k (1 <= k <= E).
 * Returns 0, or -1 with eb filled ("file:line: ..." for a bad value,
 * "preset 'x' is a link, not a workload", a missing key).
 */
int workload_from_preset(const struct preset *p, struct workload *w, struct errbuf *eb);

/*
 * Parameter count of a workload (h_q = a·d, the queries' width; h without
 * a head_dim key).
 * GPT: per layer 2h·h_q + 2h·h_kv + h_q + h + 2h_kv (attention with biases)
 *      + 2hf + f + h (MLP with biases) + 4h (two LayerNorms),
 *      embeddings Vh + sh, plus Vh more when the output layer is untied.
 *      With f = 4h, h_kv = h and tied embeddings this is Eq. 2 of
 *      Narayanan et al. 2021 (megatron_params) exactly; the final
 *      LayerNorm (2h) is left out, as in Eq. 2.
 * Llama: per layer 2h·h_q + 2h·h_kv (attention, no biases) + 3hf (SwiGLU)
 *      + 2h (two RMSNorms); embeddings Vh, untied output layer Vh,
 *      final RMSNorm h.
 * A parallel block with one norm has one norm a layer (2h GPT, h Llama).
 * h_kv = a_kv·d.  A mixture-of-experts layer holds E MLPs and
 * a router h·E in place of the one MLP (Shazeer et al. 2017; Jiang et
 * al. 2024, Mixtral).
 */
double workload_params(const struct workload *w);

/* Parameters a token multiplies by or looks up: the dense layers, each MoE
 * layer's attention, router, norms, k routed and S shared experts, the
 * embedding and output layer (DeepSeek-V3's 37B "activated"). */
double workload_active_params(const struct workload *w);

/* Attention and MLP in parallel from one input (parallel_block). */
int workload_parallel(const struct workload *w);

/* Multi-head latent attention in w (kv_lora_rank given). */
int workload_mla(const struct workload *w);

/* The dense layer of an MoE model with dense_layers: w with its MLP
 * dense_ffn wide, no experts.  Without dense_layers, d = *w. */
void workload_dense_layer(const struct workload *w, struct workload *d);

/* Layers among [first, first + n) that are dense (of the first N). */
double workload_dense_in(const struct workload *w, double first, double n);

/* Parameters all layers multiply a token by (for the FLOPs). */
double workload_matmul_params(const struct workload *w);

/*
 * The attention core's width per token: a·(d_qk + d_v)/2, so that 4·s·it
 * is QK^T and its use on V forward (a·d = h_q without multi-head latent
 * attention, where d_qk = d + r and d_v = v_head_dim).
 */
double workload_core_width(const struct workload *w);

/* Some layers attend over a sliding window (window given). */
int workload_windowed(const struct workload *w);

/*
 * The keys a query's scores span, the mean over the layers, for the FLOP
 * count 4·span·h_q a token and layer forward: s in a layer that attends
 * to all keys, min(window, s) in a sliding-window one (models/step.md,
 * "Attention").
 */
double workload_attn_span(const struct workload *w, double s);

/*
 * The pairs of a kind = workload preset that reads back as w (name,
 * kind, description, the shape, published when known): n pairs into kv
 * (up to WORKLOAD_KV_MAX), their values in buf (size len).  Returns n.
 */
#define WORKLOAD_KV_MAX 28
size_t workload_to_kv(const struct workload *w, const char *description,
		      struct preset_kv *kv, char *buf, size_t len);

/*
 * The attention's widths: one head's (d, the head_dim key, else h/a),
 * the queries' a·d and the keys' (and values') a_kv·d.  Without head_dim
 * they are h and h·a_kv/a; Qwen3 sets d = 128 with h/a = 64
 * (models/workloads.md).
 */
double workload_head_dim(const struct workload *w);
double workload_q_width(const struct workload *w);
double workload_kv_width(const struct workload *w);

/*
 * One transformer layer's parameters, split the way parallelism splits
 * them (see models/step.md):
 *   attn    Q, K, V, O matrices (and their biases for GPT)
 *   mlp     one MLP (one expert of a mixture-of-experts layer)
 *   other   norms and the router: replicated, never sharded
 *   matmul  parameters each token multiplies by, for FLOPs: the four
 *           attention matrices and k MLPs' matrices (no biases, norms)
 *   shared  the S shared experts (an MoE layer): S·mlp, split as a
 *           dense MLP is
 * A whole layer holds attn + E·mlp + shared + other.  Multi-head latent
 * attention's attn: q down h·q_lora, q up q_lora·a(d+r), kv down
 * h·(kv_lora+r), kv up kv_lora·a(d+v), output a·v·h; other adds its
 * two norms q_lora + kv_lora (DeepSeek-V3's modeling_deepseek.py).
 */
struct layer_params {
	double attn, mlp, other, matmul;
	double shared;   /* the S shared experts, S·mlp, split like a dense MLP */
};
void workload_layer_params(const struct workload *w, struct layer_params *lp);

/* Parameters outside the layers: embeddings, output layer, final norm. */
double workload_embed_params(const struct workload *w);

/*
 * Narayanan et al. 2021 (SC'21), Eq. 2: 12lh²(1 + 13/(12h) + (V+s)/(12lh))
 * parameters, for l layers, hidden size h, vocabulary V, sequence length s.
 */
double megatron_params(double l, double h, double V, double s);

/*
 * A parameter count as people write it: a plain number ("7.5e9",
 * "124439808") or one with a decimal suffix k/K (10³), M (10⁶), B or G
 * (10⁹), T (10¹²): "7B", "6.74B", "124M".  Must be > 0 and finite.
 * Returns 0, or -1 with eb filled: "cannot parse parameter count '7X'".
 */
int workload_parse_count(const char *s, double *count, struct errbuf *eb);

/*
 * A count for people: "6.738 billion", "124.4 million", "5000"
 * (4 significant digits).  Writes into buf (size len) and returns buf.
 */
char *workload_fmt_count(char *buf, size_t len, double count);

/*
 * The note commands print beside a workload's parameter count:
 * "6.738 billion, computed from the shape; published 6.74 billion".
 */
char *workload_describe(char *buf, size_t len, const struct workload *w);

#endif
