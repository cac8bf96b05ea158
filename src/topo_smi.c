/*
 * The `nvidia-smi topo -m` matrix reader of topo.h: a strict reader, every
 * cell checked, every message naming file:line (models/system.md,
 * "Topology files").
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo.h"

#define SMI_MAX_COLS (TOPO_MAX_GPUS + TOPO_MAX_NICS + 8)
#define SMI_NAME_MAX 32

enum col_kind { COL_GPU, COL_DEV, COL_CPU_AFF, COL_NUMA_AFF, COL_GPU_NUMA, COL_OTHER };

struct smi_cols {
	int n, gpus, devs;
	enum col_kind kind[SMI_MAX_COLS];
	char name[SMI_MAX_COLS][SMI_NAME_MAX];
};

/* Split s (len n) into fields: by tab when tabbed (empty fields kept), else by blanks. */
static int S_fields(const char *s, size_t n, int tabbed, const char **f, size_t *fl, int max)
{
	size_t i = 0;
	int k = 0;

	if (tabbed) {
		for (;;) {
			size_t a = i, b;
			while (i < n && s[i] != '\t')
				i++;
			b = i;
			while (a < b && (s[a] == ' ' || s[a] == '\r'))
				a++;
			while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\r'))
				b--;
			if (k == max)
				return -1;
			f[k] = s + a;
			fl[k++] = b - a;
			if (i >= n)
				break;
			i++;
		}
		return k;
	}
	while (i < n) {
		size_t a;
		while (i < n && isspace((unsigned char)s[i]))
			i++;
		if (i >= n)
			break;
		a = i;
		while (i < n && !isspace((unsigned char)s[i]))
			i++;
		if (k == max)
			return -1;
		f[k] = s + a;
		fl[k++] = i - a;
	}
	return k;
}

static int S_is(const char *f, size_t n, const char *w)
{
	return strlen(w) == n && !strncmp(f, w, n);
}

/* "GPU<n>" → n, or -1. */
static int S_gpu_index(const char *f, size_t n)
{
	size_t i;
	int v = 0;

	if (n < 4 || n > 6 || strncmp(f, "GPU", 3))
		return -1;
	for (i = 3; i < n; i++) {
		if (!isdigit((unsigned char)f[i]))
			return -1;
		v = v * 10 + (f[i] - '0');
	}
	return v;
}

/*
 * The kind of the header's column that starts at field *ip (c holding the
 * columns before it), *ip moved to its last field: an affinity column is
 * two or three fields when not tabbed.  -1 with eb.
 */
static int S_col_kind(const struct smi_cols *c, const char **f, const size_t *fl, int k, int *ip,
		      int tabbed, const char *file, int line, struct errbuf *eb)
{
	enum col_kind kind;
	int i = *ip, g;

	/* "CPU Affinity" and the others are one field when tabbed, two or three when not */
	if (!tabbed && i + 1 < k && S_is(f[i], fl[i], "CPU") && S_is(f[i + 1], fl[i + 1], "Affinity")) {
		kind = COL_CPU_AFF;
		i++;
	} else if (!tabbed && i + 1 < k && S_is(f[i], fl[i], "NUMA") &&
		   S_is(f[i + 1], fl[i + 1], "Affinity")) {
		kind = COL_NUMA_AFF;
		i++;
	} else if (!tabbed && i + 2 < k && S_is(f[i], fl[i], "GPU") &&
		   S_is(f[i + 1], fl[i + 1], "NUMA") && S_is(f[i + 2], fl[i + 2], "ID")) {
		kind = COL_GPU_NUMA;
		i += 2;
	} else if (S_is(f[i], fl[i], "CPU Affinity")) {
		kind = COL_CPU_AFF;
	} else if (S_is(f[i], fl[i], "NUMA Affinity")) {
		kind = COL_NUMA_AFF;
	} else if (S_is(f[i], fl[i], "GPU NUMA ID")) {
		kind = COL_GPU_NUMA;
	} else if (S_is(f[i], fl[i], "NUMA") && c->n > c->gpus + c->devs) {
		kind = COL_NUMA_AFF;   /* some copies shorten the header */
	} else if (c->n > c->gpus + c->devs) {
		kind = COL_OTHER;      /* a column after the affinity ones */
	} else if ((g = S_gpu_index(f[i], fl[i])) >= 0) {
		if (c->devs || g != c->gpus)
			return errbuf_set(eb, "%s:%d: column '%.*s' out of order (GPU columns "
					  "come first, GPU0, GPU1, ...)", file, line,
					  (int)fl[i], f[i]);
		if (c->gpus == TOPO_MAX_GPUS)
			return errbuf_set(eb, "%s:%d: more than %d GPUs", file, line,
					  TOPO_MAX_GPUS);
		kind = COL_GPU;
	} else {
		if (c->devs == TOPO_MAX_NICS)
			return errbuf_set(eb, "%s:%d: more than %d NIC columns", file, line,
					  TOPO_MAX_NICS);
		if (fl[i] >= SMI_NAME_MAX)
			return errbuf_set(eb, "%s:%d: column name longer than %d characters",
					  file, line, SMI_NAME_MAX - 1);
		kind = COL_DEV;
	}
	*ip = i;
	return (int)kind;
}

