/* setup -> status -> use -> teardown on sparse images and on a loop device
 * given with --device; the lab mount API; failed mkfs and failed mount are
 * undone by teardown. */
#include "lab_mount.h"
#include "provtest.h"
#include "state.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const fs_names[] = { "ext4", "ext2", "xfs", "fat32", "btrfs" };

/* Writes 1 MiB of a pattern to DIR/NAME/probe.bin, reads it back. */
static void write_read_back(const char *mnt, const char *name)
{
	char path[PATH_MAX];
	static unsigned char buf[1 << 20], back[1 << 20];
	int fd;

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)(i * 7 + name[0]);
	snprintf(path, sizeof(path), "%s/%s/probe.bin", mnt, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
	ck_assert_int_eq(write(fd, buf, sizeof(buf)), (ssize_t)sizeof(buf));
	ck_assert_int_eq(fsync(fd), 0);
	ck_assert_int_eq(close(fd), 0);
	fd = open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(read(fd, back, sizeof(back)), (ssize_t)sizeof(back));
	close(fd);
	ck_assert_msg(memcmp(buf, back, sizeof(buf)) == 0, "%s: read back differs", path);
}

static void check_partition_with_blkid(const char *dev, const char *type, const char *name,
				       const char *extra)
{
	const char *argv[] = { "/usr/sbin/blkid", "-p", "-o", "export", dev, NULL };
	struct ft_output o;
	char want[128];

	ck_assert_int_eq(ft_run(argv, NULL, &o), 0);
	ck_assert_msg(o.status == 0, "blkid %s: %s", dev, o.err);
	snprintf(want, sizeof(want), "\nTYPE=%s\n", type);
	ck_assert_msg(strstr(o.out, want), "%s: no %s in\n%s", dev, want, o.out);
	snprintf(want, sizeof(want), "PART_ENTRY_NAME=%s\n", name);
	ck_assert_msg(strstr(o.out, want), "%s: no %s in\n%s", dev, want, o.out);
	ck_assert_msg(strstr(o.out, "PART_ENTRY_SCHEME=gpt\n"), "%s: not GPT:\n%s", dev, o.out);
	if (extra)
		ck_assert_msg(strstr(o.out, extra), "%s: no %s in\n%s", dev, extra, o.out);
	ft_output_free(&o);
}

/* Whether the filesystem holding path can do direct I/O (tmpfs cannot). */
static bool image_dir_does_direct_io(const char *path)
{
	char *probe;
	int fd;

	ck_assert_int_ge(asprintf(&probe, "%s.dio", path), 0);
	fd = open(probe, O_RDWR | O_CREAT | O_EXCL | O_DIRECT | O_CLOEXEC, 0600);
	if (fd >= 0) {
		close(fd);
		unlink(probe);
	}
	free(probe);
	return fd >= 0;
}

/* /sys/block/loopN/loop/dio of /dev/loopN: 1, 0, or -1 when unreadable. */
static int loop_sysfs_dio(const char *dev)
{
	char path[128], v[4] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/sys/block/%.64s/loop/dio", dev + strlen("/dev/"));
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (!fgets(v, sizeof(v), f))
		v[0] = '\0';
	fclose(f);
	return v[0] == '1' ? 1 : v[0] == '0' ? 0 : -1;
}

