/* fslab run's steady-state phase end to end (root): --steady-state on on a
 * small ext4 loop filesystem with 1M rounds and a one-cell sweep records
 * every round, the window and the outcome in the manifest and says each
 * round on the terminal; auto skips a --dir run and an image lab and says
 * why; the trim and idle wait after a pass are recorded; fslab report
 * banners a filesystem that never reached steady state; --dry-run counts
 * the phase.  And (user) the option's usage errors. */
#include "testutil.h"

#include <errno.h>
#include <signal.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>

static char *tmp;
static struct ft_loop loop;
static char mnt[600], dir_arg[700];

static void setup(void)
{
	struct ft_output o;

	tmp = ft_mkdtemp("fslab-steady");
	ck_assert_ptr_nonnull(tmp);
	ck_assert_int_eq(ft_loop_create(&loop, tmp, 128u << 20), 0);
	ck_assert_int_eq(ft_run((const char *const[]){ "mkfs.ext4", "-q", "-E",
						       "lazy_itable_init=0,lazy_journal_init=0",
						       loop.device, NULL },
				NULL, &o),
			 0);
	ck_assert_msg(o.status == 0, "mkfs.ext4: %s", o.err);
	ft_output_free(&o);
	snprintf(mnt, sizeof(mnt), "%s/m", tmp);
	ck_assert_int_eq(mkdir(mnt, 0755), 0);
	ck_assert_msg(mount(loop.device, mnt, "ext4", 0, NULL) == 0, "mount: %s", strerror(errno));
	snprintf(dir_arg, sizeof(dir_arg), "e=%s", mnt);
}

static void teardown(void)
{
	ft_cleanup_under(tmp); /* unmounts and detaches what is below tmp */
	ft_loop_destroy(&loop);
	free(tmp);
}

static json_object *jget(json_object *o, const char *key)
{
	json_object *v = NULL;

	ck_assert_msg(json_object_object_get_ex(o, key, &v), "manifest key '%s' missing", key);
	return v;
}

static json_object *manifest_of(const char *out)
{
	char p[1024];
	json_object *m;

	snprintf(p, sizeof(p), "%s/manifest.json", out);
	m = json_object_from_file(p);
	ck_assert_msg(m != NULL, "%s is not JSON", p);
	return m;
}

