/*
 * commtime-probe: time MPI collectives over a size sweep and write the
 * result as nccl-tests writes its table, so that `commtime fit` reads it
 * as it reads all_reduce_perf.  It is the CPU user's nccl-tests: run it
 * with the MPI launcher the machine already has,
 *
 *     mpirun -np 2 ./commtime-probe                  one all-reduce table
 *     mpirun -np 16 --hostfile hosts ./commtime-probe --op all_gather -e 256M
 *
 * It is built by `make probe` with mpicc and is not part of commtime
 * itself (commtime never links MPI).  Method, per collective and size:
 * WARMUP calls, then a barrier and ITERS timed calls; a rank's time is
 * the wall time of the ITERS calls over ITERS, and the time printed is the
 * largest over the ranks (the collective is done when its slowest rank
 * is).  Out-of-place and in-place (MPI_IN_PLACE) are timed apart, as
 * nccl-tests does.  Sizes and bus bandwidths follow nccl-tests'
 * conventions (models/nccl-tests.md).  Rank 0 writes; progress goes to
 * stderr only when stderr is a terminal.  Every row is flushed and
 * checked: a write that fails (a full disk, standard output on /dev/full)
 * ends the sweep on every rank, says why, and the exit status is 1.
 */
#include <mpi.h>

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum op { P_ALLREDUCE, P_ALLGATHER, P_REDUCESCATTER, P_ALLTOALL, P_SENDRECV, P_COUNT };

static const struct {
	const char *name;      /* nccl-tests' name, as --op takes it */
	const char *alias;     /* without the underscore */
} ops[P_COUNT] = {
	{ "all_reduce", "allreduce" },
	{ "all_gather", "allgather" },
	{ "reduce_scatter", "reducescatter" },
	{ "alltoall", "all_to_all" },
	{ "sendrecv", "send_recv" },
};

static const char usage[] =
	"usage: mpirun -np N commtime-probe [options]\n"
	"\n"
	"Times MPI collectives over a size sweep and prints each as an nccl-tests\n"
	"table, which 'commtime fit' and 'commtime compare' read.\n"
	"\n"
	"options:\n"
	"  --op LIST        collectives, comma-separated: all_reduce (default),\n"
	"                   all_gather, reduce_scatter, alltoall, sendrecv, or all\n"
	"  -b, --minbytes SIZE   smallest size (default 8)\n"
	"  -e, --maxbytes SIZE   largest size (default 16M)\n"
	"  -f, --stepfactor N    size multiplier (default 2)\n"
	"  -w, --warmup N        untimed calls before each size (default 5)\n"
	"  -n, --iters N         timed calls per size (default 20)\n"
	"  -o, --output PREFIX   write each table to PREFIX<op>_perf.txt instead of\n"
	"                        stdout (needed for more than one collective)\n"
	"  -h, --help            show this text\n"
	"\n"
	"SIZE takes K, M, G suffixes (x1024, as nccl-tests' -b and -e).\n"
	"Every write is checked; one that fails ends the run with status 1.  A\n"
	"file of -o appears whole or not at all.  Under mpirun standard output\n"
	"reaches its file through mpirun, which does not report a failed write:\n"
	"give -o to have every write checked to the end.\n";

struct opts {
	int want[P_COUNT];
	long long minb, maxb;
	int factor, warmup, iters;
	const char *prefix;
	const char *minb_s, *maxb_s;   /* -b and -e as given, for messages */
};

/* A size as nccl-tests takes it: digits and an optional K, M or G (x1024). */
static int parse_size(const char *s, long long *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (end == s || errno || v < 0)
		return -1;
	switch (*end) {
	case 'K': case 'k': v <<= 10; end++; break;
	case 'M': case 'm': v <<= 20; end++; break;
	case 'G': case 'g': v <<= 30; end++; break;
	}
	if (*end || v > (1LL << 40))
		return -1;
	*out = v;
	return 0;
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || *end || errno || v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
}

