#include "commands.h"
#include "log.h"

int cmd_setup(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fslab_error("not implemented yet");
	return FSLAB_EXIT_FAILURE;
}
