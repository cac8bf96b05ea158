/*
 * Presets: the file format, its errors, the search path and the link
 * reader.  Each test writes its files into a fresh temporary directory.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "preset.h"
#include "system.h"

/* The tests, declared for -Wmissing-prototypes; the harness finds them by name. */
void test_preset_parse_good(void);
void test_preset_parse_errors(void);
void test_preset_name_valid(void);
void test_preset_link(void);
void test_preset_get_quantity(void);
void test_preset_dirs(void);
void test_preset_search(void);
void test_preset_list(void);
void test_preset_shipped(void);
void test_preset_spelled(void);
void test_preset_gpu_family(void);

static char tmpdir[64];

static void tmp_begin(void)
{
	strcpy(tmpdir, "/tmp/commtime-unit-XXXXXX");
	if (!mkdtemp(tmpdir))
		tmpdir[0] = '\0';
}

static void tmp_end(void)
{
	char cmd[128];

	/* The directory name comes from mkdtemp: no shell metacharacters. */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (tmpdir[0] && system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", tmpdir);
}

/* Write n bytes of text to tmpdir/rel, making its directory. */
static const char *put(const char *rel, const char *text, size_t n)
{
	static char path[256];
	char cmd[300], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
	slash = strrchr(path, '/');
	*slash = '\0';
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", path);
	*slash = '/';
	if (system(cmd) != 0)
		return path;
	f = fopen(path, "wb");
	if (f) {
		fwrite(text, 1, n, f);
		fclose(f);
	}
	return path;
}

#define PUT(rel, text) put(rel, text, sizeof(text) - 1)

/* The message of a failed load, with the temporary directory replaced by "T". */
static const char *msg_of(const struct errbuf *eb)
{
	static char out[512];
	const char *m = eb->msg;
	size_t n = strlen(tmpdir), o = 0;

	while (*m && o + 1 < sizeof(out)) {
		if (n && !strncmp(m, tmpdir, n)) {
			out[o++] = 'T';
			m += n;
		} else
			out[o++] = *m++;
	}
	out[o] = '\0';
	return out;
}

static const char *load_err(const char *rel, const char *text, size_t n)
{
	static struct errbuf eb;
	struct preset p;
	const char *path = put(rel, text, n);

	strcpy(eb.msg, "(no error)");
	if (preset_load_file(path, &p, &eb) == 0) {
		preset_release(&p);
		return "(loaded)";
	}
	CHECK(p.nkv == 0 && p.kv == NULL && p.path == NULL);
	return msg_of(&eb);
}

#define LOAD_ERR(text) load_err("x.preset", text, sizeof(text) - 1)

void test_preset_parse_good(void)
{
	struct preset p;
	struct errbuf eb;
	const char *path;

	tmp_begin();
	path = PUT("good.preset",
		   "\xef\xbb\xbf# a comment\n"
		   "\n"
		   "   name   =  good  \r\n"
		   "kind=link\n"
		   "\t# another comment\n"
		   "description = a link # with a hash, kept\n"
		   "alpha = 5us\n"
		   "beta = 25GB/s\n"
		   "source_beta = https://example.org/page#part\n"
		   "empty =\n"
		   "Mixed.Key-1 = x = y");
	INT_EQ(preset_load_file(path, &p, &eb), 0);
	STR_EQ(p.name, "good");
	STR_EQ(p.kind, "link");
	STR_EQ(p.description, "a link # with a hash, kept");
	INT_EQ(p.nkv, 8);
	STR_EQ(p.kv[0].key, "name");
	INT_EQ(p.kv[0].line, 3);
	INT_EQ(p.kv[3].line, 7);
	STR_EQ(preset_get(&p, "source_beta"), "https://example.org/page#part");
	STR_EQ(preset_get(&p, "empty"), "");
	STR_EQ(preset_get(&p, "Mixed.Key-1"), "x = y");
	CHECK(preset_get(&p, "gamma") == NULL);
	STR_EQ(p.path, path);
	preset_release(&p);
	CHECK(p.kv == NULL && p.nkv == 0 && p.name == NULL);
	preset_release(&p);   /* twice is harmless */
	tmp_end();
}

void test_preset_parse_errors(void)
{
	char big[5000 + 64];

	tmp_begin();
	STR_EQ(LOAD_ERR(""), "T/x.preset: empty preset");
	STR_EQ(LOAD_ERR("# only\n\n   # comments\n"), "T/x.preset: empty preset");
	STR_EQ(LOAD_ERR("name = a\nkind = link\x00\n"), "T/x.preset:2: NUL byte; binary file?");
	/* a NUL byte wins over an earlier line that does not parse */
	STR_EQ(LOAD_ERR("%PDF-1.4\n%\xe2\xe3\n1 0 obj\x00\n"), "T/x.preset:3: NUL byte; binary file?");
	STR_EQ(LOAD_ERR("\x7f" "ELF\x02\x01\x01"), "T/x.preset:1: control character 0x7f; binary file?");
	STR_EQ(LOAD_ERR("name = caf\xe9\n"), "T/x.preset:1: invalid UTF-8; binary file?");
	/* overlong '/' and a UTF-16 surrogate are not UTF-8 either */
	STR_EQ(LOAD_ERR("name = \xc0\xaf\n"), "T/x.preset:1: invalid UTF-8; binary file?");
	STR_EQ(LOAD_ERR("name = \xed\xa0\x80\n"), "T/x.preset:1: invalid UTF-8; binary file?");
	STR_EQ(LOAD_ERR("name = a\nkind = link\ndescription = d\nalpha 5us\n"),
	       "T/x.preset:4: line without '=': 'alpha 5us'");
	STR_EQ(LOAD_ERR("name = a\n = 5us\n"), "T/x.preset:2: empty key before '='");
	STR_EQ(LOAD_ERR("name = a\nal pha = 5us\n"),
	       "T/x.preset:2: invalid key 'al pha'; keys use letters, digits, '.', '_' and '-'");
	STR_EQ(LOAD_ERR("name = a\nkind = link\ndescription = d\nalpha = 1us\n\nalpha = 2us\n"),
	       "T/x.preset:6: duplicate key 'alpha' (first on line 4)");
	STR_EQ(LOAD_ERR("kind = link\ndescription = d\n"), "T/x.preset: missing 'name'");
	STR_EQ(LOAD_ERR("name = a\ndescription = d\n"), "T/x.preset: missing 'kind'");
	STR_EQ(LOAD_ERR("name = a\nkind = link\n"), "T/x.preset: missing 'description'");
	STR_EQ(LOAD_ERR("name = a\nkind = link\ndescription =\n"), "T/x.preset:3: empty 'description'");
	STR_EQ(LOAD_ERR("name = H100\nkind = link\ndescription = d\n"),
	       "T/x.preset:1: invalid name 'H100'; names use a-z, 0-9, '.', '_' and '-' "
	       "and start with a letter or digit");
	STR_EQ(LOAD_ERR("name = -x\nkind = link\ndescription = d\n"),
	       "T/x.preset:1: invalid name '-x'; names use a-z, 0-9, '.', '_' and '-' "
	       "and start with a letter or digit");
	STR_EQ(LOAD_ERR("name = a\nkind = network\ndescription = d\n"),
	       "T/x.preset:2: unknown kind 'network'; want 'link', 'workload', 'gpu' or 'system'");

	/* 4096 bytes on a line are fine, 4097 are not */
	memset(big, 'x', sizeof(big));
	memcpy(big, "name = a\nkind = link\ndescription = ", 35);
	big[35 + 4096 - 14] = '\n';
	CHECK(!strcmp(load_err("x.preset", big, 35 + 4096 - 14 + 1), "(loaded)"));
	big[35 + 4096 - 14] = 'x';
	big[35 + 4096 - 13] = '\n';
	STR_EQ(load_err("x.preset", big, 35 + 4096 - 13 + 1),
	       "T/x.preset:3: line longer than 4096 bytes");

	/* not there, or not a file */
	{
		struct preset p;
		struct errbuf eb;
		char path[128];

		snprintf(path, sizeof(path), "%s/none.preset", tmpdir);
		INT_EQ(preset_load_file(path, &p, &eb), -1);
		STR_EQ(msg_of(&eb), "cannot open 'T/none.preset': No such file or directory");
		INT_EQ(preset_load_file(tmpdir, &p, &eb), -1);
		STR_EQ(msg_of(&eb), "cannot read 'T': Is a directory");
	}
	tmp_end();
}

void test_preset_name_valid(void)
{
	CHECK(preset_name_valid("h100-nvlink4"));
	CHECK(preset_name_valid("0.5x_a"));
	CHECK(!preset_name_valid(""));
	CHECK(!preset_name_valid(".hidden"));
	CHECK(!preset_name_valid("-opt"));
	CHECK(!preset_name_valid("Upper"));
	CHECK(!preset_name_valid("a/b"));
	CHECK(!preset_name_valid("a b"));
}

static int load_link(const char *text, size_t n, struct link *l, struct errbuf *eb)
{
	struct preset p;
	int r;

	if (preset_load_file(put("l.preset", text, n), &p, eb) < 0)
		return -2;
	r = preset_link(&p, l, eb);
	preset_release(&p);
	return r;
}

#define LINK(text, l, eb) load_link(text, sizeof(text) - 1, l, eb)

void test_preset_link(void)
{
	struct link l;
	struct errbuf eb;

	tmp_begin();
	INT_EQ(LINK("name = l\nkind = link\ndescription = d\nalpha = 5us\nbeta = 400Gb/s\n",
		    &l, &eb), 0);
	DBL_NEAR(l.alpha, 5e-6, 1e-12);
	DBL_NEAR(l.beta, 50e9, 1e-12);           /* 400e9 bits / 8 */
	DBL_NEAR(l.gamma, 0, 0);

	INT_EQ(LINK("name = l\nkind = link\ndescription = d\nalpha = 2ms\n"
		    "beta = 25GB/s\ngamma = 1e-10\nbeta_line = 200Gb/s\n", &l, &eb), 0);
	DBL_NEAR(l.alpha, 2e-3, 1e-12);
	DBL_NEAR(l.beta, 25e9, 1e-12);
	DBL_NEAR(l.gamma, 1e-10, 1e-12);

	INT_EQ(LINK("name = l\nkind = link\ndescription = d\nbeta = 1GB/s\n", &l, &eb), -1);
	STR_EQ(msg_of(&eb), "T/l.preset: missing 'alpha'");
	INT_EQ(LINK("name = l\nkind = link\ndescription = d\nalpha = 1us\n", &l, &eb), -1);
	STR_EQ(msg_of(&eb), "T/l.preset: missing 'beta'");
	INT_EQ(LINK("name = l\nkind = link\ndescription = d\nalpha = 5 parsecs\nbeta = 1GB/s\n",
		    &l, &eb), -1);
	CHECK(!strncmp(msg_of(&eb), "T/l.preset:4: alpha: ", 21));
	INT_EQ(LINK("name = l\nkind = link\ndescription = d\nalpha = 1us\nbeta = 0\n",
		    &l, &eb), -1);
	STR_EQ(msg_of(&eb), "T/l.preset:5: beta must be >= 1 B/s, got '0'");
	INT_EQ(LINK("name = l\nkind = link\ndescription = d\nalpha = 1us\nbeta = 1GB/s\n"
		    "gamma = -1e-9\n", &l, &eb), -1);
	STR_EQ(msg_of(&eb), "T/l.preset:6: gamma must be >= 0 s/B, got '-1e-9'");
	INT_EQ(LINK("name = l\nkind = link\ndescription = d\nalpha = 7200s\nbeta = 1GB/s\n",
		    &l, &eb), -1);
	STR_EQ(msg_of(&eb), "T/l.preset:4: alpha '7200s' is above 3600 s");
	INT_EQ(LINK("name = l\nkind = link\ndescription = d\nalpha = 1us\nbeta = 1GB/s\n"
		    "beta_line = fast\n", &l, &eb), -1);
	CHECK(!strncmp(msg_of(&eb), "T/l.preset:6: beta_line: ", 25));
	INT_EQ(LINK("name = w\nkind = workload\ndescription = d\nalpha = 1us\nbeta = 1GB/s\n",
		    &l, &eb), -1);
	STR_EQ(msg_of(&eb), "T/l.preset:2: preset 'w' is of kind 'workload', not a link");
	tmp_end();
}

void test_preset_get_quantity(void)
{
	struct preset p;
	struct errbuf eb;
	double x = -1;

	tmp_begin();
	INT_EQ(preset_load_file(PUT("q.preset", "name = q\nkind = workload\ndescription = d\n"
				    "grad = 14G\nbad = 4X\n"), &p, &eb), 0);
	INT_EQ(preset_get_quantity(&p, "grad", Q_SIZE, &x, &eb), 1);
	DBL_NEAR(x, 14.0 * 1024 * 1024 * 1024, 1e-15);
	x = -1;
	INT_EQ(preset_get_quantity(&p, "none", Q_SIZE, &x, &eb), 0);
	DBL_NEAR(x, -1, 0);
	INT_EQ(preset_get_quantity(&p, "bad", Q_SIZE, &x, &eb), -1);
	CHECK(!strncmp(msg_of(&eb), "T/q.preset:5: bad: ", 19));
	preset_release(&p);
	tmp_end();
}

void test_preset_dirs(void)
{
	struct preset_dirs d;
	char many[16 * 8];
	size_t i;

	setenv("COMMTIME_PRESETS", "/a::/b:/a:", 1);
	preset_dirs_init(&d, "/cli", NULL);
	INT_EQ(d.n, 5);
	STR_EQ(d.dirs[0], "/cli");
	STR_EQ(d.dirs[1], "/a");
	STR_EQ(d.dirs[2], "/b");
	STR_EQ(d.dirs[3], COMMTIME_SHAREDIR "/presets");
	STR_EQ(d.dirs[4], "./presets");
	preset_dirs_release(&d);
	CHECK(d.n == 0);

	unsetenv("COMMTIME_PRESETS");
	preset_dirs_init(&d, NULL, NULL);
	INT_EQ(d.n, 2);
	STR_EQ(d.dirs[0], COMMTIME_SHAREDIR "/presets");
	preset_dirs_release(&d);

	/* an empty --presets-dir is skipped like an empty entry */
	setenv("COMMTIME_PRESETS", "", 1);
	preset_dirs_init(&d, "", NULL);
	INT_EQ(d.n, 2);
	preset_dirs_release(&d);

	/* a long COMMTIME_PRESETS cannot push the shipped presets off the path */
	many[0] = '\0';
	for (i = 0; i < 20; i++)
		sprintf(many + strlen(many), "/d%zu:", i);
	setenv("COMMTIME_PRESETS", many, 1);
	preset_dirs_init(&d, "/cli", "/build/presets");
	INT_EQ(d.n, PRESET_DIRS_MAX);
	STR_EQ(d.dirs[0], "/cli");
	STR_EQ(d.dirs[1], "/d0");
	STR_EQ(d.dirs[PRESET_DIRS_MAX - 4], "/d11");
	STR_EQ(d.dirs[PRESET_DIRS_MAX - 3], COMMTIME_SHAREDIR "/presets");
	STR_EQ(d.dirs[PRESET_DIRS_MAX - 2], "./presets");
	STR_EQ(d.dirs[PRESET_DIRS_MAX - 1], "/build/presets");
	preset_dirs_release(&d);
	preset_dirs_init(&d, NULL, NULL);
	INT_EQ(d.n, PRESET_DIRS_MAX - 2);   /* 12 from the environment, whatever the rest */
	STR_EQ(d.dirs[PRESET_DIRS_MAX - 5], "/d11");
	preset_dirs_release(&d);
	unsetenv("COMMTIME_PRESETS");
}

#define LINKTEXT(name, desc) "name = " name "\nkind = link\ndescription = " desc \
	"\nalpha = 1us\nbeta = 1GB/s\n"

void test_preset_search(void)
{
	struct preset_dirs d;
	struct preset p;
	struct errbuf eb;
	char env[200], cli[100], path[160];

	tmp_begin();
	PUT("cli/x.preset", LINKTEXT("x", "from cli"));
	PUT("e1/x.preset", LINKTEXT("x", "from e1"));
	PUT("e1/y.preset", LINKTEXT("y", "y from e1"));
	PUT("e2/y.preset", LINKTEXT("y", "y from e2"));
	PUT("e2/z.preset", LINKTEXT("z", "z from e2"));
	PUT("e2/w.preset", LINKTEXT("not-w", "misnamed"));
	PUT("e2/h100-test.preset", LINKTEXT("h100-test", "for the suggestion"));
	snprintf(env, sizeof(env), "%s/e1:%s/e2", tmpdir, tmpdir);
	snprintf(cli, sizeof(cli), "%s/cli", tmpdir);
	setenv("COMMTIME_PRESETS", env, 1);
	preset_dirs_init(&d, cli, NULL);
	unsetenv("COMMTIME_PRESETS");

	INT_EQ(preset_load(&d, "x", &p, &eb), 0);
	STR_EQ(p.description, "from cli");
	preset_release(&p);
	INT_EQ(preset_load(&d, "y", &p, &eb), 0);
	STR_EQ(p.description, "y from e1");
	preset_release(&p);
	INT_EQ(preset_load(&d, "z", &p, &eb), 0);
	STR_EQ(p.description, "z from e2");
	CHECK(strstr(p.path, "/e2/z.preset") != NULL);
	preset_release(&p);

	/* found by name, a file whose name line differs (a copy) is its file's name */
	INT_EQ(preset_load(&d, "w", &p, &eb), 0);
	STR_EQ(p.name, "w");
	STR_EQ(preset_get(&p, "name"), "w");
	preset_release(&p);
	/* given by a path NAME.preset, too */
	snprintf(path, sizeof(path), "%s/e2/w.preset", tmpdir);
	INT_EQ(preset_load(&d, path, &p, &eb), 0);
	STR_EQ(p.name, "w");
	preset_release(&p);
	/* a path that is not NAME.preset may carry any valid name */
	PUT("e2/w.txt", LINKTEXT("not-w", "misnamed"));
	snprintf(path, sizeof(path), "%s/e2/w.txt", tmpdir);
	INT_EQ(preset_load(&d, path, &p, &eb), 0);
	STR_EQ(p.name, "not-w");
	preset_release(&p);

	INT_EQ(preset_load(&d, "nope", &p, &eb), -1);
	STR_EQ(msg_of(&eb), "unknown preset 'nope'; searched: T/cli, T/e1, T/e2, "
	       COMMTIME_SHAREDIR "/presets, ./presets");
	INT_EQ(preset_load(&d, "h100", &p, &eb), -1);
	CHECK(strstr(eb.msg, "; did you mean 'h100-test'?") != NULL);
	INT_EQ(preset_load(&d, "Bad", &p, &eb), -1);
	STR_EQ(msg_of(&eb), "invalid preset name 'Bad'; names use a-z, 0-9, '.', '_' and '-' "
	       "and start with a letter or digit");
	INT_EQ(preset_load(&d, "missing.preset", &p, &eb), -1);
	STR_EQ(msg_of(&eb), "cannot open 'missing.preset': No such file or directory");
	preset_dirs_release(&d);
	tmp_end();
}

void test_preset_list(void)
{
	struct preset_dirs d;
	struct preset *list;
	size_t n, nbad;
	struct errbuf eb;
	char dir[100];

	tmp_begin();
	PUT("a/b.preset", LINKTEXT("b", "b in a"));
	PUT("a/c.preset", "name = c\nkind = link\n");                  /* bad */
	PUT("a/not-a-preset.txt", "junk");
	PUT("a/.hidden.preset", LINKTEXT("hidden", "skipped"));
	PUT("b/a.preset", LINKTEXT("a", "a in b"));
	PUT("b/b.preset", LINKTEXT("b", "b in b"));
	PUT("b/c.preset", LINKTEXT("c", "c in b, hidden by the bad one"));
	PUT("b/d.preset", LINKTEXT("e", "a copy: listed as d"));
	PUT("b/w.preset", "name = w\nkind = workload\ndescription = a workload\n");
	/* a directory that does not exist is passed over */
	memset(&d, 0, sizeof(d));
	snprintf(dir, sizeof(dir), "%s/a", tmpdir);
	d.dirs[d.n++] = xstrdup(dir);
	snprintf(dir, sizeof(dir), "%s/none", tmpdir);
	d.dirs[d.n++] = xstrdup(dir);
	snprintf(dir, sizeof(dir), "%s/b", tmpdir);
	d.dirs[d.n++] = xstrdup(dir);

	INT_EQ(preset_list(&d, &list, &n, &nbad, &eb), 0);
	INT_EQ(n, 4);
	INT_EQ(nbad, 1);
	STR_EQ(msg_of(&eb), "T/a/c.preset: missing 'description'");
	if (n == 4) {
		STR_EQ(list[0].name, "a");
		STR_EQ(list[1].name, "b");
		STR_EQ(list[1].description, "b in a");
		STR_EQ(list[2].name, "d");
		STR_EQ(list[3].name, "w");
		STR_EQ(list[3].kind, "workload");
	}
	preset_list_free(list, n);
	preset_dirs_release(&d);

	/* nothing to find is not an error */
	memset(&d, 0, sizeof(d));
	INT_EQ(preset_list(&d, &list, &n, &nbad, &eb), 0);
	INT_EQ(n, 0);
	INT_EQ(nbad, 0);
	preset_list_free(list, n);
	tmp_end();
}

/*
 * The shipped link presets: each loads, each figure has its source, and
 * the effective β never exceeds the line rate it is a share of.
 */
void test_preset_shipped(void)
{
	struct preset_dirs d;
	struct preset *list;
	size_t n, nbad, i, nlink = 0;
	struct errbuf eb;
	static const char *const figures[] = { "alpha", "beta", "beta_line", "gamma" };

	memset(&d, 0, sizeof(d));
	d.dirs[d.n++] = xstrdup("presets");
	INT_EQ(preset_list(&d, &list, &n, &nbad, &eb), 0);
	INT_EQ(nbad, 0);
	for (i = 0; i < n; i++) {
		struct link l;
		double line;
		size_t k;

		if (strcmp(list[i].kind, "link"))
			continue;
		nlink++;
		if (preset_link(&list[i], &l, &eb) < 0) {
			h_report(__FILE__, __LINE__, "%s", eb.msg);
			continue;
		}
		for (k = 0; k < sizeof(figures) / sizeof(figures[0]); k++) {
			char src[32];

			snprintf(src, sizeof(src), "source_%s", figures[k]);
			if (preset_get(&list[i], figures[k]) && !preset_get(&list[i], src))
				h_report(__FILE__, __LINE__, "%s: %s without %s",
					 list[i].path, figures[k], src);
			else
				h_pass++;
		}
		if (preset_get_quantity(&list[i], "beta_line", Q_RATE, &line, &eb) == 1)
			CHECK(l.beta <= line);
	}
	CHECK(nlink >= 13);
	preset_list_free(list, n);
	preset_dirs_release(&d);
}

/*
 * preset_load_kind: an unknown name's suggestion is a preset of the kind
 * asked for (the shipped presets: 'h100' is near the link h100-nvlink4,
 * the GPU h100-sxm and the system dgx-h100), and a preset of another kind
 * loads with 1 for the caller to name the option that takes it.
 */
void test_preset_load_kind_suggests_by_kind(void)
{
	struct preset_dirs d;
	struct preset p;
	struct errbuf eb;

	preset_dirs_init(&d, "presets", NULL);
	INT_EQ(preset_load_kind(&d, "h100", "link", &p, &eb), -1);
	CHECK(strstr(eb.msg, "; did you mean 'h100-nvlink4'?") != NULL);
	INT_EQ(preset_load_kind(&d, "h100", "gpu", &p, &eb), -1);
	/* as near as each other, the four H100 GPUs are named in order */
	CHECK(strstr(eb.msg, "; did you mean 'h100-nvl', 'h100-pcie', 'h100-sxm' or "
			 "'h100-sxm-96gb'?") != NULL);
	INT_EQ(preset_load_kind(&d, "h100", "system", &p, &eb), -1);
	/* every system preset that names the H100 in its name */
	CHECK(strstr(eb.msg, "; did you mean 'azure-nd-h100-v5', 'dgx-h100' or 'hgx-h100'?") !=
	      NULL);
	INT_EQ(preset_load_kind(&d, "llama3-7b", "workload", &p, &eb), -1);
	CHECK(strstr(eb.msg, "; did you mean 'llama-7b', 'llama2-7b', 'llama3-70b' or 'llama3-8b'?") != NULL);
	INT_EQ(preset_load_kind(&d, "zz-nothing-near", "link", &p, &eb), -1);
	CHECK(strstr(eb.msg, "did you mean") == NULL);
	INT_EQ(preset_load_kind(&d, "dgx-h100", "link", &p, &eb), 1);
	STR_EQ(p.kind, "system");
	preset_release(&p);
	INT_EQ(preset_load_kind(&d, "ib-ndr", "link", &p, &eb), 0);
	preset_release(&p);
	preset_dirs_release(&d);
}

/*
 * A name spelled another way (case, '-', '_', spaces) loads the one preset
 * of the kind that spells so: the shipped llama3-8b as "Llama-3-8B", the
 * system dgx-h100 as "DGX_H100"; a link is not a system's spelling; two
 * presets of one spelling, or a byte no name holds, stay unknown.
 */
void test_preset_spelled(void)
{
	struct preset_dirs d;
	struct preset p;
	struct errbuf eb;
	char out[PRESET_NAME_MAX + 1];

	preset_dirs_init(&d, "presets", NULL);
	INT_EQ(preset_load_kind(&d, "Llama-3-8B", "workload", &p, &eb), 0);
	STR_EQ(p.name, "llama3-8b");
	preset_release(&p);
	INT_EQ(preset_load_kind(&d, "llama 3.1 70b", "workload", &p, &eb), 0);
	STR_EQ(p.name, "llama3.1-70b");
	preset_release(&p);
	INT_EQ(preset_load_kind(&d, "DGX_H100", "system", &p, &eb), 0);
	STR_EQ(p.name, "dgx-h100");
	preset_release(&p);
	INT_EQ(preset_spelled(&d, "IB-NDR", "system", out, sizeof(out)), 0);
	STR_EQ(out, "");
	INT_EQ(preset_spelled(&d, "llama3/8b", "workload", out, sizeof(out)), 0);
	INT_EQ(preset_load_kind(&d, "Llama-3-9B", "workload", &p, &eb), -1);
	CHECK(strstr(eb.msg, "invalid preset name 'Llama-3-9B'") != NULL);
	preset_dirs_release(&d);

	tmp_begin();
	PUT("a/ab-1.preset", LINKTEXT("ab-1", "one"));
	PUT("a/ab_1.preset", LINKTEXT("ab_1", "the same spelled"));
	PUT("a/cd-2.preset", LINKTEXT("cd-2", "alone"));
	snprintf(out, sizeof(out), "%s/a", tmpdir);
	preset_dirs_init(&d, out, NULL);
	INT_EQ(preset_spelled(&d, "AB1", "link", out, sizeof(out)), 0);
	INT_EQ(preset_load_kind(&d, "AB1", "link", &p, &eb), -1);
	INT_EQ(preset_spelled(&d, "CD_2", "link", out, sizeof(out)), 1);
	STR_EQ(out, "cd-2");
	INT_EQ(preset_load_kind(&d, "cd2", "link", &p, &eb), 0);
	STR_EQ(p.description, "alone");
	preset_release(&p);
	preset_dirs_release(&d);
	tmp_end();
}

/*
 * The gpu preset name on d read as gpu_from_preset reads it, with its
 * family's share (gpu_family), into *g (its name and description freed):
 * gpu_family's return, or -2 when the preset does not load or read.
 */
static int S_gpu_named(const struct preset_dirs *d, const char *name, struct gpu_spec *g,
		       struct errbuf *eb)
{
	struct preset p;
	int r;

	if (preset_load(d, name, &p, eb) != 0)
		return -2;
	if (gpu_from_preset(&p, g, eb) < 0) {
		preset_release(&p);
		return -2;
	}
	r = gpu_family(d, &p, g, eb);
	free(g->name);
	free(g->description);
	g->name = g->description = NULL;
	preset_release(&p);
	return r;
}

/*
 * tflops_fp8 and power_w of the shipped GPUs: gb200 is like b200 with its
 * own memory, peaks and power (NVIDIA GB200 NVL72 specifications: 5 and 10
 * PFLOPS BF16 and FP8 with sparsity, 1,200 W); h800 is h100-sxm's compute
 * with 8 NVLink links; an Ampere GPU has no FP8 peak.
 */
void test_preset_gpu_fp8_power(void)
{
	struct preset_dirs d;
	struct errbuf eb;
	struct gpu_spec g;

	preset_dirs_init(&d, "presets", NULL);
	INT_EQ(S_gpu_named(&d, "gb200", &g, &eb), 0);
	DBL_NEAR(g.fp8_flops, 5e15, 1e-12);
	DBL_NEAR(g.bf16_flops, 2.5e15, 1e-12);
	DBL_NEAR(g.power_w, 1200, 1e-12);
	DBL_NEAR(g.memory_B, 186.0 * 1024 * 1024 * 1024, 1e-12);
	INT_EQ((int)g.sms, 148);
	INT_EQ(S_gpu_named(&d, "h800", &g, &eb), 0);
	INT_EQ((int)g.nvlink_links, 8);
	DBL_NEAR(g.fp8_flops, 1979e12, 1e-12);
	DBL_NEAR(g.bf16_flops, 989.4e12, 1e-12);
	INT_EQ(S_gpu_named(&d, "a100-sxm", &g, &eb), 0);
	CHECK(g.fp8_flops == 0);
	DBL_NEAR(g.power_w, 400, 1e-12);
	INT_EQ(gpu_arch_has_fp8(g.arch), 0);
	INT_EQ(gpu_arch_has_fp8(ARCH_SM89), 1);
	preset_dirs_release(&d);
}

/*
 * A GPU's sustained clock against its die family's reference (gpu key
 * power_ref, gpu_family): the cube root of its power per multiprocessor
 * over the reference's, times the reference's rated rate a multiprocessor
 * over its own.  By hand: gb200 (1200 W, 148, 2500 TFLOP/s) against b200
 * (1000 W, 148, 2250): ∛1.2 × 0.9 = 0.95640; gb300 (1400 W, 160, 2500):
 * ∛((1400/160)/(1000/148)) × (2250/148)/(2500/160) = ∛1.295 × 0.972973 =
 * 1.06053; h100-pcie (350 W, 114, 756) against h100-sxm (700 W, 132,
 * 989.4): ∛((350/114)/(700/132)) × (989.4/132)/(756/114) = 0.94202;
 * a100-pcie (300 W) against a100-sxm (400 W), same multiprocessors and
 * peaks: ∛0.75 = 0.90856.  Without power_ref: none.  A reference that is
 * not a gpu preset, or a GPU without power_w, is refused with the line.
 */
void test_preset_gpu_family(void)
{
	static const struct { const char *name; double share; } want[] = {
		{ "gb200", 0.95640 }, { "gb300", 1.06053 }, { "h100-pcie", 0.94202 },
		{ "a100-pcie", 0.90856 }, { "b200", 0 }, { "h100-sxm", 0 },
	};
	struct preset_dirs d;
	struct errbuf eb;
	struct gpu_spec g;
	char dir[160];
	size_t i;

	preset_dirs_init(&d, "presets", NULL);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		INT_EQ(S_gpu_named(&d, want[i].name, &g, &eb), 0);
		DBL_NEAR(g.family_share, want[i].share, 2e-5);
	}
	DBL_NEAR(cbrt(1.2) * 0.9, 0.95640, 2e-5);
	preset_dirs_release(&d);

	tmp_begin();
	PUT("g/ref.preset", "name = ref\nkind = gpu\ndescription = r\narch = sm90\nmemory = 80GiB\n"
	    "tflops_bf16 = 1000\nsms = 100\npower_w = 700\n");
	PUT("g/half.preset", "name = half\nkind = gpu\ndescription = h\narch = sm90\nmemory = 80GiB\n"
	    "tflops_bf16 = 1000\nsms = 100\npower_w = 350\npower_ref = ref\n");
	PUT("g/bad.preset", "name = bad\nkind = gpu\ndescription = b\narch = sm90\nmemory = 80GiB\n"
	    "tflops_bf16 = 1000\nsms = 100\npower_ref = ref\n");
	PUT("g/link.preset", "name = link\nkind = gpu\ndescription = l\narch = sm90\nmemory = 80GiB\n"
	    "tflops_bf16 = 1000\nsms = 100\npower_w = 350\npower_ref = lnk\n");
	PUT("g/lnk.preset", LINKTEXT("lnk", "a link"));
	snprintf(dir, sizeof(dir), "%s/g", tmpdir);
	preset_dirs_init(&d, dir, NULL);
	INT_EQ(S_gpu_named(&d, "half", &g, &eb), 0);
	DBL_NEAR(g.family_share, cbrt(0.5), 1e-12);
	STR_EQ(g.power_ref, "ref");
	INT_EQ(S_gpu_named(&d, "bad", &g, &eb), -1);
	CHECK(strstr(eb.msg, "bad.preset:") && strstr(eb.msg, "power_ref: both GPUs need power_w"));
	INT_EQ(S_gpu_named(&d, "link", &g, &eb), -1);
	CHECK(strstr(eb.msg, "power_ref: 'lnk' is not a gpu preset") != NULL);
	preset_dirs_release(&d);
	tmp_end();
}

