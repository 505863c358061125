/* The report's model (not a contract outside report/): what the results
 * directories hold (load.c), each entry's plateau scores and the rankings
 * (rank.c), the inference (infer.c), the first screen's matrix, verdicts,
 * changes and banners (summary.c), the latency panel (latency.c), the
 * CrystalDiskMark panel (cdm.c) and the 2023 claims (claims.c).  Built once
 * by rp_summary_build (and rp_claims_build for --claims); the views
 * (view.h) only render it.  A model file includes format.h (which includes
 * this header), never view.h. */
#ifndef FSLAB_REPORT_MODEL_H
#define FSLAB_REPORT_MODEL_H

#include <json-c/json.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "names.h"
#include "fslab/report.h"
#include "stats.h"
#include "spec.h"

/* The tests of mask in their order: RP_FOR_TESTS(t, mask) { ... } */
#define RP_FOR_TESTS(t, mask)                    \
	for (int t = 0; t < FSLAB_TEST_MAX; t++) \
		if ((mask) & (1u << t))
/* The cells of entry e in test t: RP_FOR_CELLS(c, e, t) { ... } */
#define RP_FOR_CELLS(c, e, t)                                           \
	for (const struct rp_cell *c = &(e)->cells[(e)->test_first[t]]; \
	     c < &(e)->cells[(e)->test_first[(t) + 1]]; c++)

/* ---- the loaded data (load.c) ---- */
enum {
	RP_FLAG_PAGE_CACHE = 1 << 0,
	RP_FLAG_FUSE = 1 << 1,
	RP_FLAG_OTHER = 1 << 2,         /* a flag this report does not know (named in rp_entry) */
	RP_FLAG_BUFFERED_LOOP = 1 << 3, /* on a loop device the kernel kept buffered */
	RP_FLAG_THERMAL = 1 << 4,       /* measured while the drive was hot (fslab run's drive watch) */
	RP_FLAG_MEMORY = 1 << 5,        /* a device mode on tmpfs or ramfs */
	RP_FLAG_BUFFERED = 1 << 6,      /* ran buffered where the mode promised O_DIRECT */
	RP_FLAG_REDONE_STOPPED = 1 << 7, /* the second pass after a stop (a sound figure) */
	RP_FLAG_REDONE_SLOW = 1 << 8,   /* the second pass after a disturbed one (a sound figure) */
	RP_FLAG_BEYOND_DEVICE = 1 << 9, /* with device counters: also beyond the probe's bound */
	/* a figure flagged so is never the best while an unflagged one exists;
	 * the redone flags only say that a pass was run again */
	RP_FLAGS_ASIDE = RP_FLAG_PAGE_CACHE | RP_FLAG_FUSE | RP_FLAG_OTHER | RP_FLAG_BUFFERED_LOOP |
			 RP_FLAG_THERMAL | RP_FLAG_MEMORY | RP_FLAG_BUFFERED,
};

struct rp_data;

/* A row's device columns (lib/results.h), NaN unknown: the bytes the pass
 * read or wrote, the partition's reads and writes in the window, those
 * written by the end of the timed region; and files, the files a pass of
 * the many-files tests handled (its iops, files a second, x elapsed). */
enum { RP_DEV_IO, RP_DEV_READ, RP_DEV_WRITE, RP_DEV_TIMED, RP_DEV_FILES, RP_DEV_FIELDS };

struct rp_sample {
	unsigned trial;
	double v;
	double iops;          /* operations a second (the CSV's iops, else v / record) */
	double lat[FSLAB_LAT_N]; /* fslab run --latency: FSLAB_LAT_* in us (NaN: none) */
	double dev[RP_DEV_FIELDS]; /* RP_DEV_* */
	unsigned flags;       /* the row's RP_FLAG_* */
};

struct rp_cell {
	enum fslab_test test;
	uint64_t file_kib, record_kib;
	/* a queued test's depth and threads (1 and 1 for the others, and for
	 * CSVs without the queue columns): part of the cell's key */
	unsigned iodepth, jobs;
	double iops_mean, iops_ci; /* of the ok samples' operations a second */
	size_t first;         /* index of the first ok sample in entry->samples */
	unsigned n_ok, n_failed, n_skipped;
	unsigned flags;       /* RP_FLAG_* over all trials */
	double median, mean, ci; /* of the ok samples; ci NaN with < 2 */
	/* latency (us, FSLAB_LAT_*): the median over the ok trials of each
	 * quantile, and 	 * the largest max; NaN without the latency columns */
	double lat[FSLAB_LAT_N];
	char *problem;        /* first failed/skipped status, or NULL */
};

