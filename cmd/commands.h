/* One function per subcommand: int cmd_NAME(int argc, char **argv), where
 * argv[0] is the subcommand's name.  Each returns an FSLAB_EXIT_* status. */
#ifndef FSLAB_COMMANDS_H
#define FSLAB_COMMANDS_H

#include "fslab/provision.h"

#include <stddef.h>

int cmd_setup(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_teardown(int argc, char **argv);
int cmd_spec(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_reproduce(int argc, char **argv);

/* The option group of setup's and reproduce's --device and --image:
 * exactly one. */
#define DISK_GROUP 1

/* The --state and --mount-root help, the same in every lab command (where
 * used, state.h and provision.h give the defaults). */
#define FSLAB_OPT_STATE_HELP "state file (default $FSLAB_STATE or " FSLAB_STATE_DEFAULT_PATH ")"
#define FSLAB_OPT_MOUNT_ROOT_HELP \
	"where the filesystems are mounted (default " FSLAB_MOUNT_ROOT_DEFAULT ")"

/* The state path of a lab command (setup, status, teardown, reproduce):
 * state_path, or the default when NULL, neither empty nor holding a control
 * character.  Returns 0, or FSLAB_EXIT_USAGE after one message
 * (cmd/cli.c). */
int fslab_cli_state_path(const char *state_path);

/* Setup's (and reproduce's) options o: the same check of the state path
 * and of --mount-root, --device, --image and --spec (spec_source), then
 * the spec file loaded into spec (the built-in one without --spec), which
 * o->spec points to.  0 or FSLAB_EXIT_USAGE after one message. */
struct fslab_spec;
int fslab_cli_setup_paths(struct fslab_setup_opts *o, struct fslab_spec *spec);
/* --precondition WHEN (setup, reproduce): on, off or auto into *out;
 * FSLAB_EXIT_USAGE after a message. */
int fslab_cli_precondition(const char *arg, enum fslab_precondition_when *out);

#endif
