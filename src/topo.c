/*
 * Topology files: `nvidia-smi topo -m` matrices and NCCL's XML topology
 * dumps (src/graph/xml.cc of NCCL writes them; clouds ship the same
 * format for their VMs).  A strict reader: every cell and element is
 * checked, every size is bounded, every message names file:line.
 * models/system.md, "Topology files".
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bound.h"
#include "topo.h"

static const char *const path_names[TOPO_PATH_COUNT] = {
	"pix", "pxb", "phb", "node", "sys"
};

const char *topo_path_name(enum topo_path p)
{
	return p >= 0 && p < TOPO_PATH_COUNT ? path_names[p] : "?";
}

static void S_init(struct topo *t, enum topo_format f)
{
	int i, j;

	memset(t, 0, sizeof *t);
	t->format = f;
	t->cpu_vendor = -1;
	for (i = 0; i < TOPO_MAX_GPUS; i++) {
		t->numa[i] = -1;
		t->nic_path[i] = TOPO_PATH_NONE;
		for (j = 0; j < TOPO_MAX_GPUS; j++)
			t->gpu_path[i][j] = TOPO_PATH_NONE;
	}
}

int topo_nvlinks(const struct topo *t, int g)
{
	int j, n = t->nvs[g];

	for (j = 0; j < t->gpus; j++)
		n += t->nvl[g][j];
	return n;
}

int topo_nvswitch(const struct topo *t, int links_per_gpu)
{
	int g, any = 0, max = links_per_gpu > 0 ? links_per_gpu : 18;

	for (g = 0; g < t->gpus; g++) {
		if (t->nvs[g])
			return 1;
		if (topo_nvlinks(t, g))
			any = 1;
	}
	if (!any)
		return -1;
	for (g = 0; g < t->gpus; g++)
		if (topo_nvlinks(t, g) > max)
			return 1;
	return 0;
}

enum topo_path topo_widest_gpu_path(const struct topo *t)
{
	int i, j, w = TOPO_PATH_NONE;

	for (i = 0; i < t->gpus; i++)
		for (j = 0; j < t->gpus; j++)
			if (i != j && t->gpu_path[i][j] > w)
				w = t->gpu_path[i][j];
	return (enum topo_path)w;
}

enum topo_path topo_widest_nic_path(const struct topo *t)
{
	int i, w = TOPO_PATH_NONE;

	for (i = 0; i < t->gpus; i++)
		if (t->nic_path[i] > w)
			w = t->nic_path[i];
	return (enum topo_path)w;
}

/* ---- NCCL's XML ---- */

#define XML_MAX_NODES 20000
#define XML_MAX_DEPTH 32
#define XML_MAX_ATTRS 32
#define XML_MAX_VALUE 256
#define XML_MAX_NAME 32

struct xattr {
	char name[XML_MAX_NAME];
	char value[XML_MAX_VALUE];
};

struct xnode {
	char name[XML_MAX_NAME];
	int parent, line, nattr, first_attr;
};

struct xdoc {
	struct xnode *node;
	struct xattr *attr;
	int nnodes, nattrs, attr_alloc;
};

static const char *S_attr(const struct xdoc *d, int n, const char *name)
{
	int i;

	for (i = 0; i < d->node[n].nattr; i++)
		if (!strcmp(d->attr[d->node[n].first_attr + i].name, name))
			return d->attr[d->node[n].first_attr + i].value;
	return NULL;
}

static int S_name_char(int c, int first)
{
	return isalpha(c) || c == '_' || (!first && (isdigit(c) || c == '-' || c == '.' || c == ':'));
}

/* Read a name at *p; 0 or -1. */
static int S_xname(const char *b, size_t len, size_t *p, char *out, const char *file, int line,
		   struct errbuf *eb)
{
	size_t a = *p;

