/*
 * NCCL's channel search on a direct NVLink graph (no NVSwitch), one node:
 * ncclTopoCompute and its depth-first search, src/graph/search.cc of NCCL
 * 2.30.7 (tag v2.30.7-1), on the paths src/graph/paths.cc computes.  The
 * order in which GPUs are tried, the time limits, the float arithmetic of
 * the bandwidth left on each link and the comparisons are NCCL's, so that
 * the channels found are the ones NCCL finds.  models/nccl.md, "Channels
 * on NVLink without a switch".
 *
 * What is simplified: PCIe is one link up and one down per GPU (and one
 * socket link each way for SYS paths), not NCCL's tree of switches; the
 * search never reaches it on the meshes of models/nccl.md, where every
 * ring is found on NVLink.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nccl_search.h"

#define PATH_LOC 0
#define PATH_NVL 1
#define PATH_NVB 2
#define PATH_PIX 4
#define PATH_PXB 5
#define PATH_PHB 8
#define PATH_SYS 9
#define PATH_DIS 11

#define MAX_CH 32                           /* MAXCHANNELS / 2: ring maxChannels */
#define GLOBAL_TIMEOUT (1LL << 19)          /* NCCL_SEARCH_GLOBAL_TIMEOUT */
#define TIMEOUT (1 << 14)                   /* NCCL_SEARCH_TIMEOUT, _TREE */
#define TIMEOUT_SAME (1 << 8)               /* NCCL_SEARCH_TIMEOUT_SAMECHANNELS */
#define FORCED_PCI 1
#define FORCED_REPLAY 2

/* RCCL's speeds inside one node (rccl src/graph/search.cc:901) */
static const float rccl_intra[] = { 48.0f, 24.0f, 20.0f, 18.0f, 15.0f, 12.0f, 10.0f, 9.0f, 7.0f,
				    6.0f, 5.0f, 4.0f, 3.0f, 2.4f, 1.2f, 0.24f, 0.12f };
/* speeds of search.cc:1051-1067, inside one node */
static const float speed_intra[] = { 40.0f, 30.0f, 20.0f, 18.0f, 15.0f, 12.0f, 10.0f, 9.0f, 7.0f,
				     6.0f, 5.0f, 4.0f, 3.0f };
static const float sm90_intra[] = { 60.0f, 50.0f, 40.0f, 30.0f, 24.0f, 20.0f, 15.0f, 12.0f, 11.0f,
				    6.0f, 3.0f };
static const float sm100_intra[] = { 90.0f, 80.0f, 70.0f, 60.0f, 50.0f, 45.0f, 40.0f, 30.0f, 24.0f,
				     20.0f, 19.0f, 18.0f };

#define MAX_LINKS (NCCL_MAX_LOCAL * NCCL_MAX_LOCAL + 2 * NCCL_MAX_LOCAL + 2)
#define MAX_HOPS 3

struct path {
	int type;             /* PATH_* */
	float bw;             /* the slowest link of the path */
	int count;            /* links (hops) */
	int link[MAX_HOPS];
	int is_pci[MAX_HOPS];
};

struct sys {
	int n, sm, intel;
	float link_bw[MAX_LINKS];
	int nlinks;
	struct path p[NCCL_MAX_LOCAL][NCCL_MAX_LOCAL];
	float max_bw, total_bw;
	int min_type, max_type;
};

struct graph {
	int pattern, nchannels, min_ch, max_ch, same_channels;
	float bw_intra, bw_inter;
	int type_intra, nhops;
	int intra[MAX_CH][NCCL_MAX_LOCAL];
};

struct search {
	struct sys *s;
	struct graph *save;
	unsigned long long used[NCCL_MAX_LOCAL];
	long steps;
};

/* search.cc:79: "manipulating floats often results in rounding errors" */
static void S_sub_round(float *a, float b)
{
	*a = roundf((*a - b) * 1000) / 1000;
}

static float S_socket_bw(enum nccl_cpu cpu)
{
	/* topo.h:26-34: AMD_BW, ARM_BW; Intel as Sapphire Rapids, SRP_QPI_BW */
	return cpu == NCCL_CPU_AMD ? 16.0f : cpu == NCCL_CPU_ARM ? 6.0f : 22.0f;
}

