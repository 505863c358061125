/* Cold mode's page-cache control: before each read test the test file's
 * pages leave the page cache, disturbing as little else as it can:
 *   fadvise      fsync, then posix_fadvise(POSIX_FADV_DONTNEED) on the
 *                file, verified with mincore() on a mapping of the file
 *                (outside the timed region): no page of it may stay
 *                resident (pages found are asked for again a few times
 *                first: a readahead's read may still hold them).  The first choice: it drops one file, not the
 *                machine's page cache.
 * Where that does not drop (a FUSE mount, whose daemon reads its device
 * through the page cache fadvise on the file never reaches; tmpfs; pages
 * found resident after the request), the filesystem falls back, for the
 * rest of the run, to
 *   drop_caches  fsync + syncfs, then "1" into /proc/sys/vm/drop_caches
 *                (root, and /proc/sys writable), else
 *   remount      unmount and mount the filesystem again (only a target
 *                whose maker gave a remount: a lab partition).
 * The manifest records the method per filesystem (cache_drop_method) and
 * why (cache_drop_note). */
#ifndef FSLAB_BENCH_CACHE_H
#define FSLAB_BENCH_CACHE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "target.h"

/* fadvise found pages resident: it is asked again up to this many times,
 * after 1, 4 and 16 ms (21 ms in all, outside the timer). */
#define FSLAB_CACHE_FADVISE_RETRIES 3
#define FSLAB_CACHE_FADVISE_WAIT_NS 1000000L

enum fslab_drop_method {
	FSLAB_DROP_CACHES,
	FSLAB_DROP_REMOUNT,
	FSLAB_DROP_FADVISE,
};

struct fslab_cache_ctl {
	/* The method in use: fadvise until a drop finds it does not work
	 * here, then fallback (when there is one). */
	enum fslab_drop_method method;
	enum fslab_drop_method fallback;
	bool has_fallback;
	bool forced; /* FSLAB_DROP_METHOD (tests): no check, no fallback */
	bool checked; /* the filesystem type was looked at (FUSE, tmpfs) */
	/* fadvise was found not to drop here and there is no fallback: a
	 * drop may leave pages cached. */
	bool leaky;
	/* fadvise drops that found pages resident and dropped them when
	 * asked again (counted in the note). */
	unsigned retried;
	/* The wait before asking again, the k-th (from 0) of ns nanoseconds;
	 * NULL (the init's): nanosleep.  Tests set it to release what holds
	 * the pages. */
	void (*wait)(void *wait_ctx, unsigned k, long ns);
	void *wait_ctx;
	/* Why this method, for the manifest's cache_drop_note. */
	char note[PATH_MAX + 256];
	/* The backing file of the loop device (no direct I/O) the filesystem
	 * is on: its pages are dropped too.  "" when none. */
	char backing[PATH_MAX];
	/* The target (lib/target.h) whose remount the fallback calls: its
	 * name and mount point.  NULL: no remount. */
	const struct fslab_target *target;
	/* Updated with the mount point's st_dev after a remount (a FUSE
	 * mount gets a new one), so the run still knows its filesystem. */
	dev_t *dev;
	/* remount: the run holds directories open inside the mount (its
	 * private directory), which would make the unmount fail.  release
	 * closes them before the unmount; reopen opens them again after the
	 * mount (proving they are the same directories) and stores the new
	 * private directory fd in *dir_fd.  Both may be NULL. */
	void (*release)(void *hold_ctx);
	int (*reopen)(void *hold_ctx, int *dir_fd, char *why, size_t whylen);
	void *hold_ctx;
};

/* Picks the method for one filesystem, the target t (remount the last
 * resort when t has one); buffered_loop_backing: the backing file of the
 * loop device without direct I/O the filesystem is on, whose pages are
 * dropped too; NULL or "" when there is none. */
void fslab_cache_ctl_init(struct fslab_cache_ctl *c, const struct fslab_target *t,
			  const char *buffered_loop_backing);
const char *fslab_drop_method_name(enum fslab_drop_method m);

/* The loop device a filesystem is on, from its block device node (a loop
 * device or a partition of one; fs_dev, the directory's st_dev, when device
 * is no block device node): its backing file (the kernel's path, from
 * sysfs) into backing and whether it does direct I/O (false: it reads its
 * backing file through the host's page cache).  False when on no loop. */
bool fslab_loop_of_device(const char *device, dev_t fs_dev, char *backing, size_t len, bool *direct);

/* Pages of the open file fd resident in the page cache (mincore on a
 * read-only mapping; the file's size from fstat): 0 or -errno. */
int fslab_cache_resident(int fd, uint64_t *resident, uint64_t *pages);

/* Matches struct fslab_cell's drop_cache: ctx is a struct fslab_cache_ctl;
 * the test file is name in the directory *dir_fd (a directory: every file
 * in it and in its directories, the many-files tests' tree).  The one cache drop of
 * fslab run: the cold-mode tests and the device probe (bench/probe.c). */
int fslab_cache_drop(void *ctx, int *dir_fd, const char *name, char *why, size_t whylen);

/* Does a drop by c's method (as it stands after the drops so far) leave
 * none of the file's pages cached?  False for an unchecked fadvise
 * (FSLAB_DROP_METHOD=fadvise) and for fadvise found not to drop with no
 * fallback. */
bool fslab_cache_drop_sure(const struct fslab_cache_ctl *c);

#endif