	if (a >= len || !S_name_char((unsigned char)b[a], 1))
		return errbuf_set(eb, "%s:%d: a tag or attribute name expected", file, line);
	while (*p < len && S_name_char((unsigned char)b[*p], 0))
		(*p)++;
	if (*p - a >= XML_MAX_NAME)
		return errbuf_set(eb, "%s:%d: name longer than %d characters", file, line,
				  XML_MAX_NAME - 1);
	memcpy(out, b + a, *p - a);
	out[*p - a] = '\0';
	return 0;
}

/* The quoted value at *p into a->value, the quotes and entities read. */
static int S_xvalue(const char *b, size_t len, size_t *pp, struct xattr *a, const char *file,
		    int line, struct errbuf *eb)
{
	size_t p = *pp, q;
	char quote;

	if (p >= len || (b[p] != '"' && b[p] != '\''))
		return errbuf_set(eb, "%s:%d: a quoted value expected for %s", file, line,
				  a->name);
	quote = b[p++];
	for (q = 0; p < len && b[p] != quote; p++) {
		char ch = b[p];
		if (ch == '<' || ch == '\n')
			return errbuf_set(eb, "%s:%d: value of %s not closed", file, line,
					  a->name);
		if (ch == '&') {
			static const struct { const char *e; char c; } ent[] = {
				{ "&lt;", '<' }, { "&gt;", '>' }, { "&amp;", '&' },
				{ "&quot;", '"' }, { "&apos;", '\'' },
			};
			size_t e;
			for (e = 0; e < 5; e++)
				if (len - p >= strlen(ent[e].e) &&
				    !memcmp(b + p, ent[e].e, strlen(ent[e].e)))
					break;
			if (e == 5)
				return errbuf_set(eb, "%s:%d: value of %s: an '&' that is no "
						  "entity", file, line, a->name);
			ch = ent[e].c;
			p += strlen(ent[e].e) - 1;
		} else if ((unsigned char)ch < 32) {
			return errbuf_set(eb, "%s:%d: value of %s: a control character",
					  file, line, a->name);
		}
		if (q + 1 >= XML_MAX_VALUE)
			return errbuf_set(eb, "%s:%d: value of %s longer than %d "
					  "characters", file, line, a->name, XML_MAX_VALUE - 1);
		a->value[q++] = ch;
	}
	if (p >= len)
		return errbuf_set(eb, "%s:%d: value of %s not closed", file, line, a->name);
	p++;
	a->value[q] = '\0';
	*pp = p;
	return 0;
}

/* The attributes of node n up to its '>' or '/>' (*self: which). */
/* One attribute name="value" of n at *pp, the next of d's; -1 with eb. */
static int S_xattr(const char *b, size_t len, size_t *pp, int line, const char *file,
		   struct xdoc *d, struct xnode *n, struct errbuf *eb)
{
	struct xattr *a;

	if (n->nattr == XML_MAX_ATTRS)
		return errbuf_set(eb, "%s:%d: more than %d attributes in <%s>", file,
				  line, XML_MAX_ATTRS, n->name);
	if (d->nattrs == d->attr_alloc) {
		d->attr_alloc *= 2;
		d->attr = xrealloc(d->attr, sizeof(struct xattr) * (size_t)d->attr_alloc);
	}
	a = &d->attr[d->nattrs];
	if (S_xname(b, len, pp, a->name, file, line, eb) < 0)
		return -1;
	if (S_attr(d, (int)(n - d->node), a->name))
		return errbuf_set(eb, "%s:%d: attribute %s given twice", file, line, a->name);
	if (*pp >= len || b[*pp] != '=')
		return errbuf_set(eb, "%s:%d: '=' expected after %s", file, line, a->name);
	++*pp;
	if (S_xvalue(b, len, pp, a, file, line, eb) < 0)
		return -1;
	n->nattr++;
	d->nattrs++;
	return 0;
}

static int S_xattrs(const char *b, size_t len, size_t *pp, int *linep, const char *file,
		    struct xdoc *d, struct xnode *n, int *self, struct errbuf *eb)
{
	size_t p = *pp;
	int line = *linep, r = 0;