static int parse_ops(char *list, int *want)
{
	char *tok, *save = NULL;
	int k, any = 0;

	memset(want, 0, P_COUNT * sizeof(*want));
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "all")) {
			for (k = 0; k < P_COUNT; k++)
				want[k] = 1;
			any = 1;
			continue;
		}
		for (k = 0; k < P_COUNT; k++)
			if (!strcmp(tok, ops[k].name) || !strcmp(tok, ops[k].alias))
				break;
		if (k == P_COUNT)
			return -1;
		want[k] = any = 1;
	}
	return any ? 0 : -1;
}

/*
 * Usage errors end every rank alike: each parses the same argv.  val, when
 * not NULL, is the value at fault, quoted after what.
 */
static void bad_usage(int rank, const char *what, const char *val)
{
	if (rank == 0) {
		if (what && val)
			fprintf(stderr, "commtime-probe: error: %s '%s'\n", what, val);
		else if (what)
			fprintf(stderr, "commtime-probe: error: %s\n", what);
		fputs(usage, stderr);
	}
	MPI_Finalize();
	exit(2);
}

static int parse_args(int argc, char **argv, int rank, struct opts *o)
{
	static const struct option lopts[] = {
		{ "op", required_argument, NULL, 'O' },
		{ "minbytes", required_argument, NULL, 'b' },
		{ "maxbytes", required_argument, NULL, 'e' },
		{ "stepfactor", required_argument, NULL, 'f' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "iters", required_argument, NULL, 'n' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c, nops = 0, k;

	memset(o, 0, sizeof(*o));
	o->want[P_ALLREDUCE] = 1;
	o->minb = 8;
	o->maxb = 16LL << 20;
	o->minb_s = "8";
	o->maxb_s = "16M";
	o->factor = 2;
	o->warmup = 5;
	o->iters = 20;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "b:e:f:w:n:o:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'O':
			if (parse_ops(optarg, o->want) < 0)
				bad_usage(rank, "--op: unknown collective in", optarg);
			break;
		case 'b':
			if (parse_size(optarg, &o->minb) < 0 || o->minb < 1)
				bad_usage(rank, "-b: cannot parse size", optarg);
			o->minb_s = optarg;
			break;
		case 'e':
			if (parse_size(optarg, &o->maxb) < 0 || o->maxb < 1)
				bad_usage(rank, "-e: cannot parse size", optarg);
			o->maxb_s = optarg;
			break;
		case 'f':
			if (parse_int(optarg, 2, 1024, &o->factor) < 0)
				bad_usage(rank, "-f: not a factor from 2 to 1024:", optarg);
			break;
		case 'w':
			if (parse_int(optarg, 0, 1000000, &o->warmup) < 0)
				bad_usage(rank, "-w: not a count:", optarg);
			break;
		case 'n':
			if (parse_int(optarg, 1, 1000000, &o->iters) < 0)
				bad_usage(rank, "-n: not a count from 1:", optarg);
			break;
		case 'o':
			o->prefix = optarg;
			break;
		case 'h':
			if (rank == 0)
				fputs(usage, stdout);
			MPI_Finalize();
			exit(0);
		default:
			bad_usage(rank, "unknown option or missing value:", argv[optind - 1]);
		}
	}
	if (optind < argc)
		bad_usage(rank, "unexpected argument", argv[optind]);
	if (o->minb > o->maxb) {
		char what[200];

		snprintf(what, sizeof(what), "-b %.60s is larger than -e %.60s (the largest size)",
			 o->minb_s, o->maxb_s);
		bad_usage(rank, what, NULL);
	}
	for (k = 0; k < P_COUNT; k++)
		nops += o->want[k];
	if (nops > 1 && !o->prefix)
		bad_usage(rank, "several collectives need -o PREFIX (one file each)", NULL);
	return 0;
}

/*
 * Elements of 4-byte floats per rank buffer for a nominal size S and the
 * size nccl-tests prints: all-reduce and send/recv move S in one buffer;
 * all-gather's S is the whole output (S/n per rank), reduce-scatter's the
 * whole input (S/n out per rank), all-to-all's one rank's send buffer
 * (S/n per peer).
 */
