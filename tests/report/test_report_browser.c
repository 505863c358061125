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
#include <sys/stat.h>
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
	"  var net = 0, els = document.querySelectorAll('[src],[href]');\n"
	"  for (var j = 0; j < els.length; j++) {\n"
	"    var u = els[j].getAttribute('src') || els[j].getAttribute('href') || '';\n"
	"    if (/^[a-z]+:\\/\\/|^\\/\\//i.test(u)) net++;\n"
	"  }\n"
	"  var res = performance.getEntriesByType('resource');\n"
	"  for (var k = 0; k < res.length; k++) if (!/^data:/.test(res[k].name)) net++;\n"
	"  var s = document.getElementById('summary');\n"
	"  var broken = 0, cells = document.querySelectorAll('#summary table.matrix th, #summary table.matrix td');\n"
	"  for (var c = 0; c < cells.length; c++) {\n"
	"    var w = document.createTreeWalker(cells[c], NodeFilter.SHOW_TEXT), n;\n"
	"    while ((n = w.nextNode())) {\n"
	"      var re = /\\S+/g, m;\n"
	"      while ((m = re.exec(n.data))) {\n"
	"        var r = document.createRange();\n"
	"        r.setStart(n, m.index); r.setEnd(n, m.index + m[0].length);\n"
	"        if (r.getClientRects().length > 1) broken++;\n"
	"      }\n"
	"    }\n"
	"  }\n"
	"  var top = s ? Math.round(s.getBoundingClientRect().top + window.scrollY) : -1;\n"
	"  p.textContent = 'IMG' + 'CHECK total=' + imgs.length + ' bad=' + bad + ' sw=' +\n"
	"    document.documentElement.scrollWidth + ' vw=' + window.innerWidth + ' top=' + top +\n"
	"    ' vh=' + window.innerHeight + ' net=' + net +\n"
	"    ' incomplete=' + (document.getElementById('banner-incomplete') ? 1 : 0) +\n"
	"    ' changes=' + (document.getElementById('changes') ? 1 : 0) +\n"
	"    ' broken=' + broken + ' matrix=' + cells.length + ' end';\n"
	"  document.body.appendChild(p);\n"
	"  if (window.parent !== window) window.parent.postMessage(p.textContent, '*');\n"
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

struct page_check {
	int total, bad, sw, vw, top, vh, net, incomplete, changes;
	int broken; /* words of the summary's matrix drawn over two lines */
	int matrix; /* cells of the summary's matrix */
};

/* Loads page in chromium at width x height and reads what the page's
 * check script found.  Headless chromium's window is at least 500 px
 * wide, so the page is shown in an iframe of that size inside a 1400 px
 * window; the frame posts its result to the outer page. */
static void run_check(const char *browser, const char *page, int width, int height,
		      struct page_check *c)
{
	char *url, *prof, *pflag, *wflag, *frame;
	struct ft_output o;
	FILE *f;

