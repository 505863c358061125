/* fslab run: parses options into struct fslab_run_opts; the engine is
 * bench/ (fslab_run). */
#include "commands.h"
#include "engine.h"
#include "log.h"
#include "names.h"
#include "run.h"
#include "size.h"
#include "spec.h"
#include "termtext.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
	fputs("Usage: fslab run [--state FILE | --dir NAME=PATH ...] [--out DIR]\n"
	      "                 [--sweep lab|quick|seed|FILE] [--tests LIST] [--file-sizes MIN-MAX]\n"
	      "                 [--record-sizes MIN-MAX] [--small-records skip|keep]\n"
	      "                 [--cache warm|fsync|direct|cold] [--trials N] [--seed N]\n"
	      "                 [--until-ci PCT [--max-trials N]] [--io seek|positional]\n"
	      "                 [--sync fs|global] [--latency] [--no-device-probe]\n"
	      "                 [--probe-size SIZE]\n"
	      "                 [--resume DIR] [--allow-concurrent] [--label NAME] [--quiet]\n"
	      "                 [--dry-run]\n\n"
	      "Sweeps every filesystem of the lab (or the given directories) with the 13 IOzone\n"
	      "tests and writes <out>/<fs>.csv per filesystem plus <out>/manifest.json.\n"
	      "With no sweep option it runs the lab preset: files 64K-64M, cold cache, at least\n"
	      "3 trials and more (up to 10) until each test's 95% confidence interval is within\n"
	      "5% of its mean.  IOzone's own single warm pass is --cache warm --trials 1.\n\n"
	      "Where:\n"
	      "  --state FILE        the lab's state file (default: $FSLAB_STATE or\n"
	      "                      /var/lib/fslab/state.json); every mounted filesystem in it\n"
	      "  --dir NAME=PATH     benchmark the directory PATH as NAME, without a lab\n"
	      "                      (repeatable; NAME names the CSV)\n"
	      "  -o, --out DIR       results directory (default: results/<UTC timestamp>/)\n"
	      "  --resume DIR        continue an interrupted run in DIR with its recorded settings:\n"
	      "                      finished cells are kept, the rest run; refused, with nothing\n"
	      "                      changed, when DIR's manifest or CSVs are not its own (run\n"
	      "                      id and identities in DIR/.fslab-run), DIR or its files\n"
	      "                      are another user's, or another run holds DIR\n"
	      "  --allow-concurrent  run beside other runs on the same lab that also give it\n"
	      "                      (their figures perturb each other); without it a second\n"
	      "                      run on a lab is refused, naming the running one's pid\n"
	      "  --label NAME        name the run (e.g. the host it runs on; letters, digits,\n"
	      "                      . _ -): recorded in the manifest, fslab report tags the\n"
	      "                      run with it (hostA/ext4)\n\n"
	      "Sweep (preset < the [sweep] section of --sweep FILE < these flags):\n"
	      "  --sweep lab         the default: files 64K-64M, records 4K-16M, all 13 tests,\n"
	      "                      records < 64K skipped for files > 16M, cold, 3 trials, and\n"
	      "                      (unless --cache or --trials is given) --until-ci 5\n"
	      "                      --max-trials 10\n"
	      "  --sweep seed        the 2023 experiment: files 64K-2G, 1 trial, warm\n"
	      "  --sweep quick       the seed sweep with files up to 64M (1 trial, warm)\n"
	      "  --sweep FILE        a spec file (fslab spec --print); its [sweep] applies\n"
	      "  -t, --tests LIST    all, or e.g. write,read,random_read\n"
	      "  --file-sizes R      e.g. 64K-1G, or one size; powers of two\n"
	      "  --record-sizes R    e.g. 4K-16M; never above the file size\n"
	      "  --small-records M   skip (IOzone's default: records < 64K on files > 16M)\n"
	      "                      or keep (iozone -z)\n"
	      "  --cache MODE        warm: buffered, nothing flushed (IOzone's default)\n"
	      "                      fsync: fsync and close inside the timer (iozone -e -c)\n"
	      "                      direct: O_DIRECT; stdio tests run buffered (flagged)\n"
	      "                      cold (the default): writers timed with their fsync\n"
	      "                      (iozone -e); the file's pages dropped before each first\n"
	      "                      read pass (reread/freread re-read what it cached)\n"
	      "  --trials N          repeat the whole plan N times (trial loop outside the\n"
	      "                      filesystem loop; filesystem order shuffled per trial)\n"
	      "  --seed N            seed of that shuffle (default 1)\n"
	      "  --until-ci PCT      repeat each file x record cell until the 95% confidence\n"
	      "                      interval (Student's t) of each test is within PCT percent\n"
	      "                      of its mean; --trials is then the minimum (at least 2)\n"
	      "  --max-trials N      ... or until N trials (default 10)\n"
	      "  --io MODE           seek: lseek + read/write per record in the positioned\n"
	      "                      tests, IOzone's calls (the default); positional: one\n"
	      "                      pread/pwrite per record (recorded in the manifest)\n"
	      "  --sync POLICY       before each cell, fs: syncfs + fsync of the lab's block\n"
	      "                      device (the default; --dir: syncfs only); global: sync()\n"
	      "                      twice, as IOzone\n"
	      "  --latency           per-cell p50/p99/max latency of one operation (a clock\n"
	      "                      read and a histogram bucket per operation) as three more\n"
	      "                      CSV columns: lat_p50_us, lat_p99_us, lat_max_us\n\n"
	      "Honesty:\n"
	      "  --no-device-probe   skip the O_DIRECT probe of each device; without it no cell\n"
	      "                      is flagged page-cache (faster than 1.5x the device)\n"
	      "  --probe-size SIZE   the probe's scratch file (default 64M, 1M records)\n\n"
	      "Output:\n"
	      "  --dry-run           print the plan and write nothing: filesystems, grid, cells,\n"
	      "                      trials, tests, bytes to move, each filesystem's free space\n"
	      "                      against its need (exit 1, before anything runs, when the\n"
	      "                      largest file does not fit) and a time estimate from a\n"
	      "                      device probe in a private directory it removes\n"
	      "  --quiet             no progress (a redrawn line on a terminal, else a line per\n"
	      "                      filesystem and trial)\n"
	      "  -h, --help          this help\n\n"
	      "CSV columns: filesystem,test,file_size_kib,record_size_kib,trial,\n"
	      "throughput_kib_s,elapsed_s,cache_mode,status,flag.  status is ok, failed: WHY or\n"
	      "skipped: WHY; flag lists page-cache and/or fuse, separated by ';', and\n"
	      "redone-stopped when a SIGSTOP hit the timed test and it was run again.\n"
	      "SIGINT/SIGTERM stop after the test in flight; --resume continues.\n"
	      "Test files live in a private 0700 directory fslab makes in each PATH and removes.\n"
	      "Exit status: 0 all cells ok or skipped, 1 a cell failed, a filesystem vanished or\n"
	      "the run was interrupted, 2 bad usage.\n",
	      out);
}

