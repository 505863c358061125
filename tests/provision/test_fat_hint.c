/* fusefat's next-free hint (provision/fshealth.h, fslab_lab_mount): a FAT32
 * lab partition whose FSInfo sector says to allocate from past 2 GiB, as an
 * earlier run leaves it, takes a new directory with files in it once fslab
 * has mounted it, and keeps them across fslab's remount.  fusefat 0.1a
 * reads no directory 2 GiB or more into its partition: without the rewind
 * the new directory is made but no file can be made in it (ENOENT), nor a
 * directory (EPERM). */
#include "lab_mount.h"
#include "state.h"
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[] = "/var/tmp/fslab-fathint.XXXXXX";

static uint32_t rd32(int fd, off_t off, unsigned width)
{
	unsigned char b[4] = { 0 };

	ck_assert_int_eq(pread(fd, b, width, off), (ssize_t)width);
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* Sets the FSInfo sector's next-free hint of the FAT32 volume on dev to
 * the first cluster at least `at` bytes into it, as a run that wrote that
 * much leaves it. */
static void hint_past(const char *dev, uint64_t at)
{
	int fd = open(dev, O_RDWR);

	ck_assert_int_ge(fd, 0);
	uint32_t bps = rd32(fd, 0x0b, 2), spc = rd32(fd, 0x0d, 1), reserved = rd32(fd, 0x0e, 2);
	uint32_t nfats = rd32(fd, 0x10, 1), fatsz = rd32(fd, 0x24, 4), fsinfo = rd32(fd, 0x30, 2);
	uint64_t data = ((uint64_t)reserved + (uint64_t)nfats * fatsz) * bps;
	uint32_t clus = (uint32_t)(2 + (at - data + (uint64_t)spc * bps - 1) / ((uint64_t)spc * bps));
	unsigned char b[4] = { clus & 0xff, clus >> 8 & 0xff, clus >> 16 & 0xff, clus >> 24 };

	ck_assert_uint_eq(rd32(fd, (off_t)fsinfo * bps + 484, 4), 0x61417272);
	ck_assert_int_eq(pwrite(fd, b, 4, (off_t)fsinfo * bps + 492), 4);
	ck_assert_int_eq(fsync(fd), 0);
	close(fd);
}

/* mkdir run, run/tree, a file in each; errno of the first step that
 * failed, or 0. */
static int make_tree(const char *mnt)
{
	static const char *const dirs[] = { "run", "run/tree" };
	static const char *const files[] = { "run/testfile", "run/tree/f0" };
	char path[PATH_MAX + 64];

	for (size_t i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", mnt, dirs[i]);
		if (mkdir(path, 0755) < 0)
			return errno;
		snprintf(path, sizeof(path), "%s/%s", mnt, files[i]);
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd < 0)
			return errno;
		if (write(fd, "fslab\n", 6) != 6 || close(fd) < 0)
			return errno ? errno : EIO;
	}
	return 0;
}

START_TEST(new_directory_past_2gib_hint)
{
	struct fslab_state st;
	struct fslab_state_partition p;
	struct ft_loop l = { 0 };
	struct ft_output o;
	struct stat sb;
	char path[PATH_MAX + 64];
	int mounted, made = -1, after = -1, remounted = -1;

	ck_assert_int_eq(ft_loop_create(&l, dir, 3ull << 30), 0);
	ck_assert_int_eq(ft_run((const char *const[]){ "mkfs.fat", "-F", "32", l.device, NULL }, NULL, &o), 0);
	ck_assert_msg(o.status == 0, "mkfs.fat: %s", o.err);
	ft_output_free(&o);
	hint_past(l.device, 5ull << 29); /* 2.5 GiB */
	memset(&st, 0, sizeof(st));
	memset(&p, 0, sizeof(p));
	snprintf(p.name, sizeof(p.name), "fat32");
	p.type = FSLAB_FS_FAT32;
	p.mount_method = FSLAB_MOUNT_FUSE;
	snprintf(p.device, sizeof(p.device), "%s", l.device);
	snprintf(p.mountpoint, sizeof(p.mountpoint), "%s/mnt", dir);
	ck_assert_int_eq(mkdir(p.mountpoint, 0755), 0);
	/* everything before an assertion, so a failure leaves no mount */
	mounted = fslab_lab_mount(&st, &p);
	if (mounted == 0) {
		made = make_tree(p.mountpoint);
		remounted = fslab_lab_unmount(&st, &p);
		if (remounted == 0)
			remounted = fslab_lab_mount(&st, &p);
		snprintf(path, sizeof(path), "%s/run/tree/f0", p.mountpoint);
		after = stat(path, &sb) == 0 ? (int)sb.st_size : -errno;
		ck_assert_int_eq(fslab_lab_unmount(&st, &p), 0);
	}
	ft_loop_destroy(&l);
	ck_assert_int_eq(mounted, 0);
	ck_assert_msg(made == 0, "a new directory on fusefat with the hint past 2 GiB: %s",
		      strerror(made));
	ck_assert_int_eq(remounted, 0);
	ck_assert_int_eq(after, 6);
}
END_TEST

static void setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
	ft_cleanup_under(dir);
}

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("provision fat hint");
	TCase *tc = ft_tcase(s, "fusefat", FT_ROOT | FT_FUSE | FT_MKFS_ALL);

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, new_directory_past_2gib_hint);
	return ft_suite_run(s, argc, argv);
}
