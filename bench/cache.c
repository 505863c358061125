#include "cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DROP_CACHES_PATH "/proc/sys/vm/drop_caches"

const char *fslab_drop_method_name(enum fslab_drop_method m)
{
	switch (m) {
	case FSLAB_DROP_CACHES:
		return "drop_caches";
	case FSLAB_DROP_REMOUNT:
		return "remount";
	case FSLAB_DROP_FADVISE:
		return "fadvise";
	}
	return "unknown";
}

static int cache_drop_caches_permitted(void)
{
	int fd = open(DROP_CACHES_PATH, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

void fslab_cache_ctl_init(struct fslab_cache_ctl *c, const struct fslab_state *st,
			  const struct fslab_state_partition *part)
{
	const char *force = getenv("FSLAB_DROP_METHOD"); /* tests: skip better methods */

	memset(c, 0, sizeof(*c));
	c->state = st;
	c->part = part;
	if (force && strcmp(force, "fadvise") == 0)
		c->method = FSLAB_DROP_FADVISE;
	else if (force && strcmp(force, "remount") == 0 && st && part &&
		 part->mount_method != FSLAB_MOUNT_NONE)
		c->method = FSLAB_DROP_REMOUNT;
	else if (cache_drop_caches_permitted())
		c->method = FSLAB_DROP_CACHES;
	else if (st && part && part->mount_method != FSLAB_MOUNT_NONE && geteuid() == 0)
		c->method = FSLAB_DROP_REMOUNT;
	else
		c->method = FSLAB_DROP_FADVISE;
}

/* fsync (and syncfs) the file so its pages are clean and can be dropped. */
static int cache_flush_file(int dfd, const char *path, int *fdp, char *why, size_t whylen)
{
	int fd = openat(dfd, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0) {
		int r = -errno;
		snprintf(why, whylen, "cold mode: cannot open %s: %s", path, strerror(errno));
		return r;
	}
	if (fsync(fd) < 0 || syncfs(fd) < 0) {
		int r = -errno;
		snprintf(why, whylen, "cold mode: fsync %s: %s", path, strerror(errno));
		close(fd);
		return r;
	}
	*fdp = fd;
	return 0;
}

int fslab_cache_drop(void *ctx, int *dir_fd, const char *path, char *why, size_t whylen)
{
	struct fslab_cache_ctl *c = ctx;
	int fd = -1, r;

	r = cache_flush_file(*dir_fd, path, &fd, why, whylen);
	if (r < 0)
		return r;
	switch (c->method) {
	case FSLAB_DROP_CACHES: {
		int dfd;

		close(fd);
		dfd = open(DROP_CACHES_PATH, O_WRONLY | O_CLOEXEC);
		if (dfd < 0 || write(dfd, "1\n", 2) != 2) {
			r = -errno;
			snprintf(why, whylen, "cold mode: cannot write %s: %s", DROP_CACHES_PATH,
				 strerror(errno));
		}
		if (dfd >= 0)
			close(dfd);
		return r;
	}
	case FSLAB_DROP_REMOUNT:
		close(fd);
		if (c->release)
			c->release(c->hold_ctx);
		r = c->remount ? c->remount(c->remount_ctx, c->part->name, why, whylen) : -ENOTSUP;
		if (r == 0 && c->dev) {
			struct stat st;
			if (stat(c->part->mountpoint, &st) == 0)
				*c->dev = st.st_dev;
		}
		if (r < 0 && !c->remount)
			snprintf(why, whylen, "cold mode: remount of %s at %s failed: %s", c->part->device,
				 c->part->mountpoint, strerror(-r));
		if (c->reopen) {
			int r2 = c->reopen(c->hold_ctx, dir_fd, r < 0 ? NULL : why, whylen);
			if (r == 0)
				r = r2;
		}
		return r;
	case FSLAB_DROP_FADVISE:
		r = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		close(fd);
		if (r != 0) {
			snprintf(why, whylen, "cold mode: posix_fadvise(DONTNEED) on %s: %s", path,
				 strerror(r));
			return -r;
		}
		return 0;
	}
	return -EINVAL;
}
