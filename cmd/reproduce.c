/* fslab reproduce: the 2023 experiment (shared/seed) from a blank disk to a
 * report and back to a clean disk, in one command:
 *
 *   setup (the 2023 layout) -> run warm (the `seed` sweep, as iozone -a ran
 *   it) -> [--honest: run cold, run direct, adaptive trials] -> report
 *   (with the 2023 claims section when --honest) -> teardown (unless --keep)
 *
 * Each stage is the library call behind its own command (fslab_setup,
 * fslab_run, fslab_report, fslab_teardown); this file only composes them,
 * keeps the pipeline's progress and ETA, and makes sure a failed or
 * interrupted stage still ends with teardown. */
#include "commands.h"
#include "fileutil.h"
#include "lab.h"
#include "log.h"
#include "progress.h"
#include "provision.h"
#include "report.h"
#include "run.h"
#include "size.h"
#include "spec.h"
#include "state.h"

#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#define REPRO_MAX_STAGES 6

struct reproduce_ctl {
	const char *device;
	const char *image;
	uint64_t image_size;
	const char *out;
	const char *state_path;
	const char *mount_root;
	uint64_t max_file;     /* 0: 2 GiB (the report's text) */
	bool max_file_set;
	bool honest;
	bool keep;
	bool yes;
	bool wipe;
	bool quiet;
	double until_ci_pct;   /* honest runs: adaptive trials */
	unsigned max_trials;
	int argc;
	char **argv;
	/* The lab, held exclusive from before setup until after teardown:
	 * no other fslab command can act on it in between. */
	struct fslab_lab *lab;
};

static volatile sig_atomic_t repro_interrupted;

static void repro_on_signal(int sig)
{
	(void)sig;
	repro_interrupted = 1;
}

static void usage(FILE *out)
{
	fputs("Usage: fslab reproduce (--device DISK | --image FILE [--size SIZE]) [--yes] [--wipe]\n"
	      "                       [--out DIR] [--max-file SIZE] [--honest [--until-ci PCT]\n"
	      "                       [--max-trials N]] [--keep] [--state FILE] [--mount-root DIR]\n"
	      "                       [--quiet]\n\n"
	      "The 2023 experiment in one command: setup with its layout (ext4, ext2, xfs, fat32,\n"
	      "btrfs; 20G each, in that order), the `seed` sweep in warm mode as `iozone -a` ran\n"
	      "it, the report, then teardown.  Results and report go to --out.\n\n"
	      "  --device DISK     a dedicated whole disk (everything on it is destroyed)\n"
	      "  --image FILE      a sparse image file on a loop device instead (created if missing)\n"
	      "  --size SIZE       size of a new image (default: what the layout needs, 100G+2M)\n"
	      "  --yes             do not ask before writing the disk\n"
	      "  --wipe            allow a disk that holds a partition table or filesystem\n"
	      "  --out DIR         results and report (default results/reproduce-<UTC time>/):\n"
	      "                    DIR/warm, [DIR/cold, DIR/direct,] DIR/report\n"
	      "  --max-file SIZE   largest file of the sweep (default 2G, the report's text;\n"
	      "                    1G is the command it printed, iozone -a -g 1G)\n"
	      "  --honest          add sweeps that measure the disk rather than the page cache:\n"
	      "                    cold and direct cache modes with adaptive trials, files larger\n"
	      "                    than RAM where the partitions allow; the report then states\n"
	      "                    which of the 2023 conclusions survive\n"
	      "  --until-ci PCT    honest sweeps: repeat each cell until its 95% confidence\n"
	      "                    interval is within PCT percent of the mean (default 5)\n"
	      "  --max-trials N    ... or N trials (default 5)\n"
	      "  --keep            leave the lab set up afterwards (fslab teardown removes it)\n"
	      "  --state FILE      state file (default $FSLAB_STATE or /var/lib/fslab/state.json)\n"
	      "  --mount-root DIR  where the filesystems are mounted (default /mnt/fslab)\n"
	      "  --quiet           no progress line\n"
	      "  -h, --help        this help\n\n"
	      "A failed or interrupted stage still ends with teardown (unless --keep); finished\n"
	      "results are kept.  docs/reproduce.md explains the experiment and how long it takes.\n"
	      "Exit status: 0 success, 1 a stage failed, 2 bad usage.\n",
	      out);
}