START_TEST(image_setup_status_use_teardown)
{
	struct pt_env e;
	struct ft_output o;
	struct fslab_state st;
	struct stat sb;
	struct fslab_err err = FSLAB_ERR_INIT;

	pt_env_init(&e);
	ck_assert_int_eq(pt_setup_image(&e, &o, NULL), 0);
	pt_assert_result(&o, 0, NULL);
	/* one progress line per step */
	ck_assert_ptr_nonnull(strstr(o.out, "partitioning"));
	ck_assert_ptr_nonnull(strstr(o.out, "formatting"));
	ck_assert_ptr_nonnull(strstr(o.out, "(4/5)"));
	ck_assert_ptr_nonnull(strstr(o.out, "mounting"));
	ft_output_free(&o);

	ck_assert_int_eq(stat(e.state, &sb), 0);
	ck_assert_uint_eq(sb.st_mode & 0777, 0600);
	ck_assert_msg(fslab_state_load(e.state, &st, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(st.phase, FSLAB_PHASE_READY);
	ck_assert_str_eq(st.image, e.image);
	ck_assert(st.image_created);
	ck_assert_uint_eq(st.n_partitions, 5);
	ck_assert_int_eq(strncmp(st.disk, "/dev/loop", 9), 0);
	for (int i = 0; i < 5; i++) {
		const struct fslab_state_partition *p = &st.partitions[i];
		char mp[PATH_MAX];

		ck_assert_str_eq(p->name, fs_names[i]);
		snprintf(mp, sizeof(mp), "%s/%s", e.mnt, fs_names[i]);
		ck_assert_str_eq(p->mountpoint, mp);
		ck_assert(p->formatted);
		ck_assert_int_eq(p->mount_method,
				 fslab_lab_mount_method_for(p->type));
		ck_assert_int_ne(p->mount_method, FSLAB_MOUNT_NONE);
	}
	check_partition_with_blkid(st.partitions[3].device, "vfat", "fat32",
				   "PART_ENTRY_TYPE=ebd0a0a2-b9e5-4433-87c0-68b6b72699c7");
	check_partition_with_blkid(st.partitions[3].device, "vfat", "fat32", "VERSION=FAT32");
	check_partition_with_blkid(st.partitions[2].device, "xfs", "xfs",
				   "PART_ENTRY_TYPE=0fc63daf-8483-4772-8e79-3d69d8477de4");

	/* ext4 and ext2 made without lazy initialisation, the command kept */
	for (int i = 0; i < 2; i++)
		ck_assert_msg(strstr(st.partitions[i].mkfs_command, "lazy_itable_init=0,lazy_journal_init=0") &&
				      strstr(st.partitions[i].mkfs_command, st.partitions[i].device),
			      "%s: mkfs command '%s'", st.partitions[i].name, st.partitions[i].mkfs_command);
	/* the loop device does direct I/O wherever the image's filesystem can */
	bool direct = image_dir_does_direct_io(e.image);
	ck_assert_int_eq(loop_sysfs_dio(st.disk), direct);
	ck_assert_str_eq(st.loop_io, direct ? "direct" : "buffered");

	ck_assert_int_eq(ft_fslab(&o, "status", "--state", e.state, NULL), 0);
	pt_assert_result(&o, 0, NULL);
	for (int i = 0; i < 5; i++)
		ck_assert_ptr_nonnull(strstr(o.out, fs_names[i]));
	ck_assert_msg(strstr(o.out, direct ? "loop device: direct I/O" : "loop device: buffered"), "%s", o.out);
	ft_output_free(&o);
	ck_assert_int_eq(ft_fslab(&o, "status", "--state", e.state, "--json", NULL), 0);
	pt_assert_result(&o, 0, NULL);
	ck_assert_ptr_nonnull(strstr(o.out, "\"ok\":true"));
	ck_assert_msg(strstr(o.out, direct ? "\"loop_io\":\"direct\"" : "\"loop_io\":\"buffered\""), "%s", o.out);
	ft_output_free(&o);

	for (int i = 0; i < 5; i++)
		write_read_back(e.mnt, fs_names[i]);

	pt_teardown_ok(&e);
	pt_assert_nothing_left(&e, NULL);
	ck_assert_msg(stat(e.mnt, &sb) != 0, "mount root %s left behind", e.mnt);
}
END_TEST

START_TEST(device_setup_teardown_leaves_blank_disk)
{
	struct pt_env e;
	struct ft_loop l;
	struct ft_output o;
	struct fslab_state st;
	struct fslab_err err = FSLAB_ERR_INIT;

	pt_env_init(&e);
	ck_assert_int_eq(ft_loop_create(&l, e.dir, 600ull << 20), 0);
	ck_assert_int_eq(pt_setup_device(&e, l.device, &o, "--yes", NULL), 0);
	pt_assert_result(&o, 0, NULL);
	ft_output_free(&o);
	ck_assert_msg(fslab_state_load(e.state, &st, &err) == 0, "%s", err.msg);
	ck_assert_str_eq(st.disk, l.device);
	ck_assert_str_eq(st.image, "");
	{
		char want[80];
		snprintf(want, sizeof(want), "%sp1", l.device);
		ck_assert_str_eq(st.partitions[0].device, want);
	}
	check_partition_with_blkid(st.partitions[0].device, "ext4", "ext4", NULL);
	check_partition_with_blkid(st.partitions[4].device, "btrfs", "btrfs", NULL);
	write_read_back(e.mnt, "btrfs");

	pt_teardown_ok(&e);
	ck_assert_int_eq(ft_mounts_under(e.dir), 0);
	ck_assert_msg(!pt_blkid_finds_something(l.device), "blkid finds something on %s", l.device);
	/* the partitions are gone from the kernel, the user's loop device stays */
	{
		char p1[160];
		struct stat sb;
		snprintf(p1, sizeof(p1), "/sys/class/block/%sp1", l.device + 5);
		ck_assert_msg(stat(p1, &sb) != 0, "%s still there", p1);
		ck_assert_int_eq(ft_loops_under(e.dir), 1);
	}
	ft_loop_destroy(&l);
}
END_TEST

START_TEST(keep_image_leaves_a_blank_image)
{
	struct pt_env e;
	struct ft_output o;
	struct stat sb;

	pt_env_init(&e);
	pt_setup_image_ok(&e);
	ck_assert_int_eq(ft_fslab(&o, "teardown", "--state", e.state, "--keep-image", NULL), 0);
	pt_assert_result(&o, 0, NULL);
	ft_output_free(&o);
	ck_assert_int_eq(stat(e.image, &sb), 0);
	ck_assert_uint_eq((uint64_t)sb.st_size, PT_SMALL_BYTES);
	ck_assert_int_eq(ft_loops_under(e.dir), 0);
	ck_assert_int_eq(ft_mounts_under(e.dir), 0);
	ck_assert_msg(!pt_blkid_finds_something(e.image), "blkid finds something on the image");

	/* a blank image is reused: it is not new, so it must be confirmed */
	ck_assert_int_eq(pt_setup_image(&e, &o, NULL), 0);
	pt_assert_result(&o, 1, "--yes");
	ft_output_free(&o);
	ck_assert_int_eq(pt_setup_image(&e, &o, "--yes", NULL), 0);
	pt_assert_result(&o, 0, NULL);
	ft_output_free(&o);
	pt_teardown_ok(&e);
	/* reused, not created: kept */
	ck_assert_int_eq(stat(e.image, &sb), 0);
	unlink(e.image);
	pt_assert_nothing_left(&e, NULL);
}
END_TEST

START_TEST(status_names_damage)
{
	struct pt_env e;
	struct ft_output o;
	char mp[PATH_MAX];

	pt_env_init(&e);
	pt_setup_image_ok(&e);
	snprintf(mp, sizeof(mp), "%s/ext2", e.mnt);
	ck_assert_int_eq(umount(mp), 0);
	ck_assert_int_eq(ft_fslab(&o, "status", "--state", e.state, NULL), 0);
	pt_assert_result(&o, 1, "not mounted");
	ck_assert_ptr_nonnull(strstr(o.err, "ext2"));
	ft_output_free(&o);
	ck_assert_int_eq(ft_fslab(&o, "status", "--state", e.state, "--json", NULL), 0);
	ck_assert_int_eq(o.status, 1);
	ck_assert_ptr_nonnull(strstr(o.out, "\"ok\":false"));
	ft_output_free(&o);
	/* the wrong filesystem (here: none) on a partition */
	{
		struct fslab_state st;
		struct fslab_err err2 = FSLAB_ERR_INIT;
		ck_assert_msg(fslab_state_load(e.state, &st, &err2) == 0, "%s", err2.msg);
		const char *argv[] = { "/usr/sbin/wipefs", "--all", "--quiet", st.partitions[1].device,
				       NULL };
		ck_assert_int_eq(ft_run(argv, NULL, &o), 0);
		ck_assert_int_eq(o.status, 0);
		ft_output_free(&o);
		ck_assert_int_eq(ft_fslab(&o, "status", "--state", e.state, NULL), 0);
		pt_assert_result(&o, 1, "expected ext2");
		ft_output_free(&o);
		/* a partition gone from the kernel */
		ck_assert_int_eq(ft_blkpg_del(st.disk, 2), 0);
		ck_assert_int_eq(ft_fslab(&o, "status", "--state", e.state, NULL), 0);
		pt_assert_result(&o, 1, "is missing");
		ft_output_free(&o);
	}
	/* a second setup on the same state is refused */
	ck_assert_int_eq(pt_setup_image(&e, &o, NULL), 0);
	pt_assert_result(&o, 1, "already set up");
	ft_output_free(&o);
	pt_teardown_ok(&e);
	pt_assert_nothing_left(&e, NULL);
	ck_assert_int_eq(ft_fslab(&o, "status", "--state", e.state, NULL), 0);
	pt_assert_result(&o, 1, "no lab");
	ft_output_free(&o);
}
END_TEST

/* Rewrites the 4 bytes at off of dev: v = f(v). */
static uint32_t poke32(const char *dev, uint64_t off, uint32_t and_mask, uint32_t or_mask)
{
	int fd = open(dev, O_RDWR | O_CLOEXEC);
	uint32_t v;

	ck_assert_msg(fd >= 0, "%s: %s", dev, strerror(errno));
	ck_assert_int_eq(pread(fd, &v, 4, (off_t)off), 4);
	v = (v & and_mask) | or_mask;
	ck_assert_int_eq(pwrite(fd, &v, 4, (off_t)off), 4);
	ck_assert_int_eq(fsync(fd), 0);
	close(fd);
	return v;
}

static uint16_t peek16(const char *dev, uint64_t off)
{
	int fd = open(dev, O_RDONLY | O_CLOEXEC);
	uint16_t v = 0;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pread(fd, &v, 2, (off_t)off), 2);
	close(fd);
	return v;
}

/* What a fusefat killed in the middle of a write leaves (the FAT's clean
 * bit clear) and an ext2 the kernel met errors in: status names the
 * filesystem, what is wrong and the fix, and exits 1; FSInfo's free count
 * on a mounted FAT32 is a hint, not damage (test_fat_status: the count on
 * the unmounted one). */
START_TEST(status_names_damaged_filesystems)
{
	struct pt_env e;
	struct ft_output o;
	struct fslab_state st;
	struct fslab_err err = FSLAB_ERR_INIT;
	char mp[PATH_MAX];
	const struct fslab_state_partition *fat = NULL, *ext2 = NULL;

	pt_env_init(&e);
	pt_setup_image_ok(&e);
	ck_assert_msg(fslab_state_load(e.state, &st, &err) == 0, "%s", err.msg);
	for (size_t i = 0; i < st.n_partitions; i++) {
		if (st.partitions[i].type == FSLAB_FS_FAT32)
			fat = &st.partitions[i];
		if (st.partitions[i].type == FSLAB_FS_EXT2)
			ext2 = &st.partitions[i];
	}
	ck_assert(fat && ext2);
	/* a fresh lab, written to through the mount, is clean */
	write_read_back(e.mnt, "fat32");
	ck_assert_int_eq(ft_fslab(&o, "status", "--state", e.state, NULL), 0);
	pt_assert_result(&o, 0, NULL);
	ck_assert_msg(strstr(o.out, "clean") && !strstr(o.out, "damaged"), "%s", o.out);
	ft_output_free(&o);

	uint64_t bps = peek16(fat->device, 0x0b), reserved = peek16(fat->device, 0x0e),
		 fsinfo = peek16(fat->device, 0x30);
	if (fat->mount_method == FSLAB_MOUNT_FUSE) {
		/* mounted, through fusefat: FSInfo's free count is a hint it
		 * writes at unmount; one cluster off is not damage */
		uint32_t said = poke32(fat->device, fsinfo * bps + 488, 0xffffffff, 0);
		poke32(fat->device, fsinfo * bps + 488, 0, said + 1);
		ck_assert_int_eq(ft_fslab(&o, "status", "--state", e.state, NULL), 0);
		pt_assert_result(&o, 0, NULL);
		ft_output_free(&o);
		poke32(fat->device, fsinfo * bps + 488, 0, said);
	}
	/* unmounted (fusefat gone cleanly), then its clean bit cleared as a
	 * killed one leaves it */
	snprintf(mp, sizeof(mp), "%s/fat32", e.mnt);
	ck_assert_int_eq(umount(mp), 0);
	/* fusefat sets the bit as it exits, after umount returned */
	for (int i = 0; i < 500 && !(poke32(fat->device, reserved * bps + 4, 0xffffffff, 0) & 0x08000000); i++)
		usleep(10000);
	poke32(fat->device, reserved * bps + 4, ~0x08000000u, 0);
	/* ext2, unmounted, with errors recorded in its superblock */
	snprintf(mp, sizeof(mp), "%s/ext2", e.mnt);
	ck_assert_int_eq(umount(mp), 0);
	poke32(ext2->device, 1024 + 0x194, 0, 3);
	ck_assert_int_eq(ft_fslab(&o, "status", "--state", e.state, NULL), 0);
	pt_assert_result(&o, 1, "dirty bit set in the FAT");
	ck_assert_msg(strstr(o.err, "damaged filesystem: [fat32]") &&
			      strstr(o.err, "damaged filesystem: [ext2]") &&
			      strstr(o.err, "met 3 errors"),
		      "%s", o.err);
	ft_output_free(&o);
	pt_teardown_ok(&e);
	pt_assert_nothing_left(&e, NULL);
}
END_TEST

/* The benchmark engine's cold-cache remount: unmount and mount again with
 * the same method; data written before survives (the FUSE daemon flushed
 * before the unmount returned). */
START_TEST(lab_mount_api_remounts_kernel_and_fuse)
{
	struct pt_env e;
	struct fslab_state st;
	struct fslab_err err = FSLAB_ERR_INIT;

	pt_env_init(&e);
	pt_setup_image_ok(&e);
	ck_assert_msg(fslab_state_load(e.state, &st, &err) == 0, "%s", err.msg);
	for (int i = 0; i < 5; i++) {
		const struct fslab_state_partition *p = &st.partitions[i];

		write_read_back(e.mnt, p->name);
		ck_assert_int_eq(fslab_lab_unmount(&st, p, NULL), 0);
		ck_assert_int_eq(ft_mounts_under(p->mountpoint), 0);
		ck_assert_int_eq(fslab_lab_unmount(&st, p, NULL), 0); /* not mounted: fine */
		ck_assert_int_eq(fslab_lab_mount(&st, p, NULL), 0);
		ck_assert_int_eq(fslab_lab_mount(&st, p, NULL), -EBUSY);
		{
			char path[PATH_MAX];
			struct stat sb;
			snprintf(path, sizeof(path), "%s/probe.bin", p->mountpoint);
			ck_assert_int_eq(stat(path, &sb), 0);
			ck_assert_int_eq(sb.st_size, 1 << 20);
		}
	}
	pt_teardown_ok(&e);
	pt_assert_nothing_left(&e, NULL);
}
END_TEST

/* A tool dir with every real mkfs and fusefat, and a failing mkfs.xfs. */
static void make_tool_dir(struct pt_env *e, char *dir, size_t len, const char *fake_xfs)
{
	static const char *const tools[] = { "mkfs.ext4", "mkfs.ext2", "mkfs.xfs", "mkfs.fat",
					     "mkfs.btrfs", "fusefat" };
	char link[PATH_MAX + 32], target[PATH_MAX];

	snprintf(dir, len, "%s/tools", e->dir);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		snprintf(link, sizeof(link), "%s/%s", dir, tools[i]);
		snprintf(target, sizeof(target), "/usr/sbin/%s", tools[i]);
		if (access(target, X_OK) != 0)
			snprintf(target, sizeof(target), "/usr/bin/%s", tools[i]);
		if (fake_xfs && strcmp(tools[i], "mkfs.xfs") == 0) {
			ck_assert_int_eq(ft_write_file(link, fake_xfs), 0);
			ck_assert_int_eq(chmod(link, 0755), 0);
		} else {
			ck_assert_int_eq(symlink(target, link), 0);
		}
	}
}

