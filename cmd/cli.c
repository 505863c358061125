/* What the lab commands (setup, status, teardown, reproduce) check the
 * same way after their options (commands.h). */
#include "commands.h"
#include "log.h"
#include "fslab/provision.h"
#include "spec.h"
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

int fslab_cli_setup_paths(struct fslab_setup_opts *o, struct fslab_spec *spec)
{
	const char *names[] = { "--mount-root", "--device", "--image", "--spec" };
	const char *paths[] = { o->mount_root, o->device, o->image, o->spec_source };
	struct fslab_err e;
	int r = fslab_cli_state_path(o->state_path);

	for (size_t i = 0; r == 0 && i < 4; i++)
		r = check_path(names[i], paths[i]);
	if (r)
		return r;
	fslab_spec_default(spec);
	if (o->spec_source && fslab_spec_load(o->spec_source, spec, &e) < 0)
		return fslab_fail(FSLAB_EXIT_USAGE, "%s", fslab_err_msg(&e));
	o->spec = spec;
	return 0;
}

int fslab_cli_precondition(const char *arg, enum fslab_precondition_when *out)
{
	*out = fslab_precondition_when_from_string(arg);
	if (*out == FSLAB_PRECONDITION_INVALID)
		return fslab_fail(FSLAB_EXIT_USAGE, "--precondition '%s': use on, off or auto", arg);
	return 0;
}
