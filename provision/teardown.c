/* fslab teardown: undoes what setup did, from any phase it stopped at,
 * and only what it can prove setup made: the image by its creation marker
 * and identity, the loop device by its backing file, the disk by its GPT
 * disk GUID, the mounts by their device on that disk, the directories by
 * their marker and identity.  What does not match is named and left
 * alone. */
#include "clock.h"
#include "fileutil.h"
#include "lab_mount.h"
#include "log.h"
#include "discard.h"
#include "procfs.h"
#include "prov_int.h"
#include "fslab/provision.h"
#include "progress.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libmount.h>
#include <linux/falloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define TEARDOWN_MKFS_WAIT_S 30

struct teardown_run {
	const struct fslab_teardown_opts *o;
	struct fslab_lab *lab;
	char state_path[PATH_MAX];
	/* The lab's state, changed in place (fslab_lab_state); NULL until
	 * the lab is open (teardown_open). */
	struct fslab_state *st;
	char disk[PATH_MAX];  /* block device, or the image file when no loop is attached */
	bool disk_is_blk;
	bool loop_attached;   /* a loop device setup attached for the image */
	int image_fd;         /* the image, when it is there */
	bool image_proven;    /* it carries this lab's marker (and identity) */
	bool refused;         /* something was left alone: exit non-zero */
	bool disk_gone;       /* the lab's disk was removed from the machine */
	bool loaded;          /* the state was loaded (the lab is open) */
	int disk_lock;        /* the whole disk, flock'ed while it is wiped */
	struct prov_disk d;
	struct fslab_err *e;  /* the caller's, or err_own */
	struct fslab_err err_own;
};

/* A part of the lab that teardown names (an error note) and leaves alone
 * (prov_fail is the error that stops it): the lab cannot be finished, and
 * nothing more is changed. */
#define teardown_refuse(t, ...) ((t)->refused = true, fslab_note(FSLAB_NOTE_ERROR, __VA_ARGS__))

/* Atomic always; durable (fsync) only when a machine crash would leave a
 * state that a re-run could not handle (the wiped disk). */
static int teardown_save(struct teardown_run *t, bool durable)
{
	int r = fslab_lab_save(t->lab, durable ? 0 : FSLAB_STATE_SAVE_NOSYNC, t->e);

	if (r < 0)
		prov_fail_errno(t, r, "cannot update the state file %s", t->state_path);
	return r;
}

/* One pass over /proc for teardown_stop_mkfs. */
struct mkfs_hunt {
	pid_t pgrp;       /* the mkfs's process group */
	const char *env;  /* "FSLAB_LAB_ID=<lab_id>" */
	const char *pgid; /* pgrp, printed */
	bool said;
	int left;         /* processes found (and killed) this pass */
};

static int teardown_kill_mkfs(pid_t pid, void *ctx)
{
	struct mkfs_hunt *h = ctx;
	pid_t pgrp;

	if (fslab_proc_pgrp(pid, &pgrp) < 0 || pgrp != h->pgrp || fslab_proc_has_env(pid, h->env) != 1)
		return 0;
	if (!h->said) {
		fslab_note_line("stopping the mkfs setup left running (process group %s)", h->pgid);
		h->said = true;
	}
	kill(pid, SIGKILL);
	h->left++;
	return 0;
}

/* Kills what is left of the mkfs setup was running when it died: every
 * process of its process group that carries the lab's id in its
 * environment (a forged pid cannot name anyone else's process), and waits
 * until they are gone, bounded.  0, or -EBUSY when one does not go. */
static int teardown_stop_mkfs(struct teardown_run *t)
{
	char want[64], pgid[32];
	double deadline = fslab_now() + TEARDOWN_MKFS_WAIT_S;
	struct mkfs_hunt h = { .pgrp = (pid_t)t->st->mkfs_pid, .env = want, .pgid = pgid };

	if (t->st->mkfs_pid <= 1 || t->st->mkfs_pid > INT32_MAX)
		return 0;
	snprintf(want, sizeof(want), "FSLAB_LAB_ID=%s", t->st->lab_id);
	snprintf(pgid, sizeof(pgid), "%lld", (long long)t->st->mkfs_pid);
	for (;;) {
		h.left = 0;
		if (fslab_proc_each_pid(teardown_kill_mkfs, &h) < 0 && !h.left)
			break; /* no /proc: nothing can be found to stop */
		if (!h.left)
			break;
		if (fslab_now() > deadline)
			return prov_fail(t, -EBUSY, "refused: the mkfs setup started (process group %s) is still running "
				    "%d s after SIGKILL; it writes to the lab's disk, so teardown stops "
				    "here. Find it with ps -g %s and run teardown again",
				    pgid, TEARDOWN_MKFS_WAIT_S, pgid);
		usleep(20000);
	}
	if (h.said) {
		t->st->mkfs_pid = 0;
		return teardown_save(t, false);
	}
	return 0;
}

