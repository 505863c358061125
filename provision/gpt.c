/* Writing the GPT with libfdisk and telling the kernel about the partitions
 * with BLKPG (this kernel may have no GPT parser, so re-reading the table
 * would silently add nothing), then checking sysfs and waiting for the
 * /dev nodes. */
#include "prov_int.h"
#include "procfs.h"
#include "clock.h"
#include "exec.h"
#include "log.h"
#include "progress.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libfdisk.h>
#include <linux/blkpg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* libfdisk's messages and questions (its "ask" interface).  Warnings go
 * to fslab's log as warnings, information to the provision debug output.
 * fslab never lets libfdisk choose for a human: a yes/no question is
 * answered no, any other question (a number, an offset, a string, a menu)
 * is refused, which fails the libfdisk call that asked.  (fslab gives
 * every partition's number, start and size, so none is expected.) */
static int gpt_ask(struct fdisk_context *cxt, struct fdisk_ask *ask, void *data)
{
	const char *dev = data;
	const char *msg, *query = fdisk_ask_get_query(ask);
	int type = fdisk_ask_get_type(ask);

	(void)cxt;
	if (type == FDISK_ASKTYPE_INFO || type == FDISK_ASKTYPE_WARN || type == FDISK_ASKTYPE_WARNX) {
		msg = fdisk_ask_print_get_mesg(ask);
		if (!msg)
			msg = "(no message)";
		if (type == FDISK_ASKTYPE_INFO)
			fslab_debug(FSLAB_DBG_PROVISION, "%s: libfdisk: %s", dev, msg);
		else /* WARN: with the error's text, as WARNX is without it */
			fslab_note_warn("%s: libfdisk: %s%s%s", dev, msg, type == FDISK_ASKTYPE_WARN ? ": " : "",
					type == FDISK_ASKTYPE_WARN ? strerror(fdisk_ask_print_get_errno(ask)) : "");
		return 0;
	}
	if (type == FDISK_ASKTYPE_YESNO) {
		fslab_note_warn("%s: libfdisk asked \"%s\"; fslab answers no", dev, query ? query : "?");
		return fdisk_ask_yesno_set_result(ask, 0);
	}
	fslab_note(FSLAB_NOTE_ERROR,
		   "%s: libfdisk asked \"%s\", a choice fslab leaves to a human; it answers none",
		    dev, query ? query : "?");
	return -EINVAL;
}

int prov_fdisk_open(const char *dev, bool readonly, struct fdisk_context **cxtp, struct fslab_err *e)
{
	struct fdisk_context *cxt = fdisk_new_context();
	int r;

	*cxtp = NULL;
	if (!cxt)
		return fslab_note_fail_errno(e, ENOMEM, "libfdisk");
	/* dev outlives cxt: every caller holds it until fdisk_unref_context */
	fdisk_set_ask(cxt, gpt_ask, (void *)dev);
	r = fdisk_assign_device(cxt, dev, readonly);
	if (r < 0) {
		fdisk_unref_context(cxt);
		return fslab_note_fail_errno(e, r, "%s: libfdisk cannot open the disk", dev);
	}
	*cxtp = cxt;
	return 0;
}

/* Adds the plan's partition p (number, start, size, type, name, PARTUUID
 * all given: libfdisk chooses nothing). */
static int gpt_add(struct fdisk_context *cxt, struct fdisk_label *lb, unsigned long ss,
		   const struct fslab_partition_plan *p, const char *partuuid)
{
	struct fdisk_partition *pa = fdisk_new_partition();
	struct fdisk_parttype *t = fdisk_label_get_parttype_from_string(lb, p->recipe->gpt_type);
	int r = (!pa || !t) ? -ENOMEM : 0;

	if (!r)
		r = fdisk_partition_set_partno(pa, p->number - 1);
	if (!r)
		r = fdisk_partition_set_start(pa, p->start / ss);
	if (!r)
		r = fdisk_partition_set_size(pa, p->size / ss);
	if (!r)
		r = fdisk_partition_size_explicit(pa, 1);
	if (!r)
		r = fdisk_partition_set_type(pa, t);
	if (!r)
		r = fdisk_partition_set_name(pa, p->fs->name);
	if (!r)
		r = fdisk_partition_set_uuid(pa, partuuid);
	if (!r)
		r = fdisk_add_partition(cxt, pa, NULL);
	fdisk_unref_partition(pa);
	fdisk_unref_parttype(t);
	return r;
}

int prov_gpt_write(const struct fslab_lab_plan *plan, const char *disk_guid,
		   char partuuids[][40], struct fslab_err *e)
{
	struct fdisk_context *cxt;
	struct fdisk_label *lb;
	unsigned long ss;
	int r = prov_fdisk_open(plan->disk, false, &cxt, e);

	if (r < 0)
		return r;
	ss = fdisk_get_sector_size(cxt);
	if (ss != plan->sector_size) {
		r = fslab_note_fail_errno(e, EINVAL, "%s: sector size %lu, planned for %u", plan->disk, ss,
				      plan->sector_size);
		goto out;
	}
	r = fdisk_create_disklabel(cxt, "gpt");
	if (r == 0)
		r = fdisk_set_disklabel_id_from_string(cxt, disk_guid);
	if (r < 0) {
		fslab_note_fail_errno(e, r, "%s: cannot create the GPT", plan->disk);
		goto out;
	}
	lb = fdisk_get_label(cxt, "gpt");
	for (size_t i = 0; i < plan->n; i++) {
		const struct fslab_partition_plan *p = &plan->parts[i];

		r = gpt_add(cxt, lb, ss, p, partuuids[i]);
		if (r < 0) {
			fslab_note_fail_errno(e, r, "%s: cannot add partition %u (%s)", plan->disk, p->number,
					  p->fs->name);
			goto out;
		}
	}
	r = fdisk_write_disklabel(cxt);
	if (r < 0) {
		fslab_note_fail_errno(e, r, "%s: writing the GPT failed", plan->disk);
		goto out;
	}
	r = fdisk_deassign_device(cxt, 0); /* fsync + close */
	if (r < 0)
		fslab_note_fail_errno(e, r, "%s: closing after writing the GPT", plan->disk);
out:
	fdisk_unref_context(cxt);
	return r;
}

static int kpart_ioctl(const struct prov_disk *d, int op, unsigned number, uint64_t start,
		       uint64_t size)
{
	struct blkpg_partition part = { .pno = (int)number, .start = (long long)start, .length = (long long)size };
	struct blkpg_ioctl_arg arg = { .op = op, .datalen = sizeof(part), .data = &part };
	int fd, r = 0;

	fd = open(d->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, BLKPG, &arg) < 0)
		r = -errno;
	close(fd);
	return r;
}

