/* <out>/manifest.json: what shaped the numbers (DESIGN.md), written
 * atomically at the start, after each filesystem and trial, and at the
 * end (finished_at).  Also the record --resume continues from. */
#include "bench_int.h"
#include "devinfo.h"
#include "engine.h"
#include "fileutil.h"
#include "run.h"
#include "size.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#ifndef FSLAB_VERSION
#define FSLAB_VERSION "0.0.0"
#endif

static json_object *mf_str(const char *s)
{
	return s && s[0] ? json_object_new_string(s) : NULL;
}

static json_object *mf_kib(double v)
{
	return v > 0 ? json_object_new_int64((int64_t)v) : NULL;
}

static void mf_machine(json_object *m)
{
	struct utsname u;
	char host[256] = "", *data = NULL, model[256] = "";
	size_t n;
	long mem_kib = 0;

	gethostname(host, sizeof(host) - 1);
	json_object_object_add(m, "hostname", json_object_new_string(host));
	if (uname(&u) == 0) {
		char k[600];
		snprintf(k, sizeof(k), "%s %s %s", u.sysname, u.release, u.machine);
		json_object_object_add(m, "kernel", json_object_new_string(k));
		json_object_object_add(m, "kernel_version", json_object_new_string(u.version));
	}
	if (fslab_read_file("/proc/cpuinfo", &data, &n, 1 << 22) == 0) {
		char *p = strstr(data, "model name");
		if (p && (p = strchr(p, ':'))) {
			p += 1 + strspn(p + 1, " \t");
			snprintf(model, sizeof(model), "%.*s", (int)strcspn(p, "\n"), p);
		}
		free(data);
	}
	json_object_object_add(m, "cpu_model", mf_str(model));
	json_object_object_add(m, "cpus", json_object_new_int((int)sysconf(_SC_NPROCESSORS_ONLN)));
	if (fslab_read_file("/proc/meminfo", &data, &n, 1 << 20) == 0) {
		char *p = strstr(data, "MemTotal:");
		if (p)
			mem_kib = strtol(p + 9, NULL, 10);
		free(data);
	}
	json_object_object_add(m, "memory_kib", mem_kib ? json_object_new_int64(mem_kib) : NULL);
}

static json_object *mf_sweep(const struct fslab_run_ctx *c)
{
	const struct fslab_sweep_spec *s = &c->sweep;
	json_object *o = json_object_new_object(), *tests = json_object_new_array();

	json_object_object_add(o, "preset", json_object_new_string(c->preset ? c->preset : "seed"));
	json_object_object_add(o, "file_min_kib", json_object_new_int64((int64_t)(s->file_min / 1024)));
	json_object_object_add(o, "file_max_kib", json_object_new_int64((int64_t)(s->file_max / 1024)));
	json_object_object_add(o, "record_min_kib", json_object_new_int64((int64_t)(s->record_min / 1024)));
	json_object_object_add(o, "record_max_kib", json_object_new_int64((int64_t)(s->record_max / 1024)));
	for (int t = 0; t < FSLAB_TEST_MAX; t++)
		if (s->tests & (1u << t))
			json_object_array_add(tests, json_object_new_string(fslab_test_to_string(t)));
	json_object_object_add(o, "tests", tests);
	json_object_object_add(o, "keep_small_records", json_object_new_boolean(s->keep_small_records));
	json_object_object_add(o, "order", json_object_new_string(s->shuffle ? "shuffle" : "fixed"));
	return o;
}

