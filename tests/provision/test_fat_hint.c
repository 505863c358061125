/* fusefat's next-free hint (provision/fshealth.h, fslab_lab_mount,
 * fslab_lab_fuse_refresh).  fusefat 0.1a hands out clusters upwards from
 * FSInfo's hint and reads no directory 2 GiB or more into its partition.
 * A FAT32 lab partition whose FSInfo says to allocate from past 2 GiB, as
 * an earlier run leaves it, takes a new directory with files in it once
 * fslab has mounted it (without the rewind the directory is made but no
 * file in it: ENOENT); and a run on a fusefat that has allocated past
 * 2 GiB since it started gets a working private directory (without the
 * remount before the run every cell fails: "open testfile: No such file
 * or directory"). */
#include "lab_mount.h"
#include "state.h"
#include "testutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/loop.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <stdbool.h>
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

/* Everything below dir (mounts, loop devices, files), before a test
 * asserts and again after it. */
static void cleanup(void)
{
	static const char *const mounts[] = { "mnt/fat32", "mnt" };
	char path[PATH_MAX + 16], loops[8][64];
	int n;

	for (size_t i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, mounts[i]);
		if (umount2(path, 0) < 0)
			umount2(path, MNT_DETACH);
	}
	usleep(200000); /* a FUSE daemon lets go of its device */
	n = ft_loops_list(dir, loops, 8);
	for (int i = 0; i < n; i++) {
		int fd = open(loops[i], O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			ioctl(fd, LOOP_CLR_FD, 0);
			close(fd);
		}
	}
	ft_rm_rf(dir);
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
	mounted = fslab_lab_mount(&st, &p, NULL);
	if (mounted == 0) {
		made = make_tree(p.mountpoint);
		remounted = fslab_lab_unmount(&st, &p, NULL);
		if (remounted == 0)
			remounted = fslab_lab_mount(&st, &p, NULL);
		snprintf(path, sizeof(path), "%s/run/tree/f0", p.mountpoint);
		after = stat(path, &sb) == 0 ? (int)sb.st_size : -errno;
		ck_assert_int_eq(fslab_lab_unmount(&st, &p, NULL), 0);
	}
	ft_loop_destroy(&l);
	cleanup();
	ck_assert_int_eq(mounted, 0);
	ck_assert_msg(made == 0, "a new directory on fusefat with the hint past 2 GiB: %s",
		      strerror(made));
	ck_assert_int_eq(remounted, 0);
	ck_assert_int_eq(after, 6);
}
END_TEST

/* A run on a lab whose fusefat has allocated past 2 GiB since it started
 * (started here by hand on the hint past 2 GiB: fusefat keeps its hint in
 * memory while it serves the lab): fslab run remounts it first, so the
 * run's private directory takes files. */
/* The pid of the fusefat serving dev (0: none): a remount starts another. */
static pid_t fusefat_pid(const char *dev)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	pid_t found = 0;

	ck_assert_ptr_nonnull(d);
	while (!found && (de = readdir(d))) {
		char path[300], cmd[PATH_MAX + 64];
		FILE *f;
		size_t n;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/cmdline", de->d_name);
		if (!(f = fopen(path, "r")))
			continue;
		n = fread(cmd, 1, sizeof(cmd) - 1, f);
		fclose(f);
		cmd[n] = '\0';
		if (strcmp(cmd, "fusefat") != 0)
			continue;
		for (size_t i = 0; i + 1 < n; i++)
			if (cmd[i] == '\0' && strcmp(cmd + i + 1, dev) == 0)
				found = (pid_t)atoi(de->d_name);
	}
	closedir(d);
	return found;
}

