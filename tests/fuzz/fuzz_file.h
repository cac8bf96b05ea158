/*
 * The temporary files of the fuzz targets that read files: one per tag
 * for the whole run, in $TMPDIR (or /tmp), removed at exit.  Included by
 * each such target, and by tests/unit/test_fuzzcorpus.c with all of them
 * in one file.
 */
#ifndef COMMTIME_FUZZ_FILE_H
#define COMMTIME_FUZZ_FILE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FUZZ_FILES_MAX 8

static struct {
	const char *tag;
	char path[64];
} fuzz_files[FUZZ_FILES_MAX];

static void fuzz_files_remove(void)
{
	int i;

	for (i = 0; i < FUZZ_FILES_MAX; i++)
		if (fuzz_files[i].path[0])
			unlink(fuzz_files[i].path);
}

/* The file of tag, made on first use; NULL when it cannot be made. */
static const char *fuzz_file(const char *tag)
{
	const char *dir = getenv("TMPDIR");
	int i, fd;

	for (i = 0; i < FUZZ_FILES_MAX && fuzz_files[i].tag; i++)
		if (!strcmp(fuzz_files[i].tag, tag))
			return fuzz_files[i].path[0] ? fuzz_files[i].path : NULL;
	if (i == FUZZ_FILES_MAX)
		return NULL;
	if (i == 0)
		atexit(fuzz_files_remove);
	fuzz_files[i].tag = tag;
	snprintf(fuzz_files[i].path, sizeof(fuzz_files[i].path), "%s/fuzz-%.10s-XXXXXX",
		 dir && *dir && strlen(dir) < 32 ? dir : "/tmp", tag);
	fd = mkstemp(fuzz_files[i].path);
	if (fd < 0) {
		fuzz_files[i].path[0] = '\0';
		return NULL;
	}
	close(fd);
	return fuzz_files[i].path;
}

/*
 * Write head (may be "") then the size bytes of data to path: NULL, or
 * why not.  The preset targets read the file back with preset_load_file.
 */
static const char *fuzz_file_write(const char *path, const char *head, const void *data,
				   size_t size)
{
	FILE *f;

	if (!path || !(f = fopen(path, "wb")))
		return "cannot write the temporary file";
	if (fputs(head, f) == EOF || fwrite(data, 1, size, f) != size) {
		fclose(f);
		return "cannot write the temporary file";
	}
	if (fclose(f) != 0)
		return "cannot write the temporary file";
	return NULL;
}

#endif
