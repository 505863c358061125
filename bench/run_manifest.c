/* <out>/manifest.json: what shaped the numbers (docs/design.md), written
 * atomically at the start, after each filesystem and trial, and at the
 * end (finished_at).  Also the record --resume continues from.  The file
 * itself is lib/manifest's; here the run's facts fill it (the machine, each
 * filesystem's device) and a resumed run takes its settings back. */
#include "run_int.h"
#include "device_identity.h"
#include "engine/engine.h"
#include "fileutil.h"
#include "manifest.h"
#include "fslab/run.h"
#include "stats.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#ifndef FSLAB_VERSION
#define FSLAB_VERSION "0.0.0"
#endif

_Static_assert(FSLAB_PROBE_RUNS == FSLAB_MANIFEST_PROBE_RUNS, "the manifest records every probe");
_Static_assert(FSLAB_RUN_ID_LEN == FSLAB_MANIFEST_RUN_ID_LEN, "one run id length");

/* The value after "key" and ':' on a line of a /proc file, or "". */
static void mf_proc_field(const char *path, const char *key, char *out, size_t len)
{
	char *data = NULL, *p;

	out[0] = '\0';
	if (fslab_read_file(path, &data, NULL, 1 << 22) < 0)
		return;
	p = strstr(data, key);
	if (p && (p = strchr(p, ':'))) {
		p += 1 + strspn(p + 1, " \t");
		snprintf(out, len, "%.*s", (int)strcspn(p, "\n"), p);
	}
	free(data);
}

static void mf_machine(struct fslab_manifest *m)
{
	struct utsname u;
	char mem[64];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (gethostname(m->machine.hostname, sizeof(m->machine.hostname) - 1) < 0)
		m->machine.hostname[0] = '\0';
	if (uname(&u) == 0) {
		snprintf(m->machine.kernel, sizeof(m->machine.kernel), "%s %s %s", u.sysname, u.release,
			 u.machine);
		snprintf(m->machine.kernel_version, sizeof(m->machine.kernel_version), "%s", u.version);
	}
	mf_proc_field("/proc/cpuinfo", "model name", m->machine.cpu_model, sizeof(m->machine.cpu_model));
	m->machine.cpus = cpus > 0 ? (unsigned)cpus : 0;
	mf_proc_field("/proc/meminfo", "MemTotal", mem, sizeof(mem));
	m->machine.memory_kib = strtoull(mem, NULL, 10);
}

/* A time the manifest wrote (run_utc_format) in Unix seconds; 0 when it
 * is none. */
static int64_t mf_utc_parse(const char *s)
{
	struct tm tm;
	const char *end;

	memset(&tm, 0, sizeof(tm));
	end = s[0] ? strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm) : NULL;
	return end && !*end ? (int64_t)timegm(&tm) : 0;
}

static void mf_probe(const struct fslab_probe_result *p, struct fslab_manifest_fs *o)
{
	o->device_write_kib_s = p->write_kib_s;
	o->device_read_kib_s = p->read_kib_s;
	snprintf(o->device_probe, sizeof(o->device_probe), "%s", p->method[0] ? p->method : "skipped");
	snprintf(o->device_probe_note, sizeof(o->device_probe_note), "%s", p->note);
	o->has_probe_runs = p->runs > 0;
	for (unsigned k = 0; k < p->runs && k < FSLAB_PROBE_RUNS; k++) {
		o->probe_write_kib_s[k] = p->write_runs_kib_s[k];
		o->probe_read_kib_s[k] = p->read_runs_kib_s[k];
		o->probe_runs = k + 1;
	}
	o->device_probe_bytes = p->bytes;
	snprintf(o->device_probe_source, sizeof(o->device_probe_source), "%s", p->source);
	if (p->measured_at > 0)
		run_utc_format(p->measured_at, o->device_probe_measured_at, sizeof(o->device_probe_measured_at), false);
}

/* "live": what the kernel showed of the filesystem at the session's start
 * and, in its last manifest (finished or interrupted), at its end; a change
 * is said, and changed mount options kept in mount_options_at_end too. */
static json_object *mf_live(const struct fslab_run_ctx *c, const struct fslab_bench_fs *fs,
			    struct fslab_manifest_fs *o)
{
	static const char *const key[FSLAB_LIVE_N] = { "type", "uuid", "options", "features", "kernel" };
	static const char *const word[FSLAB_LIVE_N] = { "type", "UUID", "mount options", "superblock features", "kernel" };
	bool ended = (c->finished_at[0] || c->interrupted) && !fs->rec.vanished;
	json_object *live = json_object_new_object();
	struct fslab_live end;
	char changed[128] = "";

