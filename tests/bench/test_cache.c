/* Cold mode's drop by fadvise (bench/engine/engine.h) on a file whose pages are
 * held for a moment: a mapping of the file keeps its pages from being
 * invalidated, as a read still in flight does.  Released at the first wait,
 * the drop asks again and succeeds, and the filesystem keeps fadvise (the
 * note counts the retry); never released, the drop gives fadvise up.  The
 * wait is the test's, so nothing depends on timing.  A directory (the
 * many-files tests' tree) read into the cache: one drop leaves none of its
 * files' pages resident.  Where looking at the cache would itself read
 * pages (valgrind), the test says so and skips. */
#include "testutil.h"

#include "engine/engine.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <linux/magic.h>

#define FILE_BYTES (256 * 1024)

static char *tmp;
static int dir_fd = -1;

struct hold {
	void *map;
	unsigned waits;
	bool release; /* at the first wait */
};

/* The test's directory: under TMPDIR, or, where that is a tmpfs (whose
 * pages are the files themselves), in the build tree (a disk). */
static void setup(void)
{
	const char *build = getenv("FSLAB_BUILD_DIR");
	struct statfs sf;

	tmp = ft_mkdtemp("fslab-cache");
	ck_assert_ptr_nonnull(tmp);
	ck_assert_int_eq(statfs(tmp, &sf), 0);
	if ((sf.f_type == TMPFS_MAGIC || sf.f_type == RAMFS_MAGIC) && build && *build) {
		ft_rm_rf(tmp);
		free(tmp);
		ck_assert_int_ge(asprintf(&tmp, "%s/test-cache.XXXXXX", build), 0);
		ck_assert_msg(mkdtemp(tmp), "mkdtemp %s: %m", tmp);
	}
	dir_fd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(dir_fd, 0);
}

static void teardown(void)
{
	if (dir_fd >= 0)
		close(dir_fd);
	dir_fd = -1;
	ft_rm_rf(tmp);
	free(tmp);
	tmp = NULL;
}

/* Can this directory's filesystem drop a file's pages at all? */
static bool drops_pages(void)
{
	struct statfs sf;

	ck_assert_int_eq(fstatfs(dir_fd, &sf), 0);
	return sf.f_type != TMPFS_MAGIC && sf.f_type != RAMFS_MAGIC;
}

/* Does looking at the cache put pages in it?  mincore needs a mapping of
 * the file, and under valgrind every mapping of a file reads its first
 * pages (valgrind looks for an ELF header), so a dropped file would be
 * seen resident again.  Written, synced and dropped with nothing mapping
 * it, a file must be seen with no page resident. */
static bool looking_reads_pages(void)
{
	static unsigned char buf[FILE_BYTES];
	uint64_t res = 0, pages = 0;
	int fd = openat(dir_fd, "probe", O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, buf, sizeof(buf)), (ssize_t)sizeof(buf));
	ck_assert_int_eq(fsync(fd), 0);
	ck_assert_int_eq(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
	ck_assert_int_eq(fslab_cache_resident(fd, &res, &pages), 0);
	close(fd);
	ck_assert_int_eq(unlinkat(dir_fd, "probe", 0), 0);
	return res > 0;
}

/* Can the drop be watched here?  Prints why not. */
static bool can_watch(void)
{
	if (!drops_pages()) {
		printf("SKIP bench_cache: %s is in memory (tmpfs): no page of it can be dropped\n", tmp);
		return false;
	}
	if (looking_reads_pages()) {
		printf("SKIP bench_cache: mapping a file to ask mincore reads its pages back (valgrind?): a drop cannot be watched\n");
		return false;
	}
	return true;
}