/*
 * The paths of paths.cc ncclTopoSetPaths between GPUs: a direct NVLink
 * (NVL), else two NVLinks through another GPU (NVB; the widest, the first
 * such GPU on a tie), else PCIe of the machine's path type.
 */
static void S_paths(const struct nccl_machine *m, struct sys *s,
		    int nvl_id[NCCL_MAX_LOCAL][NCCL_MAX_LOCAL], float pci, int up, int down, int sys)
{
	int n = s->n, i, j, k;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			struct path *p = &s->p[i][j];
			if (i == j) {
				p->type = PATH_LOC;
				p->bw = 5000.0f;   /* LOC_BW */
				continue;
			}
			if (nvl_id[i][j] >= 0) {
				p->type = PATH_NVL;
				p->bw = s->link_bw[nvl_id[i][j]];
				p->count = 1;
				p->link[0] = nvl_id[i][j];
				continue;
			}
			for (k = 0; k < n; k++) {
				float bw;
				if (nvl_id[i][k] < 0 || nvl_id[k][j] < 0)
					continue;
				bw = fminf(s->link_bw[nvl_id[i][k]], s->link_bw[nvl_id[k][j]]);
				if (p->type != PATH_NVB || bw > p->bw) {
					p->type = PATH_NVB;
					p->bw = bw;
					p->count = 2;
					p->link[0] = nvl_id[i][k];
					p->link[1] = nvl_id[k][j];
				}
			}
			if (p->type == PATH_NVB)
				continue;
			p->type = m->pci_path[i][j] ? m->pci_path[i][j] : (int)m->pcie_path;
			p->bw = pci;
			p->link[0] = up + i;
			p->is_pci[0] = 1;
			if (p->type == PATH_SYS) {
				p->link[1] = sys + (i > j);
				p->link[2] = down + j;
				p->is_pci[2] = 1;
				p->count = 3;
				p->bw = fminf(pci, S_socket_bw(m->cpu));
			} else {
				p->link[1] = down + j;
				p->is_pci[1] = 1;
				p->count = 2;
			}
		}
}

/* search.cc:19-52 ncclTopoSearchInit: maxBw, the widest path between
 * two GPUs; totalBw, the NVLinks of a GPU added up (or its PCIe link) */
static void S_search_init(struct sys *s, int nvl_id[NCCL_MAX_LOCAL][NCCL_MAX_LOCAL], float pci)
{
	int n = s->n, i, j;

	s->min_type = PATH_SYS;
	s->max_type = PATH_LOC;
	for (i = 0; i < n; i++) {
		float nv = 0;
		for (j = 0; j < n; j++) {
			if (i == j)
				continue;
			if (s->p[i][j].bw > s->max_bw)
				s->max_bw = s->p[i][j].bw;
			if (s->p[i][j].type < s->min_type)
				s->min_type = s->p[i][j].type;
			if (s->p[i][j].type > s->max_type)
				s->max_type = s->p[i][j].type;
			if (nvl_id[i][j] >= 0)
				nv += s->link_bw[nvl_id[i][j]];
		}
		if (fmaxf(nv, pci) > s->total_bw)
			s->total_bw = fmaxf(nv, pci);
	}
}

/* The GPUs of one node, their links (NVLinks, PCIe up and down, the socket
 * link each way) and the paths between them; -1 when the search does not apply. */
static int S_build(const struct nccl_machine *m, struct sys *s)
{
	int n = m->gpus_per_node, i, j;
	float link = (float)(m->nvlink_bw > 0 ? m->nvlink_bw : nccl_nvlink_bw(m->sm));
	float pci = (float)nccl_pcie_bw(m->pcie_gen, m->pcie_width);
	int nvl_id[NCCL_MAX_LOCAL][NCCL_MAX_LOCAL], up, down, sys;

	if (!m->mesh || n < 2 || n > NCCL_MAX_LOCAL)
		return -1;
	memset(s, 0, sizeof *s);
	s->n = n;
	s->sm = m->sm;
	s->intel = m->cpu == NCCL_CPU_INTEL;
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			nvl_id[i][j] = -1;
			if (i != j && m->nvl[i][j]) {
				nvl_id[i][j] = s->nlinks;
				s->link_bw[s->nlinks++] = m->nvl[i][j] * link;
			}
		}
	up = s->nlinks;
	for (i = 0; i < n; i++)
		s->link_bw[s->nlinks++] = pci;
	down = s->nlinks;
	for (i = 0; i < n; i++)
		s->link_bw[s->nlinks++] = pci;
	sys = s->nlinks;
	s->link_bw[s->nlinks++] = S_socket_bw(m->cpu);
	s->link_bw[s->nlinks++] = S_socket_bw(m->cpu);
	S_paths(m, s, nvl_id, pci, up, down, sys);
	S_search_init(s, nvl_id, pci);
	return 0;
}

