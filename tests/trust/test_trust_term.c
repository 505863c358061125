/* Trust: what fslab prints of foreign data, what it says when the report
 * cannot be written, and how strictly it reads numbers.
 *
 * - A results directory from another machine (its name, its manifest's
 *   strings, its CSV fields) carrying ESC/CSI/OSC sequences, C1 controls
 *   (as UTF-8 and as stray bytes) and bidirectional overrides: no such
 *   byte or code point reaches stdout, stderr or report.txt raw.
 * - An --out on a full filesystem: the message names ENOSPC and the --out
 *   path, the status is 1, nothing half-written is left (root: a small
 *   tmpfs; skipped otherwise).
 * - Every number option and setting refuses hex, blanks, exponents, inf,
 *   nan, a sign, underflow and the empty string. */
#include "settings.h"
#include "trust_util.h"

#include <dirent.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

/* The evil string: OSC title, CSI, U+009B (8-bit CSI as UTF-8), a stray
 * 0x9b byte, U+202E, U+2066, U+061C, U+200F, U+200E, U+202A. */
#define EVIL_JSON "\\u001b]0;owned\\u0007\\u001b[2J\xc2\x9b" "31m\x9b" "1m\xe2\x80\xae" "cba\xe2\x81\xa6\xd8\x9c\xe2\x80\x8f\xe2\x80\x8e\xe2\x80\xaa"
#define EVIL_RAW "\x1b]0;owned\x07\x1b[2J\xc2\x9b" "31m\x9b" "1m\xe2\x80\xae" "cba\xe2\x81\xa6\xd8\x9c\xe2\x80\x8f\xe2\x80\x8e\xe2\x80\xaa"

/* NULL when text is valid UTF-8 holding no control but a newline, no C1
 * control and no bidirectional mark; else where the first one is. */
static const char *dirty(const char *text)
{
	const unsigned char *p = (const unsigned char *)text;

	while (*p) {
		unsigned cp = *p;
		int n = *p < 0x80 ? 1 : *p >= 0xc2 && *p < 0xe0 ? 2 : *p >= 0xe0 && *p < 0xf0 ? 3 :
			*p >= 0xf0 && *p < 0xf5 ? 4 : 0;

		if (n == 0)
			return (const char *)p;
		if (n > 1)
			cp &= 0x3fu >> (n - 1);
		for (int i = 1; i < n; i++) {
			if ((p[i] & 0xc0) != 0x80)
				return (const char *)p;
			cp = cp << 6 | (p[i] & 0x3fu);
		}
		if ((cp < 0x20 && cp != '\n') || (cp >= 0x7f && cp <= 0x9f) || cp == 0x61c ||
		    cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
		    (cp >= 0x2066 && cp <= 0x2069))
			return (const char *)p;
		p += n;
	}
	return NULL;
}

static void assert_clean(const char *what, const char *text)
{
	const char *bad = dirty(text);

	ck_assert_msg(bad == NULL, "%s: raw control or bidi byte at offset %td (0x%02x): ...%.80s", what,
		      bad - text, bad ? (unsigned char)*bad : 0, bad ? (bad - text > 40 ? bad - 40 : text) : "");
}

/* A copy of the report fixture as dir, its manifest's strings and a CSV
 * status field carrying EVIL, the ext4 mount remounted under the run. */
