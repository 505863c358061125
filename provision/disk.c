/* Read-only facts about block devices: sysfs, the mount table, swap,
 * holders, libblkid probes.  Also libblkid's signature wipe. */
#include "prov_int.h"
#include "exec.h"
#include "log.h"
#include "size.h"

#include <blkid.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <libmount.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

void prov_test_pause(const char *step, volatile sig_atomic_t *stop)
{
	const char *want = getenv("FSLAB_TEST_PAUSE_AT");

	if (!want || strcmp(want, step) != 0)
		return;
	fprintf(stderr, "%s: test hook: paused at %s (pid %d)\n", fslab_log_prefix(), step,
		(int)getpid());
	fflush(stderr);
	for (int i = 0; i < 1200 && !(stop && *stop); i++)
		usleep(100000);
}

double prov_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int disk_read_sysfs_u64(const char *dir, const char *file, uint64_t *v)
{
	char path[PATH_MAX + 64], buf[64];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	ok = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	if (!ok)
		return -EIO;
	*v = strtoull(buf, NULL, 10);
	return 0;
}

int prov_disk_inspect(const char *path, struct prov_disk *d, char *err, size_t errlen)
{
	char link[128], real[PATH_MAX], tmp[PATH_MAX], part[PATH_MAX + 16];
	struct stat st;
	uint64_t sectors = 0;
	int fd, ssz = 512;

	memset(d, 0, sizeof(*d));
	if (snprintf(d->path, sizeof(d->path), "%s", path) >= (int)sizeof(d->path)) {
		snprintf(err, errlen, "%s: path too long", path);
		return -ENAMETOOLONG;
	}
	if (stat(path, &st) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	if (!S_ISBLK(st.st_mode)) {
		snprintf(err, errlen,
			 "%s is not a block device (rule: whole disks only); give a disk such as "
			 "/dev/sdb, or use --image FILE for a disk image",
			 path);
		return -ENOTBLK;
	}
	d->devno = st.st_rdev;
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(d->devno), minor(d->devno));
	if (!realpath(link, real)) {
		snprintf(err, errlen, "%s: no %s in sysfs: %s", path, link, strerror(errno));
		return -ENODEV;
	}
	snprintf(d->sysdir, sizeof(d->sysdir), "%s", real);
	snprintf(tmp, sizeof(tmp), "%s", real);
	snprintf(d->name, sizeof(d->name), "%s", basename(tmp));
	snprintf(part, sizeof(part), "%s/partition", real);
	if (access(part, F_OK) == 0) {
		d->is_partition = true;
		snprintf(tmp, sizeof(tmp), "%s", real);
		snprintf(d->parent, sizeof(d->parent), "%s", basename(dirname(tmp)));
	}
	disk_read_sysfs_u64(real, "size", &sectors);
	d->bytes = sectors * 512;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd >= 0) {
		uint64_t b;
		if (ioctl(fd, BLKGETSIZE64, &b) == 0)
			d->bytes = b;
		if (ioctl(fd, BLKSSZGET, &ssz) < 0)
			ssz = 512;
		close(fd);
	}
	d->sector_size = (unsigned)ssz;
	return 0;
}

bool prov_devno_on_disk(dev_t devno, const struct prov_disk *d)
{
	char link[128], real[PATH_MAX];
	size_t n = strlen(d->sysdir);

	if (devno == d->devno)
		return true;
	if (major(devno) == 0)
		return false;
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(devno), minor(devno));
	if (!realpath(link, real))
		return false;
	/* A partition's sysfs directory sits inside its disk's. */
	return strncmp(real, d->sysdir, n) == 0 && real[n] == '/';
}

/* A path (mount source, swap file) that names a block device on d. */
static bool disk_path_on_disk(const char *path, const struct prov_disk *d)
{
	struct stat st;

	if (!path || path[0] != '/')
		return false;
	if (stat(path, &st) < 0 || !S_ISBLK(st.st_mode))
		return false;
	return prov_devno_on_disk(st.st_rdev, d);
}

static int disk_holders(const char *dir, char *who, size_t len)
{
	char path[PATH_MAX + 16];
	struct dirent *e;
	DIR *dh;
	int n = 0;

	snprintf(path, sizeof(path), "%s/holders", dir);
	dh = opendir(path);
	if (!dh)
		return 0;
	while ((e = readdir(dh))) {
		if (e->d_name[0] == '.')
			continue;
		if (!n)
			snprintf(who, len, "%s", e->d_name);
		n++;
	}
	closedir(dh);
	return n;
}