	ck_assert_int_ge(asprintf(&frame, "%s.frame-%d.html", page, width), 0);
	f = fopen(frame, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "<!DOCTYPE html><html><head><style>body{margin:0}iframe{border:0;display:block}</style></head><body>\n"
		   "<iframe src=\"%s\" width=\"%d\" height=\"%d\"></iframe>\n"
		   "<script>window.addEventListener('message', function (e) {\n"
		   "  var p = document.createElement('pre'); p.textContent = e.data;\n"
		   "  document.body.appendChild(p); });</script></body></html>\n",
		strrchr(page, '/') + 1, width, height);
	fclose(f);
	ck_assert_int_ge(asprintf(&url, "file://%s", frame), 0);
	width = 1400;
	height = 1000;
	ck_assert_int_ge(asprintf(&prof, "%s/profile-XXXXXX", tmp), 0);
	ck_assert_ptr_nonnull(mkdtemp(prof));
	ck_assert_int_ge(asprintf(&pflag, "--user-data-dir=%s", prof), 0);
	ck_assert_int_ge(asprintf(&wflag, "--window-size=%d,%d", width, height), 0);
	const char *argv[] = { browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
			       "--no-first-run", "--disable-background-networking",
			       "--disable-component-update", "--disable-sync", "--disable-crash-reporter",
			       "--hide-scrollbars", pflag, wflag, "--virtual-time-budget=5000",
			       "--dump-dom", url, NULL };
	ck_assert_int_eq(ft_run(argv, NULL, &o), 0);
	ck_assert_msg(o.status == 0, "chromium exit %d: %s", o.status, o.err);
	const char *m = strstr(o.out, "IMGCHECK total=");
	ck_assert_msg(m, "the page's check did not run; DOM tail: %s",
		      o.out + (strlen(o.out) > 400 ? strlen(o.out) - 400 : 0));
	ck_assert_int_eq(sscanf(m, "IMGCHECK total=%d bad=%d sw=%d vw=%d top=%d vh=%d net=%d incomplete=%d "
				   "changes=%d broken=%d matrix=%d",
				&c->total, &c->bad, &c->sw, &c->vw, &c->top, &c->vh, &c->net,
				&c->incomplete, &c->changes, &c->broken, &c->matrix),
			 11);
	ft_output_free(&o);
	free(url);
	free(prof);
	free(pflag);
	free(wflag);
	free(frame);
}

static void screenshot(const char *browser, const char *html_p, const char *name, int w, int h)
{
	const char *build = getenv("FSLAB_BUILD_DIR");
	char *shot, *shot_flag, *prof, *pflag, *url, *wflag;
	struct ft_output o;

	ck_assert_int_ge(asprintf(&shot, "%s/%s", build ? build : tmp, name), 0);
	unlink(shot);
	ck_assert_int_ge(asprintf(&shot_flag, "--screenshot=%s", shot), 0);
	ck_assert_int_ge(asprintf(&prof, "%s/profile-shot-XXXXXX", tmp), 0);
	ck_assert_ptr_nonnull(mkdtemp(prof));
	ck_assert_int_ge(asprintf(&pflag, "--user-data-dir=%s", prof), 0);
	ck_assert_int_ge(asprintf(&url, "file://%s", html_p), 0);
	ck_assert_int_ge(asprintf(&wflag, "--window-size=%d,%d", w, h), 0);
	const char *argv[] = { browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
			       "--no-first-run", "--disable-background-networking",
			       "--disable-component-update", "--disable-sync", "--disable-crash-reporter",
			       pflag, "--hide-scrollbars", wflag, shot_flag, url, NULL };
	ck_assert_int_eq(ft_run(argv, NULL, &o), 0);
	ck_assert_msg(o.status == 0, "chromium --screenshot exit %d: %s", o.status, o.err);
	ft_output_free(&o);
	char *png = slurp(shot);
	ck_assert_msg(memcmp(png, "\x89PNG", 4) == 0, "%s is not a PNG", shot);
	free(png);
	fprintf(stderr, "screenshot: %s\n", shot);
	free(shot);
	free(shot_flag);
	free(prof);
	free(pflag);
	free(url);
	free(wflag);
}

static const char *browser;

static void need_browser(void)
{
	browser = chromium();
	if (!browser) {
		fprintf(stderr, "skipped: chromium is not installed (apt-get install chromium)\n");
		exit(FSLAB_TEST_SKIP);
	}
	if (tmp) { /* an earlier test failed before its own cleanup */
		ft_rm_rf(tmp);
		free(tmp);
	}
	tmp = ft_mkdtemp("fslab-report-browser");
	/* chromium writes crash-report and cache state under $HOME and XDG
	 * dirs, outside --user-data-dir: keep all of it in the test's dir */
	setenv("HOME", tmp, 1);
	setenv("XDG_CONFIG_HOME", tmp, 1);
	setenv("XDG_CACHE_HOME", tmp, 1);
}

static void done_browser(void)
{
	ft_rm_rf(tmp);
	free(tmp);
	tmp = NULL;
}

