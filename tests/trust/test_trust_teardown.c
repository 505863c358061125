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

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("trust teardown");
	TCase *tc = pt_tcase(s, "teardown", FT_EXT_LAB, 240);

	unsetenv("FSLAB_STATE");
	tcase_add_test(tc, image_without_its_gpt_is_torn_down);
	return ft_suite_run(s, argc, argv);
}
