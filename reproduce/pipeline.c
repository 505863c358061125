/* fslab reproduce: the pipeline
 *
 *   setup (the 2023 layout) -> run warm (the `seed` sweep, as iozone -a ran
 *   it) -> [--honest: run cold, run direct, adaptive trials] -> report
 *   (with the 2023 claims section when --honest) -> teardown (unless --keep)
 *
 * Each stage is the library call behind its own command (fslab_setup,
 * fslab_run, fslab_report, fslab_teardown); this file only composes them,
 * keeps the pipeline's progress, and makes sure a failed or interrupted
 * stage still ends with teardown. */
#include "clock.h"
#include "err.h"
#include "fileutil.h"
#include "log.h"
#include "progress.h"
#include "fslab/provision.h"
#include "fslab/report.h"
#include "fslab/reproduce.h"
#include "fslab/run.h"
#include "size.h"
#include "spec.h"
#include "state.h"
#include "stopsig.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t repro_interrupted;

static void repro_on_signal(int sig)
{
	(void)sig;
	repro_interrupted = 1;
}

/* Where the pipeline stands. */
struct repro_run {
	struct reproduce_ctl *c;
	char out[PATH_MAX];
	struct fslab_state st;
	struct repro_stage stages[3];
	size_t n_stages;
	char why[512];        /* why the honest sweeps' files are that large */
	double started;
	unsigned total_steps, step;
	char label[96];       /* "[2/5 run warm]": the stage on the progress line */
	bool lab_up;
	int ret;
};

static void repro_step(struct repro_run *p, const char *what)
{
	snprintf(p->label, sizeof(p->label), "[%u/%u %s]", ++p->step, p->total_steps, what);
}

/* The output directory's name: --out, or results/reproduce-<UTC time>. */
static void repro_out_dir(struct repro_run *p)
{
	char stamp[32];

	if (p->c->out)
		snprintf(p->out, sizeof(p->out), "%s", p->c->out);
	else
		snprintf(p->out, sizeof(p->out), "results/reproduce-%s",
			 fslab_utc_now("%Y%m%dT%H%M%SZ", stamp, sizeof(stamp)));
}

/* The output directory (new) and the lab (none at the state path yet,
 * then opened exclusive).  0, or the exit status after a message. */
static int repro_prepare(struct repro_run *p)
{
	struct reproduce_ctl *c = p->c;
	struct fslab_err err = FSLAB_ERR_INIT;
	int r;

	repro_out_dir(p);
	if (access(c->setup->state_path, F_OK) == 0)
		return fslab_fail(FSLAB_EXIT_FAILURE, "a lab is already set up (state file %s); reproduce sets up "
				  "its own: remove that one with fslab teardown --state %s, or give another --state",
				  c->setup->state_path, c->setup->state_path);
	if (geteuid() != 0)
		return fslab_fail(FSLAB_EXIT_FAILURE, "refused: fslab reproduce sets up a lab and must run as root; "
				  "nothing was created. Run it with sudo");
	if (access(p->out, F_OK) == 0)
		return fslab_fail(FSLAB_EXIT_USAGE, "%s already exists; give a new --out directory (reproduce never "
				  "overwrites results)", p->out);
	/* the default, results/reproduce-<time>: as fslab run's (lib/fileutil.h) */
	if (!c->out && fslab_default_results_trusted(false, &err) < 0)
		return fslab_fail(FSLAB_EXIT_FAILURE, "%s", err.msg);
	r = fslab_mkdir_p(p->out, 0755);
	if (r < 0)
		return fslab_fail(FSLAB_EXIT_FAILURE, "cannot create the output directory %s: %s", p->out,
				  strerror(-r));
	if (!c->out && fslab_default_results_trusted(true, &err) < 0)
		return fslab_fail(FSLAB_EXIT_FAILURE, "%s", err.msg);
	/* The lab is ours alone from here to the end (setup, runs, report,
	 * teardown), through the lab object: no teardown or second run can
	 * come in between the stages. */
	r = fslab_lab_open(c->setup->state_path, FSLAB_LAB_EXCLUSIVE, FSLAB_LAB_NEW, "fslab reproduce",
			   &c->setup->lab, &err);
	if (r < 0)
		return fslab_fail(FSLAB_EXIT_FAILURE, "refused: %s", fslab_err_msg(&err));
	return 0;
}

/* The layout setup makes, in words: --spec's, else 2023's (the built-in spec). */
#define REPRO_LAYOUT(c) (c)->setup->spec_source ? "the layout of " : "the 2023 layout: ext4, ext2, xfs, fat32, btrfs, 20G each", \
			(c)->setup->spec_source ? (c)->setup->spec_source : ""