static json_object *mf_fs(const struct fslab_run_ctx *c, const struct fslab_bench_fs *fs)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "name", json_object_new_string(fs->name));
	json_object_object_add(o, "type", mf_str(fs->type));
	json_object_object_add(o, "path", json_object_new_string(fs->path));
	json_object_object_add(o, "mountpoint", mf_str(fs->mountpoint));
	json_object_object_add(o, "device", mf_str(fs->device));
	json_object_object_add(o, "mount_method", json_object_new_string(fs->mount_method[0] ? fs->mount_method : "unknown"));
	json_object_object_add(o, "mkfs_options", fs->part ? json_object_new_string(fs->mkfs_options) : NULL);
	json_object_object_add(o, "mount_options", mf_str(fs->mount_options));
	json_object_object_add(o, "mkfs_tool_version", mf_str(fs->mkfs_tool_version));
	json_object_object_add(o, "device_model", mf_str(fs->device_model));
	{
		/* Identity from provision/devinfo.c: transport, firmware, sector
		 * sizes, discard; a SCSI serial from VPD page 0x80. */
		struct fslab_devinfo di;
		char err[256];
		bool have = strncmp(fs->device, "/dev/", 5) == 0 &&
			    fslab_devinfo_read(fs->device, &di, err, sizeof(err)) == 0;

		json_object_object_add(o, "device_serial", mf_str(fs->device_serial[0] || !have ? fs->device_serial : di.serial));
		json_object_object_add(o, "device_info", have ? fslab_devinfo_to_json(&di) : NULL);
		json_object_object_add(o, "setup_discarded",
				       fs->part ? json_object_new_boolean(fs->part->discarded) : NULL);
	}
	json_object_object_add(o, "device_size_bytes",
			       fs->device_size_bytes ? json_object_new_int64((int64_t)fs->device_size_bytes) : NULL);
	json_object_object_add(o, "device_write_kib_s", mf_kib(fs->probe.write_kib_s));
	json_object_object_add(o, "device_read_kib_s", mf_kib(fs->probe.read_kib_s));
	json_object_object_add(o, "device_probe", json_object_new_string(fs->probe.method[0] ? fs->probe.method : "skipped"));
	json_object_object_add(o, "device_probe_note", mf_str(fs->probe.note));
	if (fs->probe.runs) {
		json_object *runs = json_object_new_array();
		for (unsigned k = 0; k < fs->probe.runs && k < FSLAB_PROBE_RUNS; k++) {
			json_object *pr = json_object_new_object();
			json_object_object_add(pr, "write_kib_s", mf_kib(fs->probe.write_runs_kib_s[k]));
			json_object_object_add(pr, "read_kib_s", mf_kib(fs->probe.read_runs_kib_s[k]));
			json_object_array_add(runs, pr);
		}
		json_object_object_add(o, "device_probe_runs", runs);
	} else {
		json_object_object_add(o, "device_probe_runs", NULL);
	}
	json_object_object_add(o, "device_probe_bytes",
			       fs->probe.bytes ? json_object_new_int64((int64_t)fs->probe.bytes) : NULL);
	/* What the flush before each cell reaches (sync_policy fs): syncfs,
	 * plus an fsync of the block device when the lab names it. */
	json_object_object_add(o, "sync_device",
			       c->sync_policy == FSLAB_SYNC_FS && fs->part ? json_object_new_string(fs->part->device) : NULL);
	json_object_object_add(o, "sync_note",
			       json_object_new_string(c->sync_policy == FSLAB_SYNC_GLOBAL ? "sync() twice before each cell (--sync global)"
						      : fs->part ? "syncfs of the filesystem and fsync of its block device before each cell"
								 : "syncfs only before each cell: --dir names no block device to fsync"));
	json_object_object_add(o, "cache_drop_method",
			       c->sweep.cache == FSLAB_CACHE_COLD ? json_object_new_string(fslab_drop_method_name(fs->cache.method)) : NULL);
	json_object_object_add(o, "cache_drop_note",
			       c->sweep.cache == FSLAB_CACHE_COLD ? json_object_new_string(fs->cache.note) : NULL);
	json_object_object_add(o, "fuse", json_object_new_boolean(fs->fuse));
	json_object_object_add(o, "vanished", json_object_new_boolean(fs->vanished));
	json_object_object_add(o, "cells_ok", json_object_new_int64((int64_t)fs->cells_ok));
	json_object_object_add(o, "cells_failed", json_object_new_int64((int64_t)fs->cells_failed));
	json_object_object_add(o, "cells_skipped", json_object_new_int64((int64_t)fs->cells_skipped));
	json_object_object_add(o, "timed_s", json_object_new_double(fs->timed_s));
	json_object_object_add(o, "untimed_io_s", json_object_new_double(fs->untimed_io_s));
	json_object_object_add(o, "cache_drop_s", json_object_new_double(fs->cache_drop_s));
	json_object_object_add(o, "wall_s", json_object_new_double(fs->wall_s));
	return o;
}

