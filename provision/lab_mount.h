/* Mounting one partition of the lab exactly as setup did: the kernel driver
 * through libmount, or fusefat for FAT32 where the kernel has no vfat.  The
 * benchmark engine remounts with these to drop a filesystem's page cache. */
#ifndef FSLAB_LAB_MOUNT_H
#define FSLAB_LAB_MOUNT_H

#include "state.h"

/* Mounts p->device at p->mountpoint with p->mount_options, by
 * p->mount_method (FSLAB_MOUNT_NONE: the method setup would choose).
 * Returns 0 or a negative errno (-EBUSY when something is already mounted
 * there); the message names the device and the mount point. */
int fslab_lab_mount(const struct fslab_state *st, const struct fslab_state_partition *p, struct fslab_err *e);

/* Unmounts p->mountpoint if p->device is mounted there (0 if it is not
 * mounted).  For FUSE it waits (bounded) for the daemon to let go of the
 * device, so the device is quiet when this returns.  Returns 0 or a
 * negative errno; never unmounts anything other than p->device at
 * p->mountpoint. */
int fslab_lab_unmount(const struct fslab_state *st, const struct fslab_state_partition *p, struct fslab_err *e);

/* Does the mount at p->mountpoint answer?  statvfs of it from a child
 * that is given up on after a few seconds, so a stopped FUSE daemon
 * cannot hang the caller.  0 (vfs filled when not NULL); -ETIMEDOUT (no
 * answer: why names the FUSE daemon's pid and whether it is stopped) or
 * -ENOTCONN (a FUSE mount whose daemon is gone), or another -errno, with
 * why. */
struct statvfs;
int fslab_lab_mount_answers(const struct fslab_state_partition *p, struct statvfs *vfs, struct fslab_err *e);

/* Records in p the FUSE daemon serving its mount (the process holding
 * p->device) and the connection number (the mount's minor device): what
 * names a stopped daemon later.  Clears both for a kernel mount. */
void fslab_lab_fuse_record(struct fslab_state_partition *p);

/* The process that holds rdev open, or 0: how a FUSE daemon is seen
 * (fusefat keeps its device open while it serves it, and while it
 * flushes after the unmount).  Reads only /proc's links, never the mount. */
pid_t fslab_lab_device_holder(dev_t rdev);

/* The mount root is a place only root controls: existing (the nearest
 * existing ancestor of it, when it is still to be made) passes
 * fslab_path_trusted, so no other user can swap it or a directory above
 * it before or after the mount.  0, or -EPERM said (naming the mount
 * root, the place and the owner). */
int fslab_lab_mount_root_check(const char *mount_root, const char *existing, struct fslab_err *e);

/* The method setup uses for a type here: FUSE for fat32 when
 * /proc/filesystems lacks vfat, else KERNEL. */
enum fslab_mount_method fslab_lab_mount_method_for(enum fslab_fs_type type);

#endif
