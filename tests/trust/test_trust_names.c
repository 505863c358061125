/* Trust, classes 1 and 2 (issue 22): names other users control.  A
 * scratch directory recognised by its name (one of root's own 0700
 * directories renamed to fslab-run.* by a user who can rename entries in
 * the benchmarked directory).  Each asserts that nothing outside what
 * fslab made changed.  Root (the attacker acts through setpriv as nobody). */
#include "trust_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define VICTIM_TEXT "root's key material: keep\n"

/* Class 2: in a directory every user may write (no sticky bit), root keeps
 * a private 0700 directory; another user renames it to fslab's scratch
 * name.  The next run must leave it, and what is in it, alone. */
START_TEST(renamed_root_directory_is_not_removed)
{
	char *shared = tu_tpath("shared"), *victim = tu_join(shared, "root-private");
	char *renamed = tu_join(shared, "fslab-run.Qq7Qq7"), *file = tu_join(renamed, "key");
	char *out = tu_tpath("out"), *sweep = tu_tpath("tiny.ini");

	ck_assert_int_eq(mkdir(shared, 0777), 0);
	ck_assert_int_eq(chmod(shared, 0777), 0);
	ck_assert_int_eq(mkdir(victim, 0700), 0);
	ck_assert_int_eq(chmod(victim, 0700), 0);
	{
		char *f = tu_join(victim, "key");
		ck_assert_int_eq(ft_write_file(f, VICTIM_TEXT), 0);
		free(f);
	}
	{
		/* the attacker: nobody may rename an entry of a writable directory */
		const char *mv[] = { "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
				     "mv", victim, renamed, NULL };
		tu_run_ok(mv, NULL, 0);
	}
	ck_assert_int_eq(ft_write_file(sweep, "[sweep]\nfile_sizes = 64K\nrecord_sizes = 64K\n"
					      "trials = 1\ncache = warm\n"), 0);
	tu_finished_run(shared, out, sweep);
	ck_assert_msg(tu_exists(renamed), "the run removed root's directory %s (fslab's name, not its mark)",
		      renamed);
	{
		char *got = tu_slurp(file);
		ck_assert_str_eq(got, VICTIM_TEXT);
		free(got);
	}
	free(shared);
	free(victim);
	free(renamed);
	free(file);
	free(out);
	free(sweep);
}
END_TEST

/* A tool directory with an mkfs.ext4 that leaves proof it ran as root. */
static char *planted_tools(const char *name, mode_t dmode, uid_t owner, const char *proof)
{
	char *dir = tu_tpath(name), *tool = tu_join(dir, "mkfs.ext4"), script[1400];

	ck_assert_int_eq(mkdir(dir, 0755), 0);
	ck_assert_int_eq(chmod(dir, dmode), 0);
	snprintf(script, sizeof(script), "#!/bin/sh\necho ran as $(id -u) > '%s'\nexit 1\n", proof);
	ck_assert_int_eq(ft_write_file(tool, script), 0);
	ck_assert_int_eq(chmod(tool, 0755), 0);
	ck_assert_int_eq(chown(tool, owner, owner), 0);
	free(tool);
	return dir;
}

/* Class 1: FSLAB_TOOL_PATH names a directory every user may write (or a
 * sticky one holding another user's mkfs.ext4).  Root's setup must not
 * run what is there, and says which file it refused and why. */
START_TEST(tool_in_a_writable_directory_is_not_run)
{
	static const struct {
		mode_t mode;
		uid_t owner;
		const char *says;
	} cases[] = { { 0777, 0, "writable by every user" }, { 01777, TU_NOBODY, "belongs to uid 65534" } };
	char *proof = tu_tpath("proof"), *spec = tu_tpath("spec.ini"), *img = tu_tpath("lab.img");
	char *state = tu_tpath("state.json"), *mnt = tu_tpath("mnt");
	char *tools = planted_tools("tools", cases[_i].mode, cases[_i].owner, proof);
	struct ft_output o;

	ck_assert_int_eq(ft_write_file(spec, "[disk]\nalignment = 1M\n[fs ext4]\nsize = 32M\n"), 0);
	setenv("FSLAB_TOOL_PATH", tools, 1);
	ck_assert_int_eq(ft_fslab(&o, "setup", "--image", img, "--size", "64M", "--spec", spec,
				  "--state", state, "--mount-root", mnt, "--yes", NULL), 0);
	unsetenv("FSLAB_TOOL_PATH");
	ck_assert_msg(!tu_exists(proof), "root ran the planted %s/mkfs.ext4", tools);
	tu_assert_refused(&o, "not running");
	tu_assert_refused(&o, tools);
	tu_assert_refused(&o, cases[_i].says);
	ft_output_free(&o);
	if (tu_exists(state)) {
		ck_assert_int_eq(ft_fslab(&o, "teardown", "--state", state, NULL), 0);
		ft_output_free(&o);
	}
	free(proof);
	free(spec);
	free(img);
	free(state);
	free(mnt);
	free(tools);
}
END_TEST