	for (;;) {
		int ws = 0;

		while (p < len && isspace((unsigned char)b[p])) {
			line += b[p] == '\n';
			p++;
			ws = 1;
		}
		if (p >= len) {
			r = errbuf_set(eb, "%s:%d: <%s not closed", file, line, n->name);
			break;
		}
		if (b[p] == '>') {
			p++;
			break;
		}
		if (b[p] == '/') {
			if (p + 1 >= len || b[p + 1] != '>') {
				r = errbuf_set(eb, "%s:%d: '/>' expected", file, line);
				break;
			}
			p += 2;
			*self = 1;
			break;
		}
		if (!ws) {
			r = errbuf_set(eb, "%s:%d: a blank expected before an attribute of <%s>",
				       file, line, n->name);
			break;
		}
		if ((r = S_xattr(b, len, &p, line, file, d, n, eb)) < 0)
			break;
	}
	*pp = p;
	*linep = line;
	return r;
}

/* A comment or a '<?' declaration at *p, skipped: 1, or 0 when it is none. */
static int S_xskip(const char *b, size_t len, size_t *pp, int *linep, const char *file,
		   const struct xdoc *d, struct errbuf *eb)
{
	size_t p = *pp;
	int line = *linep;

	if (len - p >= 4 && !memcmp(b + p, "<!--", 4)) {
		const char *e = NULL;
		size_t q;
		for (q = p + 4; q + 2 < len; q++)
			if (!memcmp(b + q, "-->", 3)) {
				e = b + q;
				break;
			}
		if (!e)
			return errbuf_set(eb, "%s:%d: comment not closed", file, line);
		for (; p < (size_t)(e - b); p++)
			line += b[p] == '\n';
		p += 3;
	} else if (len - p >= 2 && b[p + 1] == '?') {
		if (d->nnodes)
			return errbuf_set(eb, "%s:%d: '<?' after the first element", file, line);
		while (p + 1 < len && !(b[p] == '?' && b[p + 1] == '>')) {
			line += b[p] == '\n';
			p++;
		}
		if (p + 1 >= len)
			return errbuf_set(eb, "%s:%d: '<?' not closed", file, line);
		p += 2;
	} else {
		return 0;
	}
	*pp = p;
	*linep = line;
	return 1;
}

/* The end tag at *p, which must close the element open at the top of stack. */
static int S_xend(const char *b, size_t len, size_t *pp, int line, const char *file,
		  const struct xdoc *d, const int *stack, int depth, struct errbuf *eb)
{
	char name[XML_MAX_NAME];
	size_t p = *pp + 2;

	if (S_xname(b, len, &p, name, file, line, eb) < 0)
		return -1;
	while (p < len && (b[p] == ' ' || b[p] == '\t'))
		p++;
	if (p >= len || b[p] != '>')
		return errbuf_set(eb, "%s:%d: '>' expected after </%s", file, line, name);
	p++;
	if (!depth || strcmp(d->node[stack[depth - 1]].name, name))
		return errbuf_set(eb, "%s:%d: </%s> closes %s%s%s", file, line, name,
				  depth ? "<" : "nothing", depth ? d->node[stack[depth - 1]].name : "",
				  depth ? ">" : "");
	*pp = p;
	return 0;
}

/*
 * The start tag at *pp ('<') as d's next node, a child of stack[depth - 1];
 * *self 1 for an empty element ("<a/>").
 */
static int S_xstart(const char *b, size_t len, size_t *pp, int *linep, const char *file,
		    struct xdoc *d, const int *stack, int depth, int *self, struct errbuf *eb)
{
	struct xnode *n;
	int line = *linep;

	if (d->nnodes == XML_MAX_NODES)
		return errbuf_set(eb, "%s:%d: more than %d elements", file, line, XML_MAX_NODES);
	if (depth == XML_MAX_DEPTH)
		return errbuf_set(eb, "%s:%d: elements nested deeper than %d", file, line,
				  XML_MAX_DEPTH);
	if ((d->nnodes & (d->nnodes - 1)) == 0 && d->nnodes >= 64)
		d->node = xrealloc(d->node, sizeof(struct xnode) * (size_t)d->nnodes * 2);
	n = &d->node[d->nnodes];
	++*pp;
	if (S_xname(b, len, pp, n->name, file, line, eb) < 0)
		return -1;
	n->parent = depth ? stack[depth - 1] : -1;
	n->line = line;
	n->nattr = 0;
	n->first_attr = d->nattrs;
	return S_xattrs(b, len, pp, linep, file, d, n, self, eb);
}

