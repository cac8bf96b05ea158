/*
 * The option parser every command shares (see opts.h): one table per
 * command drives parsing, --help, the man page's option list and the
 * shell completions.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opts.h"
#include "util.h"

/* The help text starts in this column at most; longer options get a line. */
#define HELP_COL_MAX 26

static const struct opt help_opt = {
	.type = OPT_FLAG, .short_name = 'h', .long_name = "help", .help = "show this help"
};

/* A usage error: the message and where to look, two lines, exit 2. */
static void usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
static void usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("commtime: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (cmd)
		fprintf(stderr, "\nsee 'commtime %s --help'\n", cmd);
	else
		fputs("\nsee 'commtime --help'\n", stderr);
	exit(EXIT_USAGE);
}

/* Edit distance of two short strings, for "did you mean". */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	size_t row[64], prev, tmp;

	if (lb >= sizeof(row) / sizeof(row[0]) || la >= 64)
		return (size_t)-1;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t best = prev + (a[i - 1] != b[j - 1]);

			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			tmp = row[j];
			row[j] = best;
			prev = tmp;
		}
	}
	return row[lb];
}

/* The known option nearest to name (without dashes), or NULL. */
static const char *nearest(const struct opt *opts, const char *name, size_t len)
{
	char buf[64];
	const char *best = NULL;
	size_t bestd = (size_t)-1;
	const struct opt *o;

	if (len >= sizeof(buf))
		return NULL;
	memcpy(buf, name, len);
	buf[len] = '\0';
	for (o = opts; o->type != OPT_END; o++) {
		size_t d;

		if (!o->long_name)
			continue;
		/* a prefix of a longer name is the likeliest slip */
		d = !strncmp(o->long_name, buf, len) ? 1 : distance(buf, o->long_name);
		if (d < bestd) {
			bestd = d;
			best = o->long_name;
		}
	}
	return bestd <= 2 || (best && bestd <= strlen(best) / 3) ? best : NULL;
}

static void store(struct opt *o, const char *shown, const char *arg)
{
	struct errbuf eb;
	double x;

	o->given = arg ? arg : "";
	switch (o->type) {
	case OPT_FLAG:
		*(int *)o->value = 1;
		break;
	case OPT_STRING:
		*(const char **)o->value = arg;
		break;
	case OPT_NUMBER:
		*(double *)o->value = opt_quantity(shown, o->q, arg);
		break;
	case OPT_POSITIVE:
		*(double *)o->value = opt_positive(shown, o->q, arg);
		break;
	case OPT_SHARE:
		if (units_parse_fraction(arg, &x, &eb) < 0)
			die_usage("%s: %s", shown, eb.msg);
		if (!(x >= 0 && x <= 1))
			die_usage("%s: '%s' is out of range [0, 1]", shown, arg);
		*(double *)o->value = x;
		break;
	case OPT_LIST:
		opt_list(shown, o->q, arg, o->value);
		break;
	case OPT_RANKS:
		opt_ranks(shown, arg, o->value, 1);
		break;
	case OPT_CALLBACK:
		o->cb(o, arg);
		break;
	case OPT_END:
	case OPT_GROUP:
		break;
	}
}

static int takes_value(const struct opt *o)
{
	return o->type != OPT_FLAG;
}

/*
 * Take argv[*i] if it is one of opts: 1 taken, 0 not an option of opts.
 * Dies on a missing value, a value given to a flag or a repeat.
 */
static int take(struct opt *opts, int argc, char **argv, int *i, const char *cmd, int dry)
{
	const char *a = argv[*i], *arg = NULL;
	char shown[80];
	struct opt *o;

	if (a[0] != '-' || !a[1])
		return 0;
	for (o = opts; o->type != OPT_END; o++) {
		if (o->type == OPT_GROUP)
			continue;
		if (a[1] == '-' && o->long_name) {
			size_t n = strlen(o->long_name);

			if (strncmp(a + 2, o->long_name, n) || (a[2 + n] && a[2 + n] != '='))
				continue;
			if (a[2 + n] == '=') {
				if (!takes_value(o))
					usage_error(cmd, "option '--%s' takes no value", o->long_name);
				arg = a + 3 + n;
			}
		} else if (a[1] != '-' && o->short_name && a[1] == o->short_name) {
			if (a[2]) {
				if (!takes_value(o))
					usage_error(cmd, "option '-%c' takes no value", o->short_name);
				arg = a + 2;
			}
		} else
			continue;
		snprintf(shown, sizeof(shown), "--%s", o->long_name);
		if (o->given)
			die_usage("option '%s' given twice", shown);
		if (takes_value(o) && !arg) {
			if (*i + 1 >= argc)
				usage_error(cmd, "option '%s' needs a value", a);
			arg = argv[++*i];
		}
		++*i;
		if (dry)
			o->given = arg ? arg : "";
		else
			store(o, shown, arg);
		return 1;
	}
	return 0;
}