struct rp_fsinfo {        /* manifest.json filesystems[] entry */
	char type[16], mount_method[32], device[128], device_model[128];
	char mkfs_options[256], mount_options[256];
	double device_write_kib_s, device_read_kib_s; /* 0 when unknown */
	bool steady_not_reached; /* its steady-state phase ended without the rule holding */
	char drive_hot[256];     /* the manifest's drive.thermal: why it was hot; "": never */
	int run_index;           /* its place in the manifest's filesystems (the run's order) */
};

struct rp_run;

struct rp_entry {
	char fs[FSLAB_FS_NAME_MAX];
	char label[80];       /* fs, or fs/tag when several runs */
	char csv[PATH_MAX];
	struct rp_run *run;
	enum fslab_fs_type type;
	struct rp_fsinfo info;
	bool has_info;
	struct rp_cell *cells; /* sorted by test, file, record, depth, threads */
	size_t n_cells;
	size_t test_first[FSLAB_TEST_MAX + 1]; /* cells of test t: [tf[t], tf[t+1]) */
	struct rp_sample *samples;
	size_t n_samples;
	bool latency;         /* some ok row has the latency columns */
	bool device;          /* its CSV has the device columns */
	size_t n_rows, n_failed, n_skipped, n_flag_pc, n_flag_fuse, n_flag_other, n_flag_loop;
	char other_flags[96];  /* the unknown flags' names, ";"-joined (what fits) */
	unsigned max_trial;
	size_t idx;           /* position in rp_data.all */
	/* data of test t incomplete (fewer cells than the run's other
	 * filesystems, or cells with fewer trials than the run's): never
	 * ranked, never crowned */
	bool partial[FSLAB_TEST_MAX];
	/* lines of its CSV damaged (NUL bytes) and left out: rows of unknown
	 * cells are lost, so every test with data is partial */
	size_t n_damaged;
};

struct rp_run {
	char dir[PATH_MAX];
	char tag[64];         /* short name in labels */
	char cache[16];       /* manifest cache_mode, else the CSVs', else "?" */
	json_object *manifest; /* NULL when there is none */
	double page_cache_factor;
	struct rp_entry *entries;
	size_t n_entries;
	bool interrupted;     /* manifest: interrupted, or started without finished_at */
	unsigned trials;      /* manifest trials, else the largest trial seen */
	unsigned done;        /* the trials every cell of the run finished (the complete ones) */
	unsigned trial_cap;   /* manifest max_trials of --stop decided or ci; 0: fixed trials or unknown */
	char missing[FSLAB_MAX_FS][FSLAB_FS_NAME_MAX]; /* in the manifest, no CSV */
	size_t n_missing;
	/* the drive's own count of host writes over the run (the manifest's
	 * drive readings: SMART); NAN unknown */
	double drive_written;
	unsigned side;        /* the side of a comparison it is one run of (opts.side) */
};

struct rp_summary;
struct rp_claims;

struct rp_data {
	struct rp_run runs[FSLAB_REPORT_MAX_DIRS];
	size_t n_runs;
	unsigned n_sides;     /* sides (BEFORE AFTER ...), each one or more runs */
	struct rp_entry *all[FSLAB_REPORT_MAX_DIRS * FSLAB_MAX_FS * 4];
	size_t n_all;
	struct rp_summary *sum; /* rp_summary_build */
	struct rp_claims *claims; /* rp_claims_build (--claims); NULL: none */
};

/* Loads every directory; on bad input returns -EINVAL (or another
 * negative errno) with the error (file:line) in e. */
int rp_load(struct rp_data *d, const char *const *dirs, size_t n, struct fslab_err *e);
/* Frees what rp_load loaded; the model built on it goes first
 * (rp_claims_free, rp_summary_free). */
void rp_free(struct rp_data *d);

/* ---- plateau scores and rankings (rank.c) ---- */
struct rp_score {
	size_t n_cells;       /* plateau cells */
	size_t n_trials;
	double *trial;        /* per-trial plateau scores (malloc'd), by trial number */
	unsigned *trial_no;   /* their trial numbers (malloc'd) */
	double median, mean, ci;
	/* the compared score: the geometric mean of the trial scores, and the
	 * mean and variance of their logarithms (NaN: not testable) */
	double score, lmean, lvar;
	uint64_t file_lo, file_hi; /* plateau file size range */
	unsigned flags;       /* union over plateau cells */
	size_t n_flag_pc, n_flag_fuse; /* plateau cells flagged */
};

