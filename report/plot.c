/* Plots: gnuplot scripts with the data inline, run by two gnuplot processes
 * (one per core) in parallel.  Each process draws many plots; starting one
 * gnuplot per plot would cost far more than the drawing.
 *
 * - surface: per filesystem and test, pm3d over log2 file size x log2
 *   record size.  Unmeasured cells are NaN, so gnuplot leaves every facet
 *   that touches them out: nothing is interpolated (no dgrid3d).  One z and
 *   colour scale per test, shared by all filesystems.
 * - heatmap: the same cells as coloured boxes, measured cells only; flagged
 *   cells get a marker, failed cells a cross.
 * - compare: per test, throughput against file size at one record size, a
 *   line per filesystem, error bars = 95% CI of the trials. */
#include "fileutil.h"
#include "exec.h"
#include "log.h"
#include "termtext.h"
#include "view.h"
#include "progress.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define PL_JOBS 2

static void pl_quote(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		if ((unsigned char)*s >= ' ')
			fputc(*s, f);
	}
	fputc('\'', f);
}

static void pl_sanitize(char *dst, size_t len, const char *src)
{
	size_t i = 0;

	for (; *src && i + 1 < len; src++)
		dst[i++] = (char)((*src >= 'a' && *src <= 'z') || (*src >= 'A' && *src <= 'Z') ||
					  (*src >= '0' && *src <= '9') || *src == '-' || *src == '.'
				  ? *src
				  : '_');
	dst[i] = '\0';
}

static int pl_log2(uint64_t v)
{
	return v > 1 ? 63 - __builtin_clzll(v) : 0;
}

/* Distinct sizes of one test over all entries (sorted). */
struct pl_axes {
	uint64_t file[RP_SIZES_MAX], record[RP_SIZES_MAX];
	size_t nf, nr;
};

static double pl_axes_for(const struct rp_data *d, enum fslab_test t, struct pl_axes *ax)
{
	double zmax = 0;

	memset(ax, 0, sizeof(*ax));
	for (size_t i = 0; i < d->n_all; i++) {
		const struct rp_entry *e = d->all[i];

		RP_FOR_CELLS(c, e, t) {
			rp_sizes_add(ax->file, &ax->nf, c->file_kib);
			rp_sizes_add(ax->record, &ax->nr, c->record_kib);
			if (c->n_ok) {
				double top = c->median / 1024;
				if (top > zmax)
					zmax = top;
				if (!isnan(c->ci) && (c->mean + c->ci) / 1024 > zmax)
					zmax = (c->mean + c->ci) / 1024;
			}
		}
	}
	return zmax > 0 ? zmax * 1.05 : 1;
}

static const struct rp_cell *pl_find(const struct rp_entry *e, enum fslab_test t, uint64_t f,
				     uint64_t r)
{
	size_t lo = e->test_first[t], hi = e->test_first[t + 1];

	while (lo < hi) { /* cells are sorted by file, then record */
		size_t mid = (lo + hi) / 2;
		const struct rp_cell *c = &e->cells[mid];

		if (c->file_kib < f || (c->file_kib == f && c->record_kib < r))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < e->test_first[t + 1] && e->cells[lo].file_kib == f && e->cells[lo].record_kib == r)
		return &e->cells[lo];
	return NULL;
}

void rp_tic_layout(size_t n, size_t maxlen, double axis_px, double font_px, bool x_axis,
		   struct rp_tic_layout *l)
{
	double slot = n ? axis_px / (double)n : axis_px;
	double line = 1.25 * font_px;                        /* a label's height */
	double width = ((double)maxlen + 1) * 0.62 * font_px; /* and length, with a gap */
	double need;

	l->rotate = 0;
	l->step = 1;
	if (n < 2 || !(slot > 0))
		return;
	if (x_axis && width <= slot)
		return;
	if (x_axis)
		l->rotate = 45;
	/* level labels on a y axis are a line apart; labels at 45 degrees
	 * are slot * sin(45) apart, measured across them */
	need = x_axis ? line / (slot * 0.7071) : line / slot;
	if (need > 1)
		l->step = (size_t)ceil(need - 1e-9);
}

/* Tic marks at every size, placed at its log2, labelled so that none
 * overlap (rp_tic_layout for an axis of axis_px pixels in 8 points): turned 45
 * degrees on x when they do not fit level, and where even that is too
 * close only every step-th labelled (the rest minor tics, the largest
 * always labelled). */