START_TEST(failed_mkfs_is_undone_by_teardown)
{
	struct pt_env e;
	struct ft_output o;
	char tools[PATH_MAX];

	pt_env_init(&e);
	make_tool_dir(&e, tools, sizeof(tools),
		      "#!/bin/sh\necho 'fake mkfs.xfs: refusing for the test' >&2\nexit 1\n");
	setenv("FSLAB_TOOL_PATH", tools, 1);
	ck_assert_int_eq(pt_setup_image(&e, &o, NULL), 0);
	unsetenv("FSLAB_TOOL_PATH");
	pt_assert_result(&o, 1, "fake mkfs.xfs: refusing for the test");
	ck_assert_ptr_nonnull(strstr(o.err, "fslab teardown"));
	ft_output_free(&o);
	pt_teardown_ok(&e);
	pt_assert_nothing_left(&e, NULL);
}
END_TEST

START_TEST(failed_mount_is_undone_by_teardown)
{
	struct pt_env e;
	struct ft_output o;

	pt_env_init(&e);
	ck_assert_int_eq(ft_write_file(e.spec, "[fs ext4]\nsize = 32M\n"
					       "[fs xfs]\nsize = 300M\nmount_options = logbufs=1\n"),
			 0);
	ck_assert_int_eq(pt_setup_image(&e, &o, NULL), 0);
	pt_assert_result(&o, 1, "mount");
	ck_assert_ptr_nonnull(strstr(o.err, "fslab teardown"));
	ft_output_free(&o);
	ck_assert_int_eq(ft_mounts_under(e.dir), 1); /* ext4 made it */
	pt_teardown_ok(&e);
	pt_assert_nothing_left(&e, NULL);
}
END_TEST