int fslab_manifest_write(const struct fslab_run_ctx *c)
{
	json_object *root = json_object_new_object(), *arr, *m;
	const char *text;
	double timed = 0, untimed = 0, drops = 0;
	int r;

	json_object_object_add(root, "fslab_version", json_object_new_string(FSLAB_VERSION));
	json_object_object_add(root, "run_id", json_object_new_string(c->run_id));
	json_object_object_add(root, "label", mf_str(c->label));
	arr = json_object_new_array();
	for (int i = 0; i < c->argc && c->argv; i++)
		json_object_array_add(arr, json_object_new_string(c->argv[i]));
	if (c->first_command) {
		/* resumed: "command" stays the run's own, this session's is kept
		 * beside it */
		json_object *first = json_object_new_array();
		for (size_t i = 0; i < c->n_first_command; i++)
			json_object_array_add(first, json_object_new_string(c->first_command[i]));
		json_object_object_add(root, "command", first);
		json_object_object_add(root, "resumed_with", arr);
	} else {
		json_object_object_add(root, "command", arr);
	}
	json_object_object_add(root, "started_at", json_object_new_string(c->started_at));
	json_object_object_add(root, "finished_at", mf_str(c->finished_at));
	json_object_object_add(root, "interrupted", json_object_new_boolean(c->interrupted));
	json_object_object_add(root, "sessions", json_object_new_int((int)c->sessions));
	json_object_object_add(root, "cache_mode", json_object_new_string(fslab_cache_mode_to_string(c->sweep.cache)));
	json_object_object_add(root, "trials", json_object_new_int((int)c->sweep.trials));
	json_object_object_add(root, "until_ci_pct", c->until_ci_pct > 0 ? json_object_new_double(c->until_ci_pct) : NULL);
	json_object_object_add(root, "max_trials", json_object_new_int((int)(c->until_ci_pct > 0 ? c->max_trials : c->sweep.trials)));
	json_object_object_add(root, "seed", json_object_new_int64((int64_t)c->sweep.seed));
	json_object_object_add(root, "io_mode", json_object_new_string(fslab_io_mode_to_string(c->io_mode)));
	json_object_object_add(root, "sync_policy", json_object_new_string(fslab_sync_policy_to_string(c->sync_policy)));
	json_object_object_add(root, "latency", json_object_new_boolean(c->latency));
	json_object_object_add(root, "sweep", mf_sweep(c));
	m = json_object_new_object();
	mf_machine(m);
	json_object_object_add(root, "machine", m);
	json_object_object_add(root, "page_cache_factor", json_object_new_double(FSLAB_PAGE_CACHE_FACTOR));
	json_object_object_add(root, "page_cache_flag",
			       json_object_new_string("a cell faster than page_cache_factor x the fastest of the filesystem's device_probe_runs (write figure for writing tests, read figure for reading tests)"));
	json_object_object_add(root, "device_probe", json_object_new_string(c->no_device_probe ? "skipped (--no-device-probe): no page-cache flags" : "per filesystem, before the sweep"));
	json_object_object_add(root, "state_path", mf_str(c->state_path));
	arr = json_object_new_array();
	for (size_t i = 0; i < c->n_fs; i++) {
		json_object_array_add(arr, mf_fs(c, &c->fs[i]));
		timed += c->fs[i].timed_s;
		untimed += c->fs[i].untimed_io_s;
		drops += c->fs[i].cache_drop_s;
	}
	json_object_object_add(root, "filesystems", arr);
	m = json_object_new_object();
	json_object_object_add(m, "wall_s", json_object_new_double(c->wall_s));
	json_object_object_add(m, "timed_s", json_object_new_double(timed));
	json_object_object_add(m, "untimed_io_s", json_object_new_double(untimed));
	json_object_object_add(m, "cache_drop_s", json_object_new_double(drops));
	json_object_object_add(root, "time", m);
	if (c->spec_text) {
		m = json_object_new_object();
		json_object_object_add(m, "source", json_object_new_string(c->spec_text_source));
		json_object_object_add(m, "text", json_object_new_string(c->spec_text));
		json_object_object_add(root, "spec", m);
	} else {
		json_object_object_add(root, "spec", json_object_new_string(c->spec_text_source[0] ? c->spec_text_source : "preset"));
	}

	text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	r = fslab_write_file_atomic_at(c->out_fd, "manifest.json", text, strlen(text), 0644);
	json_object_put(root);
	return r;
}

static const char *mf_get_str(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static bool mf_get_num(json_object *o, const char *key, double *out)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)))
		return false;
	*out = json_object_get_double(v);
	return true;
}