/* sysfs directory of partition `number` of d, if the kernel has it. */
static int kpart_sysdir(const struct prov_disk *d, unsigned number, char *dir, size_t len)
{
	struct dirent *e;
	DIR *dh = opendir(d->sysdir);
	int r = -ENOENT;

	if (!dh)
		return -errno;
	while ((e = readdir(dh))) {
		char path[PATH_MAX + 300];
		uint64_t n;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", d->sysdir, e->d_name);
		if (fslab_sysfs_read_u64(path, "partition", &n) == 0 && n == number) {
			int w = snprintf(dir, len, "%s/%s", d->sysdir, e->d_name);
			r = (w < 0 || (size_t)w >= len) ? -ENAMETOOLONG : 0;
			break;
		}
	}
	closedir(dh);
	return r;
}

int prov_kpart_remove(const struct prov_disk *d, unsigned number, struct fslab_err *e)
{
	char dir[PATH_MAX];
	int r;

	if (kpart_sysdir(d, number, dir, sizeof(dir)) < 0)
		return 0;
	/* EBUSY while a just-closed opener lets go: retry briefly. */
	for (int i = 0; i < 50; i++) {
		r = kpart_ioctl(d, BLKPG_DEL_PARTITION, number, 0, 0);
		if (r != -EBUSY)
			break;
		usleep(100000);
	}
	if (r < 0 && r != -ENXIO)
		return fslab_note_fail_errno(e, r, "%s: cannot remove kernel partition %u", d->path, number);
	return 0;
}