/* The test file, written and synced, with every page mapped and touched. */
static void *held_file(void)
{
	static unsigned char buf[FILE_BYTES];
	volatile unsigned char sum = 0;
	int fd = openat(dir_fd, "f", O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	void *map;

	ck_assert_int_ge(fd, 0);
	memset(buf, 0xA5, sizeof(buf));
	ck_assert_int_eq(write(fd, buf, sizeof(buf)), (ssize_t)sizeof(buf));
	ck_assert_int_eq(fsync(fd), 0);
	map = mmap(NULL, FILE_BYTES, PROT_READ, MAP_SHARED, fd, 0);
	ck_assert_ptr_ne(map, MAP_FAILED);
	for (size_t i = 0; i < FILE_BYTES; i += 4096)
		sum += ((volatile unsigned char *)map)[i];
	(void)sum;
	close(fd);
	return map;
}

static void hold_wait(void *ctx, unsigned k, long ns)
{
	struct hold *h = ctx;

	(void)k;
	ck_assert_int_gt(ns, 0);
	h->waits++;
	if (h->release && h->map) {
		munmap(h->map, FILE_BYTES);
		h->map = NULL;
	}
}

static uint64_t resident(void)
{
	uint64_t res = 0, pages = 0;
	int fd = openat(dir_fd, "f", O_RDONLY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fslab_cache_resident(fd, &res, &pages), 0);
	ck_assert_uint_eq(pages, FILE_BYTES / 4096);
	close(fd);
	return res;
}

/* Pages held only for a moment: asked again, they go, and fadvise stays. */
START_TEST(pages_held_for_a_moment_are_asked_again)
{
	struct fslab_cache_ctl c;
	struct hold h = { .release = true };
	struct fslab_err why = FSLAB_ERR_INIT;

	if (!can_watch())
		return;
	fslab_cache_ctl_init(&c, NULL, NULL);
	c.wait = hold_wait;
	c.wait_ctx = &h;
	h.map = held_file();
	ck_assert_uint_gt(resident(), 0);
	ck_assert_msg(fslab_cache_drop(&c, &dir_fd, "f", &why) == 0, "%s", why.msg);
	ck_assert_uint_eq(h.waits, 1);
	ck_assert_uint_eq(resident(), 0);
	ck_assert_int_eq(c.method, FSLAB_DROP_FADVISE);
	ck_assert_msg(strstr(c.note, "; 1 drops found pages still in flight"), "%s", c.note);
	/* a second one is counted in the same words, not appended again */
	h.map = held_file();
	ck_assert_int_eq(fslab_cache_drop(&c, &dir_fd, "f", &why), 0);
	ck_assert_msg(strstr(c.note, "; 2 drops found pages still in flight") &&
			      !strstr(c.note, "; 1 drops"),
		      "%s", c.note);
	ck_assert_int_eq(c.method, FSLAB_DROP_FADVISE);
}
END_TEST

/* Pages that stay: after the retries fadvise is given up, and the note
 * says how many pages were left.  No fallback here (it would empty the
 * whole machine's page cache): the filesystem is marked leaky. */
START_TEST(pages_that_stay_give_fadvise_up)
{
	struct fslab_cache_ctl c;
	struct hold h = { .release = false };
	struct fslab_err why = FSLAB_ERR_INIT;

	if (!can_watch())
		return;
	fslab_cache_ctl_init(&c, NULL, NULL);
	c.has_fallback = false;
	c.wait = hold_wait;
	c.wait_ctx = &h;
	h.map = held_file();
	ck_assert_int_eq(fslab_cache_drop(&c, &dir_fd, "f", &why), 0);
	ck_assert_uint_eq(h.waits, FSLAB_CACHE_FADVISE_RETRIES);
	ck_assert(c.leaky);
	ck_assert_msg(strstr(c.note, "pages of the file resident"), "%s", c.note);
	munmap(h.map, FILE_BYTES);
}
END_TEST

/* The many-files tests' tree, read into the page cache: one drop of the
 * directory leaves none of the pages of its files (two directories down)
 * resident, by fadvise. */
START_TEST(a_tree_is_dropped_whole)
{
	static unsigned char buf[64 * 1024];
	struct fslab_cache_ctl c;
	struct fslab_err why = FSLAB_ERR_INIT;
	char name[64];
	unsigned resident_files = 0;
	int tfd;

	if (!can_watch())
		return;
	ck_assert_int_eq(mkdirat(dir_fd, "TREE", 0700), 0);
	tfd = openat(dir_fd, "TREE", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(tfd, 0);
	for (int k = 0; k < 16; k++) {
		snprintf(name, sizeof(name), "D%03d", k / 8);
		if (k % 8 == 0)
			ck_assert_int_eq(mkdirat(tfd, name, 0700), 0);
		snprintf(name, sizeof(name), "D%03d/F%05d", k / 8, k);
		int fd = openat(tfd, name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		ck_assert_int_ge(fd, 0);
		memset(buf, 'a' + k, sizeof(buf));
		ck_assert_int_eq(write(fd, buf, sizeof(buf)), (ssize_t)sizeof(buf));
		close(fd); /* dirty: the drop flushes each file first */
	}
	fslab_cache_ctl_init(&c, NULL, NULL);
	ck_assert_msg(fslab_cache_drop(&c, &dir_fd, "TREE", &why) == 0, "%s", why.msg);
	ck_assert_msg(c.method == FSLAB_DROP_FADVISE, "fell back: %s", c.note);
	for (int k = 0; k < 16; k++) {
		uint64_t res = 0, pages = 0;

		snprintf(name, sizeof(name), "D%03d/F%05d", k / 8, k);
		int fd = openat(tfd, name, O_RDONLY | O_CLOEXEC);
		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(fslab_cache_resident(fd, &res, &pages), 0);
		ck_assert_uint_eq(pages, sizeof(buf) / 4096);
		resident_files += res > 0;
		close(fd);
	}
	close(tfd);
	ck_assert_uint_eq(resident_files, 0);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("bench_cache");
	TCase *tc = ft_tcase(s, "fadvise", 0);

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, pages_held_for_a_moment_are_asked_again);
	tcase_add_test(tc, pages_that_stay_give_fadvise_up);
	tcase_add_test(tc, a_tree_is_dropped_whole);
	return ft_suite_run(s, argc, argv);
}
