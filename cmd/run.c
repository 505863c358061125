/* fslab run: parses options into struct fslab_run_opts; the engine is
 * bench/ (fslab_run). */
#include "commands.h"
#include "engine.h"
#include "log.h"
#include "names.h"
#include "opts.h"
#include "run.h"
#include "size.h"
#include "spec.h"
#include "stats.h"
#include "steady.h"
#include "stop_rule.h"
#include "termtext.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	OPT_STATE = FSLAB_OPT_ID,
	OPT_DIR,
	OPT_SWEEP,
	OPT_FILE_SIZES,
	OPT_RECORD_SIZES,
	OPT_SMALL_RECORDS,
	OPT_CACHE,
	OPT_TRIALS,
	OPT_SEED,
	OPT_RESUME,
	OPT_QUIET,
	OPT_UNTIL_CI,
	OPT_MAX_TRIALS,
	OPT_STOP,
	OPT_NO_PROBE,
	OPT_PROBE_SIZE,
	OPT_PROBE,
	OPT_ALLOW_CONCURRENT,
	OPT_IO,
	OPT_SYNC,
	OPT_LATENCY,
	OPT_LABEL,
	OPT_DRY_RUN,
	OPT_STEADY,
	OPT_STEADY_ROUND,
};

#define LAB_GROUP 1 /* a lab (--state) or directories (--dir), not both */

