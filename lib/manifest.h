/* <results>/manifest.json: what shaped a run's numbers (the sweep, the
 * machine, each filesystem and its device), or what an import brought in.
 * Read and written here and only here: `fslab run` writes and (--resume)
 * reads it, `fslab import` creates or extends it, `fslab report` reads it,
 * `fslab reproduce` adds notes to it.
 *
 * The file is a user's file by the time it is read again, so the reader
 * checks every value it keeps: a number outside the range fslab itself
 * writes, a string longer than its field, a wrong type is refused with a
 * message that names the field and what is allowed.  A key that is absent
 * or null keeps its default (manifests of older fslab versions lack some);
 * keys fslab does not know are ignored. */
#ifndef FSLAB_MANIFEST_H
#define FSLAB_MANIFEST_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "names.h"
#include "spec.h"
#include "drivetemp.h"
#include "steady.h"
#include "state.h"

struct json_object;

#define FSLAB_MANIFEST_NAME "manifest.json"
/* A manifest is a few KiB; a sweep file's text in it at most 1 MiB. */
#define FSLAB_MANIFEST_MAX_BYTES (16u << 20)
#define FSLAB_MANIFEST_RUN_ID_LEN 36   /* a UUID, lower-case text */
#define FSLAB_MANIFEST_PROBE_RUNS 3    /* device probes recorded per filesystem */
/* Filesystems in one manifest: a run has at most FSLAB_MAX_FS; imports
 * into one directory at most as many as fslab report reads from it. */
#define FSLAB_MANIFEST_FS_MAX (FSLAB_MAX_FS * 4)
#define FSLAB_MANIFEST_WORDS_MAX 4096  /* words of a recorded command line */
#define FSLAB_MANIFEST_NOTES_MAX 64
#define FSLAB_MANIFEST_TEXT_MAX 4096   /* a command word, a note */
#define FSLAB_MANIFEST_SPEC_MAX (1u << 20)
/* Bounds of what fslab writes (and so of what it reads back). */
#define FSLAB_MANIFEST_SIZE_KIB_MAX (UINT64_C(1) << 50) /* FSLAB_SIZE_MAX in KiB */
#define FSLAB_MANIFEST_SESSIONS_MAX 100000
#define FSLAB_MANIFEST_KIB_S_MAX 1e12  /* ~1 EiB/s: beyond any device */
#define FSLAB_MANIFEST_SECONDS_MAX 1e9 /* ~31 years */
#define FSLAB_MANIFEST_COUNT_MAX (UINT64_C(1) << 53)

enum fslab_manifest_kind {
	FSLAB_MANIFEST_RUN,    /* fslab run */
	FSLAB_MANIFEST_IMPORT, /* fslab import iozone: "imported_from": "iozone" */
};

/* "steady_state" of a filesystem: fslab run's steady-state phase before
 * its sweep (bench/run_steady.c, lib/steady.h's rule). */
struct fslab_manifest_steady_round {
	double seq_write_kib_s;  /* the round's 1 MiB sequential writes */
	double rand_write_kib_s; /* its 4 KiB random writes: the tracking variable */
};
struct fslab_manifest_steady {
	/* "reached in round N", "not reached after 25 rounds", "skipped:
	 * WHY", "failed: WHY", "interrupted"; "": not recorded (null) */
	char result[256];
	unsigned reached;        /* the round it was reached in; 0: not */
	unsigned n_rounds;       /* 0..FSLAB_STEADY_ROUNDS_MAX */
	struct fslab_manifest_steady_round rounds[FSLAB_STEADY_ROUNDS_MAX];
	struct fslab_steady_window window; /* .last 0: none */
	uint64_t file_bytes, round_bytes;
	uint64_t free_bytes;     /* the free space the file was sized from (lib/steady.h) */
	double fill_s, elapsed_s;
	unsigned session;        /* the session that ran it */
};
/* One pass of a filesystem's sweep (its cells of one trial): the drive's
 * conditions just before its first cell and just after its last (after
 * .read_at "": not read, an interrupted pass). */
