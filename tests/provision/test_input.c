/* Bad input to setup, status and teardown: a clear message, exit 2 for
 * usage errors and 1 for failures, and nothing created (no image, no state
 * file, no lock, no mount root).  Runs without root: all of these stop
 * before any device is touched. */
#include "provtest.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Only the spec (and what the test itself put there) is in the dir. */
static void assert_dir_untouched(const struct pt_env *e, const char *allowed)
{
	DIR *d = opendir(e->dir);
	struct dirent *de;

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
		    strcmp(de->d_name, "spec.ini") == 0 || (allowed && strcmp(de->d_name, allowed) == 0))
			continue;
		ck_abort_msg("bad input left %s/%s behind", e->dir, de->d_name);
	}
	closedir(d);
}

START_TEST(unknown_options_and_arguments)
{
	static const char *const cmds[] = { "setup", "status", "teardown" };
	struct ft_output o;
	struct pt_env e;

	pt_env_init(&e); /* --state and --mount-root: never the defaults */

	for (size_t i = 0; i < 3; i++) {
		ck_assert_int_eq(ft_fslab(&o, cmds[i], "--bogus", NULL), 0);
		pt_assert_result(&o, 2, "unknown option '--bogus'");
		ft_output_free(&o);
		/* setup's --image: an operand is refused on its own account */
		ck_assert_int_eq(ft_fslab(&o, cmds[i], "stray", i ? NULL : "--image", e.image, NULL),
				 0);
		pt_assert_result(&o, 2, "unexpected argument 'stray'");
		ft_output_free(&o);
		ck_assert_int_eq(ft_fslab(&o, cmds[i], "--help", NULL), 0);
		ck_assert_int_eq(o.status, 0);
		ck_assert_ptr_nonnull(strstr(o.out, cmds[i]));
		ft_output_free(&o);
	}
	ck_assert_int_eq(ft_fslab(&o, "setup", "--state", e.state, "--mount-root", e.mnt, NULL), 0);
	pt_assert_result(&o, 2, "exactly one of --device");
	ft_output_free(&o);
	ck_assert_int_eq(ft_fslab(&o, "setup", "--device", "/dev/null", "--image", "/tmp/x",
				  "--state", e.state, "--mount-root", e.mnt, NULL), 0);
	pt_assert_result(&o, 2, "exactly one of --device");
	ft_output_free(&o);
	ck_assert_int_eq(ft_fslab(&o, "setup", "--device", "/dev/null", "--size", "1G", "--state",
				  e.state, "--mount-root", e.mnt, NULL), 0);
	pt_assert_result(&o, 2, "--size is for --image");
	ft_output_free(&o);
}
END_TEST

START_TEST(malformed_sizes)
{
	static const char *const bad[] = { "20Q", "-5G", "0", "99999999999T", "", "1.5G", "G" };
	struct pt_env e;
	struct ft_output o;

	pt_env_init(&e);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(pt_setup_image(&e, &o, "--size", bad[i], NULL), 0);
		pt_assert_result(&o, 2, "--size");
		ft_output_free(&o);
		assert_dir_untouched(&e, NULL);
	}
}
END_TEST

START_TEST(bad_spec_files)
{
	static const struct {
		const char *text;
		const char *says;
	} bad[] = {
		{ "[disk]\nalignment = 1M\n[bogus]\nx = 1\n", "bogus" },
		{ "[fs ext4]\nsize = 32M\ncolour = blue\n", "colour" },
		{ "[fs a]\ntype = ntfs\nsize = 32M\n", "ntfs" },
		{ "[fs ext4]\nsize = 32M\n[fs ext4]\nsize = 64M\n", "ext4" },
		{ "[fs ext4]\nsize = 20Q\n", "20Q" },
	};
	struct pt_env e;
	struct ft_output o;

	pt_env_init(&e);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(ft_write_file(e.spec, bad[i].text), 0);
		ck_assert_int_eq(pt_setup_image(&e, &o, NULL), 0);
		pt_assert_result(&o, 2, bad[i].says);
		ft_output_free(&o);
		assert_dir_untouched(&e, NULL);
	}
	/* a missing spec file */
	ck_assert_int_eq(ft_fslab(&o, "setup", "--image", e.image, "--spec", "/nonexistent/spec.ini",
				  "--state", e.state, "--mount-root", e.mnt, NULL),
			 0);
	pt_assert_result(&o, 2, "/nonexistent/spec.ini");
	ft_output_free(&o);
	assert_dir_untouched(&e, NULL);
}
END_TEST