/* The image deleted under a running lab: teardown still finds the loop
 * device (it holds the deleted file), unmounts and detaches. */
START_TEST(image_deleted_under_the_lab)
{
	struct pt_env e;

	pt_env_init(&e);
	pt_setup_image_ok(&e);
	ck_assert_int_eq(unlink(e.image), 0);
	pt_teardown_ok(&e);
	ck_assert_int_eq(ft_mounts_under(e.dir), 0);
	pt_assert_nothing_left(&e, NULL);
}
END_TEST

/* After a reboot the loop device and the mounts are gone: teardown works
 * on the image file itself, wiping every partition's filesystem inside it
 * as well as the table. */
START_TEST(image_lab_after_a_reboot)
{
	struct pt_env e;
	struct ft_output o;
	struct fslab_state st;
	struct fslab_err err = FSLAB_ERR_INIT;

	pt_env_init(&e);
	pt_setup_image_ok(&e);
	ck_assert_msg(fslab_state_load(e.state, &st, &err) == 0, "%s", err.msg);
	/* "reboot": everything below the test dir unmounted and detached */
	ft_cleanup_under_keep(e.dir);
	ck_assert_int_eq(ft_mounts_under(e.dir), 0);
	ck_assert_int_eq(ft_loops_under(e.dir), 0);
	ck_assert_int_eq(ft_fslab(&o, "teardown", "--state", e.state, "--keep-image", NULL), 0);
	pt_assert_result(&o, 0, NULL);
	ft_output_free(&o);
	ck_assert(!pt_blkid_finds_something(e.image));
	for (size_t i = 0; i < st.n_partitions; i++) {
		char off[32];
		const char *argv[] = { "/usr/sbin/blkid", "-p", "-O", off, e.image, NULL };

		snprintf(off, sizeof(off), "%llu", (unsigned long long)st.partitions[i].start_sector * 512);
		ck_assert_int_eq(ft_run(argv, NULL, &o), 0);
		ck_assert_msg(o.status == 2, "blkid finds %s in the image at %s:\n%s", st.partitions[i].name,
			      off, o.out);
		ft_output_free(&o);
	}
	unlink(e.image);
	pt_assert_nothing_left(&e, NULL);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("provision lifecycle");
	TCase *tc = pt_tcase(s, "lifecycle", FT_LAB, 120);

	tcase_add_test(tc, image_setup_status_use_teardown);
	tcase_add_test(tc, device_setup_teardown_leaves_blank_disk);
	tcase_add_test(tc, keep_image_leaves_a_blank_image);
	tcase_add_test(tc, status_names_damage);
	tcase_add_test(tc, status_names_damaged_filesystems);
	tcase_add_test(tc, lab_mount_api_remounts_kernel_and_fuse);
	tcase_add_test(tc, failed_mkfs_is_undone_by_teardown);
	tcase_add_test(tc, failed_mount_is_undone_by_teardown);
	tcase_add_test(tc, image_deleted_under_the_lab);
	tcase_add_test(tc, image_lab_after_a_reboot);
	return ft_suite_run(s, argc, argv);
}
