/* lib/manifest: what is written reads back the same, every number read
 * from disk is held to the range fslab writes (a message naming the field
 * and the range), and `fslab run --resume` refuses a manifest whose
 * file_max_kib once made it spin forever. */
#include "manifest.h"
#include "testutil.h"

#include "cell_plan.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A run's manifest with every field set. */
static struct fslab_manifest *full_run(void)
{
	static const char *const cmd[] = { "run", "--dir", "a=/tmp/a", "--out", "/tmp/o" };
	static const char *const again[] = { "run", "--resume", "/tmp/o" };
	struct fslab_manifest *m = fslab_manifest_new(FSLAB_MANIFEST_RUN);
	struct fslab_manifest_fs *f;

	ck_assert_ptr_nonnull(m);
	snprintf(m->fslab_version, sizeof(m->fslab_version), "9.9.9");
	snprintf(m->run_id, sizeof(m->run_id), "0661aad0-6693-4191-a584-11b022e81220");
	snprintf(m->label, sizeof(m->label), "hostA");
	ck_assert_int_eq(fslab_manifest_set_words(&m->command, &m->n_command, 5, cmd), 0);
	ck_assert_int_eq(fslab_manifest_set_words(&m->resumed_with, &m->n_resumed_with, 3, again), 0);
	snprintf(m->started_at, sizeof(m->started_at), "2026-11-30T10:00:00Z");
	snprintf(m->finished_at, sizeof(m->finished_at), "2026-11-30T11:00:00Z");
	m->interrupted = true;
	m->sessions = 2;
	m->cache = FSLAB_CACHE_COLD;
	m->trials = 3;
	m->until_ci_pct = 5;
	m->max_trials = 10;
	snprintf(m->stop, sizeof(m->stop), "decided");
	m->stopping = json_tokener_parse("{\"rule\": \"decided\", \"summary\": {\"decided\": 7}}");
	m->seed = UINT64_MAX - 6; /* above INT64_MAX: stored negative, read back whole */
	snprintf(m->io_mode, sizeof(m->io_mode), "positional");
	snprintf(m->sync_policy, sizeof(m->sync_policy), "global");
	m->latency = true;
	snprintf(m->sweep.preset, sizeof(m->sweep.preset), "lab");
	m->sweep.file_min_kib = 64;
	m->sweep.file_max_kib = FSLAB_MANIFEST_SIZE_KIB_MAX;
	m->sweep.record_min_kib = 4;
	m->sweep.record_max_kib = 16384;
	m->sweep.tests = (1u << FSLAB_TEST_WRITE) | (1u << FSLAB_TEST_FREREAD);
	m->sweep.keep_small_records = true;
	m->sweep.shuffle = false;
	snprintf(m->sweep.records_rule, sizeof(m->sweep.records_rule), "%s", FSLAB_PLAN_COARSE_RULE);
	snprintf(m->sweep.record_sizes, sizeof(m->sweep.record_sizes), "4K,12K,16M");
	snprintf(m->sweep.iodepths, sizeof(m->sweep.iodepths), "1,32");
	snprintf(m->machine.hostname, sizeof(m->machine.hostname), "vm");
	snprintf(m->machine.cpu_model, sizeof(m->machine.cpu_model), "CPU <model> & co");
	m->machine.cpus = 2;
	m->machine.memory_kib = 4 << 20;
	m->page_cache_factor = 1.5;
	snprintf(m->device_probe, sizeof(m->device_probe), "per filesystem, before the sweep");
	snprintf(m->state_path, sizeof(m->state_path), "/var/lib/fslab/state.json");
	m->time.wall_s = 3600.5;
	m->time.timed_s = 1000.25;
	snprintf(m->spec_source, sizeof(m->spec_source), "/tmp/spec.ini");
	m->spec_text = strdup("[sweep]\ntrials = 3\n");
	ck_assert_int_eq(fslab_manifest_add_note(m, "honest sweeps stop at 1G"), 0);
	f = fslab_manifest_add_fs(m);
	ck_assert_ptr_nonnull(f);
	snprintf(f->name, sizeof(f->name), "ext4");
	snprintf(f->type, sizeof(f->type), "ext4");
	snprintf(f->path, sizeof(f->path), "/mnt/fslab/ext4");
	snprintf(f->device, sizeof(f->device), "/dev/loop0p1");
	snprintf(f->mount_method, sizeof(f->mount_method), "kernel");
	f->has_mkfs_options = true; /* a lab partition without options: "" */
	f->device_info = json_object_new_object();
	json_object_object_add(f->device_info, "transport", json_object_new_string("loop"));
	f->setup_discarded = 1;
	f->device_size_bytes = 20ull << 30;
	f->device_write_kib_s = 512000;
	f->device_read_kib_s = 900000;
	snprintf(f->device_probe, sizeof(f->device_probe), "o_direct");
	f->has_probe_runs = true;
	f->probe_runs = 2;
	f->probe_write_kib_s[1] = 500000;
	f->probe_read_kib_s[0] = 800000;
	f->device_probe_bytes = 64 << 20;
	f->fuse = true;
	f->cells_ok = 1234;
	f->wall_s = 99.5;
	snprintf(m->steady_state, sizeof(m->steady_state), "on");
	m->steady_round_kib = 262144;
	snprintf(f->steady.result, sizeof(f->steady.result), "reached in round 6");
	f->steady.reached = 6;
	f->steady.n_rounds = 6;
	for (unsigned k = 0; k < 6; k++) {
		f->steady.rounds[k].seq_write_kib_s = 400000 + k;
		f->steady.rounds[k].rand_write_kib_s = 100000 - k;
	}
	f->steady.window = (struct fslab_steady_window){ 2, 6, 99998, 99995, 100001, -1, true, true };
	f->steady.file_bytes = 1ull << 30;
	f->steady.free_bytes = 19ull << 30;
	f->steady.round_bytes = 256 << 20;
	f->steady.fill_s = 20.5;
	f->steady.elapsed_s = 80.25;
	f->steady.session = 1;
	snprintf(f->quiet.trim, sizeof(f->quiet.trim), "trimmed 1.5 GiB");
	f->quiet.trimmed_bytes = 3ull << 30;
	f->quiet.passes = 3;
	f->quiet.not_idle = 1;
	f->quiet.wait_s = 34.5;
	f->quiet.wait_max_s = 30.25;
	f->drive.before.has_temp = true;
	f->drive.before.temp_c = 41;
	snprintf(f->drive.before.temp_source, sizeof(f->drive.before.temp_source), "hwmon");
	snprintf(f->drive.before.read_at, sizeof(f->drive.before.read_at), "2026-12-02T03:00:00Z");
	f->drive.before.has_warn = true;
	f->drive.before.warn_c = 70;
	f->drive.before.alarm = 0;
	f->drive.after = f->drive.before;
	f->drive.after.temp_c = 72;
	f->drive.after.warn_minutes = 3;
	f->drive.has_max = true;
	f->drive.max_temp_c = 72;
	f->drive.thermal_rows = 12;
	snprintf(f->drive.thermal, sizeof(f->drive.thermal), "72 C, at or above its warning threshold 70 C");
	/* two passes: trial 1 read before and after, trial 2 (the resumed
	 * session) interrupted before its after; 3 more beyond the cap */
	f->drive.n_passes = 2;
	f->drive.passes[0] = (struct fslab_manifest_drive_pass){ 1, 1, f->drive.before, f->drive.before };
	f->drive.passes[0].after.temp_c = 55;
	f->drive.passes[1] = (struct fslab_manifest_drive_pass){ 2, 2, f->drive.after, f->drive.after };
	f->drive.passes[1].after.read_at[0] = '\0';
	f->drive.passes_unrecorded = 3;
	return m;
}

