/* Loop devices for --image: attach through /dev/loop-control and
 * LOOP_CONFIGURE (with partition scanning and direct I/O), find by backing
 * inode, detach.  No losetup.
 *
 * Direct I/O: a loop device reads and writes its backing file through the
 * host's page cache unless it is in direct-I/O mode, and then a benchmark
 * of the lab measures the host's memory, not the disk under the image (a
 * cold read is served from the cached image).  The kernel accepts
 * LO_FLAGS_DIRECT_IO only where the backing filesystem can do direct I/O at
 * the loop's logical block size (512 bytes here: the image's partition table
 * is laid out in 512-byte sectors); elsewhere (tmpfs, a 4 KiB-sector disk,
 * some FUSE filesystems) it keeps the loop buffered, which the caller is
 * told. */
#include "prov_int.h"
#include "clock.h"
#include "progress.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

/* 1 when the loop device lfd does direct I/O, 0 when buffered, -errno. */
static int loop_dio_of_fd(int lfd)
{
	struct loop_info64 info = { 0 };

	if (ioctl(lfd, LOOP_GET_STATUS64, &info) < 0)
		return -errno;
	return !!(info.lo_flags & LO_FLAGS_DIRECT_IO);
}

int prov_loop_attach_fd(int img, const char *image, char *dev, size_t len, bool *direct, struct fslab_err *e)
{
	int ctl = -1, lfd = -1, r = -EBUSY;

	*direct = false;
	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0) {
		r = fslab_note_fail_errno(e, errno, "/dev/loop-control (is the loop module loaded?)");
		goto out;
	}
	/* Another program may grab the free device between GET_FREE and
	 * CONFIGURE: LOOP_CONFIGURE then fails with EBUSY and we ask again. */
	for (int attempt = 0; attempt < 20; attempt++) {
		struct loop_config cfg;
		long n = ioctl(ctl, LOOP_CTL_GET_FREE);

		if (n < 0) {
			r = fslab_note_fail_errno(e, errno, "/dev/loop-control: no free loop device");
			goto out;
		}
		snprintf(dev, len, "/dev/loop%ld", n);
		for (int w = 0; w < 100; w++) {
			lfd = open(dev, O_RDWR | O_CLOEXEC);
			if (lfd >= 0 || errno != ENOENT)
				break;
			usleep(10000); /* devtmpfs creates the node */
		}
		if (lfd < 0) {
			r = fslab_note_fail_errno(e, errno, "%s", dev);
			goto out;
		}
		cfg = (struct loop_config){ .fd = (unsigned)img, .info.lo_flags = LO_FLAGS_PARTSCAN | LO_FLAGS_DIRECT_IO };
		snprintf((char *)cfg.info.lo_file_name, sizeof(cfg.info.lo_file_name), "%s", image);
		if (ioctl(lfd, LOOP_CONFIGURE, &cfg) == 0) {
			*direct = loop_dio_of_fd(lfd) == 1;
			r = 0;
			goto out;
		}
		r = -errno;
		close(lfd);
		lfd = -1;
		if (r != -EBUSY) {
			fslab_note_fail_errno(e, r, "%s: LOOP_CONFIGURE with %s", dev, image);
			goto out;
		}
	}
	fslab_note_fail(e, -EIO, "no free loop device after 20 attempts (others keep taking them)");
out:
	if (lfd >= 0)
		close(lfd);
	if (ctl >= 0)
		close(ctl);
	if (r < 0)
		dev[0] = '\0';
	return r;
}

int prov_loop_direct_io(const char *dev)
{
	int fd = open(dev, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW), r;

	if (fd < 0)
		return -errno;
	r = loop_dio_of_fd(fd);
	close(fd);
	return r;
}

int prov_loop_backing(const char *dev, struct fslab_state_id *id)
{
	struct loop_info64 info = { 0 };
	int fd = open(dev, O_RDONLY | O_CLOEXEC | O_NONBLOCK), r = 0;

	memset(id, 0, sizeof(*id));
	if (fd < 0)
		return -errno;
	if (ioctl(fd, LOOP_GET_STATUS64, &info) < 0)
		r = -errno;
	else
		*id = (struct fslab_state_id){ .known = true, .dev = info.lo_device, .ino = info.lo_inode };
	close(fd);
	return r;
}

/* The first attached loop device (other than except) backed by id. */
int prov_loop_find_other(const struct fslab_state_id *id, const char *except, char *dev, size_t len)
{
	struct dirent *e;
	DIR *dh;
	int r = -ENOENT;

	if (!id->known)
		return -ENOENT;
	dh = opendir("/sys/block");
	if (!dh)
		return -errno;
	while (r != 0 && (e = readdir(dh))) {
		struct fslab_state_id b;
		char path[300];

		if (strncmp(e->d_name, "loop", 4) != 0)
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/loop/backing_file", e->d_name);
		if (access(path, F_OK) != 0)
			continue;
		snprintf(path, sizeof(path), "/dev/%s", e->d_name);
		if (except && strcmp(path, except) == 0)
			continue;
		if (prov_loop_backing(path, &b) == 0 && b.dev == id->dev && b.ino == id->ino) {
			snprintf(dev, len, "%s", path);
			r = 0;
		}
	}
	closedir(dh);
	return r;
}