/* Class 1: root runs fslab in a sticky shared directory (like /tmp)
 * where another user planted `results` -> a directory of root's.  The
 * default --out (results/<time>) must not be made through that link. */
START_TEST(planted_results_link_for_default_out)
{
	char *shared = tu_tpath("shared"), *victim = tu_tpath("victim"), *dir = tu_tpath("d");
	char *link = tu_join(shared, "results"), *sweep = tu_tpath("tiny.ini"), arg[1200], cwd[4096];
	struct ft_output o;

	ck_assert_int_eq(mkdir(shared, 0755), 0);
	ck_assert_int_eq(chmod(shared, 01777), 0);
	ck_assert_int_eq(mkdir(victim, 0755), 0);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	{
		const char *ln[] = { "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
				     "ln", "-s", victim, link, NULL };
		tu_run_ok(ln, NULL, 0);
	}
	ck_assert_int_eq(ft_write_file(sweep, "[sweep]\nfile_sizes = 64K\nrecord_sizes = 64K\n"
					      "trials = 1\ncache = warm\n"), 0);
	snprintf(arg, sizeof(arg), "s=%s", dir);
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	ck_assert_int_eq(chdir(shared), 0);
	ck_assert_int_eq(ft_fslab(&o, "run", "--dir", arg, "--sweep", sweep, "--no-device-probe",
				  "--quiet", NULL), 0);
	ck_assert_int_eq(chdir(cwd), 0);
	tu_assert_refused(&o, "default results directory");
	tu_assert_refused(&o, "belongs to uid 65534");
	ft_output_free(&o);
	ck_assert_msg(ft_dir_entries(victim) == 0, "the run wrote into %s through the planted link",
		      victim);
	/* fslab reproduce's default (results/reproduce-<time>) follows the
	 * same rule, before it sets anything up */
	{
		char *img = tu_tpath("repro.img"), *st = tu_tpath("repro-state.json");

		ck_assert_int_eq(chdir(shared), 0);
		ck_assert_int_eq(ft_fslab(&o, "reproduce", "--image", img, "--state", st, "--yes",
					  "--quiet", NULL),
				 0);
		ck_assert_int_eq(chdir(cwd), 0);
		tu_assert_refused(&o, "default results directory");
		ft_output_free(&o);
		ck_assert_msg(ft_dir_entries(victim) == 0,
			      "reproduce wrote into %s through the planted link", victim);
		ck_assert_msg(access(img, F_OK) != 0 && access(st, F_OK) != 0,
			      "reproduce made its image or state before refusing");
		free(img);
		free(st);
	}
	free(shared);
	free(victim);
	free(dir);
	free(link);
	free(sweep);
}
END_TEST

/* Class 1: a mount root inside a directory another user owns, and one
 * another user made first in a sticky shared directory (as in /tmp).
 * Setup refuses before it writes anything, naming the owner. */
START_TEST(mount_root_another_user_controls)
{
	char *home = tu_tpath("eve-home"), *shared = tu_tpath("shared"), *mnt;
	char *spec = tu_tpath("spec.ini"), *img = tu_tpath("lab.img"), *state = tu_tpath("state.json");
	struct ft_output o;

	ck_assert_int_eq(mkdir(home, 0755), 0);
	ck_assert_int_eq(chown(home, TU_NOBODY, TU_NOBODY), 0);
	ck_assert_int_eq(mkdir(shared, 0755), 0);
	ck_assert_int_eq(chmod(shared, 01777), 0);
	if (_i == 0) {
		mnt = tu_join(home, "lab");
	} else {
		const char *mk[] = { "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
				     "mkdir", "-m", "0755", NULL, NULL };
		mnt = tu_join(shared, "lab");
		mk[7] = mnt;
		tu_run_ok(mk, NULL, 0);
	}
	ck_assert_int_eq(ft_write_file(spec, "[disk]\nalignment = 1M\n[fs ext4]\nsize = 32M\n"), 0);
	ck_assert_int_eq(ft_fslab(&o, "setup", "--image", img, "--size", "64M", "--spec", spec,
				  "--state", state, "--mount-root", mnt, "--yes", NULL), 0);
	tu_assert_refused(&o, "refused: mount root");
	tu_assert_refused(&o, "belongs to uid 65534");
	ft_output_free(&o);
	ck_assert_msg(!tu_exists(img), "the refused setup made %s", img);
	ck_assert_int_eq(ft_mounts_under(mnt), 0);
	free(home);
	free(shared);
	free(mnt);
	free(spec);
	free(img);
	free(state);
}
END_TEST

/* Class 1: a mount root still to be made in a sticky shared directory
 * (anyone could make the name first) is refused at once; and in a mount
 * root of root's, a mount point another user made (empty, so setup's
 * other checks accept it) is not mounted over: the check is made again
 * at the mount. */
