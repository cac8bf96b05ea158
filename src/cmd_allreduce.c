#include "cli.h"

int cmd_allreduce(int argc, char **argv, struct ctx *ctx)
{
	return error("'allreduce' is not built yet") ? EXIT_DATA : EXIT_DATA;
}
