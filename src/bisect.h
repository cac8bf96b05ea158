#ifndef COMMTIME_BISECT_H
#define COMMTIME_BISECT_H

/*
 * Where a property of the message size changes, by bisection in log S.
 * at(S, arg) returns 1 on the side of *lo, 0 on the side of *hi, and -1
 * on an error (arg carries why).  Narrows [*lo, *hi] (0 < *lo < *hi, in
 * B) until *hi / *lo <= 1 + rel or after 200 halvings; on return *lo
 * still has the property and *hi does not.  Returns 0, or -1 when at()
 * failed.  Used where a model is not smooth enough for a root finder: a
 * protocol switch, a change of bounding tier, half of a plateau.
 */
int bisect_log(double *lo, double *hi, double rel, int (*at)(double S, void *arg), void *arg);

#endif
