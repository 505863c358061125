/* fslab teardown: undoes what setup did, from any phase it stopped at,
 * on the lab's disk only (checked by its GPT disk GUID). */
#include "fileutil.h"
#include "lab_mount.h"
#include "lock.h"
#include "log.h"
#include "prov_int.h"
#include "provision.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

struct teardown_run {
	const struct fslab_teardown_opts *o;
	char state_path[PATH_MAX];
	struct fslab_state st;
	char disk[PATH_MAX];  /* block device, or the image file when no loop is attached */
	bool disk_is_blk;
	bool loop_attached;   /* a loop device setup attached for the image */
	struct prov_disk d;
};

/* Atomic always; durable (fsync) only when a machine crash would leave a
 * state that a re-run could not handle (the wiped disk). */
static int teardown_save(struct teardown_run *t, bool durable)
{
	int r = fslab_state_save_opt(t->state_path, &t->st, durable ? 0 : FSLAB_STATE_SAVE_NOSYNC);

	if (r < 0)
		fslab_error_errno(r, "cannot update the state file %s", t->state_path);
	return r;
}

/* Is st->disk still the loop device of st->image, now deleted? */
static bool teardown_loop_of_deleted_image(const struct fslab_state *st)
{
	char path[128], back[PATH_MAX + 16];
	const char *name = strrchr(st->disk, '/');
	FILE *f;
	bool same = false;

	if (!name || strncmp(name + 1, "loop", 4) != 0)
		return false;
	snprintf(path, sizeof(path), "/sys/block/%s/loop/backing_file", name + 1);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (fgets(back, sizeof(back), f)) {
		back[strcspn(back, "\n")] = '\0';
		same = strncmp(back, st->image, strlen(st->image)) == 0 &&
		       strcmp(back + strlen(st->image), " (deleted)") == 0;
	}
	fclose(f);
	return same;
}

/* Which device is the lab's disk now?  For an image: the loop device
 * backed by it (matched by inode, so a renumbered or detached loop is
 * found out), else the image file itself. */
static int teardown_find_disk(struct teardown_run *t)
{
	const struct fslab_state *st = &t->st;
	char loop[64], err[512];
	struct stat sb;

	if (st->image[0]) {
		if (prov_loop_find(st->image, loop, sizeof(loop)) == 0) {
			snprintf(t->disk, sizeof(t->disk), "%s", loop);
			t->disk_is_blk = true;
			/* Detach only the loop device setup attached; one
			 * attached since (by someone else) is theirs. */
			t->loop_attached = !st->disk[0] || strcmp(loop, st->disk) == 0;
			if (!t->loop_attached && strcmp(loop, st->disk) != 0)
				fslab_warn("%s is attached to %s, not to %s as setup left it; working "
					   "through it but leaving it attached",
					   st->image, loop, st->disk);
			if (strcmp(loop, st->disk) != 0) {
				/* Attached under another number: rename. */
				snprintf(t->st.disk, sizeof(t->st.disk), "%s", loop);
				for (size_t i = 0; i < t->st.n_partitions; i++)
					fslab_partition_device_name(loop, t->st.partitions[i].number,
								    t->st.partitions[i].device,
								    sizeof(t->st.partitions[i].device));
			}
		} else if (stat(st->image, &sb) == 0) {
			snprintf(t->disk, sizeof(t->disk), "%s", st->image);
			return 0;
		} else if (teardown_loop_of_deleted_image(st)) {
			/* The image was deleted under the running lab: its loop
			 * device still holds it, with the mounts on top. */
			snprintf(t->disk, sizeof(t->disk), "%s", st->disk);
			t->disk_is_blk = true;
			t->loop_attached = true;
		} else {
			t->disk[0] = '\0'; /* image gone: nothing on disk to undo */
			return 0;
		}
	} else {
		if (!st->disk[0])
			return 0;
		snprintf(t->disk, sizeof(t->disk), "%s", st->disk);
		t->disk_is_blk = true;
	}
	if (prov_disk_inspect(t->disk, &t->d, err, sizeof(err)) < 0) {
		fslab_error("the lab's disk: %s", err);
		return -ENODEV;
	}
	if (t->d.is_partition) {
		fslab_error("%s is now a partition, not the lab's whole disk; refusing", t->disk);
		return -EINVAL;
	}
	return 0;
}

/* GPT disk GUID check.  Returns 1 when the disk is ours to wipe, 0 when
 * setup never wrote to it (leave it alone), negative to refuse. */
