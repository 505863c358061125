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
#include "device_identity.h"
#include "fileutil.h"
#include "manifest.h"
#include "names.h"
#include "plan.h"
#include "run.h"
#include "spec.h"
#include "stats.h"
#include "target.h"

/* The device is probed this many times; the fastest figure is the upper
 * bound a cell is compared with (one probe is noisy: the flag flipped on
 * 10-20% of the cells between identical runs). */
#define FSLAB_PROBE_RUNS 3
/* FSLAB_PAGE_CACHE_FACTOR: lib/stats.h. */

/* What the device can do, measured before the sweep (probe.c). */
struct fslab_probe_result {
	double write_kib_s, read_kib_s; /* the fastest probe; 0: unknown */
	/* every probe, in order (runs of them finished) */
	double write_runs_kib_s[FSLAB_PROBE_RUNS], read_runs_kib_s[FSLAB_PROBE_RUNS];
	unsigned runs;
	char method[24];                /* o_direct, buffered+fsync, skipped, failed */
	char note[256];
	/* While measuring: how the bound's write and read were made when not
	 * by O_DIRECT ("" when they were); each follows the fastest probe, and
	 * fslab_device_probe adds them to the note, which is what is kept. */
	char write_how[256], read_how[256];
	uint64_t bytes;
	/* measured (this run), reused (kept from an earlier run: probe_keep.c)
	 * or "" (skipped, or a manifest from before reuse); and when it was
	 * measured (Unix seconds; 0: unknown). */
	char source[12];
	int64_t measured_at;
};

/* Default and bounds of the probe's scratch file. */
#define FSLAB_PROBE_DEFAULT_BYTES (64 * 1024 * 1024)
#define FSLAB_PROBE_RECORD (1024 * 1024)
/* Benchmark and probe files live in a private directory (0700, made with
 * fslab_mkdtemp_at) inside the directory under test, never beside other
 * users' files. */
#define FSLAB_WORKDIR_PREFIX "fslab-run."
/* The mark on every scratch directory a run makes: an extended attribute
 * only root can set, holding the run id.  A directory without it (renamed
 * to fslab's name by someone who can rename entries there) is never
 * removed.  Where the filesystem has no extended attributes (fusefat) the
 * directory's name is registered instead, in FSLAB_RUNTIME_DIR/workdirs. */
#define FSLAB_WORKDIR_MARK "trusted.fslab.run"
#define FSLAB_WORKDIR_REGISTRY "workdirs"
#define TESTFILE_NAME "testfile"
#define PROBEFILE_NAME "probe"

struct fslab_io_ops;
struct fslab_bench_fs;

/* Probes the device under the private directory *dfd (dir: its path, for
 * messages) through io (bench/io.h), the file's pages dropped by cache's
 * policy (NULL: the policy of a directory that is no lab partition; a
 * remount may replace *dfd).  0 or -errno, with r's note saying why. */
int fslab_device_probe(const struct fslab_io_ops *io, int *dfd, const char *dir,
		       struct fslab_cache_ctl *cache, uint64_t bytes, struct fslab_probe_result *r);
/* Probe k (from 0) folded into the result r: its figures kept in the
 * runs, the fastest write and read the bound, and r's write_how and
 * read_how those of the probes whose write and read are the bound (how
 * they were made).  Used by fslab_device_probe; here for its test. */
void fslab_probe_fold(struct fslab_probe_result *r, const struct fslab_probe_result *one, unsigned k);

/* Probe reuse (probe_keep.c): a probe is kept in FSLAB_RUNTIME_DIR, one
 * file per filesystem device (probe-MAJ-MIN.json, root's, 0600), with the
 * identity it was measured on; a later run reuses it for
 * FSLAB_PROBE_KEEP_S while that identity is unchanged.  Not root: nothing
 * is kept (the directory is root's). */
#define FSLAB_PROBE_KEEP_S 3600
/* A kept file larger than this is no probe of fslab's. */
#define FSLAB_PROBE_KEEP_MAX 16384
/* The identity a probe holds for: the filesystem's and block device's
 * numbers, the mount (its unique id), the loop's backing file (device and
 * inode), the disk's serial and WWID, the filesystem type, the mount
 * options and the probe's size, as one string. */
#define FSLAB_PROBE_KEY_MAX 2048
int fslab_probe_key(const struct fslab_bench_fs *fs, uint64_t bytes, char *key, size_t len);
/* The kept probe of fs's device into r when it holds for key and is at
 * most FSLAB_PROBE_KEEP_S old at now: 0.  -ENOENT: none kept; -ESTALE:
 * kept for another identity, or too old (why says which); -EINVAL: the
 * file is not one fslab wrote (not a regular root-owned 0600 file with
 * one link, too large, or bad content: why says what, for a warning). */
int fslab_probe_kept_load(const struct fslab_bench_fs *fs, const char *key, int64_t now,
			  struct fslab_probe_result *r, char *why, size_t whylen);