static void utc_stamp(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y%m%dT%H%M%SZ", &tm);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Reads what a finished run recorded: interrupted, and the slowest device
 * probe figure (KiB/s) over its filesystems (0 when not probed). */
static void repro_read_manifest(const char *dir, bool *interrupted, double *device_kib_s)
{
	char path[PATH_MAX];
	struct json_object *root, *v, *fss;

	*interrupted = false;
	*device_kib_s = 0;
	snprintf(path, sizeof(path), "%s/manifest.json", dir);
	root = json_object_from_file(path);
	if (!root)
		return;
	if (json_object_object_get_ex(root, "interrupted", &v))
		*interrupted = json_object_get_boolean(v);
	if (json_object_object_get_ex(root, "filesystems", &fss) &&
	    json_object_is_type(fss, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(fss); i++) {
			struct json_object *fs = json_object_array_get_idx(fss, i);
			double w = 0, r = 0;
			if (json_object_object_get_ex(fs, "device_write_kib_s", &v))
				w = json_object_get_double(v);
			if (json_object_object_get_ex(fs, "device_read_kib_s", &v))
				r = json_object_get_double(v);
			double slow = (w > 0 && r > 0) ? fmin(w, r) : fmax(w, r);
			if (slow > 0 && (*device_kib_s == 0 || slow < *device_kib_s))
				*device_kib_s = slow;
		}
	}
	json_object_put(root);
}

/* Adds "notes" (strings) to a run's manifest so the report shows them. */
static void repro_add_note(const char *dir, const char *note)
{
	char path[PATH_MAX];
	struct json_object *root, *notes;

	snprintf(path, sizeof(path), "%s/manifest.json", dir);
	root = json_object_from_file(path);
	if (!root)
		return;
	if (!json_object_object_get_ex(root, "notes", &notes)) {
		notes = json_object_new_array();
		json_object_object_add(root, "notes", notes);
	}
	json_object_array_add(notes, json_object_new_string(note));
	const char *text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
							  JSON_C_TO_STRING_NOSLASHESCAPE);
	if (fslab_write_file_atomic(path, text, strlen(text), 0644) < 0)
		fslab_warn("cannot add a note to %s", path);
	json_object_put(root);
}

/* The honest sweeps' largest file: beyond RAM when every partition has room
 * for it (plus 10%), else the largest power of two that fits, with the
 * reason in *why. */
static uint64_t repro_honest_max_file(const struct reproduce_ctl *c, const struct fslab_state *st,
				      char *why, size_t whylen)
{
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
	uint64_t ram = (pages > 0 && psize > 0) ? (uint64_t)pages * (uint64_t)psize : 0;
	uint64_t beyond = 64 * FSLAB_KiB, room = UINT64_MAX;
	char a[32], b[32];

	why[0] = '\0';
	if (c->max_file_set) {
		snprintf(why, whylen,
			 "honest sweeps use --max-file %s, as the warm one; files beyond RAM (%s) "
			 "were not asked for",
			 fslab_size_format(c->max_file, a, sizeof(a)),
			 fslab_size_human(ram, b, sizeof(b)));
		return c->max_file;
	}
	while (beyond <= ram)
		beyond <<= 1;
	for (size_t i = 0; i < st->n_partitions; i++) {
		struct statvfs sv;
		if (st->partitions[i].mountpoint[0] && statvfs(st->partitions[i].mountpoint, &sv) == 0) {
			uint64_t free_b = (uint64_t)sv.f_bavail * sv.f_frsize;
			if (free_b < room)
				room = free_b;
		}
	}
	if (room != UINT64_MAX && beyond + beyond / 10 <= room)
		return beyond;
	uint64_t fit = 64 * FSLAB_KiB;
	while (room != UINT64_MAX && (fit << 1) + (fit << 1) / 10 <= room)
		fit <<= 1;
	if (fit < c->max_file)
		fit = c->max_file;
	char free_h[32] = "unknown", fit_s[32];
	if (room != UINT64_MAX)
		fslab_size_human(room, free_h, sizeof(free_h));
	snprintf(why, whylen,
		 "files beyond RAM (%s, so %s files) do not fit the partitions (%s free on the "
		 "fullest); the honest sweeps stop at %s and rely on the cold and direct cache "
		 "modes to keep the page cache out",
		 fslab_size_human(ram, a, sizeof(a)), fslab_size_format(beyond, b, sizeof(b)), free_h,
		 fslab_size_format(fit, fit_s, sizeof(fit_s)));
	return fit;
}

