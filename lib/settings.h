/* fslab run's settings, each said once: one row per setting in one table
 * (lib/settings.c) with its flag, [sweep] key, manifest key, type, bounds,
 * words, default, help and its place (an offset into struct
 * fslab_run_config).  fslab run's options and --help, the [sweep] keys,
 * the one check of every value and the merge of layers (preset < sweep
 * file < flags) all come from the table.  A layer's set bits (struct
 * fslab_settings) are the one meaning of "given": a row whose bit is clear
 * was not given there, whatever its place holds.  tests/unit/test_settings.c
 * holds the table to --help, the manifest, completion and docs/fslab.1. */
#ifndef FSLAB_SETTINGS_H
#define FSLAB_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "names.h"
#include "steady.h"

/* The defaults of the stopping rule's rows (their help, the lab preset and
 * lib/run_config.c read them here): the minimum trials, the cap, and
 * --until-ci's percentage.  The tests' own rule looks up to 8 trials
 * (FSLAB_STOP_CELL_CAP); the cap of 24 is for the band look, within its
 * budget: on the default lab its undecided bands resolved 9-21% (median
 * 15%) with a cap of 8, 7-14% (median 12%) with 16 and 4-13% (median 7%)
 * with 24, in 38:35 (docs/run.md).
 * The _TEXT forms are for help strings. */
#define FSLAB_DEFAULT_MIN_TRIALS 3
#define FSLAB_DEFAULT_MAX_TRIALS 24
#define FSLAB_DEFAULT_UNTIL_CI_PCT 5
/* --pass-gap's bound, milliseconds */
#define FSLAB_PASS_GAP_MS_MAX 60000
#define FSLAB_SETTING_TEXT_(x) #x
#define FSLAB_SETTING_TEXT(x) FSLAB_SETTING_TEXT_(x)
#define FSLAB_DEFAULT_MIN_TRIALS_TEXT FSLAB_SETTING_TEXT(FSLAB_DEFAULT_MIN_TRIALS)
#define FSLAB_DEFAULT_MAX_TRIALS_TEXT FSLAB_SETTING_TEXT(FSLAB_DEFAULT_MAX_TRIALS)
#define FSLAB_DEFAULT_UNTIL_CI_TEXT FSLAB_SETTING_TEXT(FSLAB_DEFAULT_UNTIL_CI_PCT)
/* --label's room, including the NUL; each steady-state round's bytes */
#define FSLAB_RUN_LABEL_MAX 64
#define FSLAB_STEADY_ROUND_DEFAULT (256ull << 20)

enum fslab_setting {
	FSLAB_SETTING_FILE_SIZES,
	FSLAB_SETTING_RECORD_SIZES,
	FSLAB_SETTING_TESTS,
	FSLAB_SETTING_TRIALS,
	FSLAB_SETTING_CACHE,
	FSLAB_SETTING_SEED,
	FSLAB_SETTING_SMALL_RECORDS,
	FSLAB_SETTING_ORDER,
	FSLAB_SETTING_PRESET,
	FSLAB_SETTING_LABEL,
	FSLAB_SETTING_STOP,
	FSLAB_SETTING_UNTIL_CI,
	FSLAB_SETTING_MAX_TRIALS,
	FSLAB_SETTING_IO,
	FSLAB_SETTING_SYNC,
	FSLAB_SETTING_LATENCY,
	FSLAB_SETTING_NO_PROBE,
	FSLAB_SETTING_PROBE_SIZE,
	FSLAB_SETTING_STEADY,
	FSLAB_SETTING_STEADY_ROUND,
	FSLAB_SETTING_CDM_SIZE,
	FSLAB_SETTING_CDM_TIME,
	FSLAB_SETTING_IODEPTH,
	FSLAB_SETTING_JOBS,
	FSLAB_SETTING_FILE_SYNC,
	FSLAB_SETTING_PASS_GAP,
	FSLAB_SETTING_MAX,
};

#define FSLAB_SETTING_BIT(id) (1u << (id))


#define FSLAB_TRIALS_MAX 1000
/* --file-sizes, --record-sizes, --iodepth: the most values of a list */
#define FSLAB_SIZE_LIST_MAX 16

