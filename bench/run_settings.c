/* fslab run's settings: the sweep (preset < sweep file < options), its
 * checks, the trials and their stopping rule (--stop), the label; and what --resume
 * refuses (it continues with the recorded settings). */
#include "run_int.h"

#include "engine.h"

#include "log.h"
#include "size.h"
#include "steady.h"
#include "stop_rule.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int run_load_sweep_file(struct fslab_run_ctx *c, const char *path)
{
	char err[512], *text = NULL;
	size_t len;
	struct fslab_spec spec;
	int r;

	r = fslab_read_file(path, &text, &len, 1 << 20);
	if (r < 0) {
		fslab_error("--sweep %s: cannot read: %s", path, fslab_input_strerror(r));
		return r;
	}
	r = fslab_sweep_parse_string(text, path, &spec, err, sizeof(err));
	if (r < 0) {
		fslab_error("%s", err);
		free(text);
		return r;
	}
	fslab_sweep_merge(&c->sweep, &spec.sweep);
	c->spec_text = text;
	snprintf(c->spec_text_source, sizeof(c->spec_text_source), "%s", path);
	return 0;
}

/* The sweep: the preset, then a sweep file, then the options, each over
 * the one before. */
static int run_settings_sweep(struct fslab_run_ctx *c, const struct fslab_run_opts *o)
{
	const char *preset = o->preset ? o->preset : FSLAB_PRESET_DEFAULT;
	struct fslab_sweep_spec *s = &c->sweep;

	if (fslab_sweep_preset(preset, s) < 0) {
		fslab_error("--sweep '%s': not a preset (lab, quick, seed) and not a file", preset);
		return -EINVAL;
	}
	c->preset = strcmp(preset, "quick") == 0 ? "quick"
		    : strcmp(preset, FSLAB_PRESET_DEFAULT) == 0 ? FSLAB_PRESET_DEFAULT : "seed";
	if (o->sweep_file && run_load_sweep_file(c, o->sweep_file) < 0)
		return -EINVAL;
	if (o->tests)
		s->tests = o->tests;
	if (o->file_min) {
		s->file_min = o->file_min;
		s->file_max = o->file_max;
	}
	if (o->record_min) {
		s->record_min = o->record_min;
		s->record_max = o->record_max;
	}
	if (o->cache != FSLAB_CACHE_MODE_INVALID)
		s->cache = o->cache;
	if (o->trials)
		s->trials = o->trials;
	if (o->seed_set)
		s->seed = o->seed;
	if (o->keep_small_records_set)
		s->keep_small_records = o->keep_small_records;
	return 0;
}

/* "4K-32K", or "4K" for a range of one size. */
static char *run_size_range(uint64_t min, uint64_t max, char *buf, size_t len)
{
	char a[32], b[32];

	fslab_size_format(min, a, sizeof(a));
	if (min == max)
		snprintf(buf, len, "%s", a);
	else
		snprintf(buf, len, "%s-%s", a, fslab_size_format(max, b, sizeof(b)));
	return buf;
}

/* A grid whose every cell is a small record on a large file is emptied by
 * IOzone's auto-mode rule: the refusal names the rule and the option that
 * keeps those cells.  The plan itself decides (the same builder the run
 * uses), with and without the rule. */
static int run_check_small_records(const struct fslab_sweep_spec *s)
{
	struct fslab_sweep_spec keep = *s;
	struct fslab_plan plan;
	char recs[80], files[80], lim[32], file[32];
	int r;

	if (s->keep_small_records)
		return 0;
	r = fslab_plan_build(s, &plan);
	fslab_plan_free(&plan);
	if (r != -EINVAL)
		return 0; /* cells, or out of memory: the run's own build says so */
	keep.keep_small_records = true;
	r = fslab_plan_build(&keep, &plan);
	fslab_plan_free(&plan);
	if (r < 0)
		return 0;
	fslab_size_format(FSLAB_SMALL_RECORD_LIMIT, lim, sizeof(lim));
	fslab_size_format(FSLAB_SMALL_RECORD_FILE, file, sizeof(file));
	fslab_error("the sweep has no cell to run: IOzone's auto-mode rule skips records below %s on "
		    "files above %s, and that is every cell of records %s on files of %s; add "
		    "--small-records keep to run them (iozone -z), or give records of %s or more, "
		    "or files of %s or less",
		    lim, file, run_size_range(s->record_min, s->record_max, recs, sizeof(recs)),
		    run_size_range(s->file_min, s->file_max, files, sizeof(files)), lim, file);
	return -EINVAL;
}

