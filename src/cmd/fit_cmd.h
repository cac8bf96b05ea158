#ifndef COMMTIME_FIT_CMD_H
#define COMMTIME_FIT_CMD_H

/*
 * The parts of `commtime fit` that live in files of their own:
 * cmd_fit.c parses the options and reports a plain fit, fit_io.c reads
 * the rows and saves the link, fit_system.c calibrates a system,
 * fit_figure.c draws the fit.
 */
#include "cli.h"
#include "fit.h"
#include "measfile.h"

/*
 * The sizes (B) and times (s; the in-place ones with in_place) of m, in
 * new arrays; dies with "file:line: no in-place time" where one is missing.
 */
void fit_meas_rows(const struct meas *m, int in_place, double **S, double **T);

/*
 * Save a plain fit as a link preset (fit_preset_write) named `name` at
 * path, with where it came from as comments (h: NULL without --holdout).
 * Dies on error.
 */
void fit_save_link(const char *path, const struct meas *m, const struct ab_fit *ab,
		   const struct fit_model *fm, const struct holdout *h, int inplace,
		   const char *name);

/* Base name of path without directories and without ".preset" (malloc'd). */
char *fit_preset_name_of(const char *path);

/*
 * `fit --system S LOG...`: calibrate the system's tiers from the logs
 * (one-node logs the intra tier, multi-node logs the NICs), report them
 * and the logs' errors, predict `check` (may be NULL) held out, and with
 * save_path write the calibrated system presets.  Dies on error.
 */
int fit_system(char **files, size_t nfiles, const char *check, const struct meas_args *ma,
	       const struct fit_opts *fo, const char *save_path, int force, struct ctx *ctx);

/*
 * The figure of a plain fit (--plot, --render; nothing without them):
 * measured points by regime, the α-β and regime curves, and their relative
 * errors.  S, T: the m->n sizes (B) and times (s) fitted.
 */
void fit_figure(const struct ctx *ctx, const struct meas *m, const double *S,
		const double *T, const struct ab_fit *ab, const struct fit_model *fm,
		const struct fit_model *fab, int inplace);

/* "1", or "1-2" for a size between the sizes of regimes 1 and 2. */
void fit_regime_of(const struct fit_model *fm, double S, char *buf, size_t len);

#endif
