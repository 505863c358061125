/* The partition plan: where each [fs NAME] of the spec goes on a disk, what
 * formats it and where it is mounted.  Pure computation (no I/O), so it is
 * unit-tested and printed by --dry-run before anything is written. */
#ifndef FSLAB_PLAN_H
#define FSLAB_PLAN_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "names.h"
#include "spec.h"

/* GPT partition type GUIDs fslab writes. */
#define FSLAB_GPT_TYPE_LINUX_FS "0FC63DAF-8483-4772-8E79-3D69D8477DE4"
#define FSLAB_GPT_TYPE_MS_BASIC_DATA "EBD0A0A2-B9E5-4433-87C0-68B6B72699C7"

/* Room a GPT with 128 entries needs: protective MBR + header + 16 KiB of
 * entries at the front, entries + header at the back. */
#define FSLAB_GPT_ENTRIES_BYTES (16u * 1024u)

#define FSLAB_MKFS_ARGV_MAX 48

/* One row per filesystem type: how fslab makes, checks and mounts it. */
struct fslab_fs_recipe {
	enum fslab_fs_type type;
	const char *gpt_type;      /* partition type GUID */
	const char *mkfs;          /* program name */
	const char *mkfs_version_arg; /* its option that prints its version */
	const char *const *mkfs_args; /* fixed words before the user's options (NULL-terminated) */
	const char *package;       /* Debian package providing mkfs */
	const char *blkid_type;    /* TYPE libblkid must report after mkfs */
	const char *blkid_version; /* VERSION it must report, or NULL */
	const char *kernel_fstype; /* mount(2) filesystem type */
	const char *gpt_type_name; /* gpt_type for people ("Linux filesystem") */
};

const struct fslab_fs_recipe *fslab_fs_recipe(enum fslab_fs_type type);

/* Is what libblkid reports on a device (TYPE, VERSION) the recipe's
 * filesystem? */
bool fslab_fs_recipe_probed(const struct fslab_fs_recipe *rc, const char *type,
			    const char *version);

struct fslab_partition_plan {
	unsigned number;          /* 1-based */
	const struct fslab_fs_spec *fs; /* points into the spec */
	const struct fslab_fs_recipe *recipe;
	uint64_t start;           /* bytes from the start of the disk */
	uint64_t size;            /* bytes */
	char device[64];          /* /dev/loop0p1 */
	char mountpoint[PATH_MAX];
};

struct fslab_lab_plan {
	char disk[64];            /* /dev/loop0, /dev/sdb (may be "" for a dry run of a new image) */
	uint64_t disk_bytes;      /* the disk's size */
	unsigned sector_size;     /* logical sector size, 512 or 4096 */
	uint64_t needed_bytes;    /* the smallest disk that holds the plan */
	size_t n;
	struct fslab_partition_plan parts[FSLAB_MAX_FS];
};

/* Lays the spec's filesystems out in order: the first partition at the
 * first aligned offset after the primary GPT, each following one at the
 * next aligned offset, the backup GPT after the last.  disk_bytes = 0 only
 * computes needed_bytes (no size check).  Returns 0, -ENOSPC when the disk
 * is too small, -EINVAL for a spec it cannot lay out; e says which.  On
 * -ENOSPC e says what the layout needs and why (the partitions, the GPT
 * and alignment) but not the fix, which depends on whether the caller has
 * a disk or an image (fslab_plan_size_to_ask gives the size to name); a
 * NULL or "" disk is called "the image". */
int fslab_plan_compute(const struct fslab_spec *spec, const char *disk, uint64_t disk_bytes,
		       unsigned sector_size, const char *mount_root, struct fslab_lab_plan *plan,
		       struct fslab_err *e);

/* The size to ask a user for when needed_bytes is the need: rounded up to
 * a whole GiB (to a MiB below 1 GiB), in --size's spelling ("101G"). */
char *fslab_plan_size_to_ask(uint64_t needed, char *buf, size_t len);

/* Size of an image for the spec: the layout plus GPT overhead, rounded up
 * to the alignment (100 GiB + 2 MiB for the default spec). */
uint64_t fslab_plan_image_size(const struct fslab_spec *spec);

/* Kernel partition naming: "/dev/loop0", 1 -> "/dev/loop0p1"; "/dev/sda", 1
 * -> "/dev/sda1" (a "p" goes in when the disk's name ends in a digit).
 * Returns 0 or -ENAMETOOLONG. */
int fslab_partition_device_name(const char *disk, unsigned number, char *buf, size_t len);

/* The mkfs argv for a partition: program, fixed words, the spec's
 * mkfs_options split on blanks (never a shell), the device.  words
 * receives the strings (argv points into it and into the recipe).
 * Returns 0 or -E2BIG when there are too many words. */
int fslab_mkfs_argv(const struct fslab_fs_recipe *r, const char *mkfs_options,
		    const char *device, char *words, size_t words_len,
		    const char *argv[FSLAB_MKFS_ARGV_MAX]);

#endif