/* The grid must have cells: sizes that double from a power of two, a
 * record no smaller than 4K and no larger than the largest file. */
static int run_check_grid(const struct fslab_sweep_spec *s)
{
	char a[32], b[32], x[32], y[32], z[32];
	const uint64_t sizes[] = { s->file_min, s->file_max, s->record_min, s->record_max };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		const char *problem = fslab_sweep_size_problem(sizes[i]);

		if (problem) {
			fslab_error("files %s-%s, records %s-%s: %s %s",
				    fslab_size_format(s->file_min, a, sizeof(a)),
				    fslab_size_format(s->file_max, b, sizeof(b)),
				    fslab_size_format(s->record_min, x, sizeof(x)),
				    fslab_size_format(s->record_max, y, sizeof(y)),
				    fslab_size_format(sizes[i], z, sizeof(z)), problem);
			return -EINVAL;
		}
	}
	if (s->record_min > s->file_max) {
		fslab_error("the smallest record (%s) is larger than the largest file (%s): no cell to run",
			    fslab_size_format(s->record_min, a, sizeof(a)),
			    fslab_size_format(s->file_max, b, sizeof(b)));
		return -EINVAL;
	}
	if (run_check_small_records(s) < 0)
		return -EINVAL;
	if (s->tests == 0) {
		fslab_error("no test selected");
		return -EINVAL;
	}
	if (s->trials < 1 || s->trials > FSLAB_TRIALS_MAX) {
		fslab_error("--trials must be 1 to %d", FSLAB_TRIALS_MAX);
		return -EINVAL;
	}
	return 0;
}

/* The stopping rule the options ask for: --stop, else ci with
 * --until-ci, else the lab preset's decided rule when neither the cache
 * mode nor the trials were chosen (flags or the sweep file: `--cache warm
 * --trials 1` is the old single warm pass) or when only --max-trials was,
 * else fixed. */
static enum fslab_stop_rule run_pick_stop_rule(const struct fslab_run_ctx *c,
					       const struct fslab_run_opts *o)
{
	if (o->stop_rule != FSLAB_STOP_RULE_INVALID)
		return (enum fslab_stop_rule)o->stop_rule;
	if (o->until_ci_pct > 0)
		return FSLAB_STOP_RULE_CI;
	if (o->max_trials)
		return FSLAB_STOP_RULE_DECIDED;
	if (strcmp(c->preset, FSLAB_PRESET_DEFAULT) == 0 && !o->trials &&
	    o->cache == FSLAB_CACHE_MODE_INVALID &&
	    !(c->sweep.set & (FSLAB_SWEEP_SET_TRIALS | FSLAB_SWEEP_SET_CACHE)))
		return FSLAB_STOP_RULE_DECIDED;
	return FSLAB_STOP_RULE_FIXED;
}

/* How many trials: fixed, or the minimum..maximum of --stop decided or
 * --until-ci. */
