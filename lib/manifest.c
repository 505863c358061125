/* manifest.json: building one in memory and the writer (manifest.h); the
 * reader is manifest_read.c. */
#include "manifest.h"
#include "fileutil.h"
#include "settings.h"

#include <errno.h>
#include <math.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- building a manifest in memory ---- */

struct fslab_manifest *fslab_manifest_new(enum fslab_manifest_kind kind)
{
	struct fslab_manifest *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->kind = kind;
	m->cache = FSLAB_CACHE_MODE_INVALID;
	m->sessions = 1;
	m->sweep.shuffle = true;
	return m;
}

static void mf_free_words(char **w, size_t n)
{
	for (size_t i = 0; w && i < n; i++)
		free(w[i]);
	free(w);
}

void fslab_manifest_free(struct fslab_manifest *m)
{
	if (!m)
		return;
	mf_free_words(m->command, m->n_command);
	mf_free_words(m->resumed_with, m->n_resumed_with);
	mf_free_words(m->notes, m->n_notes);
	for (size_t i = 0; i < m->n_fs; i++)
		json_object_put(m->fs[i].device_info);
	free(m->fs);
	free(m->spec_text);
	json_object_put(m->stopping);
	json_object_put(m->json);
	free(m);
}

struct fslab_manifest_fs *fslab_manifest_add_fs(struct fslab_manifest *m)
{
	struct fslab_manifest_fs *fs;

	if (m->n_fs >= FSLAB_MANIFEST_FS_MAX)
		return NULL;
	fs = realloc(m->fs, (m->n_fs + 1) * sizeof(*fs));
	if (!fs)
		return NULL;
	m->fs = fs;
	fs = &m->fs[m->n_fs++];
	memset(fs, 0, sizeof(*fs));
	fs->setup_discarded = -1;
	fslab_drive_conditions_unknown(&fs->drive.before);
	fslab_drive_conditions_unknown(&fs->drive.after);
	return fs;
}

int fslab_manifest_find_fs(const struct fslab_manifest *m, const char *name)
{
	for (size_t i = 0; i < m->n_fs; i++)
		if (strcmp(m->fs[i].name, name) == 0)
			return (int)i;
	return -1;
}

void fslab_manifest_remove_fs(struct fslab_manifest *m, size_t i)
{
	if (i >= m->n_fs)
		return;
	json_object_put(m->fs[i].device_info);
	memmove(&m->fs[i], &m->fs[i + 1], (m->n_fs - i - 1) * sizeof(m->fs[0]));
	m->n_fs--;
}

int fslab_manifest_set_words(char ***words, size_t *n_words, size_t n, const char *const *src)
{
	char **w = calloc(n + 1, sizeof(*w));

	if (!w)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		w[i] = strdup(src[i] ? src[i] : "");
		if (!w[i]) {
			mf_free_words(w, i);
			return -ENOMEM;
		}
	}
	mf_free_words(*words, *n_words);
	*words = w;
	*n_words = n;
	return 0;
}

int fslab_manifest_add_note(struct fslab_manifest *m, const char *note)
{
	char **w;

	if (m->n_notes >= FSLAB_MANIFEST_NOTES_MAX)
		return -E2BIG;
	w = realloc(m->notes, (m->n_notes + 2) * sizeof(*w));
	if (!w)
		return -ENOMEM;
	m->notes = w;
	w[m->n_notes] = strndup(note, FSLAB_MANIFEST_TEXT_MAX - 1);
	if (!w[m->n_notes])
		return -ENOMEM;
	w[++m->n_notes] = NULL;
	return 0;
}

/* ---- writing ---- */

/* An empty string is null in the file. */
static json_object *mf_jstr(const char *s)
{
	return s && s[0] ? json_object_new_string(s) : NULL;
}

/* Figures of at least 1 as whole numbers, else null (unknown). */
static json_object *mf_jkib(double v)
{
	return v >= 1 ? json_object_new_int64((int64_t)v) : NULL;
}

