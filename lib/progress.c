#include "progress.h"
#include "clock.h"
#include "err.h"
#include "log.h"
#include "size.h"
#include "termtext.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The share of the work after which the ETA is the measured rate alone. */
#define PROGRESS_MEASURED_FRACTION 0.2

struct fslab_progress {
	FILE *out;
	bool quiet, tty, drawn;
	char stage[64];
	uint64_t total, done, done_at_start;
	double start;
	double before_s, after_s, after_hi_s;
	double work_total, work_done, work_at_start;
	/* the measured rate: work finished since the first set_work (across
	 * its calls, one a trial) and when that was; the estimated rate */
	double meas_work, meas_t0, est_rate;
	bool meas_started;
	double last_draw;
	/* set_left: the range of seconds left when it was set, and the
	 * share of the plan done (the largest given: it never goes back) */
	bool left_set;
	double left_lo, left_hi, left_point, left_t, done_frac; /* left_point < 0: none */
};

struct fslab_progress *fslab_progress_new(FILE *out, const char *stage, bool quiet)
{
	struct fslab_progress *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->out = out;
	p->quiet = quiet;
	p->tty = !quiet && out && isatty(fileno(out));
	p->start = fslab_now();
	snprintf(p->stage, sizeof(p->stage), "%s", stage ? stage : "");
	return p;
}

void fslab_progress_free(struct fslab_progress *p)
{
	if (!p)
		return;
	fslab_progress_clear(p);
	free(p);
}

bool fslab_progress_is_tty(const struct fslab_progress *p)
{
	return p && p->tty;
}

void fslab_progress_set_total(struct fslab_progress *p, uint64_t total, uint64_t done)
{
	p->total = total;
	p->done = done;
	p->done_at_start = done;
}

void fslab_progress_set_pipeline(struct fslab_progress *p, double elapsed_before_s,
				 double remaining_after_s, double remaining_after_hi_s)
{
	p->before_s = elapsed_before_s > 0 ? elapsed_before_s : 0;
	p->after_s = remaining_after_s > 0 ? remaining_after_s : 0;
	p->after_hi_s = remaining_after_hi_s > p->after_s ? remaining_after_hi_s : p->after_s;
}

double fslab_progress_elapsed(const struct fslab_progress *p)
{
	return fslab_now() - p->start;
}

void fslab_progress_set_work(struct fslab_progress *p, double total, double done)
{
	p->work_total = total;
	p->work_done = done;
	p->work_at_start = done;
	if (!p->meas_started) {
		p->meas_started = true;
		p->meas_t0 = fslab_now();
	}
}

void fslab_progress_set_estimate(struct fslab_progress *p, double seconds_per_work)
{
	p->est_rate = seconds_per_work > 0 ? seconds_per_work : 0;
}

void fslab_progress_add_work(struct fslab_progress *p, double work)
{
	p->work_done += work;
	p->meas_work += work;
}

void fslab_progress_set_left(struct fslab_progress *p, double lo_s, double point_s, double hi_s,
			     double done_frac)
{
	if (!p)
		return;
	if (!(lo_s >= 0)) {
		p->left_set = false;
		return;
	}
	p->left_set = true;
	p->left_lo = lo_s;
	p->left_hi = hi_s > lo_s ? hi_s : lo_s;
	p->left_point = point_s >= 0 ? fmin(fmax(point_s, p->left_lo), p->left_hi) : -1;
	p->left_t = fslab_now();
	if (done_frac > 1)
		done_frac = 1;
	if (done_frac > p->done_frac)
		p->done_frac = done_frac;
}

/* One end of the range now: counted down since it was set, never below
 * the floor while work is left. */
static double progress_left_now(const struct fslab_progress *p, double s, double after)
{
	s -= fslab_now() - p->left_t;
	if (p->done_frac < 1 && s < FSLAB_PROGRESS_MIN_LEFT_S)
		s = FSLAB_PROGRESS_MIN_LEFT_S;
	if (s < 0)
		s = 0;
	return s + after;
}