/* 1. setup: REPRO_LAYOUT.  0 or the exit status. */
static int repro_setup(struct repro_run *p)
{
	struct reproduce_ctl *c = p->c;
	struct fslab_err err = FSLAB_ERR_INIT;
	int r;

	repro_step(p, "setup");
	if (!c->quiet)
		printf("%s %s%s\n", p->label, REPRO_LAYOUT(c));
	r = fslab_error_said(fslab_setup(c->setup, &err), &err);
	if (r != FSLAB_EXIT_OK) {
		/* There was no state file before (checked): one now means
		 * setup wrote something, which teardown undoes. */
		p->lab_up = access(c->setup->state_path, F_OK) == 0;
		return r;
	}
	p->lab_up = true;
	fslab_err_clear(&err);
	if (fslab_state_load(c->setup->state_path, &p->st, &err) < 0)
		return fslab_fail(FSLAB_EXIT_FAILURE, "%s", fslab_err_msg(&err));
	return 0;
}

/* 2. the sweeps to run: warm as in 2023; with --honest, cold and direct,
 * their files as large as room (free bytes on the fullest partition)
 * allows. */
static void repro_plan(struct repro_run *p, uint64_t room)
{
	struct reproduce_ctl *c = p->c;

	p->stages[p->n_stages++] = (struct repro_stage){ .name = "warm", .cache = FSLAB_CACHE_WARM,
							 .file_max = c->max_file };
	if (c->honest) {
		uint64_t honest_max = repro_honest_max_file(c, room, p->why, sizeof(p->why));

		p->stages[p->n_stages++] = (struct repro_stage){ .name = "cold", .cache = FSLAB_CACHE_COLD,
								 .file_max = honest_max };
		p->stages[p->n_stages++] = (struct repro_stage){ .name = "direct",
								 .cache = FSLAB_CACHE_DIRECT,
								 .file_max = honest_max };
		if (p->why[0] && !c->quiet)
			printf("note: %s\n", p->why);
	}
	for (size_t i = 0; i < p->n_stages; i++)
		snprintf(p->stages[i].dir, sizeof(p->stages[i].dir), "%s/%s", p->out, p->stages[i].name);
}

/* The report's and teardown's allowance. */
static double repro_tail_s(const struct repro_run *p)
{
	return REPRO_REPORT_S_PER_SWEEP * (double)p->n_stages + (p->c->keep ? 0 : REPRO_TEARDOWN_S);
}

/* Seconds of work after sweep i, lo..hi: the later sweeps by the run's
 * cost model, the report and teardown.  Before the warm run the device is
 * not probed yet (the nominal rate); after it, its slowest probed figure
 * (each run prints its own first estimate, measured on its lab). */
static void repro_remaining(const struct repro_run *p, size_t i, double *lo, double *hi)
{
	double device_kib_s = 0, l, h;
	bool interrupted;

	*lo = *hi = repro_tail_s(p);
	if (i > 0)
		repro_read_manifest(p->stages[0].dir, &interrupted, &device_kib_s);
	for (size_t k = i + 1; k < p->n_stages; k++)
		if (repro_stage_estimate(p->c, &p->stages[k], p->st.n_partitions, device_kib_s, &l, &h) == 0) {
			*lo += l;
			*hi += h;
		}
}

/* One sweep, in-process: fslab run on the lab this pipeline holds. */
static int repro_run_stage(const struct repro_run *p, const struct repro_stage *s, double after_lo,
			   double after_hi)
{
	const struct reproduce_ctl *c = p->c;
	struct fslab_run_pipeline pipe = {
		.elapsed_before_s = fslab_now() - p->started,
		.remaining_after_s = after_lo,
		.remaining_after_hi_s = after_hi,
	};
	struct fslab_run_opts o;
	struct fslab_target *targets;
	struct fslab_err err = FSLAB_ERR_INIT;
	size_t n;
	int r;

	/* the lab's partitions as the run's targets; the lab stays ours */
	if (fslab_lab_targets(c->setup->lab, NULL, 0, true, &targets, &n, &err) < 0)
		return fslab_fail(FSLAB_EXIT_FAILURE, "%s", fslab_err_msg(&err));
	repro_stage_opts(c, s, &o);
	o.targets = targets;
	o.n_targets = n;
	o.state_path = c->setup->state_path;
	o.out_dir = s->dir;
	o.stage = p->label;
	o.pipeline = &pipe;
	r = fslab_run(&o);
	free(targets);
	return r;
}

/* Runs the sweeps in order; a failed one is reported and the next runs,
 * an interrupted one stops the pipeline. */
