/* Loop devices for --image: attach through /dev/loop-control and
 * LOOP_CONFIGURE (with partition scanning), find by backing inode, detach.
 * No losetup. */
#include "prov_int.h"
#include "log.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

int prov_loop_attach(const char *image, char *dev, size_t len)
{
	int ctl = -1, img = -1, lfd = -1, r = -EBUSY;

	img = open(image, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (img < 0)
		return fslab_error_errno(errno, "%s: cannot open image", image);
	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0) {
		r = fslab_error_errno(errno, "/dev/loop-control (is the loop module loaded?)");
		goto out;
	}
	/* Another program may grab the free device between GET_FREE and
	 * CONFIGURE: LOOP_CONFIGURE then fails with EBUSY and we ask again. */
	for (int attempt = 0; attempt < 20; attempt++) {
		struct loop_config cfg;
		long n = ioctl(ctl, LOOP_CTL_GET_FREE);

		if (n < 0) {
			r = fslab_error_errno(errno, "/dev/loop-control: no free loop device");
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
			r = fslab_error_errno(errno, "%s", dev);
			goto out;
		}
		memset(&cfg, 0, sizeof(cfg));
		cfg.fd = (unsigned)img;
		cfg.info.lo_flags = LO_FLAGS_PARTSCAN;
		snprintf((char *)cfg.info.lo_file_name, sizeof(cfg.info.lo_file_name), "%s", image);
		if (ioctl(lfd, LOOP_CONFIGURE, &cfg) == 0) {
			r = 0;
			goto out;
		}
		r = -errno;
		close(lfd);
		lfd = -1;
		if (r != -EBUSY) {
			fslab_error_errno(r, "%s: LOOP_CONFIGURE with %s", dev, image);
			goto out;
		}
	}
	fslab_error("no free loop device after 20 attempts (others keep taking them)");
out:
	if (lfd >= 0)
		close(lfd);
	if (ctl >= 0)
		close(ctl);
	close(img);
	if (r < 0)
		dev[0] = '\0';
	return r;
}

int prov_loop_find(const char *image, char *dev, size_t len)
{
	struct stat st;
	struct dirent *e;
	DIR *dh;
	int r = -ENOENT;

	if (stat(image, &st) < 0)
		return -errno;
	dh = opendir("/sys/block");
	if (!dh)
		return -errno;
	while ((e = readdir(dh))) {
		struct loop_info64 info;
		char path[300];
		int fd;

		if (strncmp(e->d_name, "loop", 4) != 0)
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/loop/backing_file", e->d_name);
		if (access(path, F_OK) != 0)
			continue;
		snprintf(path, sizeof(path), "/dev/%s", e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		if (ioctl(fd, LOOP_GET_STATUS64, &info) == 0 && info.lo_inode == st.st_ino &&
		    info.lo_device == st.st_dev) {
			snprintf(dev, len, "%s", path);
			r = 0;
		}
		close(fd);
		if (r == 0)
			break;
	}
	closedir(dh);
	return r;
}

int prov_loop_detach(const char *dev)
{
	char sys[128];
	const char *name = strrchr(dev, '/') ? strrchr(dev, '/') + 1 : dev;
	int fd, r = 0;
	double deadline;

	fd = open(dev, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fslab_error_errno(errno, "%s", dev);
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
		return fslab_error_errno(r, "%s: cannot detach the loop device", dev);
	/* The kernel detaches on the last close: wait for it, bounded. */
	snprintf(sys, sizeof(sys), "/sys/block/%s/loop/backing_file", name);
	deadline = prov_now() + 10;
	while (access(sys, F_OK) == 0) {
		if (prov_now() > deadline)
			return fslab_error_errno(EBUSY, "%s: still attached 10 s after detaching "
							"(something holds it open)", dev);
		usleep(10000);
	}
	return 0;
}
