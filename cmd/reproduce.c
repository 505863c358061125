/* fslab reproduce: the 2023 experiment (docs/reproduce.md) from a blank disk to a
 * report and back to a clean disk, in one command.  This file reads the
 * command line; reproduce/pipeline.c runs the stages. */
#include "commands.h"
#include "log.h"
#include "opts.h"
#include "settings.h"
#include "fslab/provision.h"
#include "fslab/reproduce.h"
#include "size.h"
#include "spec.h"
#include "state.h"

#include <stdio.h>

static const struct fslab_cmd_opts fslab_reproduce_cmd = {
	.name = "reproduce",
	.synopsis = "Usage: fslab reproduce (--device DISK | --image FILE [--size SIZE]) [--spec FILE] [--yes] [--wipe]\n"
		    "                       [--out DIR] [--max-file SIZE] [--honest [--until-ci PCT]\n"
		    "                       [--max-trials N]] [--keep] [--state FILE] [--mount-root DIR]\n"
		    "                       [--precondition off|on|auto] [--quiet] [--dry-run]",
	.intro = "The 2023 experiment in one command: setup with its layout (ext4, ext2, xfs, fat32,\n"
		 "btrfs; 20G each, in that order), the `seed` sweep in warm mode as `iozone -a` ran\n"
		 "it, the report, then teardown.  Results and report go to --out.\n",
	.opts = FSLAB_OPTS(
		{ "device", 0, 0, "DISK", "a dedicated whole disk (everything on it is destroyed)",
		  DISK_GROUP },
		{ "image", 0, 0, "FILE", "a sparse image file on a loop device instead (created if missing)", DISK_GROUP },
		{ "size", 0, 0, "SIZE", "size of a new image (default: what the layout needs, 100G+2M)", 0 },
		{ "spec", 0, 0, "FILE", "another layout (fslab spec --print; smaller partitions: a small lab)", 0 },
		{ "yes", 0, 'y', NULL, "do not ask before writing the disk", 0 },
		{ "wipe", 0, 0, NULL, "allow a disk that holds a partition table or filesystem", 0 },
		{ "precondition", 0, 0, "WHEN",
		  "as for setup: off (the default), on or auto (an SSD is "
		  "purged and written twice over first; an image is not)", 0 },
		{ "out", 0, 0, "DIR",
		  "results and report (default results/reproduce-<UTC time>/): "
		  "DIR/warm, [DIR/cold, DIR/direct,] DIR/report", 0 },
		{ "max-file", 0, 0, "SIZE",
		  "largest file of the sweep (default 2G, the report's text, or what "
		  "--spec's smallest partition holds; 1G is the command it printed, iozone -a -g 1G)", 0 },
		{ "honest", 0, 0, NULL,
		  "add sweeps that measure the disk rather than the page cache: "
		  "cold and direct cache modes with adaptive trials, files larger "
		  "than RAM where the partitions allow; the report then states "
		  "which of the 2023 conclusions survive", 0 },
		{ "until-ci", 0, 0, "PCT",
		  "honest sweeps: repeat each cell until its 95% confidence "
		  "interval is within PCT percent of the mean (default 5)", 0 },
		{ "max-trials", 0, 0, "N", "... or N trials (default 5)", 0 },
		{ "keep", 0, 0, NULL, "leave the lab set up afterwards (fslab teardown removes it)", 0 },
		{ "state", 0, 0, "FILE", FSLAB_OPT_STATE_HELP, 0 },
		{ "mount-root", 0, 0, "DIR", FSLAB_OPT_MOUNT_ROOT_HELP, 0 },
		{ "quiet", 0, 'q', NULL, "no progress line", 0 },
		{ "dry-run", 0, 0, NULL,
		  "print the whole plan (setup, each run with its estimated time, "
		  "the report, teardown) and touch nothing", 0 }),
	.outro = "A failed or interrupted stage still ends with teardown (unless --keep); finished\n"
		 "results are kept.  docs/reproduce.md explains the experiment and how long it takes.\n"
		 "Exit status: 0 success, 1 a stage failed, 2 bad usage.\n",
	.required = 1u << DISK_GROUP,
};

