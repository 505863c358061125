/* provision/'s private helpers: not a contract for other modules. */
#ifndef FSLAB_PROV_INT_H
#define FSLAB_PROV_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "clock.h"
#include "exec.h"
#include "plan.h"
#include "state.h"

/* The error that ends setup or teardown (a run x with its struct fslab_err
 * *e): fslab_note_fail or fslab_note_fail_errno into x->e (one already
 * there is noted first: lib/progress.h), for the command to print last. */
#define prov_fail(x, ...) fslab_note_fail((x)->e, __VA_ARGS__)
#define prov_fail_errno(x, err, ...) fslab_note_fail_errno((x)->e, err, __VA_ARGS__)

/* A whole disk as sysfs describes it. */
struct prov_disk {
	char path[64];        /* /dev/loop0 */
	char name[32];        /* loop0 */
	dev_t devno;
	char sysdir[PATH_MAX]; /* /sys/devices/.../block/loop0 */
	uint64_t bytes;
	unsigned sector_size;
	bool is_partition;
	char parent[32];      /* for a partition: the disk's name */
};

/* diskinfo.c: facts about block devices, read-only. */
int prov_disk_inspect(const char *path, struct prov_disk *d, struct fslab_err *e);
/* True when devno is the disk or one of its partitions. */
bool prov_devno_on_disk(dev_t devno, const struct prov_disk *d);
/* The same with sysfs at sysroot ("/sys"; a test gives a tree of its own):
 * a partition is found by its sysfs directory lying inside the disk's. */
bool prov_devno_on_disk_at(const char *sysroot, dev_t devno, const struct prov_disk *d);
/* The root-disk rule: -EBUSY (refusal in e) when root_dev, the device
 * of "/", is d or one of its partitions as sysfs at sysroot says; else 0. */
int prov_check_not_root(const struct prov_disk *d, const char *sysroot, dev_t root_dev, struct fslab_err *e);
/* A file's identity (st_dev, st_ino) as the state keeps it; unknown when
 * fstat fails. */
void prov_id_of_fd(int fd, struct fslab_state_id *id);
bool prov_id_matches(const struct fslab_state_id *id, const struct stat *st);
/* inuse.c: safety rules that only read (the root disk, mounts, swap,
 * holders): returns 0 or -EBUSY with the refusal in e. */
int prov_check_in_use(const struct prov_disk *d, struct fslab_err *e);
/* Refuses (-EBUSY, message in e) when a process holds the disk or one
 * of its partitions open: catches FUSE daemons, which neither open O_EXCL
 * nor always name the device in the mount table. */
int prov_check_openers(const struct prov_disk *d, struct fslab_err *e);
/* blkprobe.c: calls fn(type, ctx) for each signature and partition table on
 * dev ("gpt", "PMBR", "ext4" ...; "unknown" when libblkid names none), at
 * most 17; a non-zero return from fn stops the probe.  Returns how many
 * were seen (0 = blank), or a negative errno. */
int prov_probe_signature_each(const char *dev, int (*fn)(const char *type, void *ctx), void *ctx);
/* The same as a list for messages ("gpt, ext4"); returns how many. */
int prov_probe_signatures(const char *dev, char *found, size_t len);
/* wipe.c: erases every signature libblkid finds (filesystems, RAID, partition
 * tables incl. both GPT headers and the protective MBR).  0 or -errno. */
int prov_wipe_signatures(const char *dev, struct fslab_err *e);
/* The same for the byte range [offset, offset + size) of dev: a partition
 * the kernel does not show (after a reboot on a kernel without a GPT
 * parser) or inside an image that is not attached. */
int prov_wipe_signatures_range(const char *dev, uint64_t offset, uint64_t size, struct fslab_err *e);
/* blkprobe.c: TYPE and VERSION of the filesystem on dev ("" when none). */
int prov_probe_fs(const char *dev, char *type, size_t tlen, char *version, size_t vlen);
/* GPT disk GUID of dev (the backup header is used when the primary is
 * gone); -ENOENT when dev carries no GPT. */
int prov_gpt_guid(const char *dev, char *guid, size_t len);

/* loopdev.c */
/* Attaches the open image img (image names it in lo_file_name) with
 * partition scanning and direct I/O; *direct says whether the kernel took
 * direct I/O (false: the loop reads the image through the host's page
 * cache, see loopdev.c). */
int prov_loop_attach_fd(int img, const char *image, char *dev, size_t len, bool *direct, struct fslab_err *e);
/* 1 when loop device dev does direct I/O, 0 when buffered, or -errno (not
 * a loop device, not attached). */
int prov_loop_direct_io(const char *dev);
/* The loop device backed by the open image fd (matched by inode); -ENOENT
 * if none. */
int prov_loop_find_fd(int fd, char *dev, size_t len);
/* The first attached loop device other than except (may be NULL) whose
 * backing file is id (LOOP_GET_STATUS64 lo_device, lo_inode). */
int prov_loop_find_other(const struct fslab_state_id *id, const char *except, char *dev, size_t len);
/* The backing file's identity of an attached loop device; -ENXIO if none. */
int prov_loop_backing(const char *dev, struct fslab_state_id *id);