static int S_header(const char *s, size_t n, const char *file, int line, struct smi_cols *c,
		    struct errbuf *eb)
{
	const char *f[SMI_MAX_COLS * 2];
	size_t fl[SMI_MAX_COLS * 2];
	int tabbed = memchr(s, '\t', n) != NULL;
	int k = S_fields(s, n, tabbed, f, fl, SMI_MAX_COLS * 2), i;

	if (k < 0)
		return errbuf_set(eb, "%s:%d: more than %d columns", file, line, SMI_MAX_COLS);
	memset(c, 0, sizeof *c);
	for (i = 0; i < k; i++) {
		int kind;

		if (!fl[i])
			continue;
		kind = S_col_kind(c, f, fl, k, &i, tabbed, file, line, eb);
		if (kind < 0)
			return -1;
		if (c->n == SMI_MAX_COLS)
			return errbuf_set(eb, "%s:%d: more than %d columns", file, line, SMI_MAX_COLS);
		c->kind[c->n] = kind;
		snprintf(c->name[c->n], SMI_NAME_MAX, "%.*s", (int)(fl[i] < SMI_NAME_MAX ? fl[i] : SMI_NAME_MAX - 1), f[i]);
		if (kind == COL_GPU)
			c->gpus++;
		else if (kind == COL_DEV)
			c->devs++;
		c->n++;
	}
	if (!c->gpus)
		return errbuf_set(eb, "%s:%d: no GPU columns", file, line);
	return 0;
}

/*
 * One cell: 'X' (self) → -2, "NV<n>" → 100 + n, a PCIe path → its
 * topo_path; -1 when it is none of these.
 */
static int S_cell(const char *f, size_t n)
{
	static const struct { const char *w; int v; } cells[] = {
		{ "X", -2 }, { "PIX", TOPO_PATH_PIX }, { "PXB", TOPO_PATH_PXB },
		{ "PHB", TOPO_PATH_PHB }, { "NODE", TOPO_PATH_NODE }, { "SYS", TOPO_PATH_SYS },
		{ "SOC", TOPO_PATH_SYS },   /* the name of SYS in drivers before 384 */
	};
	size_t i;

	for (i = 0; i < sizeof cells / sizeof cells[0]; i++)
		if (S_is(f, n, cells[i].w))
			return cells[i].v;
	if (n >= 3 && n <= 4 && !strncmp(f, "NV", 2)) {
		int v = 0;
		for (i = 2; i < n; i++) {
			if (!isdigit((unsigned char)f[i]))
				return -1;
			v = v * 10 + (f[i] - '0');
		}
		if (v >= 1 && v <= 64)
			return 100 + v;
	}
	return -1;
}

/* Refuses a control character in line S of N bytes; *BLANK: whether it is all space. */
static int S_line_chars(const char *s, size_t n, const char *file, int line, int *blank,
			struct errbuf *eb)
{
	int i;

	*blank = 1;
	for (i = 0; i < (int)n; i++) {
		if (!isspace((unsigned char)s[i]))
			*blank = 0;
		if (!s[i] || ((unsigned char)s[i] < 32 && s[i] != '\t' && s[i] != '\r'))
			return errbuf_set(eb, "%s:%d: a control character (0x%02x) in the matrix",
					  file, line, (unsigned char)s[i]);
	}
	return 0;
}

/* Whether S of N bytes, leading space aside, begins with WORD. */
static int S_starts(const char *s, size_t n, const char *word)
{
	size_t a = 0, w = strlen(word);

	while (a < n && isspace((unsigned char)s[a]))
		a++;
	return n - a >= w && !memcmp(s + a, word, w);
}