static json_object *mf_jcount(uint64_t v)
{
	return v ? json_object_new_int64((int64_t)v) : NULL;
}

static json_object *mf_jwords(char *const *w, size_t n)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < n; i++)
		json_object_array_add(a, json_object_new_string(w[i]));
	return a;
}

/* The manifest's name of a setting's key k: the settings table's
 * (lib/settings.c), so a row and what the manifest writes agree. */
#define mf_key fslab_setting_mkey

static void mf_put(json_object *o, const char *key, json_object *v)
{
	json_object_object_add(o, key, v);
}

static json_object *mf_write_probe_runs(const struct fslab_manifest_fs *fs)
{
	json_object *runs;

	if (!fs->has_probe_runs)
		return NULL;
	runs = json_object_new_array();
	for (unsigned k = 0; runs && k < fs->probe_runs && k < FSLAB_MANIFEST_PROBE_RUNS; k++) {
		json_object *pr = json_object_new_object();
		mf_put(pr, "write_kib_s", mf_jkib(fs->probe_write_kib_s[k]));
		mf_put(pr, "read_kib_s", mf_jkib(fs->probe_read_kib_s[k]));
		json_object_array_add(runs, pr);
	}
	return runs;
}

/* A rate (KiB/s) or slope as a whole number; seconds keep their decimals. */
static json_object *mf_jround(double v)
{
	return json_object_new_int64(llround(v));
}

static json_object *mf_jnum(double v)
{
	return json_object_new_double(v);
}

static json_object *mf_write_steady_window(const struct fslab_steady_window *w)
{
	json_object *o;

	if (!w->last)
		return NULL;
	o = json_object_new_object();
	mf_put(o, "first_round", json_object_new_int64(w->first));
	mf_put(o, "last_round", json_object_new_int64(w->last));
	mf_put(o, "mean_kib_s", mf_jround(w->mean));
	mf_put(o, "min_kib_s", mf_jround(w->min));
	mf_put(o, "max_kib_s", mf_jround(w->max));
	mf_put(o, "slope_kib_s_per_round", mf_jround(w->slope));
	mf_put(o, "range_ok", json_object_new_boolean(w->range_ok));
	mf_put(o, "slope_ok", json_object_new_boolean(w->slope_ok));
	return o;
}

/* "steady_state": null when the run recorded none (fslab before it). */
static json_object *mf_write_steady(const struct fslab_manifest_steady *st)
{
	json_object *o, *rounds;

	if (!st->result[0])
		return NULL;
	o = json_object_new_object();
	rounds = json_object_new_array();
	mf_put(o, "result", json_object_new_string(st->result));
	mf_put(o, "reached_in_round", mf_jcount(st->reached));
	mf_put(o, "session", mf_jcount(st->session));
	mf_put(o, "file_bytes", mf_jcount(st->file_bytes));
	mf_put(o, "round_bytes", mf_jcount(st->round_bytes));
	mf_put(o, "free_bytes", mf_jcount(st->free_bytes));
	mf_put(o, "fill_s", mf_jnum(st->fill_s));
	mf_put(o, "elapsed_s", mf_jnum(st->elapsed_s));
	for (unsigned k = 0; rounds && k < st->n_rounds && k < FSLAB_STEADY_ROUNDS_MAX; k++) {
		json_object *r = json_object_new_object();

		mf_put(r, "round", json_object_new_int64(k + 1));
		mf_put(r, "seq_write_kib_s", mf_jround(st->rounds[k].seq_write_kib_s));
		mf_put(r, "rand_write_kib_s", mf_jround(st->rounds[k].rand_write_kib_s));
		json_object_array_add(rounds, r);
	}
	mf_put(o, "rounds", rounds);
	mf_put(o, "window", mf_write_steady_window(&st->window));
	return o;
}