static int S_xml_parse(const char *b, size_t len, const char *file, struct xdoc *d,
		       struct errbuf *eb)
{
	int stack[XML_MAX_DEPTH], depth = 0, line = 1, root_done = 0, r;
	size_t p = 0;

	d->node = xmalloc(sizeof(struct xnode) * 64);
	d->attr = xmalloc(sizeof(struct xattr) * 64);
	d->attr_alloc = 64;
	d->nnodes = d->nattrs = 0;
	while (p < len) {
		if (b[p] == '\n') {
			line++;
			p++;
			continue;
		}
		if (isspace((unsigned char)b[p])) {
			p++;
			continue;
		}
		if (b[p] != '<')
			return errbuf_set(eb, "%s:%d: text outside a tag ('%c')", file, line, b[p]);
		if ((r = S_xskip(b, len, &p, &line, file, d, eb)) < 0)
			return -1;
		if (r)
			continue;
		if (len - p >= 2 && b[p + 1] == '!')
			return errbuf_set(eb, "%s:%d: '<!' declarations are not read", file, line);
		if (len - p >= 2 && b[p + 1] == '/') {
			if (S_xend(b, len, &p, line, file, d, stack, depth, eb) < 0)
				return -1;
			if (--depth == 0)
				root_done = 1;
			continue;
		}
		/* a start tag */
		{
			int self = 0;

			if (root_done)
				return errbuf_set(eb, "%s:%d: a second top-level element", file, line);
			if (S_xstart(b, len, &p, &line, file, d, stack, depth, &self, eb) < 0)
				return -1;
			if (self) {
				if (!depth)
					root_done = 1;
			} else {
				stack[depth++] = d->nnodes;
			}
			d->nnodes++;
		}
	}
	if (depth)
		return errbuf_set(eb, "%s:%d: <%s> not closed at the end of the file", file, line,
				  d->node[stack[depth - 1]].name);
	if (!d->nnodes)
		return errbuf_set(eb, "%s:%d: no element", file, line);
	return 0;
}

/* A whole number attribute in [lo, hi]; def when absent.  0 or -1. */
static int S_xint(const struct xdoc *d, int n, const char *name, long lo, long hi, long def,
		  int base, long *v, const char *file, struct errbuf *eb)
{
	const char *s = S_attr(d, n, name);
	char *end;

	*v = def;
	if (!s)
		return 0;
	errno = 0;
	*v = strtol(s, &end, base);
	if (!*s || *end || errno || *v < lo || *v > hi)
		return errbuf_set(eb, "%s:%d: <%s %s=\"%s\">: a whole number from %ld to %ld expected",
				  file, d->node[n].line, d->node[n].name, name, s, lo, hi);
	return 0;
}

/* A device of the node: a GPU or a NIC, where it sits in the tree. */
struct xdev {
	int node;      /* the element it hangs from (its pci, or the cpu) */
	char busid[XML_MAX_VALUE];
	int dev;       /* <gpu dev=>, -1 */
	int gpu_el;    /* the <gpu> element, -1 */
};

/* The cpu element above n, or -1. */
static int S_cpu_of(const struct xdoc *d, int n)
{
	for (; n >= 0; n = d->node[n].parent)
		if (!strcmp(d->node[n].name, "cpu"))
			return n;
	return -1;
}

static int S_depth(const struct xdoc *d, int n)
{
	int k = 0;

	for (; n >= 0; n = d->node[n].parent)
		k++;
	return k;
}