int opts_take(struct opt *opts, int argc, char **argv, int *i, const char *cmd)
{
	return take(opts, argc, argv, i, cmd, 0);
}

const char *opts_given(const struct opt *opts, const char *long_name)
{
	const struct opt *o;

	for (o = opts; o->type != OPT_END; o++)
		if (o->long_name && !strcmp(o->long_name, long_name))
			return o->given;
	return NULL;
}

/* "  -o, --output FILE" or "  --ranks LIST" into buf; returns its length. */
static size_t spec(char *buf, size_t len, const struct opt *o)
{
	int n;

	if (o->short_name)
		n = snprintf(buf, len, "  -%c, --%s%s%s", o->short_name, o->long_name,
			     o->argh ? " " : "", o->argh ? o->argh : "");
	else
		n = snprintf(buf, len, "  --%s%s%s", o->long_name,
			     o->argh ? " " : "", o->argh ? o->argh : "");
	return n < 0 ? 0 : (size_t)n;
}

static void print_one(FILE *f, const struct opt *o, size_t col)
{
	char buf[128];
	size_t n = spec(buf, sizeof(buf), o);
	const char *h = o->help ? o->help : "", *nl;

	fputs(buf, f);
	if (n + 2 > col) {
		fputc('\n', f);
		n = 0;
	}
	/* continuation lines of the help line up under its first */
	for (;;) {
		nl = strchr(h, '\n');
		fprintf(f, "%*s%.*s\n", (int)(col - n), "", nl ? (int)(nl - h) : (int)strlen(h), h);
		if (!nl)
			break;
		h = nl + 1;
		n = 0;
	}
}

static size_t help_column(const struct opt *opts)
{
	char buf[128];
	size_t col = spec(buf, sizeof(buf), &help_opt) + 2;
	const struct opt *o;

	for (o = opts; o->type != OPT_END; o++) {
		size_t n;

		if (o->type == OPT_GROUP)
			continue;
		n = spec(buf, sizeof(buf), o) + 2;
		if (n > col && n <= HELP_COL_MAX)
			col = n;
	}
	return col;
}

/* The option list; groups tagged with one of hide are left out. */
static void print_help(FILE *f, const struct opt *opts, size_t col, unsigned hide)
{
	const struct opt *o;
	int skip = 0, first = 1;

	if (opts->type != OPT_GROUP && opts->type != OPT_END)
		fputs("options:\n", f);
	for (o = opts; o->type != OPT_END; o++) {
		if (o->type == OPT_GROUP) {
			skip = (o->tag & hide) != 0;
			if (!skip) {
				fprintf(f, "%s%s:\n", first ? "" : "\n", o->help);
				first = 0;
			}
			continue;
		}
		if (!skip)
			print_one(f, o, col);
	}
}

void opts_print_help(FILE *f, const struct opt *opts)
{
	print_help(f, opts, help_column(opts), 0);
}

static void print_usage(FILE *f, const struct opt *opts, const struct opts_usage *u)
{
	const char *const *l;
	size_t col = help_column(opts), gcol = help_column(global_options);

	/* the command's options and the global ones in one column */
	if (gcol > col)
		col = gcol;
	for (l = u->lines; *l; l++)
		fprintf(f, "%s%s\n", l == u->lines ? "usage: " : "   or: ", *l);
	if (u->about)
		fprintf(f, "\n%s", u->about);
	fputc('\n', f);
	print_help(f, opts, col, 0);
	print_one(f, &help_opt, col);
	if (u->footer)
		fprintf(f, "\n%s", u->footer);
	fputc('\n', f);
	print_help(f, global_options, col, u->hide);
}

/* roff text: backslashes and dashes escaped, no line starting with '.'. */
static void roff_text(FILE *f, const char *s, size_t n)
{
	size_t i;

	if (n && (s[0] == '.' || s[0] == '\''))
		fputs("\\&", f);
	for (i = 0; i < n; i++) {
		if (s[i] == '\\')
			fputs("\\e", f);
		else if (s[i] == '-')
			fputs("\\-", f);
		else
			fputc(s[i], f);
	}
}

