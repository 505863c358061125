/* The root-disk rule ("never the system disk") through sysfs's parent
 * walk: the root filesystem on a PARTITION of the disk must refuse the
 * disk, which only sysfs can tell (the partition's devno is not the
 * disk's).  A fake sysfs tree stands in for /sys, so the rule is checked
 * for layouts this machine does not have, and no disk is opened. */
#include "fileutil.h"
#include "prov_int.h"
#include "testutil.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define FAKE_MAJOR 250u

static char *root;          /* the fake sysfs */
static struct prov_disk disk; /* its "sdz" */

/* A block device directory devices/<rel> in the fake sysfs, with
 * dev/block/MAJ:MIN pointing at it (as the kernel's links do). */
static void fake_block(const char *rel, unsigned minor, bool partition)
{
	char path[PATH_MAX], link[PATH_MAX], target[PATH_MAX], flag[PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s/devices/%s", root, rel);
	ck_assert_int_eq(fslab_mkdir_p(path, 0755), 0);
	if (partition) {
		snprintf(flag, sizeof(flag), "%s/partition", path);
		ck_assert_int_eq(ft_write_file(flag, "1\n"), 0);
	}
	snprintf(link, sizeof(link), "%s/dev/block/%u:%u", root, FAKE_MAJOR, minor);
	snprintf(target, sizeof(target), "../../devices/%s", rel);
	ck_assert_int_eq(symlink(target, link), 0);
}

static void fx_setup(void)
{
	char path[PATH_MAX + 32];

	root = ft_mkdtemp("fslab-sysfs");
	ck_assert_ptr_nonnull(root);
	snprintf(path, sizeof(path), "%s/dev/block", root);
	ck_assert_int_eq(fslab_mkdir_p(path, 0755), 0);
	fake_block("pci0/block/sdz", 0, false);
	fake_block("pci0/block/sdz/sdz1", 1, true);
	fake_block("pci0/block/sdz/sdz2", 2, true);
	/* another disk whose name begins with the first one's */
	fake_block("pci0/block/sdzz", 16, false);
	fake_block("pci0/block/sdzz/sdzz1", 17, true);

	memset(&disk, 0, sizeof(disk));
	snprintf(disk.path, sizeof(disk.path), "/dev/sdz");
	disk.devno = makedev(FAKE_MAJOR, 0);
	snprintf(path, sizeof(path), "%s/devices/pci0/block/sdz", root);
	ck_assert_ptr_nonnull(realpath(path, disk.sysdir));
}

static void fx_teardown(void)
{
	ft_rm_rf(root);
	free(root);
}

START_TEST(root_on_a_partition_refuses_the_disk)
{
	struct fslab_err err = FSLAB_ERR_INIT;

	ck_assert_int_eq(prov_check_not_root(&disk, root, makedev(FAKE_MAJOR, 2), &err),
			 -EBUSY);
	ck_assert_msg(strstr(err.msg, "/dev/sdz holds the root filesystem"), "%s", err.msg);
}
END_TEST

START_TEST(root_on_the_disk_itself_refuses_it)
{
	struct fslab_err err = FSLAB_ERR_INIT;

	ck_assert_int_eq(prov_check_not_root(&disk, root, makedev(FAKE_MAJOR, 0), &err),
			 -EBUSY);
	ck_assert_msg(strstr(err.msg, "root filesystem"), "%s", err.msg);
}
END_TEST

/* sdzz1 lies in a directory whose name starts with "sdz": not on sdz. */
START_TEST(root_on_a_disk_with_a_longer_name_is_not_this_disk)
{
	struct fslab_err err = FSLAB_ERR_INIT;

	ck_assert_int_eq(prov_check_not_root(&disk, root, makedev(FAKE_MAJOR, 17), &err),
			 0);
	ck_assert_int_eq(prov_check_not_root(&disk, root, makedev(FAKE_MAJOR, 16), &err),
			 0);
	ck_assert_str_eq(err.msg, "");
}
END_TEST

/* A device sysfs does not list, and a virtual filesystem's anonymous
 * device (major 0), are on no disk. */
START_TEST(root_on_no_listed_device_is_not_this_disk)
{
	struct fslab_err err = FSLAB_ERR_INIT;

	ck_assert_int_eq(prov_check_not_root(&disk, root, makedev(FAKE_MAJOR, 99), &err),
			 0);
	ck_assert_int_eq(prov_check_not_root(&disk, root, makedev(0, 35), &err), 0);
	ck_assert_int_eq(prov_devno_on_disk_at(root, makedev(FAKE_MAJOR, 1), &disk), true);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("root disk rule");
	TCase *tc = ft_tcase(s, "sysfs parent walk", 0);

	tcase_add_checked_fixture(tc, fx_setup, fx_teardown);
	tcase_add_test(tc, root_on_a_partition_refuses_the_disk);
	tcase_add_test(tc, root_on_the_disk_itself_refuses_it);
	tcase_add_test(tc, root_on_a_disk_with_a_longer_name_is_not_this_disk);
	tcase_add_test(tc, root_on_no_listed_device_is_not_this_disk);
	return ft_suite_run(s, argc, argv);
}