static void pl_tics(FILE *f, const char *axis, const uint64_t *v, size_t n, double axis_px)
{
	struct rp_tic_layout l;
	size_t maxlen = 0;
	char b[16];

	for (size_t i = 0; i < n; i++)
		if (strlen(rp_fmt_size(v[i], b, sizeof(b))) > maxlen)
			maxlen = strlen(b);
	rp_tic_layout(n, maxlen, axis_px, 8 * 96.0 / 72, axis[0] == 'x', &l);
	fprintf(f, "set %stics %s font ',8' (", axis, l.rotate ? "rotate by 45 right" : "norotate");
	for (size_t i = 0; i < n; i++) {
		bool label = (n - 1 - i) % l.step == 0; /* always label the largest */

		rp_fmt_size(v[i], b, sizeof(b));
		fprintf(f, "%s'%s' %llu %d", i ? ", " : "", label ? b : "", (unsigned long long)pl_log2(v[i]),
			!label);
	}
	fputs(")\n", f);
}

/* Rankings and by-size charts full size; the folded surfaces and heatmaps
 * smaller (there are two per filesystem and test, and the page must stay
 * small). */
static const char *const pl_term[2][2] = {
	{ "set terminal png size 640,420 noenhanced font 'DejaVuSans,8'\n",
	  "set terminal svg size 640,420 noenhanced font 'DejaVu Sans,9' background '#ffffff'\n" },
	{ "set terminal png size 420,300 noenhanced font 'DejaVuSans,7'\n",
	  "set terminal svg size 420,300 noenhanced font 'DejaVu Sans,8' background '#ffffff'\n" },
};
static const char *const pl_ext[2] = { "png", "svg" };

/* 24 steps: readable, and the PNGs compress far better than with 256 */
static const char pl_palette[] =
	"set palette defined (0 '#440154', 1 '#3b528b', 2 '#21908d', 3 '#5dc963', 4 '#fde725') maxcolors 24\n";

/* Distinct, readable line colours (gnuplot's 5th default is a pale yellow). */
static const char pl_lines[] =
	"set linetype 1 lc rgb '#1f77b4'\nset linetype 2 lc rgb '#d62728'\n"
	"set linetype 3 lc rgb '#2ca02c'\nset linetype 4 lc rgb '#ff7f0e'\n"
	"set linetype 5 lc rgb '#9467bd'\nset linetype 6 lc rgb '#8c564b'\n"
	"set linetype 7 lc rgb '#e377c2'\nset linetype 8 lc rgb '#17becf'\n"
	"set linetype 9 lc rgb '#000000'\nset linetype 10 lc rgb '#7f7f7f'\n"
	"set linetype cycle 10\n";

/* The start of one plot in one format: a fresh state, the terminal and
 * file, the settings in before (may be NULL), the title. */
static void pl_begin(FILE *f, const struct rp_plot *p, int fmt, bool small, const char *before)
{
	char path[256];

	/* the output name relative: gnuplot runs in the plots directory, so
	 * the scripts can be rerun there after the report is renamed into place */
	snprintf(path, sizeof(path), "%s.%s", p->name, pl_ext[fmt]);
	fprintf(f, "reset\n%sset output ", pl_term[small][fmt]);
	pl_quote(f, path);
	fputc('\n', f);
	if (before)
		fputs(before, f);
	fputs("set title ", f);
	pl_quote(f, p->title);
	fputc('\n', f);
}

/* The y range of a chart of values from lo to hi (MiB/s): log when they
 * span more than 10x. */
static void pl_yrange(double lo, double hi, bool *logy, double *ymin, double *ymax)
{
	*logy = rp_log_axis(lo, hi);
	*ymin = *logy ? lo / 2 : 0;
	*ymax = *logy ? hi * 2 : (hi > 0 ? hi * 1.3 : 1);
}

/* An error bar [*lo, *hi] cut at the chart's edges (a log axis has no 0);
 * *cut_lo and *cut_hi say which end was cut.  Returns the ends cut. */
static unsigned pl_cut(double *lo, double *hi, double ymin, double ymax, bool logy, int *cut_lo,
		       int *cut_hi)
{
	*cut_hi = *hi > ymax;
	if (*cut_hi)
		*hi = ymax;
	*cut_lo = *lo < ymin || (logy && *lo <= 0);
	if (*cut_lo)
		*lo = ymin;
	return (unsigned)(*cut_lo + *cut_hi);
}

static bool pl_regular(const struct pl_axes *ax)
{
	if (ax->nf < 2 || ax->nr < 2)
		return false;
	for (size_t i = 0; i < ax->nf; i++)
		if (ax->file[i] != ax->file[0] << i)
			return false;
	for (size_t j = 0; j < ax->nr; j++)
		if (ax->record[j] != ax->record[0] << j)
			return false;
	return true;
}

/* Widens [*lo, *hi] (NaN: empty) to a positive v. */
static void pl_span(double v, double *lo, double *hi)
{
	if (!(v > 0))
		return;
	*lo = isnan(*lo) ? v : fmin(*lo, v);
	*hi = isnan(*hi) ? v : fmax(*hi, v);
}

