/* What the lab commands (setup, status, teardown, reproduce) check the
 * same way after their options (commands.h). */
#include "commands.h"
#include "log.h"
#include "opts.h"
#include "provision.h"
#include "state.h"

int fslab_cli_state_path(const char *state_path)
{
	return fslab_opts_check_path("--state", state_path ? state_path : fslab_state_default_path());
}

int fslab_cli_paths(const char *const *names, const char *const *paths, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int r = fslab_opts_check_path(names[i], paths[i]);

		if (r)
			return r;
	}
	return 0;
}

int fslab_cli_precondition(const char *arg, int *out)
{
	*out = fslab_precondition_when_from_string(arg);
	if (*out == FSLAB_PRECONDITION_INVALID) {
		fslab_error("--precondition '%s': use on, off or auto", arg);
		return FSLAB_EXIT_USAGE;
	}
	return 0;
}