static void repro_sweeps(struct repro_run *p)
{
	for (size_t i = 0; i < p->n_stages && !repro_interrupted; i++) {
		const struct repro_stage *s = &p->stages[i];
		double after_lo, after_hi, device_kib_s;
		bool interrupted = false;
		char what[32];
		int r;

		repro_remaining(p, i, &after_lo, &after_hi);
		snprintf(what, sizeof(what), "run %s", s->name);
		repro_step(p, what);
		r = repro_run_stage(p, s, after_lo, after_hi);
		repro_read_manifest(s->dir, &interrupted, &device_kib_s);
		if (i > 0 && p->why[0])
			repro_add_note(s->dir, p->why);
		if (r == FSLAB_EXIT_OK)
			continue;
		p->ret = FSLAB_EXIT_FAILURE;
		if (interrupted || repro_interrupted || r == FSLAB_EXIT_USAGE) {
			repro_interrupted = 1;
			break;
		}
		fslab_warn("the %s sweep had failures (see the status column of its CSVs); going on", s->name);
	}
}

/* 3. the report of every sweep (with the 2023 claims when --honest). */
static void repro_report(struct repro_run *p)
{
	struct fslab_report_opts ro;
	char report_dir[PATH_MAX + 16];

	repro_step(p, "report");
	if (!p->c->quiet)
		printf("%s\n", p->label);
	fslab_report_opts_init(&ro);
	for (size_t i = 0; i < p->n_stages; i++)
		ro.dirs[ro.n_dirs++] = p->stages[i].dir;
	snprintf(report_dir, sizeof(report_dir), "%s/report", p->out);
	ro.out = report_dir;
	ro.claims = p->c->honest;
	struct fslab_err re = FSLAB_ERR_INIT;
	if (fslab_report(&ro, &re) != FSLAB_EXIT_OK) {
		if (re.msg[0])
			fslab_error("%s", re.msg);
		p->ret = FSLAB_EXIT_FAILURE;
	}
	else if (!p->c->quiet)
		printf("report: %s/report.html\n", report_dir);
}

/* 4. teardown, unless --keep (or nothing was set up). */
static void repro_teardown(struct repro_run *p)
{
	struct reproduce_ctl *c = p->c;
	struct fslab_teardown_opts to = { .state_path = c->setup->state_path, .lab = c->setup->lab };
	struct fslab_err err = FSLAB_ERR_INIT;

	if (p->lab_up && c->keep) {
		if (!c->quiet)
			printf("the lab stays set up (--keep); remove it with: fslab teardown --state %s\n",
			       c->setup->state_path);
		return;
	}
	if (!p->lab_up)
		return;
	snprintf(p->label, sizeof(p->label), "[%u/%u teardown]", p->total_steps, p->total_steps);
	if (!c->quiet)
		printf("%s\n", p->label);
	if (fslab_error_said(fslab_teardown(&to, &err), &err) != FSLAB_EXIT_OK) {
		fslab_error("teardown failed; the lab is still set up: run fslab teardown --state %s",
			    c->setup->state_path);
		p->ret = FSLAB_EXIT_FAILURE;
	}
}

static int repro_stages(struct repro_run *p)
{
	struct fslab_stopsig saved;
	int r;

	fslab_stopsig_catch(&saved, repro_on_signal, NULL);
	r = repro_setup(p);
	if (r != 0) {
		p->ret = r;
	} else {
		repro_plan(p, repro_min_free(&p->st));
		repro_sweeps(p);
		if (repro_interrupted) {
			fslab_error("interrupted: skipping the report; the finished cells are in %s", p->out);
			p->ret = FSLAB_EXIT_FAILURE;
		} else {
			repro_report(p);
		}
	}
	repro_teardown(p);
	fslab_stopsig_restore(&saved);
	return p->ret;
}

/* --dry-run, one sweep's line: what it runs and what it should cost. */
static void repro_dry_stage(struct repro_run *p, const struct repro_stage *s, double *lo, double *hi)
{
	const struct reproduce_ctl *c = p->c;
	char what[32], f[32], d1[32], d2[32];
	double l, h;

	snprintf(what, sizeof(what), "run %s", s->name);
	repro_step(p, what);
	printf("%s the seed sweep, files 64K-%s, %s cache, ", p->label, fslab_size_format(s->file_max, f, sizeof(f)),
	       fslab_cache_mode_to_string(s->cache));
	if (s->cache == FSLAB_CACHE_WARM)
		printf("1 trial");
	else
		printf("2..%u trials (until each 95%% CI is within %g%%)", c->honest_given.v.max_trials, c->honest_given.v.until_ci_pct);
	printf(", on %zu filesystems; results in %s", p->st.n_partitions, s->dir);
	if (repro_stage_estimate(c, s, p->st.n_partitions, 0, &l, &h) < 0) {
		printf("; no estimate\n");
		return;
	}
	*lo += l;
	*hi += h;
	printf("; about %s", fslab_progress_format_duration(l, d1, sizeof(d1)));
	if (h > l)
		printf("..%s", fslab_progress_format_duration(h, d2, sizeof(d2)));
	printf("\n");
}

