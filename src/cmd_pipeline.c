#include "cli.h"

int cmd_pipeline(int argc, char **argv, struct ctx *ctx)
{
	return error("'pipeline' is not built yet") ? EXIT_DATA : EXIT_DATA;
}
