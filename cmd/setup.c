/* fslab setup: parse options, call fslab_setup(). */
#include "commands.h"
#include "log.h"
#include "opts.h"
#include "fslab/provision.h"
#include "spec.h"
#include "state.h"

static const struct fslab_cmd_opts fslab_setup_cmd = {
	.name = "setup",
	.synopsis = "Usage: fslab setup (--device DISK | --image FILE [--size SIZE]) [--spec FILE]\n"
		    "                   [--mount-root DIR] [--state FILE] [--wipe] [--yes] [--dry-run]\n"
		    "                   [--no-discard] [--precondition off|on|auto]\n"
		    "                   [--purge trim|none|secure-erase]",
	.intro = "Partitions a whole disk (GPT, one partition per [fs NAME] of the spec), formats\n"
		 "each partition, mounts it under MOUNT-ROOT/NAME and writes the state file.\n",
	.opts = FSLAB_OPTS(
		{ "device", 0, 0, "DISK",
		  "a whole, unused disk (e.g. /dev/sdb); everything on it is erased", DISK_GROUP },
		{ "image", 0, 0, "FILE",
		  "a disk image instead: created sparse (or reused: a file with data in it needs --wipe) "
		  "and attached to a free loop device", DISK_GROUP },
		{ "size", 0, 0, "SIZE",
		  "size of a new image (K/M/G/T); default: what the spec needs plus GPT overhead "
		  "(100G + 2M for the built-in spec)", 0 },
		{ "spec", 0, 0, "FILE", "lab spec (default: built in, see fslab spec --print)", 0 },
		{ "mount-root", 0, 0, "DIR", FSLAB_OPT_MOUNT_ROOT_HELP, 0 },
		{ "state", 0, 0, "FILE", FSLAB_OPT_STATE_HELP, 0 },
		{ "wipe", 0, 0, NULL, "allow erasing an existing partition table or filesystem", 0 },
		{ "yes", 0, 0, NULL,
		  "do not ask; without it the device name must be typed at a terminal (a new image needs "
		  "no confirmation)", 0 },
		{ "dry-run", 0, 0, NULL, "print the plan and change nothing", 0 },
		{ "no-discard", 0, 0, NULL,
		  "do not discard (TRIM) each partition before mkfs; by default setup discards where the "
		  "device supports it", 0 },
		{ "precondition", 0, 0, "WHEN",
		  "off (the default), on or auto: before partitioning, write the whole disk twice over "
		  "(2 drive-writes of wear) in 128 KiB sequential O_DIRECT writes, as SNIA's SSD test "
		  "specification asks; auto does it on a non-rotational disk and skips an image or loop "
		  "device, on forces it there (docs/ssd.md says why it is off by default)", 0 },
		{ "purge", 0, 0, "METHOD",
		  "trim (the default when preconditioning: BLKDISCARD of the whole disk, a TRIM purge, not "
		  "a PTS purge), none, or secure-erase (an NVMe disk whose controller supports it: NVMe "
		  "Format with Secure Erase, a PTS purge; refused elsewhere)", 0 }),
	.outro = "Refuses (exit 1, nothing written) to run as non-root; a path that is not a block\n"
		 "device, a partition, a disk with the root filesystem, a mounted filesystem, swap\n"
		 "or holders, a loop device whose backing file another loop device also uses, one\n"
		 "that cannot be opened exclusively, one too small, one with a table, signature or\n"
		 "(an image) data and no --wipe, one not confirmed; --state under the mount root\n"
		 "or on another lab.  Setup records the identity of all it creates, so teardown\n"
		 "can prove it.  Interrupted or failed: run fslab teardown.\n",
	.required = 1u << DISK_GROUP,
};

int cmd_setup(int argc, char **argv)
{
	struct fslab_setup_opts o = { 0 };
	static struct fslab_spec spec;
	const char *size_arg = NULL, *when = NULL, *purge = NULL;
	void *const bind[] = { &o.device, &o.image, &size_arg, &o.spec_source, &o.mount_root, &o.state_path,
			       &o.wipe, &o.yes, &o.dry_run, &o.no_discard, &when, &purge };
	struct fslab_opts it;
	struct fslab_err e = FSLAB_ERR_INIT;
	int c;

	fslab_opts_begin(&it, &fslab_setup_cmd, argc, argv);
	if (fslab_opts_bind(&it, bind) < 0)
		return it.status;
	if (when && fslab_cli_precondition(when, &o.precondition))
		return FSLAB_EXIT_USAGE;
	o.purge_given = purge != NULL;
	if (purge && (o.purge = fslab_purge_from_string(purge)) == FSLAB_PURGE_INVALID) {
		char names[64];

		return fslab_fail(FSLAB_EXIT_USAGE, "--purge '%s': use %s", purge,
				  fslab_vocab_join(FSLAB_VOCAB_PURGE, ", ", " or ", names, sizeof(names)));
	}
	if (size_arg && fslab_opt_size("--size", size_arg, &o.image_size) < 0)
		return FSLAB_EXIT_USAGE;
	/* --size with --device: fslab_setup refuses it (one message) */
	if ((c = fslab_cli_setup_paths(&o, &spec)) != 0)
		return c;
	return fslab_error_said(fslab_setup(&o, &e), &e);
}
