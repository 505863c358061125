/* Every safety rule of setup, each on a loop device of the test's own:
 * setup must refuse with exit 1, name the rule, and leave the disk's first
 * and last MiB byte-identical (ft_disk_fingerprint), with no state file. */
#include "prov_int.h"
#include "provtest.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static unsigned char fp_before[FT_FINGERPRINT_SIZE], fp_after[FT_FINGERPRINT_SIZE];

static void fingerprint(const char *dev, unsigned char *fp)
{
	ck_assert_msg(ft_disk_fingerprint(dev, fp) == 0, "fingerprint of %s", dev);
}

/* setup --device dev (with extra args) is refused naming `rule`, and
 * nothing on dev changed. */
#define assert_refused(e, dev, rule, ...)                                                     \
	do {                                                                                  \
		struct ft_output o_;                                                          \
		struct stat sb_;                                                              \
		fingerprint(dev, fp_before);                                                  \
		ck_assert_int_eq(pt_setup_device(e, dev, &o_, __VA_ARGS__), 0);                \
		pt_assert_result(&o_, 1, rule);                                               \
		ck_assert_msg(strstr(o_.err, "refused") != NULL, "no 'refused' in: %s", o_.err); \
		ft_output_free(&o_);                                                          \
		fingerprint(dev, fp_after);                                                   \
		ck_assert_msg(memcmp(fp_before, fp_after, FT_FINGERPRINT_SIZE) == 0,          \
			      "%s changed by a refused setup", dev);                          \
		ck_assert_msg(stat((e)->state, &sb_) != 0, "state file written");             \
		ck_assert_int_eq(ft_mounts_under((e)->mnt), 0);                               \
	} while (0)

static void run_ok(const char *const argv[])
{
	struct ft_output o;

	ck_assert_int_eq(ft_run(argv, NULL, &o), 0);
	ck_assert_msg(o.status == 0, "%s failed (%d): %s", argv[0], o.status, o.err);
	ft_output_free(&o);
}

static void wait_node(const char *dev)
{
	struct stat sb;

	for (int i = 0; i < 500 && (stat(dev, &sb) != 0 || !S_ISBLK(sb.st_mode)); i++)
		usleep(10000);
	ck_assert_msg(stat(dev, &sb) == 0 && S_ISBLK(sb.st_mode), "%s did not appear", dev);
}

/* Partition pno of disk made visible to the kernel (BLKPG, as setup
 * does); its device path in part. */
static void add_partition(const char *disk, int pno, long long start, long long length, char *part,
			  size_t len)
{
	ck_assert_int_eq(ft_blkpg_add(disk, pno, start, length), 0);
	snprintf(part, len, "%sp%d", disk, pno);
	wait_node(part);
}

/* mkfs.<type> on dev, mounted on dir/usermount (made here) by the test,
 * not by fslab; the mount point in mp. */
static void mkfs_and_mount(const char *dev, const char *type, const char *dir, char *mp, size_t len)
{
	char mkfs[32];
	const char *argv[] = { mkfs, "-q", dev, NULL };

	snprintf(mkfs, sizeof(mkfs), "mkfs.%s", type);
	run_ok(argv);
	snprintf(mp, len, "%s/usermount", dir);
	ck_assert_int_eq(mkdir(mp, 0755), 0);
	ck_assert_msg(mount(dev, mp, type, 0, NULL) == 0, "mount %s: %s", dev, strerror(errno));
}

START_TEST(not_a_block_device)
{
	struct pt_env e;
	char file[1200];

	pt_env_init(&e);
	snprintf(file, sizeof(file), "%s/plain-file", e.dir);
	{
		int fd = open(file, O_RDWR | O_CREAT, 0600);
		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(ftruncate(fd, 4 << 20), 0);
		ck_assert_int_eq(pwrite(fd, "data", 4, 4096), 4);
		close(fd);
	}
	assert_refused(&e, file, "not a block device", "--yes", "--wipe", NULL);
}
END_TEST