static int S_tree(int pattern)
{
	return pattern == NCCL_PATTERN_BALANCED_TREE || pattern == NCCL_PATTERN_TREE ||
	       pattern == NCCL_PATTERN_SPLIT_TREE;
}

/* search.cc followPath and ncclTopoFollowPath: 1 when the path from a to b
 * had the bandwidth (now taken), 0 when not (nothing taken). */
static int S_follow(struct search *x, struct graph *g, int a, int b, float mult)
{
	struct sys *s = x->s;
	const struct path *p;
	float bw, pci_bw;
	int step;

	if (a < 0)
		return 1;
	p = &s->p[a][b];
	if (p->type >= PATH_DIS)
		return 0;
	if (mult == 1 && p->type > g->type_intra)
		return 0;
	if (mult == 1 && S_tree(g->pattern) && s->p[b][a].type > g->type_intra)
		return 0;
	bw = g->bw_intra * mult;
	/* P2P through an Intel host bridge costs 6/5 (INTEL_P2P_OVERHEAD) */
	pci_bw = p->type == PATH_PHB && s->intel ? bw * 6 / 5 : bw;
	for (step = 0; step < p->count; step++) {
		float fw = p->is_pci[step] ? pci_bw : bw;
		if (s->link_bw[p->link[step]] < fw)
			break;
		S_sub_round(&s->link_bw[p->link[step]], fw);
	}
	if (step < p->count) {
		while (step-- > 0) {
			float fw = p->is_pci[step] ? pci_bw : bw;
			S_sub_round(&s->link_bw[p->link[step]], -fw);
		}
		return 0;
	}
	g->nhops += (int)mult * p->count;
	return 1;
}

struct score {
	int g, start, hops;
	int bw;
};

static int S_cmp_score(const void *a, const void *b)
{
	const struct score *s1 = a, *s2 = b;
	int d;

	if ((d = s2->bw - s1->bw))
		return d;
	if ((d = s1->hops - s2->hops))
		return d;
	return s1->start - s2->start;
}

static void S_rec(struct search *x, struct graph *g, long *time);

static void S_rec_gpu(struct search *x, struct graph *g, int gpu, int step, int back_first,
		      int forced, long *time);

/* ncclTopoSearchTryGpu */
static void S_try(struct search *x, struct graph *g, int step, int back_first, int forced,
		  long *time, int from, int to)
{
	unsigned long long flag = 1ULL << g->nchannels;

	if (!S_follow(x, g, from, to, 1))
		return;
	x->used[to] ^= flag;
	S_rec_gpu(x, g, to, step, back_first, forced, time);
	x->used[to] ^= flag;
	if (from >= 0)
		S_follow(x, g, from, to, -1);
}

/* ncclTopoCompareGraphs */
static int S_better(const struct graph *g, const struct graph *ref)
{
	if (g->nchannels < g->min_ch)
		return 0;
	if (g->nchannels * g->bw_intra > ref->nchannels * ref->bw_intra)
		return 1;
	if (g->nchannels * g->bw_intra < ref->nchannels * ref->bw_intra)
		return 0;
	return g->pattern == ref->pattern && g->nhops < ref->nhops;
}