START_TEST(layout_larger_than_the_image)
{
	struct pt_env e;
	struct ft_output o;

	pt_env_init(&e);
	ck_assert_int_eq(pt_setup_image(&e, &o, "--size", "100M", NULL), 0);
	pt_assert_result(&o, 1, "too small");
	ft_output_free(&o);
	assert_dir_untouched(&e, NULL);
}
END_TEST

/* The default layout on a 100G image: the refusal says what the layout
 * needs beyond its 100 GiB of partitions and the --size that fits, both
 * for a new image and for an existing one (which --size cannot resize). */
START_TEST(default_layout_on_100G_names_the_need_and_the_size)
{
	static const char need[] = "the image is too small: 100.0 GiB, the layout needs 100.0 GiB "
				   "of partitions + 2.0 MiB for the GPT and alignment (102402M in all)";
	char fix[1300];
	struct pt_env e;
	struct ft_output o;
	int fd;

	pt_env_init(&e);
	ck_assert_int_eq(ft_fslab(&o, "setup", "--image", e.image, "--size", "100G", "--state",
				  e.state, "--mount-root", e.mnt, "--yes", NULL),
			 0);
	pt_assert_result(&o, 1, need);
	pt_assert_result(&o, 1, "; give --size 101G or more, or shrink a partition in the spec");
	ft_output_free(&o);
	assert_dir_untouched(&e, NULL);

	/* an image that is there already, 100 GiB (sparse: no data) */
	fd = open(e.image, O_WRONLY | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, (off_t)100 << 30), 0);
	ck_assert_int_eq(close(fd), 0);
	ck_assert_int_eq(ft_fslab(&o, "setup", "--image", e.image, "--state", e.state,
				  "--mount-root", e.mnt, "--yes", NULL),
			 0);
	pt_assert_result(&o, 1, need);
	snprintf(fix, sizeof(fix), "; remove %s and run again with --size 101G or more", e.image);
	pt_assert_result(&o, 1, fix);
	ft_output_free(&o);
	assert_dir_untouched(&e, "disk.img");
	ck_assert_int_eq(unlink(e.image), 0);
}
END_TEST

START_TEST(unwritable_mount_root_or_state_path)
{
	struct pt_env e;
	struct ft_output o;
	char file[1200], below[1300];

	pt_env_init(&e);
	snprintf(file, sizeof(file), "%s/a-file", e.dir);
	ck_assert_int_eq(ft_write_file(file, "not a directory\n"), 0);
	snprintf(below, sizeof(below), "%s/mnt", file);
	ck_assert_int_eq(ft_fslab(&o, "setup", "--image", e.image, "--spec", e.spec, "--state",
				  e.state, "--mount-root", below, NULL),
			 0);
	pt_assert_result(&o, 1, "cannot create the mount root");
	ft_output_free(&o);
	assert_dir_untouched(&e, "a-file");
	snprintf(below, sizeof(below), "%s/state.json", file);
	ck_assert_int_eq(ft_fslab(&o, "setup", "--image", e.image, "--spec", e.spec, "--state", below,
				  "--mount-root", e.mnt, NULL),
			 0);
	pt_assert_result(&o, 1, "state");
	ft_output_free(&o);
	assert_dir_untouched(&e, "a-file");
	/* an image in a directory that does not exist */
	snprintf(below, sizeof(below), "%s/no-such-dir/disk.img", e.dir);
	ck_assert_int_eq(ft_fslab(&o, "setup", "--image", below, "--spec", e.spec, "--state", e.state,
				  "--mount-root", e.mnt, NULL),
			 0);
	pt_assert_result(&o, 1, "cannot create the image");
	ft_output_free(&o);
	assert_dir_untouched(&e, "a-file");
}
END_TEST