static char *format(const struct fslab_manifest *m)
{
	char *text = NULL;
	size_t len = 0;

	ck_assert_int_eq(fslab_manifest_format(m, &text, &len), 0);
	ck_assert_uint_eq(len, strlen(text));
	ck_assert(len > 0 && text[len - 1] == '\n');
	return text;
}

static struct fslab_manifest *parse_ok(const char *text)
{
	struct fslab_manifest *m = NULL;
	struct fslab_err fe = FSLAB_ERR_INIT;

	ck_assert_msg(fslab_manifest_parse(text, strlen(text), "m.json", &m, &fe) == 0,
		      "refused: %s\n%s", fe.msg, text);
	return m;
}

/* b, read from t1 (m's text), writes t1 again: the writer and the reader
 * agree.  Frees all three. */
static void same_when_written_again(struct fslab_manifest *m, struct fslab_manifest *b, char *t1)
{
	char *t2 = format(b);

	ck_assert_str_eq(t1, t2);
	free(t1);
	free(t2);
	fslab_manifest_free(m);
	fslab_manifest_free(b);
}

START_TEST(run_round_trip)
{
	struct fslab_manifest *m = full_run(), *b;
	char *t1 = format(m);

	b = parse_ok(t1);
	ck_assert_int_eq(b->kind, FSLAB_MANIFEST_RUN);
	ck_assert_str_eq(b->run_id, m->run_id);
	ck_assert_uint_eq(b->n_command, 5);
	ck_assert_str_eq(b->command[2], "a=/tmp/a");
	ck_assert_uint_eq(b->n_resumed_with, 3);
	ck_assert(b->interrupted);
	ck_assert_uint_eq(b->sessions, 2);
	ck_assert_int_eq(b->cache, FSLAB_CACHE_COLD);
	ck_assert_uint_eq(b->trials, 3);
	ck_assert_uint_eq(b->max_trials, 10);
	/* the stopping rule, and its record kept whole through a read and a write */
	ck_assert_str_eq(b->stop, "decided");
	ck_assert_ptr_nonnull(b->stopping);
	ck_assert_int_eq(json_object_get_int(json_object_object_get(json_object_object_get(b->stopping, "summary"),
								    "decided")),
			 7);
	ck_assert(b->seed == UINT64_MAX - 6);
	ck_assert_str_eq(b->io_mode, "positional");
	ck_assert(b->latency);
	ck_assert_uint_eq(b->sweep.file_max_kib, FSLAB_MANIFEST_SIZE_KIB_MAX);
	ck_assert_uint_eq(b->sweep.tests, m->sweep.tests);
	ck_assert(b->sweep.keep_small_records && !b->sweep.shuffle);
	ck_assert_str_eq(b->sweep.records_rule, FSLAB_PLAN_COARSE_RULE); /* what the plan left out */
	/* the lists a run was given, for --resume; none: absent */
	ck_assert_str_eq(b->sweep.record_sizes, "4K,12K,16M");
	ck_assert_str_eq(b->sweep.iodepths, "1,32");
	ck_assert_str_eq(b->sweep.file_sizes, "");
	ck_assert_str_eq(b->machine.cpu_model, "CPU <model> & co");
	ck_assert_str_eq(b->spec_text, m->spec_text);
	ck_assert_uint_eq(b->n_notes, 1);
	ck_assert_uint_eq(b->n_fs, 1);
	ck_assert(b->fs[0].has_mkfs_options && b->fs[0].mkfs_options[0] == '\0');
	ck_assert_int_eq(b->fs[0].setup_discarded, 1);
	ck_assert_uint_eq(b->fs[0].probe_runs, 2);
	ck_assert(b->fs[0].probe_write_kib_s[1] == 500000);
	ck_assert_ptr_nonnull(b->fs[0].device_info);
	ck_assert(b->fs[0].fuse);
	ck_assert_uint_eq(b->fs[0].cells_ok, 1234);
	ck_assert_str_eq(b->steady_state, "on");
	ck_assert_uint_eq(b->steady_round_kib, 262144);
	ck_assert_str_eq(b->fs[0].steady.result, "reached in round 6");
	ck_assert_uint_eq(b->fs[0].steady.reached, 6);
	ck_assert_uint_eq(b->fs[0].steady.n_rounds, 6);
	ck_assert(b->fs[0].steady.rounds[5].rand_write_kib_s == 99995);
	ck_assert_uint_eq(b->fs[0].steady.window.first, 2);
	ck_assert(b->fs[0].steady.window.slope == -1 && b->fs[0].steady.window.slope_ok);
	ck_assert_uint_eq(b->fs[0].quiet.passes, 3);
	ck_assert_uint_eq(b->fs[0].quiet.not_idle, 1);
	ck_assert_str_eq(b->fs[0].quiet.trim, "trimmed 1.5 GiB");
	ck_assert_uint_eq(b->fs[0].steady.free_bytes, 19ull << 30);
	ck_assert(b->fs[0].drive.before.has_temp && b->fs[0].drive.before.temp_c == 41);
	ck_assert(b->fs[0].drive.after.temp_c == 72 && b->fs[0].drive.after.warn_minutes == 3);
	ck_assert_int_eq(b->fs[0].drive.before.warn_minutes, -1);
	ck_assert(b->fs[0].drive.has_max && b->fs[0].drive.max_temp_c == 72);
	ck_assert_uint_eq(b->fs[0].drive.thermal_rows, 12);
	ck_assert_str_eq(b->fs[0].drive.thermal, "72 C, at or above its warning threshold 70 C");
	ck_assert_uint_eq(b->fs[0].drive.n_passes, 2);
	ck_assert_uint_eq(b->fs[0].drive.passes[0].trial, 1);
	ck_assert(b->fs[0].drive.passes[0].before.temp_c == 41 && b->fs[0].drive.passes[0].after.temp_c == 55);
	ck_assert_uint_eq(b->fs[0].drive.passes[1].trial, 2);
	ck_assert_uint_eq(b->fs[0].drive.passes[1].session, 2);
	ck_assert(b->fs[0].drive.passes[1].before.temp_c == 72);
	ck_assert_str_eq(b->fs[0].drive.passes[1].after.read_at, "");
	ck_assert_uint_eq(b->fs[0].drive.passes_unrecorded, 3);
	ck_assert_int_eq(fslab_manifest_check_resumable(b, "m.json", NULL), 0);
	same_when_written_again(m, b, t1);
}
END_TEST

