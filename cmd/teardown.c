/* fslab teardown: parse options, call fslab_teardown(). */
#include "commands.h"
#include "log.h"
#include "opts.h"
#include "fslab/provision.h"
#include "state.h"

static const struct fslab_cmd_opts fslab_teardown_cmd = {
	.name = "teardown",
	.synopsis = "Usage: fslab teardown [--state FILE] [--yes] [--keep-image] [--discard]",
	.intro = "Undoes fslab setup (also a half-finished one): unmounts what setup mounted, wipes\n"
		 "the filesystems and the partition table (both GPT headers and the protective\n"
		 "MBR), removes the kernel's partitions, detaches the loop device, deletes the\n"
		 "image setup created, removes the mount points setup created and the state file.\n"
		 "Acts only on what it proves setup made (the image and directories by their\n"
		 "fslab marker and inode, the loop device by its backing file, the disk by its\n"
		 "GPT disk GUID); anything else the state names is reported and left alone\n"
		 "(exit 1).  It first stops an mkfs a killed setup left running.  Root only.\n",
	.opts = FSLAB_OPTS(
		{ "state", 0, 0, "FILE", FSLAB_OPT_STATE_HELP, 0 },
		{ "yes", 0, 0, NULL,
		  "accepted for scripts; teardown only undoes what setup did and does not ask", 0 },
		{ "keep-image", 0, 0, NULL,
		  "keep the image file setup created (left blank: blocks punched out)", 0 },
		{ "discard", 0, 0, NULL,
		  "after the wipe, discard (TRIM) the whole disk where it supports it, so the next lab "
		  "starts from a fresh SSD", 0 }),
};

int cmd_teardown(int argc, char **argv)
{
	struct fslab_teardown_opts o = { 0 };
	bool yes; /* accepted for scripts: teardown does not ask */
	void *const bind[] = { &o.state_path, &yes, &o.keep_image, &o.discard };
	struct fslab_opts it;
	struct fslab_err e = FSLAB_ERR_INIT;
	int c;

	fslab_opts_begin(&it, &fslab_teardown_cmd, argc, argv);
	if (fslab_opts_bind(&it, bind) < 0)
		return it.status;
	if ((c = fslab_cli_state_path(o.state_path)) != 0)
		return c;
	return fslab_error_said(fslab_teardown(&o, &e), &e);
}