int prov_kpart_remove_all(const struct prov_disk *d, struct fslab_err *e)
{
	for (unsigned n = 1; n <= 256; n++) {
		int r = prov_kpart_remove(d, n, e); /* 0 when the kernel has no partition n */

		if (r < 0)
			return r;
	}
	return 0;
}

static void kpart_settle(void)
{
	static const char *const argv[] = { "udevadm", "settle", "--timeout=10", NULL };
	struct fslab_exec_result res;
	char path[PATH_MAX];

	if (fslab_exec_find("udevadm", path, sizeof(path)) == 0 && access("/run/udev/control", F_OK) == 0)
		fslab_exec_run_in(argv, NULL, NULL, 15, &res);
}

int prov_kpart_add_plan(const struct prov_disk *d, const struct fslab_lab_plan *plan, struct fslab_err *e)
{
	double deadline;
	int r;

	for (size_t i = 0; i < plan->n; i++) {
		const struct fslab_partition_plan *p = &plan->parts[i];
		char dir[PATH_MAX];

		if (kpart_sysdir(d, p->number, dir, sizeof(dir)) == 0) {
			/* A kernel with a GPT parser may have read the table
			 * already; keep what matches, replace what does not. */
			uint64_t s = 0, z = 0;
			fslab_sysfs_read_u64(dir, "start", &s);
			fslab_sysfs_read_u64(dir, "size", &z);
			if (s * 512 == p->start && z * 512 == p->size)
				continue;
			r = prov_kpart_remove(d, p->number, e);
			if (r < 0)
				return r;
		}
		r = kpart_ioctl(d, BLKPG_ADD_PARTITION, p->number, p->start, p->size);
		if (r < 0)
			return fslab_note_fail_errno(e, r, "%s: BLKPG cannot add partition %u (%s)", d->path,
						 p->number, p->fs->name);
	}
	kpart_settle();
	/* Check what the kernel made against the plan, then wait for each
	 * node in /dev (devtmpfs or udev creates it), bounded. */
	deadline = fslab_now() + 10;
	for (size_t i = 0; i < plan->n; i++) {
		const struct fslab_partition_plan *p = &plan->parts[i];
		char dir[PATH_MAX], devfile[PATH_MAX + 8];
		uint64_t s = 0, z = 0;
		unsigned ma = 0, mi = 0;
		struct stat st;
		FILE *f;

		if (kpart_sysdir(d, p->number, dir, sizeof(dir)) < 0)
			return fslab_note_fail_errno(e, ENOENT, "%s: the kernel shows no partition %u after BLKPG",
						 d->path, p->number);
		if (fslab_sysfs_read_u64(dir, "start", &s) < 0 || fslab_sysfs_read_u64(dir, "size", &z) < 0 ||
		    s * 512 != p->start || z * 512 != p->size)
			return fslab_note_fail_errno(e, EIO,
						 "%s: the kernel's partition %u (start %llu, size %llu sectors) "
						 "does not match the plan (start %llu, size %llu)",
						 d->path, p->number, (unsigned long long)s,
						 (unsigned long long)z, (unsigned long long)(p->start / 512),
						 (unsigned long long)(p->size / 512));
		snprintf(devfile, sizeof(devfile), "%s/dev", dir);
		f = fopen(devfile, "re");
		if (!f || fscanf(f, "%u:%u", &ma, &mi) != 2) {
			if (f)
				fclose(f);
			return fslab_note_fail_errno(e, EIO, "%s: cannot read", devfile);
		}
		fclose(f);
		for (;;) {
			if (stat(p->device, &st) == 0 && S_ISBLK(st.st_mode) &&
			    st.st_rdev == makedev(ma, mi))
				break;
			if (fslab_now() > deadline)
				return fslab_note_fail_errno(e, ETIMEDOUT,
							 "%s: no block device %u:%u appeared within 10 s "
							 "(is /dev a devtmpfs?)",
							 p->device, ma, mi);
			usleep(5000);
		}
	}
	return 0;
}