/* The PCIe path between two devices hanging from a and b, nvidia-smi's way. */
static enum topo_path S_xpath(const struct xdoc *d, int a, int b)
{
	int ca = S_cpu_of(d, a), cb = S_cpu_of(d, b), da, db, bridges = 0;

	if (ca != cb)
		return TOPO_PATH_SYS;
	/* the devices themselves are pci elements (or the cpu): count the
	 * bridges between them, up to their common ancestor */
	if (!strcmp(d->node[a].name, "pci"))
		a = d->node[a].parent;
	if (!strcmp(d->node[b].name, "pci"))
		b = d->node[b].parent;
	da = S_depth(d, a);
	db = S_depth(d, b);
	while (da > db) {
		a = d->node[a].parent;
		da--;
		bridges++;
	}
	while (db > da) {
		b = d->node[b].parent;
		db--;
		bridges++;
	}
	while (a != b) {
		a = d->node[a].parent;
		b = d->node[b].parent;
		bridges += 2;
	}
	if (!strcmp(d->node[a].name, "cpu"))
		return TOPO_PATH_PHB;
	return bridges == 0 ? TOPO_PATH_PIX : TOPO_PATH_PXB;
}

static int S_strcasecmp(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
			return 1;
	return *a != *b;
}

/* The GPUs and NICs found in the dump, and the GPUs' order. */
struct xfound {
	struct xdev gpu[TOPO_MAX_GPUS], nic[TOPO_MAX_NICS];
	int ngpu, nnic, order[TOPO_MAX_GPUS];
};

/* A <pci> element: a GPU (class 0x03...) or a NIC (0x02...) with one entry per port. */
static int S_xpci(const struct xdoc *d, int i, const int *nets_under, struct xfound *x,
		  const char *file, struct errbuf *eb)
{
	const struct xnode *n = &d->node[i];
	const char *cls = S_attr(d, i, "class"), *bus = S_attr(d, i, "busid");
	int j;

	if (!cls || !bus)
		return errbuf_set(eb, "%s:%d: <pci> without %s", file, n->line, cls ? "busid" : "class");
	if (!strncmp(cls, "0x03", 4)) {
		if (x->ngpu == TOPO_MAX_GPUS)
			return errbuf_set(eb, "%s:%d: more than %d GPUs", file, n->line, TOPO_MAX_GPUS);
		x->gpu[x->ngpu].node = i;
		x->gpu[x->ngpu].dev = -1;
		x->gpu[x->ngpu].gpu_el = -1;
		snprintf(x->gpu[x->ngpu].busid, sizeof x->gpu[x->ngpu].busid, "%s", bus);
		x->ngpu++;
	} else if (!strncmp(cls, "0x02", 4)) {
		int nets = nets_under[i];
		for (j = 0; j < (nets ? nets : 1); j++) {
			if (x->nnic == TOPO_MAX_NICS)
				return errbuf_set(eb, "%s:%d: more than %d NICs", file, n->line,
						  TOPO_MAX_NICS);
			x->nic[x->nnic].node = i;
			snprintf(x->nic[x->nnic].busid, sizeof x->nic[x->nnic].busid, "%s", bus);
			x->nnic++;
		}
	}
	return 0;
}

/* A <gpu> element, in the <pci> read just before it. */
static int S_xgpu(const struct xdoc *d, int i, struct xfound *x, struct topo *t,
		  const char *file, struct errbuf *eb)
{
	const struct xnode *n = &d->node[i];
	const char *par = n->parent >= 0 ? d->node[n->parent].name : "";
	long v;

	if (strcmp(par, "pci") || !x->ngpu || x->gpu[x->ngpu - 1].node != n->parent)
		return errbuf_set(eb, "%s:%d: <gpu> outside a <pci> of class 0x03...", file, n->line);
	/* NCCL's dump holds one <gpu> per PCI function (topo.cc
	 * ncclTopoAddGpu); a second one would leave the first's
	 * <nvlink> children with no GPU to belong to */
	if (x->gpu[x->ngpu - 1].gpu_el >= 0)
		return errbuf_set(eb, "%s:%d: a second <gpu> in one <pci>", file, n->line);
	if (S_xint(d, i, "dev", 0, TOPO_MAX_GPUS - 1, -1, 10, &v, file, eb) < 0)
		return -1;
	x->gpu[x->ngpu - 1].dev = (int)v;
	x->gpu[x->ngpu - 1].gpu_el = i;
	if (S_xint(d, i, "sm", 10, 200, 0, 10, &v, file, eb) < 0)
		return -1;
	if (v && !t->sm)
		t->sm = (int)v;
	return 0;
}