/* The smallest and largest median of the measured cells of one
 * filesystem and test (MiB/s); NaN when none was measured. */
static void pl_median_range(const struct rp_entry *e, enum fslab_test t, double *lo, double *hi)
{
	*lo = *hi = NAN;
	RP_FOR_CELLS(c, e, t)
		if (c->n_ok)
			pl_span(c->median / 1024, lo, hi);
}

/* What a heatmap's data block holds: cells ringed, crossed, present. */
struct pl_marks {
	unsigned n_flag, n_fail, n_cells;
};

/* One grid point of the data block $g: "x y z" for a surface (NaN where
 * nothing was measured); for a heatmap "x y value flagged failed-or-
 * skipped", for measured cells only, or every point on an image grid. */
static void pl_grid_point(FILE *f, const struct rp_plot *p, uint64_t file, uint64_t record,
			  bool image, struct pl_marks *mk)
{
	const struct rp_cell *c = pl_find(p->e, p->test, file, record);
	char v[32];

	if (c && c->n_ok)
		snprintf(v, sizeof(v), "%.6g", c->median / 1024);
	else
		snprintf(v, sizeof(v), "NaN");
	if (p->kind == FSLAB_REPORT_PLOT_SURFACE) {
		fprintf(f, "%d %d %s\n", pl_log2(file), pl_log2(record), v);
		return;
	}
	if (!c && !image)
		return;
	bool flagged = c && (c->flags & RP_FLAGS_ASIDE);
	bool failed = c && !c->n_ok;

	fprintf(f, "%d %d %s %d %d\n", pl_log2(file), pl_log2(record), v, flagged, failed);
	mk->n_flag += flagged && !failed;
	mk->n_fail += failed;
	mk->n_cells += c != NULL;
}

/* The colour bar: a surface's shared z scale (or a heatmap with nothing
 * measured), else the heatmap's own range, log when clog. */
static void pl_cbrange(FILE *f, const struct rp_plot *p, double zmax, double cmin, double cmax,
		       bool clog)
{
	if (p->kind == FSLAB_REPORT_PLOT_SURFACE || isnan(cmin)) {
		fprintf(f, "set cbrange [0:%.6g]\n", zmax);
	} else if (clog) {
		fprintf(f, "set logscale cb\nset cbrange [%.6g:%.6g]\n", cmin, cmax);
	} else {
		double pad = cmax > cmin ? 0 : cmax * 0.1 + 1e-9;
		fprintf(f, "set cbrange [%.6g:%.6g]\n", cmin - pad, cmax + pad);
	}
	if (p->kind != FSLAB_REPORT_PLOT_SURFACE) /* the surface's z label says it */
		fprintf(f, "set cblabel 'MiB/s (this plot%s)'\n", clog ? ", log scale" : "");
}

/* The end of a chart's plot line: triangles where an interval was cut
 * (n_cut ends; columns 5 and 6 of data block $<block><id>). */
static void pl_cut_marks(FILE *f, unsigned n_cut, char block, int id, const char *ps, const char *title)
{
	if (n_cut)
		fprintf(f, ", \\\n     $%c%d using 1:($5 > 0 ? $4 : NaN) with points pt 9 ps %s lc rgb '#c00000' title '%s', \\\n"
			   "     $%c%d using 1:($6 > 0 ? $3 : NaN) with points pt 11 ps %s lc rgb '#c00000' notitle",
			block, id, ps, title, block, id, ps);
	fputc('\n', f);
}

static void pl_surface_plot(FILE *f, const struct pl_axes *ax, double zmax, int id)
{
	/* a single file or record size: pad the range, draw impulses (pm3d
	 * needs two scans of two points to make a facet) */
	bool flat = ax->nf < 2 || ax->nr < 2;
	double pad_x = ax->nf < 2 ? 1 : 0, pad_y = ax->nr < 2 ? 1 : 0;

	fprintf(f, "set zrange [0:%.6g]\nset zlabel 'MiB/s' rotate by 90\n"
		   "set xrange [%g:%g]\nset yrange [%g:%g]\n",
		zmax, pl_log2(ax->file[0]) - pad_x, pl_log2(ax->file[ax->nf - 1]) + pad_x,
		pl_log2(ax->record[0]) - pad_y, pl_log2(ax->record[ax->nr - 1]) + pad_y);
	fputs("set xtics rotate by -30 font ',8'\nset ytics font ',8'\n"
	      "set ticslevel 0\nset view 60,30\n"
	      "set pm3d depthorder\n",
	      f);
	if (flat)
		fprintf(f, "splot $g%d using 1:2:3:3 with impulses lw 4 lc palette notitle\n", id);
	else
		fprintf(f, "splot $g%d using 1:2:3 with pm3d notitle\n", id);
}

