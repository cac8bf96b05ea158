#include "cli.h"

int cmd_presets(int argc, char **argv, struct ctx *ctx)
{
	return error("'presets' is not built yet") ? EXIT_DATA : EXIT_DATA;
}
