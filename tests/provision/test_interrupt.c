/* Setup stopped at every step (SIGINT: at the next safe point; SIGKILL:
 * right there), then teardown undoes it and nothing is left.  Setup is
 * held at a step by the test hook FSLAB_TEST_PAUSE_AT=<step>. */
#include "provtest.h"

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const steps[] = {
	"attached",   "claimed", "partitioning", "partitioned", "format-ext4", "format-xfs",
	"format-fat32", "formatted", "mount-ext2", "mount-fat32", "mount-btrfs", "mounted",
};
#define N_STEPS (int)(sizeof(steps) / sizeof(steps[0]))

/* Starts argv (an fslab command) held at `step` (FSLAB_TEST_PAUSE_AT),
 * sends sig there, returns the command's output. */
static void stopped_at(const char *const argv[], const char *step, int sig, struct ft_output *o)
{
	struct ft_proc p;

	ft_spawn_paused(argv, step, &p);
	ck_assert_int_eq(kill(p.pid, sig), 0);
	ck_assert_int_eq(ft_proc_finish(&p, o), 0);
}

/* Starts setup held at `step`, sends sig, returns setup's output. */
static void setup_stopped_at(struct pt_env *e, const char *device, const char *step, int sig,
			     struct ft_output *o)
{
	const char *argv[] = { ft_fslab_bin(), "setup", device ? "--device" : "--image",
			       device ? device : e->image, "--spec", e->spec, "--state", e->state,
			       "--mount-root", e->mnt, "--yes", NULL };

	stopped_at(argv, step, sig, o);
}

static void stop_then_teardown(int i, int sig)
{
	struct pt_env e;
	struct ft_output o;
	struct stat sb;
	const char *step = steps[i];

	pt_env_init(&e);
	setup_stopped_at(&e, NULL, step, sig, &o);
	if (sig == SIGKILL) {
		ck_assert_int_eq(o.status, 128 + SIGKILL);
	} else {
		pt_assert_result(&o, 1, "interrupted");
		ck_assert_ptr_nonnull(strstr(o.err, "fslab teardown"));
	}
	ft_output_free(&o);
	ck_assert_msg(stat(e.state, &sb) == 0, "no state file after stopping at %s", step);
	/* the half-made lab is reported as damaged */
	ck_assert_int_eq(ft_fslab(&o, "status", "--state", e.state, NULL), 0);
	pt_assert_result(&o, 1, "setup did not finish");
	ft_output_free(&o);
	pt_teardown_ok(&e);
	pt_assert_nothing_left(&e, NULL);
	ck_assert_msg(stat(e.mnt, &sb) != 0, "mount root left after stopping at %s", step);
}

START_TEST(sigint_at_each_step_then_teardown)
{
	stop_then_teardown(_i, SIGINT);
}
END_TEST

START_TEST(sigkill_at_each_step_then_teardown)
{
	stop_then_teardown(_i, SIGKILL);
}
END_TEST

/* On a disk given with --device: killed before the GPT was written, the
 * disk is left as it was; killed after, it is wiped blank. */
START_TEST(sigkill_on_a_device_then_teardown)
{
	static const char *const dev_steps[] = { "partitioning", "partitioned", "mount-fat32" };
	struct pt_env e;
	struct ft_loop l;
	struct ft_output o;
	unsigned char *before = malloc(FT_FINGERPRINT_SIZE), *after = malloc(FT_FINGERPRINT_SIZE);

	pt_env_init(&e);
	ck_assert_int_eq(ft_loop_create(&l, e.dir, 600ull << 20), 0);
	ck_assert_int_eq(ft_disk_fingerprint(l.device, before), 0);
	setup_stopped_at(&e, l.device, dev_steps[_i], SIGKILL, &o);
	ck_assert_int_eq(o.status, 128 + SIGKILL);
	ft_output_free(&o);
	pt_teardown_ok(&e);
	ck_assert_int_eq(ft_mounts_under(e.dir), 0);
	ck_assert(!pt_blkid_finds_something(l.device));
	if (_i == 0) {
		ck_assert_int_eq(ft_disk_fingerprint(l.device, after), 0);
		ck_assert(memcmp(before, after, FT_FINGERPRINT_SIZE) == 0);
	}
	ft_loop_destroy(&l);
	free(before);
	free(after);
}
END_TEST