int prov_check_in_use(const struct prov_disk *d, char *err, size_t errlen)
{
	struct libmnt_table *tb = NULL;
	struct libmnt_iter *it = NULL;
	struct libmnt_fs *fs;
	struct stat root;
	char who[256];
	int r = 0;

	if (stat("/", &root) == 0 && prov_devno_on_disk(root.st_dev, d)) {
		snprintf(err, errlen,
			 "%s holds the root filesystem (rule: never the system disk); choose a spare "
			 "disk or use --image FILE",
			 d->path);
		return -EBUSY;
	}
	tb = mnt_new_table_from_file("/proc/self/mountinfo");
	it = mnt_new_iter(MNT_ITER_FORWARD);
	if (!tb || !it) {
		snprintf(err, errlen, "cannot read /proc/self/mountinfo");
		r = -EIO;
		goto out;
	}
	while (mnt_table_next_fs(tb, it, &fs) == 0) {
		const char *src = mnt_fs_get_source(fs);
		dev_t dev = mnt_fs_get_devno(fs);

		/* Kernel filesystems name their device by dev_t; FUSE ones
		 * (fusefat) only by their source string. */
		if ((major(dev) != 0 && prov_devno_on_disk(dev, d)) || disk_path_on_disk(src, d)) {
			snprintf(err, errlen,
				 "%s is in use: %s is mounted at %s (%s) (rule: no mounted filesystem "
				 "on the disk); unmount it first if the disk really is spare",
				 d->path, src ? src : "?", mnt_fs_get_target(fs), mnt_fs_get_fstype(fs));
			r = -EBUSY;
			goto out;
		}
	}
	{
		FILE *f = fopen("/proc/swaps", "re");
		char line[1024];

		while (f && fgets(line, sizeof(line), f)) {
			char *sp = strpbrk(line, " \t");
			if (sp)
				*sp = '\0';
			if (disk_path_on_disk(line, d)) {
				snprintf(err, errlen,
					 "%s is in use: %s is active swap (rule: no swap on the disk); "
					 "swapoff %s first if the disk really is spare",
					 d->path, line, line);
				fclose(f);
				r = -EBUSY;
				goto out;
			}
		}
		if (f)
			fclose(f);
	}
	if (disk_holders(d->sysdir, who, sizeof(who)) > 0) {
		snprintf(err, errlen,
			 "%s is in use: held by %s (rule: no holders such as RAID, LVM or dm-crypt); "
			 "stop that first",
			 d->path, who);
		r = -EBUSY;
		goto out;
	}
	{
		DIR *dh = opendir(d->sysdir);
		struct dirent *e;

		while (dh && (e = readdir(dh))) {
			char sub[PATH_MAX + 300], flag[PATH_MAX + 320];

			if (e->d_name[0] == '.')
				continue;
			snprintf(sub, sizeof(sub), "%s/%s", d->sysdir, e->d_name);
			snprintf(flag, sizeof(flag), "%s/partition", sub);
			if (access(flag, F_OK) != 0)
				continue;
			if (disk_holders(sub, who, sizeof(who)) > 0) {
				snprintf(err, errlen,
					 "%s is in use: its partition %s is held by %s (rule: no holders "
					 "such as RAID, LVM or dm-crypt); stop that first",
					 d->path, e->d_name, who);
				r = -EBUSY;
				break;
			}
		}
		if (dh)
			closedir(dh);
	}
out:
	mnt_free_iter(it);
	mnt_unref_table(tb);
	return r;
}

bool prov_fd_is_blockdev(const char *fdpath, dev_t *rdev)
{
	struct statx sx;

	/* AT_STATX_DONT_SYNC: the cached attributes.  Without it a file open
	 * on a FUSE mount whose daemon is busy or stopped makes the stat
	 * wait for that daemon, and setup or teardown with it. */
	if (statx(AT_FDCWD, fdpath, AT_STATX_DONT_SYNC, STATX_TYPE, &sx) < 0 ||
	    !(sx.stx_mask & STATX_TYPE) || !S_ISBLK(sx.stx_mode))
		return false;
	*rdev = makedev(sx.stx_rdev_major, sx.stx_rdev_minor);
	return true;
}

int prov_check_openers(const struct prov_disk *d, char *err, size_t errlen)
{
	DIR *proc = opendir("/proc");
	struct dirent *e;
	int r = 0;

	while (proc && !r && (e = readdir(proc))) {
		char path[300], comm[64] = "?";
		struct dirent *f;
		DIR *fds;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fd", e->d_name);
		fds = opendir(path);
		while (fds && !r && (f = readdir(fds))) {
			char fdpath[600];
			dev_t rdev;

			if (f->d_name[0] == '.')
				continue;
			snprintf(fdpath, sizeof(fdpath), "%s/%s", path, f->d_name);
			if (prov_fd_is_blockdev(fdpath, &rdev) && prov_devno_on_disk(rdev, d)) {
				FILE *c;
				snprintf(fdpath, sizeof(fdpath), "/proc/%s/comm", e->d_name);
				c = fopen(fdpath, "re");
				if (c) {
					if (fgets(comm, sizeof(comm), c))
						comm[strcspn(comm, "\n")] = '\0';
					fclose(c);
				}
				snprintf(err, errlen,
					 "%s is in use: process %s (pid %s) has it open (rule: nothing else may "
					 "use the disk; a FUSE mount shows up this way); stop it first",
					 d->path, comm, e->d_name);
				r = -EBUSY;
			}
		}
		if (fds)
			closedir(fds);
	}
	if (proc)
		closedir(proc);
	return r;
}