int fslab_manifest_read(int dfd, const char *dir, struct fslab_run_ctx *c, char *err,
			size_t errlen)
{
	char path[PATH_MAX + 32], *text = NULL;
	json_object *root, *sw, *arr, *v;
	const char *s;
	ssize_t n;
	size_t len = 0, cap = 1 << 16;
	double d;
	int fd, r = -EINVAL;

	snprintf(path, sizeof(path), "%s/manifest.json", dir);
	fd = fslab_open_regular_at(dfd, "manifest.json", O_RDONLY);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s; --resume takes a results directory an earlier fslab run wrote",
			 path, fd == -ELOOP ? "is a symbolic link" : fd == -EINVAL ? "is not a regular file" : strerror(-fd));
		return fd == -ENOENT ? -ENOENT : -EINVAL;
	}
	/* A manifest is a few KiB (a sweep file's text at most 1 MiB). */
	text = malloc(cap + 1);
	while (text && (n = read(fd, text + len, cap - len)) > 0) {
		len += (size_t)n;
		if (len == cap) {
			char *t = cap < (8u << 20) ? realloc(text, cap * 2 + 1) : NULL;
			if (!t) {
				free(text);
				text = NULL;
				break;
			}
			text = t;
			cap *= 2;
		}
	}
	close(fd);
	if (!text) {
		snprintf(err, errlen, "%s: cannot read (too large or out of memory)", path);
		return -EINVAL;
	}
	text[len] = '\0';
	root = json_tokener_parse(text);
	free(text);
	if (!root || !json_object_is_type(root, json_type_object)) {
		json_object_put(root);
		snprintf(err, errlen, "%s: not valid JSON", path);
		return -EINVAL;
	}
