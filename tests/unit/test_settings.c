/* fslab run's settings table (lib/settings.h) walked row by row against
 * everything that names a setting: `fslab run --help` (synopsis words,
 * bounds), the [sweep] keys the spec parser accepts and `fslab spec
 * --print` writes, the manifest a run writes, --resume's refusal, the bash
 * completion and docs/fslab.1.  A row added to the table without the
 * others fails here. */
#include "cell_plan.h"
#include "names.h"
#include "settings.h"
#include "spec.h"
#include "size.h"
#include "steady.h"
#include "fslab/run.h"
#include "engine/engine.h"
#include "testutil.h"

#include <errno.h>
#include <json-c/json.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The parse with its message in a buffer, as these tests print it. */
static int t_sweep_parse(const char *text, const char *name, struct fslab_spec *spec, char *err,
			 size_t len)
{
	struct fslab_err e = FSLAB_ERR_INIT;
	int r = fslab_sweep_parse_string(text, name, spec, &e);

	snprintf(err, len, "%s", e.msg);
	return r;
}

/* s with every '-' as the man page writes it, "\-". */
static void man_escape(const char *s, char *out, size_t len)
{
	size_t k = 0;

	for (; *s && k + 3 < len; s++) {
		if (*s == '-')
			out[k++] = '\\';
		out[k++] = *s;
	}
	out[k] = '\0';
}

/* Every run of blanks and newlines as one blank. */
static void squeeze(char *s)
{
	char *w = s;

	for (const char *r = s; *r; r++) {
		bool blank = *r == ' ' || *r == '\n';

		if (blank && w > s && w[-1] == ' ')
			continue;
		*w++ = blank ? ' ' : *r;
	}
	*w = '\0';
}

/* `fslab run --help` names each row with a flag, an enum's words in its
 * synopsis ("--cache warm|fsync|direct|cold") and a bounded row's bounds;
 * --list-options holds nothing but the rows and run's own options. */
START_TEST(help_lists_every_row)
{
	static const char *const own[] = { "--state", "--dir", "--out", "--resume",
					   "--allow-concurrent", "--dry-run", "--quiet", "--help" };
	struct ft_output help, list;
	unsigned seen = 0;

	ck_assert_int_eq(ft_fslab(&help, "run", "--help", NULL), 0);
	ck_assert_int_eq(help.status, 0);
	squeeze(help.out); /* a bound may wrap across lines */
	for (int i = 0; i < FSLAB_SETTING_MAX; i++) {
		const struct fslab_setting_row *r = fslab_setting_row((enum fslab_setting)i);
		char want[256], words[128], bounds[96];

		if (!r->flag)
			continue;
		snprintf(want, sizeof(want), "--%s", r->flag);
		ck_assert_msg(strstr(help.out, want), "--help does not name %s", want);
		if (r->type == FSLAB_STYPE_ENUM) {
			snprintf(want, sizeof(want), "[--%s %s", r->flag,
				 fslab_setting_words((enum fslab_setting)i, "|", words, sizeof(words)));
			ck_assert_msg(strstr(help.out, want), "--help's synopsis lacks '%s'", want);
		}
		if (*fslab_setting_bounds((enum fslab_setting)i, bounds, sizeof(bounds)))
			ck_assert_msg(strstr(help.out, bounds), "--help does not say --%s's bounds '%s'",
				      r->flag, bounds);
	}
	ck_assert_int_eq(ft_fslab(&list, "run", "--list-options", NULL), 0);
	for (char *opt = strtok(list.out, "\n"); opt; opt = strtok(NULL, "\n")) {
		bool known = false;

		for (int i = 0; i < FSLAB_SETTING_MAX; i++)
			known = known || (fslab_setting_row(i)->flag && strcmp(opt + 2, fslab_setting_row(i)->flag) == 0);
		for (size_t k = 0; k < sizeof(own) / sizeof(own[0]); k++)
			known = known || strcmp(opt, own[k]) == 0;
		ck_assert_msg(known, "fslab run %s: neither a settings row nor one of run's own options", opt);
		seen++;
	}
	ck_assert_uint_ge(seen, 20);
	ft_output_free(&help);
	ft_output_free(&list);
}
END_TEST