/* The image: there, and carrying this lab's marker (and its recorded
 * identity)?  Sets t->image_fd / t->image_proven.  A file that is not
 * proven is named and left alone. */
static void teardown_prove_image(struct teardown_run *t)
{
	struct stat sb;
	char found[128];
	int fd, r;

	t->image_fd = -1;
	fd = open(t->st->image, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0) {
		if (errno != ENOENT)
			teardown_refuse(t, "refused: image %s: %s; it is not the lab's image as setup left it "
				    "(a symbolic link is not followed); left alone",
				    t->st->image, strerror(errno));
		return;
	}
	t->image_fd = fd;
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		teardown_refuse(t, "refused: %s is not a regular file, so not the image setup made; left alone",
			    t->st->image);
		return;
	}
	r = prov_marker_check(fd, t->st->lab_id, found, sizeof(found));
	if (r == 1 && t->st->image_id.known && !prov_id_matches(&t->st->image_id, &sb)) {
		r = 0;
		snprintf(found, sizeof(found), "another inode than the one setup recorded");
	}
	if (r == 1) {
		t->image_proven = true;
		return;
	}
	teardown_refuse(t, "refused: %s is not this lab's image (%s; the lab's id is %s): teardown leaves "
		    "it, and any loop device on it, alone. If the lab is gone, remove the state file "
		    "%s by hand",
		    t->st->image, r < 0 ? strerror(-r) : found, t->st->lab_id, t->state_path);
}

/* Is the recorded loop device still the one setup attached: a block
 * device with the device number setup recorded (disk_rdev), backed by the
 * image's identity (LOOP_GET_STATUS64)? */
static bool teardown_loop_is_recorded(const struct fslab_state *st, const struct fslab_state_id *id)
{
	struct fslab_state_id b;
	struct stat sb;

	if (!st->disk[0] || !id->known || stat(st->disk, &sb) < 0 || !S_ISBLK(sb.st_mode))
		return false;
	if (st->disk_rdev && (uint64_t)sb.st_rdev != st->disk_rdev)
		return false;
	return prov_loop_backing(st->disk, &b) == 0 && b.known && b.dev == id->dev && b.ino == id->ino;
}

/* The loop device teardown may work through: only the one setup attached
 * (teardown_loop_is_recorded), never another loop device on the same
 * image (an admin's losetup, a read-only alias): wiping through that one
 * and deleting the image would pull the disk from under the lab's mounts.
 * Returns 1 with loop filled, 0 when no loop device is on the image, or
 * -EBUSY (said, nothing changed) when one that is not the lab's is. */
static int teardown_recorded_loop(struct teardown_run *t, const struct fslab_state_id *id, char *loop,
				  size_t len)
{
	const struct fslab_state *st = t->st;
	char other[64], first[64];

	if (teardown_loop_is_recorded(st, id)) {
		if (prov_loop_find_other(id, st->disk, other, sizeof(other)) == 0) {
			teardown_refuse(t, "refused: the lab's image %s is also attached to %s, which setup did "
				    "not attach (the lab's loop device is %s); teardown changes nothing "
				    "while a second loop device can reach the lab's disk. Detach it "
				    "(losetup -d %s) and run fslab teardown --state %s again",
				    st->image, other, st->disk, other, t->state_path);
			return -EBUSY;
		}
		snprintf(loop, len, "%s", st->disk);
		return 1;
	}
	if (prov_loop_find_other(id, NULL, first, sizeof(first)) < 0)
		return 0; /* not attached (any more): work on the image file */
	if (!st->disk[0] && prov_loop_find_other(id, first, other, sizeof(other)) < 0 &&
	    st->phase <= FSLAB_PHASE_CLAIMED && t->image_proven) {
		/* setup was killed between attaching and recording its loop
		 * device: the only one on the image it marked is that one */
		snprintf(loop, len, "%s", first);
		return 1;
	}
	teardown_refuse(t, "refused: the lab's image %s is attached to %s, which is not the loop device "
		    "setup attached (%s: %s); teardown works only through the lab's own loop device "
		    "and changes nothing. If %s is yours, detach it (losetup -d %s) and run fslab "
		    "teardown --state %s again",
		    st->image, first, st->disk[0] ? st->disk : "none recorded",
		    st->disk[0] ? "gone, or no longer the same device on this image" : "setup stopped first",
		    first, first, t->state_path);
	return -EBUSY;
}