START_TEST(a_partition_not_a_disk)
{
	struct pt_env e;
	struct ft_loop l;
	char part[80];

	pt_env_init(&e);
	ck_assert_int_eq(ft_loop_create(&l, e.dir, 700ull << 20), 0);
	add_partition(l.device, 1, 1 << 20, 600ll << 20, part, sizeof(part));
	assert_refused(&e, part, "is a partition", "--yes", "--wipe", NULL);
	ft_loop_destroy(&l);
}
END_TEST

START_TEST(mounted_filesystem_on_the_disk)
{
	struct pt_env e;
	struct ft_loop l;
	char mp[1200];

	pt_env_init(&e);
	ck_assert_int_eq(ft_loop_create(&l, e.dir, 600ull << 20), 0);
	mkfs_and_mount(l.device, "ext4", e.dir, mp, sizeof(mp));
	assert_refused(&e, l.device, "mounted", "--yes", "--wipe", NULL);
	ck_assert_int_eq(umount(mp), 0);
	ft_loop_destroy(&l);
}
END_TEST

START_TEST(mounted_partition_of_the_disk)
{
	struct pt_env e;
	struct ft_loop l;
	char mp[1200], part[80];

	pt_env_init(&e);
	ck_assert_int_eq(ft_loop_create(&l, e.dir, 600ull << 20), 0);
	add_partition(l.device, 2, 100 << 20, 64 << 20, part, sizeof(part));
	mkfs_and_mount(part, "ext2", e.dir, mp, sizeof(mp));
	assert_refused(&e, l.device, "mounted", "--yes", "--wipe", NULL);
	ck_assert_int_eq(umount(mp), 0);
	ft_loop_destroy(&l);
}
END_TEST

/* A FUSE mount (fusefat, without fsname: the mount table does not name
 * the device) is found through the daemon holding the device open. */
START_TEST(fuse_mounted_filesystem_on_the_disk)
{
	struct pt_env e;
	struct ft_loop l;
	char mp[1200];

	pt_env_init(&e); /* its TCase needs FT_FUSE: main() skips it without fusefat */
	ck_assert_int_eq(ft_loop_create(&l, e.dir, 600ull << 20), 0);
	{
		const char *argv[] = { "mkfs.fat", "-F", "32", l.device, NULL };
		run_ok(argv);
	}
	snprintf(mp, sizeof(mp), "%s/fusemount", e.dir);
	ck_assert_int_eq(mkdir(mp, 0755), 0);
	{
		const char *argv[] = { "fusefat", "-o", "ro", l.device, mp, NULL };
		run_ok(argv);
	}
	for (int i = 0; i < 300 && ft_mounts_under(mp) == 0; i++)
		usleep(10000);
	ck_assert_int_eq(ft_mounts_under(mp), 1);
	assert_refused(&e, l.device, "in use", "--yes", "--wipe", NULL);
	ck_assert_int_eq(umount(mp), 0);
	usleep(200000);
	ft_loop_destroy(&l);
}
END_TEST

START_TEST(active_swap_on_the_disk)
{
	struct pt_env e;
	struct ft_loop l;

	pt_env_init(&e);
	ck_assert_int_eq(ft_loop_create(&l, e.dir, 600ull << 20), 0);
	{
		const char *argv[] = { "/usr/sbin/mkswap", l.device, NULL };
		run_ok(argv);
	}
	if (swapon(l.device, 0) != 0) {
		ft_loop_destroy(&l); /* this kernel has no swap: nothing to test */
		return;
	}
	assert_refused(&e, l.device, "swap", "--yes", "--wipe", NULL);
	ck_assert_int_eq(swapoff(l.device), 0);
	ft_loop_destroy(&l);
}
END_TEST

START_TEST(held_open_exclusively)
{
	struct pt_env e;
	struct ft_loop l;
	int fd;

	pt_env_init(&e);
	ck_assert_int_eq(ft_loop_create(&l, e.dir, 600ull << 20), 0);
	fd = open(l.device, O_RDONLY | O_EXCL);
	ck_assert_int_ge(fd, 0);
	assert_refused(&e, l.device, "exclusively", "--yes", NULL);
	close(fd);
	ft_loop_destroy(&l);
}
END_TEST

