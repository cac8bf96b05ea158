/*
 * NCCL's names of its algorithms and protocols, and the NCCL_ALGO /
 * NCCL_PROTO lists (src/graph/tuning.cc:36-54 of NCCL 2.30.7, the names of
 * src/init.cc:53): what the model's options and the logs' TUNING lines
 * are read with.  models/nccl.md, section 3.
 */
#include <ctype.h>
#include <string.h>

#include "nccl_model.h"

static const char *const algo_names[NCCL_NALGO] = {
	"tree", "ring", "collnetdirect", "collnetchain", "nvls", "nvlstree", "pat"
};
static const char *const proto_names[NCCL_NPROTO] = { "LL", "LL128", "Simple" };

const char *nccl_algo_name(enum nccl_algo a)
{
	return (unsigned)a < NCCL_NALGO ? algo_names[a] : "?";
}

const char *nccl_proto_name(enum nccl_proto p)
{
	return (unsigned)p < NCCL_NPROTO ? proto_names[p] : "?";
}

/*
 * NCCL_ALGO / NCCL_PROTO syntax (tuning.cc:36-54): a comma list of names,
 * or "^" and the names to remove.  The per-collective prefixes are not
 * needed here: a command runs one collective.
 */
/*
 * The index of the len bytes at s among names, ignoring case (and '_'
 * when loose: NCCL's logs write "NVLS_TREE" and "COLLNET_DIRECT" as well
 * as "NVLSTree"); -1 when none.
 */
static int S_name_index(const char *s, size_t len, const char *const *names, int n,
			int loose)
{
	for (int i = 0; i < n; i++) {
		const char *a = names[i];
		size_t k = 0;

		for (; k < len; k++) {
			if (loose && s[k] == '_')
				continue;
			if (!*a || tolower((unsigned char)s[k]) != tolower((unsigned char)*a))
				break;
			a++;
		}
		if (k == len && !*a)
			return i;
	}
	return -1;
}

int nccl_algo_lookup(const char *s, size_t len)
{
	return S_name_index(s, len, algo_names, NCCL_NALGO, 1);
}

int nccl_proto_lookup(const char *s, size_t len)
{
	return S_name_index(s, len, proto_names, NCCL_NPROTO, 1);
}

static int S_mask(const char *s, const char *const *names, int n,
		  const char *what, unsigned *mask, struct errbuf *eb)
{
	int neg = s[0] == '^';
	unsigned m = 0;
	const char *p = s + neg;
	char choices[160] = "";

	for (int i = 0; i < n; i++) {
		strcat(choices, i ? ", " : "");
		strcat(choices, names[i]);
	}
	while (1) {
		size_t len = strcspn(p, ",");
		int i = S_name_index(p, len, names, n, 0);
		if (i < 0)
			return errbuf_set(eb, "unknown %s '%.*s' (choices: %s)", what,
					  (int)(len > 40 ? 40 : len), p, choices);
		m |= 1u << i;
		if (p[len] == '\0')
			break;
		p += len + 1;
	}
	*mask = neg ? ~m : m;
	return 0;
}

int nccl_algo_mask(const char *s, unsigned *mask, struct errbuf *eb)
{
	return S_mask(s, algo_names, NCCL_NALGO, "NCCL algorithm", mask, eb);
}

int nccl_proto_mask(const char *s, unsigned *mask, struct errbuf *eb)
{
	return S_mask(s, proto_names, NCCL_NPROTO, "NCCL protocol", mask, eb);
}
