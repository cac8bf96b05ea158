#include "cli.h"

int cmd_speedup(int argc, char **argv, struct ctx *ctx)
{
	return error("'speedup' is not built yet") ? EXIT_DATA : EXIT_DATA;
}