struct fslab_sweep_spec {
	/* which [sweep] rows were given (a sweep file's keys, fslab run's
	 * flags; the rest are the preset's): the settings' own set bits,
	 * FSLAB_SETTING_BIT(id) */
	unsigned set;
	/* bytes, multiples of 4K: a range doubling from min up to max, or a
	 * list (files[0] not 0: ascending, 0-ended; min and max its ends) */
	uint64_t file_min, file_max, files[FSLAB_SIZE_LIST_MAX];
	uint64_t record_min, record_max, records[FSLAB_SIZE_LIST_MAX];
	unsigned tests;                  /* mask of enum fslab_test bits */
	unsigned trials;                 /* 1..FSLAB_TRIALS_MAX */
	enum fslab_cache_mode cache;
	uint64_t seed;
	bool keep_small_records; /* IOzone -z; default: skip records < 64K on files > 16M */
	bool shuffle;            /* shuffle filesystem order within a trial (default true) */
	bool coarse;             /* the lab preset's records (FSLAB_PLAN_COARSE_RULE) */
	/* FSLAB_PRESET_CDM or _CDM_NVME: the plan is that preset's named
	 * rows, on one file of file_max bytes (lib/cell_plan.c); any other: the
	 * file x record grid */
	enum fslab_preset named_rows;
	unsigned pass_s; /* named rows: the seconds of each pass */
	/* the grid's queued tests: requests in flight per thread (a list:
	 * one cell per depth; depths[0] 0: iodepth alone), threads (named
	 * rows have their own) */
	unsigned iodepth, depths[FSLAB_SIZE_LIST_MAX], jobs;
};

/* fslab run's configuration: where every row of the table puts its value
 * (the sweep's rows in sweep), typed. */
struct fslab_run_config {
	struct fslab_sweep_spec sweep;
	enum fslab_preset preset;
	enum fslab_stop_rule stop_rule;
	double until_ci_pct;  /* --until-ci; 0: off */
	unsigned max_trials;  /* the stopping rule's cap; --stop fixed: the trials */
	enum fslab_io_mode io_mode;
	enum fslab_sync_policy sync_policy;
	enum fslab_file_sync file_sync;
	bool latency;         /* --latency: the CSVs have latency columns */
	unsigned pass_gap_ms; /* --pass-gap: the untimed pause before each pass */
	bool no_device_probe;
	uint64_t probe_bytes; /* --probe-size; 0: the probe's own default */
	enum fslab_steady_mode steady_mode;
	uint64_t steady_round_bytes; /* each workload's bytes per round */
	char label[FSLAB_RUN_LABEL_MAX]; /* --label, or "" */
};

/* The typed defaults: what a run has of each row nothing gave (the
 * sweep's are the preset's, lib/cell_plan.c). */
extern const struct fslab_run_config fslab_run_config_default;

enum fslab_setting_type {
	FSLAB_STYPE_ENUM,    /* one of words[]; the value is its index (the C enum) */
	FSLAB_STYPE_RANGE,   /* MIN-MAX or a list of sizes, bytes, each min..max */
	FSLAB_STYPE_COUNT,   /* a whole number min..max (a list if list) */
	FSLAB_STYPE_SIZE,    /* a size, bytes, min..max, a multiple of `multiple` */
	FSLAB_STYPE_PERCENT, /* above 0 and at most 100 */
	FSLAB_STYPE_TESTS,   /* all or a list of test names: a mask */
	FSLAB_STYPE_BOOL,    /* a flag that takes no value */
	FSLAB_STYPE_NAME,    /* 1 to 63 of A-Z a-z 0-9 . _ -, not starting with '-' */
};

struct fslab_setting_row {
	const char *flag;         /* the long option without "--"; NULL: none */
	char short_name;          /* -x, or 0 */
	const char *arg;          /* the value's name in --help; NULL: takes none */
	const char *sweep_key;    /* the [sweep] key; NULL: a sweep file cannot set it */
	/* where the manifest records it: blank-separated JSON paths
	 * ("sweep.file_min_kib sweep.file_max_kib"; "filesystems[].x": in
	 * each filesystem) */
	const char *manifest_key;
	enum fslab_setting_type type;
	uint64_t min, max;        /* COUNT, SIZE, RANGE (each end) */
	bool pow2;                /* RANGE (each size): fslab_sweep_size_problem; SIZE: a power of two */
	bool list;                /* COUNT: "1,32" too: the first at the place, all after it */
	uint64_t multiple;        /* SIZE: 0 or what the value is a multiple of */
	const char *const *words; /* ENUM: words[0..n_words) */
	int n_words;
	const char *words_help;   /* ENUM: the words as the refusal explains them */
	/* where the value lives: offset and size of its place in struct
	 * fslab_run_config (a RANGE's two uint64_t ends; a bool ENUM: the
	 * index is not 0, unless invert) */
	size_t offset, size;
	bool invert;
	const char *default_text; /* the default as --help and the man page say it */
	const char *heading;      /* the --help heading this row starts, or NULL */
	const char *help;         /* the --help text ('\n' starts a line) */
};