static void pl_heatmap_plot(FILE *f, const struct pl_axes *ax, bool image, int fmt,
			    const struct pl_marks *mk, int id)
{
	fprintf(f, "set xrange [%g:%g]\nset yrange [%g:%g]\n", pl_log2(ax->file[0]) - 0.5,
		pl_log2(ax->file[ax->nf - 1]) + 0.5, pl_log2(ax->record[0]) - 0.5,
		pl_log2(ax->record[ax->nr - 1]) + 0.5);
	fputs("set style fill solid 1.0 noborder\nset key outside bottom center horizontal\n", f);
	/* SVG: one vector rectangle per cell (an embedded raster would be
	 * blurred by the browser) */
	if (image)
		fprintf(f, "plot $g%d using 1:2:3 with image%s notitle", id, fmt == 1 ? " pixels" : "");
	else
		fprintf(f, "plot $g%d using 1:2:(0.5):(0.5):3 with boxxyerror fc palette notitle", id);
	/* every measured cell flagged (warm runs): one key line says so
	 * instead of a ring in every cell */
	if (mk->n_flag && mk->n_flag == mk->n_cells - mk->n_fail)
		fputs(", \\\n     keyentry with points pt 6 ps 0.9 lc rgb '#ff2020' title 'every cell flagged (page cache or FUSE)'",
		      f);
	else if (mk->n_flag)
		fprintf(f, ", \\\n     $g%d using 1:($4 > 0 ? $2 : NaN) with points pt 6 ps 0.9 lc rgb '#ff2020' title 'flagged (page cache or FUSE)'",
			id);
	if (mk->n_fail)
		fprintf(f, ", \\\n     $g%d using 1:($5 > 0 ? $2 : NaN) with points pt 2 ps 0.9 lc rgb '#000000' title 'failed or skipped'",
			id);
	fputc('\n', f);
}

static void pl_surface_or_heatmap(FILE *f, const struct rp_plot *p, const struct pl_axes *ax,
				  double zmax, int id)
{
	struct pl_marks mk = { 0 };
	/* A heatmap on a regular grid (consecutive powers of two) is drawn
	 * `with image`, one raster, about half the cost of a box per cell;
	 * NaN pixels stay blank.  Other grids get a box per measured cell. */
	bool image = p->kind == FSLAB_REPORT_PLOT_HEATMAP && pl_regular(ax);
	/* heatmaps: this plot's own colour scale, log when its values span
	 * more than 10x (one shared linear scale made most cells one colour) */
	double cmin, cmax;

	pl_median_range(p->e, p->test, &cmin, &cmax);
	bool clog = rp_log_axis(cmin, cmax);

	fprintf(f, "$g%d << EOD\n", id);
	for (size_t i = 0; i < ax->nf; i++) {
		for (size_t j = 0; j < ax->nr; j++)
			pl_grid_point(f, p, ax->file[i], ax->record[j], image, &mk);
		if (p->kind == FSLAB_REPORT_PLOT_SURFACE)
			fputc('\n', f);
	}
	fputs("EOD\n", f);
	for (int fmt = 0; fmt < 2; fmt++) {
		pl_begin(f, p, fmt, true, pl_palette);
		/* the small plots' axes: about 260 px across, 200 px up */
		pl_tics(f, "x", ax->file, ax->nf, 260);
		pl_tics(f, "y", ax->record, ax->nr, 200);
		pl_cbrange(f, p, zmax, cmin, cmax, clog);
		fputs("set xlabel 'file size'\nset ylabel 'record size'\n", f);
		if (p->kind == FSLAB_REPORT_PLOT_SURFACE)
			pl_surface_plot(f, ax, zmax, id);
		else
			pl_heatmap_plot(f, ax, image, fmt, &mk, id);
	}
}

/* Points of entry e in the comparison chart of test t at record size rec
 * (0: the ok cells of every record size). */
static size_t pl_bysize_points(const struct rp_entry *e, enum fslab_test t, uint64_t rec)
{
	size_t n = 0;

	RP_FOR_CELLS(c, e, t)
		n += (!rec || c->record_kib == rec) && c->n_ok;
	return n;
}

/* The data block $c: a data set per entry with points, "x mean lo hi
 * cut_hi cut_lo" per file size.  Fills shown[] with those entries;
 * returns the number of interval ends cut. */
