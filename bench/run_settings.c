/* fslab run's settings: the sweep (preset < sweep file < options), its
 * checks, the trials and their stopping rule (--stop), the label; and what --resume
 * refuses (it continues with the recorded settings). */
#include "run_int.h"

#include "engine/engine.h"

#include "log.h"
#include "size.h"
#include "steady.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int run_load_sweep_file(struct fslab_run_ctx *c, const char *path)
{
	struct fslab_err e;
	char *text = NULL;
	size_t len;
	struct fslab_spec spec;
	int r;

	r = fslab_read_file(path, &text, &len, 1 << 20);
	if (r < 0) {
		fslab_note(FSLAB_NOTE_ERROR, "--sweep %s: cannot read: %s", path, fslab_input_strerror(r));
		return r;
	}
	r = fslab_sweep_parse_string(text, path, &spec, &e);
	if (r < 0) {
		fslab_note(FSLAB_NOTE_ERROR, "%s", e.msg);
		free(text);
		return r;
	}
	fslab_settings_merge(&c->cfg, &spec.sweep_given, ~0u);
	c->spec_text = text;
	snprintf(c->spec_text_source, sizeof(c->spec_text_source), "%s", path);
	return 0;
}

/* A preset of named rows (cdm, cdm-nvme): one file of --cdm-size, the
 * queued tests only, never fewer than its trials; the grid's settings
 * and --cdm-size without such a preset are refused, naming the fix. */
static int run_settings_rows(struct fslab_run_ctx *c, const struct fslab_run_opts *o)
{
	const struct fslab_settings *g = &o->given;
	const unsigned grid = FSLAB_SETTING_BIT(FSLAB_SETTING_FILE_SIZES) |
			      FSLAB_SETTING_BIT(FSLAB_SETTING_RECORD_SIZES) |
			      FSLAB_SETTING_BIT(FSLAB_SETTING_SMALL_RECORDS);
	struct fslab_sweep_spec *s = &c->cfg.sweep;
	const char *p = fslab_preset_to_string(c->cfg.preset);
	char tests[256];

	/* the flush of each created file is the many-files tests' alone */
	if (fslab_settings_has(g, FSLAB_SETTING_FILE_SYNC) && !(s->tests & FSLAB_TESTS_FILES)) {
		fslab_tests_format(s->tests, tests, sizeof(tests));
		fslab_note(FSLAB_NOTE_ERROR, "--file-sync sets what the many-files tests do with each file they create; --tests %s names none of them: add files (or files_create), or drop --file-sync",
			    tests);
		return -EINVAL;
	}
	if (!fslab_preset_named_rows(s->named_rows)) {
		if (fslab_settings_has(g, FSLAB_SETTING_CDM_SIZE)) {
			fslab_note(FSLAB_NOTE_ERROR, "--cdm-size sizes the file of --sweep cdm or cdm-nvme; give one of them, or --file-sizes for the %s grid",
				    p);
			return -EINVAL;
		}
		if (fslab_settings_has(g, FSLAB_SETTING_CDM_TIME)) {
			fslab_note(FSLAB_NOTE_ERROR, "--cdm-time times the passes of --sweep cdm or cdm-nvme; give one of them (the %s grid's passes are one pass over each file)",
				    p);
			return -EINVAL;
		}
		/* depth and threads are the queued tests' alone */
		if ((s->set & (FSLAB_SETTING_BIT(FSLAB_SETTING_IODEPTH) | FSLAB_SETTING_BIT(FSLAB_SETTING_JOBS))) &&
		    !(s->tests & fslab_test_family_mask(FSLAB_FAMILY_QUEUED))) {
			const char *q = s->set & FSLAB_SETTING_BIT(FSLAB_SETTING_IODEPTH) ? "iodepth" : "jobs";

			fslab_tests_format(s->tests, tests, sizeof(tests));
			fslab_note(FSLAB_NOTE_ERROR, "--%s ([sweep] %s) sets the queued tests' %s; --tests %s names none of them: add queued (or queued_write, queued_read, queued_random_write, queued_random_read), or drop --%s",
				    q, q, s->set & FSLAB_SETTING_BIT(FSLAB_SETTING_IODEPTH) ? "queue depth" : "threads", tests, q);
			return -EINVAL;
		}
		return 0;
	}
	if (s->set & grid) {
		fslab_note(FSLAB_NOTE_ERROR, "--sweep %s runs CrystalDiskMark's rows on one file, not a file x record grid: drop %s and give the file's size with --cdm-size",
			    p, s->set & FSLAB_SETTING_BIT(FSLAB_SETTING_FILE_SIZES) ? "--file-sizes ([sweep] file_sizes)"
			       : s->set & FSLAB_SETTING_BIT(FSLAB_SETTING_RECORD_SIZES) ? "--record-sizes ([sweep] record_sizes)"
											 : "--small-records ([sweep] small_records)");
		return -EINVAL;
	}
	/* each row has its own depth and threads: --iodepth and --jobs do
	 * not apply */
	if (s->set & (FSLAB_SETTING_BIT(FSLAB_SETTING_IODEPTH) | FSLAB_SETTING_BIT(FSLAB_SETTING_JOBS))) {
		const char *q = s->set & FSLAB_SETTING_BIT(FSLAB_SETTING_IODEPTH) ? "iodepth" : "jobs";

		fslab_note(FSLAB_NOTE_ERROR, "--sweep %s: each row has its own queue depth and threads (Q and T in its name); drop --%s ([sweep] %s)",
			    p, q, q);
		return -EINVAL;
	}
	if (s->tests & ~fslab_test_family_mask(FSLAB_FAMILY_QUEUED)) {
		fslab_tests_format(s->tests & ~fslab_test_family_mask(FSLAB_FAMILY_QUEUED), tests, sizeof(tests));
		fslab_note(FSLAB_NOTE_ERROR, "--sweep %s runs the queued tests (queued_write, queued_read, queued_random_write, queued_random_read); --tests names %s: give queued or some of those",
			    p, tests);
		return -EINVAL;
	}
	if ((s->set & FSLAB_SETTING_BIT(FSLAB_SETTING_TRIALS)) && s->trials < FSLAB_CDM_TRIALS) {
		fslab_note(FSLAB_NOTE_ERROR, "--sweep %s runs at least %d trials, for a 95%% interval of each row (CrystalDiskMark's 5 passes); give --trials %d or more",
			    p, FSLAB_CDM_TRIALS, FSLAB_CDM_TRIALS);
		return -EINVAL;
	}
	return 0;
}