/* No block device with this device number exists (the kernel dropped it:
 * the disk was pulled); major 0 is no block device at all. */
static bool teardown_devno_gone(dev_t devno)
{
	char sys[64];

	if (major(devno) == 0)
		return false;
	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u", major(devno), minor(devno));
	return access(sys, F_OK) < 0 && errno == ENOENT;
}

/* The lab's (real) disk is no longer in the machine: its node is gone and
 * so is every block device with the device number setup recorded. */
static bool teardown_disk_gone(const struct fslab_state *st)
{
	struct stat sb;

	if (stat(st->disk, &sb) == 0 || errno != ENOENT)
		return false;
	return !st->disk_rdev || teardown_devno_gone((dev_t)st->disk_rdev);
}

/* Which device is the lab's disk now?  For an image: the loop device
 * backed by it (matched by the image's identity, so a renumbered or
 * detached loop is found out), else the image file itself; and only when
 * the image is proven the lab's.  Returns 0 (t->disk "" when there is
 * nothing teardown may touch) or negative to stop. */
static int teardown_find_disk(struct teardown_run *t)
{
	const struct fslab_state *st = t->st;
	char loop[64];
	struct fslab_err err = FSLAB_ERR_INIT;
	int r;

	if (st->image[0]) {
		struct fslab_state_id id = st->image_id;

		teardown_prove_image(t);
		if (t->refused)
			return 0;
		if (t->image_fd >= 0 && !id.known)
			prov_id_of_fd(t->image_fd, &id);
		if (!t->image_proven && t->image_fd >= 0)
			return 0;
		r = teardown_recorded_loop(t, &id, loop, sizeof(loop));
		if (r < 0)
			return r;
		if (r == 1) {
			snprintf(t->disk, sizeof(t->disk), "%s", loop);
			t->disk_is_blk = true;
			t->loop_attached = true;
			if (strcmp(loop, st->disk) != 0) {
				/* setup was killed before it recorded its loop */
				snprintf(t->st->disk, sizeof(t->st->disk), "%s", loop);
				for (size_t i = 0; i < t->st->n_partitions; i++)
					fslab_partition_device_name(loop, t->st->partitions[i].number,
								    t->st->partitions[i].device,
								    sizeof(t->st->partitions[i].device));
			}
		} else if (t->image_fd >= 0) {
			snprintf(t->disk, sizeof(t->disk), "%s", st->image);
			return 0;
		} else {
			t->disk[0] = '\0'; /* image gone: nothing on disk to undo */
			return 0;
		}
	} else {
		if (!st->disk[0])
			return 0;
		if (teardown_disk_gone(st)) {
			t->disk_gone = true;
			return 0;
		}
		snprintf(t->disk, sizeof(t->disk), "%s", st->disk);
		t->disk_is_blk = true;
	}
	if (prov_disk_inspect(t->disk, &t->d, &err) < 0)
		return prov_fail(t, -ENODEV, "the lab's disk: %s", fslab_err_msg(&err));
	if (t->d.is_partition)
		return prov_fail(t, -EINVAL, "%s is now a partition, not the lab's whole disk; refusing", t->disk);
	return 0;
}

/* Stops the probe at the first signature that is not part of a GPT (its
 * headers, the protective MBR), and says so in *other. */
static int teardown_not_gpt(const char *type, void *other)
{
	if (strcmp(type, "PMBR") == 0 || strcmp(type, "gpt") == 0)
		return 0;
	*(bool *)other = true;
	return 1;
}

/* GPT disk GUID check.  Returns 1 when the disk is ours to wipe, 0 when
 * setup never wrote to it (leave it alone), negative to refuse. */
