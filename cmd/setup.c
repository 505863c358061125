/* fslab setup: parse options, call fslab_setup(). */
#include "commands.h"
#include "log.h"
#include "provision.h"
#include "size.h"
#include "spec.h"
#include "state.h"
#include "termtext.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
	fputs("Usage: fslab setup (--device DISK | --image FILE [--size SIZE]) [--spec FILE]\n"
	      "                   [--mount-root DIR] [--state FILE] [--wipe] [--yes] [--dry-run]\n"
	      "                   [--no-discard]\n\n"
	      "Partitions a whole disk (GPT, one partition per [fs NAME] of the spec), formats\n"
	      "each partition, mounts it under MOUNT-ROOT/NAME and writes the state file.\n\n"
	      "  --device DISK      a whole, unused disk (e.g. /dev/sdb); everything on it is erased\n"
	      "  --image FILE       a disk image instead: created sparse (or reused: a file with\n"
	      "                     data in it needs --wipe) and attached to a free loop device\n"
	      "  --size SIZE        size of a new image (K/M/G/T); default: what the spec needs\n"
	      "                     plus GPT overhead (100G + 2M for the built-in spec)\n"
	      "  --spec FILE        lab spec (default: built in, see fslab spec --print)\n"
	      "  --mount-root DIR   where the filesystems are mounted (default " FSLAB_MOUNT_ROOT_DEFAULT ")\n"
	      "  --state FILE       state file (default $FSLAB_STATE or " FSLAB_STATE_DEFAULT_PATH ")\n"
	      "  --wipe             allow erasing an existing partition table or filesystem\n"
	      "  --yes              do not ask; without it the device name must be typed at a\n"
	      "                     terminal (a new image needs no confirmation)\n"
	      "  --dry-run          print the plan and change nothing\n"
	      "  --no-discard       do not discard (TRIM) each partition before mkfs; by default\n"
	      "                     setup discards where the device supports it\n"
	      "  -h, --help         this help\n\n"
	      "Refuses (exit 1, nothing written) to run as non-root; a path that is not a block\n"
	      "device, a partition, a disk with the root filesystem, a mounted filesystem, swap\n"
	      "or holders, a loop device whose backing file another loop device also uses, one\n"
	      "that cannot be opened exclusively, one too small, one with a table, signature or\n"
	      "(an image) data and no --wipe, one not confirmed; --state under the mount root\n"
	      "or on another lab.  Setup records the identity of all it creates, so teardown\n"
	      "can prove it.  Interrupted or failed: run fslab teardown.\n",
	      out);
}

int cmd_setup(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "image", required_argument, NULL, 'i' },
		{ "size", required_argument, NULL, 's' },
		{ "spec", required_argument, NULL, 'S' },
		{ "mount-root", required_argument, NULL, 'm' },
		{ "state", required_argument, NULL, 't' },
		{ "wipe", no_argument, NULL, 'w' },
		{ "yes", no_argument, NULL, 'y' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "no-discard", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct fslab_setup_opts o = { 0 };
	static struct fslab_spec spec;
	const char *spec_path = NULL, *size_arg = NULL;
	char err[1024];
	int c;

	while ((c = getopt_long(argc, argv, "hy", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			o.device = optarg;
			break;
		case 'i':
			o.image = optarg;
			break;
		case 's':
			size_arg = optarg;
			break;
		case 'S':
			spec_path = optarg;
			break;
		case 'm':
			o.mount_root = optarg;
			break;
		case 't':
			o.state_path = optarg;
			break;
		case 'w':
			o.wipe = true;
			break;
		case 'y':
			o.yes = true;
			break;
		case 'n':
			o.dry_run = true;
			break;
		case 'N':
			o.no_discard = true;
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
	if (!o.device == !o.image) {
		fslab_error("give exactly one of --device DISK or --image FILE");
		usage(stderr);
		return FSLAB_EXIT_USAGE;
	}
	if (size_arg) {
		const char *why = NULL;

		if (!o.image) {
			fslab_error("--size is for --image only (a disk has its own size)");
			return FSLAB_EXIT_USAGE;
		}
		if (fslab_size_parse(size_arg, &o.image_size, &why) < 0) {
			fslab_error("--size '%s': %s; use a positive size such as 100G or 512M", size_arg,
				    why ? why : "not a size");
			return FSLAB_EXIT_USAGE;
		}
	}
	if ((o.mount_root && !*o.mount_root) || (o.state_path && !*o.state_path) ||
	    (o.device && !*o.device) || (o.image && !*o.image)) {
		fslab_error("an empty path was given");
		return FSLAB_EXIT_USAGE;
	}
	{
		/* Paths end up in the state, the log and every message: a
		 * control byte in one could rewrite what the terminal shows. */
		const char *paths[] = { o.mount_root, o.state_path ? o.state_path : fslab_state_default_path(),
					o.device, o.image, spec_path };

		for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
			char esc[FSLAB_ESCAPE_SIZE(256)];

			if (!paths[i] || !fslab_path_has_ctrl(paths[i]))
				continue;
			fslab_error("refused: the path '%s' holds control characters (shown escaped); "
				    "give one without them",
				    fslab_escape_ctrl(paths[i], esc, sizeof(esc)));
			return FSLAB_EXIT_USAGE;
		}
	}
	if (spec_path) {
		if (fslab_spec_load(spec_path, &spec, err, sizeof(err)) < 0) {
			char esc[FSLAB_ESCAPE_SIZE(sizeof(err))];

			fslab_error("%s", fslab_escape_ctrl(err, esc, sizeof(esc)));
			return FSLAB_EXIT_USAGE;
		}
		o.spec = &spec;
		o.spec_source = spec_path;
	}
	return fslab_setup(&o);
}
