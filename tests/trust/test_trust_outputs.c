/* Trust, class 3 and the terminal part of class 8 (issue 9): what fslab
 * report, export and import write over.  Each case is set up as the attack
 * (a directory that looks like a report, an output that is the input or the
 * lab's state file, a foreign manifest.json, names carrying terminal escape
 * sequences) and asserts that the victim is byte-identical afterwards and
 * that fslab exits non-zero naming the problem.  No root needed. */
#include "state.h"
#include "testutil.h"
#include "trust_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *tmp;
static char fixture[4096];

static void setup(void)
{
	const char *src = getenv("FSLAB_SOURCE_DIR");

	snprintf(fixture, sizeof(fixture), "%s/tests/report/fixtures/basic", src ? src : "../..");
	tmp = ft_mkdtemp("fslab-trust-outputs");
	ck_assert_ptr_nonnull(tmp);
	unsetenv("FSLAB_STATE");
}

static void teardown(void)
{
	ft_rm_rf(tmp);
	free(tmp);
}

static char *path(const char *name)
{
	return tu_join(tmp, name);
}

/* The file at p still holds exactly want. */
static void intact(const char *p, const char *want)
{
	char *got = tu_slurp(p);

	ck_assert_msg(strcmp(got, want) == 0, "%s changed: now '%.200s'", p, got);
	free(got);
}

/* A copy of the fixture's ext4.csv, to export and import from. */
static char *results_copy(const char *name)
{
	char *dir = path(name), *src, *dst, *text;

	ck_assert_int_eq(mkdir(dir, 0755), 0);
	ck_assert_int_ge(asprintf(&src, "%s/ext4.csv", fixture), 0);
	ck_assert_int_ge(asprintf(&dst, "%s/ext4.csv", dir), 0);
	text = tu_slurp(src);
	ck_assert_int_eq(ft_write_file(dst, text), 0);
	free(text);
	free(src);
	free(dst);
	return dir;
}

static void report_ok(const char *out)
{
	struct ft_output o;

	ck_assert_int_eq(ft_fslab(&o, "report", fixture, "--out", out, "--plots", "none",
				  "--format", "html", NULL), 0);
	ck_assert_msg(o.status == 0, "report --out %s: exit %d: %s", out, o.status, o.err);
	ft_output_free(&o);
}

static void report_refused(const char *out, const char *why)
{
	struct ft_output o;

	ck_assert_int_eq(ft_fslab(&o, "report", fixture, "--out", out, "--plots", "none",
				  "--format", "html", NULL), 0);
	ck_assert_msg(o.status == 1, "report --out %s: exit %d (want 1): %s", out, o.status, o.err);
	tu_has(o.err, why);
	ft_output_free(&o);
}

/* `import iozone rep --fs ext4 --out out` exits 1 (naming want if want). */
static void import_refused(const char *rep, const char *out, const char *want)
{
	struct ft_output o;

	ck_assert_int_eq(ft_fslab(&o, "import", "iozone", rep, "--fs", "ext4", "--out", out, NULL), 0);
	ck_assert_msg(o.status == 1, "import --out %s: exit %d (want 1): %s", out, o.status, o.err);
	if (want)
		tu_has(o.err, want);
	ft_output_free(&o);
}

/* No temporary report directory left beside the outputs. */
static void no_temporaries(void)
{
	char cmd[4200];
	struct ft_output o;

	snprintf(cmd, sizeof(cmd), "%s", tmp);
	const char *argv[] = { "find", cmd, "-name", ".fslab-report.tmp-*", NULL };
	ck_assert_int_eq(ft_run(argv, NULL, &o), 0);
	ck_assert_msg(o.out[0] == '\0', "temporary left behind: %s", o.out);
	ft_output_free(&o);
}

START_TEST(t_report_out_not_a_report)
{
	/* the old rule: report.html in DIR made DIR a report to delete */
	char *out = path("thesis"), *html = path("thesis/report.html"),
	     *victim = path("thesis/chapter1.tex");

	ck_assert_int_eq(mkdir(out, 0755), 0);
	ck_assert_int_eq(ft_write_file(html, "<p>my notes</p>"), 0);
	ck_assert_int_eq(ft_write_file(victim, "\\chapter{One}"), 0);
	report_refused(out, "is not an earlier fslab report");
	intact(victim, "\\chapter{One}");
	intact(html, "<p>my notes</p>");
	no_temporaries();
	free(out);
	free(html);
	free(victim);
}
END_TEST

