#include "cli.h"

int cmd_fit(int argc, char **argv, struct ctx *ctx)
{
	return error("'fit' is not built yet") ? EXIT_DATA : EXIT_DATA;
}