	if (ended)
		fslab_fsinfo_live(fs->rec.path, &end, NULL);
	for (int w = 0; live && w <= ended; w++) {
		json_object *one = json_object_new_object();

		for (int k = 0; one && k < FSLAB_LIVE_N; k++) {
			const char *v = (w ? &end : &fs->live)->v[k];

			json_object_object_add(one, key[k], v[0] ? json_object_new_string(v) : NULL);
			if (w && strcmp(v, fs->live.v[k]) != 0)
				fslab_catf(changed, sizeof(changed), "%s%s", changed[0] ? ", " : "", word[k]);
		}
		json_object_object_add(live, w ? "end" : "start", one);
	}
	if (ended && strcmp(end.v[FSLAB_LIVE_OPTIONS], fs->live.v[FSLAB_LIVE_OPTIONS]) != 0)
		snprintf(o->mount_options_at_end, sizeof(o->mount_options_at_end), "%s", end.v[FSLAB_LIVE_OPTIONS]);
	if (changed[0])
		fslab_note_warn("%s: the %s changed during the run: its figures may mix two configurations; manifest.json records both (live.start, live.end)",
				fs->rec.name, changed);
	return live;
}

/* The filesystem's entry: its record, and what is derived from the run
 * when the manifest is written (device_info, probe, the flush and the
 * cache drop in use). */
static void mf_fs(const struct fslab_run_ctx *c, const struct fslab_bench_fs *fs,
		  struct fslab_manifest_fs *o)
{
	bool cold = c->cfg.sweep.cache == FSLAB_CACHE_COLD;

	*o = fs->rec;
	o->device_info = fs->have_devinfo ? fslab_devinfo_to_json(&fs->devinfo) : NULL;
	if (!o->mount_method[0])
		snprintf(o->mount_method, sizeof(o->mount_method), "unknown");
	o->live = mf_live(c, fs, o);
	mf_probe(&fs->probe, o);
	/* What the flush before each cell reaches (sync_policy fs): syncfs,
	 * plus an fsync of the block device when the target names it. */
	if (c->cfg.sync_policy == FSLAB_SYNC_FS && fs->t->lab)
		snprintf(o->sync_device, sizeof(o->sync_device), "%s", fs->t->device);
	snprintf(o->sync_note, sizeof(o->sync_note), "%s",
		 c->cfg.sync_policy == FSLAB_SYNC_GLOBAL ? "sync() twice before each cell (--sync global)"
		 : fs->t->lab ? "syncfs of the filesystem and fsync of its block device before each cell"
			      : "syncfs only before each cell: --dir names no block device to fsync");
	if (cold) {
		snprintf(o->cache_drop_method, sizeof(o->cache_drop_method), "%s",
			 fslab_drop_method_name(fs->cache.method));
		snprintf(o->cache_drop_note, sizeof(o->cache_drop_note), "%.*s",
			 (int)sizeof(o->cache_drop_note) - 1, fs->cache.note);
		if (fs->cache.leaky && (c->finished_at[0] || c->interrupted))
			fslab_note_warn("%s: cold mode: %s; %s", fs->rec.name, fs->cache.note, geteuid() ? "run fslab as root "
					"(it falls back to drop_caches) or use --cache direct" : "use --cache direct");
	}
}

static void mf_sweep(const struct fslab_run_ctx *c, struct fslab_manifest *m)
{
	const struct fslab_sweep_spec *s = &c->cfg.sweep;

	snprintf(m->sweep.preset, sizeof(m->sweep.preset), "%s", fslab_preset_to_string(c->cfg.preset));
	m->sweep.file_min_kib = s->file_min / 1024;
	m->sweep.file_max_kib = s->file_max / 1024;
	m->sweep.record_min_kib = s->record_min / 1024;
	m->sweep.record_max_kib = s->record_max / 1024;
	m->sweep.tests = s->tests;
	m->sweep.keep_small_records = s->keep_small_records;
	m->sweep.shuffle = s->shuffle;
	snprintf(m->sweep.records_rule, sizeof(m->sweep.records_rule), "%s", s->coarse ? FSLAB_PLAN_COARSE_RULE : "");
	snprintf(m->sweep.blocks, sizeof(m->sweep.blocks), "cell");
	m->sweep.iodepth = s->iodepth ? s->iodepth : 1;
	m->sweep.jobs = s->jobs ? s->jobs : 1;
	if (s->files[0])
		fslab_setting_format(FSLAB_SETTING_FILE_SIZES, &c->cfg, m->sweep.file_sizes, sizeof(m->sweep.file_sizes));
	if (s->records[0])
		fslab_setting_format(FSLAB_SETTING_RECORD_SIZES, &c->cfg, m->sweep.record_sizes, sizeof(m->sweep.record_sizes));
	if (s->depths[0])
		fslab_setting_format(FSLAB_SETTING_IODEPTH, &c->cfg, m->sweep.iodepths, sizeof(m->sweep.iodepths));
	if (fslab_preset_named_rows(s->named_rows)) {
		m->sweep.iodepth = m->sweep.jobs = 0; /* each row's own (the CSV's columns): no one value */
		m->sweep.pass_s = s->pass_s ? s->pass_s : FSLAB_CDM_PASS_S;
		m->sweep.warmup_passes = FSLAB_CDM_WARMUP_PASSES;
	}
}

