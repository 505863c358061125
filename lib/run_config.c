/* fslab run's configuration from its options (settings.h): the sweep
 * (preset < sweep file < flags), its checks, the trials and their
 * stopping rule (--stop); and what --resume refuses (it continues with
 * the recorded settings). */
#include "cell_plan.h"
#include "fileutil.h"
#include "settings.h"
#include "size.h"
#include "spec.h"

#include <errno.h>

static int load_sweep_file(struct fslab_run_config *cfg, const char *path, char **text, struct fslab_err *e)
{
	struct fslab_spec spec;
	size_t len;
	int r;

	r = fslab_read_file(path, text, &len, 1 << 20);
	if (r < 0)
		return fslab_err_set(e, r, "--sweep %s: cannot read: %s", path, fslab_input_strerror(r));
	r = fslab_sweep_parse_string(*text, path, &spec, e);
	if (r < 0)
		return r;
	fslab_settings_merge(cfg, &spec.sweep_given, ~0u);
	return 0;
}

/* A preset of named rows (cdm, cdm-nvme): one file of --cdm-size, the
 * queued tests only, never fewer than its trials; the grid's settings
 * and --cdm-size without such a preset are refused, naming the fix. */
static int check_rows(const struct fslab_run_config *cfg, const struct fslab_settings *g, struct fslab_err *e)
{
	const unsigned grid = FSLAB_SETTING_BIT(FSLAB_SETTING_FILE_SIZES) |
			      FSLAB_SETTING_BIT(FSLAB_SETTING_RECORD_SIZES) |
			      FSLAB_SETTING_BIT(FSLAB_SETTING_SMALL_RECORDS);
	const unsigned queued = FSLAB_SETTING_BIT(FSLAB_SETTING_IODEPTH) | FSLAB_SETTING_BIT(FSLAB_SETTING_JOBS);
	const struct fslab_sweep_spec *s = &cfg->sweep;
	const char *p = fslab_preset_to_string(cfg->preset);
	const bool depth = s->set & FSLAB_SETTING_BIT(FSLAB_SETTING_IODEPTH);
	const char *q = depth ? "iodepth" : "jobs";
	char tests[256];

	/* the flush of each created file is the many-files tests' alone */
	if (fslab_settings_has(g, FSLAB_SETTING_FILE_SYNC) && !(s->tests & FSLAB_TESTS_FILES)) {
		fslab_tests_format(s->tests, tests, sizeof(tests));
		return fslab_err_set(e, -EINVAL, "--file-sync sets what the many-files tests do with each file they create; --tests %s names none of them: add files (or files_create), or drop --file-sync",
			    tests);
	}
	if (!fslab_preset_named_rows(s->named_rows)) {
		if (fslab_settings_has(g, FSLAB_SETTING_CDM_SIZE))
			return fslab_err_set(e, -EINVAL, "--cdm-size sizes the file of --sweep cdm or cdm-nvme; give one of them, or --file-sizes for the %s grid",
				    p);
		if (fslab_settings_has(g, FSLAB_SETTING_CDM_TIME))
			return fslab_err_set(e, -EINVAL, "--cdm-time times the passes of --sweep cdm or cdm-nvme; give one of them (the %s grid's passes are one pass over each file)",
				    p);
		/* depth and threads are the queued tests' alone */
		if ((s->set & queued) && !(s->tests & fslab_test_family_mask(FSLAB_FAMILY_QUEUED))) {
			fslab_tests_format(s->tests, tests, sizeof(tests));
			return fslab_err_set(e, -EINVAL, "--%s ([sweep] %s) sets the queued tests' %s; --tests %s names none of them: add queued (or queued_write, queued_read, queued_random_write, queued_random_read), or drop --%s",
				    q, q, depth ? "queue depth" : "threads", tests, q);
		}
		return 0;
	}
	if (s->set & grid)
		return fslab_err_set(e, -EINVAL, "--sweep %s runs CrystalDiskMark's rows on one file, not a file x record grid: drop %s and give the file's size with --cdm-size",
			    p, s->set & FSLAB_SETTING_BIT(FSLAB_SETTING_FILE_SIZES) ? "--file-sizes ([sweep] file_sizes)"
			       : s->set & FSLAB_SETTING_BIT(FSLAB_SETTING_RECORD_SIZES) ? "--record-sizes ([sweep] record_sizes)"
											 : "--small-records ([sweep] small_records)");
	/* each row has its own depth and threads: --iodepth and --jobs do
	 * not apply */
	if (s->set & queued)
		return fslab_err_set(e, -EINVAL, "--sweep %s: each row has its own queue depth and threads (Q and T in its name); drop --%s ([sweep] %s)",
			    p, q, q);
	if (s->tests & ~fslab_test_family_mask(FSLAB_FAMILY_QUEUED)) {
		fslab_tests_format(s->tests & ~fslab_test_family_mask(FSLAB_FAMILY_QUEUED), tests, sizeof(tests));
		return fslab_err_set(e, -EINVAL, "--sweep %s runs the queued tests (queued_write, queued_read, queued_random_write, queued_random_read); --tests names %s: give queued or some of those",
			    p, tests);
	}
	if ((s->set & FSLAB_SETTING_BIT(FSLAB_SETTING_TRIALS)) && s->trials < FSLAB_CDM_TRIALS)
		return fslab_err_set(e, -EINVAL, "--sweep %s runs at least %d trials, for a 95%% interval of each row (CrystalDiskMark's 5 passes); give --trials %d or more",
			    p, FSLAB_CDM_TRIALS, FSLAB_CDM_TRIALS);
	return 0;
}