static json_object *mf_write_quiet(const struct fslab_manifest_quiet *q)
{
	json_object *o;

	if (!q->skipped[0] && !q->passes)
		return NULL;
	o = json_object_new_object();
	mf_put(o, "skipped", mf_jstr(q->skipped));
	mf_put(o, "trim", mf_jstr(q->trim));
	mf_put(o, "trimmed_bytes", json_object_new_int64((int64_t)q->trimmed_bytes));
	mf_put(o, "waits", json_object_new_int64(q->passes));
	mf_put(o, "not_idle", json_object_new_int64(q->not_idle));
	mf_put(o, "wait_s", mf_jnum(q->wait_s));
	mf_put(o, "wait_max_s", mf_jnum(q->wait_max_s));
	return o;
}

/* "drive": null when it was never read (a run before it, an import). */
static json_object *mf_write_drive(const struct fslab_manifest_drive *d)
{
	json_object *o;

	if (!d->before.read_at[0])
		return NULL;
	o = json_object_new_object();
	mf_put(o, "before", fslab_drive_conditions_to_json(&d->before));
	mf_put(o, "after", d->after.read_at[0] ? fslab_drive_conditions_to_json(&d->after) : NULL);
	mf_put(o, "max_temperature_c", d->has_max ? json_object_new_double(d->max_temp_c) : NULL);
	mf_put(o, "thermal_rows", json_object_new_int64((int64_t)d->thermal_rows));
	mf_put(o, "thermal", mf_jstr(d->thermal));
	json_object *a = json_object_new_array();
	for (unsigned i = 0; i < d->n_passes; i++) {
		const struct fslab_manifest_drive_pass *p = &d->passes[i];
		json_object *x = json_object_new_object();

		mf_put(x, "trial", json_object_new_int64(p->trial));
		mf_put(x, "session", json_object_new_int64(p->session));
		mf_put(x, "before", fslab_drive_conditions_to_json(&p->before));
		mf_put(x, "after", p->after.read_at[0] ? fslab_drive_conditions_to_json(&p->after) : NULL);
		json_object_array_add(a, x);
	}
	mf_put(o, "passes", a);
	mf_put(o, "passes_not_recorded", json_object_new_int64((int64_t)d->passes_unrecorded));
	return o;
}