static const struct fslab_opt run_opts[] = {
	FSLAB_OPT_HEADING("Where:"),
	{ "state", OPT_STATE, 0, "FILE",
	  "the lab's state file (default: $FSLAB_STATE or /var/lib/fslab/state.json); every "
	  "mounted filesystem in it", 0, LAB_GROUP },
	{ "dir", OPT_DIR, 0, "NAME=PATH",
	  "benchmark the directory PATH as NAME, without a lab (repeatable; NAME names the CSV)", 0,
	  LAB_GROUP },
	/* short options as fslab report's */
	{ "out", 'o', 'o', "DIR", "results directory (default: results/<UTC timestamp>/)", 0, 0 },
	{ "resume", OPT_RESUME, 0, "DIR",
	  "continue an interrupted run in DIR with its recorded settings: finished cells are "
	  "kept, the rest run; refused, with nothing changed, when DIR's manifest or CSVs are not "
	  "its own (run id and identities in DIR/.fslab-run), DIR or its files are another "
	  "user's, or another run holds DIR", 0, 0 },
	{ "allow-concurrent", OPT_ALLOW_CONCURRENT, 0, NULL,
	  "run beside other runs on the same lab that also give it (their figures perturb each "
	  "other); without it a second run on a lab is refused, naming the running one's pid", 0, 0 },
	{ "label", OPT_LABEL, 0, "NAME",
	  "name the run (e.g. the host it runs on; letters, digits, . _ -): recorded in the "
	  "manifest, fslab report tags the run with it (hostA/ext4)", 0, 0 },
	FSLAB_OPT_HEADING("Sweep (preset < the [sweep] section of --sweep FILE < these flags):"),
	{ "sweep", OPT_SWEEP, 0, "PRESET|FILE",
	  "lab (the default): files 64K-64M, records 4K-16M, all 13 tests, records < 64K skipped "
	  "for files > 16M, cold, 3 trials, and (unless --cache or --trials is given) --stop decided "
	  "--max-trials 10\n"
	  "seed: the 2023 experiment: files 64K-2G, 1 trial, warm\n"
	  "quick: the seed sweep with files up to 64M (1 trial, warm)\n"
	  "FILE: a spec file (fslab spec --print); its [sweep] applies", 0, 0 },
	{ "tests", 't', 't', "LIST", "all, or e.g. write,read,random_read", 0, 0 },
	{ "file-sizes", OPT_FILE_SIZES, 0, "R", "e.g. 64K-1G, or one size; powers of two", 0, 0 },
	{ "record-sizes", OPT_RECORD_SIZES, 0, "R", "e.g. 4K-16M; never above the file size", 0, 0 },
	{ "small-records", OPT_SMALL_RECORDS, 0, "M",
	  "skip (IOzone's default: records < 64K on files > 16M) or keep (iozone -z)", 0, 0 },
	{ "cache", OPT_CACHE, 0, "MODE",
	  "warm: buffered, nothing flushed (IOzone's default)\n"
	  "fsync: fsync and close inside the timer (iozone -e -c)\n"
	  "direct: O_DIRECT; stdio tests run buffered (flagged)\n"
	  "cold (the default): writers timed with their fsync (iozone -e); the file's pages "
	  "dropped before each first read pass (reread/freread re-read what it cached)", 0, 0 },
	{ "trials", OPT_TRIALS, 0, "N",
	  "repeat the whole plan N times (trial loop outside the filesystem loop; filesystem "
	  "order shuffled per trial)", 0, 0 },
	{ "seed", OPT_SEED, 0, "N", "seed of that shuffle (default 1)", 0, 0 },
	{ "stop", OPT_STOP, 0, "RULE",
	  "decided (the lab preset's default): past --trials (the minimum, default 3), run a "
	  "test of a cell again only while a comparison between the filesystems is neither "
	  "decided (slower, faster or equivalent within 5%, on intervals corrected for looking "
	  "after every trial) nor undecidable by --max-trials; tests sharing the test file run "
	  "together\n"
	  "ci: as --until-ci (5 when not given)\n"
	  "fixed: exactly --trials trials", 0, 0 },
	{ "until-ci", OPT_UNTIL_CI, 0, "PCT",
	  "--stop ci: repeat each file x record cell until the 95% confidence interval (Student's "
	  "t) of each test is within PCT percent of its mean; --trials is then the minimum (at "
	  "least 2)", 0, 0 },
	{ "max-trials", OPT_MAX_TRIALS, 0, "N", "the cap of --stop decided and ci (default 10)", 0, 0 },
	{ "io", OPT_IO, 0, "MODE",
	  "seek: lseek + read/write per record in the positioned tests, IOzone's calls (the "
	  "default); positional: one pread/pwrite per record (recorded in the manifest)", 0, 0 },
	{ "sync", OPT_SYNC, 0, "POLICY",
	  "before each cell, fs: syncfs + fsync of the lab's block device (the default; --dir: "
	  "syncfs only); global: sync() twice, as IOzone", 0, 0 },
	{ "latency", OPT_LATENCY, 0, NULL,
	  "per-cell p50/p99/max latency of one operation (a clock read and a histogram bucket "
	  "per operation) as three more CSV columns: lat_p50_us, lat_p99_us, lat_max_us", 0, 0 },
	FSLAB_OPT_HEADING("Honesty:"),
	{ "no-device-probe", OPT_NO_PROBE, 0, NULL,
	  "skip the O_DIRECT probe of each device; without it no cell is flagged page-cache "
	  "(faster than " FSLAB_PAGE_CACHE_FACTOR_TEXT "x the device)", 0, 0 },
	{ "probe-size", OPT_PROBE_SIZE, 0, "SIZE", "the probe's scratch file (default 64M, 1M records)", 0, 0 },
	{ "probe", OPT_PROBE, 0, "MODE",
	  "reuse (the default): a device probed less than an hour ago, on the same device, mount "
	  "and options, keeps that probe (kept in /run/fslab; measured again once when a cell "
	  "runs well above it); fresh: probe every device now", 0, 0 },
	{ "steady-state", OPT_STEADY, 0, "MODE",
	  "before each filesystem's sweep, write it until the drive is steady (SNIA PTS: 4K "
	  "random-write throughput of 5 rounds within 20% of their mean and its fitted line "
	  "within 10%; at most 25 rounds of 1M sequential + 4K random O_DIRECT writes on a file "
	  "of half the free space): auto (the default: on for a lab on a real SSD, off for an "
	  "image lab, a rotational disk or --dir), on, off; recorded per filesystem in the "
	  "manifest", 0, 0 },
	{ "steady-state-round", OPT_STEADY_ROUND, 0, "SIZE",
	  "bytes each workload writes per round (default 256M; whole MiB)", 0, 0 },
	FSLAB_OPT_HEADING("Output:"),
	{ "dry-run", OPT_DRY_RUN, 0, NULL,
	  "print the plan and write nothing: filesystems, grid, cells, trials, tests, bytes to "
	  "move, each filesystem's free space against its need (exit 1, before anything runs, "
	  "when the largest file does not fit) and a time estimate from a device probe in a "
	  "private directory it removes", 0, 0 },
	{ "quiet", OPT_QUIET, 0, NULL,
	  "no progress (a redrawn line on a terminal, else a line per filesystem and trial)", 0, 0 },
	{ 0 },
};