/* Element i of the dump (not an <nvlink>, read later). */
static int S_xelement(const struct xdoc *d, int i, const int *nets_in, const int *nets_under,
		      struct xfound *x, struct topo *t, const char *file, struct errbuf *eb)
{
	const struct xnode *n = &d->node[i];
	const char *par = n->parent >= 0 ? d->node[n->parent].name : "";
	long v;
	int j;

	if (!strcmp(n->name, "cpu")) {
		const char *ven = S_attr(d, i, "vendor"), *arch = S_attr(d, i, "arch");
		if (S_xint(d, i, "numaid", -1, 1023, -1, 10, &v, file, eb) < 0)
			return -1;
		if (t->cpu_vendor < 0 && ven && !strcmp(ven, "GenuineIntel"))
			t->cpu_vendor = 0;
		else if (t->cpu_vendor < 0 && ven && !strcmp(ven, "AuthenticAMD"))
			t->cpu_vendor = 1;
		else if (t->cpu_vendor < 0 && arch && (!strcmp(arch, "arm64") || !strcmp(arch, "aarch64")))
			t->cpu_vendor = 2;
	} else if (!strcmp(n->name, "pci")) {
		return S_xpci(d, i, nets_under, x, file, eb);
	} else if (!strcmp(n->name, "gpu")) {
		return S_xgpu(d, i, x, t, file, eb);
	} else if (!strcmp(n->name, "nic")) {
		if (strcmp(par, "pci") && strcmp(par, "cpu"))
			return errbuf_set(eb, "%s:%d: <nic> outside a <pci> or <cpu>", file, n->line);
		if (!strcmp(par, "cpu")) {
			/* a NIC without a PCIe place (a virtual one): its nets count */
			int nets = nets_in[i];
			for (j = 0; j < nets; j++) {
				if (x->nnic == TOPO_MAX_NICS)
					return errbuf_set(eb, "%s:%d: more than %d NICs", file, n->line,
							  TOPO_MAX_NICS);
				x->nic[x->nnic].node = n->parent;
				x->nic[x->nnic].busid[0] = '\0';
				x->nnic++;
			}
		}
	} else if (!strcmp(n->name, "net")) {
		if (strcmp(par, "nic"))
			return errbuf_set(eb, "%s:%d: <net> outside a <nic>", file, n->line);
		if (S_xint(d, i, "speed", 0, 100000000, 0, 10, &v, file, eb) < 0)
			return -1;
		if (v && !t->nic_speed_Bps)
			t->nic_speed_Bps = (double)v * 1e6 / 8;   /* Mbit/s, as NCCL reads it */
	}
	return 0;
}

/* GPUs in the order of their dev numbers when every one has one */
static int S_xorder(const struct xdoc *d, struct xfound *x, const char *file,
		    struct errbuf *eb)
{
	int i, by_dev = 1;

	for (i = 0; i < x->ngpu; i++) {
		x->order[i] = i;
		if (x->gpu[i].dev < 0 || x->gpu[i].dev >= x->ngpu)
			by_dev = 0;
	}
	if (by_dev) {
		int seen[TOPO_MAX_GPUS] = { 0 };
		for (i = 0; i < x->ngpu; i++) {
			if (seen[x->gpu[i].dev]++)
				return errbuf_set(eb, "%s:%d: two GPUs with dev %d", file,
						  d->node[x->gpu[i].gpu_el].line, x->gpu[i].dev);
			x->order[x->gpu[i].dev] = i;
		}
	}
	return 0;
}

