/* fslab teardown: parse options, call fslab_teardown(). */
#include "commands.h"
#include "log.h"
#include "provision.h"
#include "state.h"
#include "termtext.h"

#include <getopt.h>
#include <stdio.h>

static void usage(FILE *out)
{
	fputs("Usage: fslab teardown [--state FILE] [--yes] [--keep-image] [--discard]\n\n"
	      "Undoes fslab setup (also a half-finished one): unmounts what setup mounted, wipes\n"
	      "the filesystems and the partition table (both GPT headers and the protective\n"
	      "MBR), removes the kernel's partitions, detaches the loop device, deletes the\n"
	      "image setup created, removes the mount points setup created and the state file.\n"
	      "Acts only on what it proves setup made (the image and directories by their\n"
	      "fslab marker and inode, the loop device by its backing file, the disk by its\n"
	      "GPT disk GUID); anything else the state names is reported and left alone\n"
	      "(exit 1).  It first stops an mkfs a killed setup left running.  Root only.\n\n"
	      "  --state FILE   state file (default $FSLAB_STATE or " FSLAB_STATE_DEFAULT_PATH ")\n"
	      "  --yes          accepted for scripts; teardown only undoes what setup did and\n"
	      "                 does not ask\n"
	      "  --keep-image   keep the image file setup created (left blank: blocks punched out)\n"
	      "  --discard      after the wipe, discard (TRIM) the whole disk where it supports\n"
	      "                 it, so the next lab starts from a fresh SSD\n"
	      "  -h, --help     this help\n",
	      out);
}

int cmd_teardown(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "state", required_argument, NULL, 't' },
		{ "yes", no_argument, NULL, 'y' },
		{ "keep-image", no_argument, NULL, 'k' },
		{ "discard", no_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct fslab_teardown_opts o = { 0 };
	int c;

	while ((c = getopt_long(argc, argv, "hy", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			o.state_path = optarg;
			break;
		case 'y':
			o.yes = true;
			break;
		case 'k':
			o.keep_image = true;
			break;
		case 'D':
			o.discard = true;
			break;
		case 'h':
			usage(stdout);
			return FSLAB_EXIT_OK;
		default:
			usage(stderr);
			return FSLAB_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		char esc[FSLAB_ESCAPE_SIZE(256)];

		fslab_error("unexpected argument '%s'", fslab_escape_ctrl(argv[optind], esc, sizeof(esc)));
		usage(stderr);
		return FSLAB_EXIT_USAGE;
	}
	if (fslab_path_has_ctrl(o.state_path ? o.state_path : fslab_state_default_path())) {
		char esc[FSLAB_ESCAPE_SIZE(256)];

		fslab_error("refused: the state path '%s' holds control characters (shown escaped); "
			    "give one without them",
			    fslab_escape_ctrl(o.state_path ? o.state_path : fslab_state_default_path(),
					      esc, sizeof(esc)));
		return FSLAB_EXIT_USAGE;
	}
	if (o.state_path && !*o.state_path) {
		fslab_error("--state: empty path");
		return FSLAB_EXIT_USAGE;
	}
	return fslab_teardown(&o);
}