START_TEST(smaller_than_the_layout)
{
	struct pt_env e;
	struct ft_loop l;

	pt_env_init(&e);
	ck_assert_int_eq(ft_loop_create(&l, e.dir, PT_SMALL_BYTES - (1 << 20)), 0);
	/* what the layout needs, why, and the disk that would do */
	assert_refused(&e, l.device,
		       "is too small: 525.0 MiB, the layout needs 524.0 MiB of partitions + 2.0 MiB "
		       "for the GPT and alignment (526M in all); use a disk of 526M or more, or "
		       "shrink a partition in the spec",
		       "--yes", NULL);
	ft_loop_destroy(&l);
}
END_TEST

START_TEST(existing_table_or_signature_needs_wipe)
{
	struct pt_env e;
	struct ft_loop l;
	struct ft_output o;

	pt_env_init(&e);
	ck_assert_int_eq(ft_loop_create(&l, e.dir, 600ull << 20), 0);
	if (access("/usr/sbin/sfdisk", X_OK) == 0) {
		const char *argv[] = { "/usr/sbin/sfdisk", "--quiet", "--no-reread", l.device, NULL };
		ck_assert_int_eq(ft_run(argv, "label: gpt\n", &o), 0);
		ck_assert_msg(o.status == 0, "sfdisk: %s", o.err);
		ft_output_free(&o);
		assert_refused(&e, l.device, "gpt", "--yes", NULL);
	}
	{
		const char *argv[] = { "mkfs.ext4", "-q", "-F", l.device, NULL };
		run_ok(argv);
	}
	assert_refused(&e, l.device, "--wipe", "--yes", NULL);
	/* with --wipe it goes ahead, and teardown leaves nothing */
	ck_assert_int_eq(pt_setup_device(&e, l.device, &o, "--yes", "--wipe", NULL), 0);
	pt_assert_result(&o, 0, NULL);
	ft_output_free(&o);
	pt_teardown_ok(&e);
	ck_assert(!pt_blkid_finds_something(l.device));
	ft_loop_destroy(&l);
}
END_TEST

START_TEST(existing_image_with_signature_needs_wipe)
{
	struct pt_env e;
	struct ft_output o;
	unsigned char *fp = fp_before;

	pt_env_init(&e);
	{
		int fd = open(e.image, O_RDWR | O_CREAT, 0600);
		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(ftruncate(fd, (off_t)PT_SMALL_BYTES), 0);
		close(fd);
		const char *argv[] = { "mkfs.ext4", "-q", "-F", e.image, NULL };
		run_ok(argv);
	}
	fingerprint(e.image, fp);
	ck_assert_int_eq(pt_setup_image(&e, &o, "--yes", NULL), 0);
	pt_assert_result(&o, 1, "--wipe");
	ft_output_free(&o);
	fingerprint(e.image, fp_after);
	ck_assert(memcmp(fp, fp_after, FT_FINGERPRINT_SIZE) == 0);
	ck_assert_int_eq(ft_loops_under(e.dir), 0);
}
END_TEST

START_TEST(no_yes_and_no_terminal)
{
	struct pt_env e;
	struct ft_loop l;

	pt_env_init(&e);
	ck_assert_int_eq(ft_loop_create(&l, e.dir, 600ull << 20), 0);
	assert_refused(&e, l.device, "--yes", NULL);
	ft_loop_destroy(&l);
}
END_TEST