/* "stopping": the rule and its parameters; with the decided rule, each
 * cell's tests with why they stopped and after how many trials, and the
 * tally of those.  NULL when there is nothing to say (or no memory: the
 * key is then left out, the manifest still written). */
static json_object *mf_stopping(const struct fslab_run_ctx *c)
{
	unsigned tally[FSLAB_STOP_WHY_MAX] = { 0 };
	uint64_t pairs = 0, decided = 0, undecidable = 0;
	json_object *o = json_object_new_object(), *cells, *sum;

	if (!o)
		return NULL;
	json_object_object_add(o, "rule", json_object_new_string(fslab_setting_word(FSLAB_SETTING_STOP, c->cfg.stop_rule)));
	if (c->cfg.stop_rule != FSLAB_STOP_RULE_DECIDED || !c->stops || !c->plan)
		return o;
	json_object_object_add(o, "alpha", json_object_new_double(FSLAB_FAMILY_ALPHA));
	json_object_object_add(o, "equivalence", json_object_new_double(FSLAB_EQUIVALENCE_DEFAULT));
	json_object_object_add(o, "spending", json_object_new_string("Lan-DeMets Pocock-type"));
	json_object_object_add(o, "futility", json_object_new_double(FSLAB_STOP_FUTILITY));
	json_object_object_add(o, "band_resolve", json_object_new_double(FSLAB_STOP_BAND_RESOLVE));
	json_object_object_add(o, "cell_cap", json_object_new_int64(FSLAB_STOP_CELL_CAP));
	json_object_object_add(o, "band_budget_s", json_object_new_int64(FSLAB_STOP_BAND_BUDGET_S));
	json_object_object_add(o, "min_trials", json_object_new_int64(c->cfg.sweep.trials));
	json_object_object_add(o, "max_trials", json_object_new_int64(c->cfg.max_trials));
	json_object_object_add(o, "summary", sum = json_object_new_object());
	json_object_object_add(o, "cells", cells = json_object_new_array());
	if (!cells || !sum)
		return o;
	for (size_t i = 0; i < c->plan->n; i++) {
		json_object *cell = json_object_new_object(), *tests = json_object_new_object();

		json_object_array_add(cells, cell);
		json_object_object_add(cell, "file_kib", json_object_new_int64((int64_t)(c->plan->cells[i].file_bytes / 1024)));
		json_object_object_add(cell, "record_kib", json_object_new_int64((int64_t)(c->plan->cells[i].record_bytes / 1024)));
		json_object_object_add(cell, "tests", tests);
		for (int t = 0; t < FSLAB_TEST_MAX; t++) {
			const struct fslab_stop_record *rec = &c->stops[i * FSLAB_TEST_MAX + t];
			json_object *one;

			if (!(c->cfg.sweep.tests & (1u << t)))
				continue;
			one = json_object_new_object();
			json_object_object_add(one, "why", json_object_new_string(fslab_stop_why_to_string(rec->why)));
			json_object_object_add(one, "trials", rec->why == FSLAB_STOP_OPEN ? NULL : json_object_new_int64(rec->trials));
			json_object_object_add(one, "comparisons", json_object_new_int64(rec->pairs));
			json_object_object_add(one, "decided", json_object_new_int64(rec->decided));
			json_object_object_add(one, "undecidable", json_object_new_int64(rec->undecidable));
			json_object_object_add(tests, fslab_test_to_string((enum fslab_test)t), one);
			if (rec->why < FSLAB_STOP_WHY_MAX)
				tally[rec->why]++;
			pairs += rec->pairs;
			decided += rec->decided;
			undecidable += rec->undecidable;
		}
	}
	for (int w = 0; w < FSLAB_STOP_WHY_MAX; w++)
		json_object_object_add(sum, fslab_stop_why_to_string((enum fslab_stop_why)w),
				       json_object_new_int64(tally[w]));
	json_object_object_add(sum, "comparisons", json_object_new_int64((int64_t)pairs));
	json_object_object_add(sum, "comparisons_decided", json_object_new_int64((int64_t)decided));
	json_object_object_add(sum, "comparisons_undecidable", json_object_new_int64((int64_t)undecidable));
	return o;
}

