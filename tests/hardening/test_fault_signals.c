/* Faults: SIGINT, SIGTERM and SIGKILL delivered at seeded points of fslab
 * setup, run and teardown.  A point is "the Nth system call the command
 * makes" (the ptrace stepper in hard_util.c stops it there, sends the
 * signal and lets it go), so every point is reproducible from the seed and
 * the points cover the whole command, from option parsing to the last
 * state write.  SIGINT goes to the command's process group, as Ctrl-C does.
 *
 * After every fault:
 *   setup     the state file is absent or valid; fslab teardown reaches a
 *             clean disk (or, when setup died before it wrote a state file,
 *             says there is no lab and the disk is byte-identical);
 *   teardown  a second teardown reaches a clean disk;
 *   run       fslab run --resume completes, and every cell of the plan is
 *             in the results exactly once (rows counted by cell identity:
 *             filesystem, test, file size, record size, trial).
 *
 * Points per command and signal: $FSLAB_FAULT_POINTS, default 20
 * (scripts/ci-sanitize.sh lowers it).  Seed: $FSLAB_FAULT_SEED, default 1.
 * Each test prints its figures ("FAULTS setup SIGKILL: 20 points ..."). */
#include "hard_util.h"
#include "fileutil.h"
#include "results.h"
#include "state.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static struct hu_lab lab;
static unsigned char *fp_before, *fp_now;

static void lab_up(void)
{
	hu_lab_up(&lab, "fslab-faults", 64u << 20, NULL);
}

static void lab_down(void)
{
	hu_lab_destroy(&lab);
}

static uint64_t fault_seed(void)
{
	const char *e = getenv("FSLAB_FAULT_SEED");

	return e && *e ? strtoull(e, NULL, 10) : 1;
}

static const char *sig_name(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "SIGKILL";
}

/* Point i of points + renames: the first `points` are stratified seeded
 * steps; the rest a signal at the entry of every rename(2) the command
 * makes (hu_publish_calls): the moments a state file or manifest is
 * published, where a half-recorded step would show. */
static int inject_fault(const char *const argv[], const char *log, unsigned i, unsigned points,
			long steps, uint64_t salt, int sig, long *at, int *status)
{
	if (i < points) {
		*at = hu_point(fault_seed() * salt + (uint64_t)sig, i, points, steps);
		return hu_trace_kill(argv, NULL, log, *at, sig, status);
	}
	*at = -(long)(i - points + 1);
	return hu_trace_kill_call(argv, NULL, log, hu_publish_calls, i - points + 1, sig, status);
}

static void point_name(char *buf, size_t len, const char *cmd, int sig, long at, long steps)
{
	if (at > 0)
		snprintf(buf, len, "%s %s at step %ld of %ld", cmd, sig_name(sig), at, steps);
	else
		snprintf(buf, len, "%s %s before rename(2) number %ld", cmd, sig_name(sig), -at);
}

static void setup_argv(const char *argv[12])
{
	const char *a[] = { ft_fslab_bin(), "setup", "--device", lab.loop.device, "--spec", lab.spec,
			    "--mount-root", lab.mnt, "--state", lab.state, "--yes", NULL };
	memcpy(argv, a, sizeof(a));
}

static void teardown_argv(const char *argv[12])
{
	const char *a[] = { ft_fslab_bin(), "teardown", "--state", lab.state, NULL };
	memcpy(argv, a, sizeof(a));
}

/* Failures are collected, not fatal at once: the test goes on (after
 * resetting the lab) so one run gives the whole picture. */
static unsigned n_failures;
static char failures[8][700];

static void record_failure(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void record_failure(const char *fmt, ...)
{
	va_list ap;
	char msg[700];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "FAILURE: %s\n", msg);
	if (n_failures < 8)
		snprintf(failures[n_failures], sizeof(failures[0]), "%s", msg);
	n_failures++;
	ck_assert_int_eq(hu_lab_reset(&lab), 0);
}

static void assert_no_failures(void)
{
	char all[8 * 710] = "";

	for (unsigned i = 0; i < n_failures && i < 8; i++) {
		strcat(all, "\n  ");
		strcat(all, failures[i]);
	}
	ck_assert_msg(n_failures == 0, "%u failure(s):%s", n_failures, all);
}