/* Plateau score of one entry for one test; 0, -ENODATA when the entry
 * has no ok cell of that test, -EDOM for a queued test of several rows. */
int rp_plateau(const struct rp_entry *e, enum fslab_test t, struct rp_score *s);
void rp_score_free(struct rp_score *s);
/* The same score from one cell's samples alone (a CrystalDiskMark row):
 * 0, -ENODATA (no ok sample) or -ENOMEM; s to free either way. */
int rp_cell_score(const struct rp_entry *e, const struct rp_cell *c, struct rp_score *s);

struct rp_rank_row {
	const struct rp_entry *e;
	struct rp_score s;
	double ratio;         /* score to the best's */
	bool aside;           /* flagged, below the unflagged best */
};

struct rp_ranking {
	enum fslab_test test;
	struct rp_rank_row *rows; /* ranked, best first */
	size_t n;
	const struct rp_entry *unranked[FSLAB_REPORT_MAX_DIRS * FSLAB_MAX_FS * 4];
	size_t n_unranked;
	/* data for this test, but partial: shown, not ranked */
	const struct rp_entry *partial[FSLAB_REPORT_MAX_DIRS * FSLAB_MAX_FS * 4];
	size_t n_partial;
	size_t n_aside_faster; /* flagged rows set aside though faster than the best */
};

/* Ranks the entries of test t by score: the unflagged ones first (when
 * one with complete data exists), partial data never first. */
int rp_rank(const struct rp_data *d, enum fslab_test t, struct rp_ranking *r);
void rp_ranking_free(struct rp_ranking *r);

/* The first failed or skipped cell of entry e in test t (NULL: none), and
 * the failed and skipped rows of that test. */
const struct rp_cell *rp_first_problem(const struct rp_entry *e, enum fslab_test t,
				      unsigned *n_failed, unsigned *n_skipped);

/* ---- the first screen (summary.c) ---- */
enum rp_dir {
	RP_DIR_NONE,         /* no data, or partial: not ranked */
	RP_DIR_BEST,
	RP_DIR_FASTER,       /* the interval lies above 1 */
	RP_DIR_SLOWER,       /* the interval lies below 1 */
	RP_DIR_EQUIVALENT,   /* the interval lies inside 1 +- the equivalence margin */
	RP_DIR_INCONCLUSIVE, /* none of these: the data cannot decide */
	RP_DIR_UNTESTED,     /* no comparison made (fewer than 2 trials on a side) */
};

/* ---- the inference (infer.c) ---- */
#define RP_FAMILY_ALPHA FSLAB_FAMILY_ALPHA /* family-wise error of each family of comparisons */
#define RP_EQUIVALENCE_DEFAULT FSLAB_EQUIVALENCE_DEFAULT
/* what narrows an inconclusive comparison's interval */
#define RP_MORE_TRIALS "more trials narrow it (a new fslab run with a higher --max-trials)"

/* The variance model (infer.c): entries are grouped in pools (one test of
 * one run: the filesystems measured together, in the same trials); a
 * pool's variance is its entries' pooled, each scaled by its filesystem's
 * noise factor (1 unless a filesystem is noisier than the others across
 * its tests), moderated towards a prior common to every pool (Smyth 2004)
 * but never below the pool's own.  An entry's variance is its pool's times
 * its factor. */