static int teardown_check_identity(struct teardown_run *t)
{
	const struct fslab_state *st = t->st;
	bool wrote = t->st->phase >= FSLAB_PHASE_PARTITIONING, other = false;
	struct fslab_err why = FSLAB_ERR_INIT;
	char guid[40];
	int r;

	if (!t->disk[0] || !wrote || t->st->phase == FSLAB_PHASE_WIPED)
		return 0;
	r = prov_gpt_guid(t->disk, guid, sizeof(guid));
	if (r == 0 && st->disk_guid[0] && strcasecmp(guid, st->disk_guid) == 0) {
		/* A disk is proven by its GUID AND its own identity (serial,
		 * WWID; a loop: its backing inode): the GUID is in the
		 * contents, and a clone of the lab's disk carries it too. */
		if (!st->image[0] && prov_disk_ident_check(st, &why) < 0)
			return prov_fail(t, -EINVAL, "refused: %s carries the lab's GPT disk GUID %s but is not the lab's "
				    "disk: %s; a copy of the lab's contents is not wiped as the lab. Nothing "
				    "was changed; if the lab's disk is gone, remove %s by hand",
				    t->disk, guid, fslab_err_msg(&why), t->state_path);
		return 1;
	}
	/* An image is proven by more than its table: its trusted.fslab.lab
	 * mark (only root sets it) and recorded inode, and the loop device
	 * backed by that very inode.  An image whose contents were lost
	 * (no GPT any more) is still the lab's to undo: its partitions
	 * unmounted, the loop detached, the image deleted. */
	if (r < 0 && st->image[0] && t->image_proven &&
	    t->st->phase > FSLAB_PHASE_PARTITIONING) {
		fslab_note_warn("%s carries no GPT any more (its contents were lost); it is the lab's image "
			   "%s by its %s mark and %s, so teardown goes on",
			   t->disk, st->image, PROV_MARKER_XATTR,
			   t->loop_attached ? "the loop device's backing inode" : "its recorded inode");
		return 1;
	}
	if (t->st->phase == FSLAB_PHASE_WIPING && r == -ENOENT) {
		/* An earlier teardown got part of the way: finish it, on an
		 * image proven ours; a disk without its GPT cannot be. */
		if (t->image_proven)
			return 1;
		/* A disk: the one setup claimed (same device number), with
		 * nothing on it that libblkid recognises but what is left of a
		 * GPT being wiped (a protective MBR, a header libfdisk cannot
		 * read), is our half-wiped one: finishing cannot hurt it. */
		if (!st->image[0] && st->disk_rdev && st->disk_rdev == (uint64_t)t->d.devno &&
		    prov_probe_signature_each(t->disk, teardown_not_gpt, &other) >= 0 && !other)
			return 1;
		return prov_fail(t, -EINVAL, "refused: %s carries no GPT, and without the lab's (GUID %s) nothing "
			    "proves it is the lab's disk; if an earlier teardown was interrupted "
			    "while wiping, the disk is mostly blank: check it with wipefs %s, then "
			    "remove %s by hand",
			    t->disk, st->disk_guid, t->disk, t->state_path);
	}
	if (t->st->phase == FSLAB_PHASE_PARTITIONING) {
		/* Setup stopped before its GPT was complete: whatever is there
		 * is not fslab's table (an old one it was about to replace,
		 * or nothing).  Do not write to the disk. */
		fslab_note_line("%s: setup stopped before writing its partition table; leaving the disk as it "
		       "is (%s)",
		       t->disk, r == 0 ? "it carries another GPT" : "no GPT on it");
		return 0;
	}
	if (r == 0)
		fslab_note(FSLAB_NOTE_ERROR, "refused: %s carries GPT disk GUID %s, but the lab's is %s: it is not the "
			    "lab's disk (re-partitioned, or another disk got its name); nothing was "
			    "changed. If the lab is gone, remove %s by hand",
			    t->disk, guid, st->disk_guid, t->state_path);
	else
		fslab_note(FSLAB_NOTE_ERROR, "refused: %s carries no GPT, but the lab's (GUID %s) should be there: it "
			    "is not the lab's disk or its table was destroyed; nothing was changed. If "
			    "the lab is gone, remove %s by hand",
			    t->disk, st->disk_guid, t->state_path);
	return -EINVAL;
}

static int teardown_unmount_all(struct teardown_run *t)
{
	for (size_t i = t->st->n_partitions; i-- > 0;) {
		struct fslab_state_partition *p = &t->st->partitions[i];
		char where[PATH_MAX];
		struct stat sb;
		int r;

		if (!p->device[0])
			continue;
		/* Only a partition of the lab's (proven) disk. */
		if (stat(p->device, &sb) < 0 || !S_ISBLK(sb.st_mode) || sb.st_rdev == t->d.devno ||
		    !prov_devno_on_disk(sb.st_rdev, &t->d)) {
			char src[PATH_MAX], fstype[64];

			if (prov_mount_at(p->mountpoint, src, sizeof(src), fstype, sizeof(fstype)) == 1)
				teardown_refuse(t, "refused: %s is mounted at %s, but %s is not a partition of "
					    "the lab's disk %s: not unmounting it",
					    src, p->mountpoint, p->device, t->disk);
			continue;
		}
		/* Also after a setup killed between mount(2) and saving the
		 * state: the lab's device at the lab's mount point is ours. */
		r = fslab_lab_unmount(t->st, p, t->e);
		if (r < 0)
			return r;
		if (p->mount_method != FSLAB_MOUNT_NONE) {
			fslab_note_line("unmounted %s", p->mountpoint);
			p->mount_method = FSLAB_MOUNT_NONE;
			r = teardown_save(t, false);
			if (r < 0)
				return r;
		}
		if (prov_mount_find_device(p->device, where, sizeof(where)) == 1)
			return prov_fail(t, -EBUSY, "refused: %s is still mounted at %s, which fslab did not mount; "
				    "unmount it and run teardown again",
				    p->device, where);
	}
	return 0;
}