/* The configuration: the typed defaults, the preset's sweep, then a
 * sweep file, then the flags, each over the one before through the
 * table's one merge (fslab_settings_merge), row by row as their set bits
 * say.  The preset (a flag) is taken first: its values are the bottom
 * layer. */
static int run_settings_merge(struct fslab_run_ctx *c, const struct fslab_run_opts *o)
{
	c->cfg = fslab_run_config_default;
	fslab_settings_merge(&c->cfg, &o->given, FSLAB_SETTING_BIT(FSLAB_SETTING_PRESET));
	fslab_sweep_preset_values(c->cfg.preset, &c->cfg.sweep);
	if (o->sweep_file && run_load_sweep_file(c, o->sweep_file) < 0)
		return -EINVAL;
	fslab_settings_merge(&c->cfg, &o->given, ~0u);
	return run_settings_rows(c, o);
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
	fslab_note(FSLAB_NOTE_ERROR, "the sweep has no cell to run: IOzone's auto-mode rule skips records below %s on "
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

	/* named rows: their sizes are the preset's and --cdm-size's */
	for (size_t i = 0; fslab_preset_named_rows(s->named_rows) && i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (fslab_sweep_size_problem(sizes[i]) || s->record_max > s->file_max) {
			fslab_note(FSLAB_NOTE_ERROR, "--cdm-size %s: give a power of two of at least 16M",
				    fslab_size_format(s->file_max, a, sizeof(a)));
			return -EINVAL;
		}
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		const char *problem = fslab_sweep_size_problem(sizes[i]);

		if (problem) {
			fslab_note(FSLAB_NOTE_ERROR, "files %s-%s, records %s-%s: %s %s",
				    fslab_size_format(s->file_min, a, sizeof(a)),
				    fslab_size_format(s->file_max, b, sizeof(b)),
				    fslab_size_format(s->record_min, x, sizeof(x)),
				    fslab_size_format(s->record_max, y, sizeof(y)),
				    fslab_size_format(sizes[i], z, sizeof(z)), problem);
			return -EINVAL;
		}
	}
	if (s->record_min > s->file_max) {
		fslab_note(FSLAB_NOTE_ERROR, "the smallest record (%s) is larger than the largest file (%s): no cell to run",
			    fslab_size_format(s->record_min, a, sizeof(a)),
			    fslab_size_format(s->file_max, b, sizeof(b)));
		return -EINVAL;
	}
	if (run_check_small_records(s) < 0)
		return -EINVAL;
	if ((s->tests & FSLAB_TESTS_FILES) && s->file_min > FSLAB_FILES_SIZE_MAX) {
		fslab_note(FSLAB_NOTE_ERROR, "the many-files tests (--tests files) run on files of at most %s; --file-sizes starts at %s: give a range that starts at %s or below (e.g. 4K-%s), or leave out the files tests",
			    fslab_size_format(FSLAB_FILES_SIZE_MAX, a, sizeof(a)),
			    fslab_size_format(s->file_min, b, sizeof(b)), a,
			    fslab_size_format(s->file_max, x, sizeof(x)));
		return -EINVAL;
	}
	if (s->tests == 0) {
		fslab_note(FSLAB_NOTE_ERROR, "no test selected");
		return -EINVAL;
	}
	if (s->trials < 1 || s->trials > FSLAB_TRIALS_MAX) {
		fslab_note(FSLAB_NOTE_ERROR, "--trials must be 1 to %d", FSLAB_TRIALS_MAX);
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
	const struct fslab_settings *g = &o->given;

	if (fslab_settings_has(g, FSLAB_SETTING_STOP))
		return c->cfg.stop_rule;
	if (fslab_settings_has(g, FSLAB_SETTING_UNTIL_CI))
		return FSLAB_STOP_RULE_CI;
	if (fslab_settings_has(g, FSLAB_SETTING_MAX_TRIALS))
		return FSLAB_STOP_RULE_DECIDED;
	/* the sweep's set holds the file's keys and the flags' rows: one "set" */
	if (c->cfg.preset == FSLAB_PRESET_DEFAULT &&
	    !(c->cfg.sweep.set & (FSLAB_SETTING_BIT(FSLAB_SETTING_TRIALS) | FSLAB_SETTING_BIT(FSLAB_SETTING_CACHE))))
		return FSLAB_STOP_RULE_DECIDED;
	return FSLAB_STOP_RULE_FIXED;
}

/* How many trials: fixed, or the minimum..maximum of --stop decided or
 * --until-ci. */
static int run_settings_trials(struct fslab_run_ctx *c, const struct fslab_run_opts *o)
{
	struct fslab_run_config *cfg = &c->cfg;
	struct fslab_sweep_spec *s = &cfg->sweep;
	const struct fslab_settings *g = &o->given;

	cfg->stop_rule = run_pick_stop_rule(c, o);
	if (cfg->until_ci_pct > 0 && cfg->stop_rule != FSLAB_STOP_RULE_CI) {
		fslab_note(FSLAB_NOTE_ERROR, "--until-ci goes with --stop ci (or no --stop), not --stop %s",
			    fslab_stop_rule_to_string(cfg->stop_rule));
		return -EINVAL;
	}
	if (cfg->stop_rule == FSLAB_STOP_RULE_FIXED) {
		if (fslab_settings_has(g, FSLAB_SETTING_MAX_TRIALS)) {
			fslab_note(FSLAB_NOTE_ERROR, "--max-trials goes with --stop decided or --until-ci PCT; --stop fixed runs --trials N trials");
			return -EINVAL;
		}
		cfg->max_trials = s->trials;
		return 0;
	}
	if (cfg->stop_rule == FSLAB_STOP_RULE_CI && cfg->until_ci_pct <= 0)
		cfg->until_ci_pct = FSLAB_DEFAULT_UNTIL_CI_PCT;
	if (cfg->stop_rule == FSLAB_STOP_RULE_DECIDED && !fslab_settings_has(g, FSLAB_SETTING_TRIALS) &&
	    s->trials < FSLAB_DEFAULT_MIN_TRIALS)
		s->trials = FSLAB_DEFAULT_MIN_TRIALS; /* a preset's 1 trial: the rule's minimum */
	if (s->trials < 2) {
		if (cfg->stop_rule == FSLAB_STOP_RULE_DECIDED) {
			fslab_note(FSLAB_NOTE_ERROR, "--stop decided compares trials: give --trials 2 or more (the minimum before the first look)");
			return -EINVAL;
		}
		s->trials = 2; /* a confidence interval needs two samples */
	}
	if (cfg->max_trials < s->trials || cfg->max_trials > FSLAB_TRIALS_MAX) {
		fslab_note(FSLAB_NOTE_ERROR, "--max-trials %u: give at least the minimum number of trials (%u) and at most %d",
			    cfg->max_trials, s->trials, FSLAB_TRIALS_MAX);
		return -EINVAL;
	}
	return 0;
}

/* The configuration (c->cfg) the options say, checked. */
int run_settings(struct fslab_run_ctx *c, const struct fslab_run_opts *o)
{
	if (run_settings_merge(c, o) < 0 || run_check_grid(&c->cfg.sweep) < 0 || run_settings_trials(c, o) < 0)
		return -EINVAL;
	return 0;
}

/* Every row a run records is taken back from the manifest: one given with
 * --resume is refused whatever its value (a default's word too). */
int run_check_resume_opts(const struct fslab_run_opts *o)
{
	int id = fslab_settings_first_recorded(&o->given);
	char list[512] = "";
	size_t off = 0;

	if (id < 0 && !o->sweep_file && !o->out_dir)
		return 0;
	for (int i = 0; i < FSLAB_SETTING_MAX && off < sizeof(list); i++) {
		const struct fslab_setting_row *r = fslab_setting_row((enum fslab_setting)i);

		if (r->flag && r->manifest_key)
			off += (size_t)snprintf(list + off, sizeof(list) - off, ", --%s", r->flag);
	}
	fslab_note(FSLAB_NOTE_ERROR, "--resume continues with the settings recorded in that run's manifest; drop %s%s "
		    "and any other setting option (--dir, --out%s)",
		    id >= 0 ? "--" : "", id >= 0 ? fslab_setting_row((enum fslab_setting)id)->flag
						 : o->sweep_file ? "--sweep" : "--out",
		    list);
	return -EINVAL;
}