static blkid_probe disk_new_probe_range(const char *dev, int flags, uint64_t off, uint64_t size,
					int *fdp)
{
	blkid_probe pr;
	int fd = open(dev, flags | O_CLOEXEC);

	*fdp = fd;
	if (fd < 0)
		return NULL;
	pr = blkid_new_probe();
	if (!pr || blkid_probe_set_device(pr, fd, (blkid_loff_t)off, (blkid_loff_t)size) < 0) {
		blkid_free_probe(pr);
		close(fd);
		*fdp = -1;
		errno = ENOMEM;
		return NULL;
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_VERSION |
						      BLKID_SUBLKS_MAGIC | BLKID_SUBLKS_BADCSUM);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC | BLKID_PARTS_FORCE_GPT);
	return pr;
}

static blkid_probe disk_new_probe(const char *dev, int flags, int *fdp)
{
	return disk_new_probe_range(dev, flags, 0, 0, fdp);
}

int prov_probe_signatures(const char *dev, char *found, size_t len)
{
	blkid_probe pr;
	int fd, n = 0, r;

	found[0] = '\0';
	pr = disk_new_probe(dev, O_RDONLY, &fd);
	if (!pr)
		return -errno;
	while ((r = blkid_do_probe(pr)) == 0) {
		const char *v = NULL;
		size_t off = strlen(found);

		if (blkid_probe_lookup_value(pr, "TYPE", &v, NULL) != 0 &&
		    blkid_probe_lookup_value(pr, "PTTYPE", &v, NULL) != 0)
			v = "unknown";
		snprintf(found + off, len - off, "%s%s", n ? ", " : "", v);
		n++;
		if (n > 16)
			break;
	}
	blkid_free_probe(pr);
	close(fd);
	return r < 0 && n == 0 ? -EIO : n;
}

int prov_wipe_signatures_range(const char *dev, uint64_t offset, uint64_t size)
{
	blkid_probe pr;
	int fd, r = 0, guard = 0;

	pr = disk_new_probe_range(dev, O_RDWR, offset, size, &fd);
	if (!pr)
		return fslab_error_errno(errno, "%s: cannot open to wipe signatures", dev);
	while (blkid_do_probe(pr) == 0 && guard++ < 64) {
		if (blkid_do_wipe(pr, 0) != 0) {
			r = fslab_error_errno(errno ? errno : EIO, "%s: wiping a signature failed", dev);
			break;
		}
	}
	if (fsync(fd) < 0 && r == 0)
		r = fslab_error_errno(errno, "%s: fsync after wipe", dev);
	blkid_free_probe(pr);
	close(fd);
	return r;
}

int prov_wipe_signatures(const char *dev)
{
	return prov_wipe_signatures_range(dev, 0, 0);
}

int prov_probe_fs(const char *dev, char *type, size_t tlen, char *version, size_t vlen)
{
	blkid_probe pr;
	const char *v;
	int fd, r;

	type[0] = version[0] = '\0';
	pr = disk_new_probe(dev, O_RDONLY, &fd);
	if (!pr)
		return -errno;
	blkid_probe_enable_partitions(pr, 0);
	r = blkid_do_safeprobe(pr);
	if (r == 0) {
		if (blkid_probe_lookup_value(pr, "TYPE", &v, NULL) == 0)
			snprintf(type, tlen, "%s", v);
		if (blkid_probe_lookup_value(pr, "VERSION", &v, NULL) == 0)
			snprintf(version, vlen, "%s", v);
	}
	blkid_free_probe(pr);
	close(fd);
	return r < 0 ? -EIO : 0;
}

int prov_gpt_guid(const char *dev, char *guid, size_t len)
{
	blkid_probe pr;
	blkid_partlist ls;
	blkid_parttable tab;
	const char *id, *pt;
	int fd, r = -ENOENT;

	guid[0] = '\0';
	pr = disk_new_probe(dev, O_RDONLY, &fd);
	if (!pr)
		return -errno;
	blkid_probe_enable_superblocks(pr, 0);
	ls = blkid_probe_get_partitions(pr);
	if (ls && (tab = blkid_partlist_get_table(ls)) && (pt = blkid_parttable_get_type(tab)) &&
	    strcmp(pt, "gpt") == 0 && (id = blkid_parttable_get_id(tab)) && *id) {
		snprintf(guid, len, "%s", id);
		for (char *c = guid; *c; c++)
			if (*c >= 'a' && *c <= 'z')
				*c = (char)(*c - 'a' + 'A');
		r = 0;
	}
	blkid_free_probe(pr);
	close(fd);
	return r;
}

int prov_find_tool(const char *name, char *path, size_t len)
{
	const char *env = getenv("FSLAB_TOOL_PATH");
	char dirs[4096], *save = NULL;

	if (!env || !*env)
		return fslab_exec_find(name, path, len);
	snprintf(dirs, sizeof(dirs), "%s", env);
	for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		struct stat st;
		int w = snprintf(path, len, "%s/%s", d, name);

		if (w < 0 || (size_t)w >= len)
			continue;
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0)
			return 0;
	}
	return -ENOENT;
}