static unsigned pl_bysize_data(FILE *f, const struct rp_plot *p, const struct rp_data *d,
				const struct pl_axes *ax, uint64_t record, double ymin, double ymax,
				bool logy, int id, const struct rp_entry **shown, size_t *n)
{
	unsigned n_cut = 0;

	fprintf(f, "$c%d << EOD\n", id);
	for (size_t i = 0; i < d->n_all; i++) {
		const struct rp_entry *e = d->all[i];

		if (!pl_bysize_points(e, p->test, record))
			continue; /* no line, no legend entry */
		for (size_t k = 0; k < ax->nf; k++) {
			const struct rp_cell *c = pl_find(e, p->test, ax->file[k], record);
			double m, elo, ehi;
			int ch, cl;

			if (!c || !c->n_ok)
				continue;
			m = c->mean / 1024;
			elo = isnan(c->ci) ? m : (c->mean - c->ci) / 1024;
			ehi = isnan(c->ci) ? m : (c->mean + c->ci) / 1024;
			n_cut += pl_cut(&elo, &ehi, ymin, ymax, logy, &cl, &ch);
			fprintf(f, "%d %.6g %.6g %.6g %d %d\n", pl_log2(ax->file[k]), m > 0 ? m : ymin, elo,
				ehi, ch, cl);
		}
		fputs("\n\n", f); /* one data set (index) per entry */
		shown[(*n)++] = e;
	}
	fputs("EOD\n", f);
	return n_cut;
}

static void pl_bysize(FILE *f, const struct rp_plot *p, const struct rp_data *d, uint64_t record,
		       int id)
{
	const struct rp_entry *shown[FSLAB_REPORT_MAX_DIRS * FSLAB_MAX_FS * 4];
	struct pl_axes ax;
	size_t n = 0;
	char b[16];
	double lo = NAN, hi = 0, ymin, ymax;
	bool logy;

	pl_axes_for(d, p->test, &ax);
	for (size_t i = 0; i < d->n_all; i++)
		for (size_t k = 0; k < ax.nf; k++) {
			const struct rp_cell *c = pl_find(d->all[i], p->test, ax.file[k], record);
			if (c && c->n_ok)
				pl_span(c->mean / 1024, &lo, &hi);
		}
	pl_yrange(lo, hi, &logy, &ymin, &ymax);
	unsigned n_cut = pl_bysize_data(f, p, d, &ax, record, ymin, ymax, logy, id, shown, &n);

	for (int fmt = 0; fmt < 2; fmt++) {
		pl_begin(f, p, fmt, false, NULL);
		pl_tics(f, "x", ax.file, ax.nf, 430); /* left of the key */
		fprintf(f, "set xlabel 'file size (record size %s)'\nset ylabel 'MiB/s%s'\n",
			rp_fmt_size(record, b, sizeof(b)), logy ? " (log scale)" : "");
		fputs(pl_lines, f);
		if (logy)
			fputs("set logscale y\n", f);
		fprintf(f, "set xrange [%g:%g]\nset yrange [%.6g:%.6g]\nset grid\nset key outside right top\n",
			pl_log2(ax.file[0]) - 0.3, pl_log2(ax.file[ax.nf - 1]) + 0.3, ymin, ymax);
		fputs("plot ", f);
		for (size_t i = 0; i < n; i++) {
			fprintf(f, "%s$c%d index %zu using 1:2:3:4 with yerrorlines lw 1.5 pt 7 ps 0.6 title ",
				i ? ", \\\n     " : "", id, i);
			pl_quote(f, shown[i]->label);
		}
		pl_cut_marks(f, n_cut, 'c', id, "1.4", "interval cut");
	}
}

/* The bars' x tics: one per entry, about 560 px across; labels level when
 * they fit, else at 45 degrees, else every other. */
static void pl_bar_tics(FILE *f, const struct rp_ranking *r)
{
	struct rp_tic_layout l;
	size_t maxlen = 0;

	for (size_t i = 0; i < r->n; i++)
		if (strlen(r->rows[i].e->label) > maxlen)
			maxlen = strlen(r->rows[i].e->label);
	rp_tic_layout(r->n, maxlen, 560, 8 * 96.0 / 72, true, &l);
	fprintf(f, "set xtics %s (", l.rotate ? "rotate by 45 right" : "norotate");
	for (size_t i = 0; i < r->n; i++) {
		fputs(i ? ", " : "", f);
		pl_quote(f, i % l.step ? "" : r->rows[i].e->label);
		fprintf(f, " %zu", i);
	}
	fputs(")\n", f);
}

/* The ranking as bars: the large-file scores the table ranks, best first,
 * with their 95% intervals.  An interval running past the plot is cut at
 * its edge and the cut marked with a triangle.  Log y when the medians
 * span more than 10x. */