static int run_settings_trials(struct fslab_run_ctx *c, const struct fslab_run_opts *o)
{
	struct fslab_sweep_spec *s = &c->sweep;

	c->stop_rule = run_pick_stop_rule(c, o);
	c->until_ci_pct = o->until_ci_pct;
	if (c->until_ci_pct < 0 || c->until_ci_pct > 100) {
		fslab_error("--until-ci %g: give a percentage above 0 and at most 100", c->until_ci_pct);
		return -EINVAL;
	}
	if (c->until_ci_pct > 0 && c->stop_rule != FSLAB_STOP_RULE_CI) {
		fslab_error("--until-ci goes with --stop ci (or no --stop), not --stop %s",
			    fslab_stop_rule_to_string(c->stop_rule));
		return -EINVAL;
	}
	if (c->stop_rule == FSLAB_STOP_RULE_FIXED) {
		if (o->max_trials) {
			fslab_error("--max-trials goes with --stop decided or --until-ci PCT; --stop fixed runs --trials N trials");
			return -EINVAL;
		}
		c->max_trials = s->trials;
		return 0;
	}
	if (c->stop_rule == FSLAB_STOP_RULE_CI && c->until_ci_pct <= 0)
		c->until_ci_pct = FSLAB_DEFAULT_UNTIL_CI_PCT;
	if (c->stop_rule == FSLAB_STOP_RULE_DECIDED && !o->trials && s->trials < FSLAB_DEFAULT_MIN_TRIALS)
		s->trials = FSLAB_DEFAULT_MIN_TRIALS; /* a preset's 1 trial: the rule's minimum */
	if (s->trials < 2) {
		if (c->stop_rule == FSLAB_STOP_RULE_DECIDED) {
			fslab_error("--stop decided compares trials: give --trials 2 or more (the minimum before the first look)");
			return -EINVAL;
		}
		s->trials = 2; /* a confidence interval needs two samples */
	}
	c->max_trials = o->max_trials ? o->max_trials : FSLAB_DEFAULT_MAX_TRIALS;
	if (c->max_trials < s->trials || c->max_trials > FSLAB_TRIALS_MAX) {
		fslab_error("--max-trials %u: give at least the minimum number of trials (%u) and at most %d",
			    c->max_trials, s->trials, FSLAB_TRIALS_MAX);
		return -EINVAL;
	}
	return 0;
}

/* --label: a name for the host in reports. */
static int run_settings_label(struct fslab_run_ctx *c, const char *label)
{
	size_t n = strlen(label);

	if (n == 0 || n >= sizeof(c->label) ||
	    strspn(label, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") != n ||
	    label[0] == '-') {
		fslab_error("--label '%s': give 1 to %zu letters, digits, '.', '_' or '-', not starting with '-' (e.g. the host's name)",
			    label, sizeof(c->label) - 1);
		return -EINVAL;
	}
	snprintf(c->label, sizeof(c->label), "%s", label);
	return 0;
}

int run_settings(struct fslab_run_ctx *c, const struct fslab_run_opts *o)
{
	if (run_settings_sweep(c, o) < 0 || run_check_grid(&c->sweep) < 0 || run_settings_trials(c, o) < 0)
		return -EINVAL;
	c->io_mode = o->io_mode < 0 ? FSLAB_IO_SEEK : o->io_mode;
	c->sync_policy = o->sync_policy < 0 ? FSLAB_SYNC_FS : o->sync_policy;
	c->latency = o->latency;
	if (o->label && run_settings_label(c, o->label) < 0)
		return -EINVAL;
	c->no_device_probe = o->no_device_probe;
	c->probe_bytes = o->probe_bytes;
	c->probe_fresh = o->probe_fresh;
	c->steady_mode = o->steady_mode >= 0 ? o->steady_mode : FSLAB_STEADY_AUTO;
	c->steady_round_bytes = o->steady_round_bytes ? o->steady_round_bytes : FSLAB_STEADY_ROUND_DEFAULT;
	if (c->steady_round_bytes < FSLAB_STEADY_ROUND_MIN || c->steady_round_bytes % (1u << 20)) {
		char b[32];

		fslab_error("--steady-state-round %s: give whole MiB, at least 1M (e.g. 256M)",
			    fslab_size_format(c->steady_round_bytes, b, sizeof(b)));
		return -EINVAL;
	}
	return 0;
}

int run_check_resume_opts(const struct fslab_run_opts *o)
{
	if (o->tests || o->file_min || o->record_min || o->cache != FSLAB_CACHE_MODE_INVALID ||
	    o->trials || o->seed_set || o->keep_small_records_set || o->sweep_file || o->n_dirs ||
	    o->until_ci_pct > 0 || o->max_trials || o->stop_rule != FSLAB_STOP_RULE_INVALID || o->out_dir ||
	    o->io_mode >= 0 || o->sync_policy >= 0 || o->latency || o->preset || o->label ||
	    o->steady_mode >= 0 || o->steady_round_bytes) {
		fslab_error("--resume continues with the settings recorded in that run's manifest; drop the setting options (the sweep, --dir, --out, --label, --stop, --until-ci, --io, --sync, --latency, --steady-state, --steady-state-round)");
		return -EINVAL;
	}
	return 0;
}