/* A grid whose every cell is a small record on a large file is emptied by
 * IOzone's auto-mode rule: the refusal names the rule and the option that
 * keeps those cells.  The plan itself decides (the same builder the run
 * uses), with and without the rule. */
static int check_small_records(const struct fslab_run_config *cfg, struct fslab_err *e)
{
	const struct fslab_sweep_spec *s = &cfg->sweep;
	struct fslab_sweep_spec keep = *s;
	struct fslab_plan plan;
	char recs[400], files[400], lim[32], file[32];
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
	return fslab_err_set(e, -EINVAL, "the sweep has no cell to run: IOzone's auto-mode rule skips records below %s on "
		    "files above %s (in IOzone's 13 tests), and that is every cell of records %s on files of %s; add "
		    "--small-records keep to run them (iozone -z), or give records of %s or more, "
		    "or files of %s or less",
		    lim, file, fslab_setting_format(FSLAB_SETTING_RECORD_SIZES, cfg, recs, sizeof(recs)),
		    fslab_setting_format(FSLAB_SETTING_FILE_SIZES, cfg, files, sizeof(files)), lim, file);
}

/* The grid must have cells: sizes of whole 4K pages, a record no larger
 * than the largest file. */
static int check_grid(const struct fslab_run_config *cfg, struct fslab_err *e)
{
	const struct fslab_sweep_spec *s = &cfg->sweep;
	char a[32], b[32], x[32];

	if (s->record_min > s->file_max)
		return fslab_err_set(e, -EINVAL, "the smallest record (%s) is larger than the largest file (%s): no cell to run",
			    fslab_size_format(s->record_min, a, sizeof(a)),
			    fslab_size_format(s->file_max, b, sizeof(b)));
	if (check_small_records(cfg, e) < 0)
		return -EINVAL;
	if ((s->tests & FSLAB_TESTS_FILES) && s->file_min > FSLAB_FILES_SIZE_MAX)
		return fslab_err_set(e, -EINVAL, "the many-files tests (--tests files) run on files of at most %s; --file-sizes starts at %s: give a range that starts at %s or below (e.g. 4K-%s), or leave out the files tests",
			    fslab_size_format(FSLAB_FILES_SIZE_MAX, a, sizeof(a)),
			    fslab_size_format(s->file_min, b, sizeof(b)), a,
			    fslab_size_format(s->file_max, x, sizeof(x)));
	if (s->tests == 0)
		return fslab_err_set(e, -EINVAL, "no test selected");
	if (s->trials < 1 || s->trials > FSLAB_TRIALS_MAX)
		return fslab_err_set(e, -EINVAL, "--trials must be 1 to %d", FSLAB_TRIALS_MAX);
	return 0;
}

/* The stopping rule the options ask for: --stop, else ci with
 * --until-ci, else the lab preset's decided rule when neither the cache
 * mode nor the trials were chosen (flags or the sweep file: `--cache warm
 * --trials 1` is the old single warm pass) or when only --max-trials was,
 * else fixed. */
static enum fslab_stop_rule pick_stop_rule(const struct fslab_run_config *cfg, const struct fslab_settings *g)
{
	if (fslab_settings_has(g, FSLAB_SETTING_STOP))
		return cfg->stop_rule;
	if (fslab_settings_has(g, FSLAB_SETTING_UNTIL_CI))
		return FSLAB_STOP_RULE_CI;
	if (fslab_settings_has(g, FSLAB_SETTING_MAX_TRIALS))
		return FSLAB_STOP_RULE_DECIDED;
	/* the sweep's set holds the file's keys and the flags' rows: one "set" */
	if (cfg->preset == fslab_run_config_default.preset &&
	    !(cfg->sweep.set & (FSLAB_SETTING_BIT(FSLAB_SETTING_TRIALS) | FSLAB_SETTING_BIT(FSLAB_SETTING_CACHE))))
		return FSLAB_STOP_RULE_DECIDED;
	return FSLAB_STOP_RULE_FIXED;
}

