/*
 * The rows of one measurement: the container every reader fills.
 */
#include <stdlib.h>
#include <string.h>

#include "meas.h"

void meas_init(struct meas *m, const char *path)
{
	memset(m, 0, sizeof(*m));
	m->path = xstrdup(path);
	m->op = -1;
}

void meas_release(struct meas *m)
{
	free(m->path);
	free(m->rows);
	memset(m, 0, sizeof(*m));
	m->op = -1;
}

void meas_push(struct meas *m, const struct meas_row *r)
{
	if (m->n == m->alloc) {
		m->alloc = m->alloc ? 2 * m->alloc : 64;
		m->rows = xrealloc(m->rows, m->alloc * sizeof(*m->rows));
	}
	m->rows[m->n++] = *r;
}

const char *meas_format_name(enum meas_format format)
{
	switch (format) {
	case MEAS_NCCL_JSON: return "nccl-tests JSON";
	case MEAS_CSV: return "CSV";
	case MEAS_OSU: return "OSU micro-benchmarks";
	case MEAS_IMB: return "Intel MPI Benchmarks";
	default: return "nccl-tests log";
	}
}