/* The run's settings and accounting, without the filesystems. */
static int mf_settings(const struct fslab_run_ctx *c, struct fslab_manifest *m)
{
	int r;

	snprintf(m->fslab_version, sizeof(m->fslab_version), "%s", FSLAB_VERSION);
	snprintf(m->run_id, sizeof(m->run_id), "%s", c->run_id);
	snprintf(m->label, sizeof(m->label), "%s", c->cfg.label);
	/* resumed: "command" stays the run's own, this session's is kept
	 * beside it */
	r = c->first_command
		    ? fslab_manifest_set_words(&m->command, &m->n_command, c->n_first_command,
					       (const char *const *)c->first_command)
		    : 0;
	if (r == 0)
		r = fslab_manifest_set_words(c->first_command ? &m->resumed_with : &m->command,
					     c->first_command ? &m->n_resumed_with : &m->n_command,
					     c->argv ? (size_t)c->argc : 0, (const char *const *)c->argv);
	if (r < 0)
		return r;
	snprintf(m->started_at, sizeof(m->started_at), "%s", c->started_at);
	snprintf(m->finished_at, sizeof(m->finished_at), "%s", c->finished_at);
	m->interrupted = c->interrupted;
	m->sessions = c->sessions;
	m->cache = c->cfg.sweep.cache;
	m->trials = c->cfg.sweep.trials;
	m->until_ci_pct = c->cfg.until_ci_pct > 0 ? c->cfg.until_ci_pct : 0;
	m->max_trials = c->cfg.stop_rule != FSLAB_STOP_RULE_FIXED ? c->cfg.max_trials : c->cfg.sweep.trials;
	snprintf(m->stop, sizeof(m->stop), "%s", fslab_setting_word(FSLAB_SETTING_STOP, c->cfg.stop_rule));
	m->stopping = mf_stopping(c);
	m->seed = c->cfg.sweep.seed;
	snprintf(m->io_mode, sizeof(m->io_mode), "%s", fslab_setting_word(FSLAB_SETTING_IO, c->cfg.io_mode));
	snprintf(m->sync_policy, sizeof(m->sync_policy), "%s", fslab_setting_word(FSLAB_SETTING_SYNC, c->cfg.sync_policy));
	snprintf(m->file_sync, sizeof(m->file_sync), "%s", fslab_setting_word(FSLAB_SETTING_FILE_SYNC, c->cfg.file_sync));
	m->latency = c->cfg.latency;
	m->pass_gap_ms = c->cfg.pass_gap_ms;
	snprintf(m->steady_state, sizeof(m->steady_state), "%s", fslab_setting_word(FSLAB_SETTING_STEADY, c->cfg.steady_mode));
	m->steady_round_kib = c->cfg.steady_round_bytes / 1024;
	mf_sweep(c, m);
	mf_machine(m);
	m->page_cache_factor = FSLAB_PAGE_CACHE_FACTOR;
	snprintf(m->page_cache_flag, sizeof(m->page_cache_flag), "%s",
		 "with device_counters: a read whose device read under 90% of its bytes, a write under 90% of whose bytes were written by its timer's stop; else a cell faster than page_cache_factor x the fastest device_probe_runs");
	snprintf(m->device_bytes, sizeof(m->device_bytes), "%s",
		 "the partition's sectors read and written from right before each timed region to after a syncfs following the pass (dev_write_timed_bytes: to the timer's stop); beyond-device: faster than page_cache_factor x the probe");
	snprintf(m->device_probe, sizeof(m->device_probe), "%s",
		 c->cfg.no_device_probe ? "skipped (--no-device-probe): page-cache flags from device_counters only" : "per filesystem, before the sweep");
	snprintf(m->state_path, sizeof(m->state_path), "%s", c->state_path);
	m->time.wall_s = c->wall_s;
	snprintf(m->spec_source, sizeof(m->spec_source), "%s",
		 c->spec_text || c->spec_text_source[0] ? c->spec_text_source : "preset");
	if (c->spec_text && !(m->spec_text = strdup(c->spec_text)))
		return -ENOMEM;
	return 0;
}

