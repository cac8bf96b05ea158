#include "cli.h"

int cmd_ddp(int argc, char **argv, struct ctx *ctx)
{
	return error("'ddp' is not built yet") ? EXIT_DATA : EXIT_DATA;
}
