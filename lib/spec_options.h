/* The options a spec may pass to mkfs and mount: an allowlist per
 * filesystem type, kept as data in spec_options.c.
 *
 * fslab runs mkfs and mount as root on a disk it proved it owns; an option
 * is a second way to name a disk.  So only options fslab knows to be safe
 * pass (block size, features, inode size, a label for the new filesystem,
 * compression, noatime ...), each with its value checked (a number, a size,
 * one of a few words, a feature list, a short label).  Anything else is
 * refused with the option named, in particular every option that names a
 * device, a file, a label or UUID of another filesystem, or changes how the
 * source is found (loop, offset=, bind), and every bare word: fslab passes
 * the partition itself.  docs/fslab.1 (SPEC OPTIONS) lists the same set. */
#ifndef FSLAB_SPEC_OPTIONS_H
#define FSLAB_SPEC_OPTIONS_H

#include <stddef.h>

#include "names.h"

enum fslab_spec_options_kind {
	FSLAB_SPEC_MKFS_OPTIONS,  /* words added to mkfs's argv */
	FSLAB_SPEC_MOUNT_OPTIONS, /* a libmount (or fusefat -o) options string */
};

/* Checks text (a spec's mkfs_options or mount_options, or the same read
 * back from a state file) against the allowlist of type.  Returns 0, or
 * -EINVAL with err such as "mkfs_options: '-J device=LABEL=x' is not
 * allowed (it names another device); allowed for ext4: -b SIZE, ...
 * (see man fslab, SPEC OPTIONS)".  An empty text passes. */
int fslab_spec_options_check(enum fslab_fs_type type, enum fslab_spec_options_kind kind,
			     const char *text, char *err, size_t errlen);

/* Writes the allowed options of type as a comma-separated list
 * ("-b SIZE, -C SIZE, ..." or "data=, barrier[=], ..."), truncated to fit
 * buf.  Returns the length the whole list needs (as snprintf does), or
 * -EINVAL for an unknown type. */
int fslab_spec_options_allowed(enum fslab_fs_type type, enum fslab_spec_options_kind kind,
			       char *buf, size_t len);

/* "mkfs_options" or "mount_options": the spec key of kind. */
const char *fslab_spec_options_key(enum fslab_spec_options_kind kind);

#endif