/* fslab report DIRS... --out tmp/NAME; returns the report.html path */
static char *make_report(const char *name, const char *d1, const char *d2)
{
	char *out, *html_p;
	struct ft_output o;

	ck_assert_int_ge(asprintf(&out, "%s/%s", tmp, name), 0);
	ck_assert_int_ge(asprintf(&html_p, "%s/report.html", out), 0);
	if (d2)
		ck_assert_int_eq(ft_fslab(&o, "report", d1, d2, "--out", out, "--format", "html", NULL), 0);
	else
		ck_assert_int_eq(ft_fslab(&o, "report", d1, "--out", out, "--format", "html", NULL), 0);
	ck_assert_msg(o.status == 0, "%s", o.err);
	ft_output_free(&o);
	free(out);
	return html_p;
}

/* At a phone's, a small tablet's and a laptop's width: #summary starts in
 * the first screen, nothing scrolls sideways (the matrix scrolls inside
 * its own box), no word of the summary's matrix is broken over two lines,
 * every image decodes, nothing comes from a network. */
static void check_fits(const char *html_p, const char *name, int n_img, struct page_check *c)
{
	static const int widths[] = { 1400, 400, 360 };
	char *html = slurp(html_p), *page, pn[64];

	snprintf(pn, sizeof(pn), "check-%s.html", name);
	page = check_page(html, pn, "");
	for (size_t i = 0; i < sizeof(widths) / sizeof(widths[0]); i++) {
		run_check(browser, page, widths[i], 900, c);
		ck_assert_msg(c->vw == widths[i], "%s: viewport %d, wanted %d", name, c->vw, widths[i]);
		if (n_img >= 0)
			ck_assert_int_eq(c->total, n_img);
		ck_assert_int_eq(c->bad, 0);
		ck_assert_msg(c->sw <= c->vw, "%s at %d px: the page is %d px wide (scrolls sideways)",
			      name, widths[i], c->sw);
		ck_assert_msg(c->top >= 0 && c->top < c->vh - 100,
			      "%s at %d px: #summary starts at %d px, below the first screen (%d)", name,
			      widths[i], c->top, c->vh);
		ck_assert_int_eq(c->net, 0);
		ck_assert_msg(c->matrix > 0, "%s: no summary matrix", name);
		ck_assert_msg(c->broken == 0, "%s at %d px: %d words of the summary's matrix are broken over lines",
			      name, widths[i], c->broken);
	}
	free(page);
	free(html);
}

START_TEST(t_report_in_chromium)
{
	const char *src = getenv("FSLAB_SOURCE_DIR");
	char *fixture, *html_p, *page;
	struct page_check c;

	need_browser();
	ck_assert_int_ge(asprintf(&fixture, "%s/tests/report/fixtures/basic", src ? src : "../.."), 0);
	html_p = make_report("out", fixture, NULL);
	check_fits(html_p, "fixture", 15, &c); /* every plot of the fixture */
	ck_assert_int_eq(c.changes, 0);

	/* control: a broken image, an overflowing block and a network image
	 * are caught */
	char *html = slurp(html_p);
	page = check_page(html, "control.html",
			  "<img alt=\"broken\" src=\"data:image/png;base64,AAAA\">\n"
			  "<div style=\"width:3000px\">wide</div><img alt=\"net\" src=\"http://192.0.2.1/x.png\">\n"
			  "<style>#summary table.matrix th,#summary table.matrix td{white-space:normal!important;"
			  "word-break:break-all!important;max-width:1.5em}</style>\n");
	run_check(browser, page, 1400, 900, &c);
	ck_assert_int_eq(c.total, 17);
	ck_assert_int_eq(c.bad, 2);
	ck_assert_int_ge(c.sw, 3000);
	ck_assert_int_ge(c.net, 1);
	ck_assert_int_gt(c.broken, 0); /* a matrix squeezed to break its words is caught */
	free(page);
	free(html);

	/* screenshots of the real page for people to look at */
	screenshot(browser, html_p, "report-screenshot-1400.png", 1400, 900);
	screenshot(browser, html_p, "report-screenshot-400.png", 400, 900);
	done_browser();
	free(fixture);
	free(html_p);
}
END_TEST

