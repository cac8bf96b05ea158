/*
 * Fuzz target: the readers of system and GPU presets (src/system.c).  Each
 * input is written to a temporary file and read as a preset; one of kind
 * `gpu` goes through gpu_from_preset(), one of kind `system` through
 * system_from_preset(), which resolves its gpu and link presets by name on
 * the search path (./presets when run from the top of the repository).  A
 * success holds every value within the bounds of models/system.md,
 * "Bounds"; a failure says why, starting with the file's name (file:line).
 * A deep copy of an accepted system is made and released.
 *
 * Inputs naming a device, /proc or /sys are passed over: a system may name
 * its links by any path, and reading /dev/stdin would wait for ever.
 *
 * Built by `make fuzz`; the unit tests run corpus/ through fuzz_system().
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model.h"
#include "preset.h"
#include "system.h"

#include "../fuzz_file.h"
#include "../fuzz_entry.h"

static int fuzz_system_holds(const uint8_t *data, size_t size, const char *s)
{
	size_t n = strlen(s), i;

	for (i = 0; i + n <= size; i++)
		if (!memcmp(data + i, s, n))
			return 1;
	return 0;
}

static const char *fuzz_system_gpu(const struct gpu_spec *g)
{
	if (g->arch <= ARCH_UNKNOWN || g->arch >= ARCH_COUNT)
		return "gpu_from_preset accepted an unknown architecture";
	if (!(g->memory_B > 0 && g->memory_B <= GPU_MEMORY_MAX))
		return "gpu_from_preset accepted a memory out of bounds";
	if (!(g->bf16_flops > 0 && g->bf16_flops <= GPU_TFLOPS_MAX * 1e12))
		return "gpu_from_preset accepted a bf16 peak out of bounds";
	if (g->nvlink_links > 64 || (g->nvlink_links > 0 &&
	    !(g->nvlink_link_Bps > 0 && g->nvlink_link_Bps <= LINK_BETA_MAX)))
		return "gpu_from_preset accepted NVLink links out of bounds";
	if (g->pcie_gen > 7)
		return "gpu_from_preset accepted a PCIe generation out of bounds";
	if (!g->name || !g->description)
		return "gpu_from_preset gave a GPU without its name or description";
	return NULL;
}

static const char *fuzz_system_tier(const struct tier *t)
{
	if (!(t->link.alpha >= 0 && t->link.alpha <= LINK_ALPHA_MAX) ||
	    !(t->link.beta > 0 && t->link.beta <= LINK_BETA_MAX) ||
	    !(t->beta_line > 0 && t->beta_line <= LINK_BETA_MAX) ||
	    !(t->base >= 0 && t->base <= LINK_ALPHA_MAX))
		return "system_from_preset accepted a tier out of bounds";
	return NULL;
}

static const char *fuzz_system_sys(const struct system *s)
{
	const char *why = fuzz_system_gpu(&s->gpu);

	if (why)
		return why;
	if (s->gpus_per_node < 1 || s->gpus_per_node > 1000000)
		return "system_from_preset accepted gpus_per_node out of bounds";
	if ((why = fuzz_system_tier(&s->intra)) != NULL)
		return why;
	if (s->have_inter && (why = fuzz_system_tier(&s->inter)) != NULL)
		return why;
	if (s->nics_per_node > 1024 || (s->nics_per_node > 0 && !s->have_inter) ||
	    (s->have_inter && s->nics_per_node == 0))
		return "system_from_preset accepted NICs without a link, or a link without NICs";
	if (s->nic_ports < 1 || s->nic_ports > 16 || s->nics_per_node % s->nic_ports)
		return "system_from_preset accepted nic_ports that do not divide the NICs";
	if (!(s->net_latency_s >= 0 && s->net_latency_s <= LINK_ALPHA_MAX))
		return "system_from_preset accepted net_latency out of bounds";
	if (!isnan(s->price_per_gpu_hour) &&
	    !(s->price_per_gpu_hour >= 0 && s->price_per_gpu_hour <= PRICE_PER_GPU_HOUR_MAX))
		return "system_from_preset accepted a price out of bounds";
	if (system_nodes(s, 1) != 1 || system_nodes(s, s->gpus_per_node + 1) != 2)
		return "system_nodes does not pack ranks on nodes";
	return NULL;
}

static const char *fuzz_system(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file("system"), *why = NULL;
	struct preset_dirs d;
	struct preset p;
	struct errbuf eb;
	int r;

	if (fuzz_system_holds(data, size, "/dev/") || fuzz_system_holds(data, size, "/proc/") ||
	    fuzz_system_holds(data, size, "/sys/"))
		return NULL;
	if ((why = fuzz_file_write(path, "", data, size)) != NULL)
		return why;
	if (preset_load_file(path, &p, &eb) < 0)
		return NULL;    /* the preset reader's own target checks this */
	eb.msg[0] = '\0';
	if (!strcmp(p.kind, "gpu")) {
		struct gpu_spec g;

		r = gpu_from_preset(&p, &g, &eb);
		if (r == 0) {
			why = fuzz_system_gpu(&g);
			/* its family's reference, read off the search path */
			preset_dirs_init(&d, NULL, NULL);
			r = gpu_family(&d, &p, &g, &eb);
			preset_dirs_release(&d);
			if (!why && r == 0 && (!(g.family_share >= 0) || isinf(g.family_share)))
				why = "gpu_family gave a share that is not a number";
			free(g.name);
			free(g.description);
		}
	} else if (!strcmp(p.kind, "system")) {
		struct system s;

		preset_dirs_init(&d, NULL, NULL);
		r = system_from_preset(&d, &p, &s, &eb);
		preset_dirs_release(&d);
		if (r == 0) {
			why = fuzz_system_sys(&s);
			system_release(&s);
		}
	} else {
		preset_release(&p);
		return NULL;
	}
	if (!why && r < 0 && (!eb.msg[0] || strncmp(eb.msg, path, strlen(path))))
		why = "a system or gpu preset was refused without file:line";
	preset_release(&p);
	return why;
}

FUZZ_ENTRY(fuzz_system)
