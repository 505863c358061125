#include "engine.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define DROP_CACHES_PATH "/proc/sys/vm/drop_caches"
#define FSLAB_FUSE_MAGIC 0x65735546UL

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

void fslab_cache_ctl_init(struct fslab_cache_ctl *c, const struct fslab_target *t,
			  const char *buffered_loop_backing)
{
	const char *force = getenv("FSLAB_DROP_METHOD"); /* tests: one method, no check */
	bool lab = t && t->remount;

	memset(c, 0, sizeof(*c));
	c->target = lab ? t : NULL;
	snprintf(c->backing, sizeof(c->backing), "%s", buffered_loop_backing ? buffered_loop_backing : "");
	c->method = FSLAB_DROP_FADVISE;
	if (cache_drop_caches_permitted()) {
		c->fallback = FSLAB_DROP_CACHES;
		c->has_fallback = true;
	} else if (lab && geteuid() == 0) {
		c->fallback = FSLAB_DROP_REMOUNT;
		c->has_fallback = true;
	}
	snprintf(c->note, sizeof(c->note),
		 "posix_fadvise(DONTNEED) on the test file after fsync; mincore found none of its pages resident");
	if (!force)
		return;
	if (strcmp(force, "fadvise") == 0) {
		c->forced = true;
		snprintf(c->note, sizeof(c->note), "FSLAB_DROP_METHOD=fadvise: posix_fadvise(DONTNEED), not checked");
	} else if (strcmp(force, "remount") == 0 && lab) {
		c->forced = true;
		c->method = FSLAB_DROP_REMOUNT;
		snprintf(c->note, sizeof(c->note), "FSLAB_DROP_METHOD=remount");
	} else if (strcmp(force, "drop_caches") == 0 && cache_drop_caches_permitted()) {
		c->forced = true;
		c->method = FSLAB_DROP_CACHES;
		snprintf(c->note, sizeof(c->note), "FSLAB_DROP_METHOD=drop_caches");
	}
}

/* fsync the file so its pages are clean and can be dropped; with whole_fs
 * (drop_caches, which drops the machine's clean pages) syncfs too.  The
 * file's own fsync is all fadvise needs: a syncfs there cost btrfs a
 * transaction commit before every first read pass (about 5 ms each, 5 per
 * cell), and mincore still checks that nothing stayed. */