int fslab_manifest_write(const struct fslab_run_ctx *c)
{
	struct fslab_manifest *m = fslab_manifest_new(FSLAB_MANIFEST_RUN);
	int r;

	if (!m)
		return -ENOMEM;
	r = mf_settings(c, m);
	for (size_t i = 0; r == 0 && i < c->n_fs; i++) {
		struct fslab_manifest_fs *o = fslab_manifest_add_fs(m);

		if (!o) {
			r = -ENOMEM;
			break;
		}
		mf_fs(c, &c->fs[i], o);
		m->time.timed_s += c->fs[i].rec.timed_s;
		m->time.untimed_io_s += c->fs[i].rec.untimed_io_s;
		m->time.cache_drop_s += c->fs[i].rec.cache_drop_s;
	}
	if (r == 0)
		r = fslab_manifest_write_at(c->out_fd, m);
	fslab_manifest_free(m);
	return r;
}

/* The settings --resume continues with, from a checked manifest. */
static int mf_take_settings(const struct fslab_manifest *m, struct fslab_run_ctx *c,
			    const char *path, char *err, size_t errlen)
{
	static const int row[4] = { FSLAB_SETTING_IO, FSLAB_SETTING_SYNC, FSLAB_SETTING_FILE_SYNC, FSLAB_SETTING_STOP };
	static const int lists[3] = { FSLAB_SETTING_FILE_SIZES, FSLAB_SETTING_RECORD_SIZES, FSLAB_SETTING_IODEPTH };
	const char *val[4] = { m->io_mode, m->sync_policy, m->file_sync, m->stop };
	const char *list[3] = { m->sweep.file_sizes, m->sweep.record_sizes, m->sweep.iodepths };
	struct fslab_settings l = { 0 };
	struct fslab_err le = FSLAB_ERR_INIT;
	/* absent in runs recorded before these keys: their defaults then (before
	 * "stop": what their settings meant) */
	int v[4] = { FSLAB_IO_SEEK, FSLAB_SYNC_FS, FSLAB_FILE_SYNC_FSYNC,
		     m->until_ci_pct > 0 ? FSLAB_STOP_RULE_CI : FSLAB_STOP_RULE_FIXED };
	char words[64];

	for (int i = 0; i < 4; i++)
		if (val[i][0] && (v[i] = fslab_setting_word_index(row[i], val[i])) < 0) {
			snprintf(err, errlen, "%s: %s is '%s'; allowed: %s", path, fslab_setting_mkey(row[i], 0),
				 val[i], fslab_setting_words(row[i], ", ", words, sizeof(words)));
			return -EINVAL;
		}
	snprintf(c->run_id, sizeof(c->run_id), "%s", m->run_id);
	/* absent or another word in runs recorded before the lab preset: seed */
	c->cfg.preset = fslab_preset_from_string(m->sweep.preset);
	if (c->cfg.preset == FSLAB_PRESET_INVALID)
		c->cfg.preset = FSLAB_PRESET_SEED;
	/* a CrystalDiskMark run's plan is its preset's rows */
	c->cfg.sweep.named_rows = fslab_preset_named_rows(c->cfg.preset) ? c->cfg.preset : FSLAB_PRESET_SEED;
	c->cfg.sweep.pass_s = m->sweep.pass_s;
	c->cfg.sweep.file_min = m->sweep.file_min_kib * 1024;
	c->cfg.sweep.file_max = m->sweep.file_max_kib * 1024;
	c->cfg.sweep.record_min = m->sweep.record_min_kib * 1024;
	c->cfg.sweep.record_max = m->sweep.record_max_kib * 1024;
	c->cfg.sweep.tests = m->sweep.tests;
	c->cfg.sweep.keep_small_records = m->sweep.keep_small_records;
	c->cfg.sweep.shuffle = m->sweep.shuffle;
	c->cfg.sweep.coarse = m->sweep.records_rule[0] != 0;
	c->cfg.sweep.iodepth = m->sweep.iodepth;
	c->cfg.sweep.jobs = m->sweep.jobs;
	/* the lists (absent: the ranges and the depth above) */
	for (int i = 0; i < 3; i++)
		if (list[i][0] && fslab_setting_parse(&l, lists[i], list[i], "sweep", &le) < 0) {
			snprintf(err, errlen, "%s: %s", path, le.msg);
			return -EINVAL;
		}
	fslab_settings_merge(&c->cfg, &l, ~0u);
	c->cfg.sweep.cache = m->cache;
	c->cfg.sweep.trials = m->trials;
	c->cfg.sweep.seed = m->seed;
	c->cfg.until_ci_pct = m->until_ci_pct;
	c->cfg.stop_rule = v[3];
	c->cfg.io_mode = v[0];
	c->cfg.sync_policy = v[1];
	c->cfg.file_sync = v[2];
	c->cfg.latency = m->latency;
	c->cfg.pass_gap_ms = m->pass_gap_ms;
	/* absent in runs recorded before the steady-state phase: auto then */
	c->cfg.steady_mode = m->steady_state[0] ? fslab_setting_word_index(FSLAB_SETTING_STEADY, m->steady_state) : FSLAB_STEADY_AUTO;
	c->cfg.steady_round_bytes = m->steady_round_kib ? m->steady_round_kib * 1024 : FSLAB_STEADY_ROUND_DEFAULT;
	snprintf(c->cfg.label, sizeof(c->cfg.label), "%s", m->label);
	c->cfg.max_trials = (m->has & FSLAB_MF_HAS_MAX_TRIALS) ? m->max_trials : m->trials;
	c->cfg.no_device_probe = strncmp(m->device_probe, "skipped", 7) == 0;
	snprintf(c->started_at, sizeof(c->started_at), "%s", m->started_at);
	c->sessions = m->sessions;
	if (m->has & FSLAB_MF_HAS_TIME)
		c->wall_s = m->time.wall_s;
	snprintf(c->state_path, sizeof(c->state_path), "%s", m->state_path);
	if (m->spec_text) {
		snprintf(c->spec_text_source, sizeof(c->spec_text_source), "%s", m->spec_source);
		if (!(c->spec_text = strdup(m->spec_text)))
			return -ENOMEM;
	}
	return 0;
}