const struct fslab_cmd_opts fslab_run_cmd = {
	.name = "run",
	.synopsis = "Usage: fslab run [--state FILE | --dir NAME=PATH ...] [--out DIR]\n"
		    "                 [--sweep lab|quick|seed|FILE] [--tests LIST] [--file-sizes MIN-MAX]\n"
		    "                 [--record-sizes MIN-MAX] [--small-records skip|keep]\n"
		    "                 [--cache warm|fsync|direct|cold] [--trials N] [--seed N]\n"
		    "                 [--stop decided|ci|fixed] [--until-ci PCT] [--max-trials N]\n"
		    "                 [--io seek|positional]\n"
		    "                 [--sync fs|global] [--latency] [--no-device-probe]\n"
		    "                 [--probe-size SIZE] [--probe reuse|fresh]\n"
		    "                 [--steady-state auto|on|off]\n"
		    "                 [--steady-state-round SIZE]\n"
		    "                 [--resume DIR] [--allow-concurrent] [--label NAME] [--quiet]\n"
		    "                 [--dry-run]",
	.intro = "Sweeps every filesystem of the lab (or the given directories) with the 13 IOzone\n"
		 "tests and writes <out>/<fs>.csv per filesystem plus <out>/manifest.json.\n"
		 "With no sweep option it runs the lab preset: files 64K-64M, cold cache, at least\n"
		 "3 trials, and more (up to 10) of each test while a comparison between the\n"
		 "filesystems is not decided yet and still can be.  IOzone's own single warm\n"
		 "pass is --cache warm --trials 1.\n",
	.opts = run_opts,
	.outro = "CSV columns: filesystem,test,file_size_kib,record_size_kib,trial,\n"
		 "throughput_kib_s,elapsed_s,cache_mode,status,flag.  status is ok, failed: WHY or\n"
		 "skipped: WHY; flag lists page-cache and/or fuse, separated by ';', and\n"
		 "redone-stopped when a SIGSTOP hit the timed test and it was run again.\n"
		 "SIGINT/SIGTERM stop after the test in flight; --resume continues.\n"
		 "Test files live in a private 0700 directory fslab makes in each PATH and removes.\n"
		 "Exit status: 0 all cells ok or skipped, 1 a cell failed, a filesystem vanished or\n"
		 "the run was interrupted, 2 bad usage.\n",
};

static int parse_range(const char *opt, const char *s, uint64_t *min, uint64_t *max)
{
	const char *why = NULL;

	if (fslab_size_range_parse(s, min, max, &why) < 0) {
		fslab_error("%s '%s': %s (e.g. 64K-2G)", opt, s, why ? why : "not a size range");
		return -EINVAL;
	}
	/* name the bound as typed: the sweep doubles, so each is a power of two */
	for (int i = 0; i < 2; i++) {
		uint64_t v = i ? *max : *min;
		const char *dash = strchr(s, '-');
		const char *text = i && dash ? dash + 1 : s;
		int len = !i && dash ? (int)(dash - s) : (int)strlen(text);

		const char *problem = fslab_sweep_size_problem(v);

		if (problem) {
			fslab_error("%s '%s': %.*s %s (e.g. %s)", opt, s, len, text, problem,
				    strcmp(opt, "--record-sizes") == 0 ? "4K-2M" : "64K-2G");
			return -EINVAL;
		}
	}
	return 0;
}

