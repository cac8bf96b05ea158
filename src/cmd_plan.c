#include "cli.h"

int cmd_plan(int argc, char **argv, struct ctx *ctx)
{
	return error("'plan' is not built yet") ? EXIT_DATA : EXIT_DATA;
}
