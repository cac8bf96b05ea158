/*
 * maxrss COMMAND [ARGS...]: run COMMAND and print its peak resident set
 * size in KiB (getrusage of the waited-for child) on stderr as
 * "maxrss_kib N".  COMMAND's own output passes through untouched.
 * Exits with COMMAND's status (or 128 + signal).
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct rusage ru;
	pid_t pid;
	int st;

	if (argc < 2) {
		fputs("usage: maxrss COMMAND [ARGS...]\n", stderr);
		return 2;
	}
	pid = fork();
	if (pid < 0) {
		perror("maxrss: fork");
		return 1;
	}
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		perror("maxrss: exec");
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0 || getrusage(RUSAGE_CHILDREN, &ru) < 0) {
		perror("maxrss: wait");
		return 1;
	}
	fprintf(stderr, "maxrss_kib %ld\n", ru.ru_maxrss);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
