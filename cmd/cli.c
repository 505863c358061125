/* What the lab commands (setup, status, teardown, reproduce) check the
 * same way after their options (commands.h). */
#include "commands.h"
#include "log.h"
#include "fslab/provision.h"
#include "state.h"
#include "termtext.h"

#include <string.h>

/* A lab command's path (--state, --mount-root, --device, --image,
 * --spec): FSLAB_EXIT_USAGE after one message when it is empty or holds
 * a control character; 0 when it is fine or NULL. */
static int check_path(const char *opt, const char *path)
{
	if (!path)
		return 0;
	if (!*path)
		return fslab_fail(FSLAB_EXIT_USAGE, "%s: empty path; give a path or leave the option out", opt);
	/* Paths end up in the state, the log and every message: the terminal
	 * filter would have to show this one otherwise than it is. */
	if (strcmp(fslab_esc(path), path) != 0)
		return fslab_fail(FSLAB_EXIT_USAGE, "refused: the path '%s' holds control characters, bidirectional marks or bytes of no valid UTF-8 (shown escaped); give one without them",
				  fslab_esc(path));
	return 0;
}

int fslab_cli_state_path(const char *state_path)
{
	return check_path("--state", state_path ? state_path : fslab_state_default_path());
}

int fslab_cli_paths(const char *const *names, const char *const *paths, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int r = check_path(names[i], paths[i]);

		if (r)
			return r;
	}
	return 0;
}

int fslab_cli_precondition(const char *arg, enum fslab_precondition_when *out)
{
	*out = fslab_precondition_when_from_string(arg);
	if (*out == FSLAB_PRECONDITION_INVALID)
		return fslab_fail(FSLAB_EXIT_USAGE, "--precondition '%s': use on, off or auto", arg);
	return 0;
}