/* --dir NAME=PATH */
static int parse_dir(const char *arg, struct fslab_run_opts *o, struct fslab_run_dir *dirs)
{
	const char *eq = strchr(arg, '=');

	if (!eq || eq == arg || !eq[1] || (size_t)(eq - arg) >= FSLAB_FS_NAME_MAX) {
		char e[FSLAB_ESCAPE_SIZE(256)];
		fslab_error("--dir '%s': give NAME=PATH, e.g. --dir mydisk=/mnt/data",
			    fslab_escape_ctrl(arg, e, sizeof(e)));
		return -EINVAL;
	}
	if (o->n_dirs >= FSLAB_MAX_FS) {
		fslab_error("at most %d --dir options", FSLAB_MAX_FS);
		return -EINVAL;
	}
	snprintf(dirs[o->n_dirs].name, sizeof(dirs[o->n_dirs].name), "%.*s", (int)(eq - arg), arg);
	dirs[o->n_dirs].path = eq + 1;
	o->n_dirs++;
	return 0;
}

/* The options that choose words: sweep, tests, small records, cache, io,
 * sync.  0 or -EINVAL after a message. */
static int run_word_option(int c, const char *arg, struct fslab_run_opts *o)
{
	char bad[64], why[320];
	int mode;

	switch (c) {
	case OPT_SWEEP:
		if (fslab_preset_from_string(arg) != FSLAB_PRESET_INVALID)
			o->preset = arg;
		else
			o->sweep_file = arg;
		return 0;
	case 't':
		if (fslab_tests_parse(arg, &o->tests, bad, sizeof(bad)) < 0 || !o->tests) {
			fslab_error("--tests '%s': %s", arg, fslab_tests_problem(bad, why, sizeof(why)));
			return -EINVAL;
		}
		return 0;
	case OPT_SMALL_RECORDS:
		if (strcmp(arg, "skip") != 0 && strcmp(arg, "keep") != 0) {
			fslab_error("--small-records '%s': use skip (IOzone's default) or keep (iozone -z)",
				    arg);
			return -EINVAL;
		}
		o->keep_small_records_set = true;
		o->keep_small_records = strcmp(arg, "keep") == 0;
		return 0;
	case OPT_STOP:
		o->stop_rule = fslab_stop_rule_from_string(arg);
		if (o->stop_rule == FSLAB_STOP_RULE_INVALID) {
			fslab_error("--stop '%s': use decided (the default), ci (as --until-ci) or fixed (--trials N exactly)",
				    arg);
			return -EINVAL;
		}
		return 0;
	case OPT_CACHE:
		if (fslab_opt_cache_mode("--cache", arg, &mode) < 0)
			return -EINVAL;
		o->cache = (enum fslab_cache_mode)mode;
		return 0;
	case OPT_IO:
		o->io_mode = fslab_io_mode_from_string(arg);
		if (o->io_mode < 0) {
			fslab_error("--io '%s': use seek (IOzone's lseek + read/write) or positional (pread/pwrite)",
				    arg);
			return -EINVAL;
		}
		return 0;
	case OPT_STEADY:
		o->steady_mode = fslab_steady_mode_from_string(arg);
		if (o->steady_mode < 0) {
			fslab_error("--steady-state '%s': use auto (on for a lab on a real disk), on or off", arg);
			return -EINVAL;
		}
		return 0;
	case OPT_PROBE:
		if (strcmp(arg, "reuse") != 0 && strcmp(arg, "fresh") != 0) {
			fslab_error("--probe '%s': use reuse (a probe kept from the last hour, the default) or fresh", arg);
			return -EINVAL;
		}
		o->probe_fresh = strcmp(arg, "fresh") == 0;
		return 0;
	case OPT_SYNC:
		o->sync_policy = fslab_sync_policy_from_string(arg);
		if (o->sync_policy < 0) {
			fslab_error("--sync '%s': use fs (syncfs + fsync of the block device) or global (sync() twice, as IOzone)",
				    arg);
			return -EINVAL;
		}
		return 0;
	}
	return 0;
}

