/* fslab_run(): placeholder until the engine lands (same commit series). */
#include "run.h"
#include "log.h"

#include <string.h>

void fslab_run_opts_init(struct fslab_run_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->preset = "seed";
	o->cache = FSLAB_CACHE_MODE_INVALID;
}

int fslab_run(const struct fslab_run_opts *o)
{
	(void)o;
	fslab_error("the engine is not implemented yet");
	return FSLAB_EXIT_FAILURE;
}
