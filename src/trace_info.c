/*
 * The NCCL INFO reader of traces: NCCL_DEBUG=INFO lines naming collectives
 * (trace.h, models/trace.md).
 */
#define TRACE_INSIDE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bound.h"
#include "trace.h"
#include "units.h"

/* NCCL's ncclDataType_t (nccl.h): int8, uint8, int32, uint32, int64,
 * uint64, float16, float32, float64, bfloat16, fp8 e4m3, fp8 e5m2. */
static const double S_nccl_dtype_size[] = { 1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1 };
static const char *const S_nccl_dtype_name[] = {
	"int8", "uint8", "int32", "uint32", "int64", "uint64", "float16", "float32",
	"float64", "bfloat16", "f8e4m3", "f8e5m2"
};

static int S_field(const char *line, const char *key, double *x)
{
	const char *p = line;
	size_t n = strlen(key);

	while ((p = strstr(p, key)) != NULL) {
		if ((p == line || p[-1] == ' ' || p[-1] == '[') && (p[n] == ' ' || p[n] == '=')) {
			const char *v = p + n + 1;
			size_t got = units_scan_decimal(v, 0, x);
			/* "count 0x10", "count inf", "count 12abc": not a number. */
			return got && (v[got] == '\0' || v[got] == ' ' || v[got] == ']') &&
				isfinite(*x) ? 0 : -1;
		}
		p += n;
	}
	return -1;
}

static int S_info_line(struct trace *t, int file, const char *line, long lineno,
		       const char *name, struct errbuf *eb)
{
	const char *p = strstr(line, "NCCL INFO "), *colon;
	char coll[32];
	double count, dt, nranks;
	struct trace_kind k;

	if (!p)
		return 0;
	p += 10;
	colon = strstr(p, ": opCount ");
	if (!colon || colon - p >= (long)sizeof(coll) || colon == p)
		return 0;
	trace_copy(coll, sizeof(coll), p, (size_t)(colon - p));
	if (strchr(coll, ' '))
		return 0;
	if (S_field(colon, "count", &count) < 0 || bound_check(BOUND_COUNT, count) < 0)
		return errbuf_set(eb, "%s:%ld: %s line: its count is not %s in plain decimal",
				  name, lineno, coll, bound_what(BOUND_COUNT));
	if (S_field(colon, "datatype", &dt) < 0 || dt < 0 || dt != floor(dt) ||
	    dt >= (double)(sizeof(S_nccl_dtype_size) / sizeof(S_nccl_dtype_size[0])))
		return errbuf_set(eb, "%s:%ld: %s line without a known datatype (0-11)", name,
				  lineno, coll);
	memset(&k, 0, sizeof(k));
	k.file = file;
	k.line = lineno;
	snprintf(k.source, sizeof(k.source), "nccl-info");
	k.coll = trace_coll_lookup(coll);
	snprintf(k.op, sizeof(k.op), "%s", k.coll >= 0 ? coll_op_name(k.coll) : coll);
	snprintf(k.dtype, sizeof(k.dtype), "%s", S_nccl_dtype_name[(int)dt]);
	if (S_field(colon, "nranks", &nranks) == 0 && bound_check(BOUND_RANKS, nranks) == 0)
		k.ranks = (unsigned long)nranks;
	k.elems = count;
	k.size_B = count * S_nccl_dtype_size[(int)dt];
	/* NCCL's count is one rank's share for all-gather (send) and
	 * reduce-scatter (receive); nccl-tests' size is the whole buffer. */
	if ((k.coll == OP_ALLGATHER || k.coll == OP_REDUCESCATTER) && k.ranks) {
		k.size_B *= (double)k.ranks;
		k.elems *= (double)k.ranks;
	}
	{
		const char *cm = strstr(colon, " comm ");
		if (cm) {
			cm += 6;
			trace_copy(k.pg, sizeof(k.pg), cm, strcspn(cm, " "));
		}
	}
	t->files[file].comm_kernels++;
	if (trace_kind_add(t, &k, NAN, eb) < 0) {
		char why[sizeof(eb->msg)];

		memcpy(why, eb->msg, sizeof(why));
		return errbuf_set(eb, "%s:%ld: %s", name, lineno, why);
	}
	return 0;
}

int trace_read_text(struct trace *t, int file, struct reader *r, char *chunk, long got,
		       const char *name, struct errbuf *eb)
{
	char *line = xmalloc(TEXT_LINE_MAX + 1);
	size_t n = 0;
	long lineno = 1;
	int rc = 0;

	t->files[file].format = TRACE_NCCL_INFO;
	while (got > 0 && rc == 0) {
		long i;
		for (i = 0; i < got && rc == 0; i++) {
			char ch = chunk[i];
			if (ch == '\0') {
				rc = errbuf_set(eb, "%s:%ld: binary data (a NUL byte)", name, lineno);
				break;
			}
			if (ch != '\n') {
				if (n == TEXT_LINE_MAX) {
					rc = errbuf_set(eb, "%s:%ld: line longer than 64 KiB", name,
							lineno);
					break;
				}
				line[n++] = ch;
				continue;
			}
			line[n] = '\0';
			rc = S_info_line(t, file, line, lineno, name, eb);
			n = 0;
			lineno++;
		}
		if (rc == 0) {
			got = trace_reader_read(r, chunk, CHUNK, eb);
			if (got < 0)
				rc = -1;
		}
	}
	if (rc == 0 && n > 0) {
		line[n] = '\0';
		rc = S_info_line(t, file, line, lineno, name, eb);
	}
	free(line);
	if (rc == 0 && t->files[file].comm_kernels == 0)
		rc = errbuf_set(eb, "%s: no collective in it; expected a PyTorch profiler trace "
				"(JSON), NCCL Inspector JSON or NCCL INFO lines naming collectives "
				"(NCCL_DEBUG=INFO)", name);
	return rc;
}