#define FSLAB_MANIFEST_DRIVE_PASSES 64 /* passes recorded; later ones are counted */
struct fslab_manifest_drive_pass {
	unsigned trial;   /* 1..FSLAB_TRIALS_MAX */
	unsigned session; /* the run's session (1, then each --resume) */
	struct fslab_drive_conditions before, after;
};
/* "drive": the drive's temperature and health around the filesystem's
 * sweep (lib/drivetemp.h): before its first pass, after its last, before
 * and after every pass (the first FSLAB_MANIFEST_DRIVE_PASSES; the rest
 * counted in passes_unrecorded), the hottest reading between, and the
 * rows measured while it was hot (flagged thermal).  before.read_at "":
 * not read (null). */
struct fslab_manifest_drive {
	struct fslab_drive_conditions before, after;
	unsigned n_passes;
	uint64_t passes_unrecorded;
	struct fslab_manifest_drive_pass passes[FSLAB_MANIFEST_DRIVE_PASSES];
	bool has_max;
	double max_temp_c;
	uint64_t thermal_rows;
	char thermal[256];       /* why the first of them was flagged; "": none */
};
/* "between_filesystems": after each pass of a filesystem's sweep, FITRIM
 * and a bounded wait for its disk to go idle. */
struct fslab_manifest_quiet {
	char skipped[256];       /* why it is not done; "": done (null) */
	char trim[256];          /* the last FITRIM's outcome */
	uint64_t trimmed_bytes;  /* over every pass */
	unsigned passes, not_idle; /* waits, and those that ended at the bound */
	double wait_s, wait_max_s;
};

/* One entry of "filesystems".  An empty string is written as null. */
struct fslab_manifest_fs {
	char name[FSLAB_FS_NAME_MAX]; /* required: the CSV's name */
	char type[64];
	char path[PATH_MAX];
	char mountpoint[PATH_MAX];
	char device[PATH_MAX];
	char mount_method[16];
	bool has_mkfs_options; /* a lab partition ("" allowed); else null */
	char mkfs_options[FSLAB_OPTIONS_MAX];
	char mkfs_command[FSLAB_MKFS_COMMAND_MAX]; /* a lab partition: the mkfs setup ran; "": null */
	char mount_options[512];
	/* The mount's options as the kernel listed them at the run's end, when
	 * they differ from the start (remounted under the run: its figures may
	 * mix two configurations); "": unchanged or unknown (null). */
	char mount_options_at_end[512];
	struct json_object *live; /* the kernel's view at the start and end (bench/run_manifest.c), or NULL (owned) */
	char mkfs_tool_version[128];
	char device_model[128];
	char device_serial[128];
	struct json_object *device_info; /* provision's device facts, or NULL (owned) */
	int setup_discarded;             /* -1: null, else 0 or 1 */
	uint64_t device_size_bytes;      /* 0: null */
	double device_write_kib_s, device_read_kib_s; /* the fastest probe; 0: null */
	char device_probe[24];           /* o_direct, buffered+fsync, skipped, failed */
	char device_probe_note[256];
	/* measured (by this run), reused (kept from an earlier run's probe of
	 * the same device and mount) or "" (null); and when it was measured
	 * (UTC, ISO 8601; "": null). */
	char device_probe_source[12];
	char device_probe_measured_at[32];
	bool has_probe_runs;             /* false: null */
	unsigned probe_runs;             /* entries of the arrays below */
	double probe_write_kib_s[FSLAB_MANIFEST_PROBE_RUNS];
	double probe_read_kib_s[FSLAB_MANIFEST_PROBE_RUNS];
	uint64_t device_probe_bytes;     /* 0: null */
	char sync_device[PATH_MAX];
	char sync_note[128];
	char cache_drop_method[32];
	char cache_drop_note[256];
	bool fuse, vanished;
	char loop_io[16];                /* "direct", "buffered"; "": not a loop (null) */
	/* The block layer's counters of the partition the run counted the
	 * device bytes of each pass on (sysfs stat file); "": none (null). */
	char device_counters[160];
	/* A lab's: setup's purge and preconditioning of the disk (status ""
	 * : null), and setup's wait for the filesystem to go quiet after
	 * mount ("quiet_after_mount": quiet, timeout; "": null). */
	struct fslab_state_precondition precondition;
	char mount_quiet[16];
	double mount_quiet_wait_s;
	uint64_t cells_ok, cells_failed, cells_skipped;
	double timed_s, untimed_io_s, cache_drop_s, wall_s;
	char iozone_report[PATH_MAX];    /* imports: the report read */
	struct fslab_manifest_steady steady;
	struct fslab_manifest_quiet quiet;
	struct fslab_manifest_drive drive;
};