/* The lab's disk is gone: a mount at p's mount point is the lab's own
 * when it is a kernel mount of p's type whose source is p's device path,
 * that device node is gone, and no block device with the mount's device
 * number exists any more (a dead filesystem on the pulled disk).  It is
 * unmounted; when the dead device makes umount fail (EBUSY, EIO), it is
 * detached (MNT_DETACH).  Returns 1 unmounted, 0 nothing mounted there,
 * -EPERM when what is mounted there is not proven the lab's. */
static int teardown_unmount_dead(const struct fslab_state_partition *p)
{
	const struct fslab_fs_recipe *rc = fslab_fs_recipe(p->type);
	struct libmnt_table *tb;
	struct libmnt_fs *fs;
	struct stat sb;
	bool ours = false, found = false, lazy;
	dev_t devno = 0;

	if (!p->mountpoint[0])
		return 0;
	tb = mnt_new_table_from_file("/proc/self/mountinfo");
	if (!tb)
		return -EIO;
	fs = mnt_table_find_target(tb, p->mountpoint, MNT_ITER_BACKWARD);
	if (fs && strcmp(mnt_fs_get_target(fs), p->mountpoint) == 0) {
		const char *src = mnt_fs_get_source(fs), *type = mnt_fs_get_fstype(fs);

		found = true;
		devno = mnt_fs_get_devno(fs);
		ours = p->device[0] && src && strcmp(src, p->device) == 0 && rc && type &&
		       strcmp(type, rc->kernel_fstype) == 0 && teardown_devno_gone(devno) &&
		       stat(p->device, &sb) < 0 && errno == ENOENT;
	}
	mnt_unref_table(tb);
	if (!found)
		return 0;
	if (!ours)
		return -EPERM;
	if (umount2(p->mountpoint, UMOUNT_NOFOLLOW) == 0) {
		fslab_note_line("unmounted %s (%s is gone)", p->mountpoint, p->device);
		return 1;
	}
	lazy = errno == EBUSY || errno == EIO;
	if (!lazy || umount2(p->mountpoint, MNT_DETACH | UMOUNT_NOFOLLOW) < 0) {
		int r = -errno;

		fslab_note(FSLAB_NOTE_ERROR, "umount%s %s failed: %s", lazy ? " -l" : "", p->mountpoint,
			   strerror(-r));
		return r;
	}
	fslab_note_line("detached %s (%s is gone; umount said: busy or I/O error)", p->mountpoint,
	       p->device);
	return 1;
}

/* The lab's disk is gone: unmount its dead filesystems (only those proven
 * the lab's; anything else at a lab mount point is named and left). */