/* ncclTopoSearchRecGpu, without a network */
static void S_rec_gpu(struct search *x, struct graph *g, int gpu, int step, int back_first,
		      int forced, long *time)
{
	int n = x->s->n, i;

	if (*time <= 0)
		return;
	(*time)--;
	x->steps++;
	if (step == n) {
		g->nchannels++;
		if (S_better(g, x->save)) {
			*x->save = *g;
			if (g->nchannels == g->max_ch)
				*time = -1;
		}
		if (g->nchannels < g->max_ch)
			S_rec(x, g, time);
		g->nchannels--;
		return;
	}
	g->intra[g->nchannels][step] = gpu;
	if (step < n - 1) {
		int next[NCCL_MAX_LOCAL], count = 0;
		if (forced == FORCED_PCI) {
			next[count++] = step + 1;
		} else if (forced == FORCED_REPLAY) {
			next[count++] = g->intra[g->nchannels - 1][step + 1];
		} else {
			/* ncclTopoSearchNextGpuSort: the widest path first, then
			 * the fewest hops, then the next index after this GPU */
			struct score sc[NCCL_MAX_LOCAL];
			unsigned long long flag = 1ULL << g->nchannels;
			for (i = 1; i < n; i++) {
				int h = (gpu + i) % n;
				if (x->used[h] & flag)
					continue;
				sc[count].g = h;
				sc[count].start = i;
				sc[count].hops = x->s->p[gpu][h].count;
				sc[count].bw = (int)x->s->p[gpu][h].bw;
				count++;
			}
			qsort(sc, (size_t)count, sizeof sc[0], S_cmp_score);
			for (i = 0; i < count; i++)
				next[i] = sc[i].g;
		}
		for (i = 0; i < count; i++)
			S_try(x, g, step + 1, back_first, forced, time, gpu, next[i]);
	} else if (step == back_first) {
		int first = g->intra[g->nchannels][0];
		if (S_follow(x, g, gpu, first, 1)) {
			S_rec_gpu(x, g, first, step + 1, -1, forced, time);
			S_follow(x, g, gpu, first, -1);
		}
	} else {
		S_rec_gpu(x, g, gpu, n, -1, forced, time);
	}
}

/* ncclTopoSearchRec, one node */
static void S_rec(struct search *x, struct graph *g, long *time)
{
	int n = x->s->n, back_first = g->pattern == NCCL_PATTERN_RING ? n - 1 : -1, i;

	if (g->nchannels == 0)
		S_try(x, g, 0, back_first, FORCED_PCI, time, -1, 0);
	else
		S_try(x, g, 0, back_first, FORCED_REPLAY, time, -1, g->intra[g->nchannels - 1][0]);
	if (g->same_channels == 0 || g->nchannels == 0)
		for (i = 0; i < n; i++)
			S_try(x, g, 0, back_first, 0, time, -1, i);
}

/* ncclTopoDupChannels */
static void S_dup(struct graph *g, int sm)
{
	int dup, i;

	if (g->nchannels == 0 || g->bw_intra < 25.0f || (sm > 80 && g->bw_intra < 50.0f && g->nchannels > 4))
		return;
	dup = 2 * g->nchannels < g->max_ch ? 2 * g->nchannels : g->max_ch;
	for (i = g->nchannels; i < dup; i++)
		memcpy(g->intra[i], g->intra[i - g->nchannels], sizeof g->intra[i]);
	g->bw_intra /= (float)((dup + g->nchannels - 1) / g->nchannels);
	g->bw_inter /= (float)((dup + g->nchannels - 1) / g->nchannels);
	g->nchannels = dup;
}

/* ncclTopoSplitNvLink: the domain labelling exactly as paths.cc does it */
static int S_split_nvlink(const struct sys *s)
{
	int dom[NCCL_MAX_LOCAL], cnt[NCCL_MAX_LOCAL] = { 0 }, g, p, domains = 0;

	for (g = 0; g < s->n; g++)
		dom[g] = g;
	for (g = 0; g < s->n; g++)
		for (p = g + 1; p < s->n; p++)
			if (s->p[g][p].type == PATH_NVL)
				dom[p] = dom[g];
	for (g = 0; g < s->n; g++)
		cnt[dom[g]]++;
	for (g = 0; g < s->n; g++)
		if (cnt[g] > 1)
			domains++;
	return domains == 2;
}

