/* Trust, class 3 (issue 22): inputs and mounts that never answer.  A FIFO
 * given where fslab reads a file (a spec, a sweep file, an IOzone report,
 * a state file) and a FUSE daemon that was stopped under a lab's mount.
 * Each asserts that fslab ends within a bound (a hang fails the case by
 * its own clock, not ctest's), exits non-zero and names the problem. */
#include "trust_util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs argv, killing it after timeout_ms: -ETIMEDOUT when it had to be
 * killed (it hung), else 0 with its output in o. */
static int run_bounded(const char *const argv[], int timeout_ms, struct ft_output *o)
{
	struct ft_proc p;
	int r;

	ck_assert_int_eq(ft_spawn(argv, &p), 0);
	/* a text no command prints: returns when the output closes */
	r = ft_proc_wait_for(&p, "\001never\001", timeout_ms);
	if (r == -ETIMEDOUT)
		kill(p.pid, SIGKILL);
	ck_assert_int_eq(ft_proc_finish(&p, o), 0);
	return r == -ETIMEDOUT ? -ETIMEDOUT : 0;
}

static void assert_refused_quickly(const char *const argv[], const char *what)
{
	struct ft_output o;
	int r = run_bounded(argv, 10000, &o);

	ck_assert_msg(r == 0, "fslab %s hung on a FIFO (killed after 10 s)", argv[1]);
	tu_assert_refused(&o, what);
	tu_assert_refused(&o, "not a regular file");
	ft_output_free(&o);
}

/* Class 3: a FIFO as the spec, the sweep file, the IOzone report and the
 * state file.  Nobody ever writes to it: the old open blocked forever. */
START_TEST(fifo_inputs_are_refused_at_once)
{
	char *fifo = tu_tpath("input.fifo"), *out = tu_tpath("out"), *img = tu_tpath("lab.img");
	char *dir = tu_tpath("dir"), arg[1200];

	ck_assert_int_eq(mkfifo(fifo, 0666), 0);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	snprintf(arg, sizeof(arg), "d=%s", dir);
	{
		const char *a[] = { ft_fslab_bin(), "spec", "--check", fifo, NULL };
		assert_refused_quickly(a, fifo);
	}
	{
		const char *a[] = { ft_fslab_bin(), "setup", "--image", img, "--spec", fifo,
				    "--dry-run", NULL };
		assert_refused_quickly(a, fifo);
	}
	{
		const char *a[] = { ft_fslab_bin(), "run", "--dir", arg, "--sweep", fifo,
				    "--out", out, NULL };
		assert_refused_quickly(a, fifo);
	}
	{
		const char *a[] = { ft_fslab_bin(), "import", "iozone", fifo, "--fs", "ext4",
				    "--out", out, NULL };
		assert_refused_quickly(a, fifo);
	}
	{
		const char *a[] = { ft_fslab_bin(), "status", "--state", fifo, NULL };
		assert_refused_quickly(a, fifo);
	}
	ck_assert_msg(!tu_exists(img), "a refused setup made %s", img);
	ck_assert_int_eq(unlink(fifo), 0);
	free(fifo);
	free(out);
	free(img);
	free(dir);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("trust_hang");
	TCase *tc = ft_tcase(s, "inputs", 0);

	tu_dir_fixtures(tc, "fslab-trust-hang");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, fifo_inputs_are_refused_at_once);
	return ft_suite_run(s, argc, argv);
}
