/*
 * Fuzz target: the topology reader of src/topo.h (nvidia-smi topo -m
 * matrices and NCCL's XML dumps).  Every input either fails with a
 * message that names the file, or gives a node within the reader's bounds
 * (1 to TOPO_MAX_GPUS GPUs, paths among the known ones, a matrix's NVLinks
 * the same both ways); a node with NVLinks then goes through NCCL's
 * channel search (src/nccl_search.c), which must find at least one
 * channel within its limits.
 *
 * Built by `make fuzz` with clang -fsanitize=fuzzer,address,undefined.
 * The unit tests include this file with FUZZ_NO_MAIN defined and run
 * every file of corpus/ through fuzz_topo() (tests/unit/test_fuzzcorpus.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nccl_search.h"
#include "topo.h"
#include "../fuzz_entry.h"

static const char *fuzz_topo(const uint8_t *data, size_t size)
{
	struct topo *t = malloc(sizeof *t);
	struct nccl_machine *m = malloc(sizeof *m);
	struct nccl_found *f = malloc(sizeof *f);
	struct errbuf eb;
	const char *why = NULL;
	int i, j, links = 0;

	if (!t || !m || !f)
		goto out;
	eb.msg[0] = '\0';
	if (topo_parse((const char *)data, size, "fuzz", t, &eb) < 0) {
		if (strncmp(eb.msg, "fuzz", 4) || !memchr(eb.msg, '\0', sizeof eb.msg))
			why = "a failure without a message naming the file";
		goto out;
	}
	if (t->gpus < 1 || t->gpus > TOPO_MAX_GPUS || t->nics < 0 || t->nics > TOPO_MAX_NICS) {
		why = "GPU or NIC count out of bounds";
		goto out;
	}
	for (i = 0; i < t->gpus; i++) {
		if (t->nic_path[i] < TOPO_PATH_NONE || t->nic_path[i] >= TOPO_PATH_COUNT) {
			why = "a NIC path out of range";
			goto out;
		}
		for (j = 0; j < t->gpus; j++) {
			if (t->gpu_path[i][j] < TOPO_PATH_NONE || t->gpu_path[i][j] >= TOPO_PATH_COUNT) {
				why = "a GPU path out of range";
				goto out;
			}
			if (t->format == TOPO_SMI && t->nvl[i][j] != t->nvl[j][i]) {
				why = "a matrix's NVLinks differ between the two ways";
				goto out;
			}
			links += t->nvl[i][j];
		}
	}
	if (!links || t->gpus < 2)
		goto out;
	memset(m, 0, sizeof *m);
	m->sm = t->sm ? t->sm : 80;
	m->gpus_per_node = t->gpus;
	m->pcie_gen = 4;
	m->pcie_path = NCCL_PATH_SYS;
	m->p2p = 1;
	m->mesh = 1;
	for (i = 0; i < t->gpus; i++)
		for (j = 0; j < t->gpus; j++)
			m->nvl[i][j] = t->nvl[i][j];
	if (nccl_search_node(m, NCCL_PATTERN_RING, 1, 32, f) < 0)
		why = "the search refused a mesh";
	else if (f->nchannels < 1 || f->nchannels > 32 || !(f->bw_intra > 0))
		why = "the search found no channel within its limits";
out:
	free(t);
	free(m);
	free(f);
	return why;
}

FUZZ_ENTRY(fuzz_topo)