/* --dry-run: the whole plan (setup by its own --dry-run, each sweep with
 * its estimate, the report, teardown); nothing is created, written,
 * mounted or run.  Returns FSLAB_EXIT_*. */
static int repro_dry_run(struct repro_run *p)
{
	struct reproduce_ctl *c = p->c;
	struct fslab_setup_opts so = *c->setup;
	struct fslab_err err = FSLAB_ERR_INIT;
	const struct fslab_spec *spec = c->setup->spec;
	uint64_t room;
	double lo = 0, hi = 0, tail;
	char d1[32], d2[32];
	int ret = FSLAB_EXIT_OK;

	so.yes = true; /* nothing to confirm: it changes nothing */
	so.dry_run = true; /* and no lab: a dry run opens none */
	repro_out_dir(p);
	p->st.n_partitions = spec->n_fs; /* none mounted: the honest files go by RAM */
	printf("fslab reproduce --dry-run: the plan; nothing is created, written, mounted or run\n");
	if (access(c->setup->state_path, F_OK) == 0)
		printf("note: a lab is already set up (state file %s): reproduce would refuse; fslab teardown --state %s removes it\n",
		       c->setup->state_path, c->setup->state_path);
	if (access(p->out, F_OK) == 0)
		printf("note: %s already exists: reproduce would refuse; give a new --out\n", p->out);
	repro_step(p, "setup");
	printf("%s %s%s (fslab setup --dry-run):\n", p->label, REPRO_LAYOUT(c));
	fflush(stdout);
	if (fslab_error_said(fslab_setup(&so, &err), &err) != FSLAB_EXIT_OK)
		ret = FSLAB_EXIT_FAILURE;
	/* before mkfs: each partition's size less a twentieth for the
	 * filesystem's own metadata */
	room = UINT64_MAX;
	for (size_t i = 0; i < spec->n_fs; i++)
		if (spec->fs[i].size - spec->fs[i].size / 20 < room)
			room = spec->fs[i].size - spec->fs[i].size / 20;
	repro_plan(p, room);
	for (size_t i = 0; i < p->n_stages; i++)
		repro_dry_stage(p, &p->stages[i], &lo, &hi);
	repro_step(p, "report");
	printf("%s every sweep's statistics and plots%s: %s/report/report.html; about %s\n", p->label,
	       c->honest ? ", with which of the 2023 conclusions survive" : "", p->out,
	       fslab_progress_format_duration(REPRO_REPORT_S_PER_SWEEP * (double)p->n_stages, d1, sizeof(d1)));
	if (c->keep) {
		printf("(--keep: no teardown; the lab stays set up for fslab teardown --state %s)\n", c->setup->state_path);
	} else {
		snprintf(p->label, sizeof(p->label), "[%u/%u teardown]", p->total_steps, p->total_steps);
		printf("%s unmount, wipe the signatures and the table, detach the loop device, remove the state file; about %s\n",
		       p->label, fslab_progress_format_duration(REPRO_TEARDOWN_S, d1, sizeof(d1)));
	}
	tail = repro_tail_s(p);
	printf("time: about %s", fslab_progress_format_duration(lo + tail, d1, sizeof(d1)));
	if (hi > lo)
		printf("..%s", fslab_progress_format_duration(hi + tail, d2, sizeof(d2)));
	printf(" plus setup%s (the sweeps by fslab run's cost model at an assumed %.0f MiB/s, the warm sweep's files that fit in memory at the page cache's 2 GiB/s: --dry-run probes no device; each run measures its own prices and re-fits the estimate from the cells it measures)\n",
	       c->setup->device ? " and, on an SSD, each run's steady-state phase" : "", FSLAB_RUN_NOMINAL_KIB_S / 1024.0);
	return ret;
}

int repro_pipeline(struct reproduce_ctl *c)
{
	struct repro_run *p = calloc(1, sizeof(*p));
	char d[32];
	int ret;

	if (!p)
		return fslab_fail(FSLAB_EXIT_FAILURE, "out of memory");
	p->c = c;
	p->ret = FSLAB_EXIT_OK;
	p->started = fslab_now();
	p->total_steps = 3 + (c->honest ? 2 : 0) + (c->keep ? 0 : 1);
	if (c->dry_run) {
		ret = repro_dry_run(p);
		free(p);
		return ret;
	}
	ret = repro_prepare(p);
	if (ret == 0) {
		ret = repro_stages(p);
		fslab_lab_close(c->setup->lab);
		c->setup->lab = NULL;
		if (!c->quiet)
			printf("reproduce %s after %s; results in %s\n",
			       ret == FSLAB_EXIT_OK ? "finished" : "ended with errors",
			       fslab_progress_format_duration(fslab_now() - p->started, d, sizeof(d)), p->out);
	}
	free(p);
	return ret;
}