static bool setup_ok(void)
{
	struct ft_output o;
	bool ok;

	ck_assert_int_eq(hu_setup(&lab, &o), 0);
	ok = o.status == 0;
	if (!ok)
		record_failure("setup on a clean disk failed (%d): %s", o.status, o.err);
	ft_output_free(&o);
	return ok;
}

/* The state file is absent, or a state file fslab_state_load accepts (the
 * write is atomic: never half a file). */
static bool state_whole(const char *what)
{
	static struct fslab_state st;
	struct fslab_err err = FSLAB_ERR_INIT;
	int r = fslab_state_load(lab.state, &st, &err);

	if (r == 0 || r == -ENOENT)
		return true;
	record_failure("%s: state file unreadable after the fault: %s", what, err.msg);
	return false;
}

/* teardown after a fault reaches a clean disk.  Exit 1 "no lab" is right
 * only when there was no state file; after a setup the disk must then be as
 * it was before the command (fp_before); after a teardown that got as far
 * as removing the state file, clean is enough. */
static bool teardown_cleans(const char *what, bool after_setup)
{
	struct ft_output o;
	char why[512];
	struct stat st;
	bool had_state = stat(lab.state, &st) == 0, ok = true;

	ck_assert_int_eq(hu_teardown(&lab, &o), 0);
	if (had_state && o.status != 0) {
		record_failure("%s: the next teardown failed (%d): %s", what, o.status, o.err);
		ok = false;
	} else if (!had_state && o.status != 0) {
		if (o.status != 1 || !strstr(o.err, "no lab")) {
			record_failure("%s: teardown without a state file: status %d: %s", what,
				       o.status, o.err);
			ok = false;
		} else if (after_setup && (ft_disk_fingerprint(lab.loop.device, fp_now) != 0 ||
					   memcmp(fp_before, fp_now, FT_FINGERPRINT_SIZE) != 0)) {
			record_failure("%s: the command died before writing its state file but the disk changed",
				       what);
			ok = false;
		}
	}
	ft_output_free(&o);
	if (ok && !hu_disk_clean(&lab, why, sizeof(why))) {
		record_failure("%s: not clean after teardown: %s", what, why);
		ok = false;
	}
	return ok;
}

static void fingerprint_before(void)
{
	if (!fp_before) {
		fp_before = malloc(FT_FINGERPRINT_SIZE);
		fp_now = malloc(FT_FINGERPRINT_SIZE);
	}
	ck_assert_ptr_nonnull(fp_before);
	ck_assert_ptr_nonnull(fp_now);
	ck_assert_int_eq(ft_disk_fingerprint(lab.loop.device, fp_before), 0);
}

/* A command under SIGINT, SIGTERM and SIGKILL at seeded points and at
 * each rename(2): how to build its command line, the lab it needs before
 * each run (false: skip the point), and whether teardown after it expects
 * the disk as it was before (after a setup) or only clean. */
struct campaign {
	const char *cmd;
	uint64_t salt;
	void (*argv_of)(const char *argv[12]);
	bool (*prepare)(void);
	bool after_setup;
};

static bool prepare_setup(void)
{
	fingerprint_before();
	return true;
}

static bool prepare_teardown(void)
{
	if (!setup_ok())
		return false;
	fingerprint_before();
	return true;
}

/* Runs the whole command under the stepper once to count what a point can
 * be: its system-call stops (or, with nrs, its calls in nrs). */
static long count_points(const struct campaign *c, const long *nrs, const char *log)
{
	const char *argv[12];
	long n;
	int status;

	c->argv_of(argv);
	ck_assert(c->prepare());
	n = nrs ? hu_trace_count_calls(argv, NULL, log, nrs, &status)
		: hu_trace_count(argv, NULL, log, &status);
	ck_assert_msg(n > 0 && status == 0, "an uninterrupted %s failed (%d): see %s", c->cmd, status,
		      log);
	if (c->after_setup)
		teardown_cleans("after an uninterrupted setup", true);
	return n;
}