/* How many trials: fixed, or the minimum..maximum of --stop decided or
 * --until-ci. */
static int check_trials(struct fslab_run_config *cfg, const struct fslab_settings *g, struct fslab_err *e)
{
	struct fslab_sweep_spec *s = &cfg->sweep;

	cfg->stop_rule = pick_stop_rule(cfg, g);
	if (cfg->until_ci_pct > 0 && cfg->stop_rule != FSLAB_STOP_RULE_CI)
		return fslab_err_set(e, -EINVAL, "--until-ci goes with --stop ci (or no --stop), not --stop %s",
			    fslab_setting_word(FSLAB_SETTING_STOP, (int)cfg->stop_rule));
	if (cfg->stop_rule == FSLAB_STOP_RULE_FIXED) {
		if (fslab_settings_has(g, FSLAB_SETTING_MAX_TRIALS))
			return fslab_err_set(e, -EINVAL, "--max-trials goes with --stop decided or --until-ci PCT; --stop fixed runs --trials N trials");
		cfg->max_trials = s->trials;
		return 0;
	}
	if (cfg->stop_rule == FSLAB_STOP_RULE_CI && cfg->until_ci_pct <= 0)
		cfg->until_ci_pct = FSLAB_DEFAULT_UNTIL_CI_PCT;
	if (cfg->stop_rule == FSLAB_STOP_RULE_DECIDED && !fslab_settings_has(g, FSLAB_SETTING_TRIALS) &&
	    s->trials < FSLAB_DEFAULT_MIN_TRIALS)
		s->trials = FSLAB_DEFAULT_MIN_TRIALS; /* a preset's 1 trial: the rule's minimum */
	if (s->trials < 2) {
		if (cfg->stop_rule == FSLAB_STOP_RULE_DECIDED)
			return fslab_err_set(e, -EINVAL, "--stop decided compares trials: give --trials 2 or more (the minimum before the first look)");
		s->trials = 2; /* a confidence interval needs two samples */
	}
	if (cfg->max_trials < s->trials || cfg->max_trials > FSLAB_TRIALS_MAX)
		return fslab_err_set(e, -EINVAL, "--max-trials %u: give at least the minimum number of trials (%u) and at most %d",
			    cfg->max_trials, s->trials, FSLAB_TRIALS_MAX);
	return 0;
}

/* The configuration: the typed defaults, the preset's sweep, then a
 * sweep file, then the flags, each over the one before through the
 * table's one merge (fslab_settings_merge), row by row as their set bits
 * say.  The preset (a flag) is taken first: its values are the bottom
 * layer.  Then the checks. */
int fslab_run_config_resolve(struct fslab_run_config *cfg, const struct fslab_settings *given,
			     const char *sweep_file, char **sweep_text, struct fslab_err *e)
{
	*cfg = fslab_run_config_default;
	fslab_settings_merge(cfg, given, FSLAB_SETTING_BIT(FSLAB_SETTING_PRESET));
	fslab_sweep_preset_values(cfg->preset, &cfg->sweep);
	if (sweep_file && load_sweep_file(cfg, sweep_file, sweep_text, e) < 0)
		return -EINVAL;
	fslab_settings_merge(cfg, given, ~0u);
	/* sizes or the small-records rule given: the whole grid they name */
	if (cfg->sweep.set & (FSLAB_SETTING_BIT(FSLAB_SETTING_FILE_SIZES) | FSLAB_SETTING_BIT(FSLAB_SETTING_RECORD_SIZES) |
			      FSLAB_SETTING_BIT(FSLAB_SETTING_SMALL_RECORDS)))
		cfg->sweep.coarse = false;
	if (check_rows(cfg, given, e) < 0 || check_grid(cfg, e) < 0 || check_trials(cfg, given, e) < 0)
		return -EINVAL;
	return 0;
}

int fslab_run_config_resume_check(const struct fslab_settings *given, bool sweep_given, bool out_given,
				  struct fslab_err *e)
{
	char list[512] = "";
	int id = -1;

	for (int i = 0; i < FSLAB_SETTING_MAX; i++) {
		const struct fslab_setting_row *r = fslab_setting_row((enum fslab_setting)i);

		if (r->manifest_key && id < 0 && fslab_settings_has(given, (enum fslab_setting)i))
			id = i;
		if (r->flag && r->manifest_key)
			fslab_catf(list, sizeof(list), ", --%s", r->flag);
	}
	if (id < 0 && !sweep_given && !out_given)
		return 0;
	return fslab_err_set(e, -EINVAL, "--resume continues with the settings recorded in that run's manifest; drop %s%s "
			     "and any other setting option (--dir, --out%s)",
			     id >= 0 ? "--" : "", id >= 0 ? fslab_setting_row((enum fslab_setting)id)->flag
						  : sweep_given ? "--sweep" : "--out",
			     list);
}