struct fslab_settings {
	unsigned set; /* FSLAB_SETTING_BIT(id): given by this layer */
	struct fslab_run_config v; /* each given row's value, at its place */
};

/* Every row once, in the order fslab run --help lists them (a row
 * without a flag is skipped there). */
extern const enum fslab_setting fslab_settings_help_order[FSLAB_SETTING_MAX];

/* The row of a setting (never NULL for a valid id). */
const struct fslab_setting_row *fslab_setting_row(enum fslab_setting id);
/* The setting with this [sweep] key; -1 when none. */
int fslab_setting_by_sweep_key(const char *key);

/* The index of word among an ENUM row's words, or -1; the word of index
 * i, or NULL.  (The names of enum fslab_io_mode, _sync_policy, ... are
 * these words.) */
int fslab_setting_word_index(enum fslab_setting id, const char *word);
const char *fslab_setting_word(enum fslab_setting id, int i);
/* The name of the row's k-th manifest key (0 or 1), the last part of its
 * path ("sweep.file_max_kib", k 1: "file_max_kib"); "" when the row has no
 * such key.  The manifest writer's and reader's key names (lib/manifest.c,
 * lib/manifest_read.c); the string lives as long as the process. */
const char *fslab_setting_mkey(enum fslab_setting id, int k);
/* "warm|fsync|direct|cold" (sep "|"), into buf; returns buf. */
char *fslab_setting_words(enum fslab_setting id, const char *sep, char *buf, size_t len);
/* The row's bounds as the docs say them ("1 to 1000", "at least 4M,
 * whole MiB"); "" when it has none to say.  Returns buf. */
char *fslab_setting_bounds(enum fslab_setting id, char *buf, size_t len);
/* The [sweep] keys, "file_sizes, record_sizes, ...", into buf. */
char *fslab_setting_sweep_keys(char *buf, size_t len);

/* Parses text for setting id to its place in layer s, marked given: 0, or
 * -EINVAL with one message in e naming where the value came from (origin:
 * "--cache", "[sweep] cache") and what is allowed; s is then unchanged.
 * A BOOL row takes text NULL (a flag). */
int fslab_setting_parse(struct fslab_settings *s, enum fslab_setting id, const char *text,
			const char *origin, struct fslab_err *e);

/* Sets a whole number (a range: lo and hi) or a percentage as parsed
 * would, for callers that have it already (fslab reproduce). */
void fslab_settings_put(struct fslab_settings *s, enum fslab_setting id, uint64_t lo, uint64_t hi);
void fslab_settings_put_real(struct fslab_settings *s, enum fslab_setting id, double v);

static inline bool fslab_settings_has(const struct fslab_settings *s, enum fslab_setting id)
{
	return (s->set & FSLAB_SETTING_BIT(id)) != 0;
}

/* The one merge: each row of mask set in layer s, its value copied to its
 * place in cfg (a row with a [sweep] key marked in cfg->sweep.set).  The
 * [sweep] parser and fslab run (preset < sweep file < flags) lay their
 * layers with it. */
void fslab_settings_merge(struct fslab_run_config *cfg, const struct fslab_settings *s, unsigned mask);

/* The value at row id's place in cfg as its flag or [sweep] key takes it
 * ("cold", "64K-2G", "write,read"); returns buf. */
char *fslab_setting_format(enum fslab_setting id, const struct fslab_run_config *cfg, char *buf, size_t len);

/* fslab run's configuration from its options (lib/run_config.c), in one
 * call: the typed defaults, the preset's values (given's PRESET row; not
 * given: lab), the [sweep] section of sweep_file (NULL: none; its text,
 * malloc'd, into *sweep_text for the manifest), then every row given,
 * and the rules between rows (a named-rows preset's, the grid's, the
 * stopping rule and its trials).  0, or -EINVAL with the message in e. */
int fslab_run_config_resolve(struct fslab_run_config *cfg, const struct fslab_settings *given,
			     const char *sweep_file, char **sweep_text, struct fslab_err *e);
/* --resume takes every row a run records in its manifest back from it: a
 * flag of one of them given with it is refused whatever its value, as
 * are a sweep file and an output directory.  0, or -EINVAL with the
 * message in e. */
int fslab_run_config_resume_check(const struct fslab_settings *given, bool sweep_given, bool out_given,
				  struct fslab_err *e);

#endif
