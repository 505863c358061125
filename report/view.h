/* The report's three views: text (text.c, verdict.c), HTML with the gnuplot
 * plots (html.c, verdict.c, plot.c) and JSON (json.c).  Each renders the
 * model (model.h) built once by rp_summary_build with the shared formatting
 * (format.h); no view computes a statistic, and no model file calls one. */
#ifndef FSLAB_REPORT_VIEW_H
#define FSLAB_REPORT_VIEW_H

#include "format.h"
#include "model.h"
#include "table.h"

/* One table for the text view (lib/table.h) or HTML: heads' columns
 * ("text|html" where the two differ), left-aligned where text_left (text)
 * or html_left (HTML, class=l) has their bit (bit 31: every column from
 * 31 on); then rows of cells in
 * column order, each escaped (HTML), or raw; cls: the HTML cell's class
 * after "l ", else NULL.  rp_tab_close prints it (HTML: html_after
 * after it): 0 or -errno. */
struct rp_tab {
	FILE *out;
	struct fslab_table *tb; /* text; NULL: HTML */
	unsigned html_left;
	size_t col;
};
int rp_tab_open(struct rp_tab *t, FILE *out, bool html, const char *const *heads, size_t n,
		unsigned text_left, unsigned html_left);
void rp_tab_row(struct rp_tab *t);
void rp_tab_cell(struct rp_tab *t, const char *text, const char *cls, bool raw);
int rp_tab_close(struct rp_tab *t, const char *html_after);
int rp_text_rankings(FILE *out, const struct rp_data *d, unsigned tests);
void rp_text_runs(FILE *out, const struct rp_data *d);
/* The same filesystem in two runs, and the latency panel: text or HTML
 * (0 or -ENOMEM). */
int rp_same_fs_table(FILE *out, const struct rp_data *d, bool html);
int rp_latency_table(FILE *out, const struct rp_data *d, bool html);
/* Each run's filesystems ranked among themselves (per host, when runs are
 * labelled by host). */
void rp_text_run_rankings(FILE *out, const struct rp_data *d, unsigned tests);
/* The log-axis rule: values from lo to hi span more than 10x. */
bool rp_log_axis(double lo, double hi);
/* Tic labels that do not overlap (plot.c): n labels of at most maxlen
 * characters, evenly spaced along axis_px pixels, in a font of font_px
 * pixels.  On an x axis they stay level when each fits its slot, else
 * turn 45 degrees; on a y axis (or rotated ones still too close) every
 * step-th is labelled, the largest always. */
struct rp_tic_layout {
	int rotate;  /* degrees: 0 or 45 */
	size_t step; /* label every step-th tic, >= 1 */
};
void rp_tic_layout(size_t n, size_t maxlen, double axis_px, double font_px, bool x_axis,
		   struct rp_tic_layout *l);
int rp_text_summary(FILE *out, const struct rp_data *d);
/* The JSON report (json.c); 0 or -1 when writing failed. */
int rp_json_write(FILE *out, const struct rp_data *d, unsigned tests);
void rp_html_summary(FILE *out, const struct rp_data *d);
/* The CrystalDiskMark panel the summary holds (cdm_view.c): nothing (NULL)
 * without a queued cell.  Text: 0 or -ENOMEM. */
int rp_cdm_text(FILE *out, const struct rp_data *d);
/* The summary's verdicts by CDM row (after "verdicts:" when head); 0 or -ENOMEM. */
int rp_cdm_verdicts_text(FILE *out, const struct rp_data *d, bool head);
void rp_cdm_html(FILE *out, const struct rp_data *d);
json_object *rp_cdm_json(const struct rp_data *d);
/* The claims' lines for the first screen, and the section with each run's
 * evidence. */
void rp_claims_text_first(FILE *out, const struct rp_data *d);
void rp_claims_html_first(FILE *out, const struct rp_data *d);
void rp_claims_text(FILE *out, const struct rp_data *d);
void rp_claims_html(FILE *out, const struct rp_data *d);
struct rp_plot {
	char name[160];       /* file name without extension */
	char title[200];
	const struct rp_entry *e; /* NULL for comparison charts */
	enum fslab_test test;
	unsigned kind;        /* FSLAB_REPORT_PLOT_* */
	bool bars;            /* COMPARE: the ranking's plateau bars (else by file size) */
};
struct rp_plots {
	struct rp_plot *p;
	size_t n;
};
/* Writes the gnuplot scripts into dir and runs gnuplot; PNG and SVG files
 * land in dir.  Returns 0 or a negative errno with the message in e
 * (gnuplot's own failures, with its stderr, are printed: e stays empty). */
int rp_plots_draw(const struct rp_data *d, const char *dir, unsigned kinds, unsigned tests,
		  uint64_t record_kib, struct rp_plots *out, struct fslab_err *e);
void rp_plots_free(struct rp_plots *p);
/* ---- html (html.c) ---- */
/* report.html in dir, the plots embedded; 0 or a negative errno with the
 * message in e. */
int rp_html_write(const struct rp_data *d, const struct rp_plots *plots, const char *dir,
		  unsigned tests, bool claims, struct fslab_err *e);

#endif
