/* Setup checks its arguments before the machine: a bad --device, --size or
 * spec gets its own message even when the mount root is busy (a lab is
 * mounted there) and a non-state file sits at --state.  The busy mount
 * root is the test's own: a tmpfs mounted on a temp directory, with a
 * second tmpfs on the mount point of the spec's filesystem, both
 * unmounted (and the directory removed) by the fixture, which runs in the
 * parent process: also after a failed test. */
#include "testutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

static char *dir;          /* the test's temp dir */
static char root[1100];    /* the busy mount root (a tmpfs) */
static char busy[1200];    /* root/a, a mount point with a tmpfs on it */
static char spec[1100];    /* one filesystem, "a" */
static char state[1100];   /* a file that is not a state file */

static void argorder_setup(void)
{
	dir = ft_mkdtemp("fslab-argorder");
	ck_assert_ptr_nonnull(dir);
	snprintf(root, sizeof(root), "%s/mnt", dir);
	snprintf(busy, sizeof(busy), "%s/a", root);
	snprintf(spec, sizeof(spec), "%s/spec.ini", dir);
	snprintf(state, sizeof(state), "%s/state.json", dir);
	ck_assert_int_eq(mkdir(root, 0755), 0);
	/* mode 0755: a tmpfs is 1777 by default, a mount root setup refuses */
	ck_assert_msg(mount("fslab-test", root, "tmpfs", 0, "size=1m,mode=0755") == 0, "mount %s: %s", root,
		      strerror(errno));
	ck_assert_int_eq(mkdir(busy, 0755), 0);
	ck_assert_msg(mount("fslab-test", busy, "tmpfs", 0, "size=1m") == 0, "mount %s: %s", busy,
		      strerror(errno));
	ck_assert_int_eq(ft_write_file(spec, "[fs a]\ntype = ext4\nsize = 16M\n"), 0);
	ck_assert_int_eq(ft_write_file(state, "not a state file\n"), 0);
}

static void argorder_teardown(void)
{
	if (!dir)
		return;
	ft_cleanup_under(dir);
	free(dir);
	dir = NULL;
}

/* fslab setup with the busy mount root, the non-state file as --state,
 * the spec and up to four more arguments (the first NULL ends them). */
static void setup_with(struct ft_output *o, const char *a1, const char *a2, const char *a3,
		       const char *a4)
{
	const char *argv[] = { ft_fslab_bin(), "setup", "--spec", spec, "--mount-root", root,
			       "--state", state, "--yes", a1, a2, a3, a4, NULL };

	ck_assert_int_eq(ft_run(argv, NULL, o), 0);
}

static void assert_refused(const struct ft_output *o, int status, const char *text)
{
	ck_assert_msg(o->status == status, "exit %d (want %d): %s", o->status, status, o->err);
	ck_assert_msg(strstr(o->err, text), "stderr lacks '%s':\n%s", text, o->err);
	ck_assert_msg(!strstr(o->err, "already has") && !strstr(o->err, "is not an fslab state file"),
		      "a machine check came before the argument check:\n%s", o->err);
}

/* Nothing was created: the mount root holds only the busy mount point,
 * the test dir only what the test put there. */
static void assert_untouched(void)
{
	char text[64] = "";
	FILE *f;

	ck_assert_int_eq(ft_dir_entries(root), 1);
	ck_assert_int_eq(ft_dir_entries(dir), 3); /* mnt, spec.ini, state.json */
	f = fopen(state, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(text, sizeof(text), f));
	fclose(f);
	ck_assert_str_eq(text, "not a state file\n");
}

/* The control: with good arguments the machine checks do refuse here, so
 * the cases below show an order, not a mount root that is never looked at. */
START_TEST(good_arguments_meet_the_machine_checks)
{
	char image[1200];
	struct ft_output o;

	snprintf(image, sizeof(image), "%s/lab.img", dir);
	setup_with(&o, "--image", image, NULL, NULL);
	ck_assert_msg(o.status == 1, "exit %d: %s", o.status, o.err);
	ck_assert_msg(strstr(o.err, "is not an fslab state file"), "%s", o.err);
	ft_output_free(&o);
	ck_assert_int_eq(unlink(state), 0);
	setup_with(&o, "--image", image, NULL, NULL);
	ck_assert_msg(o.status == 1, "exit %d: %s", o.status, o.err);
	ck_assert_msg(strstr(o.err, "already has") && strstr(o.err, busy), "%s", o.err);
	ft_output_free(&o);
	ck_assert_int_eq(ft_write_file(state, "not a state file\n"), 0);
	assert_untouched();
}
END_TEST

/* Bad arguments, each with what setup must say.  @DIR@ is the test's
 * directory. */
static const struct {
	const char *args[4];
	int status;
	const char *says;
} bad[] = {
	{ { "--device", "/dev/null" }, 1, "/dev/null is not a block device" },
	{ { "--device", "@DIR@/spec.ini" }, 1, "spec.ini is not a block device" },
	{ { "--device", "@DIR@/no-such-disk" }, 1, "no-such-disk: No such file or directory" },
	{ { "--device", "/dev/null", "--size", "1G" }, 2, "--size is for --image" },
	/* an image too small for the layout: the size argument is wrong */
	{ { "--image", "@DIR@/lab.img", "--size", "8M" }, 1, "too small" },
};

START_TEST(bad_arguments_are_named_first)
{
	char words[4][1200];
	const char *a[4] = { NULL, NULL, NULL, NULL };
	struct ft_output o;

	for (size_t k = 0; k < 4 && bad[_i].args[k]; k++) {
		const char *w = bad[_i].args[k];

		if (strncmp(w, "@DIR@", 5) == 0)
			snprintf(words[k], sizeof(words[k]), "%s%s", dir, w + 5);
		else
			snprintf(words[k], sizeof(words[k]), "%s", w);
		a[k] = words[k];
	}
	setup_with(&o, a[0], a[1], a[2], a[3]);
	assert_refused(&o, bad[_i].status, bad[_i].says);
	ft_output_free(&o);
	assert_untouched();
}
END_TEST

/* A spec that does not lay out is a bad argument too. */
START_TEST(a_spec_that_does_not_lay_out)
{
	char image[1200], odd[1200];
	struct ft_output o;

	snprintf(image, sizeof(image), "%s/lab.img", dir);
	snprintf(odd, sizeof(odd), "%s/odd.ini", dir);
	ck_assert_int_eq(ft_write_file(odd, "[disk]\nalignment = 3K\n[fs a]\ntype = ext4\nsize = 16M\n"),
			 0);
	{
		const char *argv[] = { ft_fslab_bin(), "setup", "--spec", odd, "--mount-root", root,
				       "--state", state, "--yes", "--image", image, NULL };

		ck_assert_int_eq(ft_run(argv, NULL, &o), 0);
	}
	ck_assert_int_eq(unlink(odd), 0);
	assert_refused(&o, 2, "power of two");
	ft_output_free(&o);
	assert_untouched();
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("provision argument order");
	TCase *tc = ft_tcase(s, "argorder", FT_ROOT);

	tcase_add_unchecked_fixture(tc, argorder_setup, argorder_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, good_arguments_meet_the_machine_checks);
	tcase_add_loop_test(tc, bad_arguments_are_named_first, 0, sizeof(bad) / sizeof(bad[0]));
	tcase_add_test(tc, a_spec_that_does_not_lay_out);
	return ft_suite_run(s, argc, argv);
}
