/*
 * The floor for the sweep benchmark: the simplest C loop that computes the
 * rows of
 *   commtime allreduce --ranks 2:1001:+1 --sizes 1:1G:x1.05 --algo ring,tree
 *            --format csv
 * (α = 5 µs, β = 200 GB/s) and prints them with printf, every number as
 * %.17g.  Not byte-identical to commtime (which prints the shortest digits
 * that read back exactly), but the same rows and columns.
 *
 * usage: naive_sweep [MAXRANKS]   (default 1001)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	const double alpha = 5e-6, beta = 200e9, stop = 1073741824.0;
	long maxranks = argc > 1 ? atol(argv[1]) : 1001;
	double sizes[1000];
	int nsizes = 0, k;
	long n;

	for (k = 0;; k++) {
		double s = pow(1.05, k);

		if (s > stop * (1 + 1e-9))
			break;
		sizes[nsizes++] = s;
	}
	puts("ranks,size_B,algo,time_s,algbw_Bps,busbw_Bps");
	for (n = 2; n <= maxranks; n++) {
		double L = ceil(log2((double)n)), factor = 2.0 * (n - 1) / n;

		for (k = 0; k < nsizes; k++) {
			double S = sizes[k];
			double ring = 2 * (n - 1) * (alpha + S / n / beta);
			double tree = 2 * L * (alpha + S / beta);

			printf("%ld,%.17g,ring,%.17g,%.17g,%.17g\n", n, S, ring,
			       S / ring, S / ring * factor);
			printf("%ld,%.17g,tree,%.17g,%.17g,%.17g\n", n, S, tree,
			       S / tree, S / tree * factor);
		}
	}
	return ferror(stdout) || fflush(stdout) ? 1 : 0;
}