/* The options that take numbers and sizes.  0 or -EINVAL after a message. */
static int run_number_option(int c, const char *arg, struct fslab_run_opts *o)
{
	uint64_t v;

	switch (c) {
	case OPT_FILE_SIZES:
		return parse_range("--file-sizes", arg, &o->file_min, &o->file_max);
	case OPT_RECORD_SIZES:
		return parse_range("--record-sizes", arg, &o->record_min, &o->record_max);
	case OPT_TRIALS:
		if (fslab_opt_uint("--trials", arg, 1, FSLAB_TRIALS_MAX, &v) < 0)
			return -EINVAL;
		o->trials = (unsigned)v;
		return 0;
	case OPT_SEED:
		if (fslab_opt_uint("--seed", arg, 0, UINT64_MAX, &o->seed) < 0)
			return -EINVAL;
		o->seed_set = true;
		return 0;
	case OPT_UNTIL_CI:
		return fslab_opt_percent("--until-ci", arg, &o->until_ci_pct) < 0 ? -EINVAL : 0;
	case OPT_MAX_TRIALS:
		if (fslab_opt_uint("--max-trials", arg, 2, FSLAB_TRIALS_MAX, &v) < 0)
			return -EINVAL;
		o->max_trials = (unsigned)v;
		return 0;
	case OPT_STEADY_ROUND:
		/* its bounds are the run's settings' (bench/run_settings.c) */
		return fslab_opt_size("--steady-state-round", arg, &o->steady_round_bytes) < 0 ? -EINVAL : 0;
	case OPT_PROBE_SIZE:
		if (fslab_opt_size("--probe-size", arg, &o->probe_bytes) < 0)
			return -EINVAL;
		if (o->probe_bytes < (4u << 20)) {
			fslab_error("--probe-size '%s': give a size of at least 4M", arg);
			return -EINVAL;
		}
		return 0;
	}
	return run_word_option(c, arg, o);
}

/* One option into o.  0 or -EINVAL after a message. */
static int run_option(int c, const char *arg, struct fslab_run_opts *o, struct fslab_run_dir *dirs)
{
	switch (c) {
	case OPT_STATE:
		o->state_path = arg;
		return 0;
	case OPT_DIR:
		return parse_dir(arg, o, dirs);
	case 'o':
		o->out_dir = arg;
		return 0;
	case OPT_RESUME:
		o->resume_dir = arg;
		return 0;
	case OPT_QUIET:
		o->quiet = true;
		return 0;
	case OPT_NO_PROBE:
		o->no_device_probe = true;
		return 0;
	case OPT_ALLOW_CONCURRENT:
		o->allow_concurrent = true;
		return 0;
	case OPT_LATENCY:
		o->latency = true;
		return 0;
	case OPT_LABEL:
		o->label = arg;
		return 0;
	}
	return run_number_option(c, arg, o);
}

int cmd_run(int argc, char **argv)
{
	struct fslab_run_opts o;
	struct fslab_run_dir dirs[FSLAB_MAX_FS];
	struct fslab_opts it;
	int c;

	fslab_run_opts_init(&o);
	o.dirs = dirs;
	o.argc = argc;
	o.argv = argv;
	fslab_opts_begin(&it, &fslab_run_cmd, argc, argv);
	while ((c = fslab_opts_next(&it)) > 0)
		if (c != OPT_DRY_RUN && run_option(c, it.arg, &o, dirs) < 0)
			return FSLAB_EXIT_USAGE;
	if (c < 0)
		return it.status;
	if (fslab_opts_given(&it, OPT_DRY_RUN))
		return fslab_run_dry_run(&o);
	return fslab_run(&o);
}