START_TEST(lab_lock_held_by_another_fslab)
{
	struct pt_env e;
	struct ft_loop l;
	char lock[1200];
	int fd;

	pt_env_init(&e);
	ck_assert_int_eq(ft_loop_create(&l, e.dir, 600ull << 20), 0);
	snprintf(lock, sizeof(lock), "%s.lock", e.state);
	fd = open(lock, O_RDWR | O_CREAT, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(flock(fd, LOCK_EX), 0);
	fingerprint(l.device, fp_before);
	{
		struct ft_output o;
		ck_assert_int_eq(pt_setup_device(&e, l.device, &o, "--yes", NULL), 0);
		ck_assert_int_eq(o.status, 1);
		ck_assert_ptr_nonnull(strstr(o.err, "in use by"));
		ft_output_free(&o);
		/* teardown and status are kept out too */
		ck_assert_int_eq(pt_teardown(&e, &o), 0);
		ck_assert_int_eq(o.status, 1);
		ft_output_free(&o);
	}
	fingerprint(l.device, fp_after);
	ck_assert(memcmp(fp_before, fp_after, FT_FINGERPRINT_SIZE) == 0);
	close(fd);
	ft_loop_destroy(&l);
}
END_TEST

START_TEST(symlink_mount_root_or_mount_point_refused)
{
	struct pt_env e;
	struct ft_loop l;
	char elsewhere[1200], link[1200];

	pt_env_init(&e);
	ck_assert_int_eq(ft_loop_create(&l, e.dir, 600ull << 20), 0);
	snprintf(elsewhere, sizeof(elsewhere), "%s/elsewhere", e.dir);
	ck_assert_int_eq(mkdir(elsewhere, 0755), 0);
	ck_assert_int_eq(symlink(elsewhere, e.mnt), 0);
	assert_refused(&e, l.device, "symbolic link", "--yes", NULL);
	ck_assert_int_eq(unlink(e.mnt), 0);
	ck_assert_int_eq(mkdir(e.mnt, 0755), 0);
	snprintf(link, sizeof(link), "%s/xfs", e.mnt);
	ck_assert_int_eq(symlink(elsewhere, link), 0);
	assert_refused(&e, l.device, "symbolic link", "--yes", NULL);
	ft_loop_destroy(&l);
}
END_TEST

/* The root-disk rule on this machine: the device "/" is on, given to the
 * whole in-use check, is refused (never opening the system disk).  This
 * reaches the rule's device-number branch (the device itself); the sysfs
 * walk from a partition to its disk is test_prov_rootdisk's, on a fake
 * sysfs (test_rootdisk.c). */
START_TEST(root_filesystem_device_of_this_machine)
{
	struct prov_disk d;
	struct stat root;
	char link[64];
	struct fslab_err err = FSLAB_ERR_INIT;

	ck_assert_int_eq(stat("/", &root), 0);
	if (major(root.st_dev) == 0)
		return; /* root on a virtual filesystem: no disk to protect here */
	memset(&d, 0, sizeof(d));
	d.devno = root.st_dev;
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(root.st_dev), minor(root.st_dev));
	ck_assert_msg(realpath(link, d.sysdir) != NULL, "%s: %s", link, strerror(errno));
	snprintf(d.path, sizeof(d.path), "(root disk)");
	ck_assert_int_eq(prov_check_in_use(&d, &err), -EBUSY);
	ck_assert_msg(strstr(err.msg, "root filesystem"), "%s", err.msg);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("provision safety");
	TCase *tc = pt_tcase(s, "safety", FT_LAB, 120);
	TCase *rules = ft_tcase(s, "rules", 0); /* the rule functions, no device */

	tcase_add_test(tc, not_a_block_device);
	tcase_add_test(tc, a_partition_not_a_disk);
	tcase_add_test(tc, mounted_filesystem_on_the_disk);
	tcase_add_test(tc, mounted_partition_of_the_disk);
	tcase_add_test(tc, fuse_mounted_filesystem_on_the_disk);
	tcase_add_test(tc, active_swap_on_the_disk);
	tcase_add_test(tc, held_open_exclusively);
	tcase_add_test(tc, smaller_than_the_layout);
	tcase_add_test(tc, existing_table_or_signature_needs_wipe);
	tcase_add_test(tc, existing_image_with_signature_needs_wipe);
	tcase_add_test(tc, no_yes_and_no_terminal);
	tcase_add_test(tc, lab_lock_held_by_another_fslab);
	tcase_add_test(tc, symlink_mount_root_or_mount_point_refused);
	tcase_add_test(rules, root_filesystem_device_of_this_machine);
	return ft_suite_run(s, argc, argv);
}