static int cache_flush_file(int dfd, const char *path, bool whole_fs, int *fdp, struct fslab_err *e)
{
	int fd = openat(dfd, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return fslab_err_set(e, errno, "cold mode: cannot open %s: %s", path, strerror(errno));
	if (fsync(fd) < 0 || (whole_fs && syncfs(fd) < 0)) {
		int r = fslab_err_set(e, errno, "cold mode: fsync %s: %s", path, strerror(errno));
		close(fd);
		return r;
	}
	*fdp = fd;
	return 0;
}

int fslab_cache_resident(int fd, uint64_t *resident, uint64_t *pages)
{
	struct stat st;
	long psz = sysconf(_SC_PAGESIZE);
	unsigned char *vec = NULL;
	void *map;
	size_t n;
	int r = 0;

	*resident = *pages = 0;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (st.st_size <= 0)
		return 0;
	if ((uint64_t)st.st_size > SIZE_MAX - (size_t)psz)
		return -EFBIG;
	n = ((size_t)st.st_size + (size_t)psz - 1) / (size_t)psz;
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return -errno;
	vec = malloc(n);
	if (!vec) {
		r = -ENOMEM;
	} else if (mincore(map, (size_t)st.st_size, vec) < 0) {
		r = -errno;
	} else {
		for (size_t i = 0; i < n; i++)
			*resident += vec[i] & 1;
		*pages = n;
	}
	free(vec);
	munmap(map, (size_t)st.st_size);
	return r;
}

/* The block device a filesystem is on, by its source device node (the
 * mount's source, or the lab's partition): a file's st_dev is no use for
 * that, since btrfs (and any filesystem with anonymous device numbers)
 * gives its files a st_dev of major 0 that no block device has.  fs_dev
 * (the st_dev of the directory) is the answer only when the source is no
 * block device node (a "/dev/root" that does not exist).  False when
 * neither names a block device. */
static bool cache_fs_block_device(const char *device, dev_t fs_dev, dev_t *dev)
{
	struct stat st;

	if (device && device[0] == '/' && stat(device, &st) == 0 && S_ISBLK(st.st_mode)) {
		*dev = st.st_rdev;
		return true;
	}
	if (major(fs_dev) == 0)
		return false;
	*dev = fs_dev;
	return true;
}

bool fslab_loop_of_device(const char *device, dev_t fs_dev, char *backing, size_t len, bool *direct)
{
	const char *dirs[] = { "/sys/dev/block/%u:%u/loop", "/sys/dev/block/%u:%u/../loop" };
	dev_t dev;

	if (!cache_fs_block_device(device, fs_dev, &dev))
		return false;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		char dir[80], path[96], v[8] = "";
		int f;
		ssize_t k;

		snprintf(dir, sizeof(dir), dirs[i], major(dev), minor(dev));
		snprintf(path, sizeof(path), "%s/dio", dir);
		f = open(path, O_RDONLY | O_CLOEXEC);
		if (f < 0)
			continue;
		k = read(f, v, sizeof(v) - 1);
		close(f);
		if (k <= 0)
			return false;
		*direct = v[0] == '1';
		snprintf(path, sizeof(path), "%s/backing_file", dir);
		f = open(path, O_RDONLY | O_CLOEXEC);
		if (f < 0)
			return false;
		k = read(f, backing, len - 1);
		close(f);
		if (k <= 0)
			return false;
		backing[k] = '\0';
		backing[strcspn(backing, "\n")] = '\0';
		return backing[0] == '/';
	}
	return false;
}

/* Switches the filesystem to its fallback for the rest of the run. */
static void cache_fall_back(struct fslab_cache_ctl *c, const char *reason)
{
	if (c->has_fallback) {
		c->method = c->fallback;
		snprintf(c->note, sizeof(c->note), "%s; fell back to %s", reason,
			 fslab_drop_method_name(c->fallback));
	} else {
		c->leaky = true;
		snprintf(c->note, sizeof(c->note),
			 "%s; no fallback (drop_caches not writable, not a lab partition): reads may be served from the page cache",
			 reason);
	}
}

/* The first drop: a FUSE or tmpfs filesystem is known not to drop by
 * fadvise, whatever mincore says of the file. */
static void cache_check_fs(struct fslab_cache_ctl *c, int fd)
{
	struct statfs sfs;

	c->checked = true;
	if (fstatfs(fd, &sfs) < 0)
		return;
	if ((unsigned long)sfs.f_type == FSLAB_FUSE_MAGIC)
		cache_fall_back(c, "FUSE mount: the daemon reads its device through the page cache, which posix_fadvise on the file does not reach");
	else if ((unsigned long)sfs.f_type == TMPFS_MAGIC)
		cache_fall_back(c, "tmpfs keeps its files in memory: posix_fadvise(DONTNEED) cannot drop them");
	else if (c->backing[0])
		snprintf(c->note, sizeof(c->note),
			 "posix_fadvise(DONTNEED) on the test file after fsync (mincore found none of its pages resident) and on the backing file of its loop device (no direct I/O), %s",
			 c->backing);
}

/* The loop device's backing file: flushed and its pages dropped, so the
 * loop reads the disk under it.  Only a request about cached pages: a
 * wrong file would lose nothing. */