/* What the table cannot say: the values, --size with --image only,
 * --until-ci and --max-trials with --honest only, the paths. */
static int repro_check(const char *const *arg, struct reproduce_ctl *c)
{
	static struct fslab_spec spec;
	struct fslab_err e;
	int r;

	if ((arg[0] && fslab_opt_size("--size", arg[0], &c->setup->image_size) < 0) ||
	    (arg[1] && fslab_cli_precondition(arg[1], &c->setup->precondition)) ||
	    (arg[2] && fslab_opt_size("--max-file", arg[2], &c->max_file) < 0))
		return FSLAB_EXIT_USAGE;
	/* --max-file: a power of two from 64K up (the sweep doubles from 64K) */
	c->max_file_set = arg[2] != NULL;
	if (arg[2] && (c->max_file & (c->max_file - 1) || c->max_file < 64 * FSLAB_KiB))
		return fslab_fail(FSLAB_EXIT_USAGE, "--max-file '%s': give a power of two from 64K up (e.g. 1G, 2G, 4M); "
				  "the sweep doubles file sizes from 64K", arg[2]);
	/* fslab run's settings: their rows check them */
	if ((arg[3] && fslab_setting_parse(&c->honest_given, FSLAB_SETTING_UNTIL_CI, arg[3], "--until-ci", &e) < 0) ||
	    (arg[4] && fslab_setting_parse(&c->honest_given, FSLAB_SETTING_MAX_TRIALS, arg[4], "--max-trials", &e) < 0))
		return fslab_fail(FSLAB_EXIT_USAGE, "%s", e.msg);
	if (c->setup->image_size && !c->setup->image)
		return fslab_fail(FSLAB_EXIT_USAGE, "--size applies to --image only (a disk has the size it has)");
	if ((arg[3] || arg[4]) && !c->honest)
		return fslab_fail(FSLAB_EXIT_USAGE, "--until-ci and --max-trials shape the honest sweeps: add --honest");
	if ((r = fslab_cli_setup_paths(c->setup, &spec)) != 0)
		return r;
	/* --spec without --max-file: files as large as its smallest partition holds */
	for (size_t i = 0; c->setup->spec_source && !c->max_file_set && i < spec.n_fs; i++)
		while (c->max_file > 64 * FSLAB_KiB && c->max_file > spec.fs[i].size - spec.fs[i].size / 20)
			c->max_file /= 2;
	if (!c->setup->state_path)
		c->setup->state_path = fslab_state_default_path();
	return 0;
}

int cmd_reproduce(int argc, char **argv)
{
	struct fslab_setup_opts so = { 0 };
	struct reproduce_ctl c = {
		.setup = &so,
		.max_file = 2 * FSLAB_GiB,
		.argc = argc,
		.argv = argv,
	};
	/* --size, --precondition, --max-file, --until-ci, --max-trials */
	const char *arg[5] = { NULL };
	void *const bind[] = { &so.device, &so.image, &arg[0], &so.spec_source, &so.yes,
			       &so.wipe, &arg[1], &c.out, &arg[2], &c.honest, &arg[3], &arg[4], &c.keep,
			       &so.state_path, &so.mount_root, &c.quiet, &c.dry_run };
	struct fslab_opts it;
	int r;

	fslab_settings_put_real(&c.honest_given, FSLAB_SETTING_UNTIL_CI, 5.0);
	fslab_settings_put(&c.honest_given, FSLAB_SETTING_MAX_TRIALS, 5, 0);
	fslab_opts_begin(&it, &fslab_reproduce_cmd, argc, argv);
	if (fslab_opts_bind(&it, bind) < 0)
		return it.status;
	if ((r = repro_check(arg, &c)) != 0)
		return r;
	return repro_pipeline(&c);
}