#define RP_VM_MAX_POOLS (FSLAB_REPORT_MAX_DIRS * FSLAB_TEST_MAX)
#define RP_VM_MAX_KEYS (FSLAB_REPORT_MAX_DIRS * FSLAB_MAX_FS * 4)
#define RP_VM_PRIOR_Z 1.645 /* the prior's spread taken at its one-sided 95% bound */
struct rp_vm_in {
	const struct rp_score *s;
	size_t pool;     /* rp_pool() */
	size_t key;      /* the entry (rp_entry.idx): its noise factor */
};
struct rp_vm_layer {   /* one estimate of every pool's variance */
	double dfp[RP_VM_MAX_POOLS]; /* each pool's own degrees of freedom (0: none) */
	double v[RP_VM_MAX_POOLS];   /* its moderated variance of a log trial score */
	double dfm[RP_VM_MAX_POOLS]; /* on these degrees of freedom */
	double d0, s02;   /* the pools' prior: 0 none; capped at the pooled df */
};
struct rp_varmodel {
	size_t n_pools;
	/* all: the scatter of each filesystem's trial scores (what a pool's
	 * entries compared with another run's see); blocked: with the trials
	 * as blocks - what a trial did to every filesystem of the pool taken
	 * out (the two-way residual), for comparisons within the pool, where
	 * that shared effect cancels.  blocked.dfp 0: the pool's entries do
	 * not share their trials. */
	struct rp_vm_layer all, blocked;
	double factor[RP_VM_MAX_KEYS]; /* each entry's noise factor */
	double fvar[RP_VM_MAX_KEYS];   /* the posterior variance of its logarithm */
	double fs_spread; /* variance of the filesystems' log noise beyond chance */
};
void rp_varmodel_fit(const struct rp_vm_in *in, size_t n, size_t n_pools, struct rp_varmodel *vm);
struct rp_est {       /* one entry in one test, ready to compare */
	size_t n;        /* trials */
	double lmean;    /* mean log trial score */
	double s2, df;   /* variance of a log trial score and its df; NaN: not testable */
	double s2b, dfb; /* the same with the trials as blocks (NaN: none) */
	size_t pool;     /* SIZE_MAX: in no pool; entries of one pool share s2 and
			  * s2b (one estimate, scaled by their factors) */
};
struct rp_cmp {       /* x against y: the ratio x/y */
	bool tested;
	double ratio;    /* of the geometric means */
	double lo, hi;   /* simultaneous interval (NaN: not tested) */
	double p, p_adj; /* two-sided p, and times the family's size (capped at 1) */
	double resolve;  /* the interval's half-width as a fraction: differences
			  * smaller than this could not have been called */
	double df;
	double delta;    /* the equivalence margin it was judged with */
	enum rp_dir dir;
};
/* Score s of entry key in pool pool, ready to compare (vm NULL: its own
 * variance). */
void rp_est_of(const struct rp_score *s, const struct rp_varmodel *vm, size_t pool, size_t key,
	       struct rp_est *e);
bool rp_est_testable(const struct rp_est *e);
/* x against y in a family of m comparisons at RP_FAMILY_ALPHA, with the
 * equivalence margin delta (0.05: +-5%). */
void rp_compare(const struct rp_est *x, const struct rp_est *y, size_t m, double delta,
		struct rp_cmp *c);
/* The same from the difference of mean log scores dl, its standard error
 * and degrees of freedom (se NaN: not tested). */
void rp_compare_log(double dl, double se, double df, size_t m, double delta, struct rp_cmp *c);
/* The variance of x's mean log score minus y's and its df (both testable). */
void rp_cmp_var(const struct rp_est *x, const struct rp_est *y, double *var, double *df);

/* "The same filesystem in two runs": entries a and b, of one filesystem
 * name in two runs, compared in one test. */
struct rp_same_fs {
	const struct rp_entry *a, *b;
	enum fslab_test test;
	double median_a, median_b; /* plateau scores */
	struct rp_cmp cmp;         /* b against a: the change matrix's (or the matrix's) */
};

/* ---- the CrystalDiskMark panel (cdm.c) ---- */
#define RP_CDM_MAX_ROWS 32
#define RP_CDM_WITHIN 0.05 /* the acceptance: a row's interval within 5% of its mean */

/* One row: a read and a write test at one record, depth, threads and file. */
struct rp_cdm_row {
	char name[48];
	bool random;
	uint64_t file_kib, record_kib;
	unsigned iodepth, jobs;
};

/* One side (read 0, write 1) of one row on one entry. */
struct rp_cdm_side {
	const struct rp_cell *c; /* NULL: the entry has no such cell */
	double mbs, mbs_ci, iops, iops_ci; /* NaN: none */
	bool within;
	bool best;
	bool aside; /* flagged (RP_FLAGS_ASIDE) while the row's best is not */
	struct rp_cmp cmp; /* against the row's best (cmp.tested false: not compared) */
	bool compared;
};

/* The queued tests' rows (SEQ1M Q8T1 ...) per entry, in CrystalDiskMark's
 * order: each side's mean with its 95% interval, and its verdict against
 * the row's best on that row's cell alone. */
