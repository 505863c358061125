/* report.html in a real browser: Debian's chromium, headless, loads the
 * report from disk; a copy of the page with a small script appended writes
 * how many images decoded (naturalWidth > 0) into the DOM, which
 * --dump-dom prints.  A control page with one broken image shows the check
 * can fail.  A screenshot lands in the build folder.  Skipped (77) only
 * when chromium is not installed. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *chromium(void)
{
	static const char *const cands[] = { "/usr/bin/chromium", "/usr/bin/chromium-browser",
					     "/usr/bin/google-chrome" };
	for (size_t i = 0; i < sizeof(cands) / sizeof(cands[0]); i++)
		if (access(cands[i], X_OK) == 0)
			return cands[i];
	return NULL;
}

static char *tmp;

static char *slurp(const char *p)
{
	FILE *f = fopen(p, "rb");
	long n;
	char *b;

	ck_assert_msg(f != NULL, "cannot open %s", p);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	b = malloc((size_t)n + 1);
	ck_assert_uint_eq(fread(b, 1, (size_t)n, f), (size_t)n);
	b[n] = '\0';
	fclose(f);
	return b;
}

static const char check_js[] =
	"<script>\n"
	"window.addEventListener('load', function () {\n"
	"  var imgs = document.images, bad = 0;\n"
	"  for (var i = 0; i < imgs.length; i++)\n"
	"    if (!(imgs[i].complete && imgs[i].naturalWidth > 0)) bad++;\n"
	"  var p = document.createElement('pre');\n"
	"  p.textContent = 'IMG' + 'CHECK total=' + imgs.length + ' bad=' + bad + ' end';\n"
	"  document.body.appendChild(p);\n"
	"});\n"
	"</script>\n";

/* Writes html with the check script (and extra markup) before </body>. */
static char *check_page(const char *html, const char *name, const char *extra)
{
	char *p, *at = strstr(html, "</body>");
	FILE *f;

	ck_assert_ptr_nonnull(at);
	ck_assert_int_ge(asprintf(&p, "%s/%s", tmp, name), 0);
	f = fopen(p, "w");
	fwrite(html, 1, (size_t)(at - html), f);
	fputs(extra, f);
	fputs(check_js, f);
	fputs(at, f);
	fclose(f);
	return p;
}

static void run_check(const char *browser, const char *page, int *total, int *bad)
{
	char *url, *prof, *pflag;
	struct ft_output o;

	ck_assert_int_ge(asprintf(&url, "file://%s", page), 0);
	ck_assert_int_ge(asprintf(&prof, "%s/profile-XXXXXX", tmp), 0);
	ck_assert_ptr_nonnull(mkdtemp(prof));
	ck_assert_int_ge(asprintf(&pflag, "--user-data-dir=%s", prof), 0);
	const char *argv[] = { browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
			       "--no-first-run", "--disable-background-networking",
			       "--disable-component-update", "--disable-sync", "--disable-crash-reporter",
			       pflag, "--virtual-time-budget=5000", "--dump-dom", url, NULL };
	ck_assert_int_eq(ft_run(argv, NULL, &o), 0);
	ck_assert_msg(o.status == 0, "chromium exit %d: %s", o.status, o.err);
	const char *m = strstr(o.out, "IMGCHECK total=");
	ck_assert_msg(m, "the page's check did not run; DOM tail: %s",
		      o.out + (strlen(o.out) > 400 ? strlen(o.out) - 400 : 0));
	ck_assert_int_eq(sscanf(m, "IMGCHECK total=%d bad=%d", total, bad), 2);
	ft_output_free(&o);
	free(url);
	free(prof);
	free(pflag);
}

START_TEST(t_report_in_chromium)
{
	const char *browser = chromium();
	const char *src = getenv("FSLAB_SOURCE_DIR"), *build = getenv("FSLAB_BUILD_DIR");
	char *fixture, *out, *html_p, *shot, *shot_flag, *prof, *pflag, *url;
	struct ft_output o;
	int total, bad;

	if (!browser) {
		fprintf(stderr, "skipped: chromium is not installed (apt-get install chromium)\n");
		exit(FSLAB_TEST_SKIP);
	}
	tmp = ft_mkdtemp("fslab-report-browser");
	/* chromium writes crash-report and cache state under $HOME and XDG
	 * dirs, outside --user-data-dir: keep all of it in the test's dir */
	setenv("HOME", tmp, 1);
	setenv("XDG_CONFIG_HOME", tmp, 1);
	setenv("XDG_CACHE_HOME", tmp, 1);
	ck_assert_int_ge(asprintf(&fixture, "%s/tests/report/fixtures/basic", src ? src : "../.."), 0);
	ck_assert_int_ge(asprintf(&out, "%s/out", tmp), 0);
	ck_assert_int_ge(asprintf(&html_p, "%s/out/report.html", tmp), 0);
	ck_assert_int_eq(ft_fslab(&o, "report", fixture, "--out", out, "--format", "html", NULL), 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	ft_output_free(&o);

	char *html = slurp(html_p);
	char *page = check_page(html, "check.html", "");
	run_check(browser, page, &total, &bad);
	ck_assert_int_eq(total, 15); /* every plot of the fixture */
	ck_assert_int_eq(bad, 0);
	free(page);
	/* control: a broken image is caught */
	page = check_page(html, "control.html", "<img alt=\"broken\" src=\"data:image/png;base64,AAAA\">\n");
	run_check(browser, page, &total, &bad);
	ck_assert_int_eq(total, 16);
	ck_assert_int_eq(bad, 1);
	free(page);
	free(html);

	/* a screenshot of the real page for people to look at */
	ck_assert_int_ge(asprintf(&shot, "%s/report-screenshot.png", build ? build : tmp), 0);
	unlink(shot);
	ck_assert_int_ge(asprintf(&shot_flag, "--screenshot=%s", shot), 0);
	ck_assert_int_ge(asprintf(&prof, "%s/profile-shot-XXXXXX", tmp), 0);
	ck_assert_ptr_nonnull(mkdtemp(prof));
	ck_assert_int_ge(asprintf(&pflag, "--user-data-dir=%s", prof), 0);
	ck_assert_int_ge(asprintf(&url, "file://%s", html_p), 0);
	const char *argv[] = { browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
			       "--no-first-run", "--disable-background-networking",
			       "--disable-component-update", "--disable-sync", "--disable-crash-reporter",
			       pflag, "--hide-scrollbars",
			       "--window-size=1280,2400", shot_flag, url, NULL };
	ck_assert_int_eq(ft_run(argv, NULL, &o), 0);
	ck_assert_msg(o.status == 0, "chromium --screenshot exit %d: %s", o.status, o.err);
	ft_output_free(&o);
	char *png = slurp(shot);
	ck_assert_msg(memcmp(png, "\x89PNG", 4) == 0, "%s is not a PNG", shot);
	free(png);
	fprintf(stderr, "screenshot: %s\n", shot);

	ft_rm_rf(tmp);
	free(tmp);
	tmp = NULL;
	free(fixture);
	free(out);
	free(html_p);
	free(shot);
	free(shot_flag);
	free(prof);
	free(pflag);
	free(url);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("report_browser");
	TCase *tc = tcase_create("chromium");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 240);
	tcase_add_test(tc, t_report_in_chromium);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	/* no fork: the skip exit must reach ctest */
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	if (tmp) /* a failed check jumped past the test's own cleanup */
		ft_rm_rf(tmp);
	srunner_free(sr);
	return failed ? 1 : 0;
}