/* The cells of row G (K fields F, FL), into T's links and NICP. */
static int S_row_cells(const struct smi_cols *c, const char **f, const size_t *fl, int g,
		       struct topo *t, signed char nicp[][TOPO_MAX_NICS], const char *file,
		       int line, struct errbuf *eb)
{
	int i;

	for (i = 0; i < c->gpus + c->devs; i++) {
		int v = S_cell(f[1 + i], fl[1 + i]);
		if (v == -1)
			return errbuf_set(eb, "%s:%d: row %s, column %s: '%.*s' is not X, NV#, PIX, "
					  "PXB, PHB, NODE or SYS", file, line, c->name[g], c->name[i],
					  (int)(fl[1 + i] < 20 ? fl[1 + i] : 20), f[1 + i]);
		if ((v == -2) != (i == g))
			return errbuf_set(eb, "%s:%d: row %s, column %s: %s", file, line, c->name[g],
					  c->name[i], v == -2 ? "X (self) off the diagonal" :
					  "the diagonal must be X");
		if (g >= c->gpus) {
			/* a NIC's row: NVLink to a NIC is not a thing */
			if (v >= 100)
				return errbuf_set(eb, "%s:%d: row %s, column %s: NVLink from a NIC",
						  file, line, c->name[g], c->name[i]);
			continue;
		}
		if (i < c->gpus) {
			if (v >= 100)
				t->nvl[g][i] = (unsigned char)(v - 100);
			else if (v >= 0)
				t->gpu_path[g][i] = (signed char)v;
		} else {
			if (v >= 100)
				return errbuf_set(eb, "%s:%d: row %s, column %s: NVLink to a NIC",
						  file, line, c->name[g], c->name[i]);
			nicp[g][i - c->gpus] = (signed char)v;
		}
	}
	return 0;
}

/* The NUMA Affinity of GPU row G (K fields F, FL), into T. */
static int S_row_numa(const struct smi_cols *c, const char **f, const size_t *fl, int k,
		      int tabbed, int g, struct topo *t, const char *file, int line,
		      struct errbuf *eb)
{
	int i, j;

	for (i = c->gpus + c->devs, j = 1 + i; i < c->n; i++, j++) {
		if (c->kind[i] != COL_NUMA_AFF)
			continue;
		/* blank-separated fields lose their empty cells: read the
		 * NUMA node only where every field is there */
		if ((tabbed || k == 1 + c->n) && j < k && fl[j] && !S_is(f[j], fl[j], "N/A")) {
			char tmp[16];
			char *end;
			long v;
			snprintf(tmp, sizeof tmp, "%.*s", (int)(fl[j] < 15 ? fl[j] : 15), f[j]);
			errno = 0;
			v = strtol(tmp, &end, 10);
			if (*end || errno || v < 0 || v > 1023 || fl[j] > 15)
				return errbuf_set(eb, "%s:%d: row %s: NUMA Affinity '%s' is not "
						  "a NUMA node", file, line, c->name[g], tmp);
			t->numa[g] = (int)v;
		}
	}
	return 0;
}

/* After the rows: every GPU has one, the links agree, each GPU's nearest NIC. */
static int S_finish(const struct smi_cols *c, const unsigned char *seen,
		    signed char nicp[][TOPO_MAX_NICS], int hdr, struct topo *t,
		    const char *file, struct errbuf *eb)
{
	int i, j;

	if (!hdr)
		return errbuf_set(eb, "%s:1: neither an nvidia-smi topo -m matrix (no header line "
				  "beginning GPU0) nor NCCL's XML topology (no '<')", file);
	for (i = 0; i < c->gpus; i++)
		if (!seen[i])
			return errbuf_set(eb, "%s:%d: no row for %s", file, hdr, c->name[i]);
	t->gpus = c->gpus;
	t->nics = c->devs;
	for (i = 0; i < c->gpus; i++)
		for (j = 0; j < c->gpus; j++) {
			if (t->nvl[i][j] != t->nvl[j][i] || t->gpu_path[i][j] != t->gpu_path[j][i])
				return errbuf_set(eb, "%s:%d: GPU%d and GPU%d disagree about the link "
						  "between them", file, hdr, i, j);
		}
	for (i = 0; i < c->gpus; i++)
		for (j = 0; j < c->devs; j++)
			if (t->nic_path[i] == TOPO_PATH_NONE || nicp[i][j] < t->nic_path[i])
				t->nic_path[i] = nicp[i][j];
	return 0;
}