bool fslab_progress_eta_range(const struct fslab_progress *p, double *lo_s, double *point_s, double *hi_s)
{
	if (!p || !p->left_set)
		return false;
	*lo_s = progress_left_now(p, p->left_lo, p->after_s);
	*hi_s = progress_left_now(p, p->left_hi, p->after_hi_s);
	/* the pipeline's rest: its middle */
	*point_s = p->left_point >= 0
			   ? progress_left_now(p, p->left_point, (p->after_s + p->after_hi_s) / 2)
			   : -1;
	return true;
}

double fslab_progress_done_pct(const struct fslab_progress *p)
{
	return p && p->left_set ? 100.0 * p->done_frac : -1;
}

double fslab_progress_shown_pct(const struct fslab_progress *p)
{
	double pct = fslab_progress_done_pct(p);

	/* "100%" only at the end: 99.7 shows 99 */
	return pct < 100 ? floor(pct) : pct;
}

char *fslab_progress_format_eta(const struct fslab_progress *p, char *buf, size_t len)
{
	char a[32], b[32], m[32];
	double lo, hi, point;

	if (!fslab_progress_eta_range(p, &lo, &point, &hi))
		return fslab_progress_format_duration(p ? fslab_progress_eta(p) : -1, buf, len);
	fslab_progress_format_duration(lo, a, sizeof(a));
	fslab_progress_format_duration(hi, b, sizeof(b));
	fslab_progress_format_duration(point, m, sizeof(m));
	if (strcmp(a, b) == 0)
		snprintf(buf, len, "%s", a);
	else if (point >= 0)
		snprintf(buf, len, "%s (%s..%s)", m, a, b);
	else
		snprintf(buf, len, "%s..%s", a, b);
	return buf;
}

double fslab_progress_eta(const struct fslab_progress *p)
{
	uint64_t ran = p->done - p->done_at_start;
	double lo, hi, point;

	if (fslab_progress_eta_range(p, &lo, &point, &hi))
		return point >= 0 ? point : lo;

	if (p->work_total > 0) {
		double left = p->work_total > p->work_done ? p->work_total - p->work_done : 0;
		double w = p->meas_work, measured, est, m;

		if (w <= 0)
			return p->est_rate > 0 ? p->est_rate * left + p->after_s : -1;
		/* from when the work began (not from before the device probes) */
		measured = (fslab_now() - p->meas_t0) / w * left;
		if (!(p->est_rate > 0))
			return measured + p->after_s;
		est = p->est_rate * left;
		m = w / (w + left) / PROGRESS_MEASURED_FRACTION;
		if (m > 1)
			m = 1;
		return m * measured + (1 - m) * est + p->after_s;
	}

	if (ran == 0)
		return -1;
	double per = fslab_progress_elapsed(p) / (double)ran;
	uint64_t left = p->total > p->done ? p->total - p->done : 0;
	return per * (double)left + p->after_s;
}

char *fslab_progress_format_duration(double s, char *buf, size_t len)
{
	if (s < 0) {
		snprintf(buf, len, "?");
		return buf;
	}
	unsigned long t = (unsigned long)(s + 0.5);
	if (t >= 3600)
		snprintf(buf, len, "%lu:%02lu:%02lu", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, len, "%lu:%02lu", t / 60, t % 60);
	return buf;
}

void fslab_progress_clear(struct fslab_progress *p)
{
	if (!p || !p->tty || !p->drawn)
		return;
	fputs("\r\033[K", p->out);
	fflush(p->out);
	p->drawn = false;
}

/* Redraws the line: the stage, then what (printf-style), then the clock;
 * at most 10 times a second (small cells finish by the thousand) unless
 * force. */