void fslab_manifest_take_probe(const struct fslab_manifest_fs *f, struct fslab_probe_result *p)
{
	memset(p, 0, sizeof(*p));
	p->write_kib_s = f->device_write_kib_s;
	p->read_kib_s = f->device_read_kib_s;
	for (unsigned k = 0; k < f->probe_runs && k < FSLAB_PROBE_RUNS; k++) {
		p->write_runs_kib_s[k] = f->probe_write_kib_s[k];
		p->read_runs_kib_s[k] = f->probe_read_kib_s[k];
	}
	p->runs = f->probe_runs;
	p->bytes = f->device_probe_bytes;
	snprintf(p->method, sizeof(p->method), "%s", f->device_probe[0] ? f->device_probe : "skipped");
	snprintf(p->note, sizeof(p->note), "%s", f->device_probe_note);
	snprintf(p->source, sizeof(p->source), "%s", f->device_probe_source);
	p->measured_at = mf_utc_parse(f->device_probe_measured_at);
}

int fslab_manifest_read(int dfd, const char *dir, struct fslab_run_ctx *c, char *err,
			size_t errlen)
{
	char path[PATH_MAX + 32];
	struct fslab_manifest *m = NULL;
	struct fslab_err fe = FSLAB_ERR_INIT;
	int fd, r;

	snprintf(path, sizeof(path), "%s/%s", dir, FSLAB_MANIFEST_NAME);
	fd = fslab_manifest_open_at(dfd);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s; --resume takes a results directory an earlier fslab run wrote",
			 path, fd == -ELOOP ? "is a symbolic link" : fd == -EINVAL ? "is not a regular file" : strerror(-fd));
		return fd == -ENOENT ? -ENOENT : -EINVAL;
	}
	r = fslab_manifest_read_fd(fd, path, &m, &fe);
	close(fd);
	if (r == 0)
		r = fslab_manifest_check_resumable(m, path, &fe);
	if (r < 0)
		snprintf(err, errlen, "%s", fe.msg);
	if (r == 0)
		r = mf_take_settings(m, c, path, err, errlen);
	if (r == 0 && m->command) /* the first session's command */
		r = fslab_manifest_set_words(&c->first_command, &c->n_first_command, m->n_command,
					     (const char *const *)m->command);
	if (r == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", path);
	if (r == 0)
		c->resumed = m; /* the filesystems' records, for run.c */
	else
		fslab_manifest_free(m);
	return r == -ENOMEM || r == 0 ? r : -EINVAL;
}
