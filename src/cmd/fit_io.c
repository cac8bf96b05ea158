/*
 * commtime fit: the measured rows in, the fitted link preset out.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fit_cmd.h"

void fit_meas_rows(const struct meas *m, int in_place, double **S, double **T)
{
	size_t i;

	*S = xmalloc(m->n * sizeof(double));
	*T = xmalloc(m->n * sizeof(double));
	for (i = 0; i < m->n; i++) {
		(*S)[i] = m->rows[i].size;
		(*T)[i] = in_place ? m->rows[i].time_ip : m->rows[i].time;
		if (isnan((*T)[i]))
			die("%s:%d: no in-place time", m->path, m->rows[i].line);
	}
}

char *fit_preset_name_of(const char *path)
{
	const char *b = strrchr(path, '/');
	char *name = xstrdup(b ? b + 1 : path);
	size_t n = strlen(name);

	if (n > 7 && !strcmp(name + n - 7, ".preset"))
		name[n - 7] = '\0';
	return name;
}

void fit_save_link(const char *path, const struct meas *m,
		   const struct ab_fit *ab, const struct fit_model *fm, const struct holdout *h,
		   int inplace, const char *name)
{
	char comment[1024], desc[512], lo[32], hi[32], a[32], b[32];
	struct errbuf eb;
	size_t k;
	int len;

	/* The log's name as text that cannot break a line nor the file's encoding. */
	char *file = preset_text_escape(m->path);

	units_fmt_size(lo, sizeof(lo), m->rows[0].size);
	units_fmt_size(hi, sizeof(hi), m->rows[m->n - 1].size);
	snprintf(desc, sizeof(desc), "fitted to %s (%s, %lu ranks, %zu sizes %s to %s)",
		 file, coll_op_name((enum coll_op)m->op), m->ranks, m->n, lo, hi);
	units_fmt_time(a, sizeof(a), ab->alpha, 3);
	units_fmt_rate(b, sizeof(b), ab->beta, 4);
	len = snprintf(comment, sizeof(comment),
		       "link preset written by 'commtime fit' from %s\n"
		       "%s on %lu ranks, %s model, %s times\n"
		       "alpha-beta: alpha %s, beta %s, rms relative error %.1f %%\n",
		       file, coll_op_name((enum coll_op)m->op), m->ranks,
		       coll_algo_name(fm->algo), inplace ? "in-place" : "out-of-place",
		       a, b, 100 * ab->rms);
	for (k = 0; k < fm->nreg && fm->nreg > 1 && len > 0 && (size_t)len < sizeof(comment); k++) {
		units_fmt_size(lo, sizeof(lo), fm->reg[k].lo);
		units_fmt_size(hi, sizeof(hi), fm->reg[k].hi);
		units_fmt_time(a, sizeof(a), fm->reg[k].alpha, 3);
		units_fmt_rate(b, sizeof(b), fm->reg[k].beta, 4);
		len += snprintf(comment + len, sizeof(comment) - (size_t)len,
				"regime %zu: %s to %s, alpha %s, beta %s\n", k + 1, lo, hi, a, b);
	}
	if (h && len > 0 && (size_t)len < sizeof(comment))
		snprintf(comment + len, sizeof(comment) - (size_t)len,
			 "held-out error: median %.1f %%, p90 %.1f %% (alpha-beta alone: "
			 "%.1f %%, %.1f %%)\n", 100 * h->median, 100 * h->p90,
			 100 * h->ab_median, 100 * h->ab_p90);
	free(file);
	if (fit_preset_write(path, name, desc, comment, ab, fm, &eb) < 0)
		die("%s", eb.msg);
}
