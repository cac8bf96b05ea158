#include "cli.h"

int cmd_compare(int argc, char **argv, struct ctx *ctx)
{
	return error("'compare' is not built yet") ? EXIT_DATA : EXIT_DATA;
}