static json_object *mf_write_fs(const struct fslab_manifest *m, const struct fslab_manifest_fs *fs)
{
	json_object *o = json_object_new_object();

	mf_put(o, "name", json_object_new_string(fs->name));
	if (m->kind == FSLAB_MANIFEST_IMPORT) {
		if (fs->type[0])
			mf_put(o, "type", json_object_new_string(fs->type));
		mf_put(o, "iozone_report", mf_jstr(fs->iozone_report));
		return o;
	}
	mf_put(o, "type", mf_jstr(fs->type));
	mf_put(o, "path", json_object_new_string(fs->path));
	mf_put(o, "mountpoint", mf_jstr(fs->mountpoint));
	mf_put(o, "device", mf_jstr(fs->device));
	mf_put(o, "mount_method", mf_jstr(fs->mount_method));
	mf_put(o, "mkfs_options", fs->has_mkfs_options ? json_object_new_string(fs->mkfs_options) : NULL);
	mf_put(o, "mkfs_command", mf_jstr(fs->mkfs_command));
	mf_put(o, "mount_options", mf_jstr(fs->mount_options));
	mf_put(o, "mount_options_at_end", mf_jstr(fs->mount_options_at_end));
	mf_put(o, "mkfs_tool_version", mf_jstr(fs->mkfs_tool_version));
	mf_put(o, "device_model", mf_jstr(fs->device_model));
	mf_put(o, "device_serial", mf_jstr(fs->device_serial));
	mf_put(o, "device_info", fs->device_info ? json_object_get(fs->device_info) : NULL);
	mf_put(o, "setup_discarded", fs->setup_discarded < 0 ? NULL : json_object_new_boolean(fs->setup_discarded));
	mf_put(o, "device_size_bytes", mf_jcount(fs->device_size_bytes));
	mf_put(o, "device_write_kib_s", mf_jkib(fs->device_write_kib_s));
	mf_put(o, "device_read_kib_s", mf_jkib(fs->device_read_kib_s));
	mf_put(o, "device_probe", mf_jstr(fs->device_probe));
	mf_put(o, "device_probe_note", mf_jstr(fs->device_probe_note));
	mf_put(o, "device_probe_source", mf_jstr(fs->device_probe_source));
	mf_put(o, "device_probe_measured_at", mf_jstr(fs->device_probe_measured_at));
	mf_put(o, "device_probe_runs", mf_write_probe_runs(fs));
	mf_put(o, mf_key(FSLAB_SETTING_PROBE_SIZE, 0), mf_jcount(fs->device_probe_bytes));
	mf_put(o, "sync_device", mf_jstr(fs->sync_device));
	mf_put(o, "sync_note", mf_jstr(fs->sync_note));
	mf_put(o, "cache_drop_method", mf_jstr(fs->cache_drop_method));
	mf_put(o, "cache_drop_note", mf_jstr(fs->cache_drop_note));
	mf_put(o, "fuse", json_object_new_boolean(fs->fuse));
	mf_put(o, "loop_io", mf_jstr(fs->loop_io));
	mf_put(o, "precondition", fslab_state_precondition_to_json(&fs->precondition));
	mf_put(o, "quiet_after_mount", mf_jstr(fs->mount_quiet));
	mf_put(o, "quiet_after_mount_s", fs->mount_quiet[0] ? json_object_new_double(fs->mount_quiet_wait_s) : NULL);
	mf_put(o, "vanished", json_object_new_boolean(fs->vanished));
	mf_put(o, "cells_ok", json_object_new_int64((int64_t)fs->cells_ok));
	mf_put(o, "cells_failed", json_object_new_int64((int64_t)fs->cells_failed));
	mf_put(o, "cells_skipped", json_object_new_int64((int64_t)fs->cells_skipped));
	mf_put(o, "timed_s", json_object_new_double(fs->timed_s));
	mf_put(o, "untimed_io_s", json_object_new_double(fs->untimed_io_s));
	mf_put(o, "cache_drop_s", json_object_new_double(fs->cache_drop_s));
	mf_put(o, "wall_s", json_object_new_double(fs->wall_s));
	mf_put(o, "steady_state", mf_write_steady(&fs->steady));
	mf_put(o, "between_filesystems", mf_write_quiet(&fs->quiet));
	mf_put(o, "drive", mf_write_drive(&fs->drive));
	return o;
}

static json_object *mf_write_sweep(const struct fslab_manifest *m)
{
	json_object *o = json_object_new_object(), *tests = json_object_new_array();

	mf_put(o, mf_key(FSLAB_SETTING_PRESET, 0), mf_jstr(m->sweep.preset));
	mf_put(o, mf_key(FSLAB_SETTING_FILE_SIZES, 0), mf_jcount(m->sweep.file_min_kib));
	mf_put(o, mf_key(FSLAB_SETTING_FILE_SIZES, 1), mf_jcount(m->sweep.file_max_kib));
	mf_put(o, mf_key(FSLAB_SETTING_RECORD_SIZES, 0), mf_jcount(m->sweep.record_min_kib));
	mf_put(o, mf_key(FSLAB_SETTING_RECORD_SIZES, 1), mf_jcount(m->sweep.record_max_kib));
	for (int t = 0; tests && t < FSLAB_TEST_MAX; t++)
		if (m->sweep.tests & (1u << t))
			json_object_array_add(tests, json_object_new_string(fslab_test_to_string(t)));
	mf_put(o, mf_key(FSLAB_SETTING_TESTS, 0), tests);
	mf_put(o, mf_key(FSLAB_SETTING_SMALL_RECORDS, 0), json_object_new_boolean(m->sweep.keep_small_records));
	mf_put(o, mf_key(FSLAB_SETTING_ORDER, 0), json_object_new_string(fslab_setting_word(FSLAB_SETTING_ORDER, m->sweep.shuffle ? 0 : 1)));
	mf_put(o, mf_key(FSLAB_SETTING_CDM_TIME, 0), mf_jcount(m->sweep.pass_s));
	mf_put(o, "warmup_passes_discarded", mf_jcount(m->sweep.warmup_passes));
	mf_put(o, mf_key(FSLAB_SETTING_IODEPTH, 0), mf_jcount(m->sweep.iodepth ? m->sweep.iodepth : 1));
	mf_put(o, mf_key(FSLAB_SETTING_JOBS, 0), mf_jcount(m->sweep.jobs ? m->sweep.jobs : 1));
	return o;
}

