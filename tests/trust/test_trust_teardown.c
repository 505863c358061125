/* Trust, class 5 (issue 22): teardown by a hierarchy of proofs.  An image
 * lab whose image lost its contents (no GPT) is still the lab's by the
 * image's trusted.fslab.lab mark and the loop device's backing inode, so
 * teardown finishes.  Root (loop devices, mkfs, mount). */
#include "../provision/provtest.h"
#include "trust_util.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

static const char tiny_spec[] = "[disk]\nalignment = 1M\n[fs ext4]\nsize = 32M\n";

/* The loop device the lab's state names ("disk": "/dev/loopN"). */
static void state_disk(const char *state, char *dev, size_t len)
{
	char *text = tu_slurp(state), *p = strstr(text, "\"disk\":");

	ck_assert_ptr_nonnull(p);
	p += strlen("\"disk\":");
	p += strspn(p, " \"");
	snprintf(dev, len, "%.*s", (int)strcspn(p, "\""), p);
	free(text);
}

/* Class 5: the image's GPT (both copies) is zeroed through its loop
 * device while the lab is mounted.  Teardown unmounts, detaches and
 * deletes the image anyway, and leaves nothing. */
START_TEST(image_without_its_gpt_is_torn_down)
{
	static char zero[1 << 20];
	char loop[64];
	struct pt_env e;
	struct ft_output o;
	off_t size;
	int fd;

	pt_env_init(&e);
	ck_assert_int_eq(ft_write_file(e.spec, tiny_spec), 0);
	pt_setup_image_ok(&e);
	state_disk(e.state, loop, sizeof(loop));
	fd = open(loop, O_WRONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	size = lseek(fd, 0, SEEK_END);
	ck_assert_int_gt(size, 2 << 20);
	/* the first MiB (protective MBR, primary GPT) and the last 64 KiB
	 * (backup GPT); the ext4 partition starts at 1 MiB */
	ck_assert_int_eq(pwrite(fd, zero, sizeof(zero), 0), (ssize_t)sizeof(zero));
	ck_assert_int_eq(pwrite(fd, zero, 65536, size - 65536), 65536);
	ck_assert_int_eq(fsync(fd), 0);
	ck_assert_int_eq(ioctl(fd, BLKFLSBUF, 0), 0);
	close(fd);
	{
		const char *a[] = { "blkid", "-p", loop, NULL };
		struct ft_output b;
		ck_assert_int_eq(ft_run(a, NULL, &b), 0);
		ck_assert_msg(b.status != 0 || !strstr(b.out, "gpt"), "the GPT is still there: %s", b.out);
		ft_output_free(&b);
	}
	ck_assert_int_eq(pt_teardown(&e, &o), 0);
	pt_assert_result(&o, 0, "carries no GPT any more");
	ft_output_free(&o);
	pt_assert_nothing_left(&e, NULL);
}
END_TEST

/* Class 5: a lab on a disk (here a loop device given as --device); its
 * mounts go, its loop is detached, and a byte-for-byte copy of its disk
 * is attached under the same device name: the same GPT disk GUID, another
 * disk.  Teardown must refuse, naming it, and leave the copy's bytes. */
START_TEST(clone_of_the_labs_disk_is_not_wiped)
{
	char disk_img[1200], clone_img[1200], loop[64];
	unsigned char *fp_before = malloc(FT_FINGERPRINT_SIZE), *fp_after = malloc(FT_FINGERPRINT_SIZE);
	struct pt_env e;
	struct ft_output o;
	uint64_t sum;

	ck_assert_ptr_nonnull(fp_before);
	ck_assert_ptr_nonnull(fp_after);
	pt_env_init(&e);
	ck_assert_int_eq(ft_write_file(e.spec, tiny_spec), 0);
	snprintf(disk_img, sizeof(disk_img), "%s/disk.raw", e.dir);
	snprintf(clone_img, sizeof(clone_img), "%s/clone.raw", e.dir);
	{
		int fd = open(disk_img, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(ftruncate(fd, 64 << 20), 0);
		close(fd);
	}
	{
		const char *a[] = { "losetup", "-f", "--show", disk_img, NULL };
		tu_run_ok(a, loop, sizeof(loop));
	}
	ck_assert_int_eq(pt_setup_device(&e, loop, &o, "--yes", NULL), 0);
	pt_assert_result(&o, 0, NULL);
	ft_output_free(&o);
	/* the lab's disk leaves; its copy comes in under its name */
	ft_cleanup_under_keep(e.mnt);
	{
		const char *d[] = { "losetup", "-d", loop, NULL };
		const char *cp[] = { "cp", "--sparse=always", disk_img, clone_img, NULL };
		const char *a[] = { "losetup", loop, clone_img, NULL };
		tu_run_ok(d, NULL, 0);
		tu_run_ok(cp, NULL, 0);
		tu_run_ok(a, NULL, 0);
	}
	sum = tu_file_sum(clone_img);
	ck_assert_int_eq(ft_disk_fingerprint(loop, fp_before), 0);
	ck_assert_int_eq(pt_teardown(&e, &o), 0);
	tu_assert_refused(&o, "is not the lab's disk");
	tu_assert_refused(&o, loop);
	ft_output_free(&o);
	ck_assert_int_eq(ft_disk_fingerprint(loop, fp_after), 0);
	ck_assert_msg(memcmp(fp_before, fp_after, FT_FINGERPRINT_SIZE) == 0,
		      "teardown wrote to the copy on %s", loop);
	ck_assert_msg(tu_file_sum(clone_img) == sum, "the copy's bytes changed");
	ck_assert(tu_loop_attached(loop));
	tu_loop_detach(loop);
	unlink(e.state);
	free(fp_before);
	free(fp_after);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("trust teardown");
	TCase *tc = pt_tcase(s, "teardown", FT_EXT_LAB, 240);

	unsetenv("FSLAB_STATE");
	tcase_add_test(tc, image_without_its_gpt_is_torn_down);
	tcase_add_test(tc, clone_of_the_labs_disk_is_not_wiped);
	return ft_suite_run(s, argc, argv);
}