/* The intra-node bandwidths the search tries, fastest first, for M's GPUs (count in *N). */
static const float *S_speeds(const struct nccl_machine *m, int *n)
{
	if (m->amd) {
		*n = (int)(sizeof rccl_intra / sizeof rccl_intra[0]);
		return rccl_intra;
	} else if (m->sm >= 100) {
		*n = (int)(sizeof sm100_intra / sizeof sm100_intra[0]);
		return sm100_intra;
	} else if (m->sm >= 90) {
		*n = (int)(sizeof sm90_intra / sizeof sm90_intra[0]);
		return sm90_intra;
	}
	*n = (int)(sizeof speed_intra / sizeof speed_intra[0]);
	return speed_intra;
}

/* The graph the search starts from. */
static void S_graph_init(struct graph *graph, const struct sys *s, int pattern, int min_ch,
			 int max_ch, int try_same)
{
	memset(graph, 0, sizeof *graph);
	graph->pattern = pattern;
	graph->min_ch = min_ch < 1 ? 1 : min_ch;
	graph->max_ch = max_ch > MAX_CH || max_ch < 1 ? MAX_CH : max_ch;
	graph->type_intra = s->min_type;
	graph->same_channels = try_same;
	if (pattern == NCCL_PATTERN_RING && S_split_nvlink(s) && graph->max_ch >= 2 && graph->min_ch == 1)
		graph->min_ch = 2;
}

/* The graph found, or the simple order when none was, into F. */
static void S_result(struct graph *graph, const struct sys *s, const struct search *x,
		     struct nccl_found *f)
{
	int i, j;

	if (graph->nchannels == 0) {
		/* "falling back to simple order" */
		for (i = 0; i < s->n; i++)
			graph->intra[0][i] = i;
		graph->bw_intra = 0.1f;
		graph->bw_inter = 0;
		graph->type_intra = PATH_SYS;
		graph->nchannels = 1;
	}
	f->nchannels = graph->nchannels;
	f->bw_intra = graph->bw_intra;
	f->bw_inter = graph->bw_inter;
	f->type_intra = graph->type_intra;
	f->pattern = graph->pattern;
	for (i = 0; i < graph->nchannels && i < 32; i++)
		for (j = 0; j < s->n; j++)
			f->order[i][j] = graph->intra[i][j];
	f->steps = x->steps;
}

/*
 * The next search when one fell short of its goal: the tree for a balanced
 * tree from sm90, a wider path type, the next speed down; 1 with tmp set
 * for it, 0 when none is left (tmp back at the fastest speed the paths
 * allow, and on to "done").
 */
static int S_next_try(const struct nccl_machine *m, const struct sys *s, const struct graph *graph,
		      struct graph *tmp, const float *sp, int nsp, int *si)
{
	float max_bw = s->max_bw;

	if (m->sm >= 90 && tmp->pattern == NCCL_PATTERN_BALANCED_TREE) {
		tmp->pattern = NCCL_PATTERN_TREE;
		return 1;
	}
	tmp->pattern = graph->pattern;
	if (tmp->type_intra < s->max_type &&
	    (graph->nchannels == 0 || tmp->type_intra < graph->type_intra)) {
		tmp->type_intra += 1;
		if (tmp->type_intra < PATH_DIS)
			return 1;
	}
	tmp->type_intra = s->min_type;
	if (*si < nsp - 1 && (graph->nchannels == 0 || sp[*si + 1] / graph->bw_inter > .49f)) {
		tmp->bw_inter = tmp->bw_intra = sp[++*si];
		return 1;
	}
	*si = 0;
	while (sp[*si] > max_bw && *si < nsp - 1)
		(*si)++;
	tmp->bw_intra = tmp->bw_inter = sp[*si];
	return 0;
}

/* ncclTopoCompute from the first speed on: search, try the next when
 * short, then a second pass from the channels found, duplicated. */