static json_object *mf_write_machine(const struct fslab_manifest *m)
{
	json_object *o = json_object_new_object();

	mf_put(o, "hostname", json_object_new_string(m->machine.hostname));
	mf_put(o, "kernel", mf_jstr(m->machine.kernel));
	mf_put(o, "kernel_version", mf_jstr(m->machine.kernel_version));
	mf_put(o, "cpu_model", mf_jstr(m->machine.cpu_model));
	mf_put(o, "cpus", m->machine.cpus ? json_object_new_int64(m->machine.cpus) : NULL);
	mf_put(o, "memory_kib", mf_jcount(m->machine.memory_kib));
	return o;
}

static json_object *mf_write_time(const struct fslab_manifest *m)
{
	json_object *o = json_object_new_object();

	mf_put(o, "wall_s", json_object_new_double(m->time.wall_s));
	mf_put(o, "timed_s", json_object_new_double(m->time.timed_s));
	mf_put(o, "untimed_io_s", json_object_new_double(m->time.untimed_io_s));
	mf_put(o, "cache_drop_s", json_object_new_double(m->time.cache_drop_s));
	return o;
}

static json_object *mf_write_spec(const struct fslab_manifest *m)
{
	json_object *o;

	if (!m->spec_text)
		return json_object_new_string(m->spec_source[0] ? m->spec_source : "preset");
	o = json_object_new_object();
	mf_put(o, "source", json_object_new_string(m->spec_source));
	mf_put(o, "text", json_object_new_string(m->spec_text));
	return o;
}

static json_object *mf_write_filesystems(const struct fslab_manifest *m)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < m->n_fs; i++)
		json_object_array_add(a, mf_write_fs(m, &m->fs[i]));
	return a;
}

static json_object *mf_jcache(enum fslab_cache_mode c)
{
	return c == FSLAB_CACHE_MODE_INVALID ? NULL : json_object_new_string(fslab_cache_mode_to_string(c));
}