static void copy_file(const char *from, const char *to)
{
	char *t = slurp(from);
	ck_assert_int_eq(ft_write_file(to, t), 0);
	free(t);
}

START_TEST(t_interrupted_run)
{
	const char *src = getenv("FSLAB_SOURCE_DIR");
	char *dir, *p, *q, *html_p, *html;
	struct page_check c;

	need_browser();
	/* the fixture cut short: ext4 (the best reader) lost its third read
	 * trial, fat32 has 1, xfs is in the manifest but has no CSV, and the
	 * manifest says the run was interrupted: what every cell finished
	 * (1 trial) is ranked, with each cell's complete trials */
	ck_assert_int_ge(asprintf(&dir, "%s/interrupted", tmp), 0);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	static const char *const fss[] = { "btrfs", "fat32" };
	for (size_t i = 0; i < 2; i++) {
		ck_assert_int_ge(asprintf(&p, "%s/tests/report/fixtures/basic/%s.csv", src ? src : "../..", fss[i]), 0);
		ck_assert_int_ge(asprintf(&q, "%s/%s.csv", dir, fss[i]), 0);
		copy_file(p, q);
		free(p);
		free(q);
	}
	ck_assert_int_ge(asprintf(&p, "%s/tests/report/fixtures/basic/ext4.csv", src ? src : "../.."), 0);
	char *t = slurp(p), *cut = strstr(t, "ext4,read,1024,64,3,");
	ck_assert_ptr_nonnull(cut);
	*cut = '\0';
	ck_assert_int_ge(asprintf(&q, "%s/ext4.csv", dir), 0);
	ck_assert_int_eq(ft_write_file(q, t), 0);
	free(t);
	free(p);
	free(q);
	ck_assert_int_ge(asprintf(&q, "%s/manifest.json", dir), 0);
	ck_assert_int_eq(ft_write_file(q, "{ \"cache_mode\": \"warm\", \"trials\": 3, \"started_at\": \"2026-11-29T10:00:00Z\",\n"
					  "  \"interrupted\": true, \"filesystems\": [ { \"name\": \"ext4\" }, { \"name\": \"btrfs\" },\n"
					  "  { \"name\": \"fat32\" }, { \"name\": \"xfs\" } ] }\n"),
			 0);
	free(q);
	html_p = make_report("out-interrupted", dir, NULL);
	check_fits(html_p, "interrupted", -1, &c);
	ck_assert_int_eq(c.incomplete, 1);
	html = slurp(html_p);
	/* the banner: how far the run got, how to finish it, who has no data */
	ck_assert_msg(strstr(html, "was interrupted after 1 complete trial of the 3 it was started with"),
		      "the banner does not say how far the run got");
	ck_assert_msg(strstr(html, "To finish it: fslab run --resume "), "the banner does not say how to finish");
	ck_assert_msg(strstr(html, "Not measured in full: xfs (no data)"), "xfs not named in the banner");
	ck_assert_msg(!strstr(html, "ext4 (partial data)"), "ext4's complete trials not ranked");
	/* xfs ranked nowhere; ext4 (the complete run's best reader) ranked on
	 * its 2 complete read trials, second to btrfs on them */
	char *rd = strstr(html, "id=\"rank-read\"");
	ck_assert_ptr_nonnull(rd);
	char *end = strstr(rd, "</table>");
	ck_assert_ptr_nonnull(end);
	*end = '\0'; /* the read ranking only */
	ck_assert_msg(!strstr(rd, "<td class=l>xfs</td>"), "xfs has a ranking row");
	const char *first = strstr(rd, "<td>1</td><td class=l>");
	ck_assert_ptr_nonnull(first);
	ck_assert_msg(strncmp(first + strlen("<td>1</td><td class=l>"), "btrfs", 5) == 0,
		      "read's #1 is not btrfs: %.80s", first);
	ck_assert_msg(strstr(rd, "<td class=l>ext4</td>") && !strstr(rd, "partial data"), "ext4 not ranked in read");
	free(html);
	free(html_p);
	free(dir);
	done_browser();
}
END_TEST

