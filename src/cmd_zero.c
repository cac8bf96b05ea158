#include "cli.h"

int cmd_zero(int argc, char **argv, struct ctx *ctx)
{
	return error("'zero' is not built yet") ? EXIT_DATA : EXIT_DATA;
}
