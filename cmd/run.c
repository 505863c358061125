/* fslab run: parses options into struct fslab_run_opts and makes the
 * run's targets (lib/target.h): the --dir directories, or the lab's
 * mounted partitions (include/fslab/provision.h), the lab held as a run holds it
 * until the run ends; the engine is bench/ (fslab_run).  The setting
 * options are the rows of the settings table (lib/settings.h): their
 * getopt entries, --help lines, synopsis and checks come from it; only
 * where to run and how to talk are this file's. */
#include "commands.h"
#include "fslab/provision.h"
#include "log.h"
#include "opts.h"
#include "fslab/run.h"
#include "settings.h"
#include "spec.h"
#include "termtext.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* OPT_SETTING + id: the settings table's row id */
enum { OPT_STATE = FSLAB_OPT_ID, OPT_DIR, OPT_RESUME, OPT_ALLOW_CONCURRENT, OPT_QUIET, OPT_DRY_RUN, OPT_SETTING };

#define LAB_GROUP 1 /* a lab (--state) or directories (--dir), not both */

/* The options that are not settings: where the run goes, and its output. */
static const struct fslab_opt run_where[] = {
	FSLAB_OPT_HEADING("Where:"),
	{ "state", OPT_STATE, 0, "FILE",
	  "the lab's state file (default: $FSLAB_STATE or /var/lib/fslab/state.json); every "
	  "mounted filesystem in it", LAB_GROUP },
	{ "dir", OPT_DIR, 0, "NAME=PATH",
	  "benchmark the directory PATH as NAME, without a lab (repeatable; NAME names the CSV)",
	  LAB_GROUP },
	/* short options as fslab report's */
	{ "out", 'o', 'o', "DIR", "results directory (default: results/<UTC timestamp>/)", 0 },
	{ "resume", OPT_RESUME, 0, "DIR",
	  "continue an interrupted run in DIR with its recorded settings: finished cells are "
	  "kept, the rest run; refused, with nothing changed, when DIR's manifest or CSVs are not "
	  "its own (run id and identities in DIR/.fslab-run), DIR or its files are another "
	  "user's, or another run holds DIR, or a setting option is given (each is recorded), or a "
	  "--state other than the recorded lab's", 0 },
	{ "allow-concurrent", OPT_ALLOW_CONCURRENT, 0, NULL,
	  "run beside other runs on the same lab that also give it (their figures perturb each "
	  "other); without it a second run on a lab is refused, naming the running one's pid", 0 },
};

static const struct fslab_opt run_output[] = {
	{ "dry-run", OPT_DRY_RUN, 0, NULL,
	  "print the plan and write nothing: filesystems, grid, cells, trials, tests, bytes to "
	  "move, each filesystem's free space against its need (exit 1, before anything runs, "
	  "when the largest file does not fit) and a time estimate from a device probe in a "
	  "private directory it removes", 0 },
	{ "quiet", OPT_QUIET, 0, NULL,
	  "no progress (a redrawn line on a terminal, else a line per filesystem and trial)", 0 },
};

#define N_LOCAL (sizeof(run_where) / sizeof(run_where[0]) + sizeof(run_output) / sizeof(run_output[0]))

/* Built once from the two lists above and the settings table. */
static struct fslab_opt run_opts[N_LOCAL + 2 * FSLAB_SETTING_MAX + 1];
static char run_help[FSLAB_SETTING_MAX][1400];
static char run_synopsis[1400];