static int teardown_unmount_gone(struct teardown_run *t)
{
	for (size_t i = t->st->n_partitions; i-- > 0;) {
		struct fslab_state_partition *p = &t->st->partitions[i];
		char src[PATH_MAX], fstype[64];
		int r = teardown_unmount_dead(p);

		if (r == -EPERM || (r == 1 && prov_mount_at(p->mountpoint, src, sizeof(src), fstype,
							  sizeof(fstype)) == 1)) {
			if (r == -EPERM)
				prov_mount_at(p->mountpoint, src, sizeof(src), fstype, sizeof(fstype));
			teardown_refuse(t, "refused: %s (%s) is mounted at %s, which the state names as the "
				    "lab's, but nothing proves it is the lab's filesystem on the removed "
				    "disk: not unmounting it",
				    src, fstype, p->mountpoint);
			continue;
		}
		if (r < 0)
			return r;
		if (p->mount_method != FSLAB_MOUNT_NONE) {
			p->mount_method = FSLAB_MOUNT_NONE;
			r = teardown_save(t, false);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/* The disk is not proven the lab's (or setup never got to mount): a
 * mount at a mount point the state names is not fslab's to remove. */
static void teardown_foreign_mounts(struct teardown_run *t)
{
	for (size_t i = 0; i < t->st->n_partitions; i++) {
		const struct fslab_state_partition *p = &t->st->partitions[i];
		char src[PATH_MAX], fstype[64];

		if (p->mountpoint[0] &&
		    prov_mount_at(p->mountpoint, src, sizeof(src), fstype, sizeof(fstype)) == 1)
			teardown_refuse(t, "refused: %s (%s) is mounted at %s, which the state names as the "
				    "lab's, but nothing proves it is the lab's filesystem: not unmounting it",
				    src, fstype, p->mountpoint);
	}
}

static int teardown_wipe(struct teardown_run *t)
{
	int r;

	/* Wiping takes several writes (each partition, then both GPT headers
	 * and the protective MBR); a teardown killed among them finds the
	 * table half gone, and a re-run must finish the job rather than
	 * refuse a disk without the lab's GUID. */
	if (t->st->phase != FSLAB_PHASE_WIPING) {
		t->st->phase = FSLAB_PHASE_WIPING;
		r = teardown_save(t, true);
		if (r < 0)
			return r;
	}

	for (size_t i = 0; i < t->st->n_partitions; i++) {
		struct fslab_state_partition *p = &t->st->partitions[i];
		struct stat sb;

		if (!p->size_sectors)
			continue;
		/* Through the partition's device when the kernel shows it,
		 * else as a range of the disk (or of the unattached image). */
		if (t->disk_is_blk && stat(p->device, &sb) == 0 && S_ISBLK(sb.st_mode) &&
		    prov_devno_on_disk(sb.st_rdev, &t->d))
			r = prov_wipe_signatures(p->device, t->e);
		else
			r = prov_wipe_signatures_range(t->disk, p->start_sector * 512,
						       p->size_sectors * 512, t->e);
		if (r < 0)
			return r;
		if (t->disk_is_blk) {
			r = prov_kpart_remove(&t->d, p->number, t->e);
			if (r < 0)
				return r;
		}
		p->formatted = false;
	}
	prov_test_pause("teardown-wiping", NULL);
	fslab_note_line("wiping the partition table and signatures on %s", t->disk);
	r = prov_wipe_signatures(t->disk, t->e);
	if (r < 0)
		return r;
	if (t->o->discard && t->disk_is_blk) {
		r = fslab_discard_wiped_disk(t->disk, t->e);
		if (r < 0)
			return r;
	}
	prov_test_pause("teardown-wiped", NULL);
	/* From now on the disk is blank: a re-run must not look for our GPT. */
	t->st->phase = FSLAB_PHASE_WIPED;
	return teardown_save(t, true);
}

/* Removes a directory setup made: it must carry the lab's marker and the
 * identity setup recorded; anything else is named and left. */
static void teardown_rmdir(struct teardown_run *t, const char *dir, const struct fslab_state_id *id)
{
	struct stat sb;
	char src[PATH_MAX], fstype[64], found[128];
	int fd, r;

	if (!dir[0] || lstat(dir, &sb) < 0)
		return;
	/* First: a mount point shows the mounted root's inode, not the
	 * directory's, so "another inode" would be the wrong reason. */
	if (prov_mount_at(dir, src, sizeof(src), fstype, sizeof(fstype)) == 1) {
		teardown_refuse(t, "refused: %s is still a mount point (%s, %s) that teardown did not prove "
			    "the lab's; left in place: unmount it and run teardown again",
			    dir, src, fstype);
		return;
	}
	if (!S_ISDIR(sb.st_mode) || (id->known && !prov_id_matches(id, &sb))) {
		teardown_refuse(t, "refused: %s is not the directory setup made (%s); left in place", dir,
			    S_ISDIR(sb.st_mode) ? "another inode" : "not a directory");
		return;
	}
	fd = fslab_dir_open(dir);
	if (fd < 0)
		return;
	r = prov_marker_check(fd, t->st->lab_id, found, sizeof(found));
	close(fd);
	if (r != 1) {
		teardown_refuse(t, "refused: %s does not carry this lab's marker (%s); left in place", dir,
			    r < 0 ? strerror(-r) : found);
		return;
	}
	if (rmdir(dir) < 0 && errno != ENOENT)
		fslab_note_warn("cannot remove %s: %s (left in place)", dir, strerror(errno));
}

/* --keep-image: the image setup made is left blank (holes all through),
 * so that it can be used again like a new one. */
static void teardown_blank_image(struct teardown_run *t)
{
	struct stat a, b;
	int fd = open(t->st->image, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);

	if (fd < 0)
		return;
	if (fstat(fd, &a) == 0 && fstat(t->image_fd, &b) == 0 && a.st_dev == b.st_dev &&
	    a.st_ino == b.st_ino && a.st_size > 0 &&
	    fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, a.st_size) < 0)
		fslab_note_warn("%s: cannot punch out its blocks (%s); reusing it will need --wipe",
			   t->st->image, strerror(errno));
	close(fd);
}

/* Something was refused: stop before changing anything more.  -EBUSY. */
static int teardown_stopped(struct teardown_run *t)
{
	return prov_fail(t, -EBUSY, "teardown stopped there: it wipes, detaches and deletes nothing while part of "
		    "the lab cannot be proven or is still in use, so the lab is left as it is (state "
		    "file %s kept). Fix what is named above and run fslab teardown --state %s again",
		    t->state_path, t->state_path);
}

/* An old state (no identities): say what to do by hand, change nothing. */
static void teardown_refuse_old(struct teardown_run *t)
{
	const struct fslab_state *st = t->st;
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m) {
		prov_fail(t, -ENOMEM, "out of memory");
		return;
	}
	fprintf(m,
		"refused: %s was written by an older fslab (state version %d) and does not "
		"record what setup created, so teardown cannot prove any of it is the lab's; "
		"nothing was changed. Clean up by hand:",
		t->state_path, st->version);
	for (size_t i = st->n_partitions; i-- > 0;)
		if (st->partitions[i].mount_method != FSLAB_MOUNT_NONE)
			fprintf(m, "\n  umount %s", st->partitions[i].mountpoint);
	if (st->disk[0])
		fprintf(m, "\n  wipefs -a %s   (check first that it is the lab's disk)", st->disk);
	if (st->image[0] && st->disk[0])
		fprintf(m, "\n  losetup -d %s", st->disk);
	if (st->image[0] && st->image_created)
		fprintf(m, "\n  rm %s   (if it is the lab's image)", st->image);
	fprintf(m, "\n  rm %s", t->state_path);
	if (fclose(m) == 0)
		fslab_note(FSLAB_NOTE_ERROR, "%s", text);
	free(text);
}

/* Opens the lab (the caller's, reloaded, or our own, exclusive) and takes
 * its state.  0, or -1 when refused (the reason in t->e). */
static int teardown_open(struct teardown_run *t)
{
	const struct fslab_teardown_opts *o = t->o;
	const char *path = o->state_path ? o->state_path : fslab_state_default_path();
	struct fslab_err err = FSLAB_ERR_INIT;
	int r;

	if (geteuid() != 0)
		return prov_fail(t, -1, "refused: fslab teardown must run as root (it unmounts, wipes and detaches); "
			    "nothing was changed. Run it with sudo");
	if (o->lab) {
		t->lab = o->lab;
		snprintf(t->state_path, sizeof(t->state_path), "%s", fslab_lab_path(t->lab));
		r = fslab_lab_reload(t->lab, &err);
	} else {
		r = fslab_lab_open(path, FSLAB_LAB_EXCLUSIVE, 0, "fslab teardown", &t->lab, &err);
	}
	if (r == -ENOENT) {
		/* No lab: said without creating the lock file or its directory. */
		return prov_fail(t, -1, "no lab to tear down: no state file %s (give --state FILE if the lab was "
			    "set up with one)",
			    path);
	}
	if (r < 0)
		return prov_fail(t, -1, "%s", fslab_err_msg(&err));
	t->loaded = true;
	t->st = fslab_lab_state(t->lab);
	if (!fslab_lab_can_undo(t->lab)) {
		teardown_refuse_old(t);
		return -1;
	}
	return 0;
}

/* The mounts: only a disk proven the lab's (its GPT, proven == 1) has lab
 * mounts on it; whatever else is mounted where the state says is
 * someone's.  A mount left in place (refused) means the disk is still in
 * use: wiping it, detaching its loop device or deleting its image now
 * would pull it from under that mount. */
static int teardown_mounts(struct teardown_run *t, int proven)
{
	if (proven == 1 && t->disk_is_blk && teardown_unmount_all(t) < 0)
		return -1;
	if (proven != 1 && t->disk_gone && teardown_unmount_gone(t) < 0)
		return -1;
	if (proven != 1 && !t->disk_gone)
		teardown_foreign_mounts(t);
	if (t->refused)
		return teardown_stopped(t);
	return 0;
}

/* After the wipe: the loop device, the image, the directories. */
static int teardown_release(struct teardown_run *t)
{
	/* Setup killed between creating kernel partitions and its GPT check
	 * cannot happen (partitions come after the table), but a loop device
	 * is detached either way, which drops its partitions. */
	prov_test_pause("teardown-detaching", NULL);
	if (t->loop_attached) {
		fslab_note_line("detaching %s", t->disk);
		if (prov_loop_detach(t->disk, t->e) < 0)
			return -1;
	}
	if (t->image_proven && t->st->image_created && !t->o->keep_image) {
		if (unlink(t->st->image) < 0 && errno != ENOENT)
			return prov_fail_errno(t, errno, "cannot delete the image %s", t->st->image);
		fslab_note_line("deleted %s", t->st->image);
	} else if (t->image_proven) {
		if (t->st->image_created)
			teardown_blank_image(t);
		prov_marker_remove(t->image_fd); /* the lab lets go of it */
	}
	for (size_t i = 0; i < t->st->n_partitions; i++)
		if (t->st->partitions[i].mountpoint_created)
			teardown_rmdir(t, t->st->partitions[i].mountpoint, &t->st->partitions[i].mountpoint_id);
	if (t->st->mount_root_created)
		teardown_rmdir(t, t->st->mount_root, &t->st->mount_root_id);
	return 0;
}

/* The state file goes last, and only when everything it names is undone. */
static int teardown_finish(struct teardown_run *t)
{
	int r;

	if (t->refused)
		return prov_fail(t, -1, "teardown left alone what it could not prove the lab's (above); the state "
			    "file %s is kept",
			    t->state_path);
	if (t->disk_gone && t->st->phase >= FSLAB_PHASE_PARTITIONING && t->st->phase != FSLAB_PHASE_WIPED) {
		/* Its GPT and filesystems are still on the disk, wherever it is. */
		prov_fail(t, -ENODEV, "the lab's disk %s is gone (removed from the machine): its mounts and "
			    "directories are cleaned up, but its partition table and filesystems "
			    "could not be wiped. The state file %s is kept: attach the disk again "
			    "and run fslab teardown --state %s to wipe it, or, if the disk is not "
			    "coming back, remove the state file by hand",
			    t->st->disk, t->state_path, t->state_path);
		t->refused = true; /* said: no "did not finish" on top */
		return -1;
	}
	r = fslab_lab_remove_state(t->lab);
	if (r < 0)
		return prov_fail_errno(t, r, "cannot remove the state file %s", t->state_path);
	fslab_note_line("lab torn down: state file %s removed", t->state_path);
	return 0;
}

/* Every step, in order; 0 when the lab is gone, -1 when one stopped
 * (said). */
static int teardown_steps(struct teardown_run *t)
{
	int proven;

	/* First stop a mkfs a killed setup left writing to the disk. */
	if (teardown_stop_mkfs(t) < 0 || teardown_find_disk(t) < 0)
		return -1;
	if (t->refused)
		return teardown_stopped(t);
	proven = teardown_check_identity(t);
	if (proven < 0)
		return -1;
	if (proven == 1 && t->disk_is_blk) { /* as sfdisk and wipefs do: the whole disk flock'ed while we change it */
		t->disk_lock = open(t->disk, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (t->disk_lock < 0 || flock(t->disk_lock, LOCK_EX | LOCK_NB) < 0)
			return prov_fail(t, -1, "refused: %s is locked by another program (%s); nothing was wiped",
					 t->disk, strerror(errno));
	}
	if (teardown_mounts(t, proven) < 0)
		return -1;
	prov_test_pause("teardown-unmounted", NULL);
	if (proven == 1 && teardown_wipe(t) < 0)
		return -1;
	if (t->disk_lock >= 0) {
		close(t->disk_lock);
		t->disk_lock = -1;
	}
	if (teardown_release(t) < 0)
		return -1;
	return teardown_finish(t);
}

int fslab_teardown(const struct fslab_teardown_opts *o, struct fslab_err *e)
{
	struct teardown_run *t = calloc(1, sizeof(*t));
	int ret = FSLAB_EXIT_FAILURE;

	if (!t)
		return fslab_note_fail(e, FSLAB_EXIT_FAILURE, "out of memory");
	t->o = o;
	t->e = e ? e : &t->err_own;
	t->image_fd = -1;
	t->disk_lock = -1;
	snprintf(t->state_path, sizeof(t->state_path), "%s",
		 o->state_path ? o->state_path : fslab_state_default_path());
	if (teardown_open(t) == 0 && teardown_steps(t) == 0)
		ret = FSLAB_EXIT_OK;
	if (ret != FSLAB_EXIT_OK && t->loaded && fslab_lab_can_undo(t->lab) && !t->refused)
		prov_fail(t, -EIO, "teardown did not finish; fix the problem above and run it again");
	if (t->disk_lock >= 0)
		close(t->disk_lock);
	if (t->image_fd >= 0)
		close(t->image_fd);
	if (t->lab != o->lab)
		fslab_lab_close(t->lab);
	free(t);
	return ret;
}