void opts_print_roff(FILE *f, const struct opt *opts)
{
	const struct opt *o;

	for (o = opts; o->type != OPT_END; o++) {
		const char *h = o->help ? o->help : "";

		if (o->type == OPT_GROUP) {
			fputs(".PP\n", f);
			roff_text(f, h, strlen(h));
			fputs(":\n", f);
			continue;
		}
		fputs(".TP\n", f);
		if (o->short_name) {
			fprintf(f, ".BI \\-%c%s", o->short_name, o->argh ? " \" " : "");
			if (o->argh) {
				roff_text(f, o->argh, strlen(o->argh));
				fputs("\\fR, \" ", f);
			} else
				fputs(" \"\\fR, \" ", f);
		} else
			fputs(".BI ", f);
		fputs("\\-\\-", f);
		roff_text(f, o->long_name, strlen(o->long_name));
		if (o->argh) {
			fputs(" \" ", f);
			roff_text(f, o->argh, strlen(o->argh));
			fputc('"', f);
		}
		fputc('\n', f);
		/* the help as --help prints it, its lines filled by the formatter */
		while (*h) {
			const char *nl = strchr(h, '\n');
			size_t n = nl ? (size_t)(nl - h) : strlen(h);

			while (n && *h == ' ')
				h++, n--;
			roff_text(f, h, n);
			fputc('\n', f);
			h += n + (nl != NULL);
		}
	}
}

void opts_print_complete(FILE *f, const struct opt *opts)
{
	const struct opt *o;

	for (o = opts; o->type != OPT_END; o++) {
		if (o->type == OPT_GROUP)
			continue;
		if (o->short_name)
			fprintf(f, "-%c\t%s\t%s\n", o->short_name, o->argh ? o->argh : "",
				o->complete ? o->complete : "");
		fprintf(f, "--%s\t%s\t%s\n", o->long_name, o->argh ? o->argh : "",
			o->complete ? o->complete : "");
	}
}

static void finish_help(void)
{
	fflush(stdout);
	if (ferror(stdout)) {
		fputs("commtime: error: cannot write standard output\n", stderr);
		exit(EXIT_DATA);
	}
	exit(EXIT_OK);
}

/*
 * One pass over the command line: dry, it only checks that every option
 * is known and given once; otherwise it stores the values and moves the
 * positional arguments to the front.
 */
static int parse_pass(int argc, char **argv, struct opt *opts, const struct opts_usage *u,
		      int dry)
{
	int i = 1, npos = 0, dashdash = 0;

	while (i < argc) {
		const char *a = argv[i];

		if (dashdash || a[0] != '-' || !a[1]) {
			if (!dry)
				argv[npos] = argv[i];
			npos++;
			i++;
			continue;
		}
		if (!strcmp(a, "--")) {
			dashdash = 1;
			i++;
			continue;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			print_usage(stdout, opts, u);
			finish_help();
		}
		/* for the man page and the completion scripts */
		if (!strcmp(a, "--help-roff")) {
			opts_print_roff(stdout, opts);
			finish_help();
		}
		if (!strcmp(a, "--help-complete")) {
			opts_print_complete(stdout, opts);
			finish_help();
		}
		if (take(opts, argc, argv, &i, u->cmd, dry))
			continue;
		{
			size_t n = strcspn(a + 2, "=");
			const char *near = a[1] == '-' ? nearest(opts, a + 2, n) : NULL;

			if (near)
				usage_error(u->cmd, "unknown option '%.*s'; did you mean '--%s'?",
					    (int)(a[1] == '-' ? n + 2 : 2), a, near);
			usage_error(u->cmd, "unknown option '%.*s'",
				    (int)(a[1] == '-' ? n + 2 : 2), a);
		}
	}
	return npos;
}

int opts_parse(int argc, char **argv, struct opt *opts, const struct opts_usage *u,
	       int maxpos)
{
	struct opt *o;
	int npos;

	/* Misuse (an unknown or repeated option) is reported before any value. */
	parse_pass(argc, argv, opts, u, 1);
	for (o = opts; o->type != OPT_END; o++)
		o->given = NULL;
	npos = parse_pass(argc, argv, opts, u, 0);
	if (npos > maxpos)
		usage_error(u->cmd, "unexpected argument '%s'", argv[maxpos]);
	argv[npos] = NULL;
	return npos;
}
