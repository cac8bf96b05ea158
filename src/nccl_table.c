/*
 * NCCL's tuning table from a log against the model's, and the one-key
 * changes of the system description that bring them together.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "nccl_table.h"

int ncclt_close(double model, double nccl)
{
	return fabs(model - nccl) <= NCCLT_TOL * nccl + 0.051;
}

const char *ncclt_pair(const struct meas_ncclt *nt, const struct nccl_tune *t, enum nccl_func f,
		       enum nccl_algo a, enum nccl_proto p, char *buf, size_t len)
{
	double nb = nt->bw[f][a][p], mb = t->bw[f][a][p];

	if (!nt->seen[f][a][p] || (nb <= 0 && mb <= 0))
		return NULL;
	if (nb <= 0 || mb <= 0) {
		snprintf(buf, len, "%s", nb <= 0 ? "model only" : "NCCL only");
	} else {
		int lat_ok = ncclt_close(t->lat[f][a][p], nt->lat[f][a][p]);
		int bw_ok = ncclt_close(mb, nb);

		snprintf(buf, len, "%s%s%s", lat_ok ? "" : "lat", !lat_ok && !bw_ok ? "," : "",
			 bw_ok ? "" : "bw");
	}
	return buf;
}

struct ncclt_count ncclt_compare(const struct meas_ncclt *nt, const struct nccl_tune *t,
				 enum nccl_func f)
{
	struct ncclt_count c = { 0, 0 };
	char d[16];

	for (int a = 0; a < NCCL_NALGO; a++)
		for (int p = 0; p < NCCL_NPROTO; p++) {
			const char *r = ncclt_pair(nt, t, f, (enum nccl_algo)a, (enum nccl_proto)p,
						   d, sizeof(d));

			if (!r)
				continue;
			c.pairs++;
			c.agree += !*r;
		}
	return c;
}

void ncclt_as_model(const struct meas_ncclt *nt, const struct nccl_tune *model,
		    enum nccl_func f, struct nccl_tune *out)
{
	*out = *model;
	for (int a = 0; a < NCCL_NALGO; a++)
		for (int p = 0; p < NCCL_NPROTO; p++)
			if (nt->seen[f][a][p]) {
				out->lat[f][a][p] = nt->lat[f][a][p];
				out->bw[f][a][p] = nt->bw[f][a][p];
			}
}

/* The count for s changed: -1 agreeing when NCCL's model cannot take it. */
static struct ncclt_count S_try(const struct system *s, const struct nccl_cost *base,
				const struct group *g, const struct meas_ncclt *nt,
				enum nccl_func f)
{
	struct nccl_cost nc = *base;
	struct nccl_tune t;
	struct errbuf eb;

	nc.sys = s;
	if (nccl_machine_from_system(s, &nc.machine, &eb) < 0 ||
	    nccl_cost_tune(&nc, g, &t, &eb) < 0)
		return (struct ncclt_count){ 0, -1 };
	return ncclt_compare(nt, &t, f);
}

/*
 * Keep v in out (n kept, at most max; most agreeing first, in the order
 * tried on a tie) when it agrees at more pairs than base.  Returns the
 * new count.
 */
static int S_keep(struct ncclt_variant *out, int n, int max, const struct ncclt_variant *v,
		  int base)
{
	int i, last;

	if (v->count.agree <= base)
		return n;
	for (i = 0; i < n && out[i].count.agree >= v->count.agree; i++)
		;
	if (i >= max)
		return n;
	last = n < max ? n : max - 1;
	memmove(out + i + 1, out + i, (size_t)(last - i) * sizeof(*out));
	out[i] = *v;
	return n < max ? n + 1 : n;
}

int ncclt_variants(const struct system *s, const struct nccl_cost *base, const struct group *g,
		   const struct meas_ncclt *nt, enum nccl_func f, struct ncclt_variant *out,
		   int max)
{
	int base_agree = S_try(s, base, g, nt, f).agree, n = 0;
	struct ncclt_variant v;
	struct system sv;

#define TRY(KEY, FMT, VAL, CHANGE)                                              \
	do {                                                                    \
		sv = *s;                                                        \
		CHANGE;                                                         \
		snprintf(v.key, sizeof(v.key), "%s", KEY);                      \
		snprintf(v.value, sizeof(v.value), FMT, VAL);                   \
		v.count = S_try(&sv, base, g, nt, f);                           \
		n = S_keep(out, n, max, &v, base_agree);                        \
	} while (0)

	if (s->nics_per_node > 0) {
		TRY("nics_per_node", "%u", 2 * s->nics_per_node,
		    sv.nics_per_node = 2 * s->nics_per_node);
		if (s->nics_per_node >= 2)
			TRY("nics_per_node", "%u", s->nics_per_node / 2,
			    sv.nics_per_node = s->nics_per_node / 2);
	}
	if (s->nvswitch)
		TRY("nvls", "%s", s->nvls ? "no" : "yes", sv.nvls = !s->nvls);
	TRY("p2p", "%s", s->p2p ? "no" : "yes", sv.p2p = !s->p2p);
	for (int p = 0; p < PCIE_PATH_COUNT; p++) {
		if ((enum pcie_path)p != s->pcie_path)
			TRY("pcie_path", "%s", pcie_path_name((enum pcie_path)p),
			    sv.pcie_path = (enum pcie_path)p);
		if (s->have_inter && (enum pcie_path)p != s->nic_path)
			TRY("nic_path", "%s", pcie_path_name((enum pcie_path)p),
			    sv.nic_path = (enum pcie_path)p);
	}
	for (int c = 0; c < CPU_VENDOR_COUNT; c++)
		if ((enum cpu_vendor)c != s->cpu)
			TRY("cpu", "%s", cpu_vendor_name((enum cpu_vendor)c),
			    sv.cpu = (enum cpu_vendor)c);
#undef TRY
	return n;
}
