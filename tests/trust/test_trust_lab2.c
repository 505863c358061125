/* Trust (issue 9), the red-team's provisioning findings: a second loop
 * device on a mounted lab's image (F18), a state file forged by another
 * user (F11, F10, F19), locks that follow the state file's name (F1), an
 * image another user can write (F5, F6), a mount root that is a system
 * directory, not empty or inside a lab (F8, F9, F14).  Each case is the
 * attack; each asserts fslab exits non-zero naming the problem and that
 * the victim (a mounted lab, a file, a directory) is unchanged.  Root
 * only (loop devices, mkfs, mount). */
#include "../provision/provtest.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One small ext4: fast to set up. */
static const char tiny_spec[] = "[disk]\nalignment = 1M\n[fs ext4]\nsize = 64M\n";

static void tiny_env(struct pt_env *e)
{
	pt_env_init(e);
	ck_assert_int_eq(ft_write_file(e->spec, tiny_spec), 0);
}

/* FNV-1a over a whole file. */
static uint64_t sum_of(const char *path)
{
	uint64_t h = 1469598103934665603ull;
	unsigned char buf[65536];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < n; i++)
			h = (h ^ buf[i]) * 1099511628211ull;
	close(fd);
	return h;
}

static void run_ok(const char *const argv[], char *out, size_t len)
{
	struct ft_output o;

	ck_assert_int_eq(ft_run(argv, NULL, &o), 0);
	ck_assert_msg(o.status == 0, "%s: exit %d: %s", argv[0], o.status, o.err);
	if (out) {
		snprintf(out, len, "%s", o.out);
		out[strcspn(out, "\n")] = '\0';
	}
	ft_output_free(&o);
}

static void loop_detach(const char *dev)
{
	const char *argv[] = { "losetup", "-d", dev, NULL };
	struct ft_output o;

	if (ft_run(argv, NULL, &o) == 0)
		ft_output_free(&o);
}

static bool loop_attached(const char *dev)
{
	char sys[128];

	snprintf(sys, sizeof(sys), "/sys/block/%s/loop/backing_file", strrchr(dev, '/') + 1);
	return access(sys, F_OK) == 0;
}

static void assert_refused(const struct ft_output *o, const char *text)
{
	ck_assert_msg(o->status != 0, "expected a refusal, got exit 0:\n%s\n%s", o->out, o->err);
	ck_assert_msg(strstr(o->err, text), "stderr lacks '%s':\n%s", text, o->err);
}

/* The disk setup recorded ("disk": "/dev/loopN" in the state). */
static void state_disk(const char *state, char *disk, size_t len)
{
	char *text = NULL, *p;
	size_t n = 0;
	FILE *f = fopen(state, "re");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(getdelim(&text, &n, '\0', f), 0);
	fclose(f);
	p = strstr(text, "\"disk\"");
	ck_assert_ptr_nonnull(p);
	p = strchr(p + 6, '"');
	ck_assert_ptr_nonnull(p);
	snprintf(disk, len, "%.*s", (int)strcspn(p + 1, "\""), p + 1);
	free(text);
}

/* The lab as a user checks it: mounted, the canary intact, the image and
 * the lab's loop device there, the state file unchanged. */
struct lab_check {
	char canary[1300];
	char disk[64];
	uint64_t canary_sum, state_sum;
};

static void lab_up(struct pt_env *e, struct lab_check *c)
{
	struct ft_output o;

	ck_assert_int_eq(pt_setup_image(e, &o, NULL), 0);
	pt_assert_result(&o, 0, NULL);
	ft_output_free(&o);
	snprintf(c->canary, sizeof(c->canary), "%s/ext4/canary", e->mnt);
	ck_assert_int_eq(ft_write_file(c->canary, "the thesis, chapter 3\n"), 0);
	sync();
	c->canary_sum = sum_of(c->canary);
	c->state_sum = sum_of(e->state);
	state_disk(e->state, c->disk, sizeof(c->disk));
}

static void lab_intact(struct pt_env *e, const struct lab_check *c)
{
	char mp[1200];
	struct stat sb;

	snprintf(mp, sizeof(mp), "%s/ext4", e->mnt);
	ck_assert_msg(ft_mounts_under(mp) == 1, "the lab's ext4 at %s was unmounted", mp);
	ck_assert_msg(sum_of(c->canary) == c->canary_sum, "the lab's file changed");
	ck_assert_msg(stat(e->image, &sb) == 0, "the lab's image %s was deleted", e->image);
	ck_assert_msg(loop_attached(c->disk), "the lab's loop device %s was detached", c->disk);
	ck_assert_msg(sum_of(e->state) == c->state_sum, "the state file changed");
}

static void lab_down(struct pt_env *e)
{
	struct ft_output o;

	ck_assert_int_eq(pt_teardown(e, &o), 0);
	pt_assert_result(&o, 0, NULL);
	ft_output_free(&o);
	pt_assert_nothing_left(e, NULL);
}

/* F18: a second loop device on the mounted lab's image (an admin's
 * losetup, read-write or read-only): teardown must neither work through
 * it nor go on after it: no wipe, no detach, no delete. */
START_TEST(teardown_refuses_a_second_loop_on_the_image)
{
	const char *ro = _i == 1 ? "-r" : "-f";
	char alias[64];
	unsigned char *fp_before = malloc(FT_FINGERPRINT_SIZE), *fp_after = malloc(FT_FINGERPRINT_SIZE);
	struct lab_check c;
	struct pt_env e;
	struct ft_output o;

	ft_require_root();
	ck_assert_ptr_nonnull(fp_before);
	ck_assert_ptr_nonnull(fp_after);
	tiny_env(&e);
	lab_up(&e, &c);
	{
		const char *argv[] = { "losetup", "-f", "--show", ro, e.image, NULL };
		const char *argv_rw[] = { "losetup", "-f", "--show", e.image, NULL };
		run_ok(_i == 1 ? argv : argv_rw, alias, sizeof(alias));
	}
	ck_assert_int_eq(ft_disk_fingerprint(c.disk, fp_before), 0);

	ck_assert_int_eq(ft_fslab(&o, "teardown", "--state", e.state, NULL), 0);
	assert_refused(&o, alias);
	assert_refused(&o, "setup did not attach");
	ck_assert_msg(!strstr(o.out, "wiping") && !strstr(o.out, "deleted"), "teardown went on:\n%s",
		      o.out);
	ft_output_free(&o);
	lab_intact(&e, &c);
	ck_assert_int_eq(ft_disk_fingerprint(c.disk, fp_after), 0);
	ck_assert_msg(memcmp(fp_before, fp_after, FT_FINGERPRINT_SIZE) == 0, "the lab's disk changed");
	ck_assert_msg(loop_attached(alias), "teardown detached %s, which it did not attach", alias);

	/* Said twice: a second teardown is refused the same way, not stuck. */
	ck_assert_int_eq(ft_fslab(&o, "teardown", "--state", e.state, NULL), 0);
	assert_refused(&o, alias);
	ft_output_free(&o);
	lab_intact(&e, &c);

	loop_detach(alias);
	lab_down(&e);
	free(fp_before);
	free(fp_after);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("trust lab 2");
	TCase *tc = tcase_create("lab2");
	SRunner *sr;
	int failed;

	unsetenv("FSLAB_STATE");
	tcase_add_unchecked_fixture(tc, pt_suite_setup, pt_suite_teardown);
	tcase_set_timeout(tc, 240);
	tcase_add_loop_test(tc, teardown_refuses_a_second_loop_on_the_image, 0, 2);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