struct repro_stage {
	const char *name;
	enum fslab_cache_mode cache;
	char dir[PATH_MAX + 16];
	uint64_t file_max;
};

/* Lower bound of an honest stage's duration: two trials of the plan's bytes
 * on every filesystem at the device's speed. */
static double repro_stage_seconds(const struct repro_stage *s, size_t n_fs, double device_kib_s)
{
	uint64_t bytes;

	if (fslab_run_sweep_bytes("seed", s->file_max, &bytes) < 0)
		return 0;
	return 2.0 * (double)bytes * (double)n_fs / 1024.0 / device_kib_s;
}

static int repro_run_stage(const struct reproduce_ctl *c, const struct repro_stage *s,
			   const char *label, double started, double remaining_after)
{
	struct fslab_run_opts o;
	struct fslab_run_pipeline pipe = {
		.elapsed_before_s = now_s() - started,
		.remaining_after_s = remaining_after,
	};

	fslab_run_opts_init(&o);
	o.state_path = c->state_path;
	o.lab = c->lab;
	o.out_dir = s->dir;
	o.preset = "seed";
	o.file_min = 64 * FSLAB_KiB; /* the seed preset's; file_max alone is not applied */
	o.file_max = s->file_max;
	o.cache = s->cache;
	o.quiet = c->quiet;
	o.stage = label;
	o.pipeline = &pipe;
	o.argc = c->argc;
	o.argv = c->argv;
	if (s->cache != FSLAB_CACHE_WARM) {
		o.until_ci_pct = c->until_ci_pct;
		o.max_trials = c->max_trials;
		o.trials = 2;
	} else {
		o.trials = 1;
	}
	return fslab_run(&o);
}