/* Each GPU's NUMA node, its PCIe paths to the other GPUs and to its nearest NIC. */
static void S_xpaths(const struct xdoc *d, const struct xfound *x, struct topo *t,
		     const char *file, struct errbuf *eb)
{
	int i, j;
	long v;

	for (i = 0; i < x->ngpu; i++) {
		const struct xdev *a = &x->gpu[x->order[i]];
		int cpu = S_cpu_of(d, a->node);
		if (cpu >= 0 && S_xint(d, cpu, "numaid", -1, 1023, -1, 10, &v, file, eb) == 0)
			t->numa[i] = (int)v;
		for (j = 0; j < x->ngpu; j++)
			if (i != j)
				t->gpu_path[i][j] = (signed char)S_xpath(d, a->node, x->gpu[x->order[j]].node);
		for (j = 0; j < x->nnic; j++) {
			enum topo_path p = S_xpath(d, a->node, x->nic[j].node);
			if (t->nic_path[i] == TOPO_PATH_NONE || p < t->nic_path[i])
				t->nic_path[i] = (signed char)p;
		}
	}
}

/* The <nvlink> element i, now that every GPU is known. */
static int S_xnvlink(const struct xdoc *d, int i, const struct xfound *x, struct topo *t,
		     const char *file, struct errbuf *eb)
{
	const char *target, *tclass;
	int from = -1, to = -1, g, ngpu = x->ngpu;
	long v;

	if (d->node[i].parent < 0 || strcmp(d->node[d->node[i].parent].name, "gpu"))
		return errbuf_set(eb, "%s:%d: <nvlink> outside a <gpu>", file, d->node[i].line);
	for (g = 0; g < ngpu; g++)
		if (x->gpu[x->order[g]].gpu_el == d->node[i].parent)
			from = g;
	if (from < 0 || from >= ngpu)   /* every index checked before use */
		return errbuf_set(eb, "%s:%d: <nvlink> of a <gpu> that is not one of the node's GPUs",
				  file, d->node[i].line);
	target = S_attr(d, i, "target");
	tclass = S_attr(d, i, "tclass");
	if (!target || !tclass)
		return errbuf_set(eb, "%s:%d: <nvlink> without %s", file, d->node[i].line,
				  target ? "tclass" : "target");
	if (S_xint(d, i, "count", 1, 64, 1, 10, &v, file, eb) < 0)
		return -1;
	if (!strcmp(tclass, "0x068000")) {          /* an NVSwitch (topo.cc kvDictPciClass) */
		if (t->nvs[from] + v > 255)
			return errbuf_set(eb, "%s:%d: more than 255 NVLinks from one GPU", file,
					  d->node[i].line);
		t->nvs[from] = (unsigned char)(t->nvs[from] + v);
	} else if (!strcmp(tclass, "0x068001")) {   /* a CPU (C2C, POWER) */
		t->ignored_links += (int)v;
	} else if (!strncmp(tclass, "0x03", 4)) {
		for (g = 0; g < ngpu; g++)
			if (!S_strcasecmp(x->gpu[x->order[g]].busid, target))
				to = g;
		/* a link to itself, or to a GPU outside this dump: NCCL finds
		 * no device there and makes no link (topo.cc ncclTopoAddNvLinks) */
		if (to < 0 || to == from) {
			t->ignored_links += (int)v;
			return 0;
		}
		if (t->nvl[from][to] + v > 255)
			return errbuf_set(eb, "%s:%d: more than 255 NVLinks between two GPUs", file,
					  d->node[i].line);
		t->nvl[from][to] = (unsigned char)(t->nvl[from][to] + v);
	} else {
		return errbuf_set(eb, "%s:%d: <nvlink tclass=\"%s\">: not a GPU (0x03...), an NVSwitch "
				  "(0x068000) or a CPU (0x068001)", file, d->node[i].line, tclass);
	}
	return 0;
}

