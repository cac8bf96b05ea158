#include <math.h>

#include "bisect.h"

int bisect_log(double *lo, double *hi, double rel, int (*at)(double S, void *arg), void *arg)
{
	int i;

	for (i = 0; i < 200 && *hi / *lo > 1 + rel; i++) {
		double mid = sqrt(*lo * *hi);
		int r = at(mid, arg);

		if (r < 0)
			return -1;
		if (r)
			*lo = mid;
		else
			*hi = mid;
	}
	return 0;
}
