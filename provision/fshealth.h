/* Cheap read-only signs that the filesystem on a lab partition is damaged,
 * read from the block device itself (never through the mount, so a FUSE
 * daemon that stopped answering does not hang the check), and the one
 * field fslab writes there: FAT32's next-free hint, before fusefat mounts.
 *
 * - FAT32: the boot sector's dirty flag (byte 0x41, bit 0: what the kernel's
 *   vfat sets while it has the filesystem mounted), the FAT's second entry
 *   (bit 27 clear: not cleanly unmounted, what fusefat clears while it
 *   serves it; bit 26 clear: the driver met disk errors), the FSInfo
 *   sector's signatures and, only when nothing mounts the volume and both
 *   dirty bits are clear, FSInfo's free cluster count against the first
 *   FAT: vfat and fusefat write that count when they unmount or sync, so
 *   on a live volume it is an old hint, not damage.  A fusefat killed in
 *   a write leaves its dirty bit (and a wrong count a later clean mount
 *   and unmount keeps: fsck.fat -n "Free cluster summary wrong").
 * - ext2/ext4: the superblock's state (the errors bit) and its count of
 *   errors the kernel met; unmounted, the valid bit.
 * - xfs, btrfs: nothing cheap to read; not checked.
 *
 * A flag the driver that has the filesystem sets while it has it is not
 * read then. */
#ifndef FSLAB_FSHEALTH_H
#define FSLAB_FSHEALTH_H

#include <stdbool.h>
#include <stddef.h>

#include "names.h"

/* How the filesystem is in use while it is checked. */
struct fslab_health_ctx {
	bool kernel_mounted;  /* mounted by a kernel driver (anywhere) */
	bool fuse_mounted;    /* a FUSE daemon (fusefat) holds the device */
};

enum fslab_health {
	FSLAB_HEALTH_UNCHECKED, /* nothing cheap to read for this type */
	FSLAB_HEALTH_CLEAN,
	FSLAB_HEALTH_DAMAGED,   /* what in the text */
};

/* Checks the filesystem of type on device (read-only).  Returns the
 * verdict, with what was found in what when FSLAB_HEALTH_DAMAGED
 * ("dirty bit set: not cleanly unmounted; ..."), or a negative errno with
 * the reason in what (the device cannot be read, or holds no FAT32 or ext
 * superblock). */
int fslab_fs_health(const char *device, enum fslab_fs_type type, const struct fslab_health_ctx *ctx,
		    char *what, size_t len);

/* The one write: sets the FSInfo sector's next-free hint (FSI_Nxt_Free) of
 * the unmounted FAT32 volume on device to its first data cluster, after
 * checking the boot sector and FSInfo's three signatures; fsync'd.
 * fusefat 0.1a hands out clusters upwards from that hint, keeps it across a
 * remount and cannot read a directory whose cluster lies 2 GiB or more into
 * the volume; from the first cluster it finds the low clusters earlier runs
 * freed.  The caller has proven device is the lab's.  Returns 0 (also when
 * the volume names no FSInfo sector) or a negative errno with what said
 * (-EBUSY: something holds or mounts the device). */
int fslab_fat32_rewind_next_free(const char *device, char *what, size_t len);

/* The word for a verdict, as status prints it: "clean", "damaged",
 * "not checked". */
const char *fslab_health_word(enum fslab_health h);

#endif