/* teardown refuses a disk whose GPT disk GUID is not the lab's. */
START_TEST(teardown_refuses_a_foreign_disk_guid)
{
	struct pt_env e;
	struct ft_loop l;
	struct ft_output o;
	char *text = NULL, *at;
	unsigned char *before = malloc(FT_FINGERPRINT_SIZE), *after = malloc(FT_FINGERPRINT_SIZE);
	FILE *f;
	long n;

	pt_env_init(&e);
	ck_assert_int_eq(ft_loop_create(&l, e.dir, 600ull << 20), 0);
	ck_assert_int_eq(pt_setup_device(&e, l.device, &o, "--yes", NULL), 0);
	pt_assert_result(&o, 0, NULL);
	ft_output_free(&o);
	/* unmount by hand so the disk itself is what teardown would change */
	f = fopen(e.state, "r");
	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	text = calloc(1, (size_t)n + 1);
	ck_assert_int_eq(fread(text, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	at = strstr(text, "\"disk_guid\":\"");
	ck_assert_ptr_nonnull(at);
	at += strlen("\"disk_guid\":\"");
	char saved = at[0];
	at[0] = at[0] == '0' ? '1' : '0'; /* another GUID */
	ck_assert_int_eq(ft_write_file(e.state, text), 0);
	ck_assert_int_eq(ft_disk_fingerprint(l.device, before), 0);
	ck_assert_int_eq(pt_teardown(&e, &o), 0);
	pt_assert_result(&o, 1, "GUID");
	ck_assert_ptr_nonnull(strstr(o.err, "refused"));
	ft_output_free(&o);
	ck_assert_int_eq(ft_disk_fingerprint(l.device, after), 0);
	ck_assert(memcmp(before, after, FT_FINGERPRINT_SIZE) == 0);
	ck_assert_int_eq(ft_mounts_under(e.mnt), 5); /* nothing unmounted either */
	at[0] = saved;
	ck_assert_int_eq(ft_write_file(e.state, text), 0);
	pt_teardown_ok(&e);
	ck_assert(!pt_blkid_finds_something(l.device));
	ft_loop_destroy(&l);
	free(text);
	free(before);
	free(after);
}
END_TEST

/* teardown killed at each of its steps: a second teardown finishes. */
START_TEST(teardown_killed_then_run_again)
{
	static const char *const td_steps[] = { "teardown-unmounted", "teardown-wiping",
						"teardown-wiped", "teardown-detaching" };
	struct pt_env e;
	struct ft_loop l;
	struct ft_output o;
	bool on_device = _i >= 4;
	const char *step = td_steps[_i % 4];

	pt_env_init(&e);
	if (on_device) {
		ck_assert_int_eq(ft_loop_create(&l, e.dir, 600ull << 20), 0);
		ck_assert_int_eq(pt_setup_device(&e, l.device, &o, "--yes", NULL), 0);
	} else {
		ck_assert_int_eq(pt_setup_image(&e, &o, NULL), 0);
	}
	pt_assert_result(&o, 0, NULL);
	ft_output_free(&o);
	{
		const char *argv[] = { ft_fslab_bin(), "teardown", "--state", e.state, NULL };

		stopped_at(argv, step, SIGKILL, &o);
	}
	ck_assert_int_eq(o.status, 128 + SIGKILL);
	ft_output_free(&o);
	pt_teardown_ok(&e);
	if (on_device) {
		ck_assert_int_eq(ft_mounts_under(e.dir), 0);
		ck_assert(!pt_blkid_finds_something(l.device));
		ft_loop_destroy(&l);
	}
	pt_assert_nothing_left(&e, NULL);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("provision interrupt");
	TCase *tc = pt_tcase(s, "interrupt", FT_LAB, 120);

	tcase_add_loop_test(tc, sigint_at_each_step_then_teardown, 0, N_STEPS);
	tcase_add_loop_test(tc, sigkill_at_each_step_then_teardown, 0, N_STEPS);
	tcase_add_loop_test(tc, sigkill_on_a_device_then_teardown, 0, 3);
	tcase_add_test(tc, teardown_refuses_a_foreign_disk_guid);
	tcase_add_loop_test(tc, teardown_killed_then_run_again, 0, 8);
	return ft_suite_run(s, argc, argv);
}