START_TEST(import_round_trip)
{
	static const char *const cmd[] = { "import", "iozone", "r.txt" };
	struct fslab_manifest *m = fslab_manifest_new(FSLAB_MANIFEST_IMPORT), *b;
	struct fslab_manifest_fs *f;
	char *t1;
	struct fslab_err fe = FSLAB_ERR_INIT;

	ck_assert_int_eq(fslab_manifest_set_words(&m->command, &m->n_command, 3, cmd), 0);
	m->cache = FSLAB_CACHE_WARM;
	m->trials = 1;
	for (int i = 0; i < 3; i++) {
		f = fslab_manifest_add_fs(m);
		snprintf(f->name, sizeof(f->name), "fs%d", i);
		snprintf(f->iozone_report, sizeof(f->iozone_report), "r%d.txt", i);
	}
	fslab_manifest_remove_fs(m, (size_t)fslab_manifest_find_fs(m, "fs1"));
	t1 = format(m);
	ck_assert_ptr_nonnull(strstr(t1, "\"imported_from\":\"iozone\""));
	b = parse_ok(t1);
	ck_assert_int_eq(b->kind, FSLAB_MANIFEST_IMPORT);
	ck_assert_int_eq(b->cache, FSLAB_CACHE_WARM);
	ck_assert_uint_eq(b->n_fs, 2);
	ck_assert_str_eq(b->fs[1].name, "fs2");
	ck_assert_str_eq(b->fs[1].iozone_report, "r2.txt");
	/* an import is no run to resume */
	ck_assert_int_eq(fslab_manifest_check_resumable(b, "m.json", &fe), -EINVAL);
	same_when_written_again(m, b, t1);
}
END_TEST