START_TEST(t_before_after)
{
	const char *src = getenv("FSLAB_SOURCE_DIR");
	char *fixture, *after, *html_p;
	struct page_check c;

	need_browser();
	ck_assert_int_ge(asprintf(&fixture, "%s/tests/report/fixtures/basic", src ? src : "../.."), 0);
	/* "after": the same filesystems, ext4's write twice as fast */
	ck_assert_int_ge(asprintf(&after, "%s/after", tmp), 0);
	ck_assert_int_eq(mkdir(after, 0755), 0);
	static const char *const fss[] = { "btrfs", "fat32", "ext4" };
	for (size_t i = 0; i < 3; i++) {
		char *p, *q, *t;
		ck_assert_int_ge(asprintf(&p, "%s/%s.csv", fixture, fss[i]), 0);
		ck_assert_int_ge(asprintf(&q, "%s/%s.csv", after, fss[i]), 0);
		t = slurp(p);
		if (i == 2) {
			FILE *f = fopen(q, "w");
			char *save = NULL;
			for (char *l = strtok_r(t, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
				unsigned long long fk, rk, tr, v;
				char rest[256];
				if (sscanf(l, "ext4,write,%llu,%llu,%llu,%llu,%255s", &fk, &rk, &tr, &v, rest) == 5)
					fprintf(f, "ext4,write,%llu,%llu,%llu,%llu,%s\n", fk, rk, tr, v * 2, rest);
				else
					fprintf(f, "%s\n", l);
			}
			fclose(f);
		} else {
			ck_assert_int_eq(ft_write_file(q, t), 0);
		}
		free(t);
		free(p);
		free(q);
	}
	/* each side two runs (copies: no spread between them), so the change
	 * has an interval */
	char *sides[2], *cmd;
	ck_assert_int_ge(asprintf(&cmd, "mkdir %s/before2 %s/after2 && cp %s/* %s/before2/ && cp %s/* %s/after2/",
				  tmp, tmp, fixture, tmp, after, tmp), 0);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_int_ge(asprintf(&sides[0], "%s,%s/before2", fixture, tmp), 0);
	ck_assert_int_ge(asprintf(&sides[1], "%s,%s/after2", after, tmp), 0);
	html_p = make_report("out-ba", sides[0], sides[1]);
	free(cmd);
	free(sides[0]);
	free(sides[1]);
	check_fits(html_p, "before-after", -1, &c);
	ck_assert_int_eq(c.changes, 1);
	char *html = slurp(html_p);
	const char *chg = strstr(html, "id=\"changes\"");
	ck_assert_ptr_nonnull(chg);
	/* ext4's write: 2.00, faster beyond noise */
	ck_assert_msg(strstr(chg, "<td class=faster") && strstr(chg, ">2.00"),
		      "ext4's doubled write not shown as faster");
	screenshot(browser, html_p, "report-screenshot-before-after.png", 1400, 900);
	free(html);
	free(html_p);
	free(after);
	free(fixture);
	done_browser();
}
END_TEST

/* Writes to_dir/NEW.csv: from.csv (filesystem OLD) with its filesystem
 * column renamed NEW and its cache mode column set to mode. */
static void copy_fs_csv(const char *from_dir, const char *old, const char *to_dir, const char *new,
			const char *mode)
{
	char *p, *q, *t, *save = NULL, prefix[32];
	FILE *f;

	ck_assert_int_ge(asprintf(&p, "%s/%s.csv", from_dir, old), 0);
	ck_assert_int_ge(asprintf(&q, "%s/%s.csv", to_dir, new), 0);
	t = slurp(p);
	f = fopen(q, "w");
	ck_assert_ptr_nonnull(f);
	snprintf(prefix, sizeof(prefix), "%s,", old);
	for (char *l = strtok_r(t, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *warm = strstr(l, ",warm,");
		if (strncmp(l, prefix, strlen(prefix)) != 0) {
			fprintf(f, "%s\n", l); /* the header */
			continue;
		}
		ck_assert_ptr_nonnull(warm);
		*warm = '\0';
		fprintf(f, "%s,%s,%s,%s\n", new, l + strlen(prefix), mode, warm + strlen(",warm,"));
	}
	fclose(f);
	free(t);
	free(p);
	free(q);
}

/* Two runs (cache modes warm and direct) of five filesystems: ten
 * entries labelled like "fat32/direct", the widest first screen a lab
 * makes.  At 360, 400 and 1400 px no matrix word breaks and nothing
 * overflows the page. */
START_TEST(t_five_filesystems_two_runs)
{
	const char *src = getenv("FSLAB_SOURCE_DIR");
	static const char *const from[] = { "ext4", "ext4", "btrfs", "btrfs", "fat32" };
	static const char *const names[] = { "ext4", "ext2", "xfs", "btrfs", "fat32" };
	static const char *const modes[] = { "warm", "direct" };
	char *fixture, *dirs[2], *p, *html_p, *html;
	struct page_check c;

	need_browser();
	ck_assert_int_ge(asprintf(&fixture, "%s/tests/report/fixtures/basic", src ? src : "../.."), 0);
	for (size_t r = 0; r < 2; r++) {
		ck_assert_int_ge(asprintf(&dirs[r], "%s/run-%s", tmp, modes[r]), 0);
		ck_assert_int_eq(mkdir(dirs[r], 0755), 0);
		for (size_t i = 0; i < 5; i++)
			copy_fs_csv(fixture, from[i], dirs[r], names[i], modes[r]);
		ck_assert_int_ge(asprintf(&p, "%s/manifest.json", dirs[r]), 0);
		FILE *f = fopen(p, "w");
		ck_assert_ptr_nonnull(f);
		fprintf(f, "{ \"cache_mode\": \"%s\", \"trials\": 3, \"started_at\": \"2026-11-29T1%zu:00:00Z\",\n"
			   "  \"filesystems\": [", modes[r], r);
		for (size_t i = 0; i < 5; i++)
			fprintf(f, "%s { \"name\": \"%s\" }", i ? "," : "", names[i]);
		fputs(" ] }\n", f);
		fclose(f);
		free(p);
	}
	/* one side of two runs: ranked together, not a before and an after */
	char *both;
	ck_assert_int_ge(asprintf(&both, "%s,%s", dirs[0], dirs[1]), 0);
	html_p = make_report("out-five", both, NULL);
	free(both);
	html = slurp(html_p);
	ck_assert_msg(strstr(html, "fat32/direct"), "the entries are not labelled by cache mode");
	free(html);
	check_fits(html_p, "five-two-runs", -1, &c);
	ck_assert_msg(c.matrix >= 10 * 2, "the summary matrix has %d cells, wanted a row of 10 entries",
		      c.matrix);
	for (size_t r = 0; r < 2; r++)
		free(dirs[r]);
	free(html_p);
	free(fixture);
	done_browser();
}
END_TEST

int main(int argc, char **argv)
{
	struct ft_suite *s = ft_suite_new("report_browser");
	TCase *tc = ft_tcase(s, "chromium", 0);
	int failed;

	tcase_set_timeout(tc, 280);
	tcase_add_test(tc, t_report_in_chromium);
	tcase_add_test(tc, t_interrupted_run);
	tcase_add_test(tc, t_before_after);
	tcase_add_test(tc, t_five_filesystems_two_runs);
	/* no fork: the skip exit must reach ctest */
	ft_suite_nofork(s);
	failed = ft_suite_run(s, argc, argv);
	if (tmp) /* a failed check jumped past the test's own cleanup */
		ft_rm_rf(tmp);
	return failed;
}