/*
 * Each GPU's large-GEMM share is the largest bf16 matmul rate a kernel
 * benchmark found over its dense peak (Bekman, ml-engineering, Maximum
 * Achievable Matmul FLOPS table): B200 1745.0 / 2250 = 0.7756, GB200
 * 1822.0 / 2500 = 0.7288 (its own, not the B200's it is like), GB300 the
 * B300's 1769.0 / 2250 = 0.7862, MI300X 668.4 / 1300 = 0.5142, MI325X
 * 784.9 / 1300 = 0.6038, MI355X 1565.0 / 2516.6 = 0.6219; the presets
 * round them to three places.
 */
void test_preset_gemm_efficiency(void)
{
	static const struct { const char *name; double eff; } want[] = {
		{ "b200", 0.776 }, { "gb200", 0.729 }, { "b300", 0.786 }, { "gb300", 0.786 },
		{ "h200", 0.803 }, { "mi300x", 0.514 }, { "mi325x", 0.604 }, { "mi355x", 0.622 },
	};
	struct preset_dirs d;
	struct errbuf eb;
	struct gpu_spec g;
	size_t i;

	preset_dirs_init(&d, "presets", NULL);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		INT_EQ(S_gpu_named(&d, want[i].name, &g, &eb), 0);
		DBL_NEAR(g.gemm_eff, want[i].eff, 1e-12);
	}
	preset_dirs_release(&d);
}

/*
 * The kernel model's SM counts and HBM bandwidths as the presets state them
 * from their data sheets (each preset's source_sms, source_hbm_bandwidth):
 * V100 80 SMs and 900 GB/s, H200 132 (the GH100 of the H100 SXM), B300 and
 * GB300 160 (Blackwell Ultra), the B200's 148 for the GB200.
 */
void test_preset_sms_hbm(void)
{
	static const struct { const char *name; unsigned sms; double hbm; } want[] = {
		{ "v100-sxm2", 80, 900e9 }, { "h200", 132, 4.8e12 }, { "b300", 160, 8e12 },
		{ "gb300", 160, 8e12 }, { "gb200", 148, 8e12 },
	};
	struct preset_dirs d;
	struct errbuf eb;
	struct gpu_spec g;
	size_t i;

	preset_dirs_init(&d, "presets", NULL);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		INT_EQ(S_gpu_named(&d, want[i].name, &g, &eb), 0);
		INT_EQ((int)g.sms, (int)want[i].sms);
		DBL_NEAR(g.hbm_Bps, want[i].hbm, 1e-12);
	}
	preset_dirs_release(&d);
}
