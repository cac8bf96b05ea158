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

/* The first and last bytes gnuplot drew and how many, to tell a whole image. */
struct image_ends {
	unsigned char head[16], tail[64];
	size_t nhead, ntail, total;
};

/* Keep the image's first bytes and its last ones, with the n in buf. */
static void keep_ends(struct image_ends *e, const unsigned char *buf, size_t n)
{
	if (e->nhead < sizeof(e->head)) {
		size_t k = n < sizeof(e->head) - e->nhead ? n : sizeof(e->head) - e->nhead;

		memcpy(e->head + e->nhead, buf, k);
		e->nhead += k;
	}
	if (n >= sizeof(e->tail)) {
		memcpy(e->tail, buf + n - sizeof(e->tail), sizeof(e->tail));
		e->ntail = sizeof(e->tail);
	} else {
		size_t keep = e->ntail + n > sizeof(e->tail) ? sizeof(e->tail) - n : e->ntail;

		memmove(e->tail, e->tail + e->ntail - keep, keep);
		memcpy(e->tail + keep, buf, n);
		e->ntail = keep + n;
	}
	e->total += n;
}

/*
 * Start gnuplot on two new pipes: it reads its script from to[0] and
 * draws into from[1], both ends closed here; when it cannot start, free
 * script and die.
 */
static pid_t spawn_gnuplot(int to[2], int from[2], char *script, const char *shown)
{
	posix_spawn_file_actions_t fa;
	char *gargv[] = { "gnuplot", "/dev/stdin", NULL };
	pid_t pid;
	int st;

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
	return pid;
}

/*
 * Feed gnuplot the slen bytes of script through to[1] as it reads them
 * (closed, and set to -1, once all are sent or it stops reading) while
 * copying the image it draws from from_fd into img, the stream of o,
 * until it has drawn all.
 */
static void serve_gnuplot(int to[2], int from_fd, const char *script, size_t slen,
			  struct outfile *o, FILE *img, struct image_ends *e, const char *shown)
{
	unsigned char buf[1 << 16];
	size_t sent = 0;

	fcntl(to[1], F_SETFL, fcntl(to[1], F_GETFL) | O_NONBLOCK);
	for (;;) {
		struct pollfd pf[2] = {
			{ .fd = to[1], .events = POLLOUT },
			{ .fd = from_fd, .events = POLLIN },
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
		n = read(from_fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		keep_ends(e, buf, (size_t)n);
		/* A write error shows in outfile_commit, with its reason; the
		 * rest of the image is read and dropped. */
		errno = 0;
		if (!ferror(img) && fwrite(buf, 1, (size_t)n, img) != (size_t)n)
			outfile_fail(o, errno);
	}
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
	struct image_ends e = { 0 };
	size_t slen = 0;
	char *script = NULL;
	struct errbuf eb;
	int to[2], from[2], status;
	FILE *ms, *img = outfile_stream(o);
	pid_t pid;

	ms = open_memstream(&script, &slen);
	if (!ms)
		die("cannot render '%s':", shown);
	if (plot_write(f, ms, term, NULL, &eb) < 0 || fclose(ms) != 0)
		die("cannot render '%s': %s", shown, eb.msg);
	pid = spawn_gnuplot(to, from, script, shown);
	/* gnuplot may stop reading early; that is its error to report, not a
	 * signal that kills us. */
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &ign, &old);
	serve_gnuplot(to, from[0], script, slen, o, img, &e, shown);
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
	if (!e.total)
		die("gnuplot drew nothing into '%s'", shown);
	if (!ferror(img) && !plot_image_complete(term, e.head, e.nhead, e.tail, e.ntail))
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
