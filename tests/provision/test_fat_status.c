/* fslab status on a FAT32 lab (provision/fshealth.h), and what teardown
 * leaves of a lab's lock files.
 *
 * vfat and fusefat write FSInfo's free cluster count when they unmount or
 * sync, not as they free clusters: a lab whose files a run wrote and
 * removed through the mount is healthy, and status must say so (exit 0),
 * not tell the user to set it up again.  What is damage is still named:
 * a count wrong on the unmounted volume, FSInfo's signatures gone, the
 * dirty bit a killed fusefat leaves.  Teardown removes the lab's lock
 * files: NAME.lock beside the state, LABID.* in the runtime directory. */
#include "provtest.h"
#include "state.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

static const char fat_spec[] = "[disk]\nalignment = 1M\n[fs fat32]\nsize = 40M\n";

/* A lab of one FAT32 filesystem; its state in st, its partition in *fat. */
static void fat_lab(struct pt_env *e, struct fslab_state *st)
{
	struct fslab_err err = FSLAB_ERR_INIT;

	pt_env_init(e);
	ck_assert_int_eq(ft_write_file(e->spec, fat_spec), 0);
	pt_setup_image_ok(e);
	ck_assert_msg(fslab_state_load(e->state, st, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(st->n_partitions, 1);
	ck_assert_int_eq(st->partitions[0].type, FSLAB_FS_FAT32);
}

static void write_file(const char *path, size_t bytes)
{
	static char buf[1 << 16];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
	memset(buf, 'f', sizeof(buf));
	for (size_t done = 0; done < bytes; done += sizeof(buf))
		ck_assert_int_eq(write(fd, buf, sizeof(buf)), (ssize_t)sizeof(buf));
	ck_assert_int_eq(fsync(fd), 0);
	ck_assert_int_eq(close(fd), 0);
}

static uint32_t peek(const char *dev, uint64_t off, unsigned width)
{
	unsigned char b[4] = { 0 };
	int fd = open(dev, O_RDONLY | O_CLOEXEC);

	ck_assert_msg(fd >= 0, "%s: %s", dev, strerror(errno));
	ck_assert_int_eq(pread(fd, b, width, (off_t)off), (ssize_t)width);
	close(fd);
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static void poke32(const char *dev, uint64_t off, uint32_t v)
{
	unsigned char b[4] = { v & 0xff, v >> 8 & 0xff, v >> 16 & 0xff, v >> 24 };
	int fd = open(dev, O_WRONLY | O_CLOEXEC);

	ck_assert_msg(fd >= 0, "%s: %s", dev, strerror(errno));
	ck_assert_int_eq(pwrite(fd, b, 4, (off_t)off), 4);
	ck_assert_int_eq(fsync(fd), 0);
	close(fd);
}

/* fslab status: its exit status, its stdout and stderr in o. */
static int status(struct pt_env *e, struct ft_output *o, bool json)
{
	ck_assert_int_eq(ft_fslab(o, "status", "--state", e->state, json ? "--json" : NULL, NULL), 0);
	return o->status;
}

/* Files written, a directory made, and all of it removed again through
 * the mount, as a run leaves its filesystem: fusefat has freed clusters
 * its FSInfo does not count yet. */
START_TEST(used_fat32_is_clean)
{
	struct pt_env e;
	struct fslab_state st;
	struct ft_output o;
	char a[PATH_MAX], d[PATH_MAX], b[PATH_MAX + 8];
	const char *dev;

	fat_lab(&e, &st);
	dev = st.partitions[0].device;
	snprintf(a, sizeof(a), "%s/fat32/a.bin", e.mnt);
	snprintf(d, sizeof(d), "%s/fat32/dir", e.mnt);
	snprintf(b, sizeof(b), "%s/b.bin", d);
	write_file(a, 1 << 20);
	ck_assert_int_eq(mkdir(d, 0755), 0);
	write_file(b, 3 << 20);
	ck_assert_int_eq(unlink(b), 0);
	ck_assert_int_eq(rmdir(d), 0);
	ck_assert_int_eq(unlink(a), 0);
	ck_assert_msg(status(&e, &o, false) == 0, "a used, healthy FAT32 lab: %s", o.err);
	ck_assert_msg(strstr(o.out, "clean") && !strstr(o.out, "damaged") && !o.err[0], "%s%s", o.out, o.err);
	ft_output_free(&o);
	ck_assert_int_eq(status(&e, &o, true), 0);
	ck_assert_msg(strstr(o.out, "\"fs_check\":\"clean\"") && strstr(o.out, "\"ok\":true"), "%s", o.out);
	ft_output_free(&o);

	/* unmounted (the driver has written FSInfo, and let go of the
	 * device: the FAT's clean bit set again), the count is the truth:
	 * one cluster off is named */
	uint64_t bps = peek(dev, 0x0b, 2), reserved = peek(dev, 0x0e, 2), fsi = peek(dev, 0x30, 2) * bps;
	ck_assert_int_eq(umount(st.partitions[0].mountpoint), 0);
	for (int i = 0; i < 500 && !(peek(dev, reserved * bps + 4, 4) & 0x08000000); i++)
		usleep(10000);
	usleep(100000);
	uint32_t said = peek(dev, fsi + 488, 4);
	poke32(dev, fsi + 488, said + 1);
	ck_assert_int_eq(status(&e, &o, false), 1);
	ck_assert_msg(strstr(o.err, "damaged filesystem: [fat32]") && strstr(o.err, "free cluster count wrong") &&
			      strstr(o.err, "fslab teardown") && strstr(o.err, "fsck.fat"),
		      "%s", o.err);
	ft_output_free(&o);
	ck_assert_int_eq(status(&e, &o, true), 1);
	ck_assert_msg(strstr(o.out, "\"fs_check\":\"damaged\""), "%s", o.out);
	ft_output_free(&o);
	poke32(dev, fsi + 488, said);
	ck_assert_int_eq(status(&e, &o, false), 1);
	ck_assert_msg(!strstr(o.err, "damaged filesystem") && strstr(o.err, "not mounted"), "%s", o.err);
	ft_output_free(&o);
	pt_teardown_ok(&e);
	pt_assert_nothing_left(&e, NULL);
}
END_TEST

/* Damage is named while the lab is mounted: FSInfo's signature gone, and
 * the dirty bit its fusefat leaves when killed (a kernel vfat: the boot
 * sector's dirty bit on the unmounted volume). */
START_TEST(damaged_fat32_is_named)
{
	struct pt_env e;
	struct fslab_state st;
	struct ft_output o;
	const struct fslab_state_partition *p;

	fat_lab(&e, &st);
	p = &st.partitions[0];
	uint64_t bps = peek(p->device, 0x0b, 2), fsi = peek(p->device, 0x30, 2) * bps;
	uint32_t sig = peek(p->device, fsi + 508, 4);
	poke32(p->device, fsi + 508, sig ^ 1);
	ck_assert_int_eq(status(&e, &o, false), 1);
	ck_assert_msg(strstr(o.err, "damaged filesystem: [fat32]") && strstr(o.err, "FSInfo sector is not one"),
		      "%s", o.err);
	ft_output_free(&o);
	poke32(p->device, fsi + 508, sig);
	if (p->mount_method == FSLAB_MOUNT_FUSE) {
		ck_assert_int_gt(p->fuse_pid, 0);
		ck_assert_int_eq(kill((pid_t)p->fuse_pid, SIGKILL), 0);
		for (int i = 0; i < 500 && kill((pid_t)p->fuse_pid, 0) == 0; i++)
			usleep(10000);
		ck_assert_int_eq(status(&e, &o, false), 1);
		ck_assert_msg(strstr(o.err, "damaged filesystem: [fat32]") &&
				      strstr(o.err, "dirty bit set in the FAT"),
			      "%s", o.err);
	} else {
		ck_assert_int_eq(umount(p->mountpoint), 0);
		poke32(p->device, 0x40, peek(p->device, 0x40, 4) | 0x100);
		ck_assert_int_eq(status(&e, &o, false), 1);
		ck_assert_msg(strstr(o.err, "dirty bit set in the boot sector"), "%s", o.err);
	}
	ft_output_free(&o);
	pt_teardown_ok(&e);
	pt_assert_nothing_left(&e, NULL);
}
END_TEST

/* How many entries of dir start with prefix. */
static int entries(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	ck_assert_msg(d != NULL, "%s: %s", dir, strerror(errno));
	while ((de = readdir(d)))
		n += strncmp(de->d_name, prefix, strlen(prefix)) == 0;
	closedir(d);
	return n;
}

/* Teardown leaves no lock file of the lab, beside the state or by its id;
 * a status afterwards says there is no lab and makes none. */
START_TEST(teardown_leaves_no_lock_files)
{
	struct pt_env e;
	struct fslab_state st;
	struct ft_output o;
	char id[64];

	fat_lab(&e, &st);
	snprintf(id, sizeof(id), "%s.", st.lab_id);
	ck_assert_int_eq(status(&e, &o, false), 0);
	ft_output_free(&o);
	ck_assert_int_ge(entries("/run/fslab", id), 1);
	ck_assert_int_eq(entries(e.dir, "state.json.lock"), 1);
	pt_teardown_ok(&e);
	pt_assert_nothing_left(&e, NULL);
	ck_assert_int_eq(entries(e.dir, "state.json"), 0);
	ck_assert_int_eq(entries("/run/fslab", id), 0);
	ck_assert_int_eq(status(&e, &o, false), 1);
	ck_assert_msg(strstr(o.err, "no lab"), "%s", o.err);
	ft_output_free(&o);
	ck_assert_int_eq(entries(e.dir, "state.json"), 0);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("fat_status");
	TCase *tc = pt_tcase(s, "fat_status", FT_ROOT | FT_MKFS_ALL | FT_FUSE, 120);

	tcase_add_test(tc, used_fat32_is_clean);
	tcase_add_test(tc, damaged_fat32_is_named);
	tcase_add_test(tc, teardown_leaves_no_lock_files);
	return ft_suite_run(s, argc, argv);
}