static int reproduce(struct reproduce_ctl *c)
{
	struct repro_stage stages[3];
	size_t n_stages = 0;
	char out[PATH_MAX], report_dir[PATH_MAX + 16], stamp[32], err[512], why[512] = "";
	struct fslab_state st;
	struct sigaction sa = { 0 }, old_int, old_term;
	int ret = FSLAB_EXIT_OK, r;
	bool lab_up = false;
	double started = now_s();
	unsigned total_steps, step = 0;
	char label[96];

	if (c->out) {
		snprintf(out, sizeof(out), "%s", c->out);
	} else {
		utc_stamp(stamp, sizeof(stamp));
		snprintf(out, sizeof(out), "results/reproduce-%s", stamp);
	}
	if (access(c->state_path, F_OK) == 0) {
		fslab_error("a lab is already set up (state file %s); reproduce sets up its own: "
			    "remove that one with fslab teardown --state %s, or give another --state",
			    c->state_path, c->state_path);
		return FSLAB_EXIT_FAILURE;
	}
	if (geteuid() != 0) {
		fslab_error("refused: fslab reproduce sets up a lab and must run as root; nothing was "
			    "created. Run it with sudo");
		return FSLAB_EXIT_FAILURE;
	}
	if (access(out, F_OK) == 0) {
		fslab_error("%s already exists; give a new --out directory (reproduce never "
			    "overwrites results)", out);
		return FSLAB_EXIT_USAGE;
	}
	r = fslab_mkdir_p(out, 0755);
	if (r < 0) {
		fslab_error("cannot create the output directory %s: %s", out, strerror(-r));
		return FSLAB_EXIT_FAILURE;
	}
	total_steps = 3 + (c->honest ? 2 : 0) + (c->keep ? 0 : 1);
	/* The lab is ours alone from here to the end (setup, runs, report,
	 * teardown), through the lab object: no teardown or second run can
	 * come in between the stages. */
	r = fslab_lab_open(c->state_path, FSLAB_LAB_EXCLUSIVE, FSLAB_LAB_NEW, "fslab reproduce",
			   &c->lab, err, sizeof(err));
	if (r < 0) {
		fslab_error("refused: %s", err);
		return FSLAB_EXIT_FAILURE;
	}

	sa.sa_handler = repro_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);

	/* 1. setup: the 2023 layout (the built-in spec). */
	snprintf(label, sizeof(label), "[%u/%u setup]", ++step, total_steps);
	if (!c->quiet)
		printf("%s the 2023 layout: ext4, ext2, xfs, fat32, btrfs, 20G each\n", label);
	struct fslab_setup_opts so = {
		.device = c->device,
		.image = c->image,
		.image_size = c->image_size,
		.spec = NULL,
		.spec_source = NULL,
		.mount_root = c->mount_root,
		.state_path = c->state_path,
		.wipe = c->wipe,
		.yes = c->yes,
		.lab = c->lab,
	};
	r = fslab_setup(&so);
	if (r != FSLAB_EXIT_OK) {
		/* There was no state file before (checked above): one now means
		 * setup wrote something, which teardown undoes. */
		ret = r;
		if (access(c->state_path, F_OK) == 0)
			lab_up = true;
		goto teardown;
	}
	lab_up = true;
	if (fslab_state_load(c->state_path, &st, err, sizeof(err)) < 0) {
		fslab_error("%s", err);
		ret = FSLAB_EXIT_FAILURE;
		goto teardown;
	}

	/* 2. the sweeps: warm as in 2023; with --honest, cold and direct. */
	stages[n_stages] = (struct repro_stage){ .name = "warm", .cache = FSLAB_CACHE_WARM,
						 .file_max = c->max_file };
	n_stages++;
	if (c->honest) {
		uint64_t honest_max = repro_honest_max_file(c, &st, why, sizeof(why));

		stages[n_stages++] = (struct repro_stage){ .name = "cold", .cache = FSLAB_CACHE_COLD,
							   .file_max = honest_max };
		stages[n_stages++] = (struct repro_stage){ .name = "direct",
							   .cache = FSLAB_CACHE_DIRECT,
							   .file_max = honest_max };
		if (why[0] && !c->quiet)
			printf("note: %s\n", why);
	}
	for (size_t i = 0; i < n_stages && !repro_interrupted; i++) {
		double device_kib_s = 0, remaining = 0;
		bool interrupted = false;

		snprintf(stages[i].dir, sizeof(stages[i].dir), "%s/%s", out, stages[i].name);
		/* After the warm run the device probe says how fast the disk is:
		 * the honest sweeps move their plan's bytes at about that speed,
		 * at least twice (adaptive trials start at 2). */
		if (i > 0) {
			repro_read_manifest(stages[0].dir, &interrupted, &device_kib_s);
			if (device_kib_s > 0) {
				for (size_t k = i + 1; k < n_stages; k++)
					remaining += repro_stage_seconds(&stages[k], st.n_partitions,
									 device_kib_s);
				if (i == 1 && !c->quiet) {
					char d[32];
					printf("estimate: the honest sweeps take at least %s at the slowest "
					       "probed device speed (%.0f MiB/s)\n",
					       fslab_progress_format_duration(
						       remaining + repro_stage_seconds(&stages[i], st.n_partitions,
										       device_kib_s),
						       d, sizeof(d)),
					       device_kib_s / 1024.0);
				}
			}
		}
		snprintf(label, sizeof(label), "[%u/%u run %s]", ++step, total_steps, stages[i].name);
		r = repro_run_stage(c, &stages[i], label, started, remaining);
		repro_read_manifest(stages[i].dir, &interrupted, &device_kib_s);
		if (i > 0 && why[0])
			repro_add_note(stages[i].dir, why);
		if (r != FSLAB_EXIT_OK) {
			ret = FSLAB_EXIT_FAILURE;
			if (interrupted || repro_interrupted || r == FSLAB_EXIT_USAGE) {
				repro_interrupted = 1;
				break;
			}
			fslab_warn("the %s sweep had failures (see the status column of its CSVs); going on",
				   stages[i].name);
		}
	}
	if (repro_interrupted) {
		fslab_error("interrupted: skipping the report; the finished cells are in %s", out);
		ret = FSLAB_EXIT_FAILURE;
		goto teardown;
	}

	/* 3. the report. */
	snprintf(label, sizeof(label), "[%u/%u report]", ++step, total_steps);
	if (!c->quiet)
		printf("%s\n", label);
	{
		struct fslab_report_opts ro;

		fslab_report_opts_init(&ro);
		for (size_t i = 0; i < n_stages; i++)
			ro.dirs[ro.n_dirs++] = stages[i].dir;
		snprintf(report_dir, sizeof(report_dir), "%s/report", out);
		ro.out = report_dir;
		ro.claims = c->honest;
		r = fslab_report(&ro);
		if (r != FSLAB_EXIT_OK)
			ret = FSLAB_EXIT_FAILURE;
		else if (!c->quiet)
			printf("report: %s/report.html\n", report_dir);
	}

