#ifndef COMMTIME_OPTS_H
#define COMMTIME_OPTS_H

#include <stdio.h>

#include "units.h"
#include "util.h"

/*
 * Declarative command-line options, after git's parse-options: each
 * command describes its options once, in an array of struct opt, and that
 * array drives the parsing, the --help text, the man page's option list
 * (--help-roff) and the shell completions (--help-complete).  Options
 * shared by several commands are defined once, as the OPTS_* groups of
 * cli.h.
 *
 * Parsing rules, the same for every command:
 *  - "--name VALUE", "--name=VALUE", "-n VALUE" and "-nVALUE";
 *  - a flag takes no value ("--in-place=1" is an error);
 *  - an option given twice is a usage error, never a silent "last wins";
 *  - an unknown option is a usage error of at most three lines: the
 *    option, the nearest known one, and where to read about the others;
 *  - anything that is not an option is a positional argument, in order;
 *    after "--" everything is positional; "-" alone is positional;
 *  - -h and --help print the generated usage to stdout and exit 0.
 * Values are parsed when they are met, so errors follow the command line.
 *
 * This file talks to the user (usage and errors) like the commands.
 */

enum opt_type {
	OPT_END = 0,   /* ends the array */
	OPT_GROUP,     /* a heading in the usage text; .help is the heading */
	OPT_FLAG,      /* no value; sets *(int *)value to 1 */
	OPT_STRING,    /* *(const char **)value = the value as given */
	OPT_NUMBER,    /* *(double *)value = the value parsed as quantity q */
	OPT_POSITIVE,  /* the same, and it must be above 0 */
	OPT_SHARE,     /* *(double *)value = a fraction "0.1" or "10%" in [0, 1] */
	OPT_LIST,      /* *(struct dlist *)value = a list of quantity q */
	OPT_RANKS,     /* *(struct dlist *)value = rank counts, 1 to RANKS_MAX */
	OPT_CALLBACK   /* cb(opt, value); cb stores into opt->value or dies */
};

struct opt;
typedef void opt_cb(const struct opt *o, const char *arg);

struct opt {
	enum opt_type type;
	char short_name;         /* 'o' for -o, or 0 */
	const char *long_name;   /* "ranks" for --ranks, without dashes */
	const char *argh;        /* the value's name in the usage: "LIST" */
	const char *help;        /* one line or several, split at '\n' */
	void *value;             /* where the value goes (see enum opt_type) */
	enum quantity q;         /* OPT_NUMBER, OPT_POSITIVE, OPT_LIST */
	opt_cb *cb;              /* OPT_CALLBACK */
	const void *arg;         /* OPT_CALLBACK: what cb reads beside the value, or NULL */
	/*
	 * What the shell completes for the value: "files", "presets:link",
	 * "presets:workload", or the words to offer ("table csv json").
	 * NULL completes nothing.
	 */
	const char *complete;
	const char *given;       /* set by the parser: the value, "" for a flag */
	unsigned tag;            /* OPT_GROUP: what its options are about (OPT_TAG_*) */
};

/* Tags of option groups, for the commands that have no use for some. */
#define OPT_TAG_LINK 1u      /* the link or system the times are computed on */

#define OPT_END_() { .type = OPT_END }
#define OPT_GROUP_(h) { .type = OPT_GROUP, .help = (h) }
#define OPT_FLAG_(l, v, h) { .type = OPT_FLAG, .long_name = (l), .value = (v), .help = (h) }
#define OPT_STRING_(l, a, v, h) \
	{ .type = OPT_STRING, .long_name = (l), .argh = (a), .value = (v), .help = (h) }
#define OPT_FILE_(l, a, v, h) \
	{ .type = OPT_STRING, .long_name = (l), .argh = (a), .value = (v), .help = (h), \
	  .complete = "files" }