static long long chunk_of(enum op op, long long bytes, int n, long long *printed)
{
	long long per = bytes / 4;

	if (op == P_ALLGATHER || op == P_REDUCESCATTER || op == P_ALLTOALL)
		per /= n;
	if (per < 1)
		per = 1;
	*printed = (op == P_ALLREDUCE || op == P_SENDRECV) ? per * 4 : per * 4 * n;
	return per;
}

static double busbw_factor(enum op op, int n)
{
	switch (op) {
	case P_ALLREDUCE: return 2.0 * (n - 1) / n;
	case P_SENDRECV: return 1;
	default: return (double)(n - 1) / n;
	}
}

static void run_once(enum op op, int inplace, float *sb, float *rb, long long per,
		     int rank, int n)
{
	int cnt = (int)per;

	switch (op) {
	case P_ALLREDUCE:
		MPI_Allreduce(inplace ? MPI_IN_PLACE : sb, inplace ? sb : rb, cnt,
			      MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
		break;
	case P_ALLGATHER:
		if (inplace)
			MPI_Allgather(MPI_IN_PLACE, 0, MPI_FLOAT, rb, cnt, MPI_FLOAT,
				      MPI_COMM_WORLD);
		else
			MPI_Allgather(sb, cnt, MPI_FLOAT, rb, cnt, MPI_FLOAT, MPI_COMM_WORLD);
		break;
	case P_REDUCESCATTER:
		MPI_Reduce_scatter_block(inplace ? MPI_IN_PLACE : sb, inplace ? sb : rb, cnt,
					 MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
		break;
	case P_ALLTOALL:
		if (inplace)
			MPI_Alltoall(MPI_IN_PLACE, 0, MPI_FLOAT, rb, cnt, MPI_FLOAT,
				     MPI_COMM_WORLD);
		else
			MPI_Alltoall(sb, cnt, MPI_FLOAT, rb, cnt, MPI_FLOAT, MPI_COMM_WORLD);
		break;
	case P_SENDRECV: {
		int to = (rank + 1) % n, from = (rank + n - 1) % n;

		if (inplace)
			MPI_Sendrecv_replace(sb, cnt, MPI_FLOAT, to, 0, from, 0,
					     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		else
			MPI_Sendrecv(sb, cnt, MPI_FLOAT, to, 0, rb, cnt, MPI_FLOAT, from, 0,
				     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		break;
	}
	default:
		break;
	}
}

/* Seconds per call, the largest over the ranks. */
static double time_op(enum op op, int inplace, float *sb, float *rb, long long per,
		      const struct opts *o, int rank, int n)
{
	double t0, t, tmax;
	int i;

	for (i = 0; i < o->warmup; i++)
		run_once(op, inplace, sb, rb, per, rank, n);
	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	for (i = 0; i < o->iters; i++)
		run_once(op, inplace, sb, rb, per, rank, n);
	t = (MPI_Wtime() - t0) / o->iters;
	MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	return tmax;
}

/* nccl-tests prints a value in a field of w characters with 2 decimals if it fits. */
static void fmt_field(char *buf, size_t len, double v, int w)
{
	if (snprintf(buf, len, "%*.2f", w, v) <= w)
		return;
	if (snprintf(buf, len, "%*.1f", w, v) <= w)
		return;
	snprintf(buf, len, "%*.0f", w, v);
}

/*
 * Rank 0 tells every rank whether its writes to out have failed so far,
 * so that all stop together (a rank that went on alone would wait in its
 * next collective for ever).  Returns 0, or -1 on every rank after rank 0
 * said why on stderr.
 */
static int writes_ok(FILE *out, int rank, const char *where)
{
	int err = 0;

	if (rank == 0 && (fflush(out) != 0 || ferror(out))) {
		err = errno ? errno : EIO;
		fprintf(stderr, "commtime-probe: error: cannot write %s: %s\n", where,
			strerror(err));
	}
	MPI_Bcast(&err, 1, MPI_INT, 0, MPI_COMM_WORLD);
	return err ? -1 : 0;
}

static int sweep(enum op op, const struct opts *o, int rank, int n, FILE *out,
		 const char *where, const char *hosts, int progress)
{
	long long bytes, printed, maxper = 1, per;
	int steps = 0, step = 0;
	float *sb, *rb;
	size_t k;
	long long last = -1;

	for (bytes = o->minb; bytes <= o->maxb; bytes *= o->factor) {
		per = chunk_of(op, bytes, n, &printed);
		if (per > maxper)
			maxper = per;
		steps++;
	}
	/* All-gather and all-to-all receive n chunks; reduce-scatter sends n. */
	sb = malloc((size_t)maxper * (size_t)n * sizeof(float));
	rb = malloc((size_t)maxper * (size_t)n * sizeof(float));
	if (!sb || !rb) {
		if (rank == 0)
			fprintf(stderr, "commtime-probe: error: cannot allocate %lld bytes\n",
				maxper * n * 8LL);
		free(sb);
		free(rb);
		return -1;
	}
	for (k = 0; k < (size_t)maxper * (size_t)n; k++)
		sb[k] = rb[k] = 1.0f;

	if (rank == 0) {
		fprintf(out, "# commtime-probe: MPI %s, nccl-tests table layout\n", ops[op].name);
		fprintf(out, "# Collective test starting: %s_perf\n", ops[op].name);
		fprintf(out, "# nThread 1 nGpus 1 minBytes %lld maxBytes %lld step: %d(factor) "
			"warmup iters: %d iters: %d agg iters: 1 validation: 0 graph: 0\n",
			o->minb, o->maxb, o->factor, o->warmup, o->iters);
		fprintf(out, "#\n# Using devices\n%s#\n", hosts);
		fprintf(out, "# %10s  %12s  %8s  %6s  %6s           out-of-place"
			"                       in-place          \n", "", "", "", "", "");
		fprintf(out, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s\n",
			"size", "count", "type", "redop", "root", "time", "algbw", "busbw",
			"#wrong", "time", "algbw", "busbw", "#wrong");
		fprintf(out, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s\n",
			"(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "",
			"(us)", "(GB/s)", "(GB/s)", "");
	}
	errno = 0;
	if (writes_ok(out, rank, where) < 0) {
		free(sb);
		free(rb);
		return -1;
	}
	for (bytes = o->minb; bytes <= o->maxb; bytes *= o->factor) {
		double t[2];
		int ip;

		per = chunk_of(op, bytes, n, &printed);
		step++;
		if (printed == last)
			continue;
		last = printed;
		if (progress)
			fprintf(stderr, "\rcommtime-probe: %s %lld B (%d of %d) ", ops[op].name,
				printed, step, steps);
		for (ip = 0; ip < 2; ip++)
			t[ip] = time_op(op, ip, sb, rb, per, o, rank, n);
		if (rank == 0) {
			fprintf(out, "%12lld  %12lld  %8s  %6s  %6d", printed,
				op == P_ALLREDUCE || op == P_SENDRECV ? per : per * n,
				"float", op == P_ALLREDUCE || op == P_REDUCESCATTER ? "sum" : "none", -1);
			for (ip = 0; ip < 2; ip++) {
				double algbw = (double)printed / t[ip] / 1e9;
				char ts[32], ab[32], bb[32];

				fmt_field(ts, sizeof(ts), t[ip] * 1e6, 7);
				fmt_field(ab, sizeof(ab), algbw, 6);
				fmt_field(bb, sizeof(bb), algbw * busbw_factor(op, n), 6);
				fprintf(out, "  %7s  %6s  %6s  %6s", ts, ab, bb, "N/A");
			}
			fputc('\n', out);
		}
		/* a row that cannot be written ends the sweep on every rank */
		if (writes_ok(out, rank, where) < 0) {
			if (progress)
				fputs("\n", stderr);
			free(sb);
			free(rb);
			return -1;
		}
	}
	if (progress)
		fputs("\n", stderr);
	if (rank == 0)
		fprintf(out, "#\n# Collective test concluded: %s_perf\n#\n", ops[op].name);
	free(sb);
	free(rb);
	return writes_ok(out, rank, where);
}

/* "#  Rank  r Group  0 Pid p on host device  0 [cpu] MPI", one per rank, on rank 0. */
static char *rank_lines(int rank, int n)
{
	char line[320], host[MPI_MAX_PROCESSOR_NAME];
	char *all = NULL;
	int hl;

	MPI_Get_processor_name(host, &hl);
	snprintf(line, sizeof(line), "#  Rank %2d Group  0 Pid %6d on %10.200s device  0 [cpu] MPI\n",
		 rank, (int)getpid(), host);
	if (rank == 0)
		all = calloc((size_t)n, sizeof(line));
	MPI_Gather(line, (int)sizeof(line), MPI_CHAR, all, (int)sizeof(line), MPI_CHAR, 0,
		   MPI_COMM_WORLD);
	if (rank == 0) {
		char *joined = calloc((size_t)n, sizeof(line));
		int r;

		for (r = 0; r < n; r++)
			strcat(joined, all + (size_t)r * sizeof(line));
		free(all);
		return joined;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct opts o;
	int rank, n, k, rc = 0, progress;
	char *hosts;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	parse_args(argc, argv, rank, &o);
	if (n < 2) {
		if (rank == 0)
			fputs("commtime-probe: error: needs at least 2 ranks "
			      "(mpirun -np 2 ./commtime-probe)\n", stderr);
		MPI_Finalize();
		return 2;
	}
	progress = rank == 0 && isatty(2);
	hosts = rank_lines(rank, n);
	for (k = 0; k < P_COUNT && rc == 0; k++) {
		FILE *out = stdout;
		char path[4096], tmp[4200], where[4200] = "standard output";
		int direct = 0;

		if (!o.want[k])
			continue;
		if (o.prefix) {
			snprintf(path, sizeof(path), "%s%s_perf.txt", o.prefix, ops[k].name);
			snprintf(where, sizeof(where), "'%s'", path);
		}
		if (rank == 0 && o.prefix) {
			struct stat st;

			/*
			 * A new or regular file is written under a temporary name
			 * beside it and renamed when whole, so a failed run leaves
			 * the old table or none; a device or a FIFO is written as it is.
			 */
			direct = lstat(path, &st) == 0 && !S_ISREG(st.st_mode);
			snprintf(tmp, sizeof(tmp), "%s.commtime-probe-%d", path, (int)getpid());
			out = fopen(direct ? path : tmp, "w");
			if (!out) {
				fprintf(stderr, "commtime-probe: error: cannot write '%s': %s\n",
					direct ? path : tmp, strerror(errno));
				MPI_Abort(MPI_COMM_WORLD, 1);
			}
		}
		rc = sweep((enum op)k, &o, rank, n, out, where, hosts, progress);
		if (rank == 0 && out != stdout) {
			errno = 0;
			if (fclose(out) != 0) {
				if (rc == 0)
					fprintf(stderr, "commtime-probe: error: cannot write '%s': %s\n",
						path, strerror(errno ? errno : EIO));
				rc = -1;
			}
			if (rc == 0 && !direct && rename(tmp, path) != 0) {
				fprintf(stderr, "commtime-probe: error: cannot rename '%s' to '%s': %s\n",
					tmp, path, strerror(errno));
				rc = -1;
			}
			if (rc != 0 && !direct)
				unlink(tmp);
			if (rc == 0)
				fprintf(stderr, "commtime-probe: wrote %s\n", path);
		}
		/* every rank goes on to the next collective, or none */
		MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
	}
	free(hosts);
	MPI_Finalize();
	return rc ? 1 : 0;
}