/* One key of a valid manifest set to a JSON value (path: "sweep.trials",
 * "filesystems.0.name"); the parse must refuse it naming want. */
static void refused(const char *path, const char *value, const char *want)
{
	struct fslab_manifest *m = full_run(), *b = NULL;
	char *text = format(m), key[64];
	struct fslab_err fe = FSLAB_ERR_INIT;
	json_object *root = json_tokener_parse(text), *o = root, *v = json_tokener_parse(value);
	const char *p = path, *dot, *out;

	ck_assert_ptr_nonnull(root);
	while ((dot = strchr(p, '.'))) {
		snprintf(key, sizeof(key), "%.*s", (int)(dot - p), p);
		o = json_object_is_type(o, json_type_array) ? json_object_array_get_idx(o, (size_t)atoi(key))
							    : json_object_object_get(o, key);
		ck_assert_msg(o != NULL, "no %s", key);
		p = dot + 1;
	}
	json_object_object_add(o, p, v);
	out = json_object_to_json_string(root);
	ck_assert_msg(fslab_manifest_parse(out, strlen(out), "m.json", &b, &fe) == -EINVAL,
		      "%s = %s was accepted", path, value);
	ck_assert_ptr_null(b);
	ck_assert_msg(strstr(fe.msg, want), "%s = %s: '%s' does not say '%s'", path, value, fe.msg, want);
	ck_assert_msg(strncmp(fe.msg, "m.json", 6) == 0, "message does not name the file: %s", fe.msg);
	ck_assert_int_eq(fe.code, -EINVAL);
	json_object_put(root);
	free(text);
	fslab_manifest_free(m);
}

