/* fslab run's private header: the context and every file of the run
 * (run.c, run_ctx.c, run_util.c, run_workdir.c,
 * run_results.c, run_sweep.c, run_cost.c, run_stop.c, run_steady.c,
 * run_probe.c, run_manifest.c, fsinfo.c, probe.c, resume.c).  Not a
 * contract: other modules use run.h; the engine below knows none of it
 * (engine/engine.h). */
#ifndef FSLAB_BENCH_RUN_INT_H
#define FSLAB_BENCH_RUN_INT_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "engine/engine.h"
#include "clock.h"
#include "device_identity.h"
#include "fileutil.h"
#include "manifest.h"
#include "names.h"
#include "progress.h"
#include "results.h"
#include "fslab/run.h"
#include "spec.h"
#include "stats.h"
#include "target.h"
#include "termtext.h"

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
	/* measured (this run; "reused" in a manifest of a version that kept
	 * probes) or "" (skipped); and when it was measured (Unix seconds; 0:
	 * unknown). */
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
 * only its maker can set (root's trusted.*, a user's user.* on a 0700
 * directory), holding the run id.  A directory without it (renamed to
 * fslab's name by someone who can rename entries there) is never removed.
 * Where the filesystem has no extended attributes (fusefat) the directory's
 * name is registered instead, in the user's own folder below. */
#define FSLAB_WORKDIR_MARK (geteuid() ? "user.fslab.run" : "trusted.fslab.run")
#define FSLAB_WORKDIR_REGISTRY_TOP (geteuid() ? getenv("XDG_RUNTIME_DIR") : FSLAB_RUNTIME_DIR)
#define FSLAB_WORKDIR_REGISTRY (geteuid() ? "fslab-workdirs" : "workdirs")
#define TESTFILE_NAME "testfile"
/* The FUSE plan (run_sweep.c): a FUSE filesystem's largest file measured */
#define RUN_FUSE_FILE_MAX (16ull << 20)
#define RUN_FUSE_FILE_MAX_TEXT "16M"
/* The manifest's update within a trial: after a block, this long after the last */
#define RUN_MANIFEST_EVERY_S 30
#define PROBEFILE_NAME "probe"

struct fslab_io_ops;
struct fslab_bench_fs;

/* Probes the device under the private directory *dfd (dir: its path, for
 * messages) through io (bench/engine/engine.h), the file's pages dropped by cache's
 * policy (NULL: the policy of a directory that is no lab partition; a
 * remount may replace *dfd).  0 or -errno, with r's note saying why. */
int fslab_device_probe(const struct fslab_io_ops *io, int *dfd, const char *dir,
		       struct fslab_cache_ctl *cache, uint64_t bytes, struct fslab_probe_result *r);
/* Probe k (from 0) folded into the result r: its figures kept in the
 * runs, the fastest write and read the bound, and r's write_how and
 * read_how those of the probes whose write and read are the bound (how
 * they were made).  Used by fslab_device_probe; here for its test. */
void fslab_probe_fold(struct fslab_probe_result *r, const struct fslab_probe_result *one, unsigned k);

/* What the kernel shows of a filesystem now: its type, UUID, mount options
 * (per-mount and super), superblock features and the kernel's release. */
enum { FSLAB_LIVE_TYPE, FSLAB_LIVE_UUID, FSLAB_LIVE_OPTIONS, FSLAB_LIVE_FEATURES, FSLAB_LIVE_KERNEL, FSLAB_LIVE_N };
struct fslab_live { char v[FSLAB_LIVE_N][512]; /* "": unknown */ };

/* One filesystem under test: a target (lib/target.h) and what the run
 * makes of it.  rec is the filesystem's record in the manifest, and the
 * run's own: the facts fsinfo.c finds (type, device, mount, identity), the
 * accounting, the steady-state phase and the quiet drive are kept there
 * and nowhere else; a resumed run takes it back whole from its manifest. */
struct fslab_bench_fs {
	struct fslab_manifest_fs rec; /* .device_info stays NULL: see devinfo */
	const struct fslab_target *t; /* the caller's, for the run's life */
	dev_t dev;                    /* st_dev of path at the start */
	struct fslab_live live; /* at the session's start (the manifest's live.start) */
	/* The device's identity (lib/device_identity.h), read once at the start;
	 * have_devinfo false when the directory is on no block device. */
	struct fslab_devinfo devinfo;
	bool have_devinfo;
	/* The loop device's backing file under the filesystem (rec.loop_io
	 * says whether it is on a loop, and in which mode). */
	char loop_backing[PATH_MAX];

	struct fslab_probe_result probe;
	struct fslab_cache_ctl cache;
	/* run_calibrate's prices per test: fixed, per record (or file); 0: none */
	double cal_fixed_s[FSLAB_TEST_MAX], cal_unit_s[FSLAB_TEST_MAX];

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
	bool csv_device;        /* its header has the device columns */

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
	bool device;      /* its header has the device columns */
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
/* What the kernel shows now of the filesystem holding path, into l, and
 * (rec not NULL) its mountpoint, type, device, per-mount options and fuse
 * into rec.  Returns whether the mount table shows the mount. */
bool fslab_fsinfo_live(const char *path, struct fslab_live *l, struct fslab_manifest_fs *rec);

/* The whole run. */
/* The results directory's run marker: a hidden file holding the run id,
 * created O_EXCL with the directory's first run; --resume compares it with
 * the manifest's run_id. */
#define FSLAB_RUN_MARKER ".fslab-run"
#define FSLAB_RUN_ID_LEN 36 /* a UUID, lower-case text */

/* Why one test of one file x record cell stopped getting trials (enum
 * fslab_stop_why) and after how many; and the decisions made so far
 * (lib/stats.h fslab_stop_judge's words) of the pairs of the filesystems
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
	struct fslab_run_config cfg;
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
	/* samples of ok rows, for --until-ci, parallel to keys; each row's
	 * enum fslab_row_use */
	double *throughput;
	unsigned char *ok;
};

/* Checks <fs>.csv in the results directory dfd without changing it: a
 * regular file of ours (not a symlink, one link), the results header, every
 * complete row well formed and of filesystem fs.  Collects its cells into d
 * and what resume must change into rc (a cut-off last line, rows of a
 * vanished filesystem).  No CSV is fine (rc->fd = -1).  Returns 0 or
 * -errno said in e. */
int fslab_resume_check(int dfd, const char *fs, struct fslab_resume_csv *rc,
		       struct fslab_done_set *d, struct fslab_err *e);
/* Makes the changes the check found (truncate, or atomic rewrite) and
 * returns in rc->fd the CSV ready to append to (-1: create it).  Returns 0
 * or -errno said in e. */
int fslab_resume_apply(int dfd, const char *fs, struct fslab_resume_csv *rc, struct fslab_err *e);
void fslab_resume_csv_free(struct fslab_resume_csv *rc);
/* k->trial is ignored by fslab_done_samples: the throughputs of the ok
 * samples of one test in one cell, every trial's. */
bool fslab_done_has(const struct fslab_done_set *d, const struct fslab_cell_key *k);
int fslab_done_add(struct fslab_done_set *d, const struct fslab_cell_key *k, enum fslab_row_use use,
		   double throughput);
size_t fslab_done_samples(const struct fslab_done_set *d, const struct fslab_cell_key *k,
			  double *out, size_t max);
void fslab_done_free(struct fslab_done_set *d);

/* Set by SIGINT/SIGTERM: stop after the test in flight.  Set by SIGCONT:
 * the process was stopped (the pass in flight is redone). */
extern volatile sig_atomic_t run_stop, run_continued;
/* The run names its errors and warnings as notes (lib/progress.h): the
 * command prints them.  This one notes "MSG: strerror(err)" and
 * returns -err. */
int run_note_errno(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A time in Unix seconds in UTC: ISO 8601, or compact (20261206T120000Z). */
void run_utc_format(int64_t when, char *buf, size_t len, bool compact);

/* A run context with nothing open yet, and its release (c freed too). */
struct fslab_run_ctx *run_ctx_new(void);
void run_ctx_free(struct fslab_run_ctx *c);
/* The targets of o (o->targets); returns an exit status (FSLAB_EXIT_*). */
int run_pick_filesystems(struct fslab_run_ctx *c, const struct fslab_run_opts *o);

/* The configuration the options say (lib/run_config.c), or with
 * --resume none of it given; 0 or -EINVAL, said. */
int run_settings(struct fslab_run_ctx *c, const struct fslab_run_opts *o);

/* run_workdir.c: the private directory (fs->work_fd) in fs->rec.path. */
int run_workdir_create(struct fslab_bench_fs *fs, const char *run_id);
void run_workdir_remove(struct fslab_bench_fs *fs);
/* cold mode's remount: close the directories, then reopen and check them */
void run_workdir_release(void *ctx);
int run_workdir_reopen(void *ctx, int *dir_fd, struct fslab_err *e);

/* What the run knows of one filesystem's results. */
struct run_fs_state {
	struct fslab_done_set done;
	struct fslab_resume_csv csv; /* --resume: the checked CSV */
	/* named rows (plan cells 0..63 with pass_s > 0) whose discarded
	 * warm-up pass ran in this session */
	uint64_t warmed;
};

/* run_results.c: the results directory of a new run (made, locked,
 * marked), or of a resumed one (checked before anything changes). */
int run_prepare_out(struct fslab_run_ctx *c, const struct fslab_run_opts *o);
int run_open_resume_dir(struct fslab_run_ctx *c, const char *dir);
int run_check_resume_csvs(struct fslab_run_ctx *c, const struct fslab_plan *plan,
			  struct run_fs_state *fst);
int run_marker_record_csvs(const struct fslab_run_ctx *c);

/* run_sweep.c */
/* The flag column of an ok row of test t on fs: o's throughput and,
 * when it has them, the device's bytes (docs/run.md "Flags"). */
void run_flag(const struct fslab_bench_fs *fs, enum fslab_cache_mode cache, enum fslab_test t,
	      const struct fslab_test_outcome *o, char *flag, size_t len);
int run_open_csvs(struct fslab_run_ctx *c, struct run_fs_state *fst);
int run_close_csvs(struct fslab_run_ctx *c);
int run_sweep(struct fslab_run_ctx *c, const struct fslab_plan *plan, struct run_fs_state *fst,
	      struct fslab_progress *prog, bool *failed);

/* run_stop.c: the decided rule (lib/stats.h) applied to the sweep.
 * run_stop_begin allocates its record (-ENOMEM); run_stop_update judges
 * every open test from the trials 1..trials_done of every filesystem
 * (last: no trial follows, so the band look reopens nothing);
 * run_stop_mask is the tests of plan cell i a later trial still runs. */
int run_stop_begin(struct fslab_run_ctx *c, const struct fslab_plan *plan);
void run_stop_update(struct fslab_run_ctx *c, const struct run_fs_state *fst, unsigned trials_done, bool last);
unsigned run_stop_mask(const struct fslab_run_ctx *c, size_t i);
/* The last trial the tests' own rule judges: FSLAB_STOP_CELL_CAP, or the
 * minimum when larger, or the cap when smaller. */
unsigned run_stop_cell_cap(const struct fslab_run_ctx *c);
void run_stop_end(struct fslab_run_ctx *c);

/* run_steady.c: the steady-state phase of fs before the sweep (its
 * outcome in fs->rec.steady), and the quiet drive after each pass of its
 * sweep (FITRIM, a bounded wait for an idle disk: fs->rec.quiet); and the
 * phase's time at most, from fs's device probe (negative: no estimate). */
void run_steady_phase(struct fslab_run_ctx *c, struct fslab_bench_fs *fs, struct fslab_progress *prog);
void run_quiet_after(struct fslab_bench_fs *fs, struct fslab_progress *prog);
double run_steady_estimate_s(const struct fslab_run_ctx *c, const struct fslab_bench_fs *fs);
/* The drive's conditions (lib/drivetemp.h) before and after each pass of
 * fs's sweep (trial of the run's session), outside the timed cells, into
 * fs->rec.drive (the pass's own entry too); and, after each test of the pass, whether
 * the drive is hot now (its row is then flagged FSLAB_FLAG_THERMAL): the
 * hwmon sensor at most once a second, smartctl at most every
 * RUN_DRIVE_SMART_EVERY_S. */
#define RUN_DRIVE_SMART_EVERY_S 30.0
void run_drive_before(struct fslab_bench_fs *fs, unsigned trial, unsigned session);
bool run_drive_hot(struct fslab_bench_fs *fs);
void run_drive_after(struct fslab_bench_fs *fs, struct fslab_progress *prog);

/* run_probe.c: what the device under fs can do, before the sweep
 * (fs->probe; a failure costs only the page-cache flag). */
void run_fs_probe(struct fslab_run_ctx *c, struct fslab_bench_fs *fs, struct fslab_progress *prog);

/* The cost model's default price of a small I/O at the device, queue
 * depth 1 (a 4 KiB O_DIRECT write on a loop device over an SSD); the
 * steady-state phase's estimate passes it to lib/steady.c. */
#define RUN_COST_DEVICE_OP_S 200e-6

/* run_cost.c: test t of a calibration cell took wall_s on fs: its price. */
void run_cost_calibrated(struct fslab_bench_fs *fs, const struct fslab_run_ctx *c,
			 const struct fslab_sweep_cell *cell, enum fslab_test t, double wall_s);
/* run_sweep.c: each filesystem's prices, on three small cells (no rows). */
void run_calibrate(struct fslab_run_ctx *c);
/* The plan fitted to the filesystems' free space, before anything is
 * written: a plan of named rows (--sweep cdm, cdm-nvme) without room for
 * its file (--cdm-size) refused, naming each filesystem, its free space
 * and the fix; the lab preset's coarse grid (not resumed) rebuilt with
 * its largest file halved until it fits the fullest filesystem.  0 or
 * -ENOSPC (-errno when free space cannot be read, -EINVAL no cell). */
int run_fit_plan(struct fslab_run_ctx *c, struct fslab_plan *plan);
/* The estimate printed as the sweep starts (the model, calibrated). */
void run_seed_eta(const struct fslab_run_ctx *c, const struct fslab_plan *plan,
		  struct fslab_progress *prog);
/* The model's seconds of the tests in mask of cell on fs (the ETA's work).
 * A test open past the minimum runs again in one trial in RUN_COST_PAST_MIN.
 * The band look keeps a band's cells running while the band is wide, and
 * on a noisy machine the large files' band runs to the cap: of the time
 * the trials past the minimum could take, the default lab (five 20 GiB
 * image partitions, the shared 2-core VM) took 97%, a two-filesystem
 * image lab half (three quarters in its large band).  Half is the
 * figure; the range runs to the cap. */
double run_cost_s(const struct fslab_run_ctx *c, const struct fslab_bench_fs *fs,
		  const struct fslab_sweep_cell *cell, unsigned mask);
#define RUN_COST_PAST_MIN 2.0

#endif