/* The disk's own identity, beside the GPT disk GUID a clone of its
 * contents would carry as well: serial number and WWID as it reports
 * them, and for a loop device given as the disk its backing inode.
 * Record fills st->disk_serial, disk_wwid, disk_backing_id from
 * st->disk (what the device does not report stays empty).  Check
 * compares st->disk now with what was recorded: 0, or -EINVAL with why
 * ("serial X, the lab's is Y"). */
void prov_disk_ident_record(struct fslab_state *st);
int prov_disk_ident_check(const struct fslab_state *st, struct fslab_err *e);
/* For a loop device name ("loop3"): -EBUSY (reason in e) when its
 * backing file also backs another loop device, or is a block device in
 * use; 0 otherwise (also for a device that is not a loop device). */
int prov_loop_check_alias(const char *name, struct fslab_err *e);
/* 1 when the file holds a byte that is not zero, 0 when it is all holes
 * and zeros, or a negative errno. */
int prov_file_has_data(int fd);
int prov_loop_detach(const char *dev, struct fslab_err *e);

/* gpt.c: writes the plan's GPT (disk GUID and PARTUUIDs given), then makes
 * the kernel see exactly the plan's partitions and waits for their nodes. */
int prov_gpt_write(const struct fslab_lab_plan *plan, const char *disk_guid,
		   char partuuids[][40], struct fslab_err *e);
/* A libfdisk context on dev whose warnings reach fslab's log and whose
 * questions are answered no or refused (see gpt.c).  0, or -errno (the reason in e). */
struct fdisk_context;
int prov_fdisk_open(const char *dev, bool readonly, struct fdisk_context **cxtp, struct fslab_err *e);
int prov_kpart_remove_all(const struct prov_disk *d, struct fslab_err *e);
int prov_kpart_add_plan(const struct prov_disk *d, const struct fslab_lab_plan *plan, struct fslab_err *e);
/* Removes one kernel partition (0 when it was not there). */
int prov_kpart_remove(const struct prov_disk *d, unsigned number, struct fslab_err *e);

/* lab_mount.c */
/* Where dev (by devno, or by FUSE fsname) is mounted: fills the first
 * target into where; returns 1 mounted, 0 not, or -errno. */
int prov_mount_find_device(const char *dev, char *where, size_t len);
/* Is something mounted at dir?  1 yes (source filled in), 0 no. */
int prov_mount_at(const char *dir, char *source, size_t len, char *fstype, size_t flen);

/* testhook.c: when $FSLAB_TEST_PAUSE_AT names step, say so on stderr and
 * wait (up to two minutes, or until *stop becomes non-zero) so a test can
 * signal the process exactly there.  stop may be NULL. */
void prov_test_pause(const char *step, volatile sig_atomic_t *stop);

/* lab_lock.c: advisory locks that keep two fslab commands off one lab.
 * flock(2) on a lock file: the kernel drops it when the holder dies, so a
 * killed fslab never leaves a lock that blocks forever; the holder's pid and
 * command are written into the file only to name it in the refusal. */
/* The lock under the lab's locks (include/fslab/provision.h): locks the file
 * name in the directory dfd with flock(how | LOCK_NB), how LOCK_SH or
 * LOCK_EX.  The file is created 0600 (no-follow) and must be a regular
 * file with a single link, owned by the caller: anything else is refused
 * (-EINVAL), never written.  Every holder writes "command, pid N" into it
 * (of several shared holders, the last one's name stays).  Returns the fd;
 * -EWOULDBLOCK with the holder's line in holder when another process has
 * it; another negative errno otherwise. */
int fslab_lock_at(int dfd, const char *name, int how, const char *command, char *holder,
		  size_t holderlen);

/* Does the "command, pid N" line read from a lock file name a process
 * that still exists?  (The last of several shared holders may have gone.) */
bool fslab_lock_holder_alive(const char *holder);

/* lab.c: creation markers.  Setup stores the lab's lab_id in this
 * extended attribute of every file and directory it creates (and of a
 * reused image while the lab holds it); only root can set trusted.*
 * attributes, so a user cannot put it on a file of someone else's. */
#define PROV_MARKER_XATTR "trusted.fslab.lab"
int prov_marker_set(int fd, const char *lab_id);
/* 1 when fd carries lab_id, 0 when not (found says what it carries
 * instead), or a negative errno. */
int prov_marker_check(int fd, const char *lab_id, char *found, size_t len);
void prov_marker_remove(int fd);
/* path (absolute) with every existing directory above its last name
 * resolved (symbolic links followed); the last name is kept as given so
 * a link there is still seen as one.  "." and ".." are refused (-EINVAL)
 * where nothing exists to resolve them. */
int prov_resolve_parent(const char *path, char *out, size_t len);

/* 1 when path (or its nearest existing ancestor) is on a partition of a
 * loop device whose backing file carries an fslab lab marker, with the
 * partition's device in dev; 0 otherwise. */
int prov_path_on_lab_mount(const char *path, char *dev, size_t len);

#endif
