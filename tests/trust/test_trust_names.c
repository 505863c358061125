/* Trust, classes 1 and 2 (issue 22): names other users control.  A
 * scratch directory recognised by its name (one of root's own 0700
 * directories renamed to fslab-run.* by a user who can rename entries in
 * the benchmarked directory).  Each asserts that nothing outside what
 * fslab made changed.  Root (the attacker acts through setpriv as nobody). */
#include "trust_util.h"

#include <errno.h>
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

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("trust_names");
	TCase *tc = ft_tcase(s, "names", FT_ROOT);

	tu_dir_fixtures(tc, "fslab-trust-names");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, renamed_root_directory_is_not_removed);
	return ft_suite_run(s, argc, argv);
}