struct rp_cdm {
	struct rp_cdm_row rows[RP_CDM_MAX_ROWS];
	size_t n_rows, n_entries;
	struct rp_cdm_side *side; /* [(row * n_entries + entry) * 2 + side] */
	bool truncated;       /* more rows than RP_CDM_MAX_ROWS */
};
/* The panel of the queued tests in tests: 0 (p->n_rows 0: none) or
 * -ENOMEM; p->side to free with rp_cdm_free either way. */
int rp_cdm_build(const struct rp_data *d, unsigned tests, struct rp_cdm *p);
void rp_cdm_free(struct rp_cdm *p);
struct rp_cdm_side *rp_cdm_at(const struct rp_cdm *p, size_t r, size_t e, int k);
bool rp_cdm_entry_has(const struct rp_cdm *p, size_t e); /* entry e has a cell in the panel */

struct rp_mcell {        /* one filesystem in one test */
	bool has;        /* ranked */
	bool partial;    /* data, but incomplete: not ranked */
	bool aside;      /* flagged, set aside below the unflagged best */
	size_t rank;     /* 1-based when has */
	size_t n_trials;
	unsigned flags;
	const char *other; /* the entry's unknown flags' names (rp_entry.other_flags) */
	double median;   /* KiB/s: median of the trial scores */
	double score;    /* KiB/s: their geometric mean (ranked by) */
	struct rp_est est;
	struct rp_cmp cmp; /* against the best; .dir BEST for the best */
};

struct rp_change_cell {
	bool has, partial;
	unsigned flags;    /* RP_FLAGS_ASIDE over both sides' plateaus: decides no exit code */
	struct rp_cmp cmp; /* later / first side, Welch on the runs' log scores */
};

struct rp_change {
	const struct rp_entry *a, *b; /* the first run of the first side, of the later side */
	char tag_a[72], tag_b[72];    /* the sides: "b1+2" (b1 and 2 more runs) */
	struct rp_change_cell t[FSLAB_TEST_MAX];
};

enum { RP_FAMILY_SEQ_WRITE, RP_FAMILY_SEQ_READ, RP_FAMILY_RANDOM, RP_FAMILY_SMALL, RP_N_FAMILIES };

/* ---- what each filesystem makes the drive do (device.c) ---- */
/* A figure of one filesystem over some tests, from the ok rows with
 * device counters: per trial the ratio of the sums (bytes-weighted), then
 * the mean of the trials' ratios and its 95% interval. */
enum rp_dev_kind {
	RP_DEVK_NONE,     /* no row with counters */
	RP_DEVK_WAF,      /* write amplification: device bytes written / bytes the tests wrote */
	RP_DEVK_READ,     /* device bytes read / bytes the tests read */
	RP_DEVK_PER_FILE, /* device bytes written per file created */
};
struct rp_dev_fig {
	enum rp_dev_kind kind;
	size_t n_trials, n_rows, n_memory; /* n_memory: rows flagged page-cache */
	double mean, ci;  /* ci NaN with < 2 trials */
};
struct rp_dev {
	size_t n_rows;            /* ok rows with counters */
	/* of them: page-cache (the counters) without beyond-device (the
	 * probe's bound), and beyond-device without page-cache */
	size_t n_pc_only, n_beyond_only;
	bool empty;               /* the device columns exist, no row has counters */
	struct rp_dev_fig *test;  /* [t * n + i]: t's reads, writes or files created */
	struct rp_dev_fig *fam;   /* [f * n + i]: the family's writes (reads for sequential read) */
	bool fam_any[RP_N_FAMILIES]; /* some entry has a figure of the family */
	/* per family, the passes with counters that had not reached the
	 * device ("3 of 36 rewrite passes had not reached ..."; "" none) */
	char memory[RP_N_FAMILIES][512];
	/* over the runs whose drive counted its host writes: the drive's
	 * bytes, and the bytes the device columns saw written (0 0: none) */
	double drive_bytes, block_bytes;
};
/* The panel into s->dev: fam[f] is family f's tests.  0 or -ENOMEM. */
int rp_dev_build(struct rp_summary *s, const struct rp_data *d, const unsigned fam[RP_N_FAMILIES]);

