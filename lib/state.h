/* The lab's state file: what setup made, so that status, run and teardown
 * act on exactly that and nothing else.  JSON (json-c), written atomically
 * with mode 0600.  Default path /var/lib/fslab/state.json, overridden by
 * $FSLAB_STATE and by --state.
 *
 * provision/ owns the meaning of the fields and keeps them current through
 * every step of setup (so teardown can undo a half-finished setup); bench/
 * reads only the partitions' name, type, device, mountpoint and
 * mount_method. */
#ifndef FSLAB_STATE_H
#define FSLAB_STATE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "names.h"
#include "spec.h"

#define FSLAB_STATE_VERSION 1
#define FSLAB_STATE_DEFAULT_PATH "/var/lib/fslab/state.json"

enum fslab_mount_method {
	FSLAB_MOUNT_NONE,   /* not mounted by setup (yet) */
	FSLAB_MOUNT_KERNEL, /* mount(2) through libmount */
	FSLAB_MOUNT_FUSE,   /* fusefat daemon */
	FSLAB_MOUNT_METHOD_MAX,
	FSLAB_MOUNT_METHOD_INVALID = -1,
};

const char *fslab_mount_method_to_string(enum fslab_mount_method m);
enum fslab_mount_method fslab_mount_method_from_string(const char *s);

struct fslab_state_partition {
	char name[FSLAB_FS_NAME_MAX];
	enum fslab_fs_type type;
	unsigned number;          /* 1-based partition number */
	char device[64];          /* /dev/loop0p1, /dev/sdb1 */
	char partuuid[40];
	uint64_t start_sector;    /* 512-byte sectors */
	uint64_t size_sectors;
	char mkfs_options[FSLAB_OPTIONS_MAX];
	char mount_options[FSLAB_OPTIONS_MAX];
	char mountpoint[PATH_MAX];
	bool mountpoint_created;  /* setup made the directory: teardown removes it */
	bool formatted;           /* mkfs finished and blkid agreed */
	enum fslab_mount_method mount_method; /* NONE until mounted */
};

struct fslab_state {
	int version;
	char phase[32];           /* provision's progress marker, e.g. "partitioned" */
	char disk[64];            /* whole disk: /dev/sdb or /dev/loop0 */
	char disk_guid[40];       /* GPT disk GUID written by setup */
	char image[PATH_MAX];     /* backing file when --image, else "" */
	bool image_created;       /* setup created the image: teardown deletes it */
	char mount_root[PATH_MAX];
	bool mount_root_created;
	char spec_source[PATH_MAX]; /* spec file path, or "built-in" */
	char created_at[32];      /* UTC, ISO 8601 */
	size_t n_partitions;
	struct fslab_state_partition partitions[FSLAB_MAX_FS];
};

/* $FSLAB_STATE, else FSLAB_STATE_DEFAULT_PATH. */
const char *fslab_state_default_path(void);

/* Returns 0; -ENOENT when there is no state file (no lab); -EINVAL with a
 * message in err when it is not a state file fslab wrote. */
int fslab_state_load(const char *path, struct fslab_state *st, char *err, size_t errlen);

/* Writes atomically, mode 0600, creating the parent directory (0755) when
 * missing.  Returns 0 or a negative errno. */
int fslab_state_save(const char *path, const struct fslab_state *st);

/* fslab_state_save_opt flags. */
enum {
	/* Atomic (temporary file + rename, never a torn file) but without
	 * fsync: for the many intermediate saves during setup and teardown,
	 * where surviving a crash of fslab (not of the machine) is what
	 * matters.  The saves before the first write to a disk and at the
	 * end are durable. */
	FSLAB_STATE_SAVE_NOSYNC = 1 << 0,
};

/* fslab_state_save with flags. */
int fslab_state_save_opt(const char *path, const struct fslab_state *st, unsigned flags);

/* Lookup by name; NULL when absent. */
const struct fslab_state_partition *fslab_state_find(const struct fslab_state *st,
						     const char *name);

#endif