START_TEST(bounds)
{
	/* the plan's doubling loop wrapped to 0 on this one and spun forever */
	refused("sweep.file_max_kib", "9007199254740992",
		"sweep.file_max_kib is 9007199254740992; allowed: 1 to 1125899906842624");
	refused("sweep.file_max_kib", "0", "allowed: 1 to");
	refused("sweep.file_max_kib", "-64", "allowed: 1 to");
	refused("sweep.file_max_kib", "1", "sweep.file_min_kib is larger than sweep.file_max_kib");
	refused("sweep.file_max_kib", "64.5", "sweep.file_max_kib is not a whole number");
	refused("sweep.file_max_kib", "32", "sweep.file_min_kib is larger than sweep.file_max_kib");
	refused("sweep.record_min_kib", "2", "sweep.record_min_kib is 2; allowed: 4 to");
	refused("sweep.record_max_kib", "18446744073709551615", "sweep.record_max_kib is");
	refused("sweep.tests", "[\"write\", \"bogus\"]", "sweep.tests entry 1");
	refused("sweep.keep_small_records", "1", "sweep.keep_small_records is not true or false");
	refused("trials", "0", "trials is 0; allowed: 1 to 1000");
	refused("trials", "1001", "trials is 1001; allowed: 1 to 1000");
	refused("max_trials", "100000", "max_trials is 100000; allowed: 1 to 1000");
	refused("sessions", "0", "sessions is 0; allowed: 1 to 100000");
	refused("until_ci_pct", "101", "until_ci_pct is 101; allowed: 0 to 100");
	refused("stopping", "[1]", "stopping is not an object");
	refused("page_cache_factor", "1e308", "page_cache_factor is");
	refused("seed", "1.5", "seed is not a whole number");
	refused("cache_mode", "\"hot\"", "cache_mode is 'hot'; allowed: warm, fsync, direct, cold");
	refused("run_id", "\"abc\"", "run_id is not a run id");
	refused("label", "\"" "0123456789012345678901234567890123456789012345678901234567890123" "\"",
		"label is longer than 63 bytes");
	refused("imported_from", "\"fio\"", "imported_from is 'fio'");
	refused("command", "[\"run\", 7]", "command entry 1");
	refused("sweep", "[]", "sweep is not an object");
	refused("machine.cpus", "-1", "machine.cpus is -1");
	refused("time.wall_s", "1e10", "time.wall_s is");
	refused("filesystems.0.name", "\"a/b\"", "filesystems[0] has no valid name");
	refused("filesystems.0.device_write_kib_s", "-1", "filesystems[0].device_write_kib_s is -1");
	refused("filesystems.0.device_read_kib_s", "Infinity", "filesystems[0].device_read_kib_s is");
	refused("filesystems.0.device_size_bytes", "2305843009213693952",
		"filesystems[0].device_size_bytes is");
	refused("filesystems.0.cells_ok", "9007199254740993", "filesystems[0].cells_ok is");
	refused("filesystems.0.timed_s", "\"fast\"", "filesystems[0].timed_s is not a number");
	refused("filesystems.0.device_probe_runs", "[{},{},{},{}]",
		"filesystems[0].device_probe_runs has 4 entries; at most 3");
	refused("filesystems.0.device_info", "7", "filesystems[0].device_info is not an object");
	refused("filesystems.0.path", "\"x\\u0000y\"", "filesystems[0].path is longer than");
	refused("spec.text", "5", "spec.text is not a text");
	refused("steady_state", "\"maybe\"", "steady_state is 'maybe'; allowed: auto, on, off");
	refused("filesystems.0.steady_state.rounds",
		"[{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}]",
		"filesystems[0].steady_state.rounds has 26 entries; at most 25");
	refused("filesystems.0.steady_state.reached_in_round", "26", "reached_in_round is 26; allowed: 0 to 25");
	refused("filesystems.0.steady_state.reached_in_round", "7", "names round 7 of 6 recorded");
	refused("filesystems.0.steady_state.window.last_round", "1", "has first_round 2 after last_round 1");
	refused("filesystems.0.steady_state.rounds.0.rand_write_kib_s", "-5", "rand_write_kib_s is -5");
	refused("filesystems.0.steady_state.result", "null", "steady_state has no result");
	refused("filesystems.0.between_filesystems.not_idle", "4", "more not_idle (4) than waits (3)");
	refused("filesystems.0.drive.before.temperature_c", "900", "filesystems[0].drive.before is not a drive's conditions");
	refused("filesystems.0.drive.max_temperature_c", "300", "filesystems[0].drive.max_temperature_c is 300");
	refused("filesystems.0.drive.thermal_rows", "-1", "filesystems[0].drive.thermal_rows is -1");
	refused("filesystems.0.drive.passes.0.trial", "0", "filesystems[0].drive.passes[0].trial is 0; allowed: 1 to 1000");
	refused("filesystems.0.drive.passes.1.session", "null", "filesystems[0].drive.passes[1] has no trial or session");
	refused("filesystems.0.drive.passes.0.before", "null", "filesystems[0].drive.passes[0].before is missing");
	refused("filesystems.0.drive.passes.0.after", "{\"temperature_c\": 900}",
		"filesystems[0].drive.passes[0].after is not a drive's conditions");
	refused("filesystems.0.drive.passes", "[" "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},"
		"{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},"
		"{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}]",
		"filesystems[0].drive.passes has 65 entries; at most 64");
	refused("filesystems.0.drive.passes_not_recorded", "-2", "filesystems[0].drive.passes_not_recorded is -2");
}
END_TEST