/* Which keys the file had (beyond the defaults): FSLAB_MF_HAS_*. */
enum {
	FSLAB_MF_HAS_SWEEP = 1 << 0,
	FSLAB_MF_HAS_TRIALS = 1 << 1,
	FSLAB_MF_HAS_SEED = 1 << 2,
	FSLAB_MF_HAS_MAX_TRIALS = 1 << 3,
	FSLAB_MF_HAS_SESSIONS = 1 << 4,
	FSLAB_MF_HAS_FILESYSTEMS = 1 << 5,
	FSLAB_MF_HAS_TIME = 1 << 6,
	FSLAB_MF_HAS_MACHINE = 1 << 7,
	FSLAB_MF_HAS_KEEP_SMALL = 1 << 8,
};

struct fslab_manifest {
	enum fslab_manifest_kind kind;
	unsigned has; /* FSLAB_MF_HAS_* */
	char fslab_version[32];
	char run_id[FSLAB_MANIFEST_RUN_ID_LEN + 1];
	char label[64];
	/* "command": the run's first command line; "resumed_with": this
	 * session's, when it resumed the run. */
	char **command;
	size_t n_command;
	char **resumed_with;
	size_t n_resumed_with;
	char started_at[32], finished_at[32], imported_at[32];
	bool interrupted;
	unsigned sessions;             /* 1..FSLAB_MANIFEST_SESSIONS_MAX */
	enum fslab_cache_mode cache;   /* FSLAB_CACHE_MODE_INVALID: absent */
	unsigned trials;               /* 1..FSLAB_TRIALS_MAX; 0: absent */
	double until_ci_pct;           /* (0, 100]; 0: null */
	unsigned max_trials;           /* 1..FSLAB_TRIALS_MAX; 0: absent */
	uint64_t seed;
	char io_mode[16], sync_policy[16]; /* names lib/names.h knows; "": absent */
	char file_sync[16];                /* the same */
	/* "stop": the stopping rule (decided, ci, fixed: bench/run_stop.c
	 * names them); "": absent (older runs: ci when until_ci_pct is set,
	 * else fixed) */
	char stop[16];
	/* "stopping": why each test of each cell stopped getting trials (the
	 * run writes it; read back as it is, an object, not interpreted here),
	 * or NULL (owned) */
	struct json_object *stopping;
	bool latency;
	unsigned pass_gap_ms;          /* --pass-gap; 0 when absent (older runs) */
	char steady_state[8];          /* auto, on, off; "": absent (auto) */
	uint64_t steady_round_kib;     /* 0: absent */
	struct {
		char preset[16];      /* lab, quick, seed, cdm, cdm-nvme */
		/* 1..FSLAB_MANIFEST_SIZE_KIB_MAX, min <= max (a list's ends);
		 * records at least 4 KiB */
		uint64_t file_min_kib, file_max_kib, record_min_kib, record_max_kib;
		unsigned tests;       /* mask of enum fslab_test bits */
		bool keep_small_records;
		bool shuffle;         /* "order": shuffle (default) or fixed */
		char records_rule[512]; /* the lab's coarse records (lib/cell_plan.h); "": every record */
		/* "blocks": "cell" (bench/run_sweep.c); "": absent (older runs:
		 * each filesystem's whole trial in the trial's order) */
		char blocks[8];
		/* named rows (cdm, cdm-nvme): "pass_s", the seconds of a pass,
		 * and "warmup_passes_discarded", the passes of each row run
		 * before its first measured one and left out of the results;
		 * 0 (a grid, or absent): one pass over the file, no warm-up */
		unsigned pass_s, warmup_passes;
		/* the grid's queued tests: depth and threads (absent: 1) */
		unsigned iodepth, jobs;
		/* lists of sizes and depths as the flags take them ("4K,16K";
		 * "": absent, the ranges and iodepth above) */
		char file_sizes[400], record_sizes[400], iodepths[80];
	} sweep;
	struct {
		char hostname[256], kernel[640], kernel_version[256], cpu_model[256];
		unsigned cpus;        /* 0: null */
		uint64_t memory_kib;  /* 0: null */
	} machine;
	double page_cache_factor;  /* 0: absent */
	char page_cache_flag[256]; /* what the flag means, in words */
	char device_bytes[256];    /* the device columns' counting window, in words */
	char device_probe[96];     /* whether the devices were probed, in words */
	char state_path[PATH_MAX];
	size_t n_fs;
	struct fslab_manifest_fs *fs;
	struct {
		double wall_s, timed_s, untimed_io_s, cache_drop_s;
	} time;
	/* "spec": {source, text} when spec_text is set, else the string
	 * spec_source ("preset" when empty). */
	char spec_source[PATH_MAX];
	char *spec_text;
	char **notes; /* "notes": added by fslab reproduce, shown by the report */
	size_t n_notes;
	/* The parsed file as read (fslab report shows it); NULL for a
	 * manifest built in memory.  Owned. */
	struct json_object *json;
};