static int pl_bars(FILE *f, const struct rp_plot *p, const struct rp_data *d, int id)
{
	const struct rp_ranking *r = &d->sum->rank[p->test];
	double lo = NAN, hi = 0, ymin, ymax;
	unsigned n_cut = 0;
	bool logy;

	if (r->n == 0)
		return -ENODATA;
	for (size_t i = 0; i < r->n; i++)
		pl_span(r->rows[i].s.score / 1024, &lo, &hi);
	pl_yrange(lo, hi, &logy, &ymin, &ymax);
	fprintf(f, "$b%d << EOD\n", id);
	for (size_t i = 0; i < r->n; i++) {
		const struct rp_score *sc = &r->rows[i].s;
		double m = sc->score / 1024, elo = m, ehi = m;
		int cut_hi, cut_lo;

		if (!isnan(sc->ci)) {
			elo = (sc->mean - sc->ci) / 1024;
			ehi = (sc->mean + sc->ci) / 1024;
		}
		n_cut += pl_cut(&elo, &ehi, ymin, ymax, logy, &cut_lo, &cut_hi);
		fprintf(f, "%zu %.6g %.6g %.6g %d %d %d\n", i, m > 0 ? m : ymin, elo, ehi, cut_hi, cut_lo,
			i == 0);
	}
	fputs("EOD\n", f);
	for (int fmt = 0; fmt < 2; fmt++) {
		pl_begin(f, p, fmt, false, NULL);
		pl_bar_tics(f, r);
		fprintf(f, "set xrange [-0.6:%g]\nset yrange [%.6g:%.6g]\n", (double)r->n - 0.4, ymin, ymax);
		if (logy)
			fputs("set logscale y\nset ylabel 'MiB/s (log scale)'\n", f);
		else
			fputs("set ylabel 'MiB/s'\n", f);
		fputs("set grid ytics\nset key top right\nset style fill solid 0.8 border rgb '#333333'\n", f);
		fprintf(f, "plot $b%d using 1:2:($1-0.3):($1+0.3):(%.6g):2 with boxxyerror lc rgb '#7fa7d0' title 'large-file score (geometric mean of trials)', \\\n"
			   "     $b%d using 1:2:3:4 with yerrorbars pt -1 lw 1.5 lc rgb '#000000' title '95%% interval'",
			id, ymin, id);
		pl_cut_marks(f, n_cut, 'b', id, "1.6", "interval cut at the plot edge");
	}
	return 0;
}

/* Is cell (file, record) of test t measured ok in any entry? */
static bool pl_measured(const struct rp_data *d, enum fslab_test t, uint64_t file, uint64_t record)
{
	for (size_t k = 0; k < d->n_all; k++) {
		const struct rp_cell *c = pl_find(d->all[k], t, file, record);
		if (c && c->n_ok)
			return true;
	}
	return false;
}

/* The record size measured at the most file sizes (ties: the larger). */
static uint64_t pl_auto_record(const struct rp_data *d, enum fslab_test t)
{
	struct pl_axes ax;
	uint64_t best = 0;
	size_t best_n = 0;

	pl_axes_for(d, t, &ax);
	for (size_t j = 0; j < ax.nr; j++) {
		size_t n = 0;
		for (size_t i = 0; i < ax.nf; i++)
			n += pl_measured(d, t, ax.file[i], ax.record[j]);
		if (n >= best_n) {
			best_n = n;
			best = ax.record[j];
		}
	}
	return best;
}

/* One gnuplot process: its script in the plots directory, and what came
 * of it.  pl_run fills rc and res in its thread and touches nothing else. */
struct pl_job {
	const char *dir, *gp;
	char base[32];              /* script name inside DIR */
	char script[PATH_MAX + 32];
	char log[PATH_MAX + 32];
	int rc;
	struct fslab_exec_result res;
	size_t n_plots;
};

static void *pl_run(void *arg)
{
	struct pl_job *j = arg;
	const char *argv[] = { j->gp, j->base, NULL };

	/* in the plots directory: no path of it in the scripts or the logs */
	j->rc = fslab_exec_run_in(argv, j->dir, j->log, 600, &j->res);
	return NULL;
}

/* The plots being written: the list for the page and the scripts they are
 * dealt to, plot by plot in turn. */
struct pl_draw {
	const struct rp_data *d;
	struct rp_plots *out;
	struct pl_job jobs[PL_JOBS];
	FILE *scripts[PL_JOBS]; /* in memory until written whole (pl_close_scripts) */
	char *text[PL_JOBS];
	size_t len[PL_JOBS];
	int id; /* plots written so far: names their data blocks */
};

static FILE *pl_script(const struct pl_draw *w)
{
	return w->scripts[w->id % PL_JOBS];
}

static void pl_written(struct pl_draw *w)
{
	w->jobs[w->id % PL_JOBS].n_plots++;
	w->id++;
}