enum {
	OPT_STATE = 256,
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
	OPT_NO_PROBE,
	OPT_PROBE_SIZE,
	OPT_ALLOW_CONCURRENT,
	OPT_IO,
	OPT_SYNC,
	OPT_LATENCY,
	OPT_LABEL,
	OPT_DRY_RUN,
};

static int parse_uint(const char *opt, const char *s, unsigned long long max,
		      unsigned long long *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	if (!*s || *end || errno || *s == '-' || *v > max) {
		fslab_error("%s '%s': give a whole number from 0 to %llu", opt, s, max);
		return -EINVAL;
	}
	return 0;
}

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

		if (v & (v - 1)) {
			fslab_error("%s '%s': %.*s is not a power of two (the sweep doubles; e.g. %s)",
				    opt, s, len, text, strcmp(opt, "--record-sizes") == 0 ? "4K-2M" : "64K-2G");
			return -EINVAL;
		}
	}
	if (strcmp(opt, "--record-sizes") == 0 && *min < 4096) {
		fslab_error("%s '%s': the smallest record is 4K", opt, s);
		return -EINVAL;
	}
	return 0;
}

int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "state", required_argument, NULL, OPT_STATE },
		{ "dir", required_argument, NULL, OPT_DIR },
		{ "out", required_argument, NULL, 'o' }, /* short options as fslab report's */
		{ "sweep", required_argument, NULL, OPT_SWEEP },
		{ "tests", required_argument, NULL, 't' },
		{ "file-sizes", required_argument, NULL, OPT_FILE_SIZES },
		{ "record-sizes", required_argument, NULL, OPT_RECORD_SIZES },
		{ "small-records", required_argument, NULL, OPT_SMALL_RECORDS },
		{ "cache", required_argument, NULL, OPT_CACHE },
		{ "trials", required_argument, NULL, OPT_TRIALS },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "resume", required_argument, NULL, OPT_RESUME },
		{ "quiet", no_argument, NULL, OPT_QUIET },
		{ "until-ci", required_argument, NULL, OPT_UNTIL_CI },
		{ "max-trials", required_argument, NULL, OPT_MAX_TRIALS },
		{ "no-device-probe", no_argument, NULL, OPT_NO_PROBE },
		{ "probe-size", required_argument, NULL, OPT_PROBE_SIZE },
		{ "io", required_argument, NULL, OPT_IO },
		{ "sync", required_argument, NULL, OPT_SYNC },
		{ "latency", no_argument, NULL, OPT_LATENCY },
		{ "allow-concurrent", no_argument, NULL, OPT_ALLOW_CONCURRENT },
		{ "label", required_argument, NULL, OPT_LABEL },
		{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct fslab_run_opts o;
	struct fslab_run_dir dirs[FSLAB_MAX_FS];
	unsigned long long v;
	bool dry_run = false;
	int c, ret;

	fslab_run_opts_init(&o);
	o.dirs = dirs;
	o.argc = argc;
	o.argv = argv;
	opterr = 0; /* fslab_cli_bad_option says it, with a suggestion */
	while ((c = getopt_long(argc, argv, "o:t:h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_STATE:
			o.state_path = optarg;
			break;
		case OPT_DIR: {
			const char *eq = strchr(optarg, '=');
			if (!eq || eq == optarg || !eq[1] || (size_t)(eq - optarg) >= FSLAB_FS_NAME_MAX) {
				char e[FSLAB_ESCAPE_SIZE(256)];
				fslab_error("--dir '%s': give NAME=PATH, e.g. --dir mydisk=/mnt/data",
					    fslab_escape_ctrl(optarg, e, sizeof(e)));
				return FSLAB_EXIT_USAGE;
			}
			if (o.n_dirs >= FSLAB_MAX_FS) {
				fslab_error("at most %d --dir options", FSLAB_MAX_FS);
				return FSLAB_EXIT_USAGE;
			}
			snprintf(dirs[o.n_dirs].name, sizeof(dirs[o.n_dirs].name), "%.*s",
				 (int)(eq - optarg), optarg);
			dirs[o.n_dirs].path = eq + 1;
			o.n_dirs++;
			break;
		}
		case 'o':
			o.out_dir = optarg;
			break;
		case OPT_SWEEP:
			if (strcmp(optarg, "seed") == 0 || strcmp(optarg, "quick") == 0 ||
			    strcmp(optarg, FSLAB_PRESET_DEFAULT) == 0)
				o.preset = optarg;
			else
				o.sweep_file = optarg;
			break;
		case 't': {
			char bad[64] = "";
			if (fslab_tests_parse(optarg, &o.tests, bad, sizeof(bad)) < 0 || !o.tests) {
				fslab_error("--tests '%s': unknown test '%s' (known: all, write, rewrite, read, reread, random_read, random_write, backward_read, record_rewrite, stride_read, fwrite, frewrite, fread, freread)",
					    optarg, bad);
				return FSLAB_EXIT_USAGE;
			}
			break;
		}
		case OPT_FILE_SIZES:
			if (parse_range("--file-sizes", optarg, &o.file_min, &o.file_max) < 0)
				return FSLAB_EXIT_USAGE;
			break;
		case OPT_RECORD_SIZES:
			if (parse_range("--record-sizes", optarg, &o.record_min, &o.record_max) < 0)
				return FSLAB_EXIT_USAGE;
			break;
		case OPT_SMALL_RECORDS:
			if (strcmp(optarg, "skip") != 0 && strcmp(optarg, "keep") != 0) {
				fslab_error("--small-records '%s': use skip (IOzone's default) or keep (iozone -z)",
					    optarg);
				return FSLAB_EXIT_USAGE;
			}
			o.keep_small_records_set = true;
			o.keep_small_records = strcmp(optarg, "keep") == 0;
			break;
		case OPT_CACHE:
			o.cache = fslab_cache_mode_from_string(optarg);
			if (o.cache == FSLAB_CACHE_MODE_INVALID) {
				fslab_error("--cache '%s': use warm, fsync, direct or cold", optarg);
				return FSLAB_EXIT_USAGE;
			}
			break;
		case OPT_TRIALS:
			if (parse_uint("--trials", optarg, FSLAB_TRIALS_MAX, &v) < 0 || v == 0) {
				if (v == 0)
					fslab_error("--trials must be at least 1");
				return FSLAB_EXIT_USAGE;
			}
			o.trials = (unsigned)v;
			break;
		case OPT_SEED:
			if (parse_uint("--seed", optarg, UINT64_MAX, &v) < 0)
				return FSLAB_EXIT_USAGE;
			o.seed_set = true;
			o.seed = v;
			break;
		case OPT_RESUME:
			o.resume_dir = optarg;
			break;
		case OPT_QUIET:
			o.quiet = true;
			break;
		case OPT_UNTIL_CI: {
			char *end;
			errno = 0;
			o.until_ci_pct = strtod(optarg, &end);
			if (!*optarg || *end || errno || !(o.until_ci_pct > 0) || o.until_ci_pct > 100) {
				fslab_error("--until-ci '%s': give a percentage above 0 and at most 100, e.g. 5",
					    optarg);
				return FSLAB_EXIT_USAGE;
			}
			break;
		}
		case OPT_MAX_TRIALS:
			if (parse_uint("--max-trials", optarg, FSLAB_TRIALS_MAX, &v) < 0 || v < 2) {
				if (v < 2)
					fslab_error("--max-trials must be at least 2");
				return FSLAB_EXIT_USAGE;
			}
			o.max_trials = (unsigned)v;
			break;
		case OPT_NO_PROBE:
			o.no_device_probe = true;
			break;
		case OPT_ALLOW_CONCURRENT:
			o.allow_concurrent = true;
			break;
		case OPT_PROBE_SIZE: {
			const char *why = NULL;
			if (fslab_size_parse(optarg, &o.probe_bytes, &why) < 0 ||
			    o.probe_bytes < (4u << 20)) {
				fslab_error("--probe-size '%s': give a size of at least 4M", optarg);
				return FSLAB_EXIT_USAGE;
			}
			break;
		}
		case OPT_IO:
			o.io_mode = fslab_io_mode_from_string(optarg);
			if (o.io_mode < 0) {
				fslab_error("--io '%s': use seek (IOzone's lseek + read/write) or positional (pread/pwrite)",
					    optarg);
				return FSLAB_EXIT_USAGE;
			}
			break;
		case OPT_SYNC:
			o.sync_policy = fslab_sync_policy_from_string(optarg);
			if (o.sync_policy < 0) {
				fslab_error("--sync '%s': use fs (syncfs + fsync of the block device) or global (sync() twice, as IOzone)",
					    optarg);
				return FSLAB_EXIT_USAGE;
			}
			break;
		case OPT_LATENCY:
			o.latency = true;
			break;
		case OPT_LABEL:
			o.label = optarg;
			break;
		case OPT_DRY_RUN:
			dry_run = true;
			break;
		case 'h':
			usage(stdout);
			return FSLAB_EXIT_OK;
		default:
			fslab_cli_bad_option("run", opts, argv);
			return FSLAB_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fslab_error("unexpected argument '%s'", argv[optind]);
		usage(stderr);
		return FSLAB_EXIT_USAGE;
	}
	if (o.max_trials && o.until_ci_pct <= 0) {
		fslab_error("--max-trials goes with --until-ci PCT");
		return FSLAB_EXIT_USAGE;
	}
	if (dry_run)
		return fslab_run_dry_run(&o);
	ret = fslab_run(&o);
	return ret;
}