static void run_campaign(const struct campaign *c)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGKILL };
	unsigned points = hu_fault_points(20), total = 0;
	const char *argv[12];
	char log[PATH_MAX], what[128];
	long steps, renames;
	int status;

	snprintf(log, sizeof(log), "%s/%s.log", lab.dir, c->cmd);
	steps = count_points(c, NULL, log);
	renames = count_points(c, hu_publish_calls, log);
	for (size_t s = 0; s < 3; s++) {
		unsigned injected = 0, failed_cmd = 0, before = n_failures;

		for (unsigned i = 0; i < points + renames; i++) {
			long at;
			int r;

			c->argv_of(argv); /* the loop device may have been replaced */
			if (!c->prepare())
				continue;
			r = inject_fault(argv, log, i, points, steps, c->salt, sigs[s], &at, &status);
			point_name(what, sizeof(what), c->cmd, sigs[s], at, steps);
			ck_assert_msg(r >= 0, "%s: stepper error %d", what, r);
			injected += r == 1;
			failed_cmd += r == 1 && status != 0;
			if (state_whole(what))
				teardown_cleans(what, c->after_setup);
		}
		printf("FAULTS %s %s: %u seeded points + %ld at each rename(2), %u signals "
		       "delivered (%u stopped %s), %ld steps in a whole %s; %u failed checks\n",
		       c->cmd, sig_name(sigs[s]), points, renames, injected, failed_cmd, c->cmd, steps,
		       c->cmd, n_failures - before);
		fflush(stdout);
		if (injected < (points + renames) * 9 / 10)
			record_failure("%s %s: only %u of %u points reached", c->cmd, sig_name(sigs[s]),
				       injected, points);
		total += injected;
	}
	printf("FAULTS %s total: %u signals delivered\n", c->cmd, total);
	assert_no_failures();
}

START_TEST(setup_signals)
{
	static const struct campaign c = { "setup", 31, setup_argv, prepare_setup, true };

	run_campaign(&c);
}
END_TEST

START_TEST(teardown_signals)
{
	static const struct campaign c = { "teardown", 37, teardown_argv, prepare_teardown, false };

	run_campaign(&c);
}
END_TEST

/* setup --image: the image and the loop device setup makes itself.  A
 * signal right after each ioctl(2) (attaching the loop device is one) and
 * before each rename(2): afterwards teardown leaves no loop device over
 * the image and no image setup created. */
START_TEST(setup_image_signals)
{
	static const int sigs[] = { SIGINT, SIGKILL };
	static const long calls[] = { SYS_ioctl, SYS_rename, SYS_renameat, SYS_renameat2, -1 };
	char image[700], log[PATH_MAX], what[200], first[PATH_MAX + 100];
	const char *argv[] = { ft_fslab_bin(), "setup", "--image", image, "--spec", lab.spec,
			       "--mount-root", lab.mnt, "--state", lab.state, NULL };
	unsigned total = 0, points = hu_fault_points(20);
	long n_calls, stride;
	int status;

	snprintf(image, sizeof(image), "%s/lab.img", lab.dir);
	snprintf(log, sizeof(log), "%s/setup-image.log", lab.dir);
	n_calls = hu_trace_count_calls(argv, NULL, log, calls, &status);
	ck_assert_msg(n_calls > 0 && status == 0, "an uninterrupted setup --image failed (%d): %s",
		      status, hu_slurp(log));
	teardown_cleans("after setup --image", false);
	/* Every call in the normal build; about `points` of them when
	 * FSLAB_FAULT_POINTS is lowered (sanitizer build). */
	stride = points >= 20 ? 1 : (n_calls + points - 1) / points;
	for (size_t s = 0; s < 2; s++) {
		unsigned injected = 0, before = n_failures;

		for (long k = 1; k <= n_calls; k += stride) {
			struct ft_output o;
			struct stat st;
			int r = hu_trace_kill_call(argv, NULL, log, calls, k, sigs[s], &status);

			snprintf(what, sizeof(what), "setup --image %s after ioctl/rename number %ld of %ld",
				 sig_name(sigs[s]), k, n_calls);
			ck_assert_msg(r >= 0, "%s: stepper error %d", what, r);
			injected += r == 1;
			if (!state_whole(what))
				continue;
			ck_assert_int_eq(hu_teardown(&lab, &o), 0);
			if (o.status != 0 && !(o.status == 1 && strstr(o.err, "no lab")))
				record_failure("%s: teardown failed (%d): %s", what, o.status, o.err);
			else if (hu_image_loops(lab.dir, lab.loop.device, first, sizeof(first)))
				record_failure("%s: teardown (exit %d) left loop device %s attached", what,
					       o.status, first);
			else if (o.status == 0 && stat(image, &st) == 0)
				record_failure("%s: teardown left the image setup created", what);
			else if (stat(lab.state, &st) == 0)
				record_failure("%s: the state file is still there", what);
			ft_output_free(&o);
			unlink(image); /* a setup killed before its first state write */
		}
		printf("FAULTS setup --image %s: %ld points (every %ld. of %ld ioctl and rename "
		       "calls), %u signals delivered; %u failed checks\n",
		       sig_name(sigs[s]), (n_calls + stride - 1) / stride, stride, n_calls, injected,
		       n_failures - before);
		fflush(stdout);
		total += injected;
	}
	printf("FAULTS setup --image total: %u signals delivered\n", total);
	assert_no_failures();
}
END_TEST

