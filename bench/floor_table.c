/*
 * The floor for the default-table benchmark: the smallest C program that
 * prints what `commtime --alpha 5e-6 --beta 200e9` prints (bench/run.sh
 * checks that the bytes are the same), with the numbers computed, not
 * stored: ring and the seed's tree at 4, 8, 16 and 64 ranks for 4 KiB,
 * 4 MiB and 1 GiB, and the closed-form crossover sizes.  No option
 * parsing, no presets, no GSL: what is left is process start-up and printf.
 */
#include <math.h>
#include <stdio.h>

#define MU "\xc2\xb5"

static const double alpha = 5e-6, beta = 200e9;

static double ring(double n, double S)
{
	return 2 * (n - 1) * (alpha + S / n / beta);
}

static double tree(double L, double S)
{
	return 2 * L * (alpha + S / beta);
}

int main(void)
{
	static const int ranks[] = { 4, 8, 16, 64 };
	static const double sizes[] = { 4096, 4194304, 1073741824 };
	static const char *const size_names[] = { "4 KiB", "4 MiB", "1 GiB" };
	int i, j;

	printf("alpha: 5.00 " MU "s\nbeta: 200 GB/s\n"
	       "half-bandwidth size n\xc2\xbd = alpha*beta: 1 MB "
	       "(below it one link is latency-bound)\n\n"
	       "all-reduce time per rank count and message size\n"
	       "ranks       size          ring          tree  faster\n");
	for (i = 0; i < 4; i++) {
		double n = ranks[i], L = ceil(log2(n));

		for (j = 0; j < 3; j++) {
			double r = ring(n, sizes[j]), t = tree(L, sizes[j]);

			printf("%5d  %9s  %9.1f " MU "s  %9.1f " MU "s  %s\n", ranks[i],
			       size_names[j], r * 1e6, t * 1e6, r < t ? "ring" : "tree");
		}
	}
	printf("\ncrossover sizes: where two algorithms take equal time\n"
	       "ranks  a     b     crossover  time there  note\n");
	for (i = 0; i < 4; i++) {
		double n = ranks[i], L = ceil(log2(n));
		double s = alpha * beta * (n - 1 - L) / (L - (n - 1) / n);
		char size[32], time[32];

		if (s >= 1e6)
			snprintf(size, sizeof(size), "%.4g MB", s / 1e6);
		else
			snprintf(size, sizeof(size), "%.4g kB", s / 1e3);
		snprintf(time, sizeof(time), "%#.4g " MU "s", ring(n, s) * 1e6);
		/* 11 bytes: µ takes two */
		printf("%5d  ring  tree  %9s  %11s  tree faster below, ring above\n",
		       ranks[i], size, time);
	}
	return fflush(stdout) != 0;
}