static int cache_drop_backing(struct fslab_cache_ctl *c)
{
	int fd = open(c->backing, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
	int r = 0;

	if (fd < 0)
		return -errno;
	if (fdatasync(fd) < 0)
		r = -errno;
	else
		r = -posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	return r;
}

/* A drop that needed a second request: counted in the note. */
static void cache_note_retry(struct fslab_cache_ctl *c)
{
	static const char tail[] = " drops found pages still in flight and dropped them when asked again";
	char *at = strstr(c->note, tail);

	c->retried++;
	if (at) { /* the count before it, and its "; " */
		while (at > c->note && at[-1] != ' ')
			at--;
		*(at - c->note >= 2 ? at - 2 : at) = '\0';
	}
	fslab_catf(c->note, sizeof(c->note), "; %u%s", c->retried, tail);
}

/* One file's pages: fadvise, then mincore to see that none stayed (asked
 * again a few times first).  0, 1 when the filesystem fell back to
 * another method, or -errno (e says why). */
static int cache_fadvise_file(struct fslab_cache_ctl *c, int fd, const char *path, struct fslab_err *e)
{
	uint64_t res = 0, pages = 0;
	char reason[160];
	int r = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);

	if (r != 0)
		return fslab_err_set(e, r, "cold mode: posix_fadvise(DONTNEED) on %s: %s", path, strerror(r));
	if (c->forced)
		return 0;
	r = fslab_cache_resident(fd, &res, &pages);
	/* Pages still locked under a read the pass's readahead began (or
	 * taken by reclaim at that moment) cannot be invalidated yet: give
	 * them a moment, and ask again, before judging fadvise useless here
	 * (the fallback, drop_caches, empties the whole machine's cache for
	 * the rest of the run). */
	for (unsigned k = 0; r == 0 && res > 0 && k < FSLAB_CACHE_FADVISE_RETRIES; k++) {
		long ns = FSLAB_CACHE_FADVISE_WAIT_NS << (2 * k);

		if (c->wait)
			c->wait(c->wait_ctx, k, ns);
		else
			nanosleep(&(struct timespec){ .tv_nsec = ns }, NULL);
		r = -posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		if (r == 0)
			r = fslab_cache_resident(fd, &res, &pages);
		if (r == 0 && res == 0)
			cache_note_retry(c);
	}
	if (r == 0 && res == 0)
		return 0;
	if (r < 0)
		snprintf(reason, sizeof(reason), "cannot check that fadvise dropped the file (mmap/mincore: %s)",
			 strerror(-r));
	else
		snprintf(reason, sizeof(reason),
			 "posix_fadvise(DONTNEED) left %llu of %llu pages of the file resident",
			 (unsigned long long)res, (unsigned long long)pages);
	cache_fall_back(c, reason);
	return 1;
}

/* A tree of files (the many-files tests'): each regular file in dfd and
 * in its directories, depth levels down, flushed and dropped as one file
 * is.  The same returns as cache_fadvise_file: on a fall back the walk
 * stops (the fallback drops them all at once). */
static int cache_fadvise_tree(struct fslab_cache_ctl *c, int dfd, const char *path, unsigned depth,
			      struct fslab_err *e)
{
	int dup_fd = dup(dfd), r = 0;
	DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	struct dirent *de;

	if (!d) {
		r = fslab_err_set(e, errno, "cold mode: cannot read the directory %s: %s", path, strerror(errno));
		if (dup_fd >= 0)
			close(dup_fd);
		return r;
	}
	while (r == 0 && (errno = 0, de = readdir(d))) {
		struct stat st;
		int fd;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		fd = openat(dfd, de->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) < 0) {
			r = fslab_err_set(e, errno, "cold mode: cannot open %s/%s: %s", path, de->d_name,
					  strerror(errno));
		} else if (S_ISDIR(st.st_mode) && depth > 0) {
			r = cache_fadvise_tree(c, fd, de->d_name, depth - 1, e);
		} else if (S_ISREG(st.st_mode)) {
			if (fsync(fd) < 0) {
				r = fslab_err_set(e, errno, "cold mode: fsync %s/%s: %s", path, de->d_name,
						  strerror(errno));
			} else {
				r = cache_fadvise_file(c, fd, de->d_name, e);
				/* no fallback: the rest dropped as well as fadvise can */
				if (r == 1 && c->method == FSLAB_DROP_FADVISE)
					r = 0;
			}
		}
		if (fd >= 0)
			close(fd);
	}
	if (r == 0 && errno)
		r = fslab_err_set(e, errno, "cold mode: cannot read the directory %s: %s", path, strerror(errno));
	closedir(d);
	return r;
}