/*
 * A row of the matrix after the header: a GPU's or a NIC's cells into t
 * (and nicp; seen[] marks a GPU's row), 1; 0 at the legend or NCCL's list
 * of NICs, where the matrix ends; -1 with eb.
 */
static int S_row(const struct smi_cols *c, const char *s, size_t n, unsigned char *seen,
		 signed char nicp[][TOPO_MAX_NICS], int hdr, struct topo *t, const char *file,
		 int line, struct errbuf *eb)
{
	const char *f[SMI_MAX_COLS * 2];
	size_t fl[SMI_MAX_COLS * 2];
	int tabbed = memchr(s, '\t', n) != NULL;
	int k = S_fields(s, n, tabbed, f, fl, SMI_MAX_COLS * 2), g, i;

	if (k < 0)
		return errbuf_set(eb, "%s:%d: more than %d fields", file, line, SMI_MAX_COLS);
	/* a tabbed row starts with its name; drop an empty field before it */
	if (k > 0 && !fl[0]) {
		memmove(f, f + 1, (size_t)(k - 1) * sizeof f[0]);
		memmove(fl, fl + 1, (size_t)(k - 1) * sizeof fl[0]);
		k--;
	}
	if (k > 0 && (S_is(f[0], fl[0], "Legend:") || S_is(f[0], fl[0], "NIC"))) {
		if (S_is(f[0], fl[0], "Legend:"))
			t->legend = 1;
		return 0;
	}
	for (g = -1, i = 0; i < c->gpus + c->devs; i++)
		if (S_is(f[0], fl[0], c->name[i]))
			g = i;
	if (g < 0)
		return errbuf_set(eb, "%s:%d: row '%.*s' names no column of the header (line %d)",
				  file, line, (int)(fl[0] < 40 ? fl[0] : 40), f[0], hdr);
	if (k - 1 < c->gpus + c->devs)
		return errbuf_set(eb, "%s:%d: row %s has %d cells, the header %d GPU and NIC "
				  "columns", file, line, c->name[g], k - 1, c->gpus + c->devs);
	if (S_row_cells(c, f, fl, g, t, nicp, file, line, eb) < 0)
		return -1;
	if (g < c->gpus) {
		if (seen[g])
			return errbuf_set(eb, "%s:%d: a second row for %s", file, line, c->name[g]);
		seen[g] = 1;
		if (S_row_numa(c, f, fl, k, tabbed, g, t, file, line, eb) < 0)
			return -1;
	}
	return 1;
}

int topo_parse_smi(const char *buf, size_t len, const char *file, struct topo *t,
		    struct errbuf *eb)
{
	struct smi_cols c;
	size_t pos = 0;
	int line = 0, hdr = 0, rows = 0, done = 0;
	unsigned char seen[TOPO_MAX_GPUS] = { 0 };
	signed char nicp[TOPO_MAX_GPUS][TOPO_MAX_NICS];

	while (pos < len) {
		const char *s = buf + pos, *nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos;
		int blank, rc;

		pos += n + (nl != NULL);
		line++;
		if (n > TOPO_LINE_MAX)
			return errbuf_set(eb, "%s:%d: line longer than %d bytes", file, line, TOPO_LINE_MAX);
		if (S_line_chars(s, n, file, line, &blank, eb) < 0)
			return -1;
		if (done) {
			if (S_starts(s, n, "Legend:"))
				t->legend = 1;
			continue;
		}
		if (!hdr) {
			size_t a = 0;
			while (a < n && isspace((unsigned char)s[a]))
				a++;
			if (n - a >= 4 && !memcmp(s + a, "GPU0", 4) &&
			    (n - a == 4 || isspace((unsigned char)s[a + 4]))) {
				if (S_header(s, n, file, line, &c, eb) < 0)
					return -1;
				hdr = line;
			} else if (line > 40) {
				break;
			}
			continue;
		}
		if (blank) {
			if (rows)
				done = 1;
			continue;
		}
		rc = S_row(&c, s, n, seen, nicp, hdr, t, file, line, eb);
		if (rc < 0)
			return -1;
		if (rc == 0)
			done = 1;
		else
			rows++;
	}
	return S_finish(&c, seen, nicp, hdr, t, file, eb);
}