static void redraw(struct fslab_progress *p, bool force, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void redraw(struct fslab_progress *p, bool force, const char *fmt, ...)
{
	char el[32], eta[72];
	double now = fslab_now();
	va_list ap;

	if (p->drawn && !force && now - p->last_draw < 0.1)
		return;
	p->last_draw = now;
	fslab_progress_format_duration(fslab_progress_elapsed(p) + p->before_s, el, sizeof(el));
	fslab_progress_format_eta(p, eta, sizeof(eta));
	fprintf(p->out, "\r\033[K%s%s", p->stage, p->stage[0] ? "  " : "");
	va_start(ap, fmt);
	vfprintf(p->out, fmt, ap);
	va_end(ap);
	fprintf(p->out, "  elapsed %s  ETA %s", el, eta);
	fflush(p->out);
	p->drawn = true;
}

void fslab_progress_step(struct fslab_progress *p, uint64_t units,
			 const struct fslab_progress_item *it)
{
	char fsz[32], rsz[32], tp[48] = "", pct[16] = "", item[192] = "";

	p->done += units;
	if (!p->tty)
		return;
	if (it && it->throughput_kib_s >= 0)
		snprintf(tp, sizeof(tp), "  %.0f KiB/s", it->throughput_kib_s);
	else if (it)
		snprintf(tp, sizeof(tp), "  -");
	if (p->left_set)
		snprintf(pct, sizeof(pct), "  %.0f%%", fslab_progress_shown_pct(p));
	if (it)
		snprintf(item, sizeof(item), "  %s  %s  %s/%s%s", fslab_esc(it->filesystem ? it->filesystem : ""),
			 it->test ? it->test : "", fslab_size_format(it->file_bytes, fsz, sizeof(fsz)),
			 fslab_size_format(it->record_bytes, rsz, sizeof(rsz)), tp);
	redraw(p, p->done >= p->total, "%llu/%llu cells%s%s", (unsigned long long)p->done,
	       (unsigned long long)p->total, pct, item);
}

void fslab_progress_draw(struct fslab_progress *p, const char *what, bool force)
{
	if (p && p->tty)
		redraw(p, force, "%s", what ? what : "");
}

void fslab_progress_note(struct fslab_progress *p, const char *fmt, ...)
{
	char *text = NULL;
	va_list ap;

	if (!p || p->quiet)
		return;
	fslab_progress_clear(p);
	va_start(ap, fmt);
	fslab_put_text(vasprintf(&text, fmt, ap) < 0 ? fmt : text, p->out);
	va_end(ap);
	fputc('\n', p->out);
	fflush(p->out);
	free(text);
}

void fslab_note(enum fslab_note_kind kind, const char *fmt, ...)
{
	FILE *out = kind == FSLAB_NOTE_ASK ? stderr : stdout;
	char *text = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	/* out of memory: the note is lost, as a printf's would be */
	if (n < 0)
		return;
	if (kind == FSLAB_NOTE_WARN)
		fslab_warn("%s", text);
	else if (kind == FSLAB_NOTE_ERROR)
		fslab_error("%s", text);
	else if (fslab_put_text(text, out) == 0 && kind == FSLAB_NOTE_LINE)
		putc('\n', out);
	fflush(out);
	free(text);
}

void fslab_note_err(struct fslab_err *e)
{
	if (e && e->code) {
		fslab_note(FSLAB_NOTE_ERROR, "%s", fslab_err_msg(e));
		fslab_err_clear(e);
	}
}

static int note_vfail(struct fslab_err *e, int code, bool with_errno, const char *fmt, va_list ap)
{
	char msg[FSLAB_ERR_MSG_MAX];

	code = code > 0 ? -code : code ? code : -EIO;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	fslab_note_err(e);
	if (with_errno)
		return fslab_err_set(e, code, "%s: %s", msg, strerror(-code));
	return fslab_err_set(e, code, "%s", msg);
}

int fslab_note_fail_errno(struct fslab_err *e, int err, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = note_vfail(e, err, true, fmt, ap);
	va_end(ap);
	return r;
}

int fslab_note_fail(struct fslab_err *e, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	note_vfail(e, ret < 0 ? ret : -EPERM, false, fmt, ap);
	va_end(ap);
	return ret;
}