static int S_xml(const char *buf, size_t len, const char *file, struct topo *t, struct errbuf *eb)
{
	struct xdoc d = { 0 };
	struct xfound xf, *x = &xf;
	int i, rc = -1;
	int *nets_in = NULL, *nets_under = NULL;

	xf.ngpu = xf.nnic = 0;
	S_init(t, TOPO_XML);
	if (S_xml_parse(buf, len, file, &d, eb) < 0)
		goto out;
	if (!strcmp(d.node[0].name, "graphs")) {
		errbuf_set(eb, "%s:%d: this is NCCL's graph dump (NCCL_GRAPH_DUMP_FILE: the channels "
			   "NCCL found), not its topology dump (NCCL_TOPO_DUMP_FILE)", file, d.node[0].line);
		goto out;
	}
	if (strcmp(d.node[0].name, "system")) {
		errbuf_set(eb, "%s:%d: <%s>: NCCL's topology dump begins with <system>", file,
			   d.node[0].line, d.node[0].name);
		goto out;
	}
	/* the <net> ports of each <nic>, and of the <pci> above it */
	nets_in = calloc((size_t)d.nnodes, sizeof(int));
	nets_under = calloc((size_t)d.nnodes, sizeof(int));
	if (!nets_in || !nets_under) {
		errbuf_set(eb, "%s: out of memory", file);
		goto out;
	}
	for (i = 0; i < d.nnodes; i++) {
		int par = d.node[i].parent;
		if (strcmp(d.node[i].name, "net") || par < 0)
			continue;
		nets_in[par]++;
		if (d.node[par].parent >= 0)
			nets_under[d.node[par].parent]++;
	}
	for (i = 1; i < d.nnodes; i++)
		if (S_xelement(&d, i, nets_in, nets_under, x, t, file, eb) < 0)
			goto out;
	if (!x->ngpu) {
		errbuf_set(eb, "%s:%d: no GPU (a <pci> of class 0x03...) in the topology", file,
			   d.node[0].line);
		goto out;
	}
	if (S_xorder(&d, x, file, eb) < 0)
		goto out;
	t->gpus = x->ngpu;
	t->nics = x->nnic;
	S_xpaths(&d, x, t, file, eb);
	/* NVLinks, now that every GPU is known */
	for (i = 0; i < d.nnodes; i++)
		if (!strcmp(d.node[i].name, "nvlink") && S_xnvlink(&d, i, x, t, file, eb) < 0)
			goto out;
	rc = 0;
out:
	free(nets_in);
	free(nets_under);
	free(d.node);
	free(d.attr);
	return rc;
}

/* ---- both ---- */

int topo_parse(const char *buf, size_t len, const char *name, struct topo *t, struct errbuf *eb)
{
	size_t bom = bound_bom(buf, len), i;

	if (len > TOPO_FILE_MAX)
		return errbuf_set(eb, "%s: larger than %u MiB", name, TOPO_FILE_MAX >> 20);
	/* Both readers start after a byte order mark, which is not text. */
	buf += bom;
	len -= bom;
	for (i = 0; i < len && isspace((unsigned char)buf[i]); i++)
		;
	if (i < len && buf[i] == '<')
		return S_xml(buf, len, name, t, eb);
	S_init(t, TOPO_SMI);
	return topo_parse_smi(buf, len, name, t, eb);
}

int topo_read(const char *path, struct topo *t, struct errbuf *eb)
{
	FILE *f = fopen(path, "rb");
	char *b;
	size_t n;
	int rc;

	if (!f)
		return errbuf_set(eb, "cannot open topology file '%s': %s", path, strerror(errno));
	b = xmalloc(TOPO_FILE_MAX + 2);
	n = fread(b, 1, TOPO_FILE_MAX + 1, f);
	if (ferror(f)) {
		int e = errno;
		fclose(f);
		free(b);
		return errbuf_set(eb, "cannot read topology file '%s': %s", path, strerror(e));
	}
	fclose(f);
	b[n] = '\0';
	rc = topo_parse(b, n, path, t, eb);
	free(b);
	return rc;
}