static void evil_results(const char *dir)
{
	char *text = ft_source_file("tests/report/fixtures/basic/ext4.csv"), *csv = tu_join(dir, "ext4.csv");
	char *man = tu_join(dir, "manifest.json"), *bad;

	ck_assert_int_eq(mkdir(dir, 0755), 0);
	ck_assert_int_ge(asprintf(&bad, "%sext4,read,8192,64,1,0,0.1,warm,failed: " EVIL_RAW ",\n", text), 0);
	ck_assert_int_eq(ft_write_file(csv, bad), 0);
	ck_assert_int_eq(ft_write_file(man,
		"{ \"fslab_version\": \"0.1.0\", \"command\": [\"fslab\", \"run\"],\n"
		"  \"started_at\": \"2026-11-29T10:00:00Z\", \"finished_at\": \"2026-11-29T10:05:00Z\",\n"
		"  \"cache_mode\": \"warm\", \"trials\": 3, \"seed\": 1,\n"
		"  \"machine\": { \"hostname\": \"h" EVIL_JSON "\", \"kernel\": \"k" EVIL_JSON "\",\n"
		"    \"cpu_model\": \"c" EVIL_JSON "\", \"cpus\": 2, \"memory_kib\": 24000000 },\n"
		"  \"filesystems\": [ { \"name\": \"ext4\", \"type\": \"ext4\", \"device\": \"/dev/d" EVIL_JSON "\",\n"
		"    \"device_model\": \"m" EVIL_JSON "\", \"mount_method\": \"kernel\",\n"
		"    \"mkfs_options\": \"-O " EVIL_JSON "\", \"mount_options\": \"noatime" EVIL_JSON "\",\n"
		"    \"mount_options_at_end\": \"ro" EVIL_JSON "\" } ] }\n"), 0);
	free(bad);
	free(text);
	free(man);
	free(csv);
}

START_TEST(foreign_text_is_escaped_everywhere)
{
	char *dir = tu_tpath("res" EVIL_RAW), *out = tu_tpath("out"), *txt = tu_join(out, "report.txt");
	char *csv = tu_join(dir, "xfs.csv"), *t;
	struct ft_output o;

	evil_results(dir);
	/* the text report on stdout, the remounted warning on stderr */
	ck_assert_int_eq(ft_fslab(&o, "report", dir, "--format", "text", NULL), 0);
	ck_assert_msg(o.status == 0, "report: exit %d: %s", o.status, o.err);
	tu_has(o.err, "remounted during the run");
	tu_has(o.err, "ro\\x1b]0;owned\\x07");
	tu_has(o.err, "\\u009b31m\\x9b1m\\u202ecba\\u2066\\u061c\\u200f\\u200e\\u202a");
	tu_has(o.out, "res\\x1b]0;owned");
	assert_clean("text report, stdout", o.out);
	assert_clean("text report, stderr", o.err);
	ft_output_free(&o);
	/* JSON on stdout: the hidden characters as JSON escapes, still JSON */
	ck_assert_int_eq(ft_fslab(&o, "report", dir, "--format", "json", NULL), 0);
	ck_assert_msg(o.status == 0, "report --format json: exit %d: %s", o.status, o.err);
	assert_clean("json report, stdout", o.out);
	tu_has(o.out, "\\u202e");
	json_object *js = json_tokener_parse(o.out);
	ck_assert_msg(js != NULL, "the JSON report is no longer JSON: %.200s", o.out);
	json_object_put(js);
	ft_output_free(&o);
	/* the full report: its terminal lines and report.txt */
	ck_assert_int_eq(ft_fslab(&o, "report", dir, "--out", out, "--plots", "none", NULL), 0);
	ck_assert_msg(o.status == 0, "report --out: exit %d: %s", o.status, o.err);
	assert_clean("report --out, stdout", o.out);
	assert_clean("report --out, stderr", o.err);
	ft_output_free(&o);
	t = tu_slurp(txt);
	assert_clean("report.txt", t);
	free(t);
	/* an error naming a foreign CSV's path */
	ck_assert_int_eq(ft_write_file(csv, "nonsense\n"), 0);
	ck_assert_int_eq(ft_fslab(&o, "report", dir, "--format", "text", NULL), 0);
	ck_assert_int_eq(o.status, 2);
	tu_has(o.err, "\\u202e");
	assert_clean("bad CSV, stderr", o.err);
	assert_clean("bad CSV, stdout", o.out);
	ft_output_free(&o);
	/* a lab command's path: refused, shown escaped */
	ck_assert_int_eq(ft_fslab(&o, "status", "--state", dir, NULL), 0);
	ck_assert_int_eq(o.status, 2);
	tu_has(o.err, "\\u202ecba");
	assert_clean("status --state, stderr", o.err);
	ft_output_free(&o);
	free(csv);
	free(txt);
	free(out);
	free(dir);
}
END_TEST