/* ---- run ---- */

/* Rows counted by cell identity. */
struct cell_count {
	char key[128];
	unsigned n;
};

struct cell_set {
	struct cell_count *c;
	size_t n;
	unsigned bad_rows;
	char bad[512];
};

static void cells_add(struct cell_set *s, const char *key)
{
	for (size_t i = 0; i < s->n; i++) {
		if (strcmp(s->c[i].key, key) == 0) {
			s->c[i].n++;
			return;
		}
	}
	s->c = realloc(s->c, (s->n + 1) * sizeof(*s->c));
	ck_assert_ptr_nonnull(s->c);
	snprintf(s->c[s->n].key, sizeof(s->c[0].key), "%s", key);
	s->c[s->n++].n = 1;
}

static unsigned cells_get(const struct cell_set *s, const char *key)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->c[i].key, key) == 0)
			return s->c[i].n;
	return 0;
}

/* Reads every <dir>/<fs>.csv of the lab with the results reader. */
static void cells_load(const char *dir, struct cell_set *s)
{
	static const char *const fs[] = { "a", "b" };

	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < 2; i++) {
		struct fslab_results_reader *rd;
		struct fslab_result_row row;
		char path[PATH_MAX], key[128];
		struct fslab_err fe = FSLAB_ERR_INIT;
		int r;

		snprintf(path, sizeof(path), "%s/%s.csv", dir, fs[i]);
		if (fslab_results_open(path, &rd, &fe) < 0) {
			s->bad_rows++;
			snprintf(s->bad, sizeof(s->bad), "%s", fe.msg);
			continue;
		}
		while ((r = fslab_results_next(rd, &row, &fe)) != 0) {
			if (r < 0) {
				s->bad_rows++;
				snprintf(s->bad, sizeof(s->bad), "%s", fe.msg);
				break;
			}
			snprintf(key, sizeof(key), "%s,%s,%llu,%llu,%u", row.filesystem,
				 fslab_test_to_string(row.test), (unsigned long long)row.file_kib,
				 (unsigned long long)row.record_kib, row.trial);
			cells_add(s, key);
		}
		fslab_results_close(rd);
	}
}

static void run_argv(const char *argv[12], const char *out)
{
	const char *a[] = { ft_fslab_bin(), "run", "--state", lab.state, "--sweep", lab.spec,
			    "--out", out, "--no-device-probe", "--quiet", NULL };
	memcpy(argv, a, sizeof(a));
}

static unsigned total_lost, total_dup, total_extra;

/* After a fault: --resume completes and every cell of ref is in out
 * exactly once. */
static void resume_and_count(const char *out, const struct cell_set *ref, const char *what,
			     unsigned *before_manifest)
{
	struct ft_output o;
	struct cell_set got;
	char mf[PATH_MAX];
	struct stat st;
	unsigned lost = 0, dup = 0, extra = 0;

	snprintf(mf, sizeof(mf), "%.4000s/manifest.json", out);
	if (stat(mf, &st) == 0) {
		ck_assert_int_eq(ft_fslab(&o, "run", "--resume", out, "--quiet", NULL), 0);
	} else {
		/* Killed before the run recorded its settings: nothing to
		 * resume; the same command again must finish the job. */
		const char *argv[12];
		(*before_manifest)++;
		run_argv(argv, out);
		ck_assert_int_eq(ft_run(argv, NULL, &o), 0);
	}
	if (o.status != 0) {
		record_failure("%s: resume failed (%d): %s", what, o.status, o.err);
		ft_output_free(&o);
		return;
	}
	ft_output_free(&o);
	cells_load(out, &got);
	if (got.bad_rows)
		record_failure("%s: results unreadable after resume: %s", what, got.bad);
	for (size_t i = 0; i < ref->n; i++) {
		unsigned n = cells_get(&got, ref->c[i].key);
		lost += n == 0;
		dup += n > 1 ? n - 1 : 0;
	}
	for (size_t i = 0; i < got.n; i++)
		extra += cells_get(ref, got.c[i].key) == 0;
	if (lost || dup || extra)
		record_failure("%s: %u cell(s) lost, %u duplicated, %u not in the plan", what, lost,
			       dup, extra);
	total_lost += lost;
	total_dup += dup;
	total_extra += extra;
	free(got.c);
}

