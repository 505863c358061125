/* A target: one directory fslab run benchmarks, with what its maker knows
 * of it.  bench/ takes nothing else: it never opens a lab.  The command
 * layer makes the targets: a --dir NAME=PATH is a target with a name and a
 * path only (the mount says the rest); a lab's mounted partitions become
 * targets through provision's fslab_lab_targets (include/fslab/provision.h), which
 * fills in what setup did and the lab's cold-cache remount. */
#ifndef FSLAB_TARGET_H
#define FSLAB_TARGET_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "spec.h"
#include "state.h"

/* The remount cold mode falls back to: unmounts the target called name
 * and mounts it again as it was, so the page cache holds none of its
 * pages.  0 or a negative errno with the reason in why. */
typedef int (*fslab_target_remount_fn)(void *ctx, const char *name, char *why, size_t whylen);

struct fslab_target {
	char name[FSLAB_FS_NAME_MAX]; /* names the CSV: [A-Za-z0-9_-]+ */
	char path[PATH_MAX];          /* an existing, writable directory */

	/* Made by fslab setup (a lab partition): the fields below are the
	 * lab's record; false for a plain directory (all of them empty). */
	bool lab;
	char device[PATH_MAX];   /* the block device: fsync'd before each cell */
	char type[16];           /* as the lab names it: ext4, fat32, ... */
	bool fuse;               /* mounted through FUSE (fusefat) */
	char mount_options[FSLAB_OPTIONS_MAX];
	char mkfs_options[FSLAB_OPTIONS_MAX];
	char mkfs_command[FSLAB_MKFS_COMMAND_MAX];
	char mkfs_version[FSLAB_MKFS_VERSION_MAX]; /* what that mkfs said its version was */
	int discarded;           /* setup discarded it before mkfs: 0/1; -1 not known */
	char mount_quiet[16];    /* setup's quiet wait after mount: quiet, timeout, "" */
	double mount_quiet_wait_s;
	bool image;              /* the lab's disk is an image file on a loop device */
	struct fslab_state_precondition precondition; /* the lab's disk */

	/* Cold mode's last resort; NULL: the target cannot be remounted. */
	fslab_target_remount_fn remount;
	void *remount_ctx;
};

#endif
