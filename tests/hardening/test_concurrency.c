/* Concurrency: two fslab commands on one lab.  The second is refused with a
 * message naming the first (include/fslab/provision.h: setup and teardown take the lab
 * lock exclusive, run and status shared), nothing is changed by it, and a
 * lock left by a SIGKILLed command does not block the next one.
 *
 * The first command is held at a known point: setup through its test hook
 * (FSLAB_TEST_PAUSE_AT=partitioned), teardown by the ptrace stepper at its
 * first umount2(2), run by waiting for its first rows. */
#include "hard_util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static struct hu_lab lab;

static void lab_up(void)
{
	hu_lab_up(&lab, "fslab-conc", 64u << 20, hu_long_spec);
}

static void lab_down(void)
{
	hu_lab_destroy(&lab);
}


/* The command is refused: exit 1 and a message holding phrase. */
static void assert_refused(struct ft_output *o, const char *what, const char *phrase)
{
	ck_assert_msg(o->status == 1, "%s while the lab is busy: status %d, expected 1 (refused): %s%s",
		      what, o->status, o->out, o->err);
	ck_assert_msg(strstr(o->err, phrase), "%s: the refusal does not say '%s': %s", what, phrase,
		      o->err);
	ft_output_free(o);
}

static void run_argv(const char *argv[12], const char *out)
{
	const char *a[] = { ft_fslab_bin(), "run", "--state", lab.state, "--sweep", lab.spec,
			    "--out", out, "--no-device-probe", "--quiet", NULL };
	memcpy(argv, a, sizeof(a));
}

START_TEST(second_setup_refused_and_stale_lock)
{
	static const char *const env[] = { "FSLAB_TEST_PAUSE_AT=partitioned", NULL };
	const char *argv[] = { ft_fslab_bin(), "setup", "--device", lab.loop.device, "--spec",
			       lab.spec, "--mount-root", lab.mnt, "--state", lab.state, "--yes", NULL };
	char log[PATH_MAX], state2[PATH_MAX], mnt2[PATH_MAX], out[PATH_MAX];
	unsigned char *fp1 = malloc(FT_FINGERPRINT_SIZE), *fp2 = malloc(FT_FINGERPRINT_SIZE);
	struct ft_output o;
	struct stat st;
	pid_t pid;
	int status;

	ck_assert(fp1 && fp2);
	snprintf(log, sizeof(log), "%s/setup1.log", lab.dir);
	snprintf(state2, sizeof(state2), "%s/other-state.json", lab.dir);
	snprintf(mnt2, sizeof(mnt2), "%s/mnt2", lab.dir);
	snprintf(out, sizeof(out), "%s/res", lab.dir);
	pid = hu_spawn(&lab, argv, env, log);
	ck_assert_int_gt(pid, 0);
	ck_assert_msg(hu_wait_for_text(log, "paused at partitioned", 60000) == 0,
		      "setup did not reach its pause point: %s", hu_slurp(log));
	ck_assert_int_eq(ft_disk_fingerprint(lab.loop.device, fp1), 0);

	/* The same lab: the lock on the state file. */
	ck_assert_int_eq(hu_setup(&lab, &o), 0);
	assert_refused(&o, "a second setup of the same lab", "fslab setup");
	ck_assert_int_eq(hu_teardown(&lab, &o), 0);
	assert_refused(&o, "teardown during setup", "in use");
	ck_assert_int_eq(ft_fslab(&o, "status", "--state", lab.state, NULL), 0);
	assert_refused(&o, "status during setup", "in use");
	{
		const char *rargv[12];
		run_argv(rargv, out);
		ck_assert_int_eq(ft_run(rargv, NULL, &o), 0);
		assert_refused(&o, "run during setup", "in use");
	}
	/* Another state file, the same disk: the disk itself is taken. */
	ck_assert_int_eq(ft_fslab(&o, "setup", "--device", lab.loop.device, "--spec", lab.spec,
				  "--mount-root", mnt2, "--state", state2, "--yes", "--wipe", NULL),
			 0);
	ck_assert_msg(o.status == 1, "a second setup (other state file) of a disk in use: status %d: %s",
		      o.status, o.err);
	printf("second setup on the same disk, other state file: %s", o.err);
	ft_output_free(&o);
	ck_assert_msg(stat(state2, &st) != 0, "the refused setup wrote a state file");
	ck_assert_int_eq(ft_disk_fingerprint(lab.loop.device, fp2), 0);
	ck_assert_msg(memcmp(fp1, fp2, FT_FINGERPRINT_SIZE) == 0,
		      "the refused commands changed the disk");

	/* A stale lock: setup SIGKILLed while it holds it. */
	kill(pid, SIGKILL);
	status = hu_wait(&lab, pid, 30000);
	ck_assert_int_eq(status, 128 + SIGKILL);
	ck_assert_int_eq(hu_wait_group(pid, 30000), 0);
	hu_assert_teardown_clean(&lab);
	free(fp1);
	free(fp2);
}
END_TEST