/* ---- per band of file sizes (bands.c) ---- */
enum { RP_BAND_SMALL, RP_BAND_MEDIUM, RP_BAND_LARGE, RP_N_BANDS };
/* The line of a family over every file size (every band's cells
 * together), after the bands; the lines are RP_N_BAND_LINES. */
#define RP_BAND_ALL RP_N_BANDS
#define RP_N_BAND_LINES (RP_N_BANDS + 1)
/* One family in one band: the leader against the next best over the
 * family's tests, each entry's band score the geometric mean over the
 * band's cells of each trial (so the paired log-ratios of a cell and trial
 * are averaged), compared in the trials-as-blocks model. */
struct rp_band_verdict {
	const struct rp_entry *lead, *next; /* NULL: no leader; next NULL: none */
	size_t n_tests;
	struct rp_cmp cmp;   /* lead against next; the screen's family of b->m */
	double within;       /* equivalent: the interval lies inside +-within */
	const struct rp_entry *aside; /* the fastest flagged one, when above the leader */
	unsigned aside_flags;
	double aside_ratio;  /* its margin over the leader */
	char line[400];      /* as the text and HTML say it ("" none) */
};
struct rp_bands {
	struct rp_band_verdict v[RP_N_FAMILIES][RP_N_BAND_LINES];
	size_t m;            /* pairs of candidates over every family and band */
	bool any;
};
const char *rp_band_name(int b); /* "small (64K-1M)" */
/* s->bands from family f's judged tests fam[f] (no flagged-only test). */
int rp_bands_build(struct rp_summary *s, const struct rp_data *d, const unsigned fam[RP_N_FAMILIES]);

struct rp_summary {
	struct rp_cdm cdm;        /* the CrystalDiskMark panel (rp_cdm_build) */
	struct rp_ranking rank[FSLAB_TEST_MAX]; /* every test's (rp_rank) */
	struct rp_same_fs *same_fs; /* the same filesystem in two runs (rp_same_fs_rows) */
	size_t n_same_fs;
	unsigned tests;          /* tests with ranked or partial data */
	/* tests whose ranking section exists in every output: ranked rows,
	 * partial data or entries without an ok cell (decided once here; the
	 * text, HTML and JSON only render it) */
	unsigned shown;
	size_t n;                /* entries, as rp_data.all */
	struct rp_mcell *m;      /* rp_sum_cell() */
	double delta;            /* equivalence margin */
	struct rp_varmodel *vm;  /* every score's variance */
	size_t best[FSLAB_TEST_MAX]; /* index of each test's best (SIZE_MAX: none) */
	/* tests whose every ranked figure is flagged (cold mode's reread is
	 * the page cache for every filesystem): they show their flags in the
	 * matrix but speak for no family verdict */
	unsigned all_flagged;
	/* the matrix's family: every pair of testable entries in every test
	 * (the best is chosen from the data, so each pair could be the one
	 * compared) */
	size_t n_comparisons;
	struct rp_change *chg;
	size_t n_chg, n_chg_comparisons;
	bool comparison; /* sides of the same filesystems: the change, not a winner, first */
	char differs[2048];      /* what differs between the runs' manifests ("" none) */
	char unlike[1024];       /* a filesystem of another type or device in a later run ("" none) */
	bool family_present[RP_N_FAMILIES];
	char verdict[RP_N_FAMILIES][512];
	/* with two or more runs of the same filesystems: per family and later
	 * run, what regressed and improved against the first (the change
	 * matrix's cells) */
	char chg_verdict[RP_N_FAMILIES][FSLAB_REPORT_MAX_DIRS][512];
	size_t n_chg_verdict[RP_N_FAMILIES];
	unsigned max_trials, min_trials;
	/* banners */
	size_t ok_cells, pc_cells;
	double pc_frac;
	bool fuse, incomplete, interrupted, buffered_loop, unsteady, hot;
	char fuse_names[512], incomplete_names[1024], loop_names[512], unsteady_names[512];
	char hot_names[1024];    /* "ext4 (71 C, at or above ...), xfs (...)" */
	char loop_text[1024];    /* the buffered-loop banner's sentence */
	char stop_text[1024];    /* the interrupted-run banner's sentence */
	struct rp_dev dev;       /* the device panel (device.c) */
	struct rp_bands bands;   /* per band of file sizes (bands.c) */
	/* the latency panel (latency.c): NULL when no row has latency */
	struct rp_lat_row *lat;  /* rp_lat_row() */
	unsigned lat_tests;      /* tests with a latency row */
};