#define OPT_NUMBER_(l, a, qq, v, h) \
	{ .type = OPT_NUMBER, .long_name = (l), .argh = (a), .q = (qq), .value = (v), .help = (h) }
#define OPT_POSITIVE_(l, a, qq, v, h) \
	{ .type = OPT_POSITIVE, .long_name = (l), .argh = (a), .q = (qq), .value = (v), .help = (h) }
#define OPT_SHARE_(l, a, v, h) \
	{ .type = OPT_SHARE, .long_name = (l), .argh = (a), .value = (v), .help = (h) }
#define OPT_LIST_(l, a, qq, v, h) \
	{ .type = OPT_LIST, .long_name = (l), .argh = (a), .q = (qq), .value = (v), .help = (h) }
#define OPT_RANKS_(l, v, h) \
	{ .type = OPT_RANKS, .long_name = (l), .argh = "LIST", .value = (v), .help = (h) }
#define OPT_CALLBACK_(l, a, v, f, h) \
	{ .type = OPT_CALLBACK, .long_name = (l), .argh = (a), .value = (v), .cb = (f), .help = (h) }

/*
 * How a command introduces itself in its --help: usage lines (the first
 * printed after "usage: ", the others after "   or: "), a paragraph of
 * what it does, and text after the options.
 */
struct opts_usage {
	const char *cmd;                 /* "ddp": for "see 'commtime ddp --help'" */
	const char *const *lines;        /* NULL-terminated */
	const char *about;               /* may be NULL */
	const char *footer;              /* may be NULL */
	unsigned hide;                   /* global groups left out of --help (OPT_TAG_*) */
};

/*
 * Parse argv[1..argc) against opts (argv[0] is the command's name).
 * Stores the values, handles --help (and the hidden --help-roff and
 * --help-complete), and dies with exit 2 on misuse.  The positional
 * arguments are moved to argv[0..n), in order; returns n.  maxpos is
 * the most positional arguments the command takes: one more is a usage
 * error naming it.
 */
int opts_parse(int argc, char **argv, struct opt *opts, const struct opts_usage *u,
	       int maxpos);

/*
 * If argv[*i] is one of opts, take it (and its value) and advance *i;
 * return 1.  Return 0 when it is not one of opts.  For options that may
 * stand anywhere on the command line (the global ones).
 */
int opts_take(struct opt *opts, int argc, char **argv, int *i, const char *cmd);

/* The option's value as given on the command line, or NULL. */
const char *opts_given(const struct opt *opts, const char *long_name);

/* Print the option list of opts (the global options too when global). */
void opts_print_help(FILE *f, const struct opt *opts);

/* The same as man page lines (.TP entries). */
void opts_print_roff(FILE *f, const struct opt *opts);

/* The same for the completion scripts: "--name\tARGH\tCOMPLETE" lines. */
void opts_print_complete(FILE *f, const struct opt *opts);

/*
 * The values of options, parsed as the option layer parses them
 * (cli_values.c): a value that does not parse is a usage error (exit 2)
 * naming the option.
 */
/* Parse an option's value as quantity q; dies with exit 2 naming opt. */
double opt_quantity(const char *opt, enum quantity q, const char *arg);

/* Same, and require x > 0: "--compute: time must be positive, got '0'". */
double opt_positive(const char *opt, enum quantity q, const char *arg);

/* Same, and require lo <= x <= hi (inclusive); dies with exit 2. */
double opt_quantity_range(const char *opt, enum quantity q, const char *arg,
			  double lo, double hi);

/* A list option ("4,8,16", "8:8G:x2"); dies with exit 2 naming opt. */
void opt_list(const char *opt, enum quantity q, const char *arg, struct dlist *l);

/* A rank list: positive integers up to RANKS_MAX. */
void opt_ranks(const char *opt, const char *arg, struct dlist *l, unsigned long min);

/* The global options, which every --help lists after a command's own (cli.c). */
extern struct opt global_options[];

#endif