START_TEST(too_many_and_repeated_filesystems)
{
	struct fslab_manifest *m = fslab_manifest_new(FSLAB_MANIFEST_IMPORT), *b = NULL;
	char *text;
	struct fslab_err fe = FSLAB_ERR_INIT;

	for (int i = 0; i < FSLAB_MANIFEST_FS_MAX; i++)
		snprintf(fslab_manifest_add_fs(m)->name, FSLAB_FS_NAME_MAX, "f%d", i);
	ck_assert_ptr_null(fslab_manifest_add_fs(m));
	text = format(m);
	b = parse_ok(text);
	fslab_manifest_free(b);
	free(text);
	/* a run holds at most FSLAB_MAX_FS: not resumable beyond */
	m->kind = FSLAB_MANIFEST_RUN;
	ck_assert_int_eq(fslab_manifest_check_resumable(m, "m", &fe), -EINVAL);
	snprintf(m->fs[1].name, FSLAB_FS_NAME_MAX, "f0");
	m->kind = FSLAB_MANIFEST_IMPORT;
	text = format(m);
	ck_assert_int_eq(fslab_manifest_parse(text, strlen(text), "m", &b, &fe), -EINVAL);
	ck_assert_ptr_nonnull(strstr(fe.msg, "filesystems[1] repeats the name f0"));
	free(text);
	fslab_manifest_free(m);
}
END_TEST

START_TEST(not_json_names_the_line)
{
	static const char bad[] = "{\n \"cache_mode\": \"warm\",\n oops\n}\n";
	struct fslab_manifest *m = NULL;
	struct fslab_err fe = FSLAB_ERR_INIT;

	ck_assert_int_eq(fslab_manifest_parse(bad, strlen(bad), "dir/manifest.json", &m, &fe),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(fe.msg, "dir/manifest.json:3: not a JSON object"));
	ck_assert_int_eq(fslab_manifest_parse("[1]", 3, "x", &m, &fe), -EINVAL);
	ck_assert_ptr_nonnull(strstr(fe.msg, "not an object"));
	/* old or foreign keys alone are fine: defaults, and not resumable */
	m = parse_ok("{ \"name\": \"my web app\", \"trials\": null }");
	ck_assert_uint_eq(m->trials, 0);
	ck_assert_int_eq(m->cache, FSLAB_CACHE_MODE_INVALID);
	ck_assert_int_eq(fslab_manifest_check_resumable(m, "x", &fe), -EINVAL);
	ck_assert_ptr_nonnull(strstr(fe.msg, "no run_id"));
	fslab_manifest_free(m);
}
END_TEST

START_TEST(read_refuses_a_huge_file)
{
	int fd = memfd_create("manifest", MFD_CLOEXEC);
	struct fslab_manifest *m = NULL;
	struct fslab_err fe = FSLAB_ERR_INIT;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, (off_t)FSLAB_MANIFEST_MAX_BYTES + 4096), 0);
	ck_assert_int_lt(fslab_manifest_read_fd(fd, "big.json", &m, &fe), 0);
	ck_assert_ptr_null(m);
	ck_assert_ptr_nonnull(strstr(fe.msg, "big.json: larger than 16 MiB"));
	close(fd);
}
END_TEST

