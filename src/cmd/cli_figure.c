/*
 * Figures: the gnuplot script a --plot writes, and the image --render has
 * gnuplot draw from it, without a shell.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <math.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "outfile.h"

extern char **environ;

/* The image a --plot script draws when --render does not name one:
 * the script's name with .svg for .gp. */
static char *default_image(const char *script)
{
	size_t n = strlen(script);
	char *img = xmalloc(n + 5);

	memcpy(img, script, n + 1);
	if (n > 3 && !strcmp(script + n - 3, ".gp"))
		img[n - 3] = '\0';
	strcat(img, ".svg");
	return img;
}

char *ctx_script_image(const struct ctx *ctx)
{
	char *name = ctx->render ? xstrdup(ctx->render) : default_image(ctx->plot);
	char *img;
	struct errbuf eb;

	img = plot_output_name(name, &eb);
	free(name);
	if (!img)
		die_usage("%s: %s", ctx->render ? "--render" : "--plot", eb.msg);
	return img;
}

/*
 * Run gnuplot on the figure's script and copy the image it draws into o.
 * The script names no output file: gnuplot draws to its standard output,
 * a pipe read here, so no name from the command line ever reaches gnuplot
 * (nothing to pipe into a command, no '~' to expand, nothing to cut), and
 * no shell runs.  The script goes in through another pipe; both are
 * served by one poll() loop, because gnuplot may write a panel's image
 * before it has read the whole script.  gnuplot exits 0 after write
 * errors of its own, so the image is checked for its end before it may
 * replace anything.  gnuplot reads a script on its standard input one
 * byte a read(2) (1.2 s of CPU for the 680 KB of a search figure), a file
 * it is given by name through stdio's buffer, so it is given the pipe as
 * /dev/stdin where that exists.
 */
static void render(const struct figure *f, const char *term, struct outfile *o,
		   const char *shown)
{
	struct sigaction ign, old;
	posix_spawn_file_actions_t fa;
	char *gargv[] = { "gnuplot", "/dev/stdin", NULL };
	unsigned char buf[1 << 16], head[16], tail[64];
	size_t nhead = 0, ntail = 0, sent = 0, slen = 0, total = 0;
	char *script = NULL;
	struct errbuf eb;
	int to[2], from[2], st, status;
	FILE *ms, *img = outfile_stream(o);
	pid_t pid;

	ms = open_memstream(&script, &slen);
	if (!ms)
		die("cannot render '%s':", shown);
	if (plot_write(f, ms, term, NULL, &eb) < 0 || fclose(ms) != 0)
		die("cannot render '%s': %s", shown, eb.msg);
	if (pipe(to) < 0 || pipe(from) < 0)
		die("cannot start gnuplot:");
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, to[0], 0);
	posix_spawn_file_actions_adddup2(&fa, from[1], 1);
	posix_spawn_file_actions_addclose(&fa, to[0]);
	posix_spawn_file_actions_addclose(&fa, to[1]);
	posix_spawn_file_actions_addclose(&fa, from[0]);
	posix_spawn_file_actions_addclose(&fa, from[1]);
	if (access("/dev/stdin", F_OK) != 0)
		gargv[1] = NULL;
	st = posix_spawnp(&pid, "gnuplot", &fa, NULL, gargv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(to[0]);
	close(from[1]);
	if (st) {
		close(to[1]);
		close(from[0]);
		free(script);
		if (st == ENOENT)
			die("cannot render '%s': gnuplot is not on PATH; install it "
			    "(Debian: apt-get install gnuplot-nox)", shown);
		die("cannot run gnuplot: %s", strerror(st));
	}
	/* gnuplot may stop reading early; that is its error to report, not a
	 * signal that kills us. */
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &ign, &old);
	fcntl(to[1], F_SETFL, fcntl(to[1], F_GETFL) | O_NONBLOCK);
	for (;;) {
		struct pollfd pf[2] = {
			{ .fd = to[1], .events = POLLOUT },
			{ .fd = from[0], .events = POLLIN },
		};
		ssize_t n;

		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			die("cannot render '%s':", shown);
		}
		if (to[1] >= 0 && pf[0].revents) {
			n = write(to[1], script + sent, slen - sent);
			if (n > 0)
				sent += (size_t)n;
			if ((n < 0 && errno != EAGAIN && errno != EINTR) || sent == slen) {
				close(to[1]);
				to[1] = -1;
			}
		}
		if (!pf[1].revents)
			continue;
		n = read(from[0], buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (nhead < sizeof(head)) {
			size_t k = (size_t)n < sizeof(head) - nhead ? (size_t)n : sizeof(head) - nhead;

			memcpy(head + nhead, buf, k);
			nhead += k;
		}
		if ((size_t)n >= sizeof(tail)) {
			memcpy(tail, buf + n - sizeof(tail), sizeof(tail));
			ntail = sizeof(tail);
		} else {
			size_t keep = ntail + (size_t)n > sizeof(tail) ? sizeof(tail) - (size_t)n : ntail;

			memmove(tail, tail + ntail - keep, keep);
			memcpy(tail + keep, buf, (size_t)n);
			ntail = keep + (size_t)n;
		}
		total += (size_t)n;
		/* A write error shows in outfile_commit, with its reason; the
		 * rest of the image is read and dropped. */
		errno = 0;
		if (!ferror(img) && fwrite(buf, 1, (size_t)n, img) != (size_t)n)
			outfile_fail(o, errno);
	}
	if (to[1] >= 0)
		close(to[1]);
	close(from[0]);
	free(script);
	sigaction(SIGPIPE, &old, NULL);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			die("cannot wait for gnuplot:");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		die("gnuplot failed to render '%s' (see its message above)", shown);
	if (!total)
		die("gnuplot drew nothing into '%s'", shown);
	if (!ferror(img) && !plot_image_complete(term, head, nhead, tail, ntail))
		die("gnuplot wrote an incomplete %s image for '%s'", term, shown);
}