/* Rankings of every test, the matrix's intervals and verdicts, the family
 * verdicts, changes and banners into d->sum; delta is the equivalence
 * margin (RP_EQUIVALENCE_DEFAULT).  0 or -ENOMEM. */
int rp_summary_build(struct rp_data *d, unsigned tests, double delta);
/* Entry i against entry j in test t, in the matrix's family; false when
 * either has no ranked data there. */
bool rp_sum_pair(const struct rp_summary *s, int t, size_t i, size_t j, struct rp_cmp *c);
void rp_summary_free(struct rp_summary *s);
struct rp_mcell *rp_sum_cell(const struct rp_summary *s, int t, size_t i);
const char *rp_family_name(int f);

struct rp_fam_in {
	const char *label;
	double score;    /* geometric mean of the ratios to the best; NaN: none */
	bool complete;   /* data in every test of the family */
	unsigned aside;  /* flags that set it aside (RP_FLAGS_ASIDE bits); 0: none */
	const char *other; /* the names of its unknown flags (rp_entry.other_flags) */
};
/* How the runner-up fared against the winner in a family's tests. */
struct rp_fam_calls {
	size_t n_tests;
	unsigned slower, faster, equivalent, inconclusive, untested;
	double resolve;  /* the largest of the inconclusive tests' (fraction) */
	double delta;    /* equivalence margin */
	bool descriptive; /* small files: medians of cells, nothing tested */
};
/* One verdict line: the winner among complete unflagged entries, its
 * margin over the next, and the runner-up's verdict in each test; the
 * flagged ones set aside that would have led are named. */
void rp_family_verdict(const char *family, const struct rp_fam_in *in, size_t n,
		       const struct rp_fam_calls *calls, char *buf, size_t len);

/* ---- the latency panel (latency.c) ---- */
struct rp_lat_row {          /* one filesystem in one test */
	bool has;
	size_t n_cells;          /* ok cells with latency */
	/* FSLAB_LAT_* (us): P50 the median of the cells' p50, the others
	 * the largest cell figure (p99's cell kept) */
	double lat[FSLAB_LAT_N];
	uint64_t p99_file_kib, p99_record_kib;
};
int rp_latency_build(struct rp_summary *s, const struct rp_data *d, unsigned tests);
struct rp_lat_row *rp_lat_row(const struct rp_summary *s, int t, size_t i);

/* ---- claims (claims.c) ---- */
/* The 2023 report's claims, judged once (rp_claims_build) with the
 * matrix's inference and rendered by the text, HTML and JSON reports.
 * runs[0] is the warm run (the 2023 method), the others honest ones. */
enum rp_claim_word {
	RP_CLAIM_UNKNOWN,      /* cannot tell: no data */
	RP_CLAIM_HOLDS,
	RP_CLAIM_FAILS,        /* does not hold */
	RP_CLAIM_INCONCLUSIVE, /* the interval cannot decide */
	RP_CLAIM_UNTESTED,     /* 1 trial: a figure, no interval */
	RP_CLAIM_DISAGREE,     /* honest runs that decide it disagree */
	RP_CLAIM_PAGE_CACHE,   /* the 2023 figures are the page cache */
};
#define RP_N_CLAIMS 5
struct rp_claim_run {
	const struct rp_run *run;
	enum rp_claim_word word;
	bool has_cmp;
	struct rp_cmp cmp;    /* the comparison that decides it in this run */
	char fig[160];        /* that comparison as shown: "btrfs/ext4 0.80 [0.75-0.86]" */
	char evidence[512];
};
struct rp_claim {
	const char *title;
	struct rp_claim_run runs[FSLAB_REPORT_MAX_DIRS];
	size_t n;
	enum rp_claim_word word;   /* from the honest runs */
	char decides[512];         /* the figure that decides it */
	double figure;             /* claim 5: the 2023 headline over the probe (NaN: none) */
};
struct rp_claims {
	struct rp_claim c[RP_N_CLAIMS];
	size_t m3;                 /* claim 3's family: its cell comparisons */
	/* the 2023 headline against each page-cache-flagged or btrfs entry of
	 * every run: its device probe, its own write and read, its flags */
	char (*headline)[768];
	size_t n_headline;
};
/* Needs d->sum; 0 or -ENOMEM. */
int rp_claims_build(struct rp_data *d);
void rp_claims_free(struct rp_data *d);

#endif