/* A value the row takes, for a [sweep] line or a flag. */
static const char *sample(enum fslab_setting id)
{
	const struct fslab_setting_row *r = fslab_setting_row(id);

	switch (r->type) {
	case FSLAB_STYPE_ENUM:
		return r->words[r->n_words - 1];
	case FSLAB_STYPE_RANGE:
		return "64K-1M";
	case FSLAB_STYPE_COUNT:
		return "2";
	case FSLAB_STYPE_SIZE:
		return "16M";
	case FSLAB_STYPE_PERCENT:
		return "5";
	case FSLAB_STYPE_TESTS:
		return "write";
	case FSLAB_STYPE_NAME:
		return "hostA";
	case FSLAB_STYPE_BOOL:
		return NULL;
	}
	return NULL;
}

/* The [sweep] keys the parser accepts are the rows' sweep keys: each sets
 * its row's bit, a bad value is refused naming the key, an unknown key's
 * message lists them all, and fslab spec --print writes each. */
START_TEST(sweep_keys_are_the_rows)
{
	struct fslab_spec spec;
	struct ft_output print;
	char text[256], err[512], keys[256];
	unsigned n_keys = 0;

	ck_assert_int_eq(ft_fslab(&print, "spec", "--print", NULL), 0);
	ck_assert_int_eq(print.status, 0);
	fslab_setting_sweep_keys(keys, sizeof(keys));
	ck_assert_int_eq(t_sweep_parse("[sweep]\nbogus = 1\n", "t", &spec, err, sizeof(err)),
			 -EINVAL);
	ck_assert_msg(strstr(err, keys), "unknown key: '%s' does not list '%s'", err, keys);
	for (int i = 0; i < FSLAB_SETTING_MAX; i++) {
		const struct fslab_setting_row *r = fslab_setting_row((enum fslab_setting)i);
		char line[64];

		if (!r->sweep_key)
			continue;
		n_keys++;
		snprintf(text, sizeof(text), "[sweep]\n%s = %s\n", r->sweep_key, sample((enum fslab_setting)i));
		ck_assert_msg(t_sweep_parse(text, "t", &spec, err, sizeof(err)) == 0,
			      "[sweep] %s = %s refused: %s", r->sweep_key, sample((enum fslab_setting)i), err);
		ck_assert_uint_eq(spec.sweep.set, FSLAB_SETTING_BIT(i));
		snprintf(text, sizeof(text), "[sweep]\n%s = 3Q\n", r->sweep_key);
		ck_assert_int_eq(t_sweep_parse(text, "t", &spec, err, sizeof(err)), -EINVAL);
		snprintf(line, sizeof(line), "[sweep] %s = '3Q'", r->sweep_key);
		ck_assert_msg(strstr(err, line), "[sweep] %s = 3Q: '%s' does not name it", r->sweep_key, err);
		snprintf(line, sizeof(line), "%s = ", r->sweep_key);
		ck_assert_msg(strstr(print.out, line), "fslab spec --print does not write %s", r->sweep_key);
		/* the flag of the same row says the same words */
		if (r->flag && r->type == FSLAB_STYPE_ENUM) {
			struct ft_output o;
			char flag[64];

			snprintf(flag, sizeof(flag), "--%s", r->flag);
			ck_assert_int_eq(ft_fslab(&o, "run", flag, "3Q", NULL), 0);
			ck_assert_int_eq(o.status, 2);
			ck_assert_msg(strstr(o.err, r->words_help), "%s 3Q: %s", flag, o.err);
			ft_output_free(&o);
		}
	}
	ck_assert_uint_ge(n_keys, 8);
	ft_output_free(&print);
}
END_TEST