/* Keeps r (a finished probe with both figures) for key: 0 or -errno. */
int fslab_probe_kept_save(const struct fslab_bench_fs *fs, const char *key,
			  const struct fslab_probe_result *r);

/* One filesystem under test: a target (lib/target.h) and what the run
 * makes of it.  rec is the filesystem's record in the manifest, and the
 * run's own: the facts fsinfo.c finds (type, device, mount, identity), the
 * accounting, the steady-state phase and the quiet drive are kept there
 * and nowhere else; a resumed run takes it back whole from its manifest. */
struct fslab_bench_fs {
	struct fslab_manifest_fs rec; /* .device_info stays NULL: see devinfo */
	const struct fslab_target *t; /* the caller's, for the run's life */
	dev_t dev;                    /* st_dev of path at the start */
	/* The kernel's option list at the start (rw,relatime,...): the
	 * manifest's mount_options_at_end is set when it changed by the end. */
	char mount_vfs_options[512];
	/* The device's identity (lib/device_identity.h), read once at the start;
	 * have_devinfo false when the directory is on no block device. */
	struct fslab_devinfo devinfo;
	bool have_devinfo;
	/* The loop device's backing file under the filesystem (rec.loop_io
	 * says whether it is on a loop, and in which mode). */
	char loop_backing[PATH_MAX];

	struct fslab_probe_result probe;
	struct fslab_cache_ctl cache;

	/* The drive watch during the pass in flight (run_steady.c); what it
	 * found is the record's (rec.drive). */
	struct {
		struct fslab_drive_conditions start; /* read_at "": nothing to watch */
		double checked_at, smart_at;         /* fslab_now() of the last readings */
		long long warn_minutes;              /* smartctl's counter at the last full reading */
		bool hot;
		char why[256];
		int pass; /* its entry in rec.drive.passes; -1: none */
	} drive_watch;

	FILE *csv;
	uint64_t csv_synced_ns; /* fslab_results_append_row's last sync */

	/* The directory under test (held open) and fslab's private directory
	 * in it, where the test and probe files live: its name, fd (flock'ed
	 * while the run lives, so another run's stale-directory sweep leaves
	 * it alone) and identity, checked before it is removed. */
	int dir_fd, work_fd;
	char work_name[64];
	bool work_registered; /* in the registry (no xattrs): unregister at the end */
	struct fslab_file_id work_id;
};

/* What --resume found in one CSV, checked before anything is changed. */
struct fslab_resume_csv {
	int fd;           /* the CSV, open O_RDWR; -1: there is none yet */
	off_t size, keep; /* keep: up to the end of the last complete line */
	char *kept;       /* the rows to keep when some must go (vanished); else NULL */
	size_t kept_len;
};

/* Fills fs->rec's facts from fs->t and the mount holding fs->rec.path
 * (libmount): type, device, mountpoint, mount options, fuse, what setup
 * did (a lab's target), the device's identity (lib/device_identity.h) and the
 * loop under it.  Returns 0 or -errno (path missing, not a directory). */
int fslab_fsinfo_fill(struct fslab_bench_fs *fs);
/* 0 when fs->rec.path still is the same filesystem as at the start, else
 * -ENOENT / -ESTALE (unmounted or replaced), -ENODEV (its block device is
 * gone from /sys/dev/block: a pulled disk) or -EROFS (the mount went
 * read-only, as ext4 does when its disk fails). */
int fslab_fsinfo_check(const struct fslab_bench_fs *fs);
/* The kernel's options of the mount holding fs->rec.path now, into buf
 * ("" when it cannot tell). */
void fslab_fsinfo_vfs_options(const struct fslab_bench_fs *fs, char *buf, size_t len);

/* The whole run. */
/* The results directory's run marker: a hidden file holding the run id,
 * created O_EXCL with the directory's first run; --resume compares it with
 * the manifest's run_id. */
#define FSLAB_RUN_MARKER ".fslab-run"
#define FSLAB_RUN_ID_LEN 36 /* a UUID, lower-case text */

/* Why one test of one file x record cell stopped getting trials (enum
 * fslab_stop_why) and after how many; and the decisions made so far
 * (stop_rule.h fslab_stop_judge's words) of the pairs of the filesystems
 * in rows (bit f: c->fs[f]). */
#define FSLAB_STOP_PAIRS_MAX (FSLAB_MAX_FS * (FSLAB_MAX_FS - 1) / 2)
struct fslab_stop_record {
	unsigned char why;
	unsigned trials;
	unsigned pairs, decided; /* its comparisons, and of them decided */
	unsigned undecidable;    /* of them: not decided, and futile by the cap */
	uint32_t rows;
	unsigned char words[FSLAB_STOP_PAIRS_MAX];
};

struct fslab_plan;