int prov_loop_find_fd(int fd, char *dev, size_t len)
{
	struct fslab_state_id id;

	prov_id_of_fd(fd, &id);
	return prov_loop_find_other(&id, NULL, dev, len);
}

int prov_loop_check_alias(const char *name, struct fslab_err *e)
{
	char sys[300], dev[300], back[PATH_MAX + 16], other[64];
	struct fslab_state_id id;
	struct stat st;
	FILE *f;

	snprintf(sys, sizeof(sys), "/sys/block/%s/loop/backing_file", name);
	f = fopen(sys, "re");
	if (!f)
		return 0; /* not a loop device, or nothing attached */
	back[0] = '\0';
	if (!fgets(back, sizeof(back), f))
		back[0] = '\0';
	fclose(f);
	back[strcspn(back, "\n")] = '\0';
	snprintf(dev, sizeof(dev), "/dev/%s", name);
	if (prov_loop_backing(dev, &id) < 0)
		return 0;
	if (prov_loop_find_other(&id, dev, other, sizeof(other)) == 0) {
		char where[PATH_MAX] = "";
		bool mounted = false;

		/* Name where the other one is in use, if it is. */
		for (unsigned pno = 0; !mounted && pno < 129; pno++) {
			char part[96];

			if (pno == 0)
				snprintf(part, sizeof(part), "%s", other);
			else
				snprintf(part, sizeof(part), "%sp%u", other, pno);
			if (access(part, F_OK) != 0 && pno > 0)
				break;
			mounted = prov_mount_find_device(part, where, sizeof(where)) == 1;
		}
		return fslab_err_set(e, -EBUSY,
			 "%s is in use: its backing file %s also backs %s%s%s (rule: no second name for "
			 "a disk in use); detach %s if the file really is spare",
			 dev, back[0] ? back : "(unknown)", other, mounted ? ", mounted at " : "",
			 mounted ? where : "", dev);
	}
	/* A loop over a block device is that device: it must be spare too. */
	if (back[0] == '/' && stat(back, &st) == 0 && S_ISBLK(st.st_mode)) {
		struct prov_disk d;
		struct fslab_err e2 = FSLAB_ERR_INIT;

		if (prov_disk_inspect(back, &d, &e2) == 0 && prov_check_in_use(&d, &e2) < 0)
			return fslab_err_set(e, -EBUSY, "%s is backed by %s, which is in use: %s", dev, back,
					     fslab_err_msg(&e2));
	}
	return 0;
}

/* Any byte that is not zero?  Holes are skipped; at most 256 MiB of zero
 * data is read before the file counts as not empty. */
int prov_file_has_data(int fd)
{
	static char buf[1 << 16];
	off_t pos = 0, budget = 256 << 20;

	for (;;) {
		off_t data = lseek(fd, pos, SEEK_DATA), hole;

		if (data < 0)
			return errno == ENXIO ? 0 : -errno;
		hole = lseek(fd, data, SEEK_HOLE);
		if (hole < 0)
			return -errno;
		for (off_t off = data; off < hole;) {
			size_t want = (size_t)(hole - off < (off_t)sizeof(buf) ? hole - off : (off_t)sizeof(buf));
			ssize_t n = pread(fd, buf, want, off);

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				return -errno;
			if (n == 0)
				return 0;
			for (ssize_t i = 0; i < n; i++)
				if (buf[i])
					return 1;
			off += n;
			budget -= n;
			if (budget <= 0)
				return 1;
		}
		pos = hole;
	}
}

int prov_loop_detach(const char *dev, struct fslab_err *e)
{
	char sys[128];
	const char *name = strrchr(dev, '/') ? strrchr(dev, '/') + 1 : dev;
	int fd, r = 0;
	double deadline;

	fd = open(dev, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fslab_note_fail_errno(e, errno, "%s", dev);
	for (int i = 0; i < 50; i++) {
		if (ioctl(fd, LOOP_CLR_FD, 0) == 0 || errno == ENXIO) {
			r = 0;
			break;
		}
		r = -errno;
		usleep(100000);
	}
	close(fd);
	if (r < 0)
		return fslab_note_fail_errno(e, r, "%s: cannot detach the loop device", dev);
	/* The kernel detaches on the last close: wait for it, bounded. */
	snprintf(sys, sizeof(sys), "/sys/block/%s/loop/backing_file", name);
	deadline = fslab_now() + 10;
	while (access(sys, F_OK) == 0) {
		if (fslab_now() > deadline)
			return fslab_note_fail_errno(e, EBUSY, "%s: still attached 10 s after detaching "
							"(something holds it open)", dev);
		usleep(10000);
	}
	return 0;
}
