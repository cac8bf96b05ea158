/*
 * RCCL's latencies, the ones its tuning takes for AMD Instinct MI300
 * nodes (RCCL at github.com/ROCm/rccl; read at its 2.21.5 commit 0cbce2a7
 * and in the tuning.cc of 2.22.3 and 2.26, which repeat them).
 *
 * RCCL keeps NCCL's formulas (ncclTopoTuneModel) but reads the per-step
 * latencies from one of its tuning models, rcclTuningModel[topo->tuning]
 * of src/graph/tuning.cc; a node takes the model its Rome-model match
 * names.  Eight gfx942 GPUs joined all to all by xGMI, with 0, 8 or 16
 * NICs, match rome_model_79, _81 and _84 of src/graph/rome_models.cc,
 * all "tuning=5"; gfx950's tuning_model_6 repeats model 5's latencies.
 * models/nccl.md, "RCCL's latencies", works an example.
 */
#include "nccl_model.h"

/* RCCL's base latencies of Tree, Ring and CollNet, µs, LL, LL128, Simple
 * (rccl src/graph/tuning.cc baseLat, every row the same) */
static const double rccl_base_lat[NCCL_NPROTO] = { 12.0, 12.0, 17.0 };

/* Per-step latencies of Tree and Ring, µs, LL, LL128, Simple, over xGMI
 * (RCCL's NVLINK row), PCI and the network: tuning_model_5.hwLat, rccl
 * src/graph/tuning.cc.  The 320 µs of Ring/Simple a network step is
 * RCCL's: it keeps Ring/Simple off several nodes but at the largest
 * sizes.  LL128 is off on these nodes (tuning.cc: only with ENABLE_LL128
 * and the model's ll128Enabled, which rome_model_79/81/84 do not set). */
static const double rccl_mi300_lat[NCCL_NHW][2][NCCL_NPROTO] = {
	{ { 0.9, 0.9, 2.3 }, { 0.8, 0.8, 2.1 } },      /* xGMI: Tree, Ring */
	{ { 2.2, 2.2, 5.7 }, { 2.2, 2.2, 5.7 } },      /* PCI */
	{ { 10.5, 10.5, 25.0 }, { 9.5, 9.5, 320.0 } }, /* network */
};

double nccl_hw_lat(const struct nccl_params *p, int amd, int hw, int a, int pr)
{
	if (amd && (a == NCCL_TREE || a == NCCL_RING))
		return rccl_mi300_lat[hw][a == NCCL_RING][pr];
	return p->hw_lat[hw][a][pr];
}

double nccl_base_lat(const struct nccl_params *p, int amd, int a, int pr)
{
	return amd && a <= NCCL_COLLNET_CHAIN ? rccl_base_lat[pr] : p->base_lat[a][pr];
}