START_TEST(mount_point_fslab_did_not_make)
{
	char *shared = tu_tpath("shared"), *root = tu_tpath("labroot"), *mp;
	char *spec = tu_tpath("spec.ini"), *img = tu_tpath("lab.img"), *state = tu_tpath("state.json");
	char *mnt = _i == 0 ? tu_join(shared, "lab") : root;
	struct ft_output o;

	ck_assert_int_eq(mkdir(shared, 0755), 0);
	ck_assert_int_eq(chmod(shared, 01777), 0);
	ck_assert_int_eq(mkdir(root, 0755), 0);
	mp = tu_join(root, "ext4");
	if (_i == 1) {
		const char *mk[] = { "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
				     "mkdir", "-m", "0755", mp, NULL };
		ck_assert_int_eq(chmod(root, 0777), 0);
		tu_run_ok(mk, NULL, 0);
		ck_assert_int_eq(chmod(root, 0755), 0);
	}
	ck_assert_int_eq(ft_write_file(spec, "[disk]\nalignment = 1M\n[fs ext4]\nsize = 32M\n"), 0);
	ck_assert_int_eq(ft_fslab(&o, "setup", "--image", img, "--size", "64M", "--spec", spec,
				  "--state", state, "--mount-root", mnt, "--yes", NULL), 0);
	tu_assert_refused(&o, _i == 0 ? "sticky" : "belongs to uid 65534");
	ft_output_free(&o);
	ck_assert_msg(ft_mounts_under(mnt) == 0, "setup mounted under %s", mnt);
	if (tu_exists(state)) {
		ck_assert_int_eq(ft_fslab(&o, "teardown", "--state", state, NULL), 0);
		ft_output_free(&o);
	}
	ck_assert_msg(_i == 1 || !tu_exists(img), "the refused setup made %s", img);
	free(shared);
	if (_i == 0)
		free(mnt);
	free(root);
	free(mp);
	free(spec);
	free(img);
	free(state);
}
END_TEST

/* Class 1: between setup's checks and its mount, the mount point setup
 * made is exchanged (renameat2 RENAME_EXCHANGE) with a directory of
 * root's that holds files.  The mount must not land on that directory:
 * the mount point is held by fd and checked against what setup made. */
START_TEST(mount_point_exchanged_before_the_mount)
{
	char *root = tu_tpath("labroot"), *mp = tu_join(root, "ext4"), *other = tu_tpath("other");
	char *keep = tu_join(other, "keep"), *go = tu_tpath("go");
	char *spec = tu_tpath("spec.ini"), *img = tu_tpath("lab.img"), *state = tu_tpath("state.json");
	struct ft_output o;
	struct ft_proc p;

	ck_assert_int_eq(mkdir(other, 0755), 0);
	ck_assert_int_eq(ft_write_file(keep, VICTIM_TEXT), 0);
	ck_assert_int_eq(ft_write_file(spec, "[disk]\nalignment = 1M\n[fs ext4]\nsize = 32M\n"), 0);
	{
		const char *a[] = { ft_fslab_bin(), "setup", "--image", img, "--size", "64M", "--spec", spec,
				    "--state", state, "--mount-root", root, "--yes", NULL };
		setenv("FSLAB_TEST_CONTINUE_FILE", go, 1);
		ft_spawn_paused(a, "formatted", &p);
		unsetenv("FSLAB_TEST_CONTINUE_FILE");
	}
	ck_assert_int_eq(renameat2(AT_FDCWD, mp, AT_FDCWD, other, RENAME_EXCHANGE), 0);
	ck_assert_int_eq(ft_write_file(go, ""), 0);
	ck_assert_int_eq(ft_proc_finish(&p, &o), 0);
	tu_assert_refused(&o, "not the directory setup made");
	ft_output_free(&o);
	ck_assert_msg(ft_mounts_under(root) == 0, "setup mounted on the exchanged directory %s", mp);
	{
		char *moved = tu_join(mp, "keep"), *got = tu_slurp(moved);
		ck_assert_str_eq(got, VICTIM_TEXT);
		free(got);
		free(moved);
	}
	/* back as setup left it, for its teardown */
	ck_assert_int_eq(renameat2(AT_FDCWD, mp, AT_FDCWD, other, RENAME_EXCHANGE), 0);
	ck_assert_int_eq(ft_fslab(&o, "teardown", "--state", state, NULL), 0);
	ft_output_free(&o);
	free(root);
	free(mp);
	free(other);
	free(keep);
	free(go);
	free(spec);
	free(img);
	free(state);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("trust_names");
	TCase *tc = ft_tcase(s, "names", FT_ROOT);

	tu_dir_fixtures(tc, "fslab-trust-names");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, renamed_root_directory_is_not_removed);
	tcase_add_loop_test(tc, tool_in_a_writable_directory_is_not_run, 0, 2);
	tcase_add_test(tc, planted_results_link_for_default_out);
	tcase_add_loop_test(tc, mount_root_another_user_controls, 0, 2);
	tcase_add_loop_test(tc, mount_point_fslab_did_not_make, 0, 2);
	tcase_add_test(tc, mount_point_exchanged_before_the_mount);
	return ft_suite_run(s, argc, argv);
}