START_TEST(t_report_out_replaced)
{
	char *out = path("rep"), *marker = path("rep/.fslab-report"), *html = path("rep/report.html"),
	     *extra = path("rep/stale.txt");
	struct stat st;

	/* a new directory, then the same one again: fslab's own report is
	 * replaced as a whole (a file left in it is gone) */
	report_ok(out);
	ck_assert(tu_exists(html));
	ck_assert_int_eq(lstat(marker, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	char *m1 = tu_slurp(marker);
	tu_has(m1, "fslab report directory\nid ");
	ck_assert_int_eq(ft_write_file(extra, "old"), 0);
	report_ok(out);
	ck_assert(tu_exists(html));
	ck_assert(!tu_exists(extra));
	char *m2 = tu_slurp(marker);
	ck_assert_msg(strcmp(m1, m2) != 0, "the marker's id did not change: %s", m2);
	/* an empty directory is fine too */
	char *empty = path("empty");
	ck_assert_int_eq(mkdir(empty, 0755), 0);
	report_ok(empty);
	no_temporaries();
	free(m1);
	free(m2);
	free(empty);
	free(out);
	free(marker);
	free(html);
	free(extra);
}
END_TEST

START_TEST(t_report_out_marker_forged)
{
	char *out = path("forged"), *marker = path("forged/.fslab-report"),
	     *victim = path("forged/data.csv"), *elsewhere = path("real-marker");
	char *valid;

	/* a valid marker's text, but as a symlink to a file fslab wrote */
	report_ok(elsewhere);
	ck_assert_int_ge(asprintf(&valid, "%s/.fslab-report", elsewhere), 0);
	ck_assert_int_eq(mkdir(out, 0755), 0);
	ck_assert_int_eq(ft_write_file(victim, "1,2,3"), 0);
	ck_assert_int_eq(symlink(valid, marker), 0);
	report_refused(out, "symlink");
	intact(victim, "1,2,3");
	/* a marker file with other text */
	ck_assert_int_eq(unlink(marker), 0);
	ck_assert_int_eq(ft_write_file(marker, "trust me\n"), 0);
	report_refused(out, "not one fslab wrote");
	intact(victim, "1,2,3");
	/* a hard link to a real marker */
	ck_assert_int_eq(unlink(marker), 0);
	ck_assert_int_eq(link(valid, marker), 0);
	report_refused(out, "links");
	intact(victim, "1,2,3");
	/* --out itself a symlink to a report directory fslab wrote */
	char *ln = path("link-to-report");
	ck_assert_int_eq(symlink(elsewhere, ln), 0);
	report_refused(ln, "symlink");
	ck_assert(tu_exists(valid));
	/* --out a regular file */
	char *file = path("plain-file");
	ck_assert_int_eq(ft_write_file(file, "keep"), 0);
	report_refused(file, "not a report directory");
	intact(file, "keep");
	no_temporaries();
	free(ln);
	free(file);
	free(valid);
	free(out);
	free(marker);
	free(victim);
	free(elsewhere);
}
END_TEST

START_TEST(t_export_over_input)
{
	char *dir = results_copy("res"), *csv, *before;

	ck_assert_int_ge(asprintf(&csv, "%s/ext4.csv", dir), 0);
	before = tu_slurp(csv);
	tu_export_refused(csv, csv, false, "is the input");
	tu_export_refused(csv, csv, true, "not even with --force");
	intact(csv, before);
	/* the same file through a hard link and through a symlink */
	char *hl = path("hard.txt"), *sl = path("soft.txt");
	ck_assert_int_eq(link(csv, hl), 0);
	ck_assert_int_eq(symlink(csv, sl), 0);
	tu_export_refused(csv, hl, true, "is the input");
	tu_export_refused(csv, sl, true, "is the input");
	intact(csv, before);
	free(hl);
	free(sl);
	free(before);
	free(csv);
	free(dir);
}
END_TEST

START_TEST(t_export_over_other_file)
{
	char *dir = results_copy("res2"), *csv, *out = path("notes.txt");
	struct ft_output o;

	ck_assert_int_ge(asprintf(&csv, "%s/ext4.csv", dir), 0);
	ck_assert_int_eq(ft_write_file(out, "my notes"), 0);
	tu_export_refused(csv, out, false, "exists; use --force");
	intact(out, "my notes");
	ck_assert_int_eq(ft_fslab(&o, "export", "iozone", csv, "--out", out, "--force", NULL), 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	ft_output_free(&o);
	char *got = tu_slurp(out);
	tu_has(got, "Excel output is below:");
	free(got);
	free(csv);
	free(out);
	free(dir);
}
END_TEST

START_TEST(t_export_over_state)
{
	char *dir = results_copy("res3"), *csv, *state = path("lab-state.json"),
	     *other = path("other-state.json");
	struct ft_output o;

	ck_assert_int_ge(asprintf(&csv, "%s/ext4.csv", dir), 0);
	tu_write_mounted_state(state);
	tu_write_mounted_state(other);
	char *before = tu_slurp(state), *before2 = tu_slurp(other);
	/* the live state file, named by $FSLAB_STATE */
	setenv("FSLAB_STATE", state, 1);
	tu_export_refused(csv, state, true, "state file");
	unsetenv("FSLAB_STATE");
	intact(state, before);
	/* any file the state loader accepts */
	tu_export_refused(csv, other, true, "is an fslab state file");
	intact(other, before2);
	/* import's CSV over a state file: also refused */
	char *imp = path("imp"), *named;
	ck_assert_int_eq(mkdir(imp, 0755), 0);
	ck_assert_int_ge(asprintf(&named, "%s/lab.csv", imp), 0);
	ck_assert_int_eq(link(other, named), 0);
	char *rep = path("iozone.txt");
	ck_assert_int_eq(ft_fslab(&o, "export", "iozone", csv, "--out", rep, NULL), 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	ft_output_free(&o);
	ck_assert_int_eq(ft_fslab(&o, "import", "iozone", rep, "--fs", "lab", "--out", imp, "--force",
				  NULL), 0);
	ck_assert_int_eq(o.status, 1);
	tu_has(o.err, "state file");
	ft_output_free(&o);
	intact(other, before2);
	free(imp);
	free(named);
	free(rep);
	free(before);
	free(before2);
	free(state);
	free(other);
	free(csv);
	free(dir);
}
END_TEST

START_TEST(t_import_foreign_manifest)
{
	char *dir = results_copy("res4"), *csv, *rep = path("iozone-foreign.txt"), *imp = path("project"),
	     *man = path("project/manifest.json");
	struct ft_output o;
	static const char foreign[] = "{ \"name\": \"my web app\", \"version\": \"2.1\" }\n";

	ck_assert_int_ge(asprintf(&csv, "%s/ext4.csv", dir), 0);
	ck_assert_int_eq(ft_fslab(&o, "export", "iozone", csv, "--out", rep, NULL), 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	ft_output_free(&o);
	ck_assert_int_eq(mkdir(imp, 0755), 0);
	ck_assert_int_eq(ft_write_file(man, foreign), 0);
	import_refused(rep, imp, "was not written by fslab import");
	intact(man, foreign);
	char *made;
	ck_assert_int_ge(asprintf(&made, "%s/ext4.csv", imp), 0);
	ck_assert(!tu_exists(made));
	/* a run's manifest (fslab run wrote it; it has no imported_from) */
	ck_assert_int_eq(ft_write_file(man, "{ \"fslab_version\": \"0.1.0\", \"cache_mode\": \"cold\" }\n"), 0);
	import_refused(rep, imp, NULL);
	intact(man, "{ \"fslab_version\": \"0.1.0\", \"cache_mode\": \"cold\" }\n");
	/* a symlink named manifest.json */
	char *target = path("target.json");
	ck_assert_int_eq(ft_write_file(target, foreign), 0);
	ck_assert_int_eq(unlink(man), 0);
	ck_assert_int_eq(symlink(target, man), 0);
	import_refused(rep, imp, "symlink");
	intact(target, foreign);
	/* an earlier import's manifest is extended, with the same cache mode
	 * only */
	char *imp2 = path("imports");
	ck_assert_int_eq(ft_fslab(&o, "import", "iozone", rep, "--fs", "a", "--out", imp2, NULL), 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	ft_output_free(&o);
	ck_assert_int_eq(ft_fslab(&o, "import", "iozone", rep, "--fs", "b", "--out", imp2, NULL), 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	ft_output_free(&o);
	ck_assert_int_eq(ft_fslab(&o, "import", "iozone", rep, "--fs", "c", "--out", imp2, "--cache",
				  "direct", NULL), 0);
	ck_assert_int_eq(o.status, 1);
	tu_has(o.err, "cache mode");
	ft_output_free(&o);
	/* and the input itself is never the output */
	char *self = path("imports/a.csv");
	char *before = tu_slurp(self);
	ck_assert_int_eq(ft_fslab(&o, "import", "iozone", self, "--fs", "a", "--out", imp2, "--force",
				  NULL), 0);
	ck_assert_int_ne(o.status, 0);
	ft_output_free(&o);
	intact(self, before);
	free(before);
	free(self);
	free(imp2);
	free(target);
	free(made);
	free(csv);
	free(rep);
	free(imp);
	free(man);
	free(dir);
}
END_TEST

START_TEST(t_text_report_escapes)
{
	/* a results directory, a filesystem CSV and a status carrying escape
	 * sequences: the text report shows them as \xNN */
	char *dir = path("res\x1b]0;owned\x07\x1b[2J"), *csv, *rtxt;
	struct ft_output o;

	ck_assert_int_eq(mkdir(dir, 0755), 0);
	ck_assert_int_ge(asprintf(&csv, "%s/ext4.csv", dir), 0);
	ck_assert_int_eq(ft_write_file(csv,
		"filesystem,test,file_size_kib,record_size_kib,trial,throughput_kib_s,elapsed_s,cache_mode,status,flag\n"
		"ext4,write,1024,64,1,1000,0.1,warm,ok,\n"
		"ext4,write,2048,64,1,1000,0.1,warm,ok,\n"
		"ext4,read,2048,64,1,0,0.1,warm,failed: bad \x1b[31mred\x1b[0m,\n"),
		0);
	ck_assert_int_eq(ft_fslab(&o, "report", dir, "--format", "text", NULL), 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	ck_assert_msg(strchr(o.out, '\x1b') == NULL && strchr(o.out, '\x07') == NULL,
		      "raw control bytes in the text report:\n%s", o.out);
	tu_has(o.out, "res\\x1b]0;owned\\x07\\x1b[2J");
	ft_output_free(&o);
	/* report.txt and the terminal lines of the full report too; the HTML
	 * has the name HTML-escaped */
	char *out = path("escout");
	ck_assert_int_eq(ft_fslab(&o, "report", dir, "--out", out, "--plots", "none", NULL), 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	ck_assert(strchr(o.out, '\x1b') == NULL && strchr(o.err, '\x1b') == NULL);
	ft_output_free(&o);
	ck_assert_int_ge(asprintf(&rtxt, "%s/report.txt", out), 0);
	char *t = tu_slurp(rtxt);
	ck_assert(strchr(t, '\x1b') == NULL);
	free(t);
	free(rtxt);
	/* a bad CSV's error message names the path escaped */
	char *bad;
	ck_assert_int_ge(asprintf(&bad, "%s/xfs.csv", dir), 0);
	ck_assert_int_eq(ft_write_file(bad, "nonsense\n"), 0);
	ck_assert_int_eq(ft_fslab(&o, "report", dir, "--format", "text", NULL), 0);
	ck_assert_int_eq(o.status, 2);
	ck_assert_msg(strchr(o.err, '\x1b') == NULL, "raw escape in the error: %s", o.err);
	tu_has(o.err, "\\x1b");
	ft_output_free(&o);
	free(bad);
	free(out);
	free(csv);
	free(dir);
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("trust-outputs");
	TCase *tc = ft_tcase(s, "outputs", 0);

	/* unchecked: the directory is removed also after a failed test */
	tcase_add_unchecked_fixture(tc, setup, teardown);
	tcase_add_test(tc, t_report_out_not_a_report);
	tcase_add_test(tc, t_report_out_replaced);
	tcase_add_test(tc, t_report_out_marker_forged);
	tcase_add_test(tc, t_export_over_input);
	tcase_add_test(tc, t_export_over_other_file);
	tcase_add_test(tc, t_export_over_state);
	tcase_add_test(tc, t_import_foreign_manifest);
	tcase_add_test(tc, t_text_report_escapes);
	return ft_suite_run(s, argc, argv);
}