/* Values no number option or setting may accept. */
static const char *const bad_numbers[] = { "0x10", " 5", "5 ", "1e-400", "1e3", "inf", "nan",
					   "-0", "", "+5", "5.", ".5", "1.2.3", "0x1p3", "5%",
					   "0.0000000000000000000000000000000000000000000000000000000000000000"
					   "0000000000000000000000000000000000000000000000000000000000000000"
					   "0000000000000000000000000000000000000000000000000000000000000000"
					   "0000000000000000000000000000000000000000000000000000000000000000"
					   "0000000000000000000000000000000000000000000000000000000000000000"
					   "0000000000000000000000000000000000000000000000000000000000000000"
					   "00000000000000000000000000000000000000000000000000000000000001" };

START_TEST(numbers_are_read_strictly)
{
	struct fslab_err e = FSLAB_ERR_INIT;
	struct ft_output o;
	int n = 0;

	/* every setting that takes a number (the command line and the sweep file) */
	for (int id = 0; id < FSLAB_SETTING_MAX; id++) {
		const struct fslab_setting_row *r = fslab_setting_row(id);

		if (r->type != FSLAB_STYPE_COUNT && r->type != FSLAB_STYPE_PERCENT &&
		    r->type != FSLAB_STYPE_SIZE && r->type != FSLAB_STYPE_RANGE)
			continue;
		n++;
		for (size_t i = 0; i < sizeof(bad_numbers) / sizeof(bad_numbers[0]); i++) {
			struct fslab_settings s;

			memset(&s, 0, sizeof(s));
			fslab_err_clear(&e);
			ck_assert_msg(fslab_setting_parse(&s, id, bad_numbers[i], "--x", &e) < 0,
				      "setting %s accepted '%s'", r->flag ? r->flag : "?", bad_numbers[i]);
			tu_has(fslab_err_msg(&e), "--x '");
		}
	}
	ck_assert_int_ge(n, 5);
	/* fslab report's percentages: the option, the value and an example */
	const char *const opts[] = { "--equivalence", "--fail-on-regression" };
	char *fixture;

	ck_assert_int_ge(asprintf(&fixture, "%s/tests/report/fixtures/basic", getenv("FSLAB_SOURCE_DIR")), 0);

	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < sizeof(bad_numbers) / sizeof(bad_numbers[0]); i++) {
			char want[80];

			ck_assert_int_eq(ft_fslab(&o, "report", fixture, "--format", "text", opts[k],
						  bad_numbers[i], NULL), 0);
			/* bad usage is 2, but 125 (cannot tell) for git bisect run */
			ck_assert_msg(o.status == (k ? 125 : 2), "report %s '%s': exit %d", opts[k],
				      bad_numbers[i], o.status);
			snprintf(want, sizeof(want), "%s '", opts[k]);
			tu_has(o.err, want);
			tu_has(o.err, "e.g. 5");
			ft_output_free(&o);
		}
	/* and what they do accept */
	ck_assert_int_eq(ft_fslab(&o, "report", fixture, "--format", "text", "--equivalence", "2.5", NULL), 0);
	ck_assert_msg(o.status == 0, "exit %d: %s", o.status, o.err);
	ft_output_free(&o);
	/* one run a side (a copy of it after): read, then "cannot tell" */
	char *copy = tu_tpath("after"), cmd[8192];

	snprintf(cmd, sizeof(cmd), "cp -r '%s' '%s'", fixture, copy);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_int_eq(ft_fslab(&o, "report", fixture, copy, "--fail-on-regression", "0", NULL), 0);
	free(copy);
	ck_assert_msg(o.status == 125 && strstr(o.err, "cannot tell"), "exit %d: %s", o.status, o.err);
	ft_output_free(&o);
	free(fixture);
}
END_TEST

/* Entries of dir but . and .. (asserts it can be read). */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)))
		n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
	closedir(d);
	return n;
}