struct fslab_run_ctx {
	char out_dir[PATH_MAX];
	int out_fd;        /* the results directory, held (and flock'ed) */
	char run_id[FSLAB_RUN_ID_LEN + 1];
	char state_path[PATH_MAX]; /* the targets' lab, for the manifest; "" for --dir */
	/* --resume: the run's manifest as read; each target takes its
	 * filesystem's record from it (run.c), then it is freed. */
	struct fslab_manifest *resumed;
	char spec_text_source[PATH_MAX];
	char *spec_text;            /* the sweep file's text, or NULL */
	/* The run's settings (lib/settings.h), merged by run_settings.c or
	 * read back from the manifest. */
	union { /* cfg: the run's settings */
		struct fslab_run_config cfg;
		struct { /* cfg's fields by their former names, for readers not moved yet */
			struct fslab_sweep_spec sweep;
			enum fslab_preset preset;
			enum fslab_stop_rule stop_rule;
			double until_ci_pct;
			unsigned max_trials;
			enum fslab_io_mode io_mode;
			enum fslab_sync_policy sync_policy;
			enum fslab_file_sync file_sync;
			bool latency;
			unsigned pass_gap_ms;
			bool no_device_probe;
			bool probe_fresh;
			uint64_t probe_bytes;
			enum fslab_steady_mode steady_mode;
			uint64_t steady_round_bytes;
			char label[FSLAB_RUN_LABEL_MAX];
		};
	};
	/* The decided rule's record (run_stop.c): stops[cell * FSLAB_TEST_MAX +
	 * test] for the cells of plan; NULL for the other rules. */
	const struct fslab_plan *plan;
	struct fslab_stop_record *stops;

	size_t n_fs;
	/* The targets' filesystems, n_fs of them (at most FSLAB_MAX_FS), on
	 * the heap: a filesystem's record alone is ~25 KB. */
	struct fslab_bench_fs *fs;

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

/* Writes <out>/manifest.json atomically, relative to c->out_fd. */
int fslab_manifest_write(const struct fslab_run_ctx *c);
/* Reads the manifest in the results directory dfd (dir: its path, for
 * messages) back into c: the run id and settings, and the manifest itself
 * in c->resumed (its filesystems' records).  A symlink or non-regular manifest is
 * refused.  err gets a message. */
int fslab_manifest_read(int dfd, const char *dir, struct fslab_run_ctx *c, char *err,
			size_t errlen);

/* A filesystem's probe figures as its manifest record keeps them. */
void fslab_manifest_take_probe(const struct fslab_manifest_fs *f, struct fslab_probe_result *p);

/* Status prefix of the rows written for a filesystem that disappeared;
 * --resume runs those cells again. */
#define FSLAB_VANISHED_REASON "filesystem vanished"
#define FSLAB_VANISHED_STATUS "failed: " FSLAB_VANISHED_REASON

/* Identity of a finished cell, for resume.  A queued test's depth and
 * threads are part of it (CrystalDiskMark's SEQ1M Q8T1 and SEQ1M Q1T1
 * share test, file and record); every other test has 1 and 1, as its CSV
 * row says. */
struct fslab_cell_key {
	enum fslab_test test;
	uint64_t file_kib, record_kib;
	unsigned iodepth, jobs;
	unsigned trial;
};

struct fslab_done_set {
	struct fslab_cell_key *keys;
	size_t n, cap;
	/* samples of ok rows, for --until-ci, parallel to keys */
	double *throughput;
	bool *ok;
};

/* Checks <fs>.csv in the results directory dfd without changing it: a
 * regular file of ours (not a symlink, one link), the results header, every
 * complete row well formed and of filesystem fs.  Collects its cells into d
 * and what resume must change into rc (a cut-off last line, rows of a
 * vanished filesystem).  No CSV is fine (rc->fd = -1).  Returns 0 or
 * -errno with err set. */
int fslab_resume_check(int dfd, const char *fs, struct fslab_resume_csv *rc,
		       struct fslab_done_set *d, char *err, size_t errlen);
/* Makes the changes the check found (truncate, or atomic rewrite) and
 * returns in rc->fd the CSV ready to append to (-1: create it).  Returns 0
 * or -errno with err set. */
int fslab_resume_apply(int dfd, const char *fs, struct fslab_resume_csv *rc, char *err,
		       size_t errlen);
void fslab_resume_csv_free(struct fslab_resume_csv *rc);
/* k->trial is ignored by fslab_done_samples: the throughputs of the ok
 * samples of one test in one cell, every trial's. */
bool fslab_done_has(const struct fslab_done_set *d, const struct fslab_cell_key *k);
int fslab_done_add(struct fslab_done_set *d, const struct fslab_cell_key *k, bool ok,
		   double throughput);
size_t fslab_done_samples(const struct fslab_done_set *d, const struct fslab_cell_key *k,
			  double *out, size_t max);
void fslab_done_free(struct fslab_done_set *d);

#endif