static int pl_open_scripts(struct pl_draw *w, const char *dir, const char *gp, struct fslab_err *e)
{
	for (int k = 0; k < PL_JOBS; k++) {
		struct pl_job *j = &w->jobs[k];

		snprintf(j->script, sizeof(j->script), "%s/plots-%d.gp", dir, k + 1);
		snprintf(j->base, sizeof(j->base), "plots-%d.gp", k + 1);
		j->dir = dir;
		j->gp = gp;
		snprintf(j->log, sizeof(j->log), "%s/gnuplot-%d.log", dir, k + 1);
		w->scripts[k] = open_memstream(&w->text[k], &w->len[k]);
		if (!w->scripts[k])
			return rp_err_errno(e, ENOMEM, "out of memory");
		fputs("# fslab report: gnuplot script, data inline; rerun inside this directory: gnuplot THIS_FILE\n",
		      w->scripts[k]);
	}
	return 0;
}

static int pl_close_scripts(struct pl_draw *w, struct fslab_err *e)
{
	char esc[4 * (PATH_MAX + 32) + 8];

	for (int k = 0; k < PL_JOBS; k++) {
		int r = fclose(w->scripts[k]) != 0 ? -ENOMEM : 0;

		w->scripts[k] = NULL;
		if (r == 0)
			r = fslab_write_file_atomic(w->jobs[k].script, w->text[k], w->len[k], 0644);
		if (r < 0)
			return rp_err_errno(e, r, "%s: cannot write",
					    fslab_escape_ctrl(w->jobs[k].script, esc, sizeof(esc)));
	}
	return 0;
}

/* Entry i's surface and heatmap of test t, as kinds asks. */
static void pl_add_grids(struct pl_draw *w, unsigned kinds, enum fslab_test t, size_t i,
			 const struct pl_axes *ax, double zmax)
{
	const struct rp_entry *e = w->d->all[i];
	char lab[96];

	pl_sanitize(lab, sizeof(lab), e->label);
	for (unsigned kind = FSLAB_REPORT_PLOT_SURFACE; kind <= FSLAB_REPORT_PLOT_HEATMAP; kind <<= 1) {
		bool surface = kind == FSLAB_REPORT_PLOT_SURFACE;
		struct rp_plot *p;

		if (!(kinds & kind))
			continue;
		if (surface && !pl_bysize_points(e, t, 0))
			continue; /* nothing to draw; the heatmap shows the failures */
		p = &w->out->p[w->out->n++];
		p->e = e;
		p->test = t;
		p->kind = kind;
		snprintf(p->name, sizeof(p->name), "%s-%zu-%s-%s", surface ? "surface" : "heatmap", i + 1,
			 lab, fslab_test_to_string(t));
		snprintf(p->title, sizeof(p->title), "%s: %s, %s (MiB/s; median of trials%s)", e->label,
			 fslab_test_to_string(t), surface ? "surface" : "heatmap",
			 surface ? "; gaps = not measured" : "; blank = not measured");
		pl_surface_or_heatmap(pl_script(w), p, ax, zmax, w->id);
		pl_written(w);
	}
}

/* The ranking's bars of test t; none (and 0) when nothing is ranked. */
static int pl_add_bars(struct pl_draw *w, enum fslab_test t)
{
	struct rp_plot *p = &w->out->p[w->out->n];
	int r;

	p->test = t;
	p->kind = FSLAB_REPORT_PLOT_COMPARE;
	p->bars = true;
	snprintf(p->name, sizeof(p->name), "rank-%s", fslab_test_to_string(t));
	snprintf(p->title, sizeof(p->title),
		 "%s: %s, median of trials, bars = 95%% interval",
		 fslab_test_to_string(t), rp_plateau_words(t));
	r = pl_bars(pl_script(w), p, w->d, w->id);
	if (r == -ENODATA) {
		memset(p, 0, sizeof(*p)); /* the slot is the next plot's */
		return 0;
	}
	if (r < 0)
		return r;
	w->out->n++;
	pl_written(w);
	return 0;
}

/* Test t against file size at one record size (record_kib, else the one
 * measured at the most file sizes). */
static void pl_add_bysize(struct pl_draw *w, enum fslab_test t, uint64_t record_kib)
{
	uint64_t rec = record_kib ? record_kib : pl_auto_record(w->d, t);
	char b[16];
	size_t pts = 0;

	for (size_t i = 0; i < w->d->n_all; i++)
		pts += pl_bysize_points(w->d->all[i], t, rec);
	if (!pts) {
		if (record_kib)
			fslab_note_warn("%s: no cell measured with %s records; no comparison chart (see --record)",
				   fslab_test_to_string(t), rp_fmt_size(rec, b, sizeof(b)));
		return;
	}
	struct rp_plot *p = &w->out->p[w->out->n++];

	p->test = t;
	p->kind = FSLAB_REPORT_PLOT_COMPARE;
	snprintf(p->name, sizeof(p->name), "bysize-%s", fslab_test_to_string(t));
	snprintf(p->title, sizeof(p->title), "%s at %s records: mean of trials, bars = 95%% CI",
		 fslab_test_to_string(t), rp_fmt_size(rec, b, sizeof(b)));
	pl_bysize(pl_script(w), p, w->d, rec, w->id);
	pl_written(w);
}