static size_t count(const char *text, const char *needle)
{
	size_t n = 0;

	for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* fslab run with the one-cell sweep into tmp/<name>. */
static void run_tiny(struct ft_output *o, const char *name, const char *steady, char *out, size_t len)
{
	snprintf(out, len, "%s/%s", tmp, name);
	ck_assert_int_eq(ft_fslab(o, "run", "--dir", dir_arg, "--out", out, "--tests", "write",
				  "--file-sizes", "64K", "--record-sizes", "64K", "--trials", "1",
				  "--cache", "warm", "--no-device-probe", "--steady-state-round", "1M",
				  steady ? "--steady-state" : NULL, steady, NULL),
			 0);
	ck_assert_msg(o->status == 0, "fslab run: %s", o->err);
}

START_TEST(steady_state_on_records_every_round)
{
	struct ft_output o;
	char out[700];
	json_object *m, *fs, *st, *rounds, *w;
	const char *result;
	size_t n;

	run_tiny(&o, "on", "on", out, sizeof(out));
	m = manifest_of(out);
	ck_assert_str_eq(json_object_get_string(jget(m, "steady_state")), "on");
	ck_assert_int_eq(json_object_get_int(jget(m, "steady_state_round_kib")), 1024);
	fs = json_object_array_get_idx(jget(m, "filesystems"), 0);
	st = jget(fs, "steady_state");
	rounds = jget(st, "rounds");
	n = json_object_array_length(rounds);
	result = json_object_get_string(jget(st, "result"));
	w = jget(st, "window");
	ck_assert_int_eq(json_object_get_int(jget(st, "round_bytes")), 1 << 20);
	/* a few rounds' bytes (4 x 1M, raised to the 16M floor), not half of
	 * the free space; and the free space it was sized from */
	ck_assert_int_eq(json_object_get_int64(jget(st, "file_bytes")), 16 << 20);
	ck_assert_int_ge(json_object_get_int64(jget(st, "free_bytes")), 64 << 20);
	ck_assert_uint_ge(n, 5);
	ck_assert_uint_le(n, 25);
	/* the window is the last 5 rounds; the outcome is its rule's */
	ck_assert_int_eq(json_object_get_int(jget(w, "last_round")), (int)n);
	ck_assert_int_eq(json_object_get_int(jget(w, "first_round")), (int)n - 4);
	if (json_object_get_boolean(jget(w, "range_ok")) && json_object_get_boolean(jget(w, "slope_ok"))) {
		char want[64];

		snprintf(want, sizeof(want), "reached in round %zu", n);
		ck_assert_str_eq(result, want);
		ck_assert_int_eq(json_object_get_int(jget(st, "reached_in_round")), (int)n);
	} else {
		ck_assert_str_eq(result, "not reached after 25 rounds");
		ck_assert_uint_eq(n, 25);
		ck_assert(json_object_get_type(jget(st, "reached_in_round")) == json_type_null);
		ck_assert_ptr_nonnull(strstr(o.err, "steady state not reached after 25 rounds"));
	}
	for (size_t k = 0; k < n; k++) {
		json_object *r = json_object_array_get_idx(rounds, k);

		ck_assert_int_eq(json_object_get_int(jget(r, "round")), (int)k + 1);
		ck_assert_int_gt(json_object_get_int64(jget(r, "rand_write_kib_s")), 0);
		ck_assert_int_gt(json_object_get_int64(jget(r, "seq_write_kib_s")), 0);
	}
	/* one progress line per round, in the brief's words */
	ck_assert_msg(strstr(o.err, "steady state e: round 1/25, 4K randwrite "), "said: %s", o.err);
	ck_assert_uint_eq(count(o.err, "steady state e: round "), n);
	/* a --dir: no trim, no idle wait, and the reason */
	ck_assert_str_eq(json_object_get_string(jget(jget(fs, "between_filesystems"), "skipped")),
			 "--dir: not a lab's disk (no trim, no wait)");
	/* the phase's file is gone with the private directory */
	ck_assert_int_eq(ft_dir_entries(mnt), 1); /* lost+found */
	json_object_put(m);
	ft_output_free(&o);
}
END_TEST

/* SIGINT during the phase: the run stops there (exit 1), the manifest says
 * "interrupted" and keeps the setting; --resume runs the phase again
 * (session 2) and then the sweep. */
START_TEST(interrupted_phase_is_run_again_on_resume)
{
	char out[700];
	struct ft_proc p;
	struct ft_output o;
	json_object *m, *st;

	snprintf(out, sizeof(out), "%s/intr", tmp);
	const char *argv[] = { ft_fslab_bin(), "run", "--dir", dir_arg, "--out", out, "--tests", "write",
			       "--file-sizes", "64K", "--record-sizes", "64K", "--trials", "1",
			       "--cache", "warm", "--no-device-probe", "--steady-state", "on",
			       "--steady-state-round", "4M", NULL };
	ck_assert_int_eq(ft_spawn(argv, &p), 0);
	ck_assert_msg(ft_proc_wait_for(&p, "steady state e: round 1/25", 60000) == 0, "never said round 1");
	kill(p.pid, SIGINT);
	ck_assert_int_eq(ft_proc_finish(&p, &o), 0);
	ck_assert_msg(o.status == 1, "status %d: %s", o.status, o.err);
	ck_assert_ptr_nonnull(strstr(o.err, "fslab run --resume"));
	ft_output_free(&o);
	m = manifest_of(out);
	st = jget(json_object_array_get_idx(jget(m, "filesystems"), 0), "steady_state");
	ck_assert_str_eq(json_object_get_string(jget(st, "result")), "interrupted");
	ck_assert_int_eq(json_object_get_int(jget(st, "session")), 1);
	json_object_put(m);

	ck_assert_int_eq(ft_fslab(&o, "run", "--resume", out, NULL), 0);
	ck_assert_msg(o.status == 0, "resume: %s", o.err);
	ck_assert_ptr_nonnull(strstr(o.err, "steady state e: round 1/25"));
	ft_output_free(&o);
	m = manifest_of(out);
	ck_assert_str_eq(json_object_get_string(jget(m, "steady_state")), "on");
	ck_assert_int_eq(json_object_get_int(jget(m, "steady_state_round_kib")), 4096);
	st = jget(json_object_array_get_idx(jget(m, "filesystems"), 0), "steady_state");
	ck_assert_int_eq(json_object_get_int(jget(st, "session")), 2);
	ck_assert_msg(strncmp(json_object_get_string(jget(st, "result")), "reached in round ", 17) == 0 ||
			      strcmp(json_object_get_string(jget(st, "result")), "not reached after 25 rounds") == 0,
		      "result: %s", json_object_get_string(jget(st, "result")));
	json_object_put(m);
	ck_assert_int_eq(ft_dir_entries(mnt), 1); /* lost+found: no file of the phase left */
}
END_TEST

START_TEST(auto_skips_a_dir_run_and_says_why)
{
	struct ft_output o;
	char out[700];
	json_object *m, *st;

	run_tiny(&o, "auto", NULL, out, sizeof(out));
	m = manifest_of(out);
	ck_assert_str_eq(json_object_get_string(jget(m, "steady_state")), "auto");
	st = jget(json_object_array_get_idx(jget(m, "filesystems"), 0), "steady_state");
	ck_assert_msg(strncmp(json_object_get_string(jget(st, "result")), "skipped: --dir run", 18) == 0,
		      "result: %s", json_object_get_string(jget(st, "result")));
	ck_assert_uint_eq(json_object_array_length(jget(st, "rounds")), 0);
	ck_assert_ptr_null(strstr(o.err, "steady state e: round"));
	json_object_put(m);
	ft_output_free(&o);
}
END_TEST

/* A run whose phase ran out of rounds is bannered; one that reached it
 * (or skipped it) is not.  The outcome is set in the manifest so the test
 * does not depend on the loop device's noise. */
/* The wait for an idle disk after a filesystem's pass, on the loop device
 * (FSLAB_TEST_QUIET_LOOP=1 counts a --dir on a loop as a lab's disk):
 * recorded with its time; a --dir is not trimmed. */
START_TEST(quiet_wait_is_recorded)
{
	struct ft_output o;
	char out[700];
	json_object *m, *q;

	ck_assert_int_eq(setenv("FSLAB_TEST_QUIET_LOOP", "1", 1), 0);
	run_tiny(&o, "quiet", "off", out, sizeof(out));
	unsetenv("FSLAB_TEST_QUIET_LOOP");
	m = manifest_of(out);
	q = jget(json_object_array_get_idx(jget(m, "filesystems"), 0), "between_filesystems");
	ck_assert(json_object_get_type(jget(q, "skipped")) == json_type_null);
	ck_assert_str_eq(json_object_get_string(jget(q, "trim")), "not trimmed: --dir (not a filesystem of the lab's)");
	ck_assert_int_eq(json_object_get_int(jget(q, "waits")), 1);
	/* two samples 1 s apart at the least, 30 s at the most */
	ck_assert_double_ge(json_object_get_double(jget(q, "wait_s")), 0.9);
	ck_assert_double_le(json_object_get_double(jget(q, "wait_max_s")), 32);
	ck_assert_str_eq(json_object_get_string(jget(jget(json_object_array_get_idx(jget(m, "filesystems"), 0),
							  "steady_state"), "result")),
			 "skipped: --steady-state off");
	json_object_put(m);
	ft_output_free(&o);
}
END_TEST

/* An image lab: auto skips the phase ("skipped: image lab") and the
 * quiet step (a loop device); with FSLAB_TEST_QUIET_LOOP=1 the lab's
 * partition is trimmed after its pass and the wait recorded. */
START_TEST(image_lab_skips_and_trims_under_the_hook)
{
	char spec[700], img[700], root[700], state[700], out[700];
	struct ft_output o;
	json_object *m, *fs;

	snprintf(spec, sizeof(spec), "%s/spec.ini", tmp);
	snprintf(img, sizeof(img), "%s/lab.img", tmp);
	snprintf(root, sizeof(root), "%s/lab", tmp);
	snprintf(state, sizeof(state), "%s/state.json", tmp);
	ck_assert_int_eq(ft_write_file(spec, "[fs e4]\ntype = ext4\nsize = 64M\n"), 0);
	ck_assert_int_eq(ft_fslab(&o, "setup", "--image", img, "--spec", spec, "--mount-root", root,
				  "--state", state, "--yes", NULL),
			 0);
	ck_assert_msg(o.status == 0, "setup: %s", o.err);
	ft_output_free(&o);
	for (int hook = 0; hook < 2; hook++) {
		snprintf(out, sizeof(out), "%s/lab-out%d", tmp, hook);
		if (hook)
			ck_assert_int_eq(setenv("FSLAB_TEST_QUIET_LOOP", "1", 1), 0);
		ck_assert_int_eq(ft_fslab(&o, "run", "--state", state, "--out", out, "--tests", "write",
					  "--file-sizes", "64K", "--record-sizes", "64K", "--trials", "1",
					  "--cache", "warm", "--no-device-probe", NULL),
				 0);
		unsetenv("FSLAB_TEST_QUIET_LOOP");
		ck_assert_msg(o.status == 0, "run: %s", o.err);
		ft_output_free(&o);
		m = manifest_of(out);
		fs = json_object_array_get_idx(jget(m, "filesystems"), 0);
		ck_assert_str_eq(json_object_get_string(jget(jget(fs, "steady_state"), "result")),
				 "skipped: image lab");
		if (!hook) {
			ck_assert_ptr_nonnull(strstr(json_object_get_string(jget(jget(fs, "between_filesystems"), "skipped")),
						     "image lab on a loop device"));
		} else {
			json_object *q = jget(fs, "between_filesystems");

			ck_assert_msg(strncmp(json_object_get_string(jget(q, "trim")), "trimmed ", 8) == 0,
				      "trim: %s", json_object_get_string(jget(q, "trim")));
			ck_assert_int_gt(json_object_get_int64(jget(q, "trimmed_bytes")), 0);
			ck_assert_int_eq(json_object_get_int(jget(q, "waits")), 1);
		}
		json_object_put(m);
	}
	ck_assert_int_eq(ft_fslab(&o, "teardown", "--state", state, "--yes", NULL), 0);
	ck_assert_msg(o.status == 0, "teardown: %s", o.err);
	ft_output_free(&o);
}
END_TEST

START_TEST(report_banners_no_steady_state)
{
	struct ft_output o, r;
	char out[700], path[800];
	json_object *m, *st;

	run_tiny(&o, "banner", "on", out, sizeof(out));
	ft_output_free(&o);
	ck_assert_int_eq(ft_fslab(&r, "report", out, "--format", "text", NULL), 0);
	ck_assert_msg(r.status == 0, "report: %s", r.err);
	m = manifest_of(out);
	st = jget(json_object_array_get_idx(jget(m, "filesystems"), 0), "steady_state");
	if (json_object_get_type(jget(st, "reached_in_round")) != json_type_null)
		ck_assert_ptr_null(strstr(r.out, "NO STEADY STATE"));
	ft_output_free(&r);
	json_object_object_add(st, "result", json_object_new_string("not reached after 25 rounds"));
	json_object_object_add(st, "reached_in_round", NULL);
	snprintf(path, sizeof(path), "%s/manifest.json", out);
	ck_assert_int_eq(json_object_to_file(path, m), 0);
	json_object_put(m);
	ck_assert_int_eq(ft_fslab(&r, "report", out, "--format", "text", NULL), 0);
	ck_assert_msg(r.status == 0, "report: %s", r.err);
	ck_assert_msg(strstr(r.out, "!! NO STEADY STATE: e did not reach SSD steady state in 25 rounds"),
		      "report: %s", r.out);
	ft_output_free(&r);
}
END_TEST

/* A fake hwmon sensor (FSLAB_TEST_DRIVE_SYSDIR) for the loop device's
 * "drive": hot (at its warning threshold), every ok row is flagged
 * thermal, the manifest records the drive before and after the pass and
 * the reason, and fslab report names the flag; cool, no row is. */
static char *slurp_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 1 << 16);
	size_t n;

	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(buf);
	n = fread(buf, 1, (1 << 16) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void fake_sensor(const char *milli_c)
{
	char d[800], f[900];

	snprintf(d, sizeof(d), "%s/sys", tmp);
	mkdir(d, 0755);
	snprintf(d, sizeof(d), "%s/sys/device", tmp);
	mkdir(d, 0755);
	snprintf(d, sizeof(d), "%s/sys/device/hwmon0", tmp);
	mkdir(d, 0755);
	snprintf(f, sizeof(f), "%s/temp1_input", d);
	ck_assert_int_eq(ft_write_file(f, milli_c), 0);
	snprintf(f, sizeof(f), "%s/temp1_max", d);
	ck_assert_int_eq(ft_write_file(f, "70000\n"), 0);
	snprintf(d, sizeof(d), "%s/sys", tmp);
	ck_assert_int_eq(setenv("FSLAB_TEST_DRIVE_SYSDIR", d, 1), 0);
}

START_TEST(hot_drive_flags_rows_thermal)
{
	struct ft_output o, r;
	char out[700], csv[800];
	json_object *m, *drive;
	char *text;

	fake_sensor("71000\n");
	run_tiny(&o, "hot", "off", out, sizeof(out));
	unsetenv("FSLAB_TEST_DRIVE_SYSDIR");
	ck_assert_msg(strstr(o.err, "the drive was hot after this pass (71 C, at or above its warning threshold 70 C)"),
		      "said: %s", o.err);
	ft_output_free(&o);
	snprintf(csv, sizeof(csv), "%s/e.csv", out);
	text = slurp_file(csv);
	ck_assert_ptr_nonnull(text);
	/* the flag column, after whatever else the loop device earned (the
	 * device columns, a loop device's counters, may follow it) */
	ck_assert_msg(strstr(text, ",ok,thermal") || strstr(text, ";thermal"), "csv: %s", text);
	free(text);
	m = manifest_of(out);
	drive = jget(json_object_array_get_idx(jget(m, "filesystems"), 0), "drive");
	ck_assert_double_eq_tol(json_object_get_double(jget(jget(drive, "before"), "temperature_c")), 71, 1e-9);
	ck_assert_double_eq_tol(json_object_get_double(jget(jget(drive, "before"), "warning_threshold_c")), 70, 1e-9);
	ck_assert_str_eq(json_object_get_string(jget(jget(drive, "after"), "temperature_source")), "hwmon");
	ck_assert_double_eq_tol(json_object_get_double(jget(drive, "max_temperature_c")), 71, 1e-9);
	ck_assert_int_eq(json_object_get_int(jget(drive, "thermal_rows")), 1);
	ck_assert_str_eq(json_object_get_string(jget(drive, "thermal")), "71 C, at or above its warning threshold 70 C");
	json_object_put(m);
	ck_assert_int_eq(ft_fslab(&r, "report", out, "--format", "text", NULL), 0);
	ck_assert_msg(r.status == 0, "report: %s", r.err);
	ck_assert_msg(strstr(r.out, "T = hot drive: measured while the drive reported"), "report: %s", r.out);
	ck_assert_msg(strstr(r.out, "!! HOT DRIVE: e (71 C, at or above its warning threshold 70 C)."),
		      "report: %s", r.out);
	ft_output_free(&r);

	fake_sensor("45000\n");
	run_tiny(&o, "cool", "off", out, sizeof(out));
	unsetenv("FSLAB_TEST_DRIVE_SYSDIR");
	ft_output_free(&o);
	snprintf(csv, sizeof(csv), "%s/e.csv", out);
	text = slurp_file(csv);
	ck_assert_ptr_nonnull(text);
	ck_assert_msg(!strstr(text, "thermal"), "csv: %s", text);
	free(text);
	m = manifest_of(out);
	drive = jget(json_object_array_get_idx(jget(m, "filesystems"), 0), "drive");
	ck_assert_int_eq(json_object_get_int(jget(drive, "thermal_rows")), 0);
	ck_assert(json_object_get_type(jget(drive, "thermal")) == json_type_null);
	json_object_put(m);
}
END_TEST

/* The drive is read before and after every pass, not only around the
 * filesystem's whole sweep: 3 trials give 3 passes in the manifest, each
 * with its trial, the session and both readings, the later pass read no
 * earlier than the pass before it ended. */
START_TEST(drive_recorded_per_pass)
{
	struct ft_output o;
	char out[700];
	json_object *m, *passes;
	const char *prev_after = "";

	fake_sensor("45000\n");
	snprintf(out, sizeof(out), "%s/passes", tmp);
	ck_assert_int_eq(ft_fslab(&o, "run", "--dir", dir_arg, "--out", out, "--tests", "write",
				  "--file-sizes", "64K", "--record-sizes", "64K", "--trials", "3",
				  "--cache", "warm", "--no-device-probe", "--steady-state", "off", NULL),
			 0);
	unsetenv("FSLAB_TEST_DRIVE_SYSDIR");
	ck_assert_msg(o.status == 0, "fslab run: %s", o.err);
	ft_output_free(&o);
	m = manifest_of(out);
	passes = jget(jget(json_object_array_get_idx(jget(m, "filesystems"), 0), "drive"), "passes");
	ck_assert_uint_eq(json_object_array_length(passes), 3);
	for (size_t i = 0; i < 3; i++) {
		json_object *p = json_object_array_get_idx(passes, i);
		const char *b = json_object_get_string(jget(jget(p, "before"), "read_at"));
		const char *a = json_object_get_string(jget(jget(p, "after"), "read_at"));

		ck_assert_int_eq(json_object_get_int(jget(p, "trial")), (int)i + 1);
		ck_assert_int_eq(json_object_get_int(jget(p, "session")), 1);
		ck_assert_double_eq_tol(json_object_get_double(jget(jget(p, "before"), "temperature_c")), 45, 1e-9);
		ck_assert_str_eq(json_object_get_string(jget(jget(p, "after"), "temperature_source")), "hwmon");
		/* ISO 8601 UTC sorts as text */
		ck_assert_msg(strcmp(b, prev_after) >= 0 && strcmp(a, b) >= 0, "pass %zu: %s..%s after %s", i, b,
			      a, prev_after);
		prev_after = a;
	}
	ck_assert_int_eq(json_object_get_int(jget(jget(json_object_array_get_idx(jget(m, "filesystems"), 0), "drive"),
					      "passes_not_recorded")),
			 0);
	json_object_put(m);
}
END_TEST

/* The dry run's time counts the phase (all its rounds): a plan of one
 * 64K write takes longer with the phase on than off. */
START_TEST(dry_run_counts_the_phase)
{
	struct ft_output o;
	unsigned m[2] = { 0 }, sec[2] = { 0 };

	for (int on = 0; on < 2; on++) {
		const char *t;

		ck_assert_int_eq(ft_fslab(&o, "run", "--dry-run", "--dir", dir_arg, "--tests", "write",
					  "--file-sizes", "64K", "--record-sizes", "64K", "--trials", "1",
					  "--cache", "warm", "--probe-size", "4M", "--steady-state", on ? "on" : "off",
					  "--steady-state-round", "1M", NULL),
				 0);
		ck_assert_msg(o.status == 0, "dry run: %s%s", o.out, o.err);
		ck_assert_ptr_nonnull(strstr(o.out, on ? "steady state: on (rounds of 1M)" : "steady state: off"));
		t = strstr(o.out, "time: about ");
		ck_assert_msg(t && sscanf(t, "time: about %u:%u", &m[on], &sec[on]) == 2, "said: %s", o.out);
		ft_output_free(&o);
	}
	ck_assert_msg(m[1] * 60 + sec[1] > m[0] * 60 + sec[0], "on %u:%02u, off %u:%02u", m[1], sec[1], m[0], sec[0]);
}
END_TEST

START_TEST(usage_errors)
{
	struct ft_output o;

	ck_assert_int_eq(ft_fslab(&o, "run", "--dir", "x=/nonexistent", "--steady-state", "maybe", NULL), 0);
	ck_assert_int_eq(o.status, 2);
	ck_assert_ptr_nonnull(strstr(o.err, "--steady-state 'maybe': use auto"));
	ft_output_free(&o);
	ck_assert_int_eq(ft_fslab(&o, "run", "--dir", "x=/tmp", "--steady-state-round", "1536K", NULL), 0);
	ck_assert_int_eq(o.status, 2);
	ck_assert_ptr_nonnull(strstr(o.err, "give whole MiB, at least 1M"));
	ft_output_free(&o);
	ck_assert_int_eq(ft_fslab(&o, "run", "--resume", "/nonexistent", "--steady-state", "on", NULL), 0);
	ck_assert_int_eq(o.status, 2);
	/* the list of refused settings names both (more rows may follow) */
	ck_assert_msg(strstr(o.err, "--steady-state, --steady-state-round"), "%s", o.err);
	ft_output_free(&o);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("bench_steady");
	TCase *user = ft_tcase(s, "usage", 0);
	TCase *root = ft_tcase(s, "loop", FT_ROOT | FT_MKFS_EXT);

	tcase_add_test(user, usage_errors);
	tcase_add_unchecked_fixture(root, setup, teardown);
	tcase_add_test(root, steady_state_on_records_every_round);
	tcase_add_test(root, interrupted_phase_is_run_again_on_resume);
	tcase_add_test(root, auto_skips_a_dir_run_and_says_why);
	tcase_add_test(root, quiet_wait_is_recorded);
	tcase_add_test(root, image_lab_skips_and_trims_under_the_hook);
	tcase_add_test(root, report_banners_no_steady_state);
	tcase_add_test(root, dry_run_counts_the_phase);
	tcase_add_test(root, hot_drive_flags_rows_thermal);
	tcase_add_test(root, drive_recorded_per_pass);
	return ft_suite_run(s, argc, argv);
}