/* The enums' names are the rows' words, in the enums' order. */
START_TEST(enum_words_are_the_enums)
{
	for (int i = 0; i < FSLAB_CACHE_MODE_MAX; i++)
		ck_assert_str_eq(fslab_setting_word(FSLAB_SETTING_CACHE, i),
				 fslab_cache_mode_to_string((enum fslab_cache_mode)i));
	for (int i = 0; i < FSLAB_PRESET_MAX; i++)
		ck_assert_str_eq(fslab_setting_word(FSLAB_SETTING_PRESET, i),
				 fslab_preset_to_string((enum fslab_preset)i));
	ck_assert_str_eq(fslab_setting_word(FSLAB_SETTING_STOP, FSLAB_STOP_RULE_DECIDED), "decided");
	ck_assert_str_eq(fslab_setting_word(FSLAB_SETTING_STOP, FSLAB_STOP_RULE_FIXED), "fixed");
	ck_assert_ptr_null(fslab_setting_word(FSLAB_SETTING_STOP, FSLAB_STOP_RULE_MAX));
	ck_assert_int_eq(fslab_setting_word_index(FSLAB_SETTING_IO, "positional"), FSLAB_IO_POSITIONAL);
	ck_assert_int_eq(fslab_setting_word_index(FSLAB_SETTING_SYNC, "global"), FSLAB_SYNC_GLOBAL);
	ck_assert_int_eq(fslab_setting_word_index(FSLAB_SETTING_STEADY, "off"), FSLAB_STEADY_OFF);
	/* every row is listed once in --help's order */
	for (int i = 0; i < FSLAB_SETTING_MAX; i++) {
		int n = 0;

		for (int j = 0; j < FSLAB_SETTING_MAX; j++)
			n += fslab_settings_help_order[j] == (enum fslab_setting)i;
		ck_assert_int_eq(n, 1);
	}
}
END_TEST

/* The JSON value at path ("sweep.file_min_kib"; "filesystems[].x": in the
 * first filesystem); true when the key is there (null counts). */
static bool has_path(json_object *root, const char *path)
{
	char buf[128], *save = NULL;
	json_object *o = root;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *part = strtok_r(buf, ".", &save); part; part = strtok_r(NULL, ".", &save)) {
		size_t n = strlen(part);
		bool array = n > 2 && strcmp(part + n - 2, "[]") == 0;

		if (array)
			part[n - 2] = '\0';
		if (!o || !json_object_object_get_ex(o, part, &o))
			return false;
		if (array)
			o = json_object_array_length(o) ? json_object_array_get_idx(o, 0) : NULL;
	}
	return true;
}

/* A run records every row under its manifest key, and --resume refuses
 * each row's flag, whatever its value, naming it. */