static int teardown_check_identity(struct teardown_run *t)
{
	const struct fslab_state *st = &t->st;
	bool wrote = strcmp(st->phase, "claimed") != 0 && strcmp(st->phase, "attached") != 0 &&
		     st->phase[0];
	char guid[40];
	int r;

	if (!t->disk[0] || !wrote || strcmp(st->phase, "wiped") == 0)
		return 0;
	r = prov_gpt_guid(t->disk, guid, sizeof(guid));
	if (r == 0 && strcasecmp(guid, st->disk_guid) == 0)
		return 1;
	if (strcmp(st->phase, "wiping") == 0 && r == -ENOENT)
		return 1; /* an earlier teardown got part of the way: finish it */
	if (strcmp(st->phase, "partitioning") == 0) {
		/* Setup stopped before its GPT was complete: whatever is there
		 * is not fslab's table (an old one it was about to replace,
		 * or nothing).  Do not write to the disk. */
		printf("%s: setup stopped before writing its partition table; leaving the disk as it "
		       "is (%s)\n",
		       t->disk, r == 0 ? "it carries another GPT" : "no GPT on it");
		return 0;
	}
	if (r == 0)
		fslab_error("refused: %s carries GPT disk GUID %s, but the lab's is %s: it is not the "
			    "lab's disk (re-partitioned, or another disk got its name); nothing was "
			    "changed. If the lab is gone, remove %s by hand",
			    t->disk, guid, st->disk_guid, t->state_path);
	else
		fslab_error("refused: %s carries no GPT, but the lab's (GUID %s) should be there: it "
			    "is not the lab's disk or its table was destroyed; nothing was changed. If "
			    "the lab is gone, remove %s by hand",
			    t->disk, st->disk_guid, t->state_path);
	return -EINVAL;
}

static int teardown_unmount_all(struct teardown_run *t)
{
	for (size_t i = t->st.n_partitions; i-- > 0;) {
		struct fslab_state_partition *p = &t->st.partitions[i];
		char where[PATH_MAX];
		int r;

		if (!p->device[0])
			continue;
		/* Also after a setup killed between mount(2) and saving the
		 * state: the lab's device at the lab's mount point is ours. */
		r = fslab_lab_unmount(&t->st, p);
		if (r < 0)
			return r;
		if (p->mount_method != FSLAB_MOUNT_NONE) {
			printf("unmounted %s\n", p->mountpoint);
			p->mount_method = FSLAB_MOUNT_NONE;
			r = teardown_save(t, false);
			if (r < 0)
				return r;
		}
		if (prov_mount_find_device(p->device, where, sizeof(where)) == 1) {
			fslab_error("refused: %s is still mounted at %s, which fslab did not mount; "
				    "unmount it and run teardown again",
				    p->device, where);
			return -EBUSY;
		}
	}
	return 0;
}

static int teardown_wipe(struct teardown_run *t)
{
	int r;

	/* Wiping takes several writes (each partition, then both GPT headers
	 * and the protective MBR); a teardown killed among them finds the
	 * table half gone, and a re-run must finish the job rather than
	 * refuse a disk without the lab's GUID. */
	if (strcmp(t->st.phase, "wiping") != 0) {
		snprintf(t->st.phase, sizeof(t->st.phase), "%s", "wiping");
		r = teardown_save(t, true);
		if (r < 0)
			return r;
	}

	for (size_t i = 0; i < t->st.n_partitions; i++) {
		struct fslab_state_partition *p = &t->st.partitions[i];
		struct stat sb;

		if (!p->size_sectors)
			continue;
		/* Through the partition's device when the kernel shows it,
		 * else as a range of the disk (or of the unattached image). */
		if (t->disk_is_blk && stat(p->device, &sb) == 0 && S_ISBLK(sb.st_mode) &&
		    prov_devno_on_disk(sb.st_rdev, &t->d))
			r = prov_wipe_signatures(p->device);
		else
			r = prov_wipe_signatures_range(t->disk, p->start_sector * 512,
						       p->size_sectors * 512);
		if (r < 0)
			return r;
		if (t->disk_is_blk) {
			r = prov_kpart_remove(&t->d, p->number);
			if (r < 0)
				return r;
		}
		p->formatted = false;
	}
	prov_test_pause("teardown-wiping", NULL);
	printf("wiping the partition table and signatures on %s\n", t->disk);
	fflush(stdout);
	r = prov_wipe_signatures(t->disk);
	if (r < 0)
		return r;
	prov_test_pause("teardown-wiped", NULL);
	/* From now on the disk is blank: a re-run must not look for our GPT. */
	snprintf(t->st.phase, sizeof(t->st.phase), "%s", "wiped");
	return teardown_save(t, true);
}