START_TEST(run_on_a_fusefat_past_2gib)
{
	char spec[PATH_MAX], img[PATH_MAX], state[PATH_MAX], root[PATH_MAX], out[PATH_MAX],
		fsname[PATH_MAX + 8], csvpath[PATH_MAX + 16], *csv = NULL;
	struct fslab_state st;
	struct ft_output o;
	int setup_rc, fuse_rc = -1, run_rc = -1, down_rc;

	snprintf(spec, sizeof(spec), "%s/spec.ini", dir);
	snprintf(img, sizeof(img), "%s/lab.img", dir);
	snprintf(state, sizeof(state), "%s/state.json", dir);
	snprintf(root, sizeof(root), "%s/mnt", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	ck_assert_int_eq(ft_write_file(spec, "[fs fat32]\ntype = fat32\nsize = 3G\n"), 0);
	ck_assert_int_eq(ft_fslab(&o, "setup", "--image", img, "--spec", spec, "--state", state,
				  "--mount-root", root, "--yes", NULL), 0);
	setup_rc = o.status;
	ft_output_free(&o);
	/* fslab_lab_unmount waits for fusefat to write its own hint back and
	 * let go of the device before the hint is set */
	if (setup_rc == 0 && fslab_state_load(state, &st, NULL) == 0 &&
	    fslab_lab_unmount(&st, &st.partitions[0], NULL) == 0) {
		const char *dev = st.partitions[0].device;

		hint_past(dev, 5ull << 29);
		snprintf(fsname, sizeof(fsname), "rw+,fsname=%s", dev);
		ck_assert_int_eq(ft_run((const char *const[]){ "fusefat", "-o", fsname, dev,
							       st.partitions[0].mountpoint, NULL },
					NULL, &o), 0);
		fuse_rc = o.status;
		ft_output_free(&o);
	}
	/* a dry run reads the lab and changes nothing: the hand-started
	 * fusefat still serves it (a remount starts another) */
	bool dry_kept = false;
	if (fuse_rc == 0) {
		pid_t before = fusefat_pid(st.partitions[0].device);

		ck_assert_int_eq(ft_fslab(&o, "run", "--state", state, "--out", out, "--tests", "write",
					  "--file-sizes", "64K", "--record-sizes", "64K", "--trials", "1",
					  "--cache", "warm", "--no-device-probe", "--dry-run", NULL),
				 0);
		dry_kept = o.status == 0 && before > 0 && fusefat_pid(st.partitions[0].device) == before;
		ft_output_free(&o);
	}
	if (fuse_rc == 0) {
		ck_assert_int_eq(ft_fslab(&o, "run", "--state", state, "--out", out, "--tests", "write",
					  "--file-sizes", "64K", "--record-sizes", "64K", "--trials", "1",
					  "--cache", "warm", "--no-device-probe", "--quiet", NULL),
				 0);
		run_rc = o.status;
		ft_output_free(&o);
		snprintf(csvpath, sizeof(csvpath), "%s/fat32.csv", out);
		csv = access(csvpath, R_OK) == 0 ? ft_read_text(csvpath) : NULL;
	}
	ck_assert_int_eq(ft_fslab(&o, "teardown", "--state", state, "--yes", NULL), 0);
	down_rc = o.status;
	ft_output_free(&o);
	cleanup();
	ck_assert_int_eq(setup_rc, 0);
	ck_assert_int_eq(fuse_rc, 0);
	ck_assert_msg(dry_kept, "fslab run --dry-run remounted the lab's fusefat");
	ck_assert_msg(run_rc == 0 && csv && strstr(csv, ",ok"), "fslab run exited %d: %s", run_rc,
		      csv ? csv : "(no fat32.csv)");
	free(csv);
	ck_assert_int_eq(down_rc, 0);
}
END_TEST

static void setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
}


int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("provision fat hint");
	TCase *tc = ft_tcase(s, "fusefat", FT_ROOT | FT_FUSE | FT_MKFS_ALL);

	tcase_add_checked_fixture(tc, setup, cleanup);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, new_directory_past_2gib_hint);
	tcase_add_test(tc, run_on_a_fusefat_past_2gib);
	return ft_suite_run(s, argc, argv);
}