START_TEST(manifest_records_every_row)
{
	char *dir = ft_mkdtemp("fslab-settings"), data[512], out[512], arg[600], path[700];
	struct ft_output o;
	json_object *root;

	snprintf(data, sizeof(data), "%s/data", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	ck_assert_int_eq(mkdir(data, 0755), 0);
	snprintf(arg, sizeof(arg), "a=%s", data);
	ck_assert_int_eq(ft_fslab(&o, "run", "--dir", arg, "--out", out, "--sweep", "quick",
				  "--file-sizes", "64K", "--record-sizes", "64K", "--tests", "write",
				  "--cache", "warm", "--trials", "1", "--no-device-probe",
				  "--steady-state", "off", "--label", "t", "--quiet", NULL), 0);
	ck_assert_msg(o.status == 0, "run: %s", o.err);
	ft_output_free(&o);
	snprintf(path, sizeof(path), "%s/manifest.json", out);
	root = json_object_from_file(path);
	ck_assert_ptr_nonnull(root);
	for (int i = 0; i < FSLAB_SETTING_MAX; i++) {
		const struct fslab_setting_row *r = fslab_setting_row((enum fslab_setting)i);
		char keys[160], *save = NULL;

		ck_assert_msg(r->manifest_key, "row %d has no manifest key", i);
		snprintf(keys, sizeof(keys), "%s", r->manifest_key);
		for (char *k = strtok_r(keys, " ", &save); k; k = strtok_r(NULL, " ", &save))
			ck_assert_msg(has_path(root, k), "manifest.json has no %s", k);
		if (!r->flag)
			continue;
		snprintf(arg, sizeof(arg), "--%s", r->flag);
		ck_assert_int_eq(ft_fslab(&o, "run", "--resume", out, arg, sample((enum fslab_setting)i), NULL), 0);
		ck_assert_msg(o.status == 2, "--resume with %s: status %d (%s)", arg, o.status, o.err);
		snprintf(path, sizeof(path), "drop %s ", arg);
		ck_assert_msg(strstr(o.err, path), "--resume with %s: %s", arg, o.err);
		ft_output_free(&o);
	}
	json_object_put(root);
	ft_rm_rf(dir);
	free(dir);
}
END_TEST

/* The completion offers an enum row's words after its flag and knows
 * every valued flag; the man page's fslab run section shows each row's
 * words in its synopsis and its bounds and default in "Settings". */
START_TEST(completion_and_man_page_name_every_row)
{
	char *bash = ft_source_file("completion/fslab.bash"), *man = ft_source_file("docs/fslab.1");
	char *cases = ft_text_section(bash, "case $prev in", "\tesac");
	char *run = ft_text_section(man, ".SS fslab run", "\n.SS ");
	char *cache_var = ft_text_section(bash, "_fslab_cache_modes=\"", "\"\n");

	for (int i = 0; i < FSLAB_SETTING_MAX; i++) {
		const struct fslab_setting_row *r = fslab_setting_row((enum fslab_setting)i);
		char flag[64], esc[128], want[512], bounds[96];
		const char *arm = NULL;

		if (!r->flag)
			continue;
		snprintf(flag, sizeof(flag), "--%s", r->flag);
		man_escape(flag, esc, sizeof(esc));
		ck_assert_msg(strstr(run, esc), "docs/fslab.1 (fslab run) does not name %s", flag);
		/* "Settings": "\-\-trials 1 to 1000 (default 3)" */
		fslab_setting_bounds((enum fslab_setting)i, bounds, sizeof(bounds));
		snprintf(want, sizeof(want), "%s%s%s (default %s)", flag, *bounds ? " " : "", bounds,
			 r->default_text);
		man_escape(want, esc, sizeof(esc));
		ck_assert_msg(strstr(run, esc), "docs/fslab.1 (fslab run) lacks '%s'", esc);
		if (!r->arg)
			continue;
		/* the case arm that names the flag */
		for (const char *p = cases; (p = strstr(p, flag)); p++) {
			char after = p[strlen(flag)];

			if ((p[-1] == '\t' || p[-1] == ' ') && (after == ')' || after == ' ')) {
				arm = p;
				break;
			}
		}
		ck_assert_msg(arm, "completion/fslab.bash: no case arm for %s", flag);
		if (r->type != FSLAB_STYPE_ENUM)
			continue;
		{
			const char *w = strstr(arm, "compgen -W \"");
			char list[256], man_words[256] = ".IR ";
			size_t n = 0;

			ck_assert_ptr_nonnull(w);
			w += strlen("compgen -W \"");
			snprintf(list, sizeof(list), " %.*s ", (int)strcspn(w, "\""), w);
			if (strstr(list, "$_fslab_cache_modes"))
				snprintf(list, sizeof(list), " %s ", strstr(cache_var, "\"") + 1);
			for (int k = 0; k < r->n_words; k++) {
				char word[64];

				snprintf(word, sizeof(word), " %s ", r->words[k]);
				ck_assert_msg(strstr(list, word), "completion of %s lacks '%s' (%s)", flag,
					      r->words[k], list);
				n += strlen(r->words[k]) + 1;
				strcat(man_words, r->words[k]);
				strcat(man_words, k + 1 < r->n_words ? " | " : "");
			}
			ck_assert_msg(strlen(list) - 1 == n, "completion of %s offers more than %s", flag, list);
			ck_assert_msg(strstr(run, man_words), "docs/fslab.1's synopsis lacks '%s %s'",
				      flag, man_words);
		}
	}
	free(cache_var);
	free(cases);
	free(run);
	free(bash);
	free(man);
}
END_TEST

/* preset < [sweep] of --sweep FILE < flags, each row on its own: the
 * file's trials and files stand, its cache gives way to the flag's, the
 * preset fills the rest (fslab run --dry-run prints the merged plan). */
START_TEST(layers_merge_preset_file_flags)
{
	char *dir = ft_mkdtemp("fslab-settings"), file[512], arg[600];
	struct ft_output o;

	snprintf(file, sizeof(file), "%s/sweep.ini", dir);
	ck_assert_int_eq(ft_write_file(file, "[sweep]\ncache = fsync\ntrials = 2\nfile_sizes = 64K-128K\n"), 0);
	snprintf(arg, sizeof(arg), "a=%s", dir);
	ck_assert_int_eq(ft_fslab(&o, "run", "--dir", arg, "--sweep", file, "--cache", "direct",
				  "--record-sizes", "64K", "--no-device-probe", "--dry-run", NULL), 0);
	ck_assert_msg(o.status == 0, "dry run: %s", o.err);
	ck_assert_msg(strstr(o.out, "files 64K-128K x records 64K (IOzone's tests: records < 64K skipped"), "%s", o.out);
	ck_assert_msg(strstr(o.out, "trials: 2\n"), "%s", o.out);
	ck_assert_msg(strstr(o.out, "cache: direct, io: seek, sync: fs, steady state: auto"), "%s", o.out);
	ft_output_free(&o);
	/* the same bad value, from the file or the flag: the same words */
	ck_assert_int_eq(ft_write_file(file, "[sweep]\nrecord_sizes = 6K-8K\n"), 0);
	ck_assert_int_eq(ft_fslab(&o, "run", "--dir", arg, "--sweep", file, "--dry-run", NULL), 0);
	ck_assert_int_eq(o.status, 2);
	ck_assert_msg(strstr(o.err, "[sweep] record_sizes = '6K-8K': 6K is not a multiple of 4K"), "%s", o.err);
	ft_output_free(&o);
	ck_assert_int_eq(ft_fslab(&o, "run", "--dir", arg, "--record-sizes", "6K-8K", "--dry-run", NULL), 0);
	ck_assert_int_eq(o.status, 2);
	ck_assert_msg(strstr(o.err, "--record-sizes '6K-8K': 6K is not a multiple of 4K"), "%s", o.err);
	ft_output_free(&o);
	ft_rm_rf(dir);
	free(dir);
}
END_TEST

/* Each row's value lives at its place: a parse of its default's words
 * puts there what the typed default holds (rows whose default is a
 * preset's or a word of its own, "off", "none", are not compared), and
 * the merge copies only the rows a layer set. */
START_TEST(rows_place_their_values)
{
	static const enum fslab_setting typed[] = {
		FSLAB_SETTING_PRESET, FSLAB_SETTING_FILE_SYNC, FSLAB_SETTING_MAX_TRIALS,
		FSLAB_SETTING_IO, FSLAB_SETTING_SYNC, FSLAB_SETTING_PASS_GAP,
		FSLAB_SETTING_STEADY, FSLAB_SETTING_STEADY_ROUND,
	};
	struct fslab_err e = FSLAB_ERR_INIT;
	struct fslab_run_config cfg = fslab_run_config_default;
	char buf[128];

	for (size_t i = 0; i < sizeof(typed) / sizeof(typed[0]); i++) {
		const struct fslab_setting_row *r = fslab_setting_row(typed[i]);
		struct fslab_settings layer = { 0 };

		ck_assert_str_eq(fslab_setting_format(typed[i], &fslab_run_config_default, buf, sizeof(buf)),
				 r->default_text);
		ck_assert_int_eq(fslab_setting_parse(&layer, typed[i], r->default_text, "t", &e), 0);
		ck_assert_str_eq(fslab_setting_format(typed[i], &layer.v, buf, sizeof(buf)), r->default_text);
	}
	{
		struct fslab_settings layer = { 0 };

		ck_assert_int_eq(fslab_setting_parse(&layer, FSLAB_SETTING_CACHE, "cold", "t", &e), 0);
		ck_assert_int_eq(fslab_setting_parse(&layer, FSLAB_SETTING_ORDER, "fixed", "t", &e), 0);
		ck_assert_int_eq(fslab_setting_parse(&layer, FSLAB_SETTING_FILE_SIZES, "64K-2G", "t", &e), 0);
		ck_assert_int_eq(fslab_setting_parse(&layer, FSLAB_SETTING_LABEL, "hostA", "t", &e), 0);
		ck_assert_int_eq(fslab_setting_parse(&layer, FSLAB_SETTING_UNTIL_CI, "2.5", "t", &e), 0);
		ck_assert_int_eq(fslab_setting_parse(&layer, FSLAB_SETTING_LATENCY, NULL, "t", &e), 0);
		cfg.sweep.shuffle = true;
		fslab_settings_merge(&cfg, &layer, ~FSLAB_SETTING_BIT(FSLAB_SETTING_LABEL));
		ck_assert_int_eq(cfg.sweep.cache, FSLAB_CACHE_COLD);
		ck_assert(!cfg.sweep.shuffle);
		ck_assert_uint_eq(cfg.sweep.file_min, 64 * FSLAB_KiB);
		ck_assert_uint_eq(cfg.sweep.file_max, 2 * FSLAB_GiB);
		ck_assert(cfg.latency);
		ck_assert(cfg.until_ci_pct == 2.5);
		ck_assert_str_eq(cfg.label, ""); /* not in the mask */
		ck_assert_uint_eq(cfg.sweep.set, FSLAB_SETTING_BIT(FSLAB_SETTING_CACHE) |
						 FSLAB_SETTING_BIT(FSLAB_SETTING_ORDER) |
						 FSLAB_SETTING_BIT(FSLAB_SETTING_FILE_SIZES));
		ck_assert_uint_eq(cfg.io_mode, FSLAB_IO_SEEK); /* not given: the default */
		ck_assert_str_eq(fslab_setting_format(FSLAB_SETTING_FILE_SIZES, &cfg, buf, sizeof(buf)), "64K-2G");
		ck_assert_str_eq(fslab_setting_format(FSLAB_SETTING_ORDER, &cfg, buf, sizeof(buf)), "fixed");
	}
}
END_TEST

/* The one call from a run's options to its configuration
 * (lib/run_config.c): the sweep file read and layered between the preset
 * and the flags, the stopping rule the options imply, a refusal's words
 * in e; and --resume's refusal of any recorded row. */
START_TEST(resolve_in_one_call)
{
	char *dir = ft_mkdtemp("fslab-settings"), file[512], *text = NULL;
	static const char ini[] = "[sweep]\ncache = warm\ntrials = 2\n";
	struct fslab_settings given = { 0 }, none = { 0 }, sizes = { 0 };
	struct fslab_err e = FSLAB_ERR_INIT;
	struct fslab_run_config cfg;

	snprintf(file, sizeof(file), "%s/sweep.ini", dir);
	ck_assert_int_eq(ft_write_file(file, ini), 0);
	ck_assert_int_eq(fslab_setting_parse(&given, FSLAB_SETTING_CACHE, "direct", "--cache", &e), 0);
	ck_assert_int_eq(fslab_run_config_resolve(&cfg, &given, file, &text, &e), 0);
	ck_assert_str_eq(text, ini);
	ck_assert_int_eq(cfg.sweep.cache, FSLAB_CACHE_DIRECT); /* the flag over the file */
	ck_assert_uint_eq(cfg.sweep.trials, 2);                /* the file over the preset */
	ck_assert_uint_eq(cfg.sweep.file_max, 2 * FSLAB_GiB);  /* the lab preset */
	ck_assert(cfg.sweep.coarse);                           /* its coarse records */
	ck_assert_int_eq(cfg.stop_rule, FSLAB_STOP_RULE_FIXED); /* trials chosen */
	ck_assert_uint_eq(cfg.max_trials, 2);
	free(text);
	text = NULL;
	/* nothing given: the lab preset's decided rule */
	ck_assert_int_eq(fslab_run_config_resolve(&cfg, &none, NULL, &text, &e), 0);
	ck_assert_ptr_null(text);
	ck_assert_int_eq(cfg.stop_rule, FSLAB_STOP_RULE_DECIDED);
	ck_assert_uint_eq(cfg.sweep.trials, FSLAB_DEFAULT_MIN_TRIALS);
	ck_assert_uint_eq(cfg.max_trials, FSLAB_DEFAULT_MAX_TRIALS);
	/* file sizes given (a flag or a sweep file's key): their whole grid */
	ck_assert_int_eq(fslab_setting_parse(&sizes, FSLAB_SETTING_FILE_SIZES, "64K-64M", "--file-sizes", &e), 0);
	ck_assert_int_eq(fslab_run_config_resolve(&cfg, &sizes, NULL, &text, &e), 0);
	ck_assert(!cfg.sweep.coarse);
	ck_assert_uint_eq(cfg.sweep.file_max, 64 * FSLAB_MiB);
	/* a rule between rows, and a sweep file that is not there */
	ck_assert_int_eq(fslab_setting_parse(&given, FSLAB_SETTING_STOP, "fixed", "--stop", &e), 0);
	ck_assert_int_eq(fslab_setting_parse(&given, FSLAB_SETTING_MAX_TRIALS, "4", "--max-trials", &e), 0);
	ck_assert_int_eq(fslab_run_config_resolve(&cfg, &given, NULL, &text, &e), -EINVAL);
	ck_assert_msg(strstr(e.msg, "--max-trials goes with --stop decided"), "%s", e.msg);
	snprintf(file, sizeof(file), "%s/none.ini", dir);
	ck_assert_int_eq(fslab_run_config_resolve(&cfg, &none, file, &text, &e), -EINVAL);
	ck_assert_msg(strstr(e.msg, "none.ini: cannot read: No such file"), "%s", e.msg);
	/* --resume: nothing recorded may be given, nor --sweep or --out */
	ck_assert_int_eq(fslab_run_config_resume_check(&none, false, false, &e), 0);
	ck_assert_int_eq(fslab_run_config_resume_check(&given, false, false, &e), -EINVAL);
	ck_assert_msg(strstr(e.msg, "drop --cache and any other setting option (--dir, --out, --file-sizes"), "%s", e.msg);
	ck_assert_int_eq(fslab_run_config_resume_check(&none, false, true, &e), -EINVAL);
	ck_assert_msg(strstr(e.msg, "drop --out and"), "%s", e.msg);
	free(text);
	ft_rm_rf(dir);
	free(dir);
}
END_TEST

/* The grid an engineer asks for: lists of sizes (any multiple of 4K),
 * IOzone's auto-mode rule on IOzone's tests only, a cell per queue depth. */
static int t_resolve(const char *files, const char *records, const char *tests, const char *depth,
		     struct fslab_run_config *cfg, struct fslab_plan *plan, struct fslab_err *e)
{
	struct fslab_settings g = { 0 };
	const char *text[] = { files, records, tests, depth };
	const enum fslab_setting id[] = { FSLAB_SETTING_FILE_SIZES, FSLAB_SETTING_RECORD_SIZES, FSLAB_SETTING_TESTS,
					  FSLAB_SETTING_IODEPTH };

	memset(plan, 0, sizeof(*plan));
	for (int i = 0; i < 4; i++)
		if (text[i] && fslab_setting_parse(&g, id[i], text[i], fslab_setting_row(id[i])->flag, e) < 0)
			return -EINVAL;
	if (fslab_run_config_resolve(cfg, &g, NULL, NULL, e) < 0)
		return -EINVAL;
	return fslab_plan_build(&cfg->sweep, plan);
}

START_TEST(lists_of_sizes_and_depths)
{
	struct fslab_err e = FSLAB_ERR_INIT;
	struct fslab_run_config cfg;
	struct fslab_plan p;
	unsigned rr = 1u << FSLAB_TEST_QUEUED_RANDOM_READ;
	char buf[128];

	/* 48M files, records 4K and 16K: both records on the file, as given */
	ck_assert_msg(t_resolve("48M", "4K,16K", "queued", NULL, &cfg, &p, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(p.n, 2);
	ck_assert_uint_eq(p.cells[0].file_bytes, 48 * FSLAB_MiB);
	ck_assert_uint_eq(p.cells[0].record_bytes, 4 * FSLAB_KiB);
	ck_assert_uint_eq(p.cells[1].record_bytes, 16 * FSLAB_KiB);
	ck_assert_str_eq(fslab_setting_format(FSLAB_SETTING_RECORD_SIZES, &cfg, buf, sizeof(buf)), "4K,16K");
	ck_assert_str_eq(fslab_setting_format(FSLAB_SETTING_FILE_SIZES, &cfg, buf, sizeof(buf)), "48M");
	fslab_plan_free(&p);
	/* a list of files: a record that does not divide a file is skipped there */
	ck_assert_msg(t_resolve("12K,48K", "8K,12K", "write", NULL, &cfg, &p, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(p.n, 3); /* 12K x 12K, 48K x 8K, 48K x 12K */
	ck_assert_uint_eq(p.cells[0].file_bytes, 12 * FSLAB_KiB);
	ck_assert_uint_eq(p.cells[0].record_bytes, 12 * FSLAB_KiB);
	ck_assert_uint_eq(p.cells[2].file_bytes, 48 * FSLAB_KiB);
	fslab_plan_free(&p);
	/* the auto-mode rule is IOzone's: a queued test keeps 8K on 64M */
	ck_assert_msg(t_resolve("64M", "8K", "queued_random_read", NULL, &cfg, &p, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(p.n, 1);
	ck_assert_uint_eq(fslab_plan_test_count(&p, cfg.sweep.tests), 1);
	fslab_plan_free(&p);
	/* ... and drops only IOzone's tests from a cell that has both */
	ck_assert_msg(t_resolve("64M", "8K", "write,queued_read", NULL, &cfg, &p, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(p.n, 1);
	ck_assert_uint_eq(fslab_plan_cell_tests(&p.cells[0], cfg.sweep.tests), 1u << FSLAB_TEST_QUEUED_READ);
	fslab_plan_free(&p);
	ck_assert_int_eq(t_resolve("64M", "8K", "write", NULL, &cfg, &p, &e), -EINVAL);
	ck_assert_msg(strstr(e.msg, "auto-mode rule") && strstr(e.msg, "records 8K on files of 64M"), "%s", e.msg);
	/* --iodepth 1,32: each queued test a cell per depth, the others one */
	ck_assert_msg(t_resolve("64K", "64K", "write,queued_random_read", "1,32", &cfg, &p, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(p.n, 3);
	ck_assert_uint_eq(fslab_plan_cell_tests(&p.cells[0], cfg.sweep.tests), 1u << FSLAB_TEST_WRITE);
	ck_assert_uint_eq(fslab_plan_cell_tests(&p.cells[1], cfg.sweep.tests), rr);
	ck_assert_uint_eq(p.cells[1].iodepth, 1);
	ck_assert_uint_eq(p.cells[2].iodepth, 32);
	ck_assert_uint_eq(fslab_plan_find(&p, FSLAB_TEST_QUEUED_RANDOM_READ, 64, 64, 32, 1), 2);
	ck_assert_uint_eq(fslab_plan_find(&p, FSLAB_TEST_WRITE, 64, 64, 1, 1), 0);
	ck_assert_str_eq(fslab_setting_format(FSLAB_SETTING_IODEPTH, &cfg, buf, sizeof(buf)), "1,32");
	fslab_plan_free(&p);
	/* refusals name the value, the rule and an example */
	ck_assert_int_eq(t_resolve(NULL, "4K,6K", NULL, NULL, &cfg, &p, &e), -EINVAL);
	ck_assert_msg(strstr(e.msg, "record-sizes '4K,6K': 6K is not a multiple of 4K") && strstr(e.msg, "e.g. 4K-2M or 4K,16K,1M"),
		      "%s", e.msg);
	ck_assert_int_eq(t_resolve(NULL, "16K,4K", NULL, NULL, &cfg, &p, &e), -EINVAL);
	ck_assert_msg(strstr(e.msg, "'16K,4K': 4K: give the values in ascending order"), "%s", e.msg);
	ck_assert_int_eq(t_resolve("1M,2Q", NULL, NULL, NULL, &cfg, &p, &e), -EINVAL);
	ck_assert_msg(strstr(e.msg, "'1M,2Q': 2Q: unknown unit"), "%s", e.msg);
	ck_assert_int_eq(t_resolve(NULL, NULL, "queued", "1,300", &cfg, &p, &e), -EINVAL);
	ck_assert_msg(strstr(e.msg, "iodepth '1,300': 300: out of range; give a whole number from 1 to 256"), "%s", e.msg);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("settings");
	TCase *tc = ft_tcase(s, "settings", 0);

	tcase_add_test(tc, help_lists_every_row);
	tcase_add_test(tc, sweep_keys_are_the_rows);
	tcase_add_test(tc, enum_words_are_the_enums);
	tcase_add_test(tc, manifest_records_every_row);
	tcase_add_test(tc, completion_and_man_page_name_every_row);
	tcase_add_test(tc, layers_merge_preset_file_flags);
	tcase_add_test(tc, rows_place_their_values);
	tcase_add_test(tc, resolve_in_one_call);
	tcase_add_test(tc, lists_of_sizes_and_depths);
	return ft_suite_run(s, argc, argv);
}