START_TEST(run_signals)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGKILL };
	unsigned points = hu_fault_points(20), total = 0;
	const char *argv[12];
	char log[PATH_MAX], what[160], out[PATH_MAX];
	struct cell_set ref;
	long steps, renames;
	int status;

	snprintf(log, sizeof(log), "%s/run.log", lab.dir);
	ck_assert(setup_ok());
	ck_assert_int_eq(fslab_mkdir_p(lab.results, 0755), 0);
	snprintf(out, sizeof(out), "%s/reference", lab.results);
	run_argv(argv, out);
	steps = hu_trace_count(argv, NULL, log, &status);
	ck_assert_msg(steps > 0 && status == 0, "an uninterrupted run failed (%d): see %s", status,
		      log);
	cells_load(out, &ref);
	ck_assert_msg(ref.bad_rows == 0, "reference results unreadable: %s", ref.bad);
	ck_assert_msg(ref.n == 60, "the reference run has %zu cells, expected 60", ref.n);
	for (size_t i = 0; i < ref.n; i++)
		ck_assert_msg(ref.c[i].n == 1, "reference run: cell %s %u times", ref.c[i].key,
			      ref.c[i].n);
	snprintf(out, sizeof(out), "%s/count-renames", lab.results);
	run_argv(argv, out);
	renames = hu_trace_count_calls(argv, NULL, log, hu_publish_calls, &status);
	ck_assert_msg(renames > 0 && status == 0, "counting run's renames failed (%d)", status);
	for (size_t s = 0; s < 3; s++) {
		unsigned injected = 0, before = n_failures, no_manifest = 0;
		unsigned lost0 = total_lost, dup0 = total_dup;

		for (unsigned i = 0; i < points + renames; i++) {
			long at;
			int r;

			snprintf(out, sizeof(out), "%s/%s-%u", lab.results, sig_name(sigs[s]), i);
			run_argv(argv, out);
			r = inject_fault(argv, log, i, points, steps, 41, sigs[s], &at, &status);
			point_name(what, sizeof(what), "run", sigs[s], at, steps);
			ck_assert_msg(r >= 0, "%s: stepper error %d", what, r);
			injected += r == 1;
			resume_and_count(out, &ref, what, &no_manifest);
		}
		printf("FAULTS run %s: %u seeded points + %ld at each rename(2), %u signals "
		       "delivered, %ld steps in a whole run (%zu cells); %u killed before the manifest "
		       "(re-run instead of --resume); cells lost %u, duplicated %u; %u failed checks\n",
		       sig_name(sigs[s]), points, renames, injected, steps, ref.n, no_manifest,
		       total_lost - lost0, total_dup - dup0, n_failures - before);
		fflush(stdout);
		if (injected < (points + renames) * 9 / 10)
			record_failure("run %s: only %u of %u points reached", sig_name(sigs[s]),
				       injected, points);
		total += injected;
	}
	printf("FAULTS run total: %u signals delivered; cells lost %u, duplicated %u, extra %u\n",
	       total, total_lost, total_dup, total_extra);
	free(ref.c);
	teardown_cleans("after the run faults", false);
	assert_no_failures();
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("fault_signals");
	TCase *tc;

	tc = ft_tcase(s, "setup", FT_EXT_LAB);
	tcase_add_unchecked_fixture(tc, lab_up, lab_down);
	tcase_add_test(tc, setup_signals);
	tc = ft_tcase(s, "teardown", FT_EXT_LAB);
	tcase_add_unchecked_fixture(tc, lab_up, lab_down);
	tcase_add_test(tc, teardown_signals);
	tc = ft_tcase(s, "setup_image", FT_EXT_LAB);
	tcase_add_unchecked_fixture(tc, lab_up, lab_down);
	tcase_add_test(tc, setup_image_signals);
	tc = ft_tcase(s, "run", FT_EXT_LAB);
	tcase_add_unchecked_fixture(tc, lab_up, lab_down);
	tcase_add_test(tc, run_signals);
	return ft_suite_run(s, argc, argv);
}