teardown:
	if (lab_up && !c->keep) {
		snprintf(label, sizeof(label), "[%u/%u teardown]", total_steps, total_steps);
		if (!c->quiet)
			printf("%s\n", label);
		struct fslab_teardown_opts to = {
			.state_path = c->state_path, .yes = true, .lab = c->lab,
		};
		r = fslab_teardown(&to);
		if (r != FSLAB_EXIT_OK) {
			fslab_error("teardown failed; the lab is still set up: run fslab teardown --state %s",
				    c->state_path);
			ret = FSLAB_EXIT_FAILURE;
		}
	} else if (lab_up && !c->quiet) {
		printf("the lab stays set up (--keep); remove it with: fslab teardown --state %s\n",
		       c->state_path);
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	fslab_lab_close(c->lab);
	c->lab = NULL;
	if (!c->quiet) {
		char d[32];
		printf("reproduce %s after %s; results in %s\n",
		       ret == FSLAB_EXIT_OK ? "finished" : "ended with errors",
		       fslab_progress_format_duration(now_s() - started, d, sizeof(d)), out);
	}
	return ret;
}

enum {
	OPT_DEVICE = 256,
	OPT_IMAGE,
	OPT_SIZE,
	OPT_OUT,
	OPT_MAX_FILE,
	OPT_HONEST,
	OPT_UNTIL_CI,
	OPT_MAX_TRIALS,
	OPT_KEEP,
	OPT_STATE,
	OPT_MOUNT_ROOT,
	OPT_WIPE,
};

static int parse_size_opt(const char *opt, const char *val, uint64_t *out)
{
	const char *why = NULL;

	if (fslab_size_parse(val, out, &why) < 0) {
		fslab_error("%s '%s': %s", opt, val, why);
		return -EINVAL;
	}
	return 0;
}