#define NEED(cond, what)                                                             \
	do {                                                                         \
		if (!(cond)) {                                                       \
			snprintf(err, errlen, "%s: %s is missing or wrong", path, what); \
			goto out;                                                    \
		}                                                                    \
	} while (0)
	s = mf_get_str(root, "run_id");
	if (!s || strlen(s) != FSLAB_RUN_ID_LEN) {
		snprintf(err, errlen, "%s: no run_id: written by an fslab before run ids, or not by fslab; a run can be continued only by proving the manifest is this directory's",
			 path);
		goto out;
	}
	snprintf(c->run_id, sizeof(c->run_id), "%s", s);
	NEED(json_object_object_get_ex(root, "sweep", &sw), "\"sweep\"");
	s = mf_get_str(sw, "preset");
	c->preset = (s && strcmp(s, "quick") == 0) ? "quick"
		    : (s && strcmp(s, FSLAB_PRESET_DEFAULT) == 0) ? FSLAB_PRESET_DEFAULT : "seed";
	NEED(mf_get_num(sw, "file_min_kib", &d), "sweep.file_min_kib");
	c->sweep.file_min = (uint64_t)d * 1024;
	NEED(mf_get_num(sw, "file_max_kib", &d), "sweep.file_max_kib");
	c->sweep.file_max = (uint64_t)d * 1024;
	NEED(mf_get_num(sw, "record_min_kib", &d), "sweep.record_min_kib");
	c->sweep.record_min = (uint64_t)d * 1024;
	NEED(mf_get_num(sw, "record_max_kib", &d), "sweep.record_max_kib");
	c->sweep.record_max = (uint64_t)d * 1024;
	NEED(json_object_object_get_ex(sw, "tests", &arr) && json_object_is_type(arr, json_type_array), "sweep.tests");
	c->sweep.tests = 0;
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		enum fslab_test t = fslab_test_from_string(json_object_get_string(json_object_array_get_idx(arr, i)));
		NEED(t != FSLAB_TEST_INVALID, "a name in sweep.tests");
		c->sweep.tests |= 1u << t;
	}
	NEED(json_object_object_get_ex(sw, "keep_small_records", &v), "sweep.keep_small_records");
	c->sweep.keep_small_records = json_object_get_boolean(v);
	s = mf_get_str(sw, "order");
	c->sweep.shuffle = !s || strcmp(s, "fixed") != 0;
	s = mf_get_str(root, "cache_mode");
	NEED(s && fslab_cache_mode_from_string(s) != FSLAB_CACHE_MODE_INVALID, "\"cache_mode\"");
	c->sweep.cache = fslab_cache_mode_from_string(s);
	NEED(mf_get_num(root, "trials", &d) && d >= 1, "\"trials\"");
	c->sweep.trials = (unsigned)d;
	NEED(mf_get_num(root, "seed", &d), "\"seed\"");
	c->sweep.seed = (uint64_t)d;
	c->until_ci_pct = mf_get_num(root, "until_ci_pct", &d) ? d : 0;
	/* absent in runs recorded before these keys: their defaults then */
	s = mf_get_str(root, "io_mode");
	NEED(!s || fslab_io_mode_from_string(s) >= 0, "\"io_mode\"");
	c->io_mode = s ? fslab_io_mode_from_string(s) : FSLAB_IO_SEEK;
	s = mf_get_str(root, "sync_policy");
	NEED(!s || fslab_sync_policy_from_string(s) >= 0, "\"sync_policy\"");
	c->sync_policy = s ? fslab_sync_policy_from_string(s) : FSLAB_SYNC_FS;
	c->latency = json_object_object_get_ex(root, "latency", &v) && json_object_get_boolean(v);
	s = mf_get_str(root, "label");
	snprintf(c->label, sizeof(c->label), "%s", s ? s : "");
	c->max_trials = mf_get_num(root, "max_trials", &d) ? (unsigned)d : c->sweep.trials;
	s = mf_get_str(root, "device_probe");
	c->no_device_probe = s && strncmp(s, "skipped", 7) == 0;
	s = mf_get_str(root, "started_at");
	snprintf(c->started_at, sizeof(c->started_at), "%s", s ? s : "");
	c->sessions = mf_get_num(root, "sessions", &d) ? (unsigned)d : 1;
	if (json_object_object_get_ex(root, "time", &v) && mf_get_num(v, "wall_s", &d))
		c->wall_s = d;
	if (json_object_object_get_ex(root, "command", &v) && json_object_is_type(v, json_type_array)) {
		size_t n = json_object_array_length(v);
		c->first_command = calloc(n + 1, sizeof(char *));
		for (size_t i = 0; c->first_command && i < n; i++) {
			const char *w = json_object_get_string(json_object_array_get_idx(v, i));
			c->first_command[i] = strdup(w ? w : "");
			c->n_first_command++;
		}
	}
	s = mf_get_str(root, "state_path");
	snprintf(c->state_path, sizeof(c->state_path), "%s", s ? s : "");
	if (json_object_object_get_ex(root, "spec", &v) && json_object_is_type(v, json_type_object)) {
		s = mf_get_str(v, "source");
		snprintf(c->spec_text_source, sizeof(c->spec_text_source), "%s", s ? s : "");
		s = mf_get_str(v, "text");
		c->spec_text = s ? strdup(s) : NULL;
	}
	NEED(json_object_object_get_ex(root, "filesystems", &arr) && json_object_is_type(arr, json_type_array) &&
		     json_object_array_length(arr) > 0 && json_object_array_length(arr) <= FSLAB_MAX_FS,
	     "\"filesystems\"");
	c->n_fs = json_object_array_length(arr);
	for (size_t i = 0; i < c->n_fs; i++) {
		json_object *f = json_object_array_get_idx(arr, i);
		struct fslab_bench_fs *fs = &c->fs[i];

		s = mf_get_str(f, "name");
		NEED(s && fslab_fs_name_valid(s), "a filesystem name");
		snprintf(fs->name, sizeof(fs->name), "%s", s);
		s = mf_get_str(f, "path");
		NEED(s, "a filesystem path");
		snprintf(fs->path, sizeof(fs->path), "%s", s);
		fs->probe.write_kib_s = mf_get_num(f, "device_write_kib_s", &d) ? d : 0;
		fs->probe.read_kib_s = mf_get_num(f, "device_read_kib_s", &d) ? d : 0;
		if (json_object_object_get_ex(f, "device_probe_runs", &v) && json_object_is_type(v, json_type_array)) {
			for (size_t k = 0; k < json_object_array_length(v) && k < FSLAB_PROBE_RUNS; k++) {
				json_object *pr = json_object_array_get_idx(v, k);
				fs->probe.write_runs_kib_s[k] = mf_get_num(pr, "write_kib_s", &d) ? d : 0;
				fs->probe.read_runs_kib_s[k] = mf_get_num(pr, "read_kib_s", &d) ? d : 0;
				fs->probe.runs = (unsigned)k + 1;
			}
		}
		fs->probe.bytes = mf_get_num(f, "device_probe_bytes", &d) ? (uint64_t)d : 0;
		s = mf_get_str(f, "device_probe");
		snprintf(fs->probe.method, sizeof(fs->probe.method), "%s", s ? s : "skipped");
		s = mf_get_str(f, "device_probe_note");
		snprintf(fs->probe.note, sizeof(fs->probe.note), "%s", s ? s : "");
		fs->timed_s = mf_get_num(f, "timed_s", &d) ? d : 0;
		fs->untimed_io_s = mf_get_num(f, "untimed_io_s", &d) ? d : 0;
		fs->cache_drop_s = mf_get_num(f, "cache_drop_s", &d) ? d : 0;
		fs->wall_s = mf_get_num(f, "wall_s", &d) ? d : 0;
	}
	r = 0;
#undef NEED
out:
	json_object_put(root);
	return r;
}
