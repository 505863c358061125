/* bench/ internals shared by run.c, fsinfo.c, probe.c, manifest.c and
 * resume.c.  Not a contract: other modules use run.h. */
#ifndef FSLAB_BENCH_INT_H
#define FSLAB_BENCH_INT_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "cache.h"
#include "names.h"
#include "plan.h"
#include "spec.h"
#include "state.h"

/* What the device can do, measured before the sweep (probe.c). */
struct fslab_probe_result {
	double write_kib_s, read_kib_s; /* 0: unknown */
	char method[24];                /* o_direct, buffered+fsync, skipped, failed */
	char note[256];
	uint64_t bytes;
};

/* Default and bounds of the probe's scratch file. */
#define FSLAB_PROBE_DEFAULT_BYTES (64 * 1024 * 1024)
#define FSLAB_PROBE_RECORD (1024 * 1024)
#define PROBEFILE_PREFIX ".fslab-probe-"

int fslab_device_probe(const char *dir, uint64_t bytes, struct fslab_probe_result *r);

/* One filesystem under test. */
struct fslab_bench_fs {
	char name[FSLAB_FS_NAME_MAX];
	char path[PATH_MAX];
	const struct fslab_state_partition *part; /* NULL for --dir */
	dev_t dev;                                /* st_dev of path at the start */

	/* From the state and /proc/self/mountinfo (fsinfo.c). */
	char type[64];
	char device[PATH_MAX];
	char mountpoint[PATH_MAX];
	char mount_method[16]; /* kernel, fuse, unknown */
	char mount_options[512];
	char mkfs_options[FSLAB_OPTIONS_MAX];
	char mkfs_tool_version[128];
	char device_model[128];
	char device_serial[128];
	uint64_t device_size_bytes;
	bool fuse;

	struct fslab_probe_result probe;
	struct fslab_cache_ctl cache;

	/* Accounting, for the manifest (seconds). */
	double timed_s, untimed_io_s, cache_drop_s, wall_s;
	uint64_t cells_ok, cells_failed, cells_skipped;

	bool vanished;
	FILE *csv;
};

/* Fills type, device, mountpoint, mount options, fuse, device model/serial/
 * size from /proc/self/mountinfo and /sys.  Returns 0 or -errno (path
 * missing). */
int fslab_fsinfo_fill(struct fslab_bench_fs *fs);
/* 0 when fs->path still is the same filesystem as at the start, else
 * -ENOENT / -ESTALE (unmounted or replaced). */
int fslab_fsinfo_check(const struct fslab_bench_fs *fs);
/* Version line of the mkfs tool for a type ("mke2fs 1.47.0 (5-Feb-2023)"). */
void fslab_fsinfo_mkfs_version(const char *type, char *buf, size_t len);

/* The whole run. */
struct fslab_run_ctx {
	char out_dir[PATH_MAX];
	char state_path[PATH_MAX]; /* "" for --dir */
	struct fslab_state *state;
	char spec_text_source[PATH_MAX];
	char *spec_text;            /* the sweep file's text, or NULL */
	const char *preset;
	struct fslab_sweep_spec sweep;
	double until_ci_pct;        /* 0: off */
	unsigned max_trials;
	bool no_device_probe;
	uint64_t probe_bytes;

	size_t n_fs;
	struct fslab_bench_fs fs[FSLAB_MAX_FS];

	int argc;
	char *const *argv;
	/* On resume: the first session's command (argv above is this one's). */
	char **first_command;
	size_t n_first_command;
	char started_at[32], finished_at[32];
	double wall_s; /* this process's run, plus earlier sessions on resume */
	unsigned sessions;
	bool interrupted;
};

int fslab_manifest_write(const struct fslab_run_ctx *c);
/* Reads a manifest back into c (settings, filesystems with name and path,
 * probe figures, accounting).  err gets a message. */
int fslab_manifest_read(const char *dir, struct fslab_run_ctx *c, char *err, size_t errlen);

/* Status prefix of the rows written for a filesystem that disappeared;
 * --resume runs those cells again. */
#define FSLAB_VANISHED_STATUS "failed: filesystem vanished"

/* Identity of a finished cell, for resume. */
struct fslab_cell_key {
	enum fslab_test test;
	uint64_t file_kib, record_kib;
	unsigned trial;
};

struct fslab_done_set {
	struct fslab_cell_key *keys;
	size_t n, cap;
	/* samples of ok rows, for --until-ci, parallel to keys */
	double *throughput;
	bool *ok;
};

/* Reads <dir>/<name>.csv (if present), drops a cut-off last line, and
 * collects the cells it holds.  Returns 0 or -errno with err set. */
int fslab_resume_load(const char *csv_path, struct fslab_done_set *d, char *err, size_t errlen);
bool fslab_done_has(const struct fslab_done_set *d, enum fslab_test t, uint64_t file_kib,
		    uint64_t record_kib, unsigned trial);
int fslab_done_add(struct fslab_done_set *d, enum fslab_test t, uint64_t file_kib,
		   uint64_t record_kib, unsigned trial, bool ok, double throughput);
/* Throughputs of ok samples of one test in one file x record cell. */
size_t fslab_done_samples(const struct fslab_done_set *d, enum fslab_test t, uint64_t file_kib,
			  uint64_t record_kib, double *out, size_t max);
void fslab_done_free(struct fslab_done_set *d);

#endif
