/* The safety rules that only read: is a disk in use?  The root filesystem,
 * the mount table, swap, holders (RAID, LVM, dm-crypt) and processes that
 * hold it open.  Each check returns 0, or -EBUSY with the refusal in e. */
#include "prov_int.h"
#include "procfs.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <libmount.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* A path (mount source, swap file) that names a block device on d. */
static bool disk_path_on_disk(const char *path, const struct prov_disk *d)
{
	struct stat st;

	if (!path || path[0] != '/' || stat(path, &st) < 0 || !S_ISBLK(st.st_mode))
		return false;
	return prov_devno_on_disk(st.st_rdev, d);
}

static int disk_check_mounts(const struct prov_disk *d, struct fslab_err *e)
{
	struct libmnt_table *tb = mnt_new_table_from_file("/proc/self/mountinfo");
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *fs;
	int r = 0;

	if (!tb || !it)
		r = fslab_err_set(e, -EIO, "cannot read /proc/self/mountinfo");
	while (!r && mnt_table_next_fs(tb, it, &fs) == 0) {
		const char *src = mnt_fs_get_source(fs);
		dev_t dev = mnt_fs_get_devno(fs);

		/* Kernel filesystems name their device by dev_t; FUSE ones
		 * (fusefat) only by their source string. */
		if ((major(dev) == 0 || !prov_devno_on_disk(dev, d)) && !disk_path_on_disk(src, d))
			continue;
		r = fslab_err_set(e, -EBUSY, "%s is in use: %s is mounted at %s (%s) (rule: no mounted filesystem "
			 "on the disk); unmount it first if the disk really is spare",
			 d->path, src ? src : "?", mnt_fs_get_target(fs), mnt_fs_get_fstype(fs));
	}
	mnt_free_iter(it);
	mnt_unref_table(tb);
	return r;
}

static int disk_check_swap(const struct prov_disk *d, struct fslab_err *e)
{
	FILE *f = fopen("/proc/swaps", "re");
	char line[1024];
	int r = 0;

	while (!r && f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, " \t")] = '\0';
		if (!disk_path_on_disk(line, d))
			continue;
		r = fslab_err_set(e, -EBUSY, "%s is in use: %s is active swap (rule: no swap on the disk); "
			 "swapoff %s first if the disk really is spare",
			 d->path, line, line);
	}
	if (f)
		fclose(f);
	return r;
}

/* How many holders the sysfs block directory dir has; the first named in
 * who. */
static int disk_holders(const char *dir, char *who, size_t len)
{
	char path[PATH_MAX + 16];
	struct dirent *de;
	DIR *dh;
	int n = 0;

	snprintf(path, sizeof(path), "%s/holders", dir);
	dh = opendir(path);
	if (!dh)
		return 0;
	while ((de = readdir(dh))) {
		if (de->d_name[0] == '.')
			continue;
		if (!n)
			snprintf(who, len, "%s", de->d_name);
		n++;
	}
	closedir(dh);
	return n;
}

/* Holders of the disk, then of each of its partitions (the sysfs
 * subdirectories with a "partition" file). */
static int disk_check_holders(const struct prov_disk *d, struct fslab_err *e)
{
	char who[256];
	struct dirent *de;
	DIR *dh;
	int r = 0;

	if (disk_holders(d->sysdir, who, sizeof(who)) > 0)
		return fslab_err_set(e, -EBUSY, "%s is in use: held by %s (rule: no holders such as RAID, LVM or dm-crypt); "
			 "stop that first",
			 d->path, who);
	dh = opendir(d->sysdir);
	while (!r && dh && (de = readdir(dh))) {
		char sub[PATH_MAX + 300], flag[PATH_MAX + 320];

		if (de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", d->sysdir, de->d_name);
		snprintf(flag, sizeof(flag), "%s/partition", sub);
		if (access(flag, F_OK) != 0 || disk_holders(sub, who, sizeof(who)) == 0)
			continue;
		r = fslab_err_set(e, -EBUSY, "%s is in use: its partition %s is held by %s (rule: no holders "
			 "such as RAID, LVM or dm-crypt); stop that first",
			 d->path, de->d_name, who);
	}
	if (dh)
		closedir(dh);
	return r;
}

int prov_check_in_use(const struct prov_disk *d, struct fslab_err *e)
{
	struct stat root;
	int r = 0;

	if (stat("/", &root) == 0)
		r = prov_check_not_root(d, "/sys", root.st_dev, e);
	if (!r)
		r = disk_check_mounts(d, e);
	if (!r)
		r = disk_check_swap(d, e);
	if (!r)
		r = disk_check_holders(d, e);
	return r;
}

struct opener_walk {
	const struct prov_disk *d;
	struct fslab_err *e;
};

static int disk_opener_step(pid_t pid, int fd, const char *fdpath, void *ctx)
{
	struct opener_walk *w = ctx;
	char comm[64];
	dev_t rdev;

	(void)fd;
	if (!fslab_proc_fd_blockdev(fdpath, &rdev) || !prov_devno_on_disk(rdev, w->d))
		return 0;
	fslab_proc_comm(pid, comm, sizeof(comm)); /* "?" when it cannot tell */
	return fslab_err_set(w->e, -EBUSY,
			     "%s is in use: process %s (pid %d) has it open (rule: nothing else may "
			     "use the disk; a FUSE mount shows up this way); stop it first",
			     w->d->path, comm, (int)pid);
}

int prov_check_openers(const struct prov_disk *d, struct fslab_err *e)
{
	struct opener_walk w = { .d = d, .e = e };
	int r = fslab_proc_each_open_fd(disk_opener_step, &w);

	/* An unreadable /proc (no processes to see) was not a refusal before
	 * either: only what the walk found refuses. */
	return r == -EBUSY ? r : 0;
}
