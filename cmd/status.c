/* fslab status: parse options, call fslab_status(). */
#include "commands.h"
#include "log.h"
#include "opts.h"
#include "fslab/provision.h"
#include "state.h"

static const struct fslab_cmd_opts fslab_status_cmd = {
	.name = "status",
	.synopsis = "Usage: fslab status [--state FILE] [--json]",
	.intro = "Shows the lab as it is now: the disk or image, and for each partition its device,\n"
		 "the filesystem probed now, the mount point, whether it is mounted, size and free\n"
		 "space, and a read-only check of each filesystem (FAT32's dirty bits and free\n"
		 "cluster count, ext2/ext4's error state and count; xfs and btrfs are not checked).\n"
		 "Exit status 1, naming each problem, when the lab is damaged (a partition missing,\n"
		 "unmounted or of the wrong type, a mount that does not answer within 5 s or whose\n"
		 "FUSE daemon is gone, a filesystem the check finds damaged, or setup unfinished).\n",
	.opts = FSLAB_OPTS(
		{ "state", 0, 0, "FILE", FSLAB_OPT_STATE_HELP, 0 },
		{ "json", 0, 0, NULL, "print JSON instead of a table", 0 }),
};

int cmd_status(int argc, char **argv)
{
	struct fslab_status_opts o = { 0 };
	void *const bind[] = { &o.state_path, &o.json };
	struct fslab_opts it;
	struct fslab_err e = FSLAB_ERR_INIT;
	int c;

	fslab_opts_begin(&it, &fslab_status_cmd, argc, argv);
	if (fslab_opts_bind(&it, bind) < 0)
		return it.status;
	if ((c = fslab_cli_state_path(o.state_path)) != 0)
		return c;
	return fslab_error_said(fslab_status(&o, &e), &e);
}