/* fslab report --out on the tmpfs mnt (size KiB) failed as it should: 1,
 * ENOSPC and the --out path named, no temporary name; or it succeeded. */
static bool full_refused(const struct ft_output *o, const char *out)
{
	if (o->status == 0)
		return false;
	ck_assert_msg(o->status == 1, "exit %d: %s", o->status, o->err);
	tu_has(o->err, "No space left on device");
	tu_has(o->err, out);
	tu_has(o->err, "make room");
	ck_assert_msg(!strstr(o->err, ".fslab-report.tmp") && !strstr(o->err, "Input/output error"),
		      "the message names a temporary file or the wrong cause: %s", o->err);
	return true;
}

START_TEST(full_output_filesystem)
{
	static const char *const sizes[] = { "8k", "16k", "64k", "200k", "400k", "560k", "600k", "4m" };
	char *mnt = tu_tpath("mnt"), *out = tu_join(mnt, "rep"), *txt = tu_join(out, "report.txt");
	char *fill = tu_join(mnt, "filler"), *fixture, *before;
	struct ft_output o;
	int refused = 0;
	FILE *f;

	ck_assert_int_ge(asprintf(&fixture, "%s/tests/report/fixtures/basic", getenv("FSLAB_SOURCE_DIR")), 0);
	ck_assert_int_eq(mkdir(mnt, 0755), 0);
	/* an empty filesystem too small for the report, at each step of it */
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		char opt[32];

		snprintf(opt, sizeof(opt), "size=%s", sizes[i]);
		ck_assert_int_eq(mount("tmpfs", mnt, "tmpfs", 0, opt), 0);
		for (int plots = 0; plots < 2; plots++) {
			ck_assert_int_eq(ft_fslab(&o, "report", fixture, "--out", out, "--plots",
						  plots ? "all" : "none", NULL), 0);
			if (full_refused(&o, out)) {
				refused++;
				ck_assert_msg(entries(mnt) == 0, "size %s: something left after the failure", sizes[i]);
			} else {
				ck_assert_msg(i > 0, "a report fitted in %s", sizes[i]);
				ck_assert(entries(mnt) == 1);
				ft_rm_rf(out);
			}
			ft_output_free(&o);
		}
		ck_assert_int_eq(umount(mnt), 0);
	}
	ck_assert_int_ge(refused, 8);
	/* an earlier report in place, the filesystem then filled: it stays whole */
	ck_assert_int_eq(mount("tmpfs", mnt, "tmpfs", 0, "size=1m"), 0);
	ck_assert_int_eq(ft_fslab(&o, "report", fixture, "--out", out, "--plots", "none", NULL), 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	ft_output_free(&o);
	before = tu_slurp(txt);
	f = fopen(fill, "w");
	ck_assert_ptr_nonnull(f);
	while (fputs("fill fill fill fill fill fill fill fill fill fill fill fill fill\n", f) >= 0 && !ferror(f))
		;
	fclose(f);
	ck_assert_int_eq(ft_fslab(&o, "report", fixture, "--out", out, "--plots", "none", NULL), 0);
	ck_assert(full_refused(&o, out));
	ft_output_free(&o);
	ck_assert_int_eq(entries(mnt), 2);
	{
		char *after = tu_slurp(txt);

		ck_assert_str_eq(after, before);
		free(after);
	}
	ck_assert_int_eq(umount(mnt), 0);
	free(before);
	free(fixture);
	free(fill);
	free(txt);
	free(out);
	free(mnt);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("trust-term");
	TCase *tc = ft_tcase(s, "user", 0);

	tu_dir_fixtures(tc, "fslab-trust-term");
	tcase_add_test(tc, foreign_text_is_escaped_everywhere);
	tcase_add_test(tc, numbers_are_read_strictly);
	tc = ft_tcase(s, "root", FT_ROOT);
	tu_dir_fixtures(tc, "fslab-trust-term-root");
	tcase_add_test(tc, full_output_filesystem);
	return ft_suite_run(s, argc, argv);
}