int cmd_reproduce(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, OPT_DEVICE },
		{ "image", required_argument, NULL, OPT_IMAGE },
		{ "size", required_argument, NULL, OPT_SIZE },
		{ "out", required_argument, NULL, OPT_OUT },
		{ "max-file", required_argument, NULL, OPT_MAX_FILE },
		{ "honest", no_argument, NULL, OPT_HONEST },
		{ "until-ci", required_argument, NULL, OPT_UNTIL_CI },
		{ "max-trials", required_argument, NULL, OPT_MAX_TRIALS },
		{ "keep", no_argument, NULL, OPT_KEEP },
		{ "state", required_argument, NULL, OPT_STATE },
		{ "mount-root", required_argument, NULL, OPT_MOUNT_ROOT },
		{ "wipe", no_argument, NULL, OPT_WIPE },
		{ "yes", no_argument, NULL, 'y' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct reproduce_ctl c = {
		.max_file = 2 * FSLAB_GiB,
		.until_ci_pct = 5.0,
		.max_trials = 5,
		.argc = argc,
		.argv = argv,
	};
	bool until_ci_set = false, max_trials_set = false;
	int opt;

	while ((opt = getopt_long(argc, argv, "hyq", opts, NULL)) != -1) {
		char *end;
		switch (opt) {
		case OPT_DEVICE:
			c.device = optarg;
			break;
		case OPT_IMAGE:
			c.image = optarg;
			break;
		case OPT_SIZE:
			if (parse_size_opt("--size", optarg, &c.image_size) < 0)
				return FSLAB_EXIT_USAGE;
			break;
		case OPT_OUT:
			c.out = optarg;
			break;
		case OPT_MAX_FILE: {
			uint64_t v;
			if (parse_size_opt("--max-file", optarg, &v) < 0)
				return FSLAB_EXIT_USAGE;
			if (v & (v - 1) || v < 64 * FSLAB_KiB) {
				fslab_error("--max-file '%s': give a power of two from 64K up (e.g. 1G, 2G, 4M); "
					    "the sweep doubles file sizes from 64K", optarg);
				return FSLAB_EXIT_USAGE;
			}
			c.max_file = v;
			c.max_file_set = true;
			break;
		}
		case OPT_HONEST:
			c.honest = true;
			break;
		case OPT_UNTIL_CI:
			errno = 0;
			c.until_ci_pct = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(c.until_ci_pct > 0) || c.until_ci_pct > 100) {
				fslab_error("--until-ci '%s': give a percentage above 0 and up to 100, e.g. 5",
					    optarg);
				return FSLAB_EXIT_USAGE;
			}
			until_ci_set = true;
			break;
		case OPT_MAX_TRIALS: {
			errno = 0;
			unsigned long v = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-' || v < 2 ||
			    v > FSLAB_TRIALS_MAX) {
				fslab_error("--max-trials '%s': give a whole number from 2 to %d", optarg,
					    FSLAB_TRIALS_MAX);
				return FSLAB_EXIT_USAGE;
			}
			c.max_trials = (unsigned)v;
			max_trials_set = true;
			break;
		}
		case OPT_KEEP:
			c.keep = true;
			break;
		case OPT_STATE:
			c.state_path = optarg;
			break;
		case OPT_MOUNT_ROOT:
			c.mount_root = optarg;
			break;
		case OPT_WIPE:
			c.wipe = true;
			break;
		case 'y':
			c.yes = true;
			break;
		case 'q':
			c.quiet = true;
			break;
		case 'h':
			usage(stdout);
			return FSLAB_EXIT_OK;
		default:
			usage(stderr);
			return FSLAB_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fslab_error("unexpected argument '%s'; see fslab reproduce --help", argv[optind]);
		return FSLAB_EXIT_USAGE;
	}
	if (!c.device == !c.image) {
		fslab_error("give exactly one of --device DISK or --image FILE");
		return FSLAB_EXIT_USAGE;
	}
	if (c.image_size && !c.image) {
		fslab_error("--size applies to --image only (a disk has the size it has)");
		return FSLAB_EXIT_USAGE;
	}
	if ((until_ci_set || max_trials_set) && !c.honest) {
		fslab_error("--until-ci and --max-trials shape the honest sweeps: add --honest");
		return FSLAB_EXIT_USAGE;
	}
	if (!c.state_path)
		c.state_path = fslab_state_default_path();
	return reproduce(&c);
}