/* The keys of a run, in the order fslab has always written them. */
static void mf_write_run(json_object *root, const struct fslab_manifest *m)
{
	mf_put(root, "run_id", mf_jstr(m->run_id));
	mf_put(root, mf_key(FSLAB_SETTING_LABEL, 0), mf_jstr(m->label));
	mf_put(root, "command", mf_jwords(m->command, m->n_command));
	if (m->resumed_with)
		mf_put(root, "resumed_with", mf_jwords(m->resumed_with, m->n_resumed_with));
	mf_put(root, "started_at", mf_jstr(m->started_at));
	mf_put(root, "finished_at", mf_jstr(m->finished_at));
	mf_put(root, "interrupted", json_object_new_boolean(m->interrupted));
	mf_put(root, "sessions", json_object_new_int64(m->sessions));
	mf_put(root, mf_key(FSLAB_SETTING_CACHE, 0), mf_jcache(m->cache));
	mf_put(root, mf_key(FSLAB_SETTING_TRIALS, 0), mf_jcount(m->trials));
	mf_put(root, mf_key(FSLAB_SETTING_UNTIL_CI, 0), m->until_ci_pct > 0 ? json_object_new_double(m->until_ci_pct) : NULL);
	mf_put(root, mf_key(FSLAB_SETTING_MAX_TRIALS, 0), mf_jcount(m->max_trials));
	mf_put(root, mf_key(FSLAB_SETTING_STOP, 0), mf_jstr(m->stop));
	mf_put(root, "stopping", m->stopping ? json_object_get(m->stopping) : NULL);
	mf_put(root, mf_key(FSLAB_SETTING_SEED, 0), json_object_new_int64((int64_t)m->seed));
	mf_put(root, mf_key(FSLAB_SETTING_IO, 0), mf_jstr(m->io_mode));
	mf_put(root, mf_key(FSLAB_SETTING_SYNC, 0), mf_jstr(m->sync_policy));
	mf_put(root, mf_key(FSLAB_SETTING_FILE_SYNC, 0), mf_jstr(m->file_sync));
	mf_put(root, mf_key(FSLAB_SETTING_LATENCY, 0), json_object_new_boolean(m->latency));
	mf_put(root, mf_key(FSLAB_SETTING_PASS_GAP, 0), json_object_new_int64(m->pass_gap_ms));
	mf_put(root, mf_key(FSLAB_SETTING_STEADY, 0), mf_jstr(m->steady_state));
	mf_put(root, mf_key(FSLAB_SETTING_STEADY_ROUND, 0), mf_jcount(m->steady_round_kib));
	mf_put(root, "sweep", mf_write_sweep(m));
	mf_put(root, "machine", mf_write_machine(m));
	mf_put(root, "page_cache_factor", m->page_cache_factor > 0 ? json_object_new_double(m->page_cache_factor) : NULL);
	mf_put(root, "page_cache_flag", mf_jstr(m->page_cache_flag));
	mf_put(root, mf_key(FSLAB_SETTING_NO_PROBE, 0), mf_jstr(m->device_probe));
	mf_put(root, "state_path", mf_jstr(m->state_path));
	mf_put(root, "filesystems", mf_write_filesystems(m));
	mf_put(root, "time", mf_write_time(m));
	mf_put(root, "spec", mf_write_spec(m));
}

static void mf_write_import(json_object *root, const struct fslab_manifest *m)
{
	mf_put(root, "command", mf_jwords(m->command, m->n_command));
	mf_put(root, "imported_at", mf_jstr(m->imported_at));
	mf_put(root, "imported_from", json_object_new_string("iozone"));
	mf_put(root, mf_key(FSLAB_SETTING_CACHE, 0), mf_jcache(m->cache));
	mf_put(root, "trials", mf_jcount(m->trials));
	mf_put(root, "filesystems", mf_write_filesystems(m));
}

int fslab_manifest_format(const struct fslab_manifest *m, char **text, size_t *len)
{
	json_object *root = json_object_new_object();
	const char *js;
	int r = 0;

	if (!root)
		return -ENOMEM;
	mf_put(root, "fslab_version", mf_jstr(m->fslab_version));
	if (m->kind == FSLAB_MANIFEST_IMPORT)
		mf_write_import(root, m);
	else
		mf_write_run(root, m);
	if (m->n_notes)
		mf_put(root, "notes", mf_jwords(m->notes, m->n_notes));
	js = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!js || asprintf(text, "%s\n", js) < 0)
		r = -ENOMEM;
	else
		*len = strlen(*text);
	json_object_put(root);
	return r;
}

int fslab_manifest_write_at(int dfd, const struct fslab_manifest *m)
{
	char *text = NULL;
	size_t len = 0;
	int r = fslab_manifest_format(m, &text, &len);

	if (r < 0)
		return r;
	r = fslab_write_file_atomic_at(dfd, FSLAB_MANIFEST_NAME, text, len, 0644);
	free(text);
	return r;
}