/* The depth of the many-files tests' tree below its own directory. */
#define CACHE_TREE_DEPTH 1

/* fadvise on the file, or on every file of the tree when fd is a
 * directory; then the loop device's backing file.  0, 1 when the
 * filesystem fell back to another method, or -errno. */
static int cache_fadvise(struct fslab_cache_ctl *c, int fd, const char *path, struct fslab_err *e)
{
	struct stat st;
	int r;

	if (fstat(fd, &st) < 0)
		return fslab_err_set(e, errno, "cold mode: stat %s: %s", path, strerror(errno));
	r = S_ISDIR(st.st_mode) ? cache_fadvise_tree(c, fd, path, CACHE_TREE_DEPTH, e)
				: cache_fadvise_file(c, fd, path, e);
	if (r != 0 || c->forced)
		return r;
	if (c->backing[0] && (r = cache_drop_backing(c)) < 0) {
		char reason[PATH_MAX + 96];
		snprintf(reason, sizeof(reason), "cannot drop the pages of the loop device's backing file %s: %s",
			 c->backing, strerror(-r));
		c->backing[0] = '\0';
		cache_fall_back(c, reason);
		return 1;
	}
	return 0;
}

bool fslab_cache_drop_sure(const struct fslab_cache_ctl *c)
{
	return c->method != FSLAB_DROP_FADVISE || !(c->forced || c->leaky);
}

int fslab_cache_drop(void *ctx, int *dir_fd, const char *path, struct fslab_err *e)
{
	struct fslab_cache_ctl *c = ctx;
	char why[FSLAB_ERR_MSG_MAX] = "";
	int fd = -1, r;

	r = cache_flush_file(*dir_fd, path, c->method == FSLAB_DROP_CACHES, &fd, e);
	if (r < 0)
		return r;
	if (c->method == FSLAB_DROP_FADVISE && !c->forced && !c->checked)
		cache_check_fs(c, fd);
	if (c->method == FSLAB_DROP_FADVISE) {
		r = cache_fadvise(c, fd, path, e);
		if (r <= 0 || c->method == FSLAB_DROP_FADVISE) {
			close(fd);
			return r < 0 ? r : 0;
		}
		/* fell back: drop this time by the fallback too */
	}
	switch (c->method) {
	case FSLAB_DROP_CACHES: {
		int dfd;

		close(fd);
		r = 0;
		dfd = open(DROP_CACHES_PATH, O_WRONLY | O_CLOEXEC);
		if (dfd < 0)
			r = -errno;
		else if (write(dfd, "1\n", 2) != 2)
			r = errno ? -errno : -EIO;
		if (r < 0)
			fslab_err_set(e, r, "cold mode: cannot write %s: %s", DROP_CACHES_PATH, strerror(-r));
		if (dfd >= 0)
			close(dfd);
		return r;
	}
	case FSLAB_DROP_REMOUNT:
		close(fd);
		if (c->release)
			c->release(c->hold_ctx);
		/* the target's remount (lib/target.h) says why in a buffer */
		r = c->target ? c->target->remount(c->target->remount_ctx, c->target->name, why, sizeof(why))
			      : -ENOTSUP;
		if (r < 0 && c->target)
			fslab_err_set(e, r, "%s", why);
		if (r == 0 && c->dev) {
			struct stat st;
			if (stat(c->target->path, &st) == 0)
				*c->dev = st.st_dev;
		}
		if (r < 0 && !c->target)
			fslab_err_set(e, r, "cold mode: no remount for this filesystem: %s", strerror(-r));
		if (c->reopen) {
			int r2 = c->reopen(c->hold_ctx, dir_fd, r < 0 ? NULL : e);
			if (r == 0)
				r = r2;
		}
		return r;
	case FSLAB_DROP_FADVISE:
		break;
	}
	close(fd);
	return -EINVAL;
}