void ctx_figure(const struct ctx *ctx, struct figure *f)
{
	struct errbuf eb;
	struct outfile *o;

	if (ctx->fig_width > 0) {
		f->width = ctx->fig_width;
		f->height = ctx->fig_height;
	}
	if (ctx->fig_title) {
		free(f->title);
		f->title = xstrdup(ctx->fig_title);
		/* one panel carries the figure's title itself */
		if (f->npanels == 1) {
			free(f->panels[0].title);
			f->panels[0].title = xstrdup(ctx->fig_title);
		}
	}

	if (ctx->plot) {
		char *img = ctx_script_image(ctx);
		const char *term = plot_terminal_for(ctx->render ? ctx->render : ".svg");

		o = outfile_open(ctx->plot, &eb);
		if (!o)
			die("%s", eb.msg);
		if (plot_write(f, outfile_stream(o), term, img, &eb) < 0) {
			outfile_abort(o);
			die("%s", eb.msg);
		}
		free(img);
		if (outfile_commit(o, &eb) < 0)
			die("%s", eb.msg);
	}
	if (ctx->render) {
		o = outfile_open(ctx->render, &eb);
		if (!o)
			die("%s", eb.msg);
		render(f, plot_terminal_for(ctx->render), o, ctx->render);
		if (outfile_commit(o, &eb) < 0)
			die("%s", eb.msg);
	}
}

char *ctx_link_text(const struct ctx *ctx, char *buf, size_t len)
{
	char a[32], b[32];

	if (ctx->machine.have_system) {
		snprintf(buf, len, "%s (%s model)", ctx->machine.system.name,
			 cost_kind_name(ctx->machine.model.kind));
		return buf;
	}
	units_fmt_time(a, sizeof(a), ctx->machine.model.link.alpha, 3);
	units_fmt_rate(b, sizeof(b), ctx->machine.model.link.beta, 4);
	if (ctx->machine.have_preset)
		snprintf(buf, len, "\xce\xb1 = %s, \xce\xb2 = %s (%s)", a, b, ctx->machine.preset.name);
	else
		snprintf(buf, len, "\xce\xb1 = %s, \xce\xb2 = %s", a, b);
	return buf;
}

char *fig_size_text(char *buf, size_t len, double bytes)
{
	static const char *const bin[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double q = bytes;
	int k = 0;

	while (q >= 1024 && k < 5) {
		q /= 1024;
		k++;
	}
	snprintf(buf, len, "%.4g %s", q, bin[k]);
	return buf;
}

void fig_whole_decades(struct panel *p)
{
	double lo = INFINITY, hi = 0;
	size_t i, j;

	for (i = 0; i < p->nseries; i++)
		for (j = 0; j < p->series[i].n; j++) {
			double y = p->series[i].data[j * (size_t)p->series[i].ncols + 1];

			if (y > 0 && y < lo)
				lo = y;
			if (y > hi)
				hi = y;
		}
	if (lo <= hi && hi / lo < 10) {
		p->ymin = pow(10, floor(log10(lo / 3)));
		p->ymax = pow(10, ceil(log10(hi * 3)));
	}
}

int ctx_wants_figure(const struct ctx *ctx)
{
	return ctx->plot || ctx->render;
}

/*
 * "16 ranks (2 nodes of 8 GPUs)", "8 and 64 ranks (1 and 8 nodes of 8
 * GPUs)" on a system, "8 ranks" on a link: who the figure is about.
 */
void fig_ranks_text(const struct ctx *ctx, const struct dlist *ranks, char *buf, size_t len)
{
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < ranks->n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%.0f",
					 i == 0 ? "" : i + 1 == ranks->n ? " and " : ", ", ranks->v[i]);
	if (used < len)
		used += (size_t)snprintf(buf + used, len - used, " rank%s", ranks->n == 1 &&
					 ranks->v[0] == 1 ? "" : "s");
	if (!ctx->machine.have_system)
		return;
	for (i = 0; i < ranks->n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%lu",
					 i == 0 ? " (" : i + 1 == ranks->n ? " and " : ", ",
					 system_nodes(&ctx->machine.system, (unsigned long)ranks->v[i]));
	if (used < len)
		snprintf(buf + used, len - used, " node%s of %lu GPUs)",
			 ranks->n == 1 && system_nodes(&ctx->machine.system, (unsigned long)ranks->v[0]) == 1 ?
			 "" : "s", ctx->machine.system.gpus_per_node);
}
