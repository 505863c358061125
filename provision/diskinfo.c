/* Facts about a block device from sysfs and the device itself (size,
 * sector size, disk or partition), and the root-disk rule built on them.
 * Read-only. */
#include "prov_int.h"
#include "procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* Size and logical sector size: the device's own answer, else sysfs's
 * sector count (512-byte units). */
static void disk_read_size(struct prov_disk *d)
{
	uint64_t sectors = 0, b;
	int fd, ssz = 512;

	fslab_sysfs_read_u64(d->sysdir, "size", &sectors);
	d->bytes = sectors * 512;
	fd = open(d->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd >= 0) {
		if (ioctl(fd, BLKGETSIZE64, &b) == 0)
			d->bytes = b;
		if (ioctl(fd, BLKSSZGET, &ssz) < 0)
			ssz = 512;
		close(fd);
	}
	d->sector_size = (unsigned)ssz;
}

int prov_disk_inspect(const char *path, struct prov_disk *d, struct fslab_err *e)
{
	char link[128], real[PATH_MAX], tmp[PATH_MAX], part[PATH_MAX + 16];
	struct stat st;

	memset(d, 0, sizeof(*d));
	if (snprintf(d->path, sizeof(d->path), "%s", path) >= (int)sizeof(d->path))
		return fslab_err_set(e, -ENAMETOOLONG, "%s: path too long", path);
	if (stat(path, &st) < 0)
		return fslab_err_set(e, -errno, "%s: %s", path, strerror(errno));
	if (!S_ISBLK(st.st_mode))
		return fslab_err_set(e, -ENOTBLK, "%s is not a block device (rule: whole disks only); give a disk such as "
			 "/dev/sdb, or use --image FILE for a disk image",
			 path);
	d->devno = st.st_rdev;
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(d->devno), minor(d->devno));
	if (!realpath(link, real))
		return fslab_err_set(e, -ENODEV, "%s: no %s in sysfs: %s", path, link, strerror(errno));
	snprintf(d->sysdir, sizeof(d->sysdir), "%s", real);
	snprintf(tmp, sizeof(tmp), "%s", real);
	snprintf(d->name, sizeof(d->name), "%s", basename(tmp));
	snprintf(part, sizeof(part), "%s/partition", real);
	if (access(part, F_OK) == 0) {
		d->is_partition = true;
		snprintf(tmp, sizeof(tmp), "%s", real);
		snprintf(d->parent, sizeof(d->parent), "%s", basename(dirname(tmp)));
	}
	disk_read_size(d);
	return 0;
}

bool prov_devno_on_disk_at(const char *sysroot, dev_t devno, const struct prov_disk *d)
{
	char link[PATH_MAX], real[PATH_MAX];
	size_t n = strlen(d->sysdir);

	if (devno == d->devno)
		return true;
	if (major(devno) == 0)
		return false;
	if (snprintf(link, sizeof(link), "%s/dev/block/%u:%u", sysroot, major(devno),
		     minor(devno)) >= (int)sizeof(link) || !realpath(link, real))
		return false;
	/* A partition's sysfs directory sits inside its disk's. */
	return strncmp(real, d->sysdir, n) == 0 && real[n] == '/';
}

bool prov_devno_on_disk(dev_t devno, const struct prov_disk *d)
{
	return prov_devno_on_disk_at("/sys", devno, d);
}

int prov_check_not_root(const struct prov_disk *d, const char *sysroot, dev_t root_dev, struct fslab_err *e)
{
	if (!prov_devno_on_disk_at(sysroot, root_dev, d))
		return 0;
	return fslab_err_set(e, -EBUSY, "%s holds the root filesystem (rule: never the system disk); choose a spare "
		 "disk or use --image FILE",
		 d->path);
}

/* ---- file identity (st_dev, st_ino), kept in the state ---- */

void prov_id_of_fd(int fd, struct fslab_state_id *id)
{
	struct stat st;

	memset(id, 0, sizeof(*id));
	if (fstat(fd, &st) == 0)
		*id = (struct fslab_state_id){ .known = true, .dev = (uint64_t)st.st_dev, .ino = (uint64_t)st.st_ino };
}

bool prov_id_matches(const struct fslab_state_id *id, const struct stat *st)
{
	return id->known && id->dev == (uint64_t)st->st_dev && id->ino == (uint64_t)st->st_ino;
}
