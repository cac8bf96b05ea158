#include "cli.h"

int cmd_crossover(int argc, char **argv, struct ctx *ctx)
{
	return error("'crossover' is not built yet") ? EXIT_DATA : EXIT_DATA;
}