/* Every plot of test t into the scripts. */
static int pl_add_test(struct pl_draw *w, unsigned kinds, enum fslab_test t, uint64_t record_kib)
{
	struct pl_axes ax;
	double zmax = pl_axes_for(w->d, t, &ax);
	int r;

	if (ax.nf == 0)
		return 0;
	for (size_t i = 0; i < w->d->n_all; i++)
		if (w->d->all[i]->test_first[t] != w->d->all[i]->test_first[t + 1])
			pl_add_grids(w, kinds, t, i, &ax, zmax);
	if (!(kinds & FSLAB_REPORT_PLOT_COMPARE))
		return 0;
	if ((r = pl_add_bars(w, t)) < 0)
		return r;
	pl_add_bysize(w, t, record_kib);
	return 0;
}

/* Runs the scripts that have plots, each gnuplot from its own thread.  A
 * thread runs only pl_run: lib/exec prepares everything in the calling
 * thread and starts the child with posix_spawn (fds close-on-exec, so one
 * gnuplot inherits nothing of the other's); each job has its own result
 * and log.  Messages and strerror wait for the join. */
static int pl_run_jobs(struct pl_draw *w)
{
	pthread_t th[PL_JOBS];
	bool started[PL_JOBS] = { false };
	int r = 0;

	/* FSLAB_DEBUG is read once, on first use: here, not racing in two
	 * threads */
	(void)fslab_debug_enabled(FSLAB_DBG_EXEC);
	for (int k = 0; k < PL_JOBS; k++) {
		if (!w->jobs[k].n_plots)
			continue;
		if (pthread_create(&th[k], NULL, pl_run, &w->jobs[k]) != 0) {
			pl_run(&w->jobs[k]);
			continue;
		}
		started[k] = true;
	}
	for (int k = 0; k < PL_JOBS; k++) {
		if (started[k])
			pthread_join(th[k], NULL);
		if (!w->jobs[k].n_plots)
			continue;
		if (w->jobs[k].rc < 0) {
			r = w->jobs[k].rc;
			fslab_note(FSLAB_NOTE_ERROR, "cannot run gnuplot: %s", strerror(-r));
		} else if (w->jobs[k].res.exit_status != 0) {
			/* the tail of what gnuplot said: escaped by the sink, its lines kept */
			char esc[4 * (PATH_MAX + 32) + 8];

			fslab_note(FSLAB_NOTE_ERROR, "gnuplot failed (exit %d) on %s:\n%s", w->jobs[k].res.exit_status,
				   fslab_escape_ctrl(w->jobs[k].script, esc, sizeof(esc)), w->jobs[k].res.stderr_tail);
			r = -EIO;
		}
	}
	return r;
}

int rp_plots_draw(const struct rp_data *d, const char *dir, unsigned kinds, unsigned tests,
		  uint64_t record_kib, struct rp_plots *out, struct fslab_err *e)
{
	struct pl_draw w = { .d = d, .out = out };
	char gp[PATH_MAX];
	int r = 0;

	memset(out, 0, sizeof(*out));
	if (!kinds)
		return 0;
	if (fslab_exec_find("gnuplot", gp, sizeof(gp)) < 0)
		return fslab_err_set(e, ENOENT, "gnuplot not found: install gnuplot-nox (scripts/install-deps.sh), or use --plots none or --format text");
	out->p = calloc((d->n_all * 2 + 2) * FSLAB_TEST_MAX, sizeof(*out->p));
	if (!out->p)
		return -ENOMEM;
	if ((r = pl_open_scripts(&w, dir, gp, e)) < 0)
		goto out;
	for (int t = 0; t < FSLAB_TEST_MAX; t++)
		if ((tests & (1u << t)) && (r = pl_add_test(&w, kinds, t, record_kib)) < 0)
			goto out;
	if ((r = pl_close_scripts(&w, e)) < 0)
		goto out;
	r = pl_run_jobs(&w);
	fslab_debug(FSLAB_DBG_REPORT, "drew %zu plots", out->n);
out:
	for (int k = 0; k < PL_JOBS; k++) {
		if (w.scripts[k])
			fclose(w.scripts[k]);
		free(w.text[k]);
	}
	return r;
}

void rp_plots_free(struct rp_plots *p)
{
	free(p->p);
	memset(p, 0, sizeof(*p));
}

bool rp_log_axis(double lo, double hi)
{
	return lo > 0 && hi > 0 && hi / lo > 10;
}