static void S_compute(const struct nccl_machine *m, struct search *x, struct graph *tmp, int pattern,
		      int try_same)
{
	struct sys *s = x->s;
	struct graph *graph = x->save;
	const float *sp;
	int nsp, si = 0, pass = 1;
	float max_bw = s->max_bw, total_bw = s->total_bw;
	long long global = GLOBAL_TIMEOUT;
	long time = 0;

	sp = S_speeds(m, &nsp);
	/* "algo other than RING do not need to close to the starting NET" */
	if (s->n > 1 && pattern != NCCL_PATTERN_RING)
		total_bw *= (float)s->n / (float)(s->n - 1);
	while ((sp[si] > max_bw || sp[si] * graph->min_ch > total_bw) && si < nsp - 1)
		si++;
	tmp->bw_intra = tmp->bw_inter = sp[si];
	for (;;) {
		/* search: */
		time = tmp->same_channels ? TIMEOUT_SAME : TIMEOUT;
		tmp->nchannels = 0;
		global -= time;
		memset(x->used, 0, sizeof x->used);
		S_rec(x, tmp, &time);
		if (time != -1 && !(graph->nchannels * graph->bw_inter >= s->total_bw) && pass == 1) {
			if (tmp->same_channels == 1 && !(m->cpu == NCCL_CPU_AMD && tmp->type_intra == PATH_SYS)) {
				tmp->same_channels = 0;
				continue;
			}
			tmp->same_channels = try_same;
			if (time != -1)
				global += time;
			else
				global = GLOBAL_TIMEOUT;
			if (!(global < 0 && graph->nchannels) && S_next_try(m, s, graph, tmp, sp, nsp, &si))
				continue;
		}
		/* done: */
		if (pass == 1) {
			time = -1;
			S_dup(graph, m->sm);
			*tmp = *graph;
			si = 0;
			while (sp[si] > graph->bw_inter && si < nsp - 1)
				si++;
			tmp->bw_intra = tmp->bw_inter = sp[si];
			tmp->min_ch = graph->nchannels;
			pass = 2;
		}
		if (time != 0 && si > 0) {
			if (graph->pattern == NCCL_PATTERN_RING) {
				tmp->bw_intra = tmp->bw_inter = sp[--si];
				continue;
			} else if (tmp->bw_intra == graph->bw_intra && tmp->bw_intra < tmp->bw_inter * 2) {
				tmp->bw_intra = sp[--si];
				continue;
			}
		}
		break;
	}
}

static int S_search_node(const struct nccl_machine *m, int pattern, int min_ch, int max_ch,
			 struct nccl_found *f)
{
	struct sys *s = malloc(sizeof *s);
	struct graph *graph = malloc(sizeof *graph), *tmp = malloc(sizeof *tmp);
	struct search x;
	int try_same = 1, rc = -1;

	memset(f, 0, sizeof *f);
	if (!s || !graph || !tmp || S_build(m, s) < 0)
		goto out;
	memset(&x, 0, sizeof x);
	x.s = s;
	x.save = graph;
	S_graph_init(graph, s, pattern, min_ch, max_ch, try_same);
	*tmp = *graph;
	S_compute(m, &x, tmp, pattern, try_same);
	S_result(graph, s, &x, f);
	rc = 0;
out:
	free(s);
	free(graph);
	free(tmp);
	return rc;
}

/*
 * The searches of this thread and what they found, the last MEMO_N of
 * them: a search depends on its arguments alone, and one command asks the
 * same ones again and again (compare prices each size of a log with a
 * tuning table of its own, which searches the ring and the tree anew).
 * The machine is compared byte for byte: a copy that differs only in its
 * padding searches again, which costs time and nothing else.  Four: a
 * machine's ring and tree, for two machines (or rank counts) at a time.
 */
#define MEMO_N 4
static _Thread_local struct {
	int used, pattern, min_ch, max_ch;
	struct nccl_machine m;
	struct nccl_found f;
} memo[MEMO_N];
static _Thread_local int memo_next;

int nccl_search_node(const struct nccl_machine *m, int pattern, int min_ch, int max_ch,
		     struct nccl_found *f)
{
	int i;

	for (i = 0; i < MEMO_N; i++)
		if (memo[i].used && memo[i].pattern == pattern && memo[i].min_ch == min_ch &&
		    memo[i].max_ch == max_ch && memcmp(&memo[i].m, m, sizeof *m) == 0) {
			*f = memo[i].f;
			return 0;
		}
	if (S_search_node(m, pattern, min_ch, max_ch, f) < 0)
		return -1;
	i = memo_next;
	memo_next = (memo_next + 1) % MEMO_N;
	memo[i].used = 1;
	memo[i].pattern = pattern;
	memo[i].min_ch = min_ch;
	memo[i].max_ch = max_ch;
	memcpy(&memo[i].m, m, sizeof *m);   /* padding and all, for memcmp */
	memo[i].f = *f;
	return 0;
}