static void teardown_rmdir(const char *dir)
{
	struct stat sb;
	char src[PATH_MAX], fstype[64];

	if (!dir[0] || lstat(dir, &sb) < 0 || !S_ISDIR(sb.st_mode))
		return;
	if (prov_mount_at(dir, src, sizeof(src), fstype, sizeof(fstype)) == 1) {
		fslab_warn("%s: still a mount point (%s); left in place", dir, src);
		return;
	}
	if (rmdir(dir) < 0 && errno != ENOENT)
		fslab_warn("cannot remove %s: %s (left in place)", dir, strerror(errno));
}

int fslab_teardown(const struct fslab_teardown_opts *o)
{
	struct teardown_run *t = calloc(1, sizeof(*t));
	char err[1024];
	int lock = -1, r, ret = FSLAB_EXIT_FAILURE;

	if (!t) {
		fslab_error("out of memory");
		return FSLAB_EXIT_FAILURE;
	}
	t->o = o;
	snprintf(t->state_path, sizeof(t->state_path), "%s",
		 o->state_path ? o->state_path : fslab_state_default_path());
	/* No lab: say so without creating the lock file or its directory. */
	if (access(t->state_path, F_OK) != 0 && errno == ENOENT) {
		fslab_error("no lab to tear down: no state file %s (give --state FILE if the lab was "
			    "set up with one)",
			    t->state_path);
		goto out;
	}
	lock = fslab_lock_state(t->state_path, FSLAB_LOCK_EXCLUSIVE, "fslab teardown", err,
				sizeof(err));
	if (lock < 0) {
		fslab_error("%s", err);
		goto out;
	}
	r = fslab_state_load(t->state_path, &t->st, err, sizeof(err));
	if (r == -ENOENT) {
		fslab_error("no lab to tear down: no state file %s (give --state FILE if the lab was "
			    "set up with one)",
			    t->state_path);
		goto out;
	}
	if (r < 0) {
		fslab_error("%s", err);
		goto out;
	}
	if (teardown_find_disk(t) < 0)
		goto out;
	r = teardown_check_identity(t);
	if (r < 0)
		goto out;
	if (t->disk_is_blk && teardown_unmount_all(t) < 0)
		goto out;
	prov_test_pause("teardown-unmounted", NULL);
	if (r == 1 && teardown_wipe(t) < 0)
		goto out;
	/* Setup killed between creating kernel partitions and its GPT check
	 * cannot happen (partitions come after the table), but a loop device
	 * is detached either way, which drops its partitions. */
	prov_test_pause("teardown-detaching", NULL);
	if (t->loop_attached) {
		printf("detaching %s\n", t->disk);
		fflush(stdout);
		if (prov_loop_detach(t->disk) < 0)
			goto out;
	}
	if (t->st.image[0] && t->st.image_created && !o->keep_image) {
		if (unlink(t->st.image) < 0 && errno != ENOENT) {
			fslab_error_errno(errno, "cannot delete the image %s", t->st.image);
			goto out;
		}
		printf("deleted %s\n", t->st.image);
	}
	for (size_t i = 0; i < t->st.n_partitions; i++)
		if (t->st.partitions[i].mountpoint_created)
			teardown_rmdir(t->st.partitions[i].mountpoint);
	if (t->st.mount_root_created)
		teardown_rmdir(t->st.mount_root);
	{
		char log[PATH_MAX + 8];
		snprintf(log, sizeof(log), "%s.log", t->state_path);
		unlink(log);
	}
	if (unlink(t->state_path) < 0 && errno != ENOENT) {
		fslab_error_errno(errno, "cannot remove the state file %s", t->state_path);
		goto out;
	}
	printf("lab torn down: state file %s removed\n", t->state_path);
	ret = FSLAB_EXIT_OK;
out:
	if (ret != FSLAB_EXIT_OK && t->st.version)
		fslab_error("teardown did not finish; fix the problem above and run it again");
	/* The holder's name in the lock file is stale once we let go; a later
	 * shared holder (run, status) writes its own only into an empty file. */
	if (lock >= 0 && ftruncate(lock, 0) < 0) {
		/* only a name for messages: nothing to do */
	}
	fslab_lock_release(lock);
	free(t);
	return ret;
}