START_TEST(run_during_teardown_refused)
{
	const char *targv[] = { ft_fslab_bin(), "teardown", "--state", lab.state, NULL };
	const char *rargv[12];
	char log[PATH_MAX], out[PATH_MAX];
	struct ft_output o;
	pid_t pid;
	int status;

	hu_assert_setup(&lab);
	snprintf(log, sizeof(log), "%s/teardown.log", lab.dir);
	snprintf(out, sizeof(out), "%s/res-during-teardown", lab.dir);
	/* teardown holds its lock and is about to unmount. */
	pid = hu_trace_hold(targv, NULL, log, SYS_umount2);
	ck_assert_msg(pid > 0, "teardown never called umount2 (%d): %s", (int)pid, hu_slurp(log));
	run_argv(rargv, out);
	ck_assert_int_eq(ft_run(rargv, NULL, &o), 0);
	assert_refused(&o, "run during teardown", "fslab teardown");
	ck_assert_int_eq(ft_fslab(&o, "status", "--state", lab.state, NULL), 0);
	assert_refused(&o, "status during teardown", "fslab teardown");
	ck_assert_int_eq(hu_setup(&lab, &o), 0);
	assert_refused(&o, "setup during teardown", "fslab teardown");
	ck_assert_int_eq(hu_teardown(&lab, &o), 0);
	assert_refused(&o, "a second teardown", "fslab teardown");
	status = hu_trace_release(pid);
	ck_assert_msg(status == 0, "the held teardown failed (%d): %s", status, hu_slurp(log));
	{
		char why[512];
		ck_assert_msg(hu_disk_clean(&lab, why, sizeof(why)), "not clean: %s", why);
	}
}
END_TEST

START_TEST(teardown_during_run_refused)
{
	const char *rargv[12];
	char log[PATH_MAX], out[PATH_MAX], csv[PATH_MAX + 16];
	struct ft_output o;
	pid_t pid;
	int status;

	hu_assert_setup(&lab);
	snprintf(log, sizeof(log), "%s/run.log", lab.dir);
	snprintf(out, sizeof(out), "%s/res-run", lab.dir);
	snprintf(csv, sizeof(csv), "%s/a.csv", out);
	run_argv(rargv, out);
	pid = hu_spawn(&lab, rargv, NULL, log);
	ck_assert_int_gt(pid, 0);
	ck_assert_msg(hu_wait_for_text(csv, "\na,", 60000) == 0, "the run wrote no row: %s",
		      hu_slurp(log));
	ck_assert_int_eq(hu_teardown(&lab, &o), 0);
	assert_refused(&o, "teardown during run", "fslab run");
	ck_assert_int_eq(hu_setup(&lab, &o), 0);
	assert_refused(&o, "setup during run", "fslab run");
	/* Shared: status may look while a run goes on. */
	ck_assert_int_eq(ft_fslab(&o, "status", "--state", lab.state, NULL), 0);
	ck_assert_msg(o.status == 0, "status during a run: %d: %s", o.status, o.err);
	ft_output_free(&o);
	/* A stale shared lock: the run SIGKILLed. */
	kill(pid, SIGKILL);
	status = hu_wait(&lab, pid, 30000);
	ck_assert_int_eq(status, 128 + SIGKILL);
	hu_assert_teardown_clean(&lab);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("concurrency");
	TCase *tc;

	tc = ft_tcase(s, "two_setups", FT_EXT_LAB);
	tcase_add_unchecked_fixture(tc, lab_up, lab_down);
	tcase_add_test(tc, second_setup_refused_and_stale_lock);
	tc = ft_tcase(s, "run_during_teardown", FT_EXT_LAB);
	tcase_add_unchecked_fixture(tc, lab_up, lab_down);
	tcase_add_test(tc, run_during_teardown_refused);
	tc = ft_tcase(s, "teardown_during_run", FT_EXT_LAB);
	tcase_add_unchecked_fixture(tc, lab_up, lab_down);
	tcase_add_test(tc, teardown_during_run_refused);
	return ft_suite_run(s, argc, argv);
}