/* An empty manifest of the given kind (defaults: cache unset, shuffle,
 * sessions 1).  Returns NULL when out of memory. */
struct fslab_manifest *fslab_manifest_new(enum fslab_manifest_kind kind);
void fslab_manifest_free(struct fslab_manifest *m);

/* Appends a zeroed filesystem entry (setup_discarded -1); NULL when full
 * (FSLAB_MANIFEST_FS_MAX) or out of memory. */
struct fslab_manifest_fs *fslab_manifest_add_fs(struct fslab_manifest *m);
/* Index of the filesystem called name, or -1. */
int fslab_manifest_find_fs(const struct fslab_manifest *m, const char *name);
/* Removes entry i (later ones move up). */
void fslab_manifest_remove_fs(struct fslab_manifest *m, size_t i);
/* Copies n words into a new NULL-terminated array (*words, *n_words),
 * freeing what was there.  Returns 0 or -ENOMEM. */
int fslab_manifest_set_words(char ***words, size_t *n_words, size_t n, const char *const *src);
/* Appends a note.  Returns 0, -E2BIG (FSLAB_MANIFEST_NOTES_MAX) or -ENOMEM. */
int fslab_manifest_add_note(struct fslab_manifest *m, const char *note);

/* Parses manifest text (len bytes; name for messages, e.g. its path).
 * Returns 0 with *out a new manifest (free with fslab_manifest_free), or
 * -EINVAL with e naming the line (invalid JSON) or the field, its value
 * and what is allowed, or -ENOMEM. */
int fslab_manifest_parse(const char *text, size_t len, const char *name,
			 struct fslab_manifest **out, struct fslab_err *e);

/* Opens the manifest in the results directory dfd: a regular file only,
 * never through a symlink, never blocking (a FIFO cannot hang the reader).
 * Returns the fd or fslab_open_regular_at's -errno (-ENOENT absent, -ELOOP
 * a symlink, -EINVAL not a regular file). */
int fslab_manifest_open_at(int dfd);
/* Reads (at most FSLAB_MANIFEST_MAX_BYTES) and parses fd; does not close
 * it.  Returns as fslab_manifest_parse, or -EFBIG / a read's -errno with
 * e set. */
int fslab_manifest_read_fd(int fd, const char *name, struct fslab_manifest **out,
			   struct fslab_err *e);

/* What `fslab run --resume` needs beyond the parse: a run's manifest with
 * run_id, sweep, cache_mode, trials, seed and at least one filesystem with
 * a path.  Returns 0 or -EINVAL with e naming what is missing. */
int fslab_manifest_check_resumable(const struct fslab_manifest *m, const char *name,
				   struct fslab_err *e);

/* The JSON text of m (pretty, ending in a newline): what the reader reads
 * back to the same struct.  Returns 0 (*text malloc'd) or -ENOMEM. */
int fslab_manifest_format(const struct fslab_manifest *m, char **text, size_t *len);
/* Writes m as FSLAB_MANIFEST_NAME in dfd atomically
 * (fslab_write_file_atomic_at: temporary file, fsync, rename, fsync of the
 * directory).  Returns 0 or -errno; on failure the old file is unchanged. */
int fslab_manifest_write_at(int dfd, const struct fslab_manifest *m);

#endif