static const struct fslab_cmd_opts fslab_run_cmd = {
	.name = "run",
	.synopsis = run_synopsis,
	.intro = "Sweeps every filesystem of the lab (or the given directories) with the 13 IOzone\n"
		 "tests and writes <out>/<fs>.csv per filesystem plus <out>/manifest.json.\n"
		 "With no sweep option it runs the lab preset: files 64K-2G (capped to fit) on\n"
		 "coarse records (see --sweep; --file-sizes: every record), cold cache, at least\n"
		 FSLAB_DEFAULT_MIN_TRIALS_TEXT " trials, and more of each test while a comparison between the\n"
		 "filesystems is not decided yet and still can be (up to 8), or while its band\n"
		 "of file sizes is resolved only beyond 10% (up to " FSLAB_DEFAULT_MAX_TRIALS_TEXT
		 ", within 45 minutes).\n"
		 "IOzone's own single warm pass is --cache warm --trials 1.\n",
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

/* Appends " [--flag VALUE]" to the synopsis, wrapping at 79 columns. */
static void synopsis_add(size_t *off, size_t *col, const char *item)
{
	size_t n = strlen(item) + 1;

	if (*col + n > 79) {
		*off += (size_t)snprintf(run_synopsis + *off, sizeof(run_synopsis) - *off,
					 "\n                ");
		*col = 16;
	}
	*off += (size_t)snprintf(run_synopsis + *off, sizeof(run_synopsis) - *off, " %s", item);
	*col += n;
	if (*off >= sizeof(run_synopsis))
		*off = sizeof(run_synopsis) - 1;
}

/* The setting row id as an option: its help with its bounds, and its
 * synopsis item ("[--cache warm|fsync|direct|cold]"). */
static void build_setting(enum fslab_setting id, size_t *n, size_t *off, size_t *col)
{
	const struct fslab_setting_row *r = fslab_setting_row(id);
	char bounds[96], words[128], item[192];

	if (!r->flag)
		return;
	if (r->heading)
		run_opts[(*n)++] = (struct fslab_opt)FSLAB_OPT_HEADING(r->heading);
	fslab_setting_bounds(id, bounds, sizeof(bounds));
	snprintf(run_help[id], sizeof(run_help[id]), "%s%s%s", r->help, *bounds ? "; " : "", bounds);
	run_opts[(*n)++] = (struct fslab_opt){ r->flag, OPT_SETTING + (int)id, r->short_name, r->arg,
					       run_help[id], 0 };
	if (r->type == FSLAB_STYPE_ENUM)
		snprintf(item, sizeof(item), "[--%s %s%s]", r->flag,
			 fslab_setting_words(id, "|", words, sizeof(words)),
			 id == FSLAB_SETTING_PRESET ? "|FILE" : "");
	else
		snprintf(item, sizeof(item), "[--%s%s%s]", r->flag, r->arg ? " " : "",
			 r->arg ? r->arg : "");
	synopsis_add(off, col, item);
}

static void build_run_cmd(void)
{
	size_t n = 0, off, col;

	if (run_opts[0].help)
		return;
	off = (size_t)snprintf(run_synopsis, sizeof(run_synopsis),
			       "Usage: fslab run [--state FILE | --dir NAME=PATH ...] [--out DIR]");
	col = off;
	for (size_t i = 0; i < sizeof(run_where) / sizeof(run_where[0]); i++)
		run_opts[n++] = run_where[i];
	for (size_t i = 0; i < FSLAB_SETTING_MAX; i++)
		build_setting(fslab_settings_help_order[i], &n, &off, &col);
	for (size_t i = 0; i < sizeof(run_output) / sizeof(run_output[0]); i++)
		run_opts[n++] = run_output[i];
	synopsis_add(&off, &col, "[--resume DIR]");
	synopsis_add(&off, &col, "[--allow-concurrent]");
	synopsis_add(&off, &col, "[--quiet]");
	synopsis_add(&off, &col, "[--dry-run]");
	run_opts[n] = (struct fslab_opt){ 0 };
}

/* What the run runs on: the targets, and the lab they come from (NULL for
 * directories). */
struct run_targets {
	struct fslab_target *targets; /* malloc'd: FSLAB_MAX_FS for --dir, or the lab's */
	size_t n;                     /* of them in use */
	struct fslab_lab *lab;
	bool allow_concurrent;
	bool dry; /* --dry-run: the lab is read, nothing remounted */
	char state_path[PATH_MAX];
};

/* --dir NAME=PATH */
static int parse_dir(const char *arg, struct run_targets *w)
{
	const char *eq = strchr(arg, '=');

	if (!eq || eq == arg || !eq[1] || (size_t)(eq - arg) >= FSLAB_FS_NAME_MAX) {
		char e[FSLAB_ESCAPE_SIZE(256)];
		fslab_error("--dir '%s': give NAME=PATH, e.g. --dir mydisk=/mnt/data",
			    fslab_escape_ctrl(arg, e, sizeof(e)));
		return -EINVAL;
	}
	if (w->n >= FSLAB_MAX_FS)
		return fslab_fail(-EINVAL, "at most %d --dir options", FSLAB_MAX_FS);
	if (strlen(eq + 1) >= sizeof(w->targets[0].path))
		return fslab_fail(-EINVAL, "--dir %.*s: the path is too long", (int)(eq - arg), arg);
	snprintf(w->targets[w->n].name, sizeof(w->targets[0].name), "%.*s", (int)(eq - arg), arg);
	snprintf(w->targets[w->n].path, sizeof(w->targets[0].path), "%s", eq + 1);
	w->targets[w->n].discarded = -1;
	w->n++;
	return 0;
}

/* A setting's value into o->given, checked by its row; --sweep is a
 * preset's word or else a sweep file.  0 or -EINVAL after a message. */
static int run_setting(enum fslab_setting id, const char *arg, struct fslab_run_opts *o)
{
	struct fslab_err e;
	char origin[64];

	if (id == FSLAB_SETTING_PRESET && fslab_setting_word_index(id, arg) < 0) {
		o->sweep_file = arg;
		return 0;
	}
	snprintf(origin, sizeof(origin), "--%s", fslab_setting_row(id)->flag);
	if (fslab_setting_parse(&o->given, id, arg, origin, &e) < 0)
		return fslab_fail(-EINVAL, "%s", e.msg);
	return 0;
}

/* One option into o.  0 or -EINVAL after a message. */
static int run_option(int c, const char *arg, struct fslab_run_opts *o, struct run_targets *w)
{
	switch (c) {
	case OPT_STATE:
		o->state_path = arg;
		return 0;
	case OPT_DIR:
		return parse_dir(arg, w);
	case 'o':
		o->out_dir = arg;
		return 0;
	case OPT_RESUME:
		o->resume_dir = arg;
		return 0;
	case OPT_QUIET:
		o->quiet = true;
		return 0;
	case OPT_ALLOW_CONCURRENT:
		w->allow_concurrent = true;
		return 0;
	case OPT_DRY_RUN:
		w->dry = true;
		return 0;
	}
	if (c >= OPT_SETTING && c < OPT_SETTING + FSLAB_SETTING_MAX)
		return run_setting((enum fslab_setting)(c - OPT_SETTING), arg, o);
	return 0;
}

/* The lab of state_path (the default when NULL), opened as a run holds it
 * (its lock shared, so setup and teardown cannot run under us; its run
 * lease alone unless --allow-concurrent), and its mounted partitions as
 * targets (only: n_only names; 0: all).  Returns an exit status. */
static int run_lab_targets(struct run_targets *w, const char *state_path, const char *const *only,
			   size_t n_only)
{
	struct fslab_target *t = NULL;
	struct fslab_err err = FSLAB_ERR_INIT;
	size_t n = 0;
	int r;

	snprintf(w->state_path, sizeof(w->state_path), "%s", state_path ? state_path : fslab_state_default_path());
	r = fslab_lab_open(w->state_path, w->allow_concurrent ? FSLAB_LAB_RUN_CONCURRENT : FSLAB_LAB_RUN, 0,
			   "fslab run", &w->lab, &err);
	if (r == -ENOENT)
		return fslab_fail(FSLAB_EXIT_FAILURE, "no lab at %s: run 'fslab setup' first, or benchmark directories with --dir NAME=PATH",
				  w->state_path);
	if (r == 0)
		r = fslab_lab_targets(w->lab, only, n_only, !w->dry, &t, &n, &err);
	if (r < 0)
		return fslab_fail(FSLAB_EXIT_FAILURE, "%s", fslab_err_msg(&err));
	free(w->targets);
	w->targets = t;
	w->n = n;
	return FSLAB_EXIT_OK;
}

/* --resume: the targets of the run's own filesystems (its manifest names
 * them, and its lab when it ran on one).  Returns an exit status. */
static int run_resume_targets(struct run_targets *w, const char *resume_dir,
			      const char *given_state)
{
	const char *names[FSLAB_MAX_FS];
	struct fslab_target *t;
	char state_path[PATH_MAX], given[PATH_MAX], recorded[PATH_MAX];
	size_t n;
	int r = fslab_run_resume_where(resume_dir, state_path, sizeof(state_path), &t, &n);

	if (r != FSLAB_EXIT_OK)
		return r;
	free(w->targets);
	w->targets = t;
	w->n = n;
	/* the run continues on the lab its manifest names: a --state that
	 * names another (or a run made with --dir) would be ignored, so it
	 * is refused instead */
	if (given_state && (!state_path[0] || !realpath(given_state, given) ||
			    strcmp(given, realpath(state_path, recorded) ? recorded : state_path) != 0)) {
		if (state_path[0])
			fslab_error("--resume continues on the lab of the state its manifest names (%s), not %s; drop --state",
				    state_path, given_state);
		else
			fslab_error("--resume continues a run made with --dir, which used no lab state; drop --state %s",
				    given_state);
		return FSLAB_EXIT_USAGE;
	}
	if (!state_path[0])
		return FSLAB_EXIT_OK;
	for (size_t i = 0; i < n; i++)
		names[i] = w->targets[i].name;
	return run_lab_targets(w, state_path, names, n);
}

/* Where the run runs: --resume's filesystems, the --dir directories or
 * the lab's.  Returns an exit status. */
static int run_pick(struct fslab_run_opts *o, struct run_targets *w)
{
	if (o->resume_dir) {
		if (w->n)
			return fslab_fail(FSLAB_EXIT_USAGE, "--resume continues on the filesystems recorded in that run's manifest; drop --dir");
		return run_resume_targets(w, o->resume_dir, o->state_path);
	}
	/* --dir's directories, or the lab's (LAB_GROUP: never both) */
	return w->n ? FSLAB_EXIT_OK : run_lab_targets(w, o->state_path, NULL, 0);
}

int cmd_run(int argc, char **argv)
{
	struct fslab_run_opts o;
	struct run_targets w = { 0 };
	struct fslab_opts it;
	int c, ret;

	build_run_cmd();
	fslab_run_opts_init(&o);
	o.argc = argc;
	o.argv = argv;
	w.targets = calloc(FSLAB_MAX_FS, sizeof(*w.targets));
	if (!w.targets)
		return fslab_fail(FSLAB_EXIT_FAILURE, "out of memory");
	fslab_opts_begin(&it, &fslab_run_cmd, argc, argv);
	while ((c = fslab_opts_next(&it)) > 0 && run_option(c, it.arg, &o, &w) == 0)
		;
	if (c != 0) { /* stopped by fslab_opts_next (-1), or a bad value (said) */
		free(w.targets);
		return c < 0 ? it.status : FSLAB_EXIT_USAGE;
	}
	/* the options first, the machine second: a bad option gets its own
	 * message whether or not there is a lab */
	ret = fslab_run_opts_check(&o, w.dry);
	if (ret == FSLAB_EXIT_OK)
		ret = run_pick(&o, &w);
	if (ret == FSLAB_EXIT_OK) {
		o.targets = w.targets;
		o.n_targets = w.n;
		if (w.lab)
			o.state_path = w.state_path;
		ret = w.dry ? fslab_run_dry_run(&o) : fslab_run(&o);
	}
	fslab_lab_close(w.lab);
	free(w.targets);
	return ret;
}