START_TEST(write_reads_back)
{
	char *dir = ft_mkdtemp("fslab-manifest"), *t1;
	struct fslab_manifest *m = full_run(), *b = NULL;
	struct fslab_err fe = FSLAB_ERR_INIT;
	int dfd, fd;

	ck_assert_ptr_nonnull(dir);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(dfd, 0);
	ck_assert_int_eq(fslab_manifest_write_at(dfd, m), 0);
	fd = fslab_manifest_open_at(dfd);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fslab_manifest_read_fd(fd, "m", &b, &fe), 0);
	close(fd);
	t1 = format(b);
	ck_assert_ptr_nonnull(b->json);
	ck_assert_int_eq(ft_dir_entries(dir), 1); /* no temporary left */
	free(t1);
	fslab_manifest_free(b);
	fslab_manifest_free(m);
	close(dfd);
	ft_rm_rf(dir);
	free(dir);
}
END_TEST

/* fslab run --resume on a manifest edited to file_max_kib 2^53 (2^63
 * bytes): refused at once, naming the field, nothing changed.  Before the
 * bound the plan's doubling loop wrapped to 0 and the run spun forever. */
START_TEST(resume_refuses_huge_file_max)
{
	char *dir = ft_mkdtemp("fslab-manifest-resume"), d[4200], out[4200], arg[4300], p[4300];
	struct ft_output o;
	char *text, *k;
	FILE *f;
	long n;

	snprintf(d, sizeof(d), "%s/d", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	snprintf(arg, sizeof(arg), "a=%s", d);
	ck_assert_int_eq(mkdir(d, 0755), 0);
	ck_assert_int_eq(ft_fslab(&o, "run", "--dir", arg, "--out", out, "--tests", "write", "--file-sizes",
				  "64K", "--record-sizes", "64K", "--cache", "warm", "--trials", "1",
				  "--no-device-probe", "--quiet", NULL), 0);
	ck_assert_msg(o.status == 0, "run failed: %s", o.err);
	ft_output_free(&o);
	snprintf(p, sizeof(p), "%s/manifest.json", out);
	f = fopen(p, "r");
	ck_assert_ptr_nonnull(f);
	text = calloc(1, 1 << 20);
	n = (long)fread(text, 1, (1 << 20) - 1, f);
	fclose(f);
	ck_assert_int_gt(n, 0);
	k = strstr(text, "\"file_max_kib\":64,");
	ck_assert_ptr_nonnull(k);
	char *edited;
	ck_assert_int_ge(asprintf(&edited, "%.*s\"file_max_kib\":9007199254740992,%s", (int)(k - text), text,
				  k + strlen("\"file_max_kib\":64,")), 0);
	ck_assert_int_eq(ft_write_file(p, edited), 0);
	/* the old spin never ends: a deadline, and the child killed past it
	 * (never left spinning behind the test) */
	const char *argv[] = { ft_fslab_bin(), "run", "--resume", out, "--quiet", NULL };
	struct ft_proc proc;
	int w;

	ck_assert_int_eq(ft_spawn(argv, &proc), 0);
	w = ft_proc_wait_for(&proc, "sweep.file_max_kib", 30000);
	if (w == -ETIMEDOUT)
		kill(proc.pid, SIGKILL);
	ck_assert_int_eq(ft_proc_finish(&proc, &o), 0);
	ck_assert_msg(w != -ETIMEDOUT, "fslab run --resume still running after 30 s (killed): %s", o.err);
	ck_assert_int_eq(o.status, 1);
	ck_assert_msg(strstr(o.err, "sweep.file_max_kib is 9007199254740992; allowed: 1 to"), "%s", o.err);
	ft_output_free(&o);
	free(text);
	free(edited);
	ft_rm_rf(dir);
	free(dir);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("manifest");
	TCase *tc = ft_tcase(s, "manifest", 0);

	tcase_add_test(tc, run_round_trip);
	tcase_add_test(tc, import_round_trip);
	tcase_add_test(tc, bounds);
	tcase_add_test(tc, too_many_and_repeated_filesystems);
	tcase_add_test(tc, not_json_names_the_line);
	tcase_add_test(tc, read_refuses_a_huge_file);
	tcase_add_test(tc, write_reads_back);
	tc = ft_tcase(s, "resume", FT_ROOT);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, resume_refuses_huge_file_max);
	return ft_suite_run(s, argc, argv);
}