START_TEST(missing_mkfs_names_the_package)
{
	static const struct {
		const char *tool, *package;
	} tools[] = {
		{ "mkfs.ext4", "e2fsprogs" }, { "mkfs.xfs", "xfsprogs" }, { "mkfs.fat", "dosfstools" },
		{ "mkfs.btrfs", "btrfs-progs" },
	};
	struct pt_env e;
	struct ft_output o;
	char dir[1200];

	pt_env_init(&e);
	snprintf(dir, sizeof(dir), "%s/tools", e.dir);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		char spec[256];
		const char *type = tools[i].tool + 5;

		snprintf(spec, sizeof(spec), "[fs x]\ntype = %s\nsize = 300M\n",
			 strcmp(type, "fat") == 0 ? "fat32" : type);
		ck_assert_int_eq(ft_write_file(e.spec, spec), 0);
		setenv("FSLAB_TOOL_PATH", dir, 1); /* an empty directory: no tool at all */
		ck_assert_int_eq(pt_setup_image(&e, &o, NULL), 0);
		unsetenv("FSLAB_TOOL_PATH");
		pt_assert_result(&o, 1, tools[i].tool);
		ck_assert_msg(strstr(o.err, tools[i].package), "no package %s in: %s", tools[i].package,
			      o.err);
		ft_output_free(&o);
		assert_dir_untouched(&e, "tools");
	}
}
END_TEST

START_TEST(dry_run_changes_nothing)
{
	struct pt_env e;
	struct ft_output o;

	pt_env_init(&e);
	ck_assert_int_eq(pt_setup_image(&e, &o, "--dry-run", NULL), 0);
	pt_assert_result(&o, 0, NULL);
	ck_assert_ptr_nonnull(strstr(o.out, "mkfs.fat -F 32"));
	ck_assert_ptr_nonnull(strstr(o.out, "Microsoft basic data"));
	ck_assert_ptr_nonnull(strstr(o.out, "526.0 MiB"));
	ck_assert_ptr_nonnull(strstr(o.out, "nothing was changed"));
	ft_output_free(&o);
	assert_dir_untouched(&e, NULL);
	/* the default spec on a default image: 100 GiB + 2 MiB */
	ck_assert_int_eq(ft_fslab(&o, "setup", "--image", e.image, "--state", e.state, "--mount-root",
				  e.mnt, "--dry-run", NULL),
			 0);
	pt_assert_result(&o, 0, NULL);
	ck_assert_ptr_nonnull(strstr(o.out, "100.0 GiB"));
	ck_assert_ptr_nonnull(strstr(o.out, "20G"));
	ft_output_free(&o);
	assert_dir_untouched(&e, NULL);
}
END_TEST

START_TEST(status_and_teardown_without_a_lab)
{
	struct pt_env e;
	struct ft_output o;

	pt_env_init(&e);
	ck_assert_int_eq(ft_fslab(&o, "status", "--state", e.state, NULL), 0);
	pt_assert_result(&o, 1, "no lab");
	ft_output_free(&o);
	ck_assert_int_eq(ft_write_file(e.state, "{ not json"), 0);
	ck_assert_int_eq(ft_fslab(&o, "teardown", "--state", e.state, NULL), 0);
	pt_assert_result(&o, 1, "state file");
	ft_output_free(&o);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("provision input");
	TCase *tc = pt_tcase(s, "input", 0, 60);
	/* refusals that come after setup's and teardown's root check */
	TCase *root = pt_tcase(s, "input_root", FT_ROOT, 60);

	tcase_add_test(tc, unknown_options_and_arguments);
	tcase_add_test(tc, malformed_sizes);
	tcase_add_test(tc, bad_spec_files);
	tcase_add_test(tc, layout_larger_than_the_image);
	tcase_add_test(root, unwritable_mount_root_or_state_path);
	tcase_add_test(root, missing_mkfs_names_the_package);
	tcase_add_test(tc, dry_run_changes_nothing);
	tcase_add_test(root, default_layout_on_100G_names_the_need_and_the_size);
	tcase_add_test(root, status_and_teardown_without_a_lab);
	return ft_suite_run(s, argc, argv);
}
